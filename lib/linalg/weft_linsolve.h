/* weft_linsolve.h — constraint filters and the linear solvers an implicit integrator
 * calls: pre-filtered preconditioned conjugate gradients (PPCG) and a filtered CHOLMOD
 * Cholesky path for the same system.
 *
 * Filters (Baraff & Witkin 1998, "Large Steps in Cloth Simulation" §5.3; Kim & Eberle
 * 2020, "Dynamic Deformables" ch. 9.1): vertex i with k constrained DOFs along
 * orthonormal directions has the 3×3 projector
 *     k = 0: S_i = I,  k = 1: S_i = I − p̂p̂ᵀ,  k = 2: S_i = I − p̂p̂ᵀ − q̂q̂ᵀ,  k = 3: S_i = 0,
 * and prescribed values z_i (m for positions, m/s for velocities): only the components
 * (I − S_i) z_i, along the constrained directions, are prescribed.
 *
 * Filtered system (Tamstorf, Jones, McCormick 2015, "Smoothed aggregation multigrid for
 * cloth simulation", the pre-filtered PCG; Kim & Eberle §9.1.1): to solve A x = b on the
 * free subspace with (I − S) x = (I − S) z, write x = y + z, c = b − A z and solve
 *     K y = S c,   K = S A S + (I − S),
 * which is SPD when A is SPD on the free subspace (S = Sᵀ = S²). Both solvers return
 * x = y + z with the constrained components taken from z:
 *   3 DOFs: x_i = z_i bitwise;
 *   1 or 2 DOFs (directions not axis aligned): with w = y_i + z_i,
 *     x_i = w + Σ_d d̂ (d̂·z_i − d̂·w), so d̂·x_i = d̂·z_i up to the rounding of one
 *     projection, |d̂·x_i − d̂·z_i| ≲ 4 ε (|w| + |z_i|); no finite-precision vector can
 *     do better for a direction that is not an axis; an axis-aligned direction (p̂ = ±e_a)
 *     copies coordinate a of z bitwise;
 *   0 DOFs: x_i = y_i + z_i.
 */
#ifndef WEFT_LINSOLVE_H
#define WEFT_LINSOLVE_H

#include "weft_sparse.h"

/* ------------------------------------------------------------------------------ */
/* Filters                                                                         */
/* ------------------------------------------------------------------------------ */

/* Per-vertex constraint filters of n vertices. */
typedef struct weft_filter {
    int n;
    int *ndof;   /* n: constrained DOFs of vertex i, 0..3 */
    double *dir; /* 6n: unit directions p̂ (dir[6i]) and q̂ (dir[6i+3]) for 1 or 2 DOFs */
    double *S;   /* 9n: S_i, row-major, symmetric projector */
    double *z;   /* 3n: prescribed values, m or m/s (only (I − S_i) z_i matters) */
} weft_filter;

/* Allocates filters for n vertices, all free (S_i = I, z_i = 0). */
int weft_filter_create(weft_filter *f, int n, weft_error *err);

/* Frees what f owns and zeroes it; safe on a zeroed filter. */
void weft_filter_destroy(weft_filter *f);

/* Makes every vertex free again: S_i = I, z_i = 0. */
void weft_filter_free_all(weft_filter *f);

/* Constrains all 3 DOFs of vertex i: S_i = 0, z_i = z (m or m/s). */
void weft_filter_pin(weft_filter *f, int i, const double z[3]);

/* Constrains vertex i along one direction: S_i = I − n̂n̂ᵀ with n̂ = normal/|normal|, and
 * n̂·x_i = n̂·z. Fails if the normal is zero or not finite, or z is not finite. */
int weft_filter_plane(weft_filter *f, int i, const double normal[3], const double z[3],
                      weft_error *err);

/* Constrains vertex i along two directions (free only along a line): p̂ and q̂ from
 * Gram-Schmidt on p and q. Fails if they are parallel, zero or not finite. */
int weft_filter_line(weft_filter *f, int i, const double p[3], const double q[3],
                     const double z[3], weft_error *err);

/* y = S x over the 3n values (y may alias x). */
void weft_filter_apply(const weft_filter *f, const double *x, double *y);

/* x_i = y_i + z_i with the constrained components set from z (see the file comment). */
void weft_filter_compose(const weft_filter *f, const double *y, double *x);

/* ------------------------------------------------------------------------------ */
/* Solver outcome                                                                  */
/* ------------------------------------------------------------------------------ */

