/* sweep_tool.c — parameter sweeps as job lists for GNU parallel and Slurm job arrays
 * The `sweep` binary has three commands:
 *
 *   sweep plan SPEC [--out DIR]   reads SPEC (an INI file, read with libinih like the scenes)
 *       and writes DIR/jobs.txt, one self-contained shell command line per run (the
 *       experiment binary with its scene, one solver, every --set, and an output directory
 *       named after the parameters), DIR/manifest.tsv (job, parameters, expected summary)
 *       and DIR/spec.ini (a copy of SPEC). The runs are the product
 *           solvers x axis_1 x ... x axis_k x repeats,
 *       solver outermost, repeats innermost. A line skips its run when the run's summary
 *       exists: experiments write it through ".partial", so it exists only complete.
 *   sweep merge DIR               collects each run's summary into DIR/merged.tsv (one row
 *       per run, the parameters as columns, a state column: complete, failed, incomplete,
 *       missing) and draws DIR/NAME.png with experiments/plots/sweep.gp: a heat map over
 *       two varied axes (a panel per solver), lines over one.
 *   sweep slurm DIR [options]     writes DIR/slurm.sh, an sbatch script whose array tasks
 *       run the lines of DIR/jobs.txt, CHUNK lines per task.
 *
 * Running the lines (GNU parallel or one after another) is experiments/sweep_run.sh. */
#include "cli.h"
#include "sweep.h"

#include "weft_solvers.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: sweep plan SPEC [--out DIR]\n"
    "       sweep merge DIR [--no-plot]\n"
    "       sweep slurm DIR [--chunk N] [--throttle N] [--time T] [--partition P] [--mem M]\n"
    "                       [--cpus N]\n"
    "\n"
    "plan   writes DIR/jobs.txt (one shell command line per run), DIR/manifest.tsv and\n"
    "       DIR/spec.ini; prints DIR on stdout. DIR defaults to results/sweeps/NAME.\n"
    "merge  writes DIR/merged.tsv (one row per run: job state solver AXES... repeat\n"
    "       METRICS... note; state complete, failed, incomplete or missing, metrics '-'\n"
    "       unless complete) and the figure DIR/NAME.png; exits 3 when a run is not complete.\n"
    "slurm  writes DIR/slurm.sh for `sbatch` (an array task per CHUNK jobs, at most\n"
    "       THROTTLE tasks at once (default 32), per-task logs in DIR/slurm/).\n"
    "\n"
    "SPEC sections (see experiments/sweeps/*.ini and the README):\n"
    "  [sweep]   name, program (compare, accuracy, damping, stability), scene (built-in\n"
    "            name or file relative to SPEC), solvers (list; missing or 'default':\n"
    "            every registered solver that can run the scene, as the program's\n"
    "            --list-solvers gives them), repeats (default 1),\n"
    "            metrics (summary columns to collect; default all), options (more\n"
    "            arguments for the program, split at spaces; {sweep} is DIR; not\n"
    "            --scene, --solvers, --set or --out)\n"
    "  [set]     KEY = VALUE: --set KEY=VALUE for every run\n"
    "  [axes]    KEY = LIST: the values of a scene key; LIST items are values, 1/N,\n"
    "            A:STEP:B (arithmetic, B included) or A:*F:B (geometric); items are\n"
    "            separated by ',' (or by '|' when a value holds commas)\n"
    "  [pass]    KEY = --OPTION: pass that axis as '--OPTION VALUE' instead of --set\n"
    "  [figure]  metric, x, y (axis keys or metrics), type (heatmap or lines), categories\n"
    "            (order of a text metric's values), colours (theirs, #rrggbb)\n";

enum {
    MAX_AXES = 8,
    MAX_VALUES = 128,
    MAX_SOLVERS = 16,
    MAX_SETS = 32,
    MAX_METRICS = 32,
    MAX_WORDS = 32,
    MAX_JOBS = 50000
};

/* ---------------------------------------------------------------------------------- */
/* Strings                                                                             */
/* ---------------------------------------------------------------------------------- */

/* Every string the spec and the merge keep lives in this pool: nothing to free. */
static char pool[1 << 24];
static size_t pool_used;

/* size bytes of the pool, aligned for pointers; exits when it is full. */
static void *pool_alloc(size_t size) {
    pool_used = (pool_used + 15) & ~(size_t)15;
    if (pool_used + size > sizeof pool) {
        fprintf(stderr, "error: sweep: out of memory space (the sweep is too large)\n");
        exit(1);
    }
    void *p = pool + pool_used;
    pool_used += size;
    return p;
}

/* Copies n bytes of s (plus a terminator) into the pool; exits when it is full. */
static char *keepn(const char *s, size_t n) {
    if (pool_used + n + 1 > sizeof pool) {
        fprintf(stderr, "error: sweep: out of string space (the spec or sweep is too large)\n");
        exit(1);
    }
    char *p = pool + pool_used;
    memcpy(p, s, n);
    p[n] = '\0';
    pool_used += n + 1;
    return p;
}

/* Copies s into the pool. */
static char *keep(const char *s) {
    return keepn(s, strlen(s));
}

/* s without leading and trailing blanks, in the pool. */
static char *trimmed(const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '\t')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    return keepn(s, n);
}

/* Shortest "%.*g" text of v that reads back as v, into buf, its exponent without '+' and
 * leading zeros (1e3, 2.5e-5); a whole number as digits when that is no longer (100). */
static void shortest(double v, char *buf, size_t size) {
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, size, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    char *e = strchr(buf, 'e');
    if (!e) return;
    char *d = e + 1, *src = e + 1;
    if (*src == '+')
        src++;
    else if (*src == '-')
        d++, src++;
    while (*src == '0' && src[1]) src++;
    memmove(d, src, strlen(src) + 1);
    char digits[32];
    if (v == floor(v) && fabs(v) < 1e15 &&
        (size_t)snprintf(digits, sizeof digits, "%.0f", v) <= strlen(buf))
        snprintf(buf, size, "%s", digits); /* 10, 100 rather than 1e1, 1e2 */
}

/* Parses all of text as a finite double. */
static bool number_of(const char *text, double *v) {
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    return end != text && !*end && !errno && isfinite(*v);
}

/* Appends s to out (at *len, capacity size), single-quoted for sh when it holds anything
 * but letters, digits and ._,=/+:@%-. Returns false when out is full. */
static bool put_word(char *out, size_t *len, size_t size, const char *s) {
    bool plain = *s != '\0';
    for (const char *p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._,=/+:@%-", *p))
            plain = false;
    char buf[4096];
    size_t n = 0;
    if (!plain) buf[n++] = '\'';
    for (const char *p = s; *p && n + 8 < sizeof buf; p++) {
        if (*p == '\'' && !plain) {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *p;
        }
    }
    if (!plain) buf[n++] = '\'';
    buf[n] = '\0';
    int w = snprintf(out + *len, size - *len, "%s%s", *len ? " " : "", buf);
    if (w < 0 || (size_t)w >= size - *len) return false;
    *len += (size_t)w;
    return true;
}

/* Reads a whole file into the pool; NULL (after an error naming it) when it cannot. */
static char *slurp(const char *path, bool quiet) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (!quiet) fprintf(stderr, "error: %s: cannot read: %s\n", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen opens a folder too */
        fclose(f);
        if (!quiet) fprintf(stderr, "error: %s: is a directory, not a file\n", path);
        return NULL;
    }
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    int read_errno = ferror(f) ? errno : 0;
    bool big = !feof(f) && !read_errno;
    fclose(f);
    if (read_errno) {
        if (!quiet) fprintf(stderr, "error: %s: cannot read: %s\n", path, strerror(read_errno));
        return NULL;
    }
    if (big) {
        fprintf(stderr, "error: %s: larger than %zu bytes\n", path, sizeof buf - 1);
        return NULL;
    }
    return keepn(buf, n);
}

/* Splits a tab-separated line (modified in place) into at most max fields. */
static int fields(char *line, char **out, int max) {
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line;; p++) {
        if (n == max) return n;
        out[n++] = p;
        p += strcspn(p, "\t");
        if (!*p) break;
        *p = '\0';
    }
    return n;
}

/* ---------------------------------------------------------------------------------- */
/* The spec                                                                            */
/* ---------------------------------------------------------------------------------- */

/* One varied scene key. */
typedef struct axis {
    const char *key;               /* "section.key" */
    const char *option;            /* [pass]: "--dts", or NULL for --set KEY=VALUE */
    int line, pass_line;           /* where it was given */
    int n;                         /* values */
    const char *text[MAX_VALUES];  /* as the spec writes them (figure labels, directory names) */
    const char *value[MAX_VALUES]; /* as passed to the program (1/N as a decimal) */
    char raw[2048];                /* the whole list, continuation lines joined */
} axis;

/* A parsed SPEC. */
typedef struct spec {
    const char *path; /* the file read */
    const char *name, *program, *scene, *options;
    int name_line, program_line, scene_line, solvers_line, metrics_line, options_line;
    int nsolvers;
    bool solvers_default; /* the list came from default_solvers: spec.ini records it */
    const char *solvers[MAX_SOLVERS];
    char solvers_raw[1024], metrics_raw[1024], options_raw[1024];
    int repeats;
    int nmetrics;
    const char *metrics[MAX_METRICS];
    int nsets;
    const char *set_key[MAX_SETS], *set_value[MAX_SETS];
    int set_line[MAX_SETS];
    int naxes;
    axis axes[MAX_AXES];
    const char *fig_metric, *fig_x, *fig_y, *fig_type, *fig_categories, *fig_colours;
    int fig_line;
} spec;

