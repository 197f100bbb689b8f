/* bench.c — the benchmark harness (bench.h): repeats by a plan with min and median, a
 * results table written to a ".partial" TSV file and the console, shared scene set-up,
 * measurements in a child process (their own peak memory), alone or in interleaved rounds
 * of several children that each wait on a socket between their timed repeats. */
#define _DEFAULT_SOURCE /* wait4: a child's own rusage (its peak RSS) */
#include "bench.h"

#include "sweep.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

weft_bench_plan weft_bench_repeats(int warmup, int repeats) {
    return (weft_bench_plan){warmup, repeats, repeats, 0.0};
}

int weft_bench_plot(const char *name, const char *table, const char *dir) {
    char script[1100], png[1200], defs[2400];
    snprintf(script, sizeof script, "%s/%s.gp", weft_plots_dir(), name);
    snprintf(png, sizeof png, "%s/%s.png", dir, name);
    snprintf(defs, sizeof defs, "file='%s'; out='%s'", table, png);
    if (weft_gnuplot(defs, script) != 0) {
        fprintf(stderr, "error: gnuplot failed on %s\n", script);
        return 1;
    }
    printf("wrote %s\n", png);
    return 0;
}

/* Reads exactly size bytes of fd into buf; whether it got them. */
static bool read_all(int fd, void *buf, size_t size) {
    char *p = buf;
    while (size > 0) {
        ssize_t got = read(fd, p, size);
        if (got <= 0) return false;
        p += got, size -= (size_t)got;
    }
    return true;
}

/* Waits for child pid (retrying on EINTR), says so if a signal killed it (`label` names the
 * measurement), and puts its peak resident set into *peak_mib (MiB) when not NULL. 0 when
 * it exited with status 0, else -1. */
