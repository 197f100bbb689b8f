/* vbd_ipc.c — the contact model `[contact] model = ipc` run by Vertex Block Descent (Chen,
 * Liu, Yang & Yuksel 2024, ACM TOG 43(4), §3.7), with Li et al. 2020's barrier (IPC, ACM
 * TOG 39(4) §4; ipc_contact.c builds the pair set and its elements). vbd_ipc.h has the API.
 *
 * Barrier as incident elements (Chen §3.7: the collision energy enters G_i like any other
 * element): each element of the barrier term (and of the lagged friction term) adds to the
 * force and 3×3 block of every free vertex it names,
 *     f_i −= Σ_{a ∈ S_i} ∂Ψ/∂x_a,   H_i += Σ_{a, b ∈ S_i} ∂²Ψ/∂x_a∂x_b,
 * S_i the element's slots holding i (a vertex–collider element holds i in all four, an
 * obstacle element in its cloth slots), and its energy to G_i with those slots at the trial.
 * Contact partners of one colour may share an element: they read xs, the positions at the
 * colour's start (Jacobi for the contact coupling), so any thread count gives the same bits.
 * Conservative bound (Chen §3.7 after Lan, Kaufman, Li, Jiang & Yang 2022): at a refresh
 * x^ref, d_min(i) is the smallest distance from a primitive holding i to a primitive it
 * does not share (and i's gap to each collider, standing at t_{n+1}), capped at the query
 * radius R; every position vertex i takes until the next refresh lies within
 *     b_i = γ (d_min(i) − ξ)  of x_i^ref,  γ < ½,
 * so a pair at distance d (> ξ) closes by less than 2γ (d − ξ) < d − ξ: no iterate comes
 * within ξ, with no line search over the whole motion. R per step: ξ + d̂ + max_i |x⁰_i −
 * x_i^n| / γ (the initial guess's motion is then not clipped far from contact), at most
 * ξ + d̂ + half a mean edge length (VBD_IPC_RADIUS_EDGES), or [vbd] ipc_radius.
 */
#include "vbd_ipc.h"

#include "weft_geometry.h"
#include "weft_vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The automatic query radius is at most ξ + d̂ + this many mean rest edge lengths. More
 * buys little inside a mesh, where a vertex's nearest primitive that it does not share
 * lies about 0.7 edge away (so b_i ≲ 0.3 edge whatever R; fast_drop: the same logs with
 * 1 and 4 edges), and costs a query of every pair within R (cloth_on_cloth, 20 steps: the
 * bound's wall time 9.0 s at 1 edge, 1.9 s at about half an edge, the final residual 0.24
 * and 0.18 N). */
#define VBD_IPC_RADIUS_EDGES 0.5

/* The mean edge length (m) of m's mesh at its start positions (0 without edges). */
static double mean_edge(const weft_model *m) {
    double sum = 0.0;
    for (int e = 0; e < m->mesh.ne; e++) {
        const double *a = &m->x_start[3 * m->mesh.edge[2 * e]];
        const double *b = &m->x_start[3 * m->mesh.edge[2 * e + 1]];
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        sum += sqrt(weft_dot3(d, d));
    }
    return m->mesh.ne > 0 ? sum / m->mesh.ne : 0.0;
}

int vbd_ipc_create(vbd_ipc *c, const weft_contact_settings *s, double gamma, double radius,
                   const weft_model *m, const weft_config *cfg, weft_error *err) {
    memset(c, 0, sizeof *c);
    c->gamma = gamma, c->radius = radius, c->n = m->n, c->edge = mean_edge(m);
    if (s->friction_iterations > 1) {
        char w[330] = "";
        weft_config_where(cfg, "contact", "friction_iterations", w, sizeof w);
        return weft_fail(err, WEFT_ERR_INPUT, "%s%scontact.friction_iterations = %d: vbd runs "
                         "one lagging iteration (friction lagged at x_n, a fixed number of "
                         "sweeps, no converged solve to lag from); set 1",
                         w, w[0] ? ": " : "", s->friction_iterations);
    }
    int rc = weft_ipc_create(&c->ipc, s, m, cfg, "vbd", err);
    if (rc) return rc;
    size_t n3 = 3 * (size_t)(m->n > 0 ? m->n : 1);
    double **v[] = {&c->xref, &c->xs, &c->g, &c->gB, &c->gE};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        if (!(*v[k] = calloc(n3, sizeof(double))))
            return weft_fail(err, WEFT_ERR_NOMEM, "vbd: out of memory");
    c->bound = calloc(n3 / 3, sizeof *c->bound);
    c->inc_ptr = calloc((size_t)m->n + 2, sizeof *c->inc_ptr);
    if (!c->bound || !c->inc_ptr) return weft_fail(err, WEFT_ERR_NOMEM, "vbd: out of memory");
    return WEFT_OK;
}

