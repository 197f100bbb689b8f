/* run.c — the simulation loop shared by every experiment: create the solver, step it
 * [scene] steps times, run the post-step stages after each step, and turn the inner
 * iterations the solver reports into metrics and log rows.
 *
 * Everything a run uses comes from its config (weft_run_options.config): the solver's
 * settings (taken by its create), the steps (weft_run_tables), and the post-step stages,
 * the config's plug-ins of kind "stage" whose settings enable them (the Bridson
 * collision pipeline, lib/collision/bridson_stage.c). The log header lists the settings
 * of exactly what ran, from their tables.
 *
 * A stage runs after every solver step, whatever the solver (the slides' "separation
 * from internal dynamics"): it sees the positions x0 before the step, m->x and m->v
 * after it, and may move them. Its per-step statistics go to its own log
 * "<log><suffix>", written like the main log (".partial" until the run completes). The
 * main log's rows are the solver's inner iterations, taken before any stage moves the
 * positions. The row that ends a step is computed after the solver's step returns, from
 * the positions it hands back (m->x) and the step's dt, so that every metric of it
 * (residual, strain, energy, volume) means the same for every solver, whatever the solver
 * does after its last report (a velocity update, a substep's dt in m->dt). A stage's handling time counts as solver time; its diagnostics and log rows
 * do not. A step whose stage gives up at its caps is counted in
 * weft_run_result.collision_failures. A model with triangle-mesh obstacles needs an
 * enabled stage that handles them (the solvers do not see them). After each step an
 * optional callback (weft_run_options.on_step) sees the model and the first stage's
 * statistics of the step; its time is excluded like the metrics'.
 *
 * Wall time in the log is solver time only: the time spent computing metrics and
 * writing rows is measured and subtracted, so logging does not distort the
 * per-second convergence plots. A run stops with an error when a position becomes
 * non-finite (divergence) or on SIGINT/SIGTERM, and its log is closed as incomplete. */
#include "weft.h"

#include <stddef.h>

#include <ctype.h>
#include <limits.h>
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
    double dt;       /* the step's dt, s (a substepping solver changes m->dt in its step) */
    double h_target; /* step h of the residual's G (dt unless the solver sets it) */
    double t1;       /* the step's end time: where moving colliders stand, s */
    double r0;
    double t_start, t_excluded;
    weft_metrics last;
    bool have_last;
    bool nonfinite; /* a metric came out NaN or inf */
    /* The last reported iteration, not yet written: a solver may still find that it ends
     * the step (weft_monitor_stop with x = NULL), so that no row repeats a state. */
    double *pend_x;
    int pend_iter;
    double pend_wall;
    bool pending;
    /* The row that ends the step, held until the solver returns (finish_step): its
     * iteration, solver time and status. */
    int fin_iter;
    double fin_wall;
    char fin_status[64];
    bool fin_pending;
    char note[64], fin_note[64]; /* weft_monitor_step_field's, for the next stop / this one */
    int capped, stalled; /* steps that ended with status "cap", "stalled" */
    long iterations;     /* the sum of the ended steps' last iterations */
    int nreasons;        /* the steps per (status, reason word), sorted */
    weft_stop_count reasons[WEFT_STOP_REASONS_MAX];
    char stop_error[200]; /* why the solver's status broke the protocol; "" while it holds */
    /* A counting monitor (weft_monitor_counter): only the iterations reported are kept. */
    bool counting;
    long counted;  /* iterations of the steps before the current one */
    int step_iters; /* the largest iteration reported in the current step */
};

void weft_monitor_iteration(weft_monitor *mon, const double *x, int iter) {
    if (mon) weft_monitor_report(mon, x, iter, !mon->counting && iter == mon->last_iter);
}

/* Length of the word at p (letters, digits, '_', '-'), up to the first other character. */
static int word_length(const char *p) {
    int n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '-') n++;
    return n;
}

/* Checks a solver's stop status "STATUS" or "STATUS REASON" (weft_monitor_stop): false,
 * with the first breach in mon->stop_error, when it is not one or two words of at most
 * the table's sizes. */
