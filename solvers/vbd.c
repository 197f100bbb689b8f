/* vbd.c — Vertex Block Descent (Chen, Liu, Yang & Yuksel 2024, "Vertex Block Descent",
 * ACM TOG 43(4)), with the Chebyshev semi-iterative acceleration of Wang 2015 ("A
 * Chebyshev semi-iterative approach for accelerating projective and position-based
 * dynamics") as an option. papers/chen2024-vbd.md maps each equation to code and tests.
 *
 * Backward Euler as minimisation (the paper's variational form):  x_{n+1} = argmin G(x),
 *     G(x) = 1/(2h²) ‖x − y‖²_M + E(x),   y = x_n + h v_n + h² g   (the inertial target x̃).
 * Block coordinate descent over vertices: vertex i moves to lower the local potential with
 * every other vertex fixed (the local system),
 *     G_i(x_i) = m_i/(2h²) ‖x_i − y_i‖² + Σ_{j ∈ F_i} Ψ_j(x),   F_i the elements holding i,
 * by one Newton step on its 3×3 block:
 *     f_i = −m_i/h² (x_i − y_i) − Σ_j ∂Ψ_j/∂x_i,   H_i = m_i/h² I + Σ_j ∂²Ψ_j/∂x_i²,
 *     Δx_i = H_i⁻¹ f_i.
 * f_i and H_i come from the energy descriptors alone (each incident element's gradient and
 * Hessian, the block of vertex i taken out: vb_vertex_block in vertex_block.c), so every
 * registered energy runs, with no per-energy code here.
 *
 * Safeguards. Blocks: [vbd] hessian = projected (default) sums the PSD-projected element
 * Hessians (WEFT_HESSIAN_ANALYTIC), so H_i ⪰ m_i/h² I is positive definite; hessian = exact
 * sums the exact blocks, as the paper writes them, and where the sum is not positive
 * definite (3×3 Cholesky fails) takes the gradient step Δx_i = f_i / λ instead, λ ≥ m_i/h² a
 * bound on the block's largest |eigenvalue| (its largest absolute row sum). Either
 * way a block whose determinant is below 1e-12 (tr H/3)³ is skipped, as the paper skips
 * |det H_i| ≤ ε. Line search ([vbd] line_search, default on): Δx_i is halved until G_i does
 * not increase (at most 10 halvings, then the vertex stays): since the vertices of one
 * colour share no element, G falls by the sum of their G_i decreases, so G never increases
 * within a step without Chebyshev (the paper reports descent; this makes it a guarantee).
 * A step whose predicted decrease f_i·Δx_i is below 1e-12 |G_i|, which G_i's rounding
 * cannot resolve, is taken whole (as newton.c does near the solution).
 *
 * Order: vertices in the colours of a greedy colouring of the vertex graph (two vertices
 * adjacent when an element holds both), colour after colour (Gauss-Seidel across colours);
 * within a colour no two vertices share an element, so their updates are independent and
 * run in parallel ([solver] threads) with results bitwise identical for any thread count.
 *
 * Initial guess ([vbd] initial_guess): `adaptive` (the paper's adaptive initialisation, the
 * default):
 *     x⁰ = x_n + h v_n + h² ã,  ã = g clamp(a_n·ĝ / ‖g‖, 0, 1),  a_n = (v_n − v_{n−1})/h,
 * per vertex, and y itself on the first step (no v_{n−1} yet) or when g = 0; `inertia`: y;
 * `velocity`: x_n + h v_n; `previous`: x_n. x⁰ falls back to x_n when G(x⁰) is not finite.
 *
 * Chebyshev ([vbd] chebyshev_rho = ρ ∈ [0, 1); 0 = off), as the paper's accelerated
 * iteration takes it from Wang 2015 (the schedule of chebyshev.c): with x̄^(k)
 * the sweep of x^(k−1),
 *     x^(k) = ω_k (γ (x̄^(k) − x^(k−1)) + x^(k−1) − x^(k−2)) + x^(k−2),
 *     ω_1 = 1, ω_2 = 2/(2 − ρ²), ω_k = 4/(4 − ρ² ω_{k−1})
 * (the paper's S = 2 unless [vbd] chebyshev_delay sets one; γ = chebyshev_gamma, 1 by
 * default), on the free vertices, restarted every step. ρ estimates the spectral radius of the plain
 * iteration: run without acceleration, read the linear rate of the residual over the late
 * iterations of a step, ρ ≈ (r_k / r_j)^(1/(k − j)), and take a little less (too large a ρ
 * diverges, too small a one gains little). The acceleration gives up the descent guarantee.
 *
 * Pins: fixed vertices at their scripted positions at t + h, never updated. Colliders
 * (planes, spheres, boxes): the initial guess of a vertex whose path x_n → x⁰ enters a
 * collider stops at the entry point (as PBD's continuous contact, §3.4 of Müller 2006), and
 * every trial position is projected out of every collider (offset by the contact margin),
 * so the line search compares feasible points only. After the iterations v = (x − x_n)/h,
 * and a vertex touching a collider gets restitution and Coulomb friction from the shared
 * contact response (weft_contact_response), as PBD's velocity update. Triangle-mesh
 * obstacles and self-collision are the collision pipeline's ([collision] pipeline =
 * bridson), which the run loop runs after this step.
 *
 * Pressure ([pbd] k_pressure > 0 on a closed mesh): the balloon's hard constraint
 * C(x) = V(x) − k_pressure V0 of Müller 2006 §4.4, the one PBD and xpbd project, with its
 * multiplier λ (N/m², minus the overpressure), so that a converged step solves backward
 * Euler with the constraint: ∇G(x) + λ ∇V(x) = 0, C(x) = 0. In the vertex steps λ is held:
 * the term λ V adds λ ∂V/∂x_i to vertex i's gradient, computed before each colour (no two
 * vertices of a colour share a triangle, so ∂V/∂x_i does not change within it), and nothing
 * to its block, since V = (1/6) Σ_t (x_a × x_b)·x_c is affine in each single vertex
 * (∂²V/∂x_i² = 0; test_vbd.pressure_block). After each sweep the multiplier takes the step
 * that meets the linearised constraint through the inertia, Δλ = C / (h² Σ_i w_i |∂V/∂x_i|²),
 * x_i −= h² w_i ∂V/∂x_i Δλ (PBD's projection of §4.4, with the impulse kept in λ), then the
 * vertices are projected out of the colliders. λ carries over from step to step.
 *
 * Passes per step: one over the vertices to predict, then per iteration one sweep over the
 * vertices, each evaluating the gradient and Hessian of each incident element (an element
 * of nv vertices is evaluated nv times per sweep) and, with the line search, its energy
 * once per trial; one pass to update velocities.
 */
