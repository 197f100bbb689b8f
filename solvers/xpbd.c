/* xpbd.c — Extended Position Based Dynamics (Macklin, Müller & Chentanez 2016) with
 * small steps (Macklin, Storey, Lu, Terdiman, Chentanez, Jeschke & Müller 2019).
 * papers/macklin2016-xpbd.md maps the equations to this file and the tests, with the
 * measurements behind the damping split ("Implementation notes: solvers/xpbd.c").
 *
 * Every energy Ψ_j = ½ k_j C_j² with a `constraint` hook (mass_spring, dihedral_bending,
 * discrete_shells, quadratic_bending) is a constraint of compliance α_j = 1/k_j: XPBD
 * simulates the scene's physical model. With α̃ = α/h² (eq. 4), one Gauss-Seidel step
 *   Δλ_j = (−C_j − α̃_j λ_j) / (Σ_i w_i |∇_i C_j|² + α̃_j),                           (eq. 18)
 *   λ_j += Δλ_j,   Δp_i = w_i ∇_i C_j Δλ_j,                                          (eq. 17)
 * λ = 0 at each (sub)step's start. Its fixed point is backward Euler's optimality
 * condition M (p − x̃)/h² + ∇E(p) = 0 (test xpbd.single_spring); α → 0 gives PBD
 * (test xpbd.hard_limit). Order: terms in model order, stretch in mesh order (its bits, run
 * as wavefront levels), the others colour by colour as PBD's; the energies' closed forms
 * (`compliant_step`, per lane `compliant_step4`, per run `compliant_steps`) do eq. 18.
 *
 * Damping (eq. 26, γ_j = α̃_j β̃_j / h = β/h, β̃_j = h² β k_j, β the Rayleigh damping_beta in
 * s) is solved in a sweep of its own before each substep's elastic sweeps, on p = x + h v:
 *   Δλ_j = −γ_j ∇C_j·(p − x) / (γ_j Σ_i w_i |∇_i C_j|² + α̃_j),   Δp_i = w_i ∇_i C_j Δλ_j,
 * backward Euler on the force −β k_j ∇C_j (∇C_j·v) (tests xpbd_damping.spring_rate, cloth).
 *
 * Small steps (Macklin 2019, Algorithm 1): Δt split into n substeps h = Δt/n, each a full
 * PBD step (pbd_common.c: gravity, prediction, pins, colliders projected after the elastic
 * constraints every iteration, velocity update with restitution and friction) with few
 * iterations (test xpbd.small_steps_win). [pbd] k_pressure (balloon, Müller 2006 §4.4) and
 * self_collision (§4.3) run as hard constraints (α = 0) after each sweep; PBD's own
 * stiffnesses and damping are not read. Monitor: iterations numbered across substeps, the
 * residual that of backward Euler over Δt. Passes per step: n × (iterations over
 * constraints, + 1 with damping) + n + 2 over vertices (3n with collision constraints).
 */
#include "pbd_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The [xpbd] settings. */
typedef struct xpbd_settings {
    int substeps;      /* n: substeps per step */
    int iterations;    /* Gauss-Seidel sweeps per substep */
    double damping_beta; /* β, s: stiffness-proportional constraint damping */
    weft_pbd_settings pbd; /* [pbd] k_pressure, self_collision, self_thickness only (the
                              physics PBD's stages add; pbd_model_params) */
} xpbd_settings;

#define F(f) offsetof(xpbd_settings, f)
// clang-format off
static const weft_param xpbd_params[] = {
    {.key = "substeps", .type = WEFT_PARAM_INT, .offset = F(substeps), .unit = "", .lo = 1,
     .hi = 100000, .dflt = 20, .doc = "substeps per step, h = dt/substeps (Macklin 2019)"},
    {.key = "iterations", .type = WEFT_PARAM_INT, .offset = F(iterations), .unit = "",
     .lo = 1, .hi = 100000, .dflt = 1, .doc = "Gauss-Seidel sweeps per substep"},
    {.key = "damping_beta", .type = WEFT_PARAM_DOUBLE, .offset = F(damping_beta), .unit = "s",
     .lo = 0, .hi = 1e6, .dflt = 0,
     .doc = "constraint damping beta k_j along each gradient (Macklin 2016 eq. 26)"},
    {0},
};
// clang-format on
#undef F

