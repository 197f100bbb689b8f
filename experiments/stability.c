/* stability.c — which integrators stay stable as stiffness and time step grow.
 *
 * For every solver, stretch stiffness Y ([material] stretch_stiffness, N/m) and time step
 * dt, one run of the scene (default hanging_cloth) lasts `duration` seconds of simulated
 * time, but at most `max-steps` steps (an explicit instability multiplies the error by a
 * large factor every step, so it shows well within that many). A run is UNSTABLE when
 *   diverged  weft_run stops it with WEFT_ERR_DIVERGED (a non-finite position or velocity,
 *             or a coordinate beyond 1e6 m), or
 *   strain    the largest relative edge strain |ℓ − ℓ₀|/ℓ₀ at the end of some step exceeds
 *             strain_limit (default 1: an edge stretched to twice its rest length), or
 *   energy    the kinetic energy ½ Σ m|v|² at the end of some step exceeds
 *             energy_factor · M |g| D (default factor 2), M the free mass and D the rest
 *             mesh's bounding-box diagonal: more than twice what falling the cloth's whole
 *             size could release, which no motion of the physical system can reach;
 * a solver that fails otherwise (e.g. a linear solve) is marked `failed`; everything else
 * is `stable`. Time steps run from the largest down, and once a run is stable the smaller
 * time steps of that solver and stiffness are not run but marked `assumed` (stable):
 * instability grows with dt, and the small steps of an implicit method are the costly
 * runs that would only confirm it. --exhaustive runs them all. The kinetic energy is measured from the model's velocities in weft_run's
 * on_step (solver time excludes it). PBD projects k_stretch constraints and ignores the
 * material's stretch stiffness, so its rows only vary with dt. symplectic_euler, the
 * explicit baseline, shows the CFL limit dt ≲ 2/ω_max ∝ sqrt(m/Y).
 *
 * Writes <out>/stability/summary.tsv (one row per run) and stability.png (a panel per
 * solver: dt across, stiffness up, a mark per run). */
#include "cli.h"
#include "sweep.h"

#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stability [options]\n"
    "Runs each solver on a grid of stretch stiffness x time step and marks each run stable\n"
    "or unstable (diverged, strain above the limit, or kinetic energy above the bound).\n"
    "\n"
    "  --scene NAME|FILE      built-in scene or .ini file (default hanging_cloth)\n"
    "  --solvers A,B,...      solvers (default: every registered solver that can run the\n"
    "                         scene, explicit ones included; --list-solvers prints them)\n"
    "  --list-solvers         print the solvers the run would use, then stop\n"
    "  --grid N               cloth of N x N vertices (--set mesh.nx=N mesh.ny=N; default 16\n"
    "                         for the default scene, else the scene's; 0: the scene's)\n"
    "  --stiffnesses LIST     stretch stiffness values, N/m (default 1e3,1e4,1e5,1e6,1e7;\n"
    "                         below 1e3 the hanging cloth's own weight stretches its corner\n"
    "                         edges past 100 %, so raise --strain-limit there)\n"
    "  --dts LIST             time steps, s, decimal or 1/N (default 1/7680,1/3840,1/1920,\n"
    "                         1/960,1/480,1/240,1/120,1/60,1/30,1/10)\n"
    "  --duration S           simulated time per run, s (default 1)\n"
    "  --max-steps N          but at most N steps per run (default 200)\n"
    "  --strain-limit X       unstable above this max relative edge strain (default 1)\n"
    "  --energy-factor F      unstable when kinetic energy > F * M|g|D (default 2)\n"
    "  --exhaustive           also run the time steps below a stable one (otherwise they\n"
    "                         are marked 'assumed': stability is taken to hold for smaller dt)\n"
    "  --iterations N         inner iterations per step (default: the scene's)\n"
    "  --threads N            OpenMP threads for parallel solvers\n"
    "  --set SECTION.KEY=VAL  override a scene value (repeatable)\n"
    "  --out DIR              results directory (default results); files go to DIR/stability/\n"
    "  --no-plot              skip gnuplot\n"
    "  -h, --help             this text\n"
    "\n"
    "Outputs:\n"
    "  DIR/stability/summary.tsv  one row per run; columns: solver stiffness_N_per_m dt_s\n"
    "                             steps steps_done status max_strain max_kinetic_ratio\n"
    "                             ms_per_step (status: stable, diverged, strain, energy,\n"
    "                             failed, assumed; max_kinetic_ratio = max kinetic / (M|g|D);\n"
    "                             '-' in the last three for an assumed row, which did not run)\n"
    "  DIR/stability/stability.png  a panel per solver: dt across, stiffness up\n"
    "stdout ends with the largest stable dt per solver and stiffness.\n";

static const char default_stiffnesses[] = "1e3,1e4,1e5,1e6,1e7";
static const char default_dts[] =
    "1/7680,1/3840,1/1920,1/960,1/480,1/240,1/120,1/60,1/30,1/10";

