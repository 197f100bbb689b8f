/* precond_sa_amg.c — smoothed-aggregation algebraic multigrid (SA-AMG) as a PPCG
 * preconditioner: Tamstorf, Jones & McCormick 2015, "Smoothed aggregation multigrid for
 * cloth simulation" (ACM TOG 34(6)), on the building blocks of Vaněk, Mandel & Brezina
 * 1996. One V-cycle is M⁻¹ for PPCG on the pre-filtered system
 *     K y = S c,   K = S A S + (I − S)                      (weft_linsolve.h).
 * Levels l = 0 .. L−1: K_0 = K (3 DOFs a vertex), K_{l+1} = P_lᵀ K_l P_l + E_{l+1} (k DOFs a
 * coarse node: 6 rigid modes with positions, 3 translations without; E = identity on
 * coarse DOFs whose tentative column is zero).
 *   1. strength: j ~ i  ⇔  ‖K_ij‖_F ≥ θ √(‖K_ii‖_F ‖K_jj‖_F)         ([sa_amg] strength);
 *   2. aggregation: Vaněk et al.'s three passes in node order (level 0 radius 1 or 2);
 *   3. near-null space B_0: translations and rotations e_m × (x_i − x̄) about the centroid;
 *      B_{l+1} = R_l;
 *   4. tentative T_l: per aggregate S B_a = Q_a R_a (Gram-Schmidt twice), T = diag(Q_a);
 *   5. smoothed P_l = (I − ω/ρ_l D_l⁻¹ K^F_l) T_l, ρ_l ≈ λ_max(D_l⁻¹ K_l) by power
 *      iteration, K^F_l = K_l with weak blocks lumped into the diagonal ([sa_amg] omega);
 *   6. Galerkin products by 3×3 / 6×6 / 3×6 block kernels, symmetrised ½(C_IJ + C_JIᵀ);
 *   7. smoother: symmetric block Gauss-Seidel (or damped block Jacobi) on K̂, K with its
 *      off-diagonal blocks in single precision (constrained rows kept double), so M⁻¹ is
 *      symmetric positive definite ([sa_amg] smoother, sweeps);
 *   8. coarsest level: CHOLMOD's Cholesky factorisation.
 * The tentative prolongator is filtered (T_0 from S B_0), so P_0ᵀ K P_0 = P_0ᵀ A P_0 and
 * M⁻¹ maps range(S) into itself with the constrained DOFs solved exactly by the smoother.
 * Work split: setup (per sparsity pattern) keeps K_0's pattern; the pattern's first update
 * builds the hierarchy once (aggregates from A's unfiltered values on level 0 and from the
 * filtered coarse operators above, patterns, values); later updates (per matrix) refill
 * B_0, T, ρ, P, the coarse matrices, the smoother's blocks and the coarsest factor into
 * those patterns. Apply allocates nothing. The thread count given to create runs the
 * per-matrix loops and CHOLMOD's coarsest calls. Settings: the [sa_amg] section.
 * Derivations, choices and measurements: papers/tamstorf2015-sa-amg.md.
 */
#include "linalg_internal.h"
#include "weft_cholmod.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SA_MAX_LEVELS 20
#define SA_DROP 1e-8     /* relative norm under which a tentative column is dependent */
#define SA_POWER_ITERS 15 /* cold power iterations for ρ (a set-up's first matrix) */
#define SA_POWER_WARM 4   /* warm ones (later matrices, from the last vector) */

/* ------------------------------------------------------------------------------ */
/* Settings                                                                        */
/* ------------------------------------------------------------------------------ */

static const char *const smoother_names[] = {"gauss_seidel", "jacobi", NULL};

#define F(field) offsetof(weft_sa_amg_settings, field)
static const weft_param sa_params[] = {
    {.key = "strength", .type = WEFT_PARAM_DOUBLE, .offset = F(strength), .unit = "1", .lo = 0,
     .hi = 1, .dflt = 0.05,
     .doc = "strength threshold: j is a strong neighbour of i if |K_ij| >= strength "
            "sqrt(|K_ii| |K_jj|) (Frobenius norms of 3x3 / kxk blocks)"},
    {.key = "smoother", .type = WEFT_PARAM_NAME, .offset = F(smoother), .unit = "",
     .names = smoother_names, .dflt_name = "gauss_seidel",
     .doc = "symmetric block Gauss-Seidel (forward before, backward after the coarse "
            "correction) or damped block Jacobi (4/3 / rho)"},
    {.key = "sweeps", .type = WEFT_PARAM_INT, .offset = F(sweeps), .unit = "", .lo = 1, .hi = 20,
     .dflt = 1, .doc = "smoothing sweeps before and after each coarse correction"},
    {.key = "levels", .type = WEFT_PARAM_INT, .offset = F(levels), .unit = "", .lo = 1,
     .hi = SA_MAX_LEVELS, .dflt = 10, .doc = "most levels, the fine one included"},
    {.key = "coarsest", .type = WEFT_PARAM_INT, .offset = F(coarsest), .unit = "", .lo = 1,
     .hi = 1000000, .dflt = 64,
     .doc = "coarsening stops at this many nodes (vertices or aggregates); that level is "
            "factorised by CHOLMOD"},
    {.key = "omega", .type = WEFT_PARAM_DOUBLE, .offset = F(omega), .unit = "1", .lo = 0,
     .hi = 2, .flags = WEFT_PARAM_HI_OPEN, .dflt = 4.0 / 3.0,
     .doc = "prolongator smoothing P = (I - omega/rho D^-1 K) T, rho = lambda_max(D^-1 K); "
            "0 gives unsmoothed aggregation"},
    {.key = "radius", .type = WEFT_PARAM_INT, .offset = F(radius), .unit = "", .lo = 1, .hi = 2,
     .dflt = 1,
     .doc = "level 0's aggregates: a root with its strong neighbours (1) or with those within "
            "two strong edges (2: about 3 times fewer aggregates and sparser coarse levels, "
            "cheaper cycles but more iterations)"},
    {0},
};
#undef F

static const weft_param_table sa_tables[] = {{"sa_amg", sa_params, 0}, {0}};

/* ------------------------------------------------------------------------------ */
/* State                                                                           */
/* ------------------------------------------------------------------------------ */

typedef struct level {
    int nodes, b, ndof;      /* nodes, DOFs a node (3 on level 0, k above), nodes b */
    cholmod_sparse *K;       /* ndof × ndof, both triangles, exactly symmetric (column c is
                                also row c), in full b×b blocks: node i's b columns list
                                the same block rows j in ascending order, b rows each */
    int *bptr;               /* nodes + 1: K's blocks before node i's columns */
    int *bnode;              /* per K block: its node j (block q of node i at bptr[i] + q) */
    int *bdiag;              /* nodes: q of the diagonal block (i, i) in node i's blocks */
    int *lptr;               /* nodes + 1: the smoother's blocks left of the diagonal before
                                node i's (Σ_{m<i} bdiag[m]) */
    float *Lf;               /* the blocks of Kblk left of the diagonal (q < bdiag[i]) in
                                single precision for the smoother, at lptr[i] + q; refreshed
                                per matrix (K̂ is symmetric: its right blocks are these
                                transposed) */
    double *D;               /* b² per node: the diagonal blocks K_ii, double */
    const double *Kblk;      /* K's blocks K_ij row-major, b² each, block q of node i at
                                bptr[i] + q: level 0's filtered blocks (sa_state Kb, A's
                                block order), above the previous level's Cval. Not owned */
    unsigned char *strong;   /* per K block: its node is i itself or a strong neighbour */
    int nagg;                /* aggregates (nodes of level + 1) */
    int *agg;                /* nodes: aggregate of each node (setup) */
    int *agg_ptr, *agg_node; /* members of aggregate a: agg_node[agg_ptr[a] .. agg_ptr[a+1]) */
    int *sptr, *sadj;        /* strong neighbours of node i: sadj[sptr[i] .. sptr[i+1]) */
    /* To level + 1, block rows of b × k blocks (row-major), patterns from setup: */
    double *T;               /* nodes blocks: T's one block of node i (block column agg[i]) */
    int *Pptr, *Pcol;        /* P: block columns of node i, Pcol[Pptr[i] .. Pptr[i+1]) */
    double *Pval;
    int *Ptptr, *Ptnode, *Ptslot; /* Pᵀ: aggregate I's P blocks (node, slot), by node */
    int *KPptr, *KPcol;      /* K P's pattern, as P's (its values are formed a row at a
                                time, never stored whole) */
    int kpmax;               /* the longest row of K P, blocks */
    double *KProw;           /* kpmax blocks: one row of K P */
    int *Cslot;              /* per node i, per P block (i, I), per K P block (i, J ≥ I) in
                                that order: the slot of C_IJ in Cval */
    int *Cptr, *Ccol, *Ctr;  /* P_lᵀ K_l P_l in k × k blocks by block rows, and the index of
                                each block's transpose */
    double *Cval;
    unsigned char *dropped;  /* k nagg: coarse DOFs whose tentative column is zero */
    double *B;               /* ndof × k near-null space, row-major (level ≥ 1) */
    double *Dinv;            /* b² per node: inverse diagonal blocks, row-major */
    double rho;              /* λ_max(D⁻¹ K) estimate */
    double *ev;              /* ndof: the power iteration's last vector (NULL: none yet) */
    double *x, *f, *t;       /* ndof each: iterate, right-hand side, scratch */
} level;

/* What apply changes: CHOLMOD's workspace and the coarsest factorisation. */
typedef struct sa_work {
    cholmod_common cc;
    cholmod_factor *L;
    cholmod_dense *rhs, *X, *Y, *E;
} sa_work;

typedef struct sa_state {
    int n, k;                  /* vertices; near-null vectors (6: rigid modes, 3: shifts) */
    int threads;               /* for the per-matrix loops and CHOLMOD's coarsest calls */
    int nnzb;                  /* A's blocks at the set-up */
    weft_sa_amg_settings set;
    int nlev;                  /* levels, 0 before a setup */
    level lev[SA_MAX_LEVELS];
    int *tr;                   /* A's blocks: index of the transposed block */
    double *Kb;                /* 9 nnzb: filtered blocks of K_0 */
    unsigned char *con;        /* n: the last update's filter has S_i ≠ I (NULL: none) */
    unsigned char *touch;      /* n: some block of row i has a constrained vertex */
    double *x0;                /* 3n: positions at setup (NULL: none) */
    double xc[3];              /* centroid of the positions, m: the rotations' axis point */
    sa_work *w;
} sa_state;

