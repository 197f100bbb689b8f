/* test_vbd.c — Vertex Block Descent (solvers/vbd.c; Chen, Liu, Yang & Yuksel 2024) and its
 * Chebyshev acceleration (Wang 2015). papers/chen2024-vbd.md maps the paper to these cases.
 *
 *   newton_springs  VBD minimises backward Euler's G: on a 6 × 6 hanging cloth with
 *                   mass-spring stretch and dihedral bending, 3 steps of VBD with enough
 *                   sweeps end within 1e-8 m of newton_euler run to a tolerance of 1e-12,
 *                   while 10 sweeps per step do not (the agreement is not trivial)
 *   newton_stvk     the same with the StVK membrane (any energy, through its descriptor)
 *   monotone        without Chebyshev, G(x_k) never increases over the sweeps of a step
 *                   (beyond G's rounding), with projected and with exact vertex blocks,
 *                   on a folding cloth whose exact blocks are indefinite; with Chebyshev
 *                   it does rise (the check can fail)
 *   threads         positions and velocities after 4 steps are bitwise the same for 1, 2
 *                   and 3 OpenMP threads, with and without Chebyshev
 *   chebyshev       on hanging_cloth (6 × 6, 3rd step), the relative residual reaches 1e-4
 *                   in fewer sweeps with Chebyshev, ρ estimated from the plain run's rate
 *                   as the file comment of vbd.c says
 *   pins_colliders  pinned vertices sit on their paths; on drape_sphere no free vertex ends
 *                   inside the ball (less its contact margin) and G still decreases
 *   settings        [vbd] keys are read from a scene; bad values are refused naming the key
 *   pressure_block  ∂V/∂x_i agrees with central differences of V, and V is affine in each
 *                   vertex (∂²V/∂x_i² = 0) while the mixed block of two vertices is not
 *   balloon_no_gain balloon, 2 s, defaults: kinetic + gravitational never above 1.05× the start
 *                   (1.29× with the pressure multiplier carried between steps: it flew up)
 *   local_step      the local Newton step shared with newton_patch (vertex_block.c): the
 *                   inertia term's force and block against central differences; the line
 *                   search's rounding, halving and give-up rules; exact blocks that are
 *                   not positive definite fall back to the projected block; a
 *                   near-singular block is refused
 */
#include "check.h"
#include "scene_build.h"
#include "tmp_files.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"
#include "vertex_block.h"
#include "weft_vec.h"

#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */
/* ------------------------------------------------------------------------------ */

/* The vbd solver, found by name as the experiments find it. */
static const weft_solver_type *vbd(void) {
    const weft_solver_type *s = weft_solver_find("vbd");
    CHECK(s != NULL);
    return s;
}

/* Builds scene with the NULL-terminated overrides and its config; a failed check
 * otherwise. */
static bool build(const char *scene, const char *const *sets, weft_model *m, weft_config **cfg) {
    return scene_build_cfg(scene, sets, weft_energy_registry, m, cfg);
}

/* Applies "section.key=value" to cfg; a failed check otherwise. */
static bool cfg_set(weft_config *cfg, const char *assignment) {
    return cfg_assign(cfg, assignment, "test_vbd");
}

/* solver_steps (scene_build.h). */
static bool run_steps(const weft_solver_type *s, weft_model *m, weft_config *cfg, int steps,
                      weft_profile *stats) {
    return solver_steps(s, m, cfg, steps, stats);
}

/* Largest distance |a_i − b_i| over the n vertices, m. */
static double max_dist(const double *a, const double *b, int n) {
    double d = 0.0;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = 0; k < 3; k++)
            s += (a[3 * i + k] - b[3 * i + k]) * (a[3 * i + k] - b[3 * i + k]);
        d = fmax(d, sqrt(s));
    }
    return d;
}

/* The positions after `steps` steps of scene (with overrides) under solver s with the
 * extra settings (NULL-terminated, applied to the config): into x (3n, allocated). */
static double *positions_after(const char *scene, const char *const *sets,
                               const weft_solver_type *s, const char *const *settings, int steps,
                               int *n, weft_profile *stats) {
    weft_model m;
    weft_config *cfg = NULL;
    double *x = NULL;
    if (build(scene, sets, &m, &cfg)) {
        bool ok = true;
        for (int i = 0; settings && settings[i]; i++) ok = ok && cfg_set(cfg, settings[i]);
        if (ok && run_steps(s, &m, cfg, steps, stats)) {
            x = malloc(3 * (size_t)m.n * sizeof *x);
            memcpy(x, m.x, 3 * (size_t)m.n * sizeof *x);
            *n = m.n;
        }
        weft_model_free(&m);
    }
    weft_config_free(&cfg);
    return x;
}

