/* test_fem.c — the tetrahedral finite-element energies: the kernels of energies/fem_tet.c
 * (rest shape, F, the sparse chain rule, the rotation-variant SVD, the nine-mode
 * projection) and the six volume energies (stvk, neo_hookean, stable_neo_hookean, arap,
 * symmetric_dirichlet, anisotropic_fiber), through their descriptors only.
 *
 * Reading ψ, P and ∂²ψ/∂F² through a descriptor. A "unit" element has rest vertices 0,
 * e_x, e_y, e_z, so Dm = I and F = Ds = [x1 − x0, x2 − x0, x3 − x0]; we then set its W
 * (rest[9]) to 1, so Ψ = ψ(F). With Dm⁻¹ = I the shape vectors are b_{c+1} = e_c, so
 * ∂Ψ/∂x_{c+1} is column c of P, and the entry (3(c+1) + r, 3(d+1) + s) of the 12×12
 * Hessian is ∂²ψ/∂F_rc∂F_sd: the lower-right 9×9 block is ∂²ψ/∂F² over vec(F) (vec index
 * 3c + r), in whichever mode the Hessian was asked for. The chain rule itself is tested
 * separately (kinematics, vertex_fd).
 *
 * Every assertion is a mathematical fact with its tolerance argued in a comment; random
 * inputs come from fixed-seed LCGs.
 */
#include "check.h"
#include "fem.h"
#include "fem_tet_energy.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"

#include <float.h>
#include <lapacke.h>
#include <stdbool.h>
#include <stdint.h>

/* Material of every test element: E = 1000 Pa, ν = 0.3, so μ = E/(2(1 + ν)) = 384.6 Pa
 * and λ = Eν/((1 + ν)(1 − 2ν)) = 576.9 Pa; a fibre along (1, 2, 2)/3 with κ = 500 Pa. */
#define YOUNG 1000.0
#define NU 0.3
#define KAPPA 500.0
static const weft_energy_params PARAMS = {
    .stiffness = YOUNG, .poisson = NU, .fiber = {1.0, 2.0, 2.0}, .fiber_stiffness = KAPPA};
static const double MU = YOUNG / (2.0 * (1.0 + NU));
static const double LAMBDA = YOUNG * NU / ((1.0 + NU) * (1.0 - 2.0 * NU));
/* The coefficient μ of the two energies without a bulk term, chosen (papers/calibration.md) so that
 * their small-strain Young's modulus is E: ARAP μ/2‖F − R‖² has shear modulus μ/2, so
 * μ = E; symmetric Dirichlet's has 2μ, so μ = E/4. Both have Poisson ratio 0. */
static const double MU_ARAP = YOUNG;
static const double MU_SD = YOUNG / 4.0;

/* The volume energies and what they promise for det F ≤ 0: finite (invertible) or
 * +INFINITY; isotropic ones have an analytic eigensystem. */
typedef struct tet_type {
    const weft_energy_type *t;
    bool invertible;
} tet_type;

static const tet_type TYPES[] = {
    {&weft_stvk_tet, true},
    {&weft_neo_hookean_tet, false},
    {&weft_stable_neo_hookean_tet, true},
    {&weft_arap_tet, true},
    {&weft_symmetric_dirichlet_tet, false},
    {&weft_anisotropic_fiber_tet, true},
    {NULL, false},
};

static const weft_hessian_mode MODES[3] = {WEFT_HESSIAN_EXACT, WEFT_HESSIAN_ANALYTIC,
                                           WEFT_HESSIAN_CLAMP};

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */
/* ------------------------------------------------------------------------------ */

/* C = A B for 3×3 row-major matrices (test-local, independent of the library's). */
static void mul3(const double *A, const double *B, double *C) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += A[3 * r + k] * B[3 * k + c];
            C[3 * r + c] = s;
        }
}

static void transpose3(const double *A, double *T) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) T[3 * c + r] = A[3 * r + c];
}

static double det3(const double *M) {
    return M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
           M[2] * (M[3] * M[7] - M[4] * M[6]);
}

/* Largest |a_i − b_i| over n values. */
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

static bool all_zero(const double *a, int n) {
    for (int i = 0; i < n; i++)
        if (a[i] != 0.0) return false;
    return true;
}

/* A uniformly random rotation, from a random unit quaternion (w, x, y, z). */
static void rnd_rotation(lcg *g, double *R) {
    double q[4], n;
    do {
        for (int k = 0; k < 4; k++) q[k] = rnd_in(g, -1.0, 1.0);
        n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n < 0.1 || n > 1.0);
    double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                   2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(R, M, sizeof M);
}

/* F = R1 diag(σ) R2ᵀ with random rotations: a matrix whose signed singular values
 * (rotation-variant convention) are exactly σ, up to rounding. */
static void F_from_sigma(lcg *g, const double *sigma, double *F) {
    double R1[9], R2[9];
    rnd_rotation(g, R1);
    rnd_rotation(g, R2);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += R1[3 * r + k] * sigma[k] * R2[3 * c + k];
            F[3 * r + c] = s;
        }
}

/* Families of deformation gradients the derivative tests sample. */
enum {
    FAM_MODERATE,        /* σ_i ∈ [0.6, 1.6] */
    FAM_COMPRESSED,      /* all σ_i ∈ [0.15, 0.3]: strongly compressed */
    FAM_ONE_SQUASHED,    /* one σ ∈ [0.15, 0.3], the others ∈ [0.8, 1.5] */
    FAM_NEAR_DEGENERATE, /* one σ ∈ [1e-3, 2e-3]: almost flat */
    FAM_NEAR_REPEATED,   /* σ_0 = σ_1 (1 + 1e-9): repeated singular values */
    FAM_INVERTED,        /* σ = (a, b, −c), c ∈ [0.15, 0.5] min(a, b) */
    FAM_DEEPLY_INVERTED, /* σ = (a, b, −c), c ∈ [0.6, 0.85] min(a, b), a, b ∈ [0.3, 1.2] */
    FAM_COUNT
};
static const char *const FAM_NAMES[FAM_COUNT] = {"moderate",        "compressed",    "one-squashed",
                                                 "near-degenerate", "near-repeated", "inverted",
                                                 "deeply-inverted"};

/* A random F of the family; returns its smallest |σ| (the scale FD steps use). */
static double sample_F(lcg *g, int fam, double *F) {
    double s[3];
    switch (fam) {
    case FAM_MODERATE:
        for (int k = 0; k < 3; k++) s[k] = rnd_in(g, 0.6, 1.6);
        break;
    case FAM_COMPRESSED:
        for (int k = 0; k < 3; k++) s[k] = rnd_in(g, 0.15, 0.3);
        break;
    case FAM_ONE_SQUASHED:
        s[0] = rnd_in(g, 0.8, 1.5), s[1] = rnd_in(g, 0.8, 1.5), s[2] = rnd_in(g, 0.15, 0.3);
        break;
    case FAM_NEAR_DEGENERATE:
        s[0] = rnd_in(g, 0.8, 1.3), s[1] = rnd_in(g, 0.5, 1.0), s[2] = rnd_in(g, 1e-3, 2e-3);
        break;
    case FAM_NEAR_REPEATED:
        s[0] = rnd_in(g, 0.7, 1.4), s[1] = s[0] * (1.0 + 1e-9), s[2] = rnd_in(g, 0.5, 1.5);
        break;
    case FAM_INVERTED:
        s[0] = rnd_in(g, 0.6, 1.5), s[1] = rnd_in(g, 0.6, 1.5);
        s[2] = -rnd_in(g, 0.15, 0.5) * fmin(s[0], s[1]);
        break;
    default:
        s[0] = rnd_in(g, 0.3, 1.2), s[1] = rnd_in(g, 0.3, 1.2);
        s[2] = -rnd_in(g, 0.6, 0.85) * fmin(s[0], s[1]);
        break;
    }
    F_from_sigma(g, s, F);
    return fmin(fabs(s[0]), fmin(fabs(s[1]), fabs(s[2])));
}