static void level_free(level *lv, cholmod_common *cc) {
    cholmod_free_sparse(&lv->K, cc);
    free(lv->bptr), free(lv->bnode), free(lv->bdiag), free(lv->strong);
    free(lv->agg), free(lv->agg_ptr), free(lv->agg_node), free(lv->sptr), free(lv->sadj);
    free(lv->T), free(lv->Pptr), free(lv->Pcol), free(lv->Pval);
    free(lv->Ptptr), free(lv->Ptnode), free(lv->Ptslot);
    free(lv->KPptr), free(lv->KPcol), free(lv->KProw), free(lv->Cslot);
    free(lv->Cptr), free(lv->Ccol), free(lv->Ctr), free(lv->Cval), free(lv->dropped);
    free(lv->B), free(lv->ev), free(lv->lptr), free(lv->Lf), free(lv->D), free(lv->Dinv), free(lv->x), free(lv->f), free(lv->t);
    memset(lv, 0, sizeof *lv);
}

static void hierarchy_free(sa_state *st) {
    for (int l = 0; l < SA_MAX_LEVELS; l++) level_free(&st->lev[l], &st->w->cc);
    cholmod_free_factor(&st->w->L, &st->w->cc);
    cholmod_free_dense(&st->w->rhs, &st->w->cc);
    cholmod_free_dense(&st->w->X, &st->w->cc);
    cholmod_free_dense(&st->w->Y, &st->w->cc);
    cholmod_free_dense(&st->w->E, &st->w->cc);
    free(st->tr), free(st->Kb), free(st->x0), free(st->con), free(st->touch);
    st->tr = NULL, st->Kb = NULL, st->x0 = NULL, st->con = NULL, st->touch = NULL;
    st->nlev = 0;
}

static void sa_destroy(void *state) {
    sa_state *st = state;
    if (!st) return;
    if (st->w) {
        hierarchy_free(st);
        cholmod_finish(&st->w->cc);
        free(st->w);
    }
    free(st);
}

static void *sa_create(int n, const void *settings, int threads, weft_error *err) {
    sa_state *st = calloc(1, sizeof *st);
    if (st) st->w = calloc(1, sizeof *st->w);
    if (!st || !st->w) {
        free(st);
        weft_fail(err, WEFT_ERR_NOMEM, "sa_amg preconditioner: out of memory");
        return NULL;
    }
    if (settings)
        st->set = *(const weft_sa_amg_settings *)settings;
    else
        weft_settings_default(sa_tables, &st->set);
    st->n = n, st->threads = threads > 0 ? threads : 1;
    cholmod_start(&st->w->cc);
    st->w->cc.print = 0;
    return st;
}

/* ------------------------------------------------------------------------------ */
/* Small dense helpers                                                             */
/* ------------------------------------------------------------------------------ */

/* inv = M⁻¹ for a symmetric b×b M (b ≤ 6) by Cholesky; false unless M is positive
 * definite. */
static bool inv_spd(const double *M, int b, double *inv) {
    double L[36], Li[36];
    for (int i = 0; i < b; i++)
        for (int j = 0; j <= i; j++) {
            double s = M[b * i + j];
            for (int q = 0; q < j; q++) s -= L[b * i + q] * L[b * j + q];
            if (i == j) {
                if (!(s > 0.0) || !isfinite(s)) return false;
                L[b * i + i] = sqrt(s);
            } else {
                L[b * i + j] = s / L[b * j + j];
            }
        }
    /* Li = L⁻¹ (lower), then M⁻¹ = Liᵀ Li. */
    for (int j = 0; j < b; j++)
        for (int i = 0; i < b; i++) {
            if (i < j) {
                Li[b * i + j] = 0.0;
                continue;
            }
            double s = i == j ? 1.0 : 0.0;
            for (int q = j; q < i; q++) s -= L[b * i + q] * Li[b * q + j];
            Li[b * i + j] = s / L[b * i + i];
        }
    for (int i = 0; i < b; i++)
        for (int j = 0; j < b; j++) {
            double s = 0.0;
            for (int q = 0; q < b; q++) s += Li[b * q + i] * Li[b * q + j];
            inv[b * i + j] = s;
        }
    return true;
}

/* y = K x on a level with block pattern (bptr, bnode): row i of K is column group i, and
 * K_ij[a][c] = entry q b + c of column i b + a for K's block q = (i, j). */
static void level_mv(const struct level *lv, const double *x, double *y);

/* ------------------------------------------------------------------------------ */
/* Level 0: K = S A S + (I − S) in CHOLMOD form                                     */
/* ------------------------------------------------------------------------------ */

/* K_0's pattern (A's, both triangles, 3×3 blocks full) and the transposed-block map. */
static int fine_pattern(sa_state *st, const weft_bsr *A, weft_error *err) {
    cholmod_common *cc = &st->w->cc;
    size_t n3 = 3 * (size_t)A->n, nnz = 9 * (size_t)A->nnzb;
    st->tr = malloc(((size_t)A->nnzb + 1) * sizeof *st->tr);
    st->Kb = malloc((nnz + 1) * sizeof *st->Kb);
    level *lv = &st->lev[0];
    lv->K = cholmod_allocate_sparse(n3, n3, nnz, 1, 1, 0, CHOLMOD_REAL, cc);
    if (!st->tr || !st->Kb || !lv->K)
        return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory for %d vertices", A->n);
    int *Kp = lv->K->p, *Ki = lv->K->i, p = 0;
    for (int j = 0; j < A->n; j++) {
        for (int k = A->row_ptr[j]; k < A->row_ptr[j + 1]; k++) {
            st->tr[k] = weft_bsr_block(A, A->col[k], j);
            if (st->tr[k] < 0)
                return weft_fail(err, WEFT_ERR_INPUT, "sa_amg: A's pattern is not symmetric "
                                 "(block %d %d)", j, A->col[k]);
        }
        for (int b = 0; b < 3; b++) {
            Kp[3 * j + b] = p;
            for (int k = A->row_ptr[j]; k < A->row_ptr[j + 1]; k++)
                for (int a = 0; a < 3; a++) Ki[p++] = 3 * A->col[k] + a;
        }
    }
    Kp[n3] = p;
    lv->nodes = A->n, lv->b = 3, lv->ndof = (int)n3;
    lv->Kblk = st->Kb;
    st->nnzb = A->nnzb;
    return WEFT_OK;
}

/* K_0's values from A and the filter (NULL: S = I). Blocks (j, i) with i ≥ j are
 * S_j A_ji S_i (+ I − S_j on the diagonal, symmetrised); those below are their exact
 * transposes, so K_0 is exactly symmetric. */
static void fine_values(sa_state *st, const weft_bsr *A, const weft_filter *f) {
#pragma omp parallel for num_threads(st->threads) schedule(static) if (st->threads > 1)
    for (int j = 0; j < A->n; j++)
        for (int k = A->row_ptr[j]; k < A->row_ptr[j + 1]; k++) {
            int i = A->col[k];
            double *B = &st->Kb[9 * (size_t)k];
            if (i < j) continue;
            if (!f || (f->ndof[i] == 0 && f->ndof[j] == 0)) { /* S_i = S_j = I */
                memcpy(B, &A->val[9 * (size_t)k], 9 * sizeof *B);
            } else if (i == j) {
                weft_filtered_diagonal(A, f, j, B);
            } else {
                double t[9];
                weft_mul33(&f->S[9 * (size_t)j], &A->val[9 * (size_t)k], t);
                weft_mul33(t, &f->S[9 * (size_t)i], B);
            }
        }
#pragma omp parallel for num_threads(st->threads) schedule(static) if (st->threads > 1)
    for (int j = 0; j < A->n; j++)
        for (int k = A->row_ptr[j]; k < A->diag[j]; k++) {
            const double *U = &st->Kb[9 * (size_t)st->tr[k]];
            double *B = &st->Kb[9 * (size_t)k];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) B[3 * a + b] = U[3 * b + a];
        }
    /* Column 3j + b, row 3i + a: K(3i+a, 3j+b) = block (j, i) entry (b, a). Only while
     * the CHOLMOD form exists: at set-up, or when level 0 is the coarsest. */
    if (!st->lev[0].K) return;
    double *Kx = st->lev[0].K->x;
    size_t p = 0;
    for (int j = 0; j < A->n; j++)
        for (int b = 0; b < 3; b++)
            for (int k = A->row_ptr[j]; k < A->row_ptr[j + 1]; k++)
                for (int a = 0; a < 3; a++) Kx[p++] = st->Kb[9 * (size_t)k + 3 * b + a];
}

/* ------------------------------------------------------------------------------ */
/* Setup: strength of connection and aggregation                                   */
/* ------------------------------------------------------------------------------ */

