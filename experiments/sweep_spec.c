/* sweep_spec.c — reads a sweep SPEC (an INI file, with libinih like the scenes) into a
 * sweep_spec: [sweep] (name, program, scene, solvers, repeats, metrics, options), [set],
 * [axes] (lists of values, 1/N, ranges A:STEP:B and A:*F:B), [pass] and [figure]. Every
 * error is one line naming SPEC:LINE and the key. Lists continue on indented lines. */
#include "cli.h"
#include "sweep_tool.h"

#include <dirent.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Reader state for libinih: counts lines so the handler can name them. */
typedef struct reader_ctx {
    sweep_spec *s;
    const char *pos;
    int line, too_long, last_line;
    bool indented;                       /* the current line starts with a blank */
    const char *last_section, *last_key; /* the previous key, to join continuation lines */
    bool continued;                      /* this key continues the previous one */
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

/* Appends a continuation line to a list value (after sep), or stores the first line. */
static void add_text(sweep_text *t, const char *sep, const char *value) {
    sweep_add(t, "%s%s", t->len ? sep : "", value);
}

/* A key of [sweep]. */
static int sweep_key(reader_ctx *c, const char *key, const char *value) {
    sweep_spec *s = c->s;
    if (!strcmp(key, "solvers")) {
        if (!c->continued) s->solvers_line = c->line;
        add_text(&s->solvers_raw, ",", value);
    } else if (!strcmp(key, "metrics")) {
        if (!c->continued) s->metrics_line = c->line;
        add_text(&s->metrics_raw, ",", value);
    } else if (!strcmp(key, "options")) {
        if (!c->continued) s->options_line = c->line;
        add_text(&s->options_raw, " ", value);
    } else if (c->continued) {
        return spec_error(c, "%s.%s: this key takes one line", "sweep", key);
    } else if (!strcmp(key, "name")) {
        for (const char *p = value; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", *p))
                return spec_error(c,
                                  "sweep.name: '%s' is not a plain name (letters, digits, "
                                  "'_', '-', '.')%s",
                                  value, "");
        s->name = sweep_keep(value), s->name_line = c->line;
    } else if (!strcmp(key, "program")) {
        s->program = sweep_keep(value), s->program_line = c->line;
    } else if (!strcmp(key, "scene")) {
        s->scene = sweep_keep(value), s->scene_line = c->line;
    } else if (!strcmp(key, "repeats")) {
        double r;
        if (!sweep_number_of(value, &r) || r != floor(r) || r < 1 || r > 1000)
            return spec_error(c, "sweep.repeats: '%s' is not a whole number from 1 to 1000%s",
                              value, "");
        s->repeats = (int)r;
    } else {
        static const char *const known[] = {"name",    "program", "scene",   "solvers",
                                            "metrics", "options", "repeats", NULL};
        return unknown_key(c, "sweep", key, known);
    }
    return 1;
}

/* A key of [set], [axes] or [pass]. */
static int scene_key(reader_ctx *c, const char *section, const char *key, const char *value) {
    sweep_spec *s = c->s;
    if (!strcmp(section, "set")) {
        if (c->continued) {
            sweep_set *last = &s->sets[s->nsets - 1];
            last->value = sweep_printf("%s %s", last->value, value);
            return 1;
        }
        if (!strchr(key, '.'))
            return spec_error(c, "[set] %s: not a scene key (section.key)%s", key, "");
        s->sets = sweep_grow(s->sets, s->nsets, &s->sets_cap, sizeof *s->sets);
        s->sets[s->nsets++] = (sweep_set){sweep_keep(key), sweep_keep(value), c->line};
    } else if (!strcmp(section, "axes")) {
        if (c->continued) {
            add_text(&s->axes[s->naxes - 1].raw, ",", value);
            return 1;
        }
        if (!strchr(key, '.'))
            return spec_error(c, "[axes] %s: not a scene key (section.key)%s", key, "");
        s->axes = sweep_grow(s->axes, s->naxes, &s->axes_cap, sizeof *s->axes);
        sweep_axis *a = &s->axes[s->naxes++];
        *a = (sweep_axis){.key = sweep_keep(key), .line = c->line};
        add_text(&a->raw, ",", value);
    } else { /* pass */
        int k = 0;
        while (k < s->naxes && strcmp(s->axes[k].key, key)) k++;
        if (k == s->naxes)
            return spec_error(c, "[pass] %s: not a key of [axes] (list [axes] first)%s", key, "");
        if (strncmp(value, "--", 2) || strchr(value, ' ') || !value[2])
            return spec_error(c, "[pass] %s: '%s' is not an option (--NAME)", key, value);
        s->axes[k].option = sweep_keep(value), s->axes[k].pass_line = c->line;
    }
    return 1;
}

/* A key of [figure]. */
static int figure_key(reader_ctx *c, const char *key, const char *value) {
    sweep_spec *s = c->s;
    if (c->continued) return spec_error(c, "%s.%s: this key takes one line", "figure", key);
    s->fig_line = s->fig_line ? s->fig_line : c->line;
    if (!strcmp(key, "metric")) {
        s->fig_metric = sweep_keep(value);
    } else if (!strcmp(key, "x")) {
        s->fig_x = sweep_keep(value);
    } else if (!strcmp(key, "y")) {
        s->fig_y = sweep_keep(value);
    } else if (!strcmp(key, "type")) {
        if (strcmp(value, "heatmap") && strcmp(value, "lines"))
            return spec_error(c, "figure.type: '%s' is not heatmap or lines%s", value, "");
        s->fig_type = sweep_keep(value);
    } else if (!strcmp(key, "categories")) {
        s->fig_categories = sweep_keep(value);
    } else if (!strcmp(key, "colours")) {
        for (const char *p = value; *p; p++)
            if (!strchr("#0123456789abcdefABCDEF, ", *p))
                return spec_error(c, "figure.colours: '%s' is not a list of #rrggbb%s", value, "");
        s->fig_colours = sweep_keep(value);
    } else {
        static const char *const known[] = {"metric",     "x",       "y", "type",
                                            "categories", "colours", NULL};
        return unknown_key(c, "figure", key, known);
    }
    return 1;
}

/* libinih's handler: stores one key of SPEC, checking sections and names. */
static int spec_handler(void *user, const char *section, const char *key, const char *value) {
    reader_ctx *c = user;
    bool again = c->last_section && !strcmp(c->last_section, section) && c->last_key &&
                 !strcmp(c->last_key, key);
    c->continued = again && c->indented && c->last_line == c->line - 1;
    c->last_section = sweep_keep(section), c->last_key = sweep_keep(key), c->last_line = c->line;
    if (again && !c->continued) return spec_error(c, "%s.%s: duplicate key", section, key);
    if (!strcmp(section, "sweep")) return sweep_key(c, key, value);
    if (!strcmp(section, "set") || !strcmp(section, "axes") || !strcmp(section, "pass"))
        return scene_key(c, section, key, value);
    if (!strcmp(section, "figure")) return figure_key(c, key, value);
    static const char *const known[] = {"sweep", "set", "axes", "pass", "figure", NULL};
    weft_suggest sg;
    weft_suggest_init(&sg, section);
    for (int i = 0; known[i]; i++) weft_suggest_offer(&sg, known[i]);
    const char *best = weft_suggest_best(&sg);
    char h[80] = "";
    if (best) snprintf(h, sizeof h, "; nearest: [%s]", best);
    return spec_error(c, "[%s]: unknown section (sweep, set, axes, pass, figure%s)", section, h);
}

/* Appends one value to axis a: text as the spec writes it, value as the program gets it. */
static void add_value(sweep_axis *a, const char *text, const char *value) {
    int cap = a->cap; /* the two lists grow alike: a->cap counts both */
    a->text = sweep_grow(a->text, a->n, &cap, sizeof *a->text);
    a->value = sweep_grow(a->value, a->n, &a->cap, sizeof *a->value);
    a->text[a->n] = text, a->value[a->n++] = value;
}

/* Expands one item of an axis list into a's values: a value, 1/N-style fraction, or a
 * range A:STEP:B / A:*F:B. Returns false after an error naming SPEC:LINE. */
static bool expand_item(const sweep_spec *s, sweep_axis *a, const char *item) {
    const char *c1 = strchr(item, ':');
    double lo, hi, step;
    char buf[64];
    if (!c1) {
        const char *value = item;
        double frac; /* 1/N as a decimal: the parser the scenes' --set uses */
        if (strchr(item, '/') && weft_parse_number(item, &frac)) {
            sweep_shortest(frac, buf, sizeof buf);
            value = sweep_keep(buf);
        }
        add_value(a, item, value);
        return true;
    }
    const char *c2 = strchr(c1 + 1, ':');
    bool geometric = c2 && c1[1] == '*';
    if (!c2 || !sweep_number_of(sweep_keepn(item, (size_t)(c1 - item)), &lo) ||
        !sweep_number_of(sweep_keepn(c1 + 1 + geometric, (size_t)(c2 - c1 - 1 - geometric)),
                         &step) ||
        !sweep_number_of(c2 + 1, &hi) || hi < lo ||
        (geometric ? step <= 1 || lo <= 0 : step <= 0)) {
        fprintf(stderr,
                "error: %s:%d: %s: '%s' is not a range A:STEP:B (STEP > 0) or A:*F:B "
                "(A > 0, F > 1) with A <= B\n",
                s->path, a->line, a->key, item);
        return false;
    }
    /* The count is an int: a range with more values (a step that B would take a lifetime
     * to reach) is refused before it fills memory. */
    double count = geometric ? log(hi / lo) / log(step) : (hi - lo) / step;
    if (!(count < (double)(INT_MAX - a->n - 1))) {
        fprintf(stderr, "error: %s:%d: %s: '%s' gives more than %d values\n", s->path, a->line,
                a->key, item, INT_MAX);
        return false;
    }
    for (int i = 0;; i++) {
        double v = geometric ? lo * pow(step, i) : lo + step * i;
        if (v > hi + 1e-9 * fmax(fabs(hi), fabs(lo))) break;
        sweep_shortest(v, buf, sizeof buf);
        const char *text = sweep_keep(buf), *value = text;
        /* The program gets a whole number as digits: integer keys (mesh.nx) refuse 1e2. */
        if (v == floor(v) && fabs(v) < 1e15 && strchr(buf, 'e')) {
            snprintf(buf, sizeof buf, "%.0f", v);
            value = sweep_keep(buf);
        }
        add_value(a, text, value);
    }
    return true;
}

/* Parses the file at s->path with libinih into s. False after a one-line error. */
static bool parse_file(sweep_spec *s) {
    const char *path = s->path;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) { /* name the specs it holds */
        sweep_text list = {0};
        DIR *d = opendir(path);
        for (struct dirent *de; d && (de = readdir(d));) {
            size_t l = strlen(de->d_name);
            if (l > 4 && !strcmp(de->d_name + l - 4, ".ini") && list.len < 400)
                sweep_add(&list, "%s%s", list.len ? ", " : "", de->d_name);
        }
        if (d) closedir(d);
        fprintf(stderr, "error: %s: is a directory; a sweep spec is one .ini file%s%s%s\n", path,
                list.len ? " (here: " : "", sweep_str(&list), list.len ? ")" : "");
        return false;
    }
    const char *text = sweep_slurp(path, false);
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
    return true;
}

/* What planning needs: a known program and a scene. */
static bool check_program(const sweep_spec *s) {
    static const char *const programs[] = {"compare", "accuracy", "damping", "stability", 0};
    bool known = false;
    for (int i = 0; s->program && programs[i]; i++)
        known = known || !strcmp(programs[i], s->program);
    if (!known) {
        if (s->program)
            fprintf(stderr,
                    "error: %s:%d: sweep.program: '%s' is not one of compare, "
                    "accuracy, damping, stability\n",
                    s->path, s->program_line, s->program);
        else
            fprintf(stderr,
                    "error: %s: sweep.program: missing (compare, accuracy, damping "
                    "or stability)\n",
                    s->path);
        return false;
    }
    if (!s->scene) {
        fprintf(stderr, "error: %s: sweep.scene: missing\n", s->path);
        return false;
    }
    return true;
}

/* stability and accuracy set some scene keys themselves, after any --set: say so rather
 * than let a --set be overridden silently. */
static bool check_owned(const sweep_spec *s) {
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
            if (!strcmp(s->sets[i].key, owned[o][1])) line = s->sets[i].line;
        for (int k = 0; k < s->naxes; k++)
            if (!strcmp(s->axes[k].key, owned[o][1]) && !s->axes[k].option) line = s->axes[k].line;
        if (!line) continue;
        if (owned[o][2])
            fprintf(stderr,
                    "error: %s:%d: %s: %s sets it itself; give it as an axis passed with "
                    "[pass] %s = %s (or in options)\n",
                    s->path, line, owned[o][1], s->program, owned[o][1], owned[o][2]);
        else
            fprintf(stderr, "error: %s:%d: %s: %s sets it itself (from its duration and dt)\n",
                    s->path, line, owned[o][1], s->program);
        return false;
    }
    return true;
}

