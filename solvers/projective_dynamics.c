/* projective_dynamics.c — Projective Dynamics (Liu, Bargteil, O'Brien & Kavan 2013; Bouaziz,
 * Martin, Liu, Kavan & Pauly 2014), with the Chebyshev acceleration of Wang 2015 as an option;
 * papers/bouaziz2014-projective-dynamics.md maps every equation to this file and keeps the
 * measurements.
 *
 * Backward Euler's step minimises G(x) = ½‖x − x̃‖²_M/h² + Σ_e Ψ_e(x), x̃ = xₙ + h vₙ + h² g.
 * Each element's energy gives its projective form through its `projective` hook
 * (weft_energy.h): Ψ_e(x) = min_{p ∈ C_e} ½ w_e ‖A_e x − p‖². One iteration is one pass of
 * block-coordinate descent on G(x, p) = ½‖x − x̃‖²_M/h² + Σ_e ½ w_e ‖A_e x − p_e‖²:
 *   local step   p_e = P_{C_e}(A_e x) per element, in parallel: thread range 0 adds into
 *                the right-hand side, the others into slots gathered per vertex in element
 *                order: the same bits for any thread count (one thread: no slots);
 *   global step  (M/h² + Σ_e w_e A_eᵀA_e) x = M x̃/h² + Σ_e w_e A_eᵀ p_e.
 * A_e acts on x, y and z alike, so the matrix is one n×n scalar matrix for the three
 * coordinates (Bouaziz §5): factorised once (the linear solver's factor_scalar; CHOLMOD on
 * n×n, not 3n×3n), each iteration is one solve with three right-hand sides; refactorised
 * only when the pinned set or dt changes. Without Chebyshev G(x, p) never increases.
 * Terms whose energy has no hook are replaced by the projective energy of their role
 * (membrane and volume: arap with μ = Y or E; bending: quadratic_bending with D), built
 * from the rest mesh and named in the profile and the model diff; others are refused.
 * Pins are prescribed DOFs of the global solve (filters). Colliders are resolved after
 * the iterations from the motion xₙ → x (PBD's §3.4), then the shared contact response.
 * Chebyshev (chebyshev_rho = ρ > 0): ω = 1 before iteration S (chebyshev_delay), then
 * ω_S = 2/(2 − ρ²), ω_{k+1} = 4/(4 − ρ²ω_k), x_{k+1} = ω_{k+1}(γ(x̂_{k+1} − x_k) + x_k − x_{k−1})
 * + x_{k−1} (γ: chebyshev_gamma).
 * Passes per iteration: one over the elements, one over the vertices, one solve; with
 * tolerance > 0 also one model gradient (the stopping test's ‖S∇G‖).
 * Settings: [solver] iterations, threads; [projective_dynamics] linear, tolerance,
 * chebyshev_rho, chebyshev_delay, chebyshev_gamma.
 */
#include "weft_energies.h"
#include "weft_linsolve.h"
#include "weft_solvers.h"

#include <math.h>
#include <stdio.h>
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

/* One projective element: ½ w ‖A x − p‖² over its nv vertices and `rows` rows. The fields
 * a one-row element reads every iteration come first (pj, nv, rows, slot, w, A's first
 * row: one cache line), then the element, whose vertices and rest data the hook reads. */
typedef struct pd_elem {
    const weft_projective *pj;
    int nv, rows;
    int slot; /* its slot's first double in pd_state.slot (< 0 in thread range 0: none) */
    double w;
    double A[WEFT_PROJECTIVE_MAXROWS * WEFT_ELEM_MAXV]; /* A[nv*r + i] */
    weft_element el;                                    /* a copy (a substitute's own) */
} pd_elem;

/* The hot copy of a one-row element whose C is a sphere (weft_projective.sphere_radius):
 * all that its projection reads, one cache line, so that the local step streams 64 bytes
 * per element instead of the lines of pd_elem that A, the vertices and the rest data span. */