/* ------------------------------------------------------------------------------ */
/* Agreement with newton_euler                                                     */
/* ------------------------------------------------------------------------------ */

/* VBD with `sweeps` sweeps per step and newton_euler at tolerance 1e-12, 3 steps of the
 * 6 × 6 hanging cloth with the overrides: the largest vertex distance, m. */
static double vbd_vs_newton(const char *const *sets, int sweeps) {
    static const char *const newton_set[] = {"solver.tolerance=1e-12", "solver.iterations=100",
                                             NULL};
    char its[48];
    snprintf(its, sizeof its, "solver.iterations=%d", sweeps);
    const char *vbd_set[] = {its, NULL};
    int na = 0, nb = 0;
    weft_profile stats;
    double *a =
        positions_after("hanging_cloth", sets, &weft_newton_euler, newton_set, 3, &na, NULL);
    double *b = positions_after("hanging_cloth", sets, vbd(), vbd_set, 3, &nb, &stats);
    double d = INFINITY;
    if (a && b && na == nb) {
        d = max_dist(a, b, na);
        fprintf(stderr,
                "  %d sweeps/step: max |x_vbd - x_newton| = %.3e m (%.0f halvings, "
                "%.0f skipped)\n",
                sweeps, d, weft_profile_value(&stats, "halvings"),
                weft_profile_value(&stats, "skipped"));
    }
    CHECK(a && b && na == nb);
    free(a), free(b);
    return d;
}

/* Springs + dihedral bending (the canonical cross-method cloth). 700 sweeps: the plain
 * iteration's rate here is about 0.977 per sweep (the chebyshev case measures it), so
 * 700 sweeps take the residual from ~0.35 N to ~1e-8 N; the displacement error is about
 * the residual over the smallest stiffness, m_i/h² ≈ 14 N/m: ~1e-9 m (measured 2.4e-10 m;
 * 500 sweeps leave 1.1e-8 m). */
static void test_newton_springs(void) {
    static const char *const sets[] = {"mesh.nx=6", "mesh.ny=6", NULL};
    fprintf(stderr, "mass_spring + dihedral_bending:\n");
    CHECK(vbd_vs_newton(sets, 700) <= 1e-8);
    CHECK(vbd_vs_newton(sets, 10) > 1e-6); /* a few sweeps are not the answer */
}

/* The StVK membrane (with dihedral bending): the vertex blocks of a triangle energy. */
static void test_newton_stvk(void) {
    static const char *const sets[] = {"mesh.nx=6", "mesh.ny=6", "material.membrane=stvk", NULL};
    fprintf(stderr, "stvk + dihedral_bending:\n");
    CHECK(vbd_vs_newton(sets, 700) <= 1e-8);
    CHECK(vbd_vs_newton(sets, 10) > 1e-6);
}

/* ------------------------------------------------------------------------------ */
/* Descent                                                                         */
/* ------------------------------------------------------------------------------ */

/* G at the iterates x_1 .. x_K of one step from m's state: a run of k sweeps from the same
 * state ends at x_k (without Chebyshev each step is a fixed function of its state and
 * settings; a fresh solver has no previous velocity, so its guess is the inertial target
 * x̃ whatever initial_guess says), so k = 1 .. K give every iterate without a hook into
 * the solver. G[0] is G at x̃ with pins at t + h (the start); `last` gets the profile of
 * the K-sweep run. Returns the iterates taken. */
