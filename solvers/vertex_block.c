/* vertex_block.c — the per-vertex kernels of Vertex Block Descent (Chen, Liu, Yang &
 * Yuksel 2024, "Vertex Block Descent", ACM TOG 43(4); the equations are vbd.c's), shared by
 * vbd.c and newton_patch.c (its vertex graph): vertex i's force and 3×3 block
 *     f_i = −Σ_{j ∋ i} ∂Ψ_j/∂x_i,   H_i = Σ_{j ∋ i} ∂²Ψ_j/∂x_i²,
 * from each incident element's vertex_hessian block where its type has one, else from its
 * full gradient and Hessian (no per-energy code here), its elements' energy with the vertex
 * moved, and the greedy colouring over which Gauss-Seidel sweeps.
 */
#include "vertex_block.h"

#include "weft_sparse.h"
#include "weft_vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* True for a term that contributes to E (constraint-only types have no energy). */
static bool term_has_energy(const weft_term *t) {
    return t->type->energy != NULL;
}

/* Builds the vertex → element incidence of every energy term (a generic map from the
 * elements' vertex lists: no energy is special). */
static int build_incidence(vb_graph *st, const weft_model *m, const char *who, weft_error *err) {
    const int n = m->n;
    st->inc_ptr = calloc((size_t)n + 1, sizeof *st->inc_ptr);
    if (!st->inc_ptr) return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", who);
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        if (!term_has_energy(term)) continue;
        if (!term->type->hessian)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: energy '%s' has no Hessian: its vertex blocks cannot be formed",
                             who, term->type->name);
        for (int e = 0; e < term->n; e++)
            for (int a = 0; a < term->type->nv; a++) {
                int v = term->elem[e].v[a];
                if (v < 0 || v >= n)
                    return weft_fail(err, WEFT_ERR_INPUT,
                                     "%s: term '%s' element %d: vertex %d out of range", who,
                                     term->type->name, e, v);
                st->inc_ptr[v + 1]++;
            }
    }
    for (int i = 0; i < n; i++) st->inc_ptr[i + 1] += st->inc_ptr[i];
    size_t total = (size_t)st->inc_ptr[n];
    st->inc = malloc((total > 0 ? total : 1) * sizeof *st->inc);
    int *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!st->inc || !fill) {
        free(fill);
        return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", who);
    }
    memcpy(fill, st->inc_ptr, ((size_t)n + 1) * sizeof *fill);
    /* Term then element order: every vertex sums its blocks in a fixed order. */
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        if (!term_has_energy(term)) continue;
        for (int e = 0; e < term->n; e++)
            for (int a = 0; a < term->type->nv; a++)
                st->inc[fill[term->elem[e].v[a]]++] = (vb_incidence){t, e, a};
    }
    free(fill);
    return WEFT_OK;
}

/* Greedy colouring of the free vertices in index order on the vertex graph of the model's
 * Hessian pattern (vertices sharing an element are adjacent): each takes the smallest
 * colour none of its neighbours has. Pinned vertices are never updated and get none. */
static int build_colours(vb_graph *st, const weft_model *m, const char *who, weft_error *err) {
    const int n = m->n;
    weft_bsr A = {0};
    int rc = weft_bsr_pattern(&A, m, err);
    if (rc) return rc;
    int *colour = malloc(((size_t)n + 1) * sizeof *colour);
    int *mark = malloc(((size_t)n + 1) * sizeof *mark); /* mark[c] == i: c taken near i */
    int *count = calloc((size_t)n + 2, sizeof *count);
    st->order = malloc(((size_t)n + 1) * sizeof *st->order);
    if (!colour || !mark || !count || !st->order) {
        free(colour), free(mark), free(count), weft_bsr_free(&A);
        return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", who);
    }
    for (int c = 0; c <= n; c++) mark[c] = -1, colour[c] = -1;
    int ncol = 0;
    for (int i = 0; i < n; i++) {
        if (m->pin[i] >= 0) continue;
        for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++) {
            int j = A.col[k];
            if (j != i && colour[j] >= 0) mark[colour[j]] = i;
        }
        int c = 0;
        while (mark[c] == i) c++;
        colour[i] = c;
        count[c + 1]++;
        if (c + 1 > ncol) ncol = c + 1;
    }
    weft_bsr_free(&A);
    st->ncolours = ncol;
    st->colour_ptr = malloc(((size_t)ncol + 1) * sizeof *st->colour_ptr);
    if (!st->colour_ptr) {
        free(colour), free(mark), free(count);
        return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", who);
    }
    for (int c = 0; c < ncol; c++) count[c + 1] += count[c];
    memcpy(st->colour_ptr, count, ((size_t)ncol + 1) * sizeof *st->colour_ptr);
    for (int i = 0; i < n; i++) /* index order within each colour */
        if (colour[i] >= 0) st->order[count[colour[i]]++] = i;
    free(colour), free(mark), free(count);
    return WEFT_OK;
}