static bool stop_status_ok(weft_monitor *mon, const char *status) {
    const int wlen = word_length(status);
    const char *reason = status[wlen] == ' ' ? status + wlen + 1 : NULL;
    const int rlen = reason ? word_length(reason) : 0;
    const char *why = NULL;
    if (wlen == 0 || wlen >= (int)sizeof mon->reasons[0].status)
        why = "its first word must be 1 to 15 letters, digits, '_' or '-'";
    else if (reason ? rlen == 0 || rlen >= (int)sizeof mon->reasons[0].reason || reason[rlen]
                    : status[wlen] != '\0')
        why = "a status word may be followed by one space and one reason word of 1 to 31 "
              "letters, digits, '_' or '-', and nothing else";
    if (why && !mon->stop_error[0])
        snprintf(mon->stop_error, sizeof mon->stop_error, "stop status '%.60s': %s", status, why);
    return why == NULL;
}

/* Counts a step that ended with status (checked by stop_status_ok): "cap" and "stalled" in
 * their totals, and a status with a reason word in the sorted table of (status, reason),
 * whatever the words; a new pair beyond WEFT_STOP_REASONS_MAX sets mon->stop_error. */
static void count_stop(weft_monitor *mon, const char *status) {
    const char *sp = strchr(status, ' ');
    const int wlen = sp ? (int)(sp - status) : (int)strlen(status);
    if (wlen == 3 && !strncmp(status, "cap", 3)) mon->capped++;
    if (wlen == 7 && !strncmp(status, "stalled", 7)) mon->stalled++;
    if (!sp) return;
    weft_stop_count key = {.steps = 1};
    snprintf(key.status, sizeof key.status, "%.*s", wlen, status);
    snprintf(key.reason, sizeof key.reason, "%s", sp + 1);
    int i = 0, c = 1;
    for (; i < mon->nreasons; i++) {
        c = strcmp(key.status, mon->reasons[i].status);
        if (c == 0) c = strcmp(key.reason, mon->reasons[i].reason);
        if (c <= 0) break;
    }
    if (i < mon->nreasons && c == 0) {
        mon->reasons[i].steps++;
        return;
    }
    if (mon->nreasons == WEFT_STOP_REASONS_MAX) {
        if (!mon->stop_error[0])
            snprintf(mon->stop_error, sizeof mon->stop_error,
                     "stop status '%s' would be distinct (status, reason) pair number %d; a "
                     "run counts at most %d", status, WEFT_STOP_REASONS_MAX + 1,
                     WEFT_STOP_REASONS_MAX);
        return;
    }
    memmove(&mon->reasons[i + 1], &mon->reasons[i],
            (size_t)(mon->nreasons - i) * sizeof mon->reasons[0]);
    mon->reasons[i] = key;
    mon->nreasons++;
}

int weft_run_stop_reasons(const weft_run_result *res, const char *status, char *out,
                          size_t size) {
    size_t len = 0;
    for (int i = 0; i < res->nstop_reasons; i++) {
        const weft_stop_count *e = &res->stop_reasons[i];
        if (status && strcmp(status, e->status) != 0) continue;
        int n = snprintf(len < size ? out + len : NULL, len < size ? size - len : 0,
                         "%s%s%s%s:%d", len ? "," : "", status ? "" : e->status,
                         status ? "" : "/", e->reason, e->steps);
        if (n < 0) return n;
        len += (size_t)n;
    }
    if (len == 0) return snprintf(out, size, "-");
    return len > INT_MAX ? INT_MAX : (int)len;
}

/* Metrics of iteration iter at x and its row, reported at solver time wall (s); status:
 * NULL for a row that does not end its step, else "fixed" (a solver without a stopping
 * test) or the stop's word, written on a '#' line after the row. */
