/* sweep_tool.c — the `sweep` binary: parameter sweeps as job lists for GNU parallel and
 * Slurm job arrays, and their merge. Its verbs, one file each (sweep_tool.h lists them):
 *   sweep plan SPEC [--out DIR]   DIR/jobs.txt (one shell line per run), manifest, spec.ini
 *   sweep merge DIR               DIR/merged.tsv and the figure DIR/NAME.png
 *   sweep slurm DIR [options]     DIR/slurm.sh, an sbatch array over the lines of jobs.txt
 * Running the lines (GNU parallel or one after another) is experiments/sweep_run.sh; the
 * SPEC format and the files are described in docs/experiments.md. This file holds the
 * usage text and the dispatch. */
#include "sweep_tool.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: sweep plan SPEC [--out DIR]\n"
    "       sweep merge DIR [--no-plot]\n"
    "       sweep slurm DIR [--chunk N] [--throttle N] [--time T] [--partition P] [--mem M]\n"
    "                       [--cpus N]\n"
    "\n"
    "plan   writes DIR/jobs.txt (one shell command line per run), DIR/manifest.tsv and\n"
    "       DIR/spec.ini; prints DIR on stdout. DIR defaults to results/sweeps/NAME.\n"
    "merge  writes DIR/merged.tsv (one row per run: job state solver AXES... repeat\n"
    "       METRICS... note; state complete, failed, incomplete or missing, metrics '-'\n"
    "       unless complete) and the figure DIR/NAME.png; exits 3 when a run is not complete.\n"
    "slurm  writes DIR/slurm.sh for `sbatch` (an array task per CHUNK jobs, at most\n"
    "       THROTTLE tasks at once (default 32), per-task logs in DIR/slurm/).\n"
    "\n"
    "SPEC sections (see experiments/sweeps/*.ini and the README):\n"
    "  [sweep]   name, program (compare, accuracy, damping, stability), scene (built-in\n"
    "            name or file relative to SPEC), solvers (list; missing or 'default':\n"
    "            every registered solver that can run the scene, as the program's\n"
    "            --list-solvers gives them), repeats (default 1),\n"
    "            metrics (summary columns to collect; default all), options (more\n"
    "            arguments for the program, split at spaces; {sweep} is DIR; not\n"
    "            --scene, --solvers, --set or --out)\n"
    "  [set]     KEY = VALUE: --set KEY=VALUE for every run\n"
    "  [axes]    KEY = LIST: the values of a scene key; LIST items are values, 1/N,\n"
    "            A:STEP:B (arithmetic, B included) or A:*F:B (geometric); items are\n"
    "            separated by ',' (or by '|' when a value holds commas)\n"
    "  [pass]    KEY = --OPTION: pass that axis as '--OPTION VALUE' instead of --set\n"
    "  [figure]  metric, x, y (axis keys or metrics), type (heatmap or lines), categories\n"
    "            (order of a text metric's values), colours (theirs, #rrggbb)\n";

/* Dispatches to plan, merge or slurm; frees the arena. */
int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    int (*verb)(int, char **) = !strcmp(argv[1], "plan")    ? sweep_plan
                                : !strcmp(argv[1], "merge") ? sweep_merge
                                : !strcmp(argv[1], "slurm") ? sweep_slurm
                                                            : NULL;
    if (!verb) {
        fprintf(stderr, "error: sweep: unknown command '%s' (plan, merge, slurm; see --help)\n",
                argv[1]);
        return 2;
    }
    int status = verb(argc - 1, argv + 1);
    sweep_arena_free();
    return status;
}
