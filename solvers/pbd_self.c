/* pbd_self.c — cloth self-collision of Müller, Heidelberger, Hennix and Ratcliff 2006,
 * §4.3, shared by Gauss-Seidel and Jacobi PBD. Line 8 of Algorithm 1 for the cloth
 * against itself: if a vertex q moves through a triangle (p1, p2, p3), or comes closer
 * than the cloth thickness h to it, the step gets the inequality constraint
 *   C(q, p1, p2, p3) = s (q − p1)·n̂ − h ≥ 0,  n̂ = (p2 − p1) × (p3 − p1)/|…|   (12–13)
 * with s = ±1 the side q started the step on (eqs. 12 and 13), so q is kept on its side.
 * Gradients and projection: pbd_self_constraint, pbd_self_delta (pbd_internal.h); C is
 * unchanged by rigid motions, so projecting it conserves linear and angular momentum.
 *
 * Detection, once per step on the straight motion x → p of every vertex:
 *   broad phase: the spatial hash of Teschner et al. 2003 (lib/collision/spatial_hash.c;
 *     cells of twice the mean rest edge length) over the boxes of x and p grown by h;
 *   narrow phase: q comes within 2h of the closed triangle during the step
 *     (near_during_step: end distances, a Lipschitz bound, else the vertex–face CCD of
 *     lib/collision/ccd.c with η = 2h). The constraint acts below h; the extra band of h
 *     catches vertices dragged toward a triangle during the iterations.
 * The constraint is the triangle plane's half-space, also just beside the triangle;
 * non-adjacent vertices and triangles must be 2h apart at rest (checked at creation).
 * Like the paper it keeps a vertex on the wrong side once the cloth is tangled, and it
 * has no edge–edge test. Why each choice, with measurements: papers/mueller2006-pbd.md
 * ("Implementation notes: solvers/pbd_self.c").
 * Cost per step: one pass over the vertices and triangles (boxes, hash) plus two
 * point–triangle distances per candidate pair and a CCD for the few that move fast
 * relative to each other; nothing is allocated once the buffers have grown.
 */
#include "pbd_internal.h"

#include "weft_geometry.h"

#include <limits.h>
#include <stdlib.h>

/* Every vertex that comes within 2h of a triangle gets the constraint, also one beside
 * the triangle, in its plane; so the rest state must keep non-adjacent vertices and
 * triangles 2h apart, or a flat cloth would be pushed out of its plane at every step.
 * The broad phase must hold the rest boxes grown by h. Returns WEFT_ERR_INPUT naming the
 * closest pair, or WEFT_OK. */
static int check_rest_state(pbd_state *st, const weft_mesh *mesh, weft_error *err) {
    int rc = weft_spatial_hash_vt_pairs(st->hash, &st->pairs, err);
    if (rc != WEFT_OK) return rc;
    double dmin = INFINITY;
    int vmin = -1, tmin = -1;
    for (int k = 0; k < st->pairs.n; k++) {
        int v = st->pairs.pair[k].a, t = st->pairs.pair[k].b;
        const int *tri = &mesh->tri[3 * t];
        double bary[3], dir[3];
        double d = weft_point_triangle_closest(&mesh->x[3 * v], &mesh->x[3 * tri[0]],
                                               &mesh->x[3 * tri[1]], &mesh->x[3 * tri[2]],
                                               bary, dir);
        if (d < dmin) dmin = d, vmin = v, tmin = t;
    }
    if (dmin < 2.0 * st->self_h)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "pbd.self_thickness = %g m: self-collision needs vertices and the "
                         "triangles they are not a corner of at least twice the thickness "
                         "apart at rest, but vertex %d is %g m from triangle %d; use a "
                         "thickness below %g m",
                         st->self_h, vmin, dmin, tmin, 0.5 * dmin);
    return WEFT_OK;
}

