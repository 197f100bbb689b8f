/* test_scenes.c — scenes with moving obstacles: box colliders (signed distance and
 * normal against hand-computed values), colliders translating with constant velocity
 * (distance at time t; a static collider unchanged bit for bit; friction that carries a
 * cloth on a moving box, under both PBD solvers and the explicit one; a fast sphere
 * caught by the ray test in its own frame).
 *
 * Expected values are derived next to each check from geometry and mechanics, not taken
 * from running this code. Scene files go to a fresh mkdtemp directory.
 */
#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */
/* ------------------------------------------------------------------------------ */

/* A temporary directory for one case's files. */
typedef struct tmp_dir {
    char path[64];
} tmp_dir;

static bool tmp_open(tmp_dir *d) {
    strcpy(d->path, "/tmp/weft_test_scenes_XXXXXX");
    bool ok = mkdtemp(d->path) != NULL;
    CHECK(ok);
    return ok;
}

/* Writes text to d/name and returns the path in buf. */
static const char *write_file(const tmp_dir *d, const char *name, const char *text, char *buf,
                              size_t n) {
    snprintf(buf, n, "%s/%s", d->path, name);
    FILE *f = fopen(buf, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        CHECK(fclose(f) == 0);
    }
    return buf;
}

/* Loads scene (file or built-in), applies the NULL-terminated overrides and builds m;
 * returns the build's status with its message in err. */
static int try_build(const char *scene, const char *const *sets, weft_model *m,
                     weft_error *err) {
    weft_scene *s = weft_scene_load(scene, err);
    if (!s) return WEFT_ERR_INPUT;
    int rc = WEFT_OK;
    for (int i = 0; sets && sets[i] && rc == WEFT_OK; i++)
        rc = weft_scene_set(s, sets[i], "--set", err);
    if (rc == WEFT_OK) rc = weft_scene_build(s, weft_energy_registry, m, err);
    weft_scene_free(&s);
    return rc;
}

/* try_build that must succeed: a failed check (with the message) otherwise. */
static bool build(const char *scene, const char *const *sets, weft_model *m) {
    weft_error err = {{0}};
    int rc = try_build(scene, sets, m, &err);
    if (rc != WEFT_OK) fprintf(stderr, "building %s: %s\n", scene, err.msg);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* Builds scene with the overrides, which must fail with a one-line message holding want1
 * and want2 (NULL: not checked). */
static void expect_error(const char *scene, const char *const *sets, const char *want1,
                         const char *want2) {
    weft_model m = {0};
    weft_error err = {{0}};
    int rc = try_build(scene, sets, &m, &err);
    bool ok = rc == WEFT_ERR_INPUT && strstr(err.msg, want1) &&
              (!want2 || strstr(err.msg, want2)) && !strchr(err.msg, '\n');
    if (!ok) fprintf(stderr, "expected '%s' / '%s', got rc %d: '%s'\n", want1,
                     want2 ? want2 : "", rc, err.msg);
    CHECK(ok);
    weft_model_free(&m);
}

/* Writes text as d/name and builds it into m; false (and a failed check) on failure. */
static bool build_text(const tmp_dir *d, const char *name, const char *text, weft_model *m) {
    char path[128];
    write_file(d, name, text, path, sizeof path);
    bool ok = build(path, NULL, m);
    remove(path);
    return ok;
}

/* Mass-weighted mean of component k of positions (x) or velocities (v) over the free
 * vertices. */
static double mean_of(const weft_model *m, const double *a, int k) {
    double s = 0.0, M = 0.0;
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] < 0) s += m->mass[i] * a[3 * i + k], M += m->mass[i];
    return s / M;
}

static void *create(const weft_solver_type *solver, const weft_model *m) {
    weft_error err = {{0}};
    void *st = solver->create(m, &err);
    if (!st) fprintf(stderr, "%s create: %s\n", solver->name, err.msg);
    CHECK(st != NULL);
    return st;
}

