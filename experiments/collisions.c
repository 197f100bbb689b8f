/* collisions.c — what each stage of the cloth collision pipeline of Bridson, Fedkiw &
 * Anderson 2002 (lib/collision/weft_collision.h) contributes, beside Incremental Potential
 * Contact (Li et al. 2020): every scene × solver is run under six configurations (or those
 * --configs names, in this order),
 *
 *   none           the solver alone (it handles only planes and spheres itself);
 *   bridson        the whole pipeline: repulsions, CCD impulses, rigid impact zones;
 *   no_repulsions  without the repulsions at the step's start;
 *   no_ccd         without CCD, hence without impact zones: repulsions and colliders;
 *   no_zones       without impact zones: what the CCD impulse passes leave is left;
 *   ipc            no pipeline; [contact] model = ipc at its own d̂, the colliders' friction
 *                  and the pipeline's cloth–cloth μ ([collision] friction) kept, restitution
 *                  refused (IPC is inelastic); solvers that do not run it: a refused row;
 *
 * and measured after every step, outside the timed part (weft_run_options.on_step):
 *   intersections  intersecting triangle pairs, cloth–cloth and cloth–obstacle
 *                  (weft_count_intersections: a sort and sweep, then the exact test);
 *   min distance   the smallest vertex–triangle or edge–edge distance between primitives
 *                  sharing no vertex, over the pairs within D = 10 η (refitted BVHs, exact
 *                  closest points); D in the table means "nothing came closer than D".
 * How each measure is computed and read: papers/bridson2002-collisions.md
 * ("Implementation notes: experiments/collisions.c").
 *
 * Their cost is reported apart (check_ms_per_step); ms/step is solver and pipeline,
 * collision ms/step the pipeline or the contact model alone (its caps.contact_timers);
 * also the solver's inner iterations per step and the steps it ended short of its
 * tolerance. Writes OUT/collisions/summary.tsv (through ".partial"), a table on stdout,
 * per run OUT/collisions/SCENE/SOLVER-CONFIG.tsv, its log and collision log, and per scene
 * and solver SCENE/SOLVER.png (gnuplot, experiments/plots/collisions.gp) unless --no-plot.
 * A run that diverges, or that the scene or the solver's create refuses, is a row with
 * that status. */
#include "cli.h"

#include "weft_broadphase.h"
#include "weft_collision.h"
#include "weft_geometry.h"
#include "weft_solvers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: collisions [options]\n"
    "Runs each scene with each solver under six configurations: five of the collision\n"
    "pipeline (none, bridson, no_repulsions, no_ccd, no_zones) and ipc (no pipeline;\n"
    "[contact] model = ipc at its own barrier_distance, the colliders' friction as the\n"
    "scene gives it and cloth-cloth friction the pipeline's [collision] friction; IPC is\n"
    "inelastic: a scene with restitution gets a refused row, as does a solver that does not\n"
    "run the model). Reports per run the steps done, the smallest distance between\n"
    "non-adjacent primitives, the steps that ended with intersecting triangles, the steps the\n"
    "pipeline left unresolved, inner (Newton) iterations per step, the steps the solver\n"
    "ended short of its tolerance, and the time spent in collision handling (the pipeline's\n"
    "or the contact model's). Writes OUT/collisions/summary.tsv and per-run files.\n"
    "\n"
    "  --scenes A,B,...       built-in scenes or .ini files (default cloth_on_cloth,\n"
    "                         twisting_cloth,fast_drop_through_thin_sheet,spinning_sphere,\n"
    "                         sheet_stack); --scene A: one\n"
    "  --solvers A,B,...      solvers (default pbd_gauss_seidel,pbd_jacobi,newton_euler:\n"
    "                         newton_euler runs ipc)\n"
    "  --configs A,B,...      configurations to run, in the table's order (default all:\n"
    "                         none,bridson,no_repulsions,no_ccd,no_zones,ipc); e.g. ipc\n"
    "                         with --iterations 50 tables Newton's capped steps per scene\n"
    "  --steps N              time steps (default: each scene's)\n"
    "  --iterations N         inner iterations per step (default: each scene's)\n"
    "  --threads N            OpenMP threads for parallel solvers\n"
    "  --set SECTION.KEY=VAL  override a value of every scene (repeatable); the\n"
    "                         configurations set collision.pipeline, repulsions, ccd,\n"
    "                         impact_zones and contact.model themselves (ipc also\n"
    "                         contact.friction, unless given here)\n"
    "  --out DIR              results directory (default results)\n"
    "  --no-plot              skip the figures\n"
    "  -h, --help             this text\n";

