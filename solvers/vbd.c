/* vbd.c — Vertex Block Descent (Chen, Liu, Yang & Yuksel 2024, "Vertex Block Descent",
 * ACM TOG 43(4)), with Wang 2015's Chebyshev acceleration as an option. papers/chen2024-vbd.md
 * maps each equation to code and tests and gives the departures and measurements.
 *
 * Backward Euler as minimisation:  x_{n+1} = argmin G(x),
 *     G(x) = 1/(2h²) ‖x − y‖²_M + E(x),   y = x_n + h v_n + h² g   (the inertial target x̃),
 * by block coordinate descent over vertices: vertex i, every other vertex fixed, takes one
 * Newton step on its local potential
 *     G_i(x_i) = m_i/(2h²) ‖x_i − y_i‖² + Σ_{j ∈ F_i} Ψ_j(x),   F_i the elements holding i,
 *     f_i = −∇G_i,   H_i = m_i/h² I + Σ_j ∂²Ψ_j/∂x_i²,   Δx_i = H_i⁻¹ f_i,
 * from the energy descriptors alone (vertex_block.c), with the shared policy of a local
 * Newton step (vb_vertex_direction, vb_line_search: the projected block where the exact one
 * is not positive definite, halving until G_i does not rise, the whole step at rounding).
 * Vertices go colour by colour (a greedy colouring of the vertex graph); within a colour no
 * two share an element, so they run in parallel, bitwise identical for any thread count.
 * Chebyshev (ρ > 0): x^(k) = ω_k (x̄^(k) − x^(k−2)) + x^(k−2), ω_1 = 1, ω_2 = 2/(2 − ρ²),
 * ω_k = 4/(4 − ρ² ω_{k−1}). Colliders: the initial guess stops where x_n → x⁰ enters one,
 * trials are projected out, and touching vertices get the shared contact response. The
 * balloon's volume constraint (Müller 2006 §4.4) is held as a multiplier λ in the vertex
 * steps and updated after each sweep, from λ = 0 at each step's start. [contact] model =
 * ipc (vbd_ipc.c, Chen §3.7): Li 2020's barrier elements in G_i, each step clipped to a
 * conservative bound in place of the collider handling.
 * Settings: [solver] iterations (sweeps per step), threads; [vbd] initial_guess (adaptive,
 * inertia, velocity, previous), hessian (exact, projected), line_search, chebyshev_*
 * (solvers/chebyshev.c), ipc_interval, ipc_gamma, ipc_radius; [pbd] k_pressure; [contact].
 * Passes per step: one over the vertices to predict, then per iteration one sweep over the
 * vertices, each evaluating the gradient and Hessian of each incident element (an element
 * of nv vertices nv times per sweep; G_i at the start point from the Ψ_j those calls return)
 * and its energy once per line-search trial; one pass to update velocities.
 */
#include "vbd_ipc.h"
#include "vertex_block.h"
#include "weft_energies.h"
#include "weft_solvers.h"
#include "weft_sparse.h"
#include "weft_vec.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define VBD_TOUCH 1e-9       /* m: a vertex this close to a collider takes its response */

/* Initial guesses ([vbd] initial_guess). */
enum { VBD_INIT_ADAPTIVE, VBD_INIT_INERTIA, VBD_INIT_VELOCITY, VBD_INIT_PREVIOUS };
/* Blocks ([vbd] hessian). */
enum { VBD_HESSIAN_PROJECTED, VBD_HESSIAN_EXACT };

