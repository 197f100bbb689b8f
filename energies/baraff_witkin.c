/* baraff_witkin.c — Baraff & Witkin 1998 §4.2 cloth stretch and shear, written on the
 * membrane's F as in Kim & Eberle, "Dynamic Deformables", ch. 7. The columns of
 * F = [w_u, w_v] are the deformed warp and weft directions (∂x/∂u, ∂x/∂v), and
 *   C_u = |w_u| − 1,  C_v = |w_v| − 1  (stretch),   C_s = w_u · w_v  (shear),
 *   ψ = k_s/2 (C_u² + C_v²) + k_sh/2 C_s²  (J/m²),  Ψ = W ψ (J).
 * Baraff & Witkin scale their conditions by the rest area a, C = a(|w_u| − 1), so their
 * E = k/2 CᵀC grows as a²; Ψ = W ψ makes k_s and k_sh material constants (N/m) and the
 * energy of a uniformly strained sheet independent of its mesh. Choice of constants:
 * k_s = Y (uniaxial stretch ε along a thread costs Y/2 ε², a ν = 0 material: the threads
 * do not couple) and k_sh = μ = Y/(2(1 + ν)) (a small shear angle γ gives C_s = γ and
 * ψ = μ/2 γ², the linear-elastic shear energy μ‖e‖² with e_uv = γ/2).
 * Element data: k = k_s, k2 = k_sh (N/m); rest as in fem.h (material axes u, v from the
 * mesh's uv, or the frame of weft_fem_tri_rest).
 *
 * Derivatives: ∂ψ/∂F = Σ k C ∂C, ∂²ψ/∂F² = Σ k (∂C ∂Cᵀ + C ∂²C), with
 *   ∂C_u/∂w_u = ŵ_u,  ∂²C_u/∂w_u² = (I − ŵ_u ŵ_uᵀ)/|w_u|   (likewise C_v),
 *   ∂C_s/∂(w_u, w_v) = (w_v, w_u),  ∂²C_s = [[0, I], [I, 0]].
 * C_s is quadratic in F, so ∂²C_s is constant — and indefinite (eigenvalues ±1) — so the
 * shear term k_sh C_s ∂²C_s is indefinite whatever the sign of C_s; the stretch curvature
 * C_u (I − ŵŵᵀ)/|w_u| is negative under compression. The energy is not isotropic (it
 * depends on the material axes), so there is no closed-form eigensystem:
 * WEFT_HESSIAN_ANALYTIC is WEFT_HESSIAN_CLAMP, LAPACKE's projection of the 6×6 ∂²ψ/∂F²,
 * which returns the exact matrix bit for bit when it is already PSD.
 * A thread of zero length has no direction: ŵ = 0 there, and 1/|w| in ∂²C is evaluated at
 * |w| = 1e-12 (the exact curvature is unbounded at the cone point). */
#include "fem_tri_energy.h"

#include <math.h>

/* |w| and ŵ (0 for w = 0) of column c of F. */
static double thread(const double F[6], int c, double w[3], double wh[3]) {
    for (int r = 0; r < 3; r++) w[r] = F[2 * r + c];
    double l = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    for (int r = 0; r < 3; r++) wh[r] = l > 0.0 ? w[r] / l : 0.0;
    return l;
}

static double bw_psi(const weft_element *e, const double F[6], double P[6]) {
    double ks = e->k, ksh = e->k2, wu[3], wv[3], hu[3], hv[3];
    double cu = thread(F, 0, wu, hu) - 1.0, cv = thread(F, 1, wv, hv) - 1.0;
    double cs = wu[0] * wv[0] + wu[1] * wv[1] + wu[2] * wv[2];
    if (P)
        for (int r = 0; r < 3; r++) {
            P[2 * r] = ks * cu * hu[r] + ksh * cs * wv[r];
            P[2 * r + 1] = ks * cv * hv[r] + ksh * cs * wu[r];
        }
    return 0.5 * ks * (cu * cu + cv * cv) + 0.5 * ksh * cs * cs;
}

static void bw_hessian(const weft_element *e, const double F[6], double A[36]) {
    double ks = e->k, ksh = e->k2, w[2][3], h[2][3], l[2];
    for (int c = 0; c < 2; c++) l[c] = thread(F, c, w[c], h[c]);
    double cs = w[0][0] * w[1][0] + w[0][1] * w[1][1] + w[0][2] * w[1][2];
    for (int c = 0; c < 2; c++)
        for (int d = 0; d < 2; d++)
            for (int r = 0; r < 3; r++)
                for (int s = 0; s < 3; s++) {
                    double v, id = r == s ? 1.0 : 0.0;
                    if (c == d) /* stretch of thread c, and w_other w_otherᵀ from the shear */
                        v = ks * (h[c][r] * h[c][s] +
                                  (l[c] - 1.0) * (id - h[c][r] * h[c][s]) / fmax(l[c], 1e-12)) +
                            ksh * w[1 - c][r] * w[1 - c][s];
                    else /* ∂²/∂w_c∂w_d of k_sh/2 C_s²: w_d w_cᵀ + C_s I */
                        v = ksh * (w[d][r] * w[c][s] + cs * id);
                    A[6 * (3 * c + r) + 3 * d + s] = v;
                }
}

static const weft_tri_density density = {bw_psi, bw_hessian, NULL};

static void bw_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double la; /* unused: the threads do not couple */
    weft_fem_tri_rest(e, xe, p->uv);
    weft_membrane_lame(p->stiffness, p->poisson, &e->k2, &la);
    e->k = p->stiffness;
}

static double bw_energy(const weft_element *e, const double *xe) {
    return weft_tri_energy(&density, e, xe);
}

static double bw_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_tri_gradient(&density, e, xe, g);
}

static double bw_hess(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                      double *H) {
    return weft_tri_hessian(&density, e, xe, mode, g, H);
}

/* Vertex v's gradient and diagonal block of bw_hess's (vertex block descent). */
static double bw_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                int v, double *g, double *H) {
    return weft_tri_vertex_hessian(&density, e, xe, mode, v, g, H);
}

const weft_energy_type weft_baraff_witkin_membrane = {
    .name = "baraff_witkin_stretch_shear",
    .paper = "Baraff & Witkin 1998 §4.2; Kim & Eberle 2020 ch. 7",
    .summary = "cloth stretch k_s/2 ((|w_u| - 1)^2 + (|w_v| - 1)^2) + shear k_sh/2 (w_u.w_v)^2, "
               "k_s = Y, k_sh = mu",
    .kind = WEFT_ELEM_TRIANGLE,
    .nv = 3,
    .init = bw_init,
    .energy = bw_energy,
    .gradient = bw_gradient,
    .hessian = bw_hess,
    .vertex_hessian = bw_vertex_hessian,
    .analytic_psd = false,
};
