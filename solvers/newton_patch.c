/* newton_patch.c — `newton_patch`: backward Euler by newton_euler's Newton on the
 * incremental potential G (newton.c), nonlinearly preconditioned: after each Newton step
 * that does not already meet the stopping test, [newton_patch] smoothing_sweeps sweeps of
 * nonlinear block Gauss-Seidel on the same G over patches of vertices (im_state.after_step);
 * the residual logged and the stopping test are those of the smoothed iterate.
 * Papers: Ortega & Rheinboldt 1970, §7.4 (block nonlinear Gauss-Seidel); Brune, Knepley,
 * Smith & Tu 2015, SIAM Review 57(4), §3 (a nonlinear smoother composed with Newton); Li,
 * Gao, Langlois, Jiang & Kaufman 2019, ACM TOG 38(4) (local Newton solves on subdomains).
 * papers/residual.md ("Patches", "newton_patch in the code") says why and what it measured.
 *
 * Patches: slabs of the rest shape along its two longest axes, patch_size free vertices
 * each, ordered along the slab or by reverse Cuthill-McKee (the narrower band). Patch P,
 * every other vertex fixed, takes patch_iterations Newton steps on its part of G,
 *     G_P(x_P) = Σ_{i∈P} I_i(x_i) + Σ_{j ∩ P ≠ ∅} Ψ_j + (β/2ĥ) eᵀ K_n e (P's share),
 *     I_i = m_i/(2ĥ²)|x_i − x̃_i|² + α m_i/(2ĥ)|x_i − a_i|²   (vb_inertia_eval),
 *     H_P Δ = f_P,   f_P = −∇_P G_P,   H_P = ∇²_P G_P   (banded Cholesky),
 * exact element Hessians where H_P is positive definite, else their PSD projections; at an
 * active contact (normal n̂) blocks and force are projected on the tangent plane
 * (P_i H_ij P_j, P_i f_i, plus m_i/ĥ² n̂n̂ᵀ). The trials are projected as Newton's are
 * (im_project_vertex) and the step is line-searched by the shared rule of a local Newton
 * step (vb_line_search in vertex_block.c), so a sweep never raises G beyond rounding.
 *
 * Settings: newton_euler's [solver] rows; [newton_patch] smoothing_sweeps (0 = plain
 * Newton), patch_size, patch_iterations.
 *
 * Passes per sweep: each patch evaluates the gradient and Hessian of each element it holds
 * once per Newton step (an element on a patch boundary once per patch it touches) and the
 * elements' energy once per trial; one banded factorisation per step.
 */
#include "implicit_internal.h"

#include <stddef.h>


/* newton_patch's settings: newton_euler's block, then its own rows (smoothing_sweeps,
 * patch_size, patch_iterations; the [newton_patch] section). */
typedef struct newton_patch_settings {
    weft_implicit_settings newton;
    int sweeps;           /* Gauss-Seidel sweeps over the patches after each Newton step */
    int patch_size;       /* free vertices per patch */
    int patch_iterations; /* Newton steps on each patch in a sweep */
} newton_patch_settings;

/* The patches and their workspace. */
struct im_patches {
    vb_graph gr;          /* the vertex incidence (each vertex's elements) */
    int sweeps, size, iterations; /* smoothing_sweeps, patch_size, patch_iterations */
    int np;       /* patches, both orientations */
    int *ptr, *v; /* patch p's vertices: v[ptr[p] .. ptr[p+1]) */
    int *bw;      /* patch p's half-bandwidth in unknowns */
    int *eptr;    /* patch p's elements: (term, elem) at eterm/eelem[eptr[p] .. eptr[p+1]) */
    int *eterm, *eelem;
    int *loc;              /* n: vertex → its place in the current patch, −1 if not in it */
    int *cnew;             /* the trial's contacts (max patch) */
    double *nnew;          /* and normals (3 × max patch) */
    double *Hb;            /* lower band of H_P: row r holds columns r − w .. r */
    double *f, *dx, *xold; /* 3 × max patch */
    double *He, *ge, *xe;  /* one element's Hessian, gradient, positions */
};