void vbd_ipc_free(vbd_ipc *c) {
    if (!c) return;
    weft_ipc_free(&c->ipc);
    free(c->xref), free(c->xs), free(c->g), free(c->gB), free(c->gE);
    free(c->bound), free(c->inc_ptr), free(c->inc);
    weft_collision_pairs_free(&c->pairs);
}

/* slack[v] = min(slack[v], s) for the nv vertices v. */
static void lower(double *slack, const int *v, int nv, double s) {
    for (int a = 0; a < nv; a++) slack[v[a]] = fmin(slack[v[a]], s);
}

/* The cloth's own pairs within R at x (non-adjacent vertex–triangle, edge–edge): each
 * lowers the slack d − ξ of its four vertices. */
static int bound_cloth(vbd_ipc *c, const weft_model *m, const double *x, double *slack,
                       weft_error *err) {
    const weft_mesh *me = &m->mesh;
    const double xi = c->ipc.p.xi;
    int rc = weft_bvh_refit(c->ipc.bvh, x, NULL, c->r_step, err);
    if (rc || (rc = weft_bvh_pairs(c->ipc.bvh, NULL, &c->pairs, err))) return rc;
    double bary[3], sa, sb;
    for (int i = 0; i < c->pairs.vt.n; i++) {
        const int p = c->pairs.vt.pair[i].a, *t = &me->tri[3 * c->pairs.vt.pair[i].b];
        if (p == t[0] || p == t[1] || p == t[2]) continue;
        const int v[4] = {p, t[0], t[1], t[2]};
        double d = weft_point_triangle_closest(&x[3 * p], &x[3 * t[0]], &x[3 * t[1]],
                                               &x[3 * t[2]], bary, NULL);
        lower(slack, v, 4, d - xi);
    }
    for (int i = 0; i < c->pairs.ee.n; i++) {
        const int *a = &me->edge[2 * c->pairs.ee.pair[i].a];
        const int *b = &me->edge[2 * c->pairs.ee.pair[i].b];
        if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1]) continue;
        const int v[4] = {a[0], a[1], b[0], b[1]};
        double d = weft_edge_edge_closest(&x[3 * a[0]], &x[3 * a[1]], &x[3 * b[0]],
                                          &x[3 * b[1]], &sa, &sb, NULL);
        lower(slack, v, 4, d - xi);
    }
    return WEFT_OK;
}

/* Obstacle k's pairs with the cloth within R at x (the obstacle standing at t_{n+1}): the
 * cloth vertices of each lower their slack; the obstacle's tree is left fitted as
 * weft_ipc_begin_step fits it (grown by ξ + d̂). */
static int bound_obstacle(vbd_ipc *c, const weft_model *m, int k, const double *x,
                          double *slack, weft_error *err) {
    const weft_mesh *me = &m->mesh, *om = &m->obstacles[k].mesh;
    const double xi = c->ipc.p.xi, *ox = c->ipc.obs_x[k];
    weft_bvh *ob = c->ipc.obs_bvh[k];
    int rc = weft_bvh_refit(ob, ox, NULL, c->r_step, err);
    if (!rc) rc = weft_bvh_pairs(c->ipc.bvh, ob, &c->pairs, err);
    if (!rc) rc = weft_bvh_refit(ob, ox, NULL, c->ipc.p.xi + c->ipc.p.dhat, err);
    if (rc) return rc;
    const weft_collision_pairs *cp = &c->pairs;
    double bary[3], sa, sb;
    for (int i = 0; i < cp->vt.n; i++) {
        const int p = cp->vt.pair[i].a, *t = &om->tri[3 * cp->vt.pair[i].b];
        lower(slack, &p, 1, weft_point_triangle_closest(&x[3 * p], &ox[3 * t[0]], &ox[3 * t[1]],
                                                        &ox[3 * t[2]], bary, NULL) - xi);
    }
    for (int i = 0; i < cp->tv.n; i++) {
        const int *t = &me->tri[3 * cp->tv.pair[i].a], q = cp->tv.pair[i].b;
        lower(slack, t, 3, weft_point_triangle_closest(&ox[3 * q], &x[3 * t[0]], &x[3 * t[1]],
                                                       &x[3 * t[2]], bary, NULL) - xi);
    }
    for (int i = 0; i < cp->ee.n; i++) {
        const int *a = &me->edge[2 * cp->ee.pair[i].a], *b = &om->edge[2 * cp->ee.pair[i].b];
        lower(slack, a, 2, weft_edge_edge_closest(&x[3 * a[0]], &x[3 * a[1]], &ox[3 * b[0]],
                                                  &ox[3 * b[1]], &sa, &sb, NULL) - xi);
    }
    return WEFT_OK;
}

