/* fem.h — the deformation-gradient machinery shared by weft's finite-element energies
 * (Kim & Eberle, "Dynamic Deformables", chapters 2–5; Smith, de Goes, Kim 2019).
 *
 * An F-based energy is a strain-energy density ψ(F) (J/m³ for tetrahedra, J/m² for
 * membrane triangles) integrated over the element's rest measure W (volume m³ or area m²):
 *   Ψ(x) = W ψ(F(x)),   F = Ds Dm⁻¹,
 *   ∂Ψ/∂x = W vec(∂F/∂x)ᵀ vec(P),            P = ∂ψ/∂F (first Piola-Kirchhoff stress)
 *   ∂²Ψ/∂x² = W vec(∂F/∂x)ᵀ (∂²ψ/∂F²) vec(∂F/∂x).
 * Tetrahedra: Ds = [x1−x0, x2−x0, x3−x0] (3×3), Dm the same of the rest positions; F is
 * 3×3, vec(F) has 9 entries. Membrane triangles: Ds = [x1−x0, x2−x0] (3×2), Dm the 2×2
 * matrix of rest edge vectors in material coordinates (u, v); F is 3×2 (6 entries).
 *
 * Conventions (the whole energies/ folder uses them):
 *   - matrices are row-major: A[3*r + c] for 3×3, F[2*r + c] for 3×2;
 *   - vec() is column-major (Kim & Eberle §3): vec(F)[3*c + r] = F(r, c), so vec(F) is
 *     the columns f0, f1(, f2) stacked; 9×9 / 6×6 matrices over vec(F) are row-major;
 *   - element vertex vectors are x = (x0, x1, x2(, x3)), 3 entries per vertex.
 *
 * PSD projection of ∂²ψ/∂F² (before the chain rule, so H = W Bᵀ P B stays PSD):
 *   - analytic: an isotropic ψ(σ) supplies its eigenvalues in closed form (scaling block,
 *     twist and flip modes, and for membranes the two out-of-plane modes); the modes are
 *     built from the rotation-variant SVD F = U Σ Vᵀ and negative eigenvalues set to 0;
 *   - clamp: weft_psd_clamp on the exact 9×9 or 6×6 matrix, negative eigenvalues set to 0.
 */
#ifndef WEFT_FEM_H
#define WEFT_FEM_H

#include "weft_energies.h"

#include <stdbool.h>

/* ------------------------------------------------------------------------------ */
/* Lamé parameters                                                                 */
/* ------------------------------------------------------------------------------ */

/* μ = E / (2(1 + ν)) (Pa or N/m, as E). */
double weft_lame_mu(double youngs, double poisson);

/* λ = E ν / ((1 + ν)(1 − 2ν)) (Pa or N/m, as E); ν < 0.5. */
double weft_lame_lambda(double youngs, double poisson);

/* ------------------------------------------------------------------------------ */
/* Rest shape: element data layout shared by all F-based types                     */
/* ------------------------------------------------------------------------------ */
/* rest[0..8]  Dm⁻¹ (row-major; 2×2 in rest[0..3] for triangles, 3×3 for tetrahedra)
 * rest[9]     W, the rest volume (m³) or area (m²)
 * rest[10..12] type-specific (e.g. a fibre direction in material space)
 * k, k2       type-specific material constants (e.g. μ, λ) */

/* Sets rest[0..9] of a tetrahedron from its rest positions xe (12 values). Returns false
 * (with W = 0, Dm⁻¹ = 0) if the rest tetrahedron is degenerate. */
bool weft_fem_tet_rest(weft_element *e, const double *xe);

/* Sets rest[0..9] of a triangle from its material coordinates uv (6 values, m) or, when
 * uv is NULL, from its rest positions xe in an orthonormal frame of its own plane whose
 * first axis is the global x axis projected onto the plane (the first edge if x is
 * normal to it). Returns false if the rest triangle is degenerate. */
bool weft_fem_tri_rest(weft_element *e, const double *xe, const double *uv);

/* Projective Dynamics' map of an F-based element of dimension d (2: triangle, 3:
 * tetrahedron): A (d rows × (d + 1) vertices, A[(d + 1) r + i]) with row c giving column c
 * of F = Ds Dm⁻¹, Σ_j (x_{j+1} − x_0) Dm⁻¹[j][c]. Returns the rest measure W (m² or m³). */
double weft_fem_projective_rows(const weft_element *e, int d, double *A);

/* F = Ds Dm⁻¹ of a tetrahedron (F 3×3 row-major). */
void weft_fem_tet_F(const weft_element *e, const double *xe, double F[9]);

/* F = Ds Dm⁻¹ of a membrane triangle (F 3×2 row-major). */
void weft_fem_tri_F(const weft_element *e, const double *xe, double F[6]);

/* g (12) = W vec(∂F/∂x)ᵀ vec(P) for a tetrahedron; P 3×3 row-major. */
void weft_fem_tet_gradient(const weft_element *e, const double P[9], double *g);

/* g (9) = W vec(∂F/∂x)ᵀ vec(P) for a triangle; P 3×2 row-major. */
void weft_fem_tri_gradient(const weft_element *e, const double P[6], double *g);

