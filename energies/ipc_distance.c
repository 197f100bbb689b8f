/* ipc_distance.c — unsigned squared distances between primitives and their distance-type
 * classification, for Incremental Potential Contact (Li et al. 2020, ACM TOG 39(4), §4 and
 * its supplement: "distance computation"). With r, u, v differences of the pair's points:
 *
 *   point–point    s = |p − q|²
 *   point–line     s = |r × u|² / |u|²,              r = e0 − p, u = e1 − e0
 *   point–plane    s = (r·(u × v))² / |u × v|²,      r = p − t0, u = t1 − t0, v = t2 − t0
 *   line–line      s = (r·(u × v))² / |u × v|²,      r = b0 − a0, u = a1 − a0, v = b1 − b0
 *
 * Each is N/D of polynomials in (r, u, v); with h = |u × v|², g = r·(u × v) (w = u × v):
 *   ∇h = (2 v × w, 2 w × u),  ∇²h = 2 JᵀJ + 2 [[0, −[w]×], [[w]×, 0]],  J = [−[v]×, [u]×]
 *   ∇g = (u × v, v × r, r × u), ∇²g blocks ru = −[v]×, rv = [u]×, uv = −[r]× (symmetric)
 *   ∇(N/D) = ∇N/D − N ∇D/D²,
 *   ∇²(N/D) = ∇²N/D − (∇N ∇Dᵀ + ∇D ∇Nᵀ)/D² − N ∇²D/D² + 2 N ∇D ∇Dᵀ/D³,
 * exact, then mapped to the points by the constant ±1 matrix x ↦ (r, u, v).
 *
 * Classification (Li 2020 Fig. 4): the unsigned distance of a point and a triangle, or of
 * two segments, is the minimum of a convex function over barycentric coordinates; if the
 * unconstrained minimiser (projection on the plane; closest points of the lines) lies
 * inside, the type is point–plane or line–line; otherwise the minimum lies on the boundary,
 * the least of the point–segment distances (each point–point or point–line by where the
 * projection falls). So the chosen s is the true squared distance, continuous (C¹ where
 * s > 0), and each type's formula is smooth, so its Hessian is exact on its region.
 * Edges within sin² θ ≤ 1e-20 of parallel (or of zero length) never take line–line.
 */
#include "ipc.h"

#include <string.h>

#define PARALLEL_SIN2 1e-20

static void sub3(const double *a, const double *b, double *c) {
    for (int i = 0; i < 3; i++) c[i] = a[i] - b[i];
}
static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const double *a, const double *b, double *c) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}
/* S = s [a]× written into the 3×3 block at (row, col) of the n-wide matrix H (added). */
static void add_skew(double *H, int n, int row, int col, const double *a, double s) {
    double k[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) H[(row + i) * n + col + j] += s * k[i * 3 + j];
}

/* h = |u × v|² over (u, v): gradient (6), Hessian (6×6) when not NULL. */
static double cross_sq(const double *u, const double *v, double *g, double *H) {
    double w[3];
    cross3(u, v, w);
    if (g) {
        cross3(v, w, g);
        cross3(w, u, g + 3);
        for (int i = 0; i < 6; i++) g[i] *= 2;
    }
    if (H) {
        double J[18] = {0}; /* 3×6: ∂w/∂(u, v) */
        add_skew(J, 6, 0, 0, v, -1);
        add_skew(J, 6, 0, 3, u, 1);
        for (int a = 0; a < 6; a++)
            for (int b = 0; b < 6; b++) {
                double s = 0;
                for (int k = 0; k < 3; k++) s += J[k * 6 + a] * J[k * 6 + b];
                H[a * 6 + b] = 2 * s;
            }
        add_skew(H, 6, 0, 3, w, -2);
        add_skew(H, 6, 3, 0, w, 2);
    }
    return dot3(w, w);
}

