#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_PROCESS_CPUTIME_ID */
/* test_sa_amg.c — the smoothed-aggregation multigrid preconditioner
 * (lib/linalg/precond_sa_amg.c, Tamstorf, Jones & McCormick 2015) on the assembled
 * hanging_cloth system: A = ∇²E (analytic PSD element Hessians) + M/h², pins (3-DOF
 * filters) and 1-DOF plane filters with random normals. Facts checked, on two-level and
 * multi-level hierarchies:
 *   - K_0 = S A S + (I − S) exactly as the dense product;
 *   - the tentative prolongator's columns live on their aggregate, are orthonormal, and
 *     span the filtered rigid modes S B on each aggregate (translations and rotations
 *     from the positions; on coarse levels the coarse rigid modes R = Tᵀ S B);
 *   - P ∈ range(S) (pinned rows exactly 0), and each coarse operator equals the dense
 *     Pᵀ A P (level 0, unfiltered A) or Pᵀ K_l P, plus 1 on the diagonal of zero columns;
 *   - M⁻¹ is symmetric to rounding and positive definite on random vectors, with either
 *     smoother;
 *   - M⁻¹ maps range(S) into range(S): pinned DOFs exactly 0, plane DOFs to rounding;
 *   - PPCG with sa_amg converges where block Jacobi does, in fewer iterations, to CHOLMOD's
 *     solution, with and without positions, and reuses its set-up over new values;
 *   - newton_euler with linear = ppcg, preconditioner = sa_amg reproduces the CHOLMOD run's
 *     positions on hanging_cloth.
 * `test_sa_amg measure N...` (not a CTest case) prints iterations and times at N².
 */
#include "check.h"
#include "linalg_internal.h"
#include "scene_build.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_linsolve.h"
#include "linsolve_sys.h"

#include <stdlib.h>
#include <time.h>

/* The nx × nx hanging cloth system with its pins, `planes` random plane filters and a
 * random b; the cloth is first moved by `steps` newton_euler steps (so it is not flat),
 * or, with steps < 0, by −steps pbd_gauss_seidel steps and then assembled at the inertial
 * target x̃ = x + h v + h² g, as bench_implicit does. */
static bool make_moved_sys(sys *s, int nx, int planes, int steps, uint64_t seed) {
    memset(s, 0, sizeof *s);
    char a[32], b[32];
    snprintf(a, sizeof a, "mesh.nx=%d", nx);
    snprintf(b, sizeof b, "mesh.ny=%d", nx);
    const char *sets[] = {a, b, NULL};
    weft_config *cfg = NULL;
    if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &s->m, &cfg)) return false;
    bool ok = steps == 0 || solver_steps(steps > 0 ? &weft_newton_euler : &weft_pbd_gauss_seidel,
                                         &s->m, cfg, steps > 0 ? steps : -steps, NULL);
    weft_config_free(&cfg);
    if (!ok) return false;
    int n = s->m.n;
    if (steps < 0) { /* x = x̃, pins at their place at t + h */
        double *xt = malloc(3 * (size_t)n * sizeof *xt);
        weft_inertial_target(&s->m, s->m.x, s->m.v, xt);
        weft_model_apply_pins(&s->m, s->m.t + s->m.dt, xt);
        memcpy(s->m.x, xt, 3 * (size_t)n * sizeof *xt);
        free(xt);
    }
    return sys_finish(s, planes, seed) >= 0;
}

/* An sa_amg state for s, set up and updated (positions: s's, or NULL). */
static void *make_amg(const sys *s, const weft_sa_amg_settings *set, bool positions) {
    weft_error err = {{0}};
    const weft_precond_type *pt = &weft_precond_sa_amg;
    void *st = pt->create(s->m.n, set, 1, &err);
    CHECK(st != NULL);
    if (!st) return NULL;
    const double *x = positions ? s->m.x : NULL;
    int rc = pt->setup(st, s->A, x, &err);
    if (rc == WEFT_OK) rc = pt->update(st, s->A, &s->f, x, &err);
    if (rc) fprintf(stderr, "sa_amg: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    if (rc) {
        pt->destroy(st);
        return NULL;
    }
    return st;
}

static weft_sa_amg_settings defaults(void) {
    weft_sa_amg_settings set;
    weft_settings_default(weft_precond_sa_amg.settings, &set);
    return set;
}

static double *dense(const void *st, int l, char which, int *rows, int *cols) {
    int nr = weft_sa_amg_level_size(st, l, NULL, NULL);
    int nc = which == 'K' ? nr : weft_sa_amg_level_size(st, l + 1, NULL, NULL);
    double *M = malloc((size_t)nr * nc * sizeof *M);
    CHECK(weft_sa_amg_dense(st, l, which, M) == nc);
    *rows = nr, *cols = nc;
    return M;
}

static double max_abs_n(const double *a, size_t n) {
    double m = 0.0;
    for (size_t k = 0; k < n; k++) m = fmax(m, fabs(a[k]));
    return m;
}

