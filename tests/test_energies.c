/* test_energies.c — a generic harness over weft_energy_registry: every registered
 * energy type is checked through its descriptor alone (no per-energy code), so a new
 * energy file gets these tests by being listed in energies/registry.c:
 *   registry_gradients   ∇Ψ against central finite differences; gradient() returns Ψ
 *   registry_rest        Ψ = 0 and ∇Ψ = 0 at the rest configuration
 *   registry_invariance  Ψ(Rx + t) = Ψ(x) and ∇Ψ(Rx + t) = R ∇Ψ(x) for rigid motions
 *   registry_constraints the native constraint C: ∇C against finite differences,
 *                        C = 0 at rest, rigid invariance
 * plus closed-form energies of the two built-in types (closed_forms) and the whole-model
 * gradients that every solver's metrics rely on (residual_fd).
 *
 * Elements are built by kind (edge, triangle, hinge, tet) from random non-degenerate
 * rest shapes with type->init(e, xrest, coefficient = 2, area = 0.3); random numbers
 * come from a fixed-seed LCG so runs are reproducible.
 */
#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <stdbool.h>
#include <stdint.h>

#define COEFFICIENT 2.0
#define AREA 0.3
#define TRIALS 40

/* The material handed to every type's init. */
static const weft_energy_params PARAMS = {.stiffness = COEFFICIENT, .poisson = 0.3, .area = AREA,
                                          .fiber = {1.0, 0.3, 0.2}, .fiber_stiffness = 3.0};

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */
/* ------------------------------------------------------------------------------ */


/* A random unit vector. */
static void rnd_unit(lcg *g, double *u) {
    double l;
    do {
        for (int k = 0; k < 3; k++) u[k] = rnd_in(g, -1.0, 1.0);
        l = norm3(u);
    } while (l < 0.1 || l > 1.0);
    for (int k = 0; k < 3; k++) u[k] /= l;
}

/* The rotation matrix (row-major) of angle t about the unit axis a (Rodrigues). */
static void rotation(const double *a, double t, double R[9]) {
    double c = cos(t), s = sin(t);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[3 * i + j] = (1.0 - c) * a[i] * a[j] + (i == j ? c : 0.0);
    R[1] -= s * a[2], R[2] += s * a[1];
    R[3] += s * a[2], R[5] -= s * a[0];
    R[6] -= s * a[1], R[7] += s * a[0];
}