/* The unit element of type t (Dm = I) with W forced to 1, so that Ψ = ψ(F). */
static weft_element unit_element(const weft_energy_type *t, const weft_energy_params *p) {
    static const double xr[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    weft_element e = {.v = {0, 1, 2, 3}};
    t->init(&e, xr, p);
    e.rest[9] = 1.0;
    return e;
}

/* Vertex positions of the unit element deformed by F: x0 = 0, x_{c+1} = column c of F. */
static void positions_of_F(const double *F, double *xe) {
    memset(xe, 0, 3 * sizeof *xe);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) xe[3 * (c + 1) + r] = F[3 * r + c];
}

static double psi_at(const weft_energy_type *t, const weft_element *e, const double *F) {
    double xe[12];
    positions_of_F(F, xe);
    return t->energy(e, xe);
}

/* P(F) read from the gradient of the unit element; returns ψ. */
static double P_at(const weft_energy_type *t, const weft_element *e, const double *F, double *P) {
    double xe[12], g[12];
    positions_of_F(F, xe);
    double psi = t->gradient(e, xe, g);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) P[3 * r + c] = g[3 * (c + 1) + r];
    return psi;
}

/* The 9×9 over vec(F) read from the unit element's Hessian in the given mode. */
static double A_at(const weft_energy_type *t, const weft_element *e, const double *F,
                   weft_hessian_mode mode, double *A) {
    double xe[12], H[144];
    positions_of_F(F, xe);
    double psi = t->hessian(e, xe, mode, NULL, H);
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) A[9 * i + j] = H[12 * (3 + i) + 3 + j];
    return psi;
}

/* I4 = aᵀ S a of F = R S (rotation-variant polar decomposition), for the fibre tests. */
static double fiber_I4(const double *F, const double *a) {
    double U[9], s[3], V[9], i4 = 0.0;
    weft_svd3_rv(F, U, s, V);
    for (int i = 0; i < 3; i++) {
        double va = V[i] * a[0] + V[3 + i] * a[1] + V[6 + i] * a[2];
        i4 += s[i] * va * va;
    }
    return i4;
}

/* The smallest eigenvalue of a symmetric n×n matrix (LAPACKE dsyev, n ≤ 12). */
static double min_eigenvalue(const double *A, int n) {
    double a[144], w[12];
    memcpy(a, A, (size_t)n * n * sizeof *a);
    lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', n, a, n, w);
    CHECK(info == 0);
    return w[0];
}

/* A random rest tetrahedron of size L ∈ [0.5, 2] m around a random centre: the three
 * edges from x0 are L R (e_k + N e_k) with |N_ij| ≤ 0.3, so the smallest singular value
 * of Dm is at least (1 − 0.9) L; mirrored (negative orientation) half the time. */
static double rest_tet(lcg *g, double *xr) {
    double R[9], L = rnd_in(g, 0.5, 2.0), c[3];
    rnd_rotation(g, R);
    for (int k = 0; k < 3; k++) c[k] = rnd_in(g, -1.0, 1.0);
    double flip = rnd(g) < 0.5 ? -1.0 : 1.0;
    for (int k = 0; k < 3; k++) xr[k] = c[k];
    for (int v = 1; v < 4; v++) {
        double d[3];
        for (int k = 0; k < 3; k++) d[k] = (k == v - 1 ? 1.0 : 0.0) + rnd_in(g, -0.3, 0.3);
        d[2] *= flip;
        for (int r = 0; r < 3; r++)
            xr[3 * v + r] =
                c[r] + L * (R[3 * r] * d[0] + R[3 * r + 1] * d[1] + R[3 * r + 2] * d[2]);
    }
    return L;
}

/* x_a = F X_a + t: the rest tetrahedron xr moved by the affine map with gradient F. */
static void affine(const double *F, const double *t, const double *xr, double *x) {
    for (int a = 0; a < 4; a++)
        for (int r = 0; r < 3; r++)
            x[3 * a + r] = t[r] + F[3 * r] * xr[3 * a] + F[3 * r + 1] * xr[3 * a + 1] +
                           F[3 * r + 2] * xr[3 * a + 2];
}

/* ------------------------------------------------------------------------------ */
/* Registration                                                                    */
/* ------------------------------------------------------------------------------ */

static void test_registered(void) {
    for (const tet_type *tt = TYPES; tt->t; tt++) {
        const weft_energy_type *t = tt->t;
        /* Scene files reach the volume variant by name and kind. */
        CHECK(weft_energy_find_kind(t->name, WEFT_ELEM_TET) == t);
        CHECK(t->kind == WEFT_ELEM_TET && t->nv == 4);
        CHECK(t->init && t->energy && t->gradient && t->hessian && !t->constraint);
        /* Only the fibre is anisotropic, without an analytic eigensystem. */
        CHECK(t->analytic_psd == (t != &weft_anisotropic_fiber_tet));
        /* Material constants: k = μ, k2 = λ from (E, ν); stable Neo-Hookean keeps
         * λ' = λ + μ (see its header); ARAP and symmetric Dirichlet k = E and E/4 (their
         * headers); the fibre keeps κ and the unit direction. */
        weft_element e = unit_element(t, &PARAMS);
        if (t == &weft_anisotropic_fiber_tet) {
            CHECK_NEAR(e.k, KAPPA, 0.0);
            CHECK_NEAR(e.rest[10], 1.0 / 3.0, 1e-15);
            CHECK_NEAR(e.rest[11], 2.0 / 3.0, 1e-15);
            CHECK_NEAR(e.rest[12], 2.0 / 3.0, 1e-15);
        } else {
            double mu = MU;
            if (t == &weft_arap_tet) mu = MU_ARAP;
            if (t == &weft_symmetric_dirichlet_tet) mu = MU_SD;
            CHECK_NEAR(e.k, mu, 1e-12 * mu);
            double l = t == &weft_stable_neo_hookean_tet ? LAMBDA + MU : LAMBDA;
            CHECK_NEAR(e.k2, l, 1e-12 * l);
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* Kinematics                                                                      */
/* ------------------------------------------------------------------------------ */

static void test_kinematics(void) {
    /* Rest data of a right-angled tetrahedron with legs 2, 3, 4 along the axes:
     * Dm = diag(2, 3, 4), so Dm⁻¹ = diag(1/2, 1/3, 1/4) and W = 2·3·4/6 = 4 m³. Swapping
     * two vertices reverses the orientation (det Dm < 0) but not the volume. */
    double xr[12] = {1, 1, 1, 3, 1, 1, 1, 4, 1, 1, 1, 5};
    weft_element e = {.v = {0, 1, 2, 3}};
    CHECK(weft_fem_tet_rest(&e, xr));
    const double dinv[9] = {0.5, 0, 0, 0, 1.0 / 3.0, 0, 0, 0, 0.25};
    CHECK(max_diff(e.rest, dinv, 9) <= 1e-16);
    CHECK_NEAR(e.rest[9], 4.0, 1e-14);
    double xs[12];
    memcpy(xs, xr, sizeof xs);
    for (int k = 0; k < 3; k++) xs[3 + k] = xr[6 + k], xs[6 + k] = xr[3 + k];
    CHECK(weft_fem_tet_rest(&e, xs));
    CHECK_NEAR(e.rest[9], 4.0, 1e-14);

    /* Degenerate rest shapes: coplanar vertices, and two coincident vertices. */
    double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.3, 0};
    double coinc[12] = {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int k = 0; k < 2; k++) {
        weft_element d = {.rest = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
        CHECK(!weft_fem_tet_rest(&d, k == 0 ? flat : coinc));
        CHECK(all_zero(d.rest, 10));
    }

    lcg g = {71};
    for (int trial = 0; trial < 50; trial++) {
        rest_tet(&g, xr);
        CHECK(weft_fem_tet_rest(&e, xr));
        /* F of an affine motion x = M X + t is M: F = Ds Dm⁻¹ = M Dm Dm⁻¹. Coordinates up
         * to ~6 m round by ~1e-15, and ‖Dm⁻¹‖ ≤ 1/(0.1 L) ≤ 20/m: 1e-12. */
        double M[9], t[3], x[12], F[9];
        sample_F(&g, trial % FAM_COUNT, M);
        for (int k = 0; k < 3; k++) t[k] = rnd_in(&g, -2.0, 2.0);
        affine(M, t, xr, x);
        weft_fem_tet_F(&e, x, F);
        CHECK(max_diff(F, M, 9) <= 1e-12 * (1.0 + max_abs(M, 9)));

        /* Brute force: B = ∂vec(F)/∂x column by column (F is linear and homogeneous in
         * x, so F at the unit vector e_j is column j exactly), then g = W Bᵀ vec(P) and
         * H = W Bᵀ A B by dense products, against the sparse kernels. */
        double B[9][12];
        for (int j = 0; j < 12; j++) {
            double ej[12] = {0}, Fj[9];
            ej[j] = 1.0;
            weft_fem_tet_F(&e, ej, Fj);
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++) B[3 * c + r][j] = Fj[3 * r + c];
        }
        double P[9], A[81], gk[12], gb[12], Hk[144], Hb[144];
        for (int i = 0; i < 9; i++) P[i] = rnd_in(&g, -1.0, 1.0);
        for (int i = 0; i < 9; i++)
            for (int j = 0; j <= i; j++) A[9 * i + j] = A[9 * j + i] = rnd_in(&g, -1.0, 1.0);
        weft_fem_tet_gradient(&e, P, gk);
        weft_fem_tet_hessian(&e, A, Hk);
        double W = e.rest[9];
        for (int j = 0; j < 12; j++) {
            double s = 0.0;
            for (int i = 0; i < 9; i++) s += B[i][j] * P[3 * (i % 3) + i / 3]; /* vec(P)_i */
            gb[j] = W * s;
        }
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++) {
                double s = 0.0;
                for (int m = 0; m < 9; m++)
                    for (int n = 0; n < 9; n++) s += B[m][i] * A[9 * m + n] * B[n][j];
                Hb[12 * i + j] = W * s;
            }
        /* Same sums in another order: a few ulps of the largest terms, 1e-13 relative. */
        CHECK(max_diff(gk, gb, 12) <= 1e-13 * max_abs(gb, 12));
        CHECK(max_diff(Hk, Hb, 144) <= 1e-13 * max_abs(Hb, 144));
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++) CHECK(Hk[12 * i + j] == Hk[12 * j + i]);
    }
}