/* Reader state for libinih: counts lines so the handler can name them. */
typedef struct reader_ctx {
    spec *s;
    const char *pos;
    int line, too_long, last_line;
    bool indented;                       /* the current line starts with a blank */
    const char *last_section, *last_key; /* the previous key, to join continuation lines */
    bool failed;
} reader_ctx;

/* libinih's line source: one line of the text per call, counted. */
static char *spec_reader(char *str, int num, void *stream) {
    reader_ctx *c = stream;
    if (!*c->pos || c->too_long || c->failed) return NULL; /* stop at the first error */
    const char *end = strchr(c->pos, '\n');
    size_t len = end ? (size_t)(end - c->pos) + 1 : strlen(c->pos);
    size_t n = end ? len - 1 : len;
    if (n > 0 && c->pos[n - 1] == '\r') n--;
    c->line++;
    if (n + 1 > (size_t)num) {
        c->too_long = c->line;
        return NULL;
    }
    memcpy(str, c->pos, n);
    str[n] = '\0';
    c->indented = n > 0 && (str[0] == ' ' || str[0] == '\t');
    c->pos += len;
    return str;
}

/* Prints "SPEC:LINE: what" and marks the parse failed; returns 0 for libinih. */
static int spec_error(reader_ctx *c, const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "error: %s:%d: ", c->s->path, c->line);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    c->failed = true;
    return 0;
}

/* An unknown key of section (whose keys are the NULL-terminated `known`), with the
 * nearest one when it is close (weft_suggest). */
static int unknown_key(reader_ctx *c, const char *section, const char *key,
                       const char *const *known) {
    weft_suggest sg;
    weft_suggest_init(&sg, key);
    for (int i = 0; known[i]; i++) weft_suggest_offer(&sg, known[i]);
    const char *best = weft_suggest_best(&sg);
    fprintf(stderr, "error: %s:%d: %s.%s: unknown key", c->s->path, c->line, section, key);
    if (best) fprintf(stderr, " (nearest: %s.%s)", section, best);
    fputc('\n', stderr);
    c->failed = true;
    return 0;
}

/* Appends a continuation line to a list value, or stores the first line. */
static void add_text(char *buf, size_t size, const char *value) {
    size_t l = strlen(buf);
    snprintf(buf + l, size - l, "%s%s", l ? "," : "", value);
}

/* libinih's handler: stores one key of SPEC, checking sections and names. */
static int spec_handler(void *user, const char *section, const char *key, const char *value) {
    reader_ctx *c = user;
    spec *s = c->s;
    bool again = c->last_section && !strcmp(c->last_section, section) && c->last_key &&
                 !strcmp(c->last_key, key);
    bool continued = again && c->indented && c->last_line == c->line - 1;
    c->last_section = keep(section), c->last_key = keep(key), c->last_line = c->line;
    if (again && !continued) return spec_error(c, "%s.%s: duplicate key", section, key);
    if (!strcmp(section, "sweep")) {
        if (!strcmp(key, "solvers")) {
            if (!continued) s->solvers_line = c->line;
            add_text(s->solvers_raw, sizeof s->solvers_raw, value);
        } else if (!strcmp(key, "metrics")) {
            if (!continued) s->metrics_line = c->line;
            add_text(s->metrics_raw, sizeof s->metrics_raw, value);
        } else if (!strcmp(key, "options")) {
            if (!continued) s->options_line = c->line;
            size_t l = strlen(s->options_raw);
            snprintf(s->options_raw + l, sizeof s->options_raw - l, "%s%s", l ? " " : "", value);
        } else if (continued) {
            return spec_error(c, "%s.%s: this key takes one line", section, key);
        } else if (!strcmp(key, "name")) {
            for (const char *p = value; *p; p++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.",
                            *p) ||
                    !*value)
                    return spec_error(c,
                                      "sweep.name: '%s' is not a plain name (letters, digits, "
                                      "'_', '-', '.')%s",
                                      value, "");
            s->name = keep(value), s->name_line = c->line;
        } else if (!strcmp(key, "program")) {
            s->program = keep(value), s->program_line = c->line;
        } else if (!strcmp(key, "scene")) {
            s->scene = keep(value), s->scene_line = c->line;
        } else if (!strcmp(key, "repeats")) {
            double r;
            if (!number_of(value, &r) || r != floor(r) || r < 1 || r > 1000)
                return spec_error(c, "sweep.repeats: '%s' is not a whole number from 1 to 1000%s",
                                  value, "");
            s->repeats = (int)r;
        } else {
            static const char *const known[] = {"name",  "program", "scene", "solvers",
                                                "metrics", "options", "repeats", NULL};
            return unknown_key(c, section, key, known);
        }
    } else if (!strcmp(section, "set")) {
        if (continued) {
            char buf[1024];
            snprintf(buf, sizeof buf, "%s %s", s->set_value[s->nsets - 1], value);
            s->set_value[s->nsets - 1] = keep(buf);
            return 1;
        }
        if (!strchr(key, '.'))
            return spec_error(c, "[set] %s: not a scene key (section.key)%s", key, "");
        if (s->nsets == MAX_SETS) return spec_error(c, "[set]: too many keys%s%s", "", "");
        s->set_key[s->nsets] = keep(key), s->set_value[s->nsets] = keep(value);
        s->set_line[s->nsets++] = c->line;
    } else if (!strcmp(section, "axes")) {
        if (continued) {
            add_text(s->axes[s->naxes - 1].raw, sizeof s->axes[0].raw, value);
            return 1;
        }
        if (!strchr(key, '.'))
            return spec_error(c, "[axes] %s: not a scene key (section.key)%s", key, "");
        if (s->naxes == MAX_AXES) return spec_error(c, "[axes]: more than 8 axes%s%s", "", "");
        axis *a = &s->axes[s->naxes++];
        a->key = keep(key), a->line = c->line;
        snprintf(a->raw, sizeof a->raw, "%s", value);
    } else if (!strcmp(section, "pass")) {
        int k = 0;
        while (k < s->naxes && strcmp(s->axes[k].key, key)) k++;
        if (k == s->naxes)
            return spec_error(c, "[pass] %s: not a key of [axes] (list [axes] first)%s", key, "");
        if (strncmp(value, "--", 2) || strchr(value, ' ') || !value[2])
            return spec_error(c, "[pass] %s: '%s' is not an option (--NAME)", key, value);
        s->axes[k].option = keep(value), s->axes[k].pass_line = c->line;
    } else if (!strcmp(section, "figure")) {
        if (continued) return spec_error(c, "%s.%s: this key takes one line", section, key);
        s->fig_line = s->fig_line ? s->fig_line : c->line;
        if (!strcmp(key, "metric"))
            s->fig_metric = keep(value);
        else if (!strcmp(key, "x"))
            s->fig_x = keep(value);
        else if (!strcmp(key, "y"))
            s->fig_y = keep(value);
        else if (!strcmp(key, "type")) {
            if (strcmp(value, "heatmap") && strcmp(value, "lines"))
                return spec_error(c, "figure.type: '%s' is not heatmap or lines%s", value, "");
            s->fig_type = keep(value);
        } else if (!strcmp(key, "categories")) {
            s->fig_categories = keep(value);
        } else if (!strcmp(key, "colours")) {
            for (const char *p = value; *p; p++)
                if (!strchr("#0123456789abcdefABCDEF, ", *p))
                    return spec_error(c, "figure.colours: '%s' is not a list of #rrggbb%s", value,
                                      "");
            s->fig_colours = keep(value);
        } else {
            static const char *const known[] = {"metric", "x", "y", "type", "categories",
                                                "colours", NULL};
            return unknown_key(c, section, key, known);
        }
    } else {
        static const char *const known[] = {"sweep", "set", "axes", "pass", "figure", NULL};
        weft_suggest sg;
        weft_suggest_init(&sg, section);
        for (int i = 0; known[i]; i++) weft_suggest_offer(&sg, known[i]);
        const char *best = weft_suggest_best(&sg);
        char h[80] = "";
        if (best) snprintf(h, sizeof h, "; nearest: [%s]", best);
        return spec_error(c, "[%s]: unknown section (sweep, set, axes, pass, figure%s)", section,
                          h);
    }
    return 1;
}

/* Splits text at `sep` characters into trimmed, non-empty items in the pool. */
static int split(const char *text, const char *sep, const char **out, int max) {
    int n = 0;
    const char *p = text;
    while (*p) {
        size_t l = strcspn(p, sep);
        char *item = trimmed(p, l);
        if (*item) {
            if (n == max) return -1;
            out[n++] = item;
        }
        p += l;
        if (*p) p++;
    }
    return n;
}

/* Expands one item of an axis list into a's values: a value, 1/N-style fraction, or a
 * range A:STEP:B / A:*F:B. Returns false after an error naming SPEC:LINE. */