static int reap_child(pid_t pid, const char *label, double *peak_mib) {
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t got;
    while ((got = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR) {
    }
    if (got < 0) {
        fprintf(stderr, "error: wait4: %s\n", strerror(errno));
        return -1;
    }
    if (WIFSIGNALED(status))
        fprintf(stderr, "error: measurement %s killed by signal %d\n", label, WTERMSIG(status));
    if (peak_mib) *peak_mib = (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int weft_bench_in_child(weft_bench_child_fn fn, const void *job, void *out, size_t size,
                        const char *label, double *peak_mib) {
    int fd[2];
    fflush(NULL);
    if (pipe(fd) != 0) {
        fprintf(stderr, "error: pipe: %s\n", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "error: fork: %s\n", strerror(errno));
        close(fd[0]), close(fd[1]);
        return -1;
    }
    if (pid == 0) { /* the child: its figures down the pipe, after its status */
        close(fd[0]);
        int rc = fn(job, out);
        fflush(NULL);
        bool ok = write(fd[1], &rc, sizeof rc) == (ssize_t)sizeof rc &&
                  write(fd[1], out, size) == (ssize_t)size;
        _exit(ok ? 0 : 1);
    }
    close(fd[1]);
    int rc = 1;
    bool got = read_all(fd[0], &rc, sizeof rc) && rc == 0 && read_all(fd[0], out, size);
    close(fd[0]);
    double peak = 0.0;
    if (reap_child(pid, label, &peak) != 0 || !got) return -1;
    *peak_mib = peak;
    return 0;
}

/* Writes size bytes of buf to the socket fd, without SIGPIPE if the peer is gone; whether
 * all went. */
static bool send_all(int fd, const void *buf, size_t size) {
    const char *p = buf;
    while (size > 0) {
        ssize_t put = send(fd, p, size, MSG_NOSIGNAL);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return false;
        p += put, size -= (size_t)put;
    }
    return true;
}

/* The child of a round (never returns): fns->start(job) and its outcome to the parent,
 * then, for each byte read, 'r': one repeat's status and nvalues figures, or anything
 * else: fns->finish's status and size bytes of totals, and exit. Exits when the parent's
 * end closes (the parent gone or giving up on it). */
static void round_child(int fd, const weft_bench_round_fns *fns, const void *job, int nvalues,
                        size_t size) {
    void *state = NULL;
    int rc = fns->start(job, &state);
    fflush(NULL);
    if (!send_all(fd, &rc, sizeof rc) || rc != 0) _exit(1);
    char ask = 0;
    while (read_all(fd, &ask, 1) && ask == 'r') {
        double v[WEFT_BENCH_MAX_VALUES];
        for (int k = 0; k < WEFT_BENCH_MAX_VALUES; k++) v[k] = NAN;
        rc = fns->repeat(state, v);
        fflush(NULL);
        if (!send_all(fd, &rc, sizeof rc) || !send_all(fd, v, (size_t)nvalues * sizeof *v) ||
            rc == WEFT_BENCH_FAIL)
            _exit(1);
    }
    if (ask != 'f') _exit(1); /* EOF: the parent gave up */
    char *out = calloc(1, size > 0 ? size : 1);
    rc = out ? fns->finish(state, out) : -1;
    fflush(NULL);
    bool ok = send_all(fd, &rc, sizeof rc) && rc == 0 && send_all(fd, out, size);
    _exit(ok ? 0 : 1);
}

/* Closes r's socket (so a child still waiting exits) and reaps the child, its peak RSS
 * into *peak_mib when not NULL. 0 when it exited with status 0, else -1. */
static int round_reap(weft_bench_round *r, double *peak_mib) {
    if (r->fd >= 0) close(r->fd);
    r->fd = -1;
    const pid_t pid = r->pid;
    r->pid = 0;
    return reap_child(pid, r->label, peak_mib);
}

int weft_bench_round_start(weft_bench_round *r, const weft_bench_round_fns *fns, const void *job,
                           int nvalues, size_t size, const char *label) {
    WEFT_ASSERT(nvalues >= 1 && nvalues <= WEFT_BENCH_MAX_VALUES);
    memset(r, 0, sizeof *r);
    r->fd = -1, r->nvalues = nvalues, r->size = size;
    snprintf(r->label, sizeof r->label, "%s", label);
    int sv[2];
    fflush(NULL);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        fprintf(stderr, "error: socketpair: %s\n", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "error: fork: %s\n", strerror(errno));
        close(sv[0]), close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        close(sv[0]);
        round_child(sv[1], fns, job, nvalues, size);
    }
    close(sv[1]);
    r->pid = pid, r->fd = sv[0];
    int rc = 1;
    if (read_all(r->fd, &rc, sizeof rc) && rc == 0) return 0;
    round_reap(r, NULL);
    r->failed = 1;
    return -1;
}

int weft_bench_round_step(weft_bench_round *r, double *values) {
    if (r->failed || r->fd < 0) return -1;
    const char ask = 'r';
    int rc = WEFT_BENCH_FAIL;
    if (send_all(r->fd, &ask, 1) && read_all(r->fd, &rc, sizeof rc) &&
        read_all(r->fd, values, (size_t)r->nvalues * sizeof *values) && rc != WEFT_BENCH_FAIL)
        return 0;
    r->failed = 1;
    return -1;
}

int weft_bench_round_finish(weft_bench_round *r, void *out, double *peak_mib) {
    if (r->pid <= 0) return -1;
    const char ask = 'f';
    int rc = 1;
    bool got = !r->failed && send_all(r->fd, &ask, 1) && read_all(r->fd, &rc, sizeof rc) &&
               rc == 0 && (r->size == 0 || read_all(r->fd, out, r->size));
    double peak = NAN;
    if (round_reap(r, &peak) != 0 || !got) return -1;
    *peak_mib = peak;
    return 0;
}

/* The value in kB of the line "key: N kB" of the /proc file `path`, in MiB; NAN if none. */
static double proc_kib_line(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return NAN;
    char line[256];
    double v = NAN;
    size_t len = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, len) && line[len] == ':') {
            v = strtod(line + len + 1, NULL) / 1024.0;
            break;
        }
    fclose(f);
    return v;
}

double weft_bench_round_hwm_mib(const weft_bench_round *r) {
    if (r->pid <= 0) return NAN;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", r->pid);
    return proc_kib_line(path, "VmHWM");
}

