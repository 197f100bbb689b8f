/* cholmod_scalar.c — CHOLMOD for a block matrix of the form A = S ⊗ I₃ (every 3×3 block a
 * multiple of the identity: one scalar n×n matrix S acting alike on x, y and z) under
 * whole-vertex pins. Projective Dynamics' global matrix M/h² + Σ w AᵀA has this form
 * (Bouaziz et al. 2014 §5), so instead of the 3n×3n K = S A S + (I − S) this factorises
 * the n×n scalar K (9× fewer entries, about 27× fewer factorisation flops) once, and each
 * solve is one pair of triangular sweeps with the three coordinates as three right-hand
 * sides.
 * The filtered system is the same as weft_cholmod_solver's: a pinned vertex's row and
 * column become the identity's, the right-hand side is S (b − A z), and x = y + z.
 * The matrix is factorised once and solved every iteration, so the factor is simplicial
 * LDLᵀ up to 160 flops per factor entry (CHOLMOD's switch, default 40): on smaller mesh
 * graphs the supernodal solve spends its time in BLAS calls on small supernodes (cloth
 * 64², 81 flops/entry: 7.1 M instructions per 3-column cholmod_solve2 against 5.0 M;
 * 128², 149: 32.5 M against 28.1 M; 256², 265: the same, for a 6.7× costlier
 * factorisation; papers/bouaziz2014-projective-dynamics.md); a supernodal factor is
 * solved by cholmod_solve2. The free rows
 * coupled to pinned vertices are listed at the factorisation, so forming S (b − A z)
 * reads those couplings alone.
 * A simplicial LDLᵀ factor is solved by weft's own substitution (weft_ldl3_solve), not
 * cholmod_solve2: CHOLMOD stays the orderer and factoriser, and after each factorisation
 * its arrays (Lp, Lnz, Li, Lx with D on the diagonal) are copied once into L's strictly
 * lower part by columns. The right-hand side S (b − A z) is formed straight into one
 * array in the factor's order, row k's x, y, z side by side in one SIMD register, so each
 * factor entry is read once for the three coordinates and nothing is permuted or copied
 * into workspaces (cholmod_solve2 permutes B into its own row-wise Y and back); forward
 * by column updates, back by dot products in four partial sums (instruction counts and
 * wall times in papers/bouaziz2014-projective-dynamics.md). */
#include "linalg_internal.h"
#include "weft_cholmod.h"
#include "weft_linsolve.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct weft_cholmod_scalar {
    cholmod_common cc;
    int n, nnzb;
    int *row_ptr, *col; /* the block pattern analysed (n + 1, nnzb) */
    int *entry;         /* CSC entry p of K's upper triangle: its block index in A */
    bool *pinned;       /* n: the pins K was factorised with */
    int *cpl_ptr, *cpl; /* per vertex (n + 1), A's blocks q coupling it (free) to a pinned
                         * column, in row order: S (b − A z) reads these alone */
    cholmod_sparse *K;
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E;
    weft_ldl3 ldl;      /* a copy of a simplicial factor (n = 0: none; solve with CHOLMOD) */
    double *y;          /* 4n, 32-byte aligned: the right-hand side and solution in the
                         * factor's order, row k's x y z and an unused lane (weft_ldl3) */
    bool factored;
    int analyses;
    long factorisations;
    int ordering; /* L->ordering, -1 before the analysis */
};

weft_cholmod_scalar *weft_cholmod_scalar_create(weft_error *err) {
    weft_cholmod_scalar *s = calloc(1, sizeof *s);
    if (!s) {
        weft_fail(err, WEFT_ERR_NOMEM, "cholmod scalar solver: cannot allocate");
        return NULL;
    }
    cholmod_start(&s->cc);
    s->cc.print = 0;
    s->cc.supernodal_switch = 160.0; /* solve-bound use: see the file comment */
    s->ordering = -1;
    return s;
}