/* b_i = γ max(d_min(i) − ξ, 0) at x into c->bound (file comment). */
static int compute_bounds(vbd_ipc *c, const weft_model *m, const double *x, weft_error *err) {
    double t0 = weft_now(), *slack = c->bound;
    const double xi = c->ipc.p.xi;
    for (int i = 0; i < m->n; i++) slack[i] = c->r_step - xi;
    int rc = c->ipc.bvh ? bound_cloth(c, m, x, slack, err) : WEFT_OK;
    for (int k = 0; k < c->ipc.nobs && !rc; k++)
        if (c->ipc.obs_bvh[k] && c->ipc.bvh) rc = bound_obstacle(c, m, k, x, slack, err);
    for (int i = 0; i < m->n && !rc; i++)
        for (int k = 0; k < m->ncolliders; k++)
            slack[i] = fmin(slack[i], weft_contact_gap(&m->colliders[k], &x[3 * i], c->ipc.t1,
                                                       c->ipc.margin, NULL) - xi);
    for (int i = 0; i < m->n; i++) c->bound[i] = c->gamma * fmax(slack[i], 0.0);
    c->bound_s += weft_now() - t0;
    return rc;
}

/* Calls visit(c, v, term, e, mask) for each contact element e of term and each free vertex
 * v it names, once per vertex (mask: the slots naming it). */
static void each_entry(vbd_ipc *c, const weft_model *m, int term, bool fill) {
    const weft_term *t = &m->terms[term];
    for (int e = 0; e < t->n; e++) {
        const int *v = t->elem[e].v;
        for (int a = 0; a < 4; a++) {
            if (m->pin[v[a]] >= 0) continue;
            bool first = true;
            unsigned mask = 0;
            for (int b = 0; b < 4; b++)
                if (v[b] == v[a]) first &= b >= a, mask |= 1u << b;
            if (!first) continue;
            if (fill) c->inc[c->inc_ptr[v[a] + 1]++] = (vbd_ipc_entry){term, e, mask};
            else c->inc_ptr[v[a] + 2]++;
        }
    }
}

/* The vertex → contact element incidence of the barrier and friction terms (term then
 * element order: every vertex sums its contributions in a fixed order). */
static int build_incidence(vbd_ipc *c, const weft_model *m, weft_error *err) {
    const int terms[2] = {c->ipc.term, c->ipc.fterm};
    memset(c->inc_ptr, 0, ((size_t)m->n + 2) * sizeof *c->inc_ptr);
    for (int k = 0; k < 2; k++)
        if (terms[k] >= 0) each_entry(c, m, terms[k], false);
    for (int i = 0; i < m->n; i++) c->inc_ptr[i + 2] += c->inc_ptr[i + 1];
    const int total = c->inc_ptr[m->n + 1];
    if (total > c->cap_inc) {
        vbd_ipc_entry *p = realloc(c->inc, (size_t)total * sizeof *p);
        if (!p) return weft_fail(err, WEFT_ERR_NOMEM, "vbd: out of memory");
        c->inc = p, c->cap_inc = total;
    }
    for (int k = 0; k < 2; k++) /* inc_ptr[i + 1] is vertex i's fill position */
        if (terms[k] >= 0) each_entry(c, m, terms[k], true);
    return WEFT_OK;
}

int vbd_ipc_refresh(vbd_ipc *c, weft_model *m, const double *x, weft_error *err) {
    c->m = m;
    int rc = compute_bounds(c, m, x, err);
    if (!rc) rc = weft_ipc_fill(&c->ipc, m, x, err);
    if (!rc) rc = build_incidence(c, m, err);
    const size_t bytes = 3 * (size_t)m->n * sizeof *x;
    memcpy(c->xref, x, bytes);
    memcpy(c->xs, x, bytes);
    c->refreshes++;
    return rc;
}

bool vbd_ipc_clip(const vbd_ipc *c, int i, double p[3]) {
    const double *r = &c->xref[3 * i], b = c->bound[i];
    double d[3] = {p[0] - r[0], p[1] - r[1], p[2] - r[2]};
    const double len = sqrt(weft_dot3(d, d));
    if (!(len > b)) return false;
    const double s = b / len;
    for (int k = 0; k < 3; k++) p[k] = r[k] + s * d[k];
    return true;
}

