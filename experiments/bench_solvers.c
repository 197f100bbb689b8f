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
 * the inner iterations they took (weft_monitor_counter: a solver with a stopping test may
 * stop before its cap), the median of --repeats (default 3) timings after one untimed
 * warm-up step, all on one solver state. Interleaved rounds (weft_bench_round_*): per
 * size, every (solver or yardstick, threads) has its own forked child, which builds the
 * scene, warms up and waits on a socket; then round after round each child in turn makes
 * one timed repeat (0.2 s pause after a multi-threaded one: its idle workers spin before
 * they sleep), so repeat r of every row runs within the same seconds, a slow period of a
 * shared machine falls on all rows alike, and bench_solvers_ratios.tsv gives the speed
 * targets' ratios per round, side by side (median, min, max over rounds). peak_mib is each
 * child's own peak resident set (wait4 ru_maxrss, baseline included), but a size's
 * children are alive together: the machine needs their sum (per size in the ratios file;
 * ~3 GiB at 128^2 with two thread counts); below --min-free-mib (+ twice the largest
 * child) of memory left, the rest of a size runs as a later group. Conditionally stable
 * (explicit) solvers are skipped at the scene's dt, and so is a solver that refuses the
 * model; the reason is printed and written as a "# skipped" line of the file.
 * Writes <out>/bench_solvers.tsv and <out>/bench_solvers_ratios.tsv (each through
 * ".partial", renamed when the run completes) and, unless --no-plot,
 * <out>/bench_solvers.png (experiments/plots/bench_solvers.gp). */
#include "bench.h"

#include "weft_linsolve.h"
#include "weft_solvers.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
    "usage: bench_solvers [--sizes N,N,...] [--threads N,N,...] [--repeats N] [--steps N]\n"
    "                     [--min-free-mib M] [--out DIR] [--no-plot]\n"
    "                     [--set SECTION.KEY=VAL]...\n"
    "Times one inner iteration of every registered solver on the hanging cloth at N^2\n"
    "vertices, with the yardsticks of the same run (a PBD Gauss-Seidel sweep, a Newton\n"
    "gradient + Hessian assembly, a CHOLMOD factorise + solve of that matrix); each\n"
    "measurement in its own process (its peak memory its own), all of a size measured in\n"
    "interleaved rounds (one timed repeat of each in turn), so ratios compare like with like.\n"
    "Writes DIR/bench_solvers.tsv, DIR/bench_solvers_ratios.tsv (the speed targets' ratios\n"
    "per round: median, min, max) and DIR/bench_solvers.png (default results/).\n"
    "  --sizes N,...    vertices per side, 2..2048 (default 32,64,128,256)\n"
    "  --threads N,...  thread counts (default 1 and all cores)\n"
    "  --repeats N      rounds of timed repeats, median kept (default 3), after one warm-up\n"
    "                   step\n"
    "  --steps N        timed steps per repeat (default 1)\n"
    "  --min-free-mib M start a size's children (alive together) only while the memory\n"
    "                   available stays above M + twice the largest child, else measure\n"
    "                   them in groups one after another (default 1024)\n"
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

/* A measurement's state in its child between timed repeats (weft_bench_round_fns). */
typedef struct meas {
    const job *j;
    weft_model m;
    weft_config *cfg;
    bool have_m;
    void *st; /* KIND_SOLVER, KIND_PBD_SWEEP: the solver's state */
    const weft_solver_type *s;
    weft_monitor *count;  /* KIND_SOLVER: counts the inner iterations */
    int iters;            /* KIND_PBD_SWEEP: iterations per step (its setting) */
    double *g, *dx, *mh2; /* the Newton yardsticks: gradient, solution, M/h² */
    weft_assembly *as;
    weft_filter f;
    bool have_f;
    weft_cholmod_solver *ch;
} meas;

/* Frees everything of q, and q. */
static void meas_free(meas *q) {
    if (!q) return;
    if (q->st) q->s->destroy(q->st);
    free(q->count);
    weft_cholmod_solver_free(&q->ch);
    if (q->have_f) weft_filter_destroy(&q->f);
    weft_assembly_free(&q->as);
    free(q->g);
    free(q->dx);
    free(q->mh2);
    if (q->have_m) weft_model_free(&q->m);
    weft_config_free(&q->cfg);
    free(q);
}

