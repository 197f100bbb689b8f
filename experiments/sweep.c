/* sweep.c — options, lists, results files and energies shared by the sweep experiments
 * (accuracy.c, damping.c, stability.c). */
#include "sweep.h"

#include "weft_solvers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void weft_sweep_take(int *argc, char **argv, const char *const *names, const char **values) {
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        int hit = -1;
        size_t len = 0;
        if (a[0] == '-' && a[1] == '-') {
            for (int k = 0; names[k]; k++) {
                len = strlen(names[k]);
                if (!strncmp(a + 2, names[k], len) && (a[2 + len] == '\0' || a[2 + len] == '=')) {
                    hit = k;
                    break;
                }
            }
        }
        if (hit < 0) {
            argv[out++] = argv[i];
            continue;
        }
        if (a[2 + len] == '=') {
            values[hit] = a + 3 + len;
        } else if (i + 1 < *argc && strncmp(argv[i + 1], "--", 2) != 0) {
            values[hit] = argv[++i];
        } else {
            fprintf(stderr, "error: --%s: missing its value (see --help)\n", names[hit]);
            exit(2);
        }
    }
    *argc = out;
    argv[out] = NULL;
}

bool weft_sweep_flag(int *argc, char **argv, const char *name) {
    bool found = false;
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] == '-' && !strcmp(argv[i] + 2, name))
            found = true;
        else
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return found;
}

/* Parses one positive number, decimal or a fraction such as 1/N (weft_parse_number, the
 * form scene values and --set take), from text up to its end; NaN if bad. */
static double parse_number(const char *text) {
    double v;
    return weft_parse_number(text, &v) && v > 0 ? v : NAN;
}

int weft_sweep_numbers(const char *option, const char *text, double *out, int max) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        double v = parse_number(tok);
        if (isnan(v)) {
            fprintf(stderr, "error: --%s: '%s' is not a positive number (decimal or 1/N)\n",
                    option, tok);
            return -1;
        }
        if (n == max) {
            fprintf(stderr, "error: --%s: at most %d values\n", option, max);
            return -1;
        }
        out[n++] = v;
    }
    if (n == 0) fprintf(stderr, "error: --%s: empty list\n", option);
    return n > 0 ? n : -1;
}

double weft_sweep_number(const char *option, const char *text) {
    double v = parse_number(text);
    if (isnan(v)) {
        fprintf(stderr, "error: --%s: '%s' is not a positive number (decimal or 1/N)\n", option,
                text);
        exit(2);
    }
    return v;
}

int weft_sweep_count(const char *option, const char *text, double max) {
    double v = weft_sweep_number(option, text);
    if (v != floor(v) || v > max) {
        fprintf(stderr, "error: --%s: '%s' is not a whole number >= 1\n", option, text);
        exit(2);
    }
    return (int)v;
}

int weft_sweep_grid(weft_cli *cli, const char *value, int dflt, char buf[2][32]) {
    int n = cli->scene_given ? 0 : dflt;
    if (value) {
        char *end;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (*end || end == value || errno || v < 0 || v == 1 || v > 4096) {
            fprintf(stderr, "error: --grid: '%s' is not 0 or a whole number from 2 to 4096\n",
                    value);
            exit(2);
        }
        n = (int)v;
    }
    if (n == 0) return 0;
    if (cli->nset > 62) {
        fprintf(stderr, "error: too many --set options (64 at most, --grid takes two)\n");
        exit(2);
    }
    snprintf(buf[0], 32, "mesh.nx=%d", n);
    snprintf(buf[1], 32, "mesh.ny=%d", n);
    /* First, so that an explicit --set mesh.nx=... still wins. */
    memmove(cli->set + 2, cli->set, (size_t)cli->nset * sizeof cli->set[0]);
    cli->set[0] = buf[0];
    cli->set[1] = buf[1];
    cli->nset += 2;
    return n;
}

FILE *weft_sweep_open(const char *path, char *tmp, size_t size) {
    snprintf(tmp, size, "%s.partial", path);
    FILE *f = fopen(tmp, "w");
    if (!f) fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
    return f;
}

int weft_sweep_close(FILE *f, const char *tmp, const char *path, bool complete) {
    if (fclose(f) != 0) {
        fprintf(stderr, "error: %s: cannot write\n", tmp);
        return -1;
    }
    if (complete && rename(tmp, path) != 0) {
        fprintf(stderr, "error: %s: cannot rename to %s: %s\n", tmp, path, strerror(errno));
        return -1;
    }
    return 0;
}

double weft_sweep_kinetic(const weft_model *m) {
    double k = 0.0;
    for (int i = 0; i < m->n; i++) {
        const double *v = &m->v[3 * i];
        k += 0.5 * m->mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    return k;
}

void weft_sweep_energy_of(const weft_model *m, weft_sweep_energy *e) {
    e->kinetic = weft_sweep_kinetic(m);
    e->gravity = 0.0;
    for (int i = 0; i < m->n; i++)
        for (int k = 0; k < 3; k++) e->gravity -= m->mass[i] * m->gravity[k] * m->x[3 * i + k];
    e->elastic = weft_model_energy(m, m->x);
    e->total = e->kinetic + e->gravity + e->elastic;
}

double weft_sweep_term_energy(const weft_model *m, int t) {
    const weft_term *term = &m->terms[t];
    double E = 0.0;
    if (!term->type->energy) return 0.0;
    for (int i = 0; i < term->n; i++) {
        double xe[3 * WEFT_ELEM_MAXV];
        for (int a = 0; a < term->type->nv; a++)
            memcpy(&xe[3 * a], &m->x[3 * term->elem[i].v[a]], 3 * sizeof(double));
        E += term->type->energy(&term->elem[i], xe);
    }
    return E;
}

double weft_sweep_free_mass(const weft_model *m) {
    double s = 0.0;
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] < 0) s += m->mass[i];
    return s;
}

double weft_sweep_extent(const weft_model *m) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < m->mesh.nv; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m->mesh.x[3 * i + k]);
            hi[k] = fmax(hi[k], m->mesh.x[3 * i + k]);
        }
    double d2 = 0.0;
    for (int k = 0; k < 3 && m->mesh.nv > 0; k++) d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    return sqrt(d2);
}

void weft_sweep_command(int argc, char **argv, char *buf, size_t size) {
    size_t l = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && l < size; i++)
        l += (size_t)snprintf(buf + l, size - l, "%s%s", i ? " " : "", argv[i]);
}