/* ------------------------------------------------------------------------------ */
/* Rotation-variant SVD                                                            */
/* ------------------------------------------------------------------------------ */

/* Checks F = U diag(s) Vᵀ with U, V proper rotations and the sign convention. */
static void check_svd(const double *F, const char *what) {
    double U[9], s[3], V[9], US[9], Vt[9], R[9], UtU[9], VtV[9], Ut[9];
    weft_svd3_rv(F, U, s, V);
    double nf = max_abs(F, 9);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) US[3 * r + c] = U[3 * r + c] * s[c];
    transpose3(V, Vt);
    mul3(US, Vt, R);
    transpose3(U, Ut);
    mul3(Ut, U, UtU);
    mul3(Vt, V, VtV);
    const double ID[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    /* A backward-stable SVD reproduces F to a few ε ‖F‖; orthogonality to a few ε. */
    bool ok = max_diff(R, F, 9) <= 1e-12 * nf && max_diff(UtU, ID, 9) <= 1e-13 &&
              max_diff(VtV, ID, 9) <= 1e-13 && fabs(det3(U) - 1.0) <= 1e-13 &&
              fabs(det3(V) - 1.0) <= 1e-13;
    /* Sorted by magnitude; only the last may be negative, and it is when det F < 0. */
    ok &= s[0] >= 0.0 && s[1] >= 0.0 && s[0] >= s[1] && s[1] >= fabs(s[2]);
    double d = det3(F);
    if (fabs(d) > 1e-10 * nf * nf * nf) ok &= (d < 0.0) == (s[2] < 0.0);
    if (!ok)
        fprintf(stderr, "svd3_rv %s: s = (%.17g, %.17g, %.17g), det F = %.3g, err %.3g\n", what,
                s[0], s[1], s[2], d, max_diff(R, F, 9));
    CHECK(ok);
}

static void test_svd3_rv(void) {
    lcg g = {3};
    /* Random matrices of either determinant sign. */
    for (int trial = 0; trial < 200; trial++) {
        double F[9];
        for (int i = 0; i < 9; i++) F[i] = rnd_in(&g, -1.0, 1.0);
        check_svd(F, "random");
    }
    /* Known signed singular values: s must reproduce them (sorted by magnitude, the
     * sign of det F on the smallest) to a few ε of the largest. */
    const double sets[][3] = {{1.5, 0.9, 0.4},  {1.5, 0.9, -0.4},          {2.0, 2.0, 2.0},
                              {1.0, 1.0, -1.0}, {3.0, 1e-9, 0.0},          {0.0, 0.0, 0.0},
                              {1.0, 0.5, -0.5}, {1e-150, 5e-151, -1e-151}, {1e150, 1.0, -1e-150}};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        for (int trial = 0; trial < 10; trial++) {
            double F[9], U[9], s[3], V[9];
            F_from_sigma(&g, sets[k], F);
            check_svd(F, "known");
            weft_svd3_rv(F, U, s, V);
            double smax = fabs(sets[k][0]);
            for (int i = 0; i < 3; i++) CHECK_NEAR(fabs(s[i]), fabs(sets[k][i]), 1e-14 * smax);
            if (fabs(sets[k][2]) > 1e-12 * smax) CHECK((s[2] < 0.0) == (sets[k][2] < 0.0));
        }
    }
    /* Exact cases: the identity, a reflection, and a rotation by π (det +1 with two
     * negative diagonal entries: all singular values +1). */
    const double ID[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, Z[9] = {-1, 0, 0, 0, -1, 0, 0, 0, 1},
                 M[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1};
    double U[9], s[3], V[9];
    weft_svd3_rv(ID, U, s, V);
    CHECK(s[0] == 1.0 && s[1] == 1.0 && s[2] == 1.0);
    weft_svd3_rv(Z, U, s, V);
    CHECK_NEAR(s[2], 1.0, 1e-15);
    check_svd(Z, "rotation by pi");
    weft_svd3_rv(M, U, s, V);
    CHECK_NEAR(s[2], -1.0, 1e-15);
    check_svd(M, "reflection");
    /* A non-finite F gives NaN singular values (passed on), never a crash. */
    double N[9] = {1, 0, 0, 0, NAN, 0, 0, 0, 1};
    weft_svd3_rv(N, U, s, V);
    CHECK(isnan(s[0]) && isnan(s[1]) && isnan(s[2]));
}

/* ------------------------------------------------------------------------------ */
/* The nine modes                                                                  */
/* ------------------------------------------------------------------------------ */

