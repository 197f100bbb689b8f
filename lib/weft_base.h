/* weft_base.h — errors, typo suggestions, assertions, the plug-ins' settings tables and
 * solver profiles (lib/util.c, lib/params.c, lib/profile.c): what every other part uses.
 *
 * Units are SI: m, m/s, kg, s, J, N. Arrays of 3-vectors are flat: x[3*i + 0..2] is vertex i.
 */
#ifndef WEFT_BASE_H
#define WEFT_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define WEFT_VERSION "0.1"

/* ------------------------------------------------------------------------------ */
/* Errors                                                                          */
/* ------------------------------------------------------------------------------ */

/* Status codes, after CHOLMOD: 0 is fine, negative is fatal, positive is a warning.
 * One rule decides which code a failure returns, by what would fix it:
 *   WEFT_ERR_INPUT     the user's input: a scene file, key, value, mesh, --set or option,
 *                      or a combination of settings and model a plug-in cannot run
 *                      (refused when created, before a step); fixed by editing the input.
 *   WEFT_ERR_NOMEM     an allocation failed (malloc, a library's out-of-memory status),
 *                      and nothing else; a size that would overflow counts as one.
 *   WEFT_ERR_DIVERGED  valid input whose numbers went wrong during the run: a non-finite
 *                      or exploding state, a solve that met non-finite values, a step
 *                      that cannot proceed.
 *   WEFT_ERR_INDEFINITE a matrix that must be positive definite is not (a Cholesky
 *                      factorisation, a preconditioner's block, CG's pᵀKp ≤ 0).
 *   WEFT_ERR_IO        a file could not be written or renamed.
 *   WEFT_ERR_INTERRUPTED the run was stopped by SIGINT or SIGTERM.
 *   a warning (> 0)    the run finished, but a result is not all that was asked
 *                      (collisions left unresolved, a linear solve at its cap).
 * A caller passes on the code of the function that failed (its return value, or
 * weft_error_code after a NULL) rather than choosing one of its own: an allocation failure
 * deep inside a create hook stays NOMEM. */
enum {
    WEFT_OK = 0,
    WEFT_ERR_INPUT = -1,    /* bad file, key, value or mesh */
    WEFT_ERR_NOMEM = -2,    /* allocation failed */
    WEFT_ERR_DIVERGED = -3, /* a solver produced a non-finite or exploding state */
    WEFT_ERR_IO = -4,       /* could not write a result */
    WEFT_ERR_INTERRUPTED = -5,
    WEFT_ERR_INDEFINITE = -6, /* a matrix that must be positive definite is not: a Cholesky
                                 factorisation or a preconditioner's block failed, or CG
                                 met pᵀKp ≤ 0 (finite values; non-finite ones are DIVERGED) */
    WEFT_WARN_UNRESOLVED = 1, /* collision handling stopped at its iteration caps with
                                 collisions left (lib/collision/weft_collision.h) */
    WEFT_WARN_MAX_ITER = 2,   /* an iterative linear solve stopped at its iteration cap; its
                                 last iterate is kept (lib/linalg/weft_linsolve.h) */
};

/* One-line error message, "where: what", filled by the function that failed. */
typedef struct weft_error {
    char msg[512];
} weft_error;

/* Formats a message into err (if err is non-NULL) and returns code, which the calling
 * thread also keeps as its last failure (weft_error_code). */