static int vbd_iterates(weft_model *m, weft_config *cfg, int K, double *G, weft_profile *last) {
    const size_t n3 = 3 * (size_t)m->n;
    double *x0 = malloc(n3 * sizeof *x0), *v0 = malloc(n3 * sizeof *v0);
    double *xt = malloc(n3 * sizeof *xt), *g = malloc(n3 * sizeof *g);
    memcpy(x0, m->x, n3 * sizeof *x0);
    memcpy(v0, m->v, n3 * sizeof *v0);
    const double t0 = m->t;
    weft_inertial_target(m, x0, v0, xt);
    double *start = malloc(n3 * sizeof *start);
    memcpy(start, xt, n3 * sizeof *start);
    weft_model_apply_pins(m, t0 + m->dt, start);
    G[0] = weft_incremental_potential(m, start, xt, g);
    free(start);
    int got = 1;
    char its[48];
    for (int k = 1; k <= K; k++) {
        memcpy(m->x, x0, n3 * sizeof *x0);
        memcpy(m->v, v0, n3 * sizeof *v0);
        m->t = t0;
        snprintf(its, sizeof its, "solver.iterations=%d", k);
        if (!cfg_set(cfg, its) || !run_steps(vbd(), m, cfg, 1, k == K ? last : NULL)) break;
        G[k] = weft_incremental_potential(m, m->x, xt, g);
        got = k + 1;
    }
    memcpy(m->x, x0, n3 * sizeof *x0);
    memcpy(m->v, v0, n3 * sizeof *v0);
    m->t = t0;
    free(x0), free(v0), free(xt), free(g);
    return got;
}

/* hanging_cloth at 8 × 8 with dt = 1/30 s, after 40 steps of newton_euler: folding, springs
 * in compression, so some exact vertex blocks are indefinite (the exact run falls back to
 * projected blocks there). Each of 3 steps: G over 15 sweeps never rises beyond G's
 * rounding (1e-12 |G|, the rounding rule of vertex_block.c) and falls at most sweeps, with
 * projected and with exact blocks. The same check fails with Chebyshev (ρ = 0.95): the
 * extrapolation overshoots and G rises at some sweeps, the guarantee it gives up for speed. */
