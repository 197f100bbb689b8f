/* geometry.c — closest points and triangle–triangle intersection for cloth collisions,
 * after Bridson, Fedkiw & Anderson 2002, §4 "Proximity detection" (slides "Point-Triangle
 * Proximity", "Edge-Edge Proximity"). Lengths in m. The choices explained:
 * papers/bridson2002-collisions.md ("Implementation notes: lib/collision/geometry.c").
 *
 * Point–triangle: e1 = a − c, e2 = b − c, r = p − c, n = e1 × e2; the plane's closest
 * point q = wa a + wb b + wc c (wc = 1 − wa − wb) solves the normal equations
 *     [ e1·e1  e1·e2 ] [wa]   [ e1·r ]
 *     [ e1·e2  e2·e2 ] [wb] = [ e2·r ],   wa = n·(r × e2)/|n|²,  wb = n·(e1 × r)/|n|²
 * (Lagrange's identity: no cancellation). With a negative weight, or a degenerate
 * triangle (|n| ≤ 1e-8 |e1||e2|), it is the nearest of the three edges' closest points.
 *
 * Edge–edge: segments p0 + s d1 and q0 + u d2, r = p0 − q0, n = d1 × d2:
 *     s = n·(d2 × r)/|n|²,  u = n·(d1 × r)/|n|²;
 * outside [0, 1]² (or parallel, or of zero length) the minimum of the convex quadratic
 * lies on the square's boundary: four point–segment queries.
 *
 * Intersection: orientation signs with Shewchuk's (1997) static error bounds (within the
 * bound counts as zero). Two closed triangles intersect when an edge of one meets the
 * other; a segment meets a triangle when its ends are not strictly on one side of the
 * plane and orient(p, q, ·, ·) agree on the triangle's three edges. Coplanar cases and
 * untrustworthy signs are decided in 2-D, in the coordinate plane the triangle projects
 * onto largest.
 */
#include "weft_geometry.h"

#include "geometry_internal.h"

#include <math.h>

/* ------------------------------------------------------------------------------ */
/* Closest points                                                                  */
/* ------------------------------------------------------------------------------ */

/* Distance from p to the segment ab; *t ∈ [0, 1] is the parameter of the closest point
 * a + t (b − a) (0 for a zero-length segment). */
static double point_segment(const double *p, const double *a, const double *b, double *t) {
    double d[3], r[3];
    geom_sub(b, a, d);
    geom_sub(p, a, r);
    double dd = geom_dot(d, d);
    double s = dd > 0.0 ? geom_dot(r, d) / dd : 0.0;
    s = fmin(fmax(s, 0.0), 1.0);
    *t = s;
    double q[3] = {a[0] + s * d[0], a[1] + s * d[1], a[2] + s * d[2]};
    return geom_dist(p, q);
}

/* True when |n| is too small against |e1||e2| to define a plane (see GEOM_DEGENERATE_SINE). */
static bool degenerate(double nn, double l1, double l2) {
    return !(nn > GEOM_DEGENERATE_SINE * GEOM_DEGENERATE_SINE * l1 * l2);
}

