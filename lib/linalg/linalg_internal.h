/* linalg_internal.h — small 3×3 helpers the linear solvers and preconditioner files
 * share: products, the filtered diagonal block B_i = S_i D_i S_i + (I − S_i) of
 * K = S A S + (I − S), and the inverse of a symmetric positive definite 3×3 block.
 * Private to lib/linalg/. */
#ifndef WEFT_LINALG_INTERNAL_H
#define WEFT_LINALG_INTERNAL_H

#include "weft_linsolve.h"

#include <stdbool.h>

/* r = a b for 3×3 row-major matrices (r must not alias a or b). */
void weft_mul33(const double a[9], const double b[9], double r[9]);

/* B = S_i D_i S_i + (I − S_i) for vertex i of A under filter f (row-major 3×3),
 * symmetrised against the rounding of the products. */
void weft_filtered_diagonal(const weft_bsr *A, const weft_filter *f, int i, double B[9]);

/* inv = M⁻¹ for a symmetric 3×3 M by Cholesky; false unless M is positive definite. */
bool weft_inv_spd33(const double M[9], double inv[9]);

#endif