/* Aggregates of level l from K_l's values (strength θ). */
static int aggregate(sa_state *st, int l, weft_error *err) {
    level *lv = &st->lev[l];
    const cholmod_sparse *K = lv->K;
    const int *Kp = K->p, *Ki = K->i, b = lv->b, nn = lv->nodes;
    const double *Kx = K->x, th2 = st->set.strength * st->set.strength;
    double *dn = calloc((size_t)nn + 1, sizeof *dn), *acc = calloc((size_t)nn + 1, sizeof *acc);
    int *touched = malloc(((size_t)nn + 1) * sizeof *touched);
    int *sptr = calloc((size_t)nn + 2, sizeof *sptr);
    size_t cap = 8 * (size_t)nn + 8, used = 0;
    int *sadj = malloc(cap * sizeof *sadj);
    double *sw = malloc(cap * sizeof *sw);
    lv->agg = malloc(((size_t)nn + 1) * sizeof *lv->agg);
    int rc = WEFT_ERR_NOMEM;
    if (!dn || !acc || !touched || !sptr || !sadj || !sw || !lv->agg) goto done;
    /* Diagonal block norms. */
    for (int c = 0; c < lv->ndof; c++)
        for (int p = Kp[c]; p < Kp[c + 1]; p++)
            if (Ki[p] / b == c / b) dn[c / b] += Kx[p] * Kx[p];
    for (int i = 0; i < nn; i++) dn[i] = sqrt(dn[i]);
    /* Strong neighbours (CSR sptr/sadj, with the measure ‖K_ij‖²/(‖K_ii‖‖K_jj‖) in sw). */
    for (int i = 0; i < nn; i++) {
        int nt = 0;
        for (int c = i * b; c < (i + 1) * b; c++)
            for (int p = Kp[c]; p < Kp[c + 1]; p++) {
                int j = Ki[p] / b;
                if (j == i) continue;
                if (acc[j] == 0.0 && Kx[p] != 0.0) touched[nt++] = j;
                acc[j] += Kx[p] * Kx[p];
            }
        for (int t = 0; t < nt; t++) {
            int j = touched[t];
            double s = dn[i] * dn[j];
            if (acc[j] > 0.0 && acc[j] >= th2 * s) {
                if (used == cap) {
                    cap *= 2;
                    int *na = realloc(sadj, cap * sizeof *sadj);
                    if (na) sadj = na;
                    double *nw = na ? realloc(sw, cap * sizeof *sw) : NULL;
                    if (nw) sw = nw;
                    if (!na || !nw) goto done;
                }
                sadj[used] = j;
                sw[used++] = s > 0.0 ? acc[j] / s : acc[j];
            }
            acc[j] = 0.0;
        }
        sptr[i + 1] = (int)used;
    }
    /* Pass 1: roots whose strong neighbourhood is untouched. */
    int *agg = lv->agg, na = 0;
    for (int i = 0; i < nn; i++) agg[i] = -1;
    const int radius = l == 0 ? st->set.radius : 1;
    for (int i = 0; i < nn; i++) {
        if (agg[i] >= 0 || sptr[i + 1] == sptr[i]) continue;
        bool free_nb = true;
        for (int q = sptr[i]; q < sptr[i + 1] && free_nb; q++) {
            int j = sadj[q];
            free_nb = agg[j] < 0;
            for (int u = sptr[j]; radius > 1 && u < sptr[j + 1] && free_nb; u++)
                free_nb = agg[sadj[u]] < 0 || sadj[u] == i;
        }
        if (!free_nb) continue;
        agg[i] = na;
        for (int q = sptr[i]; q < sptr[i + 1]; q++) {
            int j = sadj[q];
            agg[j] = na;
            for (int u = sptr[j]; radius > 1 && u < sptr[j + 1]; u++) agg[sadj[u]] = na;
        }
        na++;
    }
    /* Pass 2: join the aggregate of the strongest aggregated neighbour (marked with
     * -2 - a meanwhile, so a pass-2 node does not become a host itself). */
    for (int i = 0; i < nn; i++) {
        if (agg[i] != -1) continue;
        int best = -1;
        double bw = -1.0;
        for (int q = sptr[i]; q < sptr[i + 1]; q++)
            if (agg[sadj[q]] >= 0 && sw[q] > bw) best = agg[sadj[q]], bw = sw[q];
        if (best >= 0) agg[i] = -2 - best;
    }
    for (int i = 0; i < nn; i++)
        if (agg[i] <= -2) agg[i] = -2 - agg[i];
    /* Pass 3: what is left, with its free strong neighbours or alone. */
    for (int i = 0; i < nn; i++) {
        if (agg[i] >= 0) continue;
        agg[i] = na;
        for (int q = sptr[i]; q < sptr[i + 1]; q++)
            if (agg[sadj[q]] < 0) agg[sadj[q]] = na;
        na++;
    }
    /* Member lists, ascending node order within each aggregate. */
    lv->nagg = na;
    lv->agg_ptr = calloc((size_t)na + 1, sizeof *lv->agg_ptr);
    lv->agg_node = malloc(((size_t)nn + 1) * sizeof *lv->agg_node);
    if (!lv->agg_ptr || !lv->agg_node) goto done;
    for (int i = 0; i < nn; i++) lv->agg_ptr[agg[i] + 1]++;
    for (int a = 0; a < na; a++) lv->agg_ptr[a + 1] += lv->agg_ptr[a];
    for (int i = 0; i < nn; i++) lv->agg_node[lv->agg_ptr[agg[i]]++] = i;
    for (int a = na; a > 0; a--) lv->agg_ptr[a] = lv->agg_ptr[a - 1];
    lv->agg_ptr[0] = 0;
    rc = WEFT_OK;
done:
    if (rc == WEFT_OK) lv->sptr = sptr, lv->sadj = sadj, sptr = NULL, sadj = NULL;
    free(dn), free(acc), free(touched), free(sptr), free(sadj), free(sw);
    if (rc) weft_fail(err, rc, "sa_amg: out of memory aggregating level %d", l);
    return rc;
}

/* ------------------------------------------------------------------------------ */
/* Update: prolongators and coarse operators                                       */
/* ------------------------------------------------------------------------------ */

/* A level's work vectors (once per set-up). */
static int level_work(level *lv, weft_error *err) {
    size_t m = (size_t)lv->ndof + 1;
    if (!lv->x) lv->x = malloc(m * sizeof *lv->x);
    if (!lv->f) lv->f = malloc(m * sizeof *lv->f);
    if (!lv->t) lv->t = malloc(m * sizeof *lv->t);
    if (!lv->x || !lv->f || !lv->t) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
    return WEFT_OK;
}

/* D⁻¹ of level l's diagonal blocks (into Dinv); fails naming the node if a block is not
 * positive definite. */
static int level_diagonal(sa_state *st, int l, weft_error *err) {
    level *lv = &st->lev[l];
    const int b = lv->b, *Kp = lv->K ? lv->K->p : NULL, *Ki = lv->K ? lv->K->i : NULL;
    const double *Kx = lv->K ? lv->K->x : NULL;
    size_t bb = (size_t)b * b;
    if (!lv->Dinv) lv->Dinv = malloc(bb * ((size_t)lv->nodes + 1) * sizeof *lv->Dinv);
    if (!lv->Dinv) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
    for (int i = 0; i < lv->nodes; i++) {
        double M[36] = {0};
        if (lv->bnode) { /* the block pattern is known: block (i, i) of the row-major blocks */
            memcpy(M, &lv->Kblk[bb * ((size_t)lv->bptr[i] + lv->bdiag[i])], bb * sizeof *M);
        } else {
            for (int c = 0; c < b; c++)
                for (int p = Kp[i * b + c]; p < Kp[i * b + c + 1]; p++)
                    if (Ki[p] / b == i) M[b * (Ki[p] - i * b) + c] = Kx[p];
        }
        if (!inv_spd(M, b, &lv->Dinv[bb * (size_t)i])) {
            if (l == 0)
                return weft_fail(err, WEFT_ERR_INDEFINITE, "ppcg: sa_amg preconditioner: "
                                 "filtered diagonal block of vertex %d is not positive "
                                 "definite", i);
            return weft_fail(err, WEFT_ERR_INDEFINITE, "ppcg: sa_amg preconditioner: "
                             "diagonal block of node %d on level %d is not positive definite", i, l);
        }
    }
    return WEFT_OK;
}

/* y = D⁻¹ x blockwise on level lv. */
static void dinv_mv(const level *lv, const double *x, double *y) {
    const int b = lv->b;
    for (int i = 0; i < lv->nodes; i++) {
        const double *M = &lv->Dinv[(size_t)b * b * i], *xi = &x[(size_t)b * i];
        for (int a = 0; a < b; a++) {
            double s = 0.0;
            for (int c = 0; c < b; c++) s += M[b * a + c] * xi[c];
            y[(size_t)b * i + a] = s;
        }
    }
}

/* ρ(D⁻¹K) of level l by power iteration: SA_POWER_ITERS + SA_POWER_WARM steps from a
 * fixed pseudo-random start on a set-up's first matrix (what a cold start and one warm
 * refresh gave when the set-up built the hierarchy once more), then SA_POWER_WARM steps
 * from the last vector of the
 * previous matrix (kept in lv->ev): successive matrices of one pattern (Newton iterations,
 * time steps) have close top eigenvectors, and the 15 cold steps were a third of the
 * update. */
static int level_rho(sa_state *st, int l, weft_error *err) {
    level *lv = &st->lev[l];
    double *v = lv->ev, *w = lv->t;
    int iters = SA_POWER_WARM;
    if (!v) {
        if (!(v = lv->ev = malloc(((size_t)lv->ndof + 1) * sizeof *v)))
            return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
        uint64_t s = 0x9E3779B97F4A7C15ull;
        for (int c = 0; c < lv->ndof; c++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            v[c] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
        }
        iters = SA_POWER_ITERS + SA_POWER_WARM;
    }
    double lam = 0.0;
    for (int it = 0; it < iters; it++) {
        double nv = 0.0;
        for (int c = 0; c < lv->ndof; c++) nv += v[c] * v[c];
        nv = sqrt(nv);
        if (!(nv > 0.0)) break;
        for (int c = 0; c < lv->ndof; c++) v[c] /= nv;
        level_mv(lv, v, w);
        dinv_mv(lv, w, v);
        double nw = 0.0;
        for (int c = 0; c < lv->ndof; c++) nw += v[c] * v[c];
        lam = sqrt(nw);
    }
    if (!(lam > 0.0) || !isfinite(lam)) { /* restart cold next time */
        free(lv->ev), lv->ev = NULL;
        lam = 1.0;
    }
    lv->rho = lam;
    return WEFT_OK;
}

/* Tentative prolongator T_l (ndof_l × k nagg_l) and B_{l+1} (= R), from B_l (level 0:
 * the rigid modes at positions x, or the translations when k = 3) and, on level 0, the
 * filter f (NULL: none). dropped[c] marks coarse DOFs whose column is zero. */
