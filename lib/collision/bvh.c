/* bvh.c — the bounding-box hierarchy broad phase (lib/collision/weft_broadphase.h): a binary tree
 * of axis-aligned boxes over a mesh's triangles, built once and refitted every step, for
 * the proximity and collision tests of Bridson, Fedkiw & Anderson 2002 (the collision
 * slides' "BV hierarchy algorithm": descend pairs of nodes whose boxes are close, test
 * the mesh elements when both are leaves).
 *
 * Build: top-down median split. A node's triangles are split in two halves at the
 * median of their centroids along the longest axis of the centroids' bounding box, so
 * the tree is balanced (depth ⌈log2 nt⌉ + 1) whatever the mesh; the median is found by
 * quickselect, so the build costs O(nt log nt). SAH would fit a deformed mesh no better
 * after a few hundred refits, and cloth keeps its neighbourhoods, so median it is.
 *
 * Refit: nodes are stored in pre-order (a node's children come after it), so one loop
 * from the last node to the first recomputes every box from its children: O(n).
 *
 * Pairs: one tree over triangles gives both vertex–triangle and edge–edge candidates.
 * Each vertex and each edge is "owned" by one triangle that contains it (the
 * lowest-numbered). A primitive's box lies inside its owner's box, so if a vertex box
 * overlaps a triangle box (or two edge boxes overlap) the owners' boxes overlap too and
 * the simultaneous traversal of the tree with itself (or with another mesh's tree)
 * reaches that pair of leaves; there the owned primitives are tested. Every
 * unordered pair of distinct leaves is reached once, so every candidate is produced
 * exactly once and nothing needs deduplicating. The alternative, separate trees over
 * vertices and edges, would refit three trees (about 6 nv leaves instead of 2 nv) and
 * traverse two; the price of the single tree is that triangle boxes are looser than
 * vertex and edge boxes, so some leaf pairs it visits yield no candidate.
 */
#include "weft_broadphase.h"

#include <stdlib.h>
#include <string.h>

/* One node. A leaf holds one triangle. */
typedef struct bvh_node {
    double box[6]; /* lo xyz, hi xyz, m */
    int right;     /* internal node: index of its right child (the left is the next node) */
    int tri;       /* leaf: its triangle; internal node: -1 */
} bvh_node;

struct weft_bvh {
    const weft_mesh *mesh;
    int nnodes;          /* 2 nt - 1, or 0 for a mesh with no triangles */
    int depth;           /* levels of the tree */
    bvh_node *node;      /* nnodes nodes in pre-order; node 0 is the root */
    double *vbox;        /* 6 nv: vertex boxes of the last refit */
    double *ebox;        /* 6 ne: edge boxes */
    double *tbox;        /* 6 nt: triangle boxes */
    int *tri_edge;       /* 3 nt: the edge index of side k (corner k to k+1) of triangle t */
    unsigned char *owns; /* nt: bit k set when t owns corner k, bit 3+k when it owns side k */
    unsigned char *used; /* nv: 1 when the vertex is a corner of some triangle */
};

/* malloc of n elements of size sz, never asking for 0 bytes. */
static void *alloc_array(size_t n, size_t sz) {
    return malloc((n ? n : 1) * sz);
}

/* ------------------------------------------------------------------------------ */
/* Build                                                                           */
/* ------------------------------------------------------------------------------ */

/* Order of triangles a and b along an axis: by centroid, then by index (a total order,
 * so the split, and hence the tree, does not depend on how quickselect visits ties). */
static bool centroid_less(const double *cen, int axis, int a, int b) {
    double ca = cen[3 * a + axis], cb = cen[3 * b + axis];
    return ca < cb || (ca == cb && a < b);
}

static void swap_int(int *a, int *b) {
    int t = *a;
    *a = *b, *b = t;
}

/* Quickselect (Hoare 1961) with a median-of-three pivot and Lomuto partition: reorders
 * idx[lo..hi) so that idx[nth] is the element a sort would put there, with smaller ones
 * before it and larger ones after. Expected O(hi - lo). */
