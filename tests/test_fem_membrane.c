/* test_fem_membrane.c — the membrane (triangle, 3×2 F) finite-element energies and the
 * machinery of fem_tri.c:
 *   svd32          weft_svd32: reconstruction, U a rotation whose third column is the
 *                  oriented normal, V a rotation, sorted non-negative σ; LAPACKE agrees
 *   rest_uv        weft_fem_tri_rest from material coordinates: area and Dm⁻¹ by hand
 *   rest_frame     weft_fem_tri_rest without uv: the plane's frame (x projected, or the
 *                  first edge), area, F = [orthonormal] at rest
 *   stress_fd      P = ∂ψ/∂F against central differences of ψ
 *   hessian_fd     exact ∂²ψ/∂F² against central differences of P
 *   vertex_fd      ∂Ψ/∂x and ∂²Ψ/∂x² against differences, with and without uv
 *   eigenmodes     the six membrane modes are eigenvectors of the exact ∂²ψ/∂F², with the
 *                  eigenvalues ψ_σσ, (ψ0 ± ψ1)/(σ0 ± σ1), ψ_j/σ_j of ψ(σ)
 *   projection     analytic PSD projection = LAPACKE clamp (isotropic), ANALYTIC = CLAMP
 *                  (anisotropic), PSD, and the exact matrix kept where it is PSD
 *   closed_forms   hand-derived Ψ and forces: uniaxial stretch, uniform scaling, shear
 *   small_strain   the energies' small-strain limits: plane-stress linear elasticity
 *                  (modulus Y, contraction ν, Stable Neo-Hookean's λ + μ), ARAP's μ/2 ‖e‖²,
 *                  Baraff-Witkin's uncoupled threads
 *   rest_zero      Ψ = 0, ∇Ψ = 0 at rest, with and without uv
 *   degenerate     collapsed triangles, F = 0, F a = 0, degenerate rest: +∞ (Neo-Hookean)
 *                  or exact finite values, never NaN
 *   fiber_sign     I4 = (R a)·(F a) ≥ 0 for a membrane, so S(I4) = +1
 *
 * ψ, P and ∂²ψ/∂F² are read through the descriptors on the unit right triangle: uv =
 * (0,0), (1,0), (0,1) gives Dm⁻¹ = I and W = ½, so with x0 = 0, F = [x1, x2] and
 * Ψ = ψ/2, ∂Ψ/∂x_{c+1} = P(:, c)/2, ∂²Ψ/∂x_{c+1}∂x_{d+1} = A(f_c, f_d)/2 exactly.
 * Random numbers come from a fixed-seed LCG.
 */
#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "fem.h"

#include <lapacke.h>
#include <stdbool.h>
#include <stdint.h>

#define Y_MEMBRANE 2.0 /* N/m */
#define NU 0.3
#define KAPPA 3.0 /* N/m */

/* μ, λ of the plane-stress sheet the tests use. */
static const double MU = Y_MEMBRANE / (2.0 * (1.0 + NU));
static const double LAMBDA = Y_MEMBRANE * NU / (1.0 - NU * NU);
/* ARAP's coefficient μ/2‖F − R‖² is μ = Y (papers/calibration.md): shear modulus μ/2 = Y/2 and no
 * bulk term, so Young's modulus Y and Poisson ratio 0 at small strain. */
static const double MU_ARAP = Y_MEMBRANE;

typedef struct membrane {
    const weft_energy_type *t;
    bool isotropic; /* analytic eigensystem */
} membrane;

#define NM 6
static const membrane MEMBRANES[NM] = {
    {&weft_stvk_membrane, true},
    {&weft_neo_hookean_membrane, true},
    {&weft_stable_neo_hookean_membrane, true},
    {&weft_arap_membrane, true},
    {&weft_baraff_witkin_membrane, false},
    {&weft_anisotropic_fiber_membrane, false},
};

static const double UNIT_UV[6] = {0, 0, 1, 0, 0, 1};
static const double UNIT_X[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

/* Material parameters; fibre (1, 0.3) in (u, v). */
static weft_energy_params params(const double *uv) {
    weft_energy_params p = {.stiffness = Y_MEMBRANE,
                            .poisson = NU,
                            .uv = uv,
                            .fiber = {1.0, 0.3, 0.2},
                            .fiber_stiffness = KAPPA};
    return p;
}

/* The element on the unit right triangle (Dm⁻¹ = I, W = ½). */
static weft_element unit_element(const weft_energy_type *t) {
    weft_element e = {.v = {0, 1, 2, 0}};
    weft_energy_params p = params(UNIT_UV);
    t->init(&e, UNIT_X, &p);
    return e;
}

/* Vertex positions with x0 = 0 and F = [x1, x2]. */
static void F_to_x(const double F[6], double x[9]) {
    for (int r = 0; r < 3; r++) x[r] = 0.0, x[3 + r] = F[2 * r], x[6 + r] = F[2 * r + 1];
}

static double psi_of(const weft_energy_type *t, const weft_element *e, const double F[6]) {
    double x[9];
    F_to_x(F, x);
    return t->energy(e, x) / 0.5;
}

/* P (3×2 row-major) of the unit element; returns ψ. */
static double P_of(const weft_energy_type *t, const weft_element *e, const double F[6],
                   double P[6]) {
    double x[9], g[9];
    F_to_x(F, x);
    double Psi = t->gradient(e, x, g);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) P[2 * r + c] = g[3 * (c + 1) + r] / 0.5;
    return Psi / 0.5;
}

/* The 6×6 matrix over vec(F) that hessian() uses in `mode`. */
static void A_of(const weft_energy_type *t, const weft_element *e, const double F[6],
                 weft_hessian_mode mode, double A[36]) {
    double x[9], H[81];
    F_to_x(F, x);
    t->hessian(e, x, mode, NULL, H);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) A[6 * i + j] = H[9 * (3 + i) + 3 + j] / 0.5;
}

/* A random rotation (row-major 3×3) from a uniformly random unit quaternion. */
static void rnd_rotation(lcg *g, double R[9]) {
    double q[4], l;
    do {
        for (int k = 0; k < 4; k++) q[k] = rnd_in(g, -1.0, 1.0);
        l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (l < 0.1 || l > 1.0);
    double w = q[0] / l, x = q[1] / l, y = q[2] / l, z = q[3] / l;
    double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                   2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(R, M, sizeof M);
}

/* F = R [M; 0] Q with R a random 3-D rotation, Q a random 2×2 rotation or reflection. */
static void embed(lcg *g, const double M[4], double F[6]) {
    double R[9], th = rnd_in(g, -WEFT_PI, WEFT_PI), rf = rnd(g) < 0.5 ? -1.0 : 1.0;
    double Q[4] = {cos(th), -sin(th) * rf, sin(th), cos(th) * rf}, MQ[4];
    rnd_rotation(g, R);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) MQ[2 * i + j] = M[2 * i] * Q[j] + M[2 * i + 1] * Q[2 + j];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) F[2 * r + c] = R[3 * r] * MQ[c] + R[3 * r + 1] * MQ[2 + c];
}

/* Test deformation gradients, by family (trial % 4):
 * 0 general: σ in [0.5, 1.6];  1 strongly compressed: σ1 in [0.15, 0.3], σ0 in [0.2, 1.4];
 * 2 strongly sheared: [[1, γ], [0, 1]], |γ| in [0.6, 1.5];  3 stretched: σ in [1.1, 2].
 * All rotated by random rotations on both sides; σ0 − σ1 ≥ 0.05 so the flip eigenvalue
 * (ψ0 − ψ1)/(σ0 − σ1) is well conditioned for the finite-difference comparison. */
