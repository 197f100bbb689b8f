/* accuracy.c — accuracy against cost of each integrator.
 *
 * Every solver runs `duration` seconds (default 1 s) of simulated time of one scene
 * (default hanging_cloth) at each time step of a sweep, and, when the scene decides its
 * iteration count (!weft_solver_sets_iterations: PBD, Newton), at each iteration count of a
 * second sweep. The final positions x are compared with those of a reference run x_ref
 * (default bdf2_newton at dt = 1/960 s, at most 20 Newton iterations, relative tolerance
 * 1e-9, which it reaches in about 3; second order, so that its own error stays well below
 * that of the first-order methods):
 *     error_rms = sqrt(Σᵢ |xᵢ − x_refᵢ|² / n),  error_max = maxᵢ |xᵢ − x_refᵢ|      (m)
 * over all n vertices (pinned ones have no error), against the run's solver wall time
 * (weft_run's wall_s: metrics and logging excluded). The reference's final positions are
 * cached in <out>/accuracy/reference-SCENE-HASH.pos, HASH an FNV-1a hash of everything
 * that decides them (the scene text, every --set, the reference's solver, dt, iteration
 * cap, tolerance and the duration), which the file also holds in full on its first line
 * and is checked on reading; a rerun with the same settings skips the reference run.
 * The key does not cover the solvers' code: delete the file after changing a solver.
 *
 * The error mixes two things a reader should keep apart: the integrator's truncation
 * error (first order for backward Euler, second for BDF2) and, for PBD, the difference
 * between its constraint model and the elastic material the reference simulates. */
#include "cli.h"
#include "sweep.h"

#include "weft_solvers.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: accuracy [options]\n"
    "Runs each solver over a sweep of time steps (and, where the scene sets the iteration\n"
    "count, of iteration counts) for a fixed simulated time, and measures the error of\n"
    "the final positions against a reference run, against solver wall time.\n"
    "\n"
    "  --scene NAME|FILE          built-in scene or .ini file (default hanging_cloth)\n"
    "  --grid N                   cloth of N x N vertices (--set mesh.nx=N mesh.ny=N; default\n"
    "                             16 for the default scene, else the scene's; 0: the scene's)\n"
    "  --solvers A,B,...          solvers (default: every registered solver that is stable\n"
    "                             at any dt, declares an order of accuracy and can run the\n"
    "                             scene; --list-solvers prints them)\n"
    "  --list-solvers             print the solvers the run would use, then stop\n"
    "  --dts LIST                 time steps, s, decimal or 1/N (default 1/30,1/60,1/120,1/240)\n"
    "  --iteration-counts LIST    iteration counts (Newton: caps) for solvers that take the\n"
    "                             scene's (default 4,16)\n"
    "  --duration S               simulated time per run, s (default 1); every dt must divide it\n"
    "  --reference NAME           reference solver (default bdf2_newton: second order, so its\n"
    "                             own error is far below the first-order methods')\n"
    "  --reference-dt DT          its time step, s (default 1/960); at most every dt of --dts\n"
    "  --reference-iterations N   its iteration cap (default 20)\n"
    "  --reference-tolerance T    its [solver] tolerance (default 1e-9; 0: the scene's)\n"
    "  --reference-dir DIR        where the reference's cache lives (default DIR/accuracy;\n"
    "                             runs of a sweep share one)\n"
    "  --threads N                OpenMP threads for parallel solvers\n"
    "  --set SECTION.KEY=VAL      override a scene value, for every run and the reference\n"
    "  --out DIR                  results directory (default results); files go to DIR/accuracy/\n"
    "  --no-plot                  skip gnuplot\n"
    "  -h, --help                 this text\n"
    "\n"
    "Outputs:\n"
    "  DIR/accuracy/summary.tsv   one row per run; columns: solver dt_s steps iterations\n"
    "                             wall_s ms_per_step error_rms_m error_max_m status\n"
    "                             (status ok or diverged; errors 'nan' when diverged)\n"
    "  DIR/accuracy/reference-SCENE-HASH.pos  cached reference positions (x y z per vertex),\n"
    "                             keyed by scene text, --set values and reference settings\n"
    "                             (not by the solver's code: delete it after changing one)\n"
    "  DIR/accuracy/accuracy.png  error against wall time (log-log) and against dt, a curve\n"
    "                             per solver and iteration count\n";