static void test_project_modes(void) {
    lcg g = {5};
    for (int trial = 0; trial < 30; trial++) {
        double U[9], V[9], E[9], Vt[9];
        rnd_rotation(&g, U);
        rnd_rotation(&g, V);
        rnd_rotation(&g, E); /* eigenvectors of the scaling block, its columns */
        transpose3(V, Vt);
        /* Eigenvalues in [−1, 1]: about half negative. */
        double ls[3], lt[3], lf[3];
        weft_fem_eigen eig;
        for (int k = 0; k < 3; k++) {
            ls[k] = rnd_in(&g, -1.0, 1.0);
            eig.twist[k] = lt[k] = rnd_in(&g, -1.0, 1.0);
            eig.flip[k] = lf[k] = rnd_in(&g, -1.0, 1.0);
        }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double s = 0.0;
                for (int k = 0; k < 3; k++) s += E[3 * i + k] * ls[k] * E[3 * j + k];
                eig.scale[3 * i + j] = s; /* S = E diag(ls) Eᵀ */
            }
        /* The nine modes built here from their definitions: U diag(e_k) Vᵀ and
         * (1/√2) U T Vᵀ, (1/√2) U L Vᵀ with T = e_i e_jᵀ − e_j e_iᵀ, L = e_i e_jᵀ + e_j e_iᵀ
         * for the pairs (0,1), (1,2), (0,2). */
        double q[9][9], lam[9];
        const int pairs[3][2] = {{0, 1}, {1, 2}, {0, 2}};
        for (int m = 0; m < 9; m++) {
            double D[9] = {0}, UD[9], Q[9];
            if (m < 3) {
                for (int k = 0; k < 3; k++) D[4 * k] = E[3 * k + m];
                lam[m] = ls[m];
            } else {
                int p = (m - 3) % 3, i = pairs[p][0], j = pairs[p][1];
                double sign = m < 6 ? -1.0 : 1.0; /* twist, then flip */
                D[3 * i + j] = sqrt(0.5);
                D[3 * j + i] = sign * sqrt(0.5);
                lam[m] = m < 6 ? lt[p] : lf[p];
            }
            mul3(U, D, UD);
            mul3(UD, Vt, Q);
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++) q[m][3 * c + r] = Q[3 * r + c];
        }
        /* They are orthonormal: vec(Q_m)·vec(Q_n) = tr(D_mᵀ D_n) = δ_mn. */
        for (int m = 0; m < 9; m++)
            for (int n = 0; n < 9; n++) {
                double d = 0.0;
                for (int k = 0; k < 9; k++) d += q[m][k] * q[n][k];
                CHECK_NEAR(d, m == n ? 1.0 : 0.0, 1e-14);
            }
        /* So a symmetric A is fixed by its action on them: A q_m = λ_m q_m for the
         * unclamped sum and max(λ_m, 0) q_m for the projection (rounding: 1e-14). */
        double Ap[81], Ae[81];
        weft_fem_project_tet(U, V, &eig, Ap);
        weft_fem_modes_tet(U, V, &eig, Ae);
        for (int m = 0; m < 9; m++)
            for (int i = 0; i < 9; i++) {
                double sp = 0.0, se = 0.0;
                for (int k = 0; k < 9; k++)
                    sp += Ap[9 * i + k] * q[m][k], se += Ae[9 * i + k] * q[m][k];
                CHECK_NEAR(sp, fmax(lam[m], 0.0) * q[m][i], 1e-14);
                CHECK_NEAR(se, lam[m] * q[m][i], 1e-14);
            }
        /* All eigenvalues 1: the modes span everything, A = I₉. */
        weft_fem_eigen one = {
            .scale = {1, 0, 0, 0, 1, 0, 0, 0, 1}, .twist = {1, 1, 1}, .flip = {1, 1, 1}};
        weft_fem_project_tet(U, V, &one, Ap);
        for (int i = 0; i < 9; i++)
            for (int j = 0; j < 9; j++) CHECK_NEAR(Ap[9 * i + j], i == j ? 1.0 : 0.0, 1e-14);
    }
}

/* ------------------------------------------------------------------------------ */
/* Derivatives in F                                                                */
/* ------------------------------------------------------------------------------ */

/* Whether the derivative tests use family fam for type tt: the J > 0 energies only
 * where J > 0. */
static bool family_applies(const tet_type *tt, int fam) {
    return tt->invertible || (fam != FAM_INVERTED && fam != FAM_DEEPLY_INVERTED);
}

/* Whether F is a smooth point of the fibre energy: I4 away from 0 (where S(I4) jumps). */
static bool fiber_smooth(const weft_element *e, const double *F) {
    return fabs(fiber_I4(F, &e->rest[10])) > 0.05;
}

#define FD_TRIALS 12

static void test_first_piola(void) {
    for (const tet_type *tt = TYPES; tt->t; tt++) {
        const weft_energy_type *t = tt->t;
        weft_element e = unit_element(t, &PARAMS);
        lcg g = {100 + (uint64_t)(tt - TYPES)};
        for (int fam = 0; fam < FAM_COUNT; fam++) {
            if (!family_applies(tt, fam)) continue;
            for (int trial = 0; trial < FD_TRIALS; trial++) {
                double F[9], P[9], fd[9];
                double smin = sample_F(&g, fam, F);
                if (t == &weft_anisotropic_fiber_tet && !fiber_smooth(&e, F)) continue;
                double psi = P_at(t, &e, F, P);
                CHECK(isfinite(psi) && all_finite(P, 9));
                CHECK(psi == psi_at(t, &e, F)); /* gradient() returns the same Ψ */
                /* Central differences with h = 1e-5 σ_min: ψ varies on the scale σ_min,
                 * so the truncation error is ~(h/σ_min)² = 1e-10 relative. Rounding: ψ
                 * carries ~ε ψ, and the FD divides it by h; where |P| ~ ψ/σ_min that is
                 * ~1e-11 relative, near a flat F (σ_min = 1e-3) |P| can be as small as ψ
                 * and it grows to ε/h ~ 1e-8 (measured: up to 1e-7). 1e-6 relative to
                 * max|P| still separates this from a wrong term, which is O(1). */
                double h = 1e-5 * smin;
                for (int i = 0; i < 9; i++) {
                    double Fp[9], Fm[9];
                    memcpy(Fp, F, sizeof Fp);
                    memcpy(Fm, F, sizeof Fm);
                    Fp[i] += h, Fm[i] -= h;
                    fd[i] = (psi_at(t, &e, Fp) - psi_at(t, &e, Fm)) / (2.0 * h);
                }
                double err = max_diff(P, fd, 9), scale = max_abs(P, 9);
                if (!(err <= 1e-6 * scale))
                    fprintf(stderr, "%s %s trial %d: |P - FD| %.3g, |P| %.3g\n", t->name,
                            FAM_NAMES[fam], trial, err, scale);
                CHECK(scale > 0.0 && err <= 1e-6 * scale);
            }
        }
    }
}

static void test_hessian_F(void) {
    for (const tet_type *tt = TYPES; tt->t; tt++) {
        const weft_energy_type *t = tt->t;
        weft_element e = unit_element(t, &PARAMS);
        lcg g = {200 + (uint64_t)(tt - TYPES)};
        for (int fam = 0; fam < FAM_COUNT; fam++) {
            if (!family_applies(tt, fam)) continue;
            for (int trial = 0; trial < FD_TRIALS; trial++) {
                double F[9], A[81], fd[81];
                double smin = sample_F(&g, fam, F);
                if (t == &weft_anisotropic_fiber_tet && !fiber_smooth(&e, F)) continue;
                A_at(t, &e, F, WEFT_HESSIAN_EXACT, A);
                CHECK(all_finite(A, 81));
                /* Column 3c + r of ∂²ψ/∂F² is ∂vec(P)/∂F_rc: central differences of P with
                 * h = 3e-5 σ_min. Truncation ~(h/σ_min)² ~ 1e-9. Rounding: near a flat F,
                 * P itself is accurate only to δ ~ ε/σ_min relative (J = det F carries an
                 * absolute error ~ε‖F‖³ whatever the formula), so the FD error is δ|P|/h
                 * against |A| ~ |P|/σ_min, i.e. δ σ_min/h = ε/(3e-5 σ_min) ~ 3e-9 relative
                 * at σ_min = 1e-3. 1e-6 relative to max|A| as for P. */
                double h = 3e-5 * smin;
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++) {
                        double Fp[9], Fm[9], Pp[9], Pm[9];
                        memcpy(Fp, F, sizeof Fp);
                        memcpy(Fm, F, sizeof Fm);
                        Fp[3 * r + c] += h, Fm[3 * r + c] -= h;
                        P_at(t, &e, Fp, Pp);
                        P_at(t, &e, Fm, Pm);
                        for (int qq = 0; qq < 3; qq++)
                            for (int p = 0; p < 3; p++)
                                fd[9 * (3 * qq + p) + 3 * c + r] =
                                    (Pp[3 * p + qq] - Pm[3 * p + qq]) / (2.0 * h);
                    }
                double err = max_diff(A, fd, 81), scale = max_abs(A, 81);
                if (!(err <= 1e-6 * scale))
                    fprintf(stderr, "%s %s trial %d: |A - FD| %.3g, |A| %.3g\n", t->name,
                            FAM_NAMES[fam], trial, err, scale);
                CHECK(scale > 0.0 && err <= 1e-6 * scale);
                /* The exact Hessian is symmetric (a second derivative): to rounding. */
                double asym = 0.0;
                for (int i = 0; i < 9; i++)
                    for (int j = 0; j < 9; j++)
                        asym = fmax(asym, fabs(A[9 * i + j] - A[9 * j + i]));
                CHECK(asym <= 1e-13 * scale);
            }
        }
    }
}