static int tentative(sa_state *st, int l, const weft_filter *f, const double *x,
                     weft_error *err) {
    level *lv = &st->lev[l], *nx = &st->lev[l + 1];
    const int b = lv->b, k = st->k;
    unsigned char *dropped = lv->dropped;
    if (!nx->B) nx->B = malloc((size_t)k * k * lv->nagg * sizeof *nx->B);
    int maxm = 0;
    for (int a = 0; a < lv->nagg; a++)
        if (lv->agg_ptr[a + 1] - lv->agg_ptr[a] > maxm) maxm = lv->agg_ptr[a + 1] - lv->agg_ptr[a];
    double *M = malloc((size_t)b * maxm * k * sizeof *M + 1);
    if (!nx->B || !M) {
        free(M);
        return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory for level %d", l);
    }
    for (int a = 0; a < lv->nagg; a++) {
        const int *mem = &lv->agg_node[lv->agg_ptr[a]];
        int nm = lv->agg_ptr[a + 1] - lv->agg_ptr[a], m = b * nm;
        /* M (m × k, column-major: column c at M + c m) = the rows of S B on a. */
        if (l == 0) {
            for (int q = 0; q < nm; q++) {
                int i = mem[q];
                double d[3] = {0, 0, 0};
                if (x)
                    for (int e = 0; e < 3; e++) d[e] = x[3 * (size_t)i + e] - st->xc[e];
                /* Columns: e_1, e_2, e_3, e_1 × d, e_2 × d, e_3 × d (rows 3q .. 3q + 2). */
                double cols[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1},
                                     {0, -d[2], d[1]}, {d[2], 0, -d[0]}, {-d[1], d[0], 0}};
                for (int c = 0; c < k; c++) {
                    double v[3] = {cols[c][0], cols[c][1], cols[c][2]};
                    if (f) {
                        const double *S = &f->S[9 * (size_t)i];
                        for (int e = 0; e < 3; e++)
                            v[e] = S[3 * e] * cols[c][0] + S[3 * e + 1] * cols[c][1] +
                                   S[3 * e + 2] * cols[c][2];
                    }
                    for (int e = 0; e < 3; e++) M[(size_t)c * m + 3 * q + e] = v[e];
                }
            }
        } else {
            for (int q = 0; q < nm; q++)
                for (int e = 0; e < b; e++)
                    for (int c = 0; c < k; c++)
                        M[(size_t)c * m + (size_t)b * q + e] =
                            lv->B[((size_t)b * mem[q] + e) * k + c];
        }
        /* Modified Gram-Schmidt, twice: M = Q R, dependent columns zeroed. */
        double *R = &nx->B[(size_t)k * k * a]; /* row-major k × k: coarse DOF rows */
        memset(R, 0, (size_t)k * k * sizeof *R);
        for (int c = 0; c < k; c++) {
            double *v = &M[(size_t)c * m], n0 = 0.0;
            for (int r = 0; r < m; r++) n0 += v[r] * v[r];
            n0 = sqrt(n0);
            for (int pass = 0; pass < 2; pass++)
                for (int d = 0; d < c; d++) {
                    if (dropped[a * k + d]) continue;
                    const double *qd = &M[(size_t)d * m];
                    double h = 0.0;
                    for (int r = 0; r < m; r++) h += qd[r] * v[r];
                    for (int r = 0; r < m; r++) v[r] -= h * qd[r];
                    R[k * d + c] += h;
                }
            double nr = 0.0;
            for (int r = 0; r < m; r++) nr += v[r] * v[r];
            nr = sqrt(nr);
            if (n0 > 0.0 && nr > SA_DROP * n0) {
                for (int r = 0; r < m; r++) v[r] /= nr;
                R[k * c + c] = nr;
                dropped[a * k + c] = 0;
            } else {
                for (int r = 0; r < m; r++) v[r] = 0.0;
                dropped[a * k + c] = 1;
            }
        }
        for (int c = 0; c < k; c++)
            if (dropped[a * k + c])
                for (int d = 0; d < k; d++) R[k * c + d] = 0.0;
        for (int q = 0; q < nm; q++)
            for (int e = 0; e < b; e++)
                for (int c = 0; c < k; c++)
                    lv->T[((size_t)mem[q] * b + e) * k + c] = M[(size_t)c * m + (size_t)b * q + e];
    }
    free(M);
    return WEFT_OK;
}

/* Sorts a[0 .. n) ascending (short lists: insertion sort). */
static void sort_ints(int *a, int n) {
    for (int i = 1; i < n; i++) {
        int v = a[i], j = i;
        while (j > 0 && a[j - 1] > v) a[j] = a[j - 1], j--;
        a[j] = v;
    }
}

/* Node j of block q in node i's columns of K (full-block layout). */
static inline int block_node(const level *lv, int i, int q) { return lv->bnode[lv->bptr[i] + q]; }

/* The union pattern of rows: row r holds the sorted distinct values of
 * src_col[src_ptr[s] .. src_ptr[s+1]) over the sources s = each(r, t) (t < count(r)).
 * Two passes (count, fill) with a marker over `width` values. */
typedef int (*count_fn)(const level *lv, int r);
typedef int (*each_fn)(const level *lv, int r, int t);
static int union_pattern(const level *lv, int rows, int width, count_fn count, each_fn each,
                         const int *src_ptr, const int *src_col, int **ptr_out, int **col_out) {
    int *mark = malloc(((size_t)width + 1) * sizeof *mark);
    int *ptr = calloc((size_t)rows + 1, sizeof *ptr), *col = NULL;
    if (!mark || !ptr) goto fail;
    for (int pass = 0; pass < 2; pass++) {
        for (int v = 0; v < width; v++) mark[v] = -1;
        for (int r = 0; r < rows; r++) {
            int len = 0, *out = pass ? &col[ptr[r]] : NULL;
            for (int t = 0; t < count(lv, r); t++) {
                int s = each(lv, r, t);
                for (int u = src_ptr[s]; u < src_ptr[s + 1]; u++)
                    if (mark[src_col[u]] != r) {
                        mark[src_col[u]] = r;
                        if (out) out[len] = src_col[u];
                        len++;
                    }
            }
            if (out)
                sort_ints(out, len);
            else
                ptr[r + 1] = len;
        }
        if (pass == 0) {
            for (int r = 0; r < rows; r++) ptr[r + 1] += ptr[r];
            if (!(col = malloc(((size_t)ptr[rows] + 1) * sizeof *col))) goto fail;
        }
    }
    free(mark);
    *ptr_out = ptr, *col_out = col;
    return WEFT_OK;
fail:
    free(mark), free(ptr), free(col);
    return WEFT_ERR_NOMEM;
}

/* Sources of P's pattern: row i is the union of {agg[j]} over i's strong blocks; here as
 * single-entry sources (node j's aggregate, through agg_src below). */
static int count_blocks(const level *lv, int i) { return lv->bptr[i + 1] - lv->bptr[i]; }
static int each_strong_node(const level *lv, int i, int q) {
    return lv->strong[lv->bptr[i] + q] ? block_node(lv, i, q) : lv->nodes; /* nodes: empty */
}
static int each_node(const level *lv, int i, int q) { return block_node(lv, i, q); }
static int count_pt(const level *lv, int I) { return lv->Ptptr[I + 1] - lv->Ptptr[I]; }
static int each_pt(const level *lv, int I, int t) { return lv->Ptnode[lv->Ptptr[I] + t]; }

/* Level l's patterns for the Galerkin product, once per set-up: K's block offsets and
 * strong flags, P (self and strong neighbours' aggregates), Pᵀ, K P, Pᵀ K P with the
 * transposes of its blocks, and level l + 1's K in CHOLMOD form (pattern only). */