/* How a linear solve ended. Each has one status code (weft_solve_status_code), which is
 * also the code of the message it leaves in err: the same rule for every linear solver and
 * preconditioner. */
typedef enum weft_solve_status {
    WEFT_SOLVE_CONVERGED = 0, /* WEFT_OK */
    WEFT_SOLVE_MAX_ITER,   /* iteration cap reached; x is the last iterate (WEFT_WARN_MAX_ITER) */
    WEFT_SOLVE_INDEFINITE, /* pᵀKp ≤ 0, a preconditioner block not SPD, or CHOLMOD's
                              CHOLMOD_NOT_POSDEF (WEFT_ERR_INDEFINITE) */
    WEFT_SOLVE_NONFINITE,  /* NaN or inf in b, z, A or a residual (WEFT_ERR_DIVERGED) */
    WEFT_SOLVE_INPUT,      /* sizes or patterns that do not match, no factorisation to solve
                              with, a library's invalid-input status (WEFT_ERR_INPUT) */
    WEFT_SOLVE_NOMEM,      /* an allocation, ours or the library's, failed (WEFT_ERR_NOMEM) */
} weft_solve_status;

/* Name of a status, e.g. "indefinite". */
const char *weft_solve_status_name(weft_solve_status s);

/* The status code of a solve's outcome: WEFT_OK, WEFT_WARN_MAX_ITER, WEFT_ERR_INDEFINITE,
 * WEFT_ERR_DIVERGED, WEFT_ERR_INPUT or WEFT_ERR_NOMEM (see weft_solve_status). */
int weft_solve_status_code(weft_solve_status s);

/* The outcome of a failed preconditioner or set-up step that returned status code rc
 * (the inverse of weft_solve_status_code; WEFT_OK gives WEFT_SOLVE_CONVERGED). */
weft_solve_status weft_solve_status_of(int rc);

/* ------------------------------------------------------------------------------ */
/* PPCG                                                                            */
/* ------------------------------------------------------------------------------ */

/* A preconditioner of PPCG: an approximation M ≈ K of the filtered matrix
 * K = S A S + (I − S), symmetric positive definite, with z = M⁻¹ r cheap. One file
 * (lib/linalg/precond_NAME.c) and one line of weft_precond_registry (precond.c) each.
 * Its work is split by how often it must be redone: create once per solver, setup once
 * per sparsity pattern of A (an aggregation, a multigrid hierarchy), update once per
 * matrix (new values or filters), apply once per PCG iteration. */
typedef struct weft_precond_type {
    const char *name;    /* registered name ([ppcg] preconditioner) */
    const char *paper;
    const char *summary;
    size_t settings_size; /* its settings struct, described by the tables; 0/NULL if none */
    const weft_param_table *settings;
    /* Allocates its state for n vertices with its settings (may be NULL: defaults);
     * threads (≥ 1) bounds the threads of its own loops and of the libraries it calls. */
    void *(*create)(int n, const void *settings, int threads, weft_error *err);
    /* Once per sparsity pattern of A; NULL when there is nothing to do. positions (3n, m)
     * are the vertex positions at which A was assembled, NULL when the caller has none:
     * a multigrid method builds its near-null space (rigid modes) from them. */
    int (*setup)(void *state, const weft_bsr *A, const double *positions, weft_error *err);
    /* Once per matrix: from A's values, the filter and the positions (as in setup). A
     * part that is not positive definite fails with WEFT_ERR_INDEFINITE and a message
     * naming the vertex, a non-finite one with WEFT_ERR_DIVERGED, an allocation with
     * WEFT_ERR_NOMEM. */
    int (*update)(void *state, const weft_bsr *A, const weft_filter *f,
                  const double *positions, weft_error *err);
    /* z = M⁻¹ r (3n values each). */
    void (*apply)(const void *state, const double *r, double *z);
    /* Frees the state; NULL is a no-op. */
    void (*destroy)(void *state);
} weft_precond_type;

/* No preconditioner (M = I), precond_none.c. */
extern const weft_precond_type weft_precond_none;
/* Jacobi: M = diag(K), precond_jacobi.c. */
extern const weft_precond_type weft_precond_jacobi;
/* Block Jacobi: M_i = S_i D_i S_i + (I − S_i), precond_block_jacobi.c. */
extern const weft_precond_type weft_precond_block_jacobi;
/* Smoothed-aggregation multigrid V-cycle on K (Tamstorf, Jones & McCormick 2015),
 * precond_sa_amg.c; its settings are the [sa_amg] section. */
