/* bench_collisions.c — the cost of the collision pipeline of Bridson, Fedkiw & Anderson
 * 2002 (lib/collision/weft_collision.h) inside whole simulation steps: one scene (default
 * twisting_cloth) at 64² and 128² cloth vertices (--set mesh.nx, mesh.ny), run with the
 * full pipeline after each solver step, once with the bounding-box hierarchy and once
 * with the spatial hash as its broad phase. Reported per step: the pipeline's wall time
 * and its share of the whole step (solver + pipeline; metrics and logging are excluded
 * by weft_run), and the work behind it: broad-phase pairs tested for repulsion and by
 * CCD, CCD passes, impact-zone rounds. The two broad phases return the same sorted pair
 * lists, so both runs must end in bitwise the same positions: the `agree` column checks
 * it (a mismatch fails the benchmark). Each figure comes from one run on a machine that
 * may be shared: compare rows of one file, not files of different days.
 * Writes <out>/bench_collisions.tsv (renamed into place when complete). */
#include "cli.h"

#include "weft_collision.h"
#include "weft_solvers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: bench_collisions [options]\n"
    "Times the collision pipeline (repulsions, CCD, impact zones) inside whole steps of a\n"
    "scene at 64^2 and 128^2 cloth vertices, with the BVH and with the spatial hash;\n"
    "writes DIR/bench_collisions.tsv.\n"
    "  --scene NAME|FILE      scene (default twisting_cloth)\n"
    "  --solvers A,B,...      solvers (default pbd_gauss_seidel)\n"
    "  --steps N              time steps (default: the scene's)\n"
    "  --iterations N         inner iterations per step (default: the scene's)\n"
    "  --set SECTION.KEY=VAL  override a scene value (repeatable)\n"
    "  --out DIR              results directory (default results)\n";

/* Per-step work of the pipeline, summed over a run (a weft_run on_step callback). */
typedef struct work {
    double proximity_pairs, swept_pairs, ccd_iterations;
    long zone_iterations;
} work;

static void add_work(void *user, const weft_model *m, int step,
                     const struct weft_collision_stats *cs) {
    work *w = user;
    (void)m, (void)step;
    if (!cs) return;
    w->proximity_pairs += (double)cs->proximity_pairs;
    w->swept_pairs += (double)cs->swept_pairs;
    w->ccd_iterations += cs->ccd_iterations;
    w->zone_iterations += cs->zone_iterations;
}

/* Builds the scene at res² vertices with the full pipeline and broad phase bp. */
static int build(const weft_cli *cli, int res, const char *bp, weft_model *m, weft_error *err) {
    weft_cli one = *cli;
    char nx[32], ny[32], broad[64];
    snprintf(nx, sizeof nx, "mesh.nx=%d", res);
    snprintf(ny, sizeof ny, "mesh.ny=%d", res);
    snprintf(broad, sizeof broad, "collision.broad_phase=%s", bp);
    const char *sets[] = {nx,
                          ny,
                          "collision.pipeline=bridson",
                          "collision.repulsions=true",
                          "collision.ccd=true",
                          "collision.impact_zones=true",
                          broad};
    for (int i = 0; i < 7; i++) one.set[one.nset++] = sets[i];
    return weft_cli_build(&one, m, err);
}