/* The 12 coordinates of element e from xs, its slots in mask at p (when non-NULL). */
static void gather(const vbd_ipc *c, const weft_element *e, unsigned mask, const double *p,
                   double xe[12]) {
    for (int a = 0; a < 4; a++) {
        const double *src = (p && (mask >> a & 1u)) ? p : &c->xs[3 * (size_t)e->v[a]];
        for (int k = 0; k < 3; k++) xe[3 * a + k] = src[k];
    }
}

bool vbd_ipc_add(void *ctx, int i, weft_hessian_mode mode, double f[3], double H[9]) {
    const vbd_ipc *c = ctx;
    const weft_model *m = c->m;
    double xe[12], g[12], He[144];
    for (int q = c->inc_ptr[i]; q < c->inc_ptr[i + 1]; q++) {
        const vbd_ipc_entry *en = &c->inc[q];
        const weft_term *t = &m->terms[en->term];
        const weft_element *e = &t->elem[en->elem];
        gather(c, e, en->mask, NULL, xe);
        if (!isfinite(t->type->hessian(e, xe, mode, g, He))) return false;
        for (int a = 0; a < 4; a++) {
            if (!(en->mask >> a & 1u)) continue;
            for (int r = 0; r < 3; r++) f[r] -= g[3 * a + r];
            for (int b = 0; b < 4; b++) {
                if (!(en->mask >> b & 1u)) continue;
                for (int r = 0; r < 3; r++)
                    for (int k = 0; k < 3; k++) H[3 * r + k] += He[(3 * a + r) * 12 + 3 * b + k];
            }
        }
    }
    return true;
}

double vbd_ipc_energy(const vbd_ipc *c, int i, const double p[3]) {
    const weft_model *m = c->m;
    double xe[12], G = 0.0;
    for (int q = c->inc_ptr[i]; q < c->inc_ptr[i + 1]; q++) {
        const vbd_ipc_entry *en = &c->inc[q];
        const weft_term *t = &m->terms[en->term];
        gather(c, &t->elem[en->elem], en->mask, p, xe);
        G += t->type->energy(&t->elem[en->elem], xe);
    }
    return G;
}

void vbd_ipc_colour_done(vbd_ipc *c, const double *x, const int *order, int first, int end) {
    for (int k = first; k < end; k++)
        memcpy(&c->xs[3 * (size_t)order[k]], &x[3 * (size_t)order[k]], 3 * sizeof *x);
}

/* The query radius of the step (file comment) for the motion from xc to the guess x. */
static double step_radius(const vbd_ipc *c, const weft_model *m, const double *xc,
                          const double *x) {
    if (c->radius > 0.0) return c->radius;
    const double cap = VBD_IPC_RADIUS_EDGES * c->edge;
    double most = 0.0;
    for (int i = 0; i < m->n; i++) {
        if (m->pin[i] >= 0) continue;
        double d[3] = {x[3 * i] - xc[3 * i], x[3 * i + 1] - xc[3 * i + 1],
                       x[3 * i + 2] - xc[3 * i + 2]};
        most = fmax(most, weft_dot3(d, d));
    }
    return c->ipc.p.xi + c->ipc.p.dhat + fmin(sqrt(most) / c->gamma, cap);
}

int vbd_ipc_begin_step(vbd_ipc *c, weft_model *m, const double *y, double *x, weft_error *err) {
    weft_ipc *ipc = &c->ipc;
    c->m = m;
    int rc = weft_ipc_begin_step(ipc, m, err);
    if (!rc) rc = weft_ipc_friction_build(ipc, m, m->x, m->x, m->dt, err); /* lag at x_n */
    if (!rc) rc = weft_ipc_carry(ipc, m, c->g, err); /* x_n with the movers' carry */
    if (rc) return rc;
    c->r_step = step_radius(c, m, c->g, x);
    if ((rc = vbd_ipc_refresh(c, m, c->g, err))) return rc;
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] < 0) c->clipped += vbd_ipc_clip(c, i, &x[3 * i]);
    if ((rc = vbd_ipc_refresh(c, m, x, err))) return rc;
    if (!ipc->adaptive) return WEFT_OK;
    weft_incremental_potential_h(m, x, y, m->dt, c->g); /* ∇G at the start, current κ */
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] >= 0) memset(&c->g[3 * i], 0, 3 * sizeof *c->g);
    weft_ipc_kappa_start(ipc, m, x, c->g, m->dt, c->gB, c->gE);
    return WEFT_OK;
}
