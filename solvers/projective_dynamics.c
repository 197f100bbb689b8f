/* projective_dynamics.c — Projective Dynamics (Liu, Bargteil, O'Brien & Kavan 2013, "Fast
 * simulation of mass-spring systems"; Bouaziz, Martin, Liu, Kavan & Pauly 2014, "Projective
 * Dynamics: fusing constraint projections for fast simulation"), with the Chebyshev
 * semi-iterative acceleration of Wang 2015 as an option (papers/bouaziz2014-projective-
 * dynamics.md maps every equation to this file).
 *
 * Backward Euler's step minimises G(x) = ½‖x − x̃‖²_M / h² + Σ_e Ψ_e(x), x̃ = xₙ + h vₙ + h² g.
 * Every element here has the projective form Ψ_e(x) = min_{p ∈ C_e} ½ w_e ‖A_e x − p‖², A_e a
 * constant linear map of the element's vertices (rows r: y_r = Σ_i A_e[r][i] x_i, acting
 * on x, y and z alike) and C_e a constraint set, so G(x) = min_p G(x, p) with
 *   G(x, p) = ½‖x − x̃‖²_M / h² + Σ_e ½ w_e ‖A_e x − p_e‖²   (Bouaziz et al.'s G(q, p))
 * and one iteration is one block-coordinate descent pass on G(x, p):
 *   local step   p_e = P_{C_e}(A_e x)                       (each element on its own)
 *   global step  (M/h² + Σ_e w_e A_eᵀA_e) x = M x̃ / h² + Σ_e w_e A_eᵀ p_e
 * The global matrix does not depend on x: it is assembled and factorised ONCE (CHOLMOD,
 * through the linear-solver registry's factor / solve_factored), and every iteration of every
 * step is two triangular solves; it is refactorised only when the set of pinned vertices
 * changes. Without Chebyshev G(x, p) never increases, and a fixed point of the iteration is a
 * stationary point of G: backward Euler's answer for the same energies.
 *
 * Elements (w_e, A_e, C_e, P):
 *   mass_spring       w = k, y = x0 − x1, C = {|p| = ℓ0}, p = ℓ0 y/|y|      (Liu et al. 2013)
 *                     ½ k ‖y − p‖² = ½ k (|y| − ℓ0)²: exactly the mass_spring energy;
 *   arap (triangle)   w = μ W, y = F = Ds Dm⁻¹ (two columns), C = {3×2 R, RᵀR = I},
 *                     p = U Vᵀ of F's SVD: exactly the arap membrane (Bouaziz's strain
 *                     constraint);
 *   arap (tetrahedron) w = μ W, F 3×3, C = SO(3), p = U Vᵀ of the rotation-variant SVD;
 *   quadratic_bending w = k, y = Σ K_i x_i, C = {|p| = r0}, p = r0 y/|y| (0 for the flat
 *                     rest state of Bergou 2006, where the element adds only its constant
 *                     Hessian k K Kᵀ ⊗ I₃ to the global matrix; Bouaziz's bending constraint).
 * Other terms of the same role are replaced by these elements with the scene's material
 * (membranes and solids by arap with μ = Y or E, hinges by quadratic_bending with D), as PBD
 * solves its own constraints: PD then converges to its own model, and the common residual
 * (of the scene's energies) shows the difference; the substitution is named in the profile.
 * Terms with no such role (a fibre term) are refused.
 *
 * Pins (Bouaziz's positional constraints, taken as hard constraints): a pinned vertex is a
 * prescribed DOF of the global solve, through the linear solvers' filters (S_i = 0, z_i its
 * scripted position at t + h), so the factorisation depends on which vertices are pinned,
 * not where. Colliders (planes, spheres, boxes) are handled after the iterations, so that
 * the matrix stays constant (the papers add collision constraints to the system), from
 * the motion as PBD's constraints of Müller 2006 §3.4 are: a vertex whose motion xₙ → x
 * enters a collider is put back on the tangent plane at the entry point (inside at the
 * end: on the closest surface point), and its velocity gets the shared contact response
 * (restitution, Coulomb friction). Cloth–cloth collisions are the post-step stage's
 * ([collision] pipeline = bridson), run after any solver.
 *
 * Chebyshev (Wang 2015, [projective_dynamics] chebyshev_rho = ρ ∈ (0, 1)): with x̂
 * the plain iterate, ω = 1 for the iterations k < S (S: chebyshev_delay, 0: Wang's 10), then
 *   ω_S = 2/(2 − ρ²),  ω_{k+1} = 4/(4 − ρ² ω_k),
 *   x_{k+1} = ω_{k+1} (γ (x̂_{k+1} − x_k) + x_k − x_{k−1}) + x_{k−1}   (γ: chebyshev_gamma).
 * ρ is the spectral radius of the plain iteration near the solution: run with ρ = 0 and
 * read it off the log, where the residual decays as ρᵏ (ρ ≈ (r_K / r_k)^{1/(K − k)} late in
 * a step); tests/test_projective_dynamics.c does exactly that. Too large a ρ diverges.
 *
 * Passes per iteration: one over the elements (projections and right-hand side), two
 * triangular solves; with [projective_dynamics] tolerance > 0 also one model gradient (the
 * residual ‖S ∇G‖ of the stopping test; pinned DOFs removed, contacts not, since they come
 * after the iterations). Without it, the [solver] iterations count is always run.
 */
