/* symeig.c — eigen-decomposition A = Z Λ Zᵀ of a small dense symmetric matrix (n ≤ 18),
 * the kernel of weft's eigenvalue-clamping PSD projections (weft_psd_clamp). Inline
 * rather than LAPACK because at these sizes a dsyev call is mostly set-up (measurements:
 * papers/dynamic-deformables.md, "Implementation notes: energies/symeig.c"); LAPACK stays
 * the reference (test_energies.symeig) and weft_psd_clamp's fallback.
 *
 * Method (Golub & Van Loan, Matrix Computations, 4th ed., §8.3):
 *  1. Householder tridiagonalisation A = Q T Qᵀ. Step k (k = 0 … n−3) takes
 *     x = A(k+1:n, k) to α e₁ with P = I − β v vᵀ,
 *         α = −sign(x₀)‖x‖,  v = x − α e₁,  β = 2/(vᵀv),
 *     and updates S = A(k+1:n, k+1:n) as P S P:
 *         p = β S v,  w = p − ½ β (pᵀv) v,  S ← S − v wᵀ − w vᵀ;
 *     Q = P₀ P₁ ⋯ P_{n−3}, accumulated from the last reflector backwards.
 *  2. Implicit symmetric QR steps with the Wilkinson shift on the trailing unreduced
 *     block T(lo:hi, lo:hi),
 *         δ = (d_{hi−1} − d_hi)/2,   μ = d_hi − e_{hi−1}² / (δ + sign(δ) √(δ² + e_{hi−1}²)),
 *     a Givens rotation zeroing the second entry of (d_lo − μ, e_lo), and the bulge
 *     chased down to row hi; every rotation is applied to Z (initially Q), which ends
 *     holding the eigenvectors. e_i deflates when |e_i| ≤ u (|d_i| + |d_{i+1}|).
 * Orthogonal transformations only: Λ, Z are exact for A + E, ‖E‖ = O(u)‖A‖, as dsyev's.
 * A is scaled by its largest entry first (no over- or underflow). weft_symeig_tridiagonal
 * is stage 2 alone, for matrices tridiagonal in a known basis (dihedral_bending.c). */
#include "fem.h"

#include <float.h>
#include <math.h>
#include <string.h>

enum { SYMEIG_MAX = 18 };

/* Reduces the symmetric n×n row-major A (overwritten) to tridiagonal form: diagonal d,
 * off-diagonal e (e[i] = T(i, i+1)), and Z = Q with A = Q T Qᵀ. */
static void tridiagonalise(double *A, int n, double *d, double *e, double *Z) {
    double V[SYMEIG_MAX][SYMEIG_MAX], beta[SYMEIG_MAX] = {0};
    for (int k = 0; k + 2 < n; k++) {
        int m = n - k - 1; /* length of x = A(k+1:n, k) */
        double *v = V[k], xx = 0.0;
        for (int i = 0; i < m; i++) v[i] = A[(k + 1 + i) * n + k], xx += v[i] * v[i];
        double tail = xx - v[0] * v[0];
        if (tail == 0.0) { /* already tridiagonal in this column: P = I */
            e[k] = v[0], beta[k] = 0.0;
            continue;
        }
        double alpha = -copysign(sqrt(xx), v[0]);
        v[0] -= alpha;
        beta[k] = 2.0 / (v[0] * v[0] + tail);
        e[k] = alpha;
        /* p = β S v, then w = p − ½ β (pᵀv) v, then S ← S − v wᵀ − w vᵀ. */
        double p[SYMEIG_MAX], pv = 0.0;
        for (int i = 0; i < m; i++) {
            const double *row = &A[(k + 1 + i) * n + k + 1];
            double sum = 0.0;
            for (int j = 0; j < m; j++) sum += row[j] * v[j];
            p[i] = beta[k] * sum;
            pv += p[i] * v[i];
        }
        double half = 0.5 * beta[k] * pv;
        for (int i = 0; i < m; i++) p[i] -= half * v[i];
        for (int i = 0; i < m; i++) {
            double *row = &A[(k + 1 + i) * n + k + 1];
            for (int j = 0; j < m; j++) row[j] -= v[i] * p[j] + p[i] * v[j];
        }
    }
    for (int k = 0; k < n; k++) d[k] = A[k * n + k];
    if (n >= 2) e[n - 2] = A[(n - 1) * n + n - 2];
    /* Z = P₀ ⋯ P_{n−3} I, applying P_{n−3} first: P_k acts on rows and columns k+1…. */
    memset(Z, 0, (size_t)n * (size_t)n * sizeof *Z);
    for (int i = 0; i < n; i++) Z[i * n + i] = 1.0;
    for (int k = n - 3; k >= 0; k--) {
        if (beta[k] == 0.0) continue;
        int m = n - k - 1;
        const double *v = V[k];
        for (int j = k + 1; j < n; j++) {
            double t = 0.0;
            for (int i = 0; i < m; i++) t += v[i] * Z[(k + 1 + i) * n + j];
            t *= beta[k];
            for (int i = 0; i < m; i++) Z[(k + 1 + i) * n + j] -= t * v[i];
        }
    }
}

