/* damping.c — numerical damping of each integrator.
 *
 * A cloth swings with nothing in the model that dissipates energy (default scene
 * swinging_cloth: pinned along one edge, released from horizontal, PBD k_damping = 0,
 * no Rayleigh damping). The exact motion keeps its total energy
 *     E = ½ Σ mᵢ|vᵢ|² − Σ mᵢ g·xᵢ + E_elastic(x)        (J)
 * with v the model's velocities at the end of each step (read in weft_run's on_step, so
 * the solver's timing excludes it). Every solver runs at the same dt, and the figure
 * shows the energy above a floor, relative to its initial value:
 *     ratio(t) = (E(t) − E_floor) / (E(0) − E_floor).
 * E_floor = Σ over free vertices of mᵢ|g| (h(pᵢ) − dᵢ) + Σ over pinned vertices of
 * mᵢ|g| h(xᵢ), where h(x) = −ĝ·x is the height, pᵢ the nearest pinned vertex at rest and
 * dᵢ its rest distance: the gravitational energy each vertex would have hanging straight
 * below its nearest pin at rest length. For a cloth pinned along a straight edge this is
 * its hanging equilibrium (up to the stretch under its own weight), so a swing damped to
 * rest ends near ratio 0 and an energy-conserving one stays at 1. Without pins or gravity
 * the floor is 0. Backward Euler's numerical damping shows as a decay of the ratio that
 * BDF2 (second order) should largely avoid; PBD loses energy in every projection.
 * PBD does not model the material's stretch stiffness, so the elastic energy of its
 * states (at the material's stiffness) measures constraint error, not stored energy: each
 * row also has ratio_mech, the ratio without the elastic energy, PBD's fair measure.
 *
 * Writes <out>/damping/SOLVER.tsv (one row per step, with the elastic energy split by term
 * and the edge strain) and <out>/damping/summary.tsv. */
#include "cli.h"
#include "sweep.h"

#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: damping [options]\n"
    "Runs a swinging cloth without damping with each solver at the same dt and records the\n"
    "total energy (kinetic from the model's velocities + gravitational + elastic) after\n"
    "every step, relative to its initial value above the hanging-at-rest floor.\n"
    "\n"
    "  --scene NAME|FILE      built-in scene or .ini file (default swinging_cloth)\n"
    "  --solvers A,B,...      solvers (default: every registered solver that is stable at\n"
    "                         any dt and can run the scene; --list-solvers prints them)\n"
    "  --list-solvers         print the solvers the run would use, then stop\n"
    "  --dt DT                time step for every solver, s, decimal or 1/N (default: the scene's)\n"
    "  --steps N              time steps (default: the scene's; swinging_cloth: 180 = 3 s)\n"
    "  --iterations N         inner iterations per step (default: the scene's)\n"
    "  --threads N            OpenMP threads for parallel solvers\n"
    "  --set SECTION.KEY=VAL  override a scene value (repeatable)\n"
    "  --out DIR              results directory (default results); files go to DIR/damping/\n"
    "  --no-plot              skip gnuplot\n"
    "  -h, --help             this text\n"
    "\n"
    "Outputs:\n"
    "  DIR/damping/SOLVER.tsv   columns: step t_s kinetic_J gravity_J elastic_J total_J ratio\n"
    "                           ratio_mech, then ENERGY_J per energy term of the model (their\n"
    "                           sum is elastic_J) and cmax crms, the largest and RMS edge strain\n"
    "                           (step 0 = the initial state; ratio = (E - E_floor) /\n"
    "                           (E0 - E_floor); ratio_mech the same without the elastic energy)\n"
    "  DIR/damping/summary.tsv  columns: solver dt_s steps ms_per_step ratio_1s ratio_2s\n"
    "                           ratio_end ratio_min ratio_max mech_1s mech_2s mech_end status\n"
    "                           ('-': time not reached; status ok or diverged)\n"
    "  DIR/damping/energy.png   ratio (top) and ratio_mech (bottom) against time\n"
    "PBD does not model the material's stretch stiffness (its constraints are k_stretch\n"
    "projections), so the elastic energy of its states, measured with the material's\n"
    "stiffness, says how far its constraints are from satisfied rather than what it stores;\n"
    "ratio_mech (kinetic + gravitational) is the fair measure of its damping.\n"
    "A run that diverges keeps its rows up to the divergence and status 'diverged'.\n";

