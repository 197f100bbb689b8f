/* sweep_merge.c — `sweep merge DIR [--no-plot]`: collects each run's summary (the rows of
 * DIR/runs/RUN/SUB/summary.tsv, listed in DIR/manifest.tsv) into DIR/merged.tsv, one row
 * per summary row (one for a run without one) with the parameters as columns and a state
 * (complete, failed, incomplete, missing: from the summary and the run's job.log), and
 * draws DIR/NAME.png with experiments/plots/sweep.gp: a heat map over two varied axes (a
 * panel per solver), lines over one. Exits 3 when a run is not complete. */
#include "cli.h"
#include "sweep.h"
#include "sweep_tool.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A run's state as the merge sees it, and its summary's rows. */
typedef struct run {
    int job;
    const char *dir, *solver, **param, *repeat, *summary;
    const char *state, *note;
    int nrows;
    bool complete;
    const char ***rows; /* its summary's rows: the values of each metric */
} run;

/* A sweep directory being merged. */
typedef struct merge {
    const char *dir;
    sweep_spec s;
    int naxes;
    const char **axis_keys; /* the manifest's axis columns */
    int nr, cap;
    run *runs;
    int nmetrics, metrics_cap;
    const char **metrics; /* the summary columns collected */
    int counts[4];        /* complete, failed, incomplete, missing */
} merge;

/* One dimension of the figure: an axis of the spec or a collected summary column. */
typedef struct dim {
    int axis, metric; /* which one it is (the other -1); both -1: no dimension */
    int n, cap;
    const char **value; /* its values, in order */
    const char **label; /* their tic labels */
    bool numeric;       /* every value is a number */
} dim;

/* ---- the runs ---- */

/* The last `size - 1` bytes of a file into buf (a window: a job log's end says how it
 * ended), or NULL when it cannot be read. */
static const char *tail_of(const char *path, char *buf, size_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long end = ftell(f);
        if (end > (long)size - 1)
            fseek(f, end - (long)size + 1, SEEK_SET);
        else
            rewind(f);
    }
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The status of a job log's last "# exit=" line (-1 when there is none) and its last line
 * holding "error:" (NULL when none; at most 160 characters). */
static int exit_status(const char *log_text, const char **last_error) {
    int rc = -1;
    const char *err = NULL;
    size_t err_len = 0;
    for (const char *p = log_text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l > 7 && !strncmp(p, "# exit=", 7)) rc = atoi(p + 7);
        for (size_t i = 0; i + 6 <= l; i++)
            if (!strncmp(p + i, "error:", 6)) {
                err = p, err_len = l < 160 ? l : 160;
                break;
            }
        p = e ? e + 1 : NULL;
    }
    *last_error = err ? sweep_keepn(err, err_len) : NULL;
    return rc;
}

/* s with tabs and newlines replaced by spaces (in the arena). */
static const char *flat(const char *s) {
    char *c = sweep_keep(s);
    for (char *p = c; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
    return c;
}

/* Is text a number (including nan and inf)? */
static bool numeric(const char *text) {
    char *end;
    strtod(text, &end);
    return end != text && !*end;
}

/* Reads DIR/manifest.tsv (job dir solver AXES... repeat summary) into m->runs; 2 after an
 * error naming its line, else 0. */
static int read_manifest(merge *m, const char *path) {
    char *text = sweep_slurp(path, false);
    if (!text) return 2;
    m->naxes = -1;
    int lineno = 0;
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n'), **fv;
        if (end) *end = '\0';
        lineno++;
        int n = line[0] == '#' ? 0 : sweep_fields(line, &fv);
        line = end ? end + 1 : line + strlen(line);
        if (n == 0) continue;
        if (m->naxes < 0) {
            m->naxes = n - 5;
            if (m->naxes < 0 || m->naxes != m->s.naxes || strcmp(fv[0], "job")) {
                fprintf(stderr, "error: %s:%d: not the header of a manifest of %s\n", path, lineno,
                        m->s.path);
                return 2;
            }
            m->axis_keys = (const char **)fv + 3;
            continue;
        }
        if (n != m->naxes + 5) {
            fprintf(stderr, "error: %s:%d: expected %d fields\n", path, lineno, m->naxes + 5);
            return 2;
        }
        m->runs = sweep_grow(m->runs, m->nr, &m->cap, sizeof *m->runs);
        run *u = &m->runs[m->nr++];
        *u = (run){.job = atoi(fv[0]), .dir = fv[1], .solver = fv[2]};
        u->param = (const char **)fv + 3;
        u->repeat = fv[3 + m->naxes], u->summary = fv[4 + m->naxes];
    }
    if (m->naxes < 0) {
        fprintf(stderr, "error: %s: empty manifest\n", path);
        return 2;
    }
    return 0;
}