static void test_F(lcg *g, int trial, double F[6]) {
    double M[4] = {0, 0, 0, 0};
    double s0, s1;
    switch (trial % 4) {
    case 0:
    case 1:
    case 3:
        do {
            if (trial % 4 == 0)
                s0 = rnd_in(g, 0.5, 1.6), s1 = rnd_in(g, 0.5, 1.6);
            else if (trial % 4 == 1)
                s0 = rnd_in(g, 0.2, 1.4), s1 = rnd_in(g, 0.15, 0.3);
            else
                s0 = rnd_in(g, 1.1, 2.0), s1 = rnd_in(g, 1.1, 2.0);
        } while (fabs(s0 - s1) < 0.05);
        M[0] = s0, M[3] = s1;
        break;
    default: {
        double gam = rnd_in(g, 0.6, 1.5) * (rnd(g) < 0.5 ? -1.0 : 1.0);
        M[0] = 1.0, M[1] = gam, M[3] = 1.0;
    }
    }
    embed(g, M, F);
}

/* Smallest eigenvalue of a symmetric n×n matrix (LAPACKE dsyev). */
static double min_eig(const double *A, int n) {
    double a[144], w[12];
    memcpy(a, A, (size_t)n * n * sizeof *a);
    lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', n, a, n, w);
    CHECK(info == 0);
    return w[0];
}

static double max_diff(const double *a, const double *b, int n) {
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

static bool all_finite(const double *a, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return false;
    return true;
}

/* ------------------------------------------------------------------------------ */
/* SVD and rest shapes                                                             */
/* ------------------------------------------------------------------------------ */

/* Checks the properties weft_svd32 promises for one F. */
static void check_svd(const double F[6]) {
    double U[9], s[2], V[4], fn = 0.0;
    weft_svd32(F, U, s, V);
    for (int i = 0; i < 6; i++) fn += F[i] * F[i];
    fn = sqrt(fn);
    CHECK(s[0] >= s[1] && s[1] >= 0.0);
    /* Reconstruction F = Σ_j σ_j u_j v_jᵀ: a few roundings of ‖F‖. */
    double err = 0.0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) {
            double v = s[0] * U[3 * r] * V[2 * c] + s[1] * U[3 * r + 1] * V[2 * c + 1];
            err = fmax(err, fabs(v - F[2 * r + c]));
        }
    if (!(err <= 1e-12 * fn)) fprintf(stderr, "svd32: reconstruction error %.3g\n", err);
    CHECK(err <= 1e-12 * fn);
    /* UᵀU = I, det U = +1; VᵀV = I, det V = +1. */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = U[i] * U[j] + U[3 + i] * U[3 + j] + U[6 + i] * U[6 + j];
            CHECK_NEAR(d, i == j ? 1.0 : 0.0, 1e-12);
        }
    double det = U[0] * (U[4] * U[8] - U[5] * U[7]) - U[1] * (U[3] * U[8] - U[5] * U[6]) +
                 U[2] * (U[3] * U[7] - U[4] * U[6]);
    CHECK_NEAR(det, 1.0, 1e-12);
    CHECK_NEAR(V[0] * V[0] + V[2] * V[2], 1.0, 1e-14);
    CHECK_NEAR(V[0] * V[1] + V[2] * V[3], 0.0, 1e-14);
    CHECK_NEAR(V[0] * V[3] - V[1] * V[2], 1.0, 1e-14);
    /* The third column n is ⟂ both columns of F, and along f0 × f1 when that is
     * resolvable (J well above rounding). */
    double f0[3] = {F[0], F[2], F[4]}, f1[3] = {F[1], F[3], F[5]}, n[3] = {U[2], U[5], U[8]};
    double m[3];
    CHECK(fabs(dot3(n, f0)) <= 1e-12 * fn && fabs(dot3(n, f1)) <= 1e-12 * fn);
    cross3(f0, f1, m);
    if (norm3(m) > 1e-6 * fn * fn) CHECK(dot3(n, m) >= 0.0);
    /* Brute force: LAPACK's singular values, to a few roundings of σ0. */
    double a[6], sl[2], u[9], vt[4], sup[1];
    memcpy(a, F, sizeof a);
    lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', 3, 2, a, 2, sl, u, 3, vt, 2, sup);
    CHECK(info == 0);
    CHECK_NEAR(s[0], sl[0], 1e-12 * fmax(sl[0], 1e-300));
    CHECK_NEAR(s[1], sl[1], 1e-12 * fmax(sl[0], 1e-300));
}

static void test_svd32(void) {
    lcg g = {101};
    for (int trial = 0; trial < 400; trial++) {
        double F[6];
        int kind = trial % 8;
        double scale = kind == 1 ? 1e-3 : kind == 2 ? 1e3 : 1.0;
        for (int i = 0; i < 6; i++) F[i] = scale * rnd_in(&g, -1.0, 1.0);
        if (kind == 3) /* rank one: f1 = α f0 */
            for (int r = 0; r < 3; r++) F[2 * r + 1] = 0.7 * F[2 * r];
        if (kind == 4) /* f0 = 0 */
            for (int r = 0; r < 3; r++) F[2 * r] = 0.0;
        if (kind == 5) { /* nearly equal singular values: 1.3 × rotation + 1e-9 */
            double M[4] = {1.3, 0.0, 0.0, 1.3};
            embed(&g, M, F);
            for (int i = 0; i < 6; i++) F[i] += 1e-9 * rnd_in(&g, -1.0, 1.0);
        }
        if (kind == 6) { /* nearly collapsed: σ1 = 1e-9 σ0 */
            double M[4] = {1.0, 0.0, 0.0, 1e-9};
            embed(&g, M, F);
        }
        if (kind == 7) /* exactly repeated: σ0 = σ1 = 0.8 */
        {
            double M[4] = {0.8, 0.0, 0.0, 0.8};
            embed(&g, M, F);
        }
        check_svd(F);
    }
    double Z[6] = {0, 0, 0, 0, 0, 0};
    check_svd(Z);
    double U[9], s[2], V[4];
    weft_svd32(Z, U, s, V);
    CHECK(s[0] == 0.0 && s[1] == 0.0);
}