#define DEFAULT_SCENES \
    "cloth_on_cloth,twisting_cloth,fast_drop_through_thin_sheet,spinning_sphere,sheet_stack"
#define DEFAULT_SOLVERS "pbd_gauss_seidel,pbd_jacobi,newton_euler"
#define MAX_LIST 16
#define CAP_PER_THICKNESS 10.0 /* D = 10 η */
/* Path buffers: the results directory (--out is at most 1000 characters), a scene's
 * directory under it, a run's base name, and files named after it. */
enum { TOP_LEN = 1100, DIR_LEN = 1300, BASE_LEN = 1500, FILE_LEN = 1600 };

/* A configuration: its name and the overrides that make it; cloth_friction: it also sets
 * [contact] friction to the scene's [collision] friction (the pipeline's cloth–cloth μ),
 * so its contacts have the scene's friction as the pipeline's do (scene_friction). */
typedef struct config {
    const char *name;
    const char *sets[4];
    bool cloth_friction;
} config;

static const config configs[] = {
    {.name = "none", .sets = {"collision.pipeline=none"}},
    {.name = "bridson",
     .sets = {"collision.pipeline=bridson", "collision.repulsions=true", "collision.ccd=true",
              "collision.impact_zones=true"}},
    {.name = "no_repulsions",
     .sets = {"collision.pipeline=bridson", "collision.repulsions=false", "collision.ccd=true",
              "collision.impact_zones=true"}},
    {.name = "no_ccd",
     .sets = {"collision.pipeline=bridson", "collision.repulsions=true", "collision.ccd=false",
              "collision.impact_zones=true"}},
    {.name = "no_zones",
     .sets = {"collision.pipeline=bridson", "collision.repulsions=true", "collision.ccd=true",
              "collision.impact_zones=false"}},
    {.name = "ipc",
     .sets = {"collision.pipeline=none", "contact.model=ipc"},
     .cloth_friction = true},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

/* Splits a comma-separated list into at most MAX_LIST names (pointers into buf). */
static int split_list(char *buf, const char *what, char **names) {
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        if (n == MAX_LIST) {
            fprintf(stderr, "error: %s: at most %d names\n", what, MAX_LIST);
            return -1;
        }
        names[n++] = tok;
    }
    if (n == 0) fprintf(stderr, "error: %s: empty list\n", what);
    return n > 0 ? n : -1;
}

/* ------------------------------------------------------------------------------ */
/* Measuring a run after every step                                                */
/* ------------------------------------------------------------------------------ */

typedef struct watch {
    FILE *steps;                /* per-step rows */
    weft_bvh *bvh;              /* the cloth's */
    weft_bvh **obvh;            /* each obstacle's */
    double **ox;                /* each obstacle's positions at the step's end */
    const weft_mesh **omesh;    /* each obstacle's mesh */
    weft_collision_pairs pairs; /* reused */
    double cap;                 /* D, m */
    double min_dist;            /* over the run, m (cap if nothing came closer) */
    int intersecting_steps;
    long max_intersections;
    double check_s; /* time spent measuring, s */
    bool failed;    /* a measurement failed (out of memory) */
    char why[512];
} watch;

/* Smallest distance of the candidate pairs in w->pairs: vt and ee of the cloth (ma at
 * xa) against mb at xb (the cloth itself, or an obstacle); tv pairs are (triangle of ma,
 * vertex of mb). */
