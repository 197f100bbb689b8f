/* compare.c — run one scene with several solvers under identical settings, log every
 * inner iteration with the common metrics, print a summary table, and plot:
 *   (a) convergence within one step against iteration,
 *   (b) the same against wall time,
 *   (c) the final cloth shape of each solver,
 *   (d) with --animate, the whole run of every solver side by side as an animated GIF.
 * With --time-budget every iterative solver gets the iterations that fill the same wall
 * time per step, so that figure (b) compares methods at equal cost.
 * Logs and figures go to <out>/<scene>/. */
#include "cli.h"
#include "frames.h"

#include "weft_solvers.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: compare [options]\n"
    "Runs one scene with several solvers and identical settings; writes one log per\n"
    "solver, a summary table and gnuplot figures under OUT/SCENE/.\n"
    "\n"
    "  --scene NAME|FILE      built-in scene or .ini file (default hanging_cloth)\n"
    "  --solvers A,B,...      solvers to compare (default: the scene's [scene] solvers, else\n"
    "                         every registered solver that is stable at any dt and can run\n"
    "                         the scene)\n"
    "  --iterations N         inner iterations per step (default: the scene's)\n"
    "  --steps N              time steps (default: the scene's)\n"
    "  --threads N            OpenMP threads for parallel solvers (default 1)\n"
    "  --set SECTION.KEY=VAL  override a scene value (repeatable); a setting nothing in\n"
    "                         the run reads is an error; numbers may be fractions (1/120)\n"
    "  --log iterations|steps|none   what to log (default iterations)\n"
    "  --out DIR              results directory (default results); OUT/SCENE/config.ini\n"
    "                         records the run's resolved input and reruns it\n"
    "  --rerun DIR            rerun the run of folder DIR: --scene DIR/config.ini (its\n"
    "                         solvers and settings); give a fresh --out\n"
    "  --force                replace another run's results in OUT/SCENE (a run refuses\n"
    "                         a folder holding them otherwise)\n"
    "  --obj-every N          also write an OBJ of the cloth every N steps\n"
    "  --plot-step S          step whose iterations figures (a), (b) show (default: middle)\n"
    "  --no-plot              skip gnuplot\n"
    "  --profile              print each solver's timers and counters after its row\n"
    "  --animate              also write animation.gif: every solver's cloth side by side,\n"
    "                         one view and scale, about 40 frames over the run\n"
    "  --same-model           refuse to run a solver whose model differs from the scene's\n"
    "                         (an energy replaced, pressure or self-collision dropped),\n"
    "                         naming the --set that makes them agree; without it such a\n"
    "                         solver's row ends in '*' with a footnote, and summary.tsv's\n"
    "                         and its log's 'model' say how it differs\n"
    "  --time-budget MS       equal cost: give each iterative solver the iterations per step\n"
    "                         that take MS wall milliseconds, from a fit t = a + b*I of two\n"
    "                         short runs (I and 2I iterations) of the scene's first steps;\n"
    "                         solvers that fix their own count keep it\n"
    "  -h, --help             this text\n"
    "\n"
    "Log columns: step iter wall_s residual residual_rel cmax crms energy volume\n"
    "(residual: |grad G| of the backward-Euler incremental potential over free DOFs, with\n"
    " the normal force of every pushing contact taken out, N; cmax/crms: max/RMS relative\n"
    " edge strain; energy: kinetic+gravity+elastic, J). A solver with a stopping test\n"
    " ends each step with a line '# step S iter I stop=converged|cap|stalled', followed\n"
    " by ' reason=WORD' where the solver says why; summary.tsv counts the steps_capped and\n"
    " steps_stalled, and lists their reasons in cap_reasons and stall_reasons\n"
    " (e.g. 'indefinite:10,slow:3'; '-' for none).\n";

