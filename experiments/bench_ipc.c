/* bench_ipc.c — the cost of one Newton iteration under the contact model `[contact] model =
 * ipc` (Incremental Potential Contact, Li et al. 2020, ACM TOG 39(4); solvers/ipc_contact.c,
 * papers/li2020-ipc.md "Cost") beside one of the same Newton solver on the same scene with
 * `model = none` (the solver's own active-set collider handling), measured in one run.
 * Scene drape_sphere (--scene to change) at N² vertices (--sizes, default 32), newton_euler
 * with its iteration cap at 50 (--iterations), every collider's and obstacle's friction set
 * to 0 in both configurations (--keep-friction: the scene's own, in both). Each
 * measurement is --warmup untimed steps (default 10) then --steps timed ones (default 6:
 * steps 11–16; a free fall takes no Newton iteration, its start point solving it, and the
 * cloth meets the sphere in step 12) from the scene's start, in its own forked child (so
 * every repeat starts from the same state, and peak_mib is its own peak resident set);
 * the repeats (--repeats, default 3) alternate none, ipc, none, ipc, ... so that a load
 * on the machine falls on both alike. Per configuration and size:
 *   iterations           Newton iterations of the timed steps (median over the repeats)
 *   ms_per_iteration     wall time of the timed steps / their iterations (median)
 *   cpu_ms_per_iteration the same by the process's CPU time (all threads)
 *   ms_per_step          wall time / steps (median)
 *   *_ms                 per iteration, from the solver's profile timers (weft_profile):
 *                        assemble (E, ∇E, ∇²E of every model term: the barrier's and the
 *                        friction's included, as they are terms), system (forming the
 *                        filtered Newton system), linear (the linear solves), line_search
 *                        (its trial points, the CCD filter included), other (the rest of the
 *                        step: start point, residuals, κ updates); ipc_fill (the pair set:
 *                        BVH refit, broad and narrow phase) and ipc_ccd (the CCD filter) are
 *                        parts of line_search and other, not further terms ("-" for none)
 *   ratio_to_none        ms_per_iteration / none's at the same size (cpu_ratio_to_none: by
 *                        CPU time)
 * Under valgrind --tool=callgrind --toggle-collect='timed_steps*' only the timed steps are
 * counted (each child writes its own callgrind.out.PID).
 * Writes <out>/bench_ipc.tsv (through ".partial", renamed when complete) and, unless
 * --no-plot, <out>/bench_ipc.png (experiments/plots/bench_ipc.gp: stacked bars). */
#include "bench.h"

#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: bench_ipc [--sizes N,N,...] [--repeats N] [--warmup N] [--steps N] [--threads N]\n"
    "                 [--iterations N] [--keep-friction] [--scene NAME|FILE] [--out DIR]\n"
    "                 [--no-plot] [--set SECTION.KEY=VAL]...\n"
    "Times one Newton iteration of newton_euler with [contact] model = ipc beside the same\n"
    "solver with model = none on the same steps of drape_sphere, with the breakdown of an\n"
    "iteration from the solver's profile timers and the ratio ipc/none; each measurement in\n"
    "its own process, the repeats alternating none and ipc.\n"
    "Writes DIR/bench_ipc.tsv and DIR/bench_ipc.png (default results/); columns: see\n"
    "experiments/bench_ipc.c.\n"
    "  --sizes N,...      cloth vertices per side, 2..2048 (default 32)\n"
    "  --repeats N        measurements per configuration, median kept (default 3)\n"
    "  --warmup N         untimed steps first (default 10; the cloth lands in step 12)\n"
    "  --steps N          timed steps after them (default 6)\n"
    "  --threads N        threads (default 1)\n"
    "  --iterations N     Newton iteration cap (default 50)\n"
    "  --keep-friction    keep the colliders' friction (default: 0 in both configurations)\n"
    "  --no-plot          no figure (bench_ipc.png: the breakdown as stacked bars)\n"
    "  --set applies to the scene in both configurations\n"
    "                     (e.g. --set contact.barrier_distance=2e-3)\n";

enum { MAX_SIZES = 16, MAX_FRICTION = 16, MAX_SETS = MAX_FRICTION + 2 };

/* The two configurations: the --set that selects each. */
static const struct {
    const char *name, *set;
} configs[] = {{"none", "contact.model=none"}, {"ipc", "contact.model=ipc"}};
enum { NCONFIGS = sizeof configs / sizeof configs[0] };

/* The profile timers reported per iteration: top-level parts of a Newton iteration
 * (their sum and "other" make up the step) or nested in them. */