#include "weft_linsolve.h"
#include "weft_solvers.h"
#include "fem.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Settings: [solver] iterations, threads; [projective_dynamics] the rest. */
typedef struct pd_settings {
    weft_solver_common common;
    int linear;       /* index into weft_linear_registry (default cholmod) */
    double tolerance; /* stop at ‖S∇G‖ ≤ tolerance ‖S∇G(x⁰)‖; 0 = run every iteration */
    weft_chebyshev chebyshev; /* Wang 2015's ρ (0 = off), S (0: Wang's 10) and γ */
} pd_settings;

// clang-format off
#define F(field) offsetof(pd_settings, field)
static const weft_param pd_params[] = {
    {.key = "linear", .type = WEFT_PARAM_NAME, .offset = F(linear), .unit = "",
     .name_at = weft_linear_name_at, .dflt_name = "cholmod",
     .doc = "linear solver of the global step (cholmod: factorised once per run)"},
    {.key = "tolerance", .type = WEFT_PARAM_DOUBLE, .offset = F(tolerance), .unit = "1",
     .lo = 0, .hi = 1, .dflt = 0,
     .doc = "stop at |S grad G| <= tolerance |S grad G(x0)|; 0: run every iteration"},
    {0},
};
#undef F
static const weft_param_table pd_tables[] = {
    {"solver", weft_iterations_params, offsetof(pd_settings, common)},
    {"solver", weft_threads_params, offsetof(pd_settings, common)},
    {"projective_dynamics", pd_params, 0},
    {"projective_dynamics", weft_chebyshev_params, offsetof(pd_settings, chebyshev)},
    {0},
};
// clang-format on

/* The element forms. */
typedef enum { PD_SPRING, PD_STRAIN_TRI, PD_STRAIN_TET, PD_BEND } pd_kind;

/* One projective element: w ‖A x − p‖² / 2 over its nv vertices and `rows` rows. */
typedef struct pd_elem {
    pd_kind kind;
    int nv, rows;
    int v[4];
    double A[3][4]; /* A[r][i]: row r's weight of vertex i (dimensionless or 1/m) */
    double w;       /* N/m (springs, bending); μ W in N·m (strain, A in 1/m) */
    double rest;    /* ℓ0 (springs), r0 (bending), m */
} pd_elem;

typedef struct pd_counters {
    long iterations, solves, refactors;
    double local_s, global_s, collide_s, residual_s;
    long contacts;
} pd_counters;

