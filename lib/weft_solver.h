/* weft_solver.h — logs, the solver descriptor, the monitor solvers report iterations to,
 * and the run loop (lib/log.c, lib/run.c).
 *
 * Units are SI: m, m/s, kg, s, J, N. Arrays of 3-vectors are flat: x[3*i + 0..2] is vertex i.
 */
#ifndef WEFT_SOLVER_H
#define WEFT_SOLVER_H

#include "weft_scene.h"

/* ------------------------------------------------------------------------------ */
/* Logs                                                                            */
/* ------------------------------------------------------------------------------ */

typedef enum { WEFT_LOG_NONE, WEFT_LOG_STEPS, WEFT_LOG_ITERATIONS } weft_log_level;

/* A per-iteration log file written to "<path>.partial" and renamed on completion. */
typedef struct weft_log weft_log;

/* Opens "<path>.partial" and writes the metadata lines ('#') and the column header. */
weft_log *weft_log_open(const char *path, const char *const *meta, weft_error *err);

/* Like weft_log_open, with the given column header instead of the metrics columns. */
weft_log *weft_log_open_columns(const char *path, const char *const *meta, const char *columns,
                                weft_error *err);

/* Writes one data row. */
void weft_log_row(weft_log *l, int step, int iter, double wall_s, const weft_metrics *mm);