/* Frees the analysed pattern and factor (the counters stay). */
static void scalar_reset(weft_cholmod_scalar *s) {
    cholmod_free_factor(&s->L, &s->cc);
    cholmod_free_sparse(&s->K, &s->cc);
    cholmod_free_dense(&s->B, &s->cc);
    cholmod_free_dense(&s->X, &s->cc);
    cholmod_free_dense(&s->Y, &s->cc);
    cholmod_free_dense(&s->E, &s->cc);
    free(s->row_ptr), free(s->col), free(s->entry), free(s->pinned);
    free(s->cpl_ptr), free(s->cpl), free(s->y);
    weft_ldl3_free(&s->ldl);
    s->y = NULL;
    s->row_ptr = s->col = s->entry = s->cpl_ptr = s->cpl = NULL, s->pinned = NULL;
    s->n = s->nnzb = 0;
    s->factored = false;
}

void weft_cholmod_scalar_free(weft_cholmod_scalar **s) {
    if (!s || !*s) return;
    scalar_reset(*s);
    cholmod_finish(&(*s)->cc);
    free(*s);
    *s = NULL;
}

int weft_cholmod_scalar_analyses(const weft_cholmod_scalar *s) { return s ? s->analyses : 0; }

long weft_cholmod_scalar_factorisations(const weft_cholmod_scalar *s) {
    return s ? s->factorisations : 0;
}

const char *weft_cholmod_scalar_ordering(const weft_cholmod_scalar *s) {
    return weft_cholmod_ordering_name(s ? s->ordering : -1);
}

static bool same_pattern(const weft_cholmod_scalar *s, const weft_bsr *A) {
    return weft_bsr_pattern_is(A, s->n, s->nnzb, s->row_ptr, s->col);
}

/* Copies A's pattern, builds K's upper-triangle pattern (column j: row j's blocks up to
 * the diagonal) and analyses it. */
static weft_solve_status analyse(weft_cholmod_scalar *s, const weft_bsr *A, weft_error *err) {
    scalar_reset(s);
    size_t n = (size_t)A->n, nnz = 0;
    for (int j = 0; j < A->n; j++) nnz += (size_t)(A->diag[j] - A->row_ptr[j] + 1);
    s->row_ptr = malloc((n + 1) * sizeof(int));
    s->col = malloc(((size_t)A->nnzb + 1) * sizeof(int));
    s->entry = malloc((nnz + 1) * sizeof(int));
    s->pinned = calloc(n + 1, sizeof(bool));
    s->cpl_ptr = calloc(n + 1, sizeof(int));
    s->cpl = malloc(((size_t)A->nnzb + 1) * sizeof(int));
    s->K = cholmod_allocate_sparse(n, n, nnz, 1, 1, 1, CHOLMOD_REAL, &s->cc);
    s->B = cholmod_zeros(n, 3, CHOLMOD_REAL, &s->cc);
    s->y = aligned_alloc(32, 32 * (n + 1));
    if (!s->row_ptr || !s->col || !s->entry || !s->pinned || !s->cpl_ptr || !s->cpl || !s->K ||
        !s->B || !s->y) {
        scalar_reset(s);
        weft_fail(err, WEFT_ERR_NOMEM, "cholmod scalar solver: cannot copy a %d-block pattern",
                  A->nnzb);
        return WEFT_SOLVE_NOMEM;
    }
    s->n = A->n, s->nnzb = A->nnzb;
    memcpy(s->row_ptr, A->row_ptr, (n + 1) * sizeof(int));
    memcpy(s->col, A->col, (size_t)A->nnzb * sizeof(int));
    int *Kp = s->K->p, *Ki = s->K->i, p = 0;
    for (int j = 0; j < A->n; j++) {
        Kp[j] = p;
        for (int k = A->row_ptr[j]; k <= A->diag[j]; k++) s->entry[p] = k, Ki[p++] = A->col[k];
    }
    Kp[n] = p;
    memset(s->K->x, 0, nnz * sizeof(double));
    for (int j = 0; j < A->n; j++) ((double *)s->K->x)[Kp[j + 1] - 1] = 1.0; /* any SPD */
    s->L = cholmod_analyze(s->K, &s->cc);
    if (!s->L) {
        weft_fail(err, WEFT_ERR_NOMEM, "cholmod scalar solver: analysis failed (status %d)",
                  s->cc.status);
        scalar_reset(s);
        return WEFT_SOLVE_NOMEM;
    }
    s->analyses++;
    s->ordering = s->L->ordering;
    return WEFT_SOLVE_CONVERGED;
}

