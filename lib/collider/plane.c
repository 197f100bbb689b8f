/* plane.c — a half-space collider: points p with (p − point)·n̂ ≥ 0 are outside.
 *   distance  d(p) = (p − point)·n̂, normal n̂ everywhere;
 *   segment   x(t) = x0 + t (x1 − x0) reaches d = margin at t = (d0 − margin)/(d0 − d1). */
#include "collider_internal.h"

#include <math.h>

enum { POINT = 0, NORMAL = 3 }; /* where its keys sit in weft_collider.param */

static double plane_distance(const weft_collider *c, const double p[3], double n[3]) {
    const double *x0 = &c->param[POINT], *nn = &c->param[NORMAL];
    if (n)
        for (int k = 0; k < 3; k++) n[k] = nn[k];
    return (p[0] - x0[0]) * nn[0] + (p[1] - x0[1]) * nn[1] + (p[2] - x0[2]) * nn[2];
}

static bool plane_segment_entry(const weft_collider *c, const double x0[3], const double x1[3],
                                double margin, double *t, double n[3]) {
    double d0 = plane_distance(c, x0, NULL) - margin, d1 = plane_distance(c, x1, n) - margin;
    if (d0 < 0.0 || !(d1 < 0.0)) return false; /* starts inside, or never enters */
    *t = d0 / (d0 - d1);
    return true;
}

/* The shape operator of a plane is zero. */
static void plane_curvature(const weft_collider *c, const double p[3], double S[9]) {
    (void)c, (void)p;
    for (int k = 0; k < 9; k++) S[k] = 0.0;
}

/* Scales the normal to unit length; a zero normal is an error. */
static const char *plane_prepare(weft_collider *c, const char **key) {
    double *nn = &c->param[NORMAL];
    double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
    *key = "normal";
    if (!(len > 0)) return "normal is zero";
    for (int k = 0; k < 3; k++) nn[k] /= len;
    return NULL;
}

static const weft_collider_param plane_params[] = {
    {.key = "point", .n = 3, .at = POINT, .unit = "m", .doc = "a point on it"},
    {.key = "normal", .n = 3, .at = NORMAL, .unit = "1", .dflt = {0, 1, 0},
     .doc = "its outward normal (normalised)"},
    {.key = NULL},
};

const weft_collider_type weft_collider_plane = {
    .name = "plane",
    .summary = "half-space (p - point).normal >= 0 outside",
    .smooth = true,
    .params = plane_params,
    .prepare = plane_prepare,
    .distance = plane_distance,
    .segment_entry = plane_segment_entry,
    .curvature = plane_curvature,
};
