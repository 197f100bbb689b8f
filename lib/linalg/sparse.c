/* sparse.c — the Hessian of a whole model as a block-sparse-row matrix of 3×3 blocks
 * (weft_sparse.h): its pattern, its parallel assembly, products, and CHOLMOD export.
 *
 * Assembly (the finite-element "direct stiffness" sum, as in Baraff & Witkin 1998, "Large
 * Steps in Cloth Simulation", and Kim & Eberle 2020, "Dynamic Deformables"):
 *   E = Σ_e Ψ_e(x_e),   ∇E = Σ_e Pₑᵀ ∇Ψ_e,   ∇²E = Σ_e Pₑᵀ ∇²Ψ_e Pₑ,
 * where Pₑ gathers element e's nv vertices. Element e adds its (a, b) 3×3 block of
 * ∇²Ψ_e to block (v[a], v[b]); the block's index is looked up once at creation (slot map).
 *
 * Parallelism and determinism: each term's elements are cut into batches of BATCH
 * consecutive elements, greedily coloured so that no two batches of a colour share a
 * vertex (Fratarcangeli, Tibaldo & Pellacini 2016); a colour's batches run on threads
 * without atomics, colours in order, a batch's elements in order. Every block and gradient
 * entry so receives its contributions in the same order whatever the thread count:
 * serial and parallel runs agree bit for bit. E is summed serially from the stored
 * per-element Ψ (term, then element order, as weft_model_energy).
 *
 * Exact symmetry: block(v[a], v[b]) += ½ (H_ab + H_baᵀ), the same number for (a, b) and,
 * transposed, for (b, a), and a bitwise no-op for a symmetric H; the lower and upper
 * triangles are exact transposes, so the CHOLMOD export reads the upper triangle from the
 * lower blocks of each row.
 *
 * Reverse Cuthill-McKee: Cuthill & McKee 1969, reversed as George 1971 proposed, from the
 * pseudo-peripheral vertex of George & Liu 1979 (George & Liu's book, 1981, §4.3).
 * Why batches, and what they measured: papers/sparse-assembly.md.
 */
#include "weft_sparse.h"
#include "weft_cholmod.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------ */
/* Pattern                                                                         */
/* ------------------------------------------------------------------------------ */

/* Every term's element size is 1..WEFT_ELEM_MAXV and every vertex index in [0, n). */
static int check_elements(const weft_model *m, weft_error *err) {
    if (m->n < 0) return weft_fail(err, WEFT_ERR_INPUT, "sparse pattern: %d vertices", m->n);
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        const char *name = term->type && term->type->name ? term->type->name : "?";
        if (!term->type || term->type->nv < 1 || term->type->nv > WEFT_ELEM_MAXV)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "term %d (%s): elements must have 1 to %d vertices", t, name,
                             WEFT_ELEM_MAXV);
        if (term->n < 0 || (term->n > 0 && !term->elem))
            return weft_fail(err, WEFT_ERR_INPUT, "term %d (%s): no element array", t, name);
        for (int i = 0; i < term->n; i++)
            for (int a = 0; a < term->type->nv; a++) {
                int v = term->elem[i].v[a];
                if (v < 0 || v >= m->n)
                    return weft_fail(err, WEFT_ERR_INPUT,
                                     "element %d of term %d (%s): vertex %d out of range "
                                     "[0, %d)", i, t, name, v, m->n);
            }
    }
    return WEFT_OK;
}