typedef struct pd_state {
    pd_settings set;
    int n, ne;
    pd_elem *e;
    weft_bsr A; /* M/h² + Σ w AᵀA, constant */
    double h;   /* the dt A was built for, s */
    weft_filter f;
    bool *pinned; /* n: the pin set A was factorised with */
    bool factored;
    const weft_linear_type *linear;
    void *lin;
    double *xt, *x, *xprev, *xhat, *b, *g, *x0; /* 3n each */
    int *contact;               /* n: collider index touched after the iterations, −1 if none */
    double *cn, *vnb;           /* 3n normals, n normal velocities before the projection */
    const char *substituted[3]; /* names of replaced terms: membrane, bending, volume */
    pd_counters stats;
    int step;
} pd_state;

static void pd_destroy(void *state) {
    pd_state *st = state;
    if (!st) return;
    if (st->lin) st->linear->destroy(st->lin);
    weft_bsr_free(&st->A);
    weft_filter_destroy(&st->f);
    free(st->e), free(st->pinned), free(st->contact);
    double *v[] = {st->xt, st->x, st->xprev, st->xhat, st->b, st->g, st->x0, st->cn, st->vnb};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) free(v[i]);
    free(st);
}

/* Rows of F = Ds Dm⁻¹ as A: column c of F is Σ_j (x_{j+1} − x_0) Dm⁻¹[j][c]. */
static void strain_rows(pd_elem *p, const weft_element *e, int d) {
    p->rows = d, p->nv = d + 1;
    for (int c = 0; c < d; c++) {
        double s = 0.0;
        for (int j = 0; j < d; j++) {
            p->A[c][j + 1] = e->rest[d * j + c];
            s += e->rest[d * j + c];
        }
        p->A[c][0] = -s;
    }
}

/* Builds the projective element of element e of term t (type `type`, which may substitute
 * t's own), with stiffness k (the term's own or the substitute's). */
static void make_elem(pd_elem *p, const weft_element *e, const weft_energy_type *type, double k_sub,
                      bool substitute) {
    memset(p, 0, sizeof *p);
    memcpy(p->v, e->v, sizeof p->v);
    if (type == &weft_mass_spring) {
        p->kind = PD_SPRING, p->nv = 2, p->rows = 1;
        p->A[0][0] = 1.0, p->A[0][1] = -1.0;
        p->w = e->k, p->rest = e->rest[0];
    } else if (type == &weft_quadratic_bending) {
        p->kind = PD_BEND, p->nv = 4, p->rows = 1;
        for (int i = 0; i < 4; i++) p->A[0][i] = e->rest[i];
        p->w = e->k, p->rest = e->rest[4];
    } else if (type->kind == WEFT_ELEM_TRIANGLE) { /* arap, or any F-based membrane */
        p->kind = PD_STRAIN_TRI;
        strain_rows(p, e, 2);
        p->w = (substitute ? k_sub : e->k) * e->rest[9];
    } else { /* tetrahedron: arap, or any F-based solid */
        p->kind = PD_STRAIN_TET;
        strain_rows(p, e, 3);
        p->w = (substitute ? k_sub : e->k) * e->rest[9];
    }
}

/* Adds w AᵀA ⊗ I₃ of every element and M/h² to st->A's values. */
static void assemble_matrix(pd_state *st, const weft_model *m) {
    weft_bsr *A = &st->A;
    memset(A->val, 0, 9 * (size_t)A->nnzb * sizeof *A->val);
    for (int q = 0; q < st->ne; q++) {
        const pd_elem *p = &st->e[q];
        for (int i = 0; i < p->nv; i++)
            for (int j = 0; j < p->nv; j++) {
                double s = 0.0;
                for (int r = 0; r < p->rows; r++) s += p->A[r][i] * p->A[r][j];
                int k = weft_bsr_block(A, p->v[i], p->v[j]);
                WEFT_ASSERT(k >= 0);
                for (int a = 0; a < 3; a++) A->val[9 * (size_t)k + 4 * a] += p->w * s;
            }
    }
    for (int i = 0; i < m->n; i++)
        for (int a = 0; a < 3; a++)
            A->val[9 * (size_t)A->diag[i] + 4 * a] += m->mass[i] / (st->h * st->h);
}

/* The role PD fills for term t of m when its energy has no projective form (0 membrane,
 * 1 bending, 2 volume), with the substitute's stiffness in *k_sub; -1 when the energy is
 * one of PD's own (run exactly), -2 when it has neither (refused). */
