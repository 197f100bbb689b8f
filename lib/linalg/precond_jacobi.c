/* precond_jacobi.c — Jacobi (diagonal) preconditioner of PPCG: M = diag(K), with
 * K = S A S + (I − S) the filtered matrix, so z_k = r_k / K_kk (Saad 2003 §10.2). */
#include "linalg_internal.h"

#include <math.h>
#include <stdlib.h>

typedef struct jacobi_state {
    int n, threads;
    double *inv; /* 3n: 1 / K_kk */
} jacobi_state;

static void jacobi_destroy(void *state) {
    jacobi_state *st = state;
    if (st) free(st->inv);
    free(st);
}

static void *jacobi_create(int n, const void *settings, int threads, weft_error *err) {
    (void)settings;
    jacobi_state *st = calloc(1, sizeof *st);
    if (st) st->inv = malloc(3 * (size_t)(n > 0 ? n : 1) * sizeof *st->inv);
    if (!st || !st->inv) {
        jacobi_destroy(st);
        weft_fail(err, WEFT_ERR_NOMEM, "jacobi preconditioner: out of memory");
        return NULL;
    }
    st->n = n, st->threads = threads;
    return st;
}

static int jacobi_update(void *state, const weft_bsr *A, const weft_filter *f,
                         const double *positions, weft_error *err) {
    (void)positions;
    jacobi_state *st = state;
    for (int i = 0; i < A->n; i++) {
        double B[9];
        weft_filtered_diagonal(A, f, i, B);
        for (int a = 0; a < 3; a++) {
            if (!isfinite(B[4 * a]))
                return weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: Jacobi preconditioner: filtered "
                                 "diagonal block of vertex %d is not finite", i);
            if (!(B[4 * a] > 0.0))
                return weft_fail(err, WEFT_ERR_INDEFINITE, "ppcg: Jacobi preconditioner: "
                                 "filtered diagonal block of vertex %d is not positive definite",
                                 i);
            st->inv[3 * i + a] = 1.0 / B[4 * a];
        }
    }
    return WEFT_OK;
}

static void jacobi_apply(const void *state, const double *r, double *z) {
    const jacobi_state *st = state;
    const long n3 = 3 * (long)st->n;
#pragma omp parallel for num_threads(st->threads) schedule(static) if (st->threads > 1)
    for (long k = 0; k < n3; k++) z[k] = st->inv[k] * r[k];
}

const weft_precond_type weft_precond_jacobi = {
    .name = "jacobi",
    .paper = "Saad 2003, Iterative Methods for Sparse Linear Systems, §10.2",
    .summary = "inverse of the filtered matrix's diagonal",
    .create = jacobi_create,
    .update = jacobi_update,
    .apply = jacobi_apply,
    .destroy = jacobi_destroy,
};
