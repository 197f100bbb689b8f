/* weft_solvers.h — the time integrators of weft (solvers/), each a weft_solver_type
 * (lib/weft.h) listed in weft_solver_registry. Adding a method is one file plus one
 * registry line; experiments find solvers by name.
 */
#ifndef WEFT_SOLVERS_H
#define WEFT_SOLVERS_H

#include "weft.h"

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

/* BDF2 (Fizt, Kim & Eberle 2020 ch. 8) linearised about x_n, one solve per step. */
extern const weft_solver_type weft_bdf2;

/* BDF2 solved to tolerance by Newton's method on its incremental potential. */
extern const weft_solver_type weft_bdf2_newton;

/* Counters and timers of an implicit solver's run, summed over its steps. */
typedef struct weft_implicit_stats {
    long newton_iterations;  /* Newton steps taken (linearised solvers: one per step) */
    long linear_solves;      /* linear systems solved (contact passes and retries included) */
    long linear_iterations;  /* PPCG iterations, summed (0 with CHOLMOD) */
    long backtracks;         /* line-search halvings */
    long contact_releases;   /* contact filters released because the force pulled */
    long fallbacks;          /* not-SPD systems solved again with the projected Hessian */
    int analyses;            /* CHOLMOD symbolic analyses (0 with PPCG) */
    const char *ordering;    /* CHOLMOD's fill-reducing ordering ("amd", "metis", ...), or
                                "none" (PPCG, or before the first solve) */
    double assemble_s;       /* E, ∇E and K assembly, s */
    double filter_s;         /* forming the system and right-hand side, s */
    double linear_s;         /* linear solves (CHOLMOD: factorise + solve, and any analysis), s */
    double line_search_s;    /* line-search energy evaluations, s */
    double factor_s, solve_s, analyse_s; /* CHOLMOD's share of linear_s: numeric
                                            factorisation, triangular solves, symbolic
                                            analysis, s (0 with PPCG) */
} weft_implicit_stats;

/* Statistics of an implicit solver's state (created by one of the four above). */
void weft_implicit_stats_get(const void *state, weft_implicit_stats *out);

/* The registered solvers, NULL-terminated. */
extern const weft_solver_type *const weft_solver_registry[];

/* Looks up a registered solver by name; NULL if there is none. */
const weft_solver_type *weft_solver_find(const char *name);

/* A constraint type that position-based solvers project (for listings). */
typedef struct weft_constraint_info {
    const char *name;
    const char *paper;
    const char *summary;
} weft_constraint_info;

/* The constraint types of the PBD solvers, terminated by name == NULL. */
extern const weft_constraint_info weft_constraint_list[];

#endif
