/* cli.c — option parsing (glibc getopt_long) and scene set-up shared by the
 * experiment binaries, so they all accept the same flags with the same meaning. */
#include "cli.h"

#include "weft_energies.h"
#include "weft_solvers.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef WEFT_GIT
#define WEFT_GIT "unknown"
#endif
#ifndef WEFT_BUILD_TYPE
#define WEFT_BUILD_TYPE "unknown"
#endif
#ifndef WEFT_C_COMPILER
#define WEFT_C_COMPILER "unknown"
#endif
#ifndef WEFT_C_FLAGS
#define WEFT_C_FLAGS "unknown"
#endif

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
        {"scenes", required_argument, 0, 'M'},  {"configs", required_argument, 0, 'C'},
        {"same-model", no_argument, 0, 'D'},
        {"list-solvers", no_argument, 0, 'L'},
        {"force", no_argument, 0, 'F'},         {"rerun", required_argument, 0, 'R'},
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
        case 'C':
            if (!allow_scenes)
                return weft_fail(err, WEFT_ERR_INPUT,
                                 "--configs: this program has no configurations to choose");
            cli->configs = optarg;
            break;
        case 'S': cli->solvers = optarg; break;
        case 'i': ok = int_option("iterations", optarg, 1, &cli->iterations, err); break;
        case 'n': ok = int_option("steps", optarg, 0, &cli->steps, err); break;
        case 't': ok = int_option("threads", optarg, 1, &cli->threads, err); break;
        case 'O': ok = int_option("obj-every", optarg, 0, &cli->obj_every, err); break;
        case 'P': ok = int_option("plot-step", optarg, 0, &cli->plot_step, err); break;
        case 'N': cli->no_plot = true; break;
        case 'F': cli->force = true; break;
        case 'R': {
            size_t l = strlen(optarg);
            while (l > 1 && optarg[l - 1] == '/') l--;
            if (l + sizeof "/config.ini" > sizeof cli->rerun_scene)
                return weft_fail(err, WEFT_ERR_INPUT, "--rerun: folder name too long");
            snprintf(cli->rerun_scene, sizeof cli->rerun_scene, "%.*s/config.ini", (int)l, optarg);
            cli->scene = cli->rerun_scene, cli->scene_given = true;
            break;
        }
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

/* Loads cli->scene with --iterations, --steps, --threads and every --set applied; NULL
 * after the error in err. */
static weft_scene *cli_scene(const weft_cli *cli, weft_error *err) {
    weft_scene *s = weft_scene_load(cli->scene, err);
    if (!s) return NULL;
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
    if (!rc && cli->solvers) {
        /* The solvers named are the run's [scene] solvers (the log header and config.ini
         * list them), as "a,b,c" whatever the spacing given. */
        size_t size = strlen(cli->solvers) + sizeof "scene.solvers=";
        char *list = malloc(size), *names = strdup(cli->solvers), *save = NULL;
        int k = 0;
        if (!list || !names) {
            rc = weft_fail(err, WEFT_ERR_NOMEM, "--solvers: out of memory");
        } else {
            snprintf(list, size, "scene.solvers=");
            for (char *t = strtok_r(names, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
                size_t l = strlen(list); /* the list never grows past the words given */
                snprintf(list + l, size - l, "%s%s", k++ ? "," : "", t);
            }
            if (k) rc = weft_scene_set(s, list, "--solvers", err);
        }
        free(list);
        free(names);
    }
    for (int i = 0; !rc && i < cli->nset; i++) rc = weft_scene_set(s, cli->set[i], "--set", err);
    if (rc) weft_scene_free(&s);
    return s;
}

int weft_cli_build(const weft_cli *cli, weft_model *m, weft_config **cfg, weft_error *err) {
    if (cfg) *cfg = NULL;
    weft_scene *s = cli_scene(cli, err);
    if (!s) return WEFT_ERR_INPUT;
    int rc = WEFT_OK;
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
    char buf[4096];
    if (strlen(path) >= sizeof buf) {
        fprintf(stderr, "error: %.64s...: path longer than %zu characters\n", path, sizeof buf - 1);
        return -1;
    }
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
    char *buf = strdup(list);
    if (!buf) {
        fprintf(stderr, "error: %s: out of memory\n", where);
        return -1;
    }
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
            free(buf);
            return -1;
        }
        if (n == max) {
            fprintf(stderr, "error: %s: at most %d solvers\n", where, max);
            free(buf);
            return -1;
        }
        out[n++] = s;
    }
    free(buf);
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

