/* test_implicit.c — the implicit integrators of solvers/implicit.c: implicit_euler
 * (Baraff & Witkin's linearised backward Euler), newton_euler (backward Euler by Newton
 * on the incremental potential G), bdf2 and bdf2_newton.
 *
 * Facts checked, each against a value derived here, never one taken from
 * running the code:
 *   - on a linear spring–mass oscillator the steps equal the closed-form recurrences of
 *     backward Euler, [u; w]' = (I − hJ)⁻¹ [u; w], and of BDF2 (first step backward
 *     Euler), to 1e-12;
 *   - the error at a fixed time against the analytic oscillator falls with slope ≈ 1
 *     (backward Euler) and ≈ 2 (BDF2) in log(dt);
 *   - PPCG with each preconditioner and CHOLMOD give the same step on a pinned cloth in
 *     contact with a sphere; pins sit exactly on their scripted paths, contact-filtered
 *     vertices on the collider's surface (plus the margin) along its normal;
 *   - Newton decreases G at every iteration (projected and exact Hessians) and, with the
 *     exact Hessian, converges quadratically near the solution;
 *   - dt = 0.1 s with stiff springs stays bounded for every implicit solver and blows up
 *     symplectic Euler on the same scene;
 *   - newton_euler and implicit_euler agree as dt → 0, their difference at a fixed time
 *     shrinking at least linearly in dt;
 *   - CHOLMOD's symbolic analysis runs once for a whole run;
 *   - an indefinite system (exact Hessian) is retried with the projected one, counted and
 *     warned once; a non-finite state and an energy that is infinite at every start point
 *     stop the step with a one-line message, and a run's logs stay free of NaN;
 *   - with no pins, gravity or colliders, Newton conserves linear momentum.
 * Scenes are the built-in hanging_cloth and drape_sphere at 6² to 8² vertices, and an
 * oscillator written here as an INI file into a fresh mkdtemp directory.
 */
#include "check.h"
#include "implicit_internal.h"
#include "scene_build.h"
#include "test_util.h"
#include "tmp_files.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */
/* ------------------------------------------------------------------------------ */

#define MAX_SETS 24
#define PI 3.14159265358979323846

/* Builds scene (a built-in name or a path) with every registered energy, an nx × nx mesh
 * when nx > 0, and the NULL-terminated overrides, and its config (the solvers' settings)
 * into *cfg (the caller frees it); a failed check otherwise. */
static bool build(const char *scene, int nx, const char *const *sets, weft_model *m,
                  weft_config **cfg) {
    const char *all[MAX_SETS + 3];
    char a[32], b[32];
    int k = 0;
    if (nx > 0) {
        snprintf(a, sizeof a, "mesh.nx=%d", nx);
        snprintf(b, sizeof b, "mesh.ny=%d", nx);
        all[k++] = a, all[k++] = b;
    }
    for (int i = 0; sets && sets[i] && i < MAX_SETS; i++) all[k++] = sets[i];
    all[k] = NULL;
    return scene_build_cfg(scene, all, weft_energy_registry, m, cfg);
}

/* The settings struct of implicit solver s in cfg (the one its create reads; edit it to
 * change the run); NULL with a failed check when cfg has none. */
static weft_implicit_settings *im_settings(weft_config *cfg, const weft_solver_type *s) {
    weft_implicit_settings *set = weft_config_find(cfg, s->settings);
    CHECK(set != NULL);
    return set;
}

/* Applies one "section.key=value" assignment to every plug-in of cfg that has the key; a
 * failed check (with the message) otherwise. */
