/* precond_sa_amg.c — smoothed-aggregation algebraic multigrid (SA-AMG) as a PPCG
 * preconditioner, after Tamstorf, Jones & McCormick 2015, "Smoothed aggregation multigrid
 * for cloth simulation" (ACM TOG 34(6)), whose building blocks are those of Vaněk, Mandel
 * & Brezina 1996, "Algebraic multigrid by smoothed aggregation for second and fourth
 * order elliptic problems". One V-cycle is M⁻¹; PPCG (linsolve.c) iterates on
 *     K y = S c,   K = S A S + (I − S)    (the pre-filtered system).
 *
 * Levels l = 0 .. L−1: K_0 = K (3 DOFs a vertex, b_0 = 3), K_{l+1} = P_lᵀ K_l P_l
 * (k DOFs a coarse node, b_l = k for l ≥ 1; k = 6 with positions, 3 without).
 *
 * 1. Strength of connection (on b×b blocks, Frobenius norms):
 *        j ~ i strongly  ⇔  ‖K_ij‖_F ≥ θ √(‖K_ii‖_F ‖K_jj‖_F)            ([sa_amg] strength).
 * 2. Aggregation (Vaněk et al.'s three passes, in node order): (1) a node none of whose
 *    strong neighbours is taken starts an aggregate with all of them; (2) a node left over
 *    joins the aggregate of a strong neighbour (the strongest); (3) the rest form
 *    aggregates with their free strong neighbours (or alone).
 * 3. Near-null space B_0 (3n × k): per vertex i with d_i = x_i − x̄ (x̄ the centroid of
 *    all positions, m), the translations e_1, e_2, e_3 and the rotations e_m × d_i
 *    (m = 1, 2, 3): the rigid-body modes, which A's elastic part leaves unloaded. One
 *    global x̄ (not one per aggregate), so the coarse rows R below describe the same six
 *    global modes on every aggregate.
 *    On level l ≥ 1, B_l = R_{l−1} (below).
 * 4. Tentative prolongator: per aggregate a, the rows of S B_l on a (S only on level 0)
 *    are factorised S B_a = Q_a R_a (modified Gram-Schmidt, orthogonalised twice); T_l is
 *    block diagonal with the blocks Q_a, so T_l R_l = S B_l exactly and T_lᵀ T_l = I on the
 *    kept columns. A column that is dependent on those before it (|v| ≤ 1e-8 |v_0| after
 *    orthogonalisation: collinear vertices, a pinned or line-constrained vertex alone, an
 *    aggregate of pins) is kept as a zero column, so the coarse sizes stay fixed per
 *    pattern; its coarse DOF is "dropped" (below).
 * 5. Prolongator smoothing (damped block Jacobi):
 *        P_l = (I − ω/ρ_l D_l⁻¹ K^F_l) T_l,   ρ_l ≈ λ_max(D_l⁻¹ K_l) by 15 power iterations,
 *    ω = 4/3 by default ([sa_amg] omega), D_l the b×b diagonal blocks of K_l, and K^F_l
 *    Vaněk et al.'s filtered matrix: K_l without its weak off-diagonal blocks, each added
 *    to its row's diagonal block (row sums, hence translations, kept). It keeps P's
 *    stencil to the strong graph: the weak bending couplings of the hinge stencil
 *    (distance 2) would otherwise widen P and every coarse operator.
 * 6. Galerkin coarse operators: K_{l+1} = P_lᵀ K_l P_l + E_{l+1}, E the identity on dropped
 *    coarse DOFs (whose P column is zero): a coarse filter, as (I − S) is on level 0.
 *    Products by CHOLMOD (cholmod_ssmult, cholmod_transpose), symmetrised ½(C + Cᵀ) so the
 *    coarse matrices are exactly symmetric.
 * 7. Smoother: symmetric block Gauss-Seidel (b×b blocks; ν forward sweeps before the coarse
 *    correction, ν backward sweeps after), or damped block Jacobi x += (4/3ρ) D⁻¹(f − K x)
 *    (ν sweeps each side). Either way the V-cycle's post-smoother is the adjoint of its
 *    pre-smoother, so M⁻¹ is symmetric; both smoothers converge in the K-norm for SPD K,
 *    so M⁻¹ is positive definite.
 * 8. Coarsest level: CHOLMOD's Cholesky factorisation of K_{L−1}.
 *
 * The constraint filter. Tamstorf et al. precondition the pre-filtered system, whose
 * matrix K = S A S + (I − S) is SPD and decouples the constrained directions (identity
 * there). The hierarchy here is built for that K, with the tentative prolongator filtered
 * (T_0 = S-rows of B_0), so every column of T_0 lies in range(S); as D_0 = S D S + (I − S)
 * blockwise and K map range(S) into itself, so does P_0 = S P_0, and then
 * P_0ᵀ K P_0 = P_0ᵀ S A S P_0 = P_0ᵀ A P_0: the coarse levels see only the free subspace
 * (the rigid modes filtered by the constraints), and the constrained DOFs are solved
 * exactly (as identity) by the fine smoother. A hierarchy of the unfiltered A would put
 * constrained motion into the coarse space and make M⁻¹ leak out of range(S). Why not
 * (I − S) in the coarse levels: the paper's point is that the pre-filtered matrix, not
 * A, is what CG sees, so the Galerkin products of it are the consistent coarse problems.
 * With r ∈ range(S), M⁻¹ r ∈ range(S) (pinned DOFs exactly 0).
 *
 * Work split (the paper recomputes aggregates only when the mesh changes): setup (once per
 * sparsity pattern) computes the aggregates of every level, from A's values at that time
 * (no filter), building the hierarchy once to reach the coarse matrices; update (once per
 * matrix) recomputes B_0 from the positions, T, ρ, P, the coarse matrices, the smoother's
 * blocks and the coarsest factorisation, with the filter. Apply allocates nothing.
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
#define SA_POWER_ITERS 15

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
     .names = smoother_names, .dflt = WEFT_SA_AMG_GAUSS_SEIDEL,
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
    {0},
};
#undef F

static const weft_param_table sa_tables[] = {{"sa_amg", sa_params, 0}, {0}};

/* ------------------------------------------------------------------------------ */
/* State                                                                           */
/* ------------------------------------------------------------------------------ */

