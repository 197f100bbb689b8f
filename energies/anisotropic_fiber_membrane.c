/* anisotropic_fiber_membrane.c — the fibre term of Kim, de Goes, Iben 2019 ("Anisotropic
 * elasticity for inversion-safety and element rehabilitation", §3–4) on a membrane:
 *   ψ = κ/2 (√I5 − S(I4))²  (J/m²),  I5 = aᵀFᵀF a = |F a|²,  I4 = aᵀ S a,
 * a the unit fibre direction in material (u, v) space and F = R S the polar decomposition.
 * The sign S(I4) tells a fibre that points backwards in an inverted tetrahedron. A
 * membrane cannot invert: with weft_svd32, R = U₃ₓ₂Vᵀ and S = VΣVᵀ with σ0, σ1 ≥ 0, so
 *   I4 = aᵀVΣVᵀa = σ0 (v0·a)² + σ1 (v1·a)² ≥ 0,   and I4 = (R a)·(F a) since RᵀR = I₂.
 * I4 = 0 forces σ_j (v_j·a) = 0 for both j, i.e. F a = 0, where (0 − 1)² = (0 + 1)²: the
 * sign never matters, and the membrane energy is the fibre spring
 *   ψ = κ/2 (|w| − 1)²,  w = F a  (a thread along a; Baraff & Witkin's C_u for a = e_u).
 * Derivatives (∂w_r/∂F_sc = δ_rs a_c):
 *   P = κ (|w| − 1) ŵ aᵀ,
 *   ∂²ψ/∂F_rc∂F_sd = a_c a_d κ [(1 − 1/|w|) δ_rs + ŵ_r ŵ_s/|w|],
 * negative (1 − 1/|w| < 0) across the fibre when it is compressed. The energy is not
 * isotropic: WEFT_HESSIAN_ANALYTIC is WEFT_HESSIAN_CLAMP. At F a = 0, ŵ = 0 and 1/|w| is
 * evaluated at |w| = 1e-12 (the exact curvature is unbounded at the cone point).
 *
 * Material: κ = the scene's fibre stiffness (N/m). Element data: k = κ, rest[10..11] = a
 * (p->fiber[0..1] normalised); a fibre with no (u, v) component gives k = 0, no energy. */
#include "fem_tri_energy.h"

#include <math.h>

/* w = F a and ŵ (0 for w = 0); returns |w|. */
static double fiber_stretch(const weft_element *e, const double F[6], double w[3], double wh[3]) {
    const double *a = &e->rest[10];
    for (int r = 0; r < 3; r++) w[r] = F[2 * r] * a[0] + F[2 * r + 1] * a[1];
    double l = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    for (int r = 0; r < 3; r++) wh[r] = l > 0.0 ? w[r] / l : 0.0;
    return l;
}

static double fiber_psi(const weft_element *e, const double F[6], double P[6]) {
    double w[3], wh[3], kappa = e->k, l = fiber_stretch(e, F, w, wh);
    if (P)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 2; c++) P[2 * r + c] = kappa * (l - 1.0) * wh[r] * e->rest[10 + c];
    return 0.5 * kappa * (l - 1.0) * (l - 1.0);
}

static void fiber_hessian(const weft_element *e, const double F[6], double A[36]) {
    double w[3], wh[3], kappa = e->k, l = fiber_stretch(e, F, w, wh), il = 1.0 / fmax(l, 1e-12);
    const double *a = &e->rest[10];
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 3; r++)
            for (int d = 0; d < 2; d++)
                for (int s = 0; s < 3; s++)
                    A[6 * (3 * c + r) + 3 * d + s] =
                        a[c] * a[d] * kappa * ((r == s ? 1.0 - il : 0.0) + wh[r] * wh[s] * il);
}

static const weft_tri_density density = {fiber_psi, fiber_hessian, NULL};

static void fiber_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_fem_tri_rest(e, xe, p->uv);
    double la = hypot(p->fiber[0], p->fiber[1]);
    e->rest[10] = la > 0.0 ? p->fiber[0] / la : 0.0;
    e->rest[11] = la > 0.0 ? p->fiber[1] / la : 0.0;
    e->k = la > 0.0 ? p->fiber_stiffness : 0.0;
    e->k2 = 0.0;
}

static double fiber_energy(const weft_element *e, const double *xe) {
    return weft_tri_energy(&density, e, xe);
}

static double fiber_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tri_gradient(&density, e, xe, g);
}

static double fiber_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                         double *H) {
    return weft_tri_hessian(&density, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of fiber_hess's (vertex block descent). */
static double fiber_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                   int v, double *g, double *H) {
    return weft_tri_vertex_hessian(&density, e, xe, mode, v, g, H);
}

const weft_energy_type weft_anisotropic_fiber_membrane = {
    .name = "anisotropic_fiber",
    .paper = "Kim, de Goes, Iben 2019 §3-4 (membrane: S(I4) = +1)",
    .summary = "fibre kappa/2 (sqrt(I5) - S(I4))^2 = kappa/2 (|F a| - 1)^2 on a membrane, "
               "a the unit (u, v) fibre direction",
    .kind = WEFT_ELEM_TRIANGLE,
    .nv = 3,
    .init = fiber_init,
    .energy = fiber_energy,
    .gradient = fiber_gradient,
    .hessian = fiber_hess,
    .vertex_hessian = fiber_vertex_hessian,
    .analytic_psd = false,
};
