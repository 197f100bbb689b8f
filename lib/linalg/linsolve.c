/* linsolve.c — PPCG and filtered CHOLMOD solves (weft_linsolve.h).
 *
 * Both solve K y = S c with K = S A S + (I − S), c = b − A z, then x = y + z (Tamstorf,
 * Jones, McCormick 2015, "Smoothed aggregation multigrid for cloth simulation", PPCG;
 * Kim & Eberle 2020 §9.1.1). PPCG is preconditioned CG (Hestenes & Stiefel 1952) on K:
 *     q = K p,  α = rᵀs / pᵀq,  y += α p,  r −= α q,  s = M⁻¹ r,  p = s + β p,
 * stopping when the true residual ‖S c − K y‖ ≤ tol ‖S c‖ (a recursive residual under tol
 * is re-checked against the true one and CG restarts from it if it is not). pᵀq ≤ 0
 * means K is not positive definite along p: reported, never divided through.
 * Block-Jacobi uses M_i = S_i D_i S_i + (I − S_i), which is SPD when D_i is SPD on
 * range(S_i), and maps range(S_i) into itself.
 */
#include "weft_linsolve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *weft_solve_status_name(weft_solve_status s) {
    switch (s) {
    case WEFT_SOLVE_CONVERGED: return "converged";
    case WEFT_SOLVE_MAX_ITER: return "iteration cap";
    case WEFT_SOLVE_INDEFINITE: return "indefinite";
    case WEFT_SOLVE_NONFINITE: return "non-finite";
    case WEFT_SOLVE_INPUT: return "bad input";
    case WEFT_SOLVE_NOMEM: return "out of memory";
    }
    return "?";
}

/* r = a b for 3×3 row-major matrices (r must not alias a or b). */
static void mul33(const double *a, const double *b, double *r) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

/* Inverse of a symmetric 3×3 matrix by Cholesky; false unless it is positive definite. */
static bool inv_spd33(const double *M, double *inv) {
    double l00 = M[0];
    if (!(l00 > 0.0)) return false;
    l00 = sqrt(l00);
    double l10 = M[3] / l00, l20 = M[6] / l00;
    double d1 = M[4] - l10 * l10;
    if (!(d1 > 0.0)) return false;
    double l11 = sqrt(d1), l21 = (M[7] - l20 * l10) / l11;
    double d2 = M[8] - l20 * l20 - l21 * l21;
    if (!(d2 > 0.0) || !isfinite(d2)) return false;
    double l22 = sqrt(d2);
    /* L⁻¹ (lower), then M⁻¹ = L⁻ᵀ L⁻¹. */
    double i00 = 1.0 / l00, i11 = 1.0 / l11, i22 = 1.0 / l22;
    double i10 = -l10 * i00 * i11, i21 = -l21 * i11 * i22;
    double i20 = -(l20 * i00 + l21 * i10) * i22;
    double Li[9] = {i00, 0, 0, i10, i11, 0, i20, i21, i22};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            inv[3 * a + b] = Li[a] * Li[b] + Li[3 + a] * Li[3 + b] + Li[6 + a] * Li[6 + b];
    return true;
}

static bool all_finite(const double *v, size_t n) {
    double s = 0.0;
    for (size_t k = 0; k < n; k++) s += v[k] * 0.0;
    return s == 0.0;
}

/* x ← composition of y with z, or 0 where z is not finite (never NaN). */
static void safe_compose(const weft_filter *f, const double *y, double *x) {
    weft_filter_compose(f, y, x);
    size_t n3 = 3 * (size_t)f->n;
    for (size_t k = 0; k < n3; k++)
        if (!isfinite(x[k])) x[k] = isfinite(f->z[k]) ? f->z[k] : 0.0;
}