/* The settings of vbd: [solver] iterations, threads, and its own [vbd] section. */
typedef struct vbd_settings {
    weft_solver_common common; /* [solver] iterations (sweeps per step), threads */
    int initial_guess;         /* [vbd] adaptive (default), inertia, velocity, previous */
    int hessian;               /* [vbd] exact (default; projected where not PD) or projected */
    bool line_search;          /* [vbd] halve Δx_i until G_i does not increase (default on) */
    weft_chebyshev chebyshev;  /* [vbd] Wang 2015's ρ (0 = off), S (0: Chen's 2) and γ */
    double k_pressure;         /* [pbd] the balloon's overpressure factor (0: none) */
    int ipc_interval;          /* [vbd] sweeps between refreshes under ipc (vbd_ipc.h) */
    double ipc_gamma;          /* [vbd] Chen 2024's γ_p of the displacement bound */
    double ipc_radius;         /* [vbd] the bound's query radius, m (0: from the motion) */
    weft_contact_settings contact; /* [contact]: the contact model (ipc_contact.h) */
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
     .names = hessian_names, .dflt_name = "exact",
     .doc = "vertex blocks from PSD-projected or exact element Hessians (exact: the projected "
            "block where the exact one is not positive definite)"},
    {.key = "line_search", .type = WEFT_PARAM_BOOL, .offset = F(line_search), .unit = "",
     .dflt = 1, .doc = "halve each vertex's step until its local potential G_i does not increase"},
    {.key = "ipc_interval", .type = WEFT_PARAM_INT, .offset = F(ipc_interval), .unit = "",
     .lo = 1, .hi = 1000000, .dflt = 1,
     .doc = "[contact] model = ipc: sweeps between refreshes of the pair set and the "
            "displacement bounds (also after a sweep that clipped a vertex)"},
    {.key = "ipc_gamma", .type = WEFT_PARAM_DOUBLE, .offset = F(ipc_gamma), .unit = "1",
     .lo = 0, .hi = 0.5, .flags = WEFT_PARAM_LO_OPEN | WEFT_PARAM_HI_OPEN, .dflt = 0.4,
     .doc = "[contact] model = ipc: Chen 2024's gamma, a vertex moves at most gamma (d_min - "
            "xi) between refreshes"},
    {.key = "ipc_radius", .type = WEFT_PARAM_DOUBLE, .offset = F(ipc_radius), .unit = "m",
     .lo = 0, .hi = 100, .dflt = 0,
     .doc = "[contact] model = ipc: query radius of d_min (0: xi + d^ + the largest motion "
            "of the initial guess / gamma, at most half a mean edge length, per step)"},
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
    {"contact", weft_contact_params, offsetof(vbd_settings, contact)},
    {0},
};

/* Counters and timers of a run, summed over its steps. */
typedef struct vbd_stats {
    long sweeps;         /* inner iterations */
    long vertex_updates; /* vertex Newton steps taken (a full or shortened step) */
    long halvings;       /* line-search halvings */
    long rejected;       /* vertices left in place: no decrease after every halving */
    long skipped;        /* singular or non-finite blocks, left in place */
    long at_rounding;    /* steps below G_i's rounding, not taken (vb_line_search) */
    long projected_blocks; /* exact blocks that were not positive definite */
    long clipped;          /* vertex steps clipped to their ipc bound (vbd_ipc.h) */
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
    vbd_ipc *ipc;   /* [contact] model = ipc (vbd_ipc.h); NULL for none */
    vbd_stats stats;
} vbd_state;

/* Per-thread counts of a sweep, summed after each colour (integers: the same sum in any
 * order). */
typedef struct vbd_counts {
    long updates, halvings, rejected, skipped, projected_blocks, at_rounding, clipped;
} vbd_counts;

static void vbd_destroy(void *state) {
    vbd_state *st = state;
    if (!st) return;
    vb_graph_free(&st->graph);
    if (st->ipc) vbd_ipc_free(st->ipc), free(st->ipc);
    free(st->x), free(st->y), free(st->xkm1), free(st->xkm2), free(st->vprev);
    free(st->vgrad);
    free(st);
}

/* The contact model of [contact] model into st->ipc (vbd_ipc.h); for none, every [contact]
 * and [vbd] ipc_* key at its default (a setting is never ignored). */
