/* sweep_plan.c — `sweep plan SPEC [--out DIR]`: checks SPEC (the scene builds with every
 * axis value, the solvers exist) and writes DIR/jobs.txt, one self-contained shell line
 * per run (the program with its scene, one solver, every --set and axis value, and an
 * output folder named after them), DIR/manifest.tsv (job, parameters, summary) and
 * DIR/spec.ini. The runs are solvers x axis_1 x ... x axis_k x repeats, solver
 * outermost, repeats innermost; run j is decoded from j, so no list of runs is kept. A
 * line skips its run when the run's summary exists (written through ".partial"). */
#include "cli.h"
#include "sweep.h"
#include "sweep_tool.h"

#include "weft_solvers.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run j's solver, value index per axis (into value[naxes]) and repeat (from 1). */
static int job_at(const sweep_spec *s, int j, int *value, int *repeat) {
    *repeat = j % s->repeats + 1;
    j /= s->repeats;
    for (int k = s->naxes - 1; k >= 0; k--) value[k] = j % s->axes[k].n, j /= s->axes[k].n;
    return j;
}

/* The directory name of a run: solver, then KEY=VALUE per axis (KEY the part after the
 * last '.', unless two axes share it), then -rR with repeats; unsafe characters become '_'. */
static char *job_dir(const sweep_spec *s, int solver, const int *value, int repeat) {
    sweep_text t = {0};
    sweep_add(&t, "%s", s->solvers[solver]);
    for (int k = 0; k < s->naxes; k++) {
        const char *key = s->axes[k].key, *shortk = strrchr(key, '.') + 1;
        for (int o = 0; o < s->naxes; o++)
            if (o != k && !strcmp(strrchr(s->axes[o].key, '.') + 1, shortk)) shortk = key;
        sweep_add(&t, "-%s=%s", shortk, s->axes[k].text[value[k]]);
    }
    if (s->repeats > 1) sweep_add(&t, "-r%d", repeat);
    for (char *p = t.s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._=+-", *p))
            *p = '_';
    return t.s;
}

/* Directory of this executable (where the experiment binaries are built too). */
static bool bin_dir(char *buf, size_t size) {
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0) return false;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash) return false;
    *slash = '\0';
    return true;
}

/* A weft_cli for scene with every [set] and, with axes, each axis at its first value;
 * false after an error when they are more than a program's --set takes. */
static bool cli_of(const sweep_spec *s, const char *scene, bool axes, weft_cli *cli) {
    *cli = (weft_cli){.scene = scene, .out = "", .steps = -1, .plot_step = -1};
    int max = (int)(sizeof cli->set / sizeof cli->set[0]);
    if (s->nsets + (axes ? s->naxes : 0) > max) {
        fprintf(stderr,
                "error: %s: [set] and [axes]: %d keys, more than the %d --set a program "
                "takes\n",
                s->path, s->nsets + (axes ? s->naxes : 0), max);
        return false;
    }
    for (int i = 0; i < s->nsets; i++)
        cli->set[cli->nset++] = sweep_printf("%s=%s", s->sets[i].key, s->sets[i].value);
    for (int k = 0; axes && k < s->naxes; k++)
        cli->set[cli->nset++] = sweep_printf("%s=%s", s->axes[k].key, s->axes[k].value[0]);
    return true;
}

/* The number of registered solvers. */
static int registered(void) {
    int n = 0;
    while (weft_solver_registry[n]) n++;
    return n;
}

/* sweep.solvers missing or "default": the program's own default list, every registered
 * solver that can run the scene (with [set]; weft_cli_default_solvers, with the program's
 * needs: accuracy an order of accuracy, stability the explicit methods too), so that a new
 * solver joins the shipped SPECs with no edit. */
static bool default_solvers(sweep_spec *s, const char *scene) {
    const char *raw = sweep_str(&s->solvers_raw);
    if (raw[0] && strcmp(raw, "default") != 0) return true;
    weft_cli cli;
    if (!cli_of(s, scene, false, &cli)) return false;
    unsigned flags = !strcmp(s->program, "accuracy")    ? WEFT_CLI_NEED_ORDER
                     : !strcmp(s->program, "stability") ? WEFT_CLI_EXPLICIT
                                                        : 0;
    int max = registered();
    const weft_solver_type **types = sweep_alloc((size_t)(max + 1) * sizeof *types);
    int n = weft_cli_default_solvers(&cli, flags, types, max);
    if (n <= 0) {
        if (n == 0)
            fprintf(stderr, "error: %s: sweep.solvers: no solver can run the scene\n", s->path);
        return false;
    }
    s->solvers_raw = (sweep_text){0};
    s->solvers_default = true;
    s->solvers = sweep_alloc((size_t)n * sizeof *s->solvers);
    for (int k = 0; k < n; k++) {
        sweep_add(&s->solvers_raw, "%s%s", k ? "," : "", types[k]->name);
        s->solvers[k] = types[k]->name;
    }
    s->nsolvers = n;
    return true;
}