/* A solver's state on the scene and its warm-up step; 0 or -1 (printed). */
static int start_solver(meas *q) {
    weft_error err = {{0}};
    q->s = q->j->solver;
    q->st = weft_solver_create(q->s, &q->m, q->cfg, &err);
    q->count = weft_monitor_counter();
    int rc = !q->count ? WEFT_ERR_NOMEM : q->st ? WEFT_OK : WEFT_ERR_INPUT;
    if (rc == WEFT_OK) rc = q->s->step(q->st, &q->m, NULL, &err);
    if (rc == WEFT_OK) return 0;
    fprintf(stderr, "error: %s at %d^2: %s\n", q->s->name, q->j->res,
            rc == WEFT_ERR_NOMEM ? "out of memory" : weft_cli_unprefixed(err.msg, q->s->name));
    return -1;
}

/* One timed repeat of a solver: v[0] = wall time of j->steps steps / the inner iterations
 * they took (ms; a solver with a stopping test may stop before its cap), v[1] = those
 * iterations per step. */
static int repeat_solver(meas *q, double *v) {
    const job *j = q->j;
    weft_error err = {{0}};
    long before = weft_monitor_counted(q->count);
    int rc = WEFT_OK;
    double w0 = weft_now();
    for (int i = 0; i < j->steps && rc == WEFT_OK; i++)
        rc = q->s->step(q->st, &q->m, q->count, &err);
    double w = weft_now() - w0;
    if (rc != WEFT_OK) {
        fprintf(stderr, "error: %s at %d^2: %s\n", q->s->name, j->res,
                weft_cli_unprefixed(err.msg, q->s->name));
        return WEFT_BENCH_FAIL;
    }
    long its = weft_monitor_counted(q->count) - before;
    v[0] = 1e3 * w / (double)(its < 1 ? 1 : its);
    v[1] = (double)its / j->steps;
    return WEFT_BENCH_MORE;
}

/* pbd_gauss_seidel's state on the scene and its warm-up step; 0 or -1 (printed). */
static int start_pbd_sweep(meas *q) {
    weft_error err = {{0}};
    q->s = &weft_pbd_gauss_seidel;
    q->iters = weft_solver_iterations(q->s, q->cfg);
    if (q->iters < 1) q->iters = 1;
    q->st = weft_solver_create(q->s, &q->m, q->cfg, &err);
    if (q->st && q->s->step(q->st, &q->m, NULL, &err) == WEFT_OK) return 0;
    fprintf(stderr, "error: yardstick_pbd_sweep at %d^2: %s\n", q->j->res, err.msg);
    return -1;
}

/* One PBD Gauss-Seidel sweep: v[0] = pbd_gauss_seidel's "project" timer over j->steps
 * steps / (steps × iterations), ms (the whole steps' wall time if it has no such timer). */
static int repeat_pbd_sweep(meas *q, double *v) {
    const job *j = q->j;
    weft_error err = {{0}};
    weft_profile before, after;
    weft_solver_stats(q->s, q->st, &before);
    int rc = WEFT_OK;
    double w0 = weft_now();
    for (int i = 0; i < j->steps && rc == WEFT_OK; i++) rc = q->s->step(q->st, &q->m, NULL, &err);
    double w = weft_now() - w0;
    if (rc != WEFT_OK) {
        fprintf(stderr, "error: yardstick_pbd_sweep at %d^2: %s\n", j->res, err.msg);
        return WEFT_BENCH_FAIL;
    }
    weft_solver_stats(q->s, q->st, &after);
    weft_profile_since(&after, &before);
    double proj = weft_profile_value(&after, "project");
    if (!(proj > 0)) proj = w; /* no timer: the whole steps */
    v[0] = 1e3 * proj / ((double)j->steps * q->iters);
    v[1] = 1;
    return WEFT_BENCH_MORE;
}