/* One step; false (and a failed check) on an error or a non-finite state. */
static bool step(const weft_solver_type *solver, void *st, weft_model *m) {
    weft_error err = {{0}};
    int rc = solver->step(st, m, NULL, &err);
    if (rc != WEFT_OK) fprintf(stderr, "%s step: %s\n", solver->name, err.msg);
    CHECK(rc == WEFT_OK);
    bool finite = true;
    for (int i = 0; i < 3 * m->n && finite; i++) finite = isfinite(m->x[i]) && isfinite(m->v[i]);
    CHECK(finite);
    return rc == WEFT_OK && finite;
}

/* ------------------------------------------------------------------------------ */
/* Colliders: boxes and motion                                                     */
/* ------------------------------------------------------------------------------ */

/* Checks the signed distance and normal of p from c against the hand-computed d and n. */
static void check_distance(const weft_collider *c, const double p[3], double d,
                           const double n[3]) {
    double got[3] = {NAN, NAN, NAN};
    double dist = weft_collider_distance(c, p, got);
    CHECK_NEAR(dist, d, 1e-12);
    for (int k = 0; k < 3; k++) CHECK_NEAR(got[k], n[k], 1e-12);
    CHECK(weft_collider_distance(c, p, NULL) == dist);
}

/* A box centred at (1, 2, 3) with half extents (0.5, 1, 2), i.e. x in [0.5, 1.5],
 * y in [1, 3], z in [1, 5]. With q_k = |p_k - c_k| - h_k: outside, the distance is the
 * length of max(q, 0) and the normal points from the closest box point to p; inside, the
 * nearest face's q (< 0) and its ±axis normal. */
