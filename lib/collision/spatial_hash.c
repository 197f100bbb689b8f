/* spatial_hash.c — the spatial hashing broad phase (lib/collision/weft_broadphase.h) of Teschner,
 * Heidelberger, Müller, Pomeranets & Gross 2003, "Optimized Spatial Hashing for Collision
 * Detection of Deformable Objects", used as Müller et al. 2006 §4.3 use it for cloth
 * self-collision (vertex–triangle), here with edge–edge pairs as well.
 *
 * Space is cut into cubic cells of side l (Teschner et al. found l close to the average
 * edge length best). Cell (i, j, k) = (⌊x/l⌋, ⌊y/l⌋, ⌊z/l⌋) goes to bucket
 *     hash(i, j, k) = (i p1 xor j p2 xor k p3) mod n,
 *     p1 = 73856093, p2 = 19349663, p3 = 83492791           (Teschner et al.'s primes)
 * of a table whose size n is a prime. Unlike the paper's per-step timestamps, the
 * table is rebuilt for each pass, as arrays sorted by bucket (a counting sort), so no
 * memory is allocated once the buffers are large enough.
 *
 * One pass hashes one kind of primitive (vertices, or edges) into every cell its box
 * touches, then walks the cells of every box of the other kind (triangles, or edges)
 * and tests the primitives found there. A bucket mixes cells that hash alike, so each
 * entry keeps its cell and only entries of the cell being walked are looked at.
 *
 * Superset and exactness: "found in a shared cell" is a superset of "boxes overlap"
 * (two boxes can share a cell without overlapping). Each found pair's boxes are then
 * tested, so the result is exactly the boxes-overlap set, the same as the BVH's. A pair
 * whose boxes overlap shares every cell that holds a point of the overlap, so it would
 * be found once per such cell; it is reported only in the cell holding the overlap's
 * lowest corner (max of the two lo corners), so once, with no sorting to deduplicate.
 */
#include "weft_broadphase.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Teschner et al. 2003: three large primes. */
#define HASH_P1 73856093u
#define HASH_P2 19349663u
#define HASH_P3 83492791u

/* Cell coordinates are clamped to ±2^30 so that they fit an int; clamping keeps ⌊x/l⌋
 * monotone in x, which is all the reference-cell argument above needs. */
#define CELL_COORD_LIMIT 1073741824.0

/* Most cells one box may touch before a pass gives up: a box that large means the cell
 * is far too small for the motion, and walking its cells would take forever. */
#define MAX_CELLS_PER_BOX (1LL << 24)

/* One primitive hashed into one cell. */
typedef struct hash_entry {
    int prim;    /* vertex or edge index */
    int cell[3]; /* the cell's integer coordinates */
} hash_entry;

struct weft_spatial_hash {
    const weft_mesh *mesh;
    double cell, inv_cell;      /* cell side l (m) and 1/l */
    int size;                   /* buckets, a prime */
    int *start;                 /* size + 1: bucket i holds entry[start[i] .. start[i+1]) */
    int *cursor;                /* size: fill position of each bucket during the counting sort */
    hash_entry *entry;          /* entries sorted by bucket */
    hash_entry *raw;            /* entries in the order they were hashed */
    int *raw_bucket;            /* bucket of each raw entry */
    int nentry, cap;            /* entries of the current pass, room in the three arrays */
    double *vbox, *ebox, *tbox; /* primitive boxes (6 each) of the last update */
    unsigned char *used;        /* nv: 1 for a corner of some triangle */
};

/* malloc of n elements of size sz, never asking for 0 bytes. */
static void *alloc_array(size_t n, size_t sz) {
    return malloc((n ? n : 1) * sz);
}

/* Smallest prime >= n (n >= 2), by trial division: done once per hash. */
static int next_prime(int n) {
    for (;; n++) {
        bool prime = n >= 2;
        for (int d = 2; prime && (long long)d * d <= n; d++)
            if (n % d == 0) prime = false;
        if (prime) return n;
    }
}

