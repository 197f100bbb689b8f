/* model_diff.c — how the model a solver runs differs from the scene's: energy terms it
 * replaces by its own (its descriptor's caps.model_changes) and physics that a setting
 * switches on (a WEFT_PARAM_MODEL row, such as a balloon's pressure) which the solver's
 * settings tables do not read, so it drops it. The same code for every solver: the
 * printed table, summary.tsv and the log header of a comparison all say what it finds,
 * and compare --same-model refuses a run it finds a difference in. A contact model ([contact]
 * model) is not marked but refused: a solver runs one only where its descriptor declares it
 * (caps.contact_models; weft_solver_check, called by weft_solver_create). */
#include "weft.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The scene key of term t's role ([material] membrane, bending, volume, fiber), or NULL. */
static const char *role_key(const weft_model *m, int t) {
    if (t == m->stretch_term) return "membrane";
    if (t == m->bending_term) return "bending";
    if (t == m->volume_term) return "volume";
    if (t == m->fiber_term) return "fiber";
    return NULL;
}

/* Appends one difference to d unless it holds it already or is full. */
static void add(weft_model_diff *d, const char *what, const char *fix) {
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->what[i], what)) return;
    if (d->n == WEFT_MODEL_DIFF_MAX) {
        d->more++; /* said by weft_model_diff_format, never dropped silently */
        return;
    }
    snprintf(d->what[d->n], sizeof d->what[d->n], "%s", what);
    snprintf(d->fix[d->n], sizeof d->fix[d->n], "%s", fix);
    d->n++;
}

void weft_model_diff_compute(const weft_solver_type *s, const weft_model *m,
                             const weft_config *cfg, weft_model_diff *d) {
    memset(d, 0, sizeof *d);
    char what[160], fix[160];
    if (s->caps.model_changes) {
        weft_model_change ch[WEFT_MAX_TERMS];
        int n = s->caps.model_changes(m, ch, WEFT_MAX_TERMS);
        for (int i = 0; i < n; i++) {
            const char *role = role_key(m, ch[i].term);
            snprintf(what, sizeof what, "%s %s -> %s", role ? role : "term",
                     m->terms[ch[i].term].type->name, ch[i].to);
            fix[0] = '\0';
            if (role && ch[i].energy) snprintf(fix, sizeof fix, "material.%s=%s", role, ch[i].to);
            add(d, what, fix);
        }
    }
    static const char *const kinds[] = {"run", "solver", "linear", "preconditioner", "stage"};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        const weft_param_table *tables;
        for (int i = 0; weft_config_plugin(cfg, kinds[k], i, &tables); i++)
            for (const weft_param_table *t = tables; t && t->section; t++)
                for (const weft_param *p = t->params; p->key; p++) {
                    double v;
                    if (!(p->flags & WEFT_PARAM_MODEL) ||
                        !weft_config_value(cfg, t->section, p->key, &v) || v == 0.0 ||
                        weft_param_find(s->settings, t->section, p->key, NULL))
                        continue;
                    snprintf(what, sizeof what, "%s.%s dropped", t->section, p->key);
                    snprintf(fix, sizeof fix, "%s.%s=%s", t->section, p->key,
                             p->type == WEFT_PARAM_BOOL   ? "false"
                             : p->type == WEFT_PARAM_NAME ? weft_param_name(p, 0)
                                                          : "0");
                    add(d, what, fix);
                }
    }
}

void weft_model_diff_format(const weft_model_diff *d, char *buf, size_t size) {
    if (!size) return;
    snprintf(buf, size, "%s", d->n ? "differs: " : "same");
    for (int i = 0; i < d->n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, size - l, "%s%s", i ? "; " : "", d->what[i]);
    }
    if (d->more) {
        size_t l = strlen(buf);
        snprintf(buf + l, size - l, "; and %d more", d->more);
    }
}

bool weft_model_diff_fixes(const weft_model_diff *d, const char *sep, char *buf, size_t size) {
    if (size) buf[0] = '\0';
    if (d->more) return false; /* the fixes of the differences not kept are unknown */
    for (int i = 0; i < d->n; i++)
        if (!d->fix[i][0]) {
            if (size) buf[0] = '\0';
            return false;
        } else if (size) {
            size_t l = strlen(buf);
            snprintf(buf + l, size - l, "%s%s", l ? sep : "", d->fix[i]);
        }
    return true;
}

/* True when the NULL-terminated list names holds name. */
static bool listed(const char *const *names, const char *name) {
    for (; names && *names; names++)
        if (!strcmp(*names, name)) return true;
    return false;
}

int weft_solver_check(const weft_solver_type *s, const weft_config *cfg, weft_error *err) {
    double v;
    if (!cfg || !weft_config_value(cfg, "contact", "model", &v) || v == 0.0) return WEFT_OK;
    /* The model's word, from the first plug-in with the row (index 0 is none). */
    const weft_param_table *tables;
    const weft_param *p = NULL;
    for (int i = 0; !p && weft_config_plugin(cfg, "solver", i, &tables); i++)
        p = weft_param_find(tables, "contact", "model", NULL);
    const char *name = p ? weft_param_name(p, (int)v) : "?";
    if (listed(s->caps.contact_models, name)) return WEFT_OK;
    char by[400] = "", where[340] = "";
    const weft_solver_type *t;
    for (int i = 0; (t = weft_config_plugin(cfg, "solver", i, NULL)); i++)
        if (listed(t->caps.contact_models, name)) {
            size_t l = strlen(by);
            snprintf(by + l, sizeof by - l, "%s%s", l ? ", " : "", t->name);
        }
    char w[330];
    if (weft_config_where(cfg, "contact", "model", w, sizeof w))
        snprintf(where, sizeof where, " (%s)", w);
    return weft_fail(err, WEFT_ERR_INPUT, "%s: [contact] model = %s%s is run by %s; set "
                     "contact.model=none", s->name, name, where, by[0] ? by : "no solver");
}

double weft_solver_contact_seconds(const weft_solver_type *s, const weft_profile *profile) {
    double sum = 0.0;
    for (const char *const *t = s->caps.contact_timers; t && *t; t++) {
        double v = weft_profile_value(profile, *t);
        if (!isnan(v)) sum += v;
    }
    return sum;
}
