/* ccd.c — continuous collision detection for cloth, vertex–face and edge–edge, after
 * Bridson, Fedkiw & Anderson 2002 §4 (slides "Defining the cubic", "Solving the cubic"),
 * with Provot 1997's linear motion. The bounds and choices in full:
 * papers/bridson2002-collisions.md ("Implementation notes: lib/collision/ccd.c").
 *
 * Points move as x_i(t) = x_i⁰ + t (x_i¹ − x_i⁰), t ∈ [0, 1]; four can touch only when
 *     f(t) = det(x1(t) − x0(t), x2(t) − x0(t), x3(t) − x0(t)) = 0,                  (1)
 * a cubic (weft_ccd_cubic; m³). A contact is a time at which the distance d(t) is ≤ η
 * (a distance rounding cannot tell from one ≤ η counts), and every contact lies in
 *     B = { t ∈ [0, 1] : |f(t)| ≤ τ },   τ = η N + ε_f,   N ≥ max_t |n(t)|,         (2)
 * found on each monotone piece between f's critical points by safeguarded regula falsi
 * (Illinois, a bisection every third step), the bracket end outside the band kept.
 *
 * On each band interval, branch and bound on time: a node [m − h, m + h] is discarded
 * when the larger of the lower bounds
 *     d(t) ≥ d(m) − δ(m) − V h,                                                      (3)
 *     d(t) ≥ (min |f| on the node) / (max |n| on the node)                           (4)
 * exceeds η; m is a contact when they allow d(m) ≤ η, and the left half is then searched
 * for an earlier one down to t_tol, so the first contact found is the earliest. V: the
 * largest relative speed of opposite points; δ(m) = 64 u (M + L + d + κ (L + d)) bounds
 * the rounding of d (u = 2^-53, κ the face's conditioning). A query that exhausts its
 * budget of distance evaluations, or 60 halvings, reports a contact with `assumed` set:
 * false positives are possible, false negatives are not.
 */
#include "weft_geometry.h"

#include "geometry_internal.h"

#include <math.h>

/* Deepest bisection of a band interval (2^-60 is below the resolution of t). */
enum { MAX_DEPTH = 60 };

/* Rounding-error bounds on f in units of R = u (M + L) L² (u = 2^-53; M the largest
 * coordinate, L the diagonal of the query's bounding box), with a safety factor of
 * about 1.5. f(t) evaluated from the positions at t: the interpolated positions are off
 * by 4 u M per coordinate, the relative vectors e_i by 14 u M + u |e_i| in length, so det
 * by 14 u M Σ|e_j||e_k| plus 10 u |e1||e2||e3| for the products (det4 computes this
 * bound from the actual lengths, doubled; at most 64 R). Each coefficient of the cubic
 * sums three triple products of vectors of length ≤ 2L, each off by 7 u (M + L): 256 R.
 * A Taylor expansion about m with those coefficients is off by at most 11 × 256 R × h on
 * [m − h, m + h], h ≤ 1. The band uses the evaluation error plus 12 × 256 R, the most by
 * which f can depart from monotone between computed critical points (coplanar_band). */
#define F_TAYLOR_ERR 2816.0
#define F_BAND_ERR 4096.0

weft_ccd_params weft_ccd_params_default(void) {
    return (weft_ccd_params){.eta = 1e-6, .t_tol = 1e-10, .max_nodes = 20000};
}

/* One query and what the search needs to know about it. */
typedef struct ccd_query {
    bool edge_edge;
    const double *x0, *x1; /* the four points at t = 0 and t = 1, 12 values each, m */
    weft_ccd_params prm;
    double lipschitz;    /* V in (3), m per unit t */
    double magnitude;    /* M: largest |coordinate|, m */
    double length;       /* L: diagonal of the bounding box of all eight points, m */
    double cubic[4];     /* coefficients of f, m³ */
    double f_unit;       /* R = u (M + L) L², the unit of f's rounding errors, m³ */
    double v1[3], v2[3]; /* velocities of the two normal edges (normal_edges), m */
    int nodes;           /* distance evaluations so far */
    bool assumed;        /* a contact was assumed, not found */
} ccd_query;