/* Checks that A = S ⊗ I₃ and f pins whole vertices only; records the pins. */
static weft_solve_status check_form(weft_cholmod_scalar *s, const weft_bsr *A,
                                    const weft_filter *f, weft_error *err) {
    for (int k = 0; k < A->nnzb; k++) {
        const double *B = &A->val[9 * (size_t)k];
        if (B[1] != 0.0 || B[2] != 0.0 || B[3] != 0.0 || B[5] != 0.0 || B[6] != 0.0 ||
            B[7] != 0.0 || B[4] != B[0] || B[8] != B[0]) {
            weft_fail(err, WEFT_ERR_INPUT, "cholmod scalar solver: block %d of A is not a "
                      "multiple of the identity", k);
            return WEFT_SOLVE_INPUT;
        }
    }
    for (int i = 0; i < A->n; i++) {
        if (f->ndof[i] != 0 && f->ndof[i] != 3) {
            weft_fail(err, WEFT_ERR_INPUT, "cholmod scalar solver: vertex %d is constrained "
                      "along %d directions; only whole-vertex pins keep the matrix scalar", i,
                      f->ndof[i]);
            return WEFT_SOLVE_INPUT;
        }
        s->pinned[i] = f->ndof[i] == 3;
    }
    int c = 0; /* the couplings of free rows to pinned columns, row by row */
    for (int i = 0; i < A->n; i++) {
        s->cpl_ptr[i] = c;
        for (int q = A->row_ptr[i]; q < A->row_ptr[i + 1] && !s->pinned[i]; q++)
            if (s->pinned[A->col[q]]) s->cpl[c++] = q;
    }
    s->cpl_ptr[A->n] = c;
    return WEFT_SOLVE_CONVERGED;
}

/* Four doubles in one SIMD register (as weft_energies.h's weft_vd4): a row's x, y, z and
 * an unused lane. */
typedef double ldl_vd4 __attribute__((vector_size(32)));

/* Compiled with AVX2 and without, picked at load time (as WEFT_AVX2_CLONE in
 * weft_energies.h; -ffp-contract=off, so both give the same bits). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LDL_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define LDL_AVX2_CLONE
#endif

/* True when L is a factor weft_ldl3_from_cholmod reads: simplicial LDLᵀ of doubles with
 * int indices. */
static bool ldl_readable(const cholmod_factor *L) {
    return L && !L->is_super && !L->is_ll && L->xtype == CHOLMOD_REAL &&
           L->dtype == CHOLMOD_DOUBLE && L->itype == CHOLMOD_INT;
}

void weft_ldl3_free(weft_ldl3 *f) {
    free(f->cp), free(f->ci), free(f->cx), free(f->d);
    memset(f, 0, sizeof *f);
}

int weft_ldl3_from_cholmod(weft_ldl3 *f, const cholmod_factor *L) {
    weft_ldl3_free(f);
    if (!ldl_readable(L) || L->n > INT_MAX / sizeof(ldl_vd4)) return -1;
    const int n = (int)L->n, *Lp = L->p, *Lnz = L->nz, *Li = L->i;
    const double *Lx = L->x;
    size_t nz = 0;
    for (int j = 0; j < n; j++) nz += (size_t)Lnz[j] - 1;
    f->n = n;
    f->cp = malloc(((size_t)n + 1) * sizeof(int)), f->ci = malloc((nz + 1) * sizeof(int));
    f->cx = malloc((nz + 1) * sizeof(double)), f->d = malloc(((size_t)n + 1) * sizeof(double));
    if (!f->cp || !f->ci || !f->cx || !f->d) {
        weft_ldl3_free(f);
        return -1;
    }
    int c = 0;
    for (int j = 0; j < n; j++) { /* columns: L's strictly lower part, packed */
        f->cp[j] = c, f->d[j] = Lx[Lp[j]];
        for (int p = Lp[j] + 1; p < Lp[j] + Lnz[j]; p++) {
            f->ci[c] = (int)sizeof(ldl_vd4) * Li[p], f->cx[c++] = Lx[p];
        }
    }
    f->cp[n] = c;
    return 0;
}

