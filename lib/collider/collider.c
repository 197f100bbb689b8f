/* collider.c — the collider types weft knows (one file each: plane.c, sphere.c, box.c,
 * plus one line in WEFT_COLLIDERS below and one in CMakeLists.txt) and the queries every
 * solver and the collision pipeline ask of a collider through them; the contact toolkit
 * built on these queries is contact.c.
 *
 * A collider translates with constant velocity u: at time t its reference point is
 * p0 + u t, so a query at time t is the query at t = 0 of p − u t.
 */
#include "collider_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* The collider shapes, in listing order: a new shape is its file (NAME.c, defining
 * weft_collider_NAME), one line here, which also declares it, and one in CMakeLists.txt. */
#define WEFT_COLLIDERS(X) \
    X(plane)              \
    X(sphere)             \
    X(box)                \
    /* one line per shape above; this line ends the list */

#define WEFT_DECLARE_COLLIDER(name) extern const weft_collider_type weft_collider_##name;
#define WEFT_LIST_COLLIDER(name) &weft_collider_##name,
WEFT_COLLIDERS(WEFT_DECLARE_COLLIDER)

const weft_collider_type *const weft_collider_registry[] = {WEFT_COLLIDERS(WEFT_LIST_COLLIDER) NULL};

const weft_collider_type *weft_collider_type_of(const weft_collider *c) {
    WEFT_ASSERT(c->type != NULL);
    return c->type;
}

const weft_collider_type *weft_collider_find(const char *name) {
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++)
        if (!strcmp((*t)->name, name)) return *t;
    return NULL;
}

double weft_collider_distance(const weft_collider *c, const double p[3], double n[3]) {
    return weft_collider_type_of(c)->distance(c, p, n);
}

bool weft_collider_moving(const weft_collider *c) {
    return c->velocity[0] != 0.0 || c->velocity[1] != 0.0 || c->velocity[2] != 0.0;
}

double weft_collider_distance_at(const weft_collider *c, const double p[3], double t,
                                 double n[3]) {
    /* A static collider takes p itself, not p - 0 t, so its values stay bit for bit those
     * of weft_collider_distance (and no -0.0 or NaN from 0 · t can creep in). */
    if (!weft_collider_moving(c)) return weft_collider_distance(c, p, n);
    double q[3];
    for (int k = 0; k < 3; k++) q[k] = p[k] - c->velocity[k] * t;
    return weft_collider_distance(c, q, n);
}

bool weft_collider_segment_entry(const weft_collider *c, const double x0[3],
                                 const double x1[3], double margin, double *t, double n[3]) {
    return weft_collider_type_of(c)->segment_entry(c, x0, x1, margin, t, n);
}
