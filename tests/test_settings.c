/* test_settings.c — the plug-ins' settings tables (lib/params.c, lib/scene/settings.c):
 * defaults, reading a scene with file:line errors, the nearest-key hint for an unknown
 * key (and the suggestion routine behind it, weft_suggest), assignments, the log header's
 * formatting (which must read back exactly), origins, and which settings a run took; the
 * model's scene-key table (weft_scene_keys: ranges hold their defaults, and a scene that
 * gives a key its listed default builds the same model); the energy keys' defaults (each
 * role declared by exactly one registered energy). Uses a made-up plug-in so the
 * tests do not depend on any
 * registered method's defaults, plus the registered ones for the whole-registry facts. */
#include "check.h"
#include "tmp_files.h"
#include "scene_build.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct toy_settings {
    double stiffness; /* N/m */
    int count;
    bool on;
    int mode;
    char list[WEFT_PARAM_STRING_MAX];
} toy_settings;

static const char *const modes[] = {"fast", "exact", NULL};

static bool no_semicolon(const char *text, char *msg, size_t size) {
    if (!strchr(text, ';')) return true;
    snprintf(msg, size, "'%s' has a ';'", text);
    return false;
}

// clang-format off
static const weft_param toy_params[] = {
    {.key = "stiffness", .type = WEFT_PARAM_DOUBLE, .offset = offsetof(toy_settings, stiffness),
     .unit = "N/m", .lo = 0, .hi = 1e6, .flags = WEFT_PARAM_LO_OPEN, .dflt = 0.1,
     .doc = "a stiffness"},
    {.key = "count", .type = WEFT_PARAM_INT, .offset = offsetof(toy_settings, count), .unit = "",
     .lo = 1, .hi = 50, .dflt = 7, .doc = "a count"},
    {.key = "on", .type = WEFT_PARAM_BOOL, .offset = offsetof(toy_settings, on), .unit = "",
     .dflt = 1, .doc = "a switch"},
    {.key = "mode", .type = WEFT_PARAM_NAME, .offset = offsetof(toy_settings, mode), .unit = "",
     .names = modes, .dflt_name = "exact", .doc = "a choice"},
    {.key = "list", .type = WEFT_PARAM_STRING, .offset = offsetof(toy_settings, list),
     .unit = "", .check = no_semicolon, .doc = "a list"},
    {0},
};
// clang-format on

static const weft_param_table toy_tables[] = {{"toy", toy_params, 0}, {0}};

static const weft_plugin toy = {.kind = "solver", .type = toy_tables, .name = "toy", .paper = "",
                                .summary = "test", .size = sizeof(toy_settings),
                                .tables = toy_tables};

/* A config of the toy plug-in from INI text written to a scratch file (its path in
 * path). */
static weft_config *toy_config(const char *text, char *path, size_t n, weft_error *err) {
    tmp_dir d;
    if (!tmp_open(&d)) return NULL;
    write_file(&d, "toy.ini", text, path, n);
    weft_scene *s = weft_scene_load(path, err);
    if (!s) return NULL;
    weft_config *c = weft_config_create(&toy, 1, s, err);
    weft_scene_free(&s);
    return c;
}

static void test_defaults(void) {
    toy_settings t;
    memset(&t, 0x5a, sizeof t);
    weft_settings_default(toy_tables, &t);
    CHECK(t.stiffness == 0.1 && t.count == 7 && t.on && t.mode == 1 && t.list[0] == '\0');
    /* A NULL config hands out the defaults too. */
    toy_settings u;
    weft_config_settings(NULL, toy_tables, &u);
    CHECK(u.stiffness == 0.1 && u.count == 7 && u.on && u.mode == 1 && u.list[0] == '\0');
}

/* A NAME default is its word, whatever its place in the list; a word the list lacks (a
 * renamed or removed method) stops the program with a message naming the setting. */
