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
 *   friction         drape with the ball's friction 0.5 (lagged friction, Li 2020 §5):
 *                    the same checks
 *   threads          cloth_on_cloth, 25 steps, with 1, 2 and 3 threads: bitwise the same
 *                    positions (contact partners in one colour read the colour's start)
 *   refusal          friction_iterations = 2, and a [vbd] ipc_* key under model = none,
 *                    refused at create with one line naming the key
 */
#include "check.h"
#include "ipc_contact.h"
#include "scene_build.h"
#include "weft_energies.h"
#include "weft_geometry.h"
#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The vbd solver, found by name as the experiments find it. */
#define VBD weft_solver_find("vbd")

/* The smallest distance (m) of a non-adjacent vertex–triangle or edge–edge pair of mesh m
 * at x, by brute force over the classified distances. */
static double min_pair_distance(const weft_mesh *m, const double *x) {
    double best = INFINITY, xe[12];
    for (int v = 0; v < m->nv; v++)
        for (int t = 0; t < m->nt; t++) {
            const int *c = &m->tri[3 * t];
            if (v == c[0] || v == c[1] || v == c[2]) continue;
            const int idx[4] = {v, c[0], c[1], c[2]};
            for (int a = 0; a < 4; a++) memcpy(&xe[3 * a], &x[3 * idx[a]], 3 * sizeof(double));
            best = fmin(best, weft_ipc_d2(xe, weft_ipc_classify_pt(xe), NULL, NULL));
        }
    for (int i = 0; i < m->ne; i++)
        for (int j = i + 1; j < m->ne; j++) {
            const int *a = &m->edge[2 * i], *b = &m->edge[2 * j];
            if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1]) continue;
            const int idx[4] = {a[0], a[1], b[0], b[1]};
            for (int k = 0; k < 4; k++) memcpy(&xe[3 * k], &x[3 * idx[k]], 3 * sizeof(double));
            best = fmin(best, weft_ipc_d2(xe, weft_ipc_classify_ee(xe), NULL, NULL));
        }
    return sqrt(best);
}

/* The smallest gap (distance − margin, m) of a vertex of m at x to a collider. */
static double min_collider_gap(const weft_model *m, const double *x) {
    double best = INFINITY;
    for (int i = 0; i < m->n; i++)
        for (int c = 0; c < m->ncolliders; c++)
            best = fmin(best, weft_contact_gap(&m->colliders[c], &x[3 * i], m->t,
                                               m->contact_margin, NULL));
    return best;
}

/* The barrier term of m (the contact model appends it at the first step), or NULL. */
static const weft_term *barrier_term(const weft_model *m) {
    for (int t = 0; t < m->nterms; t++)
        if (m->terms[t].type == &weft_ipc_barrier_type) return &m->terms[t];
    return NULL;
}

/* Runs vbd under ipc on scene with the overrides for `steps` steps and checks every step's
 * end (file comment); xi: the thickness the overrides set. The final positions go to
 * *x_out (malloc'd; may be NULL). */
static void run_vbd(const char *scene, const char *const *sets, int steps, double xi,
                    double **x_out) {
    weft_model m;
    weft_config *cfg = NULL;
    if (!scene_build_cfg(scene, sets, weft_energy_registry, &m, &cfg)) return;
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
        const long crossing = weft_count_intersections(&m.mesh, m.x, 0, NULL, NULL);
        const double d = min_pair_distance(&m.mesh, m.x), g = min_collider_gap(&m, m.x);
        dmin = fmin(dmin, d), gmin = fmin(gmin, g);
        const weft_term *bt = barrier_term(&m);
        contacts += bt && bt->n > 0;
        if (crossing != 0 || !(d > xi) || !(g > xi)) {
            fprintf(stderr, "%s step %d: %ld crossing, d %.3g m, gap %.3g m\n", scene, step,
                    crossing, d, g);
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
           "highest y %.3g m, barrier energy %.3g J over %d pairs, %d bad steps\n",
           scene, step, contacts, dmin, gmin, ytop, Eb, bt ? bt->n : 0, bad);
    CHECK(step == steps && bad == 0);
    CHECK(contacts >= steps / 3); /* not vacuous: the cloth lands */
    CHECK(Eb > 0.0);
    CHECK(ytop > 0.55); /* held up by the ball (its top at y = 0.6 m), not through it */
    if (x_out && (*x_out = malloc(3 * (size_t)m.n * sizeof **x_out)))
        memcpy(*x_out, m.x, 3 * (size_t)m.n * sizeof **x_out);
    if (st) VBD->destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

#define DRAPE_SETS                                                                            \
    "mesh.nx=10", "mesh.ny=10", "contact.model=ipc", "contact.barrier_distance=5e-3",         \
        "collider.ground.friction=0", "solver.iterations=20"

static void drape(void) {
    const char *sets[] = {DRAPE_SETS, "contact.stiffness=1e6", "collider.ball.friction=0", NULL};
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
        printf("threads: 2 threads %s, 3 threads %s\n", memcmp(x[0], x[1], bytes) ? "differ" : "same",
               memcmp(x[0], x[2], bytes) ? "differ" : "same");
        CHECK(!memcmp(x[0], x[1], bytes) && !memcmp(x[0], x[2], bytes));
        weft_model_free(&m);
    } else {
        CHECK(0);
    }
    for (int k = 0; k < 3; k++) free(x[k]);
}

/* vbd's create refuses the overrides with a message holding want. */
static void expect_refused(const char *const *sets, const char *want) {
    weft_model m;
    weft_config *cfg = NULL;
    if (!scene_build_cfg("drape_sphere", sets, weft_energy_registry, &m, &cfg)) return;
    weft_error err = {{0}};
    void *st = weft_solver_create(VBD, &m, cfg, &err);
    printf("refused: %s\n", st ? "(created)" : err.msg);
    CHECK(st == NULL && strstr(err.msg, want) && !strchr(err.msg, '\n'));
    if (st) VBD->destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void refusal(void) {
    const char *lags[] = {"mesh.nx=6", "mesh.ny=6", "contact.model=ipc",
                          "contact.friction_iterations=2", NULL};
    expect_refused(lags, "contact.friction_iterations = 2: vbd runs one lagging iteration");
    const char *none[] = {"mesh.nx=6", "mesh.ny=6", "vbd.ipc_gamma=0.3", NULL};
    expect_refused(none, "vbd.ipc_gamma: read only with [contact] model = ipc");
}

static const check_case cases[] = {
    {"drape", drape},   {"cloth_on_cloth", cloth_on_cloth}, {"friction", friction},
    {"threads", threads}, {"refusal", refusal},           {NULL, NULL},
};

int main(int argc, char **argv) { return check_main(argc, argv, cases); }
