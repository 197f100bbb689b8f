/* fem_tri.c — the membrane (triangle) half of fem.h and the driver of fem_tri_energy.h:
 * rest shapes, F and its chain rule, the 3×2 SVD, the area ratio J and the analytic PSD
 * projection of an isotropic membrane energy (Kim & Eberle, "Dynamic Deformables",
 * chapters 3–5 and 7.2; Smith, de Goes, Kim 2019 for the eigensystem). The derivations
 * of the SVD's signs and of the six modes: papers/dynamic-deformables.md
 * ("Implementation notes: energies/fem_tri.c").
 *
 * Deformation gradient (3×2), u_a the material coordinates (m):
 *   Ds = [x1 − x0, x2 − x0],  Dm = [u1 − u0, u2 − u0],  F = Ds Dm⁻¹,  W = |det Dm| / 2 (m²);
 * F's columns are Baraff & Witkin's warp and weft w_u, w_v. With B = Dm⁻¹, β_1c = B_0c,
 * β_2c = B_1c, β_0c = −β_1c − β_2c:
 *   ∂Ψ/∂x_a = W Σ_c β_ac P(:, c),   ∂²Ψ/∂x_a∂x_b = W Σ_cd β_ac β_bd A(f_c, f_d).
 *
 * SVD: F = U [Σ; 0] Vᵀ, σ0 ≥ σ1 ≥ 0; V rotates FᵀF = [[a, b], [b, c]] by
 * θ = ½ atan2(2b, a − c); σ1 = J/σ0 with J = |f0 × f1| (full relative precision);
 * U = [u0 u1 n] a rotation, n = (f0 × f1)/J.
 *
 * Eigensystem of an isotropic ψ(σ0, σ1): two out-of-plane modes n v_jᵀ with λ = ψ_j/σ_j;
 * the scaling modes of the 2×2 ∂²ψ/∂σ²; twist λ = (ψ_0 + ψ_1)/(σ0 + σ1); flip
 * λ = (ψ_0 − ψ_1)/(σ0 − σ1) (tests/test_fem_membrane.c checks all six against FD).
 *
 * Area ratio J = |m|, m = f0 × f1, n̂ = m/J:
 *   ∂J/∂f0 = f1 × n̂,  ∂J/∂f1 = n̂ × f0,
 *   ∂²J/∂F² = Gᵀ (I − n̂ n̂ᵀ) G / J + [[0, −[n̂]×], [[n̂]×, 0]],  G = [−[f1]×, [f0]×].
 */
#include "fem_tri_energy.h"
#include "weft_vec.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------------ */
/* Small vector helpers                                                            */
/* ------------------------------------------------------------------------------ */



/* The columns of a 3×2 row-major F. */
static void columns(const double F[6], double f0[3], double f1[3]) {
    for (int r = 0; r < 3; r++) f0[r] = F[2 * r], f1[r] = F[2 * r + 1];
}

/* q = vec(a bᵀ) for a 3-vector a and a 2-vector b: q[3c + r] = a_r b_c. */
static void outer32(const double a[3], const double b[2], double q[6]) {
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 3; r++) q[3 * c + r] = a[r] * b[c];
}

/* ------------------------------------------------------------------------------ */
/* Rest shape, F and the chain rule                                                */
/* ------------------------------------------------------------------------------ */

void weft_membrane_lame(double Y, double poisson, double *mu, double *lambda) {
    *mu = Y / (2.0 * (1.0 + poisson));
    *lambda = Y * poisson / (1.0 - poisson * poisson);
}