/* The rigid modes of the n vertices at x (3n × 6, row-major), filtered by f. */
static double *filtered_modes(const sys *s) {
    int n = s->m.n;
    double *B = malloc(18 * (size_t)n * sizeof *B);
    for (int i = 0; i < n; i++) {
        const double *x = &s->m.x[3 * i], *S = &s->f.S[9 * i];
        double cols[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1},
                             {0, -x[2], x[1]}, {x[2], 0, -x[0]}, {-x[1], x[0], 0}};
        for (int c = 0; c < 6; c++)
            for (int a = 0; a < 3; a++)
                B[(3 * i + a) * 6 + c] = S[3 * a] * cols[c][0] + S[3 * a + 1] * cols[c][1] +
                                         S[3 * a + 2] * cols[c][2];
    }
    return B;
}

/* Level l's tentative prolongator T (nr × nc): columns of aggregate a supported on a's
 * DOFs, orthonormal or zero, and spanning the columns of Bl (nr × 6) on each aggregate. */
static void check_tentative(const void *st, int l, const double *Bl) {
    int nr, nc, nodes, blk, nagg;
    double *T = dense(st, l, 'T', &nr, &nc);
    weft_sa_amg_level_size(st, l, &nodes, &blk);
    const int *agg = weft_sa_amg_aggregates(st, l, &nagg);
    CHECK(agg != NULL && nc == 6 * nagg);
    if (!agg) {
        free(T);
        return;
    }
    double worst_support = 0, worst_orth = 0, worst_span = 0;
    for (int c = 0; c < nc; c++)
        for (int r = 0; r < nr; r++)
            if (agg[r / blk] != c / 6) worst_support = fmax(worst_support, fabs(T[r * nc + c]));
    for (int c = 0; c < nc; c++)
        for (int d = 0; d < nc; d++) {
            double s = 0;
            for (int r = 0; r < nr; r++) s += T[r * nc + c] * T[r * nc + d];
            double want = 0;
            if (c == d) {
                double nn = 0;
                for (int r = 0; r < nr; r++) nn += T[r * nc + c] * T[r * nc + c];
                want = nn > 0.5 ? 1.0 : 0.0; /* kept: unit; dropped: exactly zero */
                CHECK(nn == 0.0 || fabs(nn - 1.0) < 1e-12);
            }
            worst_orth = fmax(worst_orth, fabs(s - want));
        }
    /* Span: B_a − T_a T_aᵀ B_a = 0 on each aggregate a. */
    double bscale = max_abs_n(Bl, (size_t)nr * 6);
    for (int a = 0; a < nagg; a++)
        for (int m = 0; m < 6; m++) {
            double h[6];
            for (int q = 0; q < 6; q++) {
                h[q] = 0;
                for (int r = 0; r < nr; r++)
                    if (agg[r / blk] == a) h[q] += T[r * nc + 6 * a + q] * Bl[r * 6 + m];
            }
            for (int r = 0; r < nr; r++) {
                if (agg[r / blk] != a) continue;
                double v = Bl[r * 6 + m];
                for (int q = 0; q < 6; q++) v -= T[r * nc + 6 * a + q] * h[q];
                worst_span = fmax(worst_span, fabs(v));
            }
        }
    printf("level %d: %d nodes of %d DOFs, %d aggregates; T support %.1e, |T'T - I| %.1e, "
           "|B - T T'B| %.1e |B|\n", l, nodes, blk, nagg, worst_support, worst_orth,
           worst_span / bscale);
    CHECK(worst_support == 0.0);
    CHECK(worst_orth <= 1e-12);
    CHECK(worst_span <= 1e-10 * bscale);
    free(T);
}

/* C = Xᵀ Y Z for dense X (r × c), Y (r × r), Z (r × c): c × c. */
static double *galerkin(const double *X, const double *Y, int r, int c) {
    double *YX = calloc((size_t)r * c, sizeof *YX), *C = calloc((size_t)c * c, sizeof *C);
    for (int i = 0; i < r; i++)
        for (int k = 0; k < r; k++) {
            double y = Y[(size_t)i * r + k];
            if (y == 0.0) continue;
            for (int j = 0; j < c; j++) YX[(size_t)i * c + j] += y * X[(size_t)k * c + j];
        }
    for (int k = 0; k < r; k++)
        for (int i = 0; i < c; i++) {
            double x = X[(size_t)k * c + i];
            if (x == 0.0) continue;
            for (int j = 0; j < c; j++) C[(size_t)i * c + j] += x * YX[(size_t)k * c + j];
        }
    free(YX);
    return C;
}

