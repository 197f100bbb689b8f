/* fem_tet.c — the tetrahedral half of fem.h and the driver of fem_tet_energy.h
 * (Kim & Eberle 2020; Sifakis & Barbič 2012, "linear tetrahedral elements"; Smith,
 * de Goes, Kim 2019 for the eigensystem). Why each choice: papers/dynamic-deformables.md
 * ("Implementation notes: energies/fem_tet.c").
 *
 * Kinematics: Ds = [x1 − x0, x2 − x0, x3 − x0], F = Ds Dm⁻¹ = Σ_a x_a b_aᵀ (b_1..3 the rows
 * of Dm⁻¹, b_0 = −(b_1 + b_2 + b_3)), so
 *   g_a = W P b_a,   H_{(a,r),(b,s)} = W Σ_{c,d} b_a[c] A_{(c,r),(d,s)} b_b[d]
 * (about 560 multiplications, upper triangle only).
 *
 * Rotation-variant SVD (Smith, de Goes, Kim 2019 §4): F = U Σ Vᵀ with U, V rotations, a
 * reflection carried by a negative σ_2: LAPACK's dgesvd, then for each of U, V with
 * det = −1 its last column and σ_2 negated (not an eigen-decomposition of FᵀF, which
 * squares the condition number and fails at σ_2 = 0).
 *
 * Eigensystem of ∂²ψ/∂F² for isotropic ψ(σ_0, σ_1, σ_2), in the frame dF = U dF̂ Vᵀ:
 *   - scaling: the 3×3 block ∂²ψ/∂σ_i∂σ_j, modes U diag(e_k) Vᵀ;
 *   - per pair (i, j): twist (1/√2) U (e_i e_jᵀ − e_j e_iᵀ) Vᵀ, λ = (ψ_i + ψ_j)/(σ_i + σ_j),
 *     and flip (1/√2) U (e_i e_jᵀ + e_j e_iᵀ) Vᵀ, λ = (ψ_i − ψ_j)/(σ_i − σ_j),
 *     each energy giving these quotients in closed form.
 * The projection is Σ max(λ_k, 0) vec(Q_k) vec(Q_k)ᵀ; the three scaling modes are
 * projected as the 3×3 block itself (weft_psd_clamp).
 */
#include "fem_tet_energy.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------------ */
/* Kinematics                                                                      */
/* ------------------------------------------------------------------------------ */

bool weft_fem_tet_rest(weft_element *e, const double *xe) {
    double Dm[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) Dm[3 * r + c] = xe[3 * (c + 1) + r] - xe[r];
    double det = weft_m3_det(Dm);
    /* Degenerate: the volume is negligible against the product of the edge lengths
     * (|det Dm| = |d1||d2||d3| × the sine-like shape factor, 1 for orthogonal edges). */
    double scale = 1.0;
    for (int c = 0; c < 3; c++)
        scale *= sqrt(Dm[c] * Dm[c] + Dm[3 + c] * Dm[3 + c] + Dm[6 + c] * Dm[6 + c]);
    if (!(fabs(det) > 1e-12 * scale) || !isfinite(det) || !isfinite(scale)) {
        memset(e->rest, 0, 10 * sizeof e->rest[0]);
        return false;
    }
    double C[9];
    weft_m3_cofactor(Dm, C);
    /* Dm⁻¹ = cof(Dm)ᵀ / det Dm */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) e->rest[3 * r + c] = C[3 * c + r] / det;
    e->rest[9] = fabs(det) / 6.0;
    return true;
}

void weft_fem_tet_F(const weft_element *e, const double *xe, double F[9]) {
    const double *Di = e->rest;
    for (int r = 0; r < 3; r++) {
        double d[3] = {xe[3 + r] - xe[r], xe[6 + r] - xe[r], xe[9 + r] - xe[r]};
        for (int c = 0; c < 3; c++)
            F[3 * r + c] = d[0] * Di[c] + d[1] * Di[3 + c] + d[2] * Di[6 + c];
    }
}

