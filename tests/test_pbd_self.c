/* test_pbd_self.c — tests of PBD cloth self-collision, Müller, Heidelberger, Hennix and
 * Ratcliff 2006 §4.3 (eqs. 12–13; solvers/pbd_self.c and the kernels
 * pbd_self_constraint, pbd_self_delta of solvers/pbd_internal.h): the constraint's
 * value and gradient (finite differences), its projection (hand cases, pinned
 * vertices, conservation of linear and angular momentum, eqs. 1–2), and whole runs of
 * Gauss-Seidel and Jacobi PBD on a cloth folded onto itself, which must end every step
 * free of triangle–triangle intersections with self-collision on and does not with it
 * off; plus determinism and the scene keys [pbd] self_collision, self_thickness.
 *
 * Every assertion is a mathematical or physical fact with its tolerance derived in a
 * comment; random inputs come from a fixed-seed LCG, so runs are reproducible.
 */
#include "check.h"
#include "scene_build.h"
#include "test_util.h"
#include "pbd_internal.h"
#include "weft.h"
#include "weft_geometry.h"
#include "weft_solvers.h"

#include <stdbool.h>

/* ------------------------------------------------------------------------------ */
/* The constraint and its projection                                               */
/* ------------------------------------------------------------------------------ */

/* A random vertex and triangle (12 values: q, p1, p2, p3) in [−1, 1]³ whose triangle
 * is well shaped: |(p2 − p1) × (p3 − p1)| ≥ 0.1 |p2 − p1| |p3 − p1| (angle at p1 of at
 * least ~6°), so that n̂ and its derivatives are well-conditioned. */
static void rnd_config(lcg *g, double *x) {
    for (;;) {
        for (int i = 0; i < 12; i++) x[i] = rnd_in(g, -1.0, 1.0);
        double e1[3], e2[3], c[3];
        for (int k = 0; k < 3; k++) e1[k] = x[6 + k] - x[3 + k], e2[k] = x[9 + k] - x[3 + k];
        cross3(e1, e2, c);
        if (norm3(c) >= 0.1 * norm3(e1) * norm3(e2) && norm3(e1) > 0.2 && norm3(e2) > 0.2)
            return;
    }
}

static void test_gradient_fd(void) {
    lcg g = {2006};
    for (int trial = 0; trial < 400; trial++) {
        double x[12], grad[12], xp[12];
        rnd_config(&g, x);
        double side = trial % 2 ? 1.0 : -1.0, h = rnd_in(&g, 0.0, 0.1);
        double C = pbd_self_constraint(x, side, h, grad);
        /* The value against eqs. 12–13 written out: for s = −1, eq. 13's normal
         * (p3 − p1) × (p2 − p1) is −n̂ (1e-14: a few roundings of O(1) values). */
        double e1[3], e2[3], c[3], d[3];
        for (int k = 0; k < 3; k++)
            e1[k] = x[6 + k] - x[3 + k], e2[k] = x[9 + k] - x[3 + k], d[k] = x[k] - x[3 + k];
        if (side > 0)
            cross3(e1, e2, c);
        else
            cross3(e2, e1, c);
        CHECK_NEAR(C, dot3(d, c) / norm3(c) - h, 1e-14);
        /* Central differences, step 1e-6 on O(1) coordinates: truncation error
         * ~1e-12 |C'''| and rounding ~1e-16/1e-6 = 1e-10, both far below 1e-7 of the
         * gradient's scale (O(1): ∇_q C is a unit vector); a wrong term of the
         * normal's derivative would be O(1) off. */
        double fd[12];
        for (int i = 0; i < 12; i++) {
            memcpy(xp, x, sizeof xp);
            xp[i] = x[i] + 1e-6;
            double fp = pbd_self_constraint(xp, side, h, NULL);
            xp[i] = x[i] - 1e-6;
            double fm = pbd_self_constraint(xp, side, h, NULL);
            fd[i] = (fp - fm) / 2e-6;
        }
        double err = 0.0;
        for (int i = 0; i < 12; i++) err = fmax(err, fabs(grad[i] - fd[i]));
        if (!(err <= 1e-7 * max_abs(grad, 12)))
            fprintf(stderr, "trial %d: FD error %.3g (|grad| %.3g)\n", trial, err,
                    max_abs(grad, 12));
        CHECK(err <= 1e-7 * max_abs(grad, 12));
        /* ∇_q C = s n̂ is a unit vector (1e-15: rounding of a normalisation). */
        CHECK_NEAR(norm3(grad), 1.0, 1e-15);
        /* Translation invariance: Σ_i ∇_i C = 0 holds by construction of ∇_p1 C;
         * rotation invariance: Σ_i p_i × ∇_i C = 0 is a property of the formulas
         * (1e-13: O(10) roundings of O(1) terms). */
        double L[3] = {0, 0, 0};
        for (int a = 0; a < 4; a++) {
            double t[3];
            cross3(&x[3 * a], &grad[3 * a], t);
            for (int k = 0; k < 3; k++) L[k] += t[k];
        }
        for (int k = 0; k < 3; k++) CHECK_NEAR(L[k], 0.0, 1e-13 * max_abs(grad, 12));
    }
    /* A degenerate triangle (collinear corners, or two equal) has no normal: C = 0 and
     * a zero gradient, finite, so the constraint is inactive rather than NaN. */
    double degen[3][12] = {{0.2, 0.3, 0.5, 0, 0, 0, 1, 0, 0, 2, 0, 0},
                           {0.2, 0.3, 0.5, 0, 0, 0, 0, 0, 0, 0, 1, 0},
                           {0.2, 0.3, 0.5, 0, 0, 0, 1, 1, 1, 1, 1, 1}};
    for (int c = 0; c < 3; c++) {
        double grad[12], dp[12];
        const double w[4] = {1, 1, 1, 1};
        CHECK(pbd_self_constraint(degen[c], 1.0, 0.01, grad) == 0.0);
        for (int i = 0; i < 12; i++) CHECK(grad[i] == 0.0);
        CHECK(!pbd_self_delta(degen[c], w, 1.0, 0.01, dp));
        for (int i = 0; i < 12; i++) CHECK(dp[i] == 0.0);
    }
}