static int pd_role(const weft_model *m, int t, double *k_sub) {
    const weft_energy_type *ty = m->terms[t].type;
    *k_sub = 0.0;
    if (ty == &weft_mass_spring || ty == &weft_quadratic_bending || ty == &weft_arap_membrane ||
        ty == &weft_arap_tet)
        return -1;
    if (t == m->stretch_term && ty->kind == WEFT_ELEM_TRIANGLE)
        return *k_sub = m->material.stretch_stiffness, 0;
    if (t == m->bending_term && ty->kind == WEFT_ELEM_HINGE) return 1;
    if (t == m->volume_term && ty->kind == WEFT_ELEM_TET)
        return *k_sub = m->material.youngs_modulus, 2;
    return -2;
}

/* caps.model_changes: the terms PD replaces by its own elements (arap for membranes and
 * solids, quadratic_bending for hinges), each an energy the scene can name. */
static int pd_model_changes(const weft_model *m, weft_model_change *out, int max) {
    static const weft_energy_type *const sub[3] = {&weft_arap_membrane, &weft_quadratic_bending,
                                                   &weft_arap_tet};
    int n = 0;
    for (int t = 0; t < m->nterms && n < max; t++) {
        double k;
        int role = pd_role(m, t, &k);
        if (role >= 0) out[n++] = (weft_model_change){t, sub[role]->name, true};
    }
    return n;
}

static void *pd_create(const weft_model *m, weft_config *cfg, weft_error *err) {
    pd_state *st = calloc(1, sizeof *st);
    if (!st) goto nomem;
    weft_config_settings(cfg, pd_tables, &st->set);
    st->n = m->n;
    /* The elements, term by term. */
    int ne = 0;
    for (int t = 0; t < m->nterms; t++) ne += m->terms[t].n;
    st->e = calloc((size_t)(ne > 0 ? ne : 1), sizeof *st->e);
    if (!st->e) goto nomem;
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        const weft_energy_type *ty = term->type;
        double k_sub;
        int role = pd_role(m, t, &k_sub); /* -1: exact; 0 membrane, 1 bending, 2 volume */
        if (role == -2) {
            weft_fail(err, WEFT_ERR_INPUT,
                      "projective_dynamics: energy '%s' (term %d) has no projective form "
                      "and no role PD can fill (springs, arap, quadratic_bending)",
                      ty->name, t);
            goto fail;
        }
        if (role >= 0) st->substituted[role] = ty->name;
        for (int i = 0; i < term->n; i++) {
            const weft_element *e = &term->elem[i];
            if (role == 1) { /* a hinge energy: quadratic bending with D from the rest mesh */
                weft_element q = {.v = {e->v[0], e->v[1], e->v[2], e->v[3]}};
                double xe[12];
                for (int a = 0; a < 4; a++)
                    for (int k = 0; k < 3; k++) xe[3 * a + k] = m->mesh.x[3 * e->v[a] + k];
                weft_energy_params p = {.stiffness = m->material.bending_stiffness};
                weft_quadratic_bending.init(&q, xe, &p);
                make_elem(&st->e[st->ne++], &q, &weft_quadratic_bending, 0.0, false);
            } else {
                make_elem(&st->e[st->ne++], e, ty, k_sub, role >= 0);
            }
        }
    }
    /* The global matrix's pattern (the model's Hessian pattern: the same vertex sets). */
    if (weft_bsr_pattern(&st->A, m, err)) goto fail;
    st->h = m->dt;
    assemble_matrix(st, m);
    size_t n = m->n > 0 ? (size_t)m->n : 1, n3 = 3 * n;
    double **v[] = {&st->xt, &st->x, &st->xprev, &st->xhat, &st->b, &st->g, &st->x0, &st->cn};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!(*v[i] = calloc(n3, sizeof(double)))) goto nomem;
    if (!(st->vnb = calloc(n, sizeof(double))) || !(st->pinned = calloc(n, sizeof(bool))) ||
        !(st->contact = malloc(n * sizeof(int))))
        goto nomem;
    if (weft_filter_create(&st->f, m->n, err)) goto fail;
    st->linear = weft_linear_registry[st->set.linear];
    if (!(st->lin = st->linear->create(m->n, cfg, st->set.common.threads, err))) goto fail;
    return st;