static void test_analytic_vs_clamp(void) {
    for (const tet_type *tt = TYPES; tt->t; tt++) {
        const weft_energy_type *t = tt->t;
        weft_element e = unit_element(t, &PARAMS);
        lcg g = {300 + (uint64_t)(tt - TYPES)};
        int indefinite = 0;
        for (int fam = 0; fam < FAM_COUNT; fam++) {
            if (!family_applies(tt, fam)) continue;
            for (int trial = 0; trial < 20; trial++) {
                double F[9], Aa[81], Ac[81], Ae[81];
                sample_F(&g, fam, F);
                A_at(t, &e, F, WEFT_HESSIAN_EXACT, Ae);
                A_at(t, &e, F, WEFT_HESSIAN_ANALYTIC, Aa);
                A_at(t, &e, F, WEFT_HESSIAN_CLAMP, Ac);
                CHECK(all_finite(Aa, 81) && all_finite(Ac, 81));
                double scale = max_abs(Ae, 81);
                indefinite += min_eigenvalue(Ae, 9) < -1e-10 * scale;
                if (!t->analytic_psd) {
                    /* No eigensystem: ANALYTIC is CLAMP, bit for bit. */
                    CHECK(memcmp(Aa, Ac, sizeof Aa) == 0);
                    continue;
                }
                /* The projection is unique (the PSD part of a symmetric matrix), so the
                 * closed-form eigensystem and dsyevr on the exact Hessian must agree up to
                 * the eigensolver's backward error, a few ε max|A|: 1e-8 is generous and
                 * any wrong eigenvalue or mode shows at O(1). */
                double err = max_diff(Aa, Ac, 81);
                if (!(err <= 1e-8 * scale))
                    fprintf(stderr, "%s %s trial %d: |analytic - clamp| %.3g, |A| %.3g\n", t->name,
                            FAM_NAMES[fam], trial, err, scale);
                CHECK(err <= 1e-8 * scale);
            }
        }
        /* The comparison means something only if clamping had work to do. */
        if (indefinite == 0) fprintf(stderr, "%s: no indefinite sample\n", t->name);
        CHECK(indefinite > 0);
    }
}

/* ------------------------------------------------------------------------------ */
/* Vertex space                                                                    */
/* ------------------------------------------------------------------------------ */