static void emit(weft_monitor *mon, const double *x, int iter, double wall, const char *status) {
    const bool final = status != NULL;
    /* Iteration 0 gives r0 to the rows that follow; with logging off only the last step's
     * metrics are taken (for the run's summary). */
    const bool last_step = mon->step == mon->last_step;
    bool want = mon->level == WEFT_LOG_ITERATIONS ||
                (mon->level == WEFT_LOG_STEPS && (iter == 0 || final)) ||
                (last_step && (iter == 0 || final));
    /* status: a word, optionally followed by one space and a reason word */
    const char *reason = final ? strchr(status, ' ') : NULL;
    const int wlen = final ? (reason ? (int)(reason - status) : (int)strlen(status)) : 0;
    if (!want) return;
    weft_metrics mm;
    weft_metrics_compute(mon->m, x, mon->xn, mon->dt, mon->xt, mon->h_target, mon->t1, mon->r0,
                         mon->scratch, &mm);
    if (iter == 0) {
        mon->r0 = mm.residual;
        mm.residual_rel = mm.residual > 0 ? 1.0 : 0.0;
    }
    if (!isfinite(mm.residual) || !isfinite(mm.residual_rel) || !isfinite(mm.energy) ||
        !isfinite(mm.cmax)) {
        mon->nonfinite = true; /* never write NaN: the run loop stops with a message */
        return;
    }
    if (mon->log &&
        (mon->level == WEFT_LOG_ITERATIONS || (mon->level == WEFT_LOG_STEPS && final))) {
        weft_log_row(mon->log, mon->step, iter, wall, &mm);
        if (final && strcmp(status, "fixed") != 0) {
            /* A step that ends short of its tolerance also says how much of ‖r‖² sits at
             * the contacts (before the reason, which stays the line's last field). */
            char share[48] = "";
            if (strncmp(status, "converged", 9) != 0)
                snprintf(share, sizeof share, " residual_at_contacts=%.2f",
                         mm.residual > 0.0 ? mm.residual_contact * mm.residual_contact /
                                                 (mm.residual * mm.residual)
                                           : 0.0);
            weft_log_printf(mon->log, "# step %d iter %d stop=%.*s%s%s%s%s%s\n", mon->step, iter,
                            wlen, status, mon->fin_note[0] ? " " : "", mon->fin_note, share,
                            reason ? " reason=" : "", reason ? reason + 1 : "");
        }
    }
    if (final) {
        mon->last = mm;
        mon->have_last = true;
    }
}

/* Writes the pending row, if any, as one that does not end its step. */
static void flush(weft_monitor *mon) {
    if (!mon->pending) return;
    mon->pending = false;
    emit(mon, mon->pend_x, mon->pend_iter, mon->pend_wall, NULL);
}

/* Holds the row that ends the step (iteration iter at solver time wall, with status) until
 * the solver returns: finish_step computes it from the state the solver hands back. */
static void hold_final(weft_monitor *mon, int iter, double wall, const char *status) {
    WEFT_ASSERT(!mon->fin_pending); /* one row ends a step */
    snprintf(mon->fin_status, sizeof mon->fin_status, "%s", status);
    snprintf(mon->fin_note, sizeof mon->fin_note, "%s", mon->note);
    mon->note[0] = '\0';
    mon->fin_iter = iter, mon->fin_wall = wall, mon->fin_pending = true;
}

/* Writes the held row that ends the step, computed at x (the model's positions after the
 * solver's step), if the solver ended its step. */
static void finish_step(weft_monitor *mon, const double *x) {
    if (!mon->fin_pending) return;
    mon->fin_pending = false;
    mon->iterations += mon->fin_iter;
    count_stop(mon, mon->fin_status);
    emit(mon, x, mon->fin_iter, mon->fin_wall, mon->fin_status);
}

/* A counting monitor's record of iteration iter: iteration 0 starts a new step. */
static void count_iteration(weft_monitor *mon, int iter) {
    if (iter == 0) mon->counted += mon->step_iters, mon->step_iters = 0;
    if (iter > mon->step_iters) mon->step_iters = iter;
}

weft_monitor *weft_monitor_counter(void) {
    weft_monitor *mon = calloc(1, sizeof *mon);
    if (mon) mon->counting = true;
    return mon;
}

long weft_monitor_counted(const weft_monitor *mon) {
    return mon ? mon->counted + mon->step_iters : 0;
}

void weft_monitor_report(weft_monitor *mon, const double *x, int iter, bool final) {
    if (!mon) return;
    if (mon->counting) {
        count_iteration(mon, iter);
        return;
    }
    double t0 = weft_now();
    /* A solver reports iterations 0 .. its count per step (weft_solver_iterations). */
    WEFT_ASSERT(iter >= 0 && iter <= mon->last_iter);
    WEFT_ASSERT(iter > 0 || !mon->pending); /* the previous step ended with a final row */
    double wall = t0 - mon->t_start - mon->t_excluded;
    flush(mon);
    if (final) {
        hold_final(mon, iter, wall, "fixed");
    } else {
        memcpy(mon->pend_x, x, 3 * (size_t)mon->m->n * sizeof *x);
        mon->pend_iter = iter, mon->pend_wall = wall, mon->pending = true;
    }
    mon->t_excluded += weft_now() - t0;
}