nomem:
    weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the projective_dynamics solver");
fail:
    pd_destroy(st);
    return NULL;
}

/* ------------------------------------------------------------------------------ */
/* Local step                                                                      */
/* ------------------------------------------------------------------------------ */

/* p (rows × 3) = the projection of y = A x (rows × 3) onto the element's constraint set. */
static void project(const pd_elem *e, double y[3][3], double p[3][3]) {
    switch (e->kind) {
    case PD_SPRING:
    case PD_BEND: { /* onto the sphere |p| = rest (its centre when rest = 0) */
        double l = sqrt(y[0][0] * y[0][0] + y[0][1] * y[0][1] + y[0][2] * y[0][2]);
        double s = l > 0.0 ? e->rest / l : 0.0;
        for (int k = 0; k < 3; k++) p[0][k] = s * y[0][k];
        break;
    }
    case PD_STRAIN_TRI: { /* the closest 3×2 matrix with orthonormal columns, U₃ₓ₂ Vᵀ */
        double F[6], U[9], s[2], V[4];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 2; c++) F[2 * r + c] = y[c][r];
        weft_svd32(F, U, s, V);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 2; c++) p[c][r] = U[3 * r] * V[2 * c] + U[3 * r + 1] * V[2 * c + 1];
        break;
    }
    case PD_STRAIN_TET: { /* the closest rotation U Vᵀ (rotation-variant SVD) */
        double F[9], U[9], s[3], V[9];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) F[3 * r + c] = y[c][r];
        weft_svd3_rv(F, U, s, V);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                double R = 0.0;
                for (int j = 0; j < 3; j++) R += U[3 * r + j] * V[3 * c + j];
                p[c][r] = R;
            }
        break;
    }
    }
}

/* b = M x̃ / h² + Σ_e w_e A_eᵀ P(A_e x). */
static void local_step(pd_state *st, const weft_model *m, const double *x) {
    double ih2 = 1.0 / (st->h * st->h);
    for (int i = 0; i < m->n; i++)
        for (int k = 0; k < 3; k++) st->b[3 * i + k] = m->mass[i] * ih2 * st->xt[3 * i + k];
    for (int q = 0; q < st->ne; q++) {
        const pd_elem *e = &st->e[q];
        double y[3][3] = {{0}}, p[3][3];
        for (int r = 0; r < e->rows; r++)
            for (int i = 0; i < e->nv; i++)
                for (int k = 0; k < 3; k++) y[r][k] += e->A[r][i] * x[3 * e->v[i] + k];
        project(e, y, p);
        for (int i = 0; i < e->nv; i++)
            for (int k = 0; k < 3; k++) {
                double s = 0.0;
                for (int r = 0; r < e->rows; r++) s += e->A[r][i] * p[r][k];
                st->b[3 * e->v[i] + k] += e->w * s;
            }
    }
}

/* ------------------------------------------------------------------------------ */
/* Global step                                                                     */
/* ------------------------------------------------------------------------------ */

/* Pins into the filter (S_i = 0 for pinned vertices, z = their positions in zpin) and,
 * when the pin set (or dt) changed, A again and its factorisation. */
