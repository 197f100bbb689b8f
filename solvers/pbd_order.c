/* pbd_order.c — the order in which Gauss-Seidel projects constraints.
 *
 * Projecting in mesh order makes consecutive constraints share vertices, so each
 * projection waits for the previous one's stores (a chain of dependent sqrt and
 * division latencies). A greedy graph colouring groups constraints into colours whose
 * members touch disjoint vertices; sweeping colour by colour keeps the method
 * Gauss-Seidel (every correction is applied at once and seen by later constraints),
 * with a fixed, deterministic order, while consecutive projections are independent
 * and the CPU overlaps them. Within a colour, mesh order is kept for memory locality.
 * The wavefront levels (pbd_level_order) keep a given order's result bit for bit instead:
 * each constraint one level after the last earlier one it shares a vertex with, so the
 * constraints of a level are independent and sharing ones keep their order (xpbd's
 * stretch springs, whose mesh order matters to its energy on swinging_cloth).
 */
#include "pbd_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Greedy colouring of nc constraints of `arity` vertices (vertex indices of constraint
 * c at verts[c*stride .. c*stride+arity-1], stride in ints); writes the permutation
 * that sorts constraints by colour (stable) into perm. Colours beyond 63 share the
 * last bucket, which stays correct Gauss-Seidel, just without the overlap. Colour k
 * (k < 63) is perm[starts[k] .. starts[k+1]−1] when starts (65 ints) != NULL. */
static int colour_order(int nc, int arity, const int *verts, int stride, int nv, int *perm,
                        int *starts) {
    uint64_t *used = calloc((size_t)nv, sizeof *used);
    unsigned char *colour = malloc((size_t)(nc > 0 ? nc : 1));
    int count[65] = {0};
    if (!used || !colour) {
        free(used), free(colour);
        return WEFT_ERR_NOMEM;
    }
    for (int c = 0; c < nc; c++) {
        const int *v = &verts[(size_t)c * stride];
        uint64_t taken = 0;
        for (int a = 0; a < arity; a++) {
            WEFT_ASSERT(v[a] >= 0 && v[a] < nv); /* constraints come from the mesh */
            taken |= used[v[a]];
        }
        int col = 63;
        for (int k = 0; k < 63; k++)
            if (!(taken >> k & 1)) {
                col = k;
                break;
            }
        colour[c] = (unsigned char)col;
        if (col < 63)
            for (int a = 0; a < arity; a++) used[v[a]] |= (uint64_t)1 << col;
        count[col + 1]++;
    }
    for (int k = 0; k < 64; k++) count[k + 1] += count[k];
    if (starts) memcpy(starts, count, sizeof count);
    for (int c = 0; c < nc; c++) perm[count[colour[c]]++] = c;
    free(used), free(colour);
    return WEFT_OK;
}

int pbd_colour_constraints(pbd_state *st) {
    int nmax = st->ndist > st->nbend ? st->ndist : st->nbend;
    int *perm = malloc((size_t)(nmax > 0 ? nmax : 1) * sizeof *perm);
    size_t bytes = (size_t)(nmax > 0 ? nmax : 1) *
                   (sizeof(pbd_bend) > sizeof(pbd_distance) ? sizeof(pbd_bend) : sizeof(pbd_distance));
    void *tmp = malloc(bytes);
    int rc = (!perm || !tmp) ? WEFT_ERR_NOMEM : WEFT_OK;
    /* pbd_distance is {int a, b; double rest}: vertices at int offsets 0, 1, stride 4. */
    if (rc == WEFT_OK)
        rc = colour_order(st->ndist, 2, (const int *)st->dist, (int)(sizeof(pbd_distance) / sizeof(int)),
                          st->n, perm, NULL);
    if (rc == WEFT_OK) {
        pbd_distance *d = tmp;
        for (int i = 0; i < st->ndist; i++) d[i] = st->dist[perm[i]];
        memcpy(st->dist, d, (size_t)st->ndist * sizeof *d);
        rc = colour_order(st->nbend, 4, (const int *)st->bend, (int)(sizeof(pbd_bend) / sizeof(int)),
                          st->n, perm, st->bend_colour);
    }
    if (rc == WEFT_OK) {
        pbd_bend *b = tmp;
        for (int i = 0; i < st->nbend; i++) b[i] = st->bend[perm[i]];
        memcpy(st->bend, b, (size_t)st->nbend * sizeof *b);
    }
    free(perm), free(tmp);
    return rc;
}

int pbd_colour_order(int nc, int arity, const int *verts, int stride, int nv, int *perm,
                     int *starts) {
    return colour_order(nc, arity, verts, stride, nv, perm, starts);
}

int pbd_level_order(int nc, int arity, const int *verts, int stride, int nv, int *perm,
                    int *starts, int *nlevel) {
    int *last = calloc((size_t)nv + 1, sizeof *last); /* 1 + level of v's latest constraint */
    int *level = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *level);
    if (!last || !level) {
        free(last), free(level);
        return WEFT_ERR_NOMEM;
    }
    int nl = 0;
    memset(starts, 0, ((size_t)nc + 2) * sizeof *starts);
    for (int c = 0; c < nc; c++) {
        const int *v = &verts[(size_t)c * stride];
        int l = 0;
        for (int a = 0; a < arity; a++) {
            WEFT_ASSERT(v[a] >= 0 && v[a] < nv); /* constraints come from the mesh */
            l = last[v[a]] > l ? last[v[a]] : l;
        }
        for (int a = 0; a < arity; a++) last[v[a]] = l + 1;
        level[c] = l, starts[l + 1]++;
        nl = l + 1 > nl ? l + 1 : nl;
    }
    for (int l = 0; l < nl; l++) starts[l + 1] += starts[l];
    for (int c = 0; c < nc; c++) perm[starts[level[c]]++] = c; /* starts[l] → end of l */
    for (int l = nl; l > 0; l--) starts[l] = starts[l - 1];
    starts[0] = 0;
    *nlevel = nl;
    free(last), free(level);
    return WEFT_OK;
}