/* A free vertex's sort keys: its rest coordinates along the chosen axes. */
typedef struct patch_key {
    double k[3];
    int i;
} patch_key;

static int key_cmp(const void *pa, const void *pb) {
    const patch_key *a = pa, *b = pb;
    for (int d = 0; d < 3; d++)
        if (a->k[d] != b->k[d]) return a->k[d] < b->k[d] ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static void sort_by(patch_key *keys, int count, const double *rest, const int axes[3]) {
    for (int q = 0; q < count; q++)
        for (int d = 0; d < 3; d++) keys[q].k[d] = rest[3 * keys[q].i + axes[d]];
    qsort(keys, (size_t)count, sizeof *keys, key_cmp);
}

/* Patch p's half-bandwidth in unknowns, 3 max |l(i) − l(j)| + 2 over the pairs of its
 * vertices that share an element (A's pattern). */
static int patch_band(struct im_patches *P, const weft_bsr *A, int p) {
    const int first = P->ptr[p], count = P->ptr[p + 1] - first;
    for (int q = 0; q < count; q++) P->loc[P->v[first + q]] = q;
    int w = 0;
    for (int q = 0; q < count; q++)
        for (int b = A->row_ptr[P->v[first + q]]; b < A->row_ptr[P->v[first + q] + 1]; b++) {
            const int l = P->loc[A->col[b]];
            if (l >= 0 && abs(l - q) > w) w = abs(l - q);
        }
    for (int q = 0; q < count; q++) P->loc[P->v[first + q]] = -1;
    return 3 * w + 2;
}

/* Reorders patch p's vertices by reverse Cuthill-McKee on the part of A's vertex graph
 * (vertices sharing an element) inside the patch, which narrows its matrix's band
 * (weft_rcm_order). Returns WEFT_ERR_NOMEM if its scratch cannot be allocated. */
static int rcm_patch(struct im_patches *P, const weft_bsr *A, int p) {
    const int first = P->ptr[p], count = P->ptr[p + 1] - first;
    int *v = &P->v[first];
    size_t nnz = 0;
    for (int q = 0; q < count; q++) nnz += (size_t)(A->row_ptr[v[q] + 1] - A->row_ptr[v[q]]);
    weft_bsr g = {.n = count};
    g.row_ptr = malloc(((size_t)count + 1) * sizeof *g.row_ptr);
    g.col = malloc((nnz + 1) * sizeof *g.col);
    int *perm = malloc((size_t)count * sizeof *perm), *old = malloc((size_t)count * sizeof *old);
    int rc = WEFT_ERR_NOMEM;
    if (!g.row_ptr || !g.col || !perm || !old) goto out;
    for (int q = 0; q < count; q++) P->loc[v[q]] = q;
    g.row_ptr[0] = 0;
    for (int q = 0; q < count; q++) {
        int k = g.row_ptr[q];
        for (int b = A->row_ptr[v[q]]; b < A->row_ptr[v[q] + 1]; b++)
            if (P->loc[A->col[b]] >= 0) g.col[k++] = P->loc[A->col[b]];
        g.row_ptr[q + 1] = k;
    }
    for (int q = 0; q < count; q++) P->loc[v[q]] = -1;
    g.nnzb = g.row_ptr[count];
    if ((rc = weft_rcm_order(&g, perm))) goto out;
    memcpy(old, v, (size_t)count * sizeof *v);
    for (int q = 0; q < count; q++) v[q] = old[perm[q]];
out:
    free(g.row_ptr), free(g.col), free(perm), free(old);
    return rc;
}

static void patches_free(struct im_patches *P) {
    if (!P) return;
    void *a[] = {P->ptr,  P->v,  P->bw, P->eptr, P->eterm, P->eelem, P->loc, P->cnew,
                 P->nnew, P->Hb, P->f,  P->dx,   P->xold,  P->He,    P->ge,  P->xe};
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) free(a[k]);
    free(P);
}

