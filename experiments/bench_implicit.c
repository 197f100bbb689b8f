/* bench_implicit.c — cost of the linear solves of an implicit step: filtered CHOLMOD
 * (analyse / factorise / solve) against pre-filtered PCG (Tamstorf, Jones & McCormick
 * 2015) with every registered preconditioner, on the hanging cloth at N² vertices
 * (--sizes, default 32,64,128,256; 512 works, with --max-factor-gib bounding CHOLMOD).
 *
 * The system is the first Newton iteration of a backward-Euler step (Baraff & Witkin
 * 1998; Kim & Eberle 2020 §4.2) on G(x) = ½ (x − x̃)ᵀ M (x − x̃) / h² + E(x),
 *     A Δx = b,   A = M/h² + ∇²E(x) (WEFT_HESSIAN_ANALYTIC),   b = −∇G(x),   x = x̃,
 * filtered at the pins (z = 0), after --steps (default 15) pbd_gauss_seidel steps.
 *
 * Phases of main: parse_options; write_preamble (the table's description); run_size per
 * size: build_sys, bench_assembly, bench_cholmod (analyse, filter, factor, solve; skipped
 * when the predicted factor passes the memory limit), bench_preconditioners (per
 * preconditioner: bench_setup, then bench_ppcg to 1e-6 and 1e-8: the first solve on a
 * fresh solver, median of ≥ --repeats fresh solvers, and the per-matrix solve on the
 * set-up state, median of ≥ --repeats, each with its peak memory) and bench_newton; then
 * the summaries (print_overtake, print_preconditioners, print_newton) and the plot.
 * Every timed figure is a median of repeats (weft_bench_measure); wall and process CPU
 * time are both written, and CHOLMOD and PPCG run on the same thread count (--threads,
 * default 1), CHOLMOD's OpenMP and OpenBLAS pinned to it.
 * A PPCG solve to 1e-8 whose Δx differs from CHOLMOD's by more than AGREE_TOL fails the
 * benchmark (exit 1) after the table is written.
 * Writes <out>/bench_implicit.tsv and, unless --no-plot, <out>/bench_implicit.png
 * (experiments/plots/bench_implicit.gp). Every column, and what was measured with it:
 * papers/multigrid.md.
 */
#include "bench.h"

#include "weft_cholmod.h"
#include "weft_linsolve.h"
#include "weft_solvers.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: bench_implicit [--sizes N,N,...] [--steps N] [--threads N] [--out DIR]\n"
    "                      [--ppcg-cap N] [--max-factor-gib G] [--no-newton]\n"
    "                      [--preconditioners NAME,...] [--repeats N]\n"
    "                      [--no-plot] [--set SECTION.KEY=VAL]...\n"
    "Times the linear solve of one backward-Euler Newton iteration of the hanging cloth at\n"
    "N^2 vertices: assembly, CHOLMOD analyse/factorise/solve, and PPCG with every registered\n"
    "preconditioner to relative residual 1e-6 and 1e-8, with set-up time and peak memory.\n"
    "Writes DIR/bench_implicit.tsv and DIR/bench_implicit.png (default results/).\n"
    "  --sizes N,...  grid sizes 2..2048 (default 32,64,128,256; 512 is 262 144 vertices)\n"
    "  --ppcg-cap N   PPCG iteration cap (default 100000); capped rows say max_iter\n"
    "  --max-factor-gib G  skip CHOLMOD when its predicted factor exceeds G GiB (default\n"
    "                 half of MemAvailable)\n"
    "  --no-newton    leave out the newton_euler rows\n"
    "  --repeats N    timed runs at least of CHOLMOD's factorise + solve and of the PPCG\n"
    "                 solves after each first one (default 3; median written)\n"
    "  --preconditioners NAME,...  only these registered preconditioners (default all)\n"
    "  --steps N      pbd_gauss_seidel steps that deform the cloth first (default 15)\n"
    "  --threads N    threads of PPCG (default 1) and of the second assembly timing\n"
    "                 (default 2; the first uses 1)\n"
    "  --set applies to the scene (e.g. --set material.stretch_stiffness=5000)\n";

enum { REPEATS = 5, MAX_SIZES = 16, PPCG_CAP = 100000, DEFAULT_STEPS = 15 };
static const double BUDGET_S = 4.0;   /* stop repeating a method after this much, s */
static const double AGREE_TOL = 1e-4; /* PPCG (1e-8) vs CHOLMOD, relative */

/* Timed runs at least (--repeats) of CHOLMOD's factorise + solve and of each PPCG solve
 * after the first: the per-Newton-system figures the multigrid target compares
 * (papers/tamstorf2015-sa-amg.md). */
static int min_repeats = 3;

/* Each timed method: at least `least` runs, up to REPEATS, fewer once they took BUDGET_S;
 * warm-ups apart. */
static weft_bench_plan plan(int warmup, int least) {
    return (weft_bench_plan){warmup, least, least > REPEATS ? least : REPEATS, BUDGET_S};
}