static void test_monotone(void) {
    static const char *const modes[][3] = {
        {"vbd.hessian=projected", "vbd.line_search=true", "vbd.chebyshev_rho=0"},
        {"vbd.hessian=exact", "vbd.line_search=true", "vbd.chebyshev_rho=0"},
        {"vbd.hessian=projected", "vbd.line_search=true", "vbd.chebyshev_rho=0.95"}};
    static const char *const sets[] = {"mesh.nx=8", "mesh.ny=8", "scene.dt=0.03333333333333333",
                                       NULL};
    weft_model m;
    weft_config *cfg = NULL;
    if (!build("hanging_cloth", sets, &m, &cfg) ||
        !run_steps(&weft_newton_euler, &m, cfg, 40, NULL)) {
        weft_config_free(&cfg);
        return;
    }
    const size_t n3 = 3 * (size_t)m.n;
    double *x40 = malloc(n3 * sizeof *x40), *v40 = malloc(n3 * sizeof *v40), t40 = m.t;
    memcpy(x40, m.x, n3 * sizeof *x40);
    memcpy(v40, m.v, n3 * sizeof *v40);
    for (int mo = 0; mo < 3; mo++) {
        const bool descent = mo < 2;
        memcpy(m.x, x40, n3 * sizeof *x40); /* every mode from the same state */
        memcpy(m.v, v40, n3 * sizeof *v40);
        m.t = t40;
        bool ok =
            cfg_set(cfg, modes[mo][0]) && cfg_set(cfg, modes[mo][1]) && cfg_set(cfg, modes[mo][2]);
        double projected_blocks = 0.0;
        int rises = 0;
        for (int step = 0; ok && step < 3; step++) {
            enum { K = 15 };
            double G[K + 1];
            weft_profile swept;
            int got = vbd_iterates(&m, cfg, K, G, &swept);
            CHECK(got == K + 1);
            int decreases = 0;
            for (int k = 0; k + 1 < got; k++) {
                bool rose = !(G[k + 1] <= G[k] + 1e-12 * fabs(G[k]));
                if (rose && descent)
                    fprintf(stderr, "%s step %d: G rose at sweep %d: %.17g -> %.17g\n",
                            modes[mo][0], step, k + 1, G[k], G[k + 1]);
                if (descent) CHECK(!rose);
                rises += rose;
                decreases += G[k + 1] < G[k] - 1e-12 * fabs(G[k]);
            }
            if (descent) CHECK(decreases >= K / 2); /* VBD had work to do */
            projected_blocks += weft_profile_value(&swept, "projected_blocks");
            fprintf(stderr,
                    "%s %s step %d: G %.10g -> %.10g over %d sweeps (%d decreasing, "
                    "%.0f projected blocks)\n",
                    modes[mo][0], modes[mo][2], step, G[0], G[got - 1], got - 1, decreases,
                    weft_profile_value(&swept, "projected_blocks"));
            /* The next step from a state every mode shares: 20 sweeps of the default. */
            ok = cfg_set(cfg, "vbd.hessian=projected") && cfg_set(cfg, "vbd.chebyshev_rho=0") &&
                 cfg_set(cfg, "solver.iterations=20") && run_steps(vbd(), &m, cfg, 1, NULL) &&
                 cfg_set(cfg, modes[mo][0]) && cfg_set(cfg, modes[mo][2]);
        }
        if (mo == 1) CHECK(projected_blocks > 0); /* the safeguard was exercised */
        if (mo == 2) CHECK(rises > 0);          /* the check can fail */
    }
    free(x40), free(v40);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* ------------------------------------------------------------------------------ */
/* Threads                                                                         */
/* ------------------------------------------------------------------------------ */

/* The vertices of one colour share no element, so each update reads only positions no
 * other thread writes during the colour: any thread count gives the same bits. */
static void test_threads(void) {
    static const char *const sets[] = {"mesh.nx=10", "mesh.ny=10", NULL};
    static const char *const rhos[] = {"vbd.chebyshev_rho=0", "vbd.chebyshev_rho=0.9"};
    for (int c = 0; c < 2; c++) {
        double *x[3] = {NULL, NULL, NULL};
        int n[3] = {0, 0, 0};
        for (int t = 0; t < 3; t++) {
            char th[32];
            snprintf(th, sizeof th, "solver.threads=%d", t + 1);
            const char *settings[] = {th, rhos[c], "solver.iterations=15", NULL};
            x[t] = positions_after("hanging_cloth", sets, vbd(), settings, 4, &n[t], NULL);
        }
        for (int t = 1; t < 3; t++) {
            CHECK(x[0] && x[t] && n[t] == n[0]);
            if (x[0] && x[t]) CHECK(memcmp(x[0], x[t], 3 * (size_t)n[0] * sizeof(double)) == 0);
        }
        if (x[0]) { /* and the run did something */
            weft_model m;
            if (build("hanging_cloth", sets, &m, NULL)) {
                CHECK(max_dist(x[0], m.x, m.n) > 1e-3);
                weft_model_free(&m);
            }
        }
        for (int t = 0; t < 3; t++) free(x[t]);
    }
}

/* ------------------------------------------------------------------------------ */
/* Chebyshev                                                                       */
/* ------------------------------------------------------------------------------ */

/* Reads a log's rows of step `step` into rel[iter] (residual_rel); returns the last
 * iteration read, -1 on failure. */
static int read_residuals(const char *path, int step, double *rel, int cap) {
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f) return -1;
    char line[1024];
    int last = -1;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        int s, it;
        double wall, r, rr;
        if (sscanf(line, "%d %d %lf %lf %lf", &s, &it, &wall, &r, &rr) != 5) continue;
        if (s != step || it < 0 || it >= cap) continue;
        rel[it] = rr;
        last = it > last ? it : last;
    }
    fclose(f);
    return last;
}

/* Runs 3 steps of the 6 × 6 hanging cloth with `sweeps` sweeps and Chebyshev's ρ, logging
 * every iteration to dir; fills rel with the third step's relative residuals. */
static int residual_run(const tmp_dir *dir, double rho, int sweeps, double *rel, int cap) {
    char rs[48], its[48], log[128];
    snprintf(rs, sizeof rs, "vbd.chebyshev_rho=%.17g", rho);
    snprintf(its, sizeof its, "solver.iterations=%d", sweeps);
    const char *sets[] = {"mesh.nx=6", "mesh.ny=6", "scene.steps=3", rs, its, NULL};
    weft_model m;
    weft_config *cfg = NULL;
    int last = -1;
    if (build("hanging_cloth", sets, &m, &cfg)) {
        tmp_file(dir, "vbd.log", log, sizeof log);
        weft_run_options opt = weft_run_options_default();
        opt.log_path = log;
        opt.config = cfg;
        weft_run_result res;
        weft_error err = {{0}};
        int rc = weft_run(vbd(), &m, &opt, &res, &err);
        if (rc) fprintf(stderr, "run: %s\n", err.msg);
        CHECK(rc == WEFT_OK);
        if (rc == WEFT_OK) last = read_residuals(log, 2, rel, cap);
        unlink(log);
        weft_model_free(&m);
    }
    weft_config_free(&cfg);
    return last;
}

