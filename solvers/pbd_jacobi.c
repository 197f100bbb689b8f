/* pbd_jacobi.c — Jacobi position based dynamics with constraint averaging and
 * over-relaxation, after Macklin, Müller, Chentanez and Kim 2014, "Unified Particle
 * Physics for Real-Time Applications", §4.2:
 *   Δp_i = (ω / n_i) Σ_c Δp_i^c,
 * every Δp^c computed from the same positions (Müller 2006's projection, eqs. 1–9),
 * n_i the number of constraints acting on vertex i (stretch, bending and balloon),
 * ω ∈ [1, 2) ([solver] omega). A cloth vertex touches ~18 constraints, so Jacobi needs
 * many more iterations than Gauss-Seidel (papers/mueller2006-pbd.md, "Jacobi PBD").
 *
 * One inner iteration = one Jacobi sweep: every stretch, bending (and balloon) correction
 * in parallel, gathered per vertex in parallel; then the self-collision constraints of
 * §4.3 (pbd_self.c) in a Jacobi pass of their own (n_i counting those only: measured in
 * papers/mueller2006-pbd.md); then the collider contacts (per vertex, outside the
 * average). Fixed gather order: bitwise identical for any number of threads.
 *
 * Chebyshev (Wang 2015; the [pbd] chebyshev_* rows and the schedule of chebyshev.c):
 * q̂_{k+1} the Jacobi sweep of q_k, ω_k the schedule's weight,
 *   q_{k+1} = ω_{k+1} (γ (q̂_{k+1} − q_k) + q_k − q_{k−1}) + q_{k−1}
 * on the free vertices before the collider contacts, restarted every step (q_{−1} = q_0);
 * ρ = 0 (the default) runs exactly the plain code. papers/wang2015-chebyshev.md maps the
 * paper to the code and says how to estimate ρ.
 *
 * Passes per step: 3 over vertices + n_s × (1 over constraints + 1 over vertices), and
 * with self-collision one more pass over its constraints and one over the vertices;
 * Chebyshev adds a copy and a pass over the vertices per iteration.
 */
#include "pbd_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct jacobi_state {
    pbd_state base; /* first: pbd_stats reads it */
    double *corr;   /* 3 doubles per constraint slot: 2 per stretch, 4 per bending */
    int *start;     /* n + 1: CSR offsets of each vertex's slots */
    int *slot;      /* slot indices per vertex, in constraint order */
    double *inv_count; /* ω / n_i per vertex (n_i counts the balloon constraint too) */
    double *dball;  /* balloon corrections, 3n */
    /* Self-collision (§4.3), rebuilt each step from base.self_contact: */
    int self_cap;        /* constraints the per-constraint arrays can hold */
    double *self_corr;   /* 12 per constraint: corrections of q, p1, p2, p3 */
    unsigned char *self_on; /* per constraint: violated (corrected) this sweep */
    int *self_start;     /* n + 1: CSR offsets of each vertex's slots */
    int *self_slot;      /* slots 4c + a (vertex a of constraint c), in constraint order */
    double omega;        /* over-relaxation ω ([solver] omega) */
    /* Chebyshev ([pbd] chebyshev_rho > 0): the iterates q_k and q_{k−1}, 3n each. */
    double *cheb_cur, *cheb_prev;
} jacobi_state;

static void jacobi_destroy(void *state) {
    jacobi_state *js = state;
    if (!js) return;
    pbd_state_free(&js->base);
    free(js->corr), free(js->start), free(js->slot), free(js->inv_count), free(js->dball);
    free(js->self_corr), free(js->self_on), free(js->self_start), free(js->self_slot);
    free(js->cheb_cur), free(js->cheb_prev);
    free(js);
}

/* Settings: [solver] iterations, threads, omega; [pbd] the shared rows and Chebyshev's. */
static const weft_param jacobi_params[] = {
    {.key = "omega", .type = WEFT_PARAM_DOUBLE, .offset = offsetof(weft_pbd_settings, omega),
     .unit = "1", .lo = 0, .hi = 2, .flags = WEFT_PARAM_LO_OPEN | WEFT_PARAM_HI_OPEN,
     .dflt = 1.5, .doc = "over-relaxation of the averaged corrections"},
    {0},
};

static const weft_param_table jacobi_tables[] = {
    {"solver", weft_iterations_params, offsetof(weft_pbd_settings, common)},
    {"solver", weft_threads_params, offsetof(weft_pbd_settings, common)},
    {"solver", jacobi_params, 0},
    {"pbd", pbd_params, 0},
    {"pbd", weft_chebyshev_params, offsetof(weft_pbd_settings, chebyshev)},
    {0},
};

