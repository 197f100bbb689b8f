/* stvk_tet.c — St. Venant–Kirchhoff elasticity on tetrahedra (Sifakis & Barbič 2012,
 * "St. Venant-Kirchhoff model"; Kim & Eberle 2020):
 *   E = ½(FᵀF − I),   ψ = μ‖E‖² + λ/2 tr(E)²   (J/m³),   Ψ = W ψ   (J)
 *   P = F S,   S = 2μE + λ tr(E) I   (second Piola-Kirchhoff stress, Pa)
 * Exact Hessian, directly: dP = dF S + F dS, dS = 2μ dE + λ tr(dE) I, dE = ½(dFᵀF + FᵀdF).
 * For dF = e_r e_cᵀ (vec index 3c + r) this gives the entry in row 3q + p
 *   ∂P_pq/∂F_rc = δ_pr S_cq + μ F_pc F_rq + μ δ_qc (F Fᵀ)_pr + λ F_rc F_pq.
 *
 * Analytic eigensystem (fem_tet.c). With the signed σ_i of weft_svd3_rv,
 *   ψ(σ) = μ/4 Σ(σ_i² − 1)² + λ/8 (I_C − 3)²,   I_C = Σ σ_i²,
 *   ψ_i = μ σ_i³ + c σ_i,   c = λ/2 (I_C − 3) − μ,
 *   scaling:  ∂²ψ/∂σ_i² = (3μ + λ) σ_i² + c,   ∂²ψ/∂σ_i∂σ_j = λ σ_i σ_j,
 *   twist (i, j): (ψ_i + ψ_j)/(σ_i + σ_j) = μ(σ_i² − σ_i σ_j + σ_j²) + c,
 *   flip (i, j):  (ψ_i − ψ_j)/(σ_i − σ_j) = μ(σ_i² + σ_i σ_j + σ_j²) + c
 * (both quotients divide the cubic σ_i³ ± σ_j³ exactly by σ_i ± σ_j).
 *
 * ψ is a polynomial in F, finite for inverted and degenerate elements. It resists
 * compression only weakly: crushing an element to a point costs just ψ(0) = 3μ/4 + 9λ/8
 * (E = −I/2), the model's well-known collapse under strong compression.
 * Element data: fem.h layout, k = μ (Pa), k2 = λ (Pa), from E (Pa) and ν. */
#include "fem_tet_energy.h"

#include <math.h>

static void stvk_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tet_rest(e, xe);
    e->k = weft_lame_mu(p->stiffness, p->poisson);
    e->k2 = weft_lame_lambda(p->stiffness, p->poisson);
}

/* E = ½(FᵀF − I) = ½(H + Hᵀ + HᵀH) with H = F − I, accurate near rest. */
static void green_strain(const double F[9], double E[9]) {
    double H[9], HtH[9];
    for (int i = 0; i < 9; i++) H[i] = F[i] - (i % 4 == 0 ? 1.0 : 0.0);
    weft_m3_mul_tn(H, H, HtH);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            E[3 * r + c] = 0.5 * (H[3 * r + c] + H[3 * c + r] + HtH[3 * r + c]);
}

/* S = 2μE + λ tr(E) I; returns ψ. */
static double stress_S(const weft_element *e, const double F[9], double S[9]) {
    double mu = e->k, lambda = e->k2, E[9];
    green_strain(F, E);
    double tr = E[0] + E[4] + E[8], ee = 0.0;
    for (int i = 0; i < 9; i++) {
        ee += E[i] * E[i];
        S[i] = 2.0 * mu * E[i] + (i % 4 == 0 ? lambda * tr : 0.0);
    }
    return mu * ee + 0.5 * lambda * tr * tr;
}

static double stvk_psi(const weft_element *e, const double F[9], double P[9]) {
    double S[9];
    double psi = stress_S(e, F, S);
    if (P) weft_m3_mul(F, S, P);
    return psi;
}

static void stvk_hessian(const weft_element *e, const double F[9], double A[81]) {
    double mu = e->k, lambda = e->k2, S[9], B[9];
    stress_S(e, F, S);
    weft_m3_mul_nt(F, F, B);
    for (int q = 0; q < 3; q++)
        for (int p = 0; p < 3; p++)
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++) {
                    double a =
                        mu * F[3 * p + c] * F[3 * r + q] + lambda * F[3 * r + c] * F[3 * p + q];
                    if (p == r) a += S[3 * c + q];
                    if (q == c) a += mu * B[3 * p + r];
                    A[9 * (3 * q + p) + 3 * c + r] = a;
                }
}

static void stvk_eigen(const weft_element *e, const double s[3], weft_fem_eigen *eig) {
    double mu = e->k, lambda = e->k2;
    double ic = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
    double c = 0.5 * lambda * (ic - 3.0) - mu;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            eig->scale[3 * i + j] =
                i == j ? (3.0 * mu + lambda) * s[i] * s[i] + c : lambda * s[i] * s[j];
    static const int pairs[3][2] = {{0, 1}, {1, 2}, {0, 2}};
    for (int p = 0; p < 3; p++) {
        double a = s[pairs[p][0]], b = s[pairs[p][1]];
        eig->twist[p] = mu * (a * a - a * b + b * b) + c;
        eig->flip[p] = mu * (a * a + a * b + b * b) + c;
    }
}

static const weft_tet_density STVK = {stvk_psi, stvk_hessian, stvk_eigen};

static double stvk_energy(const weft_element *e, const double *xe) {
    return weft_tet_energy(&STVK, e, xe);
}

static double stvk_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tet_gradient(&STVK, e, xe, g);
}

static double stvk_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                        double *H) {
    return weft_tet_hessian(&STVK, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of stvk_hess's (vertex block descent). */
static double stvk_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                  int v, double *g, double *H) {
    return weft_tet_vertex_hessian(&STVK, e, xe, mode, v, g, H);
}

const weft_energy_type weft_stvk_tet = {
    .name = "stvk",
    .paper = "Sifakis & Barbic 2012 (StVK); Smith, de Goes, Kim 2019 (eigensystem)",
    .summary = "St. Venant-Kirchhoff mu |E|^2 + lambda/2 tr(E)^2, E = (F^T F - I)/2",
    .kind = WEFT_ELEM_TET,
    .nv = 4,
    .init = stvk_init,
    .energy = stvk_energy,
    .gradient = stvk_gradient,
    .hessian = stvk_hess,
    .vertex_hessian = stvk_vertex_hessian,
    .analytic_psd = true,
    .constraint = NULL,
};
