/* test_broadphase.c — the broad phases of lib/collision/weft_broadphase.h (BVH, spatial hash,
 * brute force) against this file's own enumeration of every primitive pair whose padded
 * (swept) boxes overlap, on crumpled grids, triangle soups and pairs of sheets.
 *
 * The reference here is written independently of the library: boxes from fmin/fmax of
 * the corners, overlap as "the larger lo is at most the smaller hi on every axis",
 * adjacency from the vertex indices. The library's contract is that each broad phase
 * returns exactly that set, sorted by (a, b). */
#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_broadphase.h"

#include <stdint.h>

/* ------------------------------------------------------------------------------ */
/* Meshes                                                                          */
/* ------------------------------------------------------------------------------ */

/* A flat nx × ny grid in the XY plane, 1 m × 1 m, with alternating diagonals. */
static void make_grid(weft_mesh *m, int nx, int ny, double z) {
    weft_grid_desc d = {1.0, 1.0, nx, ny, WEFT_DIAG_ALTERNATING, WEFT_PLANE_XY, {0, 0, z}};
    weft_error err;
    int rc = weft_mesh_grid(m, &d, &err);
    if (rc != WEFT_OK) fprintf(stderr, "grid: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
}

/* x = the mesh's rest positions moved by uniform noise in [-amp, amp]^3 (a copy). */
static double *crumpled(const weft_mesh *m, double amp, uint64_t seed) {
    lcg g = {seed};
    double *x = malloc(3 * (size_t)m->nv * sizeof *x);
    for (int i = 0; i < 3 * m->nv; i++) x[i] = m->x[i] + rnd_in(&g, -amp, amp);
    return x;
}

/* x1 = x0 moved by uniform noise in [-amp, amp]^3: one step of random motion. */
static double *moved(const double *x0, int nv, double amp, uint64_t seed) {
    lcg g = {seed};
    double *x = malloc(3 * (size_t)nv * sizeof *x);
    for (int i = 0; i < 3 * nv; i++) x[i] = x0[i] + rnd_in(&g, -amp, amp);
    return x;
}

/* nt separate triangles with random corners near random centres in the unit cube. */
static void make_soup(weft_mesh *m, int nt, uint64_t seed) {
    memset(m, 0, sizeof *m);
    lcg g = {seed};
    m->nv = 3 * nt;
    m->nt = nt;
    m->x = malloc(9 * (size_t)nt * sizeof *m->x);
    m->tri = malloc(3 * (size_t)nt * sizeof *m->tri);
    for (int t = 0; t < nt; t++) {
        double c[3] = {rnd(&g), rnd(&g), rnd(&g)}, r = rnd_in(&g, 0.03, 0.15);
        for (int k = 0; k < 3; k++) {
            m->tri[3 * t + k] = 3 * t + k;
            for (int j = 0; j < 3; j++) m->x[9 * t + 3 * k + j] = c[j] + rnd_in(&g, -r, r);
        }
    }
    weft_error err;
    int rc = weft_mesh_build_topology(m, "soup", &err);
    if (rc != WEFT_OK) fprintf(stderr, "soup: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
}

/* ------------------------------------------------------------------------------ */
/* The reference                                                                   */
/* ------------------------------------------------------------------------------ */

/* Box of the k corners v at x0 and x1 (if non-NULL), grown by h/2. */
static void ref_box(const double *x0, const double *x1, const int *v, int k, double h,
                    double *box) {
    for (int c = 0; c < 3; c++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < k; i++) {
            lo = fmin(lo, x0[3 * v[i] + c]);
            hi = fmax(hi, x0[3 * v[i] + c]);
            if (x1) {
                lo = fmin(lo, x1[3 * v[i] + c]);
                hi = fmax(hi, x1[3 * v[i] + c]);
            }
        }
        box[c] = lo - h / 2;
        box[3 + c] = hi + h / 2;
    }
}

/* Two closed boxes intersect when, on every axis, the larger lo is <= the smaller hi. */
static bool ref_overlap(const double *a, const double *b) {
    for (int c = 0; c < 3; c++)
        if (fmax(a[c], b[c]) > fmin(a[3 + c], b[3 + c])) return false;
    return true;
}

/* True when vertex v is a corner of some triangle of m. */
static bool ref_used(const weft_mesh *m, int v) {
    for (int i = 0; i < 3 * m->nt; i++)
        if (m->tri[i] == v) return true;
    return false;
}

/* One side of a query: a mesh, its positions at both ends of the step, its thickness. */
typedef struct side {
    const weft_mesh *m;
    const double *x0, *x1;
    double h;
} side;

/* Every candidate pair of A against B (self when B.m == NULL), by testing all pairs in
 * index order, so the lists come out sorted. */
static void reference(side A, side B, weft_collision_pairs *ref) {
    const bool self = B.m == NULL;
    if (self) B = A;
    weft_collision_pairs_clear(ref);
    double ba[6], bb[6];
    for (int v = 0; v < A.m->nv; v++) {
        if (!ref_used(A.m, v)) continue;
        ref_box(A.x0, A.x1, &v, 1, A.h, ba);
        for (int t = 0; t < B.m->nt; t++) {
            const int *c = &B.m->tri[3 * t];
            if (self && (c[0] == v || c[1] == v || c[2] == v)) continue;
            ref_box(B.x0, B.x1, c, 3, B.h, bb);
            if (ref_overlap(ba, bb)) weft_pairs_push(&ref->vt, v, t);
        }
    }
    for (int t = 0; t < A.m->nt && !self; t++) {
        ref_box(A.x0, A.x1, &A.m->tri[3 * t], 3, A.h, ba);
        for (int v = 0; v < B.m->nv; v++) {
            if (!ref_used(B.m, v)) continue;
            ref_box(B.x0, B.x1, &v, 1, B.h, bb);
            if (ref_overlap(ba, bb)) weft_pairs_push(&ref->tv, t, v);
        }
    }
    for (int e = 0; e < A.m->ne; e++) {
        const int *ea = &A.m->edge[2 * e];
        ref_box(A.x0, A.x1, ea, 2, A.h, ba);
        for (int f = self ? e + 1 : 0; f < B.m->ne; f++) {
            const int *eb = &B.m->edge[2 * f];
            if (self && (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1]))
                continue;
            ref_box(B.x0, B.x1, eb, 2, B.h, bb);
            if (ref_overlap(ba, bb)) weft_pairs_push(&ref->ee, e, f);
        }
    }
}