static void mat_vec(const double R[9], const double *v, double *out) {
    double r[3];
    for (int i = 0; i < 3; i++) r[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

/* Vertices per element of a kind the harness can build, or 0. */
static int kind_nv(weft_element_kind kind) {
    switch (kind) {
    case WEFT_ELEM_EDGE: return 2;
    case WEFT_ELEM_TRIANGLE: return 3;
    case WEFT_ELEM_HINGE: return 4;
    case WEFT_ELEM_TET: return 4;
    default: return 0;
    }
}

/* A random non-degenerate rest shape of the given kind in xe; returns its length scale
 * L (m), the edge length for edges and hinges, the longest edge otherwise.
 * - edge: two points 0.5–2 m apart;
 * - triangle: p0, p0 + L e, and a third point 0.5–1 L off the edge line;
 * - hinge: edge p0 p1, p2 0.5–1 L off the edge, p3 on the other side rotated about the
 *   edge by a rest dihedral in [−2, 2] rad (bent rest shapes, not only flat ones);
 * - tet: a triangle plus a fourth point 0.5–1 L off its plane.
 * All near a random centre in [−1, 1]³. */
static double rest_shape(lcg *g, weft_element_kind kind, double *xe) {
    double e[3], u[3], v[3], t[3], c[3];
    rnd_unit(g, e);
    do {
        rnd_unit(g, t);
        cross3(e, t, u);
    } while (norm3(u) < 0.3);
    double lu = norm3(u);
    for (int k = 0; k < 3; k++) u[k] /= lu;
    cross3(e, u, v);
    double L = rnd_in(g, 0.5, 2.0);
    for (int k = 0; k < 3; k++) c[k] = rnd_in(g, -1.0, 1.0);
    double a2 = rnd_in(g, 0.1, 0.9) * L, b2 = rnd_in(g, 0.5, 1.0) * L;
    double a3 = rnd_in(g, 0.1, 0.9) * L, b3 = rnd_in(g, 0.5, 1.0) * L;
    double phi = rnd_in(g, -2.0, 2.0), h3 = rnd_in(g, 0.5, 1.0) * L * (rnd(g) < 0.5 ? -1 : 1);
    for (int k = 0; k < 3; k++) {
        xe[k] = c[k];
        xe[3 + k] = c[k] + L * e[k];
        if (kind == WEFT_ELEM_EDGE) continue;
        xe[6 + k] = c[k] + a2 * e[k] + b2 * u[k];
        if (kind == WEFT_ELEM_HINGE)
            xe[9 + k] = c[k] + a3 * e[k] + b3 * (-cos(phi) * u[k] + sin(phi) * v[k]);
        else if (kind == WEFT_ELEM_TET)
            xe[9 + k] = c[k] + a3 * e[k] + 0.3 * b3 * u[k] + h3 * v[k];
    }
    if (kind == WEFT_ELEM_EDGE || kind == WEFT_ELEM_HINGE) return L;
    double m = 0.0;
    int nv = kind_nv(kind);
    for (int a = 0; a < nv; a++)
        for (int b = a + 1; b < nv; b++) {
            double d[3] = {xe[3 * a] - xe[3 * b], xe[3 * a + 1] - xe[3 * b + 1],
                           xe[3 * a + 2] - xe[3 * b + 2]};
            m = fmax(m, norm3(d));
        }
    return m;
}

/* A deformed configuration: every coordinate moved by up to ±0.08 L. Small enough
 * that no triangle or tet degenerates (heights ≥ 0.5 L move by < 0.3 L) and a hinge's
 * angle stays well inside (θ0 − π, θ0 + π), large enough for O(0.1) strains. */
static void deform(lcg *g, const double *xrest, int nv, double L, double *x) {
    for (int i = 0; i < 3 * nv; i++) x[i] = xrest[i] + rnd_in(g, -0.08, 0.08) * L;
}

/* Checks a type's nv against its kind and says whether the harness can build it. A
 * registered kind the harness does not know fails the case, so nobody can register an
 * energy that escapes these tests. */
static bool supported(const weft_energy_type *t) {
    int nv = kind_nv(t->kind);
    if (nv == 0) {
        fprintf(stderr, "%s: element kind %d has no generator in test_energies.c; add one\n",
                t->name, (int)t->kind);
        CHECK(nv != 0);
        return false;
    }
    CHECK(t->nv == nv);
    CHECK(t->init != NULL);
    return t->nv == nv && t->init;
}

/* Central finite differences of f over the 3 nv coordinates, step h. */
typedef double (*scalar_fn)(const weft_element *e, const double *xe);

static const weft_energy_type *current; /* the type constraint_value evaluates */

static double constraint_value(const weft_element *e, const double *xe) {
    return current->constraint(e, xe, NULL);
}

static void fd_gradient(scalar_fn f, const weft_element *e, const double *x, int nv, double h,
                        double *g) {
    double q[3 * WEFT_ELEM_MAXV];
    for (int i = 0; i < 3 * nv; i++) {
        memcpy(q, x, sizeof(double) * 3 * (size_t)nv);
        q[i] = x[i] + h;
        double fp = f(e, q);
        q[i] = x[i] - h;
        g[i] = (fp - f(e, q)) / (2.0 * h);
    }
}

/* ------------------------------------------------------------------------------ */
/* Generic cases                                                                   */
/* ------------------------------------------------------------------------------ */

static void test_registry_gradients(void) {
    int ntypes = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ntypes++) {
        const weft_energy_type *t = *tp;
        CHECK(weft_energy_find(t->name) == t); /* names are unique and findable */
        if (!supported(t)) continue;
        if (!t->energy || !t->gradient) {
            fprintf(stderr, "%s: no energy/gradient pair, skipping its FD check\n", t->name);
            continue;
        }
        lcg g = {1000 + (uint64_t)ntypes};
        int nv = t->nv;
        for (int trial = 0; trial < TRIALS; trial++) {
            double xr[3 * WEFT_ELEM_MAXV], x[3 * WEFT_ELEM_MAXV];
            double gr[3 * WEFT_ELEM_MAXV], fd[3 * WEFT_ELEM_MAXV];
            double L = rest_shape(&g, t->kind, xr);
            weft_element e = {.v = {0, 1, 2, 3}};
            t->init(&e, xr, &PARAMS);
            deform(&g, xr, nv, L, x);
            double psi = t->energy(&e, x);
            double psig = t->gradient(&e, x, gr);
            /* gradient() returns Ψ: the same quantity, so equal up to a few roundings. */
            CHECK_NEAR(psig, psi, 1e-13 * fabs(psi));
            CHECK(isfinite(psi) && psi >= 0.0);
            /* Central differences with h = 1e-6 L: truncation ~h² Ψ''' ~ 1e-12 relative
             * and rounding ~ε Ψ/h relative to |∇Ψ| ~ Ψ/(0.1 L): ~1e-9. A wrong term
             * is O(1) relative, so 1e-6 of max|∇Ψ| separates them safely. */
            fd_gradient(t->energy, &e, x, nv, 1e-6 * L, fd);
            double err = 0.0, scale = max_abs(gr, 3 * nv);
            for (int i = 0; i < 3 * nv; i++) err = fmax(err, fabs(gr[i] - fd[i]));
            if (!(err <= 1e-6 * scale))
                fprintf(stderr, "%s trial %d: FD error %.3g, max |grad| %.3g\n", t->name,
                        trial, err, scale);
            CHECK(scale > 0.0);
            CHECK(err <= 1e-6 * scale);
        }
    }
    CHECK(ntypes >= 2); /* mass_spring and dihedral_bending at least */
}

static void test_registry_rest(void) {
    int ti = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!supported(t) || !t->energy) continue;
        lcg g = {2000 + (uint64_t)ti};
        int nv = t->nv;
        for (int trial = 0; trial < TRIALS; trial++) {
            double xr[3 * WEFT_ELEM_MAXV], x[3 * WEFT_ELEM_MAXV], gr[3 * WEFT_ELEM_MAXV];
            double gd[3 * WEFT_ELEM_MAXV];
            double L = rest_shape(&g, t->kind, xr);
            weft_element e = {.v = {0, 1, 2, 3}};
            t->init(&e, xr, &PARAMS);
            /* Reference magnitudes from a deformed shape of the same element. */
            deform(&g, xr, nv, L, x);
            double psi_ref = t->energy(&e, x);
            CHECK(psi_ref > 0.0); /* deforming costs energy: the rest shape is a strict
                                     minimum of Ψ away from rigid motions */
            /* At rest the energy vanishes and is stationary. Rest data computed from the
             * same shape leave only rounding: strains ~1e-16, so Ψ ~ 1e-32 and ∇Ψ ~ 1e-16
             * in units of the deformed (strain ~0.1) values; 1e-12 and 1e-10 relative
             * are generous and still catch a wrong rest datum (O(1) relative). */
            CHECK(fabs(t->energy(&e, xr)) <= 1e-12 * psi_ref);
            if (t->gradient) {
                t->gradient(&e, x, gd);
                double psir = t->gradient(&e, xr, gr);
                CHECK(fabs(psir) <= 1e-12 * psi_ref);
                CHECK(max_abs(gr, 3 * nv) <= 1e-10 * max_abs(gd, 3 * nv));
            }
        }
    }
}

