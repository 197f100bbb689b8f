/* bench_pbd_self.c — cost of PBD self-collision (Müller et al. 2006 §4.3, solvers/
 * pbd_self.c): ms per step of pbd_gauss_seidel and pbd_jacobi (1 and 2 threads) with
 * and without [pbd] self_collision on drape_sphere's cloth at 64² vertices, in two
 * phases: "falling" (the first steps, nothing near itself: the cost of detection alone)
 * and "draped" (after 60 steps on the sphere, the sides folded onto themselves: the
 * cost with constraints). Both runs of a phase start from the same state, reached with
 * self-collision on; 10 iterations, no metrics. Also the stage times of the step
 * (line 8, collision constraint generation, and lines 9–11, projection) and the
 * self-collision constraints per step. Best of 3 repeats after 3 warm-up steps.
 * Writes <out>/bench_pbd_self.tsv (renamed into place when complete). */
#include "bench.h"

#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: bench_pbd_self [--out DIR] [--steps N] [--set SECTION.KEY=VAL]...\n"
    "Times pbd_gauss_seidel and pbd_jacobi (1 and 2 threads) with and without\n"
    "pbd.self_collision on drape_sphere at 64^2 vertices, falling and draped;\n"
    "writes DIR/bench_pbd_self.tsv (default results/).\n"
    "  --steps N   timed steps per repeat (default 10; 3 repeats, best kept)\n";

enum { RES = 64, REPEATS = 3, WARMUP = 3, DRAPE_STEPS = 60 };

static const weft_bench_column columns[] = {
    {"solver", "%s", "solver", "%-17s"},
    {"n", "%ld", "n", " %4ld"},
    {"threads", "%ld", "threads", " %7ld"},
    {"phase", "%s", "phase", " %8s"},
    {"self_collision", "%s", NULL, NULL},
    {NULL, NULL, "self", " %5s"},
    {"self_constraints_per_step", "%.1f", "constraints", " %12.1f"},
    {"ms_per_step", "%.4f", "ms/step", " %9.3f"},
    {"collide_ms_per_step", "%.4f", "collide ms", " %11.3f"},
    {"project_ms_per_step", "%.4f", "project ms", " %11.3f"},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

/* Builds drape_sphere at RES² vertices with self-collision on or off, and its config into
 * *cfg (cfg may be NULL). */
static int build(const weft_cli *base, bool self, int threads, weft_model *m,
                 weft_config **cfg) {
    const char *sets[] = {"solver.iterations=10",
                          self ? "pbd.self_collision=true" : "pbd.self_collision=false", NULL};
    weft_error err;
    if (weft_bench_build(base, "drape_sphere", RES, sets, threads, m, cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* Steps m n times with solver s (a fresh state with cfg's settings); -1 on an error. */
static int advance(const weft_solver_type *s, weft_model *m, weft_config *cfg, int n) {
    weft_error err;
    weft_bench_steps run;
    int rc = weft_bench_solver_steps(s, m, cfg, n, 0, &run, &err);
    if (rc != WEFT_OK)
        fprintf(stderr, "error: %s: %s\n", s->name, weft_cli_unprefixed(err.msg, s->name));
    return rc == WEFT_OK ? 0 : -1;
}

/* One configuration: solver, threads, self-collision, and the state it starts from. */
typedef struct self_case {
    const weft_solver_type *solver;
    const weft_cli *cli;
    const weft_model *from;
    int threads, steps;
    bool self;
} self_case;

/* One repeat (a weft_bench_fn): `steps` steps of a fresh state from c->from (same mesh)
 * after WARMUP untimed steps. Figures per step, from the solver's profile: self-collision
 * constraints, ms (wall), ms in line 8 ("collide") and lines 9-11 ("project"). */
static int time_steps(void *user, double *out) {
    const self_case *c = user;
    const weft_solver_type *s = c->solver;
    weft_model m;
    weft_config *cfg = NULL;
    if (build(c->cli, c->self, c->threads, &m, &cfg) != 0) return WEFT_BENCH_FAIL;
    size_t bytes = 3 * (size_t)m.n * sizeof *m.x;
    memcpy(m.x, c->from->x, bytes);
    memcpy(m.v, c->from->v, bytes);
    m.t = c->from->t;
    weft_error err;
    weft_bench_steps run;
    int rc = weft_bench_solver_steps(s, &m, cfg, WARMUP, c->steps, &run, &err);
    weft_model_free(&m);
    weft_config_free(&cfg);
    if (rc != WEFT_OK) {
        fprintf(stderr, "error: %s: %s\n", s->name, weft_cli_unprefixed(err.msg, s->name));
        return WEFT_BENCH_FAIL;
    }
    out[0] = weft_profile_value(&run.prof, "self_contacts") / c->steps;
    out[1] = 1e3 * run.wall_s / c->steps;
    out[2] = 1e3 * weft_profile_value(&run.prof, "collide") / c->steps;
    out[3] = 1e3 * weft_profile_value(&run.prof, "project") / c->steps;
    return WEFT_BENCH_MORE;
}

int main(int argc, char **argv) {
    weft_cli cli;
    weft_bench_parse(argc, argv, &cli, usage, 4);
    int steps = cli.steps > 0 ? cli.steps : 10;
    weft_bench_table t;
    if (weft_bench_open(&t, cli.out, "bench_pbd_self.tsv", columns, NCOLUMNS) != 0) return 1;
    weft_bench_comment(&t, "bench_pbd_self: drape_sphere %dx%d, best of %d repeats of %d steps, "
                       "10 iterations, %d warm-up steps; draped = after %d steps",
                       RES, RES, REPEATS, steps, WARMUP, DRAPE_STEPS);
    weft_bench_header(&t);
    const weft_solver_type *solvers[3] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi,
                                          &weft_pbd_jacobi};
    const int threads[3] = {1, 1, 2};
    int failed = 0;
    for (int k = 0; k < 3; k++) {
        /* The two starting states, reached by this solver with self-collision on. */
        weft_model start, draped;
        weft_config *cfg = NULL;
        if (build(&cli, true, threads[k], &start, NULL) != 0)
            return weft_bench_close(&t, "set-up");
        int rc = build(&cli, true, threads[k], &draped, &cfg);
        if (rc == 0) rc = advance(solvers[k], &draped, cfg, DRAPE_STEPS);
        weft_config_free(&cfg);
        if (rc != 0) return weft_bench_close(&t, "set-up");
        const weft_model *from[2] = {&start, &draped};
        const char *phase[2] = {"falling", "draped"};
        for (int ph = 0; ph < 2; ph++) {
            for (int self = 0; self <= 1; self++) {
                self_case c = {solvers[k], &cli, from[ph], threads[k], steps, self};
                weft_bench_stats st;
                weft_bench_plan plan = weft_bench_repeats(0, REPEATS);
                if (weft_bench_measure(&plan, 4, time_steps, &c, &st) != 0) {
                    failed = 1;
                    continue;
                }
                weft_bench_value row[NCOLUMNS] = {
                    weft_bench_text(solvers[k]->name), weft_bench_int(RES),
                    weft_bench_int(threads[k]), weft_bench_text(phase[ph]),
                    weft_bench_text(self ? "true" : "false"), weft_bench_text(self ? "on" : "off"),
                    weft_bench_num(st.last[0]), weft_bench_num(st.min[1]),
                    weft_bench_num(st.min[2]), weft_bench_num(st.min[3])};
                weft_bench_row(&t, row);
            }
        }
        weft_model_free(&start);
        weft_model_free(&draped);
    }
    return weft_bench_close(&t, failed ? "a case failed" : NULL);
}