/* Creates the hash: cell side, table size, primitive boxes at x with h = 0. */
weft_spatial_hash *weft_spatial_hash_create(const weft_mesh *m, const double *x, double cell,
                                            int table_size, weft_error *err) {
    if (!m) {
        weft_fail(err, WEFT_ERR_INPUT, "spatial hash: no mesh");
        return NULL;
    }
    if (m->nt > 0 && (!m->edge || m->ne <= 0)) {
        weft_fail(err, WEFT_ERR_INPUT, "spatial hash: the mesh has no topology (build it first)");
        return NULL;
    }
    if (!isfinite(cell)) {
        weft_fail(err, WEFT_ERR_INPUT, "spatial hash: cell size must be finite (got %g m)", cell);
        return NULL;
    }
    if (!x) x = m->x;
    if (cell <= 0) {
        /* Teschner et al.: the average edge length. */
        double sum = 0;
        for (int e = 0; e < m->ne; e++) {
            const double *p = &x[3 * m->edge[2 * e]], *q = &x[3 * m->edge[2 * e + 1]];
            sum += sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                        (p[2] - q[2]) * (p[2] - q[2]));
        }
        cell = m->ne > 0 ? sum / m->ne : 1.0;
        if (!(isfinite(cell) && cell > 0)) {
            weft_fail(err, WEFT_ERR_INPUT,
                      "spatial hash: cannot take the cell size from the edges (mean length %g m)",
                      cell);
            return NULL;
        }
    }
    if (table_size <= 0) {
        int n = m->nv > m->ne ? m->nv : m->ne;
        if (m->nt > n) n = m->nt;
        table_size = next_prime(n > 2 ? n : 2);
    }

    weft_spatial_hash *s = calloc(1, sizeof *s);
    if (!s) {
        weft_fail(err, WEFT_ERR_NOMEM, "spatial hash: out of memory");
        return NULL;
    }
    s->mesh = m;
    s->cell = cell;
    s->inv_cell = 1.0 / cell;
    s->size = table_size;
    s->start = alloc_array((size_t)table_size + 1, sizeof *s->start);
    s->cursor = alloc_array((size_t)table_size, sizeof *s->cursor);
    s->vbox = alloc_array(6 * (size_t)m->nv, sizeof *s->vbox);
    s->ebox = alloc_array(6 * (size_t)m->ne, sizeof *s->ebox);
    s->tbox = alloc_array(6 * (size_t)m->nt, sizeof *s->tbox);
    s->used = calloc(m->nv ? (size_t)m->nv : 1, 1);
    if (!s->start || !s->cursor || !s->vbox || !s->ebox || !s->tbox || !s->used) {
        weft_spatial_hash_free(&s);
        weft_fail(err, WEFT_ERR_NOMEM, "spatial hash: out of memory for a table of %d", table_size);
        return NULL;
    }
    for (int i = 0; i < 3 * m->nt; i++) s->used[m->tri[i]] = 1;
    if (weft_spatial_hash_update(s, x, NULL, 0.0, err) != WEFT_OK) {
        weft_spatial_hash_free(&s);
        return NULL;
    }
    return s;
}

/* Recomputes the primitive boxes. */
int weft_spatial_hash_update(weft_spatial_hash *s, const double *x0, const double *x1, double h,
                             weft_error *err) {
    return weft_mesh_boxes(s->mesh, x0, x1, h, s->vbox, s->ebox, s->tbox, err);
}

/* ⌊x / l⌋, clamped to ±2^30. */
static int cell_coord(const weft_spatial_hash *s, double x) {
    double c = floor(x * s->inv_cell);
    if (c > CELL_COORD_LIMIT) c = CELL_COORD_LIMIT;
    if (c < -CELL_COORD_LIMIT) c = -CELL_COORD_LIMIT;
    return (int)c;
}

/* Teschner's hash of cell (i, j, k). Unsigned 64-bit products wrap where the paper's
 * signed ints would overflow; the remainder is taken on a non-negative number. */
static int bucket_of(const weft_spatial_hash *s, const int *c) {
    uint64_t h = ((uint64_t)(int64_t)c[0] * HASH_P1) ^ ((uint64_t)(int64_t)c[1] * HASH_P2) ^
                 ((uint64_t)(int64_t)c[2] * HASH_P3);
    return (int)(h % (uint64_t)s->size);
}

/* Cell range [c0, c1] covered by a box; WEFT_ERR_INPUT if it spans too many cells. */
static int cell_range(const weft_spatial_hash *s, const double *box, int *c0, int *c1,
                      weft_error *err) {
    long long cells = 1;
    for (int k = 0; k < 3; k++) {
        c0[k] = cell_coord(s, box[k]);
        c1[k] = cell_coord(s, box[3 + k]);
        cells *= (long long)c1[k] - c0[k] + 1;
        if (cells > MAX_CELLS_PER_BOX)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "spatial hash: a box of %g x %g x %g m spans more than 2^24 cells "
                             "of %g m; use a larger cell",
                             box[3] - box[0], box[4] - box[1], box[5] - box[2], s->cell);
    }
    return WEFT_OK;
}