static void test_projection_hand(void) {
    /* Triangle p1 = 0, p2 = e_x, p3 = e_y: n̂ = +z. A vertex q = (¼, ¼, −1/64) that
     * started above (s = +1), h = 1/32: C = −1/64 − 1/32 = −3/64. */
    double x[12] = {0.25, 0.25, -1.0 / 64, 0, 0, 0, 1, 0, 0, 0, 1, 0}, dp[12];
    CHECK(pbd_self_constraint(x, 1.0, 1.0 / 32, NULL) == -3.0 / 64);
    /* Triangle pinned (w = 0): C is linear in q, so one projection moves q along n̂ by
     * exactly −C, to z = h: Δq = (0, 0, 3/64), and the triangle does not move. Every
     * number is dyadic and the gradient is exactly (0, 0, 1), so the result is exact. */
    const double w_q[4] = {1, 0, 0, 0};
    CHECK(pbd_self_delta(x, w_q, 1.0, 1.0 / 32, dp));
    CHECK(dp[0] == 0.0 && dp[1] == 0.0 && dp[2] == 3.0 / 64);
    for (int i = 3; i < 12; i++) CHECK(dp[i] == 0.0);
    /* The same vertex having started below (s = −1, eq. 13): C = 1/64 − 1/32 < 0 too
     * (it is within h of the triangle, a proximity contact), and it is pushed down to
     * z = −h: Δq = −(1/32 − 1/64) = −1/64 in z. */
    CHECK(pbd_self_delta(x, w_q, -1.0, 1.0 / 32, dp));
    CHECK(dp[0] == 0.0 && dp[1] == 0.0 && dp[2] == -1.0 / 64);
    /* Far enough on its side: C ≥ 0, an inequality, no correction. */
    double above[12];
    memcpy(above, x, sizeof above);
    above[2] = 0.5;
    CHECK(!pbd_self_delta(above, w_q, 1.0, 1.0 / 32, dp));
    for (int i = 0; i < 12; i++) CHECK(dp[i] == 0.0);
    /* q pinned, triangle free with equal masses. With d = q − p1 = (¼, ¼, −1/64), n̂ = +z,
     * |c| = 1: g = (d − (d·n̂) n̂)/|c| = (¼, ¼, 0), ∇p2 = e2 × g = (0, 0, −¼),
     * ∇p3 = g × e1 = (0, 0, −¼), ∇p1 = −(n̂ + ∇p2 + ∇p3) = (0, 0, −½); Σ w |∇|² = ⅜, so
     * s = C/⅜ = −⅛ and Δp_i = −s ∇p_i: Δp1 = (0, 0, −1/16), Δp2 = Δp3 = (0, 0, −1/32).
     * Each corner moves in proportion to its barycentric weight (½, ¼, ¼) of q's foot
     * (¼, ¼, 0); all values are dyadic, so the result is exact. */
    const double w_t[4] = {0, 1, 1, 1};
    CHECK(pbd_self_delta(x, w_t, 1.0, 1.0 / 32, dp));
    const double want[12] = {0, 0, 0, 0, 0, -1.0 / 16, 0, 0, -1.0 / 32, 0, 0, -1.0 / 32};
    for (int i = 0; i < 12; i++) CHECK(dp[i] == want[i]);
    /* The triangle now tilts: its plane z = −1/16 + x/32 + y/32 passes 1/32 = h below q
     * vertically, but its normal ∝ (−1/32, −1/32, 1) has turned, so the distance is
     * h/√(1 + 2/1024) and C = h (√(512/513) − 1) ≈ −h/1024: second order in the
     * violation, as one Newton step of a smooth constraint leaves it (1e-17: a few
     * roundings of h). */
    double moved[12];
    for (int i = 0; i < 12; i++) moved[i] = x[i] + dp[i];
    CHECK_NEAR(pbd_self_constraint(moved, 1.0, 1.0 / 32, NULL),
               (sqrt(512.0 / 513.0) - 1.0) / 32, 1e-17);
    /* Everything pinned: no correction, no NaN. */
    const double w0[4] = {0, 0, 0, 0};
    CHECK(!pbd_self_delta(x, w0, 1.0, 1.0 / 32, dp));
    for (int i = 0; i < 12; i++) CHECK(dp[i] == 0.0);
}