/* Reads run u's summary text (path sp): its header is the first line not starting with
 * '#', its rows the lines after it. Without sweep.metrics the first summary read sets
 * them: every column but the solver. 2 after an error, else 0. */
static int read_summary(merge *m, run *u, const char *sp, const char *text) {
    u->state = "complete";
    u->complete = true;
    int lines = 1;
    for (const char *q = text; *q; q++) lines += *q == '\n';
    u->rows = sweep_alloc((size_t)lines * sizeof *u->rows);
    char **cols = NULL;
    int ncols = -1;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char *ln = sweep_keepn(p, l), **fv;
        p = e ? e + 1 : p + l;
        if (ln[0] == '#' || !ln[0]) continue;
        int n = sweep_fields(ln, &fv);
        if (ncols < 0) {
            ncols = n, cols = fv;
            if (m->nmetrics == 0) /* default: every column but the solver */
                for (int c = 0; c < n; c++)
                    if (strcmp(fv[c], "solver")) {
                        m->metrics = sweep_grow(m->metrics, m->nmetrics, &m->metrics_cap,
                                                sizeof *m->metrics);
                        m->metrics[m->nmetrics++] = fv[c];
                    }
            continue;
        }
        const char **row = sweep_alloc((size_t)(m->nmetrics + 1) * sizeof *row);
        for (int k = 0; k < m->nmetrics; k++) {
            int c = 0;
            while (c < ncols && strcmp(cols[c], m->metrics[k])) c++;
            if (c == ncols) {
                fprintf(stderr, "error: %s: no column '%s' (a metric of %s)\n", sp, m->metrics[k],
                        m->s.path);
                return 2;
            }
            row[k] = c < n ? fv[c] : "-";
        }
        u->rows[u->nrows++] = row;
    }
    if (u->nrows == 0) u->state = "failed", u->complete = false, u->note = "summary without rows";
    return 0;
}

/* Why run u (its folder rund) has no summary, from its job log's end (in window[size]):
 * missing (never started), incomplete (no end recorded, or a signal) or failed. */
static void no_summary(run *u, const char *rund, char *window, size_t size) {
    const char *log = tail_of(sweep_printf("%s/job.log", rund), window, size), *err;
    int rc = exit_status(log, &err);
    if (!log && access(rund, F_OK) != 0) {
        u->state = "missing", u->note = "not run";
    } else if (rc < 0 || rc >= 128) {
        u->state = "incomplete";
        u->note = flat(sweep_printf("%s%s%s",
                                    rc < 0 ? "started, no end recorded (killed, or still running)"
                                           : "ended by a signal",
                                    err ? ": " : "", err ? err : ""));
    } else {
        u->state = "failed";
        u->note = flat(sweep_printf("exit=%d%s%s", rc, err ? ": " : "", err ? err : ""));
    }
}

/* Each run's rows, or why there are none; counts the states. 2 after an error, else 0. */
static int read_runs(merge *m) {
    m->metrics = m->s.metrics, m->nmetrics = m->s.nmetrics, m->metrics_cap = m->s.nmetrics;
    const size_t window = (size_t)1 << 16; /* the end of a job log that is read */
    char *buf = sweep_alloc(window);
    for (int r = 0; r < m->nr; r++) {
        run *u = &m->runs[r];
        const char *sp = sweep_printf("%s/%s", m->dir, u->summary);
        const char *text = sweep_slurp(sp, true);
        u->note = "-";
        if (text && read_summary(m, u, sp, text) != 0) return 2;
        if (!text) no_summary(u, sweep_printf("%s/runs/%s", m->dir, u->dir), buf, window);
        m->counts[!strcmp(u->state, "complete")     ? 0
                  : !strcmp(u->state, "failed")     ? 1
                  : !strcmp(u->state, "incomplete") ? 2
                                                    : 3]++;
    }
    return 0;
}