/* True when the lists are equal pair by pair; prints the first difference. */
static bool same_pairs(const weft_pairs *got, const weft_pairs *want, const char *what) {
    int n = got->n < want->n ? got->n : want->n;
    for (int i = 0; i < n; i++)
        if (got->pair[i].a != want->pair[i].a || got->pair[i].b != want->pair[i].b) {
            fprintf(stderr, "%s: pair %d is (%d, %d), expected (%d, %d)\n", what, i, got->pair[i].a,
                    got->pair[i].b, want->pair[i].a, want->pair[i].b);
            return false;
        }
    if (got->n != want->n) {
        fprintf(stderr, "%s: %d pairs, expected %d\n", what, got->n, want->n);
        return false;
    }
    return true;
}

/* All three lists equal; `what` names the broad phase in messages. */
static bool same_all(const weft_collision_pairs *got, const weft_collision_pairs *want,
                     const char *what) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s vt", what);
    bool ok = same_pairs(&got->vt, &want->vt, buf);
    snprintf(buf, sizeof buf, "%s tv", what);
    ok = same_pairs(&got->tv, &want->tv, buf) && ok;
    snprintf(buf, sizeof buf, "%s ee", what);
    return same_pairs(&got->ee, &want->ee, buf) && ok;
}

/* Strictly increasing by (a, b): sorted and without duplicates. */
static bool strictly_sorted(const weft_pairs *l) {
    for (int i = 1; i < l->n; i++) {
        const weft_pair *p = &l->pair[i - 1], *q = &l->pair[i];
        if (p->a > q->a || (p->a == q->a && p->b >= q->b)) return false;
    }
    return true;
}

/* No vertex–triangle pair with the vertex a corner, no edge pair sharing a vertex, and
 * every edge pair of one mesh has a < b. */
static bool no_adjacent_pairs(const weft_mesh *m, const weft_collision_pairs *p) {
    for (int i = 0; i < p->vt.n; i++) {
        int v = p->vt.pair[i].a;
        const int *c = &m->tri[3 * p->vt.pair[i].b];
        if (c[0] == v || c[1] == v || c[2] == v) return false;
    }
    for (int i = 0; i < p->ee.n; i++) {
        const int *ea = &m->edge[2 * p->ee.pair[i].a], *eb = &m->edge[2 * p->ee.pair[i].b];
        if (p->ee.pair[i].a >= p->ee.pair[i].b) return false;
        if (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1]) return false;
    }
    return p->tv.n == 0;
}

/* Runs the three broad phases on A against B (self when B.m is NULL) and checks that
 * each equals the reference, which must not be empty unless `may_be_empty`. */
