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
#include "linalg_internal.h"
#include "weft_linsolve.h"
#include "weft_cholmod.h"
#include "weft_vec.h"

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

int weft_solve_status_code(weft_solve_status s) {
    switch (s) {
    case WEFT_SOLVE_CONVERGED: return WEFT_OK;
    case WEFT_SOLVE_MAX_ITER: return WEFT_WARN_MAX_ITER;
    case WEFT_SOLVE_INDEFINITE: return WEFT_ERR_INDEFINITE;
    case WEFT_SOLVE_NONFINITE: return WEFT_ERR_DIVERGED;
    case WEFT_SOLVE_INPUT: return WEFT_ERR_INPUT;
    case WEFT_SOLVE_NOMEM: return WEFT_ERR_NOMEM;
    }
    return WEFT_ERR_INPUT;
}

weft_solve_status weft_solve_status_of(int rc) {
    switch (rc) {
    case WEFT_OK: return WEFT_SOLVE_CONVERGED;
    case WEFT_WARN_MAX_ITER: return WEFT_SOLVE_MAX_ITER;
    case WEFT_ERR_INDEFINITE: return WEFT_SOLVE_INDEFINITE;
    case WEFT_ERR_DIVERGED: return WEFT_SOLVE_NONFINITE;
    case WEFT_ERR_NOMEM: return WEFT_SOLVE_NOMEM;
    }
    return WEFT_SOLVE_INPUT;
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
    double *y, *r, *s, *p, *q, *c, *t; /* 3n each */
    const weft_precond_type *pt;       /* the preconditioner's type and state */
    void *ps;
    int precond_threads;               /* the threads its state was created with */
    int *pattern_row, *pattern_col;    /* the pattern it was set up for (n + 1, nnzb) */
    int pattern_nnzb;                  /* -1 before the first set-up */
    int setups;                        /* set-ups done (one per pattern) */
};

weft_ppcg_options weft_ppcg_defaults(void) {
    return (weft_ppcg_options){.precond = &weft_precond_block_jacobi, .tol = 1e-8,
                               .max_iter = 1000, .threads = 1};
}

weft_ppcg *weft_ppcg_create(int n, weft_error *err) {
    if (n < 0) {
        weft_fail(err, WEFT_ERR_INPUT, "ppcg: %d vertices", n);
        return NULL;
    }
    weft_ppcg *s = calloc(1, sizeof *s);
    size_t m = 3 * (size_t)(n > 0 ? n : 1);
    double *block = s ? malloc(7 * m * sizeof(double)) : NULL;
    int *row = block ? malloc(((size_t)n + 1) * sizeof *row) : NULL;
    if (!row) {
        free(block);
        free(s);
        weft_fail(err, WEFT_ERR_NOMEM, "ppcg: cannot allocate work arrays for %d vertices", n);
        return NULL;
    }
    s->n = n;
    s->y = block, s->r = block + m, s->s = block + 2 * m, s->p = block + 3 * m;
    s->q = block + 4 * m, s->c = block + 5 * m, s->t = block + 6 * m;
    s->pattern_row = row, s->pattern_nnzb = -1;
    return s;
}

int weft_ppcg_setups(const weft_ppcg *s) { return s->setups; }