static int symbolic(sa_state *st, int l, weft_error *err) {
    level *lv = &st->lev[l], *nx = &st->lev[l + 1];
    const int b = lv->b, k = st->k, nn = lv->nodes, na = lv->nagg;
    const int *Kp = lv->K->p;
    int *mark = malloc(((size_t)nn + 1) * sizeof *mark);
    int *src_ptr = malloc(((size_t)nn + 2) * sizeof *src_ptr);
    lv->bptr = malloc(((size_t)nn + 1) * sizeof *lv->bptr);
    if (!mark || !src_ptr || !lv->bptr) goto nomem;
    lv->bptr[0] = 0;
    for (int i = 0; i < nn; i++) lv->bptr[i + 1] = lv->bptr[i] + (Kp[i * b + 1] - Kp[i * b]) / b;
    lv->strong = malloc((size_t)lv->bptr[nn] + 1);
    lv->bnode = malloc(((size_t)lv->bptr[nn] + 1) * sizeof *lv->bnode);
    lv->bdiag = malloc(((size_t)nn + 1) * sizeof *lv->bdiag);
    if (!lv->strong || !lv->bnode || !lv->bdiag) goto nomem;
    for (int i = 0; i < nn; i++) {
        lv->bdiag[i] = -1;
        for (int q = 0; q < lv->bptr[i + 1] - lv->bptr[i]; q++) {
            lv->bnode[lv->bptr[i] + q] = ((const int *)lv->K->i)[Kp[i * b] + q * b] / b;
            if (lv->bnode[lv->bptr[i] + q] == i) lv->bdiag[i] = q;
        }
        if (lv->bdiag[i] < 0) goto nomem; /* K's pattern always holds its diagonal */
    }
    for (int i = 0; i < nn; i++) mark[i] = -1;
    for (int i = 0; i < nn; i++) {
        mark[i] = i;
        for (int t = lv->sptr[i]; t < lv->sptr[i + 1]; t++) mark[lv->sadj[t]] = i;
        for (int q = 0; q < count_blocks(lv, i); q++)
            lv->strong[lv->bptr[i] + q] = mark[block_node(lv, i, q)] == i;
    }
    /* P: node j contributes its aggregate (source j = the one value agg[j]); source nn is
     * empty. */
    for (int j = 0; j <= nn; j++) src_ptr[j] = j < nn ? j : nn;
    src_ptr[nn + 1] = nn;
    if (union_pattern(lv, nn, na, count_blocks, each_strong_node, src_ptr, lv->agg, &lv->Pptr,
                      &lv->Pcol))
        goto nomem;
    /* Pᵀ: aggregate I's blocks (node i, slot s), by ascending node. */
    int np = lv->Pptr[nn];
    lv->Ptptr = calloc((size_t)na + 1, sizeof *lv->Ptptr);
    lv->Ptnode = malloc(((size_t)np + 1) * sizeof *lv->Ptnode);
    lv->Ptslot = malloc(((size_t)np + 1) * sizeof *lv->Ptslot);
    if (!lv->Ptptr || !lv->Ptnode || !lv->Ptslot) goto nomem;
    for (int s = 0; s < np; s++) lv->Ptptr[lv->Pcol[s] + 1]++;
    for (int I = 0; I < na; I++) lv->Ptptr[I + 1] += lv->Ptptr[I];
    for (int i = 0; i < nn; i++)
        for (int s = lv->Pptr[i]; s < lv->Pptr[i + 1]; s++) {
            int t = lv->Ptptr[lv->Pcol[s]]++;
            lv->Ptnode[t] = i, lv->Ptslot[t] = s;
        }
    for (int I = na; I > 0; I--) lv->Ptptr[I] = lv->Ptptr[I - 1];
    lv->Ptptr[0] = 0;
    /* K P: row i is the union of P's rows j over K's blocks (i, j). */
    if (union_pattern(lv, nn, na, count_blocks, each_node, lv->Pptr, lv->Pcol, &lv->KPptr,
                      &lv->KPcol))
        goto nomem;
    /* Pᵀ K P: row I is the union of K P's rows i over Pᵀ's row I. */
    if (union_pattern(lv, na, na, count_pt, each_pt, lv->KPptr, lv->KPcol, &lv->Cptr, &lv->Ccol))
        goto nomem;
    int nc = lv->Cptr[na];
    size_t bk = (size_t)b * k, kk = (size_t)k * k;
    lv->Ctr = malloc(((size_t)nc + 1) * sizeof *lv->Ctr);
    lv->Pval = malloc(((size_t)np * bk + 1) * sizeof *lv->Pval);
    lv->kpmax = 0;
    size_t ncs = 0;
    for (int i = 0; i < nn; i++) {
        int u0 = lv->KPptr[i], u1 = lv->KPptr[i + 1];
        if (u1 - u0 > lv->kpmax) lv->kpmax = u1 - u0;
        for (int s = lv->Pptr[i]; s < lv->Pptr[i + 1]; s++)
            for (int u = u0; u < u1; u++) ncs += lv->KPcol[u] >= lv->Pcol[s];
    }
    lv->KProw = malloc(((size_t)lv->kpmax * bk + 1) * sizeof *lv->KProw);
    lv->Cslot = malloc((ncs + 1) * sizeof *lv->Cslot);
    lv->Cval = malloc(((size_t)nc * kk + 1) * sizeof *lv->Cval);
    lv->T = malloc(((size_t)nn * bk + 1) * sizeof *lv->T);
    lv->dropped = calloc((size_t)na * k + 1, 1);
    if (!lv->Ctr || !lv->Pval || !lv->KProw || !lv->Cslot || !lv->Cval || !lv->T ||
        !lv->dropped)
        goto nomem;
    /* Cslot: C row I's slot of J (C's rows are sorted: binary search). */
    ncs = 0;
    for (int i = 0; i < nn; i++)
        for (int s = lv->Pptr[i]; s < lv->Pptr[i + 1]; s++) {
            const int I = lv->Pcol[s];
            for (int u = lv->KPptr[i]; u < lv->KPptr[i + 1]; u++) {
                const int J = lv->KPcol[u];
                if (J < I) continue;
                int lo = lv->Cptr[I], hi = lv->Cptr[I + 1] - 1;
                while (lo < hi) {
                    int mid = (lo + hi) / 2;
                    if (lv->Ccol[mid] < J) lo = mid + 1; else hi = mid;
                }
                lv->Cslot[ncs++] = lo;
            }
        }
    for (int I = 0; I < na; I++)
        for (int v = lv->Cptr[I]; v < lv->Cptr[I + 1]; v++) {
            int J = lv->Ccol[v], lo = lv->Cptr[J], hi = lv->Cptr[J + 1] - 1;
            while (lo < hi) { /* the pattern is symmetric: I is in row J */
                int mid = (lo + hi) / 2;
                if (lv->Ccol[mid] < I) lo = mid + 1; else hi = mid;
            }
            lv->Ctr[v] = lo;
        }
    /* Level l + 1's K: node I's k columns list the blocks J of row I, k rows each. */
    nx->K = cholmod_allocate_sparse((size_t)na * k, (size_t)na * k, (size_t)nc * kk, 1, 1, 0,
                                    CHOLMOD_REAL, &st->w->cc);
    if (!nx->K) goto nomem;
    int *Cp = nx->K->p, *Ci = nx->K->i, p = 0;
    for (int I = 0; I < na; I++)
        for (int c = 0; c < k; c++) {
            Cp[I * k + c] = p;
            for (int v = lv->Cptr[I]; v < lv->Cptr[I + 1]; v++)
                for (int a = 0; a < k; a++) Ci[p++] = lv->Ccol[v] * k + a;
        }
    Cp[na * k] = p;
    nx->nodes = na, nx->b = k, nx->ndof = na * k;
    nx->Kblk = lv->Cval;
    free(mark), free(src_ptr);
    return WEFT_OK;
nomem:
    free(mark), free(src_ptr);
    return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory for the patterns of level %d", l);
}

/* C (r × c) += A (r × m) B (m × c), row-major; C overlaps neither A nor B (restrict: the
 * compiler keeps C in registers, which halved the Galerkin product's time). */
static inline __attribute__((always_inline)) void
gemm_acc(const double *restrict A, const double *restrict B, double *restrict C, int r, int m,
         int c) {
    for (int i = 0; i < r; i++)
        for (int q = 0; q < m; q++) {
            double a = A[i * m + q];
            for (int j = 0; j < c; j++) C[i * c + j] += a * B[q * c + j];
        }
}

/* C (r × c) += Aᵀ B for A (m × r), B (m × c), row-major; C overlaps neither. */
static inline __attribute__((always_inline)) void
gemm_tn_acc(const double *restrict A, const double *restrict B, double *restrict C, int r,
            int m, int c) {
    for (int q = 0; q < m; q++)
        for (int i = 0; i < r; i++) {
            double a = A[q * r + i];
            for (int j = 0; j < c; j++) C[i * c + j] += a * B[q * c + j];
        }
}

/* Block K_ij (b × b, row-major) of level lv: block q (node j) of node i's row. */
static inline __attribute__((always_inline)) void
block_of_b(const level *lv, int i, int q, double *Kij, const int b) {
    memcpy(Kij, &lv->Kblk[((size_t)lv->bptr[i] + q) * b * b], (size_t)b * b * sizeof *Kij);
}

/* The numeric Galerkin product of build_next for constant b × k blocks (the compiler
 * unrolls the block kernels): P = (I − w D⁻¹ K^F) T, K P, C = Pᵀ K P (unsymmetrised), pos
 * a scratch map of nagg ints. */
static inline __attribute__((always_inline)) void
galerkin_bk(level *lv, double w, int *pos, const int b, const int k) {
    const int nn = lv->nodes, na = lv->nagg;
    const size_t bk = (size_t)b * k, kk = (size_t)k * k;
    /* P_iJ = δ(J, agg i) T_i − ω/ρ D_i⁻¹ Σ_{j strong or i, agg j = J} K^F_ij T_j, with the
     * weak blocks lumped into K^F_ii. */
    for (int i = 0; i < nn; i++) {
        int p0 = lv->Pptr[i], np = lv->Pptr[i + 1] - p0;
        double *Z = &lv->Pval[(size_t)p0 * bk], lump[36] = {0}, Kij[36];
        memset(Z, 0, (size_t)np * bk * sizeof *Z);
        int self = -1;
        for (int s = 0; s < np; s++)
            if (lv->Pcol[p0 + s] == lv->agg[i]) self = s;
        for (int q = 0; q < count_blocks(lv, i); q++) {
            int j = block_node(lv, i, q);
            block_of_b(lv, i, q, Kij, b);
            if (!lv->strong[lv->bptr[i] + q]) {
                for (int e = 0; e < b * b; e++) lump[e] += Kij[e];
                continue;
            }
            int s = 0;
            while (lv->Pcol[p0 + s] != lv->agg[j]) s++;
            gemm_acc(Kij, &lv->T[(size_t)j * bk], &Z[(size_t)s * bk], b, b, k);
        }
        gemm_acc(lump, &lv->T[(size_t)i * bk], &Z[(size_t)self * bk], b, b, k);
        const double *Di = &lv->Dinv[(size_t)b * b * i];
        for (int s = 0; s < np; s++) {
            double Y[36] = {0}, *Ps = &Z[(size_t)s * bk];
            gemm_acc(Di, Ps, Y, b, b, k);
            for (size_t e = 0; e < bk; e++) Ps[e] = -w * Y[e];
            if (s == self)
                for (size_t e = 0; e < bk; e++) Ps[e] += lv->T[(size_t)i * bk + e];
        }
    }
    /* Row by row: (K P)_iJ = Σ_j K_ij P_jJ into a buffer, then C_IJ += P_iIᵀ (K P)_iJ for
     * the P blocks (i, I) of the row and J ≥ I only (C is symmetric: build_next copies
     * the transposes; half the products). K P is never stored whole (at 512² it was the
     * update's largest array), and its row stays in cache between the two steps. */
    memset(lv->Cval, 0, (size_t)lv->Cptr[na] * kk * sizeof *lv->Cval);
    const int *slot = lv->Cslot;
    for (int i = 0; i < nn; i++) {
        const int u0 = lv->KPptr[i], nu = lv->KPptr[i + 1] - u0;
        double *KP = lv->KProw, Kij[36];
        memset(KP, 0, (size_t)nu * bk * sizeof *KP);
        for (int u = 0; u < nu; u++) pos[lv->KPcol[u0 + u]] = u;
        for (int q = 0; q < count_blocks(lv, i); q++) {
            int j = block_node(lv, i, q);
            block_of_b(lv, i, q, Kij, b);
            for (int s = lv->Pptr[j]; s < lv->Pptr[j + 1]; s++)
                gemm_acc(Kij, &lv->Pval[(size_t)s * bk], &KP[(size_t)pos[lv->Pcol[s]] * bk], b,
                         b, k);
        }
        for (int s = lv->Pptr[i]; s < lv->Pptr[i + 1]; s++) {
            const int I = lv->Pcol[s];
            const double *PiI = &lv->Pval[(size_t)s * bk];
            for (int u = 0; u < nu; u++)
                if (lv->KPcol[u0 + u] >= I)
                    gemm_tn_acc(PiI, &KP[(size_t)u * bk], &lv->Cval[(size_t)*slot++ * kk], k, b,
                                k);
        }
    }
}