/* The first iteration whose relative residual is at most tol, or -1. */
static int first_below(const double *rel, int last, double tol) {
    for (int k = 0; k <= last; k++)
        if (rel[k] <= tol) return k;
    return -1;
}

/* Plain VBD first, read its linear rate over sweeps 100 .. 300 of the step (the
 * asymptotic regime), ρ = that rate (the estimate vbd.c documents); then the same step
 * with Chebyshev. Both must reach 1e-4, the accelerated run in fewer sweeps. */
static void test_chebyshev(void) {
    enum { CAP = 401 };
    tmp_dir dir;
    if (!tmp_open(&dir)) return;
    static double plain[CAP], fast[CAP];
    int lp = residual_run(&dir, 0.0, 400, plain, CAP);
    CHECK(lp == 400);
    if (lp == 400) {
        double rho = pow(plain[300] / plain[100], 1.0 / 200.0);
        CHECK(rho > 0.5 && rho < 1.0);
        int lf = residual_run(&dir, rho, 200, fast, CAP);
        CHECK(lf == 200);
        int kp = first_below(plain, lp, 1e-4), kf = first_below(fast, lf, 1e-4);
        fprintf(stderr,
                "relative residual 1e-4: %d sweeps plain, %d with Chebyshev (rho = %.4f "
                "estimated from the plain rate)\n",
                kp, kf, rho);
        CHECK(kp > 0 && kf > 0);
        CHECK(kf < kp);
    }
    rmdir(dir.path);
}

/* ------------------------------------------------------------------------------ */
/* Pins, colliders, settings                                                       */
/* ------------------------------------------------------------------------------ */

/* drape_sphere (a cloth falling onto a ball) at 10 × 10 for 40 steps: every free vertex
 * ends outside the ball less 1e-9 m (each trial position is projected out of it, offset by
 * the margin); hanging_cloth's pinned corners stay exactly on their paths. */
static void test_pins_colliders(void) {
    static const char *const sets[] = {"mesh.nx=10", "mesh.ny=10", NULL};
    weft_model m;
    weft_config *cfg = NULL;
    if (build("drape_sphere", sets, &m, &cfg)) {
        CHECK(m.ncolliders > 0);
        if (run_steps(vbd(), &m, cfg, 40, NULL)) {
            double dmin = INFINITY;
            for (int i = 0; i < m.n; i++)
                for (int c = 0; c < m.ncolliders; c++)
                    dmin = fmin(dmin,
                                weft_collider_distance_at(&m.colliders[c], &m.x[3 * i], m.t, NULL));
            fprintf(stderr, "drape_sphere: smallest distance to a collider %.3e m (margin %g)\n",
                    dmin, m.contact_margin);
            CHECK(dmin >= m.contact_margin - 1e-9);
            CHECK(dmin < m.contact_margin + 1e-3); /* it did reach the ball */
        }
        weft_model_free(&m);
    }
    weft_config_free(&cfg);
    if (build("hanging_cloth", sets, &m, &cfg)) {
        if (run_steps(vbd(), &m, cfg, 10, NULL))
            for (int i = 0; i < m.n; i++) {
                if (m.pin[i] < 0) continue;
                double p[3];
                weft_pin_position(&m.paths[m.pin[i]], &m.x_start[3 * i], m.t, p);
                CHECK(p[0] == m.x[3 * i] && p[1] == m.x[3 * i + 1] && p[2] == m.x[3 * i + 2]);
            }
        weft_model_free(&m);
    }
    weft_config_free(&cfg);
}