static void test_default_name(void) {
    static const char *const late[] = {"a", "b", "c", "exact", NULL};
    static const weft_param rows[] = {
        {.key = "mode", .type = WEFT_PARAM_NAME, .offset = 0, .unit = "", .names = late,
         .dflt_name = "exact", .doc = "x"},
        {0},
    };
    static const weft_param_table tables[] = {{"toy", rows, 0}, {NULL, NULL, 0}};
    int mode = -1;
    weft_settings_default(tables, &mode);
    CHECK(mode == 3);
    CHECK(weft_param_name_index(&rows[0], "b") == 1 && weft_param_name_index(&rows[0], "z") == -1);
    char type[64], range[8], dflt[16];
    weft_param_parts(&rows[0], type, sizeof type, range, sizeof range, dflt, sizeof dflt);
    CHECK(!strcmp(dflt, "exact") && !strcmp(type, "one of a|b|c|exact"));

    static const weft_param bad[] = {
        {.key = "mode", .type = WEFT_PARAM_NAME, .offset = 0, .unit = "", .names = late,
         .dflt_name = "exakt", .doc = "x"},
        {0},
    };
    static const weft_param_table bad_tables[] = {{"toy", bad, 0}, {NULL, NULL, 0}};
    char path[] = "/tmp/weft_default_name_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fd, 2);
        weft_settings_default(bad_tables, &mode); /* aborts, Release too */
        _exit(0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    char msg[512] = "";
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        size_t n = fread(msg, 1, sizeof msg - 1, f);
        msg[n] = '\0';
        fclose(f);
    }
    close(fd);
    remove(path);
    CHECK(strstr(msg, "[toy] mode: default 'exakt' is not one of its names") != NULL);
}

/* The status-code rule of lib/weft_base.h: weft_fail records its code in the error, and
 * a caller whose callee returns only NULL passes that code on. A solver whose create runs
 * out of memory makes weft_run fail with WEFT_ERR_NOMEM, not WEFT_ERR_INPUT. */
static void *nomem_create(const weft_model *m, weft_config *cfg, weft_error *err) {
    (void)m, (void)cfg;
    weft_fail(err, WEFT_ERR_NOMEM, "nomem_solver: out of memory for 0 bytes");
    return NULL;
}

static int nomem_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    (void)state, (void)m, (void)mon, (void)err;
    return WEFT_OK;
}

static void test_status_codes(void) {
    weft_error e = {{0}};
    CHECK(weft_fail(&e, WEFT_ERR_DIVERGED, "x") == WEFT_ERR_DIVERGED);
    CHECK(weft_error_code(WEFT_ERR_INPUT) == WEFT_ERR_DIVERGED);
    CHECK(weft_fail(NULL, WEFT_ERR_NOMEM, "y") == WEFT_ERR_NOMEM);
    CHECK(weft_error_code(WEFT_ERR_INPUT) == WEFT_ERR_NOMEM);
    CHECK(weft_fail(&e, WEFT_WARN_UNRESOLVED, "z") == WEFT_WARN_UNRESOLVED);
    CHECK(weft_error_code(WEFT_ERR_IO) == WEFT_ERR_IO); /* a warning is no failure */

    static const weft_solver_type nomem_solver = {
        .name = "nomem_solver", .paper = "-", .iteration = "none", .summary = "test-only",
        .create = nomem_create, .step = nomem_step, .destroy = free, .fixed_iterations = 1,
    };
    const char *const sets[] = {"mesh.nx=3", "mesh.ny=3", "scene.steps=1", NULL};
    weft_model m;
    weft_config *cfg = NULL;
    if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg)) return;
    weft_run_options opt = weft_run_options_default();
    opt.config = cfg;
    weft_run_result res;
    weft_error err = {{0}};
    int rc = weft_run(&nomem_solver, &m, &opt, &res, &err);
    if (rc != WEFT_ERR_NOMEM) fprintf(stderr, "status_codes: weft_run gave %d: %s\n", rc, err.msg);
    CHECK(rc == WEFT_ERR_NOMEM && strstr(err.msg, "out of memory"));
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void test_read(void) {
    char path[512];
    weft_error err = {{0}};
    weft_config *c = toy_config("[scene]\nname = s\n[toy]\nstiffness = 2.5\ncount = 3\n"
                                "on = false\nmode = fast\nlist = a,b\n",
                                path, sizeof path, &err);
    CHECK(c != NULL);
    if (!c) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    toy_settings t;
    weft_config_settings(c, toy_tables, &t);
    CHECK(t.stiffness == 2.5 && t.count == 3 && !t.on && t.mode == 0 && !strcmp(t.list, "a,b"));
    char w[400], want[600];
    CHECK(weft_config_where(c, "toy", "count", w, sizeof w));
    snprintf(want, sizeof want, "%s:5", path);
    CHECK(strcmp(w, want) == 0);
    CHECK(!weft_config_where(c, "toy", "nothing", w, sizeof w) && w[0] == '\0');
    double v;
    CHECK(weft_config_value(c, "toy", "stiffness", &v) && v == 2.5);
    CHECK(!weft_config_value(c, "toy", "absent", &v));
    weft_config_free(&c);
    CHECK(c == NULL);
    remove(path);
}

