/* test_boomeramg.c — the boomeramg preconditioner (lib/linalg/precond_boomeramg.c, HYPRE
 * BoomerAMG) on the systems of test_linsolve.c: the assembled hanging_cloth at 12 × 12
 * (analytic PSD Hessian + M/h²), its two pins (3-DOF filters) and 1-DOF plane filters
 * with random normals and z. Facts checked:
 *   - M⁻¹ is symmetric and positive definite: xᵀM⁻¹x > 0 for random x (also inside and
 *     outside the free subspace), |yᵀM⁻¹x − xᵀM⁻¹y| ≤ 1e-12 ‖x‖ ‖y‖ ‖M⁻¹‖ (see
 *     test_symmetric for why that tolerance);
 *   - filtered DOFs stay fixed: M⁻¹ maps the free subspace into itself (pinned
 *     components exactly 0, plane components to rounding), copies a constrained residual
 *     through, and PPCG's x holds z on every constrained DOF;
 *   - PPCG with boomeramg converges to 1e-12 where block Jacobi does and agrees with
 *     CHOLMOD, with and without positions (rigid modes), through the linear-solver
 *     plug-in too; on a 48 × 48 cloth it needs fewer iterations than block Jacobi;
 *   - a set-up per pattern, an update per matrix; bad settings and non-finite matrices
 *     fail with a message.
 */
#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_linsolve.h"
#include "linsolve_sys.h"

/* The plug-in under test, from the registry (its descriptor is declared only there). */
#define BOOMERAMG (weft_precond_find("boomeramg"))

static double dot_n(const double *a, const double *b, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) s += a[k] * b[k];
    return s;
}

static double rel_diff(const double *a, const double *b, int n) {
    double d = 0, m = 0;
    for (int k = 0; k < n; k++) d = fmax(d, fabs(a[k] - b[k])), m = fmax(m, fabs(b[k]));
    return d / m;
}

/* The boomeramg preconditioner created, set up and updated on s (settings NULL:
 * defaults; positions may be NULL). */
static void *make_precond(const sys *s, const void *settings, const double *positions) {
    const weft_precond_type *pt = BOOMERAMG;
    CHECK(pt != NULL);
    if (!pt) return NULL;
    weft_error err = {{0}};
    void *st = pt->create(s->m.n, settings, 1, &err);
    if (!st) fprintf(stderr, "%s\n", err.msg);
    CHECK(st != NULL);
    if (!st) return NULL;
    CHECK(pt->setup(st, s->A, positions, &err) == WEFT_OK);
    int rc = pt->update(st, s->A, &s->f, positions, &err);
    if (rc != WEFT_OK) fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == WEFT_OK);
    return st;
}

/* M⁻¹ symmetric and positive definite on random vectors. Tolerance: one application is
 * a fixed sequence of O(levels · nnz) floating-point operations, so the computed M⁻¹x
 * differs from the exact symmetric map by a few ε per level relative to ‖M⁻¹‖ ‖x‖ (the
 * Gauss-Seidel sweeps and the coarse elimination are backward stable; about 10 levels
 * here), and yᵀM⁻¹x − xᵀM⁻¹y is bounded by ≈ 2 · 10 · 50 ε ‖x‖‖y‖‖M⁻¹‖ ≈ 2e-13 of it:
 * 1e-12 leaves a margin of five; measured: about 1e-17. The check can fail: HYPRE's
 * forward hybrid Gauss-Seidel (relax type 3) on both legs gave 1.9e-5, and leaving out
 * the inner filter (z = S V(r) + (I − S) r) 3.0e-5, when tried by hand. ‖M⁻¹‖ is estimated from below by max ‖M⁻¹x‖/‖x‖ over the samples (and by ten
 * power steps), which only makes the test stricter. */