static double pairs_min(const watch *w, const weft_mesh *ma, const double *xa, const weft_mesh *mb,
                        const double *xb) {
    double best = INFINITY, bary[3], dir[3], s, u;
    for (int i = 0; i < w->pairs.vt.n; i++) {
        const weft_pair q = w->pairs.vt.pair[i];
        const int *t = &mb->tri[3 * q.b];
        best = fmin(best, weft_point_triangle_closest(&xa[3 * q.a], &xb[3 * t[0]], &xb[3 * t[1]],
                                                      &xb[3 * t[2]], bary, dir));
    }
    for (int i = 0; i < w->pairs.tv.n; i++) {
        const weft_pair q = w->pairs.tv.pair[i];
        const int *t = &ma->tri[3 * q.a];
        best = fmin(best, weft_point_triangle_closest(&xb[3 * q.b], &xa[3 * t[0]], &xa[3 * t[1]],
                                                      &xa[3 * t[2]], bary, dir));
    }
    for (int i = 0; i < w->pairs.ee.n; i++) {
        const weft_pair q = w->pairs.ee.pair[i];
        const int *e = &ma->edge[2 * q.a], *f = &mb->edge[2 * q.b];
        best = fmin(best, weft_edge_edge_closest(&xa[3 * e[0]], &xa[3 * e[1]], &xb[3 * f[0]],
                                                 &xb[3 * f[1]], &s, &u, dir));
    }
    return best;
}

/* Smallest distance between non-adjacent primitives at the model's positions, capped
 * at w->cap; NAN when a query fails. */
static double min_distance(watch *w, const weft_model *m) {
    weft_error err = {{0}};
    if (weft_bvh_refit(w->bvh, m->x, NULL, w->cap, &err) != WEFT_OK ||
        weft_bvh_pairs(w->bvh, NULL, &w->pairs, &err) != WEFT_OK) {
        snprintf(w->why, sizeof w->why, "%s", err.msg);
        return NAN;
    }
    double best = pairs_min(w, &m->mesh, m->x, &m->mesh, m->x);
    for (int k = 0; k < m->nobstacles; k++) {
        if (weft_bvh_refit(w->obvh[k], w->ox[k], NULL, w->cap, &err) != WEFT_OK ||
            weft_bvh_pairs(w->bvh, w->obvh[k], &w->pairs, &err) != WEFT_OK) {
            snprintf(w->why, sizeof w->why, "%s", err.msg);
            return NAN;
        }
        best = fmin(best, pairs_min(w, &m->mesh, m->x, w->omesh[k], w->ox[k]));
    }
    return fmin(best, w->cap);
}

/* The on_step callback: intersections and minimum distance at the step's end. */
static void measure(void *user, const weft_model *m, int step,
                    const void *stage_stats) {
    watch *w = user;
    const weft_collision_stats *cs = stage_stats; /* the Bridson stage's, or NULL */
    if (w->failed) return;
    double t0 = weft_now();
    for (int k = 0; k < m->nobstacles; k++)
        weft_obstacle_positions(&m->obstacles[k], m->t, w->ox[k]);
    long isect = weft_count_intersections(&m->mesh, m->x, m->nobstacles, w->omesh,
                                          (const double *const *)w->ox);
    double d = min_distance(w, m);
    if (isect < 0 || isnan(d)) {
        w->failed = true;
        if (isect < 0) snprintf(w->why, sizeof w->why, "intersection count failed");
        return;
    }
    w->min_dist = fmin(w->min_dist, d);
    if (isect > 0) w->intersecting_steps++;
    if (isect > w->max_intersections) w->max_intersections = isect;
    fprintf(w->steps, "%d\t%.6f\t%ld\t%.6e\t%.4f\t%ld\n", step, m->t, isect, d,
            cs ? 1e3 * cs->seconds : 0.0, cs ? cs->unresolved : 0L);
    w->check_s += weft_now() - t0;
}

