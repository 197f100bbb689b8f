/* test_xpbd.c — XPBD (solvers/xpbd.c, Macklin et al. 2016, 2019) against what the papers
 * claim of it:
 *   single_spring    converged XPBD is backward Euler: one spring, gravity and a sideways
 *                    velocity, 1 substep iterated to convergence, ends within 1e-9 m of
 *                    newton_euler at a tolerance of 1e-12 after several steps;
 *   hard_limit       with compliance α → 0 a sweep is PBD's projection with k = 1: on a
 *                    cloth with stretch and bending, in PBD's constraint order, the two
 *                    agree to rounding (and with the scene's compliance they do not);
 *   small_steps_win  at equal work on hanging_cloth, 20 substeps × 1 iteration end closer
 *                    to a converged BDF2 reference than 1 × 20 (Macklin 2019's claim);
 *   residual_logged  the common residual is logged for every inner iteration, numbered
 *                    across substeps, and the log header lists [xpbd];
 *   refuses          an energy without a constraint form is refused with a message;
 *   compliant_step   every energy's own compliant projection (weft_energy_type's
 *                    compliant_step, which xpbd's sweep calls) is eq. 18 on its
 *                    `constraint`: the same Δλ and positions to rounding, pinned
 *                    vertices and degenerate elements included; its four-lane
 *                    compliant_step4 gives the bits of four compliant_step calls, and
 *                    declines, touching nothing, when a lane is degenerate; its
 *                    compliant_steps on compliant_pack's records gives the bits of
 *                    compliant_step on each element of a run in turn (elements sharing
 *                    vertices, pinned and degenerate ones, with and without λ; with lanes
 *                    on four disjoint ones, a degenerate lane included);
 *   level_order      pbd_level_order, xpbd's order of the stretch springs, on a 64 × 64
 *                    cloth: a permutation whose levels share no vertex, which keeps the
 *                    mesh order of every two springs that share one, and whose sweep ends
 *                    bitwise where the mesh-order sweep does, with levels of 4 springs
 *                    or more on average (room for the CPU's overlap).
 */
#include "check.h"
#include "pbd_internal.h"
#include "scene_build.h"
#include "tmp_files.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The registered xpbd; a failed check when it is missing. */
static const weft_solver_type *xpbd(void) {
    const weft_solver_type *s = weft_solver_find("xpbd");
    CHECK(s != NULL);
    return s;
}

/* Applies "section.key=value" to every plug-in of cfg that has the key. */
static bool cfg_set(weft_config *cfg, const char *assignment) {
    return cfg_assign(cfg, assignment, "test_xpbd");
}

/* solver_steps (scene_build.h) without the profile. */
static bool run_steps(const weft_solver_type *s, weft_model *m, weft_config *cfg, int steps) {
    return solver_steps(s, m, cfg, steps, NULL);
}