static void test_rest_uv(void) {
    /* uv (1, 1), (3, 1), (1.5, 2): Dm = [u1 − u0, u2 − u0] = [[2, 0.5], [0, 1]], det 2,
     * so W = 1 m² and Dm⁻¹ = ½ [[1, −0.5], [0, 2]] = [[0.5, −0.25], [0, 1]]. The rest
     * positions are ignored when uv is given. */
    const double uv[6] = {1, 1, 3, 1, 1.5, 2};
    const double xe[9] = {0, 0, 0, 5, 0, 0, 0, 7, 1};
    weft_element e = {.v = {0, 1, 2, 0}};
    CHECK(weft_fem_tri_rest(&e, xe, uv));
    CHECK_NEAR(e.rest[9], 1.0, 1e-15);
    CHECK_NEAR(e.rest[0], 0.5, 1e-15);
    CHECK_NEAR(e.rest[1], -0.25, 1e-15);
    CHECK_NEAR(e.rest[2], 0.0, 1e-15);
    CHECK_NEAR(e.rest[3], 1.0, 1e-15);
    /* The same triangle listed clockwise (u1 ↔ u2): det −2, W still 1 m². */
    const double uvc[6] = {1, 1, 1.5, 2, 3, 1};
    CHECK(weft_fem_tri_rest(&e, xe, uvc));
    CHECK_NEAR(e.rest[9], 1.0, 1e-15);
    /* Dm = [[0.5, 2], [1, 0]], Dm⁻¹ = −½ [[0, −2], [−1, 0.5]] = [[0, 1], [0.5, −0.25]]. */
    CHECK_NEAR(e.rest[0], 0.0, 1e-15);
    CHECK_NEAR(e.rest[1], 1.0, 1e-15);
    CHECK_NEAR(e.rest[2], 0.5, 1e-15);
    CHECK_NEAR(e.rest[3], -0.25, 1e-15);
    /* F maps the material edges to the deformed ones: F (u1 − u0) = x1 − x0. */
    double F[6];
    weft_fem_tri_F(&e, xe, F);
    double du[2] = {uvc[2] - uvc[0], uvc[3] - uvc[1]}, dv[2] = {uvc[4] - uvc[0], uvc[5] - uvc[1]};
    for (int r = 0; r < 3; r++) {
        CHECK_NEAR(F[2 * r] * du[0] + F[2 * r + 1] * du[1], xe[3 + r] - xe[r], 1e-14);
        CHECK_NEAR(F[2 * r] * dv[0] + F[2 * r + 1] * dv[1], xe[6 + r] - xe[r], 1e-14);
    }
    /* Degenerate material triangle (collinear uv): false, W = 0, Dm⁻¹ = 0. */
    const double uvd[6] = {0, 0, 1, 1, 2, 2};
    CHECK(!weft_fem_tri_rest(&e, xe, uvd));
    CHECK(e.rest[9] == 0.0 && e.rest[0] == 0.0 && e.rest[1] == 0.0 && e.rest[2] == 0.0 &&
          e.rest[3] == 0.0);
}

