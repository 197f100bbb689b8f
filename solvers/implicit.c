/* implicit.c — implicit time integrators of any energy model: Baraff & Witkin's linearised
 * backward Euler, backward Euler solved by Newton's method, and BDF2 (Pixar's Fizt) in the
 * same two forms, with constraint filters and a PPCG or CHOLMOD linear solve.
 *
 * Papers: Baraff & Witkin 1998, "Large Steps in Cloth Simulation": the implicit step
 * (eq. 6, linearised), the constraints section (filters; contact constraints released when
 * they pull); Kim & Eberle 2020, "Dynamic Deformables", ch. 8 (backward Euler, BDF2 as in
 * Fizt) and ch. 9 (filtered PCG, Tamstorf, Jones & McCormick 2015).
 *
 * Notation (SI): M lumped masses (kg), E(x) the model's elastic energy (J), K = ∇²E its
 * Hessian, PSD-projected per element unless [solver] hessian = exact (N/m), g gravity
 * (m/s²), h = dt (s), D = αM + βK_n Rayleigh damping ([solver] damping_alpha α in 1/s,
 * damping_beta β in s), K_n = K(x_n).
 *
 * Both schemes are written with one step ĥ, an anchor a and a velocity b̄:
 *     backward Euler:  ĥ = h,     a = x_n,                 b̄ = v_n
 *     BDF2:            ĥ = 2h/3,  a = (4x_n − x_{n−1})/3,  b̄ = (4v_n − v_{n−1})/3
 * so that the step is   x_{n+1} = a + ĥ v_{n+1},   M (v_{n+1} − b̄) = ĥ f(x_{n+1}, v_{n+1}),
 * with f(x, v) = −∇E(x) + M g − D v. (BDF2's first step is backward Euler: there is no
 * x_{n−1} yet.)
 *
 * Linearised (implicit_euler, bdf2): f linearised about (x_n, v_n), f(x) ≈ f_n − K_n (x − x_n),
 * gives one linear system for Δv = v_{n+1} − v_n (Baraff & Witkin eq. 6 when ĥ = h):
 *     (M + ĥ D + ĥ² K_n) Δv = M (b̄ − v_n) + ĥ [f_n − K_n (a − x_n) − ĥ K_n v_n − D v_n],
 *     f_n = −∇E(x_n) + M g.
 *
 * Newton (newton_euler, bdf2_newton): x_{n+1} minimises the incremental potential
 *     G(x) = ½ (x − x̃)ᵀ M (x − x̃) / ĥ² + E(x) + (x − a)ᵀ D (x − a) / (2ĥ),
 *     x̃ = a + ĥ b̄ + ĥ² g,
 * whose stationarity is the scheme above (D frozen at K_n keeps G a potential). Each
 * iteration solves (M/ĥ² + K(x) + D/ĥ) Δx = −∇G(x) on the filtered subspace, then
 * backtracks (halving, Armijo constant 1e-4) until G decreases, so G never increases
 * within a step beyond rounding: once the predicted decrease −∇G·Δx is below G's rounding
 * (1e-12 |G|, reached at a relative residual of about √ε), the full step is taken while
 * it halves ‖S ∇G‖, and the step ends when it does not. It starts from x̃ (with pins and contacts applied; from x_n when G(x̃)
 * is not finite, e.g. an inverted element) and stops when ‖S ∇G‖ ≤ tolerance ‖S ∇G(x⁰)‖,
 * at the iteration cap ([solver] iterations), or when G stagnates at rounding level.
 * v_{n+1} = (x_{n+1} − a)/ĥ.
 *
 * Constraints (Baraff & Witkin's constraints section, Kim & Eberle §9.1) are filters
 * (lib/linalg/weft_linsolve.h):
 *   - a pinned vertex has 3 constrained DOFs and moves on its scripted path;
 *   - a free vertex whose start position (x̃) lies inside a plane or sphere collider (within
 *     the contact margin) is projected onto the surface and gets a 1-DOF filter along the
 *     collider's normal n̂: it slides on the tangent plane. After the solve the constraint
 *     force is F = (A Δv − rhs)/ĥ (linearised) or ∇G (Newton, the unfiltered gradient the
 *     filter absorbed); where n̂·F < 0 the collider would pull, so the filter is released;
 *     a free vertex that ends inside a collider is projected and constrained. The solve is
 *     repeated up to 4 times while the contact set changes (for Newton, the set is updated
 *     after each iteration). Coulomb friction then takes up to μ ĥ (n̂·F)/m_i off the
 *     tangential velocity relative to the collider. A moving collider is taken where it
 *     stands at t + h.
 * Box colliders and triangle-mesh obstacles are left to the collision pipeline
 * ([collision] pipeline = bridson), which runs after any solver's step.
 *
 * A system that is not positive definite (only possible with hessian = exact) is solved
 * again with the PSD-projected Hessian, which Newton then keeps for the rest of the step;
 * this is counted in the statistics and reported once on stderr; a non-finite energy, gradient or Hessian names the element; a Newton step that is
 * not a descent direction, or a line search that cannot decrease G, stops the run with a
 * message. The common metrics are reported at iteration 0 (the start point) and after
 * every Newton iteration (linearised: after the one solve), with BDF2's own G.
 */