static bool expand_item(const spec *s, axis *a, const char *item) {
    const char *c1 = strchr(item, ':');
    double v, lo, hi, step;
    char buf[64];
    if (!c1) {
        const char *value = item;
        double frac; /* 1/N as a decimal: the parser the scenes' --set uses */
        if (strchr(item, '/') && weft_parse_number(item, &frac)) {
            shortest(frac, buf, sizeof buf);
            value = keep(buf);
        }
        if (a->n == MAX_VALUES) goto too_many;
        a->text[a->n] = item, a->value[a->n++] = value;
        return true;
    }
    const char *c2 = strchr(c1 + 1, ':');
    bool geometric = c2 && c1[1] == '*';
    if (!c2 || !number_of(keepn(item, (size_t)(c1 - item)), &lo) ||
        !number_of(keepn(c1 + 1 + geometric, (size_t)(c2 - c1 - 1 - geometric)), &step) ||
        !number_of(c2 + 1, &hi) || hi < lo || (geometric ? step <= 1 || lo <= 0 : step <= 0)) {
        fprintf(stderr,
                "error: %s:%d: %s: '%s' is not a range A:STEP:B (STEP > 0) or A:*F:B "
                "(A > 0, F > 1) with A <= B\n",
                s->path, a->line, a->key, item);
        return false;
    }
    for (int i = 0;; i++) {
        v = geometric ? lo * pow(step, i) : lo + step * i;
        if (v > hi + 1e-9 * fmax(fabs(hi), fabs(lo))) break;
        if (a->n == MAX_VALUES) goto too_many;
        shortest(v, buf, sizeof buf);
        a->text[a->n] = a->value[a->n] = keep(buf);
        /* The program gets a whole number as digits: integer keys (mesh.nx) refuse 1e2. */
        if (v == floor(v) && fabs(v) < 1e15 && strchr(buf, 'e')) {
            snprintf(buf, sizeof buf, "%.0f", v);
            a->value[a->n] = keep(buf);
        }
        a->n++;
    }
    return true;
too_many:
    fprintf(stderr, "error: %s:%d: %s: more than %d values\n", s->path, a->line, a->key,
            MAX_VALUES);
    return false;
}

/* Reads SPEC; with `check`, also requires what planning needs (program, scene, solvers).
 * Returns false after a one-line error naming SPEC:LINE. */
static bool spec_read(const char *path, spec *s, bool check) {
    memset(s, 0, sizeof *s);
    s->path = keep(path);
    s->repeats = 1;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) { /* name the specs it holds */
        char list[512] = "";
        DIR *d = opendir(path);
        for (struct dirent *de; d && (de = readdir(d));) {
            size_t l = strlen(de->d_name);
            if (l > 4 && !strcmp(de->d_name + l - 4, ".ini") && strlen(list) < 400)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         list[0] ? ", " : "", de->d_name);
        }
        if (d) closedir(d);
        fprintf(stderr, "error: %s: is a directory; a sweep spec is one .ini file%s%s%s\n",
                path, list[0] ? " (here: " : "", list, list[0] ? ")" : "");
        return false;
    }
    const char *text = slurp(path, false);
    if (!text) return false;
    reader_ctx c = {.s = s, .pos = text};
    int rc = ini_parse_stream(spec_reader, &c, spec_handler, &c);
    if (c.too_long) {
        fprintf(stderr,
                "error: %s:%d: line too long (199 characters at most); continue a list "
                "on indented lines\n",
                path, c.too_long);
        return false;
    }
    if (c.failed) return false;
    if (rc > 0) {
        fprintf(stderr, "error: %s:%d: syntax error (expected [section] or key = value)\n", path,
                rc);
        return false;
    }
    if (!s->name) {
        fprintf(stderr, "error: %s: sweep.name: missing\n", path);
        return false;
    }
    if (check) {
        static const char *const programs[] = {"compare", "accuracy", "damping", "stability", 0};
        bool known = false;
        for (int i = 0; s->program && programs[i]; i++)
            known = known || !strcmp(programs[i], s->program);
        if (!known) {
            if (s->program)
                fprintf(stderr,
                        "error: %s:%d: sweep.program: '%s' is not one of compare, "
                        "accuracy, damping, stability\n",
                        path, s->program_line, s->program);
            else
                fprintf(stderr,
                        "error: %s: sweep.program: missing (compare, accuracy, damping "
                        "or stability)\n",
                        path);
            return false;
        }
        if (!s->scene) {
            fprintf(stderr, "error: %s: sweep.scene: missing\n", path);
            return false;
        }
    }
    s->nsolvers = split(s->solvers_raw, ", \t", s->solvers, MAX_SOLVERS);
    if (s->nsolvers < 0) {
        fprintf(stderr, "error: %s:%d: sweep.solvers: more than %d\n", path, s->solvers_line,
                MAX_SOLVERS);
        return false;
    }
    s->nmetrics = split(s->metrics_raw, ", \t", s->metrics, MAX_METRICS);
    if (s->nmetrics < 0) {
        fprintf(stderr, "error: %s:%d: sweep.metrics: more than %d\n", path, s->metrics_line,
                MAX_METRICS);
        return false;
    }
    s->options = keep(s->options_raw);
    /* stability and accuracy set some scene keys themselves, after any --set: say so
     * rather than let a --set be overridden silently. */
    static const char *const owned[][3] = {
        {"stability", "scene.dt", "--dts"},
        {"stability", "material.stretch_stiffness", "--stiffnesses"},
        {"stability", "scene.steps", NULL},
        {"accuracy", "scene.dt", "--dts"},
        {"accuracy", "solver.iterations", "--iteration-counts"},
        {"accuracy", "scene.steps", NULL},
    };
    for (size_t o = 0; s->program && o < sizeof owned / sizeof owned[0]; o++) {
        if (strcmp(owned[o][0], s->program)) continue;
        int line = 0;
        for (int i = 0; i < s->nsets; i++)
            if (!strcmp(s->set_key[i], owned[o][1])) line = s->set_line[i];
        for (int k = 0; k < s->naxes; k++)
            if (!strcmp(s->axes[k].key, owned[o][1]) && !s->axes[k].option) line = s->axes[k].line;
        if (!line) continue;
        if (owned[o][2])
            fprintf(stderr,
                    "error: %s:%d: %s: %s sets it itself; give it as an axis passed with "
                    "[pass] %s = %s (or in options)\n",
                    path, line, owned[o][1], s->program, owned[o][1], owned[o][2]);
        else
            fprintf(stderr, "error: %s:%d: %s: %s sets it itself (from its duration and dt)\n",
                    path, line, owned[o][1], s->program);
        return false;
    }
    for (int k = 0; k < s->naxes; k++) {
        axis *a = &s->axes[k];
        const char *items[MAX_VALUES];
        int ni = split(a->raw, strchr(a->raw, '|') ? "|" : ",", items, MAX_VALUES);
        if (ni <= 0) {
            fprintf(stderr, "error: %s:%d: %s: %s\n", path, a->line, a->key,
                    ni < 0 ? "too many values" : "empty list");
            return false;
        }
        for (int i = 0; i < ni; i++)
            if (!expand_item(s, a, items[i])) return false;
        for (int i = 0; i < a->n; i++)
            for (int j = 0; j < i; j++)
                if (!strcmp(a->value[i], a->value[j])) {
                    fprintf(stderr, "error: %s:%d: %s: the value '%s' appears twice\n", path,
                            a->line, a->key, a->text[i]);
                    return false;
                }
    }
    return true;
}

/* ---------------------------------------------------------------------------------- */
/* plan                                                                                */
/* ---------------------------------------------------------------------------------- */

/* One run: its solver, value index per axis and repeat. */
typedef struct job {
    int solver, value[MAX_AXES], repeat;
} job;

/* Enumerates the runs of s into jobs (solver outermost, repeats innermost); returns n. */
static int enumerate(const spec *s, job *jobs, int max) {
    int n = 0;
    int idx[MAX_AXES] = {0};
    for (int sv = 0; sv < s->nsolvers; sv++) {
        memset(idx, 0, sizeof idx);
        for (;;) {
            for (int r = 1; r <= s->repeats; r++) {
                if (n == max) return -1;
                jobs[n].solver = sv, jobs[n].repeat = r;
                memcpy(jobs[n].value, idx, sizeof idx);
                n++;
            }
            int k = s->naxes - 1;
            while (k >= 0 && ++idx[k] == s->axes[k].n) idx[k--] = 0;
            if (k < 0) break;
        }
    }
    return n;
}

/* The directory name of run j: solver, then KEY=VALUE per axis (KEY the part after the
 * last '.', unless two axes share it), then -rR with repeats; unsafe characters become '_'. */
static void job_dir(const spec *s, const job *j, char *buf, size_t size) {
    size_t l = (size_t)snprintf(buf, size, "%s", s->solvers[j->solver]);
    for (int k = 0; k < s->naxes; k++) {
        const char *key = s->axes[k].key, *shortk = strrchr(key, '.') + 1;
        for (int o = 0; o < s->naxes; o++)
            if (o != k && !strcmp(strrchr(s->axes[o].key, '.') + 1, shortk)) shortk = key;
        l += (size_t)snprintf(buf + l, size - l, "-%s=%s", shortk, s->axes[k].text[j->value[k]]);
        if (l >= size) break;
    }
    if (s->repeats > 1 && l < size) snprintf(buf + l, size - l, "-r%d", j->repeat);
    for (char *p = buf; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._=+-", *p))
            *p = '_';
}

/* path made absolute against the working directory (not normalised); false when it does
 * not fit or the working directory is unknown. */
static bool absolute(const char *path, char *buf, size_t size) {
    if (path[0] == '/') return (size_t)snprintf(buf, size, "%s", path) < size;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return false;
    return (size_t)snprintf(buf, size, "%s/%s", cwd, path) < size;
}

/* Directory of this executable (where the experiment binaries are built too). */
static bool bin_dir(char *buf, size_t size) {
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0) return false;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash) return false;
    *slash = '\0';
    return true;
}

