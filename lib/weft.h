/* weft.h — the common layer of weft: meshes, models, scenes, metrics, logs, and the
 * descriptor types through which energies and solvers plug in.
 *
 * Units are SI everywhere: positions in m, velocities in m/s, masses in kg, inverse
 * masses in 1/kg, time in s, energies in J, forces and residuals in N.
 * Arrays of 3-vectors are flat: x[3*i + 0..2] is vertex i.
 *
 * Dependencies point one way: experiments -> solvers -> energies -> lib. This header
 * declares what an energy type or a solver type must provide; lib/ evaluates a model
 * only through those function pointers and never includes energies/ or solvers/.
 */
#ifndef WEFT_H
#define WEFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define WEFT_VERSION "0.1"

/* ------------------------------------------------------------------------------ */
/* Errors                                                                          */
/* ------------------------------------------------------------------------------ */

/* Status codes, after CHOLMOD: 0 is fine, negative is fatal, positive is a warning. */
enum {
    WEFT_OK = 0,
    WEFT_ERR_INPUT = -1,    /* bad file, key, value or mesh */
    WEFT_ERR_NOMEM = -2,    /* allocation failed */
    WEFT_ERR_DIVERGED = -3, /* a solver produced a non-finite or exploding state */
    WEFT_ERR_IO = -4,       /* could not write a result */
    WEFT_ERR_INTERRUPTED = -5,
    WEFT_WARN_UNRESOLVED = 1, /* collision handling stopped at its iteration caps with
                                 collisions left (lib/collision/weft_collision.h) */
};

/* One-line error message, "where: what", filled by the function that failed. */
typedef struct weft_error {
    char msg[512];
} weft_error;

