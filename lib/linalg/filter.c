/* filter.c — per-vertex constraint filters (weft_linsolve.h), after Baraff & Witkin 1998,
 * "Large Steps in Cloth Simulation" §5.3, and Kim & Eberle 2020, "Dynamic Deformables"
 * ch. 9.1:
 *     S_i = I − Σ_d d̂ d̂ᵀ  over vertex i's k orthonormal constrained directions d̂,
 * so S_i = I, I − p̂p̂ᵀ, I − p̂p̂ᵀ − q̂q̂ᵀ or 0 for k = 0, 1, 2, 3, and (I − S_i) z_i holds
 * the prescribed values (m or m/s). Composition x = y + z keeps the constrained
 * components of z: bitwise for k = 3, to one projection's rounding for k = 1, 2.
 */
#include "weft_linsolve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int weft_filter_create(weft_filter *f, int n, weft_error *err) {
    memset(f, 0, sizeof *f);
    if (n < 0) return weft_fail(err, WEFT_ERR_INPUT, "filter: %d vertices", n);
    size_t m = n > 0 ? (size_t)n : 1;
    f->n = n;
    f->ndof = malloc(m * sizeof *f->ndof);
    f->dir = malloc(6 * m * sizeof *f->dir);
    f->S = malloc(9 * m * sizeof *f->S);
    f->z = malloc(3 * m * sizeof *f->z);
    if (!f->ndof || !f->dir || !f->S || !f->z) {
        weft_filter_destroy(f);
        return weft_fail(err, WEFT_ERR_NOMEM, "filter: cannot allocate %d vertices", n);
    }
    weft_filter_free_all(f);
    return WEFT_OK;
}

void weft_filter_destroy(weft_filter *f) {
    free(f->ndof);
    free(f->dir);
    free(f->S);
    free(f->z);
    memset(f, 0, sizeof *f);
}

/* S_i = I − Σ_{d < k} d̂ d̂ᵀ from the stored directions (all of them for k = 3: exactly 0). */
static void set_projector(weft_filter *f, int i) {
    double *S = &f->S[9 * (size_t)i];
    int k = f->ndof[i];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double s = a == b && k < 3 ? 1.0 : 0.0;
            for (int d = 0; d < k && k < 3; d++) {
                const double *e = &f->dir[6 * (size_t)i + 3 * (size_t)d];
                s -= e[a] * e[b];
            }
            S[a * 3 + b] = s;
        }
}

void weft_filter_free_all(weft_filter *f) {
    for (int i = 0; i < f->n; i++) {
        f->ndof[i] = 0;
        memset(&f->dir[6 * (size_t)i], 0, 6 * sizeof(double));
        memset(&f->z[3 * (size_t)i], 0, 3 * sizeof(double));
        set_projector(f, i);
    }
}

void weft_filter_pin(weft_filter *f, int i, const double z[3]) {
    WEFT_ASSERT(i >= 0 && i < f->n);
    f->ndof[i] = 3;
    memset(&f->dir[6 * (size_t)i], 0, 6 * sizeof(double));
    memcpy(&f->z[3 * (size_t)i], z, 3 * sizeof(double));
    set_projector(f, i);
}

static bool finite3(const double *v) { return isfinite(v[0] + v[1] + v[2]) != 0; }

/* Normalises v in place; false if it is zero or not finite. */
static bool normalise(double *v) {
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(l > 0.0) || !isfinite(l)) return false;
    for (int a = 0; a < 3; a++) v[a] /= l;
    return true;
}

int weft_filter_plane(weft_filter *f, int i, const double normal[3], const double z[3],
                      weft_error *err) {
    double p[3] = {normal[0], normal[1], normal[2]};
    if (i < 0 || i >= f->n)
        return weft_fail(err, WEFT_ERR_INPUT, "filter plane: vertex %d out of [0, %d)", i, f->n);
    if (!normalise(p) || !finite3(z))
        return weft_fail(err, WEFT_ERR_INPUT, "filter plane: vertex %d: normal (%g %g %g) "
                         "must be non-zero and finite, z finite", i, normal[0], normal[1],
                         normal[2]);
    f->ndof[i] = 1;
    double *d = &f->dir[6 * (size_t)i];
    memcpy(d, p, sizeof p);
    memset(d + 3, 0, 3 * sizeof(double));
    memcpy(&f->z[3 * (size_t)i], z, 3 * sizeof(double));
    set_projector(f, i);
    return WEFT_OK;
}

int weft_filter_line(weft_filter *f, int i, const double p[3], const double q[3],
                     const double z[3], weft_error *err) {
    double u[3] = {p[0], p[1], p[2]}, v[3] = {q[0], q[1], q[2]};
    if (i < 0 || i >= f->n)
        return weft_fail(err, WEFT_ERR_INPUT, "filter line: vertex %d out of [0, %d)", i, f->n);
    bool ok = normalise(u) && finite3(z);
    if (ok) {
        double c = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        for (int a = 0; a < 3; a++) v[a] -= c * u[a];
        /* Parallel p and q leave a v of rounding size: demand a clear angle. */
        double lq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        double lv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        ok = lv > 1e-8 * lq && normalise(v);
    }
    if (!ok)
        return weft_fail(err, WEFT_ERR_INPUT, "filter line: vertex %d: directions must be "
                         "finite, non-zero and not parallel, z finite", i);
    f->ndof[i] = 2;
    double *d = &f->dir[6 * (size_t)i];
    memcpy(d, u, sizeof u);
    memcpy(d + 3, v, sizeof v);
    memcpy(&f->z[3 * (size_t)i], z, 3 * sizeof(double));
    set_projector(f, i);
    return WEFT_OK;
}

void weft_filter_apply(const weft_filter *f, const double *x, double *y) {
    for (int i = 0; i < f->n; i++) {
        const double *S = &f->S[9 * (size_t)i], *xi = &x[3 * (size_t)i];
        double t[3];
        for (int a = 0; a < 3; a++)
            t[a] = S[3 * a] * xi[0] + S[3 * a + 1] * xi[1] + S[3 * a + 2] * xi[2];
        memcpy(&y[3 * (size_t)i], t, sizeof t);
    }
}

void weft_filter_compose(const weft_filter *f, const double *y, double *x) {
    for (int i = 0; i < f->n; i++) {
        const double *yi = &y[3 * (size_t)i], *zi = &f->z[3 * (size_t)i];
        double *xi = &x[3 * (size_t)i];
        int k = f->ndof[i];
        if (k == 3) {
            memcpy(xi, zi, 3 * sizeof(double));
            continue;
        }
        double w[3] = {yi[0] + zi[0], yi[1] + zi[1], yi[2] + zi[2]};
        for (int d = 0; d < k; d++) {
            const double *e = &f->dir[6 * (size_t)i + 3 * (size_t)d];
            double s = (e[0] * zi[0] + e[1] * zi[1] + e[2] * zi[2]) -
                       (e[0] * w[0] + e[1] * w[1] + e[2] * w[2]);
            for (int a = 0; a < 3; a++) w[a] += s * e[a];
        }
        /* An axis-aligned direction constrains one coordinate: copy it bitwise. */
        for (int d = 0; d < k; d++) {
            const double *e = &f->dir[6 * (size_t)i + 3 * (size_t)d];
            for (int a = 0; a < 3; a++)
                if (e[(a + 1) % 3] == 0.0 && e[(a + 2) % 3] == 0.0) w[a] = zi[a];
        }
        memcpy(xi, w, sizeof w);
    }
}
