/* test_linsolve.c — constraint filters, PPCG and the filtered CHOLMOD path
 * (lib/linalg/weft_linsolve.h) on the assembled hanging_cloth system at 12 × 12:
 * A = ∇²E (analytic PSD element Hessians) + M/h², pins (3-DOF filters, z = their
 * positions) and 1-DOF plane filters with random normals and z. Facts checked: every
 * preconditioner and CHOLMOD give the same x; constrained DOFs equal z; the free residual
 * S(Ax − b) is within tol ‖S c‖; block-Jacobi needs fewer iterations than none; CHOLMOD
 * analyses once per pattern and times its stages; indefinite and NaN input give
 * statuses, never NaN in x; the scalar path of a matrix S ⊗ I₃ (factor_scalar,
 * solve_scalar) agrees with the 3n×3n one and refuses what it cannot solve.
 */
#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_linsolve.h"
#include "linsolve_sys.h"

#include <omp.h>

static double rel_diff(const double *a, const double *b, int n) {
    double d = 0, m = 0;
    for (int k = 0; k < n; k++) d = fmax(d, fabs(a[k] - b[k])), m = fmax(m, fabs(b[k]));
    return d / m;
}

static double dot_n(const double *a, const double *b, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) s += a[k] * b[k];
    return s;
}

static bool any_nan(const double *a, int n) {
    for (int k = 0; k < n; k++)
        if (isnan(a[k])) return true;
    return false;
}

/* ‖S(A x − b)‖ / ‖S c‖, c = b − A z. */
static double free_residual(const sys *s, const double *x) {
    int n3 = 3 * s->m.n;
    double *t = malloc((size_t)n3 * sizeof *t), *c = malloc((size_t)n3 * sizeof *c);
    weft_bsr_spmv(s->A, x, t, 1);
    for (int k = 0; k < n3; k++) t[k] -= s->b[k];
    weft_filter_apply(&s->f, t, t);
    weft_bsr_spmv(s->A, s->f.z, c, 1);
    for (int k = 0; k < n3; k++) c[k] = s->b[k] - c[k];
    weft_filter_apply(&s->f, c, c);
    double r = sqrt(dot_n(t, t, n3)) / sqrt(dot_n(c, c, n3));
    free(t);
    free(c);
    return r;
}

static int last_iter;
static double last_res;
static void log_residual(int it, double rel, void *user) {
    (void)user;
    last_iter = it, last_res = rel;
}

/* Every preconditioner and CHOLMOD agree; filtered DOFs and free residual as promised. */
static void test_agreement(void) {
    sys s;
    if (!make_sys(&s, 12, 7)) return;
    int n = s.m.n, n3 = 3 * n;
    weft_error err = {{0}};
    weft_cholmod_solver *ch = weft_cholmod_solver_create(&err);
    double *xc = malloc((size_t)n3 * sizeof *xc);
    CHECK(weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, xc, &err) == WEFT_SOLVE_CONVERGED);
    check_filtered(&s.f, xc);
    CHECK(free_residual(&s, xc) <= 1e-12);
    printf("cholmod ordering: %s\n", weft_cholmod_solver_ordering(ch));
    CHECK(strcmp(weft_cholmod_solver_ordering(ch), "none") != 0);
    weft_ppcg *pc = weft_ppcg_create(n, &err);
    const char *names[3] = {"none", "jacobi", "block-jacobi"};
    int its[3];
    for (int p = 0; p < 3; p++) {
        weft_ppcg_options o = weft_ppcg_defaults();
        o.precond = weft_precond_registry[p], o.tol = 1e-12, o.callback = log_residual;
        last_iter = -1;
        weft_solve_status st = weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, &o, &its[p], &err);
        if (st != WEFT_SOLVE_CONVERGED) fprintf(stderr, "%s\n", err.msg);
        CHECK(st == WEFT_SOLVE_CONVERGED);
        CHECK(last_iter == its[p] && last_res <= 1e-12);
        double d = rel_diff(s.x, xc, n3), r = free_residual(&s, s.x);
        printf("ppcg %-12s %4d iterations, |x - x_cholmod|/|x| = %.2e, free residual %.2e\n",
               names[p], its[p], d, r);
        CHECK(d <= 1e-8);
        /* K y = S c is solved to tol; S(Ax - b) differs from it by the rounding of x = y + z. */
        CHECK(r <= 1e-12 * 1.01);
        check_filtered(&s.f, s.x);
    }
    CHECK(its[2] < its[0]);
    free(xc);
    weft_ppcg_free(&pc);
    weft_cholmod_solver_free(&ch);
    free_sys(&s);
}