bool weft_fem_tri_rest(weft_element *e, const double *xe, const double *uv) {
    double Dm[4]; /* row-major; column c is the rest edge c + 1 in material coordinates */
    for (int i = 0; i < 10; i++) e->rest[i] = 0.0;
    if (uv) {
        Dm[0] = uv[2] - uv[0], Dm[1] = uv[4] - uv[0];
        Dm[2] = uv[3] - uv[1], Dm[3] = uv[5] - uv[1];
    } else {
        double e1[3], e2[3], n[3], a[3], b[3];
        for (int k = 0; k < 3; k++) e1[k] = xe[3 + k] - xe[k], e2[k] = xe[6 + k] - xe[k];
        weft_cross3(e1, e2, n);
        double ln = sqrt(weft_dot3(n, n)), l1 = sqrt(weft_dot3(e1, e1));
        if (!(ln > 0.0) || !(l1 > 0.0)) return false;
        for (int k = 0; k < 3; k++) n[k] /= ln;
        /* First axis: the global x axis projected onto the plane, a = e_x − n_x n. Its
         * direction has a rounding error of ~1e-16/|a|; below |a| = 1e-6 (x within
         * 1e-6 rad of the normal) the first edge is the better-defined choice. */
        for (int k = 0; k < 3; k++) a[k] = (k == 0 ? 1.0 : 0.0) - n[0] * n[k];
        double la = sqrt(weft_dot3(a, a));
        for (int k = 0; k < 3; k++) a[k] = la > 1e-6 ? a[k] / la : e1[k] / l1;
        weft_cross3(n, a, b); /* (a, b, n) right-handed: det Dm > 0 */
        Dm[0] = weft_dot3(a, e1), Dm[1] = weft_dot3(a, e2);
        Dm[2] = weft_dot3(b, e1), Dm[3] = weft_dot3(b, e2);
    }
    double det = Dm[0] * Dm[3] - Dm[1] * Dm[2];
    double s1 = Dm[0] * Dm[0] + Dm[2] * Dm[2], s2 = Dm[1] * Dm[1] + Dm[3] * Dm[3];
    /* |det| = |d1||d2| sin(angle): degenerate when the angle or the aspect ratio is below
     * 1e-12, where F = Ds Dm⁻¹ would be dominated by the rounding of Dm. */
    if (!(fabs(det) > 1e-12 * fmax(s1, s2))) return false;
    e->rest[0] = Dm[3] / det, e->rest[1] = -Dm[1] / det;
    e->rest[2] = -Dm[2] / det, e->rest[3] = Dm[0] / det;
    e->rest[9] = 0.5 * fabs(det);
    return true;
}

void weft_fem_tri_F(const weft_element *e, const double *xe, double F[6]) {
    const double *B = e->rest;
    for (int r = 0; r < 3; r++) {
        double d1 = xe[3 + r] - xe[r], d2 = xe[6 + r] - xe[r];
        F[2 * r] = d1 * B[0] + d2 * B[2];
        F[2 * r + 1] = d1 * B[1] + d2 * B[3];
    }
}

/* β[a][c] = ∂f_c/∂x_a (a scalar times I₃): rows of Dm⁻¹, and minus their sum for x0. */
static void chain_coefficients(const weft_element *e, double beta[3][2]) {
    for (int c = 0; c < 2; c++) {
        beta[1][c] = e->rest[c];
        beta[2][c] = e->rest[2 + c];
        beta[0][c] = -beta[1][c] - beta[2][c];
    }
}

void weft_fem_tri_gradient(const weft_element *e, const double P[6], double *g) {
    double beta[3][2], W = e->rest[9];
    chain_coefficients(e, beta);
    for (int a = 0; a < 3; a++)
        for (int r = 0; r < 3; r++)
            g[3 * a + r] = W * (beta[a][0] * P[2 * r] + beta[a][1] * P[2 * r + 1]);
}

void weft_fem_tri_hessian(const weft_element *e, const double A[36], double *H) {
    double beta[3][2], W = e->rest[9];
    chain_coefficients(e, beta);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int r = 0; r < 3; r++)
                for (int s = 0; s < 3; s++) {
                    double h = 0.0;
                    for (int c = 0; c < 2; c++)
                        for (int d = 0; d < 2; d++)
                            h += beta[a][c] * beta[b][d] * A[6 * (3 * c + r) + 3 * d + s];
                    H[9 * (3 * a + r) + 3 * b + s] = W * h;
                }
}

/* ------------------------------------------------------------------------------ */
/* SVD and projection                                                              */
/* ------------------------------------------------------------------------------ */

