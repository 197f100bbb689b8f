/* precond_boomeramg.c — HYPRE's BoomerAMG (classical algebraic multigrid) as a PPCG
 * preconditioner: one V-cycle V from a zero guess on the filtered matrix
 *     K = S A S + (I − S)                                          (weft_linsolve.h),
 * handed to HYPRE as a 3n × 3n scalar CSR matrix and applied in the filtered form of
 * Tamstorf, Jones & McCormick 2015,
 *     z = M⁻¹ r = S V(S r) + (I − S) r.
 * With the same symmetric smoother on both legs and an exact coarsest solve, V is
 * symmetric positive definite, so M⁻¹ is too and keeps range(S), as CG on K needs;
 * tolerance 0 and one iteration make V a fixed linear map.
 * Papers: Henson & Yang 2002, "BoomerAMG: a parallel algebraic multigrid solver and
 * preconditioner" (Appl. Numer. Math. 41); Baker, Kolev & Yang 2010, "Improving algebraic
 * multigrid interpolation operators for linear elasticity problems" (Numer. Linear
 * Algebra Appl. 17): systems AMG with 3 functions a vertex, nodal coarsening on a norm of
 * the 3×3 blocks, and the filtered rigid rotations S_i (e_m × (x_i − c)) (c the centroid)
 * as interpolation vectors (GM variant 2); without positions, nodal coarsening only.
 * Settings ([boomeramg]): relax (symmetric choices only; default 8, on one rank symmetric
 * Gauss-Seidel), sweeps, coarsen, interp, strong_threshold, max_levels, aggressive_levels,
 * interp_max_elements and vec_q_max (P truncated to 2 + 2 a row), rigid_modes, nodal,
 * vec_variant, print_level.
 * Work split: setup (per pattern) builds the scalar CSR structure, index map and work
 * vectors; update (per matrix) writes K's values, builds HYPRE's matrix and runs
 * HYPRE_BoomerAMGSetup (HYPRE has no pattern-only phase). HYPRE's calls run with the
 * thread count given to create (restored after each call).
 * MPI: HYPRE runs on MPI_COMM_SELF; the first creation initialises MPI
 * (MPI_THREAD_FUNNELED) unless the program did, then HYPRE, and finalises at exit only what
 * it initialised (pthread_once guards the start-up).
 * Choices, defaults and measurements: papers/boomeramg-bench.md.
 */
#include "linalg_internal.h"

#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Settings, [boomeramg] section. */
typedef struct boomeramg_settings {
    double strong_threshold; /* strength of connection θ (dimensionless) */
    int coarsen;             /* index into coarsen_names */
    int interp;              /* index into interp_names */
    int relax;               /* index into relax_names */
    int sweeps;              /* smoother sweeps per leg */
    int max_levels;
    int aggressive_levels;   /* levels of aggressive coarsening from the finest */
    int interp_max_elements; /* P's entries per row kept (0: all) */
    bool rigid_modes;        /* rotations as interpolation vectors */
    int nodal;               /* index into nodal_names */
    int vec_variant;         /* HYPRE_BoomerAMGSetInterpVecVariant: 1, 2, 3 */
    int vec_q_max;           /* HYPRE_BoomerAMGSetInterpVecQMax (0: all) */
    int print_level;         /* HYPRE_BoomerAMGSetPrintLevel: 0 silent, 1 set-up statistics */
} boomeramg_settings;

/* The words of the NAME settings and the HYPRE codes they stand for. */
static const char *const coarsen_names[] = {"hmis", "pmis", "falgout", "cljp", "rs", NULL};
static const int coarsen_codes[] = {10, 8, 6, 0, 3};
static const char *const interp_names[] = {"ext_i", "classical", "direct", "standard",
                                           "extended", NULL};
static const int interp_codes[] = {6, 0, 3, 8, 14};
static const char *const relax_names[] = {"l1_symmetric_gs", "symmetric_gs", "l1_jacobi",
                                          "chebyshev", NULL};