/* One analysis over solves with new values; another after a pattern change or reset. */
static void test_analyses(void) {
    sys s, t;
    if (!make_sys(&s, 12, 3) || !make_sys(&t, 10, 4)) return;
    weft_error err = {{0}};
    weft_cholmod_solver *ch = weft_cholmod_solver_create(&err);
    double *x0 = malloc(3 * (size_t)s.m.n * sizeof *x0);
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < 9 * s.A->nnzb; j += 7) s.A->val[j] *= 1.0; /* values touched */
        double *d = malloc((size_t)s.m.n * sizeof *d);
        for (int i = 0; i < s.m.n; i++) d[i] = 100.0 * k;
        weft_bsr_add_diagonal(s.A, d);
        free(d);
        CHECK(weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, s.x, &err) == WEFT_SOLVE_CONVERGED);
        CHECK(free_residual(&s, s.x) <= 1e-12);
        if (k == 0) memcpy(x0, s.x, 3 * (size_t)s.m.n * sizeof *x0);
        if (k > 0) CHECK(rel_diff(s.x, x0, 3 * s.m.n) > 1e-12); /* values did change */
    }
    CHECK(weft_cholmod_solver_analyses(ch) == 1);
    /* Timings: the kept pattern was not analysed again; the sums add up every solve. */
    weft_cholmod_timings last, total;
    weft_cholmod_solver_timings(ch, &last, &total);
    CHECK(last.solves == 1 && total.solves == 3);
    CHECK(last.analyse_s == 0.0 && total.analyse_s > 0.0);
    CHECK(last.factor_s > 0.0 && last.solve_s > 0.0 && last.filter_s > 0.0);
    CHECK(total.factor_s >= last.factor_s && total.solve_s >= last.solve_s);
    CHECK(weft_cholmod_solver_solve(ch, t.A, &t.f, t.b, t.x, &err) == WEFT_SOLVE_CONVERGED);
    weft_cholmod_solver_timings(ch, &last, NULL);
    CHECK(last.analyse_s > 0.0); /* a new pattern */
    CHECK(free_residual(&t, t.x) <= 1e-12);
    CHECK(weft_cholmod_solver_analyses(ch) == 2);
    weft_cholmod_solver_reset(ch);
    CHECK(weft_cholmod_solver_solve(ch, t.A, &t.f, t.b, t.x, &err) == WEFT_SOLVE_CONVERGED);
    CHECK(weft_cholmod_solver_analyses(ch) == 3);
    free(x0);
    weft_cholmod_solver_free(&ch);
    free_sys(&s);
    free_sys(&t);
}

/* A − σ I with σ above the smallest diagonal: NOT_POSDEF from CHOLMOD, indefinite from
 * PPCG with every preconditioner; a NaN in b: non-finite; never NaN in x. */
static void test_failures(void) {
    sys s;
    if (!make_sys(&s, 12, 5)) return;
    int n = s.m.n, n3 = 3 * n;
    weft_error err = {{0}};
    double *d = malloc((size_t)n * sizeof *d), dmax = 0;
    for (int i = 0; i < n; i++) dmax = fmax(dmax, s.A->val[9 * s.A->diag[i]]);
    for (int i = 0; i < n; i++) d[i] = -10.0 * dmax;
    weft_bsr_add_diagonal(s.A, d);
    free(d);
    weft_cholmod_solver *ch = weft_cholmod_solver_create(&err);
    CHECK(weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, s.x, &err) == WEFT_SOLVE_INDEFINITE);
    CHECK(strstr(err.msg, "NOT_POSDEF") != NULL);
    CHECK(!any_nan(s.x, n3));
    check_filtered(&s.f, s.x);
    weft_ppcg *pc = weft_ppcg_create(n, &err);
    for (int p = 0; p < 3; p++) {
        weft_ppcg_options o = weft_ppcg_defaults();
        o.precond = weft_precond_registry[p];
        err.msg[0] = 0;
        CHECK(weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, &o, NULL, &err) == WEFT_SOLVE_INDEFINITE);
        CHECK(err.msg[0] != 0);
        CHECK(!any_nan(s.x, n3));
    }
    s.b[17] = NAN;
    CHECK(weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, NULL, NULL, &err) == WEFT_SOLVE_NONFINITE);
    CHECK(!any_nan(s.x, n3));
    CHECK(weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, s.x, &err) == WEFT_SOLVE_NONFINITE);
    CHECK(!any_nan(s.x, n3));
    weft_ppcg_free(&pc);
    weft_cholmod_solver_free(&ch);
    free_sys(&s);
}