static int compare_int(const void *pa, const void *pb) {
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

/* Vertex → element incidence in CSR form: the elements touching vertex i are
 * (inc[2k], inc[2k+1]) = (term, element) for ptr[i] <= k < ptr[i+1]. */
static int incidence(const weft_model *m, int **ptr_out, int **inc_out) {
    int n = m->n;
    size_t total = 0;
    for (int t = 0; t < m->nterms; t++)
        total += (size_t)m->terms[t].n * (size_t)m->terms[t].type->nv;
    if (total > INT_MAX) return WEFT_ERR_NOMEM;
    int *ptr = calloc((size_t)n + 1, sizeof *ptr);
    int *inc = malloc(2 * (total > 0 ? total : 1) * sizeof *inc);
    if (!ptr || !inc) {
        free(ptr), free(inc);
        return WEFT_ERR_NOMEM;
    }
    for (int t = 0; t < m->nterms; t++)
        for (int i = 0; i < m->terms[t].n; i++)
            for (int a = 0; a < m->terms[t].type->nv; a++) ptr[m->terms[t].elem[i].v[a] + 1]++;
    for (int i = 0; i < n; i++) ptr[i + 1] += ptr[i];
    /* Fill with a moving cursor per vertex (ptr[i] advances to ptr[i+1]), then shift
     * back: the classic two-pass CSR construction, in term and element order. */
    for (int t = 0; t < m->nterms; t++)
        for (int i = 0; i < m->terms[t].n; i++)
            for (int a = 0; a < m->terms[t].type->nv; a++) {
                int k = ptr[m->terms[t].elem[i].v[a]]++;
                inc[2 * k] = t, inc[2 * k + 1] = i;
            }
    for (int i = n; i > 0; i--) ptr[i] = ptr[i - 1];
    ptr[0] = 0;
    *ptr_out = ptr, *inc_out = inc;
    return WEFT_OK;
}

int weft_bsr_pattern(weft_bsr *A, const weft_model *m, weft_error *err) {
    memset(A, 0, sizeof *A);
    int rc = check_elements(m, err);
    if (rc) return rc;
    int n = m->n, *ptr = NULL, *inc = NULL;
    int *mark = malloc((size_t)(n > 0 ? n : 1) * sizeof *mark);
    A->n = n;
    A->row_ptr = calloc((size_t)n + 1, sizeof *A->row_ptr);
    A->diag = malloc((size_t)(n > 0 ? n : 1) * sizeof *A->diag);
    if (!mark || !A->row_ptr || !A->diag || incidence(m, &ptr, &inc) != WEFT_OK) goto nomem;

    /* Two passes over each vertex's elements: count its distinct neighbours (itself
     * included), then list them. mark[w] == i says w is already in row i. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) mark[i] = -1;
        for (int i = 0; i < n; i++) {
            int *row = pass ? &A->col[A->row_ptr[i]] : NULL, len = 0;
            mark[i] = i;
            if (row) row[len] = i;
            len++;
            for (int k = ptr[i]; k < ptr[i + 1]; k++) {
                const weft_term *term = &m->terms[inc[2 * k]];
                const int *v = term->elem[inc[2 * k + 1]].v;
                for (int a = 0; a < term->type->nv; a++)
                    if (mark[v[a]] != i) {
                        mark[v[a]] = i;
                        if (row) row[len] = v[a];
                        len++;
                    }
            }
            if (!row) {
                A->row_ptr[i + 1] = len;
                continue;
            }
            qsort(row, (size_t)len, sizeof *row, compare_int);
            int *d = bsearch(&i, row, (size_t)len, sizeof *row, compare_int);
            WEFT_ASSERT(d != NULL); /* every vertex couples to itself */
            A->diag[i] = A->row_ptr[i] + (int)(d - row);
        }
        if (pass == 0) {
            long long total = 0;
            for (int i = 0; i < n; i++) {
                total += A->row_ptr[i + 1];
                /* Keep the value count 9 nnzb within int, so that callers may index
                 * values with int. */
                if (total > INT_MAX / 9) {
                    free(mark), free(ptr), free(inc);
                    weft_bsr_free(A);
                    return weft_fail(err, WEFT_ERR_INPUT, "sparse pattern: more than %d "
                                     "blocks", INT_MAX / 9);
                }
                A->row_ptr[i + 1] = (int)total;
            }
            A->nnzb = (int)total;
            A->col = malloc((size_t)(total > 0 ? total : 1) * sizeof *A->col);
            A->val = calloc(9 * (size_t)(total > 0 ? total : 1), sizeof *A->val);
            if (!A->col || !A->val) goto nomem;
        }
    }
    free(mark), free(ptr), free(inc);
    return WEFT_OK;
nomem:
    free(mark), free(ptr), free(inc);
    weft_bsr_free(A);
    return weft_fail(err, WEFT_ERR_NOMEM, "sparse pattern of %d vertices: out of memory", n);
}