/* c = S (b − A z), in c; t is 3n scratch. */
static void filtered_rhs(const weft_bsr *A, const weft_filter *f, const double *b, double *c,
                         double *t, int threads) {
    size_t n3 = 3 * (size_t)A->n;
    weft_bsr_spmv(A, f->z, t, threads);
    for (size_t k = 0; k < n3; k++) c[k] = b[k] - t[k];
    weft_filter_apply(f, c, c);
}

/* ------------------------------------------------------------------------------ */
/* PPCG                                                                            */
/* ------------------------------------------------------------------------------ */

struct weft_ppcg {
    int n;
    double *y, *r, *s, *p, *q, *c, *t, *M; /* 3n each, M: 9n (inverse blocks or 3n diag) */
};

weft_ppcg_options weft_ppcg_defaults(void) {
    return (weft_ppcg_options){WEFT_PRECOND_BLOCK_JACOBI, 1e-8, 1000, 1, NULL, NULL};
}

weft_ppcg *weft_ppcg_create(int n, weft_error *err) {
    if (n < 0) {
        weft_fail(err, WEFT_ERR_INPUT, "ppcg: %d vertices", n);
        return NULL;
    }
    weft_ppcg *s = calloc(1, sizeof *s);
    size_t m = 3 * (size_t)(n > 0 ? n : 1);
    double *block = s ? malloc(10 * m * sizeof(double)) : NULL;
    if (!block) {
        free(s);
        weft_fail(err, WEFT_ERR_NOMEM, "ppcg: cannot allocate work arrays for %d vertices", n);
        return NULL;
    }
    s->n = n;
    s->y = block, s->r = block + m, s->s = block + 2 * m, s->p = block + 3 * m;
    s->q = block + 4 * m, s->c = block + 5 * m, s->t = block + 6 * m, s->M = block + 7 * m;
    return s;
}

void weft_ppcg_free(weft_ppcg **s) {
    if (!s || !*s) return;
    free((*s)->y);
    free(*s);
    *s = NULL;
}

/* q = K p = S A S p + (I − S) p; t is scratch. */
static void apply_K(const weft_bsr *A, const weft_filter *f, const double *p, double *q,
                    double *t, int threads) {
    size_t n3 = 3 * (size_t)A->n;
    weft_filter_apply(f, p, t);
    weft_bsr_spmv(A, t, q, threads);
    weft_filter_apply(f, q, q);
    for (size_t k = 0; k < n3; k++) q[k] += p[k] - t[k];
}

/* Sets up M (inverse diagonal or inverse blocks); returns the first bad vertex or -1. */
static int setup_precond(weft_ppcg *s, const weft_bsr *A, const weft_filter *f,
                         weft_precond pc) {
    for (int i = 0; i < A->n; i++) {
        const double *D = &A->val[9 * (size_t)A->diag[i]], *S = &f->S[9 * (size_t)i];
        double SD[9], B[9];
        mul33(S, D, SD);
        mul33(SD, S, B);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) B[3 * a + b] += (a == b) - S[3 * a + b];
        if (pc == WEFT_PRECOND_JACOBI) {
            for (int a = 0; a < 3; a++) {
                if (!(B[4 * a] > 0.0) || !isfinite(B[4 * a])) return i;
                s->M[3 * i + a] = 1.0 / B[4 * a];
            }
        } else if (pc == WEFT_PRECOND_BLOCK_JACOBI) {
            /* Symmetrise against rounding in S D S before the Cholesky. */
            for (int a = 0; a < 3; a++)
                for (int b = a + 1; b < 3; b++)
                    B[3 * a + b] = B[3 * b + a] = 0.5 * (B[3 * a + b] + B[3 * b + a]);
            if (!inv_spd33(B, &s->M[9 * (size_t)i])) return i;
        }
    }
    return -1;
}

