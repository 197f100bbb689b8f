/* test_xpbd_damping.c — XPBD's constraint damping (solvers/xpbd.c, Macklin et al. 2016
 * eq. 26, [xpbd] damping_beta) against Rayleigh damping:
 *   spring_rate  one spring, one end pinned, no gravity, released from 1 % stretch along
 *                its axis, ζ = βω/2 = 0.1 (ω² = k/m): over 10 periods the amplitude of
 *                xpbd (small steps: 100 substeps of T/50) decays at the rate σ = ζω of the
 *                damped oscillator ẍ + βω²ẋ + ω²x = 0, and at the rate of newton_euler with
 *                solver.damping_beta = β (dt = T/4000, so that backward Euler's own
 *                damping, ω²dt/2, is under 1 % of ζω), both within 5 %;
 *   cloth        swinging_cloth, 60 steps (1 s): the energy after 1 s falls as β grows
 *                (0, 0.01, 0.1 s) while the peak edge strain at β = 0.1 s stays within 2×
 *                that at β = 0 (eq. 26 in the elastic row gave 85 % and 20 times the energy).
 */
#include "check.h"
#include "scene_build.h"
#include "tmp_files.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A 2 × 2 grid of 1 m cells, vertices 1, 2, 3 pinned, no bending and no gravity; the test
 * keeps only the spring 0–1. */
static const char spring_scene[] =
    "[scene]\nname = one_spring\ndt = 0.01\nsteps = 1\ngravity = 0 0 0\n"
    "[mesh]\ntype = grid\nwidth = 1\nheight = 1\nnx = 2\nny = 2\nplane = xz\n"
    "origin = 0 0 0\n"
    "[material]\nbending = none\nstretch_stiffness = 200\n"
    "[pins]\nvertices = 1 2 3\n";

/* Builds the one-spring model with dt (s) and the override set into m and *cfg, vertex 0
 * at rest, stretched by 1 % along the spring; its axis (from vertex 1 to 0) into axis and
 * rest length into *l0. */
static bool spring_build(double dt, const char *set, weft_model *m, weft_config **cfg,
                         double axis[3], double *l0) {
    tmp_dir dir;
    char path[128], dts[64];
    if (!tmp_open(&dir)) return false;
    write_file(&dir, "spring.ini", spring_scene, path, sizeof path);
    snprintf(dts, sizeof dts, "scene.dt=%.17g", dt);
    const char *sets[] = {dts, set, NULL};
    bool ok = scene_build_cfg(path, sets, weft_energy_registry, m, cfg);
    unlink(path);
    rmdir(dir.path);
    if (!ok) return false;
    weft_term *t = &m->terms[m->stretch_term];
    int keep = -1;
    for (int e = 0; e < t->n; e++) {
        const int *v = t->elem[e].v;
        if ((v[0] == 0 && v[1] == 1) || (v[0] == 1 && v[1] == 0)) keep = e;
    }
    CHECK(keep >= 0 && m->pin[0] < 0 && m->pin[1] >= 0);
    if (keep < 0) return false;
    t->elem[0] = t->elem[keep];
    t->n = 1;
    double d = 0.0;
    for (int k = 0; k < 3; k++) {
        axis[k] = m->x[k] - m->x[3 + k];
        d += axis[k] * axis[k];
    }
    *l0 = sqrt(d);
    for (int k = 0; k < 3; k++) {
        axis[k] /= *l0;
        m->x[k] += 0.01 * *l0 * axis[k];
        m->v[k] = 0.0;
    }
    return true;
}

/* ω = sqrt(k/m) of the spring model's free vertex, rad/s. */
static double spring_omega(void) {
    weft_model m = {0};
    weft_config *cfg = NULL;
    double axis[3], l0;
    double w = NAN;
    if (spring_build(0.01, NULL, &m, &cfg, axis, &l0))
        w = sqrt(m.terms[m.stretch_term].elem[0].k / m.mass[0]);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return w;
}

/* Runs solver s on the spring for `steps` steps of dt with the overrides a, b and returns
 * the decay rate σ = ln(A_0/A_n)/t_n (1/s) between the release (A_0: the 1 % stretch, a
 * peak since v = 0) and the n-th later peak of the axial displacement (located and sized
 * by a parabola through the three samples around each discrete maximum); NAN on failure. */
static double decay_rate(const weft_solver_type *s, double dt, int steps, const char *a,
                         const char *b, int n) {
    weft_model m = {0};
    weft_config *cfg = NULL;
    double axis[3], l0, sigma = NAN;
    double *u = malloc((size_t)(steps + 1) * sizeof *u);
    void *st = NULL;
    if (!u || !spring_build(dt, a, &m, &cfg, axis, &l0) ||
        (b && !cfg_assign(cfg, b, "test_xpbd_damping")))
        goto done;
    weft_error err = {{0}};
    st = s->create(&m, cfg, &err);
    if (!st) fprintf(stderr, "%s: %s\n", s->name, err.msg);
    CHECK(st != NULL);
    if (!st) goto done;
    for (int i = 0; i <= steps; i++) {
        double r = 0.0;
        for (int k = 0; k < 3; k++) r += (m.x[k] - m.x[3 + k]) * axis[k];
        u[i] = r - l0; /* axial stretch, m */
        if (i < steps && s->step(st, &m, NULL, &err) != WEFT_OK) {
            fprintf(stderr, "%s: %s\n", s->name, err.msg);
            CHECK(0);
            goto done;
        }
    }
    int found = 0;
    for (int i = 1; i < steps && found < n; i++) {
        if (!(u[i] > u[i - 1] && u[i] >= u[i + 1])) continue;
        const double c = u[i - 1] - 2.0 * u[i] + u[i + 1];
        const double off = 0.5 * (u[i - 1] - u[i + 1]) / c;
        const double peak = u[i] - 0.25 * (u[i - 1] - u[i + 1]) * off;
        if (++found == n) sigma = log(u[0] / peak) / ((i + off) * dt);
    }
    CHECK(found == n); /* the run covered n periods */
done:
    if (st) s->destroy(st);
    free(u);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return sigma;
}