void weft_svd32(const double F[6], double U[9], double s[2], double V[4]) {
    double f0[3], f1[3], m[3], u0[3], u1[3], n[3];
    columns(F, f0, f1);
    double a = weft_dot3(f0, f0), b = weft_dot3(f0, f1), c = weft_dot3(f1, f1);
    double th = 0.5 * atan2(2.0 * b, a - c); /* atan2(0, 0) = 0: V = I for F = 0 */
    double cs = cos(th), sn = sin(th);
    V[0] = cs, V[1] = -sn, V[2] = sn, V[3] = cs; /* v0 = (cs, sn), v1 = (−sn, cs) */
    double s0 = sqrt(fmax(0.5 * (a + c) + hypot(0.5 * (a - c), b), 0.0));
    weft_cross3(f0, f1, m);
    double J = sqrt(weft_dot3(m, m));
    s[0] = s0;
    s[1] = s0 > 0.0 ? fmin(J / s0, s0) : 0.0;

    /* u0 = F v0 / |F v0| (e_x when F = 0). */
    double w0[3], lw = 0.0;
    for (int k = 0; k < 3; k++) w0[k] = cs * f0[k] + sn * f1[k];
    lw = sqrt(weft_dot3(w0, w0));
    for (int k = 0; k < 3; k++) u0[k] = lw > 0.0 ? w0[k] / lw : (k == 0 ? 1.0 : 0.0);

    /* n = f0 × f1 with its rounding-level component along u0 removed. When that removal
     * takes away more than a quarter of |m|, m is rounding noise (F has rank ≤ 1 to
     * machine precision) and any unit vector ⟂ u0 serves as u1. */
    double mu0 = weft_dot3(m, u0);
    for (int k = 0; k < 3; k++) n[k] = m[k] - mu0 * u0[k];
    double ln = weft_dot3(n, n);
    if (J > 0.0 && ln > 0.25 * J * J) {
        ln = sqrt(ln);
        for (int k = 0; k < 3; k++) n[k] /= ln;
        weft_cross3(n, u0, u1);
    } else {
        int kmin = 0; /* the axis least aligned with u0 */
        for (int k = 1; k < 3; k++)
            if (fabs(u0[k]) < fabs(u0[kmin])) kmin = k;
        for (int k = 0; k < 3; k++) u1[k] = (k == kmin ? 1.0 : 0.0) - u0[kmin] * u0[k];
        double l1 = sqrt(weft_dot3(u1, u1)); /* ≥ √(2/3): |u0[kmin]|² ≤ 1/3 */
        for (int k = 0; k < 3; k++) u1[k] /= l1;
        weft_cross3(u0, u1, n);
    }
    for (int r = 0; r < 3; r++) U[3 * r] = u0[r], U[3 * r + 1] = u1[r], U[3 * r + 2] = n[r];
}

/* A += λ q qᵀ (6×6) when λ > 0; −∞ and NaN-free negative values are skipped alike. */
static void add_mode(double A[36], double lambda, const double q[6]) {
    if (!(lambda > 0.0)) return;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) A[6 * i + j] += lambda * q[i] * q[j];
}