/* Grows the entry arrays to hold at least `need` entries. */
static int reserve_entries(weft_spatial_hash *s, long long need, weft_error *err) {
    if (need <= s->cap) return WEFT_OK;
    long long cap = s->cap > 0 ? s->cap : 1024;
    while (cap < need) cap *= 2;
    if (cap > INT32_MAX) cap = INT32_MAX;
    if (need > cap) return weft_fail(err, WEFT_ERR_NOMEM, "spatial hash: too many entries");
    hash_entry *entry = realloc(s->entry, (size_t)cap * sizeof *entry);
    if (entry) s->entry = entry;
    hash_entry *raw = realloc(s->raw, (size_t)cap * sizeof *raw);
    if (raw) s->raw = raw;
    int *rb = realloc(s->raw_bucket, (size_t)cap * sizeof *rb);
    if (rb) s->raw_bucket = rb;
    if (!entry || !raw || !rb)
        return weft_fail(err, WEFT_ERR_NOMEM, "spatial hash: out of memory for %lld entries", cap);
    s->cap = (int)cap;
    return WEFT_OK;
}

/* Hashes primitives i in [0, n) with keep[i] (keep NULL: all) into every cell of their
 * box box[6i], then sorts the entries by bucket. Returns WEFT_OK or an error. */
static int hash_boxes(weft_spatial_hash *s, const double *box, int n, const unsigned char *keep,
                      weft_error *err) {
    s->nentry = 0;
    for (int i = 0; i < n; i++) {
        if (keep && !keep[i]) continue;
        int c0[3], c1[3], c[3];
        int rc = cell_range(s, &box[6 * i], c0, c1, err);
        if (rc != WEFT_OK) return rc;
        long long cells =
            (long long)(c1[0] - c0[0] + 1) * (c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1);
        rc = reserve_entries(s, s->nentry + cells, err);
        if (rc != WEFT_OK) return rc;
        for (c[2] = c0[2]; c[2] <= c1[2]; c[2]++)
            for (c[1] = c0[1]; c[1] <= c1[1]; c[1]++)
                for (c[0] = c0[0]; c[0] <= c1[0]; c[0]++) {
                    hash_entry *en = &s->raw[s->nentry];
                    en->prim = i;
                    memcpy(en->cell, c, sizeof en->cell);
                    s->raw_bucket[s->nentry++] = bucket_of(s, c);
                }
    }
    /* Counting sort by bucket; stable, so a bucket lists its primitives in index order. */
    memset(s->start, 0, ((size_t)s->size + 1) * sizeof *s->start);
    for (int i = 0; i < s->nentry; i++) s->start[s->raw_bucket[i] + 1]++;
    for (int b = 0; b < s->size; b++) s->start[b + 1] += s->start[b];
    memcpy(s->cursor, s->start, (size_t)s->size * sizeof *s->cursor);
    for (int i = 0; i < s->nentry; i++) s->entry[s->cursor[s->raw_bucket[i]]++] = s->raw[i];
    return WEFT_OK;
}

/* What a scan pairs, which decides the filter and the order of each pair. */
typedef enum {
    SCAN_VT_SELF,  /* hashed vertices of A, query triangles of A: (vertex, triangle) */
    SCAN_VT_CROSS, /* hashed vertices of A, query triangles of B: (vertex, triangle) */
    SCAN_TV_CROSS, /* hashed vertices of B, query triangles of A: (triangle, vertex) */
    SCAN_EE_SELF,  /* hashed edges of A, query edges of A: (lower, higher) */
    SCAN_EE_CROSS, /* hashed edges of A, query edges of B: (edge of A, edge of B) */
} scan_mode;

/* True when vertex v is a corner of the triangle with corners t[0..3). */
static bool is_corner(int v, const int *t) {
    return v == t[0] || v == t[1] || v == t[2];
}

/* True when edges (a0, a1) and (b0, b1) share a vertex. */
static bool edges_touch(const int *ea, const int *eb) {
    return ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1];
}

/* First index in entry[lo..hi) whose primitive is > q; a bucket's entries are in
 * primitive order because the counting sort that groups them is stable. */
