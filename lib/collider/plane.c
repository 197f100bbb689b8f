/* plane.c — a half-space collider: points p with (p − point)·n̂ ≥ 0 are outside.
 *   distance  d(p) = (p − point)·n̂, normal n̂ everywhere;
 *   segment   x(t) = x0 + t (x1 − x0) reaches d = margin at t = (d0 − margin)/(d0 − d1). */
#include "collider_internal.h"

static double plane_distance(const weft_collider *c, const double p[3], double n[3]) {
    if (n)
        for (int k = 0; k < 3; k++) n[k] = c->normal[k];
    return (p[0] - c->point[0]) * c->normal[0] + (p[1] - c->point[1]) * c->normal[1] +
           (p[2] - c->point[2]) * c->normal[2];
}

static bool plane_segment_entry(const weft_collider *c, const double x0[3], const double x1[3],
                                double margin, double *t, double n[3]) {
    double d0 = plane_distance(c, x0, NULL) - margin, d1 = plane_distance(c, x1, n) - margin;
    if (d0 < 0.0 || !(d1 < 0.0)) return false; /* starts inside, or never enters */
    *t = d0 / (d0 - d1);
    return true;
}

const weft_collider_type weft_collider_plane = {
    .name = "plane",
    .summary = "half-space (p - point).normal >= 0 outside",
    .smooth = true,
    .distance = plane_distance,
    .segment_entry = plane_segment_entry,
};
