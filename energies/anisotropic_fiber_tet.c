/* anisotropic_fiber_tet.c — an inversion-aware fibre along a rest-space direction a in
 * each tetrahedron (Kim, de Goes, Iben 2019, "Anisotropic Elasticity for Inversion-Safety
 * and Element Rehabilitation", the I5 energy with the sign of I4):
 *   ψ = κ/2 (√I5 − sgn(I4))²   (J/m³),   I5 = aᵀ FᵀF a = ‖F a‖²,   I4 = aᵀ S a,
 * with F = R S the polar decomposition from the rotation-variant SVD (R = U Vᵀ,
 * S = V Σ Vᵀ, so I4 = Σ_i σ_i (Vᵀa)_i²) and sgn the sign function (the paper's S(I4)),
 * taken as +1 at 0. The fibre's stretch √I5 is pulled to +1 while the fibre points
 * forwards; a fibre turned backwards (I4 < 0) is pulled towards −1, unreachable for
 * √I5 ≥ 0, so it shrinks to zero length, through which it can flip back.
 * If det F ≥ 0 then S is positive semi-definite, I4 ≥ 0 and sgn(I4) = +1, so the SVD is
 * needed only for inverted elements.
 *
 * Derivatives, with A = a aᵀ, f = F a and s = sgn(I4) locally constant (I4 ≠ 0):
 *   ∂√I5/∂F = f aᵀ/√I5,   P = κ (√I5 − s) f aᵀ/√I5 = κ (1 − s/√I5) F A   (Pa),
 *   dP = κ (1 − s/√I5) dF A + κ s I5^(−3/2) (f aᵀ : dF) f aᵀ,
 * so, with f̂ = f/√I5, the 9×9 over vec(F) is
 *   ∂²ψ/∂F² = κ (1 − s/√I5) (A ⊗ I₃) + κ s/√I5 vec(f̂ aᵀ) vec(f̂ aᵀ)ᵀ,
 * whose entry in row 3q + p, column 3c + r is
 *   κ (1 − s/√I5) a_q a_c δ_pr + κ s/√I5 f̂_p a_q f̂_r a_c.
 * Where this does not hold: across I4 = 0 (reachable only by inverted elements) sgn jumps
 * and ψ jumps by 2κ√I5; the formulas above are the one-sided ones. At f = 0 (I5 = 0, the
 * fibre crushed to a point) ψ = κ/2 has a cone-like kink with no derivative; we return
 * P = 0 and ∂²ψ/∂F² = 0 there (finite I5 > 0, however small, uses the formulas).
 *
 * Not isotropic, so there is no analytic eigensystem in the Smith et al. 2019 sense here:
 * analytic_psd = false and WEFT_HESSIAN_ANALYTIC clamps ∂²ψ/∂F² like WEFT_HESSIAN_CLAMP.
 * Element data: fem.h layout, rest[10..12] = a (unit, rest space), k = κ (Pa) from
 * p->fiber_stiffness, k2 unused (0). A zero or non-finite p->fiber gives a = 0 and κ = 0:
 * no fibre. */
#include "fem_tet_energy.h"

#include <math.h>
#include <string.h>

static void fiber_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tet_rest(e, xe);
    double n =
        sqrt(p->fiber[0] * p->fiber[0] + p->fiber[1] * p->fiber[1] + p->fiber[2] * p->fiber[2]);
    bool ok = n > 0.0 && isfinite(n);
    for (int k = 0; k < 3; k++) e->rest[10 + k] = ok ? p->fiber[k] / n : 0.0;
    e->k = ok ? p->fiber_stiffness : 0.0;
    e->k2 = 0.0;
}

/* sgn(I4): +1 unless the fibre is inverted (I4 = aᵀ V Σ Vᵀ a < 0, needs det F < 0). */
static double fiber_sign(const double F[9], const double *a) {
    if (weft_m3_det(F) >= 0.0) return 1.0;
    double U[9], s[3], V[9], i4 = 0.0;
    weft_svd3_rv(F, U, s, V);
    for (int i = 0; i < 3; i++) {
        double va = V[i] * a[0] + V[3 + i] * a[1] + V[6 + i] * a[2]; /* (Vᵀ a)_i */
        i4 += s[i] * va * va;
    }
    return i4 < 0.0 ? -1.0 : 1.0;
}

/* f = F a; returns I5 = ‖f‖². */
static double fiber_image(const double F[9], const double *a, double f[3]) {
    for (int r = 0; r < 3; r++) f[r] = F[3 * r] * a[0] + F[3 * r + 1] * a[1] + F[3 * r + 2] * a[2];
    return f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
}

static double fiber_psi(const weft_element *e, const double F[9], double P[9]) {
    const double *a = &e->rest[10];
    double kappa = e->k, f[3];
    double i5 = fiber_image(F, a, f), sign = fiber_sign(F, a), root = sqrt(i5);
    if (P) {
        double w = i5 > 0.0 ? kappa * (1.0 - sign / root) : 0.0;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) P[3 * r + c] = w * f[r] * a[c];
    }
    return 0.5 * kappa * (root - sign) * (root - sign);
}

static void fiber_hessian(const weft_element *e, const double F[9], double A[81]) {
    const double *a = &e->rest[10];
    double kappa = e->k, f[3];
    double i5 = fiber_image(F, a, f);
    if (!(i5 > 0.0)) {
        memset(A, 0, 81 * sizeof *A);
        return;
    }
    double root = sqrt(i5), t = fiber_sign(F, a) / root;
    for (int k = 0; k < 3; k++) f[k] /= root; /* f̂ */
    for (int q = 0; q < 3; q++)
        for (int p = 0; p < 3; p++)
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++) {
                    double h = kappa * t * f[p] * a[q] * f[r] * a[c];
                    if (p == r) h += kappa * (1.0 - t) * a[q] * a[c];
                    A[9 * (3 * q + p) + 3 * c + r] = h;
                }
}

static const weft_tet_density FIBER = {fiber_psi, fiber_hessian, NULL};

static double fiber_energy(const weft_element *e, const double *xe) {
    return weft_tet_energy(&FIBER, e, xe);
}

static double fiber_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tet_gradient(&FIBER, e, xe, g);
}

static double fiber_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                         double *H) {
    return weft_tet_hessian(&FIBER, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of fiber_hess's (vertex block descent). */
static double fiber_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                   int v, double *g, double *H) {
    return weft_tet_vertex_hessian(&FIBER, e, xe, mode, v, g, H);
}

const weft_energy_type weft_anisotropic_fiber_tet = {
    .name = "anisotropic_fiber",
    .paper = "Kim, de Goes, Iben 2019 (inversion-aware anisotropy)",
    .summary = "fibre kappa/2 (sqrt(I5) - sign(I4))^2 along a rest direction a",
    .kind = WEFT_ELEM_TET,
    .nv = 4,
    .init = fiber_init,
    .energy = fiber_energy,
    .gradient = fiber_gradient,
    .hessian = fiber_hess,
    .vertex_hessian = fiber_vertex_hessian,
    .analytic_psd = false,
    .constraint = NULL,
};
