/* bridson_stage.c — Bridson, Fedkiw & Anderson 2002's collision pipeline
 * (weft_collision.h) as a post-step stage of the run loop, with its [collision] settings.
 *
 * After every solver step, whatever the solver: x0 = the positions before the step,
 * x1 = m->x after it, v = m->v, h = m->dt; the pipeline moves m->x to collision-free
 * positions and corrects m->v by (x_new − x1)/h. The model's triangle-mesh obstacles
 * (weft_obstacle) are added as pipeline obstacles 0, 1, ... in model order and placed
 * before each step on their paths x_rest + u t: x0 at the step's start time t, x1 at
 * t + h. Its per-step statistics go to "<log>.collisions" with the columns
 *   step proximity_pairs swept_pairs repulsions ccd_hits ccd_iterations zone_iterations
 *   zones max_zone collider_contacts unresolved remaining ms
 * (remaining = -1 unless count_intersections is set; ms = collision time per step).
 * Handling time (placing the obstacles and the pipeline itself) is solver time; the
 * intersection count and the log row are not. */
#include "weft_collision.h"

#include <stddef.h>
#include <stdlib.h>

static const char *const pipeline_names[] = {"none", "bridson", NULL};
static const char *const broad_phase_names[] = {"bvh", "hash", NULL};

#define F(field) offsetof(weft_collision_settings, field)
static const weft_param collision_params[] = {
    {.key = "pipeline", .type = WEFT_PARAM_NAME, .offset = F(pipeline), .unit = "",
     .names = pipeline_names, .dflt_name = "none",
     .doc = "bridson: run the collision pipeline after every solver step"},
    {.key = "thickness", .type = WEFT_PARAM_DOUBLE, .offset = F(thickness), .unit = "m",
     .lo = 0, .hi = 1, .flags = WEFT_PARAM_LO_OPEN, .dflt = 1e-3,
     .doc = "cloth thickness eta: repulsions act on pairs closer than this"},
    {.key = "friction", .type = WEFT_PARAM_DOUBLE, .offset = F(friction), .unit = "1", .lo = 0,
     .hi = 100, .dflt = 0.1, .doc = "cloth-cloth Coulomb coefficient"},
    {.key = "repulsion_stiffness", .type = WEFT_PARAM_DOUBLE, .offset = F(stiffness),
     .unit = "N/m", .lo = 0, .hi = 1e12, .dflt = 0,
     .doc = "repulsion spring k; 0: the material's stretch_stiffness"},
    {.key = "broad_phase", .type = WEFT_PARAM_NAME, .offset = F(broad_phase), .unit = "",
     .names = broad_phase_names, .dflt_name = "bvh",
     .doc = "bounding-box hierarchy or spatial hash"},
    {.key = "max_iterations", .type = WEFT_PARAM_INT, .offset = F(max_iterations), .unit = "",
     .lo = 1, .hi = 1000, .dflt = 10, .doc = "CCD impulse passes before impact zones"},
    {.key = "count_intersections", .type = WEFT_PARAM_BOOL, .offset = F(count_intersections),
     .unit = "", .dflt = 0,
     .doc = "count intersecting triangle pairs after every step (O(nt^2), diagnostics)"},
    {.key = "repulsions", .type = WEFT_PARAM_BOOL, .offset = F(repulsions), .unit = "",
     .dflt = 1, .doc = "stage 1: proximity repulsions"},
    {.key = "ccd", .type = WEFT_PARAM_BOOL, .offset = F(ccd), .unit = "", .dflt = 1,
     .doc = "stage 2: continuous collision detection impulses"},
    {.key = "impact_zones", .type = WEFT_PARAM_BOOL, .offset = F(impact_zones), .unit = "",
     .dflt = 1, .doc = "stage 3: rigid impact zones"},
    {0},
};
#undef F

static const weft_param_table collision_tables[] = {{"collision", collision_params, 0}, {0}};