/* One Newton yardstick's work: an assembly of A = M/h² + ∇²E(x) and g = -∇E(x) (always for
 * the assembly, the first time for CHOLMOD), then for CHOLMOD a factorise + solve of A
 * filtered at the pins. 0 or -1 (printed). */
static int newton_once(meas *q, bool assemble) {
    const job *j = q->j;
    weft_error err = {{0}};
    bool assembly = j->what == KIND_ASSEMBLY;
    if (assemble) {
        double E = weft_assembly_run(q->as, &q->m, q->m.x, WEFT_HESSIAN_ANALYTIC, q->g, j->threads);
        if (!isfinite(E)) {
            weft_assembly_check(q->as, &err);
            fprintf(stderr, "error: %d^2 assembly: %s\n", j->res, err.msg);
            return -1;
        }
        weft_bsr_add_diagonal(weft_assembly_matrix(q->as), q->mh2);
        for (size_t k = 0; k < 3 * (size_t)q->m.n; k++) q->g[k] = -q->g[k];
    }
    if (!assembly && weft_cholmod_solver_solve(q->ch, weft_assembly_matrix(q->as), &q->f, q->g,
                                               q->dx, &err) != WEFT_SOLVE_CONVERGED) {
        fprintf(stderr, "error: %d^2 CHOLMOD: %s\n", j->res, err.msg);
        return -1;
    }
    return 0;
}

/* The Newton yardsticks' set-up: the scene's state perturbed by 5% of an edge (so the
 * Hessian is not the rest one), the assembly, the pins' filter, CHOLMOD on j's threads,
 * and one untimed newton_once (CHOLMOD's symbolic analysis). 0 or -1 (printed). */
static int start_newton(meas *q) {
    const job *j = q->j;
    weft_error err = {{0}};
    weft_cli_perturb(&q->m, 0.05, 1);
    int n = q->m.n;
    q->g = malloc(3 * (size_t)n * sizeof *q->g);
    q->dx = malloc(3 * (size_t)n * sizeof *q->dx);
    q->mh2 = malloc((size_t)n * sizeof *q->mh2);
    q->as = weft_assembly_create(&q->m, &err);
    if (!q->g || !q->dx || !q->mh2 || !q->as || weft_filter_create(&q->f, n, &err) != WEFT_OK) {
        fprintf(stderr, "error: %d^2 Newton system: %s\n", j->res,
                q->as && !err.msg[0] ? "out of memory" : err.msg);
        return -1;
    }
    q->have_f = true;
    static const double zero[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        q->mh2[i] = q->m.mass[i] / (q->m.dt * q->m.dt);
        if (q->m.pin[i] >= 0) weft_filter_pin(&q->f, i, zero);
    }
    if (j->what == KIND_CHOLMOD) {
        weft_bench_pin_threads(j->threads);
        if (!(q->ch = weft_cholmod_solver_create(&err))) {
            fprintf(stderr, "error: %d^2 CHOLMOD: %s\n", j->res, err.msg);
            return -1;
        }
    }
    return newton_once(q, true);
}

/* The child's set-up (weft_bench_round_fns.start): j's threads, the scene, the kind's
 * state and its untimed warm-up. */
static int meas_start(const void *jv, void **state) {
    const job *j = jv;
    meas *q = calloc(1, sizeof *q);
    if (!q) return -1;
    q->j = j;
    omp_set_num_threads(j->threads);
    int rc = build(j, NULL, &q->m, &q->cfg);
    q->have_m = rc == 0;
    if (rc == 0)
        rc = j->what == KIND_SOLVER      ? start_solver(q)
             : j->what == KIND_PBD_SWEEP ? start_pbd_sweep(q)
                                         : start_newton(q);
    if (rc != 0) {
        meas_free(q);
        return -1;
    }
    *state = q;
    return 0;
}

/* One timed repeat (weft_bench_round_fns.repeat): v[0] ms per iteration, v[1] iterations
 * per step. */
static int meas_repeat(void *state, double *v) {
    meas *q = state;
    if (q->j->what == KIND_SOLVER) return repeat_solver(q, v);
    if (q->j->what == KIND_PBD_SWEEP) return repeat_pbd_sweep(q, v);
    double w0 = weft_now();
    if (newton_once(q, q->j->what == KIND_ASSEMBLY) != 0) return WEFT_BENCH_FAIL;
    v[0] = 1e3 * (weft_now() - w0);
    v[1] = 1;
    return WEFT_BENCH_MORE;
}

