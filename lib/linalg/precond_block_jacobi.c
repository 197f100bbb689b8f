/* precond_block_jacobi.c — block-Jacobi preconditioner of PPCG, one 3×3 block per vertex:
 *     M_i = S_i D_i S_i + (I − S_i),   D_i = A's diagonal block of vertex i,
 * which is SPD when D_i is SPD on range(S_i) and maps range(S_i) into itself, so PCG stays
 * on the filtered subspace (Tamstorf, Jones & McCormick 2015 use it as their baseline).
 * The blocks are inverted by Cholesky when the matrix's values change. */
#include "linalg_internal.h"

#include <stdlib.h>

typedef struct block_state {
    int n, threads;
    double *inv; /* 9n: M_i⁻¹, row-major */
} block_state;

static void block_destroy(void *state) {
    block_state *st = state;
    if (st) free(st->inv);
    free(st);
}

static void *block_create(int n, const void *settings, int threads, weft_error *err) {
    (void)settings;
    block_state *st = calloc(1, sizeof *st);
    if (st) st->inv = malloc(9 * (size_t)(n > 0 ? n : 1) * sizeof *st->inv);
    if (!st || !st->inv) {
        block_destroy(st);
        weft_fail(err, WEFT_ERR_NOMEM, "block_jacobi preconditioner: out of memory");
        return NULL;
    }
    st->n = n, st->threads = threads;
    return st;
}

static int block_update(void *state, const weft_bsr *A, const weft_filter *f,
                        const double *positions, weft_error *err) {
    (void)positions;
    block_state *st = state;
    for (int i = 0; i < A->n; i++) {
        double B[9];
        weft_filtered_diagonal(A, f, i, B);
        if (!weft_inv_spd33(B, &st->inv[9 * (size_t)i]))
            return weft_fail(err, WEFT_ERR_INDEFINITE, "ppcg: block-Jacobi preconditioner: "
                             "filtered diagonal block of vertex %d is not positive definite", i);
    }
    return WEFT_OK;
}

static void block_apply(const void *state, const double *r, double *z) {
    const block_state *st = state;
#pragma omp parallel for num_threads(st->threads) schedule(static) if (st->threads > 1)
    for (int i = 0; i < st->n; i++) {
        const double *Mi = &st->inv[9 * (size_t)i], *ri = &r[3 * (size_t)i];
        for (int a = 0; a < 3; a++)
            z[3 * i + a] = Mi[3 * a] * ri[0] + Mi[3 * a + 1] * ri[1] + Mi[3 * a + 2] * ri[2];
    }
}

const weft_precond_type weft_precond_block_jacobi = {
    .name = "block_jacobi",
    .paper = "Tamstorf, Jones & McCormick 2015 (the baseline of their comparison)",
    .summary = "inverse 3x3 diagonal blocks of the filtered matrix",
    .create = block_create,
    .update = block_update,
    .apply = block_apply,
    .destroy = block_destroy,
};
