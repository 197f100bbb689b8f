/* precond_none.c — PPCG without a preconditioner, M = I: z = r. The baseline the others
 * are measured against (plain CG on the filtered system). */
#include "weft_linsolve.h"

#include <stdlib.h>
#include <string.h>

typedef struct none_state {
    int n;
} none_state;

static void *none_create(int n, const void *settings, int threads, weft_error *err) {
    (void)settings, (void)threads; /* a copy has nothing to share out */
    none_state *st = malloc(sizeof *st);
    if (!st) weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    if (st) st->n = n;
    return st;
}

static int none_update(void *state, const weft_bsr *A, const weft_filter *f,
                       const double *positions, weft_error *err) {
    (void)positions;
    (void)state, (void)A, (void)f, (void)err;
    return WEFT_OK;
}

static void none_apply(const void *state, const double *r, double *z) {
    const none_state *st = state;
    memcpy(z, r, 3 * (size_t)st->n * sizeof *z);
}

const weft_precond_type weft_precond_none = {
    .name = "none",
    .paper = "Hestenes & Stiefel 1952 (plain CG)",
    .summary = "no preconditioner, M = I",
    .create = none_create,
    .update = none_update,
    .apply = none_apply,
    .destroy = free,
};