static void test_settings(void) {
    static const char *const sets[] = {"vbd.chebyshev_rho=0.9", "vbd.initial_guess=inertia",
                                       "vbd.hessian=exact", "vbd.line_search=false", NULL};
    weft_model m;
    weft_config *cfg = NULL;
    if (build("hanging_cloth", sets, &m, &cfg)) {
        CHECK(cfg_value(cfg, "vbd", "chebyshev_rho") == 0.9);
        CHECK(cfg_value(cfg, "vbd", "initial_guess") == 1);
        CHECK(cfg_value(cfg, "vbd", "hessian") == 1);
        CHECK(cfg_value(cfg, "vbd", "line_search") == 0);
        weft_model_free(&m);
    }
    weft_config_free(&cfg);
    weft_error err = {{0}};
    static const char *const bad[][2] = {{"vbd.chebyshev_rho=1", "chebyshev_rho"},
                                         {"vbd.chebyshev_rho=-0.1", "chebyshev_rho"},
                                         {"vbd.initial_guess=zero", "initial_guess"},
                                         {"vbd.chebyshev=0.5", "chebyshev_rho"}};
    for (int b = 0; b < 4; b++) {
        const char *s[] = {bad[b][0], NULL};
        int rc = scene_try_build_cfg("hanging_cloth", s, weft_energy_registry, &m, &cfg, &err);
        if (rc == WEFT_OK) weft_model_free(&m);
        fprintf(stderr, "%s: %s\n", bad[b][0], err.msg);
        CHECK(rc == WEFT_ERR_INPUT && strstr(err.msg, bad[b][1]));
        weft_config_free(&cfg);
    }
}

/* pressure_block (file comment): on a perturbed icosphere (42 vertices). */
static void test_pressure_block(void) {
    weft_mesh mesh = {0};
    weft_error err = {{0}};
    const double c[3] = {0.1, -0.2, 0.3};
    CHECK(weft_mesh_icosphere(&mesh, 0.5, 1, c, &err) == WEFT_OK);
    if (mesh.nv == 0) return;
    const int n3 = 3 * mesh.nv;
    double *x = malloc((size_t)n3 * sizeof *x), *g = malloc((size_t)n3 * sizeof *g);
    CHECK(x && g);
    if (!x || !g) return;
    unsigned long long r = 12345;
    for (int j = 0; j < n3; j++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        x[j] = mesh.x[j] + 0.02 * ((double)(r >> 11) / 9007199254740992.0 - 0.5);
    }
    double V = weft_mesh_volume_gradient(&mesh, x, g);
    CHECK_NEAR(V, weft_mesh_volume(&mesh, x), 1e-14);
    const double h = 1e-6;
    double worst = 0.0, gmax = 0.0, flat = 0.0;
    for (int j = 0; j < n3; j++) {
        double s = x[j];
        x[j] = s + h;
        double vp = weft_mesh_volume(&mesh, x);
        x[j] = s - h;
        double vm = weft_mesh_volume(&mesh, x);
        x[j] = s;
        worst = fmax(worst, fabs((vp - vm) / (2 * h) - g[j]));
        gmax = fmax(gmax, fabs(g[j]));
    }
    /* Second differences of V within vertex i's three coordinates: 0 up to rounding. */
    const double d = 1e-2;
    for (int i = 0; i < mesh.nv; i++)
        for (int a = 0; a < 3; a++)
            for (int b = a; b < 3; b++) {
                /* V(x + d e_a + d e_b) − V(x + d e_a) − V(x + d e_b) + V(x) */
                double *pa = &x[3 * i + a], *pb = &x[3 * i + b], sa = *pa, sb = *pb;
                double v00 = weft_mesh_volume(&mesh, x);
                *pa += d;
                double v10 = weft_mesh_volume(&mesh, x);
                *pb += d;
                double v11 = weft_mesh_volume(&mesh, x);
                *pa = sa, *pb = sb;
                *pb += d;
                double v01 = weft_mesh_volume(&mesh, x);
                *pb = sb;
                flat = fmax(flat, fabs(v11 - v10 - v01 + v00) / (d * d));
            }
    /* Not vacuous: across two corners of a triangle the mixed second difference is the
     * (1/6)[x_c]× entry, not 0. */
    const int *t = mesh.tri;
    double *pa = &x[3 * t[0]], *pb = &x[3 * t[1] + 1], sa = *pa, sb = *pb;
    double v00 = weft_mesh_volume(&mesh, x);
    *pa += d;
    double v10 = weft_mesh_volume(&mesh, x);
    *pb += d;
    double v11 = weft_mesh_volume(&mesh, x);
    *pa = sa;
    double v01 = weft_mesh_volume(&mesh, x);
    *pb = sb;
    double mixed = fabs(v11 - v10 - v01 + v00) / (d * d);
    printf("dV/dx: max |FD - analytic| = %.3g (max |g| %.3g); own block %.3g m, mixed %.3g m\n",
           worst, gmax, flat, mixed);
    CHECK(worst <= 1e-8 * gmax);
    CHECK(flat <= 1e-10);
    CHECK(mixed >= 1e-3);
    free(x), free(g);
    weft_mesh_free(&mesh);
}

