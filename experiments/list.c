/* list.c — `./weft list`: every registered solver, linear solver, preconditioner, post-step
 * stage, energy, PBD constraint type, collider shape and built-in scene, and every scene
 * key, grouped by kind. Each plug-in gets one line (name, summary, paper) with its settings
 * indented below it (key = default, type, range, unit, meaning), all from the tables the
 * code reads: the plug-ins' weft_param tables and the model's weft_scene_keys.
 *
 * Three forms of the same listing: for people (wrapped to 100 columns), --tsv for scripts
 * (a header row, then one row per plug-in and one per setting, ten columns each) and
 * --markdown, from which docs/settings.md is generated. An optional word narrows it to
 * one kind (solvers, energies, keys, ...), one plug-in or scene by name, or one scene-key
 * section (mesh, pins, ...). */
#include "weft_energies.h"
#include "weft_linsolve.h"
#include "weft_solvers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WIDTH = 100 };

typedef enum { TEXT, TSV, MARKDOWN } format;

/* What one run prints: the format, the filter word (NULL: everything) and, while a group
 * prints, what it has printed (the tables already shown, so that a table several plug-ins
 * share is printed once in the full listing). */
typedef struct lister {
    format fmt;
    const char *only;   /* a group or a name, or NULL */
    int matched;        /* groups or items that the filter matched */
    struct shown {
        const void *params;     /* a params array printed so far */
        const char *sec;        /* its section */
        const char *by;         /* the plug-in it was printed under */
    } *shown;                   /* grows by doubling */
    int nshown, capshown;
} lister;

/* A kind of plug-in: its TSV kind, the words that select it and its heading. */
typedef struct group {
    const char *kind, *word, *alias, *title, *intro;
} group;

static const group groups[] = {
    {"solver", "solvers", "solver", "Solvers",
     "time integrators and their solvers; choose with --solvers A,B or [scene] solvers"},
    {"linear", "linear_solvers", "linear", "Linear solvers",
     "for the implicit solvers' systems; choose with [solver] linear"},
    {"preconditioner", "preconditioners", "preconditioner", "Preconditioners",
     "for the ppcg linear solver; choose with [ppcg] preconditioner"},
    {"stage", "stages", "stage", "Post-step stages",
     "run after each solver step; [collision] pipeline = bridson turns the collision stage on"},
    {"energy", "energies", "energy", "Energies",
     "elastic models; choose with [material] membrane, bending, volume or fiber"},
    {"constraint", "constraints", "constraint", "PBD constraint types",
     "what the position-based solvers project"},
    {"collider", "colliders", "collider_types", "Collider shapes",
     "the type of a [collider.NAME] section (or mesh: a triangle-mesh obstacle)"},
    {"scene", "scenes", "builtin", "Built-in scenes",
     "run with --scene NAME; each is also a file in experiments/scenes/"},
    {"key", "keys", "scene_keys", "Scene keys",
     "the model's own sections; a plug-in's section is listed with the plug-in above"},
    {NULL, NULL, NULL, NULL, NULL},
};

/* The sections of the scene keys in the order they print, and their headings. */
static const struct {
    const char *family, *heading;
} key_sections[] = {
    {"scene", "[scene]"},
    {"mesh", "[mesh] and [mesh.NAME] parts"},
    {"material", "[material]"},
    {"collision", "[collision] (the model's key; the stage's keys are under Post-step stages)"},
    {"pins", "[pins] and [pins.NAME]"},
    {"collider", "[collider.NAME]"},
    {NULL, NULL},
};

/* ---------------------------------------------------------------------------------- */
/* Output helpers                                                                     */
/* ---------------------------------------------------------------------------------- */

/* Prints text's words from column *col, a space before each (none before the first when
 * *col is at indent), breaking lines before WIDTH; continuation lines start at indent. */
static void wrap(const char *text, int *col, int indent) {
    const char *p = text;
    bool space = *col > indent;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        size_t n = strcspn(p, " ");
        if (*col > indent && *col + (space ? 1 : 0) + (int)n > WIDTH) {
            printf("\n%*s", indent, "");
            *col = indent;
        } else if (space) {
            putchar(' ');
            (*col)++;
        }
        printf("%.*s", (int)n, p);
        *col += (int)n;
        p += n;
        space = true;
    }
}

/* Prints text at column first, wrapped to continuation lines at column rest, and ends
 * the line. */
