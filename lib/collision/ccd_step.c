/* ccd_step.c — the CCD filter of IPC's line search (Li et al. 2020 §4.2; papers/ipc-ccd.md):
 * the largest step α that keeps every pair of primitives farther apart than δ.
 *
 * Every vertex moves on x_i(t) = x_i + t dx_i, t ∈ [0, 1]. For a pair P with distance
 * d_P(t), its time of impact is t_P = min { t ∈ [0, 1] : d_P(t) ≤ δ } (none: 1), and
 *     TOI = min_P t_P,      α = s · TOI  (α = 1 when no pair reaches δ).           (1)
 * Mesh pairs (vertex–triangle, edge–edge) are the candidates of a broad phase over the
 * swept boxes of x → x + dx grown by δ/2 (any pair that comes within δ overlaps), then
 * weft_ccd_vertex_face / weft_ccd_edge_edge with η = δ: they report the earliest t with
 * d ≤ δ to within t_tol, and no contact earlier than t − t_tol is missed, so
 *     t_P ≥ t_ccd − t_tol,                                                            (2)
 * the lower bound used. A pair that starts within δ gives t_P = 0 (and α = 0). Static
 * triangle-mesh obstacles give the same pairs across the two meshes (their dx = 0).
 * Collider pairs: vertex i against collider c (standing at time t_c, seen in its frame as
 * p − u t_c) with signed distance φ: t_P = 0 if φ(x_i) ≤ δ, else the hook's entry time of
 * the segment into the shape grown by δ. Where the hook reports none, a smooth shape
 * (plane, sphere, capsule: convex, its hook exact) has no contact; for the others (the
 * hook also declines for a start inside its own grown shape, e.g. a box's slab corners)
 * conservative advancement on the 1-Lipschitz φ decides:
 *     t_{k+1} = t_k + (φ(p(t_k)) − δ) / |dx_i|,                                       (3)
 * which never passes the first time φ = δ; past t = 1 the pair never comes closer.
 * The minimum over pairs is taken as the least (t, kind, obstacle, a, b), so the answer and
 * the reported pair do not depend on the order of evaluation or the thread count.
 */
#include "weft_ccd_step.h"

#include "weft_broadphase.h"
#include "weft_geometry.h"

#include <math.h>
#include <stdlib.h>

weft_ccd_step_options weft_ccd_step_options_default(void) {
    return (weft_ccd_step_options){.separation = 0.0,
                                   .fraction = 0.8,
                                   .broad_phase = WEFT_BROAD_PHASE_BVH,
                                   .t_tol = 1e-10,
                                   .max_nodes = 20000,
                                   .threads = 1};
}

/* The earliest pair seen so far: time, then (kind, obstacle, a, b) to break ties. */
typedef struct best_pair {
    double t;
    int kind, obs, a, b;
} best_pair;

/* True when (t, kind, obstacle, a, b) of p comes before q's. */
static bool earlier(const best_pair *p, const best_pair *q) {
    if (p->t != q->t) return p->t < q->t;
    if (p->kind != q->kind) return p->kind < q->kind;
    if (p->obs != q->obs) return p->obs < q->obs;
    if (p->a != q->a) return p->a < q->a;
    return p->b < q->b;
}

/* Conservative advancement iterations (3) before the current time is taken as the TOI. */
enum { CA_MAX_ITER = 200 };

/* t_P of vertex p moving by d against collider c (in c's frame) with separation delta (m):
 * true with the time in *t when the pair comes within delta during t ∈ [0, 1]. */
static bool collider_toi(const weft_collider *c, const double p[3], const double d[3], double delta,
                         double *t) {
    double g = weft_collider_distance(c, p, NULL) - delta;
    if (!(g > 0.0)) {
        *t = 0.0;
        return true;
    }
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > 0.0)) return false;
    double p1[3] = {p[0] + d[0], p[1] + d[1], p[2] + d[2]}, n[3], te;
    if (weft_collider_segment_entry(c, p, p1, delta, &te, n)) {
        *t = fmin(fmax(te, 0.0), 1.0);
        return true;
    }
    /* A smooth shape's hook is exact for a start outside its grown shape: no entry is no
     * contact. (Conservative advancement would stop a vertex gliding along a plane at a
     * gap g above δ after CA_MAX_ITER steps of g/|d|: α ≈ 0.004 at g = 4e-7 m, |d| = 2 cm,
     * and Newton under [contact] model = ipc then crawled.) */
    if (weft_collider_type_of(c)->smooth) return false;
    /* (3): below tol the gap is taken as closed (tol: rounding of φ at this scale). */
    double scale = fabs(p[0]) + fabs(p[1]) + fabs(p[2]) + len + delta;
    double tol = 1e-12 * scale, tk = 0.0;
    for (int k = 0; k < CA_MAX_ITER; k++) {
        double next = tk + g / len;
        if (next > 1.0) return false;
        tk = next;
        double q[3] = {p[0] + tk * d[0], p[1] + tk * d[1], p[2] + tk * d[2]};
        g = weft_collider_distance(c, q, NULL) - delta;
        if (g <= tol) break;
    }
    *t = tk; /* never past the first contact: a lower bound */
    return true;
}