/* y[k] = a − Σ_{p ∈ [p, pe)} x[p] y[j[p]], j as byte offsets into y: four partial sums
 * (terms p ≡ 0, 1, 2, 3 mod 4 of the row), so four subtractions are in flight at a time
 * instead of one chain of dependent ones, added as (s0 + s1) + (s2 + s3); a by pointer: no
 * vector passed by value, the same ABI in both clones. */
static inline void ldl_dot(const ldl_vd4 *a, ldl_vd4 *y, int k, const int *j, const double *x,
                           int p, const int pe) {
    const char *yb = (const char *)y;
    ldl_vd4 s0 = *a, s1 = {0.0, 0.0, 0.0, 0.0}, s2 = s1, s3 = s1;
#define Y(q) (*(const ldl_vd4 *)(yb + j[q]))
    for (; p + 3 < pe; p += 4) {
        s0 = s0 - x[p] * Y(p), s1 = s1 - x[p + 1] * Y(p + 1);
        s2 = s2 - x[p + 2] * Y(p + 2), s3 = s3 - x[p + 3] * Y(p + 3);
    }
    for (; p < pe; p++) s0 = s0 - x[p] * Y(p);
#undef Y
    y[k] = (s0 + s1) + (s2 + s3);
}

LDL_AVX2_CLONE void weft_ldl3_solve(const weft_ldl3 *f, double *yd) {
    ldl_vd4 *y = (ldl_vd4 *)yd;
    char *yb = (char *)yd;
    const int n = f->n, *cp = f->cp, *ci = f->ci;
    const double *cx = f->cx;
    for (int k = 0; k < n; k++) { /* L u = b by columns: u_i −= L_ik u_k below row k */
        const ldl_vd4 u = y[k];
        int p = cp[k];
        for (; p + 3 < cp[k + 1]; p += 4) { /* four distinct rows a turn */
            ldl_vd4 *y0 = (ldl_vd4 *)(yb + ci[p]), *y1 = (ldl_vd4 *)(yb + ci[p + 1]);
            ldl_vd4 *y2 = (ldl_vd4 *)(yb + ci[p + 2]), *y3 = (ldl_vd4 *)(yb + ci[p + 3]);
            const ldl_vd4 v0 = *y0 - cx[p] * u, v1 = *y1 - cx[p + 1] * u;
            const ldl_vd4 v2 = *y2 - cx[p + 2] * u, v3 = *y3 - cx[p + 3] * u;
            *y0 = v0, *y1 = v1, *y2 = v2, *y3 = v3;
        }
        for (; p < cp[k + 1]; p++) {
            ldl_vd4 *yi = (ldl_vd4 *)(yb + ci[p]);
            *yi = *yi - cx[p] * u;
        }
    }
    for (int k = n - 1; k >= 0; k--) { /* Lᵀ x = D⁻¹ u: x_k = u_k / D_k − Σ_i L_ik x_i */
        const ldl_vd4 w = y[k] / f->d[k];
        ldl_dot(&w, y, k, ci, cx, cp[k], cp[k + 1]);
    }
}