double weft_point_triangle_closest(const double p[3], const double a[3], const double b[3],
                                   const double c[3], double bary[3], double dir[3]) {
    double e1[3], e2[3], r[3], n[3];
    geom_sub(a, c, e1);
    geom_sub(b, c, e2);
    geom_sub(p, c, r);
    geom_cross(e1, e2, n);
    double nn = geom_dot(n, n);
    bool flat = degenerate(nn, geom_dot(e1, e1), geom_dot(e2, e2));
    double w[3] = {0, 0, 0}, dist = INFINITY;
    bool inside = false;

    if (!flat) {
        double rxe2[3], e1xr[3];
        geom_cross(r, e2, rxe2);
        geom_cross(e1, r, e1xr);
        double wa = geom_dot(n, rxe2) / nn, wb = geom_dot(n, e1xr) / nn;
        double wc = 1.0 - wa - wb;
        inside = wa >= 0.0 && wb >= 0.0 && wc >= 0.0;
        if (inside) w[0] = wa, w[1] = wb, w[2] = wc;
    }
    if (!inside) {
        /* Outside (or degenerate): the nearest of the three edges. */
        const double *corner[3] = {a, b, c};
        for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3;
            double t, d = point_segment(p, corner[i], corner[j], &t);
            if (d < dist) {
                dist = d;
                w[0] = w[1] = w[2] = 0.0;
                w[i] = 1.0 - t;
                w[j] = t;
            }
        }
    }
    /* Distance and direction from one and the same closest point, so that dir is a unit
     * vector even when the distance is at the level of rounding. */
    double q[3];
    for (int k = 0; k < 3; k++) q[k] = w[0] * a[k] + w[1] * b[k] + w[2] * c[k];
    dist = geom_dist(p, q);
    if (bary)
        for (int i = 0; i < 3; i++) bary[i] = w[i];
    if (dir) {
        if (dist > 0.0) {
            for (int k = 0; k < 3; k++) dir[k] = (p[k] - q[k]) / dist;
        } else if (!flat) {
            geom_normalize(n, dir);
        } else {
            dir[0] = dir[1] = dir[2] = 0.0;
        }
    }
    return dist;
}

double weft_edge_edge_closest(const double p0[3], const double p1[3], const double q0[3],
                              const double q1[3], double *s, double *u, double dir[3]) {
    double d1[3], d2[3], r[3], n[3];
    geom_sub(p1, p0, d1);
    geom_sub(q1, q0, d2);
    geom_sub(p0, q0, r);
    geom_cross(d1, d2, n);
    double nn = geom_dot(n, n);
    bool parallel = degenerate(nn, geom_dot(d1, d1), geom_dot(d2, d2));
    double bs = 0.0, bu = 0.0, dist = INFINITY;
    bool inside = false; /* the lines' closest pair lies on both segments */

    if (!parallel) {
        double d2xr[3], d1xr[3];
        geom_cross(d2, r, d2xr);
        geom_cross(d1, r, d1xr);
        double ss = geom_dot(n, d2xr) / nn, uu = geom_dot(n, d1xr) / nn;
        inside = ss >= 0.0 && ss <= 1.0 && uu >= 0.0 && uu <= 1.0;
        if (inside) bs = ss, bu = uu;
    }
    if (!inside) {
        /* The minimum is on a side of the parameter square: an endpoint of one edge
         * against the other edge. */
        double t, d;
        if ((d = point_segment(p0, q0, q1, &t)) < dist) dist = d, bs = 0.0, bu = t;
        if ((d = point_segment(p1, q0, q1, &t)) < dist) dist = d, bs = 1.0, bu = t;
        if ((d = point_segment(q0, p0, p1, &t)) < dist) dist = d, bs = t, bu = 0.0;
        if ((d = point_segment(q1, p0, p1, &t)) < dist) dist = d, bs = t, bu = 1.0;
    }
    double cp[3], cq[3]; /* one pair of closest points for the distance and dir */
    for (int k = 0; k < 3; k++) cp[k] = p0[k] + bs * d1[k], cq[k] = q0[k] + bu * d2[k];
    dist = geom_dist(cp, cq);
    if (s) *s = bs;
    if (u) *u = bu;
    if (dir) {
        if (dist > 0.0) {
            for (int k = 0; k < 3; k++) dir[k] = (cp[k] - cq[k]) / dist;
        } else if (!parallel) {
            geom_normalize(n, dir);
        } else {
            dir[0] = dir[1] = dir[2] = 0.0;
        }
    }
    return dist;
}

/* ------------------------------------------------------------------------------ */
/* Orientation predicates                                                          */
/* ------------------------------------------------------------------------------ */