/* Writes DIR/merged.tsv; 0, or -1 after an error. */
static int write_table(const merge *m, const char *mpath) {
    char tmp[PATH_MAX + 48];
    FILE *f = weft_sweep_open(mpath, tmp, sizeof tmp);
    if (!f) return -1;
    const int *c = m->counts;
    fprintf(f,
            "# weft sweep merge: name=%s runs=%d complete=%d failed=%d incomplete=%d "
            "missing=%d%s\n",
            m->s.name, m->nr, c[0], c[1], c[2], c[3],
            c[0] == m->nr ? "" : "  NOT ALL RUNS ARE COMPLETE: see the state column");
    fprintf(f, "job\tstate\tsolver");
    for (int k = 0; k < m->naxes; k++) fprintf(f, "\t%s", m->axis_keys[k]);
    fprintf(f, "\trepeat");
    for (int k = 0; k < m->nmetrics; k++) fprintf(f, "\t%s", m->metrics[k]);
    fprintf(f, "\tnote\n");
    for (int r = 0; r < m->nr; r++) {
        const run *u = &m->runs[r];
        for (int row = 0; row < (u->nrows ? u->nrows : 1); row++) {
            fprintf(f, "%d\t%s\t%s", u->job, u->state, u->solver);
            for (int k = 0; k < m->naxes; k++) fprintf(f, "\t%s", u->param[k]);
            fprintf(f, "\t%s", u->repeat);
            for (int k = 0; k < m->nmetrics; k++)
                fprintf(f, "\t%s", u->nrows ? u->rows[row][k] : "-");
            fprintf(f, "\t%s\n", u->note);
        }
    }
    return weft_sweep_close(f, tmp, mpath, true);
}

/* ---- the figure ---- */

/* Appends v to d's values (label: its tic label) unless it is there already. */
static void dim_add(dim *d, const char *v, const char *label) {
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->value[i], v)) return;
    int cap = d->cap; /* the two lists grow alike: d->cap counts both */
    d->label = sweep_grow(d->label, d->n, &cap, sizeof *d->label);
    d->value = sweep_grow(d->value, d->n, &d->cap, sizeof *d->value);
    d->label[d->n] = label, d->value[d->n++] = v;
}

/* qsort order of numeric strings, ascending. */
static int by_number(const void *a, const void *b) {
    double x = strtod(*(const char *const *)a, NULL), y = strtod(*(const char *const *)b, NULL);
    return (x > y) - (x < y);
}

/* d for axis k: its values in the spec's order, unless a run has a value the spec does
 * not list (a plan by another version): then the values the runs have, in their order. */
static void dim_of_axis(const merge *m, int k, dim *d) {
    const sweep_axis *a = &m->s.axes[k];
    d->axis = k;
    for (int i = 0; i < a->n; i++) dim_add(d, a->value[i], a->text[i]);
    bool listed = true;
    for (int r = 0; r < m->nr && listed; r++) {
        int i = 0;
        while (i < d->n && strcmp(d->value[i], m->runs[r].param[k])) i++;
        listed = i < d->n;
    }
    if (!listed) {
        d->n = 0;
        for (int r = 0; r < m->nr; r++) dim_add(d, m->runs[r].param[k], m->runs[r].param[k]);
    }
}

/* Fills d for `name`: the key of an axis or a metric (the distinct values of the complete
 * rows, ascending when numeric). False if neither. */
static bool dim_of(const merge *m, const char *name, dim *d) {
    *d = (dim){.axis = -1, .metric = -1};
    for (int k = 0; k < m->s.naxes; k++)
        if (!strcmp(m->s.axes[k].key, name)) dim_of_axis(m, k, d);
    for (int k = 0; d->axis < 0 && k < m->nmetrics; k++)
        if (!strcmp(m->metrics[k], name)) d->metric = k;
    if (d->axis < 0 && d->metric < 0) return false;
    for (int r = 0; d->metric >= 0 && r < m->nr; r++)
        for (int w = 0; m->runs[r].complete && w < m->runs[r].nrows; w++)
            dim_add(d, m->runs[r].rows[w][d->metric], NULL);
    d->numeric = true;
    for (int i = 0; i < d->n; i++) d->numeric = d->numeric && numeric(d->value[i]);
    if (d->metric >= 0) {
        if (d->numeric) qsort(d->value, (size_t)d->n, sizeof d->value[0], by_number);
        for (int i = 0; i < d->n; i++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%.3g", strtod(d->value[i], NULL));
            d->label[i] = d->numeric ? sweep_keep(buf) : d->value[i];
        }
    }
    return true;
}

