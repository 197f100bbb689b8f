/* box.c — an axis-aligned box collider, centre c and half extents h.
 *   distance  with q = |p − c| − h per axis: outside (some q_k > 0) |max(q, 0)|, the normal
 *             pointing from the closest point of the box to p (a face, edge or corner
 *             region); inside max_k q_k ≤ 0, the nearest face's, normal ±e_k. Ties go to
 *             the lowest axis, and a point on the centre plane of that axis to its + face.
 *   segment   slab test (Kay & Kajiya 1986) on the sharp-cornered box grown by the margin,
 *             a superset of the rounded one, so a fast vertex cannot pass through a thin
 *             box within one step; the entry face gives the normal.
 * Not smooth: a single normal cannot stand for it at an edge or corner, so the implicit
 * solvers leave boxes to the collision pipeline. */
#include "collider_internal.h"

#include <math.h>

enum { CENTER = 0, HALF = 3 }; /* where its keys sit in weft_collider.param */

static double box_distance(const weft_collider *c, const double p[3], double n[3]) {
    const double *h = &c->param[HALF];
    double d[3], q[3], out2 = 0.0;
    int face = 0;
    for (int k = 0; k < 3; k++) {
        d[k] = p[k] - c->param[CENTER + k];
        q[k] = fabs(d[k]) - h[k];
        if (q[k] > 0.0) out2 += q[k] * q[k];
        if (q[k] > q[face]) face = k;
    }
    if (out2 > 0.0) {
        double len = sqrt(out2);
        if (n)
            for (int k = 0; k < 3; k++) n[k] = q[k] > 0.0 ? copysign(q[k], d[k]) / len : 0.0;
        return len;
    }
    if (n) {
        for (int k = 0; k < 3; k++) n[k] = 0.0;
        n[face] = d[face] < 0.0 ? -1.0 : 1.0;
    }
    return q[face];
}

static bool box_segment_entry(const weft_collider *c, const double x0[3], const double x1[3],
                              double margin, double *t, double n[3]) {
    double te = 0.0, tx = 1.0, sgn = 0.0;
    int axis = -1;
    for (int k = 0; k < 3 && te <= tx; k++) {
        double lo = c->param[CENTER + k] - c->param[HALF + k] - margin;
        double hi = c->param[CENTER + k] + c->param[HALF + k] + margin, d = x1[k] - x0[k];
        if (d == 0.0) {
            if (x0[k] < lo || x0[k] > hi) tx = -1.0; /* parallel and outside the slab */
            continue;
        }
        double ta = (lo - x0[k]) / d, tb = (hi - x0[k]) / d;
        double tin = fmin(ta, tb), tout = fmax(ta, tb);
        if (tin > te) te = tin, axis = k, sgn = d > 0.0 ? -1.0 : 1.0;
        tx = fmin(tx, tout);
    }
    if (axis < 0 || te > tx) return false; /* starts inside (no entry face) or misses */
    for (int k = 0; k < 3; k++) n[k] = k == axis ? sgn : 0.0;
    *t = te;
    return true;
}

/* Outside, S = (P − n̂n̂ᵀ)/|q₊| with P the projector on the axes where p lies beyond a
 * face (zero in a face region); inside, zero. */
static void box_curvature(const weft_collider *c, const double p[3], double S[9]) {
    double n[3], d = box_distance(c, p, n);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double out = fabs(p[i] - c->param[CENTER + i]) > c->param[HALF + i];
            S[3 * i + j] = d > 0.0 ? ((i == j) * out - n[i] * n[j]) / d : 0.0;
        }
}

static const weft_collider_param box_params[] = {
    {.key = "center", .n = 3, .at = CENTER, .unit = "m", .doc = "its centre"},
    {.key = "half_extents", .n = 3, .at = HALF, .unit = "m", .lo = 0, .hi = 1e9,
     .flags = WEFT_PARAM_LO_OPEN, .dflt = {0.5, 0.5, 0.5}, .each = "half extent",
     .doc = "half its size along x, y, z"},
    {.key = NULL},
};

const weft_collider_type weft_collider_box = {
    .name = "box",
    .summary = "axis-aligned box, center +- half_extents",
    .smooth = false,
    .params = box_params,
    .distance = box_distance,
    .segment_entry = box_segment_entry,
    .curvature = box_curvature,
};
