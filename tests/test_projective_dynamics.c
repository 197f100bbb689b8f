/* test_projective_dynamics.c — Projective Dynamics (solvers/projective_dynamics.c;
 * Bouaziz et al. 2014, Liu et al. 2013, Wang 2015's Chebyshev acceleration):
 *   newton_agreement  with enough iterations PD ends where backward Euler does: springs +
 *                     quadratic bending (and the ARAP membrane) on a small hanging cloth
 *                     within 1e-8 m of newton_euler solved to 1e-12; 10 iterations do not
 *                     (the check can fail);
 *   factor_once       the global matrix is factorised once per run (profile: refactors,
 *                     the linear solver's factorisations and analyses), again only when the
 *                     pins change; PPCG runs the same iterations without factorising;
 *   chebyshev         on hanging_cloth, PD to a relative residual of 1e-4 takes fewer
 *                     iterations with Chebyshev (ρ estimated from plain PD's own decay)
 *                     than without;
 *   monitor           every iteration reaches the log (rows 0..iterations per step) and
 *                     the residual there falls within a step;
 *   roles             a term without a projective form is replaced by PD's own element of
 *                     its role and named in the profile; a fibre term is refused;
 *   colliders         on drape_sphere no free vertex ends a step inside the sphere;
 *   hooks             every energy's projective hook is its energy: Ψ = ½ w ‖A x − P(A x)‖²
 *                     at random deformations, and the energies PD runs exactly have one;
 *   sphere            every hook with a sphere_radius keeps its contract: one row, and its
 *                     project is p = (|y| > 0 ? r/|y| : 0) y bit for bit (PD projects such
 *                     elements itself, from a compact copy), at y = 0 too;
 *   threads           the local step in parallel: positions equal bit for bit with 1, 2 and
 *                     3 threads (springs + substituted bending, and the ARAP membrane).
 */
#include "check.h"
#include "test_util.h"
#include "scene_build.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs `steps` steps of solver s on m with cfg (monitor NULL); fills prof (may be NULL)
 * with the solver's profile. False (a failed check) on an error. */
static bool run_steps(const weft_solver_type *s, weft_model *m, weft_config *cfg, int steps,
                      weft_profile *prof) {
    weft_error err = {{0}};
    void *st = s->create(m, cfg, &err);
    if (!st) fprintf(stderr, "%s: %s\n", s->name, err.msg);
    CHECK(st != NULL);
    if (!st) return false;
    int rc = WEFT_OK;
    for (int i = 0; i < steps && rc == WEFT_OK; i++) rc = s->step(st, m, NULL, &err);
    if (rc != WEFT_OK) fprintf(stderr, "%s: %s\n", s->name, err.msg);
    CHECK(rc == WEFT_OK);
    if (prof) weft_solver_stats(s, st, prof);
    s->destroy(st);
    return rc == WEFT_OK;
}

/* Builds scene with the overrides sets and extra (both NULL-terminated lists, extra may be
 * NULL) and runs solver s for `steps` steps; positions into x (3n, allocated), profile into
 * prof. Returns the vertex count, 0 on failure. */
static int run_scene(const char *scene, const char *const *sets, const char *const *extra,
                     const weft_solver_type *s, int steps, double **x, weft_profile *prof) {
    const char *all[64];
    int k = 0;
    for (int i = 0; sets && sets[i]; i++) all[k++] = sets[i];
    for (int i = 0; extra && extra[i]; i++) all[k++] = extra[i];
    all[k] = NULL;
    weft_model m;
    weft_config *cfg = NULL;
    if (!scene_build_cfg(scene, all, weft_energy_registry, &m, &cfg)) return 0;
    int n = 0;
    if (run_steps(s, &m, cfg, steps, prof)) {
        n = m.n;
        *x = malloc(3 * (size_t)n * sizeof **x);
        memcpy(*x, m.x, 3 * (size_t)n * sizeof **x);
    }
    weft_config_free(&cfg);
    weft_model_free(&m);
    return n;
}

/* The solver under test (registered by its WEFT_SOLVERS line, found by name). */
static const weft_solver_type *PD;