#include "weft_solvers.h"
#include "weft_linsolve.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTACT_PASSES 4
#define ARMIJO 1e-4
#define MAX_BACKTRACKS 40
#define G_ROUNDING 1e-12 /* relative change of G taken as rounding */

typedef struct im_state {
    const weft_solver_type *type;
    bool newton, bdf2;
    int n;
    weft_assembly *as;
    weft_bsr *A;      /* the assembly's matrix: K, then the system matrix */
    double *Kn_val;   /* K(x_n) values for stiffness-proportional damping (β > 0) */
    weft_filter f;
    weft_ppcg *pcg;
    weft_cholmod_solver *chol;
    /* 3n vectors */
    double *x, *g, *gE, *dx, *rhs, *xt, *a, *vbar, *w, *q, *xtrial, *xprev, *vprev;
    double *dmass; /* n: the mass coefficient added to A's diagonal */
    int *contact;  /* n: collider index of an active contact, -1 if none */
    double *cn;    /* 3n: the contact's unit normal */
    bool have_prev; /* BDF2: x_{n−1}, v_{n−1} are known */
    bool warned_indefinite;
    int step;
    weft_monitor *mon; /* for the PPCG callback */
    int iter;          /* current inner iteration, for the linear log */
    weft_implicit_stats stats;
} im_state;

static void im_destroy(void *state) {
    im_state *st = state;
    if (!st) return;
    weft_assembly_free(&st->as);
    weft_filter_destroy(&st->f);
    weft_ppcg_free(&st->pcg);
    weft_cholmod_solver_free(&st->chol);
    double *v[] = {st->Kn_val, st->x, st->g, st->gE, st->dx, st->rhs, st->xt, st->a, st->vbar,
                   st->w, st->q, st->xtrial, st->xprev, st->vprev, st->dmass, st->cn};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) free(v[i]);
    free(st->contact);
    free(st);
}

static void *im_create(const weft_model *m, const weft_solver_type *type, bool newton,
                       bool bdf2, weft_error *err) {
    im_state *st = calloc(1, sizeof *st);
    if (!st) goto nomem;
    st->type = type, st->newton = newton, st->bdf2 = bdf2, st->n = m->n;
    size_t n = m->n > 0 ? (size_t)m->n : 1, n3 = 3 * n;
    double **v[] = {&st->x, &st->g, &st->gE, &st->dx, &st->rhs, &st->xt, &st->a, &st->vbar,
                    &st->w, &st->q, &st->xtrial, &st->xprev, &st->vprev, &st->cn};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!(*v[i] = calloc(n3, sizeof(double)))) goto nomem;
    if (!(st->dmass = calloc(n, sizeof(double))) || !(st->contact = malloc(n * sizeof(int))))
        goto nomem;
    for (size_t i = 0; i < n; i++) st->contact[i] = -1;
    if (weft_filter_create(&st->f, m->n, err)) goto fail;
    st->as = weft_assembly_create(m, err);
    if (!st->as) goto fail;
    st->A = weft_assembly_matrix(st->as);
    if (m->solver.damping_beta > 0.0 &&
        !(st->Kn_val = malloc(9 * (size_t)(st->A->nnzb > 0 ? st->A->nnzb : 1) * sizeof(double))))
        goto nomem;
    if (m->solver.linear == WEFT_LINEAR_PPCG) {
        if (!(st->pcg = weft_ppcg_create(m->n, err))) goto fail;
    } else {
        /* Debian's CHOLMOD parallelises some loops with OpenMP at the default team size
         * (every core): its idle workers then spin between calls, taking a shared
         * machine's cores from the solve. Give it [solver] threads, like everything else. */
        omp_set_num_threads(m->solver.threads);
        if (!(st->chol = weft_cholmod_solver_create(err))) goto fail;
    }
    return st;
nomem:
    weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the %s solver", type->name);
fail:
    im_destroy(st);
    return NULL;
}

void weft_implicit_stats_get(const void *state, weft_implicit_stats *out) {
    const im_state *st = state;
    *out = st->stats;
    out->ordering = "none";
    if (st->chol) {
        out->analyses = weft_cholmod_solver_analyses(st->chol);
        out->ordering = weft_cholmod_solver_ordering(st->chol);
        weft_cholmod_timings total;
        weft_cholmod_solver_timings(st->chol, NULL, &total);
        out->factor_s = total.factor_s;
        out->solve_s = total.solve_s;
        out->analyse_s = total.analyse_s;
    }
}