static int create_ipc(vbd_state *st, const weft_model *m, const weft_config *cfg,
                      weft_error *err) {
    const vbd_settings *s = &st->set;
    if (s->contact.model != WEFT_CONTACT_IPC) {
        if (weft_contact_check_none(&s->contact, cfg, err)) return WEFT_ERR_INPUT;
        vbd_settings d;
        weft_settings_default(vbd_tables, &d);
        const char *key = s->ipc_interval != d.ipc_interval ? "ipc_interval"
                          : s->ipc_gamma != d.ipc_gamma     ? "ipc_gamma"
                          : s->ipc_radius != d.ipc_radius   ? "ipc_radius"
                                                            : NULL;
        if (!key) return WEFT_OK;
        char w[330] = "";
        weft_config_where(cfg, "vbd", key, w, sizeof w);
        return weft_fail(err, WEFT_ERR_INPUT, "%s%svbd.%s: read only with [contact] model = ipc",
                         w, w[0] ? ": " : "", key);
    }
    if (st->balloon) { /* papers/chen2024-vbd.md, "Contact: ipc" */
        char w[330] = "";
        weft_config_where(cfg, "pbd", "k_pressure", w, sizeof w);
        return weft_fail(err, WEFT_ERR_INPUT, "%s%spbd.k_pressure: vbd runs [contact] model = "
                         "ipc without the volume constraint (its projection after each sweep "
                         "pushes vertices into the barrier); set 0, or use newton_euler",
                         w, w[0] ? ": " : "");
    }
    if (!(st->ipc = calloc(1, sizeof *st->ipc)))
        return weft_fail(err, WEFT_ERR_NOMEM, "vbd: out of memory");
    return vbd_ipc_create(st->ipc, &s->contact, s->ipc_gamma, s->ipc_radius, m, cfg, err);
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
    if (weft_pressure_check(m, cfg, st->set.k_pressure, err)) {
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
    if (vb_graph_build(&st->graph, m, "vbd", err) || create_ipc(st, m, cfg, err)) {
        vbd_destroy(st);
        return NULL;
    }
    return st;
}

/* ------------------------------------------------------------------------------ */
/* The vertex step                                                                 */
/* ------------------------------------------------------------------------------ */

/* The inertia term of G_i: about y, no damping (vertex_block.c's local potential). */
static vb_inertia vbd_inertia(const vbd_state *st, const weft_model *m) {
    return (vb_inertia){.hh = m->dt, .alpha = 0.0, .xt = st->y, .a = NULL};
}

/* G_i with vertex i at p (the local potential): m_i/(2h²)|p − y_i|² + Σ_{j ∋ i} Ψ_j; +inf outside
 * an energy's domain. */
/* The terms of G_i with vertex i at p that are not elements of the graph: the inertia, the
 * balloon's λ V and the contact model's. */
static double own_potential(const vbd_state *st, const weft_model *m, int i, const double *p) {
    const vb_inertia in = vbd_inertia(st, m);
    double own = vb_inertia_eval(&in, m, i, p, NULL, NULL);
    if (st->balloon) own += st->lambda * weft_dot3(&st->vgrad[3 * i], p); /* λ V, affine in p */
    if (st->ipc) own += vbd_ipc_energy(st->ipc, i, p); /* the barrier's (and friction's) */
    return own;
}

static double local_potential(const vbd_state *st, const weft_model *m, const double *x, int i,
                              const double *p) {
    return vb_vertex_energy(&st->graph, m, x, i, p, own_potential(st, m, i, p));
}

/* Moves p (m) out of every collider as it stands at time t, onto its surface offset by the
 * contact margin, colliders in scene order. */
static void project_out(const weft_model *m, double t, double *p) {
    for (int c = 0; c < m->ncolliders; c++)
        weft_contact_project(&m->colliders[c], t, m->contact_margin, false, p, NULL);
}

/* A trial of vertex i's step (vb_line_search): x_i = x_i⁰ + β Δx_i projected out of the
 * colliders, G_i there. */
typedef struct vbd_trial {
    const vbd_state *st;
    const weft_model *m;
    double *x;
    int i;
    double t1;
    const double *x0, *dx;
    bool clipped; /* the last trial was clipped to the ipc bound */
} vbd_trial;

/* A trial position p of vertex i kept feasible: clipped to its ipc bound under the contact
 * model (true when clipped), else projected out of the colliders at t1. */
static bool keep_out(const vbd_state *st, const weft_model *m, int i, double t1, double *p) {
    if (st->ipc) return vbd_ipc_clip(st->ipc, i, p);
    project_out(m, t1, p);
    return false;
}

static double vbd_try(void *ctx, double beta) {
    vbd_trial *c = ctx;
    double *xi = &c->x[3 * c->i], p[3];
    for (int k = 0; k < 3; k++) p[k] = c->x0[k] + beta * c->dx[k];
    c->clipped = keep_out(c->st, c->m, c->i, c->t1, p);
    double G = local_potential(c->st, c->m, c->x, c->i, p);
    memcpy(xi, p, sizeof p); /* the last trial is the accepted point */
    return G;
}

/* One vertex's Newton step (the local system) with the shared policy of vertex_block.c
 * (block, line search, rounding), on x in place (only x_i changes). t1: the step's end
 * time, for colliders. */
static void vertex_step(const vbd_state *st, const weft_model *m, double *x, int i, double t1,
                        vbd_counts *cnt) {
    double *xi = &x[3 * i], f[3], dx[3];
    const weft_hessian_mode mode =
        st->set.hessian == VBD_HESSIAN_EXACT ? WEFT_HESSIAN_EXACT : WEFT_HESSIAN_ANALYTIC;
    const vb_inertia in = vbd_inertia(st, m);
    /* the volume constraint's held force λ ∂V/∂x_i (its block is 0) */
    const double *held = st->balloon ? &st->vgrad[3 * i] : NULL;
    double lv[3];
    if (held) {
        for (int k = 0; k < 3; k++) lv[k] = st->lambda * held[k];
        held = lv;
    }
    const vb_extra extra = {vbd_ipc_add, st->ipc};
    /* the elements' Ψ_j at x, from the block's evaluation: G_i at x⁰ for the line search */
    const int deg = st->graph.inc_ptr[i + 1] - st->graph.inc_ptr[i];
    double psi_buf[VB_PSI_MAX], *psi = deg <= VB_PSI_MAX ? psi_buf : NULL;
    vb_block_kind kind = vb_vertex_direction_psi(&st->graph, m, x, i, mode, &in, held,
                                                 st->ipc ? &extra : NULL, f, dx, psi);
    if (kind == VB_BLOCK_NONE) {
        cnt->skipped++;
        return;
    }
    if (kind == VB_BLOCK_PROJECTED && mode == WEFT_HESSIAN_EXACT) cnt->projected_blocks++;
    if (!st->set.line_search) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = xi[k] + dx[k];
        cnt->clipped += keep_out(st, m, i, t1, p);
        if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))) {
            cnt->skipped++;
            return;
        }
        memcpy(xi, p, sizeof p);
        cnt->updates++;
        return;
    }
    double x0[3];
    memcpy(x0, xi, sizeof x0);
    vbd_trial c = {st, m, x, i, t1, x0, dx, false};
    double G0 = psi ? vb_vertex_energy_sum(&st->graph, i, psi, own_potential(st, m, i, x0))
                    : local_potential(st, m, x, i, x0);
    int bt = vb_line_search(weft_dot3(f, dx), G0, vbd_try, &c);
    if (bt == VB_AT_ROUNDING) {
        cnt->at_rounding++;
        return;
    }
    if (bt == VB_REJECTED) {
        memcpy(xi, x0, sizeof x0);
        cnt->halvings += VB_HALVINGS;
        cnt->rejected++;
        return;
    }
    cnt->updates++;
    cnt->halvings += bt;
    cnt->clipped += c.clipped;
}