#include "vertex_block.h"
#include "weft_energies.h"
#include "weft_solvers.h"
#include "weft_sparse.h"
#include "weft_vec.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define VBD_MAX_HALVINGS 10  /* line-search halvings before a vertex stays */
#define VBD_DET_EPS 1e-12    /* |det H_i| ≤ ε (tr H_i / 3)³: the block is skipped */
#define VBD_G_ROUNDING 1e-12 /* relative change of G_i taken as rounding */
#define VBD_TOUCH 1e-9       /* m: a vertex this close to a collider takes its response */

/* Initial guesses ([vbd] initial_guess). */
enum { VBD_INIT_ADAPTIVE, VBD_INIT_INERTIA, VBD_INIT_VELOCITY, VBD_INIT_PREVIOUS };
/* Blocks ([vbd] hessian). */
enum { VBD_HESSIAN_PROJECTED, VBD_HESSIAN_EXACT };

/* The settings of vbd: [solver] iterations, threads, and its own [vbd] section. */
typedef struct vbd_settings {
    weft_solver_common common; /* [solver] iterations (sweeps per step), threads */
    int initial_guess;         /* [vbd] adaptive (default), inertia, velocity, previous */
    int hessian;               /* [vbd] projected (default) or exact element Hessians */
    bool line_search;          /* [vbd] halve Δx_i until G_i does not increase (default on) */
    weft_chebyshev chebyshev;  /* [vbd] Wang 2015's ρ (0 = off), S (0: Chen's 2) and γ */
    double k_pressure;         /* [pbd] the balloon's overpressure factor (0: none) */
} vbd_settings;

