/* cli.h — what every experiment binary shares: command-line options (getopt_long),
 * scene loading with --set overrides, and results paths. */
#ifndef WEFT_CLI_H
#define WEFT_CLI_H

#include "weft.h"

/* Options common to the experiment binaries. */
typedef struct weft_cli {
    const char *scene;     /* built-in name or .ini path (default hanging_cloth) */
    bool scene_given;      /* --scene appeared (experiments with their own default) */
    const char *scenes;    /* --scenes: comma-separated scenes, for multi-scene experiments */
    const char *configs;   /* --configs: comma-separated configurations (collisions) */
    const char *solvers;   /* comma-separated solver names */
    const char *out;       /* results directory (default "results") */
    int iterations;        /* 0 = the scene's */
    int steps;             /* -1 = the scene's */
    int threads;           /* 0 = the scene's */
    int obj_every;         /* 0 = no OBJ frames */
    int plot_step;         /* -1 = the middle step */
    bool no_plot;
    bool profile;          /* --profile: print each solver's profile (compare) */
    bool animate;          /* --animate: write an animated GIF of every solver (compare) */
    bool list_solvers;     /* --list-solvers: print the solvers the run would use, then stop */
    bool same_model;       /* --same-model: refuse solvers that run another model than the
                              scene's (compare) */
    double time_budget_ms; /* --time-budget: wall ms per step that sets each iterative
                              solver's iterations (compare); 0 = off */
    bool force;            /* --force: a run into a folder with another run's results
                              clears the files weft owns there first */
    char rerun_scene[1100]; /* --rerun DIR: DIR/config.ini, which scene then points to */
    weft_log_level log;
    int nset;
    const char *set[64];   /* --set section.key=value, in order */
} weft_cli;

/* Parses argv into cli (--scenes and --configs only where allow_scenes), printing
 * nothing: WEFT_OK, 1 for --help, or WEFT_ERR_INPUT with the one-line error in err. */
int weft_cli_parse_args(int argc, char **argv, weft_cli *cli, bool allow_scenes,
                        weft_error *err);

/* Parses argv into cli; prints help and exits 0 for --help; one-line error and exit 2
 * for a bad option. `usage` is the program's own usage text. */
void weft_cli_parse(int argc, char **argv, weft_cli *cli, const char *usage);

/* Like weft_cli_parse, for experiments over several scenes: also accepts --scenes. */
void weft_cli_parse_scenes(int argc, char **argv, weft_cli *cli, const char *usage);

/* Loads cli->scene, applies --iterations/--steps/--threads and every --set, builds the
 * model into m and the run's config (every plug-in's settings) into *cfg (cfg may be
 * NULL: the settings are still checked); returns WEFT_OK or an error code with the
 * message in err (m then holds nothing to free). */
int weft_cli_build(const weft_cli *cli, weft_model *m, weft_config **cfg, weft_error *err);

/* Checks that every --set of cli is read by a run of the ns solvers on m: probes each
 * solver into cfg (weft_run_probe; the marks it leaves are what config.ini lists), then
 * fails with the one-line error of weft_config_check_read for a setting nothing reads.
 * A solver whose create fails leaves the check out (its run reports the error). */
int weft_cli_check_sets(const weft_cli *cli, const weft_solver_type *const *solvers, int ns,
                        const weft_model *m, weft_config *cfg, weft_error *err);

/* Makes results folder dir for compare's files and checks it holds no other run's
 * results: the files weft owns there (solver logs, summary.tsv, config.ini, frames,
 * shapes, figures). With force they are removed first; otherwise prints a one-line error
 * naming --force and a fresh folder. Returns 0 or -1. */
int weft_cli_prepare_out(const char *dir, bool force);

/* Writes path (dir/config.ini; through ".partial", renamed when complete; argv NULL: no
 * command line, "compare" in the rerun hint): the run's fully
 * resolved input as a scene file (weft_scene_write of cli's scene with its --set, model m
 * and the plug-ins cfg marks taken, solvers the run's comma-separated list) preceded by
 * the provenance as comments: weft version and git revision, build type, compiler and
 * flags, OpenMP threads, CPU model and cores, date, the command line. Returns WEFT_OK or
 * an error with the message in err. */
int weft_cli_write_config(const weft_cli *cli, const char *path, const char *solvers,
                          const weft_model *m, const weft_config *cfg, int argc,
                          char *const *argv, weft_error *err);

/* The value of an integer setting section.key in cfg (e.g. scene.steps, solver.threads,
 * solver.iterations), or dflt when no plug-in has it. */
int weft_cli_setting(const weft_config *cfg, const char *section, const char *key, int dflt);

/* msg without a leading "name: " (many solvers start their messages with their own name),
 * so that a caller printing "name: msg" names the solver once. */
const char *weft_cli_unprefixed(const char *msg, const char *name);

/* Resolves comma-separated solver names into out[max]; `where` names the list's origin
 * in the one-line error for an unknown name (which lists the registered ones). Returns
 * the count, or -1 after printing the error. */
int weft_cli_solvers(const char *list, const char *where, const weft_solver_type **out,
                     int max);

/* What a study asks of its default solvers (weft_cli_default_solvers). */
enum {
    WEFT_CLI_NEED_ORDER = 1, /* a declared order of accuracy (caps.order > 0) */
    WEFT_CLI_EXPLICIT = 2,   /* also the conditionally stable (explicit) methods */
};

/* The solvers a study runs by default (experiments/defaults.c): every registered solver
 * that is stable at any dt (or any, with WEFT_CLI_EXPLICIT in flags), declares an order of
 * accuracy with WEFT_CLI_NEED_ORDER, and accepts the model of cli's scene (its create
 * succeeds), in registry order, into out[max]. Returns the count, or -1 after printing the
 * scene's error. */
int weft_cli_default_solvers(const weft_cli *cli, unsigned flags, const weft_solver_type **out,
                             int max);

/* --list-solvers: prints "solvers: a,b,..." (the n solvers s) and returns true when cli
 * asks for it (the caller then exits 0); false otherwise. */
bool weft_cli_print_solvers(const weft_cli *cli, const weft_solver_type *const *s, int n);

/* Moves every coordinate of m->x by up to ±fraction of the mean rest edge length, from a
 * fixed-seed generator (the same state on every run), so a bench does not time the
 * trivial rest-state Hessian. */
void weft_cli_perturb(weft_model *m, double fraction, unsigned long long seed);

/* mkdir -p; returns 0 or prints an error and returns -1. */
int weft_mkdirs(const char *path);

/* Runs gnuplot on script with "-e" definitions; returns its exit status (-1 if it could
 * not run). gnuplot's messages go to a temporary log, copied to stderr only when it fails. */
int weft_gnuplot(const char *defs, const char *script);

/* Directory of the gnuplot scripts: $WEFT_PLOTS_DIR or the source tree's plots/. */
const char *weft_plots_dir(void);

#endif
