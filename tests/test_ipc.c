/* test_ipc.c — the Incremental Potential Contact building blocks of energies/ipc.h
 * (ipc_distance.c, ipc_barrier.c): exact derivatives against fourth-order central
 * differences (relative 1e-6), the distance-type classifier against brute force and along
 * paths across type boundaries, and the barrier's support and blow-up. Cases:
 *   dist_fd          gradient and Hessian of every distance type (PP, PE, PT, EE) at random
 *                    pairs and degenerate ones (point over a triangle's edge or vertex, point
 *                    projecting onto a segment's end, nearly parallel lines)
 *   classify_pt      point–triangle: the classified s equals a dense brute-force minimum;
 *                    along paths s is C¹ across type boundaries (all 7 types visited)
 *   classify_ee      edge–edge likewise, parallel and crossing edges included
 *   parallel_fd      exactly parallel and collinear edges: classified as PE/PP, whose
 *                    derivatives pass the same FD check
 *   barrier_fd       b'(s), b''(s) against differences, with and without thickness ξ
 *   barrier_support  b = b' = b'' = 0 for d ≥ ξ + d̂; pair energies and gradients exactly 0
 *                    there; b grows without bound as d → ξ, +∞ at d = ξ
 *   mollifier_fd     e(x) gradient and Hessian for nearly parallel edges; e = 1, zero
 *                    derivatives beyond ε_x
 *   energy_fd        point–triangle and (mollified) edge–edge pair energies, exact Hessian
 *   energy_psd       the projected Hessian is PSD, and differs from an indefinite exact one
 */
#include "check.h"
#include "fd12.h"
#include "fem.h"
#include "ipc.h"
#include "test_util.h"

static double d2_fixed(const double *x, const void *ctx, double *g, double *H) {
    return weft_ipc_d2(x, *(const weft_ipc_dist *)ctx, g, H);
}

static void random_x(lcg *r, double *x) {
    for (int i = 0; i < 12; i++) x[i] = rnd_in(r, -1, 1);
}

static void dist_fd(void) {
    lcg r = {17};
    const weft_ipc_dist types[] = {
        {WEFT_IPC_PP, 0, 3, -1}, {WEFT_IPC_PP, 2, 1, -1}, {WEFT_IPC_PE, 0, 1, 2},
        {WEFT_IPC_PE, 3, 0, 2},  {WEFT_IPC_PT, 0, -1, -1}, {WEFT_IPC_EE, 0, -1, -1}};
    double worst = 0;
    for (int trial = 0; trial < 20; trial++) {
        double x[12];
        random_x(&r, x);
        for (size_t t = 0; t < sizeof types / sizeof *types; t++)
            worst = fmax(worst, fd_check(d2_fixed, &types[t], x, 12, 1e-4, 1e-6));
    }
    /* Degenerate places: p exactly over an edge's midpoint, over a vertex, on the plane. */
    double tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const double ps[][3] = {{0.5, 0, 0.3}, {0.5, 0.5, 0.2}, {0, 0, 0.4}, {1, 0, 0.1}, {0.2, 0.2, 0}};
    for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
        double x[12] = {ps[k][0], ps[k][1], ps[k][2]};
        for (int i = 0; i < 9; i++) x[3 + i] = tri[i];
        for (size_t t = 0; t < sizeof types / sizeof *types; t++)
            if (types[t].type != WEFT_IPC_EE)
                worst = fmax(worst, fd_check(d2_fixed, &types[t], x, 12, 1e-4, 1e-6));
    }
    /* p projecting onto the end of segment (t1, t2): foot at t1 exactly. */
    double xe[12] = {1, 0.5, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0};
    worst = fmax(worst, fd_check(d2_fixed, &types[2], xe, 12, 1e-4, 1e-6));
    /* Nearly parallel lines (sin θ = 1e-3) at distance 0.1. */
    double xp[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0.1, 1, 1e-3, 0.1};
    worst = fmax(worst, fd_check(d2_fixed, &types[5], xp, 12, 1e-5, 1e-6));
    fprintf(stderr, "dist_fd: worst relative error %.3g\n", worst);
    /* Closed forms: the line–line distance of two skew unit axes, point–plane height. */
    double xl[12] = {0, 0, 0, 1, 0, 0, 0, 0.5, 0.3, 0, 1.5, 0.3};
    CHECK_NEAR(weft_ipc_d2(xl, types[5], NULL, NULL), 0.09, 1e-15);
    double xt[12] = {0.2, 0.3, -0.7, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    CHECK_NEAR(weft_ipc_d2(xt, types[4], NULL, NULL), 0.49, 1e-15);
    CHECK_NEAR(weft_ipc_d2(xt, types[2], NULL, NULL), 0.3 * 0.3 + 0.49, 1e-15);
}