static void galerkin(level *lv, double w, int *pos, int k) {
    if (lv->b == 3 && k == 6)
        galerkin_bk(lv, w, pos, 3, 6);
    else if (lv->b == 6 && k == 6)
        galerkin_bk(lv, w, pos, 6, 6);
    else if (lv->b == 3 && k == 3)
        galerkin_bk(lv, w, pos, 3, 3);
    else
        galerkin_bk(lv, w, pos, lv->b, k);
}

/* Level l + 1 from level l, per matrix: D⁻¹, ρ, T (and B_{l+1}), P, K P and
 * K_{l+1} = Pᵀ K P (symmetrised) + E, into the patterns of `symbolic`. */
static int build_next(sa_state *st, int l, const weft_filter *f, const double *x,
                      weft_error *err) {
    level *lv = &st->lev[l], *nx = &st->lev[l + 1];
    const int k = st->k, na = lv->nagg;
    const size_t kk = (size_t)k * k;
    int rc = level_work(lv, err);
    if (!rc) rc = level_diagonal(st, l, err);
    if (!rc) rc = level_rho(st, l, err);
    if (!rc) rc = tentative(st, l, f, x, err);
    if (rc) return rc;
    /* P_iJ = δ(J, agg i) T_i − ω/ρ D_i⁻¹ Σ_{j strong or i, agg j = J} K^F_ij T_j, with the
     * weak blocks lumped into K^F_ii; then K P and Pᵀ K P. */
    int *pos = malloc(((size_t)na + 1) * sizeof *pos); /* block column → slot in a row */
    if (!pos) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
    galerkin(lv, st->set.omega / lv->rho, pos, k);
    free(pos);
    /* Exact symmetry: C_JI = C_IJᵀ for J > I (only those were computed), diagonal blocks
     * ½ (C_II + C_IIᵀ); then E on dropped DOFs. */
    for (int I = 0; I < na; I++)
        for (int v = lv->Cptr[I]; v < lv->Cptr[I + 1]; v++) {
            int J = lv->Ccol[v], t = lv->Ctr[v];
            if (J < I) continue;
            double *X = &lv->Cval[(size_t)v * kk], *Y = &lv->Cval[(size_t)t * kk];
            for (int a = 0; a < k; a++)
                for (int c = J == I ? a : 0; c < k; c++) {
                    double m = J == I ? 0.5 * (X[a * k + c] + X[c * k + a]) : X[a * k + c];
                    X[a * k + c] = Y[c * k + a] = m;
                }
            if (J == I)
                for (int a = 0; a < k; a++)
                    if (lv->dropped[I * k + a]) X[a * k + a] += 1.0;
        }
    /* Into level l + 1's K: column I k + c, entry (v − Cptr[I]) k + a is C_{I,J}[c][a]; only
     * while the CHOLMOD form exists (set-up, or the coarsest level, for its factorisation). */
    if (!nx->K) return WEFT_OK;
    double *Kx = nx->K->x;
    size_t p = 0;
    for (int I = 0; I < na; I++)
        for (int c = 0; c < k; c++)
            for (int v = lv->Cptr[I]; v < lv->Cptr[I + 1]; v++)
                for (int a = 0; a < k; a++) Kx[p++] = lv->Cval[(size_t)v * kk + (size_t)c * k + a];
    return WEFT_OK;
}

/* Factorises the coarsest level's K with CHOLMOD. */
static int factor_coarsest(sa_state *st, weft_error *err) {
    sa_work *w = st->w;
    level *lv = &st->lev[st->nlev - 1];
    cholmod_sparse *U = cholmod_copy(lv->K, 1, 1, &w->cc);
    if (!U) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
    cholmod_free_factor(&w->L, &w->cc);
    weft_thread_scope saved = weft_threads_enter(st->threads);
    w->L = cholmod_analyze(U, &w->cc);
    int ok = w->L && cholmod_factorize(U, w->L, &w->cc);
    weft_threads_leave(saved);
    cholmod_free_sparse(&U, &w->cc);
    if (!ok || (w->cc.status < CHOLMOD_OK && w->cc.status != CHOLMOD_NOT_POSDEF))
        return weft_fail(err, w->cc.status == CHOLMOD_INVALID ? WEFT_ERR_INPUT : WEFT_ERR_NOMEM,
                         "sa_amg: coarsest factorisation failed (CHOLMOD status %d)",
                         w->cc.status);
    if (w->cc.status == CHOLMOD_NOT_POSDEF)
        return weft_fail(err, WEFT_ERR_INDEFINITE, "ppcg: sa_amg preconditioner: coarsest level "
                         "(%d DOFs) not positive definite at column %d", lv->ndof,
                         (int)w->L->minor);
    if (!w->rhs) w->rhs = cholmod_zeros((size_t)lv->ndof, 1, CHOLMOD_REAL, &w->cc);
    if (!w->rhs) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
    return WEFT_OK;
}

/* st->xc = the mean of the n positions x (0 when x is NULL). One point for every
 * aggregate, so that the rotations are the same global modes on all of them: B_{l+1} = R
 * then holds the coarse coordinates of one near-null space. */
static void centroid(sa_state *st, const double *x) {
    st->xc[0] = st->xc[1] = st->xc[2] = 0.0;
    if (!x || st->n == 0) return;
    for (int i = 0; i < st->n; i++)
        for (int e = 0; e < 3; e++) st->xc[e] += x[3 * (size_t)i + e];
    for (int e = 0; e < 3; e++) st->xc[e] /= st->n;
}

/* Once per pattern: K_0's pattern and the positions to build the rigid modes from; the
 * hierarchy itself (aggregates, patterns and values) is built by the next update, in one
 * pass with that matrix's values (build_hierarchy). */
static int sa_setup(void *state, const weft_bsr *A, const double *positions, weft_error *err) {
    sa_state *st = state;
    hierarchy_free(st);
    if (A->n != st->n)
        return weft_fail(err, WEFT_ERR_INPUT, "sa_amg: set up for %d vertices, given %d", st->n,
                         A->n);
    st->k = positions ? 6 : 3;
    if (positions) {
        st->x0 = malloc(3 * (size_t)st->n * sizeof *st->x0 + 1);
        if (!st->x0) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
        memcpy(st->x0, positions, 3 * (size_t)st->n * sizeof *st->x0);
    }
    return fine_pattern(st, A, err);
}

/* The first matrix of a pattern: level by level, the aggregates of level l (level 0's
 * from A without the filter, the coarse ones from the Galerkin operator just formed), its
 * patterns (symbolic) and level l + 1's values (build_next with the filter f), so the
 * hierarchy is built once. */
static int build_hierarchy(sa_state *st, const weft_bsr *A, const weft_filter *f,
                           const double *x, weft_error *err) {
    fine_values(st, A, NULL); /* aggregation sees A, not the filtered K */
    int l = 0, rc = WEFT_OK;
    for (; l + 1 < st->set.levels && l + 1 < SA_MAX_LEVELS; l++) {
        level *lv = &st->lev[l];
        if (lv->nodes <= st->set.coarsest) break;
        if ((rc = aggregate(st, l, err))) return rc;
        /* Stop when the coarse level would not be clearly smaller. */
        if ((double)lv->nagg * st->k > 0.8 * lv->ndof) break;
        if (l == 0) fine_values(st, A, f);
        if ((rc = symbolic(st, l, err))) return rc;
        if ((rc = build_next(st, l, l == 0 ? f : NULL, x, err))) return rc;
    }
    st->nlev = l + 1;
    if (l == 0) fine_values(st, A, f); /* one level: K_0 is the coarsest, filtered */
    /* The CHOLMOD form of the levels above the coarsest served aggregation and the
     * patterns; from here on the row-major blocks (Kblk) carry their values. */
    for (int q = 0; q < l; q++) cholmod_free_sparse(&st->lev[q].K, &st->w->cc);
    return level_work(&st->lev[l], err);
}

/* The smoother's matrices K̂ (lblk_acc_b) of the levels above the coarsest, per matrix:
 * single-precision off-diagonal blocks, double diagonal blocks, and level 0's constrained
 * vertices (f's ndof > 0) with the rows that touch them (none on a single level: the
 * coarsest is solved by CHOLMOD, not smoothed). */
static int smoother_values(sa_state *st, const weft_filter *f, weft_error *err) {
    const int n = st->n;
    bool any = false;
    for (int i = 0; f && st->nlev > 1 && i < n && !any; i++) any = f->ndof[i] > 0;
    if (any) {
        if (!st->con) st->con = malloc((size_t)n + 1);
        if (!st->touch) st->touch = malloc((size_t)n + 1);
        if (!st->con || !st->touch) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
        for (int i = 0; i < n; i++) st->con[i] = f->ndof[i] > 0;
        const level *l0 = &st->lev[0];
        for (int i = 0; i < n; i++) {
            bool t = st->con[i];
            for (int q = l0->bptr[i]; q < l0->bptr[i + 1] && !t; q++)
                t = st->con[l0->bnode[q]];
            st->touch[i] = t;
        }
    } else {
        free(st->con), free(st->touch);
        st->con = NULL, st->touch = NULL;
    }
    for (int l = 0; l + 1 < st->nlev; l++) {
        level *lv = &st->lev[l];
        const size_t bb = (size_t)lv->b * lv->b;
        if (!lv->lptr) {
            if (!(lv->lptr = malloc(((size_t)lv->nodes + 1) * sizeof *lv->lptr)))
                return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
            lv->lptr[0] = 0;
            for (int i = 0; i < lv->nodes; i++) lv->lptr[i + 1] = lv->lptr[i] + lv->bdiag[i];
        }
        if (!lv->Lf) lv->Lf = malloc(((size_t)lv->lptr[lv->nodes] * bb + 1) * sizeof *lv->Lf);
        if (!lv->D) lv->D = malloc(((size_t)lv->nodes * bb + 1) * sizeof *lv->D);
        if (!lv->Lf || !lv->D) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
#pragma omp parallel for num_threads(st->threads) schedule(static) if (st->threads > 1)
        for (int i = 0; i < lv->nodes; i++) {
            const double *src = &lv->Kblk[bb * (size_t)lv->bptr[i]];
            float *dst = &lv->Lf[bb * (size_t)lv->lptr[i]];
            for (size_t e = 0; e < bb * (size_t)lv->bdiag[i]; e++) dst[e] = (float)src[e];
        }
        for (int i = 0; i < lv->nodes; i++)
            memcpy(&lv->D[bb * (size_t)i], &lv->Kblk[bb * ((size_t)lv->bptr[i] + lv->bdiag[i])],
                   bb * sizeof *lv->D);
    }
    return WEFT_OK;
}