/* The hierarchy's facts on every level (see the file comment). */
static void check_hierarchy(const sys *s, const void *st) {
    int L = weft_sa_amg_levels(st), n3 = 3 * s->m.n;
    /* K_0 = S A S + (I − S). */
    int nr, nc;
    double *K0 = dense(st, 0, 'K', &nr, &nc);
    double *A = malloc((size_t)n3 * n3 * sizeof *A), *SAS = malloc((size_t)n3 * n3 * sizeof *SAS);
    weft_bsr_to_dense(s->A, A);
    for (int i = 0; i < s->m.n; i++)
        for (int j = 0; j < s->m.n; j++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    double v = 0;
                    for (int p = 0; p < 3; p++)
                        for (int q = 0; q < 3; q++)
                            v += s->f.S[9 * i + 3 * a + p] *
                                 A[(size_t)(3 * i + p) * n3 + 3 * j + q] * s->f.S[9 * j + 3 * q + b];
                    if (i == j) v += (a == b) - s->f.S[9 * i + 3 * a + b];
                    SAS[(size_t)(3 * i + a) * n3 + 3 * j + b] = v;
                }
    double d0 = 0, ascale = max_abs_n(A, (size_t)n3 * n3);
    for (size_t k = 0; k < (size_t)n3 * n3; k++) d0 = fmax(d0, fabs(K0[k] - SAS[k]));
    CHECK(d0 <= 1e-13 * ascale);
    free(SAS);
    /* Level by level. */
    double *Bl = filtered_modes(s);
    double *Kl = K0;
    for (int l = 0; l + 1 < L; l++) {
        check_tentative(st, l, Bl);
        int pr, pc, tr, tc;
        double *P = dense(st, l, 'P', &pr, &pc), *T = dense(st, l, 'T', &tr, &tc);
        if (l == 0) {
            /* P ∈ range(S): (I − S) P = 0, exactly on pinned rows. */
            double leak = 0, pinned = 0;
            for (int i = 0; i < s->m.n; i++)
                for (int c = 0; c < pc; c++)
                    for (int a = 0; a < 3; a++) {
                        double v = P[(size_t)(3 * i + a) * pc + c];
                        for (int b = 0; b < 3; b++)
                            v -= s->f.S[9 * i + 3 * a + b] * P[(size_t)(3 * i + b) * pc + c];
                        leak = fmax(leak, fabs(v));
                        if (s->f.ndof[i] == 3) pinned = fmax(pinned, fabs(P[(size_t)(3 * i + a) * pc + c]));
                    }
            CHECK(pinned == 0.0);
            CHECK(leak <= 1e-13 * max_abs_n(P, (size_t)pr * pc));
        }
        /* K_{l+1} = Pᵀ K_l P (+ 1 where P's column is zero); level 0 with A itself. */
        double *G = galerkin(P, l == 0 ? A : Kl, pr, pc);
        for (int c = 0; c < pc; c++) {
            bool zero = true;
            for (int r = 0; r < pr && zero; r++) zero = P[(size_t)r * pc + c] == 0.0;
            if (zero) G[(size_t)c * pc + c] += 1.0;
        }
        int kr, kc;
        double *K1 = dense(st, l + 1, 'K', &kr, &kc);
        CHECK(kr == pc);
        double dk = 0, scale = max_abs_n(G, (size_t)pc * pc);
        for (size_t k = 0; k < (size_t)pc * pc; k++) dk = fmax(dk, fabs(K1[k] - G[k]));
        printf("level %d -> %d: |K_c - P'KP| = %.2e of %.2e\n", l, l + 1, dk, scale);
        CHECK(dk <= 1e-12 * scale);
        /* The coarse rigid modes R = Tᵀ B_l (nc × 6). */
        double *Bc = calloc((size_t)tc * 6, sizeof *Bc);
        for (int r = 0; r < tr; r++)
            for (int c = 0; c < tc; c++)
                for (int m = 0; m < 6; m++) Bc[c * 6 + m] += T[(size_t)r * tc + c] * Bl[r * 6 + m];
        free(Bl);
        Bl = Bc;
        free(G), free(P), free(T);
        free(Kl);
        Kl = K1;
    }
    free(Kl);
    free(Bl);
    free(A);
}

/* Two levels on 12 × 12: tentative, filter, Galerkin; then, with the same set-up, a new
 * filter that pins every vertex of one aggregate and puts one vertex of another on a line
 * (as contacts would): its 6 coarse columns are zero, the coarse diagonal gets 1 there,
 * and the facts still hold. */