// clang-format off
#define F(field) offsetof(vbd_settings, field)
static const char *const init_names[] = {"adaptive", "inertia", "velocity", "previous", NULL};
static const char *const hessian_names[] = {"projected", "exact", NULL};
static const weft_param vbd_params[] = {
    {.key = "initial_guess", .type = WEFT_PARAM_NAME, .offset = F(initial_guess), .unit = "",
     .names = init_names, .dflt_name = "adaptive",
     .doc = "start of each step: adaptive (Chen 2024's, from the last acceleration), inertia y, x_n + h v_n, or x_n"},
    {.key = "hessian", .type = WEFT_PARAM_NAME, .offset = F(hessian), .unit = "",
     .names = hessian_names, .dflt_name = "projected",
     .doc = "vertex blocks from PSD-projected or exact element Hessians (exact: gradient step "
            "where the block is not positive definite)"},
    {.key = "line_search", .type = WEFT_PARAM_BOOL, .offset = F(line_search), .unit = "",
     .dflt = 1, .doc = "halve each vertex's step until its local potential G_i does not increase"},
    {0},
};
#undef F
// clang-format on

/* The physics [pbd] adds that vbd runs: the balloon's volume constraint (the same row as
 * the PBD solvers'; not self-collision, which is the collision pipeline's here). */
static const weft_param vbd_pressure_params[] = {
    {.key = "k_pressure", .type = WEFT_PARAM_DOUBLE, .offset = 0, .unit = "1", .lo = 0,
     .hi = 100, .flags = WEFT_PARAM_MODEL, .dflt = 0,
     .doc = "§4.4 balloon overpressure V = k V0 (closed meshes; 0: none)"},
    {0},
};

static const weft_param_table vbd_tables[] = {
    {"solver", weft_iterations_params, offsetof(vbd_settings, common)},
    {"solver", weft_threads_params, offsetof(vbd_settings, common)},
    {"vbd", vbd_params, 0},
    {"vbd", weft_chebyshev_params, offsetof(vbd_settings, chebyshev)},
    {"pbd", vbd_pressure_params, offsetof(vbd_settings, k_pressure)},
    {0},
};

/* Counters and timers of a run, summed over its steps. */
typedef struct vbd_stats {
    long sweeps;         /* inner iterations */
    long vertex_updates; /* vertex Newton steps taken (a full or shortened step) */
    long halvings;       /* line-search halvings */
    long rejected;       /* vertices left in place: no decrease after every halving */
    long skipped;        /* singular or non-finite blocks, left in place */
    long gradient_steps; /* exact blocks that were not positive definite */
    double predict_s, sweep_s, chebyshev_s, update_s;
} vbd_stats;

typedef struct vbd_state {
    vbd_settings set;
    int n;
    vb_graph graph; /* incidence and colouring (vertex_block.c) */
    /* 3n vectors: iterate, inertial target y, Chebyshev's x^(k−1) and x^(k−2), v_{n−1}. */
    double *x, *y, *xkm1, *xkm2, *vprev;
    bool have_vprev;
    bool balloon;   /* [pbd] k_pressure > 0: the volume constraint */
    double lambda;  /* its multiplier, N/m² (minus the overpressure) */
    double *vgrad;  /* ∇V at the iterate, 3n, m² (balloon) */
    vbd_stats stats;
} vbd_state;

/* Per-thread counts of a sweep, summed after each colour (integers: the same sum in any
 * order). */
typedef struct vbd_counts {
    long updates, halvings, rejected, skipped, gradient_steps;
} vbd_counts;

