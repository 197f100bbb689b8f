/* weft_sparse.h — whole-model Hessians as sparse symmetric matrices of 3×3 blocks, their
 * parallel assembly from the energy descriptors, and their hand-over to CHOLMOD.
 *
 * The Hessian of E(x) = Σ_terms Σ_elements Ψ(x_e) couples vertices i and j only when an
 * element holds both, so it is stored as a block-sparse-row (BSR) matrix over the n
 * vertices: block (i, j) is the 3×3 matrix ∂²E/∂x_i∂x_j (N/m), row-major. Both triangles
 * are stored (block (j, i) = block (i, j)ᵀ), so y = A x is one pass over the rows and
 * parallel per row; each block row's columns are sorted and its diagonal block present.
 *
 * Use by an implicit solver (Newton on G(x) = ½‖x − x̃‖²_M / h² + E(x), Baraff & Witkin
 * 1998): once per model weft_assembly_create (all allocation, the pattern, the colouring)
 * and weft_assembly_matrix; per Newton iteration weft_assembly_run (E, ∇E and the matrix
 * values; allocates nothing, so its time is one Hessian assembly; a non-finite E is
 * explained by weft_assembly_check), weft_bsr_add_diagonal (A + M/h²), then a linear
 * solver (weft_linsolve.h) or, through weft_cholmod.h, weft_bsr_cholmod_values into a
 * pattern exported once. weft_bsr_spmv and weft_bsr_cholmod_values allocate nothing.
 *
 * The CHOLMOD hand-over is declared apart, in weft_cholmod.h, so that only the code that
 * needs CHOLMOD (lib/linalg/, and the tests of the hand-over) includes its header.
 * A worked CHOLMOD example and the assembly's measurements: papers/sparse-assembly.md.
 */
#ifndef WEFT_SPARSE_H
#define WEFT_SPARSE_H

#include "weft.h"

/* ------------------------------------------------------------------------------ */
/* Block-sparse-row matrix of 3×3 blocks                                           */
/* ------------------------------------------------------------------------------ */

/* A symmetric n×n matrix of 3×3 blocks (3n×3n scalars), both triangles stored.
 * Block k sits in block row i for row_ptr[i] <= k < row_ptr[i+1], in block column col[k]
 * (ascending within the row); its values are val[9k .. 9k+8], row-major. The pattern is
 * symmetric, and so must the values be (block (j, i) = block (i, j)ᵀ): functions below
 * may read either triangle. */
typedef struct weft_bsr {
    int n;        /* block rows = block columns = vertices */
    int nnzb;     /* stored blocks, both triangles */
    int *row_ptr; /* n + 1 */
    int *col;     /* nnzb block column indices, sorted within each row */
    int *diag;    /* n: index k of the diagonal block (i, i) */
    double *val;  /* 9 nnzb values, N/m for a Hessian */
} weft_bsr;

/* Builds the pattern of m's Hessian into A (values zero): block (i, j) for every pair of
 * vertices that share an element of any term, and every diagonal block. Fails with a
 * message naming the term and element if an element has a vertex index out of range. */
int weft_bsr_pattern(weft_bsr *A, const weft_model *m, weft_error *err);

/* Frees what A owns and zeroes it; safe on a zeroed matrix. */
void weft_bsr_free(weft_bsr *A);

/* Index k of block (i, j), or -1 if it is not in the pattern (binary search). */
int weft_bsr_block(const weft_bsr *A, int i, int j);

/* y = A x (3n values each; y must not alias x), rows split over `threads` OpenMP
 * threads; every row is summed in column order, so y does not depend on threads. */
void weft_bsr_spmv(const weft_bsr *A, const double *x, double *y, int threads);

/* Copies the n diagonal blocks into D (9n values, block i at D[9i], row-major), e.g.
 * for a block-Jacobi preconditioner. */
void weft_bsr_diagonal_blocks(const weft_bsr *A, double *D);

/* Adds d[i] I₃ to diagonal block i (d: n values, e.g. m_i / h² in kg/s² = N/m). */
void weft_bsr_add_diagonal(weft_bsr *A, const double *d);

/* Writes A as a dense 3n×3n row-major matrix into dense (9n² values); for tests and
 * small n only. */