static void test_projection_momentum(void) {
    lcg g = {4303};
    for (int trial = 0; trial < 400; trial++) {
        double x[12], dp[12], w[4];
        rnd_config(&g, x);
        bool equal = trial % 2 == 0;
        for (int a = 0; a < 4; a++) w[a] = equal ? 1.0 : rnd_in(&g, 0.1, 10.0);
        /* Choose the side q is NOT on, or a thickness larger than its distance, so the
         * constraint is violated: the cases the projection acts on. */
        double C0 = pbd_self_constraint(x, 1.0, 0.0, NULL);
        double side = trial % 3 ? (C0 > 0 ? -1.0 : 1.0) : (C0 > 0 ? 1.0 : -1.0);
        double h = trial % 3 ? 0.01 : fabs(C0) + 0.05;
        CHECK(pbd_self_delta(x, w, side, h, dp));
        /* Eq. 1: Σ m_i Δp_i = 0; eq. 2: Σ m_i p_i × Δp_i = 0. m_i Δp_i = −s ∇_i C, and
         * C is invariant under translations and rotations, so both sums vanish up to
         * rounding: four terms of size m|Δp| (m|p||Δp|) cancel, each with O(10)
         * roundings, 1e-13 relative to that scale. */
        double P[3] = {0, 0, 0}, L[3] = {0, 0, 0}, ps = 0.0, ls = 0.0;
        for (int a = 0; a < 4; a++) {
            double m = 1.0 / w[a], c[3];
            cross3(&x[3 * a], &dp[3 * a], c);
            for (int k = 0; k < 3; k++) P[k] += m * dp[3 * a + k], L[k] += m * c[k];
            ps += m * norm3(&dp[3 * a]);
            ls += m * norm3(&x[3 * a]) * norm3(&dp[3 * a]);
        }
        CHECK(ps > 0.0);
        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(P[k], 0.0, 1e-13 * ps);
            CHECK_NEAR(L[k], 0.0, 1e-13 * ls);
        }
        /* A Newton step: the violation shrinks. Not to zero (n̂ turns as the
         * triangle moves), but repeated projections converge: five more bring |C| to
         * rounding level for these well-shaped triangles (quadratic convergence from
         * |C| ≤ ~2; 1e-12 is far above rounding and far below a failure to converge). */
        double y[12];
        for (int i = 0; i < 12; i++) y[i] = x[i] + dp[i];
        for (int it = 0; it < 5; it++) {
            pbd_self_delta(y, w, side, h, dp);
            for (int i = 0; i < 12; i++) y[i] += dp[i];
        }
        CHECK(pbd_self_constraint(y, side, h, NULL) >= -1e-12);
    }
}