/* The index in d of the value that run u (row w) has, or -1; 0 when d is no dimension. */
static int dim_index(const dim *d, const run *u, int w) {
    if (d->axis < 0 && d->metric < 0) return 0;
    const char *v = d->axis >= 0 ? u->param[d->axis] : u->rows[w][d->metric];
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->value[i], v)) return i;
    return -1;
}

/* Whether every value of d is positive and the largest exceeds 5 times the smallest. */
static bool wide(const dim *d) {
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < d->n; i++) {
        double v = strtod(d->value[i], NULL);
        if (!(v > 0)) return false;
        lo = fmin(lo, v), hi = fmax(hi, v);
    }
    return d->numeric && d->n > 1 && hi > 5 * lo;
}

/* words joined by spaces (in the arena). */
static const char *join(const char *const *words, int n) {
    sweep_text t = {0};
    sweep_add(&t, "%s", "");
    for (int i = 0; i < n; i++) sweep_add(&t, "%s%s", i ? " " : "", words[i]);
    return t.s;
}

/* What the figure draws: the metric, x and y, lines or a heat map, a text metric's
 * categories. */
typedef struct plot {
    int mi; /* the metric drawn */
    dim dx, dy;
    bool lines, text_metric;
    int nc, cats_cap;
    const char **cats;
} plot;

/* Chooses the metric ([figure] metric, or the first) and x and y (the ones [figure]
 * names, axes or metrics, else the varied axes in order). False after an error. */
static bool choose(const merge *m, plot *g) {
    const sweep_spec *s = &m->s;
    g->mi = 0;
    if (s->fig_metric) {
        g->mi = -1;
        for (int i = 0; i < m->nmetrics; i++)
            if (!strcmp(m->metrics[i], s->fig_metric)) g->mi = i;
        if (g->mi < 0) {
            fprintf(stderr, "error: %s:%d: figure.metric: '%s' is not a collected metric\n",
                    s->path, s->fig_line, s->fig_metric);
            return false;
        }
    }
    g->dx = g->dy = (dim){.axis = -1, .metric = -1};
    const char *named[2] = {s->fig_x, s->fig_y};
    dim *dims[2] = {&g->dx, &g->dy};
    for (int i = 0; i < 2; i++)
        if (named[i] && !dim_of(m, named[i], dims[i])) {
            fprintf(stderr,
                    "error: %s:%d: figure.%s: '%s' is neither a key of [axes] nor a "
                    "collected metric\n",
                    s->path, s->fig_line, i ? "y" : "x", named[i]);
            return false;
        }
    g->lines = s->fig_type && !strcmp(s->fig_type, "lines");
    for (int i = 0; i < (g->lines ? 1 : 2); i++)
        for (int k = 0; !named[i] && dims[i]->n == 0 && k < s->naxes; k++)
            if (s->axes[k].n > 1 && k != g->dx.axis && k != g->dy.axis)
                dim_of(m, s->axes[k].key, dims[i]);
    if (g->dy.n == 0) g->lines = true;
    if (g->lines) g->dy = (dim){.axis = -1, .metric = -1};
    return true;
}

/* A text metric's categories: the spec's order, then the others as they come. */
static void categories(const merge *m, plot *g) {
    g->text_metric = false;
    for (int r = 0; r < m->nr; r++)
        for (int w = 0; m->runs[r].complete && w < m->runs[r].nrows; w++)
            g->text_metric = g->text_metric || !numeric(m->runs[r].rows[w][g->mi]);
    if (!g->text_metric) return;
    if (m->s.fig_categories) g->nc = sweep_split(m->s.fig_categories, ", \t", &g->cats);
    g->cats_cap = g->nc;
    for (int r = 0; r < m->nr; r++)
        for (int w = 0; m->runs[r].complete && w < m->runs[r].nrows; w++) {
            const char *v = m->runs[r].rows[w][g->mi];
            int c = 0;
            while (c < g->nc && strcmp(g->cats[c], v)) c++;
            if (c < g->nc) continue;
            g->cats = sweep_grow(g->cats, g->nc, &g->cats_cap, sizeof *g->cats);
            g->cats[g->nc++] = v;
        }
}