static void vbd_destroy(void *state) {
    vbd_state *st = state;
    if (!st) return;
    vb_graph_free(&st->graph);
    free(st->x), free(st->y), free(st->xkm1), free(st->xkm2), free(st->vprev);
    free(st->vgrad);
    free(st);
}

static void *vbd_create(const weft_model *m, weft_config *cfg, weft_error *err) {
    vbd_state *st = calloc(1, sizeof *st);
    if (!st) {
        weft_fail(err, WEFT_ERR_NOMEM, "vbd: out of memory");
        return NULL;
    }
    weft_config_settings(cfg, vbd_tables, &st->set);
    st->n = m->n;
    st->balloon = st->set.k_pressure > 0.0;
    if (st->balloon && !m->mesh.closed) {
        char w[330];
        weft_config_where(cfg, "pbd", "k_pressure", w, sizeof w);
        weft_fail(err, WEFT_ERR_INPUT, "%s%spbd.k_pressure: the balloon constraint needs a "
                  "closed mesh", w, w[0] ? ": " : "");
        free(st);
        return NULL;
    }
    size_t n3 = 3 * (size_t)(m->n > 0 ? m->n : 1);
    double **v[] = {&st->x, &st->y, &st->xkm1, &st->xkm2, &st->vprev, &st->vgrad};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        if (!(*v[k] = calloc(n3, sizeof(double)))) {
            vbd_destroy(st);
            weft_fail(err, WEFT_ERR_NOMEM, "vbd: out of memory");
            return NULL;
        }
    if (vb_graph_build(&st->graph, m, "vbd", err)) {
        vbd_destroy(st);
        return NULL;
    }
    return st;
}

/* ------------------------------------------------------------------------------ */
/* The vertex step                                                                 */
/* ------------------------------------------------------------------------------ */

/* G_i with vertex i at p (the local potential): m_i/(2h²)|p − y_i|² + Σ_{j ∋ i} Ψ_j; +inf outside
 * an energy's domain. */
static double local_potential(const vbd_state *st, const weft_model *m, const double *x, int i,
                              const double *p) {
    const double h = m->dt, *y = &st->y[3 * i];
    double d[3] = {p[0] - y[0], p[1] - y[1], p[2] - y[2]};
    double own = 0.5 * m->mass[i] * weft_dot3(d, d) / (h * h);
    if (st->balloon) own += st->lambda * weft_dot3(&st->vgrad[3 * i], p); /* λ V, affine in p */
    return vb_vertex_energy(&st->graph, m, x, i, p, own);
}

/* Moves p (m) out of every collider as it stands at time t, onto its surface offset by the
 * contact margin, colliders in scene order. */
static void project_out(const weft_model *m, double t, double *p) {
    for (int c = 0; c < m->ncolliders; c++) {
        double nrm[3];
        double d = weft_collider_distance_at(&m->colliders[c], p, t, nrm) - m->contact_margin;
        if (d < 0.0)
            for (int k = 0; k < 3; k++) p[k] -= d * nrm[k];
    }
}

/* One vertex's Newton step (the local system) with the safeguards of the file comment, on x in
 * place (only x_i changes). t1: the step's end time, for colliders. */