enum { MAX_LIST = 32 };

/* What the per-step callback tracks. */
typedef struct track {
    double max_strain, max_kinetic;
} track;

/* qsort order: largest first. */
static int descending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static void on_step(void *user, const weft_model *m, int step, const void *stage_stats) {
    (void)step, (void)stage_stats;
    track *t = user;
    double cmax, crms;
    weft_strain(m, m->x, &cmax, &crms);
    t->max_strain = fmax(t->max_strain, cmax);
    t->max_kinetic = fmax(t->max_kinetic, weft_sweep_kinetic(m));
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* each table row as it comes, even into a file */
    char command[2048];
    weft_sweep_command(argc, argv, command, sizeof command);
    static const char *const own[] = {"stiffnesses", "dts", "duration", "max-steps",
                                      "strain-limit", "energy-factor", "grid", NULL};
    const char *vals[7] = {default_stiffnesses, default_dts, "1", "200", "1", "2", NULL};
    weft_sweep_take(&argc, argv, own, vals);
    bool exhaustive = weft_sweep_flag(&argc, argv, "exhaustive");
    weft_cli cli;
    weft_cli_parse(argc, argv, &cli, usage);
    char grid_sets[2][32];
    int grid = weft_sweep_grid(&cli, vals[6], 16, grid_sets);
    weft_install_interrupt_handler();

    const weft_solver_type *solvers[16];
    int ns = cli.solvers ? weft_cli_solvers(cli.solvers, "--solvers", solvers, 16)
                         : weft_cli_default_solvers(&cli, WEFT_CLI_EXPLICIT, solvers, 16);
    if (ns < 0) return cli.solvers ? 2 : 1;
    if (weft_cli_print_solvers(&cli, solvers, ns)) return 0;
    double ks[MAX_LIST], dts[MAX_LIST];
    int nk = weft_sweep_numbers("stiffnesses", vals[0], ks, MAX_LIST);
    int nd = weft_sweep_numbers("dts", vals[1], dts, MAX_LIST);
    if (nk < 0 || nd < 0) return 2;
    qsort(dts, (size_t)nd, sizeof *dts, descending);
    double duration = weft_sweep_number("duration", vals[2]);
    int max_steps = weft_sweep_count("max-steps", vals[3], 1e8);
    double strain_limit = weft_sweep_number("strain-limit", vals[4]);
    double energy_factor = weft_sweep_number("energy-factor", vals[5]);
    if (cli.nset > 64 - 3) {
        fprintf(stderr, "error: too many --set options (61 at most here)\n");
        return 2;
    }

    /* Validate the scene once and learn its name and energy scale. */
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
    double g = sqrt(m.gravity[0] * m.gravity[0] + m.gravity[1] * m.gravity[1] +
                    m.gravity[2] * m.gravity[2]);
    double scale = weft_sweep_free_mass(&m) * g * weft_sweep_extent(&m); /* M|g|D, J */
    weft_model_free(&m);
    weft_config_free(&cfg);
    if (!(scale > 0.0)) {
        fprintf(stderr, "error: %s: no gravity or no free mass: the kinetic-energy bound "
                "M|g|D is 0\n", scene_name);
        return 1;
    }
    char grid_desc[64];
    if (grid)
        snprintf(grid_desc, sizeof grid_desc, "%d x %d vertices", grid, grid);
    else
        snprintf(grid_desc, sizeof grid_desc, "its own mesh");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/stability", cli.out);
    if (weft_mkdirs(dir) != 0) return 1;
    printf("stability: scene %s (%s), %d stiffnesses x %d time steps x %d solvers; %.3g s or "
           "at most %d steps per run\nunstable: diverged, max strain > %g, or kinetic energy > "
           "%g x M|g|D = %.4g J\nresults in %s/\n"
           "progress: one mark per run, largest dt first: '.' stable, 'x' unstable, ',' assumed\n\n",
           scene_name, grid_desc, nk, nd, ns, duration,
           max_steps, strain_limit, energy_factor, energy_factor * scale, dir);

    char path[1100], tmp[1200];
    snprintf(path, sizeof path, "%s/summary.tsv", dir);
    FILE *f = weft_sweep_open(path, tmp, sizeof tmp);
    if (!f) return 1;
    fprintf(f, "# stability: scene=%s grid=%d duration_s=%.17g max_steps=%d strain_limit=%.17g "
            "energy_factor=%.17g mgd_J=%.9e\n# command: %s\n", scene_name, grid, duration, max_steps,
            strain_limit, energy_factor, scale, command);
    fprintf(f, "solver\tstiffness_N_per_m\tdt_s\tsteps\tsteps_done\tstatus\tmax_strain\t"
            "max_kinetic_ratio\tms_per_step\n");
    /* stable[s][k][d]: run (solver s, stiffness k, dt d) was stable. */
    static bool stable[16][MAX_LIST][MAX_LIST];
    int status = 0;
    for (int s = 0; s < ns && status == 0; s++) {
        printf("%s:", solvers[s]->name);
        fflush(stdout);
        for (int k = 0; k < nk && status == 0; k++) {
            bool found = false; /* a larger dt was stable */
            for (int d = 0; d < nd && status == 0; d++) {
                if (found && !exhaustive) {
                    stable[s][k][d] = true;
                    fprintf(f, "%s\t%.17g\t%.17g\t%d\t0\tassumed\t-\t-\t-\n", solvers[s]->name,
                            ks[k], dts[d], (int)fmin(ceil(duration / dts[d] - 1e-9), max_steps));
                    putchar(',');
                    continue;
                }
                int steps = (int)ceil(duration / dts[d] - 1e-9);
                if (steps > max_steps) steps = max_steps;
                if (steps < 1) steps = 1;
                char a[64], b[64], c[64];
                snprintf(a, sizeof a, "material.stretch_stiffness=%.17g", ks[k]);
                snprintf(b, sizeof b, "scene.dt=%.17g", dts[d]);
                snprintf(c, sizeof c, "scene.steps=%d", steps);
                weft_cli run_cli = cli;
                run_cli.steps = -1;
                run_cli.set[run_cli.nset++] = a;
                run_cli.set[run_cli.nset++] = b;
                run_cli.set[run_cli.nset++] = c;
                if (weft_cli_build(&run_cli, &m, &cfg, &err) != WEFT_OK) {
                    fprintf(stderr, "\nerror: %s\n", err.msg);
                    status = 1;
                    break;
                }
                track tr = {0};
                weft_run_options opt = weft_run_options_default();
                opt.config = cfg;
                opt.log_level = WEFT_LOG_NONE;
                opt.on_step = on_step;
                opt.user = &tr;
                weft_run_result res;
                int rc = weft_run(solvers[s], &m, &opt, &res, &err);
                weft_model_free(&m);
                weft_config_free(&cfg);
                const char *st;
                if (rc == WEFT_ERR_INTERRUPTED) {
                    fprintf(stderr, "\nerror: %s\n", err.msg);
                    status = 1;
                    break;
                } else if (rc == WEFT_ERR_DIVERGED) {
                    st = "diverged";
                } else if (rc != WEFT_OK) {
                    st = "failed";
                    fprintf(stderr, "\nwarning: %s at Y = %g N/m, dt = %g s: %s\n",
                            solvers[s]->name, ks[k], dts[d], err.msg);
                } else if (tr.max_strain > strain_limit) {
                    st = "strain";
                } else if (tr.max_kinetic > energy_factor * scale) {
                    st = "energy";
                } else {
                    st = "stable";
                    stable[s][k][d] = found = true;
                }
                fprintf(f, "%s\t%.17g\t%.17g\t%d\t%d\t%s\t%.6e\t%.6e\t%.6f\n", solvers[s]->name,
                        ks[k], dts[d], steps, res.steps_done, st, tr.max_strain,
                        tr.max_kinetic / scale, res.ms_per_step);
                fflush(f);
                putchar(st[0] == 's' && st[1] == 't' && st[2] == 'a' ? '.' : 'x');
                fflush(stdout);
            }
        }
        putchar('\n');
    }
    if (weft_sweep_close(f, tmp, path, status == 0) != 0) status = 1;
    if (status != 0) return status;

    printf("\nlargest dt (s) at which it and every smaller dt tried were stable, per stretch "
           "stiffness (N/m);\n'-': not even the smallest\n");
    printf("%-18s", "solver");
    for (int k = 0; k < nk; k++) printf(" %11.3g", ks[k]);
    putchar('\n');
    for (int s = 0; s < ns; s++) {
        printf("%-18s", solvers[s]->name);
        for (int k = 0; k < nk; k++) {
            double largest = 0.0;
            for (int d = 0; d < nd; d++) {
                bool all = true;
                for (int e = 0; e < nd; e++)
                    if (dts[e] <= dts[d] && !stable[s][k][e]) all = false;
                if (all && dts[d] > largest) largest = dts[d];
            }
            if (largest > 0)
                printf(" %11.4g", largest);
            else
                printf(" %11s", "-");
        }
        putchar('\n');
    }
    printf("\nsummary: %s\n", path);
    if (cli.no_plot) return 0;
    char defs[4096], script[1100], out[1100], names[1024] = "";
    for (int s = 0; s < ns; s++) {
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", l ? " " : "", solvers[s]->name);
    }
    snprintf(out, sizeof out, "%s/stability.png", dir);
    snprintf(script, sizeof script, "%s/stability.gp", weft_plots_dir());
    snprintf(defs, sizeof defs, "summary='%s'; names='%s'; out='%s'; scene='%s'", path, names,
             out, scene_name);
    if (weft_gnuplot(defs, script) != 0) {
        fprintf(stderr, "error: gnuplot failed on %s\n", script);
        return 1;
    }
    printf("figure:  %s\n", out);
    return 0;
}
