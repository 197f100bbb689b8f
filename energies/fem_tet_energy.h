/* fem_tet_energy.h — what the tetrahedral F-based energies of energies/ share beyond
 * fem.h: the driver that turns a strain-energy density ψ(F) into the energy, gradient
 * and Hessian of a weft_energy_type, the unclamped sum over the nine modes, and a few
 * 3×3 helpers. Conventions as in fem.h: 3×3 matrices row-major (M[3*r + c]), vec()
 * column-major (vec(M)[3*c + r]), 9×9 matrices over vec(F) row-major.
 *
 * An energy file supplies a weft_tet_density; the driver computes, for one element,
 *   Ψ = W ψ(F),   g = W vec(∂F/∂x)ᵀ vec(P),   H = W vec(∂F/∂x)ᵀ A vec(∂F/∂x),
 * with A = ∂²ψ/∂F² (WEFT_HESSIAN_EXACT), A = Σ max(λ, 0) q qᵀ from the density's closed-form
 * eigenvalues (WEFT_HESSIAN_ANALYTIC; clamping for densities without them), or A =
 * ∂²ψ/∂F² with its negative eigenvalues set to zero (WEFT_HESSIAN_CLAMP).
 *
 * Domain: a density may return +INFINITY (e.g. J ≤ 0 under classic Neo-Hookean); the
 * driver then returns +INFINITY with g = 0 and H = 0, so that a line search rejects the
 * step. A configuration so close to that boundary that P or ∂²ψ/∂F² overflows is treated
 * the same way, so the driver never hands out ±inf or NaN derivatives for finite x. An
 * element whose rest shape was degenerate (W = 0, see weft_fem_tet_rest) has Ψ = 0 and
 * contributes nothing.
 */
#ifndef WEFT_FEM_TET_ENERGY_H
#define WEFT_FEM_TET_ENERGY_H

#include "fem.h"

#include <math.h>
#include <stdbool.h>

/* The per-energy part of a tetrahedral F-based energy. e carries the material constants
 * (k, k2) and type-specific rest data (rest[10..12]). */
typedef struct weft_tet_density {
    /* ψ(F) (J/m³) and, when P != NULL, P = ∂ψ/∂F (Pa, 3×3 row-major); +INFINITY outside
     * the density's domain (P then need not be filled). */
    double (*psi)(const weft_element *e, const double F[9], double P[9]);
    /* A = ∂²ψ/∂F² (Pa, 9×9 over vec(F)); called only where psi is finite. */
    void (*hessian)(const weft_element *e, const double F[9], double A[81]);
    /* The closed-form eigenvalues at the signed singular values s of weft_svd3_rv, or
     * NULL when ψ is not isotropic (WEFT_HESSIAN_ANALYTIC then clamps). */
    void (*eigen)(const weft_element *e, const double s[3], weft_fem_eigen *eig);
} weft_tet_density;

/* Ψ = W ψ(F(xe)) (J) of one tetrahedron (xe: 12 positions, m). */
double weft_tet_energy(const weft_tet_density *d, const weft_element *e, const double *xe);

/* g = ∂Ψ/∂xe (12 values, N); returns Ψ (J). */
double weft_tet_gradient(const weft_tet_density *d, const weft_element *e, const double *xe,
                         double *g);

/* H (12×12 row-major, N/m) in the given mode, and g when g != NULL; returns Ψ (J). */
double weft_tet_hessian(const weft_tet_density *d, const weft_element *e, const double *xe,
                        weft_hessian_mode mode, double *g, double *H);

/* Vertex a's (0..3) gradient (3, N) and diagonal block (3×3, N/m) of weft_tet_hessian's g
 * and H in the same mode, equal to them bit for bit, without the other 135 entries;
 * returns Ψ (J). The energies' vertex_hessian (vertex block descent). */
double weft_tet_vertex_hessian(const weft_tet_density *d, const weft_element *e, const double *xe,
                               weft_hessian_mode mode, int a, double *g, double *H);

/* A = Σ λ q qᵀ over the 9 modes built from U, V, without clamping: the exact ∂²ψ/∂F² of an
 * isotropic ψ when eig holds its exact eigenvalues (9×9 over vec(F)). */
