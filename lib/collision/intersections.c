/* intersections.c — counting intersecting triangle pairs of a cloth (with itself and
 * against triangle-mesh obstacles) without testing every pair: the check that
 * collision handling (Bridson, Fedkiw & Anderson 2002) left no intersection behind,
 * fast enough to run after every step of an experiment on meshes of 10⁴–10⁵ triangles.
 *
 * Broad phase: sort and sweep (Baraff 1992, "dimension reduction"). Every triangle's
 * axis-aligned box (no padding) is sorted by its lower bound along the axis on which
 * the box centres spread most; a sweep over that order visits exactly the pairs whose
 * boxes overlap on that axis, and the other two axes are checked before the exact test
 * weft_tri_tri_intersect (lib/collision/geometry.c). Boxes that touch count as overlapping, as in
 * weft_mesh_count_intersections, so both count the same pairs: the sweep only skips
 * pairs that brute force also rejects on their boxes. Cost O(n log n + k), k the pairs
 * whose boxes overlap along the sweep axis (for a flat or draped cloth a few per
 * triangle; a cloth folded many times over itself along that axis raises it).
 */
#include "weft_geometry.h"

#include <math.h>
#include <stdlib.h>

/* One triangle in the sweep: its box, and which mesh and triangle it is. */
typedef struct sweep_item {
    double lo[3], hi[3]; /* m */
    double key;          /* lo on the sweep axis, the sort key */
    int mesh;            /* -1: the cloth; k >= 0: obstacle k */
    int tri;             /* triangle index in its mesh */
} sweep_item;

/* Orders items by their lower bound on the sweep axis, then by mesh and triangle, so
 * that the order (and the argument order of the exact tests) is deterministic. */
static int by_lower_bound(const void *pa, const void *pb) {
    const sweep_item *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->mesh != b->mesh) return a->mesh < b->mesh ? -1 : 1;
    return (a->tri > b->tri) - (a->tri < b->tri);
}

/* Fills item's box from triangle t of mesh at positions x; false if a coordinate is
 * not finite. */
static bool triangle_box(const weft_mesh *mesh, const double *x, int t, sweep_item *item) {
    const int *v = &mesh->tri[3 * t];
    for (int k = 0; k < 3; k++) {
        double a = x[3 * v[0] + k], b = x[3 * v[1] + k], c = x[3 * v[2] + k];
        if (!isfinite(a) || !isfinite(b) || !isfinite(c)) return false;
        item->lo[k] = fmin(a, fmin(b, c));
        item->hi[k] = fmax(a, fmax(b, c));
    }
    return true;
}

/* True when cloth triangles s and t share a vertex. */
static bool share_vertex(const weft_mesh *m, int s, int t) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (m->tri[3 * s + i] == m->tri[3 * t + j]) return true;
    return false;
}

long weft_count_intersections(const weft_mesh *m, const double *x, int nobs,
                              const weft_mesh *const *obs, const double *const *xo) {
    if (!x) x = m->x;
    long n = m->nt;
    for (int k = 0; k < nobs; k++) n += obs[k]->nt;
    sweep_item *items = malloc((size_t)(n > 0 ? n : 1) * sizeof *items);
    if (!items) return -1;
    /* Boxes, and the spread of their centres along each axis. */
    double cmin[3] = {INFINITY, INFINITY, INFINITY}, cmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    long at = 0;
    bool finite = true;
    for (int k = -1; k < nobs && finite; k++) {
        const weft_mesh *mesh = k < 0 ? m : obs[k];
        const double *xk = k < 0 ? x : (xo && xo[k] ? xo[k] : obs[k]->x);
        for (int t = 0; t < mesh->nt && finite; t++, at++) {
            sweep_item *it = &items[at];
            it->mesh = k, it->tri = t;
            finite = triangle_box(mesh, xk, t, it);
            for (int a = 0; a < 3; a++) {
                double c = 0.5 * (it->lo[a] + it->hi[a]);
                cmin[a] = fmin(cmin[a], c), cmax[a] = fmax(cmax[a], c);
            }
        }
    }
    if (!finite) {
        free(items);
        return -1;
    }
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (cmax[a] - cmin[a] > cmax[axis] - cmin[axis]) axis = a;
    for (long i = 0; i < n; i++) items[i].key = items[i].lo[axis];
    qsort(items, (size_t)n, sizeof *items, by_lower_bound);

    long count = 0;
    for (long i = 0; i < n; i++) {
        const sweep_item *a = &items[i];
        for (long j = i + 1; j < n && items[j].key <= a->hi[axis]; j++) {
            const sweep_item *b = &items[j];
            if (a->mesh >= 0 && b->mesh >= 0) continue; /* obstacle against obstacle */
            bool apart = false;
            for (int k = 0; k < 3 && !apart; k++)
                apart = a->hi[k] < b->lo[k] || b->hi[k] < a->lo[k];
            if (apart) continue;
            /* The cloth triangle first; two cloth triangles in index order, as brute
             * force passes them. */
            const sweep_item *p = a, *q = b;
            if (p->mesh >= 0 || (q->mesh < 0 && q->tri < p->tri)) p = b, q = a;
            if (q->mesh < 0 && share_vertex(m, p->tri, q->tri)) continue;
            const weft_mesh *qm = q->mesh < 0 ? m : obs[q->mesh];
            const double *qx = q->mesh < 0 ? x : (xo && xo[q->mesh] ? xo[q->mesh] : qm->x);
            const int *tp = &m->tri[3 * p->tri], *tq = &qm->tri[3 * q->tri];
            if (weft_tri_tri_intersect(&x[3 * tp[0]], &x[3 * tp[1]], &x[3 * tp[2]], &qx[3 * tq[0]],
                                       &qx[3 * tq[1]], &qx[3 * tq[2]]))
                count++;
        }
    }
    free(items);
    return count;
}
