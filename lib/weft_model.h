/* weft_model.h — the simulated system (mesh, state, energy terms, pins, colliders) and
 * the common metrics every solver is measured by (lib/model.c, lib/metrics.c).
 *
 * Units are SI: m, m/s, kg, s, J, N. Arrays of 3-vectors are flat: x[3*i + 0..2] is vertex i.
 */
#ifndef WEFT_MODEL_H
#define WEFT_MODEL_H

#include "weft_collider.h"
#include "weft_energy.h"

/* ------------------------------------------------------------------------------ */
/* Model                                                                           */
/* ------------------------------------------------------------------------------ */

/* Physical material of a cloth or shell, or of a solid (tetrahedral mesh). */
typedef struct weft_material {
    double density;           /* areal density of a surface, kg/m^2 (default 0.1); volumetric
                                 density of a tetrahedral mesh, kg/m^3 (default 1000) */
    double stretch_stiffness; /* membrane stiffness Y, N/m, ≈ Young's modulus × thickness:
                                 every membrane energy's modulus under uniaxial stress
                                 (mass_spring: k = Y (A1 + A2) / l0^2; papers/calibration.md)
                                 (default 1000) */
    double bending_stiffness; /* flexural rigidity D of cylindrical bending, N·m;
                                 dihedral_bending's hinge k = D |e|^2 / A (default 1e-4) */
    double poisson;           /* Poisson's ratio ν of membrane and volume energies (default 0.3) */
    double youngs_modulus;    /* E of volume (tetrahedron) energies, Pa (default 1e5) */
    double fiber[3];          /* fibre direction: material (u, v) for cloth, rest-space 3-D
                                 for tetrahedral meshes (default (1, 0, 0)) */
    double fiber_stiffness;   /* fibre modulus: N/m for cloth, Pa for volumes (default 0: no
                                 fibre term unless the scene names one) */
} weft_material;

/* One mesh of a scene: the primary [mesh] or a [mesh.NAME] part, a connected block of the
 * model's vertices and triangles. */
typedef struct weft_part {
    char name[64];        /* NAME of [mesh.NAME]; "" for the primary [mesh] */
    int first, nv;        /* its vertices: first .. first + nv - 1 of the model */
    int first_tri, nt;    /* its triangles: first_tri .. first_tri + nt - 1 of the mesh */
    int grid_nx, grid_ny; /* a grid's layout, local vertex (i, j) = i + j*grid_nx; 0 if none */
    double density;       /* kg/m^2 for its triangles' lumped masses (kg/m^3 for a solid) */
    double velocity[3];   /* initial velocity of its free vertices, m/s */
    char source[1200];    /* how it was made: "grid nx=32 ny=32 diagonals=alternating ...",
                             "obj path=FILE scale=1", ... (for log headers) */
} weft_part;

/* Most energy terms a model holds (membrane, bending, volume, fibre, two contact terms, spare). */
#define WEFT_MAX_TERMS 8

/* The simulated system: mesh, state, terms of the energy, pins, colliders. */
typedef struct weft_model {
    weft_mesh mesh;     /* every part of the scene, as one mesh of separate components */
    int n;              /* vertices (= mesh.nv) */
    double *x;          /* positions, 3n, m */
    double *v;          /* velocities, 3n, m/s */
    double *x_start;    /* positions at t = 0, 3n (reference of scripted paths) */
    double *mass;       /* lumped masses, n, kg (pinned vertices keep theirs) */
    double *w;          /* inverse masses, n, 1/kg; 0 for pinned vertices */
    int *pin;           /* n: -1 for a free vertex, else an index into paths */
    int npaths;
    weft_pin_path *paths;
    double t;           /* simulated time, s */
    double dt;          /* time step h, s */
    double gravity[3];  /* m/s^2 */
    weft_material material;
    double contact_margin; /* distance kept from colliders, m ([collision] margin) */
    int nterms;
    weft_term terms[WEFT_MAX_TERMS]; /* the physical model's energy terms */
    int stretch_term;    /* index of the membrane (stretch) term, -1 if none */
    int bending_term;    /* index of the bending term, -1 if none */
    int volume_term;     /* index of the volume (tetrahedron) term, -1 if none */
    int fiber_term;      /* index of the anisotropic fibre term, -1 if none */
    int ncolliders;
    weft_collider *colliders;
    int nparts;
    weft_part *parts;   /* the scene's meshes in mesh order: [mesh] first, then each
                           [mesh.NAME] in file order; at least one */

    int nobstacles;
    weft_obstacle *obstacles; /* triangle-mesh obstacles, owned by the model */
    double rest_volume; /* enclosed rest volume of a closed mesh, m^3 (0 if open) */
    char scene_name[128];

} weft_model;