/* The squared distance of point p from the triangle t by dense sampling (n per side). */
static double brute_pt(const double *x, int n) {
    double best = INFINITY;
    for (int i = 0; i <= n; i++)
        for (int j = 0; i + j <= n; j++) {
            double a = (double)i / n, b = (double)j / n, s = 0;
            for (int c = 0; c < 3; c++) {
                double q = x[3 + c] + a * (x[6 + c] - x[3 + c]) + b * (x[9 + c] - x[3 + c]);
                s += (x[c] - q) * (x[c] - q);
            }
            best = fmin(best, s);
        }
    return best;
}

/* The squared distance of two segments by dense sampling (n per segment). */
static double brute_ee(const double *x, int n) {
    double best = INFINITY;
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++) {
            double a = (double)i / n, b = (double)j / n, s = 0;
            for (int c = 0; c < 3; c++) {
                double pa = x[c] + a * (x[3 + c] - x[c]), pb = x[6 + c] + b * (x[9 + c] - x[6 + c]);
                s += (pa - pb) * (pa - pb);
            }
            best = fmin(best, s);
        }
    return best;
}

static int type_key(weft_ipc_dist t) { return t.type * 64 + (t.i + 1) * 16 + (t.j + 1) * 4 + t.k + 1; }

/* Moves point idx (3 coordinates at x + 3 idx) along dir in steps δ and checks the
 * classified s is C¹: |Δs − δ (s'(t) + s'(t+δ))/2| ≤ 2 δ² (the squared distance to a
 * convex set has curvature ≤ 2 along a unit direction). Returns the distinct types seen. */
static int path_check(double *x, int idx, const double *dir, int steps, double delta,
                      weft_ipc_dist (*classify)(const double *), double (*brute)(const double *, int)) {
    int keys[64], nk = 0;
    double sp = 0, dp = 0;
    for (int k = 0; k <= steps; k++) {
        weft_ipc_dist t = classify(x);
        double g[12], s = weft_ipc_d2(x, t, g, NULL);
        double slope = g[3 * idx] * dir[0] + g[3 * idx + 1] * dir[1] + g[3 * idx + 2] * dir[2];
        if (k > 0) CHECK(fabs(s - sp - delta * (slope + dp) / 2) <= 2 * delta * delta);
        if (k % 25 == 0) {
            double b = brute(x, 300);
            CHECK(s <= b + 1e-12);
            CHECK(sqrt(b) - sqrt(s) <= 2.0 / 300 * 3);
        }
        int key = type_key(t), seen = 0;
        for (int i = 0; i < nk; i++) seen |= keys[i] == key;
        if (!seen && nk < 64) keys[nk++] = key;
        sp = s, dp = slope;
        for (int c = 0; c < 3; c++) x[3 * idx + c] += delta * dir[c];
    }
    return nk;
}