/* Checks the scene, the solvers and every axis value by building the model with each
 * value (the other axes at their first value); learns the scene's name. */
static bool validate(sweep_spec *s, const char *scene, char *scene_name, size_t size) {
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s:%d: sweep.solvers", s->path, s->solvers_line);
    if (!default_solvers(s, scene)) return false;
    int max = s->nsolvers > 0 ? s->nsolvers : 1;
    const weft_solver_type **types = sweep_alloc((size_t)max * sizeof *types);
    if (weft_cli_solvers(sweep_str(&s->solvers_raw), where, types, max) < 0) return false;
    weft_cli cli;
    if (!cli_of(s, scene, true, &cli)) return false;
    int base = s->nsets;
    for (int k = -1; k < s->naxes; k++) {
        for (int i = k < 0 ? 0 : 1; i < (k < 0 ? 1 : s->axes[k].n); i++) {
            if (k >= 0)
                cli.set[base + k] = sweep_printf("%s=%s", s->axes[k].key, s->axes[k].value[i]);
            weft_error err = {{0}};
            weft_model m;
            weft_config *cfg = NULL;
            if (weft_cli_build(&cli, &m, &cfg, &err) != WEFT_OK) {
                if (k >= 0)
                    fprintf(stderr, "error: %s:%d: %s = %s: %s\n", s->path, s->axes[k].line,
                            s->axes[k].key, s->axes[k].text[i], err.msg);
                else
                    fprintf(stderr,
                            "error: %s: sweep.scene, [set] or the first value of [axes]: %s\n",
                            s->path, err.msg);
                return false;
            }
            if (k < 0) snprintf(scene_name, size, "%s", m.scene_name);
            weft_model_free(&m);
            weft_config_free(&cfg);
        }
        if (k >= 0) cli.set[base + k] = sweep_printf("%s=%s", s->axes[k].key, s->axes[k].value[0]);
    }
    return true;
}

/* "solvers = " and the comma-separated list, wrapped onto indented continuation lines
 * (the SPEC reader's line limit), appended to out. */
static void solvers_lines(sweep_text *out, const char *list) {
    sweep_add(out, "solvers =");
    int col = 9;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        bool wrap = col + (int)len > 78;
        sweep_add(out, "%s%.*s%s", wrap ? "\n  " : " ", (int)len, p, p[len] ? "," : "");
        col = (wrap ? 2 : col + 1) + (int)len + 1;
        p += len + (p[len] ? 1 : 0);
    }
    sweep_add(out, "\n");
}

/* SPEC's text with the [sweep] solvers line replaced by (or, when it has none, given)
 * "solvers = LIST", so that DIR/spec.ini names the runs' solvers. */
static const char *spec_text_with_solvers(const char *text, const char *list) {
    sweep_text out = {0};
    sweep_add(&out, "%s", "");
    bool done = false, in_sweep = false;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
        const char *q = p;
        while (q < p + len && (*q == ' ' || *q == '\t')) q++;
        bool section = *q == '[';
        if (section) in_sweep = !strncmp(q, "[sweep]", 7);
        if (in_sweep && !section && !strncmp(q, "solvers", 7) &&
            strspn(q + 7, " \t") + q + 7 < p + len && q[7 + strspn(q + 7, " \t")] == '=') {
            if (!done) solvers_lines(&out, list);
            done = true;
        } else {
            sweep_add(&out, "%.*s", (int)len, p);
            if (section && in_sweep && !done) {
                if (len && p[len - 1] != '\n') sweep_add(&out, "\n");
                solvers_lines(&out, list);
                done = true;
            }
        }
        p += len;
    }
    return out.s;
}

/* The scene as a run gets it: a built-in name, or the file (relative to the spec's
 * folder) made absolute, into scene[size]. False after an error. */