extern const weft_precond_type weft_precond_sa_amg;

/* The registered preconditioners, NULL-terminated (precond.c). */
extern const weft_precond_type *const weft_precond_registry[];

/* The registered preconditioner of that name, or NULL. */
const weft_precond_type *weft_precond_find(const char *name);

/* The name of the i-th registered preconditioner, NULL past the last (for NAME settings). */
const char *weft_precond_name_at(int i);

typedef struct weft_ppcg_options {
    const weft_precond_type *precond; /* NULL: block Jacobi */
    const void *precond_settings;     /* its settings, NULL for its defaults */
    double tol;   /* stop when ‖S c − K y‖ ≤ tol ‖S c‖ (checked on the true residual) */
    int max_iter; /* iteration cap */
    int threads;  /* OpenMP threads for the products */
    /* Vertex positions at which A was assembled (3n, m), handed to the preconditioner;
     * NULL when unknown (a multigrid preconditioner then uses translations only). */
    const double *positions;
    /* Called after each iteration with the relative residual ‖r‖/‖S c‖; may be NULL. */
    void (*callback)(int iter, double rel_residual, void *user);
    void *user;
} weft_ppcg_options;

/* Defaults: block-Jacobi, tol 1e-8, 1000 iterations, 1 thread, no callback. */
weft_ppcg_options weft_ppcg_defaults(void);

typedef struct weft_ppcg weft_ppcg;

/* Allocates a PPCG solver for n vertices: every work array, so solves allocate nothing. */
weft_ppcg *weft_ppcg_create(int n, weft_error *err);

/* Frees the solver and sets *s to NULL; safe on NULL. */
void weft_ppcg_free(weft_ppcg **s);

/* Preconditioner set-ups done so far: one per sparsity pattern (or change of type). */
int weft_ppcg_setups(const weft_ppcg *s);

/* Solves A x = b on the free subspace of f with (I − S) x = (I − S) z (A: n vertices,
 * SPD on the free subspace; b: 3n, N; x: 3n, m). Returns the status, with a message in
 * err unless converged; x never holds a NaN: on failure it is the last finite iterate
 * (z if none), or 0 where z is not finite. *iters (may be NULL) gets the iterations. */
weft_solve_status weft_ppcg_solve(weft_ppcg *s, const weft_bsr *A, const weft_filter *f,
                                  const double *b, double *x, const weft_ppcg_options *opt,
                                  int *iters, weft_error *err);

/* ------------------------------------------------------------------------------ */
/* CHOLMOD                                                                         */
/* ------------------------------------------------------------------------------ */

typedef struct weft_cholmod_solver weft_cholmod_solver;

/* Creates a solver (cholmod_start); the symbolic analysis waits for the first solve. */
weft_cholmod_solver *weft_cholmod_solver_create(weft_error *err);

/* Finishes CHOLMOD, frees everything and sets *s to NULL; safe on NULL. */
void weft_cholmod_solver_free(weft_cholmod_solver **s);

/* Gives CHOLMOD's calls (analysis, factorisation, solves) threads OpenMP and OpenBLAS
 * threads, set around each call and restored after it; 0 (the default) leaves the
 * process's settings as they are. */
void weft_cholmod_solver_set_threads(weft_cholmod_solver *s, int threads);

/* Forgets the analysed pattern, so the next solve analyses again. */
void weft_cholmod_solver_reset(weft_cholmod_solver *s);

/* Builds K = S A S + (I − S) (A's pattern) and S c, factorises K with CHOLMOD and returns
 * x = y + z with the constrained components from z. Analyses (orders) only when A's
 * pattern differs from the last one's. A K that is not positive definite gives
 * WEFT_SOLVE_INDEFINITE with the failing column; x is then z (0 where z is not finite). */
weft_solve_status weft_cholmod_solver_solve(weft_cholmod_solver *s, const weft_bsr *A,
                                            const weft_filter *f, const double *b, double *x,
                                            weft_error *err);

/* The first half of weft_cholmod_solver_solve, for a matrix reused over many right-hand
 * sides: builds K = S A S + (I − S), analyses it when A's pattern is new and factorises
 * it. WEFT_SOLVE_INDEFINITE when K is not positive definite. */
weft_solve_status weft_cholmod_solver_factor(weft_cholmod_solver *s, const weft_bsr *A,
                                             const weft_filter *f, weft_error *err);