static void select_nth(int *idx, int lo, int hi, int nth, const double *cen, int axis) {
    while (hi - lo > 2) {
        int mid = lo + (hi - lo) / 2;
        /* Median of idx[lo], idx[mid], idx[hi-1] into idx[hi-1] as the pivot. */
        if (centroid_less(cen, axis, idx[mid], idx[lo])) swap_int(&idx[mid], &idx[lo]);
        if (centroid_less(cen, axis, idx[hi - 1], idx[lo])) swap_int(&idx[hi - 1], &idx[lo]);
        if (centroid_less(cen, axis, idx[mid], idx[hi - 1])) swap_int(&idx[mid], &idx[hi - 1]);
        int pivot = idx[hi - 1], store = lo;
        for (int i = lo; i < hi - 1; i++)
            if (centroid_less(cen, axis, idx[i], pivot)) swap_int(&idx[i], &idx[store++]);
        swap_int(&idx[store], &idx[hi - 1]);
        if (nth == store) return;
        if (nth < store)
            hi = store;
        else
            lo = store + 1;
    }
    if (hi - lo == 2 && centroid_less(cen, axis, idx[lo + 1], idx[lo]))
        swap_int(&idx[lo], &idx[lo + 1]);
}

typedef struct build_ctx {
    const double *cen; /* 3 nt triangle centroids, m */
    int *idx;          /* triangle indices, reordered as the tree splits them */
    bvh_node *node;
    int next;  /* next free node */
    int depth; /* deepest level reached */
} build_ctx;

/* Builds the subtree over idx[lo..hi) at the given level; returns its root's index. */
static int build(build_ctx *c, int lo, int hi, int level) {
    int i = c->next++;
    if (level > c->depth) c->depth = level;
    bvh_node *n = &c->node[i];
    if (hi - lo == 1) {
        n->right = -1;
        n->tri = c->idx[lo];
        return i;
    }
    double lo3[3], hi3[3];
    for (int k = 0; k < 3; k++) lo3[k] = hi3[k] = c->cen[3 * c->idx[lo] + k];
    for (int j = lo + 1; j < hi; j++)
        for (int k = 0; k < 3; k++) {
            double p = c->cen[3 * c->idx[j] + k];
            lo3[k] = p < lo3[k] ? p : lo3[k];
            hi3[k] = p > hi3[k] ? p : hi3[k];
        }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (hi3[k] - lo3[k] > hi3[axis] - lo3[axis]) axis = k;
    int mid = lo + (hi - lo) / 2;
    select_nth(c->idx, lo, hi, mid, c->cen, axis);
    n->tri = -1;
    build(c, lo, mid, level + 1); /* the left child is node i + 1 */
    n->right = build(c, mid, hi, level + 1);
    return i;
}

/* Side k of triangle t as an edge index, by matching its vertex pair. */
static void map_triangle_edges(const weft_mesh *m, int *tri_edge) {
    for (int e = 0; e < m->ne; e++) {
        int lo = m->edge[2 * e], hi = m->edge[2 * e + 1];
        for (int s = 0; s < 2; s++) {
            int t = m->edge_tri[2 * e + s];
            if (t < 0) continue;
            for (int k = 0; k < 3; k++) {
                int a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
                if ((a == lo && b == hi) || (a == hi && b == lo)) tri_edge[3 * t + k] = e;
            }
        }
    }
}