void weft_ppcg_free(weft_ppcg **s) {
    if (!s || !*s) return;
    if ((*s)->ps) (*s)->pt->destroy((*s)->ps);
    free((*s)->pattern_row), free((*s)->pattern_col);
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

/* Makes s's preconditioner of type pt (with settings) current, recreating its state when
 * the type changed, setting it up when A's sparsity pattern is new (once per pattern), and
 * refreshing it from A's values and the filter (every solve). */
static int prepare_precond(weft_ppcg *s, const weft_precond_type *pt, const void *settings,
                           int threads, const weft_bsr *A, const weft_filter *f,
                           const double *positions, weft_error *err) {
    if (threads < 1) threads = 1;
    if (pt != s->pt || threads != s->precond_threads) {
        if (s->ps) s->pt->destroy(s->ps);
        s->ps = NULL;
        s->pt = pt;
        s->precond_threads = threads;
        s->pattern_nnzb = -1;
        if (!(s->ps = pt->create(s->n, settings, threads, err))) {
            s->pt = NULL;
            return WEFT_ERR_NOMEM;
        }
    }
    bool same = s->pattern_nnzb == A->nnzb &&
                !memcmp(s->pattern_row, A->row_ptr, (size_t)(A->n + 1) * sizeof(int)) &&
                !memcmp(s->pattern_col, A->col, (size_t)A->nnzb * sizeof(int));
    if (!same) {
        int *col = realloc(s->pattern_col, (size_t)(A->nnzb > 0 ? A->nnzb : 1) * sizeof *col);
        if (!col) return weft_fail(err, WEFT_ERR_NOMEM, "ppcg: out of memory");
        s->pattern_col = col;
        memcpy(s->pattern_row, A->row_ptr, (size_t)(A->n + 1) * sizeof(int));
        memcpy(s->pattern_col, A->col, (size_t)A->nnzb * sizeof(int));
        s->pattern_nnzb = A->nnzb;
        s->setups++;
        if (pt->setup) {
            int rc = pt->setup(s->ps, A, positions, err);
            if (rc) return rc;
        }
    }
    return pt->update(s->ps, A, f, positions, err);
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
    double cnorm = sqrt(weft_dot(s->c, s->c, n3));
    if (!isfinite(cnorm)) {
        weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: the filtered right-hand side S (b - A z) "
                  "is not finite (NaN or inf in b, z or A)");
        return WEFT_SOLVE_NONFINITE;
    }
    if (cnorm == 0.0) return WEFT_SOLVE_CONVERGED; /* y = 0 */
    const weft_precond_type *pt = o.precond ? o.precond : &weft_precond_block_jacobi;
    int prc = prepare_precond(s, pt, o.precond_settings, o.threads, A, f, o.positions, err);
    if (prc != WEFT_OK) return weft_solve_status_of(prc);
    memcpy(s->r, s->c, n3 * sizeof *s->r);
    pt->apply(s->ps, s->r, s->s);
    memcpy(s->p, s->s, n3 * sizeof *s->p);
    double rs = weft_dot(s->r, s->s, n3);
    weft_solve_status st = WEFT_SOLVE_MAX_ITER;
    int it = 0;
    while (it < o.max_iter) {
        apply_K(A, f, s->p, s->q, s->t, o.threads);
        double pq = weft_dot(s->p, s->q, n3);
        if (!isfinite(pq) || !isfinite(rs)) {
            st = WEFT_SOLVE_NONFINITE;
            weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: non-finite value at iteration %d", it + 1);
            break;
        }
        if (!(pq > 0.0) || !(rs > 0.0)) {
            st = WEFT_SOLVE_INDEFINITE;
            weft_fail(err, WEFT_ERR_INDEFINITE, "ppcg: indefinite at iteration %d: %s = %g <= 0",
                      it + 1, pq > 0.0 ? "r'M^-1 r" : "p'Kp", pq > 0.0 ? rs : pq);
            break;
        }
        double alpha = rs / pq;
        for (size_t k = 0; k < n3; k++) s->y[k] += alpha * s->p[k];
        for (size_t k = 0; k < n3; k++) s->r[k] -= alpha * s->q[k];
        it++;
        double rel = sqrt(weft_dot(s->r, s->r, n3)) / cnorm;
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
            rel = sqrt(weft_dot(s->r, s->r, n3)) / cnorm;
            restart = true;
        }
        if (o.callback) o.callback(it, rel, o.user);
        if (rel <= o.tol) {
            st = WEFT_SOLVE_CONVERGED;
            break;
        }
        pt->apply(s->ps, s->r, s->s);
        double rs_new = weft_dot(s->r, s->s, n3);
        double beta = restart ? 0.0 : rs_new / rs;
        for (size_t k = 0; k < n3; k++) s->p[k] = s->s[k] + beta * s->p[k];
        rs = rs_new;
    }
    if (st == WEFT_SOLVE_MAX_ITER)
        weft_fail(err, WEFT_WARN_MAX_ITER, "ppcg: no convergence to %g in %d iterations", o.tol,
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
    long factorisations;   /* numeric factorisations attempted */
    bool factored;         /* L holds a successful factorisation of K */
    int ordering;          /* L->ordering after the analysis, -1 before */
    int threads;           /* CHOLMOD's OpenMP and BLAS threads in its calls, 0: as set */
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
    s->factored = false;
}