/* The vectors b_a (a = 0..3) with F = Σ_a x_a b_aᵀ. */
static void shape_gradients(const weft_element *e, double b[4][3]) {
    for (int c = 0; c < 3; c++) {
        b[1][c] = e->rest[c];
        b[2][c] = e->rest[3 + c];
        b[3][c] = e->rest[6 + c];
        b[0][c] = -(b[1][c] + b[2][c] + b[3][c]);
    }
}

void weft_fem_tet_gradient(const weft_element *e, const double P[9], double *g) {
    double b[4][3], W = e->rest[9];
    shape_gradients(e, b);
    for (int a = 0; a < 4; a++)
        for (int r = 0; r < 3; r++)
            g[3 * a + r] =
                W * (P[3 * r] * b[a][0] + P[3 * r + 1] * b[a][1] + P[3 * r + 2] * b[a][2]);
}

void weft_fem_tet_hessian(const weft_element *e, const double A[81], double *H) {
    double b[4][3], W = e->rest[9];
    shape_gradients(e, b);
    /* T[(a, r)][k] = Σ_c b_a[c] A[(c, r)][k], k = vec index (d, s). */
    double T[12][9];
    for (int a = 0; a < 4; a++)
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 9; k++)
                T[3 * a + r][k] = b[a][0] * A[r * 9 + k] + b[a][1] * A[(3 + r) * 9 + k] +
                                  b[a][2] * A[(6 + r) * 9 + k];
    /* H[(a, r)][(b, s)] = W Σ_d T[(a, r)][(d, s)] b_b[d]; upper triangle, then mirrored so
     * that H is exactly symmetric. */
    for (int i = 0; i < 12; i++)
        for (int j = i; j < 12; j++) {
            int bb = j / 3, s = j % 3;
            double h = W * (T[i][s] * b[bb][0] + T[i][3 + s] * b[bb][1] + T[i][6 + s] * b[bb][2]);
            H[12 * i + j] = H[12 * j + i] = h;
        }
}

/* ------------------------------------------------------------------------------ */
/* Rotation-variant SVD                                                            */
/* ------------------------------------------------------------------------------ */

void weft_svd3_rv(const double F[9], double U[9], double s[3], double V[9]) {
    double a[9], u[9], vt[9], work[64];
    bool finite = true;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            a[3 * c + r] = F[3 * r + c]; /* LAPACK wants column-major */
            finite &= isfinite(F[3 * r + c]) != 0;
        }
    lapack_int info = finite ? LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', 3, 3, a, 3, s, u, 3,
                                                   vt, 3, work, 64)
                             : -1;
    if (info != 0) {
        /* Only a non-finite F gets here (dgesvd converges on any finite 3×3 matrix): pass
         * the NaN on, so the caller's ψ is visibly NaN rather than a plausible value. */
        for (int i = 0; i < 9; i++) U[i] = V[i] = i % 4 == 0 ? 1.0 : 0.0;
        s[0] = s[1] = s[2] = NAN;
        return;
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            U[3 * r + c] = u[3 * c + r];  /* column-major u → row-major U */
            V[3 * r + c] = vt[3 * r + c]; /* column-major Vᵀ read row-major is V */
        }
    /* Move reflections into the smallest singular value: negating the last column of an
     * orthogonal factor with det −1 makes it a rotation, and negating σ_2 with it keeps
     * U Σ Vᵀ unchanged. If both had det −1 the two sign changes of σ_2 cancel. */
    if (weft_m3_det(U) < 0.0) {
        U[2] = -U[2], U[5] = -U[5], U[8] = -U[8];
        s[2] = -s[2];
    }
    if (weft_m3_det(V) < 0.0) {
        V[2] = -V[2], V[5] = -V[5], V[8] = -V[8];
        s[2] = -s[2];
    }
}

/* ------------------------------------------------------------------------------ */
/* Modes and their projection                                                      */
/* ------------------------------------------------------------------------------ */

/* The pairs (i, j) of twist[p] and flip[p], as fem.h orders them. */
static const int PAIRS[3][2] = {{0, 1}, {1, 2}, {0, 2}};