void weft_fem_project_tri(const double U[9], const double V[4], const weft_fem_eigen *eig,
                          double A[36]) {
    const double r2 = 0.70710678118654752440; /* 1/√2 */
    double u0[3], u1[3], n[3], v0[2] = {V[0], V[2]}, v1[2] = {V[1], V[3]};
    for (int r = 0; r < 3; r++) u0[r] = U[3 * r], u1[r] = U[3 * r + 1], n[r] = U[3 * r + 2];
    double p00[6], p11[6], p01[6], p10[6], q[6];
    outer32(u0, v0, p00), outer32(u1, v1, p11); /* U[diag(1,0);0]Vᵀ, U[diag(0,1);0]Vᵀ */
    outer32(u0, v1, p01), outer32(u1, v0, p10); /* U[[0,1],[0,0];0]Vᵀ, U[[0,0],[1,0];0]Vᵀ */
    memset(A, 0, 36 * sizeof *A);

    /* Scaling: the eigenvectors (cos φ, sin φ), (−sin φ, cos φ) of the symmetric 2×2
     * ∂²ψ/∂σ² = [[h00, h01], [h01, h11]], φ = ½ atan2(2 h01, h00 − h11). */
    double h00 = eig->scale[0], h11 = eig->scale[4];
    double h01 = 0.5 * (eig->scale[1] + eig->scale[3]);
    double phi = 0.5 * atan2(2.0 * h01, h00 - h11), cp = cos(phi), sp = sin(phi);
    double mid = 0.5 * (h00 + h11), rad = hypot(0.5 * (h00 - h11), h01);
    for (int i = 0; i < 6; i++) q[i] = cp * p00[i] + sp * p11[i];
    add_mode(A, mid + rad, q);
    for (int i = 0; i < 6; i++) q[i] = -sp * p00[i] + cp * p11[i];
    add_mode(A, mid - rad, q);

    for (int i = 0; i < 6; i++) q[i] = r2 * (p10[i] - p01[i]); /* twist */
    add_mode(A, eig->twist[0], q);
    for (int i = 0; i < 6; i++) q[i] = r2 * (p10[i] + p01[i]); /* flip */
    add_mode(A, eig->flip[0], q);
    outer32(n, v0, q); /* out of plane */
    add_mode(A, eig->out_of_plane[0], q);
    outer32(n, v1, q);
    add_mode(A, eig->out_of_plane[1], q);
}

/* ------------------------------------------------------------------------------ */
/* Area ratio                                                                      */
/* ------------------------------------------------------------------------------ */

/* [v]× (row-major 3×3), the matrix with [v]× w = v × w. */
static void skew(const double v[3], double S[9]) {
    S[0] = 0.0, S[1] = -v[2], S[2] = v[1];
    S[3] = v[2], S[4] = 0.0, S[5] = -v[0];
    S[6] = -v[1], S[7] = v[0], S[8] = 0.0;
}

double weft_fem_tri_area_ratio(const double F[6], double dJ[6], double d2J[36]) {
    double f0[3], f1[3], m[3], nh[3];
    columns(F, f0, f1);
    weft_cross3(f0, f1, m);
    double J = sqrt(weft_dot3(m, m));
    if (!dJ && !d2J) return J;
    if (J > 0.0) {
        for (int k = 0; k < 3; k++) nh[k] = m[k] / J;
    } else { /* collapsed: the SVD's normal (any unit vector ⟂ F's column space) */
        double U[9], s[2], V[4];
        weft_svd32(F, U, s, V);
        for (int k = 0; k < 3; k++) nh[k] = U[3 * k + 2];
    }
    if (dJ) {
        weft_cross3(f1, nh, dJ);
        weft_cross3(nh, f0, dJ + 3);
    }
    if (!d2J) return J;
    double G[18], Sn[9], Sf[9];
    /* G = ∂m/∂vec(F) (3×6 row-major): m = −[f1]× f0 = [f0]× f1. */
    skew(f1, Sf);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) G[6 * r + k] = -Sf[3 * r + k];
    skew(f0, Sf);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) G[6 * r + 3 + k] = Sf[3 * r + k];
    /* (I − n̂n̂ᵀ) G: each column of G with its n̂ component removed. */
    double PG[18];
    for (int j = 0; j < 6; j++) {
        double t = nh[0] * G[j] + nh[1] * G[6 + j] + nh[2] * G[12 + j];
        for (int r = 0; r < 3; r++) PG[6 * r + j] = G[6 * r + j] - t * nh[r];
    }
    double ic = weft_dot3(f0, f0) + weft_dot3(f1, f1);
    double jd = fmax(J, WEFT_TRI_J_EPS * ic); /* 0 only for F = 0, where G = 0 */
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double t = 0.0;
            for (int r = 0; r < 3; r++) t += G[6 * r + i] * PG[6 * r + j];
            d2J[6 * i + j] = jd > 0.0 ? t / jd : 0.0;
        }
    skew(nh, Sn);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) {
            d2J[6 * r + 3 + k] -= Sn[3 * r + k];   /* (f0, f1) block: −[n̂]× */
            d2J[6 * (3 + r) + k] += Sn[3 * r + k]; /* (f1, f0) block: +[n̂]× */
        }
    return J;
}