void weft_bsr_to_dense(const weft_bsr *A, double *dense);

/* Reverse Cuthill-McKee ordering of A's vertex graph (George & Liu 1981 §4.3, with their
 * pseudo-peripheral start vertex): perm[k] is the old index of the vertex placed k-th.
 * Reduces the bandwidth max |k(i) − k(j)| over blocks (i, j). Returns WEFT_ERR_NOMEM if
 * its scratch cannot be allocated. */
int weft_rcm_order(const weft_bsr *A, int *perm);

/* ------------------------------------------------------------------------------ */
/* Assembly of E, ∇E and ∇²E from a model                                          */
/* ------------------------------------------------------------------------------ */

/* Assembles a model's energy, gradient and Hessian into a weft_bsr. Created once per
 * model; owns the matrix, for every element the block index of each of its nv² blocks
 * (so adding an element needs no search), and a colouring per term of batches of
 * consecutive elements (batches of one colour share no vertex, so a colour's batches
 * are added in parallel without atomics). Each block and each gradient entry receives
 * its contributions in the same order (term, colour, batch, element) whatever the thread
 * count, so results are bitwise identical for any number of threads. */
typedef struct weft_assembly weft_assembly;

/* Creates the assembly for m: pattern, block map and colouring. Fails, naming the term,
 * if a term has an energy but no Hessian (it would silently be left out) or an element
 * has a vertex out of range. Terms with no energy at all (constraints) are skipped. */
weft_assembly *weft_assembly_create(const weft_model *m, weft_error *err);

/* Frees the assembly and sets *a to NULL; safe on NULL. */
void weft_assembly_free(weft_assembly **a);

/* The assembled matrix; callers may change its values (e.g. add M/h²) between runs. */
weft_bsr *weft_assembly_matrix(weft_assembly *a);

/* Term t's elements are assembled in Hessian mode `mode` (a weft_hessian_mode) by the
 * following runs whatever mode a run is given, or in the run's mode again (mode = -1, the
 * default): a solver that wants one term's Hessian treated otherwise than the rest. */
void weft_assembly_term_mode(weft_assembly *a, int t, int mode);

/* Assembles at positions x (3n, m): the matrix receives ∇²E(x) (or the PSD projection
 * of each element's Hessian, per mode), grad (if non-NULL, 3n values, N) receives ∇E(x),
 * and the return value is E(x) in J, summed in term then element order like
 * weft_model_energy. Each element's Hessian is symmetrised, ½(H + Hᵀ), as it is added (a
 * bitwise no-op for a symmetric H), so A is exactly symmetric. Uses `threads` OpenMP
 * threads (1 = serial). Returns +INFINITY if any element gave a non-finite Ψ, gradient
 * or Hessian, or if m is not the model a was created for: weft_assembly_check then says
 * which. Allocates nothing. */
double weft_assembly_run(weft_assembly *a, const weft_model *m, const double *x,
                         weft_hessian_mode mode, double *grad, int threads);


/* Term t's colouring: returns the number of colours, with *ptr (colours + 1 offsets into
 * *order), *order (batch indices, colour by colour, ascending within a colour) and
 * *batch (elements per batch: batch b holds elements [b batch, (b + 1) batch) of the
 * term); 0 colours and NULLs for a skipped or absent term. For tests and reports. */
int weft_assembly_colouring(const weft_assembly *a, int t, const int **ptr, const int **order,
                            int *batch);

/* Elements with a non-finite Ψ, gradient or Hessian in the last run; the first of them
 * in term then element order goes to *term and *elem (-1 if none; either may be NULL). */
int weft_assembly_nonfinite(const weft_assembly *a, int *term, int *elem);

/* WEFT_OK if the last run was finite; otherwise WEFT_ERR_DIVERGED with a one-line message
 * naming the first bad element, e.g. "element 17 (vertices 3 4 9) of term 0
 * (stable_neo_hookean): energy is inf; 2 bad element(s) in all", or WEFT_ERR_INPUT if
 * the run was given a model other than the one the assembly was created for. */
int weft_assembly_check(const weft_assembly *a, weft_error *err);

#endif