double weft_bench_mem_available_mib(void) {
    return proc_kib_line("/proc/meminfo", "MemAvailable");
}

int weft_bench_pin_threads(int threads) {
    omp_set_num_threads(threads);
    /* OpenBLAS's own pool (CHOLMOD's supernodal BLAS), found at run time: the build links
     * LAPACKE/BLAS, not OpenBLAS's extensions, so another BLAS is simply left alone. A
     * function pointer from dlsym goes through memcpy (ISO C has no object-to-function
     * pointer conversion). */
    void (*set)(int) = NULL;
    int (*get)(void) = NULL;
    void *p = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    if (p) memcpy(&set, &p, sizeof set);
    p = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    if (p) memcpy(&get, &p, sizeof get);
    if (set) set(threads);
    return get ? get() : -1;
}

double weft_bench_thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double weft_bench_process_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort order of doubles, ascending. */
static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double weft_bench_median(double *v, int n) {
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, ascending);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int weft_bench_measure(const weft_bench_plan *plan, int nvalues, weft_bench_fn fn, void *user,
                       weft_bench_stats *out) {
    WEFT_ASSERT(nvalues >= 1 && nvalues <= WEFT_BENCH_MAX_VALUES);
    WEFT_ASSERT(plan->min_repeats >= 1 && plan->max_repeats >= plan->min_repeats &&
                plan->max_repeats <= WEFT_BENCH_MAX_REPEATS);
    memset(out, 0, sizeof *out);
    for (int k = 0; k < WEFT_BENCH_MAX_VALUES; k++)
        out->min[k] = out->median[k] = out->last[k] = NAN;
    double v[WEFT_BENCH_MAX_VALUES];
    for (int w = 0; w < plan->warmup; w++)
        if (fn(user, v) == WEFT_BENCH_FAIL) return -1;
    /* samples[k * max + r]: figure k of timed call r */
    double *samples = malloc((size_t)nvalues * (size_t)plan->max_repeats * sizeof *samples);
    if (!samples) {
        fprintf(stderr, "error: out of memory for %d benchmark repeats\n", plan->max_repeats);
        return -1;
    }
    int reps = 0, rc = WEFT_BENCH_MORE;
    double spent = 0.0;
    while (reps < plan->max_repeats && (reps < plan->min_repeats || !(plan->stop_after_s > 0.0) ||
                                        spent < plan->stop_after_s)) {
        double t0 = weft_now();
        rc = fn(user, v);
        spent += weft_now() - t0;
        if (rc == WEFT_BENCH_FAIL) break;
        for (int k = 0; k < nvalues; k++) samples[k * plan->max_repeats + reps] = v[k];
        reps++;
        if (rc == WEFT_BENCH_LAST) break;
    }
    out->reps = reps;
    for (int k = 0; k < nvalues && reps > 0; k++) {
        double *s = &samples[k * plan->max_repeats];
        out->last[k] = s[reps - 1];
        for (int r = 0; r < reps; r++) out->min[k] = fmin(out->min[k], s[r]);
        out->median[k] = weft_bench_median(s, reps);
    }
    free(samples);
    return rc == WEFT_BENCH_FAIL ? -1 : 0;
}

int weft_bench_open(weft_bench_table *t, const char *dir, const char *file,
                    const weft_bench_column *col, int ncol) {
    memset(t, 0, sizeof *t);
    t->col = col, t->ncol = ncol;
    if (strlen(dir) + strlen(file) + 2 > sizeof t->path) {
        fprintf(stderr, "error: --out: a path of at most %zu characters\n",
                sizeof t->path - strlen(file) - 2);
        return -1;
    }
    if (weft_mkdirs(dir) != 0) return -1;
    snprintf(t->path, sizeof t->path, "%s/%s", dir, file);
    t->f = weft_sweep_open(t->path, t->tmp, sizeof t->tmp);
    return t->f ? 0 : -1;
}