int weft_fail(weft_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The code of this thread's last weft_fail when it was an error (< 0), else fallback: for
 * a caller whose callee failed without returning a code (a create hook's NULL), right
 * after that failure. */
int weft_error_code(int fallback);

/* Appends printf output to buf[size] at *len and advances *len by the full length, so a
 * caller sees what did not fit (*len >= size). */
void weft_appendf(char *buf, size_t size, int *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Parses text as a finite number, or as a fraction A/B of two (B non-zero; "1/120"):
 * the form scene values, --set and sweep axes share. False when it is neither. */
bool weft_parse_number(const char *text, double *out);
/* The typo suggestion of every "unknown section / key / value" message: offer each known
 * name with weft_suggest_offer, then weft_suggest_best gives the closest one, or NULL
 * when none is close enough to be the word the user meant (see weft_suggest_distance). */
typedef struct weft_suggest {
    const char *word; /* what the user wrote */
    const char *best; /* closest name offered so far, or NULL */
    int d;            /* its distance to word */
} weft_suggest;

/* Edit distance of a and b: insertions, deletions, substitutions and swaps of two
 * neighbouring characters cost 1 each (optimal string alignment); 99 for words longer
 * than 63 characters. */
int weft_suggest_distance(const char *a, const char *b);

/* Starts a suggestion for word (kept by pointer: it must outlive s). */
void weft_suggest_init(weft_suggest *s, const char *word);

/* Offers a known name (kept by pointer); the first of equally close names wins. */
void weft_suggest_offer(weft_suggest *s, const char *name);

/* The closest name offered when at most a third of the longer word's characters (and at
 * least one) must change to reach it; NULL otherwise, so "materail" gets "material" but
 * "materail" never gets "boomeramg". */
const char *weft_suggest_best(const weft_suggest *s);

/* ------------------------------------------------------------------------------ */
/* Settings tables: every plug-in's settings, declared once                        */
/* ------------------------------------------------------------------------------ */

/* A plug-in (solver, linear solver, preconditioner, post-step stage) keeps its settings
 * in a struct of its own and describes each field once, in a table: scene key, type,
 * unit, range, default, one line of documentation and the field's offset. From that
 * table alone come the defaults, the reading of the scene section with file:line errors,
 * the log header's settings lines and the `./weft list` entry (lib/params.c,
 * lib/scene/settings.c). Adding a setting is one table row and one struct field. */

typedef enum {
    WEFT_PARAM_DOUBLE, /* a double */
    WEFT_PARAM_INT,    /* an int */
    WEFT_PARAM_BOOL,   /* a bool; the scene writes true/false, yes/no, on/off, 1/0 */
    WEFT_PARAM_NAME,   /* an int: the index of the scene's word among the allowed names */
    WEFT_PARAM_STRING, /* a char[WEFT_PARAM_STRING_MAX]: the scene's text, checked by `check` */
} weft_param_type;

/* Capacity of a WEFT_PARAM_STRING field, terminating zero included. */
#define WEFT_PARAM_STRING_MAX 256

/* Flags of a numeric range: an end that is excluded. */
enum { WEFT_PARAM_LO_OPEN = 1, WEFT_PARAM_HI_OPEN = 2 };

/* Flag of a setting that adds physics to the scene's model (a force, a constraint: the
 * balloon's pressure, self-collision), switched on by any value but 0 / false: a solver
 * whose settings tables lack that key drops the physics, and weft_model_diff_compute
 * says so. A NAME setting is off at its first word. */
enum { WEFT_PARAM_MODEL = 4 };

/* One setting. */
typedef struct weft_param {
    const char *key;         /* scene key within the table's section */
    weft_param_type type;
    size_t offset;           /* offsetof(settings struct, field), within the table's base */
    const char *unit;        /* SI unit; "1" for a dimensionless number, "" for names, flags
                                and counts */
    double lo, hi;           /* DOUBLE and INT: the allowed range */
    unsigned flags;          /* WEFT_PARAM_LO_OPEN, WEFT_PARAM_HI_OPEN */
    double dflt;             /* default: the value (DOUBLE, INT), 0 or 1 (BOOL); unused (0)
                                for NAME */
    const char *dflt_name;   /* NAME: the default word, resolved to its index when defaults
                                are filled, so reordering the names or a registry cannot
                                change it; a word not in the list is a bug that aborts there
                                with a message naming the setting */
    const char *const *names;       /* NAME: the allowed words, NULL-terminated, or NULL when */
    const char *(*name_at)(int i);  /* this gives them: the i-th, NULL past the last (names
                                       taken from a registry) */
    const char *doc;         /* one line: what it means */
    /* STRING: checks the text, false with a message in msg[size] when it is not valid
     * (NULL: any text that fits). */
    bool (*check)(const char *text, char *msg, size_t size);
} weft_param;

/* The settings a plug-in reads from one scene section. A plug-in lists one or more of
 * these, terminated by section == NULL; `base` places the table's fields inside the
 * plug-in's settings struct, so that several plug-ins can share one params array (the
 * PBD solvers' [pbd] keys, say) at different places in their own structs. */
typedef struct weft_param_table {
    const char *section;      /* "solver", "pbd", "ppcg", ... */
    const weft_param *params; /* terminated by key == NULL */
    size_t base;              /* offset of this table's fields in the settings struct */
} weft_param_table;

/* A plug-in as the settings machinery sees it: a descriptor's name and settings. */
typedef struct weft_plugin {
    const char *kind;    /* "run", "solver", "linear", "preconditioner", "stage" */
    const void *type;    /* the descriptor itself (a weft_stage_type for kind "stage") */
    const char *name;    /* registered name */
    const char *paper;   /* paper key, or "" */
    const char *summary; /* one line */
    size_t size;         /* bytes of its settings struct; 0 when it has none */
    const weft_param_table *tables; /* its settings, or NULL when it has none */
} weft_plugin;

/* Fills settings (the plug-in's struct) with the defaults of every table. */
void weft_settings_default(const weft_param_table *tables, void *settings);

/* The parameter of tables with this section and key, or NULL; *base (may be NULL) gets
 * its table's base offset. */
const weft_param *weft_param_find(const weft_param_table *tables, const char *section,
                                  const char *key, size_t *base);

/* The value of a numeric, flag or name parameter as a double (a name: its index). */
double weft_param_value(const weft_param *p, size_t base, const void *settings);

/* The word a NAME parameter's index stands for, or "?" outside the list. */
const char *weft_param_name(const weft_param *p, int index);

/* The index of word among NAME parameter p's names, or -1 when it is not one of them. */
int weft_param_name_index(const weft_param *p, const char *word);

/* The index of NAME parameter p's default word (p->dflt_name); aborts with a message
 * naming section.key when the table names a word not in its list (a bug in the table). */
int weft_param_default_index(const weft_param *p, const char *section);

/* Parses text as parameter p's type within its range into its field (settings + base +
 * p->offset); a bad value fails with "where: section.key: what is wrong". */
int weft_param_parse(const weft_param *p, size_t base, const char *text, void *settings,
                     const char *where, const char *section, weft_error *err);

/* Writes "[section] key=value key=value ..." for each table into buf (lines separated
 * by '\n', no trailing newline); returns the length it needed (snprintf's contract). */
int weft_settings_format(const weft_param_table *tables, const void *settings, char *buf,
                         size_t size);

/* Writes the value of p in settings as a scene file gives it (doubles with the digits that
 * read back exactly, names as their word, text unquoted) into buf; returns the length it
 * needed (snprintf's contract). */
int weft_param_format(const weft_param *p, size_t base, const void *settings, char *buf,
                      size_t size);

/* One line describing p: its type or allowed names, unit, range, default and doc. */
void weft_param_describe(const weft_param *p, char *buf, size_t size);

/* The parts of p's description, for listings: its type ("number", "integer",
 * "true/false", "text", "one of a|b|c") into type, its range ("[lo, hi]", "(lo, hi]"; ""
 * for other types) into range, its default as a scene writes it into dflt. */
void weft_param_parts(const weft_param *p, char *type, size_t ntype, char *range,
                      size_t nrange, char *dflt, size_t ndflt);

/* The settings of every plug-in for one run: each plug-in's struct, filled with its
 * defaults and the scene's values (lib/scene/settings.c). A config knows which plug-ins'
 * settings were taken since weft_config_mark_clear, so a log header can list exactly the
 * settings of what ran. */
typedef struct weft_config weft_config;

/* Copies the settings of the plug-in whose tables are `tables` into dst: the config's
 * values (and marks them taken), or the defaults when c is NULL or does not know it. */
void weft_config_settings(weft_config *c, const weft_param_table *tables, void *dst);

/* The config's own settings struct for `tables` (edit it to change a run), or NULL. */
void *weft_config_find(weft_config *c, const weft_param_table *tables);

/* The value of section.key in the first plug-in of c that has it, as a double (a name:
 * its index; a flag: 0 or 1); false when none has it. Does not mark anything taken. */
bool weft_config_value(const weft_config *c, const char *section, const char *key,
                       double *out);

/* Where the config's value of section.key came from ("file:line", "--set ..." or the
 * assignment's origin) into buf; false, with buf "", when it is the default. */
bool weft_config_where(const weft_config *c, const char *section, const char *key, char *buf,
                       size_t size);

/* Forgets which settings were taken. */
void weft_config_mark_clear(weft_config *c);

/* Writes the settings of every plug-in taken since the last weft_config_mark_clear, one
 * line per table as weft_settings_format, into buf; returns the length it needed. */
int weft_config_format_taken(const weft_config *c, char *buf, size_t size);

/* Applies one "section.key=value" assignment to every plug-in that has that key; fails
 * with a one-line message naming origin when none has it or the value is bad. */
int weft_config_set(weft_config *c, const char *assignment, const char *origin,
                    weft_error *err);

/* Frees the config and sets *c to NULL; safe on NULL. */
void weft_config_free(weft_config **c);

/* ------------------------------------------------------------------------------ */
/* Programmer errors and solver profiles                                           */
/* ------------------------------------------------------------------------------ */

/* WEFT_ASSERT(cond) checks an invariant that weft's own code guarantees: a broken one is
 * a bug, never bad input (bad input gets a weft_error message and a non-zero exit). A
 * failure prints "file:line: function: assertion 'cond' failed" on stderr and aborts.
 * On where NDEBUG is not defined (Debug) and where WEFT_ASSERTS is defined (CMake defines
 * it for RelWithDebInfo, which also sets NDEBUG, and for the sanitizer build); off in
 * Release, where cond is type-checked but not evaluated, so it must have no side effect. */
#if defined(WEFT_ASSERTS) || !defined(NDEBUG)
#define WEFT_ASSERT(cond) \
    ((cond) ? (void)0 : weft_assert_fail(#cond, __FILE__, __LINE__, __func__))
#else
#define WEFT_ASSERT(cond) ((void)sizeof((cond) ? 1 : 0))
#endif

/* WEFT_ASSERT's failure path: prints where and what, then aborts. */
_Noreturn void weft_assert_fail(const char *cond, const char *file, int line, const char *func);

/* What one entry of a profile holds. */
typedef enum {
    WEFT_PROFILE_TIMER, /* wall time, s, summed over the steps so far */
    WEFT_PROFILE_COUNT, /* a number of events (projections, linear solves, ...), summed */
    WEFT_PROFILE_LABEL, /* a fixed text, e.g. CHOLMOD's ordering; no value */
} weft_profile_kind;

/* Most entries a profile holds. */
#define WEFT_PROFILE_MAX 32

/* One named timer, counter or label. */
typedef struct weft_profile_entry {
    const char *name;  /* static string, snake_case: "project", "linear_solves" */
    weft_profile_kind kind;
    double value;      /* timers: s; counters: the count (exact up to 2^53); labels: 0 */
    const char *text;  /* labels: a static string; NULL otherwise */
} weft_profile_entry;

/* The named timers and counters of a solver's run (the descriptor's stats hook), in the
 * order the solver adds them; fixed capacity, no allocation. Zero-initialised = empty. */
typedef struct weft_profile {
    int n;
    weft_profile_entry entry[WEFT_PROFILE_MAX];
} weft_profile;

/* Empties p. */
void weft_profile_clear(weft_profile *p);

/* Adds value to the timer or counter `name` (a static string), appending it when p has
 * none of that name; asserts that p has room and that the kind matches. */
void weft_profile_add(weft_profile *p, const char *name, weft_profile_kind kind, double value);

/* Sets the label `name` to text (both static strings), appending it when absent. */
void weft_profile_label(weft_profile *p, const char *name, const char *text);

/* The entry called name, or NULL. */
const weft_profile_entry *weft_profile_find(const weft_profile *p, const char *name);

/* The value of timer or counter `name` (s or count); NAN when p has no such entry. */
double weft_profile_value(const weft_profile *p, const char *name);

/* Subtracts each timer and counter of `before` from the entry of the same name in p:
 * after a stats call at both ends of an interval, p holds the interval's own profile. */
void weft_profile_since(weft_profile *p, const weft_profile *before);

/* Writes p to f, one "name value unit" line per entry, each prefixed by indent. */
void weft_profile_print(FILE *f, const weft_profile *p, const char *indent);

#endif