static void patch_destroy(im_state *st) {
    struct im_patches *P = st->variant;
    if (P) vb_graph_free(&P->gr);
    patches_free(P);
    st->variant = NULL;
}

/* Patch p's elements, each once, from the vertex graph's incidence; stamp[t][e] marks the
 * last patch that took element e of term t. */
static void patch_elements(struct im_patches *P, const vb_graph *gr, int p, int **stamp, int *ne) {
    P->eptr[p] = *ne;
    for (int q = P->ptr[p]; q < P->ptr[p + 1]; q++) {
        const int i = P->v[q];
        for (int k = gr->inc_ptr[i]; k < gr->inc_ptr[i + 1]; k++) {
            const vb_incidence ic = gr->inc[k];
            if (stamp[ic.term][ic.elem] == p) continue;
            stamp[ic.term][ic.elem] = p;
            P->eterm[*ne] = ic.term, P->eelem[*ne] = ic.elem, (*ne)++;
        }
    }
}

static int patch_create(im_state *st, const weft_model *m, weft_error *err) {
    const newton_patch_settings *set = st->settings;
    const int n = m->n, size = set->patch_size;
    struct im_patches *P = calloc(1, sizeof *P);
    patch_key *keys = malloc((size_t)(n > 0 ? n : 1) * sizeof *keys);
    int **stamp = calloc((size_t)m->nterms + 1, sizeof *stamp);
    st->variant = P;
    st->variant_free = patch_destroy;
    if (!P || !keys || !stamp) goto nomem;
    P->sweeps = set->sweeps, P->size = size, P->iterations = set->patch_iterations;
    int rc = vb_graph_build(&P->gr, m, st->type->name, err);
    if (rc) {
        free(stamp), free(keys);
        return rc;
    }
    const vb_graph *gr = &P->gr;
    /* the rest shape's axes, longest first */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    int nfree = 0;
    for (int i = 0; i < n; i++) {
        if (m->pin[i] >= 0 || m->w[i] == 0.0) continue;
        keys[nfree++].i = i;
        for (int d = 0; d < 3; d++)
            lo[d] = fmin(lo[d], m->mesh.x[3 * i + d]), hi[d] = fmax(hi[d], m->mesh.x[3 * i + d]);
    }
    int ax[3] = {0, 1, 2};
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (hi[ax[b]] - lo[ax[b]] > hi[ax[a]] - lo[ax[a]]) {
                int t = ax[a];
                ax[a] = ax[b], ax[b] = t;
            }
    const int per = nfree > 0 ? (nfree + size - 1) / size : 0; /* patches per orientation */
    const int orientations = per > 1 ? 2 : 1; /* one patch holds every vertex: once */
    P->np = per * orientations;
    const size_t nvp = (size_t)nfree * (size_t)orientations + 1;
    P->ptr = malloc(((size_t)P->np + 1) * sizeof *P->ptr);
    P->v = malloc(nvp * sizeof *P->v);
    P->bw = malloc(((size_t)P->np + 1) * sizeof *P->bw);
    P->eptr = malloc(((size_t)P->np + 1) * sizeof *P->eptr);
    P->loc = malloc((size_t)(n > 0 ? n : 1) * sizeof *P->loc);
    if (!P->ptr || !P->v || !P->bw || !P->eptr || !P->loc) goto nomem;
    for (int i = 0; i < n; i++) P->loc[i] = -1;
    P->ptr[0] = 0;
    int np = 0, nv = 0;
    for (int o = 0; o < orientations; o++) {
        const int across[3] = {ax[o], ax[1 - o], ax[2]}, along[3] = {ax[1 - o], ax[o], ax[2]};
        sort_by(keys, nfree, m->mesh.x, across);
        for (int q = 0; q < nfree; q += size) {
            const int count = q + size <= nfree ? size : nfree - q;
            /* a narrow band: the vertices along the slab (the other axis first) or by
             * reverse Cuthill-McKee, whichever band is narrower (a grid's slab: along it;
             * a sphere's cap: RCM) */
            sort_by(keys + q, count, m->mesh.x, along);
            for (int r = 0; r < count; r++) P->v[nv++] = keys[q + r].i;
            P->ptr[++np] = nv;
            const int along_band = patch_band(P, st->A, np - 1);
            if (rcm_patch(P, st->A, np - 1)) goto nomem;
            if (along_band <= patch_band(P, st->A, np - 1))
                for (int r = 0; r < count; r++) P->v[nv - count + r] = keys[q + r].i;
        }
    }
    /* elements and bandwidths */
    size_t total = 0;
    for (int t = 0; t < m->nterms; t++) {
        if (!(stamp[t] = malloc(((size_t)m->terms[t].n + 1) * sizeof **stamp))) goto nomem;
        for (int e = 0; e < m->terms[t].n; e++) stamp[t][e] = -1;
    }
    for (int q = 0; q < P->np; q++)
        for (int k = P->ptr[q]; k < P->ptr[q + 1]; k++)
            total += (size_t)(gr->inc_ptr[P->v[k] + 1] - gr->inc_ptr[P->v[k]]);
    P->eterm = malloc((total + 1) * sizeof *P->eterm);
    P->eelem = malloc((total + 1) * sizeof *P->eelem);
    if (!P->eterm || !P->eelem) goto nomem;
    int ne = 0, maxp = 1, maxw = 0, maxnv = 1;
    for (int q = 0; q < P->np; q++) {
        patch_elements(P, gr, q, stamp, &ne);
        P->bw[q] = patch_band(P, st->A, q);
        maxp = P->ptr[q + 1] - P->ptr[q] > maxp ? P->ptr[q + 1] - P->ptr[q] : maxp;
        maxw = P->bw[q] > maxw ? P->bw[q] : maxw;
    }
    P->eptr[P->np] = ne;
    for (int t = 0; t < m->nterms; t++)
        if (m->terms[t].type->nv > maxnv) maxnv = m->terms[t].type->nv;
    const size_t d = 3 * (size_t)maxp, ed = 3 * (size_t)maxnv;
    P->Hb = malloc(d * ((size_t)maxw + 1) * sizeof *P->Hb);
    P->f = malloc(d * sizeof *P->f);
    P->dx = malloc(d * sizeof *P->dx);
    P->xold = malloc(d * sizeof *P->xold);
    P->nnew = malloc(d * sizeof *P->nnew);
    P->cnew = malloc((size_t)maxp * sizeof *P->cnew);
    P->He = malloc(ed * ed * sizeof *P->He);
    P->ge = malloc(ed * sizeof *P->ge);
    P->xe = malloc(ed * sizeof *P->xe);
    if (!P->Hb || !P->f || !P->dx || !P->xold || !P->nnew || !P->cnew || !P->He || !P->ge || !P->xe)
        goto nomem;
    for (int t = 0; t < m->nterms; t++) free(stamp[t]);
    free(stamp), free(keys);
    return WEFT_OK;
nomem:
    if (stamp)
        for (int t = 0; t < m->nterms; t++) free(stamp[t]);
    free(stamp), free(keys);
    patch_destroy(st);
    return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory (patches)", st->type->name);
}