/* Each bad value fails with "file:line: section.key: ..." and the reason. */
static void expect_bad(const char *line, int lineno, const char *key, const char *why) {
    char text[256], path[512];
    snprintf(text, sizeof text, "[scene]\nname = s\n[toy]\n%s\n", line);
    weft_error err = {{0}};
    weft_config *c = toy_config(text, path, sizeof path, &err);
    char want[600];
    snprintf(want, sizeof want, "%s:%d: toy.%s: ", path, lineno, key);
    bool ok = c == NULL && strstr(err.msg, want) && strstr(err.msg, why);
    if (!ok) fprintf(stderr, "'%s': got '%s'\n", line, err.msg);
    CHECK(ok);
    weft_config_free(&c);
    remove(path);
}

static void test_errors(void) {
    expect_bad("stiffness = 0", 4, "stiffness", "must lie in (0, 1e+06]");
    expect_bad("stiffness = nan", 4, "stiffness", "not a finite number");
    expect_bad("stiffness = 1x", 4, "stiffness", "not a number");
    expect_bad("count = 51", 4, "count", "51 must lie in [1, 50]");
    expect_bad("count = 2.5", 4, "count", "not an integer");
    expect_bad("on = maybe", 4, "on", "not a boolean");
    expect_bad("mode = slow", 4, "mode", "'slow' is not one of: fast, exact");
    expect_bad("list = a;b", 4, "list", "'a;b' has a ';'");
}

static void test_unknown(void) {
    char path[512];
    weft_error err = {{0}};
    weft_config *c = toy_config("[scene]\nname = s\n[toy]\nstifness = 1\n", path, sizeof path,
                                &err);
    CHECK(c == NULL && strstr(err.msg, ":4: toy.stifness: unknown key (nearest: toy.stiffness)"));
    remove(path);
    c = toy_config("[scene]\nname = s\n[tyo]\n", path, sizeof path, &err);
    CHECK(c == NULL && strstr(err.msg, ":3: [tyo]: unknown section (nearest: [toy])"));
    remove(path);
}

/* weft_suggest: the edit distance by hand (a swap of neighbours costs 1, as does each
 * insertion, deletion or substitution), the closest name wins with ties to the first
 * offered, and nothing is offered when more than a third of the word would change. */
static void test_suggest(void) {
    CHECK(weft_suggest_distance("material", "material") == 0);
    CHECK(weft_suggest_distance("materail", "material") == 1);          /* one swap */
    CHECK(weft_suggest_distance("stretch_stifness", "stretch_stiffness") == 1);
    CHECK(weft_suggest_distance("iteration", "iterations") == 1);
    CHECK(weft_suggest_distance("abc", "") == 3 && weft_suggest_distance("", "ab") == 2);
    CHECK(weft_suggest_distance("kitten", "sitting") == 3);
    CHECK(weft_suggest_distance("ca", "abc") == 3); /* no swap then insert in between */
    static const char *const sections[] = {"scene", "mesh", "material", "pins", "collision",
                                           "boomeramg", "pbd", "solver", NULL};
    weft_suggest s;
    weft_suggest_init(&s, "materail");
    for (int i = 0; sections[i]; i++) weft_suggest_offer(&s, sections[i]);
    CHECK(s.best && !strcmp(weft_suggest_best(&s), "material"));
    weft_suggest_init(&s, "qqqqqqqq"); /* closest is 8 edits away: no suggestion */
    for (int i = 0; sections[i]; i++) weft_suggest_offer(&s, sections[i]);
    CHECK(weft_suggest_best(&s) == NULL);
    weft_suggest_init(&s, "pdb"); /* a swap in a 3-letter word: within the minimum of 1 */
    for (int i = 0; sections[i]; i++) weft_suggest_offer(&s, sections[i]);
    CHECK(weft_suggest_best(&s) && !strcmp(weft_suggest_best(&s), "pbd"));
    weft_suggest_init(&s, "nz"); /* ny and nx are both 1 away: the first offered wins */
    weft_suggest_offer(&s, "ny");
    weft_suggest_offer(&s, "nx");
    CHECK(weft_suggest_best(&s) && !strcmp(weft_suggest_best(&s), "ny"));
    /* 12 letters: 4 edits are accepted, 5 are not. */
    weft_suggest_init(&s, "abcdefghijkl");
    weft_suggest_offer(&s, "abcdefghWXYZ");
    CHECK(weft_suggest_best(&s) != NULL);
    weft_suggest_init(&s, "abcdefghijkl");
    weft_suggest_offer(&s, "abcdefgVWXYZ");
    CHECK(weft_suggest_best(&s) == NULL);
    weft_suggest_init(&s, "same"); /* the word itself is never its own suggestion */
    weft_suggest_offer(&s, "same");
    CHECK(weft_suggest_best(&s) == NULL);
}