/* ------------------------------------------------------------------------------ */
/* Whole solvers: a cloth folded onto itself                                       */
/* ------------------------------------------------------------------------------ */

/* Loads a built-in scene, applies the overrides (NULL-terminated) and builds it, with
 * its config (the solvers' settings) into *cfg. */
static bool build(weft_model *m, weft_config **cfg, const char *scene,
                  const char *const *sets) {
    return scene_build_cfg(scene, sets, weft_energy_registry, m, cfg);
}

/* The fold scene: a 0.5 m × 0.25 m cloth of 17 × 9 vertices (edges 1/32 m) lying in the
 * plane y = 2 mm (drape_sphere's collision margin) on drape_sphere's ground plane, the
 * sphere moved out of the way, bending off so nothing resists the fold, thickness
 * h = 4 mm. Its left edge (x = −0.25 m) is pinned. Its right half (x > 0) is turned about
 * the grid line x = 0 by 150°, an isometry of the rest mesh (the line is made of grid
 * edges), so it starts unstrained, 30° above the left half; gravity then folds it over
 * onto the left half, edge on edge: the layers' borders coincide, the hardest case for
 * vertex–triangle constraints. Without self-collision it falls through the left half.
 * `free` instead removes gravity, ground and pins and starts the right half turning
 * down about the fold line at 4 rad/s, so the halves meet in mid-air. */
enum { FOLD_NX = 17, FOLD_NY = 9, FOLD_STEPS = 60 };

static bool build_fold(weft_model *m, weft_config **cfg, bool self, bool free,
                       const char *extra) {
    const char *sets[16] = {"mesh.nx=17", "mesh.ny=9", "mesh.width=0.5", "mesh.height=0.25",
                            "mesh.origin=-0.25,0.002,0.125", "collider.ball.center=0,-10,0",
                            "pbd.k_bending=0", "pbd.self_thickness=0.004",
                            self ? "pbd.self_collision=true" : "pbd.self_collision=false"};
    int n = 9;
    if (free) {
        sets[n++] = "scene.gravity=0,0,0";
        sets[n++] = "collider.ground.point=0,-10,0";
    } else {
        sets[n++] = "pins.edges=left";
    }
    sets[n++] = extra; /* NULL ends the list here when there is none */
    if (!build(m, cfg, "drape_sphere", sets)) return false;
    CHECK(m->n == FOLD_NX * FOLD_NY);
    const double theta = 150.0 * WEFT_PI / 180.0, spin = 4.0; /* rad, rad/s */
    for (int i = 0; i < m->n; i++) {
        double *x = &m->x[3 * i];
        if (x[0] <= 0.0) continue;
        double u = x[0];
        x[0] = u * cos(theta);
        x[1] = 0.002 + u * sin(theta);
        if (free) { /* d/dt (u cos θ, u sin θ) with dθ/dt = spin: down and towards −x */
            m->v[3 * i] = -spin * u * sin(theta);
            m->v[3 * i + 1] = spin * u * cos(theta);
        }
    }
    return true;
}

/* Self-collision constraints generated so far by a PBD solver state, from its profile
 * (NAN when st is NULL or the solver reports none). */
static double self_contacts(const weft_solver_type *solver, const void *st) {
    weft_profile p;
    weft_solver_stats(solver, st, &p);
    return weft_profile_value(&p, "self_contacts");
}

/* Steps the fold scene `steps` times; returns the largest number of intersecting
 * triangle pairs (weft_mesh_count_intersections) over the start and every step, or −1
 * on an error. The final state goes to out (when non-NULL, an unbuilt model), the run's
 * config to *cfg (when non-NULL; the caller frees it) and the number of self-collision
 * constraints generated to *contacts. */