bool weft_ccd_step_pair(bool edge_edge, const double q[12], const double dq[12],
                        const weft_ccd_step_options *opt, double *toi, bool *assumed) {
    weft_ccd_step_options o = opt ? *opt : weft_ccd_step_options_default();
    weft_ccd_params prm = weft_ccd_params_default();
    prm.eta = o.separation;
    prm.t_tol = o.t_tol;
    prm.max_nodes = o.max_nodes;
    double q1[12];
    for (int k = 0; k < 12; k++) q1[k] = q[k] + dq[k];
    weft_ccd_hit hit;
    bool found =
        edge_edge ? weft_ccd_edge_edge(q, q1, &prm, &hit) : weft_ccd_vertex_face(q, q1, &prm, &hit);
    if (found) *toi = fmax(hit.t - o.t_tol, 0.0); /* (2) */
    if (assumed) *assumed = found && hit.assumed;
    return found;
}

/* The candidates of mesh a moving x0 → x1 against itself (b NULL) or against mesh b
 * standing at xb, every box grown by delta/2, from the broad phase asked for. */
static int candidates(const weft_mesh *a, const double *x0, const double *x1, const weft_mesh *b,
                      const double *xb, double delta, weft_broad_phase_kind kind,
                      weft_collision_pairs *out, weft_error *err) {
    int rc = WEFT_OK;
    if (kind == WEFT_BROAD_PHASE_HASH) {
        weft_spatial_hash *ha = weft_spatial_hash_create(a, x0, 0.0, 0, err), *hb = NULL;
        if (!ha) return weft_error_code(WEFT_ERR_NOMEM);
        if (b && !(hb = weft_spatial_hash_create(b, xb, 0.0, 0, err)))
            rc = weft_error_code(WEFT_ERR_NOMEM);
        if (rc == WEFT_OK) rc = weft_spatial_hash_update(ha, x0, x1, delta, err);
        if (rc == WEFT_OK && hb) rc = weft_spatial_hash_update(hb, xb, NULL, delta, err);
        if (rc == WEFT_OK) rc = weft_spatial_hash_pairs(ha, hb, out, err);
        weft_spatial_hash_free(&ha);
        weft_spatial_hash_free(&hb);
        return rc;
    }
    weft_bvh *ba = weft_bvh_create(a, x0, err), *bb = NULL;
    if (!ba) return weft_error_code(WEFT_ERR_NOMEM);
    if (b && !(bb = weft_bvh_create(b, xb, err))) rc = weft_error_code(WEFT_ERR_NOMEM);
    if (rc == WEFT_OK) rc = weft_bvh_refit(ba, x0, x1, delta, err);
    if (rc == WEFT_OK && bb) rc = weft_bvh_refit(bb, xb, NULL, delta, err);
    if (rc == WEFT_OK) rc = weft_bvh_pairs(ba, bb, out, err);
    weft_bvh_free(&ba);
    weft_bvh_free(&bb);
    return rc;
}

/* One list of candidates to test: a kind, its obstacle (-1: none) and its pairs. */
typedef struct segment {
    int kind, obs;
    const weft_pairs *pairs;
} segment;

/* Vertex v's position and motion: the cloth's (x, dx) or, on obstacle side, (xo, 0). */
static void point_of(const double *x, const double *dx, int v, double *q, double *dq) {
    for (int d = 0; d < 3; d++) q[d] = x[3 * v + d], dq[d] = dx ? dx[3 * v + d] : 0.0;
}