static double max_dist(const double *a, const double *b, int n) {
    double d = 0.0;
    for (int i = 0; i < n; i++) {
        double dx = a[3 * i] - b[3 * i], dy = a[3 * i + 1] - b[3 * i + 1],
               dz = a[3 * i + 2] - b[3 * i + 2];
        d = fmax(d, sqrt(dx * dx + dy * dy + dz * dz));
    }
    return d;
}

/* ------------------------------------------------------------------------------ */

/* A 6 × 6 hanging cloth (0.3 m, two corners pinned), bending_stiffness 1e-3 N·m, 3 steps
 * of 1/60 s. PD's fixed point is backward Euler's answer for the same energies (the
 * projective forms are those energies exactly), so with enough iterations the two agree
 * to the accuracy of the iterations: measured 5.0e-12 m (springs, 40000 iterations per
 * step) and 1.4e-10 m (ARAP, 20000; it converges faster). Ten iterations leave ~1e-2 m,
 * and Newton without the bending term ends more than 1e-6 m away: the check can tell an
 * unconverged PD, and the bending term is part of what agrees. */
static void test_newton_agreement(void) {
    const char *membranes[] = {"mass_spring", "arap"};
    const char *counts[] = {"solver.iterations=40000", "solver.iterations=20000"};
    for (int c = 0; c < 2; c++) {
        char mem[64];
        snprintf(mem, sizeof mem, "material.membrane=%s", membranes[c]);
        const char *sets[] = {"mesh.nx=6",
                              "mesh.ny=6",
                              "mesh.width=0.3",
                              "mesh.height=0.3",
                              "material.bending=quadratic_bending",
                              "material.bending_stiffness=1e-3",
                              mem,
                              NULL};
        const char *newton[] = {"solver.iterations=100", "solver.tolerance=1e-12", NULL};
        const char *flat[] = {"solver.iterations=100", "solver.tolerance=1e-12",
                              "material.bending=none", NULL};
        const char *many[] = {counts[c], NULL};
        const char *few[] = {"solver.iterations=10", NULL};
        double *xn = NULL, *xp = NULL, *xf = NULL, *xb = NULL;
        int n = run_scene("hanging_cloth", sets, newton, &weft_newton_euler, 3, &xn, NULL);
        int n2 = run_scene("hanging_cloth", sets, many, PD, 3, &xp, NULL);
        int n3 = run_scene("hanging_cloth", sets, few, PD, 3, &xf, NULL);
        int n4 =
            c == 0 ? run_scene("hanging_cloth", sets, flat, &weft_newton_euler, 3, &xb, NULL) : n;
        CHECK(n > 0 && n == n2 && n == n3 && n == n4);
        if (n > 0 && n == n2 && n == n3 && n == n4) {
            double d = max_dist(xn, xp, n), df = max_dist(xn, xf, n);
            fprintf(stderr,
                    "%s + quadratic_bending: |PD - Newton| = %.3e m after %s per step, "
                    "%.3e m after 10 iterations\n",
                    membranes[c], d, counts[c], df);
            CHECK(d <= 1e-8);
            CHECK(df > 1e-6);
            if (xb) {
                double db = max_dist(xb, xp, n);
                fprintf(stderr, "  |PD - Newton without bending| = %.3e m\n", db);
                CHECK(db > 1e-6);
            }
        }
        free(xn), free(xp), free(xf), free(xb);
    }
}

/* 12 × 12 hanging cloth, 20 steps of 10 iterations: one factorisation (and one CHOLMOD
 * analysis) for 200 global solves. Unpinning a corner changes the filtered matrix: one
 * more. PPCG ([projective_dynamics] linear = ppcg) has no factorisation at all. */