void weft_bsr_free(weft_bsr *A) {
    if (!A) return;
    free(A->row_ptr), free(A->col), free(A->diag), free(A->val);
    memset(A, 0, sizeof *A);
}

int weft_bsr_block(const weft_bsr *A, int i, int j) {
    if (i < 0 || i >= A->n) return -1;
    const int *row = &A->col[A->row_ptr[i]];
    const int *hit = bsearch(&j, row, (size_t)(A->row_ptr[i + 1] - A->row_ptr[i]), sizeof *row,
                             compare_int);
    return hit ? A->row_ptr[i] + (int)(hit - row) : -1;
}

/* ------------------------------------------------------------------------------ */
/* Products and copies                                                             */
/* ------------------------------------------------------------------------------ */

void weft_bsr_spmv(const weft_bsr *A, const double *x, double *y, int threads) {
    if (threads < 1) threads = 1;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int i = 0; i < A->n; i++) {
        double s0 = 0.0, s1 = 0.0, s2 = 0.0;
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            const double *B = &A->val[9 * (size_t)k], *xj = &x[3 * (size_t)A->col[k]];
            s0 += B[0] * xj[0] + B[1] * xj[1] + B[2] * xj[2];
            s1 += B[3] * xj[0] + B[4] * xj[1] + B[5] * xj[2];
            s2 += B[6] * xj[0] + B[7] * xj[1] + B[8] * xj[2];
        }
        y[3 * (size_t)i] = s0, y[3 * (size_t)i + 1] = s1, y[3 * (size_t)i + 2] = s2;
    }
}

void weft_bsr_diagonal_blocks(const weft_bsr *A, double *D) {
    for (int i = 0; i < A->n; i++)
        memcpy(&D[9 * (size_t)i], &A->val[9 * (size_t)A->diag[i]], 9 * sizeof *D);
}

void weft_bsr_add_diagonal(weft_bsr *A, const double *d) {
    for (int i = 0; i < A->n; i++) {
        double *B = &A->val[9 * (size_t)A->diag[i]];
        B[0] += d[i], B[4] += d[i], B[8] += d[i];
    }
}

void weft_bsr_to_dense(const weft_bsr *A, double *dense) {
    size_t n3 = 3 * (size_t)A->n;
    memset(dense, 0, n3 * n3 * sizeof *dense);
    for (int i = 0; i < A->n; i++)
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            for (int p = 0; p < 3; p++)
                for (int q = 0; q < 3; q++)
                    dense[(3 * (size_t)i + p) * n3 + 3 * (size_t)A->col[k] + q] =
                        A->val[9 * (size_t)k + 3 * p + q];
}

/* ------------------------------------------------------------------------------ */
/* CHOLMOD                                                                         */
/* ------------------------------------------------------------------------------ */
/* Scalar column c = 3j + b of the upper triangle holds rows 3i + a for the blocks (i, j)
 * with i <= j: all three a for i < j, a <= b for i = j. As the pattern is symmetric,
 * those i are the columns of block row j up to its diagonal, in ascending order, so
 * the row indices come out sorted. By exact symmetry the value A(3i+a, 3j+b) equals
 * A(3j+b, 3i+a), entry (b, a) of block (j, i): the three values of row b of that block,
 * contiguous in memory. Column 3j+b thus has 3 (diag[j] − row_ptr[j]) + b + 1 entries. */

/* Scalar entries of the upper triangle. */
static long long upper_nnz(const weft_bsr *A) {
    long long nnz = 0;
    for (int j = 0; j < A->n; j++) nnz += 9LL * (A->diag[j] - A->row_ptr[j]) + 6;
    return nnz;
}

