/* test_ccd.c — tests of lib/collision/geometry.c and lib/collision/collision.ccd.c (Bridson, Fedkiw & Anderson 2002
 * §4): closest points against dense sampling, degenerate and parallel cases, the
 * coplanarity cubic, hand-built CCD queries with known contact times, a randomized
 * comparison of the CCD with dense time sampling, the CCD query sets of Wang et al. 2021
 * (tests/data/ccd, path from CMake) and triangle–triangle intersection.
 *
 * Hand-built CCD cases use η = 1e-12 m on unit-sized geometry (some also η = 0: touching
 * up to rounding); each contact time is derived in a comment. The CCD reports the
 * earliest t at which the distance is ≤ η, so a vertex approaching at normal speed v is
 * reported η / v before it touches. Near-misses by 1e-9 m must not be contacts for any
 * η < 1e-9 m, including 0: rounding on unit geometry is ~1e-16 m. */
#include "check.h"
#include "test_util.h"
#include "weft_geometry.h"

#include <stdbool.h>

/* Tolerance of the hand-built cases, m. */
#define ETA 1e-12

/* Parameters with tolerance eta (m) and the default time resolution and budget. */
static weft_ccd_params params(double eta) {
    weft_ccd_params p = weft_ccd_params_default();
    p.eta = eta;
    return p;
}

/* Copies four points (12 values) given as 3-vectors into x. */
static void pack(double x[12], const double *p0, const double *p1, const double *p2,
                 const double *p3) {
    for (int k = 0; k < 3; k++) x[k] = p0[k], x[3 + k] = p1[k], x[6 + k] = p2[k], x[9 + k] = p3[k];
}

/* |a - b| */
static double dist3(const double *a, const double *b) {
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return norm3(d);
}

/* ------------------------------------------------------------------------------ */
/* Closest points                                                                  */
/* ------------------------------------------------------------------------------ */

/* Smallest distance from p to the points a + (i/n)(b − a) + (j/n)(c − a), i + j ≤ n. */
static double sampled_point_triangle(const double *p, const double *a, const double *b,
                                     const double *c, int n) {
    double best = INFINITY;
    for (int i = 0; i <= n; i++) {
        for (int j = 0; i + j <= n; j++) {
            double s = (double)i / n, u = (double)j / n, q[3];
            for (int k = 0; k < 3; k++) q[k] = a[k] + s * (b[k] - a[k]) + u * (c[k] - a[k]);
            best = fmin(best, dist3(p, q));
        }
    }
    return best;
}

/* Longest edge of triangle abc. */
static double longest_edge(const double *a, const double *b, const double *c) {
    return fmax(dist3(a, b), fmax(dist3(b, c), dist3(c, a)));
}

/* Checks one point–triangle answer: weights form a convex combination whose distance to
 * p is the returned one, dir is consistent, and dense sampling (n per side) finds no
 * closer point and one within the sampling resolution. */
static void check_point_triangle(const double *p, const double *a, const double *b,
                                 const double *c, int n) {
    double bary[3], dir[3];
    double d = weft_point_triangle_closest(p, a, b, c, bary, dir);
    CHECK(bary[0] >= 0.0 && bary[1] >= 0.0 && bary[2] >= 0.0);
    CHECK_NEAR(bary[0] + bary[1] + bary[2], 1.0, 1e-12);
    double q[3];
    for (int k = 0; k < 3; k++) q[k] = bary[0] * a[k] + bary[1] * b[k] + bary[2] * c[k];
    CHECK_NEAR(dist3(p, q), d, 1e-12);
    if (d > 0.0) {
        for (int k = 0; k < 3; k++) CHECK_NEAR(dir[k], (p[k] - q[k]) / d, 1e-9);
    }
    double ds = sampled_point_triangle(p, a, b, c, n);
    /* Every point of the triangle is within one grid cell (diameter ≤ longest edge / n)
     * of a sample, and no sample is closer than the true closest point. */
    CHECK(d <= ds + 1e-12);
    CHECK(ds <= d + longest_edge(a, b, c) / n + 1e-12);
}

static void point_triangle_sampling(void) {
    lcg g = {12345};
    for (int trial = 0; trial < 60; trial++) {
        double a[3], b[3], c[3], p[3];
        for (int k = 0; k < 3; k++) {
            a[k] = rnd_in(&g, -1, 1), b[k] = rnd_in(&g, -1, 1), c[k] = rnd_in(&g, -1, 1);
            p[k] = rnd_in(&g, -2, 2);
        }
        check_point_triangle(p, a, b, c, 200);
        /* A point of the triangle itself: distance 0, dir the unit normal. */
        double s = rnd(&g), u = rnd(&g) * (1.0 - s), bary[3], dir[3];
        for (int k = 0; k < 3; k++) p[k] = a[k] + s * (b[k] - a[k]) + u * (c[k] - a[k]);
        CHECK(weft_point_triangle_closest(p, a, b, c, bary, dir) <= 1e-15);
        CHECK_NEAR(norm3(dir), 1.0, 1e-12);
    }
    /* Hand case: above the interior, in an edge's region, in a vertex's region. */
    double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, bary[3], dir[3];
    double above[3] = {0.25, 0.25, 2};
    CHECK_NEAR(weft_point_triangle_closest(above, a, b, c, bary, dir), 2.0, 1e-15);
    CHECK_NEAR(bary[0], 0.5, 1e-15);
    CHECK_NEAR(bary[1], 0.25, 1e-15);
    CHECK_NEAR(dir[2], 1.0, 1e-15);
    double beside[3] = {0.5, -3, 4}; /* closest (0.5, 0, 0) on edge ab: distance 5 */
    CHECK_NEAR(weft_point_triangle_closest(beside, a, b, c, bary, dir), 5.0, 1e-14);
    CHECK_NEAR(bary[0], 0.5, 1e-15);
    CHECK_NEAR(bary[2], 0.0, 0.0);
    double corner[3] = {2, -1, 0}; /* closest b: distance √2 */
    CHECK_NEAR(weft_point_triangle_closest(corner, a, b, c, bary, dir), sqrt(2.0), 1e-14);
    CHECK_NEAR(bary[1], 1.0, 0.0);
}

