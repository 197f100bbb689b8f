/* fuzz_ccd.c — libFuzzer target: the input is a CCD query file (tests/data/ccd/README.md)
 * for weft_ccd_read_queries (experiments/ccd_queries.c); every query it reads then runs
 * through both CCD tests (lib/collision/ccd.c) with ccd_benchmark's default tolerance, so
 * extreme coordinates reach the cubic and the interval search. */
#include "ccd_queries.h"
#include "fuzz_util.h"
#include "weft_geometry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_write("queries.txt", data, size);
    weft_ccd_query *q;
    weft_error err = {{0}};
    int n = weft_ccd_read_queries(path, false, &q, &err);
    fuzz_note(n < 0 ? n : 0, err.msg);
    if (n < 0) return 0;
    weft_ccd_params prm = weft_ccd_params_default();
    for (int i = 0; i < n; i++) {
        prm.eta = 1e-12 * weft_ccd_query_diagonal(q[i].x);
        weft_ccd_hit hit;
        if (weft_ccd_vertex_face(q[i].x, q[i].x + 12, &prm, &hit) && !(hit.t >= 0 && hit.t <= 1)) {
            fprintf(stderr, "fuzz_ccd: vertex-face hit at t = %g, outside [0, 1]\n", hit.t);
            abort();
        }
        if (weft_ccd_edge_edge(q[i].x, q[i].x + 12, &prm, &hit) && !(hit.t >= 0 && hit.t <= 1)) {
            fprintf(stderr, "fuzz_ccd: edge-edge hit at t = %g, outside [0, 1]\n", hit.t);
            abort();
        }
    }
    free(q);
    return 0;
}