static long run_fold(const weft_solver_type *solver, bool self, const char *extra, int steps,
                     weft_model *out, weft_config **cfg, long *contacts) {
    weft_model m = {0};
    weft_config *c = NULL;
    if (cfg) *cfg = NULL;
    if (!build_fold(&m, &c, self, false, extra)) {
        weft_model_free(&m);
        return -1;
    }
    long worst = weft_mesh_count_intersections(&m.mesh, m.x);
    CHECK(worst == 0); /* the folded start is intersection-free */
    weft_error err = {{0}};
    void *st = solver->create(&m, c, &err);
    if (!st) fprintf(stderr, "%s: %s\n", solver->name, err.msg);
    CHECK(st != NULL);
    for (int s = 0; st && s < steps; s++) {
        int rc = solver->step(st, &m, NULL, &err);
        if (rc != WEFT_OK) fprintf(stderr, "%s step %d: %s\n", solver->name, s, err.msg);
        CHECK(rc == WEFT_OK);
        long c = weft_mesh_count_intersections(&m.mesh, m.x);
        if (c > worst) worst = c;
    }
    if (contacts) *contacts = st ? (long)self_contacts(solver, st) : 0;
    solver->destroy(st);
    if (out)
        *out = m;
    else
        weft_model_free(&m);
    if (cfg)
        *cfg = c;
    else
        weft_config_free(&c);
    return worst;
}

static void check_fold(const weft_solver_type *solver) {
    weft_model on = {0};
    long n_on = 0, n_off = 0;
    long with = run_fold(solver, true, NULL, FOLD_STEPS, &on, NULL, &n_on);
    long without = run_fold(solver, false, NULL, FOLD_STEPS, NULL, NULL, &n_off);
    fprintf(stderr, "%s: intersecting pairs, most at any step: %ld with self-collision (%ld "
            "constraints generated), %ld without\n", solver->name, with, n_on, without);
    /* Self-collision on: no two triangles that share no vertex touch or cross at the end
     * of any step. */
    CHECK(with == 0);
    /* Not vacuous: the same scene without self-collision does intersect, and generates
     * no constraints; ... */
    CHECK(without > 0);
    CHECK(n_on > 0 && n_off == 0);
    if (on.n == 0) return;
    /* ... and with it the half did fold over: after 1 s every vertex of the upper half
     * (it started up to 12.7 cm high) lies within 1 cm of the ground, on the lower half,
     * whose vertices lie at the 2 mm margin (up to rounding, and 1 mm of slack for
     * Jacobi's softer stretch); and no upper vertex is closer to the ground than the
     * lower layer plus a quarter of h: it is on top. */
    double lo_top = INFINITY, hi_top = -INFINITY, hi_bottom = -INFINITY;
    for (int i = 0; i < on.n; i++) {
        double y = on.x[3 * i + 1];
        if (on.mesh.x[3 * i] > 0.0)
            lo_top = fmin(lo_top, y), hi_top = fmax(hi_top, y);
        else if (on.mesh.x[3 * i] < 0.0)
            hi_bottom = fmax(hi_bottom, y);
    }
    fprintf(stderr, "  upper half at %.4f .. %.4f m, lower half up to %.4f m\n", lo_top, hi_top,
            hi_bottom);
    CHECK(hi_top < 0.01);
    CHECK(hi_bottom < 0.003);
    CHECK(lo_top > 0.002 + 0.001);
    /* The pinned left edge never moved (w = 0 in every self-collision projection). */
    for (int i = 0; i < on.n; i++)
        if (on.pin[i] >= 0) CHECK(memcmp(&on.x[3 * i], &on.x_start[3 * i], 3 * sizeof *on.x) == 0);
    weft_model_free(&on);
}

static void test_fold_gauss_seidel(void) { check_fold(&weft_pbd_gauss_seidel); }

static void test_fold_jacobi(void) { check_fold(&weft_pbd_jacobi); }

/* xpbd runs the same self-collision constraints ([pbd] self_collision, projected after
 * each sweep of every substep, compliance 0): the fold stays free of intersections with
 * them and does intersect without them, when xpbd generated none. */
static void test_fold_xpbd(void) {
    const weft_solver_type *xpbd = weft_solver_find("xpbd");
    CHECK(xpbd != NULL);
    if (!xpbd) return;
    long n_on = 0, n_off = 0;
    long with = run_fold(xpbd, true, NULL, FOLD_STEPS, NULL, NULL, &n_on);
    long without = run_fold(xpbd, false, NULL, FOLD_STEPS, NULL, NULL, &n_off);
    fprintf(stderr, "xpbd: intersecting pairs, most at any step: %ld with self-collision (%ld "
            "constraints generated), %ld without\n", with, n_on, without);
    CHECK(with == 0);
    CHECK(without > 0);
    CHECK(n_on > 0 && n_off == 0);
}

