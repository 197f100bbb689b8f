/* test_physics.c — physical facts that the position-based solvers (Müller et al. 2006,
 * Algorithm 1; Jacobi PBD after Macklin et al. 2014) must honour, checked on the
 * built-in scenes: collisions never leave a vertex inside a collider (§3.4, including
 * the continuous ray test), Coulomb friction stops a sliding cloth in v/(μ g),
 * restitution decides whether a dropped cloth bounces, the balloon constraint (§4.4)
 * keeps the enclosed volume and its overpressure factor inflates monotonically, and the
 * stiffness mapping (§3.3) makes the settled stretch independent of the iteration count.
 *
 * No expected value below comes from running this code: each tolerance is derived in
 * the comment next to it from the scene's physics or the algorithm's construction.
 */
#include "check.h"
#include "collider_helpers.h"
#include "scene_build.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */
/* ------------------------------------------------------------------------------ */

/* Loads a built-in scene, applies the NULL-terminated overrides, builds m and makes the
 * run's config (the plug-ins' settings; free with weft_config_free). */
static bool build(const char *scene, const char *const *sets, weft_model *m, weft_config **cfg) {
    return scene_build_cfg(scene, sets, weft_energy_registry, m, cfg);
}

/* The run length the config's [scene] steps asks for. */
static int steps_of(const weft_config *cfg) {
    return (int)cfg_value(cfg, "scene", "steps");
}

/* The collider named `name`, or NULL. */
static weft_collider *collider(weft_model *m, const char *name) {
    for (int c = 0; c < m->ncolliders; c++)
        if (strcmp(m->colliders[c].name, name) == 0) return &m->colliders[c];
    return NULL;
}

/* Smallest signed distance of any vertex of m from collider c, m. */
static double min_distance(const weft_model *m, const weft_collider *c) {
    double d = DBL_MAX;
    for (int i = 0; i < m->n; i++) d = fmin(d, weft_collider_distance(c, &m->x[3 * i], NULL));
    return d;
}

/* Runs one step; false (and a failed check) if the solver reports an error or the
 * state stops being finite. */
static bool step(const weft_solver_type *solver, void *state, weft_model *m) {
    weft_error err = {{0}};
    int rc = solver->step(state, m, NULL, &err);
    if (rc != WEFT_OK) fprintf(stderr, "%s step: %s\n", solver->name, err.msg);
    CHECK(rc == WEFT_OK);
    bool finite = true;
    for (int i = 0; i < 3 * m->n && finite; i++) finite = isfinite(m->x[i]) && isfinite(m->v[i]);
    CHECK(finite);
    return rc == WEFT_OK && finite;
}

static void *create(const weft_solver_type *solver, const weft_model *m, weft_config *cfg) {
    weft_error err = {{0}};
    void *st = solver->create(m, cfg, &err);
    if (!st) fprintf(stderr, "%s create: %s\n", solver->name, err.msg);
    CHECK(st != NULL);
    return st;
}

/* Mass-weighted mean of component k of the velocities, m/s. */
static double mean_velocity(const weft_model *m, int k) {
    double mv = 0.0, M = 0.0;
    for (int i = 0; i < m->n; i++) mv += m->mass[i] * m->v[3 * i + k], M += m->mass[i];
    return mv / M;
}

/* Largest speed of any vertex in the plane normal to +y (tangential to the ground). */
static double max_tangential_speed(const weft_model *m) {
    double s = 0.0;
    for (int i = 0; i < m->n; i++)
        s = fmax(s, hypot(m->v[3 * i], m->v[3 * i + 2]));
    return s;
}

static double max_speed(const weft_model *m) {
    double s = 0.0;
    for (int i = 0; i < m->n; i++)
        s = fmax(s, sqrt(m->v[3 * i] * m->v[3 * i] + m->v[3 * i + 1] * m->v[3 * i + 1] +
                         m->v[3 * i + 2] * m->v[3 * i + 2]));
    return s;
}

static double mean_y(const weft_model *m) {
    double y = 0.0;
    for (int i = 0; i < m->n; i++) y += m->x[3 * i + 1];
    return y / m->n;
}