/* Positions of the four points at time t (12 values); exact at t = 0 and t = 1. */
static void positions_at(const ccd_query *q, double t, double x[12]) {
    for (int k = 0; k < 12; k++) x[k] = (1.0 - t) * q->x0[k] + t * q->x1[k];
}

/* The two vectors whose cross product is the normal of the query at positions x: the
 * face edges a − c, b − c (as in weft_point_triangle_closest) or the edges d1, d2. */
static void normal_edges(const ccd_query *q, const double x[12], double e1[3], double e2[3]) {
    if (q->edge_edge) {
        geom_sub(x + 3, x, e1);
        geom_sub(x + 9, x + 6, e2);
    } else {
        geom_sub(x + 3, x + 9, e1);
        geom_sub(x + 6, x + 9, e2);
    }
}

/* Distance (m) of the two primitives at positions x, with the signed weights of the
 * closest points (w, may be NULL) and the unit gap direction (dir, may be NULL). */
static double closest(const ccd_query *q, const double x[12], double w[4], double dir[3]) {
    double ww[4], d;
    if (q->edge_edge) {
        double s, u;
        d = weft_edge_edge_closest(x, x + 3, x + 6, x + 9, &s, &u, dir);
        ww[0] = 1.0 - s, ww[1] = s, ww[2] = -(1.0 - u), ww[3] = -u;
    } else {
        double b[3];
        d = weft_point_triangle_closest(x, x + 3, x + 6, x + 9, b, dir);
        ww[0] = 1.0, ww[1] = -b[0], ww[2] = -b[1], ww[3] = -b[2];
    }
    if (w)
        for (int i = 0; i < 4; i++) w[i] = ww[i];
    return d;
}

/* Distance (m) of the two primitives at time t (weights and direction as in closest). */
static double distance_at(const ccd_query *q, double t, double w[4], double dir[3]) {
    double x[12];
    positions_at(q, t, x);
    return closest(q, x, w, dir);
}

/* det(x1 − x0, x2 − x0, x3 − x0) of four points x (12 values), m³; with err != NULL
 * also a bound on its rounding error in *err, for positions interpolated from
 * coordinates of magnitude ≤ M (see "Rounding-error bounds on f" above). */
static double det4(const double x[12], double M, double *err) {
    double e1[3], e2[3], e3[3], n[3];
    geom_sub(x + 3, x, e1);
    geom_sub(x + 6, x, e2);
    geom_sub(x + 9, x, e3);
    geom_cross(e2, e3, n);
    if (err) {
        double l1 = geom_norm(e1), l2 = geom_norm(e2), l3 = geom_norm(e3);
        *err = 2.0 * GEOM_U * (14.0 * M * (l2 * l3 + l1 * l3 + l1 * l2) + 10.0 * l1 * l2 * l3);
    }
    return geom_dot(e1, n);
}

/* The coplanarity function (1) evaluated from the positions at t, which is more
 * accurate than the expanded cubic and exact at t = 0 and t = 1 up to one det, m³. */
static double coplanarity(const ccd_query *q, double t) {
    double x[12];
    positions_at(q, t, x);
    return det4(x, 0.0, NULL);
}

/* Scalar triple product a · (b × c). */
static double triple(const double *a, const double *b, const double *c) {
    double n[3];
    geom_cross(b, c, n);
    return geom_dot(a, n);
}

void weft_ccd_cubic(const double *x0, const double *x1, double c[4]) {
    /* x_i0 = x_i⁰ − x_0⁰ and v_i0 = (x_i¹ − x_i⁰) − (x_0¹ − x_0⁰), i = 1..3. */
    double x[3][3], v[3][3];
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) {
            x[i][k] = x0[3 * (i + 1) + k] - x0[k];
            v[i][k] = (x1[3 * (i + 1) + k] - x0[3 * (i + 1) + k]) - (x1[k] - x0[k]);
        }
    }
    c[3] = triple(v[0], v[1], v[2]);
    c[2] = triple(x[0], v[1], v[2]) + triple(v[0], x[1], v[2]) + triple(v[0], v[1], x[2]);
    c[1] = triple(x[0], x[1], v[2]) + triple(x[0], v[1], x[2]) + triple(v[0], x[1], x[2]);
    c[0] = triple(x[0], x[1], x[2]);
}