/* Filters: S_i values and y = S x for each kind, and the composition. */
static void test_filters(void) {
    weft_filter f;
    weft_error err = {{0}};
    CHECK(weft_filter_create(&f, 4, &err) == WEFT_OK);
    double z[3] = {0.1, -0.2, 0.3}, nz[3] = {0, 0, 2}, p[3] = {1, 0, 0}, q[3] = {1, 1, 0};
    weft_filter_pin(&f, 1, z);
    CHECK(weft_filter_plane(&f, 2, nz, z, &err) == WEFT_OK);
    CHECK(weft_filter_line(&f, 3, p, q, z, &err) == WEFT_OK);
    CHECK(weft_filter_plane(&f, 2, (double[3]){0, 0, 0}, z, &err) == WEFT_ERR_INPUT);
    CHECK(weft_filter_line(&f, 3, p, (double[3]){2, 0, 0}, z, &err) == WEFT_ERR_INPUT);
    double x[12], y[12];
    for (int k = 0; k < 12; k++) x[k] = k + 1;
    weft_filter_apply(&f, x, y);
    double want[12] = {1, 2, 3, 0, 0, 0, 7, 8, 0, 0, 0, 12};
    for (int k = 0; k < 12; k++) CHECK(y[k] == want[k]);
    weft_filter_compose(&f, x, y);
    CHECK(y[3] == z[0] && y[4] == z[1] && y[5] == z[2]);
    CHECK(y[8] == z[2] && y[9] == z[0] && y[10] == z[1]);
    CHECK(y[0] == 1 && y[6] == 7 + z[0] && y[11] == 12 + z[2]);
    weft_filter_free_all(&f);
    weft_filter_apply(&f, x, y);
    for (int k = 0; k < 12; k++) CHECK(y[k] == x[k]);
    weft_filter_destroy(&f);
}

/* The factor / apply split (Projective Dynamics' constant matrix): one factorisation
 * serves every right-hand side and every new set of prescribed values z, each solve equal
 * bit for bit to a full weft_cholmod_solver_solve of the same system; the plug-in's
 * factor / solve_factored count one factorisation; apply before any factor is refused. */
static void test_factor_apply(void) {
    sys s;
    if (!make_sys(&s, 12, 9)) return;
    weft_error err = {{0}};
    int n3 = 3 * s.m.n;
    weft_cholmod_solver *ch = weft_cholmod_solver_create(&err), *ref = weft_cholmod_solver_create(&err);
    double *xr = malloc((size_t)n3 * sizeof *xr);
    CHECK(weft_cholmod_solver_apply(ch, s.A, &s.f, s.b, s.x, &err) == WEFT_SOLVE_INPUT);
    CHECK(!any_nan(s.x, n3));
    CHECK(weft_cholmod_solver_factor(ch, s.A, &s.f, &err) == WEFT_SOLVE_CONVERGED);
    lcg g = {11};
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < n3; j++) s.b[j] = rnd_in(&g, -1, 1);
        for (int j = 0; j < n3; j++) s.f.z[j] += rnd_in(&g, -0.01, 0.01); /* pins move */
        CHECK(weft_cholmod_solver_apply(ch, s.A, &s.f, s.b, s.x, &err) == WEFT_SOLVE_CONVERGED);
        CHECK(weft_cholmod_solver_solve(ref, s.A, &s.f, s.b, xr, &err) == WEFT_SOLVE_CONVERGED);
        CHECK(memcmp(s.x, xr, (size_t)n3 * sizeof *xr) == 0);
        CHECK(free_residual(&s, s.x) <= 1e-12);
    }
    CHECK(weft_cholmod_solver_factorisations(ch) == 1 && weft_cholmod_solver_analyses(ch) == 1);
    CHECK(weft_cholmod_solver_factorisations(ref) == 3);
    /* Through the plug-in. */
    const weft_linear_type *lt = &weft_linear_cholmod;
    void *st = lt->create(s.m.n, NULL, 1, &err);
    CHECK(st != NULL && lt->factor && lt->solve_factored);
    CHECK(lt->factor(st, s.A, &s.f, &err) == WEFT_SOLVE_CONVERGED);
    for (int k = 0; k < 4; k++)
        CHECK(lt->solve_factored(st, s.A, &s.f, s.b, s.x, &err) == WEFT_SOLVE_CONVERGED);
    CHECK(memcmp(s.x, xr, (size_t)n3 * sizeof *xr) == 0);
    weft_linear_stats ls;
    lt->stats(st, &ls);
    CHECK(ls.factorisations == 1 && ls.solves == 4 && ls.setups == 1);
    lt->destroy(st);
    free(xr);
    weft_cholmod_solver_free(&ch);
    weft_cholmod_solver_free(&ref);
    free_sys(&s);
}