/* Applies x -> R x + tr to every vertex. */
static void rigid(const double R[9], const double *tr, const double *x, int nv, double *y) {
    for (int a = 0; a < nv; a++) {
        mat_vec(R, &x[3 * a], &y[3 * a]);
        for (int k = 0; k < 3; k++) y[3 * a + k] += tr[k];
    }
}

static void test_registry_invariance(void) {
    int ti = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!supported(t) || !t->energy) continue;
        lcg g = {3000 + (uint64_t)ti};
        int nv = t->nv;
        for (int trial = 0; trial < TRIALS; trial++) {
            double xr[3 * WEFT_ELEM_MAXV], x[3 * WEFT_ELEM_MAXV], y[3 * WEFT_ELEM_MAXV];
            double L = rest_shape(&g, t->kind, xr);
            weft_element e = {.v = {0, 1, 2, 3}};
            t->init(&e, xr, &PARAMS);
            deform(&g, xr, nv, L, x);
            double axis[3], R[9], tr[3];
            rnd_unit(&g, axis);
            rotation(axis, rnd_in(&g, -WEFT_PI, WEFT_PI), R);
            for (int k = 0; k < 3; k++) tr[k] = rnd_in(&g, -5.0, 5.0);
            rigid(R, tr, x, nv, y);
            /* Frame indifference: Ψ depends on the shape only. Moving the coordinates
             * rounds them by ~1e-15 m (|t| ≤ 5 m), which changes Ψ by at most
             * ~1e-15 · nv · max|∇Ψ| on top of its own relative rounding: the tolerance
             * 1e-12 (Ψ + L max|∇Ψ|) covers both with a wide margin (a small random
             * deformation can make Ψ itself tiny, so a purely relative bound would
             * be wrong), while a frame-dependent Ψ differs at O(Ψ). */
            double psi = t->energy(&e, x), psiy = t->energy(&e, y);
            double gx[3 * WEFT_ELEM_MAXV], gy[3 * WEFT_ELEM_MAXV], sum[3] = {0, 0, 0};
            double scale = 0.0;
            if (t->gradient) {
                t->gradient(&e, x, gx);
                scale = max_abs(gx, 3 * nv);
            }
            if (!(fabs(psiy - psi) <= 1e-12 * (psi + L * scale)))
                fprintf(stderr, "%s trial %d: Psi %.17g, moved %.17g\n", t->name, trial, psi,
                        psiy);
            CHECK(fabs(psiy - psi) <= 1e-12 * (psi + L * scale));
            if (t->gradient) {
                /* ∇Ψ(R x + t) = R ∇Ψ(x): forces rotate with the body (and, as Σ∇Ψ = 0 follows
                 * from translation invariance, sum to zero). Rounding as above, relative
                 * to max|∇Ψ| and amplified by the conditioning of ∇Ψ (~1/strain):
                 * 1e-10. */
                t->gradient(&e, y, gy);
                for (int a = 0; a < nv; a++) {
                    double rg[3];
                    mat_vec(R, &gx[3 * a], rg);
                    for (int k = 0; k < 3; k++) {
                        CHECK_NEAR(gy[3 * a + k], rg[k], 1e-10 * scale);
                        sum[k] += gx[3 * a + k];
                    }
                }
                for (int k = 0; k < 3; k++) CHECK_NEAR(sum[k], 0.0, 1e-12 * scale * nv);
            }
        }
    }
}