/* ------------------------------------------------------------------------------ */
/* Pieces shared by both forms                                                     */
/* ------------------------------------------------------------------------------ */

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double norm(const double *a, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

/* Fails with code, the message "<prefix>: <err's current message>" (err may be NULL). */
static int fail_because(weft_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_because(weft_error *err, int code, const char *fmt, ...) {
    if (!err) return code;
    char why[sizeof err->msg], prefix[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    return weft_fail(err, code, "%s: %s", prefix, why[0] ? why : "unknown cause");
}

/* The scheme's ĥ, anchor a, velocity b̄ and target x̃ = a + ĥ b̄ + ĥ² g for this step. */
static double setup_scheme(im_state *st, const weft_model *m) {
    const double h = m->dt;
    const bool two = st->bdf2 && st->have_prev;
    const double hh = two ? 2.0 * h / 3.0 : h;
    for (int i = 0; i < 3 * m->n; i++) {
        if (two) {
            st->a[i] = (4.0 * m->x[i] - st->xprev[i]) / 3.0;
            st->vbar[i] = (4.0 * m->v[i] - st->vprev[i]) / 3.0;
        } else {
            st->a[i] = m->x[i];
            st->vbar[i] = m->v[i];
        }
        st->xt[i] = st->a[i] + hh * st->vbar[i] + hh * hh * m->gravity[i % 3];
    }
    return hh;
}

/* Signed distance (minus the margin) of p from collider c at time t, normal in n. */
static double contact_gap(const weft_model *m, const weft_collider *c, const double *p, double t,
                          double n[3]) {
    return weft_collider_distance_at(c, p, t, n) - m->contact_margin;
}

/* True for the colliders the filters handle (planes and spheres). */
static bool filtered_collider(const weft_collider *c) {
    return c->kind == WEFT_COLLIDER_PLANE || c->kind == WEFT_COLLIDER_SPHERE;
}

/* Free vertex i at x_i inside collider c at time t: moves it onto the surface (offset by
 * the margin) and records the contact. Returns true if it was inside. */
static bool catch_contact(im_state *st, const weft_model *m, int i, double t, double *x) {
    for (int c = 0; c < m->ncolliders; c++) {
        const weft_collider *col = &m->colliders[c];
        if (!filtered_collider(col)) continue;
        double n[3];
        double d = contact_gap(m, col, &x[3 * i], t, n);
        if (!(d < 0.0)) continue;
        for (int k = 0; k < 3; k++) x[3 * i + k] -= d * n[k];
        st->contact[i] = c;
        memcpy(&st->cn[3 * i], n, sizeof n);
        return true;
    }
    return false;
}

/* Rebuilds the filters: pins (3 DOFs) and active contacts (1 DOF along the normal), with
 * prescribed values z from zpin (3n, or NULL for 0) and zc (per-vertex normal component,
 * or NULL for 0). */
static int build_filters(im_state *st, const weft_model *m, const double *zpin,
                         const double *zc, weft_error *err) {
    weft_filter_free_all(&st->f);
    for (int i = 0; i < m->n; i++) {
        if (m->pin[i] >= 0) {
            const double zero[3] = {0, 0, 0};
            weft_filter_pin(&st->f, i, zpin ? &zpin[3 * i] : zero);
        } else if (st->contact[i] >= 0) {
            const double *n = &st->cn[3 * i];
            double s = zc ? zc[i] : 0.0;
            const double z[3] = {s * n[0], s * n[1], s * n[2]};
            if (weft_filter_plane(&st->f, i, n, z, err)) return WEFT_ERR_DIVERGED;
        }
    }
    return WEFT_OK;
}

static void pcg_callback(int iter, double rel, void *user) {
    im_state *st = user;
    weft_monitor_linear(st->mon, st->iter, iter, rel, "ok");
}

/* Relative residual ‖S (b − A x)‖ / ‖S (b − A z)‖ of a solve (scratch: w, q). */
static double filtered_residual(im_state *st, const double *b, const double *x, int threads) {
    size_t n3 = 3 * (size_t)st->n;
    weft_bsr_spmv(st->A, x, st->w, threads);
    for (size_t i = 0; i < n3; i++) st->w[i] = b[i] - st->w[i];
    weft_filter_apply(&st->f, st->w, st->w);
    double r = norm(st->w, n3);
    weft_bsr_spmv(st->A, st->f.z, st->q, threads);
    for (size_t i = 0; i < n3; i++) st->q[i] = b[i] - st->q[i];
    weft_filter_apply(&st->f, st->q, st->q);
    double r0 = norm(st->q, n3);
    return r0 > 0.0 ? r / r0 : r;
}

/* Solves A x = b on the filtered subspace with the configured linear solver. */
static weft_solve_status linear_solve(im_state *st, const weft_model *m, const double *b,
                                      double *x, weft_error *err) {
    double t0 = weft_now();
    weft_solve_status s;
    st->stats.linear_solves++;
    if (st->pcg) {
        weft_ppcg_options o = weft_ppcg_defaults();
        o.precond = (weft_precond)m->solver.preconditioner;
        o.tol = m->solver.cg_tolerance;
        o.max_iter = m->solver.cg_iterations;
        o.threads = m->solver.threads;
        o.callback = pcg_callback;
        o.user = st;
        int it = 0;
        s = weft_ppcg_solve(st->pcg, st->A, &st->f, b, x, &o, &it, err);
        st->stats.linear_iterations += it;
        if (s == WEFT_SOLVE_MAX_ITER) {
            weft_monitor_linear(st->mon, st->iter, it, NAN, "cap");
            s = WEFT_SOLVE_CONVERGED; /* an inexact solve: the step goes on */
        }
    } else {
        int before = weft_cholmod_solver_analyses(st->chol);
        s = weft_cholmod_solver_solve(st->chol, st->A, &st->f, b, x, err);
        double rel = s == WEFT_SOLVE_CONVERGED ? filtered_residual(st, b, x, m->solver.threads)
                                               : NAN;
        char word[64]; /* a solve that also analysed the pattern names CHOLMOD's ordering */
        if (s == WEFT_SOLVE_CONVERGED && weft_cholmod_solver_analyses(st->chol) > before)
            snprintf(word, sizeof word, "analysed:%s", weft_cholmod_solver_ordering(st->chol));
        else
            snprintf(word, sizeof word, "%s", weft_solve_status_name(s));
        weft_monitor_linear(st->mon, st->iter, 1, rel, word);
    }
    st->stats.linear_s += weft_now() - t0;
    return s;
}

/* Assembles K (mode per [solver] hessian, or projected when force_projected) and ∇E at x
 * into A and gE; returns E(x), or +inf with the element named in err. */
static double assemble(im_state *st, const weft_model *m, const double *x, bool force_projected,
                       weft_error *err) {
    double t0 = weft_now();
    weft_hessian_mode mode = m->solver.hessian == WEFT_SOLVER_HESSIAN_EXACT && !force_projected
                                 ? WEFT_HESSIAN_EXACT
                             : m->solver.hessian == WEFT_SOLVER_HESSIAN_CLAMP ? WEFT_HESSIAN_CLAMP
                                                                              : WEFT_HESSIAN_ANALYTIC;
    double E = weft_assembly_run(st->as, m, x, mode, st->gE, m->solver.threads);
    if (!isfinite(E)) weft_assembly_check(st->as, err);
    st->stats.assemble_s += weft_now() - t0;
    return E;
}

/* Turns the assembled K into s K + diag(dmass) (A's values in place). */
static void form_system(im_state *st, double s) {
    const size_t nv = 9 * (size_t)st->A->nnzb;
    if (s != 1.0)
        for (size_t k = 0; k < nv; k++) st->A->val[k] *= s;
    weft_bsr_add_diagonal(st->A, st->dmass);
}

/* Reports a not-SPD system once per run on stderr. */
static void note_indefinite(im_state *st, const char *msg) {
    st->stats.fallbacks++;
    if (st->warned_indefinite) return;
    st->warned_indefinite = true;
    fprintf(stderr, "warning: %s: step %d: %s; solving with the PSD-projected Hessian instead "
            "(reported once; counted in the statistics)\n", st->type->name, st->step, msg);
}

/* Velocity of a collider at contact c (0 for a static one). */
static const double *collider_velocity(const weft_model *m, int c) {
    return m->colliders[c].velocity;
}

/* Coulomb friction on the active contacts: the tangential velocity relative to the collider
 * loses up to μ ĥ Fn / m_i (Fn = n̂·F ≥ 0, F the per-vertex constraint force in F3, N); x
 * moves by ĥ times the velocity change. */
static void apply_friction(im_state *st, const weft_model *m, const double *F3, double hh,
                           double *x, double *v) {
    for (int i = 0; i < m->n; i++) {
        int c = st->contact[i];
        if (c < 0 || m->pin[i] >= 0) continue;
        const double mu = m->colliders[c].friction;
        const double *n = &st->cn[3 * i], *u = collider_velocity(m, c);
        double fn = dot3(&F3[3 * i], n);
        if (!(mu > 0.0) || !(fn > 0.0)) continue;
        double vr[3] = {v[3 * i] - u[0], v[3 * i + 1] - u[1], v[3 * i + 2] - u[2]};
        double vn = dot3(vr, n);
        double vt[3] = {vr[0] - vn * n[0], vr[1] - vn * n[1], vr[2] - vn * n[2]};
        double vt_len = norm(vt, 3);
        if (!(vt_len > 0.0)) continue;
        double dv = fmin(vt_len, mu * hh * fn / m->mass[i]);
        for (int k = 0; k < 3; k++) {
            double d = -dv * vt[k] / vt_len;
            v[3 * i + k] += d;
            x[3 * i + k] += hh * d;
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* Linearised step (Baraff & Witkin)                                               */
/* ------------------------------------------------------------------------------ */

static int linearised_step(im_state *st, weft_model *m, weft_monitor *mon, weft_error *err) {
    const int n = m->n;
    const size_t n3 = 3 * (size_t)n;
    const double h = m->dt, t1 = m->t + h;
    const double hh = setup_scheme(st, m);
    const double al = m->solver.damping_alpha, be = m->solver.damping_beta;
    if (st->bdf2) weft_monitor_set_target(mon, st->xt, hh);

    /* Iteration 0: the inertial target, pins at t + h (as every solver reports it). */
    memcpy(st->x, st->xt, n3 * sizeof *st->x);
    weft_model_apply_pins(m, t1, st->x);
    for (int i = 0; i < n; i++) st->contact[i] = -1;
    for (int i = 0; i < n; i++)
        if (m->pin[i] < 0 && m->w[i] > 0.0) catch_contact(st, m, i, t1, st->x);
    weft_monitor_report(mon, st->x, 0, false);

    bool projected = false;
    for (;;) {
        double E = assemble(st, m, m->x, projected, err);
        if (!isfinite(E))
            return fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d", st->type->name, st->step);
        double t0 = weft_now();
        /* rhs = M (b̄ − v_n) + ĥ [−∇E + M g − α M v_n] − ĥ K (a − x_n + (ĥ + β) v_n). */
        for (size_t k = 0; k < n3; k++)
            st->w[k] = st->a[k] - m->x[k] + (hh + be) * m->v[k];
        weft_bsr_spmv(st->A, st->w, st->q, m->solver.threads);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                size_t j = 3 * (size_t)i + k;
                double mi = m->mass[i];
                st->rhs[j] = mi * (st->vbar[j] - m->v[j]) +
                             hh * (-st->gE[j] + mi * m->gravity[k] - al * mi * m->v[j]) -
                             hh * st->q[j];
            }
        for (int i = 0; i < n; i++) st->dmass[i] = m->mass[i] * (1.0 + hh * al);
        form_system(st, hh * be + hh * hh);
        st->stats.filter_s += weft_now() - t0;

        weft_solve_status s = WEFT_SOLVE_CONVERGED;
        for (int pass = 0; pass < MAX_CONTACT_PASSES; pass++) {
            /* Prescribed Δv: pins reach their path, contacts the surface point q. */
            for (int i = 0; i < n; i++) {
                double *z = &st->w[3 * i];
                if (m->pin[i] >= 0) {
                    for (int k = 0; k < 3; k++)
                        z[k] = (st->x[3 * i + k] - st->a[3 * i + k]) / hh - m->v[3 * i + k];
                } else if (st->contact[i] >= 0) {
                    /* n̂·v_{n+1} = n̂·(q − a)/ĥ, q the contact point stored in x. */
                    double d[3];
                    for (int k = 0; k < 3; k++)
                        d[k] = (st->x[3 * i + k] - st->a[3 * i + k]) / hh - m->v[3 * i + k];
                    st->q[i] = dot3(d, &st->cn[3 * i]);
                }
            }
            int rc = build_filters(st, m, st->w, st->q, err);
            if (rc) return rc;
            st->iter = 1;
            s = linear_solve(st, m, st->rhs, st->dx, err);
            if (s != WEFT_SOLVE_CONVERGED) break;
            if (m->ncolliders == 0) break;
            /* Constraint impulses F ĥ = A Δv − rhs: release pulling contacts; catch new
             * penetrations of x = a + ĥ (v_n + Δv). */
            weft_bsr_spmv(st->A, st->dx, st->g, m->solver.threads);
            bool changed = false;
            for (int i = 0; i < n; i++) {
                if (m->pin[i] >= 0 || m->w[i] == 0.0) continue;
                double *xi = &st->xtrial[3 * i];
                for (int k = 0; k < 3; k++)
                    xi[k] = st->a[3 * i + k] + hh * (m->v[3 * i + k] + st->dx[3 * i + k]);
                if (st->contact[i] >= 0) {
                    double F[3];
                    for (int k = 0; k < 3; k++)
                        F[k] = st->g[3 * i + k] - st->rhs[3 * i + k];
                    if (dot3(F, &st->cn[3 * i]) < 0.0) {
                        st->contact[i] = -1;
                        st->stats.contact_releases++;
                        changed = true;
                    }
                } else if (catch_contact(st, m, i, t1, st->xtrial)) {
                    memcpy(&st->x[3 * i], xi, 3 * sizeof(double));
                    changed = true;
                }
            }
            if (!changed) break;
        }
        if (s == WEFT_SOLVE_INDEFINITE && !projected &&
            m->solver.hessian == WEFT_SOLVER_HESSIAN_EXACT) {
            note_indefinite(st, err ? err->msg : "the system is not positive definite");
            projected = true;
            continue;
        }
        if (s != WEFT_SOLVE_CONVERGED)
            return fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d: linear solve %s",
                                st->type->name, st->step, weft_solve_status_name(s));
        break;
    }
    /* v_{n+1} = v_n + Δv, x_{n+1} = a + ĥ v_{n+1}; pins exactly on their paths. */
    if (st->bdf2) {
        memcpy(st->xprev, m->x, n3 * sizeof *st->xprev);
        memcpy(st->vprev, m->v, n3 * sizeof *st->vprev);
        st->have_prev = true;
    }
    for (int i = 0; i < n; i++) {
        double *v = &m->v[3 * i], *x = &m->x[3 * i];
        for (int k = 0; k < 3; k++) {
            v[k] += st->dx[3 * i + k];
            x[k] = m->pin[i] >= 0 ? st->x[3 * i + k] : st->a[3 * i + k] + hh * v[k];
        }
    }
    if (m->ncolliders > 0) {
        for (size_t k = 0; k < n3; k++) st->g[k] = (st->g[k] - st->rhs[k]) / hh;
        apply_friction(st, m, st->g, hh, m->x, m->v);
    }
    st->stats.newton_iterations++;
    m->t = t1;
    weft_monitor_report(mon, m->x, 1, true);
    return WEFT_OK;
}

/* ------------------------------------------------------------------------------ */
/* Newton on the incremental potential                                             */
/* ------------------------------------------------------------------------------ */

/* G(x) and, if grad is non-NULL, ∇G(x) (3n, unfiltered) with E's gradient from gE when
 * gE_known, else computed here. Kn: the damping matrix values (β > 0), else NULL. */
static double potential(im_state *st, const weft_model *m, const double *x, double hh,
                        double *grad, bool gE_known) {
    const int n = m->n;
    const double al = m->solver.damping_alpha, be = m->solver.damping_beta;
    double E;
    if (grad) {
        if (!gE_known) {
            memset(st->gE, 0, 3 * (size_t)n * sizeof *st->gE);
            E = weft_model_gradient(m, x, st->gE);
        } else {
            E = NAN; /* the caller adds E */
        }
    } else {
        E = weft_model_energy(m, x);
    }
    double inertia = 0.0, damp = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            size_t j = 3 * (size_t)i + k;
            double d = x[j] - st->xt[j], e = x[j] - st->a[j];
            inertia += 0.5 * m->mass[i] * d * d / (hh * hh);
            damp += 0.5 * al * m->mass[i] * e * e / hh;
            if (grad) grad[j] = st->gE[j] + m->mass[i] * (d / (hh * hh) + al * e / hh);
        }
    if (be > 0.0) { /* (β/2ĥ) eᵀ K_n e, e = x − a */
        weft_bsr Kn = *st->A;
        Kn.val = st->Kn_val;
        for (size_t j = 0; j < 3 * (size_t)n; j++) st->w[j] = x[j] - st->a[j];
        weft_bsr_spmv(&Kn, st->w, st->q, m->solver.threads);
        double s = 0.0;
        for (size_t j = 0; j < 3 * (size_t)n; j++) {
            s += st->w[j] * st->q[j];
            if (grad) grad[j] += be * st->q[j] / hh;
        }
        damp += 0.5 * be * s / hh;
    }
    return (isnan(E) ? 0.0 : E) + inertia + damp;
}

/* ‖S ∇G‖ over the unconstrained DOFs (scratch: w). */
static double filtered_norm(im_state *st, const double *grad) {
    weft_filter_apply(&st->f, grad, st->w);
    return norm(st->w, 3 * (size_t)st->n);
}

/* Updates the contact set at the Newton iterate x: releases contacts whose constraint force
 * ∇G_i·n̂ pulls, catches free vertices inside a collider. Returns true on a change. */
static bool update_contacts(im_state *st, const weft_model *m, double t1, double *x,
                            const double *grad) {
    bool changed = false;
    for (int i = 0; i < m->n; i++) {
        if (m->pin[i] >= 0 || m->w[i] == 0.0) continue;
        if (st->contact[i] >= 0) {
            if (dot3(&grad[3 * i], &st->cn[3 * i]) < 0.0) {
                st->contact[i] = -1;
                st->stats.contact_releases++;
                changed = true;
            }
        } else if (catch_contact(st, m, i, t1, x)) {
            changed = true;
        }
    }
    return changed;
}

static int newton_step(im_state *st, weft_model *m, weft_monitor *mon, weft_error *err) {
    const int n = m->n;
    const size_t n3 = 3 * (size_t)n;
    const double h = m->dt, t1 = m->t + h;
    const double hh = setup_scheme(st, m);
    const double al = m->solver.damping_alpha, be = m->solver.damping_beta;
    const int cap = m->solver.iterations;
    const char *name = st->type->name;
    if (st->bdf2) weft_monitor_set_target(mon, st->xt, hh);

    if (be > 0.0) { /* K_n for the damping term, frozen over the step */
        double E = assemble(st, m, m->x, true, err);
        if (!isfinite(E))
            return fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d", name, st->step);
        memcpy(st->Kn_val, st->A->val, 9 * (size_t)st->A->nnzb * sizeof(double));
    }
    /* Start at x̃ with pins on their paths and contacts on the surface; at x_n when G is
     * not finite there (an element outside its domain). */
    memcpy(st->x, st->xt, n3 * sizeof *st->x);
    weft_model_apply_pins(m, t1, st->x);
    for (int i = 0; i < n; i++) st->contact[i] = -1;
    for (int i = 0; i < n; i++)
        if (m->pin[i] < 0 && m->w[i] > 0.0) catch_contact(st, m, i, t1, st->x);
    double G = potential(st, m, st->x, hh, st->g, false);
    if (!isfinite(G)) {
        memcpy(st->x, m->x, n3 * sizeof *st->x);
        weft_model_apply_pins(m, t1, st->x);
        for (int i = 0; i < n; i++) st->contact[i] = -1;
        for (int i = 0; i < n; i++)
            if (m->pin[i] < 0 && m->w[i] > 0.0) catch_contact(st, m, i, t1, st->x);
        G = potential(st, m, st->x, hh, st->g, false);
        if (!isfinite(G)) {
            double E = assemble(st, m, st->x, true, err);
            if (isfinite(E)) weft_fail(err, WEFT_ERR_DIVERGED, "non-finite positions");
            return fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d: the incremental "
                                "potential is not finite at the start point", name, st->step);
        }
    }
    int rc = build_filters(st, m, NULL, NULL, err);
    if (rc) return rc;
    double r0 = filtered_norm(st, st->g), r = r0;
    const double tol = m->solver.tolerance;
    weft_monitor_report(mon, st->x, 0, r0 == 0.0);

    bool projected = false;
    for (int k = 1; k <= cap && r0 > 0.0; k++) {
        st->iter = k;
        double E = assemble(st, m, st->x, projected, err);
        if (!isfinite(E))
            return fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d, iteration %d", name,
                                st->step, k);
        double t0 = weft_now();
        /* A = K + (β/ĥ) K_n + M (1/ĥ² + α/ĥ); rhs = −∇G. */
        if (be > 0.0)
            for (size_t j = 0; j < 9 * (size_t)st->A->nnzb; j++)
                st->A->val[j] += be / hh * st->Kn_val[j];
        for (int i = 0; i < n; i++) st->dmass[i] = m->mass[i] * (1.0 / (hh * hh) + al / hh);
        form_system(st, 1.0);
        for (size_t j = 0; j < n3; j++) st->rhs[j] = -st->g[j];
        st->stats.filter_s += weft_now() - t0;
        weft_solve_status s = linear_solve(st, m, st->rhs, st->dx, err);
        if (s == WEFT_SOLVE_INDEFINITE && !projected &&
            m->solver.hessian == WEFT_SOLVER_HESSIAN_EXACT) {
            note_indefinite(st, err ? err->msg : "the system is not positive definite");
            projected = true; /* for the rest of this step: no second failed factorisation */
            k--;
            continue;
        }
        if (s != WEFT_SOLVE_CONVERGED)
            return fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d, iteration %d: linear "
                                "solve %s", name, st->step, k, weft_solve_status_name(s));
        st->stats.newton_iterations++;

        /* Backtracking line search on G. */
        t0 = weft_now();
        double slope = 0.0;
        for (size_t j = 0; j < n3; j++) slope += st->g[j] * st->dx[j];
        if (!(slope < 0.0)) {
            if (r <= 1e3 * tol * r0 || slope == 0.0) { /* at rounding level: done */
                weft_monitor_report(mon, st->x, k, true);
                break;
            }
            return weft_fail(err, WEFT_ERR_DIVERGED, "%s: step %d, iteration %d: the Newton "
                             "direction is not a descent direction (gradient·dx = %.3g, relative "
                             "residual %.3g)", name, st->step, k, slope, r / r0);
        }
        double alpha = 1.0, Gt = INFINITY;
        int bt = 0;
        if (-slope <= G_ROUNDING * fabs(G)) {
            /* G cannot resolve this step (its decrease is about −slope/2): near the
             * solution, at a relative residual of about √ε, rounding decides Armijo's
             * test. Take the full step while it halves ‖S ∇G‖ without raising G beyond
             * rounding; otherwise the residual is at rounding too: done (scratch: rhs,
             * free after the solve). */
            for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->x[j] + st->dx[j];
            Gt = potential(st, m, st->xtrial, hh, st->rhs, false);
            if (!(Gt <= G + G_ROUNDING * fabs(G) && filtered_norm(st, st->rhs) <= 0.5 * r)) {
                weft_monitor_report(mon, st->x, k, true);
                break;
            }
            bt = -1; /* no line search */
        }
        for (; bt >= 0 && bt <= MAX_BACKTRACKS; bt++) {
            for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->x[j] + alpha * st->dx[j];
            Gt = potential(st, m, st->xtrial, hh, NULL, false);
            if (Gt <= G + ARMIJO * alpha * slope) break;
            alpha *= 0.5;
        }
        st->stats.line_search_s += weft_now() - t0;
        if (bt > MAX_BACKTRACKS) {
            /* G cannot decrease along a descent direction: rounding has taken over. */
            if (r <= 1e3 * tol * r0 || fabs(Gt - G) <= G_ROUNDING * fabs(G)) {
                weft_monitor_report(mon, st->x, k, true);
                break;
            }
            return weft_fail(err, WEFT_ERR_DIVERGED, "%s: step %d, iteration %d: the line "
                             "search could not decrease G (relative residual %.3g): the "
                             "Hessian does not describe the energy", name, st->step, k, r / r0);
        }
        if (bt < 0) bt = 0;
        st->stats.backtracks += bt;
        memcpy(st->x, st->xtrial, n3 * sizeof *st->x);
        G = potential(st, m, st->x, hh, st->g, false);
        bool changed = false;
        if (m->ncolliders > 0 && update_contacts(st, m, t1, st->x, st->g)) {
            changed = true;
            G = potential(st, m, st->x, hh, st->g, false);
            if ((rc = build_filters(st, m, NULL, NULL, err))) return rc;
        }
        r = filtered_norm(st, st->g);
        if (!isfinite(r) || !isfinite(G))
            return weft_fail(err, WEFT_ERR_DIVERGED, "%s: step %d, iteration %d: non-finite "
                             "residual", name, st->step, k);
        bool done = !changed && r <= tol * r0;
        weft_monitor_report(mon, st->x, k, done || k == cap);
        if (done) break;
    }
    if (st->bdf2) {
        memcpy(st->xprev, m->x, n3 * sizeof *st->xprev);
        memcpy(st->vprev, m->v, n3 * sizeof *st->vprev);
        st->have_prev = true;
    }
    for (size_t j = 0; j < n3; j++) {
        m->v[j] = (st->x[j] - st->a[j]) / hh;
        m->x[j] = st->x[j];
    }
    if (m->ncolliders > 0) apply_friction(st, m, st->g, hh, m->x, m->v);
    m->t = t1;
    return WEFT_OK;
}

