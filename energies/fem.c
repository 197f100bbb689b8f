/* fem.c — the parts of fem.h that every finite-element energy shares whatever its
 * element kind: Lamé parameters (Kim & Eberle §4.1) and the generic PSD projection by
 * eigenvalue clamping (weft_symeig, with LAPACKE dsyev behind it), the fallback of
 * Smith, de Goes, Kim 2019 §3 for energies without an analytic eigensystem and the
 * reference the analytic ones are tested against. */
#include "fem.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

/* OpenBLAS (Debian's pthread build) would start its own threads inside every small
 * LAPACK call, and inside an OpenMP assembly that oversubscribes the cores: measured 2-4x
 * slower per assembly with heavy system time. Every matrix weft hands to LAPACK is at
 * most 12×12, so OpenBLAS runs single-threaded; parallelism comes from OpenMP. */
void openblas_set_num_threads(int num_threads);
__attribute__((constructor)) static void weft_blas_single_threaded(void) {
    openblas_set_num_threads(1);
}

double weft_lame_mu(double youngs, double poisson) { return youngs / (2.0 * (1.0 + poisson)); }

double weft_lame_lambda(double youngs, double poisson) {
    return youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
}

bool weft_psd_clamp(double *A, int n) {
    /* weft_symeig (symeig.c: Householder tridiagonalisation and Wilkinson-shifted QR, the
     * algorithms of LAPACK's dsyev without its per-call set-up, which dominates at
     * n ≤ 18). If it ever fails to converge, LAPACKE_dsyev decides. Both are backward
     * stable, and the PSD projection is 1-Lipschitz in the Frobenius norm (it is the
     * nearest-point map onto a convex cone), so either returns the exact projection to
     * O(machine epsilon) · ‖A‖. Eigenvector k is column k of z: z[i n + k]. */
    double z[324], w[18];
    if (weft_symeig(A, n, w, z) != 0) {
        /* dsyev's column-major interface: A is symmetric, so its row-major buffer is also
         * its column-major one; eigenvector k comes back as z[i + n k], transposed below. */
        double work[3 * 18], t[324];
        memcpy(t, A, (size_t)n * n * sizeof *t);
        lapack_int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'U', n, t, n, w, work,
                                             3 * n - 1);
        if (info != 0) { /* no convergence: keep only the (symmetrised) diagonal, still PSD */
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    A[i * n + j] = i == j && A[i * n + i] > 0 ? A[i * n + i] : 0.0;
            return true;
        }
        for (int i = 0; i < n; i++)
            for (int k = 0; k < n; k++) z[i * n + k] = t[i + n * k];
    }
    bool negative = false;
    for (int k = 0; k < n; k++) negative |= w[k] < 0.0;
    if (!negative) return false; /* already PSD: keep the exact matrix bit for bit */
    memset(A, 0, (size_t)n * n * sizeof *A);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double sum = 0.0;
            for (int k = 0; k < n; k++)
                if (w[k] > 0.0) sum += w[k] * z[i * n + k] * z[j * n + k];
            A[i * n + j] = A[j * n + i] = sum;
        }
    return true;
}

double weft_fem_projective_rows(const weft_element *e, int d, double *A) {
    for (int c = 0; c < d; c++) {
        double s = 0.0;
        for (int j = 0; j < d; j++) {
            A[(d + 1) * c + j + 1] = e->rest[d * j + c];
            s += e->rest[d * j + c];
        }
        A[(d + 1) * c] = -s;
    }
    return e->rest[9];
}