/* True if e_i is negligible beside its two diagonal neighbours. */
static bool negligible(const double *d, const double *e, int i) {
    return fabs(e[i]) <= 0.5 * DBL_EPSILON * (fabs(d[i]) + fabs(d[i + 1])) || fabs(e[i]) < DBL_MIN;
}

/* One implicit Wilkinson-shifted QR step on T(lo:hi, lo:hi), rotations applied to Z. */
static void qr_step(double *d, double *e, double *Z, int n, int lo, int hi) {
    double delta = 0.5 * (d[hi - 1] - d[hi]), f = e[hi - 1];
    double mu = d[hi] - f * (f / (delta + copysign(sqrt(delta * delta + f * f), delta)));
    double x = d[lo] - mu, z = e[lo];
    for (int k = lo; k < hi; k++) {
        double r = sqrt(x * x + z * z), c = 1.0, s = 0.0;
        if (r > 0.0) c = x / r, s = z / r;
        if (k > lo) e[k - 1] = r;
        double a = d[k], b = e[k], cc = d[k + 1], cs = c * s;
        d[k] = c * c * a + 2.0 * cs * b + s * s * cc;
        d[k + 1] = s * s * a - 2.0 * cs * b + c * c * cc;
        e[k] = cs * (cc - a) + (c * c - s * s) * b;
        if (k + 1 < hi) {
            z = s * e[k + 1];
            e[k + 1] *= c;
            x = e[k];
        }
        for (int i = 0; i < n; i++) {
            double zk = Z[i * n + k], zk1 = Z[i * n + k + 1];
            Z[i * n + k] = c * zk + s * zk1;
            Z[i * n + k + 1] = c * zk1 - s * zk;
        }
    }
}

int weft_symeig_tridiagonal(int n, double *d, double *e, double *Z) {
    if (n < 1 || n > SYMEIG_MAX) return -1;
    double scale = 0.0;
    for (int i = 0; i < n; i++) scale = fmax(scale, fabs(d[i]));
    for (int i = 0; i + 1 < n; i++) scale = fmax(scale, fabs(e[i]));
    if (!isfinite(scale)) return -1;
    if (scale == 0.0) return 0; /* T = 0: Λ = 0, Z as given */
    for (int i = 0; i < n; i++) d[i] /= scale;
    for (int i = 0; i + 1 < n; i++) e[i] /= scale;
    /* Deflate from the bottom; each QR step works on the trailing unreduced block. */
    int steps = 0;
    for (int hi = n - 1; hi > 0;) {
        if (negligible(d, e, hi - 1)) {
            e[hi - 1] = 0.0, hi--;
            continue;
        }
        int lo = hi - 1;
        while (lo > 0 && !negligible(d, e, lo - 1)) lo--;
        if (lo > 0) e[lo - 1] = 0.0;
        if (++steps > 30 * n) return -1; /* GvL: about 2 steps per eigenvalue in practice */
        qr_step(d, e, Z, n, lo, hi);
    }
    for (int i = 0; i < n; i++) d[i] *= scale;
    return 0;
}

int weft_symeig(const double *A, int n, double *w, double *Z) {
    if (n < 1 || n > SYMEIG_MAX) return -1;
    double S[SYMEIG_MAX * SYMEIG_MAX], scale = 0.0;
    for (int i = 0; i < n * n; i++) scale = fmax(scale, fabs(A[i]));
    if (!isfinite(scale)) return -1;
    if (scale == 0.0) { /* the zero matrix: Λ = 0, Z = I */
        memset(Z, 0, (size_t)n * (size_t)n * sizeof *Z);
        for (int i = 0; i < n; i++) w[i] = 0.0, Z[i * n + i] = 1.0;
        return 0;
    }
    for (int i = 0; i < n * n; i++) S[i] = A[i] / scale;
    double e[SYMEIG_MAX] = {0};
    tridiagonalise(S, n, w, e, Z);
    if (weft_symeig_tridiagonal(n, w, e, Z) != 0) return -1;
    for (int i = 0; i < n; i++) w[i] *= scale;
    return 0;
}
