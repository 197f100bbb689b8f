/* ccd_benchmark.c — runs the vertex–face or edge–edge CCD (lib/collision/collision.ccd.c, after Bridson,
 * Fedkiw & Anderson 2002 §4) on a file of queries with exact ground truth, in the format
 * of the benchmark of Wang et al. 2021 (tests/data/ccd/README.md), and prints one line:
 *
 *     queries=N colliding=P false_negatives=FN false_positives=FP ns_per_query=T
 *
 * P counts the ground-truth positives; FN are positives the CCD missed, FP negatives it
 * reported. T is the mean wall time per query of a pass over the whole file, parsing
 * excluded; passes are repeated for at least 0.2 s (3 to 1000 passes) and the median
 * pass is reported, so that one preemption on a shared machine does not decide it.
 * Each query's tolerance is η = eta_rel × the diagonal of the bounding box of its eight
 * points (m). Without FILE it reads the query set of that kind kept in the repository
 * (tests/data/ccd, absolute path from CMake). Exit status: 0, 1 when FN > 0, 2 for usage
 * or input errors. */
#include "bench.h"
#include "ccd_queries.h"

#include "weft_geometry.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Default relative tolerance: η = 1e-12 × the query's bounding-box diagonal, about
 * 10^4 units of rounding. Smaller values down to 0 give the same false positives on the
 * benchmark data sets (92 and 121: near-misses closer than rounding can tell from contact);
 * larger ones report more near-misses (1e-9: 140 and 220; 1e-6: 158 and 235). */
#define DEFAULT_ETA_REL 1e-12

/* Timing: passes over the file, 3 to 1000 of them, stopping once they took 0.2 s. */
static const weft_bench_plan timing = {.warmup = 0, .min_repeats = 3, .max_repeats = 1000,
                                       .stop_after_s = 0.2};

static const char usage[] =
    "usage: ccd_benchmark [--eta-rel R] vertex_face|edge_edge [FILE]\n"
    "Runs the CCD on every query of FILE (format of tests/data/ccd/README.md: '#' comment\n"
    "lines, then 'query_id ground_truth' and 24 coordinates per line) and prints\n"
    "  queries=N colliding=P false_negatives=FN false_positives=FP ns_per_query=T\n"
    "(P: ground-truth positives; T: mean wall ns per query of a pass over the file, parsing\n"
    "excluded; the median of passes repeated for >= 0.2 s).\n"
    "  --eta-rel R  contact tolerance eta = R x the diagonal of the bounding box of the\n"
    "               query's eight points (default 1e-12); R >= 0. A query counts as\n"
    "               colliding when its primitives come within eta of each other, up to\n"
    "               rounding error (so R = 0 reports touching as far as doubles can tell).\n"
    "FILE defaults to the query set of that kind of Wang et al. 2021 in the repository:\n"
    "  " WEFT_CCD_DATA_DIR "/KIND.txt\n"
    "Exit status: 0 when every colliding query is found, 1 when there are false\n"
    "negatives (listed on stderr), 2 for usage or input errors.\n";

/* The queries and what the CCD found. */
typedef struct pass {
    const weft_ccd_query *qs;
    const double *eta;
    int n;
    bool edge_edge;
    bool *found;
} pass;

/* One pass over every query (a weft_bench_fn): figure its wall time, s. */
static int run_pass(void *user, double *out) {
    pass *p = user;
    weft_ccd_params prm = weft_ccd_params_default();
    double t0 = weft_now();
    for (int i = 0; i < p->n; i++) {
        prm.eta = p->eta[i];
        const double *x0 = p->qs[i].x, *x1 = p->qs[i].x + 12;
        p->found[i] = p->edge_edge ? weft_ccd_edge_edge(x0, x1, &prm, NULL)
                                   : weft_ccd_vertex_face(x0, x1, &prm, NULL);
    }
    out[0] = weft_now() - t0;
    return WEFT_BENCH_MORE;
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
    if (npos < 1) {
        fprintf(stderr, "error: expected vertex_face|edge_edge [FILE] (see --help)\n");
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
    char default_path[4096];
    snprintf(default_path, sizeof default_path, "%s/%s.txt", WEFT_CCD_DATA_DIR, pos[0]);
    const char *path = npos == 2 ? pos[1] : default_path;

    weft_ccd_query *qs;
    weft_error err = {{0}};
    int n = weft_ccd_read_queries(path, edge_edge, &qs, &err);
    if (n < 0) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 2;
    }
    bool *found = malloc((size_t)n * sizeof *found);
    double *eta = malloc((size_t)n * sizeof *eta);
    if (!found || !eta) {
        fprintf(stderr, "error: out of memory for %d queries\n", n);
        return 2;
    }
    for (int i = 0; i < n; i++) eta[i] = eta_rel * weft_ccd_query_diagonal(qs[i].x);

    pass p = {qs, eta, n, edge_edge, found};
    weft_bench_stats st;
    if (weft_bench_measure(&timing, 1, run_pass, &p, &st) != 0) return 2;
    double wall = st.median[0];

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