/* A matrix of the form S ⊗ I₃ (a graph Laplacian of the cloth plus a diagonal, as
 * Projective Dynamics' global matrix) with the two pinned corners: CHOLMOD's scalar path
 * (n×n factor, x, y, z in one solve) gives the 3n×3n path's x to 1e-12 for several right-
 * hand sides and moved pins, counts one factorisation and analysis, and refuses a block
 * that is not a multiple of I₃ and a 1-DOF plane filter (WEFT_SOLVE_INPUT), never NaN. */
static void test_scalar(void) {
    sys s;
    if (!make_sys(&s, 12, 5)) return;
    weft_error err = {{0}};
    int n3 = 3 * s.m.n;
    weft_bsr *A = s.A;
    for (int i = 0; i < A->n; i++)
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            double v = k == A->diag[i] ? 1.0 + (A->row_ptr[i + 1] - A->row_ptr[i] - 1) : -1.0;
            for (int a = 0; a < 9; a++) A->val[9 * (size_t)k + a] = a % 4 == 0 ? v : 0.0;
        }
    weft_filter plane = s.f; /* make_sys's pins and plane filters */
    weft_filter f;
    CHECK(weft_filter_create(&f, s.m.n, &err) == WEFT_OK);
    for (int i = 0; i < s.m.n; i++)
        if (s.m.pin[i] >= 0) weft_filter_pin(&f, i, &s.m.x[3 * i]);
    const weft_linear_type *lt = &weft_linear_cholmod;
    void *sc = lt->create(s.m.n, NULL, 1, &err), *full = lt->create(s.m.n, NULL, 1, &err);
    CHECK(sc && full && lt->factor_scalar && lt->solve_scalar);
    CHECK(lt->solve_scalar(sc, A, &f, s.b, s.x, &err) == WEFT_SOLVE_INPUT); /* no factor */
    CHECK(lt->factor_scalar(sc, A, &plane, &err) == WEFT_SOLVE_INPUT &&
          strstr(err.msg, "directions") != NULL);
    CHECK(lt->factor_scalar(sc, A, &f, &err) == WEFT_SOLVE_CONVERGED);
    CHECK(lt->factor(full, A, &f, &err) == WEFT_SOLVE_CONVERGED);
    double *xr = malloc((size_t)n3 * sizeof *xr);
    lcg g = {17};
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < n3; j++) s.b[j] = rnd_in(&g, -1, 1);
        for (int j = 0; j < n3; j++) f.z[j] += rnd_in(&g, -0.01, 0.01);
        CHECK(lt->solve_scalar(sc, A, &f, s.b, s.x, &err) == WEFT_SOLVE_CONVERGED);
        CHECK(lt->solve_factored(full, A, &f, s.b, xr, &err) == WEFT_SOLVE_CONVERGED);
        CHECK(rel_diff(s.x, xr, n3) <= 1e-12);
        for (int i = 0; i < s.m.n; i++)
            if (s.m.pin[i] >= 0) CHECK(memcmp(&s.x[3 * i], &f.z[3 * i], 3 * sizeof(double)) == 0);
    }
    weft_linear_stats ls;
    lt->stats(sc, &ls);
    CHECK(ls.factorisations == 1 && ls.setups == 1 && ls.solves == 4);
    A->val[9 * (size_t)A->diag[5] + 1] = 0.5; /* no longer a multiple of I₃ */
    CHECK(lt->factor_scalar(sc, A, &f, &err) == WEFT_SOLVE_INPUT &&
          strstr(err.msg, "multiple of the identity") != NULL);
    CHECK(lt->solve_scalar(sc, A, &f, s.b, s.x, &err) == WEFT_SOLVE_INPUT && !any_nan(s.x, n3));
    lt->destroy(sc);
    lt->destroy(full);
    weft_filter_destroy(&f);
    free(xr);
    free_sys(&s);
}