static void test_free_momentum(void) {
    /* No gravity, ground or pins, so no external force: under Gauss-Seidel every
     * projection (stretch, eqs. 10–11, and self-collision, whose correction m_i Δp_i =
     * −s ∇_i C sums to zero) conserves Σ m Δp, damping conserves Σ m v, and
     * v = (p − x)/h, so the linear momentum P stays P0 up to rounding: 1e-12 of Σ m |v|
     * over 60 steps. The upper half hits the lower one in mid-air: self-collision must be
     * active, and nothing passes through, for both solvers. (Jacobi's averaging divides
     * each vertex's corrections by its own count n_i, so it does not conserve P and P is
     * not asserted for it.) */
    const weft_solver_type *solvers[2] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi};
    for (int sv = 0; sv < 2; sv++) {
        weft_model m = {0};
        weft_config *cfg = NULL;
        if (!build_fold(&m, &cfg, true, true, NULL)) return;
        double P0[3] = {0, 0, 0}, scale = 0.0;
        for (int i = 0; i < m.n; i++) {
            for (int k = 0; k < 3; k++) P0[k] += m.mass[i] * m.v[3 * i + k];
            scale += m.mass[i] * norm3(&m.v[3 * i]);
        }
        weft_error err = {{0}};
        void *st = solvers[sv]->create(&m, cfg, &err);
        CHECK(st != NULL);
        long worst = 0;
        double drift = 0.0;
        for (int s = 0; st && s < FOLD_STEPS; s++) {
            CHECK(solvers[sv]->step(st, &m, NULL, &err) == WEFT_OK);
            double P[3] = {0, 0, 0};
            for (int i = 0; i < m.n; i++)
                for (int k = 0; k < 3; k++) P[k] += m.mass[i] * m.v[3 * i + k];
            for (int k = 0; k < 3; k++) drift = fmax(drift, fabs(P[k] - P0[k]));
            long c = weft_mesh_count_intersections(&m.mesh, m.x);
            if (c > worst) worst = c;
        }
        double contacts = self_contacts(solvers[sv], st);
        fprintf(stderr, "%s free fold: %.0f constraints, most intersecting pairs %ld, "
                "|P - P0| up to %.3g of sum m|v|\n", solvers[sv]->name, contacts, worst,
                drift / scale);
        CHECK(contacts > 0);
        CHECK(worst == 0);
        if (sv == 0) CHECK(drift <= 1e-12 * scale);
        solvers[sv]->destroy(st);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

/* Runs the fold scene (self-collision on) for `steps` steps into m, its config into *cfg
 * (when non-NULL; the caller frees it). */
static bool fold_run(const weft_solver_type *solver, const char *extra, int steps,
                     weft_model *m, weft_config **cfg) {
    long contacts = 0;
    long worst = run_fold(solver, true, extra, steps, m, cfg, &contacts);
    CHECK(worst == 0 && contacts > 0);
    return worst == 0;
}

static void test_jacobi_threads(void) {
    weft_model a = {0}, b = {0};
    weft_config *ca = NULL, *cb = NULL;
    /* 30 steps: the upper half lands after about 10 (the threaded run is the slow one
     * where the two cores are busy with other work). */
    if (fold_run(&weft_pbd_jacobi, "solver.threads=1", 30, &a, &ca) &&
        fold_run(&weft_pbd_jacobi, "solver.threads=2", 30, &b, &cb)) {
        CHECK(cfg_value(ca, "solver", "threads") == 1 && cfg_value(cb, "solver", "threads") == 2);
        /* Constraints are generated serially in the hash's sorted pair order, each is
         * computed from the same p, and every vertex sums its corrections in constraint
         * order whatever the thread count: bitwise identical results. */
        CHECK(memcmp(a.x, b.x, 3 * (size_t)a.n * sizeof *a.x) == 0);
        CHECK(memcmp(a.v, b.v, 3 * (size_t)a.n * sizeof *a.v) == 0);
    }
    weft_model_free(&a);
    weft_model_free(&b);
    weft_config_free(&ca);
    weft_config_free(&cb);
}

static void test_gs_deterministic(void) {
    weft_model a = {0}, b = {0};
    if (fold_run(&weft_pbd_gauss_seidel, NULL, 30, &a, NULL) &&
        fold_run(&weft_pbd_gauss_seidel, NULL, 30, &b, NULL)) {
        /* A fixed constraint order and no uninitialised state: same input, same bits. */
        CHECK(memcmp(a.x, b.x, 3 * (size_t)a.n * sizeof *a.x) == 0);
        CHECK(memcmp(a.v, b.v, 3 * (size_t)a.n * sizeof *a.v) == 0);
    }
    weft_model_free(&a);
    weft_model_free(&b);
}

static void test_no_contact_no_change(void) {
    /* drape_sphere's first 20 steps (the cloth falls 0.2 m onto the sphere, which stops
     * its middle; measured: the first self-collision constraints come at step 22 with
     * Gauss-Seidel, 27 with Jacobi) never bring a vertex within 2h of a triangle: no
     * constraint is generated, and the steps are then bitwise those without
     * self-collision, for both solvers. */
    static const char *const on[] = {"pbd.self_collision=true", NULL};
    const weft_solver_type *solvers[2] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi};
    for (int sv = 0; sv < 2; sv++) {
        weft_model a = {0}, b = {0};
        weft_config *ca = NULL, *cb = NULL;
        if (!build(&a, &ca, "drape_sphere", on) || !build(&b, &cb, "drape_sphere", NULL)) {
            weft_model_free(&a), weft_model_free(&b);
            weft_config_free(&ca), weft_config_free(&cb);
            return;
        }
        CHECK(cfg_value(ca, "pbd", "self_collision") == 1 &&
              cfg_value(cb, "pbd", "self_collision") == 0);
        weft_error err = {{0}};
        void *sa = solvers[sv]->create(&a, ca, &err), *sb = solvers[sv]->create(&b, cb, &err);
        CHECK(sa != NULL && sb != NULL);
        for (int s = 0; sa && sb && s < 20; s++) {
            CHECK(solvers[sv]->step(sa, &a, NULL, &err) == WEFT_OK);
            CHECK(solvers[sv]->step(sb, &b, NULL, &err) == WEFT_OK);
        }
        CHECK(self_contacts(solvers[sv], sa) == 0);
        CHECK(memcmp(a.x, b.x, 3 * (size_t)a.n * sizeof *a.x) == 0);
        CHECK(memcmp(a.v, b.v, 3 * (size_t)a.n * sizeof *a.v) == 0);
        /* It moved, down to the sphere (top at 0.6 m plus the 2 mm margin). */
        double ymin = INFINITY, ymax = -INFINITY;
        for (int i = 0; i < a.n; i++)
            ymin = fmin(ymin, a.x[3 * i + 1]), ymax = fmax(ymax, a.x[3 * i + 1]);
        CHECK(ymax < 0.61 && ymin < 0.5);
        solvers[sv]->destroy(sa);
        solvers[sv]->destroy(sb);
        weft_model_free(&a);
        weft_model_free(&b);
        weft_config_free(&ca);
        weft_config_free(&cb);
    }
}