typedef struct level {
    int nodes, b, ndof;      /* nodes, DOFs a node (3 on level 0, k above), nodes b */
    cholmod_sparse *K;       /* ndof × ndof, both triangles, stype 0, sorted, exactly
                                symmetric (so column c is also row c) */
    cholmod_sparse *T, *P;   /* tentative and smoothed prolongators to level + 1 */
    cholmod_sparse *D;       /* D⁻¹ as a block-diagonal sparse matrix */
    int nagg;                /* aggregates (nodes of level + 1) */
    int *agg;                /* nodes: aggregate of each node (setup) */
    int *agg_ptr, *agg_node; /* members of aggregate a: agg_node[agg_ptr[a] .. agg_ptr[a+1]) */
    int *sptr, *sadj;        /* strong neighbours of node i: sadj[sptr[i] .. sptr[i+1]) */
    double *B;               /* ndof × k near-null space, row-major (level ≥ 1) */
    double *Dinv;            /* b² per node: inverse diagonal blocks, row-major */
    double rho;              /* λ_max(D⁻¹ K) estimate */
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
    weft_sa_amg_settings set;
    int nlev;                  /* levels, 0 before a setup */
    level lev[SA_MAX_LEVELS];
    int *tr;                   /* A's blocks: index of the transposed block */
    double *Kb;                /* 9 nnzb: filtered blocks of K_0 */
    double *x0;                /* 3n: positions at setup (NULL: none) */
    double xc[3];              /* centroid of the positions, m: the rotations' axis point */
    sa_work *w;
} sa_state;

static void level_free_numeric(level *lv, cholmod_common *cc) {
    cholmod_free_sparse(&lv->T, cc);
    cholmod_free_sparse(&lv->P, cc);
}

static void level_free(level *lv, cholmod_common *cc) {
    level_free_numeric(lv, cc);
    cholmod_free_sparse(&lv->K, cc);
    cholmod_free_sparse(&lv->D, cc);
    free(lv->agg), free(lv->agg_ptr), free(lv->agg_node), free(lv->sptr), free(lv->sadj);
    free(lv->B), free(lv->Dinv), free(lv->x), free(lv->f), free(lv->t);
    memset(lv, 0, sizeof *lv);
}