/* vec(u_i v_jᵀ) for columns i of U and j of V: entry 3c + r is U(r, i) V(c, j). */
static void outer_vec(const double U[9], int i, const double V[9], int j, double q[9]) {
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) q[3 * c + r] = U[3 * r + i] * V[3 * c + j];
}

/* A += w q qᵀ (9×9). */
static void add_outer(double A[81], double w, const double q[9]) {
    if (w == 0.0) return;
    for (int i = 0; i < 9; i++) {
        double wi = w * q[i];
        for (int j = 0; j < 9; j++) A[9 * i + j] += wi * q[j];
    }
}

/* Whether the symmetric 3×3 S is positive semi-definite: all seven principal minors
 * ≥ 0 (Sylvester's criterion for semi-definiteness). Clamping such an S changes nothing,
 * so the common case skips the eigensolver. */
static bool psd3(const double S[9]) {
    return S[0] >= 0.0 && S[4] >= 0.0 && S[8] >= 0.0 && S[0] * S[4] - S[1] * S[3] >= 0.0 &&
           S[0] * S[8] - S[2] * S[6] >= 0.0 && S[4] * S[8] - S[5] * S[7] >= 0.0 &&
           weft_m3_det(S) >= 0.0;
}

/* A = Σ λ q qᵀ over the nine modes, with λ → max(λ, 0) when clamp is set. */
static void mode_sum(const double U[9], const double V[9], const weft_fem_eigen *eig, bool clamp,
                     double A[81]) {
    memset(A, 0, 81 * sizeof *A);
    /* Scaling: Σ_ij S_ij d_i d_jᵀ, with S projected when clamping (see the header). */
    double S[9], d[3][9];
    memcpy(S, eig->scale, sizeof S);
    if (clamp && !psd3(S)) weft_psd_clamp(S, 3);
    for (int i = 0; i < 3; i++) outer_vec(U, i, V, i, d[i]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double w = S[3 * i + j];
            if (w == 0.0) continue;
            for (int m = 0; m < 9; m++)
                for (int n = 0; n < 9; n++) A[9 * m + n] += w * d[i][m] * d[j][n];
        }
    /* Twist (antisymmetric) and flip (symmetric) modes of each pair. */
    const double h = sqrt(0.5);
    for (int p = 0; p < 3; p++) {
        int i = PAIRS[p][0], j = PAIRS[p][1];
        double mij[9], mji[9], t[9], l[9];
        outer_vec(U, i, V, j, mij);
        outer_vec(U, j, V, i, mji);
        for (int k = 0; k < 9; k++) {
            t[k] = h * (mij[k] - mji[k]);
            l[k] = h * (mij[k] + mji[k]);
        }
        add_outer(A, clamp ? fmax(eig->twist[p], 0.0) : eig->twist[p], t);
        add_outer(A, clamp ? fmax(eig->flip[p], 0.0) : eig->flip[p], l);
    }
}

void weft_fem_project_tet(const double U[9], const double V[9], const weft_fem_eigen *eig,
                          double A[81]) {
    mode_sum(U, V, eig, true, A);
}

void weft_fem_modes_tet(const double U[9], const double V[9], const weft_fem_eigen *eig,
                        double A[81]) {
    mode_sum(U, V, eig, false, A);
}

/* ------------------------------------------------------------------------------ */
/* Driver                                                                          */
/* ------------------------------------------------------------------------------ */

static bool all_finite(const double *a, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return false;
    return true;
}

/* Outside the domain: zero derivatives; +INFINITY, or NaN when ψ itself was NaN (a
 * non-finite input, passed on rather than hidden). */
static double outside(double psi, double *g, double *H) {
    if (g) memset(g, 0, 12 * sizeof *g);
    if (H) memset(H, 0, 144 * sizeof *H);
    return isnan(psi) ? psi : INFINITY;
}

double weft_tet_energy(const weft_tet_density *d, const weft_element *e, const double *xe) {
    double W = e->rest[9], F[9];
    if (!(W > 0.0)) return 0.0;
    weft_fem_tet_F(e, xe, F);
    return W * d->psi(e, F, NULL);
}