/* One VBD iteration: every colour in turn, its vertices in parallel. A vertex's cost varies
 * several-fold with its state (a hinge at its rest angle skips ∇²θ; line-search trials),
 * and the costly vertices cluster (near the pins while the rest of a sheet is still flat),
 * so equal halves of a colour leave one thread idle: hanging_cloth 64², steps 2–6, a
 * two-thread bound of 1.43–1.70 from measured per-vertex costs. The colour is dealt in
 * contiguous chunks of 1/(8 · threads) of it to whichever thread is free (bound 1.96); any
 * assignment gives the same numbers, since no two vertices of a colour share an element
 * (and under ipc contact partners read the positions at the colour's start). Returns the
 * vertex steps clipped to their ipc bound. */
static long sweep(vbd_state *st, const weft_model *m, double *x, double t1) {
    vbd_counts total = {0};
    const vb_graph *gr = &st->graph;
    const int threads = st->set.common.threads;
    for (int c = 0; c < gr->ncolours; c++) {
        const int first = gr->colour_ptr[c], end = gr->colour_ptr[c + 1];
        const int chunk = (end - first) / (8 * threads) + 1;
        if (st->balloon) weft_mesh_volume_gradient(&m->mesh, x, st->vgrad);
        long upd = 0, hv = 0, rej = 0, skp = 0, grd = 0, rnd = 0, clp = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, chunk) \
    reduction(+ : upd, hv, rej, skp, grd, rnd, clp)
        for (int k = first; k < end; k++) {
            vbd_counts cnt = {0};
            vertex_step(st, m, x, gr->order[k], t1, &cnt);
            upd += cnt.updates, hv += cnt.halvings, rej += cnt.rejected;
            skp += cnt.skipped, grd += cnt.projected_blocks, rnd += cnt.at_rounding;
            clp += cnt.clipped;
        }
        total.updates += upd, total.halvings += hv, total.rejected += rej;
        total.skipped += skp, total.projected_blocks += grd, total.at_rounding += rnd;
        total.clipped += clp;
        /* the colour's results are what its contact partners read next (vbd_ipc.h) */
        if (st->ipc) vbd_ipc_colour_done(st->ipc, x, gr->order, first, end);
    }
    st->stats.vertex_updates += total.updates;
    st->stats.halvings += total.halvings;
    st->stats.rejected += total.rejected;
    st->stats.skipped += total.skipped;
    st->stats.at_rounding += total.at_rounding;
    st->stats.projected_blocks += total.projected_blocks;
    st->stats.clipped += total.clipped;
    st->stats.sweeps++;
    return total.clipped;
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
    if (m->ncolliders == 0 || st->ipc) return; /* under ipc: vbd_ipc_begin_step */
    for (int i = 0; i < m->n; i++) {
        if (m->pin[i] >= 0) continue;
        const double *xn = &m->x[3 * i];
        double *x0 = &st->x[3 * i];
        for (int c = 0; c < m->ncolliders; c++) {
            const weft_collider *col = &m->colliders[c];
            /* A path that starts inside is left to the projection below. */
            double q[3], nrm[3];
            if (weft_contact_swept_entry(col, xn, t0, x0, t1, m->contact_margin, q, nrm))
                memcpy(x0, q, sizeof q);
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
    for (int i = 0; i < m->n && m->ncolliders > 0 && !st->ipc; i++) { /* ipc: the barrier's */
        if (m->pin[i] >= 0) continue;
        double *xi = &m->x[3 * i], *vi = &m->v[3 * i];
        for (int c = 0; c < m->ncolliders; c++) {
            const weft_collider *col = &m->colliders[c];
            double nrm[3];
            if (weft_contact_gap(col, xi, t1, m->contact_margin, nrm) > VBD_TOUCH) continue;
            /* The inertial motion's normal velocity, (y − x_n)/h = v_n + h g, relative to
             * the collider. */
            const double *u = weft_collider_moving(col) ? col->velocity : NULL;
            double vin[3];
            for (int k = 0; k < 3; k++) vin[k] = st->vprev[3 * i + k] + h * m->gravity[k];
            weft_contact_velocity_update(col, xi, t1, vi, nrm,
                                         weft_contact_normal_velocity(vin, nrm, u));
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
        if (st->ipc) st->stats.clipped += vbd_ipc_clip(st->ipc, i, xi);
        else if (m->ncolliders > 0) project_out(m, t1, xi);
    }
}

/* True when every coordinate of x (3n) is finite. */
static bool finite_all(const double *x, int n) {
    for (int j = 0; j < 3 * n; j++)
        if (!isfinite(x[j])) return false;
    return true;
}

/* Under ipc, before sweep `it`: a refresh (vbd_ipc_refresh) every [vbd] ipc_interval sweeps
 * and after a sweep that clipped a vertex (the first sweep starts from vbd_ipc_begin_step's);
 * the contact partners' positions xs are the iterate's (Chebyshev and the volume step move
 * it between sweeps). */
static int refresh_due(vbd_state *st, weft_model *m, int it, long clipped, weft_error *err) {
    if (it > 1 && (clipped > 0 || (it - 1) % st->set.ipc_interval == 0))
        return vbd_ipc_refresh(st->ipc, m, st->x, err);
    memcpy(st->ipc->xs, st->x, 3 * (size_t)m->n * sizeof *st->x);
    return WEFT_OK;
}

static int vbd_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    vbd_state *st = state;
    WEFT_ASSERT(st->n == m->n);
    const int n = m->n;
    const size_t bytes = 3 * (size_t)n * sizeof(double);
    const double t0 = m->t, t1 = m->t + m->dt;
    double c0 = weft_now();
    weft_inertial_target(m, m->x, m->v, st->y);
    /* The volume constraint's multiplier starts every step at 0, as XPBD's λ: a pressure
     * carried over from the last step is a force 100× the balloon's weight that the few
     * sweeps do not balance (papers/chen2024-vbd.md, "Energy on the balloon"). */
    st->lambda = 0.0;
    initial_guess(st, m, t0, t1);
    if (st->ipc) { /* the guess clipped to the bounds from x_n (vbd_ipc.h) */
        int rc = vbd_ipc_begin_step(st->ipc, m, st->y, st->x, err);
        if (rc) return rc;
        if (!isfinite(weft_model_energy(m, st->x)))
            return weft_fail(err, WEFT_ERR_DIVERGED, "vbd: t = %g s: the barrier is infinite at "
                             "the start (a pair within the thickness, or a vertex inside a "
                             "collider, at x_n)", t0);
    }
    /* G must be finite where the descent starts (an element outside its domain is not). */
    if (!st->ipc && !isfinite(weft_model_energy(m, st->x))) {
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
    long clipped = 0;
    for (int it = 1; it <= st->set.common.iterations; it++) {
        c0 = weft_now();
        int rc = st->ipc ? refresh_due(st, m, it, clipped, err) : WEFT_OK;
        if (rc) return rc;
        if (rho > 0.0) memcpy(st->xkm1, st->x, bytes); /* x^(k−1) */
        clipped = sweep(st, m, st->x, t1);             /* x̄^(k) */
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
                    if (st->ipc) clipped += vbd_ipc_clip(st->ipc, i, xi);
                    else if (m->ncolliders > 0) project_out(m, t1, xi);
                }
            }
            double *tmp = st->xkm2; /* x^(k−1) becomes the next iteration's x^(k−2) */
            st->xkm2 = st->xkm1;
            st->xkm1 = tmp;
            st->stats.chebyshev_s += weft_now() - c1;
        }
        if (st->balloon) pressure_step(st, m, t1);
        if (st->ipc) weft_ipc_kappa_iterate(&st->ipc->ipc, m, st->x); /* adaptive κ (§4.3) */
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
 * rejected, skipped, projected_blocks, at_rounding. */
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
    weft_profile_add(out, "at_rounding", WEFT_PROFILE_COUNT, (double)s->at_rounding);
    weft_profile_add(out, "projected_blocks", WEFT_PROFILE_COUNT, (double)s->projected_blocks);
    const vbd_ipc *c = ((const vbd_state *)state)->ipc;
    if (!c) return;
    weft_profile_add(out, "ipc_fill", WEFT_PROFILE_TIMER, c->ipc.fill_s);
    weft_profile_add(out, "ipc_bound", WEFT_PROFILE_TIMER, c->bound_s);
    weft_profile_add(out, "ipc_refreshes", WEFT_PROFILE_COUNT, (double)c->refreshes);
    weft_profile_add(out, "ipc_clipped", WEFT_PROFILE_COUNT, (double)(s->clipped + c->clipped));
}

/* The log header's line about the contact model (weft_solver_type.header). */
static void vbd_header(const void *state, char *buf, size_t size) {
    const vbd_state *st = state;
    buf[0] = '\0';
    if (st->ipc) weft_ipc_header(&st->ipc->ipc, st->ipc->ipc.dt, buf, size);
}

/* The contact model vbd runs ([contact] model) and its profile timers. */
static const char *const vbd_contact_models[] = {"ipc", NULL};
static const char *const vbd_contact_timers[] = {"ipc_fill", "ipc_bound", NULL};

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
    .header = vbd_header,
    .caps = {.order = 1,
             .contact = "continuous entry stop and projection out of colliders, or [contact] "
                        "model = ipc: barrier elements in the vertex blocks, each vertex's "
                        "step within Chen 2024's conservative bound",
             .contact_models = vbd_contact_models,
             .contact_timers = vbd_contact_timers},
};