static void test_spring_rate(void) {
    const double zeta = 0.1, w = spring_omega();
    CHECK(isfinite(w) && w > 0.0);
    if (!(w > 0.0)) return;
    const double beta = 2.0 * zeta / w, T = 2.0 * WEFT_PI / w;
    const double expect = zeta * w; /* σ of ẍ + βω²ẋ + ω²x = 0, exactly */
    char bx[64], bn[64];
    snprintf(bx, sizeof bx, "xpbd.damping_beta=%.17g", beta);
    snprintf(bn, sizeof bn, "solver.damping_beta=%.17g", beta);
    const weft_solver_type *xpbd = weft_solver_find("xpbd");
    CHECK(xpbd != NULL);
    if (!xpbd) return;
    /* 10.6 periods: the 10th peak (at 10 damped periods, 10.05 T) and the samples after it */
    const double sx = decay_rate(xpbd, T / 50.0, 530, bx, "xpbd.substeps=100", 10);
    const double sn = decay_rate(&weft_newton_euler, T / 4000.0, 42400, bn,
                                 "solver.tolerance=1e-12", 10);
    /* Without damping xpbd keeps the amplitude: the decay above is the damping's. */
    const double s0 = decay_rate(xpbd, T / 50.0, 530, NULL, "xpbd.substeps=100", 10);
    fprintf(stderr, "spring_rate: omega %.4g rad/s, beta %.4g s, zeta %.2g: decay rate "
            "analytic %.5g 1/s, xpbd %.5g (%+.2f %%), newton_euler %.5g (%+.2f %%); xpbd "
            "at beta = 0: %.3g 1/s\n", w, beta, zeta, expect, sx, 100.0 * (sx / expect - 1.0),
            sn, 100.0 * (sn / expect - 1.0), s0);
    CHECK(fabs(sx / expect - 1.0) <= 0.05);
    CHECK(fabs(sn / expect - 1.0) <= 0.05);
    CHECK(fabs(sx / sn - 1.0) <= 0.05);
    CHECK(fabs(s0) <= 0.02 * expect);
}

/* ------------------------------------------------------------------------------ */

/* on_step: the largest max edge strain after any step, into *user. */
static void track_strain(void *user, const weft_model *m, int step, const void *stage_stats) {
    (void)step, (void)stage_stats;
    double cmax, crms;
    weft_strain(m, m->x, &cmax, &crms);
    double *peak = user;
    if (cmax > *peak) *peak = cmax;
}

/* Runs xpbd on swinging_cloth for 60 steps with damping_beta = beta: the energy after the
 * last step (J) into *energy and the peak edge strain into *peak. */
static bool cloth_run(double beta, double *energy, double *peak) {
    char set[64];
    snprintf(set, sizeof set, "xpbd.damping_beta=%.17g", beta);
    const char *sets[] = {"scene.steps=60", set, NULL};
    weft_model m = {0};
    weft_config *cfg = NULL;
    bool ok = scene_build_cfg("swinging_cloth", sets, weft_energy_registry, &m, &cfg);
    const weft_solver_type *s = weft_solver_find("xpbd");
    CHECK(s != NULL);
    if (ok && s) {
        *peak = 0.0;
        weft_run_options opt = weft_run_options_default();
        opt.config = cfg;
        opt.log_level = WEFT_LOG_NONE;
        opt.on_step = track_strain;
        opt.user = peak;
        weft_run_result res;
        weft_error err = {{0}};
        int rc = weft_run(s, &m, &opt, &res, &err);
        if (rc) fprintf(stderr, "xpbd: %s\n", err.msg);
        ok = rc == WEFT_OK && res.steps_done == 60;
        CHECK(ok);
        CHECK(fabs(m.t - 1.0) < 1e-9);
        *energy = res.last.energy;
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
    return ok && s;
}

static void test_cloth(void) {
    const double beta[3] = {0.0, 0.01, 0.1};
    double e[3], peak[3];
    for (int i = 0; i < 3; i++)
        if (!cloth_run(beta[i], &e[i], &peak[i])) return;
    for (int i = 0; i < 3; i++)
        fprintf(stderr, "cloth: beta %.2g s: energy after 1 s %.6f J, peak edge strain %.4f\n",
                beta[i], e[i], peak[i]);
    CHECK(e[1] < e[0] && e[2] < e[1]);
    CHECK(peak[2] <= 2.0 * peak[0]);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"spring_rate", test_spring_rate},
        {"cloth", test_cloth},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