static void hang(int first, int rest, const char *text) {
    printf("%*s", first, "");
    int col = first;
    wrap(text, &col, rest);
    putchar('\n');
}

/* Prints text at column indent, wrapped, and ends the line. */
static void para(int indent, const char *text) { hang(indent, indent, text); }

/* One TSV field: tabs and newlines would break the row, so they become spaces. */
static void tsv_field(const char *s, bool last) {
    for (; s && *s; s++) putchar(*s == '\t' || *s == '\n' ? ' ' : *s);
    putchar(last ? '\n' : '\t');
}

static void tsv_row(const char *kind, const char *name, const char *paper, const char *section,
                    const char *key, const char *type, const char *range, const char *unit,
                    const char *dflt, const char *doc) {
    const char *f[] = {kind, name, paper, section, key, type, range, unit, dflt, doc};
    for (int i = 0; i < 10; i++) tsv_field(f[i], i == 9);
}

/* Markdown table text: '|' would end the cell. */
static void md_text(const char *s) {
    for (; s && *s; s++) {
        if (*s == '|') putchar('\\');
        putchar(*s);
    }
}

/* Prints s as a sentence: a capital first letter and a full stop (Markdown text). */
static void sentence(const char *s) {
    size_t n = strlen(s);
    if (!n) return;
    putchar(s[0] >= 'a' && s[0] <= 'z' ? s[0] - 'a' + 'A' : s[0]);
    md_text(s + 1);
    if (s[n - 1] != '.') putchar('.');
}

/* "a|b|c" as "a, b, c" (the type of a NAME setting, for people). */
static void commas(const char *in, char *out, size_t size) {
    size_t j = 0;
    for (const char *p = in; *p && j + 3 < size; p++) {
        if (*p == '|') {
            out[j++] = ',', out[j++] = ' ';
        } else {
            out[j++] = *p;
        }
    }
    out[j] = '\0';
}

/* True when the filter lets item `name` of group g through (whole group or this name). */
static bool wanted(lister *l, const group *g, const char *name) {
    if (!l->only) return true;
    if (!strcmp(l->only, g->word) || !strcmp(l->only, g->alias) || !strcmp(l->only, g->kind))
        return true;
    return name && !strcmp(l->only, name);
}

/* Prints the heading of group g (once, before its first item). */
static void heading(lister *l, const group *g, bool *done) {
    if (*done) return;
    *done = true;
    l->matched++;
    if (l->fmt == TEXT) {
        char t[200];
        snprintf(t, sizeof t, "%s: %s", g->title, g->intro);
        for (char *c = t; *c && *c != ':'; c++)
            if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
        putchar('\n');
        para(0, t);
    } else if (l->fmt == MARKDOWN) {
        printf("\n## %s\n\n%c%s.\n", g->title, g->intro[0] - 'a' + 'A', g->intro + 1);
    }
}

/* ---------------------------------------------------------------------------------- */
/* One setting, one plug-in                                                           */
/* ---------------------------------------------------------------------------------- */

/* A setting's fields as text, whatever table it comes from. */
typedef struct setting {
    const char *section, *key, *unit, *doc;
    char type[512], range[64], dflt[128];
    char doc_buf[400]; /* doc when it is composed here (an energy key's) */
} setting;

static void setting_from_param(setting *st, const char *section, const weft_param *q) {
    st->section = section, st->key = q->key, st->doc = q->doc;
    st->unit = q->unit && strcmp(q->unit, "1") ? q->unit : "";
    if (q->type != WEFT_PARAM_DOUBLE) st->unit = "";
    weft_param_parts(q, st->type, sizeof st->type, st->range, sizeof st->range, st->dflt,
                     sizeof st->dflt);
}