static void test_two_level(void) {
    sys s;
    if (!make_moved_sys(&s, 12, 8, 3, 11)) return;
    weft_sa_amg_settings set = defaults();
    set.levels = 2;
    void *st = make_amg(&s, &set, true);
    if (st) {
        CHECK(weft_sa_amg_levels(st) == 2);
        check_hierarchy(&s, st);
        int nagg;
        const int *agg = weft_sa_amg_aggregates(st, 0, &nagg);
        weft_error err = {{0}};
        for (int i = 0; i < s.m.n; i++)
            if (agg[i] == 3) weft_filter_pin(&s.f, i, &s.m.x[3 * i]);
        for (int i = 0; i < s.m.n; i++)
            if (agg[i] == 5) {
                double p[3] = {1, 2, 0.5}, q[3] = {-1, 0.3, 2};
                CHECK(weft_filter_line(&s.f, i, p, q, &s.m.x[3 * i], &err) == WEFT_OK);
                break;
            }
        CHECK(weft_precond_sa_amg.update(st, s.A, &s.f, s.m.x, &err) == WEFT_OK);
        int r, c, zero_cols = 0;
        double *P = dense(st, 0, 'P', &r, &c);
        for (int j = 0; j < c; j++) {
            bool zero = true;
            for (int i = 0; i < r && zero; i++) zero = P[(size_t)i * c + j] == 0.0;
            zero_cols += zero;
        }
        printf("pinned aggregate: %d zero columns of P\n", zero_cols);
        CHECK(zero_cols == 6);
        free(P);
        check_hierarchy(&s, st);
        weft_precond_sa_amg.destroy(st);
    }
    free_sys(&s);
}

/* Three or more levels on 16 × 16 (coarsest 4 nodes). */
static void test_multi_level(void) {
    sys s;
    if (!make_moved_sys(&s, 16, 10, 3, 12)) return;
    weft_sa_amg_settings set = defaults();
    set.coarsest = 4;
    void *st = make_amg(&s, &set, true);
    if (st) {
        printf("%d levels\n", weft_sa_amg_levels(st));
        CHECK(weft_sa_amg_levels(st) >= 3);
        check_hierarchy(&s, st);
        weft_precond_sa_amg.destroy(st);
    }
    free_sys(&s);
}

/* M⁻¹ symmetric to rounding and positive definite, and range(S) kept, for the smoothers,
 * level counts and level 0 aggregate radii (variant 4: radius 2; the smoother's
 * single-precision blocks must keep both exactly in structure). */
static void test_spd(void) {
    sys s;
    if (!make_moved_sys(&s, 16, 10, 3, 13)) return;
    int n3 = 3 * s.m.n;
    double *x = malloc((size_t)n3 * sizeof *x), *y = malloc((size_t)n3 * sizeof *y);
    double *Mx = malloc((size_t)n3 * sizeof *Mx), *My = malloc((size_t)n3 * sizeof *My);
    for (int variant = 0; variant < 5; variant++) {
        weft_sa_amg_settings set = defaults();
        set.levels = variant % 2 ? 10 : 2;
        set.coarsest = 4;
        set.smoother = variant < 2 || variant == 4 ? WEFT_SA_AMG_GAUSS_SEIDEL : WEFT_SA_AMG_JACOBI;
        set.sweeps = variant == 3 ? 2 : 1;
        set.radius = variant == 4 ? 2 : 1;
        void *st = make_amg(&s, &set, true);
        if (!st) continue;
        lcg g = {100 + (uint64_t)variant};
        double worst_sym = 0, least = INFINITY;
        for (int t = 0; t < 20; t++) {
            for (int k = 0; k < n3; k++) x[k] = rnd_in(&g, -1, 1), y[k] = rnd_in(&g, -1, 1);
            weft_precond_sa_amg.apply(st, x, Mx);
            weft_precond_sa_amg.apply(st, y, My);
            double yMx = 0, xMy = 0, xMx = 0, nx = 0, ny = 0, nMx = 0;
            for (int k = 0; k < n3; k++) {
                yMx += y[k] * Mx[k], xMy += x[k] * My[k], xMx += x[k] * Mx[k];
                nx += x[k] * x[k], ny += y[k] * y[k], nMx += Mx[k] * Mx[k];
            }
            worst_sym = fmax(worst_sym, fabs(yMx - xMy) / (sqrt(nMx) * sqrt(ny)));
            least = fmin(least, xMx / (sqrt(nx) * sqrt(nMx)));
        }
        printf("%d levels, %s x%d: |y'Mx - x'My| / (|Mx||y|) <= %.2e, x'Mx / (|x||Mx|) >= %.3f\n",
               weft_sa_amg_levels(st), set.smoother ? "jacobi" : "gauss_seidel", set.sweeps,
               worst_sym, least);
        CHECK(worst_sym <= 1e-13);
        CHECK(least > 0.0);
        /* Filtered DOFs stay fixed: r ∈ range(S) gives M⁻¹ r ∈ range(S). */
        weft_filter_apply(&s.f, x, x);
        weft_precond_sa_amg.apply(st, x, Mx);
        double scale = max_abs_n(Mx, (size_t)n3), planes = 0;
        int npins = 0, nplanes = 0;
        for (int i = 0; i < s.m.n; i++) {
            if (s.f.ndof[i] == 3) {
                CHECK(Mx[3 * i] == 0.0 && Mx[3 * i + 1] == 0.0 && Mx[3 * i + 2] == 0.0);
                npins++;
            }
            if (s.f.ndof[i] == 1) {
                planes = fmax(planes, fabs(dot3(&s.f.dir[6 * i], &Mx[3 * i])));
                nplanes++;
            }
        }
        CHECK(npins == 2 && nplanes >= 5);
        CHECK(planes <= 1e-13 * scale);
        weft_precond_sa_amg.destroy(st);
    }
    free(x), free(y), free(Mx), free(My);
    free_sys(&s);
}