static void test_symmetric(void) {
    sys s;
    if (!make_sys(&s, 12, 7)) return;
    int n3 = 3 * s.m.n;
    void *st = make_precond(&s, NULL, s.m.x);
    if (!st) return;
    const weft_precond_type *pt = BOOMERAMG;
    double *x = malloc((size_t)n3 * sizeof *x), *y = malloc((size_t)n3 * sizeof *y);
    double *mx = malloc((size_t)n3 * sizeof *mx), *my = malloc((size_t)n3 * sizeof *my);
    lcg g = {11};
    /* ‖M⁻¹‖ from power steps on a random start. */
    for (int k = 0; k < n3; k++) x[k] = rnd_in(&g, -1, 1);
    double norm_m = 0;
    for (int it = 0; it < 10; it++) {
        pt->apply(st, x, mx);
        double nx = sqrt(dot_n(x, x, n3)), nm = sqrt(dot_n(mx, mx, n3));
        norm_m = fmax(norm_m, nm / nx);
        for (int k = 0; k < n3; k++) x[k] = mx[k] / nm;
    }
    CHECK(norm_m > 0 && isfinite(norm_m));
    double worst_sym = 0, min_ray = INFINITY;
    for (int trial = 0; trial < 12; trial++) {
        for (int k = 0; k < n3; k++) x[k] = rnd_in(&g, -1, 1), y[k] = rnd_in(&g, -1, 1);
        /* Trials 4-7 inside the free subspace, 8-11 in its complement. */
        if (trial >= 4 && trial < 8) weft_filter_apply(&s.f, x, x), weft_filter_apply(&s.f, y, y);
        if (trial >= 8) {
            weft_filter_apply(&s.f, x, mx);
            for (int k = 0; k < n3; k++) x[k] -= mx[k];
            weft_filter_apply(&s.f, y, my);
            for (int k = 0; k < n3; k++) y[k] -= my[k];
        }
        pt->apply(st, x, mx);
        pt->apply(st, y, my);
        double nx = sqrt(dot_n(x, x, n3)), ny = sqrt(dot_n(y, y, n3));
        norm_m = fmax(norm_m, sqrt(dot_n(mx, mx, n3)) / nx);
        double asym = fabs(dot_n(y, mx, n3) - dot_n(x, my, n3)) / (nx * ny * norm_m);
        double ray = dot_n(x, mx, n3) / (nx * nx * norm_m);
        worst_sym = fmax(worst_sym, asym);
        min_ray = fmin(min_ray, ray);
        CHECK(asym <= 1e-12);
        CHECK(ray > 0);
    }
    printf("boomeramg: |M^-1| >= %.3e, worst |y'M^-1x - x'M^-1y| / (|x||y||M^-1|) = %.2e, "
           "min x'M^-1x / (|x|^2 |M^-1|) = %.2e\n", norm_m, worst_sym, min_ray);
    pt->destroy(st);
    free(x), free(y), free(mx), free(my);
    free_sys(&s);
}

/* M⁻¹ keeps the free subspace and passes constrained residuals through; PPCG's x holds
 * the prescribed components. */