/* Prints one setting of a plug-in (or a scene key) in l's format. */
static void print_setting(const lister *l, const char *kind, const char *name, const char *paper,
                          const setting *st, bool show_section) {
    if (l->fmt == TSV) {
        tsv_row(kind, name, paper, st->section, st->key, st->type, st->range, st->unit,
                st->dflt, st->doc);
        return;
    }
    char type[600];
    commas(st->type, type, sizeof type);
    if (l->fmt == MARKDOWN) {
        printf("| `%s%s%s%s` | ", show_section ? "[" : "", show_section ? st->section : "",
               show_section ? "] " : "", st->key);
        md_text(type);
        if (st->range[0]) printf(" in %s", st->range);
        printf(" | %s | %s%s%s | ", st->unit, st->dflt[0] ? "`" : "", st->dflt,
               st->dflt[0] ? "`" : "");
        md_text(st->doc);
        printf(" |\n");
        return;
    }
    char head[700];
    int n = snprintf(head, sizeof head, "%s%s%s%s", show_section ? "[" : "",
                     show_section ? st->section : "", show_section ? "] " : "", st->key);
    if (st->dflt[0] && (size_t)n < sizeof head)
        snprintf(head + n, sizeof head - (size_t)n, " = %s", st->dflt);
    char line[1600];
    snprintf(line, sizeof line, "%s (%s%s%s%s%s)", head, type, st->range[0] ? " in " : "",
             st->range, st->unit[0] ? ", " : "", st->unit);
    hang(6, 10, line);
    para(10, st->doc);
}

/* Prints a plug-in's line(s): name, summary, paper, and a note (solvers: what an
 * iteration is). */
static void print_item(const lister *l, const char *kind, const char *name, const char *paper,
                       const char *summary, const char *note) {
    if (l->fmt == TSV) {
        char doc[1024];
        snprintf(doc, sizeof doc, "%s%s%s", summary, note ? "; " : "", note ? note : "");
        tsv_row(kind, name, paper, "", "", "", "", "", "", doc);
        return;
    }
    if (l->fmt == MARKDOWN) {
        printf("\n### %s\n\n", name);
        sentence(summary);
        if (paper && paper[0]) printf(" Paper: %s.", paper);
        if (note) {
            putchar(' ');
            sentence(note);
        }
        printf("\n");
        return;
    }
    char line[1200];
    printf("\n  %-19s", name);
    int col = 2 + (strlen(name) > 19 ? (int)strlen(name) : 19);
    wrap(summary, &col, 6);
    putchar('\n');
    if ((paper && paper[0]) || note) {
        snprintf(line, sizeof line, "%s%s%s%s", paper && paper[0] ? "paper: " : "",
                 paper ? paper : "", paper && paper[0] && note ? "; " : "", note ? note : "");
        para(6, line);
    }
}

/* The plug-in that first printed table t (its params array and section), or NULL. */
static const char *shown_by(const lister *l, const weft_param_table *t) {
    for (int i = 0; i < l->nshown; i++)
        if (l->shown[i].params == (const void *)t->params && !strcmp(l->shown[i].sec, t->section))
            return l->shown[i].by;
    return NULL;
}

/* Prints a plug-in and its settings; a table already printed for an earlier plug-in is
 * named instead of repeated (for people; scripts get every row). */
static void print_plugin(lister *l, const group *g, const weft_plugin *p, const char *note) {
    print_item(l, g->kind, p->name, p->paper, p->summary, note);
    bool table_open = false;
    /* A run of shared tables of one section, printed once as "[section] a, b: as for X". */
    char shared[600] = "";
    const char *shared_sec = NULL, *shared_by = NULL;
    static const weft_param_table none = {0};
    for (const weft_param_table *t = p->tables ? p->tables : &none;; t++) {
        const char *by = t->section && l->fmt != TSV ? shown_by(l, t) : NULL;
        if (shared_sec && (!t->section || !by || strcmp(shared_sec, t->section) ||
                           strcmp(shared_by, by))) {
            if (l->fmt == MARKDOWN)
                printf("\n`[%s]` %s: as for [%s](#%s).\n", shared_sec, shared, shared_by,
                       shared_by);
            else {
                char msg[800];
                snprintf(msg, sizeof msg, "[%s] %s: as for %s", shared_sec, shared, shared_by);
                hang(6, 10, msg);
            }
            shared_sec = NULL, shared[0] = '\0';
            table_open = false;
        }
        if (!t->section) break;
        if (by) {
            shared_sec = t->section, shared_by = by;
            for (const weft_param *q = t->params; q->key; q++) {
                size_t n = strlen(shared);
                snprintf(shared + n, sizeof shared - n, "%s%s%s%s", n ? ", " : "",
                         l->fmt == MARKDOWN ? "`" : "", q->key, l->fmt == MARKDOWN ? "`" : "");
            }
            continue;
        }
        if (l->nshown == l->capshown) {
            int cap = l->capshown ? 2 * l->capshown : 64;
            struct shown *g = realloc(l->shown, (size_t)cap * sizeof *g);
            if (!g) {
                fprintf(stderr, "error: list: out of memory\n");
                exit(1);
            }
            l->shown = g, l->capshown = cap;
        }
        l->shown[l->nshown++] = (struct shown){t->params, t->section, p->name};
        for (const weft_param *q = t->params; q->key; q++) {
            if (l->fmt == MARKDOWN && !table_open) {
                printf("\n| key | type | unit | default | meaning |\n|---|---|---|---|---|\n");
                table_open = true;
            }
            setting st;
            setting_from_param(&st, t->section, q);
            print_setting(l, g->kind, p->name, p->paper, &st, true);
        }
    }
}