static void vertex_step(const vbd_state *st, const weft_model *m, double *x, int i, double t1,
                        vbd_counts *cnt) {
    const double h = m->dt, mi = m->mass[i], mh = mi / (h * h);
    double *xi = &x[3 * i];
    double f[3], H[9];
    weft_hessian_mode mode =
        st->set.hessian == VBD_HESSIAN_EXACT ? WEFT_HESSIAN_EXACT : WEFT_HESSIAN_ANALYTIC;
    if (!vb_vertex_block(&st->graph, m, x, i, mode, f, H)) {
        cnt->skipped++;
        return;
    }
    /* The inertia term: f_i −= m_i/h² (x_i − y_i), H_i += m_i/h² I; the volume
     * constraint's held force: f_i −= λ ∂V/∂x_i (its block is 0). */
    for (int k = 0; k < 3; k++) {
        f[k] -= mh * (xi[k] - st->y[3 * i + k]);
        if (st->balloon) f[k] -= st->lambda * st->vgrad[3 * i + k];
        H[4 * k] += mh;
    }
    double det = H[0] * (H[4] * H[8] - H[5] * H[7]) - H[1] * (H[3] * H[8] - H[5] * H[6]) +
                 H[2] * (H[3] * H[7] - H[4] * H[6]);
    double tr = (H[0] + H[4] + H[8]) / 3.0;
    if (!(fabs(det) > VBD_DET_EPS * fabs(tr * tr * tr))) { /* the paper's skip */
        cnt->skipped++;
        return;
    }
    double L[9], dx[3];
    if (weft_cholesky33(H, L)) {
        weft_cholesky33_solve(L, f, dx);
    } else {
        /* An exact block that is not positive definite: steepest descent, scaled by a
         * bound on the block's largest |eigenvalue| (its largest absolute row sum,
         * Gershgorin), at least m_i/h²: Δx_i = f_i / λ. */
        double lam = mh;
        for (int r = 0; r < 3; r++)
            lam = fmax(lam, fabs(H[3 * r]) + fabs(H[3 * r + 1]) + fabs(H[3 * r + 2]));
        if (!(lam > 0.0)) {
            cnt->skipped++;
            return;
        }
        for (int k = 0; k < 3; k++) dx[k] = f[k] / lam;
        cnt->gradient_steps++;
    }
    double p[3];
    if (!st->set.line_search) {
        for (int k = 0; k < 3; k++) p[k] = xi[k] + dx[k];
        project_out(m, t1, p);
        if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))) {
            cnt->skipped++;
            return;
        }
        for (int k = 0; k < 3; k++) xi[k] = p[k];
        cnt->updates++;
        return;
    }
    /* G_i cannot resolve a step whose predicted decrease f·Δx is at its rounding level
     * (near the solution, where the local model is exact to rounding): take it whole. */
    double G0 = local_potential(st, m, x, i, xi), alpha = 1.0;
    if (weft_dot3(f, dx) <= VBD_G_ROUNDING * fabs(G0)) {
        for (int k = 0; k < 3; k++) p[k] = xi[k] + dx[k];
        project_out(m, t1, p);
        if (isfinite(local_potential(st, m, x, i, p))) {
            for (int k = 0; k < 3; k++) xi[k] = p[k];
            cnt->updates++;
            return;
        }
    }
    for (int bt = 0; bt <= VBD_MAX_HALVINGS; bt++, alpha *= 0.5) {
        for (int k = 0; k < 3; k++) p[k] = xi[k] + alpha * dx[k];
        project_out(m, t1, p);
        double G = local_potential(st, m, x, i, p);
        if (G < G0 || (G == G0 && isfinite(G))) {
            for (int k = 0; k < 3; k++) xi[k] = p[k];
            cnt->updates++;
            cnt->halvings += bt;
            return;
        }
    }
    cnt->halvings += VBD_MAX_HALVINGS;
    cnt->rejected++;
}

/* One VBD iteration: every colour in turn, its vertices in parallel. */
static void sweep(vbd_state *st, const weft_model *m, double *x, double t1) {
    vbd_counts total = {0};
    const vb_graph *gr = &st->graph;
    for (int c = 0; c < gr->ncolours; c++) {
        const int first = gr->colour_ptr[c], end = gr->colour_ptr[c + 1];
        if (st->balloon) weft_mesh_volume_gradient(&m->mesh, x, st->vgrad);
        long upd = 0, hv = 0, rej = 0, skp = 0, grd = 0;
#pragma omp parallel for num_threads(st->set.common.threads) schedule(static) \
    reduction(+ : upd, hv, rej, skp, grd)
        for (int k = first; k < end; k++) {
            vbd_counts cnt = {0};
            vertex_step(st, m, x, gr->order[k], t1, &cnt);
            upd += cnt.updates, hv += cnt.halvings, rej += cnt.rejected;
            skp += cnt.skipped, grd += cnt.gradient_steps;
        }
        total.updates += upd, total.halvings += hv, total.rejected += rej;
        total.skipped += skp, total.gradient_steps += grd;
    }
    st->stats.vertex_updates += total.updates;
    st->stats.halvings += total.halvings;
    st->stats.rejected += total.rejected;
    st->stats.skipped += total.skipped;
    st->stats.gradient_steps += total.gradient_steps;
    st->stats.sweeps++;
}