static const int relax_codes[] = {8, 6, 18, 16};
static const char *const nodal_names[] = {"row_sum", "frobenius", "abs_sum", "largest", "sum",
                                          "unknown", NULL};
static const int nodal_codes[] = {4, 1, 2, 3, 6, 0};

#define F(field) offsetof(boomeramg_settings, field)
static const weft_param boomeramg_params[] = {
    {.key = "strong_threshold", .type = WEFT_PARAM_DOUBLE, .offset = F(strong_threshold),
     .unit = "1", .lo = 0, .hi = 1, .dflt = 0.25,
     .doc = "strength of connection: j strongly influences i if -a_ij >= theta max_k -a_ik"},
    {.key = "coarsen", .type = WEFT_PARAM_NAME, .offset = F(coarsen), .unit = "",
     .names = coarsen_names, .dflt_name = "hmis",
     .doc = "C/F splitting (HYPRE coarsen type 10, 8, 6, 0, 3)"},
    {.key = "interp", .type = WEFT_PARAM_NAME, .offset = F(interp), .unit = "",
     .names = interp_names, .dflt_name = "ext_i",
     .doc = "interpolation (HYPRE interp type 6, 0, 3, 8, 14)"},
    {.key = "relax", .type = WEFT_PARAM_NAME, .offset = F(relax), .unit = "",
     .names = relax_names, .dflt_name = "l1_symmetric_gs",
     .doc = "symmetric smoother on both legs (HYPRE relax type 8, 6, 18, 16); coarsest: "
            "Gaussian elimination"},
    {.key = "sweeps", .type = WEFT_PARAM_INT, .offset = F(sweeps), .unit = "", .lo = 1,
     .hi = 100, .dflt = 1, .doc = "smoother sweeps before and after each coarse correction"},
    {.key = "max_levels", .type = WEFT_PARAM_INT, .offset = F(max_levels), .unit = "",
     .lo = 1, .hi = 100, .dflt = 25, .doc = "most levels of the hierarchy"},
    {.key = "aggressive_levels", .type = WEFT_PARAM_INT, .offset = F(aggressive_levels),
     .unit = "", .lo = 0, .hi = 100, .dflt = 0,
     .doc = "levels of aggressive coarsening, from the finest"},
    {.key = "interp_max_elements", .type = WEFT_PARAM_INT, .offset = F(interp_max_elements),
     .unit = "", .lo = 0, .hi = 1000, .dflt = 2,
     .doc = "interpolation entries kept per row (0: no truncation; HYPRE's default is 4)"},
    {.key = "rigid_modes", .type = WEFT_PARAM_BOOL, .offset = F(rigid_modes), .unit = "",
     .dflt = 1,
     .doc = "the three rotations about the centroid as interpolation vectors (Baker et al. "
            "2010); needs nodal coarsening"},
    {.key = "nodal", .type = WEFT_PARAM_NAME, .offset = F(nodal), .unit = "",
     .names = nodal_names, .dflt_name = "row_sum",
     .doc = "coarsen on a norm of the 3x3 blocks (HYPRE nodal 4, 1, 2, 3, 6), or unknown by "
            "unknown (0)"},
    {.key = "vec_variant", .type = WEFT_PARAM_INT, .offset = F(vec_variant), .unit = "",
     .lo = 1, .hi = 3, .dflt = 2,
     .doc = "interpolation-vector variant: 1 GM-1, 2 GM-2 (HYPRE's advice), 3 LN"},
    {.key = "vec_q_max", .type = WEFT_PARAM_INT, .offset = F(vec_q_max), .unit = "", .lo = 0,
     .hi = 1000, .dflt = 2,
     .doc = "entries per row of the rigid-mode part Q of P (0: no truncation)"},
    {.key = "print_level", .type = WEFT_PARAM_INT, .offset = F(print_level), .unit = "",
     .lo = 0, .hi = 1, .dflt = 0,
     .doc = "1: HYPRE prints each set-up's hierarchy (levels, sizes, complexities) to stdout"},
    {0},
};
#undef F