int weft_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]) {
    /* Shewchuk's orient3d(a, b, c, d) = det(a − d, b − d, c − d) = −det(b − a, c − a, d − a),
     * with his bound (7 + 56u) u × permanent on its rounding error (errboundA). */
    double adx = a[0] - d[0], ady = a[1] - d[1], adz = a[2] - d[2];
    double bdx = b[0] - d[0], bdy = b[1] - d[1], bdz = b[2] - d[2];
    double cdx = c[0] - d[0], cdy = c[1] - d[1], cdz = c[2] - d[2];
    double bc = bdy * cdz, cb = bdz * cdy, ca = cdy * adz, ac = cdz * ady, ab = ady * bdz,
           ba = adz * bdy;
    double det = adx * (bc - cb) + bdx * (ca - ac) + cdx * (ab - ba);
    double permanent = (fabs(bc) + fabs(cb)) * fabs(adx) + (fabs(ca) + fabs(ac)) * fabs(bdx) +
                       (fabs(ab) + fabs(ba)) * fabs(cdx);
    double bound = (7.0 + 56.0 * GEOM_U) * GEOM_U * permanent;
    if (det > bound) return -1;
    if (det < -bound) return 1;
    return 0;
}

/* Sign of the 2-D orientation of a, b, c in the coordinate plane (i, j): +1 when
 * counter-clockwise, 0 within Shewchuk's error bound (3 + 16u) u (ccwerrboundA). */
static int orient2d(const double *a, const double *b, const double *c, int i, int j) {
    double left = (a[i] - c[i]) * (b[j] - c[j]);
    double right = (a[j] - c[j]) * (b[i] - c[i]);
    double det = left - right;
    double bound = (3.0 + 16.0 * GEOM_U) * GEOM_U * (fabs(left) + fabs(right));
    if (det > bound) return 1;
    if (det < -bound) return -1;
    return 0;
}

/* ------------------------------------------------------------------------------ */
/* Segment and triangle intersection                                               */
/* ------------------------------------------------------------------------------ */

/* A coordinate plane for 2-D tests: the axes (i, j) left after dropping one. */
typedef struct plane2 {
    int i, j;
} plane2;

/* The coordinate plane onto which a plane with normal n projects largest. */
static plane2 plane_for_normal(const double *n) {
    int k = 0;
    if (fabs(n[1]) > fabs(n[k])) k = 1;
    if (fabs(n[2]) > fabs(n[k])) k = 2;
    return (plane2){(k + 1) % 3, (k + 2) % 3};
}

/* True when x lies in the bounding box of segment pq (in plane pl). */
static bool in_box(const double *p, const double *q, const double *x, plane2 pl) {
    return fmin(p[pl.i], q[pl.i]) <= x[pl.i] && x[pl.i] <= fmax(p[pl.i], q[pl.i]) &&
           fmin(p[pl.j], q[pl.j]) <= x[pl.j] && x[pl.j] <= fmax(p[pl.j], q[pl.j]);
}

/* Closed segments pq and ab intersect in the plane pl (either may be a point). */
static bool seg_seg_2d(const double *p, const double *q, const double *a, const double *b,
                       plane2 pl) {
    int o1 = orient2d(p, q, a, pl.i, pl.j), o2 = orient2d(p, q, b, pl.i, pl.j);
    int o3 = orient2d(a, b, p, pl.i, pl.j), o4 = orient2d(a, b, q, pl.i, pl.j);
    if (o1 * o2 < 0 && o3 * o4 < 0) return true; /* proper crossing */
    /* Touching: an endpoint on the other segment (collinear and within its box). */
    return (o1 == 0 && in_box(p, q, a, pl)) || (o2 == 0 && in_box(p, q, b, pl)) ||
           (o3 == 0 && in_box(a, b, p, pl)) || (o4 == 0 && in_box(a, b, q, pl));
}

