/* bench_broadphase.c — cost of the collision broad phases (lib/collision/weft_broadphase.h): ms per
 * query (refit or box update, plus all vertex–triangle and edge–edge candidate pairs,
 * sorted) of the BVH, the spatial hash (Teschner et al. 2003) and, at 64² only, brute
 * force, on 1 m × 1 m cloth grids of 64² and 128² vertices that lie on top of themselves:
 *
 *   folded  an accordion of 8 layers 5 mm apart, with ±1 mm random vertical noise;
 *   rolled  rolled up around the x axis on an Archimedean spiral, 6 mm between turns
 *           (rows rotated progressively about one axis), with ±1 mm noise;
 *
 * for proximity (positions x0, thickness h = 4 mm) and swept motion (x0 -> x1, each
 * coordinate moved by ±3 mm, about 0.2 m/s at 60 Hz). The BVH is built once either on
 * the flat rest grid (as a simulation would, then refitted) or on the shape itself; its
 * build time (CPU) is reported apart. The hash's cells are the mean rest edge length. Every
 * method must return the same pairs (checked: a mismatch fails the run). Each figure
 * is the best of several repeats after one warm-up query, in CPU time of the thread
 * (what the query costs on a machine shared with other jobs) and in wall time.
 * Writes <out>/bench_broadphase.tsv (renamed into place when complete). */
#include "bench.h"

#include "weft_broadphase.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: bench_broadphase [--out DIR] [--steps N]\n"
    "Times the BVH (built at rest or on the shape), the spatial hash and (64^2 only) brute\n"
    "force on folded and rolled cloth grids of 64^2 and 128^2 vertices, for proximity and\n"
    "swept motion; writes DIR/bench_broadphase.tsv (default results/).\n"
    "  --steps N   timed queries per method, best kept (default 10; brute force 2)\n";

#define THICKNESS 0.004 /* h, m */
#define NOISE 0.001     /* vertical noise of the shapes, m */
#define MOTION 0.003    /* per-coordinate motion of a swept step, m */
#define PI 3.14159265358979323846

/* Knuth's MMIX LCG: uniform in [lo, hi). */
static double uniform(uint64_t *s, double lo, double hi) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/* Accordion: u in [0, 1] runs over 8 layers of width 1/8 m, alternating in direction,
 * 5 mm apart in z; v stays y. */
static void shape_folded(const weft_mesh *m, uint64_t *seed, double *x) {
    const int layers = 8;
    const double gap = 0.005;
    for (int i = 0; i < m->nv; i++) {
        double u = m->x[3 * i], v = m->x[3 * i + 1];
        double s = u * layers;
        int layer = (int)s < layers ? (int)s : layers - 1;
        double local = s - layer;
        if (layer % 2) local = 1.0 - local;
        x[3 * i] = local / layers;
        x[3 * i + 1] = v;
        x[3 * i + 2] = layer * gap + uniform(seed, -NOISE, NOISE);
    }
}

/* Roll about the x axis: the row at arc length s = v lies at angle φ on the spiral
 * r = r0 + b φ (b = gap / 2π), with s ≈ r0 φ + b φ² / 2 solved for φ. */
static void shape_rolled(const weft_mesh *m, uint64_t *seed, double *x) {
    const double r0 = 0.03, gap = 0.006, b = gap / (2 * PI);
    for (int i = 0; i < m->nv; i++) {
        double u = m->x[3 * i], s = m->x[3 * i + 1];
        double phi = (-r0 + sqrt(r0 * r0 + 2 * b * s)) / b;
        double r = r0 + b * phi + uniform(seed, -NOISE, NOISE);
        x[3 * i] = u;
        x[3 * i + 1] = r * cos(phi);
        x[3 * i + 2] = r * sin(phi);
    }
}

typedef struct shape {
    const char *name;
    void (*make)(const weft_mesh *m, uint64_t *seed, double *x);
} shape;

/* One query of a broad phase: refit or update at (x0, x1, h), then all pairs. */
typedef int (*query_fn)(void *obj, const double *x0, const double *x1, double h,
                        weft_collision_pairs *out, weft_error *err);