static double max_y(const weft_model *m) {
    double y = -DBL_MAX;
    for (int i = 0; i < m->n; i++) y = fmax(y, m->x[3 * i + 1]);
    return y;
}

static const weft_solver_type *const solvers[] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi};

/* ------------------------------------------------------------------------------ */
/* Collisions (§3.4)                                                               */
/* ------------------------------------------------------------------------------ */

/* Closest distance of the segment a -> b from point c, m. */
static double segment_centre_distance(const double a[3], const double b[3], const double c[3]) {
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double f[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double t = dd > 0.0 ? (f[0] * d[0] + f[1] * d[1] + f[2] * d[2]) / dd : 0.0;
    t = fmin(1.0, fmax(0.0, t));
    double r[3] = {a[0] + t * d[0] - c[0], a[1] + t * d[1] - c[1], a[2] + t * d[2] - c[2]};
    return sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
}

/* Runs the config's steps and checks after every step that no vertex is inside the sphere
 * or below the ground. Returns the final state in m; *dmin gets the minima seen. */
static void run_no_penetration(const weft_solver_type *solver, weft_model *m,
                               weft_config *cfg, double dmin[2], double *core) {
    weft_collider *ball = collider(m, "ball"), *ground = collider(m, "ground");
    CHECK(ball && ground);
    if (!ball || !ground) return;
    void *st = create(solver, m, cfg);
    if (!st) return;
    double *xprev = malloc(3 * sizeof(double) * (size_t)m->n);
    CHECK(xprev != NULL);
    if (!xprev) {
        solver->destroy(st);
        return;
    }
    dmin[0] = dmin[1] = *core = DBL_MAX;
    int bad_step = -1;
    for (int s = 0, steps = steps_of(cfg); s < steps; s++) {
        memcpy(xprev, m->x, 3 * sizeof(double) * (size_t)m->n);
        if (!step(solver, st, m)) break;
        for (int i = 0; i < m->n; i++)
            *core = fmin(*core, segment_centre_distance(&xprev[3 * i], &m->x[3 * i],
                                                        collider_at(ball, "center")) /
                                                    collider_at(ball, "radius")[0]);
        double db = min_distance(m, ball), dg = min_distance(m, ground);
        dmin[0] = fmin(dmin[0], db), dmin[1] = fmin(dmin[1], dg);
        if ((db < 0.0 || dg < 0.0) && bad_step < 0) {
            bad_step = s;
            fprintf(stderr, "%s: step %d: vertex inside a collider (sphere %.3g m, ground %.3g m)\n",
                    solver->name, s, db, dg);
        }
    }
    solver->destroy(st);
    free(xprev);
    /* The contact margin (2 mm) keeps vertices off the surfaces; the fact is that none
     * ends a step inside: a signed distance >= 0, with no tolerance needed because the
     * margin absorbs round-off of the projection. */
    CHECK(dmin[0] >= 0.0);
    CHECK(dmin[1] >= 0.0);
}

/* drape_sphere, whole run, both solvers: the cloth lands on the sphere and no vertex
 * ever ends a step inside the sphere or below the ground. */
static void no_penetration_sphere(void) {
    for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; k++) {
        weft_model m;
        weft_config *cfg;
        if (!build("drape_sphere", NULL, &m, &cfg)) return;
        CHECK(steps_of(cfg) == 180);
        double dmin[2] = {0, 0}, core = 0;
        run_no_penetration(solvers[k], &m, cfg, dmin, &core);
        weft_collider *ball = collider(&m, "ball");
        double final = ball ? min_distance(&m, ball) : DBL_MAX;
        printf("%s: min distance over the run: sphere %.4g m, ground %.4g m; at the end "
               "sphere %.4g m\n", solvers[k]->name, dmin[0], dmin[1], final);
        /* Not vacuous: after 3 s the cloth (released 0.2 m above the sphere, reaching it
         * after about 0.2 s of free fall) lies on the sphere, its closest vertex within
         * 1 cm of the surface (the margin is 2 mm). */
        CHECK(final <= 0.01);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

/* A fast impact: the cloth thrown down at 20 m/s (a third of a metre per step, more
 * than the sphere's cap above the cloth's first contact), and a large step dt = 0.05 s
 * with the same throw (1 m per step: rays that cross the whole sphere, 0.6 m tall, and
 * end below the ground). Only the continuous ray test of §3.4 can catch these.
 *
 * The sphere is lifted 5 mm off the ground. In the built-in scene it touches the
 * ground, so within r < sqrt(2 R · 2 margin) ≈ 4.9 cm of the touching point no
 * position keeps the 2 mm margin from both colliders; the violent impact drags the
 * cloth centre into that ring, where the ground constraint (projected last) wins and
 * the vertex sits up to one margin inside the sphere. A 5 mm gap (more than two
 * margins) makes "outside both" satisfiable everywhere, so the fact is well posed. */
static void no_penetration_fast(void) {
    static const char *const big_dt[] = {"scene.dt=0.05", "scene.steps=40",
                                         "collider.ball.center=0,0.305,0", NULL};
    static const char *const normal_dt[] = {"scene.steps=90", "collider.ball.center=0,0.305,0",
                                            NULL};
    const char *const *variants[2] = {normal_dt, big_dt};
    for (int var = 0; var < 2; var++)
        for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; k++) {
            weft_model m;
            weft_config *cfg;
            if (!build("drape_sphere", variants[var], &m, &cfg)) return;
            for (int i = 0; i < m.n; i++) m.v[3 * i + 1] = -20.0;
            double dmin[2] = {0, 0}, core = 0;
            run_no_penetration(solvers[k], &m, cfg, dmin, &core);
            printf("%s, dt %.4g s, v0 = -20 m/s: min distance sphere %.4g m, ground %.4g m; "
                   "closest approach of a step's path to the centre %.3g R\n",
                   solvers[k]->name, m.dt, dmin[0], dmin[1], core);
            /* No tunnelling: with the sphere lifted, a vertex that crossed it would end
             * in the gap below, outside both colliders, so distances alone cannot see
             * it. Its straight path during the step would pass near the centre, while
             * a vertex that stays outside and slides along the surface sweeps a chord
             * that comes within R/2 of the centre only if it travels sqrt(3) R = 0.52 m
             * along the surface in one step (31 m/s at h = 1/60 s, 10 m/s at 0.05 s
             * with the throw stopped by the sphere). So every path stays >= R/2 away. */
            CHECK(core >= 0.5);
            /* Not vacuous: the thrown cloth did hit the sphere (some vertex ends within
             * 1 cm of it, as in no_penetration_sphere). */
            weft_collider *ball = collider(&m, "ball");
            CHECK(ball && min_distance(&m, ball) <= 0.01);
            weft_model_free(&m);
            weft_config_free(&cfg);
        }
}

/* ------------------------------------------------------------------------------ */
/* Friction and restitution (Algorithm 1 line 16)                                  */
/* ------------------------------------------------------------------------------ */

/* A 0.2 m x 0.2 m, 8 x 8 cloth lying flat on the ground at the contact margin, the
 * sphere moved 100 m away, no damping. friction and restitution are "collider.ground.*"
 * overrides; extra may add more. */
static bool small_cloth_on_ground(weft_model *m, weft_config **cfg, const char *friction,
                                  const char *restitution, const char *origin) {
    const char *sets[] = {"mesh.nx=8", "mesh.ny=8", "mesh.width=0.2", "mesh.height=0.2",
                          origin, "collider.ball.center=100,0,0", "pbd.k_damping=0",
                          friction, restitution, NULL};
    if (!build("drape_sphere", sets, m, cfg)) return false;
    weft_collider *ball = collider(m, "ball");
    CHECK(ball && min_distance(m, ball) > 50.0);
    return true;
}

/* Coulomb friction: a cloth sliding at v0 = 1 m/s on the ground with μ = 0.5 decelerates
 * at μ g and stops after v0/(μ g) = 0.204 s; with μ = 0 and no damping nothing removes
 * tangential momentum and it keeps sliding. */
static void friction(void) {
    const double v0 = 1.0, g = 9.81;
    for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; k++) {
        /* μ = 0.5 */
        weft_model m;
        weft_config *cfg;
        if (!small_cloth_on_ground(&m, &cfg, "collider.ground.friction=0.5",
                                   "collider.ground.restitution=0", "mesh.origin=-0.1,0.002,0.1"))
            return;
        double mu = collider(&m, "ground")->friction, h = m.dt;
        CHECK(m.contact_margin == 0.002 && fabs(min_distance(&m, collider(&m, "ground")) - 0.002) < 1e-12);
        for (int i = 0; i < m.n; i++) m.v[3 * i] = v0;
        double t_stop = v0 / (mu * g);
        void *st = create(solvers[k], &m, cfg);
        if (!st) return;
        bool monotonic = true;
        double prev = v0, speed_before = 0.0, t_stopped = -1.0;
        int nsteps = (int)ceil((t_stop + 0.2) / h);
        for (int s = 1; s <= nsteps; s++) {
            if (!step(solvers[k], st, &m)) break;
            double vx = mean_velocity(&m, 0), vmax = max_tangential_speed(&m);
            /* Friction only removes speed: each step may not increase it (1e-12 m/s of
             * round-off allowed). */
            if (vx > prev + 1e-12) monotonic = false;
            prev = vx;
            if (s * h <= t_stop - 2 * h) speed_before = vx;
            if (t_stopped < 0 && vmax < 1e-6) t_stopped = s * h;
        }
        solvers[k]->destroy(st);
        printf("%s, mu = %.2g: speed at t_stop - 2h = %.4g m/s, stopped at %.4g s "
               "(v0/(mu g) = %.4g s)\n", solvers[k]->name, mu, speed_before, t_stopped, t_stop);
        CHECK(monotonic);
        /* The discrete friction removes μ g h of speed per step (μ times the normal
         * velocity change g h), so the stop comes within one step of v0/(μ g): allow two.
         * And not early: two steps before t_stop a speed of about 2 μ g h = 0.16 m/s is
         * left; require at least a quarter of it. */
        CHECK(t_stopped > 0.0 && t_stopped <= t_stop + 2 * h);
        CHECK(speed_before >= 0.5 * mu * g * h);
        /* It stays on the ground: friction must not lift or sink it. */
        CHECK(min_distance(&m, collider(&m, "ground")) >= 0.0);
        CHECK(max_y(&m) <= 0.002 + 1e-6);
        weft_model_free(&m);
        weft_config_free(&cfg);

        /* μ = 0 */
        if (!small_cloth_on_ground(&m, &cfg, "collider.ground.friction=0",
                                   "collider.ground.restitution=0", "mesh.origin=-0.1,0.002,0.1"))
            return;
        for (int i = 0; i < m.n; i++) m.v[3 * i] = v0;
        st = create(solvers[k], &m, cfg);
        if (!st) return;
        double vmin = v0;
        for (int s = 1; s * m.dt <= 0.3 + 1e-9; s++) {
            if (!step(solvers[k], st, &m)) break;
            vmin = fmin(vmin, mean_velocity(&m, 0));
        }
        solvers[k]->destroy(st);
        printf("%s, mu = 0: smallest mean speed over 0.3 s = %.6g m/s\n", solvers[k]->name, vmin);
        /* Without friction and damping (k_damping = 0) the flat cloth's tangential
         * momentum has no sink: uniform sliding is a rigid motion that no internal
         * constraint opposes. 0.9 m/s leaves room only for such numerical effects; a
         * friction of even μ = 0.02 would already remove μ g t = 0.06 m/s. */
        CHECK(vmin > 0.9);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
}

/* Drops the small cloth from 0.5 m with restitution e; returns the largest vertex
 * height after the first contact (max_after) and the mean-height peak after it. */
static void drop(const weft_solver_type *solver, const char *restitution, double *max_after,
                 double *mean_peak, double *impact_t) {
    weft_model m;
    weft_config *cfg;
    *max_after = *mean_peak = *impact_t = -1.0;
    if (!small_cloth_on_ground(&m, &cfg, "collider.ground.friction=0.5", restitution,
                               "mesh.origin=-0.1,0.5,0.1"))
        return;
    weft_collider *ground = collider(&m, "ground");
    void *st = create(solver, &m, cfg);
    if (!st) {
        weft_model_free(&m);
        weft_config_free(&cfg);
        return;
    }
    bool hit = false;
    double dmin = DBL_MAX;
    for (int s = 1; s * m.dt <= 1.5 + 1e-9; s++) {
        if (!step(solver, st, &m)) break;
        double d = min_distance(&m, ground);
        dmin = fmin(dmin, d);
        if (!hit && d <= m.contact_margin + 1e-9) {
            hit = true; /* this step ended in contact: later heights are "after impact" */
            *impact_t = m.t;
            continue;
        }
        if (hit) {
            *max_after = fmax(*max_after, max_y(&m));
            *mean_peak = fmax(*mean_peak, mean_y(&m));
        }
    }
    solver->destroy(st);
    CHECK(hit);
    CHECK(dmin >= 0.0);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* Restitution: a flat cloth dropped from 0.5 m hits the ground at sqrt(2 g H) = 3.1 m/s.
 * With e = 0 the normal velocity after impact is zero: it stays where it landed. With
 * e = 1 it leaves at the impact speed and climbs back towards 0.5 m. */
static void restitution(void) {
    const double H = 0.5, margin = 0.002;
    for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; k++) {
        double max0, peak0, t0, max1, peak1, t1;
        drop(solvers[k], "collider.ground.restitution=0", &max0, &peak0, &t0);
        drop(solvers[k], "collider.ground.restitution=1", &max1, &peak1, &t1);
        printf("%s: impact at %.4g s; e = 0: highest vertex after impact %.4g m; "
               "e = 1: mean-height peak after impact %.4g m\n",
               solvers[k]->name, t0, max0, peak1);
        (void)max1, (void)t1, (void)peak0;
        /* Free fall from 0.5 m takes sqrt(2 H / g) = 0.32 s; the first contact must come
         * within a step or two of it (contact margin and step discretisation). */
        CHECK(fabs(t0 - sqrt(2 * H / 9.81)) <= 2.5 / 60.0);
        /* e = 0: no bounce. A rebound at even 0.3 m/s would rise v²/(2g) = 4.6 mm; the
         * highest vertex stays within 3 mm of the resting height (the margin). */
        CHECK(max0 >= 0.0 && max0 <= margin + 0.003);
        /* e = 1: an elastic rebound climbs back towards H; more than 0.2 m means the
         * normal velocity was reversed, not absorbed. It cannot gain energy beyond the
         * one step of gravity that the predicted velocity carries into the restitution
         * (v h g with v = 3.1 m/s: a few cm), so it must not exceed H + 0.1 m. */
        CHECK(peak1 > 0.2);
        CHECK(peak1 <= H + 0.1);
    }
}

/* ------------------------------------------------------------------------------ */
/* Balloon (§4.4)                                                                  */
/* ------------------------------------------------------------------------------ */

/* The balloon scene (k_pressure = 1, Gauss-Seidel) dropped on the ground: the
 * overpressure constraint keeps the enclosed volume at V0 within 1% after every step,
 * through the fall, the impact and the rest. */
static void balloon_volume(void) {
    weft_model m;
    weft_config *cfg;
    if (!build("balloon", NULL, &m, &cfg)) return;
    CHECK(cfg_value(cfg, "pbd", "k_pressure") == 1.0 && m.rest_volume > 0.0 && m.mesh.closed);
    weft_collider *ground = collider(&m, "ground");
    void *st = create(&weft_pbd_gauss_seidel, &m, cfg);
    if (!st) return;
    double worst = 0.0, dmin = DBL_MAX;
    int worst_step = -1;
    for (int s = 0, steps = steps_of(cfg); s < steps; s++) {
        if (!step(&weft_pbd_gauss_seidel, st, &m)) break;
        double e = fabs(weft_mesh_volume(&m.mesh, m.x) - m.rest_volume) / m.rest_volume;
        if (e > worst) worst = e, worst_step = s;
        dmin = fmin(dmin, min_distance(&m, ground));
    }
    weft_pbd_gauss_seidel.destroy(st);
    printf("balloon: V0 = %.6g m^3, worst |V - V0|/V0 = %.3g at step %d, min ground "
           "distance %.4g m\n", m.rest_volume, worst, worst_step, dmin);
    CHECK(worst <= 0.01);
    /* Not vacuous: the balloon reached the ground (released 0.35 m above it). */
    CHECK(dmin <= 0.01 && dmin >= 0.0);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* With soft stretch constraints (k_stretch = 0.3) and no gravity, a larger overpressure
 * factor inflates the balloon further: the settled volume strictly increases with
 * k_pressure. Both solvers; the Jacobi solver averages the balloon correction with the
 * stretch corrections, so there the settled volume is a balance of the two.
 * Settled means the volume no longer changes: over the last 100 of 400 steps (6.7 s,
 * damping 0.1) it varies by less than 0.1% of V0, far less than the 50% steps between
 * the k_pressure values. (The Gauss-Seidel balloon keeps some tangential vertex motion
 * at high k_pressure, which leaves the volume unchanged; the max speed is printed.) */
static void balloon_pressure_monotonic(void) {
    static const char *const kp[] = {"pbd.k_pressure=1.0", "pbd.k_pressure=1.5",
                                     "pbd.k_pressure=2.0", "pbd.k_pressure=3.0"};
    for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; k++) {
        double vol[4];
        for (int j = 0; j < 4; j++) {
            /* Level-2 icosphere (162 vertices) keeps the ASan run short; the claim does
             * not depend on resolution. */
            const char *sets[] = {"pbd.k_stretch=0.3", "scene.gravity=0,0,0",
                                  "mesh.subdivisions=2", "pbd.k_damping=0.1", kp[j], NULL};
            weft_model m;
            weft_config *cfg;
            vol[j] = -1.0;
            if (!build("balloon", sets, &m, &cfg)) return;
            void *st = create(solvers[k], &m, cfg);
            if (!st) return;
            double vlo = DBL_MAX, vhi = -DBL_MAX, vmax = 0.0;
            for (int s = 0; s < 400; s++) {
                if (!step(solvers[k], st, &m)) break;
                if (s >= 300) {
                    double v = weft_mesh_volume(&m.mesh, m.x) / m.rest_volume;
                    vlo = fmin(vlo, v), vhi = fmax(vhi, v);
                    vmax = fmax(vmax, max_speed(&m));
                }
            }
            solvers[k]->destroy(st);
            vol[j] = weft_mesh_volume(&m.mesh, m.x) / m.rest_volume;
            printf("%s, %s: V/V0 = %.5g (range over the last 100 steps %.3g, max speed %.2g m/s)\n",
                   solvers[k]->name, kp[j], vol[j], vhi - vlo, vmax);
            CHECK(vhi - vlo < 1e-3);
            weft_model_free(&m);
            weft_config_free(&cfg);
        }
        for (int j = 1; j < 4; j++) CHECK(vol[j] > vol[j - 1]);
        /* Overpressure inflates: with k_pressure >= 1 the balloon does not shrink (1% for
         * the linearised single projection per sweep). */
        CHECK(vol[0] >= 0.99);
    }
}

/* ------------------------------------------------------------------------------ */
/* Stiffness mapping (§3.3)                                                        */
/* ------------------------------------------------------------------------------ */

/* Mean relative elongation (l/l0 - 1) of the stretch constraints at positions x. */
static double mean_elongation(const weft_model *m) {
    const weft_term *t = &m->terms[m->stretch_term];
    double sum = 0.0;
    for (int e = 0; e < t->n; e++) {
        const double *a = &m->x[3 * t->elem[e].v[0]], *b = &m->x[3 * t->elem[e].v[1]];
        double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
        sum += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / t->elem[e].rest[0] - 1.0;
    }
    return sum / t->n;
}

/* Hangs the cloth until it settles; returns the mean elongation (or -1). */
static double settled_elongation(int iterations, bool mapping, int *steps_taken) {
    char it[64], map[64];
    snprintf(it, sizeof it, "solver.iterations=%d", iterations);
    snprintf(map, sizeof map, "pbd.stiffness_mapping=%s", mapping ? "true" : "false");
    const char *sets[] = {"mesh.nx=8", "mesh.ny=8", "mesh.width=0.5", "mesh.height=0.5",
                          "mesh.plane=xy", "mesh.origin=-0.25,0.5,0",
                          "pins.edges=top", "pbd.k_stretch=0.5", "pbd.k_damping=0.1", it, map,
                          NULL};
    weft_model m;
    weft_config *cfg;
    if (!build("hanging_cloth", sets, &m, &cfg)) return -1.0;
    void *st = create(&weft_pbd_gauss_seidel, &m, cfg);
    if (!st) return -1.0;
    int s = 0;
    double vmax = 0.0;
    for (; s < 3000; s++) {
        if (!step(&weft_pbd_gauss_seidel, st, &m)) break;
        vmax = max_speed(&m);
        if (s > 10 && vmax < 1e-4) break;
    }
    weft_pbd_gauss_seidel.destroy(st);
    CHECK(vmax < 1e-4);
    double e = mean_elongation(&m);
    *steps_taken = s + 1;
    weft_model_free(&m);
    weft_config_free(&cfg);
    return e;
}

/* §3.3: with k' = 1 - (1 - k)^(1/n_s) the error a constraint keeps after n_s
 * iterations is 1 - k whatever n_s, so the settled stretch of a hanging cloth with
 * k_stretch = 0.5 must hardly depend on n_s; with k' = k it is (1 - k)^n_s and the
 * stretch shrinks roughly by 2^-n_s. An 8 x 8, 0.5 m cloth pinned along its whole top
 * edge: on a large cloth pinned at two corners Gauss-Seidel carries a correction
 * about one row per sweep, so the settled sag would depend on n_s through the slow
 * global mode, not the mapping; with 8 rows hanging from a pinned edge the
 * per-constraint error (about h² g per step, 5% of an edge) dominates. Settled: max
 * speed < 0.1 mm/s (damping 0.1). Asserted: spread (max - min)/max over n_s in
 * {5, 10, 20} below 5% with the mapping, more than 3 times that without. */
static void stiffness_mapping(void) {
    static const int ns[3] = {5, 10, 20};
    double with[3], without[3];
    for (int i = 0; i < 3; i++) {
        int s1 = 0, s2 = 0;
        with[i] = settled_elongation(ns[i], true, &s1);
        without[i] = settled_elongation(ns[i], false, &s2);
        printf("n_s = %2d: mean elongation with mapping %.5g (%d steps), without %.5g (%d steps)\n",
               ns[i], with[i], s1, without[i], s2);
    }
    double lo = fmin(fmin(with[0], with[1]), with[2]), hi = fmax(fmax(with[0], with[1]), with[2]);
    double lo2 = fmin(fmin(without[0], without[1]), without[2]),
           hi2 = fmax(fmax(without[0], without[1]), without[2]);
    double spread_with = (hi - lo) / hi, spread_without = (hi2 - lo2) / hi2;
    printf("relative spread over n_s: with mapping %.3g, without %.3g\n", spread_with,
           spread_without);
    CHECK(lo > 0.0 && lo2 > 0.0);
    CHECK(spread_with < 0.05);
    CHECK(spread_without > 3 * spread_with);
}

/* The balloon's pressure ([pbd] k_pressure) under xpbd, vbd and newton_euler, which run
 * it: a coarse balloon (162 vertices) without gravity and k_pressure = 1.2 inflates to
 * 1.2 V0 within 1 % in 10 steps (a solver that dropped the pressure stays at V0: 17 %
 * off), and the model diff calls them "same" while implicit_euler, which reads no
 * k_pressure, has it dropped with the fix pbd.k_pressure=0. */
static void balloon_pressure_solvers(void) {
    static const char *const sets[] = {"mesh.subdivisions=2", "scene.gravity=0 0 0",
                                       "pbd.k_pressure=1.2", NULL};
    static const char *const names[] = {"xpbd", "vbd", "newton_euler"};
    for (int k = 0; k < 3; k++) {
        const weft_solver_type *s = weft_solver_find(names[k]);
        weft_model m;
        weft_config *cfg;
        CHECK(s != NULL);
        if (!s || !build("balloon", sets, &m, &cfg)) return;
        weft_model_diff d;
        weft_model_diff_compute(s, &m, cfg, &d);
        CHECK(d.n == 0);
        void *st = create(s, &m, cfg);
        if (!st) return;
        for (int i = 0; i < 10; i++)
            if (!step(s, st, &m)) break;
        s->destroy(st);
        double ratio = weft_mesh_volume(&m.mesh, m.x) / m.rest_volume;
        printf("%s: V/V0 = %.6f after 10 steps at k_pressure = 1.2\n", s->name, ratio);
        CHECK(fabs(ratio - 1.2) <= 0.012);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    weft_model m;
    weft_config *cfg;
    if (!build("balloon", sets, &m, &cfg)) return;
    weft_model_diff d;
    weft_model_diff_compute(&weft_implicit_euler, &m, cfg, &d);
    CHECK(d.n == 1 && !strcmp(d.what[0], "pbd.k_pressure dropped") &&
          !strcmp(d.fix[0], "pbd.k_pressure=0"));
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* The mean turn (rad) about the vertical axis through the origin, from x0 to m's positions,
 * of the vertices farther than 2 cm from the axis; +: counter-clockwise seen from above. */
static double mean_turn(const weft_model *m, const double *x0) {
    double sum = 0.0;
    int n = 0;
    for (int i = 0; i < m->n; i++) {
        const double *a = &x0[3 * i], *b = &m->x[3 * i];
        if (hypot(a[0], a[2]) < 0.02) continue;
        double d = atan2(-b[2], b[0]) - atan2(-a[2], a[0]);
        sum += remainder(d, 6.283185307179586), n++; /* in (−π, π] */
    }
    return n ? sum / n : 0.0;
}

/* A spinning sphere drags what rests on it: a 10 cm cloth laid on the top of
 * spinning_sphere's ball (ω = 3 rad/s about +y, μ = 0.8) turns with it, by a good part of
 * ω t over 0.5 s (1.5 rad), counter-clockwise seen from above; on the same ball not
 * spinning it does not turn. Every solver whose contacts see the collider's surface
 * velocity (weft_contact_friction, weft_contact_velocity_update). */
static void spinning_drag(void) {
    static const char *const names[] = {"pbd_gauss_seidel", "pbd_jacobi", "xpbd", "vbd",
                                        "newton_euler", "projective_dynamics"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        const weft_solver_type *solver = NULL;
        for (const weft_solver_type *const *t = weft_solver_registry; *t; t++)
            if (!strcmp((*t)->name, names[k])) solver = *t;
        CHECK(solver != NULL);
        if (!solver) continue;
        double turn[2];
        for (int spin = 0; spin < 2; spin++) {
            const char *sets[] = {"mesh.nx=5", "mesh.ny=5", "mesh.width=0.1", "mesh.height=0.1",
                                  "mesh.origin=-0.05,0.603,0.05", "collision.pipeline=none",
                                  spin ? "collider.ball.angular_velocity=0,3,0"
                                       : "collider.ball.angular_velocity=0,0,0",
                                  NULL};
            weft_model m;
            weft_config *cfg;
            if (!build("spinning_sphere", sets, &m, &cfg)) return;
            double *x0 = malloc(3 * (size_t)m.n * sizeof *x0);
            memcpy(x0, m.x, 3 * (size_t)m.n * sizeof *x0);
            void *st = create(solver, &m, cfg);
            turn[spin] = NAN;
            if (st) {
                int s = 0;
                while (s * m.dt < 0.5 - 1e-9 && step(solver, st, &m)) s++;
                solver->destroy(st);
                turn[spin] = mean_turn(&m, x0);
                CHECK(min_distance(&m, collider(&m, "ball")) > -1e-3);
            }
            free(x0);
            weft_model_free(&m);
            weft_config_free(&cfg);
        }
        printf("%s: turn over 0.5 s %.4f rad spinning, %.2g rad still (omega t = 1.5 rad)\n",
               names[k], turn[1], turn[0]);
        CHECK(turn[1] > 0.5 && turn[1] < 1.6);
        CHECK(fabs(turn[0]) < 0.02);
    }
}

static const check_case cases[] = {
    {"no_penetration_sphere", no_penetration_sphere},
    {"no_penetration_fast", no_penetration_fast},
    {"friction", friction},
    {"spinning_drag", spinning_drag},
    {"restitution", restitution},
    {"balloon_volume", balloon_volume},
    {"balloon_pressure_monotonic", balloon_pressure_monotonic},
    {"balloon_pressure_solvers", balloon_pressure_solvers},
    {"stiffness_mapping", stiffness_mapping},
    {NULL, NULL},
};

int main(int argc, char **argv) { return check_main(argc, argv, cases); }