/* H_P's lower band: entry (r, c), r ≥ c ≥ r − w. */
static inline double *band(double *Hb, int w, int r, int c) {
    return &Hb[(size_t)r * (size_t)(w + 1) + (size_t)(c - r + w)];
}

/* In-place banded Cholesky H = L Lᵀ (d unknowns, half-bandwidth w); false where a pivot is
 * not positive (H not positive definite). */
static bool band_cholesky(double *Hb, int d, int w) {
    for (int j = 0; j < d; j++) {
        const int k0 = j - w > 0 ? j - w : 0;
        double s = *band(Hb, w, j, j);
        for (int k = k0; k < j; k++) s -= *band(Hb, w, j, k) * *band(Hb, w, j, k);
        if (!(s > 0.0)) return false;
        const double ljj = sqrt(s);
        *band(Hb, w, j, j) = ljj;
        const int i1 = j + w < d - 1 ? j + w : d - 1;
        for (int i = j + 1; i <= i1; i++) {
            const int ki = i - w > k0 ? i - w : k0;
            double t = *band(Hb, w, i, j);
            for (int k = ki; k < j; k++) t -= *band(Hb, w, i, k) * *band(Hb, w, j, k);
            *band(Hb, w, i, j) = t / ljj;
        }
    }
    return true;
}