/* Sets up the measurement of model m; false (with a message) on failure. */
static bool watch_open(watch *w, const weft_model *m, double thickness, const char *steps_path) {
    memset(w, 0, sizeof *w);
    weft_error err = {{0}};
    w->cap = CAP_PER_THICKNESS * thickness;
    w->min_dist = w->cap;
    int no = m->nobstacles;
    w->obvh = calloc((size_t)(no > 0 ? no : 1), sizeof *w->obvh);
    w->ox = calloc((size_t)(no > 0 ? no : 1), sizeof *w->ox);
    w->omesh = calloc((size_t)(no > 0 ? no : 1), sizeof *w->omesh);
    if (!w->obvh || !w->ox || !w->omesh) {
        fprintf(stderr, "error: out of memory\n");
        return false;
    }
    w->bvh = weft_bvh_create(&m->mesh, NULL, &err);
    for (int k = 0; k < no && w->bvh; k++) {
        w->omesh[k] = &m->obstacles[k].mesh;
        w->ox[k] = malloc(3 * (size_t)m->obstacles[k].mesh.nv * sizeof *w->ox[k]);
        w->obvh[k] = weft_bvh_create(&m->obstacles[k].mesh, NULL, &err);
        if (!w->ox[k] || !w->obvh[k]) {
            fprintf(stderr, "error: obstacle %s: %s\n", m->obstacles[k].name,
                    w->ox[k] ? err.msg : "out of memory");
            return false;
        }
    }
    if (!w->bvh) {
        fprintf(stderr, "error: %s\n", err.msg);
        return false;
    }
    char tmp[FILE_LEN + 16];
    snprintf(tmp, sizeof tmp, "%s.partial", steps_path);
    w->steps = fopen(tmp, "w");
    if (!w->steps) {
        fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
        return false;
    }
    fprintf(w->steps,
            "# after each step: intersecting triangle pairs; smallest vertex-triangle or "
            "edge-edge distance between non-adjacent primitives, capped at %.6g m (10 x "
            "thickness); collision handling time; collisions the pipeline left\n",
            w->cap);
    fprintf(w->steps, "step\tt_s\tintersections\tmin_dist_m\tcollision_ms\tunresolved\n");
    return true;
}

/* Closes the per-step file (renamed into place when complete) and frees w. */
static int watch_close(watch *w, const weft_model *m, const char *steps_path, bool complete) {
    int rc = 0;
    if (w->steps) {
        char tmp[FILE_LEN + 16];
        snprintf(tmp, sizeof tmp, "%s.partial", steps_path);
        if (!complete) fprintf(w->steps, "# status=incomplete\n");
        if (fclose(w->steps) != 0 || (complete && rename(tmp, steps_path) != 0)) {
            fprintf(stderr, "error: %s: cannot write\n", steps_path);
            rc = -1;
        }
    }
    weft_bvh_free(&w->bvh);
    for (int k = 0; k < m->nobstacles; k++) {
        if (w->obvh) weft_bvh_free(&w->obvh[k]);
        if (w->ox) free(w->ox[k]);
    }
    free(w->obvh), free(w->ox), free(w->omesh);
    weft_collision_pairs_free(&w->pairs);
    return rc;
}

/* ------------------------------------------------------------------------------ */
/* Runs and the summary                                                            */
/* ------------------------------------------------------------------------------ */

/* What the ipc configuration takes from a scene (config.cloth_friction): the override
 * "contact.friction=μ", μ the scene's [collision] friction, the pipeline's cloth–cloth
 * coefficient; empty when the command line sets contact.friction itself. */
typedef struct scene_sets {
    char friction[64];
} scene_sets;

/* Fills ss from the scene's config cfg (built with the command line's overrides and the
 * pipeline on, so its [collision] keys are read). */
static void scene_sets_make(scene_sets *ss, const weft_cli *cli, const weft_config *cfg) {
    ss->friction[0] = '\0';
    for (int i = 0; i < cli->nset; i++)
        if (!strncmp(cli->set[i], "contact.friction=", 17)) return;
    double mu;
    if (weft_config_value(cfg, "collision", "friction", &mu))
        snprintf(ss->friction, sizeof ss->friction, "contact.friction=%.17g", mu);
}

/* The command line of scene `scene` under configuration c: cli's overrides, then c's (and
 * ss's when c takes the scene's cloth friction; ss may be NULL), into one (pointing into c
 * and ss). */
static void config_cli(const weft_cli *cli, const char *scene, const config *c,
                       const scene_sets *ss, weft_cli *one) {
    *one = *cli;
    one->scene = scene;
    for (int i = 0; i < 4 && c->sets[i]; i++) one->set[one->nset++] = c->sets[i];
    if (ss && c->cloth_friction && ss->friction[0]) one->set[one->nset++] = ss->friction;
}

/* Builds scene `scene` with the command line's overrides, then the configuration's. */
static int build(const weft_cli *cli, const char *scene, const config *c, const scene_sets *ss,
                 weft_model *m, weft_config **cfg, weft_error *err) {
    weft_cli one;
    config_cli(cli, scene, c, ss, &one);
    return weft_cli_build(&one, m, cfg, err);
}