/* x = A⁻¹ b for a dense n × n A (row-major; Gaussian elimination with partial pivoting on
 * copies). */
static void dense_solve(const double *A, int n, const double *b, double *x) {
    double *M = malloc((size_t)n * n * sizeof *M), *r = malloc((size_t)n * sizeof *r);
    memcpy(M, A, (size_t)n * n * sizeof *M);
    memcpy(r, b, (size_t)n * sizeof *r);
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(M[(size_t)i * n + c]) > fabs(M[(size_t)piv * n + c])) piv = i;
        for (int j = 0; j < n; j++) {
            double t = M[(size_t)c * n + j];
            M[(size_t)c * n + j] = M[(size_t)piv * n + j], M[(size_t)piv * n + j] = t;
        }
        double t = r[c];
        r[c] = r[piv], r[piv] = t;
        for (int i = c + 1; i < n; i++) {
            double m = M[(size_t)i * n + c] / M[(size_t)c * n + c];
            for (int j = c; j < n; j++) M[(size_t)i * n + j] -= m * M[(size_t)c * n + j];
            r[i] -= m * r[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double v = r[i];
        for (int j = i + 1; j < n; j++) v -= M[(size_t)i * n + j] * x[j];
        x[i] = v / M[(size_t)i * n + i];
    }
    free(M), free(r);
}

/* One block Gauss-Seidel sweep x += (D + L̂)⁻¹ (f − K̂ x) (forward; backward: D + Û,
 * nodes descending) on the dense K̂ (n3 × n3, 3×3 blocks), by block substitution. */
static void dense_gs(const double *Kh, int n3, const double *f, double *x, bool forward) {
    int n = n3 / 3;
    for (int s = 0; s < n; s++) {
        int i = forward ? s : n - 1 - s;
        double r[3], D[9], y[3];
        for (int a = 0; a < 3; a++) {
            r[a] = f[3 * i + a];
            for (int c = 0; c < n3; c++)
                if (c / 3 != i) r[a] -= Kh[(size_t)(3 * i + a) * n3 + c] * x[c];
            for (int c = 0; c < 3; c++) D[3 * a + c] = Kh[(size_t)(3 * i + a) * n3 + 3 * i + c];
        }
        dense_solve(D, 3, r, y);
        for (int a = 0; a < 3; a++) x[3 * i + a] = y[a];
    }
}

/* One V-cycle on two levels equals its dense formula: pre-smoothing by ν forward block
 * Gauss-Seidel sweeps from x = 0, t = f − K̂ x, x += P K_1⁻¹ Pᵀ t, ν backward sweeps, with
 * K̂ = K_0 whose off-diagonal blocks are rounded to single precision except those of a
 * constrained vertex's row or column. It pins the smoother's kernels (the lower triangle
 * gathered and scattered, the fused first sweep and residual, the descending backward
 * sweep) to the documented M⁻¹, which the symmetry test alone would not. */