typedef struct pd_sphere {
    int v[4];    /* its vertices (nv of them) */
    double a[4]; /* A's one row */
    double w, r; /* the weight and C's radius */
} pd_sphere;
_Static_assert(sizeof(pd_sphere) == 64, "pd_sphere: one cache line");

/* A run of elements [q0, q1) of one term: nv = 2 or 4 when each is a pd_sphere of nv
 * vertices, 0 when they go through pd_elem and the hook; slot0 = e[q0].slot. */
typedef struct pd_run {
    int q0, q1, nv, slot0;
} pd_run;

/* Doubles of an element's slot per vertex: w Aᵀp's x, y, z and an unused lane, one
 * weft_vd4 (slots are 32-byte aligned and packed: element q's starts at e[q].slot; the
 * elements of local_step's thread range 0 have none, their offsets are negative). */
#define PD_SLOT_V 4

typedef struct pd_counters {
    long iterations, solves, refactors;
    double local_s, global_s, collide_s, residual_s;
    long contacts;
} pd_counters;

typedef struct pd_state {
    pd_settings set;
    int n, ne;
    pd_elem *e;
    pd_sphere *sph;    /* ne (64-byte aligned): element q's hot copy where its run has nv > 0 */
    pd_run *run;       /* nrun: the elements by term */
    int nrun;
    double *slot;      /* PD_SLOT_V per element vertex past thread range 0: its w Aᵀp
                          (32-byte aligned) */
    int *inc_ptr, *inc; /* per vertex (n + 1 / Σ nv): its slots' offsets, in element order */
    int *inc_from;     /* n: per vertex, its first slot in inc past thread range 0 */
    weft_bsr A;        /* M/h² + Σ w AᵀA, every block a multiple of I₃, constant */
    double h;          /* the dt A was built for, s */
    weft_filter f;
    bool *pinned;      /* n: the pin set A was factorised with */
    bool factored;
    const weft_linear_type *linear;
    void *lin;
    double *xt, *x, *xprev, *xhat, *b, *g, *x0; /* 3n each */
    double *bm;                 /* 4n: M x̃ / h², the constant part of b in a step (x, y, z, 0
                                   per vertex, 32-byte aligned) */
    double *acc;                /* 4n: bm + thread range 0's contributions (32-byte aligned) */
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
    free(st->e), free(st->sph), free(st->run), free(st->slot), free(st->inc_ptr), free(st->inc);
    free(st->pinned), free(st->contact), free(st->inc_from), free(st->acc), free(st->bm);
    double *v[] = {st->xt, st->x, st->xprev, st->xhat, st->b, st->g, st->x0, st->cn, st->vnb};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) free(v[i]);
    free(st);
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
                for (int r = 0; r < p->rows; r++) s += p->A[p->nv * r + i] * p->A[p->nv * r + j];
                int k = weft_bsr_block(A, p->el.v[i], p->el.v[j]);
                WEFT_ASSERT(k >= 0);
                for (int a = 0; a < 3; a++) A->val[9 * (size_t)k + 4 * a] += p->w * s;
            }
    }
    for (int i = 0; i < m->n; i++)
        for (int a = 0; a < 3; a++)
            A->val[9 * (size_t)A->diag[i] + 4 * a] += m->mass[i] / (st->h * st->h);
}

/* The projective energies PD puts in place of a term of role r (0 membrane, 1 bending,
 * 2 volume) whose energy has no projective form. */
static const char *const pd_sub_name[3] = {"arap", "quadratic_bending", "arap"};
static const weft_element_kind pd_sub_kind[3] = {WEFT_ELEM_TRIANGLE, WEFT_ELEM_HINGE,
                                                 WEFT_ELEM_TET};

/* The role PD fills for term t of m when its energy has no projective form (0 membrane,
 * 1 bending, 2 volume), with the substitute's stiffness in *k_sub; -1 when the energy has
 * one (run exactly), -2 when it has neither (refused). */
