/* run.c — the simulation loop shared by every experiment: create the solver, step it
 * m->steps times, and turn the inner iterations it reports into metrics and log rows.
 *
 * When the scene enables a collision pipeline ([collision] pipeline = bridson), it runs
 * after every solver step, whatever the solver (lib/collision/weft_collision.h, the slides'
 * "separation from internal dynamics"): x0 = the positions before the step, x1 = m->x
 * after it, v = m->v, h = m->dt; it moves m->x to collision-free positions and corrects
 * m->v by (x_new − x1)/h. Its per-step statistics go to "<log>.collisions", written
 * like the main log (".partial" until the run completes), with the columns
 *   step proximity_pairs swept_pairs repulsions ccd_hits ccd_iterations zone_iterations
 *   zones max_zone collider_contacts unresolved remaining ms
 * (remaining = -1 unless count_intersections is set; ms = collision time per step). The
 * main log's columns are unchanged: its rows are the solver's inner iterations, taken
 * before the pipeline moves the positions. Collision time counts as solver time; the
 * intersection count and the log rows do not. A step whose pipeline gives up at its
 * caps is counted in weft_run_result.collision_failures and in the `unresolved` column.
 * The model's triangle-mesh obstacles (weft_obstacle) are added to the pipeline as
 * obstacles 0, 1, ... in model order and placed before each of its steps on their paths
 * x_rest + u t: x0 at the step's start time t, x1 at t + h. Without the pipeline a model
 * with obstacles is refused (the solvers do not see them). After each step an optional
 * callback (weft_run_options.on_step) sees the model and the step's collision statistics;
 * its time is excluded like the metrics'.
 *
 * Wall time in the log is solver time only: the time spent computing metrics and
 * writing rows is measured and subtracted, so logging does not distort the
 * per-second convergence plots. A run stops with an error when a position becomes
 * non-finite (divergence) or on SIGINT/SIGTERM, and its log is closed as incomplete. */
#include "weft.h"
#include "weft_collision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct weft_monitor {
    const weft_model *m;
    weft_log *log;
    weft_log *linear; /* "<log>.linear", for solvers with linear_log */
    weft_log_level level;
    int step, last_iter, last_step;
    double *xn, *xt, *scratch; /* state at step start, inertial target, gradient scratch */
    double h_target; /* step h of the residual's G (m->dt unless the solver sets it) */
    double r0;
    double t_start, t_excluded;
    weft_metrics last;
    bool have_last;
    bool nonfinite; /* a metric came out NaN or inf */
};

void weft_monitor_iteration(weft_monitor *mon, const double *x, int iter) {
    if (mon) weft_monitor_report(mon, x, iter, iter == mon->last_iter);
}

void weft_monitor_set_target(weft_monitor *mon, const double *xt, double h) {
    if (!mon) return;
    memcpy(mon->xt, xt, 3 * (size_t)mon->m->n * sizeof *xt);
    mon->h_target = h;
}

void weft_monitor_linear(weft_monitor *mon, int iter, int linear_iter, double rel_residual,
                         const char *status) {
    if (!mon || !mon->linear || mon->level != WEFT_LOG_ITERATIONS) return;
    double t0 = weft_now();
    /* Never write NaN: a non-finite residual is logged as -1 with its status word. */
    weft_log_printf(mon->linear, "%d %d %d %.6e %s\n", mon->step, iter, linear_iter,
                    isfinite(rel_residual) ? rel_residual : -1.0, status);
    mon->t_excluded += weft_now() - t0;
}

void weft_monitor_report(weft_monitor *mon, const double *x, int iter, bool final) {
    if (!mon) return;
    double t0 = weft_now();
    bool want = iter == 0 || mon->level == WEFT_LOG_ITERATIONS ||
                (final && (mon->level == WEFT_LOG_STEPS || mon->step == mon->last_step));
    if (want) {
        weft_metrics mm;
        weft_metrics_compute(mon->m, x, mon->xn, mon->xt, mon->h_target, mon->r0, mon->scratch,
                             &mm);
        if (iter == 0) {
            mon->r0 = mm.residual;
            mm.residual_rel = mm.residual > 0 ? 1.0 : 0.0;
        }
        if (!isfinite(mm.residual) || !isfinite(mm.residual_rel) || !isfinite(mm.energy) ||
            !isfinite(mm.cmax)) {
            mon->nonfinite = true; /* never write NaN: the run loop stops with a message */
        } else {
            double wall = t0 - mon->t_start - mon->t_excluded;
            if (mon->log && (mon->level == WEFT_LOG_ITERATIONS ||
                             (mon->level == WEFT_LOG_STEPS && final)))
                weft_log_row(mon->log, mon->step, iter, wall, &mm);
            if (final) {
                mon->last = mm;
                mon->have_last = true;
            }
        }
    }
    mon->t_excluded += weft_now() - t0;
}

