/* sphere.c — a ball collider of centre c and radius r.
 *   distance  d(p) = |p − c| − r, normal (p − c)/|p − c| (+y at the centre);
 *   segment   |f + t d| = R, f = x0 − c, d = x1 − x0, R = r + margin: the smaller root of
 *             a t² + b t + cc = 0 (a = d·d, b = 2 d·f, cc = f·f − R²), taken as cc / q with
 *             q = (−b + √(b² − 4 a cc))/2 to avoid cancellation (Press et al. §5.6). */
#include "collider_internal.h"

#include <math.h>

static double sphere_distance(const weft_collider *c, const double p[3], double n[3]) {
    double d[3] = {p[0] - c->center[0], p[1] - c->center[1], p[2] - c->center[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (n) {
        if (len > 0.0) {
            for (int k = 0; k < 3; k++) n[k] = d[k] / len;
        } else { /* at the centre every direction is closest: pick +y (up) */
            n[0] = 0.0, n[1] = 1.0, n[2] = 0.0;
        }
    }
    return len - c->radius;
}

static bool sphere_segment_entry(const weft_collider *c, const double x0[3],
                                 const double x1[3], double margin, double *t, double n[3]) {
    double d[3], f[3], R = c->radius + margin;
    for (int k = 0; k < 3; k++) d[k] = x1[k] - x0[k], f[k] = x0[k] - c->center[k];
    double a = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double b = 2.0 * (d[0] * f[0] + d[1] * f[1] + d[2] * f[2]);
    double cc = f[0] * f[0] + f[1] * f[1] + f[2] * f[2] - R * R;
    double disc = b * b - 4.0 * a * cc;
    /* Outside (cc ≥ 0), moving towards the centre (b < 0), on a line that meets it. */
    if (!(a > 0.0) || cc < 0.0 || !(b < 0.0) || disc < 0.0) return false;
    double q = 0.5 * (-b + sqrt(disc)); /* > 0 */
    double te = fmax(cc / q, 0.0);
    if (te > 1.0) return false;
    double at[3], len = 0.0;
    for (int k = 0; k < 3; k++) at[k] = f[k] + te * d[k], len += at[k] * at[k];
    len = sqrt(len);
    if (!(len > 0.0)) return false;
    for (int k = 0; k < 3; k++) n[k] = at[k] / len;
    *t = te;
    return true;
}

const weft_collider_type weft_collider_sphere = {
    .name = "sphere",
    .summary = "ball |p - center| >= radius outside",
    .smooth = true,
    .distance = sphere_distance,
    .segment_entry = sphere_segment_entry,
};
