/* test_util.h — helpers the C tests share: a seeded random generator (tests use fixed
 * seeds, never the library) and small 3-vector operations. */
#ifndef WEFT_TEST_UTIL_H
#define WEFT_TEST_UTIL_H

#include <math.h>
#include <stdint.h>

/* Knuth's MMIX 64-bit LCG; the top 53 bits give a double in [0, 1). */
typedef struct lcg {
    uint64_t s;
} lcg;

/* Uniform in [0, 1). */
static inline double rnd(lcg *g) {
    g->s = g->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(g->s >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [lo, hi). */
static inline double rnd_in(lcg *g, double lo, double hi) { return lo + (hi - lo) * rnd(g); }

/* a · b */
static inline double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* out = a × b (out may alias a or b). */
static inline void cross3(const double *a, const double *b, double *out) {
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                   a[0] * b[1] - a[1] * b[0]};
    out[0] = c[0], out[1] = c[1], out[2] = c[2];
}

/* |a| */
static inline double norm3(const double *a) { return sqrt(dot3(a, a)); }

/* Largest |a_i| over n values. */
static inline double max_abs(const double *a, int n) {
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

#endif