/* Solves L Lᵀ x = b with band_cholesky's factor. */
static void band_solve(double *Lb, int d, int w, const double *b, double *x) {
    for (int i = 0; i < d; i++) {
        double t = b[i];
        for (int k = i - w > 0 ? i - w : 0; k < i; k++) t -= *band(Lb, w, i, k) * x[k];
        x[i] = t / *band(Lb, w, i, i);
    }
    for (int i = d - 1; i >= 0; i--) {
        double t = x[i];
        const int k1 = i + w < d - 1 ? i + w : d - 1;
        for (int k = i + 1; k <= k1; k++) t -= *band(Lb, w, k, i) * x[k];
        x[i] = t / *band(Lb, w, i, i);
    }
}

/* B ← (I − n̂n̂ᵀ) B (left) or B (I − n̂n̂ᵀ) (right), B 3×3 with row stride ld. */
static void tangent_left(double *B, int ld, const double *n) {
    for (int c = 0; c < 3; c++) {
        double s = n[0] * B[c] + n[1] * B[ld + c] + n[2] * B[2 * ld + c];
        for (int r = 0; r < 3; r++) B[r * ld + c] -= s * n[r];
    }
}
static void tangent_right(double *B, int ld, const double *n) {
    for (int r = 0; r < 3; r++) {
        double s = B[r * ld] * n[0] + B[r * ld + 1] * n[1] + B[r * ld + 2] * n[2];
        for (int c = 0; c < 3; c++) B[r * ld + c] -= s * n[c];
    }
}

/* Rayleigh damping's stiffness part (β/2ĥ) eᵀ K_n e, e = x − a, as far as it holds the
 * patch's vertices: Σ_{i∈P} e_iᵀ (K_n e)_i − ½ Σ_{i,j∈P} e_iᵀ K_n,ij e_j (the pairs with one
 * vertex outside appear twice in the full sum). With system, also its gradient
 * (β/ĥ)(K_n e)_i into f (subtracted) and its blocks (β/ĥ) K_n,ij into H_P's band, tangent-
 * projected at the active contacts as the element blocks are. 0 when β = 0. */
static double damping_beta_terms(const im_state *st, const double *x, int p, double hh,
                                 bool system) {
    const double be = st->set.damping_beta;
    if (!(be > 0.0)) return 0.0;
    struct im_patches *P = ((struct im_patches *)st->variant);
    const weft_bsr *A = st->A;
    const int first = P->ptr[p], w = P->bw[p];
    double sum = 0.0;
    for (int q = first; q < P->ptr[p + 1]; q++) {
        const int i = P->v[q], la = q - first;
        double ei[3], Ke[3] = {0.0, 0.0, 0.0};
        for (int k = 0; k < 3; k++) ei[k] = x[3 * i + k] - st->a[3 * i + k];
        for (int b = A->row_ptr[i]; b < A->row_ptr[i + 1]; b++) {
            const int j = A->col[b], lc = P->loc[j];
            const double *K = &st->Kn_val[9 * (size_t)b];
            double kj[3] = {0.0, 0.0, 0.0};
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    kj[r] += K[3 * r + c] * (x[3 * j + c] - st->a[3 * j + c]);
            for (int r = 0; r < 3; r++) Ke[r] += kj[r];
            sum += (lc >= 0 ? 0.5 : 1.0) * weft_dot3(ei, kj);
            if (!system || lc < 0 || lc > la) continue;
            double B[9];
            for (int k = 0; k < 9; k++) B[k] = be / hh * K[k];
            if (st->contact[i] >= 0) tangent_left(B, 3, &st->cn[3 * i]);
            if (st->contact[j] >= 0) tangent_right(B, 3, &st->cn[3 * j]);
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    if (lc < la || c <= r) *band(P->Hb, w, 3 * la + r, 3 * lc + c) += B[3 * r + c];
        }
        if (system)
            for (int k = 0; k < 3; k++) P->f[3 * la + k] -= be / hh * Ke[k];
    }
    return be / hh * sum;
}