static void check_all_phases(side A, side B, bool may_be_empty) {
    const bool self = B.m == NULL;
    weft_error err;
    weft_collision_pairs ref = {0}, got = {0};
    reference(A, B, &ref);
    if (!may_be_empty) CHECK(ref.vt.n > 0 && ref.ee.n > 0 && (self || ref.tv.n > 0));

    weft_bvh *ta = weft_bvh_create(A.m, A.x0, &err),
             *tb = self ? ta : weft_bvh_create(B.m, B.x0, &err);
    weft_spatial_hash *ha = weft_spatial_hash_create(A.m, NULL, 0, 0, &err);
    weft_spatial_hash *hb = self ? ha : weft_spatial_hash_create(B.m, NULL, 0, 0, &err);
    CHECK(ta && tb && ha && hb);
    if (!(ta && tb && ha && hb)) return;
    CHECK(weft_bvh_refit(ta, A.x0, A.x1, A.h, &err) == WEFT_OK);
    CHECK(weft_spatial_hash_update(ha, A.x0, A.x1, A.h, &err) == WEFT_OK);
    if (!self) {
        CHECK(weft_bvh_refit(tb, B.x0, B.x1, B.h, &err) == WEFT_OK);
        CHECK(weft_spatial_hash_update(hb, B.x0, B.x1, B.h, &err) == WEFT_OK);
    }

    CHECK(weft_bvh_pairs(ta, tb, &got, &err) == WEFT_OK);
    CHECK(same_all(&got, &ref, "bvh"));
    if (self) CHECK(no_adjacent_pairs(A.m, &got));
    CHECK(weft_spatial_hash_pairs(ha, hb, &got, &err) == WEFT_OK);
    CHECK(same_all(&got, &ref, "hash"));
    if (self) CHECK(no_adjacent_pairs(A.m, &got));
    if (self) { /* the vertex–triangle list alone (PBD self-collision's query) */
        weft_pairs vt = {0};
        CHECK(weft_spatial_hash_vt_pairs(ha, &vt, &err) == WEFT_OK);
        CHECK(same_pairs(&vt, &ref.vt, "hash vt only"));
        weft_pairs_free(&vt);
    }
    CHECK(weft_bvh_pairs_brute_force(ta, tb, &got, &err) == WEFT_OK);
    CHECK(same_all(&got, &ref, "brute force"));

    if (!self) weft_bvh_free(&tb), weft_spatial_hash_free(&hb);
    weft_bvh_free(&ta);
    weft_spatial_hash_free(&ha);
    weft_collision_pairs_free(&ref);
    weft_collision_pairs_free(&got);
}

/* ------------------------------------------------------------------------------ */
/* Cases                                                                           */
/* ------------------------------------------------------------------------------ */

/* A 14 × 14 grid (spacing 1/13 m) crumpled by noise of ±0.06 m: the sheet folds through
 * itself, so non-adjacent primitives overlap; proximity at three thicknesses. */
static void crumpled_grid(void) {
    weft_mesh m;
    make_grid(&m, 14, 14, 0.0);
    double *x = crumpled(&m, 0.06, 1);
    const double hs[] = {0.0, 0.01, 0.05};
    for (int i = 0; i < 3; i++) check_all_phases((side){&m, x, NULL, hs[i]}, (side){0}, false);
    free(x);
    weft_mesh_free(&m);
}

/* 150 unconnected random triangles in the unit cube (no adjacency at all but within a
 * triangle), proximity at three thicknesses. */
static void triangle_soup(void) {
    weft_mesh m;
    make_soup(&m, 150, 2);
    const double hs[] = {0.0, 0.02, 0.1};
    for (int i = 0; i < 3; i++) check_all_phases((side){&m, m.x, NULL, hs[i]}, (side){0}, false);
    weft_mesh_free(&m);
}

/* Swept boxes: a crumpled grid and a soup moving by random steps of about an edge
 * length. The swept set must also contain the proximity sets at both ends of the step,
 * since a swept box contains the boxes at x0 and x1. */
static void swept_motion(void) {
    weft_mesh m;
    make_grid(&m, 12, 12, 0.0);
    double *x0 = crumpled(&m, 0.04, 3), *x1 = moved(x0, m.nv, 0.08, 4);
    const double hs[] = {0.0, 0.02};
    for (int i = 0; i < 2; i++) check_all_phases((side){&m, x0, x1, hs[i]}, (side){0}, false);

    weft_mesh soup;
    make_soup(&soup, 120, 5);
    double *s1 = moved(soup.x, soup.nv, 0.1, 6);
    check_all_phases((side){&soup, soup.x, s1, 0.01}, (side){0}, false);

    /* Swept ⊇ proximity at x0 and at x1: every static pair is in the swept list. */
    weft_collision_pairs sw = {0}, st = {0};
    reference((side){&m, x0, x1, 0.01}, (side){0}, &sw);
    for (int end = 0; end < 2; end++) {
        reference((side){&m, end ? x1 : x0, NULL, 0.01}, (side){0}, &st);
        CHECK(st.vt.n > 0 && st.vt.n < sw.vt.n && st.ee.n < sw.ee.n);
        int j = 0, missing = 0;
        for (int i = 0; i < st.vt.n; i++) {
            while (j < sw.vt.n &&
                   (sw.vt.pair[j].a < st.vt.pair[i].a ||
                    (sw.vt.pair[j].a == st.vt.pair[i].a && sw.vt.pair[j].b < st.vt.pair[i].b)))
                j++;
            if (j == sw.vt.n || sw.vt.pair[j].a != st.vt.pair[i].a ||
                sw.vt.pair[j].b != st.vt.pair[i].b)
                missing++;
        }
        CHECK(missing == 0);
    }
    weft_collision_pairs_free(&sw);
    weft_collision_pairs_free(&st);
    free(s1);
    weft_mesh_free(&soup);
    free(x0), free(x1);
    weft_mesh_free(&m);
}

/* Two meshes: sheets of 10 × 10 and 8 × 12 vertices, 0.03 m apart and crumpled by
 * ±0.03 m, with their own thicknesses; proximity and swept (moving into each other).
 * Then the same two sheets as one mesh: every broad phase is exact on it, and its self
 * pairs that join the sheets are exactly the cross pairs. */