/* Writes the triangles of positions x as closed loops for gnuplot's splot. */
static int write_shape(const weft_model *m, const char *path) {
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "# final positions of %s, one triangle per block (x y z, m)\n", m->scene_name);
    for (int t = 0; t < m->mesh.nt; t++) {
        const int *tri = &m->mesh.tri[3 * t];
        for (int a = 0; a <= 3; a++) {
            const double *p = &m->x[3 * tri[a % 3]];
            fprintf(f, "%.6f %.6f %.6f\n", p[0], p[1], p[2]);
        }
        fprintf(f, "\n\n");
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "error: %s: cannot write\n", path);
        return -1;
    }
    return 0;
}

/* Grows the box [lo, hi] (m) by the n positions x (3n). */
static void box_grow(const double *x, int n, double lo[3], double hi[3]) {
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            lo[c] = fmin(lo[c], x[3 * i + c]), hi[c] = fmax(hi[c], x[3 * i + c]);
}

/* The frame that the final-shape panels share: the box of the start shape [s_lo, s_hi]
 * grown by the boxes of the final shapes that stay within twice the cloth's largest side
 * L of it on every side; the n boxes [b_lo, b_hi] of the final shapes are tested, and a
 * cloth that reaches past the frame is marked in off[k] (it flew off or blew up: it says
 * so in its title instead of shrinking the others to dots). Returns the frame in lo, hi. */
static void shape_frame(const double s_lo[3], const double s_hi[3], int n,
                        const double (*b_lo)[3], const double (*b_hi)[3], double lo[3],
                        double hi[3], bool *off) {
    double L = 0.0;
    for (int c = 0; c < 3; c++) L = fmax(L, s_hi[c] - s_lo[c]);
    if (!(L > 0.0)) L = 1.0;
    for (int c = 0; c < 3; c++) lo[c] = s_lo[c], hi[c] = s_hi[c];
    for (int k = 0; k < n; k++) {
        bool near = true;
        for (int c = 0; c < 3; c++)
            near = near && b_lo[k][c] >= s_lo[c] - 2.0 * L && b_hi[k][c] <= s_hi[c] + 2.0 * L;
        for (int c = 0; near && c < 3; c++)
            lo[c] = fmin(lo[c], b_lo[k][c]), hi[c] = fmax(hi[c], b_hi[k][c]);
    }
    for (int k = 0; k < n; k++) {
        off[k] = false;
        for (int c = 0; c < 3; c++) off[k] = off[k] || b_lo[k][c] < lo[c] || b_hi[k][c] > hi[c];
    }
}

/* The animation's box: [lo, hi] (every frame of every solver) clipped to the start box
 * grown by twice its largest side on every side, as for the final-shape panels. */
static void frame_clip(const double s_lo[3], const double s_hi[3], double lo[3], double hi[3]) {
    double L = 0.0;
    for (int c = 0; c < 3; c++) L = fmax(L, s_hi[c] - s_lo[c]);
    if (!(L > 0.0)) L = 1.0;
    for (int c = 0; c < 3; c++) {
        lo[c] = fmax(fmin(lo[c], s_lo[c]), s_lo[c] - 2.0 * L);
        hi[c] = fmin(fmax(hi[c], s_hi[c]), s_hi[c] + 2.0 * L);
    }
}

/* Frames of one run (weft_run's on_step hands each step to them). */
static void record_frame(void *user, const weft_model *m, int step, const void *stage_stats) {
    (void)stage_stats;
    weft_frames_step(user, m, step);
}

/* Mean wall ms per step of `steps` steps of solver s on cli's scene with `iterations`
 * iterations ([solver] iterations); < 0 after an error message. */