static void box_distance(void) {
    weft_collider c = {.kind = WEFT_COLLIDER_BOX, .center = {1, 2, 3},
                       .half_extents = {0.5, 1, 2}};
    /* Inside, 0.2 m from the +x face (x = 1.5), 0.9 from +y, 1.8 from +z. */
    check_distance(&c, (double[]){1.3, 2.1, 3.2}, -0.2, (double[]){1, 0, 0});
    /* Inside, 0.2 m from the -z face (z = 1). */
    check_distance(&c, (double[]){1, 2, 1.2}, -0.2, (double[]){0, 0, -1});
    /* At the centre: the nearest faces are x's (0.5 m away); ties go to +. */
    check_distance(&c, (double[]){1, 2, 3}, -0.5, (double[]){1, 0, 0});
    /* On the +x face: distance 0, the face's normal. */
    check_distance(&c, (double[]){1.5, 2, 3}, 0.0, (double[]){1, 0, 0});
    /* Outside the +y face by 0.5 m. */
    check_distance(&c, (double[]){1, 3.5, 3}, 0.5, (double[]){0, 1, 0});
    /* Outside the -x face by 0.25 m. */
    check_distance(&c, (double[]){0.25, 2.5, 4}, 0.25, (double[]){-1, 0, 0});
    /* Beyond the edge x = 1.5, y = 3 by (0.3, 0.4): a 3-4-5 triangle, distance 0.5. */
    check_distance(&c, (double[]){1.8, 3.4, 3}, 0.5, (double[]){0.6, 0.8, 0});
    /* Beyond the corner (0.5, 1, 5) by (-0.2, -0.2, 0.1): distance 0.3. */
    check_distance(&c, (double[]){0.3, 0.8, 5.1}, 0.3,
                   (double[]){-2.0 / 3.0, -2.0 / 3.0, 1.0 / 3.0});
    /* On the edge x = 0.5, y = 1 itself: distance 0, normal of the lowest axis, -x. */
    check_distance(&c, (double[]){0.5, 1, 3}, 0.0, (double[]){-1, 0, 0});
    /* Equidistant from two faces inside a unit cube: the lowest axis wins. */
    weft_collider cube = {.kind = WEFT_COLLIDER_BOX, .half_extents = {1, 1, 1}};
    check_distance(&cube, (double[]){0.5, 0.5, 0}, -0.5, (double[]){1, 0, 0});
    check_distance(&cube, (double[]){0, -0.5, -0.5}, -0.5, (double[]){0, -1, 0});

    /* Away from ties, for random points inside and out: the normal is the gradient of the
     * distance (central differences, error O(δ²) with δ = 1e-6), unit length, and
     * stepping back by the distance along it lands on the surface. */
    lcg g = {42};
    int checked = 0;
    for (int s = 0; s < 2000; s++) {
        double p[3] = {rnd_in(&g, -1, 3), rnd_in(&g, -0.5, 4.5), rnd_in(&g, -1, 7)}, n[3];
        double dist = weft_collider_distance(&c, p, n);
        /* Skip points near a tie between faces or near an edge's region boundary, where
         * the distance is not differentiable. */
        double q[3];
        for (int k = 0; k < 3; k++) q[k] = fabs(p[k] - c.center[k]) - c.half_extents[k];
        bool near_kink = false;
        for (int a = 0; a < 3; a++) {
            if (fabs(q[a]) < 1e-3 || fabs(p[a] - c.center[a]) < 1e-3) near_kink = true;
            for (int b = a + 1; b < 3; b++)
                if (dist < 0 && fabs(q[a] - q[b]) < 1e-3) near_kink = true;
        }
        if (near_kink) continue;
        checked++;
        for (int k = 0; k < 3; k++) {
            double pp[3] = {p[0], p[1], p[2]}, pm[3] = {p[0], p[1], p[2]};
            pp[k] += 1e-6, pm[k] -= 1e-6;
            double fd = (weft_collider_distance(&c, pp, NULL) -
                         weft_collider_distance(&c, pm, NULL)) / 2e-6;
            CHECK_NEAR(fd, n[k], 1e-6);
        }
        CHECK_NEAR(norm3(n), 1.0, 1e-12);
        double back[3] = {p[0] - dist * n[0], p[1] - dist * n[1], p[2] - dist * n[2]};
        CHECK_NEAR(weft_collider_distance(&c, back, NULL), 0.0, 1e-12);
    }
    CHECK(checked > 1000);
}

/* A translating collider at time t stands at p0 + u t: the distance of p at t is that of
 * p - u t from the collider at rest. A static collider gives exactly (bit for bit) the
 * values of weft_collider_distance at every t, so scenes without motion are unchanged. */