static void point_triangle_degenerate(void) {
    double bary[3], dir[3];
    /* Collinear corners, c between a and b: the triangle is the segment ab. */
    double a[3] = {0, 0, 0}, b[3] = {2, 0, 0}, c[3] = {1, 0, 0};
    double p[3] = {1.5, 1, 0};
    CHECK_NEAR(weft_point_triangle_closest(p, a, b, c, bary, dir), 1.0, 1e-15);
    check_point_triangle(p, a, b, c, 100);
    double beyond[3] = {3, 0, 0}; /* past b along the line: distance 1 */
    CHECK_NEAR(weft_point_triangle_closest(beyond, a, b, c, bary, dir), 1.0, 1e-15);
    double on[3] = {0.5, 0, 0}; /* on the segment: distance 0, no normal exists */
    CHECK(weft_point_triangle_closest(on, a, b, c, bary, dir) == 0.0);
    CHECK(dir[0] == 0.0 && dir[1] == 0.0 && dir[2] == 0.0);
    /* Two coincident corners. */
    double a2[3] = {0, 0, 0}, c2[3] = {1, 0, 0}, p2[3] = {0.5, 0.5, 0};
    CHECK_NEAR(weft_point_triangle_closest(p2, a2, a2, c2, bary, dir), 0.5, 1e-15);
    check_point_triangle(p2, a2, a2, c2, 100);
    /* All three corners coincide: the distance to that point. */
    double pt[3] = {1, 2, 3}, p3[3] = {1, 2, 5};
    CHECK_NEAR(weft_point_triangle_closest(p3, pt, pt, pt, bary, dir), 2.0, 1e-15);
    CHECK_NEAR(bary[0] + bary[1] + bary[2], 1.0, 1e-15);
    /* A sliver (height 1e-12) and random collinear triangles against sampling. */
    double s0[3] = {0, 0, 0}, s1[3] = {1, 0, 0}, s2[3] = {0.5, 1e-12, 0}, p4[3] = {0.5, 0, 1};
    CHECK_NEAR(weft_point_triangle_closest(p4, s0, s1, s2, bary, dir), 1.0, 1e-12);
    lcg g = {777};
    for (int trial = 0; trial < 40; trial++) {
        double x0[3], x1[3], x2[3], q[3], lambda = rnd_in(&g, -1, 2);
        for (int k = 0; k < 3; k++) {
            x0[k] = rnd_in(&g, -1, 1), x1[k] = rnd_in(&g, -1, 1), q[k] = rnd_in(&g, -2, 2);
            x2[k] = x0[k] + lambda * (x1[k] - x0[k]);
        }
        check_point_triangle(q, x0, x1, x2, 150);
    }
}

/* Checks one edge–edge answer against dense sampling of (s, u) with n steps each. */
static void check_edge_edge(const double *p0, const double *p1, const double *q0,
                            const double *q1, int n) {
    double s, u, dir[3], cp[3], cq[3];
    double d = weft_edge_edge_closest(p0, p1, q0, q1, &s, &u, dir);
    CHECK(s >= 0.0 && s <= 1.0 && u >= 0.0 && u <= 1.0);
    for (int k = 0; k < 3; k++)
        cp[k] = p0[k] + s * (p1[k] - p0[k]), cq[k] = q0[k] + u * (q1[k] - q0[k]);
    CHECK_NEAR(dist3(cp, cq), d, 1e-12);
    if (d > 0.0) {
        for (int k = 0; k < 3; k++) CHECK_NEAR(dir[k], (cp[k] - cq[k]) / d, 1e-9);
    }
    double best = INFINITY;
    for (int i = 0; i <= n; i++) {
        for (int j = 0; j <= n; j++) {
            double a[3], b[3], si = (double)i / n, uj = (double)j / n;
            for (int k = 0; k < 3; k++)
                a[k] = p0[k] + si * (p1[k] - p0[k]), b[k] = q0[k] + uj * (q1[k] - q0[k]);
            best = fmin(best, dist3(a, b));
        }
    }
    /* The nearest sample pair is within half a step on each edge of the closest pair. */
    CHECK(d <= best + 1e-12);
    CHECK(best <= d + (dist3(p0, p1) + dist3(q0, q1)) / n + 1e-12);
}

static void edge_edge_sampling(void) {
    lcg g = {4242};
    for (int trial = 0; trial < 60; trial++) {
        double p0[3], p1[3], q0[3], q1[3];
        for (int k = 0; k < 3; k++) {
            p0[k] = rnd_in(&g, -1, 1), p1[k] = rnd_in(&g, -1, 1);
            q0[k] = rnd_in(&g, -1, 1), q1[k] = rnd_in(&g, -1, 1);
        }
        check_edge_edge(p0, p1, q0, q1, 300);
    }
}

static void edge_edge_parallel(void) {
    double s, u, dir[3];
    double p0[3] = {0, 0, 0}, p1[3] = {1, 0, 0};
    /* Parallel, overlapping in x, offset 1 in y (either direction of the second edge). */
    double q0[3] = {0.5, 1, 0}, q1[3] = {1.5, 1, 0};
    CHECK_NEAR(weft_edge_edge_closest(p0, p1, q0, q1, &s, &u, dir), 1.0, 1e-15);
    CHECK_NEAR(dir[1], -1.0, 1e-15);
    check_edge_edge(p0, p1, q0, q1, 200);
    CHECK_NEAR(weft_edge_edge_closest(p0, p1, q1, q0, &s, &u, dir), 1.0, 1e-15);
    /* Parallel, not overlapping: from p1 = (1,0,0) to q0 = (2,1,0), √2. */
    double r0[3] = {2, 1, 0}, r1[3] = {3, 1, 0};
    CHECK_NEAR(weft_edge_edge_closest(p0, p1, r0, r1, &s, &u, dir), sqrt(2.0), 1e-15);
    CHECK(s == 1.0 && u == 0.0);
    /* Collinear with a gap of 1, and collinear overlapping (distance 0, no normal). */
    double c0[3] = {2, 0, 0}, c1[3] = {3, 0, 0}, o0[3] = {0.5, 0, 0}, o1[3] = {2, 0, 0};
    CHECK_NEAR(weft_edge_edge_closest(p0, p1, c0, c1, &s, &u, dir), 1.0, 1e-15);
    CHECK(s == 1.0 && u == 0.0);
    CHECK(weft_edge_edge_closest(p0, p1, o0, o1, &s, &u, dir) == 0.0);
    CHECK(dir[0] == 0.0 && dir[1] == 0.0 && dir[2] == 0.0);
    /* Zero-length first edge: the point (0.5, 1, 0) against p0p1 at u = 0.5. */
    double z[3] = {0.5, 1, 0};
    CHECK_NEAR(weft_edge_edge_closest(z, z, p0, p1, &s, &u, dir), 1.0, 1e-15);
    CHECK_NEAR(u, 0.5, 1e-15);
    /* Both zero length: a 3-4-5 triangle. */
    double w[3] = {3, 4, 0};
    CHECK_NEAR(weft_edge_edge_closest(p0, p0, w, w, &s, &u, dir), 5.0, 1e-15);
    /* Crossing at their midpoints (distance 0, dir the unit d1 × d2 = +z), and skew 1
     * apart (dir from the second closest point to the first: −z). */
    double x0[3] = {0.5, -1, 0}, x1[3] = {0.5, 1, 0}, y0[3] = {0.5, -1, 1}, y1[3] = {0.5, 1, 1};
    CHECK(weft_edge_edge_closest(p0, p1, x0, x1, &s, &u, dir) == 0.0);
    CHECK(s == 0.5 && u == 0.5 && dir[2] == 1.0);
    CHECK_NEAR(weft_edge_edge_closest(p0, p1, y0, y1, &s, &u, dir), 1.0, 1e-15);
    CHECK(dir[2] == -1.0);
    /* Nearly parallel: (0,0,0)-(1,0,0) against (0,1,0)-(1,1+1e-10,0). */
    double n0[3] = {0, 1, 0}, n1[3] = {1, 1 + 1e-10, 0};
    CHECK_NEAR(weft_edge_edge_closest(p0, p1, n0, n1, &s, &u, dir), 1.0, 1e-15);
    check_edge_edge(p0, p1, n0, n1, 100);
}