static int query_bvh(void *obj, const double *x0, const double *x1, double h,
                     weft_collision_pairs *out, weft_error *err) {
    int rc = weft_bvh_refit(obj, x0, x1, h, err);
    return rc != WEFT_OK ? rc : weft_bvh_pairs(obj, obj, out, err);
}

static int query_hash(void *obj, const double *x0, const double *x1, double h,
                      weft_collision_pairs *out, weft_error *err) {
    int rc = weft_spatial_hash_update(obj, x0, x1, h, err);
    return rc != WEFT_OK ? rc : weft_spatial_hash_pairs(obj, obj, out, err);
}

static int query_brute(void *obj, const double *x0, const double *x1, double h,
                       weft_collision_pairs *out, weft_error *err) {
    int rc = weft_bvh_refit(obj, x0, x1, h, err);
    return rc != WEFT_OK ? rc : weft_bvh_pairs_brute_force(obj, obj, out, err);
}

/* One query to time. */
typedef struct timed_query {
    query_fn f;
    void *obj;
    const double *x0, *x1;
    weft_collision_pairs *out;
} timed_query;

/* One query (a weft_bench_fn): figures its thread CPU time and wall time, ms. */
static int time_query(void *user, double *out) {
    timed_query *q = user;
    weft_error err;
    double c0 = weft_bench_thread_cpu(), w0 = weft_now();
    int rc = q->f(q->obj, q->x0, q->x1, THICKNESS, q->out, &err);
    out[0] = 1e3 * (weft_bench_thread_cpu() - c0), out[1] = 1e3 * (weft_now() - w0);
    if (rc != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return WEFT_BENCH_FAIL;
    }
    return WEFT_BENCH_MORE;
}

/* True when two pair lists are equal pair by pair. */
static bool same_pairs(const weft_pairs *a, const weft_pairs *b) {
    return a->n == b->n && (a->n == 0 || !memcmp(a->pair, b->pair, (size_t)a->n * sizeof *a->pair));
}

/* The methods, in the order they run; the first one's pairs are the reference. */
enum { BVH_REST, BVH_SHAPE, HASH, BRUTE, NMETHODS };
static const char *const method_name[NMETHODS] = {"bvh_rest", "bvh_shape", "hash", "brute"};