static void test_factor_once(void) {
    const char *sets[] = {"mesh.nx=12", "mesh.ny=12", "material.bending=quadratic_bending", NULL};
    weft_model m;
    weft_config *cfg = NULL;
    if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg)) return;
    weft_error err = {{0}};
    const weft_solver_type *s = PD;
    void *st = s->create(&m, cfg, &err);
    CHECK(st != NULL);
    if (st) {
        for (int i = 0; i < 20; i++) CHECK(s->step(st, &m, NULL, &err) == WEFT_OK);
        weft_profile p;
        weft_solver_stats(s, st, &p);
        fprintf(stderr, "20 steps: refactors %g, factorisations %g, setups %g, global solves %g\n",
                weft_profile_value(&p, "refactors"), weft_profile_value(&p, "factorisations"),
                weft_profile_value(&p, "setups"), weft_profile_value(&p, "global_solves"));
        CHECK(weft_profile_value(&p, "refactors") == 1.0);
        CHECK(weft_profile_value(&p, "factorisations") == 1.0);
        CHECK(weft_profile_value(&p, "setups") == 1.0);
        CHECK(weft_profile_value(&p, "global_solves") == 200.0);
        CHECK(weft_profile_value(&p, "iterations") == 200.0);
        /* Release a pinned corner: the pin set changes, so A is factorised again, once. */
        int freed = -1;
        for (int i = 0; i < m.n && freed < 0; i++)
            if (m.pin[i] >= 0) freed = i;
        CHECK(freed >= 0);
        if (freed >= 0) {
            m.pin[freed] = -1;
            m.w[freed] = 1.0 / m.mass[freed];
        }
        for (int i = 0; i < 5; i++) CHECK(s->step(st, &m, NULL, &err) == WEFT_OK);
        weft_solver_stats(s, st, &p);
        CHECK(weft_profile_value(&p, "refactors") == 2.0);
        CHECK(weft_profile_value(&p, "factorisations") == 2.0);
        CHECK(weft_profile_value(&p, "setups") == 1.0); /* same pattern: no new analysis */
        s->destroy(st);
    }
    weft_config_free(&cfg);
    weft_model_free(&m);
    /* PPCG: the same iterations, no factorisation. */
    const char *ppcg[] = {"projective_dynamics.linear=ppcg", NULL};
    double *x = NULL, *xc = NULL;
    weft_profile p;
    int n = run_scene("hanging_cloth", sets, ppcg, s, 5, &x, &p);
    int n2 = run_scene("hanging_cloth", sets, NULL, s, 5, &xc, NULL);
    CHECK(n > 0 && n == n2);
    CHECK(weft_profile_value(&p, "factorisations") == 0.0);
    CHECK(weft_profile_value(&p, "global_solves") == 50.0);
    if (n > 0 && n == n2) CHECK(max_dist(x, xc, n) <= 1e-6); /* PPCG to its 1e-8 */
    free(x), free(xc);
}

/* Iterations PD takes over `steps` steps of the 10 × 10 hanging cloth (springs + quadratic
 * bending) to reach a relative residual of tol in every step, with Chebyshev's ρ (0: off). */
static double iterations_to(double tol, double rho, int steps) {
    char t[64], r[64];
    snprintf(t, sizeof t, "projective_dynamics.tolerance=%.17g", tol);
    snprintf(r, sizeof r, "projective_dynamics.chebyshev_rho=%.17g", rho);
    const char *sets[] = {"mesh.nx=10",
                          "mesh.ny=10",
                          "material.bending=quadratic_bending",
                          "solver.iterations=100000",
                          t,
                          r,
                          NULL};
    double *x = NULL;
    weft_profile p;
    int n = run_scene("hanging_cloth", sets, NULL, PD, steps, &x, &p);
    free(x);
    return n > 0 ? weft_profile_value(&p, "iterations") : NAN;
}

/* Wang 2015 on hanging_cloth (10 × 10, 2 steps): ρ from plain PD's own decay on the first
 * step, ρ = (1e-4 / 1e-2)^(1/(k₄ − k₂)) (k_j the iterations to a relative residual of
 * 10^−j: the asymptotic rate, as papers/bouaziz2014-projective-dynamics.md says to estimate
 * it), then both runs to 1e-4. */
static void test_chebyshev(void) {
    double k2 = iterations_to(1e-2, 0.0, 1), k4 = iterations_to(1e-4, 0.0, 1);
    CHECK(k4 > k2 && k2 > 0);
    double rho = pow(1e-2, 1.0 / (k4 - k2));
    double plain = iterations_to(1e-4, 0.0, 2), cheb = iterations_to(1e-4, rho, 2);
    fprintf(stderr,
            "rho estimate %.5f (k(1e-2) = %g, k(1e-4) = %g); iterations to 1e-4 over "
            "2 steps: plain %g, Chebyshev %g (%.2fx fewer)\n",
            rho, k2, k4, plain, cheb, plain / cheb);
    CHECK(rho > 0.0 && rho < 1.0);
    CHECK(cheb < plain);
}

