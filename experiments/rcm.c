/* rcm.c — the effect of reverse Cuthill-McKee vertex reordering (Kim & Eberle 2020,
 * "Dynamic Deformables" §9.2; Cuthill & McKee 1969; George & Liu 1981 §4.3) on the
 * sparsity pattern of the hanging cloth's Hessian and on the speed of the products and
 * solves an implicit integrator makes with it.
 *
 * For each size N (an N × N hanging cloth) and each of four vertex orders
 *   grid          the scene's own numbering, vertex (i, j) = i + j N (already banded);
 *   grid_rcm      RCM of it ([mesh] reorder = rcm);
 *   shuffled      a uniformly random numbering (Fisher-Yates, fixed --seed), the worst
 *                 case of a mesh read from a file whose vertex order means nothing;
 *   shuffled_rcm  RCM of the shuffled model,
 * the model (the same physical state, positions moved by a fixed pseudo-random
 * displacement of 2% of an edge before renumbering) is renumbered with weft_model_permute,
 * and the system of one backward-Euler Newton step,
 *     K Δx = f,  K = M/h² + ∇²E(x) (analytic PSD projection),  f = M g − ∇E(x),
 * pinned vertices filtered to Δx = 0, is assembled. Measured:
 *   bandwidth  max |i − j| over the nonzero 3×3 blocks (i, j), in vertices;
 *   profile    Σ_i (i − min{j : block (i, j) ≠ 0}), the envelope's size, in blocks;
 *   spmv_us    y = K x (weft_bsr_spmv), best of --repeats batches of 20, µs per product;
 *   ppcg_iters, ppcg_ms  weft_ppcg_solve with block-Jacobi to relative residual 1e-6,
 *              best of --repeats solves (the iteration count is an invariant of the
 *              ordering up to rounding; only the time should move).
 * Writes DIR/rcm/summary.tsv (via .partial and rename), for sizes up to --pattern-max
 * DIR/rcm/pattern_N_ORDER.tsv (block row, block column of every nonzero block) and
 * DIR/rcm/pattern_N.png (experiments/plots/rcm_pattern.gp: the four patterns side by
 * side, as in the notes' figure of the default and the RCM ordering). */
#include "bench.h"

#include "weft_energies.h"
#include "weft_linsolve.h"
#include "weft_sparse.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: rcm [--sizes N,N,...] [--seed S] [--repeats R] [--pattern-max N] [--out DIR]\n"
    "           [--threads T] [--no-plot] [--set SECTION.KEY=VAL]...\n"
    "Reverse Cuthill-McKee reordering (Dynamic Deformables 9.2) on the hanging cloth at\n"
    "N x N vertices, in four vertex orders: grid (the scene's), grid_rcm, shuffled (random,\n"
    "seed S), shuffled_rcm. For each: Hessian bandwidth and profile, the time of one SpMV\n"
    "and of one block-Jacobi PPCG solve (relative residual 1e-6) of a Newton system.\n"
    "  --sizes        grid sizes N (default 32,64,128,256)\n"
    "  --seed         seed of the shuffled order (default 1)\n"
    "  --repeats      timed repetitions; the best is kept (default 3)\n"
    "  --pattern-max  write sparsity patterns and plots for N up to this (default 64)\n"
    "  --threads      OpenMP threads of SpMV and PPCG (default: the scene's, 1)\n"
    "  --set          scene overrides (e.g. --set material.stretch_stiffness=5000)\n"
    "Outputs under DIR/rcm/ (DIR default results):\n"
    "  summary.tsv         size ordering vertices blocks bandwidth profile spmv_us\n"
    "                      ppcg_iters ppcg_ms ppcg_status\n"
    "  pattern_N_ORDER.tsv block row and column of every nonzero block (N <= pattern-max)\n"
    "  pattern_N.png       the four patterns (gnuplot, experiments/plots/rcm_pattern.gp)\n";

enum { NORDERS = 4, SPMV_BATCH = 20 };

static const weft_bench_column columns[] = {
    {"size", "%ld", "size", "%5ld"},
    {"ordering", "%s", "ordering", " %-13s"},
    {"vertices", "%ld", "vertices", " %8ld"},
    {"blocks", "%ld", "blocks", " %9ld"},
    {"bandwidth", "%ld", "bandwidth", " %9ld"},
    {"profile", "%ld", "profile", " %12ld"},
    {"spmv_us", "%.2f", "spmv_us", " %10.2f"},
    {"ppcg_iters", "%ld", "iters", " %6ld"},
    {"ppcg_ms", "%.3f", "ppcg_ms", " %10.3f"},
    {"ppcg_status", "%s", NULL, NULL},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };
static const char *const order_names[NORDERS] = {"grid", "grid_rcm", "shuffled", "shuffled_rcm"};