int main(int argc, char **argv) {
    weft_cli cli;
    weft_cli_parse(argc, argv, &cli, usage);
    weft_install_interrupt_handler();
    if (!cli.scene_given) cli.scene = "twisting_cloth";
    if (cli.nset > 57) {
        fprintf(stderr, "error: --set: at most 57 here (the benchmark adds 7)\n");
        return 2;
    }
    char solver_buf[512];
    snprintf(solver_buf, sizeof solver_buf, "%s", cli.solvers ? cli.solvers : "pbd_gauss_seidel");
    const weft_solver_type *solvers[16];
    int ns = 0;
    char *save = NULL;
    for (char *t = strtok_r(solver_buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
        const weft_solver_type *s = weft_solver_find(t);
        if (!s || ns == 16) {
            fprintf(stderr, "error: --solvers: %s '%s'\n",
                    s ? "too many solvers at" : "unknown solver", t);
            return 2;
        }
        solvers[ns++] = s;
    }
    if (ns == 0) {
        fprintf(stderr, "error: --solvers: empty list\n");
        return 2;
    }
    /* The scene must build before anything is written. */
    weft_error err = {{0}};
    weft_model m;
    if (build(&cli, 64, "bvh", &m, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    char scene[128];
    snprintf(scene, sizeof scene, "%s", m.scene_name);
    weft_model_free(&m);

    if (strlen(cli.out) > 1000) {
        fprintf(stderr, "error: --out: a path of at most 1000 characters\n");
        return 2;
    }
    if (weft_mkdirs(cli.out) != 0) return 1;
    char path[1100], tmp[1200];
    snprintf(path, sizeof path, "%s/bench_collisions.tsv", cli.out);
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
        return 1;
    }
    fprintf(f,
            "# bench_collisions: weft %s; one run per row; wall time per step: ms_per_step = "
            "solver + collision pipeline, collision_ms_per_step = the pipeline, share = their "
            "ratio; pairs and passes are per step; agree: the hash run ends bitwise where the "
            "BVH run does\n",
            WEFT_VERSION);
    fprintf(f, "scene\tsolver\tres\tvertices\ttriangles\tbroad_phase\tsteps_done\tms_per_step\t"
               "collision_ms_per_step\tcollision_share\tproximity_pairs_per_step\t"
               "swept_pairs_per_step\tccd_passes_per_step\tzone_rounds\tunresolved_steps\t"
               "agree\n");
    printf("%-16s %-17s %5s %-5s %6s %9s %11s %7s %11s %11s %7s %6s %6s  %s\n", "scene", "solver",
           "res", "bp", "steps", "ms/step", "coll ms/st", "share", "prox pairs", "swept pairs",
           "passes", "zones", "unres", "agree");
    static const int sizes[] = {64, 128};
    static const char *const bps[] = {"bvh", "hash"};
    int status = 0;
    for (int k = 0; k < ns && status == 0; k++)
        for (int si = 0; si < 2 && status == 0; si++) {
            double *xref = NULL;
            for (int b = 0; b < 2 && status == 0; b++) {
                if (build(&cli, sizes[si], bps[b], &m, &err) != WEFT_OK) {
                    fprintf(stderr, "error: %s\n", err.msg);
                    status = 1;
                    break;
                }
                work w = {0};
                weft_run_options opt = weft_run_options_default();
                opt.log_level = WEFT_LOG_NONE;
                opt.on_step = add_work;
                opt.user = &w;
                opt.progress = true;
                weft_run_result res;
                int rc = weft_run(solvers[k], &m, &opt, &res, &err);
                if (rc != WEFT_OK) {
                    fprintf(stderr, "error: %s %s at %d^2, %s: %s\n", scene, solvers[k]->name,
                            sizes[si], bps[b], err.msg);
                    status = 1;
                }
                bool agree = true;
                size_t bytes = 3 * (size_t)m.n * sizeof *m.x;
                if (b == 0) {
                    xref = malloc(bytes);
                    if (xref) memcpy(xref, m.x, bytes);
                } else {
                    agree = xref && memcmp(xref, m.x, bytes) == 0;
                    if (!agree) {
                        fprintf(stderr,
                                "error: %s at %d^2: BVH and hash runs end at different "
                                "positions\n",
                                scene, sizes[si]);
                        status = 1;
                    }
                }
                double n = res.steps_done > 0 ? res.steps_done : 1;
                double cms = 1e3 * res.collision_s / n;
                double share = res.wall_s > 0 ? res.collision_s / res.wall_s : 0.0;
                fprintf(
                    f,
                    "%s\t%s\t%d\t%d\t%d\t%s\t%d\t%.4f\t%.4f\t%.4f\t%.1f\t%.1f\t%.3f\t%ld\t%d\t%s\n",
                    scene, solvers[k]->name, sizes[si], m.n, m.mesh.nt, bps[b], res.steps_done,
                    res.ms_per_step, cms, share, w.proximity_pairs / n, w.swept_pairs / n,
                    w.ccd_iterations / n, w.zone_iterations, res.collision_failures,
                    b == 0  ? "-"
                    : agree ? "yes"
                            : "no");
                printf("%-16s %-17s %5d %-5s %6d %9.3f %11.3f %7.3f %11.1f %11.1f %7.3f %6ld %6d  "
                       "%s\n",
                       scene, solvers[k]->name, sizes[si], bps[b], res.steps_done, res.ms_per_step,
                       cms, share, w.proximity_pairs / n, w.swept_pairs / n, w.ccd_iterations / n,
                       w.zone_iterations, res.collision_failures,
                       b == 0  ? "-"
                       : agree ? "yes"
                               : "NO");
                fflush(stdout);
                weft_model_free(&m);
            }
            free(xref);
        }
    if (status != 0) {
        fprintf(f, "# status=incomplete\n");
        fclose(f);
        fprintf(stderr, "error: benchmark incomplete; %s kept\n", tmp);
        return 1;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "error: %s: cannot write\n", path);
        return 1;
    }
    printf("\nwrote %s\n", path);
    return 0;
}
