/* test_vbd_ipc.c — the contact model [contact] model = ipc run by vbd (solvers/vbd_ipc.c:
 * Li 2020's barrier elements in the vertex blocks, Chen 2024's conservative displacement
 * bound in place of a CCD line search).
 *
 *   drape            drape_sphere (10², d̂ = 5 mm, κ = 1e6 J/m⁴, colliders' friction 0), 40
 *                    steps × 20 sweeps: at the end of every step no intersecting triangle
 *                    pair, every non-adjacent cloth pair and every vertex–collider gap > ξ,
 *                    barrier pairs in a third of the steps, the barrier's energy > 0 at
 *                    the end, and the cloth held up by the ball (its highest vertex above
 *                    y = 0.55 m, the ball's top at 0.6 m)
 *   cloth_on_cloth   the same on two cloths dropped on the sphere (10² and 8², ξ = 0.5 mm,
 *                    the Bridson pipeline off), with adaptive κ
 *   defaults         drape at the model's defaults (d̂ = 1 mm, adaptive κ): the same checks
 *   friction         drape with the ball's friction 0.5 (lagged friction, Li 2020 §5):
 *                    the same checks
 *   moving           the ball rising at 0.3 m/s under the drape; a mesh plate (OBJ) rising
 *                    at 1 m/s catches a falling 8² cloth and lifts it: the same checks,
 *                    obstacle distances > ξ too, the cloth ends on the plate
 *   threads          cloth_on_cloth, 25 steps, with 1, 2 and 3 threads: bitwise the same
 *                    positions (contact partners in one colour read the colour's start)
 *   refusal          friction_iterations = 2, the balloon's volume constraint under ipc,
 *                    and a [vbd] ipc_* key under model = none, refused at create with one
 *                    line naming the key
 */
#include "check.h"
#include "ipc_check.h"
#include "ipc_contact.h"
#include "scene_build.h"
#include "tmp_files.h"
#include "weft_energies.h"
#include "weft_geometry.h"
#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The vbd solver, found by name as the experiments find it. */
#define VBD weft_solver_find("vbd")

/* The barrier term of m (the contact model appends it at the first step), or NULL. */
static const weft_term *barrier_term(const weft_model *m) {
    for (int t = 0; t < m->nterms; t++)
        if (m->terms[t].type == &weft_ipc_barrier_type) return &m->terms[t];
    return NULL;
}

/* What a run must show besides intersection-freeness: the thickness ξ the overrides set,
 * the highest vertex's least y at the end (m; -INFINITY: none), and whether the cloth
 * ends resting on something (barrier pairs in a third of the steps, energy > 0). */
typedef struct run_expect {
    double xi, ytop_min;
    bool rests;
} run_expect;

/* Runs vbd under ipc on scene with the overrides for `steps` steps and checks every step's
 * end (file comment): no crossing, cloth pairs, collider gaps and obstacle distances > ξ.
 * The final positions go to *x_out (malloc'd; may be NULL); the smallest collider gap and
 * obstacle distance over the steps to gap_out, obs_out (may be NULL). */
