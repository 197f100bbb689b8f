/* test_capsule.c — the capsule collider (lib/collider/capsule.c), added as one file, one
 * registry line and one CMake line: answers known exactly, and a cloth draped over a
 * horizontal capsule from a scene file, with no vertex ever inside it.
 *   exact:  distance and normal beside the axis, beyond an end, on the axis; entry of a
 *           path through the side at |x| = r + margin, of one along the axis through an
 *           end at y = end + r + margin, none for a path that starts inside or passes by;
 *           the shape operator beside the axis (1/ρ across, 0 along) and beyond an end;
 *   scene:  [collider.bar] type = capsule loads with its keys, a bad radius and another
 *           shape's key are refused naming file:line, and 30 steps of pbd_gauss_seidel,
 *           vbd and newton_euler keep every vertex outside (distance ≥ 0). */
#include "check.h"
#include "collider_helpers.h"
#include "scene_build.h"
#include "tmp_files.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <float.h>
#include <unistd.h>

/* A capsule from (0, -1, 0) to (0, 1, 0), radius 0.5. */
static weft_collider vertical(void) {
    weft_collider c = collider_of("capsule");
    collider_set(&c, "start", 0, -1, 0);
    collider_set(&c, "end", 0, 1, 0);
    collider_set(&c, "radius", 0.5, 0, 0);
    return c;
}

static void check_vec(const double *got, double x, double y, double z, double tol) {
    CHECK_NEAR(got[0], x, tol);
    CHECK_NEAR(got[1], y, tol);
    CHECK_NEAR(got[2], z, tol);
}

static void test_exact(void) {
    weft_collider c = vertical();
    double n[3], t = -1.0, S[9];
    /* Beside the axis: 2 m along +x at y = 0.3, distance 1.5, normal +x. */
    CHECK_NEAR(weft_collider_distance(&c, (double[]){2, 0.3, 0}, n), 1.5, 1e-15);
    check_vec(n, 1, 0, 0, 1e-15);
    /* Beyond the top end by (0.3, 0.4) from (0, 1, 0): 0.5 − 0.5 = 0 (on the surface). */
    CHECK_NEAR(weft_collider_distance(&c, (double[]){0.3, 1.4, 0}, n), 0.0, 1e-15);
    check_vec(n, 0.6, 0.8, 0, 1e-15);
    /* On the axis: −r, a unit normal across the axis. */
    CHECK_NEAR(weft_collider_distance(&c, (double[]){0, 0.2, 0}, n), -0.5, 1e-15);
    CHECK_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-15);
    CHECK(n[1] == 0.0);

    const double margin = 0.01;
    /* Through the side along −x at y = 0.5: enters at x = 0.51, t = (3 − 0.51)/4. */
    CHECK(weft_collider_segment_entry(&c, (double[]){3, 0.5, 0}, (double[]){-1, 0.5, 0},
                                      margin, &t, n));
    CHECK_NEAR(t, (3.0 - 0.51) / 4.0, 1e-14);
    check_vec(n, 1, 0, 0, 1e-14);
    /* Down the axis from y = 3 to y = 1: enters the top cap at y = 1.51, t = 1.49/2. */
    CHECK(weft_collider_segment_entry(&c, (double[]){0, 3, 0}, (double[]){0, 1, 0}, margin,
                                      &t, n));
    CHECK_NEAR(t, 1.49 / 2.0, 1e-14);
    check_vec(n, 0, 1, 0, 1e-14);
    /* A path that starts inside, and one that passes 0.6 m from the axis: no entry. */
    CHECK(!weft_collider_segment_entry(&c, (double[]){0.2, 0, 0}, (double[]){3, 0, 0}, margin,
                                       &t, n));
    CHECK(!weft_collider_segment_entry(&c, (double[]){-2, 0, 0.6}, (double[]){2, 0, 0.6},
                                       margin, &t, n));

    /* Shape operator beside the axis at ρ = 2: (I − n̂n̂ᵀ − ŷŷᵀ)/2 = diag(0, 0, 1/2). */
    weft_collider_curvature_at(&c, (double[]){2, 0.3, 0}, 0.0, S);
    const double side[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0.5};
    for (int k = 0; k < 9; k++) CHECK_NEAR(S[k], side[k], 1e-15);
    /* Beyond the end at distance 0.5 from (0, 1, 0), n̂ = (0.6, 0.8, 0): (I − n̂n̂ᵀ)/0.5. */
    weft_collider_curvature_at(&c, (double[]){0.3, 1.4, 0}, 0.0, S);
    const double cap[9] = {0.64 / 0.5, -0.48 / 0.5, 0, -0.48 / 0.5, 0.36 / 0.5, 0, 0, 0, 2};
    for (int k = 0; k < 9; k++) CHECK_NEAR(S[k], cap[k], 1e-14);
}

