/* test_ipc_friction.c — IPC's lagged smoothed friction and adaptive barrier stiffness
 * (energies/ipc_friction.c, energies/ipc_stiffness.c; Li et al. 2020 §5 and the
 * supplement). Derivatives against fourth-order central differences (relative 1e-6 of the
 * largest entry). Cases:
 *   mollifier       f₀′ = f₁ and f₁′ against differences; f₀, f₁ continuous and f₁′ = 0 on
 *                   both sides of εᵥh (C¹), closed values
 *   closest_basis   for every distance type, degenerate ones included: |Σ wᵢ xᵢ|² = d²,
 *                   P orthonormal and perpendicular to the closest points' difference
 *   normal_force    λ = −∂b/∂d against differences in d, with and without ξ; 0 beyond d̂
 *   friction_fd     gradient and Hessian of D for every type (static and sliding regimes)
 *                   and for a point on a moving collider; zero gradient at u = 0
 *   friction_psd    the Hessian is PSD on random pairs, in both regimes
 *   obstacle_fd     a pair against a translating mesh obstacle (its corners constants):
 *                   T's rows of the obstacle's slots zero, the slip that of the whole pair
 *                   with those corners at the lag, none when the cloth moves with the
 *                   obstacle, sliding force μλ along the obstacle's motion on a point at
 *                   rest, gradient and Hessian against differences in both regimes
 *   friction_limit  sliding (y ≫ εᵥh): the force on the sliding point has magnitude μλ,
 *                   opposes the relative tangential motion, none along the normal; sticking
 *                   (y ≪ εᵥh): the force is μλ f₁(y) ≈ 2μλ y/εᵥh, linear in y
 *   kappa           κ bounds (κ_min·4s₀b̂″(s₀) = 1e11 m̄), the initial κ minimises
 *                   |g_E + κ g_B| and is clamped, the doubling update and its conditions
 */
#include "check.h"
#include "fd12.h"
#include "fem.h"
#include "ipc.h"
#include "test_util.h"

static void mollifier(void) {
    const double e = 2e-3;
    for (int k = 0; k <= 40; k++) {
        double y = 0.05 * e * k + 1e-4 * e, h = 1e-7 * e, d1, d1p, d1m;
        if (fabs(y - e) < 4 * h) continue; /* the differences would straddle εᵥh */
        double f1 = weft_ipc_friction_f1(y, e, &d1);
        double df0 = (weft_ipc_friction_f0(y - 2 * h, e) - 8 * weft_ipc_friction_f0(y - h, e) +
                      8 * weft_ipc_friction_f0(y + h, e) - weft_ipc_friction_f0(y + 2 * h, e)) /
                     (12 * h);
        CHECK_NEAR(df0, f1, 1e-8);
        double p = weft_ipc_friction_f1(y + h, e, &d1p), m = weft_ipc_friction_f1(y - h, e, &d1m);
        CHECK_NEAR((p - m) / (2 * h), d1, 1e-6 / e);
        CHECK(f1 >= 0 && f1 <= 1 && d1 >= 0);
    }
    /* C¹ at εᵥh: values and slopes agree from both sides. */
    double dl, dr, t = 1e-12 * e;
    CHECK_NEAR(weft_ipc_friction_f1(e - t, e, &dl), weft_ipc_friction_f1(e + t, e, &dr), 1e-10);
    CHECK_NEAR(dl, dr, 1e-9 / e);
    CHECK(dr == 0 && weft_ipc_friction_f1(e, e, NULL) == 1);
    CHECK_NEAR(weft_ipc_friction_f0(e - t, e), weft_ipc_friction_f0(e + t, e), 4.01 * t);
    /* Closed values: f₁(εᵥh/2) = 3/4, f₀(0) = εᵥh/3, f₁(0) = 0 with slope 2/εᵥh. */
    CHECK_NEAR(weft_ipc_friction_f1(e / 2, e, NULL), 0.75, 1e-15);
    CHECK_NEAR(weft_ipc_friction_f0(0, e), e / 3, 1e-18);
    CHECK(weft_ipc_friction_f1(0, e, &dl) == 0);
    CHECK_NEAR(dl, 2 / e, 1e-9);
}

