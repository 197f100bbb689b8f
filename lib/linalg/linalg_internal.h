/* linalg_internal.h — small 3×3 helpers the linear solvers and preconditioner files
 * share: products, the filtered diagonal block B_i = S_i D_i S_i + (I − S_i) of
 * K = S A S + (I − S), and the inverse of a symmetric positive definite 3×3 block.
 * Private to lib/linalg/. */
#ifndef WEFT_LINALG_INTERNAL_H
#define WEFT_LINALG_INTERNAL_H

#include "weft_linsolve.h"

#include <stdbool.h>

/* r = a b for 3×3 row-major matrices (r must not alias a or b). */
void weft_mul33(const double a[9], const double b[9], double r[9]);

/* B = S_i D_i S_i + (I − S_i) for vertex i of A under filter f (row-major 3×3),
 * symmetrised against the rounding of the products. */
void weft_filtered_diagonal(const weft_bsr *A, const weft_filter *f, int i, double B[9]);

/* inv = M⁻¹ for a symmetric 3×3 M by Cholesky; false unless M is positive definite. */
bool weft_inv_spd33(const double M[9], double inv[9]);

/* The name of a CHOLMOD ordering code (cholmod_factor.ordering): "amd", "metis", ...;
 * "none" for -1 (no analysis yet) or a code CHOLMOD does not define. */
const char *weft_cholmod_ordering_name(int ordering);

/* True when A's block pattern is the one kept: n block rows, row_ptr (n + 1 entries) and
 * col (nnzb entries); false when row_ptr is NULL (nothing kept). */
bool weft_bsr_pattern_is(const weft_bsr *A, int n, int nnzb, const int *row_ptr,
                         const int *col);

/* The team size a library call (CHOLMOD, HYPRE) runs with, saved by weft_threads_enter. */
typedef struct weft_thread_scope {
    int omp; /* the calling thread's OpenMP team size before, 0: left alone */
} weft_thread_scope;

/* Gives the calling thread's next OpenMP regions `threads` threads for the library call
 * that follows (threads < 1: changes nothing; OpenBLAS stays single-threaded) and returns
 * what was set before; weft_threads_leave puts it back, so no plug-in leaves
 * process-wide state. */
weft_thread_scope weft_threads_enter(int threads);

/* Restores what weft_threads_enter saved. */
void weft_threads_leave(weft_thread_scope saved);

/* ------------------------------------------------------------------------------ */
/* sa_amg (precond_sa_amg.c): its settings and, for tests, a look inside           */
/* ------------------------------------------------------------------------------ */

/* Smoothers of sa_amg ([sa_amg] smoother). */
enum { WEFT_SA_AMG_GAUSS_SEIDEL = 0, WEFT_SA_AMG_JACOBI = 1 };

/* The settings of sa_amg ([sa_amg] section). */
typedef struct weft_sa_amg_settings {
    double strength; /* strength-of-connection threshold θ, 1 (default 0.05) */
    int smoother;    /* WEFT_SA_AMG_GAUSS_SEIDEL (default) or WEFT_SA_AMG_JACOBI */
    int sweeps;      /* smoothing sweeps before and after a coarse correction (default 1) */
    int levels;      /* most levels, fine included (default 10) */
    int coarsest;    /* stop coarsening at this many nodes (default 64) */
    double omega;    /* prolongator smoothing weight ω, P = (I − ω/ρ D⁻¹K) T (default 4/3) */
    int radius;      /* level 0's aggregate radius in strong edges, 1 or 2 (default 1) */
} weft_sa_amg_settings;

/* Levels of an sa_amg state (0 before its set-up). */
int weft_sa_amg_levels(const void *state);

/* DOFs of level l (nodes and DOFs a node into *nodes, *block; either may be NULL), -1 if
 * there is no such level. */
int weft_sa_amg_level_size(const void *state, int l, int *nodes, int *block);

/* Level l's aggregate of each node (*nagg: their number), NULL on the coarsest level. */
const int *weft_sa_amg_aggregates(const void *state, int l, int *nagg);

/* Level l's K ('K', ndof_l²), tentative ('T') or smoothed ('P') prolongator (ndof_l ×
 * ndof_{l+1}) as a dense row-major matrix in out; returns its columns, -1 if absent. */
int weft_sa_amg_dense(const void *state, int l, char which, double *out);

#endif