/* local_step (file comment): a trial on the line G(β) = (β − c)² − c² + b (b: the value
 * beyond which it always rises), counting the trials. */
typedef struct ls_line {
    double c, rise_from;
    int trials;
} ls_line;

static double ls_trial(void *ctx, double beta) {
    ls_line *l = ctx;
    l->trials++;
    return beta > l->rise_from ? 1.0 : (beta - l->c) * (beta - l->c) - l->c * l->c;
}

static void test_local_step(void) {
    /* vb_line_search */
    ls_line l = {0.3, 10.0, 0};
    CHECK(vb_line_search(1e-20, 1.0, ls_trial, &l) == VB_AT_ROUNDING && l.trials == 0);
    l = (ls_line){0.3, 0.6, 0}; /* β = 1 rises, β = ½ lowers */
    CHECK(vb_line_search(0.1, 0.0, ls_trial, &l) == 1 && l.trials == 2);
    l = (ls_line){0.3, -1.0, 0}; /* every trial rises */
    CHECK(vb_line_search(0.1, 0.0, ls_trial, &l) == VB_REJECTED && l.trials == VB_HALVINGS + 1);

    /* vb_inertia_eval against central differences, with mass damping */
    weft_model m;
    weft_config *cfg = NULL;
    const char *const sets[] = {"mesh.nx=4", "mesh.ny=4", NULL};
    if (!build("hanging_cloth", sets, &m, &cfg)) return;
    const int n = m.n, i = n / 2;
    double *xt = malloc(3 * (size_t)n * sizeof *xt), *a = malloc(3 * (size_t)n * sizeof *a);
    CHECK(xt && a);
    if (!xt || !a) goto out;
    for (int j = 0; j < 3 * n; j++) xt[j] = m.x[j] + 0.01 * (j % 5), a[j] = m.x[j] - 0.02 * (j % 3);
    const vb_inertia in = {.hh = 0.01, .alpha = 0.5, .xt = xt, .a = a};
    double p[3] = {m.x[3 * i] + 0.03, m.x[3 * i + 1] - 0.01, m.x[3 * i + 2] + 0.02};
    double f[3] = {0.0, 0.0, 0.0}, diag;
    vb_inertia_eval(&in, &m, i, p, f, &diag);
    CHECK_NEAR(diag, m.mass[i] * (1.0 / (0.01 * 0.01) + 0.5 / 0.01), 1e-12 * diag);
    for (int k = 0; k < 3; k++) {
        const double e = 1e-6, s = p[k];
        p[k] = s + e;
        double Ip = vb_inertia_eval(&in, &m, i, p, NULL, NULL);
        p[k] = s - e;
        double Im = vb_inertia_eval(&in, &m, i, p, NULL, NULL);
        p[k] = s;
        CHECK_NEAR(-f[k], (Ip - Im) / (2 * e), 1e-6 * fabs(f[k]) + 1e-9);
    }

    /* vb_vertex_direction on the cloth compressed to 70 % about its centre (exact blocks
     * indefinite), then stretched to 110 % (exact blocks definite) */
    vb_graph g = {0};
    weft_error err = {{0}};
    CHECK(vb_graph_build(&g, &m, "test_vbd", &err) == WEFT_OK);
    double c[3] = {0.0, 0.0, 0.0};
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 3; k++) c[k] += m.x[3 * j + k] / n;
    const vb_inertia plain = {.hh = m.dt, .alpha = 0.0, .xt = xt, .a = NULL};
    const double scale[2] = {0.7, 1.1 / 0.7};
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < 3 * n; j++)
            m.x[j] = c[j % 3] + scale[pass] * (m.x[j] - c[j % 3]), xt[j] = m.x[j];
        int kinds[3] = {0, 0, 0};
        for (int v = 0; v < n; v++) {
            if (m.pin[v] >= 0) continue;
            double fv[3], dx[3], fb[3], H[9];
            vb_block_kind kind =
                vb_vertex_direction(&g, &m, m.x, v, WEFT_HESSIAN_EXACT, &plain, NULL, fv, dx);
            kinds[kind]++;
            if (kind == VB_BLOCK_NONE) continue;
            CHECK(weft_dot3(fv, dx) >= 0.0); /* a descent direction of G_i (0 where f_i = 0) */
            /* dx solves the block it reports: (m_i/h² I + H) dx = f, H rebuilt here */
            CHECK(vb_vertex_block(&g, &m, m.x, v,
                                  kind == VB_BLOCK_EXACT ? WEFT_HESSIAN_EXACT
                                                         : WEFT_HESSIAN_ANALYTIC,
                                  fb, H));
            for (int r = 0; r < 3; r++) {
                double Hd = (m.mass[v] / (m.dt * m.dt)) * dx[r];
                for (int k = 0; k < 3; k++) Hd += H[3 * r + k] * dx[k];
                CHECK_NEAR(Hd, fv[r], 1e-9 * (fabs(fv[r]) + 1.0));
            }
        }
        fprintf(stderr, "local_step at %.0f %%: %d exact, %d projected, %d none\n",
                pass == 0 ? 70.0 : 110.0, kinds[VB_BLOCK_EXACT], kinds[VB_BLOCK_PROJECTED],
                kinds[VB_BLOCK_NONE]);
        CHECK(kinds[VB_BLOCK_NONE] == 0);
        CHECK(kinds[pass == 0 ? VB_BLOCK_PROJECTED : VB_BLOCK_EXACT] > 0);
    }
    const double singular[9] = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1e-13};
    double dx[3];
    CHECK(!vb_block_solve(singular, (double[3]){1.0, 1.0, 1.0}, dx));
    vb_graph_free(&g);
