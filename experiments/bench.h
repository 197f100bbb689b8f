/* bench.h — the benchmark harness of the bench_* binaries and ccd_benchmark, so that each
 * bench states only what it measures:
 *   - a plan (warm-up calls, then timed repeats: a minimum and maximum count and a time
 *     after which to stop) run by weft_bench_measure, which keeps the min and the median
 *     of every figure a repeat returns;
 *   - a table of columns (name, file format, console title and format) through which rows
 *     go both to a TSV results file, written as "<file>.partial" and renamed only when the
 *     bench completes, and to the console;
 *   - the scene set-up the benches share (a grid size and extra --set overrides);
 *   - measurements in forked children (each its own peak memory), one at a time or in
 *     interleaved rounds (one timed repeat of each child in turn, so that the rows of a
 *     ratio see the same machine conditions).
 * Timings on a shared machine are noisy: a bench keeps the min (the least disturbed
 * repeat) or the median (robust to one preemption) and says which in its file. */
#ifndef WEFT_BENCH_H
#define WEFT_BENCH_H

#include "cli.h"

#include <stdio.h>

/* ------------------------------------------------------------------------------ */
/* Measuring                                                                       */
/* ------------------------------------------------------------------------------ */

/* Most figures one repeat returns, and most timed repeats of one measurement. */
enum { WEFT_BENCH_MAX_VALUES = 8, WEFT_BENCH_MAX_REPEATS = 1000 };

/* How often a measured call runs: `warmup` untimed calls, then timed ones while fewer than
 * max_repeats have run and either fewer than min_repeats have run or, when stop_after_s
 * > 0, the timed calls have taken less than stop_after_s in all (wall clock, s). */
typedef struct weft_bench_plan {
    int warmup;          /* untimed calls first */
    int min_repeats;     /* timed calls at least, >= 1 */
    int max_repeats;     /* timed calls at most, min_repeats .. WEFT_BENCH_MAX_REPEATS */
    double stop_after_s; /* stop once past min_repeats and this much time (s); 0: never */
} weft_bench_plan;

/* A plan of `repeats` timed calls after `warmup` untimed ones. */
weft_bench_plan weft_bench_repeats(int warmup, int repeats);

/* What a measured call returns. */
enum {
    WEFT_BENCH_MORE = 0, /* values filled; the plan decides whether to repeat */
    WEFT_BENCH_LAST = 1, /* values filled; stop repeating (e.g. a solve did not converge) */
    WEFT_BENCH_FAIL = -1 /* failed, message printed; values ignored, the measurement fails */
};

/* One measured call: does the work once and fills values[0 .. nvalues-1] with its figures
 * (times it took by its own clocks, counts, ...); returns WEFT_BENCH_MORE, _LAST or _FAIL. */
typedef int (*weft_bench_fn)(void *user, double *values);

/* Statistics of each figure over the timed calls. */
typedef struct weft_bench_stats {
    int reps;                             /* timed calls made */
    double min[WEFT_BENCH_MAX_VALUES];    /* smallest value (NaNs ignored; NAN if all) */
    double median[WEFT_BENCH_MAX_VALUES]; /* middle value; mean of the two middle ones
                                             for an even count */
    double last[WEFT_BENCH_MAX_VALUES];   /* the last timed call's value */
} weft_bench_stats;

/* Runs fn by plan, collecting nvalues (1 .. WEFT_BENCH_MAX_VALUES) figures per timed call.
 * Returns 0, or -1 when a call failed (out->reps then counts the calls that succeeded). */
int weft_bench_measure(const weft_bench_plan *plan, int nvalues, weft_bench_fn fn, void *user,
                       weft_bench_stats *out);

/* Sets the OpenMP team size and, when the BLAS is OpenBLAS, its thread pool to `threads`,
 * so that a library's solve and weft's run on the same number of threads; returns
 * OpenBLAS's thread count after it, or -1 for another BLAS (its threads unchanged). */
int weft_bench_pin_threads(int threads);

/* The figure DIR/NAME.png drawn by experiments/plots/NAME.gp from the table at `table`
 * (gnuplot variables file, out); prints "wrote PNG". 0, or 1 after a message. */
int weft_bench_plot(const char *name, const char *table, const char *dir);

/* A measurement run in a child process: fills *out (the caller's struct); 0, or non-zero
 * after printing why it failed. */
typedef int (*weft_bench_child_fn)(const void *job, void *out);

