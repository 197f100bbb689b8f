/* sweep_tool.h — what the files of the `sweep` binary share: the parsed SPEC, an arena
 * that holds its strings and lists, growable text, and one entry point per verb.
 *   sweep_text.c    the arena, growable text and lists, shell quoting, whole files
 *   sweep_spec.c    the SPEC reader (libinih): sections, keys, ranges into axis values
 *   sweep_plan.c    sweep plan: DIR/jobs.txt, DIR/manifest.tsv, DIR/spec.ini
 *   sweep_merge.c   sweep merge: DIR/merged.tsv and the figure (plots/sweep.gp)
 *   sweep_slurm.c   sweep slurm: DIR/slurm.sh
 *   sweep_tool.c    usage and dispatch
 * Nothing has a fixed capacity: the arena grows, lists and text double when full, and
 * only running out of memory ends the program ("error: sweep: out of memory"). The
 * arena is freed as a whole at exit: nothing in it is freed on its own. */
#ifndef WEFT_SWEEP_TOOL_H
#define WEFT_SWEEP_TOOL_H

#include <stdbool.h>
#include <stddef.h>

/* ---- the arena (sweep_text.c) ---- */

/* size zeroed bytes, aligned for any type; ends the program when memory is out. */
void *sweep_alloc(size_t size);

/* Frees every block of the arena (at the end of main). */
void sweep_arena_free(void);

/* Room for one more element in items (n in use, *cap of them, size bytes each): items
 * itself, or a copy twice as large; use as a = sweep_grow(a, n, &cap, sizeof *a). */
void *sweep_grow(void *items, int n, int *cap, size_t size);

/* Copies n bytes of s and a terminator; copies s; s without surrounding blanks. */
char *sweep_keepn(const char *s, size_t n);
char *sweep_keep(const char *s);
char *sweep_trimmed(const char *s, size_t n);

/* printf into a string of the arena. */
char *sweep_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- growable text (sweep_text.c) ---- */

/* Text that grows as it is appended to; {0} is empty. s is NUL-terminated once used. */
typedef struct sweep_text {
    char *s;
    size_t len, cap;
} sweep_text;

/* Appends printf output to t. */
void sweep_add(sweep_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends word to t (after a space unless t is empty), single-quoted for sh when it holds
 * anything but letters, digits and ._,=/+:@%-. */
void sweep_word(sweep_text *t, const char *word);

/* t's text ("" while empty). */
const char *sweep_str(const sweep_text *t);

/* ---- strings and files (sweep_text.c) ---- */

/* Shortest "%.*g" text of v that reads back as v (exponent without '+' and leading
 * zeros: 1e3, 2.5e-5; a whole number as digits when that is no longer: 100). */
void sweep_shortest(double v, char *buf, size_t size);

/* Parses all of text as a finite double. */
bool sweep_number_of(const char *text, double *v);

/* Splits text at the characters of sep into trimmed, non-empty items (in the arena);
 * returns their count, the items in *out. */
int sweep_split(const char *text, const char *sep, const char ***out);

/* The first of the n strings that equals an earlier one (its index; *first: the earliest
 * equal one), or -1 when they all differ. Sorts a copy: n log n. */
int sweep_first_repeat(const char *const *strs, int n, int *first);

/* Splits a tab-separated line (modified in place, line end removed) into fields; returns
 * their count, the fields in *out (in the arena). */
int sweep_fields(char *line, char ***out);

/* A whole file's text in the arena; NULL (after an error naming it unless quiet) when it
 * cannot be read. */
char *sweep_slurp(const char *path, bool quiet);

/* path made absolute against the working directory (not normalised); false when it does
 * not fit in size or the working directory is unknown. */
bool sweep_absolute(const char *path, char *buf, size_t size);

/* Writes text to path through "<path>.partial"; 0 or -1 after an error. */
int sweep_write_file(const char *path, const char *text);

/* ---- the SPEC (sweep_spec.c) ---- */

/* One varied scene key. */
typedef struct sweep_axis {
    const char *key;     /* "section.key" */
    const char *option;  /* [pass]: "--dts", or NULL for --set KEY=VALUE */
    int line, pass_line; /* where it was given */
    int n, cap;          /* values */
    const char **text;   /* as the spec writes them (figure labels, directory names) */
    const char **value;  /* as passed to the program (1/N as a decimal) */
    sweep_text raw;      /* the whole list, continuation lines joined */
} sweep_axis;

/* One [set] KEY = VALUE. */
typedef struct sweep_set {
    const char *key, *value;
    int line;
} sweep_set;

/* A parsed SPEC; its lists live in the arena. */
typedef struct sweep_spec {
    const char *path; /* the file read */
    const char *name, *program, *scene, *options;
    int name_line, program_line, scene_line, solvers_line, metrics_line, options_line;
    int nsolvers;
    bool solvers_default; /* the list came from the program's defaults: spec.ini says so */
    const char **solvers;
    sweep_text solvers_raw, metrics_raw, options_raw;
    int repeats;
    int nmetrics;
    const char **metrics;
    int nsets, sets_cap;
    sweep_set *sets;
    int naxes, axes_cap;
    sweep_axis *axes;
    const char *fig_metric, *fig_x, *fig_y, *fig_type, *fig_categories, *fig_colours;
    int fig_line;
} sweep_spec;

/* Reads SPEC into s; with `check`, also requires what planning needs (program, scene).
 * Returns false after a one-line error naming SPEC:LINE. */
bool sweep_spec_read(const char *path, sweep_spec *s, bool check);

/* ---- the verbs: argv[0] is the verb; each returns the exit status ---- */

int sweep_plan(int argc, char **argv);  /* sweep_plan.c */
int sweep_merge(int argc, char **argv); /* sweep_merge.c */
int sweep_slurm(int argc, char **argv); /* sweep_slurm.c */

#endif
