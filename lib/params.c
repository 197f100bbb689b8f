/* params.c — the settings tables of lib/weft_base.h: defaults, look-up, formatting for log
 * headers and the `./weft list` entries. Reading a table from a scene section lives with
 * the scene parser (lib/scene/settings.c); this file needs no scene.
 *
 * A table row describes one field of a plug-in's settings struct; the field's address is
 * settings + table.base + param.offset and its C type follows param.type (double, int,
 * bool, int for a NAME's index). */
#include "config_internal.h"
#include "weft.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Address of parameter p's field in settings, for a table at offset base. */
static void *field(const weft_param *p, size_t base, void *settings) {
    return (char *)settings + base + p->offset;
}

static const void *cfield(const weft_param *p, size_t base, const void *settings) {
    return (const char *)settings + base + p->offset;
}

const char *weft_param_name(const weft_param *p, int index) {
    if (index < 0) return "?";
    if (p->names) {
        for (int i = 0; p->names[i]; i++)
            if (i == index) return p->names[i];
        return "?";
    }
    const char *n = p->name_at ? p->name_at(index) : NULL;
    return n ? n : "?";
}

int weft_param_name_index(const weft_param *p, const char *word) {
    if (!word) return -1;
    for (int i = 0;; i++) {
        const char *n = weft_param_name(p, i);
        if (!strcmp(n, "?")) return -1;
        if (!strcmp(n, word)) return i;
    }
}

int weft_param_default_index(const weft_param *p, const char *section) {
    int i = weft_param_name_index(p, p->dflt_name);
    if (i < 0) {
        /* Always on, Release too: a wrong default would otherwise run a method nobody
         * chose. It shows on the first use of the table (every test lists them all). */
        fprintf(stderr, "weft: settings table [%s] %s: default '%s' is not one of its names\n",
                section ? section : "?", p->key, p->dflt_name ? p->dflt_name : "(none)");
        weft_assert_fail("default name in the list", __FILE__, __LINE__, __func__);
    }
    return i;
}

void weft_settings_default(const weft_param_table *tables, void *settings) {
    for (const weft_param_table *t = tables; t && t->section; t++)
        for (const weft_param *p = t->params; p->key; p++) {
            void *f = field(p, t->base, settings);
            switch (p->type) {
            case WEFT_PARAM_DOUBLE: *(double *)f = p->dflt; break;
            case WEFT_PARAM_INT: *(int *)f = (int)p->dflt; break;
            case WEFT_PARAM_NAME: *(int *)f = weft_param_default_index(p, t->section); break;
            case WEFT_PARAM_BOOL: *(bool *)f = p->dflt != 0.0; break;
            case WEFT_PARAM_STRING: ((char *)f)[0] = '\0'; break;
            }
        }
}

const weft_param *weft_param_find(const weft_param_table *tables, const char *section,
                                  const char *key, size_t *base) {
    for (const weft_param_table *t = tables; t && t->section; t++) {
        if (strcmp(t->section, section) != 0) continue;
        for (const weft_param *p = t->params; p->key; p++)
            if (strcmp(p->key, key) == 0) {
                if (base) *base = t->base;
                return p;
            }
    }
    return NULL;
}

double weft_param_value(const weft_param *p, size_t base, const void *settings) {
    const void *f = cfield(p, base, settings);
    switch (p->type) {
    case WEFT_PARAM_DOUBLE: return *(const double *)f;
    case WEFT_PARAM_INT:
    case WEFT_PARAM_NAME: return *(const int *)f;
    case WEFT_PARAM_BOOL: return *(const bool *)f ? 1.0 : 0.0;
    case WEFT_PARAM_STRING: return ((const char *)f)[0] ? 1.0 : 0.0;
    }
    return 0.0;
}

/* Appends the value of p as the scene would write it (doubles with the digits that read
 * back exactly, so that a log header reproduces the run). */
static void append_value(char *buf, size_t size, int *len, const weft_param *p, size_t base,
                         const void *settings, bool quote) {
    const void *f = cfield(p, base, settings);
    switch (p->type) {
    case WEFT_PARAM_DOUBLE: {
        /* The shortest of %.15g..%.17g that reads back as the same double. */
        double v = *(const double *)f;
        char t[40];
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(t, sizeof t, "%.*g", prec, v);
            if (strtod(t, NULL) == v) break;
        }
        weft_appendf(buf, size, len, "%s", t);
        break;
    }
    case WEFT_PARAM_INT: weft_appendf(buf, size, len, "%d", *(const int *)f); break;
    case WEFT_PARAM_BOOL: weft_appendf(buf, size, len, "%s", *(const bool *)f ? "true" : "false"); break;
    case WEFT_PARAM_NAME:
        weft_appendf(buf, size, len, "%s", weft_param_name(p, *(const int *)f));
        break;
    case WEFT_PARAM_STRING:
        weft_appendf(buf, size, len, quote ? "\"%s\"" : "%s", (const char *)f);
        break;
    }
}