/* The header line reads back as the same settings: doubles keep every bit. */
static void test_format_roundtrip(void) {
    weft_error err = {{0}};
    weft_config *c = weft_config_create(&toy, 1, NULL, &err);
    CHECK(c != NULL);
    if (!c) return;
    const double tricky[] = {0.1, 1.0 / 3.0, 1e-300, 6.02214076e5, 2.0 / 7.0e5};
    for (int i = 0; i < 5; i++) {
        char a[64];
        snprintf(a, sizeof a, "toy.stiffness=%.17g", tricky[i]);
        CHECK(weft_config_set(c, a, "test", &err) == WEFT_OK);
        toy_settings t;
        weft_config_settings(c, toy_tables, &t);
        char line[512];
        weft_config_format_taken(c, line, sizeof line);
        const char *s = strstr(line, "stiffness=");
        double back = s ? strtod(s + 10, NULL) : NAN;
        CHECK(back == tricky[i] && back == t.stiffness);
    }
    CHECK(weft_config_set(c, "toy.mode=fast", "test", &err) == WEFT_OK);
    char line[512];
    weft_config_format_taken(c, line, sizeof line);
    CHECK(strstr(line, "[toy] stiffness=") == line && strstr(line, " mode=fast"));
    CHECK(weft_config_set(c, "toy.nope=1", "test", &err) != WEFT_OK &&
          strstr(err.msg, "toy.nope: unknown key"));
    CHECK(weft_config_set(c, "toy.count=0", "--set", &err) != WEFT_OK &&
          strstr(err.msg, "--set toy.count=0: toy.count: 0 must lie in [1, 50]"));
    char w[400];
    CHECK(weft_config_where(c, "toy", "mode", w, sizeof w) && !strcmp(w, "test toy.mode=fast"));
    weft_config_free(&c);
}

/* Only what was taken since the last clear is listed. */
static void test_taken(void) {
    weft_error err = {{0}};
    weft_config *c = weft_config_from_scene(NULL, &err);
    CHECK(c != NULL);
    if (!c) return;
    char buf[4096];
    weft_config_mark_clear(c);
    CHECK(weft_config_format_taken(c, buf, sizeof buf) == 0 && buf[0] == '\0');
    weft_pbd_settings p;
    weft_config_settings(c, weft_pbd_jacobi.settings, &p);
    weft_config_format_taken(c, buf, sizeof buf);
    CHECK(strstr(buf, "omega=1.5") && strstr(buf, "[pbd] k_stretch=1"));
    CHECK(!strstr(buf, "tolerance")); /* no implicit solver's settings */
    weft_config_mark_clear(c);
    weft_config_format_taken(c, buf, sizeof buf);
    CHECK(buf[0] == '\0');
    weft_config_free(&c);
}

/* Every registered plug-in's defaults lie in their own ranges, every name default is a
 * valid index, and every key has a doc line: a table row that contradicts itself fails. */