/* ------------------------------------------------------------------------------ */
/* Driver                                                                          */
/* ------------------------------------------------------------------------------ */

static bool all_finite(const double *a, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return false;
    return true;
}

double weft_tri_energy(const weft_tri_density *d, const weft_element *e, const double *xe) {
    if (!(e->rest[9] > 0.0)) return 0.0;
    double F[6];
    weft_fem_tri_F(e, xe, F);
    return e->rest[9] * d->psi(e, F, NULL);
}

double weft_tri_gradient(const weft_tri_density *d, const weft_element *e, const double *xe,
                         double *g) {
    return weft_tri_hessian(d, e, xe, WEFT_HESSIAN_EXACT, g, NULL);
}

/* ψ (returned, per area), P and, when A != NULL, the 6×6 matrix over vec(F) of `mode` at
 * xe; sets *ok to false where ψ, P or A is not finite (the caller then zeroes g and H). */
static double tri_density(const weft_tri_density *d, const weft_element *e, const double *xe,
                          weft_hessian_mode mode, double P[6], double *A, bool *ok) {
    double F[6];
    weft_fem_tri_F(e, xe, F);
    double psi = d->psi(e, F, P);
    *ok = isfinite(psi) && all_finite(P, 6);
    if (*ok && A) {
        if (mode == WEFT_HESSIAN_ANALYTIC && d->eigen) {
            double U[9], s[2], V[4];
            weft_fem_eigen eig;
            weft_svd32(F, U, s, V);
            d->eigen(e, s, &eig);
            weft_fem_project_tri(U, V, &eig, A);
        } else {
            d->hessian(e, F, A);
            if (mode != WEFT_HESSIAN_EXACT && all_finite(A, 36)) weft_psd_clamp(A, 6);
        }
        *ok = all_finite(A, 36);
    }
    return psi;
}

/* Also serves weft_tri_gradient (H == NULL): the Hessian is then not formed. */
double weft_tri_hessian(const weft_tri_density *d, const weft_element *e, const double *xe,
                        weft_hessian_mode mode, double *g, double *H) {
    if (!(e->rest[9] > 0.0)) {
        if (g) memset(g, 0, 9 * sizeof *g);
        if (H) memset(H, 0, 81 * sizeof *H);
        return 0.0;
    }
    double P[6], A[36];
    bool ok;
    double psi = tri_density(d, e, xe, mode, P, H ? A : NULL, &ok);
    if (!ok) {
        if (g) memset(g, 0, 9 * sizeof *g);
        if (H) memset(H, 0, 81 * sizeof *H);
        return INFINITY;
    }
    if (g) weft_fem_tri_gradient(e, P, g);
    if (H) weft_fem_tri_hessian(e, A, H);
    return e->rest[9] * psi;
}

/* Vertex a's rows of weft_fem_tri_gradient and its diagonal block of weft_fem_tri_hessian,
 * W Σ_cd β_ac β_ad A(f_c, f_d): the same operations in the same order, 9 entries of 81. */
double weft_tri_vertex_hessian(const weft_tri_density *d, const weft_element *e, const double *xe,
                               weft_hessian_mode mode, int a, double *g, double *H) {
    memset(g, 0, 3 * sizeof *g);
    memset(H, 0, 9 * sizeof *H);
    if (!(e->rest[9] > 0.0)) return 0.0;
    double P[6], A[36], beta[3][2], W = e->rest[9];
    bool ok;
    double psi = tri_density(d, e, xe, mode, P, A, &ok);
    if (!ok) return INFINITY;
    chain_coefficients(e, beta);
    for (int r = 0; r < 3; r++) g[r] = W * (beta[a][0] * P[2 * r] + beta[a][1] * P[2 * r + 1]);
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) {
            double h = 0.0;
            for (int c = 0; c < 2; c++)
                for (int dd = 0; dd < 2; dd++)
                    h += beta[a][c] * beta[a][dd] * A[6 * (3 * c + r) + 3 * dd + s];
            H[3 * r + s] = W * h;
        }
    return W * psi;
}