static void test_rest_frame(void) {
    lcg g = {202};
    for (int trial = 0; trial < 50; trial++) {
        double R[9], xe[9],
            uv[6] = {0, 0, rnd_in(&g, 0.5, 2), 0, rnd_in(&g, -1, 1), rnd_in(&g, 0.5, 2)};
        rnd_rotation(&g, R);
        for (int a = 0; a < 3; a++)
            for (int r = 0; r < 3; r++)
                xe[3 * a + r] = 0.3 + R[3 * r] * uv[2 * a] + R[3 * r + 1] * uv[2 * a + 1];
        weft_element e = {.v = {0, 1, 2, 0}};
        CHECK(weft_fem_tri_rest(&e, xe, NULL));
        /* Area: the uv triangle is (0,0), (a,0), (b,c): W = a c / 2. */
        CHECK_NEAR(e.rest[9], 0.5 * uv[2] * uv[5], 1e-14);
        /* At rest F = [a, b], the frame's axes: orthonormal, a = unit projection of e_x. */
        double F[6];
        weft_fem_tri_F(&e, xe, F);
        double f0[3] = {F[0], F[2], F[4]}, f1[3] = {F[1], F[3], F[5]}, n[3], ex[3] = {1, 0, 0};
        CHECK_NEAR(dot3(f0, f0), 1.0, 1e-14);
        CHECK_NEAR(dot3(f1, f1), 1.0, 1e-14);
        CHECK_NEAR(dot3(f0, f1), 0.0, 1e-14);
        cross3(f0, f1, n); /* the plane's normal, oriented like the triangle */
        double d1[3] = {xe[3] - xe[0], xe[4] - xe[1], xe[5] - xe[2]};
        double d2[3] = {xe[6] - xe[0], xe[7] - xe[1], xe[8] - xe[2]}, m[3];
        cross3(d1, d2, m);
        CHECK_NEAR(dot3(n, m), norm3(m), 1e-13);
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = ex[k] - n[0] * n[k];
        double lp = norm3(p);
        for (int k = 0; k < 3; k++) CHECK_NEAR(f0[k], p[k] / lp, 1e-12);
    }
    /* x normal to the plane (a triangle in the yz plane): the first axis is the first
     * edge. (0,0,0), (0,2,0), (0,1,3): first axis e_y, second e_z; W = 3. */
    const double xe[9] = {0, 0, 0, 0, 2, 0, 0, 1, 3};
    weft_element e = {.v = {0, 1, 2, 0}};
    CHECK(weft_fem_tri_rest(&e, xe, NULL));
    CHECK_NEAR(e.rest[9], 3.0, 1e-14);
    double F[6];
    weft_fem_tri_F(&e, xe, F);
    CHECK_NEAR(F[0], 0.0, 1e-15);
    CHECK_NEAR(F[2], 1.0, 1e-15);
    CHECK_NEAR(F[4], 0.0, 1e-15);
    CHECK_NEAR(fabs(F[5]), 1.0, 1e-15);
    /* Collinear rest positions: degenerate. */
    const double xc[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    CHECK(!weft_fem_tri_rest(&e, xc, NULL));
    CHECK(e.rest[9] == 0.0);
}

/* ------------------------------------------------------------------------------ */
/* Derivatives in F                                                                */
/* ------------------------------------------------------------------------------ */

#define F_TRIALS 40
#define H_F 1e-6 /* FD step in F (dimensionless) */

static void test_stress_fd(void) {
    for (int m = 0; m < NM; m++) {
        const weft_energy_type *t = MEMBRANES[m].t;
        CHECK(weft_energy_find_kind(t->name, WEFT_ELEM_TRIANGLE) == t);
        weft_element e = unit_element(t);
        lcg g = {300 + (uint64_t)m};
        for (int trial = 0; trial < F_TRIALS; trial++) {
            double F[6], P[6], fd[6], Fp[6];
            test_F(&g, trial, F);
            double psi = P_of(t, &e, F, P);
            CHECK(isfinite(psi) && psi > 0.0);
            CHECK_NEAR(psi, psi_of(t, &e, F), 1e-14 * psi);
            /* Central differences, h = 1e-6: truncation h² ψ''' ~ 1e-12, rounding
             * ε ψ/h ~ 1e-10 (ψ, P, ∂P of comparable size here); a wrong term is O(1). */
            for (int i = 0; i < 6; i++) {
                memcpy(Fp, F, sizeof Fp);
                Fp[i] = F[i] + H_F;
                double up = psi_of(t, &e, Fp);
                Fp[i] = F[i] - H_F;
                fd[i] = (up - psi_of(t, &e, Fp)) / (2.0 * H_F);
            }
            double scale = max_abs(P, 6), err = max_diff(P, fd, 6);
            if (!(err <= 1e-6 * scale))
                fprintf(stderr, "%s trial %d: |P - FD| %.3g, |P| %.3g\n", t->name, trial, err,
                        scale);
            CHECK(scale > 0.0 && err <= 1e-6 * scale);
        }
    }
}

static void test_hessian_fd(void) {
    for (int m = 0; m < NM; m++) {
        const weft_energy_type *t = MEMBRANES[m].t;
        weft_element e = unit_element(t);
        lcg g = {400 + (uint64_t)m};
        for (int trial = 0; trial < F_TRIALS; trial++) {
            double F[6], A[36], fd[36], Fp[6], Pp[6], Pm[6];
            test_F(&g, trial, F);
            A_of(t, &e, F, WEFT_HESSIAN_EXACT, A);
            /* Column j of ∂²ψ/∂F² is ∂P/∂vec(F)_j; vec index 3c + r is F[2r + c]. */
            for (int j = 0; j < 6; j++) {
                int fi = 2 * (j % 3) + j / 3;
                memcpy(Fp, F, sizeof Fp);
                Fp[fi] = F[fi] + H_F;
                P_of(t, &e, Fp, Pp);
                Fp[fi] = F[fi] - H_F;
                P_of(t, &e, Fp, Pm);
                for (int i = 0; i < 6; i++) {
                    int pi = 2 * (i % 3) + i / 3;
                    fd[6 * i + j] = (Pp[pi] - Pm[pi]) / (2.0 * H_F);
                }
            }
            double scale = max_abs(A, 36), err = max_diff(A, fd, 36);
            if (!(err <= 1e-6 * scale))
                fprintf(stderr, "%s trial %d: |A - FD| %.3g, |A| %.3g\n", t->name, trial, err,
                        scale);
            CHECK(scale > 0.0 && err <= 1e-6 * scale);
            /* Symmetric as a second derivative must be (to rounding). */
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < i; j++) CHECK_NEAR(A[6 * i + j], A[6 * j + i], 1e-13 * scale);
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* Vertex space                                                                    */
/* ------------------------------------------------------------------------------ */

static void check_vertex_fd(const weft_energy_type *t, const weft_element *e, const double *x,
                            double L) {
    double g[9], gh[9], H[81], fd[81], q[9], gp[9], gm[9];
    double Psi = t->gradient(e, x, g);
    CHECK(isfinite(Psi) && Psi > 0.0);
    CHECK(t->hessian(e, x, WEFT_HESSIAN_EXACT, gh, H) == Psi);
    CHECK(max_diff(g, gh, 9) == 0.0); /* the same computation */
    double h = 1e-6 * L, gs = max_abs(g, 9), err = 0.0;
    for (int i = 0; i < 9; i++) {
        memcpy(q, x, sizeof q);
        q[i] = x[i] + h;
        double ep = t->energy(e, q);
        t->gradient(e, q, gp);
        q[i] = x[i] - h;
        double em = t->energy(e, q);
        t->gradient(e, q, gm);
        err = fmax(err, fabs((ep - em) / (2.0 * h) - g[i]));
        for (int j = 0; j < 9; j++) fd[9 * j + i] = (gp[j] - gm[j]) / (2.0 * h);
    }
    /* Same error budget as in F (h relative to the element's size L). */
    CHECK(gs > 0.0 && err <= 1e-6 * gs);
    double hs = max_abs(H, 81), herr = max_diff(H, fd, 81);
    if (!(herr <= 1e-6 * hs)) fprintf(stderr, "%s: |H - FD| %.3g, |H| %.3g\n", t->name, herr, hs);
    CHECK(hs > 0.0 && herr <= 1e-6 * hs);
    /* Projected Hessians: symmetric PSD, and the gradient they return is the same. */
    for (int mode = WEFT_HESSIAN_ANALYTIC; mode <= WEFT_HESSIAN_CLAMP; mode++) {
        double Hp[81];
        CHECK(t->hessian(e, x, (weft_hessian_mode)mode, gh, Hp) == Psi);
        CHECK(max_diff(g, gh, 9) == 0.0);
        CHECK(min_eig(Hp, 9) >= -1e-10 * hs);
    }
}

static void test_vertex_fd(void) {
    for (int m = 0; m < NM; m++) {
        const weft_energy_type *t = MEMBRANES[m].t;
        lcg g = {500 + (uint64_t)m};
        for (int trial = 0; trial < 20; trial++) {
            /* With uv: a random material triangle (cm to m sized, either orientation);
             * rest positions are irrelevant then. Deformed: any nearby shape. */
            double L = rnd_in(&g, 0.05, 2.0), uv[6], xr[9], x[9];
            uv[0] = rnd_in(&g, -1, 1), uv[1] = rnd_in(&g, -1, 1);
            uv[2] = uv[0] + L, uv[3] = uv[1];
            uv[4] = uv[0] + rnd_in(&g, -0.5, 0.5) * L;
            uv[5] = uv[1] + rnd_in(&g, 0.5, 1.0) * L * (rnd(&g) < 0.5 ? -1.0 : 1.0);
            double R[9];
            rnd_rotation(&g, R);
            for (int a = 0; a < 3; a++)
                for (int r = 0; r < 3; r++) {
                    xr[3 * a + r] = R[3 * r] * uv[2 * a] + R[3 * r + 1] * uv[2 * a + 1];
                    x[3 * a + r] = xr[3 * a + r] + rnd_in(&g, -0.25, 0.25) * L;
                }
            weft_element e = {.v = {0, 1, 2, 0}};
            weft_energy_params p = params(uv);
            t->init(&e, xr, &p);
            check_vertex_fd(t, &e, x, L);
            /* Without uv: the plane frame of random rest positions. */
            for (int i = 0; i < 9; i++) xr[i] = rnd_in(&g, -1, 1) * L;
            double d1[3] = {xr[3] - xr[0], xr[4] - xr[1], xr[5] - xr[2]};
            double d2[3] = {xr[6] - xr[0], xr[7] - xr[1], xr[8] - xr[2]}, nn[3];
            cross3(d1, d2, nn);
            if (norm3(nn) < 0.2 * L * L) continue; /* keep the rest triangle fat */
            for (int i = 0; i < 9; i++) x[i] = xr[i] + rnd_in(&g, -0.25, 0.25) * L;
            p = params(NULL);
            t->init(&e, xr, &p);
            CHECK(e.rest[9] > 0.0);
            check_vertex_fd(t, &e, x, L);
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* Eigensystem and projection                                                      */
/* ------------------------------------------------------------------------------ */

/* q = vec(a bᵀ), a a column of U (3×3), b a column of V (2×2). */
static void mode_vec(const double U[9], int ua, const double V[4], int vb, double q[6]) {
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 3; r++) q[3 * c + r] = U[3 * r + ua] * V[2 * c + vb];
}

static void mat_vec6(const double A[36], const double q[6], double out[6]) {
    for (int i = 0; i < 6; i++) {
        out[i] = 0.0;
        for (int j = 0; j < 6; j++) out[i] += A[6 * i + j] * q[j];
    }
}

static double dot6(const double *a, const double *b) {
    double s = 0.0;
    for (int i = 0; i < 6; i++) s += a[i] * b[i];
    return s;
}

/* ψ(σ0, σ1) of an isotropic energy: ψ at F = U [diag(σ); 0] Vᵀ. */
static double psi_sigma(const weft_energy_type *t, const weft_element *e, const double U[9],
                        const double V[4], double s0, double s1) {
    double F[6];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++)
            F[2 * r + c] = s0 * U[3 * r] * V[2 * c] + s1 * U[3 * r + 1] * V[2 * c + 1];
    return psi_of(t, e, F);
}

static void test_eigenmodes(void) {
    for (int m = 0; m < NM; m++) {
        if (!MEMBRANES[m].isotropic) continue;
        const weft_energy_type *t = MEMBRANES[m].t;
        CHECK(t->analytic_psd);
        weft_element e = unit_element(t);
        lcg g = {600 + (uint64_t)m};
        for (int trial = 0; trial < F_TRIALS; trial++) {
            double F[6], A[36], U[9], s[2], V[4];
            test_F(&g, trial, F);
            A_of(t, &e, F, WEFT_HESSIAN_EXACT, A);
            weft_svd32(F, U, s, V);
            double scale = max_abs(A, 36);
            /* ψ_j and ψ_jk of ψ(σ) by central differences: h = 1e-6 for the first
             * derivatives; h2 = 1e-4 for the second (truncation h2² ∂⁴ψ/12 ~ 1e-9 of
             * ‖A‖, rounding ε ψ/h2² ~ 2e-8 ψ; h2 = 1e-5 would already leave ~1e-6). */
            double h = 1e-6, h2 = 1e-4, s0 = s[0], s1 = s[1];
            double p0 =
                (psi_sigma(t, &e, U, V, s0 + h, s1) - psi_sigma(t, &e, U, V, s0 - h, s1)) / (2 * h);
            double p1 =
                (psi_sigma(t, &e, U, V, s0, s1 + h) - psi_sigma(t, &e, U, V, s0, s1 - h)) / (2 * h);
            double pc = psi_sigma(t, &e, U, V, s0, s1);
            double p00 = (psi_sigma(t, &e, U, V, s0 + h2, s1) - 2 * pc +
                          psi_sigma(t, &e, U, V, s0 - h2, s1)) /
                         (h2 * h2);
            double p11 = (psi_sigma(t, &e, U, V, s0, s1 + h2) - 2 * pc +
                          psi_sigma(t, &e, U, V, s0, s1 - h2)) /
                         (h2 * h2);
            double p01 = (psi_sigma(t, &e, U, V, s0 + h2, s1 + h2) -
                          psi_sigma(t, &e, U, V, s0 + h2, s1 - h2) -
                          psi_sigma(t, &e, U, V, s0 - h2, s1 + h2) +
                          psi_sigma(t, &e, U, V, s0 - h2, s1 - h2)) /
                         (4 * h2 * h2);
            /* The four single modes: twist, flip, n v0ᵀ, n v1ᵀ, and their predicted
             * eigenvalues (ψ0 + ψ1)/(σ0 + σ1), (ψ0 − ψ1)/(σ0 − σ1), ψ_j/σ_j. */
            double q00[6], q11[6], q01[6], q10[6], modes[4][6], lam[4];
            mode_vec(U, 0, V, 0, q00), mode_vec(U, 1, V, 1, q11);
            mode_vec(U, 0, V, 1, q01), mode_vec(U, 1, V, 0, q10);
            for (int i = 0; i < 6; i++) {
                modes[0][i] = (q10[i] - q01[i]) / sqrt(2.0);
                modes[1][i] = (q10[i] + q01[i]) / sqrt(2.0);
            }
            mode_vec(U, 2, V, 0, modes[2]), mode_vec(U, 2, V, 1, modes[3]);
            lam[0] = (p0 + p1) / (s0 + s1);
            lam[1] = (p0 - p1) / (s0 - s1);
            lam[2] = p0 / s0, lam[3] = p1 / s1;
            for (int k = 0; k < 4; k++) {
                double Aq[6];
                mat_vec6(A, modes[k], Aq);
                /* A q = λ q: eigenvector to rounding (1e-10 of ‖A‖), eigenvalue as
                 * predicted to the FD error (1e-6; σ0 − σ1 ≥ 0.05 bounds the flip's
                 * amplification). */
                for (int i = 0; i < 6; i++) CHECK_NEAR(Aq[i], lam[k] * modes[k][i], 1e-6 * scale);
                CHECK_NEAR(dot6(modes[k], Aq), lam[k], 1e-6 * scale);
            }
            /* Scaling: A restricted to span{u0 v0ᵀ, u1 v1ᵀ} is ∂²ψ/∂σ². */
            double Aq0[6], Aq1[6];
            mat_vec6(A, q00, Aq0), mat_vec6(A, q11, Aq1);
            for (int i = 0; i < 6; i++) {
                CHECK_NEAR(Aq0[i], p00 * q00[i] + p01 * q11[i], 1e-6 * scale);
                CHECK_NEAR(Aq1[i], p01 * q00[i] + p11 * q11[i], 1e-6 * scale);
            }
        }
    }
}

static void test_projection(void) {
    for (int m = 0; m < NM; m++) {
        const weft_energy_type *t = MEMBRANES[m].t;
        weft_element e = unit_element(t);
        lcg g = {700 + (uint64_t)m};
        int clamped = 0;
        for (int trial = 0; trial < F_TRIALS; trial++) {
            double F[6], Ae[36], Aa[36], Ac[36];
            test_F(&g, trial, F);
            A_of(t, &e, F, WEFT_HESSIAN_EXACT, Ae);
            A_of(t, &e, F, WEFT_HESSIAN_ANALYTIC, Aa);
            A_of(t, &e, F, WEFT_HESSIAN_CLAMP, Ac);
            double scale = max_abs(Ae, 36);
            if (max_diff(Ae, Ac, 36) > 1e-8 * scale) clamped++;
            if (MEMBRANES[m].isotropic) {
                /* Two independent routes to the same PSD matrix: the closed-form
                 * eigensystem on the SVD modes, and LAPACK's eigen-decomposition of the
                 * exact matrix from the invariants. Both are accurate to ~1e-14 of ‖A‖. */
                double err = max_diff(Aa, Ac, 36);
                if (!(err <= 1e-8 * scale))
                    fprintf(stderr, "%s trial %d: |analytic - clamp| %.3g, |A| %.3g\n", t->name,
                            trial, err, scale);
                CHECK(err <= 1e-8 * scale);
            } else {
                CHECK(!t->analytic_psd);
                CHECK(memcmp(Aa, Ac, sizeof Aa) == 0); /* ANALYTIC is CLAMP */
            }
            CHECK(min_eig(Ac, 6) >= -1e-12 * scale);
            CHECK(min_eig(Aa, 6) >= -1e-12 * scale);
        }
        /* The compressed and sheared families are indefinite for every energy here: the
         * projection must have had work to do, or this case tests nothing. */
        CHECK(clamped > 0);
        fprintf(stderr, "%s: %d/%d indefinite configurations\n", t->name, clamped, F_TRIALS);
    }
    /* Uniform stretch by 1.3 is a PSD configuration for every membrane energy here (all
     * mode eigenvalues positive, e.g. StVK's twist μ(s² − 1) + λ(s² − 1) > 0; Baraff-Witkin
     * with C_u, C_v > 0 and C_s = 0 is a sum of PSD terms; the fibre is stretched): CLAMP
     * must then return the exact matrix bit for bit, and ANALYTIC match it. The fibre's
     * ∂²ψ/∂F² = a aᵀ ⊗ H_w has rank 3: LAPACK may see its zero eigenvalues as −1e-16
     * and rebuild the matrix, so it is compared to rounding instead. */
    double F[6] = {1.3, 0, 0, 1.3, 0, 0};
    for (int m = 0; m < NM; m++) {
        const weft_energy_type *t = MEMBRANES[m].t;
        weft_element e = unit_element(t);
        double Ae[36], Aa[36], Ac[36];
        A_of(t, &e, F, WEFT_HESSIAN_EXACT, Ae);
        A_of(t, &e, F, WEFT_HESSIAN_ANALYTIC, Aa);
        A_of(t, &e, F, WEFT_HESSIAN_CLAMP, Ac);
        double scale = max_abs(Ae, 36);
        CHECK(min_eig(Ae, 6) >= -1e-14 * scale);
        if (t != &weft_anisotropic_fiber_membrane) CHECK(memcmp(Ae, Ac, sizeof Ae) == 0);
        CHECK(max_diff(Ae, Ac, 36) <= 1e-12 * scale);
        CHECK(max_diff(Ae, Aa, 36) <= 1e-12 * scale);
    }
}

/* ------------------------------------------------------------------------------ */
/* Closed forms                                                                    */
/* ------------------------------------------------------------------------------ */

/* Ψ and g of the right triangle with legs L (uv = L × unit) at F = [f0, f1]
 * (x0 = 0, x1 = L f0, x2 = L f1). W = L²/2, Dm⁻¹ = I/L. */
static double psi_L(const weft_energy_type *t, double L, const double F[6], const double *fiber,
                    double *g) {
    double uv[6], xr[9], x[9];
    for (int i = 0; i < 6; i++) uv[i] = L * UNIT_UV[i];
    for (int i = 0; i < 9; i++) xr[i] = L * UNIT_X[i];
    F_to_x(F, x);
    for (int i = 0; i < 9; i++) x[i] *= L;
    weft_element e = {.v = {0, 1, 2, 0}};
    weft_energy_params p = params(uv);
    if (fiber) p.fiber[0] = fiber[0], p.fiber[1] = fiber[1];
    t->init(&e, xr, &p);
    CHECK_NEAR(e.rest[9], 0.5 * L * L, 1e-15 * L * L);
    double gg[9];
    return t->gradient(&e, x, g ? g : gg);
}

static void test_closed_forms(void) {
    const double Ls[2] = {1.0, 0.05};
    const double ss[3] = {1.5, 0.6, 0.25};
    const double mu = MU, la = LAMBDA, ma = MU_ARAP;
    for (int il = 0; il < 2; il++)
        for (int is = 0; is < 3; is++) {
            double L = Ls[il], s = ss[is], W = 0.5 * L * L, ls = log(s), g[9];
            /* Uniaxial stretch F = [[s, 0], [0, 1], [0, 0]]: σ = (s, 1), I_C = s² + 1,
             * J = s, E = diag((s² − 1)/2, 0).
             *  StVK: ψ = μ E00² + λ/2 E00² = (2μ + λ)(s² − 1)²/8;
             *  Neo-Hookean: ψ = μ/2 (s² − 1) − μ log s + λ/2 log² s;
             *  Stable NH (λ' = λ + μ): μ/2 (s − 1)² + λ'/2 (s − 1)² = (2μ + λ)(s − 1)²/2;
             *  ARAP (its μ = Y): Y/2 (s − 1)²;  Baraff-Witkin: C_u = s − 1, C_v = C_s = 0:
             *  Y/2 (s − 1)². */
            double Fu[6] = {s, 0, 0, 1, 0, 0};
            double uni[5] = {(2 * mu + la) * (s * s - 1) * (s * s - 1) / 8,
                             mu / 2 * (s * s - 1) - mu * ls + la / 2 * ls * ls,
                             (2 * mu + la) * (s - 1) * (s - 1) / 2, ma / 2 * (s - 1) * (s - 1),
                             Y_MEMBRANE / 2 * (s - 1) * (s - 1)};
            /* Uniform scaling F = s [I; 0]: σ = (s, s), I_C = 2s², J = s², E = (s² − 1)/2 I.
             *  StVK: μ 2 ((s² − 1)/2)² + λ/2 (s² − 1)² = (μ + λ)(s² − 1)²/2;
             *  Neo-Hookean: μ(s² − 1) − 2μ log s + 2λ log² s;
             *  Stable NH: 0 + λ'/2 (s² − 1)²;  ARAP: μ (s − 1)²;  BW: Y (s − 1)². */
            double Fs[6] = {s, 0, 0, s, 0, 0};
            double sc[5] = {(mu + la) * (s * s - 1) * (s * s - 1) / 2,
                            mu * (s * s - 1) - 2 * mu * ls + 2 * la * ls * ls,
                            (la + mu) / 2 * (s * s - 1) * (s * s - 1), ma * (s - 1) * (s - 1),
                            Y_MEMBRANE * (s - 1) * (s - 1)};
            for (int m = 0; m < 5; m++) {
                const weft_energy_type *t = MEMBRANES[m].t;
                /* A few roundings of O(1) terms: 1e-14 of Ψ's scale. */
                CHECK_NEAR(psi_L(t, L, Fu, NULL, NULL), W * uni[m], 1e-14 * W * (1 + uni[m]));
                CHECK_NEAR(psi_L(t, L, Fs, NULL, NULL), W * sc[m], 1e-14 * W * (1 + sc[m]));
            }
            /* Forces under uniaxial stretch. g(x1) = W P(:,0)/L, g(x2) = W P(:,1)/L.
             *  StVK: P = F S, S = diag((2μ + λ)(s² − 1)/2, λ(s² − 1)/2), so
             *  P(:,0) = s (2μ + λ)(s² − 1)/2 e_x, P(:,1) = λ(s² − 1)/2 e_y: the sheet
             *  pulls the stretched edge back and, held at its width, pushes along v.
             *  Neo-Hookean: P = μF + (λ log J − μ)/J ∂J, ∂J/∂f0 = e_x, ∂J/∂f1 = s e_y:
             *  P(:,0) = (μ s + (λ log s − μ)/s) e_x, P(:,1) = λ log s e_y. */
            psi_L(&weft_stvk_membrane, L, Fu, NULL, g);
            double k = W / L;
            CHECK_NEAR(g[3], k * s * (2 * mu + la) * (s * s - 1) / 2, 1e-14 * k);
            CHECK_NEAR(g[7], k * la * (s * s - 1) / 2, 1e-14 * k);
            CHECK(g[4] == 0.0 && g[5] == 0.0 && g[6] == 0.0 && g[8] == 0.0);
            psi_L(&weft_neo_hookean_membrane, L, Fu, NULL, g);
            CHECK_NEAR(g[3], k * (mu * s + (la * ls - mu) / s), 1e-13 * k / s);
            CHECK_NEAR(g[7], k * la * ls, 1e-14 * k);
            /* Baraff-Witkin pure shear: f0 = (cos φ, sin φ, 0), f1 = (sin φ, cos φ, 0),
             * unit threads (C_u = C_v = 0) at the angle π/2 − 2φ: C_s = 2 sin φ cos φ =
             * sin 2φ, ψ = k_sh/2 sin² 2φ with k_sh = μ. */
            double phi = 0.4 * s, Fsh[6] = {cos(phi), sin(phi), sin(phi), cos(phi), 0, 0};
            double c2 = sin(2 * phi);
            CHECK_NEAR(psi_L(&weft_baraff_witkin_membrane, L, Fsh, NULL, NULL),
                       W * mu / 2 * c2 * c2, 1e-14 * W);
            /* Fibre κ/2 (|F a| − 1)²: a = (1, 0) under uniaxial s: |F a| = s;
             * a = (0, 1): |F a| = 1, Ψ = 0; a = (1, 1)/√2 under uniaxial: |F a|² =
             * (s² + 1)/2; under uniform scaling: |F a| = s. The fibre is normalised by
             * init, so (3, 3) means (1, 1)/√2. */
            const weft_energy_type *fb = &weft_anisotropic_fiber_membrane;
            double au[2] = {1, 0}, av[2] = {0, 1}, ad[2] = {3, 3}, fd = sqrt((s * s + 1) / 2);
            CHECK_NEAR(psi_L(fb, L, Fu, au, NULL), W * KAPPA / 2 * (s - 1) * (s - 1), 1e-14 * W);
            CHECK_NEAR(psi_L(fb, L, Fu, av, NULL), 0.0, 1e-30 * W); /* |F a| = 1 ± ε */
            CHECK_NEAR(psi_L(fb, L, Fu, ad, NULL), W * KAPPA / 2 * (fd - 1) * (fd - 1), 1e-14 * W);
            CHECK_NEAR(psi_L(fb, L, Fs, ad, NULL), W * KAPPA / 2 * (s - 1) * (s - 1), 1e-14 * W);
            /* area_preservation K/2 (J − 1)², K = λ + μ: uniaxial J = s gives K/2 (s − 1)²,
             * uniform scaling J = s² gives K/2 (s² − 1)². Force under uniaxial stretch:
             * P = K (J − 1) ∂J/∂F with ∂J/∂f0 = e_x, ∂J/∂f1 = s e_y, so
             * g(x1) = W/L · K (s − 1) e_x and g(x2) = W/L · K (s − 1) s e_y. */
            const weft_energy_type *ap = &weft_area_preservation_membrane;
            double K = la + mu;
            CHECK_NEAR(psi_L(ap, L, Fu, NULL, NULL), W * K / 2 * (s - 1) * (s - 1), 1e-14 * W * K);
            CHECK_NEAR(psi_L(ap, L, Fs, NULL, NULL), W * K / 2 * (s * s - 1) * (s * s - 1),
                       1e-14 * W * K);
            psi_L(ap, L, Fu, NULL, g);
            CHECK_NEAR(g[3], k * K * (s - 1), 1e-14 * k * K);
            CHECK_NEAR(g[7], k * K * (s - 1) * s, 1e-14 * k * K);
            CHECK(g[4] == 0.0 && g[5] == 0.0 && g[6] == 0.0 && g[8] == 0.0);
        }
}

static void test_small_strain(void) {
    /* Linear plane-stress elasticity: ψ_lin = μ‖e‖² + λ/2 tr² e for a small in-plane
     * strain e (F = R [I + e; 0]). StVK, Neo-Hookean and Stable Neo-Hookean (with its
     * λ' = λ + μ) must all reduce to it; ARAP, μ_A/2 ‖F − R‖² ≈ μ_A/2 ‖e‖² with μ_A = Y,
     * to the ν = 0 sheet of modulus Y (shear Y/2, no bulk term); Baraff-Witkin to
     * Y/2 (e_uu² + e_vv²) + μ/2 (2 e_uv)² (C_u ≈ e_uu, C_s ≈ 2 e_uv). Their cubic terms
     * are O(|e|) relative: 1e-3 at |e| ~ 1e-4. */
    lcg g = {800};
    for (int trial = 0; trial < 20; trial++) {
        double e2[3] = {rnd_in(&g, -1, 1), rnd_in(&g, -1, 1), rnd_in(&g, -1, 1)}; /* uu uv vv */
        for (int k = 0; k < 3; k++) e2[k] *= 1e-4;
        double M[4] = {1 + e2[0], e2[1], e2[1], 1 + e2[2]}, F[6], R[9];
        rnd_rotation(&g, R);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 2; c++) F[2 * r + c] = R[3 * r] * M[c] + R[3 * r + 1] * M[2 + c];
        double ee = e2[0] * e2[0] + 2 * e2[1] * e2[1] + e2[2] * e2[2], tr = e2[0] + e2[2];
        double lin[5] = {MU * ee + LAMBDA / 2 * tr * tr, MU * ee + LAMBDA / 2 * tr * tr,
                         MU * ee + LAMBDA / 2 * tr * tr, MU_ARAP / 2 * ee,
                         Y_MEMBRANE / 2 * (e2[0] * e2[0] + e2[2] * e2[2]) +
                             MU / 2 * 4 * e2[1] * e2[1]};
        for (int m = 0; m < 5; m++) {
            weft_element e = unit_element(MEMBRANES[m].t);
            CHECK_NEAR(psi_of(MEMBRANES[m].t, &e, F), lin[m], 1e-3 * lin[m]);
        }
    }
    /* Uniaxial stress: stretch ε along u with the free contraction −ν ε along v. The
     * lateral stress vanishes (P_vv = 0 to first order) and ψ = Y/2 ε²: the plane-stress
     * μ, λ give the sheet the modulus Y and Poisson's ratio ν it was specified with. */
    double eps = 1e-4, Fu[6] = {1 + eps, 0, 0, 1 - NU * eps, 0, 0}, P[6];
    for (int m = 0; m < 3; m++) {
        weft_element e = unit_element(MEMBRANES[m].t);
        double psi = P_of(MEMBRANES[m].t, &e, Fu, P);
        CHECK_NEAR(psi, Y_MEMBRANE / 2 * eps * eps, 1e-3 * Y_MEMBRANE / 2 * eps * eps);
        CHECK_NEAR(P[0], Y_MEMBRANE * eps, 1e-3 * Y_MEMBRANE * eps);
        CHECK(fabs(P[3]) <= 1e-3 * fabs(P[0]));
    }
}

/* ------------------------------------------------------------------------------ */
/* Rest, degenerate shapes, fibre sign                                             */
/* ------------------------------------------------------------------------------ */

static void test_rest_zero(void) {
    for (int m = 0; m < NM; m++) {
        const weft_energy_type *t = MEMBRANES[m].t;
        lcg g = {900 + (uint64_t)m};
        for (int trial = 0; trial < 20; trial++) {
            /* An isometric embedding of a random uv triangle (with uv), or the same
             * positions alone (without uv): both rest shapes. */
            double L = rnd_in(&g, 0.05, 2.0), uv[6], xr[9], x[9], R[9], gr[9], gd[9];
            for (int i = 0; i < 6; i++) uv[i] = rnd_in(&g, -1, 1) * L;
            double d1[2] = {uv[2] - uv[0], uv[3] - uv[1]}, d2[2] = {uv[4] - uv[0], uv[5] - uv[1]};
            if (fabs(d1[0] * d2[1] - d1[1] * d2[0]) < 0.2 * L * L) continue;
            rnd_rotation(&g, R);
            for (int a = 0; a < 3; a++)
                for (int r = 0; r < 3; r++)
                    xr[3 * a + r] = 0.7 + R[3 * r] * uv[2 * a] + R[3 * r + 1] * uv[2 * a + 1];
            for (int i = 0; i < 9; i++) x[i] = xr[i] + rnd_in(&g, -0.1, 0.1) * L;
            for (int with_uv = 0; with_uv < 2; with_uv++) {
                weft_element e = {.v = {0, 1, 2, 0}};
                weft_energy_params p = params(with_uv ? uv : NULL);
                t->init(&e, xr, &p);
                double ref = t->gradient(&e, x, gd);
                CHECK(ref > 0.0);
                /* Rounding only (strains ~1e-16 against ~0.1 deformed): see
                 * test_energies.c registry_rest for the same bounds. */
                double psi = t->gradient(&e, xr, gr);
                CHECK(fabs(psi) <= 1e-12 * ref);
                CHECK(max_abs(gr, 9) <= 1e-10 * max_abs(gd, 9));
            }
        }
    }
}

/* Every output finite; returns Ψ. */
static double eval_all(const weft_energy_type *t, const weft_element *e, const double *x, double *g,
                       double *Hs) {
    double Psi = t->energy(e, x);
    CHECK(t->gradient(e, x, g) == Psi || (isinf(Psi) && isinf(t->gradient(e, x, g))));
    CHECK(all_finite(g, 9));
    for (int mode = 0; mode < 3; mode++) {
        double gh[9];
        double P2 = t->hessian(e, x, (weft_hessian_mode)mode, gh, Hs + 81 * mode);
        CHECK(P2 == Psi);
        CHECK(all_finite(gh, 9) && all_finite(Hs + 81 * mode, 81));
    }
    CHECK(!isnan(Psi));
    return Psi;
}

static void test_degenerate(void) {
    const double mu = MU, la = LAMBDA;
    /* Collapsed deformed shapes of the unit triangle: x2 on the line x0 x1 (σ1 = 0,
     * F = [[1, 0.5], [0, 0], [0, 0]]) and all three vertices at one point (F = 0). */
    const double line[9] = {0, 0, 0, 1, 0, 0, 0.5, 0, 0};
    const double point[9] = {0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2};
    for (int m = 0; m < NM; m++) {
        const weft_energy_type *t = MEMBRANES[m].t;
        weft_element e = unit_element(t);
        double g[9], Hs[243];
        double Pl = eval_all(t, &e, line, g, Hs), P0 = eval_all(t, &e, point, g, Hs);
        if (t == &weft_neo_hookean_membrane) {
            /* −μ log J → +∞: outside the domain, with zero derivatives. */
            CHECK(isinf(Pl) && Pl > 0 && isinf(P0) && P0 > 0);
            CHECK(max_abs(g, 9) == 0.0 && max_abs(Hs, 243) == 0.0);
            continue;
        }
        CHECK(isfinite(Pl) && isfinite(P0));
        /* At F = 0 (W = ½): StVK E = −I/2, ψ = μ/2 + λ/2; Stable NH ψ = λ'/2 = (λ + μ)/2;
         * ARAP μ_A/2 (1 + 1) = μ_A = Y; Baraff-Witkin C_u = C_v = −1: Y; fibre κ/2. */
        double at0[6] = {mu / 2 + la / 2, 0, (la + mu) / 2, MU_ARAP, Y_MEMBRANE, KAPPA / 2};
        CHECK_NEAR(P0, 0.5 * at0[m], 1e-15);
    }
    /* Just inside Neo-Hookean's domain, J = 1e-9 ≫ 1e-12 I_C: finite, large. */
    {
        weft_element e = unit_element(&weft_neo_hookean_membrane);
        const double thin[9] = {0, 0, 0, 1, 0, 0, 0.5, 1e-9, 0};
        double g[9], Hs[243];
        double P = eval_all(&weft_neo_hookean_membrane, &e, thin, g, Hs);
        CHECK(isfinite(P) && P > 0.0);
    }
    /* Fibre with F a = 0: a = (1, 0) and x1 = x0. ψ = κ/2 (0 − 1)², no direction to
     * pull in: zero force. */
    {
        weft_element e = unit_element(&weft_anisotropic_fiber_membrane);
        const double fa0[9] = {0, 0, 0, 0, 0, 0, 0, 1, 0};
        double uv[6], xr[9], g[9], Hs[243];
        memcpy(uv, UNIT_UV, sizeof uv), memcpy(xr, UNIT_X, sizeof xr);
        weft_energy_params p = params(uv);
        p.fiber[1] = 0.0;
        weft_anisotropic_fiber_membrane.init(&e, xr, &p);
        CHECK(eval_all(&weft_anisotropic_fiber_membrane, &e, fa0, g, Hs) == 0.5 * KAPPA / 2);
        CHECK(max_abs(g, 9) == 0.0);
    }
    /* Degenerate rest (collinear positions without uv, collinear uv): W = 0 and every
     * output 0, whatever the deformed shape. */
    const double col[9] = {0, 0, 0, 1, 1, 0, 2, 2, 0};
    const double uvc[6] = {0, 0, 1, 2, 2, 4};
    const double x[9] = {0.1, 0.3, 0.2, 1.1, -0.4, 0.6, 0.3, 0.9, -0.5};
    for (int m = 0; m < NM; m++) {
        const weft_energy_type *t = MEMBRANES[m].t;
        for (int k = 0; k < 2; k++) {
            weft_element e = {.v = {0, 1, 2, 0}};
            weft_energy_params p = params(k ? uvc : NULL);
            t->init(&e, col, &p);
            CHECK(e.rest[9] == 0.0);
            double g[9], Hs[243];
            CHECK(eval_all(t, &e, x, g, Hs) == 0.0);
            CHECK(max_abs(g, 9) == 0.0 && max_abs(Hs, 243) == 0.0);
        }
    }
}

static void test_fiber_sign(void) {
    /* I4 = aᵀ S a with F = R S: I4 = (R a)·(F a) ≥ 0 for any membrane F, so Kim et al.'s
     * ψ = κ/2 (√I5 − S(I4))² is κ/2 (|F a| − 1)². Checked on random F, including nearly
     * collapsed ones, with R = U₃ₓ₂ Vᵀ from weft_svd32 and the energy's own a. */
    lcg g = {1000};
    weft_element e = unit_element(&weft_anisotropic_fiber_membrane);
    const double *a = &e.rest[10];
    CHECK_NEAR(a[0] * a[0] + a[1] * a[1], 1.0, 1e-15);
    CHECK_NEAR(a[1] / a[0], 0.3, 1e-15);
    for (int trial = 0; trial < 200; trial++) {
        double F[6], U[9], s[2], V[4], fa[3], ra[3];
        for (int i = 0; i < 6; i++) F[i] = rnd_in(&g, -1.5, 1.5);
        if (trial % 4 == 1) { /* nearly collapsed */
            double M[4] = {rnd_in(&g, 0.5, 2), 0, 0, rnd_in(&g, 0, 1e-6)};
            embed(&g, M, F);
        }
        weft_svd32(F, U, s, V);
        for (int r = 0; r < 3; r++) {
            fa[r] = F[2 * r] * a[0] + F[2 * r + 1] * a[1];
            ra[r] = 0.0;
            for (int c = 0; c < 2; c++)
                ra[r] += (U[3 * r] * V[2 * c] + U[3 * r + 1] * V[2 * c + 1]) * a[c];
        }
        double I4 = dot3(ra, fa), I5 = dot3(fa, fa);
        CHECK(I4 >= -1e-14);
        double sg = I4 < 0 ? -1.0 : 1.0, ref = KAPPA / 2 * (sqrt(I5) - sg) * (sqrt(I5) - sg);
        CHECK_NEAR(psi_of(&weft_anisotropic_fiber_membrane, &e, F), ref, 1e-14 * (1 + ref));
    }
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"svd32", test_svd32},
        {"rest_uv", test_rest_uv},
        {"rest_frame", test_rest_frame},
        {"stress_fd", test_stress_fd},
        {"hessian_fd", test_hessian_fd},
        {"vertex_fd", test_vertex_fd},
        {"eigenmodes", test_eigenmodes},
        {"projection", test_projection},
        {"closed_forms", test_closed_forms},
        {"small_strain", test_small_strain},
        {"rest_zero", test_rest_zero},
        {"degenerate", test_degenerate},
        {"fiber_sign", test_fiber_sign},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
