/* bench_solvers.c — every registered solver side by side: the cost of one inner iteration
 * on the hanging cloth at N² vertices (--sizes, default 32,64,128,256) with 1 and with all
 * threads (--threads, default 1,<cores>), its cost per vertex and the peak memory of the
 * run, beside three yardsticks measured in the same run on the same cloth:
 *   yardstick_pbd_sweep        one Gauss-Seidel sweep of pbd_gauss_seidel (its "project"
 *                              timer over its iterations: the projections alone);
 *   yardstick_newton_assembly  one gradient + Hessian assembly (weft_assembly_run with
 *                              WEFT_HESSIAN_ANALYTIC, M/h² added) at a perturbed state;
 *   yardstick_cholmod          a CHOLMOD factorise + solve (analysis kept) of that
 *                              Newton matrix, filtered at the pins.
 * A solver's cost per iteration is the wall time of --steps (default 1) timed steps over
 * the inner iterations they took (counted by weft_monitor_counter: a solver with a
 * stopping test may stop before its cap), the median of --repeats (default 3) such timings
 * after one untimed warm-up step. Each (solver or yardstick, size, threads) runs in its own
 * forked child process, so peak_mib is that measurement's own peak resident set (the
 * child's ru_maxrss from wait4, the process's baseline included). Conditionally stable
 * (explicit) solvers are skipped at the scene's dt, and so is a solver that refuses the
 * model; the reason is printed and written as a "# skipped" line of the file.
 * Writes <out>/bench_solvers.tsv (through ".partial", renamed when complete) and, unless
 * --no-plot, <out>/bench_solvers.png (experiments/plots/bench_solvers.gp). */
#include "bench.h"

#include "weft_linsolve.h"
#include "weft_solvers.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: bench_solvers [--sizes N,N,...] [--threads N,N,...] [--repeats N] [--steps N]\n"
    "                     [--out DIR] [--no-plot] [--set SECTION.KEY=VAL]...\n"
    "Times one inner iteration of every registered solver on the hanging cloth at N^2\n"
    "vertices, with the yardsticks of the same run (a PBD Gauss-Seidel sweep, a Newton\n"
    "gradient + Hessian assembly, a CHOLMOD factorise + solve of that matrix); each\n"
    "measurement in its own process, so its peak memory is its own.\n"
    "Writes DIR/bench_solvers.tsv and DIR/bench_solvers.png (default results/).\n"
    "  --sizes N,...    vertices per side, 2..2048 (default 32,64,128,256)\n"
    "  --threads N,...  thread counts (default 1 and all cores)\n"
    "  --repeats N      timed repeats, median kept (default 3), after one warm-up step\n"
    "  --steps N        timed steps per repeat (default 1)\n"
    "  --set applies to the scene (e.g. --set solver.iterations=20)\n";

enum { MAX_LIST = 16, MAX_MEASURE = 64 };

static const weft_bench_column columns[] = {
    {"solver", "%s", "solver", "%-26s"},
    {"n", "%ld", "n", " %5ld"},
    {"vertices", "%ld", "vertices", " %9ld"},
    {"threads", "%ld", "threads", " %8ld"},
    {"iterations", "%ld", "iter/step", " %10ld"},
    {"ms_per_iteration", "%.5f", "ms/iter", " %11.4f"},
    {"ns_per_vertex", "%.3f", "ns/vertex", " %11.2f"},
    {"peak_mib", "%.1f", "peak MiB", " %9.1f"},
    {"repeats", "%ld", NULL, NULL},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

/* What one measurement is. */
typedef enum { KIND_SOLVER, KIND_PBD_SWEEP, KIND_ASSEMBLY, KIND_CHOLMOD } kind;

/* One measurement's set-up, shared with its child process. */
typedef struct job {
    const weft_cli *cli;
    kind what;
    const weft_solver_type *solver; /* KIND_SOLVER */
    int res, threads, repeats, steps;
} job;

/* What the child sends back: status 0 and the figures, or status 1 (message printed). */
typedef struct result {
    int status;
    int iterations;
    double ms_per_iteration;
} result;

/* Parses "a,b,..." of integers lo..hi into v[MAX_LIST]; count, or -1 after an error. */
static int parse_list(const char *opt, const char *text, int lo, int hi, int *v) {
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || errno || x < lo || x > hi || (*end && *end != ',') || n == MAX_LIST) {
            fprintf(stderr, "error: %s: '%s' is not a comma-separated list of at most %d "
                    "integers %d..%d\n", opt, text, MAX_LIST, lo, hi);
            return -1;
        }
        v[n++] = (int)x;
        if (!*end) return n;
        p = end + 1;
    }
}