/* Closed segment pq meets closed triangle abc, all in the plane pl. */
static bool seg_tri_2d(const double *p, const double *q, const double *a, const double *b,
                       const double *c, plane2 pl) {
    int area = orient2d(a, b, c, pl.i, pl.j);
    if (area != 0) {
        /* An endpoint inside (no two of the edge signs disagree). */
        const double *ends[2] = {p, q};
        for (int e = 0; e < 2; e++) {
            int s1 = orient2d(a, b, ends[e], pl.i, pl.j), s2 = orient2d(b, c, ends[e], pl.i, pl.j),
                s3 = orient2d(c, a, ends[e], pl.i, pl.j);
            bool neg = s1 < 0 || s2 < 0 || s3 < 0, pos = s1 > 0 || s2 > 0 || s3 > 0;
            if (!(neg && pos)) return true;
        }
    }
    /* Otherwise the segment must cross the boundary (a degenerate triangle is only its
     * boundary). */
    return seg_seg_2d(p, q, a, b, pl) || seg_seg_2d(p, q, b, c, pl) || seg_seg_2d(p, q, c, a, pl);
}

/* The coordinate plane for 2-D tests on four coplanar points: the largest of their
 * normals decides; if all four are collinear, the plane that keeps the line's largest
 * component. */
static plane2 plane_for_points(const double *p, const double *q, const double *a,
                               const double *b) {
    const double *pts[4] = {p, q, a, b};
    double normal[3] = {0, 0, 0}, line[3] = {0, 0, 0};
    for (int i = 0; i < 4; i++) {
        for (int j = i + 1; j < 4; j++) {
            double e[3];
            geom_sub(pts[j], pts[i], e);
            if (geom_dot(e, e) > geom_dot(line, line))
                for (int k = 0; k < 3; k++) line[k] = e[k];
            for (int l = j + 1; l < 4; l++) {
                double f[3], n[3];
                geom_sub(pts[l], pts[i], f);
                geom_cross(e, f, n);
                if (geom_dot(n, n) > geom_dot(normal, normal))
                    for (int k = 0; k < 3; k++) normal[k] = n[k];
            }
        }
    }
    if (geom_dot(normal, normal) > 0.0) return plane_for_normal(normal);
    /* Collinear: drop the axis along which the line varies least. */
    int k = 0;
    if (fabs(line[1]) < fabs(line[k])) k = 1;
    if (fabs(line[2]) < fabs(line[k])) k = 2;
    return (plane2){(k + 1) % 3, (k + 2) % 3};
}

/* Closed segments pq and ab intersect in 3-D. */
static bool seg_seg_3d(const double *p, const double *q, const double *a, const double *b) {
    if (weft_orient3d(p, q, a, b) != 0) return false; /* skew lines never meet */
    return seg_seg_2d(p, q, a, b, plane_for_points(p, q, a, b));
}

/* True when a, b, c are collinear (every coordinate projection has zero area). */
static bool collinear(const double *a, const double *b, const double *c) {
    return orient2d(a, b, c, 1, 2) == 0 && orient2d(a, b, c, 2, 0) == 0 &&
           orient2d(a, b, c, 0, 1) == 0;
}

/* Closed segment pq meets closed triangle abc in 3-D. */
static bool seg_tri_3d(const double *p, const double *q, const double *a, const double *b,
                       const double *c) {
    if (collinear(a, b, c))
        return seg_seg_3d(p, q, a, b) || seg_seg_3d(p, q, b, c) || seg_seg_3d(p, q, c, a);
    int sp = weft_orient3d(a, b, c, p), sq = weft_orient3d(a, b, c, q);
    if (sp == 0 && sq == 0) {
        double e1[3], e2[3], n[3];
        geom_sub(b, a, e1);
        geom_sub(c, a, e2);
        geom_cross(e1, e2, n);
        return seg_tri_2d(p, q, a, b, c, plane_for_normal(n));
    }
    if (sp * sq > 0) return false; /* both ends strictly on one side */
    double e1[3], e2[3], n[3];
    geom_sub(b, a, e1);
    geom_sub(c, a, e2);
    geom_cross(e1, e2, n);
    if (sp == 0 || sq == 0) {
        /* One end on the plane (up to rounding), the other off it: the segment meets the
         * plane only at that end, so it meets the triangle exactly when that end lies in
         * it, which is decided in 2-D. (The line test below could not: see there.) */
        const double *on = sp == 0 ? p : q;
        return seg_tri_2d(on, on, a, b, c, plane_for_normal(n));
    }
    /* The segment crosses the plane; its line passes through the closed triangle when
     * the three signs (proportional to the barycentric coordinates of the crossing
     * point) do not disagree. */
    int s1 = weft_orient3d(p, q, a, b), s2 = weft_orient3d(p, q, b, c),
        s3 = weft_orient3d(p, q, c, a);
    bool neg = s1 < 0 || s2 < 0 || s3 < 0, pos = s1 > 0 || s2 > 0 || s3 > 0;
    if (neg && pos) return false;
    if (s1 != 0 && s2 != 0 && s3 != 0) return true;
    /* A zero sign means either that the line passes through an edge or a corner (the
     * triangles touch), or that the segment lies so nearly in the plane that the signs
     * cannot be told from zero, wherever it is: counting the latter as touching would
     * report triangles that are coplanar but apart (e.g. two triangles of a flat cloth
     * in a plane that holds a coordinate axis) as intersecting. Where the segment meets
     * the triangle in the plane's projection decides both cases: the crossing point
     * lies on the segment, and a segment that close to the plane is within rounding of
     * it along its length. */
    return seg_tri_2d(p, q, a, b, c, plane_for_normal(n));
}