static void *jacobi_create(const weft_model *m, weft_config *cfg, weft_error *err) {
    jacobi_state *js = calloc(1, sizeof *js);
    if (!js) {
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pbd_state_init(&js->base, m, cfg, jacobi_tables, err) != WEFT_OK) {
        free(js);
        return NULL;
    }
    pbd_state *st = &js->base;
    int n = m->n, nslots = 2 * st->ndist + 4 * st->nbend;
    js->omega = st->set.omega;
    js->corr = calloc((size_t)(nslots + 1) * 3, sizeof *js->corr); /* skipped sets stay 0 */
    js->start = calloc((size_t)n + 1, sizeof *js->start);
    js->slot = malloc((size_t)(nslots + 1) * sizeof *js->slot);
    js->inv_count = malloc((size_t)n * sizeof *js->inv_count);
    js->dball = st->balloon ? malloc(3 * (size_t)n * sizeof *js->dball) : NULL;
    js->self_start = st->self ? malloc(((size_t)n + 1) * sizeof *js->self_start) : NULL;
    bool cheb = st->set.chebyshev.rho > 0.0;
    if (cheb) {
        js->cheb_cur = malloc(3 * (size_t)n * sizeof *js->cheb_cur);
        js->cheb_prev = malloc(3 * (size_t)n * sizeof *js->cheb_prev);
    }
    if (!js->corr || !js->start || !js->slot || !js->inv_count || (st->balloon && !js->dball) ||
        (st->self && !js->self_start) || (cheb && (!js->cheb_cur || !js->cheb_prev))) {
        jacobi_destroy(js);
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the Jacobi solver");
        return NULL;
    }
    /* Slot s of stretch constraint c is 2c + a; of bending constraint c, 2 ndist + 4c + a. */
    for (int c = 0; c < st->ndist; c++) js->start[st->dist[c].a + 1]++, js->start[st->dist[c].b + 1]++;
    for (int c = 0; c < st->nbend; c++)
        for (int a = 0; a < 4; a++) js->start[st->bend[c].v[a] + 1]++;
    for (int i = 0; i < n; i++) js->start[i + 1] += js->start[i];
    int *fill = malloc((size_t)(n + 1) * sizeof *fill);
    if (!fill) {
        jacobi_destroy(js);
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the Jacobi solver");
        return NULL;
    }
    memcpy(fill, js->start, (size_t)n * sizeof *fill);
    for (int c = 0; c < st->ndist; c++) {
        js->slot[fill[st->dist[c].a]++] = 2 * c;
        js->slot[fill[st->dist[c].b]++] = 2 * c + 1;
    }
    for (int c = 0; c < st->nbend; c++)
        for (int a = 0; a < 4; a++) js->slot[fill[st->bend[c].v[a]]++] = 2 * st->ndist + 4 * c + a;
    free(fill);
    /* n_i counts the constraints that act: a set with zero stiffness (e.g. bending off)
     * is skipped by the sweep and must not dilute the others' average. */
    int *deg = calloc((size_t)n + 1, sizeof *deg);
    if (!deg) {
        jacobi_destroy(js);
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the Jacobi solver");
        return NULL;
    }
    if (st->k_stretch > 0.0)
        for (int c = 0; c < st->ndist; c++) deg[st->dist[c].a]++, deg[st->dist[c].b]++;
    if (st->k_bend > 0.0)
        for (int c = 0; c < st->nbend; c++)
            for (int a = 0; a < 4; a++) deg[st->bend[c].v[a]]++;
    for (int i = 0; i < n; i++) {
        int count = deg[i] + (st->balloon ? 1 : 0);
        js->inv_count[i] = count > 0 ? js->omega / count : 0.0;
    }
    free(deg);
    return js;
}

/* Lists, per vertex, the slots 4c + a of this step's self-collision constraints (a
 * counting sort in constraint order), growing the buffers when the step has more
 * constraints than any before. */
