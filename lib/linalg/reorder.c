/* reorder.c — renumbering a model's vertices, and the reverse Cuthill-McKee order that
 * makes its Hessian banded (Kim & Eberle 2020, "Dynamic Deformables" §9.2; Cuthill &
 * McKee 1969, "Reducing the bandwidth of sparse symmetric matrices"; George & Liu 1981,
 * "Computer Solution of Large Sparse Positive Definite Systems" §4.3).
 *
 * A permutation P with perm[k] = the old index of the vertex placed k-th maps every
 * per-vertex array a to a'[k] = a[perm[k]] and every vertex index j to inv[j], where
 * inv[perm[k]] = k. The Hessian becomes P H Pᵀ: block (k, l) of the new matrix is block
 * (perm[k], perm[l]) of the old one, so the nonzero pattern moves but E, ∇E (mapped) and
 * the spectrum do not. RCM picks P to make the bandwidth max |k − l| over the nonzero
 * blocks small, so that a row's neighbours sit close in memory during SpMV and assembly.
 *
 * Everything else is left in place: triangles, edges, hinges, tetrahedra and elements
 * keep their order (only the vertex indices in them change), so the constraints a
 * position-based solver derives from the topology are projected in the same order.
 */
#include "weft.h"
#include "weft_sparse.h"

#include <stdlib.h>
#include <string.h>

/* a'[k] = a[perm[k]] for n items of `width` values of `size` bytes; returns the new
 * array (or NULL when out of memory); a NULL input gives NULL with *ok left alone. */
static void *gather_rows(const void *a, const int *perm, int n, int width, size_t size,
                         bool *ok) {
    if (!a) return NULL;
    size_t row = (size_t)width * size;
    char *out = malloc((n > 0 ? (size_t)n : 1) * row);
    if (!out) {
        *ok = false;
        return NULL;
    }
    for (int k = 0; k < n; k++) memcpy(out + (size_t)k * row, (const char *)a + (size_t)perm[k] * row, row);
    return out;
}

/* Replaces indices in idx[0 .. count-1] that name vertices by their new numbers. */
static void map_indices(int *idx, size_t count, const int *inv) {
    if (!idx) return;
    for (size_t i = 0; i < count; i++) idx[i] = inv[idx[i]];
}