/* Writes text to path through "<path>.partial"; 0 or -1 after an error. */
static int write_file(const char *path, const char *text) {
    char tmp[PATH_MAX + 16];
    FILE *f = weft_sweep_open(path, tmp, sizeof tmp);
    if (!f) return -1;
    fputs(text, f);
    return weft_sweep_close(f, tmp, path, true);
}

/* Checks the scene, the solvers and every axis value by building the model with each
 * value (the other axes at their first value); learns the scene's name. */
/* sweep.solvers missing or "default": the program's own default list, every registered
 * solver that can run the scene (with [set]; weft_cli_default_solvers, with the program's
 * needs: accuracy an order of accuracy, stability the explicit methods too), so that a new
 * solver joins the shipped SPECs with no edit. */
static bool default_solvers(spec *s, const char *scene) {
    if (s->solvers_raw[0] && strcmp(s->solvers_raw, "default") != 0) return true;
    char sets[MAX_SETS][1100];
    weft_cli cli = {.scene = scene, .out = "", .steps = -1, .plot_step = -1};
    for (int i = 0; i < s->nsets; i++) {
        snprintf(sets[i], sizeof sets[0], "%s=%s", s->set_key[i], s->set_value[i]);
        cli.set[cli.nset++] = sets[i];
    }
    unsigned flags = !strcmp(s->program, "accuracy")    ? WEFT_CLI_NEED_ORDER
                     : !strcmp(s->program, "stability") ? WEFT_CLI_EXPLICIT
                                                        : 0;
    const weft_solver_type *types[MAX_SOLVERS];
    int n = weft_cli_default_solvers(&cli, flags, types, MAX_SOLVERS);
    if (n <= 0) {
        if (n == 0) fprintf(stderr, "error: %s: sweep.solvers: no solver can run the scene\n", s->path);
        return false;
    }
    s->solvers_raw[0] = '\0';
    s->solvers_default = true;
    for (int k = 0; k < n; k++) {
        size_t l = strlen(s->solvers_raw);
        snprintf(s->solvers_raw + l, sizeof s->solvers_raw - l, "%s%s", k ? "," : "",
                 types[k]->name);
        s->solvers[k] = types[k]->name;
    }
    s->nsolvers = n;
    return true;
}

/* "solvers = " and the comma-separated list, wrapped onto indented continuation lines
 * (the SPEC reader's line limit), into out[cap] at o; returns the new o. */
static size_t solvers_lines(char *out, size_t cap, size_t o, const char *list) {
    o += (size_t)snprintf(out + o, cap - o, "solvers =");
    int col = 9;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        bool wrap = col + (int)len > 78;
        o += (size_t)snprintf(out + o, cap - o, "%s%.*s%s", wrap ? "\n  " : " ", (int)len, p,
                              p[len] ? "," : "");
        col = (wrap ? 2 : col + 1) + (int)len + 1;
        p += len + (p[len] ? 1 : 0);
    }
    return o + (size_t)snprintf(out + o, cap - o, "\n");
}

/* SPEC's text with the [sweep] solvers line replaced by (or, when it has none, given)
 * "solvers = LIST", so that DIR/spec.ini names the runs' solvers; malloc'd, NULL when out
 * of memory. */
static char *spec_text_with_solvers(const char *text, const char *list) {
    size_t cap = strlen(text) + 2 * strlen(list) + 128;
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t o = 0;
    bool done = false, in_sweep = false;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
        const char *q = p;
        while (q < p + len && (*q == ' ' || *q == '\t')) q++;
        bool section = *q == '[';
        if (section) in_sweep = !strncmp(q, "[sweep]", 7);
        if (in_sweep && !section && !strncmp(q, "solvers", 7) &&
            strspn(q + 7, " \t") + q + 7 < p + len && q[7 + strspn(q + 7, " \t")] == '=') {
            if (!done) o = solvers_lines(out, cap, o, list);
            done = true;
        } else {
            memcpy(out + o, p, len);
            o += len;
            if (section && in_sweep && !done) {
                if (len && p[len - 1] != '\n') out[o++] = '\n';
                o = solvers_lines(out, cap, o, list);
                done = true;
            }
        }
        p += len;
    }
    out[o] = '\0';
    return out;
}

static bool validate(spec *s, const char *scene, char *scene_name, size_t size) {
    const weft_solver_type *types[MAX_SOLVERS];
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s:%d: sweep.solvers", s->path, s->solvers_line);
    if (!default_solvers(s, scene)) return false;
    if (weft_cli_solvers(s->solvers_raw, where, types, MAX_SOLVERS) < 0) return false;
    char sets[MAX_SETS + MAX_AXES][1100];
    weft_cli cli = {.scene = scene, .out = "", .steps = -1, .plot_step = -1};
    for (int i = 0; i < s->nsets; i++) {
        snprintf(sets[cli.nset], sizeof sets[0], "%s=%s", s->set_key[i], s->set_value[i]);
        cli.set[cli.nset] = sets[cli.nset];
        cli.nset++;
    }
    int base = cli.nset;
    for (int k = 0; k < s->naxes; k++) {
        cli.set[base + k] = sets[base + k];
        snprintf(sets[base + k], sizeof sets[0], "%s=%s", s->axes[k].key, s->axes[k].value[0]);
    }
    cli.nset = base + s->naxes;
    for (int k = -1; k < s->naxes; k++) {
        for (int i = k < 0 ? 0 : 1; i < (k < 0 ? 1 : s->axes[k].n); i++) {
            if (k >= 0)
                snprintf(sets[base + k], sizeof sets[0], "%s=%s", s->axes[k].key,
                         s->axes[k].value[i]);
            weft_error err = {{0}};
            weft_model m;
            weft_config *cfg = NULL;
            if (weft_cli_build(&cli, &m, &cfg, &err) != WEFT_OK) {
                if (k >= 0)
                    fprintf(stderr, "error: %s:%d: %s = %s: %s\n", s->path, s->axes[k].line,
                            s->axes[k].key, s->axes[k].text[i], err.msg);
                else
                    fprintf(stderr,
                            "error: %s: sweep.scene, [set] or the first value of [axes]: "
                            "%s\n",
                            s->path, err.msg);
                return false;
            }
            if (k < 0) snprintf(scene_name, size, "%s", m.scene_name);
            weft_model_free(&m);
            weft_config_free(&cfg);
        }
        if (k >= 0)
            snprintf(sets[base + k], sizeof sets[0], "%s=%s", s->axes[k].key, s->axes[k].value[0]);
    }
    return true;
}