static void two_sheets(void) {
    weft_mesh a, b;
    make_grid(&a, 10, 10, 0.0);
    make_grid(&b, 8, 12, 0.03);
    for (int i = 0; i < b.nv; i++) b.x[3 * i] += 0.3; /* partly overlapping in x */
    double *xa = crumpled(&a, 0.03, 7), *xb = crumpled(&b, 0.03, 8);
    double *xa1 = moved(xa, a.nv, 0.03, 9), *xb1 = moved(xb, b.nv, 0.03, 10);
    check_all_phases((side){&a, xa, NULL, 0.01}, (side){&b, xb, NULL, 0.03}, false);
    check_all_phases((side){&b, xb, NULL, 0.03}, (side){&a, xa, NULL, 0.01}, false);
    check_all_phases((side){&a, xa, xa1, 0.0}, (side){&b, xb, xb1, 0.02}, false);
    /* Far apart: nothing. */
    double *far = moved(xb, b.nv, 0.0, 11);
    for (int i = 0; i < b.nv; i++) far[3 * i + 2] += 5.0;
    check_all_phases((side){&a, xa, NULL, 0.01}, (side){&b, far, NULL, 0.01}, true);

    /* The union mesh: a's vertices first, then b's. */
    weft_mesh u = {0};
    u.nv = a.nv + b.nv;
    u.nt = a.nt + b.nt;
    u.x = malloc(3 * (size_t)u.nv * sizeof *u.x);
    u.tri = malloc(3 * (size_t)u.nt * sizeof *u.tri);
    memcpy(u.x, xa, 3 * (size_t)a.nv * sizeof *u.x);
    memcpy(u.x + 3 * a.nv, xb, 3 * (size_t)b.nv * sizeof *u.x);
    memcpy(u.tri, a.tri, 3 * (size_t)a.nt * sizeof *u.tri);
    for (int i = 0; i < 3 * b.nt; i++) u.tri[3 * a.nt + i] = b.tri[i] + a.nv;
    weft_error err;
    CHECK(weft_mesh_build_topology(&u, "union", &err) == WEFT_OK);
    /* Edges are ordered by vertex pair, so a's edges come first, then b's, shifted. */
    CHECK(u.ne == a.ne + b.ne);
    for (int e = 0; e < u.ne; e++) {
        int lo = e < a.ne ? a.edge[2 * e] : b.edge[2 * (e - a.ne)] + a.nv;
        CHECK(u.edge[2 * e] == lo);
    }
    const double h = 0.02;
    check_all_phases((side){&u, u.x, NULL, h}, (side){0}, false); /* two sheets, one mesh */
    weft_bvh *tu = weft_bvh_create(&u, NULL, &err), *ta = weft_bvh_create(&a, NULL, &err),
             *tb = weft_bvh_create(&b, NULL, &err);
    CHECK(weft_bvh_refit(tu, u.x, NULL, h, &err) == WEFT_OK);
    CHECK(weft_bvh_refit(ta, xa, NULL, h, &err) == WEFT_OK);
    CHECK(weft_bvh_refit(tb, xb, NULL, h, &err) == WEFT_OK);
    weft_collision_pairs self = {0}, cross = {0}, want = {0};
    CHECK(weft_bvh_pairs(tu, tu, &self, &err) == WEFT_OK);
    CHECK(weft_bvh_pairs(ta, tb, &cross, &err) == WEFT_OK);
    for (int i = 0; i < self.vt.n; i++) {
        int v = self.vt.pair[i].a, t = self.vt.pair[i].b;
        if (v < a.nv && t >= a.nt) weft_pairs_push(&want.vt, v, t - a.nt);
        if (v >= a.nv && t < a.nt) weft_pairs_push(&want.tv, t, v - a.nv);
    }
    for (int i = 0; i < self.ee.n; i++) {
        int e = self.ee.pair[i].a, f = self.ee.pair[i].b;
        if (e < a.ne && f >= a.ne) weft_pairs_push(&want.ee, e, f - a.ne);
    }
    weft_pairs_sort(&want.tv);
    CHECK(want.vt.n > 0 && want.tv.n > 0 && want.ee.n > 0);
    CHECK(same_all(&cross, &want, "union vs cross"));

    weft_collision_pairs_free(&self);
    weft_collision_pairs_free(&cross);
    weft_collision_pairs_free(&want);
    weft_bvh_free(&tu), weft_bvh_free(&ta), weft_bvh_free(&tb);
    weft_mesh_free(&u);
    free(far), free(xa), free(xb), free(xa1), free(xb1);
    weft_mesh_free(&a);
    weft_mesh_free(&b);
}

/* With a thickness far larger than the mesh every box overlaps every other, so the
 * candidates are exactly the non-adjacent pairs, which can be counted from the mesh:
 * Σ_v (nt − triangles at v) vertex–triangle pairs, and C(ne, 2) − Σ_v C(deg v, 2)
 * edge pairs (two distinct edges share at most one vertex). */