static const weft_param_table boomeramg_tables[] = {{"boomeramg", boomeramg_params, 0}, {0}};

typedef struct amg_state {
    int n, threads;          /* vertices; HYPRE's OpenMP team during its calls */
    HYPRE_Int N;             /* 3n scalar unknowns */
    boomeramg_settings set;
    /* Scalar CSR of K (from setup, A's pattern): row r holds ncols[r] entries from
     * row_start[r], cols ascending; values written by update. */
    HYPRE_Int *ncols, *diag_sizes, *offd_sizes;
    HYPRE_BigInt *rows, *cols;
    size_t *row_start;
    double *vals;
    int pattern_nnzb;
    /* Packed values handed to HYPRE (zeros off the diagonal dropped). */
    HYPRE_Int *pk_ncols;
    HYPRE_BigInt *pk_cols;
    double *pk_vals;
    double *S;               /* 9n: the filter's projectors at the last update */
    double *tmp;             /* 3n scratch for S r */
    HYPRE_BigInt *idx;       /* 0 .. N-1 */
    HYPRE_IJMatrix Aij;
    HYPRE_IJVector bij, xij;
    HYPRE_ParVector b, x;
    HYPRE_ParVector modes[3];
    HYPRE_IJVector modes_ij[3];
    HYPRE_Solver amg;
    bool ready;              /* a hierarchy was built by the last update */
} amg_state;

/* ------------------------------------------------------------------------------ */
/* MPI and HYPRE start-up                                                          */
/* ------------------------------------------------------------------------------ */

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int start_rc = -1;         /* 0 once MPI and HYPRE are up */
static bool we_initialised_mpi;

static void stop_hypre_mpi(void) {
    HYPRE_Finalize();
    int fin = 0;
    MPI_Finalized(&fin);
    if (we_initialised_mpi && !fin) MPI_Finalize();
}

static void start_hypre_mpi(void) {
    int inited = 0;
    if (MPI_Initialized(&inited) != MPI_SUCCESS) return;
    if (!inited) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return;
        we_initialised_mpi = true;
    }
    if (HYPRE_Init() != 0) return;
    atexit(stop_hypre_mpi);
    start_rc = 0;
}

/* ------------------------------------------------------------------------------ */
/* Plug-in                                                                         */
/* ------------------------------------------------------------------------------ */

static void free_hierarchy(amg_state *st) {
    if (st->amg) HYPRE_BoomerAMGDestroy(st->amg);
    st->amg = NULL;
    /* HYPRE keeps the finest level's interpolation vectors as given: they are ours. */
    for (int v = 0; v < 3; v++) {
        if (st->modes_ij[v]) HYPRE_IJVectorDestroy(st->modes_ij[v]);
        st->modes_ij[v] = NULL;
        st->modes[v] = NULL;
    }
    if (st->Aij) HYPRE_IJMatrixDestroy(st->Aij);
    st->Aij = NULL;
    st->ready = false;
}

static void free_pattern(amg_state *st) {
    free(st->ncols), free(st->diag_sizes), free(st->offd_sizes), free(st->rows);
    free(st->cols), free(st->row_start), free(st->vals);
    free(st->pk_ncols), free(st->pk_cols), free(st->pk_vals);
    st->ncols = st->diag_sizes = st->offd_sizes = st->pk_ncols = NULL;
    st->rows = st->cols = st->pk_cols = NULL;
    st->row_start = NULL;
    st->vals = st->pk_vals = NULL;
    st->pattern_nnzb = -1;
}

static void amg_destroy(void *state) {
    amg_state *st = state;
    if (!st) return;
    free_hierarchy(st);
    if (st->bij) HYPRE_IJVectorDestroy(st->bij);
    if (st->xij) HYPRE_IJVectorDestroy(st->xij);
    free_pattern(st);
    free(st->S), free(st->tmp), free(st->idx);
    free(st);
}

