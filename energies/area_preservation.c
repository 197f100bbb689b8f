/* area_preservation.c — the worked example of docs/guide-energy.md: a membrane
 * energy that resists only changes of area, written against fem_tri_energy.h in one file.
 *
 *   ψ(F) = K/2 (J − 1)²  (J/m²),   J = |f0 × f1| = σ0 σ1  (deformed / rest area),
 *   P = ∂ψ/∂F = K (J − 1) ∂J/∂F,
 *   ∂²ψ/∂F² = K (∂J ∂Jᵀ + (J − 1) ∂²J)          (Kim & Eberle ch. 4: product rule on P),
 * with J, ∂J and ∂²J from weft_fem_tri_area_ratio. Ψ = W ψ, W the rest area.
 *
 * Analytic eigensystem (Smith, de Goes, Kim 2019, the six membrane modes of fem.h) from
 * ψ(σ0, σ1) = K/2 (σ0σ1 − 1)²:
 *   ψ_0 = K (J − 1) σ1,  ψ_1 = K (J − 1) σ0,
 *   scaling block ψ_00 = K σ1²,  ψ_11 = K σ0²,  ψ_01 = K (2J − 1),
 *   twist (ψ_0 + ψ_1)/(σ0 + σ1) = K (J − 1),   flip (ψ_0 − ψ_1)/(σ0 − σ1) = −K (J − 1),
 *   out of plane ψ_0/σ0 = K (J − 1) σ1/σ0,  ψ_1/σ1 = K (J − 1) σ0/σ1.
 * The last one tends to −∞ as a compressed triangle collapses (σ1 → 0, J < 1); it is
 * handed over as −INFINITY and the projection clamps it to 0.
 *
 * Material: K = λ + μ, the plane-stress bulk (area) modulus Y / (2(1 − ν)) of the scene's
 * membrane stiffness Y (N/m) and Poisson's ratio ν; k = K. Ψ = 0 and ∇Ψ = 0 at rest, it
 * is rotation invariant and it has no shear stiffness: combine it with a shear-resisting
 * membrane, or use it alone to watch area-preserving, shape-free deformation. */
#include "fem_tri_energy.h"

#include <math.h>

static double ap_psi(const weft_element *e, const double F[6], double P[6]) {
    double dJ[6], J = weft_fem_tri_area_ratio(F, P ? dJ : NULL, NULL);
    if (P)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 2; c++) P[2 * r + c] = e->k * (J - 1.0) * dJ[3 * c + r];
    return 0.5 * e->k * (J - 1.0) * (J - 1.0);
}

static void ap_hessian(const weft_element *e, const double F[6], double A[36]) {
    double dJ[6], d2J[36], J = weft_fem_tri_area_ratio(F, dJ, d2J);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) A[6 * i + j] = e->k * (dJ[i] * dJ[j] + (J - 1.0) * d2J[6 * i + j]);
}

/* ψ_j / σ_j = K (J − 1) σ_other / σ_j, as −∞ when σ_j is zero and the element compressed. */
static double out_of_plane(double K, double J, double s_other, double s_j) {
    if (s_j > 0.0) return K * (J - 1.0) * s_other / s_j;
    return J < 1.0 ? -INFINITY : 0.0;
}

static void ap_eigen(const weft_element *e, const double s[2], weft_fem_eigen *eig) {
    double K = e->k, J = s[0] * s[1];
    eig->scale[0] = K * s[1] * s[1];
    eig->scale[4] = K * s[0] * s[0];
    eig->scale[1] = eig->scale[3] = K * (2.0 * J - 1.0);
    eig->twist[0] = K * (J - 1.0);
    eig->flip[0] = -K * (J - 1.0);
    eig->out_of_plane[0] = out_of_plane(K, J, s[1], s[0]);
    eig->out_of_plane[1] = out_of_plane(K, J, s[0], s[1]);
}

static const weft_tri_density density = {ap_psi, ap_hessian, ap_eigen};

static void ap_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double mu, lambda;
    weft_fem_tri_rest(e, xe, p->uv);
    weft_membrane_lame(p->stiffness, p->poisson, &mu, &lambda);
    e->k = lambda + mu;
}

static double ap_energy(const weft_element *e, const double *xe) {
    return weft_tri_energy(&density, e, xe);
}

static double ap_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tri_gradient(&density, e, xe, g);
}

static double ap_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                     double *H) {
    return weft_tri_hessian(&density, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of ap_hess's (vertex block descent). */
static double ap_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                int v, double *g, double *H) {
    return weft_tri_vertex_hessian(&density, e, xe, mode, v, g, H);
}

const weft_energy_type weft_area_preservation_membrane = {
    .name = "area_preservation",
    .paper = "worked example (docs/guide-energy.md); eigensystem after Smith et al. 2019",
    .summary = "area term K/2 (J - 1)^2 per triangle, K = lambda + mu (plane stress)",
    .kind = WEFT_ELEM_TRIANGLE,
    .nv = 3,
    .init = ap_init,
    .energy = ap_energy,
    .gradient = ap_gradient,
    .hessian = ap_hess,
    .vertex_hessian = ap_vertex_hessian,
    .analytic_psd = true,
};