/* Pairs of every distance type: point–triangle in its face, edge and vertex regions and
 * exactly over an edge; edge–edge crossing, nearly parallel, parallel, end to edge. */
static const double pairs[][12] = {
    {0.2, 0.3, 0.05, 0, 0, 0, 1, 0, 0, 0, 1, 0.1},
    {0.5, -0.03, 0.02, 0, 0, 0, 1, 0, 0, 0, 1, 0.1},
    {-0.03, -0.02, 0.03, 0, 0, 0, 1, 0, 0, 0, 1, 0.1},
    {0.5, 0, 0.04, 0, 0, 0, 1, 0, 0, 0, 1, 0.1},
    {0, 0, 0, 1, 0, 0, 0.5, -0.5, 0.03, 0.4, 0.5, 0.04},
    {0, 0, 0, 1, 0, 0, 0.2, 0.0, 0.05, 1.1, 1e-3, 0.05},
    {0, 0, 0, 1, 0, 0, 0.2, 0.0, 0.05, 1.1, 0.0, 0.05},
    {0, 0, 0, 1, 0, 0, 1.02, -0.5, 0.01, 1.03, 0.5, 0.02},
};
enum { NPAIRS = sizeof pairs / sizeof *pairs };

static weft_ipc_dist pair_type(int k) {
    return k < 4 ? weft_ipc_classify_pt(pairs[k]) : weft_ipc_classify_ee(pairs[k]);
}

static void closest_basis(void) {
    int seen[4] = {0};
    lcg r = {5};
    for (int k = 0; k < NPAIRS + 200; k++) {
        double x[12];
        for (int i = 0; i < 12; i++) x[i] = k < NPAIRS ? pairs[k][i] : rnd_in(&r, -1, 1);
        weft_ipc_dist t =
            k < NPAIRS ? pair_type(k) : (k % 2 ? weft_ipc_classify_pt(x) : weft_ipc_classify_ee(x));
        seen[t.type]++;
        double w[4], P[6], rel[3] = {0, 0, 0}, sw = 0;
        weft_ipc_closest_weights(x, t, w);
        weft_ipc_tangent_basis(x, t, P);
        for (int a = 0; a < 4; a++) {
            sw += w[a];
            for (int m = 0; m < 3; m++) rel[m] += w[a] * x[3 * a + m];
        }
        double s = weft_ipc_d2(x, t, NULL, NULL);
        CHECK_NEAR(sw, 0, 1e-14);
        CHECK_NEAR(dot3(rel, rel), s, 1e-12 * fmax(s, 1e-3));
        double c0[3] = {P[0], P[2], P[4]}, c1[3] = {P[1], P[3], P[5]};
        CHECK_NEAR(dot3(c0, c0), 1, 1e-14);
        CHECK_NEAR(dot3(c1, c1), 1, 1e-14);
        CHECK_NEAR(dot3(c0, c1), 0, 1e-14);
        CHECK_NEAR(dot3(c0, rel), 0, 1e-12);
        CHECK_NEAR(dot3(c1, rel), 0, 1e-12);
    }
    fprintf(stderr, "closest_basis: PP %d PE %d PT %d EE %d\n", seen[0], seen[1], seen[2], seen[3]);
    for (int i = 0; i < 4; i++) CHECK(seen[i] >= 2);
}

static void normal_force(void) {
    const double xis[] = {0, 0.01};
    for (int m = 0; m < 2; m++) {
        weft_ipc_params p = {50, 0.1, xis[m]};
        for (double d = xis[m] + 0.01; d < xis[m] + 0.1; d += 0.013) {
            double h = 1e-6, b[4];
            for (int k = 0; k < 4; k++) {
                double dd = d + (k < 2 ? k - 2 : k - 1) * h;
                b[k] = weft_ipc_barrier(dd * dd, &p, NULL, NULL);
            }
            double dbdd = (b[0] - 8 * b[1] + 8 * b[2] - b[3]) / (12 * h);
            double lam = weft_ipc_normal_force(d * d, &p);
            CHECK(lam > 0);
            CHECK_NEAR(lam, -dbdd, 1e-7 * lam);
        }
        CHECK(weft_ipc_normal_force(pow((xis[m] + 0.1) * (1 + 1e-12), 2), &p) == 0);
        CHECK(weft_ipc_normal_force(1, &p) == 0);
    }
}