int weft_param_format(const weft_param *p, size_t base, const void *settings, char *buf,
                      size_t size) {
    int len = 0;
    if (size) buf[0] = '\0';
    append_value(buf, size, &len, p, base, settings, false);
    return len;
}

int weft_settings_format(const weft_param_table *tables, const void *settings, char *buf,
                         size_t size) {
    int len = 0;
    if (size) buf[0] = '\0';
    for (const weft_param_table *t = tables; t && t->section; t++) {
        /* Consecutive tables of one section share its line. */
        if (t == tables || strcmp(t[-1].section, t->section) != 0)
            weft_appendf(buf, size, &len, "%s[%s]", len ? "\n" : "", t->section);
        for (const weft_param *p = t->params; p->key; p++) {
            weft_appendf(buf, size, &len, " %s=", p->key);
            append_value(buf, size, &len, p, t->base, settings, true);
        }
    }
    return len;
}

/* "[lo, hi)" etc. for a numeric parameter; "" when the range is everything. */
static void range_text(const weft_param *p, char *buf, size_t n) {
    if (p->type == WEFT_PARAM_DOUBLE)
        snprintf(buf, n, "%s%g, %g%s", p->flags & WEFT_PARAM_LO_OPEN ? "(" : "[", p->lo, p->hi,
                 p->flags & WEFT_PARAM_HI_OPEN ? ")" : "]");
    else if (p->type == WEFT_PARAM_INT)
        snprintf(buf, n, "[%.0f, %.0f]", p->lo, p->hi);
    else
        buf[0] = '\0';
}

void weft_param_parts(const weft_param *q, char *type, size_t ntype, char *range,
                      size_t nrange, char *dflt, size_t ndflt) {
    int tl = 0, dl = 0;
    if (ntype) type[0] = '\0';
    if (ndflt) dflt[0] = '\0';
    range_text(q, range, nrange);
    switch (q->type) {
    case WEFT_PARAM_DOUBLE:
        weft_appendf(type, ntype, &tl, "number");
        weft_appendf(dflt, ndflt, &dl, "%g", q->dflt);
        break;
    case WEFT_PARAM_INT:
        weft_appendf(type, ntype, &tl, "integer");
        weft_appendf(dflt, ndflt, &dl, "%.0f", q->dflt);
        break;
    case WEFT_PARAM_BOOL:
        weft_appendf(type, ntype, &tl, "true/false");
        weft_appendf(dflt, ndflt, &dl, "%s", q->dflt != 0.0 ? "true" : "false");
        break;
    case WEFT_PARAM_STRING:
        weft_appendf(type, ntype, &tl, "text");
        weft_appendf(dflt, ndflt, &dl, "\"\"");
        break;
    case WEFT_PARAM_NAME:
        weft_appendf(type, ntype, &tl, "one of ");
        for (int i = 0;; i++) {
            const char *n = weft_param_name(q, i);
            if (!strcmp(n, "?")) break;
            weft_appendf(type, ntype, &tl, "%s%s", i ? "|" : "", n);
        }
        weft_appendf(dflt, ndflt, &dl, "%s", weft_param_name(q, weft_param_default_index(q, NULL)));
        break;
    }
}

void weft_param_describe(const weft_param *q, char *buf, size_t size) {
    char type[256], range[64], dflt[128];
    weft_param_parts(q, type, sizeof type, range, sizeof range, dflt, sizeof dflt);
    /* "1" (dimensionless) and "" print no unit. */
    bool unit = q->type == WEFT_PARAM_DOUBLE && q->unit[0] && strcmp(q->unit, "1") != 0;
    snprintf(buf, size, "%s%s%s%s%s; default %s; %s", type, range[0] ? " in " : "", range,
             unit ? " " : "", unit ? q->unit : "", dflt, q->doc);
}

/* ---------------------------------------------------------------------------------- */
/* Parsing one value                                                                  */
/* ---------------------------------------------------------------------------------- */

/* Error about a value given at `where` for section.key. */
static int value_error(weft_error *err, const char *where, const char *section,
                       const char *key, const char *msg) {
    return weft_fail(err, WEFT_ERR_INPUT, "%s: %s.%s: %s", where, section, key, msg);
}