/* g = r·(u × v) over (r, u, v): gradient (9), Hessian (9×9). */
static double triple(const double *r, const double *u, const double *v, double *g, double *H) {
    double w[3];
    cross3(u, v, w);
    cross3(u, v, g);
    cross3(v, r, g + 3);
    cross3(r, u, g + 6);
    memset(H, 0, 81 * sizeof *H);
    add_skew(H, 9, 0, 3, v, -1);
    add_skew(H, 9, 3, 0, v, 1);
    add_skew(H, 9, 0, 6, u, 1);
    add_skew(H, 9, 6, 0, u, -1);
    add_skew(H, 9, 3, 6, r, -1);
    add_skew(H, 9, 6, 3, r, 1);
    return dot3(r, w);
}

/* f = N/D with the gradient and Hessian (n ≤ 9 variables; g, H may be NULL). */
static double quotient(int n, double N, const double *gN, const double *HN, double D,
                       const double *gD, const double *HD, double *g, double *H) {
    double f = N / D;
    if (g)
        for (int a = 0; a < n; a++) g[a] = gN[a] / D - N * gD[a] / (D * D);
    if (H)
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++)
                H[a * n + b] = HN[a * n + b] / D -
                               (gN[a] * gD[b] + gD[a] * gN[b]) / (D * D) -
                               N * HD[a * n + b] / (D * D) + 2 * N * gD[a] * gD[b] / (D * D * D);
    return f;
}

/* Maps the gradient and Hessian over nv local vectors, vector k = Σ_i C[k][i] x_i, to the np
 * points (g, H may be NULL). */
static void to_points(int nv, int np, const int C[3][4], const double *gl, const double *Hl,
                      double *g, double *H) {
    int nl = 3 * nv, nx = 3 * np;
    if (g) {
        for (int i = 0; i < nx; i++) g[i] = 0;
        for (int k = 0; k < nv; k++)
            for (int i = 0; i < np; i++)
                for (int c = 0; c < 3; c++) g[3 * i + c] += C[k][i] * gl[3 * k + c];
    }
    if (H) {
        for (int i = 0; i < nx * nx; i++) H[i] = 0;
        for (int k = 0; k < nv; k++)
            for (int l = 0; l < nv; l++)
                for (int i = 0; i < np; i++)
                    for (int j = 0; j < np; j++) {
                        int s = C[k][i] * C[l][j];
                        if (!s) continue;
                        for (int a = 0; a < 3; a++)
                            for (int b = 0; b < 3; b++)
                                H[(3 * i + a) * nx + 3 * j + b] +=
                                    s * Hl[(3 * k + a) * nl + 3 * l + b];
                    }
    }
}

double weft_ipc_d2_pp(const double p[3], const double q[3], double g[6], double H[36]) {
    double d[3];
    sub3(p, q, d);
    if (g)
        for (int c = 0; c < 3; c++) g[c] = 2 * d[c], g[3 + c] = -2 * d[c];
    if (H) {
        memset(H, 0, 36 * sizeof *H);
        for (int c = 0; c < 3; c++) {
            H[c * 6 + c] = H[(3 + c) * 6 + 3 + c] = 2;
            H[c * 6 + 3 + c] = H[(3 + c) * 6 + c] = -2;
        }
    }
    return dot3(d, d);
}

double weft_ipc_d2_pe(const double p[3], const double e0[3], const double e1[3], double g[9],
                      double H[81]) {
    static const int C[3][4] = {{-1, 1, 0, 0}, {0, -1, 1, 0}, {0, 0, 0, 0}};
    double r[3], u[3], gN[6], HN[36], gD[6] = {0}, HD[36] = {0}, gl[6], Hl[36];
    sub3(e0, p, r);
    sub3(e1, e0, u);
    double N = cross_sq(r, u, gN, HN);
    for (int c = 0; c < 3; c++) gD[3 + c] = 2 * u[c], HD[(3 + c) * 6 + 3 + c] = 2;
    double f = quotient(6, N, gN, HN, dot3(u, u), gD, HD, g ? gl : NULL, H ? Hl : NULL);
    to_points(2, 3, C, gl, Hl, g, H);
    return f;
}