/* The per-vertex inertia and mass-damping terms of G (vertex_block.c's). */
static vb_inertia patch_inertia(const im_state *st, double hh) {
    return (vb_inertia){.hh = hh, .alpha = st->set.damping_alpha, .xt = st->xt, .a = st->a};
}

/* G_P: the patch vertices' inertia and damping terms plus the energy of its elements. */
static double patch_potential(const im_state *st, const weft_model *m, const double *x, int p,
                              double hh) {
    const struct im_patches *P = ((struct im_patches *)st->variant);
    const vb_inertia in = patch_inertia(st, hh);
    double G = 0.0;
    for (int q = P->ptr[p]; q < P->ptr[p + 1]; q++)
        G += vb_inertia_eval(&in, m, P->v[q], &x[3 * P->v[q]], NULL, NULL);
    for (int k = P->eptr[p]; k < P->eptr[p + 1]; k++) {
        const weft_term *term = &m->terms[P->eterm[k]];
        const weft_element *el = &term->elem[P->eelem[k]];
        for (int a = 0; a < term->type->nv; a++)
            memcpy(&P->xe[3 * a], &x[3 * el->v[a]], 3 * sizeof(double));
        G += term->type->energy(el, P->xe);
    }
    return G + damping_beta_terms(st, x, p, hh, false);
}

/* f_P and H_P (lower band) at x with the element Hessians of `mode`, tangent-projected at
 * the active contacts. False if a value is not finite. */
static bool patch_system(im_state *st, const weft_model *m, const double *x, int p, double hh,
                         weft_hessian_mode mode) {
    struct im_patches *P = ((struct im_patches *)st->variant);
    const int first = P->ptr[p], np = P->ptr[p + 1] - first, d = 3 * np, w = P->bw[p];
    const vb_inertia in = patch_inertia(st, hh);
    memset(P->Hb, 0, (size_t)d * (size_t)(w + 1) * sizeof *P->Hb);
    memset(P->f, 0, (size_t)d * sizeof *P->f);
    for (int k = P->eptr[p]; k < P->eptr[p + 1]; k++) {
        const weft_term *term = &m->terms[P->eterm[k]];
        const weft_element *el = &term->elem[P->eelem[k]];
        const int nv = term->type->nv, ld = 3 * nv;
        for (int a = 0; a < nv; a++) memcpy(&P->xe[3 * a], &x[3 * el->v[a]], 3 * sizeof(double));
        term->type->hessian(el, P->xe, mode, P->ge, P->He);
        for (int a = 0; a < nv; a++) {
            const int la = P->loc[el->v[a]];
            if (la < 0) continue;
            for (int r = 0; r < 3; r++) P->f[3 * la + r] -= P->ge[3 * a + r];
            const int ia = el->v[a];
            for (int c = 0; c < nv; c++) {
                const int lc = P->loc[el->v[c]];
                if (lc < 0 || lc > la) continue; /* the lower triangle: block row ≥ column */
                double B[9];
                for (int r = 0; r < 3; r++)
                    for (int s = 0; s < 3; s++) B[3 * r + s] = P->He[(3 * a + r) * ld + 3 * c + s];
                const int ic = el->v[c];
                if (st->contact[ia] >= 0) tangent_left(B, 3, &st->cn[3 * ia]);
                if (st->contact[ic] >= 0) tangent_right(B, 3, &st->cn[3 * ic]);
                for (int r = 0; r < 3; r++)
                    for (int s = 0; s < 3; s++)
                        if (lc < la || s <= r)
                            *band(P->Hb, w, 3 * la + r, 3 * lc + s) += B[3 * r + s];
            }
        }
    }
    damping_beta_terms(st, x, p, hh, true);
    bool finite = true;
    for (int q = 0; q < np; q++) {
        const int i = P->v[first + q];
        double *fi = &P->f[3 * q], cm;
        vb_inertia_eval(&in, m, i, &x[3 * i], fi, &cm);
        for (int k = 0; k < 3; k++) *band(P->Hb, w, 3 * q + k, 3 * q + k) += cm;
        if (st->contact[i] >= 0) {
            const double *n = &st->cn[3 * i];
            const double fn = weft_dot3(fi, n);
            for (int k = 0; k < 3; k++) fi[k] -= fn * n[k];
            for (int r = 0; r < 3; r++)
                for (int s = 0; s <= r; s++)
                    *band(P->Hb, w, 3 * q + r, 3 * q + s) += cm * n[r] * n[s];
        }
        for (int k = 0; k < 3; k++) finite = finite && isfinite(fi[k]);
    }
    return finite;
}