static void test_vertex_fd(void) {
    const int fams[] = {FAM_MODERATE, FAM_ONE_SQUASHED, FAM_COMPRESSED, FAM_INVERTED};
    for (const tet_type *tt = TYPES; tt->t; tt++) {
        const weft_energy_type *t = tt->t;
        lcg g = {400 + (uint64_t)(tt - TYPES)};
        for (int k = 0; k < 4; k++) {
            if (!family_applies(tt, fams[k])) continue;
            for (int trial = 0; trial < 8; trial++) {
                double xr[12], x[12], F[9], tr[3], gx[12], fd[12], H[144], fdH[144];
                double L = rest_tet(&g, xr);
                weft_element e = {.v = {0, 1, 2, 3}};
                t->init(&e, xr, &PARAMS);
                double smin = sample_F(&g, fams[k], F);
                for (int i = 0; i < 3; i++) tr[i] = rnd_in(&g, -1.0, 1.0);
                affine(F, tr, xr, x);
                if (t == &weft_anisotropic_fiber_tet && !fiber_smooth(&e, F)) continue;
                double psi = t->gradient(&e, x, gx);
                CHECK(isfinite(psi) && psi > 0.0);
                /* Ψ(x) varies on the scale L σ_min / 20 (‖Dm⁻¹‖ ≤ 20/L): truncation
                 * ~(20 h/(L σ_min))² = 4e-8 relative with h = 1e-5 L σ_min. Rounding: the
                 * positions (up to ~5 m) carry ~1e-15 m, which moves F by ~2e-14/L and Ψ
                 * by that times |P| W, i.e. ~2e-14/(L σ_min) of Ψ's scale per FD step of
                 * h: ~1e-9 relative. Both well below 1e-6. */
                double h = 1e-5 * L * smin;
                for (int i = 0; i < 12; i++) {
                    double xp[12], xm[12], gp[12], gm[12];
                    memcpy(xp, x, sizeof xp);
                    memcpy(xm, x, sizeof xm);
                    xp[i] += h, xm[i] -= h;
                    fd[i] = (t->energy(&e, xp) - t->energy(&e, xm)) / (2.0 * h);
                    t->gradient(&e, xp, gp);
                    t->gradient(&e, xm, gm);
                    for (int j = 0; j < 12; j++) fdH[12 * j + i] = (gp[j] - gm[j]) / (2.0 * h);
                }
                double gs = max_abs(gx, 12);
                if (!(max_diff(gx, fd, 12) <= 1e-6 * gs))
                    fprintf(stderr, "%s %s trial %d: |g - FD| %.3g, |g| %.3g\n", t->name,
                            FAM_NAMES[fams[k]], trial, max_diff(gx, fd, 12), gs);
                CHECK(max_diff(gx, fd, 12) <= 1e-6 * gs);
                double gh[12];
                double psih = t->hessian(&e, x, WEFT_HESSIAN_EXACT, gh, H);
                CHECK(psih == psi);
                CHECK(memcmp(gh, gx, sizeof gh) == 0); /* hessian() fills the same g */
                double hs = max_abs(H, 144), err = max_diff(H, fdH, 144);
                if (!(err <= 1e-6 * hs))
                    fprintf(stderr, "%s %s trial %d: |H - FD| %.3g, |H| %.3g\n", t->name,
                            FAM_NAMES[fams[k]], trial, err, hs);
                CHECK(err <= 1e-6 * hs);
                for (int m = 0; m < 3; m++) {
                    t->hessian(&e, x, MODES[m], NULL, H);
                    /* Symmetric, and blind to translations: Σ_b H_{(a,r),(b,s)} = 0, since
                     * b_0 = −(b_1 + b_2 + b_3); rounding 1e-13 of max|H|. */
                    hs = max_abs(H, 144);
                    for (int i = 0; i < 12; i++) {
                        for (int j = 0; j < 12; j++) CHECK(H[12 * i + j] == H[12 * j + i]);
                        for (int s = 0; s < 3; s++) {
                            double sum = 0.0;
                            for (int b = 0; b < 4; b++) sum += H[12 * i + 3 * b + s];
                            CHECK(fabs(sum) <= 1e-13 * hs * 4);
                        }
                    }
                    /* The projected Hessians are PSD: H = W Bᵀ A B with A PSD. The
                     * eigensolver's error is ~ε max|H| per entry: −1e-12 max|H|. */
                    if (MODES[m] != WEFT_HESSIAN_EXACT)
                        CHECK(min_eigenvalue(H, 12) >= -1e-12 * 12 * hs);
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* Closed forms                                                                    */
/* ------------------------------------------------------------------------------ */

/* Checks ψ and P of type t at F against the expected values: a handful of roundings of
 * O(1)-relative quantities, so 1e-12 relative to the stress scale (μ + λ + κ). */
static void check_closed(const weft_energy_type *t, const weft_element *e, const double *F,
                         double psi_expected, const double *P_expected, const char *what) {
    double P[9];
    double psi = P_at(t, e, F, P);
    double tol = 1e-12 * (MU + LAMBDA + KAPPA);
    bool ok = fabs(psi - psi_expected) <= tol && max_diff(P, P_expected, 9) <= tol;
    if (!ok)
        fprintf(stderr, "%s %s: psi %.17g expected %.17g; |P - expected| %.3g\n", t->name, what,
                psi, psi_expected, max_diff(P, P_expected, 9));
    CHECK(ok);
}

static void diag3(double a, double b, double c, double *M) {
    double D[9] = {a, 0, 0, 0, b, 0, 0, 0, c};
    memcpy(M, D, sizeof D);
}

static void test_closed_forms(void) {
    const double mu = MU, la = LAMBDA, lp = LAMBDA + MU, ka = KAPPA, ma = MU_ARAP, msd = MU_SD;
    const double s_uni[] = {0.5, 1.3, 2.0};
    const double s_iso[] = {0.7, 1.2};
    double F[9], P[9];
    weft_element e;

    /* Uniaxial stretch F = diag(s, 1, 1): I_C = s² + 2, J = s, cof F = diag(1, s, s),
     * F⁻ᵀ = diag(1/s, 1, 1), E = diag((s² − 1)/2, 0, 0); the SVD is (s, 1, 1) with R = I.
     * Uniform scaling F = s I: I_C = 3s², J = s³, cof F = s² I, F⁻ᵀ = I/s,
     * E = (s² − 1)/2 I. Each P below is ∂ψ/∂F from the file's formula evaluated on these,
     * and agrees with d/ds of the ψ below (uniaxial: P_00 = dψ/ds; uniform: tr P = dψ/ds). */
    for (int k = 0; k < 3; k++) {
        double s = s_uni[k], l = log(s);
        diag3(s, 1, 1, F);
        /* StVK: ψ = μ (s² − 1)²/4 + λ/2 ((s² − 1)/2)² = (2μ + λ)(s² − 1)²/8;
         * P = F S, S = 2μE + λ tr(E) I = diag((μ + λ/2)(s² − 1), λ(s² − 1)/2, same). */
        e = unit_element(&weft_stvk_tet, &PARAMS);
        diag3(s * (s * s - 1) * (mu + la / 2), la * (s * s - 1) / 2, la * (s * s - 1) / 2, P);
        check_closed(&weft_stvk_tet, &e, F, (2 * mu + la) * (s * s - 1) * (s * s - 1) / 8, P,
                     "uniaxial");
        /* Neo-Hookean: ψ = μ/2 (s² − 1) − μ log s + λ/2 log² s;
         * P = μF + (λ log s − μ) F⁻ᵀ = diag(μs + (λ log s − μ)/s, λ log s, λ log s). */
        e = unit_element(&weft_neo_hookean_tet, &PARAMS);
        diag3(mu * s + (la * l - mu) / s, la * l, la * l, P);
        check_closed(&weft_neo_hookean_tet, &e, F, mu / 2 * (s * s - 1) - mu * l + la / 2 * l * l,
                     P, "uniaxial");
        /* Stable Neo-Hookean (λ' = λ + μ): ψ = μ/2 (s² − 1) − μ(s − 1) + λ'/2 (s − 1)²;
         * P = μF + (λ'(s − 1) − μ) cof F = diag(μs + λ'(s − 1) − μ, μ + (λ'(s − 1) − μ)s, same). */
        e = unit_element(&weft_stable_neo_hookean_tet, &PARAMS);
        double b = lp * (s - 1) - mu;
        diag3(mu * s + b, mu + b * s, mu + b * s, P);
        check_closed(&weft_stable_neo_hookean_tet, &e, F,
                     mu / 2 * (s * s - 1) - mu * (s - 1) + lp / 2 * (s - 1) * (s - 1), P,
                     "uniaxial");
        /* ARAP: ψ = μ/2 (s − 1)², P = μ(F − I). */
        e = unit_element(&weft_arap_tet, &PARAMS);
        diag3(ma * (s - 1), 0, 0, P);
        check_closed(&weft_arap_tet, &e, F, ma / 2 * (s - 1) * (s - 1), P, "uniaxial");
        /* Symmetric Dirichlet: ψ = μ/2 (s² + s⁻² − 2), P = μ(F − F⁻ᵀF⁻¹F⁻ᵀ) =
         * diag(μ(s − s⁻³), 0, 0). */
        e = unit_element(&weft_symmetric_dirichlet_tet, &PARAMS);
        diag3(msd * (s - 1 / (s * s * s)), 0, 0, P);
        check_closed(&weft_symmetric_dirichlet_tet, &e, F, msd / 2 * (s * s + 1 / (s * s) - 2), P,
                     "uniaxial");
        /* Fibre along x (p->fiber = (2, 0, 0), normalised to e_x): I5 = s², I4 = s > 0,
         * ψ = κ/2 (s − 1)², P = κ(1 − 1/s) F a aᵀ = diag(κ(s − 1), 0, 0). Along y
         * (p->fiber = (0, 3, 0)): F a = a, ψ = 0, P = 0. */
        weft_energy_params px = PARAMS, py = PARAMS;
        px.fiber[0] = 2, px.fiber[1] = 0, px.fiber[2] = 0;
        py.fiber[0] = 0, py.fiber[1] = 3, py.fiber[2] = 0;
        e = unit_element(&weft_anisotropic_fiber_tet, &px);
        diag3(ka * (s - 1), 0, 0, P);
        check_closed(&weft_anisotropic_fiber_tet, &e, F, ka / 2 * (s - 1) * (s - 1), P,
                     "uniaxial along the fibre");
        e = unit_element(&weft_anisotropic_fiber_tet, &py);
        diag3(0, 0, 0, P);
        check_closed(&weft_anisotropic_fiber_tet, &e, F, 0.0, P, "uniaxial across the fibre");
    }
    for (int k = 0; k < 2; k++) {
        double s = s_iso[k], l = log(s), s3 = s * s * s;
        diag3(s, s, s, F);
        /* StVK: ‖E‖² = 3(s² − 1)²/4, tr E = 3(s² − 1)/2:
         * ψ = (3μ/4 + 9λ/8)(s² − 1)², P = s(s² − 1)(μ + 3λ/2) I. */
        e = unit_element(&weft_stvk_tet, &PARAMS);
        double p = s * (s * s - 1) * (mu + 1.5 * la);
        diag3(p, p, p, P);
        check_closed(&weft_stvk_tet, &e, F, (0.75 * mu + 1.125 * la) * (s * s - 1) * (s * s - 1), P,
                     "uniform");
        /* Neo-Hookean: log J = 3 log s, ψ = 3μ/2 (s² − 1) − 3μ log s + 9λ/2 log² s,
         * P = (μs + (3λ log s − μ)/s) I. */
        e = unit_element(&weft_neo_hookean_tet, &PARAMS);
        p = mu * s + (3 * la * l - mu) / s;
        diag3(p, p, p, P);
        check_closed(&weft_neo_hookean_tet, &e, F,
                     1.5 * mu * (s * s - 1) - 3 * mu * l + 4.5 * la * l * l, P, "uniform");
        /* Stable Neo-Hookean: ψ = 3μ/2 (s² − 1) − μ(s³ − 1) + λ'/2 (s³ − 1)²,
         * P = (μs + (λ'(s³ − 1) − μ) s²) I. */
        e = unit_element(&weft_stable_neo_hookean_tet, &PARAMS);
        p = mu * s + (lp * (s3 - 1) - mu) * s * s;
        diag3(p, p, p, P);
        check_closed(&weft_stable_neo_hookean_tet, &e, F,
                     1.5 * mu * (s * s - 1) - mu * (s3 - 1) + lp / 2 * (s3 - 1) * (s3 - 1), P,
                     "uniform");
        /* ARAP: ψ = 3μ/2 (s − 1)², P = μ(s − 1) I. */
        e = unit_element(&weft_arap_tet, &PARAMS);
        p = ma * (s - 1);
        diag3(p, p, p, P);
        check_closed(&weft_arap_tet, &e, F, 1.5 * ma * (s - 1) * (s - 1), P, "uniform");
        /* Symmetric Dirichlet: ψ = 3μ/2 (s² + s⁻² − 2), P = μ(s − s⁻³) I. */
        e = unit_element(&weft_symmetric_dirichlet_tet, &PARAMS);
        p = msd * (s - 1 / s3);
        diag3(p, p, p, P);
        check_closed(&weft_symmetric_dirichlet_tet, &e, F, 1.5 * msd * (s * s + 1 / (s * s) - 2), P,
                     "uniform");
        /* Fibre a = (1, 2, 2)/3: F a = s a, I5 = s², I4 = s: ψ = κ/2 (s − 1)²,
         * P = κ(1 − 1/s) s a aᵀ = κ(s − 1) a aᵀ. */
        e = unit_element(&weft_anisotropic_fiber_tet, &PARAMS);
        const double a[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3};
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) P[3 * r + c] = ka * (s - 1) * a[r] * a[c];
        check_closed(&weft_anisotropic_fiber_tet, &e, F, ka / 2 * (s - 1) * (s - 1), P, "uniform");
    }

    /* Inverted: F = diag(−1/2, 1, 1) (x0 column reflected and halved). Its rotation-variant
     * SVD is (1, 1, −1/2) with R = I: S = RᵀF = F is symmetric with eigenvalues 1, 1, −1/2.
     * Stable Neo-Hookean and StVK are polynomials, so their uniaxial formulas above hold for
     * s = −1/2 too. ARAP: ψ = μ/2 (−1/2 − 1)² = 9μ/8, P = μ(F − I) = diag(−3μ/2, 0, 0).
     * Fibre along x: I4 = aᵀSa = −1/2 < 0, so S(I4) = −1 and ψ = κ/2 (1/2 + 1)² = 9κ/8,
     * P = κ(1 + 1/√I5) F a aᵀ = 3κ diag(−1/2, 0, 0). */
    {
        double s = -0.5, b = lp * (s - 1) - mu;
        diag3(s, 1, 1, F);
        e = unit_element(&weft_stvk_tet, &PARAMS);
        diag3(s * (s * s - 1) * (mu + la / 2), la * (s * s - 1) / 2, la * (s * s - 1) / 2, P);
        check_closed(&weft_stvk_tet, &e, F, (2 * mu + la) * (s * s - 1) * (s * s - 1) / 8, P,
                     "inverted");
        e = unit_element(&weft_stable_neo_hookean_tet, &PARAMS);
        diag3(mu * s + b, mu + b * s, mu + b * s, P);
        check_closed(&weft_stable_neo_hookean_tet, &e, F,
                     mu / 2 * (s * s - 1) - mu * (s - 1) + lp / 2 * (s - 1) * (s - 1), P,
                     "inverted");
        e = unit_element(&weft_arap_tet, &PARAMS);
        diag3(-1.5 * ma, 0, 0, P);
        check_closed(&weft_arap_tet, &e, F, 9.0 / 8.0 * ma, P, "inverted");
        weft_energy_params px = PARAMS;
        px.fiber[0] = 2, px.fiber[1] = 0, px.fiber[2] = 0;
        e = unit_element(&weft_anisotropic_fiber_tet, &px);
        diag3(-1.5 * ka, 0, 0, P);
        check_closed(&weft_anisotropic_fiber_tet, &e, F, 9.0 / 8.0 * ka, P, "inverted fibre");
    }
    /* The reflection goes to the smallest singular value. F = diag(−2, 1, 1/2) has
     * signed singular values (2, 1, −1/2) and polar rotation R = diag(−1, 1, −1) (a half
     * turn about y; RᵀF = diag(2, 1, −1/2) is symmetric): ARAP ψ = μ/2 (1 + 0 + 9/4) =
     * 13μ/8 and P = μ(F − R) = μ diag(−1, 0, 3/2). Putting the sign on σ = 2 instead
     * would give ψ = μ/2 (9 + 0 + 1/4). */
    diag3(-2, 1, 0.5, F);
    e = unit_element(&weft_arap_tet, &PARAMS);
    diag3(-ma, 0, 1.5 * ma, P);
    check_closed(&weft_arap_tet, &e, F, 13.0 / 8.0 * ma, P, "reflection on the smallest");

    /* The element's real W: the unit tetrahedron has W = 1/6 m³, so Ψ = ψ/6 (J). */
    weft_element u = {.v = {0, 1, 2, 3}};
    const double xr[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    weft_stvk_tet.init(&u, xr, &PARAMS);
    double x[12];
    diag3(2.0, 1, 1, F);
    positions_of_F(F, x);
    CHECK_NEAR(weft_stvk_tet.energy(&u, x), (2 * mu + la) * 9.0 / 8.0 / 6.0, 1e-12 * mu);
}

/* ------------------------------------------------------------------------------ */
/* Rest state                                                                      */
/* ------------------------------------------------------------------------------ */

static void test_rest_state(void) {
    lcg g = {600};
    for (const tet_type *tt = TYPES; tt->t; tt++) {
        const weft_energy_type *t = tt->t;
        double scale = t == &weft_anisotropic_fiber_tet ? KAPPA : MU + LAMBDA;
        for (int trial = 0; trial < 20; trial++) {
            double xr[12], gr[12], H[144];
            double L = rest_tet(&g, xr);
            weft_element e = {.v = {0, 1, 2, 3}};
            t->init(&e, xr, &PARAMS);
            double W = e.rest[9];
            /* At rest F = I up to rounding (~1e-16), so ψ = O(1e-16) of the stress scale at
             * worst (terms linear in F − I cancel to rounding), and ∇Ψ = W P b with
             * P = O(1e-16 scale), |b| ≲ 20/L: bounds 1e-13 W scale and 1e-12 W scale/L. */
            CHECK(fabs(t->energy(&e, xr)) <= 1e-13 * W * scale);
            double psi = t->gradient(&e, xr, gr);
            CHECK(fabs(psi) <= 1e-13 * W * scale);
            CHECK(max_abs(gr, 12) <= 1e-12 * W * scale / L);
            /* The rest is a minimum: every Hessian mode gives a PSD H there (eigenvalues
             * above −1e-12 max|H|, the eigensolver's resolution). */
            for (int m = 0; m < 3; m++) {
                t->hessian(&e, xr, MODES[m], NULL, H);
                CHECK(min_eigenvalue(H, 12) >= -1e-12 * max_abs(H, 144));
            }
        }
        /* ∂²ψ/∂F² at F = I, the small-strain elasticity tensor. Expanding ψ(I + H) to
         * second order (the files' headers) gives
         *   stvk, neo_hookean, stable_neo_hookean: μ‖sym H‖² + λ/2 (tr H)², linear
         *     elasticity with the Lamé constants of (E, ν) — for stable Neo-Hookean only
         *     because it stores λ' = λ + μ;
         *   arap: μ/2 ‖sym H‖²;   symmetric_dirichlet: 2μ ‖sym H‖²;
         *   fibre: κ/2 (aᵀ H a)² (√I5 − 1 ≈ aᵀ H a).
         * With ‖sym H‖² = ½ (H : H + H : Hᵀ), the Hessian entry in row 3q + p, column
         * 3c + r is G (δ_pr δ_qc + δ_pc δ_qr) + Λ δ_pq δ_rc with (G, Λ) = (μ, λ), (μ/2, 0)
         * and (2μ, 0), and κ a_p a_q a_r a_c for the fibre. ARAP's μ = E and symmetric
         * Dirichlet's μ = E/4 both give G = E/2, Λ = 0: Young's modulus E, ν = 0. */
        weft_element e = unit_element(t, &PARAMS);
        double G = MU, Lam = LAMBDA;
        if (t == &weft_arap_tet) G = MU_ARAP / 2, Lam = 0;
        if (t == &weft_symmetric_dirichlet_tet) G = 2 * MU_SD, Lam = 0;
        const double ID[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, *a = &e.rest[10];
        double A[81], C[81];
        for (int q = 0; q < 3; q++)
            for (int p = 0; p < 3; p++)
                for (int c = 0; c < 3; c++)
                    for (int r = 0; r < 3; r++)
                        C[9 * (3 * q + p) + 3 * c + r] =
                            t == &weft_anisotropic_fiber_tet
                                ? KAPPA * a[p] * a[q] * a[r] * a[c]
                                : G * (ID[3 * p + r] * ID[3 * q + c] +
                                       ID[3 * p + c] * ID[3 * q + r]) +
                                      Lam * ID[3 * p + q] * ID[3 * r + c];
        for (int m = 0; m < 3; m++) {
            /* PSD at rest, so every mode returns the same tensor (to rounding). */
            A_at(t, &e, ID, MODES[m], A);
            double err = max_diff(A, C, 81);
            if (!(err <= 1e-12 * scale))
                fprintf(stderr, "%s mode %d: rest tensor off by %.3g\n", t->name, m, err);
            CHECK(err <= 1e-12 * scale);
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* Inverted and degenerate elements                                                */
/* ------------------------------------------------------------------------------ */

/* Energy, gradient and all Hessian modes of t at x: never NaN; +INFINITY with zero g and
 * H for the J > 0 energies when `outside`, finite values otherwise. Returns Ψ. */
static double check_robust(const weft_energy_type *t, const weft_element *e, const double *x,
                           bool outside, const char *what) {
    double g[12], gh[12], H[144];
    double psi = t->energy(e, x), psig = t->gradient(e, x, g);
    bool ok = !isnan(psi) && (psig == psi || (isinf(psi) && isinf(psig)));
    if (outside)
        ok &= isinf(psi) && psi > 0.0 && all_zero(g, 12);
    else
        ok &= isfinite(psi) && all_finite(g, 12);
    for (int m = 0; m < 3; m++) {
        double psih = t->hessian(e, x, MODES[m], gh, H);
        ok &= psih == psi || (isinf(psi) && isinf(psih));
        if (outside)
            ok &= all_zero(gh, 12) && all_zero(H, 144);
        else
            ok &= all_finite(gh, 12) && all_finite(H, 144);
    }
    if (!ok) fprintf(stderr, "%s %s: psi %.17g\n", t->name, what, psi);
    CHECK(ok);
    return psi;
}

static void test_inversion(void) {
    lcg g = {700};
    for (const tet_type *tt = TYPES; tt->t; tt++) {
        const weft_energy_type *t = tt->t;
        for (int trial = 0; trial < 10; trial++) {
            double xr[12], x[12];
            rest_tet(&g, xr);
            weft_element e = {.v = {0, 1, 2, 3}};
            t->init(&e, xr, &PARAMS);
            /* Inverted: vertex 3 mirrored through the plane of the other three (det F =
             * −1). Neo-Hookean and symmetric Dirichlet say +∞; the others stay finite
             * and their projected Hessians stay PSD. */
            double n[3], d1[3], d2[3], d3[3];
            for (int k = 0; k < 3; k++)
                d1[k] = xr[3 + k] - xr[k], d2[k] = xr[6 + k] - xr[k], d3[k] = xr[9 + k] - xr[k];
            cross3(d1, d2, n);
            double nn = dot3(n, n), h = dot3(d3, n) / nn;
            memcpy(x, xr, sizeof x);
            for (int k = 0; k < 3; k++) x[9 + k] -= 2.0 * h * n[k];
            double psi = check_robust(t, &e, x, !tt->invertible, "inverted");
            double W = e.rest[9], F[9];
            weft_fem_tet_F(&e, x, F);
            if (tt->invertible) {
                /* F is a reflection: FᵀF = I, J = −1, σ = (1, 1, −1). StVK sees only FᵀF
                 * and cannot tell the mirror image from the rest shape: ψ = 0. Stable
                 * Neo-Hookean: μ/2 (3 − 3) − μ(−2) + λ'/2 (−2)² = 2μ + 2λ'. ARAP:
                 * μ/2 (−1 − 1)² = 2μ. Fibre: I5 = 1, and I4 = aᵀSa tells whether the
                 * mirror turned the fibre around: ψ = κ/2 (1 + 1)² = 2κ if I4 < 0, else 0.
                 * Rounding of F ~1e-15: 1e-12 of the stress scale. */
                double expect = 0.0;
                if (t == &weft_stable_neo_hookean_tet) expect = 2 * MU + 2 * (LAMBDA + MU);
                if (t == &weft_arap_tet) expect = 2 * MU_ARAP;
                if (t == &weft_anisotropic_fiber_tet && fiber_I4(F, &e.rest[10]) < 0.0)
                    expect = 2 * KAPPA;
                CHECK_NEAR(psi, W * expect, 1e-12 * W * (MU + LAMBDA + KAPPA));
                double H[144];
                t->hessian(&e, x, WEFT_HESSIAN_ANALYTIC, NULL, H);
                CHECK(min_eigenvalue(H, 12) >= -1e-12 * 12 * max_abs(H, 144));
            }
            /* Flat: vertex 3 in that plane (J = 0 up to rounding; exactly 0 is not
             * guaranteed, so only "never NaN" and, for stable energies, "finite"). */
            for (int k = 0; k < 3; k++) x[9 + k] = xr[9 + k] - h * n[k];
            psi = t->energy(&e, x);
            CHECK(!isnan(psi));
            if (tt->invertible) check_robust(t, &e, x, false, "flat");
            /* Crushed to a point: F = 0 exactly. */
            for (int k = 0; k < 12; k++) x[k] = xr[k % 3];
            psi = check_robust(t, &e, x, !tt->invertible, "crushed");
            /* ψ(0): StVK E = −I/2 gives 3μ/4 + 9λ/8; stable Neo-Hookean
             * −3μ/2 + μ + λ'/2 = λ/2; ARAP Σ(0 − 1)² μ/2 = 3μ/2; the fibre κ/2 (F a = 0). */
            double expect = NAN;
            if (t == &weft_stvk_tet) expect = 0.75 * MU + 1.125 * LAMBDA;
            if (t == &weft_stable_neo_hookean_tet) expect = LAMBDA / 2;
            if (t == &weft_arap_tet) expect = 1.5 * MU_ARAP;
            if (t == &weft_anisotropic_fiber_tet) expect = KAPPA / 2;
            if (tt->invertible) CHECK_NEAR(psi, W * expect, 1e-13 * W * (MU + LAMBDA + KAPPA));
        }
        /* A rest shape that is itself degenerate gets W = 0: no energy, no forces. */
        double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.3, 0}, x[12], gd[12], H[144];
        weft_element e = {.v = {0, 1, 2, 3}};
        t->init(&e, flat, &PARAMS);
        for (int k = 0; k < 12; k++) x[k] = flat[k] + (k == 11 ? 0.5 : 0.0);
        CHECK(t->energy(&e, x) == 0.0 && t->gradient(&e, x, gd) == 0.0 && all_zero(gd, 12));
        for (int m = 0; m < 3; m++) {
            CHECK(t->hessian(&e, x, MODES[m], gd, H) == 0.0);
            CHECK(all_zero(gd, 12) && all_zero(H, 144));
        }
    }
    /* ARAP where the polar rotation jumps: F = diag(1, 1, −1), σ = (1, 1, −1) so
     * σ_0 + σ_2 = σ_1 + σ_2 = 0; its twist eigenvalue is unbounded there and is capped,
     * so every mode stays finite. */
    weft_element e = unit_element(&weft_arap_tet, &PARAMS);
    double F[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1}, x[12];
    positions_of_F(F, x);
    CHECK_NEAR(check_robust(&weft_arap_tet, &e, x, false, "sigma sum 0"), 2.0 * MU_ARAP,
               1e-12 * MU_ARAP);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"registered", test_registered},
        {"kinematics", test_kinematics},
        {"svd3_rv", test_svd3_rv},
        {"project_modes", test_project_modes},
        {"first_piola", test_first_piola},
        {"hessian_F", test_hessian_F},
        {"analytic_vs_clamp", test_analytic_vs_clamp},
        {"vertex_fd", test_vertex_fd},
        {"closed_forms", test_closed_forms},
        {"rest_state", test_rest_state},
        {"inversion", test_inversion},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
