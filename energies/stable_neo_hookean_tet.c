/* stable_neo_hookean_tet.c — Stable Neo-Hookean elasticity on tetrahedra (Smith, de Goes,
 * Kim 2018, in the simplified form of Kim & Eberle 2020, without the log(I_C + 1)
 * term):
 *   ψ = μ/2 (I_C − 3) − μ (J − 1) + λ'/2 (J − 1)²   (J/m³),   I_C = ‖F‖², J = det F,
 *   P = μ F + (λ'(J − 1) − μ) cof F   (Pa),   cof F = ∂J/∂F = J F⁻ᵀ.
 * ψ is a polynomial in F: finite, with finite derivatives, for inverted and flat
 * elements, and P(I) = μI − μI = 0 for any λ', so the rest state is stress free.
 *
 * Which λ. Near rest, F = I + H: I_C − 3 = 2 tr H + ‖H‖² and
 * J − 1 = tr H + ½((tr H)² − tr(H²)) + O(H³), so
 *   ψ = μ/2 (‖H‖² + tr(H²)) + (λ' − μ)/2 (tr H)² + O(H³) = μ‖ε‖² + (λ' − μ)/2 (tr ε)²
 * with ε = sym H. Linear elasticity with the textbook Lamé constants is
 * μ‖ε‖² + λ/2 (tr ε)², so we store λ' = λ + μ (k2 below): the small-strain limit, and so
 * the element's Young's modulus and Poisson ratio, are then the ones the scene asks for.
 * (Taking λ' = λ would soften the volumetric response by μ, e.g. ν_eff = 0 for ν = 1/4.)
 *
 * Exact Hessian, directly: dP = μ dF + λ' (cof F : dF) cof F + (λ'(J − 1) − μ) d(cof F),
 * with ∂(cof F)_pq/∂F_rc = ∂²J/∂F_pq∂F_rc = Σ_kl ε_prk ε_qcl F_kl (ε the Levi-Civita
 * symbol), so the entry in row 3q + p, column 3c + r is
 *   μ δ_pr δ_qc + λ' cof_pq cof_rc + (λ'(J − 1) − μ) ε_prk ε_qcl F_kl.
 *
 * Analytic eigensystem (fem_tet.c) with the signed σ_i of weft_svd3_rv, J = σ_0 σ_1 σ_2,
 * b = λ'(J − 1) − μ and k the index other than i, j:
 *   ψ_i = μ σ_i + b σ_j σ_k,
 *   scaling: ∂²ψ/∂σ_i² = μ + λ' (σ_j σ_k)²,   ∂²ψ/∂σ_i∂σ_j = σ_k (λ'(2J − 1) − μ),
 *   twist (i, j): (ψ_i + ψ_j)/(σ_i + σ_j) = μ + b σ_k,
 *   flip (i, j):  (ψ_i − ψ_j)/(σ_i − σ_j) = μ − b σ_k.
 * Element data: fem.h layout, k = μ (Pa), k2 = λ' = λ + μ (Pa), from E (Pa) and ν. */
#include "fem_tet_energy.h"

static void snh_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tet_rest(e, xe);
    e->k = weft_lame_mu(p->stiffness, p->poisson);
    e->k2 = weft_lame_lambda(p->stiffness, p->poisson) + e->k;
}

static double snh_psi(const weft_element *e, const double F[9], double P[9]) {
    double mu = e->k, lambda = e->k2;
    double jm1 = weft_m3_det_minus_one(F);
    if (P) {
        double C[9];
        weft_m3_cofactor(F, C);
        double w = lambda * jm1 - mu;
        for (int i = 0; i < 9; i++) P[i] = mu * F[i] + w * C[i];
    }
    return 0.5 * mu * weft_m3_ic_minus_three(F) - mu * jm1 + 0.5 * lambda * jm1 * jm1;
}

static void snh_hessian(const weft_element *e, const double F[9], double A[81]) {
    double mu = e->k, lambda = e->k2, C[9];
    weft_m3_cofactor(F, C);
    double b = lambda * weft_m3_det_minus_one(F) - mu;
    for (int q = 0; q < 3; q++)
        for (int p = 0; p < 3; p++)
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++) {
                    double a = lambda * C[3 * p + q] * C[3 * r + c];
                    if (p == r && q == c) a += mu;
                    if (p != r && q != c) { /* ε_prk ε_qcl F_kl with k, l the third indices */
                        int k = 3 - p - r, l = 3 - q - c;
                        a += b * weft_levi_civita(p, r, k) * weft_levi_civita(q, c, l) *
                             F[3 * k + l];
                    }
                    A[9 * (3 * q + p) + 3 * c + r] = a;
                }
}

static void snh_eigen(const weft_element *e, const double s[3], weft_fem_eigen *eig) {
    double mu = e->k, lambda = e->k2;
    double J = s[0] * s[1] * s[2], b = lambda * (J - 1.0) - mu;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int k = 3 - i - j; /* the third index when i ≠ j */
            if (i == j) {
                double o = s[(i + 1) % 3] * s[(i + 2) % 3]; /* σ_j σ_k = ∂J/∂σ_i */
                eig->scale[3 * i + j] = mu + lambda * o * o;
            } else {
                eig->scale[3 * i + j] = s[k] * (lambda * (2.0 * J - 1.0) - mu);
            }
        }
    static const int pairs[3][2] = {{0, 1}, {1, 2}, {0, 2}};
    for (int p = 0; p < 3; p++) {
        double sk = s[3 - pairs[p][0] - pairs[p][1]];
        eig->twist[p] = mu + b * sk;
        eig->flip[p] = mu - b * sk;
    }
}

static const weft_tet_density STABLE_NEO_HOOKEAN = {snh_psi, snh_hessian, snh_eigen};

static double snh_energy(const weft_element *e, const double *xe) {
    return weft_tet_energy(&STABLE_NEO_HOOKEAN, e, xe);
}

static double snh_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tet_gradient(&STABLE_NEO_HOOKEAN, e, xe, g);
}

static double snh_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                       double *H) {
    return weft_tet_hessian(&STABLE_NEO_HOOKEAN, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of snh_hess's (vertex block descent). */
static double snh_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                 int v, double *g, double *H) {
    return weft_tet_vertex_hessian(&STABLE_NEO_HOOKEAN, e, xe, mode, v, g, H);
}

const weft_energy_type weft_stable_neo_hookean_tet = {
    .name = "stable_neo_hookean",
    .paper = "Smith, de Goes, Kim 2018; Kim & Eberle 2020 (form without log term)",
    .summary = "Stable Neo-Hookean mu/2 (I_C - 3) - mu (J - 1) + lambda'/2 (J - 1)^2, "
               "lambda' = lambda + mu",
    .kind = WEFT_ELEM_TET,
    .nv = 4,
    .init = snh_init,
    .energy = snh_energy,
    .gradient = snh_gradient,
    .hessian = snh_hess,
    .vertex_hessian = snh_vertex_hessian,
    .analytic_psd = true,
    .constraint = NULL,
    .default_for = WEFT_DEFAULT_SOLID,
};