/* The child's end (weft_bench_round_fns.finish): no totals beyond the repeats' figures. */
static int meas_finish(void *state, void *out) {
    (void)out;
    meas_free(state);
    return 0;
}

static const weft_bench_round_fns meas_fns = {meas_start, meas_repeat, meas_finish};

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

/* One measurement of a size's rounds: its job, its name, its child and its figures. */
typedef struct row {
    job j;
    const char *name;
    weft_bench_round round;
    bool ok;         /* started, and every repeat and the finish succeeded */
    double *ms;      /* [repeats]: ms per iteration, round by round */
    double *its;     /* [repeats]: inner iterations per step, round by round */
    double peak_mib; /* the child's peak resident set */
    int group;       /* children of one group are alive and measured together */
} row;

/* Seconds the parent waits before a timed repeat when the child that ran last had several
 * threads: its idle OpenMP workers spin a few ms and OpenBLAS's up to ~0.1 s before they
 * sleep, and would otherwise take a core from the next child's timed repeat. */
static const double settle_s = 0.2;

/* Waits settle_s when the child that ran last had more than one thread. */
static void settle(int last_threads) {
    if (last_threads > 1) nanosleep(&(struct timespec){0, (long)(settle_s * 1e9)}, NULL);
}

/* Starts the children of rows[k0 ..] (scene, warm-up), as group g, until all are started
 * or, after at least one, the memory available falls below min_free_mib + twice the
 * largest child's peak so far; returns the group's end k1. *last: threads of the child
 * that ran last. */
static int start_group(row *rows, int k0, int nrows, int g, double min_free_mib, int *last) {
    double largest = 0;
    int k = k0;
    while (k < nrows) {
        char label[128];
        snprintf(label, sizeof label, "%s at %d^2, %d thread(s)", rows[k].name, rows[k].j.res,
                 rows[k].j.threads);
        rows[k].ok =
            weft_bench_round_start(&rows[k].round, &meas_fns, &rows[k].j, 2, 0, label) == 0;
        rows[k].group = g;
        *last = rows[k].j.threads;
        double hwm = weft_bench_round_hwm_mib(&rows[k].round);
        if (hwm > largest) largest = hwm;
        k++;
        if (k < nrows && weft_bench_mem_available_mib() < min_free_mib + 2 * largest) break;
    }
    return k;
}

/* Runs the started rows[k0 .. k1-1] in interleaved rounds: `repeats` rounds of one timed
 * repeat of each row in turn, then every child finished and reaped. Returns the sum of
 * the children's peak resident sets, MiB. */
static double run_rounds(row *rows, int k0, int k1, int repeats, int *last) {
    double sum = 0;
    for (int r = 0; r < repeats; r++)
        for (int k = k0; k < k1; k++) {
            double v[2] = {NAN, NAN};
            if (rows[k].ok) {
                settle(*last);
                if (weft_bench_round_step(&rows[k].round, v) != 0) rows[k].ok = false;
                *last = rows[k].j.threads;
            }
            rows[k].ms[r] = v[0], rows[k].its[r] = v[1];
        }
    for (int k = k0; k < k1; k++) {
        if (weft_bench_round_finish(&rows[k].round, NULL, &rows[k].peak_mib) != 0)
            rows[k].ok = false;
        if (rows[k].ok) sum += rows[k].peak_mib;
    }
    return sum;
}

/* Measures the rows of one size: in one group of children alive together, or in several
 * one after another when memory runs short (see start_group); notes that in rt. */