/* Options of this experiment beyond weft_cli's. */
typedef struct rcm_opts {
    int sizes[16], nsizes;
    uint64_t seed;
    int repeats, pattern_max;
} rcm_opts;

static int positive(const char *name, const char *text, long hi) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 1 || v > hi) {
        fprintf(stderr, "error: --%s: '%s' is not an integer in [1, %ld]\n", name, text, hi);
        exit(2);
    }
    return (int)v;
}

/* Takes --sizes, --seed, --repeats and --pattern-max out of argv (both "--k v" and
 * "--k=v"), leaving the rest for weft_cli_parse. */
static int take_options(int argc, char **argv, char **rest, rcm_opts *o) {
    static const char *const names[] = {"sizes", "seed", "repeats", "pattern-max"};
    int n = 0;
    for (int i = 0; i < argc; i++) {
        int which = -1;
        const char *value = NULL;
        for (int k = 0; k < 4 && i > 0; k++) {
            size_t len = strlen(names[k]);
            if (strncmp(argv[i], "--", 2) != 0 || strncmp(argv[i] + 2, names[k], len) != 0) continue;
            if (argv[i][2 + len] == '=') which = k, value = argv[i] + 3 + len;
            else if (argv[i][2 + len] == '\0') {
                which = k;
                if (i + 1 >= argc) {
                    fprintf(stderr, "error: --%s needs a value\n", names[k]);
                    exit(2);
                }
                value = argv[++i];
            }
        }
        if (which < 0) {
            rest[n++] = argv[i];
            continue;
        }
        if (which == 0) {
            o->nsizes = 0;
            char buf[256];
            snprintf(buf, sizeof buf, "%s", value);
            for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
                 tok = strtok_r(NULL, ",", &save)) {
                if (o->nsizes == 16) {
                    fprintf(stderr, "error: --sizes: at most 16 sizes\n");
                    exit(2);
                }
                o->sizes[o->nsizes++] = positive("sizes", tok, 1024);
                if (o->sizes[o->nsizes - 1] < 2) {
                    fprintf(stderr, "error: --sizes: a grid needs N >= 2\n");
                    exit(2);
                }
            }
            if (o->nsizes == 0) {
                fprintf(stderr, "error: --sizes: no size given\n");
                exit(2);
            }
        } else if (which == 1) {
            o->seed = (uint64_t)positive("seed", value, 2147483647L);
        } else if (which == 2) {
            o->repeats = positive("repeats", value, 1000);
        } else {
            o->pattern_max = positive("pattern-max", value, 1024);
        }
    }
    rest[n] = NULL;
    return n;
}

/* Renumbers m into ordering o (0..3) with weft_model_permute. */
static int reorder(weft_model *m, int o, uint64_t seed, weft_error *err) {
    int *perm = malloc((size_t)m->n * sizeof *perm);
    if (!perm) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    int rc = WEFT_OK;
    if (o >= 2) { /* shuffled first */
        weft_shuffled_order(perm, m->n, seed);
        rc = weft_model_permute(m, perm, err);
    }
    if (!rc && (o == 1 || o == 3)) {
        rc = weft_model_rcm_order(m, perm, err);
        if (!rc) rc = weft_model_permute(m, perm, err);
    }
    free(perm);
    return rc;
}

/* Bandwidth max |i − j| and profile Σ_i (i − min_j) of A's pattern, in blocks. */
static void band(const weft_bsr *A, int *bandwidth, long *profile) {
    int bw = 0;
    long prof = 0;
    for (int i = 0; i < A->n; i++) {
        int lo = A->col[A->row_ptr[i]]; /* columns are sorted */
        prof += i - (lo < i ? lo : i);
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            if (abs(A->col[k] - i) > bw) bw = abs(A->col[k] - i);
    }
    *bandwidth = bw, *profile = prof;
}

/* Writes "row<TAB>col" for every block of A to path (via .partial). */
static int write_pattern(const weft_bsr *A, const char *path) {
    char tmp[1400];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "row\tcol\n");
    for (int i = 0; i < A->n; i++)
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) fprintf(f, "%d\t%d\n", i, A->col[k]);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "error: %s: cannot write\n", path);
        return -1;
    }
    return 0;
}

/* One measured case. */
typedef struct rcm_row {
    int n, nnzb, bandwidth, iters;
    long profile;
    double spmv_us, ppcg_ms;
    weft_solve_status status;
} rcm_row;

/* Builds the N × N cloth in ordering o, assembles K and f, and measures. */
/* The system being timed. */
typedef struct rcm_system {
    const weft_bsr *A;
    const weft_filter *filt;
    const double *f;
    double *x, *y;
    int threads;
    weft_ppcg *pc;
    weft_ppcg_options po;
    rcm_row *row;
    weft_error err;
} rcm_system;