static int sa_update(void *state, const weft_bsr *A, const weft_filter *f,
                     const double *positions, weft_error *err) {
    sa_state *st = state;
    if (!st->tr) { /* no set-up yet */
        int rc = sa_setup(st, A, positions, err);
        if (rc) return rc;
    }
    if (A->n != st->n || A->nnzb != st->nnzb)
        return weft_fail(err, WEFT_ERR_INPUT, "sa_amg: update of %d vertices (%d blocks) on a "
                         "set-up of %d (%d)", A->n, A->nnzb, st->n, st->nnzb);
    const double *x = st->k == 6 ? (positions ? positions : st->x0) : NULL;
    centroid(st, x);
    if (st->nlev == 0) { /* the pattern's first matrix */
        int rc = build_hierarchy(st, A, f, x, err);
        if (rc) { /* start over from the set-up with the next matrix */
            hierarchy_free(st);
            return rc;
        }
    } else {
        fine_values(st, A, f);
        for (int l = 0; l + 1 < st->nlev; l++) {
            int rc = build_next(st, l, l == 0 ? f : NULL, x, err);
            if (rc) return rc;
        }
    }
    /* The coarsest blocks only for the check that names a non-SPD vertex or node. */
    int rc = level_diagonal(st, st->nlev - 1, err);
    if (!rc) rc = smoother_values(st, f, err);
    return rc ? rc : factor_coarsest(st, err);
}

/* ------------------------------------------------------------------------------ */
/* Apply: one V-cycle                                                              */
/* ------------------------------------------------------------------------------ */

/* r = f_i − Σ_j K_ij x_j over row i (b values), blocks q in [qlo, qhi) of the row (f NULL:
 * 0 − …), from the row-major blocks Kblk. Written for a constant b so that the compiler
 * unrolls the block loops. */
static inline __attribute__((always_inline)) void
row_res_b(const level *lv, int i, const double *f, const double *x, double *r, const int b,
          int qlo, int qhi) {
    const int q0 = lv->bptr[i], *bn = &lv->bnode[q0];
    const double *blk = &lv->Kblk[(size_t)q0 * b * b];
    double acc[6];
    for (int a = 0; a < b; a++) acc[a] = f ? f[i * b + a] : 0.0;
    for (int q = qlo; q < qhi; q++) {
        const double *xj = &x[(size_t)bn[q] * b], *Kq = &blk[(size_t)q * b * b];
        for (int a = 0; a < b; a++) {
            double s = 0.0;
            for (int c = 0; c < b; c++) s += Kq[a * b + c] * xj[c];
            acc[a] -= s;
        }
    }
    for (int a = 0; a < b; a++) r[a] = acc[a];
}

/* The smoother's blocks: acc += K̂_ij y (trans: acc += K̂_ijᵀ y = K̂_ji y) for block q < bdiag[i]
 * of row i (j < i, node j = bnode). K̂ = K with its off-diagonal blocks rounded to single
 * precision (half the bytes of the sweeps) except where i or j is a constrained vertex of
 * level 0 (con: S ≠ I), which keep K's double blocks: then K̂ is exactly symmetric
 * (K̃_ji = K̃_ijᵀ, so only the blocks left of the diagonal are stored, Lf) and the
 * filter's structure stays exact (a constrained row is S_i A S_j: M⁻¹ keeps range(S)).
 * The diagonal blocks are double (diag_acc_b). touch: row i has a constrained vertex
 * among its blocks. */
static inline __attribute__((always_inline)) void
lblk_acc_b(const level *lv, const unsigned char *con, bool touch, int i, int q,
           const double *restrict y, double *restrict acc, const int b, const bool trans) {
    const int j = lv->bnode[lv->bptr[i] + q];
    if (touch && (con[i] || con[j])) {
        const double *Kq = &lv->Kblk[((size_t)lv->bptr[i] + q) * b * b];
        for (int a = 0; a < b; a++)
            for (int c = 0; c < b; c++) {
                if (trans)
                    acc[c] += Kq[a * b + c] * y[a];
                else
                    acc[a] += Kq[a * b + c] * y[c];
            }
        return;
    }
    const float *Kq = &lv->Lf[((size_t)lv->lptr[i] + q) * b * b];
    if (trans) {
        for (int a = 0; a < b; a++)
            for (int c = 0; c < b; c++) acc[c] += (double)Kq[a * b + c] * y[a];
    } else {
        for (int a = 0; a < b; a++) {
            double s = 0.0;
            for (int c = 0; c < b; c++) s += (double)Kq[a * b + c] * y[c];
            acc[a] += s;
        }
    }
}

/* acc += K_ii x_i (double diagonal block). */
static inline __attribute__((always_inline)) void
diag_acc_b(const level *lv, int i, const double *x, double *acc, const int b) {
    const double *Di = &lv->D[(size_t)b * b * i], *xi = &x[(size_t)i * b];
    for (int a = 0; a < b; a++)
        for (int c = 0; c < b; c++) acc[a] += Di[a * b + c] * xi[c];
}

/* x_i += D_i⁻¹ r (b values). */
static inline __attribute__((always_inline)) void
dinv_add_b(const level *lv, int i, const double *r, double *x, const int b) {
    const double *M = &lv->Dinv[(size_t)b * b * i];
    for (int a = 0; a < b; a++) {
        double sum = 0.0;
        for (int c = 0; c < b; c++) sum += M[b * a + c] * r[c];
        x[i * b + a] += sum;
    }
}

/* The smoother's sweeps for a constant block size b (the compiler unrolls the blocks),
 * each one pass over the stored lower triangle L of K̂ (K̂ = L + D + Lᵀ): row i's blocks
 * L_ij (j < i) are read once and used twice, gathered (L_ij x_j, for row i) and scattered
 * (L_ijᵀ x_i, into a sum for row j). That reads half the bytes of a pass over all of K̂
 * (the sweeps are bound by memory traffic), and every pass reads memory in one direction
 * (the backward sweep: rows and blocks descending; with the blocks ascending in a
 * descending sweep the hardware prefetcher lost the stream and it took 3.5-5 times as
 * long as the forward one).
 *   mode 0: forward sweep (a scatter pass first: t_i = Σ_{j>i} K̂_ij x_j^old);
 *   1: backward sweep (t_i collects Σ_{j>i} K̂_ij x_j^new on the way);
 *   2: the first forward sweep from x = 0 and, with res, t = f − K̂ x in the same pass:
 *      after the sweep f_i − Σ_{j≤i} K̂_ij x_j = 0, so t_i = −Σ_{j>i} K̂_ij x_j, scattered
 *      from the rows j > i once their x_j is known;
 *   3: t = f − K̂ x.
 * t is scratch in modes 0 and 1 (the smoother's callers need it only after mode 2 or 3). */
static inline __attribute__((always_inline)) void
sweep_b(const sa_state *st, const level *lv, int mode, bool res, const int b) {
    const unsigned char *con = lv == &st->lev[0] ? st->con : NULL;
    double *x = lv->x, *t = lv->t;
    const double *f = lv->f;
    const int nn = lv->nodes;
    const bool scatter = mode != 2 || res;
    if (mode == 3)
        memcpy(t, f, (size_t)lv->ndof * sizeof *t);
    else if (scatter)
        memset(t, 0, (size_t)lv->ndof * sizeof *t);
    if (mode == 0) /* t_j = Σ_{i>j} K̂_ji x_i^old */
        for (int i = 0; i < nn; i++) {
            const bool touch = con && st->touch[i];
            for (int q = 0; q < lv->bdiag[i]; q++)
                lblk_acc_b(lv, con, touch, i, q, &x[(size_t)i * b],
                           &t[(size_t)lv->bnode[lv->bptr[i] + q] * b], b, true);
        }
    for (int s = 0; s < nn; s++) {
        const int i = mode == 1 ? nn - 1 - s : s, qd = lv->bdiag[i];
        const bool touch = con && st->touch[i];
        double acc[6] = {0}, r[6], *xi = &x[(size_t)i * b];
        /* Gather: acc = Σ_{j<i} K̂_ij x_j (+ K_ii x_i and the far side's sum). */
        for (int u = 0; u < qd; u++) {
            const int q = mode == 1 ? qd - 1 - u : u;
            lblk_acc_b(lv, con, touch, i, q, &x[(size_t)lv->bnode[lv->bptr[i] + q] * b], acc, b,
                       false);
        }
        if (mode != 2) {
            diag_acc_b(lv, i, x, acc, b);
            if (mode != 3)
                for (int a = 0; a < b; a++) acc[a] += t[(size_t)i * b + a];
        }
        if (mode == 3) {
            for (int a = 0; a < b; a++) t[(size_t)i * b + a] -= acc[a];
        } else {
            for (int a = 0; a < b; a++) r[a] = f[(size_t)i * b + a] - acc[a];
            if (mode == 2)
                for (int a = 0; a < b; a++) xi[a] = 0.0;
            dinv_add_b(lv, i, r, x, b);
        }
        /* Scatter: t_j ∓= K̂_ijᵀ x_i for j < i (mode 3 and 2 subtract: residuals). */
        if (!scatter || mode == 0) continue;
        for (int u = 0; u < qd; u++) {
            const int q = mode == 1 ? qd - 1 - u : u;
            double y[6];
            for (int a = 0; a < b; a++) y[a] = mode == 1 ? xi[a] : -xi[a];
            lblk_acc_b(lv, con, touch, i, q, y, &t[(size_t)lv->bnode[lv->bptr[i] + q] * b], b,
                       true);
        }
    }
}