/* An IJ vector of N values on MPI_COMM_SELF, assembled (zeros). */
static int make_vector(HYPRE_Int N, HYPRE_IJVector *v, HYPRE_ParVector *par) {
    if (HYPRE_IJVectorCreate(MPI_COMM_SELF, 0, N - 1, v)) return -1;
    HYPRE_IJVectorSetObjectType(*v, HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(*v);
    HYPRE_IJVectorAssemble(*v);
    void *obj = NULL;
    HYPRE_IJVectorGetObject(*v, &obj);
    *par = obj;
    return obj ? 0 : -1;
}

static void *amg_create(int n, const void *settings, int threads, weft_error *err) {
    boomeramg_settings set;
    if (settings)
        memcpy(&set, settings, sizeof set);
    else
        weft_settings_default(boomeramg_tables, &set);
    if (set.rigid_modes && nodal_codes[set.nodal] == 0) {
        weft_fail(err, WEFT_ERR_INPUT, "boomeramg: rigid_modes needs nodal coarsening "
                  "(boomeramg.nodal other than unknown)");
        return NULL;
    }
    if (n < 1 || n > (int)(0x7fffffff / 3)) {
        weft_fail(err, WEFT_ERR_INPUT, "boomeramg: %d vertices", n);
        return NULL;
    }
    pthread_once(&start_once, start_hypre_mpi);
    if (start_rc != 0) {
        weft_fail(err, WEFT_ERR_INPUT, "boomeramg: MPI or HYPRE failed to start");
        return NULL;
    }
    amg_state *st = calloc(1, sizeof *st);
    if (!st) {
        weft_fail(err, WEFT_ERR_NOMEM, "boomeramg: out of memory");
        return NULL;
    }
    st->n = n, st->threads = threads;
    st->N = 3 * (HYPRE_Int)n;
    st->set = set;
    st->pattern_nnzb = -1;
    st->S = malloc(9 * (size_t)n * sizeof *st->S);
    st->tmp = malloc(3 * (size_t)n * sizeof *st->tmp);
    st->idx = malloc((size_t)st->N * sizeof *st->idx);
    if (!st->S || !st->tmp || !st->idx || make_vector(st->N, &st->bij, &st->b) ||
        make_vector(st->N, &st->xij, &st->x)) {
        amg_destroy(st);
        weft_fail(err, WEFT_ERR_NOMEM, "boomeramg: out of memory");
        return NULL;
    }
    for (HYPRE_Int k = 0; k < st->N; k++) st->idx[k] = k;
    return st;
}

/* The scalar CSR structure of A's pattern: row 3i + a holds columns 3j + b for every
 * block (i, j), ascending. */
static int amg_setup(void *state, const weft_bsr *A, const double *positions,
                     weft_error *err) {
    (void)positions;
    amg_state *st = state;
    if (A->n != st->n)
        return weft_fail(err, WEFT_ERR_INPUT, "boomeramg: made for %d vertices, given %d",
                         st->n, A->n);
    free_hierarchy(st);
    free_pattern(st);
    size_t N = (size_t)st->N, nnz = 9 * (size_t)A->nnzb;
    st->ncols = malloc(N * sizeof *st->ncols);
    st->pk_ncols = malloc(N * sizeof *st->pk_ncols);
    st->diag_sizes = malloc(N * sizeof *st->diag_sizes);
    st->offd_sizes = calloc(N, sizeof *st->offd_sizes);
    st->rows = malloc(N * sizeof *st->rows);
    st->row_start = malloc((N + 1) * sizeof *st->row_start);
    st->cols = malloc(nnz * sizeof *st->cols);
    st->pk_cols = malloc(nnz * sizeof *st->pk_cols);
    st->vals = malloc(nnz * sizeof *st->vals);
    st->pk_vals = malloc(nnz * sizeof *st->pk_vals);
    if (!st->ncols || !st->pk_ncols || !st->diag_sizes || !st->offd_sizes || !st->rows ||
        !st->row_start || !st->cols || !st->pk_cols || !st->vals || !st->pk_vals) {
        free_pattern(st);
        return weft_fail(err, WEFT_ERR_NOMEM, "boomeramg: out of memory for %zu entries",
                         nnz);
    }
    size_t e = 0;
    for (int i = 0; i < A->n; i++) {
        int len = A->row_ptr[i + 1] - A->row_ptr[i];
        for (int a = 0; a < 3; a++) {
            size_t r = 3 * (size_t)i + (size_t)a;
            st->rows[r] = (HYPRE_BigInt)r;
            st->ncols[r] = 3 * len;
            st->row_start[r] = e;
            for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                for (int b = 0; b < 3; b++) st->cols[e++] = 3 * (HYPRE_BigInt)A->col[k] + b;
        }
    }
    st->row_start[N] = e;
    st->pattern_nnzb = A->nnzb;
    return WEFT_OK;
}

/* The three filtered rotations about the centroid as HYPRE vectors (see the top). */
static int make_modes(amg_state *st, const weft_filter *f, const double *x) {
    double c[3] = {0, 0, 0};
    for (int i = 0; i < st->n; i++)
        for (int a = 0; a < 3; a++) c[a] += x[3 * (size_t)i + a];
    for (int a = 0; a < 3; a++) c[a] /= st->n;
    for (int v = 0; v < 3; v++) {
        if (make_vector(st->N, &st->modes_ij[v], &st->modes[v])) return -1;
        for (int i = 0; i < st->n; i++) {
            const double *xi = &x[3 * (size_t)i];
            double d[3] = {xi[0] - c[0], xi[1] - c[1], xi[2] - c[2]}, w[3];
            /* e_v × d */
            w[0] = v == 1 ? d[2] : v == 2 ? -d[1] : 0.0;
            w[1] = v == 2 ? d[0] : v == 0 ? -d[2] : 0.0;
            w[2] = v == 0 ? d[1] : v == 1 ? -d[0] : 0.0;
            const double *S = &f->S[9 * (size_t)i];
            for (int a = 0; a < 3; a++)
                st->tmp[3 * (size_t)i + a] = S[3 * a] * w[0] + S[3 * a + 1] * w[1] +
                                             S[3 * a + 2] * w[2];
        }
        HYPRE_IJVectorInitialize(st->modes_ij[v]);
        HYPRE_IJVectorSetValues(st->modes_ij[v], st->N, st->idx, st->tmp);
        HYPRE_IJVectorAssemble(st->modes_ij[v]);
    }
    return 0;
}

static void set_options(amg_state *st, HYPRE_Solver s, bool modes) {
    const boomeramg_settings *p = &st->set;
    HYPRE_BoomerAMGSetPrintLevel(s, p->print_level);
    HYPRE_BoomerAMGSetTol(s, 0.0);
    HYPRE_BoomerAMGSetMaxIter(s, 1);
    HYPRE_BoomerAMGSetStrongThreshold(s, p->strong_threshold);
    HYPRE_BoomerAMGSetCoarsenType(s, coarsen_codes[p->coarsen]);
    HYPRE_BoomerAMGSetInterpType(s, interp_codes[p->interp]);
    HYPRE_BoomerAMGSetPMaxElmts(s, p->interp_max_elements);
    HYPRE_BoomerAMGSetRelaxType(s, relax_codes[p->relax]); /* coarsest: 9, elimination */
    HYPRE_BoomerAMGSetNumSweeps(s, p->sweeps);
    HYPRE_BoomerAMGSetMaxLevels(s, p->max_levels);
    HYPRE_BoomerAMGSetAggNumLevels(s, p->aggressive_levels);
    /* Systems AMG: three interleaved functions per vertex (HYPRE's default dof map). */
    HYPRE_BoomerAMGSetNumFunctions(s, 3);
    HYPRE_BoomerAMGSetNodal(s, nodal_codes[p->nodal]);
    if (modes) {
        HYPRE_BoomerAMGSetInterpVectors(s, 3, st->modes);
        HYPRE_BoomerAMGSetInterpVecVariant(s, p->vec_variant);
        HYPRE_BoomerAMGSetInterpVecQMax(s, p->vec_q_max);
    }
}

/* K's values from A and the filter, packed without the zeros off the diagonal; the
 * hierarchy rebuilt. */
static int hypre_hierarchy(amg_state *st, const weft_filter *f, const double *positions,
                           weft_error *err);

static int amg_update(void *state, const weft_bsr *A, const weft_filter *f,
                      const double *positions, weft_error *err) {
    amg_state *st = state;
    if (A->n != st->n || f->n != st->n || st->pattern_nnzb != A->nnzb)
        return weft_fail(err, WEFT_ERR_INPUT, "boomeramg: update of %d vertices (%d blocks) "
                         "on a set-up of %d (%d)", A->n, A->nnzb, st->n, st->pattern_nnzb);
    free_hierarchy(st);
    memcpy(st->S, f->S, 9 * (size_t)st->n * sizeof *st->S);
    /* K_ij = S_i A_ij S_j, K_ii += I − S_i, scattered into the scalar rows. */
    for (int i = 0; i < A->n; i++) {
        const double *Si = &f->S[9 * (size_t)i];
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            double T[9], B[9];
            weft_mul33(Si, &A->val[9 * (size_t)k], T);
            weft_mul33(T, &f->S[9 * (size_t)A->col[k]], B);
            if (k == A->diag[i])
                for (int q = 0; q < 9; q++) B[q] += (q % 4 == 0) - Si[q];
            int kk = k - A->row_ptr[i];
            for (int a = 0; a < 3; a++) {
                double *row = &st->vals[st->row_start[3 * (size_t)i + a]];
                for (int b = 0; b < 3; b++) row[3 * kk + b] = B[3 * a + b];
            }
        }
    }
    /* Pack: drop exact zeros off the diagonal (the couplings a filter removed); check
     * that every diagonal entry is positive and everything is finite. */
    size_t e = 0;
    for (HYPRE_Int r = 0; r < st->N; r++) {
        size_t s0 = st->row_start[r], s1 = st->row_start[r + 1];
        HYPRE_Int m = 0;
        bool diag_ok = false;
        for (size_t q = s0; q < s1; q++) {
            double v = st->vals[q];
            if (!isfinite(v))
                return weft_fail(err, WEFT_ERR_DIVERGED, "boomeramg: the filtered matrix is "
                                 "not finite in row %d (vertex %d)", (int)r, (int)(r / 3));
            bool diag = st->cols[q] == r;
            if (diag) diag_ok = v > 0.0;
            if (v == 0.0 && !diag) continue;
            st->pk_cols[e] = st->cols[q];
            st->pk_vals[e] = v;
            e++, m++;
        }
        if (!diag_ok)
            return weft_fail(err, WEFT_ERR_INDEFINITE, "boomeramg: filtered diagonal entry "
                             "%d of vertex %d is not positive", (int)(r % 3), (int)(r / 3));
        st->pk_ncols[r] = m;
        st->diag_sizes[r] = m;
    }
    weft_thread_scope saved = weft_threads_enter(st->threads);
    int rc = hypre_hierarchy(st, f, positions, err);
    weft_threads_leave(saved);
    return rc;
}