/* A 0.6 m cloth dropped onto a horizontal capsule (along x, radius 0.1 m, 0.3 m above a
 * ground plane). */
static const char scene_text[] =
    "[scene]\nname = capsule_drape\ndt = 0.01\nsteps = 30\n"
    "[mesh]\ntype = grid\nwidth = 0.6\nheight = 0.6\nnx = 12\nny = 12\nplane = xz\n"
    "origin = -0.3 0.45 0.3\n"
    "[material]\ndensity = 0.1\nstretch_stiffness = 1000\nbending_stiffness = 1e-5\n"
    "[collision]\nmargin = 0.002\n"
    "[collider.bar]\ntype = capsule\nstart = -0.2 0.3 0\nend = 0.2 0.3 0\nradius = 0.1\n"
    "friction = 0.3\n"
    "[collider.ground]\ntype = plane\n";

static void test_scene(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[256];
    write_file(&d, "capsule.ini", scene_text, path, sizeof path);
    /* A radius out of range, and a sphere's key, are refused at their line. */
    {
        weft_model m = {0};
        weft_error err = {{0}};
        static const char *const bad[] = {"collider.bar.radius=0", NULL};
        CHECK(scene_try_build(path, bad, weft_energy_registry, &m, &err) == WEFT_ERR_INPUT);
        CHECK(strstr(err.msg, "collider.bar.radius: 0 must lie in (0, 1e+09]") != NULL);
        char other[600], want[300];
        snprintf(other, sizeof other, "%scenter = 0 0 0\n", scene_text);
        write_file(&d, "other.ini", other, want, sizeof want);
        CHECK(scene_try_build(want, NULL, weft_energy_registry, &m, &err) == WEFT_ERR_INPUT);
        char at[400];
        snprintf(at, sizeof at, "%s:27: collider.ground.center: does not apply to a plane", want);
        if (!strstr(err.msg, at)) fprintf(stderr, "got: %s\nwant: %s\n", err.msg, at);
        CHECK(strstr(err.msg, at) != NULL);
        remove(want);
    }
    static const char *const names[] = {"pbd_gauss_seidel", "vbd", "newton_euler"};
    for (size_t s = 0; s < sizeof names / sizeof names[0]; s++) {
        const weft_solver_type *const run[] = {weft_solver_find(names[s])};
        CHECK(run[0] != NULL);
        if (!run[0]) continue;
        weft_model m = {0};
        weft_config *cfg = NULL;
        if (!scene_build_cfg(path, NULL, weft_energy_registry, &m, &cfg)) continue;
        CHECK(m.ncolliders == 2 && m.colliders[0].type == collider_type("capsule"));
        CHECK(collider_at(&m.colliders[0], "end")[0] == 0.2 &&
              collider_at(&m.colliders[0], "radius")[0] == 0.1);
        weft_error err = {{0}};
        void *st = run[0]->create(&m, cfg, &err);
        CHECK(st != NULL);
        double dmin = DBL_MAX, lowest = DBL_MAX;
        for (int k = 0; st && k < 30; k++) {
            int rc = run[0]->step(st, &m, NULL, &err);
            if (rc) fprintf(stderr, "%s: %s\n", run[0]->name, err.msg);
            CHECK(rc == WEFT_OK);
            for (int i = 0; i < m.n; i++) {
                dmin = fmin(dmin, weft_collider_distance(&m.colliders[0], &m.x[3 * i], NULL));
                lowest = fmin(lowest, m.x[3 * i + 1]);
            }
        }
        printf("%s: capsule min distance %.3g m, lowest vertex y %.3f m\n", run[0]->name, dmin,
               lowest);
        CHECK(dmin >= 0.0);
        CHECK(dmin < 0.01); /* it did reach the capsule */
        CHECK(lowest < 0.3); /* and hangs down past its axis */
        if (st) run[0]->destroy(st);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"exact", test_exact},
        {"scene", test_scene},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