int pbd_self_init(pbd_state *st, const weft_model *m, weft_error *err) {
    st->self = st->set.self_collision;
    st->self_h = st->set.self_thickness;
    if (!st->self) return WEFT_OK;
    const weft_mesh *mesh = &m->mesh;
    if (!(st->self_h > 0.0 && isfinite(st->self_h)))
        return weft_fail(err, WEFT_ERR_INPUT, "pbd.self_thickness must be > 0 m (got %g)",
                         st->self_h);
    /* Cells of twice the mean rest edge length ℓ, table sized to the mesh. Teschner et
     * al. found cells of about ℓ best for boxes of bare primitives; ours are grown by h
     * on each side (h < 0.35 ℓ in a grid, by the rest check) and swept, so up to about
     * 1.7 ℓ wide at rest. Measured on bench_pbd_self's 64² drape (generation alone, ms
     * per step, falling / draped): cells of ℓ 4.1 / 10.3, 1.5 ℓ 2.3 / 7.5, 2 ℓ 1.8 / 6.8,
     * 3 ℓ 2.0 / 6.9, 4 ℓ 2.8 / 7.4. */
    double ell = 0.0;
    for (int e = 0; e < mesh->ne; e++) {
        const double *a = &mesh->x[3 * mesh->edge[2 * e]], *b = &mesh->x[3 * mesh->edge[2 * e + 1]];
        ell += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                    (a[2] - b[2]) * (a[2] - b[2]));
    }
    ell = mesh->ne > 0 ? ell / mesh->ne : 0.0;
    st->hash = weft_spatial_hash_create(mesh, mesh->x, 2.0 * ell, 0, err);
    if (!st->hash) return weft_error_code(WEFT_ERR_NOMEM); /* NOMEM, or a bad cell size */
    int rc = weft_spatial_hash_update(st->hash, mesh->x, NULL, 2.0 * st->self_h, err);
    if (rc == WEFT_OK) rc = check_rest_state(st, mesh, err);
    if (rc != WEFT_OK) return rc;
    st->cap_self = 64;
    st->self_contact = malloc((size_t)st->cap_self * sizeof *st->self_contact);
    if (!st->self_contact)
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating self-collision buffers");
    return WEFT_OK;
}

void pbd_self_free(pbd_state *st) {
    weft_spatial_hash_free(&st->hash);
    weft_pairs_free(&st->pairs);
    free(st->self_contact);
    st->self_contact = NULL;
    st->nself = st->cap_self = 0;
}

/* Appends one constraint, growing the buffer geometrically. */
static int push_contact(pbd_state *st, const pbd_self_contact *c) {
    if (st->nself == st->cap_self) {
        size_t cap = 2 * (size_t)st->cap_self;
        if (cap > (size_t)INT_MAX) return WEFT_ERR_NOMEM;
        pbd_self_contact *grown = realloc(st->self_contact, cap * sizeof *grown);
        if (!grown) return WEFT_ERR_NOMEM;
        st->self_contact = grown;
        st->cap_self = (int)cap;
    }
    st->self_contact[st->nself++] = *c;
    return WEFT_OK;
}

/* The side s of eqs. 12–13 for x0 = (q, p1, p2, p3) at the start of the step and x1 at
 * its predicted end (12 values each, m): the sign of (q − p1)·((p2 − p1) × (p3 − p1))
 * at the start. A vertex exactly in the plane takes the side that its motion relative to
 * the triangle's centroid comes from, and +1 if it does not move along the normal. */
static double start_side(const double *x0, const double *x1) {
    const double *q = x0, *a = x0 + 3, *b = x0 + 6, *c = x0 + 9;
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    double d = (q[0] - a[0]) * n[0] + (q[1] - a[1]) * n[1] + (q[2] - a[2]) * n[2];
    if (d != 0.0) return d > 0.0 ? 1.0 : -1.0;
    double rel = 0.0;
    for (int k = 0; k < 3; k++) {
        double vq = x1[k] - x0[k];
        double vt = (x1[3 + k] - x0[3 + k] + x1[6 + k] - x0[6 + k] + x1[9 + k] - x0[9 + k]) / 3.0;
        rel += (vq - vt) * n[k];
    }
    return rel > 0.0 ? -1.0 : 1.0;
}

/* Narrow phase: true when q comes within `band` (m) of the closed triangle at some time
 * of the linear motion x0 → x1 (12 values each: q, p1, p2, p3, m). Decided from the
 * distances d(0) and d(1) at the ends where they suffice, by the CCD (η = band)
 * otherwise:
 *  - d(0) ≤ band or d(1) ≤ band: yes (resting and proximity contacts);
 *  - the gap between q and the triangle's closest point, a convex combination of the
 *    corners, changes at most at the rate V = max_i |Δq − Δp_i| (Δ the motion over the
 *    step), so d(t) is V-Lipschitz on [0, 1] and
 *      d(t) ≥ max(d(0) − V t, d(1) − V (1 − t)) ≥ (d(0) + d(1) − V)/2:
 *    if that exceeds the band, no (most candidates: neighbours in a sheet that moves
 *    nearly as one, V ≈ 0);
 *  - else the CCD decides (a vertex that passes through or by the triangle quickly). */