static void test_registry_tables(void) {
    int n;
    weft_plugin *p = weft_plugins_all(&n);
    CHECK(p != NULL && n >= 10 && weft_plugins(NULL, 0) == n);
    /* A short array gets the first plug-ins and the whole count. */
    weft_plugin two[2];
    CHECK(weft_plugins(two, 2) == n && !strcmp(two[0].name, "run"));
    int rows = 0;
    for (int i = 0; i < n; i++)
        for (const weft_param_table *t = p[i].tables; t && t->section; t++)
            for (const weft_param *q = t->params; q->key; q++, rows++) {
                bool ok = q->doc && q->doc[0] && q->unit;
                if (q->type == WEFT_PARAM_DOUBLE || q->type == WEFT_PARAM_INT) {
                    bool lo = q->flags & WEFT_PARAM_LO_OPEN ? q->dflt > q->lo : q->dflt >= q->lo;
                    bool hi = q->flags & WEFT_PARAM_HI_OPEN ? q->dflt < q->hi : q->dflt <= q->hi;
                    /* 0 may stand for "derived" (repulsion_stiffness: the material's). */
                    ok = ok && ((lo && hi) || q->dflt == 0.0);
                }
                /* A name default is a word of the list (never an index: .dflt stays 0). */
                if (q->type == WEFT_PARAM_NAME)
                    ok = ok && q->dflt == 0.0 && weft_param_name_index(q, q->dflt_name) >= 0;
                if (q->type == WEFT_PARAM_DOUBLE || q->type == WEFT_PARAM_INT ||
                    q->type == WEFT_PARAM_NAME || q->type == WEFT_PARAM_BOOL || q->type == WEFT_PARAM_STRING)
                    ok = ok && q->offset + t->base < (p[i].size ? p[i].size : 1);
                if (!ok) fprintf(stderr, "%s: %s.%s: inconsistent table row\n", p[i].name, t->section, q->key);
                CHECK(ok);
            }
    CHECK(rows > 30);
    free(p);
}

/* A second made-up solver sharing [toy] with another default count, and owning [other]. */
typedef struct toy2_settings {
    toy_settings toy;
    double x;
} toy2_settings;

// clang-format off
static const weft_param toy2_count[] = {
    {.key = "count", .type = WEFT_PARAM_INT, .offset = offsetof(toy_settings, count), .unit = "",
     .lo = 1, .hi = 50, .dflt = 9, .doc = "a count"},
    {.key = "stiffness", .type = WEFT_PARAM_DOUBLE, .offset = offsetof(toy_settings, stiffness),
     .unit = "N/m", .lo = 0, .hi = 1e6, .flags = WEFT_PARAM_LO_OPEN, .dflt = 0.1,
     .doc = "a stiffness"},
    {0},
};
static const weft_param toy2_other[] = {
    {.key = "x", .type = WEFT_PARAM_DOUBLE, .offset = 0, .unit = "m", .lo = 0, .hi = 10,
     .dflt = 1, .doc = "a length"},
    {0},
};
// clang-format on

static const weft_param_table toy2_tables[] = {
    {"toy", toy2_count, offsetof(toy2_settings, toy)},
    {"other", toy2_other, offsetof(toy2_settings, x)},
    {0},
};

static const weft_plugin toy2 = {.kind = "solver", .type = toy2_tables, .name = "toy2",
                                 .paper = "", .summary = "test", .size = sizeof(toy2_settings),
                                 .tables = toy2_tables};

/* A setting that no taken plug-in reads is refused naming who would read it; a key of the
 * model, or one a taken plug-in reads, passes. */
static void test_unread(void) {
    weft_error err = {{0}};
    weft_plugin both[2] = {toy, toy2};
    weft_config *c = weft_config_create(both, 2, NULL, &err);
    CHECK(c != NULL);
    if (!c) return;
    toy_settings t;
    weft_config_mark_clear(c);
    weft_config_settings(c, toy_tables, &t); /* only toy runs */
    CHECK(weft_config_check_read(c, "toy.count=3", "--set", &err) == WEFT_OK);
    CHECK(weft_config_check_read(c, "scene.dt=1/120", "--set", &err) == WEFT_OK);
    CHECK(weft_config_check_read(c, "material.density=0.2", "--set", &err) == WEFT_OK);
    CHECK(weft_config_check_read(c, "other.x=2", "--set", &err) == WEFT_ERR_INPUT);
    CHECK(!strcmp(err.msg, "--set other.x: no plug-in in this run reads [other] (read by: "
                           "toy2); add toy2 to --solvers or drop the --set"));
    toy2_settings t2;
    weft_config_settings(c, toy2_tables, &t2);
    CHECK(weft_config_check_read(c, "other.x=2", "--set", &err) == WEFT_OK);
    weft_config_free(&c);
}