void weft_fem_modes_tet(const double U[9], const double V[9], const weft_fem_eigen *eig,
                        double A[81]);

/* ------------------------------------------------------------------------------ */
/* 3×3 helpers (row-major)                                                         */
/* ------------------------------------------------------------------------------ */

/* det M. */
static inline double weft_m3_det(const double M[9]) {
    return M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
           M[2] * (M[3] * M[7] - M[4] * M[6]);
}

/* det F − 1 without cancellation near F = I: with H = F − I,
 * det(I + H) − 1 = tr H + (sum of the principal 2×2 minors of H) + det H. */
static inline double weft_m3_det_minus_one(const double F[9]) {
    double H[9];
    for (int i = 0; i < 9; i++) H[i] = F[i] - (i % 4 == 0 ? 1.0 : 0.0);
    double minors =
        (H[0] * H[4] - H[1] * H[3]) + (H[0] * H[8] - H[2] * H[6]) + (H[4] * H[8] - H[5] * H[7]);
    return (H[0] + H[4] + H[8]) + minors + weft_m3_det(H);
}

/* Relative size below which J = det F counts as zero for energies defined only for J > 0:
 * J ≤ WEFT_TET_J_EPS ‖F‖³. det F is computed with an absolute rounding error of about
 * 1e-16 ‖F‖³, so below this threshold the element is flat to within rounding, its sign
 * is noise and F⁻¹ is meaningless (the membrane twin is WEFT_TRI_J_EPS). */
#define WEFT_TET_J_EPS 1e-12

/* True when det F = 1 + jm1 is safely positive against the rounding of F (see above). */
static inline bool weft_m3_det_positive(const double F[9], double jm1) {
    double n2 = 0.0;
    for (int i = 0; i < 9; i++) n2 += F[i] * F[i];
    return 1.0 + jm1 > WEFT_TET_J_EPS * n2 * sqrt(n2);
}

/* ‖F‖² − 3 = 2 tr H + ‖H‖² with H = F − I (the Neo-Hookean I_C − 3 without cancellation). */
static inline double weft_m3_ic_minus_three(const double F[9]) {
    double s = 0.0;
    for (int i = 0; i < 9; i++) {
        double h = F[i] - (i % 4 == 0 ? 1.0 : 0.0);
        s += h * h + (i % 4 == 0 ? 2.0 * h : 0.0);
    }
    return s;
}

/* C = cof(M) = ∂ det M / ∂M = det(M) M⁻ᵀ (defined for singular M too). */
static inline void weft_m3_cofactor(const double M[9], double C[9]) {
    C[0] = M[4] * M[8] - M[5] * M[7];
    C[1] = M[5] * M[6] - M[3] * M[8];
    C[2] = M[3] * M[7] - M[4] * M[6];
    C[3] = M[2] * M[7] - M[1] * M[8];
    C[4] = M[0] * M[8] - M[2] * M[6];
    C[5] = M[1] * M[6] - M[0] * M[7];
    C[6] = M[1] * M[5] - M[2] * M[4];
    C[7] = M[2] * M[3] - M[0] * M[5];
    C[8] = M[0] * M[4] - M[1] * M[3];
}

/* C = A B (C must not alias A or B). */
static inline void weft_m3_mul(const double A[9], const double B[9], double C[9]) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            C[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
}

/* C = Aᵀ B (C must not alias A or B). */
static inline void weft_m3_mul_tn(const double A[9], const double B[9], double C[9]) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            C[3 * r + c] = A[r] * B[c] + A[3 + r] * B[3 + c] + A[6 + r] * B[6 + c];
}

/* C = A Bᵀ (C must not alias A or B). */
static inline void weft_m3_mul_nt(const double A[9], const double B[9], double C[9]) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            C[3 * r + c] =
                A[3 * r] * B[3 * c] + A[3 * r + 1] * B[3 * c + 1] + A[3 * r + 2] * B[3 * c + 2];
}

/* The Levi-Civita symbol ε_ijk for indices in {0, 1, 2}. */
static inline double weft_levi_civita(int i, int j, int k) {
    return (double)((i - j) * (j - k) * (k - i)) / 2.0;
}

#endif