int weft_ccd_step(const weft_mesh *m, const double *x, const double *dx, int nobs,
                  const weft_ccd_step_obstacle *obs, int nc, const weft_collider *c, double t,
                  const weft_ccd_step_options *opt, double *alpha, weft_ccd_step_stats *stats,
                  weft_error *err) {
    weft_ccd_step_options o = opt ? *opt : weft_ccd_step_options_default();
    if (!m || !x || !dx || !alpha || nc < 0 || (nc > 0 && !c) || (m->nt > 0 && !m->edge) ||
        nobs < 0 || (nobs > 0 && !obs))
        return weft_fail(err, WEFT_ERR_INPUT,
                         "ccd_step: missing mesh (with topology), positions, direction, "
                         "obstacles, colliders or output");
    for (int k = 0; k < nobs; k++) {
        const weft_mesh *om = obs[k].mesh;
        bool ok = om && obs[k].x && (om->nt == 0 || om->edge);
        for (long i = 0; ok && i < 3L * om->nv; i++) ok = isfinite(obs[k].x[i]);
        if (!ok)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "ccd_step: obstacle %d has no mesh (with topology) or a non-finite "
                             "position",
                             k);
    }
    if (!(o.separation >= 0.0 && isfinite(o.separation)))
        return weft_fail(err, WEFT_ERR_INPUT, "ccd_step: separation %g must be finite and >= 0 m",
                         o.separation);
    if (!(o.fraction > 0.0 && o.fraction <= 1.0))
        return weft_fail(err, WEFT_ERR_INPUT, "ccd_step: fraction %g must be in (0, 1]",
                         o.fraction);
    if (!(o.t_tol > 0.0 && o.t_tol < 1.0) || o.max_nodes < 1 || o.threads < 1 || !isfinite(t))
        return weft_fail(err, WEFT_ERR_INPUT,
                         "ccd_step: t_tol %g must be in (0, 1), max_nodes %d and threads %d "
                         ">= 1, collider time finite",
                         o.t_tol, o.max_nodes, o.threads);
    const int nv = m->nv;
    for (long i = 0; i < 3L * nv; i++)
        if (!isfinite(x[i]) || !isfinite(dx[i]))
            return weft_fail(err, WEFT_ERR_INPUT,
                             "ccd_step: non-finite position or direction at vertex %ld", i / 3);

    double *x1 = malloc(sizeof(double) * (3 * (size_t)nv + 1));
    if (!x1) return weft_fail(err, WEFT_ERR_NOMEM, "ccd_step: out of memory");
    for (long i = 0; i < 3L * nv; i++) x1[i] = x[i] + dx[i];
    /* Candidates: the cloth against itself, then against each obstacle. */
    weft_collision_pairs *cand = calloc((size_t)nobs + 1, sizeof *cand);
    segment *seg = calloc(3 * (size_t)nobs + 2, sizeof *seg);
    int rc = cand && seg ? WEFT_OK : weft_fail(err, WEFT_ERR_NOMEM, "ccd_step: out of memory");
    int nseg = 0;
    long nvt = 0, nee = 0;
    for (int k = -1; rc == WEFT_OK && k < nobs; k++) {
        weft_collision_pairs *cp = &cand[k + 1];
        if (m->nt == 0 || (k >= 0 && obs[k].mesh->nt == 0)) continue;
        rc = k < 0 ? candidates(m, x, x1, NULL, NULL, o.separation, o.broad_phase, cp, err)
                   : candidates(m, x, x1, obs[k].mesh, obs[k].x, o.separation, o.broad_phase, cp,
                                err);
        if (k < 0) {
            seg[nseg++] = (segment){WEFT_CCD_STEP_VERTEX_TRIANGLE, -1, &cp->vt};
            seg[nseg++] = (segment){WEFT_CCD_STEP_EDGE_EDGE, -1, &cp->ee};
        } else {
            seg[nseg++] = (segment){WEFT_CCD_STEP_OBSTACLE_VT, k, &cp->vt};
            seg[nseg++] = (segment){WEFT_CCD_STEP_OBSTACLE_TV, k, &cp->tv};
            seg[nseg++] = (segment){WEFT_CCD_STEP_OBSTACLE_EE, k, &cp->ee};
        }
        nvt += cp->vt.n + cp->tv.n, nee += cp->ee.n;
    }
    if (rc != WEFT_OK) {
        for (int k = 0; cand && k <= nobs; k++) weft_collision_pairs_free(&cand[k]);
        free(cand);
        free(seg);
        free(x1);
        return rc;
    }

    long nmesh = 0;
    for (int g = 0; g < nseg; g++) nmesh += seg[g].pairs->n;
    const long total = nmesh + (long)nv * nc;
    /* Any hit, even at t = 1 (the end reaches δ), comes before this. */
    best_pair best = {2.0, WEFT_CCD_STEP_NONE, -1, -1, -1};
    long hits = 0;
    int assumed = 0;

