/* capsule.c — a capsule collider: the points within r of the segment a → b.
 *   distance  s = a + τ d, d = b − a, τ = clamp((p − a)·d / d·d, 0, 1) the closest point of
 *             the segment; d(p) = |p − s| − r, normal (p − s)/|p − s| (on the axis: a unit
 *             vector across it);
 *   segment   the capsule is the union of the balls at a and b and the finite cylinder
 *             between them, so from a start outside all three its entry is the earliest
 *             entry into one: the balls as in sphere.c, the cylinder's side by the same
 *             quadratic on the components across the axis, kept where the hit lies
 *             between the ends (a path through a flat end is in a ball first);
 *   curvature S = (I − n̂n̂ᵀ − êêᵀ)/|p − s| beside the axis (ê = d/|d|), (I − n̂n̂ᵀ)/|p − s|
 *             beyond an end. */
#include "collider_internal.h"

#include <math.h>

enum { START = 0, END = 3, RADIUS = 6 }; /* where its keys sit in weft_collider.param */

static double dot(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The segment's parameter τ of the closest point to p, and p − s in w. */
static double closest(const weft_collider *c, const double p[3], double w[3]) {
    const double *a = &c->param[START], *b = &c->param[END];
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, f[3];
    for (int k = 0; k < 3; k++) f[k] = p[k] - a[k];
    double dd = dot(d, d), tau = dd > 0.0 ? fmin(fmax(dot(f, d) / dd, 0.0), 1.0) : 0.0;
    for (int k = 0; k < 3; k++) w[k] = f[k] - tau * d[k];
    return tau;
}

static double capsule_distance(const weft_collider *c, const double p[3], double n[3]) {
    double w[3];
    closest(c, p, w);
    double len = sqrt(dot(w, w));
    if (n) {
        if (len > 0.0) {
            for (int k = 0; k < 3; k++) n[k] = w[k] / len;
        } else { /* on the axis: +y, or +x for an axis along y */
            const double *a = &c->param[START], *b = &c->param[END];
            bool along_y = fabs(b[0] - a[0]) + fabs(b[2] - a[2]) == 0.0 && b[1] != a[1];
            n[0] = along_y, n[1] = !along_y, n[2] = 0.0;
        }
    }
    return len - c->param[RADIUS];
}

/* Smallest t in [0, 1] with |f + t v| = R from |f| ≥ R, moving inwards; false if none. */
static bool quadratic_entry(const double f[3], const double v[3], double R, double *t) {
    double aa = dot(v, v), bb = 2.0 * dot(f, v), cc = dot(f, f) - R * R;
    double disc = bb * bb - 4.0 * aa * cc;
    if (!(aa > 0.0) || cc < 0.0 || !(bb < 0.0) || disc < 0.0) return false;
    double q = 0.5 * (-bb + sqrt(disc)); /* > 0; cc / q avoids cancellation */
    *t = fmax(cc / q, 0.0);
    return *t <= 1.0;
}

static bool capsule_segment_entry(const weft_collider *c, const double x0[3],
                                  const double x1[3], double margin, double *t, double n[3]) {
    if (capsule_distance(c, x0, NULL) - margin < 0.0) return false; /* starts inside */
    const double *a = &c->param[START], *b = &c->param[END], R = c->param[RADIUS] + margin;
    double v[3], fa[3], fb[3], d[3], best = 2.0, te;
    for (int k = 0; k < 3; k++)
        v[k] = x1[k] - x0[k], fa[k] = x0[k] - a[k], fb[k] = x0[k] - b[k], d[k] = b[k] - a[k];
    if (quadratic_entry(fa, v, R, &te)) best = fmin(best, te);
    if (quadratic_entry(fb, v, R, &te)) best = fmin(best, te);
    double L = sqrt(dot(d, d));
    if (L > 0.0) {
        double e[3] = {d[0] / L, d[1] / L, d[2] / L}, fp[3], vp[3];
        double fe = dot(fa, e), ve = dot(v, e);
        for (int k = 0; k < 3; k++) fp[k] = fa[k] - fe * e[k], vp[k] = v[k] - ve * e[k];
        if (quadratic_entry(fp, vp, R, &te) && fe + te * ve >= 0.0 && fe + te * ve <= L)
            best = fmin(best, te);
    }
    if (best > 1.0) return false;
    double at[3];
    for (int k = 0; k < 3; k++) at[k] = x0[k] + best * v[k];
    capsule_distance(c, at, n);
    *t = best;
    return true;
}

static void capsule_curvature(const weft_collider *c, const double p[3], double S[9]) {
    double w[3], n[3], tau = closest(c, p, w), len = sqrt(dot(w, w));
    const double *a = &c->param[START], *b = &c->param[END];
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, L = sqrt(dot(d, d));
    bool side = tau > 0.0 && tau < 1.0 && L > 0.0;
    capsule_distance(c, p, n);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = (i == j) - n[i] * n[j] - (side ? d[i] * d[j] / (L * L) : 0.0);
            S[3 * i + j] = len > 0.0 ? s / len : 0.0;
        }
}

static const weft_collider_param capsule_params[] = {
    {.key = "start", .n = 3, .at = START, .unit = "m", .dflt = {0, -0.5, 0},
     .doc = "one end of its axis segment"},
    {.key = "end", .n = 3, .at = END, .unit = "m", .dflt = {0, 0.5, 0},
     .doc = "the other end of its axis segment"},
    {.key = "radius", .n = 1, .at = RADIUS, .unit = "m", .lo = 0, .hi = 1e9,
     .flags = WEFT_PARAM_LO_OPEN, .dflt = {0.25}, .doc = "its radius"},
    {.key = NULL},
};

const weft_collider_type weft_collider_capsule = {
    .name = "capsule",
    .summary = "points within radius of the segment start -> end",
    .smooth = true,
    .params = capsule_params,
    .distance = capsule_distance,
    .segment_entry = capsule_segment_entry,
    .curvature = capsule_curvature,
};