/* (r·(u × v))²/|u × v|² over (r, u, v) (9 variables). */
static double plane_sq(const double *r, const double *u, const double *v, double *g, double *H) {
    double gg[9], Hg[81], gN[9], HN[81], gD[9] = {0}, HD[81] = {0}, gh[6], Hh[36];
    double t = triple(r, u, v, gg, Hg);
    for (int a = 0; a < 9; a++) {
        gN[a] = 2 * t * gg[a];
        for (int b = 0; b < 9; b++) HN[a * 9 + b] = 2 * gg[a] * gg[b] + 2 * t * Hg[a * 9 + b];
    }
    double D = cross_sq(u, v, gh, Hh);
    for (int a = 0; a < 6; a++) {
        gD[3 + a] = gh[a];
        for (int b = 0; b < 6; b++) HD[(3 + a) * 9 + 3 + b] = Hh[a * 6 + b];
    }
    return quotient(9, t * t, gN, HN, D, gD, HD, g, H);
}

double weft_ipc_d2_pt(const double p[3], const double t0[3], const double t1[3],
                      const double t2[3], double g[12], double H[144]) {
    static const int C[3][4] = {{1, -1, 0, 0}, {0, -1, 1, 0}, {0, -1, 0, 1}};
    double r[3], u[3], v[3], gl[9], Hl[81];
    sub3(p, t0, r);
    sub3(t1, t0, u);
    sub3(t2, t0, v);
    double f = plane_sq(r, u, v, gl, Hl);
    to_points(3, 4, C, gl, Hl, g, H);
    return f;
}

double weft_ipc_d2_ee(const double a0[3], const double a1[3], const double b0[3],
                      const double b1[3], double g[12], double H[144]) {
    static const int C[3][4] = {{-1, 0, 1, 0}, {-1, 1, 0, 0}, {0, 0, -1, 1}};
    double r[3], u[3], v[3], gl[9], Hl[81];
    sub3(b0, a0, r);
    sub3(a1, a0, u);
    sub3(b1, b0, v);
    double f = plane_sq(r, u, v, gl, Hl);
    to_points(3, 4, C, gl, Hl, g, H);
    return f;
}

/* The point–segment type of point ip against the segment (ia, ib) of x, and its s. */
static weft_ipc_dist point_segment(const double *x, int ip, int ia, int ib, double *s) {
    const double *p = x + 3 * ip, *a = x + 3 * ia, *b = x + 3 * ib;
    double e[3], r[3];
    sub3(b, a, e);
    sub3(p, a, r);
    double ee = dot3(e, e), t = ee > 0 ? dot3(r, e) / ee : 0;
    if (t <= 0) {
        *s = dot3(r, r);
        return (weft_ipc_dist){WEFT_IPC_PP, ip, ia, -1};
    }
    double q[3];
    sub3(p, b, q);
    if (t >= 1) {
        *s = dot3(q, q);
        return (weft_ipc_dist){WEFT_IPC_PP, ip, ib, -1};
    }
    double c[3];
    for (int k = 0; k < 3; k++) c[k] = r[k] - t * e[k];
    *s = dot3(c, c);
    return (weft_ipc_dist){WEFT_IPC_PE, ip, ia, ib};
}

/* The least of the point–segment candidates cand[n][3] (point, segment end, segment end). */
static weft_ipc_dist least_point_segment(const double *x, const int cand[][3], int n) {
    double best = 0;
    weft_ipc_dist out = {WEFT_IPC_PP, -1, -1, -1};
    for (int c = 0; c < n; c++) {
        double s;
        weft_ipc_dist d = point_segment(x, cand[c][0], cand[c][1], cand[c][2], &s);
        if (c == 0 || s < best) best = s, out = d;
    }
    return out;
}

weft_ipc_dist weft_ipc_classify_pt(const double x[12]) {
    const double *p = x, *t0 = x + 3, *t1 = x + 6, *t2 = x + 9;
    double u[3], v[3], n[3];
    sub3(t1, t0, u);
    sub3(t2, t0, v);
    cross3(u, v, n);
    double nn = dot3(n, n);
    if (nn > PARALLEL_SIN2 * dot3(u, u) * dot3(v, v)) {
        /* Inside when p lies on the inner side of each edge's plane through n. */
        const double *T[3] = {t0, t1, t2};
        bool inside = true;
        for (int k = 0; k < 3 && inside; k++) {
            double e[3], r[3], m[3];
            sub3(T[(k + 1) % 3], T[k], e);
            sub3(p, T[k], r);
            cross3(e, r, m);
            inside = dot3(m, n) >= 0;
        }
        if (inside) return (weft_ipc_dist){WEFT_IPC_PT, 0, -1, -1};
    }
    static const int cand[3][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 1}};
    return least_point_segment(x, cand, 3);
}