static const weft_bench_column columns[] = {
    {"res", "%ld", "size", "%5ld^2"},
    {"vertices", "%ld", NULL, NULL},
    {"dofs", "%ld", "dofs", " %8ld"},
    {"blocks", "%ld", NULL, NULL},
    {"method", "%s", "method", "  %-22s"},
    {"threads", "%ld", "thr", " %3ld"},
    {"tol", "%.0e", "tol", " %6.0e"},
    {"iterations", "%ld", "iters", " %7ld"},
    {"ms", "%.4f", "ms", " %11.3f"},
    {"cpu_ms", "%.4f", "cpu_ms", " %11.3f"},
    {"reps", "%ld", "reps", " %4ld"},
    {"rel_diff", "%.3e", "rel_diff", " %9.2e"},
    {"status", "%s", "status", "  %s"},
    {"setup_ms", "%.4f", "setup_ms", " %9.3f"},
    {"first_ms", "%.4f", "first_ms", " %10.3f"},
    {"first_cpu_ms", "%.4f", "first_cpu", " %10.3f"},
    {"ratio", "%.4f", "ratio", " %7.3f"},
    {"rss_mib", "%.2f", "rss_MiB", " %8.1f"},
    {"system_ratio", "%.4f", "sys_ratio", " %9.3f"},
    {"first_reps", "%ld", "f_reps", " %6ld"},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

/* The Newton system of one size. */
typedef struct newton_sys {
    int res;             /* grid vertices per side */
    weft_model m;
    weft_config *cfg;    /* its settings (scene and --set) */
    weft_assembly *as;
    weft_bsr *A;         /* M/h² + ∇²E(x) */
    weft_filter f;       /* pins, z = 0 */
    double *x, *xt, *b;  /* x (m), x̃ (m), b = −∇G(x) (N); 3n each */
    double *mh2;         /* m_i / h², n values, N/m */
    int threads;         /* the second assembly timing's threads */
    int ppcg_threads;    /* threads of the PPCG products */
    int timing_threads;  /* threads of the assembly being timed */
} newton_sys;

/* One table row; NAN/-1 fields are written as "-". */
typedef struct row {
    const char *method;
    int threads;
    double tol;          /* PPCG relative residual, NAN otherwise */
    int iterations;      /* PPCG iterations, -1 otherwise */
    double ms;           /* median wall-clock time, ms */
    double cpu_ms;       /* median process CPU time (all threads), ms; NAN for CHOLMOD's
                            stages, timed inside the solver by wall clock only */
    int reps;
    double rel_diff;     /* ‖Δx − Δx_cholmod‖ / ‖Δx_cholmod‖, NAN when not a solve */
    const char *status;
    double setup_ms;     /* preconditioner set-up + first update, ms; NAN otherwise */
    double first_ms;     /* first (cold) PPCG solve, ms; NAN otherwise */
    double first_cpu_ms; /* its process CPU time, ms; NAN otherwise */
    double ratio;        /* first_cpu_ms / CHOLMOD's cold solve's CPU time; NAN otherwise */
    double rss_mib;      /* peak resident memory added by the method, MiB; NAN unknown */
    double system_ratio; /* cpu_ms / CHOLMOD's factor + solve CPU time (one further Newton
                            system of the pattern, set-ups kept); NAN otherwise */
    int first_reps;      /* first solves timed (each on a fresh solver), -1 otherwise */
} row;

typedef struct table {
    row r[96];
    int n;
} table;

/* A row without the preconditioner-bench figures (set-up, first solve, ratio, memory). */
#define ROW(...) ((row){__VA_ARGS__, .setup_ms = NAN, .first_ms = NAN, .first_cpu_ms = NAN, \
                        .ratio = NAN, .rss_mib = NAN, .system_ratio = NAN, .first_reps = -1})

/* --- peak resident memory around a method (Linux /proc) ------------------------------ */

/* A "KEY: N kB" figure of a /proc file (/proc/self/status, /proc/meminfo), KiB; -1 if
 * unreadable. */
static double proc_kib(const char *file, const char *key) {
    FILE *f = fopen(file, "r");
    if (!f) return -1;
    char line[256];
    double v = -1;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, k) && line[k] == ':') {
            v = strtod(line + k + 1, NULL);
            break;
        }
    fclose(f);
    return v;
}

/* Resets the high-water mark VmHWM to the current VmRSS; returns that VmRSS (KiB), or -1
 * when the reset is not allowed (then nothing is measured). */
static double rss_begin(void) {
#ifdef __GLIBC__
    malloc_trim(0); /* heap memory freed by earlier methods back to the kernel first */
#endif
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    bool ok = fputs("5", f) >= 0;
    ok = fclose(f) == 0 && ok;
    return ok ? proc_kib("/proc/self/status", "VmRSS") : -1;
}

/* Peak resident memory added since rss_begin returned base, MiB; NAN when unknown. */
static double rss_end(double base) {
    double hwm = proc_kib("/proc/self/status", "VmHWM");
    if (base < 0 || hwm < 0) return NAN;
    return fmax(0.0, hwm - base) / 1024.0;
}

static double rel_diff(const double *a, const double *b, int n3) {
    double d = 0.0, r = 0.0;
    for (int k = 0; k < n3; k++) d += (a[k] - b[k]) * (a[k] - b[k]), r += b[k] * b[k];
    return r > 0.0 ? sqrt(d / r) : sqrt(d);
}

static void free_sys(newton_sys *s) {
    weft_assembly_free(&s->as);
    weft_filter_destroy(&s->f);
    weft_model_free(&s->m);
    weft_config_free(&s->cfg);
    free(s->x);
    free(s->xt);
    free(s->b);
    free(s->mh2);
    memset(s, 0, sizeof *s);
}

/* Builds the hanging cloth at res², deforms it with `steps` PBD steps and forms the
 * Newton system at x = x̃ (A and b; the assembly is left holding A). */