/* Of [pbd], only the physics PBD's stages add to the model: the balloon's overpressure
 * constraint and self-collision; PBD's stiffnesses and velocity damping stay zero. */
static const weft_param_table xpbd_tables[] = {
    {"xpbd", xpbd_params, 0}, {"pbd", pbd_model_params, offsetof(xpbd_settings, pbd)}, {0}};

/* The constraints of one energy term: records first .. first + n − 1, one hook, in groups
 * that share no vertex: group g < ngroup ends before record end[g], and the records from
 * end[ngroup − 1] on (the colouring's shared last bucket) go one at a time. */
typedef struct xpbd_batch {
    const weft_energy_type *type;
    int first, n;
    int ngroup;
    int *end;     /* into xpbd_state's ends */
    void *packed; /* records first .. by the type's compliant_pack, when it has one */
} xpbd_batch;

typedef struct xpbd_state {
    pbd_state pbd; /* first: pbd_stats reads the shared timers through it */
    xpbd_settings set;
    int nc, nbatch;
    /* Constraint j (an element of a term whose energy is ½ k C²): its element, copied, and
     * its compliance 1/k (the inverse of the energy's k unit), both in projection order
     * (xpbd_order), so that a sweep reads them front to back. */
    weft_element *elem;
    double *alpha;
    xpbd_batch *batch;
    int *ends;      /* the batches' group ends */
    double *lambda; /* λ_j of the current substep, in the unit of k_j C_j (iterations > 1) */
    long substeps;  /* substeps taken, all steps */
} xpbd_state;

static void xpbd_destroy(void *state) {
    xpbd_state *st = state;
    if (!st) return;
    for (int b = 0; st->batch && b < st->nbatch; b++) free(st->batch[b].packed);
    pbd_state_free(&st->pbd);
    free(st->alpha), free(st->elem), free(st->batch), free(st->ends), free(st->lambda);
    free(st);
}

/* The Gauss-Seidel order: terms in model order; within a term, its elements colour by
 * colour (pbd_colour_order, the order pbd_gauss_seidel projects its constraints in), so
 * that consecutive projections touch disjoint vertices and the CPU overlaps them, except
 * the stretch term, which keeps the result of the mesh order: one sweep then carries a
 * correction across the cloth, which its stiff constraints need with one sweep per
 * substep (coloured, swinging_cloth's peak energy rose from 1.025 to 1.056 times the
 * start: papers/macklin2016-xpbd.md). Its springs go level by level in mesh order's
 * wavefront order (pbd_level_order), the same bits with independent projections. Fills
 * st->elem, st->alpha (the elements with k > 0), st->batch (with the packed records of a
 * type that has compliant_pack) and st->ends (n + 64 a term). */
static int xpbd_order(xpbd_state *st, const weft_model *m) {
    int nmax = 1;
    for (int t = 0; t < m->nterms; t++) nmax = m->terms[t].n > nmax ? m->terms[t].n : nmax;
    int *perm = malloc((size_t)nmax * sizeof *perm);
    /* starts: pbd_level_order's nc + 2, pbd_colour_order's 65 */
    int *starts = malloc(((size_t)(nmax + 2 > 65 ? nmax + 2 : 65)) * sizeof *starts);
    int j = 0, rc = perm && starts ? WEFT_OK : WEFT_ERR_NOMEM, *ends = st->ends;
    st->nbatch = 0;
    for (int t = 0; t < m->nterms && rc == WEFT_OK; t++) {
        const weft_term *term = &m->terms[t];
        const int stride = (int)(sizeof(weft_element) / sizeof(int)), nv = term->type->nv;
        xpbd_batch *b = &st->batch[st->nbatch];
        int g = 0;
        b->ngroup = 63; /* colours 0 .. 62, then the shared last bucket */
        if (t == m->stretch_term)
            rc = pbd_level_order(term->n, nv, term->elem[0].v, stride, m->n, perm, starts,
                                 &b->ngroup);
        else /* every element coloured, as PBD colours every hinge */
            rc = pbd_colour_order(term->n, nv, term->elem[0].v, stride, m->n, perm, starts);
        b->first = j, b->end = ends;
        for (int i = 0; i < term->n && rc == WEFT_OK; i++) {
            while (g < b->ngroup && i >= starts[g + 1]) b->end[g++] = j;
            const weft_element *e = &term->elem[perm[i]];
            if (!(e->k > 0.0)) continue;
            st->elem[j] = *e;
            st->alpha[j++] = 1.0 / e->k;
        }
        while (g < b->ngroup) b->end[g++] = j;
        b->type = term->type, b->n = j - b->first, b->packed = NULL;
        if (b->n == 0) continue; /* the slot is reused */
        st->nbatch++, ends += b->ngroup;
        if (rc == WEFT_OK && b->type->compliant_pack) { /* packed copies for compliant_steps */
            const size_t size = b->type->compliant_size;
            if (!(b->packed = malloc((size_t)b->n * size))) rc = WEFT_ERR_NOMEM;
            for (int i = 0; i < b->n && rc == WEFT_OK; i++)
                b->type->compliant_pack(&st->elem[b->first + i], st->alpha[b->first + i],
                                        (char *)b->packed + (size_t)i * size);
        }
    }
    free(perm), free(starts);
    return rc;
}