/* ---------------------------------------------------------------------------------- */
/* The groups                                                                         */
/* ---------------------------------------------------------------------------------- */

/* What an element kind's elements are, for the energy lines. */
static const char *kind_name(weft_element_kind kind) {
    switch (kind) {
    case WEFT_ELEM_EDGE: return "edge";
    case WEFT_ELEM_TRIANGLE: return "triangle";
    case WEFT_ELEM_HINGE: return "hinge";
    case WEFT_ELEM_TRI_HINGES: return "triangle with its hinges";
    case WEFT_ELEM_TET: return "tetrahedron";
    case WEFT_ELEM_SURFACE: return "surface";
    case WEFT_ELEM_VERTEX_FACE: return "vertex-face contact";
    case WEFT_ELEM_EDGE_EDGE: return "edge-edge contact";
    }
    return "unknown";
}

/* The registered plug-ins of one kind ("solver", "linear", ...). */
static void list_plugins(lister *l, const group *g, const weft_plugin *p, int n) {
    bool done = false;
    for (int i = 0; i < n; i++) {
        if (strcmp(p[i].kind, g->kind) || !wanted(l, g, p[i].name)) continue;
        heading(l, g, &done);
        char note[400];
        const char *nt = NULL;
        if (!strcmp(g->kind, "solver")) {
            const weft_solver_type *s = p[i].type;
            int len = snprintf(note, sizeof note, "one iteration: %s; order %d%s; contact: %s",
                               s->iteration, s->caps.order, s->caps.order ? "" : " (none claimed)",
                               s->caps.contact ? s->caps.contact : "none declared");
            /* The [contact] models it runs (the others refuse a scene naming one). */
            const char *const *c = s->caps.contact_models;
            for (int k = 0; c && c[k] && len >= 0 && (size_t)len < sizeof note; k++)
                len += snprintf(note + len, sizeof note - (size_t)len, "%s%s",
                                k ? ", " : "; contact models: ", c[k]);
            nt = note;
        }
        print_plugin(l, g, &p[i], nt);
    }
}

static void list_energies(lister *l, const group *g) {
    bool done = false;
    for (const weft_energy_type *const *e = weft_energy_registry; *e; e++) {
        if (!wanted(l, g, (*e)->name)) continue;
        heading(l, g, &done);
        char note[160];
        int n = snprintf(note, sizeof note, "acts on %s elements", kind_name((*e)->kind));
        for (const weft_scene_key *k = weft_scene_keys; k->section; k++)
            if ((*e)->default_for != WEFT_DEFAULT_NONE && n > 0 && (size_t)n < sizeof note &&
                weft_scene_key_role(k->section, k->key) == (*e)->default_for)
                n += snprintf(note + n, sizeof note - (size_t)n, "; the default [%s] %s",
                              k->section, k->key);
        print_item(l, g->kind, (*e)->name, (*e)->paper, (*e)->summary, note);
    }
}

static void list_constraints(lister *l, const group *g) {
    bool done = false;
    for (const weft_constraint_info *c = weft_constraint_list; c->name; c++) {
        if (!wanted(l, g, c->name)) continue;
        heading(l, g, &done);
        print_item(l, g->kind, c->name, c->paper, c->summary, NULL);
    }
}

/* A collider shape's key, as a [collider.NAME] setting. */
static void setting_from_collider(setting *st, const weft_collider_param *q) {
    st->section = "collider.NAME", st->key = q->key, st->doc = q->doc;
    st->unit = strcmp(q->unit, "1") ? q->unit : "";
    snprintf(st->type, sizeof st->type, "%s", q->n == 3 ? "3 numbers (x y z)" : "number");
    st->range[0] = '\0';
    if (q->lo < q->hi)
        snprintf(st->range, sizeof st->range, "%s%g, %g%s",
                 q->flags & WEFT_PARAM_LO_OPEN ? "(" : "[", q->lo, q->hi,
                 q->flags & WEFT_PARAM_HI_OPEN ? ")" : "]");
    int n = 0;
    st->dflt[0] = '\0';
    for (int k = 0; k < q->n; k++)
        n += snprintf(st->dflt + n, sizeof st->dflt - (size_t)n, "%s%g", k ? " " : "", q->dflt[k]);
}