static int build_sys(const weft_cli *base, int res, int steps, int threads, int ppcg_threads,
                     newton_sys *s) {
    memset(s, 0, sizeof *s);
    s->res = res, s->threads = threads, s->ppcg_threads = ppcg_threads;
    weft_cli cli = *base;
    cli.steps = -1; /* --steps counts the PBD steps below, not the scene's */
    weft_error err = {{0}};
    if (weft_bench_build(&cli, NULL, res, NULL, threads, &s->m, &s->cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1;
    }
    weft_model *m = &s->m;
    weft_bench_steps deform;
    if (steps > 0 &&
        weft_bench_solver_steps(&weft_pbd_gauss_seidel, m, s->cfg, steps, 0, &deform, &err) !=
            WEFT_OK) {
        fprintf(stderr, "error: pbd_gauss_seidel while deforming the %d^2 cloth: %s\n", res,
                err.msg);
        return -1;
    }
    int n = m->n;
    size_t n3 = 3 * (size_t)n;
    double h = m->dt;
    s->x = malloc(n3 * sizeof *s->x);
    s->xt = malloc(n3 * sizeof *s->xt);
    s->b = malloc(n3 * sizeof *s->b);
    s->mh2 = malloc((size_t)n * sizeof *s->mh2);
    s->as = weft_assembly_create(m, &err);
    if (!s->x || !s->xt || !s->b || !s->mh2 || !s->as ||
        weft_filter_create(&s->f, n, &err) != WEFT_OK) {
        fprintf(stderr, "error: %d^2 system: %s\n", res, s->as ? "out of memory" : err.msg);
        return -1;
    }
    s->A = weft_assembly_matrix(s->as);
    weft_inertial_target(m, m->x, m->v, s->xt);
    weft_model_apply_pins(m, m->t + h, s->xt);
    memcpy(s->x, s->xt, n3 * sizeof *s->x);
    static const double zero[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        s->mh2[i] = m->mass[i] / (h * h);
        if (m->pin[i] >= 0) weft_filter_pin(&s->f, i, zero);
    }
    return 0;
}

/* Assembles A = M/h² + ∇²E(x) and b = −∇G(x) into s (threads: OpenMP threads). */
static int assemble(newton_sys *s, int threads) {
    double E = weft_assembly_run(s->as, &s->m, s->x, WEFT_HESSIAN_ANALYTIC, s->b, threads);
    if (!isfinite(E)) {
        weft_error err = {{0}};
        weft_assembly_check(s->as, &err);
        fprintf(stderr, "error: %d^2 assembly: %s\n", s->res, err.msg);
        return -1;
    }
    weft_bsr_add_diagonal(s->A, s->mh2);
    for (int i = 0; i < s->m.n; i++)
        for (int c = 0; c < 3; c++) {
            size_t k = 3 * (size_t)i + c;
            s->b[k] = -(s->b[k] + s->mh2[i] * (s->x[k] - s->xt[k]));
        }
    return 0;
}

static void add_row(table *t, row r) {
    if (t->n < (int)(sizeof t->r / sizeof t->r[0])) t->r[t->n++] = r;
}

/* One assembly (a weft_bench_fn): figures wall and process CPU time, s. */
static int time_assembly(void *user, double *out) {
    newton_sys *s = user;
    double t0 = weft_now(), c0 = weft_bench_process_cpu();
    int rc = assemble(s, s->timing_threads);
    out[0] = weft_now() - t0, out[1] = weft_bench_process_cpu() - c0;
    return rc == 0 ? WEFT_BENCH_MORE : WEFT_BENCH_FAIL;
}

/* Assembly with 1 and s->threads threads (distinct counts only). */
static int bench_assembly(newton_sys *s, table *t) {
    int counts[2] = {1, s->threads};
    for (int c = 0; c < (s->threads > 1 ? 2 : 1); c++) {
        s->timing_threads = counts[c];
        weft_bench_plan p = plan(1, 1);
        weft_bench_stats st;
        if (weft_bench_measure(&p, 2, time_assembly, s, &st) != 0) return -1;
        add_row(t, ROW("assembly", counts[c], NAN, -1, 1e3 * st.median[0],
                         1e3 * st.median[1], st.reps, NAN, "ok"));
    }
    return 0;
}

/* A CHOLMOD solver on a system, for the timed calls below. */
typedef struct cholmod_run {
    newton_sys *s;
    weft_cholmod_solver *ch;
    double *dx;
} cholmod_run;

/* Solves with the CHOLMOD solver; prints the error and fails when it does not converge. */
static int run_cholmod(cholmod_run *c) {
    weft_error err = {{0}};
    if (weft_cholmod_solver_solve(c->ch, c->s->A, &c->s->f, c->s->b, c->dx, &err) ==
        WEFT_SOLVE_CONVERGED)
        return WEFT_BENCH_MORE;
    fprintf(stderr, "error: %d^2 CHOLMOD: %s\n", c->s->res, err.msg);
    return WEFT_BENCH_FAIL;
}

/* A fresh analysis and solve (a weft_bench_fn): figures the analysis time and the whole
 * cold call's process CPU time (analyse + filter + factor + solve), s. */
static int time_analyse(void *user, double *out) {
    cholmod_run *c = user;
    weft_cholmod_solver_reset(c->ch);
    double c0 = weft_bench_process_cpu();
    int rc = run_cholmod(c);
    out[1] = weft_bench_process_cpu() - c0;
    weft_cholmod_timings tm;
    weft_cholmod_solver_timings(c->ch, &tm, NULL);
    out[0] = tm.analyse_s;
    return rc;
}

/* A solve with the analysis kept (a weft_bench_fn): figures the filter, factor, solve and
 * factor + solve times by the solver's timers, and the whole call's process CPU time, s. */
static int time_factor_solve(void *user, double *out) {
    cholmod_run *c = user;
    double c0 = weft_bench_process_cpu();
    int rc = run_cholmod(c);
    out[4] = weft_bench_process_cpu() - c0;
    weft_cholmod_timings tm;
    weft_cholmod_solver_timings(c->ch, &tm, NULL);
    out[0] = tm.filter_s, out[1] = tm.factor_s, out[2] = tm.solve_s;
    out[3] = tm.factor_s + tm.solve_s;
    return rc;
}

/* CHOLMOD's predicted memory for K's factor, bytes: the symbolic analysis the solver would
 * do (cholmod_analyze, default orderings) on A's pattern, which is K's; L's numeric
 * values (xsize doubles, supernodal or simplicial) and its integer structure. Negative
 * when the analysis fails. */
static double predict_factor_bytes(const weft_bsr *A, double *lnz) {
    cholmod_common cc;
    cholmod_start(&cc);
    cc.print = 0;
    weft_error err = {{0}};
    double bytes = -1;
    cholmod_sparse *S = weft_bsr_cholmod_pattern(A, &cc, &err);
    cholmod_factor *L = S ? cholmod_analyze(S, &cc) : NULL;
    if (L) {
        double x = (double)L->xsize, ints = L->is_super ? (double)L->ssize : x;
        bytes = 8.0 * x + (double)sizeof(int) * ints;
        *lnz = cc.lnz;
    }
    cholmod_free_factor(&L, &cc);
    cholmod_free_sparse(&S, &cc);
    cholmod_finish(&cc);
    return bytes;
}

/* CHOLMOD: analyse (reset before each run), then factor/solve/filter with the analysis
 * kept. Leaves the solution in dx. Returns factor+solve median in ms, or NAN on failure;
 * *cold_ms gets analyse + filter + factor + solve (medians), ms. */
static double bench_cholmod(newton_sys *s, table *t, double *dx, double *cold_ms,
                            double *cold_cpu_ms) {
    weft_error err = {{0}};
    double base = rss_begin();
    cholmod_run c = {s, weft_cholmod_solver_create(&err), dx};
    if (!c.ch) {
        fprintf(stderr, "error: %s\n", err.msg);
        return NAN;
    }
    weft_cholmod_solver_set_threads(c.ch, s->ppcg_threads);
    weft_bench_stats an, fs;
    weft_bench_plan pa = plan(1, 1), pf = plan(0, min_repeats);
    if (weft_bench_measure(&pa, 2, time_analyse, &c, &an) != 0 ||
        weft_bench_measure(&pf, 5, time_factor_solve, &c, &fs) != 0) {
        weft_cholmod_solver_free(&c.ch);
        return NAN;
    }
    double rss = rss_end(base);
    const char *ord = weft_cholmod_solver_ordering(c.ch);
    add_row(t, ROW("cholmod_analyse", 1, NAN, -1, 1e3 * an.median[0], NAN, an.reps, NAN,
                     ord));
    add_row(t, ROW("cholmod_filter", 1, NAN, -1, 1e3 * fs.median[0], NAN, fs.reps, NAN,
                     "ok"));
    add_row(t, ROW("cholmod_factor", 1, NAN, -1, 1e3 * fs.median[1], NAN, fs.reps, NAN,
                     "ok"));
    add_row(t, ROW("cholmod_solve", 1, NAN, -1, 1e3 * fs.median[2], NAN, fs.reps, NAN,
                     "ok"));
    /* Its CPU time is that of the whole call: filter + factor + solve. Its row carries the
     * memory of the whole CHOLMOD measurement (analysis, factor, solves) and the cold
     * total analyse + filter + factor + solve in first_ms. */
    double fs_ms = 1e3 * fs.median[3];
    *cold_ms = 1e3 * (an.median[0] + fs.median[0] + fs.median[1] + fs.median[2]);
    *cold_cpu_ms = 1e3 * an.median[1];
    row r = ROW("cholmod_factor_solve", 1, NAN, -1, fs_ms, 1e3 * fs.median[4], fs.reps,
                NAN, "ok");
    r.first_ms = *cold_ms, r.first_cpu_ms = *cold_cpu_ms, r.ratio = 1.0, r.rss_mib = rss;
    r.system_ratio = 1.0;
    add_row(t, r);
    weft_cholmod_solver_free(&c.ch);
    return fs_ms;
}

/* A preconditioner's set-up on a system, for time_setup. */
typedef struct setup_run {
    newton_sys *s;
    const weft_precond_type *pc;
    const void *settings;   /* its settings (the scene's and --set's [section] keys) */
    weft_error err;
} setup_run;

/* setup + update on a fresh state (a weft_bench_fn): figures wall time, s (create and
 * destroy outside the clock). */
static int time_setup(void *user, double *out) {
    setup_run *r = user;
    void *st = r->pc->create(r->s->m.n, r->settings, r->s->ppcg_threads, &r->err);
    if (!st) return WEFT_BENCH_FAIL;
    double t0 = weft_now();
    int rc = r->pc->setup ? r->pc->setup(st, r->s->A, r->s->x, &r->err) : WEFT_OK;
    if (rc == WEFT_OK) rc = r->pc->update(st, r->s->A, &r->s->f, r->s->x, &r->err);
    out[0] = weft_now() - t0;
    r->pc->destroy(st);
    return rc == WEFT_OK ? WEFT_BENCH_MORE : WEFT_BENCH_FAIL;
}

/* The median set-up + first update of pc, ms; NAN (with a message) when it fails. */
static double bench_setup(newton_sys *s, const weft_precond_type *pc, const void *settings) {
    setup_run r = {.s = s, .pc = pc, .settings = settings};
    weft_bench_plan p = plan(0, min_repeats);
    weft_bench_stats st;
    if (weft_bench_measure(&p, 1, time_setup, &r, &st) != 0 || st.reps < 1) {
        fprintf(stderr, "error: %d^2 %s set-up: %s\n", s->res, pc->name, r.err.msg);
        return NAN;
    }
    return 1e3 * st.median[0];
}

/* A PPCG solver on a system, for time_ppcg. */
typedef struct ppcg_run {
    newton_sys *s;
    weft_ppcg *p;
    weft_ppcg_options o;
    double *dx;
    int iters;              /* iterations of the last solve */
    weft_solve_status st;   /* status of the last solve */
    weft_error err;
} ppcg_run;

/* One PPCG solve (a weft_bench_fn): figures wall and process CPU time, s; the last
 * repeat when it did not converge. */
static int time_ppcg(void *user, double *out) {
    ppcg_run *r = user;
    double t0 = weft_now(), c0 = weft_bench_process_cpu();
    r->st = weft_ppcg_solve(r->p, r->s->A, &r->s->f, r->s->b, r->dx, &r->o, &r->iters, &r->err);
    out[0] = weft_now() - t0, out[1] = weft_bench_process_cpu() - c0;
    return r->st == WEFT_SOLVE_CONVERGED ? WEFT_BENCH_MORE : WEFT_BENCH_LAST;
}

/* The first solve of a fresh solver (a weft_bench_fn): the last solver is freed and a new
 * one solves, so its time holds the preconditioner's set-up, first update and the
 * iterations, what one Newton system costs from nothing (solver allocation untimed). */
static int time_first(void *user, double *out) {
    ppcg_run *r = user;
    weft_ppcg_free(&r->p);
    if (!(r->p = weft_ppcg_create(r->s->m.n, &r->err))) {
        fprintf(stderr, "error: %s\n", r->err.msg);
        return WEFT_BENCH_FAIL;
    }
    return time_ppcg(user, out);
}

/* PPCG with preconditioner pc to tol (iteration cap `cap`); compares with CHOLMOD's dx
 * (dx_ref NULL: no comparison). The first solve on the fresh solver (set-up + update +
 * iterations) fills first_ms; the solves after it (at least --repeats of them, on the
 * set-up state: update + iterations, what each further Newton system of the pattern
 * costs) fill ms and cpu_ms. setup_ms is pc's measured set-up, cold_cpu_ms CHOLMOD's
 * analyse + filter + factor + solve and fs_cpu_ms its filter + factor + solve, CPU ms
 * (NAN: none). Returns the median ms (NAN if the solve did not converge); *agree_ok false
 * on a 1e-8 disagreement of a converged solve. */
static double bench_ppcg(newton_sys *s, table *t, const weft_precond_type *pc,
                         const void *settings, const char *name,
                         double tol, int cap, double setup_ms, double cold_cpu_ms,
                         double fs_cpu_ms, const double *dx_ref, double *dx, bool *agree_ok) {
    ppcg_run r = {.s = s, .dx = dx, .o = weft_ppcg_defaults(), .st = WEFT_SOLVE_CONVERGED};
    double base = rss_begin();
    r.o.precond = pc, r.o.tol = tol, r.o.max_iter = cap, r.o.threads = s->ppcg_threads;
    r.o.positions = s->x, r.o.precond_settings = settings;
    /* First solves, each on a fresh solver; then, on the last one's set-up state, the
     * per-system solves (none after a first solve that did not converge). */
    weft_bench_plan p = plan(0, min_repeats);
    weft_bench_stats first, st;
    if (weft_bench_measure(&p, 2, time_first, &r, &first) != 0) {
        weft_ppcg_free(&r.p);
        return NAN;
    }
    st = first;
    if (r.st == WEFT_SOLVE_CONVERGED) weft_bench_measure(&p, 2, time_ppcg, &r, &st);
    weft_ppcg_free(&r.p);
    double rss = rss_end(base);
    double d = dx_ref ? rel_diff(dx, dx_ref, 3 * s->m.n) : NAN;
    if (dx_ref && tol <= 1e-8 && r.st != WEFT_SOLVE_MAX_ITER && !(d <= AGREE_TOL)) {
        fprintf(stderr, "error: %d^2 %s to %g: |dx - dx_cholmod| / |dx_cholmod| = %.3g > %g "
                "(%s after %d iterations)\n", s->res, name, tol, d, AGREE_TOL,
                weft_solve_status_name(r.st), r.iters);
        *agree_ok = false;
    }
    if (r.st == WEFT_SOLVE_MAX_ITER)
        fprintf(stderr, "note: %d^2 %s to %g: stopped at the cap of %d iterations\n", s->res,
                name, tol, cap);
    double ms = 1e3 * st.median[0];
    row w = ROW(name, s->ppcg_threads, tol, r.iters, ms, 1e3 * st.median[1], st.reps, d,
                weft_solve_status_name(r.st));
    w.setup_ms = setup_ms, w.first_ms = 1e3 * first.median[0], w.rss_mib = rss;
    w.first_cpu_ms = 1e3 * first.median[1], w.first_reps = first.reps;
    w.ratio = w.first_cpu_ms / cold_cpu_ms; /* NAN without CHOLMOD */
    w.system_ratio = w.cpu_ms / fs_cpu_ms;
    add_row(t, w);
    return r.st == WEFT_SOLVE_CONVERGED ? ms : NAN;
}

/* NEWTON SECTION: one iteration of newton_euler (solvers/newton.c) with
 * solver.linear = cholmod, through create/step/destroy and the solver's profile, on
 * the same deformed cloth (run after the linear benchmarks: it moves the model on). Two
 * steps: the first, untimed, does CHOLMOD's one symbolic analysis; the second is timed,
 * and its wall and CPU time and its stage timers are divided by its Newton iterations,
 * for the target "one Newton iteration ≤ 1.3 × (factorise + solve)", and set beside the
 * factorise + solve of those same iterations. It runs with the PPCG thread count
 * (--threads, default 1), with the default PSD-projected
 * Hessian ("newton_*" rows: the bending hinges projected in closed form in hinge
 * coordinates), with hessian = exact
 * ("newton_exact_*": on this deformed cloth the first system is not positive definite, so
 * the step falls back to the projected Hessian, "fallback"), and with hessian = clamp
 * ("newton_clamp_*": every element Hessian clamped by the generic 8×8 eigen-solver, the
 * reference projection), which shows what the closed-form hinge projection saves. */
static int bench_newton(newton_sys *s, table *t, weft_solver_hessian hessian,
                        double *ratio) {
    weft_model *m = &s->m;
    weft_implicit_settings *set = weft_config_find(s->cfg, weft_newton_euler.settings);
    set->linear = 0; /* weft_linear_registry[0]: cholmod */
    set->hessian = hessian;
    set->common.threads = s->ppcg_threads; /* as PPCG: comparable with serial CHOLMOD */
    weft_error err = {{0}};
    weft_bench_steps run;
    int rc = weft_bench_solver_steps(&weft_newton_euler, m, s->cfg, 1, 1, &run, &err);
    const weft_profile *p = &run.prof;
    double wall = run.wall_s, cpu = run.cpu_s;
    long it = rc == WEFT_OK ? (long)weft_profile_value(p, "newton_iterations") : 0;
    if (rc != WEFT_OK || it <= 0) {
        fprintf(stderr, "error: %d^2 newton_euler: %s\n", s->res,
                rc != WEFT_OK ? err.msg : "no Newton iteration in the timed step");
        return -1;
    }
    double k = 1e3 / (double)it;
    int th = set->common.threads;
    /* Row names are string literals (rows keep the pointer). */
    static const char *const names[3][6] = {
        {"newton_iteration", "newton_assemble", "newton_filter", "newton_linear",
         "newton_line_search", "newton_factor_solve"},
        {"newton_exact_iteration", "newton_exact_assemble", "newton_exact_filter",
         "newton_exact_linear", "newton_exact_line_search", "newton_exact_factor_solve"},
        {"newton_clamp_iteration", "newton_clamp_assemble", "newton_clamp_filter",
         "newton_clamp_linear", "newton_clamp_line_search", "newton_clamp_factor_solve"}};
    static const char *const hname[3] = {"projected", "exact", "clamp"};
    const char *const *nm = names[hessian % 3];
#define NEWTON_ROW(idx, iters, ms, cpu_ms, status) \
    add_row(t, ROW(nm[idx], th, NAN, iters, ms, cpu_ms, 1, NAN, status))
    /* "fallback": some system was not positive definite with the exact Hessian and was
     * solved again with the projected one (two assemblies and factorisations). */
    double fallbacks = weft_profile_value(p, "fallbacks");
    NEWTON_ROW(0, (int)it, wall * k, cpu * k,
               weft_profile_value(p, "setups") != 0 ? "re-analysed"
               : fallbacks != 0                     ? "fallback"
                                                    : "ok");
    NEWTON_ROW(1, -1, weft_profile_value(p, "assemble") * k, NAN, "ok");
    NEWTON_ROW(2, -1, weft_profile_value(p, "filter") * k, NAN, "ok");
    NEWTON_ROW(3, -1, weft_profile_value(p, "linear") * k, NAN, "ok");
    NEWTON_ROW(4, -1, weft_profile_value(p, "line_search") * k, NAN, "ok");
    /* The same iterations' own CHOLMOD factorise + solve: the criterion's denominator,
     * measured inside the very step it divides. */
    double fs = (weft_profile_value(p, "factor") + weft_profile_value(p, "solve")) * k;
    NEWTON_ROW(5, -1, fs, NAN, "ok");
#undef NEWTON_ROW
    *ratio = wall * k / fs;
    printf("  %4d^2: one newton_euler iteration (hessian=%s) %.1f ms = %.2f x its own CHOLMOD "
           "factorise + solve (%.1f ms); assembly %.1f ms; %.0f of %.0f systems fell back to "
           "the projected Hessian\n", s->res,
           hname[hessian % 3], wall * k, *ratio, fs,
           weft_profile_value(p, "assemble") * k, fallbacks,
           weft_profile_value(p, "linear_solves"));
    return 0;
}

/* The 1-, 5- and 15-minute load averages from /proc/loadavg, or "unknown": timings on a
 * shared machine mean little without them. */
static const char *load_average(char *buf, size_t size) {
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/loadavg", "r");
    double a, b, c;
    if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(buf, size, "%.2f %.2f %.2f", a, b, c);
    if (f) fclose(f);
    return buf;
}

/* Writes the rows of one size to the results table. */
static void write_rows(weft_bench_table *out, const newton_sys *s, const table *t) {
    for (int k = 0; k < t->n; k++) {
        const row *r = &t->r[k];
        weft_bench_value v[NCOLUMNS] = {
            weft_bench_int(s->res),
            weft_bench_int(s->m.n),
            weft_bench_int(3 * s->m.n),
            weft_bench_int(s->A->nnzb),
            weft_bench_text(r->method),
            weft_bench_int(r->threads),
            isnan(r->tol) ? weft_bench_none() : weft_bench_num(r->tol),
            r->iterations >= 0 ? weft_bench_int(r->iterations) : weft_bench_none(),
            weft_bench_num(r->ms),
            isnan(r->cpu_ms) ? weft_bench_none() : weft_bench_num(r->cpu_ms),
            weft_bench_int(r->reps),
            isnan(r->rel_diff) ? weft_bench_none() : weft_bench_num(r->rel_diff),
            weft_bench_text(r->status),
            isnan(r->setup_ms) ? weft_bench_none() : weft_bench_num(r->setup_ms),
            isnan(r->first_ms) ? weft_bench_none() : weft_bench_num(r->first_ms),
            isnan(r->first_cpu_ms) ? weft_bench_none() : weft_bench_num(r->first_cpu_ms),
            isnan(r->ratio) ? weft_bench_none() : weft_bench_num(r->ratio),
            isnan(r->rss_mib) ? weft_bench_none() : weft_bench_num(r->rss_mib),
            isnan(r->system_ratio) ? weft_bench_none() : weft_bench_num(r->system_ratio),
            r->first_reps >= 0 ? weft_bench_int(r->first_reps) : weft_bench_none()};
        weft_bench_row(out, v);
    }
}

/* Whether the comma-separated list holds name. */
static bool in_list(const char *list, const char *name) {
    size_t k = strlen(name);
    for (const char *q = list; *q;) {
        size_t len = strcspn(q, ",");
        if (len == k && !strncmp(q, name, k)) return true;
        q += len + (q[len] == ',');
    }
    return false;
}

/* "2.51x faster than CHOLMOD" / "1.30x slower" for a PPCG / CHOLMOD time ratio (static
 * buffer: one call per printf). */
static const char *faster_text(double ratio) {
    static char buf[48];
    if (!(ratio > 0) || !isfinite(ratio)) return "no CHOLMOD figure";
    if (ratio <= 1) snprintf(buf, sizeof buf, "%.2fx faster than CHOLMOD", 1.0 / ratio);
    else snprintf(buf, sizeof buf, "%.2fx slower than CHOLMOD", ratio);
    return buf;
}

/* ------------------------------------------------------------------------------ */
/* Phases of main: options, the table's preamble, each size, the summaries, the plot */
/* ------------------------------------------------------------------------------ */

/* The command line: weft_cli's options and bench_implicit's own. */
typedef struct options {
    weft_cli cli;
    int sizes[MAX_SIZES], nsizes;
    int cap;            /* PPCG iteration cap */
    double gib;         /* CHOLMOD's predicted factor limit, GiB */
    bool newton;        /* the newton_euler rows */
    const char *only;   /* --preconditioners list, NULL: all */
    int steps;          /* PBD steps that deform the cloth */
    int threads;        /* the second assembly timing's threads */
    int ppcg_threads;   /* PPCG's and CHOLMOD's threads */
} options;

/* Parses argv into o; returns 0, or 2 after a one-line error (exit status). */
static int parse_options(int argc, char **argv, options *o) {
    *o = (options){.sizes = {32, 64, 128, 256}, .nsizes = 4, .cap = PPCG_CAP, .gib = -1};
    double cap = PPCG_CAP, reps = min_repeats;
    int ns = weft_bench_take_ints(&argc, argv, "--sizes", 2, 2048, o->sizes, MAX_SIZES);
    int rc_cap = weft_bench_take_number(&argc, argv, "--ppcg-cap", 1, 1e8, &cap);
    int rc_gib = weft_bench_take_number(&argc, argv, "--max-factor-gib", 0.001, 1e6, &o->gib);
    int rc_reps = weft_bench_take_number(&argc, argv, "--repeats", 1, 100, &reps);
    int rc_only = weft_bench_take_text(&argc, argv, "--preconditioners", &o->only);
    o->newton = !weft_bench_take_flag(&argc, argv, "--no-newton");
    if (ns < 0 || rc_cap < 0 || rc_gib < 0 || rc_reps < 0 || rc_only < 0) return 2;
    if (ns > 0) o->nsizes = ns;
    o->cap = (int)cap, min_repeats = (int)reps;
    for (const char *q = o->only; q && *q;) { /* a subset of the registry */
        size_t len = strcspn(q, ",");
        bool known = false;
        for (int j = 0; weft_precond_registry[j]; j++)
            known |= strlen(weft_precond_registry[j]->name) == len &&
                     !strncmp(weft_precond_registry[j]->name, q, len);
        if (!known) {
            fprintf(stderr, "error: --preconditioners: '%.*s' is not a registered "
                    "preconditioner\n", (int)len, q);
            return 2;
        }
        q += len + (q[len] == ',');
    }
    if (rc_gib == 0)
        o->gib = 0.5 * fmax(proc_kib("/proc/meminfo", "MemAvailable"), 0) / (1024.0 * 1024.0);
    weft_bench_parse(argc, argv, &o->cli, usage, 2);
    o->steps = o->cli.steps >= 0 ? o->cli.steps : DEFAULT_STEPS;
    o->threads = o->cli.threads > 1 ? o->cli.threads : 2;
    o->ppcg_threads = o->cli.threads > 0 ? o->cli.threads : 1;
    return 0;
}

/* The table's description lines before its header. */
static void write_preamble(weft_bench_table *tab, const options *o, int blas_threads) {
    weft_bench_comment(tab, "bench_implicit: hanging_cloth after %d pbd_gauss_seidel steps; "
                       "Newton system A = M/h^2 + analytic-PSD Hessian, b = -grad G at x = x~, "
                       "pins filtered (z = 0)", o->steps);
    weft_bench_comment(tab, "ms: median of the runs done (reps; at least %d of CHOLMOD's "
                       "factor+solve and of each PPCG solve, up to %d while under %.0f s per "
                       "method; assembly and CHOLMOD after one warm-up; on ppcg_* rows the "
                       "solves after the first, on the set-up state: update + iterations, one "
                       "further Newton system); rel_diff: |dx - dx_cholmod| / |dx_cholmod|; "
                       "cpu_ms: process CPU time, all threads (CHOLMOD: of the whole "
                       "filter+factor+solve call)", min_repeats, min_repeats > REPEATS ?
                       min_repeats : REPEATS, BUDGET_S);
    weft_bench_comment(tab, "ppcg_* rows: setup_ms: the preconditioner's setup + first update on "
                       "a fresh state (median); first_ms: the first solve on a fresh solver "
                       "(set-up + iterations), median of first_reps fresh solvers (on "
                       "cholmod_factor_solve: CHOLMOD's analyse + filter + factor + solve); "
                       "first_cpu_ms: its process CPU time (CHOLMOD: of a whole cold solve); "
                       "ratio: first_cpu_ms / CHOLMOD's; rss_mib: peak resident memory the "
                       "method's measurement added (VmHWM reset via /proc/self/clear_refs, "
                       "minus VmRSS then), MiB; system_ratio: cpu_ms / cholmod_factor_solve's "
                       "cpu_ms (one further Newton system of the same pattern, set-up and "
                       "analysis kept); PPCG cap %d iterations", o->cap);
    weft_bench_comment(tab, "threads: PPCG %d, CHOLMOD's OpenMP and BLAS pinned to the same "
                       "(OpenBLAS reports %d; -1: another BLAS, left as it is)",
                       o->ppcg_threads, blas_threads);
    char load[64];
    weft_bench_comment(tab, "load average at the start: %s", load_average(load, sizeof load));
    weft_bench_header(tab);
}

enum { MAX_PC = 16 };

/* What the summaries print of one size. */
typedef struct size_result {
    double fs_ms, fs_cpu;            /* CHOLMOD factor + solve (analysis kept), NAN: none */
    double chol_cold, chol_cold_cpu; /* CHOLMOD analyse + filter + factor + solve */
    double chol_rss;                 /* its memory, MiB */
    double bj_ms, bj_cpu;            /* block Jacobi to 1e-6, per system */
    int bj_it;                       /* its iterations, -1: not run */
    double newton_ratio[3];          /* Newton iteration / factor+solve: projected, exact,
                                        clamp */
    int pc_it[MAX_PC];               /* per preconditioner, the 1e-6 solve; -2: not run */
    bool pc_capped[MAX_PC];
    double pc_setup[MAX_PC], pc_first[MAX_PC], pc_first_cpu[MAX_PC], pc_ratio[MAX_PC],
        pc_sys_cpu[MAX_PC], pc_sys_ratio[MAX_PC], pc_rss[MAX_PC];
} size_result;

/* Row names "ppcg_<name>", kept as pointers by the rows, so they live as long as main. */
static char pc_names[MAX_PC][48];

/* PPCG with every (selected) preconditioner at 1e-6 and 1e-8 on s into t and *r. Returns
 * 0, or -1 when a set-up fails. */
static int bench_preconditioners(const options *o, newton_sys *s, table *t, const double *ref,
                                 double *dx, size_result *r, bool *agree_ok) {
    for (int p = 0; p < MAX_PC; p++) r->pc_it[p] = -2;
    r->bj_ms = r->bj_cpu = NAN, r->bj_it = -1;
    for (int p = 0; weft_precond_registry[p] && p < MAX_PC; p++) {
        const weft_precond_type *pc = weft_precond_registry[p];
        if (o->only && !in_list(o->only, pc->name)) continue;
        snprintf(pc_names[p], sizeof pc_names[p], "ppcg_%s", pc->name);
        /* Its settings: defaults, the scene's and --set's (e.g. boomeramg.*). */
        void *pset = pc->settings_size ? calloc(1, pc->settings_size) : NULL;
        if (pset) weft_config_settings(s->cfg, pc->settings, pset);
        double setup_ms = bench_setup(s, pc, pset);
        if (isnan(setup_ms)) {
            free(pset);
            return -1;
        }
        for (int k = 0; k < 2; k++) {
            double ms = bench_ppcg(s, t, pc, pset, pc_names[p], k == 0 ? 1e-6 : 1e-8, o->cap,
                                   setup_ms, r->chol_cold_cpu, r->fs_cpu, ref, dx, agree_ok);
            const row *w = &t->r[t->n - 1];
            if (k > 0) continue;
            r->pc_it[p] = w->iterations, r->pc_setup[p] = setup_ms;
            r->pc_first[p] = w->first_ms, r->pc_first_cpu[p] = w->first_cpu_ms;
            r->pc_ratio[p] = w->ratio, r->pc_rss[p] = w->rss_mib;
            r->pc_sys_cpu[p] = w->cpu_ms, r->pc_sys_ratio[p] = w->system_ratio;
            r->pc_capped[p] = strcmp(w->status, "converged") != 0;
            if (pc == &weft_precond_block_jacobi)
                r->bj_ms = ms, r->bj_cpu = w->cpu_ms, r->bj_it = w->iterations;
        }
        free(pset);
    }
    return 0;
}

/* One size: the system, assembly, CHOLMOD (when its factor fits), every preconditioner and
 * the newton_euler rows, written to tab. Returns 0 or -1 (message printed). */
static int run_size(const options *o, int res, weft_bench_table *tab, size_result *r,
                    bool *agree_ok) {
    newton_sys s;
    table t = {.n = 0};
    *r = (size_result){.fs_ms = NAN, .fs_cpu = NAN, .chol_cold = NAN, .chol_cold_cpu = NAN,
                       .chol_rss = NAN, .newton_ratio = {NAN, NAN, NAN}};
    if (build_sys(&o->cli, res, o->steps, o->threads, o->ppcg_threads, &s) != 0 ||
        bench_assembly(&s, &t) != 0) {
        free_sys(&s);
        return -1;
    }
    size_t n3 = 3 * (size_t)s.m.n;
    double *ref = malloc(n3 * sizeof *ref), *dx = malloc(n3 * sizeof *dx);
    int rc = ref && dx ? 0 : -1;
    /* CHOLMOD only when its predicted factor fits the memory limit. */
    double lnz = 0, pred = predict_factor_bytes(s.A, &lnz), limit = o->gib * 1073741824.0;
    bool chol = pred >= 0 && pred <= limit;
    weft_bench_comment(tab, "%d^2: CHOLMOD's analysis predicts nnz(L) = %.4g, factor %.1f MiB "
                       "(limit %.1f MiB): %s", res, lnz, pred / 1048576.0, limit / 1048576.0,
                       chol ? "factorised" : "CHOLMOD skipped");
    if (rc == 0 && chol) {
        r->fs_ms = bench_cholmod(&s, &t, ref, &r->chol_cold, &r->chol_cold_cpu);
        if (isnan(r->fs_ms)) rc = -1;
        else r->fs_cpu = t.r[t.n - 1].cpu_ms, r->chol_rss = t.r[t.n - 1].rss_mib;
    } else if (rc == 0) {
        fprintf(stderr, "note: %d^2: CHOLMOD skipped, its factor would take %.1f MiB (limit "
                "%.1f MiB, --max-factor-gib)\n", res, pred / 1048576.0, limit / 1048576.0);
    }
    if (rc == 0) rc = bench_preconditioners(o, &s, &t, chol ? ref : NULL, dx, r, agree_ok);
    /* Projected Hessian (the default), exact, and the generic clamp. */
    static const weft_solver_hessian hessians[3] = {
        WEFT_SOLVER_HESSIAN_PROJECTED, WEFT_SOLVER_HESSIAN_EXACT, WEFT_SOLVER_HESSIAN_CLAMP};
    for (int h = 0; h < 3 && rc == 0 && o->newton; h++)
        rc = bench_newton(&s, &t, hessians[h], &r->newton_ratio[h]);
    write_rows(tab, &s, &t);
    free(ref);
    free(dx);
    free_sys(&s);
    return rc;
}

/* Where PPCG (block Jacobi, 1e-6) overtakes CHOLMOD factor + solve, if it does. */
static void print_overtake(const options *o, const size_result *r, int done) {
    printf("\nPPCG block-Jacobi to 1e-6 vs CHOLMOD factor+solve (analysis kept):\n");
    int first_win = -1, bj_done = 0;
    for (int si = 0; si < done; si++) bj_done += r[si].bj_it >= 0;
    if (bj_done == 0) {
        printf("  block_jacobi was not run (--preconditioners).\n");
        return;
    }
    for (int si = 0; si < done; si++) {
        printf("  %4d^2: PPCG %d iterations %.3f ms, CHOLMOD %.3f ms, ratio PPCG/CHOLMOD %.2f "
               "(CPU time: %.3f ms / %.3f ms = %.2f)\n", o->sizes[si], r[si].bj_it,
               r[si].bj_ms, r[si].fs_ms, r[si].bj_ms / r[si].fs_ms, r[si].bj_cpu, r[si].fs_cpu,
               r[si].bj_cpu / r[si].fs_cpu);
        if (r[si].bj_ms < r[si].fs_ms) {
            if (first_win < 0) first_win = si;
        } else {
            first_win = -1; /* overtaking means staying ahead at every larger size */
        }
    }
    if (first_win >= 0) {
        printf("PPCG overtakes CHOLMOD from %d^2 vertices on (at every size measured from "
               "there).\n", o->sizes[first_win]);
        return;
    }
    /* It may still win at small sizes and lose from some size on: say where. */
    char faster[256] = "";
    for (int si = 0, len = 0; si < done && len < (int)sizeof faster; si++)
        if (r[si].bj_ms < r[si].fs_ms)
            len += snprintf(faster + len, sizeof faster - (size_t)len, "%s%d^2", len ? ", " : "",
                            o->sizes[si]);
    printf("PPCG does not overtake CHOLMOD at any size measured (up to %d^2)%s%s%s\n",
           done > 0 ? o->sizes[done - 1] : 0, faster[0] ? "; PPCG is faster at " : ".", faster,
           faster[0] ? " only, CHOLMOD at the other sizes." : "");
}

/* Each preconditioner's first solve and per-system solve against CHOLMOD's. */
static void print_preconditioners(const options *o, const size_result *r, int done) {
    printf("\nEach preconditioner to 1e-6: iterations, set-up (setup + first update), first "
           "solve from nothing (set-up + iterations, median of fresh solvers) and its CPU "
           "ratio to CHOLMOD's analyse + filter + factorise + solve, one further Newton system "
           "(update + iterations) and its CPU ratio to CHOLMOD's filter + factorise + solve, "
           "peak memory added:\n");
    for (int si = 0; si < done; si++) {
        const size_result *q = &r[si];
        printf("  %4d^2 (%d unknowns): CHOLMOD from nothing %.1f ms (CPU %.1f ms), per system "
               "CPU %.1f ms, %.1f MiB\n", o->sizes[si], 3 * o->sizes[si] * o->sizes[si],
               q->chol_cold, q->chol_cold_cpu, q->fs_cpu, q->chol_rss);
        for (int p = 0; weft_precond_registry[p] && p < MAX_PC; p++)
            if (q->pc_it[p] != -2)
                printf("    %-16s %6d iterations%s, set-up %9.1f ms, first solve %10.1f ms (CPU "
                       "%10.1f ms, ratio %7.3f), per system CPU %10.1f ms (ratio %7.3f: %s), "
                       "%8.1f MiB\n", weft_precond_registry[p]->name, q->pc_it[p],
                       q->pc_capped[p] ? " (capped, not converged: times are a lower bound)" : "",
                       q->pc_setup[p], q->pc_first[p], q->pc_first_cpu[p], q->pc_ratio[p],
                       q->pc_sys_cpu[p], q->pc_sys_ratio[p], faster_text(q->pc_sys_ratio[p]),
                       q->pc_rss[p]);
    }
}

/* The newton_euler iteration over its own factorise + solve, per Hessian mode. */
static void print_newton(const options *o, const size_result *r, int done) {
    printf("\nOne newton_euler iteration (CHOLMOD, analysis kept) over its own factorise + "
           "solve (the target is at most 1.3):\n");
    for (int si = 0; si < done; si++)
        printf("  %4d^2: hessian=projected %.2f, hessian=exact %.2f, hessian=clamp %.2f\n",
               o->sizes[si], r[si].newton_ratio[0], r[si].newton_ratio[1],
               r[si].newton_ratio[2]);
}

/* The figure (experiments/plots/bench_implicit.gp) from the table at path; 0 or 1. */
static int plot(const options *o, const char *path) {
    return weft_bench_plot("bench_implicit", path, o->cli.out);
}

int main(int argc, char **argv) {
    static options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc;
    /* CHOLMOD on as many threads as PPCG: its BLAS would otherwise take every core, and
     * the CPU-time ratios compare one thread with one thread. */
    int blas_threads = weft_bench_pin_threads(o.ppcg_threads);
    weft_bench_table tab;
    if (weft_bench_open(&tab, o.cli.out, "bench_implicit.tsv", columns, NCOLUMNS) != 0) return 1;
    write_preamble(&tab, &o, blas_threads);
    static size_result res[MAX_SIZES];
    bool agree_ok = true;
    int done = 0;
    for (; done < o.nsizes; done++)
        if (run_size(&o, o.sizes[done], &tab, &res[done], &agree_ok) != 0)
            return weft_bench_close(&tab, "bench_implicit stopped");
    char load[64];
    weft_bench_comment(&tab, "load average at the end: %s", load_average(load, sizeof load));
    if (weft_bench_close(&tab, NULL) != 0) return 1;
    printf("load average at the end: %s\n", load);
    print_overtake(&o, res, done);
    print_preconditioners(&o, res, done);
    if (o.newton) print_newton(&o, res, done);
    if (!o.cli.no_plot && plot(&o, tab.path) != 0) return 1;
    if (!agree_ok) {
        fprintf(stderr, "error: PPCG (1e-8) and CHOLMOD disagree by more than %g (see above)\n",
                AGREE_TOL);
        return 1;
    }
    printf("PPCG (1e-8) and CHOLMOD agree within %g at every size.\n", AGREE_TOL);
    return 0;
}
