/* profile.c — solver profiles: a fixed-capacity list of named timers (s), counters and
 * labels that every solver fills through its descriptor's stats hook, so that benches and
 * summaries read any method's figures by name instead of casting its state. */
#include "weft.h"

#include <math.h>
#include <string.h>

void weft_profile_clear(weft_profile *p) {
    memset(p, 0, sizeof *p);
}

/* The index of the entry called name, or -1. */
static int find(const weft_profile *p, const char *name) {
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->entry[i].name, name) == 0) return i;
    return -1;
}

/* The entry called name, appended with the given kind when p has none. */
static weft_profile_entry *slot(weft_profile *p, const char *name, weft_profile_kind kind) {
    int i = find(p, name);
    if (i < 0) {
        WEFT_ASSERT(p->n < WEFT_PROFILE_MAX);
        if (p->n == WEFT_PROFILE_MAX) return NULL; /* Release: the entry is dropped */
        i = p->n++;
        p->entry[i] = (weft_profile_entry){name, kind, 0.0, NULL};
    }
    WEFT_ASSERT(p->entry[i].kind == kind);
    return &p->entry[i];
}

void weft_profile_add(weft_profile *p, const char *name, weft_profile_kind kind, double value) {
    WEFT_ASSERT(kind != WEFT_PROFILE_LABEL);
    weft_profile_entry *e = slot(p, name, kind);
    if (e) e->value += value;
}

void weft_profile_label(weft_profile *p, const char *name, const char *text) {
    weft_profile_entry *e = slot(p, name, WEFT_PROFILE_LABEL);
    if (e) e->text = text;
}

const weft_profile_entry *weft_profile_find(const weft_profile *p, const char *name) {
    int i = find(p, name);
    return i < 0 ? NULL : &p->entry[i];
}

double weft_profile_value(const weft_profile *p, const char *name) {
    const weft_profile_entry *e = weft_profile_find(p, name);
    return e && e->kind != WEFT_PROFILE_LABEL ? e->value : NAN;
}

void weft_profile_since(weft_profile *p, const weft_profile *before) {
    for (int i = 0; i < p->n; i++) {
        weft_profile_entry *e = &p->entry[i];
        const weft_profile_entry *b = weft_profile_find(before, e->name);
        if (b && e->kind != WEFT_PROFILE_LABEL && b->kind == e->kind) e->value -= b->value;
    }
}

void weft_profile_print(FILE *f, const weft_profile *p, const char *indent) {
    for (int i = 0; i < p->n; i++) {
        const weft_profile_entry *e = &p->entry[i];
        if (e->kind == WEFT_PROFILE_LABEL)
            fprintf(f, "%s%-22s %s\n", indent, e->name, e->text ? e->text : "");
        else if (e->kind == WEFT_PROFILE_TIMER)
            fprintf(f, "%s%-22s %.6f s\n", indent, e->name, e->value);
        else
            fprintf(f, "%s%-22s %.0f\n", indent, e->name, e->value);
    }
}

void weft_solver_stats(const weft_solver_type *s, const void *state, weft_profile *out) {
    weft_profile_clear(out);
    if (s->stats && state) s->stats(state, out);
}