static int pd_role(const weft_model *m, int t, double *k_sub) {
    const weft_energy_type *ty = m->terms[t].type;
    *k_sub = 0.0;
    if (ty->projective) return -1;
    if (t == m->stretch_term && ty->kind == WEFT_ELEM_TRIANGLE)
        return *k_sub = m->material.stretch_stiffness, 0;
    if (t == m->bending_term && ty->kind == WEFT_ELEM_HINGE)
        return *k_sub = m->material.bending_stiffness, 1;
    if (t == m->volume_term && ty->kind == WEFT_ELEM_TET)
        return *k_sub = m->material.youngs_modulus, 2;
    return -2;
}

/* caps.model_changes: the terms PD replaces by its own elements (arap for membranes and
 * solids, quadratic_bending for hinges), each an energy the scene can name. */
static int pd_model_changes(const weft_model *m, weft_model_change *out, int max) {
    int n = 0;
    for (int t = 0; t < m->nterms && n < max; t++) {
        double k;
        int role = pd_role(m, t, &k);
        if (role >= 0) out[n++] = (weft_model_change){t, pd_sub_name[role], true};
    }
    return n;
}

/* Fills p from element e of an energy with the projective form pj. */
static void make_elem(pd_elem *p, const weft_element *e, const weft_projective *pj, int nv) {
    memset(p, 0, sizeof *p);
    p->pj = pj, p->el = *e, p->nv = nv, p->rows = pj->rows;
    p->w = pj->form(&p->el, p->A);
}

/* nv when an element of this form and nv vertices runs as a pd_sphere (one row, C a
 * sphere, 2 or 4 vertices), else 0. */
static int sphere_nv(const weft_projective *pj, int nv) {
    return pj->rows == 1 && pj->sphere_radius && (nv == 2 || nv == 4) ? nv : 0;
}

/* Fills s, the hot copy of p (a sphere_nv element). */
static void make_sphere(pd_sphere *s, const pd_elem *p) {
    for (int i = 0; i < p->nv; i++) s->v[i] = p->el.v[i], s->a[i] = p->A[i];
    s->w = p->w, s->r = p->pj->sphere_radius(&p->el);
}

/* The elements, term by term: each term's own projective form, or its role's substitute
 * built from the rest mesh (m->mesh.x) with the scene's material. */
static int build_elements(pd_state *st, const weft_model *m, weft_error *err) {
    int ne = 0;
    for (int t = 0; t < m->nterms; t++) ne += m->terms[t].n;
    size_t bytes = ((size_t)(ne > 0 ? ne : 1) * sizeof *st->e + 63) / 64 * 64;
    if ((st->e = aligned_alloc(64, bytes))) memset(st->e, 0, bytes); /* elements on lines */
    size_t sbytes = (size_t)(ne > 0 ? ne : 1) * sizeof *st->sph; /* a multiple of 64 */
    if ((st->sph = aligned_alloc(64, sbytes))) memset(st->sph, 0, sbytes);
    st->run = calloc((size_t)m->nterms + 1, sizeof *st->run);
    if (!st->e || !st->sph || !st->run)
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the "
                         "projective_dynamics solver");
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        double k_sub;
        int role = pd_role(m, t, &k_sub);
        if (role == -2)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "projective_dynamics: energy '%s' (term %d) has no projective "
                             "form and no role PD can fill (springs, arap, quadratic_bending)",
                             term->type->name, t);
        const weft_energy_type *ty = term->type;
        if (role >= 0) {
            st->substituted[role] = ty->name;
            ty = weft_energy_find_kind(pd_sub_name[role], pd_sub_kind[role]);
            WEFT_ASSERT(ty && ty->projective && ty->nv == term->type->nv);
        }
        pd_run *run = &st->run[st->nrun++];
        run->q0 = st->ne, run->q1 = st->ne + term->n;
        run->nv = sphere_nv(ty->projective, ty->nv);
        for (int i = 0; i < term->n; i++) {
            weft_element q = term->elem[i];
            if (role >= 0) { /* the substitute of the same vertices, from the rest mesh */
                double xe[3 * WEFT_ELEM_MAXV];
                for (int a = 0; a < ty->nv; a++)
                    for (int k = 0; k < 3; k++) xe[3 * a + k] = m->mesh.x[3 * q.v[a] + k];
                weft_energy_params p = {.stiffness = k_sub};
                memset(q.rest, 0, sizeof q.rest);
                q.k = q.k2 = 0.0;
                ty->init(&q, xe, &p);
            }
            make_elem(&st->e[st->ne], &q, ty->projective, ty->nv);
            if (run->nv) make_sphere(&st->sph[st->ne], &st->e[st->ne]);
            st->ne++;
        }
    }
    return WEFT_OK;
}

