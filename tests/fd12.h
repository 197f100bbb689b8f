/* fd12.h — finite-difference checks of a function of at most 12 coordinates (a contact
 * pair's four points) that returns its value and fills its gradient and Hessian
 * (test_ipc.c, test_ipc_friction.c): fourth-order central differences of the value and of
 * the gradient, compared relative to the largest gradient and Hessian entries. */
#ifndef WEFT_FD12_H
#define WEFT_FD12_H

#include "check.h"
#include "test_util.h"

#include <math.h>

/* f(x, ctx, g, H): value at x; gradient into g (n) and Hessian into H (n×n, row-major)
 * when non-NULL. */
typedef double (*fd_fn)(const double *x, const void *ctx, double *g, double *H);

/* Fourth-order central difference along coordinate i of f's value (*dv) and gradient (dg). */
static inline void fd_column(fd_fn f, const void *ctx, const double *x, int n, int i, double h,
                             double *dv, double *dg) {
    double y[12], v[4], g[4][12];
    static const double off[4] = {-2, -1, 1, 2};
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < n; j++) y[j] = x[j];
        y[i] += off[k] * h;
        v[k] = f(y, ctx, g[k], NULL);
    }
    *dv = (v[0] - 8 * v[1] + 8 * v[2] - v[3]) / (12 * h);
    for (int j = 0; j < n; j++) dg[j] = (g[0][j] - 8 * g[1][j] + 8 * g[2][j] - g[3][j]) / (12 * h);
}

/* Checks f's gradient and Hessian at x against differences with step h, relative tol to
 * their largest entries (1 where they are all zero), and the Hessian's symmetry to 1e-12
 * of its largest entry. Returns the worst relative error seen. */
static inline double fd_check(fd_fn f, const void *ctx, const double *x, int n, double h,
                              double tol) {
    double g[12], H[144], worst = 0;
    f(x, ctx, g, H);
    double gs = max_abs(g, n), Hs = max_abs(H, n * n);
    if (gs == 0) gs = 1;
    if (Hs == 0) Hs = 1;
    for (int i = 0; i < n; i++) {
        double dv, dg[12];
        fd_column(f, ctx, x, n, i, h, &dv, dg);
        CHECK_NEAR(g[i] / gs, dv / gs, tol);
        worst = fmax(worst, fabs(dv - g[i]) / gs);
        for (int j = 0; j < n; j++) {
            CHECK_NEAR(H[j * n + i] / Hs, dg[j] / Hs, tol);
            worst = fmax(worst, fabs(H[j * n + i] - dg[j]) / Hs);
            CHECK(fabs(H[i * n + j] - H[j * n + i]) <= 1e-12 * Hs);
        }
    }
    return worst;
}

#endif