static const weft_bench_column columns[] = {
    {"shape", "%s", "shape", "%-7s"},
    {"res", "%ld", "res", " %5ld"},
    {"vertices", "%ld", NULL, NULL},
    {"triangles", "%ld", NULL, NULL},
    {"edges", "%ld", NULL, NULL},
    {"mode", "%s", "mode", " %-9s"},
    {"h_m", "%g", NULL, NULL},
    {"method", "%s", "method", " %-10s"},
    {"cpu_ms_per_query", "%.4f", "cpu ms", " %9.2f"},
    {"wall_ms_per_query", "%.4f", "wall ms", " %9.2f"},
    {"build_ms", "%.4f", "build ms", " %9.2f"},
    {"vt_pairs", "%ld", "vt pairs", " %9ld"},
    {"ee_pairs", "%ld", "ee pairs", " %9ld"},
    {"agree", "%s", NULL, NULL},
    {NULL, NULL, "agree", "  %s"},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

/* Runs every method on one shape, size and mode; returns the number of disagreements,
 * or -1 on error. */
static int bench_case(weft_bench_table *t, const shape *sh, int res, bool swept, int repeats) {
    weft_grid_desc d = {1.0, 1.0, res, res, WEFT_DIAG_ALTERNATING, WEFT_PLANE_XY, {0, 0, 0}};
    weft_mesh m;
    weft_error err;
    if (weft_mesh_grid(&m, &d, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1;
    }
    uint64_t seed = 1;
    double *x0 = malloc(3 * (size_t)m.nv * sizeof *x0);
    double *x1 = swept ? malloc(3 * (size_t)m.nv * sizeof *x1) : NULL;
    sh->make(&m, &seed, x0);
    if (swept)
        for (int i = 0; i < 3 * m.nv; i++) x1[i] = x0[i] + uniform(&seed, -MOTION, MOTION);

    weft_collision_pairs ref = {0}, got = {0};
    int bad = 0;

    for (int method = 0; method < NMETHODS && bad >= 0; method++) {
        if (method == BRUTE && res > 64) break; /* O(n²): 64² only */
        weft_bvh *tree = NULL;
        weft_spatial_hash *hash = NULL;
        double t0 = weft_bench_thread_cpu();
        if (method == HASH)
            hash = weft_spatial_hash_create(&m, NULL, 0, 0, &err);
        else
            tree = weft_bvh_create(&m, method == BVH_SHAPE ? x0 : NULL, &err);
        if (!tree && !hash) {
            fprintf(stderr, "error: %s\n", err.msg);
            bad = -1;
            break;
        }
        double build_ms = method != BRUTE ? 1e3 * (weft_bench_thread_cpu() - t0) : NAN;
        weft_collision_pairs *out = method == BVH_REST ? &ref : &got;
        timed_query q = {method == HASH    ? query_hash
                         : method == BRUTE ? query_brute
                                           : query_bvh,
                         method == HASH ? (void *)hash : (void *)tree, x0, x1, out};
        int reps = method == BRUTE && repeats > 2 ? 2 : repeats;
        weft_bench_stats st;
        weft_bench_plan plan = weft_bench_repeats(1, reps);
        int rc = weft_bench_measure(&plan, 2, time_query, &q, &st);
        weft_bvh_free(&tree);
        weft_spatial_hash_free(&hash);
        if (rc != 0) {
            bad = -1;
            break;
        }
        bool agree =
            same_pairs(&out->vt, &ref.vt) && same_pairs(&out->ee, &ref.ee) && out->tv.n == 0;
        if (!agree) bad++;
        weft_bench_value row[NCOLUMNS] = {
            weft_bench_text(sh->name),     weft_bench_int(res),
            weft_bench_int(m.nv),          weft_bench_int(m.nt),
            weft_bench_int(m.ne),          weft_bench_text(swept ? "swept" : "proximity"),
            weft_bench_num(THICKNESS),     weft_bench_text(method_name[method]),
            weft_bench_num(st.min[0]),     weft_bench_num(st.min[1]),
            weft_bench_num(build_ms),      weft_bench_int(out->vt.n),
            weft_bench_int(out->ee.n),     weft_bench_text(agree ? "yes" : "no"),
            weft_bench_text(agree ? "yes" : "NO")};
        weft_bench_row(t, row);
    }
    weft_collision_pairs_free(&ref);
    weft_collision_pairs_free(&got);
    free(x0), free(x1);
    weft_mesh_free(&m);
    return bad;
}

int main(int argc, char **argv) {
    weft_cli cli;
    weft_cli_parse(argc, argv, &cli, usage);
    int repeats = cli.steps > 0 ? cli.steps : 10;
    weft_bench_table t;
    if (weft_bench_open(&t, cli.out, "bench_broadphase.tsv", columns, NCOLUMNS) != 0) return 1;
    weft_bench_comment(&t,
                       "bench_broadphase: best of %d queries (brute force: %d) after 1 warm-up; "
                       "ms per query = refit/update + sorted pairs (thread CPU and wall); "
                       "build_ms (thread CPU) once per structure",
                       repeats, repeats < 2 ? repeats : 2);
    weft_bench_header(&t);
    static const shape shapes[] = {{"folded", shape_folded}, {"rolled", shape_rolled}};
    static const int sizes[] = {64, 128};
    int bad = 0;
    for (int si = 0; si < 2 && bad >= 0; si++)
        for (int sh = 0; sh < 2 && bad >= 0; sh++)
            for (int sw = 0; sw < 2 && bad >= 0; sw++) {
                int b = bench_case(&t, &shapes[sh], sizes[si], sw, repeats);
                bad = b < 0 ? -1 : bad + b;
            }
    return weft_bench_close(&t, bad < 0 ? "a query failed" : bad > 0 ? "methods disagree" : NULL);
}