int weft_model_permute(weft_model *m, const int *perm, weft_error *err) {
    const int n = m->n;
    if (n != m->mesh.nv)
        return weft_fail(err, WEFT_ERR_INPUT, "permute: the model has %d vertices but its mesh %d",
                         n, m->mesh.nv);
    int *inv = malloc((n > 0 ? (size_t)n : 1) * sizeof *inv);
    if (!inv) return weft_fail(err, WEFT_ERR_NOMEM, "permute: out of memory");
    for (int i = 0; i < n; i++) inv[i] = -1;
    for (int k = 0; k < n; k++) {
        if (perm[k] < 0 || perm[k] >= n || inv[perm[k]] >= 0) {
            int bad = perm[k];
            free(inv);
            return weft_fail(err, WEFT_ERR_INPUT,
                             "permute: entry %d (%d) is out of range 0..%d or repeated", k, bad,
                             n - 1);
        }
        inv[perm[k]] = k;
    }
    /* Parts are contiguous blocks: each must be mapped onto itself. */
    for (int p = 0; p < m->nparts; p++) {
        const weft_part *pt = &m->parts[p];
        for (int k = pt->first; k < pt->first + pt->nv; k++)
            if (perm[k] < pt->first || perm[k] >= pt->first + pt->nv) {
                int bad = perm[k];
                free(inv);
                return weft_fail(err, WEFT_ERR_INPUT,
                                 "permute: vertex %d would move from outside part '%s' "
                                 "(vertices %d..%d) into it at %d; a permutation must keep "
                                 "every part's vertices in its block",
                                 bad, pt->name[0] ? pt->name : "mesh", pt->first,
                                 pt->first + pt->nv - 1, k);
            }
    }
    /* Vertex element indices must be in range before they are mapped. */
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        for (int e = 0; e < term->n; e++)
            for (int a = 0; a < term->type->nv && a < WEFT_ELEM_MAXV; a++)
                if (term->elem[e].v[a] < 0 || term->elem[e].v[a] >= n) {
                    free(inv);
                    return weft_fail(err, WEFT_ERR_INPUT,
                                     "permute: element %d of term %d (%s) has vertex %d, "
                                     "out of range", e, t, term->type->name, term->elem[e].v[a]);
                }
    }

    /* Per-vertex arrays: allocate every new one first, so failure changes nothing. */
    bool ok = true;
    double *x = gather_rows(m->x, perm, n, 3, sizeof(double), &ok);
    double *v = gather_rows(m->v, perm, n, 3, sizeof(double), &ok);
    double *xs = gather_rows(m->x_start, perm, n, 3, sizeof(double), &ok);
    double *mass = gather_rows(m->mass, perm, n, 1, sizeof(double), &ok);
    double *w = gather_rows(m->w, perm, n, 1, sizeof(double), &ok);
    int *pin = gather_rows(m->pin, perm, n, 1, sizeof(int), &ok);
    double *rest = gather_rows(m->mesh.x, perm, n, 3, sizeof(double), &ok);
    if (!ok) {
        free(x), free(v), free(xs), free(mass), free(w), free(pin), free(rest), free(inv);
        return weft_fail(err, WEFT_ERR_NOMEM, "permute: out of memory for %d vertices", n);
    }
    free(m->x), free(m->v), free(m->x_start), free(m->mass), free(m->w), free(m->pin);
    free(m->mesh.x);
    m->x = x, m->v = v, m->x_start = xs, m->mass = mass, m->w = w, m->pin = pin;
    m->mesh.x = rest;

    /* Topology: same elements in the same order, new vertex numbers. */
    weft_mesh *mesh = &m->mesh;
    map_indices(mesh->tri, 3 * (size_t)mesh->nt, inv);
    map_indices(mesh->tet, 4 * (size_t)mesh->ntet, inv);
    map_indices(mesh->hinge, 4 * (size_t)mesh->nh, inv); /* v0 → v1 keeps its direction */
    map_indices(mesh->edge, 2 * (size_t)mesh->ne, inv);
    for (int e = 0; mesh->edge && e < mesh->ne; e++) /* keep edge[2e] < edge[2e+1] */
        if (mesh->edge[2 * e] > mesh->edge[2 * e + 1]) {
            int s = mesh->edge[2 * e];
            mesh->edge[2 * e] = mesh->edge[2 * e + 1], mesh->edge[2 * e + 1] = s;
        }
    for (int t = 0; t < m->nterms; t++) {
        weft_term *term = &m->terms[t];
        for (int e = 0; e < term->n; e++)
            for (int a = 0; a < term->type->nv && a < WEFT_ELEM_MAXV; a++)
                term->elem[e].v[a] = inv[term->elem[e].v[a]];
    }
    /* A grid's (i, j) -> i + j nx layout no longer holds. */
    mesh->grid_nx = mesh->grid_ny = 0;
    for (int p = 0; p < m->nparts; p++) m->parts[p].grid_nx = m->parts[p].grid_ny = 0;
    free(inv);
    return WEFT_OK;
}

int weft_model_rcm_order(const weft_model *m, int *perm, weft_error *err) {
    weft_bsr A = {0};
    int rc = weft_bsr_pattern(&A, m, err);
    if (rc) return rc;
    const int n = m->n;
    int *order = malloc((n > 0 ? (size_t)n : 1) * sizeof *order);
    int *part_of = malloc((n > 0 ? (size_t)n : 1) * sizeof *part_of);
    int *fill = malloc((m->nparts > 0 ? (size_t)m->nparts : 1) * sizeof *fill);
    if (!order || !part_of || !fill || weft_rcm_order(&A, order) != WEFT_OK) {
        free(order), free(part_of), free(fill), weft_bsr_free(&A);
        return weft_fail(err, WEFT_ERR_NOMEM, "rcm: out of memory for %d vertices", n);
    }
    weft_bsr_free(&A);
    /* Parts are separate components, and RCM places each component contiguously; taking
     * each part's vertices in RCM order into its own block keeps the parts' layout. */
    for (int i = 0; i < n; i++) part_of[i] = -1;
    for (int p = 0; p < m->nparts; p++) {
        fill[p] = m->parts[p].first;
        for (int i = m->parts[p].first; i < m->parts[p].first + m->parts[p].nv; i++) part_of[i] = p;
    }
    int loose = 0; /* vertices of no part (a model built by hand): kept in RCM order */
    for (int k = 0; k < n; k++) {
        int p = part_of[order[k]];
        if (p < 0) loose++;
        else perm[fill[p]++] = order[k];
    }
    if (loose > 0) {
        if (m->nparts > 0) {
            free(order), free(part_of), free(fill);
            return weft_fail(err, WEFT_ERR_INPUT,
                             "rcm: %d vertices belong to no part of the model", loose);
        }
        memcpy(perm, order, (size_t)n * sizeof *perm);
    }
    free(order), free(part_of), free(fill);
    return WEFT_OK;
}

void weft_shuffled_order(int *perm, int n, unsigned long long seed) {
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int j = (int)((seed >> 33) % (unsigned long long)(i + 1));
        int t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
}