static void classify_pt(void) {
    /* A circle around the triangle at height 0.2 passes all three vertex, edge regions and
     * the face (through its middle on the second path). */
    double tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    double x[12];
    for (int i = 0; i < 9; i++) x[3 + i] = tri[i];
    int keys[16], nk = 0;
    const int steps = 2000;
    for (int k = 0; k <= steps; k++) {
        double a = 2 * acos(-1.0) * k / steps;
        x[0] = 0.33 + 0.9 * cos(a), x[1] = 0.33 + 0.9 * sin(a), x[2] = 0.2;
        weft_ipc_dist t = weft_ipc_classify_pt(x);
        int key = type_key(t), seen = 0;
        for (int i = 0; i < nk; i++) seen |= keys[i] == key;
        if (!seen && nk < 16) keys[nk++] = key;
    }
    CHECK(nk == 6); /* three vertices, three edges */
    double dir[3] = {1 / sqrt(2.0), 1 / sqrt(2.0), 0};
    x[0] = -0.5, x[1] = -0.5, x[2] = 0.1;
    int n1 = path_check(x, 0, dir, 1500, 1e-3, weft_ipc_classify_pt, brute_pt);
    CHECK(n1 >= 3); /* vertex t0, face, edge (t1, t2) */
    double dir2[3] = {1, 0, 0};
    x[0] = -0.5, x[1] = 0.25, x[2] = -0.05;
    int n2 = path_check(x, 0, dir2, 2000, 1e-3, weft_ipc_classify_pt, brute_pt);
    CHECK(n2 >= 4); /* edge (t2, t0), face, edge (t1, t2), vertex t1 */
    /* Over a point of the plane the face type wins, outside a vertex type. */
    double xf[12] = {0.2, 0.2, 0.5, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    CHECK(weft_ipc_classify_pt(xf).type == WEFT_IPC_PT);
    double xv[12] = {-1, -1, 0.5, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    weft_ipc_dist tv = weft_ipc_classify_pt(xv);
    CHECK(tv.type == WEFT_IPC_PP && tv.i == 0 && tv.j == 1);
}

static void classify_ee(void) {
    /* Edge b translated across edge a = (0,0,0)–(1,0,0): point–edge from one side, line–line
     * over it, point–edge/point–point beyond. */
    double dir[3] = {1, 0.2, 0};
    double n = norm3(dir);
    for (int c = 0; c < 3; c++) dir[c] /= n;
    /* Translate the whole edge b (both points by the same step): s is then the squared
     * distance of a moving convex set, curvature ≤ 2 per unit of translation. */
    int keys[32], nk = 0;
    double sp = 0, dp = 0;
    const double delta = 1e-3;
    double y[12] = {0, 0, 0, 1, 0, 0, -0.6, -0.8, 0.1, -0.3, 0.6, 0.15};
    for (int k = 0; k <= 2200; k++) {
        weft_ipc_dist t = weft_ipc_classify_ee(y);
        double g[12], s = weft_ipc_d2(y, t, g, NULL), slope = 0;
        for (int c = 0; c < 3; c++) slope += (g[6 + c] + g[9 + c]) * dir[c];
        if (k > 0) CHECK(fabs(s - sp - delta * (slope + dp) / 2) <= 2 * delta * delta);
        if (k % 50 == 0) {
            double b = brute_ee(y, 400);
            CHECK(s <= b + 1e-12);
            CHECK(sqrt(b) - sqrt(s) <= 2.0 / 400 * 2);
        }
        int key = type_key(t), seen = 0;
        for (int i = 0; i < nk; i++) seen |= keys[i] == key;
        if (!seen && nk < 32) keys[nk++] = key;
        sp = s, dp = slope;
        for (int c = 0; c < 3; c++) y[6 + c] += delta * dir[c], y[9 + c] += delta * dir[c];
    }
    CHECK(nk >= 3); /* point–edge from each side and line–line in between */
    /* Two parallel diagonals of a flat cloth at y ≈ 0.592 m (a newton_euler iterate of
     * cloth_on_cloth under ipc), 1.7e-10 m apart in y: A C − B² cancels to rounding noise
     * there, which must not make them line–line (that called them 1.7e-10 m apart). */
    double yp[12] = {0.31111105644415554, 0.59237845309868975, 0.39999993559139047,
                     0.39999993559139047, 0.59237845309868975, 0.31111105644415554,
                     0.22222215492449252, 0.59237845326985661, 0.31111104489013919,
                     0.31111104489013919, 0.59237845326985661, 0.22222215492449254};
    weft_ipc_dist tp = weft_ipc_classify_ee(yp);
    double sp_ = weft_ipc_d2(yp, tp, NULL, NULL), bp = brute_ee(yp, 400);
    fprintf(stderr, "classify_ee: parallel diagonals type %d, d = %.6g m (sampled %.6g m)\n",
            (int)tp.type, sqrt(sp_), sqrt(bp));
    CHECK(tp.type != WEFT_IPC_EE);
    CHECK(sqrt(bp) - sqrt(sp_) <= 1e-9 && sp_ <= bp + 1e-12);
    /* Random pairs against brute force. */
    lcg r = {5};
    for (int trial = 0; trial < 200; trial++) {
        double z[12];
        random_x(&r, z);
        double s = weft_ipc_d2(z, weft_ipc_classify_ee(z), NULL, NULL), b = brute_ee(z, 200);
        CHECK(s <= b + 1e-12);
        CHECK(sqrt(b) - sqrt(s) <= 2.0 * 2 * sqrt(3.0) / 200);
        double w[12];
        random_x(&r, w);
        s = weft_ipc_d2(w, weft_ipc_classify_pt(w), NULL, NULL), b = brute_pt(w, 200);
        CHECK(s <= b + 1e-12);
        CHECK(sqrt(b) - sqrt(s) <= 2.0 * 2 * sqrt(3.0) / 200);
    }
}

static void parallel_fd(void) {
    /* Parallel at distance 0.2 with overlap; collinear disjoint; crossing nothing. */
    double xs[][12] = {{0, 0, 0, 1, 0, 0, 0.3, 0.2, 0, 1.6, 0.2, 0},
                       {0, 0, 0, 1, 0, 0, 1.5, 0, 0, 2.5, 0, 0},
                       {0, 0, 0, 1, 0, 0, 1.8, 0.3, 0.1, 0.4, 0.3, 0.1}};
    const double expect[] = {0.04, 0.25, 0.1};
    for (int k = 0; k < 3; k++) {
        weft_ipc_dist t = weft_ipc_classify_ee(xs[k]);
        CHECK(t.type == WEFT_IPC_PE || t.type == WEFT_IPC_PP);
        CHECK_NEAR(weft_ipc_d2(xs[k], t, NULL, NULL), expect[k], 1e-15);
        fd_check(d2_fixed, &t, xs[k], 12, 1e-4, 1e-6);
    }
}

static double barrier_fn(const double *x, const void *ctx, double *g, double *H) {
    double db, d2b, b = weft_ipc_barrier(x[0], ctx, &db, &d2b);
    if (g) g[0] = db;
    if (H) H[0] = d2b;
    return b;
}

static void barrier_fd(void) {
    const weft_ipc_params ps[] = {{1e3, 0.01, 0}, {2.5, 1e-3, 5e-4}};
    for (int k = 0; k < 2; k++) {
        const weft_ipc_params *p = &ps[k];
        for (double f = 0.05; f < 1; f += 0.1) {
            double d = p->xi + f * p->dhat, s = d * d;
            fd_check(barrier_fn, p, &s, 1, 1e-4 * s, 1e-6);
            CHECK(weft_ipc_barrier(s, p, NULL, NULL) > 0);
        }
    }
}

static void barrier_support(void) {
    const weft_ipc_params ps[] = {{1e3, 0.01, 0}, {2.5, 1e-3, 5e-4}};
    for (int k = 0; k < 2; k++) {
        const weft_ipc_params *p = &ps[k];
        double dmax = p->xi + p->dhat, db = 1, d2b = 1;
        for (double f = 1; f < 3; f += 0.25) {
            CHECK(weft_ipc_barrier(f * f * dmax * dmax, p, &db, &d2b) == 0);
            CHECK(db == 0 && d2b == 0);
        }
        /* Just inside the support the barrier is positive. */
        CHECK(weft_ipc_barrier(0.999 * dmax * dmax, p, NULL, NULL) > 0);
        /* Blow-up as d → ξ: strictly increasing, past any bound, +∞ at d = ξ. */
        double prev = 0;
        for (int e = 1; e <= 300; e += 1) {
            double t = p->dhat * pow(10.0, -e * 0.5), d = p->xi + t;
            double b = weft_ipc_barrier(d * d, p, NULL, NULL);
            if (d * d - p->xi * p->xi <= 0) break;
            CHECK(b > prev);
            prev = b;
        }
        double sh = p->dhat * (2 * p->xi + p->dhat);
        CHECK(prev > 30 * p->kappa * sh * sh); /* ln(ŝ/τ) ≥ 30 at the smallest τ reached */
        CHECK(isinf(weft_ipc_barrier(p->xi * p->xi, p, NULL, NULL)));
    }
    /* Pair energies beyond d̂: exactly zero energy, gradient and Hessian. */
    weft_ipc_params p = {1e3, 0.1, 0.02};
    double x[12] = {0.2, 0.2, 0.125, 0, 0, 0, 1, 0, 0, 0, 1, 0}, g[12], H[144];
    CHECK(weft_ipc_pt_energy(x, &p, true, g, H) == 0);
    CHECK(max_abs(g, 12) == 0 && max_abs(H, 144) == 0);
    x[2] = 0.11;
    CHECK(weft_ipc_pt_energy(x, &p, true, g, H) > 0 && max_abs(g, 12) > 0);
    double y[12] = {0, 0, 0, 1, 0, 0, 0.5, -0.5, 0.2, 0.5, 0.5, 0.2};
    CHECK(weft_ipc_ee_energy(y, weft_ipc_mollifier_eps(y), &p, true, g, H) == 0);
    CHECK(max_abs(g, 12) == 0 && max_abs(H, 144) == 0);
}

typedef struct {
    double eps;
    weft_ipc_params p;
    int kind; /* 0 mollifier, 1 pt energy, 2 ee energy */
} energy_ctx;

static double energy_fn(const double *x, const void *vc, double *g, double *H) {
    const energy_ctx *c = vc;
    if (c->kind == 0) return weft_ipc_mollifier(x, c->eps, g, H);
    if (c->kind == 1) return weft_ipc_pt_energy(x, &c->p, false, g, H);
    return weft_ipc_ee_energy(x, c->eps, &c->p, false, g, H);
}

static void mollifier_fd(void) {
    /* Rest edges unit and perpendicular: ε_x = 1e-3. Nearly parallel now (sin² θ = 2.5e-4). */
    double rest[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0.1, 0, 1, 0.1};
    energy_ctx c = {weft_ipc_mollifier_eps(rest), {0, 0, 0}, 0};
    CHECK_NEAR(c.eps, 1e-3, 1e-18);
    double x[12] = {0, 0, 0, 1, 0.01, 0, 0.2, 0.3, 0.05, 1.1, 0.3 + 0.018, 0.06};
    double e = weft_ipc_mollifier(x, c.eps, NULL, NULL);
    CHECK(e > 0 && e < 1);
    fd_check(energy_fn, &c, x, 12, 1e-5, 1e-6);
    /* Closed form: c = |u × v|² for u = (1,0,0), v = (1, 0.01, 0): c = 1e-4, e = 0.19. */
    double xc[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1.01, 0};
    CHECK_NEAR(weft_ipc_mollifier(xc, c.eps, NULL, NULL), 0.19, 1e-12);
    /* Beyond ε_x: 1 with zero derivatives. */
    double g[12], H[144];
    CHECK(weft_ipc_mollifier(rest, c.eps, g, H) == 1);
    CHECK(max_abs(g, 12) == 0 && max_abs(H, 144) == 0);
}

static void energy_fd(void) {
    /* Point–triangle in each region, without and with thickness. */
    const double ps[][3] = {{0.2, 0.3, 0.07}, {0.5, -0.03, 0.02}, {-0.03, -0.02, 0.03}};
    const double xis[] = {0, 0.01};
    for (int k = 0; k < 3; k++)
        for (int m = 0; m < 2; m++) {
            energy_ctx c = {0, {1e2, 0.06, xis[m]}, 1};
            double x[12] = {ps[k][0], ps[k][1], ps[k][2], 0, 0, 0, 1, 0, 0, 0, 1, 0.1};
            CHECK(weft_ipc_pt_energy(x, &c.p, false, NULL, NULL) > 0);
            fd_check(energy_fn, &c, x, 12, 1e-6, 1e-6);
        }
    /* Edge–edge: crossing (mollifier 1), nearly parallel (mollified), end-to-edge. */
    double rest[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0.1, 0, 1, 0.1};
    const double xs[][12] = {{0, 0, 0, 1, 0, 0, 0.5, -0.5, 0.03, 0.4, 0.5, 0.04},
                             {0, 0, 0, 1, 0.01, 0, 0.2, 0.03, 0.02, 1.1, 0.048, 0.025},
                             {0, 0, 0, 1, 0, 0, 1.02, -0.5, 0.01, 1.03, 0.5, 0.02}};
    for (int k = 0; k < 3; k++)
        for (int m = 0; m < 2; m++) {
            energy_ctx c = {weft_ipc_mollifier_eps(rest), {1e2, 0.06, xis[m]}, 2};
            CHECK(weft_ipc_ee_energy(xs[k], c.eps, &c.p, false, NULL, NULL) > 0);
            fd_check(energy_fn, &c, xs[k], 12, 1e-6, 1e-6);
        }
    double e = weft_ipc_mollifier(xs[1], weft_ipc_mollifier_eps(rest), NULL, NULL);
    CHECK(e < 1);
}

static double min_eig(const double *H, double *scale) {
    double w[12], Z[144];
    CHECK(weft_symeig(H, 12, w, Z) == 0);
    double m = w[0];
    *scale = 0;
    for (int i = 0; i < 12; i++) m = fmin(m, w[i]), *scale = fmax(*scale, fabs(w[i]));
    return m;
}

static void energy_psd(void) {
    lcg r = {99};
    weft_ipc_params p = {1e2, 0.3, 0.01};
    double rest[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0.1, 0, 1, 0.1};
    int indefinite = 0, active = 0;
    for (int trial = 0; trial < 300; trial++) {
        double x[12], Hx[144], Hp[144], g[12], sc;
        random_x(&r, x);
        for (int i = 3; i < 12; i++) x[i] *= 0.3;
        double E = trial % 2 ? weft_ipc_pt_energy(x, &p, false, g, Hx)
                             : weft_ipc_ee_energy(x, weft_ipc_mollifier_eps(rest), &p, false, g, Hx);
        if (!(E > 0) || !isfinite(E)) continue;
        active++;
        if (trial % 2) weft_ipc_pt_energy(x, &p, true, g, Hp);
        else weft_ipc_ee_energy(x, weft_ipc_mollifier_eps(rest), &p, true, g, Hp);
        if (min_eig(Hx, &sc) < -1e-8 * sc) indefinite++;
        CHECK(min_eig(Hp, &sc) >= -1e-10 * sc);
    }
    fprintf(stderr, "energy_psd: %d active pairs, %d indefinite exact Hessians\n", active, indefinite);
    CHECK(active >= 20 && indefinite >= 5);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"dist_fd", dist_fd},         {"classify_pt", classify_pt},
        {"classify_ee", classify_ee}, {"parallel_fd", parallel_fd},
        {"barrier_fd", barrier_fd},   {"barrier_support", barrier_support},
        {"mollifier_fd", mollifier_fd}, {"energy_fd", energy_fd},
        {"energy_psd", energy_psd},   {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