/* One row of the summary: what a run did. */
typedef struct row {
    const char *scene, *solver, *config;
    const char *status; /* complete, diverged, refused, error */
    int steps, steps_done, vertices, triangles;
    double thickness, min_dist;
    int intersecting_steps;
    long max_intersections;
    int unresolved_steps;
    double iterations;  /* inner iterations per step done, mean */
    int unconverged;    /* steps the solver ended short of its tolerance (cap or stall) */
    double ms_per_step, collision_ms, collision_share, check_ms;
} row;

static void print_header(FILE *tsv) {
    fprintf(tsv, "scene\tsolver\tconfig\tstatus\tsteps\tsteps_done\tvertices\ttriangles\t"
                 "thickness_m\tmin_dist_m\tintersecting_steps\tmax_intersections\t"
                 "unresolved_steps\titerations_per_step\tunconverged_steps\tms_per_step\t"
                 "collision_ms_per_step\tcollision_share\tcheck_ms_per_step\n");
    printf("%-22s %-17s %-14s %-9s %11s %11s %9s %10s %9s %9s %10s %8s %8s\n", "scene",
           "solver", "config", "status", "steps", "min dist m", "isect st", "unresolved",
           "its/step", "unconv st", "coll ms/st", "share", "ms/step");
}

static void print_row(FILE *tsv, const row *r) {
    char steps[32];
    snprintf(steps, sizeof steps, "%d/%d", r->steps_done, r->steps);
    if (r->steps_done == 0) {
        fprintf(tsv, "%s\t%s\t%s\t%s\t%d\t0\t%d\t%d\t%g\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\n", r->scene,
                r->solver, r->config, r->status, r->steps, r->vertices, r->triangles, r->thickness);
        printf("%-22s %-17s %-14s %-9s %11s\n", r->scene, r->solver, r->config, r->status, steps);
    } else {
        fprintf(
            tsv,
            "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%g\t%.6e\t%d\t%ld\t%d\t%.3f\t%d\t%.4f\t%.4f\t"
            "%.4f\t%.4f\n",
            r->scene, r->solver, r->config, r->status, r->steps, r->steps_done, r->vertices,
            r->triangles, r->thickness, r->min_dist, r->intersecting_steps, r->max_intersections,
            r->unresolved_steps, r->iterations, r->unconverged, r->ms_per_step, r->collision_ms,
            r->collision_share, r->check_ms);
        printf("%-22s %-17s %-14s %-9s %11s %11.3e %9d %10d %9.2f %9d %10.3f %8.3f %8.3f\n",
               r->scene, r->solver, r->config, r->status, steps, r->min_dist,
               r->intersecting_steps, r->unresolved_steps, r->iterations, r->unconverged,
               r->collision_ms, r->collision_share, r->ms_per_step);
    }
    fflush(stdout);
}

/* Runs one scene × solver × configuration into row r; returns 0, or 1 when the run
 * failed other than by diverging or by being refused, or WEFT_ERR_INTERRUPTED. */