/* Builds drape_sphere with one override, and its config (the solvers' settings, checked
 * and dropped); returns the status, the message in err. */
static int build_with(const char *set, weft_model *m, weft_error *err) {
    weft_scene *s = weft_scene_load("drape_sphere", err);
    if (!s) return WEFT_ERR_INPUT;
    int rc = weft_scene_set(s, set, "test_pbd_self", err);
    weft_config *cfg = NULL;
    if (rc == WEFT_OK && !(cfg = weft_config_from_scene(s, err))) rc = WEFT_ERR_INPUT;
    if (rc == WEFT_OK) rc = weft_scene_build(s, weft_energy_registry, m, err);
    weft_config_free(&cfg);
    weft_scene_free(&s);
    return rc;
}

static void test_scene_keys(void) {
    /* Defaults: off, h = 5 mm. */
    weft_model m = {0};
    weft_config *cfg = NULL;
    if (build(&m, &cfg, "drape_sphere", NULL)) {
        CHECK(cfg_value(cfg, "pbd", "self_collision") == 0);
        CHECK(cfg_value(cfg, "pbd", "self_thickness") == 0.005);
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
    static const char *const set[] = {"pbd.self_collision=true", "pbd.self_thickness=0.002",
                                      NULL};
    if (build(&m, &cfg, "drape_sphere", set)) {
        CHECK(cfg_value(cfg, "pbd", "self_collision") == 1);
        CHECK(cfg_value(cfg, "pbd", "self_thickness") == 0.002);
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
    /* Bad values are refused when the scene is built, naming the key. */
    const char *bad[] = {"pbd.self_thickness=0", "pbd.self_thickness=-0.001",
                         "pbd.self_thickness=2", "pbd.self_thickness=thin",
                         "pbd.self_collision=maybe"};
    for (int i = 0; i < 5; i++) {
        weft_error err = {{0}};
        weft_model b = {0};
        int rc = build_with(bad[i], &b, &err);
        CHECK(rc == WEFT_ERR_INPUT);
        CHECK(strstr(err.msg, bad[i][4] == 's' && bad[i][9] == 'c' ? "self_collision"
                                                                     : "self_thickness") != NULL);
        if (rc != WEFT_ERR_INPUT) fprintf(stderr, "%s accepted\n", bad[i]);
        weft_model_free(&b);
    }
    /* The rest state must keep vertices 2h from the triangles they are not a corner of.
     * In the fold grid (square cells of 1/32 m, alternating diagonals) the nearest such
     * pair is a vertex and the diagonal of a neighbouring cell, (1/32)/√2 = 22.1 mm
     * apart: h = 10.5 mm is accepted, h = 11.5 mm refused by both solvers' create. */
    const weft_solver_type *solvers[2] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi};
    for (int sv = 0; sv < 2; sv++) {
        const double hs[2] = {0.0105, 0.0115};
        for (int k = 0; k < 2; k++) {
            weft_model f = {0};
            weft_config *fc = NULL;
            if (!build_fold(&f, &fc, true, false, NULL)) {
                weft_model_free(&f);
                weft_config_free(&fc);
                return;
            }
            weft_pbd_settings *ps = weft_config_find(fc, solvers[sv]->settings);
            CHECK(ps != NULL);
            if (!ps) {
                weft_model_free(&f);
                weft_config_free(&fc);
                return;
            }
            ps->self_thickness = hs[k];
            weft_error err = {{0}};
            void *st = solvers[sv]->create(&f, fc, &err);
            if (k == 0) CHECK(st != NULL);
            if (k == 1) {
                CHECK(st == NULL);
                CHECK(strstr(err.msg, "pbd.self_thickness") != NULL);
                CHECK(strstr(err.msg, "0.0110485") != NULL); /* (1/32)/√2/2, the bound */
                fprintf(stderr, "h = %.4f m: %s\n", hs[k], err.msg);
            }
            solvers[sv]->destroy(st);
            weft_model_free(&f);
            weft_config_free(&fc);
        }
    }
}

static void test_nonfinite(void) {
    /* A NaN velocity makes a NaN prediction; the self-collision broad phase refuses it, so
     * the step fails with WEFT_ERR_DIVERGED and says why instead of going on with NaN. */
    const weft_solver_type *solvers[2] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi};
    for (int sv = 0; sv < 2; sv++) {
        weft_model m = {0};
        weft_config *cfg = NULL;
        if (!build_fold(&m, &cfg, true, false, NULL)) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            return;
        }
        weft_error err = {{0}};
        void *st = solvers[sv]->create(&m, cfg, &err);
        CHECK(st != NULL);
        m.v[3 * (m.n - 1) + 1] = NAN; /* a free corner of the upper half */
        int rc = st ? solvers[sv]->step(st, &m, NULL, &err) : WEFT_OK;
        CHECK(rc == WEFT_ERR_DIVERGED);
        CHECK(strstr(err.msg, "self-collision") != NULL);
        solvers[sv]->destroy(st);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"gradient_fd", test_gradient_fd},
        {"projection_hand", test_projection_hand},
        {"projection_momentum", test_projection_momentum},
        {"fold_gauss_seidel", test_fold_gauss_seidel},
        {"fold_jacobi", test_fold_jacobi},
        {"fold_xpbd", test_fold_xpbd},
        {"free_momentum", test_free_momentum},
        {"jacobi_threads", test_jacobi_threads},
        {"gs_deterministic", test_gs_deterministic},
        {"no_contact_no_change", test_no_contact_no_change},
        {"scene_keys", test_scene_keys},
        {"nonfinite", test_nonfinite},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