/* The figure's value at (ix, iy) for solver sv: the mean over repeats (a text metric: its
 * first category's middle, c + 0.5); false with *flag 1 (no complete run) or 2 (not
 * finite) when there is none. Varied axes that are neither x nor y are held at their
 * first value. */
static bool cell(const merge *m, const plot *g, int sv, int ix, int iy, double *value, int *flag) {
    double sum = 0;
    int count = 0, nonfinite = 0;
    const char *cat = NULL;
    for (int r = 0; r < m->nr; r++) {
        const run *u = &m->runs[r];
        bool held = !strcmp(u->solver, m->s.solvers[sv]) && u->complete;
        for (int k = 0; held && k < m->s.naxes; k++)
            held = k == g->dx.axis || k == g->dy.axis || !strcmp(u->param[k], m->runs[0].param[k]);
        for (int w = 0; held && w < u->nrows; w++) {
            if (dim_index(&g->dx, u, w) != ix || dim_index(&g->dy, u, w) != iy) continue;
            const char *v = u->rows[w][g->mi];
            double d = strtod(v, NULL);
            if (g->text_metric)
                cat = cat ? cat : v, count++;
            else if (isfinite(d))
                sum += d, count++;
            else
                nonfinite++;
        }
    }
    if (count == 0) {
        *flag = nonfinite ? 2 : 1;
        return false;
    }
    if (g->text_metric) {
        int c = 0;
        while (c < g->nc && strcmp(g->cats[c], cat)) c++;
        *value = c + 0.5;
    } else {
        *value = sum / count;
    }
    return true;
}

/* Writes DIR/figure.dat: a block per solver, a line per cell (heat map) or point (lines):
 *   ix iy x value flag   (flag 0: value; 1: no complete run; 2: not finite).
 * Returns the number of flagged cells and the range of the values, or -1 after an error. */
static int write_data(const merge *m, const plot *g, const char *data, double *vlo, double *vhi) {
    char tmp[PATH_MAX + 48];
    FILE *f = weft_sweep_open(data, tmp, sizeof tmp);
    if (!f) return -1;
    fprintf(f,
            "# figure data of %s/merged.tsv: ix iy x value flag (flag 1: no complete run, "
            "2: not finite)\n",
            m->dir);
    int nx = g->dx.n ? g->dx.n : 1, ny = g->dy.n ? g->dy.n : 1, flagged = 0;
    *vlo = INFINITY, *vhi = 0;
    for (int sv = 0; sv < m->s.nsolvers; sv++) {
        if (sv) fprintf(f, "\n\n");
        for (int iy = 0; iy < ny; iy++)
            for (int ix = 0; ix < nx; ix++) {
                double x = g->dx.numeric && g->dx.n ? strtod(g->dx.value[ix], NULL) : ix, value;
                int flag;
                if (!cell(m, g, sv, ix, iy, &value, &flag)) {
                    fprintf(f, "%d %d %.17g - %d\n", ix, iy, x, flag);
                    flagged++;
                    continue;
                }
                if (!g->text_metric) *vlo = fmin(*vlo, value), *vhi = fmax(*vhi, value);
                fprintf(f, "%d %d %.17g %.17g 0\n", ix, iy, x, value);
            }
    }
    return weft_sweep_close(f, tmp, data, true) != 0 ? -1 : flagged;
}

/* The figure's title: the sweep, the metric, the varied axes held, and how many runs are
 * not complete. */
static const char *title_of(const merge *m, const plot *g, int incomplete) {
    sweep_text t = {0};
    sweep_add(&t, "%s: %s", m->s.name, m->metrics[g->mi]);
    for (int k = 0; k < m->s.naxes; k++)
        if (k != g->dx.axis && k != g->dy.axis && m->s.axes[k].n > 1)
            sweep_add(&t, ", %s = %s", m->s.axes[k].key, m->runs[0].param[k]);
    if (incomplete) sweep_add(&t, " (%d of %d runs NOT complete)", incomplete, m->nr);
    return t.s;
}