static void hierarchy_free(sa_state *st) {
    for (int l = 0; l < SA_MAX_LEVELS; l++) level_free(&st->lev[l], &st->w->cc);
    cholmod_free_factor(&st->w->L, &st->w->cc);
    cholmod_free_dense(&st->w->rhs, &st->w->cc);
    cholmod_free_dense(&st->w->X, &st->w->cc);
    cholmod_free_dense(&st->w->Y, &st->w->cc);
    cholmod_free_dense(&st->w->E, &st->w->cc);
    free(st->tr), free(st->Kb), free(st->x0);
    st->tr = NULL, st->Kb = NULL, st->x0 = NULL;
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

static void *sa_create(int n, const void *settings, weft_error *err) {
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
    st->n = n;
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

/* y = K x for a level's exactly symmetric K (column c read as row c). */
static void sym_mv(const cholmod_sparse *K, const double *x, double *y) {
    const int *Kp = K->p, *Ki = K->i;
    const double *Kx = K->x;
    for (size_t c = 0; c < K->ncol; c++) {
        double s = 0.0;
        for (int p = Kp[c]; p < Kp[c + 1]; p++) s += Kx[p] * x[Ki[p]];
        y[c] = s;
    }
}

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
    return WEFT_OK;
}

/* K_0's values from A and the filter (NULL: S = I). Blocks (j, i) with i ≥ j are
 * S_j A_ji S_i (+ I − S_j on the diagonal, symmetrised); those below are their exact
 * transposes, so K_0 is exactly symmetric. */
static void fine_values(sa_state *st, const weft_bsr *A, const weft_filter *f) {
    for (int j = 0; j < A->n; j++)
        for (int k = A->row_ptr[j]; k < A->row_ptr[j + 1]; k++) {
            int i = A->col[k];
            double *B = &st->Kb[9 * (size_t)k];
            if (i < j) continue;
            if (!f) {
                memcpy(B, &A->val[9 * (size_t)k], 9 * sizeof *B);
            } else if (i == j) {
                weft_filtered_diagonal(A, f, j, B);
            } else {
                double t[9];
                weft_mul33(&f->S[9 * (size_t)j], &A->val[9 * (size_t)k], t);
                weft_mul33(t, &f->S[9 * (size_t)i], B);
            }
        }
    for (int j = 0; j < A->n; j++)
        for (int k = A->row_ptr[j]; k < A->diag[j]; k++) {
            const double *U = &st->Kb[9 * (size_t)st->tr[k]];
            double *B = &st->Kb[9 * (size_t)k];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) B[3 * a + b] = U[3 * b + a];
        }
    /* Column 3j + b, row 3i + a: K(3i+a, 3j+b) = block (j, i) entry (b, a). */
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
    for (int i = 0; i < nn; i++) {
        if (agg[i] >= 0 || sptr[i + 1] == sptr[i]) continue;
        bool free_nb = true;
        for (int q = sptr[i]; q < sptr[i + 1] && free_nb; q++) free_nb = agg[sadj[q]] < 0;
        if (!free_nb) continue;
        agg[i] = na;
        for (int q = sptr[i]; q < sptr[i + 1]; q++) agg[sadj[q]] = na;
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

/* D⁻¹ of level l's diagonal blocks (into Dinv and the sparse D); false naming the node
 * if a block is not positive definite. */
static int level_diagonal(sa_state *st, int l, weft_error *err) {
    level *lv = &st->lev[l];
    cholmod_common *cc = &st->w->cc;
    const int b = lv->b, *Kp = lv->K->p, *Ki = lv->K->i;
    const double *Kx = lv->K->x;
    size_t bb = (size_t)b * b;
    if (!lv->Dinv) lv->Dinv = malloc(bb * ((size_t)lv->nodes + 1) * sizeof *lv->Dinv);
    if (!lv->D) {
        lv->D = cholmod_allocate_sparse((size_t)lv->ndof, (size_t)lv->ndof, bb * (size_t)lv->nodes,
                                        1, 1, 0, CHOLMOD_REAL, cc);
        if (lv->D) {
            int *Dp = lv->D->p, *Di = lv->D->i, p = 0;
            for (int c = 0; c < lv->ndof; c++) {
                Dp[c] = p;
                for (int a = 0; a < b; a++) Di[p++] = (c / b) * b + a;
            }
            Dp[lv->ndof] = p;
        }
    }
    if (!lv->Dinv || !lv->D) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
    double *Dx = lv->D->x;
    for (int i = 0; i < lv->nodes; i++) {
        double M[36] = {0};
        for (int c = 0; c < b; c++)
            for (int p = Kp[i * b + c]; p < Kp[i * b + c + 1]; p++)
                if (Ki[p] / b == i) M[b * (Ki[p] - i * b) + c] = Kx[p];
        double *inv = &lv->Dinv[bb * (size_t)i];
        if (!inv_spd(M, b, inv)) {
            if (l == 0)
                return weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: sa_amg preconditioner: "
                                 "filtered diagonal block of vertex %d is not positive "
                                 "definite", i);
            return weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: sa_amg preconditioner: diagonal "
                             "block of node %d on level %d is not positive definite", i, l);
        }
        /* Column i b + c of D⁻¹ holds rows i b .. i b + b − 1: entries (a, c). */
        for (int c = 0; c < b; c++)
            for (int a = 0; a < b; a++) Dx[bb * (size_t)i + (size_t)b * c + a] = inv[b * a + c];
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

/* ρ(D⁻¹K) of level l by power iteration from a fixed pseudo-random start. */
static void level_rho(sa_state *st, int l) {
    level *lv = &st->lev[l];
    double *v = lv->x, *w = lv->t;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int c = 0; c < lv->ndof; c++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[c] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    double lam = 0.0;
    for (int it = 0; it < SA_POWER_ITERS; it++) {
        double nv = 0.0;
        for (int c = 0; c < lv->ndof; c++) nv += v[c] * v[c];
        nv = sqrt(nv);
        if (!(nv > 0.0)) break;
        for (int c = 0; c < lv->ndof; c++) v[c] /= nv;
        sym_mv(lv->K, v, w);
        dinv_mv(lv, w, v);
        double nw = 0.0;
        for (int c = 0; c < lv->ndof; c++) nw += v[c] * v[c];
        lam = sqrt(nw);
    }
    lv->rho = lam > 0.0 ? lam : 1.0;
}

/* Tentative prolongator T_l (ndof_l × k nagg_l) and B_{l+1} (= R), from B_l (level 0:
 * the rigid modes at positions x, or the translations when k = 3) and, on level 0, the
 * filter f (NULL: none). dropped[c] marks coarse DOFs whose column is zero. */
static int tentative(sa_state *st, int l, const weft_filter *f, const double *x,
                     unsigned char *dropped, weft_error *err) {
    level *lv = &st->lev[l], *nx = &st->lev[l + 1];
    cholmod_common *cc = &st->w->cc;
    const int b = lv->b, k = st->k;
    size_t nnz = (size_t)b * lv->nodes * k;
    cholmod_free_sparse(&lv->T, cc);
    lv->T = cholmod_allocate_sparse((size_t)lv->ndof, (size_t)k * lv->nagg, nnz, 1, 1, 0,
                                    CHOLMOD_REAL, cc);
    if (!nx->B) nx->B = malloc((size_t)k * k * lv->nagg * sizeof *nx->B);
    int maxm = 0;
    for (int a = 0; a < lv->nagg; a++)
        if (lv->agg_ptr[a + 1] - lv->agg_ptr[a] > maxm) maxm = lv->agg_ptr[a + 1] - lv->agg_ptr[a];
    double *M = malloc((size_t)b * maxm * k * sizeof *M + 1);
    if (!lv->T || !nx->B || !M) {
        free(M);
        return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory for level %d", l);
    }
    int *Tp = lv->T->p, *Ti = lv->T->i;
    double *Tx = lv->T->x;
    int p = 0;
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
        for (int c = 0; c < k; c++) {
            Tp[a * k + c] = p;
            for (int q = 0; q < nm; q++)
                for (int e = 0; e < b; e++) {
                    Ti[p] = b * mem[q] + e;
                    Tx[p++] = M[(size_t)c * m + (size_t)b * q + e];
                }
        }
    }
    Tp[k * lv->nagg] = p;
    free(M);
    return WEFT_OK;
}

/* Vaněk et al.'s filtered matrix K^F of level l for prolongator smoothing: K's strong
 * blocks and diagonal blocks, each weak block K_ij (j ≠ i) dropped and added to the
 * diagonal block K^F_ii (row sums kept, so K^F t = K t for every translation t). With
 * strength 0 every block is strong and K^F = K. NULL when out of memory. */
static cholmod_sparse *filtered_matrix(sa_state *st, int l) {
    level *lv = &st->lev[l];
    const cholmod_sparse *K = lv->K;
    const int b = lv->b, *Kp = K->p, *Ki = K->i;
    const double *Kx = K->x;
    cholmod_sparse *F = cholmod_allocate_sparse(K->nrow, K->ncol, cholmod_nnz((cholmod_sparse *)K, &st->w->cc),
                                                1, 1, 0, CHOLMOD_REAL, &st->w->cc);
    int *mark = malloc(((size_t)lv->nodes + 1) * sizeof *mark);
    if (!F || !mark) {
        cholmod_free_sparse(&F, &st->w->cc);
        free(mark);
        return NULL;
    }
    int *Fp = F->p, *Fi = F->i, q = 0;
    double *Fx = F->x;
    for (int i = 0; i < lv->nodes; i++) mark[i] = -1;
    for (int i = 0; i < lv->nodes; i++) {
        mark[i] = i;
        for (int t = lv->sptr[i]; t < lv->sptr[i + 1]; t++) mark[lv->sadj[t]] = i;
        /* lump[a][c] = Σ_weak K_ij[a][c] = Σ_weak K(j b + c, i b + a). */
        double lump[36] = {0};
        for (int a = 0; a < b; a++)
            for (int p = Kp[i * b + a]; p < Kp[i * b + a + 1]; p++)
                if (mark[Ki[p] / b] != i) lump[b * a + Ki[p] % b] += Kx[p];
        for (int c = 0; c < b; c++) {
            Fp[i * b + c] = q;
            for (int p = Kp[i * b + c]; p < Kp[i * b + c + 1]; p++) {
                int j = Ki[p] / b;
                if (mark[j] != i) continue;
                Fi[q] = Ki[p];
                Fx[q++] = Kx[p] + (j == i ? lump[b * (Ki[p] % b) + c] : 0.0);
            }
        }
    }
    Fp[lv->ndof] = q;
    free(mark);
    return F;
}

/* Level l + 1 from level l: D⁻¹, ρ, T, P = (I − ω/ρ D⁻¹K) T and K_{l+1} = PᵀKP + E. */
static int build_next(sa_state *st, int l, const weft_filter *f, const double *x,
                      weft_error *err) {
    level *lv = &st->lev[l], *nx = &st->lev[l + 1];
    cholmod_common *cc = &st->w->cc;
    int k = st->k, ncd = k * lv->nagg;
    int rc = level_work(lv, err);
    if (!rc) rc = level_diagonal(st, l, err);
    if (rc) return rc;
    level_rho(st, l);
    unsigned char *dropped = calloc((size_t)ncd + 1, 1);
    if (!dropped) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
    if ((rc = tentative(st, l, f, x, dropped, err))) {
        free(dropped);
        return rc;
    }
    cholmod_sparse *KT = NULL, *DKT = NULL, *Pt = NULL, *KP = NULL, *C = NULL, *Ct = NULL,
                   *C2 = NULL, *E = NULL;
    double one[2] = {1, 0}, damp[2] = {-st->set.omega / lv->rho, 0}, half[2] = {0.5, 0};
    cholmod_free_sparse(&lv->P, cc);
    cholmod_sparse *KF = st->set.strength > 0.0 ? filtered_matrix(st, l) : NULL;
    KT = st->set.strength > 0.0 && !KF ? NULL : cholmod_ssmult(KF ? KF : lv->K, lv->T, 0, 1, 1, cc);
    cholmod_free_sparse(&KF, cc);
    if (KT) DKT = cholmod_ssmult(lv->D, KT, 0, 1, 1, cc);
    if (DKT) lv->P = cholmod_add(lv->T, DKT, one, damp, 1, 1, cc);
    if (lv->P) Pt = cholmod_transpose(lv->P, 1, cc);
    if (Pt) KP = cholmod_ssmult(lv->K, lv->P, 0, 1, 1, cc);
    if (KP) C = cholmod_ssmult(Pt, KP, 0, 1, 1, cc);
    if (C) Ct = cholmod_transpose(C, 1, cc);
    if (Ct) C2 = cholmod_add(C, Ct, half, half, 1, 1, cc);
    if (C2) E = cholmod_speye((size_t)ncd, (size_t)ncd, CHOLMOD_REAL, cc);
    if (E) {
        double *Ex = E->x;
        for (int c = 0; c < ncd; c++) Ex[c] = dropped[c] ? 1.0 : 0.0;
        cholmod_free_sparse(&nx->K, cc);
        nx->K = cholmod_add(C2, E, one, one, 1, 1, cc);
    }
    bool ok = E && nx->K;
    cholmod_free_sparse(&KT, cc), cholmod_free_sparse(&DKT, cc), cholmod_free_sparse(&Pt, cc);
    cholmod_free_sparse(&KP, cc), cholmod_free_sparse(&C, cc), cholmod_free_sparse(&Ct, cc);
    cholmod_free_sparse(&C2, cc), cholmod_free_sparse(&E, cc);
    free(dropped);
    if (!ok)
        return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: Galerkin product of level %d failed "
                         "(CHOLMOD status %d)", l, cc->status);
    nx->nodes = lv->nagg, nx->b = k, nx->ndof = ncd;
    return WEFT_OK;
}