int weft_cli_check_sets(const weft_cli *cli, const weft_solver_type *const *solvers, int ns,
                        const weft_model *m, weft_config *cfg, weft_error *err) {
    weft_config_mark_clear(cfg);
    bool probed = true;
    for (int k = 0; k < ns; k++) {
        weft_error ignored = {{0}};
        if (weft_run_probe(solvers[k], m, cfg, &ignored) != WEFT_OK) probed = false;
    }
    for (int i = 0; probed && i < cli->nset; i++) {
        int rc = weft_config_check_read(cfg, cli->set[i], "--set", err);
        if (rc) return rc;
    }
    return WEFT_OK;
}

/* True when name is one of the files compare writes into its folder. */
static bool owned_file(const char *name) {
    static const char *const fixed[] = {"summary.tsv", "summary.tsv.partial", "config.ini",
                                        "config.ini.partial", "convergence_iterations.png",
                                        "convergence_time.png", "final_shapes.png",
                                        "animation.gif", NULL};
    for (int i = 0; fixed[i]; i++)
        if (!strcmp(name, fixed[i])) return true;
    for (const weft_solver_type *const *r = weft_solver_registry; *r; r++) {
        size_t l = strlen((*r)->name);
        if (strncmp(name, (*r)->name, l) != 0) continue;
        const char *rest = name + l;
        /* SOLVER.log and its companions (SOLVER.log.linear, .log.collisions, .partial) */
        if (!strcmp(rest, ".log") || !strncmp(rest, ".log.", 5)) return true;
        if (!strcmp(rest, "_shape.dat") || !strcmp(rest, "_frames.dat") ||
            !strcmp(rest, "_frames.dat.partial"))
            return true;
        /* SOLVER_NNNNNN.obj, the --obj-every frames */
        if (rest[0] == '_' && strlen(rest) == 11 && !strcmp(rest + 7, ".obj") &&
            strspn(rest + 1, "0123456789") == 6)
            return true;
    }
    return false;
}

int weft_cli_prepare_out(const char *dir, bool force) {
    if (weft_mkdirs(dir) != 0) return -1;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "error: %s: cannot read the folder: %s\n", dir, strerror(errno));
        return -1;
    }
    char found[300] = "";
    int nfound = 0, status = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!owned_file(e->d_name)) continue;
        if (force) {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (unlink(path) != 0 && errno != ENOENT) {
                fprintf(stderr, "error: %s: cannot remove: %s\n", path, strerror(errno));
                status = -1;
            }
            continue;
        }
        if (nfound < 4) {
            size_t l = strlen(found);
            snprintf(found + l, sizeof found - l, "%s%s", nfound ? ", " : "", e->d_name);
        }
        nfound++;
    }
    closedir(d);
    if (!force && nfound > 0) {
        fprintf(stderr, "error: %s holds another run's results (%s%s); pass --force to replace "
                "them or choose a fresh folder with --out\n", dir, found,
                nfound > 4 ? ", ..." : "");
        return -1;
    }
    return status;
}

/* Writes text as '#' comment lines of at most ~150 characters (a scene line holds 199),
 * broken at spaces, a word longer than that at 150. */