static int run_one(const weft_cli *cli, const char *scene, const weft_solver_type *solver,
                   const config *c, const scene_sets *ss, const char *dir, row *r) {
    weft_error err = {{0}};
    weft_model m;
    weft_config *cfg = NULL;
    r->status = "error";
    int rc = build(cli, scene, c, ss, &m, &cfg, &err);
    /* The scene built as given: what fails now is this configuration (a mesh obstacle
     * without the pipeline), or the solver refuses the model at create (a contact model
     * it does not run, colliders IPC cannot take). */
    if (rc == WEFT_OK && (rc = weft_run_probe(solver, &m, cfg, &err)) != WEFT_OK) {
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    if (rc != WEFT_OK) {
        if (rc != WEFT_ERR_INPUT) {
            fprintf(stderr, "error: %s %s %s: %s\n", scene, solver->name, c->name,
                    weft_cli_unprefixed(err.msg, solver->name));
            return 1;
        }
        fprintf(stderr, "note: %s %s %s: refused: %s\n", scene, solver->name, c->name,
                weft_cli_unprefixed(err.msg, solver->name));
        r->status = "refused";
        return 0;
    }
    r->steps = weft_cli_setting(cfg, "scene", "steps", 0), r->vertices = m.n, r->triangles = m.mesh.nt;
    r->thickness = 1e-3;
    weft_config_value(cfg, "collision", "thickness", &r->thickness);
    char base[BASE_LEN], steps_path[FILE_LEN], log_path[FILE_LEN];
    snprintf(base, sizeof base, "%s/%s-%s", dir, solver->name, c->name);
    snprintf(steps_path, sizeof steps_path, "%s.tsv", base);
    snprintf(log_path, sizeof log_path, "%s.log", base);
    watch w;
    if (!watch_open(&w, &m, r->thickness, steps_path)) {
        watch_close(&w, &m, steps_path, false);
        weft_model_free(&m);
        weft_config_free(&cfg);
        return 1;
    }
    weft_run_options opt = weft_run_options_default();
    opt.config = cfg;
    opt.log_level = WEFT_LOG_STEPS;
    opt.log_path = log_path;
    opt.on_step = measure;
    opt.user = &w;
    opt.progress = true;
    weft_run_result res;
    rc = weft_run(solver, &m, &opt, &res, &err);
    int status = 0;
    if (rc == WEFT_OK) {
        r->status = "complete";
    } else if (rc == WEFT_ERR_DIVERGED) {
        r->status = "diverged";
        fprintf(stderr, "note: %s %s %s: %s\n", scene, solver->name, c->name,
                weft_cli_unprefixed(err.msg, solver->name));
    } else {
        fprintf(stderr, "error: %s %s %s: %s\n", scene, solver->name, c->name,
                weft_cli_unprefixed(err.msg, solver->name));
        status = rc == WEFT_ERR_INTERRUPTED ? WEFT_ERR_INTERRUPTED : 1;
    }
    if (w.failed) {
        fprintf(stderr, "error: %s %s %s: measuring: %s\n", scene, solver->name, c->name, w.why);
        r->status = "error";
        status = status ? status : 1;
    }
    r->steps_done = res.steps_done;
    r->min_dist = w.min_dist;
    r->intersecting_steps = w.intersecting_steps;
    r->max_intersections = w.max_intersections;
    r->unresolved_steps = res.collision_failures;
    r->iterations = res.steps_done ? (double)res.iterations / res.steps_done : 0.0;
    r->unconverged = res.steps_capped + res.steps_stalled;
    r->ms_per_step = res.ms_per_step;
    /* Collision handling: the post-step pipeline's, and the solver's contact model's. */
    const double coll_s = res.collision_s + weft_solver_contact_seconds(solver, &res.profile);
    r->collision_ms = res.steps_done ? 1e3 * coll_s / res.steps_done : 0.0;
    r->collision_share = res.wall_s > 0 ? coll_s / res.wall_s : 0.0;
    r->check_ms = res.steps_done ? 1e3 * w.check_s / res.steps_done : 0.0;
    /* BASE.ini: the run's resolved input and provenance; compare --scene BASE.ini --log
     * steps reruns it (the settings it read are those cfg marks taken). */
    weft_cli one;
    config_cli(cli, scene, c, ss, &one);
    char ini_path[FILE_LEN];
    snprintf(ini_path, sizeof ini_path, "%s.ini", base);
    weft_error ierr = {{0}};
    if (weft_cli_write_config(&one, ini_path, solver->name, &m, cfg, 0, NULL, &ierr) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", ierr.msg);
        status = status ? status : 1;
    }
    if (watch_close(&w, &m, steps_path, status == 0) != 0 && status == 0) status = 1;
    weft_model_free(&m);
    weft_config_free(&cfg);
    return status;
}

int main(int argc, char **argv) {
    weft_cli cli;
    weft_cli_parse_scenes(argc, argv, &cli, usage);
    weft_install_interrupt_handler();
    if (cli.scenes && cli.scene_given) {
        fprintf(stderr, "error: --scene and --scenes: give one of them\n");
        return 2;
    }
    if (cli.nset > 60) {
        fprintf(stderr, "error: --set: at most 60 here (the configurations add theirs)\n");
        return 2;
    }
    char scene_buf[2048], solver_buf[512];
    snprintf(scene_buf, sizeof scene_buf, "%s",
             cli.scenes        ? cli.scenes
             : cli.scene_given ? cli.scene
                               : DEFAULT_SCENES);
    snprintf(solver_buf, sizeof solver_buf, "%s", cli.solvers ? cli.solvers : DEFAULT_SOLVERS);
    char *scenes[MAX_LIST], *names[MAX_LIST];
    int nscenes = split_list(scene_buf, "--scenes", scenes);
    int nsolvers = split_list(solver_buf, "--solvers", names);
    if (nscenes < 0 || nsolvers < 0) return 2;
    /* The configurations to run: those --configs names (else all), in the table's order. */
    bool wanted[NCONFIGS];
    for (int c = 0; c < NCONFIGS; c++) wanted[c] = !cli.configs;
    if (cli.configs) {
        char config_buf[512], *cnames[MAX_LIST];
        snprintf(config_buf, sizeof config_buf, "%s", cli.configs);
        int n = split_list(config_buf, "--configs", cnames);
        if (n < 0) return 2;
        for (int j = 0; j < n; j++) {
            int c = 0;
            while (c < NCONFIGS && strcmp(configs[c].name, cnames[j]) != 0) c++;
            if (c == NCONFIGS) {
                fprintf(stderr, "error: --configs: unknown configuration '%s' (known:",
                        cnames[j]);
                for (int k = 0; k < NCONFIGS; k++) fprintf(stderr, " %s", configs[k].name);
                fprintf(stderr, ")\n");
                return 2;
            }
            wanted[c] = true;
        }
    }
    const config *run_configs[NCONFIGS];
    int nconfigs = 0;
    for (int c = 0; c < NCONFIGS; c++)
        if (wanted[c]) run_configs[nconfigs++] = &configs[c];
    const weft_solver_type *solvers[MAX_LIST];
    for (int k = 0; k < nsolvers; k++) {
        solvers[k] = weft_solver_find(names[k]);
        if (!solvers[k]) {
            fprintf(stderr, "error: --solvers: unknown solver '%s' (known:", names[k]);
            for (const weft_solver_type *const *s = weft_solver_registry; *s; s++)
                fprintf(stderr, " %s", (*s)->name);
            fprintf(stderr, ")\n");
            return 2;
        }
    }
    /* Every scene must build, with the command line's overrides alone, before anything
     * runs; its name (the model's) names its results directory. */
    static const config as_given = {.name = "as given"};
    char scene_names[MAX_LIST][128];
    row scene_rows[MAX_LIST]; /* what a refused run's row says of its scene */
    static scene_sets scene_ss[MAX_LIST];
    for (int i = 0; i < nscenes; i++) {
        weft_model m;
        weft_config *cfg = NULL;
        weft_error err = {{0}};
        if (build(&cli, scenes[i], &as_given, NULL, &m, &cfg, &err) != WEFT_OK) {
            fprintf(stderr, "error: %s\n", err.msg);
            return 1;
        }
        scene_sets_make(&scene_ss[i], &cli, cfg);
        snprintf(scene_names[i], sizeof scene_names[i], "%s", m.scene_name);
        scene_rows[i] = (row){.steps = weft_cli_setting(cfg, "scene", "steps", 0),
                              .vertices = m.n,
                              .triangles = m.mesh.nt,
                              .thickness = 1e-3};
        weft_config_value(cfg, "collision", "thickness", &scene_rows[i].thickness);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    if (strlen(cli.out) > 1000) {
        fprintf(stderr, "error: --out: a path of at most 1000 characters\n");
        return 2;
    }
    char top[TOP_LEN];
    snprintf(top, sizeof top, "%s/collisions", cli.out);
    if (weft_mkdirs(top) != 0) return 1;
    char summary_path[FILE_LEN], summary_tmp[FILE_LEN + 16];
    snprintf(summary_path, sizeof summary_path, "%s/summary.tsv", top);
    snprintf(summary_tmp, sizeof summary_tmp, "%s.partial", summary_path);
    FILE *tsv = fopen(summary_tmp, "w");
    if (!tsv) {
        fprintf(stderr, "error: %s: cannot write: %s\n", summary_tmp, strerror(errno));
        return 1;
    }
    fprintf(tsv,
            "# collisions: weft %s; min_dist_m: smallest vertex-triangle or edge-edge "
            "distance between non-adjacent primitives after any step, capped at 10 x "
            "thickness_m; intersecting_steps: steps that ended with intersecting "
            "triangles; unresolved_steps: steps the pipeline gave up on; "
            "iterations_per_step: the solver's inner iterations; unconverged_steps: steps "
            "it ended at its iteration cap or stalled short of its tolerance; times are wall "
            "time per step done, collision_ms_per_step the pipeline's or the contact model's; ipc: "
            "[contact] model = ipc at its default barrier_distance, colliders' friction as "
            "the scene's, cloth-cloth friction the scene's [collision] friction, restitution "
            "refused (IPC is inelastic)\n",
            WEFT_VERSION);
    print_header(tsv);
    int status = 0;
    bool interrupted = false;
    for (int i = 0; i < nscenes && !interrupted; i++) {
        char dir[DIR_LEN];
        snprintf(dir, sizeof dir, "%s/%s", top, scene_names[i]);
        if (weft_mkdirs(dir) != 0) {
            status = 1;
            break;
        }
        for (int k = 0; k < nsolvers && !interrupted; k++) {
            for (int c = 0; c < nconfigs && !interrupted; c++) {
                row r = scene_rows[i];
                r.scene = scene_names[i], r.solver = solvers[k]->name;
                r.config = run_configs[c]->name;
                int rc = run_one(&cli, scenes[i], solvers[k], run_configs[c],
                                 &scene_ss[i], dir, &r);
                if (rc == WEFT_ERR_INTERRUPTED) {
                    interrupted = true;
                    break;
                }
                if (rc != 0) status = 1;
                print_row(tsv, &r);
            }
        }
    }
    if (interrupted || status != 0) {
        fprintf(tsv, "# status=incomplete reason=%s\n", interrupted ? "interrupted" : "error");
        fclose(tsv);
        fprintf(stderr, "error: %s; %s kept\n",
                interrupted ? "interrupted" : "some runs failed (see above)", summary_tmp);
        return 1;
    }
    if (fclose(tsv) != 0 || rename(summary_tmp, summary_path) != 0) {
        fprintf(stderr, "error: %s: cannot write\n", summary_path);
        return 1;
    }
    printf("\nsummary: %s\n", summary_path);
    if (cli.no_plot) return 0;

    /* One figure per scene and solver: minimum distance and intersections per step. */
    char script[1100];
    snprintf(script, sizeof script, "%s/collisions.gp", weft_plots_dir());
    for (int i = 0; i < nscenes; i++)
        for (int k = 0; k < nsolvers; k++) {
            char dir[DIR_LEN], files[8 * FILE_LEN] = "", cnames[256] = "", out[FILE_LEN];
            snprintf(dir, sizeof dir, "%s/%s", top, scene_names[i]);
            for (int c = 0; c < nconfigs; c++) { /* this run's: not a folder's older files */
                char f[FILE_LEN];
                snprintf(f, sizeof f, "%s/%s-%s.tsv", dir, solvers[k]->name,
                         run_configs[c]->name);
                if (access(f, R_OK) != 0) continue; /* refused: no steps */
                size_t l = strlen(files);
                snprintf(files + l, sizeof files - l, "%s%s", l ? " " : "", f);
                l = strlen(cnames);
                snprintf(cnames + l, sizeof cnames - l, "%s%s", l ? " " : "",
                         run_configs[c]->name);
            }
            if (!files[0]) continue;
            snprintf(out, sizeof out, "%s/%s.png", dir, solvers[k]->name);
            char defs[sizeof files + sizeof out + 512];
            snprintf(defs, sizeof defs,
                     "files='%s'; names='%s'; out='%s'; title='%s, %s'; note='%s'", files,
                     cnames, out, scene_names[i], solvers[k]->name,
                     strstr(cnames, "ipc") ? "ipc: no pipeline, [contact] model = ipc "
                                             "(barrier; friction as the scene gives it)" : "");
            if (weft_gnuplot(defs, script) != 0) {
                fprintf(stderr, "error: gnuplot failed on %s\n", script);
                return 1;
            }
            printf("figure:  %s\n", out);
        }
    return 0;
}