/* sweep plan SPEC [--out DIR]. */
static int cmd_plan(int argc, char **argv) {
    static const char *const own[] = {"out", NULL};
    const char *vals[1] = {NULL};
    weft_sweep_take(&argc, argv, own, vals);
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "error: sweep plan: expected one SPEC file (see --help)\n");
        return 2;
    }
    static spec s;
    if (!spec_read(argv[1], &s, true)) return 2;

    /* The scene: a built-in name, or a file relative to the spec's folder. */
    char spec_dir[PATH_MAX], scene[PATH_MAX];
    snprintf(spec_dir, sizeof spec_dir, "%s", s.path);
    char *slash = strrchr(spec_dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(spec_dir, sizeof spec_dir, ".");
    bool builtin = false;
    for (const weft_builtin_scene *b = weft_builtin_scenes; b->name; b++)
        builtin = builtin || !strcmp(b->name, s.scene);
    if (builtin) {
        snprintf(scene, sizeof scene, "%s", s.scene);
    } else {
        char joined[2 * PATH_MAX];
        snprintf(joined, sizeof joined, "%s/%s", spec_dir, s.scene);
        if (!absolute(s.scene[0] == '/' ? s.scene : joined, scene, sizeof scene) ||
            access(scene, R_OK) != 0) {
            fprintf(stderr,
                    "error: %s:%d: sweep.scene: '%s' is neither a built-in scene nor a "
                    "readable file (relative to the spec): %s\n",
                    s.path, s.scene_line, s.scene, strerror(errno));
            return 2;
        }
    }
    char scene_name[128];
    if (!validate(&s, scene, scene_name, sizeof scene_name)) return 2;

    char bin[PATH_MAX], program[PATH_MAX + 64];
    if (!bin_dir(bin, sizeof bin)) {
        fprintf(stderr, "error: sweep: cannot find its own directory (/proc/self/exe)\n");
        return 1;
    }
    snprintf(program, sizeof program, "%s/%s", bin, s.program);
    if (access(program, X_OK) != 0) {
        fprintf(stderr, "error: %s: not built (the sweep runs it)\n", program);
        return 1;
    }
    char out_given[PATH_MAX], out[PATH_MAX];
    if (vals[0])
        snprintf(out_given, sizeof out_given, "%s", vals[0]);
    else
        snprintf(out_given, sizeof out_given, "results/sweeps/%s", s.name);
    char runs[PATH_MAX + 8];
    snprintf(runs, sizeof runs, "%s/runs", out_given);
    if (weft_mkdirs(runs) != 0) return 1;
    if (!absolute(out_given, out, sizeof out)) {
        fprintf(stderr, "error: %s: %s\n", out_given, strerror(errno));
        return 1;
    }
    /* Every summary is DIR/runs/RUN/SUB/summary.tsv, SUB fixed by the program. */
    const char *sub = !strcmp(s.program, "compare") ? scene_name : s.program;

    static job jobs[MAX_JOBS];
    int nj = enumerate(&s, jobs, MAX_JOBS);
    if (nj < 0) {
        fprintf(stderr, "error: %s: more than %d runs\n", s.path, MAX_JOBS);
        return 2;
    }
    const char *words[MAX_WORDS];
    char options[1024];
    snprintf(options, sizeof options, "%s", s.options);
    int nw = 0;
    for (char *save = NULL, *w = strtok_r(options, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save)) {
        if (nw == MAX_WORDS) {
            fprintf(stderr, "error: %s:%d: sweep.options: more than %d words\n", s.path,
                    s.options_line, MAX_WORDS);
            return 2;
        }
        /* The plan gives each run these itself; --set belongs in [set] or [axes]. */
        static const char *const own[] = {"--scene", "--solvers", "--out", "--set", "--scenes"};
        for (size_t o = 0; o < sizeof own / sizeof own[0]; o++)
            if (!strncmp(w, own[o], strlen(own[o])) &&
                (w[strlen(own[o])] == '\0' || w[strlen(own[o])] == '=')) {
                fprintf(stderr,
                        "error: %s:%d: sweep.options: %s is the plan's to give (use "
                        "sweep.scene, sweep.solvers, --out of the plan, [set] or [axes])\n",
                        s.path, s.options_line, own[o]);
                return 2;
            }
        words[nw++] = w;
    }

    /* jobs.txt and manifest.tsv, in memory first. */
    size_t jcap = 4096 * (size_t)nj + 4096, mcap = 1024 * (size_t)nj + 4096;
    char *jt = malloc(jcap), *mt = malloc(mcap);
    if (!jt || !mt) {
        free(jt), free(mt);
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    size_t ml = (size_t)snprintf(mt, mcap,
                                 "# weft sweep plan: name=%s program=%s scene=%s "
                                 "runs=%d\njob\tdir\tsolver",
                                 s.name, s.program, s.scene, nj);
    for (int k = 0; k < s.naxes; k++)
        ml += (size_t)snprintf(mt + ml, mcap - ml, "\t%s", s.axes[k].key);
    ml += (size_t)snprintf(mt + ml, mcap - ml, "\trepeat\tsummary\n");
    size_t jl = 0;
    int done = 0, status = 0;
    char(*dirs)[512] = malloc((size_t)nj * sizeof *dirs);
    static bool complete[MAX_JOBS];
    if (!dirs) {
        free(jt), free(mt);
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    for (int j = 0; j < nj && status == 0; j++) {
        const job *jb = &jobs[j];
        char *dir = dirs[j];
        job_dir(&s, jb, dir, sizeof dirs[0]);
        for (int o = 0; o < j; o++)
            if (!strcmp(dirs[o], dir)) {
                fprintf(stderr,
                        "error: %s: runs %d and %d get the same directory '%s' (values "
                        "that differ only in characters other than letters, digits, ._=+-)\n",
                        s.path, o + 1, j + 1, dir);
                status = 2;
            }
        char summary[1024], path[PATH_MAX + 1100], rundir[600];
        snprintf(rundir, sizeof rundir, "runs/%s", dir);
        snprintf(summary, sizeof summary, "%s/%s/summary.tsv", rundir, sub);
        snprintf(path, sizeof path, "%s/%s", out, summary);
        complete[j] = access(path, F_OK) == 0;
        done += complete[j];

        /* The program's own command line. */
        char cmd[8192];
        size_t cl = 0;
        bool fits =
            put_word(cmd, &cl, sizeof cmd, program) && put_word(cmd, &cl, sizeof cmd, "--scene") &&
            put_word(cmd, &cl, sizeof cmd, scene) && put_word(cmd, &cl, sizeof cmd, "--solvers") &&
            put_word(cmd, &cl, sizeof cmd, s.solvers[jb->solver]);
        char set[1200];
        for (int i = 0; fits && i < s.nsets; i++) {
            snprintf(set, sizeof set, "%s=%s", s.set_key[i], s.set_value[i]);
            fits = put_word(cmd, &cl, sizeof cmd, "--set") && put_word(cmd, &cl, sizeof cmd, set);
        }
        for (int k = 0; fits && k < s.naxes; k++) {
            const axis *a = &s.axes[k];
            if (a->option) {
                fits = put_word(cmd, &cl, sizeof cmd, a->option) &&
                       put_word(cmd, &cl, sizeof cmd, a->value[jb->value[k]]);
            } else {
                snprintf(set, sizeof set, "%s=%s", a->key, a->value[jb->value[k]]);
                fits =
                    put_word(cmd, &cl, sizeof cmd, "--set") && put_word(cmd, &cl, sizeof cmd, set);
            }
        }
        for (int w = 0; fits && w < nw; w++) {
            const char *word = words[w];
            char expanded[PATH_MAX + 256];
            const char *at = strstr(word, "{sweep}");
            if (at) {
                snprintf(expanded, sizeof expanded, "%.*s%s%s", (int)(at - word), word, out,
                         at + 7);
                word = expanded;
            }
            fits = put_word(cmd, &cl, sizeof cmd, word);
        }
        /* --force: the line runs only when the run's summary is missing, so whatever a
         * failed or interrupted earlier attempt left in the folder is replaced. */
        fits = fits && put_word(cmd, &cl, sizeof cmd, "--force") &&
               put_word(cmd, &cl, sizeof cmd, "--no-plot") &&
               put_word(cmd, &cl, sizeof cmd, "--out") && put_word(cmd, &cl, sizeof cmd, rundir);
        /* The whole line: skip a complete run; otherwise run it with its output in
         * RUN/job.log, which ends with "# exit=STATUS" when the program ends. */
        char q_out[PATH_MAX + 8], q_sum[1100], q_run[700], q_log[720];
        size_t a = 0, b = 0, c = 0, d = 0;
        char log[620];
        snprintf(log, sizeof log, "%s/job.log", rundir);
        fits = fits && put_word(q_out, &a, sizeof q_out, out) &&
               put_word(q_sum, &b, sizeof q_sum, summary) &&
               put_word(q_run, &c, sizeof q_run, rundir) && put_word(q_log, &d, sizeof q_log, log);
        int w = fits ? snprintf(jt + jl, jcap - jl,
                                "cd %s && if [ -f %s ]; then echo 'weft sweep: run %d complete, "
                                "skipped'; else mkdir -p %s && { %s >%s 2>&1; rc=$?; echo "
                                "\"# exit=$rc\" >>%s; exit $rc; }; fi\n",
                                q_out, q_sum, j + 1, q_run, cmd, q_log, q_log)
                     : -1;
        if (w < 0 || (size_t)w >= jcap - jl) {
            fprintf(stderr, "error: %s: run %d: command line too long\n", s.path, j + 1);
            status = 2;
            break;
        }
        jl += (size_t)w;
        ml += (size_t)snprintf(mt + ml, mcap - ml, "%d\t%s\t%s", j + 1, dir, s.solvers[jb->solver]);
        for (int k = 0; k < s.naxes; k++)
            ml += (size_t)snprintf(mt + ml, mcap - ml, "\t%s", s.axes[k].value[jb->value[k]]);
        ml += (size_t)snprintf(mt + ml, mcap - ml, "\t%d\t%s\n", jb->repeat, summary);
        if (ml >= mcap) {
            fprintf(stderr, "error: %s: manifest too large\n", s.path);
            status = 2;
        }
    }
    free(dirs);
    if (status == 0) {
        /* GNU parallel's --resume goes by line number: a changed job list starts a new
         * joblog (the old one is kept as joblog.txt.old). */
        char jobs_path[PATH_MAX + 16], joblog[PATH_MAX + 16], old[PATH_MAX + 32],
            mpath[PATH_MAX + 16], spath[PATH_MAX + 16];
        snprintf(jobs_path, sizeof jobs_path, "%s/jobs.txt", out);
        snprintf(joblog, sizeof joblog, "%s/joblog.txt", out);
        snprintf(old, sizeof old, "%s.old", joblog);
        snprintf(mpath, sizeof mpath, "%s/manifest.tsv", out);
        snprintf(spath, sizeof spath, "%s/spec.ini", out);
        const char *prev = slurp(jobs_path, true);
        /* Nor may the joblog record as done a run whose summary is gone (deleted since):
         * parallel would not start it again. */
        int stale = 0;
        FILE *jl = fopen(joblog, "r");
        char row[8192];
        while (jl && fgets(row, sizeof row, jl)) {
            char *fv[9];
            if (fields(row, fv, 9) == 9 && strcmp(fv[0], "Seq") != 0) {
                int seq = atoi(fv[0]);
                if (seq >= 1 && seq <= nj && !strcmp(fv[6], "0") && !strcmp(fv[7], "0") &&
                    !complete[seq - 1] && !stale)
                    stale = seq;
            }
        }
        if (jl) fclose(jl);
        if (stale)
            fprintf(stderr,
                    "sweep %s: %s records run %d as done, but its summary is missing: "
                    "starting a new joblog\n",
                    s.name, joblog, stale);
        if ((!prev || strcmp(prev, jt) != 0 || stale) && access(joblog, F_OK) == 0 &&
            rename(joblog, old) != 0) {
            fprintf(stderr, "error: %s: cannot rename: %s\n", joblog, strerror(errno));
            status = 1;
        }
        const char *spec_text = slurp(s.path, false);
        char *resolved = spec_text && s.solvers_default
                             ? spec_text_with_solvers(spec_text, s.solvers_raw)
                             : NULL;
        if (resolved) spec_text = resolved;
        if (status == 0 && (!spec_text || write_file(spath, spec_text) != 0 ||
                            write_file(mpath, mt) != 0 || write_file(jobs_path, jt) != 0))
            status = 1;
        if (status == 0) {
            fprintf(stderr, "sweep %s: %d runs (%d solver%s", s.name, nj, s.nsolvers,
                    s.nsolvers > 1 ? "s" : "");
            for (int k = 0; k < s.naxes; k++)
                fprintf(stderr, " x %d %s", s.axes[k].n, s.axes[k].key);
            if (s.repeats > 1) fprintf(stderr, " x %d repeats", s.repeats);
            fprintf(stderr, "), %d already complete\n  jobs:     %s\n  manifest: %s\n", done,
                    jobs_path, mpath);
            printf("%s\n", out);
        }
        free(resolved);
    }
    free(jt), free(mt);
    return status;
}

/* ---------------------------------------------------------------------------------- */
/* merge                                                                               */
/* ---------------------------------------------------------------------------------- */

/* A run's state as the merge sees it, and its summary's columns and first row. */
typedef struct run {
    int job;
    const char *dir, *solver, *param[MAX_AXES], *repeat, *summary;
    const char *state, *note;
    int nrows;
    bool complete;
    const char ***rows; /* its summary's rows: the values of each metric */
} run;

/* The last 64 KiB of a file, or NULL when it cannot be read. */
static const char *tail_of(const char *path) {
    static char buf[1 << 16];
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (size > (long)sizeof buf - 1)
            fseek(f, size - (long)sizeof buf + 1, SEEK_SET);
        else
            rewind(f);
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The status of a job log's last "# exit=" line (-1 when there is none) and its last line
 * holding "error:" (NULL when none). */
static int exit_status(const char *log_text, const char **last_error) {
    int rc = -1;
    const char *err = NULL;
    size_t err_len = 0;
    for (const char *p = log_text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l > 7 && !strncmp(p, "# exit=", 7)) rc = atoi(p + 7);
        for (size_t i = 0; i + 6 <= l; i++)
            if (!strncmp(p + i, "error:", 6)) {
                err = p, err_len = l < 160 ? l : 160;
                break;
            }
        p = e ? e + 1 : NULL;
    }
    *last_error = err ? keepn(err, err_len) : NULL;
    return rc;
}

/* Replaces tabs and newlines in s (in the pool) by spaces. */
static const char *flat(const char *s) {
    char *c = keep(s);
    for (char *p = c; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
    return c;
}

/* Is text a number (including nan and inf)? */
static bool numeric(const char *text) {
    char *end;
    strtod(text, &end);
    return end != text && !*end;
}

/* One dimension of the figure: an axis of the spec or a collected summary column. */
typedef struct dim {
    int axis, metric; /* which one it is (the other -1); both -1: no dimension */
    int n;
    const char *value[MAX_VALUES]; /* its values, in order */
    const char *label[MAX_VALUES]; /* their tic labels */
    bool numeric;                  /* every value is a number */
} dim;

/* qsort order of numeric strings, ascending. */
static int by_number(const void *a, const void *b) {
    double x = strtod(*(const char *const *)a, NULL), y = strtod(*(const char *const *)b, NULL);
    return (x > y) - (x < y);
}

/* Fills d for `name`: the key of an axis (its values in the spec's order) or a metric
 * (the distinct values of the complete rows, ascending when numeric). False if neither. */
static bool dim_of(const spec *s, const char *name, const char *const *metrics, int nmetrics,
                   const run *runs, int nr, dim *d) {
    memset(d, 0, sizeof *d);
    d->axis = d->metric = -1;
    for (int k = 0; k < s->naxes; k++)
        if (!strcmp(s->axes[k].key, name)) {
            d->axis = k, d->n = s->axes[k].n;
            memcpy(d->value, s->axes[k].value, sizeof(char *) * (size_t)d->n);
            memcpy(d->label, s->axes[k].text, sizeof(char *) * (size_t)d->n);
            /* The manifest decides: if a run has a value the spec does not list (a plan
             * by another version), take the values the runs have, in their order. */
            bool listed = true;
            for (int r = 0; r < nr && listed; r++) {
                int i = 0;
                while (i < d->n && strcmp(d->value[i], runs[r].param[k])) i++;
                listed = i < d->n;
            }
            if (!listed) {
                d->n = 0;
                for (int r = 0; r < nr; r++) {
                    int i = 0;
                    while (i < d->n && strcmp(d->value[i], runs[r].param[k])) i++;
                    if (i == d->n && d->n < MAX_VALUES)
                        d->value[d->n] = d->label[d->n] = runs[r].param[k], d->n++;
                }
            }
        }
    for (int m = 0; d->axis < 0 && m < nmetrics; m++)
        if (!strcmp(metrics[m], name)) d->metric = m;
    if (d->axis < 0 && d->metric < 0) return false;
    if (d->metric >= 0) {
        for (int r = 0; r < nr; r++)
            for (int w = 0; runs[r].complete && w < runs[r].nrows; w++) {
                const char *v = runs[r].rows[w][d->metric];
                int i = 0;
                while (i < d->n && strcmp(d->value[i], v)) i++;
                if (i == d->n && d->n < MAX_VALUES) d->value[d->n++] = v;
            }
    }
    d->numeric = true;
    for (int i = 0; i < d->n; i++) d->numeric = d->numeric && numeric(d->value[i]);
    if (d->metric >= 0) {
        if (d->numeric) qsort(d->value, (size_t)d->n, sizeof d->value[0], by_number);
        for (int i = 0; i < d->n; i++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%.3g", strtod(d->value[i], NULL));
            d->label[i] = d->numeric ? keep(buf) : d->value[i];
        }
    }
    return true;
}

/* The index in d of the value that run u (row w) has, or -1; 0 when d is no dimension. */
static int dim_index(const dim *d, const run *u, int w) {
    if (d->axis < 0 && d->metric < 0) return 0;
    const char *v = d->axis >= 0 ? u->param[d->axis] : u->rows[w][d->metric];
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->value[i], v)) return i;
    return -1;
}

/* Whether every value of d is positive and the largest exceeds 5 times the smallest. */
static bool wide(const dim *d) {
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < d->n; i++) {
        double v = strtod(d->value[i], NULL);
        if (!(v > 0)) return false;
        lo = fmin(lo, v), hi = fmax(hi, v);
    }
    return d->numeric && d->n > 1 && hi > 5 * lo;
}

