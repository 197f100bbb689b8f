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
#include "cli.h"

#include "weft_broadphase.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* CPU time of the calling thread, s. */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best CPU and wall times (ms) of `repeats` queries after one warm-up; false on error. */
static bool time_query(query_fn f, void *obj, const double *x0, const double *x1, int repeats,
                       weft_collision_pairs *out, double *cpu_ms, double *wall_ms) {
    weft_error err;
    if (f(obj, x0, x1, THICKNESS, out, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return false;
    }
    *cpu_ms = *wall_ms = INFINITY;
    for (int r = 0; r < repeats; r++) {
        double c0 = cpu_now(), w0 = weft_now();
        f(obj, x0, x1, THICKNESS, out, &err);
        double c = 1e3 * (cpu_now() - c0), w = 1e3 * (weft_now() - w0);
        if (c < *cpu_ms) *cpu_ms = c;
        if (w < *wall_ms) *wall_ms = w;
    }
    return true;
}

/* True when two pair lists are equal pair by pair. */
static bool same_pairs(const weft_pairs *a, const weft_pairs *b) {
    return a->n == b->n && (a->n == 0 || !memcmp(a->pair, b->pair, (size_t)a->n * sizeof *a->pair));
}

/* The methods, in the order they run; the first one's pairs are the reference. */
enum { BVH_REST, BVH_SHAPE, HASH, BRUTE, NMETHODS };
static const char *const method_name[NMETHODS] = {"bvh_rest", "bvh_shape", "hash", "brute"};

typedef struct row {
    const char *shape, *mode, *method;
    int res, nv, nt, ne;
    double cpu_ms, wall_ms, build_ms;
    int vt, ee;
    bool agree;
} row;

static void write_row(FILE *f, const row *r) {
    fprintf(f, "%s\t%d\t%d\t%d\t%d\t%s\t%g\t%s\t%.4f\t%.4f\t%.4f\t%d\t%d\t%s\n", r->shape, r->res,
            r->nv, r->nt, r->ne, r->mode, THICKNESS, r->method, r->cpu_ms, r->wall_ms, r->build_ms,
            r->vt, r->ee, r->agree ? "yes" : "no");
    printf("%-7s %5d %-9s %-10s %9.2f %9.2f %9.2f %9d %9d  %s\n", r->shape, r->res, r->mode,
           r->method, r->cpu_ms, r->wall_ms, r->build_ms, r->vt, r->ee, r->agree ? "yes" : "NO");
    fflush(stdout);
}

/* Runs every method on one shape, size and mode; returns the number of disagreements,
 * or -1 on error. */
static int bench_case(FILE *f, const shape *sh, int res, bool swept, int repeats) {
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

    row base = {
        sh->name, swept ? "swept" : "proximity", NULL, res, m.nv, m.nt, m.ne, NAN, NAN, NAN, 0, 0,
        true};
    weft_collision_pairs ref = {0}, got = {0};
    int bad = 0;

    for (int method = 0; method < NMETHODS && bad >= 0; method++) {
        if (method == BRUTE && res > 64) break; /* O(n²): 64² only */
        row r = base;
        r.method = method_name[method];
        weft_bvh *tree = NULL;
        weft_spatial_hash *hash = NULL;
        double t0 = cpu_now();
        if (method == HASH)
            hash = weft_spatial_hash_create(&m, NULL, 0, 0, &err);
        else
            tree = weft_bvh_create(&m, method == BVH_SHAPE ? x0 : NULL, &err);
        if (!tree && !hash) {
            fprintf(stderr, "error: %s\n", err.msg);
            bad = -1;
            break;
        }
        if (method != BRUTE) r.build_ms = 1e3 * (cpu_now() - t0);
        query_fn fn = method == HASH ? query_hash : method == BRUTE ? query_brute : query_bvh;
        void *obj = method == HASH ? (void *)hash : (void *)tree;
        int reps = method == BRUTE && repeats > 2 ? 2 : repeats;
        weft_collision_pairs *out = method == BVH_REST ? &ref : &got;
        bool ok = time_query(fn, obj, x0, x1, reps, out, &r.cpu_ms, &r.wall_ms);
        weft_bvh_free(&tree);
        weft_spatial_hash_free(&hash);
        if (!ok) {
            bad = -1;
            break;
        }
        r.vt = out->vt.n;
        r.ee = out->ee.n;
        r.agree = same_pairs(&out->vt, &ref.vt) && same_pairs(&out->ee, &ref.ee) && out->tv.n == 0;
        if (!r.agree) bad++;
        write_row(f, &r);
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
    if (weft_mkdirs(cli.out) != 0) return 1;
    char path[1100], tmp[1200];
    snprintf(path, sizeof path, "%s/bench_broadphase.tsv", cli.out);
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "error: %s: cannot write: %s\n", tmp, strerror(errno));
        return 1;
    }
    fprintf(f,
            "# bench_broadphase: best of %d queries (brute force: %d) after 1 warm-up; "
            "ms per query = refit/update + sorted pairs (thread CPU and wall); "
            "build_ms (thread CPU) once per structure\n",
            repeats, repeats < 2 ? repeats : 2);
    fprintf(f, "shape\tres\tvertices\ttriangles\tedges\tmode\th_m\tmethod\tcpu_ms_per_query"
               "\twall_ms_per_query\tbuild_ms\tvt_pairs\tee_pairs\tagree\n");
    printf("%-7s %5s %-9s %-10s %9s %9s %9s %9s %9s  %s\n", "shape", "res", "mode", "method",
           "cpu ms", "wall ms", "build ms", "vt pairs", "ee pairs", "agree");
    static const shape shapes[] = {{"folded", shape_folded}, {"rolled", shape_rolled}};
    static const int sizes[] = {64, 128};
    int bad = 0;
    for (int si = 0; si < 2 && bad >= 0; si++)
        for (int sh = 0; sh < 2 && bad >= 0; sh++)
            for (int sw = 0; sw < 2 && bad >= 0; sw++) {
                int b = bench_case(f, &shapes[sh], sizes[si], sw, repeats);
                bad = b < 0 ? -1 : bad + b;
            }
    if (bad != 0) {
        fprintf(f, "# status=incomplete reason=%s\n", bad < 0 ? "error" : "methods disagree");
        fclose(f);
        fprintf(stderr, "error: %s; %s kept\n",
                bad < 0 ? "a query failed" : "broad phases disagree", tmp);
        return 1;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "error: %s: cannot write\n", path);
        return 1;
    }
    printf("\nwrote %s\n", path);
    return 0;
}
