/* fem.c — the parts of fem.h that every finite-element energy shares whatever its
 * element kind: Lamé parameters (Kim & Eberle §4.1) and the generic PSD projection by
 * eigenvalue clamping (LAPACKE dsyevr), the fallback of Smith, de Goes, Kim 2019 §3 for
 * energies without an analytic eigensystem and the reference the analytic ones are
 * tested against. */
#include "fem.h"

#include <lapacke.h>
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

void weft_psd_clamp(double *A, int n) {
    /* dsyevr's minimal workspaces (26n doubles, 10n integers) on the stack, and the
     * column-major interface: A is symmetric, so its row-major buffer is also its
     * column-major one, and nothing is transposed or allocated per call. Eigenvector k
     * comes back as column k of z: z[i + n k]. */
    double a[144], w[12], z[144], work[26 * 12];
    lapack_int isuppz[24], iwork[10 * 12], m = 0;
    memcpy(a, A, (size_t)n * n * sizeof *a);
    lapack_int info = LAPACKE_dsyevr_work(LAPACK_COL_MAJOR, 'V', 'A', 'U', n, a, n, 0.0, 0.0, 0,
                                          0, 0.0, &m, w, z, n, isuppz, work, 26 * n, iwork, 10 * n);
    if (info != 0) { /* no convergence: keep only the (symmetrised) diagonal, still PSD */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) A[i * n + j] = i == j && A[i * n + i] > 0 ? A[i * n + i] : 0.0;
        return;
    }
    bool negative = false;
    for (int k = 0; k < m; k++) negative |= w[k] < 0.0;
    if (!negative) return; /* already PSD: keep the exact matrix bit for bit */
    memset(A, 0, (size_t)n * n * sizeof *A);
    for (int k = 0; k < m; k++) {
        if (!(w[k] > 0.0)) continue;
        const double *zk = &z[n * k];
        for (int i = 0; i < n; i++) {
            double zi = w[k] * zk[i];
            for (int j = 0; j < n; j++) A[i * n + j] += zi * zk[j];
        }
    }
}