/* Roots of f'(t) = c1 + 2 c2 t + 3 c3 t² strictly inside (0, 1), ascending; returns how
 * many (0–2). Uses the cancellation-free form of the quadratic formula on coefficients
 * scaled to at most 1, so tiny leading coefficients just push a root far away. */
static int critical_points(const double c[4], double r[2]) {
    double qa = 3.0 * c[3], qb = 2.0 * c[2], qc = c[1];
    double scale = fmax(fabs(qa), fmax(fabs(qb), fabs(qc)));
    if (!(scale > 0.0) || !isfinite(scale)) return 0;
    qa /= scale, qb /= scale, qc /= scale;
    double roots[2];
    int n = 0;
    if (qa == 0.0) {
        if (qb != 0.0) roots[n++] = -qc / qb;
    } else {
        double disc = qb * qb - 4.0 * qa * qc;
        if (disc >= 0.0) {
            double h = -0.5 * (qb + copysign(sqrt(disc), qb));
            if (h != 0.0) {
                roots[n++] = h / qa;
                roots[n++] = qc / h;
            } else {
                roots[n++] = 0.0; /* qb = qc = 0: f' = 3 c3 t² */
            }
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (roots[i] > 0.0 && roots[i] < 1.0) r[m++] = roots[i];
    if (m == 2 && r[0] > r[1]) {
        double tmp = r[0];
        r[0] = r[1], r[1] = tmp;
    }
    return m;
}

/* On [lo, hi], where g(t) = f(t) − level has opposite signs glo, ghi at the ends, narrows
 * the bracket around the crossing to width t_tol and returns its left end (left = true)
 * or right end, i.e. the end that keeps the computed band a superset of the true one. */
static double crossing(const ccd_query *q, double level, double lo, double glo, double hi,
                       double ghi, bool left) {
    if (glo == 0.0) return lo;
    if (ghi == 0.0) return hi;
    int kept = 0; /* which end survived the last step: -1 lo, +1 hi (Illinois) */
    for (int it = 0; it < 200 && hi - lo > q->prm.t_tol; it++) {
        double m = it % 3 == 2 ? 0.5 * (lo + hi) : (lo * ghi - hi * glo) / (ghi - glo);
        if (!(m > lo && m < hi)) m = 0.5 * (lo + hi);
        double gm = coplanarity(q, m) - level;
        if (gm == 0.0) return m;
        if ((gm > 0.0) == (glo > 0.0)) {
            lo = m, glo = gm;
            if (kept == 1) ghi *= 0.5; /* hi kept twice: halve its value (Illinois) */
            kept = 1;
        } else {
            hi = m, ghi = gm;
            if (kept == -1) glo *= 0.5;
            kept = -1;
        }
    }
    return left ? lo : hi;
}

/* The band (2) as at most three disjoint intervals, ascending; returns how many. */
static int coplanar_band(const ccd_query *q, double tau, double band[3][2]) {
    double crit[2];
    int ncrit = critical_points(q->cubic, crit);
    double cut[4], f[4];
    int ncut = 0;
    cut[ncut++] = 0.0;
    for (int i = 0; i < ncrit; i++) cut[ncut++] = crit[i];
    cut[ncut++] = 1.0;
    for (int i = 0; i < ncut; i++) f[i] = coplanarity(q, cut[i]);

    int nb = 0;
    for (int i = 0; i + 1 < ncut; i++) {
        double a = cut[i], b = cut[i + 1], fa = f[i], fb = f[i + 1];
        if ((fa > tau && fb > tau) || (fa < -tau && fb < -tau)) continue; /* monotone: no */
        double lo = a, hi = b;
        if (fabs(fa) > tau) {
            double level = fa > 0.0 ? tau : -tau;
            lo = crossing(q, level, a, fa - level, b, fb - level, true);
        }
        if (fabs(fb) > tau) {
            double level = fb > 0.0 ? tau : -tau;
            hi = crossing(q, level, a, fa - level, b, fb - level, false);
        }
        if (nb > 0 && lo <= band[nb - 1][1]) {
            band[nb - 1][1] = hi; /* continues the previous piece's interval */
        } else {
            band[nb][0] = lo, band[nb][1] = hi;
            nb++;
        }
    }
    return nb;
}

/* Lower bounds on the distance near time m (m), in *at_m for m itself and in *on_node
 * for all of [m − h, m + h]; returns the computed distance d(m). Each is the larger of
 *   - the Lipschitz bound (3), d(m) − δ(m) − V h, and
 *   - the plane bound d ≥ |f| / |n| (distance to the face's plane, or between the edges'
 *     lines), with |f| bounded below by f's exact Taylor expansion about m (a cubic) and
 *     |n(t)| = |e1(t) × e2(t)| above by its own (a quadratic), less rounding errors.
 * The plane bound follows the normal approach speed instead of V, which keeps the search
 * short when the primitives slide fast but close in slowly. *at_m ≤ η means that d(m)
 * cannot be told apart from a distance ≤ η: a contact. */
static double bound_distance(const ccd_query *q, double m, double h, double *at_m,
                             double *on_node) {
    double x[12], e1[3], e2[3], n[3];
    positions_at(q, m, x);
    double d = closest(q, x, NULL, NULL);
    normal_edges(q, x, e1, e2);
    geom_cross(e1, e2, n);
    double l1 = geom_norm(e1), l2 = geom_norm(e2), ln = geom_norm(n);

    /* δ(m): rounding of the positions and of the closest-point solve (see the top). */
    double err = 64.0 * GEOM_U * (q->magnitude + q->length + d);
    if (ln > GEOM_DEGENERATE_SINE * l1 * l2)
        err += 64.0 * GEOM_U * (l1 * l2 / ln) * (q->length + d);
    else
        err += ln / fmax(fmax(l1, l2), DBL_MIN);
    *at_m = d - err;
    *on_node = d - err - q->lipschitz * h;

    /* |f(t)| ≥ |f(m)| − |f'(m)| h − |f''(m)|/2 h² − |c3| h³ on the node. */
    const double *c = q->cubic;
    double f_err, f = det4(x, q->magnitude, &f_err);
    f = fabs(f) - f_err;
    double f1 = c[1] + m * (2.0 * c[2] + 3.0 * c[3] * m), f2 = 2.0 * c[2] + 6.0 * c[3] * m;
    double fmin = f - h * (fabs(f1) + F_TAYLOR_ERR * q->f_unit +
                           h * (0.5 * fabs(f2) + h * fabs(c[3])));
    if (f > 0.0) {
        /* n(m + s) = n(m) + s (v1 × e2 + e1 × v2) + s² (v1 × v2), |s| ≤ h. */
        double a[3], b[3], n1[3], n2[3];
        geom_cross(q->v1, e2, a);
        geom_cross(e1, q->v2, b);
        for (int k = 0; k < 3; k++) n1[k] = a[k] + b[k];
        geom_cross(q->v1, q->v2, n2);
        double n0 = ln + 16.0 * GEOM_U * l1 * l2;
        double nmax = ln + h * (geom_norm(n1) + h * geom_norm(n2)) +
                      16.0 * GEOM_U * (l1 + h * geom_norm(q->v1)) * (l2 + h * geom_norm(q->v2));
        if (n0 > 0.0) *at_m = fmax(*at_m, f / n0);
        if (fmin > 0.0 && nmax > 0.0) *on_node = fmax(*on_node, fmin / nmax);
    }
    return d;
}

/* Branch and bound with (3) and (4) on [lo, hi]: true with the earliest contact time in *t. */
static bool search(ccd_query *q, double lo, double hi, int depth, double *t) {
    if (q->nodes >= q->prm.max_nodes || depth >= MAX_DEPTH) {
        q->assumed = true; /* undecided: conservatively a contact */
        *t = lo;
        return true;
    }
    q->nodes++;
    double m = 0.5 * (lo + hi), at_m, on_node;
    bound_distance(q, m, 0.5 * (hi - lo), &at_m, &on_node);
    if (on_node > q->prm.eta) return false;
    if (at_m <= q->prm.eta) {
        if (m - lo > q->prm.t_tol && search(q, lo, m, depth + 1, t)) return true;
        *t = m;
        return true;
    }
    return search(q, lo, m, depth + 1, t) || search(q, m, hi, depth + 1, t);
}

/* Fills hit at time t: distance, weights and the contact normal (see weft_ccd_hit). */
static void describe_contact(const ccd_query *q, double t, weft_ccd_hit *hit) {
    double gap_dir[3], x[12], e1[3], e2[3], n[3], rel[3] = {0, 0, 0};
    hit->t = t;
    hit->assumed = q->assumed;
    hit->dist = distance_at(q, t, hit->w, gap_dir);
    /* Displacement of the gap over the step: Σ w_i (x_i¹ − x_i⁰). */
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++) rel[k] += hit->w[i] * (q->x1[3 * i + k] - q->x0[3 * i + k]);
    positions_at(q, t, x);
    normal_edges(q, x, e1, e2);
    geom_cross(e1, e2, n);
    if (geom_norm(n) > GEOM_DEGENERATE_SINE * geom_norm(e1) * geom_norm(e2)) {
        geom_normalize(n, hit->n);
        double approach = geom_dot(hit->n, rel);
        if (approach > 0.0 || (approach == 0.0 && geom_dot(hit->n, gap_dir) < 0.0))
            for (int k = 0; k < 3; k++) hit->n[k] = -hit->n[k];
    } else if (hit->dist > 0.0) {
        for (int k = 0; k < 3; k++) hit->n[k] = gap_dir[k];
    } else {
        for (int k = 0; k < 3; k++) rel[k] = -rel[k];
        geom_normalize(rel, hit->n);
    }
}

/* The common driver of both queries. */
static bool ccd(const double *x0, const double *x1, bool edge_edge, const weft_ccd_params *prm,
                weft_ccd_hit *hit) {
    ccd_query q = {.edge_edge = edge_edge, .x0 = x0, .x1 = x1, .prm = *prm};

    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < 3; k++) {
            double a = x0[3 * i + k], b = x1[3 * i + k];
            q.magnitude = fmax(q.magnitude, fmax(fabs(a), fabs(b)));
            lo[k] = fmin(lo[k], fmin(a, b));
            hi[k] = fmax(hi[k], fmax(a, b));
        }
    }
    double diag[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    q.length = geom_norm(diag);

    /* V: the largest relative displacement of a point of one primitive against a point
     * of the other (vertex–face: p against a, b, c; edge–edge: p_i against q_j). */
    int first_end = edge_edge ? 2 : 1;
    for (int i = 0; i < first_end; i++) {
        for (int j = first_end; j < 4; j++) {
            double dv[3];
            for (int k = 0; k < 3; k++)
                dv[k] = (x1[3 * i + k] - x0[3 * i + k]) - (x1[3 * j + k] - x0[3 * j + k]);
            q.lipschitz = fmax(q.lipschitz, geom_norm(dv));
        }
    }

    /* N ≥ |n(t)|: n is a cross product of two vectors that move linearly, so each
     * factor's length is largest at t = 0 or t = 1. */
    double a1[3], a2[3], b1[3], b2[3];
    normal_edges(&q, x0, a1, a2);
    normal_edges(&q, x1, b1, b2);
    double big1 = fmax(geom_norm(a1), geom_norm(b1)), big2 = fmax(geom_norm(a2), geom_norm(b2));
    geom_sub(b1, a1, q.v1);
    geom_sub(b2, a2, q.v2);
    q.f_unit = GEOM_U * (q.magnitude + q.length) * q.length * q.length;
    double tau = q.prm.eta * big1 * big2 + F_BAND_ERR * q.f_unit;
    weft_ccd_cubic(x0, x1, q.cubic);

    double band[3][2], t;
    int nb = coplanar_band(&q, tau, band);
    for (int i = 0; i < nb; i++) {
        double at_lo, unused;
        q.nodes++;
        bound_distance(&q, band[i][0], 0.0, &at_lo, &unused);
        bool found = at_lo <= q.prm.eta;
        if (found)
            t = band[i][0];
        else
            found = search(&q, band[i][0], band[i][1], 0, &t);
        if (found) {
            if (hit) describe_contact(&q, t, hit);
            return true;
        }
    }
    return false;
}

bool weft_ccd_vertex_face(const double *x0, const double *x1, const weft_ccd_params *prm,
                          weft_ccd_hit *hit) {
    return ccd(x0, x1, false, prm, hit);
}

bool weft_ccd_edge_edge(const double *x0, const double *x1, const weft_ccd_params *prm,
                        weft_ccd_hit *hit) {
    return ccd(x0, x1, true, prm, hit);
}