static void collider_motion(void) {
    double n[3];
    weft_collider plane = {.kind = WEFT_COLLIDER_PLANE, .normal = {0, 1, 0},
                           .velocity = {0, 0.5, 0}};
    /* At t = 2 s the plane y = 0 has risen to y = 1: (3, 1.5, -1) is 0.5 m above it. */
    CHECK_NEAR(weft_collider_distance_at(&plane, (double[]){3, 1.5, -1}, 2.0, n), 0.5, 1e-15);
    CHECK(n[0] == 0 && n[1] == 1 && n[2] == 0);
    weft_collider sphere = {.kind = WEFT_COLLIDER_SPHERE, .radius = 1, .velocity = {1, 0, 0}};
    /* At t = 3 s the unit sphere's centre is (3, 0, 0): (3, 2, 0) is 1 m off its top. */
    CHECK_NEAR(weft_collider_distance_at(&sphere, (double[]){3, 2, 0}, 3.0, n), 1.0, 1e-15);
    CHECK_NEAR(n[1], 1.0, 1e-15);
    weft_collider box = {.kind = WEFT_COLLIDER_BOX, .half_extents = {1, 1, 1},
                         .velocity = {0, 0, -2}};
    /* At t = 0.5 s the cube's centre is (0, 0, -1), its -z face at z = -2. */
    CHECK_NEAR(weft_collider_distance_at(&box, (double[]){0, 0, -2.25}, 0.5, n), 0.25, 1e-15);
    CHECK(n[0] == 0 && n[1] == 0 && n[2] == -1);
    CHECK(weft_collider_moving(&plane) && weft_collider_moving(&box));

    /* Static: bit for bit, at any time. */
    weft_collider fixed[3] = {
        {.kind = WEFT_COLLIDER_PLANE, .point = {0.1, 0.2, 0.3}, .normal = {0.6, 0.8, 0}},
        {.kind = WEFT_COLLIDER_SPHERE, .center = {0.1, 0.3, -0.2}, .radius = 0.3},
        {.kind = WEFT_COLLIDER_BOX, .center = {-0.2, 0.1, 0}, .half_extents = {0.3, 0.1, 0.2}}};
    static const double times[] = {0.0, 1.0 / 60.0, 7.5, -3.0, 1e300};
    lcg g = {7};
    int differ = 0;
    for (int s = 0; s < 500; s++) {
        double p[3] = {rnd_in(&g, -1, 1), rnd_in(&g, -1, 1), rnd_in(&g, -1, 1)};
        for (int c = 0; c < 3; c++) {
            CHECK(!weft_collider_moving(&fixed[c]));
            double n0[3], n1[3];
            double d0 = weft_collider_distance(&fixed[c], p, n0);
            for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
                double d1 = weft_collider_distance_at(&fixed[c], p, times[t], n1);
                differ += memcmp(&d0, &d1, sizeof d0) != 0 || memcmp(n0, n1, sizeof n0) != 0;
            }
        }
    }
    CHECK(differ == 0);
}

/* A 0.2 m x 0.2 m, 8 x 8 cloth lying on the top face (y = 0.1) of a 1 m x 0.1 m x 1 m box
 * at the contact margin (2 mm), no damping; the box slides along +x at 0.5 m/s. */
#define CARRY_SCENE                                                                        \
    "[scene]\nname = carry\ngravity = 0 -9.81 0\n"                                         \
    "[mesh]\ntype = grid\nwidth = 0.2\nheight = 0.2\nnx = 8\nny = 8\nplane = xz\n"         \
    "origin = -0.1 0.102 0.1\n"                                                            \
    "[pbd]\nk_damping = 0\n[collision]\nmargin = 0.002\n"                                  \
    "[collider.box]\ntype = box\ncenter = 0 0.05 0\nhalf_extents = 0.5 0.05 0.5\n"         \
    "velocity = 0.5 0 0\nrestitution = 0\n"

/* Runs the carry scene with friction mu for time T under solver at step h; returns the
 * mean x displacement and velocity of the cloth and the extremes of its distance from
 * the box over the run. */
static bool carry(const weft_solver_type *solver, double mu, double h, double T, double *dx,
                  double *vx, double dmin_max[2]) {
    tmp_dir d;
    if (!tmp_open(&d)) return false;
    char path[128], fr[64], dt[64];
    write_file(&d, "carry.ini", CARRY_SCENE, path, sizeof path);
    snprintf(fr, sizeof fr, "collider.box.friction=%.17g", mu);
    snprintf(dt, sizeof dt, "scene.dt=%.17g", h);
    const char *sets[] = {fr, dt, NULL};
    weft_model m = {0};
    bool ok = build(path, sets, &m);
    remove(path);
    CHECK(rmdir(d.path) == 0);
    void *st = ok ? create(solver, &m) : NULL;
    if (!st) {
        weft_model_free(&m);
        return false;
    }
    double x0 = mean_of(&m, m.x, 0);
    dmin_max[0] = DBL_MAX, dmin_max[1] = -DBL_MAX;
    int steps = (int)lround(T / h);
    for (int s = 0; s < steps && ok; s++) {
        ok = step(solver, st, &m);
        for (int i = 0; i < m.n; i++) {
            double dist = weft_collider_distance_at(&m.colliders[0], &m.x[3 * i], m.t, NULL);
            dmin_max[0] = fmin(dmin_max[0], dist), dmin_max[1] = fmax(dmin_max[1], dist);
        }
    }
    *dx = mean_of(&m, m.x, 0) - x0;
    *vx = mean_of(&m, m.v, 0);
    solver->destroy(st);
    weft_model_free(&m);
    return ok;
}