/* ------------------------------------------------------------------------------ */
/* The step                                                                        */
/* ------------------------------------------------------------------------------ */

/* x⁰ of the step ([vbd] initial_guess) into st->x, with pins at t + h and the paths
 * x_n → x⁰ stopped where they enter a collider. */
static void initial_guess(vbd_state *st, const weft_model *m, double t0, double t1) {
    const double h = m->dt, *g = m->gravity;
    const double gg = sqrt(weft_dot3(g, g));
    for (int i = 0; i < m->n; i++) {
        const double *xn = &m->x[3 * i], *vn = &m->v[3 * i];
        double *x0 = &st->x[3 * i];
        double s = 1.0; /* the share of h² g in x⁰ */
        switch (st->set.initial_guess) {
        case VBD_INIT_ADAPTIVE:
            if (st->have_vprev && gg > 0.0) {
                double a = 0.0; /* a_n · ĝ, a_n = (v_n − v_{n−1})/h */
                for (int k = 0; k < 3; k++) a += (vn[k] - st->vprev[3 * i + k]) / h * g[k] / gg;
                s = fmin(fmax(a / gg, 0.0), 1.0);
            }
            for (int k = 0; k < 3; k++) x0[k] = xn[k] + h * vn[k] + h * h * s * g[k];
            break;
        case VBD_INIT_INERTIA:
            memcpy(x0, &st->y[3 * i], 3 * sizeof *x0);
            break;
        case VBD_INIT_VELOCITY:
            for (int k = 0; k < 3; k++) x0[k] = xn[k] + h * vn[k];
            break;
        default:
            memcpy(x0, xn, 3 * sizeof *x0);
            break;
        }
    }
    weft_model_apply_pins(m, t1, st->x);
    if (m->ncolliders == 0) return;
    for (int i = 0; i < m->n; i++) {
        if (m->pin[i] >= 0) continue;
        const double *xn = &m->x[3 * i];
        double *x0 = &st->x[3 * i];
        for (int c = 0; c < m->ncolliders; c++) {
            const weft_collider *col = &m->colliders[c];
            if (weft_collider_distance_at(col, xn, t0, NULL) - m->contact_margin < 0.0)
                continue; /* starts inside: the projection below takes it out */
            /* The path in the collider's frame (itself for a static collider). */
            const bool moving = weft_collider_moving(col);
            double xr[3], pr[3], t, nrm[3];
            for (int k = 0; k < 3; k++) {
                xr[k] = moving ? xn[k] - col->velocity[k] * t0 : xn[k];
                pr[k] = moving ? x0[k] - col->velocity[k] * t1 : x0[k];
            }
            if (weft_collider_segment_entry(col, xr, pr, m->contact_margin, &t, nrm))
                for (int k = 0; k < 3; k++)
                    x0[k] = xr[k] + t * (pr[k] - xr[k]) + (moving ? col->velocity[k] * t1 : 0.0);
        }
        project_out(m, t1, x0);
    }
}

/* After the iterations: v = (x − x_n)/h, x = x_{n+1}; a vertex touching a collider keeps
 * at least −e times the normal velocity of its inertial motion x_n → y (restitution) and
 * loses tangential speed to Coulomb friction, through the shared contact response. */