/* What the per-step callback records. */
typedef struct track {
    FILE *f;
    double floor, e0;       /* E_floor and E(0) - E_floor, J */
    double ratio_1s, ratio_2s, ratio_min, ratio_max, ratio_end;
    double mech_1s, mech_2s, mech_end; /* the same without the elastic energy */
} track;

/* The floor of the energy (see the file comment), J. */
static double energy_floor(const weft_model *m) {
    double g = sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] +
                    m->gravity[2] * m->gravity[2]);
    if (g == 0.0) return 0.0;
    double up[3] = {-m->gravity[0] / g, -m->gravity[1] / g, -m->gravity[2] / g};
    bool pinned = false;
    for (int i = 0; i < m->n && !pinned; i++) pinned = m->pin[i] >= 0;
    if (!pinned) return 0.0;
    const double *x = m->x_start;
    double floor = 0.0;
    for (int i = 0; i < m->n; i++) {
        const double *xi = &x[3 * i];
        if (m->pin[i] >= 0) {
            floor += m->mass[i] * g * (up[0] * xi[0] + up[1] * xi[1] + up[2] * xi[2]);
            continue;
        }
        double best = INFINITY, h = 0.0;
        for (int j = 0; j < m->n; j++) {
            if (m->pin[j] < 0) continue;
            const double *xj = &x[3 * j];
            double d2 = 0.0;
            for (int k = 0; k < 3; k++) d2 += (xi[k] - xj[k]) * (xi[k] - xj[k]);
            if (d2 < best) best = d2, h = up[0] * xj[0] + up[1] * xj[1] + up[2] * xj[2];
        }
        floor += m->mass[i] * g * (h - sqrt(best));
    }
    return floor;
}

/* Writes one row for the state of m after `step` steps and updates the marks. */
static void record(track *tr, const weft_model *m, int step) {
    weft_sweep_energy e;
    weft_sweep_energy_of(m, &e);
    double ratio = (e.total - tr->floor) / tr->e0;
    double mech = (e.kinetic + e.gravity - tr->floor) / tr->e0;
    fprintf(tr->f, "%d\t%.6f\t%.9e\t%.9e\t%.9e\t%.9e\t%.6e\t%.6e", step, m->t, e.kinetic,
            e.gravity, e.elastic, e.total, ratio, mech);
    /* where the elastic energy sits: each term's share, and the strain behind it */
    for (int t = 0; t < m->nterms; t++) fprintf(tr->f, "\t%.9e", weft_sweep_term_energy(m, t));
    double cmax, crms;
    weft_strain(m, m->x, &cmax, &crms);
    fprintf(tr->f, "\t%.6e\t%.6e\n", cmax, crms);
    /* Half a step's tolerance: t accumulates dt in floating point. */
    if (fabs(m->t - 1.0) <= 0.5 * m->dt) tr->ratio_1s = ratio, tr->mech_1s = mech;
    if (fabs(m->t - 2.0) <= 0.5 * m->dt) tr->ratio_2s = ratio, tr->mech_2s = mech;
    tr->mech_end = mech;
    tr->ratio_min = fmin(tr->ratio_min, ratio);
    tr->ratio_max = fmax(tr->ratio_max, ratio);
    tr->ratio_end = ratio;
}

static void on_step(void *user, const weft_model *m, int step, const void *stage_stats) {
    (void)stage_stats;
    record(user, m, step + 1);
}