/* The slots' places, and per vertex the offsets of its slots (element q's vertex i:
 * e[q].slot + PD_SLOT_V i) in element order, the order the serial loop added them in;
 * local_step's thread range 0 (the elements below ne / threads) adds into acc instead, so
 * its offsets count back from the first slot (negative, never read). */
static int build_incidence(pd_state *st, int n, weft_error *err) {
    st->inc_ptr = calloc((size_t)n + 1, sizeof *st->inc_ptr);
    const int q1 = (int)((long)st->ne / st->set.common.threads); /* threads ≥ 1 */
    long nslot = 0;
    for (int q = 0; q < q1; q++) nslot -= PD_SLOT_V * (long)st->e[q].nv;
    for (int q = 0; q < st->ne; q++)
        st->e[q].slot = (int)nslot, nslot += PD_SLOT_V * (long)st->e[q].nv;
    for (int k = 0; k < st->nrun; k++)
        if (st->run[k].q0 < st->run[k].q1) st->run[k].slot0 = st->e[st->run[k].q0].slot;
    size_t slot_bytes = ((size_t)nslot + PD_SLOT_V) * sizeof *st->slot;
    if ((st->slot = aligned_alloc(32, slot_bytes))) memset(st->slot, 0, slot_bytes);
    size_t total = 0;
    for (int q = 0; q < st->ne; q++) total += (size_t)st->e[q].nv;
    st->inc = malloc((total + 1) * sizeof *st->inc);
    if (!st->inc_ptr || !st->slot || !st->inc)
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the "
                         "projective_dynamics solver");
    for (int q = 0; q < st->ne; q++)
        for (int i = 0; i < st->e[q].nv; i++) st->inc_ptr[st->e[q].el.v[i] + 1]++;
    for (int i = 0; i < n; i++) st->inc_ptr[i + 1] += st->inc_ptr[i];
    int *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!fill)
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the "
                         "projective_dynamics solver");
    memcpy(fill, st->inc_ptr, (size_t)n * sizeof *fill);
    for (int q = 0; q < st->ne; q++)
        for (int i = 0; i < st->e[q].nv; i++)
            st->inc[fill[st->e[q].el.v[i]]++] = st->e[q].slot + PD_SLOT_V * i;
    free(fill);
    if (!(st->inc_from = malloc(((size_t)n + 1) * sizeof *st->inc_from)))
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the "
                         "projective_dynamics solver");
    for (int i = 0; i < n; i++) {
        int j = st->inc_ptr[i];
        while (j < st->inc_ptr[i + 1] && st->inc[j] < 0) j++;
        st->inc_from[i] = j;
    }
    return WEFT_OK;
}

static void *pd_create(const weft_model *m, weft_config *cfg, weft_error *err) {
    pd_state *st = calloc(1, sizeof *st);
    if (!st) goto nomem;
    weft_config_settings(cfg, pd_tables, &st->set);
    st->n = m->n;
    if (build_elements(st, m, err) || build_incidence(st, m->n, err)) goto fail;
    /* The global matrix's pattern (the model's Hessian pattern: the same vertex sets). */
    if (weft_bsr_pattern(&st->A, m, err)) goto fail;
    st->h = m->dt;
    assemble_matrix(st, m);
    size_t n = m->n > 0 ? (size_t)m->n : 1, n3 = 3 * n;
    double **v[] = {&st->xt, &st->x, &st->xprev, &st->xhat, &st->b, &st->g, &st->x0, &st->cn};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!(*v[i] = calloc(n3 + 1, sizeof(double)))) goto nomem; /* +1: read 4 wide */
    const size_t n4 = PD_SLOT_V * n * sizeof(double); /* a multiple of 32 */
    if (!(st->bm = aligned_alloc(32, n4)) || !(st->acc = aligned_alloc(32, n4))) goto nomem;
    memset(st->bm, 0, n4), memset(st->acc, 0, n4);
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

