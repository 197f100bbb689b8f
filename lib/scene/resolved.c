/* resolved.c — a scene written back as the fully resolved input of a run: every key of
 * the model's sections with the value the run used (the defaults included), and every
 * setting of the plug-ins the run read, as a scene file weft reads again. Reading it back
 * gives the same model and the same settings, so a run's folder reruns from its own
 * config.ini (experiments/cli.c writes it with the provenance comments).
 *
 * Numbers the model resolved (dt, gravity, the material) are written with the digits that
 * read back as the same double; the other keys of the model's sections keep the scene's
 * own text (the last value given, --set included), with relative file paths made
 * absolute, since the file lands in another folder. A key of a plug-in section that the
 * run's plug-ins read with different values (each kept its own default, as
 * [solver] hessian does for the linearised and Newton integrators) is written as a
 * comment naming each value: writing one value would change the others. */
#include "config_internal.h"
#include "scene_internal.h"
#include "weft.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest line the scene reader accepts, terminating zero excluded (scene.c). */
#define LINE_MAX_CHARS 199

/* A default of the model's sections, written when the scene does not give the key. */
typedef struct key_default {
    const char *family; /* schema family: "mesh", "collider" */
    const char *type;   /* the section's type it applies to ("grid", ...), NULL: any */
    bool primary;       /* only the primary [mesh] (not a [mesh.NAME] part) */
    const char *key, *value;
} key_default;

/* The defaults of scene.c's build_part_mesh, read_part_keys, reorder_vertices and
 * build_collider: a change there is a change here. A collider shape's own keys come from
 * its type's table (collider_defaults). */
static const key_default defaults[] = {
    {"mesh", NULL, false, "type", "grid"},
    {"mesh", "grid", false, "width", "1"},
    {"mesh", "grid", false, "height", "1"},
    {"mesh", "grid", false, "nx", "32"},
    {"mesh", "grid", false, "ny", "32"},
    {"mesh", "grid", false, "diagonals", "alternating"},
    {"mesh", "grid", false, "plane", "xy"},
    {"mesh", "grid", false, "origin", "0 0 0"},
    {"mesh", "icosphere", false, "radius", "0.25"},
    {"mesh", "icosphere", false, "subdivisions", "3"},
    {"mesh", "icosphere", false, "center", "0 0 0"},
    {"mesh", "tet_block", false, "size", "1 1 1"},
    {"mesh", "tet_block", false, "cells", "4 4 4"},
    {"mesh", "tet_block", false, "origin", "0 0 0"},
    {"mesh", "obj", false, "scale", "1"},
    {"mesh", "obj", false, "translate", "0 0 0"},
    {"mesh", "tetgen", false, "scale", "1"},
    {"mesh", "tetgen", false, "translate", "0 0 0"},
    {"mesh", NULL, false, "rest_shape", "auto"},
    {"mesh", NULL, false, "velocity", "0 0 0"},
    {"mesh", NULL, true, "reorder", "none"},
    {"collider", NULL, false, "velocity", "0 0 0"},
    {NULL, NULL, false, NULL, NULL},
};

/* The shortest of %.15g..%.17g that reads back as v. */
static void shortest(double v, char *buf, size_t size) {
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

static void vec3(const double v[3], char *buf, size_t size) {
    char a[3][40];
    for (int k = 0; k < 3; k++) shortest(v[k], a[k], sizeof a[k]);
    snprintf(buf, size, "%s %s %s", a[0], a[1], a[2]);
}

/* Writes "key = value", a list value continued on indented lines; fails naming the key
 * when a line would be longer than the reader accepts. */
static int put(FILE *f, const char *section, const char *key, const char *value,
               weft_error *err) {
    size_t head = strlen(key) + 3;
    if (!weft_scene_key_list(section, key)) {
        if (head + strlen(value) > LINE_MAX_CHARS)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s.%s: the value is longer than a scene line can hold (%d "
                             "characters)", section, key, LINE_MAX_CHARS);
        fprintf(f, "%s = %s\n", key, value);
        return WEFT_OK;
    }
    /* A list: words separated by spaces, at most ~150 characters a line. */
    fprintf(f, "%s =", key);
    size_t col = head - 1;
    const char *p = value;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        size_t n = strcspn(p, " \t");
        if (!n) break;
        if (n + 5 > LINE_MAX_CHARS)
            return weft_fail(err, WEFT_ERR_INPUT, "%s.%s: a word is too long for a scene line",
                             section, key);
        if (col + 1 + n > 150 && col > 4) {
            fprintf(f, "\n   ");
            col = 3;
        }
        fprintf(f, " %.*s", (int)n, p);
        col += 1 + n;
        p += n;
    }
    fputc('\n', f);
    return WEFT_OK;
}