/* Frees everything m owns and zeroes it; safe on a zeroed model. */
void weft_model_free(weft_model *m);

/* The model a run computes on, as "model: ..." lines separated by '\n' (no trailing
 * newline) for log headers: mesh counts and each part's source (grid layout and diagonals,
 * or the file), material, the energy of each role with its element count, gravity,
 * contact margin, pins, colliders and obstacles. Returns the length it needed (snprintf's
 * contract). lib/model.c. */
int weft_model_describe(const weft_model *m, char *buf, size_t size);

/* Total energy E(x) of the model's terms, J. */
double weft_model_energy(const weft_model *m, const double *x);

/* Adds ∇E(x) to g (3n values, N) and returns E(x). */
double weft_model_gradient(const weft_model *m, const double *x, double *g);

/* Enclosed volume of the mesh's triangles at positions x (m^3); meaningful if closed. */
double weft_mesh_volume(const weft_mesh *m, const double *x);

/* The enclosed volume V at positions x (3*nv, m), as weft_mesh_volume up to rounding, with
 * ∇V into g (3*nv, m²): ∂V/∂x_i = (1/6) Σ over the triangles (i, b, c) at i of x_b × x_c.
 * V is affine in each single vertex (no triangle holds a vertex twice): ∂²V/∂x_i² = 0. */
double weft_mesh_volume_gradient(const weft_mesh *m, const double *x, double *g);

/* Moves pinned vertices of x to their scripted position at time t. */
void weft_model_apply_pins(const weft_model *m, double t, double *x);

/* Renumbers m's vertices: new vertex k is old vertex perm[k] (n entries, a permutation
 * that maps every part's block of vertices onto itself). Moves x, v, x_start, mass, w,
 * pin and the rest positions, and maps the vertex indices of triangles, edges (kept
 * ordered, edge[2e] < edge[2e+1]), hinges, tetrahedra and every term's elements, which
 * all keep their order; grid layouts (mesh and parts) are cleared to 0, as (i, j) no
 * longer gives i + j nx. Solvers and assemblies must be created after it. lib/linalg/reorder.c. */
int weft_model_permute(weft_model *m, const int *perm, weft_error *err);

/* Reverse Cuthill-McKee order of m's Hessian pattern (weft_rcm_order), each part's
 * vertices kept in its block, into perm (n entries, for weft_model_permute). */
int weft_model_rcm_order(const weft_model *m, int *perm, weft_error *err);

/* A uniformly random permutation of 0..n−1 into perm (Fisher–Yates driven by a 64-bit
 * LCG from seed: the same seed gives the same order on every machine), the worst-case
 * vertex order RCM is measured against (experiments/rcm.c, tests/test_reorder.c). */
void weft_shuffled_order(int *perm, int n, unsigned long long seed);

/* ------------------------------------------------------------------------------ */
/* Common metrics (docs/architecture.md): the same code for every solver          */
/* ------------------------------------------------------------------------------ */