/* HYPRE's matrix from the packed values and BoomerAMG's set-up on it (the calls HYPRE
 * may thread). */
static int hypre_hierarchy(amg_state *st, const weft_filter *f, const double *positions,
                           weft_error *err) {
    if (HYPRE_IJMatrixCreate(MPI_COMM_SELF, 0, st->N - 1, 0, st->N - 1, &st->Aij))
        return weft_fail(err, WEFT_ERR_NOMEM, "boomeramg: HYPRE matrix not created");
    HYPRE_IJMatrixSetObjectType(st->Aij, HYPRE_PARCSR);
    HYPRE_IJMatrixSetDiagOffdSizes(st->Aij, st->diag_sizes, st->offd_sizes);
    HYPRE_IJMatrixInitialize(st->Aij);
    HYPRE_IJMatrixSetValues(st->Aij, st->N, st->pk_ncols, st->rows, st->pk_cols, st->pk_vals);
    HYPRE_IJMatrixAssemble(st->Aij);
    void *obj = NULL;
    HYPRE_IJMatrixGetObject(st->Aij, &obj);
    if (!obj || HYPRE_GetError()) {
        HYPRE_ClearAllErrors();
        free_hierarchy(st);
        return weft_fail(err, WEFT_ERR_NOMEM, "boomeramg: HYPRE could not assemble K");
    }
    bool modes = st->set.rigid_modes && positions;
    if (modes && make_modes(st, f, positions)) {
        free_hierarchy(st);
        return weft_fail(err, WEFT_ERR_NOMEM, "boomeramg: out of memory for the rigid modes");
    }
    HYPRE_BoomerAMGCreate(&st->amg);
    set_options(st, st->amg, modes);
    HYPRE_ParCSRMatrix K = obj;
    HYPRE_BoomerAMGSetup(st->amg, K, st->b, st->x);
    if (HYPRE_GetError()) {
        /* HYPRE flags warnings too (a zero row of a coarse operator, say): keep going unless
         * there is no hierarchy; a bad M shows up in PCG as indefinite. */
        HYPRE_ClearAllErrors();
    }
    st->ready = true;
    return WEFT_OK;
}