static void test_registry_constraints(void) {
    int ti = 0, tested = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!supported(t) || !t->constraint) continue;
        tested++;
        current = t;
        lcg g = {4000 + (uint64_t)ti};
        int nv = t->nv;
        for (int trial = 0; trial < TRIALS; trial++) {
            double xr[3 * WEFT_ELEM_MAXV], x[3 * WEFT_ELEM_MAXV], y[3 * WEFT_ELEM_MAXV];
            double gc[3 * WEFT_ELEM_MAXV], fd[3 * WEFT_ELEM_MAXV];
            double L = rest_shape(&g, t->kind, xr);
            weft_element e = {.v = {0, 1, 2, 3}};
            t->init(&e, xr, &PARAMS);
            deform(&g, xr, nv, L, x);
            double c = t->constraint(&e, x, gc);
            /* Filling the gradient does not change the value. */
            CHECK(t->constraint(&e, x, NULL) == c);
            /* ∇C against central differences: same argument as for Ψ (C is smooth
             * away from degenerate shapes; h = 1e-6 L). */
            fd_gradient(constraint_value, &e, x, nv, 1e-6 * L, fd);
            double err = 0.0, scale = max_abs(gc, 3 * nv);
            for (int i = 0; i < 3 * nv; i++) err = fmax(err, fabs(gc[i] - fd[i]));
            CHECK(scale > 0.0);
            CHECK(err <= 1e-6 * scale);
            /* C = 0 at rest (the rest data are where the constraint is satisfied), to
             * rounding: 1e-10 of the deformed |C| ~ 0.1. */
            double cr = t->constraint(&e, xr, NULL);
            CHECK(fabs(cr) <= 1e-10 * fmax(fabs(c), 1e-3));
            /* Rigid invariance of C (tolerance argued as for Ψ in registry_invariance). */
            double axis[3], R[9], tr[3];
            rnd_unit(&g, axis);
            rotation(axis, rnd_in(&g, -WEFT_PI, WEFT_PI), R);
            for (int k = 0; k < 3; k++) tr[k] = rnd_in(&g, -5.0, 5.0);
            rigid(R, tr, x, nv, y);
            CHECK_NEAR(t->constraint(&e, y, NULL), c, 1e-12 * (fabs(c) + L * scale));
        }
    }
    fprintf(stderr, "registry_constraints: %d type(s) with a native constraint\n", tested);
}