#pragma omp parallel num_threads(o.threads) if (o.threads > 1)
    {
        best_pair mine = best;
        long my_hits = 0;
        int my_assumed = 0;
#pragma omp for schedule(dynamic, 64)
        for (long k = 0; k < total; k++) {
            best_pair cur = {2.0, 0, 0, 0, 0};
            if (k < nmesh) {
                long r = k;
                int g = 0;
                while (r >= seg[g].pairs->n) r -= seg[g++].pairs->n;
                const segment *sg = &seg[g];
                const weft_pair pr = sg->pairs->pair[r];
                const weft_mesh *om = sg->obs >= 0 ? obs[sg->obs].mesh : m;
                const double *ox = sg->obs >= 0 ? obs[sg->obs].x : x;
                const double *odx = sg->obs >= 0 ? NULL : dx;
                const bool ee =
                    sg->kind == WEFT_CCD_STEP_EDGE_EDGE || sg->kind == WEFT_CCD_STEP_OBSTACLE_EE;
                double q0[12], dq[12], tp;
                if (ee) { /* cloth edge a, then edge b of the cloth or the obstacle */
                    for (int j = 0; j < 2; j++) {
                        point_of(x, dx, m->edge[2 * pr.a + j], q0 + 3 * j, dq + 3 * j);
                        point_of(ox, odx, om->edge[2 * pr.b + j], q0 + 6 + 3 * j, dq + 6 + 3 * j);
                    }
                } else if (sg->kind == WEFT_CCD_STEP_OBSTACLE_TV) { /* obstacle vertex b */
                    point_of(ox, odx, pr.b, q0, dq);
                    for (int j = 0; j < 3; j++)
                        point_of(x, dx, m->tri[3 * pr.a + j], q0 + 3 + 3 * j, dq + 3 + 3 * j);
                } else { /* cloth vertex a, triangle b of the cloth or the obstacle */
                    point_of(x, dx, pr.a, q0, dq);
                    for (int j = 0; j < 3; j++)
                        point_of(ox, odx, om->tri[3 * pr.b + j], q0 + 3 + 3 * j, dq + 3 + 3 * j);
                }
                bool as;
                if (weft_ccd_step_pair(ee, q0, dq, &o, &tp, &as)) {
                    cur = (best_pair){tp, sg->kind, sg->obs, pr.a, pr.b};
                    my_assumed |= as;
                }
            } else {
                const long r = k - nmesh;
                const int i = (int)(r / nc), j = (int)(r % nc);
                const weft_collider *cj = &c[j];
                double p[3];
                for (int d = 0; d < 3; d++)
                    p[d] = weft_collider_moving(cj) ? x[3 * i + d] - cj->velocity[d] * t
                                                    : x[3 * i + d];
                double tp;
                if (collider_toi(cj, p, dx + 3 * i, o.separation, &tp))
                    cur = (best_pair){tp, WEFT_CCD_STEP_COLLIDER, -1, i, j};
            }
            if (cur.t <= 1.0) {
                my_hits++;
                if (earlier(&cur, &mine)) mine = cur;
            }
        }
#pragma omp critical(weft_ccd_step_reduce)
        {
            if (earlier(&mine, &best)) best = mine;
            hits += my_hits;
            assumed |= my_assumed;
        }
    }

    if (best.kind == WEFT_CCD_STEP_NONE) best.t = 1.0;
    *alpha = best.kind == WEFT_CCD_STEP_NONE ? 1.0 : o.fraction * best.t;
    if (stats)
        *stats = (weft_ccd_step_stats){.toi = best.t,
                                       .kind = best.kind,
                                       .a = best.a,
                                       .b = best.b,
                                       .obstacle = best.obs,
                                       .vt_pairs = nvt,
                                       .ee_pairs = nee,
                                       .hits = hits,
                                       .assumed = assumed != 0};
    for (int k = 0; k <= nobs; k++) weft_collision_pairs_free(&cand[k]);
    free(cand);
    free(seg);
    free(x1);
    return WEFT_OK;
}