int weft_solver_iterations(const weft_solver_type *s, const weft_model *m) {
    return s->fixed_iterations > 0 ? s->fixed_iterations : m->solver.iterations;
}

weft_run_options weft_run_options_default(void) {
    return (weft_run_options){.log_level = WEFT_LOG_ITERATIONS};
}

/* True when every coordinate is finite and within 1e6 m of the origin. */
static bool state_ok(const weft_model *m) {
    for (int i = 0; i < 3 * m->n; i++)
        if (!isfinite(m->x[i]) || fabs(m->x[i]) > 1e6 || !isfinite(m->v[i])) return false;
    return true;
}

int weft_run(const weft_solver_type *solver, weft_model *m, const weft_run_options *opt,
             weft_run_result *res, weft_error *err) {
    memset(res, 0, sizeof *res);
    int rc = WEFT_OK;
    const char *reason = NULL;
    size_t n3 = 3 * (size_t)m->n;
    const int iterations = weft_solver_iterations(solver, m);
    weft_monitor mon = {.m = m, .level = opt->log_level, .last_iter = iterations,
                        .last_step = m->steps - 1};
    mon.xn = malloc(n3 * sizeof(double));
    mon.xt = malloc(n3 * sizeof(double));
    mon.scratch = malloc(n3 * sizeof(double));
    void *state = NULL;
    weft_collision_pipeline *pipe = NULL;
    weft_log *clog = NULL;
    double *obx0 = NULL, *obx1 = NULL; /* an obstacle's positions at a step's start and end */
    int obnv = 1;
    for (int k = 0; k < m->nobstacles; k++)
        if (m->obstacles[k].mesh.nv > obnv) obnv = m->obstacles[k].mesh.nv;
    if (m->nobstacles > 0) {
        obx0 = malloc(3 * (size_t)obnv * sizeof *obx0);
        obx1 = malloc(3 * (size_t)obnv * sizeof *obx1);
    }
    if (!mon.xn || !mon.xt || !mon.scratch || (m->nobstacles > 0 && (!obx0 || !obx1))) {
        rc = weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (m->nobstacles > 0 && m->collision.pipeline != WEFT_PIPELINE_BRIDSON) {
        rc = weft_fail(err, WEFT_ERR_INPUT,
                       "obstacle '%s': triangle-mesh obstacles need the collision pipeline "
                       "([collision] pipeline = bridson)",
                       m->obstacles[0].name);
        goto done;
    }
    state = solver->create(m, err);
    if (!state) {
        rc = WEFT_ERR_INPUT;
        goto done;
    }
    if (m->collision.pipeline == WEFT_PIPELINE_BRIDSON) {
        pipe = weft_collision_create(m, NULL, err);
        if (!pipe) {
            rc = WEFT_ERR_INPUT;
            goto done;
        }
        /* Obstacle k gets pipeline id k (ids count up from 0). */
        for (int k = 0; k < m->nobstacles; k++) {
            int id = weft_collision_add_obstacle(pipe, &m->obstacles[k].mesh,
                                                 m->obstacles[k].friction, err);
            if (id < 0) {
                rc = id;
                goto done;
            }
        }
    }
    if (opt->log_path && opt->log_level != WEFT_LOG_NONE) {
        char lines[12][160];
        const char *meta[40];
        int k = 0;
        snprintf(lines[k], 160, "scene=%s  solver=%s  paper=\"%s\"", m->scene_name, solver->name,
                 solver->paper);
        meta[k] = lines[k], k++;
        snprintf(lines[k], 160, "dt=%.17g  steps=%d  iterations=%d  omega=%.17g  threads=%d",
                 m->dt, m->steps, iterations, m->solver.omega, m->solver.threads);
        meta[k] = lines[k], k++;
        snprintf(lines[k], 160, "vertices=%d  edges=%d  hinges=%d  triangles=%d", m->n,
                 m->mesh.ne, m->mesh.nh, m->mesh.nt);
        if (m->mesh.ntet > 0) /* a solid: the triangles are its surface */
            snprintf(lines[k] + strlen(lines[k]), 160 - strlen(lines[k]), "  tetrahedra=%d",
                     m->mesh.ntet);
        meta[k] = lines[k], k++;
        snprintf(lines[k], 160, "k_stretch=%.17g  k_bending=%.17g  k_damping=%.17g  "
                 "k_pressure=%.17g  mapping=%d", m->pbd.k_stretch, m->pbd.k_bending,
                 m->pbd.k_damping, m->pbd.k_pressure, (int)m->pbd.stiffness_mapping);
        meta[k] = lines[k], k++;
        snprintf(lines[k], 160, "iteration=\"%s\"", solver->iteration);
        meta[k] = lines[k], k++;
        snprintf(lines[k], 160, "log=%s  (iter 0 = before the first inner iteration)",
                 opt->log_level == WEFT_LOG_STEPS ? "steps" : "iterations");
        meta[k] = lines[k], k++;
        for (const char *const *e = opt->meta; e && *e && k < 38; e++) meta[k++] = *e;
        meta[k] = NULL;
        char clines[2][200];
        if (m->collision.pipeline == WEFT_PIPELINE_BRIDSON && k < 37) {
            const weft_collision_settings *c = &m->collision;
            snprintf(clines[0], sizeof clines[0], "collision=bridson  thickness=%.6g  "
                     "friction=%.6g  repulsion_stiffness=%.6g  broad_phase=%s  max_iterations=%d",
                     c->thickness, c->friction, c->stiffness,
                     c->broad_phase == WEFT_BROAD_PHASE_HASH ? "hash" : "bvh", c->max_iterations);
            meta[k++] = clines[0];
            snprintf(clines[1], sizeof clines[1],
                     "collision_stages: repulsions=%s  ccd=%s  impact_zones=%s  obstacles=%d",
                     c->no_repulsions ? "off" : "on", c->no_ccd ? "off" : "on",
                     c->no_impact_zones ? "off" : "on", m->nobstacles);
            meta[k++] = clines[1];
            meta[k] = NULL;
        }
        char slines[2][200];
        if (solver->linear_log && k < 37) {
            const weft_solver_settings *so = &m->solver;
            static const char *const precond[] = {"none", "jacobi", "block_jacobi"};
            static const char *const hessian_name[] = {"projected", "exact", "clamp"};
            snprintf(slines[0], sizeof slines[0], "linear=%s  preconditioner=%s  "
                     "cg_tolerance=%.3g  cg_iterations=%d  tolerance=%.3g  hessian=%s",
                     so->linear == WEFT_LINEAR_PPCG ? "ppcg" : "cholmod",
                     precond[so->preconditioner % 3], so->cg_tolerance, so->cg_iterations,
                     so->tolerance,
                     hessian_name[so->hessian % 3]);
            meta[k++] = slines[0];
            snprintf(slines[1], sizeof slines[1], "damping_alpha=%.17g  damping_beta=%.17g",
                     so->damping_alpha, so->damping_beta);
            meta[k++] = slines[1];
            meta[k] = NULL;
        }
        mon.log = weft_log_open(opt->log_path, meta, err);
        if (!mon.log) {
            rc = WEFT_ERR_IO;
            goto done;
        }
        if (solver->linear_log && opt->log_level == WEFT_LOG_ITERATIONS) {
            char lpath[1200];
            snprintf(lpath, sizeof lpath, "%s.linear", opt->log_path);
            mon.linear = weft_log_open_columns(lpath, meta,
                                               "step iter linear_iter residual_rel status", err);
            if (!mon.linear) {
                rc = WEFT_ERR_IO;
                goto done;
            }
        }
        if (m->collision.pipeline == WEFT_PIPELINE_BRIDSON) {
            char cpath[1200];
            snprintf(cpath, sizeof cpath, "%s.collisions", opt->log_path);
            clog = weft_log_open_columns(cpath, meta,
                                         "step proximity_pairs swept_pairs repulsions ccd_hits "
                                         "ccd_iterations zone_iterations zones max_zone "
                                         "collider_contacts unresolved remaining ms", err);
            if (!clog) {
                rc = WEFT_ERR_IO;
                goto done;
            }
        }
    }

    bool tty = opt->progress && isatty(2);
    double last_print = 0.0;
    mon.t_start = weft_now();
    for (int s = 0; s < m->steps; s++) {
        if (weft_interrupted()) {
            rc = weft_fail(err, WEFT_ERR_INTERRUPTED, "interrupted at step %d of %d", s, m->steps);
            reason = "interrupted";
            break;
        }
        mon.step = s;
        const double t_begin = m->t; /* the step runs from t_begin to t_begin + dt */
        memcpy(mon.xn, m->x, n3 * sizeof(double));
        weft_inertial_target(m, m->x, m->v, mon.xt);
        mon.h_target = m->dt;
        /* With logging off, metrics are still taken on the last step for the summary. */
        bool monitored = opt->log_level != WEFT_LOG_NONE || s == m->steps - 1;
        rc = solver->step(state, m, monitored ? &mon : NULL, err);
        if (rc) {
            reason = "solver-error";
            break;
        }
        if (!state_ok(m) || mon.nonfinite) {
            rc = weft_fail(err, WEFT_ERR_DIVERGED,
                           "%s diverged at step %d (t = %.4g s): non-finite or exploding state; "
                           "try a smaller dt%s", solver->name, s, m->t,
                           solver->fixed_iterations > 0 ? "" : " or more iterations");
            reason = "diverged";
            break;
        }
        weft_collision_stats cs;
        if (pipe) {
            double t0 = weft_now();
            /* Obstacles on their paths x_rest + u t over the step: x0 at its start, x1 at
             * its end (run time: part of the collision handling). */
            for (int k = 0; k < m->nobstacles && rc == WEFT_OK; k++) {
                weft_obstacle_positions(&m->obstacles[k], t_begin, obx0);
                weft_obstacle_positions(&m->obstacles[k], t_begin + m->dt, obx1);
                rc = weft_collision_move_obstacle(pipe, k, obx0, obx1, err);
            }
            if (rc != WEFT_OK) {
                reason = "collision-error";
                break;
            }
            double placing = weft_now() - t0;
            int crc = weft_collision_step(pipe, m, mon.xn, m->x, m->v, m->dt, &cs, err);
            if (crc < 0) {
                rc = crc;
                reason = "collision-error";
                break;
            }
            if (crc == WEFT_WARN_UNRESOLVED) res->collision_failures++;
            if (clog)
                weft_log_printf(clog, "%d %ld %ld %ld %ld %d %d %d %d %ld %ld %ld %.6f\n", s,
                                cs.proximity_pairs, cs.swept_pairs, cs.repulsions, cs.ccd_hits,
                                cs.ccd_iterations, cs.zone_iterations, cs.zones, cs.max_zone,
                                cs.collider_contacts, cs.unresolved, cs.remaining,
                                1e3 * cs.seconds);
            /* Only the collision handling itself (and placing the obstacles) is solver
             * time; the intersection count and the log row are not. */
            double handling = placing + cs.seconds;
            mon.t_excluded += (weft_now() - t0) - handling;
            res->collision_s += handling;
            if (!state_ok(m)) {
                rc = weft_fail(err, WEFT_ERR_DIVERGED,
                               "collision pipeline left a non-finite state at step %d", s);
                reason = "diverged";
                break;
            }
        }
        res->steps_done = s + 1;
        if (opt->on_step) {
            double t0 = weft_now();
            opt->on_step(opt->user, m, s, pipe ? &cs : NULL);
            mon.t_excluded += weft_now() - t0;
        }
        if (opt->obj_every > 0 && opt->obj_prefix && (s + 1) % opt->obj_every == 0) {
            char path[1100];
            snprintf(path, sizeof path, "%s_%06d.obj", opt->obj_prefix, s + 1);
            double t0 = weft_now();
            rc = weft_mesh_write_obj(&m->mesh, m->x, path, err);
            mon.t_excluded += weft_now() - t0;
            if (rc) {
                reason = "io-error";
                break;
            }
        }
        if (tty) {
            double now = weft_now();
            if (now - mon.t_start > 1.0 && now - last_print > 0.25) {
                fprintf(stderr, "\r%s: step %d/%d  t=%.3f s  %.1f ms/step   ", solver->name, s + 1,
                        m->steps, m->t, 1e3 * (now - mon.t_start - mon.t_excluded) / (s + 1));
                last_print = now;
            }
        }
    }
    res->wall_s = weft_now() - mon.t_start - mon.t_excluded;
    if (last_print > 0.0) fprintf(stderr, "\r%*s\r", 70, "");
    res->ms_per_step = res->steps_done ? 1e3 * res->wall_s / res->steps_done : 0.0;
    res->last = mon.last;
    if (mon.log) {
        if (rc == WEFT_OK)
            rc = weft_log_close(&mon.log, true, NULL, err);
        else
            weft_log_close(&mon.log, false, reason, NULL);
    }
done:
    if (mon.log) /* opened, then a later log failed to open */
        weft_log_close(&mon.log, false, "io-error", NULL);
    if (mon.linear) {
        if (rc == WEFT_OK)
            rc = weft_log_close(&mon.linear, true, NULL, err);
        else
            weft_log_close(&mon.linear, false, reason ? reason : "unknown", NULL);
    }
    if (clog) {
        if (rc == WEFT_OK)
            rc = weft_log_close(&clog, true, NULL, err);
        else
            weft_log_close(&clog, false, reason ? reason : "unknown", NULL);
    }
    weft_collision_free(&pipe);
    free(obx0), free(obx1);
    if (state) solver->destroy(state);
    free(mon.xn), free(mon.xt), free(mon.scratch);
    return rc;
}