/* A logged run: every iteration is a row (0 .. iterations in every step), and within a
 * step the residual at the last iteration is below that at iteration 0. */
static void test_monitor(void) {
    const char *sets[] = {
        "mesh.nx=8",           "mesh.ny=8",     "material.bending=quadratic_bending",
        "solver.iterations=7", "scene.steps=4", NULL};
    weft_model m;
    weft_config *cfg = NULL;
    if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg)) return;
    char dir[] = "/tmp/weft-test-pd-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char log[256];
    snprintf(log, sizeof log, "%s/pd.log", dir);
    weft_run_options opt = weft_run_options_default();
    opt.log_path = log;
    opt.config = cfg;
    weft_run_result res;
    weft_error err = {{0}};
    int rc = weft_run(PD, &m, &opt, &res, &err);
    if (rc) fprintf(stderr, "run: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    FILE *f = fopen(log, "r");
    CHECK(f != NULL);
    int rows = 0, expect_iter = 0, falls = 0;
    double r_first = 0.0;
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        int step, iter;
        double wall, r;
        if (sscanf(line, "%d %d %lf %lf", &step, &iter, &wall, &r) != 4) continue;
        CHECK(iter == expect_iter);
        if (iter == 0) r_first = r;
        if (iter == 7) falls += r < r_first;
        expect_iter = iter == 7 ? 0 : iter + 1;
        rows++;
    }
    if (f) fclose(f);
    CHECK(rows == 4 * 8);
    CHECK(falls == 4);
    remove(log);
    rmdir(dir);
    weft_config_free(&cfg);
    weft_model_free(&m);
}

/* The default hanging_cloth has dihedral_bending, which has no projective form: PD uses
 * quadratic_bending with the scene's D and names it; stvk becomes the ARAP element. A
 * fibre term has no role PD fills: refused with a message naming it. */
static void test_roles(void) {
    const char *sets[] = {"mesh.nx=8", "mesh.ny=8", "material.membrane=stvk", NULL};
    double *x = NULL;
    weft_profile p;
    int n = run_scene("hanging_cloth", sets, NULL, PD, 2, &x, &p);
    CHECK(n > 0);
    free(x);
    const weft_profile_entry *b = weft_profile_find(&p, "bending_replaces");
    const weft_profile_entry *mb = weft_profile_find(&p, "membrane_replaces");
    CHECK(b && b->text && strcmp(b->text, "dihedral_bending") == 0);
    CHECK(mb && mb->text && strcmp(mb->text, "stvk") == 0);
    const char *exact[] = {"mesh.nx=8", "mesh.ny=8", "material.bending=quadratic_bending", NULL};
    n = run_scene("hanging_cloth", exact, NULL, PD, 1, &x, &p);
    free(x);
    CHECK(n > 0 && !weft_profile_find(&p, "bending_replaces") &&
          !weft_profile_find(&p, "membrane_replaces"));
    const char *fib[] = {"mesh.nx=8", "mesh.ny=8", "material.fiber=anisotropic_fiber",
                         "material.fiber_stiffness=100", NULL};
    weft_model m;
    weft_config *cfg = NULL;
    if (scene_build_cfg("hanging_cloth", fib, weft_energy_registry, &m, &cfg)) {
        weft_error err = {{0}};
        void *st = PD->create(&m, cfg, &err);
        CHECK(st == NULL && strstr(err.msg, "anisotropic_fiber") != NULL);
        PD->destroy(st);
        weft_config_free(&cfg);
        weft_model_free(&m);
    }
}

/* drape_sphere: the cloth falls on the sphere; after every step no free vertex is inside
 * it (distance ≥ the contact margin, to rounding). */
static void test_colliders(void) {
    const char *sets[] = {"material.bending=quadratic_bending", NULL};
    weft_model m;
    weft_config *cfg = NULL;
    if (!scene_build_cfg("drape_sphere", sets, weft_energy_registry, &m, &cfg)) return;
    weft_error err = {{0}};
    void *st = PD->create(&m, cfg, &err);
    CHECK(st != NULL);
    double worst = INFINITY;
    for (int s = 0; st && s < 60; s++) {
        CHECK(PD->step(st, &m, NULL, &err) == WEFT_OK);
        for (int i = 0; i < m.n; i++)
            for (int c = 0; c < m.ncolliders; c++)
                worst =
                    fmin(worst, weft_collider_distance_at(&m.colliders[c], &m.x[3 * i], m.t, NULL) -
                                    m.contact_margin);
    }
    weft_profile p;
    if (st) weft_solver_stats(PD, st, &p);
    fprintf(stderr, "drape_sphere: smallest clearance %.3e m, %g contacts\n", worst,
            weft_profile_value(&p, "contacts"));
    CHECK(worst >= -1e-12);
    CHECK(weft_profile_value(&p, "contacts") > 0.0); /* the sphere was met */
    PD->destroy(st);
    weft_config_free(&cfg);
    weft_model_free(&m);
}