static void *xpbd_create(const weft_model *m, weft_config *cfg, weft_error *err) {
    xpbd_state *st = calloc(1, sizeof *st);
    if (!st) {
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    weft_config_settings(cfg, xpbd_tables, &st->set);
    /* Every energy term must have a constraint form; count the constraints. */
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        if (!term->type->constraint) {
            char names[256] = ""; /* the registered energies xpbd can project */
            for (const weft_energy_type *const *e = weft_energy_registry; *e; e++) {
                size_t l = strlen(names);
                if ((*e)->constraint && !strstr(names, (*e)->name))
                    snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", (*e)->name);
            }
            weft_fail(err, WEFT_ERR_INPUT,
                      "energy '%s' has no constraint form (Psi = 1/2 k C^2); xpbd "
                      "projects %s", term->type->name, names);
            free(st);
            return NULL;
        }
        for (int i = 0; i < term->n; i++) st->nc += term->elem[i].k > 0.0;
    }
    st->set.pbd.common.iterations = st->set.iterations;
    st->set.pbd.common.threads = 1;
    if (pbd_state_setup(&st->pbd, m, cfg, &st->set.pbd, err) != WEFT_OK) {
        free(st);
        return NULL;
    }
    st->pbd.set.common.iterations = st->set.iterations;
    st->alpha = malloc((size_t)(st->nc + 1) * sizeof *st->alpha);
    st->elem = malloc((size_t)(st->nc + 1) * sizeof *st->elem);
    st->batch = malloc((size_t)(m->nterms + 1) * sizeof *st->batch);
    st->lambda = malloc((size_t)(st->nc + 1) * sizeof *st->lambda);
    size_t nends = 1;
    for (int t = 0; t < m->nterms; t++) nends += (size_t)m->terms[t].n + 64;
    st->ends = malloc(nends * sizeof *st->ends);
    if (!st->alpha || !st->elem || !st->batch || !st->ends || !st->lambda ||
        xpbd_order(st, m) != WEFT_OK) {
        xpbd_destroy(st);
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the xpbd solver");
        return NULL;
    }
    return st;
}

/* Gathers the nv element positions of e from p into xe and evaluates C (returned) and its
 * gradient into g with the hook `constraint`; wa gets the vertices' inverse masses and
 * *wgg Σ_a w_a |∇_a C|², the inverse-mass-weighted norm. Inline, so that the sweep's
 * calls with nv = 2 and 4 get their loops unrolled. */
static inline double evaluate(double (*constraint)(const weft_element *, const double *, double *),
                              const weft_element *e, int nv, const double *w, const double *p,
                              double *xe, double *g, double *wa, double *wgg) {
    for (int a = 0; a < nv; a++) memcpy(&xe[3 * a], &p[3 * e->v[a]], 3 * sizeof(double));
    const double C = constraint(e, xe, g);
    double sum = 0.0;
    for (int a = 0; a < nv; a++) {
        const double *ga = &g[3 * a];
        wa[a] = w[e->v[a]];
        sum += wa[a] * (ga[0] * ga[0] + ga[1] * ga[1] + ga[2] * ga[2]);
    }
    *wgg = sum;
    return C;
}