typedef struct {
    weft_ipc_friction f;
    double eps_vh;
} fric_ctx;

static double fric_fn(const double *x, const void *vc, double *g, double *H) {
    const fric_ctx *c = vc;
    return weft_ipc_friction_energy(&c->f, x, c->eps_vh, false, g, H);
}

/* u of f at x, y = |u|. */
static double slide(const weft_ipc_friction *f, const double *x, double u[2]) {
    u[0] = f->c[0], u[1] = f->c[1];
    for (int a = 0; a < f->n; a++) u[0] += f->T[2 * a] * x[a], u[1] += f->T[2 * a + 1] * x[a];
    return hypot(u[0], u[1]);
}

static void friction_fd(void) {
    lcg r = {23};
    weft_ipc_params p = {1e2, 0.2, 0};
    double worst = 0;
    const double regimes[] = {0.3, 5}; /* y/εᵥh: sticking, sliding */
    for (int k = 0; k < NPAIRS; k++)
        for (int m = 0; m < 2; m++) {
            fric_ctx c = {.eps_vh = 1e-3};
            weft_ipc_friction_pair(pairs[k], pairs[k], pair_type(k), &p, 0.4, 1, &c.f);
            CHECK(c.f.mu_lambda > 0);
            double x[12], u[2], dx[12];
            for (int i = 0; i < 12; i++) dx[i] = rnd_in(&r, -1, 1);
            for (int i = 0; i < 12; i++) x[i] = pairs[k][i] + dx[i];
            double y1 = slide(&c.f, x, u); /* scale the motion to the regime */
            for (int i = 0; i < 12; i++) x[i] = pairs[k][i] + dx[i] * regimes[m] * c.eps_vh / y1;
            CHECK_NEAR(slide(&c.f, x, u), regimes[m] * c.eps_vh, 1e-12);
            worst = fmax(worst, fd_check(fric_fn, &c, x, 12, 1e-7, 1e-6));
        }
    /* A point on a moving collider, both regimes. */
    for (int m = 0; m < 2; m++) {
        fric_ctx c = {.eps_vh = 1e-3};
        double n[3] = {0.3, 0.9, -0.2}, xp[3] = {0.1, 0.5, 0.2}, us[3] = {0.05, 0, -0.1}, x[3];
        double l = norm3(n);
        for (int i = 0; i < 3; i++) n[i] /= l;
        weft_ipc_friction_point(n, xp, us, 0.01, 3, 0.5, &c.f);
        double dx[3] = {rnd_in(&r, -1, 1), rnd_in(&r, -1, 1), rnd_in(&r, -1, 1)}, u[2];
        for (int i = 0; i < 3; i++) x[i] = xp[i] + us[i] * 0.01 + dx[i];
        double y1 = slide(&c.f, x, u);
        for (int i = 0; i < 3; i++)
            x[i] = xp[i] + us[i] * 0.01 + dx[i] * regimes[m] * c.eps_vh / y1;
        worst = fmax(worst, fd_check(fric_fn, &c, x, 3, 1e-7, 1e-6));
        /* Moving with the surface: no slip, no force. */
        double g[3], at[3];
        for (int i = 0; i < 3; i++) at[i] = xp[i] + us[i] * 0.01;
        weft_ipc_friction_energy(&c.f, at, c.eps_vh, true, g, NULL);
        CHECK(max_abs(g, 3) < 1e-12);
    }
    fprintf(stderr, "friction_fd: worst relative error %.3g\n", worst);
}