static int prepare_global(pd_state *st, const weft_model *m, const double *zpin, weft_error *err) {
    bool same = st->factored && st->h == m->dt;
    for (int i = 0; i < m->n && same; i++) same = st->pinned[i] == (m->pin[i] >= 0);
    weft_filter_free_all(&st->f);
    for (int i = 0; i < m->n; i++) {
        st->pinned[i] = m->pin[i] >= 0;
        if (st->pinned[i]) weft_filter_pin(&st->f, i, &zpin[3 * i]);
    }
    if (same) return WEFT_OK;
    if (st->h != m->dt) {
        st->h = m->dt;
        assemble_matrix(st, m);
    }
    st->factored = false;
    if (st->linear->factor) {
        double t0 = weft_now();
        weft_solve_status s = st->linear->factor(st->lin, &st->A, &st->f, err);
        st->stats.global_s += weft_now() - t0;
        if (s != WEFT_SOLVE_CONVERGED)
            return weft_fail(err, s == WEFT_SOLVE_NOMEM ? WEFT_ERR_NOMEM : WEFT_ERR_DIVERGED,
                             "projective_dynamics: step %d: %s", st->step,
                             err ? err->msg : "factorisation failed");
    }
    st->stats.refactors++;
    st->factored = true;
    return WEFT_OK;
}

/* x = A⁻¹ b on the free DOFs, pins from the filter. */
static int global_step(pd_state *st, double *x, weft_error *err) {
    double t0 = weft_now();
    weft_solve_status s;
    if (st->linear->solve_factored)
        s = st->linear->solve_factored(st->lin, &st->A, &st->f, st->b, x, err);
    else
        s = st->linear->solve(st->lin, &st->A, &st->f, st->b, x, st->x, NULL, NULL, NULL, err);
    st->stats.solves++;
    st->stats.global_s += weft_now() - t0;
    if (s == WEFT_SOLVE_MAX_ITER) s = WEFT_SOLVE_CONVERGED; /* an inexact iterative solve */
    if (s != WEFT_SOLVE_CONVERGED)
        return weft_fail(err, s == WEFT_SOLVE_NOMEM ? WEFT_ERR_NOMEM : WEFT_ERR_DIVERGED,
                         "projective_dynamics: step %d: global solve %s",
                         st->step, weft_solve_status_name(s));
    return WEFT_OK;
}

/* ‖S ∇G(x)‖ over the free DOFs (pinned ones are zeroed by weft_incremental_potential). */
static double residual(pd_state *st, const weft_model *m, const double *x) {
    double t0 = weft_now();
    weft_incremental_potential(m, x, st->xt, st->g);
    double r = 0.0;
    for (int j = 0; j < 3 * m->n; j++) r += st->g[j] * st->g[j];
    st->stats.residual_s += weft_now() - t0;
    return sqrt(r);
}

/* ------------------------------------------------------------------------------ */
/* Collisions after the iterations                                                 */
/* ------------------------------------------------------------------------------ */

/* Puts free vertices that moved into a collider (xₙ → x) back outside: on the tangent plane
 * at the entry point of the motion, or on the closest surface point if xₙ was inside already
 * or the motion did not enter. Records the contact, its normal and the normal velocity of
 * the unconstrained motion (for restitution). */
static void resolve_collisions(pd_state *st, const weft_model *m, double *x) {
    const double t0 = m->t, t1 = m->t + m->dt, margin = m->contact_margin;
    for (int i = 0; i < m->n; i++) st->contact[i] = -1;
    for (int i = 0; i < m->n; i++) {
        if (m->pin[i] >= 0 || m->w[i] == 0.0) continue;
        double *p = &x[3 * i];
        const double *xn = &m->x[3 * i];
        for (int c = 0; c < m->ncolliders; c++) {
            const weft_collider *col = &m->colliders[c];
            const double *u = col->velocity;
            bool moving = weft_collider_moving(col);
            double np[3], n[3], q[3];
            double dp = weft_collider_distance_at(col, p, t1, np) - margin;
            double dx = weft_collider_distance_at(col, xn, t0, NULL) - margin;
            double xr[3], pr[3], t;
            for (int k = 0; k < 3; k++) {
                xr[k] = moving ? xn[k] - u[k] * t0 : xn[k];
                pr[k] = moving ? p[k] - u[k] * t1 : p[k];
            }
            if (dx >= 0.0 && weft_collider_segment_entry(col, xr, pr, margin, &t, n)) {
                for (int k = 0; k < 3; k++)
                    q[k] = xr[k] + t * (pr[k] - xr[k]) + (moving ? u[k] * t1 : 0.0);
            } else if (dp < 0.0) {
                for (int k = 0; k < 3; k++) n[k] = np[k], q[k] = p[k] - dp * np[k];
            } else {
                continue;
            }
            double C = (p[0] - q[0]) * n[0] + (p[1] - q[1]) * n[1] + (p[2] - q[2]) * n[2];
            if (!(C < 0.0)) continue;
            double vn = 0.0;
            for (int k = 0; k < 3; k++) vn += (pr[k] - xr[k]) * n[k];
            for (int k = 0; k < 3; k++) p[k] -= C * n[k];
            st->contact[i] = c;
            memcpy(&st->cn[3 * i], n, sizeof n);
            st->vnb[i] = vn / m->dt;
            st->stats.contacts++;
        }
    }
}