static void comment(FILE *f, const char *text) {
    const char *p = text;
    do {
        size_t n = strlen(p);
        if (n > 150) {
            n = 150;
            while (n > 40 && p[n] != ' ') n--;
            if (p[n] != ' ') n = 150;
        }
        fprintf(f, "#%s%.*s\n", p == text ? " " : "     ", (int)n, p);
        p += n;
        while (*p == ' ') p++;
    } while (*p);
}

/* The CPU's model name from /proc/cpuinfo into buf ("unknown" without it). */
static void cpu_model(char *buf, size_t size) {
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *v = strchr(line, ':');
        if (!v) continue;
        v++;
        while (*v == ' ' || *v == '\t') v++;
        size_t n = strcspn(v, "\n");
        snprintf(buf, size, "%.*s", (int)n, v);
        break;
    }
    fclose(f);
}

int weft_cli_write_config(const weft_cli *cli, const char *path, const char *solvers,
                          const weft_model *m, const weft_config *cfg, int argc,
                          char *const *argv, weft_error *err) {
    weft_scene *s = cli_scene(cli, err);
    if (!s) return WEFT_ERR_INPUT;
    char tmp[2100], dir[2048];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    FILE *f = fopen(tmp, "w");
    if (!f) {
        weft_scene_free(&s);
        return weft_fail(err, WEFT_ERR_IO, "%s: cannot write: %s", tmp, strerror(errno));
    }
    char date[32], cpu[256];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cpu_model(cpu, sizeof cpu);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    const char *prog = argv ? strrchr(argv[0], '/') : NULL;
    prog = prog ? prog + 1 : argv ? argv[0] : "compare";
    char line[8192];
    fprintf(f, "# config.ini: the fully resolved input of the run in this folder, as a scene\n"
               "# file: every key of the model with its value (defaults included) and every\n"
               "# setting of the plug-ins the run read. Rerun it into a fresh folder with\n");
    snprintf(line, sizeof line, "  %s --scene %s --out NEW_FOLDER", prog, path);
    comment(f, line);
    if (strcmp(path + strlen(dir), "/config.ini") == 0)
        snprintf(line, sizeof line, "(or --rerun %s); its logs then match these bit for bit "
                 "but for the wall-clock column and the date.", dir);
    else
        snprintf(line, sizeof line, "(with its own command's options); its log then matches "
                 "this run's bit for bit but for the wall-clock column and the date.");
    comment(f, line);
    snprintf(line, sizeof line, "weft: version %s  git %s", WEFT_VERSION, WEFT_GIT);
    comment(f, line);
    snprintf(line, sizeof line, "build: %s  compiler %s  flags %s", WEFT_BUILD_TYPE,
             WEFT_C_COMPILER, WEFT_C_FLAGS);
    comment(f, line);
    snprintf(line, sizeof line, "machine: cpu \"%s\"  cores %ld  openmp_max_threads %d", cpu,
             sysconf(_SC_NPROCESSORS_ONLN), threads);
    comment(f, line);
    snprintf(line, sizeof line, "date: %s", date);
    comment(f, line);
    int len = snprintf(line, sizeof line, "command:");
    for (int i = 0; argv && i < argc && len > 0 && (size_t)len < sizeof line; i++)
        len += snprintf(line + len, sizeof line - (size_t)len, " %s", i == 0 ? prog : argv[i]);
    if (argv) comment(f, line);
    fputc('\n', f);
    weft_error werr = {{0}};
    int rc = weft_scene_write(s, m, cfg, solvers, f, &werr);
    weft_scene_free(&s);
    if (rc != WEFT_OK) weft_fail(err, rc, "%s: %s", path, werr.msg);
    if (fclose(f) != 0 && rc == WEFT_OK) rc = weft_fail(err, WEFT_ERR_IO, "%s: write failed", tmp);
    if (rc == WEFT_OK && rename(tmp, path) != 0)
        rc = weft_fail(err, WEFT_ERR_IO, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
    if (rc != WEFT_OK) unlink(tmp);
    return rc;
}
