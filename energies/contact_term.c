/* contact_term.c — the per-step contact set of an implicit solver: vertex–face and
 * edge–edge penalty elements (collision_vertex_face.c, collision_edge_edge.c; Kim &
 * Eberle §10.2) made from a broad phase's candidate pairs (lib/collision/weft_broadphase.h) with
 * the closest-point queries of lib/collision/weft_geometry.h (Bridson, Fedkiw, Anderson 2002 §4).
 *
 * A candidate becomes an element when its primitives are closer than η (m) and their
 * closest points are interior:
 *   vertex–triangle  all three barycentric coordinates of the closest point > 0; then
 *                    the distance to the face is the distance to its plane, the d of the
 *                    element, so the new element's Ψ = k/2 (η − dist)²;
 *   edge–edge        both closest-point parameters in (0, 1); then the distance between
 *                    the segments is that between their lines, again the element's d.
 * A vertex whose closest point is on a triangle's boundary is left to the neighbouring
 * triangle (if its foot is inside that one) and to the edge–edge pairs of its incident
 * edges; vertex–vertex and vertex–edge contacts have no element kind here. A candidate's
 * side s is that of the positions the set is filled at.
 *
 * Use in an implicit step (Newton on the incremental potential):
 *   - fill once per time step at the step's start positions x_n, where the cloth is
 *     intersection-free, and keep the set through the step's iterations: each element
 *     then remembers the side its vertex (edge) came from and pushes it back if an
 *     iterate crosses the plane; an element whose separation grows past η just goes
 *     inactive (Ψ = 0). The broad phase must pad its boxes by at least η (h = η in
 *     weft_mesh_boxes) so that every pair within η is a candidate.
 *   - the Hessian's sparsity pattern depends on the contact set. weft_assembly builds its
 *     pattern and per-element block map once, from the terms it is created with; a model
 *     view holding the contact terms (terms[nterms], terms[nterms + 1]) therefore needs a
 *     fresh weft_assembly_create after each fill, and a fresh symbolic factorisation when
 *     the pattern changed. weft_assembly_run checks only element counts and array
 *     addresses, and a refill reuses the arrays, so an old assembly run on a refilled set
 *     of the same size would not notice and would scatter into the old blocks.
 * No allocation happens once the arrays are large enough (capacities grow by doubling).
 */
#include "weft_energies.h"
#include "weft_geometry.h"

#include <stdlib.h>
#include <string.h>

/* Appends e to term t, growing its array (capacity *cap) when full. */
static int push(weft_term *t, int *cap, const weft_element *e, weft_error *err) {
    if (t->n == *cap) {
        if (*cap > (1 << 29)) return weft_fail(err, WEFT_ERR_NOMEM, "contacts: too many");
        int grown = *cap > 0 ? 2 * *cap : 64;
        weft_element *p = realloc(t->elem, (size_t)grown * sizeof *p);
        if (!p) return weft_fail(err, WEFT_ERR_NOMEM, "contacts: out of memory");
        t->elem = p;
        *cap = grown;
    }
    t->elem[t->n++] = *e;
    return WEFT_OK;
}

/* Gathers the positions of the element's 4 vertices. */
static void gather(const weft_element *e, const double *x, double xe[12]) {
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) xe[3 * a + k] = x[3 * (size_t)e->v[a] + k];
}

