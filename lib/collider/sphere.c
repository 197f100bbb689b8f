/* sphere.c — a ball collider of centre c and radius r.
 *   distance  d(p) = |p − c| − r, normal (p − c)/|p − c| (+y at the centre);
 *   segment   |f + t d| = R, f = x0 − c, d = x1 − x0, R = r + margin: the smaller root of
 *             a t² + b t + cc = 0 (a = d·d, b = 2 d·f, cc = f·f − R²), taken as cc / q with
 *             q = (−b + √(b² − 4 a cc))/2 to avoid cancellation (Press et al. §5.6);
 *   spin      it turns about its centre at angular velocity ω (rad/s, axis times rate): its
 *             surface moves at ω × (p − c), tangentially, so its shape never changes and
 *             only friction sees it (Bridson et al. 2002's spinning-sphere drape). */
#include "collider_internal.h"

#include <math.h>

enum { CENTER = 0, RADIUS = 3, OMEGA = 4 }; /* where its keys sit in weft_collider.param */

static double sphere_distance(const weft_collider *c, const double p[3], double n[3]) {
    const double *ctr = &c->param[CENTER];
    double d[3] = {p[0] - ctr[0], p[1] - ctr[1], p[2] - ctr[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (n) {
        if (len > 0.0) {
            for (int k = 0; k < 3; k++) n[k] = d[k] / len;
        } else { /* at the centre every direction is closest: pick +y (up) */
            n[0] = 0.0, n[1] = 1.0, n[2] = 0.0;
        }
    }
    return len - c->param[RADIUS];
}

static bool sphere_segment_entry(const weft_collider *c, const double x0[3],
                                 const double x1[3], double margin, double *t, double n[3]) {
    double d[3], f[3], R = c->param[RADIUS] + margin;
    for (int k = 0; k < 3; k++) d[k] = x1[k] - x0[k], f[k] = x0[k] - c->param[CENTER + k];
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

/* S = (I − n̂n̂ᵀ)/|p − c|: the sphere through p about c (zero at the centre). */
static void sphere_curvature(const weft_collider *c, const double p[3], double S[9]) {
    double n[3], len = sphere_distance(c, p, n) + c->param[RADIUS];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            S[3 * i + j] = len > 0.0 ? ((i == j) - n[i] * n[j]) / len : 0.0;
}

/* w = ω × (p − c): the spinning surface's velocity at p. */
static void sphere_spin(const weft_collider *c, const double p[3], double w[3]) {
    const double *o = &c->param[OMEGA], *ctr = &c->param[CENTER];
    double r[3] = {p[0] - ctr[0], p[1] - ctr[1], p[2] - ctr[2]};
    w[0] = o[1] * r[2] - o[2] * r[1];
    w[1] = o[2] * r[0] - o[0] * r[2];
    w[2] = o[0] * r[1] - o[1] * r[0];
}

static const weft_collider_param sphere_params[] = {
    {.key = "center", .n = 3, .at = CENTER, .unit = "m", .doc = "its centre"},
    {.key = "radius", .n = 1, .at = RADIUS, .unit = "m", .lo = 0, .hi = 1e9,
     .flags = WEFT_PARAM_LO_OPEN, .dflt = {0.5}, .doc = "its radius"},
    {.key = "angular_velocity", .n = 3, .at = OMEGA, .unit = "rad/s",
     .doc = "spin about its centre, axis times rate: its surface moves at w x (p - center), "
            "which friction sees"},
    {.key = NULL},
};

const weft_collider_type weft_collider_sphere = {
    .name = "sphere",
    .summary = "ball |p - center| >= radius outside",
    .smooth = true,
    .params = sphere_params,
    .distance = sphere_distance,
    .segment_entry = sphere_segment_entry,
    .curvature = sphere_curvature,
    .spin = sphere_spin,
};
