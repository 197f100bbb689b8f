/* linsolve_sys.h — the linear systems the linear-solver and preconditioner tests solve
 * (test_linsolve.c, test_boomeramg.c, test_sa_amg.c): the hanging cloth's backward-Euler
 * matrix A = ∇²E (analytic PSD element Hessians) + M/h² (h = 1/60 s), its pins as 3-DOF
 * filters, up to `planes` 1-DOF plane filters with random normals near random vertices,
 * and a random right-hand side b (N); x (m) is allocated for the solution. */
#ifndef WEFT_LINSOLVE_SYS_H
#define WEFT_LINSOLVE_SYS_H

#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_linsolve.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sys {
    weft_model m;
    weft_assembly *as;
    weft_bsr *A;
    weft_filter f;
    double *b, *x;
} sys;

/* Given s->m built, assembles A at s->m.x, sets the pins and `planes` random plane
 * filters and a random b from seed; returns the number of pinned vertices, -1 on failure. */
static inline int sys_finish(sys *s, int planes, uint64_t seed) {
    weft_error err = {{0}};
    int n = s->m.n;
    s->as = weft_assembly_create(&s->m, &err);
    CHECK(s->as != NULL);
    if (!s->as) return -1;
    s->A = weft_assembly_matrix(s->as);
    CHECK(isfinite(weft_assembly_run(s->as, &s->m, s->m.x, WEFT_HESSIAN_ANALYTIC, NULL, 1)));
    double h = 1.0 / 60.0, *d = malloc((size_t)n * sizeof *d);
    for (int i = 0; i < n; i++) d[i] = s->m.mass[i] / (h * h);
    weft_bsr_add_diagonal(s->A, d);
    free(d);
    CHECK(weft_filter_create(&s->f, n, &err) == WEFT_OK);
    int pins = 0;
    for (int i = 0; i < n; i++)
        if (s->m.pin[i] >= 0) {
            weft_filter_pin(&s->f, i, &s->m.x[3 * i]);
            pins++;
        }
    lcg g = {seed};
    for (int c = 0; c < planes; c++) {
        int i = (int)(rnd(&g) * n);
        if (s->m.pin[i] >= 0) continue;
        double nrm[3] = {rnd_in(&g, -1, 1), rnd_in(&g, -1, 1), rnd_in(&g, -1, 1)}, z[3];
        for (int k = 0; k < 3; k++) z[k] = s->m.x[3 * i + k] + rnd_in(&g, -0.01, 0.01);
        CHECK(weft_filter_plane(&s->f, i, nrm, z, &err) == WEFT_OK);
    }
    s->b = malloc(3 * (size_t)n * sizeof *s->b);
    s->x = malloc(3 * (size_t)n * sizeof *s->x);
    for (int k = 0; k < 3 * n; k++) s->b[k] = rnd_in(&g, -1, 1);
    return pins;
}

/* The nx × nx hanging cloth at rest with its 2 pins and 6 random planes (seed). */
static inline bool make_sys(sys *s, int nx, uint64_t seed) {
    weft_error err = {{0}};
    memset(s, 0, sizeof *s);
    weft_scene *sc = weft_scene_load("hanging_cloth", &err);
    CHECK(sc != NULL);
    if (!sc) return false;
    char a[32], b[32];
    snprintf(a, sizeof a, "mesh.nx=%d", nx);
    snprintf(b, sizeof b, "mesh.ny=%d", nx);
    int rc = weft_scene_set(sc, a, "test", &err);
    if (rc == WEFT_OK) rc = weft_scene_set(sc, b, "test", &err);
    if (rc == WEFT_OK) rc = weft_scene_build(sc, weft_energy_registry, &s->m, &err);
    weft_scene_free(&sc);
    if (rc != WEFT_OK) fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == WEFT_OK);
    if (rc != WEFT_OK) return false;
    int pins = sys_finish(s, 6, seed);
    CHECK(pins == 2);
    return pins >= 0;
}

/* Frees what s owns. */
static inline void free_sys(sys *s) {
    weft_assembly_free(&s->as);
    weft_model_free(&s->m);
    weft_filter_destroy(&s->f);
    free(s->b);
    free(s->x);
}

/* x keeps the filter's constrained DOFs at z: pins bitwise, planes n̂·x = n̂·z to 1e-14
 * relative. */
static inline void check_filtered(const weft_filter *f, const double *x) {
    for (int i = 0; i < f->n; i++) {
        const double *xi = &x[3 * i], *zi = &f->z[3 * i];
        if (f->ndof[i] == 3) CHECK(memcmp(xi, zi, 3 * sizeof(double)) == 0);
        if (f->ndof[i] == 1) {
            const double *e = &f->dir[6 * i];
            CHECK_NEAR(dot3(e, xi), dot3(e, zi), 1e-14 * norm3(zi));
        }
    }
}

#endif