static int im_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    im_state *st = state;
    st->mon = mon;
    /* A non-finite state (bad input, or a caller stepping on after a failure) is named
     * here rather than reported later as a failed solve or a non-finite potential. */
    for (int j = 0; j < 3 * m->n; j++)
        if (!isfinite(m->x[j]) || !isfinite(m->v[j]))
            return weft_fail(err, WEFT_ERR_DIVERGED, "%s: step %d: non-finite %s of vertex %d "
                             "at the start of the step (t = %.6g s)", st->type->name, st->step,
                             isfinite(m->x[j]) ? "velocity" : "position", j / 3, m->t);
    int rc = st->newton ? newton_step(st, m, mon, err) : linearised_step(st, m, mon, err);
    st->step++;
    return rc;
}

/* ------------------------------------------------------------------------------ */
/* The four registered solvers                                                     */
/* ------------------------------------------------------------------------------ */

static void *create_ie(const weft_model *m, weft_error *err) {
    return im_create(m, &weft_implicit_euler, false, false, err);
}
static void *create_ne(const weft_model *m, weft_error *err) {
    return im_create(m, &weft_newton_euler, true, false, err);
}
static void *create_b2(const weft_model *m, weft_error *err) {
    return im_create(m, &weft_bdf2, false, true, err);
}
static void *create_b2n(const weft_model *m, weft_error *err) {
    return im_create(m, &weft_bdf2_newton, true, true, err);
}