out:
    free(xt), free(a);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* Kinetic (mean velocity over the step, as the logs) + gravitational energy after each
 * step, and its largest value; on_step of weft_run. */
typedef struct mech_track {
    double *prev; /* positions before the step, 3n */
    double peak;
    int peak_at;
} mech_track;

static void mech_on_step(void *user, const weft_model *m, int step, const void *stage_stats) {
    (void)stage_stats;
    mech_track *tr = user;
    double e = 0.0;
    for (int j = 0; j < 3 * m->n; j++) {
        const double v = (m->x[j] - tr->prev[j]) / m->dt, mi = m->mass[j / 3];
        e += 0.5 * mi * v * v - mi * m->gravity[j % 3] * m->x[j];
    }
    if (e > tr->peak) tr->peak = e, tr->peak_at = step;
    memcpy(tr->prev, m->x, 3 * (size_t)m->n * sizeof *tr->prev);
}

/* balloon_no_gain (file comment). */
static void test_balloon_no_gain(void) {
    static const char *const sets[] = {"scene.steps=120", NULL};
    weft_model m = {0};
    weft_config *cfg = NULL;
    if (!build("balloon", sets, &m, &cfg)) return;
    mech_track tr = {malloc(3 * (size_t)m.n * sizeof(double)), -INFINITY, -1};
    CHECK(tr.prev != NULL);
    if (tr.prev) {
        memcpy(tr.prev, m.x, 3 * (size_t)m.n * sizeof(double));
        double e0 = 0.0; /* at rest: gravitational only */
        for (int j = 0; j < 3 * m.n; j++) e0 -= m.mass[j / 3] * m.gravity[j % 3] * m.x[j];
        weft_run_options opt = weft_run_options_default();
        opt.config = cfg;
        opt.log_level = WEFT_LOG_NONE;
        opt.on_step = mech_on_step;
        opt.user = &tr;
        weft_run_result res;
        weft_error err = {{0}};
        int rc = weft_run(vbd(), &m, &opt, &res, &err);
        if (rc) fprintf(stderr, "balloon_no_gain: %s\n", err.msg);
        CHECK(rc == WEFT_OK);
        printf("balloon_no_gain: kinetic + gravitational at most %.4f J (step %d), %.3f of the "
               "start %.4f J\n", tr.peak, tr.peak_at, tr.peak / e0, e0);
        CHECK(e0 > 0.0 && tr.peak <= 1.05 * e0);
    }
    free(tr.prev);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"newton_springs", test_newton_springs},
        {"newton_stvk", test_newton_stvk},
        {"monotone", test_monotone},
        {"threads", test_threads},
        {"chebyshev", test_chebyshev},
        {"pins_colliders", test_pins_colliders},
        {"settings", test_settings},
        {"pressure_block", test_pressure_block},
        {"balloon_no_gain", test_balloon_no_gain},
        {"local_step", test_local_step},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
