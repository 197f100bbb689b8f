/* cli.c — option parsing (glibc getopt_long) and scene set-up shared by the
 * experiment binaries, so they all accept the same flags with the same meaning. */
#include "cli.h"

#include "weft_energies.h"
#include "weft_solvers.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Parses a whole integer option in [lo, 1e8] into *out; false after the one-line error. */
static bool int_option(const char *name, const char *text, int lo, int *out, weft_error *err) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end || end == text || errno || v < lo || v > 100000000) {
        weft_fail(err, WEFT_ERR_INPUT, "--%s: '%.60s' is not a whole number >= %d", name, text,
                  lo);
        return false;
    }
    *out = (int)v;
    return true;
}

int weft_cli_parse_args(int argc, char **argv, weft_cli *cli, bool allow_scenes,
                        weft_error *err) {
    static const struct option opts[] = {
        {"scene", required_argument, 0, 's'},   {"solvers", required_argument, 0, 'S'},
        {"iterations", required_argument, 0, 'i'}, {"steps", required_argument, 0, 'n'},
        {"threads", required_argument, 0, 't'}, {"set", required_argument, 0, 'x'},
        {"log", required_argument, 0, 'l'},     {"out", required_argument, 0, 'o'},
        {"obj-every", required_argument, 0, 'O'}, {"plot-step", required_argument, 0, 'P'},
        {"no-plot", no_argument, 0, 'N'},       {"help", no_argument, 0, 'h'},
        {"profile", no_argument, 0, 'p'},       {"animate", no_argument, 0, 'A'},
        {"time-budget", required_argument, 0, 'B'},
        {"scenes", required_argument, 0, 'M'},
        {"same-model", no_argument, 0, 'D'},
        {"list-solvers", no_argument, 0, 'L'},
        {0, 0, 0, 0},
    };
    *cli = (weft_cli){.scene = "hanging_cloth", .out = "results", .steps = -1,
                      .plot_step = -1, .log = WEFT_LOG_ITERATIONS};
    opterr = 0;
    optind = 0; /* 0, not 1: glibc then also resets its state, so a second parse works */
    int c;
    bool ok = true;
    while (ok && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': cli->scene = optarg, cli->scene_given = true; break;
        case 'M':
            if (!allow_scenes)
                return weft_fail(err, WEFT_ERR_INPUT,
                                 "--scenes: this program runs one scene (use --scene)");
            cli->scenes = optarg;
            break;
        case 'S': cli->solvers = optarg; break;
        case 'i': ok = int_option("iterations", optarg, 1, &cli->iterations, err); break;
        case 'n': ok = int_option("steps", optarg, 0, &cli->steps, err); break;
        case 't': ok = int_option("threads", optarg, 1, &cli->threads, err); break;
        case 'O': ok = int_option("obj-every", optarg, 0, &cli->obj_every, err); break;
        case 'P': ok = int_option("plot-step", optarg, 0, &cli->plot_step, err); break;
        case 'N': cli->no_plot = true; break;
        case 'p': cli->profile = true; break;
        case 'A': cli->animate = true; break;
        case 'D': cli->same_model = true; break;
        case 'L': cli->list_solvers = true; break;
        case 'B': {
            char *end;
            errno = 0;
            double v = strtod(optarg, &end);
            if (*end || end == optarg || errno || !(v > 0.0) || !(v <= 1e7))
                return weft_fail(err, WEFT_ERR_INPUT,
                                 "--time-budget: '%.60s' is not a number of milliseconds in "
                                 "(0, 1e7]", optarg);
            cli->time_budget_ms = v;
            break;
        }
        case 'o': cli->out = optarg; break;
        case 'x':
            if (cli->nset == 64)
                return weft_fail(err, WEFT_ERR_INPUT, "too many --set options (64 at most)");
            cli->set[cli->nset++] = optarg;
            break;
        case 'l':
            if (!strcmp(optarg, "iterations")) cli->log = WEFT_LOG_ITERATIONS;
            else if (!strcmp(optarg, "steps")) cli->log = WEFT_LOG_STEPS;
            else if (!strcmp(optarg, "none")) cli->log = WEFT_LOG_NONE;
            else
                return weft_fail(err, WEFT_ERR_INPUT,
                                 "--log: '%.60s' is not one of iterations, steps, none", optarg);
            break;
        case 'h': return 1;
        default:
            if (optopt)
                return weft_fail(err, WEFT_ERR_INPUT,
                                 "option -%c: unknown or missing its value (see --help)", optopt);
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%.100s: unknown option or missing value (see --help)",
                             argv[optind - 1]);
        }
    }
    if (!ok) return WEFT_ERR_INPUT;
    if (optind < argc)
        return weft_fail(err, WEFT_ERR_INPUT, "unexpected argument '%.100s' (see --help)",
                         argv[optind]);
    return WEFT_OK;
}

/* weft_cli_parse_args, then --help printed (exit 0) or the error printed (exit 2). */
static void parse(int argc, char **argv, weft_cli *cli, const char *usage, bool allow_scenes) {
    weft_error err = {{0}};
    int rc = weft_cli_parse_args(argc, argv, cli, allow_scenes, &err);
    if (rc == 1) {
        fputs(usage, stdout);
        exit(0);
    }
    if (rc != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        exit(2);
    }
}

void weft_cli_parse(int argc, char **argv, weft_cli *cli, const char *usage) {
    parse(argc, argv, cli, usage, false);
}