/* z = S V(S r) + (I − S) r. */
static void amg_apply(const void *state, const double *r, double *z) {
    const amg_state *st = state;
    size_t n3 = 3 * (size_t)st->n;
    if (!st->ready) {
        memcpy(z, r, n3 * sizeof *z);
        return;
    }
    double *t = st->tmp;
    for (int i = 0; i < st->n; i++) {
        const double *S = &st->S[9 * (size_t)i], *ri = &r[3 * (size_t)i];
        for (int a = 0; a < 3; a++)
            t[3 * i + a] = S[3 * a] * ri[0] + S[3 * a + 1] * ri[1] + S[3 * a + 2] * ri[2];
    }
    weft_thread_scope saved = weft_threads_enter(st->threads);
    HYPRE_IJVectorInitialize(st->bij);
    HYPRE_IJVectorSetValues(st->bij, st->N, st->idx, t);
    HYPRE_IJVectorAssemble(st->bij);
    HYPRE_ParVectorSetConstantValues(st->x, 0.0);
    void *K = NULL;
    HYPRE_IJMatrixGetObject(st->Aij, &K);
    HYPRE_BoomerAMGSolve(st->amg, (HYPRE_ParCSRMatrix)K, st->b, st->x);
    HYPRE_ClearAllErrors(); /* max_iter 1 with tol 0 "fails to converge" by design */
    HYPRE_IJVectorGetValues(st->xij, st->N, st->idx, t);
    weft_threads_leave(saved);
    for (int i = 0; i < st->n; i++) {
        const double *S = &st->S[9 * (size_t)i], *ti = &t[3 * (size_t)i];
        const double *ri = &r[3 * (size_t)i];
        for (int a = 0; a < 3; a++) {
            double sr = S[3 * a] * ri[0] + S[3 * a + 1] * ri[1] + S[3 * a + 2] * ri[2];
            z[3 * i + a] = S[3 * a] * ti[0] + S[3 * a + 1] * ti[1] + S[3 * a + 2] * ti[2] +
                           (ri[a] - sr);
        }
    }
}

const weft_precond_type weft_precond_boomeramg = {
    .name = "boomeramg",
    .paper = "Henson & Yang 2002; Baker, Kolev & Yang 2010 (HYPRE BoomerAMG, elasticity "
             "interpolation)",
    .summary = "one BoomerAMG V-cycle (HYPRE) on the filtered matrix, systems AMG with "
               "rigid-body interpolation vectors",
    .settings_size = sizeof(boomeramg_settings),
    .settings = boomeramg_tables,
    .create = amg_create,
    .setup = amg_setup,
    .update = amg_update,
    .apply = amg_apply,
    .destroy = amg_destroy,
};