static void apply_precond(const weft_ppcg *s, weft_precond pc, const double *r, double *z) {
    size_t n3 = 3 * (size_t)s->n;
    if (pc == WEFT_PRECOND_NONE) {
        memcpy(z, r, n3 * sizeof *z);
    } else if (pc == WEFT_PRECOND_JACOBI) {
        for (size_t k = 0; k < n3; k++) z[k] = s->M[k] * r[k];
    } else {
        for (int i = 0; i < s->n; i++) {
            const double *Mi = &s->M[9 * (size_t)i], *ri = &r[3 * (size_t)i];
            for (int a = 0; a < 3; a++)
                z[3 * i + a] = Mi[3 * a] * ri[0] + Mi[3 * a + 1] * ri[1] + Mi[3 * a + 2] * ri[2];
        }
    }
}

static double dot(const double *a, const double *b, size_t n) {
    double s = 0.0;
    for (size_t k = 0; k < n; k++) s += a[k] * b[k];
    return s;
}

weft_solve_status weft_ppcg_solve(weft_ppcg *s, const weft_bsr *A, const weft_filter *f,
                                  const double *b, double *x, const weft_ppcg_options *opt,
                                  int *iters, weft_error *err) {
    weft_ppcg_options o = opt ? *opt : weft_ppcg_defaults();
    if (iters) *iters = 0;
    if (A->n != s->n || f->n != s->n) {
        weft_fail(err, WEFT_ERR_INPUT, "ppcg: solver for %d vertices given A of %d, filter "
                  "of %d", s->n, A->n, f->n);
        return WEFT_SOLVE_INPUT;
    }
    size_t n3 = 3 * (size_t)s->n;
    memset(s->y, 0, n3 * sizeof *s->y);
    safe_compose(f, s->y, x); /* x = z until something better is known */
    filtered_rhs(A, f, b, s->c, s->t, o.threads);
    double cnorm = sqrt(dot(s->c, s->c, n3));
    if (!isfinite(cnorm)) {
        weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: the filtered right-hand side S (b - A z) "
                  "is not finite (NaN or inf in b, z or A)");
        return WEFT_SOLVE_NONFINITE;
    }
    if (cnorm == 0.0) return WEFT_SOLVE_CONVERGED; /* y = 0 */
    int bad = setup_precond(s, A, f, o.precond);
    if (bad >= 0) {
        weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: %s preconditioner: filtered diagonal block "
                  "of vertex %d is not positive definite", o.precond == WEFT_PRECOND_JACOBI ?
                  "Jacobi" : "block-Jacobi", bad);
        return WEFT_SOLVE_INDEFINITE;
    }
    memcpy(s->r, s->c, n3 * sizeof *s->r);
    apply_precond(s, o.precond, s->r, s->s);
    memcpy(s->p, s->s, n3 * sizeof *s->p);
    double rs = dot(s->r, s->s, n3);
    weft_solve_status st = WEFT_SOLVE_MAX_ITER;
    int it = 0;
    while (it < o.max_iter) {
        apply_K(A, f, s->p, s->q, s->t, o.threads);
        double pq = dot(s->p, s->q, n3);
        if (!isfinite(pq) || !isfinite(rs)) {
            st = WEFT_SOLVE_NONFINITE;
            weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: non-finite value at iteration %d", it + 1);
            break;
        }
        if (!(pq > 0.0) || !(rs > 0.0)) {
            st = WEFT_SOLVE_INDEFINITE;
            weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: indefinite at iteration %d: %s = %g <= 0",
                      it + 1, pq > 0.0 ? "r'M^-1 r" : "p'Kp", pq > 0.0 ? rs : pq);
            break;
        }
        double alpha = rs / pq;
        for (size_t k = 0; k < n3; k++) s->y[k] += alpha * s->p[k];
        for (size_t k = 0; k < n3; k++) s->r[k] -= alpha * s->q[k];
        it++;
        double rel = sqrt(dot(s->r, s->r, n3)) / cnorm;
        if (!isfinite(rel)) {
            st = WEFT_SOLVE_NONFINITE;
            weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: residual not finite at iteration %d", it);
            for (size_t k = 0; k < n3; k++) s->y[k] -= alpha * s->p[k]; /* last finite y */
            break;
        }
        bool restart = false;
        if (rel <= o.tol) {
            /* Confirm with the true residual S c − K y. */
            apply_K(A, f, s->y, s->q, s->t, o.threads);
            for (size_t k = 0; k < n3; k++) s->r[k] = s->c[k] - s->q[k];
            rel = sqrt(dot(s->r, s->r, n3)) / cnorm;
            restart = true;
        }
        if (o.callback) o.callback(it, rel, o.user);
        if (rel <= o.tol) {
            st = WEFT_SOLVE_CONVERGED;
            break;
        }
        apply_precond(s, o.precond, s->r, s->s);
        double rs_new = dot(s->r, s->s, n3);
        double beta = restart ? 0.0 : rs_new / rs;
        for (size_t k = 0; k < n3; k++) s->p[k] = s->s[k] + beta * s->p[k];
        rs = rs_new;
    }
    if (st == WEFT_SOLVE_MAX_ITER)
        weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: no convergence to %g in %d iterations", o.tol,
                  o.max_iter);
    if (iters) *iters = it;
    if (all_finite(s->y, n3)) safe_compose(f, s->y, x);
    return st;
}

