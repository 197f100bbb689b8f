/* neo_hookean_membrane.c — classic Neo-Hookean membrane (Bonet & Wood's compressible
 * form; Kim & Eberle, "Dynamic Deformables", ch. 3–5, with the 3×2 F of ch. 7.2):
 *   ψ = μ/2 (I_C − 2) − μ log J + λ/2 (log J)²  (J/m²),  I_C = ‖F‖²,  J = |f0 × f1| = σ0σ1,
 *   P = μF + (λ log J − μ)/J ∂J,
 *   ∂²ψ/∂F² = μI + (λ log J − μ)/J ∂²J + (λ(1 − log J) + μ)/J² ∂J ∂Jᵀ,
 * with J, ∂J, ∂²J from weft_fem_tri_area_ratio. For the value, ψ is evaluated as the sum
 * of three non-negative terms, exact rewrites that avoid cancelling O(1) numbers near
 * rest (I_C − 2J = (σ0 − σ1)² = ((a − c)² + 4b²)/(I_C + 2J) with a = |f0|², b = f0·f1,
 * c = |f1|², by Lagrange's J² = ac − b²):
 *   ψ = μ/2 (I_C − 2J) + μ (x − log(1 + x)) + λ/2 (log J)²,  x = J − 1.
 *
 * Domain: log J → −∞ as the triangle collapses. A membrane cannot invert (J ≥ 0 always),
 * but where J ≤ WEFT_TRI_J_EPS ‖F‖² (collapsed to rounding, fem_tri_energy.h) ψ is
 * returned as +INFINITY and the driver zeroes g and H, so a line search rejects the step.
 *
 * Material: plane-stress μ = Y/(2(1 + ν)), λ = Yν/(1 − ν²) (N/m; stvk_membrane.c says
 * why); k = μ, k2 = λ. Eigenvalues (ψ_j = μσ_j + (λ log J − μ)/σ_j, ℓ = log J):
 *   ψ_jj = μ + (μ + λ(1 − ℓ))/σ_j²,  ψ_01 = λ/J,
 *   twist μ + (λℓ − μ)/J,  flip μ − (λℓ − μ)/J,  out of plane μ + (λℓ − μ)/σ_j²
 * (ψ_0 ± ψ_1 = (σ0 ± σ1)(μ ± (λℓ − μ)/J) since 1/σ0 ± 1/σ1 = (σ1 ± σ0)/J). */
#include "fem_tri_energy.h"

#include <math.h>

static double nh_psi(const weft_element *e, const double F[6], double P[6]) {
    double mu = e->k, la = e->k2, a = 0.0, b = 0.0, c = 0.0, dJ[6];
    for (int r = 0; r < 3; r++) {
        a += F[2 * r] * F[2 * r];
        b += F[2 * r] * F[2 * r + 1];
        c += F[2 * r + 1] * F[2 * r + 1];
    }
    double ic = a + c, J = weft_fem_tri_area_ratio(F, P ? dJ : NULL, NULL);
    if (!(J > WEFT_TRI_J_EPS * ic)) return INFINITY;
    double lj = log(J), x = J - 1.0;
    double shear = ((a - c) * (a - c) + 4.0 * b * b) / (ic + 2.0 * J);
    if (P) {
        double t = (la * lj - mu) / J;
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 2; col++)
                P[2 * r + col] = mu * F[2 * r + col] + t * dJ[3 * col + r];
    }
    return 0.5 * mu * shear + mu * (x - log1p(x)) + 0.5 * la * lj * lj;
}

static void nh_hessian(const weft_element *e, const double F[6], double A[36]) {
    double mu = e->k, la = e->k2, dJ[6], d2J[36];
    double J = weft_fem_tri_area_ratio(F, dJ, d2J), lj = log(J);
    double t = (la * lj - mu) / J, u = (la * (1.0 - lj) + mu) / (J * J);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            A[6 * i + j] = (i == j ? mu : 0.0) + t * d2J[6 * i + j] + u * dJ[i] * dJ[j];
}

static void nh_eigen(const weft_element *e, const double s[2], weft_fem_eigen *eig) {
    double mu = e->k, la = e->k2, J = s[0] * s[1], lj = log(J), t = (la * lj - mu) / J;
    double d = mu + la * (1.0 - lj);
    eig->scale[0] = mu + d / (s[0] * s[0]);
    eig->scale[4] = mu + d / (s[1] * s[1]);
    eig->scale[1] = eig->scale[3] = la / J;
    eig->twist[0] = mu + t;
    eig->flip[0] = mu - t;
    eig->out_of_plane[0] = mu + (la * lj - mu) / (s[0] * s[0]);
    eig->out_of_plane[1] = mu + (la * lj - mu) / (s[1] * s[1]);
}

static const weft_tri_density density = {nh_psi, nh_hessian, nh_eigen};

static void nh_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tri_rest(e, xe, p->uv);
    weft_membrane_lame(p->stiffness, p->poisson, &e->k, &e->k2);
}

static double nh_energy(const weft_element *e, const double *xe) {
    return weft_tri_energy(&density, e, xe);
}

static double nh_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tri_gradient(&density, e, xe, g);
}

static double nh_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                      double *H) {
    return weft_tri_hessian(&density, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of nh_hess's (vertex block descent). */
static double nh_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                int v, double *g, double *H) {
    return weft_tri_vertex_hessian(&density, e, xe, mode, v, g, H);
}

const weft_energy_type weft_neo_hookean_membrane = {
    .name = "neo_hookean",
    .paper = "Kim & Eberle 2020 ch. 3-5, 7.2 (Neo-Hookean, membrane F)",
    .summary = "Neo-Hookean membrane mu/2 (I_C - 2) - mu log J + lambda/2 log^2 J, "
               "J = |f0 x f1|; +inf at a collapsed triangle",
    .kind = WEFT_ELEM_TRIANGLE,
    .nv = 3,
    .init = nh_init,
    .energy = nh_energy,
    .gradient = nh_gradient,
    .hessian = nh_hess,
    .vertex_hessian = nh_vertex_hessian,
    .analytic_psd = true,
};