/* The value of a path key made absolute: relative paths are relative to the scene
 * file's folder (the working directory for a built-in scene). */
static void absolute_path(const weft_scene *s, const char *value, char *buf, size_t size) {
    char joined[PATH_MAX + 256];
    if (value[0] == '/' || !s->dir || !s->dir[0])
        snprintf(joined, sizeof joined, "%s", value);
    else
        snprintf(joined, sizeof joined, "%s%s", s->dir, value);
    char cwd[PATH_MAX];
    int n = joined[0] != '/' && getcwd(cwd, sizeof cwd)
                ? snprintf(buf, size, "%s/%s", cwd, joined)
                : snprintf(buf, size, "%s", joined);
    if (n < 0 || (size_t)n >= size) buf[0] = '\0'; /* too long: put() then refuses it */
}

/* Writes the defaults of a collider section of a registered type that the scene does not
 * give: its table's keys, then friction and restitution (build_collider's). */
static int collider_defaults(FILE *f, const weft_scene *s, const char *sec, const char *type,
                             weft_error *err) {
    const weft_collider_type *t = weft_collider_find(type);
    if (!t) return WEFT_OK; /* a mesh obstacle */
    int rc = WEFT_OK;
    for (const weft_collider_param *q = t->params; q && q->key && !rc; q++) {
        if (weft_scene_find(s, sec, q->key)) continue;
        char v[3][40], all[128];
        for (int k = 0; k < q->n; k++) shortest(q->dflt[k], v[k], sizeof v[k]);
        if (q->n == 3)
            snprintf(all, sizeof all, "%s %s %s", v[0], v[1], v[2]);
        else
            snprintf(all, sizeof all, "%s", v[0]);
        rc = put(f, sec, q->key, all, err);
    }
    static const char *const shared[][2] = {{"friction", "0.3"}, {"restitution", "0"}};
    for (int i = 0; i < 2 && !rc; i++)
        if (!weft_scene_find(s, sec, shared[i][0]))
            rc = put(f, sec, shared[i][0], shared[i][1], err);
    return rc;
}

/* Writes section sec of the model: the scene's keys in their order (the last value of
 * each), then the defaults of the keys it does not give. */
static int write_model_section(FILE *f, const weft_scene *s, const char *sec, weft_error *err) {
    const char *fam = weft_scene_family(sec);
    const entry *te = weft_scene_find(s, sec, "type");
    const char *type = te ? te->value : strcmp(fam, "mesh") == 0 ? "grid" : "";
    fprintf(f, "\n[%s]\n", sec);
    int rc = WEFT_OK;
    for (int i = 0; i < s->n && !rc; i++) {
        const entry *e = &s->e[i];
        if (strcmp(e->section, sec) != 0 || weft_scene_find(s, sec, e->key) != e) continue;
        if (!strcmp(e->key, "path") && (!strcmp(fam, "mesh") || !strcmp(fam, "collider"))) {
            char path[PATH_MAX + 256];
            absolute_path(s, e->value, path, sizeof path);
            rc = put(f, sec, e->key, path, err);
        } else {
            rc = put(f, sec, e->key, e->value, err);
        }
    }
    if (!strcmp(fam, "collider")) rc = collider_defaults(f, s, sec, type, err);
    for (const key_default *d = defaults; d->family && !rc; d++) {
        if (strcmp(d->family, fam) != 0 || (d->type && strcmp(d->type, type) != 0)) continue;
        if (d->primary && strcmp(sec, "mesh") != 0) continue;
        if (!weft_scene_find(s, sec, d->key)) rc = put(f, sec, d->key, d->value, err);
    }
    return rc;
}