static void test_vcycle_dense(void) {
    sys s;
    if (!make_moved_sys(&s, 10, 6, 3, 21)) return;
    int n3 = 3 * s.m.n;
    for (int nu = 1; nu <= 2; nu++) {
        weft_sa_amg_settings set = defaults();
        set.levels = 2, set.coarsest = 4, set.sweeps = nu;
        void *st = make_amg(&s, &set, true);
        if (!st) continue;
        CHECK(weft_sa_amg_levels(st) == 2);
        int nc = weft_sa_amg_level_size(st, 1, NULL, NULL);
        double *K = malloc((size_t)n3 * n3 * sizeof *K), *P = malloc((size_t)n3 * nc * sizeof *P);
        double *Kc = malloc((size_t)nc * nc * sizeof *Kc);
        CHECK(weft_sa_amg_dense(st, 0, 'K', K) == n3);
        CHECK(weft_sa_amg_dense(st, 0, 'P', P) == nc);
        CHECK(weft_sa_amg_dense(st, 1, 'K', Kc) == nc);
        for (int r = 0; r < n3; r++)
            for (int c = 0; c < n3; c++)
                if (r / 3 != c / 3 && !s.f.ndof[r / 3] && !s.f.ndof[c / 3])
                    K[(size_t)r * n3 + c] = (double)(float)K[(size_t)r * n3 + c];
        double *f = malloc((size_t)n3 * sizeof *f), *x = calloc((size_t)n3, sizeof *x);
        double *t = malloc((size_t)n3 * sizeof *t), *z = malloc((size_t)n3 * sizeof *z);
        double *g = calloc((size_t)nc, sizeof *g), *y = malloc((size_t)nc * sizeof *y);
        lcg rg = {300 + (uint64_t)nu};
        for (int k = 0; k < n3; k++) f[k] = rnd_in(&rg, -1, 1);
        weft_filter_apply(&s.f, f, f);
        for (int q = 0; q < nu; q++) dense_gs(K, n3, f, x, true);
        for (int r = 0; r < n3; r++) {
            t[r] = f[r];
            for (int c = 0; c < n3; c++) t[r] -= K[(size_t)r * n3 + c] * x[c];
        }
        for (int r = 0; r < n3; r++)
            for (int c = 0; c < nc; c++) g[c] += P[(size_t)r * nc + c] * t[r];
        dense_solve(Kc, nc, g, y);
        for (int r = 0; r < n3; r++)
            for (int c = 0; c < nc; c++) x[r] += P[(size_t)r * nc + c] * y[c];
        for (int q = 0; q < nu; q++) dense_gs(K, n3, f, x, false);
        weft_precond_sa_amg.apply(st, f, z);
        double d = 0, m = max_abs_n(x, (size_t)n3);
        for (int k = 0; k < n3; k++) d = fmax(d, fabs(z[k] - x[k]));
        printf("V-cycle, %d sweep(s): |M^-1 f - dense| = %.2e of %.2e\n", nu, d, m);
        CHECK(m > 0.0);
        CHECK(d <= 1e-10 * m);
        free(K), free(P), free(Kc), free(f), free(x), free(t), free(z), free(g), free(y);
        weft_precond_sa_amg.destroy(st);
    }
    free_sys(&s);
}

/* PPCG with sa_amg converges where block Jacobi does, to CHOLMOD's x, in fewer
 * iterations, with and without positions; new values reuse the set-up. */
static void test_ppcg(void) {
    int sizes[2] = {12, 32};
    for (int q = 0; q < 2; q++) {
        sys s;
        if (!make_moved_sys(&s, sizes[q], 6, 3, 7)) return;
        int n3 = 3 * s.m.n;
        weft_error err = {{0}};
        weft_cholmod_solver *ch = weft_cholmod_solver_create(&err);
        double *xc = malloc((size_t)n3 * sizeof *xc);
        CHECK(weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, xc, &err) == WEFT_SOLVE_CONVERGED);
        weft_ppcg *pc = weft_ppcg_create(s.m.n, &err), *pc_nopos = weft_ppcg_create(s.m.n, &err);
        int its[3];
        for (int p = 0; p < 3; p++) {
            weft_ppcg_options o = weft_ppcg_defaults();
            o.precond = p == 0 ? &weft_precond_block_jacobi : &weft_precond_sa_amg;
            o.positions = p == 1 ? s.m.x : NULL;
            o.tol = 1e-12, o.max_iter = 5000;
            /* Without positions: a fresh solver, set up with translations only. */
            weft_solve_status st = weft_ppcg_solve(p == 2 ? pc_nopos : pc, s.A, &s.f, s.b, s.x,
                                                   &o, &its[p], &err);
            if (st != WEFT_SOLVE_CONVERGED) fprintf(stderr, "%s\n", err.msg);
            CHECK(st == WEFT_SOLVE_CONVERGED);
            double d = 0, m = 0;
            for (int k = 0; k < n3; k++) d = fmax(d, fabs(s.x[k] - xc[k])), m = fmax(m, fabs(xc[k]));
            printf("%d^2 %s%s: %d iterations to 1e-12, |x - x_cholmod| / |x| = %.1e\n", sizes[q],
                   o.precond->name, p == 2 ? " (no positions)" : "", its[p], d / m);
            CHECK(d <= 1e-8 * m);
            check_filtered(&s.f, s.x);
        }
        CHECK(its[1] < its[0] && its[2] < its[0]);
        if (q == 1) CHECK(4 * its[1] < its[0]);
        /* New values, same pattern: no new set-up, still converges. */
        int before = weft_ppcg_setups(pc), it2;
        for (int k = 0; k < 9 * s.A->nnzb; k++) s.A->val[k] *= 2.0;
        weft_ppcg_options o = weft_ppcg_defaults();
        o.precond = &weft_precond_sa_amg, o.positions = s.m.x, o.tol = 1e-12;
        CHECK(weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, &o, &it2, &err) == WEFT_SOLVE_CONVERGED);
        CHECK(weft_ppcg_setups(pc) == before);
        CHECK(it2 <= its[1] + 2);
        free(xc);
        weft_ppcg_free(&pc);
        weft_ppcg_free(&pc_nopos);
        weft_cholmod_solver_free(&ch);
        free_sys(&s);
    }
}