/* A ratio for the summary, "-" when not reached. */
static const char *fmt_ratio(double r, char *buf, size_t size) {
    if (isnan(r)) return "-";
    snprintf(buf, size, "%.6f", r);
    return buf;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* each table row as it comes, even into a file */
    char command[2048];
    weft_sweep_command(argc, argv, command, sizeof command);
    static const char *const own[] = {"dt", NULL};
    const char *vals[1] = {NULL};
    weft_sweep_take(&argc, argv, own, vals);
    weft_cli cli;
    weft_cli_parse(argc, argv, &cli, usage);
    if (!cli.scene_given) cli.scene = "swinging_cloth";
    weft_install_interrupt_handler();

    char dt_set[64];
    if (vals[0]) {
        if (cli.nset == 64) {
            fprintf(stderr, "error: too many --set options (64 at most)\n");
            return 2;
        }
        snprintf(dt_set, sizeof dt_set, "scene.dt=%.17g", weft_sweep_number("dt", vals[0]));
        cli.set[cli.nset++] = dt_set;
    }
    const weft_solver_type *solvers[16];
    int ns = cli.solvers ? weft_cli_solvers(cli.solvers, "--solvers", solvers, 16)
                         : weft_cli_default_solvers(&cli, 0, solvers, 16);
    if (ns < 0) return cli.solvers ? 2 : 1;
    if (weft_cli_print_solvers(&cli, solvers, ns)) return 0;

    weft_error err = {{0}};
    weft_model m;
    weft_config *cfg = NULL;
    if (weft_cli_build(&cli, &m, &cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    if (weft_cli_check_sets(&cli, solvers, ns, &m, cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        weft_model_free(&m);
        weft_config_free(&cfg);
        return 1;
    }
    char scene_name[128];
    snprintf(scene_name, sizeof scene_name, "%s", m.scene_name);
    double dt = m.dt;
    int steps = weft_cli_setting(cfg, "scene", "steps", 0);
    double floor = energy_floor(&m);
    weft_sweep_energy e;
    weft_sweep_energy_of(&m, &e);
    double e0 = e.total - floor;
    weft_model_free(&m);
    weft_config_free(&cfg);
    if (!(e0 > 0.0)) {
        fprintf(stderr, "error: %s: the initial energy is not above the floor (E0 - E_floor = "
                "%.3g J): nothing to damp\n", scene_name, e0);
        return 1;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/damping", cli.out);
    if (weft_mkdirs(dir) != 0) return 1;
    printf("damping: scene %s, dt = %.6g s, %d steps (%.3g s); E0 - E_floor = %.6g J\n"
           "results in %s/\n\n", scene_name, dt, steps, dt * steps, e0, dir);
    printf("%-18s %10s %10s %10s %10s %10s %10s  %s\n", "solver", "ms/step", "E/E0 1s",
           "E/E0 2s", "E/E0 end", "mech 1s", "mech 2s", "status");

    char summary_path[1100], summary_tmp[1200];
    snprintf(summary_path, sizeof summary_path, "%s/summary.tsv", dir);
    FILE *summary = weft_sweep_open(summary_path, summary_tmp, sizeof summary_tmp);
    if (!summary) return 1;
    fprintf(summary, "# damping: scene=%s dt=%.17g steps=%d e0_above_floor_J=%.9e\n# command: %s\n",
            scene_name, dt, steps, e0, command);
    fprintf(summary, "solver\tdt_s\tsteps\tms_per_step\tratio_1s\tratio_2s\tratio_end\tratio_min\t"
            "ratio_max\tmech_1s\tmech_2s\tmech_end\tstatus\n");
    char files[4096] = "", names[1024] = "";
    int status = 0;
    for (int k = 0; k < ns && status == 0; k++) {
        if (weft_cli_build(&cli, &m, &cfg, &err) != WEFT_OK) {
            fprintf(stderr, "error: %s\n", err.msg);
            status = 1;
            break;
        }
        char path[1100], tmp[1200];
        snprintf(path, sizeof path, "%s/%s.tsv", dir, solvers[k]->name);
        track tr = {.floor = floor, .e0 = e0, .ratio_1s = NAN, .ratio_2s = NAN,
                    .mech_1s = NAN, .mech_2s = NAN,
                    .ratio_min = INFINITY, .ratio_max = -INFINITY};
        if (!(tr.f = weft_sweep_open(path, tmp, sizeof tmp))) {
            weft_model_free(&m);
            weft_config_free(&cfg);
            status = 1;
            break;
        }
        fprintf(tr.f, "# damping: scene=%s solver=%s dt=%.17g steps=%d iterations=%d\n"
                "# e_floor_J=%.9e e0_above_floor_J=%.9e\n# command: %s\n",
                scene_name, solvers[k]->name, m.dt, weft_cli_setting(cfg, "scene", "steps", 0),
                weft_solver_iterations(solvers[k], cfg), floor, e0, command);
        fprintf(tr.f, "step\tt_s\tkinetic_J\tgravity_J\telastic_J\ttotal_J\tratio\tratio_mech");
        for (int t = 0; t < m.nterms; t++) fprintf(tr.f, "\t%s_J", m.terms[t].type->name);
        fprintf(tr.f, "\tcmax\tcrms\n");
        record(&tr, &m, 0);
        weft_run_options opt = weft_run_options_default();
        opt.config = cfg;
        opt.log_level = WEFT_LOG_NONE;
        opt.progress = true;
        opt.on_step = on_step;
        opt.user = &tr;
        weft_run_result res;
        int rc = weft_run(solvers[k], &m, &opt, &res, &err);
        const char *st = "ok";
        if (rc == WEFT_ERR_DIVERGED) {
            st = "diverged";
            fprintf(stderr, "warning: %s\n", err.msg);
        } else if (rc != WEFT_OK) {
            fprintf(stderr, "error: %s: %s\n", solvers[k]->name,
                    weft_cli_unprefixed(err.msg, solvers[k]->name));
            fclose(tr.f);
            weft_model_free(&m);
            weft_config_free(&cfg);
            status = 1;
            break;
        }
        if (weft_sweep_close(tr.f, tmp, path, true) != 0) status = 1;
        char b[6][32];
        printf("%-18s %10.3f %10s %10s %10s %10s %10s  %s\n", solvers[k]->name,
               res.ms_per_step, fmt_ratio(tr.ratio_1s, b[0], 32), fmt_ratio(tr.ratio_2s, b[1], 32),
               fmt_ratio(tr.ratio_end, b[2], 32), fmt_ratio(tr.mech_1s, b[3], 32),
               fmt_ratio(tr.mech_2s, b[4], 32), st);
        fprintf(summary, "%s\t%.17g\t%d\t%.6f\t%s\t%s\t%s\t%.6f\t%.6f\t%s\t%s\t%s\t%s\n",
                solvers[k]->name, m.dt, res.steps_done, res.ms_per_step,
                fmt_ratio(tr.ratio_1s, b[0], 32), fmt_ratio(tr.ratio_2s, b[1], 32),
                fmt_ratio(tr.ratio_end, b[2], 32), tr.ratio_min, tr.ratio_max,
                fmt_ratio(tr.mech_1s, b[3], 32), fmt_ratio(tr.mech_2s, b[4], 32),
                fmt_ratio(tr.mech_end, b[5], 32), st);
        weft_model_free(&m);
        weft_config_free(&cfg);
        size_t l = strlen(files);
        snprintf(files + l, sizeof files - l, "%s%s", l ? " " : "", path);
        l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", l ? " " : "", solvers[k]->name);
    }
    if (weft_sweep_close(summary, summary_tmp, summary_path, status == 0) != 0) status = 1;
    if (status != 0) return status;
    printf("\nper-step energies: %s/SOLVER.tsv\nsummary: %s\n", dir, summary_path);
    if (cli.no_plot) return 0;
    char defs[8192], script[1100], out[1100];
    snprintf(out, sizeof out, "%s/energy.png", dir);
    snprintf(script, sizeof script, "%s/damping.gp", weft_plots_dir());
    snprintf(defs, sizeof defs, "files='%s'; names='%s'; out='%s'; scene='%s'; dt=%.17g", files,
             names, out, scene_name, dt);
    if (weft_gnuplot(defs, script) != 0) {
        fprintf(stderr, "error: gnuplot failed on %s\n", script);
        return 1;
    }
    printf("figure:  %s\n", out);
    return 0;
}
