/* ccd_benchmark.c — runs the vertex–face or edge–edge CCD (lib/collision/collision.ccd.c, after Bridson,
 * Fedkiw & Anderson 2002 §4) on a file of queries with exact ground truth, in the format
 * of the benchmark of Wang et al. 2021 (../shared/ccd/README.md), and prints one line:
 *
 *     queries=N colliding=P false_negatives=FN false_positives=FP ns_per_query=T
 *
 * P counts the ground-truth positives; FN are positives the CCD missed, FP negatives it
 * reported. T is the mean wall time per query of a pass over the whole file, parsing
 * excluded; passes are repeated for at least 0.2 s (3 to 1000 passes) and the median
 * pass is reported, so that one preemption on a shared machine does not decide it.
 * Each query's tolerance is η = eta_rel × the diagonal of the bounding box of its eight
 * points (m). Exit status: 0, 1 when FN > 0, 2 for usage or input errors. */
#include "weft.h"
#include "weft_geometry.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Default relative tolerance: η = 1e-12 × the query's bounding-box diagonal, about
 * 10^4 units of rounding. Smaller values down to 0 give the same false positives on the
 * shared data sets (92 and 121: near-misses closer than rounding can tell from contact);
 * larger ones report more near-misses (1e-9: 140 and 220; 1e-6: 158 and 235). */
#define DEFAULT_ETA_REL 1e-12

/* Timing: repeat passes over the file for at least MIN_SECONDS, MIN_PASSES to MAX_PASSES. */
#define MIN_SECONDS 0.2
enum { MIN_PASSES = 3, MAX_PASSES = 1000 };

static const char usage[] =
    "usage: ccd_benchmark [--eta-rel R] vertex_face|edge_edge FILE\n"
    "Runs the CCD on every query of FILE (format of shared/ccd/README.md: '#' comment\n"
    "lines, then 'query_id ground_truth' and 24 coordinates per line) and prints\n"
    "  queries=N colliding=P false_negatives=FN false_positives=FP ns_per_query=T\n"
    "(P: ground-truth positives; T: mean wall ns per query of a pass over the file, parsing\n"
    "excluded; the median of passes repeated for >= 0.2 s).\n"
    "  --eta-rel R  contact tolerance eta = R x the diagonal of the bounding box of the\n"
    "               query's eight points (default 1e-12); R >= 0. A query counts as\n"
    "               colliding when its primitives come within eta of each other, up to\n"
    "               rounding error (so R = 0 reports touching as far as doubles can tell).\n"
    "Exit status: 0 when every colliding query is found, 1 when there are false\n"
    "negatives (listed on stderr), 2 for usage or input errors.\n";

enum { NFIELDS = 26 }; /* query_id, ground_truth, 8 points × 3 coordinates */

/* One parsed query. */
typedef struct query {
    long id;
    int truth;
    int line;
    double x[24]; /* the four points at t = 0, then at t = 1, m */
} query;

/* Name of field f (0-based) of a line, e.g. "f1_t0.y", for error messages. */
static void field_name(bool edge_edge, int f, char *buf, size_t n) {
    static const char *vf[8] = {"v_t0", "f0_t0", "f1_t0", "f2_t0",
                                "v_t1", "f0_t1", "f1_t1", "f2_t1"};
    static const char *ee[8] = {"a0_t0", "a1_t0", "b0_t0", "b1_t0",
                                "a0_t1", "a1_t1", "b0_t1", "b1_t1"};
    if (f == 0)
        snprintf(buf, n, "query_id");
    else if (f == 1)
        snprintf(buf, n, "ground_truth");
    else
        snprintf(buf, n, "%s.%c", (edge_edge ? ee : vf)[(f - 2) / 3], "xyz"[(f - 2) % 3]);
}

