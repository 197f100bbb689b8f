/* weft_broadphase.h — broad phases of cloth collision detection: which primitive pairs
 * can be in contact, before the narrow phase (closest points, CCD) decides which are.
 *
 * Two primitive pair kinds are reported, as in Bridson, Fedkiw & Anderson 2002: a vertex
 * against a triangle, and an edge against an edge (Müller et al. 2006 §4.3 use only the
 * first).
 * A pair is a candidate when the axis-aligned boxes of its two primitives overlap, each
 * box enclosing the primitive's positions at the start (x0) and, for swept motion, at
 * the end (x1) of a step, grown by h/2 on every side (h the thickness, m). So a pair
 * whose primitives come within h of each other during the step is always a candidate.
 * Pairs of adjacent primitives (a triangle and one of its own corners, two edges that
 * share a vertex) are never reported. Vertices in no triangle are not primitives.
 *
 * Queries work within one mesh (self-collision) or across two meshes A and B (e.g. a
 * cloth and an obstacle); each mesh pads its boxes by its own h/2. Every pair (a, b)
 * has a in A and b in B; within one mesh A = B. Results are sorted by (a, b) with no
 * duplicates, so the broad phases below agree pair by pair:
 *
 *   weft_bvh           bounding-box hierarchy (lib/collision/bvh.c): built once, refitted each step;
 *   weft_spatial_hash  uniform spatial hash, Teschner et al. 2003 (lib/collision/spatial_hash.c);
 *   weft_bvh_pairs_brute_force  every primitive pair tested: the reference, O(n²).
 *
 * All three return exactly the set defined above (the hash's cells alone would give a
 * superset; it keeps only pairs whose boxes overlap). Output buffers are reused: once
 * they are large enough, a query allocates nothing.
 */
#ifndef WEFT_BROADPHASE_H
#define WEFT_BROADPHASE_H

#include "weft.h"

/* ------------------------------------------------------------------------------ */
/* Pair lists                                                                      */
/* ------------------------------------------------------------------------------ */

/* A candidate pair of primitive indices: a in mesh A, b in mesh B. */
typedef struct weft_pair {
    int a, b;
} weft_pair;

/* A growable list of pairs. Zero-initialise it, reuse it across steps (a query empties
 * it first), free it with weft_pairs_free. */
typedef struct weft_pairs {
    int n;           /* pairs held */
    int cap;         /* room in pair and tmp */
    weft_pair *pair; /* n pairs */
    weft_pair *tmp;  /* scratch for weft_pairs_sort, cap pairs */
} weft_pairs;

/* The candidates of one query. Within one mesh, vt holds every vertex–triangle pair,
 * tv is empty, and every edge–edge pair has a < b. */
typedef struct weft_collision_pairs {
    weft_pairs vt; /* (vertex of A, triangle of B) */
    weft_pairs tv; /* (triangle of A, vertex of B); across two meshes only */
    weft_pairs ee; /* (edge of A, edge of B) */
} weft_collision_pairs;

/* Makes room for at least `need` pairs, growing the capacity geometrically; WEFT_OK or
 * WEFT_ERR_NOMEM (the list is then unchanged). */
int weft_pairs_reserve(weft_pairs *l, long long need);

/* Appends (a, b); WEFT_OK or WEFT_ERR_NOMEM. Inline: it runs once per candidate. */
static inline int weft_pairs_push(weft_pairs *l, int a, int b) {
    if (l->n == l->cap && weft_pairs_reserve(l, (long long)l->n + 1) != WEFT_OK)
        return WEFT_ERR_NOMEM;
    l->pair[l->n].a = a;
    l->pair[l->n].b = b;
    l->n++;
    return WEFT_OK;
}

/* Sorts the pairs by (a, b) ascending: a least-significant-digit radix sort, O(n). */
void weft_pairs_sort(weft_pairs *l);

/* Frees the list's buffers and zeroes it; safe on a zeroed list. */
void weft_pairs_free(weft_pairs *l);

/* Empties all three lists, keeping their buffers. */
void weft_collision_pairs_clear(weft_collision_pairs *p);

/* Frees all three lists and zeroes p. */
void weft_collision_pairs_free(weft_collision_pairs *p);

/* ------------------------------------------------------------------------------ */
/* Boxes                                                                           */
/* ------------------------------------------------------------------------------ */

/* A box is 6 doubles: lo x, y, z then hi x, y, z (m). */

/* True when closed boxes a and b overlap (touching counts). */
static inline bool weft_box_overlap(const double *a, const double *b) {
    return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] &&
           b[2] <= a[5];
}

/* Fills the boxes of m's vertices (6*nv), edges (6*ne) and triangles (6*nt) enclosing
 * x0 and, if non-NULL, x1 (3*nv each, m), grown by h/2 (m); any output may be NULL.
 * WEFT_ERR_INPUT for a negative or non-finite h or a non-finite position. */