static void list_colliders(lister *l, const group *g) {
    bool done = false;
    for (const weft_collider_type *const *c = weft_collider_registry; *c; c++) {
        if (!wanted(l, g, (*c)->name)) continue;
        heading(l, g, &done);
        print_item(l, g->kind, (*c)->name, "", (*c)->summary, NULL);
        bool table_open = false;
        for (const weft_collider_param *q = (*c)->params; q && q->key; q++) {
            if (l->fmt == MARKDOWN && !table_open) {
                printf("\n| key | type | unit | default | meaning |\n|---|---|---|---|---|\n");
                table_open = true;
            }
            setting st;
            setting_from_collider(&st, q);
            print_setting(l, g->kind, (*c)->name, "", &st, true);
        }
    }
}

static void list_scenes(lister *l, const group *g) {
    bool done = false;
    for (const weft_builtin_scene *b = weft_builtin_scenes; b->name; b++) {
        if (!wanted(l, g, b->name)) continue;
        heading(l, g, &done);
        char path[200];
        snprintf(path, sizeof path, "file: experiments/scenes/%s.ini", b->name);
        print_item(l, g->kind, b->name, "", b->summary, path);
    }
}

/* The run's own setting of [scene] key (steps, solvers), which documents it. */
static const weft_param *run_param(const char *section, const char *key) {
    return weft_param_find(weft_run_tables, section, key, NULL);
}

static void setting_from_key(setting *st, const weft_scene_key *k) {
    const weft_param *q = k->doc ? NULL : run_param(k->section, k->key);
    if (q) {
        setting_from_param(st, k->section, q);
        return;
    }
    st->section = k->section, st->key = k->key, st->doc = k->doc ? k->doc : "";
    st->unit = strcmp(k->unit, "1") ? k->unit : "";
    snprintf(st->dflt, sizeof st->dflt, "%s", k->dflt);
    weft_default_role role = weft_scene_key_role(k->section, k->key);
    if (role != WEFT_DEFAULT_NONE) {
        /* An energy key: its defaults are the energies that declare its role. */
        snprintf(st->dflt, sizeof st->dflt, "%s",
                 weft_scene_energy_default(weft_energy_registry, role, false));
        snprintf(st->doc_buf, sizeof st->doc_buf, "%s (default %s on a tetrahedral mesh)",
                 st->doc, weft_scene_energy_default(weft_energy_registry, role, true));
        st->doc = st->doc_buf;
    }
    st->range[0] = '\0';
    if (k->type == WEFT_KEY_NUMBER)
        snprintf(st->range, sizeof st->range, "%s%g, %g%s",
                 k->flags & WEFT_PARAM_LO_OPEN ? "(" : "[", k->lo, k->hi,
                 k->flags & WEFT_PARAM_HI_OPEN ? ")" : "]");
    else if (k->type == WEFT_KEY_INTEGER || k->type == WEFT_KEY_INT3)
        snprintf(st->range, sizeof st->range, "[%.0f, %.0f]", k->lo, k->hi);
    if (k->names) {
        int n = snprintf(st->type, sizeof st->type, "%s",
                         k->type == WEFT_KEY_LIST ? "list of " : "one of ");
        for (int i = 0; k->names[i] && n < (int)sizeof st->type; i++)
            n += snprintf(st->type + n, sizeof st->type - (size_t)n, "%s%s", i ? "|" : "",
                          k->names[i]);
    } else {
        snprintf(st->type, sizeof st->type, "%s", weft_key_type_name(k->type));
    }
}