static const struct {
    const char *timer;
    bool part;
} timers[] = {{"assemble", true},    {"filter", true},    {"linear", true},
              {"line_search", true}, {"ipc_fill", false}, {"ipc_ccd", false}};
enum { NTIMERS = sizeof timers / sizeof timers[0] };

static const weft_bench_column columns[] = {
    {"contact", "%s", "contact", "%-7s"},
    {"n", "%ld", "n", " %4ld"},
    {"vertices", "%ld", NULL, NULL},
    {"threads", "%ld", NULL, NULL},
    {"warmup", "%ld", NULL, NULL},
    {"steps", "%ld", NULL, NULL},
    {"iterations", "%ld", "iters", " %6ld"},
    {"ms_per_iteration", "%.4f", "ms/iter", " %9.3f"},
    {"cpu_ms_per_iteration", "%.4f", "cpu ms/it", " %9.3f"},
    {"ms_per_step", "%.4f", "ms/step", " %9.2f"},
    {"assemble_ms", "%.4f", "assemble", " %9.3f"},
    {"system_ms", "%.4f", "system", " %8.3f"},
    {"linear_ms", "%.4f", "linear", " %8.3f"},
    {"line_search_ms", "%.4f", "line srch", " %9.3f"},
    {"other_ms", "%.4f", "other", " %8.3f"},
    {"ipc_fill_ms", "%.4f", "ipc_fill", " %8.3f"},
    {"ipc_ccd_ms", "%.4f", "ipc_ccd", " %8.3f"},
    {"ratio_to_none", "%.4f", "ratio", " %6.3f"},
    {"cpu_ratio_to_none", "%.4f", "cpu ratio", " %9.3f"},
    {"peak_mib", "%.1f", NULL, NULL},
    {"repeats", "%ld", NULL, NULL},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

/* One measurement's set-up, shared with its child process. */
typedef struct job {
    const weft_cli *cli;
    const char *const *sets; /* NULL-terminated: the configuration's and the friction's */
    int res, threads, warmup, steps;
} job;

/* What a child sends back: status 0 and the figures of its timed steps, or 1. */
typedef struct figures {
    int status;
    long iterations;
    double wall_s, cpu_s;
    double timer_s[NTIMERS]; /* NAN: the profile has no such timer */
    double peak_mib;         /* filled by the parent */
} figures;

/* The timed steps of a measurement, in a function of their own so that callgrind's
 * --toggle-collect='timed_steps*' counts them alone. */
__attribute__((noinline)) static int timed_steps(const weft_solver_type *s, void *st,
                                                 weft_model *m, int steps, weft_error *err) {
    int rc = WEFT_OK;
    for (int i = 0; i < steps && rc == WEFT_OK; i++) rc = s->step(st, m, NULL, err);
    return rc;
}

/* Builds the scene of j, makes its warm-up steps and times its timed steps into f
 * (f->status stays 1 on failure, message printed). */
static void measure(const job *j, figures *f) {
    weft_cli cli = *j->cli;
    cli.steps = -1; /* --steps counts this bench's timed steps, not the scene's */
    weft_model m;
    weft_config *cfg = NULL;
    weft_error err = {{0}};
    if (weft_bench_build(&cli, NULL, j->res, j->sets, j->threads, &m, &cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return;
    }
    const weft_solver_type *s = &weft_newton_euler;
    void *st = weft_solver_create(s, &m, cfg, &err);
    int rc = st ? WEFT_OK : WEFT_ERR_INPUT;
    for (int i = 0; i < j->warmup && rc == WEFT_OK; i++) rc = s->step(st, &m, NULL, &err);
    weft_profile before, after;
    if (rc == WEFT_OK) {
        weft_solver_stats(s, st, &before);
        double w0 = weft_now(), c0 = weft_bench_process_cpu();
        rc = timed_steps(s, st, &m, j->steps, &err);
        f->wall_s = weft_now() - w0, f->cpu_s = weft_bench_process_cpu() - c0;
        weft_solver_stats(s, st, &after);
        weft_profile_since(&after, &before);
    }
    if (rc == WEFT_OK) {
        f->iterations = lround(weft_profile_value(&after, "newton_iterations"));
        for (int k = 0; k < NTIMERS; k++)
            f->timer_s[k] = weft_profile_value(&after, timers[k].timer);
        f->status = f->iterations > 0 ? 0 : 1;
        if (f->status)
            fprintf(stderr, "error: %d^2: no Newton iteration in the timed steps (a free "
                    "fall takes none: time the steps after the landing, --warmup)\n", j->res);
    } else {
        fprintf(stderr, "error: %s at %d^2: %s\n", s->name, j->res,
                weft_cli_unprefixed(err.msg, s->name));
    }
    if (st) s->destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* The child's side of a measurement (weft_bench_in_child): j's threads, then measure. */
static int child_measure(const void *jv, void *out) {
    const job *j = jv;
    figures *f = out;
    *f = (figures){.status = 1};
    weft_bench_pin_threads(j->threads); /* OpenMP's and OpenBLAS's (CHOLMOD) */
    measure(j, f);
    return f->status;
}

/* Runs j in a forked child into f (its peak RSS into f->peak_mib); 0, or -1 on failure. */
static int run_child(const job *j, figures *f) {
    char label[32];
    snprintf(label, sizeof label, "at %d^2", j->res);
    return weft_bench_in_child(child_measure, j, f, sizeof *f, label, &f->peak_mib);
}

/* What a row reports, per repeat first and then as medians over the repeats. */
enum { Q_ITERS, Q_MS_IT, Q_CPU_IT, Q_MS_STEP, Q_OTHER, Q_PEAK, Q_TIMER, NQ = Q_TIMER + NTIMERS };

/* One repeat's figures as the row's quantities q[NQ] (times in ms, per iteration). */
static void quantities(const figures *f, int steps, double *q) {
    const double its = (double)f->iterations;
    double parts = 0.0;
    q[Q_ITERS] = its;
    q[Q_MS_IT] = 1e3 * f->wall_s / its;
    q[Q_CPU_IT] = 1e3 * f->cpu_s / its;
    q[Q_MS_STEP] = 1e3 * f->wall_s / steps;
    for (int k = 0; k < NTIMERS; k++) {
        q[Q_TIMER + k] = 1e3 * f->timer_s[k] / its;
        if (timers[k].part && isfinite(f->timer_s[k])) parts += f->timer_s[k];
    }
    q[Q_OTHER] = 1e3 * (f->wall_s - parts) / its;
    q[Q_PEAK] = f->peak_mib;
}

/* The median of quantity k over the n repeats of f (scratch: n values); NAN if any
 * repeat lacks it. */
static double median_of(const figures *f, int n, int steps, int k, double *scratch) {
    for (int r = 0; r < n; r++) {
        double q[NQ];
        quantities(&f[r], steps, q);
        if (!isfinite(q[k])) return NAN;
        scratch[r] = q[k];
    }
    return weft_bench_median(scratch, n);
}

/* A number cell, or "-" when x is not finite. */
static weft_bench_value cell(double x) {
    return isfinite(x) ? weft_bench_num(x) : weft_bench_none();
}

/* Writes the row of configuration c from its medians q[NQ], beside none's (base). */
static void write_row(weft_bench_table *t, const job *j, int c, const double *q,
                      const double *base, int repeats) {
    weft_bench_value row[NCOLUMNS] = {
        weft_bench_text(configs[c].name),
        weft_bench_int(j->res),
        weft_bench_int((long)j->res * j->res),
        weft_bench_int(j->threads),
        weft_bench_int(j->warmup),
        weft_bench_int(j->steps),
        weft_bench_int(lround(q[Q_ITERS])),
        cell(q[Q_MS_IT]),
        cell(q[Q_CPU_IT]),
        cell(q[Q_MS_STEP]),
        cell(q[Q_TIMER + 0]),
        cell(q[Q_TIMER + 1]),
        cell(q[Q_TIMER + 2]),
        cell(q[Q_TIMER + 3]),
        cell(q[Q_OTHER]),
        cell(q[Q_TIMER + 4]),
        cell(q[Q_TIMER + 5]),
        cell(q[Q_MS_IT] / base[Q_MS_IT]),
        cell(q[Q_CPU_IT] / base[Q_CPU_IT]),
        cell(q[Q_PEAK]),
        weft_bench_int(repeats)};
    weft_bench_row(t, row);
}

/* Measures both configurations at j->res, repeats times alternating, and writes their
 * rows; -1 when a measurement failed. sets[c]: configuration c's overrides. */
static int bench_size(weft_bench_table *t, job j, const char *const *const *sets, int repeats) {
    figures *f = calloc((size_t)NCONFIGS * repeats, sizeof *f);
    double *scratch = malloc((size_t)repeats * sizeof *scratch);
    int rc = f && scratch ? 0 : -1;
    for (int r = 0; r < repeats && rc == 0; r++)
        for (int c = 0; c < NCONFIGS && rc == 0; c++) {
            j.sets = sets[c];
            rc = run_child(&j, &f[c * repeats + r]);
        }
    if (rc == 0) {
        double q[NCONFIGS][NQ];
        for (int c = 0; c < NCONFIGS; c++)
            for (int k = 0; k < NQ; k++)
                q[c][k] = median_of(&f[c * repeats], repeats, j.steps, k, scratch);
        for (int c = 0; c < NCONFIGS; c++) write_row(t, &j, c, q[c], q[0], repeats);
    }
    free(f);
    free(scratch);
    return rc;
}

/* Fills sets with "collider.NAME.friction=0" for every collider and obstacle of the
 * scene at res² (texts in buf, n of them at most), NULL-terminated; -1 after an error. */
static int friction_sets(const weft_cli *cli, int res, const char **sets, char (*buf)[96],
                         int n) {
    weft_model m;
    weft_error err = {{0}};
    weft_cli probe = *cli;
    probe.steps = -1;
    if (weft_bench_build(&probe, NULL, res, NULL, 1, &m, NULL, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1;
    }
    int k = 0, rc = 0;
    for (int i = 0; i < m.ncolliders + m.nobstacles; i++) {
        const char *name = i < m.ncolliders ? m.colliders[i].name
                                            : m.obstacles[i - m.ncolliders].name;
        if (k == n) {
            fprintf(stderr, "error: more than %d colliders (use --keep-friction)\n", n);
            rc = -1;
            break;
        }
        snprintf(buf[k], sizeof buf[k], "collider.%s.friction=0", name);
        sets[k] = buf[k], k++;
    }
    sets[k] = NULL;
    weft_model_free(&m);
    return rc;
}

int main(int argc, char **argv) {
    int sizes[MAX_SIZES] = {32}, nsizes = 1;
    double repeats = 3, warmup = 10;
    int ns = weft_bench_take_ints(&argc, argv, "--sizes", 2, 2048, sizes, MAX_SIZES);
    int nr = weft_bench_take_number(&argc, argv, "--repeats", 1, WEFT_BENCH_MAX_REPEATS, &repeats);
    int nw = weft_bench_take_number(&argc, argv, "--warmup", 0, 1e6, &warmup);
    bool keep = weft_bench_take_flag(&argc, argv, "--keep-friction");
    if (ns < 0 || nr < 0 || nw < 0) return 2;
    if (ns > 0) nsizes = ns;
    if (repeats != floor(repeats) || warmup != floor(warmup)) {
        fprintf(stderr, "error: --repeats and --warmup take whole numbers\n");
        return 2;
    }
    weft_cli cli;
    weft_bench_parse(argc, argv, &cli, usage, 2 + MAX_SETS);
    if (!cli.scene_given) cli.scene = "drape_sphere";
    if (cli.iterations == 0) cli.iterations = 50;
    const int steps = cli.steps > 0 ? cli.steps : 6, threads = cli.threads > 0 ? cli.threads : 1;

    /* Each configuration's overrides: its contact model, then the friction's. */
    static char buf[MAX_FRICTION][96];
    const char *friction[MAX_FRICTION + 1] = {NULL};
    if (!keep && friction_sets(&cli, 4, friction, buf, MAX_FRICTION) != 0) return 1;
    static const char *sets[NCONFIGS][MAX_SETS];
    const char *const *cset[NCONFIGS];
    for (int c = 0; c < NCONFIGS; c++) {
        sets[c][0] = configs[c].set;
        for (int k = 0; k <= MAX_FRICTION; k++) sets[c][k + 1] = friction[k];
        cset[c] = sets[c];
    }

    weft_bench_table t;
    if (weft_bench_open(&t, cli.out, "bench_ipc.tsv", columns, NCOLUMNS) != 0) return 1;
    weft_bench_comment(&t, "bench_ipc: %s, newton_euler, iteration cap %d, %d thread(s); "
                       "%d untimed steps then %d timed; colliders' friction %s in both",
                       cli.scene, cli.iterations, threads, (int)warmup, steps,
                       keep ? "the scene's" : "0");
    weft_bench_comment(&t, "medians over %d repeats (alternating none, ipc), each in its own "
                       "process; *_ms: profile timers per Newton iteration; ipc_fill and "
                       "ipc_ccd are inside line_search and other; other = wall - assemble - "
                       "system - linear - line_search", (int)repeats);
    weft_bench_header(&t);
    int failed = 0;
    for (int si = 0; si < nsizes && !failed; si++) {
        job j = {&cli, NULL, sizes[si], threads, (int)warmup, steps};
        if (bench_size(&t, j, cset, (int)repeats) != 0) failed = 1;
    }
    int rc = weft_bench_close(&t, failed ? "a measurement failed" : NULL);
    if (rc != 0 || cli.no_plot) return rc;
    return weft_bench_plot("bench_ipc", t.path, cli.out);
}