static void friction_psd(void) {
    lcg r = {41};
    weft_ipc_params p = {1e2, 0.2, 0};
    int n = 0;
    for (int trial = 0; trial < 400; trial++) {
        int k = trial % NPAIRS;
        weft_ipc_friction f;
        weft_ipc_friction_pair(pairs[k], pairs[k], pair_type(k), &p, 0.3, 1, &f);
        double x[12], H[144], w[12], Z[144], sc = 0, lo = INFINITY, eps_vh = 1e-3;
        double amp = eps_vh * pow(10, rnd_in(&r, -2, 1.5));
        for (int i = 0; i < 12; i++) x[i] = pairs[k][i] + amp * rnd_in(&r, -1, 1);
        weft_ipc_friction_energy(&f, x, eps_vh, true, NULL, H);
        CHECK(weft_symeig(H, 12, w, Z) == 0);
        for (int i = 0; i < 12; i++) lo = fmin(lo, w[i]), sc = fmax(sc, fabs(w[i]));
        CHECK(lo >= -1e-12 * sc);
        CHECK(sc > 0);
        n++;
    }
    CHECK(n == 400);
}

static void friction_limit(void) {
    weft_ipc_params p = {1e2, 0.2, 0};
    const double eps_vh = 1e-4;
    /* Point–triangle (face) pair: the point slides by δ along the triangle, which stays. */
    weft_ipc_friction f;
    weft_ipc_friction_pair(pairs[0], pairs[0], pair_type(0), &p, 0.4, 1, &f);
    double lam = weft_ipc_normal_force(weft_ipc_d2(pairs[0], pair_type(0), NULL, NULL), &p);
    CHECK_NEAR(f.mu_lambda, 0.4 * lam, 1e-12 * lam);
    const double dirs[][3] = {{1, 0, 0}, {0.6, 0.8, 0}, {-0.3, 0.2, 0.1}};
    for (int k = 0; k < 3; k++)
        for (int m = 0; m < 2; m++) {
            double y = m ? 100 * eps_vh : 0.01 * eps_vh, x[12], g[12];
            /* the direction's part in the triangle's plane (normal (0, −0.1, 1)/|·|) */
            double nn[3] = {0, -0.1, 1}, v[3], l = norm3(nn);
            for (int i = 0; i < 3; i++) nn[i] /= l;
            double dn = dot3(dirs[k], nn);
            for (int i = 0; i < 3; i++) v[i] = dirs[k][i] - dn * nn[i];
            double lv = norm3(v);
            for (int i = 0; i < 12; i++) x[i] = pairs[0][i] + (i < 3 ? y * v[i] / lv : 0);
            weft_ipc_friction_energy(&f, x, eps_vh, true, g, NULL);
            double force = norm3(g), want = m ? f.mu_lambda : f.mu_lambda * (2 * 0.01 - 1e-4);
            CHECK_NEAR(force, want, 1e-6 * want);
            CHECK_NEAR(dot3(g, v) / lv, force, 1e-9 * force); /* −g opposes the slip */
            CHECK_NEAR(dot3(g, nn), 0, 1e-9 * force);
            double gt[3] = {0, 0, 0}; /* the triangle gets the reaction: Σ forces = 0 */
            for (int a = 0; a < 4; a++)
                for (int i = 0; i < 3; i++) gt[i] += g[3 * a + i];
            CHECK(norm3(gt) < 1e-12 * force);
        }
    /* A point on a rotating collider at rest in the world: the surface slides under it. */
    double n[3] = {0, 1, 0}, xp[3] = {1, 0, 0}, us[3] = {0, 0, -2}, g[3];
    weft_ipc_friction_point(n, xp, us, 0.01, 5, 0.5, &f);
    weft_ipc_friction_energy(&f, xp, eps_vh, true, g, NULL);
    CHECK_NEAR(norm3(g), 2.5, 1e-12);
    CHECK_NEAR(g[2], 2.5, 1e-12); /* −g along the surface's motion: dragged with it */
}

/* A pair whose slots `fixed` hold a mesh obstacle's corners (where they stand at t_{n+1},
 * x_lag; at t_n, x_prev: those minus u h), against its constant-corner pair term
 * (weft_ipc_friction_obstacle): the obstacle's rows of T zero, the slip equal to the full
 * pair's with the obstacle's corners at the lag, zero when the cloth's slots move by u h
 * too, and the derivatives against differences, sticking and sliding. */
