/* geometry_internal.h — 3-vector helpers shared by lib/collision/geometry.c and lib/collision/collision.ccd.c (not
 * part of the public API). Vectors are double[3]; outputs may alias inputs. */
#ifndef WEFT_GEOMETRY_INTERNAL_H
#define WEFT_GEOMETRY_INTERNAL_H

#include <float.h>
#include <math.h>

/* Unit roundoff u = 2^-53 of double arithmetic. */
#define GEOM_U (0.5 * DBL_EPSILON)

/* Below this sine of the angle between two edges a triangle counts as degenerate, and
 * two edges as parallel: about sqrt(u). There the boundary is within 1e-8 x the edge
 * length of every interior point, while the 2x2 solve would have lost half its digits. */
#define GEOM_DEGENERATE_SINE 1e-8

/* out = a - b */
static inline void geom_sub(const double *a, const double *b, double *out) {
    out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}

/* a · b */
static inline double geom_dot(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* out = a × b */
static inline void geom_cross(const double *a, const double *b, double *out) {
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                   a[0] * b[1] - a[1] * b[0]};
    out[0] = c[0], out[1] = c[1], out[2] = c[2];
}

/* |a| */
static inline double geom_norm(const double *a) { return sqrt(geom_dot(a, a)); }

/* |a - b| */
static inline double geom_dist(const double *a, const double *b) {
    double d[3];
    geom_sub(a, b, d);
    return geom_norm(d);
}

/* out = a / |a|, or zero when a is zero. */
static inline void geom_normalize(const double *a, double *out) {
    double n = geom_norm(a);
    for (int k = 0; k < 3; k++) out[k] = n > 0.0 ? a[k] / n : 0.0;
}

#endif
