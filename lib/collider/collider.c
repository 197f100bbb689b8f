/* collider.c — the collider types weft knows (one file each, plus one line in
 * WEFT_COLLIDERS below and one in CMakeLists.txt) and the queries every solver and the
 * collision pipeline ask of a collider through them; the contact toolkit built on these
 * queries is contact.c.
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
    X(capsule)            \
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

const weft_collider_param *weft_collider_param_find(const weft_collider_type *t,
                                                    const char *key) {
    for (const weft_collider_param *q = t->params; q && q->key; q++)
        if (!strcmp(q->key, key)) return q;
    return NULL;
}

void weft_collider_init(weft_collider *c, const weft_collider_type *t) {
    memset(c, 0, sizeof *c);
    c->type = t;
    for (const weft_collider_param *q = t->params; q && q->key; q++) {
        WEFT_ASSERT(q->n >= 1 && q->at >= 0 && q->at + q->n <= WEFT_COLLIDER_PARAM_MAX);
        for (int k = 0; k < q->n; k++) c->param[q->at + k] = q->dflt[k];
    }
}

double weft_collider_distance(const weft_collider *c, const double p[3], double n[3]) {
    return weft_collider_type_of(c)->distance(c, p, n);
}

bool weft_collider_moving(const weft_collider *c) {
    return c->velocity[0] != 0.0 || c->velocity[1] != 0.0 || c->velocity[2] != 0.0;
}

bool weft_collider_surface_velocity(const weft_collider *c, const double p[3], double t,
                                    double u[3]) {
    const weft_collider_type *ty = weft_collider_type_of(c);
    for (int k = 0; k < 3; k++) u[k] = c->velocity[k];
    if (ty->spin) {
        double q[3], w[3];
        for (int k = 0; k < 3; k++) q[k] = p[k] - c->velocity[k] * t;
        ty->spin(c, q, w);
        for (int k = 0; k < 3; k++) u[k] += w[k];
    }
    return u[0] != 0.0 || u[1] != 0.0 || u[2] != 0.0;
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

double weft_collider_project_at(const weft_collider *c, double p[3], double t, double margin,
                                double n[3]) {
    const weft_collider_type *ty = weft_collider_type_of(c);
    if (!ty->project) {
        double d = weft_collider_distance_at(c, p, t, n) - margin;
        for (int k = 0; k < 3; k++) p[k] -= d * n[k];
        return d;
    }
    /* In the collider's frame (p itself when static, as weft_collider_distance_at). */
    const bool moving = weft_collider_moving(c);
    double q[3], q0[3];
    for (int k = 0; k < 3; k++) q[k] = q0[k] = moving ? p[k] - c->velocity[k] * t : p[k];
    double d = ty->project(c, q, margin, n);
    for (int k = 0; k < 3; k++) p[k] += q[k] - q0[k];
    return d;
}

void weft_collider_curvature_at(const weft_collider *c, const double p[3], double t,
                                double S[9]) {
    const bool moving = weft_collider_moving(c);
    double q[3];
    for (int k = 0; k < 3; k++) q[k] = moving ? p[k] - c->velocity[k] * t : p[k];
    const weft_collider_type *ty = weft_collider_type_of(c);
    if (ty->curvature) {
        ty->curvature(c, q, S);
        return;
    }
    /* Column j of ∂n̂/∂p by central differences, step ~ 1e-6 of the point's scale. */
    const double h = 1e-6 * (1.0 + fabs(q[0]) + fabs(q[1]) + fabs(q[2]));
    for (int j = 0; j < 3; j++) {
        double a[3] = {q[0], q[1], q[2]}, b[3] = {q[0], q[1], q[2]}, na[3], nb[3];
        a[j] += h, b[j] -= h;
        ty->distance(c, a, na);
        ty->distance(c, b, nb);
        for (int i = 0; i < 3; i++) S[3 * i + j] = (na[i] - nb[i]) / (2.0 * h);
    }
    for (int i = 0; i < 3; i++) /* symmetrise: the exact operator is symmetric */
        for (int j = i + 1; j < 3; j++)
            S[3 * i + j] = S[3 * j + i] = 0.5 * (S[3 * i + j] + S[3 * j + i]);
}

bool weft_collider_segment_entry(const weft_collider *c, const double x0[3],
                                 const double x1[3], double margin, double *t, double n[3]) {
    return weft_collider_type_of(c)->segment_entry(c, x0, x1, margin, t, n);
}