static void run_vbd_out(const char *scene, const char *const *sets, int steps, run_expect ex,
                        double **x_out, double *gap_out, double *obs_out) {
    weft_model m;
    weft_config *cfg = NULL;
    const double xi = ex.xi;
    if (!scene_build_cfg(scene, sets, weft_energy_registry, &m, &cfg)) return;
    double omin = INFINITY;
    weft_error err = {{0}};
    void *st = weft_solver_create(VBD, &m, cfg, &err);
    if (!st) fprintf(stderr, "%s: %s\n", scene, err.msg);
    CHECK(st != NULL);
    int bad = 0, contacts = 0, step = 0;
    double dmin = INFINITY, gmin = INFINITY, ytop = -INFINITY;
    for (; st && step < steps; step++) {
        if (VBD->step(st, &m, NULL, &err) != WEFT_OK) {
            fprintf(stderr, "%s step %d: %s\n", scene, step, err.msg);
            CHECK(0);
            break;
        }
        const long crossing = crossings(&m, m.x, m.t);
        const double d = min_pair_distance(&m.mesh, m.x), g = min_collider_gap(&m, m.x);
        const double o = min_obstacle_distance(&m, m.x, m.t);
        dmin = fmin(dmin, d), gmin = fmin(gmin, g), omin = fmin(omin, o);
        const weft_term *bt = barrier_term(&m);
        contacts += bt && bt->n > 0;
        if (crossing != 0 || !(d > xi) || !(g > xi) || !(o > xi)) {
            fprintf(stderr, "%s step %d: %ld crossing, d %.3g m, gap %.3g m, obstacle %.3g m\n",
                    scene, step, crossing, d, g, o);
            bad++;
        }
    }
    for (int i = 0; i < m.n; i++) ytop = fmax(ytop, m.x[3 * i + 1]);
    double Eb = 0.0;
    const weft_term *bt = barrier_term(&m);
    for (int i = 0; bt && i < bt->n; i++) {
        double xe[12];
        for (int a = 0; a < 4; a++) memcpy(&xe[3 * a], &m.x[3 * bt->elem[i].v[a]], 24);
        Eb += bt->type->energy(&bt->elem[i], xe);
    }
    printf("%s, vbd: %d steps (%d with barrier pairs), min distance %.3g m, min gap %.3g m, "
           "min obstacle distance %.3g m, highest y %.3g m, barrier energy %.3g J over %d "
           "pairs, %d bad steps\n",
           scene, step, contacts, dmin, gmin, omin, ytop, Eb, bt ? bt->n : 0, bad);
    CHECK(step == steps && bad == 0);
    CHECK(contacts >= (ex.rests ? steps / 3 : 1)); /* not vacuous: the cloth lands */
    CHECK(Eb > 0.0 || !ex.rests);
    CHECK(ytop > ex.ytop_min); /* e.g. held up by the ball, not through it */
    if (gap_out) *gap_out = gmin;
    if (obs_out) *obs_out = omin;
    if (x_out && (*x_out = malloc(3 * (size_t)m.n * sizeof **x_out)))
        memcpy(*x_out, m.x, 3 * (size_t)m.n * sizeof **x_out);
    if (st) VBD->destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* run_vbd_out on drape_sphere-like scenes: the cloth ends on the ball (its top at
 * y = 0.6 m), its highest vertex above y = 0.55 m. */
static void run_vbd(const char *scene, const char *const *sets, int steps, double xi,
                    double **x_out) {
    run_vbd_out(scene, sets, steps, (run_expect){xi, 0.55, true}, x_out, NULL, NULL);
}

#define DRAPE_SETS                                                                            \
    "mesh.nx=10", "mesh.ny=10", "contact.model=ipc", "contact.barrier_distance=5e-3",         \
        "collider.ground.friction=0", "solver.iterations=20"

static void drape(void) {
    const char *sets[] = {DRAPE_SETS, "contact.stiffness=1e6", "collider.ball.friction=0", NULL};
    run_vbd("drape_sphere", sets, 40, 0.0, NULL);
}

/* The model's defaults: d̂ = 1 mm, adaptive κ (Li 2020 §4.3). */
static void defaults(void) {
    const char *sets[] = {"mesh.nx=10", "mesh.ny=10", "contact.model=ipc",
                          "collider.ground.friction=0", "collider.ball.friction=0",
                          "solver.iterations=20", NULL};
    run_vbd("drape_sphere", sets, 40, 0.0, NULL);
}

static void friction(void) {
    const char *sets[] = {DRAPE_SETS, "contact.stiffness=1e6", "collider.ball.friction=0.5",
                          NULL};
    run_vbd("drape_sphere", sets, 40, 0.0, NULL);
}

#define COC_SETS                                                                              \
    "mesh.nx=10", "mesh.ny=10", "mesh.top.nx=8", "mesh.top.ny=8", "collision.pipeline=none",  \
        "contact.model=ipc", "contact.barrier_distance=5e-3", "contact.thickness=5e-4",       \
        "collider.ball.friction=0", "collider.ground.friction=0", "solver.iterations=20"

static void cloth_on_cloth(void) {
    const char *sets[] = {COC_SETS, NULL};
    run_vbd("cloth_on_cloth", sets, 40, 5e-4, NULL);
}

static void threads(void) {
    double *x[3] = {NULL, NULL, NULL};
    const char *counts[3] = {"solver.threads=1", "solver.threads=2", "solver.threads=3"};
    for (int k = 0; k < 3; k++) {
        const char *sets[] = {COC_SETS, counts[k], NULL};
        run_vbd("cloth_on_cloth", sets, 25, 5e-4, &x[k]);
    }
    weft_model m;
    const char *sets[] = {COC_SETS, NULL};
    if (x[0] && x[1] && x[2] && scene_build("cloth_on_cloth", sets, weft_energy_registry, &m)) {
        const size_t bytes = 3 * (size_t)m.n * sizeof(double);
        printf("threads: 2 threads %s, 3 threads %s\n",
               memcmp(x[0], x[1], bytes) ? "differ" : "same",
               memcmp(x[0], x[2], bytes) ? "differ" : "same");
        CHECK(!memcmp(x[0], x[1], bytes) && !memcmp(x[0], x[2], bytes));
        weft_model_free(&m);
    } else {
        CHECK(0);
    }
    for (int k = 0; k < 3; k++) free(x[k]);
}

/* Moving colliders and obstacles (the carry, and the bound measured against them where
 * they stand at the step's end): the ball rising at 0.3 m/s under the drape; a
 * triangle-mesh plate (an OBJ, 0.4 m) rising at 1 m/s under a 0.3 m cloth (8²) falling
 * onto it, which it catches and lifts. */
static void moving(void) {
    const char *rise[] = {DRAPE_SETS, "contact.stiffness=1e6", "collider.ball.friction=0",
                          "collider.ball.velocity=0,0.3,0", NULL};
    run_vbd_out("drape_sphere", rise, 40, (run_expect){0.0, 0.55, true}, NULL, NULL, NULL);
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char obj[128], ini[128];
    write_lift_scene(&d, "stiffness = 1e6\n[solver]\niterations = 20\n", obj, ini, sizeof ini);
    double omin = INFINITY;
    /* lifted: the plate ends at y = 0.5 m, the cloth on it */
    run_vbd_out(ini, NULL, 30, (run_expect){0.0, 0.45, true}, NULL, NULL, &omin);
    CHECK(omin < 5e-3); /* it rests on the plate */
    unlink(obj), unlink(ini), rmdir(d.path);
}

/* vbd's create refuses scene with the overrides, with a message holding want. */
static void expect_refused_in(const char *scene, const char *const *sets, const char *want) {
    weft_model m;
    weft_config *cfg = NULL;
    if (!scene_build_cfg(scene, sets, weft_energy_registry, &m, &cfg)) return;
    weft_error err = {{0}};
    void *st = weft_solver_create(VBD, &m, cfg, &err);
    printf("refused: %s\n", st ? "(created)" : err.msg);
    CHECK(st == NULL && strstr(err.msg, want) && !strchr(err.msg, '\n'));
    if (st) VBD->destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* expect_refused_in on drape_sphere. */
static void expect_refused(const char *const *sets, const char *want) {
    expect_refused_in("drape_sphere", sets, want);
}

static void refusal(void) {
    const char *lags[] = {"mesh.nx=6", "mesh.ny=6", "contact.model=ipc",
                          "contact.friction_iterations=2", NULL};
    expect_refused(lags, "contact.friction_iterations = 2: vbd runs one lagging iteration");
    const char *pressure[] = {"mesh.subdivisions=1", "contact.model=ipc",
                              "collider.ground.restitution=0", "pbd.k_pressure=1", NULL};
    expect_refused_in("balloon", pressure, "pbd.k_pressure: vbd runs [contact] model = ipc "
                                           "without the volume constraint");
    const char *none[] = {"mesh.nx=6", "mesh.ny=6", "vbd.ipc_gamma=0.3", NULL};
    expect_refused(none, "vbd.ipc_gamma: read only with [contact] model = ipc");
}

static const check_case cases[] = {
    {"drape", drape},   {"cloth_on_cloth", cloth_on_cloth}, {"friction", friction},
    {"defaults", defaults},
    {"threads", threads}, {"moving", moving},             {"refusal", refusal},
    {NULL, NULL},
};

int main(int argc, char **argv) { return check_main(argc, argv, cases); }
