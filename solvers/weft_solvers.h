/* weft_solvers.h — the time integrators of weft (solvers/), each a weft_solver_type
 * (lib/weft_solver.h) listed in weft_solver_registry. Adding a method is one file plus one
 * registry line; experiments find solvers by name.
 */
#ifndef WEFT_SOLVERS_H
#define WEFT_SOLVERS_H

#include "weft.h"

/* ------------------------------------------------------------------------------ */
/* Settings                                                                        */
/* ------------------------------------------------------------------------------ */

/* The [solver] settings most solvers read; a solver's settings struct embeds it and its
 * tables list the rows below at the struct's offset (solvers/settings.c). */
typedef struct weft_solver_common {
    int iterations; /* inner iterations per step; Newton's cap (default 10) */
    int threads;    /* OpenMP threads (default 1) */
} weft_solver_common;

/* [solver] iterations, a row of a weft_solver_common. */
extern const weft_param weft_iterations_params[];

/* [solver] threads, a row of a weft_solver_common. */
extern const weft_param weft_threads_params[];

/* Settings of Wang 2015's Chebyshev acceleration (solvers/chebyshev.c): the rows
 * chebyshev_rho, chebyshev_delay, chebyshev_gamma of weft_chebyshev_params, which
 * pbd_jacobi ([pbd]), projective_dynamics and vbd (their own sections) list in their
 * tables at the offset of their weft_chebyshev field. */
typedef struct weft_chebyshev {
    double rho;   /* ρ in [0, 1), the plain iteration's spectral radius; 0 = off (default) */
    int delay;    /* S, plain iterations before the acceleration; 0 = the paper's (default) */
    double gamma; /* γ, under-relaxation of the accelerated update (default 1) */
} weft_chebyshev;

/* The Chebyshev rows, offsets within a weft_chebyshev. */
extern const weft_param weft_chebyshev_params[];

/* The weight ω_k of iteration k ≥ 1 of a step: 1 for k < S, ω_S = 2/(2 − ρ²), then
 * ω_{k+1} = 4/(4 − ρ² ω_k), with S = c->delay or, when that is 0, paper_delay; *omega
 * holds the recurrence between calls (any value at k = 1). 0 when iteration k does no
 * update (ρ = 0, or k < S with γ = 1): the host then runs its plain iteration. */
double weft_chebyshev_weight(const weft_chebyshev *c, int paper_delay, int k, double *omega);

/* One coordinate of the accelerated iterate ω (γ (hat − cur) + cur − prev) + prev, hat
 * the plain iterate from cur = q_k, prev = q_{k−1}. */
double weft_chebyshev_mix(double omega, double gamma, double hat, double cur, double prev);

/* Settings of the position-based solvers (Müller 2006; pbd_jacobi adds omega and the
 * chebyshev_* keys). The stiffnesses k are non-dimensional in [0, 1]. */
typedef struct weft_pbd_settings {
    weft_solver_common common; /* [solver] iterations, threads */
    double omega;           /* [solver] Jacobi over-relaxation ω in (0, 2) (default 1.5) */
    double k_stretch;       /* [pbd] distance constraints (default 1) */
    double k_bending;       /* [pbd] dihedral constraints (default 0.1) */
    double k_damping;       /* [pbd] §3.5 rigid-mode-preserving damping (default 0.01) */
    double k_pressure;      /* [pbd] §4.4 overpressure factor; 0 = no balloon constraint */
    bool stiffness_mapping; /* [pbd] §3.3: k' = 1 - (1 - k)^(1/n_s) (default true) */
    bool self_collision;    /* [pbd] §4.3 vertex-triangle self-collision (default false) */
    double self_thickness;  /* [pbd] §4.3 thickness h kept between a vertex and a triangle,
                               m (default 0.005) */
    weft_chebyshev chebyshev; /* [pbd] chebyshev_* (pbd_jacobi only; S = 0: Wang's 10) */
} weft_pbd_settings;

/* Hessian the implicit integrators assemble ([solver] hessian). */
typedef enum {
    WEFT_SOLVER_HESSIAN_PROJECTED = 0, /* PSD-projected element Hessians (default):
                                          WEFT_HESSIAN_ANALYTIC */
    WEFT_SOLVER_HESSIAN_EXACT,         /* exact, possibly indefinite: a not-SPD system is
                                          retried with the projected one */
    WEFT_SOLVER_HESSIAN_CLAMP,         /* every element Hessian clamped by the generic
                                          eigen-solver (WEFT_HESSIAN_CLAMP): the reference
                                          the structured projections are compared with */
    WEFT_SOLVER_HESSIAN_ADAPTIVE,      /* Newton: exact while the system is SPD, else the
                                          projected one for that iteration (linearised
                                          solvers: as exact) */
} weft_solver_hessian;