cholmod_sparse *weft_bsr_cholmod_pattern(const weft_bsr *A, cholmod_common *cc,
                                         weft_error *err) {
    long long nnz = upper_nnz(A);
    if (nnz > INT_MAX) {
        weft_fail(err, WEFT_ERR_INPUT, "CHOLMOD export: %lld entries exceed int indices", nnz);
        return NULL;
    }
    if (cc->itype != CHOLMOD_INT) {
        weft_fail(err, WEFT_ERR_INPUT, "CHOLMOD export: needs cholmod_start (int indices)");
        return NULL;
    }
    size_t n3 = 3 * (size_t)A->n;
    cholmod_sparse *S = cholmod_allocate_sparse(n3, n3, (size_t)nnz, 1, 1, 1, CHOLMOD_REAL, cc);
    if (!S) {
        weft_fail(err, WEFT_ERR_NOMEM, "CHOLMOD export: cannot allocate %lld entries (status %d)",
                  nnz, cc->status);
        return NULL;
    }
    int *Sp = S->p, *Si = S->i, p = 0;
    for (int j = 0; j < A->n; j++)
        for (int b = 0; b < 3; b++) {
            Sp[3 * j + b] = p;
            for (int k = A->row_ptr[j]; k <= A->diag[j]; k++) {
                int na = k == A->diag[j] ? b + 1 : 3;
                for (int a = 0; a < na; a++) Si[p++] = 3 * A->col[k] + a;
            }
        }
    Sp[n3] = p;
    if (weft_bsr_cholmod_values(A, S, err) != WEFT_OK) cholmod_free_sparse(&S, cc);
    return S;
}

int weft_bsr_cholmod_values(const weft_bsr *A, cholmod_sparse *S, weft_error *err) {
    size_t n3 = 3 * (size_t)A->n;
    if (!S || S->nrow != n3 || S->ncol != n3 || S->stype != 1 || S->xtype != CHOLMOD_REAL ||
        S->itype != CHOLMOD_INT || S->dtype != CHOLMOD_DOUBLE || !S->packed)
        return weft_fail(err, WEFT_ERR_INPUT, "CHOLMOD values: the matrix is not the upper "
                         "triangle of a %zu x %zu real matrix from weft_bsr_cholmod_pattern",
                         n3, n3);
    const int *Sp = S->p;
    double *Sx = S->x;
    int p = 0;
    for (int j = 0; j < A->n; j++)
        for (int b = 0; b < 3; b++) {
            if (Sp[3 * j + b] != p)
                return weft_fail(err, WEFT_ERR_INPUT, "CHOLMOD values: column %d does not "
                                 "match the block pattern", 3 * j + b);
            for (int k = A->row_ptr[j]; k <= A->diag[j]; k++) {
                const double *B = &A->val[9 * (size_t)k + 3 * (size_t)b];
                int na = k == A->diag[j] ? b + 1 : 3;
                for (int a = 0; a < na; a++) Sx[p++] = B[a];
            }
        }
    return WEFT_OK;
}

/* ------------------------------------------------------------------------------ */
/* Reverse Cuthill-McKee                                                           */
/* ------------------------------------------------------------------------------ */

/* Breadth-first search from root over vertices with seen[v] != stamp, marking them with
 * stamp and appending them to queue (from queue[0]). Neighbours are appended in
 * ascending degree (ties by index) when `by_degree`, the Cuthill-McKee rule. Returns the
 * number of vertices reached; *last is the start of the last level in queue and *depth
 * the number of levels. */
static int bfs(const weft_bsr *A, const int *deg, int root, int *seen, int stamp, int *queue,
               bool by_degree, int *last, int *depth) {
    int head = 0, tail = 0, level_end = 1;
    queue[tail++] = root;
    seen[root] = stamp;
    *last = 0, *depth = 1;
    while (head < tail) {
        if (head == level_end) { /* the previous level is done: a new one starts here */
            *last = head, (*depth)++;
            level_end = tail;
        }
        int v = queue[head++], first = tail;
        for (int k = A->row_ptr[v]; k < A->row_ptr[v + 1]; k++) {
            int w = A->col[k];
            if (seen[w] == stamp) continue;
            seen[w] = stamp;
            queue[tail++] = w;
        }
        if (!by_degree) continue;
        /* Insertion sort of this vertex's new neighbours by (degree, index): the lists
         * are short (mesh valences). */
        for (int s = first + 1; s < tail; s++) {
            int w = queue[s], r = s;
            while (r > first && (deg[queue[r - 1]] > deg[w] ||
                                 (deg[queue[r - 1]] == deg[w] && queue[r - 1] > w))) {
                queue[r] = queue[r - 1];
                r--;
            }
            queue[r] = w;
        }
    }
    return tail;
}