const weft_solver_type weft_implicit_euler = {
    .name = "implicit_euler",
    .paper = "Baraff & Witkin 1998, eq. 6 (linearised backward Euler)",
    .iteration = "the step's one linear solve",
    .summary = "backward Euler linearised about x_n: one sparse solve per step, Rayleigh "
               "damping, filters for pins and contacts",
    .create = create_ie,
    .step = im_step,
    .destroy = im_destroy,
    .fixed_iterations = 1,
    .linear_log = true,
};

const weft_solver_type weft_newton_euler = {
    .name = "newton_euler",
    .paper = "Kim & Eberle 2020, ch. 8 (backward Euler by Newton on G)",
    .iteration = "one Newton step with line search",
    .summary = "backward Euler solved to tolerance: Newton on the incremental potential with "
               "PSD Hessians and a backtracking line search",
    .create = create_ne,
    .step = im_step,
    .destroy = im_destroy,
    .linear_log = true,
};

const weft_solver_type weft_bdf2 = {
    .name = "bdf2",
    .paper = "Kim & Eberle 2020, ch. 8 (BDF2 as in Pixar's Fizt), linearised",
    .iteration = "the step's one linear solve",
    .summary = "second-order BDF linearised about x_n (first step backward Euler): less "
               "numerical damping than backward Euler",
    .create = create_b2,
    .step = im_step,
    .destroy = im_destroy,
    .fixed_iterations = 1,
    .linear_log = true,
};

const weft_solver_type weft_bdf2_newton = {
    .name = "bdf2_newton",
    .paper = "Kim & Eberle 2020, ch. 8 (BDF2 by Newton on its G)",
    .iteration = "one Newton step with line search",
    .summary = "second-order BDF solved to tolerance by Newton on its incremental potential",
    .create = create_b2n,
    .step = im_step,
    .destroy = im_destroy,
    .linear_log = true,
};