/* True when entry i is the first of its section. */
static bool first_of_section(const weft_scene *s, int i) {
    for (int j = 0; j < i; j++)
        if (!strcmp(s->e[j].section, s->e[i].section)) return false;
    return true;
}

/* True when item it of a config counts for config.ini: taken, and not the run's own. */
static bool written(const weft_config_item *it) {
    return it->taken && strcmp(it->p.kind, "run") != 0;
}

/* Writes key (of section) over the config's taken plug-ins that read it: "key = value"
 * when they agree, a comment naming each one's value when they do not. */
static void write_key(const weft_config *c, const char *section, const char *key, FILE *f) {
    char first[WEFT_PARAM_STRING_MAX + 64] = "", val[WEFT_PARAM_STRING_MAX + 64];
    bool same = true, any = false;
    for (int k = 0; k < c->n; k++) {
        size_t base;
        const weft_param *q;
        if (!written(&c->it[k]) || !(q = weft_param_find(c->it[k].p.tables, section, key, &base)))
            continue;
        weft_param_format(q, base, c->it[k].data, any ? val : first, sizeof val);
        if (any) same = same && !strcmp(val, first);
        any = true;
    }
    if (same) {
        fprintf(f, "%s = %s\n", key, first);
        return;
    }
    fprintf(f, "# %s: each plug-in keeps its own default:", key);
    for (int k = 0; k < c->n; k++) {
        size_t base;
        const weft_param *q;
        if (!written(&c->it[k]) || !(q = weft_param_find(c->it[k].p.tables, section, key, &base)))
            continue;
        weft_param_format(q, base, c->it[k].data, val, sizeof val);
        fprintf(f, " %s=%s", c->it[k].p.name, val);
    }
    fputc('\n', f);
}

/* Appends name to the growable list names[*n] (capacity *cap) unless it holds it; false
 * when memory runs out. */
static bool add_unique(const char ***names, int *n, int *cap, const char *name) {
    for (int j = 0; j < *n; j++)
        if (!strcmp((*names)[j], name)) return true;
    if (*n == *cap) {
        int c2 = *cap ? 2 * *cap : 32;
        const char **g = realloc(*names, (size_t)c2 * sizeof *g);
        if (!g) return false;
        *names = g, *cap = c2;
    }
    (*names)[(*n)++] = name;
    return true;
}

int weft_config_write_ini(const weft_config *c, FILE *f) {
    /* Sections and their keys in first-seen order over the taken plug-ins. */
    const char **sec = NULL, **keys = NULL;
    int ns = 0, capsec = 0, capkeys = 0, rc = WEFT_OK;
    for (int i = 0; c && i < c->n && rc == WEFT_OK; i++) {
        if (!written(&c->it[i])) continue;
        for (const weft_param_table *t = c->it[i].p.tables; t && t->section; t++)
            if (!add_unique(&sec, &ns, &capsec, t->section)) rc = WEFT_ERR_NOMEM;
    }
    for (int si = 0; si < ns && rc == WEFT_OK; si++) {
        fprintf(f, "\n[%s]\n", sec[si]);
        int nk = 0;
        for (int i = 0; i < c->n && rc == WEFT_OK; i++) {
            if (!written(&c->it[i])) continue;
            for (const weft_param_table *t = c->it[i].p.tables; t && t->section; t++) {
                if (strcmp(t->section, sec[si]) != 0) continue;
                for (const weft_param *p = t->params; p->key; p++)
                    if (!add_unique(&keys, &nk, &capkeys, p->key)) rc = WEFT_ERR_NOMEM;
            }
        }
        for (int j = 0; j < nk && rc == WEFT_OK; j++) write_key(c, sec[si], keys[j], f);
    }
    free(sec);
    free(keys);
    if (rc != WEFT_OK) return rc;
    return ferror(f) ? WEFT_ERR_IO : WEFT_OK;
}