/* True when all three points are strictly on one side of the plane of (a, b, c). */
static bool one_side(const double *a, const double *b, const double *c, const double *x0,
                     const double *x1, const double *x2) {
    int s0 = weft_orient3d(a, b, c, x0), s1 = weft_orient3d(a, b, c, x1),
        s2 = weft_orient3d(a, b, c, x2);
    return (s0 > 0 && s1 > 0 && s2 > 0) || (s0 < 0 && s1 < 0 && s2 < 0);
}

bool weft_tri_tri_intersect(const double a0[3], const double a1[3], const double a2[3],
                            const double b0[3], const double b1[3], const double b2[3]) {
    if (one_side(a0, a1, a2, b0, b1, b2) || one_side(b0, b1, b2, a0, a1, a2)) return false;
    return seg_tri_3d(a0, a1, b0, b1, b2) || seg_tri_3d(a1, a2, b0, b1, b2) ||
           seg_tri_3d(a2, a0, b0, b1, b2) || seg_tri_3d(b0, b1, a0, a1, a2) ||
           seg_tri_3d(b1, b2, a0, a1, a2) || seg_tri_3d(b2, b0, a0, a1, a2);
}

/* True when triangles s and t of m share a vertex. */
static bool share_vertex(const weft_mesh *m, int s, int t) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (m->tri[3 * s + i] == m->tri[3 * t + j]) return true;
    return false;
}

long weft_mesh_count_intersections(const weft_mesh *m, const double *x) {
    if (!x) x = m->x;
    long count = 0;
    for (int s = 0; s < m->nt; s++) {
        const double *a[3] = {&x[3 * m->tri[3 * s]], &x[3 * m->tri[3 * s + 1]],
                              &x[3 * m->tri[3 * s + 2]]};
        for (int t = s + 1; t < m->nt; t++) {
            if (share_vertex(m, s, t)) continue;
            const double *b[3] = {&x[3 * m->tri[3 * t]], &x[3 * m->tri[3 * t + 1]],
                                  &x[3 * m->tri[3 * t + 2]]};
            /* Bounding boxes that are strictly apart cannot touch. */
            bool apart = false;
            for (int k = 0; k < 3 && !apart; k++) {
                double amin = fmin(a[0][k], fmin(a[1][k], a[2][k]));
                double amax = fmax(a[0][k], fmax(a[1][k], a[2][k]));
                double bmin = fmin(b[0][k], fmin(b[1][k], b[2][k]));
                double bmax = fmax(b[0][k], fmax(b[1][k], b[2][k]));
                apart = amax < bmin || bmax < amin;
            }
            if (!apart && weft_tri_tri_intersect(a[0], a[1], a[2], b[0], b[1], b[2])) count++;
        }
    }
    return count;
}
