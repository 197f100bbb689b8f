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

/* Solves L D Lᵀ u = y in place for three right-hand sides stored row by row
 * (y[3k + c], c = x, y, z; k in L's permuted order, row k being original row L->Perm[k]):
 * forward substitution by columns of the unit lower L, the division by D (L's diagonal
 * entries), back substitution by rows of Lᵀ. L must be a simplicial LDLᵀ factor of doubles
 * with int indices (!is_super, !is_ll), as cholmod_factorize leaves it. */
void weft_cholmod_ldl_solve3(const cholmod_factor *L, double *y);

#endif