/* Tests vertex v against triangle tri and appends an element if they are in contact. */
static int vertex_face(weft_contacts *c, const weft_mesh *m, const double *x, int v, int tri,
                       const weft_energy_params *p, weft_error *err) {
    if (v < 0 || v >= m->nv || tri < 0 || tri >= m->nt)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "contacts: vertex-triangle pair (%d, %d) out of range (%d vertices, "
                         "%d triangles)",
                         v, tri, m->nv, m->nt);
    const int *t = &m->tri[3 * tri];
    if (v == t[0] || v == t[1] || v == t[2]) return WEFT_OK; /* a corner of its own face */
    weft_element e = {.v = {v, t[0], t[1], t[2]}};
    double xe[12], bary[3];
    gather(&e, x, xe);
    double dist = weft_point_triangle_closest(xe, xe + 3, xe + 6, xe + 9, bary, NULL);
    if (isnan(dist))
        return weft_fail(err, WEFT_ERR_INPUT,
                         "contacts: non-finite position at vertex %d or triangle %d", v, tri);
    if (!(dist < p->thickness && bary[0] > 0.0 && bary[1] > 0.0 && bary[2] > 0.0)) return WEFT_OK;
    weft_vertex_face_contact.init(&e, xe, p);
    return push(&c->vertex_face, &c->vertex_face_cap, &e, err);
}

/* Tests edge ea against edge eb and appends an element if they are in contact. */
static int edge_edge(weft_contacts *c, const weft_mesh *m, const double *x, int ea, int eb,
                     const weft_energy_params *p, weft_error *err) {
    if (ea < 0 || ea >= m->ne || eb < 0 || eb >= m->ne)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "contacts: edge pair (%d, %d) out of range (%d edges)", ea, eb, m->ne);
    const int *a = &m->edge[2 * ea], *b = &m->edge[2 * eb];
    if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1]) return WEFT_OK;
    weft_element e = {.v = {a[0], a[1], b[0], b[1]}};
    double xe[12], s, u;
    gather(&e, x, xe);
    double dist = weft_edge_edge_closest(xe, xe + 3, xe + 6, xe + 9, &s, &u, NULL);
    if (isnan(dist))
        return weft_fail(err, WEFT_ERR_INPUT, "contacts: non-finite position at edge %d or %d", ea,
                         eb);
    if (!(dist < p->thickness && s > 0.0 && s < 1.0 && u > 0.0 && u < 1.0)) return WEFT_OK;
    weft_edge_edge_contact.init(&e, xe, p);
    return push(&c->edge_edge, &c->edge_edge_cap, &e, err);
}

int weft_contact_fill(weft_contacts *c, const weft_mesh *m, const double *x,
                      const weft_collision_pairs *pairs, double k, double eta, weft_error *err) {
    if (!c || !m || !x || !pairs) return weft_fail(err, WEFT_ERR_INPUT, "contacts: NULL argument");
    if (!(k >= 0.0) || !isfinite(k) || !(eta >= 0.0) || !isfinite(eta))
        return weft_fail(err, WEFT_ERR_INPUT,
                         "contacts: stiffness %g N/m and thickness %g m must be finite and >= 0", k,
                         eta);
    c->vertex_face.type = &weft_vertex_face_contact;
    c->edge_edge.type = &weft_edge_edge_contact;
    c->vertex_face.n = c->edge_edge.n = 0;
    weft_energy_params p = {.stiffness = k, .thickness = eta};
    int rc = WEFT_OK;
    for (int i = 0; i < pairs->vt.n && rc == WEFT_OK; i++)
        rc = vertex_face(c, m, x, pairs->vt.pair[i].a, pairs->vt.pair[i].b, &p, err);
    for (int i = 0; i < pairs->tv.n && rc == WEFT_OK; i++)
        rc = vertex_face(c, m, x, pairs->tv.pair[i].b, pairs->tv.pair[i].a, &p, err);
    for (int i = 0; i < pairs->ee.n && rc == WEFT_OK; i++)
        rc = edge_edge(c, m, x, pairs->ee.pair[i].a, pairs->ee.pair[i].b, &p, err);
    if (rc != WEFT_OK) c->vertex_face.n = c->edge_edge.n = 0; /* no half-filled set */
    return rc;
}

void weft_contacts_free(weft_contacts *c) {
    if (!c) return;
    free(c->vertex_face.elem);
    free(c->edge_edge.elem);
    memset(c, 0, sizeof *c);
}