int weft_param_parse(const weft_param *p, size_t base, const char *text, void *settings,
                       const char *where, const char *section, weft_error *err) {
    void *f = (char *)settings + base + p->offset;
    char msg[400];
    switch (p->type) {
    case WEFT_PARAM_DOUBLE:
    case WEFT_PARAM_INT: {
        char *end;
        errno = 0;
        double v = p->type == WEFT_PARAM_DOUBLE ? strtod(text, &end) : (double)strtol(text, &end, 10);
        while (*end == ' ' || *end == '\t') end++;
        if (end == text || *end || errno == ERANGE) {
            snprintf(msg, sizeof msg, "'%s' is not %s", text,
                     p->type == WEFT_PARAM_DOUBLE ? "a number" : "an integer");
            return value_error(err, where, section, p->key, msg);
        }
        if (!isfinite(v)) {
            snprintf(msg, sizeof msg, "'%s' is not a finite number", text);
            return value_error(err, where, section, p->key, msg);
        }
        bool lo_ok = p->flags & WEFT_PARAM_LO_OPEN ? v > p->lo : v >= p->lo;
        bool hi_ok = p->flags & WEFT_PARAM_HI_OPEN ? v < p->hi : v <= p->hi;
        if (!lo_ok || !hi_ok) {
            if (p->type == WEFT_PARAM_DOUBLE)
                snprintf(msg, sizeof msg, "%s must lie in %s%g, %g%s", text,
                         p->flags & WEFT_PARAM_LO_OPEN ? "(" : "[", p->lo, p->hi,
                         p->flags & WEFT_PARAM_HI_OPEN ? ")" : "]");
            else
                snprintf(msg, sizeof msg, "%.0f must lie in [%.0f, %.0f]", v, p->lo, p->hi);
            return value_error(err, where, section, p->key, msg);
        }
        if (p->type == WEFT_PARAM_DOUBLE)
            *(double *)f = v;
        else
            *(int *)f = (int)v;
        return WEFT_OK;
    }
    case WEFT_PARAM_BOOL:
        if (!strcmp(text, "true") || !strcmp(text, "yes") || !strcmp(text, "on") ||
            !strcmp(text, "1"))
            *(bool *)f = true;
        else if (!strcmp(text, "false") || !strcmp(text, "no") || !strcmp(text, "off") ||
                 !strcmp(text, "0"))
            *(bool *)f = false;
        else {
            snprintf(msg, sizeof msg, "'%s' is not a boolean (true/false)", text);
            return value_error(err, where, section, p->key, msg);
        }
        return WEFT_OK;
    case WEFT_PARAM_STRING:
        if (strlen(text) >= WEFT_PARAM_STRING_MAX) {
            snprintf(msg, sizeof msg, "longer than %d characters", WEFT_PARAM_STRING_MAX - 1);
            return value_error(err, where, section, p->key, msg);
        }
        if (p->check && !p->check(text, msg, sizeof msg))
            return value_error(err, where, section, p->key, msg);
        snprintf((char *)f, WEFT_PARAM_STRING_MAX, "%s", text);
        return WEFT_OK;
    case WEFT_PARAM_NAME: {
        char list[300] = "";
        for (int i = 0;; i++) {
            const char *n = weft_param_name(p, i);
            if (!strcmp(n, "?")) break;
            if (!strcmp(n, text)) {
                *(int *)f = i;
                return WEFT_OK;
            }
            strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, n, sizeof list - strlen(list) - 1);
        }
        weft_suggest sg;
        weft_suggest_init(&sg, text);
        for (int i = 0; strcmp(weft_param_name(p, i), "?"); i++)
            weft_suggest_offer(&sg, weft_param_name(p, i));
        const char *best = weft_suggest_best(&sg);
        snprintf(msg, sizeof msg, "'%.60s' is not one of: %s%s%s%s", text, list,
                 best ? " (nearest: " : "", best ? best : "", best ? ")" : "");
        return value_error(err, where, section, p->key, msg);
    }
    }
    return WEFT_OK;
}

/* ---------------------------------------------------------------------------------- */
/* The config (made from a scene by lib/scene/settings.c)                             */
/* ---------------------------------------------------------------------------------- */

void *weft_config_find(weft_config *c, const weft_param_table *tables) {
    for (int i = 0; c && i < c->n; i++)
        if (c->it[i].p.tables == tables) return c->it[i].data;
    return NULL;
}

void weft_config_settings(weft_config *c, const weft_param_table *tables, void *dst) {
    for (int i = 0; c && i < c->n; i++)
        if (c->it[i].p.tables == tables) {
            memcpy(dst, c->it[i].data, c->it[i].p.size);
            c->it[i].taken = true;
            return;
        }
    weft_settings_default(tables, dst);
}

const void *weft_config_plugin(const weft_config *c, const char *kind, int i,
                               const weft_param_table **tables) {
    for (int k = 0; c && k < c->n; k++)
        if (!strcmp(c->it[k].p.kind, kind) && i-- == 0) {
            if (tables) *tables = c->it[k].p.tables;
            return c->it[k].p.type;
        }
    return NULL;
}

