/* weft_energy.h — the descriptor an energy or constraint type provides (energies/
 * implements them; lib/ evaluates a model only through these function pointers).
 *
 * Units are SI: m, m/s, kg, s, J, N. Arrays of 3-vectors are flat: x[3*i + 0..2] is vertex i.
 */
#ifndef WEFT_ENERGY_H
#define WEFT_ENERGY_H

#include "weft_mesh.h"

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
    /* 6 vertices: a triangle v0 v1 v2, then its wings w0 w1 w2, the vertices across its
     * edges opposite v0, v1, v2 (wi = vi where that edge is on the boundary: no wing) */
    WEFT_ELEM_TRI_HINGES = 9,
} weft_element_kind;

/* Maximum vertices per element. */
#define WEFT_ELEM_MAXV 6

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
    double poisson;   /* Poisson's ratio ν in [0, 0.5) (triangles, triangles with hinges,
                         tetrahedra) */
    double area;      /* edges: a third of the adjacent triangles' rest area (m²);
                         hinges: the rest area of both triangles (m²); triangles and
                         triangles with hinges: the triangle's rest area; others ignore it
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

/* Most rows of a projective element's map A (a 3×3 deformation gradient). */
#define WEFT_PROJECTIVE_MAXROWS 3

/* The projective form of an element (Bouaziz, Martin, Liu, Kavan & Pauly 2014 §3–4):
 *   Ψ(x) = min_{p ∈ C} ½ w ‖A x − p‖² = ½ w ‖A x − P_C(A x)‖²,
 * exactly the type's energy, with A a constant map of the element's vertices that acts on
 * x, y and z alike (row r: y_r = Σ_i A[r][i] x_i, a 3-vector) and C a constraint set. */
typedef struct weft_projective {
    int rows; /* rows of A, 1 .. WEFT_PROJECTIVE_MAXROWS */
    /* Fills A (rows × nv, A[nv*r + i]: row r's weight of vertex i) from e's rest data and
     * returns the weight w (its unit makes ½ w ‖A x − p‖² joules). */
    double (*form)(const weft_element *e, double *A);
    /* p = P_C(y): y and p are rows × 3 (y[3*r + k]: row r, coordinate k). */
    void (*project)(const weft_element *e, const double *y, double *p);
    /* Optional (NULL: none), one-row forms only: when C is the sphere |p| = r about 0 and
     * project is exactly p = (|y| > 0 ? r/|y| : 0) y, |y| = sqrt(y₀y₀ + y₁y₁ + y₂y₂) in
     * that order, r of element e; a solver may then project without calling project. */
    double (*sphere_radius)(const weft_element *e);
} weft_projective;
/* The [material] role whose default an energy is: the energy a scene gets when it leaves
 * that key out. Each role is declared by exactly one registered energy. */
typedef enum {
    WEFT_DEFAULT_NONE = 0, /* the default of no role */
    WEFT_DEFAULT_MEMBRANE, /* [material] membrane on a surface mesh */
    WEFT_DEFAULT_BENDING,  /* [material] bending on a surface mesh */
    WEFT_DEFAULT_SOLID,    /* [material] volume on a tetrahedral mesh */
} weft_default_role;

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
    /* Optional, for XPBD: one compliant projection of e (Macklin 2016 eqs. 17–18) on the
     * positions p (3n, m, changed in place) with inverse masses w (n, 1/kg):
     *   Δλ = (−C − α̃ λ)/(Σ_a w_a |∇_a C|² + α̃),   p_a += w_a ∇_a C Δλ,
     * C that of `constraint`, to rounding; returns Δλ, or 0 with p untouched when the
     * denominator is not positive. alpha_tilde (α̃ = α/h²) and lambda in the units of 1/k
     * and k C. NULL: xpbd evaluates `constraint` and does the rest itself. */
    double (*compliant_step)(const weft_element *e, const double *w, double alpha_tilde,
                             double lambda, double *p);
    /* Optional, with compliant_step: its projection of four elements e[0..3] that share no
     * vertex, one per SIMD lane, each lane as compliant_step (Δλ into dl); false, with p
     * untouched, when a lane cannot (a degenerate element, a denominator not positive):
     * the caller then takes compliant_step one element at a time. */
    bool (*compliant_step4)(const weft_element *const e[4], const double *w,
                            const double alpha_tilde[4], const double lambda[4], double *p,
                            double dl[4]);
    /* Optional, for per-vertex solvers (vertex block descent): vertex v's (0 .. nv − 1)
     * gradient dΨ/dp_v (3, N) and diagonal block (3×3, N/m) of `hessian`'s matrix in the
     * same mode, equal to those of the full call bit for bit, at less cost where the type
     * can (a type may form the full matrix for a mode it cannot split); returns Ψ. NULL:
     * the callers take the blocks from `hessian`. */
    double (*vertex_hessian)(const weft_element *e, const double *xe, weft_hessian_mode mode, int v,
                             double *g, double *H);
    /* Optional, for Projective Dynamics: the element's energy as a squared distance to a
     * constraint set (NULL for an energy of no such form). */
    const weft_projective *projective;
    /* The [material] role this type is the default of (WEFT_DEFAULT_NONE for most). */
    weft_default_role default_for;
} weft_energy_type;

/* A list of elements of one type: one term of the model's energy. */
typedef struct weft_term {
    const weft_energy_type *type;
    int n;              /* elements */
    weft_element *elem; /* n elements */
} weft_term;

#endif