double weft_tet_gradient(const weft_tet_density *d, const weft_element *e, const double *xe,
                         double *g) {
    double W = e->rest[9], F[9], P[9];
    if (!(W > 0.0)) {
        memset(g, 0, 12 * sizeof *g);
        return 0.0;
    }
    weft_fem_tet_F(e, xe, F);
    double psi = d->psi(e, F, P);
    if (!isfinite(psi) || !all_finite(P, 9)) return outside(psi, g, NULL);
    weft_fem_tet_gradient(e, P, g);
    return W * psi;
}

/* ψ (returned, per volume), P and the 9×9 matrix A over vec(F) of `mode` at xe; sets *ok
 * to false where ψ, P, the eigenvalues or A are not finite (the caller then zeroes g, H). */
static double tet_density(const weft_tet_density *d, const weft_element *e, const double *xe,
                          weft_hessian_mode mode, double P[9], double A[81], bool *ok) {
    double F[9];
    weft_fem_tet_F(e, xe, F);
    double psi = d->psi(e, F, P);
    *ok = false;
    if (!isfinite(psi) || !all_finite(P, 9)) return psi;
    if (mode == WEFT_HESSIAN_ANALYTIC && d->eigen) {
        double U[9], s[3], V[9];
        weft_fem_eigen eig;
        weft_svd3_rv(F, U, s, V);
        d->eigen(e, s, &eig);
        if (!all_finite(eig.scale, 9) || !all_finite(eig.twist, 3) || !all_finite(eig.flip, 3))
            return psi;
        weft_fem_project_tet(U, V, &eig, A);
    } else {
        d->hessian(e, F, A);
        if (!all_finite(A, 81)) return psi;
        if (mode != WEFT_HESSIAN_EXACT) weft_psd_clamp(A, 9);
    }
    *ok = true;
    return psi;
}

double weft_tet_hessian(const weft_tet_density *d, const weft_element *e, const double *xe,
                        weft_hessian_mode mode, double *g, double *H) {
    double W = e->rest[9], P[9], A[81];
    if (!(W > 0.0)) {
        outside(0.0, g, H);
        return 0.0;
    }
    bool ok;
    double psi = tet_density(d, e, xe, mode, P, A, &ok);
    if (!ok) return outside(psi, g, H);
    if (g) weft_fem_tet_gradient(e, P, g);
    weft_fem_tet_hessian(e, A, H);
    return W * psi;
}

/* Vertex a's rows of weft_fem_tet_gradient and its diagonal block of weft_fem_tet_hessian
 * (T's rows 3a..3a+2, then the upper triangle mirrored): the same operations in the same
 * order, 9 entries of 144. */
double weft_tet_vertex_hessian(const weft_tet_density *d, const weft_element *e, const double *xe,
                               weft_hessian_mode mode, int a, double *g, double *H) {
    double W = e->rest[9], P[9], A[81], b[4][3], T[3][9];
    memset(g, 0, 3 * sizeof *g);
    memset(H, 0, 9 * sizeof *H);
    if (!(W > 0.0)) return 0.0;
    bool ok;
    double psi = tet_density(d, e, xe, mode, P, A, &ok);
    if (!ok) return isnan(psi) ? psi : INFINITY;
    shape_gradients(e, b);
    for (int r = 0; r < 3; r++)
        g[r] = W * (P[3 * r] * b[a][0] + P[3 * r + 1] * b[a][1] + P[3 * r + 2] * b[a][2]);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 9; k++)
            T[r][k] = b[a][0] * A[r * 9 + k] + b[a][1] * A[(3 + r) * 9 + k] +
                      b[a][2] * A[(6 + r) * 9 + k];
    for (int r = 0; r < 3; r++)
        for (int s = r; s < 3; s++) {
            double h = W * (T[r][s] * b[a][0] + T[r][3 + s] * b[a][1] + T[r][6 + s] * b[a][2]);
            H[3 * r + s] = H[3 * s + r] = h;
        }
    return W * psi;
}