/* Writes the figure's data DIR/figure.dat and draws DIR/NAME.png with sweep.gp; index
 * axes carry the spec's text as tic labels. Returns 0, or -1 after an error. */
static int figure(const merge *m) {
    if (m->nmetrics == 0) return 0;
    const sweep_spec *s = &m->s;
    plot g = {0};
    if (!choose(m, &g)) return -1;
    categories(m, &g);
    const char *data = sweep_printf("%s/figure.dat", m->dir);
    double vlo, vhi;
    int flagged = write_data(m, &g, data, &vlo, &vhi);
    if (flagged < 0) return -1;
    bool logv = !g.text_metric && vlo > 0 && vhi > 5 * vlo;
    const char **cw = NULL;
    int ncw = s->fig_colours ? sweep_split(s->fig_colours, ", ", &cw) : 0;
    const char *colours = join(cw, ncw);
    const char *xname = g.dx.axis >= 0     ? s->axes[g.dx.axis].key
                        : g.dx.metric >= 0 ? m->metrics[g.dx.metric]
                                           : "solver";
    const char *yname = g.dy.axis >= 0     ? s->axes[g.dy.axis].key
                        : g.dy.metric >= 0 ? m->metrics[g.dy.metric]
                                           : "";
    const char *out = sweep_printf("%s/%s.png", m->dir, s->name);
    const char *script = sweep_printf("%s/sweep.gp", weft_plots_dir());
    const char *defs = sweep_printf(
        "data='%s'; out='%s'; mode='%s'; names='%s'; title='%s'; xlabel='%s'; ylabel='%s'; "
        "vlabel='%s'; xlabels='%s'; ylabels='%s'; cats='%s'; xnum=%d; logx=%d; logy=%d; "
        "logv=%d; flagged=%d%s%s%s",
        data, out, g.lines ? "lines" : "heatmap", join(s->solvers, s->nsolvers),
        title_of(m, &g, m->nr - m->counts[0]), xname, yname, m->metrics[g.mi],
        join(g.dx.label, g.dx.n), join(g.dy.label, g.dy.n), join(g.cats, g.nc),
        g.dx.numeric && g.dx.n > 0, wide(&g.dx), wide(&g.dy), logv, flagged,
        colours[0] ? "; colours='" : "", colours, colours[0] ? "'" : "");
    if (weft_gnuplot(defs, script) != 0) {
        fprintf(stderr, "error: gnuplot failed on %s\n", script);
        return -1;
    }
    fprintf(stderr, "  figure:   %s\n", out);
    return 0;
}

/* ---- the verb ---- */

int sweep_merge(int argc, char **argv) {
    bool no_plot = weft_sweep_flag(&argc, argv, "no-plot");
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "error: sweep merge: expected one sweep directory (see --help)\n");
        return 2;
    }
    merge m = {.dir = argv[1]};
    const char *path = sweep_printf("%s/spec.ini", m.dir);
    if (access(path, F_OK) != 0) {
        fprintf(stderr,
                "error: %s: no spec.ini: not a sweep directory (run './weft sweep plan' "
                "first)\n",
                m.dir);
        return 2;
    }
    if (!sweep_spec_read(path, &m.s, false)) return 2;
    if (read_manifest(&m, sweep_printf("%s/manifest.tsv", m.dir)) != 0 || read_runs(&m) != 0)
        return 2;
    const char *mpath = sweep_printf("%s/merged.tsv", m.dir);
    if (write_table(&m, mpath) != 0) return 1;
    const int *c = m.counts;
    fprintf(stderr,
            "sweep %s: %d runs: %d complete, %d failed, %d incomplete, %d missing\n"
            "  merged:   %s\n",
            m.s.name, m.nr, c[0], c[1], c[2], c[3], mpath);
    if (!no_plot && c[0] > 0 && figure(&m) != 0) return 1;
    if (c[0] != m.nr) {
        fprintf(stderr,
                "warning: %d of %d runs are not complete (rerun './weft sweep run' to "
                "resume)\n",
                m.nr - c[0], m.nr);
        return 3;
    }
    return 0;
}