/* ------------------------------------------------------------------------------ */
/* CHOLMOD                                                                         */
/* ------------------------------------------------------------------------------ */

struct weft_cholmod_solver {
    cholmod_common cc;
    weft_bsr K;            /* filtered matrix, A's pattern (copied) */
    cholmod_sparse *Ks;    /* its upper triangle for CHOLMOD */
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E;
    double *t;             /* 3n scratch */
    int analyses;
    int ordering;          /* L->ordering after the analysis, -1 before */
    weft_cholmod_timings last, total; /* stage times of the last solve and their sums */
};

weft_cholmod_solver *weft_cholmod_solver_create(weft_error *err) {
    weft_cholmod_solver *s = calloc(1, sizeof *s);
    if (!s) {
        weft_fail(err, WEFT_ERR_NOMEM, "cholmod solver: cannot allocate");
        return NULL;
    }
    cholmod_start(&s->cc);
    s->cc.print = 0; /* statuses become our messages */
    s->ordering = -1;
    return s;
}

void weft_cholmod_solver_reset(weft_cholmod_solver *s) {
    cholmod_free_factor(&s->L, &s->cc);
    cholmod_free_sparse(&s->Ks, &s->cc);
    cholmod_free_dense(&s->B, &s->cc);
    cholmod_free_dense(&s->X, &s->cc);
    cholmod_free_dense(&s->Y, &s->cc);
    cholmod_free_dense(&s->E, &s->cc);
    weft_bsr_free(&s->K);
    free(s->t);
    s->t = NULL;
    s->ordering = -1;
}

void weft_cholmod_solver_free(weft_cholmod_solver **s) {
    if (!s || !*s) return;
    weft_cholmod_solver_reset(*s);
    cholmod_finish(&(*s)->cc);
    free(*s);
    *s = NULL;
}

int weft_cholmod_solver_analyses(const weft_cholmod_solver *s) { return s->analyses; }

void weft_cholmod_solver_timings(const weft_cholmod_solver *s, weft_cholmod_timings *last,
                                 weft_cholmod_timings *total) {
    if (last) *last = s->last;
    if (total) *total = s->total;
}

const char *weft_cholmod_solver_ordering(const weft_cholmod_solver *s) {
    switch (s->ordering) {
    case CHOLMOD_NATURAL: return "natural";
    case CHOLMOD_GIVEN: return "given";
    case CHOLMOD_AMD: return "amd";
    case CHOLMOD_METIS: return "metis";
    case CHOLMOD_NESDIS: return "nesdis";
    case CHOLMOD_COLAMD: return "colamd";
    case CHOLMOD_POSTORDERED: return "postordered";
    }
    return "none";
}