/* newton_euler with PPCG + sa_amg against CHOLMOD on hanging_cloth 10 × 10, 4 steps. */
static void test_newton_hanging(void) {
    const char *common[] = {"mesh.nx=10", "mesh.ny=10", "solver.tolerance=1e-10",
                            "ppcg.tolerance=1e-10", "ppcg.iterations=2000"};
    double *xs[2] = {NULL, NULL}, *x0 = NULL;
    int n3 = 0;
    long iters = 0;
    for (int c = 0; c < 2; c++) {
        const char *sets[8];
        int k = 0;
        for (int i = 0; i < 5; i++) sets[k++] = common[i];
        sets[k++] = c == 0 ? "solver.linear=cholmod" : "solver.linear=ppcg";
        sets[k++] = c == 0 ? NULL : "ppcg.preconditioner=sa_amg";
        sets[k] = NULL;
        weft_model m;
        weft_config *cfg = NULL;
        if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg)) return;
        n3 = 3 * m.n;
        if (!x0) {
            x0 = malloc((size_t)n3 * sizeof *x0);
            memcpy(x0, m.x, (size_t)n3 * sizeof *x0);
        }
        weft_profile prof;
        if (solver_steps(&weft_newton_euler, &m, cfg, 4, &prof)) {
            xs[c] = malloc((size_t)n3 * sizeof *xs[c]);
            memcpy(xs[c], m.x, (size_t)n3 * sizeof *xs[c]);
            if (c == 1) iters = (long)weft_profile_value(&prof, "linear_iterations");
        }
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    if (xs[0] && xs[1]) {
        double d = 0, moved = 0;
        for (int k = 0; k < n3; k++)
            d = fmax(d, fabs(xs[1][k] - xs[0][k])), moved = fmax(moved, fabs(xs[0][k] - x0[k]));
        printf("newton_euler 4 steps: |x_sa_amg - x_cholmod| = %.2e m of a %.2e m motion "
               "(%ld PCG iterations)\n", d, moved, iters);
        CHECK(moved > 1e-3);
        CHECK(d <= 1e-8 * moved);
        CHECK(iters > 0);
    }
    free(xs[0]), free(xs[1]), free(x0);
}

/* Process CPU time, s (the measuring machine is shared: wall clock says little). */
static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The process's resident memory now, MB (/proc/self/statm; 0 where unreadable). */
static double resident_mb(void) {
    long pages = 0, res = 0;
    FILE *fp = fopen("/proc/self/statm", "r");
    if (fp && fscanf(fp, "%ld %ld", &pages, &res) != 2) res = 0;
    if (fp) fclose(fp);
    return (double)res * 4096.0 / 1048576.0;
}