/* config.ini's plug-in sections: a key the taken plug-ins read alike is written once, one
 * they read with different defaults is a comment naming each value. */
static void test_write_ini(void) {
    weft_error err = {{0}};
    weft_plugin both[2] = {toy, toy2};
    weft_config *c = weft_config_create(both, 2, NULL, &err);
    CHECK(c != NULL);
    if (!c) return;
    toy_settings t;
    toy2_settings t2;
    weft_config_settings(c, toy_tables, &t);
    weft_config_settings(c, toy2_tables, &t2);
    char buf[2048] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    CHECK(f && weft_config_write_ini(c, f) == WEFT_OK);
    if (f) fclose(f);
    CHECK(strstr(buf, "[toy]\nstiffness = 0.1\n# count: each plug-in keeps its own default: "
                      "toy=7 toy2=9\non = true\n") != NULL);
    CHECK(strstr(buf, "mode = exact\n") && strstr(buf, "\n[other]\nx = 1\n"));
    CHECK(weft_config_set(c, "toy.count=3", "--set", &err) == WEFT_OK);
    f = fmemopen(buf, sizeof buf - 1, "w");
    CHECK(f && weft_config_write_ini(c, f) == WEFT_OK);
    if (f) fclose(f);
    CHECK(strstr(buf, "\ncount = 3\n") && !strstr(buf, "# count"));
    weft_config_free(&c);
}

/* Numbers and fractions A/B, the form of scene values and sweep axes. */
static void test_fraction(void) {
    double v = 0.0;
    CHECK(weft_parse_number("1/120", &v) && v == 1.0 / 120.0);
    CHECK(weft_parse_number(" 2.5e-3", &v) && v == 2.5e-3);
    CHECK(weft_parse_number("3 / 4", &v) && v == 0.75);
    CHECK(!weft_parse_number("1/0", &v) && !weft_parse_number("a/2", &v));
    CHECK(!weft_parse_number("1/2/3", &v) && !weft_parse_number("1e999", &v));
    CHECK(!weft_parse_number("", &v) && !weft_parse_number("1/", &v) && !weft_parse_number("nan", &v));
}

/* |a - b| within a relative 1e-6 (the listed defaults are rounded: dt 0.016666667). */
static bool close_to(double a, double b) { return fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b)); }

/* True when models a and b agree in what the model's scene keys set. */
static bool same_model(const weft_model *a, const weft_model *b) {
    bool same = a->n == b->n && a->nterms == b->nterms && close_to(a->dt, b->dt) &&
                close_to(a->contact_margin, b->contact_margin) &&
                close_to(a->material.density, b->material.density) &&
                close_to(a->material.stretch_stiffness, b->material.stretch_stiffness) &&
                close_to(a->material.bending_stiffness, b->material.bending_stiffness) &&
                close_to(a->material.poisson, b->material.poisson) &&
                close_to(a->material.youngs_modulus, b->material.youngs_modulus) &&
                close_to(a->material.fiber_stiffness, b->material.fiber_stiffness);
    for (int k = 0; k < 3 && same; k++)
        same = close_to(a->gravity[k], b->gravity[k]) &&
               close_to(a->material.fiber[k], b->material.fiber[k]);
    for (int t = 0; t < a->nterms && same; t++) same = a->terms[t].type == b->terms[t].type;
    for (int i = 0; i < 3 * a->n && same; i++)
        same = close_to(a->x[i], b->x[i]) && close_to(a->v[i], b->v[i]);
    for (int i = 0; i < a->n && same; i++) same = close_to(a->mass[i], b->mass[i]);
    return same;
}

