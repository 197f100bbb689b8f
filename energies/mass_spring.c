/* mass_spring.c — mass-spring stretch on mesh edges, the implicit twin of the PBD
 * distance constraint (Müller 2006 eqs. 10–11):
 *   C(x0, x1) = |x0 − x1| − ℓ0,   Ψ = ½ k C²,   ∂Ψ/∂x0 = k C d̂ = −∂Ψ/∂x1,  d̂ = (x0 − x1)/|x0 − x1|.
 * The spring constant comes from the membrane stiffness Y (N/m, ≈ Young's modulus ×
 * thickness): every triangle T gives each of its three edges Y A_T / ℓ0², so
 *   k = Y (A_1 + A_2) / ℓ0²  (N/m),  A_1, A_2 the rest areas of the edge's triangles
 * (one for a boundary edge), and a triangle's springs store ½ Y A_T Σ_i ε_i² under edge
 * strains ε_i. Calibration (papers/calibration.md): on an equilateral mesh this is the
 * isotropic membrane of Young's modulus Y and Poisson ratio 1/3 (λ = μ = 3Y/8, the only
 * isotropic membrane a spring network can be: Cauchy's relation λ = μ); on a grid of right
 * triangles with regular diagonals the modulus along the grid axes is Y with ν = 0 (and a
 * shear–stretch coupling), with alternating diagonals 6Y/5 with ν = 1/5. A spring network
 * cannot represent any other ν, nor isotropy on a grid. weft_energy_params gives edges a
 * third of that area (p->area), hence the factor 3 below. Until the calibration of papers/calibration.md the weight was
 * Y p->area / ℓ0², three times softer (Y/3 on an equilateral mesh): that model is this one
 * with stretch_stiffness divided by 3.
 *
 * Hessian (Ψ depends on d = x0 − x1 only, so the 6×6 matrix has a 3×3 block K):
 *   ∂²Ψ/∂x² = [[K, −K], [−K, K]],   K = ∂²Ψ/∂d² = k d̂d̂ᵀ + k (1 − ℓ0/ℓ)(I − d̂d̂ᵀ),  ℓ = |d|,
 * from ∂ℓ/∂d = d̂ and ∂d̂/∂d = (I − d̂d̂ᵀ)/ℓ (the spring force Jacobian of Choi & Ko 2002).
 * K has the eigenvalue k along d̂ and k (1 − ℓ0/ℓ) twice across it; [[1, −1], [−1, 1]] ⊗ K
 * has the eigenvalues 2λ(K) (vectors (q, −q)) and 0 three times (translations (q, q)).
 * So the PSD projection (Smith, de Goes, Kim 2019 §3: negative eigenvalues set to 0) is
 * exactly K with the transverse factor clamped, max(0, 1 − ℓ0/ℓ): the ANALYTIC mode. It
 * differs from the exact Hessian only for a compressed spring (ℓ < ℓ0).
 *
 * Coincident ends (ℓ = 0, or ℓ0/ℓ overflowing): d̂ is undefined and, for ℓ0 > 0, Ψ has a
 * cone-shaped peak there (Ψ = ½ k (|d| − ℓ0)²), so no Hessian exists. Along every ray
 * d = t q (|q| = 1, t → 0⁺) the second derivative of Ψ is k, so K = k I reproduces the
 * curvature in every direction; it is PSD (hence its own projection in all modes),
 * equals the true Hessian when ℓ0 = 0, and goes with the zero gradient the constraint
 * returns there (the mean of the two one-sided slopes ±k ℓ0).
 * Element data: rest[0] = ℓ0 (m). */
#include "fem.h"

#include <string.h>

static void ms_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l0 = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    e->rest[0] = l0;
    e->k = l0 > 0.0 ? p->stiffness * 3.0 * p->area / (l0 * l0) : 0.0; /* Y (A_1 + A_2)/ℓ0² */
}

static double ms_constraint(const weft_element *e, const double *xe, double *grad) {
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (grad) {
        double il = l > 0.0 ? 1.0 / l : 0.0; /* coincident ends: no direction, no force */
        for (int k = 0; k < 3; k++) {
            grad[k] = d[k] * il;
            grad[3 + k] = -d[k] * il;
        }
    }
    return l - e->rest[0];
}

static double ms_energy(const weft_element *e, const double *xe) {
    double C = ms_constraint(e, xe, NULL);
    return 0.5 * e->k * C * C;
}

static double ms_gradient(const weft_element *e, const double *xe, double *g) {
    double C = ms_constraint(e, xe, g);
    for (int k = 0; k < 6; k++) g[k] *= e->k * C;
    return 0.5 * e->k * C * C;
}

/* The 6×6 matrix [[K, −K], [−K, K]], K = t I + (k − t) d̂d̂ᵀ: stiffness k along the spring
 * and t (N/m) across it, the transverse part clamped at 0 in ANALYTIC mode and the whole
 * matrix by weft_psd_clamp in CLAMP mode; K = k I at coincident ends (the top of the file). */
static void ms_matrix(const weft_element *e, const double *xe, double t, weft_hessian_mode mode,
                      double *H) {
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double r = e->rest[0] / l; /* ℓ0/ℓ; +inf or NaN when ℓ = 0 */
    double dh[3] = {0.0, 0.0, 0.0};
    if (l > 0.0 && isfinite(r)) {
        for (int k = 0; k < 3; k++) dh[k] = d[k] / l;
        if (mode == WEFT_HESSIAN_ANALYTIC && t < 0.0) t = 0.0;
    } else {
        t = e->k; /* coincident ends: K = k I */
    }
    memset(H, 0, 36 * sizeof *H);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double K = (e->k - t) * dh[i] * dh[j] + (i == j ? t : 0.0);
            H[6 * i + j] = H[6 * (i + 3) + j + 3] = K;
            H[6 * i + j + 3] = H[6 * (i + 3) + j] = -K;
        }
    if (mode == WEFT_HESSIAN_CLAMP) weft_psd_clamp(H, 6);
}

static double ms_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                         double *g, double *H) {
    double gl[6];
    double psi = ms_gradient(e, xe, g ? g : gl);
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    ms_matrix(e, xe, e->k * (1.0 - e->rest[0] / l), mode, H); /* t = k C/ℓ */
    return psi;
}

const weft_energy_type weft_mass_spring = {
    .name = "mass_spring",
    .paper = "Mueller 2006 eqs. 10-11 (distance constraint as spring energy)",
    .summary = "edge springs 1/2 k (|x0-x1| - l0)^2, k = Y (A1 + A2) / l0^2: modulus Y "
               "(nu = 1/3) on equilateral meshes, Y along the axes of a regular grid",
    .kind = WEFT_ELEM_EDGE,
    .nv = 2,
    .init = ms_init,
    .energy = ms_energy,
    .gradient = ms_gradient,
    .hessian = ms_hessian,
    .analytic_psd = true,
    .constraint = ms_constraint,
    .default_for = WEFT_DEFAULT_MEMBRANE,
};