/* Δp_a = w_a ∇_a C Δλ (eq. 17) for the nv vertices of e. */
static inline void apply(const weft_element *e, int nv, const double *wa, const double *g,
                         double dl, double *p) {
    for (int a = 0; a < nv; a++) {
        double *pa = &p[3 * e->v[a]];
        const double s = wa[a] * dl;
        for (int k = 0; k < 3; k++) pa[k] += s * g[3 * a + k];
    }
}

/* One Gauss-Seidel sweep of eq. 26's damping row over every constraint at substep h (s):
 * the prediction p loses, along each ∇C_j, the implicit Rayleigh share of its motion from
 * the substep's start x (see the file comment). */
static void damp(xpbd_state *st, const double *x, double h, double *p) {
    const double gamma = st->set.damping_beta / h, ih2 = 1.0 / (h * h); /* γ = α̃ β̃ / h = β / h */
    for (int b = 0; b < st->nbatch; b++) {
        const xpbd_batch *bt = &st->batch[b];
        const int nv = bt->type->nv;
        for (int j = bt->first; j < bt->first + bt->n; j++) {
            const weft_element *e = &st->elem[j];
            double xe[3 * WEFT_ELEM_MAXV] = {0}, g[3 * WEFT_ELEM_MAXV], wa[WEFT_ELEM_MAXV], wgg;
            double gdx = 0.0; /* xe zeroed as in project_batch */
            evaluate(bt->type->constraint, e, nv, st->pbd.w, p, xe, g, wa, &wgg);
            for (int a = 0; a < nv; a++) {
                const double *xa = &x[3 * e->v[a]];
                for (int k = 0; k < 3; k++) gdx += g[3 * a + k] * (xe[3 * a + k] - xa[k]);
            }
            const double denom = gamma * wgg + st->alpha[j] * ih2;
            if (!(wgg > 0.0) || !(denom > 0.0)) continue; /* all pinned, or degenerate */
            apply(e, nv, wa, g, -gamma * gdx / denom, p);
        }
    }
}

/* Projects batch b's constraints (eq. 18), of nv vertices each, at 1/h² = ih2 (1/s²):
 * λ from `lambda` and λ + Δλ stored there, or λ = 0 and nothing stored when it is NULL
 * (one sweep per substep: no later sweep reads it). */
static inline void project_batch(const xpbd_state *st, const xpbd_batch *b, int nv, double ih2,
                                 double *lambda, double *p) {
    double (*const constraint)(const weft_element *, const double *, double *) =
        b->type->constraint;
    const double *w = st->pbd.w;
    for (int j = b->first; j < b->first + b->n; j++) {
        const weft_element *e = &st->elem[j];
        /* zeroed: evaluate fills 3 nv of them, and GCC 12 cannot tell that this is all the
         * constraint reads (-Wmaybe-uninitialized since WEFT_ELEM_MAXV = 6) */
        double xe[3 * WEFT_ELEM_MAXV] = {0}, g[3 * WEFT_ELEM_MAXV], wa[WEFT_ELEM_MAXV], denom;
        const double C = evaluate(constraint, e, nv, w, p, xe, g, wa, &denom);
        const double at = st->alpha[j] * ih2; /* α̃ (eq. 4) */
        const double l = lambda ? lambda[j] : 0.0;
        double dl = 0.0;
        denom += at;
        if (denom > 0.0) { /* else every vertex pinned, or a degenerate gradient */
            dl = (-C - at * l) / denom;
            apply(e, nv, wa, g, dl, p);
        }
        if (lambda) lambda[j] = l + dl;
    }
}

/* Record j through the energy's own compliant projection (`lambda` as for project_batch). */
static inline void step_one(const xpbd_state *st, const xpbd_batch *b, int j, double ih2,
                            double *lambda, double *p) {
    const double l = lambda ? lambda[j] : 0.0;
    const double dl = b->type->compliant_step(&st->elem[j], st->pbd.w, st->alpha[j] * ih2, l, p);
    if (lambda) lambda[j] = l + dl;
}

/* Records j .. j + 3 (one group) through the energy's compliant_step4, one per SIMD lane,
 * or one by one where it declines. */
