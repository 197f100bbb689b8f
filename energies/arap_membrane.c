/* arap_membrane.c — as-rigid-as-possible membrane (Kim & Eberle, "Dynamic Deformables",
 * ch. 3–5 for ARAP, ch. 7.2 for the membrane's 3×2 F):
 *   ψ = μ/2 ‖F − R‖² = μ/2 ((σ0 − 1)² + (σ1 − 1)²)  (J/m²),
 * R = U₃ₓ₂ Vᵀ the closest 3×2 matrix with orthonormal columns (weft_svd32), P = μ(F − R).
 * For the exact Hessian, ψ = μ/2 (I_C − 2 I₁ + 2) with I₁ = σ0 + σ1 = √(I_C + 2J)
 * (I₁² = σ0² + σ1² + 2σ0σ1), so
 *   ∂I₁ = (F + ∂J)/I₁ = R,   ∂²I₁ = (I + ∂²J − vec(R) vec(R)ᵀ)/I₁,
 *   ∂²ψ/∂F² = μ I − μ ∂²I₁,
 * with J, ∂J, ∂²J from weft_fem_tri_area_ratio. The value and P use the SVD, which stays
 * accurate near rest where I_C − 2I₁ + 2 would cancel.
 *
 * Material (papers/calibration.md): μ = Y, the membrane stiffness itself (N/m).
 * A small strain e (F = R[I + e; 0]) costs μ/2 ‖e‖², the linear membrane with shear
 * modulus μ/2 and λ = 0, whose Young's modulus is 2 (μ/2) = Y and Poisson ratio 0: ARAP
 * has no bulk term, so it cannot represent ν and ignores the scene's; under uniaxial
 * stress it matches every other membrane at the same Y, at ν = 0 in every small strain.
 * (Before that calibration, μ was the shear modulus Y/(2(1 + ν)): 2(1 + ν) times softer.)
 * Element data: k = μ, k2 = 0.
 *
 * Eigenvalues (ψ_j = μ(σ_j − 1)): ψ_00 = ψ_11 = μ, ψ_01 = 0, twist μ(1 − 2/(σ0 + σ1)),
 * flip μ, out of plane μ(1 − 1/σ_j). The twist and out-of-plane values tend to −∞ as the
 * triangle collapses (σ1 → 0, or F → 0) and are then passed as −INFINITY. */
#include "fem_tri_energy.h"

#include <math.h>

static double arap_psi(const weft_element *e, const double F[6], double P[6]) {
    double U[9], s[2], V[4], mu = e->k;
    weft_svd32(F, U, s, V);
    if (P)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 2; c++) {
                double R = U[3 * r] * V[2 * c] + U[3 * r + 1] * V[2 * c + 1];
                P[2 * r + c] = mu * (F[2 * r + c] - R);
            }
    return 0.5 * mu * ((s[0] - 1.0) * (s[0] - 1.0) + (s[1] - 1.0) * (s[1] - 1.0));
}

static void arap_hessian(const weft_element *e, const double F[6], double A[36]) {
    double mu = e->k, dJ[6], d2J[36], r[6], ic = 0.0;
    double J = weft_fem_tri_area_ratio(F, dJ, d2J);
    for (int i = 0; i < 6; i++) ic += F[i] * F[i];
    double I1 = sqrt(ic + 2.0 * J);
    /* I₁ = 0 only at F = 0, where ∂²I₁ is unbounded: evaluated at I₁ = 1e-12 there. */
    double i1d = fmax(I1, 1e-12);
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 3; k++)
            r[3 * c + k] = I1 > 0.0 ? (F[2 * k + c] + dJ[3 * c + k]) / I1 : 0.0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            A[6 * i + j] = (i == j ? mu : 0.0) -
                           mu * ((i == j ? 1.0 : 0.0) + d2J[6 * i + j] - r[i] * r[j]) / i1d;
}

static void arap_eigen(const weft_element *e, const double s[2], weft_fem_eigen *eig) {
    double mu = e->k, I1 = s[0] + s[1];
    eig->scale[0] = eig->scale[4] = mu;
    eig->scale[1] = eig->scale[3] = 0.0;
    eig->twist[0] = I1 > 0.0 ? mu * (1.0 - 2.0 / I1) : -INFINITY;
    eig->flip[0] = mu;
    for (int j = 0; j < 2; j++)
        eig->out_of_plane[j] = s[j] > 0.0 ? mu * (1.0 - 1.0 / s[j]) : -INFINITY;
}

static const weft_tri_density density = {arap_psi, arap_hessian, arap_eigen};

static void arap_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tri_rest(e, xe, p->uv);
    e->k = p->stiffness; /* μ = Y: small-strain modulus Y, ν = 0 (see the top) */
    e->k2 = 0.0;
}

static double arap_energy(const weft_element *e, const double *xe) {
    return weft_tri_energy(&density, e, xe);
}

static double arap_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tri_gradient(&density, e, xe, g);
}

static double arap_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                        double *H) {
    return weft_tri_hessian(&density, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of arap_hess's (vertex block descent). */
static double arap_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                  int v, double *g, double *H) {
    return weft_tri_vertex_hessian(&density, e, xe, mode, v, g, H);
}

/* Projective form (Bouaziz et al. 2014 §5, strain constraint): w = μ W, A x = the two
 * columns of F (weft_fem_projective_rows), C the 3×2 matrices with orthonormal columns,
 * P(F) = U₃ₓ₂ Vᵀ: ½ μ W ‖F − P(F)‖² is this energy. */
static double arap_pd_form(const weft_element *e, double *A) {
    return e->k * weft_fem_projective_rows(e, 2, A);
}

static void arap_pd_project(const weft_element *e, const double *y, double *p) {
    (void)e;
    double F[6], U[9], s[2], V[4];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) F[2 * r + c] = y[3 * c + r];
    weft_svd32(F, U, s, V);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) p[3 * c + r] = U[3 * r] * V[2 * c] + U[3 * r + 1] * V[2 * c + 1];
}

static const weft_projective arap_projective = {2, arap_pd_form, arap_pd_project, NULL};

const weft_energy_type weft_arap_membrane = {
    .name = "arap",
    .paper = "Kim & Eberle 2020 ch. 3-5, 7.2 (ARAP, membrane F)",
    .summary = "ARAP membrane mu/2 |F - R|^2, R = U V^T the closest orthonormal 3x2 matrix; "
               "mu = Y: modulus Y, Poisson ratio 0 (ignores nu)",
    .kind = WEFT_ELEM_TRIANGLE,
    .nv = 3,
    .init = arap_init,
    .energy = arap_energy,
    .gradient = arap_gradient,
    .hessian = arap_hess,
    .vertex_hessian = arap_vertex_hessian,
    .analytic_psd = true,
    .projective = &arap_projective,
};