static int self_prepare(jacobi_state *js, weft_error *err) {
    const pbd_state *st = &js->base;
    int nc = st->nself, n = st->n;
    if (nc > js->self_cap) {
        size_t cap = (size_t)nc + (size_t)nc / 2;
        double *corr = realloc(js->self_corr, 12 * cap * sizeof *corr);
        if (corr) js->self_corr = corr;
        unsigned char *on = realloc(js->self_on, cap * sizeof *on);
        if (on) js->self_on = on;
        int *slot = realloc(js->self_slot, 4 * cap * sizeof *slot);
        if (slot) js->self_slot = slot;
        if (!corr || !on || !slot)
            return weft_fail(err, WEFT_ERR_NOMEM,
                             "out of memory for %d self-collision constraints (Jacobi)", nc);
        js->self_cap = (int)cap;
    }
    int *start = js->self_start;
    memset(start, 0, ((size_t)n + 1) * sizeof *start);
    /* Counts, then inclusive prefix sums: start[i] is the end of vertex i's range and
     * start[n] the total. Filling each range from its end, constraints in reverse,
     * leaves start[i] at the range's beginning and the slots in constraint order. */
    for (int c = 0; c < nc; c++)
        for (int a = 0; a < 4; a++) start[st->self_contact[c].v[a]]++;
    for (int i = 0; i < n; i++) start[i + 1] += start[i];
    for (int c = nc - 1; c >= 0; c--)
        for (int a = 3; a >= 0; a--) js->self_slot[--start[st->self_contact[c].v[a]]] = 4 * c + a;
    return WEFT_OK;
}

/* One Jacobi pass over the self-collision constraints: every correction from the same p,
 * then each vertex moves by (ω / n_i) times the sum of the corrections of its n_i
 * violated constraints. */
static void self_sweep(jacobi_state *js) {
    pbd_state *st = &js->base;
    double *p = st->p, *corr = js->self_corr;
    const double *w = st->w;
    const int *start = js->self_start, *slot = js->self_slot;
    unsigned char *on = js->self_on;
    int nc = st->nself, n = st->n;
    double h = st->self_h;
    if (nc == 0) return; /* nothing near: skip the pass and its barriers */
#pragma omp parallel num_threads(st->threads)
    {
#pragma omp for schedule(static)
        for (int c = 0; c < nc; c++) {
            const pbd_self_contact *sc = &st->self_contact[c];
            double xe[12], we[4];
            for (int a = 0; a < 4; a++) {
                we[a] = w[sc->v[a]];
                for (int k = 0; k < 3; k++) xe[3 * a + k] = p[3 * sc->v[a] + k];
            }
            on[c] = pbd_self_delta(xe, we, sc->side, h, &corr[12 * (size_t)c]);
        }
        /* the implicit barrier above: every correction is computed before p changes */
#pragma omp for schedule(static)
        for (int i = 0; i < n; i++) {
            double s[3] = {0.0, 0.0, 0.0};
            int count = 0;
            for (int j = start[i]; j < start[i + 1]; j++) {
                if (!on[slot[j] / 4]) continue;
                const double *d = &corr[3 * (size_t)slot[j]];
                s[0] += d[0], s[1] += d[1], s[2] += d[2];
                count++;
            }
            if (count > 0)
                for (int k = 0; k < 3; k++) p[3 * i + k] += js->omega / count * s[k];
        }
    }
    st->timers.projections += nc;
}

/* Wang 2015's update of the free vertices: p holds q̂_{k+1}, cheb_cur q_k and cheb_prev
 * q_{k−1}; p becomes ω (γ (q̂ − q_k) + q_k − q_{k−1}) + q_{k−1} (omega = 1: the plain or
 * under-relaxed q_k + γ (q̂ − q_k)). Each vertex on its own: the same bits for any
 * thread count. */
static void chebyshev_update(jacobi_state *js, double omega) {
    pbd_state *st = &js->base;
    double *p = st->p;
    const double *w = st->w, *cur = js->cheb_cur, *prev = js->cheb_prev;
    const double gamma = st->set.chebyshev.gamma;
    int n = st->n;
#pragma omp parallel for num_threads(st->threads) schedule(static)
    for (int i = 0; i < n; i++) {
        if (w[i] == 0.0) continue; /* pinned: on its scripted path */
        for (int k = 3 * i; k < 3 * i + 3; k++)
            p[k] = weft_chebyshev_mix(omega, gamma, p[k], cur[k], prev[k]);
    }
}

/* One Jacobi sweep: all corrections from the same p, then the averaged update; with
 * Chebyshev (omega > 0: its ω for this iteration) the extrapolation before the collider
 * contacts. */