static void measure_size(weft_bench_table *rt, row *rows, int nrows, int repeats,
                         double min_free_mib) {
    double most = 0;
    int groups = 0, last = 1;
    for (int k0 = 0; k0 < nrows; groups++) {
        int k1 = start_group(rows, k0, nrows, groups, min_free_mib, &last);
        most = fmax(most, run_rounds(rows, k0, k1, repeats, &last));
        k0 = k1;
    }
    if (groups == 1)
        weft_bench_comment(rt, "n=%d: %d children alive together, the sum of their peak "
                           "resident sets %.1f MiB", rows[0].j.res, nrows, most);
    else
        weft_bench_comment(rt, "n=%d: %d children in %d groups one after another (memory "
                           "available < --min-free-mib + twice the largest child), at most "
                           "%.1f MiB of peaks alive together", rows[0].j.res, nrows, groups,
                           most);
}

/* Writes row w of bench_solvers.tsv: the median over rounds of its ms per iteration, and
 * its iterations per step averaged over the rounds, rounded. */
static void write_row(weft_bench_table *t, const row *w, int repeats) {
    double ms[WEFT_BENCH_MAX_REPEATS], its = 0;
    for (int r = 0; r < repeats; r++) ms[r] = w->ms[r], its += w->its[r];
    double med = weft_bench_median(ms, repeats);
    long nv = (long)w->j.res * w->j.res;
    weft_bench_value v[NCOLUMNS] = {
        weft_bench_text(w->name),          weft_bench_int(w->j.res),
        weft_bench_int(nv),                weft_bench_int(w->j.threads),
        weft_bench_int((long)floor(its / repeats + 0.5)), weft_bench_num(med),
        weft_bench_num(1e6 * med / (double)nv), weft_bench_num(w->peak_mib),
        weft_bench_int(repeats)};
    weft_bench_row(t, v);
}

/* The speed targets' ratios, each row's ms per iteration over another's, per
 * round: threads 0 means the largest --threads count above 1. */
typedef struct ratio_def {
    const char *name, *num;
    int num_threads;
    const char *den;
    int den_threads;
    const char *target;
} ratio_def;

static const ratio_def ratio_defs[] = {
    {"xpbd_over_pbd_sweep", "xpbd", 1, "yardstick_pbd_sweep", 1, "<=1.3"},
    {"pd_over_pbd_sweep", "projective_dynamics", 1, "yardstick_pbd_sweep", 1, "<=2.5"},
    {"vbd_over_newton_assembly", "vbd", 1, "yardstick_newton_assembly", 1, "<=1.0"},
    {"vbd_thread_speedup", "vbd", 1, "vbd", 0, ">=1.7"},
};
enum { NRATIOS = sizeof ratio_defs / sizeof ratio_defs[0] };

static const weft_bench_column ratio_columns[] = {
    {"ratio", "%s", "ratio", "%-26s"},
    {"n", "%ld", "n", " %5ld"},
    {"numerator", "%s", NULL, NULL},
    {"numerator_threads", "%ld", NULL, NULL},
    {"denominator", "%s", NULL, NULL},
    {"denominator_threads", "%ld", NULL, NULL},
    {"target", "%s", "target", " %7s"},
    {"median", "%.4f", "median", " %8.3f"},
    {"min", "%.4f", "min", " %8.3f"},
    {"max", "%.4f", "max", " %8.3f"},
    {"rounds", "%ld", "rounds", " %7ld"},
};
enum { NRCOLUMNS = sizeof ratio_columns / sizeof ratio_columns[0] };

/* The ratio rows so far (written when the run ends). */
typedef struct ratio_rows {
    weft_bench_value (*v)[NRCOLUMNS];
    int n;
} ratio_rows;

/* The complete row named `name` at `threads` threads, or NULL. */
static const row *find_row(const row *rows, int nrows, const char *name, int threads) {
    for (int k = 0; k < nrows; k++)
        if (rows[k].ok && rows[k].j.threads == threads && !strcmp(rows[k].name, name))
            return &rows[k];
    return NULL;
}

/* Appends to out the ratios at this size (rows: the size's), each per round and
 * then their median, min and max over rounds; a ratio whose rows are missing gets a
 * "# ratio ... not measured" line in rt instead. tmax: the largest thread count > 1, or 0. */