int weft_rcm_order(const weft_bsr *A, int *perm) {
    int n = A->n;
    int *deg = malloc((size_t)(n > 0 ? n : 1) * sizeof *deg);
    int *seen = malloc((size_t)(n > 0 ? n : 1) * sizeof *seen);
    int *queue = malloc((size_t)(n > 0 ? n : 1) * sizeof *queue);
    if (!deg || !seen || !queue) {
        free(deg), free(seen), free(queue);
        return WEFT_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        deg[i] = A->row_ptr[i + 1] - A->row_ptr[i] - 1; /* neighbours, not itself */
        seen[i] = -1;
    }
    /* seen[v] == 0 marks a placed vertex; the searches for a start vertex mark with
     * stamps 1, 2, ... They stay inside the current component, which holds no placed
     * vertex, so the stamps never collide with placements. */
    int done = 0, stamp = 0, cursor = 0;
    while (done < n) {
        /* A new component: seed the search with its first vertex in index order. */
        while (seen[cursor] == 0) cursor++;
        int root = cursor;
        /* Pseudo-peripheral vertex (George & Liu 1981 §4.3.2): from the level structure
         * rooted at r, take a least-degree vertex x of the last level; if the levels
         * from x are deeper, r = x and repeat, else r is the start. */
        int last, depth, count;
        stamp++;
        count = bfs(A, deg, root, seen, stamp, queue, false, &last, &depth);
        for (;;) {
            int x = queue[last];
            for (int k = last + 1; k < count; k++)
                if (deg[queue[k]] < deg[x]) x = queue[k];
            int last_x, depth_x;
            stamp++;
            count = bfs(A, deg, x, seen, stamp, queue, false, &last_x, &depth_x);
            if (depth_x <= depth) break;
            root = x, depth = depth_x, last = last_x;
        }
        /* Cuthill-McKee from the start vertex places the component at perm[done...]. */
        count = bfs(A, deg, root, seen, 0, &perm[done], true, &last, &depth);
        done += count;
    }
    /* Reverse: RCM. */
    for (int k = 0; k < n / 2; k++) {
        int t = perm[k];
        perm[k] = perm[n - 1 - k], perm[n - 1 - k] = t;
    }
    free(deg), free(seen), free(queue);
    return WEFT_OK;
}

/* ------------------------------------------------------------------------------ */
/* Assembly                                                                        */
/* ------------------------------------------------------------------------------ */

/* What went wrong with an element in the last run. */
enum { ELEM_OK = 0, ELEM_BAD_ENERGY = 1, ELEM_BAD_DERIVATIVES = 2 };

/* Elements per batch: batch b of a term holds its elements [b BATCH, (b + 1) BATCH). Big
 * enough for the blocks of consecutive elements to be reused in cache, small enough for
 * a colour to hold many batches to share among threads. */
#define BATCH 32

/* One term of the model as the assembly sees it. */
typedef struct assembly_term {
    const weft_energy_type *type; /* the model's type at creation (checked on every run) */
    const weft_element *elem;     /* the model's element array at creation (checked) */
    int n, nv;                    /* elements, vertices per element */
    bool skip;                    /* a constraint with no energy: contributes nothing */
    int mode;                     /* its Hessian mode, or -1: the run's (weft_assembly_term_mode) */
    int nbatches;                 /* ceil(n / BATCH) */
    int ncolours;
    int *colour_ptr;      /* ncolours + 1 offsets into order */
    int *order;           /* nbatches batch indices, colour by colour, ascending within */
    int *slot;            /* n nv² block indices: element i's block (a, b) is
                             slot[(i nv + a) nv + b] */
    double *psi;          /* n: Ψ of each element in the last run, J */
    unsigned char *state; /* n: ELEM_OK or what was non-finite in the last run */
} assembly_term;

struct weft_assembly {
    int n; /* vertices */
    weft_bsr A;
    int nterms;
    assembly_term term[WEFT_MAX_TERMS];
    bool mismatch;      /* the last run was handed a model other than the one at creation */
    int bad, bad_term, bad_elem; /* non-finite elements in the last run, and the first */
};