/* A rest element of kind k (2, 3 or 4 vertices into xe) with curved = a bent hinge. */
static int rest_element(weft_element_kind k, bool curved, double *xe) {
    static const double edge[6] = {0, 0, 0, 0.1, 0.02, 0};
    static const double tri[9] = {0, 0, 0, 0.1, 0, 0, 0.03, 0.09, 0};
    static const double tet[12] = {0, 0, 0, 0.1, 0, 0, 0.01, 0.1, 0, 0.02, 0.01, 0.1};
    double hinge[12] = {0, 0, 0, 0.1, 0, 0, 0.05, 0.08, 0, 0.04, -0.07, curved ? 0.03 : 0.0};
    switch (k) {
    case WEFT_ELEM_EDGE: memcpy(xe, edge, sizeof edge); return 2;
    case WEFT_ELEM_TRIANGLE: memcpy(xe, tri, sizeof tri); return 3;
    case WEFT_ELEM_TET: memcpy(xe, tet, sizeof tet); return 4;
    case WEFT_ELEM_HINGE: memcpy(xe, hinge, sizeof hinge); return 4;
    default: return 0;
    }
}

/* ½ w ‖A x − P(A x)‖² of element e through type t's projective hook. */
static double hook_energy(const weft_energy_type *t, const weft_element *e, const double *xe) {
    const weft_projective *pj = t->projective;
    double A[WEFT_PROJECTIVE_MAXROWS * WEFT_ELEM_MAXV], y[9] = {0}, p[9], s = 0.0;
    double w = pj->form(e, A);
    for (int r = 0; r < pj->rows; r++)
        for (int i = 0; i < t->nv; i++)
            for (int k = 0; k < 3; k++) y[3 * r + k] += A[t->nv * r + i] * xe[3 * i + k];
    pj->project(e, y, p);
    for (int j = 0; j < 3 * pj->rows; j++) s += (y[j] - p[j]) * (y[j] - p[j]);
    return 0.5 * w * s;
}

/* Every registered energy with a projective hook (mass_spring, quadratic_bending, both
 * arap among them): at its rest state and at 20 random deformations (vertices moved by up
 * to 3 cm on a 10 cm element, flat and bent hinges) the hook's ½ w ‖A x − P(A x)‖² equals
 * the energy to 1e-10 relative, so PD's fixed point is backward Euler's answer for it. */
static void test_hooks(void) {
    int with = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++) {
        const weft_energy_type *t = *tp;
        if (!t->projective) continue;
        with++;
        CHECK(t->projective->rows >= 1 && t->projective->rows <= WEFT_PROJECTIVE_MAXROWS);
        for (int curved = 0; curved < 2; curved++) {
            double x0[12], xe[12], worst = 0.0;
            int nv = rest_element(t->kind, curved, x0);
            CHECK(nv == t->nv);
            if (nv != t->nv) break;
            weft_element e = {.v = {0, 1, 2, 3}};
            weft_energy_params prm = {.stiffness = t->kind == WEFT_ELEM_TET ? 1e5 : 100.0,
                                      .poisson = 0.3, .area = 0.004};
            t->init(&e, x0, &prm);
            CHECK(hook_energy(t, &e, x0) <= 1e-20 && t->energy(&e, x0) <= 1e-20);
            lcg g = {31 + (uint64_t)curved};
            for (int trial = 0; trial < 20; trial++) {
                for (int j = 0; j < 3 * nv; j++) xe[j] = x0[j] + rnd_in(&g, -0.03, 0.03);
                double E = t->energy(&e, xe), H = hook_energy(t, &e, xe);
                worst = fmax(worst, fabs(E - H) / fmax(fabs(E), 1e-300));
                CHECK(E > 0.0 && fabs(E - H) <= 1e-10 * E);
            }
            fprintf(stderr, "%s (%s rest): hook vs energy, worst relative difference %.2e\n",
                    t->name, curved ? "bent" : "flat", worst);
        }
    }
    const char *names[] = {"mass_spring", "quadratic_bending", "arap"};
    for (int i = 0; i < 3; i++) {
        const weft_energy_type *t = weft_energy_find(names[i]);
        CHECK(t != NULL && t->projective != NULL);
    }
    CHECK(with >= 4);
}

