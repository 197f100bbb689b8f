/* bench_pbd.c — cost of PBD constraint projection: ns per projection and ms per step
 * for Gauss-Seidel and Jacobi PBD on grid cloths of 64², 128² and 256² vertices
 * (10 iterations, metrics logging off so only the solver is timed), for stretch +
 * dihedral bending and for stretch alone, with 1 thread and (Jacobi) 2 threads.
 * A plain per-edge distance loop is measured in the same run as a yardstick.
 * Each figure is the best of several repeats after warm-up steps.
 * Writes <out>/bench_pbd.tsv (renamed into place when complete). */
#include "bench.h"

#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: bench_pbd [--out DIR] [--steps N] [--set SECTION.KEY=VAL]...\n"
    "Times pbd_gauss_seidel and pbd_jacobi on hanging-cloth grids of 64^2, 128^2, 256^2\n"
    "vertices (10 iterations; stretch+bending and stretch only; 1 and 2 threads) and a\n"
    "plain distance loop; writes DIR/bench_pbd.tsv (default results/).\n"
    "  --steps N   timed steps per repeat (default 10; 3 repeats, best kept)\n";

enum { REPEATS = 3, WARMUP = 3 };

static const weft_bench_column columns[] = {
    {"solver", "%s", "solver", "%-22s"},
    {"n", "%ld", "n", " %6ld"},
    {"threads", "%ld", "threads", " %8ld"},
    {"constraints", "%ld", "constraints", " %12ld"},
    {"ns_per_projection", "%.3f", "ns/projection", " %18.2f"},
    {"ms_per_step", "%.4f", "ms/step", " %12.3f"},
    {"constraint_set", "%s", "constraints", "  %s"},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

/* One solver configuration to time. */
typedef struct pbd_case {
    const weft_solver_type *solver;
    const weft_cli *cli;
    int res, threads, steps;
    bool bending;
} pbd_case;

/* Builds the hanging cloth at res × res vertices, 10 iterations, with or without bending,
 * and its config into *cfg (cfg may be NULL). */
static int build(const weft_cli *cli, int res, bool bending, int threads, weft_model *m,
                 weft_config **cfg) {
    const char *sets[] = {bending ? "pbd.k_bending=0.1" : "pbd.k_bending=0",
                          "solver.iterations=10", NULL};
    weft_error err;
    if (weft_bench_build(cli, "hanging_cloth", res, sets, threads, m, cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* One repeat (a weft_bench_fn): a fresh model and solver state, WARMUP untimed steps,
 * then `steps` timed ones. Figures: ns per projection (the solver's "project" timer over
 * its "projections" counter), ms per step (wall), constraints projected per iteration. */
static int time_steps(void *user, double *out) {
    const pbd_case *c = user;
    const weft_solver_type *s = c->solver;
    weft_model m;
    weft_config *cfg = NULL;
    if (build(c->cli, c->res, c->bending, c->threads, &m, &cfg) != 0) return WEFT_BENCH_FAIL;
    weft_error err;
    weft_bench_steps run;
    int rc = weft_bench_solver_steps(s, &m, cfg, WARMUP, c->steps, &run, &err);
    double proj = weft_profile_value(&run.prof, "projections");
    out[0] = proj > 0 ? 1e9 * weft_profile_value(&run.prof, "project") / proj : NAN;
    out[1] = 1e3 * run.wall_s / c->steps;
    out[2] = proj / ((double)c->steps * weft_solver_iterations(s, cfg));
    weft_model_free(&m);
    weft_config_free(&cfg);
    if (rc != WEFT_OK) {
        fprintf(stderr, "error: %s: %s\n", s->name, weft_cli_unprefixed(err.msg, s->name));
        return WEFT_BENCH_FAIL;
    }
    return WEFT_BENCH_MORE;
}

/* Times one solver configuration (best of REPEATS) and writes its row; -1 on failure. */
static int bench_solver(weft_bench_table *t, const pbd_case *c) {
    weft_bench_stats st;
    weft_bench_plan plan = weft_bench_repeats(0, REPEATS);
    if (weft_bench_measure(&plan, 3, time_steps, (void *)c, &st) != 0) return -1;
    weft_bench_value row[NCOLUMNS] = {
        weft_bench_text(c->solver->name), weft_bench_int(c->res), weft_bench_int(c->threads),
        weft_bench_int((long)st.last[2]), weft_bench_num(st.min[0]), weft_bench_num(st.min[1]),
        weft_bench_text(c->bending ? "stretch+bending" : "stretch")};
    weft_bench_row(t, row);
    return 0;
}

/* The yardstick: a plain loop over edges {a, b, rest} projecting distance constraints
 * on a flat position array, as a first PBD implementation would write it. */
typedef struct plain_loop {
    const weft_model *m;
    double *x;
    int sweeps;
} plain_loop;

/* One repeat of the plain loop (a weft_bench_fn): figure ns per projection. */
static int time_plain_loop(void *user, double *out) {
    plain_loop *pl = user;
    const weft_model *m = pl->m;
    const weft_term *t = &m->terms[m->stretch_term];
    double *x = pl->x;
    double w0 = weft_now();
    for (int s = 0; s < pl->sweeps; s++) {
        for (int e = 0; e < t->n; e++) {
            const weft_element *el = &t->elem[e];
            int a = el->v[0], b = el->v[1];
            double wa = m->w[a], wb = m->w[b];
            double d[3] = {x[3 * a] - x[3 * b], x[3 * a + 1] - x[3 * b + 1],
                           x[3 * a + 2] - x[3 * b + 2]};
            double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (wa + wb == 0.0 || l == 0.0) continue;
            double sc = (l - el->rest[0]) / ((wa + wb) * l);
            for (int k = 0; k < 3; k++) {
                x[3 * a + k] -= wa * sc * d[k];
                x[3 * b + k] += wb * sc * d[k];
            }
        }
    }
    out[0] = 1e9 * (weft_now() - w0) / ((double)pl->sweeps * t->n);
    return WEFT_BENCH_MORE;
}

/* Times the plain loop at res² (10 sweeps per step, as the solvers' 10 iterations) and
 * writes its row; -1 on failure. */
static int bench_plain_loop(weft_bench_table *t, const weft_cli *cli, int res, int steps) {
    weft_model m;
    if (build(cli, res, false, 1, &m, NULL) != 0) return -1;
    int ne = m.terms[m.stretch_term].n;
    double *x = malloc(3 * (size_t)m.n * sizeof *x);
    if (!x) {
        weft_model_free(&m);
        return -1;
    }
    memcpy(x, m.x, 3 * (size_t)m.n * sizeof *x);
    for (int i = 0; i < 3 * m.n; i++) x[i] *= 1.01; /* stretched: every projection works */
    plain_loop pl = {&m, x, steps * 10};
    weft_bench_stats st;
    weft_bench_plan plan = weft_bench_repeats(0, REPEATS);
    int rc = weft_bench_measure(&plan, 1, time_plain_loop, &pl, &st);
    if (rc == 0) {
        double ns = st.min[0];
        weft_bench_value row[NCOLUMNS] = {
            weft_bench_text("plain_distance_loop"), weft_bench_int(res), weft_bench_int(1),
            weft_bench_int(ne), weft_bench_num(ns), weft_bench_num(ns * ne * 10 * 1e-6),
            weft_bench_text("stretch")};
        weft_bench_row(t, row);
    }
    free(x);
    weft_model_free(&m);
    return rc;
}

int main(int argc, char **argv) {
    weft_cli cli;
    weft_bench_parse(argc, argv, &cli, usage, 4);
    int steps = cli.steps > 0 ? cli.steps : 10;
    weft_bench_table t;
    if (weft_bench_open(&t, cli.out, "bench_pbd.tsv", columns, NCOLUMNS) != 0) return 1;
    weft_bench_comment(&t, "bench_pbd: best of %d repeats of %d steps, 10 iterations, %d "
                       "warm-up steps", REPEATS, steps, WARMUP);
    weft_bench_header(&t);
    static const int sizes[] = {64, 128, 256};
    int failed = 0;
    for (int si = 0; si < 3; si++) {
        int res = sizes[si];
        for (int bend = 1; bend >= 0; bend--) {
            const pbd_case cases[] = {{&weft_pbd_gauss_seidel, &cli, res, 1, steps, bend},
                                      {&weft_pbd_jacobi, &cli, res, 1, steps, bend},
                                      {&weft_pbd_jacobi, &cli, res, 2, steps, bend}};
            for (int k = 0; k < 3; k++)
                if (bench_solver(&t, &cases[k]) != 0) failed = 1;
        }
        if (bench_plain_loop(&t, &cli, res, steps) != 0) failed = 1;
    }
    return weft_bench_close(&t, failed ? "a case failed" : NULL);
}