/* Element q's w Aᵀ P(A x) into out (4 per vertex, the last 0): each row's three sums over
 * the vertices in vertex order, the slot's over the rows in row order (the plain loops). */
static void project_nv(const pd_state *st, int q, const double *x, double *out, const int nv,
                       const int rows) {
    const pd_elem *e = &st->e[q];
    double y[3 * WEFT_PROJECTIVE_MAXROWS], p[3 * WEFT_PROJECTIVE_MAXROWS];
    for (int r = 0; r < rows; r++) {
        const double *a = &e->A[nv * r];
        double y0 = 0.0, y1 = 0.0, y2 = 0.0;
        for (int i = 0; i < nv; i++) {
            const double *xi = &x[3 * e->el.v[i]];
            y0 += a[i] * xi[0], y1 += a[i] * xi[1], y2 += a[i] * xi[2];
        }
        y[3 * r] = y0, y[3 * r + 1] = y1, y[3 * r + 2] = y2;
    }
    e->pj->project(&e->el, y, p);
    for (int i = 0; i < nv; i++) {
        double s0 = 0.0, s1 = 0.0, s2 = 0.0;
        for (int r = 0; r < rows; r++) {
            const double a = e->A[nv * r + i];
            s0 += a * p[3 * r], s1 += a * p[3 * r + 1], s2 += a * p[3 * r + 2];
        }
        out[4 * i] = e->w * s0, out[4 * i + 1] = e->w * s1, out[4 * i + 2] = e->w * s2;
        out[4 * i + 3] = 0.0;
    }
}

/* project_nv for a one-row element of nv vertices whose hook has no sphere_radius, the
 * three coordinates in the lanes of one weft_vd4: y = Σ_i a_i x_i in vertex order, out_i =
 * w (a_i p), the same sums (x is read four doubles wide: its array has one more). */
static inline void project_row1(const pd_state *st, int q, const double *x, weft_vd4 *out,
                                const int nv) {
    const pd_elem *e = &st->e[q];
    weft_vd4 y = {0.0, 0.0, 0.0, 0.0}, xi;
    for (int i = 0; i < nv; i++) {
        memcpy(&xi, &x[3 * e->el.v[i]], sizeof xi);
        y = y + e->A[i] * xi;
    }
    double yb[4], p[3 * WEFT_PROJECTIVE_MAXROWS];
    memcpy(yb, &y, sizeof yb);
    e->pj->project(&e->el, yb, p);
    /* p's entries read one by one (volatile): the hook has just stored them one by one, and
     * a load spanning two of those stores (the compiler's merge of p[0], p[1]) cannot be
     * forwarded from the store buffer, a stall of every element. */
    const volatile double *pr = p;
    const weft_vd4 pv = {pr[0], pr[1], pr[2], 0.0};
    for (int i = 0; i < nv; i++) out[i] = e->w * (e->A[i] * pv);
}

/* project_row1 for a pd_sphere, the hook's projection written out (the operations of
 * weft_projective.sphere_radius's contract, so the same bits): y = Σ_i a_i x_i, p = (|y| >
 * 0 ? r/|y| : 0) y; out_i = w (a_i p) stored (acc NULL) or added to acc[v_i] (out unused). */
static inline void project_sphere(const pd_sphere *s, const double *x, weft_vd4 *out,
                                  weft_vd4 *acc, const int nv) {
    int v[4];
    double a[4];
    for (int i = 0; i < nv; i++) v[i] = s->v[i], a[i] = s->a[i]; /* before any store */
    const double w = s->w, r = s->r;
    weft_vd4 y = {0.0, 0.0, 0.0, 0.0}, xi;
    for (int i = 0; i < nv; i++) {
        memcpy(&xi, &x[3 * v[i]], sizeof xi);
        y = y + a[i] * xi;
    }
    const double l = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    const double c = l > 0.0 ? r / l : 0.0;
    weft_vd4 p = c * y;
    p[3] = 0.0;
    for (int i = 0; i < nv; i++) {
        const weft_vd4 o = w * (a[i] * p);
        if (acc)
            acc[v[i]] = acc[v[i]] + o;
        else
            out[i] = o;
    }
}