/* ------------------------------------------------------------------------------ */
/* The coplanarity cubic                                                           */
/* ------------------------------------------------------------------------------ */

/* det(x1 − x0, x2 − x0, x3 − x0) of the points at time t. */
static double det_at(const double *x0, const double *x1, double t) {
    double x[12], e[3][3], n[3];
    for (int k = 0; k < 12; k++) x[k] = (1 - t) * x0[k] + t * x1[k];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) e[i][k] = x[3 * (i + 1) + k] - x[k];
    cross3(e[1], e[2], n);
    return dot3(e[0], n);
}

static void cubic(void) {
    lcg g = {99};
    for (int trial = 0; trial < 100; trial++) {
        double x0[12], x1[12], c[4];
        for (int k = 0; k < 12; k++) x0[k] = rnd_in(&g, -1, 1), x1[k] = rnd_in(&g, -1, 1);
        weft_ccd_cubic(x0, x1, c);
        for (int i = 0; i <= 10; i++) {
            double t = 0.1 * i;
            CHECK_NEAR(c[0] + t * (c[1] + t * (c[2] + t * c[3])), det_at(x0, x1, t), 1e-13);
        }
    }
    /* Zero motion: a constant. */
    double x[12] = {0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0}, c[4];
    weft_ccd_cubic(x, x, c);
    CHECK(c[1] == 0.0 && c[2] == 0.0 && c[3] == 0.0);
    CHECK_NEAR(fabs(c[0]), 1.0, 1e-15);
}

/* ------------------------------------------------------------------------------ */
/* CCD: hand-built cases                                                            */
/* ------------------------------------------------------------------------------ */

/* The triangle of most cases: a = (0,0,0), b = (1,0,0), c = (0,1,0), in z = 0. */
static const double A[3] = {0, 0, 0}, B[3] = {1, 0, 0}, C[3] = {0, 1, 0};

/* Vertex–face query with a static triangle A, B, C and the vertex from p0 to p1. */
static bool vf_static(const double *p0, const double *p1, double eta, weft_ccd_hit *hit) {
    double x0[12], x1[12];
    pack(x0, p0, A, B, C);
    pack(x1, p1, A, B, C);
    weft_ccd_params prm = params(eta);
    return weft_ccd_vertex_face(x0, x1, &prm, hit);
}

static void vf_falling(void) {
    /* The vertex falls straight through the interior point (0.25, 0.25): z(t) = 1 − 2t,
     * so it touches at t = 1/2 and is within η at t = (1 − η)/2. The closest point
     * (0.25, 0.25, 0) = 0.5 a + 0.25 b + 0.25 c; it comes from +z, so n = +z. */
    double p0[3] = {0.25, 0.25, 1}, p1[3] = {0.25, 0.25, -1};
    weft_ccd_hit hit;
    CHECK(vf_static(p0, p1, ETA, &hit));
    CHECK_NEAR(hit.t, 0.5, 1e-9);
    CHECK(hit.dist <= 2 * ETA);
    CHECK(!hit.assumed);
    CHECK_NEAR(hit.w[0], 1.0, 0.0);
    CHECK_NEAR(hit.w[1], -0.5, 1e-9);
    CHECK_NEAR(hit.w[2], -0.25, 1e-9);
    CHECK_NEAR(hit.w[3], -0.25, 1e-9);
    CHECK_NEAR(hit.n[2], 1.0, 1e-12);

    /* The triangle rises through a resting vertex: z_face(t) = −1 + 2t reaches the
     * vertex's z = 0.5 at t = 3/4. Relative to the face the vertex moves −z: n = +z,
     * also with the corners listed clockwise. */
    double x0[12], x1[12], p[3] = {0.25, 0.25, 0.5};
    double a0[3] = {0, 0, -1}, b0[3] = {1, 0, -1}, c0[3] = {0, 1, -1};
    double a1[3] = {0, 0, 1}, b1[3] = {1, 0, 1}, c1[3] = {0, 1, 1};
    pack(x0, p, a0, c0, b0);
    pack(x1, p, a1, c1, b1);
    weft_ccd_params prm = params(ETA);
    CHECK(weft_ccd_vertex_face(x0, x1, &prm, &hit));
    CHECK_NEAR(hit.t, 0.75, 1e-9);
    CHECK_NEAR(hit.n[2], 1.0, 1e-12);

    /* Falling beside the triangle (x = y = 0.75, outside since x + y > 1): no contact. */
    double q0[3] = {0.75, 0.75, 1}, q1[3] = {0.75, 0.75, -1};
    CHECK(!vf_static(q0, q1, ETA, &hit));

    /* η = 0: touching as far as rounding can tell, still at t = 1/2. */
    CHECK(vf_static(p0, p1, 0.0, &hit));
    CHECK_NEAR(hit.t, 0.5, 1e-9);
    CHECK(!hit.assumed);
}