weft_ipc_dist weft_ipc_classify_ee(const double x[12]) {
    const double *a0 = x, *a1 = x + 3, *b0 = x + 6, *b1 = x + 9;
    double u[3], v[3], w[3];
    sub3(a1, a0, u);
    sub3(b1, b0, v);
    sub3(a0, b0, w);
    double A = dot3(u, u), B = dot3(u, v), C = dot3(v, v), D = dot3(u, w), E = dot3(v, w);
    /* den = A C − B² = |u × v|², taken from the cross product: the difference cancels to
     * rounding noise of order ε A C for parallel edges, which passes the test below and
     * called two parallel edges of a flat cloth 1e-10 m apart */
    double uxv[3];
    cross3(u, v, uxv);
    double den = dot3(uxv, uxv);
    if (den > PARALLEL_SIN2 * A * C) {
        double s = (B * E - C * D) / den, t = (A * E - B * D) / den;
        if (s > 0 && s < 1 && t > 0 && t < 1) return (weft_ipc_dist){WEFT_IPC_EE, 0, -1, -1};
    }
    static const int cand[4][3] = {{0, 2, 3}, {1, 2, 3}, {2, 0, 1}, {3, 0, 1}};
    return least_point_segment(x, cand, 4);
}

/* Adds the gradient and Hessian over the points idx[0..np−1] into the 12-coordinate g, H. */
static void scatter(int np, const int *idx, const double *gl, const double *Hl, double *g,
                    double *H) {
    int nl = 3 * np;
    for (int a = 0; a < np; a++)
        for (int c = 0; c < 3; c++) {
            if (g) g[3 * idx[a] + c] += gl[3 * a + c];
            if (H)
                for (int b = 0; b < np; b++)
                    for (int e = 0; e < 3; e++)
                        H[(3 * idx[a] + c) * 12 + 3 * idx[b] + e] += Hl[(3 * a + c) * nl + 3 * b + e];
        }
}

double weft_ipc_d2(const double x[12], weft_ipc_dist t, double g[12], double H[144]) {
    double gl[12], Hl[144], s;
    if (g) memset(g, 0, 12 * sizeof *g);
    if (H) memset(H, 0, 144 * sizeof *H);
    switch (t.type) {
    case WEFT_IPC_PP: {
        int idx[2] = {t.i, t.j};
        s = weft_ipc_d2_pp(x + 3 * t.i, x + 3 * t.j, gl, Hl);
        scatter(2, idx, gl, Hl, g, H);
        return s;
    }
    case WEFT_IPC_PE: {
        int idx[3] = {t.i, t.j, t.k};
        s = weft_ipc_d2_pe(x + 3 * t.i, x + 3 * t.j, x + 3 * t.k, gl, Hl);
        scatter(3, idx, gl, Hl, g, H);
        return s;
    }
    case WEFT_IPC_PT:
        return weft_ipc_d2_pt(x, x + 3, x + 6, x + 9, g, H);
    case WEFT_IPC_EE:
    default:
        return weft_ipc_d2_ee(x, x + 3, x + 6, x + 9, g, H);
    }
}

double weft_ipc_cross_sq(const double x[12], double g[12], double H[144]) {
    static const int C[3][4] = {{-1, 1, 0, 0}, {0, 0, -1, 1}, {0, 0, 0, 0}};
    double u[3], v[3], gl[6], Hl[36];
    sub3(x + 3, x, u);
    sub3(x + 9, x + 6, v);
    double c = cross_sq(u, v, gl, Hl);
    to_points(2, 4, C, gl, Hl, g, H);
    return c;
}