/* Builds the tree by median splits of triangle centroids at x, then fits it at x. */
weft_bvh *weft_bvh_create(const weft_mesh *m, const double *x, weft_error *err) {
    if (!m) {
        weft_fail(err, WEFT_ERR_INPUT, "bvh: no mesh");
        return NULL;
    }
    if (m->nt > 0 && (!m->edge || !m->edge_tri || m->ne <= 0)) {
        weft_fail(err, WEFT_ERR_INPUT, "bvh: the mesh has no topology (build it first)");
        return NULL;
    }
    if (!x) x = m->x;
    weft_bvh *b = calloc(1, sizeof *b);
    if (!b) {
        weft_fail(err, WEFT_ERR_NOMEM, "bvh: out of memory");
        return NULL;
    }
    const size_t nv = (size_t)m->nv, ne = (size_t)m->ne, nt = (size_t)m->nt;
    b->mesh = m;
    b->nnodes = m->nt > 0 ? 2 * m->nt - 1 : 0;
    b->node = alloc_array((size_t)b->nnodes, sizeof *b->node);
    b->vbox = alloc_array(6 * nv, sizeof *b->vbox);
    b->ebox = alloc_array(6 * ne, sizeof *b->ebox);
    b->tbox = alloc_array(6 * nt, sizeof *b->tbox);
    b->tri_edge = alloc_array(3 * nt, sizeof *b->tri_edge);
    b->owns = calloc(nt ? nt : 1, 1);
    b->used = calloc(nv ? nv : 1, 1);
    double *cen = alloc_array(3 * nt, sizeof *cen);
    int *idx = alloc_array(nt, sizeof *idx);
    if (!b->node || !b->vbox || !b->ebox || !b->tbox || !b->tri_edge || !b->owns || !b->used ||
        !cen || !idx) {
        free(cen), free(idx);
        weft_bvh_free(&b);
        weft_fail(err, WEFT_ERR_NOMEM, "bvh: out of memory for %d triangles", m->nt);
        return NULL;
    }

    /* Ownership: a vertex belongs to the first triangle listing it, an edge to the first
     * of its (at most two) triangles, edge_tri[2e]. */
    map_triangle_edges(m, b->tri_edge);
    for (int t = 0; t < m->nt; t++)
        for (int k = 0; k < 3; k++) {
            int v = m->tri[3 * t + k];
            if (!b->used[v]) {
                b->used[v] = 1;
                b->owns[t] |= (unsigned char)(1u << k);
            }
        }
    for (int e = 0; e < m->ne; e++) {
        int t = m->edge_tri[2 * e];
        for (int k = 0; k < 3; k++)
            if (b->tri_edge[3 * t + k] == e) b->owns[t] |= (unsigned char)(1u << (3 + k));
    }

    int rc = WEFT_OK;
    if (m->nt > 0) {
        for (int t = 0; t < m->nt; t++) {
            idx[t] = t;
            for (int k = 0; k < 3; k++) {
                const int *v = &m->tri[3 * t];
                cen[3 * t + k] = (x[3 * v[0] + k] + x[3 * v[1] + k] + x[3 * v[2] + k]) / 3.0;
            }
        }
        build_ctx c = {cen, idx, b->node, 0, 0};
        build(&c, 0, m->nt, 1);
        b->depth = c.depth;
    }
    free(cen), free(idx);
    rc = weft_bvh_refit(b, x, NULL, 0.0, err);
    if (rc != WEFT_OK) {
        weft_bvh_free(&b);
        return NULL;
    }
    return b;
}

/* Refits every box bottom-up: leaves take their triangle's box, parents the union of
 * their children's; children follow their parent in pre-order, so walk backwards. */
int weft_bvh_refit(weft_bvh *b, const double *x0, const double *x1, double h, weft_error *err) {
    int rc = weft_mesh_boxes(b->mesh, x0, x1, h, b->vbox, b->ebox, b->tbox, err);
    if (rc != WEFT_OK) return rc;
    for (int i = b->nnodes - 1; i >= 0; i--) {
        bvh_node *n = &b->node[i];
        if (n->tri >= 0) {
            memcpy(n->box, &b->tbox[6 * n->tri], sizeof n->box);
            continue;
        }
        const double *l = b->node[i + 1].box, *r = b->node[n->right].box;
        for (int k = 0; k < 3; k++) {
            n->box[k] = l[k] < r[k] ? l[k] : r[k];
            n->box[3 + k] = l[3 + k] > r[3 + k] ? l[3 + k] : r[3 + k];
        }
    }
    return WEFT_OK;
}

/* ------------------------------------------------------------------------------ */
/* Queries                                                                         */
/* ------------------------------------------------------------------------------ */

/* True when vertex v is a corner of the triangle with corners t[0..3). */
static bool is_corner(int v, const int *t) {
    return v == t[0] || v == t[1] || v == t[2];
}

/* True when edges (a0, a1) and (b0, b1) share a vertex. */
static bool edges_touch(const int *ea, const int *eb) {
    return ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1];
}

typedef struct traverse_ctx {
    const weft_bvh *a, *b;
    bool self;
    weft_collision_pairs *out;
    int rc; /* WEFT_OK until a push fails; then the traversal unwinds */
} traverse_ctx;