static void adjacent_excluded(void) {
    weft_mesh m;
    make_grid(&m, 6, 5, 0.0);
    int *tris_at = calloc((size_t)m.nv, sizeof *tris_at), *deg = calloc((size_t)m.nv, sizeof *deg);
    for (int i = 0; i < 3 * m.nt; i++) tris_at[m.tri[i]]++;
    for (int i = 0; i < 2 * m.ne; i++) deg[m.edge[i]]++;
    long vt = 0, ee = (long)m.ne * (m.ne - 1) / 2;
    for (int v = 0; v < m.nv; v++) vt += m.nt - tris_at[v], ee -= (long)deg[v] * (deg[v] - 1) / 2;

    weft_error err;
    weft_bvh *t = weft_bvh_create(&m, NULL, &err);
    /* 100 m boxes would span 500^3 cells of the mean edge length: use 50 m cells. */
    weft_spatial_hash *s = weft_spatial_hash_create(&m, NULL, 50.0, 0, &err);
    CHECK(weft_bvh_refit(t, m.x, NULL, 100.0, &err) == WEFT_OK);
    CHECK(weft_spatial_hash_update(s, m.x, NULL, 100.0, &err) == WEFT_OK);
    weft_collision_pairs p = {0};
    CHECK(weft_bvh_pairs(t, t, &p, &err) == WEFT_OK);
    CHECK(p.vt.n == vt && p.ee.n == ee && p.tv.n == 0);
    CHECK(no_adjacent_pairs(&m, &p));
    CHECK(strictly_sorted(&p.vt) && strictly_sorted(&p.ee));
    CHECK(weft_spatial_hash_pairs(s, s, &p, &err) == WEFT_OK);
    CHECK(p.vt.n == vt && p.ee.n == ee && p.tv.n == 0);
    CHECK(no_adjacent_pairs(&m, &p));
    CHECK(strictly_sorted(&p.vt) && strictly_sorted(&p.ee));
    /* At h = 0 on the flat grid, only neighbours across a shared triangle or quad touch:
     * still nothing adjacent. */
    CHECK(weft_bvh_refit(t, m.x, NULL, 0.0, &err) == WEFT_OK);
    CHECK(weft_bvh_pairs(t, t, &p, &err) == WEFT_OK);
    CHECK(no_adjacent_pairs(&m, &p));
    weft_collision_pairs_free(&p);
    weft_spatial_hash_free(&s);
    weft_bvh_free(&t);
    free(tris_at), free(deg);
    weft_mesh_free(&m);
}

/* A tree built on the flat rest grid and refitted to crumpled, moving positions answers
 * exactly like a tree built at those positions, step after step. */
static void refit_matches_build(void) {
    weft_mesh m;
    make_grid(&m, 16, 16, 0.0);
    weft_error err;
    weft_bvh *rest = weft_bvh_create(&m, NULL, &err);
    double *x0 = crumpled(&m, 0.05, 12);
    weft_collision_pairs a = {0}, b = {0}, ref = {0};
    for (int step = 0; step < 3; step++) {
        double *x1 = moved(x0, m.nv, 0.02, 13 + (uint64_t)step);
        weft_bvh *fresh = weft_bvh_create(&m, x1, &err);
        CHECK(weft_bvh_refit(rest, x0, x1, 0.01, &err) == WEFT_OK);
        CHECK(weft_bvh_refit(fresh, x0, x1, 0.01, &err) == WEFT_OK);
        CHECK(weft_bvh_pairs(rest, rest, &a, &err) == WEFT_OK);
        CHECK(weft_bvh_pairs(fresh, fresh, &b, &err) == WEFT_OK);
        reference((side){&m, x0, x1, 0.01}, (side){0}, &ref);
        CHECK(a.vt.n > 0 && a.ee.n > 0);
        CHECK(same_all(&a, &b, "refit vs fresh build"));
        CHECK(same_all(&a, &ref, "refit vs reference"));
        weft_bvh_free(&fresh);
        free(x0);
        x0 = x1;
    }
    /* The same tree answers again for the rest shape after all that. */
    CHECK(weft_bvh_refit(rest, m.x, NULL, 0.0, &err) == WEFT_OK);
    CHECK(weft_bvh_pairs(rest, rest, &a, &err) == WEFT_OK);
    reference((side){&m, m.x, NULL, 0.0}, (side){0}, &ref);
    CHECK(same_all(&a, &ref, "refit back to rest"));
    int nodes, depth;
    weft_bvh_shape(rest, &nodes, &depth);
    CHECK(nodes == 2 * m.nt - 1);
    /* Median splits: depth = ⌈log2 nt⌉ + 1 (450 triangles: 9 + 1). */
    CHECK(depth == 10);
    weft_collision_pairs_free(&a);
    weft_collision_pairs_free(&b);
    weft_collision_pairs_free(&ref);
    weft_bvh_free(&rest);
    free(x0);
    weft_mesh_free(&m);
}

/* An empty mesh and a single triangle have no candidates whatever h; two single
 * triangles 0.5 m apart have 3 + 3 vertex–triangle and 9 edge pairs once h >= 0.5 m. */
