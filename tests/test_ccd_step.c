/* test_ccd_step.c — tests of lib/collision/ccd_step.c, the CCD filter of IPC's line
 * search: the step α it returns leaves every pair farther apart than the separation δ
 * along the whole motion x → x + α dx (distances recomputed here from first principles,
 * on 65 samples of [0, α] and exactly at its end), and α is not needlessly small: 1 when
 * no pair reaches δ, s·t* (to 1e-9) for hand-built pairs that reach δ at a known t*, and
 * at the reported TOI the closest pair is at δ, neither closer nor farther (up to
 * rounding). Motions: random pairs of triangles, an edge–edge and a vertex–face drop with
 * known t*, a grid folding onto itself, the analytic colliders, and the CCD queries of
 * Wang et al. 2021 (tests/data/ccd). Random cases use fixed LCG seeds. */
#include "check.h"
#include "collider_helpers.h"
#include "test_util.h"
#include "weft_ccd_step.h"

#include <stdbool.h>

/* ------------------------------------------------------------------------------ */
/* Distances from first principles                                                */
/* ------------------------------------------------------------------------------ */

static void sub3(const double *a, const double *b, double *o) {
    for (int k = 0; k < 3; k++) o[k] = a[k] - b[k];
}

static double clamp01(double v) {
    return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

/* Distance (m) between segments p0p1 and q0q1: the minimum over the interior critical
 * point (if the segments are not parallel) and the four end-point-to-segment distances. */
static double seg_seg(const double *p0, const double *p1, const double *q0, const double *q1) {
    double d1[3], d2[3], r[3];
    sub3(p1, p0, d1), sub3(q1, q0, d2), sub3(p0, q0, r);
    double a = dot3(d1, d1), e = dot3(d2, d2), b = dot3(d1, d2), c = dot3(d1, r), f = dot3(d2, r);
    double best = INFINITY;
    /* End points against the other segment. */
    const double *pts[4] = {p0, p1, q0, q1};
    for (int i = 0; i < 4; i++) {
        const double *s0 = i < 2 ? q0 : p0, *dd = i < 2 ? d2 : d1;
        double len2 = i < 2 ? e : a, w[3], u = 0.0, cp[3];
        sub3(pts[i], s0, w);
        if (len2 > 0.0) u = clamp01(dot3(w, dd) / len2);
        for (int k = 0; k < 3; k++) cp[k] = s0[k] + u * dd[k] - pts[i][k];
        best = fmin(best, norm3(cp));
    }
    double den = a * e - b * b;
    if (den > 1e-14 * a * e) {
        double s = (b * f - c * e) / den, u = (a * f - b * c) / den;
        if (s > 0.0 && s < 1.0 && u > 0.0 && u < 1.0) {
            double g[3];
            for (int k = 0; k < 3; k++) g[k] = p0[k] + s * d1[k] - q0[k] - u * d2[k];
            best = fmin(best, norm3(g));
        }
    }
    return best;
}

/* Distance (m) from p to the closed triangle abc: the projection onto the plane when it
 * falls inside, else the nearest of the three edges. */
static double pt_tri(const double *p, const double *a, const double *b, const double *c) {
    double best = fmin(seg_seg(p, p, a, b), fmin(seg_seg(p, p, b, c), seg_seg(p, p, c, a)));
    double ab[3], ac[3], n[3], ap[3];
    sub3(b, a, ab), sub3(c, a, ac), sub3(p, a, ap);
    cross3(ab, ac, n);
    double nn = dot3(n, n);
    if (!(nn > 0.0)) return best;
    double h = dot3(ap, n) / nn, q[3];
    for (int k = 0; k < 3; k++) q[k] = p[k] - h * n[k]; /* projection onto the plane */
    const double *v[3] = {a, b, c};
    bool inside = true;
    for (int i = 0; i < 3; i++) {
        double e[3], w[3], x[3];
        sub3(v[(i + 1) % 3], v[i], e), sub3(q, v[i], w);
        cross3(e, w, x);
        inside = inside && dot3(x, n) >= 0.0;
    }
    if (inside) best = fmin(best, fabs(h) * sqrt(nn));
    return best;
}

/* True when two vertex indices are equal (adjacent primitives are not tested). */
static bool shares(const int *a, int na, const int *b, int nb) {
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (a[i] == b[j]) return true;
    return false;
}

/* Smallest distance (m) over every non-adjacent vertex–triangle and edge–edge pair of m at
 * positions x, brute force; vertices in no triangle are skipped. */
static double min_distance(const weft_mesh *m, const double *x) {
    double best = INFINITY;
    for (int t = 0; t < m->nt; t++) {
        const int *tv = m->tri + 3 * t;
        for (int s = 0; s < m->nt; s++)
            for (int j = 0; j < 3; j++) {
                int v = m->tri[3 * s + j];
                if (shares(&v, 1, tv, 3)) continue;
                best = fmin(best, pt_tri(x + 3 * v, x + 3 * tv[0], x + 3 * tv[1], x + 3 * tv[2]));
            }
    }
    for (int e = 0; e < m->ne; e++)
        for (int f = e + 1; f < m->ne; f++) {
            const int *a = m->edge + 2 * e, *b = m->edge + 2 * f;
            if (shares(a, 2, b, 2)) continue;
            best = fmin(best, seg_seg(x + 3 * a[0], x + 3 * a[1], x + 3 * b[0], x + 3 * b[1]));
        }
    return best;
}

/* Smallest distance (m) at x + t dx. */
static double min_distance_at(const weft_mesh *m, const double *x, const double *dx, double t) {
    double *y = calloc(3 * (size_t)m->nv, sizeof(double));
    for (int i = 0; i < 3 * m->nv; i++) y[i] = x[i] + t * dx[i];
    double d = min_distance(m, y);
    free(y);
    return d;
}

/* True when every sample of [0, alpha] (65 of them, the end exactly) is farther than delta. */
static bool path_clear(const weft_mesh *m, const double *x, const double *dx, double alpha,
                       double delta) {
    for (int k = 0; k <= 64; k++)
        if (!(min_distance_at(m, x, dx, alpha * k / 64.0) > delta)) {
            fprintf(stderr, "distance %.17g <= delta %g at t = %.17g (alpha %.17g)\n",
                    min_distance_at(m, x, dx, alpha * k / 64.0), delta, alpha * k / 64.0, alpha);
            return false;
        }
    return true;
}

/* A mesh of nv vertices at x and nt triangles tri, topology built. */
static weft_mesh make_mesh(int nv, const double *x, int nt, const int *tri) {
    weft_mesh m = {0};
    m.nv = nv, m.nt = nt;
    m.x = malloc(sizeof(double) * 3 * (size_t)nv);
    m.tri = malloc(sizeof(int) * 3 * (size_t)nt);
    memcpy(m.x, x, sizeof(double) * 3 * (size_t)nv);
    memcpy(m.tri, tri, sizeof(int) * 3 * (size_t)nt);
    weft_error err;
    if (weft_mesh_build_topology(&m, "test", &err) != WEFT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        abort();
    }
    return m;
}

/* weft_ccd_step with separation delta, fraction s, the broad phase and thread count given. */
static double step(const weft_mesh *m, const double *x, const double *dx, int nc,
                   const weft_collider *c, double delta, double s, weft_broad_phase_kind bp,
                   int threads, weft_ccd_step_stats *st) {
    weft_ccd_step_options o = weft_ccd_step_options_default();
    o.separation = delta, o.fraction = s, o.broad_phase = bp, o.threads = threads;
    double alpha = -1.0;
    weft_error err;
    int rc = weft_ccd_step(m, x, dx, 0, NULL, nc, c, 0.0, &o, &alpha, st, &err);
    if (rc != WEFT_OK) fprintf(stderr, "weft_ccd_step: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    return alpha;
}

/* The checks every mesh motion gets: α ∈ [0, 1], the path to α clear of δ, α = s·TOI or
 * 1 when nothing reaches δ, the closest pair at δ at the TOI, and the same α (bit for
 * bit) from the spatial hash and from 3 threads. Returns the stats. */
static weft_ccd_step_stats check_motion(const weft_mesh *m, const double *x, const double *dx,
                                        double delta, double s) {
    weft_ccd_step_stats st;
    double alpha = step(m, x, dx, 0, NULL, delta, s, WEFT_BROAD_PHASE_BVH, 1, &st);
    CHECK(alpha >= 0.0 && alpha <= 1.0);
    CHECK(path_clear(m, x, dx, alpha, delta));
    if (st.kind == WEFT_CCD_STEP_NONE) {
        CHECK(alpha == 1.0);
    } else {
        CHECK(alpha == s * st.toi);
        /* Not needlessly small: at the TOI the closest pair has reached δ. */
        double d = min_distance_at(m, x, dx, st.toi), scale = 1.0 + max_abs(x, 3 * m->nv);
        if (!(fabs(d - delta) <= 1e-8 * scale))
            fprintf(stderr, "toi %.17g: distance %.17g, delta %g\n", st.toi, d, delta);
        CHECK(fabs(d - delta) <= 1e-8 * scale); /* and not before: d ≥ δ up to rounding */
    }
    weft_ccd_step_stats st2;
    CHECK(step(m, x, dx, 0, NULL, delta, s, WEFT_BROAD_PHASE_HASH, 1, &st2) == alpha);
    CHECK(step(m, x, dx, 0, NULL, delta, s, WEFT_BROAD_PHASE_BVH, 3, &st2) == alpha);
    CHECK(st2.kind == st.kind && st2.a == st.a && st2.b == st.b);
    return st;
}

/* ------------------------------------------------------------------------------ */
/* Cases                                                                          */
/* ------------------------------------------------------------------------------ */

/* Two separate triangles in random motion (seeded), δ = 0 and 1e-2 m. */
static void two_triangles(void) {
    lcg g = {20260101};
    const int tri[6] = {0, 1, 2, 3, 4, 5};
    int hit = 0, none = 0;
    for (int trial = 0; trial < 300; trial++) {
        double x[18], dx[18], delta = trial % 2 ? 1e-2 : 0.0;
        for (int i = 0; i < 18; i++) {
            x[i] = rnd_in(&g, 0.0, 1.0) + (i >= 9 && i % 3 == 0 ? 1.2 : 0.0);
            dx[i] = rnd_in(&g, -1.5, 1.5) - (i >= 9 && i % 3 == 0 ? 0.8 : 0.0);
        }
        weft_mesh m = make_mesh(6, x, 2, tri);
        if (min_distance(&m, x) > delta + 1e-3) {
            weft_ccd_step_stats st = check_motion(&m, x, dx, delta, 0.8);
            hit += st.kind != WEFT_CCD_STEP_NONE, none += st.kind == WEFT_CCD_STEP_NONE;
        }
        weft_mesh_free(&m);
    }
    printf("two_triangles: %d motions limited, %d free\n", hit, none);
    CHECK(hit >= 50 && none >= 50); /* both kinds of motion were tested */
}

/* Hand-built drops with known t*: a vertical triangle's bottom edge falls on a crossing
 * edge (edge–edge), and its tip on a horizontal triangle (vertex–face), both from height
 * z0 = 0.5 m at speed 1 m/s, so d(t) = z0 − t and t* = z0 − δ. */
static void known_toi(void) {
    const double z0 = 0.5;
    /* Edge–edge: A = (−1,0,z0), (1,0,z0), (0,0,z0+1) falls on B = (0,−1,0), (0,1,0),
     * (0,0,−1): A's bottom edge meets B's top edge. */
    const double xe[18] = {-1, 0, z0, 1, 0, z0, 0, 0, z0 + 1, 0, -1, 0, 0, 1, 0, 0, 0, -1};
    /* Vertex–face: A = (0,0,z0), (−0.3,0,z0+1), (0.3,0,z0+1) falls tip first on
     * B = (−1,−1,0), (1,−1,0), (0,1,0). */
    const double xv[18] = {0, 0, z0, -0.3, 0, z0 + 1, 0.3, 0, z0 + 1, -1, -1, 0, 1, -1, 0, 0, 1, 0};
    const int tri[6] = {0, 1, 2, 3, 4, 5};
    const double deltas[3] = {0.0, 1e-3, 0.05}, fractions[2] = {0.8, 1.0};
    for (int shape = 0; shape < 2; shape++) {
        weft_mesh m = make_mesh(6, shape ? xv : xe, 2, tri);
        double dx[18] = {0};
        for (int i = 0; i < 3; i++) dx[3 * i + 2] = -1.0; /* A falls 1 m */
        for (int d = 0; d < 3; d++)
            for (int f = 0; f < 2; f++) {
                double delta = deltas[d], s = fractions[f], tstar = z0 - delta;
                weft_ccd_step_stats st;
                double alpha = step(&m, m.x, dx, 0, NULL, delta, s, WEFT_BROAD_PHASE_BVH, 1, &st);
                CHECK(st.kind == (shape ? WEFT_CCD_STEP_VERTEX_TRIANGLE : WEFT_CCD_STEP_EDGE_EDGE));
                CHECK(alpha >= s * tstar - 1e-9);
                CHECK(alpha <= s * tstar); /* α|dx| stops short of contact: t* − α ≥ 0 */
                if (s < 1.0) CHECK(path_clear(&m, m.x, dx, alpha, delta));
                check_motion(&m, m.x, dx, delta, s);
            }
        /* Falling only to δ/2 above B: the boxes without their δ/2 growth never
         * overlap, so this pair needs the grown swept boxes; t* = (z0 − δ)/(z0 − δ/2). */
        {
            const double delta = 0.05, fall = z0 - 0.5 * delta, tstar = (z0 - delta) / fall;
            double near[18] = {0};
            for (int i = 0; i < 3; i++) near[3 * i + 2] = -fall;
            weft_ccd_step_stats st;
            for (int bp = 0; bp < 2; bp++) {
                double alpha = step(&m, m.x, near, 0, NULL, delta, 0.8, bp, 1, &st);
                CHECK(st.kind != WEFT_CCD_STEP_NONE);
                CHECK(alpha >= 0.8 * tstar - 1e-9 && alpha <= 0.8 * tstar);
            }
        }
        /* Sideways, away from B: nothing reaches δ, the full step. */
        double away[18] = {0};
        for (int i = 0; i < 3; i++) away[3 * i + 2] = 0.3, away[3 * i] = 2.0;
        weft_ccd_step_stats st;
        CHECK(step(&m, m.x, away, 0, NULL, 0.05, 0.8, WEFT_BROAD_PHASE_BVH, 1, &st) == 1.0);
        CHECK(st.kind == WEFT_CCD_STEP_NONE && st.hits == 0);
        weft_mesh_free(&m);
    }
}

/* A 6×6 grid (1 m) whose right half folds over onto the left, with seeded random
 * perturbations of the motion: many pairs, both broad phases, 1 and 3 threads. */
static void grid_fold(void) {
    weft_mesh m = {0};
    weft_grid_desc gd = {.width = 1.0,
                         .height = 1.0,
                         .nx = 6,
                         .ny = 6,
                         .diagonals = WEFT_DIAG_ALTERNATING,
                         .plane = WEFT_PLANE_XY};
    weft_error err;
    CHECK(weft_mesh_grid(&m, &gd, &err) == WEFT_OK);
    lcg g = {777};
    double *dx = calloc(3 * (size_t)m.nv, sizeof(double));
    int limited = 0;
    for (int trial = 0; trial < 12; trial++) {
        const double mid = 0.5 * (m.x[0] + m.x[3 * (m.nv - 1)]);
        for (int i = 0; i < m.nv; i++) {
            const double *p = m.x + 3 * i;
            double a = p[0] - mid, lift = 0.02 + 0.05 * trial;
            dx[3 * i] = a > 0.0 ? -2.0 * a : 0.0;
            dx[3 * i + 1] = 0.0;
            dx[3 * i + 2] = a > 0.0 ? (trial % 2 ? lift : -lift) : 0.0;
            for (int k = 0; k < 3; k++) dx[3 * i + k] += rnd_in(&g, -0.05, 0.05);
        }
        weft_ccd_step_stats st = check_motion(&m, m.x, dx, 1e-3, 0.8);
        limited += st.kind != WEFT_CCD_STEP_NONE;
    }
    CHECK(limited == 12); /* every fold brings the halves together */
    free(dx);
    weft_mesh_free(&m);
}

/* Smallest gap (m) of m's vertices at x + t dx to the nc colliders standing at time tc. */
static double collider_gap_at(const weft_mesh *m, const double *x, const double *dx, double t,
                              int nc, const weft_collider *c, double tc) {
    double best = INFINITY;
    for (int i = 0; i < m->nv; i++) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = x[3 * i + k] + t * dx[3 * i + k];
        for (int j = 0; j < nc; j++)
            best = fmin(best, weft_collider_distance_at(&c[j], p, tc, NULL));
    }
    return best;
}

/* A lone triangle at height 1 m above the origin, its first corner over it, falling by
 * fall (m) along −z, against collider c (standing at time tc); α must be s·t* to 1e-9. */
static void drop_on(const weft_collider *c, double tc, double fall, double delta, double tstar) {
    const double x[9] = {0, 0, 1, 5, 0, 1, 0, 5, 1};
    const int tri[3] = {0, 1, 2};
    weft_mesh m = make_mesh(3, x, 1, tri);
    double dx[9] = {0, 0, -fall, 0, 0, -fall, 0, 0, -fall};
    weft_ccd_step_options o = weft_ccd_step_options_default();
    o.separation = delta;
    weft_ccd_step_stats st;
    double alpha = -1.0;
    weft_error err;
    CHECK(weft_ccd_step(&m, x, dx, 0, NULL, 1, c, tc, &o, &alpha, &st, &err) == WEFT_OK);
    CHECK(st.kind == WEFT_CCD_STEP_COLLIDER && st.a == 0 && st.b == 0);
    if (!(fabs(alpha - 0.8 * tstar) <= 1e-9))
        fprintf(stderr, "%s: alpha %.17g, s t* %.17g\n", c->type->name, alpha, 0.8 * tstar);
    CHECK(fabs(alpha - 0.8 * tstar) <= 1e-9);
    for (int k = 0; k <= 64; k++)
        CHECK(collider_gap_at(&m, x, dx, alpha * k / 64.0, 1, c, tc) > delta);
    weft_mesh_free(&m);
}

/* The analytic colliders: drops with known t* on a plane, a sphere (static and moving)
 * and a box corner approached from inside the box's slab-grown margin (where its
 * segment_entry hook declines and conservative advancement decides), then seeded random
 * motions of four separate triangles among all four shapes, self-contact included. */
static void colliders(void) {
    const double delta = 0.05;
    weft_collider plane = collider_of("plane");
    collider_set(&plane, "point", 0, 0, 0);
    collider_set(&plane, "normal", 0, 0, 1);
    drop_on(&plane, 0.0, 2.0, delta, (1.0 - delta) / 2.0);
    weft_collider sphere = collider_of("sphere");
    collider_set(&sphere, "center", 0, 0, 0);
    collider_set(&sphere, "radius", 0.5, 0, 0);
    drop_on(&sphere, 0.0, 1.0, delta, 0.5 - delta);
    /* Rising at 1 m/s, seen at tc = 0.25 s: its top is at 0.75 m. */
    weft_collider rising = sphere;
    rising.velocity[2] = 1.0;
    drop_on(&rising, 0.25, 1.0, delta, 0.25 - delta);

    /* Box corner: p = (0.65, 0.65, 0.65) is 0.15√3 ≈ 0.26 m from the unit box's corner,
     * inside its slab-grown box for δ = 0.2; moving at (−0.3, −0.3, −0.3) it reaches δ
     * at t* = (0.15 − 0.2/√3)/0.3. */
    weft_collider box = collider_of("box");
    collider_set(&box, "center", 0, 0, 0);
    collider_set(&box, "half_extents", 0.5, 0.5, 0.5);
    {
        const double x[9] = {0.65, 0.65, 0.65, 5, 5, 5, 5, 6, 5};
        const int tri[3] = {0, 1, 2};
        weft_mesh m = make_mesh(3, x, 1, tri);
        double dx[9] = {-0.3, -0.3, -0.3, 0, 0, 0, 0, 0, 0};
        weft_ccd_step_stats st;
        double alpha = step(&m, x, dx, 1, &box, 0.2, 0.8, WEFT_BROAD_PHASE_BVH, 1, &st);
        double tstar = (0.15 - 0.2 / sqrt(3.0)) / 0.3;
        CHECK(st.kind == WEFT_CCD_STEP_COLLIDER);
        if (!(alpha >= 0.8 * tstar - 1e-9 && alpha <= 0.8 * tstar + 1e-12))
            fprintf(stderr, "box corner: alpha %.17g, s t* %.17g, toi %.17g\n", alpha, 0.8 * tstar,
                    st.toi);
        CHECK(alpha >= 0.8 * tstar - 1e-9 && alpha <= 0.8 * tstar + 1e-12);
        weft_mesh_free(&m);
    }

    /* A corner gliding along the plane 1e-7 m above δ, 2 cm sideways and 1e-7 m up: no
     * contact, α = 1 (conservative advancement's steps of gap/|dx| gave 0.004). */
    {
        const double x[9] = {0, 0, delta + 1e-7, 5, 0, 1, 0, 5, 1};
        const int tri[3] = {0, 1, 2};
        weft_mesh m = make_mesh(3, x, 1, tri);
        double dx[9] = {0.02, 0, 1e-7, 0, 0, 0, 0, 0, 0};
        weft_ccd_step_stats st;
        double alpha = step(&m, x, dx, 1, &plane, delta, 0.8, WEFT_BROAD_PHASE_BVH, 1, &st);
        if (alpha != 1.0) fprintf(stderr, "gliding on a plane: alpha %.17g\n", alpha);
        CHECK(alpha == 1.0 && st.kind == WEFT_CCD_STEP_NONE);
        weft_mesh_free(&m);
    }

    weft_collider all[4] = {plane, sphere, box, collider_of("capsule")};
    collider_set(&all[0], "point", 0, 0, -1);
    collider_set(&all[2], "center", 1, 0, 0);
    collider_set(&all[2], "half_extents", 0.2, 0.2, 0.2);
    collider_set(&all[3], "start", -1, -0.5, 0);
    collider_set(&all[3], "end", -1, 0.5, 0);
    collider_set(&all[3], "radius", 0.2, 0, 0);
    collider_set(&all[1], "radius", 0.3, 0, 0);
    const int tri[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    lcg g = {4242};
    int limited = 0, by_collider = 0;
    for (int trial = 0; trial < 200; trial++) {
        double x[36], dx[36];
        /* Four small triangles (0.3 m) at random places, each moving by a random
         * translation (up to 1 m per axis) plus a small deformation. */
        for (int t = 0; t < 4; t++) {
            double ctr[3], mv[3];
            for (int k = 0; k < 3; k++)
                ctr[k] = rnd_in(&g, -1.5, 1.5), mv[k] = rnd_in(&g, -1.0, 1.0);
            for (int i = 9 * t; i < 9 * t + 9; i++)
                x[i] = ctr[i % 3] + rnd_in(&g, -0.15, 0.15),
                dx[i] = mv[i % 3] + rnd_in(&g, -0.1, 0.1);
        }
        weft_mesh m = make_mesh(12, x, 4, tri);
        if (collider_gap_at(&m, x, dx, 0.0, 4, all, 0.0) > delta + 1e-3 &&
            min_distance(&m, x) > delta + 1e-3) {
            weft_ccd_step_stats st;
            double alpha = step(&m, x, dx, 4, all, delta, 0.8, WEFT_BROAD_PHASE_BVH, 1, &st);
            CHECK(alpha >= 0.0 && alpha <= 1.0);
            for (int k = 0; k <= 64; k++) {
                double t = alpha * k / 64.0;
                CHECK(collider_gap_at(&m, x, dx, t, 4, all, 0.0) > delta);
                CHECK(min_distance_at(&m, x, dx, t) > delta);
            }
            if (st.kind == WEFT_CCD_STEP_NONE) CHECK(alpha == 1.0);
            if (st.kind == WEFT_CCD_STEP_COLLIDER) {
                /* At the TOI the vertex is at δ (a box's slab-grown margin: up to √3 δ). */
                double p[3];
                for (int k = 0; k < 3; k++) p[k] = x[3 * st.a + k] + st.toi * dx[3 * st.a + k];
                double gap = weft_collider_distance(&all[st.b], p, NULL);
                CHECK(gap <= (st.b == 2 ? sqrt(3.0) : 1.0) * delta + 1e-9);
                by_collider++;
            }
            limited += st.kind != WEFT_CCD_STEP_NONE;
            weft_ccd_step_stats st3;
            CHECK(step(&m, x, dx, 4, all, delta, 0.8, WEFT_BROAD_PHASE_HASH, 3, &st3) == alpha);
        }
        weft_mesh_free(&m);
    }
    printf("colliders: %d motions limited, %d by a collider\n", limited, by_collider);
    CHECK(by_collider >= 20);
}

/* The CCD queries of Wang et al. 2021 as single pairs (weft_ccd_step_pair) with δ = 0 and
 * δ = 1e-3 of the query's size: the end and 33 samples of the path to α = 0.8 TOI are
 * farther than δ (unless the pair starts within δ: TOI 0), every query that touches
 * (ground truth) is limited, and at the TOI the pair is at δ (up to rounding). */
static void ccd_data_set(const char *name, bool edge_edge, int want_n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.txt", WEFT_CCD_DATA_DIR, name);
    FILE *fp = fopen(path, "r");
    CHECK(fp != NULL);
    if (!fp) return;
    char buf[4096];
    int n = 0, limited = 0, start_within = 0;
    while (fgets(buf, sizeof buf, fp)) {
        if (buf[0] == '#') continue;
        char *s = buf, *end;
        double q[24];
        strtol(s, &end, 10);
        s = end;
        int truth = (int)strtol(s, &end, 10);
        bool ok = end != s;
        s = end;
        for (int i = 0; ok && i < 24; i++) q[i] = strtod(s, &end), ok = end != s, s = end;
        CHECK(ok);
        if (!ok) break;
        n++;
        double dq[12], diag2 = 0.0;
        for (int i = 0; i < 12; i++) dq[i] = q[12 + i] - q[i];
        for (int k = 0; k < 3; k++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int j = 0; j < 8; j++) lo = fmin(lo, q[3 * j + k]), hi = fmax(hi, q[3 * j + k]);
            diag2 += (hi - lo) * (hi - lo);
        }
        for (int e = 0; e < 2; e++) {
            weft_ccd_step_options o = weft_ccd_step_options_default();
            o.separation = e ? 1e-3 * sqrt(diag2) : 0.0;
            double toi = 1.0;
            bool found = weft_ccd_step_pair(edge_edge, q, dq, &o, &toi, NULL);
            double alpha = found ? o.fraction * toi : 1.0;
            if (truth) CHECK(found);
            limited += found;
            double y[12];
            for (int k = 0; k <= 32; k++) {
                for (int i = 0; i < 12; i++) y[i] = q[i] + alpha * k / 32.0 * dq[i];
                double d =
                    edge_edge ? seg_seg(y, y + 3, y + 6, y + 9) : pt_tri(y, y + 3, y + 6, y + 9);
                if (k == 0 && !(d > o.separation)) {
                    start_within++;
                    CHECK(found && toi == 0.0);
                    break;
                }
                if (!(d > o.separation))
                    fprintf(stderr, "%s query %d: distance %.17g <= %g at %.17g\n", name, n - 1, d,
                            o.separation, alpha * k / 32.0);
                CHECK(d > o.separation);
            }
            if (found && toi > 0.0) {
                for (int i = 0; i < 12; i++) y[i] = q[i] + toi * dq[i];
                double d =
                    edge_edge ? seg_seg(y, y + 3, y + 6, y + 9) : pt_tri(y, y + 3, y + 6, y + 9);
                CHECK(fabs(d - o.separation) <= 1e-8 * sqrt(diag2)); /* at δ, not before */
            }
        }
    }
    fclose(fp);
    printf("%s: %d queries, %d (query, delta) limited, %d start within delta\n", name, n, limited,
           start_within);
    CHECK(n == want_n);
}

static void ccd_data(void) {
    ccd_data_set("vertex_face", false, 1000);
    ccd_data_set("edge_edge", true, 824);
}

/* Bad options and positions are refused with WEFT_ERR_INPUT and a message naming the
 * setting, and α is left alone; a motion that reaches δ exactly at its end is limited. */
static void bad_input(void) {
    const double x[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const int tri[3] = {0, 1, 2};
    weft_mesh m = make_mesh(3, x, 1, tri);
    double dx[9] = {0}, y[9];
    struct {
        double separation, fraction;
        int threads;
        const char *word;
    } bad[] = {{-1e-3, 0.8, 1, "separation"},
               {NAN, 0.8, 1, "separation"},
               {0.0, 0.0, 1, "fraction"},
               {0.0, 1.5, 1, "fraction"},
               {0.0, 0.8, 0, "threads"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        weft_ccd_step_options o = weft_ccd_step_options_default();
        o.separation = bad[i].separation, o.fraction = bad[i].fraction, o.threads = bad[i].threads;
        double alpha = -7.0;
        weft_error err = {{0}};
        CHECK(weft_ccd_step(&m, x, dx, 0, NULL, 0, NULL, 0.0, &o, &alpha, NULL, &err) ==
              WEFT_ERR_INPUT);
        CHECK(strstr(err.msg, bad[i].word) != NULL);
        CHECK(alpha == -7.0);
    }
    memcpy(y, x, sizeof y);
    y[4] = INFINITY;
    double alpha = -7.0;
    weft_error err = {{0}};
    CHECK(weft_ccd_step(&m, y, dx, 0, NULL, 0, NULL, 0.0, NULL, &alpha, NULL, &err) ==
          WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, "vertex 1") != NULL);
    weft_ccd_step_obstacle ob = {&m, y}; /* an obstacle with a non-finite position */
    CHECK(weft_ccd_step(&m, x, dx, 1, &ob, 0, NULL, 0.0, NULL, &alpha, NULL, &err) ==
          WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, "obstacle 0") != NULL);
    /* A motion whose end touches δ exactly at t = 1 is limited, not free: two parallel
     * horizontal triangles 1 m apart closing by 1 m − δ. */
    const double xx[18] = {0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    const int tt[6] = {0, 1, 2, 3, 4, 5};
    weft_mesh two = make_mesh(6, xx, 2, tt);
    double fall[18] = {0};
    for (int i = 0; i < 3; i++) fall[3 * i + 2] = -0.75; /* δ = 0.25: contact at t = 1 */
    weft_ccd_step_stats st;
    alpha = step(&two, xx, fall, 0, NULL, 0.25, 0.8, WEFT_BROAD_PHASE_BVH, 1, &st);
    CHECK(st.kind != WEFT_CCD_STEP_NONE && alpha < 1.0);
    weft_mesh_free(&two);
    weft_mesh_free(&m);
}

/* Smallest distance (m) between mesh m at x + t dx and obstacle mesh o at xo, brute force
 * over vertex–triangle (both ways) and edge–edge pairs; with m's own pairs. */
static double obstacle_distance_at(const weft_mesh *m, const double *x, const double *dx, double t,
                                   const weft_mesh *o, const double *xo) {
    double *y = calloc(3 * (size_t)m->nv, sizeof(double));
    for (int i = 0; i < 3 * m->nv; i++) y[i] = x[i] + t * dx[i];
    double best = min_distance(m, y);
    for (int v = 0; v < m->nv; v++)
        for (int f = 0; f < o->nt; f++) {
            const int *c = o->tri + 3 * f;
            best = fmin(best, pt_tri(y + 3 * v, xo + 3 * c[0], xo + 3 * c[1], xo + 3 * c[2]));
        }
    for (int v = 0; v < o->nv; v++)
        for (int f = 0; f < m->nt; f++) {
            const int *c = m->tri + 3 * f;
            best = fmin(best, pt_tri(xo + 3 * v, y + 3 * c[0], y + 3 * c[1], y + 3 * c[2]));
        }
    for (int e = 0; e < m->ne; e++)
        for (int g = 0; g < o->ne; g++) {
            const int *a = m->edge + 2 * e, *b = o->edge + 2 * g;
            best = fmin(best, seg_seg(y + 3 * a[0], y + 3 * a[1], xo + 3 * b[0], xo + 3 * b[1]));
        }
    free(y);
    return best;
}

/* weft_ccd_step of m against one static obstacle o at xo, no colliders. */
static double step_obstacle(const weft_mesh *m, const double *x, const double *dx,
                            const weft_mesh *o, const double *xo, double delta,
                            weft_broad_phase_kind bp, int threads, weft_ccd_step_stats *st) {
    weft_ccd_step_options opt = weft_ccd_step_options_default();
    opt.separation = delta, opt.broad_phase = bp, opt.threads = threads;
    weft_ccd_step_obstacle ob = {o, xo};
    double alpha = -1.0;
    weft_error err;
    int rc = weft_ccd_step(m, x, dx, 1, &ob, 0, NULL, 0.0, &opt, &alpha, st, &err);
    if (rc != WEFT_OK) fprintf(stderr, "weft_ccd_step: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    return alpha;
}

/* Static triangle-mesh obstacles: a cloth triangle falling tip first on a floor (vertex
 * of the cloth on an obstacle triangle), flat on an upward spike (obstacle vertex on a
 * cloth triangle) and edge first on a crossing edge, each from z0 = 0.5 m by 1 m, so
 * t* = z0 − δ; then a 4×4 cloth grid in seeded random motions over an icosphere. */
static void obstacles(void) {
    const double z0 = 0.5, delta = 1e-2, tstar = z0 - delta;
    const int tri[3] = {0, 1, 2};
    const double tip[9] = {0, 0, z0, -0.3, 0, z0 + 1, 0.3, 0, z0 + 1};
    const double flat[9] = {-1, -1, z0, 1, -1, z0, 0, 1, z0};
    const double edge[9] = {-1, 0, z0, 1, 0, z0, 0, 0, z0 + 1};
    const double floor_x[9] = {-2, -2, 0, 2, -2, 0, 0, 2, 0};
    const double spike_x[9] = {0, 0, 0, -0.3, 0, -1, 0.3, 0, -1};
    const double cross_x[9] = {0, -1, 0, 0, 1, 0, 0, 0, -1};
    const double *cloth[3] = {tip, flat, edge}, *obst[3] = {floor_x, spike_x, cross_x};
    const int kind[3] = {WEFT_CCD_STEP_OBSTACLE_VT, WEFT_CCD_STEP_OBSTACLE_TV,
                         WEFT_CCD_STEP_OBSTACLE_EE};
    double fall[9] = {0, 0, -1, 0, 0, -1, 0, 0, -1};
    for (int c = 0; c < 3; c++) {
        weft_mesh m = make_mesh(3, cloth[c], 1, tri), o = make_mesh(3, obst[c], 1, tri);
        for (int bp = 0; bp < 2; bp++) {
            weft_ccd_step_stats st;
            double alpha = step_obstacle(&m, m.x, fall, &o, o.x, delta, bp, 1, &st);
            CHECK(st.kind == kind[c] && st.obstacle == 0);
            CHECK(alpha >= 0.8 * tstar - 1e-9 && alpha <= 0.8 * tstar);
        }
        /* Stopping 0.75 δ above: only boxes grown by δ/2 on both meshes overlap. */
        double short_fall[9] = {0, 0, -(z0 - 0.75 * delta), 0, 0, -(z0 - 0.75 * delta),
                                0, 0, -(z0 - 0.75 * delta)};
        for (int bp = 0; bp < 2; bp++) {
            weft_ccd_step_stats st;
            double alpha = step_obstacle(&m, m.x, short_fall, &o, o.x, delta, bp, 1, &st);
            double ts = (z0 - delta) / (z0 - 0.75 * delta);
            CHECK(st.kind == kind[c]);
            CHECK(alpha >= 0.8 * ts - 1e-9 && alpha <= 0.8 * ts);
        }
        weft_mesh_free(&m);
        weft_mesh_free(&o);
    }

    weft_mesh m = {0}, ball = {0};
    weft_grid_desc gd = {.width = 0.6, .height = 0.6, .nx = 4, .ny = 4, .plane = WEFT_PLANE_XY};
    weft_error err;
    const double centre[3] = {0, 0, 0};
    CHECK(weft_mesh_grid(&m, &gd, &err) == WEFT_OK);
    CHECK(weft_mesh_icosphere(&ball, 0.4, 1, centre, &err) == WEFT_OK);
    lcg g = {99};
    double *x = calloc(3 * (size_t)m.nv, sizeof(double)),
           *dx = calloc(3 * (size_t)m.nv, sizeof(double));
    int limited = 0, by_obstacle = 0, tested = 0;
    for (int trial = 0; trial < 40; trial++) {
        double shift[3] = {rnd_in(&g, -0.7, 0.1), rnd_in(&g, -0.7, 0.1), rnd_in(&g, 0.45, 0.8)};
        double mv[3] = {rnd_in(&g, -0.3, 0.3), rnd_in(&g, -0.3, 0.3), rnd_in(&g, -1.2, 0.0)};
        for (int i = 0; i < 3 * m.nv; i++)
            x[i] = m.x[i] + shift[i % 3], dx[i] = mv[i % 3] + rnd_in(&g, -0.05, 0.05);
        if (!(obstacle_distance_at(&m, x, dx, 0.0, &ball, ball.x) > delta + 1e-3)) continue;
        tested++;
        weft_ccd_step_stats st, st2;
        double alpha = step_obstacle(&m, x, dx, &ball, ball.x, delta, WEFT_BROAD_PHASE_BVH, 1, &st);
        for (int k = 0; k <= 32; k++)
            CHECK(obstacle_distance_at(&m, x, dx, alpha * k / 32.0, &ball, ball.x) > delta);
        if (st.kind == WEFT_CCD_STEP_NONE) {
            CHECK(alpha == 1.0);
        } else {
            double d = obstacle_distance_at(&m, x, dx, st.toi, &ball, ball.x);
            CHECK(fabs(d - delta) <= 1e-8);
            limited++;
            by_obstacle += st.kind >= WEFT_CCD_STEP_OBSTACLE_VT;
        }
        CHECK(step_obstacle(&m, x, dx, &ball, ball.x, delta, WEFT_BROAD_PHASE_HASH, 3, &st2) ==
              alpha);
        CHECK(st2.kind == st.kind && st2.a == st.a && st2.b == st.b);
    }
    printf("obstacles: %d motions, %d limited, %d by the obstacle\n", tested, limited, by_obstacle);
    CHECK(tested >= 20 && by_obstacle >= 10 && limited < tested);
    free(x);
    free(dx);
    weft_mesh_free(&m);
    weft_mesh_free(&ball);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {{"two_triangles", two_triangles}, {"known_toi", known_toi},
                                       {"grid_fold", grid_fold},         {"colliders", colliders},
                                       {"ccd_data", ccd_data},           {"bad_input", bad_input},
                                       {"obstacles", obstacles},         {NULL, NULL}};
    return check_main(argc, argv, cases);
}