/* Runs fn(job, out) in a forked child and copies its *out (size bytes) back, with the
 * child's own peak resident set into *peak_mib (MiB; the parent's memory not counted);
 * `label` names the measurement if a signal kills it. Returns 0, or -1 when the pipe or
 * fork fails, fn fails, or the child dies (*out then undefined). */
int weft_bench_in_child(weft_bench_child_fn fn, const void *job, void *out, size_t size,
                        const char *label, double *peak_mib);

/* Interleaved rounds: several measurements, each in its own forked child that builds its
 * scene and warms up once, then waits (blocked in read, no CPU) until the parent asks it
 * for one timed repeat; the parent asks each child in turn, round after round, so repeat r
 * of every measurement runs within the same few seconds and a slow period of a shared
 * machine falls on all of them. The children are alive together: their memory adds up. */
typedef struct weft_bench_round_fns {
    int (*start)(const void *job, void **state); /* builds, warms up; 0 or -1 (printed) */
    int (*repeat)(void *state, double *values);  /* one timed repeat: WEFT_BENCH_MORE/_FAIL */
    int (*finish)(void *state, void *out);       /* totals into out, frees state; 0 or -1 */
} weft_bench_round_fns;

/* One child of interleaved rounds, as the parent sees it. */
typedef struct weft_bench_round {
    int pid;        /* the child's process id; 0 once reaped */
    int fd;         /* the parent's end of the socket pair to the child; -1 once closed */
    int nvalues;    /* figures per repeat */
    size_t size;    /* bytes of the child's totals */
    int failed;     /* a step failed or the child died: its later steps fail at once */
    char label[64]; /* names the measurement in messages */
} weft_bench_round;

/* Forks a child that runs fns->start(job) and waits for the start's outcome; nvalues
 * (1 .. WEFT_BENCH_MAX_VALUES) figures per repeat, size bytes of totals. 0, or -1 after a
 * message (the child then reaped; *r needs no finish). */
int weft_bench_round_start(weft_bench_round *r, const weft_bench_round_fns *fns,
                           const void *job, int nvalues, size_t size, const char *label);

/* Asks r's child for one timed repeat (fns->repeat) and reads its figures into values.
 * 0, or -1 when the repeat failed or the child died (r->failed set, later steps fail). */
int weft_bench_round_step(weft_bench_round *r, double *values);

/* Asks r's child for its totals (fns->finish) into out (r->size bytes), reaps it and puts
 * its own peak resident set into *peak_mib (MiB). 0, or -1 when it failed or died. */
int weft_bench_round_finish(weft_bench_round *r, void *out, double *peak_mib);

/* The peak resident set so far of r's live child (VmHWM), MiB; NAN if unknown. */
double weft_bench_round_hwm_mib(const weft_bench_round *r);

/* The memory available to new processes (MemAvailable of /proc/meminfo), MiB; NAN if
 * unknown. */
double weft_bench_mem_available_mib(void);

/* CPU time of the calling thread, s: what a call costs on a machine shared with others. */
double weft_bench_thread_cpu(void);

/* CPU time of the whole process, all threads, s. */
double weft_bench_process_cpu(void);

/* Median of v[0 .. n-1] (sorts v); the mean of the two middle values for even n; NAN for
 * n = 0. */
double weft_bench_median(double *v, int n);

/* ------------------------------------------------------------------------------ */
/* Results: one table to a TSV file and the console                                */
/* ------------------------------------------------------------------------------ */

/* One column. A column with name == NULL is on the console only; with title == NULL in the
 * file only (e.g. a yes/no that the console writes "NO" to catch the eye). */
typedef struct weft_bench_column {
    const char *name;  /* the file's column name */
    const char *tsv;   /* printf conversion in the file, e.g. "%.4f", "%ld", "%s" */
    const char *title; /* console heading */
    const char *con;   /* console conversion with its width and any text around it, e.g.
                          " %12.3f", "%5ld^2"; the heading takes the same width */
} weft_bench_column;

/* A cell: a whole number, a number, a text, or none (written "-"). */
typedef struct weft_bench_value {
    enum { WEFT_BENCH_NONE, WEFT_BENCH_INT, WEFT_BENCH_NUM, WEFT_BENCH_TEXT } kind;
    long i;
    double d;
    const char *s;
} weft_bench_value;

