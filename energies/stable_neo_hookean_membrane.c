/* stable_neo_hookean_membrane.c — Stable Neo-Hookean membrane (Smith, de Goes, Kim 2018
 * §3–4, in the form of Kim & Eberle, "Dynamic Deformables", ch. 3–5, with the 3×2 F of
 * ch. 7.2):
 *   ψ = μ/2 (I_C − 2) − μ (J − 1) + λ'/2 (J − 1)²  (J/m²),  I_C = ‖F‖²,  J = |f0 × f1| = σ0σ1,
 *   P = μF + (λ'(J − 1) − μ) ∂J,
 *   ∂²ψ/∂F² = μI + λ' ∂J ∂Jᵀ + (λ'(J − 1) − μ) ∂²J,
 * with J, ∂J, ∂²J from weft_fem_tri_area_ratio. Since I_C − 2 − 2(J − 1) = (σ0 − σ1)²,
 *   ψ = μ/2 (σ0 − σ1)² + λ'/2 (J − 1)² ≥ 0,
 * zero only at rest, finite for every F (no log barrier; a membrane cannot invert, J ≥ 0);
 * the value is evaluated in this form, with (σ0 − σ1)² = ((a − c)² + 4b²)/(I_C + 2J)
 * (a = |f0|², b = f0·f1, c = |f1|², J² = ac − b²) to avoid cancellation near rest.
 *
 * Lamé re-parametrisation. With F = [I + ε; 0] (ε 2×2, symmetric part e),
 * I_C − 2 = 2 tr ε + ‖ε‖² and J − 1 = tr ε + ½(tr² ε − tr ε²) + O(ε³), so
 *   ψ = μ‖e‖² + (λ' − μ)/2 tr² e + O(ε³)
 * (the −μ(J − 1) term both cancels the linear term and subtracts μ/2 tr² e). To match
 * linear elasticity μ‖e‖² + λ/2 tr² e — and StVK and Neo-Hookean at small strain — the
 * stored constant is λ' = λ + μ. μ, λ are the plane-stress constants μ = Y/(2(1 + ν)),
 * λ = Yν/(1 − ν²) (N/m; stvk_membrane.c says why). Element data: k = μ, k2 = λ' = λ + μ.
 *
 * Eigenvalues (ψ_0 = μ(σ0 − σ1) + λ'(J − 1)σ1, symmetric in 0 ↔ 1; c = λ'(J − 1) − μ):
 *   ψ_00 = μ + λ'σ1²,  ψ_11 = μ + λ'σ0²,  ψ_01 = λ'(2J − 1) − μ,
 *   twist λ'(J − 1),  flip 2μ − λ'(J − 1),  out of plane μ + c σ1/σ0 and μ + c σ0/σ1.
 * As σ1 → 0, J → 0 and c → −(λ' + μ) < 0, so the second out-of-plane value → −∞ (the
 * cone of J = |f0 × f1| at a collapsed triangle); it is then passed as −INFINITY. */
#include "fem_tri_energy.h"

#include <math.h>

static double snh_psi(const weft_element *e, const double F[6], double P[6]) {
    double mu = e->k, la = e->k2, a = 0.0, b = 0.0, c = 0.0, dJ[6];
    for (int r = 0; r < 3; r++) {
        a += F[2 * r] * F[2 * r];
        b += F[2 * r] * F[2 * r + 1];
        c += F[2 * r + 1] * F[2 * r + 1];
    }
    double J = weft_fem_tri_area_ratio(F, P ? dJ : NULL, NULL), den = a + c + 2.0 * J;
    double shear = den > 0.0 ? ((a - c) * (a - c) + 4.0 * b * b) / den : 0.0; /* F = 0 */
    if (P) {
        double t = la * (J - 1.0) - mu;
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 2; col++)
                P[2 * r + col] = mu * F[2 * r + col] + t * dJ[3 * col + r];
    }
    return 0.5 * mu * shear + 0.5 * la * (J - 1.0) * (J - 1.0);
}

static void snh_hessian(const weft_element *e, const double F[6], double A[36]) {
    double mu = e->k, la = e->k2, dJ[6], d2J[36];
    double J = weft_fem_tri_area_ratio(F, dJ, d2J), t = la * (J - 1.0) - mu;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            A[6 * i + j] = (i == j ? mu : 0.0) + la * dJ[i] * dJ[j] + t * d2J[6 * i + j];
}

static void snh_eigen(const weft_element *e, const double s[2], weft_fem_eigen *eig) {
    double mu = e->k, la = e->k2, J = s[0] * s[1], c = la * (J - 1.0) - mu;
    eig->scale[0] = mu + la * s[1] * s[1];
    eig->scale[4] = mu + la * s[0] * s[0];
    eig->scale[1] = eig->scale[3] = la * (2.0 * J - 1.0) - mu;
    eig->twist[0] = la * (J - 1.0);
    eig->flip[0] = 2.0 * mu - la * (J - 1.0);
    /* σ1/σ0 ∈ [0, 1]; at F = 0 take the limit of a uniform collapse, 1. */
    double ratio = s[0] > 0.0 ? s[1] / s[0] : 1.0;
    eig->out_of_plane[0] = mu + c * ratio;
    eig->out_of_plane[1] = ratio > 0.0 ? mu + c / ratio : -INFINITY;
}

static const weft_tri_density density = {snh_psi, snh_hessian, snh_eigen};

static void snh_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double mu, la;
    weft_fem_tri_rest(e, xe, p->uv);
    weft_membrane_lame(p->stiffness, p->poisson, &mu, &la);
    e->k = mu;
    e->k2 = la + mu;
}

static double snh_energy(const weft_element *e, const double *xe) {
    return weft_tri_energy(&density, e, xe);
}

static double snh_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tri_gradient(&density, e, xe, g);
}

static double snh_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                       double *H) {
    return weft_tri_hessian(&density, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of snh_hess's (vertex block descent). */
static double snh_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                 int v, double *g, double *H) {
    return weft_tri_vertex_hessian(&density, e, xe, mode, v, g, H);
}

const weft_energy_type weft_stable_neo_hookean_membrane = {
    .name = "stable_neo_hookean",
    .paper = "Smith, de Goes, Kim 2018 §3-4; Kim & Eberle 2020 ch. 7.2 (membrane F)",
    .summary = "Stable Neo-Hookean membrane mu/2 (I_C - 2) - mu (J - 1) + lambda'/2 (J - 1)^2, "
               "lambda' = lambda + mu",
    .kind = WEFT_ELEM_TRIANGLE,
    .nv = 3,
    .init = snh_init,
    .energy = snh_energy,
    .gradient = snh_gradient,
    .hessian = snh_hess,
    .vertex_hessian = snh_vertex_hessian,
    .analytic_psd = true,
};
