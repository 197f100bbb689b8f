/* weft_vec.h — the small vector helpers every folder needs, in one place: 3-vectors
 * (double[3], m, m/s or N as the caller's) and flat arrays of n values. Header-only so
 * the compiler inlines them into the loops that use them. */
#ifndef WEFT_VEC_H
#define WEFT_VEC_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

/* a · b for 3-vectors. */
static inline double weft_dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* p = the point of the sphere |p| = r about 0 closest to y: (|y| > 0 ? r/|y| : 0) y,
 * |y| summed in the order y₀y₀ + y₁y₁ + y₂y₂ (the sphere_radius contract of weft_energy.h
 * is this formula); p may alias y. */
static inline void weft_sphere_project3(double r, const double *y, double *p) {
    const double l = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    const double s = l > 0.0 ? r / l : 0.0;
    for (int k = 0; k < 3; k++) p[k] = s * y[k];
}

/* out = a × b (out must not alias a or b). */
static inline void weft_cross3(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* ‖a‖₂ of a 3-vector. */
static inline double weft_norm3(const double *a) { return sqrt(weft_dot3(a, a)); }

/* a · b over n values. */
static inline double weft_dot(const double *a, const double *b, size_t n) {
    double s = 0.0;
    for (size_t k = 0; k < n; k++) s += a[k] * b[k];
    return s;
}

/* ‖a‖₂ over n values. */
static inline double weft_norm(const double *a, size_t n) { return sqrt(weft_dot(a, a, n)); }

/* Cholesky factor of a symmetric 3×3 M (row-major, lower triangle read) into L (lower,
 * row-major); false unless M is positive definite with a finite factor. */
static inline bool weft_cholesky33(const double M[9], double L[9]) {
    double l00 = M[0];
    if (!(l00 > 0.0)) return false;
    l00 = sqrt(l00);
    double l10 = M[3] / l00, l20 = M[6] / l00;
    double d1 = M[4] - l10 * l10;
    if (!(d1 > 0.0)) return false;
    double l11 = sqrt(d1);
    double l21 = (M[7] - l20 * l10) / l11;
    double d2 = M[8] - l20 * l20 - l21 * l21;
    if (!(d2 > 0.0) || !isfinite(d2)) return false;
    L[0] = l00, L[1] = 0.0, L[2] = 0.0;
    L[3] = l10, L[4] = l11, L[5] = 0.0;
    L[6] = l20, L[7] = l21, L[8] = sqrt(d2);
    return true;
}

/* Solves L Lᵀ x = b with weft_cholesky33's factor L. */
static inline void weft_cholesky33_solve(const double L[9], const double b[3], double x[3]) {
    double z0 = b[0] / L[0];
    double z1 = (b[1] - L[3] * z0) / L[4];
    double z2 = (b[2] - L[6] * z0 - L[7] * z1) / L[8];
    x[2] = z2 / L[8];
    x[1] = (z1 - L[7] * x[2]) / L[4];
    x[0] = (z0 - L[3] * x[1] - L[6] * x[2]) / L[0];
}

#endif