enum { MAX_LIST = 32 };

/* FNV-1a, 64 bits. */
static uint64_t fnv1a(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* The text of the scene cli names (built-in or file), malloc'd; NULL after an error. */
static char *scene_text(const char *scene) {
    for (const weft_builtin_scene *b = weft_builtin_scenes; b->name; b++)
        if (!strcmp(b->name, scene)) {
            char *t = malloc(strlen(b->text) + 1);
            if (t) strcpy(t, b->text);
            return t;
        }
    FILE *f = fopen(scene, "rb");
    if (!f) {
        fprintf(stderr, "error: %s: cannot read: %s\n", scene, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *t = malloc(cap);
    for (size_t r; t && (r = fread(t + n, 1, cap - n - 1, f)) > 0;) {
        n += r;
        if (n + 1 == cap) {
            char *u = realloc(t, cap *= 2);
            if (!u) free(t);
            t = u;
        }
    }
    fclose(f);
    if (t) t[n] = '\0';
    return t;
}

/* Builds the model of cli with extra "section.key=value" overrides (NULL-terminated). */
static int build(const weft_cli *cli, const char *const *extra, weft_model *m,
                 weft_config **cfg, weft_error *err) {
    weft_cli c = *cli;
    c.steps = -1;
    c.iterations = 0;
    for (const char *const *e = extra; *e; e++) {
        if (c.nset == 64) return weft_fail(err, WEFT_ERR_INPUT, "too many --set options");
        c.set[c.nset++] = *e;
    }
    return weft_cli_build(&c, m, cfg, err);
}

/* Number of steps of dt in duration, or -1 when dt does not divide it. */
static int steps_of(double duration, double dt) {
    double s = duration / dt;
    long r = lround(s);
    if (r < 1 || fabs(s - (double)r) > 1e-6 * s) return -1;
    return (int)r;
}

/* Reads cached reference positions (3n values) if path holds them for `key`. */
static bool read_reference(const char *path, const char *key, int n, double *x) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char line[8192];
    bool ok = fgets(line, sizeof line, f) && !strncmp(line, "# key: ", 7) &&
              !strncmp(line + 7, key, strlen(key)) && line[7 + strlen(key)] == '\n';
    int nn = -1;
    ok = ok && fscanf(f, "# vertices %d\n", &nn) == 1 && nn == n;
    for (int i = 0; ok && i < 3 * n; i++) ok = fscanf(f, "%lf", &x[i]) == 1 && isfinite(x[i]);
    fclose(f);
    return ok;
}

/* Writes reference positions x of n vertices for `key` to path (through .partial). */
static int write_reference(const char *path, const char *key, int n, const double *x) {
    /* A name of this process's own: runs of a sweep that share the cache may write the same
     * reference at once, and each rename then replaces the file whole. */
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%.1200s.%ld.partial", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "# key: %s\n# vertices %d\n", key, n);
    for (int i = 0; i < n; i++)
        fprintf(f, "%.17g %.17g %.17g\n", x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    return weft_sweep_close(f, tmp, path, true);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* each table row as it comes, even into a file */
    char command[2048];
    weft_sweep_command(argc, argv, command, sizeof command);
    static const char *const own[] = {"dts", "iteration-counts", "duration", "reference",
                                      "reference-dt", "reference-iterations",
                                      "reference-tolerance", "grid", "reference-dir", NULL};
    const char *vals[9] = {"1/30,1/60,1/120,1/240", "4,16", "1", "bdf2_newton", "1/960", "20",
                           "1e-9", NULL};
    weft_sweep_take(&argc, argv, own, vals);
    weft_cli cli;
    weft_cli_parse(argc, argv, &cli, usage);
    char grid_sets[2][32];
    int grid = weft_sweep_grid(&cli, vals[7], 16, grid_sets);
    weft_install_interrupt_handler();

    const weft_solver_type *solvers[16], *ref;
    int ns = cli.solvers ? weft_cli_solvers(cli.solvers, "--solvers", solvers, 16)
                         : weft_cli_default_solvers(&cli, WEFT_CLI_NEED_ORDER, solvers, 16);
    if (ns < 0 || weft_cli_solvers(vals[3], "--reference", &ref, 1) < 0) return 2;
    if (weft_cli_print_solvers(&cli, solvers, ns)) return 0;
    double dts[MAX_LIST], its_d[MAX_LIST];
    int nd = weft_sweep_numbers("dts", vals[0], dts, MAX_LIST);
    int ni = weft_sweep_numbers("iteration-counts", vals[1], its_d, MAX_LIST);
    if (nd < 0 || ni < 0) return 2;
    int its[MAX_LIST];
    for (int i = 0; i < ni; i++) {
        if (its_d[i] != floor(its_d[i]) || its_d[i] > 1e6) {
            fprintf(stderr, "error: --iteration-counts: %g is not a whole number >= 1\n", its_d[i]);
            return 2;
        }
        its[i] = (int)its_d[i];
    }
    double duration = weft_sweep_number("duration", vals[2]);
    double ref_dt = weft_sweep_number("reference-dt", vals[4]);
    int ref_its = weft_sweep_count("reference-iterations", vals[5], 1e6);
    char *end;
    errno = 0;
    double ref_tol = strtod(vals[6], &end);
    if (*end || end == vals[6] || errno || !(ref_tol >= 0) || !isfinite(ref_tol)) {
        fprintf(stderr, "error: --reference-tolerance: '%s' is not a number >= 0\n", vals[6]);
        return 2;
    }
    for (int d = 0; d < nd; d++)
        if (steps_of(duration, dts[d]) < 0) {
            fprintf(stderr, "error: --dts: dt = %.6g s does not divide the duration %.6g s\n",
                    dts[d], duration);
            return 2;
        }
    /* The reference stands in for the exact solution, so it must step at least as finely
     * as every run it judges (an equal dt with more iterations measures the iteration
     * error alone, and repeats the reference exactly at its own settings). */
    for (int d = 0; d < nd; d++)
        if (ref_dt > dts[d]) {
            fprintf(stderr, "error: --reference-dt: %.6g s is larger than dt = %.6g s of --dts "
                    "(the reference must step at least as finely as every run it judges)\n",
                    ref_dt, dts[d]);
            return 2;
        }
    int ref_steps = steps_of(duration, ref_dt);
    if (ref_steps < 0) {
        fprintf(stderr, "error: --reference-dt: %.6g s does not divide the duration %.6g s\n",
                ref_dt, duration);
        return 2;
    }

    weft_error err = {{0}};
    weft_model m;
    weft_config *cfg = NULL;
    const char *none[] = {NULL};
    if (build(&cli, none, &m, &cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    /* Every --set is read by a solver of the study or its reference. */
    const weft_solver_type *all[17];
    for (int k = 0; k < ns; k++) all[k] = solvers[k];
    all[ns] = ref;
    if (weft_cli_check_sets(&cli, all, ns + 1, &m, cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        weft_model_free(&m);
        weft_config_free(&cfg);
        return 1;
    }
    char scene_name[128];
    snprintf(scene_name, sizeof scene_name, "%s", m.scene_name);
    const int n = m.n;
    weft_model_free(&m);
    weft_config_free(&cfg);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/accuracy", cli.out);
    if (weft_mkdirs(dir) != 0) return 1;

    /* --- the reference ---------------------------------------------------------- */
    char key[4096];
    char *text = scene_text(cli.scene);
    if (!text) return 1;
    uint64_t scene_hash = fnv1a(1469598103934665603ULL, text, strlen(text));
    free(text);
    int kl = snprintf(key, sizeof key, "scene=%s text=%016llx solver=%s dt=%.17g iterations=%d "
                      "tolerance=%.17g duration=%.17g sets=", scene_name,
                      (unsigned long long)scene_hash, ref->name, ref_dt, ref_its, ref_tol,
                      duration);
    for (int i = 0; i < cli.nset && kl < (int)sizeof key; i++)
        kl += snprintf(key + kl, sizeof key - kl, "%s%s", i ? "," : "", cli.set[i]);
    if (kl >= (int)sizeof key - 1) {
        fprintf(stderr, "error: the reference's settings are too long to key its cache\n");
        return 2;
    }
    char ref_path[1200];
    const char *ref_dir = vals[8] ? vals[8] : dir;
    if (weft_mkdirs(ref_dir) != 0) return 1;
    snprintf(ref_path, sizeof ref_path, "%s/reference-%s-%016llx.pos", ref_dir, scene_name,
             (unsigned long long)fnv1a(1469598103934665603ULL, key, strlen(key)));
    double *xref = malloc(3 * (size_t)n * sizeof *xref);
    if (!xref) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    char grid_desc[64];
    if (grid)
        snprintf(grid_desc, sizeof grid_desc, "%d x %d vertices", grid, grid);
    else
        snprintf(grid_desc, sizeof grid_desc, "its own mesh");
    printf("accuracy: scene %s (%s), %.4g s per run; reference %s at dt = %.6g s (%d steps), "
           "iterations <= %d, tolerance %s\n", scene_name, grid_desc, duration, ref->name,
           ref_dt, ref_steps, ref_its, ref_tol > 0 ? vals[6] : "the scene's");
    if (read_reference(ref_path, key, n, xref)) {
        printf("reference: cached in %s\n", ref_path);
    } else {
        char a[64], b[64], c[64], t[64];
        snprintf(a, sizeof a, "scene.dt=%.17g", ref_dt);
        snprintf(b, sizeof b, "scene.steps=%d", ref_steps);
        snprintf(c, sizeof c, "solver.iterations=%d", ref_its);
        snprintf(t, sizeof t, "solver.tolerance=%.17g", ref_tol);
        const char *extra[] = {a, b, c, ref_tol > 0 ? t : NULL, NULL};
        if (build(&cli, extra, &m, &cfg, &err) != WEFT_OK) {
            fprintf(stderr, "error: reference: %s\n", err.msg);
            free(xref);
            return 1;
        }
        weft_run_options opt = weft_run_options_default();
        opt.config = cfg;
        opt.log_level = WEFT_LOG_NONE;
        opt.progress = true;
        weft_run_result res;
        int rc = weft_run(ref, &m, &opt, &res, &err);
        if (rc != WEFT_OK) {
            fprintf(stderr, "error: reference %s: %s\n", ref->name,
                    weft_cli_unprefixed(err.msg, ref->name));
            weft_model_free(&m);
            weft_config_free(&cfg);
            free(xref);
            return 1;
        }
        memcpy(xref, m.x, 3 * (size_t)n * sizeof *xref);
        weft_model_free(&m);
        weft_config_free(&cfg);
        if (write_reference(ref_path, key, n, xref) != 0) {
            free(xref);
            return 1;
        }
        printf("reference: ran in %.2f s, written to %s\n", res.wall_s, ref_path);
    }

    /* --- the sweep -------------------------------------------------------------- */
    char path[1100], tmp[1200];
    snprintf(path, sizeof path, "%s/summary.tsv", dir);
    FILE *f = weft_sweep_open(path, tmp, sizeof tmp);
    if (!f) {
        free(xref);
        return 1;
    }
    fprintf(f, "# accuracy: scene=%s duration_s=%.17g reference=%s\n# reference key: %s\n"
            "# command: %s\n", scene_name, duration, ref_path, key, command);
    fprintf(f, "solver\tdt_s\tsteps\titerations\twall_s\tms_per_step\terror_rms_m\terror_max_m\t"
            "status\n");
    printf("\n%-18s %10s %6s %6s %10s %12s %12s  %s\n", "solver", "dt", "steps", "iters",
           "wall s", "error rms m", "error max m", "status");
    int status = 0;
    for (int s = 0; s < ns && status == 0; s++) {
        bool sweep_its = !weft_solver_sets_iterations(solvers[s]);
        int nrun = sweep_its ? ni : 1;
        for (int i = 0; i < nrun && status == 0; i++) {
            for (int d = 0; d < nd && status == 0; d++) {
                int steps = steps_of(duration, dts[d]);
                char a[64], b[64], c[64];
                snprintf(a, sizeof a, "scene.dt=%.17g", dts[d]);
                snprintf(b, sizeof b, "scene.steps=%d", steps);
                snprintf(c, sizeof c, "solver.iterations=%d", its[i]);
                const char *extra[] = {a, b, sweep_its ? c : NULL, NULL};
                if (build(&cli, extra, &m, &cfg, &err) != WEFT_OK) {
                    fprintf(stderr, "error: %s\n", err.msg);
                    status = 1;
                    break;
                }
                int iterations = weft_solver_iterations(solvers[s], cfg);
                weft_run_options opt = weft_run_options_default();
                opt.config = cfg;
                opt.log_level = WEFT_LOG_NONE;
                opt.progress = true;
                weft_run_result res;
                int rc = weft_run(solvers[s], &m, &opt, &res, &err);
                double rms = NAN, mx = NAN;
                const char *st = "ok";
                if (rc == WEFT_ERR_DIVERGED) {
                    st = "diverged";
                } else if (rc != WEFT_OK) {
                    fprintf(stderr, "error: %s at dt = %.6g s: %s\n", solvers[s]->name, dts[d],
                            err.msg);
                    weft_model_free(&m);
                    weft_config_free(&cfg);
                    status = 1;
                    break;
                } else {
                    double sum = 0.0;
                    mx = 0.0;
                    for (int v = 0; v < n; v++) {
                        double d2 = 0.0;
                        for (int k = 0; k < 3; k++) {
                            double e = m.x[3 * v + k] - xref[3 * v + k];
                            d2 += e * e;
                        }
                        sum += d2;
                        mx = fmax(mx, sqrt(d2));
                    }
                    rms = sqrt(sum / n);
                }
                weft_model_free(&m);
                weft_config_free(&cfg);
                fprintf(f, "%s\t%.17g\t%d\t%d\t%.6f\t%.6f\t%.6e\t%.6e\t%s\n", solvers[s]->name,
                        dts[d], steps, iterations, res.wall_s, res.ms_per_step, rms, mx, st);
                fflush(f);
                printf("%-18s %10.6f %6d %6d %10.3f %12.4e %12.4e  %s\n", solvers[s]->name,
                       dts[d], steps, iterations, res.wall_s, rms, mx, st);
            }
        }
    }
    free(xref);
    if (weft_sweep_close(f, tmp, path, status == 0) != 0) status = 1;
    if (status != 0) return status;
    printf("\nsummary: %s\n", path);
    if (cli.no_plot) return 0;
    char defs[4096], script[1100], out[1100], names[1024] = "";
    for (int s = 0; s < ns; s++) {
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", l ? " " : "", solvers[s]->name);
    }
    char itlist[512] = "";
    for (int i = 0; i < ni; i++) {
        size_t l = strlen(itlist);
        snprintf(itlist + l, sizeof itlist - l, "%s%d", l ? " " : "", its[i]);
    }
    snprintf(out, sizeof out, "%s/accuracy.png", dir);
    snprintf(script, sizeof script, "%s/accuracy.gp", weft_plots_dir());
    snprintf(defs, sizeof defs, "summary='%s'; names='%s'; its='%s'; out='%s'; scene='%s'; "
             "reference='%s, dt = %.4g s'", path, names, itlist, out, scene_name, ref->name,
             ref_dt);
    if (weft_gnuplot(defs, script) != 0) {
        fprintf(stderr, "error: gnuplot failed on %s\n", script);
        return 1;
    }
    printf("figure:  %s\n", out);
    return 0;
}
