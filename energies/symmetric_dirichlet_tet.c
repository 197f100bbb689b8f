/* symmetric_dirichlet_tet.c — the symmetric Dirichlet energy on tetrahedra (Schüller et
 * al. 2013; Smith & Schaefer 2015; eigensystem in Smith, de Goes, Kim 2019), shifted to
 * vanish at rest:
 *   ψ = μ/2 (‖F‖² + ‖F⁻¹‖² − 6) = μ/2 Σ_i (σ_i² + σ_i⁻² − 2)   (J/m³),
 *   P = μ (F − F⁻ᵀ F⁻¹ F⁻ᵀ)   (Pa), from d‖F⁻¹‖² = −2 (F⁻ᵀ F⁻¹ F⁻ᵀ) : dF.
 * Exact Hessian, directly: with G = F⁻ᵀ (dG = −G dFᵀ G), Q = G Gᵀ G, B = G Gᵀ, M = Gᵀ G,
 *   dP = μ (dF + G dFᵀ Q + B dF M + Q dFᵀ G),
 * so the entry in row 3q + p, column 3c + r (dF = e_r e_cᵀ) is
 *   μ (δ_pr δ_qc + G_pc Q_rq + B_pr M_cq + Q_pc G_rq).
 * Near rest ψ ≈ μ (‖H‖² + tr(H²)) = 2μ ‖sym H‖² (F = I + H): linear elasticity with shear
 * modulus 2μ and λ = 0, Young's modulus 4μ and Poisson ratio 0. weft sets μ = E/4 (issue
 * 17, papers/calibration.md), so under uniaxial stress it matches the other volume energies
 * at the same E; with no bulk term it ignores ν (before the calibration, μ = E/(2(1 + ν)): 2/(1 + ν)
 * times stiffer).
 *
 * Analytic eigensystem (fem_tet.c), σ_i > 0 here: ψ_i = μ (σ_i − σ_i⁻³), so
 *   scaling: ∂²ψ/∂σ_i² = μ (1 + 3 σ_i⁻⁴),   ∂²ψ/∂σ_i∂σ_j = 0,
 *   twist (i, j): (ψ_i + ψ_j)/(σ_i + σ_j) = μ (1 − (σ_i² − σ_i σ_j + σ_j²)/(σ_i σ_j)³),
 *   flip (i, j):  (ψ_i − ψ_j)/(σ_i − σ_j) = μ (1 + (σ_i² + σ_i σ_j + σ_j²)/(σ_i σ_j)³),
 * using σ_i⁻³ + σ_j⁻³ = (σ_i + σ_j)(σ_i² − σ_i σ_j + σ_j²)/(σ_i σ_j)³ and
 * σ_i⁻³ − σ_j⁻³ = −(σ_i − σ_j)(σ_i² + σ_i σ_j + σ_j²)/(σ_i σ_j)³.
 *
 * Domain: J > 0 (ψ → ∞ as an element flattens). For J ≤ 0 (or J ≤ WEFT_TET_J_EPS ‖F‖³)
 * energy, gradient and hessian
 * return +INFINITY with g = 0 and H = 0, as for neo_hookean.
 * Element data: fem.h layout, k = μ (Pa), k2 = λ (Pa, unused). */
#include "fem_tet_energy.h"

static void sd_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tet_rest(e, xe);
    e->k = 0.25 * p->stiffness; /* μ = E/4: small-strain modulus E, ν = 0 (see the top) */
    e->k2 = weft_lame_lambda(p->stiffness, p->poisson);
}

/* G = F⁻ᵀ = cof(F)/J; false when J ≤ 0 or J is zero to rounding (WEFT_TET_J_EPS). */
static bool inverse_transpose(const double F[9], double G[9]) {
    double jm1 = weft_m3_det_minus_one(F);
    if (!(jm1 > -1.0) || !weft_m3_det_positive(F, jm1)) return false;
    weft_m3_cofactor(F, G);
    for (int i = 0; i < 9; i++) G[i] /= 1.0 + jm1;
    return true;
}

static double sd_psi(const weft_element *e, const double F[9], double P[9]) {
    double mu = e->k, G[9];
    if (!inverse_transpose(F, G)) return INFINITY;
    if (P) {
        double GGt[9], Q[9];
        weft_m3_mul_nt(G, G, GGt);
        weft_m3_mul(GGt, G, Q);
        for (int i = 0; i < 9; i++) P[i] = mu * (F[i] - Q[i]);
    }
    /* ‖F‖² − 3 + ‖F⁻ᵀ‖² − 3, each without cancellation near rest */
    return 0.5 * mu * (weft_m3_ic_minus_three(F) + weft_m3_ic_minus_three(G));
}

static void sd_hessian(const weft_element *e, const double F[9], double A[81]) {
    double mu = e->k, G[9], B[9], M[9], Q[9];
    inverse_transpose(F, G); /* called only where ψ is finite, so J > 0 */
    weft_m3_mul_nt(G, G, B);
    weft_m3_mul_tn(G, G, M);
    weft_m3_mul(B, G, Q);
    for (int q = 0; q < 3; q++)
        for (int p = 0; p < 3; p++)
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++)
                    A[9 * (3 * q + p) + 3 * c + r] =
                        mu * ((p == r && q == c ? 1.0 : 0.0) + G[3 * p + c] * Q[3 * r + q] +
                              B[3 * p + r] * M[3 * c + q] + Q[3 * p + c] * G[3 * r + q]);
}

static void sd_eigen(const weft_element *e, const double s[3], weft_fem_eigen *eig) {
    double mu = e->k;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s2 = s[i] * s[i];
            eig->scale[3 * i + j] = i == j ? mu * (1.0 + 3.0 / (s2 * s2)) : 0.0;
        }
    static const int pairs[3][2] = {{0, 1}, {1, 2}, {0, 2}};
    for (int p = 0; p < 3; p++) {
        double a = s[pairs[p][0]], b = s[pairs[p][1]], ab3 = a * b * a * b * a * b;
        eig->twist[p] = mu * (1.0 - (a * a - a * b + b * b) / ab3);
        eig->flip[p] = mu * (1.0 + (a * a + a * b + b * b) / ab3);
    }
}

static const weft_tet_density SYMMETRIC_DIRICHLET = {sd_psi, sd_hessian, sd_eigen};

static double sd_energy(const weft_element *e, const double *xe) {
    return weft_tet_energy(&SYMMETRIC_DIRICHLET, e, xe);
}

static double sd_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tet_gradient(&SYMMETRIC_DIRICHLET, e, xe, g);
}

static double sd_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                      double *H) {
    return weft_tet_hessian(&SYMMETRIC_DIRICHLET, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of sd_hess's (vertex block descent). */
static double sd_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                int v, double *g, double *H) {
    return weft_tet_vertex_hessian(&SYMMETRIC_DIRICHLET, e, xe, mode, v, g, H);
}

const weft_energy_type weft_symmetric_dirichlet_tet = {
    .name = "symmetric_dirichlet",
    .paper = "Smith & Schaefer 2015; Smith, de Goes, Kim 2019 (eigensystem)",
    .summary = "symmetric Dirichlet mu/2 (|F|^2 + |F^-1|^2 - 6), mu = E/4: modulus E, Poisson "
               "ratio 0 (ignores nu); +inf for J <= 0",
    .kind = WEFT_ELEM_TET,
    .nv = 4,
    .init = sd_init,
    .energy = sd_energy,
    .gradient = sd_gradient,
    .hessian = sd_hess,
    .vertex_hessian = sd_vertex_hessian,
    .analytic_psd = true,
    .constraint = NULL,
};