static void end_step(vbd_state *st, weft_model *m, double t1) {
    const double h = m->dt;
    for (int j = 0; j < 3 * m->n; j++) {
        st->vprev[j] = m->v[j]; /* v_n: next step's v_{n−1} */
        double xn = m->x[j];
        m->x[j] = st->x[j];
        m->v[j] = (st->x[j] - xn) / h;
    }
    st->have_vprev = true;
    for (int i = 0; i < m->n && m->ncolliders > 0; i++) {
        if (m->pin[i] >= 0) continue;
        double *xi = &m->x[3 * i], *vi = &m->v[3 * i];
        for (int c = 0; c < m->ncolliders; c++) {
            const weft_collider *col = &m->colliders[c];
            double nrm[3];
            double d = weft_collider_distance_at(col, xi, t1, nrm) - m->contact_margin;
            if (d > VBD_TOUCH) continue;
            const double *u = weft_collider_moving(col) ? col->velocity : NULL;
            /* The inertial motion's normal velocity, (y − x_n)/h = v_n + h g, relative to
             * the collider. */
            double vin[3];
            for (int k = 0; k < 3; k++) vin[k] = st->vprev[3 * i + k] + h * m->gravity[k];
            double vn_before = weft_contact_normal_velocity(vin, nrm, u);
            double vn = weft_contact_normal_velocity(vi, nrm, u), vn_new = vn;
            if (vn_before < 0.0 && vn < -col->restitution * vn_before)
                vn_new = -col->restitution * vn_before;
            weft_contact_response(vi, nrm, u, vn_new, fabs(vn_new - vn_before), col->friction);
        }
    }
    m->t = t1;
}

/* The volume constraint's multiplier step after a sweep (file comment): Δλ from the
 * linearised constraint through the inertia, the free vertices moved by −h² w_i ∇_iV Δλ
 * and projected out of the colliders at t1. */
static void pressure_step(vbd_state *st, const weft_model *m, double t1) {
    const double h = m->dt;
    double V = weft_mesh_volume_gradient(&m->mesh, st->x, st->vgrad);
    double C = V - st->set.k_pressure * m->rest_volume, S = 0.0;
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] < 0) S += m->w[i] * weft_dot3(&st->vgrad[3 * i], &st->vgrad[3 * i]);
    if (!(S > 0.0)) return;
    double dl = C / (h * h * S);
    st->lambda += dl;
    for (int i = 0; i < m->n; i++) {
        if (m->pin[i] >= 0) continue;
        double *xi = &st->x[3 * i];
        for (int k = 0; k < 3; k++) xi[k] -= h * h * m->w[i] * st->vgrad[3 * i + k] * dl;
        if (m->ncolliders > 0) project_out(m, t1, xi);
    }
}

/* True when every coordinate of x (3n) is finite. */
static bool finite_all(const double *x, int n) {
    for (int j = 0; j < 3 * n; j++)
        if (!isfinite(x[j])) return false;
    return true;
}