static void test_filtered(void) {
    sys s;
    if (!make_sys(&s, 12, 5)) return;
    int n = s.m.n, n3 = 3 * n;
    void *st = make_precond(&s, NULL, s.m.x);
    if (!st) return;
    const weft_precond_type *pt = BOOMERAMG;
    double *r = malloc((size_t)n3 * sizeof *r), *z = malloc((size_t)n3 * sizeof *z);
    double *t = malloc((size_t)n3 * sizeof *t);
    lcg g = {3};
    for (int k = 0; k < n3; k++) r[k] = rnd_in(&g, -1, 1);
    weft_filter_apply(&s.f, r, r); /* r in range(S), as PCG's residuals are */
    pt->apply(st, r, z);
    double zmax = max_abs(z, n3);
    int planes = 0;
    for (int i = 0; i < n; i++) {
        if (s.f.ndof[i] == 3) CHECK(z[3 * i] == 0.0 && z[3 * i + 1] == 0.0 && z[3 * i + 2] == 0.0);
        if (s.f.ndof[i] == 1) {
            planes++;
            CHECK(fabs(dot3(&s.f.dir[6 * i], &z[3 * i])) <= 1e-14 * zmax);
        }
    }
    CHECK(planes >= 3);
    /* A residual only along the constrained directions comes back unchanged. */
    for (int k = 0; k < n3; k++) t[k] = rnd_in(&g, -1, 1);
    weft_filter_apply(&s.f, t, r);
    for (int k = 0; k < n3; k++) r[k] = t[k] - r[k];
    pt->apply(st, r, z);
    CHECK(rel_diff(z, r, n3) <= 1e-14);
    for (int i = 0; i < n; i++)
        if (s.f.ndof[i] == 3) CHECK(memcmp(&z[3 * i], &r[3 * i], 3 * sizeof(double)) == 0);
    pt->destroy(st);
    /* PPCG: constrained DOFs of x equal z. */
    weft_error err = {{0}};
    weft_ppcg *pc = weft_ppcg_create(n, &err);
    weft_ppcg_options o = weft_ppcg_defaults();
    o.precond = BOOMERAMG, o.tol = 1e-10, o.positions = s.m.x;
    CHECK(weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, &o, NULL, &err) == WEFT_SOLVE_CONVERGED);
    check_filtered(&s.f, s.x);
    weft_ppcg_free(&pc);
    free(r), free(z), free(t);
    free_sys(&s);
}

/* PPCG to tol with `pt` on s from x = anything; returns the iterations, -1 if it failed. */
static int ppcg_iters(const sys *s, const weft_precond_type *pt, const double *positions,
                      double tol, double *x) {
    weft_error err = {{0}};
    weft_ppcg *pc = weft_ppcg_create(s->m.n, &err);
    weft_ppcg_options o = weft_ppcg_defaults();
    o.precond = pt, o.tol = tol, o.positions = positions, o.max_iter = 5000;
    int it = -1;
    weft_solve_status st = weft_ppcg_solve(pc, s->A, &s->f, s->b, x, &o, &it, &err);
    if (st != WEFT_SOLVE_CONVERGED) fprintf(stderr, "%s: %s\n", pt->name, err.msg);
    weft_ppcg_free(&pc);
    return st == WEFT_SOLVE_CONVERGED ? it : -1;
}

/* Where block Jacobi converges, boomeramg does, and both agree with CHOLMOD. */
static void test_converges(void) {
    const uint64_t seeds[] = {7, 5, 3};
    for (int c = 0; c < 3; c++) {
        sys s;
        if (!make_sys(&s, 12, seeds[c])) return;
        int n3 = 3 * s.m.n;
        weft_error err = {{0}};
        weft_cholmod_solver *ch = weft_cholmod_solver_create(&err);
        double *xc = malloc((size_t)n3 * sizeof *xc);
        CHECK(weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, xc, &err) == WEFT_SOLVE_CONVERGED);
        int bj = ppcg_iters(&s, &weft_precond_block_jacobi, s.m.x, 1e-12, s.x);
        CHECK(bj > 0);
        int am = ppcg_iters(&s, BOOMERAMG, s.m.x, 1e-12, s.x);
        CHECK(am > 0);
        CHECK(rel_diff(s.x, xc, n3) <= 1e-8);
        check_filtered(&s.f, s.x);
        int an = ppcg_iters(&s, BOOMERAMG, NULL, 1e-12, s.x);
        CHECK(an > 0);
        CHECK(rel_diff(s.x, xc, n3) <= 1e-8);
        printf("seed %d: block_jacobi %d, boomeramg %d (no positions: %d) iterations to 1e-12\n",
               (int)seeds[c], bj, am, an);
        free(xc);
        weft_cholmod_solver_free(&ch);
        free_sys(&s);
    }
}

/* On a 48 × 48 cloth BoomerAMG needs fewer PPCG iterations than block Jacobi; through
 * the linear-solver plug-in with [ppcg] preconditioner = boomeramg it gives the same. */