void weft_monitor_stop(weft_monitor *mon, const double *x, int iter, const char *status) {
    if (!mon) return;
    if (mon->counting) {
        if (x) count_iteration(mon, iter);
        return;
    }
    double t0 = weft_now();
    /* A status that breaks the protocol ends the step as "fixed" (nothing counted, no stop
     * line) and, through stop_error, the run. */
    if (!stop_status_ok(mon, status)) status = "fixed";
    if (!x) {
        WEFT_ASSERT(mon->pending);
        mon->pending = false;
        hold_final(mon, mon->pend_iter, mon->pend_wall, status);
    } else {
        WEFT_ASSERT(iter >= 0 && iter <= mon->last_iter);
        double wall = t0 - mon->t_start - mon->t_excluded;
        flush(mon);
        hold_final(mon, iter, wall, status);
    }
    mon->t_excluded += weft_now() - t0;
}

void weft_monitor_step_field(weft_monitor *mon, const char *field) {
    if (!mon || mon->counting) return;
    size_t n = 0;
    while (field[n] && (isalnum((unsigned char)field[n]) || strchr("_=.+-", field[n]))) n++;
    WEFT_ASSERT(field[n] == '\0' && n < sizeof mon->note); /* the solver's own words */
    snprintf(mon->note, sizeof mon->note, "%s", field);
}

void weft_monitor_flush(weft_monitor *mon) {
    if (!mon || mon->counting) return;
    double t0 = weft_now();
    flush(mon);
    mon->t_excluded += weft_now() - t0;
}