/* Formats a message into err (if err is non-NULL) and returns code. */
int weft_fail(weft_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends printf output to buf[size] at *len and advances *len by the full length, so a
 * caller sees what did not fit (*len >= size). */
void weft_appendf(char *buf, size_t size, int *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Parses text as a finite number, or as a fraction A/B of two (B non-zero; "1/120"):
 * the form scene values, --set and sweep axes share. False when it is neither. */
bool weft_parse_number(const char *text, double *out);
/* The typo suggestion of every "unknown section / key / value" message: offer each known
 * name with weft_suggest_offer, then weft_suggest_best gives the closest one, or NULL
 * when none is close enough to be the word the user meant (see weft_suggest_distance). */
typedef struct weft_suggest {
    const char *word; /* what the user wrote */
    const char *best; /* closest name offered so far, or NULL */
    int d;            /* its distance to word */
} weft_suggest;

/* Edit distance of a and b: insertions, deletions, substitutions and swaps of two
 * neighbouring characters cost 1 each (optimal string alignment); 99 for words longer
 * than 63 characters. */
int weft_suggest_distance(const char *a, const char *b);

/* Starts a suggestion for word (kept by pointer: it must outlive s). */
void weft_suggest_init(weft_suggest *s, const char *word);

/* Offers a known name (kept by pointer); the first of equally close names wins. */
void weft_suggest_offer(weft_suggest *s, const char *name);

/* The closest name offered when at most a third of the longer word's characters (and at
 * least one) must change to reach it; NULL otherwise, so "materail" gets "material" but
 * "materail" never gets "boomeramg". */
const char *weft_suggest_best(const weft_suggest *s);

/* ------------------------------------------------------------------------------ */
/* Mesh                                                                            */
/* ------------------------------------------------------------------------------ */

/* A triangle mesh, or a tetrahedral mesh with its boundary surface as triangles, with
 * derived topology. Rest positions in m. */
typedef struct weft_mesh {
    int nv;           /* number of vertices */
    int nt;           /* number of triangles */
    double *x;        /* rest positions, 3*nv, m */
    int *tri;         /* 3*nt vertex indices, counter-clockwise seen from outside */
    int nuv;          /* number of material (texture) coordinates, 0 if none */
    double *uv;       /* 2*nuv material coordinates, m (OBJ vt, or the grid layout) */
    int *tri_uv;      /* 3*nt indices into uv, or NULL when nuv == 0 */
    int *tri_line;    /* nt: source line of each triangle (OBJ files), or NULL; topology
                         errors then name file:line */
    int ntet;         /* tetrahedra; 0 for a surface mesh */
    int *tet;         /* 4*ntet vertex indices, positively oriented:
                         det[x1 - x0, x2 - x0, x3 - x0] > 0; or NULL. A tetrahedral mesh's
                         triangles are its boundary faces (weft_mesh_tet_surface) */
    int *tet_line;    /* ntet: source line of each tetrahedron (TetGen .ele), or NULL */

    /* Derived by weft_mesh_build_topology. */
    int ne;           /* unique edges */
    int *edge;        /* 2*ne vertex indices, edge[2e] < edge[2e+1] */
    int *edge_tri;    /* 2*ne adjacent triangles, -1 where there is none */
    int nh;           /* hinges = interior edges */
    int *hinge;       /* 4*nh: shared edge (v0, v1) then the opposite vertices v2 (in the
                         triangle where v0->v1 runs counter-clockwise) and v3 */
    int *hinge_edge;  /* nh: the edge index of each hinge */
    int nb;           /* boundary edges */
    int *boundary;    /* nb edge indices */
    bool closed;      /* every edge has exactly two triangles */

    /* Grid layout when generated by weft_mesh_grid: vertex (i, j) is i + j*grid_nx. */
    int grid_nx, grid_ny;
} weft_mesh;

/* Size limits of a mesh and of a scene's model (all parts together), checked before
 * anything of that size is allocated: a grid, tetrahedral block, OBJ or TetGen file (or
 * header) beyond them is refused with an error naming the limit. At the vertex limit a
 * grid scene peaks at 1.4 GB (docs/scenes.md, "Limits"). Another value can be given at build time
 * (-DWEFT_MAX_VERTICES=...); the fuzz build lowers them to keep each input fast. */
#ifndef WEFT_MAX_VERTICES
#define WEFT_MAX_VERTICES (1 << 20) /* vertices (1024 x 1024) */
#endif
#ifndef WEFT_MAX_ELEMENTS
#define WEFT_MAX_ELEMENTS (1 << 22) /* triangles, and tetrahedra, each */
#endif

typedef enum { WEFT_DIAG_ALTERNATING, WEFT_DIAG_REGULAR } weft_diagonals;
typedef enum { WEFT_PLANE_XY, WEFT_PLANE_XZ } weft_plane;

/* A rectangular grid: width along the grid's u axis, height along its v axis. */
typedef struct weft_grid_desc {
    double width, height; /* m */
    int nx, ny;           /* vertices along u and v, >= 2 */
    weft_diagonals diagonals;
    weft_plane plane;     /* XY: u = +x, v = +y (normal +z); XZ: u = +x, v = -z (normal +y) */
    double origin[3];     /* position of vertex (0, 0), m */
} weft_grid_desc;

/* Fills m with a grid mesh (triangles, material coordinates) and its topology. */
int weft_mesh_grid(weft_mesh *m, const weft_grid_desc *d, weft_error *err);

/* Fills m with a closed icosphere (outward normals) of the given radius and level. */
int weft_mesh_icosphere(weft_mesh *m, double radius, int subdivisions, const double center[3],
                        weft_error *err);

/* Appends src to dst as a separate connected component (see mesh.c for what is kept);
 * dst's topology is cleared and must be rebuilt with weft_mesh_build_topology. */
int weft_mesh_append(weft_mesh *dst, const weft_mesh *src, weft_error *err);

/* Reads a Wavefront OBJ triangle mesh (v, vt, f; polygons are rejected with file:line). */
int weft_mesh_read_obj(weft_mesh *m, const char *path, weft_error *err);

/* Writes positions x (3*nv, or the mesh's rest positions if NULL) and triangles as OBJ. */
int weft_mesh_write_obj(const weft_mesh *m, const double *x, const char *path, weft_error *err);

/* Derives edges, hinges and boundary; fails naming the edge if the mesh is non-manifold
 * (an edge in more than two triangles), or naming a degenerate or out-of-range triangle. */
int weft_mesh_build_topology(weft_mesh *m, const char *where, weft_error *err);

/* Frees everything m owns and zeroes it; safe on a zeroed mesh. */
void weft_mesh_free(weft_mesh *m);

/* Signed volume of tetrahedron t at positions x (3*nv, or the rest positions if NULL), m^3:
 * det[x1 - x0, x2 - x0, x3 - x0] / 6, positive for a correctly oriented tetrahedron. */
double weft_mesh_tet_volume(const weft_mesh *m, const double *x, int t);

/* Fills m with a box of size[0] x size[1] x size[2] m from origin, made of cells[0..2]
 * cubes along x, y, z, each split into six positively oriented tetrahedra around its
 * main diagonal (Kuhn), with the boundary surface and its topology. */
int weft_mesh_tet_block(weft_mesh *m, const double size[3], const int cells[3],
                        const double origin[3], weft_error *err);

/* Reads a TetGen mesh: path names the .node file, the .ele file or their common stem.
 * Inverted tetrahedra are reoriented; errors name file:line. Builds the surface. */
int weft_mesh_read_tetgen(weft_mesh *m, const char *path, weft_error *err);

/* Replaces m's triangles by the boundary of its tetrahedra (faces of exactly one, outward)
 * and derives their topology; fails naming the tetrahedron if one is out of range,
 * degenerate or inverted, or if a face has more than two, or two same-side, tetrahedra. */
int weft_mesh_tet_surface(weft_mesh *m, const char *where, weft_error *err);

/* ------------------------------------------------------------------------------ */
/* Energies and constraints: the descriptor                                        */
/* ------------------------------------------------------------------------------ */

typedef enum {
    WEFT_ELEM_EDGE = 2,     /* 2 vertices */
    WEFT_ELEM_TRIANGLE = 3, /* 3 vertices */
    WEFT_ELEM_HINGE = 4,    /* 4 vertices: shared edge v0 v1, opposite v2 v3 */
    WEFT_ELEM_TET = 5,      /* 4 vertices */
    WEFT_ELEM_SURFACE = 6,  /* the whole closed surface (one global constraint) */
    /* Contact elements, not mesh topology: created per step from proximity pairs. */
    WEFT_ELEM_VERTEX_FACE = 7, /* 4 vertices: the vertex p, then the triangle t0 t1 t2 */
    WEFT_ELEM_EDGE_EDGE = 8,   /* 4 vertices: edge a0 a1, then edge b0 b1 */
} weft_element_kind;

/* Maximum vertices per element. */
#define WEFT_ELEM_MAXV 4

/* One element bound to an energy type: its vertices, material constants and rest data.
 * What k, k2 and rest hold is up to the type (documented in its file): e.g. a spring
 * keeps k (N/m) and rest[0] = ℓ0; a tetrahedron keeps μV, λV and Dm⁻¹. */
typedef struct weft_element {
    int v[WEFT_ELEM_MAXV]; /* vertex indices */
    double k, k2;          /* material constants in the type's units */
    double rest[14];       /* rest data (rest length, rest angle, Dm^-1, fibre, ...) */
} weft_element;

/* Material constants and rest data handed to a type's init for one element. */
typedef struct weft_energy_params {
    double stiffness; /* the scene's coefficient, in the unit the term's kind uses:
                         edges and triangles Y (N/m, Young's modulus × thickness),
                         hinges D (N·m), tetrahedra E (Pa), contact elements the
                         penalty stiffness k (N/m) */
    double poisson;   /* Poisson's ratio ν in [0, 0.5) (triangles and tetrahedra) */
    double area;      /* edges: a third of the adjacent triangles' rest area (m²);
                         hinges: the rest area of both triangles (m²); others ignore it
                         and measure their own rest area or volume */
    const double *uv; /* triangles: 2*3 material coordinates (m) defining the rest shape
                         and the warp (u) / weft (v) directions, or NULL to use the rest
                         positions in a frame of the triangle's own plane */
    double fiber[3];  /* fibre direction in material space: (u, v, ·) for triangles, 3-D
                         rest-space direction for tetrahedra; need not be unit */
    double fiber_stiffness; /* fibre modulus: N/m for triangles, Pa for tetrahedra */
    double thickness; /* contact elements (vertex-face, edge-edge): the contact thickness
                         η ≥ 0, m; the penalty acts where the separation is below η */
} weft_energy_params;

/* What an energy type's hessian returns. */
typedef enum {
    WEFT_HESSIAN_EXACT = 0, /* ∂²Ψ/∂x², possibly indefinite */
    WEFT_HESSIAN_ANALYTIC,  /* PSD projection from the type's structure: the analytic
                               eigensystem of isotropic F-based types (Smith, de Goes, Kim
                               2019), the closed-form hinge-coordinate blocks of
                               dihedral_bending; CLAMP for types without either */
    WEFT_HESSIAN_CLAMP,     /* PSD projection by clamping negative eigenvalues (weft_psd_clamp)
                               of ∂²Ψ/∂F² for F-based types, of ∂²Ψ/∂x² otherwise */
} weft_hessian_mode;

/* An energy (or constraint) type. Ψ and its derivatives act on one element whose
 * vertex positions are gathered into xe (3*nv values). Any function may be NULL when
 * the type does not provide it (e.g. a constraint with no energy). */
typedef struct weft_energy_type {
    const char *name;    /* registered name used by scene files, e.g. "mass_spring" */
    const char *paper;   /* paper key and section, e.g. "Mueller 2006 §3.3" */
    const char *summary; /* one line: the model */
    weft_element_kind kind;
    int nv; /* vertices per element */
    /* Sets e->k, e->k2 and e->rest from the rest positions xe (3*nv, m) and p. */
    void (*init)(weft_element *e, const double *xe, const weft_energy_params *p);
    /* Ψ(xe) in J; +INFINITY where the element leaves the energy's domain (e.g. an
     * inverted element under classic Neo-Hookean), never NaN. */
    double (*energy)(const weft_element *e, const double *xe);
    /* g = dΨ/dxe (3*nv values), N; returns Ψ. */
    double (*gradient)(const weft_element *e, const double *xe, double *g);
    /* H = ∂²Ψ/∂xe² or its PSD projection (mode), (3nv)×(3nv) row-major, N/m; also the
     * gradient into g when g != NULL; returns Ψ. */
    double (*hessian)(const weft_element *e, const double *xe, weft_hessian_mode mode,
                      double *g, double *H);
    /* True when WEFT_HESSIAN_ANALYTIC uses an analytic eigensystem that gives CLAMP's
     * matrix (isotropic energies); false when it falls back to clamping, or (dihedral
     * bending) projects in other coordinates than CLAMP. */
    bool analytic_psd;
    /* Native constraint C(xe) for position-based solvers, with Ψ = ½ k C² exactly (k the
     * element's k: XPBD's compliance is 1/k); fills dC/dxe if grad != NULL. NULL for an
     * energy of no such form. */
    double (*constraint)(const weft_element *e, const double *xe, double *grad);
    /* Optional, for per-vertex solvers (vertex block descent): vertex
     * v's (0 .. nv − 1) gradient dΨ/dp_v (3, N) and diagonal block ∂²Ψ/∂p_v² (3×3, N/m) of
     * `hessian`'s WEFT_HESSIAN_EXACT matrix, equal to those of the full call bit for bit,
     * at less cost; returns Ψ. NULL: the callers take the blocks from `hessian`. */
    double (*vertex_hessian)(const weft_element *e, const double *xe, int v, double *g,
                             double *H);
} weft_energy_type;

/* A list of elements of one type: one term of the model's energy. */
typedef struct weft_term {
    const weft_energy_type *type;
    int n;              /* elements */
    weft_element *elem; /* n elements */
} weft_term;

/* ------------------------------------------------------------------------------ */
/* Colliders and pins                                                              */
/* ------------------------------------------------------------------------------ */

/* An obstacle, static or translating with constant velocity u: its reference point (the
 * plane's point, the sphere's or box's centre) is p0 + u t at time t, p0 the value below.
 * Plane: points p with (p - point)·normal >= 0 are outside. Box: axis-aligned. */
typedef struct weft_collider {
    char name[64];
    const struct weft_collider_type *type; /* its shape: one of weft_collider_registry */
    double point[3], normal[3]; /* plane: a point on it (m) and unit outward normal */
    double center[3], radius;   /* sphere: centre (m) and radius (m); box: centre (m) */
    double half_extents[3];     /* box: half its size along x, y, z (m), each > 0 */
    double velocity[3];         /* u, m/s; (0, 0, 0) for a static obstacle */
    double friction;            /* Coulomb coefficient μ >= 0 (dimensionless) */
    double restitution;         /* e in [0, 1] */
} weft_collider;

/* A collider shape: one file each in lib/collider/ (plane.c, sphere.c, box.c) and one
 * line of weft_collider_registry (collider.c). Positions are in the collider's own frame
 * (where it stands at t = 0). */
typedef struct weft_collider_type {
    const char *name;        /* [collider.NAME] type */
    const char *summary;
    bool smooth;             /* one normal describes every contact (planes, spheres): the
                                implicit solvers can filter it; a box has edges */
    /* Signed distance of p (m), outward normal at the closest surface point in n (may be
     * NULL). */
    double (*distance)(const weft_collider *c, const double p[3], double n[3]);
    /* First t in [0, 1] where the segment x0 → x1 enters the collider grown by margin
     * (m), with the outward normal there in n; false when it starts inside or misses. */
    bool (*segment_entry)(const weft_collider *c, const double x0[3], const double x1[3],
                          double margin, double *t, double n[3]);
} weft_collider_type;

extern const weft_collider_type weft_collider_plane, weft_collider_sphere, weft_collider_box;

/* The registered collider types, NULL-terminated. */
extern const weft_collider_type *const weft_collider_registry[];

/* The type of collider c. */
const weft_collider_type *weft_collider_type_of(const weft_collider *c);

/* The registered collider type of that name, or NULL. */
const weft_collider_type *weft_collider_find(const char *name);

/* Signed distance of p from collider c where it stands at t = 0 (m), with the outward
 * normal at the closest surface point in n (may be NULL). */
double weft_collider_distance(const weft_collider *c, const double p[3], double n[3]);

/* Signed distance of p from collider c at time t (s), m, with the outward normal in n (may
 * be NULL): the distance of p - u t from the collider at t = 0. A static collider gives
 * exactly weft_collider_distance's values at every t. */
double weft_collider_distance_at(const weft_collider *c, const double p[3], double t,
                                 double n[3]);

/* True when c moves (a non-zero velocity). */
bool weft_collider_moving(const weft_collider *c);

/* Its type's segment test, in the collider's frame (see weft_collider_type). */
bool weft_collider_segment_entry(const weft_collider *c, const double x0[3],
                                 const double x1[3], double margin, double *t, double n[3]);

/* (v − u)·n, the normal velocity relative to a collider moving at u (NULL: static). */
double weft_contact_normal_velocity(const double v[3], const double n[3], const double *u);

/* The contact response every solver and the collision pipeline use (lib/collider/
 * collider.c): with v − u = v_n n̂ + v_t (u the collider's velocity, NULL for a static
 * one; n the unit normal), v becomes u + vn_new n̂ + max(0, 1 − μ dvn/|v_t|) v_t: the
 * normal velocity that non-penetration and restitution ask for, and Coulomb friction
 * bounded by μ times the contact's normal velocity change dvn ≥ 0 (m/s). */
void weft_contact_response(double v[3], const double n[3], const double *u, double vn_new,
                           double dvn, double mu);

/* A triangle-mesh obstacle ([collider.NAME] type = mesh): scripted (infinite mass),
 * moving by a constant translation, x(t) = x_rest + u t. Only the collision pipeline
 * (lib/collision/weft_collision.h) sees it: the solvers' own contact handling knows planes and
 * spheres only, so a model with obstacles needs [collision] pipeline = bridson. */
typedef struct weft_obstacle {
    char name[64];
    weft_mesh mesh;     /* rest positions x_rest (mesh.x, m), triangles and topology */
    double velocity[3]; /* u, m/s */
    double friction;    /* Coulomb coefficient μ >= 0 against the cloth */
    char where[400];    /* "file:line: collider.NAME.type" of its scene section, for errors */
} weft_obstacle;

/* Positions of obstacle o at time t (s), x_rest + u t, into x (3*nv values, m). */
void weft_obstacle_positions(const weft_obstacle *o, double t, double *x);

typedef enum { WEFT_PIN_FIXED, WEFT_PIN_TRANSLATE, WEFT_PIN_ROTATE } weft_pin_motion;

/* Scripted path of a pinned vertex: x(t) = c + R(ω t)(x0 - c) + u t. */
typedef struct weft_pin_path {
    weft_pin_motion motion;
    double velocity[3]; /* u, m/s (translate) */
    double omega[3];    /* ω, rad/s, axis times rate (rotate) */
    double center[3];   /* c, m (rotate) */
} weft_pin_path;

/* Position at time t (s) of a pinned vertex that started at x0. */
void weft_pin_position(const weft_pin_path *p, const double x0[3], double t, double out[3]);

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
/* Settings tables: every plug-in's settings, declared once                        */
/* ------------------------------------------------------------------------------ */

/* A plug-in (solver, linear solver, preconditioner, post-step stage) keeps its settings
 * in a struct of its own and describes each field once, in a table: scene key, type,
 * unit, range, default, one line of documentation and the field's offset. From that
 * table alone come the defaults, the reading of the scene section with file:line errors,
 * the log header's settings lines and the `./weft list` entry (lib/params.c,
 * lib/scene/settings.c). Adding a setting is one table row and one struct field. */

typedef enum {
    WEFT_PARAM_DOUBLE, /* a double */
    WEFT_PARAM_INT,    /* an int */
    WEFT_PARAM_BOOL,   /* a bool; the scene writes true/false, yes/no, on/off, 1/0 */
    WEFT_PARAM_NAME,   /* an int: the index of the scene's word among the allowed names */
    WEFT_PARAM_STRING, /* a char[WEFT_PARAM_STRING_MAX]: the scene's text, checked by `check` */
} weft_param_type;

/* Capacity of a WEFT_PARAM_STRING field, terminating zero included. */
#define WEFT_PARAM_STRING_MAX 256

/* Flags of a numeric range: an end that is excluded. */
enum { WEFT_PARAM_LO_OPEN = 1, WEFT_PARAM_HI_OPEN = 2 };

/* Flag of a setting that adds physics to the scene's model (a force, a constraint: the
 * balloon's pressure, self-collision), switched on by any value but 0 / false: a solver
 * whose settings tables lack that key drops the physics, and weft_model_diff_compute
 * says so. */
enum { WEFT_PARAM_MODEL = 4 };

/* One setting. */
typedef struct weft_param {
    const char *key;         /* scene key within the table's section */
    weft_param_type type;
    size_t offset;           /* offsetof(settings struct, field), within the table's base */
    const char *unit;        /* SI unit; "1" for a dimensionless number, "" for names, flags
                                and counts */
    double lo, hi;           /* DOUBLE and INT: the allowed range */
    unsigned flags;          /* WEFT_PARAM_LO_OPEN, WEFT_PARAM_HI_OPEN */
    double dflt;             /* default: the value (DOUBLE, INT), 0 or 1 (BOOL), the index of
                                the default name (NAME) */
    const char *const *names;       /* NAME: the allowed words, NULL-terminated, or NULL when */
    const char *(*name_at)(int i);  /* this gives them: the i-th, NULL past the last (names
                                       taken from a registry) */
    const char *doc;         /* one line: what it means */
    /* STRING: checks the text, false with a message in msg[size] when it is not valid
     * (NULL: any text that fits). */
    bool (*check)(const char *text, char *msg, size_t size);
} weft_param;

/* The settings a plug-in reads from one scene section. A plug-in lists one or more of
 * these, terminated by section == NULL; `base` places the table's fields inside the
 * plug-in's settings struct, so that several plug-ins can share one params array (the
 * PBD solvers' [pbd] keys, say) at different places in their own structs. */
typedef struct weft_param_table {
    const char *section;      /* "solver", "pbd", "ppcg", ... */
    const weft_param *params; /* terminated by key == NULL */
    size_t base;              /* offset of this table's fields in the settings struct */
} weft_param_table;

/* A plug-in as the settings machinery sees it: a descriptor's name and settings. */
typedef struct weft_plugin {
    const char *kind;    /* "run", "solver", "linear", "preconditioner", "stage" */
    const void *type;    /* the descriptor itself (a weft_stage_type for kind "stage") */
    const char *name;    /* registered name */
    const char *paper;   /* paper key, or "" */
    const char *summary; /* one line */
    size_t size;         /* bytes of its settings struct; 0 when it has none */
    const weft_param_table *tables; /* its settings, or NULL when it has none */
} weft_plugin;

/* Fills settings (the plug-in's struct) with the defaults of every table. */
void weft_settings_default(const weft_param_table *tables, void *settings);

/* The parameter of tables with this section and key, or NULL; *base (may be NULL) gets
 * its table's base offset. */
const weft_param *weft_param_find(const weft_param_table *tables, const char *section,
                                  const char *key, size_t *base);

/* The value of a numeric, flag or name parameter as a double (a name: its index). */
double weft_param_value(const weft_param *p, size_t base, const void *settings);

/* The word a NAME parameter's index stands for, or "?" outside the list. */
const char *weft_param_name(const weft_param *p, int index);

/* Parses text as parameter p's type within its range into its field (settings + base +
 * p->offset); a bad value fails with "where: section.key: what is wrong". */
int weft_param_parse(const weft_param *p, size_t base, const char *text, void *settings,
                     const char *where, const char *section, weft_error *err);

/* Writes "[section] key=value key=value ..." for each table into buf (lines separated
 * by '\n', no trailing newline); returns the length it needed (snprintf's contract). */
int weft_settings_format(const weft_param_table *tables, const void *settings, char *buf,
                         size_t size);

/* Writes the value of p in settings as a scene file gives it (doubles with the digits that
 * read back exactly, names as their word, text unquoted) into buf; returns the length it
 * needed (snprintf's contract). */
int weft_param_format(const weft_param *p, size_t base, const void *settings, char *buf,
                      size_t size);

/* One line describing p: its type or allowed names, unit, range, default and doc. */
void weft_param_describe(const weft_param *p, char *buf, size_t size);

/* The parts of p's description, for listings: its type ("number", "integer",
 * "true/false", "text", "one of a|b|c") into type, its range ("[lo, hi]", "(lo, hi]"; ""
 * for other types) into range, its default as a scene writes it into dflt. */
void weft_param_parts(const weft_param *p, char *type, size_t ntype, char *range,
                      size_t nrange, char *dflt, size_t ndflt);

/* The settings of every plug-in for one run: each plug-in's struct, filled with its
 * defaults and the scene's values (lib/scene/settings.c). A config knows which plug-ins'
 * settings were taken since weft_config_mark_clear, so a log header can list exactly the
 * settings of what ran. */
typedef struct weft_config weft_config;

/* Copies the settings of the plug-in whose tables are `tables` into dst: the config's
 * values (and marks them taken), or the defaults when c is NULL or does not know it. */
void weft_config_settings(weft_config *c, const weft_param_table *tables, void *dst);

/* The config's own settings struct for `tables` (edit it to change a run), or NULL. */
void *weft_config_find(weft_config *c, const weft_param_table *tables);

/* The value of section.key in the first plug-in of c that has it, as a double (a name:
 * its index; a flag: 0 or 1); false when none has it. Does not mark anything taken. */
bool weft_config_value(const weft_config *c, const char *section, const char *key,
                       double *out);

/* Where the config's value of section.key came from ("file:line", "--set ..." or the
 * assignment's origin) into buf; false, with buf "", when it is the default. */
bool weft_config_where(const weft_config *c, const char *section, const char *key, char *buf,
                       size_t size);

/* Forgets which settings were taken. */
void weft_config_mark_clear(weft_config *c);

/* Writes the settings of every plug-in taken since the last weft_config_mark_clear, one
 * line per table as weft_settings_format, into buf; returns the length it needed. */
int weft_config_format_taken(const weft_config *c, char *buf, size_t size);

/* Applies one "section.key=value" assignment to every plug-in that has that key; fails
 * with a one-line message naming origin when none has it or the value is bad. */
int weft_config_set(weft_config *c, const char *assignment, const char *origin,
                    weft_error *err);

/* Frees the config and sets *c to NULL; safe on NULL. */
void weft_config_free(weft_config **c);

/* ------------------------------------------------------------------------------ */
/* Scenes                                                                          */
/* ------------------------------------------------------------------------------ */

/* A parsed scene: raw key/value pairs with where each came from. */
typedef struct weft_scene weft_scene;

/* Parses an INI scene file, or a built-in scene when path names one. */
weft_scene *weft_scene_load(const char *name_or_path, weft_error *err);

/* Applies one "section.key=value" override (the origin is named in errors). */
int weft_scene_set(weft_scene *s, const char *assignment, const char *origin, weft_error *err);

/* Builds the model: validates every key, makes the mesh, masses, pins, terms and
 * colliders. Energy types are looked up by name in the NULL-terminated registry. */
int weft_scene_build(const weft_scene *s, const weft_energy_type *const *registry,
                     weft_model *m, weft_error *err);

/* Frees the scene and sets *s to NULL; safe on NULL. */
void weft_scene_free(weft_scene **s);

/* Makes the config of a run: each of the n plug-ins' settings from its defaults and, when
 * s is non-NULL, the scene's values. Fails with file:line on a bad value, an unknown
 * plug-in section, or a key no plug-in reads (naming the nearest known key).
 * lib/scene/settings.c. */
weft_config *weft_config_create(const weft_plugin *plugins, int n, const weft_scene *s,
                                weft_error *err);

/* Checks that the "section.key=value" assignment given at origin ("--set") is read by the
 * run: by the model (its own sections) or by a plug-in whose settings c marks taken (or a
 * stage that is off, for the key that turns it on). Otherwise fails with one line naming
 * the key and every plug-in that would read it. lib/scene/settings.c. */
int weft_config_check_read(const weft_config *c, const char *assignment, const char *origin,
                           weft_error *err);

/* Writes the settings of every plug-in c marks taken (the run's own [scene] keys
 * excepted) as scene sections, "key = value" lines; a key the plug-ins read with
 * different values becomes a comment naming each. WEFT_ERR_IO when f fails. */
int weft_config_write_ini(const weft_config *c, FILE *f);

/* Writes scene s as the fully resolved input of a run of model m (built from s) with the
 * settings cfg: [scene] with the run's solvers (a comma-separated list, or NULL for the
 * scene's), every key of the model's sections with its value (defaults included, file
 * paths absolute), [collision] margin and weft_config_write_ini's sections. A scene file
 * weft reads back to the same model and settings. lib/scene/resolved.c. */
int weft_scene_write(const weft_scene *s, const weft_model *m, const weft_config *cfg,
                     const char *solvers, FILE *f, weft_error *err);

/* The descriptor of the i-th plug-in of kind `kind` in c (0, 1, ...), NULL past the last. */
const void *weft_config_plugin(const weft_config *c, const char *kind, int i,
                               const weft_param_table **tables);

/* The value types of the model's own scene keys. */
typedef enum {
    WEFT_KEY_NUMBER,  /* one number */
    WEFT_KEY_INTEGER, /* one integer */
    WEFT_KEY_NAME,    /* one word of a fixed list (or a registry's names) */
    WEFT_KEY_TEXT,    /* free text */
    WEFT_KEY_VEC3,    /* three numbers "x y z" */
    WEFT_KEY_INT3,    /* three integers "x y z" */
    WEFT_KEY_LIST,    /* words or indices, continued on indented lines */
    WEFT_KEY_BOX,     /* six numbers "xmin ymin zmin xmax ymax zmax" */
} weft_key_type;

/* One key of the model's own sections: [scene], [mesh] and [mesh.NAME], [material],
 * [collision] margin, [pins] and [pins.NAME], [collider.NAME]. The scene parser checks
 * keys, value types and numeric ranges against this table (lib/scene/scene.c), and
 * `./weft list` prints it; the plug-ins' sections have their own tables (weft_param). */
typedef struct weft_scene_key {
    const char *section; /* "mesh" also covers [mesh.NAME], "pins" [pins.NAME], "collider"
                            every [collider.NAME] */
    const char *key;
    weft_key_type type;
    const char *unit;    /* SI unit, "1" for a dimensionless number, "" for words and counts */
    double lo, hi;       /* NUMBER, INTEGER, INT3 (each component): the allowed range */
    unsigned flags;      /* WEFT_PARAM_LO_OPEN, WEFT_PARAM_HI_OPEN */
    const char *const *names; /* NAME: the allowed words, NULL-terminated, or NULL when the
                                 doc names where they come from */
    const char *dflt;    /* the default as a scene would write it; "" when absent means
                            nothing (no pins, no path) */
    const char *doc;     /* one line; NULL for a key the run's own table reads and
                            documents (weft_run_tables) */
} weft_scene_key;

/* Every key of the model's sections, terminated by section == NULL. */
extern const weft_scene_key weft_scene_keys[];

/* A word for a scene key's type ("number", "3 numbers (x y z)", ...). */
const char *weft_key_type_name(weft_key_type type);

/* A built-in scene: name, one-line description, INI text. */
typedef struct weft_builtin_scene {
    const char *name;
    const char *summary;
    const char *text;
} weft_builtin_scene;

/* The built-in scenes, terminated by an entry with name == NULL. */
extern const weft_builtin_scene weft_builtin_scenes[];

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
 * DOFs removed and, at a free vertex whose nearest plane or sphere collider (at time t, s)
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

/* The contact candidate of vertex i at x for weft_residual: the plane or sphere collider
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

/* ------------------------------------------------------------------------------ */
/* Logs                                                                            */
/* ------------------------------------------------------------------------------ */

typedef enum { WEFT_LOG_NONE, WEFT_LOG_STEPS, WEFT_LOG_ITERATIONS } weft_log_level;

/* A per-iteration log file written to "<path>.partial" and renamed on completion. */
typedef struct weft_log weft_log;

/* Opens "<path>.partial" and writes the metadata lines ('#') and the column header. */
weft_log *weft_log_open(const char *path, const char *const *meta, weft_error *err);

/* Like weft_log_open, with the given column header instead of the metrics columns. */
weft_log *weft_log_open_columns(const char *path, const char *const *meta, const char *columns,
                                weft_error *err);

/* Writes one data row. */
void weft_log_row(weft_log *l, int step, int iter, double wall_s, const weft_metrics *mm);

/* Writes a formatted line (a row of a log opened with weft_log_open_columns). */
void weft_log_printf(weft_log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Closes the log. complete: writes "# status=complete" and renames to the final path;
 * otherwise writes "# status=incomplete reason=<reason>" and keeps ".partial". */
int weft_log_close(weft_log **l, bool complete, const char *reason, weft_error *err);

/* ------------------------------------------------------------------------------ */
/* Programmer errors and solver profiles                                           */
/* ------------------------------------------------------------------------------ */

/* WEFT_ASSERT(cond) checks an invariant that weft's own code guarantees: a broken one is
 * a bug, never bad input (bad input gets a weft_error message and a non-zero exit). A
 * failure prints "file:line: function: assertion 'cond' failed" on stderr and aborts.
 * On where NDEBUG is not defined (Debug) and where WEFT_ASSERTS is defined (CMake defines
 * it for RelWithDebInfo, which also sets NDEBUG, and for the sanitizer build); off in
 * Release, where cond is type-checked but not evaluated, so it must have no side effect. */
#if defined(WEFT_ASSERTS) || !defined(NDEBUG)
#define WEFT_ASSERT(cond) \
    ((cond) ? (void)0 : weft_assert_fail(#cond, __FILE__, __LINE__, __func__))
#else
#define WEFT_ASSERT(cond) ((void)sizeof((cond) ? 1 : 0))
#endif

/* WEFT_ASSERT's failure path: prints where and what, then aborts. */
_Noreturn void weft_assert_fail(const char *cond, const char *file, int line, const char *func);

/* What one entry of a profile holds. */
typedef enum {
    WEFT_PROFILE_TIMER, /* wall time, s, summed over the steps so far */
    WEFT_PROFILE_COUNT, /* a number of events (projections, linear solves, ...), summed */
    WEFT_PROFILE_LABEL, /* a fixed text, e.g. CHOLMOD's ordering; no value */
} weft_profile_kind;

/* Most entries a profile holds. */
#define WEFT_PROFILE_MAX 32

/* One named timer, counter or label. */
typedef struct weft_profile_entry {
    const char *name;  /* static string, snake_case: "project", "linear_solves" */
    weft_profile_kind kind;
    double value;      /* timers: s; counters: the count (exact up to 2^53); labels: 0 */
    const char *text;  /* labels: a static string; NULL otherwise */
} weft_profile_entry;

/* The named timers and counters of a solver's run (the descriptor's stats hook), in the
 * order the solver adds them; fixed capacity, no allocation. Zero-initialised = empty. */
typedef struct weft_profile {
    int n;
    weft_profile_entry entry[WEFT_PROFILE_MAX];
} weft_profile;

/* Empties p. */
void weft_profile_clear(weft_profile *p);

/* Adds value to the timer or counter `name` (a static string), appending it when p has
 * none of that name; asserts that p has room and that the kind matches. */
void weft_profile_add(weft_profile *p, const char *name, weft_profile_kind kind, double value);

/* Sets the label `name` to text (both static strings), appending it when absent. */
void weft_profile_label(weft_profile *p, const char *name, const char *text);

/* The entry called name, or NULL. */
const weft_profile_entry *weft_profile_find(const weft_profile *p, const char *name);

/* The value of timer or counter `name` (s or count); NAN when p has no such entry. */
double weft_profile_value(const weft_profile *p, const char *name);

/* Subtracts each timer and counter of `before` from the entry of the same name in p:
 * after a stats call at both ends of an interval, p holds the interval's own profile. */
void weft_profile_since(weft_profile *p, const weft_profile *before);

/* Writes p to f, one "name value unit" line per entry, each prefixed by indent. */
void weft_profile_print(FILE *f, const weft_profile *p, const char *indent);

/* ------------------------------------------------------------------------------ */
/* Solvers: the descriptor and the monitor they report iterations to               */
/* ------------------------------------------------------------------------------ */

/* Receives the solver's inner iterations and turns them into metrics and log rows. */
typedef struct weft_monitor weft_monitor;

/* Called by a solver after inner iteration `iter` (0 = before the first) with the
 * current positions x; a NULL monitor is allowed and does nothing. Its last iteration
 * (iter = the solver's count) ends the step. */
void weft_monitor_iteration(weft_monitor *mon, const double *x, int iter);

/* Like weft_monitor_iteration, with the step's end marked by final. */
void weft_monitor_report(weft_monitor *mon, const double *x, int iter, bool final);

/* Ends the step at iteration iter with positions x, for a solver with a stopping test:
 * after the step's last row the log gets the line "# step S iter I stop=STATUS", status a
 * static word ("converged", "cap", "stalled"; docs/logs.md), optionally followed by one
 * space and a reason word of the solver's own, logged as "stop=WORD reason=REASON". Words
 * are letters, digits, '_' or '-', the status at most 15 characters, the reason at most
 * 31; a solver that breaks this fails its run. With x NULL, the iteration reported last
 * ends the step (a solver that finds it can go no further writes no row repeating an
 * unchanged state). "cap" and "stalled" are counted in weft_run_result, and every
 * (status, reason) pair in its stop_reasons. */
void weft_monitor_stop(weft_monitor *mon, const double *x, int iter, const char *status);

/* Replaces, for the current step, the inertial target x̃ (3n values, m) and step h (s) of
 * the residual metric: BDF2 minimises G with its own x̃ and h = 2/3 dt. Call before
 * reporting iteration 0. */
void weft_monitor_set_target(weft_monitor *mon, const double *xt, double h);

/* Writes one row of the "<log>.linear" log: linear-solver iteration linear_iter (PPCG) or
 * solve (CHOLMOD) inside inner iteration iter, its relative residual and a status word. */
void weft_monitor_linear(weft_monitor *mon, int iter, int linear_iter, double rel_residual,
                         const char *status);

/* One way a solver's model departs from the scene's: the energy of term `term` replaced. */
typedef struct weft_model_change {
    int term;       /* index into m->terms */
    const char *to; /* what runs instead (a static string): an energy name, or a phrase */
    bool energy;    /* `to` is a registered energy a scene's [material] role can name */
} weft_model_change;

/* What a solver can run, declared on its descriptor (weft_model_diff_compute, the studies'
 * default solver lists). The physics switched on by settings (the balloon's [pbd]
 * k_pressure, [pbd] self_collision: WEFT_PARAM_MODEL rows) it runs exactly when its own
 * settings tables have the key. */
typedef struct weft_solver_caps {
    /* Order of accuracy in dt of the scheme it solves (1: backward or symplectic Euler,
     * 2: BDF2), for the accuracy study; 0 when it claims none (position-based methods,
     * whose answer depends on iterations and stiffness mapping). */
    int order;
    /* Its contact model with colliders, one phrase (listings). */
    const char *contact;
    /* The terms of m it does not run as the scene gives them, into out[max]; returns how
     * many (at most max). NULL: it runs every energy term exactly (or refuses to run). */
    int (*model_changes)(const weft_model *m, weft_model_change *out, int max);
} weft_solver_caps;

/* A time integrator. One call of step advances the model by m->dt. */
typedef struct weft_solver_type {
    const char *name;      /* registered name, e.g. "pbd_gauss_seidel" */
    const char *paper;     /* paper key, e.g. "Mueller 2006, Algorithm 1" */
    const char *iteration; /* what one inner iteration means */
    const char *summary;   /* one line */
    /* Its settings: a struct of settings_size bytes described by the tables (section ==
     * NULL terminated; NULL when it has none). create takes them from the run's config. */
    size_t settings_size;
    const weft_param_table *settings;
    /* Allocates solver state for model m (all scratch memory is allocated here), with its
     * settings (and those of any linear solver it uses) taken from cfg by
     * weft_config_settings; cfg NULL means every default. */
    void *(*create)(const weft_model *m, weft_config *cfg, weft_error *err);
    /* Advances m by one step of m->dt, reporting each inner iteration to mon. */
    int (*step)(void *state, weft_model *m, weft_monitor *mon, weft_error *err);
    /* Frees the state; NULL is a no-op. */
    void (*destroy)(void *state);
    /* Fills out (emptied by the caller) with the run's timers and counters so far, summed
     * over every step since create; NULL when the method keeps none. Call it through
     * weft_solver_stats. */
    void (*stats)(const void *state, weft_profile *out);
    /* Inner iterations per step when the method fixes their number (an explicit step makes
     * one force evaluation: 1); 0 when its settings' [solver] iterations decides. */
    int fixed_iterations;
    /* Inner iterations per step when the method's own settings decide them in another way
     * than [solver] iterations (XPBD: substeps × iterations per substep), from its settings
     * struct; NULL otherwise. Such a method keeps its count when experiments set or sweep
     * [solver] iterations. */
    int (*own_iterations)(const void *settings);
    /* True for a method that is stable only below a limit on dt (explicit integration):
     * experiments then run it only when it is named (--solvers or [scene] solvers). */
    bool conditionally_stable;
    /* True for a solver that solves linear systems and reports them with
     * weft_monitor_linear: weft_run then writes "<log>.linear". */
    bool linear_log;
    /* What it can run (order of accuracy, energies, contact). */
    weft_solver_caps caps;
} weft_solver_type;

/* Most differences weft_model_diff_compute reports. */
#define WEFT_MODEL_DIFF_MAX 8

/* How the model a solver runs differs from the scene's (lib/model_diff.c). */
typedef struct weft_model_diff {
    int n;                               /* 0: the same model */
    char what[WEFT_MODEL_DIFF_MAX][160]; /* "bending dihedral_bending -> quadratic_bending",
                                            "pbd.k_pressure dropped" */
    char fix[WEFT_MODEL_DIFF_MAX][160];  /* the --set that makes the scene's model the
                                            solver's ("material.bending=quadratic_bending",
                                            "pbd.k_pressure=0"), or "" when none does */
} weft_model_diff;

/* Fills d with how solver s's model differs from m's and cfg's (cfg may be NULL: no
 * setting switches physics on): energy terms its caps.model_changes replaces, and every
 * WEFT_PARAM_MODEL setting of any plug-in in cfg that is on while s's tables lack it. */
void weft_model_diff_compute(const weft_solver_type *s, const weft_model *m,
                             const weft_config *cfg, weft_model_diff *d);

/* "same", or "differs: " and d's differences separated by "; ", into buf. */
void weft_model_diff_format(const weft_model_diff *d, char *buf, size_t size);

/* The --set assignments that make the models agree, separated by sep, into buf; "" when
 * some difference has none. Returns true when every difference has one. */
bool weft_model_diff_fixes(const weft_model_diff *d, const char *sep, char *buf, size_t size);

/* Inner iterations per step of solver s: its fixed count, else what its own_iterations
 * hook makes of its settings in cfg, else its [solver] iterations setting in cfg (its
 * default when cfg is NULL), else 1. */
int weft_solver_iterations(const weft_solver_type *s, weft_config *cfg);

/* True when s decides its own inner iterations per step (fixed_iterations or
 * own_iterations), so that setting [solver] iterations does not change its work. */
bool weft_solver_sets_iterations(const weft_solver_type *s);

/* What a post-step stage reports of one step. */
typedef struct weft_stage_result {
    bool unresolved;   /* it stopped at its caps with work left (a collision failure) */
    double seconds;    /* its handling time, counted as solver time (the rest of its call,
                          e.g. diagnostics and its log row, is excluded) */
    const void *stats; /* stage-specific statistics of the step, handed to on_step (the
                          Bridson stage: a weft_collision_stats) */
} weft_stage_result;

/* A post-step stage: run by the run loop after every solver step, whatever the solver
 * (the Bridson collision pipeline). Registered as plug-ins of kind "stage" in the config. */
typedef struct weft_stage_type {
    const char *name;    /* e.g. "bridson" */
    const char *paper;
    const char *summary;
    size_t settings_size;
    const weft_param_table *settings;
    /* True when a scene with these settings runs the stage. */
    bool (*enabled)(const void *settings);
    /* True when it handles the model's triangle-mesh obstacles; a model with obstacles
     * needs one such stage enabled. `enable_hint` says how a scene turns it on. */
    bool handles_obstacles;
    const char *enable_hint; /* e.g. "[collision] pipeline = bridson" */
    /* Its per-step log "<log><log_suffix>" with these columns, or NULL for none. */
    const char *log_suffix;
    const char *log_columns;
    /* Makes its state for model m with its settings (copied). */
    void *(*create)(const weft_model *m, const void *settings, weft_error *err);
    /* Runs after the solver's step of m from t0 (x0: positions at t0, m->x, m->v after the
     * solver); writes a row to log (may be NULL) for step `step`. Returns WEFT_OK, a
     * warning or a negative error. */
    int (*step)(void *state, weft_model *m, const double *x0, double t0, int step,
                weft_log *log, weft_stage_result *out, weft_error *err);
    /* Frees the state; NULL is a no-op. */
    void (*destroy)(void *state);
} weft_stage_type;

/* The run's own settings ([scene] steps), a plug-in of kind "run" (lib/run.c). */
typedef struct weft_run_settings {
    int steps; /* steps of a run (default 120) */
    char solvers[WEFT_PARAM_STRING_MAX]; /* [scene] solvers: the solvers that suit the
                                            scene, which experiments run when none are
                                            named; comma-separated, "" when not given */
} weft_run_settings;

/* The table of weft_run_settings. */
extern const weft_param_table weft_run_tables[];

/* The profile of state (created by s) so far: out is emptied, then filled by s->stats. */
void weft_solver_stats(const weft_solver_type *s, const void *state, weft_profile *out);

/* Options of a simulation run. */
typedef struct weft_run_options {
    weft_log_level log_level; /* default ITERATIONS */
    const char *log_path;     /* final log path, or NULL for no log */
    const char *const *meta;  /* extra "key=value" metadata lines, NULL-terminated */
    int obj_every;            /* write an OBJ every N steps (0 = never) */
    const char *obj_prefix;   /* path prefix for OBJ frames */
    bool progress;            /* progress line on stderr when it is a terminal */
    /* The settings of the solver, its linear solver, the stages and the run (steps), and
     * the stages to run; NULL runs every default with no stage. */
    weft_config *config;
    /* Called after every completed step (solver, then post-step stages) with the model
     * at the step's end, the step's index and the first enabled stage's statistics of
     * that step (NULL without a stage); NULL for none. Its time is not counted as solver
     * time. */
    void (*on_step)(void *user, const weft_model *m, int step, const void *stage_stats);
    void *user;               /* handed to on_step */
} weft_run_options;

/* Most distinct (status, reason) pairs a run counts; a solver that reports more fails the
 * run with an error (never a silent drop). */
#define WEFT_STOP_REASONS_MAX 16

/* Steps of a run that ended with one status and one reason word (weft_monitor_stop
 * "STATUS REASON"); lib/ counts the words without knowing them. */
typedef struct weft_stop_count {
    char status[16]; /* e.g. "cap", "stalled" */
    char reason[32]; /* the solver's word, e.g. "slow" */
    int steps;
} weft_stop_count;

/* Summary of a finished run. */
typedef struct weft_run_result {
    int steps_done;
    double wall_s;            /* solver time excluding metrics and logging, s */
    double ms_per_step;
    weft_metrics last;        /* metrics after the last iteration of the last step */
    int collision_failures;   /* steps whose post-step stage (collision pipeline) left work
                                 unresolved */
    int steps_capped;         /* steps the solver ended at its iteration cap short of its
                                 tolerance (log status "cap") */
    int steps_stalled;        /* steps it ended short of its tolerance because its objective
                                 no longer decreased beyond rounding (status "stalled") */
    int nstop_reasons;        /* entries of stop_reasons */
    weft_stop_count stop_reasons[WEFT_STOP_REASONS_MAX]; /* the steps per (status, reason
                                 word) the solver reported (weft_monitor_stop), sorted by
                                 status, then reason; steps without a reason word are not
                                 listed */
    double collision_s;       /* time in the post-step stages, s (included in wall_s) */
    weft_profile profile;     /* the solver's timers and counters over the run (stats hook) */
} weft_run_result;

/* Writes into out (size bytes) the reasons of res's steps with the given status, as
 * "REASON:STEPS" joined by commas in stop_reasons' order (e.g. "indefinite:10,slow:3"), or
 * "-" when there are none; with status NULL, every pair as "STATUS/REASON:STEPS". Returns
 * the length the text needs (as snprintf), so a result >= size means it was cut. */
int weft_run_stop_reasons(const weft_run_result *res, const char *status, char *out,
                          size_t size);

/* Default options: iteration logging, no OBJ output, no progress line. */
weft_run_options weft_run_options_default(void);

/* Runs the config's [scene] steps steps of solver on m, each followed by the config's
 * enabled post-step stages; stops with an error on divergence or SIGINT. */
int weft_run(const weft_solver_type *solver, weft_model *m, const weft_run_options *opt,
             weft_run_result *res, weft_error *err);

/* Checks what a run of m with cfg needs before it starts: a model with triangle-mesh
 * obstacles needs an enabled post-step stage that handles them (the error names the
 * obstacle's scene line and how to enable one). weft_run checks it too. */
int weft_run_check(weft_config *cfg, const weft_model *m, weft_error *err);

/* Marks taken in cfg every plug-in's settings that a run of solver on m reads: the run's
 * own, the enabled post-step stages', the solver's and those its create takes (the linear
 * solver and preconditioner its settings choose), by creating its state and destroying
 * it. Adds to the marks already there (weft_config_mark_clear forgets them), so probing
 * several solvers marks what a run of all of them reads. Fails when create fails. */
int weft_run_probe(const weft_solver_type *solver, const weft_model *m, weft_config *cfg,
                   weft_error *err);

/* Installs a SIGINT/SIGTERM handler that asks running simulations to stop. */
void weft_install_interrupt_handler(void);

/* True once SIGINT or SIGTERM has been received. */
bool weft_interrupted(void);

/* Monotonic wall clock, s. */
double weft_now(void);

#endif