void weft_cholmod_solver_free(weft_cholmod_solver **s) {
    if (!s || !*s) return;
    weft_cholmod_solver_reset(*s);
    cholmod_finish(&(*s)->cc);
    free(*s);
    *s = NULL;
}

int weft_cholmod_solver_analyses(const weft_cholmod_solver *s) { return s->analyses; }

void weft_cholmod_solver_set_threads(weft_cholmod_solver *s, int threads) {
    s->threads = threads > 0 ? threads : 0;
}

void weft_cholmod_solver_timings(const weft_cholmod_solver *s, weft_cholmod_timings *last,
                                 weft_cholmod_timings *total) {
    if (last) *last = s->last;
    if (total) *total = s->total;
}

const char *weft_cholmod_solver_ordering(const weft_cholmod_solver *s) {
    return weft_cholmod_ordering_name(s->ordering);
}

const char *weft_cholmod_ordering_name(int ordering) {
    switch (ordering) {
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

/* The outcome of a failed CHOLMOD call with Common status `status`: out of memory (or a
 * problem too large to allocate) is WEFT_SOLVE_NOMEM, a matrix that is not positive definite
 * WEFT_SOLVE_INDEFINITE, anything else (invalid input) WEFT_SOLVE_INPUT. */
static weft_solve_status cholmod_status(int status) {
    switch (status) {
    case CHOLMOD_OUT_OF_MEMORY:
    case CHOLMOD_TOO_LARGE: return WEFT_SOLVE_NOMEM;
    case CHOLMOD_NOT_POSDEF: return WEFT_SOLVE_INDEFINITE;
    }
    return WEFT_SOLVE_INPUT;
}

/* CHOLMOD's name of a Common status, for messages. */
static const char *cholmod_status_name(int status) {
    switch (status) {
    case CHOLMOD_OK: return "CHOLMOD_OK";
    case CHOLMOD_NOT_INSTALLED: return "CHOLMOD_NOT_INSTALLED";
    case CHOLMOD_OUT_OF_MEMORY: return "CHOLMOD_OUT_OF_MEMORY";
    case CHOLMOD_TOO_LARGE: return "CHOLMOD_TOO_LARGE";
    case CHOLMOD_INVALID: return "CHOLMOD_INVALID";
    case CHOLMOD_GPU_PROBLEM: return "CHOLMOD_GPU_PROBLEM";
    case CHOLMOD_NOT_POSDEF: return "CHOLMOD_NOT_POSDEF";
    case CHOLMOD_DSMALL: return "CHOLMOD_DSMALL";
    }
    return "an unknown CHOLMOD status";
}

bool weft_bsr_pattern_is(const weft_bsr *A, int n, int nnzb, const int *row_ptr,
                         const int *col) {
    return row_ptr && n == A->n && nnzb == A->nnzb &&
           !memcmp(row_ptr, A->row_ptr, (size_t)(A->n + 1) * sizeof(int)) &&
           !memcmp(col, A->col, (size_t)A->nnzb * sizeof(int));
}

static bool same_pattern(const weft_bsr *K, const weft_bsr *A) {
    return weft_bsr_pattern_is(A, K->n, K->nnzb, K->row_ptr, K->col);
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
    weft_thread_scope saved = weft_threads_enter(s->threads);
    s->L = cholmod_analyze(s->Ks, &s->cc);
    weft_threads_leave(saved);
    s->B = cholmod_zeros(n3, 1, CHOLMOD_REAL, &s->cc);
    if (!s->L || !s->B) {
        weft_solve_status st = cholmod_status(s->cc.status);
        weft_fail(err, weft_solve_status_code(st), "cholmod solver: analysis failed (%s)",
                  cholmod_status_name(s->cc.status));
        weft_cholmod_solver_reset(s);
        return st;
    }
    s->analyses++;
    s->ordering = s->L->ordering;
    return WEFT_SOLVE_CONVERGED;
}

/* The numeric factorisation of K = S A S + (I − S) (after the analysis when A's pattern is
 * new), with the time of each stage it reaches added to *t (zeroed by the caller). */
static weft_solve_status cholmod_factor_timed(weft_cholmod_solver *s, const weft_bsr *A,
                                              const weft_filter *f, weft_cholmod_timings *t,
                                              weft_error *err) {
    s->factored = false;
    if (f->n != A->n) {
        weft_fail(err, WEFT_ERR_INPUT, "cholmod solver: A has %d vertices, filter %d", A->n,
                  f->n);
        return WEFT_SOLVE_INPUT;
    }
    size_t n3 = 3 * (size_t)A->n;
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
            weft_mul33(&f->S[9 * (size_t)i], &A->val[9 * (size_t)k], T);
            weft_mul33(T, &f->S[9 * (size_t)A->col[k]], &K->val[9 * (size_t)k]);
        }
    for (int i = 0; i < A->n; i++)
        for (int a = 0; a < 9; a++)
            K->val[9 * (size_t)K->diag[i] + a] += (a % 4 == 0) - f->S[9 * (size_t)i + a];
    if (!all_finite(K->val, 9 * (size_t)K->nnzb)) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: the filtered matrix is not finite");
        return WEFT_SOLVE_NONFINITE;
    }
    int rc = weft_bsr_cholmod_values(K, s->Ks, err);
    double t1 = weft_now();
    t->filter_s += t1 - t0;
    if (rc != WEFT_OK) return WEFT_SOLVE_INPUT;
    weft_thread_scope saved = weft_threads_enter(s->threads);
    int ok = cholmod_factorize(s->Ks, s->L, &s->cc);
    weft_threads_leave(saved);
    t->factor_s = weft_now() - t1;
    s->factorisations++;
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
        weft_fail(err, WEFT_ERR_INDEFINITE, "cholmod solver: K = S A S + I - S is not positive "
                  "definite (CHOLMOD_NOT_POSDEF at column %zu of %zu)", (size_t)s->L->minor,
                  n3);
        return WEFT_SOLVE_INDEFINITE;
    }
    if (!ok || s->cc.status != CHOLMOD_OK) {
        weft_solve_status st = cholmod_status(s->cc.status);
        weft_fail(err, weft_solve_status_code(st), "cholmod solver: factorisation failed (%s)",
                  cholmod_status_name(s->cc.status));
        return st;
    }
    s->factored = true;
    return WEFT_SOLVE_CONVERGED;
}