int weft_mesh_boxes(const weft_mesh *m, const double *x0, const double *x1, double h, double *vbox,
                    double *ebox, double *tbox, weft_error *err);

/* ------------------------------------------------------------------------------ */
/* Bounding-box hierarchy (lib/collision/bvh.c)                                              */
/* ------------------------------------------------------------------------------ */

/* A binary tree of boxes over one mesh's triangles, one triangle per leaf. */
typedef struct weft_bvh weft_bvh;

/* Builds the tree by median splits of triangle centroids at positions x (3*nv, m; NULL:
 * the mesh's rest positions), then fits it at x with h = 0. m must have its topology
 * and must outlive the tree. NULL on failure, with the reason in err. */
weft_bvh *weft_bvh_create(const weft_mesh *m, const double *x, weft_error *err);

/* Refits every box bottom-up, O(n), to enclose x0 and, if non-NULL, x1 (3*nv, m),
 * grown by h/2 (m). The tree's shape is kept; rebuild it if the mesh deforms so much
 * that queries slow down. WEFT_ERR_INPUT for non-finite positions or a bad h. */
int weft_bvh_refit(weft_bvh *b, const double *x0, const double *x1, double h, weft_error *err);

/* Candidate pairs of a's mesh (A) against b's (B); b == a (or NULL) for self-collision.
 * Traverses both trees together, sorts the result; out's previous contents are lost. */
int weft_bvh_pairs(const weft_bvh *a, const weft_bvh *b, weft_collision_pairs *out,
                   weft_error *err);

/* The same pairs by testing every primitive pair's boxes from the last refits: the
 * reference the trees must agree with, O(nv nt + ne²). */
int weft_bvh_pairs_brute_force(const weft_bvh *a, const weft_bvh *b, weft_collision_pairs *out,
                               weft_error *err);

/* Appends (query, t) to out, unsorted, for each triangle t whose box overlaps the box of
 * a point moving p0 -> p1 (p1 NULL: at p0; m) grown by h/2 (m). Triangles that have
 * vertex `exclude` of the tree's mesh as a corner are skipped (-1: none). */
int weft_bvh_point_query(const weft_bvh *b, int query, const double p0[3], const double p1[3],
                         double h, int exclude, weft_pairs *out, weft_error *err);

/* Number of nodes and depth (a single leaf has depth 1; an empty tree 0). */
void weft_bvh_shape(const weft_bvh *b, int *nodes, int *depth);

/* Frees the tree and sets *b to NULL; safe on NULL. */
void weft_bvh_free(weft_bvh **b);

/* ------------------------------------------------------------------------------ */
/* Spatial hash (lib/collision/spatial_hash.c)                                               */
/* ------------------------------------------------------------------------------ */

/* A uniform grid of cubic cells hashed into a table (Teschner et al. 2003). */
typedef struct weft_spatial_hash weft_spatial_hash;

/* Creates a hash over m's primitives with cubic cells of side `cell` (m; <= 0: the
 * average edge length at positions x, or the rest positions if x is NULL) and a table
 * of `table_size` buckets (<= 0: the smallest prime >= the larger of nv, ne and nt).
 * Boxes are set at x with h = 0. m must have its topology and must outlive the hash. */
weft_spatial_hash *weft_spatial_hash_create(const weft_mesh *m, const double *x, double cell,
                                            int table_size, weft_error *err);

/* Recomputes the primitive boxes, O(n): they enclose x0 and, if non-NULL, x1 (3*nv, m),
 * grown by h/2 (m). WEFT_ERR_INPUT for non-finite positions or a bad h. */
int weft_spatial_hash_update(weft_spatial_hash *s, const double *x0, const double *x1, double h,
                             weft_error *err);

/* Candidate pairs of a's mesh (A) against b's (B); b == a (or NULL) for self-collision.
 * Hashes A's primitives (and B's vertices) into a's table using a's cells, then scans
 * the cells of the other side's boxes; sorts the result. WEFT_ERR_INPUT if one box
 * spans more than 2^24 cells (the cell is far too small for the motion). */
int weft_spatial_hash_pairs(weft_spatial_hash *a, const weft_spatial_hash *b,
                            weft_collision_pairs *out, weft_error *err);

/* Only the vertex–triangle pairs of s's mesh against itself (Müller et al. 2006 §4.3
 * use no others): the same list as weft_spatial_hash_pairs(s, NULL, ...)'s vt, without
 * the cost of the edge–edge pass. out's previous contents are lost. */
int weft_spatial_hash_vt_pairs(weft_spatial_hash *s, weft_pairs *out, weft_error *err);

/* Cell side (m) and table size in use. */
void weft_spatial_hash_shape(const weft_spatial_hash *s, double *cell, int *table_size);

/* Frees the hash and sets *s to NULL; safe on NULL. */
void weft_spatial_hash_free(weft_spatial_hash **s);

#endif
