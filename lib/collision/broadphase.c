/* broadphase.c — what the broad phases share (lib/collision/weft_broadphase.h): growable pair
 * lists with an O(n) radix sort, so every broad phase returns its pairs in one order,
 * and the padded, swept primitive boxes that every broad phase tests: as in Bridson,
 * Fedkiw & Anderson 2002, a box holds a primitive's positions at the start and end of
 * the step, grown by the thickness, so that continuous collision detection needs no
 * other acceleration than proximity detection.
 */
#include "weft_broadphase.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for at least `need` pairs, doubling the capacity (from 256) until it fits. */
int weft_pairs_reserve(weft_pairs *l, long long need) {
    if (need <= l->cap) return WEFT_OK;
    if (need > INT_MAX) return WEFT_ERR_NOMEM;
    long long cap = l->cap > 0 ? l->cap : 256;
    while (cap < need) cap *= 2;
    if (cap > INT_MAX) cap = INT_MAX;
    /* Both buffers are replaced together so that weft_pairs_sort may swap them. */
    weft_pair *pair = realloc(l->pair, (size_t)cap * sizeof *pair);
    if (!pair) return WEFT_ERR_NOMEM;
    l->pair = pair;
    weft_pair *tmp = realloc(l->tmp, (size_t)cap * sizeof *tmp);
    if (!tmp) return WEFT_ERR_NOMEM; /* pair is larger than cap needs, which is harmless */
    l->tmp = tmp;
    l->cap = (int)cap;
    return WEFT_OK;
}

/* Bits needed to write v >= 0 in binary (0 for v = 0). */
static int bit_width(unsigned v) {
    int n = 0;
    while (v) v >>= 1, n++;
    return n;
}

/* Radix digits of 11 bits: a 2048-entry histogram fits in L1 and three passes cover the
 * 33-bit keys of meshes up to about 2^16 vertices and 2^17 triangles. */
enum { RADIX_BITS = 11, RADIX_SIZE = 1 << RADIX_BITS };

/* Sorts by the key (a << bits(b)) | b, one 11-bit digit at a time from the lowest.
 * Each pass is a stable counting sort, so after the last one the order is by (a, b). */
void weft_pairs_sort(weft_pairs *l) {
    if (l->n < 2) return;
    unsigned max_a = 0, max_b = 0;
    for (int i = 0; i < l->n; i++) {
        if ((unsigned)l->pair[i].a > max_a) max_a = (unsigned)l->pair[i].a;
        if ((unsigned)l->pair[i].b > max_b) max_b = (unsigned)l->pair[i].b;
    }
    const int shift_a = bit_width(max_b);
    const int key_bits = shift_a + bit_width(max_a);
    for (int lo = 0; lo < key_bits; lo += RADIX_BITS) {
        size_t count[RADIX_SIZE] = {0};
        const weft_pair *src = l->pair;
        weft_pair *dst = l->tmp;
        for (int i = 0; i < l->n; i++) {
            uint64_t key = ((uint64_t)src[i].a << shift_a) | (uint64_t)src[i].b;
            count[(key >> lo) & (RADIX_SIZE - 1)]++;
        }
        size_t sum = 0;
        for (int d = 0; d < RADIX_SIZE; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (int i = 0; i < l->n; i++) {
            uint64_t key = ((uint64_t)src[i].a << shift_a) | (uint64_t)src[i].b;
            dst[count[(key >> lo) & (RADIX_SIZE - 1)]++] = src[i];
        }
        /* The sorted pass is now in tmp: swap the buffers (both have cap pairs). */
        l->tmp = l->pair;
        l->pair = dst;
    }
}

/* Frees the list's buffers and zeroes it; safe on a zeroed list. */
void weft_pairs_free(weft_pairs *l) {
    free(l->pair);
    free(l->tmp);
    memset(l, 0, sizeof *l);
}

/* Empties all three lists, keeping their buffers. */
void weft_collision_pairs_clear(weft_collision_pairs *p) {
    p->vt.n = p->tv.n = p->ee.n = 0;
}

/* Frees all three lists and zeroes p. */
void weft_collision_pairs_free(weft_collision_pairs *p) {
    weft_pairs_free(&p->vt);
    weft_pairs_free(&p->tv);
    weft_pairs_free(&p->ee);
}

/* Box of the k points v[0..k) at x0 and (if non-NULL) x1, grown by pad on every side.
 * Comparisons rather than fmin/fmax: the positions are finite, and these inline. */
static void prim_box(const double *x0, const double *x1, const int *v, int k, double pad,
                     double *box) {
    for (int c = 0; c < 3; c++) {
        double lo = x0[3 * v[0] + c], hi = lo;
        for (int i = 0; i < k; i++) {
            double p = x0[3 * v[i] + c];
            lo = p < lo ? p : lo, hi = p > hi ? p : hi;
            if (x1) {
                double q = x1[3 * v[i] + c];
                lo = q < lo ? q : lo, hi = q > hi ? q : hi;
            }
        }
        box[c] = lo - pad;
        box[3 + c] = hi + pad;
    }
}

/* First non-finite coordinate of x (3*nv values) as a vertex index, or -1. */
static int first_non_finite(const double *x, int nv) {
    for (int i = 0; i < 3 * nv; i++)
        if (!isfinite(x[i])) return i / 3;
    return -1;
}

/* Fills the boxes of m's vertices, edges and triangles enclosing x0 and x1 (if non-NULL),
 * grown by h/2: two boxes then overlap exactly when, along every axis, the unpadded
 * boxes are at most h apart, which every pair closer than h satisfies. */
int weft_mesh_boxes(const weft_mesh *m, const double *x0, const double *x1, double h, double *vbox,
                    double *ebox, double *tbox, weft_error *err) {
    if (!(isfinite(h) && h >= 0))
        return weft_fail(err, WEFT_ERR_INPUT,
                         "broad phase: thickness h must be finite and >= 0 (got %g m)", h);
    if (m->nv > 0 && !x0) return weft_fail(err, WEFT_ERR_INPUT, "broad phase: no positions");
    int bad = m->nv > 0 ? first_non_finite(x0, m->nv) : -1;
    if (bad < 0 && x1 && m->nv > 0) bad = first_non_finite(x1, m->nv);
    if (bad >= 0)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "broad phase: vertex %d (1-based) has a non-finite position", bad + 1);
    const double pad = 0.5 * h;
    if (vbox)
        for (int v = 0; v < m->nv; v++) prim_box(x0, x1, &v, 1, pad, &vbox[6 * v]);
    if (ebox)
        for (int e = 0; e < m->ne; e++) prim_box(x0, x1, &m->edge[2 * e], 2, pad, &ebox[6 * e]);
    if (tbox)
        for (int t = 0; t < m->nt; t++) prim_box(x0, x1, &m->tri[3 * t], 3, pad, &tbox[6 * t]);
    return WEFT_OK;
}