/* Median of v[0 .. n) (sorts v). */
static double median(double *v, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define MEASURE_MAX_REPS 32

/* Not a test: PPCG iterations and CPU times to 1e-6 for block Jacobi and sa_amg at N².
 * Each timed figure is the median of MEASURE_REPS repeats (default 3): CHOLMOD's
 * factorise + solve (analysis from a first solve excluded) and sa_amg's PPCG solve on a
 * set-up state (update + iterations, set-up excluded), alternating, and their ratio; then
 * sa_amg's update and one V-cycle. Run it with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
 * for one thread each (CPU time of the process).
 * SKIP_BJ: no block Jacobi; SKIP_CHOLMOD: no CHOLMOD; MEASURE_PBD = steps of PBD. */
static int measure(int argc, char **argv) {
    weft_sa_amg_settings set = defaults();
    int reps = getenv("MEASURE_REPS") ? atoi(getenv("MEASURE_REPS")) : 3;
    if (reps < 1) reps = 1;
    if (reps > MEASURE_MAX_REPS) reps = MEASURE_MAX_REPS;
    for (int a = 2; a < argc; a++) {
        char *eq = strchr(argv[a], '=');
        if (eq) { /* key=value of [sa_amg] */
            *eq = 0;
            size_t base = 0;
            weft_error e = {{0}};
            const weft_param *p = weft_param_find(weft_precond_sa_amg.settings, "sa_amg", argv[a], &base);
            if (!p || weft_param_parse(p, base, eq + 1, &set, "measure", "sa_amg", &e)) {
                fprintf(stderr, "bad setting %s: %s\n", argv[a], e.msg);
                return 1;
            }
            continue;
        }
        int nx = atoi(argv[a]);
        sys s;
        if (!make_moved_sys(&s, nx, 0, getenv("MEASURE_PBD") ? -atoi(getenv("MEASURE_PBD")) : 0, 5))
            return 1;
        weft_error err = {{0}};
        for (int i = 0; i < 3 * s.m.n; i++) s.b[i] = 0;
        for (int i = 0; i < s.m.n; i++) s.b[3 * i + 1] = -9.81 * s.m.mass[i];
        double tv[MEASURE_MAX_REPS], cv[MEASURE_MAX_REPS], rv[MEASURE_MAX_REPS];
        double uv[MEASURE_MAX_REPS], vv[MEASURE_MAX_REPS], t0, t1, t2;
        if (!getenv("SKIP_BJ")) { /* block Jacobi: one solve */
            weft_ppcg *pc = weft_ppcg_create(s.m.n, &err);
            weft_ppcg_options o = weft_ppcg_defaults();
            o.precond = &weft_precond_block_jacobi, o.tol = 1e-6, o.max_iter = 20000;
            int it = 0;
            t0 = cpu_now();
            weft_solve_status st = weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, &o, &it, &err);
            printf("%d^2: ppcg block_jacobi %5d iterations (%s), %.1f ms\n", nx, it,
                   weft_solve_status_name(st), 1e3 * (cpu_now() - t0));
            weft_ppcg_free(&pc);
        }
        /* CHOLMOD (analysis in its first solve) and PPCG + sa_amg (set-up in its first
         * solve), then the timed repeats alternating, so that both see the same load of
         * the shared machine; the ratio is the median of the repeats' ratios. */
        bool chol = !getenv("SKIP_CHOLMOD");
        weft_cholmod_solver *ch = chol ? weft_cholmod_solver_create(&err) : NULL;
        weft_ppcg *pc = weft_ppcg_create(s.m.n, &err);
        weft_ppcg_options o = weft_ppcg_defaults();
        o.precond = &weft_precond_sa_amg, o.positions = s.m.x, o.tol = 1e-6, o.max_iter = 20000;
        o.precond_settings = &set;
        int it = 0;
        t0 = cpu_now();
        if (chol) weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, s.x, &err);
        double rss0 = resident_mb();
        t1 = cpu_now();
        weft_solve_status sst = weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, &o, &it, &err);
        t2 = cpu_now();
        double rss1 = resident_mb();
        for (int r = 0; r < reps; r++) {
            double u0 = cpu_now();
            if (chol) weft_cholmod_solver_solve(ch, s.A, &s.f, s.b, s.x, &err);
            double u1 = cpu_now();
            sst = weft_ppcg_solve(pc, s.A, &s.f, s.b, s.x, &o, &it, &err);
            tv[r] = cpu_now() - u1, cv[r] = u1 - u0, rv[r] = cv[r] / tv[r];
        }
        double rmin = rv[0], rmax = rv[0];
        for (int r = 1; r < reps; r++) rmin = fmin(rmin, rv[r]), rmax = fmax(rmax, rv[r]);
        if (chol)
            printf("%d^2: cholmod analyse+factor+solve %.1f ms, factor+solve %.1f ms\n", nx,
                   1e3 * (t1 - t0), 1e3 * median(cv, reps));
        printf("%d^2: ppcg sa_amg %d iterations (%s), first solve (with set-up) %.1f ms, "
               "later %.1f ms; resident +%.0f MB after the first solve\n", nx, it,
               weft_solve_status_name(sst), 1e3 * (t2 - t1), 1e3 * median(tv, reps),
               rss1 - rss0);
        if (chol)
            printf("%d^2: cholmod factor+solve / sa_amg solve = %.2f (median of %d; %.2f .. "
                   "%.2f)\n", nx, median(rv, reps), reps, rmin, rmax);
        weft_ppcg_free(&pc);
        weft_cholmod_solver_free(&ch);
        /* Split: update (per matrix) and one V-cycle against one product with A. */
        void *st = weft_precond_sa_amg.create(s.m.n, &set, 1, &err);
        weft_precond_sa_amg.setup(st, s.A, s.m.x, &err);
        weft_precond_sa_amg.update(st, s.A, &s.f, s.m.x, &err);
        for (int r = 0; r < reps; r++) {
            t0 = cpu_now();
            weft_precond_sa_amg.update(st, s.A, &s.f, s.m.x, &err);
            t1 = cpu_now();
            for (int q = 0; q < 10; q++) weft_precond_sa_amg.apply(st, s.b, s.x);
            uv[r] = t1 - t0, vv[r] = (cpu_now() - t1) / 10;
        }
        t0 = cpu_now();
        for (int r = 0; r < 10; r++) weft_bsr_spmv(s.A, s.b, s.x, 1);
        double ax = (cpu_now() - t0) / 10;
        int L = weft_sa_amg_levels(st);
        printf("%d^2: sa_amg %d levels (", nx, L);
        for (int l = 0; l < L; l++) printf("%s%d", l ? " " : "", weft_sa_amg_level_size(st, l, NULL, NULL));
        printf(" DOFs), CPU: update %.1f ms, V-cycle %.2f ms, A x %.2f ms\n",
               1e3 * median(uv, reps), 1e3 * median(vv, reps), 1e3 * ax);
        weft_precond_sa_amg.destroy(st);
        free_sys(&s);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "measure")) return measure(argc, argv);
    static const check_case cases[] = {
        {"two_level", test_two_level},
        {"multi_level", test_multi_level},
        {"spd", test_spd},
        {"vcycle_dense", test_vcycle_dense},
        {"ppcg", test_ppcg},
        {"newton_hanging", test_newton_hanging},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