static void obstacle_fd(void) {
    lcg r = {57};
    weft_ipc_params p = {1e2, 0.2, 0};
    const double h = 0.01, regimes[] = {0.3, 5};
    double worst = 0;
    for (int k = 0; k < NPAIRS; k++)
        for (int side = 0; side < (k < 4 ? 2 : 1); side++) {
            /* point–triangle: the obstacle's triangle (slots 1–3) or its vertex (slot 0);
             * edge–edge: its edge (slots 2, 3) */
            const unsigned fixed = k >= 4 ? 0xCu : side ? 0x1u : 0xEu;
            const double u[3] = {rnd_in(&r, -1, 1), rnd_in(&r, -1, 1), rnd_in(&r, -1, 1)};
            double xp[12];
            for (int i = 0; i < 12; i++) xp[i] = pairs[k][i] - (fixed >> (i / 3) & 1u) * u[i % 3] * h;
            fric_ctx c = {.eps_vh = 1e-3}, full = {.eps_vh = 1e-3};
            weft_ipc_friction_obstacle(pairs[k], xp, pair_type(k), &p, 0.4, 1, fixed, &c.f);
            weft_ipc_friction_pair(pairs[k], xp, pair_type(k), &p, 0.4, 1, &full.f);
            CHECK(c.f.mu_lambda > 0 && c.f.mu_lambda == full.f.mu_lambda);
            for (int i = 0; i < 12; i++)
                if (fixed >> (i / 3) & 1u) CHECK(c.f.T[2 * i] == 0 && c.f.T[2 * i + 1] == 0);
            /* moving with the obstacle (x0; the obstacle's slots anywhere): no slip, no
             * force */
            double x0[12], x[12], y[12], ua[2], ub[2], g[12];
            for (int i = 0; i < 12; i++)
                x0[i] = fixed >> (i / 3) & 1u ? rnd_in(&r, -1, 1) : xp[i] + u[i % 3] * h;
            CHECK(slide(&c.f, x0, ua) < 1e-14);
            weft_ipc_friction_energy(&c.f, x0, c.eps_vh, true, g, NULL);
            CHECK(max_abs(g, 12) < 1e-12);
            /* any motion from there: the full pair's slip with the obstacle's corners at
             * the lag */
            double dx[12];
            for (int i = 0; i < 12; i++) dx[i] = rnd_in(&r, -1, 1);
            for (int m = 0; m < 2; m++) {
                for (int i = 0; i < 12; i++) x[i] = x0[i] + dx[i];
                double y1 = slide(&c.f, x, ua);
                for (int i = 0; i < 12; i++)
                    x[i] = x0[i] + dx[i] * regimes[m] * c.eps_vh / y1,
                    y[i] = fixed >> (i / 3) & 1u ? pairs[k][i] : x[i];
                CHECK_NEAR(slide(&c.f, x, ua), regimes[m] * c.eps_vh, 1e-12);
                slide(&full.f, y, ub);
                CHECK_NEAR(ua[0], ub[0], 1e-14);
                CHECK_NEAR(ua[1], ub[1], 1e-14);
                worst = fmax(worst, fd_check(fric_fn, &c, x, 12, 1e-7, 1e-6));
            }
        }
    /* A point at rest over a triangle sliding under it at 0.5 m/s along x: dragged along x
     * with the kinetic force μλ (y = 5 mm ≫ εᵥh). */
    const double tri[12] = {0.2, 0.3, 0.05, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    double xp[12], g[12];
    for (int i = 0; i < 12; i++) xp[i] = tri[i] - (i >= 3 && i % 3 == 0) * 0.5 * h;
    weft_ipc_friction f;
    weft_ipc_friction_obstacle(tri, xp, weft_ipc_classify_pt(tri), &p, 0.4, 1, 0xEu, &f);
    weft_ipc_friction_energy(&f, tri, 1e-4, true, g, NULL);
    CHECK_NEAR(-g[0], f.mu_lambda, 1e-12 * f.mu_lambda);
    CHECK(fabs(g[1]) < 1e-12 * f.mu_lambda && fabs(g[2]) < 1e-12 * f.mu_lambda);
    fprintf(stderr, "obstacle_fd: worst relative error %.3g\n", worst);
}

static void kappa(void) {
    weft_ipc_params p = {0, 1e-3, 0}, unit = {1, 1e-3, 0};
    double kmin, kmax, bbox = 2, m = 1e-3;
    weft_ipc_kappa_bounds(bbox, m, &p, &kmin, &kmax);
    double s0 = 1e-16 * bbox * bbox, d2b;
    weft_ipc_barrier(s0, &unit, NULL, &d2b);
    CHECK(kmin > 0);
    CHECK_NEAR(kmin * 4 * s0 * d2b, 1e11 * m, 1e-12 * 1e11 * m);
    CHECK_NEAR(kmax, 100 * kmin, 1e-9 * kmax);
    /* d̂ below 1e-8 l: s₀ is half of ŝ. */
    weft_ipc_params tiny = {0, 1e-9, 0}, tu = {1, 1e-9, 0};
    double a, b;
    weft_ipc_kappa_bounds(bbox, m, &tiny, &a, &b);
    weft_ipc_barrier(0.5e-18, &tu, NULL, &d2b);
    CHECK_NEAR(a * 4 * 0.5e-18 * d2b, 1e11 * m, 1e-12 * 1e11 * m);
    /* The initial κ minimises |g_E + κ g_B|². */
    lcg r = {3};
    double gE[30], gB[30];
    for (int i = 0; i < 30; i++) gB[i] = rnd_in(&r, -1, 1), gE[i] = -7 * gB[i] + rnd_in(&r, -1, 1);
    double k0 = weft_ipc_kappa_initial(gE, gB, 30, 0, 1e9);
    CHECK(k0 > 3 && k0 < 12);
    double best = INFINITY, at = 0;
    for (double k = 0; k < 20; k += 1e-3) {
        double v = 0;
        for (int i = 0; i < 30; i++) v += pow(gE[i] + k * gB[i], 2);
        if (v < best) best = v, at = k;
    }
    CHECK_NEAR(k0, at, 1e-3);
    CHECK(weft_ipc_kappa_initial(gE, gB, 30, 20, 100) == 20);
    CHECK(weft_ipc_kappa_initial(gE, gB, 30, 0, 2) == 2);
    for (int i = 0; i < 30; i++) gB[i] = 0;
    CHECK(weft_ipc_kappa_initial(gE, gB, 30, 5, 100) == 5);
    /* Update: doubles only when below ε_d = ξ + 1e-9 l and still shrinking; capped. */
    double ed = 1e-9 * bbox;
    CHECK(weft_ipc_kappa_update(10, 1e3, 0.8 * ed, 0.5 * ed, bbox, 0) == 20);
    CHECK(weft_ipc_kappa_update(10, 15, 0.8 * ed, 0.5 * ed, bbox, 0) == 15);
    CHECK(weft_ipc_kappa_update(10, 1e3, 0.5 * ed, 0.8 * ed, bbox, 0) == 10);
    CHECK(weft_ipc_kappa_update(10, 1e3, 2 * ed, 0.5 * ed, bbox, 0) == 10);
    CHECK(weft_ipc_kappa_update(10, 1e3, 1e-3 + 0.8 * ed, 1e-3 + 0.5 * ed, bbox, 0) == 10);
    CHECK(weft_ipc_kappa_update(10, 1e3, 1e-3 + 0.8 * ed, 1e-3 + 0.5 * ed, bbox, 1e-3) == 20);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"mollifier", mollifier},
        {"closest_basis", closest_basis},
        {"normal_force", normal_force},
        {"friction_fd", friction_fd},
        {"friction_psd", friction_psd},
        {"friction_limit", friction_limit},
        {"obstacle_fd", obstacle_fd},
        {"kappa", kappa},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