void weft_bench_comment(weft_bench_table *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("# ", t->f);
    vfprintf(t->f, fmt, ap);
    fputc('\n', t->f);
    va_end(ap);
}

/* The console conversion `con` turned into one for a text of the same width: the text
 * around the conversion is kept, its flags kept, and its width widened by the text that
 * follows it (so "%5ld^2" gives "%7s"). */
static void heading_format(const char *con, char *buf, size_t size) {
    const char *pc = strchr(con, '%');
    WEFT_ASSERT(pc != NULL);
    size_t pre = (size_t)(pc - con);
    const char *p = pc + 1;
    char flags[8] = "";
    size_t nf = 0;
    while (*p == '-' && nf + 1 < sizeof flags) flags[nf++] = *p++;
    int width = 0;
    while (*p >= '0' && *p <= '9') width = 10 * width + (*p++ - '0');
    p += strcspn(p, "diouxXeEfFgGs"); /* skip precision and length */
    if (*p) p++;
    int suffix = (int)strlen(p);
    if (width > 0) width += suffix;
    if (width > 0)
        snprintf(buf, size, "%.*s%%%s%ds", (int)pre, con, flags, width);
    else
        snprintf(buf, size, "%.*s%%%ss", (int)pre, con, flags);
}

void weft_bench_header(weft_bench_table *t) {
    bool first = true;
    for (int k = 0; k < t->ncol; k++) {
        if (!t->col[k].name) continue;
        fprintf(t->f, "%s%s", first ? "" : "\t", t->col[k].name);
        first = false;
    }
    fputc('\n', t->f);
    char fmt[64];
    for (int k = 0; k < t->ncol; k++) {
        if (!t->col[k].title) continue;
        heading_format(t->col[k].con, fmt, sizeof fmt);
        printf(fmt, t->col[k].title);
    }
    putchar('\n');
}

/* Prints cell v with conversion fmt to f; "-" (at fmt's width) for a missing value. */
static void put_cell(FILE *f, const char *fmt, const weft_bench_value *v) {
    char text[64];
    switch (v->kind) {
    case WEFT_BENCH_INT:
        fprintf(f, fmt, v->i);
        break;
    case WEFT_BENCH_NUM:
        fprintf(f, fmt, v->d);
        break;
    case WEFT_BENCH_TEXT:
        fprintf(f, fmt, v->s);
        break;
    case WEFT_BENCH_NONE:
        heading_format(fmt, text, sizeof text);
        fprintf(f, text, "-");
        break;
    }
}

void weft_bench_row(weft_bench_table *t, const weft_bench_value *v) {
    bool first = true;
    for (int k = 0; k < t->ncol; k++) {
        if (!t->col[k].name) continue;
        if (!first) fputc('\t', t->f);
        put_cell(t->f, t->col[k].tsv, &v[k]);
        first = false;
    }
    fputc('\n', t->f);
    for (int k = 0; k < t->ncol; k++)
        if (t->col[k].title) put_cell(stdout, t->col[k].con, &v[k]);
    putchar('\n');
    fflush(stdout);
}

int weft_bench_close(weft_bench_table *t, const char *failure) {
    if (!t->f) return 1;
    if (failure) fprintf(t->f, "# status=incomplete reason=%s\n", failure);
    int rc = weft_sweep_close(t->f, t->tmp, t->path, failure == NULL);
    t->f = NULL;
    if (failure) {
        fprintf(stderr, "error: %s; partial results left in %s\n", failure, t->tmp);
        return 1;
    }
    if (rc != 0) return 1;
    printf("\nwrote %s\n", t->path);
    return 0;
}

void weft_bench_parse(int argc, char **argv, weft_cli *cli, const char *usage, int added) {
    weft_cli_parse(argc, argv, cli, usage);
    const int room = (int)(sizeof cli->set / sizeof cli->set[0]) - added;
    if (cli->nset > room) {
        fprintf(stderr, "error: --set: at most %d here (the benchmark adds %d)\n", room, added);
        exit(2);
    }
}