/* Expands every axis's list into its values; refuses an empty list and a repeated value. */
static bool expand_axes(sweep_spec *s) {
    for (int k = 0; k < s->naxes; k++) {
        sweep_axis *a = &s->axes[k];
        const char *raw = sweep_str(&a->raw), **items;
        int ni = sweep_split(raw, strchr(raw, '|') ? "|" : ",", &items);
        if (ni == 0) {
            fprintf(stderr, "error: %s:%d: %s: empty list\n", s->path, a->line, a->key);
            return false;
        }
        for (int i = 0; i < ni; i++)
            if (!expand_item(s, a, items[i])) return false;
        int first, i = sweep_first_repeat(a->value, a->n, &first);
        if (i >= 0) {
            fprintf(stderr, "error: %s:%d: %s: the value '%s' appears twice\n", s->path, a->line,
                    a->key, a->text[i]);
            return false;
        }
    }
    return true;
}

bool sweep_spec_read(const char *path, sweep_spec *s, bool check) {
    *s = (sweep_spec){.path = sweep_keep(path), .repeats = 1};
    if (!parse_file(s)) return false;
    if (check && !check_program(s)) return false;
    s->nsolvers = sweep_split(sweep_str(&s->solvers_raw), ", \t", &s->solvers);
    s->nmetrics = sweep_split(sweep_str(&s->metrics_raw), ", \t", &s->metrics);
    s->options = sweep_str(&s->options_raw);
    return check_owned(s) && expand_axes(s);
}
