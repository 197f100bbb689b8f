/* weft_cholmod.h — handing a block-sparse matrix (weft_sparse.h) to SuiteSparse CHOLMOD.
 * Only lib/linalg/ (the filtered CHOLMOD solve, linsolve.c) and the tests of the
 * hand-over include it, so <cholmod.h> reaches no other code; solvers reach CHOLMOD
 * through the linear-solver plug-in (weft_linear_cholmod, weft_linsolve.h). */
#ifndef WEFT_CHOLMOD_H
#define WEFT_CHOLMOD_H

#include "weft_sparse.h"

#include <cholmod.h>

/* A's upper triangle as a CHOLMOD matrix (3n×3n scalars, stype = 1, compressed sparse
 * columns, sorted, packed, real), allocated with cc, values filled. Free it with
 * cholmod_free_sparse. Returns NULL with a message on failure. */
cholmod_sparse *weft_bsr_cholmod_pattern(const weft_bsr *A, cholmod_common *cc,
                                         weft_error *err);

/* Refills S's values in place from A (S from weft_bsr_cholmod_pattern of a matrix with
 * A's pattern); allocates nothing. Fails if S's shape does not match A. */
int weft_bsr_cholmod_values(const weft_bsr *A, cholmod_sparse *S, weft_error *err);

/* A simplicial LDLᵀ factor L D Lᵀ = P K Pᵀ copied from CHOLMOD for three right-hand sides
 * at once: L's strictly lower part by columns (cp, ci, cx, packed), and D. The row indices
 * ci are byte offsets of rows of the solve's array (32 × the row). */
typedef struct weft_ldl3 {
    int n;
    int *cp, *ci;
    double *cx, *d;
} weft_ldl3;

/* Copies the simplicial LDLᵀ factor L (of doubles, int indices; !is_super, !is_ll, as
 * cholmod_factorize leaves it) into f, freeing f's previous arrays. Returns 0, or -1 when
 * L is of another kind or memory runs out (f is then empty). */
int weft_ldl3_from_cholmod(weft_ldl3 *f, const cholmod_factor *L);

/* Frees f's arrays and empties it (n = 0). */
void weft_ldl3_free(weft_ldl3 *f);

/* Solves L D Lᵀ u = y in place, y 32-byte aligned with four doubles per row (y[4k + c]:
 * c = 0, 1, 2 the x, y, z right-hand sides, lane 3 unused; row k in the factor's order, the
 * original row L->Perm[k]): forward substitution by L's columns (each column's updates
 * independent of each other), then D⁻¹ and back substitution by the same columns read as
 * rows of Lᵀ (dot products in four partial sums), the three coordinates in one SIMD
 * register; the factor's arrays are streamed once per sweep. */
void weft_ldl3_solve(const weft_ldl3 *f, double *y);

#endif