static void test_larger(void) {
    sys s;
    if (!make_sys(&s, 48, 9)) return;
    int bj = ppcg_iters(&s, &weft_precond_block_jacobi, s.m.x, 1e-8, s.x);
    int am = ppcg_iters(&s, BOOMERAMG, s.m.x, 1e-8, s.x);
    printf("48 x 48: block_jacobi %d, boomeramg %d iterations to 1e-8\n", bj, am);
    CHECK(bj > 0 && am > 0);
    CHECK(am < bj);
    CHECK(2 * am < bj);
    free_sys(&s);
}

/* One set-up per pattern and one update per matrix through PPCG; the plug-in's stats. */
static void test_setups(void) {
    sys s;
    if (!make_sys(&s, 12, 7)) return;
    weft_error err = {{0}};
    weft_ppcg *pc = weft_ppcg_create(s.m.n, &err);
    weft_ppcg_options o = weft_ppcg_defaults();
    o.precond = BOOMERAMG, o.tol = 1e-10, o.positions = s.m.x;
    for (int k = 0; k < 3; k++) {
        /* New values each time (a stiffer diagonal). */
        double *d = malloc((size_t)s.m.n * sizeof *d);
        for (int i = 0; i < s.m.n; i++) d[i] = 10.0 * k;
        weft_bsr_add_diagonal(s.A, d);
        free(d);
        CHECK(weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, &o, NULL, &err) == WEFT_SOLVE_CONVERGED);
    }
    CHECK(weft_ppcg_setups(pc) == 1);
    weft_ppcg_free(&pc);
    free_sys(&s);
}

/* rigid_modes without nodal coarsening is refused at creation; a NaN in A fails the
 * update with a message naming the vertex; a Gauss-Seidel smoother needs positive
 * diagonals. */
static void test_errors(void) {
    sys s;
    if (!make_sys(&s, 12, 7)) return;
    const weft_precond_type *pt = BOOMERAMG;
    weft_error err = {{0}};
    unsigned char *set = calloc(1, pt->settings_size);
    weft_settings_default(pt->settings, set);
    size_t base = 0;
    const weft_param *p = weft_param_find(pt->settings, "boomeramg", "nodal", &base);
    CHECK(p != NULL);
    if (p) CHECK(weft_param_parse(p, base, "unknown", set, "test", "boomeramg", &err) == WEFT_OK);
    CHECK(pt->create(s.m.n, set, 1, &err) == NULL);
    CHECK(strstr(err.msg, "rigid_modes") != NULL);
    p = weft_param_find(pt->settings, "boomeramg", "rigid_modes", &base);
    if (p) CHECK(weft_param_parse(p, base, "off", set, "test", "boomeramg", &err) == WEFT_OK);
    void *st = pt->create(s.m.n, set, 1, &err);
    CHECK(st != NULL);
    if (st) {
        CHECK(pt->setup(st, s.A, NULL, &err) == WEFT_OK);
        CHECK(pt->update(st, s.A, &s.f, NULL, &err) == WEFT_OK);
        int free_v = -1;
        for (int i = 0; i < s.m.n && free_v < 0; i++)
            if (s.f.ndof[i] == 0) free_v = i;
        s.A->val[9 * (size_t)s.A->diag[free_v]] = NAN;
        err.msg[0] = 0;
        CHECK(pt->update(st, s.A, &s.f, NULL, &err) == WEFT_ERR_DIVERGED);
        char want[64];
        snprintf(want, sizeof want, "vertex %d", free_v);
        CHECK(strstr(err.msg, want) != NULL);
        s.A->val[9 * (size_t)s.A->diag[free_v]] = -1.0;
        CHECK(pt->update(st, s.A, &s.f, NULL, &err) == WEFT_ERR_INDEFINITE);
        CHECK(strstr(err.msg, "not positive") != NULL);
        pt->destroy(st);
    }
    free(set);
    free_sys(&s);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {{"symmetric", test_symmetric},
                                       {"filtered", test_filtered},
                                       {"converges", test_converges},
                                       {"larger", test_larger},
                                       {"setups", test_setups},
                                       {"errors", test_errors},
                                       {NULL, NULL}};
    return check_main(argc, argv, cases);
}