static void vf_tangential(void) {
    /* A tangential contact, where f has a double root and never changes sign. Corners
     * a = (0,0,0), b = (1,0,0) rest; c(t) = (0, 1, −1 + 2t) tilts the face about ab. Its
     * normal (b − a) × (c − a) = (0, −z_c, 1), so the vertex p(t) = (0.25, 0.5 − 0.5t,
     * −0.25 + 0.5t) has (p − a)·n = z_p − z_c y_p = t² − t + 1/4 = (t − 1/2)²: it touches
     * the plane only at t = 1/2, at (0.25, 0.25, 0), inside the face (then z = 0). The
     * distance is (t − 1/2)² / |n| with |n| ≈ 1, so it is ≤ η from t ≈ 1/2 − √η. */
    double x0[12] = {0.25, 0.5, -0.25, 0, 0, 0, 1, 0, 0, 0, 1, -1};
    double x1[12] = {0.25, 0.0, 0.25, 0, 0, 0, 1, 0, 0, 0, 1, 1};
    double c[4];
    weft_ccd_cubic(x0, x1, c);
    double f0 = c[0], fh = c[0] + 0.5 * c[1] + 0.25 * c[2] + 0.125 * c[3],
           f1 = c[0] + c[1] + c[2] + c[3];
    CHECK(f0 * f1 > 0.0);    /* no sign change on [0, 1] ... */
    CHECK(fabs(fh) < 1e-15); /* ... yet a root at t = 1/2 */
    weft_ccd_params prm = params(ETA);
    weft_ccd_hit hit;
    CHECK(weft_ccd_vertex_face(x0, x1, &prm, &hit));
    CHECK_NEAR(hit.t, 0.5, 2e-6);
    CHECK(hit.t <= 0.5 + 1e-10);

    /* Lifted by 1e-9: (p − a)·n = (t − 1/2)² + 1e-9, a closest approach of 1e-9 m at
     * t = 1/2 (|n| = 1 there). With η = 1e-10 < 1e-9, or η = 0, this is no contact;
     * with η = 2e-9 it is. */
    x0[2] += 1e-9;
    x1[2] += 1e-9;
    prm = params(1e-10);
    CHECK(!weft_ccd_vertex_face(x0, x1, &prm, &hit));
    prm = params(0.0);
    CHECK(!weft_ccd_vertex_face(x0, x1, &prm, &hit));
    prm = params(2e-9);
    CHECK(weft_ccd_vertex_face(x0, x1, &prm, &hit));
}

static void vf_glancing_edge(void) {
    /* The vertex crosses the face's plane exactly on edge ab: p(t) = (0.5, 0, 1 − 2t)
     * passes (0.5, 0, 0) at t = 1/2, touching the boundary but never the interior. */
    double p0[3] = {0.5, 0, 1}, p1[3] = {0.5, 0, -1};
    weft_ccd_hit hit;
    CHECK(vf_static(p0, p1, ETA, &hit));
    CHECK_NEAR(hit.t, 0.5, 1e-9);
    CHECK_NEAR(hit.w[3], 0.0, 1e-9); /* the weight of c: the contact is on edge ab */

    /* 1e-9 outside the edge (y = −1e-9): the closest approach is 1e-9 m at t = 1/2.
     * With η = 1e-10 < 1e-9 (or 0) there is no contact; with η = 1e-8 there is. */
    double q0[3] = {0.5, -1e-9, 1}, q1[3] = {0.5, -1e-9, -1};
    CHECK(!vf_static(q0, q1, 1e-10, &hit));
    CHECK(!vf_static(q0, q1, 0.0, &hit));
    CHECK(vf_static(q0, q1, 1e-8, &hit));
    CHECK_NEAR(hit.t, 0.5, 1e-8);
}

static void vf_in_plane(void) {
    /* The vertex moves in the face's plane, so the cubic is identically zero: p(t) =
     * (−1 + 2t, 0.25, 0) reaches edge ca (x = 0) at t = 1/2, within η at (1 − η)/2. */
    double p0[3] = {-1, 0.25, 0}, p1[3] = {1, 0.25, 0}, x0[12], x1[12], c[4];
    pack(x0, p0, A, B, C);
    pack(x1, p1, A, B, C);
    weft_ccd_cubic(x0, x1, c);
    CHECK(c[0] == 0.0 && c[1] == 0.0 && c[2] == 0.0 && c[3] == 0.0);
    weft_ccd_hit hit;
    CHECK(vf_static(p0, p1, ETA, &hit));
    CHECK_NEAR(hit.t, 0.5, 1e-9);
    CHECK_NEAR(fabs(hit.n[2]), 1.0, 1e-12); /* the face normal */

    /* Sliding past the face at y = 2: the closest approach is corner c, 1 m away. */
    double q0[3] = {-1, 2, 0}, q1[3] = {1, 2, 0};
    CHECK(!vf_static(q0, q1, ETA, &hit));
    /* Sliding inside the face from the start: contact at t = 0. */
    double r0[3] = {0.1, 0.1, 0}, r1[3] = {0.2, 0.2, 0};
    CHECK(vf_static(r0, r1, ETA, &hit));
    CHECK(hit.t == 0.0);
}

/* Edge–edge query: first edge p0p1 resting on the x axis from 0 to 1, second edge from
 * (q0, q1) at t = 0 to (r0, r1) at t = 1. */
static bool ee_query(const double *q0, const double *q1, const double *r0, const double *r1,
                     double eta, weft_ccd_hit *hit) {
    double p0[3] = {0, 0, 0}, p1[3] = {1, 0, 0}, x0[12], x1[12];
    pack(x0, p0, p1, q0, q1);
    pack(x1, p0, p1, r0, r1);
    weft_ccd_params prm = params(eta);
    return weft_ccd_edge_edge(x0, x1, &prm, hit);
}

static void ee_crossing(void) {
    /* The second edge, along y through x = 0.5, drops from z = 1 to z = −1: z(t) = 1 − 2t
     * meets the first edge at (0.5, 0, 0) at t = 1/2, with s = u = 1/2. The first edge
     * moves +z relative to the second, so it approaches along −n: n = −z. */
    double q0[3] = {0.5, -1, 1}, q1[3] = {0.5, 1, 1}, r0[3] = {0.5, -1, -1}, r1[3] = {0.5, 1, -1};
    weft_ccd_hit hit;
    CHECK(ee_query(q0, q1, r0, r1, ETA, &hit));
    CHECK_NEAR(hit.t, 0.5, 1e-9);
    for (int i = 0; i < 4; i++) CHECK_NEAR(fabs(hit.w[i]), 0.5, 1e-9);
    CHECK_NEAR(hit.n[2], -1.0, 1e-12);

    /* The same drop 1e-9 beyond the first edge's end (x = 1 + 1e-9): no contact with
     * η = 1e-10 or 0, contact with η = 1e-8. */
    double s0[3] = {1 + 1e-9, -1, 1}, s1[3] = {1 + 1e-9, 1, 1};
    double e0[3] = {1 + 1e-9, -1, -1}, e1[3] = {1 + 1e-9, 1, -1};
    CHECK(!ee_query(s0, s1, e0, e1, 1e-10, &hit));
    CHECK(!ee_query(s0, s1, e0, e1, 0.0, &hit));
    CHECK(ee_query(s0, s1, e0, e1, 1e-8, &hit));
    CHECK(ee_query(q0, q1, r0, r1, 0.0, &hit)); /* the exact crossing with η = 0 */
    CHECK_NEAR(hit.t, 0.5, 1e-9);
}