/* Writes a formatted line (a row of a log opened with weft_log_open_columns). */
void weft_log_printf(weft_log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Closes the log. complete: writes "# status=complete" and renames to the final path;
 * otherwise writes "# status=incomplete reason=<reason>" and keeps ".partial". */
int weft_log_close(weft_log **l, bool complete, const char *reason, weft_error *err);

/* ------------------------------------------------------------------------------ */
/* Solvers: the descriptor and the monitor they report iterations to               */
/* ------------------------------------------------------------------------------ */

/* Receives the solver's inner iterations and turns them into metrics and log rows. */
typedef struct weft_monitor weft_monitor;

/* Called by a solver after inner iteration `iter` (0 = before the first) with the
 * current positions x; a NULL monitor is allowed and does nothing. Its last iteration
 * (iter = the solver's count) ends the step. */
void weft_monitor_iteration(weft_monitor *mon, const double *x, int iter);

/* Like weft_monitor_iteration, with the step's end marked by final. */
void weft_monitor_report(weft_monitor *mon, const double *x, int iter, bool final);

/* Ends the step at iteration iter with positions x, for a solver with a stopping test:
 * after the step's last row the log gets the line "# step S iter I stop=STATUS", status a
 * static word ("converged", "cap", "stalled"; docs/logs.md), optionally followed by one
 * space and a reason word of the solver's own, logged as "stop=WORD reason=REASON". Words
 * are letters, digits, '_' or '-', the status at most 15 characters, the reason at most
 * 31; a solver that breaks this fails its run. With x NULL, the iteration reported last
 * ends the step (a solver that finds it can go no further writes no row repeating an
 * unchanged state). "cap" and "stalled" are counted in weft_run_result, and every
 * (status, reason) pair in its stop_reasons. */
void weft_monitor_stop(weft_monitor *mon, const double *x, int iter, const char *status);

/* Adds one "key=value" field (letters, digits, '_', '=', '.', '+', '-'; at most 63
 * characters) to the stop line of the step the next weft_monitor_stop ends, after
 * "stop=WORD" (docs/logs.md): a solver's own per-step figure, such as IPC's criterion. */
void weft_monitor_step_field(weft_monitor *mon, const char *field);

/* Writes the row held for the iteration reported last now, from its positions and the
 * model as it stands: a solver calls it before it changes its objective within a step (a
 * contact model's stiffness or lagged friction), so that row is measured on the objective
 * it was reached on. */
void weft_monitor_flush(weft_monitor *mon);

/* Replaces, for the current step, the inertial target x̃ (3n values, m) and step h (s) of
 * the residual metric: BDF2 minimises G with its own x̃ and h = 2/3 dt. Call before
 * reporting iteration 0. */
void weft_monitor_set_target(weft_monitor *mon, const double *xt, double h);

/* Writes one row of the "<log>.linear" log: linear-solver iteration linear_iter (PPCG) or
 * solve (CHOLMOD) inside inner iteration iter, its relative residual and a status word. */
void weft_monitor_linear(weft_monitor *mon, int iter, int linear_iter, double rel_residual,
                         const char *status);

/* A monitor that only counts the inner iterations a solver reports (no metrics, no log,
 * nothing timed): for benchmarks that time steps with a monitor. Free it with free(). */
weft_monitor *weft_monitor_counter(void);

/* The inner iterations reported to a counting monitor: over the steps so far, the sum of
 * each step's last iteration (a step begins at iteration 0). */
long weft_monitor_counted(const weft_monitor *mon);

/* One way a solver's model departs from the scene's: the energy of term `term` replaced. */
typedef struct weft_model_change {
    int term;       /* index into m->terms */
    const char *to; /* what runs instead (a static string): an energy name, or a phrase */
    bool energy;    /* `to` is a registered energy a scene's [material] role can name */
} weft_model_change;

/* What a solver can run, declared on its descriptor (weft_model_diff_compute,
 * weft_solver_check, the studies' default solver lists). The physics switched on by
 * settings (the balloon's [pbd] k_pressure, [pbd] self_collision: WEFT_PARAM_MODEL rows)
 * it runs exactly when its own settings tables have the key; a contact model only when
 * contact_models names it (else it is refused, not marked). */
typedef struct weft_solver_caps {
    /* Order of accuracy in dt of the scheme it solves (1: backward or symplectic Euler,
     * 2: BDF2), for the accuracy study; 0 when it claims none (position-based methods,
     * whose answer depends on iterations and stiffness mapping). */
    int order;
    /* Its contact model with colliders, one phrase (listings). */
    const char *contact;
    /* The contact models a scene may name in [contact] model that it runs, besides none
     * (NULL-terminated names, e.g. {"ipc", NULL}; NULL: none of them). A run of a scene
     * naming another is refused at create (weft_solver_check, weft_solver_create). */
    const char *const *contact_models;
    /* The timers of its profile (stats hook) that time its contact model's handling
     * (IPC's pair set and CCD filter), NULL-terminated; NULL: none. Studies report their
     * sum as the contact handling's share of a step (weft_solver_contact_seconds). */
    const char *const *contact_timers;
    /* The terms of m it does not run as the scene gives them, into out[max]; returns how
     * many (at most max). NULL: it runs every energy term exactly (or refuses to run). */
    int (*model_changes)(const weft_model *m, weft_model_change *out, int max);
} weft_solver_caps;

/* A time integrator. One call of step advances the model by m->dt. */
typedef struct weft_solver_type {
    const char *name;      /* registered name, e.g. "pbd_gauss_seidel" */
    const char *paper;     /* paper key, e.g. "Mueller 2006, Algorithm 1" */
    const char *iteration; /* what one inner iteration means */
    const char *summary;   /* one line */
    /* Its settings: a struct of settings_size bytes described by the tables (section ==
     * NULL terminated; NULL when it has none). create takes them from the run's config. */
    size_t settings_size;
    const weft_param_table *settings;
    /* Allocates solver state for model m (all scratch memory is allocated here), with its
     * settings (and those of any linear solver it uses) taken from cfg by
     * weft_config_settings; cfg NULL means every default. */
    void *(*create)(const weft_model *m, weft_config *cfg, weft_error *err);
    /* Advances m by one step of m->dt, reporting each inner iteration to mon. */
    int (*step)(void *state, weft_model *m, weft_monitor *mon, weft_error *err);
    /* Frees the state; NULL is a no-op. */
    void (*destroy)(void *state);
    /* Fills out (emptied by the caller) with the run's timers and counters so far, summed
     * over every step since create; NULL when the method keeps none. Call it through
     * weft_solver_stats. */
    void (*stats)(const void *state, weft_profile *out);
    /* Writes into buf (size bytes, NUL-terminated) lines the log header adds about this
     * state, one per '\n' (e.g. a contact model's stiffness bounds); NULL, or "" written,
     * for none. */
    void (*header)(const void *state, char *buf, size_t size);
    /* Inner iterations per step when the method fixes their number (an explicit step makes
     * one force evaluation: 1); 0 when its settings' [solver] iterations decides. */
    int fixed_iterations;
    /* Inner iterations per step when the method's own settings decide them in another way
     * than [solver] iterations (XPBD: substeps × iterations per substep), from its settings
     * struct; NULL otherwise. Such a method keeps its count when experiments set or sweep
     * [solver] iterations. */
    int (*own_iterations)(const void *settings);
    /* True for a method that is stable only below a limit on dt (explicit integration):
     * experiments then run it only when it is named (--solvers or [scene] solvers). */
    bool conditionally_stable;
    /* True for a solver that solves linear systems and reports them with
     * weft_monitor_linear: weft_run then writes "<log>.linear". */
    bool linear_log;
    /* What it can run (order of accuracy, energies, contact). */
    weft_solver_caps caps;
} weft_solver_type;

/* Fails with WEFT_ERR_INPUT and one line, "NAME: [contact] model = M is run by A, B; set
 * contact.model=none" (NAME s's name, A, B the solvers of cfg that declare M, and where
 * cfg took M from in parentheses when it knows), when cfg names a contact model that s's
 * caps.contact_models lacks; WEFT_OK otherwise (cfg NULL: every default, no model). */
int weft_solver_check(const weft_solver_type *s, const weft_config *cfg, weft_error *err);

/* s's state for m (s->create) once weft_solver_check passes: the run loop, the studies'
 * solver lists and the benchmarks create solvers through it, so a solver never runs a
 * model it does not declare. NULL on failure, with the message in err. */
void *weft_solver_create(const weft_solver_type *s, const weft_model *m, weft_config *cfg,
                         weft_error *err);

/* The seconds of profile's timers that s's caps.contact_timers name (0 when it names none
 * or the profile lacks them). */
double weft_solver_contact_seconds(const weft_solver_type *s, const weft_profile *profile);

/* Most differences weft_model_diff_compute reports. */
#define WEFT_MODEL_DIFF_MAX 8

/* How the model a solver runs differs from the scene's (lib/model_diff.c). */
typedef struct weft_model_diff {
    int n;                               /* 0: the same model */
    char what[WEFT_MODEL_DIFF_MAX][160]; /* "bending dihedral_bending -> quadratic_bending",
                                            "pbd.k_pressure dropped" */
    char fix[WEFT_MODEL_DIFF_MAX][160];  /* the --set that makes the scene's model the
                                            solver's ("material.bending=quadratic_bending",
                                            "pbd.k_pressure=0"), or "" when none does */
    int more;                            /* differences found past the first
                                            WEFT_MODEL_DIFF_MAX, counted, not kept */
} weft_model_diff;

/* Fills d with how solver s's model differs from m's and cfg's (cfg may be NULL: no
 * setting switches physics on): energy terms its caps.model_changes replaces, and every
 * WEFT_PARAM_MODEL setting of any plug-in in cfg that is on while s's tables lack it. */
void weft_model_diff_compute(const weft_solver_type *s, const weft_model *m,
                             const weft_config *cfg, weft_model_diff *d);

/* "same", or "differs: " and d's differences separated by "; ", into buf. */
void weft_model_diff_format(const weft_model_diff *d, char *buf, size_t size);

/* The --set assignments that make the models agree, separated by sep, into buf; "" when
 * some difference has none. Returns true when every difference has one. */
bool weft_model_diff_fixes(const weft_model_diff *d, const char *sep, char *buf, size_t size);

/* Inner iterations per step of solver s: its fixed count, else what its own_iterations
 * hook makes of its settings in cfg, else its [solver] iterations setting in cfg (its
 * default when cfg is NULL), else 1. */
int weft_solver_iterations(const weft_solver_type *s, weft_config *cfg);

/* True when s decides its own inner iterations per step (fixed_iterations or
 * own_iterations), so that setting [solver] iterations does not change its work. */
bool weft_solver_sets_iterations(const weft_solver_type *s);

/* What a post-step stage reports of one step. */
typedef struct weft_stage_result {
    bool unresolved;   /* it stopped at its caps with work left (a collision failure) */
    double seconds;    /* its handling time, counted as solver time (the rest of its call,
                          e.g. diagnostics and its log row, is excluded) */
    const void *stats; /* stage-specific statistics of the step, handed to on_step (the
                          Bridson stage: a weft_collision_stats) */
} weft_stage_result;

/* A post-step stage: run by the run loop after every solver step, whatever the solver
 * (the Bridson collision pipeline). Registered as plug-ins of kind "stage" in the config. */
typedef struct weft_stage_type {
    const char *name;    /* e.g. "bridson" */
    const char *paper;
    const char *summary;
    size_t settings_size;
    const weft_param_table *settings;
    /* True when a scene with these settings runs the stage. */
    bool (*enabled)(const void *settings);
    /* True when it handles the model's triangle-mesh obstacles; a model with obstacles
     * needs one such stage enabled. `enable_hint` says how a scene turns it on. */
    bool handles_obstacles;
    const char *enable_hint; /* e.g. "[collision] pipeline = bridson" */
    /* Its per-step log "<log><log_suffix>" with these columns, or NULL for none. */
    const char *log_suffix;
    const char *log_columns;
    /* Makes its state for model m with its settings (copied). */
    void *(*create)(const weft_model *m, const void *settings, weft_error *err);
    /* Runs after the solver's step of m from t0 (x0: positions at t0, m->x, m->v after the
     * solver); writes a row to log (may be NULL) for step `step`. Returns WEFT_OK, a
     * warning or a negative error. */
    int (*step)(void *state, weft_model *m, const double *x0, double t0, int step,
                weft_log *log, weft_stage_result *out, weft_error *err);
    /* Frees the state; NULL is a no-op. */
    void (*destroy)(void *state);
} weft_stage_type;

/* The run's own settings ([scene] steps), a plug-in of kind "run" (lib/run.c). */
typedef struct weft_run_settings {
    int steps; /* steps of a run (default 120) */
    char solvers[WEFT_PARAM_STRING_MAX]; /* [scene] solvers: the solvers that suit the
                                            scene, which experiments run when none are
                                            named; comma-separated, "" when not given */
} weft_run_settings;

/* The table of weft_run_settings. */
extern const weft_param_table weft_run_tables[];

/* The profile of state (created by s) so far: out is emptied, then filled by s->stats. */
void weft_solver_stats(const weft_solver_type *s, const void *state, weft_profile *out);

/* Options of a simulation run. */
typedef struct weft_run_options {
    weft_log_level log_level; /* default ITERATIONS */
    const char *log_path;     /* final log path, or NULL for no log */
    const char *const *meta;  /* extra "key=value" metadata lines, NULL-terminated */
    int obj_every;            /* write an OBJ every N steps (0 = never) */
    const char *obj_prefix;   /* path prefix for OBJ frames */
    bool progress;            /* progress line on stderr when it is a terminal */
    /* The settings of the solver, its linear solver, the stages and the run (steps), and
     * the stages to run; NULL runs every default with no stage. */
    weft_config *config;
    /* Called after every completed step (solver, then post-step stages) with the model
     * at the step's end, the step's index and the first enabled stage's statistics of
     * that step (NULL without a stage); NULL for none. Its time is not counted as solver
     * time. */
    void (*on_step)(void *user, const weft_model *m, int step, const void *stage_stats);
    void *user;               /* handed to on_step */
} weft_run_options;

/* Most distinct (status, reason) pairs a run counts; a solver that reports more fails the
 * run with an error (never a silent drop). */
#define WEFT_STOP_REASONS_MAX 16

/* Steps of a run that ended with one status and one reason word (weft_monitor_stop
 * "STATUS REASON"); lib/ counts the words without knowing them. */
typedef struct weft_stop_count {
    char status[16]; /* e.g. "cap", "stalled" */
    char reason[32]; /* the solver's word, e.g. "slow" */
    int steps;
} weft_stop_count;

/* Summary of a finished run. */
typedef struct weft_run_result {
    int steps_done;
    double wall_s;            /* solver time excluding metrics and logging, s */
    double ms_per_step;
    long iterations;          /* inner iterations over the steps done: the sum of each
                                 step's last iteration (a Newton solver's Newton steps) */
    weft_metrics last;        /* metrics after the last iteration of the last step */
    int collision_failures;   /* steps whose post-step stage (collision pipeline) left work
                                 unresolved */
    int steps_capped;         /* steps the solver ended at its iteration cap short of its
                                 tolerance (log status "cap") */
    int steps_stalled;        /* steps it ended short of its tolerance because its objective
                                 no longer decreased beyond rounding (status "stalled") */
    int nstop_reasons;        /* entries of stop_reasons */
    weft_stop_count stop_reasons[WEFT_STOP_REASONS_MAX]; /* the steps per (status, reason
                                 word) the solver reported (weft_monitor_stop), sorted by
                                 status, then reason; steps without a reason word are not
                                 listed */
    double collision_s;       /* time in the post-step stages, s (included in wall_s) */
    weft_profile profile;     /* the solver's timers and counters over the run (stats hook) */
} weft_run_result;

/* Writes into out (size bytes) the reasons of res's steps with the given status, as
 * "REASON:STEPS" joined by commas in stop_reasons' order (e.g. "indefinite:10,slow:3"), or
 * "-" when there are none; with status NULL, every pair as "STATUS/REASON:STEPS". Returns
 * the length the text needs (as snprintf), so a result >= size means it was cut. */
int weft_run_stop_reasons(const weft_run_result *res, const char *status, char *out,
                          size_t size);

/* Default options: iteration logging, no OBJ output, no progress line. */
weft_run_options weft_run_options_default(void);

/* Runs the config's [scene] steps steps of solver on m, each followed by the config's
 * enabled post-step stages; stops with an error on divergence or SIGINT. */
int weft_run(const weft_solver_type *solver, weft_model *m, const weft_run_options *opt,
             weft_run_result *res, weft_error *err);

/* Checks what a run of m with cfg needs before it starts: a model with triangle-mesh
 * obstacles needs an enabled post-step stage that handles them, or a contact model
 * ([contact] model = ipc) that the solver runs (the error names the obstacle's scene line
 * and how to enable one). weft_run checks it too. */
int weft_run_check(weft_config *cfg, const weft_model *m, weft_error *err);

/* Marks taken in cfg every plug-in's settings that a run of solver on m reads: the run's
 * own, the enabled post-step stages', the solver's and those its create takes (the linear
 * solver and preconditioner its settings choose), by creating its state and destroying
 * it. Adds to the marks already there (weft_config_mark_clear forgets them), so probing
 * several solvers marks what a run of all of them reads. Fails when create fails. */
int weft_run_probe(const weft_solver_type *solver, const weft_model *m, weft_config *cfg,
                   weft_error *err);

/* Installs a SIGINT/SIGTERM handler that asks running simulations to stop. */
void weft_install_interrupt_handler(void);

/* True once SIGINT or SIGTERM has been received. */
bool weft_interrupted(void);

/* Monotonic wall clock, s. */
double weft_now(void);

#endif