static bool same_pattern(const weft_bsr *K, const weft_bsr *A) {
    return K->row_ptr && K->n == A->n && K->nnzb == A->nnzb &&
           !memcmp(K->row_ptr, A->row_ptr, (size_t)(A->n + 1) * sizeof(int)) &&
           !memcmp(K->col, A->col, (size_t)A->nnzb * sizeof(int));
}

/* Copies A's pattern into s->K, exports it and analyses it: once per pattern. */
static weft_solve_status analyse(weft_cholmod_solver *s, const weft_bsr *A, weft_error *err) {
    weft_cholmod_solver_reset(s);
    weft_bsr *K = &s->K;
    size_t n3 = 3 * (size_t)A->n;
    K->n = A->n, K->nnzb = A->nnzb;
    K->row_ptr = malloc((size_t)(A->n + 1) * sizeof(int));
    K->col = malloc(((size_t)A->nnzb + 1) * sizeof(int));
    K->diag = malloc(((size_t)A->n + 1) * sizeof(int));
    K->val = malloc((9 * (size_t)A->nnzb + 1) * sizeof(double));
    s->t = malloc((n3 + 1) * sizeof(double));
    if (!K->row_ptr || !K->col || !K->diag || !K->val || !s->t) {
        weft_cholmod_solver_reset(s);
        weft_fail(err, WEFT_ERR_NOMEM, "cholmod solver: cannot copy a %d-block pattern", A->nnzb);
        return WEFT_SOLVE_NOMEM;
    }
    memcpy(K->row_ptr, A->row_ptr, (size_t)(A->n + 1) * sizeof(int));
    memcpy(K->col, A->col, (size_t)A->nnzb * sizeof(int));
    memcpy(K->diag, A->diag, (size_t)A->n * sizeof(int));
    memcpy(K->val, A->val, 9 * (size_t)A->nnzb * sizeof(double));
    s->Ks = weft_bsr_cholmod_pattern(K, &s->cc, err);
    if (!s->Ks) {
        weft_cholmod_solver_reset(s);
        return WEFT_SOLVE_NOMEM;
    }
    s->L = cholmod_analyze(s->Ks, &s->cc);
    s->B = cholmod_zeros(n3, 1, CHOLMOD_REAL, &s->cc);
    if (!s->L || !s->B) {
        weft_fail(err, WEFT_ERR_NOMEM, "cholmod solver: analysis failed (status %d)",
                  s->cc.status);
        weft_cholmod_solver_reset(s);
        return WEFT_SOLVE_NOMEM;
    }
    s->analyses++;
    s->ordering = s->L->ordering;
    return WEFT_SOLVE_CONVERGED;
}