void weft_cli_parse_scenes(int argc, char **argv, weft_cli *cli, const char *usage) {
    parse(argc, argv, cli, usage, true);
}

int weft_cli_build(const weft_cli *cli, weft_model *m, weft_config **cfg, weft_error *err) {
    if (cfg) *cfg = NULL;
    weft_scene *s = weft_scene_load(cli->scene, err);
    if (!s) return WEFT_ERR_INPUT;
    char buf[64];
    int rc = WEFT_OK;
    if (cli->iterations > 0) {
        snprintf(buf, sizeof buf, "solver.iterations=%d", cli->iterations);
        rc = weft_scene_set(s, buf, "--iterations", err);
    }
    if (!rc && cli->steps >= 0) {
        snprintf(buf, sizeof buf, "scene.steps=%d", cli->steps);
        rc = weft_scene_set(s, buf, "--steps", err);
    }
    if (!rc && cli->threads > 0) {
        snprintf(buf, sizeof buf, "solver.threads=%d", cli->threads);
        rc = weft_scene_set(s, buf, "--threads", err);
    }
    for (int i = 0; !rc && i < cli->nset; i++) rc = weft_scene_set(s, cli->set[i], "--set", err);
    weft_config *c = NULL;
    if (!rc && !(c = weft_config_from_scene(s, err))) rc = WEFT_ERR_INPUT;
    if (!rc) rc = weft_scene_build(s, weft_energy_registry, m, err);
    if (!rc && (rc = weft_run_check(c, m, err))) weft_model_free(m); /* built, then refused */
    weft_scene_free(&s);
    if (rc || !cfg)
        weft_config_free(&c);
    else
        *cfg = c;
    return rc;
}

int weft_cli_setting(const weft_config *cfg, const char *section, const char *key, int dflt) {
    double v;
    return weft_config_value(cfg, section, key, &v) ? (int)v : dflt;
}

int weft_mkdirs(const char *path) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "error: %s: cannot create directory: %s\n", buf, strerror(errno));
                return -1;
            }
            if (!c) break;
            *p = c;
        }
    }
    return 0;
}

int weft_gnuplot(const char *defs, const char *script) {
    /* gnuplot's own messages ("31 frames in animation sequence", warnings about empty
     * data) would land in the middle of the caller's table: keep them in a temporary
     * log and show them only when gnuplot fails. */
    FILE *log = tmpfile();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        if (log) fclose(log);
        return -1;
    }
    if (pid == 0) {
        if (log) {
            dup2(fileno(log), STDOUT_FILENO);
            dup2(fileno(log), STDERR_FILENO);
        }
        execlp("gnuplot", "gnuplot", "-e", defs, script, (char *)NULL);
        fprintf(stderr, "error: cannot run gnuplot: %s (install gnuplot-nox)\n", strerror(errno));
        _exit(127);
    }
    int status;
    int rc = waitpid(pid, &status, 0) < 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (log) {
        if (rc != 0) {
            char buf[4096];
            size_t n;
            rewind(log);
            while ((n = fread(buf, 1, sizeof buf, log)) > 0) fwrite(buf, 1, n, stderr);
        }
        fclose(log);
    }
    return rc;
}

const char *weft_plots_dir(void) {
    const char *d = getenv("WEFT_PLOTS_DIR");
    return d && *d ? d : WEFT_PLOTS_DIR;
}

const char *weft_cli_unprefixed(const char *msg, const char *name) {
    size_t n = strlen(name);
    if (!strncmp(msg, name, n) && msg[n] == ':' && msg[n + 1] == ' ') return msg + n + 2;
    return msg;
}

int weft_cli_solvers(const char *list, const char *where, const weft_solver_type **out,
                     int max) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        const weft_solver_type *s = weft_solver_find(tok);
        if (!s) {
            weft_suggest sg;
            weft_suggest_init(&sg, tok);
            for (const weft_solver_type *const *r = weft_solver_registry; *r; r++)
                weft_suggest_offer(&sg, (*r)->name);
            const char *best = weft_suggest_best(&sg);
            fprintf(stderr, "error: %s: unknown solver '%s' (%s%s%sknown:", where, tok,
                    best ? "nearest: " : "", best ? best : "", best ? "; " : "");
            for (const weft_solver_type *const *r = weft_solver_registry; *r; r++)
                fprintf(stderr, " %s", (*r)->name);
            fprintf(stderr, ")\n");
            return -1;
        }
        if (n == max) {
            fprintf(stderr, "error: %s: at most %d solvers\n", where, max);
            return -1;
        }
        out[n++] = s;
    }
    if (n == 0) fprintf(stderr, "error: %s: empty list\n", where);
    return n > 0 ? n : -1;
}

void weft_cli_perturb(weft_model *m, double fraction, unsigned long long seed) {
    const weft_mesh *mesh = &m->mesh;
    double len = 0.0;
    for (int e = 0; e < mesh->ne; e++) {
        const double *a = &mesh->x[3 * mesh->edge[2 * e]], *b = &mesh->x[3 * mesh->edge[2 * e + 1]];
        len += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                    (a[2] - b[2]) * (a[2] - b[2]));
    }
    len = mesh->ne ? len / mesh->ne : 1.0;
    unsigned long long s = seed;
    for (int i = 0; i < 3 * m->n; i++) { /* a 64-bit linear congruential generator */
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(s >> 11) * (1.0 / 9007199254740992.0);
        m->x[i] += fraction * len * (2.0 * u - 1.0);
    }
}