/* Removes "OPT VALUE" / "OPT=VALUE" from argv (weft_cli_parse does not know OPT) and
 * parses VALUE as a list into v; 0 when absent, the count, or -1 after an error. */
static int take_list(int *argc, char **argv, const char *opt, int lo, int hi, int *v) {
    int n = 0, w = 1;
    size_t len = strlen(opt);
    for (int i = 1; i < *argc; i++) {
        const char *text = NULL;
        if (!strcmp(argv[i], opt)) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "error: %s: missing its value (see --help)\n", opt);
                return -1;
            }
            text = argv[++i];
        } else if (!strncmp(argv[i], opt, len) && argv[i][len] == '=') {
            text = argv[i] + len + 1;
        } else {
            argv[w++] = argv[i];
            continue;
        }
        if ((n = parse_list(opt, text, lo, hi, v)) < 0) return -1;
    }
    *argc = w;
    argv[w] = NULL;
    return n;
}

/* Builds the scene at res² with `threads` threads (sets: extra overrides, may be NULL). */
static int build(const job *j, const char *const *sets, weft_model *m, weft_config **cfg) {
    weft_error err = {{0}};
    weft_cli cli = *j->cli;
    cli.steps = -1; /* --steps counts this bench's timed steps, not the scene's */
    if (weft_bench_build(&cli, NULL, j->res, sets, j->threads, m, cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* A solver's measurement: the median over repeats of (wall time of j->steps steps) /
 * (steps × iterations), after one warm-up step, on one solver state. */
static int measure_solver(const job *j, result *r) {
    weft_model m;
    weft_config *cfg = NULL;
    if (build(j, NULL, &m, &cfg) != 0) return -1;
    const weft_solver_type *s = j->solver;
    weft_error err = {{0}};
    void *st = weft_solver_create(s, &m, cfg, &err);
    weft_monitor *count = weft_monitor_counter();
    int rc = !count ? WEFT_ERR_NOMEM : st ? WEFT_OK : WEFT_ERR_INPUT;
    double t[WEFT_BENCH_MAX_REPEATS];
    long iters = 0;
    if (rc == WEFT_OK) rc = s->step(st, &m, NULL, &err); /* warm-up */
    for (int k = 0; k < j->repeats && rc == WEFT_OK; k++) {
        /* the iterations the steps took (a solver with a stopping test may stop early) */
        long before = weft_monitor_counted(count);
        double w0 = weft_now();
        for (int i = 0; i < j->steps && rc == WEFT_OK; i++) rc = s->step(st, &m, count, &err);
        double w = weft_now() - w0;
        long its = weft_monitor_counted(count) - before;
        if (its < 1) its = 1;
        t[k] = 1e3 * w / (double)its;
        iters += its;
    }
    free(count);
    if (st) s->destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
    if (rc != WEFT_OK) {
        fprintf(stderr, "error: %s at %d^2: %s\n", s->name, j->res,
                weft_cli_unprefixed(err.msg, s->name));
        return -1;
    }
    r->iterations = (int)((iters + (long)j->repeats * j->steps / 2) / ((long)j->repeats * j->steps));
    r->ms_per_iteration = weft_bench_median(t, j->repeats);
    return 0;
}

/* One PBD Gauss-Seidel sweep: pbd_gauss_seidel's "project" timer over its iterations,
 * per timed step, median. */
static int measure_pbd_sweep(const job *j, result *r) {
    weft_model m;
    weft_config *cfg = NULL;
    if (build(j, NULL, &m, &cfg) != 0) return -1;
    const weft_solver_type *s = &weft_pbd_gauss_seidel;
    int iters = weft_solver_iterations(s, cfg);
    if (iters < 1) iters = 1;
    double t[WEFT_BENCH_MAX_REPEATS];
    int rc = WEFT_OK;
    weft_error err = {{0}};
    for (int k = 0; k < j->repeats && rc == WEFT_OK; k++) {
        weft_bench_steps run;
        rc = weft_bench_solver_steps(s, &m, cfg, k == 0 ? 1 : 0, j->steps, &run, &err);
        double proj = weft_profile_value(&run.prof, "project");
        if (!(proj > 0)) proj = run.wall_s; /* no timer: the whole step */
        t[k] = 1e3 * proj / ((double)j->steps * iters);
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
    if (rc != WEFT_OK) {
        fprintf(stderr, "error: yardstick_pbd_sweep at %d^2: %s\n", j->res, err.msg);
        return -1;
    }
    r->iterations = 1;
    r->ms_per_iteration = weft_bench_median(t, j->repeats);
    return 0;
}

/* The Newton yardsticks: one assembly of A = M/h² + ∇²E(x) and ∇E(x) at the scene's state
 * perturbed by 5% of an edge (so the Hessian is not the rest one), or one CHOLMOD
 * factorise + solve of that A filtered at the pins (after an untimed first solve, which
 * does the symbolic analysis), median over repeats. */
static int measure_newton(const job *j, result *r) {
    weft_model m;
    weft_config *cfg = NULL;
    if (build(j, NULL, &m, &cfg) != 0) return -1;
    weft_cli_perturb(&m, 0.05, 1);
    int n = m.n, rc = -1;
    size_t n3 = 3 * (size_t)n;
    weft_error err = {{0}};
    double *g = malloc(n3 * sizeof *g), *dx = malloc(n3 * sizeof *dx);
    double *mh2 = malloc((size_t)n * sizeof *mh2);
    weft_assembly *as = weft_assembly_create(&m, &err);
    weft_filter f;
    bool have_f = false;
    weft_cholmod_solver *ch = NULL;
    double t[WEFT_BENCH_MAX_REPEATS];
    if (!g || !dx || !mh2 || !as) {
        fprintf(stderr, "error: %d^2 Newton system: %s\n", j->res, as ? "out of memory" : err.msg);
        goto done;
    }
    if (weft_filter_create(&f, n, &err) != WEFT_OK) {
        fprintf(stderr, "error: %d^2 Newton system: %s\n", j->res, err.msg);
        goto done;
    }
    have_f = true;
    static const double zero[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        mh2[i] = m.mass[i] / (m.dt * m.dt);
        if (m.pin[i] >= 0) weft_filter_pin(&f, i, zero);
    }
    weft_bsr *A = weft_assembly_matrix(as);
    bool assembly = j->what == KIND_ASSEMBLY;
    if (!assembly) weft_bench_pin_threads(j->threads);
    if (!assembly && !(ch = weft_cholmod_solver_create(&err))) {
        fprintf(stderr, "error: %d^2 CHOLMOD: %s\n", j->res, err.msg);
        goto done;
    }
    for (int k = -1; k < j->repeats; k++) { /* k = -1: warm-up */
        double w0 = weft_now();
        if (assembly || k < 0) {
            double E = weft_assembly_run(as, &m, m.x, WEFT_HESSIAN_ANALYTIC, g, j->threads);
            if (!isfinite(E)) {
                weft_assembly_check(as, &err);
                fprintf(stderr, "error: %d^2 assembly: %s\n", j->res, err.msg);
                goto done;
            }
            weft_bsr_add_diagonal(A, mh2);
            for (size_t q = 0; q < n3; q++) g[q] = -g[q];
        }
        if (!assembly &&
            weft_cholmod_solver_solve(ch, A, &f, g, dx, &err) != WEFT_SOLVE_CONVERGED) {
            fprintf(stderr, "error: %d^2 CHOLMOD: %s\n", j->res, err.msg);
            goto done;
        }
        if (k >= 0) t[k] = 1e3 * (weft_now() - w0);
    }
    r->iterations = 1;
    r->ms_per_iteration = weft_bench_median(t, j->repeats);
    rc = 0;
done:
    weft_cholmod_solver_free(&ch);
    if (have_f) weft_filter_destroy(&f);
    weft_assembly_free(&as);
    free(g);
    free(dx);
    free(mh2);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return rc;
}

/* The child's side of a measurement (weft_bench_in_child): j's threads, then j. */
static int child_measure(const void *jv, void *out) {
    const job *j = jv;
    result *c = out;
    *c = (result){1, 0, NAN};
    omp_set_num_threads(j->threads);
    int rc = j->what == KIND_SOLVER      ? measure_solver(j, c)
             : j->what == KIND_PBD_SWEEP ? measure_pbd_sweep(j, c)
                                         : measure_newton(j, c);
    c->status = rc == 0 ? 0 : 1;
    return c->status;
}

/* Runs job j in a forked child; fills r and *peak_mib (the child's peak RSS). Returns 0,
 * or -1 when the child failed (its message printed). */
static int run_child(const job *j, result *r, double *peak_mib) {
    char label[32];
    snprintf(label, sizeof label, "at %d^2", j->res);
    return weft_bench_in_child(child_measure, j, r, sizeof *r, label, peak_mib);
}

/* Measures j and writes its row named `name`; -1 on failure. */
static int bench_row(weft_bench_table *t, const job *j, const char *name) {
    result r;
    double peak = NAN;
    if (run_child(j, &r, &peak) != 0) return -1;
    long nv = (long)j->res * j->res;
    double ns = 1e6 * r.ms_per_iteration / (double)nv;
    weft_bench_value row[NCOLUMNS] = {
        weft_bench_text(name),           weft_bench_int(j->res),
        weft_bench_int(nv),              weft_bench_int(j->threads),
        weft_bench_int(r.iterations),    weft_bench_num(r.ms_per_iteration),
        weft_bench_num(ns),              weft_bench_num(peak),
        weft_bench_int(j->repeats)};
    weft_bench_row(t, row);
    return 0;
}

/* Why solver s cannot run the scene (static text), or NULL when it can. */
static const char *skip_reason(const weft_cli *cli, const weft_solver_type *s, int res) {
    static char why[400];
    if (s->conditionally_stable)
        return "conditionally stable (explicit): not run at the scene's dt";
    job j = {cli, KIND_SOLVER, s, res, 1, 1, 1};
    weft_model m;
    weft_config *cfg = NULL;
    if (build(&j, NULL, &m, &cfg) != 0) return "the scene does not build";
    weft_error err = {{0}};
    void *st = weft_solver_create(s, &m, cfg, &err);
    const char *reason = NULL;
    if (!st) {
        snprintf(why, sizeof why, "refuses the model: %s", weft_cli_unprefixed(err.msg, s->name));
        for (char *p = why; *p; p++)
            if (*p == '\t' || *p == '\n') *p = ' ';
        reason = why;
    }
    s->destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return reason;
}

int main(int argc, char **argv) {
    int sizes[MAX_LIST] = {32, 64, 128, 256}, nsizes = 4;
    int threads[MAX_LIST], nthreads = 0, reps[MAX_LIST];
    int ns = take_list(&argc, argv, "--sizes", 2, 2048, sizes);
    int nt = take_list(&argc, argv, "--threads", 1, 1024, threads);
    int nr = take_list(&argc, argv, "--repeats", 1, WEFT_BENCH_MAX_REPEATS, reps);
    if (ns < 0 || nt < 0 || nr < 0) return 2;
    if (nr > 1) {
        fprintf(stderr, "error: --repeats: one count, not a list\n");
        return 2;
    }
    if (ns > 0) nsizes = ns;
    if (nt > 0) {
        nthreads = nt;
    } else {
        threads[nthreads++] = 1;
        int all = omp_get_num_procs();
        if (all > 1) threads[nthreads++] = all;
    }
    int repeats = nr > 0 ? reps[0] : 3;
    weft_cli cli;
    weft_bench_parse(argc, argv, &cli, usage, 2);
    int steps = cli.steps > 0 ? cli.steps : 1;

    /* The solvers that can run the scene (decided at the smallest size). */
    const weft_solver_type *run[MAX_MEASURE];
    const weft_solver_type *skipped[MAX_MEASURE];
    const char *why[MAX_MEASURE];
    int nrun = 0, nskip = 0;
    for (const weft_solver_type *const *s = weft_solver_registry; *s; s++) {
        const char *reason = skip_reason(&cli, *s, sizes[0]);
        if (reason && !strcmp(reason, "the scene does not build")) return 1;
        if (reason) {
            if (nskip < MAX_MEASURE) {
                skipped[nskip] = *s;
                why[nskip] = strdup(reason);
                nskip++;
            }
            printf("skipped %s: %s\n", (*s)->name, reason);
        } else if (nrun < MAX_MEASURE) {
            run[nrun++] = *s;
        }
    }

    weft_bench_table t;
    if (weft_bench_open(&t, cli.out, "bench_solvers.tsv", columns, NCOLUMNS) != 0) return 1;
    weft_bench_comment(&t, "bench_solvers: hanging_cloth; ms_per_iteration = median over %d "
                       "repeats of the wall time of %d step(s) / the inner iterations they "
                       "took (iterations: per step, as run), after one warm-up step; "
                       "ns_per_vertex = ms_per_iteration / vertices",
                       repeats, steps);
    weft_bench_comment(&t, "peak_mib: peak resident set of the forked child process that ran "
                       "that one measurement alone (wait4 ru_maxrss, baseline included)");
    weft_bench_comment(&t, "yardsticks: pbd sweep = pbd_gauss_seidel project timer per "
                       "iteration; newton assembly = gradient + Hessian (analytic PSD) + "
                       "M/h^2; cholmod = factorise + solve of that matrix, analysis kept");
    for (int k = 0; k < nskip; k++)
        weft_bench_comment(&t, "skipped %s: %s", skipped[k]->name, why[k]);
    weft_bench_header(&t);
    int failed = 0;
    for (int si = 0; si < nsizes; si++)
        for (int ti = 0; ti < nthreads; ti++) {
            job j = {&cli, KIND_SOLVER, NULL, sizes[si], threads[ti], repeats, steps};
            for (int k = 0; k < nrun; k++) {
                j.solver = run[k];
                if (bench_row(&t, &j, run[k]->name) != 0) failed = 1;
            }
            static const struct {
                kind what;
                const char *name;
            } yard[] = {{KIND_PBD_SWEEP, "yardstick_pbd_sweep"},
                        {KIND_ASSEMBLY, "yardstick_newton_assembly"},
                        {KIND_CHOLMOD, "yardstick_cholmod"}};
            for (int y = 0; y < 3; y++) {
                j.what = yard[y].what, j.solver = NULL;
                if (bench_row(&t, &j, yard[y].name) != 0) failed = 1;
            }
        }
    for (int k = 0; k < nskip; k++) free((void *)why[k]);
    int rc = weft_bench_close(&t, failed ? "a measurement failed" : NULL);
    if (rc != 0 || cli.no_plot) return rc;
    return weft_bench_plot("bench_solvers", t.path, cli.out);
}