/* Settings of the implicit integrators ([solver] section; solvers/implicit_common.c). */
typedef struct weft_implicit_settings {
    weft_solver_common common; /* iterations (Newton's cap), threads */
    double tolerance;     /* Newton stops when r ≤ tolerance max(r(x⁰), tolerance_abs) and
                             r ≤ tolerance_abs, r the residual of weft_residual (default 1e-6) */
    double tolerance_abs; /* N (default 1e-5) */
    int linear;           /* index into weft_linear_registry (default 0, cholmod); the linear
                             solver's own section ([ppcg]) has its settings */
    double damping_alpha; /* Rayleigh damping D = αM + βK: α, 1/s (default 0) */
    double damping_beta;  /* β, s (default 0) */
    int hessian;          /* a weft_solver_hessian (default PROJECTED; Newton: ADAPTIVE) */
} weft_implicit_settings;

/* ------------------------------------------------------------------------------ */
/* Solvers                                                                         */
/* ------------------------------------------------------------------------------ */

/* Müller et al. 2006, Algorithm 1: Gauss-Seidel constraint projection. */
extern const weft_solver_type weft_pbd_gauss_seidel;

/* Jacobi PBD with constraint averaging and over-relaxation (Macklin et al. 2014 §4.2). */
extern const weft_solver_type weft_pbd_jacobi;

/* Semi-implicit (symplectic) Euler, the explicit baseline for any energy model (Hairer,
 * Lubich & Wanner 2006, §I.1.2); stable only below the CFL limit on dt. */
extern const weft_solver_type weft_symplectic_euler;

/* Baraff & Witkin 1998: backward Euler linearised about x_n, one linear solve per step. */
extern const weft_solver_type weft_implicit_euler;

/* Backward Euler solved to tolerance by Newton's method on the incremental potential. */
extern const weft_solver_type weft_newton_euler;

/* newton_euler with patch Gauss-Seidel sweeps on G after each Newton step (newton_patch.c). */
extern const weft_solver_type weft_newton_patch;

/* BDF2 (Fizt, Kim & Eberle 2020 ch. 8) linearised about x_n, one solve per step. */
extern const weft_solver_type weft_bdf2;

/* BDF2 solved to tolerance by Newton's method on its incremental potential. */
extern const weft_solver_type weft_bdf2_newton;

/* The registered solvers, NULL-terminated. */
extern const weft_solver_type *const weft_solver_registry[];

/* The check every solver holding the balloon's volume constraint makes when created:
 * WEFT_OK when k_pressure is 0 or m's mesh is closed, else WEFT_ERR_INPUT with one line
 * naming where [pbd] k_pressure was set. */
int weft_pressure_check(const weft_model *m, const weft_config *cfg, double k_pressure,
                        weft_error *err);

/* Looks up a registered solver by name; NULL if there is none. */
const weft_solver_type *weft_solver_find(const char *name);

/* The registered post-step stages (the Bridson pipeline), NULL-terminated. */
extern const weft_stage_type *const weft_stage_registry[];

/* Every plug-in weft knows, for a config: the run's own settings, every registered
 * solver, linear solver, preconditioner and post-step stage. Fills out[0 .. max) (out may
 * be NULL when max is 0) and returns how many there are, which may exceed max: a caller
 * sizes its array from weft_plugins(NULL, 0), or calls weft_plugins_all. */
int weft_plugins(weft_plugin *out, int max);

/* Every plug-in, in a malloc'ed array of *n (free it); NULL when memory runs out. */
weft_plugin *weft_plugins_all(int *n);

/* The config of a run from scene s (NULL: every default) with every registered plug-in;
 * NULL after a one-line error (a bad value, an unknown key). */
weft_config *weft_config_from_scene(const weft_scene *s, weft_error *err);

/* A constraint type that position-based solvers project (for listings). */
typedef struct weft_constraint_info {
    const char *name;
    const char *paper;
    const char *summary;
} weft_constraint_info;

/* The constraint types of the PBD solvers, terminated by name == NULL. */
extern const weft_constraint_info weft_constraint_list[];

#endif