/* ------------------------------------------------------------------------------ */
/* Closed forms                                                                    */
/* ------------------------------------------------------------------------------ */

static void test_closed_forms(void) {
    /* mass_spring: k = Y A / ℓ0² with Y = coefficient = 2 N/m and A = area = 0.3 m².
     * Stretched to 1.5 ℓ0, C = 0.5 ℓ0 and Ψ = ½ k C² = ½ (0.6/ℓ0²)(0.25 ℓ0²) = 0.075 J,
     * independent of ℓ0 (the point of k ∝ 1/ℓ0²: Ψ = ½ Y A ε², mesh-independent).
     * The force is k C = 0.3/ℓ0 N along the edge, pulling the ends together. */
    const double l0s[] = {0.01, 0.7, 3.0};
    for (int i = 0; i < 3; i++) {
        double l0 = l0s[i];
        double xr[6] = {0, 0, 0, l0, 0, 0}, x[6] = {0, 0, 0, 1.5 * l0, 0, 0}, g[6];
        weft_element e = {.v = {0, 1, 0, 0}};
        weft_mass_spring.init(&e, xr, &PARAMS);
        CHECK_NEAR(e.k, COEFFICIENT * AREA / (l0 * l0), 1e-12 * e.k);
        /* A few roundings of O(1) quantities: 1e-14 relative. */
        CHECK_NEAR(weft_mass_spring.energy(&e, x), 0.075, 1e-14);
        weft_mass_spring.gradient(&e, x, g);
        CHECK_NEAR(g[0], -0.3 / l0, 1e-13 / l0);
        CHECK_NEAR(g[3], 0.3 / l0, 1e-13 / l0);
        CHECK(g[1] == 0.0 && g[2] == 0.0 && g[4] == 0.0 && g[5] == 0.0);
        /* Compressed to 0.5 ℓ0: the same |C|, the same energy (Ψ is even in C). */
        x[3] = 0.5 * l0;
        CHECK_NEAR(weft_mass_spring.energy(&e, x), 0.075, 1e-14);
    }
    /* dihedral_bending: k = D 3|e|²/A with D = coefficient = 2 N·m, A = area = 0.3 m²,
     * so k = 20 |e|² J/rad². A flat rest hinge (edge on the x axis, p2 at +y, p3 at −y),
     * folded by rotating p3 about the edge by φ, has θ − θ0 = ±φ, so Ψ = ½ k φ². */
    const double Ls[] = {0.5, 2.0};
    const double phis[] = {0.3, -0.3, 1.0, -2.5, 3.0};
    for (int i = 0; i < 2; i++) {
        double L = Ls[i];
        double xr[12] = {0, 0, 0, L, 0, 0, 0.3 * L, 0.8 * L, 0, 0.6 * L, -0.7 * L, 0};
        weft_element e = {.v = {0, 1, 2, 3}};
        weft_dihedral_bending.init(&e, xr, &PARAMS);
        double k = COEFFICIENT * 3.0 * L * L / AREA;
        CHECK_NEAR(e.k, k, 1e-12 * k);
        CHECK_NEAR(weft_dihedral_bending.energy(&e, xr), 0.0, 1e-30);
        for (int j = 0; j < 5; j++) {
            double phi = phis[j], x[12];
            memcpy(x, xr, sizeof x);
            /* (0.6 L, −0.7 L, 0) rotated about the x axis by φ. */
            x[10] = -0.7 * L * cos(phi);
            x[11] = -0.7 * L * sin(phi);
            /* θ is recovered to ~1e-15 rad; Ψ's relative error is then ≤ 2e-15/|φ|:
             * 1e-13 relative. */
            CHECK_NEAR(weft_dihedral_bending.energy(&e, x), 0.5 * k * phi * phi,
                       1e-13 * 0.5 * k * phi * phi);
        }
        /* A bent rest shape (θ0 = ±0.8, depending on the orientation convention)
         * folded a further 0.5 rad in the same sense: Ψ = ½ k 0.5². */
        double xb[12], x2[12];
        memcpy(xb, xr, sizeof xb);
        xb[10] = -0.7 * L * cos(0.8), xb[11] = -0.7 * L * sin(0.8);
        weft_dihedral_bending.init(&e, xb, &PARAMS);
        memcpy(x2, xr, sizeof x2);
        x2[10] = -0.7 * L * cos(1.3), x2[11] = -0.7 * L * sin(1.3);
        CHECK_NEAR(weft_dihedral_bending.energy(&e, x2), 0.5 * k * 0.25, 1e-13 * k);
    }
}