/* Every registered preconditioner, with its default settings and the cloth's positions
 * (a multigrid one builds rigid modes from them): PPCG converges to 1e-10 and agrees with
 * CHOLMOD, constrained DOFs exact. A new preconditioner is held to this by its registry
 * line (docs/guide-preconditioner.md). */
static void test_every_precond(void) {
    sys s;
    if (!make_sys(&s, 12, 7)) return;
    int n3 = 3 * s.m.n, count = 0;
    weft_error err = {{0}};
    weft_cholmod_solver *ch = weft_cholmod_solver_create(&err);
    double *xc = malloc((size_t)n3 * sizeof *xc);
    CHECK(weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, xc, &err) == WEFT_SOLVE_CONVERGED);
    weft_ppcg *pc = weft_ppcg_create(s.m.n, &err);
    for (const weft_precond_type *const *t = weft_precond_registry; *t; t++, count++) {
        weft_ppcg_options o = weft_ppcg_defaults();
        o.precond = *t, o.tol = 1e-10, o.positions = s.m.x;
        int its = 0;
        memset(s.x, 0, (size_t)n3 * sizeof *s.x);
        weft_solve_status st = weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, &o, &its, &err);
        if (st != WEFT_SOLVE_CONVERGED) fprintf(stderr, "%s: %s\n", (*t)->name, err.msg);
        CHECK(st == WEFT_SOLVE_CONVERGED);
        double d = rel_diff(s.x, xc, n3), r = free_residual(&s, s.x);
        printf("ppcg %-12s %4d iterations, |x - x_cholmod|/|x| = %.2e, free residual %.2e\n",
               (*t)->name, its, d, r);
        CHECK(d <= 1e-6);
        CHECK(r <= 1e-10 * 1.01);
        check_filtered(&s.f, s.x);
    }
    CHECK(count >= 4); /* none, jacobi, block_jacobi, sa_amg at least */
    free(xc);
    weft_ppcg_free(&pc);
    weft_cholmod_solver_free(&ch);
    free_sys(&s);
}

/* Every registered linear solver through its plug-in interface with default settings:
 * the answer agrees with CHOLMOD's to the default tolerances, constrained DOFs exact, and
 * where the solver splits factor / solve_factored the split gives solve's answer. A new
 * linear solver is held to this by its registry line (docs/guide-linear-solver.md). */
static void test_every_linear(void) {
    sys s;
    if (!make_sys(&s, 12, 7)) return;
    int n3 = 3 * s.m.n, count = 0;
    weft_error err = {{0}};
    weft_cholmod_solver *ch = weft_cholmod_solver_create(&err);
    double *xc = malloc((size_t)n3 * sizeof *xc), *xf = malloc((size_t)n3 * sizeof *xf);
    CHECK(weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, xc, &err) == WEFT_SOLVE_CONVERGED);
    for (const weft_linear_type *const *t = weft_linear_registry; *t; t++, count++) {
        void *ls = (*t)->create(s.m.n, NULL, 1, &err);
        CHECK(ls != NULL);
        if (!ls) continue;
        int its = -1;
        memset(s.x, 0, (size_t)n3 * sizeof *s.x);
        weft_solve_status st =
            (*t)->solve(ls, s.A, &s.f, s.b, s.x, s.m.x, NULL, NULL, &its, &err);
        if (st != WEFT_SOLVE_CONVERGED) fprintf(stderr, "%s: %s\n", (*t)->name, err.msg);
        CHECK(st == WEFT_SOLVE_CONVERGED);
        CHECK(its >= 0);
        double d = rel_diff(s.x, xc, n3);
        printf("%-8s %4d iterations, |x - x_cholmod|/|x| = %.2e\n", (*t)->name, its, d);
        CHECK(d <= 1e-6);
        check_filtered(&s.f, s.x);
        if ((*t)->factor && (*t)->solve_factored) {
            CHECK((*t)->factor(ls, s.A, &s.f, &err) == WEFT_SOLVE_CONVERGED);
            CHECK((*t)->solve_factored(ls, s.A, &s.f, s.b, xf, &err) == WEFT_SOLVE_CONVERGED);
            CHECK(rel_diff(xf, s.x, n3) <= 1e-6);
            check_filtered(&s.f, xf);
        }
        weft_linear_stats stats;
        (*t)->stats(ls, &stats);
        CHECK(stats.solves >= 1);
        (*t)->destroy(ls);
    }
    CHECK(count >= 2); /* cholmod, ppcg at least */
    free(xc);
    free(xf);
    weft_cholmod_solver_free(&ch);
    free_sys(&s);
}