static bool resolve_scene(const sweep_spec *s, char *scene, size_t size) {
    for (const weft_builtin_scene *b = weft_builtin_scenes; b->name; b++)
        if (!strcmp(b->name, s->scene)) {
            snprintf(scene, size, "%s", s->scene);
            return true;
        }
    const char *slash = strrchr(s->path, '/');
    const char *joined = s->scene[0] == '/' ? s->scene
                         : slash
                             ? sweep_printf("%.*s/%s", (int)(slash - s->path), s->path, s->scene)
                             : sweep_printf("./%s", s->scene);
    if (!sweep_absolute(joined, scene, size) || access(scene, R_OK) != 0) {
        fprintf(stderr,
                "error: %s:%d: sweep.scene: '%s' is neither a built-in scene nor a "
                "readable file (relative to the spec): %s\n",
                s->path, s->scene_line, s->scene, strerror(errno));
        return false;
    }
    return true;
}

/* sweep.options split at blanks into *words; -1 after an error when one is an option the
 * plan gives each run itself. */
static int option_words(const sweep_spec *s, const char ***words) {
    int n = sweep_split(s->options, " \t", words);
    for (int w = 0; w < n; w++) {
        static const char *const own[] = {"--scene", "--solvers", "--out", "--set", "--scenes"};
        for (size_t o = 0; o < sizeof own / sizeof own[0]; o++) {
            size_t l = strlen(own[o]);
            if (!strncmp((*words)[w], own[o], l) &&
                ((*words)[w][l] == '\0' || (*words)[w][l] == '=')) {
                fprintf(stderr,
                        "error: %s:%d: sweep.options: %s is the plan's to give (use "
                        "sweep.scene, sweep.solvers, --out of the plan, [set] or [axes])\n",
                        s->path, s->options_line, own[o]);
                return -1;
            }
        }
    }
    return n;
}

/* What every line of a plan shares, and scratch text the lines reuse (a plan of many
 * runs then needs memory for its files, not for each line's pieces). */
typedef struct plan {
    sweep_spec *s;
    const char *program, *scene, *out, *sub; /* sub: the summary's folder in a run's */
    const char *sets, *options;              /* [set] and sweep.options as quoted words */
    int nj;                                  /* the runs */
    int *value;                              /* scratch: a run's value per axis */
    sweep_text jobs, manifest, cmd, word, run, q_sum, q_run, q_log;
    bool *complete; /* per run: its summary exists */
    int done;       /* complete runs */
} plan;

/* word quoted for sh as sweep_word writes it (in the arena). */
static const char *quoted(const char *word) {
    sweep_text t = {0};
    sweep_word(&t, word);
    return t.s;
}

/* Empties t, keeping its room. */
static void clear(sweep_text *t) {
    t->len = 0;
    if (t->s) t->s[0] = '\0';
}

/* The words every line has: [set] as --set KEY=VALUE, and sweep.options ({sweep}: the
 * sweep's folder), quoted. */
static void shared_words(plan *p, const char *const *words, int nwords) {
    const sweep_spec *s = p->s;
    sweep_text sets = {0}, options = {0};
    for (int i = 0; i < s->nsets; i++) {
        sweep_word(&sets, "--set");
        sweep_word(&sets, sweep_printf("%s=%s", s->sets[i].key, s->sets[i].value));
    }
    for (int w = 0; w < nwords; w++) {
        const char *word = words[w], *at = strstr(word, "{sweep}");
        if (at) word = sweep_printf("%.*s%s%s", (int)(at - word), word, p->out, at + 7);
        sweep_word(&options, word);
    }
    p->sets = sweep_str(&sets), p->options = sweep_str(&options);
}

/* The program's own command line for a run (whose folder is rundir), into p->cmd. */
static void program_line(plan *p, int solver, const char *rundir) {
    const sweep_spec *s = p->s;
    sweep_text *t = &p->cmd;
    clear(t);
    sweep_word(t, p->program);
    sweep_word(t, "--scene");
    sweep_word(t, p->scene);
    sweep_word(t, "--solvers");
    sweep_word(t, s->solvers[solver]);
    if (p->sets[0]) sweep_add(t, " %s", p->sets);
    for (int k = 0; k < s->naxes; k++) {
        const sweep_axis *a = &s->axes[k];
        clear(&p->word);
        if (a->option)
            sweep_add(&p->word, "%s", a->value[p->value[k]]);
        else
            sweep_add(&p->word, "%s=%s", a->key, a->value[p->value[k]]);
        sweep_word(t, a->option ? a->option : "--set");
        sweep_word(t, p->word.s);
    }
    if (p->options[0]) sweep_add(t, " %s", p->options);
    /* --force: the line runs only when the run's summary is missing, so whatever a failed
     * or interrupted earlier attempt left in the folder is replaced. */
    sweep_word(t, "--force");
    sweep_word(t, "--no-plot");
    sweep_word(t, "--out");
    sweep_word(t, rundir);
}