weft_solve_status weft_cholmod_scalar_factor(weft_cholmod_scalar *s, const weft_bsr *A,
                                             const weft_filter *f, weft_error *err) {
    s->factored = false;
    weft_ldl3_free(&s->ldl);
    if (f->n != A->n) {
        weft_fail(err, WEFT_ERR_INPUT, "cholmod scalar solver: A has %d vertices, filter %d",
                  A->n, f->n);
        return WEFT_SOLVE_INPUT;
    }
    weft_solve_status st = WEFT_SOLVE_CONVERGED;
    if (!same_pattern(s, A) && (st = analyse(s, A, err)) != WEFT_SOLVE_CONVERGED) return st;
    if ((st = check_form(s, A, f, err)) != WEFT_SOLVE_CONVERGED) return st;
    /* K: A's scalar where both vertices are free, the identity's rows for pinned ones. */
    const int *Kp = s->K->p, *Ki = s->K->i;
    double *Kx = s->K->x;
    for (int j = 0; j < A->n; j++)
        for (int p = Kp[j]; p < Kp[j + 1]; p++) {
            int i = Ki[p];
            Kx[p] = s->pinned[i] || s->pinned[j] ? (i == j ? 1.0 : 0.0)
                                                   : A->val[9 * (size_t)s->entry[p]];
            if (!isfinite(Kx[p])) {
                weft_fail(err, WEFT_ERR_DIVERGED, "cholmod scalar solver: the filtered "
                          "matrix is not finite");
                return WEFT_SOLVE_NONFINITE;
            }
        }
    int ok = cholmod_factorize(s->K, s->L, &s->cc);
    s->factorisations++;
    if (ok && s->cc.status == CHOLMOD_OK && !s->L->is_super && !s->L->is_ll) {
        const int *Lp = s->L->p; /* LDLᵀ: positive definite iff every pivot D(j,j) > 0 */
        const double *Lx = s->L->x;
        for (size_t j = 0; j < s->L->n; j++)
            if (!(Lx[Lp[j]] > 0.0)) {
                s->L->minor = j;
                break;
            }
    }
    if (s->cc.status == CHOLMOD_NOT_POSDEF || (ok && s->L->minor < s->L->n)) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod scalar solver: K is not positive definite "
                  "(CHOLMOD_NOT_POSDEF at column %zu of %zu)", (size_t)s->L->minor,
                  (size_t)A->n);
        return WEFT_SOLVE_INDEFINITE;
    }
    if (!ok || s->cc.status != CHOLMOD_OK) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod scalar solver: factorisation failed "
                  "(status %d)", s->cc.status);
        return s->cc.status == CHOLMOD_OUT_OF_MEMORY ? WEFT_SOLVE_NOMEM : WEFT_SOLVE_INPUT;
    }
    if (ldl_readable(s->L) && weft_ldl3_from_cholmod(&s->ldl, s->L)) {
        weft_fail(err, WEFT_ERR_NOMEM, "cholmod scalar solver: cannot copy the factor");
        return WEFT_SOLVE_NOMEM;
    }
    s->factored = true;
    return WEFT_SOLVE_CONVERGED;
}

/* The pinned-coupling sum of row i, coordinate k: Σ_q A_q z_col(q) over i's couplings. */
static inline double coupling(const weft_cholmod_scalar *s, const weft_bsr *A, const double *z,
                              int i, int k) {
    double t = 0.0;
    for (int p = s->cpl_ptr[i]; p < s->cpl_ptr[i + 1]; p++) {
        int q = s->cpl[p];
        t += A->val[9 * (size_t)q] * z[3 * A->col[q] + k];
    }
    return t;
}

/* x = z on the filter's pins (where finite), 0 elsewhere: x until a solve succeeds. */
static void pins_only(const weft_filter *f, int n, double *x) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = f->ndof[i] == 3 && isfinite(f->z[3 * i + k]) ? f->z[3 * i + k] : 0.0;
}

/* True when every lane of c (a sum of v·0 over values v) is 0: no v was NaN or ±inf. */
static bool lanes_finite(const ldl_vd4 *c) {
    return (*c)[0] == 0.0 && (*c)[1] == 0.0 && (*c)[2] == 0.0;
}

/* The solve of a simplicial LDLᵀ factor: S (b − A z) gathered into s->y in the factor's
 * order (row k holds vertex Perm[k]), weft_ldl3_solve, then x: the free rows from s->y,
 * the pinned ones pins_only's values, in one pass. Finiteness is tested by summing v·0. */