static void empty_and_single(void) {
    weft_error err;
    weft_mesh empty = {0};
    CHECK(weft_mesh_build_topology(&empty, "empty", &err) == WEFT_OK);
    weft_bvh *t = weft_bvh_create(&empty, NULL, &err);
    weft_spatial_hash *s = weft_spatial_hash_create(&empty, NULL, 0, 0, &err);
    CHECK(t && s);
    weft_collision_pairs p = {0};
    CHECK(weft_bvh_refit(t, NULL, NULL, 1.0, &err) == WEFT_OK);
    CHECK(weft_bvh_pairs(t, t, &p, &err) == WEFT_OK);
    CHECK(p.vt.n == 0 && p.tv.n == 0 && p.ee.n == 0);
    CHECK(weft_spatial_hash_pairs(s, s, &p, &err) == WEFT_OK);
    CHECK(p.vt.n == 0 && p.tv.n == 0 && p.ee.n == 0);
    int nodes = -1, depth = -1;
    weft_bvh_shape(t, &nodes, &depth);
    CHECK(nodes == 0 && depth == 0);

    weft_mesh one = {0}, two = {0};
    for (int k = 0; k < 2; k++) {
        weft_mesh *m = k ? &two : &one;
        m->nv = 3, m->nt = 1;
        m->x = calloc(9, sizeof *m->x);
        m->tri = malloc(3 * sizeof *m->tri);
        m->x[3] = m->x[7] = 1.0; /* (0,0,0), (1,0,0), (0,1,0) */
        m->x[2] = m->x[5] = m->x[8] = 0.5 * k;
        m->tri[0] = 0, m->tri[1] = 1, m->tri[2] = 2;
        CHECK(weft_mesh_build_topology(m, "one", &err) == WEFT_OK);
    }
    weft_bvh *t1 = weft_bvh_create(&one, NULL, &err), *t2 = weft_bvh_create(&two, NULL, &err);
    weft_spatial_hash *s1 = weft_spatial_hash_create(&one, NULL, 0, 0, &err);
    weft_spatial_hash *s2 = weft_spatial_hash_create(&two, NULL, 0, 0, &err);
    /* At h = 0.5 the boxes touch (z = 0.25 both): touching counts as overlapping. */
    const double hs[] = {0.0, 0.4, 0.5, 10.0};
    for (int i = 0; i < 4; i++) {
        CHECK(weft_bvh_refit(t1, one.x, NULL, hs[i], &err) == WEFT_OK);
        CHECK(weft_bvh_refit(t2, two.x, NULL, hs[i], &err) == WEFT_OK);
        CHECK(weft_spatial_hash_update(s1, one.x, NULL, hs[i], &err) == WEFT_OK);
        CHECK(weft_spatial_hash_update(s2, two.x, NULL, hs[i], &err) == WEFT_OK);
        CHECK(weft_bvh_pairs(t1, t1, &p, &err) == WEFT_OK);
        CHECK(p.vt.n == 0 && p.tv.n == 0 && p.ee.n == 0);
        CHECK(weft_spatial_hash_pairs(s1, s1, &p, &err) == WEFT_OK);
        CHECK(p.vt.n == 0 && p.tv.n == 0 && p.ee.n == 0);
        /* The triangles are 0.5 m apart in z: boxes meet once h/2 + h/2 >= 0.5. */
        int expect = hs[i] >= 0.5 ? 1 : 0;
        CHECK(weft_bvh_pairs(t1, t2, &p, &err) == WEFT_OK);
        CHECK(p.vt.n == 3 * expect && p.tv.n == 3 * expect && p.ee.n == 9 * expect);
        CHECK(weft_spatial_hash_pairs(s1, s2, &p, &err) == WEFT_OK);
        CHECK(p.vt.n == 3 * expect && p.tv.n == 3 * expect && p.ee.n == 9 * expect);
    }
    weft_collision_pairs_free(&p);
    weft_bvh_free(&t), weft_bvh_free(&t1), weft_bvh_free(&t2);
    weft_spatial_hash_free(&s), weft_spatial_hash_free(&s1), weft_spatial_hash_free(&s2);
    weft_mesh_free(&empty), weft_mesh_free(&one), weft_mesh_free(&two);
}

/* Output is sorted and free of duplicates, identical from two separately built
 * structures, and a repeated query on warm buffers allocates nothing (same buffers). */
