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
#include "cli.h"

#include "weft_solvers.h"

#include <errno.h>
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

typedef struct bench_row {
    const char *solver, *phase;
    int threads;
    bool self;
    double contacts, ms_step, ms_collide, ms_project;
} bench_row;

/* Builds drape_sphere at RES² vertices with self-collision on or off. */
static int build(const weft_cli *base, bool self, int threads, weft_model *m,
                 weft_config **cfg) {
    weft_cli cli = *base;
    char a[64], b[64];
    snprintf(a, sizeof a, "mesh.nx=%d", RES);
    snprintf(b, sizeof b, "mesh.ny=%d", RES);
    cli.set[cli.nset++] = a;
    cli.set[cli.nset++] = b;
    cli.set[cli.nset++] = "solver.iterations=10";
    cli.set[cli.nset++] = self ? "pbd.self_collision=true" : "pbd.self_collision=false";
    cli.threads = threads;
    cli.scene = "drape_sphere";
    weft_error err;
    if (weft_cli_build(&cli, m, cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* Steps m n times with solver s (a fresh state); -1 on an error. */
static int advance(const weft_solver_type *s, weft_model *m, weft_config *cfg, int n) {
    weft_error err;
    void *st = s->create(m, cfg, &err);
    int rc = st ? WEFT_OK : WEFT_ERR_INPUT;
    for (int i = 0; i < n && rc == WEFT_OK; i++) rc = s->step(st, m, NULL, &err);
    if (rc != WEFT_OK) fprintf(stderr, "error: %s: %s\n", s->name, err.msg);
    s->destroy(st);
    return rc == WEFT_OK ? 0 : -1;
}

/* Times `steps` steps of s from the state of `from` (same mesh), self-collision on or
 * off: best of REPEATS, each after WARMUP steps. */
static int time_solver(const weft_solver_type *s, const weft_cli *cli, const weft_model *from,
                       const char *phase, bool self, int threads, int steps, bench_row *row) {
    *row = (bench_row){s->name, phase, threads, self, 0.0, INFINITY, INFINITY, INFINITY};
    for (int r = 0; r < REPEATS; r++) {
        weft_model m;
        weft_config *cfg = NULL;
        if (build(cli, self, threads, &m, &cfg) != 0) return -1;
        size_t bytes = 3 * (size_t)m.n * sizeof *m.x;
        memcpy(m.x, from->x, bytes);
        memcpy(m.v, from->v, bytes);
        m.t = from->t;
        weft_error err;
        void *st = s->create(&m, cfg, &err);
        if (!st) {
            fprintf(stderr, "error: %s\n", err.msg);
            weft_model_free(&m);
            weft_config_free(&cfg);
            return -1;
        }
        int rc = WEFT_OK;
        for (int i = 0; i < WARMUP && rc == WEFT_OK; i++) rc = s->step(st, &m, NULL, &err);
        weft_pbd_timers t0, t1;
        weft_pbd_timers_get(st, &t0);
        double w0 = weft_now();
        for (int i = 0; i < steps && rc == WEFT_OK; i++) rc = s->step(st, &m, NULL, &err);
        double wall = weft_now() - w0;
        weft_pbd_timers_get(st, &t1);
        s->destroy(st);
        weft_model_free(&m);
        weft_config_free(&cfg);
        if (rc != WEFT_OK) {
            fprintf(stderr, "error: %s: %s\n", s->name, err.msg);
            return -1;
        }
        row->contacts = (double)(t1.self_contacts - t0.self_contacts) / steps;
        row->ms_step = fmin(row->ms_step, 1e3 * wall / steps);
        row->ms_collide = fmin(row->ms_collide, 1e3 * (t1.collide - t0.collide) / steps);
        row->ms_project = fmin(row->ms_project, 1e3 * (t1.project - t0.project) / steps);
    }
    return 0;
}

int main(int argc, char **argv) {
    weft_cli cli;
    weft_cli_parse(argc, argv, &cli, usage);
    int steps = cli.steps > 0 ? cli.steps : 10;
    if (cli.nset > 60) {
        fprintf(stderr, "error: too many --set options for bench_pbd_self\n");
        return 2;
    }
    if (weft_mkdirs(cli.out) != 0) return 1;
    char path[1100], tmp[1200];
    snprintf(path, sizeof path, "%s/bench_pbd_self.tsv", cli.out);
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
        return 1;
    }
    fprintf(f, "# bench_pbd_self: drape_sphere %dx%d, best of %d repeats of %d steps, 10 "
            "iterations, %d warm-up steps; draped = after %d steps\n",
            RES, RES, REPEATS, steps, WARMUP, DRAPE_STEPS);
    fprintf(f, "solver\tn\tthreads\tphase\tself_collision\tself_constraints_per_step\t"
            "ms_per_step\tcollide_ms_per_step\tproject_ms_per_step\n");
    printf("%-17s %4s %7s %8s %5s %12s %9s %11s %11s\n", "solver", "n", "threads", "phase",
           "self", "constraints", "ms/step", "collide ms", "project ms");
    const weft_solver_type *solvers[3] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi,
                                          &weft_pbd_jacobi};
    const int threads[3] = {1, 1, 2};
    int failed = 0;
    for (int k = 0; k < 3; k++) {
        /* The two starting states, reached by this solver with self-collision on. */
        weft_model start, draped;
        weft_config *cs = NULL, *cd = NULL;
        if (build(&cli, true, threads[k], &start, &cs) != 0) return 1;
        if (build(&cli, true, threads[k], &draped, &cd) != 0 ||
            advance(solvers[k], &draped, cd, DRAPE_STEPS) != 0)
            return 1;
        weft_config_free(&cs);
        weft_config_free(&cd);
        const weft_model *from[2] = {&start, &draped};
        const char *phase[2] = {"falling", "draped"};
        for (int ph = 0; ph < 2; ph++) {
            for (int self = 0; self <= 1; self++) {
                bench_row b;
                if (time_solver(solvers[k], &cli, from[ph], phase[ph], self, threads[k], steps,
                                &b) != 0) {
                    failed = 1;
                    continue;
                }
                fprintf(f, "%s\t%d\t%d\t%s\t%s\t%.1f\t%.4f\t%.4f\t%.4f\n", b.solver, RES,
                        b.threads, b.phase, b.self ? "true" : "false", b.contacts, b.ms_step,
                        b.ms_collide, b.ms_project);
                printf("%-17s %4d %7d %8s %5s %12.1f %9.3f %11.3f %11.3f\n", b.solver, RES,
                       b.threads, b.phase, b.self ? "on" : "off", b.contacts, b.ms_step,
                       b.ms_collide, b.ms_project);
                fflush(stdout);
            }
        }
        weft_model_free(&start);
        weft_model_free(&draped);
    }
    if (fclose(f) != 0 || failed || rename(tmp, path) != 0) {
        fprintf(stderr, "error: %s: not complete\n", path);
        return 1;
    }
    printf("\nwrote %s\n", path);
    return 0;
}