static void sweep(const sa_state *st, const level *lv, int mode, bool res) {
    switch (lv->b) {
    case 3: sweep_b(st, lv, mode, res, 3); break;
    case 6: sweep_b(st, lv, mode, res, 6); break;
    default: sweep_b(st, lv, mode, res, lv->b); break;
    }
}

static inline void row_residual_range(const level *lv, int i, const double *f, const double *x,
                                      double *r, int qlo, int qhi) {
    switch (lv->b) {
    case 3: row_res_b(lv, i, f, x, r, 3, qlo, qhi); break;
    case 6: row_res_b(lv, i, f, x, r, 6, qlo, qhi); break;
    default: row_res_b(lv, i, f, x, r, lv->b, qlo, qhi); break;
    }
}

/* y = K x on a level (double blocks: the power iteration for ρ). */
static void level_mv(const level *lv, const double *x, double *y) {
    for (int i = 0; i < lv->nodes; i++) {
        double r[6];
        row_residual_range(lv, i, NULL, x, r, 0, lv->bptr[i + 1] - lv->bptr[i]);
        for (int a = 0; a < lv->b; a++) y[i * lv->b + a] = -r[a];
    }
}

/* One block Gauss-Seidel sweep on K̂ x = f (K̂ the smoother's matrix, lblk_acc_b), nodes
 * ascending (forward) or descending. */
static void gauss_seidel(const sa_state *st, const level *lv, bool forward) {
    sweep(st, lv, forward ? 0 : 1, false);
}

/* The first forward Gauss-Seidel sweep from x = 0 and then (residual) t = f − K̂ x, in one
 * pass over K̂ (sweep_b's mode 2): the same x and t as the sweep then the product (up to
 * rounding). */
static void gauss_seidel_first(const sa_state *st, const level *lv, bool residual) {
    sweep(st, lv, 2, residual);
}

/* t = f − K̂ x on level lv. */
static void smoother_residual(const sa_state *st, const level *lv) { sweep(st, lv, 3, false); }

/* One damped block-Jacobi sweep: x += (4/3ρ) D⁻¹ (f − K̂ x). */
static void jacobi(const sa_state *st, const level *lv) {
    smoother_residual(st, lv);
    const int b = lv->b;
    double w = 4.0 / (3.0 * lv->rho);
    for (int i = 0; i < lv->nodes; i++) {
        const double *M = &lv->Dinv[(size_t)b * b * i], *ri = &lv->t[(size_t)b * i];
        for (int a = 0; a < b; a++) {
            double s = 0.0;
            for (int c = 0; c < b; c++) s += M[b * a + c] * ri[c];
            lv->x[(size_t)b * i + a] += w * s;
        }
    }
}

/* ν smoothing sweeps on level lv (pre: from x = 0, forward; post: backward). Returns
 * true when t already holds f − K x (the fused first sweep). */
static bool smooth(const sa_state *st, const level *lv, bool pre) {
    bool gs = st->set.smoother != WEFT_SA_AMG_JACOBI;
    int s0 = 0;
    bool have_t = false;
    if (pre && gs) {
        gauss_seidel_first(st, lv, st->set.sweeps == 1);
        have_t = st->set.sweeps == 1, s0 = 1;
    } else if (pre) {
        memset(lv->x, 0, (size_t)lv->ndof * sizeof *lv->x);
    }
    for (int s = s0; s < st->set.sweeps; s++) {
        if (!gs)
            jacobi(st, lv);
        else
            gauss_seidel(st, lv, pre);
    }
    return have_t;
}

/* Restriction f_{l+1} = Pᵀ t (up false) or prolongation x += P x_{l+1} (up true), for
 * constant b × k blocks of P. */
static inline __attribute__((always_inline)) void
transfer_bk(const level *lv, const level *nx, bool up, const int b, const int k) {
    const size_t bk = (size_t)b * k;
    if (!up) memset(nx->f, 0, (size_t)nx->ndof * sizeof *nx->f);
    for (int i = 0; i < lv->nodes; i++)
        for (int s = lv->Pptr[i]; s < lv->Pptr[i + 1]; s++) {
            const double *Ps = &lv->Pval[(size_t)s * bk];
            if (up)
                gemm_acc(Ps, &nx->x[(size_t)lv->Pcol[s] * k], &lv->x[(size_t)i * b], b, k, 1);
            else
                gemm_tn_acc(Ps, &lv->t[(size_t)i * b], &nx->f[(size_t)lv->Pcol[s] * k], k, b, 1);
        }
}

static void transfer(const level *lv, const level *nx, bool up) {
    if (lv->b == 3 && nx->b == 6)
        transfer_bk(lv, nx, up, 3, 6);
    else if (lv->b == 6 && nx->b == 6)
        transfer_bk(lv, nx, up, 6, 6);
    else if (lv->b == 3 && nx->b == 3)
        transfer_bk(lv, nx, up, 3, 3);
    else
        transfer_bk(lv, nx, up, lv->b, nx->b);
}

/* x_l = V-cycle(l) applied to f_l, starting from x_l = 0. */
static void vcycle(const sa_state *st, int l) {
    const level *lv = &st->lev[l];
    if (l == st->nlev - 1) {
        sa_work *w = st->w;
        memcpy(w->rhs->x, lv->f, (size_t)lv->ndof * sizeof *lv->f);
        weft_thread_scope saved = weft_threads_enter(st->threads);
        cholmod_solve2(CHOLMOD_A, w->L, w->rhs, NULL, &w->X, NULL, &w->Y, &w->E, &w->cc);
        weft_threads_leave(saved);
        memcpy(lv->x, w->X->x, (size_t)lv->ndof * sizeof *lv->x);
        return;
    }
    const level *nx = &st->lev[l + 1];
    /* t = f − K x after pre-smoothing from x = 0, restricted: f_{l+1} = Pᵀ t. */
    if (!smooth(st, lv, true)) smoother_residual(st, lv);
    transfer(lv, nx, false);
    vcycle(st, l + 1);
    transfer(lv, nx, true);
    smooth(st, lv, false);
}

static void sa_apply(const void *state, const double *r, double *z) {
    const sa_state *st = state;
    if (st->n == 0) return;
    const level *lv = &st->lev[0];
    memcpy(lv->f, r, (size_t)lv->ndof * sizeof *r);
    vcycle(st, 0);
    memcpy(z, lv->x, (size_t)lv->ndof * sizeof *z);
}

/* ------------------------------------------------------------------------------ */
/* Inspection (tests)                                                              */
/* ------------------------------------------------------------------------------ */

int weft_sa_amg_levels(const void *state) { return ((const sa_state *)state)->nlev; }

int weft_sa_amg_level_size(const void *state, int l, int *nodes, int *block) {
    const sa_state *st = state;
    if (l < 0 || l >= st->nlev) return -1;
    if (nodes) *nodes = st->lev[l].nodes;
    if (block) *block = st->lev[l].b;
    return st->lev[l].ndof;
}

const int *weft_sa_amg_aggregates(const void *state, int l, int *nagg) {
    const sa_state *st = state;
    if (l < 0 || l + 1 >= st->nlev) return NULL;
    if (nagg) *nagg = st->lev[l].nagg;
    return st->lev[l].agg;
}

int weft_sa_amg_dense(const void *state, int l, char which, double *out) {
    const sa_state *st = state;
    if (l < 0 || l >= st->nlev) return -1;
    const level *lv = &st->lev[l];
    if (which == 'K' && !lv->K) { /* a level above the coarsest: its row-major blocks */
        const int b = lv->b;
        size_t n = (size_t)lv->ndof, bb = (size_t)b * b;
        memset(out, 0, n * n * sizeof *out);
        for (int i = 0; i < lv->nodes; i++)
            for (int q = lv->bptr[i]; q < lv->bptr[i + 1]; q++)
                for (int a = 0; a < b; a++)
                    for (int c = 0; c < b; c++)
                        out[((size_t)i * b + a) * n + (size_t)lv->bnode[q] * b + c] =
                            lv->Kblk[bb * q + (size_t)a * b + c];
        return (int)n;
    }
    if (which == 'K') {
        const cholmod_sparse *M = lv->K;
        size_t n = M->nrow;
        memset(out, 0, n * n * sizeof *out);
        const int *Mp = M->p, *Mi = M->i;
        const double *Mx = M->x;
        for (size_t c = 0; c < n; c++)
            for (int p = Mp[c]; p < Mp[c + 1]; p++) out[(size_t)Mi[p] * n + c] = Mx[p];
        return (int)n;
    }
    if ((which != 'P' && which != 'T') || l + 1 >= st->nlev) return -1;
    const int b = lv->b, k = st->k;
    size_t nc = (size_t)k * lv->nagg, bk = (size_t)b * k;
    memset(out, 0, (size_t)lv->ndof * nc * sizeof *out);
    for (int i = 0; i < lv->nodes; i++)
        for (int s = which == 'P' ? lv->Pptr[i] : 0; s < (which == 'P' ? lv->Pptr[i + 1] : 1); s++) {
            int J = which == 'P' ? lv->Pcol[s] : lv->agg[i];
            const double *blk = which == 'P' ? &lv->Pval[(size_t)s * bk] : &lv->T[(size_t)i * bk];
            for (int e = 0; e < b; e++)
                for (int c = 0; c < k; c++)
                    out[((size_t)i * b + e) * nc + (size_t)J * k + c] = blk[e * k + c];
        }
    return (int)nc;
}

const weft_precond_type weft_precond_sa_amg = {
    .name = "sa_amg",
    .paper = "Tamstorf, Jones & McCormick 2015 (smoothed aggregation multigrid for cloth)",
    .summary = "smoothed-aggregation V-cycle on the filtered matrix, rigid-mode coarse spaces",
    .settings_size = sizeof(weft_sa_amg_settings),
    .settings = sa_tables,
    .create = sa_create,
    .setup = sa_setup,
    .update = sa_update,
    .apply = sa_apply,
    .destroy = sa_destroy,
};