static void size_ratios(weft_bench_table *rt, const row *rows, int nrows, int repeats, int tmax,
                        ratio_rows *out) {
    for (int d = 0; d < NRATIOS; d++) {
        const ratio_def *q = &ratio_defs[d];
        int tn = q->num_threads ? q->num_threads : tmax;
        int td = q->den_threads ? q->den_threads : tmax;
        const row *a = tn ? find_row(rows, nrows, q->num, tn) : NULL;
        const row *b = td ? find_row(rows, nrows, q->den, td) : NULL;
        if (!a || !b) {
            weft_bench_comment(rt, "ratio %s at %d^2: not measured (%s at %d thread(s) or %s "
                               "at %d thread(s) not run)", q->name, rows[0].j.res, q->num, tn,
                               q->den, td);
            continue;
        }
        if (a->group != b->group)
            weft_bench_comment(rt, "ratio %s at %d^2: its rows in different groups (memory), "
                               "not measured side by side", q->name, rows[0].j.res);
        double v[WEFT_BENCH_MAX_REPEATS], lo = INFINITY, hi = -INFINITY;
        for (int r = 0; r < repeats; r++) {
            v[r] = a->ms[r] / b->ms[r];
            lo = fmin(lo, v[r]), hi = fmax(hi, v[r]);
        }
        weft_bench_value *c = out->v[out->n++];
        c[0] = weft_bench_text(q->name), c[1] = weft_bench_int(rows[0].j.res);
        c[2] = weft_bench_text(q->num), c[3] = weft_bench_int(tn);
        c[4] = weft_bench_text(q->den), c[5] = weft_bench_int(td);
        c[6] = weft_bench_text(q->target), c[7] = weft_bench_num(weft_bench_median(v, repeats));
        c[8] = weft_bench_num(lo), c[9] = weft_bench_num(hi), c[10] = weft_bench_int(repeats);
    }
}

/* Opens bench_solvers_ratios.tsv in dir with its description; 0 or -1 (printed). */
static int open_ratios(weft_bench_table *rt, const char *dir, int tmax) {
    if (weft_bench_open(rt, dir, "bench_solvers_ratios.tsv", ratio_columns, NRCOLUMNS) != 0)
        return -1;
    weft_bench_comment(rt, "bench_solvers ratios (the speed targets): per size, numerator row's "
                       "ms_per_iteration / denominator row's, computed per round from the two "
                       "rows' repeats of that round (measured within seconds of each other); "
                       "median, min and max over the rounds");
    weft_bench_comment(rt, "xpbd_over_pbd_sweep = xpbd / yardstick_pbd_sweep, 1 thread: target "
                       "<= 1.3 at 64^2");
    weft_bench_comment(rt, "pd_over_pbd_sweep = projective_dynamics / yardstick_pbd_sweep, 1 "
                       "thread: target <= 2.5 at 64^2");
    weft_bench_comment(rt, "vbd_over_newton_assembly = vbd / yardstick_newton_assembly, 1 "
                       "thread: target <= 1.0 at 64^2 and 128^2");
    weft_bench_comment(rt, "vbd_thread_speedup = vbd at 1 thread / vbd at %d threads (the "
                       "largest --threads count): target >= 1.7 with 2 threads at 64^2 and "
                       "128^2", tmax);
    return 0;
}

/* The run's rows at size res, in the table's order (threads, then the solvers, then the
 * yardsticks), into rows (their figure arrays already set); their count. */
static int size_rows(row *rows, const weft_cli *cli, int res, const int *threads, int nthreads,
                     const weft_solver_type *const *run, int nrun, int repeats, int steps) {
    static const struct {
        kind what;
        const char *name;
    } yard[] = {{KIND_PBD_SWEEP, "yardstick_pbd_sweep"},
                {KIND_ASSEMBLY, "yardstick_newton_assembly"},
                {KIND_CHOLMOD, "yardstick_cholmod"}};
    int n = 0;
    for (int ti = 0; ti < nthreads; ti++)
        for (int k = 0; k < nrun + 3; k++, n++) {
            job j = {cli, KIND_SOLVER, NULL, res, threads[ti], repeats, steps};
            if (k < nrun) j.solver = run[k], rows[n].name = run[k]->name;
            else j.what = yard[k - nrun].what, rows[n].name = yard[k - nrun].name;
            rows[n].j = j;
        }
    return n;
}