static void deterministic_order(void) {
    weft_mesh m;
    make_grid(&m, 14, 14, 0.0);
    double *x0 = crumpled(&m, 0.06, 14), *x1 = moved(x0, m.nv, 0.03, 15);
    weft_error err;
    weft_bvh *t1 = weft_bvh_create(&m, NULL, &err), *t2 = weft_bvh_create(&m, x0, &err);
    weft_spatial_hash *s = weft_spatial_hash_create(&m, NULL, 0, 0, &err);
    CHECK(weft_bvh_refit(t1, x0, x1, 0.01, &err) == WEFT_OK);
    CHECK(weft_bvh_refit(t2, x0, x1, 0.01, &err) == WEFT_OK);
    CHECK(weft_spatial_hash_update(s, x0, x1, 0.01, &err) == WEFT_OK);
    weft_collision_pairs a = {0}, b = {0};
    CHECK(weft_bvh_pairs(t1, t1, &a, &err) == WEFT_OK);
    CHECK(a.vt.n > 0 && a.ee.n > 0);
    CHECK(strictly_sorted(&a.vt) && strictly_sorted(&a.ee));
    CHECK(weft_bvh_pairs(t2, t2, &b, &err) == WEFT_OK);
    CHECK(same_all(&a, &b, "two trees"));
    CHECK(weft_spatial_hash_pairs(s, s, &b, &err) == WEFT_OK);
    CHECK(strictly_sorted(&b.vt) && strictly_sorted(&b.ee));
    CHECK(same_all(&a, &b, "tree vs hash"));

    /* Warm buffers: the same query again keeps every buffer and gives the same list. */
    const weft_pair *vt = a.vt.pair, *ee = a.ee.pair;
    int vt_cap = a.vt.cap, ee_cap = a.ee.cap;
    int vt_n = a.vt.n, ee_n = a.ee.n;
    CHECK(weft_bvh_refit(t1, x0, x1, 0.01, &err) == WEFT_OK);
    CHECK(weft_bvh_pairs(t1, t1, &a, &err) == WEFT_OK);
    /* The sort may leave the result in either of the two buffers it swaps between. */
    CHECK(a.vt.cap == vt_cap && a.ee.cap == ee_cap && a.vt.n == vt_n && a.ee.n == ee_n);
    CHECK((a.vt.pair == vt || a.vt.tmp == vt) && (a.ee.pair == ee || a.ee.tmp == ee));
    CHECK(same_all(&a, &b, "repeated query"));

    weft_collision_pairs_free(&a);
    weft_collision_pairs_free(&b);
    weft_bvh_free(&t1), weft_bvh_free(&t2);
    weft_spatial_hash_free(&s);
    free(x0), free(x1);
    weft_mesh_free(&m);
}

/* Vertex-vs-tree queries, one per vertex with its own triangles excluded, together give
 * the tree-vs-tree vertex–triangle list; a point far away finds nothing. */
static void point_query(void) {
    weft_mesh m;
    make_grid(&m, 12, 12, 0.0);
    double *x0 = crumpled(&m, 0.05, 16), *x1 = moved(x0, m.nv, 0.03, 17);
    weft_error err;
    weft_bvh *t = weft_bvh_create(&m, NULL, &err);
    CHECK(weft_bvh_refit(t, x0, x1, 0.02, &err) == WEFT_OK);
    weft_collision_pairs ref = {0};
    reference((side){&m, x0, x1, 0.02}, (side){0}, &ref);
    weft_pairs got = {0};
    for (int v = 0; v < m.nv; v++)
        CHECK(weft_bvh_point_query(t, v, &x0[3 * v], &x1[3 * v], 0.02, v, &got, &err) == WEFT_OK);
    weft_pairs_sort(&got);
    CHECK(ref.vt.n > 0);
    CHECK(same_pairs(&got, &ref.vt, "point queries"));
    got.n = 0;
    const double far[3] = {10, 10, 10};
    CHECK(weft_bvh_point_query(t, 0, far, NULL, 0.02, -1, &got, &err) == WEFT_OK);
    CHECK(got.n == 0);
    /* A point on the sheet's first vertex with nothing excluded finds its own triangles. */
    CHECK(weft_bvh_point_query(t, 7, &x0[0], NULL, 0.0, -1, &got, &err) == WEFT_OK);
    int own = 0;
    for (int i = 0; i < got.n; i++) {
        const int *c = &m.tri[3 * got.pair[i].b];
        CHECK(got.pair[i].a == 7);
        own += c[0] == 0 || c[1] == 0 || c[2] == 0;
    }
    int at0 = 0;
    for (int i = 0; i < 3 * m.nt; i++) at0 += m.tri[i] == 0;
    CHECK(at0 > 0 && own == at0);
    weft_pairs_free(&got);
    weft_collision_pairs_free(&ref);
    weft_bvh_free(&t);
    free(x0), free(x1);
    weft_mesh_free(&m);
}

/* The hash is exact whatever its cells and table: cells 5 times smaller and 7 times
 * larger than the mean edge, and tables of 1 and 2 buckets (every cell collides). The
 * defaults are the mean edge length and a prime >= max(nv, ne, nt). */
static void hash_cells_and_tables(void) {
    weft_mesh m;
    make_grid(&m, 12, 12, 0.0);
    double *x0 = crumpled(&m, 0.05, 18), *x1 = moved(x0, m.nv, 0.03, 19);
    weft_collision_pairs ref = {0}, got = {0};
    reference((side){&m, x0, x1, 0.01}, (side){0}, &ref);
    CHECK(ref.vt.n > 0 && ref.ee.n > 0);
    weft_error err;
    double mean = 0;
    for (int e = 0; e < m.ne; e++) {
        const double *p = &m.x[3 * m.edge[2 * e]], *q = &m.x[3 * m.edge[2 * e + 1]];
        double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
        mean += norm3(d) / m.ne;
    }
    weft_spatial_hash *s = weft_spatial_hash_create(&m, NULL, 0, 0, &err);
    double cell;
    int size;
    weft_spatial_hash_shape(s, &cell, &size);
    CHECK_NEAR(cell, mean, 1e-12);
    int most = m.ne > m.nv ? m.ne : m.nv;
    most = m.nt > most ? m.nt : most;
    bool prime = size >= 2;
    for (int d = 2; d * d <= size; d++) prime = prime && size % d != 0;
    CHECK(prime && size >= most);
    for (int k = most; k < size; k++) { /* and the smallest such prime */
        bool p = true;
        for (int d = 2; d * d <= k; d++) p = p && k % d != 0;
        CHECK(!p);
    }
    weft_spatial_hash_free(&s);

    const double cells[] = {mean / 5, mean * 7, mean, mean};
    const int tables[] = {0, 0, 1, 2};
    for (int i = 0; i < 4; i++) {
        s = weft_spatial_hash_create(&m, NULL, cells[i], tables[i], &err);
        CHECK(s != NULL);
        CHECK(weft_spatial_hash_update(s, x0, x1, 0.01, &err) == WEFT_OK);
        CHECK(weft_spatial_hash_pairs(s, s, &got, &err) == WEFT_OK);
        CHECK(same_all(&got, &ref, "hash"));
        weft_spatial_hash_free(&s);
    }
    weft_collision_pairs_free(&ref);
    weft_collision_pairs_free(&got);
    free(x0), free(x1);
    weft_mesh_free(&m);
}

