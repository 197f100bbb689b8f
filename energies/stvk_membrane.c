/* stvk_membrane.c — Saint Venant-Kirchhoff membrane (Kim & Eberle, "Dynamic Deformables",
 * ch. 3–5 for StVK, ch. 7.2 for the membrane's 3×2 F of fem_tri.c):
 *   E = ½(FᵀF − I₂),  ψ = μ‖E‖² + λ/2 tr(E)²  (J/m²),  Ψ = W ψ,
 *   P = F S,  S = 2μE + λ tr(E) I₂,
 *   ∂P_rc/∂F_sd = δ_rs S_dc + μ F_rd F_sc + μ (FFᵀ)_rs δ_cd + λ F_rc F_sd
 * (from dP = dF S + F dS, dS = 2μ dE + λ tr(dE) I, dE = ½(dFᵀF + FᵀdF), dtr E = F : dF).
 *
 * Material: the scene's stiffness is the membrane stiffness Y (N/m, Young's modulus ×
 * thickness). A thin sheet is in plane stress (σ_33 = 0: its faces are free), which
 * eliminates the thickness strain ε_33 = −λ₃ tr(ε)/(λ₃ + 2μ) and leaves, per unit
 * thickness, μ and λ = 2λ₃μ/(λ₃ + 2μ) = Eν/(1 − ν²) instead of the 3-D
 * λ₃ = Eν/((1 + ν)(1 − 2ν)); times the thickness, μ = Y/(2(1 + ν)), λ = Yν/(1 − ν²)
 * (weft_membrane_lame). Element data: k = μ, k2 = λ (N/m); rest as in fem.h.
 *
 * In singular values (ψ = μ/4 Σ(σ_j² − 1)² + λ/8 (I_C − 2)², I_C = σ0² + σ1²):
 *   ψ_00 = μ(3σ0² − 1) + λ/2 (3σ0² + σ1² − 2),  ψ_01 = λ σ0 σ1,
 *   twist (ψ_0 + ψ_1)/(σ0 + σ1) = μ(σ0² − σ0σ1 + σ1² − 1) + λ/2 (I_C − 2),
 *   flip  (ψ_0 − ψ_1)/(σ0 − σ1) = μ(σ0² + σ0σ1 + σ1² − 1) + λ/2 (I_C − 2),
 *   out of plane ψ_j/σ_j = μ(σ_j² − 1) + λ/2 (I_C − 2),
 * using σ0³ ± σ1³ = (σ0 ± σ1)(σ0² ∓ σ0σ1 + σ1²): no division anywhere. */
#include "fem_tri_energy.h"

/* S = 2μE + λ tr(E) I (2×2 row-major), the second Piola-Kirchhoff stress; returns ψ. */
static double stvk_stress(const weft_element *e, const double F[6], double S[4]) {
    double mu = e->k, la = e->k2, E[4] = {0, 0, 0, 0};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            for (int r = 0; r < 3; r++) E[2 * i + j] += F[2 * r + i] * F[2 * r + j];
            E[2 * i + j] = 0.5 * (E[2 * i + j] - (i == j ? 1.0 : 0.0));
        }
    double tr = E[0] + E[3];
    for (int i = 0; i < 4; i++) S[i] = 2.0 * mu * E[i] + (i == 0 || i == 3 ? la * tr : 0.0);
    return mu * (E[0] * E[0] + E[1] * E[1] + E[2] * E[2] + E[3] * E[3]) + 0.5 * la * tr * tr;
}

static double stvk_psi(const weft_element *e, const double F[6], double P[6]) {
    double S[4];
    double psi = stvk_stress(e, F, S);
    if (P)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 2; c++) P[2 * r + c] = F[2 * r] * S[c] + F[2 * r + 1] * S[2 + c];
    return psi;
}

static void stvk_hessian(const weft_element *e, const double F[6], double A[36]) {
    double mu = e->k, la = e->k2, S[4], FFt[9];
    stvk_stress(e, F, S);
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++)
            FFt[3 * r + s] = F[2 * r] * F[2 * s] + F[2 * r + 1] * F[2 * s + 1];
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 3; r++)
            for (int d = 0; d < 2; d++)
                for (int s = 0; s < 3; s++)
                    A[6 * (3 * c + r) + 3 * d + s] =
                        (r == s ? S[2 * d + c] : 0.0) + mu * F[2 * r + d] * F[2 * s + c] +
                        (c == d ? mu * FFt[3 * r + s] : 0.0) + la * F[2 * r + c] * F[2 * s + d];
}

static void stvk_eigen(const weft_element *e, const double s[2], weft_fem_eigen *eig) {
    double mu = e->k, la = e->k2, s0 = s[0], s1 = s[1];
    double bulk = 0.5 * la * (s0 * s0 + s1 * s1 - 2.0);
    eig->scale[0] = mu * (3.0 * s0 * s0 - 1.0) + 0.5 * la * (3.0 * s0 * s0 + s1 * s1 - 2.0);
    eig->scale[4] = mu * (3.0 * s1 * s1 - 1.0) + 0.5 * la * (s0 * s0 + 3.0 * s1 * s1 - 2.0);
    eig->scale[1] = eig->scale[3] = la * s0 * s1;
    eig->twist[0] = mu * (s0 * s0 - s0 * s1 + s1 * s1 - 1.0) + bulk;
    eig->flip[0] = mu * (s0 * s0 + s0 * s1 + s1 * s1 - 1.0) + bulk;
    eig->out_of_plane[0] = mu * (s0 * s0 - 1.0) + bulk;
    eig->out_of_plane[1] = mu * (s1 * s1 - 1.0) + bulk;
}

static const weft_tri_density density = {stvk_psi, stvk_hessian, stvk_eigen};

static void stvk_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tri_rest(e, xe, p->uv);
    weft_membrane_lame(p->stiffness, p->poisson, &e->k, &e->k2);
}

static double stvk_energy(const weft_element *e, const double *xe) {
    return weft_tri_energy(&density, e, xe);
}

static double stvk_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tri_gradient(&density, e, xe, g);
}

static double stvk_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                        double *H) {
    return weft_tri_hessian(&density, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of stvk_hess's (vertex block descent). */
static double stvk_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                  int v, double *g, double *H) {
    return weft_tri_vertex_hessian(&density, e, xe, mode, v, g, H);
}

const weft_energy_type weft_stvk_membrane = {
    .name = "stvk",
    .paper = "Kim & Eberle 2020 ch. 3-5, 7.2 (StVK, membrane F)",
    .summary = "StVK membrane mu |E|^2 + lambda/2 tr(E)^2, E = (F^T F - I)/2, plane-stress Lame",
    .kind = WEFT_ELEM_TRIANGLE,
    .nv = 3,
    .init = stvk_init,
    .energy = stvk_energy,
    .gradient = stvk_gradient,
    .hessian = stvk_hess,
    .vertex_hessian = stvk_vertex_hessian,
    .analytic_psd = true,
};