int weft_scene_write(const weft_scene *s, const weft_model *m, const weft_config *cfg,
                     const char *solvers, FILE *f, weft_error *err) {
    char a[128], b[128], c3[128];
    int rc;
    /* [scene]: the name, dt and gravity the model has, the run's steps and solvers. */
    fprintf(f, "[scene]\n");
    if ((rc = put(f, "scene", "name", m->scene_name, err))) return rc;
    const entry *d = weft_scene_find(s, "scene", "description");
    if (d && (rc = put(f, "scene", "description", d->value, err))) return rc;
    shortest(m->dt, a, sizeof a);
    vec3(m->gravity, b, sizeof b);
    double steps = 0.0;
    weft_config_value(cfg, "scene", "steps", &steps);
    snprintf(c3, sizeof c3, "%.0f", steps);
    if ((rc = put(f, "scene", "dt", a, err)) || (rc = put(f, "scene", "gravity", b, err)) ||
        (rc = put(f, "scene", "steps", c3, err)))
        return rc;
    const entry *sv = weft_scene_find(s, "scene", "solvers");
    const char *list = solvers && solvers[0] ? solvers : sv ? sv->value : NULL;
    if (list && (rc = put(f, "scene", "solvers", list, err))) return rc;

    /* [material]: every value the model was built with, and the energy of each role. */
    const weft_material *mt = &m->material;
    fprintf(f, "\n[material]\n");
    const struct {
        const char *key;
        double v;
    } nums[] = {{"density", mt->density},
                {"stretch_stiffness", mt->stretch_stiffness},
                {"bending_stiffness", mt->bending_stiffness},
                {"poisson_ratio", mt->poisson},
                {"youngs_modulus", mt->youngs_modulus},
                {"fiber_stiffness", mt->fiber_stiffness}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        shortest(nums[i].v, a, sizeof a);
        if ((rc = put(f, "material", nums[i].key, a, err))) return rc;
    }
    vec3(mt->fiber, a, sizeof a);
    if ((rc = put(f, "material", "fiber_direction", a, err))) return rc;
    const struct {
        const char *key;
        int term;
    } roles[] = {{"membrane", m->stretch_term},
                 {"bending", m->bending_term},
                 {"volume", m->volume_term},
                 {"fiber", m->fiber_term}};
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        int t = roles[i].term;
        const char *name = t >= 0 && t < m->nterms ? m->terms[t].type->name : "none";
        if ((rc = put(f, "material", roles[i].key, name, err))) return rc;
    }

    /* The mesh, its parts, the pins and the colliders: [mesh] first (it may give no key),
     * then every other section of the model in the scene's order. */
    if ((rc = write_model_section(f, s, "mesh", err))) return rc;
    for (int i = 0; i < s->n; i++) {
        const char *sec = s->e[i].section;
        const char *fam = weft_scene_family(sec);
        if (!strcmp(sec, "mesh") || !first_of_section(s, i)) continue;
        if (strcmp(fam, "mesh") && strcmp(fam, "pins") && strcmp(fam, "collider")) continue;
        if ((rc = write_model_section(f, s, sec, err))) return rc;
    }

    /* [collision] margin (the model's), then the settings of every plug-in the run read. */
    shortest(m->contact_margin, a, sizeof a);
    fprintf(f, "\n[collision]\nmargin = %s\n", a);
    rc = weft_config_write_ini(cfg, f);
    if (rc == WEFT_ERR_NOMEM) return weft_fail(err, rc, "out of memory writing the settings");
    if (rc != WEFT_OK || ferror(f)) return weft_fail(err, WEFT_ERR_IO, "write failed");
    return WEFT_OK;
}
