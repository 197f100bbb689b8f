/* bench_pbd.c — cost of PBD constraint projection: ns per projection and ms per step
 * for Gauss-Seidel and Jacobi PBD on grid cloths of 64², 128² and 256² vertices
 * (10 iterations, metrics logging off so only the solver is timed), for stretch +
 * dihedral bending and for stretch alone, with 1 thread and (Jacobi) 2 threads.
 * A plain per-edge distance loop is measured in the same run as a yardstick.
 * Each figure is the best of several repeats after warm-up steps.
 * Writes <out>/bench_pbd.tsv (renamed into place when complete). */
#include "cli.h"

#include "weft_solvers.h"

#include <errno.h>
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

typedef struct bench_row {
    const char *solver;
    int n, threads, constraints;
    double ns_per_projection, ms_per_step;
    const char *set;
} bench_row;

/* Builds the hanging cloth at res × res vertices with the given overrides. */
static int build(const weft_cli *base, int res, bool bending, int threads, weft_model *m,
                 weft_config **cfg) {
    weft_cli cli = *base;
    char a[64], b[64], c[64];
    snprintf(a, sizeof a, "mesh.nx=%d", res);
    snprintf(b, sizeof b, "mesh.ny=%d", res);
    snprintf(c, sizeof c, "pbd.k_bending=%s", bending ? "0.1" : "0");
    cli.set[cli.nset++] = a;
    cli.set[cli.nset++] = b;
    cli.set[cli.nset++] = c;
    cli.set[cli.nset++] = "solver.iterations=10";
    cli.threads = threads;
    cli.scene = "hanging_cloth";
    weft_error err;
    if (weft_cli_build(&cli, m, cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* Times one solver: best of REPEATS runs of `steps` steps each. */
static int time_solver(const weft_solver_type *s, const weft_cli *cli, int res, bool bending,
                       int threads, int steps, bench_row *row) {
    double best_ns = INFINITY, best_ms = INFINITY;
    int constraints = 0;
    for (int r = 0; r < REPEATS; r++) {
        weft_model m;
        weft_config *cfg = NULL;
        if (build(cli, res, bending, threads, &m, &cfg) != 0) return -1;
        weft_error err;
        void *st = s->create(&m, cfg, &err);
        if (!st) {
            fprintf(stderr, "error: %s\n", err.msg);
            weft_model_free(&m);
            weft_config_free(&cfg);
            return -1;
        }
        for (int i = 0; i < WARMUP; i++) s->step(st, &m, NULL, &err);
        weft_pbd_timers t0, t1;
        weft_pbd_timers_get(st, &t0);
        double w0 = weft_now();
        for (int i = 0; i < steps; i++) s->step(st, &m, NULL, &err);
        double wall = weft_now() - w0;
        weft_pbd_timers_get(st, &t1);
        long proj = t1.projections - t0.projections;
        double ns = proj > 0 ? 1e9 * (t1.project - t0.project) / (double)proj : NAN;
        if (ns < best_ns) best_ns = ns;
        if (1e3 * wall / steps < best_ms) best_ms = 1e3 * wall / steps;
        constraints = (int)(proj / ((long)steps * weft_cli_setting(cfg, "solver", "iterations", 1)));
        s->destroy(st);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    *row = (bench_row){s->name, res, threads, constraints, best_ns, best_ms,
                       bending ? "stretch+bending" : "stretch"};
    return 0;
}

/* The yardstick: a plain loop over edges {a, b, rest} projecting distance constraints
 * on a flat position array, as a first PBD implementation would write it. */
static void time_plain_loop(const weft_cli *cli, int res, int steps, bench_row *row) {
    weft_model m;
    weft_config *cfg = NULL;
    if (build(cli, res, false, 1, &m, &cfg) != 0) return;
    const weft_term *t = &m.terms[m.stretch_term];
    int ne = t->n;
    double *x = malloc(3 * (size_t)m.n * sizeof *x);
    memcpy(x, m.x, 3 * (size_t)m.n * sizeof *x);
    for (int i = 0; i < 3 * m.n; i++) x[i] *= 1.01; /* stretched: every projection works */
    double best = INFINITY;
    for (int r = 0; r < REPEATS; r++) {
        double w0 = weft_now();
        for (int s = 0; s < steps * 10; s++) {
            for (int e = 0; e < ne; e++) {
                const weft_element *el = &t->elem[e];
                int a = el->v[0], b = el->v[1];
                double wa = m.w[a], wb = m.w[b];
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
        double ns = 1e9 * (weft_now() - w0) / ((double)steps * 10 * ne);
        if (ns < best) best = ns;
    }
    *row = (bench_row){"plain_distance_loop", res, 1, ne, best, best * ne * 10 * 1e-6, "stretch"};
    free(x);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

int main(int argc, char **argv) {
    weft_cli cli;
    weft_cli_parse(argc, argv, &cli, usage);
    int steps = cli.steps > 0 ? cli.steps : 10;
    if (cli.nset > 60) {
        fprintf(stderr, "error: too many --set options for bench_pbd\n");
        return 2;
    }
    if (weft_mkdirs(cli.out) != 0) return 1;
    char path[1100], tmp[1200];
    snprintf(path, sizeof path, "%s/bench_pbd.tsv", cli.out);
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
        return 1;
    }
    fprintf(f, "# bench_pbd: best of %d repeats of %d steps, 10 iterations, %d warm-up steps\n",
            REPEATS, steps, WARMUP);
    fprintf(f, "solver\tn\tthreads\tconstraints\tns_per_projection\tms_per_step\tconstraint_set\n");
    printf("%-22s %6s %8s %12s %18s %12s  %s\n", "solver", "n", "threads", "constraints",
           "ns/projection", "ms/step", "constraints");
    static const int sizes[] = {64, 128, 256};
    for (int si = 0; si < 3; si++) {
        int res = sizes[si];
        bench_row rows[8];
        int nr = 0;
        for (int bend = 1; bend >= 0; bend--) {
            if (time_solver(&weft_pbd_gauss_seidel, &cli, res, bend, 1, steps, &rows[nr]) == 0) nr++;
            if (time_solver(&weft_pbd_jacobi, &cli, res, bend, 1, steps, &rows[nr]) == 0) nr++;
            if (time_solver(&weft_pbd_jacobi, &cli, res, bend, 2, steps, &rows[nr]) == 0) nr++;
        }
        time_plain_loop(&cli, res, steps, &rows[nr++]);
        for (int r = 0; r < nr; r++) {
            bench_row *b = &rows[r];
            fprintf(f, "%s\t%d\t%d\t%d\t%.3f\t%.4f\t%s\n", b->solver, b->n, b->threads,
                    b->constraints, b->ns_per_projection, b->ms_per_step, b->set);
            printf("%-22s %6d %8d %12d %18.2f %12.3f  %s\n", b->solver, b->n, b->threads,
                   b->constraints, b->ns_per_projection, b->ms_per_step, b->set);
            fflush(stdout);
        }
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "error: %s: cannot write\n", path);
        return 1;
    }
    printf("\nwrote %s\n", path);
    return 0;
}
