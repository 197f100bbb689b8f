/* settings.c — a run's config: every plug-in's settings struct, filled from its table's
 * defaults and the scene's values, with file:line errors; and the check that every key of
 * a plug-in section belongs to some plug-in.
 *
 * The model's own sections ([scene], [mesh], [material], [pins], [collider.NAME]) are
 * checked by the parser against the model's schema. Any other section is a plug-in's: a
 * key there is accepted when one of the registered plug-ins' tables has it (or, for
 * [collision] margin, the model reads it), and refused otherwise with the nearest known
 * key of that section (weft_suggest, lib/util.c), so a typo names its correction. */
#include "config_internal.h"
#include "scene_internal.h"
#include "weft.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>


/* Reads every key of the plug-in's tables that the scene gives. */
static int read_tables(weft_config *c, const weft_plugin *pl, const weft_scene *s, void *data,
                       weft_error *err) {
    for (const weft_param_table *t = pl->tables; t && t->section; t++)
        for (const weft_param *p = t->params; p->key; p++) {
            const entry *e = weft_scene_find(s, t->section, p->key);
            if (!e) continue;
            char w[400];
            weft_scene_where(e, w, sizeof w);
            int rc = weft_param_parse(p, t->base, e->value, data, w, t->section, err);
            if (rc) return rc;
            if (weft_config_note_origin(c, t->section, p->key, w) != WEFT_OK)
                return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        }
    return WEFT_OK;
}

/* ---------------------------------------------------------------------------------- */
/* Unknown keys and sections                                                          */
/* ---------------------------------------------------------------------------------- */

/* True when some plug-in reads section (or the model reads a key of it). */
static bool section_used(const weft_plugin *pl, int n, const char *section) {
    for (int i = 0; i < n; i++)
        for (const weft_param_table *t = pl[i].tables; t && t->section; t++)
            if (!strcmp(t->section, section)) return true;
    return !strcmp(section, "collision"); /* [collision] margin: the model's contact margin */
}

static bool key_used(const weft_plugin *pl, int n, const char *section, const char *key) {
    for (int i = 0; i < n; i++)
        if (weft_param_find(pl[i].tables, section, key, NULL)) return true;
    return weft_scene_key_known(section, key);
}

/* Checks every plug-in section and key of s against the plug-ins' tables; an unknown one
 * is refused with the nearest known name (weft_suggest) when one is close. */
static int check_keys(const weft_plugin *pl, int n, const weft_scene *s, weft_error *err) {
    for (int h = 0; h < s->nh; h++) {
        const section_header *sh = &s->h[h];
        if (section_used(pl, n, sh->name)) continue;
        weft_suggest sg;
        weft_suggest_init(&sg, sh->name);
        char named[3][160];
        weft_scene_suggest_section(&sg, named);
        for (int i = 0; i < n; i++)
            for (const weft_param_table *t = pl[i].tables; t && t->section; t++)
                weft_suggest_offer(&sg, t->section);
        const char *best = weft_suggest_best(&sg);
        char hint[200] = "";
        if (best) snprintf(hint, sizeof hint, " (nearest: [%.160s])", best);
        return weft_fail(err, WEFT_ERR_INPUT, "%s:%d: [%s]: unknown section%s", sh->origin,
                         sh->line, sh->name, hint);
    }
    for (int e = 0; e < s->n; e++) {
        const entry *en = &s->e[e];
        if (key_used(pl, n, en->section, en->key)) continue;
        char w[400], msg[300];
        weft_scene_where(en, w, sizeof w);
        if (!section_used(pl, n, en->section)) { /* a --set into a section nobody reads */
            return weft_fail(err, WEFT_ERR_INPUT, "%s: [%s]: unknown section", w, en->section);
        }
        weft_suggest sg;
        weft_suggest_init(&sg, en->key);
        for (int i = 0; i < n; i++)
            for (const weft_param_table *t = pl[i].tables; t && t->section; t++)
                if (!strcmp(t->section, en->section))
                    for (const weft_param *p = t->params; p->key; p++)
                        weft_suggest_offer(&sg, p->key);
        weft_scene_suggest_key(&sg, en->section); /* [collision] margin */
        const char *best = weft_suggest_best(&sg);
        if (best)
            snprintf(msg, sizeof msg, "unknown key (nearest: %s.%s)", en->section, best);
        else
            snprintf(msg, sizeof msg, "unknown key");
        return weft_fail(err, WEFT_ERR_INPUT, "%s: %s.%s: %s", w, en->section, en->key, msg);
    }
    return WEFT_OK;
}

/* ---------------------------------------------------------------------------------- */
/* The config                                                                         */
/* ---------------------------------------------------------------------------------- */