/* The sphere elements [q0, q1) of a run of nv vertices each: added to acc, or into their
 * slots, packed from out on. */
static inline void project_spheres(const pd_state *st, int q0, int q1, const double *x,
                                   weft_vd4 *out, weft_vd4 *acc, const int nv) {
    if (acc)
        for (int q = q0; q < q1; q++) project_sphere(&st->sph[q], x, NULL, acc, nv);
    else
        for (int q = q0; q < q1; q++, out += nv) project_sphere(&st->sph[q], x, out, NULL, nv);
}

/* The contributions of elements [q0, q1) (within one run): into their slots, or, with acc,
 * added to acc per vertex in element order (the gather's sums, done as the elements go). */
WEFT_AVX2_CLONE static void project_elems(pd_state *st, const pd_run *run, int q0, int q1,
                                          const double *x, weft_vd4 *acc) {
    const int nv = run->nv;
    if (nv == 2 || nv == 4) { /* packed: element q's slot at slot0 + PD_SLOT_V nv (q − q0) */
        const int at = run->slot0 + PD_SLOT_V * nv * (q0 - run->q0); /* ≥ 0 past range 0 */
        weft_vd4 *out = acc ? NULL : (weft_vd4 *)&st->slot[at];
        if (nv == 2)
            project_spheres(st, q0, q1, x, out, acc, 2);
        else
            project_spheres(st, q0, q1, x, out, acc, 4);
        return;
    }
    weft_vd4 own[WEFT_ELEM_MAXV];
    for (int q = q0; q < q1; q++) {
        const pd_elem *e = &st->e[q];
        weft_vd4 *o = acc ? own : (weft_vd4 *)&st->slot[e->slot];
        if (e->rows == 1 && e->nv == 2)
            project_row1(st, q, x, o, 2);
        else if (e->rows == 1 && e->nv == 4)
            project_row1(st, q, x, o, 4);
        else
            project_nv(st, q, x, (double *)o, e->nv, e->rows);
        if (acc)
            for (int i = 0; i < e->nv; i++) acc[e->el.v[i]] = acc[e->el.v[i]] + own[i];
    }
}

/* Elements [q0, q1), run by run: into their slots, or added to acc (NULL: slots). */
static void project_range(pd_state *st, int q0, int q1, const double *x, weft_vd4 *acc) {
    for (int k = 0; k < st->nrun; k++) {
        const pd_run *run = &st->run[k];
        const int a = q0 > run->q0 ? q0 : run->q0, b = q1 < run->q1 ? q1 : run->q1;
        if (a < b) project_elems(st, run, a, b, x, acc);
    }
}

/* b_i = acc_i + its slots from inc_from[i] on, in element order, for vertices [i0, i1). */
WEFT_AVX2_CLONE static void gather_range(pd_state *st, int i0, int i1) {
    const weft_vd4 *acc = (const weft_vd4 *)st->acc;
    for (int i = i0; i < i1; i++) {
        weft_vd4 b = acc[i];
        for (int j = st->inc_from[i]; j < st->inc_ptr[i + 1]; j++)
            b = b + *(const weft_vd4 *)&st->slot[st->inc[j]];
        memcpy(&st->b[3 * i], &b, 3 * sizeof(double));
    }
}

/* b = M x̃ / h² (st->bm, formed once per step) + Σ_e w_e A_eᵀ P(A_e x), each vertex's sum
 * in element order whatever the thread count: thread range 0 (the first elements) adds its
 * elements straight into acc = bm as it projects them; the other ranges, in parallel, write
 * their slots, which the gather then adds per vertex in element order (inc_from: a vertex's
 * first slot past range 0). One thread: no slots and no gather of them. */