/* Parses one data line into q; on error prints "error: path:line: ..." and returns -1. */
static int parse_line(char *text, const char *path, int line, bool edge_edge, query *q) {
    char *tok[NFIELDS + 1];
    int n = 0;
    for (char *s = strtok(text, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
        if (n == NFIELDS) {
            n++;
            break;
        }
        tok[n++] = s;
    }
    if (n != NFIELDS) {
        fprintf(stderr, "error: %s:%d: expected %d fields (query_id ground_truth and 24 "
                "coordinates), found %s%d\n", path, line, NFIELDS, n > NFIELDS ? "more than " : "",
                n > NFIELDS ? NFIELDS : n);
        return -1;
    }
    char name[32], *end;
    errno = 0;
    q->id = strtol(tok[0], &end, 10);
    if (*end || end == tok[0] || errno) {
        fprintf(stderr, "error: %s:%d: field query_id: '%s' is not an integer\n", path, line,
                tok[0]);
        return -1;
    }
    if (strcmp(tok[1], "0") != 0 && strcmp(tok[1], "1") != 0) {
        fprintf(stderr, "error: %s:%d: field ground_truth: '%s' is not 0 or 1\n", path, line,
                tok[1]);
        return -1;
    }
    q->truth = tok[1][0] - '0';
    for (int f = 2; f < NFIELDS; f++) {
        errno = 0;
        double v = strtod(tok[f], &end);
        if (*end || end == tok[f] || !isfinite(v)) {
            field_name(edge_edge, f, name, sizeof name);
            fprintf(stderr, "error: %s:%d: field %s: '%s' is not a finite number\n", path,
                    line, name, tok[f]);
            return -1;
        }
        q->x[f - 2] = v;
    }
    q->line = line;
    return 0;
}

/* Reads every query of path into *out (malloc'd); returns the count or -1 after an
 * error message. */
static int read_queries(const char *path, bool edge_edge, query **out) {
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "error: %s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    query *qs = NULL;
    int n = 0, cap = 0, line = 0, rc = 0;
    char *text = NULL;
    size_t size = 0;
    while (getline(&text, &size, fp) != -1) {
        line++;
        const char *s = text + strspn(text, " \t\r\n");
        if (*s == '#' || *s == '\0') continue; /* comment or blank */
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            query *grown = realloc(qs, (size_t)cap * sizeof *qs);
            if (!grown) {
                fprintf(stderr, "error: %s:%d: out of memory\n", path, line);
                rc = -1;
                break;
            }
            qs = grown;
        }
        if (parse_line(text, path, line, edge_edge, &qs[n]) != 0) {
            rc = -1;
            break;
        }
        n++;
    }
    if (rc == 0 && ferror(fp)) {
        fprintf(stderr, "error: %s:%d: read error: %s\n", path, line + 1, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && n == 0) {
        fprintf(stderr, "error: %s: no queries (only comments or blank lines)\n", path);
        rc = -1;
    }
    free(text);
    fclose(fp);
    if (rc != 0) {
        free(qs);
        return -1;
    }
    *out = qs;
    return n;
}

/* Diagonal of the bounding box of the eight points of a query, m. */
static double box_diagonal(const double *x) {
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double lo = x[k], hi = x[k];
        for (int i = 1; i < 8; i++) lo = fmin(lo, x[3 * i + k]), hi = fmax(hi, x[3 * i + k]);
        d2 += (hi - lo) * (hi - lo);
    }
    return sqrt(d2);
}

/* qsort order of doubles, ascending. */
static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    double eta_rel = DEFAULT_ETA_REL;
    const char *pos[2];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--eta-rel")) {
            char *end;
            if (i + 1 == argc || (eta_rel = strtod(argv[i + 1], &end), *end) ||
                end == argv[i + 1] || !(eta_rel >= 0.0) || !isfinite(eta_rel)) {
                fprintf(stderr, "error: --eta-rel: '%s' is not a number >= 0 (see --help)\n",
                        i + 1 < argc ? argv[i + 1] : "");
                return 2;
            }
            i++;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "error: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        } else if (npos == 2) {
            fprintf(stderr, "error: unexpected argument '%s' (see --help)\n", argv[i]);
            return 2;
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (npos != 2) {
        fprintf(stderr, "error: expected vertex_face|edge_edge and FILE (see --help)\n");
        return 2;
    }
    bool edge_edge;
    if (!strcmp(pos[0], "vertex_face")) {
        edge_edge = false;
    } else if (!strcmp(pos[0], "edge_edge")) {
        edge_edge = true;
    } else {
        fprintf(stderr, "error: query kind '%s' is not vertex_face or edge_edge\n", pos[0]);
        return 2;
    }
    const char *path = pos[1];

    query *qs;
    int n = read_queries(path, edge_edge, &qs);
    if (n < 0) return 2;
    bool *found = malloc((size_t)n * sizeof *found);
    double *eta = malloc((size_t)n * sizeof *eta);
    if (!found || !eta) {
        fprintf(stderr, "error: out of memory for %d queries\n", n);
        return 2;
    }
    for (int i = 0; i < n; i++) eta[i] = eta_rel * box_diagonal(qs[i].x);

    weft_ccd_params prm = weft_ccd_params_default();
    double pass_s[MAX_PASSES], start = weft_now();
    int passes = 0;
    while (passes < MAX_PASSES &&
           (passes < MIN_PASSES || weft_now() - start < MIN_SECONDS)) {
        double t0 = weft_now();
        for (int i = 0; i < n; i++) {
            prm.eta = eta[i];
            const double *x0 = qs[i].x, *x1 = qs[i].x + 12;
            found[i] = edge_edge ? weft_ccd_edge_edge(x0, x1, &prm, NULL)
                                 : weft_ccd_vertex_face(x0, x1, &prm, NULL);
        }
        pass_s[passes++] = weft_now() - t0;
    }
    qsort(pass_s, (size_t)passes, sizeof *pass_s, compare_doubles);
    double wall = pass_s[passes / 2];

    int colliding = 0, fn = 0, fp = 0;
    for (int i = 0; i < n; i++) {
        colliding += qs[i].truth;
        if (qs[i].truth && !found[i]) {
            fn++;
            fprintf(stderr, "false negative: %s:%d: query_id %ld\n", path, qs[i].line, qs[i].id);
        }
        if (!qs[i].truth && found[i]) fp++;
    }
    printf("queries=%d colliding=%d false_negatives=%d false_positives=%d ns_per_query=%.1f\n",
           n, colliding, fn, fp, 1e9 * wall / n);
    free(found);
    free(eta);
    free(qs);
    return fn > 0 ? 1 : 0;
}