/* The second half: x = y + z with K y = S (b − A z), K from the last successful
 * weft_cholmod_solver_factor, which must have seen this A (values and pattern) and f's
 * projectors S; b and the prescribed values f->z may be new. WEFT_SOLVE_INPUT when there
 * is no factorisation (x is then z). */
weft_solve_status weft_cholmod_solver_apply(weft_cholmod_solver *s, const weft_bsr *A,
                                            const weft_filter *f, const double *b, double *x,
                                            weft_error *err);

/* Numeric factorisations attempted so far (weft_cholmod_solver_solve makes one each). */
long weft_cholmod_solver_factorisations(const weft_cholmod_solver *s);

/* Symbolic analyses done so far (one per pattern). */
int weft_cholmod_solver_analyses(const weft_cholmod_solver *s);

/* Wall-clock split of CHOLMOD solves, s (weft_now). */
typedef struct weft_cholmod_timings {
    double analyse_s; /* pattern copy and cholmod_analyze (0 when the pattern was kept) */
    double filter_s;  /* K = S A S + (I − S), S (b − A z) and their copy into CHOLMOD */
    double factor_s;  /* numeric factorisation, cholmod_factorize */
    double solve_s;   /* triangular solves, cholmod_solve2, and x = y + z */
    long solves;      /* weft_cholmod_solver_solve calls counted (1 in `last`) */
} weft_cholmod_timings;

/* The last solve's split into *last and the sums over all solves since creation into
 * *total (either may be NULL); zeros before the first solve. A failed solve counts the
 * stages it completed. weft_cholmod_solver_reset keeps the sums. */
void weft_cholmod_solver_timings(const weft_cholmod_solver *s, weft_cholmod_timings *last,
                                 weft_cholmod_timings *total);

/* Name of the fill-reducing ordering CHOLMOD chose ("amd", "metis", "nesdis", "natural",
 * "given", "colamd", "postordered"), or "none" before the first analysis. */
const char *weft_cholmod_solver_ordering(const weft_cholmod_solver *s);

/* CHOLMOD for a matrix of the form A = S ⊗ I₃ (every block a multiple of the identity)
 * under whole-vertex pins (cholmod_scalar.c): the n×n scalar K is factorised, and a solve
 * is one CHOLMOD solve with x, y and z as three right-hand sides. */
typedef struct weft_cholmod_scalar weft_cholmod_scalar;

/* Creates a solver (cholmod_start); the analysis waits for the first factorisation. */
weft_cholmod_scalar *weft_cholmod_scalar_create(weft_error *err);

/* Finishes CHOLMOD, frees everything and sets *s to NULL; safe on NULL. */
void weft_cholmod_scalar_free(weft_cholmod_scalar **s);

/* Factorises the scalar K of A (filtered by f's pins), analysing A's pattern when it is
 * new. WEFT_SOLVE_INPUT when a block of A is not a multiple of I₃ or f constrains a
 * vertex along 1 or 2 directions; WEFT_SOLVE_INDEFINITE when K is not positive definite. */
weft_solve_status weft_cholmod_scalar_factor(weft_cholmod_scalar *s, const weft_bsr *A,
                                             const weft_filter *f, weft_error *err);

/* x = y + z with K y = S (b − A z) (b, x: 3n), K from the last successful factorisation,
 * which must have seen this A and f's pins; b and f->z may be new. */
weft_solve_status weft_cholmod_scalar_apply(weft_cholmod_scalar *s, const weft_bsr *A,
                                            const weft_filter *f, const double *b, double *x,
                                            weft_error *err);

/* Analyses and numeric factorisations attempted so far, and the name of CHOLMOD's
 * ordering ("none" before the analysis); 0, 0 and "none" for NULL. */
int weft_cholmod_scalar_analyses(const weft_cholmod_scalar *s);
long weft_cholmod_scalar_factorisations(const weft_cholmod_scalar *s);
const char *weft_cholmod_scalar_ordering(const weft_cholmod_scalar *s);

/* ------------------------------------------------------------------------------ */
/* Linear solvers: the plug-in the implicit integrators call                       */
/* ------------------------------------------------------------------------------ */

/* Called by a linear solve as it goes: its iteration (1, 2, ...; a direct solve calls it
 * once), the relative residual ‖S (b − A x)‖ / ‖S (b − A z)‖ (NAN when unknown) and a
 * status word ("ok", "cap", "analysed:amd", ...). */
typedef void (*weft_linear_progress)(int iter, double rel_residual, const char *status,
                                     void *user);