void weft_monitor_set_target(weft_monitor *mon, const double *xt, double h) {
    if (!mon || mon->counting) return;
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

/* True when text is a comma-separated list of names (letters, digits, '_'), at least one:
 * the names themselves are checked against the registry by the experiments, which know
 * the solvers (lib/ does not). */
static bool solver_list(const char *text, char *msg, size_t size) {
    int names = 0;
    bool in_name = false;
    for (const char *p = text; *p; p++) {
        bool name_char = isalnum((unsigned char)*p) || *p == '_';
        if (!name_char && !strchr(", \t", *p)) {
            snprintf(msg, size, "'%s' is not a list of solver names (letters, digits, '_', "
                     "separated by commas)", text);
            return false;
        }
        names += name_char && !in_name;
        in_name = name_char;
    }
    if (names == 0) snprintf(msg, size, "names no solver");
    return names > 0;
}

// clang-format off
static const weft_param run_params[] = {
    {.key = "steps", .type = WEFT_PARAM_INT, .offset = offsetof(weft_run_settings, steps),
     .unit = "", .lo = 0, .hi = 100000000, .dflt = 120, .doc = "time steps of a run"},
    {.key = "solvers", .type = WEFT_PARAM_STRING, .offset = offsetof(weft_run_settings, solvers),
     .unit = "", .check = solver_list,
     .doc = "the solvers that suit the scene, run when none are named (comma-separated)"},
    {0},
};
// clang-format on

const weft_param_table weft_run_tables[] = {{"scene", run_params, 0}, {0}};

bool weft_solver_sets_iterations(const weft_solver_type *s) {
    return s->fixed_iterations > 0 || s->own_iterations != NULL;
}

void *weft_solver_create(const weft_solver_type *s, const weft_model *m, weft_config *cfg,
                         weft_error *err) {
    if (weft_solver_check(s, cfg, err)) return NULL;
    return s->create(m, cfg, err);
}

int weft_solver_iterations(const weft_solver_type *s, weft_config *cfg) {
    if (s->fixed_iterations > 0) return s->fixed_iterations;
    if (s->own_iterations) {
        void *set = calloc(1, s->settings_size ? s->settings_size : 1);
        if (!set) return 1;
        weft_config_settings(cfg, s->settings, set);
        int its = s->own_iterations(set);
        free(set);
        return its;
    }
    size_t base;
    const weft_param *p = weft_param_find(s->settings, "solver", "iterations", &base);
    if (!p || !s->settings_size) return 1;
    void *set = calloc(1, s->settings_size);
    if (!set) return 1;
    weft_config_settings(cfg, s->settings, set);
    int its = (int)weft_param_value(p, base, set);
    free(set);
    return its;
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

/* True when the stage of kind "stage" with these tables is enabled in cfg. */
static bool stage_enabled(weft_config *cfg, const weft_stage_type *t) {
    void *cs = weft_config_find(cfg, t->settings);
    if (cs) return t->enabled(cs);
    void *set = calloc(1, t->settings_size ? t->settings_size : 1);
    if (!set) return false;
    weft_settings_default(t->settings, set);
    bool on = t->enabled(set);
    free(set);
    return on;
}

/* True when solver (NULL: any) reads [contact] and cfg gives a contact model there other
 * than none: the solver handles the obstacles itself (ipc's barrier and CCD). */
static bool contact_model_runs(const weft_config *cfg, const weft_solver_type *solver) {
    double model;
    if (!weft_config_value(cfg, "contact", "model", &model) || model == 0.0) return false;
    for (const weft_param_table *t = solver ? solver->settings : NULL; t && t->section; t++)
        if (!strcmp(t->section, "contact")) return true;
    return solver == NULL;
}

/* weft_run_check for solver (NULL: any solver that reads [contact]). */
static int run_check(weft_config *cfg, const weft_model *m, const weft_solver_type *solver,
                     weft_error *err) {
    if (m->nobstacles == 0 || contact_model_runs(cfg, solver)) return WEFT_OK;
    char hints[300] = "";
    const weft_stage_type *t;
    for (int i = 0; (t = weft_config_plugin(cfg, "stage", i, NULL)); i++) {
        if (!t->handles_obstacles) continue;
        if (stage_enabled(cfg, t)) return WEFT_OK;
        if (t->enable_hint)
            snprintf(hints + strlen(hints), sizeof hints - strlen(hints), "%s%s",
                     hints[0] ? " or " : "", t->enable_hint);
    }
    return weft_fail(err, WEFT_ERR_INPUT,
                     "%s: obstacle '%s': a mesh collider needs %s, or [contact] model = ipc "
                     "with a solver that runs it (the solvers' own contact handling knows only "
                     "the analytic shapes)",
                     m->obstacles[0].where, m->obstacles[0].name,
                     hints[0] ? hints : "a post-step stage");
}

int weft_run_check(weft_config *cfg, const weft_model *m, weft_error *err) {
    return run_check(cfg, m, NULL, err);
}

/* The enabled post-step stages of a run, in config order. */
#define MAX_STAGES 8
typedef struct stage_run {
    const weft_stage_type *type;
    void *state;
    void *settings;
    weft_log *log;
} stage_run;

/* Creates the config's enabled stages into st[*n]. */
static int create_stages(weft_config *cfg, const weft_model *m, const weft_solver_type *solver,
                         stage_run *st, int *n, weft_error *err) {
    *n = 0;
    int rc = run_check(cfg, m, solver, err);
    if (rc) return rc;
    const weft_stage_type *t;
    for (int i = 0; (t = weft_config_plugin(cfg, "stage", i, NULL)); i++) {
        /* Take (and so list in the log) only the settings of a stage that runs. */
        if (!stage_enabled(cfg, t)) continue;
        void *set = calloc(1, t->settings_size ? t->settings_size : 1);
        if (!set) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        weft_config_settings(cfg, t->settings, set);
        if (*n == MAX_STAGES) {
            free(set);
            return weft_fail(err, WEFT_ERR_INPUT, "more than %d post-step stages", MAX_STAGES);
        }
        st[*n] = (stage_run){.type = t, .settings = set};
        st[*n].state = t->create(m, set, err);
        (*n)++;
        if (!st[*n - 1].state) return weft_error_code(WEFT_ERR_INPUT);
    }
    return WEFT_OK;
}

int weft_run_probe(const weft_solver_type *solver, const weft_model *m, weft_config *cfg,
                   weft_error *err) {
    weft_run_settings run;
    weft_config_settings(cfg, weft_run_tables, &run);
    const weft_stage_type *t;
    for (int i = 0; (t = weft_config_plugin(cfg, "stage", i, NULL)); i++) {
        if (!stage_enabled(cfg, t)) continue;
        void *set = calloc(1, t->settings_size ? t->settings_size : 1);
        if (!set) return weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        weft_config_settings(cfg, t->settings, set);
        free(set);
    }
    void *state = weft_solver_create(solver, m, cfg, err);
    if (!state) return weft_error_code(WEFT_ERR_INPUT);
    solver->destroy(state);
    return WEFT_OK;
}

/* The log header's line on the model the solver ran: "model: same", or "model: differs: "
 * and what it replaced or dropped (weft_model_diff_compute). */
static void model_line(const weft_solver_type *solver, const weft_model *m,
                       const weft_config *cfg, char *buf, size_t size) {
    weft_model_diff d;
    weft_model_diff_compute(solver, m, cfg, &d);
    int l = snprintf(buf, size, "model: ");
    if (l > 0 && (size_t)l < size) weft_model_diff_format(&d, buf + l, size - (size_t)l);
}

/* Opens the main log, "<log>.linear" and each stage's log, with the metadata lines: the
 * run, the model, the settings of everything that runs (from the config) and opt->meta. */
static int open_logs(const weft_solver_type *solver, const void *state, const weft_model *m,
                     const weft_run_options *opt, int steps, int iterations, weft_monitor *mon,
                     stage_run *st, int nst, weft_error *err) {
    char lines[5][200];
    /* The model's and the settings' lines, each as long as it needs (no header line is
     * dropped or cut, however many plug-ins and parts a run has). */
    char *model = NULL, *settings = NULL;
    const char **meta = NULL;
    int nmodel = weft_model_describe(m, NULL, 0) + 1;
    int nsettings = weft_config_format_taken(opt->config, NULL, 0) + 1;
    model = malloc((size_t)nmodel);
    settings = malloc((size_t)nsettings);
    /* lines[], the model mark and NULL, the first line of each text, + one a newline */
    int nmeta = 5 + 1 + 1 + 2;
    for (const char *const *e = opt->meta; e && *e; e++) nmeta++;
    char solver_lines[1024] = ""; /* the solver's own header lines (weft_solver_type.header) */
    if (solver->header) solver->header(state, solver_lines, sizeof solver_lines);
    for (const char *q = solver_lines; *q; q++) nmeta += *q == '\n';
    nmeta += solver_lines[0] != '\0';
    if (model && settings) {
        weft_model_describe(m, model, (size_t)nmodel);
        weft_config_format_taken(opt->config, settings, (size_t)nsettings);
        for (const char *q = model; *q; q++) nmeta += *q == '\n';
        for (const char *q = settings; *q; q++) nmeta += *q == '\n';
        meta = malloc((size_t)nmeta * sizeof *meta);
    }
    if (!meta) {
        free(model);
        free(settings);
        return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory for the log header",
                         opt->log_path);
    }
    int k = 0;
    snprintf(lines[k], sizeof lines[k], "scene=%s  solver=%s  paper=\"%s\"", m->scene_name,
             solver->name, solver->paper);
    meta[k] = lines[k], k++;
    snprintf(lines[k], sizeof lines[k], "dt=%.17g  steps=%d  iterations=%d", m->dt, steps,
             iterations);
    meta[k] = lines[k], k++;
    snprintf(lines[k], sizeof lines[k], "vertices=%d  edges=%d  hinges=%d  triangles=%d", m->n,
             m->mesh.ne, m->mesh.nh, m->mesh.nt);
    if (m->mesh.ntet > 0) /* a solid: the triangles are its surface */
        snprintf(lines[k] + strlen(lines[k]), sizeof lines[k] - strlen(lines[k]),
                 "  tetrahedra=%d", m->mesh.ntet);
    meta[k] = lines[k], k++;
    snprintf(lines[k], sizeof lines[k], "iteration=\"%s\"", solver->iteration);
    meta[k] = lines[k], k++;
    snprintf(lines[k], sizeof lines[k], "log=%s  (iter 0 = before the first inner iteration)",
             opt->log_level == WEFT_LOG_STEPS ? "steps" : "iterations");
    meta[k] = lines[k], k++;
    /* "model: ..." lines: the model this run computed on (mesh, material, the energy of
     * each role, gravity, colliders), so that a log says what it describes. */
    char *msave = NULL;
    for (char *l = strtok_r(model, "\n", &msave); l; l = strtok_r(NULL, "\n", &msave))
        meta[k++] = l;
    /* "settings: [section] key=value ..." for every plug-in that took its settings. */
    char *save = NULL;
    for (char *l = strtok_r(settings, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        meta[k++] = l;
    char mark[1400]; /* "model: same" or how this solver's model differs */
    model_line(solver, m, opt->config, mark, sizeof mark);
    meta[k++] = mark;
    char *ssave = NULL;
    for (char *l = strtok_r(solver_lines, "\n", &ssave); l; l = strtok_r(NULL, "\n", &ssave))
        meta[k++] = l;
    for (const char *const *e = opt->meta; e && *e; e++) meta[k++] = *e;
    meta[k] = NULL;
    WEFT_ASSERT(k < nmeta);
    int rc = WEFT_OK;
    mon->log = weft_log_open(opt->log_path, meta, err);
    if (!mon->log) rc = WEFT_ERR_IO;
    /* the companion logs: the log's path with a suffix (sized to hold any of them) */
    size_t npath = strlen(opt->log_path) + 16;
    for (int i = 0; i < nst; i++)
        if (st[i].type->log_suffix) npath += strlen(st[i].type->log_suffix);
    char *path = rc == WEFT_OK ? malloc(npath) : NULL;
    if (rc == WEFT_OK && !path) rc = weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", opt->log_path);
    if (rc == WEFT_OK && solver->linear_log && opt->log_level == WEFT_LOG_ITERATIONS) {
        snprintf(path, npath, "%s.linear", opt->log_path);
        mon->linear = weft_log_open_columns(path, meta, "step iter linear_iter residual_rel status",
                                            err);
        if (!mon->linear) rc = WEFT_ERR_IO;
    }
    for (int i = 0; rc == WEFT_OK && i < nst; i++) {
        if (!st[i].type->log_suffix) continue;
        snprintf(path, npath, "%s%s", opt->log_path, st[i].type->log_suffix);
        st[i].log = weft_log_open_columns(path, meta, st[i].type->log_columns, err);
        if (!st[i].log) rc = WEFT_ERR_IO;
    }
    free(path);
    free(meta);
    free(model);
    free(settings);
    return rc;
}

/* Closes a log: complete when rc is WEFT_OK, else incomplete with the reason. */
static void close_log(weft_log **l, int *rc, const char *reason, weft_error *err) {
    if (!*l) return;
    if (*rc == WEFT_OK)
        *rc = weft_log_close(l, true, NULL, err);
    else
        weft_log_close(l, false, reason ? reason : "unknown", NULL);
}

int weft_run(const weft_solver_type *solver, weft_model *m, const weft_run_options *opt,
             weft_run_result *res, weft_error *err) {
    memset(res, 0, sizeof *res);
    int rc = WEFT_OK;
    const char *reason = NULL;
    size_t n3 = 3 * (size_t)m->n;
    weft_config *cfg = opt->config;
    weft_config_mark_clear(cfg);
    weft_run_settings run;
    weft_config_settings(cfg, weft_run_tables, &run);
    const int steps = run.steps;
    const int iterations = weft_solver_iterations(solver, cfg);
    weft_monitor mon = {.m = m, .level = opt->log_level, .last_iter = iterations,
                        .last_step = steps - 1};
    mon.xn = malloc(n3 * sizeof(double));
    mon.xt = malloc(n3 * sizeof(double));
    mon.scratch = malloc(n3 * sizeof(double));
    mon.pend_x = malloc((n3 ? n3 : 1) * sizeof(double));
    void *state = NULL;
    stage_run st[MAX_STAGES] = {{0}};
    int nst = 0;
    if (!mon.xn || !mon.xt || !mon.scratch || !mon.pend_x) {
        rc = weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = create_stages(cfg, m, solver, st, &nst, err)) != WEFT_OK) goto done;
    state = weft_solver_create(solver, m, cfg, err);
    if (!state) {
        rc = weft_error_code(WEFT_ERR_INPUT); /* NOMEM stays NOMEM */
        goto done;
    }
    if (opt->log_path && opt->log_level != WEFT_LOG_NONE &&
        (rc = open_logs(solver, state, m, opt, steps, iterations, &mon, st, nst, err)) != WEFT_OK) {
        reason = "io-error";
        goto done;
    }

    bool tty = opt->progress && isatty(2);
    double last_print = 0.0;
    mon.t_start = weft_now();
    for (int s = 0; s < steps; s++) {
        if (weft_interrupted()) {
            rc = weft_fail(err, WEFT_ERR_INTERRUPTED, "interrupted at step %d of %d", s, steps);
            reason = "interrupted";
            break;
        }
        mon.step = s;
        const double t_begin = m->t; /* the step runs from t_begin to t_begin + dt */
        memcpy(mon.xn, m->x, n3 * sizeof(double));
        weft_inertial_target(m, m->x, m->v, mon.xt);
        mon.dt = m->dt;
        mon.h_target = m->dt;
        mon.t1 = t_begin + m->dt;
        /* With logging off, the monitor still counts the steps' stops and takes the last
         * step's metrics for the summary. */
        rc = solver->step(state, m, &mon, err);
        if (rc) {
            flush(&mon); /* the failing step's last iteration, for the diagnosis */
            mon.fin_pending = false;
            reason = "solver-error";
            break;
        }
        WEFT_ASSERT(!mon.pending && mon.fin_pending); /* every step ends with a final row */
        {
            double t0 = weft_now();
            finish_step(&mon, m->x);
            mon.t_excluded += weft_now() - t0;
        }
        if (mon.stop_error[0]) {
            rc = weft_fail(err, WEFT_ERR_INPUT, "%s: step %d: %s", solver->name, s,
                           mon.stop_error);
            reason = "solver-error";
            break;
        }
        if (!state_ok(m) || mon.nonfinite) {
            rc = weft_fail(err, WEFT_ERR_DIVERGED,
                           "%s diverged at step %d (t = %.4g s): non-finite or exploding state; "
                           "try a smaller dt%s", solver->name, s, m->t,
                           weft_solver_sets_iterations(solver) ? "" : " or more iterations");
            reason = "diverged";
            break;
        }
        const void *stage_stats = NULL;
        for (int i = 0; i < nst; i++) {
            double t0 = weft_now();
            weft_stage_result sr = {0};
            int src = st[i].type->step(st[i].state, m, mon.xn, t_begin, s, st[i].log, &sr, err);
            if (src < 0) {
                rc = src;
                reason = "collision-error";
                break;
            }
            if (src == WEFT_WARN_UNRESOLVED || sr.unresolved) res->collision_failures++;
            if (!stage_stats) stage_stats = sr.stats;
            /* Only the stage's own handling is solver time; its diagnostics and log row
             * are not. */
            mon.t_excluded += (weft_now() - t0) - sr.seconds;
            res->collision_s += sr.seconds;
            if (!state_ok(m)) {
                rc = weft_fail(err, WEFT_ERR_DIVERGED,
                               "post-step stage %s left a non-finite state at step %d",
                               st[i].type->name, s);
                reason = "diverged";
                break;
            }
        }
        if (rc) break;
        res->steps_done = s + 1;
        if (opt->on_step) {
            double t0 = weft_now();
            opt->on_step(opt->user, m, s, stage_stats);
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
                        steps, m->t, 1e3 * (now - mon.t_start - mon.t_excluded) / (s + 1));
                last_print = now;
            }
        }
    }
    res->wall_s = weft_now() - mon.t_start - mon.t_excluded;
    if (last_print > 0.0) fprintf(stderr, "\r%*s\r", 70, "");
    res->ms_per_step = res->steps_done ? 1e3 * res->wall_s / res->steps_done : 0.0;
    res->iterations = mon.iterations;
    res->last = mon.last;
    res->steps_capped = mon.capped;
    res->steps_stalled = mon.stalled;
    res->nstop_reasons = mon.nreasons;
    memcpy(res->stop_reasons, mon.reasons, sizeof mon.reasons);
    weft_solver_stats(solver, state, &res->profile);
done:
    close_log(&mon.log, &rc, reason, err);
    close_log(&mon.linear, &rc, reason, err);
    for (int i = 0; i < nst; i++) {
        close_log(&st[i].log, &rc, reason, err);
        if (st[i].state) st[i].type->destroy(st[i].state);
        free(st[i].settings);
    }
    if (state) solver->destroy(state);
    free(mon.xn), free(mon.xt), free(mon.scratch), free(mon.pend_x);
    return rc;
}