/* Restitution and friction on the velocities of the vertices resolve_collisions moved. */
static void contact_velocities(pd_state *st, weft_model *m) {
    for (int i = 0; i < m->n; i++) {
        int c = st->contact[i];
        if (c < 0) continue;
        const weft_collider *col = &m->colliders[c];
        const double *u = weft_collider_moving(col) ? col->velocity : NULL;
        const double *n = &st->cn[3 * i];
        double *v = &m->v[3 * i];
        double vn = weft_contact_normal_velocity(v, n, u), vn_new = vn, before = st->vnb[i];
        if (before < 0.0 && vn < -col->restitution * before) vn_new = -col->restitution * before;
        weft_contact_response(v, n, u, vn_new, fabs(vn_new - before), col->friction);
    }
}

/* ------------------------------------------------------------------------------ */
/* The step                                                                        */
/* ------------------------------------------------------------------------------ */

static int pd_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    pd_state *st = state;
    const int n = m->n, iters = st->set.common.iterations;
    const size_t n3 = 3 * (size_t)n;
    const double t1 = m->t + m->dt;
    for (size_t j = 0; j < n3; j++)
        if (!isfinite(m->x[j]) || !isfinite(m->v[j]))
            return weft_fail(err, WEFT_ERR_DIVERGED,
                             "projective_dynamics: step %d: non-finite %s of vertex %d at the "
                             "start of the step (t = %.6g s)",
                             st->step, isfinite(m->x[j]) ? "velocity" : "position", (int)(j / 3),
                             m->t);
    /* x̃ and the start point x⁰ = x̃ with pins on their paths at t + h. */
    weft_inertial_target(m, m->x, m->v, st->xt);
    memcpy(st->x, st->xt, n3 * sizeof *st->x);
    weft_model_apply_pins(m, t1, st->x);
    int rc = prepare_global(st, m, st->x, err);
    if (rc) return rc;
    memcpy(st->xprev, st->x, n3 * sizeof *st->x);
    const double tol = st->set.tolerance, rho = st->set.chebyshev.rho;
    const double gamma = st->set.chebyshev.gamma;
    double r0 = tol > 0.0 ? residual(st, m, st->x) : 0.0, omega = 1.0;
    bool done = iters == 0 || (tol > 0.0 && r0 == 0.0);
    if (done && m->ncolliders > 0) resolve_collisions(st, m, st->x);
    weft_monitor_report(mon, st->x, 0, done);
    for (int k = 1; k <= iters && !done; k++) {
        double t0 = weft_now();
        local_step(st, m, st->x);
        st->stats.local_s += weft_now() - t0;
        rc = global_step(st, st->xhat, err);
        if (rc) return rc;
        st->stats.iterations++;
        double w = weft_chebyshev_weight(&st->set.chebyshev, 10, k, &omega); /* Wang's S */
        if (w > 0.0) { /* chebyshev.c */
            for (size_t j = 0; j < n3; j++) {
                double xk = st->x[j];
                double xn = weft_chebyshev_mix(w, gamma, st->xhat[j], xk, st->xprev[j]);
                st->xprev[j] = xk, st->xhat[j] = xn;
            }
            for (int i = 0; i < n; i++) /* pinned DOFs stay on their paths */
                if (st->pinned[i]) memcpy(&st->xhat[3 * i], &st->f.z[3 * i], 3 * sizeof(double));
        } else {
            memcpy(st->xprev, st->x, n3 * sizeof *st->x);
        }
        double *swap = st->x;
        st->x = st->xhat, st->xhat = swap;
        for (size_t j = 0; j < n3; j++)
            if (!isfinite(st->x[j]))
                return weft_fail(err, WEFT_ERR_DIVERGED,
                                 "projective_dynamics: step %d, iteration %d: non-finite "
                                 "position of vertex %d%s",
                                 st->step, k, (int)(j / 3),
                                 rho > 0.0 ? " (chebyshev_rho too large?)" : "");
        done = k == iters || (tol > 0.0 && residual(st, m, st->x) <= tol * r0);
        if (done && m->ncolliders > 0) {
            t0 = weft_now();
            resolve_collisions(st, m, st->x);
            st->stats.collide_s += weft_now() - t0;
        }
        weft_monitor_report(mon, st->x, k, done);
    }
    /* vₙ₊₁ = (xₙ₊₁ − xₙ)/h, then the contact response. */
    for (size_t j = 0; j < n3; j++) {
        m->v[j] = (st->x[j] - m->x[j]) / m->dt;
        m->x[j] = st->x[j];
    }
    if (m->ncolliders > 0) contact_velocities(st, m);
    m->t = t1;
    st->step++;
    return WEFT_OK;
}