/* Factorises the coarsest level's K with CHOLMOD. */
static int factor_coarsest(sa_state *st, weft_error *err) {
    sa_work *w = st->w;
    level *lv = &st->lev[st->nlev - 1];
    cholmod_sparse *U = cholmod_copy(lv->K, 1, 1, &w->cc);
    if (!U) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: out of memory");
    cholmod_free_factor(&w->L, &w->cc);
    w->L = cholmod_analyze(U, &w->cc);
    int ok = w->L && cholmod_factorize(U, w->L, &w->cc);
    cholmod_free_sparse(&U, &w->cc);
    if (!ok) return weft_fail(err, WEFT_ERR_NOMEM, "sa_amg: coarsest factorisation failed");
    if (w->cc.status == CHOLMOD_NOT_POSDEF)
        return weft_fail(err, WEFT_ERR_DIVERGED, "ppcg: sa_amg preconditioner: coarsest level "
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
    int rc = fine_pattern(st, A, err);
    if (rc) return rc;
    fine_values(st, A, NULL);
    centroid(st, positions);
    int l = 0;
    for (; l + 1 < st->set.levels && l + 1 < SA_MAX_LEVELS; l++) {
        level *lv = &st->lev[l];
        if (lv->nodes <= st->set.coarsest) break;
        if ((rc = aggregate(st, l, err))) return rc;
        /* Stop when the coarse level would not be clearly smaller. */
        if ((double)lv->nagg * st->k > 0.8 * lv->ndof) break;
        if ((rc = build_next(st, l, NULL, positions, err))) return rc;
    }
    st->nlev = l + 1;
    return level_work(&st->lev[l], err);
}

static int sa_update(void *state, const weft_bsr *A, const weft_filter *f,
                     const double *positions, weft_error *err) {
    sa_state *st = state;
    if (st->nlev == 0) {
        int rc = sa_setup(st, A, positions, err);
        if (rc) return rc;
    }
    const double *x = st->k == 6 ? (positions ? positions : st->x0) : NULL;
    centroid(st, x);
    fine_values(st, A, f);
    for (int l = 0; l + 1 < st->nlev; l++) {
        int rc = build_next(st, l, l == 0 ? f : NULL, x, err);
        if (rc) return rc;
    }
    /* The coarsest blocks only for the check that names a non-SPD vertex or node. */
    int rc = level_diagonal(st, st->nlev - 1, err);
    return rc ? rc : factor_coarsest(st, err);
}

/* ------------------------------------------------------------------------------ */
/* Apply: one V-cycle                                                              */
/* ------------------------------------------------------------------------------ */

/* One block Gauss-Seidel sweep on K x = f, nodes ascending (forward) or descending. */
static void gauss_seidel(const level *lv, bool forward) {
    const int b = lv->b, *Kp = lv->K->p, *Ki = lv->K->i;
    const double *Kx = lv->K->x;
    double *x = lv->x;
    for (int s = 0; s < lv->nodes; s++) {
        int i = forward ? s : lv->nodes - 1 - s;
        double r[6], dx[6];
        for (int a = 0; a < b; a++) {
            int c = i * b + a;
            double sum = lv->f[c];
            for (int p = Kp[c]; p < Kp[c + 1]; p++) sum -= Kx[p] * x[Ki[p]];
            r[a] = sum;
        }
        const double *M = &lv->Dinv[(size_t)b * b * i];
        for (int a = 0; a < b; a++) {
            double sum = 0.0;
            for (int c = 0; c < b; c++) sum += M[b * a + c] * r[c];
            dx[a] = sum;
        }
        for (int a = 0; a < b; a++) x[i * b + a] += dx[a];
    }
}

/* One damped block-Jacobi sweep: x += (4/3ρ) D⁻¹ (f − K x). */
static void jacobi(const level *lv) {
    sym_mv(lv->K, lv->x, lv->t);
    for (int c = 0; c < lv->ndof; c++) lv->t[c] = lv->f[c] - lv->t[c];
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

static void smooth(const sa_state *st, const level *lv, bool pre) {
    for (int s = 0; s < st->set.sweeps; s++) {
        if (st->set.smoother == WEFT_SA_AMG_JACOBI)
            jacobi(lv);
        else
            gauss_seidel(lv, pre);
    }
}

/* x_l = V-cycle(l) applied to f_l, starting from x_l = 0. */
static void vcycle(const sa_state *st, int l) {
    const level *lv = &st->lev[l];
    if (l == st->nlev - 1) {
        sa_work *w = st->w;
        memcpy(w->rhs->x, lv->f, (size_t)lv->ndof * sizeof *lv->f);
        cholmod_solve2(CHOLMOD_A, w->L, w->rhs, NULL, &w->X, NULL, &w->Y, &w->E, &w->cc);
        memcpy(lv->x, w->X->x, (size_t)lv->ndof * sizeof *lv->x);
        return;
    }
    const level *nx = &st->lev[l + 1];
    memset(lv->x, 0, (size_t)lv->ndof * sizeof *lv->x);
    smooth(st, lv, true);
    /* t = f − K x, restricted: f_{l+1} = Pᵀ t (column c of P dotted with t). */
    sym_mv(lv->K, lv->x, lv->t);
    for (int c = 0; c < lv->ndof; c++) lv->t[c] = lv->f[c] - lv->t[c];
    const int *Pp = lv->P->p, *Pi = lv->P->i;
    const double *Px = lv->P->x;
    for (int c = 0; c < nx->ndof; c++) {
        double s = 0.0;
        for (int p = Pp[c]; p < Pp[c + 1]; p++) s += Px[p] * lv->t[Pi[p]];
        nx->f[c] = s;
    }
    vcycle(st, l + 1);
    for (int c = 0; c < nx->ndof; c++)
        for (int p = Pp[c]; p < Pp[c + 1]; p++) lv->x[Pi[p]] += Px[p] * nx->x[c];
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
    const cholmod_sparse *M = which == 'K' ? lv->K : which == 'P' ? lv->P : which == 'T' ? lv->T : NULL;
    if (!M) return -1;
    size_t nr = M->nrow, nc = M->ncol;
    memset(out, 0, nr * nc * sizeof *out);
    const int *Mp = M->p, *Mi = M->i;
    const double *Mx = M->x;
    for (size_t c = 0; c < nc; c++)
        for (int p = Mp[c]; p < Mp[c + 1]; p++) out[(size_t)Mi[p] * nc + c] = Mx[p];
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