weft_config *weft_config_create(const weft_plugin *plugins, int n, const weft_scene *s,
                                weft_error *err) {
    if (s && check_keys(plugins, n, s, err) != WEFT_OK) return NULL;
    weft_config *c = calloc(1, sizeof *c);
    if (c) c->it = calloc((size_t)(n > 0 ? n : 1), sizeof *c->it);
    if (!c || !c->it) {
        free(c);
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        weft_config_item *it = &c->it[c->n];
        it->p = plugins[i];
        it->data = calloc(1, plugins[i].size ? plugins[i].size : 1);
        if (!it->data) {
            weft_config_free(&c);
            weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
            return NULL;
        }
        c->n++;
        weft_settings_default(plugins[i].tables, it->data);
        if (s && read_tables(c, &plugins[i], s, it->data, err) != WEFT_OK) {
            weft_config_free(&c);
            return NULL;
        }
    }
    return c;
}


/* ---------------------------------------------------------------------------------- */
/* Settings that nothing in the run reads                                             */
/* ---------------------------------------------------------------------------------- */

/* True when a stage that is off reads section.key to decide it: the key of its
 * enable_hint, "[section] key = value". */
static bool enable_key(const weft_plugin *p, const char *section, const char *key) {
    if (strcmp(p->kind, "stage") != 0) return false;
    const weft_stage_type *t = p->type;
    const char *h = t->enable_hint, *close = h && h[0] == '[' ? strchr(h, ']') : NULL;
    if (!close) return false;
    size_t ls = (size_t)(close - h - 1);
    const char *k = close + 1;
    while (*k == ' ') k++;
    size_t lk = strcspn(k, " =");
    return strlen(section) == ls && !strncmp(section, h + 1, ls) && strlen(key) == lk &&
           !strncmp(key, k, lk);
}

int weft_config_check_read(const weft_config *c, const char *assignment, const char *origin,
                           weft_error *err) {
    const char *eq = strchr(assignment, '=');
    size_t n = eq ? (size_t)(eq - assignment) : strlen(assignment);
    char section[256], key[256];
    snprintf(section, sizeof section, "%.*s", (int)(n < 255 ? n : 255), assignment);
    char *dot = strrchr(section, '.');
    if (!dot) return WEFT_OK; /* malformed: weft_scene_set has said so */
    *dot = '\0';
    snprintf(key, sizeof key, "%s", dot + 1);
    if (weft_scene_key_known(section, key)) return WEFT_OK; /* the model reads it */
    bool section_read = weft_scene_section_known(section);
    for (int i = 0; c && i < c->n; i++) {
        const weft_config_item *it = &c->it[i];
        if (it->taken && weft_param_find(it->p.tables, section, key, NULL)) return WEFT_OK;
        if (!it->taken && enable_key(&it->p, section, key)) return WEFT_OK;
        for (const weft_param_table *t = it->p.tables; it->taken && t && t->section; t++)
            section_read = section_read || !strcmp(t->section, section);
    }
    /* Who would read it: every plug-in with the key (the config knows every registered
     * one), named with its kind unless it is a solver. */
    char readers[600] = "", first[64] = "";
    int nr = 0;
    bool all_solvers = true;
    const char *hint = NULL;
    for (int i = 0; c && i < c->n; i++) {
        const weft_plugin *p = &c->it[i].p;
        if (!weft_param_find(p->tables, section, key, NULL)) continue;
        bool solver = !strcmp(p->kind, "solver");
        all_solvers = all_solvers && solver;
        if (!strcmp(p->kind, "stage")) hint = ((const weft_stage_type *)p->type)->enable_hint;
        size_t l = strlen(readers);
        snprintf(readers + l, sizeof readers - l, "%s%s%s%s%s", nr ? ", " : "", p->name,
                 solver ? "" : " (", solver ? "" : (!strcmp(p->kind, "linear") ? "linear solver"
                                                                               : p->kind),
                 solver ? "" : ")");
        if (!nr) snprintf(first, sizeof first, "%s", p->name);
        nr++;
    }
    char what[600], todo[400];
    if (section_read)
        snprintf(what, sizeof what, "%s.%s", section, key);
    else
        snprintf(what, sizeof what, "[%s]", section);
    if (nr && all_solvers)
        snprintf(todo, sizeof todo, "add %s to --solvers or drop the --set",
                 nr == 1 ? first : "one of them");
    else if (hint)
        snprintf(todo, sizeof todo, "enable it (%s) or drop the --set", hint);
    else
        snprintf(todo, sizeof todo, "choose it in the run's settings (./weft list) or drop "
                 "the --set");
    return weft_fail(err, WEFT_ERR_INPUT, "%s %s.%s: no plug-in in this run reads %s (read "
                     "by: %s); %s", origin, section, key, what, nr ? readers : "none", todo);
}