/* Greedy colouring of a term's batches so that no two batches of one colour share a
 * vertex: each batch, in index order, takes the least colour none of its vertices has
 * yet. Colours are tracked as 64-bit masks per vertex; batches that find all 64 colours
 * of a round taken wait for the next round, which starts 64 fresh colours (they cannot
 * clash with earlier rounds' batches, whose colours differ). Fills T->nbatches,
 * T->ncolours, T->colour_ptr and T->order (stable: ascending within a colour). */
static int colour_term(assembly_term *T, int nverts) {
    int n = T->n, nv = T->nv, nb = (n + BATCH - 1) / BATCH;
    int *colour = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *colour);
    uint64_t *used = malloc((size_t)(nverts > 0 ? nverts : 1) * sizeof *used);
    if (!colour || !used) {
        free(colour), free(used);
        return WEFT_ERR_NOMEM;
    }
    for (int b = 0; b < nb; b++) colour[b] = -1;
    int left = nb, ncolours = 0;
    for (int round = 0; left > 0; round++) {
        memset(used, 0, (size_t)nverts * sizeof *used);
        for (int b = 0; b < nb; b++) {
            if (colour[b] >= 0) continue;
            int end = (b + 1) * BATCH < n ? (b + 1) * BATCH : n;
            uint64_t taken = 0;
            for (int i = b * BATCH; i < end; i++)
                for (int a = 0; a < nv; a++) taken |= used[T->elem[i].v[a]];
            if (taken == UINT64_MAX) continue; /* next round */
            int c = 0;
            while (taken >> c & 1) c++;
            for (int i = b * BATCH; i < end; i++)
                for (int a = 0; a < nv; a++) used[T->elem[i].v[a]] |= (uint64_t)1 << c;
            colour[b] = 64 * round + c;
            if (colour[b] + 1 > ncolours) ncolours = colour[b] + 1;
            left--;
        }
    }
    free(used);
    T->nbatches = nb;
    T->ncolours = ncolours;
    T->colour_ptr = calloc((size_t)ncolours + 1, sizeof *T->colour_ptr);
    T->order = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *T->order);
    int *cursor = malloc((size_t)(ncolours > 0 ? ncolours : 1) * sizeof *cursor);
    if (!T->colour_ptr || !T->order || !cursor) {
        free(colour), free(cursor);
        return WEFT_ERR_NOMEM;
    }
    /* Counting sort by colour, stable. */
    for (int b = 0; b < nb; b++) {
        WEFT_ASSERT(colour[b] >= 0 && colour[b] < ncolours); /* every batch was coloured */
        T->colour_ptr[colour[b] + 1]++;
    }
    for (int c = 0; c < ncolours; c++) T->colour_ptr[c + 1] += T->colour_ptr[c];
    memcpy(cursor, T->colour_ptr, (size_t)ncolours * sizeof *cursor);
    for (int b = 0; b < nb; b++) T->order[cursor[colour[b]]++] = b;
    free(cursor), free(colour);
    return WEFT_OK;
}

static void free_term(assembly_term *T) {
    free(T->colour_ptr), free(T->order), free(T->slot), free(T->psi), free(T->state);
    memset(T, 0, sizeof *T);
}

void weft_assembly_free(weft_assembly **a) {
    if (!a || !*a) return;
    for (int t = 0; t < (*a)->nterms; t++) free_term(&(*a)->term[t]);
    weft_bsr_free(&(*a)->A);
    free(*a);
    *a = NULL;
}