static void step_four(const xpbd_state *st, const xpbd_batch *b, int j, double ih2,
                      double *lambda, double *p) {
    const weft_element *e[4];
    double at[4], l[4], dl[4];
    for (int k = 0; k < 4; k++) {
        e[k] = &st->elem[j + k], at[k] = st->alpha[j + k] * ih2;
        l[k] = lambda ? lambda[j + k] : 0.0;
    }
    if (!b->type->compliant_step4(e, st->pbd.w, at, l, p, dl)) {
        for (int k = 0; k < 4; k++) step_one(st, b, j + k, ih2, lambda, p);
        return;
    }
    if (lambda)
        for (int k = 0; k < 4; k++) lambda[j + k] = l[k] + dl[k];
}

/* Records j .. j + n − 1 of batch b through the energy's compliant_steps on its packed
 * records (`lanes` and `lambda` as there). */
static void run(const xpbd_state *st, const xpbd_batch *b, int j, int n, bool lanes, double ih2,
                double *lambda, double *p) {
    const char *rec = (const char *)b->packed + (size_t)(j - b->first) * b->type->compliant_size;
    b->type->compliant_steps(rec, n, lanes, ih2, st->pbd.w, lambda ? &lambda[j] : NULL, p);
}

/* project_batch through the energy's own compliant projection (its closed form, no
 * gradient stored). On packed records (compliant_steps) in one call per run: with lanes
 * where the energy has them (compliant_step4), each group's (colour's or level's) fours in
 * one call and its rest in another, else the whole batch in one. Unpacked: within each
 * group four at a time where the energy has compliant_step4 (the same numbers as one after
 * the other), else one at a time. */
static void step_batch(const xpbd_state *st, const xpbd_batch *b, double ih2, double *lambda,
                       double *p) {
    int j = b->first;
    const int end = b->first + b->n;
    const bool lanes = b->type->compliant_step4 != NULL;
    if (b->packed) {
        for (int g = 0; lanes && g < b->ngroup; g++) {
            const int n4 = (b->end[g] - j) & ~3;
            if (n4 > 0) run(st, b, j, n4, true, ih2, lambda, p);
            if (j + n4 < b->end[g]) run(st, b, j + n4, b->end[g] - j - n4, false, ih2, lambda, p);
            j = b->end[g];
        }
        if (j < end) run(st, b, j, end - j, false, ih2, lambda, p);
        return;
    }
    for (int g = 0; lanes && g < b->ngroup; g++) {
        for (; j + 4 <= b->end[g]; j += 4) step_four(st, b, j, ih2, lambda, p);
        for (; j < b->end[g]; j++) step_one(st, b, j, ih2, lambda, p);
    }
    for (; j < end; j++) step_one(st, b, j, ih2, lambda, p);
}

/* One Gauss-Seidel sweep of eq. 18 over every constraint at substep h (s), batch by batch;
 * `lambda` as for project_batch. An energy's compliant_step does the
 * projection where it has one; otherwise edges (2 vertices) and hinges (4) take unrolled
 * copies of the generic operations. */
static void sweep(const xpbd_state *st, double h, double *lambda, double *p) {
    const double ih2 = 1.0 / (h * h);
    for (int b = 0; b < st->nbatch; b++) {
        const xpbd_batch *bt = &st->batch[b];
        if (bt->type->compliant_step)
            step_batch(st, bt, ih2, lambda, p);
        else if (bt->type->nv == 2)
            project_batch(st, bt, 2, ih2, lambda, p);
        else if (bt->type->nv == 4)
            project_batch(st, bt, 4, ih2, lambda, p);
        else
            project_batch(st, bt, bt->type->nv, ih2, lambda, p);
    }
}

/* True when a substep's end and the next one's start may share one pass over the vertices
 * (advance): no collision constraints (no colliders, no self-collision) whose friction and
 * restitution come between them, and no velocity damping ([pbd] k_damping stays 0). */
static bool fusable(const xpbd_state *st, const weft_model *m) {
    return m->ncolliders == 0 && !st->pbd.self && !(st->pbd.set.k_damping > 0.0);
}

/* pbd_end_step's lines 12–15 for the substep of h = m->dt that ends and pbd_begin_step's
 * lines 5 and 7 for the next in one pass: v = (p − x)/h, x = p, v += h g (free vertices),
 * p = x + h v; then the pins at t + h. The same operations as the two stages (bitwise),
 * where fusable() holds. */