static void ee_parallel_sliding(void) {
    /* A parallel edge over the first one, x from 0.5 to 1.5, drops from z = 1 to z = −1:
     * all four points stay in the plane y = 0, so the cubic is identically zero; the
     * distance is |1 − 2t|, contact at t = 1/2. */
    double q0[3] = {0.5, 0, 1}, q1[3] = {1.5, 0, 1}, r0[3] = {0.5, 0, -1}, r1[3] = {1.5, 0, -1};
    weft_ccd_hit hit;
    CHECK(ee_query(q0, q1, r0, r1, ETA, &hit));
    CHECK_NEAR(hit.t, 0.5, 1e-9);
    CHECK(hit.dist <= 2 * ETA);

    /* Collinear, sliding end on: the second edge's left end x(t) = 2 − 1.5t reaches the
     * first edge's end x = 1 at t = 2/3; the contact is p1 against q0 (s = 1, u = 0). */
    double c0[3] = {2, 0, 0}, c1[3] = {3, 0, 0}, d0[3] = {0.5, 0, 0}, d1[3] = {1.5, 0, 0};
    CHECK(ee_query(c0, c1, d0, d1, ETA, &hit));
    CHECK_NEAR(hit.t, 2.0 / 3.0, 1e-9);
    CHECK_NEAR(hit.w[1], 1.0, 1e-9);
    CHECK_NEAR(hit.w[2], -1.0, 1e-9);

    /* Parallel and 1 apart in y all along: no contact. */
    double y0[3] = {0.5, 1, 1}, y1[3] = {1.5, 1, 1}, z0[3] = {0.5, 1, -1}, z1[3] = {1.5, 1, -1};
    CHECK(!ee_query(y0, y1, z0, z1, ETA, &hit));
}

static void contact_at_ends(void) {
    weft_ccd_hit hit;
    /* Touching at the start and leaving: t = 0 exactly. */
    double p0[3] = {0.25, 0.25, 0}, p1[3] = {0.25, 0.25, 1};
    CHECK(vf_static(p0, p1, ETA, &hit));
    CHECK(hit.t == 0.0);
    /* Arriving at the end: z(t) = 1 − t, within η at t = 1 − η. */
    CHECK(vf_static(p1, p0, ETA, &hit));
    CHECK_NEAR(hit.t, 1.0, 1e-9);
    /* Edges: crossing at t = 0 and separating, then the reverse motion meeting at t = 1. */
    double q0[3] = {0.5, -1, 0}, q1[3] = {0.5, 1, 0}, r0[3] = {0.5, -1, 1}, r1[3] = {0.5, 1, 1};
    CHECK(ee_query(q0, q1, r0, r1, ETA, &hit));
    CHECK(hit.t == 0.0);
    CHECK(ee_query(r0, r1, q0, q1, ETA, &hit));
    CHECK_NEAR(hit.t, 1.0, 1e-9);
}

static void degenerate_triangle(void) {
    /* A zero-area face a = (0,0,0), b = (1,0,0), c = (2,0,0) is the segment from x = 0 to
     * 2; the vertex p(t) = (0.5, 0, 1 − 2t) falls onto it at t = 1/2, coming from +z. */
    double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {2, 0, 0};
    double p0[3] = {0.5, 0, 1}, p1[3] = {0.5, 0, -1}, x0[12], x1[12];
    pack(x0, p0, a, b, c);
    pack(x1, p1, a, b, c);
    weft_ccd_params prm = params(ETA);
    weft_ccd_hit hit;
    CHECK(weft_ccd_vertex_face(x0, x1, &prm, &hit));
    CHECK_NEAR(hit.t, 0.5, 1e-9);
    CHECK_NEAR(hit.n[2], 1.0, 1e-12);
    /* Falling 0.5 beside it (y = 0.5): no contact. */
    double q0[3] = {0.5, 0.5, 1}, q1[3] = {0.5, 0.5, -1};
    pack(x0, q0, a, b, c);
    pack(x1, q1, a, b, c);
    CHECK(!weft_ccd_vertex_face(x0, x1, &prm, &hit));
    /* Two coincident corners (a = b): still the segment from a to c. */
    pack(x0, p0, a, a, c);
    pack(x1, p1, a, a, c);
    CHECK(weft_ccd_vertex_face(x0, x1, &prm, &hit));
    CHECK_NEAR(hit.t, 0.5, 1e-9);
}

static void zero_motion(void) {
    weft_ccd_hit hit;
    /* At rest on the face: contact at t = 0; at rest 0.1 above it: none. */
    double on[3] = {0.25, 0.25, 0}, above[3] = {0.25, 0.25, 0.1};
    CHECK(vf_static(on, on, ETA, &hit));
    CHECK(hit.t == 0.0);
    CHECK(!vf_static(above, above, ETA, &hit));
    /* Resting edges: crossing, and 0.1 apart. */
    double q0[3] = {0.5, -1, 0}, q1[3] = {0.5, 1, 0}, r0[3] = {0.5, -1, 0.1}, r1[3] = {0.5, 1, 0.1};
    CHECK(ee_query(q0, q1, q0, q1, ETA, &hit));
    CHECK(hit.t == 0.0);
    CHECK(!ee_query(r0, r1, r0, r1, ETA, &hit));
}

/* ------------------------------------------------------------------------------ */
/* CCD against dense sampling of random motions                                    */
/* ------------------------------------------------------------------------------ */

/* Distance of the query's primitives at time t. */
static double query_distance(const double *x0, const double *x1, double t, bool edge_edge) {
    double x[12], s, u, w[3];
    for (int k = 0; k < 12; k++) x[k] = (1 - t) * x0[k] + t * x1[k];
    return edge_edge ? weft_edge_edge_closest(x, x + 3, x + 6, x + 9, &s, &u, NULL)
                     : weft_point_triangle_closest(x, x + 3, x + 6, x + 9, w, NULL);
}

/* Random queries with η = 0.05 m: whenever one of 4001 sampled times is within η the
 * CCD reports a contact no later than that time; every reported contact is a real
 * one (distance ≤ η at the reported t); and misses leave every sample above η. */