/* Friction carries a cloth resting on a moving box: relative to the box the cloth slides
 * back at u = 0.5 m/s and Coulomb friction (μ = 0.5) takes μ g h off that relative speed
 * per step, so the cloth reaches the box's speed after u/(μ g) = 0.102 s, having fallen
 * behind by u²/(2 μ g) = 25.5 mm, and moves with the box from then on: after T = 0.5 s it
 * has travelled u T − u²/(2 μ g) = 0.2245 m. Without friction nothing pushes it along x
 * (the top face's normal is +y), so it stays where it was. */
static void moving_box_carries(void) {
    const weft_solver_type *const solvers[] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi,
                                               &weft_symplectic_euler};
    const double u = 0.5, mu = 0.5, g = 9.81, T = 0.5;
    for (int k = 0; k < 3; k++) {
        /* The explicit solver needs a step below its stability limit for the cloth's
         * springs (about 3e-4 s here); PBD runs at the scenes' 60 Hz. */
        double h = k < 2 ? 1.0 / 60.0 : 1e-4;
        double dx = 0, vx = 0, dm[2] = {0, 0};
        if (!carry(solvers[k], mu, h, T, &dx, &vx, dm)) continue;
        printf("%s, mu = 0.5: moved %.5g m (continuous %.5g m), vx %.6g m/s, distance from "
               "the box in [%.4g, %.4g] m\n", solvers[k]->name, dx,
               u * T - u * u / (2 * mu * g), vx, dm[0], dm[1]);
        /* The speed is the box's: once matched, the relative tangential velocity is
         * zeroed exactly, up to rounding. */
        CHECK_NEAR(vx, u, 1e-9);
        /* Positions are updated with the velocity of the step before (friction acts at
         * the end of a step, line 16), so the discrete path lags the continuous one by at
         * most one step's travel u h (8.3 mm at 60 Hz). */
        CHECK_NEAR(dx, u * T - u * u / (2 * mu * g), u * h + 1e-6);
        /* It rests on the box all along: never inside, never lifted beyond 1 mm. */
        CHECK(dm[0] >= 0.0 && dm[1] <= 0.002 + 1e-3);
        /* μ = 0: the box slides away beneath the cloth, which keeps its place. */
        if (!carry(solvers[k], 0.0, h, T, &dx, &vx, dm)) continue;
        CHECK(fabs(dx) < 1e-12 && fabs(vx) < 1e-12);
        CHECK(dm[0] >= 0.0);
    }
}

/* A sphere (R = 0.15 m) thrown up at 30 m/s through a resting cloth, no gravity: it moves
 * 0.5 m per step, more than its diameter, so a test of where it stands at the end of the
 * step alone would find the cloth below it, untouched. The ray test in the sphere's frame
 * (the cloth moves down through it) and the band widened by its travel catch it: no
 * vertex ever ends a step inside it, and the vertices above its centre line are carried
 * above it. */