/* The status codes of a linear solve, one rule for every solver and preconditioner: a
 * matrix that is not positive definite is WEFT_ERR_INDEFINITE (CHOLMOD's NOT_POSDEF, CG's
 * pᵀKp ≤ 0, a preconditioner's block), a NaN is WEFT_ERR_DIVERGED; and a linear solver
 * created and run with 1 thread leaves the caller's OpenMP team size as it was. */
static void test_status_codes(void) {
    sys s;
    if (!make_sys(&s, 12, 5)) return;
    int n = s.m.n, n3 = 3 * n;
    weft_error err = {{0}};
    double *d = malloc((size_t)n * sizeof *d), dmax = 0;
    for (int i = 0; i < n; i++) dmax = fmax(dmax, s.A->val[9 * s.A->diag[i]]);
    for (int i = 0; i < n; i++) d[i] = -10.0 * dmax;
    weft_bsr_add_diagonal(s.A, d);
    free(d);
    omp_set_num_threads(3);
    for (const weft_linear_type *const *t = weft_linear_registry; *t; t++) {
        void *ls = (*t)->create(n, NULL, 1, &err);
        CHECK(ls != NULL);
        if (!ls) continue;
        weft_solve_status st =
            (*t)->solve(ls, s.A, &s.f, s.b, s.x, s.m.x, NULL, NULL, NULL, &err);
        printf("%-8s not positive definite: %s (code %d): %s\n", (*t)->name,
               weft_solve_status_name(st), weft_solve_status_code(st), err.msg);
        CHECK(st == WEFT_SOLVE_INDEFINITE);
        CHECK(weft_solve_status_code(st) == WEFT_ERR_INDEFINITE);
        CHECK(!any_nan(s.x, n3));
        CHECK(omp_get_max_threads() == 3); /* nothing process-wide changed */
        (*t)->destroy(ls);
    }
    omp_set_num_threads(1);
    /* The plug-in and the CHOLMOD solver underneath it agree on the code and say why. */
    weft_cholmod_solver *ch = weft_cholmod_solver_create(&err);
    weft_solve_status st = weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, s.x, &err);
    CHECK(weft_solve_status_code(st) == WEFT_ERR_INDEFINITE);
    CHECK(strstr(err.msg, "not positive definite") != NULL);
    CHECK(weft_cholmod_solver_factor(ch, s.A, &s.f, &err) == WEFT_SOLVE_INDEFINITE);
    /* A preconditioner's non-SPD block: the update's code is the same. */
    for (const weft_precond_type *const *p = weft_precond_registry; *p; p++) {
        if (strcmp((*p)->name, "block_jacobi") && strcmp((*p)->name, "jacobi")) continue;
        void *ps = (*p)->create(n, NULL, 1, &err);
        CHECK(ps != NULL);
        if (!ps) continue;
        if ((*p)->setup) CHECK((*p)->setup(ps, s.A, NULL, &err) == WEFT_OK);
        CHECK((*p)->update(ps, s.A, &s.f, NULL, &err) == WEFT_ERR_INDEFINITE);
        (*p)->destroy(ps);
    }
    /* Non-finite input is DIVERGED, not INDEFINITE. */
    s.b[17] = NAN;
    st = weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, s.x, &err);
    CHECK(weft_solve_status_code(st) == WEFT_ERR_DIVERGED);
    CHECK(weft_solve_status_code(WEFT_SOLVE_NOMEM) == WEFT_ERR_NOMEM);
    CHECK(weft_solve_status_code(WEFT_SOLVE_MAX_ITER) == WEFT_WARN_MAX_ITER);
    for (int c = 0; c <= (int)WEFT_SOLVE_NOMEM; c++)
        CHECK((int)weft_solve_status_of(weft_solve_status_code((weft_solve_status)c)) == c);
    weft_cholmod_solver_free(&ch);
    free_sys(&s);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {{"filters", test_filters},
                                       {"agreement", test_agreement},
                                       {"analyses", test_analyses},
                                       {"failures", test_failures},
                                       {"factor_apply", test_factor_apply},
                                       {"every_precond", test_every_precond},
                                       {"every_linear", test_every_linear},
                                       {"scalar", test_scalar},
                                       {"status_codes", test_status_codes},
                                       {NULL, NULL}};
    return check_main(argc, argv, cases);
}