static bool cfg_set(weft_config *cfg, const char *assignment) {
    weft_error err = {{0}};
    int rc = weft_config_set(cfg, assignment, "test_implicit", &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* Creates solver s's state for m with the settings of cfg; a failed check (with the
 * message) otherwise. */
static void *create(const weft_solver_type *s, const weft_model *m, weft_config *cfg) {
    weft_error err = {{0}};
    void *st = s->create(m, cfg, &err);
    if (!st) fprintf(stderr, "%s: create: %s\n", s->name, err.msg);
    CHECK(st != NULL);
    return st;
}

/* Steps st (of solver s) `steps` times without a monitor; returns the first failing
 * status with its message in err. */
static int advance(const weft_solver_type *s, void *st, weft_model *m, int steps,
                   weft_error *err) {
    for (int i = 0; i < steps; i++) {
        int rc = s->step(st, m, NULL, err);
        if (rc) return rc;
    }
    return WEFT_OK;
}

/* advance that must succeed. */
static bool advance_ok(const weft_solver_type *s, void *st, weft_model *m, int steps) {
    weft_error err = {{0}};
    int rc = advance(s, st, m, steps, &err);
    if (rc) fprintf(stderr, "%s: %s\n", s->name, err.msg);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* A copy of a model's state: positions, velocities, time. */
typedef struct snap {
    double *x, *v, t;
} snap;

static void snap_take(snap *s, const weft_model *m) {
    size_t n3 = 3 * (size_t)m->n;
    s->x = malloc(n3 * sizeof *s->x);
    s->v = malloc(n3 * sizeof *s->v);
    memcpy(s->x, m->x, n3 * sizeof *s->x);
    memcpy(s->v, m->v, n3 * sizeof *s->v);
    s->t = m->t;
}

static void snap_put(const snap *s, weft_model *m) {
    size_t n3 = 3 * (size_t)m->n;
    memcpy(m->x, s->x, n3 * sizeof *s->x);
    memcpy(m->v, s->v, n3 * sizeof *s->v);
    m->t = s->t;
}

static void snap_free(snap *s) {
    free(s->x);
    free(s->v);
}

/* ‖a − b‖₂ over n values. */
static double dist(const double *a, const double *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(s);
}

/* Largest |x_i − x_start_i| over every coordinate; +inf when any is not finite. */
static double max_excursion(const weft_model *m) {
    double d = 0.0;
    for (int i = 0; i < 3 * m->n; i++) {
        double e = fabs(m->x[i] - m->x_start[i]);
        if (!isfinite(e) || !isfinite(m->v[i])) return INFINITY;
        d = fmax(d, e);
    }
    return d;
}

/* Least-squares slope of log e against log h over n points. */
static double loglog_slope(const double *h, const double *e, int n) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double x = log(h[i]), y = log(e[i]);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* The four implicit solvers; the first two are backward Euler, the last two BDF2. */
static const weft_solver_type *const implicit_solvers[] = {&weft_implicit_euler,
                                                           &weft_newton_euler, &weft_bdf2,
                                                           &weft_bdf2_newton};

/* ------------------------------------------------------------------------------ */
/* A linear oscillator                                                             */
/* ------------------------------------------------------------------------------ */

/* One free vertex (0) on one spring to a pinned vertex (1), without gravity: a 2 × 2 grid
 * of 1 m cells with vertices 1, 2, 3 pinned and every spring but the edge 0–1 removed.
 * With d̂ the unit vector from vertex 1 to vertex 0 at rest (an axis of the grid, so its
 * components are exact), x_0 = x_1 + (ℓ0 + u) d̂ and v_0 = w d̂, the spring force on
 * vertex 0 is −k u d̂ for every u > −ℓ0 (mass_spring: Ψ = ½ k (ℓ − ℓ0)², force along
 * d̂), and the system's matrices map d̂ onto itself, so the motion stays on the axis and
 * is the linear oscillator u'' = −ω² u, ω² = k/m_0. The spring constant is set to m_0 ω²
 * for the requested ω. */
typedef struct osc {
    weft_model m;
    weft_config *cfg; /* the scene's settings */
    double d[3];  /* d̂ */
    double l0;    /* rest length, m */
    double w2;    /* ω² = k/m_0 as the solver sees it, 1/s² */
} osc;

static const char osc_scene[] =
    "[scene]\nname = oscillator\ndt = 0.01\nsteps = 1\ngravity = 0 0 0\n"
    "[mesh]\ntype = grid\nwidth = 1\nheight = 1\nnx = 2\nny = 2\nplane = xz\n"
    "origin = 0 0 0\n"
    "[material]\nbending = none\n"
    "[pins]\nvertices = 1 2 3\n";

/* Builds the oscillator with angular frequency omega (rad/s), stretch u0 (m) and speed
 * w0 (m/s) along d̂. */
static bool osc_build(osc *o, double omega, double u0, double w0) {
    memset(o, 0, sizeof *o);
    tmp_dir dir;
    char path[128];
    if (!tmp_open(&dir)) return false;
    write_file(&dir, "osc.ini", osc_scene, path, sizeof path);
    bool ok = build(path, 0, NULL, &o->m, &o->cfg);
    unlink(path);
    rmdir(dir.path);
    if (!ok) return false;
    weft_model *m = &o->m;
    CHECK(m->n == 4 && m->pin[0] < 0 && m->pin[1] >= 0 && m->pin[2] >= 0 && m->pin[3] >= 0);
    CHECK(m->stretch_term >= 0 && m->bending_term < 0);
    if (m->n != 4 || m->stretch_term < 0) return false;
    weft_term *t = &m->terms[m->stretch_term];
    int keep = -1;
    for (int e = 0; e < t->n; e++) {
        const int *v = t->elem[e].v;
        if ((v[0] == 0 && v[1] == 1) || (v[0] == 1 && v[1] == 0)) keep = e;
    }
    CHECK(keep >= 0);
    if (keep < 0) return false;
    t->elem[0] = t->elem[keep];
    t->n = 1;
    t->elem[0].k = m->mass[0] * omega * omega;
    o->w2 = t->elem[0].k / m->mass[0];
    o->l0 = t->elem[0].rest[0];
    for (int k = 0; k < 3; k++) o->d[k] = (m->x[k] - m->x[3 + k]) / o->l0;
    CHECK(fabs(o->l0 - 1.0) < 1e-15 && fabs(norm3(o->d) - 1.0) < 1e-15);
    for (int k = 0; k < 3; k++) {
        m->x[k] = m->x[3 + k] + (o->l0 + u0) * o->d[k];
        m->v[k] = w0 * o->d[k];
    }
    return true;
}

/* Frees the oscillator's model and config. */
static void osc_free(osc *o) {
    weft_model_free(&o->m);
    weft_config_free(&o->cfg);
}

/* The oscillator's stretch u and speed w; *off gets the largest distance of vertex 0
 * from the axis (m) and of its velocity from d̂'s direction (m/s). */
static void osc_state(const osc *o, double *u, double *w, double *off) {
    const double *x0 = o->m.x, *x1 = o->m.x + 3, *v0 = o->m.v;
    double r[3] = {x0[0] - x1[0], x0[1] - x1[1], x0[2] - x1[2]};
    *u = dot3(r, o->d) - o->l0;
    *w = dot3(v0, o->d);
    double o1 = 0.0, o2 = 0.0;
    for (int k = 0; k < 3; k++) {
        o1 = fmax(o1, fabs(r[k] - (o->l0 + *u) * o->d[k]));
        o2 = fmax(o2, fabs(v0[k] - *w * o->d[k]));
    }
    *off = fmax(o1, o2);
}

/* One step of the scheme u' = a + ĥ w', w' = b̄ − ĥ (ω² u' + γ w') in closed form, with
 * Rayleigh damping γ = α + β ω² (the spring's D = αm + βk per unit mass):
 *   w' = (b̄ − ĥ ω² a) / (1 + ĥ γ + ĥ² ω²),  u' = a + ĥ w';
 * for γ = 0 this is [u'; w'] = (I − ĥ J)⁻¹ [a; b̄], J = [[0, 1], [−ω², 0]]. */
static void osc_closed_step(double hh, double w2, double gamma, double a, double b, double *u,
                            double *w) {
    double det = 1.0 + hh * gamma + hh * hh * w2;
    *w = (b - hh * w2 * a) / det;
    *u = a + hh * *w;
}

/* Runs solver s on the oscillator for `steps` steps of h and compares every step with the
 * closed-form recurrence: backward Euler (a, b̄) = (u_n, w_n), ĥ = h; BDF2 after its first
 * (backward Euler) step (a, b̄) = ((4u_n − u_{n−1})/3, (4w_n − w_{n−1})/3), ĥ = 2h/3.
 * Returns the largest relative difference ‖Δ[u; w/ω]‖ / ‖[u; w/ω]‖. */
static double osc_recurrence_damped(const weft_solver_type *s, bool bdf2, double h, int steps,
                                    double alpha, double beta) {
    osc o;
    if (!osc_build(&o, 2.0 * PI, 0.1, 0.3)) {
        osc_free(&o);
        return INFINITY;
    }
    o.m.dt = h;
    weft_implicit_settings *set = im_settings(o.cfg, s);
    if (!set) {
        osc_free(&o);
        return INFINITY;
    }
    set->damping_alpha = alpha;
    set->damping_beta = beta;
    const double gamma = alpha + beta * o.w2;
    set->tolerance = 1e-12;
    void *st = create(s, &o.m, o.cfg);
    double worst = 0.0, off_worst = 0.0;
    double u, w, off, up = 0.0, wp = 0.0;
    osc_state(&o, &u, &w, &off);
    double w_scale = 1.0 / sqrt(o.w2);
    for (int n = 0; st && n < steps; n++) {
        double a = u, b = w, hh = h;
        if (bdf2 && n > 0) {
            a = (4.0 * u - up) / 3.0;
            b = (4.0 * w - wp) / 3.0;
            hh = 2.0 * h / 3.0;
        }
        double ue, we;
        osc_closed_step(hh, o.w2, gamma, a, b, &ue, &we);
        if (!advance_ok(s, st, &o.m, 1)) break;
        up = u, wp = w;
        osc_state(&o, &u, &w, &off);
        double diff = hypot(u - ue, (w - we) * w_scale), size = hypot(ue, we * w_scale);
        worst = fmax(worst, diff / size);
        off_worst = fmax(off_worst, off);
        /* Continue from the solver's state: the recurrence is checked step by step. */
    }
    CHECK(off_worst <= 1e-15); /* the motion stayed on the axis */
    s->destroy(st);
    osc_free(&o);
    return worst;
}

/* The undamped oscillator. */
static double osc_recurrence(const weft_solver_type *s, bool bdf2, double h, int steps) {
    return osc_recurrence_damped(s, bdf2, h, steps, 0.0, 0.0);
}

/* ω h = 0.063 (50 steps) and 0.63 (20 steps: backward Euler damps the amplitude by
 * (1 + ω²h²)^(-1/2) per step, and u is read from positions of size 1 m, so rounding of
 * 1e-16 m must stay small against the amplitude). */
static void test_oscillator_be(void) {
    for (int j = 0; j < 2; j++) {
        double h = j ? 0.1 : 0.01;
        int steps = j ? 20 : 50;
        double ie = osc_recurrence(&weft_implicit_euler, false, h, steps);
        double ne = osc_recurrence(&weft_newton_euler, false, h, steps);
        fprintf(stderr, "h = %g: implicit_euler %.3g, newton_euler %.3g\n", h, ie, ne);
        CHECK(ie <= 1e-12);
        CHECK(ne <= 1e-12);
    }
}

static void test_oscillator_bdf2(void) {
    for (int j = 0; j < 2; j++) {
        double h = j ? 0.1 : 0.01;
        int steps = j ? 20 : 50;
        double b2 = osc_recurrence(&weft_bdf2, true, h, steps);
        double b2n = osc_recurrence(&weft_bdf2_newton, true, h, steps);
        fprintf(stderr, "h = %g: bdf2 %.3g, bdf2_newton %.3g\n", h, b2, b2n);
        CHECK(b2 <= 1e-12);
        CHECK(b2n <= 1e-12);
        /* The BDF2 recurrence is not backward Euler's: the check above can tell them
         * apart (backward Euler's recurrence misses BDF2's steps by far more). */
        double be_vs_b2 = osc_recurrence(&weft_bdf2, false, h, steps);
        CHECK(be_vs_b2 > 1e-6);
    }
}

/* Rayleigh damping D = αM + βK enters every scheme as −D v_{n+1} (Baraff & Witkin's ∂f/∂v
 * term; Newton's potential freezes K at x_n, exact for a linear spring): each solver
 * follows the damped closed-form recurrence, and it differs from the undamped one. */
static void test_oscillator_damped(void) {
    const double alpha = 0.8, beta = 0.01, h = 0.02; /* γ = 0.8 + 0.01·(2π)² ≈ 1.19 1/s */
    const weft_solver_type *const s[] = {&weft_implicit_euler, &weft_newton_euler,
                                         &weft_bdf2, &weft_bdf2_newton};
    for (int i = 0; i < 4; i++) {
        bool two = i >= 2;
        double d = osc_recurrence_damped(s[i], two, h, 40, alpha, beta);
        double undamped = osc_recurrence_damped(s[i], two, h, 40, 0.0, 0.0);
        fprintf(stderr, "%s: damped recurrence %.3g\n", s[i]->name, d);
        CHECK(d <= 1e-12);
        CHECK(undamped <= 1e-12);
        /* The damped solver against the undamped recurrence: far apart, so the damping
         * terms really act. */
        osc o;
        weft_implicit_settings *set = NULL;
        if (osc_build(&o, 2.0 * PI, 0.1, 0.3) && (set = im_settings(o.cfg, s[i]))) {
            o.m.dt = h;
            set->damping_alpha = alpha;
            set->damping_beta = beta;
            set->tolerance = 1e-12;
            void *st = create(s[i], &o.m, o.cfg);
            CHECK(st && advance_ok(s[i], st, &o.m, 40));
            double u, w, off;
            osc_state(&o, &u, &w, &off);
            if (st) s[i]->destroy(st);
            double ua = 0.1, wa = 0.3, up = 0.0, wp = 0.0; /* undamped recurrence */
            for (int n = 0; n < 40; n++) {
                double a = ua, b = wa, hh = h, ue, we;
                if (two && n > 0) {
                    a = (4.0 * ua - up) / 3.0, b = (4.0 * wa - wp) / 3.0, hh = 2.0 * h / 3.0;
                }
                osc_closed_step(hh, o.w2, 0.0, a, b, &ue, &we);
                up = ua, wp = wa, ua = ue, wa = we;
            }
            CHECK(hypot(u - ua, w - wa) > 1e-3);
        }
        osc_free(&o);
    }
}

/* Error at T = 1 s (one period, ω = 2π) against u(t) = u0 cos ωt + (w0/ω) sin ωt for
 * h = 1/100 .. 1/800: the log-log slope is the order. */
static void test_order(void) {
    const double omega = 2.0 * PI, u0 = 0.1, w0 = 0.3, T = 1.0;
    const int N[] = {100, 200, 400, 800};
    const int nh = 4;
    for (int s = 0; s < 4; s++) {
        const weft_solver_type *solver = implicit_solvers[s];
        double hs[4], es[4];
        for (int j = 0; j < nh; j++) {
            osc o;
            hs[j] = T / N[j];
            es[j] = NAN;
            weft_implicit_settings *set = NULL;
            if (osc_build(&o, omega, u0, w0) && (set = im_settings(o.cfg, solver))) {
                o.m.dt = hs[j];
                set->tolerance = 1e-12;
                void *st = create(solver, &o.m, o.cfg);
                if (st && advance_ok(solver, st, &o.m, N[j])) {
                    double u, w, off, ws = 1.0 / sqrt(o.w2), om = sqrt(o.w2);
                    osc_state(&o, &u, &w, &off);
                    double ur = u0 * cos(om * T) + w0 / om * sin(om * T);
                    double wr = -u0 * om * sin(om * T) + w0 * cos(om * T);
                    es[j] = hypot(u - ur, (w - wr) * ws);
                }
                if (st) solver->destroy(st);
            }
            osc_free(&o);
        }
        double p = loglog_slope(hs, es, nh);
        fprintf(stderr, "%s: errors %.3g %.3g %.3g %.3g, slope %.3f\n", solver->name, es[0],
                es[1], es[2], es[3], p);
        if (s < 2) {
            CHECK(p >= 0.9 && p <= 1.1);
        } else {
            CHECK(p >= 1.8 && p <= 2.2);
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* PPCG against CHOLMOD, pins and contacts                                         */
/* ------------------------------------------------------------------------------ */

/* drape_sphere at 8 × 8, starting 5 mm above the sphere's top with the corners
 * top_left, top_right pinned and moving up at 5 cm/s. */
static const char *const drape_sets[] = {"mesh.origin=-0.5 0.605 0.5",
                                         "pins.corners=top_left top_right",
                                         "pins.motion=translate",
                                         "pins.velocity=0 0.05 0",
                                         "ppcg.tolerance=1e-13",
                                         "ppcg.iterations=100000",
                                         "solver.tolerance=1e-10",
                                         "solver.iterations=50",
                                         NULL};

/* Signed gap (distance minus margin) of p from collider c, normal in n. */
static double gap(const weft_model *m, int c, const double *p, double n[3]) {
    return weft_collider_distance_at(&m->colliders[c], p, m->t, n) - m->contact_margin;
}

static void check_agreement(const weft_solver_type *solver) {
    weft_model m;
    weft_config *cfg = NULL;
    if (!build("drape_sphere", 8, drape_sets, &m, &cfg)) return;
    const int n = m.n, n3 = 3 * n;
    /* 12 steps with CHOLMOD bring the cloth onto the sphere. */
    void *st = create(solver, &m, cfg);
    if (!st || !advance_ok(solver, st, &m, 12)) {
        if (st) solver->destroy(st);
        weft_model_free(&m);
        weft_config_free(&cfg);
        return;
    }
    solver->destroy(st);
    snap s0;
    snap_take(&s0, &m);
    /* The start points of the contact filters: x̃ = x_n + h v_n + h² g inside a collider
     * (within the margin), projected onto its surface along the normal. */
    double *q = calloc((size_t)n3, sizeof *q), *qn = calloc((size_t)n3, sizeof *qn);
    int *caught = calloc((size_t)n, sizeof *caught);
    int ncaught = 0;
    const double h = m.dt, t1 = m.t + h;
    for (int i = 0; i < n; i++) {
        caught[i] = -1;
        if (m.pin[i] >= 0) continue;
        double xt[3];
        for (int k = 0; k < 3; k++) xt[k] = m.x[3 * i + k] + h * m.v[3 * i + k] + h * h * m.gravity[k];
        for (int c = 0; c < m.ncolliders; c++) {
            double nn[3];
            double d = weft_collider_distance_at(&m.colliders[c], xt, t1, nn) - m.contact_margin;
            if (d < 0.0) {
                for (int k = 0; k < 3; k++) q[3 * i + k] = xt[k] - d * nn[k], qn[3 * i + k] = nn[k];
                caught[i] = c;
                ncaught++;
                break;
            }
        }
    }
    CHECK(ncaught >= 3); /* contact filters are active in the compared step */

    /* One step from the same state with each linear solver. */
    static const char *const names[] = {"cholmod", "ppcg/none", "ppcg/jacobi",
                                        "ppcg/block_jacobi"};
    static const char *const linears[] = {"solver.linear=cholmod", "solver.linear=ppcg",
                                          "solver.linear=ppcg", "solver.linear=ppcg"};
    static const char *const preconds[] = {"ppcg.preconditioner=none",
                                           "ppcg.preconditioner=none",
                                           "ppcg.preconditioner=jacobi",
                                           "ppcg.preconditioner=block_jacobi"};
    double *x_ref = malloc((size_t)n3 * sizeof *x_ref), *v_ref = malloc((size_t)n3 * sizeof *v_ref);
    for (int c = 0; c < 4; c++) {
        snap_put(&s0, &m);
        if (!cfg_set(cfg, linears[c]) || !cfg_set(cfg, preconds[c])) continue;
        void *sc = create(solver, &m, cfg);
        if (!sc) continue;
        bool ok = advance_ok(solver, sc, &m, 1);
        weft_profile stats;
        weft_solver_stats(solver, sc, &stats);
        solver->destroy(sc);
        if (!ok) continue;
        /* CHOLMOD analysed once ("setups", with the ordering it chose); PPCG made no
         * CHOLMOD analysis (ordering "none"; its "setups" count preconditioner set-ups). */
        double setups = weft_profile_value(&stats, "setups");
        double linear_iterations = weft_profile_value(&stats, "linear_iterations");
        const weft_profile_entry *ord = weft_profile_find(&stats, "ordering");
        bool analysed = ord && ord->text && strcmp(ord->text, "none") != 0;
        CHECK(c == 0 ? setups == 1 && analysed && linear_iterations == 0
                     : !analysed && linear_iterations > 0);
        /* Pins exactly on their scripted paths at t + h. */
        int pins = 0;
        for (int i = 0; i < n; i++)
            if (m.pin[i] >= 0) {
                double p[3];
                weft_pin_position(&m.paths[m.pin[i]], &m.x_start[3 * i], m.t, p);
                CHECK(m.x[3 * i] == p[0] && m.x[3 * i + 1] == p[1] && m.x[3 * i + 2] == p[2]);
                pins++;
            }
        CHECK(pins == 2);
        /* Contact-filtered vertices on the surface along the normal: the step moves them
         * only tangentially, n̂·(x_{n+1} − q) = 0 (friction acts along the tangent too).
         * Newton linearises the contact afresh at every iterate, so its contacts end on
         * the collider's surface itself (gap 0), not on the tangent plane at q, which
         * leaves a sphere by |t|²/2R after a tangential move t. A released contact (the
         * collider would pull) may leave; no vertex ends inside. */
        int on = 0;
        for (int i = 0; i < n; i++) {
            if (m.pin[i] >= 0) continue;
            for (int cc = 0; cc < m.ncolliders; cc++) CHECK(gap(&m, cc, &m.x[3 * i], NULL) >= -1e-12);
            if (caught[i] < 0) continue;
            double d[3] = {m.x[3 * i] - q[3 * i], m.x[3 * i + 1] - q[3 * i + 1],
                           m.x[3 * i + 2] - q[3 * i + 2]};
            double along = solver == &weft_newton_euler ? gap(&m, caught[i], &m.x[3 * i], NULL)
                                                        : dot3(d, &qn[3 * i]);
            if (fabs(along) <= 1e-12) on++;
            else CHECK(along > 0.0); /* released: it left the surface outward */
        }
        CHECK(on >= ncaught / 2 && on > 0);
        if (c == 0) {
            memcpy(x_ref, m.x, (size_t)n3 * sizeof *x_ref);
            memcpy(v_ref, m.v, (size_t)n3 * sizeof *v_ref);
            continue;
        }
        /* The same step: the difference relative to the step's own displacement. */
        double dx = dist(m.x, x_ref, n3) / dist(x_ref, s0.x, n3);
        double dv = dist(m.v, v_ref, n3) / dist(v_ref, s0.v, n3);
        fprintf(stderr, "%s %s: on surface %d of %d caught, |dx| %.3g, |dv| %.3g (%.0f PCG "
                "iterations)\n", solver->name, names[c], on, ncaught, dx, dv, linear_iterations);
        CHECK(dx <= 1e-8);
        CHECK(dv <= 1e-8);
    }
    free(x_ref), free(v_ref), free(q), free(qn), free(caught);
    snap_free(&s0);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void test_ppcg_cholmod(void) {
    check_agreement(&weft_implicit_euler);
    check_agreement(&weft_newton_euler);
}

/* ------------------------------------------------------------------------------ */
/* Newton's iterates                                                               */
/* ------------------------------------------------------------------------------ */

/* Newton's iterates x_0 .. x_K of one newton_euler step from m's state: a run capped at
 * k iterations ends at the k-th iterate (the cap changes nothing else), so capping at
 * k = 0 .. K gives them all without a hook into the solver. For each, G(x_k) and the
 * residual ‖S ∇G(x_k)‖ (pinned DOFs excluded; no colliders) from weft_incremental_
 * potential with the step's target x̃ = x_n + h v_n + h² g (no damping: α = β = 0).
 * The cap is set in cfg's newton_euler settings, where it stays at K. Returns the number of
 * iterates (K + 1), or 0 on a failed step. */
static int newton_iterates(weft_model *m, weft_config *cfg, int K, double *G, double *r) {
    const int n3 = 3 * m->n;
    snap s0;
    snap_take(&s0, m);
    double *xt = malloc((size_t)n3 * sizeof *xt), *g = malloc((size_t)n3 * sizeof *g);
    weft_inertial_target(m, s0.x, s0.v, xt);
    int got = 0;
    weft_implicit_settings *set = im_settings(cfg, &weft_newton_euler);
    for (int k = 0; set && k <= K; k++) {
        snap_put(&s0, m);
        set->common.iterations = k;
        void *st = create(&weft_newton_euler, m, cfg);
        if (!st) break;
        bool ok = advance_ok(&weft_newton_euler, st, m, 1);
        weft_newton_euler.destroy(st);
        if (!ok) break;
        G[k] = weft_incremental_potential(m, m->x, xt, g);
        double s = 0.0;
        for (int j = 0; j < n3; j++) s += g[j] * g[j];
        r[k] = sqrt(s);
        got = k + 1;
    }
    snap_put(&s0, m);
    snap_free(&s0);
    free(xt), free(g);
    return got;
}

/* hanging_cloth at 8 × 8 with dt = 1/30 s, after 4 steps (folding: springs in
 * compression), Newton run to rounding. */
static bool newton_scene(weft_model *m, weft_config **cfg, const char *hessian) {
    const char *sets[] = {"scene.dt=0.03333333333333333", hessian, "solver.tolerance=1e-15",
                          NULL};
    if (!build("hanging_cloth", 8, sets, m, cfg)) return false;
    void *st = create(&weft_newton_euler, m, *cfg);
    bool ok = st && advance_ok(&weft_newton_euler, st, m, 4);
    if (st) weft_newton_euler.destroy(st);
    return ok;
}

/* G never increases within a step (Armijo backtracking), with every Hessian: checked on
 * the iterates of three consecutive steps. */
static void test_newton_monotone(void) {
    const char *modes[] = {"solver.hessian=projected", "solver.hessian=exact",
                           "solver.hessian=clamp"};
    for (int mo = 0; mo < 3; mo++) {
        weft_model m;
        weft_config *cfg = NULL;
        if (!newton_scene(&m, &cfg, modes[mo])) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            continue;
        }
        for (int step = 0; step < 3; step++) {
            enum { K = 12 };
            double G[K + 1], r[K + 1];
            int got = newton_iterates(&m, cfg, K, G, r);
            CHECK(got == K + 1);
            int decreases = 0;
            for (int k = 0; k + 1 < got; k++) {
                /* Equal once converged; a rise beyond rounding of G is a failure. */
                CHECK(G[k + 1] <= G[k] + 1e-12 * fabs(G[k]));
                if (G[k + 1] < G[k] - 1e-12 * fabs(G[k])) decreases++;
            }
            CHECK(decreases >= 2); /* Newton had work to do */
            fprintf(stderr, "%s step %d: G %.10g -> %.10g in %d decreasing iterations\n",
                    modes[mo], step, G[0], G[got - 1], decreases);
            weft_implicit_settings *set = im_settings(cfg, &weft_newton_euler);
            if (set) set->common.iterations = 50;
            void *st = set ? create(&weft_newton_euler, &m, cfg) : NULL;
            if (st) {
                advance_ok(&weft_newton_euler, st, &m, 1);
                weft_newton_euler.destroy(st);
            }
        }
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

/* Newton with the hinge-coordinate projection (projected, the default) and with the
 * Cartesian clamp (clamp) minimises the same G, so run to tolerance 1e-13 for four steps
 * of the folding 8 × 8 hanging cloth they reach the same positions (to 1e-8 of the
 * cloth's size): the projection changes the path, never the answer. */
static void test_projections_agree(void) {
    const char *modes[] = {"solver.hessian=projected", "solver.hessian=clamp"};
    weft_model m[2];
    weft_config *cfg[2] = {NULL, NULL};
    bool ok[2];
    for (int mo = 0; mo < 2; mo++) {
        const char *sets[] = {"scene.dt=0.03333333333333333", modes[mo],
                              "solver.tolerance=1e-13", "solver.iterations=200", NULL};
        ok[mo] = build("hanging_cloth", 8, sets, &m[mo], &cfg[mo]);
        void *st = ok[mo] ? create(&weft_newton_euler, &m[mo], cfg[mo]) : NULL;
        ok[mo] = st && advance_ok(&weft_newton_euler, st, &m[mo], 4);
        weft_profile stats;
        if (st) {
            weft_solver_stats(&weft_newton_euler, st, &stats);
            fprintf(stderr, "%s: %.0f Newton iterations over 4 steps\n", modes[mo],
                    weft_profile_value(&stats, "newton_iterations"));
            weft_newton_euler.destroy(st);
        }
    }
    if (ok[0] && ok[1]) {
        double d = 0.0, size = 0.0;
        for (size_t i = 0; i < 3 * (size_t)m[0].n; i++) {
            d = fmax(d, fabs(m[0].x[i] - m[1].x[i]));
            size = fmax(size, fabs(m[0].x[i] - m[0].x[0]));
        }
        fprintf(stderr, "projections_agree: max |x_projected - x_clamp| = %.3g m (size %.3g m)\n",
                d, size);
        CHECK(size > 0.0 && d <= 1e-8 * size);
    }
    weft_model_free(&m[0]), weft_model_free(&m[1]);
    weft_config_free(&cfg[0]), weft_config_free(&cfg[1]);
}

/* Near the solution Newton with the exact Hessian converges quadratically: once
 * r_k ≤ 1e-2 r_0, the ratio (r_{k+1}/r_0) / (r_k/r_0)² stays bounded (≤ 1e3) while
 * r_{k+1} is above rounding (1e-11 r_0). Linear convergence with rate ρ would make that
 * ratio ρ r_0 / r_k, growing without bound as r_k falls.
 *
 * Why the exact Hessian: the default PSD projection clamps the transverse stiffness of
 * compressed springs, k (1 − ℓ0/ℓ) < 0, to 0 (energies/mass_spring.c), so the projected
 * system is not G's Hessian wherever the cloth is compressed (a hanging, folding cloth
 * always is somewhere): Newton then converges only linearly near the solution. The lead
 * measured relative residuals 1.9e-3 → 8.9e-5 → 2.3e-7 with hessian = exact on this
 * scene; the projected run is printed below for comparison, not asserted. */
static void test_newton_quadratic(void) {
    const char *modes[] = {"solver.hessian=exact", "solver.hessian=projected"};
    for (int mo = 0; mo < 2; mo++) {
        weft_model m;
        weft_config *cfg = NULL;
        if (!newton_scene(&m, &cfg, modes[mo])) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            continue;
        }
        enum { K = 12 };
        double G[K + 1], r[K + 1];
        int got = newton_iterates(&m, cfg, K, G, r);
        CHECK(got == K + 1);
        fprintf(stderr, "%s: relative residuals", modes[mo]);
        for (int k = 0; k < got; k++) fprintf(stderr, " %.2g", r[k] / r[0]);
        fprintf(stderr, "\n");
        if (mo == 0) {
            int pairs = 0;
            double worst = 0.0;
            for (int k = 0; k + 1 < got; k++) {
                double a = r[k] / r[0], b = r[k + 1] / r[0];
                if (a > 1e-2 || b <= 1e-11) continue;
                worst = fmax(worst, b / (a * a));
                pairs++;
            }
            fprintf(stderr, "exact: %d pairs near the solution, largest r_{k+1}/r_k^2 %.3g\n",
                    pairs, worst);
            CHECK(pairs >= 2);
            CHECK(worst <= 1e3);
        }
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

/* ------------------------------------------------------------------------------ */
/* Stability, consistency, CHOLMOD analysis                                        */
/* ------------------------------------------------------------------------------ */

/* hanging_cloth at 6 × 6 with stretch stiffness 1e5 N/m and dt = 0.1 s for 2 s: far above
 * symplectic Euler's limit (ω_max ~ √(k/m) ~ 2 √(1e5 · 0.44 / 0.1 / 0.04) ≈ 7e3 rad/s per
 * spring, so h ω ≈ 700 ≫ 2), stable for the implicit schemes. Bounded: no coordinate
 * more than 3 m from its start (the cloth is 1 m wide and hangs from two corners), every
 * value and the energy finite. */
static void test_stability(void) {
    const char *sets[] = {"material.stretch_stiffness=1e5", "scene.dt=0.1", NULL};
    const weft_solver_type *all[] = {&weft_implicit_euler, &weft_newton_euler, &weft_bdf2,
                                     &weft_bdf2_newton, &weft_symplectic_euler};
    for (int s = 0; s < 5; s++) {
        weft_model m;
        weft_config *cfg = NULL;
        if (!build("hanging_cloth", 6, sets, &m, &cfg)) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            continue;
        }
        void *st = create(all[s], &m, cfg);
        weft_error err = {{0}};
        int rc = st ? advance(all[s], st, &m, 20, &err) : WEFT_ERR_INPUT;
        if (st) all[s]->destroy(st);
        double ex = max_excursion(&m), kin = 0.0;
        for (int i = 0; i < m.n; i++) kin += 0.5 * m.mass[i] * dot3(&m.v[3 * i], &m.v[3 * i]);
        double E = weft_model_energy(&m, m.x) + kin;
        bool bounded = rc == WEFT_OK && ex <= 3.0 && isfinite(E);
        fprintf(stderr, "%s: rc %d, excursion %.3g m, energy %.3g J%s%s\n", all[s]->name, rc, ex,
                E, rc ? ": " : "", rc ? err.msg : "");
        if (s < 4) {
            CHECK(bounded);
        } else {
            CHECK(!bounded); /* the explicit baseline blows up on the same scene */
        }
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

/* Both are backward Euler: the linearised step differs from the converged one by O(h²)
 * per step, so their difference at a fixed time T = 0.24 s is O(h): for h = T/6 .. T/48
 * the log-log slope of max|x_ne − x_ie| against h is at least 0.9. */
static void test_newton_vs_linearised(void) {
    const double T = 0.24;
    const int N[] = {6, 12, 24, 48};
    double hs[4], ds[4];
    for (int j = 0; j < 4; j++) {
        weft_model a, b;
        weft_config *ca = NULL, *cb = NULL;
        char dt[64];
        hs[j] = T / N[j];
        ds[j] = NAN;
        snprintf(dt, sizeof dt, "scene.dt=%.17g", hs[j]);
        const char *sets[] = {dt, "solver.tolerance=1e-12", "solver.iterations=100", NULL};
        if (build("hanging_cloth", 6, sets, &a, &ca) && build("hanging_cloth", 6, sets, &b, &cb)) {
            void *sa = create(&weft_newton_euler, &a, ca);
            void *sb = create(&weft_implicit_euler, &b, cb);
            if (sa && sb && advance_ok(&weft_newton_euler, sa, &a, N[j]) &&
                advance_ok(&weft_implicit_euler, sb, &b, N[j])) {
                ds[j] = 0.0;
                for (int i = 0; i < 3 * a.n; i++) ds[j] = fmax(ds[j], fabs(a.x[i] - b.x[i]));
            }
            if (sa) {
                weft_profile st;
                weft_solver_stats(&weft_newton_euler, sa, &st);
                fprintf(stderr, "h = %.4g: %.0f Newton iterations in %d steps, %.0f backtracks\n",
                        hs[j], weft_profile_value(&st, "newton_iterations"), N[j],
                        weft_profile_value(&st, "backtracks"));
                weft_newton_euler.destroy(sa);
            }
            if (sb) weft_implicit_euler.destroy(sb);
        }
        weft_model_free(&a);
        weft_model_free(&b);
        weft_config_free(&ca);
        weft_config_free(&cb);
    }
    double p = loglog_slope(hs, ds, 4);
    fprintf(stderr, "max |x_ne - x_ie| at T: %.3g %.3g %.3g %.3g, slope %.3f\n", ds[0], ds[1],
            ds[2], ds[3], p);
    CHECK(p >= 0.9);
    for (int j = 0; j + 1 < 4; j++) CHECK(ds[j + 1] < ds[j]);
}

/* A 20-step newton_euler run with CHOLMOD analyses the pattern once, however many
 * systems it factorises. */
static void test_analyses(void) {
    weft_model m;
    weft_config *cfg = NULL;
    const char *sets[] = {"solver.linear=cholmod", NULL};
    if (build("hanging_cloth", 8, sets, &m, &cfg)) {
        void *st = create(&weft_newton_euler, &m, cfg);
        if (st && advance_ok(&weft_newton_euler, st, &m, 20)) {
            weft_profile s;
            weft_solver_stats(&weft_newton_euler, st, &s);
            double analyses = weft_profile_value(&s, "setups");
            double solves = weft_profile_value(&s, "linear_solves");
            fprintf(stderr, "analyses %.0f, linear solves %.0f, Newton iterations %.0f\n",
                    analyses, solves, weft_profile_value(&s, "newton_iterations"));
            CHECK(analyses == 1);
            CHECK(solves > 20);
        }
        if (st) weft_newton_euler.destroy(st);
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* ------------------------------------------------------------------------------ */
/* Bad states                                                                      */
/* ------------------------------------------------------------------------------ */

/* Redirects stderr (fd 2) into path; returns the saved descriptor, or -1. */
static int stderr_to(const char *path) {
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(saved >= 0 && fd >= 0);
    if (saved < 0 || fd < 0) return -1;
    dup2(fd, 2);
    close(fd);
    return saved;
}

/* Restores stderr from stderr_to's descriptor. */
static void stderr_back(int saved) {
    if (saved < 0) return;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

/* The whole text of a small file (malloc'd, "" when unreadable). */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    char *buf = calloc(1 << 20, 1);
    if (f && buf) {
        size_t got = fread(buf, 1, (1 << 20) - 1, f);
        buf[got] = '\0';
    }
    if (f) fclose(f);
    return buf;
}

/* Lines of text holding needle. */
static int count_lines_with(const char *text, const char *needle) {
    int c = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) c++;
    return c;
}

/* hessian = exact on a cloth squeezed to half its size (every spring compressed to half
 * its rest length: transverse stiffness k (1 − ℓ0/ℓ) = −k ≈ −300 N/m per spring, against
 * m/h² ≈ 0.4 N/m at dt = 0.1 s) makes M/h² + K indefinite: the solve is retried with the
 * projected Hessian, counted, warned once on stderr, and the result stays finite. */
static void test_indefinite(void) {
    const weft_solver_type *both[] = {&weft_implicit_euler, &weft_newton_euler};
    tmp_dir dir;
    char path[128];
    if (!tmp_open(&dir)) return;
    tmp_file(&dir, "stderr.txt", path, sizeof path);
    for (int s = 0; s < 2; s++) {
        weft_model m;
        weft_config *cfg = NULL;
        const char *sets[] = {"solver.hessian=exact", "scene.dt=0.1", NULL};
        if (!build("hanging_cloth", 6, sets, &m, &cfg)) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            continue;
        }
        double c[3] = {0, 0, 0};
        for (int i = 0; i < m.n; i++)
            for (int k = 0; k < 3; k++) c[k] += m.x[3 * i + k] / m.n;
        for (int i = 0; i < 3 * m.n; i++) m.x[i] = m.x_start[i] = c[i % 3] + 0.5 * (m.x[i] - c[i % 3]);
        void *st = create(both[s], &m, cfg);
        weft_profile stats;
        int saved = stderr_to(path);
        bool ok = st && advance_ok(both[s], st, &m, 3);
        weft_solver_stats(both[s], st, &stats); /* empty without a state */
        stderr_back(saved);
        if (st) both[s]->destroy(st);
        char *text = slurp(path);
        double fallbacks = weft_profile_value(&stats, "fallbacks");
        fprintf(stderr, "%s: %.0f fallbacks; stderr: %s", both[s]->name, fallbacks, text);
        CHECK(ok);
        CHECK(fallbacks > 0);
        CHECK(max_excursion(&m) < 10.0); /* finite */
        CHECK(count_lines_with(text, "warning:") == 1);
        CHECK(strstr(text, both[s]->name) && strstr(text, "PSD-projected"));
        free(text);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    unlink(path);
    rmdir(dir.path);
}

/* Checks that no data row of a log's text (lines not starting with '#') holds a NaN or an
 * inf, in any spelling; returns the number of data rows. */
static int finite_rows(const char *text) {
    int rows = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t ln = end ? (size_t)(end - line) : strlen(line);
        if (line[0] != '#') {
            char row[512];
            snprintf(row, sizeof row, "%.*s", (int)(ln < 511 ? ln : 511), line);
            for (char *p = row; *p; p++) *p = (char)tolower((unsigned char)*p);
            CHECK(!strstr(row, "nan") && !strstr(row, "inf"));
            rows++;
        }
        line += ln + (end ? 1 : 0);
    }
    return rows;
}

/* A NaN velocity: weft_run stops with a one-line message naming the non-finite state,
 * and its logs ("<log>.partial", "<log>.linear.partial") end incomplete without a NaN. */
static void test_nonfinite(void) {
    tmp_dir dir;
    if (!tmp_open(&dir)) return;
    for (int s = 0; s < 4; s++) {
        const weft_solver_type *solver = implicit_solvers[s];
        weft_model m;
        weft_config *cfg = NULL;
        const char *sets[] = {"scene.steps=5", NULL};
        if (!build("hanging_cloth", 6, sets, &m, &cfg)) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            continue;
        }
        m.v[3 * 10 + 1] = NAN;
        char log[128], partial[160], lpartial[160];
        tmp_file(&dir, "run.log", log, sizeof log);
        snprintf(partial, sizeof partial, "%s.partial", log);
        snprintf(lpartial, sizeof lpartial, "%s.linear.partial", log);
        weft_run_options opt = weft_run_options_default();
        opt.log_path = log;
        opt.config = cfg; /* the scene's 5 steps and settings */
        weft_run_result res;
        weft_error err = {{0}};
        int rc = weft_run(solver, &m, &opt, &res, &err);
        fprintf(stderr, "%s: rc %d: %s\n", solver->name, rc, err.msg);
        CHECK(rc == WEFT_ERR_DIVERGED);
        CHECK(strstr(err.msg, solver->name) && strstr(err.msg, "non-finite velocity of vertex 10") &&
              !strchr(err.msg, '\n'));
        CHECK(access(log, F_OK) != 0); /* no complete-looking log */
        const char *logs[] = {partial, lpartial};
        for (int l = 0; l < 2; l++) {
            char *text = slurp(logs[l]);
            size_t len = strlen(text);
            CHECK(len > 0 && strstr(text, "# status=incomplete"));
            /* The last line is the status line. */
            const char *last = text;
            for (const char *p = text; *p; p++)
                if (*p == '\n' && p[1]) last = p + 1;
            CHECK(strncmp(last, "# status=incomplete", 19) == 0);
            finite_rows(text); /* no NaN or inf in the data rows */
            free(text);
            unlink(logs[l]);
        }
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    rmdir(dir.path);
}

/* Free fall (drape_sphere's first steps, the cloth far above the ball): x̃ solves G, so
 * the step starts at its solution (r0 = 0) and rounding leaves ~1e-15 N. Every solver's
 * log must still be complete and finite: residual_rel is 0 there, not inf. */
static void test_free_fall_log(void) {
    tmp_dir dir;
    if (!tmp_open(&dir)) return;
    for (int s = 0; s < 4; s++) {
        const weft_solver_type *solver = implicit_solvers[s];
        weft_model m;
        weft_config *cfg = NULL;
        const char *sets[] = {"scene.steps=6", NULL};
        if (!build("drape_sphere", 6, sets, &m, &cfg)) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            continue;
        }
        char log[128];
        tmp_file(&dir, "fall.log", log, sizeof log);
        weft_run_options opt = weft_run_options_default();
        opt.log_path = log;
        opt.config = cfg; /* the scene's 6 steps, settings and post-step stages */
        weft_run_result res;
        weft_error err = {{0}};
        CHECK(weft_run(solver, &m, &opt, &res, &err) == WEFT_OK);
        char *text = slurp(log);
        CHECK(text && strstr(text, "# status=complete"));
        int rows = text ? finite_rows(text) : 0;
        CHECK(rows >= 6); /* every step logs at least its iteration 0 */
        free(text);
        unlink(log);
        char other[160];
        snprintf(other, sizeof other, "%s.linear", log);
        unlink(other);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    rmdir(dir.path);
}

/* A solid whose every tetrahedron is inverted (the block mirrored through x = 0) under
 * the classic Neo-Hookean energy, infinite wherever J ≤ 0: every point the step could
 * start from has G = +inf. The step stops with a one-line message naming the solver and
 * the element instead of running on NaN. */
static void test_infeasible(void) {
    const char *sets[] = {"mesh.cells=2 1 1", "material.volume=neo_hookean",
                          "scene.dt=0.01", NULL};
    for (int s = 0; s < 4; s++) {
        const weft_solver_type *solver = implicit_solvers[s];
        weft_model m;
        weft_config *cfg = NULL;
        if (!build("tet_beam", 0, sets, &m, &cfg)) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            continue;
        }
        CHECK(isfinite(weft_model_energy(&m, m.x)));
        for (int i = 0; i < m.n; i++) m.x[3 * i] = m.x_start[3 * i] = -m.x[3 * i];
        CHECK(weft_model_energy(&m, m.x) == INFINITY);
        void *st = create(solver, &m, cfg);
        weft_error err = {{0}};
        int rc = st ? advance(solver, st, &m, 1, &err) : WEFT_ERR_INPUT;
        if (st) solver->destroy(st);
        fprintf(stderr, "%s: rc %d: %s\n", solver->name, rc, err.msg);
        CHECK(rc == WEFT_ERR_DIVERGED);
        CHECK(strstr(err.msg, solver->name) && strstr(err.msg, "step 0") &&
              !strchr(err.msg, '\n'));
        CHECK(strstr(err.msg, "neo_hookean") != NULL); /* the element's term is named */
        for (int i = 0; i < 3 * m.n; i++) CHECK(isfinite(m.x[i]) && isfinite(m.v[i]));
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

/* ------------------------------------------------------------------------------ */
/* Momentum                                                                        */
/* ------------------------------------------------------------------------------ */

/* No pins, no gravity, no colliders: the internal forces sum to zero (E is translation
 * invariant), and so does every Newton direction's M Δx (1ᵀK = 0) and hence the residual
 * Σ ∇G, which starts at Σ ∇E = 0 from x̃: Σ m v is conserved to rounding. */
static void test_momentum(void) {
    weft_model m;
    weft_config *cfg = NULL;
    const char *sets[] = {"scene.gravity=0 0 0", "solver.tolerance=1e-10", NULL};
    if (!build("hanging_cloth", 8, sets, &m, &cfg)) {
        weft_model_free(&m);
        weft_config_free(&cfg);
        return;
    }
    for (int i = 0; i < m.n; i++) {
        m.pin[i] = -1;
        m.w[i] = 1.0 / m.mass[i];
    }
    lcg g = {12345};
    for (int i = 0; i < 3 * m.n; i++) {
        m.x[i] += rnd_in(&g, -0.01, 0.01);
        m.v[i] = rnd_in(&g, -1.0, 1.0) + (i % 3 == 0 ? 0.2 : 0.0);
    }
    double p0[3] = {0, 0, 0}, scale = 0.0;
    for (int i = 0; i < m.n; i++) {
        for (int k = 0; k < 3; k++) p0[k] += m.mass[i] * m.v[3 * i + k];
        scale += m.mass[i] * norm3(&m.v[3 * i]);
    }
    snap s0;
    snap_take(&s0, &m);
    void *st = create(&weft_newton_euler, &m, cfg);
    if (st && advance_ok(&weft_newton_euler, st, &m, 10)) {
        double p[3] = {0, 0, 0}, change = 0.0;
        for (int i = 0; i < m.n; i++)
            for (int k = 0; k < 3; k++) {
                p[k] += m.mass[i] * m.v[3 * i + k];
                change += m.mass[i] * fabs(m.v[3 * i + k] - s0.v[3 * i + k]);
            }
        double dp = dist(p, p0, 3);
        fprintf(stderr, "|dp| %.3g of scale %.3g; internal forces changed m|v| by %.3g\n", dp,
                scale, change);
        CHECK(change > 1e-2 * scale); /* the forces did act */
        CHECK(dp <= 1e-10 * scale);
    }
    if (st) weft_newton_euler.destroy(st);
    snap_free(&s0);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"oscillator_be", test_oscillator_be},
        {"oscillator_bdf2", test_oscillator_bdf2},
        {"oscillator_damped", test_oscillator_damped},
        {"free_fall_log", test_free_fall_log},
        {"order", test_order},
        {"ppcg_cholmod", test_ppcg_cholmod},
        {"newton_monotone", test_newton_monotone},
        {"projections_agree", test_projections_agree},
        {"newton_quadratic", test_newton_quadratic},
        {"stability", test_stability},
        {"newton_vs_linearised", test_newton_vs_linearised},
        {"analyses", test_analyses},
        {"indefinite", test_indefinite},
        {"nonfinite", test_nonfinite},
        {"infeasible", test_infeasible},
        {"momentum", test_momentum},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