/* Gathers element e's vertex positions from x, with vertex `local` at p instead (when p is
 * non-NULL), into xe (3 nv values). */
static void gather(const weft_element *e, int nv, const double *x, int local, const double *p,
                   double *xe) {
    for (int a = 0; a < nv; a++) {
        const double *src = (a == local && p) ? p : &x[3 * e->v[a]];
        for (int k = 0; k < 3; k++) xe[3 * a + k] = src[k];
    }
}

/* The force f_i = −Σ_j ∂Ψ_j/∂x_i and the block Σ_j ∂²Ψ_j/∂x_i² (mode) of the elements
 * holding vertex i at x (f_i and H_i without the inertia term): each element's gradient and
 * Hessian from its descriptor, vertex i's 3-vector and 3×3 diagonal block taken out. The
 * generic per-vertex accessor of any energy. Returns false if any value is not finite. */
bool vb_vertex_block(const vb_graph *st, const weft_model *m, const double *x, int i,
                     weft_hessian_mode mode, double f[3], double H[9]) {
    return vb_vertex_block_psi(st, m, x, i, mode, f, H, NULL);
}

bool vb_vertex_block_psi(const vb_graph *st, const weft_model *m, const double *x, int i,
                         weft_hessian_mode mode, double f[3], double H[9], double *psi) {
    double xe[3 * WEFT_ELEM_MAXV], g[3 * WEFT_ELEM_MAXV];
    double He[9 * WEFT_ELEM_MAXV * WEFT_ELEM_MAXV];
    for (int k = 0; k < 3; k++) f[k] = 0.0;
    for (int k = 0; k < 9; k++) H[k] = 0.0;
    for (int q = st->inc_ptr[i]; q < st->inc_ptr[i + 1]; q++) {
        const vb_incidence *in = &st->inc[q];
        const weft_term *term = &m->terms[in->term];
        const weft_element *e = &term->elem[in->elem];
        const int nv = term->type->nv, a = in->local, dim = 3 * nv;
        gather(e, nv, x, -1, NULL, xe);
        if (term->type->vertex_hessian) {
            /* the type gives vertex a's block alone (the same numbers, less work) */
            double ga[3], Ha[9];
            double pa = term->type->vertex_hessian(e, xe, mode, a, ga, Ha);
            if (!isfinite(pa)) return false;
            if (psi) psi[q - st->inc_ptr[i]] = pa;
            for (int r = 0; r < 3; r++) {
                f[r] -= ga[r];
                for (int c = 0; c < 3; c++) H[3 * r + c] += Ha[3 * r + c];
            }
            continue;
        }
        double pe = term->type->hessian(e, xe, mode, g, He);
        if (!isfinite(pe)) return false;
        if (psi) psi[q - st->inc_ptr[i]] = pe;
        for (int r = 0; r < 3; r++) {
            f[r] -= g[3 * a + r];
            for (int c = 0; c < 3; c++) H[3 * r + c] += He[(3 * a + r) * dim + 3 * a + c];
        }
    }
    for (int k = 0; k < 9; k++)
        if (!isfinite(H[k])) return false;
    return isfinite(f[0]) && isfinite(f[1]) && isfinite(f[2]);
}

int vb_graph_build(vb_graph *g, const weft_model *m, const char *who, weft_error *err) {
    g->n = m->n;
    int rc = build_incidence(g, m, who, err);
    if (!rc) rc = build_colours(g, m, who, err);
    return rc;
}

void vb_graph_free(vb_graph *g) {
    if (!g) return;
    free(g->inc_ptr), free(g->inc), free(g->colour_ptr), free(g->order);
    g->inc_ptr = NULL, g->inc = NULL, g->colour_ptr = NULL, g->order = NULL;
}

double vb_vertex_energy(const vb_graph *g, const weft_model *m, const double *x, int i,
                        const double *p, double G0) {
    double xe[3 * WEFT_ELEM_MAXV], G = G0;
    for (int q = g->inc_ptr[i]; q < g->inc_ptr[i + 1]; q++) {
        const vb_incidence *in = &g->inc[q];
        const weft_term *term = &m->terms[in->term];
        const weft_element *e = &term->elem[in->elem];
        gather(e, term->type->nv, x, in->local, p, xe);
        G += term->type->energy(e, xe);
    }
    return G;
}

double vb_vertex_energy_sum(const vb_graph *g, int i, const double *psi, double G0) {
    double G = G0;
    for (int q = 0; q < g->inc_ptr[i + 1] - g->inc_ptr[i]; q++) G += psi[q];
    return G;
}