int main(int argc, char **argv) {
    int sizes[MAX_LIST] = {32, 64, 128, 256}, nsizes = 4;
    int threads[MAX_LIST], nthreads = 0, reps[MAX_LIST];
    int ns = take_list(&argc, argv, "--sizes", 2, 2048, sizes);
    int nt = take_list(&argc, argv, "--threads", 1, 1024, threads);
    int nr = take_list(&argc, argv, "--repeats", 1, WEFT_BENCH_MAX_REPEATS, reps);
    double min_free = 1024;
    int nm = weft_bench_take_number(&argc, argv, "--min-free-mib", 0, 1e12, &min_free);
    if (ns < 0 || nt < 0 || nr < 0 || nm < 0) return 2;
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

    int tmax = 0;
    for (int ti = 0; ti < nthreads; ti++)
        if (threads[ti] > 1 && threads[ti] > tmax) tmax = threads[ti];
    weft_bench_table t, rt;
    if (weft_bench_open(&t, cli.out, "bench_solvers.tsv", columns, NCOLUMNS) != 0) return 1;
    if (open_ratios(&rt, cli.out, tmax) != 0) return 1;
    weft_bench_comment(&t, "bench_solvers: hanging_cloth; ms_per_iteration = median over %d "
                       "rounds of the wall time of %d step(s) / the inner iterations they "
                       "took (iterations: per step, as run), after one warm-up step; "
                       "ns_per_vertex = ms_per_iteration / vertices",
                       repeats, steps);
    weft_bench_comment(&t, "interleaved rounds: per size, every row's child builds its scene "
                       "and warms up, then round after round each child in turn makes one "
                       "timed repeat, so repeat r of every row runs within the same seconds");
    weft_bench_comment(&t, "peak_mib: peak resident set of the forked child process that ran "
                       "that one measurement (wait4 ru_maxrss, baseline included); a size's "
                       "children are alive together");
    weft_bench_comment(&t, "yardsticks: pbd sweep = pbd_gauss_seidel project timer per "
                       "iteration; newton assembly = gradient + Hessian (analytic PSD) + "
                       "M/h^2; cholmod = factorise + solve of that matrix, analysis kept");
    for (int k = 0; k < nskip; k++) {
        weft_bench_comment(&t, "skipped %s: %s", skipped[k]->name, why[k]);
        free((void *)why[k]);
    }
    weft_bench_header(&t);
    int maxrows = nthreads * (nrun + 3);
    row *rows = calloc((size_t)maxrows, sizeof *rows);
    double *fig = malloc(2 * (size_t)maxrows * (size_t)repeats * sizeof *fig);
    ratio_rows rr = {calloc((size_t)nsizes * NRATIOS, sizeof *rr.v), 0};
    if (!rows || !fig || !rr.v) {
        fprintf(stderr, "error: out of memory for %d measurements\n", maxrows);
        return 1;
    }
    int failed = 0;
    for (int si = 0; si < nsizes; si++) {
        int nrows = size_rows(rows, &cli, sizes[si], threads, nthreads, run, nrun, repeats, steps);
        for (int k = 0; k < nrows; k++)
            rows[k].ms = fig + 2 * (size_t)k * repeats, rows[k].its = rows[k].ms + repeats;
        measure_size(&rt, rows, nrows, repeats, min_free);
        for (int k = 0; k < nrows; k++) {
            if (rows[k].ok) write_row(&t, &rows[k], repeats);
            else failed = 1;
        }
        size_ratios(&rt, rows, nrows, repeats, tmax, &rr);
    }
    printf("\n");
    weft_bench_header(&rt);
    for (int k = 0; k < rr.n; k++) weft_bench_row(&rt, rr.v[k]);
    free(rows);
    free(fig);
    free(rr.v);
    const char *failure = failed ? "a measurement failed" : NULL;
    int rc = weft_bench_close(&t, failure);
    if (weft_bench_close(&rt, failure) != 0) rc = 1;
    if (rc != 0 || cli.no_plot) return rc;
    return weft_bench_plot("bench_solvers", t.path, cli.out);
}