/* Joins words into buf, separated by spaces. */
static void join(char *buf, size_t size, const char *const *words, int n) {
    size_t l = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && l < size; i++)
        l += (size_t)snprintf(buf + l, size - l, "%s%s", i ? " " : "", words[i]);
}

/* Writes the figure's data file DIR/figure.dat and draws DIR/NAME.png with sweep.gp;
 * `incomplete` runs of nr are not complete. Returns 0, or -1 after an error. */
static int figure(const char *dir, const spec *s, const run *runs, int nr, int incomplete,
                  int nmetrics, const char *const *metrics) {
    if (nmetrics == 0) return 0;
    /* The metric drawn: [figure] metric, or the first. */
    int mi = 0;
    if (s->fig_metric) {
        mi = -1;
        for (int i = 0; i < nmetrics; i++)
            if (!strcmp(metrics[i], s->fig_metric)) mi = i;
        if (mi < 0) {
            fprintf(stderr, "error: %s:%d: figure.metric: '%s' is not a collected metric\n",
                    s->path, s->fig_line, s->fig_metric);
            return -1;
        }
    }
    /* x and y: the ones [figure] names (axes or metrics), else the varied axes in order. */
    static dim dx, dy;
    dx.axis = dx.metric = dy.axis = dy.metric = -1;
    dx.n = dy.n = 0;
    const char *named[2] = {s->fig_x, s->fig_y};
    dim *dims[2] = {&dx, &dy};
    for (int i = 0; i < 2; i++)
        if (named[i] && !dim_of(s, named[i], metrics, nmetrics, runs, nr, dims[i])) {
            fprintf(stderr,
                    "error: %s:%d: figure.%s: '%s' is neither a key of [axes] nor a "
                    "collected metric\n",
                    s->path, s->fig_line, i ? "y" : "x", named[i]);
            return -1;
        }
    bool lines = s->fig_type && !strcmp(s->fig_type, "lines");
    for (int i = 0; i < (lines ? 1 : 2); i++)
        for (int k = 0; !named[i] && dims[i]->n == 0 && k < s->naxes; k++)
            if (s->axes[k].n > 1 && k != dx.axis && k != dy.axis)
                dim_of(s, s->axes[k].key, metrics, nmetrics, runs, nr, dims[i]);
    if (dy.n == 0) lines = true;
    if (lines) dy.axis = dy.metric = -1, dy.n = 0;
    /* Categories of a text metric: the spec's order, then the others as they come. */
    const char *cats[64];
    int nc = 0;
    bool text_metric = false;
    for (int r = 0; r < nr; r++)
        for (int w = 0; runs[r].complete && w < runs[r].nrows; w++)
            text_metric = text_metric || !numeric(runs[r].rows[w][mi]);
    if (text_metric && s->fig_categories) nc = split(s->fig_categories, ", \t", cats, 64);
    if (nc < 0) nc = 0;
    for (int r = 0; text_metric && r < nr; r++)
        for (int w = 0; runs[r].complete && w < runs[r].nrows; w++) {
            const char *v = runs[r].rows[w][mi];
            int c = 0;
            while (c < nc && strcmp(cats[c], v)) c++;
            if (c == nc && nc < 64) cats[nc++] = v;
        }
    /* The data: a block per solver, a line per cell (heat map) or point (lines):
     *   ix iy x value flag   (flag 0: value; 1: no complete run; 2: not finite). Varied
     * axes that are neither x nor y are held at their first value. */
    char data[PATH_MAX + 32], tmp[PATH_MAX + 48];
    snprintf(data, sizeof data, "%s/figure.dat", dir);
    FILE *f = weft_sweep_open(data, tmp, sizeof tmp);
    if (!f) return -1;
    fprintf(f,
            "# figure data of %s/merged.tsv: ix iy x value flag (flag 1: no complete run, "
            "2: not finite)\n",
            dir);
    int nx = dx.n ? dx.n : 1, ny = dy.n ? dy.n : 1;
    double vlo = INFINITY, vhi = 0;
    int flagged = 0;
    for (int sv = 0; sv < s->nsolvers; sv++) {
        if (sv) fprintf(f, "\n\n");
        for (int iy = 0; iy < ny; iy++)
            for (int ix = 0; ix < nx; ix++) {
                double sum = 0;
                int count = 0, nonfinite = 0;
                const char *cat = NULL;
                for (int r = 0; r < nr; r++) {
                    const run *u = &runs[r];
                    bool held = !strcmp(u->solver, s->solvers[sv]) && u->complete;
                    for (int k = 0; held && k < s->naxes; k++)
                        held =
                            k == dx.axis || k == dy.axis || !strcmp(u->param[k], runs[0].param[k]);
                    for (int w = 0; held && w < u->nrows; w++) {
                        if (dim_index(&dx, u, w) != ix || dim_index(&dy, u, w) != iy) continue;
                        const char *v = u->rows[w][mi];
                        double d = strtod(v, NULL);
                        if (text_metric)
                            cat = cat ? cat : v, count++;
                        else if (isfinite(d))
                            sum += d, count++;
                        else
                            nonfinite++;
                    }
                }
                double x = dx.numeric && dx.n ? strtod(dx.value[ix], NULL) : ix;
                if (count == 0) {
                    fprintf(f, "%d %d %.17g - %d\n", ix, iy, x, nonfinite ? 2 : 1);
                    flagged++;
                    continue;
                }
                double value;
                if (text_metric) {
                    int c = 0;
                    while (c < nc && strcmp(cats[c], cat)) c++;
                    value = c + 0.5;
                } else {
                    value = sum / count; /* the mean over repeats */
                    vlo = fmin(vlo, value), vhi = fmax(vhi, value);
                }
                fprintf(f, "%d %d %.17g %.17g 0\n", ix, iy, x, value);
            }
    }
    if (weft_sweep_close(f, tmp, data, true) != 0) return -1;
    bool logv = !text_metric && vlo > 0 && vhi > 5 * vlo;
    /* gnuplot's definitions; index axes carry the spec's text as tic labels. */
    static char defs[32768];
    char names[1024], xl[4096], yl[4096], cl[2048];
    join(names, sizeof names, s->solvers, s->nsolvers);
    join(xl, sizeof xl, dx.label, dx.n);
    join(yl, sizeof yl, dy.label, dy.n);
    join(cl, sizeof cl, cats, nc);
    char colours[512] = "";
    const char *cw[64];
    int ncw = s->fig_colours ? split(s->fig_colours, ", ", cw, 64) : 0;
    join(colours, sizeof colours, cw, ncw > 0 ? ncw : 0);
    char title[1024];
    size_t tl = (size_t)snprintf(title, sizeof title, "%s: %s", s->name, metrics[mi]);
    for (int k = 0; k < s->naxes; k++)
        if (k != dx.axis && k != dy.axis && s->axes[k].n > 1)
            tl += (size_t)snprintf(title + tl, sizeof title - tl, ", %s = %s", s->axes[k].key,
                                   runs[0].param[k]);
    if (incomplete)
        snprintf(title + tl, sizeof title - tl, " (%d of %d runs NOT complete)", incomplete, nr);
    const char *xname = dx.axis >= 0     ? s->axes[dx.axis].key
                        : dx.metric >= 0 ? metrics[dx.metric]
                                         : "solver";
    const char *yname = dy.axis >= 0     ? s->axes[dy.axis].key
                        : dy.metric >= 0 ? metrics[dy.metric]
                                         : "";
    char out[PATH_MAX + 32], script[PATH_MAX];
    snprintf(out, sizeof out, "%s/%s.png", dir, s->name);
    snprintf(script, sizeof script, "%s/sweep.gp", weft_plots_dir());
    snprintf(defs, sizeof defs,
             "data='%s'; out='%s'; mode='%s'; names='%s'; title='%s'; xlabel='%s'; "
             "ylabel='%s'; vlabel='%s'; xlabels='%s'; ylabels='%s'; cats='%s'; xnum=%d; "
             "logx=%d; logy=%d; logv=%d; flagged=%d%s%s%s",
             data, out, lines ? "lines" : "heatmap", names, title, xname, yname, metrics[mi], xl,
             yl, cl, dx.numeric && dx.n > 0, wide(&dx), wide(&dy), logv, flagged,
             colours[0] ? "; colours='" : "", colours, colours[0] ? "'" : "");
    if (weft_gnuplot(defs, script) != 0) {
        fprintf(stderr, "error: gnuplot failed on %s\n", script);
        return -1;
    }
    fprintf(stderr, "  figure:   %s\n", out);
    return 0;
}

