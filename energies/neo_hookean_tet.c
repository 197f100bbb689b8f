/* neo_hookean_tet.c — classic compressible Neo-Hookean elasticity on tetrahedra (Bonet &
 * Wood 2008 ch. 6; Sifakis & Barbič 2012, "Neohookean elasticity"):
 *   ψ = μ/2 (I_C − 3) − μ log J + λ/2 (log J)²   (J/m³),   I_C = ‖F‖², J = det F,
 *   P = μ F + (λ log J − μ) F⁻ᵀ   (Pa).
 * Exact Hessian, directly: with d(F⁻ᵀ) = −F⁻ᵀ dFᵀ F⁻ᵀ and d log J = tr(F⁻¹ dF),
 *   dP = μ dF + (μ − λ log J) F⁻ᵀ dFᵀ F⁻ᵀ + λ tr(F⁻¹ dF) F⁻ᵀ,
 * i.e. with G = F⁻ᵀ, the entry in row 3q + p, column 3c + r (dF = e_r e_cᵀ):
 *   ∂P_pq/∂F_rc = μ δ_pr δ_qc + (μ − λ log J) G_pc G_rq + λ G_rc G_pq.
 *
 * Analytic eigensystem (fem_tet.c), σ_i > 0 here, a = λ log J − μ:
 *   ψ_i = μ σ_i + a/σ_i,
 *   scaling: ∂²ψ/∂σ_i² = μ + (λ − a)/σ_i²,   ∂²ψ/∂σ_i∂σ_j = λ/(σ_i σ_j),
 *   twist (i, j): (ψ_i + ψ_j)/(σ_i + σ_j) = μ + a/(σ_i σ_j),
 *   flip (i, j):  (ψ_i − ψ_j)/(σ_i − σ_j) = μ − a/(σ_i σ_j).
 *
 * Domain: J > 0. For J ≤ 0, or J ≤ WEFT_TET_J_EPS ‖F‖³ (an inverted or flat element),
 * log J does not exist: energy,
 * gradient and hessian return +INFINITY with g = 0 and H = 0 (fem_tet_energy.h), so a
 * line search sees +inf and rejects the step; the model cannot recover an element that
 * is already inverted (use stable_neo_hookean for that).
 * Element data: fem.h layout, k = μ (Pa), k2 = λ (Pa, the Lamé λ), from E (Pa) and ν. */
#include "fem_tet_energy.h"

#include <math.h>

static void nh_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tet_rest(e, xe);
    e->k = weft_lame_mu(p->stiffness, p->poisson);
    e->k2 = weft_lame_lambda(p->stiffness, p->poisson);
}

/* J and log J, accurate near rest; false when J ≤ 0 or J is zero to rounding
 * (J ≤ WEFT_TET_J_EPS ‖F‖³). */
static bool log_det(const double F[9], double *J, double *logJ) {
    double jm1 = weft_m3_det_minus_one(F);
    if (!(jm1 > -1.0) || !weft_m3_det_positive(F, jm1)) return false;
    *J = 1.0 + jm1;
    *logJ = log1p(jm1);
    return true;
}

static double nh_psi(const weft_element *e, const double F[9], double P[9]) {
    double mu = e->k, lambda = e->k2, J, l;
    if (!log_det(F, &J, &l)) return INFINITY;
    if (P) {
        double C[9];
        weft_m3_cofactor(F, C); /* F⁻ᵀ = cof(F)/J */
        double w = (lambda * l - mu) / J;
        for (int i = 0; i < 9; i++) P[i] = mu * F[i] + w * C[i];
    }
    return 0.5 * mu * weft_m3_ic_minus_three(F) - mu * l + 0.5 * lambda * l * l;
}

static void nh_hessian(const weft_element *e, const double F[9], double A[81]) {
    double mu = e->k, lambda = e->k2, J = 0.0, l = 0.0, G[9];
    log_det(F, &J, &l); /* called only where ψ is finite, so J > 0 */
    weft_m3_cofactor(F, G);
    for (int i = 0; i < 9; i++) G[i] /= J;
    double w = mu - lambda * l;
    for (int q = 0; q < 3; q++)
        for (int p = 0; p < 3; p++)
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++)
                    A[9 * (3 * q + p) + 3 * c + r] = (p == r && q == c ? mu : 0.0) +
                                                     w * G[3 * p + c] * G[3 * r + q] +
                                                     lambda * G[3 * r + c] * G[3 * p + q];
}

static void nh_eigen(const weft_element *e, const double s[3], weft_fem_eigen *eig) {
    double mu = e->k, lambda = e->k2;
    double a = lambda * log(s[0] * s[1] * s[2]) - mu;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            eig->scale[3 * i + j] =
                i == j ? mu + (lambda - a) / (s[i] * s[i]) : lambda / (s[i] * s[j]);
    static const int pairs[3][2] = {{0, 1}, {1, 2}, {0, 2}};
    for (int p = 0; p < 3; p++) {
        double ss = s[pairs[p][0]] * s[pairs[p][1]];
        eig->twist[p] = mu + a / ss;
        eig->flip[p] = mu - a / ss;
    }
}

static const weft_tet_density NEO_HOOKEAN = {nh_psi, nh_hessian, nh_eigen};

static double nh_energy(const weft_element *e, const double *xe) {
    return weft_tet_energy(&NEO_HOOKEAN, e, xe);
}

static double nh_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tet_gradient(&NEO_HOOKEAN, e, xe, g);
}

static double nh_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                      double *H) {
    return weft_tet_hessian(&NEO_HOOKEAN, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of nh_hess's (vertex block descent). */
static double nh_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                int v, double *g, double *H) {
    return weft_tet_vertex_hessian(&NEO_HOOKEAN, e, xe, mode, v, g, H);
}

const weft_energy_type weft_neo_hookean_tet = {
    .name = "neo_hookean",
    .paper = "Bonet & Wood 2008 ch. 6; Smith, de Goes, Kim 2019 (eigensystem)",
    .summary = "Neo-Hookean mu/2 (I_C - 3) - mu log J + lambda/2 log^2 J; +inf for J <= 0",
    .kind = WEFT_ELEM_TET,
    .nv = 4,
    .init = nh_init,
    .energy = nh_energy,
    .gradient = nh_gradient,
    .hessian = nh_hess,
    .vertex_hessian = nh_vertex_hessian,
    .analytic_psd = true,
    .constraint = NULL,
};
