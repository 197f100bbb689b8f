/* linear_cholmod.c — SuiteSparse CHOLMOD's sparse Cholesky factorisation of the filtered
 * matrix K = S A S + (I − S) as a linear-solver plug-in (weft_cholmod_solver_solve in
 * linsolve.c does the work): the symbolic analysis (fill-reducing ordering) once per
 * sparsity pattern, a numeric factorisation and two triangular solves per system. It
 * reports the true relative residual of each solve, and the ordering when it analysed.
 * factor / solve_factored split a solve for a matrix reused over many right-hand sides
 * (Projective Dynamics): one factorisation, then two triangular solves per system;
 * factor_scalar / solve_scalar do the same for a matrix S ⊗ I₃ on the n×n scalar S
 * (cholmod_scalar.c), its three coordinates in one solve. */
#include "weft_linsolve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct chol_state {
    weft_cholmod_solver *chol;
    weft_cholmod_scalar *scalar; /* created by the first factor_scalar */
    int n, threads;
    double *w, *q; /* 3n scratch for the residual */
    weft_linear_stats stats;
} chol_state;

static void chol_destroy(void *state) {
    chol_state *st = state;
    if (!st) return;
    weft_cholmod_solver_free(&st->chol);
    weft_cholmod_scalar_free(&st->scalar);
    free(st->w), free(st->q);
    free(st);
}

static void *chol_create(int n, weft_config *cfg, int threads, weft_error *err) {
    (void)cfg; /* no settings of its own */
    chol_state *st = calloc(1, sizeof *st);
    size_t n3 = 3 * (size_t)(n > 0 ? n : 1);
    if (st) st->w = malloc(n3 * sizeof *st->w), st->q = malloc(n3 * sizeof *st->q);
    if (!st || !st->w || !st->q) {
        chol_destroy(st);
        weft_fail(err, WEFT_ERR_NOMEM, "cholmod: out of memory");
        return NULL;
    }
    st->n = n, st->threads = threads;
    if (!(st->chol = weft_cholmod_solver_create(err))) {
        chol_destroy(st);
        return NULL;
    }
    /* Debian's CHOLMOD parallelises some loops with OpenMP at the default team size (every
     * core) and its supernodal BLAS with OpenBLAS's pool: give both the solver's threads,
     * during its calls only (the process's settings are restored after each). */
    weft_cholmod_solver_set_threads(st->chol, threads);
    return st;
}

/* ‖S (b − A x)‖ / ‖S (b − A z)‖. */
static double filtered_residual(chol_state *st, const weft_bsr *A, const weft_filter *f,
                                const double *b, const double *x) {
    size_t n3 = 3 * (size_t)st->n;
    weft_bsr_spmv(A, x, st->w, st->threads);
    weft_bsr_spmv(A, f->z, st->q, st->threads);
    for (size_t i = 0; i < n3; i++) st->w[i] = b[i] - st->w[i], st->q[i] = b[i] - st->q[i];
    weft_filter_apply(f, st->w, st->w);
    weft_filter_apply(f, st->q, st->q);
    double r = 0.0, r0 = 0.0;
    for (size_t i = 0; i < n3; i++) r += st->w[i] * st->w[i], r0 += st->q[i] * st->q[i];
    return r0 > 0.0 ? sqrt(r) / sqrt(r0) : sqrt(r);
}

static weft_solve_status chol_solve(void *state, const weft_bsr *A, const weft_filter *f,
                                    const double *b, double *x, const double *positions,
                                    weft_linear_progress progress, void *user, int *iterations,
                                    weft_error *err) {
    (void)positions; /* a direct solve needs no near-null space */
    chol_state *st = state;
    int before = weft_cholmod_solver_analyses(st->chol);
    weft_solve_status s = weft_cholmod_solver_solve(st->chol, A, f, b, x, err);
    if (iterations) *iterations = 0;
    st->stats.solves++;
    if (progress) {
        double rel = s == WEFT_SOLVE_CONVERGED ? filtered_residual(st, A, f, b, x) : NAN;
        char word[64]; /* a solve that also analysed the pattern names CHOLMOD's ordering */
        if (s == WEFT_SOLVE_CONVERGED && weft_cholmod_solver_analyses(st->chol) > before)
            snprintf(word, sizeof word, "analysed:%s", weft_cholmod_solver_ordering(st->chol));
        else
            snprintf(word, sizeof word, "%s", weft_solve_status_name(s));
        progress(1, rel, word, user);
    }
    return s;
}

static weft_solve_status chol_factor(void *state, const weft_bsr *A, const weft_filter *f,
                                     weft_error *err) {
    chol_state *st = state;
    return weft_cholmod_solver_factor(st->chol, A, f, err);
}

static weft_solve_status chol_solve_factored(void *state, const weft_bsr *A, const weft_filter *f,
                                             const double *b, double *x, weft_error *err) {
    chol_state *st = state;
    st->stats.solves++;
    return weft_cholmod_solver_apply(st->chol, A, f, b, x, err);
}

static weft_solve_status chol_factor_scalar(void *state, const weft_bsr *A,
                                            const weft_filter *f, weft_error *err) {
    chol_state *st = state;
    if (!st->scalar && !(st->scalar = weft_cholmod_scalar_create(err))) return WEFT_SOLVE_NOMEM;
    double t0 = weft_now();
    weft_solve_status s = weft_cholmod_scalar_factor(st->scalar, A, f, err);
    st->stats.factor_s += weft_now() - t0;
    return s;
}

static weft_solve_status chol_solve_scalar(void *state, const weft_bsr *A, const weft_filter *f,
                                           const double *b, double *x, weft_error *err) {
    chol_state *st = state;
    st->stats.solves++;
    if (!st->scalar && !(st->scalar = weft_cholmod_scalar_create(err))) return WEFT_SOLVE_NOMEM;
    double t0 = weft_now();
    weft_solve_status s = weft_cholmod_scalar_apply(st->scalar, A, f, b, x, err);
    st->stats.solve_s += weft_now() - t0;
    return s;
}

static void chol_stats(const void *state, weft_linear_stats *out) {
    const chol_state *st = state;
    *out = st->stats;
    weft_cholmod_timings total;
    weft_cholmod_solver_timings(st->chol, NULL, &total);
    out->setups = weft_cholmod_solver_analyses(st->chol);
    out->factorisations = weft_cholmod_solver_factorisations(st->chol);
    out->ordering = weft_cholmod_solver_ordering(st->chol);
    out->setup_s = total.analyse_s;
    out->factor_s = total.factor_s;
    out->solve_s = total.solve_s;
    if (st->scalar) { /* the scalar path's factor and solve times are in st->stats */
        out->setups += weft_cholmod_scalar_analyses(st->scalar);
        out->factorisations += weft_cholmod_scalar_factorisations(st->scalar);
        if (weft_cholmod_scalar_analyses(st->scalar) > 0)
            out->ordering = weft_cholmod_scalar_ordering(st->scalar);
        out->factor_s += st->stats.factor_s;
        out->solve_s += st->stats.solve_s;
    }
}

const weft_linear_type weft_linear_cholmod = {
    .name = "cholmod",
    .paper = "Chen, Davis, Hager & Rajamanickam 2008 (CHOLMOD)",
    .summary = "sparse Cholesky of the filtered matrix: analysis once per pattern",
    .create = chol_create,
    .solve = chol_solve,
    .factor = chol_factor,
    .solve_factored = chol_solve_factored,
    .stats = chol_stats,
    .destroy = chol_destroy,
    .factor_scalar = chol_factor_scalar,
    .solve_scalar = chol_solve_scalar,
};