static void random_vs_sampling_kind(bool edge_edge, unsigned seed) {
    lcg g = {seed};
    const double eta = 0.05;
    const int ns = 4000;
    int hits = 0, misses = 0;
    for (int trial = 0; trial < 300; trial++) {
        double x0[12], x1[12];
        for (int k = 0; k < 12; k++) x0[k] = rnd_in(&g, -1, 1), x1[k] = x0[k] + rnd_in(&g, -1, 1);
        /* Aim the first point (the vertex, or the first edge's start) near the centroid
         * of the other primitive's end position, so that contacts are common. */
        for (int k = 0; k < 3; k++) {
            double centroid = edge_edge ? (x1[6 + k] + x1[9 + k]) / 2
                                        : (x1[3 + k] + x1[6 + k] + x1[9 + k]) / 3;
            x1[k] = centroid + rnd_in(&g, -0.5, 0.5);
        }
        weft_ccd_params prm = params(eta);
        weft_ccd_hit hit;
        bool found = edge_edge ? weft_ccd_edge_edge(x0, x1, &prm, &hit)
                               : weft_ccd_vertex_face(x0, x1, &prm, &hit);
        double first = INFINITY; /* first sampled time within η */
        for (int i = 0; i <= ns && first == INFINITY; i++)
            if (query_distance(x0, x1, (double)i / ns, edge_edge) <= eta) first = (double)i / ns;
        if (found) {
            hits++;
            CHECK(!hit.assumed);
            CHECK(hit.t >= 0.0 && hit.t <= 1.0);
            CHECK(query_distance(x0, x1, hit.t, edge_edge) <= eta * (1 + 1e-9));
            CHECK(hit.t <= first + prm.t_tol);
        } else {
            misses++;
            CHECK(first == INFINITY);
        }
    }
    printf("%s: %d contacts, %d misses in 300 random queries\n",
           edge_edge ? "edge_edge" : "vertex_face", hits, misses);
    CHECK(hits > 30 && misses > 30); /* both outcomes are exercised */
}

static void random_vs_sampling(void) {
    random_vs_sampling_kind(false, 2024);
    random_vs_sampling_kind(true, 2025);
}

/* ------------------------------------------------------------------------------ */
/* The CCD data sets of Wang et al. 2021 (tests/data/ccd)                         */
/* ------------------------------------------------------------------------------ */

/* Runs every query of the data file `name` (WEFT_CCD_DATA_DIR, tests/data/ccd) with η = eta_rel × the
 * query's bounding-box diagonal, checking the query counts and that no colliding
 * query is missed; prints the false positives. */
static void shared_set(const char *name, bool edge_edge, int want_n, int want_pos) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.txt", WEFT_CCD_DATA_DIR, name);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "%s: cannot open the CCD data set (tests/data/ccd in the repository)\n",
                path);
        CHECK(fp != NULL);
        return;
    }
    static double x[1200][24];
    static int truth[1200];
    int n = 0, line = 0;
    char buf[4096];
    while (fgets(buf, sizeof buf, fp)) {
        line++;
        if (buf[0] == '#') continue;
        char *s = buf, *end;
        strtol(s, &end, 10);
        bool ok = end != s && n < 1200;
        s = end;
        if (ok) truth[n] = (int)strtol(s, &end, 10), ok = end != s, s = end;
        for (int i = 0; ok && i < 24; i++) x[n][i] = strtod(s, &end), ok = end != s, s = end;
        if (!ok) fprintf(stderr, "%s:%d: cannot read the query\n", path, line);
        CHECK(ok);
        if (!ok) break;
        n++;
    }
    fclose(fp);
    int pos = 0;
    for (int i = 0; i < n; i++) pos += truth[i];
    CHECK(n == want_n);
    CHECK(pos == want_pos);

    /* 1e-12 is ccd_benchmark's default; 0 leaves every decision to the rounding-error
     * bounds (contact = touching as far as double precision can tell). */
    const double eta_rel[3] = {1e-6, 1e-12, 0.0};
    for (int e = 0; e < 3; e++) {
        int fn = 0, fpos = 0, assumed = 0;
        for (int i = 0; i < n; i++) {
            double lo[3], hi[3], diag2 = 0.0;
            for (int k = 0; k < 3; k++) {
                lo[k] = hi[k] = x[i][k];
                for (int j = 1; j < 8; j++)
                    lo[k] = fmin(lo[k], x[i][3 * j + k]), hi[k] = fmax(hi[k], x[i][3 * j + k]);
                diag2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
            }
            weft_ccd_params prm = params(eta_rel[e] * sqrt(diag2));
            weft_ccd_hit hit;
            bool found = edge_edge ? weft_ccd_edge_edge(x[i], x[i] + 12, &prm, &hit)
                                   : weft_ccd_vertex_face(x[i], x[i] + 12, &prm, &hit);
            if (truth[i] && !found) {
                fn++;
                fprintf(stderr, "%s: query %d (0-based) missed with eta_rel %g\n", name, i,
                        eta_rel[e]);
            }
            fpos += !truth[i] && found;
            assumed += found && hit.assumed;
            if (found) CHECK(hit.t >= 0.0 && hit.t <= 1.0);
        }
        printf("%s: eta_rel=%g queries=%d colliding=%d false_negatives=%d false_positives=%d "
               "(%.1f%% of %d negatives) assumed=%d\n", name, eta_rel[e], n, pos, fn, fpos,
               100.0 * fpos / (n - pos), n - pos, assumed);
        CHECK(fn == 0);
    }
}

static void shared_vertex_face(void) { shared_set("vertex_face", false, 1000, 182); }

static void shared_edge_edge(void) { shared_set("edge_edge", true, 824, 110); }

/* ------------------------------------------------------------------------------ */
/* Triangle–triangle intersection                                                  */
/* ------------------------------------------------------------------------------ */

/* weft_tri_tri_intersect with every cyclic and reversed order of both triangles and
 * with the triangles swapped; checks that all 72 calls agree and returns the answer. */
static bool tri_tri_all_orders(const double *a0, const double *a1, const double *a2,
                               const double *b0, const double *b1, const double *b2) {
    const double *a[3] = {a0, a1, a2}, *b[3] = {b0, b1, b2};
    bool first = weft_tri_tri_intersect(a0, a1, a2, b0, b1, b2), same = true;
    for (int ra = 0; ra < 6; ra++) {
        for (int rb = 0; rb < 6; rb++) {
            int sa = ra < 3 ? 1 : 2, sb = rb < 3 ? 1 : 2; /* step 1: cyclic, 2: reversed */
            const double *p0 = a[ra % 3], *p1 = a[(ra + sa) % 3], *p2 = a[(ra + 2 * sa) % 3];
            const double *q0 = b[rb % 3], *q1 = b[(rb + sb) % 3], *q2 = b[(rb + 2 * sb) % 3];
            same = same && weft_tri_tri_intersect(p0, p1, p2, q0, q1, q2) == first &&
                   weft_tri_tri_intersect(q0, q1, q2, p0, p1, p2) == first;
        }
    }
    CHECK(same);
    return first;
}

