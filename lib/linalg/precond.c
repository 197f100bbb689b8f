/* precond.c — the 3×3 helpers the preconditioners and linear solvers share, and the
 * scoped thread counts of the libraries they call (linalg_internal.h). */
#include "linalg_internal.h"
#include "weft_vec.h"

#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <string.h>

void weft_mul33(const double a[9], const double b[9], double r[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

bool weft_inv_spd33(const double M[9], double inv[9]) {
    double L[9];
    if (!weft_cholesky33(M, L)) return false;
    /* L⁻¹ (lower), then M⁻¹ = L⁻ᵀ L⁻¹. */
    double i00 = 1.0 / L[0], i11 = 1.0 / L[4], i22 = 1.0 / L[8];
    double i10 = -L[3] * i00 * i11, i21 = -L[7] * i11 * i22;
    double i20 = -(L[6] * i00 + L[7] * i10) * i22;
    double Li[9] = {i00, 0, 0, i10, i11, 0, i20, i21, i22};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            inv[3 * a + b] = Li[a] * Li[b] + Li[3 + a] * Li[3 + b] + Li[6 + a] * Li[6 + b];
    return true;
}

void weft_filtered_diagonal(const weft_bsr *A, const weft_filter *f, int i, double B[9]) {
    const double *D = &A->val[9 * (size_t)A->diag[i]], *S = &f->S[9 * (size_t)i];
    double SD[9];
    weft_mul33(S, D, SD);
    weft_mul33(SD, S, B);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) B[3 * a + b] += (a == b) - S[3 * a + b];
    /* Symmetrise against rounding in S D S before a Cholesky. */
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            B[3 * a + b] = B[3 * b + a] = 0.5 * (B[3 * a + b] + B[3 * b + a]);
}

weft_thread_scope weft_threads_enter(int threads) {
    weft_thread_scope saved = {0};
    if (threads < 1) return saved;
    /* omp_set_num_threads sets the calling thread's nthreads-var only; weft_threads_leave
     * puts it back, so other threads and later code keep their own team sizes. OpenBLAS
     * stays at the one thread weft gives it (energies/fem.c): CHOLMOD's supernodes on
     * cloth are small, and a threaded BLAS inside them cost 2-5x per Newton iteration at
     * 32²-64² with two threads (bench_solvers). */
    saved.omp = omp_get_max_threads();
    if (saved.omp != threads) omp_set_num_threads(threads);
    return saved;
}

void weft_threads_leave(weft_thread_scope saved) {
    if (saved.omp > 0 && omp_get_max_threads() != saved.omp) omp_set_num_threads(saved.omp);
}