/* SPMV_BATCH products y = K x (a weft_bench_fn): figure the time of one, s. */
static int time_spmv(void *user, double *out) {
    rcm_system *s = user;
    double t0 = weft_now();
    for (int b = 0; b < SPMV_BATCH; b++) weft_bsr_spmv(s->A, s->x, s->y, s->threads);
    out[0] = (weft_now() - t0) / SPMV_BATCH;
    return WEFT_BENCH_MORE;
}

/* One PPCG solve (a weft_bench_fn): figure its time, s; the last one when it does not
 * converge (status and iterations go to the row). */
static int time_ppcg(void *user, double *out) {
    rcm_system *s = user;
    double t0 = weft_now();
    s->row->status =
        weft_ppcg_solve(s->pc, s->A, s->filt, s->f, s->x, &s->po, &s->row->iters, &s->err);
    out[0] = weft_now() - t0;
    return s->row->status == WEFT_SOLVE_CONVERGED ? WEFT_BENCH_MORE : WEFT_BENCH_LAST;
}

static int measure(const weft_cli *base, int N, int o, const rcm_opts *opt, const char *pattern,
                   rcm_row *row) {
    weft_cli cli = *base;
    char snx[32], sny[32];
    snprintf(snx, sizeof snx, "mesh.nx=%d", N);
    snprintf(sny, sizeof sny, "mesh.ny=%d", N);
    cli.nset = 0;
    cli.set[cli.nset++] = snx, cli.set[cli.nset++] = sny;
    for (int k = 0; k < base->nset; k++) cli.set[cli.nset++] = base->set[k];
    weft_model m;
    weft_config *cfg = NULL;
    weft_error err = {{0}};
    weft_assembly *as = NULL;
    weft_ppcg *pc = NULL;
    weft_filter filt = {0};
    double *f = NULL, *x = NULL, *y = NULL, *d = NULL;
    int rc = weft_cli_build(&cli, &m, &cfg, &err);
    if (rc) {
        fprintf(stderr, "error: %s\n", err.msg);
        return rc;
    }
    weft_cli_perturb(&m, 0.02, 12345); /* ±2% of the mean edge, fixed seed */
    const int n = m.n, threads = weft_cli_setting(cfg, "solver", "threads", 1);
    if ((rc = reorder(&m, o, opt->seed, &err)) || !(as = weft_assembly_create(&m, &err)) ||
        !(pc = weft_ppcg_create(n, &err)) || (rc = weft_filter_create(&filt, n, &err))) {
        fprintf(stderr, "error: %s\n", err.msg);
        rc = rc ? rc : WEFT_ERR_NOMEM;
        goto done;
    }
    f = calloc(3 * (size_t)n, sizeof *f), x = calloc(3 * (size_t)n, sizeof *x);
    y = calloc(3 * (size_t)n, sizeof *y), d = malloc((size_t)n * sizeof *d);
    if (!f || !x || !y || !d) {
        fprintf(stderr, "error: out of memory\n");
        rc = WEFT_ERR_NOMEM;
        goto done;
    }
    double E = weft_assembly_run(as, &m, m.x, WEFT_HESSIAN_ANALYTIC, f, threads);
    if (!isfinite(E)) {
        weft_assembly_check(as, &err);
        fprintf(stderr, "error: %s\n", err.msg);
        rc = WEFT_ERR_DIVERGED;
        goto done;
    }
    weft_bsr *A = weft_assembly_matrix(as);
    const double h2 = m.dt * m.dt;
    for (int i = 0; i < n; i++) {
        d[i] = m.mass[i] / h2;
        for (int k = 0; k < 3; k++) f[3 * i + k] = m.mass[i] * m.gravity[k] - f[3 * i + k];
        if (m.pin[i] >= 0) weft_filter_pin(&filt, i, (const double[3]){0, 0, 0});
    }
    weft_bsr_add_diagonal(A, d);
    row->n = n, row->nnzb = A->nnzb;
    band(A, &row->bandwidth, &row->profile);
    if (pattern && write_pattern(A, pattern) != 0) {
        rc = WEFT_ERR_IO;
        goto done;
    }

    /* SpMV: one warm-up batch, then the best of --repeats batches. */
    for (int i = 0; i < 3 * n; i++) x[i] = f[i];
    rcm_system sys = {A, &filt, f, x, y, threads, pc, weft_ppcg_defaults(), row, {{0}}};
    weft_bench_plan plan = weft_bench_repeats(1, opt->repeats);
    weft_bench_stats st;
    weft_bench_measure(&plan, 1, time_spmv, &sys, &st);
    row->spmv_us = 1e6 * st.min[0];

    /* PPCG: block-Jacobi, relative residual 1e-6; one warm-up solve, then the best. */
    sys.po.precond = &weft_precond_block_jacobi;
    sys.po.tol = 1e-6;
    sys.po.max_iter = 20000;
    sys.po.threads = threads;
    weft_bench_measure(&plan, 1, time_ppcg, &sys, &st);
    if (row->status != WEFT_SOLVE_CONVERGED)
        fprintf(stderr, "warning: N=%d %s: PPCG %s: %s\n", N, order_names[o],
                weft_solve_status_name(row->status), sys.err.msg);
    row->ppcg_ms = 1e3 * st.min[0];
done:
    free(f), free(x), free(y), free(d);
    weft_filter_destroy(&filt);
    weft_ppcg_free(&pc);
    weft_assembly_free(&as);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return rc;
}

