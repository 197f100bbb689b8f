/* fem_tri_energy.h — what the membrane (triangle) F-based energies of energies/ share
 * beyond fem.h: plane-stress Lamé constants, the area ratio J = |f0 × f1| with its exact
 * first and second derivatives, and the driver that turns a strain-energy density ψ(F)
 * (J/m²) into the energy, gradient and Hessian of a weft_energy_type. Conventions as in
 * fem.h: F is 3×2 row-major (F[2*r + c]), its columns f0, f1 are the warp and weft
 * vectors w_u, w_v of Baraff & Witkin 1998; vec(F) = (f0; f1); 6×6 matrices over vec(F)
 * are row-major.
 *
 * An energy file supplies a weft_tri_density; the driver computes, for one element,
 *   Ψ = W ψ(F),   g = W vec(∂F/∂x)ᵀ vec(P),   H = W vec(∂F/∂x)ᵀ A vec(∂F/∂x),
 * with A = ∂²ψ/∂F² (WEFT_HESSIAN_EXACT), A = Σ max(λ, 0) q qᵀ over the six modes of
 * weft_fem_project_tri from the density's closed-form eigenvalues (WEFT_HESSIAN_ANALYTIC;
 * clamping for densities without them), or A = ∂²ψ/∂F² with its negative eigenvalues set
 * to zero by LAPACKE (WEFT_HESSIAN_CLAMP).
 *
 * Domain: a density may return +INFINITY (classic Neo-Hookean at a collapsed triangle);
 * the driver then returns +INFINITY with g = 0 and H = 0, so that a line search rejects
 * the step. A configuration where P or ∂²ψ/∂F² overflows is treated the same way, so the
 * driver never hands out ±inf or NaN derivatives. An element whose rest triangle was
 * degenerate (W = 0, see weft_fem_tri_rest) has Ψ = 0 and contributes nothing.
 */
#ifndef WEFT_FEM_TRI_ENERGY_H
#define WEFT_FEM_TRI_ENERGY_H

#include "fem.h"

/* Relative size below which the area ratio J counts as zero: J ≤ WEFT_TRI_J_EPS · ‖F‖².
 * J = |f0 × f1| is computed with an absolute rounding error of about 1e-16 ‖F‖², so at
 * this threshold it still has four correct digits; below it, the triangle is collapsed to
 * within the rounding of its edge vectors and the normal n = (f0 × f1)/J is noise. */
#define WEFT_TRI_J_EPS 1e-12

/* The per-energy part of a membrane F-based energy. e carries the material constants
 * (k, k2) and type-specific rest data (rest[10..12]). */
typedef struct weft_tri_density {
    /* ψ(F) (J/m²) and, when P != NULL, P = ∂ψ/∂F (N/m, 3×2 row-major); +INFINITY outside
     * the density's domain (P then need not be filled). */
    double (*psi)(const weft_element *e, const double F[6], double P[6]);
    /* A = ∂²ψ/∂F² (N/m, 6×6 over vec(F)); called only where psi is finite. */
    void (*hessian)(const weft_element *e, const double F[6], double A[36]);
    /* The closed-form eigenvalues at the singular values s of weft_svd32, or NULL when ψ
     * is not isotropic (WEFT_HESSIAN_ANALYTIC then clamps). An eigenvalue whose limit at a
     * collapsed triangle (σ1 → 0) is −∞ may be given as −INFINITY: it is clamped to 0. */
    void (*eigen)(const weft_element *e, const double s[2], weft_fem_eigen *eig);
} weft_tri_density;

/* Plane-stress Lamé constants of a thin sheet with membrane stiffness Y (N/m, Young's
 * modulus × thickness) and Poisson's ratio ν: μ = Y/(2(1+ν)), λ = Yν/(1−ν²) (N/m). */
void weft_membrane_lame(double Y, double poisson, double *mu, double *lambda);

/* J = |f0 × f1| (the deformed-to-rest area ratio, dimensionless) of a 3×2 F, with
 * dJ = ∂J/∂F (6 values over vec(F)) and d2J = ∂²J/∂F² (6×6) where non-NULL. At a
 * collapsed triangle the normal is the third column of weft_svd32's U, and the 1/J term
 * of d2J uses max(J, WEFT_TRI_J_EPS ‖F‖²) (the exact value grows without bound). */
double weft_fem_tri_area_ratio(const double F[6], double dJ[6], double d2J[36]);

/* Ψ = W ψ(F(xe)) (J) of one triangle (xe: 9 positions, m). */
double weft_tri_energy(const weft_tri_density *d, const weft_element *e, const double *xe);

/* g = ∂Ψ/∂xe (9 values, N); returns Ψ (J). */
double weft_tri_gradient(const weft_tri_density *d, const weft_element *e, const double *xe,
                         double *g);

/* H (9×9 row-major, N/m) in the given mode, and g when g != NULL; returns Ψ (J). */
double weft_tri_hessian(const weft_tri_density *d, const weft_element *e, const double *xe,
                        weft_hessian_mode mode, double *g, double *H);

/* Vertex a's (0..2) gradient (3, N) and diagonal block (3×3, N/m) of weft_tri_hessian's g
 * and H in the same mode, equal to them bit for bit, without the other 72 entries; returns
 * Ψ (J). The energies' vertex_hessian (vertex block descent). */
double weft_tri_vertex_hessian(const weft_tri_density *d, const weft_element *e, const double *xe,
                               weft_hessian_mode mode, int a, double *g, double *H);

#endif