static void tri_tri(void) {
    /* Crossing: a vertical triangle pierces A, B, C through its interior. */
    double v0[3] = {0.2, 0.2, -1}, v1[3] = {0.3, 0.2, 1}, v2[3] = {0.2, 0.3, 1};
    CHECK(tri_tri_all_orders(A, B, C, v0, v1, v2));
    /* The same lifted by 2 (entirely above z = 0): separated. */
    double w0[3] = {0.2, 0.2, 1}, w1[3] = {0.3, 0.2, 3}, w2[3] = {0.2, 0.3, 3};
    CHECK(!tri_tri_all_orders(A, B, C, w0, w1, w2));
    /* Touching at a point: one corner exactly on A's interior, the rest above. */
    double t0[3] = {0.25, 0.25, 0}, t1[3] = {0, 0, 1}, t2[3] = {1, 1, 1};
    CHECK(tri_tri_all_orders(A, B, C, t0, t1, t2));
    /* ... and 1e-12 above it: separated. */
    double u0[3] = {0.25, 0.25, 1e-12};
    CHECK(!tri_tri_all_orders(A, B, C, u0, t1, t2));
    /* Touching corner to corner (coincident points, distinct vertices). */
    double k1[3] = {2, 0, 1}, k2[3] = {1, 1, 1};
    CHECK(tri_tri_all_orders(A, B, C, B, k1, k2));
    /* Edge across edge: in the plane x = 0.5, the edge (0.5, −1, −1)–(0.5, 1, 1) crosses
     * A's edge ab at (0.5, 0, 0); the rest of this triangle has y < 0 at z = 0. */
    double e0[3] = {0.5, -1, -1}, e1[3] = {0.5, 1, 1}, e2[3] = {0.5, -1, 1};
    CHECK(tri_tri_all_orders(A, B, C, e0, e1, e2));
    /* A vertex on A's edge ab, the rest below z = 0. */
    double h0[3] = {0.5, 0, 0}, h1[3] = {0.5, -1, -1}, h2[3] = {0.6, 1, -1};
    CHECK(tri_tri_all_orders(A, B, C, h0, h1, h2));
    /* Planes cross but the triangles do not: B' crosses z = 0 only at x > 1. */
    double f0[3] = {2, 0, -1}, f1[3] = {2, 1, 1}, f2[3] = {3, 0, 1};
    CHECK(!tri_tri_all_orders(A, B, C, f0, f1, f2));
    /* Coplanar: overlapping, one inside the other, disjoint. */
    double o0[3] = {0.5, 0.5, 0}, o1[3] = {-0.5, 0.5, 0}, o2[3] = {0.5, -0.5, 0};
    CHECK(tri_tri_all_orders(A, B, C, o0, o1, o2));
    double i0[3] = {0.1, 0.1, 0}, i1[3] = {0.2, 0.1, 0}, i2[3] = {0.1, 0.2, 0};
    CHECK(tri_tri_all_orders(A, B, C, i0, i1, i2));
    double d0[3] = {2, 2, 0}, d1[3] = {3, 2, 0}, d2[3] = {2, 3, 0};
    CHECK(!tri_tri_all_orders(A, B, C, d0, d1, d2));
    /* Coplanar, touching along an edge segment: a triangle below ab. */
    double g0[3] = {0.2, 0, 0}, g1[3] = {0.8, 0, 0}, g2[3] = {0.5, -1, 0};
    CHECK(tri_tri_all_orders(A, B, C, g0, g1, g2));
    /* A zero-area triangle (a segment) piercing A, and one passing beside it. */
    double z0[3] = {0.25, 0.25, -1}, z1[3] = {0.25, 0.25, 1}, z2[3] = {0.25, 0.25, 0.5};
    CHECK(tri_tri_all_orders(A, B, C, z0, z1, z2));
    double y0[3] = {2, 2, -1}, y1[3] = {2, 2, 1}, y2[3] = {2, 2, 0.5};
    CHECK(!tri_tri_all_orders(A, B, C, y0, y1, y2));
    /* orient3d: above, below, on the plane. */
    double up[3] = {0, 0, 1}, down[3] = {0, 0, -1}, in[3] = {0.3, 0.3, 0};
    CHECK(weft_orient3d(A, B, C, up) == 1);
    CHECK(weft_orient3d(A, B, C, down) == -1);
    CHECK(weft_orient3d(A, B, C, in) == 0);
}

/* A flat cloth whose plane holds a coordinate axis: every pair of its triangles is
 * coplanar up to rounding, so orientation signs of points of two triangles that are far
 * apart can come out zero (can't tell) or not, mixed. A 17 × 9 grid in the plane xz
 * (edges 1/32 m) is turned about the z axis by angle a, each vertex also moved within
 * the plane by up to ±0.5 mm (jitter = 1) or not at all: two triangles that share no
 * vertex are then at least 22 mm apart (0.707 of an edge, less 1 mm), so
 * weft_tri_tri_intersect must say false for every such pair, and true for a triangle
 * that pierces one of them, steeply or at a grazing angle. (Before the fix in
 * seg_tri_3d, 20321 of the 372672 separated pairs below were reported, and
 * weft_mesh_count_intersections counted some in 11 of the 12 grids.) */
