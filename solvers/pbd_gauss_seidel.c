/* pbd_gauss_seidel.c — Position Based Dynamics, Müller, Heidelberger, Hennix and
 * Ratcliff 2006, Algorithm 1, with Gauss-Seidel projection (lines 9–11): each
 * constraint is projected in turn and its correction applied at once, so later
 * constraints of the same sweep see it.
 *
 * One inner iteration = one sweep over every constraint in a fixed order:
 * stretch (distance, eqs. 10–11), bending (dihedral, §4.1), balloon (§4.4, eqs. 14–15),
 * self-collision (§4.3, eqs. 12–13; pbd_self.c), then collisions with colliders (§3.4)
 * last so each sweep ends outside every obstacle. Within stretch and within bending,
 * constraints go colour by colour (pbd_order.c), so consecutive projections touch
 * disjoint vertices and do not wait on each other; four bending constraints of a
 * colour are projected at once, one per SIMD lane, bitwise as one after the other
 * (pbd_bend_lanes; papers/mueller2006-pbd.md, "The dihedral projection").
 * Passes per step: 3 over vertices (predict, collide, update) + n_s over constraints;
 * with self-collision, collide also hashes the vertices and triangles once.
 * Stiffness: k' = 1 − (1 − k)^(1/n_s) (§3.3). Attachments: w = 0 (§3.6).
 * papers/mueller2006-pbd.md maps every line of Algorithm 1 to code and tests.
 */
#include "pbd_internal.h"

#include <stddef.h>
#include <stdlib.h>

/* One Gauss-Seidel sweep over the stretch constraints. */
static void sweep_distance(pbd_state *st, double *p) {
    const double *w = st->w;
    double k = st->k_stretch;
    for (int c = 0; c < st->ndist; c++) {
        const pbd_distance *d = &st->dist[c];
        double *pa = &p[3 * d->a], *pb = &p[3 * d->b];
        double da[3], db[3];
        pbd_distance_delta(pa, pb, w[d->a], w[d->b], d->rest, k, da, db);
        for (int i = 0; i < 3; i++) pa[i] += da[i], pb[i] += db[i];
    }
}

/* Projects bending constraint c of st on its own (pbd_bend_delta_cs). */
static void project_bend(const pbd_state *st, double *p, int c) {
    const double *w = st->w;
    const pbd_bend *b = &st->bend[c];
    double *p0 = &p[3 * b->v[0]], *p1 = &p[3 * b->v[1]], *p2 = &p[3 * b->v[2]],
           *p3 = &p[3 * b->v[3]];
    double wb[4] = {w[b->v[0]], w[b->v[1]], w[b->v[2]], w[b->v[3]]}, dp[12];
    pbd_bend_delta_cs(p0, p1, p2, p3, wb, b->cs, st->k_bend, dp);
    for (int i = 0; i < 3; i++)
        p0[i] += dp[i], p1[i] += dp[3 + i], p2[i] += dp[6 + i], p3[i] += dp[9 + i];
}

/* One Gauss-Seidel sweep over the bending constraints. Within a colour (disjoint
 * vertices) PBD_LANES consecutive constraints are projected together, one per SIMD
 * lane (pbd_bend_lanes): the same result, bitwise, as one after the other. The shared
 * last bucket of pbd_order.c, whose members may share vertices, goes one at a time.
 * (Not inlined: inside gs_step it made the stretch loop's registers spill, +2
 * instructions per distance projection under callgrind.) */
__attribute__((noinline)) static void sweep_bending(const pbd_state *st, double *p) {
    const int *start = st->bend_colour;
    int c = 0;
    for (int col = 0; col < 63; col++) {
        for (; c + PBD_LANES <= start[col + 1]; c += PBD_LANES)
            if (!pbd_bend_lanes(p, st->w, &st->bend[c], st->k_bend)) /* degenerate, pinned */
                for (int l = 0; l < PBD_LANES; l++) project_bend(st, p, c + l);
        for (; c < start[col + 1]; c++) project_bend(st, p, c);
    }
    for (; c < st->nbend; c++) project_bend(st, p, c);
}

static void gs_destroy(void *state);

/* Settings: [solver] iterations, threads; [pbd]. */
static const weft_param_table gs_tables[] = {
    {"solver", weft_iterations_params, offsetof(weft_pbd_settings, common)},
    {"solver", weft_threads_params, offsetof(weft_pbd_settings, common)},
    {"pbd", pbd_params, 0},
    {0},
};

static void *gs_create(const weft_model *m, weft_config *cfg, weft_error *err) {
    pbd_state *st = malloc(sizeof *st);
    if (!st) {
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pbd_state_init(st, m, cfg, gs_tables, err) != WEFT_OK) {
        free(st);
        return NULL;
    }
    if (pbd_colour_constraints(st) != WEFT_OK) {
        gs_destroy(st);
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory ordering constraints");
        return NULL;
    }
    return st;
}

static int gs_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    pbd_state *st = state;
    int rc = pbd_begin_step(st, m, err);          /* lines 5–8 */
    if (rc != WEFT_OK) return rc;
    weft_monitor_iteration(mon, st->p, 0);
    for (int it = 1; it <= st->set.common.iterations; it++) { /* lines 9–11 */
        double t0 = weft_now();
        if (st->k_stretch > 0.0) sweep_distance(st, st->p);
        if (st->k_bend > 0.0) sweep_bending(st, st->p);
        if (st->balloon) pbd_project_balloon(st, m, st->p, NULL);
        if (st->self) pbd_project_self(st, st->p);
        pbd_project_contacts(st, st->p);
        st->timers.project += weft_now() - t0;
        st->timers.projections += (st->k_stretch > 0.0 ? st->ndist : 0) +
                                  (st->k_bend > 0.0 ? st->nbend : 0);
        weft_monitor_iteration(mon, st->p, it);
    }
    pbd_end_step(st, m);                          /* lines 12–16 */
    return WEFT_OK;
}

static void gs_destroy(void *state) {
    if (!state) return;
    pbd_state_free(state);
    free(state);
}

const weft_solver_type weft_pbd_gauss_seidel = {
    .name = "pbd_gauss_seidel",
    .paper = "Mueller et al. 2006, Algorithm 1",
    .iteration = "one Gauss-Seidel sweep over all constraints",
    .summary = "position based dynamics, sequential constraint projection",
    .settings_size = sizeof(weft_pbd_settings),
    .settings = gs_tables,
    .create = gs_create,
    .step = gs_step,
    .destroy = gs_destroy,
    .stats = pbd_stats,
    .caps = {.order = 1,
             .contact = "collision constraints projected with the others (§3.4)",
             .model_changes = pbd_model_changes},
};