/* Appends (p, q), or records the failure. */
static void push(traverse_ctx *c, weft_pairs *l, int p, int q) {
    if (c->rc == WEFT_OK) c->rc = weft_pairs_push(l, p, q);
}

/* Leaves ta (of a) and tb (of b) overlap: test what each owns against the other. */
static void leaf_pair(traverse_ctx *c, int ta, int tb) {
    const weft_bvh *a = c->a, *b = c->b;
    const int *va = &a->mesh->tri[3 * ta], *vb = &b->mesh->tri[3 * tb];
    const unsigned oa = a->owns[ta], ob = b->owns[tb];
    for (int k = 0; k < 3; k++) {
        if (oa & (1u << k)) { /* corner of ta against triangle tb */
            int v = va[k];
            if (!(c->self && is_corner(v, vb)) &&
                weft_box_overlap(&a->vbox[6 * v], &b->tbox[6 * tb]))
                push(c, &c->out->vt, v, tb);
        }
        if (ob & (1u << k)) { /* corner of tb against triangle ta */
            int v = vb[k];
            if (!(c->self && is_corner(v, va)) &&
                weft_box_overlap(&b->vbox[6 * v], &a->tbox[6 * ta])) {
                if (c->self)
                    push(c, &c->out->vt, v, ta);
                else
                    push(c, &c->out->tv, ta, v);
            }
        }
    }
    for (int ka = 0; ka < 3; ka++) {
        if (!(oa & (1u << (3 + ka)))) continue;
        int ea = a->tri_edge[3 * ta + ka];
        for (int kb = 0; kb < 3; kb++) {
            if (!(ob & (1u << (3 + kb)))) continue;
            int eb = b->tri_edge[3 * tb + kb];
            if (c->self && edges_touch(&a->mesh->edge[2 * ea], &b->mesh->edge[2 * eb])) continue;
            if (!weft_box_overlap(&a->ebox[6 * ea], &b->ebox[6 * eb])) continue;
            if (c->self && ea > eb)
                push(c, &c->out->ee, eb, ea);
            else
                push(c, &c->out->ee, ea, eb);
        }
    }
}

/* Sum of a box's extents: which of two nodes to split first. */
static double box_size(const double *box) {
    return (box[3] - box[0]) + (box[4] - box[1]) + (box[5] - box[2]);
}

/* Every pair of leaves under node na of a and node nb of b whose boxes overlap. The
 * larger node is split first, which keeps the two boxes of a visit of similar size. */
static void visit_pair(traverse_ctx *c, int na, int nb) {
    const bvh_node *A = &c->a->node[na], *B = &c->b->node[nb];
    if (c->rc != WEFT_OK || !weft_box_overlap(A->box, B->box)) return;
    bool leaf_a = A->tri >= 0, leaf_b = B->tri >= 0;
    if (leaf_a && leaf_b) {
        leaf_pair(c, A->tri, B->tri);
    } else if (leaf_b || (!leaf_a && box_size(A->box) >= box_size(B->box))) {
        visit_pair(c, na + 1, nb);
        visit_pair(c, A->right, nb);
    } else {
        visit_pair(c, na, nb + 1);
        visit_pair(c, na, B->right);
    }
}

/* Every unordered pair of distinct leaves under node n: those within each child, then
 * those with one leaf in each child. */
static void visit_self(traverse_ctx *c, int n) {
    const bvh_node *N = &c->a->node[n];
    if (N->tri >= 0) return;
    visit_self(c, n + 1);
    visit_self(c, N->right);
    visit_pair(c, n + 1, N->right);
}

/* Sorts the three lists of out; with a failed push, reports it instead. */
static int finish(int rc, weft_collision_pairs *out, weft_error *err) {
    if (rc != WEFT_OK) return weft_fail(err, rc, "broad phase: out of memory for pairs");
    weft_pairs_sort(&out->vt);
    weft_pairs_sort(&out->tv);
    weft_pairs_sort(&out->ee);
    return WEFT_OK;
}

/* Candidate pairs of a's mesh against b's by traversing both trees together. */
int weft_bvh_pairs(const weft_bvh *a, const weft_bvh *b, weft_collision_pairs *out,
                   weft_error *err) {
    if (!b) b = a;
    weft_collision_pairs_clear(out);
    traverse_ctx c = {a, b, a == b, out, WEFT_OK};
    if (a->nnodes > 0 && b->nnodes > 0) {
        if (c.self)
            visit_self(&c, 0);
        else
            visit_pair(&c, 0, 0);
    }
    return finish(c.rc, out, err);
}