/* Run j's line of jobs.txt and row of manifest.tsv (its folder dir). The whole line
 * skips a complete run; otherwise it runs it with its output in RUN/job.log, which ends
 * with "# exit=STATUS" when the program ends. */
static void add_job(plan *p, int j, const char *dir, const char *q_out) {
    const sweep_spec *s = p->s;
    int repeat, solver = job_at(s, j, p->value, &repeat);
    clear(&p->q_run), clear(&p->q_sum), clear(&p->q_log), clear(&p->run);
    sweep_add(&p->run, "runs/%s", dir);
    sweep_word(&p->q_run, p->run.s);
    program_line(p, solver, p->run.s);
    sweep_add(&p->run, "/job.log");
    sweep_word(&p->q_log, p->run.s);
    clear(&p->word);
    sweep_add(&p->word, "runs/%s/%s/summary.tsv", dir, p->sub);
    sweep_word(&p->q_sum, p->word.s);
    const char *summary = p->word.s;
    char path[2 * PATH_MAX];
    p->complete[j] = (size_t)snprintf(path, sizeof path, "%s/%s", p->out, summary) < sizeof path &&
                     access(path, F_OK) == 0;
    p->done += p->complete[j];
    sweep_add(&p->jobs,
              "cd %s && if [ -f %s ]; then echo 'weft sweep: run %d complete, skipped'; else "
              "mkdir -p %s && { %s >%s 2>&1; rc=$?; echo \"# exit=$rc\" >>%s; exit $rc; }; fi\n",
              q_out, p->q_sum.s, j + 1, p->q_run.s, p->cmd.s, p->q_log.s, p->q_log.s);
    sweep_add(&p->manifest, "%d\t%s\t%s", j + 1, dir, s->solvers[solver]);
    for (int k = 0; k < s->naxes; k++)
        sweep_add(&p->manifest, "\t%s", s->axes[k].value[p->value[k]]);
    sweep_add(&p->manifest, "\t%d\t%s\n", repeat, summary);
}

/* Moves DIR/joblog.txt aside (to joblog.txt.old) when the job list changed (GNU
 * parallel's --resume goes by line number) or when it records as done a run whose summary
 * is gone (deleted since: parallel would not start it again). 0, or -1 after an error. */
static int retire_joblog(const plan *p, const char *jobs_path) {
    const char *joblog = sweep_printf("%s/joblog.txt", p->out);
    const char *prev = sweep_slurp(jobs_path, true);
    int stale = 0;
    for (char *row = sweep_slurp(joblog, true); row && *row && !stale;) {
        char *end = strchr(row, '\n'), **fv;
        if (end) *end = '\0';
        if (sweep_fields(row, &fv) >= 9 && strcmp(fv[0], "Seq") != 0) {
            int seq = atoi(fv[0]);
            if (seq >= 1 && seq <= p->nj && !strcmp(fv[6], "0") && !strcmp(fv[7], "0") &&
                !p->complete[seq - 1])
                stale = seq;
        }
        row = end ? end + 1 : NULL;
    }
    if (stale)
        fprintf(stderr,
                "sweep %s: %s records run %d as done, but its summary is missing: "
                "starting a new joblog\n",
                p->s->name, joblog, stale);
    if ((!prev || strcmp(prev, p->jobs.s) != 0 || stale) && access(joblog, F_OK) == 0 &&
        rename(joblog, sweep_printf("%s.old", joblog)) != 0) {
        fprintf(stderr, "error: %s: cannot rename: %s\n", joblog, strerror(errno));
        return -1;
    }
    return 0;
}

/* Writes DIR/spec.ini, DIR/manifest.tsv and DIR/jobs.txt and says what they hold. 0, or
 * -1 after an error. */
static int write_plan(plan *p) {
    const sweep_spec *s = p->s;
    const char *jobs_path = sweep_printf("%s/jobs.txt", p->out);
    const char *mpath = sweep_printf("%s/manifest.tsv", p->out);
    if (retire_joblog(p, jobs_path) != 0) return -1;
    const char *spec_text = sweep_slurp(s->path, false);
    if (spec_text && s->solvers_default)
        spec_text = spec_text_with_solvers(spec_text, sweep_str(&s->solvers_raw));
    if (!spec_text || sweep_write_file(sweep_printf("%s/spec.ini", p->out), spec_text) != 0 ||
        sweep_write_file(mpath, p->manifest.s) != 0 || sweep_write_file(jobs_path, p->jobs.s) != 0)
        return -1;
    fprintf(stderr, "sweep %s: %d runs (%d solver%s", s->name, p->nj, s->nsolvers,
            s->nsolvers > 1 ? "s" : "");
    for (int k = 0; k < s->naxes; k++) fprintf(stderr, " x %d %s", s->axes[k].n, s->axes[k].key);
    if (s->repeats > 1) fprintf(stderr, " x %d repeats", s->repeats);
    fprintf(stderr, "), %d already complete\n  jobs:     %s\n  manifest: %s\n", p->done, jobs_path,
            mpath);
    printf("%s\n", p->out);
    return 0;
}