/* The two triangular solves with the last factorisation: x = y + z, K y = S (b − A z). */
static weft_solve_status cholmod_apply_timed(weft_cholmod_solver *s, const weft_bsr *A,
                                             const weft_filter *f, const double *b, double *x,
                                             weft_cholmod_timings *t, weft_error *err) {
    size_t n3 = 3 * (size_t)A->n;
    memset(x, 0, n3 * sizeof *x);
    safe_compose(f, x, x); /* x = z (y = 0) until the solve succeeds */
    if (!s->factored || f->n != A->n || !same_pattern(&s->K, A)) {
        weft_fail(err, WEFT_ERR_INPUT, "cholmod solver: no factorisation of this matrix to "
                  "solve with");
        return WEFT_SOLVE_INPUT;
    }
    double t0 = weft_now();
    double *c = s->B->x;
    filtered_rhs(A, f, b, c, s->t, 1);
    double t1 = weft_now();
    t->filter_s += t1 - t0;
    if (!all_finite(c, n3)) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: the filtered right-hand side "
                  "S (b - A z) is not finite (NaN or inf in b, z or A)");
        return WEFT_SOLVE_NONFINITE;
    }
    weft_thread_scope saved = weft_threads_enter(s->threads);
    int ok = cholmod_solve2(CHOLMOD_A, s->L, s->B, NULL, &s->X, NULL, &s->Y, &s->E, &s->cc);
    weft_threads_leave(saved);
    if (!ok) {
        t->solve_s = weft_now() - t1;
        weft_solve_status st = cholmod_status(s->cc.status);
        weft_fail(err, weft_solve_status_code(st), "cholmod solver: solve failed (%s)",
                  cholmod_status_name(s->cc.status));
        return st;
    }
    const double *y = s->X->x;
    bool finite = all_finite(y, n3);
    if (finite) safe_compose(f, y, x);
    t->solve_s = weft_now() - t1;
    if (!finite) {
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: the solution is not finite");
        return WEFT_SOLVE_NONFINITE;
    }
    return WEFT_SOLVE_CONVERGED;
}