static weft_solve_status apply_ldl(weft_cholmod_scalar *s, const weft_bsr *A,
                                   const weft_filter *f, const double *b, double *x,
                                   weft_error *err) {
    const int n = A->n, *P = s->L->Perm;
    ldl_vd4 *y = (ldl_vd4 *)s->y, chk = {0.0, 0.0, 0.0, 0.0};
    for (int k = 0; k < n; k++) {
        const int i = P[k];
        const double *bi = &b[3 * i];
        ldl_vd4 v = {bi[0], bi[1], bi[2], 0.0};
        if (s->pinned[i])
            v = (ldl_vd4){0.0, 0.0, 0.0, 0.0};
        else if (s->cpl_ptr[i] < s->cpl_ptr[i + 1])
            for (int c = 0; c < 3; c++) v[c] = bi[c] - coupling(s, A, f->z, i, c);
        y[k] = v, chk = chk + v * 0.0;
    }
    if (!lanes_finite(&chk)) {
        pins_only(f, n, x);
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod scalar solver: the filtered right-hand "
                  "side S (b - A z) is not finite (NaN or inf in b, z or A)");
        return WEFT_SOLVE_NONFINITE;
    }
    weft_ldl3_solve(&s->ldl, s->y);
    for (int k = 0; k < n; k++) {
        const int i = P[k];
        chk = chk + y[k] * 0.0;
        if (!s->pinned[i])
            memcpy(&x[3 * i], &y[k], 3 * sizeof(double));
        else
            for (int c = 0; c < 3; c++)
                x[3 * i + c] = f->ndof[i] == 3 && isfinite(f->z[3 * i + c]) ? f->z[3 * i + c] : 0.0;
    }
    if (!lanes_finite(&chk)) {
        pins_only(f, n, x);
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod scalar solver: the solution is not finite");
        return WEFT_SOLVE_NONFINITE;
    }
    return WEFT_SOLVE_CONVERGED;
}

weft_solve_status weft_cholmod_scalar_apply(weft_cholmod_scalar *s, const weft_bsr *A,
                                            const weft_filter *f, const double *b, double *x,
                                            weft_error *err) {
    const int n = A->n;
    if (!s->factored || f->n != n || !same_pattern(s, A)) {
        if (f->n == n)
            pins_only(f, n, x);
        else
            memset(x, 0, 3 * (size_t)n * sizeof *x);
        weft_fail(err, WEFT_ERR_INPUT, "cholmod scalar solver: no factorisation of this "
                  "matrix to solve with");
        return WEFT_SOLVE_INPUT;
    }
    if (s->ldl.n == n) return apply_ldl(s, A, f, b, x, err);
    pins_only(f, n, x);
    /* B (n × 3, column-major) = S (b − A z): the pinned vertices' z moved to the right. */
    double *B = s->B->x;
    bool finite = true;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            double c = 0.0;
            if (!s->pinned[i]) {
                double t = 0.0;
                for (int p = s->cpl_ptr[i]; p < s->cpl_ptr[i + 1]; p++) {
                    int q = s->cpl[p];
                    t += A->val[9 * (size_t)q] * f->z[3 * A->col[q] + k];
                }
                c = b[3 * i + k] - t;
            }
            finite &= isfinite(c);
            B[i + (size_t)n * k] = c;
        }
    if (!finite) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod scalar solver: the filtered right-hand "
                  "side S (b - A z) is not finite (NaN or inf in b, z or A)");
        return WEFT_SOLVE_NONFINITE;
    }
    if (!cholmod_solve2(CHOLMOD_A, s->L, s->B, NULL, &s->X, NULL, &s->Y, &s->E, &s->cc)) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod scalar solver: solve failed (status %d)",
                  s->cc.status);
        return WEFT_SOLVE_INPUT;
    }
    const double *Y = s->X->x;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) finite &= isfinite(Y[i + (size_t)n * k]);
    if (!finite) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod scalar solver: the solution is not finite");
        return WEFT_SOLVE_NONFINITE;
    }
    for (int i = 0; i < n; i++)
        if (!s->pinned[i])
            for (int k = 0; k < 3; k++) x[3 * i + k] = Y[i + (size_t)n * k];
    return WEFT_SOLVE_CONVERGED;
}
