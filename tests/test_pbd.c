/* test_pbd.c — tests of the position-based dynamics solvers (solvers/): the projection
 * kernels of pbd_internal.h against Müller, Heidelberger, Hennix and Ratcliff 2006
 * ("Position Based Dynamics", eqs. 1–11, §3.3, §3.5, §4.1 and Appendix A), the §3.5
 * damping, attachments (§3.6), and whole-solver properties of Gauss-Seidel
 * (Algorithm 1) and Jacobi (Macklin et al. 2014 §4.2): momentum conservation of a
 * free cloth, convergence ordering, boundedness, thread and run determinism.
 *
 * Every assertion is a mathematical or physical fact with a tolerance derived in a
 * comment; random inputs come from a fixed-seed LCG, so runs are reproducible.
 */
#include "check.h"
#include "scene_build.h"
#include "test_util.h"
#include "tmp_files.h"
#include "pbd_internal.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------ */
/* Small helpers                                                                   */
/* ------------------------------------------------------------------------------ */


/* Rotates v about the unit axis a by angle t (Rodrigues). */
static void rotate3(const double *a, double t, const double *v, double *out) {
    double c = cos(t), s = sin(t), axv[3];
    cross3(a, v, axv);
    double ad = dot3(a, v);
    double r[3];
    for (int k = 0; k < 3; k++) r[k] = v[k] * c + axv[k] * s + a[k] * ad * (1.0 - c);
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

/* A random unit vector. */
static void rnd_unit(lcg *g, double *u) {
    double l;
    do {
        for (int k = 0; k < 3; k++) u[k] = rnd_in(g, -1.0, 1.0);
        l = norm3(u);
    } while (l < 0.1 || l > 1.0);
    for (int k = 0; k < 3; k++) u[k] /= l;
}

/* A random hinge (12 values: p0, p1 shared edge, p2, p3 opposite) whose dihedral
 * angle is ±phi: p3 is the mirror image side of p2 rotated about the edge by phi, so
 * phi = 0 is flat and phi → π closes the hinge. The edge has length in [0.5, 2],
 * the opposite vertices lie 0.3–1 edge lengths from it, all near a random centre
 * in [−1, 1]³. */
static void rnd_hinge(lcg *g, double phi, double *p) {
    double e[3], u[3], t[3];
    rnd_unit(g, e);
    do { /* u: a unit vector perpendicular to e */
        rnd_unit(g, t);
        cross3(e, t, u);
    } while (norm3(u) < 0.3);
    double lu = norm3(u);
    for (int k = 0; k < 3; k++) u[k] /= lu;
    double L = rnd_in(g, 0.5, 2.0), c[3];
    for (int k = 0; k < 3; k++) c[k] = rnd_in(g, -1.0, 1.0);
    double a2 = rnd_in(g, 0.1, 0.9) * L, b2 = rnd_in(g, 0.3, 1.0) * L;
    double a3 = rnd_in(g, 0.1, 0.9) * L, b3 = rnd_in(g, 0.3, 1.0) * L;
    double side[3] = {-u[0], -u[1], -u[2]}, r3[3];
    rotate3(e, phi, side, r3);
    for (int k = 0; k < 3; k++) {
        p[k] = c[k];
        p[3 + k] = c[k] + L * e[k];
        p[6 + k] = c[k] + a2 * e[k] + b2 * u[k];
        p[9 + k] = c[k] + a3 * e[k] + b3 * r3[k];
    }
}

/* Loads a built-in scene, applies the overrides (NULL-terminated) and builds it, with
 * its config (the solvers' settings) into *cfg. */
static bool build(weft_model *m, weft_config **cfg, const char *scene,
                  const char *const *sets) {
    return scene_build_cfg(scene, sets, weft_energy_registry, m, cfg);
}

/* Steps m `steps` times with solver and the settings of cfg; false (and a failed check)
 * on an error. */
static bool step_n(const weft_solver_type *solver, weft_model *m, weft_config *cfg,
                   int steps) {
    weft_error err = {{0}};
    void *st = solver->create(m, cfg, &err);
    CHECK(st != NULL);
    if (!st) return false;
    int rc = WEFT_OK;
    for (int i = 0; i < steps && rc == WEFT_OK; i++) rc = solver->step(st, m, NULL, &err);
    solver->destroy(st);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* Copies the dynamic state (positions, velocities, time) of a into b (same scene). */
static void copy_state(const weft_model *a, weft_model *b) {
    memcpy(b->x, a->x, 3 * (size_t)a->n * sizeof *a->x);
    memcpy(b->v, a->v, 3 * (size_t)a->n * sizeof *a->v);
    b->t = a->t;
}

/* Linear momentum P = Σ m v and angular momentum L = Σ m x × v about the origin; the
 * scales Σ m |v| and Σ m |x||v| bound the rounding error of each sum. */
static void momenta(const weft_model *m, const double *x, const double *v, double P[3],
                    double L[3], double *pscale, double *lscale) {
    for (int k = 0; k < 3; k++) P[k] = L[k] = 0.0;
    *pscale = *lscale = 0.0;
    for (int i = 0; i < m->n; i++) {
        const double *xi = &x[3 * i], *vi = &v[3 * i];
        double c[3];
        cross3(xi, vi, c);
        for (int k = 0; k < 3; k++) P[k] += m->mass[i] * vi[k], L[k] += m->mass[i] * c[k];
        *pscale += m->mass[i] * norm3(vi);
        *lscale += m->mass[i] * norm3(xi) * norm3(vi);
    }
}

/* ------------------------------------------------------------------------------ */
/* Distance constraint (Müller 2006 eqs. 10–11)                                    */
/* ------------------------------------------------------------------------------ */

/* Checks a 3-vector against expected values. The hand cases below involve only
 * dyadic rationals (0.5, 0.25, 0.125, ...) that double arithmetic represents and
 * combines exactly, so any difference beyond 1e-15 is a real error. */
static void check_vec(const double *got, double x, double y, double z) {
    CHECK_NEAR(got[0], x, 1e-15);
    CHECK_NEAR(got[1], y, 1e-15);
    CHECK_NEAR(got[2], z, 1e-15);
}

static void test_distance_hand(void) {
    double da[3], db[3];
    const double o[3] = {0, 0, 0}, b2[3] = {2, 0, 0};
    /* Eqs. 10–11: with n̂ = (p1 − p2)/|p1 − p2|,
     *   Δp1 = −w1/(w1 + w2) (|p1 − p2| − d) n̂,  Δp2 = +w2/(w1 + w2) (|p1 − p2| − d) n̂,
     * times k. Here p1 = (0,0,0), p2 = (2,0,0), d = 1: |p1 − p2| − d = 1, n̂ = (−1,0,0).
     * Equal masses: Δp1 = −½ · 1 · (−1,0,0) = (½,0,0), Δp2 = (−½,0,0): each end moves
     * half the excess length towards the other. */
    pbd_distance_delta(o, b2, 1.0, 1.0, 1.0, 1.0, da, db);
    check_vec(da, 0.5, 0, 0);
    check_vec(db, -0.5, 0, 0);
    /* w1 = 1, w2 = 3 (b is three times lighter): Δp1 = −¼ (−1,0,0) = (¼,0,0),
     * Δp2 = ¾ (−1,0,0): the lighter end moves three times as far. */
    pbd_distance_delta(o, b2, 1.0, 3.0, 1.0, 1.0, da, db);
    check_vec(da, 0.25, 0, 0);
    check_vec(db, -0.75, 0, 0);
    /* k = ½ scales both corrections by ½ (the constraint is projected half way). */
    pbd_distance_delta(o, b2, 1.0, 1.0, 1.0, 0.5, da, db);
    check_vec(da, 0.25, 0, 0);
    check_vec(db, -0.25, 0, 0);
    /* w1 = 0 (an attachment, §3.6): p1 stays, p2 takes the whole correction −1·n̂·(−1). */
    pbd_distance_delta(o, b2, 0.0, 1.0, 1.0, 1.0, da, db);
    check_vec(da, 0, 0, 0);
    check_vec(db, -1.0, 0, 0);
    pbd_distance_delta(o, b2, 1.0, 0.0, 1.0, 1.0, da, db);
    check_vec(da, 1.0, 0, 0);
    check_vec(db, 0, 0, 0);
    /* Both ends pinned: no correction at all. */
    pbd_distance_delta(o, b2, 0.0, 0.0, 1.0, 1.0, da, db);
    check_vec(da, 0, 0, 0);
    check_vec(db, 0, 0, 0);
    /* Compression: |p1 − p2| = ½ < d = 1 pushes the ends apart by ¼ each. */
    const double bh[3] = {0.5, 0, 0};
    pbd_distance_delta(o, bh, 1.0, 1.0, 1.0, 1.0, da, db);
    check_vec(da, -0.25, 0, 0);
    check_vec(db, 0.25, 0, 0);
    /* Coincident points: n̂ is undefined, the correction must be zero (and not NaN). */
    pbd_distance_delta(b2, b2, 1.0, 1.0, 1.0, 1.0, da, db);
    check_vec(da, 0, 0, 0);
    check_vec(db, 0, 0, 0);
    /* Off-axis: p1 − p2 = (1, 2, 2), length 3, d = 1, equal masses: Δp1 = −(1,2,2)/3.
     * One projection with k = 1 satisfies the constraint: |p1' − p2'| = d. Thirds are
     * not dyadic, so allow a few ulps (1e-15 absolute on O(1) values). */
    const double pa[3] = {1, 2, 2};
    pbd_distance_delta(pa, o, 1.0, 1.0, 1.0, 1.0, da, db);
    CHECK_NEAR(da[0], -1.0 / 3.0, 1e-15);
    CHECK_NEAR(da[1], -2.0 / 3.0, 1e-15);
    CHECK_NEAR(da[2], -2.0 / 3.0, 1e-15);
    CHECK_NEAR(db[0], 1.0 / 3.0, 1e-15);
    CHECK_NEAR(db[1], 2.0 / 3.0, 1e-15);
    CHECK_NEAR(db[2], 2.0 / 3.0, 1e-15);
    double d[3] = {pa[0] + da[0] - db[0], pa[1] + da[1] - db[1], pa[2] + da[2] - db[2]};
    CHECK_NEAR(norm3(d), 1.0, 1e-15);
}

static void test_distance_momentum(void) {
    lcg g = {12345};
    for (int trial = 0; trial < 200; trial++) {
        double pa[3], pb[3], da[3], db[3];
        for (int k = 0; k < 3; k++) pa[k] = rnd_in(&g, -2, 2), pb[k] = rnd_in(&g, -2, 2);
        double rest = rnd_in(&g, 0.1, 3.0), k = rnd_in(&g, 0.1, 1.0);
        bool equal = trial % 2 == 0;
        double wa = equal ? 1.0 : rnd_in(&g, 0.1, 10.0), wb = equal ? 1.0 : rnd_in(&g, 0.1, 10.0);
        pbd_distance_delta(pa, pb, wa, wb, rest, k, da, db);
        double ma = 1.0 / wa, mb = 1.0 / wb; /* m_i = 1/w_i */
        /* Eq. 1: Σ m_i Δp_i = 0; eq. 2: Σ m_i p_i × Δp_i = 0 (about the origin, at the
         * positions the correction was computed from). Each sum cancels two terms of
         * size ~ m|Δp| (and m|p||Δp|), so rounding leaves ~1e-16 of that scale;
         * 1e-12 relative leaves ample margin and still catches any systematic error. */
        double ca[3], cb[3];
        cross3(pa, da, ca);
        cross3(pb, db, cb);
        double pscale = ma * norm3(da) + mb * norm3(db);
        double lscale = ma * norm3(pa) * norm3(da) + mb * norm3(pb) * norm3(db);
        for (int c = 0; c < 3; c++) {
            CHECK_NEAR(ma * da[c] + mb * db[c], 0.0, 1e-12 * pscale);
            CHECK_NEAR(ma * ca[c] + mb * cb[c], 0.0, 1e-12 * lscale);
        }
        /* With k = 1 one projection satisfies the constraint exactly (eqs. 10–11 move
         * both ends along n̂ by a total of |p1 − p2| − d). */
        pbd_distance_delta(pa, pb, wa, wb, rest, 1.0, da, db);
        double d[3] = {pa[0] + da[0] - pb[0] - db[0], pa[1] + da[1] - pb[1] - db[1],
                       pa[2] + da[2] - pb[2] - db[2]};
        CHECK_NEAR(norm3(d), rest, 1e-13 * (rest + norm3(pa) + norm3(pb)));
    }
}

/* ------------------------------------------------------------------------------ */
/* Bending constraint (§4.1, Appendix A)                                           */
/* ------------------------------------------------------------------------------ */

/* Central finite differences of weft_hinge_angle over the 12 coordinates. */
static void hinge_fd(const double *p, double h, double *g) {
    double q[12];
    for (int i = 0; i < 12; i++) {
        memcpy(q, p, sizeof q);
        q[i] = p[i] + h;
        double fp = weft_hinge_angle(q, q + 3, q + 6, q + 9, NULL);
        q[i] = p[i] - h;
        double fm = weft_hinge_angle(q, q + 3, q + 6, q + 9, NULL);
        g[i] = (fp - fm) / (2.0 * h);
    }
}

/* d = n1·n2 of Müller 2006 Appendix A, with the paper's (p1, p2, p3, p4) = weft's
 * (p0, p1, p2, p3) and p1 translated to the origin: n1 = p2×p3/|p2×p3|,
 * n2 = p2×p4/|p2×p4|. Also the paper's q_i:
 *   q3 = (p2×n2 + (n1×p2) d)/|p2×p3|,  q4 = (p2×n1 + (n2×p2) d)/|p2×p4|,
 *   q2 = −(p3×n2 + (n1×p3) d)/|p2×p3| − (p4×n1 + (n2×p4) d)/|p2×p4|,
 *   q1 = −q2 − q3 − q4.
 * q (12 values, weft order) may be NULL. */
static double appendix_a(const double *p, double *q) {
    double p2[3], p3[3], p4[3];
    for (int k = 0; k < 3; k++)
        p2[k] = p[3 + k] - p[k], p3[k] = p[6 + k] - p[k], p4[k] = p[9 + k] - p[k];
    double c23[3], c24[3];
    cross3(p2, p3, c23);
    cross3(p2, p4, c24);
    double l23 = norm3(c23), l24 = norm3(c24), n1[3], n2[3];
    for (int k = 0; k < 3; k++) n1[k] = c23[k] / l23, n2[k] = c24[k] / l24;
    double d = dot3(n1, n2);
    if (q) {
        double a[3], b[3], q2[3], q3[3], q4[3];
        cross3(p2, n2, a);
        cross3(n1, p2, b);
        for (int k = 0; k < 3; k++) q3[k] = (a[k] + b[k] * d) / l23;
        cross3(p2, n1, a);
        cross3(n2, p2, b);
        for (int k = 0; k < 3; k++) q4[k] = (a[k] + b[k] * d) / l24;
        double c[3], e[3];
        cross3(p3, n2, a);
        cross3(n1, p3, b);
        cross3(p4, n1, c);
        cross3(n2, p4, e);
        for (int k = 0; k < 3; k++) q2[k] = -(a[k] + b[k] * d) / l23 - (c[k] + e[k] * d) / l24;
        for (int k = 0; k < 3; k++) {
            q[k] = -q2[k] - q3[k] - q4[k];
            q[3 + k] = q2[k];
            q[6 + k] = q3[k];
            q[9 + k] = q4[k];
        }
    }
    return d;
}

/* arccos(d) of Appendix A at the 12 coordinates p. */
static double appendix_phi(const double *p) {
    double d = appendix_a(p, NULL);
    return acos(fmax(-1.0, fmin(1.0, d)));
}

/* FD check of ∇θ at p: max error ≤ tol × max|∇θ|. Central differences with h = 1e-6
 * on O(1) coordinates have truncation error ~h² θ''' ~ 1e-12 and rounding error
 * ~ε/h ~ 1e-10 (relative to O(1) gradients), so 1e-6 is a safe bound that still
 * catches a wrong term (which would be O(1) relative). */
static void check_hinge_fd(const double *p, const char *what) {
    double g[12], fd[12];
    weft_hinge_angle(p, p + 3, p + 6, p + 9, g);
    hinge_fd(p, 1e-6, fd);
    double err = 0.0;
    for (int i = 0; i < 12; i++) err = fmax(err, fabs(g[i] - fd[i]));
    double scale = max_abs(g, 12);
    if (!(err <= 1e-6 * scale))
        fprintf(stderr, "hinge FD (%s): max err %.3g, max |g| %.3g\n", what, err, scale);
    CHECK(err <= 1e-6 * scale);
}

static void test_bend_hand(void) {
    /* Flat hinge in the z = 0 plane: edge p0 p1 on the x axis, p2 above, p3 below. */
    double flat[12] = {0, 0, 0, 1, 0, 0, 0.3, 0.8, 0, 0.6, -0.7, 0};
    double theta = weft_hinge_angle(flat, flat + 3, flat + 6, flat + 9, NULL);
    /* Both normals are exactly +z, so θ = atan2(0, c) = 0 up to rounding of the
     * (exactly zero) sine term. */
    CHECK_NEAR(theta, 0.0, 1e-15);
    /* Folded to 90°: p3 rotated about the x axis from (0.6, −0.7, 0) to (0.6, 0, −0.7)
     * or (0.6, 0, 0.7); the normals become perpendicular, |θ| = π/2, and the two folds
     * have opposite signs. */
    double up[12], down[12];
    memcpy(up, flat, sizeof up);
    memcpy(down, flat, sizeof down);
    up[10] = 0.0, up[11] = 0.7;
    down[10] = 0.0, down[11] = -0.7;
    double tu = weft_hinge_angle(up, up + 3, up + 6, up + 9, NULL);
    double td = weft_hinge_angle(down, down + 3, down + 6, down + 9, NULL);
    CHECK_NEAR(fabs(tu), WEFT_PI / 2, 1e-14);
    CHECK_NEAR(fabs(td), WEFT_PI / 2, 1e-14);
    CHECK(tu * td < 0.0);
    check_hinge_fd(flat, "flat");
    check_hinge_fd(up, "90 degrees");

    /* Random hinges at angles spanning (−π, π), including θ ≈ 0 and θ ≈ ±π (almost
     * closed: p3 folded nearly onto p2's side). FD steps of 1e-6 change θ by ~1e-6, so
     * a hinge 1e-3 from ±π never crosses the branch cut of atan2. */
    lcg g = {777};
    const double phis[] = {1e-4, -1e-4, 1e-7, 0.3, -0.9, 1.7, -2.4, 3.0,
                           -3.1, WEFT_PI - 1e-3, -(WEFT_PI - 1e-3)};
    int nphi = (int)(sizeof phis / sizeof phis[0]);
    for (int trial = 0; trial < 5 * nphi; trial++) {
        double phi = phis[trial % nphi], p[12];
        rnd_hinge(&g, phi, p);
        double th = weft_hinge_angle(p, p + 3, p + 6, p + 9, NULL);
        /* The construction folds by exactly ±phi; the angle is recovered to rounding
         * (1e-12 covers the rotation's and atan2's rounding at these magnitudes). */
        CHECK_NEAR(fabs(th), fabs(phi), 1e-12);
        check_hinge_fd(p, "random");
    }

    /* Appendix A. The paper's q_i are minus the derivatives of d: differentiating
     * n1 = p2×p3/|p2×p3| gives ∂d/∂p3 = (I − n1 n1ᵀ) n2 · (p2 × δ)/|p2×p3| =
     * −(p2×n2 + (n1×p2) d)·δ/|p2×p3| = −q3·δ, and likewise for the others. So
     * ∂arccos(d)/∂p_i = +q_i/√(1 − d²), which is also what the paper's projection
     * Δp_i = −w_i √(1 − d²)(arccos d − φ0) q_i / Σ_j w_j |q_j|² implies (eq. 9 with
     * ∇C = q/√(1 − d²)); the sign is confirmed below by finite differences of
     * arccos(d), and a minus sign there fails them.
     * Then: n1 = p2×p3 = nA (weft's normal of triangle A) but n2 = p2×p4 = −nB
     * (weft's triangle B is wound (p1, p0, p3)), so d = n1·n2 = −cos θ,
     * arccos(d) = π − |θ|, and ∇θ = −sign(θ) ∇arccos(d): weft's gradient equals the
     * appendix gradient componentwise in magnitude, with the one global sign
     * −sign(θ). √(1 − d²) = |sin θ| vanishes at 0 and π, so compare away from them
     * (|θ| ∈ [0.3, π − 0.3]), where both formulas are well-conditioned: agreement to
     * 1e-9 relative (rounding only, amplified at most ~1/sin 0.3 ≈ 3.4). */
    const double sign_appendix = 1.0; /* ∂arccos(d)/∂p = sign_appendix·q/√(1 − d²) */
    for (int trial = 0; trial < 40; trial++) {
        double phi = rnd_in(&g, 0.3, WEFT_PI - 0.3) * (trial % 2 ? 1.0 : -1.0), p[12];
        rnd_hinge(&g, phi, p);
        double gw[12], q[12], ga[12], fd[12];
        double th = weft_hinge_angle(p, p + 3, p + 6, p + 9, gw);
        double d = appendix_a(p, q);
        double sq = sqrt(1.0 - d * d);
        for (int i = 0; i < 12; i++) ga[i] = sign_appendix * q[i] / sq;
        /* The appendix formula, as implemented here, is the gradient of arccos(d):
         * FD check with the same tolerance argument as check_hinge_fd. */
        double pp[12];
        for (int i = 0; i < 12; i++) {
            memcpy(pp, p, sizeof pp);
            pp[i] = p[i] + 1e-6;
            double fp = appendix_phi(pp);
            pp[i] = p[i] - 1e-6;
            fd[i] = (fp - appendix_phi(pp)) / 2e-6;
        }
        double scale = max_abs(ga, 12), err_fd = 0.0, err_w = 0.0, err_abs = 0.0;
        for (int i = 0; i < 12; i++) {
            err_fd = fmax(err_fd, fabs(ga[i] - fd[i]));
            err_w = fmax(err_w, fabs(gw[i] + (th > 0 ? 1.0 : -1.0) * ga[i]));
            err_abs = fmax(err_abs, fabs(fabs(gw[i]) - fabs(ga[i])));
        }
        CHECK(err_fd <= 1e-6 * scale);
        CHECK(err_abs <= 1e-9 * scale); /* |∇θ| = |appendix| componentwise */
        CHECK(err_w <= 1e-9 * scale);   /* with the one global sign −sign(θ) */
        CHECK_NEAR(appendix_phi(p), WEFT_PI - fabs(th), 1e-12);
    }

    /* Degenerate hinges: a zero-area triangle (p2 on the edge line, p2 = p0, p3 = p1)
     * or a zero-length edge. θ has no meaning; the documented result is θ = 0 with a
     * zero gradient, and the projection must then give a zero (finite) correction. */
    double degen[5][12];
    for (int c = 0; c < 5; c++) memcpy(degen[c], flat, sizeof flat);
    degen[0][6] = 0.5, degen[0][7] = 0.0;                      /* p2 on the edge line */
    degen[1][6] = 0.0, degen[1][7] = 0.0;                      /* p2 = p0 */
    degen[2][9] = 1.0, degen[2][10] = 0.0;                     /* p3 = p1 */
    degen[3][3] = 0.0;                                         /* p1 = p0 */
    degen[4][6] = 2.5, degen[4][7] = 0.0, degen[4][8] = 0.0;   /* p2 beyond p1 on the line */
    for (int c = 0; c < 5; c++) {
        double *p = degen[c], gd[12], dp[12];
        double th = weft_hinge_angle(p, p + 3, p + 6, p + 9, gd);
        CHECK(isfinite(th));
        CHECK_NEAR(th, 0.0, 0.0);
        for (int i = 0; i < 12; i++) CHECK(gd[i] == 0.0);
        const double w[4] = {1, 1, 1, 1};
        pbd_bend_delta(p, p + 3, p + 6, p + 9, w, 0.7, 1.0, dp);
        for (int i = 0; i < 12; i++) CHECK(dp[i] == 0.0);
    }

    /* A pinned vertex (w = 0) receives no correction (§3.6), the others do. */
    double dp[12];
    const double w[4] = {1, 0, 1, 1};
    pbd_bend_delta(up, up + 3, up + 6, up + 9, w, 0.0, 1.0, dp);
    for (int k = 0; k < 3; k++) CHECK(dp[3 + k] == 0.0);
    CHECK(max_abs(dp, 12) > 0.0);
}

static void test_bend_momentum(void) {
    lcg g = {4242};
    for (int trial = 0; trial < 200; trial++) {
        double p[12], dp[12], w[4];
        rnd_hinge(&g, rnd_in(&g, -3.0, 3.0), p);
        bool equal = trial % 2 == 0;
        for (int a = 0; a < 4; a++) w[a] = equal ? 1.0 : rnd_in(&g, 0.1, 10.0);
        double rest = rnd_in(&g, -3.0, 3.0), k = rnd_in(&g, 0.1, 1.0);
        pbd_bend_delta(p, p + 3, p + 6, p + 9, w, rest, k, dp);
        /* Eqs. 1–2 hold because θ is invariant under translation (Σ ∇_i θ = 0) and
         * rotation (Σ p_i × ∇_i θ = 0), and Δp_i ∝ w_i ∇_i θ so m_i Δp_i ∝ ∇_i θ.
         * Four terms of size m|Δp| (m|p||Δp|) cancel; the gradient itself is computed
         * with O(10) roundings per component, so rounding leaves ≲1e-14 of that
         * scale; 1e-10 relative is far above that and far below any real violation. */
        double P[3] = {0, 0, 0}, L[3] = {0, 0, 0}, ps = 0.0, ls = 0.0;
        for (int a = 0; a < 4; a++) {
            double m = 1.0 / w[a], c[3];
            cross3(&p[3 * a], &dp[3 * a], c);
            for (int j = 0; j < 3; j++) P[j] += m * dp[3 * a + j], L[j] += m * c[j];
            ps += m * norm3(&dp[3 * a]);
            ls += m * norm3(&p[3 * a]) * norm3(&dp[3 * a]);
        }
        CHECK(ps > 0.0); /* the hinge is violated, so there is a correction to test */
        for (int j = 0; j < 3; j++) {
            CHECK_NEAR(P[j], 0.0, 1e-10 * ps);
            CHECK_NEAR(L[j], 0.0, 1e-10 * ls);
        }
    }
}

/* The generic projection of eqs. 1–9 from weft_hinge_angle's θ and ∇θ, as PBD wrote it
 * before the closed form: Δp_i = −k C w_i ∇_i θ / Σ_j w_j |∇_j θ|². */
static void bend_delta_generic(const double *p, const double w[4], double rest, double k,
                               double dp[12]) {
    double g[12];
    double C = weft_wrap_angle(weft_hinge_angle(p, p + 3, p + 6, p + 9, g) - rest), den = 0.0;
    for (int i = 0; i < 12; i++) den += w[i / 3] * g[i] * g[i];
    for (int i = 0; i < 12; i++) dp[i] = den > 1e-30 ? -k * C * w[i / 3] * g[i] / den : 0.0;
}

/* pbd_bend_delta_cs (one division, rotated angle, atan series near the rest angle)
 * against the generic projection: equal to rounding on both of its angle branches
 * (|θ − θ0| below and above 1/8), with pinned vertices, and at every scale. The two
 * round differently: θ − θ0 carries ~1e-16 absolute error in either, so Δp (∝ C)
 * agrees to ~1e-16/|C| relative; 1e-11 relative to max |Δp| with |C| ≥ 1e-3 is far
 * above that and far below any wrong term (O(1)). weft_atan_small against atan to
 * 2 ulp on [−1/8, 1/8]. */
static void test_bend_closed_form(void) {
    lcg g = {2718};
    int branch[2] = {0, 0};
    for (int trial = 0; trial < 400; trial++) {
        double p[12], w[4], d1[12], d2[12];
        rnd_hinge(&g, rnd_in(&g, -3.0, 3.0), p);
        double sc = trial % 3 == 0 ? 1e-3 : trial % 3 == 1 ? 1.0 : 50.0;
        for (int i = 0; i < 12; i++) p[i] *= sc;
        for (int a = 0; a < 4; a++) w[a] = trial % 5 == a ? 0.0 : rnd_in(&g, 0.1, 10.0);
        double th = weft_hinge_angle(p, p + 3, p + 6, p + 9, NULL);
        /* half near the rest angle (the series), half far (atan2) */
        double off = trial % 2 ? rnd_in(&g, -0.12, 0.12) : rnd_in(&g, 0.2, 3.0);
        if (fabs(off) < 1e-3) off = 1e-3;
        double rest = weft_wrap_angle(th - off), k = rnd_in(&g, 0.1, 1.0);
        const double cs[2] = {cos(rest), sin(rest)};
        branch[fabs(off) < 0.124]++;
        pbd_bend_delta_cs(p, p + 3, p + 6, p + 9, w, cs, k, d1);
        bend_delta_generic(p, w, rest, k, d2);
        double m = max_abs(d2, 12);
        CHECK(m > 0.0);
        for (int i = 0; i < 12; i++) CHECK_NEAR(d1[i], d2[i], 1e-11 * m);
        for (int a = 0; a < 4; a++)
            if (w[a] == 0.0)
                for (int c = 0; c < 3; c++) CHECK(d1[3 * a + c] == 0.0);
    }
    CHECK(branch[0] > 100 && branch[1] > 100);
    for (int i = -1000; i <= 1000; i++) {
        double t = i / 8000.0, a = atan(t);
        CHECK_NEAR(weft_atan_small(t), a, 2.0 * DBL_EPSILON * fabs(a));
    }
}

/* pbd_bend_lanes projects PBD_LANES constraints with disjoint vertices, one per SIMD
 * lane, in pbd_bend_delta_cs's operations: the positions must come out bitwise equal to
 * the scalar projections one after the other (near the rest angle, the series; far,
 * atan2; pinned vertices), and a lane with a degenerate hinge or every vertex pinned
 * must make it refuse (false) without touching p. */
static void test_bend_lanes(void) {
    enum { L = PBD_LANES, NP = 12 * PBD_LANES };
    lcg g = {4242};
    int done = 0, refused = 0, branch[2] = {0, 0};
    for (int trial = 0; trial < 600; trial++) {
        double p[NP], q[NP], w[4 * L];
        pbd_bend b[L];
        for (int l = 0; l < L; l++) {
            double *h = p + 12 * l;
            rnd_hinge(&g, rnd_in(&g, -3.0, 3.0), h);
            double th = weft_hinge_angle(h, h + 3, h + 6, h + 9, NULL);
            double off = (trial + l) % 3 ? rnd_in(&g, -0.12, 0.12) : rnd_in(&g, 0.2, 3.0);
            double rest = weft_wrap_angle(th - off);
            branch[fabs(off) < 0.12]++;
            /* p0 stored second, p1 first: the lanes' vertex lists are not in p's order */
            b[l] = (pbd_bend){{4 * l + 1, 4 * l, 4 * l + 2, 4 * l + 3}, rest,
                              {cos(rest), sin(rest)}};
            for (int c = 0; c < 3; c++) {
                double t = h[c];
                h[c] = h[3 + c], h[3 + c] = t;
            }
            for (int a = 0; a < 4; a++) w[4 * l + a] = rnd_in(&g, 0.1, 10.0);
        }
        if (trial % 7 == 0) w[trial % (4 * L)] = 0.0;                 /* one pinned vertex */
        if (trial % 50 == 1) for (int a = 0; a < 4; a++) w[a] = 0.0; /* lane 0 all pinned */
        if (trial % 50 == 2) memcpy(p + 12 * (L - 1) + 6, p + 12 * (L - 1), 3 * sizeof *p);
        memcpy(q, p, sizeof p);                        /* (last lane: p2 = p1, degenerate) */
        double k = rnd_in(&g, 0.1, 1.0);
        if (!pbd_bend_lanes(p, w, b, k)) {
            CHECK(memcmp(p, q, sizeof p) == 0);
            CHECK(trial % 50 == 1 || trial % 50 == 2);
            refused++;
            continue;
        }
        for (int l = 0; l < L; l++) {
            double *v[4], wl[4], dp[12];
            for (int a = 0; a < 4; a++) v[a] = &q[3 * b[l].v[a]], wl[a] = w[b[l].v[a]];
            pbd_bend_delta_cs(v[0], v[1], v[2], v[3], wl, b[l].cs, k, dp);
            for (int a = 0; a < 4; a++)
                for (int c = 0; c < 3; c++) v[a][c] += dp[3 * a + c];
        }
        CHECK(memcmp(p, q, sizeof p) == 0);
        done++;
    }
    CHECK(done == 576 && refused == 24 && branch[0] > 300 && branch[1] > 300);
}

/* The precondition of pbd_bend_lanes in the Gauss-Seidel sweep: after
 * pbd_colour_constraints, bend_colour[k] .. bend_colour[k+1] (k < 63) are consecutive
 * ranges covering every bending constraint, and no vertex appears twice in a colour. */
static void test_bend_colours(void) {
    weft_model m = {0};
    weft_config *cfg = NULL;
    const char *sets[] = {"mesh.nx=20", "mesh.ny=17", NULL};
    if (build(&m, &cfg, "hanging_cloth", sets)) {
        weft_error err = {{0}};
        pbd_state *st = weft_pbd_gauss_seidel.create(&m, cfg, &err);
        CHECK(st != NULL);
        if (st) {
            const int *start = st->bend_colour;
            CHECK(start[0] == 0 && start[64] == st->nbend && st->nbend == m.mesh.nh);
            int *seen = calloc((size_t)st->n, sizeof *seen), colours = 0;
            CHECK(seen != NULL);
            for (int k = 0; k < 64 && seen; k++) {
                CHECK(start[k] <= start[k + 1]);
                colours += start[k + 1] > start[k];
                for (int c = start[k]; c < start[k + 1] && k < 63; c++)
                    for (int a = 0; a < 4; a++) {
                        CHECK(seen[st->bend[c].v[a]] != k + 1); /* not yet in colour k */
                        seen[st->bend[c].v[a]] = k + 1;
                    }
            }
            CHECK(colours >= 4 && start[63] == st->nbend); /* a grid: a few colours */
            free(seen);
            weft_pbd_gauss_seidel.destroy(st);
        }
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void test_bend_scale(void) {
    lcg g = {99};
    for (int trial = 0; trial < 50; trial++) {
        double p[12], w[4], dp[12];
        rnd_hinge(&g, rnd_in(&g, -3.0, 3.0), p);
        for (int a = 0; a < 4; a++) w[a] = rnd_in(&g, 0.5, 2.0);
        double rest = rnd_in(&g, -1.0, 1.0);
        double th = weft_hinge_angle(p, p + 3, p + 6, p + 9, NULL);
        pbd_bend_delta(p, p + 3, p + 6, p + 9, w, rest, 1.0, dp);
        double dscale = max_abs(dp, 12);
        const double scales[] = {0.1, 10.0};
        for (int si = 0; si < 2; si++) {
            /* Scaling about the origin by s: normals keep their directions, so θ is
             * unchanged (to rounding: 1e-12 absolute on angles of O(1)); ∇θ scales by
             * 1/s, so Δp = −k C w ∇θ / Σ w|∇θ|² scales by s (1e-10 relative: the
             * denominator and C carry rounding of ~1e-13 relative). */
            double s = scales[si], q[12], dq[12];
            for (int i = 0; i < 12; i++) q[i] = s * p[i];
            CHECK_NEAR(weft_hinge_angle(q, q + 3, q + 6, q + 9, NULL), th, 1e-12);
            pbd_bend_delta(q, q + 3, q + 6, q + 9, w, rest, 1.0, dq);
            for (int i = 0; i < 12; i++) CHECK_NEAR(dq[i], s * dp[i], 1e-10 * s * dscale);
        }
        /* Stretching the hinge along its edge (moving p1 along e = p1 − p0) changes the
         * edge length but neither plane, so θ is unchanged (Müller §4.1: the bending
         * constraint is independent of edge lengths). */
        const double stretch[] = {0.5, 1.7, 3.0};
        for (int si = 0; si < 3; si++) {
            double q[12];
            memcpy(q, p, sizeof q);
            for (int k = 0; k < 3; k++) q[3 + k] = p[k] + stretch[si] * (p[3 + k] - p[k]);
            CHECK_NEAR(weft_hinge_angle(q, q + 3, q + 6, q + 9, NULL), th, 1e-12);
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* Stiffness mapping (§3.3)                                                        */
/* ------------------------------------------------------------------------------ */

static void test_mapping(void) {
    const double ks[] = {1e-3, 0.01, 0.1, 0.5, 0.9, 0.999};
    const int ns[] = {1, 2, 3, 10, 100};
    for (int a = 0; a < 6; a++) {
        for (int b = 0; b < 5; b++) {
            double k = ks[a], kp = pbd_mapped_stiffness(k, ns[b], true);
            /* §3.3: after n_s projections the remaining error is (1 − k')^{n_s}, which
             * must equal 1 − k. pow and the subtraction carry a few ulps; raising to
             * the 100th power multiplies relative error by ≤ 100: 1e-12 relative. */
            CHECK_NEAR(pow(1.0 - kp, ns[b]), 1.0 - k, 1e-12 * (1.0 - k));
            CHECK(kp > 0.0 && kp <= k * (1.0 + 1e-15)); /* per-iteration k' ≤ k */
            if (ns[b] == 1) CHECK_NEAR(kp, k, 1e-15);
            /* Mapping off: k is used as is, bit for bit. */
            CHECK(pbd_mapped_stiffness(k, ns[b], false) == k);
        }
    }
    for (int b = 0; b < 5; b++) {
        /* (1 − k')^n = 0 forces k' = 1; (1 − k')^n = 1 forces k' = 0: exactly. */
        CHECK(pbd_mapped_stiffness(1.0, ns[b], true) == 1.0);
        CHECK(pbd_mapped_stiffness(0.0, ns[b], true) == 0.0);
    }
}

/* ------------------------------------------------------------------------------ */
/* Damping (§3.5)                                                                  */
/* ------------------------------------------------------------------------------ */

/* hanging_cloth with every vertex free and a non-planar shape (a flat cloth cannot
 * tell a rigid field from one with arbitrary normal velocities). */
static bool free_cloth(weft_model *m, weft_config **cfg, const char *const *sets) {
    if (!build(m, cfg, "hanging_cloth", sets)) return false;
    lcg g = {2024};
    for (int i = 0; i < m->n; i++) {
        m->pin[i] = -1;
        m->w[i] = 1.0 / m->mass[i];
        for (int k = 0; k < 3; k++) m->x[3 * i + k] += rnd_in(&g, -0.05, 0.05);
    }
    return true;
}

/* Max over all vertex pairs of |(v_i − v_j)·(x_i − x_j)|: zero exactly for a rigid
 * velocity field (distances are preserved to first order), and for a non-planar point
 * set only for one. */
static double killing_defect(const weft_model *m, const double *v) {
    double worst = 0.0;
    for (int i = 0; i < m->n; i++)
        for (int j = i + 1; j < m->n; j++) {
            double dv[3], dx[3];
            for (int k = 0; k < 3; k++)
                dv[k] = v[3 * i + k] - v[3 * j + k], dx[k] = m->x[3 * i + k] - m->x[3 * j + k];
            worst = fmax(worst, fabs(dot3(dv, dx)));
        }
    return worst;
}

static void test_damping_momentum(void) {
    weft_model m = {0};
    if (!free_cloth(&m, NULL, NULL)) return;
    size_t n3 = 3 * (size_t)m.n;
    double *v = malloc(n3 * sizeof *v), *v1 = malloc(n3 * sizeof *v1);
    double *vr = malloc(n3 * sizeof *vr), *vr2 = malloc(n3 * sizeof *vr2);
    CHECK(v && v1 && vr && vr2);
    if (!v || !v1 || !vr || !vr2) goto done;
    /* A random field (O(1) m/s) plus a rigid spin ω × x + u. */
    lcg g = {31337};
    const double omega[3] = {0.4, -1.3, 0.7}, u[3] = {0.2, 0.1, -0.3};
    for (int i = 0; i < m.n; i++) {
        double wx[3];
        cross3(omega, &m.x[3 * i], wx);
        for (int k = 0; k < 3; k++) v[3 * i + k] = rnd_in(&g, -1.0, 1.0) + wx[k] + u[k];
    }
    double P0[3], L0[3], ps, ls, P1[3], L1[3], ps1, ls1;
    momenta(&m, m.x, v, P0, L0, &ps, &ls);
    memcpy(v1, v, n3 * sizeof *v);
    pbd_damp_velocities(&m, v1, 0.5);
    momenta(&m, m.x, v1, P1, L1, &ps1, &ls1);
    /* §3.5 removes only the non-rigid part of the motion, so P and L (about any point)
     * are unchanged. The sums cancel over 1024 vertices of O(1) terms: rounding
     * ~1e-16 × √n of the scale; 1e-12 relative is a safe bound. */
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(P1[k], P0[k], 1e-12 * ps);
        CHECK_NEAR(L1[k], L0[k], 1e-12 * ls);
    }
    /* k = 1 replaces v by its rigid part v_R: a rigid field (Killing condition, to
     * rounding of O(|v||x|) products: 1e-12), with the same momenta as v, and a fixed
     * point of the damping (a second application changes nothing, to rounding). */
    memcpy(vr, v, n3 * sizeof *v);
    pbd_damp_velocities(&m, vr, 1.0);
    double vmax = max_abs(v, (int)n3), xmax = max_abs(m.x, (int)n3);
    CHECK(killing_defect(&m, v) > 1e-3); /* the test field is far from rigid... */
    CHECK(killing_defect(&m, vr) <= 1e-12 * vmax * xmax); /* ...its projection is rigid */
    momenta(&m, m.x, vr, P1, L1, &ps1, &ls1);
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(P1[k], P0[k], 1e-12 * ps);
        CHECK_NEAR(L1[k], L0[k], 1e-12 * ls);
    }
    memcpy(vr2, vr, n3 * sizeof *v);
    pbd_damp_velocities(&m, vr2, 1.0);
    for (size_t i = 0; i < n3; i++) CHECK_NEAR(vr2[i], vr[i], 1e-13 * vmax);
    /* The deviation from rigid motion shrinks by exactly (1 − k):
     * v' − v_R = (1 − k)(v − v_R) for k = ½ (1e-13: a few roundings of O(vmax)). */
    for (size_t i = 0; i < n3; i++) CHECK_NEAR(v1[i] - vr[i], 0.5 * (v[i] - vr[i]), 1e-13 * vmax);
    /* A rigid field V + Ω × x is its own rigid part: unchanged for any k. */
    for (int i = 0; i < m.n; i++) {
        double wx[3];
        cross3(omega, &m.x[3 * i], wx);
        for (int k = 0; k < 3; k++) vr[3 * i + k] = wx[k] + u[k];
    }
    const double kk[] = {0.01, 0.5, 1.0};
    for (int a = 0; a < 3; a++) {
        memcpy(vr2, vr, n3 * sizeof *v);
        pbd_damp_velocities(&m, vr2, kk[a]);
        double rmax = max_abs(vr, (int)n3);
        for (size_t i = 0; i < n3; i++) CHECK_NEAR(vr2[i], vr[i], 1e-13 * rmax);
    }
done:
    free(v), free(v1), free(vr), free(vr2);
    weft_model_free(&m);
}

/* ------------------------------------------------------------------------------ */
/* Whole solvers                                                                   */
/* ------------------------------------------------------------------------------ */

/* Spins a free cloth (every vertex free, no gravity) rigidly about its centre of mass
 * with angular velocity omega, steps it `steps` times with Gauss-Seidel and returns
 * max over steps of |L − L0|/|L0| (angular momentum about the origin); checks that the
 * linear momentum stays zero at every step. */
static double spin_drift(const char *dt, const char *k_stretch, const char *k_bending,
                         const double omega[3], int steps) {
    const char *sets[] = {"scene.gravity=0,0,0", "pbd.k_damping=0.1", dt, k_stretch,
                          k_bending, NULL};
    weft_model m = {0};
    weft_config *cfg = NULL;
    if (!build(&m, &cfg, "hanging_cloth", sets)) return INFINITY;
    for (int i = 0; i < m.n; i++) m.pin[i] = -1, m.w[i] = 1.0 / m.mass[i];
    double M = 0.0, xc[3] = {0, 0, 0};
    for (int i = 0; i < m.n; i++) {
        M += m.mass[i];
        for (int k = 0; k < 3; k++) xc[k] += m.mass[i] * m.x[3 * i + k];
    }
    for (int k = 0; k < 3; k++) xc[k] /= M;
    /* v = ω × (x − x_cm): rigid, with zero linear momentum by construction. */
    for (int i = 0; i < m.n; i++) {
        double r[3] = {m.x[3 * i] - xc[0], m.x[3 * i + 1] - xc[1], m.x[3 * i + 2] - xc[2]};
        cross3(omega, r, &m.v[3 * i]);
    }
    double P0[3], L0[3], ps0, ls0, worst = 0.0;
    momenta(&m, m.x, m.v, P0, L0, &ps0, &ls0);
    weft_error err = {{0}};
    void *st = weft_pbd_gauss_seidel.create(&m, cfg, &err);
    CHECK(st != NULL);
    for (int s = 0; st && s < steps; s++) {
        CHECK(weft_pbd_gauss_seidel.step(st, &m, NULL, &err) == WEFT_OK);
        double P[3], L[3], ps, ls;
        momenta(&m, m.x, m.v, P, L, &ps, &ls);
        /* Linear momentum: every projection conserves Σ m Δp exactly (eq. 1), damping
         * conserves Σ m v, and v = (p − x)/h, so P stays 0 up to rounding of the
         * O(Σ m|v|) sums, accumulated over ≤ 40 steps: 1e-10 relative. */
        for (int k = 0; k < 3; k++) CHECK_NEAR(P[k], 0.0, 1e-10 * ps0);
        double dl[3] = {L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]};
        worst = fmax(worst, norm3(dl) / norm3(L0));
    }
    weft_pbd_gauss_seidel.destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return worst;
}

static void test_spin_free_cloth(void) {
    /* ω ≈ 2 rad/s about a tilted axis: rim speeds ~1 m/s. */
    const double omega[3] = {0.3, 2.0, 0.4};
    const double wn = norm3(omega), h = 1.0 / 60.0;
    /* Without constraints (k = 0) the step is free flight plus §3.5 damping: x' = x + hv
     * keeps Σ m x × v exactly and damping conserves it (test damping_momentum), so L is
     * conserved to rounding (1e-12 relative over 20 steps of 1024-term sums). */
    double free_drift = spin_drift("scene.dt=0.016666666666666666", "pbd.k_stretch=0",
                                   "pbd.k_bending=0", omega, 20);
    CHECK(free_drift <= 1e-12);
    /* With constraints, L is NOT conserved exactly by Algorithm 1, and should not be
     * expected to: a projection conserves Σ m p × Δp about the current prediction p
     * (eq. 2), but L after the step is Σ m x × p/h, so each step changes L by
     * −Σ m v × Δp ≠ 0. For a rigid rotation by α = |ω| h per step, the projection pulls
     * the prediction p = 2x' − x (radius r √(5 − 4 cos α) ≈ r (1 + α²)) back to radius
     * r, scaling L by ≈ 1 − α²: a relative loss of ≈ (|ω| h)² ≈ 1.2e-3 per step, i.e.
     * ≈ 2.4e-2 over 20 steps (measured: 2.0e-2). Bound: 1.5 × N (|ω| h)². */
    double d1 = spin_drift("scene.dt=0.016666666666666666", "pbd.k_stretch=1",
                           "pbd.k_bending=0.1", omega, 20);
    fprintf(stderr, "spin_free_cloth: |L - L0|/|L0| after 20 steps of h = 1/60: %.3g "
            "(bound %.3g)\n", d1, 1.5 * 20 * (wn * h) * (wn * h));
    CHECK(d1 <= 1.5 * 20 * (wn * h) * (wn * h));
    /* The loss is a time-discretisation error, first order in h over a fixed time
     * (N (ω h)² = T ω² h): halving h (40 steps of h/2, same 1/3 s) halves it. A ratio
     * in [0.4, 0.65] confirms the order (measured 0.53; a conservation bug of the
     * projections would not scale with h, and the free case above rules out damping). */
    double d2 = spin_drift("scene.dt=0.008333333333333333", "pbd.k_stretch=1",
                           "pbd.k_bending=0.1", omega, 40);
    fprintf(stderr, "spin_free_cloth: same time with h = 1/120: %.3g (ratio %.3f)\n", d2,
            d2 / d1);
    CHECK(d2 >= 0.4 * d1 && d2 <= 0.65 * d1);
}

/* Pinned vertices against their scripted path after every step, both solvers. */
static void check_pins(const char *const *sets, bool bitwise, const double *center) {
    const weft_solver_type *solvers[2] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi};
    for (int sv = 0; sv < 2; sv++) {
        weft_model m = {0};
        weft_config *cfg = NULL;
        if (!build(&m, &cfg, "hanging_cloth", sets)) return;
        int npinned = 0;
        for (int i = 0; i < m.n; i++) npinned += m.pin[i] >= 0;
        CHECK(npinned == 2); /* the two top corners */
        weft_error err = {{0}};
        void *st = solvers[sv]->create(&m, cfg, &err);
        CHECK(st != NULL);
        for (int s = 0; st && s < 60; s++) {
            CHECK(solvers[sv]->step(st, &m, NULL, &err) == WEFT_OK);
            double t = (s + 1) * m.dt; /* the path's time after s + 1 steps */
            for (int i = 0; i < m.n; i++) {
                if (m.pin[i] < 0) continue;
                const double *x = &m.x[3 * i], *x0 = &m.x_start[3 * i];
                if (bitwise) {
                    /* w = 0 (§3.6): every correction is 0 · (...) = 0, so the vertex
                     * never moves at all. */
                    CHECK(memcmp(x, x0, 3 * sizeof *x) == 0);
                    continue;
                }
                double want[3];
                weft_pin_position(&m.paths[m.pin[i]], x0, t, want);
                /* The step sets the pin to the path at t + h and never moves it again;
                 * m.t accumulated by repeated addition differs from (s+1) h by a few
                 * ulps, moving the target by ~1e-16 m: 1e-12 m is safe. */
                for (int k = 0; k < 3; k++) CHECK_NEAR(x[k], want[k], 1e-12);
                if (center) {
                    /* A rotation about the centre keeps the distance to it. */
                    double r0[3], r[3];
                    for (int k = 0; k < 3; k++) r0[k] = x0[k] - center[k], r[k] = x[k] - center[k];
                    CHECK_NEAR(norm3(r), norm3(r0), 1e-12);
                }
            }
        }
        solvers[sv]->destroy(st);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

static void test_attachments(void) {
    check_pins(NULL, true, NULL);
    static const char *const translate[] = {"pins.motion=translate", "pins.velocity=0.1,0,0",
                                            NULL};
    check_pins(translate, false, NULL);
    static const char *const rotate[] = {"pins.motion=rotate", "pins.angular_velocity=0,0,1",
                                         "pins.center=0,1,0", NULL};
    const double c[3] = {0, 1, 0};
    check_pins(rotate, false, c);
}

static void test_gs_beats_jacobi(void) {
    /* Measured ordering (crms after one step from the state after 30 GS steps):
     *   iterations   10     100    200    400    800
     *   GS          0.359  0.319  0.282  0.223  0.145
     *   Jacobi 1.5  0.256  0.250  0.248  0.245  0.239
     * In the first iterations Jacobi (averaged, over-relaxed) lowers the RMS strain
     * more than Gauss-Seidel: a full GS projection next to a pinned vertex pushes its
     * free neighbour by the whole violation and strains that vertex's other edges, while
     * averaging takes smaller, balanced steps. So "GS < Jacobi at 10 iterations" is not a
     * property of these methods on this scene (it fails at 10 iterations from the
     * rest state too). What holds is the asymptotic ordering: GS's contraction per
     * sweep is smaller than damped Jacobi's (for the linearised problem
     * ρ(GS) = ρ(J)² when consistently ordered, and averaging only slows Jacobi), so
     * after enough iterations GS is ahead. At 800 iterations the gap is ~40%, far
     * beyond any rounding effect; assert GS < Jacobi there, from identical states. */
    static const char *const sets[] = {"solver.iterations=800", NULL};
    weft_model a = {0}, b = {0}, base = {0};
    weft_config *ca = NULL, *cb = NULL, *cbase = NULL;
    if (!build(&base, &cbase, "hanging_cloth", NULL) || !build(&a, &ca, "hanging_cloth", sets) ||
        !build(&b, &cb, "hanging_cloth", sets))
        goto done;
    CHECK(cfg_value(cbase, "solver", "iterations") == 10 && cfg_value(cb, "solver", "omega") == 1.5);
    /* A deformed, moving state: 30 Gauss-Seidel steps of the falling cloth at the
     * scene's 10 iterations. */
    if (!step_n(&weft_pbd_gauss_seidel, &base, cbase, 30)) goto done;
    copy_state(&base, &a);
    copy_state(&base, &b);
    if (!step_n(&weft_pbd_gauss_seidel, &a, ca, 1) || !step_n(&weft_pbd_jacobi, &b, cb, 1))
        goto done;
    double gmax, grms, jmax, jrms;
    weft_strain(&a, a.x, &gmax, &grms);
    weft_strain(&b, b.x, &jmax, &jrms);
    fprintf(stderr, "gs_beats_jacobi (800 iterations): crms GS %.4g, Jacobi %.4g\n", grms,
            jrms);
    CHECK(grms > 0.0);
    CHECK(grms < jrms);
done:
    weft_model_free(&base);
    weft_model_free(&a);
    weft_model_free(&b);
    weft_config_free(&cbase);
    weft_config_free(&ca);
    weft_config_free(&cb);
}

static void test_jacobi_bounded(void) {
    const char *omegas[] = {"solver.omega=1.0", "solver.omega=1.25", "solver.omega=1.5",
                            "solver.omega=1.75", "solver.omega=1.95"};
    for (int o = 0; o < 5; o++) {
        const char *sets[] = {omegas[o], NULL};
        weft_model m = {0};
        weft_config *cfg = NULL;
        if (!build(&m, &cfg, "hanging_cloth", sets)) return;
        double g = norm3(m.gravity);
        weft_error err = {{0}};
        void *st = weft_pbd_jacobi.create(&m, cfg, &err);
        CHECK(st != NULL);
        bool ok = st != NULL;
        double worst = 0.0;
        for (int s = 0; ok && s < 120; s++) {
            CHECK(weft_pbd_jacobi.step(st, &m, NULL, &err) == WEFT_OK);
            /* Bounded = finite and no farther from its start than free fall (½ g t²)
             * plus the cloth's diagonal (1.41 m), rounded up to 2 m. A fixed "10 m from
             * the origin" box is NOT right here: at 10 iterations per step averaged
             * Jacobi transmits the pins' support across the 32 × 32 grid so slowly that
             * the far corner nearly free-falls (measured: 12 m below the start after
             * 2 s at ω = 1, versus 19.6 m of free fall), which is slow convergence, not
             * divergence. A divergent over-relaxed iteration grows geometrically over
             * the run's 1200 sweeps and leaves this envelope at once. */
            double t = (s + 1) * m.dt, bound = 0.5 * g * t * t + 2.0;
            for (int i = 0; ok && i < m.n; i++) {
                const double *x = &m.x[3 * i], *x0 = &m.x_start[3 * i];
                double d[3] = {x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]};
                double dist = norm3(d);
                if (!isfinite(dist) || dist > bound) {
                    fprintf(stderr, "%s: step %d: vertex %d moved %g m (bound %g)\n",
                            omegas[o], s, i, dist, bound);
                    ok = false;
                }
                worst = fmax(worst, dist);
            }
            CHECK(ok);
        }
        fprintf(stderr, "jacobi_bounded %s: largest displacement %.3g m\n", omegas[o], worst);
        weft_pbd_jacobi.destroy(st);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

static void test_jacobi_threads(void) {
    static const char *const one[] = {"solver.threads=1", NULL};
    static const char *const two[] = {"solver.threads=2", NULL};
    weft_model a = {0}, b = {0};
    weft_config *ca = NULL, *cb = NULL;
    if (build(&a, &ca, "hanging_cloth", one) && build(&b, &cb, "hanging_cloth", two) &&
        step_n(&weft_pbd_jacobi, &a, ca, 30) && step_n(&weft_pbd_jacobi, &b, cb, 30)) {
        CHECK(cfg_value(cb, "solver", "threads") == 2);
        /* The gather sums each vertex's corrections in a fixed order whatever the
         * thread count, and every correction is computed from the same p: the
         * results must be bitwise identical. */
        CHECK(memcmp(a.x, b.x, 3 * (size_t)a.n * sizeof *a.x) == 0);
        CHECK(memcmp(a.v, b.v, 3 * (size_t)a.n * sizeof *a.v) == 0);
    }
    weft_model_free(&a);
    weft_model_free(&b);
    weft_config_free(&ca);
    weft_config_free(&cb);
}

/* ------------------------------------------------------------------------------ */
/* Chebyshev (Wang 2015) on pbd_jacobi                                             */
/* ------------------------------------------------------------------------------ */

/* The 8 × 8 hanging cloth after 30 plain Jacobi steps (10 sweeps each): curved and
 * moving, so that stretching an edge is a first-order change of its length (the flat
 * start is not: there the out-of-plane motion changes lengths only to second order and
 * every method stalls). */
static bool cheb_base(weft_model *base) {
    static const char *const sets[] = {"mesh.nx=8", "mesh.ny=8", NULL};
    weft_config *cfg = NULL;
    bool ok = build(base, &cfg, "hanging_cloth", sets) &&
              step_n(&weft_pbd_jacobi, base, cfg, 30);
    weft_config_free(&cfg);
    return ok;
}

/* One step of pbd_jacobi from base's state with `iters` sweeps and the extra settings
 * (NULL-terminated, at most 4), logged to dir; fills crms[k] (the log's RMS strain, the
 * stretch constraints' violation) for k = 0 .. iters and returns the last row read (-1 on
 * failure); the end state in *out when out is not NULL. */
static int cheb_run(const tmp_dir *dir, const weft_model *base, int iters,
                    const char *const *extra, double *crms, weft_model *out) {
    char its[48], log[128];
    snprintf(its, sizeof its, "solver.iterations=%d", iters);
    const char *sets[8] = {"mesh.nx=8", "mesh.ny=8", "scene.steps=1", its};
    for (int i = 0; extra && extra[i] && i < 4; i++) sets[4 + i] = extra[i];
    weft_model m = {0};
    weft_config *cfg = NULL;
    int last = -1;
    if (build(&m, &cfg, "hanging_cloth", sets)) {
        copy_state(base, &m);
        tmp_file(dir, "pbd_jacobi.log", log, sizeof log);
        weft_run_options opt = weft_run_options_default();
        opt.log_path = log;
        opt.config = cfg;
        weft_run_result res;
        weft_error err = {{0}};
        int rc = weft_run(&weft_pbd_jacobi, &m, &opt, &res, &err);
        if (rc) fprintf(stderr, "run: %s\n", err.msg);
        CHECK(rc == WEFT_OK);
        FILE *f = rc == WEFT_OK ? fopen(log, "r") : NULL;
        char line[1024];
        while (f && fgets(line, sizeof line, f)) {
            int s, it;
            double wall, r, rr, cmax, c;
            if (line[0] == '#' ||
                sscanf(line, "%d %d %lf %lf %lf %lf %lf", &s, &it, &wall, &r, &rr, &cmax, &c) != 7)
                continue;
            if (it < 0 || it > iters) continue;
            crms[it] = c;
            last = it > last ? it : last;
        }
        if (f) fclose(f);
        unlink(log);
        if (out) {
            memcpy(out->x, m.x, 3 * (size_t)m.n * sizeof *m.x);
            memcpy(out->v, m.v, 3 * (size_t)m.n * sizeof *m.v);
        }
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
    return last;
}

/* The first k with c[k] <= target, or -1. */
static int first_at_most(const double *c, int last, double target) {
    for (int k = 0; k <= last; k++)
        if (c[k] <= target) return k;
    return -1;
}

/* Wang's recipe on the curved cloth of cheb_base: run plain Jacobi for N sweeps, read ρ
 * off its late rate, ρ = (c_N / c_{N/2})^{2/N} (the estimate pbd_jacobi.c documents),
 * then the same step with that ρ and the same N (the §3.3 stiffness mapping depends on
 * N). Both must bring the RMS strain down to CRMS_TARGET, the accelerated run in fewer
 * sweeps (measured: plain 1 893, Chebyshev 51 at ρ = 0.99897; see
 * papers/wang2015-chebyshev.md). */
static void test_jacobi_chebyshev(void) {
    enum { N = 2000 };
    const double CRMS_TARGET = 0.02; /* plain reaches it near the end of its N sweeps */
    static double plain[N + 1], fast[N + 1];
    tmp_dir dir;
    weft_model base = {0};
    if (!tmp_open(&dir)) return;
    if (!cheb_base(&base)) goto done;
    int lp = cheb_run(&dir, &base, N, NULL, plain, NULL);
    CHECK(lp == N);
    if (lp != N) goto done;
    double rho = pow(plain[N] / plain[N / 2], 2.0 / N);
    CHECK(rho > 0.9 && rho < 1.0);
    char rs[64];
    snprintf(rs, sizeof rs, "pbd.chebyshev_rho=%.17g", rho);
    const char *ex[] = {rs, NULL};
    int lf = cheb_run(&dir, &base, N, ex, fast, NULL);
    CHECK(lf == N);
    int kp = first_at_most(plain, lp, CRMS_TARGET), kf = first_at_most(fast, lf, CRMS_TARGET);
    fprintf(stderr,
            "jacobi_chebyshev: crms %.3g -> %.3g: %d sweeps plain, %d with Chebyshev (rho = "
            "%.5f from the plain rate); after %d sweeps crms %.3e plain, %.3e Chebyshev\n",
            plain[0], CRMS_TARGET, kp, kf, rho, N, plain[N], fast[N]);
    CHECK(kp > 0 && kf > 0);
    CHECK(kf < kp);
done:
    weft_model_free(&base);
    rmdir(dir.path);
}

/* Five steps of pbd_jacobi from the curved cloth of cheb_base with the settings sets
 * (NULL-terminated); the end state in *m. */
static bool cheb_steps(const weft_model *base, const char *const *sets, weft_model *m) {
    weft_config *cfg = NULL;
    bool ok = build(m, &cfg, "hanging_cloth", sets);
    if (ok) copy_state(base, m);
    ok = ok && step_n(&weft_pbd_jacobi, m, cfg, 5);
    weft_config_free(&cfg);
    return ok;
}

/* True when a and b hold the same positions and velocities, bit for bit. */
static bool same_bits(const weft_model *a, const weft_model *b) {
    return memcmp(a->x, b->x, 3 * (size_t)a->n * sizeof *a->x) == 0 &&
           memcmp(a->v, b->v, 3 * (size_t)a->n * sizeof *a->v) == 0;
}

/* With Chebyshev on (both branches: under-relaxed plain sweeps before the delay, the
 * recurrence after it), 1 and 2 threads give the same bits: the update is per vertex. */
static void test_jacobi_chebyshev_threads(void) {
    static const char *const one[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=60",
                                      "pbd.chebyshev_rho=0.99", "pbd.chebyshev_gamma=0.9",
                                      "solver.threads=1", NULL};
    static const char *const two[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=60",
                                      "pbd.chebyshev_rho=0.99", "pbd.chebyshev_gamma=0.9",
                                      "solver.threads=2", NULL};
    static const char *const plain[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=60",
                                        NULL};
    weft_model base = {0}, a = {0}, b = {0}, c = {0};
    if (cheb_base(&base) && cheb_steps(&base, one, &a) && cheb_steps(&base, two, &b) &&
        cheb_steps(&base, plain, &c)) {
        CHECK(same_bits(&a, &b));
        CHECK(!same_bits(&a, &c)); /* and the acceleration did change the answer */
    }
    weft_model_free(&base);
    weft_model_free(&a);
    weft_model_free(&b);
    weft_model_free(&c);
}

/* ρ = 0 is the plain solver bit for bit, whatever the delay and γ (they act only with
 * ρ > 0); so is ρ > 0 with γ = 1 and a delay past the last sweep (ω stays 1). ρ > 0
 * with the delay inside the sweeps is not. */
static void test_jacobi_chebyshev_off(void) {
    static const char *const plain[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=40", NULL};
    static const char *const zero[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=40",
                                       "pbd.chebyshev_rho=0", "pbd.chebyshev_delay=2",
                                       "pbd.chebyshev_gamma=0.5", NULL};
    static const char *const late[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=40",
                                       "pbd.chebyshev_rho=0.99", "pbd.chebyshev_delay=41",
                                       NULL};
    static const char *const on[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=40",
                                     "pbd.chebyshev_rho=0.99", "pbd.chebyshev_delay=40", NULL};
    weft_model base = {0}, a = {0}, b = {0}, c = {0}, d = {0};
    if (cheb_base(&base) && cheb_steps(&base, plain, &a) && cheb_steps(&base, zero, &b) &&
        cheb_steps(&base, late, &c) && cheb_steps(&base, on, &d)) {
        CHECK(same_bits(&a, &b));
        CHECK(same_bits(&a, &c));
        CHECK(!same_bits(&a, &d)); /* one accelerated sweep (the last) per step changes it */
    }
    weft_model_free(&base);
    weft_model_free(&a);
    weft_model_free(&b);
    weft_model_free(&c);
    weft_model_free(&d);
}

static void test_gs_deterministic(void) {
    weft_model a = {0}, b = {0};
    weft_config *ca = NULL, *cb = NULL;
    if (build(&a, &ca, "hanging_cloth", NULL) && build(&b, &cb, "hanging_cloth", NULL) &&
        step_n(&weft_pbd_gauss_seidel, &a, ca, 30) &&
        step_n(&weft_pbd_gauss_seidel, &b, cb, 30)) {
        /* A fixed constraint order and no uninitialised state: same input, same bits. */
        CHECK(memcmp(a.x, b.x, 3 * (size_t)a.n * sizeof *a.x) == 0);
        CHECK(memcmp(a.v, b.v, 3 * (size_t)a.n * sizeof *a.v) == 0);
        /* And the run did something (the cloth fell). */
        CHECK(memcmp(a.x, a.x_start, 3 * (size_t)a.n * sizeof *a.x) != 0);
    }
    weft_model_free(&a);
    weft_model_free(&b);
    weft_config_free(&ca);
    weft_config_free(&cb);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"distance_hand", test_distance_hand},
        {"distance_momentum", test_distance_momentum},
        {"bend_hand", test_bend_hand},
        {"bend_momentum", test_bend_momentum},
        {"bend_scale", test_bend_scale},
        {"bend_closed_form", test_bend_closed_form},
        {"bend_lanes", test_bend_lanes},
        {"bend_colours", test_bend_colours},
        {"mapping", test_mapping},
        {"damping_momentum", test_damping_momentum},
        {"spin_free_cloth", test_spin_free_cloth},
        {"attachments", test_attachments},
        {"gs_beats_jacobi", test_gs_beats_jacobi},
        {"jacobi_bounded", test_jacobi_bounded},
        {"jacobi_threads", test_jacobi_threads},
        {"gs_deterministic", test_gs_deterministic},
        {"jacobi_chebyshev", test_jacobi_chebyshev},
        {"jacobi_chebyshev_threads", test_jacobi_chebyshev_threads},
        {"jacobi_chebyshev_off", test_jacobi_chebyshev_off},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