/* The stage's state: the pipeline and the obstacles' positions at a step's ends. */
typedef struct bridson_state {
    weft_collision_pipeline *pipe;
    double *obx0, *obx1; /* an obstacle's positions at the step's start and end */
    weft_collision_stats stats; /* the last step's, handed to on_step */
} bridson_state;

static bool bridson_enabled(const void *settings) {
    return ((const weft_collision_settings *)settings)->pipeline == 1;
}

static void bridson_destroy(void *state) {
    bridson_state *st = state;
    if (!st) return;
    weft_collision_free(&st->pipe);
    free(st->obx0), free(st->obx1);
    free(st);
}

static void *bridson_create(const weft_model *m, const void *settings, weft_error *err) {
    bridson_state *st = calloc(1, sizeof *st);
    if (!st) {
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    int obnv = 1;
    for (int k = 0; k < m->nobstacles; k++)
        if (m->obstacles[k].mesh.nv > obnv) obnv = m->obstacles[k].mesh.nv;
    if (m->nobstacles > 0) {
        st->obx0 = malloc(3 * (size_t)obnv * sizeof *st->obx0);
        st->obx1 = malloc(3 * (size_t)obnv * sizeof *st->obx1);
        if (!st->obx0 || !st->obx1) {
            bridson_destroy(st);
            weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
            return NULL;
        }
    }
    weft_collision_options o = weft_collision_options_from_settings(m, settings);
    st->pipe = weft_collision_create(m, &o, err);
    if (!st->pipe) {
        bridson_destroy(st);
        return NULL;
    }
    /* Obstacle k gets pipeline id k (ids count up from 0). */
    for (int k = 0; k < m->nobstacles; k++)
        if (weft_collision_add_obstacle(st->pipe, &m->obstacles[k].mesh,
                                        m->obstacles[k].friction, err) < 0) {
            bridson_destroy(st);
            return NULL;
        }
    return st;
}

static int bridson_step(void *state, weft_model *m, const double *x0, double t0, int step,
                        weft_log *log, weft_stage_result *out, weft_error *err) {
    bridson_state *st = state;
    double start = weft_now();
    for (int k = 0; k < m->nobstacles; k++) {
        weft_obstacle_positions(&m->obstacles[k], t0, st->obx0);
        weft_obstacle_positions(&m->obstacles[k], t0 + m->dt, st->obx1);
        int rc = weft_collision_move_obstacle(st->pipe, k, st->obx0, st->obx1, err);
        if (rc != WEFT_OK) return rc;
    }
    double placing = weft_now() - start;
    weft_collision_stats *cs = &st->stats;
    int rc = weft_collision_step(st->pipe, m, x0, m->x, m->v, m->dt, cs, err);
    if (rc < 0) return rc;
    if (log)
        weft_log_printf(log, "%d %ld %ld %ld %ld %d %d %d %d %ld %ld %ld %.6f\n", step,
                        cs->proximity_pairs, cs->swept_pairs, cs->repulsions, cs->ccd_hits,
                        cs->ccd_iterations, cs->zone_iterations, cs->zones, cs->max_zone,
                        cs->collider_contacts, cs->unresolved, cs->remaining,
                        1e3 * cs->seconds);
    out->unresolved = rc == WEFT_WARN_UNRESOLVED;
    out->seconds = placing + cs->seconds;
    out->stats = cs;
    return rc;
}

const weft_stage_type weft_bridson_stage = {
    .name = "bridson",
    .paper = "Bridson, Fedkiw & Anderson 2002",
    .summary = "repulsions, continuous collision detection and rigid impact zones after any "
               "solver's step",
    .settings_size = sizeof(weft_collision_settings),
    .settings = collision_tables,
    .enabled = bridson_enabled,
    .handles_obstacles = true,
    .enable_hint = "[collision] pipeline = bridson",
    .log_suffix = ".collisions",
    .log_columns = "step proximity_pairs swept_pairs repulsions ccd_hits ccd_iterations "
                   "zone_iterations zones max_zone collider_contacts unresolved remaining ms",
    .create = bridson_create,
    .step = bridson_step,
    .destroy = bridson_destroy,
};