/* The number of runs of s, or -1 after an error when an int cannot count them. */
static int count_runs(const sweep_spec *s) {
    double n = (double)s->nsolvers * s->repeats;
    for (int k = 0; k < s->naxes; k++) n *= s->axes[k].n;
    if (n > INT_MAX) {
        fprintf(stderr, "error: %s: %.0f runs, more than %d\n", s->path, n, INT_MAX);
        return -1;
    }
    return (int)n;
}

/* Every run's line and manifest row (after the manifest's header); 2 after an error when
 * two runs would share a folder. */
static int plan_jobs(plan *p) {
    const sweep_spec *s = p->s;
    const char **dirs = sweep_alloc((size_t)p->nj * sizeof *dirs);
    int repeat;
    for (int j = 0; j < p->nj; j++) {
        int solver = job_at(s, j, p->value, &repeat);
        dirs[j] = job_dir(s, solver, p->value, repeat);
    }
    int o, j = sweep_first_repeat(dirs, p->nj, &o);
    if (j >= 0) {
        fprintf(stderr,
                "error: %s: runs %d and %d get the same directory '%s' (values "
                "that differ only in characters other than letters, digits, ._=+-)\n",
                s->path, o + 1, j + 1, dirs[j]);
        return 2;
    }
    sweep_add(&p->manifest,
              "# weft sweep plan: name=%s program=%s scene=%s runs=%d\njob\tdir\tsolver", s->name,
              s->program, s->scene, p->nj);
    for (int k = 0; k < s->naxes; k++) sweep_add(&p->manifest, "\t%s", s->axes[k].key);
    sweep_add(&p->manifest, "\trepeat\tsummary\n");
    sweep_add(&p->jobs, "%s", "");
    const char *q_out = quoted(p->out);
    for (j = 0; j < p->nj; j++) add_job(p, j, dirs[j], q_out);
    return 0;
}

int sweep_plan(int argc, char **argv) {
    static const char *const own[] = {"out", NULL};
    const char *vals[1] = {NULL};
    weft_sweep_take(&argc, argv, own, vals);
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "error: sweep plan: expected one SPEC file (see --help)\n");
        return 2;
    }
    sweep_spec s;
    char scene[PATH_MAX], scene_name[128], bin[PATH_MAX], out[PATH_MAX];
    if (!sweep_spec_read(argv[1], &s, true) || !resolve_scene(&s, scene, sizeof scene) ||
        !validate(&s, scene, scene_name, sizeof scene_name))
        return 2;
    if (!bin_dir(bin, sizeof bin)) {
        fprintf(stderr, "error: sweep: cannot find its own directory (/proc/self/exe)\n");
        return 1;
    }
    plan p = {.s = &s, .program = sweep_printf("%s/%s", bin, s.program), .scene = scene};
    if (access(p.program, X_OK) != 0) {
        fprintf(stderr, "error: %s: not built (the sweep runs it)\n", p.program);
        return 1;
    }
    const char *out_given = vals[0] ? vals[0] : sweep_printf("results/sweeps/%s", s.name);
    if (weft_mkdirs(sweep_printf("%s/runs", out_given)) != 0) return 1;
    if (!sweep_absolute(out_given, out, sizeof out)) {
        fprintf(stderr, "error: %s: %s\n", out_given, strerror(errno));
        return 1;
    }
    p.out = out;
    /* Every summary is DIR/runs/RUN/SUB/summary.tsv, SUB fixed by the program. */
    p.sub = !strcmp(s.program, "compare") ? scene_name : s.program;
    p.nj = count_runs(&s);
    if (p.nj < 0) return 2;
    const char **words;
    int nwords = option_words(&s, &words);
    if (nwords < 0) return 2;
    shared_words(&p, words, nwords);
    p.value = sweep_alloc((size_t)(s.naxes + 1) * sizeof *p.value);
    p.complete = sweep_alloc((size_t)p.nj * sizeof *p.complete);
    int status = plan_jobs(&p);
    if (status == 0 && write_plan(&p) != 0) status = 1;
    return status;
}