/* The solve, with the time of each stage it reaches added to *t (zeroed by the caller). */
static weft_solve_status cholmod_solve_timed(weft_cholmod_solver *s, const weft_bsr *A,
                                             const weft_filter *f, const double *b, double *x,
                                             weft_cholmod_timings *t, weft_error *err) {
    /* A non-finite b or z makes S (b − A z) non-finite whatever A is: said first. */
    if (f->n == A->n && (!all_finite(b, 3 * (size_t)A->n) || !all_finite(f->z, 3 * (size_t)A->n))) {
        memset(x, 0, 3 * (size_t)A->n * sizeof *x);
        safe_compose(f, x, x);
        weft_fail(err, WEFT_ERR_DIVERGED, "cholmod solver: the filtered right-hand side "
                  "S (b - A z) is not finite (NaN or inf in b, z or A)");
        return WEFT_SOLVE_NONFINITE;
    }
    weft_solve_status st = cholmod_factor_timed(s, A, f, t, err);
    if (st != WEFT_SOLVE_CONVERGED) {
        if (f->n == A->n) { /* x = z (0 where z is not finite), as a failed solve leaves it */
            memset(x, 0, 3 * (size_t)A->n * sizeof *x);
            safe_compose(f, x, x);
        }
        return st;
    }
    return cholmod_apply_timed(s, A, f, b, x, t, err);
}

/* Adds the stage times of s->last to s->total. */
static void add_timings(weft_cholmod_solver *s) {
    s->total.analyse_s += s->last.analyse_s;
    s->total.filter_s += s->last.filter_s;
    s->total.factor_s += s->last.factor_s;
    s->total.solve_s += s->last.solve_s;
    s->total.solves += s->last.solves;
}

weft_solve_status weft_cholmod_solver_factor(weft_cholmod_solver *s, const weft_bsr *A,
                                             const weft_filter *f, weft_error *err) {
    s->last = (weft_cholmod_timings){0};
    weft_solve_status st = cholmod_factor_timed(s, A, f, &s->last, err);
    add_timings(s);
    return st;
}

weft_solve_status weft_cholmod_solver_apply(weft_cholmod_solver *s, const weft_bsr *A,
                                            const weft_filter *f, const double *b, double *x,
                                            weft_error *err) {
    s->last = (weft_cholmod_timings){.solves = 1};
    weft_solve_status st = cholmod_apply_timed(s, A, f, b, x, &s->last, err);
    add_timings(s);
    return st;
}

long weft_cholmod_solver_factorisations(const weft_cholmod_solver *s) {
    return s->factorisations;
}

weft_solve_status weft_cholmod_solver_solve(weft_cholmod_solver *s, const weft_bsr *A,
                                            const weft_filter *f, const double *b, double *x,
                                            weft_error *err) {
    s->last = (weft_cholmod_timings){.solves = 1};
    weft_solve_status st = cholmod_solve_timed(s, A, f, b, x, &s->last, err);
    add_timings(s);
    return st;
}
