/* collider_helpers.h — tests build colliders by type name and key, as a scene does, since
 * a shape's parameters sit in weft_collider.param where its type's table says. */
#ifndef WEFT_TEST_COLLIDER_HELPERS_H
#define WEFT_TEST_COLLIDER_HELPERS_H

#include <stdio.h>
#include <stdlib.h>

#include "weft.h"

/* The registered type called name; aborts the test when there is none. */
static inline const weft_collider_type *collider_type(const char *name) {
    const weft_collider_type *t = weft_collider_find(name);
    if (!t) {
        fprintf(stderr, "no collider type '%s'\n", name);
        abort();
    }
    return t;
}

/* A collider of type `name` with its table's defaults, at rest, friction 0.3. */
static inline weft_collider collider_of(const char *name) {
    weft_collider c;
    weft_collider_init(&c, collider_type(name));
    snprintf(c.name, sizeof c.name, "%s", name);
    c.friction = 0.3;
    return c;
}

/* The values of c's key (1 or 3 doubles, m); aborts when its type has no such key. */
static inline double *collider_at(weft_collider *c, const char *key) {
    const weft_collider_param *q = weft_collider_param_find(c->type, key);
    if (!q) {
        fprintf(stderr, "collider type '%s' has no key '%s'\n", c->type->name, key);
        abort();
    }
    return &c->param[q->at];
}

/* Sets c's key to v (as many values as the key takes). */
static inline void collider_set(weft_collider *c, const char *key, double x, double y,
                                double z) {
    const weft_collider_param *q = weft_collider_param_find(c->type, key);
    double *p = collider_at(c, key), v[3] = {x, y, z};
    for (int k = 0; k < q->n; k++) p[k] = v[k];
}

#endif