static void local_step(pd_state *st, const weft_model *m, const double *x) {
    const int threads = st->set.common.threads;
    const long ne = st->ne, n = m->n;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int t = 0; t < threads; t++) {
            const int q0 = (int)(ne * t / threads), q1 = (int)(ne * (t + 1) / threads);
            if (t == 0) memcpy(st->acc, st->bm, PD_SLOT_V * (size_t)n * sizeof *st->acc);
            project_range(st, q0, q1, x, t == 0 ? (weft_vd4 *)st->acc : NULL);
        }
#pragma omp for schedule(static)
        for (int t = 0; t < threads; t++)
            gather_range(st, (int)(n * t / threads), (int)(n * (t + 1) / threads));
    }
}

/* ------------------------------------------------------------------------------ */
/* Global step                                                                     */
/* ------------------------------------------------------------------------------ */

/* Pins into the filter (S_i = 0 for pinned vertices, z = their positions in zpin) and,
 * when the pin set (or dt) changed, A again and its factorisation: the n×n scalar one
 * where the linear solver has factor_scalar. */
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
    weft_solve_status (*factor)(void *, const weft_bsr *, const weft_filter *, weft_error *) =
        st->linear->factor_scalar ? st->linear->factor_scalar : st->linear->factor;
    if (factor) {
        double t0 = weft_now();
        weft_solve_status s = factor(st->lin, &st->A, &st->f, err);
        st->stats.global_s += weft_now() - t0;
        if (s != WEFT_SOLVE_CONVERGED) {
            char why[sizeof err->msg]; /* err->msg is both the cause and the message */
            snprintf(why, sizeof why, "%s", err ? err->msg : "factorisation failed");
            return weft_fail(err, weft_solve_status_code(s), "projective_dynamics: step %d: %s",
                             st->step, why);
        }
    }
    st->stats.refactors++;
    st->factored = true;
    return WEFT_OK;
}

/* x = A⁻¹ b on the free DOFs, pins from the filter: the three coordinates in one solve
 * with the scalar factor, else with the 3n factor or the linear solver's own solve. */
static int global_step(pd_state *st, double *x, weft_error *err) {
    double t0 = weft_now();
    weft_solve_status s;
    const weft_linear_type *L = st->linear;
    if (L->solve_scalar)
        s = L->solve_scalar(st->lin, &st->A, &st->f, st->b, x, err);
    else if (L->solve_factored)
        s = L->solve_factored(st->lin, &st->A, &st->f, st->b, x, err);
    else
        s = L->solve(st->lin, &st->A, &st->f, st->b, x, st->x, NULL, NULL, NULL, err);
    st->stats.solves++;
    st->stats.global_s += weft_now() - t0;
    if (s == WEFT_SOLVE_MAX_ITER) s = WEFT_SOLVE_CONVERGED; /* an inexact iterative solve */
    if (s != WEFT_SOLVE_CONVERGED)
        return weft_fail(err, weft_solve_status_code(s),
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
            double np[3], n[3], q[3];
            double dp = weft_contact_gap(col, p, t1, margin, np);
            if (!weft_contact_swept_entry(col, xn, t0, p, t1, margin, q, n)) {
                if (!(dp < 0.0)) continue;
                for (int k = 0; k < 3; k++) n[k] = np[k], q[k] = p[k] - dp * np[k];
            }
            double C = (p[0] - q[0]) * n[0] + (p[1] - q[1]) * n[1] + (p[2] - q[2]) * n[2];
            if (!(C < 0.0)) continue;
            double vn = weft_contact_path_approach(col, xn, t0, p, t1, n);
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
        weft_contact_velocity_update(&m->colliders[c], &m->x[3 * i], m->t + m->dt, &m->v[3 * i],
                                     &st->cn[3 * i], st->vnb[i]);
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
    const double ih2 = 1.0 / (st->h * st->h); /* st->h: dt, set by prepare_global */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) st->bm[4 * i + k] = m->mass[i] * ih2 * st->xt[3 * i + k];
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