int weft_config_note_origin(weft_config *c, const char *section, const char *key,
                            const char *where) {
    weft_config_origin *o = NULL;
    for (int i = 0; i < c->norigin && !o; i++)
        if (!strcmp(c->origin[i].section, section) && !strcmp(c->origin[i].key, key))
            o = &c->origin[i];
    if (!o) {
        if (c->norigin == c->caporigin) {
            int cap = c->caporigin ? 2 * c->caporigin : 16;
            weft_config_origin *g = realloc(c->origin, (size_t)cap * sizeof *g);
            if (!g) return WEFT_ERR_NOMEM;
            c->origin = g, c->caporigin = cap;
        }
        o = &c->origin[c->norigin++];
        snprintf(o->section, sizeof o->section, "%s", section);
        snprintf(o->key, sizeof o->key, "%s", key);
    }
    snprintf(o->where, sizeof o->where, "%s", where);
    return WEFT_OK;
}

bool weft_config_where(const weft_config *c, const char *section, const char *key, char *buf,
                       size_t size) {
    if (size) buf[0] = '\0';
    for (int i = 0; c && i < c->norigin; i++)
        if (!strcmp(c->origin[i].section, section) && !strcmp(c->origin[i].key, key)) {
            snprintf(buf, size, "%s", c->origin[i].where);
            return true;
        }
    return false;
}

bool weft_config_value(const weft_config *c, const char *section, const char *key,
                       double *out) {
    for (int i = 0; c && i < c->n; i++) {
        size_t base;
        const weft_param *p = weft_param_find(c->it[i].p.tables, section, key, &base);
        if (p) {
            *out = weft_param_value(p, base, c->it[i].data);
            return true;
        }
    }
    return false;
}

void weft_config_mark_clear(weft_config *c) {
    for (int i = 0; c && i < c->n; i++) c->it[i].taken = false;
}

int weft_config_format_taken(const weft_config *c, char *buf, size_t size) {
    int len = 0;
    if (size) buf[0] = '\0';
    for (int i = 0; c && i < c->n; i++) {
        const weft_config_item *it = &c->it[i];
        if (!it->taken || !it->p.tables || !it->p.tables->section) continue;
        size_t at = (size_t)len;
        if (len) {
            if (at + 1 < size) buf[at] = '\n', buf[at + 1] = '\0';
            len++, at++;
        }
        len += weft_settings_format(it->p.tables, it->data, at < size ? buf + at : NULL,
                                    at < size ? size - at : 0);
    }
    return len;
}

int weft_config_set(weft_config *c, const char *assignment, const char *origin,
                    weft_error *err) {
    const char *eq = strchr(assignment, '=');
    const char *dot = eq ? memchr(assignment, '.', (size_t)(eq - assignment)) : NULL;
    /* The last '.' before '=' separates section and key ("mesh.top.nx" style sections). */
    for (const char *p = dot; p && p < eq; p++)
        if (*p == '.') dot = p;
    if (!eq || !dot || dot == assignment || dot + 1 == eq || (size_t)(eq - assignment) > 255)
        return weft_fail(err, WEFT_ERR_INPUT, "%s %s: expected section.key=value", origin,
                         assignment);
    char section[256], key[256], where[300];
    snprintf(section, sizeof section, "%.*s", (int)(dot - assignment), assignment);
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    snprintf(where, sizeof where, "%s %s", origin, assignment);
    bool found = false;
    for (int i = 0; c && i < c->n; i++) {
        size_t base;
        const weft_param *p = weft_param_find(c->it[i].p.tables, section, key, &base);
        if (!p) continue;
        found = true;
        int rc = weft_param_parse(p, base, eq + 1, c->it[i].data, where, section, err);
        if (rc) return rc;
    }
    if (!found) {
        weft_suggest sg;
        weft_suggest_init(&sg, key);
        for (int i = 0; c && i < c->n; i++)
            for (const weft_param_table *t = c->it[i].p.tables; t && t->section; t++)
                if (!strcmp(t->section, section))
                    for (const weft_param *p = t->params; p->key; p++)
                        weft_suggest_offer(&sg, p->key);
        const char *best = weft_suggest_best(&sg);
        char h[300] = "";
        if (best) snprintf(h, sizeof h, " (nearest: %s.%s)", section, best);
        return weft_fail(err, WEFT_ERR_INPUT, "%s: %s.%s: unknown key%s", where, section, key, h);
    }
    if (weft_config_note_origin(c, section, key, where) != WEFT_OK)
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
    return WEFT_OK;
}

void weft_config_free(weft_config **pc) {
    weft_config *c = *pc;
    if (!c) return;
    for (int i = 0; i < c->n; i++) free(c->it[i].data);
    free(c->it);
    free(c->origin);
    free(c);
    *pc = NULL;
}
