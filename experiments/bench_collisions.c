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
#include "bench.h"

#include "weft_collision.h"
#include "weft_solvers.h"

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

static const weft_bench_column columns[] = {
    {"scene", "%s", "scene", "%-16s"},
    {"solver", "%s", "solver", " %-17s"},
    {"res", "%ld", "res", " %5ld"},
    {"vertices", "%ld", NULL, NULL},
    {"triangles", "%ld", NULL, NULL},
    {"broad_phase", "%s", "bp", " %-5s"},
    {"steps_done", "%ld", "steps", " %6ld"},
    {"ms_per_step", "%.4f", "ms/step", " %9.3f"},
    {"collision_ms_per_step", "%.4f", "coll ms/st", " %11.3f"},
    {"collision_share", "%.4f", "share", " %7.3f"},
    {"proximity_pairs_per_step", "%.1f", "prox pairs", " %11.1f"},
    {"swept_pairs_per_step", "%.1f", "swept pairs", " %11.1f"},
    {"ccd_passes_per_step", "%.3f", "passes", " %7.3f"},
    {"zone_rounds", "%ld", "zones", " %6ld"},
    {"unresolved_steps", "%ld", "unres", " %6ld"},
    {"agree", "%s", NULL, NULL},
    {NULL, NULL, "agree", "  %s"},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

/* Per-step work of the pipeline, summed over a run (a weft_run on_step callback). */
typedef struct work {
    double proximity_pairs, swept_pairs, ccd_iterations;
    long zone_iterations;
} work;

static void add_work(void *user, const weft_model *m, int step,
                     const void *stage_stats) {
    work *w = user;
    (void)m, (void)step;
    const weft_collision_stats *cs = stage_stats;
    if (!cs) return;
    w->proximity_pairs += (double)cs->proximity_pairs;
    w->swept_pairs += (double)cs->swept_pairs;
    w->ccd_iterations += cs->ccd_iterations;
    w->zone_iterations += cs->zone_iterations;
}

/* Builds the scene at res² vertices with the full pipeline and broad phase bp, and its
 * config into *cfg (cfg may be NULL). */
static int build(const weft_cli *cli, int res, const char *bp, weft_model *m,
                 weft_config **cfg, weft_error *err) {
    char broad[64];
    snprintf(broad, sizeof broad, "collision.broad_phase=%s", bp);
    const char *sets[] = {"collision.pipeline=bridson",
                          "collision.repulsions=true",
                          "collision.ccd=true",
                          "collision.impact_zones=true",
                          broad,
                          NULL};
    return weft_bench_build(cli, NULL, res, sets, 0, m, cfg, err);
}

int main(int argc, char **argv) {
    weft_cli cli;
    weft_bench_parse(argc, argv, &cli, usage, 7);
    weft_install_interrupt_handler();
    if (!cli.scene_given) cli.scene = "twisting_cloth";
    const weft_solver_type *solvers[16];
    int ns = weft_cli_solvers(cli.solvers ? cli.solvers : "pbd_gauss_seidel", "--solvers", solvers,
                              16);
    if (ns < 0) return 2;
    /* The scene must build before anything is written. */
    weft_error err = {{0}};
    weft_model m;
    if (build(&cli, 64, "bvh", &m, NULL, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    char scene[128];
    snprintf(scene, sizeof scene, "%s", m.scene_name);
    weft_model_free(&m);

    weft_bench_table t;
    if (weft_bench_open(&t, cli.out, "bench_collisions.tsv", columns, NCOLUMNS) != 0) return 1;
    weft_bench_comment(&t,
                       "bench_collisions: weft %s; one run per row; wall time per step: "
                       "ms_per_step = solver + collision pipeline, collision_ms_per_step = the "
                       "pipeline, share = their ratio; pairs and passes are per step; agree: the "
                       "hash run ends bitwise where the BVH run does",
                       WEFT_VERSION);
    weft_bench_header(&t);
    static const int sizes[] = {64, 128};
    static const char *const bps[] = {"bvh", "hash"};
    int status = 0;
    for (int k = 0; k < ns && status == 0; k++)
        for (int si = 0; si < 2 && status == 0; si++) {
            double *xref = NULL;
            for (int b = 0; b < 2 && status == 0; b++) {
                weft_config *cfg = NULL;
                if (build(&cli, sizes[si], bps[b], &m, &cfg, &err) != WEFT_OK) {
                    fprintf(stderr, "error: %s\n", err.msg);
                    status = 1;
                    break;
                }
                work w = {0};
                weft_run_options opt = weft_run_options_default();
                opt.log_level = WEFT_LOG_NONE;
                opt.config = cfg;
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
                weft_bench_value row[NCOLUMNS] = {
                    weft_bench_text(scene),
                    weft_bench_text(solvers[k]->name),
                    weft_bench_int(sizes[si]),
                    weft_bench_int(m.n),
                    weft_bench_int(m.mesh.nt),
                    weft_bench_text(bps[b]),
                    weft_bench_int(res.steps_done),
                    weft_bench_num(res.ms_per_step),
                    weft_bench_num(cms),
                    weft_bench_num(share),
                    weft_bench_num(w.proximity_pairs / n),
                    weft_bench_num(w.swept_pairs / n),
                    weft_bench_num(w.ccd_iterations / n),
                    weft_bench_int(w.zone_iterations),
                    weft_bench_int(res.collision_failures),
                    weft_bench_text(b == 0 ? "-" : agree ? "yes" : "no"),
                    weft_bench_text(b == 0 ? "-" : agree ? "yes" : "NO")};
                weft_bench_row(&t, row);
                weft_model_free(&m);
                weft_config_free(&cfg);
            }
            free(xref);
        }
    return weft_bench_close(&t, status != 0 ? "a run failed or the broad phases disagree" : NULL);
}