weft_assembly *weft_assembly_create(const weft_model *m, weft_error *err) {
    /* Every term must be assemblable before anything is built. */
    int rc = check_elements(m, err);
    if (rc) return NULL;
    for (int t = 0; t < m->nterms; t++) {
        const weft_energy_type *type = m->terms[t].type;
        bool has_energy = type->energy || type->gradient || type->hessian;
        if (has_energy && !type->hessian) {
            weft_fail(err, WEFT_ERR_INPUT,
                      "term %d (%s) has no Hessian, so it cannot be assembled", t, type->name);
            return NULL;
        }
    }
    weft_assembly *a = calloc(1, sizeof *a);
    if (!a) {
        weft_fail(err, WEFT_ERR_NOMEM, "assembly: out of memory");
        return NULL;
    }
    a->n = m->n;
    a->nterms = m->nterms;
    a->bad_term = a->bad_elem = -1;
    if (weft_bsr_pattern(&a->A, m, err) != WEFT_OK) {
        weft_assembly_free(&a);
        return NULL;
    }
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        assembly_term *T = &a->term[t];
        T->type = term->type;
        T->elem = term->elem;
        T->n = term->n;
        T->nv = term->type->nv;
        T->skip = !term->type->hessian;
        T->mode = -1;
        if (T->skip) continue;
        size_t n = (size_t)(T->n > 0 ? T->n : 1), nv = (size_t)T->nv;
        T->slot = malloc(n * nv * nv * sizeof *T->slot);
        T->psi = calloc(n, sizeof *T->psi);
        T->state = calloc(n, sizeof *T->state);
        if (!T->slot || !T->psi || !T->state || colour_term(T, m->n) != WEFT_OK) {
            weft_fail(err, WEFT_ERR_NOMEM, "assembly of term %d (%s): out of memory", t,
                      term->type->name);
            weft_assembly_free(&a);
            return NULL;
        }
        /* The slot map: every pair is in the pattern by construction. */
        for (int i = 0; i < T->n; i++) {
            const int *v = term->elem[i].v;
            for (int p = 0; p < T->nv; p++)
                for (int q = 0; q < T->nv; q++) {
                    int k = weft_bsr_block(&a->A, v[p], v[q]);
                    WEFT_ASSERT(k >= 0);
                    T->slot[((size_t)i * nv + (size_t)p) * nv + (size_t)q] = k;
                }
        }
    }
    return a;
}

weft_bsr *weft_assembly_matrix(weft_assembly *a) { return &a->A; }

/* True if m still has the vertex count, term types and element arrays a was made for. */
static bool same_model(const weft_assembly *a, const weft_model *m) {
    if (m->n != a->n || m->nterms != a->nterms) return false;
    for (int t = 0; t < m->nterms; t++)
        if (m->terms[t].type != a->term[t].type || m->terms[t].n != a->term[t].n ||
            m->terms[t].elem != a->term[t].elem)
            return false;
    return true;
}

/* Evaluates element i of term T at x and adds its Hessian (symmetrised) to the matrix
 * values and its gradient to grad (if non-NULL). Touches only the blocks and gradient
 * entries of the element's own vertices. */
static void add_element(assembly_term *T, int i, const double *x, weft_hessian_mode mode,
                        double *val, double *grad) {
    int nv = T->nv, nd = 3 * nv;
    const weft_element *e = &T->elem[i];
    double xe[3 * WEFT_ELEM_MAXV], ge[3 * WEFT_ELEM_MAXV];
    double H[9 * WEFT_ELEM_MAXV * WEFT_ELEM_MAXV];
    for (int a = 0; a < nv; a++)
        for (int c = 0; c < 3; c++) xe[3 * a + c] = x[3 * (size_t)e->v[a] + c];
    if (T->mode >= 0) mode = (weft_hessian_mode)T->mode;
    double psi = T->type->hessian(e, xe, mode, grad ? ge : NULL, H);

    /* Non-finite values are recorded, not hidden: the run then returns +INFINITY. */
    bool finite = true;
    for (int r = 0; r < nd * nd; r++) finite = finite && isfinite(H[r]);
    if (grad)
        for (int r = 0; r < nd; r++) finite = finite && isfinite(ge[r]);
    T->psi[i] = psi;
    T->state[i] = !isfinite(psi) ? ELEM_BAD_ENERGY : !finite ? ELEM_BAD_DERIVATIVES : ELEM_OK;

    const int *slot = &T->slot[(size_t)i * (size_t)(nv * nv)];
    for (int a = 0; a < nv; a++)
        for (int b = 0; b < nv; b++) {
            double *B = &val[9 * (size_t)slot[a * nv + b]];
            for (int p = 0; p < 3; p++)
                for (int q = 0; q < 3; q++)
                    B[3 * p + q] += 0.5 * (H[(3 * a + p) * nd + 3 * b + q] +
                                           H[(3 * b + q) * nd + 3 * a + p]);
        }
    if (grad)
        for (int a = 0; a < nv; a++)
            for (int c = 0; c < 3; c++) grad[3 * (size_t)e->v[a] + c] += ge[3 * a + c];
}

