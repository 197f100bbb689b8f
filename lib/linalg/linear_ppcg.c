/* linear_ppcg.c — PPCG (Tamstorf, Jones & McCormick 2015; Kim & Eberle 2020 §9.1.1) as a
 * linear-solver plug-in: preconditioned CG on K y = S c, K = S A S + (I − S), with a
 * registered preconditioner (weft_precond_registry) that is set up once per sparsity
 * pattern and refreshed per matrix (weft_ppcg_solve, linsolve.c has the iteration).
 * Settings: [ppcg] tolerance, iterations, preconditioner. */
#include "weft_linsolve.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#define F(field) offsetof(weft_ppcg_settings, field)
static const weft_param ppcg_params[] = {
    {.key = "tolerance", .type = WEFT_PARAM_DOUBLE, .offset = F(tolerance), .unit = "1", .lo = 0,
     .hi = 1, .flags = WEFT_PARAM_LO_OPEN, .dflt = 1e-8,
     .doc = "stop at |S c - K y| <= tolerance |S c| (true residual)"},
    {.key = "iterations", .type = WEFT_PARAM_INT, .offset = F(iterations), .unit = "", .lo = 1,
     .hi = 100000000, .dflt = 1000, .doc = "iteration cap"},
    {.key = "preconditioner", .type = WEFT_PARAM_NAME, .offset = F(preconditioner), .unit = "",
     .name_at = weft_precond_name_at, .dflt_name = "block_jacobi", .doc = "a registered preconditioner"},
    {0},
};
#undef F

static const weft_param_table ppcg_tables[] = {{"ppcg", ppcg_params, 0}, {0}};

typedef struct ppcg_state {
    weft_ppcg *pcg;
    weft_ppcg_settings set;
    const weft_precond_type *precond;
    void *precond_settings; /* its settings struct (NULL when it has none) */
    int threads;
    weft_linear_stats stats;
} ppcg_state;

static void ppcg_destroy(void *state) {
    ppcg_state *st = state;
    if (!st) return;
    weft_ppcg_free(&st->pcg);
    free(st->precond_settings);
    free(st);
}

static void *ppcg_create(int n, weft_config *cfg, int threads, weft_error *err) {
    ppcg_state *st = calloc(1, sizeof *st);
    if (!st) {
        weft_fail(err, WEFT_ERR_NOMEM, "ppcg: out of memory");
        return NULL;
    }
    weft_config_settings(cfg, ppcg_tables, &st->set);
    st->threads = threads;
    st->precond = weft_precond_registry[st->set.preconditioner];
    if (st->precond->settings_size) {
        st->precond_settings = calloc(1, st->precond->settings_size);
        if (!st->precond_settings) {
            ppcg_destroy(st);
            weft_fail(err, WEFT_ERR_NOMEM, "ppcg: out of memory");
            return NULL;
        }
        weft_config_settings(cfg, st->precond->settings, st->precond_settings);
    }
    if (!(st->pcg = weft_ppcg_create(n, err))) {
        ppcg_destroy(st);
        return NULL;
    }
    st->stats.ordering = "none";
    return st;
}

/* Forwards PCG's per-iteration residual as progress. */
typedef struct relay {
    weft_linear_progress progress;
    void *user;
} relay;

static void relay_iteration(int iter, double rel, void *user) {
    const relay *r = user;
    if (r->progress) r->progress(iter, rel, "ok", r->user);
}

static weft_solve_status ppcg_solve(void *state, const weft_bsr *A, const weft_filter *f,
                                    const double *b, double *x, const double *positions,
                                    weft_linear_progress progress, void *user, int *iterations,
                                    weft_error *err) {
    ppcg_state *st = state;
    double t0 = weft_now();
    relay r = {progress, user};
    weft_ppcg_options o = weft_ppcg_defaults();
    o.precond = st->precond;
    o.precond_settings = st->precond_settings;
    o.tol = st->set.tolerance;
    o.max_iter = st->set.iterations;
    o.threads = st->threads;
    o.positions = positions;
    o.callback = relay_iteration;
    o.user = &r;
    int it = 0;
    weft_solve_status s = weft_ppcg_solve(st->pcg, A, f, b, x, &o, &it, err);
    if (s == WEFT_SOLVE_MAX_ITER && progress) progress(it, NAN, "cap", user);
    if (iterations) *iterations = it;
    st->stats.solves++;
    st->stats.iterations += it;
    st->stats.setups = weft_ppcg_setups(st->pcg);
    st->stats.solve_s += weft_now() - t0;
    return s;
}

static void ppcg_stats(const void *state, weft_linear_stats *out) {
    *out = ((const ppcg_state *)state)->stats;
}

const weft_linear_type weft_linear_ppcg = {
    .name = "ppcg",
    .paper = "Tamstorf, Jones & McCormick 2015 (pre-filtered PCG)",
    .summary = "preconditioned CG on the filtered system, to a relative residual",
    .settings_size = sizeof(weft_ppcg_settings),
    .settings = ppcg_tables,
    .create = ppcg_create,
    .solve = ppcg_solve,
    .stats = ppcg_stats,
    .destroy = ppcg_destroy,
};