static void list_keys(lister *l, const group *g) {
    bool done = false;
    for (int s = 0; key_sections[s].family; s++) {
        const char *fam = key_sections[s].family;
        if (!wanted(l, g, fam)) continue;
        heading(l, g, &done);
        if (l->fmt == TEXT)
            printf("\n  %s\n", key_sections[s].heading);
        else if (l->fmt == MARKDOWN)
            printf("\n### %s\n\n| key | type | unit | default | meaning |\n"
                   "|---|---|---|---|---|\n", key_sections[s].heading);
        for (const weft_scene_key *k = weft_scene_keys; k->section; k++) {
            if (strcmp(k->section, fam)) continue;
            setting st;
            setting_from_key(&st, k);
            print_setting(l, g->kind, fam, "", &st, false);
        }
    }
}

/* ---------------------------------------------------------------------------------- */

static const char usage[] =
    "usage: list [--tsv | --markdown] [WHAT]\n"
    "Lists every registered solver, linear solver, preconditioner, post-step stage, energy,\n"
    "PBD constraint type, collider shape and built-in scene, one line each with its paper,\n"
    "and every setting: a plug-in's settings below it, the model's scene keys ([scene],\n"
    "[mesh], [material], [collision] margin, [pins], [collider.NAME]) in the last group;\n"
    "each with its default, type, range, unit and meaning.\n"
    "  WHAT         only this group (solvers, linear_solvers, preconditioners, stages,\n"
    "               energies, constraints, colliders, scenes, keys), this plug-in, energy\n"
    "               or scene by name, or this scene-key section (scene, mesh, material,\n"
    "               collision, pins, collider)\n"
    "  --tsv        for scripts: a header row, then one row per plug-in (section and key\n"
    "               empty, doc its summary) and one per setting, ten tab-separated columns:\n"
    "               kind name paper section key type range unit default doc\n"
    "  --markdown   the reference page docs/settings.md (./weft list --markdown >\n"
    "               docs/settings.md regenerates it)\n";

int main(int argc, char **argv) {
    lister l = {.fmt = TEXT};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--tsv")) {
            l.fmt = TSV;
        } else if (!strcmp(argv[i], "--markdown")) {
            l.fmt = MARKDOWN;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "error: list: unknown option '%s' (--tsv, --markdown, --help)\n",
                    argv[i]);
            return 2;
        } else if (l.only) {
            fprintf(stderr, "error: list: one WHAT at most (got '%s' and '%s')\n", l.only,
                    argv[i]);
            return 2;
        } else {
            l.only = argv[i];
        }
    }
    int n;
    weft_plugin *p = weft_plugins_all(&n);
    if (!p) {
        fprintf(stderr, "error: list: out of memory\n");
        return 1;
    }
    if (l.fmt == TSV)
        tsv_row("kind", "name", "paper", "section", "key", "type", "range", "unit", "default",
                "doc");
    if (l.fmt == MARKDOWN)
        printf("# Settings reference\n\n"
               "Every plug-in weft registers and every key a scene file may give, as `./weft "
               "list` prints them\nfrom the tables the code reads. Generated: do not edit; "
               "regenerate with\n`./weft list --markdown > docs/settings.md` (the test "
               "`list_cli.docs` fails when this page is stale).\n"
               "A scene file is INI: `[section]` headers, `key = value` lines; `--set "
               "section.key=value`\noverrides a key from the command line.\n");
    else if (l.fmt == TEXT && !l.only)
        printf("weft list: every plug-in, built-in scene and scene key. A setting reads\n"
               "\"[section] key = default (type in range, unit)\" and is given in a scene file's\n"
               "[section] or with --set section.key=value. Narrow it with './weft list WHAT'\n"
               "(solvers, energies, keys, a name, ...); --tsv for scripts; --help for more.\n");
    for (const group *g = groups; g->kind; g++) {
        if (!strcmp(g->kind, "energy"))
            list_energies(&l, g);
        else if (!strcmp(g->kind, "constraint"))
            list_constraints(&l, g);
        else if (!strcmp(g->kind, "collider"))
            list_colliders(&l, g);
        else if (!strcmp(g->kind, "scene"))
            list_scenes(&l, g);
        else if (!strcmp(g->kind, "key"))
            list_keys(&l, g);
        else
            list_plugins(&l, g, p, n);
    }
    if (l.only && l.matched == 0) {
        fprintf(stderr, "error: list: '%s' is no group, plug-in, energy, scene or scene-key "
                        "section (groups:", l.only);
        for (const group *g = groups; g->kind; g++) fprintf(stderr, " %s", g->word);
        fprintf(stderr, "; './weft list' shows every name)\n");
        free(p);
        free(l.shown);
        return 2;
    }
    free(p);
    free(l.shown);
    return 0;
}