int weft_bench_build(const weft_cli *base, const char *scene, int res, const char *const *sets,
                     int threads, weft_model *m, weft_config **cfg, weft_error *err) {
    weft_cli cli = *base;
    const int room = (int)(sizeof cli.set / sizeof cli.set[0]);
    char nx[32], ny[32];
    if (res > 0) {
        snprintf(nx, sizeof nx, "mesh.nx=%d", res);
        snprintf(ny, sizeof ny, "mesh.ny=%d", res);
    }
    int extra = res > 0 ? 2 : 0;
    for (int k = 0; sets && sets[k]; k++) extra++;
    if (cli.nset + extra > room)
        return weft_fail(err, WEFT_ERR_INPUT, "--set: at most %d here (the benchmark adds %d)",
                         room - extra, extra);
    if (res > 0) cli.set[cli.nset++] = nx, cli.set[cli.nset++] = ny;
    for (int k = 0; sets && sets[k]; k++) cli.set[cli.nset++] = sets[k];
    if (scene) cli.scene = scene;
    if (threads > 0) cli.threads = threads;
    return weft_cli_build(&cli, m, cfg, err);
}

int weft_bench_solver_steps(const weft_solver_type *s, weft_model *m, weft_config *cfg,
                            int warmup, int steps, weft_bench_steps *out, weft_error *err) {
    void *st = weft_solver_create(s, m, cfg, err);
    int rc = st ? WEFT_OK : WEFT_ERR_INPUT;
    for (int i = 0; i < warmup && rc == WEFT_OK; i++) rc = s->step(st, m, NULL, err);
    weft_profile before;
    weft_solver_stats(s, st, &before);
    double w0 = weft_now(), c0 = weft_bench_process_cpu();
    for (int i = 0; i < steps && rc == WEFT_OK; i++) rc = s->step(st, m, NULL, err);
    out->wall_s = weft_now() - w0, out->cpu_s = weft_bench_process_cpu() - c0;
    weft_solver_stats(s, st, &out->prof);
    weft_profile_since(&out->prof, &before);
    s->destroy(st);
    return rc;
}

int weft_bench_take_text(int *argc, char **argv, const char *opt, const char **value) {
    int found = 0, w = 1;
    size_t len = strlen(opt);
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], opt)) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "error: %s: missing its value (see --help)\n", opt);
                return -1;
            }
            *value = argv[++i], found = 1;
        } else if (!strncmp(argv[i], opt, len) && argv[i][len] == '=') {
            *value = argv[i] + len + 1, found = 1;
        } else {
            argv[w++] = argv[i];
        }
    }
    *argc = w;
    argv[w] = NULL;
    return found;
}

int weft_bench_take_flag(int *argc, char **argv, const char *opt) {
    int found = 0, w = 1;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], opt)) found = 1;
        else argv[w++] = argv[i];
    }
    *argc = w;
    argv[w] = NULL;
    return found;
}

int weft_bench_take_number(int *argc, char **argv, const char *opt, double lo, double hi,
                           double *v) {
    const char *text = NULL;
    int rc = weft_bench_take_text(argc, argv, opt, &text);
    if (rc <= 0) return rc;
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (end == text || *end || errno || !(x >= lo && x <= hi)) {
        fprintf(stderr, "error: %s: '%s' is not a number in [%g, %g]\n", opt, text, lo, hi);
        return -1;
    }
    *v = x;
    return 1;
}

int weft_bench_take_ints(int *argc, char **argv, const char *opt, int lo, int hi, int *v,
                         int max) {
    const char *text = NULL;
    int rc = weft_bench_take_text(argc, argv, opt, &text);
    if (rc <= 0) return rc;
    int n = 0;
    for (const char *p = text;;) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || errno || x < lo || x > hi || (*end && *end != ',')) {
            fprintf(stderr, "error: %s: '%s' is not a comma-separated list of integers "
                    "%d..%d\n", opt, text, lo, hi);
            return -1;
        }
        if (n == max) {
            fprintf(stderr, "error: %s: more than %d values\n", opt, max);
            return -1;
        }
        v[n++] = (int)x;
        if (!*end) return n;
        p = end + 1;
    }
}