/* H (12×12) = W vec(∂F/∂x)ᵀ A vec(∂F/∂x) for a tetrahedron; A is 9×9 over vec(F). */
void weft_fem_tet_hessian(const weft_element *e, const double A[81], double *H);

/* H (9×9) = W vec(∂F/∂x)ᵀ A vec(∂F/∂x) for a triangle; A is 6×6 over vec(F). */
void weft_fem_tri_hessian(const weft_element *e, const double A[36], double *H);

/* ------------------------------------------------------------------------------ */
/* Singular values and PSD projection                                              */
/* ------------------------------------------------------------------------------ */

/* Rotation-variant SVD of a 3×3 F = U diag(s) Vᵀ (Smith et al. 2019 §4): U, V proper
 * rotations (det = +1), s sorted by |s| descending, with s[2] < 0 when det F < 0. */
void weft_svd3_rv(const double F[9], double U[9], double s[3], double V[9]);

/* SVD of a 3×2 F = U diag(s) Vᵀ with U 3×3 a proper rotation whose third column is the
 * unit normal n of F's column space, V 2×2 orthogonal, s[0] ≥ s[1] ≥ 0. */
void weft_svd32(const double F[6], double U[9], double s[2], double V[4]);

/* The eigenvalues an isotropic energy supplies for the analytic projection. Tetrahedra:
 * scale (3×3 ∂²ψ/∂σ², row-major), twist[3] and flip[3] for the pairs (0,1), (1,2), (0,2).
 * Membranes: scale (2×2 in scale[0,1,3,4]), twist[0], flip[0] for the pair (0,1), and
 * out_of_plane[2] for the modes n v_jᵀ (ψ_σj / σj). */
typedef struct weft_fem_eigen {
    double scale[9];
    double twist[3], flip[3];
    double out_of_plane[2];
} weft_fem_eigen;

/* A = Σ max(λ, 0) q qᵀ over the 9 modes of a tetrahedron built from U, V (9×9). */
void weft_fem_project_tet(const double U[9], const double V[9], const weft_fem_eigen *eig,
                          double A[81]);

/* A = Σ max(λ, 0) q qᵀ over the 6 modes of a membrane built from U, V (6×6). */
void weft_fem_project_tri(const double U[9], const double V[4], const weft_fem_eigen *eig,
                          double A[36]);

/* Eigen-decomposition of the symmetric n×n row-major A (n ≤ 18; A is not modified):
 * eigenvalues w[k], unsorted, and orthonormal eigenvectors as the columns of Z,
 * Z[i n + k]. Returns 0, or −1 (no convergence, n out of range, or a non-finite entry). */
int weft_symeig(const double *A, int n, double *w, double *Z);

/* Eigen-decomposition of the symmetric tridiagonal T (n ≤ 18; diagonal d[0..n−1],
 * off-diagonal e[0..n−2]) by Wilkinson-shifted implicit QR: d returns the eigenvalues,
 * e is destroyed, and the rotations are applied to the columns of the n×n row-major Z,
 * so Z = B on entry returns B times T's eigenvectors (B = I gives them). Returns 0 or −1
 * (no convergence, n out of range, a non-finite entry). */
int weft_symeig_tridiagonal(int n, double *d, double *e, double *Z);

/* Makes the row-major n×n A exactly symmetric: each pair A_ij, A_ji (i < j) becomes their
 * mean, for Hessians whose two triangles were summed in different orders. */
static inline void weft_symmetrise(double *A, int n) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            A[n * i + j] = A[n * j + i] = 0.5 * (A[n * i + j] + A[n * j + i]);
}

/* Replaces the symmetric n×n matrix A by its PSD projection (negative eigenvalues set to
 * zero) using weft_symeig (LAPACKE_dsyev if that fails); n ≤ 18. Returns false, leaving
 * A untouched bit for bit, when A is already PSD. */
bool weft_psd_clamp(double *A, int n);

/* The hinge coordinates of dihedral_bending.c at a non-degenerate hinge xe (12 values,
 * m): T (8×12, y = T δx: the wing offsets ℓ_A, ℓ_B in the plane ⊥ ê, the edge tilt Lτ,
 * the wings' axial offsets) and R (8×12, row p = column p of a right inverse, T Rᵀ = I).
 * The exact hinge Hessian H satisfies H = Tᵀ (R H Rᵀ) T, and R H Rᵀ is block-diagonal
 * with blocks y[0..3], y[4..7] (tests/test_energies.c checks both). */
void weft_hinge_coordinates(const double *xe, double T[8][12], double R[8][12]);

/* ∇²θ (12×12 row-major, rad/m²) of weft_hinge_angle at a non-degenerate hinge xe
 * (dihedral_bending.c: exact at every θ, no division by sin θ). */
void weft_hinge_angle_hessian(const double *xe, double Ht[144]);

/* Vertex v's (0..3) diagonal block ∂²θ/∂p_v² (3×3 row-major) of weft_hinge_angle_hessian's
 * matrix, equal to it bit for bit, without the other 15 blocks. */
void weft_hinge_angle_hessian_vertex(const double *xe, int v, double Hv[9]);

#endif