static void jacobi_sweep(jacobi_state *js, const weft_model *m, double cheb_omega) {
    pbd_state *st = &js->base;
    double *p = st->p, *corr = js->corr;
    const double *w = st->w;
    int n = st->n;
    double ks = st->k_stretch, kb = st->k_bend;
    /* A constraint set with zero stiffness contributes nothing: skip its pass (its
     * zero corrections are still averaged in, as n_i counts every constraint). */
    int nd = ks > 0.0 ? st->ndist : 0, nb = kb > 0.0 ? st->nbend : 0;
    double *cb = corr + 6 * (size_t)st->ndist;
#pragma omp parallel num_threads(st->threads)
    {
#pragma omp for schedule(static) nowait
        for (int c = 0; c < nd; c++) {
            const pbd_distance *d = &st->dist[c];
            pbd_distance_delta(&p[3 * d->a], &p[3 * d->b], w[d->a], w[d->b], d->rest, ks,
                               &corr[6 * c], &corr[6 * c + 3]);
        }
#pragma omp for schedule(static)
        for (int c = 0; c < nb; c++) {
            const pbd_bend *b = &st->bend[c];
            double wb[4] = {w[b->v[0]], w[b->v[1]], w[b->v[2]], w[b->v[3]]};
            pbd_bend_delta_cs(&p[3 * b->v[0]], &p[3 * b->v[1]], &p[3 * b->v[2]], &p[3 * b->v[3]],
                              wb, b->cs, kb, &cb[12 * c]);
        }
    }
    if (st->balloon) pbd_project_balloon(st, m, p, js->dball); /* from the same p */
#pragma omp parallel for num_threads(st->threads) schedule(static)
    for (int i = 0; i < n; i++) {
        double s[3] = {0.0, 0.0, 0.0};
        for (int j = js->start[i]; j < js->start[i + 1]; j++) {
            const double *c = &corr[3 * (size_t)js->slot[j]];
            s[0] += c[0], s[1] += c[1], s[2] += c[2];
        }
        if (js->dball)
            for (int k = 0; k < 3; k++) s[k] += js->dball[3 * i + k];
        for (int k = 0; k < 3; k++) p[3 * i + k] += js->inv_count[i] * s[k];
    }
    if (st->self) self_sweep(js);
    if (cheb_omega > 0.0) chebyshev_update(js, cheb_omega);
    pbd_project_contacts(st, p);
}

static int jacobi_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    jacobi_state *js = state;
    pbd_state *st = &js->base;
    int rc = pbd_begin_step(st, m, err);
    if (rc == WEFT_OK && st->self) rc = self_prepare(js, err);
    if (rc != WEFT_OK) return rc;
    weft_monitor_iteration(mon, st->p, 0);
    const double rho = st->set.chebyshev.rho;
    const size_t bytes = 3 * (size_t)st->n * sizeof *st->p;
    double omega = 1.0; /* Chebyshev's ω_k (chebyshev.c) */
    if (rho > 0.0) memcpy(js->cheb_prev, st->p, bytes); /* q_{−1} = q_0 */
    for (int it = 1; it <= js->base.set.common.iterations; it++) {
        double t0 = weft_now();
        double cheb = 0.0; /* 0: no Chebyshev update this iteration */
        if (rho > 0.0) {
            memcpy(js->cheb_cur, st->p, bytes); /* q_k, before the sweep */
            cheb = weft_chebyshev_weight(&st->set.chebyshev, 10, it, &omega); /* Wang's S */
        }
        jacobi_sweep(js, m, cheb);
        if (rho > 0.0) { /* q_k becomes the next iteration's q_{k−1} */
            double *tmp = js->cheb_prev;
            js->cheb_prev = js->cheb_cur;
            js->cheb_cur = tmp;
        }
        st->timers.project += weft_now() - t0;
        st->timers.projections += (st->k_stretch > 0.0 ? st->ndist : 0) +
                                  (st->k_bend > 0.0 ? st->nbend : 0);
        weft_monitor_iteration(mon, st->p, it);
    }
    pbd_end_step(st, m);
    return WEFT_OK;
}

const weft_solver_type weft_pbd_jacobi = {
    .name = "pbd_jacobi",
    .paper = "Macklin et al. 2014 §4.2 (constraint averaging, over-relaxation); Chebyshev: "
             "Wang 2015",
    .iteration = "one Jacobi sweep: all corrections from the same positions, averaged",
    .summary = "parallel position based dynamics (OpenMP), deterministic gather",
    .settings_size = sizeof(weft_pbd_settings),
    .settings = jacobi_tables,
    .create = jacobi_create,
    .step = jacobi_step,
    .destroy = jacobi_destroy,
    .stats = pbd_stats,
    .caps = {.order = 1,
             .contact = "collision constraints projected with the others (§3.4)",
             .model_changes = pbd_model_changes},
};