/* Largest |a_i − b_i| over n values. */
static double max_diff(const double *a, const double *b, int n) {
    double d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* ------------------------------------------------------------------------------ */

/* A 2 × 2 grid of 1 m cells, vertices 1, 2, 3 pinned, no bending; the test keeps only
 * the spring 0–1, so vertex 0 swings on one spring under gravity. */
static const char spring_scene[] =
    "[scene]\nname = one_spring\ndt = 0.02\nsteps = 1\ngravity = 0 -9.81 0\n"
    "[mesh]\ntype = grid\nwidth = 1\nheight = 1\nnx = 2\nny = 2\nplane = xz\n"
    "origin = 0 0 0\n"
    "[material]\nbending = none\nstretch_stiffness = 200\n"
    "[pins]\nvertices = 1 2 3\n";

/* Builds the one-spring model into m (with its config), vertex 0 given a velocity off
 * every axis so the motion is three-dimensional. */
static bool spring_build(weft_model *m, weft_config **cfg) {
    tmp_dir dir;
    char path[128];
    if (!tmp_open(&dir)) return false;
    write_file(&dir, "spring.ini", spring_scene, path, sizeof path);
    bool ok = scene_build_cfg(path, NULL, weft_energy_registry, m, cfg);
    unlink(path);
    rmdir(dir.path);
    if (!ok) return false;
    weft_term *t = &m->terms[m->stretch_term];
    int keep = -1;
    for (int e = 0; e < t->n; e++) {
        const int *v = t->elem[e].v;
        if ((v[0] == 0 && v[1] == 1) || (v[0] == 1 && v[1] == 0)) keep = e;
    }
    CHECK(keep >= 0 && m->pin[0] < 0);
    if (keep < 0) return false;
    t->elem[0] = t->elem[keep];
    t->n = 1;
    const double v0[3] = {0.4, 0.3, -0.7};
    memcpy(m->v, v0, sizeof v0);
    return true;
}

static void test_single_spring(void) {
    const int steps = 8;
    weft_model a = {0}, b = {0};
    weft_config *ca = NULL, *cb = NULL;
    if (!spring_build(&a, &ca) || !spring_build(&b, &cb)) goto done;
    /* Backward Euler converged: Newton to 1e-12 of the first residual. */
    if (!cfg_set(ca, "solver.tolerance=1e-12") || !cfg_set(ca, "solver.iterations=100"))
        goto done;
    /* XPBD with one substep iterated to its fixed point. */
    if (!cfg_set(cb, "xpbd.substeps=1") || !cfg_set(cb, "xpbd.iterations=400")) goto done;
    if (!run_steps(&weft_newton_euler, &a, ca, steps) || !run_steps(xpbd(), &b, cb, steps))
        goto done;
    double d = max_diff(a.x, b.x, 3), travel = max_diff(a.x, a.x_start, 3);
    fprintf(stderr, "single_spring: |x_xpbd - x_newton| = %.3g m after %d steps (travel %.3g m)\n",
            d, steps, travel);
    CHECK(travel > 0.05); /* it moved: the comparison is not of two resting states */
    CHECK(d <= 1e-9);
    CHECK(fabs(a.t - b.t) <= 1e-15);
done:
    weft_model_free(&a), weft_model_free(&b);
    weft_config_free(&ca), weft_config_free(&cb);
}

/* ------------------------------------------------------------------------------ */

static const char *const cloth_sets[] = {"mesh.nx=6", "mesh.ny=6", NULL};

/* Reorders m's stretch and bending elements into the order of PBD's constraints in st
 * (edges and hinges matched by their vertices), so that XPBD sweeps them as PBD does. */
static bool pbd_order(weft_model *m, const pbd_state *st) {
    weft_term *s = &m->terms[m->stretch_term], *b = &m->terms[m->bending_term];
    CHECK(s->n == st->ndist && b->n == st->nbend && m->stretch_term < m->bending_term);
    if (s->n != st->ndist || b->n != st->nbend) return false;
    weft_element *tmp = malloc((size_t)(s->n + b->n) * sizeof *tmp);
    if (!tmp) return false;
    int found = 0;
    for (int i = 0; i < st->ndist; i++)
        for (int e = 0; e < s->n; e++) {
            const int *v = s->elem[e].v;
            if ((v[0] == st->dist[i].a && v[1] == st->dist[i].b) ||
                (v[1] == st->dist[i].a && v[0] == st->dist[i].b)) {
                tmp[i] = s->elem[e];
                found++;
                break;
            }
        }
    for (int i = 0; i < st->nbend; i++)
        for (int e = 0; e < b->n; e++)
            if (!memcmp(b->elem[e].v, st->bend[i].v, 4 * sizeof(int))) {
                tmp[st->ndist + i] = b->elem[e];
                found++;
                break;
            }
    CHECK(found == s->n + b->n);
    memcpy(s->elem, tmp, (size_t)s->n * sizeof *tmp);
    memcpy(b->elem, tmp + s->n, (size_t)b->n * sizeof *tmp);
    free(tmp);
    return found == s->n + b->n;
}

/* One step of 4 sweeps of XPBD (1 substep) on the small hanging cloth, in PBD's order,
 * with every element's k multiplied by k_scale; positions into x (3n). */
static bool xpbd_sweeps(double k_scale, double *x, const pbd_state *order) {
    weft_model m = {0};
    weft_config *cfg = NULL;
    bool ok = scene_build_cfg("hanging_cloth", cloth_sets, weft_energy_registry, &m, &cfg) &&
              pbd_order(&m, order) && cfg_set(cfg, "xpbd.substeps=1") &&
              cfg_set(cfg, "xpbd.iterations=4");
    for (int t = 0; ok && t < m.nterms; t++)
        for (int e = 0; e < m.terms[t].n; e++) m.terms[t].elem[e].k *= k_scale;
    ok = ok && run_steps(xpbd(), &m, cfg, 1);
    if (ok) memcpy(x, m.x, 3 * (size_t)m.n * sizeof *x);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return ok;
}

static void test_hard_limit(void) {
    weft_model m = {0};
    weft_config *cfg = NULL;
    double *xs = NULL, *xh = NULL;
    pbd_state *st = NULL;
    if (!scene_build_cfg("hanging_cloth", cloth_sets, weft_energy_registry, &m, &cfg)) goto done;
    /* PBD with hard constraints: k = 1 for both kinds, no mapping, no velocity damping. */
    if (!cfg_set(cfg, "pbd.k_stretch=1") || !cfg_set(cfg, "pbd.k_bending=1") ||
        !cfg_set(cfg, "pbd.stiffness_mapping=false") || !cfg_set(cfg, "pbd.k_damping=0") ||
        !cfg_set(cfg, "solver.iterations=4"))
        goto done;
    weft_error err = {{0}};
    st = weft_pbd_gauss_seidel.create(&m, cfg, &err);
    CHECK(st != NULL);
    if (!st) goto done;
    size_t n3 = 3 * (size_t)m.n;
    xs = malloc(n3 * sizeof *xs), xh = malloc(n3 * sizeof *xh);
    if (!xs || !xh) goto done;
    /* XPBD in PBD's order (taken before PBD steps), with the scene's compliance and with
     * the compliance scaled by 1e-20 (α̃ ~ 1e-17 of w|∇C|²). */
    if (!xpbd_sweeps(1.0, xs, st) || !xpbd_sweeps(1e20, xh, st)) goto done;
    CHECK(weft_pbd_gauss_seidel.step(st, &m, NULL, &err) == WEFT_OK);
    double hard = max_diff(xh, m.x, (int)n3), soft = max_diff(xs, m.x, (int)n3);
    fprintf(stderr, "hard_limit: |x_xpbd(alpha -> 0) - x_pbd(k = 1)| = %.3g m; with the "
            "scene's compliance %.3g m\n", hard, soft);
    CHECK(hard <= 1e-12);
    CHECK(soft > 1e-6); /* the compliance matters: the agreement is not a coincidence */
done:
    if (st) weft_pbd_gauss_seidel.destroy(st);
    free(xs), free(xh);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* ------------------------------------------------------------------------------ */

/* RMS over vertices of |x − ref| (m). */
static double rms_dist(const double *x, const double *ref, int n) {
    double s = 0.0;
    for (int i = 0; i < 3 * n; i++) s += (x[i] - ref[i]) * (x[i] - ref[i]);
    return sqrt(s / n);
}

/* Runs solver s on a 10 × 10 hanging_cloth for `steps` steps of dt with the overrides;
 * positions into x. */
static bool cloth_run(const weft_solver_type *s, double dt, int steps, const char *a,
                      const char *b, double *x) {
    char dts[64];
    snprintf(dts, sizeof dts, "scene.dt=%.17g", dt);
    const char *sets[] = {"mesh.nx=10", "mesh.ny=10", dts, NULL};
    weft_model m = {0};
    weft_config *cfg = NULL;
    bool ok = scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg) &&
              (!a || cfg_set(cfg, a)) && (!b || cfg_set(cfg, b)) && run_steps(s, &m, cfg, steps);
    if (ok) memcpy(x, m.x, 3 * (size_t)m.n * sizeof *x);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return ok;
}

static void test_small_steps_win(void) {
    const double dt = 1.0 / 60.0;
    const int steps = 15, refine = 8, n = 100;
    double *ref = malloc(3 * n * sizeof *ref), *small = malloc(3 * n * sizeof *small),
           *big = malloc(3 * n * sizeof *big);
    if (!ref || !small || !big) goto done;
    /* Reference: BDF2 solved by Newton to 1e-10 at dt/8, second-order accurate. */
    if (!cloth_run(&weft_bdf2_newton, dt / refine, steps * refine, "solver.tolerance=1e-10",
                   "solver.iterations=50", ref) ||
        !cloth_run(xpbd(), dt, steps, "xpbd.substeps=20", "xpbd.iterations=1", small) ||
        !cloth_run(xpbd(), dt, steps, "xpbd.substeps=1", "xpbd.iterations=20", big))
        goto done;
    double es = rms_dist(small, ref, n), eb = rms_dist(big, ref, n);
    fprintf(stderr, "small_steps_win: RMS distance to bdf2_newton (dt/%d) after %d steps: "
            "20 x 1: %.4g m, 1 x 20: %.4g m (ratio %.3g)\n", refine, steps, es, eb, eb / es);
    CHECK(es < eb);
done:
    free(ref), free(small), free(big);
}

/* ------------------------------------------------------------------------------ */

static void test_residual_logged(void) {
    const char *sets[] = {"mesh.nx=6", "mesh.ny=6", "scene.steps=2", "xpbd.substeps=3",
                          "xpbd.iterations=2", NULL};
    weft_model m = {0};
    weft_config *cfg = NULL;
    tmp_dir dir;
    char path[128];
    if (!tmp_open(&dir)) return;
    tmp_file(&dir, "xpbd.log", path, sizeof path);
    if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg)) goto done;
    weft_run_options opt = weft_run_options_default();
    opt.log_path = path;
    opt.config = cfg;
    weft_run_result res;
    weft_error err = {{0}};
    int rc = weft_run(xpbd(), &m, &opt, &res, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == WEFT_OK && res.steps_done == 2);
    CHECK(weft_profile_value(&res.profile, "substeps") == 6.0);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f) goto done;
    char line[512];
    int rows = 0, header = 0, expect_step = 0, expect_iter = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            header += strstr(line, "[xpbd] substeps=3 iterations=2") != NULL;
            continue;
        }
        int step, iter;
        double wall, r, rr;
        CHECK(sscanf(line, "%d %d %lf %lf %lf", &step, &iter, &wall, &r, &rr) == 5);
        /* Iterations 0 … 6 of each step: 3 substeps × 2 sweeps, numbered across them. */
        CHECK(step == expect_step && iter == expect_iter);
        CHECK(isfinite(r) && r > 0.0);
        if (++expect_iter == 7) expect_iter = 0, expect_step++;
        rows++;
    }
    fclose(f);
    CHECK(rows == 14);
    CHECK(header == 1);