/* Counters and timers of a linear solver, summed over its solves. */
typedef struct weft_linear_stats {
    long solves;          /* systems solved */
    long iterations;      /* iterations summed (0 for a direct solver) */
    int setups;           /* analyses or preconditioner set-ups: one per sparsity pattern */
    long factorisations;  /* numeric factorisations (a direct solver: one per solve, or one
                             per `factor` call); 0 for an iterative solver */
    const char *ordering; /* a direct solver's fill-reducing ordering, else "none" */
    double setup_s;       /* symbolic analysis / set-up per pattern, s */
    double factor_s;      /* numeric factorisation / preconditioner update per matrix, s */
    double solve_s;       /* the solves themselves, s */
} weft_linear_stats;

/* A linear solver for the filtered system (see the top of this file): one file
 * (lib/linalg/linear_NAME.c) and one line of weft_linear_registry (registry.c). */
typedef struct weft_linear_type {
    const char *name;    /* registered name ([solver] linear) */
    const char *paper;
    const char *summary;
    size_t settings_size; /* its settings struct, described by the tables; 0/NULL if none */
    const weft_param_table *settings;
    /* Allocates a solver for n vertices, taking its settings (and those of anything it
     * uses, a preconditioner) from cfg (NULL: defaults); threads for its products. */
    void *(*create)(int n, weft_config *cfg, int threads, weft_error *err);
    /* Solves A x = b on f's free subspace with (I − S) x = (I − S) z. positions (3n, m;
     * may be NULL) are where A was assembled, for a preconditioner's near-null space.
     * WEFT_SOLVE_MAX_ITER leaves the last iterate in x. *iterations (may be NULL) gets its
     * iterations. */
    weft_solve_status (*solve)(void *state, const weft_bsr *A, const weft_filter *f,
                               const double *b, double *x, const double *positions,
                               weft_linear_progress progress, void *user, int *iterations,
                               weft_error *err);
    /* Optional (NULL when the solver has no such split; callers then use solve): for one
     * matrix reused over many right-hand sides, as Projective Dynamics' constant system.
     * factor prepares A on f's free subspace once (a direct solver analyses a new pattern
     * and factorises K = S A S + (I − S)); solve_factored then solves A x = b with it for
     * any b and prescribed values f->z, as long as A's values and f's projectors S are
     * those factor saw. */
    weft_solve_status (*factor)(void *state, const weft_bsr *A, const weft_filter *f,
                                weft_error *err);
    weft_solve_status (*solve_factored)(void *state, const weft_bsr *A, const weft_filter *f,
                                        const double *b, double *x, weft_error *err);
    /* Its counters and timers so far. */
    void (*stats)(const void *state, weft_linear_stats *out);
    /* Frees the state; NULL is a no-op. */
    void (*destroy)(void *state);
    /* Optional, the pair factor / solve_factored for a matrix of the form A = S ⊗ I₃
     * (every block a multiple of the identity: the same scalar n×n matrix for x, y and
     * z, as Projective Dynamics' global matrix) under whole-vertex pins: factorises the
     * n×n S once and solves the three coordinates together. Same contract otherwise;
     * NULL: callers use factor / solve_factored. */
    weft_solve_status (*factor_scalar)(void *state, const weft_bsr *A, const weft_filter *f,
                                       weft_error *err);
    weft_solve_status (*solve_scalar)(void *state, const weft_bsr *A, const weft_filter *f,
                                      const double *b, double *x, weft_error *err);
} weft_linear_type;

/* Sparse Cholesky by CHOLMOD on the filtered matrix (linear_cholmod.c). */
extern const weft_linear_type weft_linear_cholmod;
/* Pre-filtered preconditioned CG with a registered preconditioner (linear_ppcg.c). */
extern const weft_linear_type weft_linear_ppcg;

/* The registered linear solvers, NULL-terminated (registry.c). */
extern const weft_linear_type *const weft_linear_registry[];

/* The name of the i-th registered linear solver, NULL past the last (for NAME settings). */
const char *weft_linear_name_at(int i);

/* The settings of PPCG as a linear solver ([ppcg] section). */
typedef struct weft_ppcg_settings {
    double tolerance;   /* relative residual ‖S c − K y‖ ≤ tolerance ‖S c‖ (default 1e-8) */
    int iterations;     /* iteration cap (default 1000) */
    int preconditioner; /* index into weft_precond_registry (default block_jacobi) */
} weft_ppcg_settings;

#endif