static int first_above(const hash_entry *entry, int lo, int hi, int q) {
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (entry[mid].prim <= q)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Walks the cells of each query box qbox[6q], q in [0, nq), against the hashed entries
 * (whose boxes are hbox) and appends to out every pair that passes the mode's filter,
 * has overlapping boxes, and has its overlap's lowest corner in the cell being walked. */
static int scan(const weft_spatial_hash *s, scan_mode mode, const double *hbox, const double *qbox,
                int nq, const weft_mesh *m, weft_pairs *out, weft_error *err) {
    for (int q = 0; q < nq; q++) {
        const double *qb = &qbox[6 * q];
        int c0[3], c1[3], c[3];
        int rc = cell_range(s, qb, c0, c1, err);
        if (rc != WEFT_OK) return rc;
        for (c[2] = c0[2]; c[2] <= c1[2]; c[2]++)
            for (c[1] = c0[1]; c[1] <= c1[1]; c[1]++)
                for (c[0] = c0[0]; c[0] <= c1[0]; c[0]++) {
                    int b = bucket_of(s, c), first = s->start[b], end = s->start[b + 1];
                    /* Each edge pair once, as (q, p) with p > q: skip p <= q at once. */
                    if (mode == SCAN_EE_SELF) first = first_above(s->entry, first, end, q);
                    for (int i = first; i < end; i++) {
                        const hash_entry *en = &s->entry[i];
                        if (en->cell[0] != c[0] || en->cell[1] != c[1] || en->cell[2] != c[2])
                            continue; /* another cell with the same hash */
                        int p = en->prim;
                        if (mode == SCAN_VT_SELF && is_corner(p, &m->tri[3 * q])) continue;
                        if (mode == SCAN_EE_SELF && edges_touch(&m->edge[2 * p], &m->edge[2 * q]))
                            continue;
                        const double *pb = &hbox[6 * p];
                        if (!weft_box_overlap(pb, qb)) continue;
                        /* Report in the overlap's lowest-corner cell only. */
                        bool here = true;
                        for (int k = 0; k < 3 && here; k++)
                            here = cell_coord(s, pb[k] > qb[k] ? pb[k] : qb[k]) == c[k];
                        if (!here) continue;
                        bool query_first = mode == SCAN_TV_CROSS || mode == SCAN_EE_SELF;
                        rc = query_first ? weft_pairs_push(out, q, p) : weft_pairs_push(out, p, q);
                        if (rc != WEFT_OK)
                            return weft_fail(err, rc, "spatial hash: out of memory for pairs");
                    }
                }
    }
    return WEFT_OK;
}

/* Candidate pairs: one hashing pass and one scan per list, then a sort. */
int weft_spatial_hash_pairs(weft_spatial_hash *a, const weft_spatial_hash *b,
                            weft_collision_pairs *out, weft_error *err) {
    if (!b) b = a;
    weft_collision_pairs_clear(out);
    const weft_mesh *ma = a->mesh, *mb = b->mesh;
    int rc;
    if (a == b) {
        if ((rc = hash_boxes(a, a->vbox, ma->nv, a->used, err)) != WEFT_OK ||
            (rc = scan(a, SCAN_VT_SELF, a->vbox, a->tbox, ma->nt, ma, &out->vt, err)) != WEFT_OK ||
            (rc = hash_boxes(a, a->ebox, ma->ne, NULL, err)) != WEFT_OK ||
            (rc = scan(a, SCAN_EE_SELF, a->ebox, a->ebox, ma->ne, ma, &out->ee, err)) != WEFT_OK)
            return rc;
    } else {
        /* Everything goes through a's table and cells; b only lends its boxes. */
        if ((rc = hash_boxes(a, a->vbox, ma->nv, a->used, err)) != WEFT_OK ||
            (rc = scan(a, SCAN_VT_CROSS, a->vbox, b->tbox, mb->nt, mb, &out->vt, err)) != WEFT_OK ||
            (rc = hash_boxes(a, b->vbox, mb->nv, b->used, err)) != WEFT_OK ||
            (rc = scan(a, SCAN_TV_CROSS, b->vbox, a->tbox, ma->nt, ma, &out->tv, err)) != WEFT_OK ||
            (rc = hash_boxes(a, a->ebox, ma->ne, NULL, err)) != WEFT_OK ||
            (rc = scan(a, SCAN_EE_CROSS, a->ebox, b->ebox, mb->ne, mb, &out->ee, err)) != WEFT_OK)
            return rc;
    }
    weft_pairs_sort(&out->vt);
    weft_pairs_sort(&out->tv);
    weft_pairs_sort(&out->ee);
    return WEFT_OK;
}

/* Vertex–triangle pairs within one mesh: the first hashing pass and scan of
 * weft_spatial_hash_pairs only. */
int weft_spatial_hash_vt_pairs(weft_spatial_hash *s, weft_pairs *out, weft_error *err) {
    out->n = 0;
    int rc;
    if ((rc = hash_boxes(s, s->vbox, s->mesh->nv, s->used, err)) != WEFT_OK ||
        (rc = scan(s, SCAN_VT_SELF, s->vbox, s->tbox, s->mesh->nt, s->mesh, out, err)) != WEFT_OK)
        return rc;
    weft_pairs_sort(out);
    return WEFT_OK;
}

/* Cell side and table size. */
void weft_spatial_hash_shape(const weft_spatial_hash *s, double *cell, int *table_size) {
    if (cell) *cell = s->cell;
    if (table_size) *table_size = s->size;
}

/* Frees the hash and sets *sp to NULL; safe on NULL. */
void weft_spatial_hash_free(weft_spatial_hash **sp) {
    if (!sp || !*sp) return;
    weft_spatial_hash *s = *sp;
    *sp = NULL;
    free(s->start);
    free(s->cursor);
    free(s->entry);
    free(s->raw);
    free(s->raw_bucket);
    free(s->vbox);
    free(s->ebox);
    free(s->tbox);
    free(s->used);
    free(s);
}