/* A trial of patch p's step (vb_line_search): x_P = x_P⁰ + β Δ, each vertex projected as
 * Newton's trials are (its contact and normal into cnew, nnew); G_P there. */
typedef struct patch_trial {
    im_state *st;
    const weft_model *m;
    double *x;
    int p;
    double t1, hh;
} patch_trial;

static double patch_try(void *ctx, double beta) {
    const patch_trial *c = ctx;
    struct im_patches *P = c->st->variant;
    const int first = P->ptr[c->p], np = P->ptr[c->p + 1] - first;
    for (int q = 0; q < np; q++) {
        const int i = P->v[first + q];
        double *xi = &c->x[3 * i];
        for (int k = 0; k < 3; k++) xi[k] = P->xold[3 * q + k] + beta * P->dx[3 * q + k];
        P->cnew[q] = c->st->contact[i];
        if (c->m->ncolliders > 0) im_project_vertex(c->m, c->t1, &P->cnew[q], xi, &P->nnew[3 * q]);
    }
    return patch_potential(c->st, c->m, c->x, c->p, c->hh);
}

/* patch_iterations Newton steps on G_P. Returns the vertices caught by a collider. */
static int patch_newton(im_state *st, const weft_model *m, double *x, int p, double t1, double hh) {
    struct im_patches *P = ((struct im_patches *)st->variant);
    const int first = P->ptr[p], np = P->ptr[p + 1] - first, d = 3 * np, w = P->bw[p];
    int caught = 0;
    for (int q = 0; q < np; q++) P->loc[P->v[first + q]] = q;
    for (int it = 0; it < P->iterations; it++) {
        bool ok = patch_system(st, m, x, p, hh, WEFT_HESSIAN_EXACT) && band_cholesky(P->Hb, d, w);
        if (!ok) /* the exact patch system is not positive definite: the projected one */
            ok = patch_system(st, m, x, p, hh, WEFT_HESSIAN_ANALYTIC) && band_cholesky(P->Hb, d, w);
        if (!ok) break;
        band_solve(P->Hb, d, w, P->f, P->dx);
        double slope = 0.0;
        for (int k = 0; k < d; k++) slope += P->f[k] * P->dx[k];
        for (int q = 0; q < np; q++)
            memcpy(&P->xold[3 * q], &x[3 * P->v[first + q]], 3 * sizeof(double));
        patch_trial c = {st, m, x, p, t1, hh};
        const int bt = vb_line_search(slope, patch_potential(st, m, x, p, hh), patch_try, &c);
        if (bt == VB_AT_ROUNDING) break; /* nothing G_P can resolve: the patch stays */
        if (bt == VB_REJECTED) {
            for (int q = 0; q < np; q++)
                memcpy(&x[3 * P->v[first + q]], &P->xold[3 * q], 3 * sizeof(double));
            st->stats.smooth_rejected++;
            break;
        }
        st->stats.smooth_updates++;
        for (int q = 0; q < np; q++) {
            const int i = P->v[first + q];
            if (P->cnew[q] < 0) continue;
            caught += st->contact[i] < 0;
            st->contact[i] = P->cnew[q];
            memcpy(&st->cn[3 * i], &P->nnew[3 * q], 3 * sizeof(double));
        }
    }
    for (int q = 0; q < np; q++) P->loc[P->v[first + q]] = -1;
    return caught;
}