/* Every primitive pair tested, in index order, so the lists come out sorted. */
int weft_bvh_pairs_brute_force(const weft_bvh *a, const weft_bvh *b, weft_collision_pairs *out,
                               weft_error *err) {
    if (!b) b = a;
    weft_collision_pairs_clear(out);
    const weft_mesh *ma = a->mesh, *mb = b->mesh;
    const bool self = a == b;
    int rc = WEFT_OK;
    for (int v = 0; v < ma->nv && rc == WEFT_OK; v++) {
        if (!a->used[v]) continue;
        for (int t = 0; t < mb->nt && rc == WEFT_OK; t++)
            if (!(self && is_corner(v, &mb->tri[3 * t])) &&
                weft_box_overlap(&a->vbox[6 * v], &b->tbox[6 * t]))
                rc = weft_pairs_push(&out->vt, v, t);
    }
    for (int t = 0; t < ma->nt && rc == WEFT_OK && !self; t++)
        for (int v = 0; v < mb->nv && rc == WEFT_OK; v++)
            if (b->used[v] && weft_box_overlap(&a->tbox[6 * t], &b->vbox[6 * v]))
                rc = weft_pairs_push(&out->tv, t, v);
    for (int e = 0; e < ma->ne && rc == WEFT_OK; e++)
        for (int f = self ? e + 1 : 0; f < mb->ne && rc == WEFT_OK; f++)
            if (!(self && edges_touch(&ma->edge[2 * e], &mb->edge[2 * f])) &&
                weft_box_overlap(&a->ebox[6 * e], &b->ebox[6 * f]))
                rc = weft_pairs_push(&out->ee, e, f);
    if (rc != WEFT_OK) return weft_fail(err, rc, "broad phase: out of memory for pairs");
    return WEFT_OK;
}

typedef struct point_ctx {
    const weft_bvh *b;
    const double *box; /* the query's box */
    int query, exclude;
    weft_pairs *out;
    int rc;
} point_ctx;

/* Descends from node n to every leaf whose box overlaps the query box. */
static void visit_point(point_ctx *c, int n) {
    const bvh_node *N = &c->b->node[n];
    if (c->rc != WEFT_OK || !weft_box_overlap(N->box, c->box)) return;
    if (N->tri < 0) {
        visit_point(c, n + 1);
        visit_point(c, N->right);
    } else if (!(c->exclude >= 0 && is_corner(c->exclude, &c->b->mesh->tri[3 * N->tri]))) {
        c->rc = weft_pairs_push(c->out, c->query, N->tri);
    }
}

/* Appends (query, t) for each triangle t whose box overlaps the moving point's box. */
int weft_bvh_point_query(const weft_bvh *b, int query, const double p0[3], const double p1[3],
                         double h, int exclude, weft_pairs *out, weft_error *err) {
    /* The point as a one-vertex mesh, so its box is computed like every other. */
    const weft_mesh point = {.nv = 1};
    double box[6];
    int rc = weft_mesh_boxes(&point, p0, p1, h, box, NULL, NULL, err);
    if (rc != WEFT_OK) return rc;
    point_ctx c = {b, box, query, exclude, out, WEFT_OK};
    if (b->nnodes > 0) visit_point(&c, 0);
    if (c.rc != WEFT_OK) return weft_fail(err, c.rc, "bvh: out of memory for pairs");
    return WEFT_OK;
}

/* Number of nodes and depth. */
void weft_bvh_shape(const weft_bvh *b, int *nodes, int *depth) {
    if (nodes) *nodes = b->nnodes;
    if (depth) *depth = b->depth;
}

/* Frees the tree and sets *bp to NULL; safe on NULL. */
void weft_bvh_free(weft_bvh **bp) {
    if (!bp || !*bp) return;
    weft_bvh *b = *bp;
    *bp = NULL;
    free(b->node);
    free(b->vbox);
    free(b->ebox);
    free(b->tbox);
    free(b->tri_edge);
    free(b->owns);
    free(b->used);
    free(b);
}