static double timed_steps(const weft_cli *cli, const weft_solver_type *s, int steps,
                          int iterations) {
    weft_cli c = *cli;
    c.steps = steps, c.iterations = iterations;
    weft_model m;
    weft_config *cfg = NULL;
    weft_error err = {{0}};
    if (weft_cli_build(&c, &m, &cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1.0;
    }
    weft_run_options opt = weft_run_options_default();
    opt.log_level = WEFT_LOG_NONE;
    opt.config = cfg;
    weft_run_result res;
    int rc = weft_run(s, &m, &opt, &res, &err);
    weft_model_free(&m);
    weft_config_free(&cfg);
    if (rc != WEFT_OK) {
        fprintf(stderr, "error: --time-budget: %s: %s\n", s->name,
                weft_cli_unprefixed(err.msg, s->name));
        return -1.0;
    }
    return res.ms_per_step;
}

/* The iterations per step that fit iterative solver s into budget_ms: the step's wall
 * time is fitted as t(I) = a + b I (a: the work outside the iterations, b: one
 * iteration) from runs of the scene's first steps at i0 and 2 i0 iterations, and
 * I = floor((budget - a) / b), at least 1. A solver whose time does not grow with I (it
 * stops at a tolerance first) keeps i0. Prints the fit; -1 after an error. */
static int budget_iterations(const weft_cli *cli, const weft_solver_type *s, int steps, int i0,
                             double budget_ms) {
    int k = steps < 8 ? (steps > 0 ? steps : 1) : 8;
    /* An untimed run first: the first run of a process pays for cold caches and page
     * faults (twice the warm time under the sanitizers), which made t(i0) > t(2 i0). */
    double t1 = timed_steps(cli, s, k, i0);
    if (t1 >= 0) t1 = timed_steps(cli, s, k, i0);
    double t2 = t1 >= 0 ? timed_steps(cli, s, k, 2 * i0) : -1;
    if (t1 < 0 || t2 < 0) return -1;
    double b = (t2 - t1) / i0, a = t1 - b * i0;
    if (!(b > 0.0)) {
        printf("time budget: %-18s %.3g ms/step at %d and %.3g at %d iterations: not spent "
               "per iteration; keeps %d\n", s->name, t1, i0, t2, 2 * i0, i0);
        return i0;
    }
    if (a < 0.0) a = 0.0;
    double fit = floor((budget_ms - a) / b);
    int its = fit < 1.0 ? 1 : fit > 1e6 ? 1000000 : (int)fit;
    printf("time budget: %-18s t = %.3g ms + %.3g ms x I (%d steps) -> %d iterations%s\n",
           s->name, a, b, k, its, fit < 1.0 ? " (the budget is below one iteration)" : "");
    return its;
}

/* --same-model: prints a one-line error for the first of the ns solvers whose model
 * differs from the scene's (diff[k]), with the --set that makes them agree, and returns
 * -1; 0 when every one runs the scene's model. */
static int refuse_other_models(const weft_solver_type *const *solvers, const weft_model_diff *diff,
                               int ns) {
    for (int k = 0; k < ns; k++) {
        if (diff[k].n == 0) continue;
        char what[1400], fix[1400] = "";
        weft_model_diff_format(&diff[k], what, sizeof what);
        if (weft_model_diff_fixes(&diff[k], " --set ", fix, sizeof fix))
            fprintf(stderr, "error: --same-model: %s runs another model than the scene's (%s); "
                    "--set %s makes them agree\n", solvers[k]->name, what + 9, fix);
        else
            fprintf(stderr, "error: --same-model: %s runs another model than the scene's (%s), "
                    "which no scene key changes; leave it out of --solvers\n", solvers[k]->name,
                    what + 9);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    weft_cli cli;
    weft_cli_parse(argc, argv, &cli, usage);
    weft_install_interrupt_handler();

    /* Named solvers: validate every name before running anything. */
    const weft_solver_type *solvers[16];
    int ns = 0;
    if (cli.solvers && (ns = weft_cli_solvers(cli.solvers, "--solvers", solvers, 16)) < 0) return 2;

    /* Build once to validate the scene and learn its name before creating directories. */
    weft_error err = {{0}};
    weft_model m;
    weft_config *cfg = NULL;
    if (weft_cli_build(&cli, &m, &cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    /* Otherwise the solvers the scene names, or every one that is stable at any dt: an
     * explicit method would only diverge on a scene whose dt was not chosen for it. */
    weft_run_settings run;
    weft_config_settings(cfg, weft_run_tables, &run);
    if (!cli.solvers && run.solvers[0]) {
        char where[400], w[330];
        weft_config_where(cfg, "scene", "solvers", w, sizeof w);
        snprintf(where, sizeof where, "%s: scene.solvers", w);
        if ((ns = weft_cli_solvers(run.solvers, where, solvers, 16)) < 0) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            return 1;
        }
    } else if (!cli.solvers && (ns = weft_cli_default_solvers(&cli, 0, solvers, 16)) < 0) {
        weft_model_free(&m);
        weft_config_free(&cfg);
        return 1;
    }
    /* The model each solver runs: the same as the scene's, or marked (--same-model: refused). */
    weft_model_diff diff[16];
    for (int k = 0; k < ns; k++) weft_model_diff_compute(solvers[k], &m, cfg, &diff[k]);
    if (cli.same_model && refuse_other_models(solvers, diff, ns) != 0) {
        weft_model_free(&m);
        weft_config_free(&cfg);
        return 1;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", cli.out, m.scene_name);
    int steps = weft_cli_setting(cfg, "scene", "steps", 0);
    int iterations = weft_cli_setting(cfg, "solver", "iterations", 1);
    if (cli.plot_step >= 0 && cli.plot_step >= steps) {
        fprintf(stderr, "error: --plot-step %d: the run has %d step%s (0 to %d)\n",
                cli.plot_step, steps, steps == 1 ? "" : "s", steps - 1);
        weft_model_free(&m);
        weft_config_free(&cfg);
        return 2;
    }
    /* Every --set must be read by something in this run; then the folder (no other run's
     * results in it, unless --force) and its config.ini, from which the run reruns. */
    char list[1024] = "";
    for (int k = 0; k < ns; k++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", k ? "," : "", solvers[k]->name);
    }
    if (weft_cli_check_sets(&cli, solvers, ns, &m, cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        weft_model_free(&m);
        weft_config_free(&cfg);
        return 1;
    }
    char config_path[1100];
    snprintf(config_path, sizeof config_path, "%s/config.ini", dir);
    struct stat in_st, out_st;
    if (stat(cli.scene, &in_st) == 0 && stat(config_path, &out_st) == 0 &&
        in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        fprintf(stderr, "error: %s: the scene is the config.ini of the folder this run "
                "would write; rerun it into a fresh folder with --out\n", cli.scene);
        weft_model_free(&m);
        weft_config_free(&cfg);
        return 1;
    }
    if (weft_cli_prepare_out(dir, cli.force) != 0 ||
        weft_cli_write_config(&cli, config_path, list, &m, cfg, argc, argv, &err) != WEFT_OK) {
        if (err.msg[0]) fprintf(stderr, "error: %s\n", err.msg);
        weft_model_free(&m);
        weft_config_free(&cfg);
        return 1;
    }
    weft_config_free(&cfg);
    bool fixed = false; /* whether some solver fixes its own iteration count */
    for (int k = 0; k < ns; k++) fixed = fixed || weft_solver_sets_iterations(solvers[k]);
    char scene_name[128];
    snprintf(scene_name, sizeof scene_name, "%s", m.scene_name);
    double dt = m.dt;
    weft_model_free(&m);
    int plot_step = cli.plot_step >= 0 ? cli.plot_step : steps / 2;
    if (plot_step >= steps) plot_step = steps > 0 ? steps - 1 : 0;

    /* Equal cost: each iterative solver's iterations from the time budget. */
    int budget_its[16];
    for (int k = 0; k < ns; k++) {
        budget_its[k] = 0;
        if (cli.time_budget_ms > 0 && !weft_solver_sets_iterations(solvers[k]) &&
            (budget_its[k] = budget_iterations(&cli, solvers[k], steps, iterations,
                                               cli.time_budget_ms)) < 0)
            return 1;
    }
    if (cli.time_budget_ms > 0)
        printf("scene %s: %d steps, iterations per step from a budget of %g ms per step; "
               "results in %s/\n\n", scene_name, steps, cli.time_budget_ms, dir);
    else
        printf("scene %s: %d steps, %d iterations per step%s; results in %s/\n\n", scene_name,
               steps, iterations, fixed ? " (where the solver does not fix them)" : "", dir);
    printf("%-18s %10s %12s %12s %14s %14s\n", "solver", "iterations", "ms/step", "final cmax",
           "final resid", "final resid_rel");
    char logs[2048] = "", names[1024] = "", shapes[2048] = "";
    char summary_path[1100], summary_tmp[1200];
    snprintf(summary_path, sizeof summary_path, "%s/summary.tsv", dir);
    snprintf(summary_tmp, sizeof summary_tmp, "%s.partial", summary_path);
    FILE *summary = fopen(summary_tmp, "w");
    if (!summary) {
        fprintf(stderr, "error: %s: cannot write: %s\n", summary_tmp, strerror(errno));
        return 1;
    }
    fprintf(summary, "solver\titerations\tms_per_step\tfinal_cmax\tfinal_residual\tfinal_residual_rel"
                     "\tsteps_capped\tsteps_stalled\tcap_reasons\tstall_reasons"
                     "\tmodel\n");
    int status = 0;
    char frame_files[2048] = "";
    int frame_count = 0, frame_blocks = 0, every = weft_frames_every(steps, 41);
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    /* Boxes (m) of the start shape and of each solver's final shape, for the shared frame. */
    double start_lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, start_hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    double shape_lo[16][3], shape_hi[16][3];
    for (int k = 0; k < 16; k++)
        for (int c = 0; c < 3; c++) shape_lo[k][c] = DBL_MAX, shape_hi[k][c] = -DBL_MAX;
    for (int k = 0; k < ns; k++) {
        weft_cli one = cli;
        if (budget_its[k] > 0) one.iterations = budget_its[k];
        if (weft_cli_build(&one, &m, &cfg, &err) != WEFT_OK) {
            fprintf(stderr, "error: %s\n", err.msg);
            status = 1;
            break;
        }
        char frames_path[1100];
        snprintf(frames_path, sizeof frames_path, "%s/%s_frames.dat", dir, solvers[k]->name);
        weft_frames frames = {0};
        if (cli.animate && weft_frames_open(&frames, frames_path, &m, every) != 0) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            status = 1;
            break;
        }
        char log_path[1100], obj_prefix[1100], shape_path[1100];
        snprintf(log_path, sizeof log_path, "%s/%s.log", dir, solvers[k]->name);
        snprintf(obj_prefix, sizeof obj_prefix, "%s/%s", dir, solvers[k]->name);
        snprintf(shape_path, sizeof shape_path, "%s/%s_shape.dat", dir, solvers[k]->name);
        weft_run_options opt = weft_run_options_default();
        opt.log_level = cli.log;
        opt.log_path = cli.log == WEFT_LOG_NONE ? NULL : log_path;
        opt.obj_every = cli.obj_every;
        opt.obj_prefix = obj_prefix;
        opt.progress = true;
        opt.config = cfg;
        if (cli.animate) opt.on_step = record_frame, opt.user = &frames;
        weft_run_result res;
        int rc = weft_run(solvers[k], &m, &opt, &res, &err);
        if (cli.animate && weft_frames_close(&frames, rc == WEFT_OK) != 0 && rc == WEFT_OK)
            rc = weft_fail(&err, WEFT_ERR_IO, "%s: cannot write", frames_path);
        if (rc != WEFT_OK) {
            fprintf(stderr, "error: %s: %s\n", solvers[k]->name,
                    weft_cli_unprefixed(err.msg, solvers[k]->name));
            char partial[1200];
            snprintf(partial, sizeof partial, "%s.partial", log_path);
            if (opt.log_path && access(partial, F_OK) == 0) /* none if the solver refused */
                fprintf(stderr, "  (partial log left in %s)\n", partial);
            weft_model_free(&m);
            weft_config_free(&cfg);
            status = 1;
            if (rc == WEFT_ERR_INTERRUPTED) break; /* the user asked to stop: no more solvers */
            continue;
        }
        if (res.collision_failures > 0)
            fprintf(stderr, "warning: %s: the collision pipeline left collisions unresolved in "
                    "%d step(s); see the unresolved column of %s.collisions\n", solvers[k]->name,
                    res.collision_failures, log_path);
        /* The reason words are the solver's own: lib/ counts them, compare prints them. */
        char cap_reasons[1024], stall_reasons[1024], all_reasons[1024];
        weft_run_stop_reasons(&res, "cap", cap_reasons, sizeof cap_reasons);
        weft_run_stop_reasons(&res, "stalled", stall_reasons, sizeof stall_reasons);
        weft_run_stop_reasons(&res, NULL, all_reasons, sizeof all_reasons);
        if (res.steps_capped > 0 || res.steps_stalled > 0)
            fprintf(stderr, "warning: %s: %d step(s) reached the iteration cap and %d stalled "
                    "short of the tolerance (reasons: %s); see the 'stop=' lines of %s\n",
                    solvers[k]->name, res.steps_capped, res.steps_stalled, all_reasons,
                    log_path);
        int its = weft_solver_iterations(solvers[k], cfg);
        char model[1400];
        weft_model_diff_format(&diff[k], model, sizeof model);
        /* A solver that ran another model than the scene's: '*' at the row's end, and a
         * footnote after the table. */
        printf("%-18s %10d %12.3f %12.3e %14.4e %14.4e%s\n", solvers[k]->name, its,
               res.ms_per_step, res.last.cmax, res.last.residual, res.last.residual_rel,
               diff[k].n ? "  *" : "");
        if (cli.profile) weft_profile_print(stdout, &res.profile, "    ");
        fprintf(summary, "%s\t%d\t%.6f\t%.6e\t%.6e\t%.6e\t%d\t%d\t%s\t%s\t%s\n",
                solvers[k]->name, its, res.ms_per_step, res.last.cmax, res.last.residual,
                res.last.residual_rel, res.steps_capped, res.steps_stalled, cap_reasons,
                stall_reasons, model);
        if (write_shape(&m, shape_path) != 0) status = 1;
        if (k == 0) box_grow(m.x_start, m.n, start_lo, start_hi);
        box_grow(m.x, m.n, shape_lo[k], shape_hi[k]);
        weft_model_free(&m);
        weft_config_free(&cfg);
        size_t l = strlen(logs);
        snprintf(logs + l, sizeof logs - l, "%s%s", l ? " " : "", log_path);
        l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", l ? " " : "", solvers[k]->name);
        l = strlen(shapes);
        snprintf(shapes + l, sizeof shapes - l, "%s%s", l ? " " : "", shape_path);
        if (cli.animate) {
            l = strlen(frame_files);
            snprintf(frame_files + l, sizeof frame_files - l, "%s%s", l ? " " : "", frames_path);
            frame_count = frames.frames, frame_blocks = frames.blocks;
            for (int c = 0; c < 3; c++) lo[c] = fmin(lo[c], frames.lo[c]), hi[c] = fmax(hi[c], frames.hi[c]);
        }
    }
    if (fclose(summary) != 0 || (status == 0 && rename(summary_tmp, summary_path) != 0)) {
        fprintf(stderr, "error: %s: cannot write\n", summary_path);
        status = 1;
    }
    if (status != 0) return status;
    bool marked = false; /* footnotes: how each marked solver's model differs */
    for (int k = 0; k < ns; k++)
        if (diff[k].n) {
            char model[1400], fix[1400];
            weft_model_diff_format(&diff[k], model, sizeof model);
            bool fixable = weft_model_diff_fixes(&diff[k], " --set ", fix, sizeof fix);
            printf("%s* %s: model %s%s%s%s\n", marked ? "" : "\n", solvers[k]->name, model,
                   fixable ? " (same model: --set " : "", fix, fixable ? ")" : "");
            marked = true;
        }
    printf("\nlogs:    %s\nsummary: %s\n", logs, summary_path);
    if (cli.no_plot) return 0;
    if (cli.log != WEFT_LOG_ITERATIONS) {
        printf("figures: skipped (convergence plots need --log iterations)\n");
        return 0;
    }

    char defs[8192], script[1100], out[3][1100];
    snprintf(out[0], sizeof out[0], "%s/convergence_iterations.png", dir);
    snprintf(out[1], sizeof out[1], "%s/convergence_time.png", dir);
    snprintf(out[2], sizeof out[2], "%s/final_shapes.png", dir);
    snprintf(script, sizeof script, "%s/convergence.gp", weft_plots_dir());
    for (int x = 0; x < 2; x++) {
        snprintf(defs, sizeof defs,
                 "logs='%s'; names='%s'; step=%d; xaxis='%s'; out='%s'; scene='%s'", logs, names,
                 plot_step, x ? "time" : "iter", out[x], scene_name);
        if (weft_gnuplot(defs, script) != 0) {
            fprintf(stderr, "error: gnuplot failed on %s\n", script);
            return 1;
        }
    }
    /* One frame for every panel; a cloth reaching past it is flagged in its title. */
    double f_lo[3], f_hi[3];
    bool off_k[16];
    shape_frame(start_lo, start_hi, ns, (const double(*)[3])shape_lo,
                (const double(*)[3])shape_hi, f_lo, f_hi, off_k);
    char off[64] = "";
    for (int k = 0; k < ns; k++) {
        size_t l = strlen(off);
        snprintf(off + l, sizeof off - l, "%s%d", k ? " " : "", off_k[k] ? 1 : 0);
    }
    snprintf(script, sizeof script, "%s/shapes.gp", weft_plots_dir());
    snprintf(defs, sizeof defs,
             "shapes='%s'; names='%s'; out='%s'; offframe='%s'; xlo=%.17g; xhi=%.17g; "
             "ylo=%.17g; yhi=%.17g; zlo=%.17g; zhi=%.17g",
             shapes, names, out[2], off, f_lo[0], f_hi[0], f_lo[1], f_hi[1], f_lo[2], f_hi[2]);
    if (weft_gnuplot(defs, script) != 0) {
        fprintf(stderr, "error: gnuplot failed on %s\n", script);
        return 1;
    }
    printf("figures:\n  (a) %s\n  (b) %s\n  (c) %s\n", out[0], out[1], out[2]);
    if (cli.animate) {
        char gif[1100];
        snprintf(gif, sizeof gif, "%s/animation.gif", dir);
        frame_clip(start_lo, start_hi, lo, hi);
        snprintf(script, sizeof script, "%s/animate.gp", weft_plots_dir());
        snprintf(defs, sizeof defs,
                 "files='%s'; names='%s'; blocks=%d; frames=%d; every=%d; dt=%.17g; "
                 "scene='%s'; out='%s'; xlo=%.17g; xhi=%.17g; ylo=%.17g; yhi=%.17g; "
                 "zlo=%.17g; zhi=%.17g",
                 frame_files, names, frame_blocks, frame_count, every, dt, scene_name, gif, lo[0],
                 hi[0], lo[1], hi[1], lo[2], hi[2]);
        if (weft_gnuplot(defs, script) != 0) {
            fprintf(stderr, "error: gnuplot failed on %s\n", script);
            return 1;
        }
        printf("  (d) %s (%d frames, every %d steps)\n", gif, frame_count, every);
    }
    return 0;
}