/* The solve, with the time of each stage it reaches added to *t (zeroed by the caller). */
static weft_solve_status cholmod_solve_timed(weft_cholmod_solver *s, const weft_bsr *A,
                                             const weft_filter *f, const double *b, double *x,
                                             weft_cholmod_timings *t, weft_error *err) {
    if (f->n != A->n) {
        weft_fail(err, WEFT_ERR_INPUT, "cholmod solver: A has %d vertices, filter %d", A->n,
                  f->n);
        return WEFT_SOLVE_INPUT;
    }
    size_t n3 = 3 * (size_t)A->n;
    memset(x, 0, n3 * sizeof *x);
    safe_compose(f, x, x); /* x = z (y = 0) until the solve succeeds */
    double t0 = weft_now();
    if (!same_pattern(&s->K, A)) {
        weft_solve_status st = analyse(s, A, err);
        t->analyse_s = weft_now() - t0;
        if (st != WEFT_SOLVE_CONVERGED) return st;
        t0 = weft_now();
    }
    /* K = S A S + (I − S), block by block. */
    weft_bsr *K = &s->K;
    for (int i = 0; i < A->n; i++)
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            double T[9];
            mul33(&f->S[9 * (size_t)i], &A->val[9 * (size_t)k], T);
            mul33(T, &f->S[9 * (size_t)A->col[k]], &K->val[9 * (size_t)k]);
        }
    for (int i = 0; i < A->n; i++)
        for (int a = 0; a < 9; a++)
            K->val[9 * (size_t)K->diag[i] + a] += (a % 4 == 0) - f->S[9 * (size_t)i + a];
    if (!all_finite(K->val, 9 * (size_t)K->nnzb)) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: the filtered matrix is not finite");
        return WEFT_SOLVE_NONFINITE;
    }
    double *c = s->B->x;
    filtered_rhs(A, f, b, c, s->t, 1);
    if (!all_finite(c, n3)) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: the filtered right-hand side "
                  "S (b - A z) is not finite (NaN or inf in b, z or A)");
        return WEFT_SOLVE_NONFINITE;
    }
    int rc = weft_bsr_cholmod_values(K, s->Ks, err);
    double t1 = weft_now();
    t->filter_s = t1 - t0;
    if (rc != WEFT_OK) return WEFT_SOLVE_INPUT;
    int ok = cholmod_factorize(s->Ks, s->L, &s->cc);
    t0 = weft_now();
    t->factor_s = t0 - t1;
    /* A simplicial LDLᵀ factorisation stops only at a zero pivot: it factorises many
     * indefinite matrices without a status. K is positive definite iff every pivot
     * D(j,j) (the first entry of column j of L) is positive. */
    if (ok && s->cc.status == CHOLMOD_OK && !s->L->is_super && !s->L->is_ll) {
        const int *Lp = s->L->p;
        const double *Lx = s->L->x;
        for (size_t j = 0; j < s->L->n; j++)
            if (!(Lx[Lp[j]] > 0.0)) {
                s->L->minor = j;
                break;
            }
    }
    if (s->cc.status == CHOLMOD_NOT_POSDEF || (ok && s->L->minor < s->L->n)) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: K = S A S + I - S is not positive "
                  "definite (CHOLMOD_NOT_POSDEF at column %zu of %zu)", (size_t)s->L->minor,
                  n3);
        return WEFT_SOLVE_INDEFINITE;
    }
    if (!ok || s->cc.status != CHOLMOD_OK) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: factorisation failed (status %d)",
                  s->cc.status);
        return s->cc.status == CHOLMOD_OUT_OF_MEMORY ? WEFT_SOLVE_NOMEM : WEFT_SOLVE_INPUT;
    }
    ok = cholmod_solve2(CHOLMOD_A, s->L, s->B, NULL, &s->X, NULL, &s->Y, &s->E, &s->cc);
    if (!ok) {
        t->solve_s = weft_now() - t0;
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: solve failed (status %d)",
                  s->cc.status);
        return WEFT_SOLVE_INPUT;
    }
    const double *y = s->X->x;
    bool finite = all_finite(y, n3);
    if (finite) safe_compose(f, y, x);
    t->solve_s = weft_now() - t0;
    if (!finite) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: the solution is not finite");
        return WEFT_SOLVE_NONFINITE;
    }
    return WEFT_SOLVE_CONVERGED;
}

weft_solve_status weft_cholmod_solver_solve(weft_cholmod_solver *s, const weft_bsr *A,
                                            const weft_filter *f, const double *b, double *x,
                                            weft_error *err) {
    s->last = (weft_cholmod_timings){.solves = 1};
    weft_solve_status st = cholmod_solve_timed(s, A, f, b, x, &s->last, err);
    s->total.analyse_s += s->last.analyse_s;
    s->total.filter_s += s->last.filter_s;
    s->total.factor_s += s->last.factor_s;
    s->total.solve_s += s->last.solve_s;
    s->total.solves++;
    return st;
}