/* Timers local (projections and right-hand side), global (factorisations and solves),
 * residual (the stopping test), collide (s); counters iterations, global_solves,
 * refactors (the solver's factorisations: one per run unless the pins change),
 * factorisations, setups (the linear solver's own: numeric factorisations and analyses),
 * contacts; labels ordering and, where PD replaced a term by its own element, the
 * replaced energy (membrane_replaces, bending_replaces, volume_replaces). */
static void pd_stats(const void *state, weft_profile *out) {
    const pd_state *st = state;
    weft_linear_stats ls;
    st->linear->stats(st->lin, &ls);
    weft_profile_add(out, "local", WEFT_PROFILE_TIMER, st->stats.local_s);
    weft_profile_add(out, "global", WEFT_PROFILE_TIMER, st->stats.global_s);
    weft_profile_add(out, "residual", WEFT_PROFILE_TIMER, st->stats.residual_s);
    weft_profile_add(out, "collide", WEFT_PROFILE_TIMER, st->stats.collide_s);
    weft_profile_add(out, "iterations", WEFT_PROFILE_COUNT, (double)st->stats.iterations);
    weft_profile_add(out, "global_solves", WEFT_PROFILE_COUNT, (double)st->stats.solves);
    weft_profile_add(out, "refactors", WEFT_PROFILE_COUNT, (double)st->stats.refactors);
    weft_profile_add(out, "factorisations", WEFT_PROFILE_COUNT, (double)ls.factorisations);
    weft_profile_add(out, "setups", WEFT_PROFILE_COUNT, (double)ls.setups);
    weft_profile_add(out, "contacts", WEFT_PROFILE_COUNT, (double)st->stats.contacts);
    weft_profile_label(out, "ordering", ls.ordering ? ls.ordering : "none");
    static const char *const role[3] = {"membrane_replaces", "bending_replaces", "volume_replaces"};
    for (int r = 0; r < 3; r++)
        if (st->substituted[r]) weft_profile_label(out, role[r], st->substituted[r]);
}

const weft_solver_type weft_projective_dynamics = {
    .name = "projective_dynamics",
    .paper = "Bouaziz et al. 2014; Liu et al. 2013; Chebyshev: Wang 2015",
    .iteration = "a local step (every element projected) and a global solve with the "
                 "constant prefactorised matrix",
    .summary = "local/global minimisation of backward Euler's G for springs, ARAP strain and "
               "quadratic bending; one Cholesky factorisation per run",
    .settings_size = sizeof(pd_settings),
    .settings = pd_tables,
    .create = pd_create,
    .step = pd_step,
    .destroy = pd_destroy,
    .stats = pd_stats,
    .caps = {.order = 1,
             .contact = "colliders projected after the iterations (as PBD)",
             .model_changes = pd_model_changes},
};