/* sweep merge DIR [--no-plot]. */
static int cmd_merge(int argc, char **argv) {
    bool no_plot = weft_sweep_flag(&argc, argv, "no-plot");
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "error: sweep merge: expected one sweep directory (see --help)\n");
        return 2;
    }
    const char *dir = argv[1];
    char path[PATH_MAX + 32];
    static spec s;
    snprintf(path, sizeof path, "%s/spec.ini", dir);
    if (access(path, F_OK) != 0) {
        fprintf(stderr,
                "error: %s: no spec.ini: not a sweep directory (run './weft sweep plan' "
                "first)\n",
                dir);
        return 2;
    }
    if (!spec_read(path, &s, false)) return 2;
    snprintf(path, sizeof path, "%s/manifest.tsv", dir);
    FILE *mf = fopen(path, "r");
    if (!mf) {
        fprintf(stderr, "error: %s: cannot read: %s\n", path, strerror(errno));
        return 2;
    }
    /* The manifest: job dir solver AXES... repeat summary. */
    static char line[8192];
    const char *axis_keys[MAX_AXES];
    int naxes = -1, nr = 0, lineno = 0;
    static run runs[MAX_JOBS];
    while (fgets(line, sizeof line, mf)) {
        lineno++;
        if (line[0] == '#') continue;
        char *fv[MAX_AXES + 8];
        int n = fields(line, fv, MAX_AXES + 8);
        if (naxes < 0) {
            naxes = n - 5;
            if (naxes < 0 || naxes != s.naxes || strcmp(fv[0], "job")) {
                fclose(mf);
                fprintf(stderr, "error: %s:%d: not the header of a manifest of %s\n", path, lineno,
                        s.path);
                return 2;
            }
            for (int k = 0; k < naxes; k++) axis_keys[k] = keep(fv[3 + k]);
            continue;
        }
        if (n != naxes + 5 || nr == MAX_JOBS) {
            fclose(mf);
            fprintf(stderr, "error: %s:%d: expected %d fields\n", path, lineno, naxes + 5);
            return 2;
        }
        run *u = &runs[nr++];
        u->job = atoi(fv[0]);
        u->dir = keep(fv[1]), u->solver = keep(fv[2]);
        for (int k = 0; k < naxes; k++) u->param[k] = keep(fv[3 + k]);
        u->repeat = keep(fv[3 + naxes]), u->summary = keep(fv[4 + naxes]);
    }
    fclose(mf);
    if (naxes < 0) {
        fprintf(stderr, "error: %s: empty manifest\n", path);
        return 2;
    }
    /* Each run: its summary's rows, or why there is none. */
    const char *metrics[MAX_METRICS];
    int nmetrics = s.nmetrics;
    for (int i = 0; i < nmetrics; i++) metrics[i] = s.metrics[i];
    int counts[4] = {0}; /* complete, failed, incomplete, missing */
    for (int r = 0; r < nr; r++) {
        run *u = &runs[r];
        char sp[PATH_MAX + 1100], logp[PATH_MAX + 720], rund[PATH_MAX + 700];
        snprintf(sp, sizeof sp, "%s/%s", dir, u->summary);
        snprintf(rund, sizeof rund, "%s/runs/%s", dir, u->dir);
        snprintf(logp, sizeof logp, "%s/job.log", rund);
        const char *text = slurp(sp, true);
        u->note = "-";
        if (text) {
            u->state = "complete";
            u->complete = true;
            int lines = 1;
            for (const char *q = text; *q; q++) lines += *q == '\n';
            u->rows = pool_alloc((size_t)lines * sizeof *u->rows);
            /* Header: first line not starting with '#'; rows: the lines after it. */
            char *cols[64];
            int ncols = -1;
            const char *p = text;
            while (*p) {
                const char *e = strchr(p, '\n');
                size_t l = e ? (size_t)(e - p) : strlen(p);
                char *ln = keepn(p, l);
                p = e ? e + 1 : p + l;
                if (ln[0] == '#' || !ln[0]) continue;
                char *fv[64];
                int n = fields(ln, fv, 64);
                if (ncols < 0) {
                    ncols = n;
                    memcpy(cols, fv, sizeof(char *) * (size_t)n);
                    if (nmetrics == 0) /* default: every column but the solver */
                        for (int c = 0; c < n && nmetrics < MAX_METRICS; c++)
                            if (strcmp(fv[c], "solver")) metrics[nmetrics++] = fv[c];
                    continue;
                }
                const char **row = pool_alloc((size_t)nmetrics * sizeof *row);
                for (int m = 0; m < nmetrics; m++) {
                    int c = 0;
                    while (c < ncols && strcmp(cols[c], metrics[m])) c++;
                    if (c == ncols) {
                        fprintf(stderr, "error: %s: no column '%s' (a metric of %s)\n", sp,
                                metrics[m], s.path);
                        return 2;
                    }
                    row[m] = c < n ? fv[c] : "-";
                }
                u->rows[u->nrows++] = row;
            }
            if (u->nrows == 0)
                u->state = "failed", u->complete = false, u->note = "summary without rows";
        } else {
            const char *log = tail_of(logp), *err;
            int rc = exit_status(log, &err);
            if (!log && access(rund, F_OK) != 0) {
                u->state = "missing", u->note = "not run";
            } else if (rc < 0 || rc >= 128) {
                char note[300];
                snprintf(note, sizeof note, "%s%s%s",
                         rc < 0 ? "started, no end recorded (killed, "
                                  "or still running)"
                                : "ended by a signal",
                         err ? ": " : "", err ? err : "");
                u->state = "incomplete", u->note = flat(note);
            } else {
                char note[300];
                snprintf(note, sizeof note, "exit=%d%s%s", rc, err ? ": " : "", err ? err : "");
                u->state = "failed", u->note = flat(note);
            }
        }
        counts[!strcmp(u->state, "complete")     ? 0
               : !strcmp(u->state, "failed")     ? 1
               : !strcmp(u->state, "incomplete") ? 2
                                                 : 3]++;
    }
    /* The table. */
    char mpath[PATH_MAX + 32], tmp[PATH_MAX + 48];
    snprintf(mpath, sizeof mpath, "%s/merged.tsv", dir);
    FILE *f = weft_sweep_open(mpath, tmp, sizeof tmp);
    if (!f) return 1;
    fprintf(f,
            "# weft sweep merge: name=%s runs=%d complete=%d failed=%d incomplete=%d "
            "missing=%d%s\n",
            s.name, nr, counts[0], counts[1], counts[2], counts[3],
            counts[0] == nr ? "" : "  NOT ALL RUNS ARE COMPLETE: see the state column");
    fprintf(f, "job\tstate\tsolver");
    for (int k = 0; k < naxes; k++) fprintf(f, "\t%s", axis_keys[k]);
    fprintf(f, "\trepeat");
    for (int m = 0; m < nmetrics; m++) fprintf(f, "\t%s", metrics[m]);
    fprintf(f, "\tnote\n");
    for (int r = 0; r < nr; r++) {
        const run *u = &runs[r];
        for (int row = 0; row < (u->nrows ? u->nrows : 1); row++) {
            fprintf(f, "%d\t%s\t%s", u->job, u->state, u->solver);
            for (int k = 0; k < naxes; k++) fprintf(f, "\t%s", u->param[k]);
            fprintf(f, "\t%s", u->repeat);
            for (int m = 0; m < nmetrics; m++) fprintf(f, "\t%s", u->nrows ? u->rows[row][m] : "-");
            fprintf(f, "\t%s\n", u->note);
        }
    }
    if (weft_sweep_close(f, tmp, mpath, true) != 0) return 1;
    fprintf(stderr,
            "sweep %s: %d runs: %d complete, %d failed, %d incomplete, %d missing\n"
            "  merged:   %s\n",
            s.name, nr, counts[0], counts[1], counts[2], counts[3], mpath);
    if (!no_plot && counts[0] > 0 &&
        figure(dir, &s, runs, nr, nr - counts[0], nmetrics, metrics) != 0)
        return 1;
    if (counts[0] != nr) {
        fprintf(stderr,
                "warning: %d of %d runs are not complete (rerun './weft sweep run' to "
                "resume)\n",
                nr - counts[0], nr);
        return 3;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------- */
/* slurm                                                                               */
/* ---------------------------------------------------------------------------------- */

/* sweep slurm DIR [--chunk N] [--throttle N] [--time T] [--partition P] [--mem M] [--cpus N]. */
static int cmd_slurm(int argc, char **argv) {
    static const char *const own[] = {"chunk", "throttle", "time", "partition",
                                      "mem",   "cpus",     NULL};
    const char *vals[6] = {NULL, "32", NULL, NULL, NULL, "1"};
    weft_sweep_take(&argc, argv, own, vals);
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "error: sweep slurm: expected one sweep directory (see --help)\n");
        return 2;
    }
    int throttle = weft_sweep_count("throttle", vals[1], 1e6);
    int cpus = weft_sweep_count("cpus", vals[5], 1024);
    for (int i = 2; i <= 4; i++)
        if (vals[i] && (strchr(vals[i], '\'') || strchr(vals[i], '\n') || strchr(vals[i], ' '))) {
            fprintf(stderr, "error: --%s: '%s' holds a quote, space or newline\n", own[i], vals[i]);
            return 2;
        }
    char dir[PATH_MAX], jobs_path[PATH_MAX + 16], name[256] = "sweep";
    if (!absolute(argv[1], dir, sizeof dir)) {
        fprintf(stderr, "error: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    snprintf(jobs_path, sizeof jobs_path, "%s/jobs.txt", dir);
    const char *jobs = slurp(jobs_path, false);
    if (!jobs) return 2;
    int nj = 0;
    for (const char *p = jobs; *p; p++) nj += *p == '\n';
    if (nj == 0) {
        fprintf(stderr, "error: %s: no jobs\n", jobs_path);
        return 2;
    }
    char sp[PATH_MAX + 16];
    snprintf(sp, sizeof sp, "%s/spec.ini", dir);
    static spec s;
    if (spec_read(sp, &s, false))
        snprintf(name, sizeof name, "%s", s.name);
    else
        return 2;
    /* Slurm's default MaxArraySize is 1001 (indices 0..1000): chunk larger sweeps. */
    int chunk = vals[0] ? weft_sweep_count("chunk", vals[0], 1e6) : (nj + 1000) / 1001;
    int tasks = (nj + chunk - 1) / chunk;
    char logs[PATH_MAX + 16];
    snprintf(logs, sizeof logs, "%s/slurm", dir);
    if (weft_mkdirs(logs) != 0) return 1;
    static char text[16384];
    size_t l = (size_t)snprintf(
        text, sizeof text,
        "#!/bin/sh\n"
        "# Slurm batch script of the weft sweep '%s', written by './weft sweep slurm'.\n"
        "# Array task T runs lines T*%d+1 .. (T+1)*%d of %s\n"
        "# (each line skips a run whose summary is complete, so resubmitting resumes).\n"
        "# Submit:  sbatch %s/slurm.sh\n"
        "# Then:    ./weft sweep merge %s\n"
        "#SBATCH --job-name=weft-%s\n"
        "#SBATCH --array=0-%d%%%d\n"
        "#SBATCH --ntasks=1\n"
        "#SBATCH --cpus-per-task=%d\n"
        "#SBATCH --output=%s/task-%%A_%%a.log\n",
        name, chunk, chunk, jobs_path, dir, dir, name, tasks - 1, throttle, cpus, logs);
    if (vals[2]) l += (size_t)snprintf(text + l, sizeof text - l, "#SBATCH --time=%s\n", vals[2]);
    if (vals[3])
        l += (size_t)snprintf(text + l, sizeof text - l, "#SBATCH --partition=%s\n", vals[3]);
    if (vals[4]) l += (size_t)snprintf(text + l, sizeof text - l, "#SBATCH --mem=%s\n", vals[4]);
    l += (size_t)snprintf(
        text + l, sizeof text - l,
        "\n"
        "# On a cluster, load here what weft was built with, e.g.\n"
        "#   module load gcc suitesparse openblas gnuplot\n"
        "set -u\n"
        "export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}\n"
        "jobs='%s'\n"
        "chunk=%d\n"
        "task=${SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}\n"
        "i=$((task * chunk + 1))\n"
        "last=$((i + chunk - 1))\n"
        "status=0\n"
        "while [ \"$i\" -le \"$last\" ]; do\n"
        "    line=$(sed -n \"${i}p\" \"$jobs\")\n"
        "    if [ -n \"$line\" ]; then\n"
        "        echo \"weft sweep: task $task: run $i\"\n"
        "        sh -c \"$line\" || { echo \"weft sweep: run $i failed\"; status=1; }\n"
        "    fi\n"
        "    i=$((i + 1))\n"
        "done\n"
        "exit \"$status\"\n",
        jobs_path, chunk);
    if (l >= sizeof text) {
        fprintf(stderr, "error: the batch script is too long\n");
        return 1;
    }
    char out[PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/slurm.sh", dir);
    if (write_file(out, text) != 0) return 1;
    chmod(out, 0755);
    fprintf(stderr,
            "sweep %s: %d runs in %d array task%s of %d, at most %d at once\n"
            "  script:   %s\n  submit:   sbatch %s\n",
            name, nj, tasks, tasks > 1 ? "s" : "", chunk, throttle, out, out);
    printf("%s\n", out);
    return 0;
}

/* Dispatches to plan, merge or slurm. */
int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "plan")) return cmd_plan(argc - 1, argv + 1);
    if (!strcmp(argv[1], "merge")) return cmd_merge(argc - 1, argv + 1);
    if (!strcmp(argv[1], "slurm")) return cmd_slurm(argc - 1, argv + 1);
    fprintf(stderr, "error: sweep: unknown command '%s' (plan, merge, slurm; see --help)\n",
            argv[1]);
    return 2;
}