static void advance(xpbd_state *st, weft_model *m) {
    const double t0 = weft_now();
    const double h = m->dt, ih = 1.0 / h, *g = m->gravity;
    double *x = m->x, *v = m->v, *p = st->pbd.p;
    for (int i = 0; i < m->n; i++) {
        const bool free_vertex = m->w[i] > 0.0;
        for (int k = 0; k < 3; k++) {
            const int r = 3 * i + k;
            double vr = (p[r] - x[r]) * ih;
            x[r] = p[r];
            if (free_vertex) vr += h * g[k];
            v[r] = vr;
            p[r] = x[r] + h * vr;
        }
    }
    m->t += h;
    weft_model_apply_pins(m, m->t + h, p);
    st->pbd.timers.update += weft_now() - t0;
}

/* The elastic sweeps of one substep (s of the step, h = m->dt), each followed by the hard
 * constraints (α = 0: eq. 26 with α̃ = 0 and λ from 0 is PBD's projection): the balloon's
 * volume, then self-collision, then colliders. */
static void substep_sweeps(xpbd_state *st, weft_model *m, weft_monitor *mon, int s) {
    const int ni = st->set.iterations;
    double *p = st->pbd.p;
    /* λ = 0 at the substep's start; with one sweep it is neither read nor stored */
    if (ni > 1) memset(st->lambda, 0, (size_t)st->nc * sizeof *st->lambda);
    for (int it = 1; it <= ni; it++) {
        double t0 = weft_now();
        sweep(st, m->dt, ni > 1 ? st->lambda : NULL, p);
        if (st->pbd.balloon) pbd_project_balloon(&st->pbd, m, p, NULL);
        if (st->pbd.self) pbd_project_self(&st->pbd, p);
        pbd_project_contacts(&st->pbd, p);
        st->pbd.timers.project += weft_now() - t0;
        st->pbd.timers.projections += st->nc;
        weft_monitor_iteration(mon, p, s * ni + it);
    }
}

static int xpbd_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    xpbd_state *st = state;
    const double dt = m->dt, t_end = m->t + m->dt;
    const int ns = st->set.substeps;
    const bool fuse = fusable(st, m);
    /* A substep is a PBD step of h = dt/n: PBD's stages read the step from the model. */
    m->dt = dt / ns;
    int rc = pbd_begin_step(&st->pbd, m, err); /* v += h g, p = x + h v, pins, contacts */
    for (int s = 0; s < ns && rc == WEFT_OK; s++) {
        if (st->set.damping_beta > 0.0) { /* eq. 26's damping row, before the elastic rows */
            double t0 = weft_now();
            damp(st, m->x, m->dt, st->pbd.p);
            st->pbd.timers.project += weft_now() - t0;
        }
        if (s == 0) weft_monitor_iteration(mon, st->pbd.p, 0);
        substep_sweeps(st, m, mon, s);
        st->substeps++;
        if (s + 1 < ns && fuse) {
            advance(st, m); /* this substep's velocity update and the next one's prediction */
            continue;
        }
        pbd_end_step(&st->pbd, m); /* v = (p − x)/h, x = p, friction, restitution */
        if (s + 1 < ns) rc = pbd_begin_step(&st->pbd, m, err);
    }
    m->dt = dt;
    if (rc == WEFT_OK) m->t = t_end; /* not n roundings of t += h */
    return rc;
}

/* PBD's timers and counters, and the substeps taken. */
static void xpbd_stats(const void *state, weft_profile *out) {
    pbd_stats(state, out);
    weft_profile_add(out, "substeps", WEFT_PROFILE_COUNT,
                     (double)((const xpbd_state *)state)->substeps);
}

/* Inner iterations per step: substeps × iterations per substep. */
static int xpbd_iterations(const void *settings) {
    const xpbd_settings *s = settings;
    return s->substeps * s->iterations;
}

const weft_solver_type weft_xpbd = {
    .name = "xpbd",
    .paper = "Macklin et al. 2016, eq. 26; Macklin et al. 2019, Algorithm 1",
    .iteration = "one Gauss-Seidel sweep of one substep (substeps x iterations per step)",
    .summary = "extended PBD: compliance 1/k from the scene's energies, small substeps",
    .settings_size = sizeof(xpbd_settings),
    .settings = xpbd_tables,
    .create = xpbd_create,
    .step = xpbd_step,
    .destroy = xpbd_destroy,
    .stats = xpbd_stats,
    .own_iterations = xpbd_iterations,
    .caps = {.order = 1,
             .contact = "collision constraints projected with the others (PBD §3.4)"},
};