/* The model's scene keys (weft_scene_keys), which the parser checks and `./weft list`
 * prints: every row is documented (or is the run's own setting), a numeric default lies
 * in its range, a word's default is one of its words; and giving a key of [scene],
 * [material], [collision] or [mesh] its listed default builds the same model as leaving
 * it out, so the listed defaults are the ones the builder uses. */
static void test_scene_keys(void) {
    int rows = 0, tried = 0;
    for (const weft_scene_key *k = weft_scene_keys; k->section; k++, rows++) {
        bool ok = k->unit && k->dflt &&
                  (k->doc ? k->doc[0] != '\0'
                          : weft_param_find(weft_run_tables, k->section, k->key, NULL) != NULL);
        char *end;
        double v = strtod(k->dflt, &end);
        if ((k->type == WEFT_KEY_NUMBER || k->type == WEFT_KEY_INTEGER) && end != k->dflt &&
            !*end) {
            bool lo = k->flags & WEFT_PARAM_LO_OPEN ? v > k->lo : v >= k->lo;
            bool hi = k->flags & WEFT_PARAM_HI_OPEN ? v < k->hi : v <= k->hi;
            ok = ok && lo && hi;
        }
        if (k->type == WEFT_KEY_NAME && k->names && k->dflt[0]) {
            bool found = false;
            for (int i = 0; k->names[i]; i++) found = found || !strcmp(k->names[i], k->dflt);
            ok = ok && found;
        }
        if (!ok) fprintf(stderr, "%s.%s: inconsistent scene-key row\n", k->section, k->key);
        CHECK(ok);
    }
    CHECK(rows > 50);

    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "base.ini", "[mesh]\ntype = grid\nnx = 12\nny = 9\n", path, sizeof path);
    weft_model base;
    if (!scene_build(path, NULL, weft_energy_registry, &base)) return;
    for (const weft_scene_key *k = weft_scene_keys; k->section; k++) {
        const char *sec = k->section;
        if (strcmp(sec, "scene") && strcmp(sec, "material") && strcmp(sec, "collision") &&
            strcmp(sec, "mesh"))
            continue;
        /* Not a value: no default, the run's own keys, a default named in words. */
        /* An energy key's listed default (on this surface mesh) comes from the registry. */
        weft_default_role role = weft_scene_key_role(k->section, k->key);
        const char *dflt = role ? weft_scene_energy_default(weft_energy_registry, role, false)
                                : k->dflt;
        if (!dflt[0] || !k->doc || !strcmp(k->key, "name") || !strcmp(k->key, "type") ||
            !strcmp(k->key, "nx") || !strcmp(k->key, "ny") ||
            (!strcmp(sec, "mesh") && !strcmp(k->key, "density")))
            continue;
        char set[256];
        snprintf(set, sizeof set, "%s.%s=%s", sec, k->key, dflt);
        const char *sets[] = {set, NULL};
        weft_model m;
        if (!scene_build(path, sets, weft_energy_registry, &m)) continue;
        bool same = same_model(&base, &m);
        if (!same) fprintf(stderr, "%s: the listed default changes the model\n", set);
        CHECK(same);
        tried++;
        weft_model_free(&m);
    }
    CHECK(tried > 25);
    weft_model_free(&base);
}

/* The energy keys ([material] membrane, bending, volume) take their defaults from the
 * registry: each role is declared (weft_energy_type default_for) by exactly one registered
 * energy, of a kind its key accepts, and by one scene-key row; a scene that leaves the keys
 * out builds those energies (membrane and bending on a cloth, volume on a tetrahedral
 * mesh) and no other; a registry where no energy declares a role fails, naming the key,
 * unless the scene names that key's energy itself. */