static bool near_during_step(const double *x0, const double *x1, double band,
                             const weft_ccd_params *ccd) {
    double bary[3], dir[3];
    double d0 = weft_point_triangle_closest(x0, x0 + 3, x0 + 6, x0 + 9, bary, dir);
    double d1 = weft_point_triangle_closest(x1, x1 + 3, x1 + 6, x1 + 9, bary, dir);
    if (d0 <= band || d1 <= band) return true;
    double V = 0.0;
    for (int a = 1; a < 4; a++) {
        double r[3];
        for (int k = 0; k < 3; k++) r[k] = (x1[k] - x0[k]) - (x1[3 * a + k] - x0[3 * a + k]);
        V = fmax(V, sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]));
    }
    if (0.5 * (d0 + d1 - V) > band) return false;
    return weft_ccd_vertex_face(x0, x1, ccd, NULL);
}

int pbd_self_generate(pbd_state *st, const weft_model *m, weft_error *err) {
    st->nself = 0;
    if (!st->self) return WEFT_OK;
    const weft_mesh *mesh = &m->mesh;
    const double *x = m->x, *p = st->p, *w = st->w;
    double band = 2.0 * st->self_h; /* the thickness h plus a band of h */
    /* Broad phase: boxes of x → p grown by band/2, so the pairs that may come within the
     * band of each other during the step. */
    int rc = weft_spatial_hash_update(st->hash, x, p, band, err);
    if (rc == WEFT_ERR_NOMEM) return rc;
    if (rc != WEFT_OK) { /* else only non-finite positions: h was checked at creation */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err ? err->msg : "");
        return weft_fail(err, WEFT_ERR_DIVERGED, "pbd self-collision: %s", why);
    }
    rc = weft_spatial_hash_vt_pairs(st->hash, &st->pairs, err);
    if (rc != WEFT_OK) return rc;
    weft_ccd_params near = weft_ccd_params_default();
    near.eta = band;
    for (int k = 0; k < st->pairs.n; k++) {
        int v = st->pairs.pair[k].a, t = st->pairs.pair[k].b;
        const int *tri = &mesh->tri[3 * t];
        pbd_self_contact c = {{v, tri[0], tri[1], tri[2]}, 1.0};
        if (w[v] == 0.0 && w[tri[0]] == 0.0 && w[tri[1]] == 0.0 && w[tri[2]] == 0.0)
            continue; /* all four pinned: nothing can move */
        double x0[12], x1[12];
        for (int a = 0; a < 4; a++)
            for (int j = 0; j < 3; j++) {
                x0[3 * a + j] = x[3 * c.v[a] + j];
                x1[3 * a + j] = p[3 * c.v[a] + j];
            }
        if (!near_during_step(x0, x1, band, &near)) continue;
        c.side = start_side(x0, x1);
        if (push_contact(st, &c) != WEFT_OK)
            return weft_fail(err, WEFT_ERR_NOMEM,
                             "out of memory for %d self-collision constraints", st->nself + 1);
    }
    st->timers.self_contacts += st->nself;
    return WEFT_OK;
}

void pbd_project_self(pbd_state *st, double *p) {
    const double *w = st->w;
    double h = st->self_h;
    for (int c = 0; c < st->nself; c++) {
        const pbd_self_contact *sc = &st->self_contact[c];
        double xe[12], dp[12], we[4];
        for (int a = 0; a < 4; a++) {
            we[a] = w[sc->v[a]];
            for (int k = 0; k < 3; k++) xe[3 * a + k] = p[3 * sc->v[a] + k];
        }
        if (!pbd_self_delta(xe, we, sc->side, h, dp)) continue;
        for (int a = 0; a < 4; a++)
            for (int k = 0; k < 3; k++) p[3 * sc->v[a] + k] += dp[3 * a + k];
    }
    st->timers.projections += st->nself;
}