/* The pass after a Newton step (im_state.after_step): sweeps sweeps over the patches. */
static int patch_smooth(im_state *st, const weft_model *m, double t1, double hh, double *x) {
    const struct im_patches *P = st->variant;
    int caught = 0;
    for (int s = 0; s < P->sweeps; s++) {
        for (int p = 0; p < P->np; p++) caught += patch_newton(st, m, x, p, t1, hh);
        st->stats.smooth_sweeps++;
    }
    return caught;
}

// clang-format off
#define F(field) offsetof(newton_patch_settings, field)
static const weft_param patch_params[] = {
    {.key = "smoothing_sweeps", .type = WEFT_PARAM_INT, .offset = F(sweeps), .unit = "", .lo = 0,
     .hi = 1000, .dflt = 2,
     .doc = "Gauss-Seidel sweeps over the patches after each Newton step, counted in its "
            "iteration; 0 = plain Newton"},
    {.key = "patch_size", .type = WEFT_PARAM_INT, .offset = F(patch_size), .unit = "",
     .lo = 1, .hi = 4096, .dflt = 256,
     .doc = "free vertices per patch (slabs of the rest shape along its two longest axes)"},
    {.key = "patch_iterations", .type = WEFT_PARAM_INT, .offset = F(patch_iterations),
     .unit = "", .lo = 1, .hi = 100, .dflt = 2,
     .doc = "Newton steps on each patch in a sweep"},
    {0},
};
#undef F
// clang-format on

static const weft_param_table patch_tables[] = {
    {"solver", weft_iterations_params, offsetof(newton_patch_settings, newton.common)},
    {"solver", weft_threads_params, offsetof(newton_patch_settings, newton.common)},
    {"solver", im_newton_params, offsetof(newton_patch_settings, newton)},
    {"solver", im_implicit_params, offsetof(newton_patch_settings, newton)},
    {"newton_patch", patch_params, 0}, /* its own section: no other solver reads it */
    {0},
};

static void *create_np(const weft_model *m, weft_config *cfg, weft_error *err) {
    im_state *st = im_create(m, cfg, &weft_newton_patch, patch_tables, true, false,
                             im_newton_step, err);
    if (!st) return NULL;
    if (patch_create(st, m, err)) {
        im_destroy(st);
        return NULL;
    }
    if (((newton_patch_settings *)st->settings)->sweeps > 0) st->after_step = patch_smooth;
    return st;
}

const weft_solver_type weft_newton_patch = {
    .name = "newton_patch",
    .paper = "Kim & Eberle 2020, ch. 8; Brune et al. 2015, §3 (Newton with a nonlinear "
             "Gauss-Seidel smoother)",
    .iteration = "one Newton step with line search, then patch Gauss-Seidel sweeps",
    .summary = "backward Euler solved to tolerance by newton_euler's Newton, each step "
               "followed by block Gauss-Seidel sweeps on G over patches of vertices",
    .settings_size = sizeof(newton_patch_settings),
    .settings = patch_tables,
    .create = create_np,
    .step = im_step,
    .destroy = im_destroy,
    .stats = im_profile,
    .linear_log = true,
};