/* The metrics of one inner iteration. */
typedef struct weft_metrics {
    double residual;     /* ‖r(x)‖₂, ∇G with the active constraints out (weft_residual), N */
    double residual_rel; /* residual / residual at the start of the step */
    double residual_contact; /* the part of residual at the vertices within the contact
                                margin of a collider (weft_residual_split), N */
    double cmax;         /* max relative strain |l - l0| / l0 over stretch elements */
    double crms;         /* RMS relative strain */
    double energy;       /* kinetic + gravitational + elastic, J */
    double volume;       /* enclosed volume (closed meshes), m^3; 0 if open */
} weft_metrics;

/* Inertial target x̃ = xn + h vn + h² g (3n values), h = m->dt. */
void weft_inertial_target(const weft_model *m, const double *xn, const double *vn, double *xt);

/* The same with an anchor a, a velocity b and a step h of its own: x̃ = a + h b + h² g
 * (BDF2: a = (4xₙ − xₙ₋₁)/3, b = (4vₙ − vₙ₋₁)/3, h = 2/3 dt). The one x̃ of weft. */
void weft_inertial_target_h(const weft_model *m, const double *a, const double *b, double h,
                            double *xt);

/* Fills grad = ∇G(x) = M (x - x̃)/h² + ∇E(x) with pinned DOFs zeroed; returns G(x). */
double weft_incremental_potential(const weft_model *m, const double *x, const double *xt,
                                  double *grad);

/* weft_incremental_potential with the step h (s) given instead of m->dt (BDF2: 2/3 dt). */
double weft_incremental_potential_h(const weft_model *m, const double *x, const double *xt,
                                    double h, double *grad);

/* The residual of backward Euler's optimality conditions at x with the step's active
 * constraints (docs/logs.md, papers/residual.md), N: the norm of r = ∇G(x) with pinned
 * DOFs removed and, at a free vertex whose nearest smooth collider (at time t, s)
 * is within reach, the normal component f_n = ∇G_i·n̂ replaced by min(f_n, m_i g_i/h²),
 * g_i the gap beyond the contact margin (m): on the surface a pushing contact (f_n > 0) is
 * active and its normal force removed, a pulling one counts. grad: ∇G(x) (3n, N); h: the
 * scheme's step (s); r: the vector r (3n, N), or NULL. The one residual of weft: the logs
 * and every implicit solver's stopping test call it. */
double weft_residual(const weft_model *m, const double *x, double t, double h,
                     const double *grad, double *r);

/* weft_residual, also giving in *r_contact (N) the norm of r over the vertices at a contact:
 * those whose contact candidate's gap beyond the margin is at most the margin η (on the
 * surface, inside it, or within η of it). ‖r‖² − r_contact² is the share of the vertices
 * away from the colliders (a solver may use it for the reason word of a step it stops
 * short of its tolerance, and the log's stop lines print the share). Same value as
 * weft_residual, bit for bit. */
double weft_residual_split(const weft_model *m, const double *x, double t, double h,
                           const double *grad, double *r, double *r_contact);

/* The contact candidate of vertex i at x for weft_residual: the smooth collider
 * (at time t, s) with the smallest gap beyond the contact margin (first in scene order on
 * a tie), its gap in *gap (m, negative inside) and outward normal in n; -1 when the model
 * has none. */
int weft_residual_contact(const weft_model *m, const double *x, int i, double t, double *gap,
                          double n[3]);

/* Relative strain of the stretch elements at x: max and RMS. */
void weft_strain(const weft_model *m, const double *x, double *cmax, double *crms);

/* Computes every metric at positions x of a step of dt (s) that started at xn and ends at
 * time t (s; where moving colliders stand); the residual is weft_residual of G with target
 * xt and step h_target (s; dt for backward Euler), residual_rel its ratio to r0; the
 * energy's kinetic part is ½ Σ m |(x − xn)/dt|². One pass over the elements (E and ∇E
 * together); scratch: 3n doubles. */
void weft_metrics_compute(const weft_model *m, const double *x, const double *xn, double dt,
                          const double *xt, double h_target, double t, double r0,
                          double *scratch, weft_metrics *out);

#endif