/* Bad input gets an error, not a silent miss: non-finite positions (naming the vertex),
 * a negative or NaN thickness, a mesh without topology, a cell far too small. */
static void bad_input(void) {
    weft_mesh m;
    make_grid(&m, 4, 4, 0.0);
    weft_error err = {{0}};
    weft_bvh *t = weft_bvh_create(&m, NULL, &err);
    weft_spatial_hash *s = weft_spatial_hash_create(&m, NULL, 0, 0, &err);
    double *x = crumpled(&m, 0.0, 20);
    x[3 * 5 + 1] = NAN;
    CHECK(weft_bvh_refit(t, x, NULL, 0.0, &err) == WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, "vertex 6") != NULL);
    CHECK(weft_spatial_hash_update(s, m.x, x, 0.0, &err) == WEFT_ERR_INPUT);
    CHECK(weft_bvh_refit(t, m.x, NULL, -1.0, &err) == WEFT_ERR_INPUT);
    CHECK(weft_bvh_refit(t, m.x, NULL, NAN, &err) == WEFT_ERR_INPUT);
    CHECK(weft_bvh_point_query(t, 0, x + 15, NULL, 0.0, -1, NULL, &err) == WEFT_ERR_INPUT);
    CHECK(weft_spatial_hash_create(&m, NULL, NAN, 0, &err) == NULL);

    weft_mesh bare = m; /* triangles without edges */
    bare.ne = 0, bare.edge = NULL, bare.edge_tri = NULL;
    CHECK(weft_bvh_create(&bare, NULL, &err) == NULL);
    CHECK(strstr(err.msg, "topology") != NULL);
    CHECK(weft_spatial_hash_create(&bare, NULL, 0, 0, &err) == NULL);

    weft_spatial_hash *tiny = weft_spatial_hash_create(&m, NULL, 1e-6, 0, &err);
    CHECK(tiny != NULL);
    weft_collision_pairs p = {0};
    CHECK(weft_spatial_hash_pairs(tiny, tiny, &p, &err) == WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, "cells") != NULL);
    weft_collision_pairs_free(&p);
    weft_spatial_hash_free(&tiny);
    weft_spatial_hash_free(&s);
    weft_bvh_free(&t);
    free(x);
    weft_mesh_free(&m);
}

/* qsort order of (a, b), to check the radix sort against. */
static int cmp_pair(const void *pa, const void *pb) {
    const weft_pair *p = pa, *q = pb;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* weft_pairs_sort orders like qsort, for small and for 31-bit indices, with repeats. */
static void sort_pairs(void) {
    lcg g = {21};
    const int ranges[][2] = {{3, 5}, {1000, 70000}, {2147483647, 2147483647}, {1, 1}};
    for (int r = 0; r < 4; r++) {
        weft_pairs l = {0};
        const int n = 5000;
        weft_pair *want = malloc(n * sizeof *want);
        for (int i = 0; i < n; i++) {
            int a = (int)(rnd(&g) * ranges[r][0]), b = (int)(rnd(&g) * ranges[r][1]);
            CHECK(weft_pairs_push(&l, a, b) == WEFT_OK);
            want[i] = (weft_pair){a, b};
        }
        qsort(want, n, sizeof *want, cmp_pair);
        weft_pairs_sort(&l);
        CHECK(l.n == n && l.cap >= n);
        int bad = 0;
        for (int i = 0; i < n; i++) bad += l.pair[i].a != want[i].a || l.pair[i].b != want[i].b;
        CHECK(bad == 0);
        free(want);
        weft_pairs_free(&l);
        CHECK(l.n == 0 && l.cap == 0 && l.pair == NULL);
    }
}

static const check_case cases[] = {
    {"crumpled_grid", crumpled_grid},
    {"triangle_soup", triangle_soup},
    {"swept_motion", swept_motion},
    {"two_sheets", two_sheets},
    {"adjacent_excluded", adjacent_excluded},
    {"refit_matches_build", refit_matches_build},
    {"empty_and_single", empty_and_single},
    {"deterministic_order", deterministic_order},
    {"point_query", point_query},
    {"hash_cells_and_tables", hash_cells_and_tables},
    {"bad_input", bad_input},
    {"sort_pairs", sort_pairs},
    {NULL, NULL},
};

int main(int argc, char **argv) {
    return check_main(argc, argv, cases);
}
