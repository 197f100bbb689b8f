/* arap_tet.c — as-rigid-as-possible elasticity on tetrahedra (Sorkine & Alexa 2007 in the
 * FEM form of Kim & Eberle 2020; Smith, de Goes, Kim 2019, whose §4 gives the SVD):
 *   ψ = μ/2 ‖F − R‖² = μ/2 Σ_i (σ_i − 1)²   (J/m³),   P = μ (F − R)   (Pa),
 * with F = U Σ Vᵀ the rotation-variant SVD (weft_svd3_rv) and R = U Vᵀ its polar
 * rotation. P needs no ∂R/∂F: (F − R) : dR = (S − I) : Rᵀ dR = 0, a symmetric matrix
 * against a skew one (S = Rᵀ F = V Σ Vᵀ). With the rotation-variant SVD, R stays a proper
 * rotation for an inverted element, whose reflection is measured by the negative σ_2.
 *
 * Near rest, F = I + H gives R ≈ I + skew H and ψ ≈ μ/2 ‖sym H‖²: linear elasticity with
 * shear modulus μ/2 and λ = 0, whose Young's modulus is 2 (μ/2) = μ and Poisson ratio 0.
 * weft sets μ = E (papers/calibration.md), so under uniaxial stress ARAP matches
 * the other volume energies at the same E; with no bulk term it cannot represent ν and
 * ignores it (before that calibration, μ = E/(2(1 + ν)): 2(1 + ν) times softer). k2 is unused.
 *
 * Eigensystem (fem_tet.c): ψ_i = μ(σ_i − 1), so
 *   scaling = μ I,   flip (i, j) = μ,   twist (i, j) = (ψ_i + ψ_j)/(σ_i + σ_j)
 *                                                  = μ (1 − 2/(σ_i + σ_j)).
 * These are exact, so the exact Hessian is their unclamped mode sum
 * (weft_fem_modes_tet): μ I − μ Σ 2/(σ_i + σ_j) vec(T_ij) vec(T_ij)ᵀ, the second term
 * being μ ∂vec(R)/∂vec(F). The twist eigenvalue, and the exact Hessian with it, is
 * unbounded as σ_i + σ_j → 0⁺ (σ_0, σ_1 ≥ |σ_2|, so only a sum σ_i + σ_2 can vanish, at an
 * inverted element with σ_i = −σ_2), where R jumps and ψ is not differentiable; we floor
 * σ_i + σ_j at 1e-10 so the Hessian stays finite (ANALYTIC clamps that mode to 0 anyway).
 * Element data: fem.h layout, k = μ = E (Pa), k2 = λ (Pa, unused). */
#include "fem_tet_energy.h"

#include <math.h>

/* Smallest σ_i + σ_j used in the twist eigenvalue (dimensionless). */
#define ARAP_MIN_PAIR_SUM 1e-10

static void arap_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tet_rest(e, xe);
    e->k = p->stiffness; /* μ = E: small-strain modulus E, ν = 0 (see the top) */
    e->k2 = weft_lame_lambda(p->stiffness, p->poisson);
}

static double arap_psi(const weft_element *e, const double F[9], double P[9]) {
    double U[9], s[3], V[9], mu = e->k;
    weft_svd3_rv(F, U, s, V);
    if (P) {
        double R[9];
        weft_m3_mul_nt(U, V, R);
        for (int i = 0; i < 9; i++) P[i] = mu * (F[i] - R[i]);
    }
    return 0.5 * mu *
           ((s[0] - 1.0) * (s[0] - 1.0) + (s[1] - 1.0) * (s[1] - 1.0) +
            (s[2] - 1.0) * (s[2] - 1.0));
}

static void arap_eigen(const weft_element *e, const double s[3], weft_fem_eigen *eig) {
    double mu = e->k;
    for (int i = 0; i < 9; i++) eig->scale[i] = i % 4 == 0 ? mu : 0.0;
    static const int pairs[3][2] = {{0, 1}, {1, 2}, {0, 2}};
    for (int p = 0; p < 3; p++) {
        double sum = fmax(s[pairs[p][0]] + s[pairs[p][1]], ARAP_MIN_PAIR_SUM);
        eig->twist[p] = mu * (1.0 - 2.0 / sum);
        eig->flip[p] = mu;
    }
}

static void arap_hessian(const weft_element *e, const double F[9], double A[81]) {
    double U[9], s[3], V[9];
    weft_fem_eigen eig;
    weft_svd3_rv(F, U, s, V);
    arap_eigen(e, s, &eig);
    weft_fem_modes_tet(U, V, &eig, A);
}

static const weft_tet_density ARAP = {arap_psi, arap_hessian, arap_eigen};

static double arap_energy(const weft_element *e, const double *xe) {
    return weft_tet_energy(&ARAP, e, xe);
}

static double arap_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tet_gradient(&ARAP, e, xe, g);
}

static double arap_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                        double *H) {
    return weft_tet_hessian(&ARAP, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of arap_hess's (vertex block descent). */
static double arap_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                  int v, double *g, double *H) {
    return weft_tet_vertex_hessian(&ARAP, e, xe, mode, v, g, H);
}

/* Projective form (Bouaziz et al. 2014 §5, strain constraint): w = μ W, A x = the three
 * columns of F (weft_fem_projective_rows), C = SO(3), P(F) = U Vᵀ of the rotation-variant
 * SVD: ½ μ W ‖F − P(F)‖² is this energy. */
static double arap_pd_form(const weft_element *e, double *A) {
    return e->k * weft_fem_projective_rows(e, 3, A);
}

static void arap_pd_project(const weft_element *e, const double *y, double *p) {
    (void)e;
    double F[9], U[9], s[3], V[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) F[3 * r + c] = y[3 * c + r];
    weft_svd3_rv(F, U, s, V);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double R = 0.0;
            for (int j = 0; j < 3; j++) R += U[3 * r + j] * V[3 * c + j];
            p[3 * c + r] = R;
        }
}

static const weft_projective arap_projective = {3, arap_pd_form, arap_pd_project, NULL};

const weft_energy_type weft_arap_tet = {
    .name = "arap",
    .paper = "Smith, de Goes, Kim 2019 (ARAP, rotation-variant SVD, eigensystem)",
    .summary = "as-rigid-as-possible mu/2 |F - R|^2, R the polar rotation of F; mu = E: "
               "modulus E, Poisson ratio 0 (ignores nu)",
    .kind = WEFT_ELEM_TET,
    .nv = 4,
    .init = arap_init,
    .energy = arap_energy,
    .gradient = arap_gradient,
    .hessian = arap_hess,
    .vertex_hessian = arap_vertex_hessian,
    .analytic_psd = true,
    .constraint = NULL,
    .projective = &arap_projective,
};