static void test_energy_roles(void) {
    static const struct {
        weft_default_role role;
        weft_element_kind kind1, kind2; /* the kinds its key accepts */
    } roles[] = {{WEFT_DEFAULT_MEMBRANE, WEFT_ELEM_EDGE, WEFT_ELEM_TRIANGLE},
                 {WEFT_DEFAULT_BENDING, WEFT_ELEM_HINGE, WEFT_ELEM_TRI_HINGES},
                 {WEFT_DEFAULT_SOLID, WEFT_ELEM_TET, WEFT_ELEM_TET}};
    const weft_energy_type *dflt[3] = {NULL, NULL, NULL};
    for (int r = 0; r < 3; r++) {
        int claims = 0, rows = 0;
        for (const weft_energy_type *const *t = weft_energy_registry; *t; t++) {
            if ((*t)->default_for != roles[r].role) continue;
            claims++;
            dflt[r] = *t;
            bool fits = (*t)->kind == roles[r].kind1 || (*t)->kind == roles[r].kind2;
            if (!fits) fprintf(stderr, "%s: the default of a role whose key it cannot fill\n",
                               (*t)->name);
            CHECK(fits && (*t)->init);
        }
        if (claims != 1)
            fprintf(stderr, "default role %d: declared by %d energies, not one\n",
                    (int)roles[r].role, claims);
        CHECK(claims == 1);
        CHECK(weft_energy_default(weft_energy_registry, roles[r].role) == dflt[r]);
        for (const weft_scene_key *k = weft_scene_keys; k->section; k++)
            rows += weft_scene_key_role(k->section, k->key) == roles[r].role;
        CHECK(rows == 1);
    }
    for (const weft_energy_type *const *t = weft_energy_registry; *t; t++)
        CHECK((*t)->default_for >= WEFT_DEFAULT_NONE && (*t)->default_for <= WEFT_DEFAULT_SOLID);
    if (!dflt[0] || !dflt[1] || !dflt[2]) return;
    CHECK(!strcmp(weft_scene_energy_default(weft_energy_registry, WEFT_DEFAULT_MEMBRANE, false),
                  dflt[0]->name));
    CHECK(!strcmp(weft_scene_energy_default(weft_energy_registry, WEFT_DEFAULT_MEMBRANE, true),
                  "none"));
    CHECK(!strcmp(weft_scene_energy_default(weft_energy_registry, WEFT_DEFAULT_SOLID, false),
                  "none"));
    CHECK(!strcmp(weft_scene_energy_default(weft_energy_registry, WEFT_DEFAULT_SOLID, true),
                  dflt[2]->name));

    tmp_dir d;
    if (!tmp_open(&d)) return;
    char cloth[128], solid[128];
    write_file(&d, "cloth.ini", "[mesh]\ntype = grid\nnx = 4\nny = 3\n", cloth, sizeof cloth);
    write_file(&d, "solid.ini", "[mesh]\ntype = tet_block\n", solid, sizeof solid);
    weft_model m;
    if (scene_build(cloth, NULL, weft_energy_registry, &m)) {
        CHECK(m.nterms == 2 && m.stretch_term >= 0 && m.bending_term >= 0);
        CHECK(m.volume_term < 0 && m.fiber_term < 0);
        if (m.stretch_term >= 0) CHECK(m.terms[m.stretch_term].type == dflt[0]);
        if (m.bending_term >= 0) CHECK(m.terms[m.bending_term].type == dflt[1]);
        weft_model_free(&m);
    }
    if (scene_build(solid, NULL, weft_energy_registry, &m)) {
        CHECK(m.nterms == 1 && m.volume_term >= 0);
        CHECK(m.stretch_term < 0 && m.bending_term < 0 && m.fiber_term < 0);
        if (m.volume_term >= 0) CHECK(m.terms[m.volume_term].type == dflt[2]);
        weft_model_free(&m);
    }
    /* Without a membrane default the cloth must name its membrane energy. */
    const weft_energy_type *const no_membrane[] = {dflt[1], NULL};
    scene_expect_error(cloth, NULL, no_membrane, "[material] membrane", "name one");
    static const char *const none[] = {"material.membrane=none", NULL};
    if (scene_build(cloth, none, no_membrane, &m)) {
        CHECK(m.nterms == 1 && m.stretch_term < 0 && m.bending_term >= 0);
        weft_model_free(&m);
    }
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"defaults", test_defaults},
        {"default_name", test_default_name},
        {"status_codes", test_status_codes},
        {"read", test_read},
        {"errors", test_errors},
        {"unknown", test_unknown},
        {"suggest", test_suggest},
        {"format_roundtrip", test_format_roundtrip},
        {"taken", test_taken},
        {"registry_tables", test_registry_tables},
        {"unread", test_unread},
        {"write_ini", test_write_ini},
        {"fraction", test_fraction},
        {"scene_keys", test_scene_keys},
        {"energy_roles", test_energy_roles},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