int main(int argc, char **argv) {
    rcm_opts opt = {.sizes = {32, 64, 128, 256}, .nsizes = 4, .seed = 1, .repeats = 3,
                    .pattern_max = 64};
    char **rest = malloc((size_t)(argc + 1) * sizeof *rest);
    if (!rest) return 1;
    int nrest = take_options(argc, argv, rest, &opt);
    weft_cli base;
    weft_cli_parse(nrest, rest, &base, usage);
    free(rest); /* base points into argv's strings, not into rest */
    if (base.nset > 60) {
        fprintf(stderr, "error: too many --set options for rcm\n");
        return 2;
    }
    for (int k = 0; k < base.nset; k++)
        if (strncmp(base.set[k], "mesh.reorder", 12) == 0) {
            fprintf(stderr, "error: --set %s: rcm sets the vertex order itself\n", base.set[k]);
            return 2;
        }
    { /* Bad overrides are reported once, before any file is written. */
        weft_cli cli = base;
        weft_model m;
        weft_config *cfg = NULL;
        weft_error err = {{0}};
        cli.set[cli.nset++] = "mesh.nx=2", cli.set[cli.nset++] = "mesh.ny=2";
        if (weft_cli_build(&cli, &m, &cfg, &err) != WEFT_OK) {
            fprintf(stderr, "error: %s\n", err.msg);
            return 1;
        }
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/rcm", base.out);
    weft_bench_table t;
    if (weft_bench_open(&t, dir, "summary.tsv", columns, NCOLUMNS) != 0) return 1;
    weft_bench_comment(&t, "rcm: scene %s; K = M/h^2 + analytic-PSD Hessian at rest + 2%% edge "
                       "noise; shuffle seed %llu; best of %d; spmv batch %d; ppcg block_jacobi "
                       "tol 1e-6",
                       base.scene, (unsigned long long)opt.seed, opt.repeats, SPMV_BATCH);
    weft_bench_header(&t);
    int rc = 0;
    for (int s = 0; s < opt.nsizes && rc == 0; s++) {
        const int N = opt.sizes[s];
        const bool patterns = N <= opt.pattern_max;
        char files[4 * 1300] = "";
        for (int o = 0; o < NORDERS && rc == 0; o++) {
            char pat[1300];
            snprintf(pat, sizeof pat, "%s/pattern_%d_%s.tsv", dir, N, order_names[o]);
            rcm_row row = {0};
            if (measure(&base, N, o, &opt, patterns ? pat : NULL, &row) != WEFT_OK) {
                rc = 1;
                break;
            }
            if (patterns)
                snprintf(files + strlen(files), sizeof files - strlen(files), "%s%s", o ? " " : "",
                         pat);
            weft_bench_value v[NCOLUMNS] = {weft_bench_int(N),
                                            weft_bench_text(order_names[o]),
                                            weft_bench_int(row.n),
                                            weft_bench_int(row.nnzb),
                                            weft_bench_int(row.bandwidth),
                                            weft_bench_int(row.profile),
                                            weft_bench_num(row.spmv_us),
                                            weft_bench_int(row.iters),
                                            weft_bench_num(row.ppcg_ms),
                                            weft_bench_text(weft_solve_status_name(row.status))};
            weft_bench_row(&t, v);
        }
        if (rc == 0 && patterns && !base.no_plot) {
            char script[1100], png[1300], defs[sizeof files + 1600];
            snprintf(script, sizeof script, "%s/rcm_pattern.gp", weft_plots_dir());
            snprintf(png, sizeof png, "%s/pattern_%d.png", dir, N);
            snprintf(defs, sizeof defs, "files='%s'; names='%s %s %s %s'; out='%s'; "
                     "title='hanging cloth %dx%d: Hessian blocks'", files, order_names[0],
                     order_names[1], order_names[2], order_names[3], png, N, N);
            if (weft_gnuplot(defs, script) != 0) {
                fprintf(stderr, "error: gnuplot failed on %s\n", script);
                rc = 1;
            } else {
                printf("plot: %s\n", png);
            }
        }
    }
    return weft_bench_close(&t, rc != 0 ? "a case failed" : NULL);
}