static int vbd_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    vbd_state *st = state;
    WEFT_ASSERT(st->n == m->n);
    const int n = m->n;
    const size_t bytes = 3 * (size_t)n * sizeof(double);
    const double t0 = m->t, t1 = m->t + m->dt;
    double c0 = weft_now();
    weft_inertial_target(m, m->x, m->v, st->y);
    initial_guess(st, m, t0, t1);
    /* G must be finite where the descent starts (an element outside its domain is not). */
    if (!isfinite(weft_model_energy(m, st->x))) {
        memcpy(st->x, m->x, bytes);
        weft_model_apply_pins(m, t1, st->x);
        for (int i = 0; i < n && m->ncolliders > 0; i++)
            if (m->pin[i] < 0) project_out(m, t1, &st->x[3 * i]);
        if (!isfinite(weft_model_energy(m, st->x)))
            return weft_fail(err, WEFT_ERR_DIVERGED,
                             "vbd: t = %g s: the energy is not finite at the start of the step",
                             t0);
    }
    st->stats.predict_s += weft_now() - c0;
    weft_monitor_iteration(mon, st->x, 0);

    const double rho = st->set.chebyshev.rho, gamma = st->set.chebyshev.gamma;
    double omega = 1.0;
    if (rho > 0.0) memcpy(st->xkm2, st->x, bytes); /* x^(−1) = x^(0): restarted every step */
    for (int it = 1; it <= st->set.common.iterations; it++) {
        c0 = weft_now();
        if (rho > 0.0) memcpy(st->xkm1, st->x, bytes); /* x^(k−1) */
        sweep(st, m, st->x, t1);                       /* x̄^(k) */
        double c1 = weft_now();
        st->stats.sweep_s += c1 - c0;
        if (rho > 0.0) {
            /* chebyshev.c: ω_1 = 1, ω_2 = 2/(2 − ρ²), ω_k = 4/(4 − ρ² ω_{k−1}) (Chen's S = 2) */
            double w = weft_chebyshev_weight(&st->set.chebyshev, 2, it, &omega);
            if (w > 0.0) {
                for (int i = 0; i < n; i++) {
                    if (m->pin[i] >= 0) continue;
                    double *xi = &st->x[3 * i];
                    const double *xc = &st->xkm1[3 * i], *xo = &st->xkm2[3 * i];
                    for (int k = 0; k < 3; k++) xi[k] = weft_chebyshev_mix(w, gamma, xi[k], xc[k], xo[k]);
                    if (m->ncolliders > 0) project_out(m, t1, xi);
                }
            }
            double *tmp = st->xkm2; /* x^(k−1) becomes the next iteration's x^(k−2) */
            st->xkm2 = st->xkm1;
            st->xkm1 = tmp;
            st->stats.chebyshev_s += weft_now() - c1;
        }
        if (st->balloon) pressure_step(st, m, t1);
        weft_monitor_iteration(mon, st->x, it);
    }
    c0 = weft_now();
    if (!finite_all(st->x, n))
        return weft_fail(err, WEFT_ERR_DIVERGED, "vbd: t = %g s: non-finite positions", t0);
    end_step(st, m, t1);
    st->stats.update_s += weft_now() - c0;
    return WEFT_OK;
}

/* Timers predict, sweep, chebyshev, update (s); counters sweeps, vertex_updates, halvings,
 * rejected, skipped, gradient_steps. */
static void vbd_stats_hook(const void *state, weft_profile *out) {
    const vbd_stats *s = &((const vbd_state *)state)->stats;
    weft_profile_add(out, "predict", WEFT_PROFILE_TIMER, s->predict_s);
    weft_profile_add(out, "sweep", WEFT_PROFILE_TIMER, s->sweep_s);
    weft_profile_add(out, "chebyshev", WEFT_PROFILE_TIMER, s->chebyshev_s);
    weft_profile_add(out, "update", WEFT_PROFILE_TIMER, s->update_s);
    weft_profile_add(out, "sweeps", WEFT_PROFILE_COUNT, (double)s->sweeps);
    weft_profile_add(out, "vertex_updates", WEFT_PROFILE_COUNT, (double)s->vertex_updates);
    weft_profile_add(out, "halvings", WEFT_PROFILE_COUNT, (double)s->halvings);
    weft_profile_add(out, "rejected", WEFT_PROFILE_COUNT, (double)s->rejected);
    weft_profile_add(out, "skipped", WEFT_PROFILE_COUNT, (double)s->skipped);
    weft_profile_add(out, "gradient_steps", WEFT_PROFILE_COUNT, (double)s->gradient_steps);
}

const weft_solver_type weft_vbd = {
    .name = "vbd",
    .paper = "Chen et al. 2024, Vertex Block Descent (Chebyshev: Wang 2015)",
    .iteration = "one sweep over the vertices, colour by colour, one 3x3 Newton step each",
    .summary = "vertex block descent on the incremental potential: backward Euler by block "
               "coordinate descent, any energy, parallel within a colour",
    .settings_size = sizeof(vbd_settings),
    .settings = vbd_tables,
    .create = vbd_create,
    .step = vbd_step,
    .destroy = vbd_destroy,
    .stats = vbd_stats_hook,
    .caps = {.order = 1, .contact = "continuous entry stop and projection out of colliders"},
};