static void tri_tri_near_coplanar(void) {
    lcg g = {31};
    long false_pos = 0, checked = 0;
    for (int trial = 0; trial < 12; trial++) {
        weft_mesh grid = {0};
        weft_grid_desc d = {.width = 0.5, .height = 0.25, .nx = 17, .ny = 9,
                            .diagonals = WEFT_DIAG_ALTERNATING, .plane = WEFT_PLANE_XZ};
        weft_error err;
        CHECK(weft_mesh_grid(&grid, &d, &err) == WEFT_OK);
        double a = 0.3 + 0.2 * trial, jitter = trial % 2 ? 1e-3 : 0.0;
        double *x = malloc(3 * (size_t)grid.nv * sizeof *x);
        for (int i = 0; i < grid.nv; i++) {
            double u = grid.x[3 * i] + jitter * rnd_in(&g, -0.5, 0.5);
            double z = grid.x[3 * i + 2] + jitter * rnd_in(&g, -0.5, 0.5);
            x[3 * i] = -0.1 + u * cos(a);
            x[3 * i + 1] = 0.002 + u * sin(a);
            x[3 * i + 2] = z;
        }
        for (int s = 0; s < grid.nt; s++) {
            const int *ta = &grid.tri[3 * s];
            for (int t = s + 1; t < grid.nt; t++) {
                const int *tb = &grid.tri[3 * t];
                bool share = false;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) share = share || ta[i] == tb[j];
                if (share) continue;
                checked++;
                false_pos += weft_tri_tri_intersect(&x[3 * ta[0]], &x[3 * ta[1]], &x[3 * ta[2]],
                                                    &x[3 * tb[0]], &x[3 * tb[1]], &x[3 * tb[2]]);
            }
        }
        CHECK(weft_mesh_count_intersections(&grid, x) == 0);
        /* Positive controls: triangle 0 against a triangle through its centroid c across
         * the plane, and against itself turned by 1e-6 rad about the in-plane axis
         * (cos a, sin a, 0) through c, a crossing at a grazing angle (its corners leave
         * the plane by ~3e-8 m, far beyond rounding, along the whole of the axis's chord
         * through the triangle). (Two triangles merely shifted within the plane are no
         * control: rounding leaves the copy 1e-18 m off the plane, which the exact
         * orientation signs rightly call apart.) */
        const int *t0 = grid.tri;
        double p[3][3], q[3][3], c[3] = {0, 0, 0}, nrm[3] = {-sin(a), cos(a), 0};
        const double axis[3] = {cos(a), sin(a), 0}, beta = 1e-6;
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) {
                p[i][k] = x[3 * t0[i] + k];
                c[k] += p[i][k] / 3.0;
            }
        for (int i = 0; i < 3; i++) {
            double v[3] = {p[i][0] - c[0], p[i][1] - c[1], p[i][2] - c[2]}, kv[3];
            cross3(axis, v, kv);
            double kd = dot3(axis, v);
            for (int k = 0; k < 3; k++)
                q[i][k] = c[k] + v[k] * cos(beta) + kv[k] * sin(beta) +
                          axis[k] * kd * (1.0 - cos(beta));
        }
        CHECK(tri_tri_all_orders(p[0], p[1], p[2], q[0], q[1], q[2]));
        double r0[3], r1[3], r2[3];
        for (int k = 0; k < 3; k++) {
            r0[k] = c[k] - 0.01 * nrm[k];
            r1[k] = c[k] + 0.01 * nrm[k] + (k == 2 ? 0.01 : 0.0);
            r2[k] = c[k] + 0.01 * nrm[k] - (k == 2 ? 0.01 : 0.0);
        }
        CHECK(tri_tri_all_orders(p[0], p[1], p[2], r0, r1, r2));
        free(x);
        weft_mesh_free(&grid);
    }
    if (false_pos) fprintf(stderr, "%ld of %ld separated pairs reported\n", false_pos, checked);
    CHECK(false_pos == 0);
    CHECK(checked > 0);
}

static void mesh_intersections(void) {
    /* Quad 1: z = 0 over [0,1]², diagonal (0,0)–(1,1): triangle 0 above it (y > x),
     * triangle 1 below. Quad 2: in the plane y = 0.25, x from 0.1 to 0.4, z from −1 to 2,
     * diagonal (0.1, z = −1)–(0.4, z = 2), which crosses z = 0 at x = 0.2. At z = 0 quad 2
     * is the segment y = 0.25, x ∈ [0.1, 0.4]: its triangle 2 covers x ∈ [0.1, 0.2] and
     * triangle 3 x ∈ [0.2, 0.4], while quad 1's diagonal splits it at x = 0.25 (triangle
     * 0 left, 1 right). Crossing pairs: (0, 2), (0, 3), (1, 3); (1, 2) miss (0.2 < 0.25).
     * The two triangles of a quad share an edge and are not counted. */
    double x[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0,
                  0.1, 0.25, -1, 0.4, 0.25, -1, 0.4, 0.25, 2, 0.1, 0.25, 2};
    int tri[] = {0, 2, 3, 0, 1, 2, 4, 6, 7, 4, 5, 6};
    weft_mesh m = {.nv = 8, .nt = 4, .x = x, .tri = tri};
    CHECK(weft_mesh_count_intersections(&m, NULL) == 3);

    /* Quad 2 moved to x ∈ [2, 2.3]: apart. */
    double moved[24];
    for (int i = 0; i < 24; i++) moved[i] = x[i] + (i >= 12 && i % 3 == 0 ? 1.9 : 0.0);
    CHECK(weft_mesh_count_intersections(&m, moved) == 0);

    /* Quad 1 folded flat onto itself about its diagonal: triangles 0 and 1 overlap
     * completely but share an edge, so they are not counted. */
    double folded[24];
    for (int i = 0; i < 24; i++) folded[i] = moved[i];
    folded[3] = 0, folded[4] = 1; /* vertex 1 (1,0,0) → (0,1,0), onto vertex 3 */
    CHECK(weft_mesh_count_intersections(&m, folded) == 0);

    /* A flat grid never intersects itself. */
    weft_mesh grid = {0};
    weft_grid_desc d = {.width = 1, .height = 1, .nx = 6, .ny = 6,
                        .diagonals = WEFT_DIAG_ALTERNATING, .plane = WEFT_PLANE_XY};
    weft_error err;
    CHECK(weft_mesh_grid(&grid, &d, &err) == WEFT_OK);
    CHECK(weft_mesh_count_intersections(&grid, NULL) == 0);
    weft_mesh_free(&grid);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"point_triangle_sampling", point_triangle_sampling},
        {"point_triangle_degenerate", point_triangle_degenerate},
        {"edge_edge_sampling", edge_edge_sampling},
        {"edge_edge_parallel", edge_edge_parallel},
        {"cubic", cubic},
        {"vf_falling", vf_falling},
        {"vf_tangential", vf_tangential},
        {"vf_glancing_edge", vf_glancing_edge},
        {"vf_in_plane", vf_in_plane},
        {"ee_crossing", ee_crossing},
        {"ee_parallel_sliding", ee_parallel_sliding},
        {"contact_at_ends", contact_at_ends},
        {"degenerate_triangle", degenerate_triangle},
        {"zero_motion", zero_motion},
        {"random_vs_sampling", random_vs_sampling},
        {"shared_vertex_face", shared_vertex_face},
        {"shared_edge_edge", shared_edge_edge},
        {"tri_tri", tri_tri},
        {"mesh_intersections", mesh_intersections},
        {"tri_tri_near_coplanar", tri_tri_near_coplanar},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