/* Cell constructors. */
static inline weft_bench_value weft_bench_int(long i) {
    return (weft_bench_value){.kind = WEFT_BENCH_INT, .i = i};
}
static inline weft_bench_value weft_bench_num(double d) {
    return (weft_bench_value){.kind = WEFT_BENCH_NUM, .d = d};
}
static inline weft_bench_value weft_bench_text(const char *s) {
    return (weft_bench_value){.kind = WEFT_BENCH_TEXT, .s = s};
}
static inline weft_bench_value weft_bench_none(void) {
    return (weft_bench_value){.kind = WEFT_BENCH_NONE};
}

/* An open results table. */
typedef struct weft_bench_table {
    FILE *f;
    char path[1100], tmp[1200];
    const weft_bench_column *col;
    int ncol;
} weft_bench_table;

/* Creates dir (mkdir -p) and opens dir/file.partial for the columns col[0 .. ncol-1].
 * Returns 0, or -1 after a one-line error. */
int weft_bench_open(weft_bench_table *t, const char *dir, const char *file,
                    const weft_bench_column *col, int ncol);

/* Writes "# <text>" to the file (a description line before the header, or a note after the
 * rows). */
void weft_bench_comment(weft_bench_table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes the column names to the file and the titles to stdout. */
void weft_bench_header(weft_bench_table *t);

/* Writes one row, v[k] the cell of column k, to the file and to stdout (flushed). */
void weft_bench_row(weft_bench_table *t, const weft_bench_value *v);

/* Closes the table. failure == NULL: complete, renamed to its final name and "wrote PATH"
 * printed; returns 0 (or 1 if that failed). Otherwise "# status=incomplete reason=<failure>"
 * ends the file, which keeps its ".partial" name, an error saying so goes to stderr, and
 * 1 is returned: a bench's exit status either way. */
int weft_bench_close(weft_bench_table *t, const char *failure);

/* ------------------------------------------------------------------------------ */
/* Scenes                                                                          */
/* ------------------------------------------------------------------------------ */

/* weft_cli_parse for a bench that adds up to `added` --set overrides of its own: exits 2
 * with a one-line error when the user's --set options leave too little room for them. */
void weft_bench_parse(int argc, char **argv, weft_cli *cli, const char *usage, int added);

/* Builds into m, and its run's config into *cfg (weft_cli_build), the scene `scene` (NULL:
 * base's) with base's options, then, after base's own --set overrides (so the bench's
 * choices win), mesh.nx = mesh.ny = res (unless res is 0) and the NULL-terminated
 * overrides in sets (may be NULL); threads > 0 replaces base's. Returns WEFT_OK or an
 * error code with the message in err. */
int weft_bench_build(const weft_cli *base, const char *scene, int res, const char *const *sets,
                     int threads, weft_model *m, weft_config **cfg, weft_error *err);

/* The cost of some steps of a solver, measured by weft_bench_solver_steps. */
typedef struct weft_bench_steps {
    double wall_s;     /* wall time of the timed steps, s */
    double cpu_s;      /* process CPU time of the timed steps, all threads, s */
    weft_profile prof; /* the solver's profile over the timed steps alone */
} weft_bench_steps;

/* Creates a state of solver s on m with the settings of cfg, makes `warmup` untimed steps
 * and then `steps` timed ones (out), and destroys the state. Returns WEFT_OK or an error
 * code with err's message. */
int weft_bench_solver_steps(const weft_solver_type *s, weft_model *m, weft_config *cfg,
                            int warmup, int steps, weft_bench_steps *out, weft_error *err);

/* ------------------------------------------------------------------------------ */
/* A bench's own options (before weft_bench_parse, which does not know them)       */
/* ------------------------------------------------------------------------------ */

/* Removes every "OPT VALUE" / "OPT=VALUE" from argv; *value gets the last VALUE (left as
 * it is when absent). Returns 1 if found, 0 if not, -1 after a one-line error (no value). */
int weft_bench_take_text(int *argc, char **argv, const char *opt, const char **value);

/* Removes "OPT" from argv; returns 1 if it was there, 0 if not. */
int weft_bench_take_flag(int *argc, char **argv, const char *opt);

/* "OPT X": X a number in [lo, hi] into *v. 1 found, 0 absent, -1 after a one-line error. */
int weft_bench_take_number(int *argc, char **argv, const char *opt, double lo, double hi,
                           double *v);

/* "OPT N,N,...": at most max integers in [lo, hi] into v. Returns the count (0: absent) or
 * -1 after a one-line error naming OPT. */
int weft_bench_take_ints(int *argc, char **argv, const char *opt, int lo, int hi, int *v,
                         int max);

#endif