static void moving_sphere_ray(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    const weft_solver_type *const solvers[] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi};
    for (int k = 0; k < 2; k++) {
        weft_model m = {0};
        if (!build_text(&d, "throw.ini",
                        "[scene]\nname = throw\ngravity = 0 0 0\n"
                        "[mesh]\ntype = grid\nwidth = 0.6\nheight = 0.6\nnx = 24\nny = 24\n"
                        "plane = xz\norigin = -0.3 0.5 0.3\n[pbd]\nk_damping = 0\n"
                        "[collision]\nmargin = 0.002\n"
                        "[collider.ball]\ntype = sphere\ncenter = 0 0.3 0\nradius = 0.15\n"
                        "velocity = 0 30 0\nfriction = 0\n",
                        &m))
            return;
        void *st = create(solvers[k], &m);
        double dmin = DBL_MAX, top_after_first = -DBL_MAX;
        for (int s = 0; st && s < 3; s++) {
            if (!step(solvers[k], st, &m)) break;
            for (int i = 0; i < m.n; i++) {
                double dist = weft_collider_distance_at(&m.colliders[0], &m.x[3 * i], m.t, NULL);
                dmin = fmin(dmin, dist);
            }
            if (s == 0) /* the centre vertex's height after the first step */
                for (int i = 0; i < m.n; i++)
                    if (fabs(m.mesh.x[3 * i]) < 0.02 && fabs(m.mesh.x[3 * i + 2]) < 0.02)
                        top_after_first = fmax(top_after_first, m.x[3 * i + 1]);
        }
        if (st) solvers[k]->destroy(st);
        /* After one step the sphere's centre is at 0.3 + 0.5 = 0.8 m. A cloth it passed
         * through would have stayed at 0.5 m, below its bottom (0.65 m); the caught cloth's
         * middle rides on its upper half, above 0.8 m (near its top, 0.95 m, where the
         * tangent plane of the entry point and the stretch constraints let it settle). */
        printf("%s: min distance %.4g m; cloth centre at %.4g m after one step\n",
               solvers[k]->name, dmin, top_after_first);
        CHECK(dmin >= 0.0);
        CHECK(top_after_first > 0.8);
        weft_model_free(&m);
    }
    CHECK(rmdir(d.path) == 0);
}

/* Collider keys: box needs positive half extents, velocity is a vector; both reach the
 * collider. */
static void collider_keys(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "box.ini", "[scene]\nname = box\n[collider.b]\ntype = box\n"
               "center = 1 2 3\nhalf_extents = 0.1 0.2 0.3\nvelocity = 0 0 -4\n", path,
               sizeof path);
    weft_model m = {0};
    if (build(path, NULL, &m)) {
        CHECK(m.ncolliders == 1 && m.colliders[0].kind == WEFT_COLLIDER_BOX);
        CHECK(m.colliders[0].half_extents[2] == 0.3 && m.colliders[0].velocity[2] == -4);
        CHECK(m.colliders[0].center[1] == 2);
    }
    weft_model_free(&m);
    char want[200];
    static const char *const zero[] = {"collider.b.half_extents=0.1 0 0.3", NULL};
    expect_error(path, zero, "collider.b.half_extents: every half extent must lie in (0, 1e9]",
                 NULL);
    static const char *const neg[] = {"collider.b.half_extents=-1 1 1", NULL};
    expect_error(path, neg, "collider.b.half_extents", "every half extent");
    static const char *const two[] = {"collider.b.velocity=1 2", NULL};
    expect_error(path, two, "collider.b.velocity: '1 2' needs 3 components", NULL);
    static const char *const kind[] = {"collider.b.type=cube", NULL};
    expect_error(path, kind, "collider.b.type: 'cube' is not one of: plane, sphere, box", NULL);
    write_file(&d, "box.ini", "[scene]\nname = box\n[collider.b]\ntype = box\n"
               "half_extents = 1 1 0\n", path, sizeof path);
    snprintf(want, sizeof want, "%s:5: collider.b.half_extents", path);
    expect_error(path, NULL, want, "every half extent");
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

static const check_case cases[] = {
    {"box_distance", box_distance},
    {"collider_motion", collider_motion},
    {"collider_keys", collider_keys},
    {"moving_box_carries", moving_box_carries},
    {"moving_sphere_ray", moving_sphere_ray},
    {NULL, NULL},
};

int main(int argc, char **argv) { return check_main(argc, argv, cases); }
