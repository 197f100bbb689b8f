/* contact_term.c — the per-step contact set of an implicit solver: vertex–face and
 * edge–edge penalty elements (collision_vertex_face.c, collision_edge_edge.c; Kim &
 * Eberle §10.2) made from a broad phase's candidate pairs (lib/collision/weft_broadphase.h)
 * with the closest-point queries of lib/collision/weft_geometry.h (Bridson, Fedkiw,
 * Anderson 2002 §4).
 *
 * A candidate becomes an element when its primitives are closer than η (m) and their
 * closest points are interior: a vertex–triangle pair with all three barycentric
 * coordinates > 0, an edge–edge pair with both parameters in (0, 1); the distance is then
 * that to the plane (between the lines), the element's d, and Ψ = k/2 (η − dist)². Other
 * cases are left to neighbouring pairs; vertex–vertex and vertex–edge contacts have no
 * element. A candidate's side s is that of the positions the set is filled at.
 *
 * Use in an implicit step: fill once per step at x_n (intersection-free) and keep the set
 * through the iterations; the broad phase pads its boxes by at least η. The Hessian's
 * pattern depends on the set, so a model view holding the contact terms needs a fresh
 * weft_assembly_create after each fill (and a fresh symbolic factorisation when the
 * pattern changed): weft_assembly_run would not notice a refilled set of the same size.
 * More: papers/kim-eberle2020-collision-energies.md ("Implementation notes:
 * energies/contact_term.c").
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