/* Every hook with a sphere_radius (mass_spring and quadratic_bending among them, a bent
 * hinge too): one row, and project(y) is (|y| > 0 ? r/|y| : 0) y, |y| = sqrt(y₀y₀ + y₁y₁ +
 * y₂y₂), bit for bit at 20 random y and at y = 0, the contract PD's own projection of such
 * elements relies on for the same results. */
static void test_sphere(void) {
    int with = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++) {
        const weft_energy_type *t = *tp;
        if (!t->projective || !t->projective->sphere_radius) continue;
        with++;
        CHECK(t->projective->rows == 1);
        for (int curved = 0; curved < 2; curved++) {
            double x0[12];
            CHECK(rest_element(t->kind, curved, x0) == t->nv);
            weft_element e = {.v = {0, 1, 2, 3}};
            weft_energy_params prm = {.stiffness = 100.0, .poisson = 0.3, .area = 0.004};
            t->init(&e, x0, &prm);
            const double r = t->projective->sphere_radius(&e);
            CHECK(isfinite(r) && r >= 0.0);
            lcg g = {7 + (uint64_t)curved};
            for (int trial = 0; trial <= 20; trial++) {
                double y[3] = {0.0, 0.0, 0.0}, p[3], q[3];
                for (int k = 0; k < 3 && trial < 20; k++) y[k] = rnd_in(&g, -0.1, 0.1);
                t->projective->project(&e, y, p);
                const double l = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
                const double c = l > 0.0 ? r / l : 0.0;
                for (int k = 0; k < 3; k++) q[k] = c * y[k];
                CHECK(memcmp(p, q, sizeof p) == 0);
            }
        }
    }
    CHECK(with >= 2);
}

/* The local step runs in parallel, the first range of elements adding into the right-hand
 * side as it goes, the others into their own slots gathered in element order: 3 steps of a
 * 16 × 16 hanging cloth (springs + PD's quadratic bending in place of the dihedral one;
 * then the ARAP membrane) end at the same positions bit for bit with 1, 2 and 3 threads. */
static void test_threads(void) {
    const char *membranes[] = {"material.membrane=mass_spring", "material.membrane=arap"};
    for (int c = 0; c < 2; c++) {
        const char *sets[] = {"mesh.nx=16", "mesh.ny=16", membranes[c], NULL};
        const char *one[] = {"solver.threads=1", NULL};
        double *x1 = NULL;
        int n1 = run_scene("hanging_cloth", sets, one, PD, 3, &x1, NULL);
        CHECK(n1 > 0);
        for (int t = 2; t <= 3; t++) {
            char set[32];
            snprintf(set, sizeof set, "solver.threads=%d", t);
            const char *more[] = {set, NULL};
            double *xt = NULL;
            int nt = run_scene("hanging_cloth", sets, more, PD, 3, &xt, NULL);
            CHECK(n1 > 0 && n1 == nt);
            if (n1 > 0 && n1 == nt) {
                CHECK(memcmp(x1, xt, 3 * (size_t)n1 * sizeof *x1) == 0);
                CHECK(max_dist(x1, xt, n1) == 0.0);
            }
            free(xt);
        }
        free(x1);
    }
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"newton_agreement", test_newton_agreement},
        {"factor_once", test_factor_once},
        {"chebyshev", test_chebyshev},
        {"monitor", test_monitor},
        {"roles", test_roles},
        {"colliders", test_colliders},
        {"hooks", test_hooks},
        {"sphere", test_sphere},
        {"threads", test_threads},
        {NULL, NULL},
    };
    PD = weft_solver_find("projective_dynamics");
    if (!PD) {
        fprintf(stderr, "projective_dynamics is not registered\n");
        return 1;
    }
    return check_main(argc, argv, cases);
}