double vb_inertia_eval(const vb_inertia *in, const weft_model *m, int i, const double p[3],
                       double f[3], double *diag) {
    const double mi = m->mass[i], hh = in->hh, al = in->alpha, *xt = &in->xt[3 * i];
    const double mh = mi / (hh * hh);
    double d[3] = {p[0] - xt[0], p[1] - xt[1], p[2] - xt[2]};
    double I = 0.5 * mi * weft_dot3(d, d) / (hh * hh);
    if (f)
        for (int k = 0; k < 3; k++) f[k] -= mh * d[k];
    if (al > 0.0) {
        const double *a = &in->a[3 * i];
        double e[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
        I += 0.5 * al * mi * weft_dot3(e, e) / hh;
        if (f)
            for (int k = 0; k < 3; k++) f[k] -= al * mi * e[k] / hh;
    }
    if (diag) *diag = al > 0.0 ? mi * (1.0 / (hh * hh) + al / hh) : mh;
    return I;
}

bool vb_block_solve(const double H[9], const double f[3], double dx[3]) {
    double det = H[0] * (H[4] * H[8] - H[5] * H[7]) - H[1] * (H[3] * H[8] - H[5] * H[6]) +
                 H[2] * (H[3] * H[7] - H[4] * H[6]);
    double tr = (H[0] + H[4] + H[8]) / 3.0, L[9];
    if (!(det > VB_DET_EPS * fabs(tr * tr * tr)) || !weft_cholesky33(H, L)) return false;
    weft_cholesky33_solve(L, f, dx);
    return isfinite(dx[0]) && isfinite(dx[1]) && isfinite(dx[2]);
}

/* f and H of vertex i's local potential at x with element Hessians of `mode`: the elements'
 * part (vb_vertex_block), the inertia and the held force. False if a value is not finite. */
static bool local_system(const vb_graph *g, const weft_model *m, const double *x, int i,
                         weft_hessian_mode mode, const vb_inertia *in, const double *f_extra,
                         const vb_extra *extra, double f[3], double H[9], double *psi) {
    if (!vb_vertex_block_psi(g, m, x, i, mode, f, H, psi)) return false;
    if (extra && !extra->add(extra->ctx, i, mode, f, H)) return false;
    double diag;
    vb_inertia_eval(in, m, i, &x[3 * i], f, &diag);
    for (int k = 0; k < 3; k++) {
        if (f_extra) f[k] -= f_extra[k];
        H[4 * k] += diag;
    }
    return isfinite(f[0]) && isfinite(f[1]) && isfinite(f[2]);
}

vb_block_kind vb_vertex_direction_psi(const vb_graph *g, const weft_model *m, const double *x,
                                      int i, weft_hessian_mode mode, const vb_inertia *in,
                                      const double *f_extra, const vb_extra *extra, double f[3],
                                      double dx[3], double *psi) {
    double H[9];
    if (mode == WEFT_HESSIAN_EXACT &&
        local_system(g, m, x, i, mode, in, f_extra, extra, f, H, psi) && vb_block_solve(H, f, dx))
        return VB_BLOCK_EXACT;
    if (local_system(g, m, x, i, WEFT_HESSIAN_ANALYTIC, in, f_extra, extra, f, H, psi) &&
        vb_block_solve(H, f, dx))
        return VB_BLOCK_PROJECTED;
    return VB_BLOCK_NONE;
}

vb_block_kind vb_vertex_direction_extra(const vb_graph *g, const weft_model *m, const double *x,
                                        int i, weft_hessian_mode mode, const vb_inertia *in,
                                        const double *f_extra, const vb_extra *extra,
                                        double f[3], double dx[3]) {
    return vb_vertex_direction_psi(g, m, x, i, mode, in, f_extra, extra, f, dx, NULL);
}

vb_block_kind vb_vertex_direction(const vb_graph *g, const weft_model *m, const double *x, int i,
                                  weft_hessian_mode mode, const vb_inertia *in,
                                  const double *f_extra, double f[3], double dx[3]) {
    return vb_vertex_direction_extra(g, m, x, i, mode, in, f_extra, NULL, f, dx);
}

int vb_line_search(double slope, double G0, vb_trial_fn trial, void *ctx) {
    if (!(slope > VB_ROUNDING * fabs(G0))) return VB_AT_ROUNDING; /* nothing to resolve */
    double beta = 1.0;
    for (int bt = 0; bt <= VB_HALVINGS; bt++, beta *= 0.5) {
        double G = trial(ctx, beta);
        if (isfinite(G) && G <= G0) return bt;
    }
    return VB_REJECTED;
}