double weft_assembly_run(weft_assembly *a, const weft_model *m, const double *x,
                         weft_hessian_mode mode, double *grad, int threads) {
    a->bad = 0, a->bad_term = a->bad_elem = -1;
    a->mismatch = !same_model(a, m);
    if (a->mismatch) return INFINITY;
    if (threads < 1) threads = 1;
    double *val = a->A.val;
    long nval = 9L * a->A.nnzb, ngrad = grad ? 3L * a->n : 0;

    /* One parallel region; each colour's loop ends in the implicit barrier of omp for,
     * so colour c + 1 starts only when colour c is fully added. */
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
#pragma omp for schedule(static)
        for (long r = 0; r < nval; r++) val[r] = 0.0;
#pragma omp for schedule(static)
        for (long r = 0; r < ngrad; r++) grad[r] = 0.0;
        for (int t = 0; t < a->nterms; t++) {
            assembly_term *T = &a->term[t];
            if (T->skip) continue;
            for (int c = 0; c < T->ncolours; c++) {
#pragma omp for schedule(static)
                for (int k = T->colour_ptr[c]; k < T->colour_ptr[c + 1]; k++) {
                    int b = T->order[k], end = (b + 1) * BATCH < T->n ? (b + 1) * BATCH : T->n;
                    for (int i = b * BATCH; i < end; i++) add_element(T, i, x, mode, val, grad);
                }
            }
        }
    }

    /* E and the non-finite scan, serially in term then element order. */
    double E = 0.0;
    for (int t = 0; t < a->nterms; t++) {
        const assembly_term *T = &a->term[t];
        if (T->skip) continue;
        for (int i = 0; i < T->n; i++) {
            E += T->psi[i];
            if (T->state[i] == ELEM_OK) continue;
            if (a->bad++ == 0) a->bad_term = t, a->bad_elem = i;
        }
    }
    return a->bad ? INFINITY : E;
}

void weft_assembly_term_mode(weft_assembly *a, int t, int mode) {
    WEFT_ASSERT(t >= 0 && t < a->nterms);
    a->term[t].mode = mode;
}

int weft_assembly_colouring(const weft_assembly *a, int t, const int **ptr, const int **order,
                            int *batch) {
    *batch = BATCH;
    if (t < 0 || t >= a->nterms || a->term[t].skip) {
        *ptr = *order = NULL;
        return 0;
    }
    *ptr = a->term[t].colour_ptr;
    *order = a->term[t].order;
    return a->term[t].ncolours;
}

int weft_assembly_nonfinite(const weft_assembly *a, int *term, int *elem) {
    if (term) *term = a->bad_term;
    if (elem) *elem = a->bad_elem;
    return a->bad;
}

int weft_assembly_check(const weft_assembly *a, weft_error *err) {
    if (a->mismatch)
        return weft_fail(err, WEFT_ERR_INPUT, "assembly: the model is not the one it was "
                         "created for (%d vertices, %d terms)", a->n, a->nterms);
    if (a->bad == 0) return WEFT_OK;
    const assembly_term *T = &a->term[a->bad_term];
    const weft_element *e = &T->elem[a->bad_elem];
    char verts[64] = "";
    for (int v = 0, len = 0; v < T->nv && len < (int)sizeof verts; v++)
        len += snprintf(verts + len, sizeof verts - (size_t)len, v ? " %d" : "%d", e->v[v]);
    char what[96];
    if (T->state[a->bad_elem] == ELEM_BAD_ENERGY)
        snprintf(what, sizeof what, "energy is %g", T->psi[a->bad_elem]);
    else
        snprintf(what, sizeof what, "gradient or Hessian is not finite (energy %g)",
                 T->psi[a->bad_elem]);
    return weft_fail(err, WEFT_ERR_DIVERGED, "element %d (vertices %s) of term %d (%s): %s; "
                     "%d bad element(s) in all", a->bad_elem, verts, a->bad_term,
                     T->type->name, what, a->bad);
}