done:
    unlink(path);
    rmdir(dir.path);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void test_refuses(void) {
    const char *sets[] = {"mesh.nx=4", "mesh.ny=4", "material.membrane=stvk", NULL};
    weft_model m = {0};
    weft_config *cfg = NULL;
    if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg)) return;
    weft_error err = {{0}};
    void *st = xpbd()->create(&m, cfg, &err);
    CHECK(st == NULL);
    CHECK(strstr(err.msg, "stvk") && strstr(err.msg, "constraint form"));
    CHECK(!strchr(err.msg, '\n'));
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* ------------------------------------------------------------------------------ */

/* A number in [−1, 1) from the state *s (a fixed sequence: the test is deterministic). */
static double unit_rand(unsigned long *s) {
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

/* Eq. 18 on type's `constraint` at x (3 nv) for element e with inverse masses w,
 * α̃ = at and λ: Δλ returned, the moved positions into out (3 nv). */
static double generic_step(const weft_energy_type *type, const weft_element *e, const double *w,
                           double at, double lambda, const double *x, double *out) {
    double g[3 * WEFT_ELEM_MAXV] = {0}, wgg = 0.0;
    double C = type->constraint(e, x, g);
    for (int i = 0; i < 3 * type->nv; i++) wgg += w[i / 3] * g[i] * g[i], out[i] = x[i];
    if (!(wgg + at > 0.0)) return 0.0;
    double dl = (-C - at * lambda) / (wgg + at);
    for (int i = 0; i < 3 * type->nv; i++) out[i] += w[i / 3] * g[i] * dl;
    return dl;
}

/* One element of type at the rest shape rest (3 nv), deformed by up to `shake` m per
 * coordinate, against the generic step for several masses, compliances and λ; returns
 * the number of cases compared. */
static int compare_steps(const weft_energy_type *type, const double *rest, double shake,
                         unsigned long *seed) {
    const int nv = type->nv;
    weft_element e;
    memset(&e, 0, sizeof e);
    for (int a = 0; a < nv; a++) e.v[a] = nv - 1 - a; /* not the identity: indices used */
    double xr[3 * WEFT_ELEM_MAXV], x[3 * WEFT_ELEM_MAXV], p[3 * WEFT_ELEM_MAXV];
    for (int a = 0; a < nv; a++)
        for (int k = 0; k < 3; k++) xr[3 * a + k] = rest[3 * a + k];
    weft_energy_params par = {.stiffness = 2.0, .area = 0.5};
    type->init(&e, xr, &par);
    static const double wsets[4][4] = {{1.0, 2.0, 0.5, 1.5}, {0.0, 1.0, 2.0, 0.7},
                                       {0.0, 0.0, 0.0, 0.0}, {3.0, 0.0, 0.0, 1.0}};
    static const double ats[3] = {0.0, 1e-3, 10.0}, lambdas[2] = {0.0, -0.25};
    int cases = 0;
    for (int ws = 0; ws < 4; ws++)
        for (int ia = 0; ia < 3; ia++)
            for (int il = 0; il < 2; il++) {
                double w[WEFT_ELEM_MAXV], wv[WEFT_ELEM_MAXV];
                for (int a = 0; a < nv; a++) w[a] = wsets[ws][a], wv[e.v[a]] = w[a];
                for (int i = 0; i < 3 * nv; i++) x[i] = xr[i] + shake * unit_rand(seed);
                for (int a = 0; a < nv; a++)
                    for (int k = 0; k < 3; k++) p[3 * e.v[a] + k] = x[3 * a + k];
                double want[3 * WEFT_ELEM_MAXV];
                double dl0 = generic_step(type, &e, w, ats[ia], lambdas[il], x, want);
                double dl = type->compliant_step(&e, wv, ats[ia], lambdas[il], p);
                CHECK_NEAR(dl, dl0, 1e-10 * (fabs(dl0) + 1e-300));
                for (int a = 0; a < nv; a++)
                    for (int k = 0; k < 3; k++)
                        CHECK_NEAR(p[3 * e.v[a] + k], want[3 * a + k], 1e-13);
                cases++;
            }
    return cases;
}

/* compliant_step4 of type on four copies of the element at rest shape rest (3 nv), each
 * deformed by up to 0.05 m, on 4 nv distinct vertices, against compliant_step one after
 * the other: the same bits. With `degenerate`, lane 2 is the degenerate shape bad (3 nv)
 * and the call must decline with p untouched. */
static void compare_lanes(const weft_energy_type *type, const double *rest, const double *bad,
                          bool degenerate, unsigned long *seed) {
    const int nv = type->nv, n = 4 * nv;
    weft_element el[4];
    const weft_element *ep[4];
    double p[3 * 4 * WEFT_ELEM_MAXV], q[3 * 4 * WEFT_ELEM_MAXV], w[4 * WEFT_ELEM_MAXV];
    double at[4], lam[4], dl[4];
    weft_energy_params par = {.stiffness = 2.0, .area = 0.5};
    for (int l = 0; l < 4; l++) {
        memset(&el[l], 0, sizeof el[l]);
        const double *shape = degenerate && l == 2 ? bad : rest;
        for (int a = 0; a < nv; a++) el[l].v[a] = (a * 4 + 3 * l) % n; /* interleaved */
        type->init(&el[l], shape, &par);
        for (int a = 0; a < nv; a++)
            for (int k = 0; k < 3; k++)
                p[3 * el[l].v[a] + k] =
                    shape[3 * a + k] + (degenerate && l == 2 ? 0.0 : 0.05 * unit_rand(seed));
        ep[l] = &el[l];
        at[l] = l == 0 ? 0.0 : 1e-3 * l, lam[l] = 0.1 * unit_rand(seed);
    }
    for (int i = 0; i < n; i++) w[i] = i % 5 == 0 ? 0.0 : 1.0 + 0.5 * unit_rand(seed);
    memcpy(q, p, 3 * (size_t)n * sizeof *p);
    double s[3 * 4 * WEFT_ELEM_MAXV], r[3 * 4 * WEFT_ELEM_MAXV], lr[4], ls[4], rec[4 * 8];
    if (type->compliant_steps && type->compliant_size <= 64) {
        /* the packed run with lanes (ih2 = 1: α̃ = α), against one after the other, λ
         * stored: the same bits, where a lane declines too */
        memcpy(s, p, sizeof s), memcpy(r, p, sizeof r), memcpy(lr, lam, sizeof lr);
        for (int l = 0; l < 4; l++) {
            type->compliant_pack(ep[l], at[l], (char *)rec + (size_t)l * type->compliant_size);
            ls[l] = lam[l] + type->compliant_step(ep[l], w, at[l], lam[l], s);
        }
        type->compliant_steps(rec, 4, true, 1.0, w, lr, r);
        CHECK(!memcmp(r, s, 3 * (size_t)n * sizeof *r) && !memcmp(lr, ls, sizeof ls));
    }
    bool done = type->compliant_step4(ep, w, at, lam, p, dl);
    CHECK(done == !degenerate);
    if (done)
        for (int l = 0; l < 4; l++) {
            double d = type->compliant_step(ep[l], w, at[l], lam[l], q);
            CHECK(d == dl[l]);
        }
    CHECK(!memcmp(p, q, 3 * (size_t)n * sizeof *p)); /* after the scalar steps, or untouched */
}

/* compliant_steps of type on a run of n = 12 elements (compliant_pack's records), element j
 * on vertices j .. j + nv − 1 (each shares vertices with its neighbours), positions from the
 * rest shape rest shaken by up to 0.05 m, element 5 exactly the degenerate shape bad,
 * vertices 0 and 7 pinned; with λ and without (lambda NULL: λ = 0, nothing stored), against
 * compliant_step on each in turn: the same bits. */
static void compare_run(const weft_energy_type *type, const double *rest, const double *bad,
                        unsigned long *seed) {
    enum { N = 12, NV = N + WEFT_ELEM_MAXV };
    const int nv = type->nv;
    weft_element el[N];
    double p[3 * NV] = {0}, q[3 * NV], w[NV], alpha[N], lam[N], lq[N];
    weft_energy_params par = {.stiffness = 2.0, .area = 0.5};
    for (int j = 0; j < N; j++) {
        memset(&el[j], 0, sizeof el[j]);
        for (int a = 0; a < nv; a++) el[j].v[a] = j + a;
        type->init(&el[j], j == 5 ? bad : rest, &par);
        alpha[j] = j % 3 == 0 ? 0.0 : 1e-3 * j, lam[j] = 0.1 * unit_rand(seed);
    }
    for (int i = 0; i < NV; i++) { /* corner i mod nv of the rest shape, shaken */
        for (int k = 0; k < 3; k++) p[3 * i + k] = rest[3 * (i % nv) + k] + 0.05 * unit_rand(seed);
        w[i] = i == 0 || i == 7 ? 0.0 : 1.0 + 0.5 * unit_rand(seed);
    }
    for (int i = 0; i < 3 * nv; i++) p[15 + i] = bad[i]; /* element 5 exactly degenerate */
    const double ih2 = 3600.0;
    double rec[N * 8]; /* the packed run: up to 64 bytes a record */
    CHECK(type->compliant_pack && type->compliant_size % 8 == 0 && type->compliant_size <= 64);
    if (!(type->compliant_size <= 64)) return;
    for (int j = 0; j < N; j++)
        type->compliant_pack(&el[j], alpha[j], (char *)rec + (size_t)j * type->compliant_size);
    for (int with = 0; with < 2; with++) {
        memcpy(q, p, sizeof p), memcpy(lq, lam, sizeof lam);
        for (int j = 0; j < N; j++) {
            const double l = with ? lq[j] : 0.0;
            const double dl = type->compliant_step(&el[j], w, alpha[j] * ih2, l, q);
            if (with) lq[j] = l + dl;
        }
        type->compliant_steps(rec, N, false, ih2, w, with ? lam : NULL, p);
        CHECK(!memcmp(p, q, sizeof p));
        if (with) CHECK(!memcmp(lam, lq, sizeof lam));
    }
}

static void test_compliant_step(void) {
    /* an edge, and a hinge: shared edge p0 p1, wings p2 and p3 (m) */
    static const double edge[6] = {0.1, 0.2, -0.1, 0.9, 0.1, 0.3};
    static const double hinge[12] = {0, 0, 0, 1, 0, 0, 0.4, 0.8, 0.1, 0.6, -0.7, 0.2};
    /* degenerate: coincident ends; a wing on the edge's line */
    static const double edge0[6] = {0.3, 0.3, 0.3, 0.3, 0.3, 0.3};
    static const double hinge0[12] = {0, 0, 0, 1, 0, 0, 0.5, 0, 0, 0.6, -0.7, 0.2};
    unsigned long seed = 12345;
    int types = 0, cases = 0, lanes = 0, runs = 0;
    for (const weft_energy_type *const *t = weft_energy_registry; *t; t++) {
        if (!(*t)->compliant_step) continue;
        CHECK((*t)->constraint != NULL); /* the step is defined by it */
        CHECK((*t)->kind == WEFT_ELEM_EDGE || (*t)->kind == WEFT_ELEM_HINGE);
        const bool is_edge = (*t)->kind == WEFT_ELEM_EDGE;
        cases += compare_steps(*t, is_edge ? edge : hinge, 0.05, &seed);
        cases += compare_steps(*t, is_edge ? edge0 : hinge0, 0.0, &seed);
        types++;
        if ((*t)->compliant_steps) {
            for (int r = 0; r < 10; r++)
                compare_run(*t, is_edge ? edge : hinge, is_edge ? edge0 : hinge0, &seed);
            runs++;
        }
        if (!(*t)->compliant_step4) continue;
        for (int r = 0; r < 20; r++) compare_lanes(*t, is_edge ? edge : hinge, NULL, false, &seed);
        compare_lanes(*t, is_edge ? edge : hinge, is_edge ? edge0 : hinge0, true, &seed);
        lanes++;
    }
    fprintf(stderr, "compliant_step: %d energies, %d cases against eq. 18 on their constraint; "
            "%d with four lanes, %d with runs\n", types, cases, lanes, runs);
    CHECK(types >= 3); /* mass_spring, dihedral_bending, discrete_shells */
    CHECK(lanes >= 2); /* the two hinges */
    CHECK(runs >= 1);  /* mass_spring */
}

/* ------------------------------------------------------------------------------ */

/* True when the nc springs (vertex pairs at v[2 c]) in the order perm (NULL: 0 .. nc − 1)
 * keep every two that share a vertex in mesh order; marks into last (nv ints). */
static bool keeps_shared_order(int nc, const int *v, const int *perm, int nv) {
    int *last = malloc((size_t)nv * sizeof *last);
    bool ok = last != NULL;
    for (int i = 0; ok && i < nv; i++) last[i] = -1;
    for (int i = 0; ok && i < nc; i++) {
        const int c = perm[i];
        for (int a = 0; a < 2; a++) ok = ok && last[v[2 * c + a]] < c, last[v[2 * c + a]] = c;
    }
    free(last);
    return ok;
}

static void test_level_order(void) {
    const char *sets[] = {"mesh.nx=64", "mesh.ny=64", NULL};
    weft_model m = {0};
    weft_config *cfg = NULL;
    int *perm = NULL, *starts = NULL, *v = NULL, *seen = NULL, nl = 0;
    double *p = NULL, *q = NULL;
    if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg)) goto done;
    const weft_term *t = &m.terms[m.stretch_term];
    const int nc = t->n, stride = (int)(sizeof(weft_element) / sizeof(int));
    perm = malloc((size_t)nc * sizeof *perm), starts = malloc(((size_t)nc + 2) * sizeof *starts);
    v = malloc(2 * (size_t)nc * sizeof *v), seen = calloc((size_t)(nc + m.n), sizeof *seen);
    p = malloc(3 * (size_t)m.n * sizeof *p), q = malloc(3 * (size_t)m.n * sizeof *q);
    if (!perm || !starts || !v || !seen || !p || !q) goto done;
    CHECK(pbd_level_order(nc, 2, t->elem[0].v, stride, m.n, perm, starts, &nl) == WEFT_OK);
    for (int c = 0; c < nc; c++) v[2 * c] = t->elem[c].v[0], v[2 * c + 1] = t->elem[c].v[1];
    CHECK(starts[0] == 0 && starts[nl] == nc);
    for (int i = 0; i < nc; i++) seen[perm[i]]++;
    for (int c = 0; c < nc; c++) CHECK(seen[c] == 1); /* a permutation */
    memset(seen, 0, (size_t)m.n * sizeof *seen);
    for (int l = 0; l < nl; l++) /* a level touches a vertex once: seen[] holds level + 1 */
        for (int i = starts[l]; i < starts[l + 1]; i++)
            for (int a = 0; a < 2; a++) {
                CHECK(seen[v[2 * perm[i] + a]] != l + 1);
                seen[v[2 * perm[i] + a]] = l + 1;
            }
    CHECK(keeps_shared_order(nc, v, perm, m.n));
    /* a spring sweep in both orders from one perturbed state: the same bits */
    unsigned long seed = 777;
    for (int i = 0; i < 3 * m.n; i++) p[i] = q[i] = m.x[i] + 0.01 * unit_rand(&seed);
    for (int i = 0; i < nc; i++) {
        const weft_element *ea = &t->elem[i], *eb = &t->elem[perm[i]];
        t->type->compliant_step(ea, m.w, 1e-3 / ea->k, 0.0, p);
        t->type->compliant_step(eb, m.w, 1e-3 / eb->k, 0.0, q);
    }
    CHECK(!memcmp(p, q, 3 * (size_t)m.n * sizeof *p));
    fprintf(stderr, "level_order: %d springs in %d levels (%.1f a level); the sweep in level "
            "order is bitwise the mesh order's\n", nc, nl, (double)nc / nl);
    CHECK(nl > 0 && 4 * nl <= nc);
done:
    free(perm), free(starts), free(v), free(seen), free(p), free(q);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"single_spring", test_single_spring},
        {"hard_limit", test_hard_limit},
        {"small_steps_win", test_small_steps_win},
        {"residual_logged", test_residual_logged},
        {"refuses", test_refuses},
        {"compliant_step", test_compliant_step},
        {"level_order", test_level_order},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
