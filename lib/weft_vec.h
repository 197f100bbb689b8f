/* weft_vec.h — the small vector helpers every folder needs, in one place: 3-vectors
 * (double[3], m, m/s or N as the caller's) and flat arrays of n values. Header-only so
 * the compiler inlines them into the loops that use them. */
#ifndef WEFT_VEC_H
#define WEFT_VEC_H

#include <math.h>
#include <stddef.h>

/* a · b for 3-vectors. */
static inline double weft_dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
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

#endif