/* ------------------------------------------------------------------------------ */
/* Whole-model gradients                                                           */
/* ------------------------------------------------------------------------------ */

static void test_residual_fd(void) {
    weft_error err = {{0}};
    weft_model m = {0};
    weft_scene *s = weft_scene_load("hanging_cloth", &err);
    CHECK(s != NULL);
    if (!s) return;
    int rc = weft_scene_build(s, weft_energy_registry, &m, &err);
    weft_scene_free(&s);
    CHECK(rc == WEFT_OK);
    if (rc != WEFT_OK) {
        fprintf(stderr, "build: %s\n", err.msg);
        return;
    }
    size_t n3 = 3 * (size_t)m.n;
    double *xn = malloc(n3 * sizeof *xn), *xt = malloc(n3 * sizeof *xt);
    double *gG = malloc(n3 * sizeof *gG), *gE = calloc(n3, sizeof *gE);
    double *scratch = malloc(n3 * sizeof *scratch), *x = malloc(n3 * sizeof *x);
    CHECK(xn && xt && gG && gE && scratch && x);
    if (!xn || !xt || !gG || !gE || !scratch || !x) goto done;
    /* Deform: 5 Gauss-Seidel steps of the falling cloth; take that state as the step
     * start (x_n, v_n), and evaluate G at the state one step later, which differs from
     * the inertial target x̃ and is stretched and bent. */
    void *st = weft_pbd_gauss_seidel.create(&m, &err);
    CHECK(st != NULL);
    if (!st) goto done;
    for (int i = 0; i < 5; i++) weft_pbd_gauss_seidel.step(st, &m, NULL, &err);
    memcpy(xn, m.x, n3 * sizeof *xn);
    weft_inertial_target(&m, xn, m.v, xt);
    weft_pbd_gauss_seidel.step(st, &m, NULL, &err);
    weft_pbd_gauss_seidel.destroy(st);
    memcpy(x, m.x, n3 * sizeof *x);
    weft_incremental_potential(&m, x, xt, gG);
    weft_model_gradient(&m, x, gE); /* adds into the zeroed gE */

    /* Pinned DOFs are not unknowns: ∇G is exactly zero there (S in S ∇G). */
    int npinned = 0;
    for (int i = 0; i < m.n; i++)
        if (m.pin[i] >= 0) {
            npinned++;
            for (int k = 0; k < 3; k++) CHECK(gG[3 * i + k] == 0.0);
        }
    CHECK(npinned == 2);

    /* FD step: 1e-6 of the rest edge length (~3.2 cm / 1e6). G and E are sums over
     * ~6000 elements of values up to ~1 J; their rounding (~1e-16 × n × |terms|) over
     * 2h gives ~1e-8 N of noise at worst, the truncation error (h/ℓ)² ~ 1e-12 relative,
     * against gradients up to ~1 N: compare with 1e-6 of the largest free-DOF gradient
     * (a component-wise relative error is meaningless for near-zero components). */
    double h = 1e-6 * m.terms[m.stretch_term].elem[0].rest[0];
    double gscale = 0.0, escale = max_abs(gE, (int)n3);
    for (int i = 0; i < m.n; i++)
        if (m.pin[i] < 0)
            for (int k = 0; k < 3; k++) gscale = fmax(gscale, fabs(gG[3 * i + k]));
    CHECK(gscale > 0.0 && escale > 0.0);
    lcg g = {5150};
    int checked = 0;
    while (checked < 30) {
        int dof = (int)(rnd(&g) * (double)n3);
        if (m.pin[dof / 3] >= 0) continue;
        checked++;
        double keep = x[dof];
        x[dof] = keep + h;
        double Gp = weft_incremental_potential(&m, x, xt, scratch);
        double Ep = weft_model_energy(&m, x);
        x[dof] = keep - h;
        double Gm = weft_incremental_potential(&m, x, xt, scratch);
        double Em = weft_model_energy(&m, x);
        x[dof] = keep;
        double fdG = (Gp - Gm) / (2.0 * h), fdE = (Ep - Em) / (2.0 * h);
        if (!(fabs(fdG - gG[dof]) <= 1e-6 * gscale))
            fprintf(stderr, "dof %d: dG/dx %.10g, FD %.10g\n", dof, gG[dof], fdG);
        CHECK(fabs(fdG - gG[dof]) <= 1e-6 * gscale);
        CHECK(fabs(fdE - gE[dof]) <= 1e-6 * escale);
    }
    /* ∇G = M (x − x̃)/h² + ∇E on free DOFs: the inertial part, recomputed here from
     * the masses, accounts for the whole difference (a few roundings: 1e-12). */
    for (int i = 0; i < m.n; i++) {
        if (m.pin[i] >= 0) continue;
        for (int k = 0; k < 3; k++) {
            int d = 3 * i + k;
            double inertia = m.mass[i] * (x[d] - xt[d]) / (m.dt * m.dt);
            CHECK_NEAR(gG[d], inertia + gE[d], 1e-12 * gscale);
        }
    }
done:
    free(xn), free(xt), free(gG), free(gE), free(scratch), free(x);
    weft_model_free(&m);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"registry_gradients", test_registry_gradients},
        {"registry_rest", test_registry_rest},
        {"registry_invariance", test_registry_invariance},
        {"registry_constraints", test_registry_constraints},
        {"closed_forms", test_closed_forms},
        {"residual_fd", test_residual_fd},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
