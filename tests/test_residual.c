/* test_residual.c — the one residual of weft (weft_residual, lib/metrics.c;
 * papers/residual.md): the residual of backward Euler's optimality conditions with the
 * step's active constraints, which the logs report and Newton stops on. Each case in
 * full: papers/residual.md ("Implementation notes: tests/test_residual.c").
 *
 *   ground_rest     a cloth at rest on the ground: residual 0 to rounding for every
 *                   implicit and both PBD solvers; the pins-only residual is its weight
 *   sphere_pull     a contact that would pull counts, one that pushes does not; a gap g
 *                   counts m g/h², a penetration m |g|/h² (closed forms)
 *   newton_bitwise  on drape_sphere the metrics' residual at Newton's last iterate is the
 *                   one Newton stopped on, bit for bit
 *   newton_header   the log header lists [solver] tolerance and tolerance_abs
 *   newton_cap      an unreachable tolerance: every step ends "cap", one stop line each,
 *                   counted in weft_run_result.steps_capped
 *   newton_no_repeat below rounding Newton stops "stalled" without repeating a state
 *   newton_drape    drape_sphere 8 × 8, steps 0–44: every step "converged" within 15
 *                   iterations at residual_rel ≤ 1e-6
 *   newton_friction drape 8 × 8 with friction: every step's end row (after Coulomb
 *                   friction) still has residual_rel ≤ 1e-6: friction changes velocities only
 *   newton_touching balloon on a frictionless ground: no step stalls (touching vertices
 *                   join the contact set)
 *   newton_reason   a capped step says "contacts_changing" exactly when its contacts
 *                   changed late and hold at least half of ‖r‖²
 *   stop_words      a test solver's stop words are counted per (status, reason) without
 *                   lib/ naming them; too many or malformed ones fail the run
 *   smooth_agrees   newton_patch finds newton_euler's answer on hanging_cloth
 *   smooth_descent  each newton_patch pass lowers G, keeps vertices out of the sphere
 *   smooth_bitwise  newton_bitwise for newton_patch
 *   drape_full, balloon_full  newton_patch at cap 15: every step at residual_rel ≤ 1e-6
 */
#include "check.h"
#include "implicit_internal.h"
#include "scene_build.h"
#include "tmp_files.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <math.h>
#include <stdbool.h>
#include <unistd.h>

/* A 9 × 9 cloth of 10 kg/m² lying flat at the contact margin on the ground plane. */
static const char ground_scene[] =
    "[scene]\nname = ground_rest\ndt = 0.016666666666666666\nsteps = 3\ngravity = 0 -9.81 0\n"
    "[mesh]\ntype = grid\nwidth = 0.5\nheight = 0.5\nnx = 9\nny = 9\ndiagonals = alternating\n"
    "plane = xz\norigin = -0.25 0.002 0.25\n"
    "[material]\ndensity = 10\nstretch_stiffness = 1000\nbending_stiffness = 1e-5\n"
    "[collision]\nmargin = 0.002\n"
    "[collider.ground]\ntype = plane\npoint = 0 0 0\nnormal = 0 1 0\nfriction = 0.5\n"
    "restitution = 0\n";

/* Removes d's scene file and d. */
static void tmp_close(tmp_dir *d) {
    char path[128];
    remove(tmp_file(d, "scene.ini", path, sizeof path));
    rmdir(d->path);
}

/* Writes text to a scene file in d, builds it with the overrides. */
static bool build_text(tmp_dir *d, const char *text, const char *const *sets, weft_model *m,
                       weft_config **cfg) {
    char path[128];
    tmp_file(d, "scene.ini", path, sizeof path);
    write_text(path, text);
    return scene_build_cfg(path, sets, weft_energy_registry, m, cfg);
}

/* ‖M g‖ over the free vertices, N. */
static double weight_norm(const weft_model *m) {
    double s = 0.0;
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] < 0)
            for (int k = 0; k < 3; k++) s += pow(m->mass[i] * m->gravity[k], 2);
    return sqrt(s);
}

static void test_ground_rest(void) {
    static const weft_solver_type *const solvers[] = {
        &weft_implicit_euler, &weft_bdf2, &weft_newton_euler, &weft_bdf2_newton,
        &weft_pbd_gauss_seidel, &weft_pbd_jacobi};
    tmp_dir d;
    if (!tmp_open(&d)) return;
    for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; k++) {
        weft_model m;
        weft_config *cfg = NULL;
        if (!build_text(&d, ground_scene, NULL, &m, &cfg)) continue;
        const double W = weight_norm(&m);
        CHECK(W > 2.0); /* large contact forces: the cloth's weight, 2.7 N */
        weft_run_options opt = weft_run_options_default();
        opt.log_level = WEFT_LOG_NONE;
        opt.config = cfg;
        weft_run_result res;
        weft_error err = {{0}};
        int rc = weft_run(solvers[k], &m, &opt, &res, &err);
        if (rc) fprintf(stderr, "%s: %s\n", solvers[k]->name, err.msg);
        CHECK(rc == WEFT_OK);
        /* The residual of the last step's last iterate, from the run's metrics. */
        fprintf(stderr, "%-18s residual %.3e N against a weight of %.3f N\n", solvers[k]->name,
                res.last.residual, W);
        CHECK(res.last.residual <= 1e-12 * W);
        /* The same point with only the pins taken out: the contact forces are the weight
         * (the residual before the active-set rule). At rest x = x_n, x̃ = x_n + h² g. */
        const size_t n3 = 3 * (size_t)m.n;
        double *xt = malloc(n3 * sizeof *xt), *g = malloc(n3 * sizeof *g),
               *zero = calloc(n3, sizeof *zero);
        weft_inertial_target(&m, m.x, zero, xt);
        weft_incremental_potential(&m, m.x, xt, g);
        double pins_only = 0.0;
        for (size_t j = 0; j < n3; j++) pins_only += g[j] * g[j];
        CHECK_NEAR(sqrt(pins_only), W, 1e-6 * W);
        CHECK(weft_residual(&m, m.x, m.t, m.dt, g, NULL) <= 1e-12 * W);
        free(xt), free(g), free(zero);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    tmp_close(&d);
}

/* A 5 × 5 cloth, 0.4 m wide, flat, its centre vertex (0, y, 0) touching the sphere of
 * radius 0.3 m at the origin (+ the 2 mm margin) from below (y < 0) or above. */
static bool touching_cloth(tmp_dir *d, double y, weft_model *m) {
    char text[2048];
    snprintf(text, sizeof text,
             "[scene]\nname = sphere_touch\ndt = 0.01\ngravity = 0 -9.81 0\n"
             "[mesh]\ntype = grid\nwidth = 0.4\nheight = 0.4\nnx = 5\nny = 5\nplane = xz\n"
             "origin = -0.2 %.17g 0.2\n"
             "[material]\ndensity = 0.1\nstretch_stiffness = 1000\nbending_stiffness = 1e-5\n"
             "[collision]\nmargin = 0.002\n"
             "[collider.ball]\ntype = sphere\ncenter = 0 0 0\nradius = 0.3\n",
             y);
    return build_text(d, text, NULL, m, NULL);
}

/* The residual of the cloth at rest at its positions (x = x_n, v = 0): ∇G = −M g. */
static double rest_residual(const weft_model *m, double *r) {
    const size_t n3 = 3 * (size_t)m->n;
    double *xt = malloc(n3 * sizeof *xt), *g = malloc(n3 * sizeof *g),
           *zero = calloc(n3, sizeof *zero);
    weft_inertial_target(m, m->x, zero, xt);
    weft_incremental_potential(m, m->x, xt, g);
    double res = weft_residual(m, m->x, m->t, m->dt, g, r);
    /* The metrics compute the same number. */
    weft_metrics mm;
    weft_metrics_compute(m, m->x, m->x, m->dt, xt, m->dt, m->t, res, g, &mm);
    CHECK(mm.residual == res);
    free(xt), free(g), free(zero);
    return res;
}

static void test_sphere_pull(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    const double R = 0.302; /* radius + margin */
    weft_model below, above;
    if (!touching_cloth(&d, -R, &below)) return;
    if (!touching_cloth(&d, R, &above)) {
        weft_model_free(&below);
        return;
    }
    int c = -1;
    for (int i = 0; i < below.n; i++)
        if (fabs(below.x[3 * i]) < 1e-12 && fabs(below.x[3 * i + 2]) < 1e-12) c = i;
    CHECK(c >= 0);
    if (c < 0) goto out;
    double gap, n[3];
    CHECK(weft_residual_contact(&below, below.x, c, 0.0, &gap, n) == 0);
    CHECK(fabs(gap) <= 1e-15 && n[1] == -1.0);
    const double W = weight_norm(&below), mc = below.mass[c] * 9.81;
    /* Below: the sphere would have to pull the centre vertex up: its force counts, and
     * the residual is the whole weight. */
    double rb = rest_residual(&below, NULL);
    fprintf(stderr, "below: residual %.6e N, weight %.6e N; ", rb, W);
    CHECK_NEAR(rb, W, 1e-12 * W);
    /* Above: the sphere pushes: the centre vertex's normal force is out. */
    double ra = rest_residual(&above, NULL);
    fprintf(stderr, "above: residual %.6e N, closed form %.6e N\n", ra, sqrt(W * W - mc * mc));
    CHECK_NEAR(ra, sqrt(W * W - mc * mc), 1e-12 * W);
    CHECK(rb - ra > 0.5 * mc * mc / W);
    /* The split: below, the centre vertex (the only one within the margin of the sphere;
     * its neighbours are 16 mm off) holds m_c g of the residual; above, none. */
    {
        const size_t n3 = 3 * (size_t)below.n;
        double *xt = malloc(n3 * sizeof *xt), *g = malloc(n3 * sizeof *g),
               *zero = calloc(n3, sizeof *zero);
        for (int k = 0; k < 2; k++) {
            weft_model *mm = k ? &above : &below;
            weft_inertial_target(mm, mm->x, zero, xt);
            weft_incremental_potential(mm, mm->x, xt, g);
            double rc = -1.0;
            double rs = weft_residual_split(mm, mm->x, mm->t, mm->dt, g, NULL, &rc);
            CHECK(rs == weft_residual(mm, mm->x, mm->t, mm->dt, g, NULL));
            if (k == 0) CHECK_NEAR(rc, mc, 1e-12 * mc);
            else CHECK(rc >= 0.0 && rc <= 1e-12 * W);
        }
        free(xt), free(g), free(zero);
    }
    /* Lifted by δ (a gap): the centre's normal component is m δ/h², continuous in δ; sunk
     * by δ (inside) it is −m δ/h². */
    const double delta = 1e-4, s = above.mass[c] / (above.dt * above.dt);
    double *r = malloc(3 * (size_t)above.n * sizeof *r);
    for (int sign = -1; sign <= 1; sign += 2) {
        for (int i = 0; i < above.n; i++) above.x[3 * i + 1] += sign * delta;
        rest_residual(&above, r);
        CHECK_NEAR(r[3 * c + 1], sign * s * delta, 1e-9 * s * delta);
        CHECK(sign * s * delta < mc); /* below the pushing force: the gap term decides */
        for (int i = 0; i < above.n; i++) above.x[3 * i + 1] -= sign * delta;
    }
    free(r);
out:
    weft_model_free(&below);
    weft_model_free(&above);
    tmp_close(&d);
}

/* newton_bitwise of solver s with the extra overrides `more` (NULL-terminated; may be empty). */
static void newton_bitwise(const weft_solver_type *s, const char *const *more) {
    weft_model m;
    weft_config *cfg = NULL;
    const char *sets[8] = {"mesh.nx=8", "mesh.ny=8"};
    for (int i = 0, k = 2; more[i] && k < 7; i++) sets[k++] = more[i];
    if (!scene_build_cfg("drape_sphere", sets, weft_energy_registry, &m, &cfg)) return;
    weft_error err = {{0}};
    im_state *st = s->create(&m, cfg, &err);
    CHECK(st != NULL);
    if (!st) goto out;
    const size_t n3 = 3 * (size_t)m.n;
    double *xn = malloc(n3 * sizeof *xn), *xt = malloc(n3 * sizeof *xt),
           *scratch = malloc(n3 * sizeof *scratch);
    int compared = 0, with_contacts = 0;
    for (int step = 0; step < 20; step++) {
        memcpy(xn, m.x, n3 * sizeof *xn);
        weft_inertial_target(&m, m.x, m.v, xt);
        const double t1 = m.t + m.dt;
        if (s->step(st, &m, NULL, &err) != WEFT_OK) {
            fprintf(stderr, "step %d: %s\n", step, err.msg);
            CHECK(0);
            break;
        }
        if (st->r0 == 0.0) continue; /* free fall */
        weft_metrics mm;
        weft_metrics_compute(&m, st->x, xn, m.dt, xt, m.dt, t1, st->r0, scratch, &mm);
        CHECK(mm.residual == st->r);
        CHECK(mm.residual_rel == st->r / st->r0);
        int nc = 0;
        for (int i = 0; i < m.n; i++) nc += st->contact[i] >= 0;
        with_contacts += nc > 0;
        compared++;
        if (st->stop && !strcmp(st->stop, "converged"))
            CHECK(st->r <= st->set.tolerance_abs &&
                  st->r <= st->set.tolerance * fmax(st->r0, st->set.tolerance_abs));
    }
    fprintf(stderr, "%d steps compared, %d with active contacts\n", compared, with_contacts);
    CHECK(with_contacts >= 5);
    free(xn), free(xt), free(scratch);
    s->destroy(st);
out:
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* newton_reason: drape_sphere 8 × 8 at a cap of 3 through its impact (steps 0–29). At each
 * capped step the contacts' share of the residual Newton recorded is the one
 * weft_residual_split gives at its last iterate, the log's stop line has the share of the
 * state the step hands back, and the step says "contacts_changing"
 * exactly when the contact set changed in its last CONTACT_WINDOW iterations and the
 * contacts hold at least half of ‖r‖²; some capped steps whose contacts changed have their
 * residual elsewhere, and are not called contacts_changing. */
/* Steps of res that ended with status and reason word (weft_run_result.stop_reasons). */
static int reason_steps(const weft_run_result *res, const char *status, const char *reason) {
    for (int i = 0; i < res->nstop_reasons; i++)
        if (!strcmp(res->stop_reasons[i].status, status) &&
            !strcmp(res->stop_reasons[i].reason, reason))
            return res->stop_reasons[i].steps;
    return 0;
}

static void test_newton_reason(void) {
    weft_model m;
    weft_config *cfg = NULL;
    static const char *const sets[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=3",
                                       "scene.steps=30", NULL};
    if (!scene_build_cfg("drape_sphere", sets, weft_energy_registry, &m, &cfg)) return;
    weft_error err = {{0}};
    im_state *st = weft_newton_euler.create(&m, cfg, &err);
    CHECK(st != NULL);
    if (!st) goto out;
    const size_t n3 = 3 * (size_t)m.n;
    double *xt = malloc(n3 * sizeof *xt), *g = malloc(n3 * sizeof *g);
    int capped = 0, contacts = 0, elsewhere = 0;
    /* What each capped step's stop line must say: its share of ‖r‖² at the contacts and its
     * reason ("" for a step that did not cap). */
    char expect[30][96] = {{0}};
    for (int step = 0; step < 30; step++) {
        weft_inertial_target(&m, m.x, m.v, xt);
        const double t1 = m.t + m.dt;
        if (weft_newton_euler.step(st, &m, NULL, &err) != WEFT_OK) {
            fprintf(stderr, "step %d: %s\n", step, err.msg);
            CHECK(0);
            break;
        }
        if (!st->stop || strncmp(st->stop, "cap ", 4) != 0) continue;
        capped++;
        weft_incremental_potential_h(&m, st->x, xt, m.dt, g);
        double rc = -1.0, r = weft_residual_split(&m, st->x, t1, m.dt, g, NULL, &rc);
        CHECK(r == st->r && rc == st->r_contact);
        const bool at_contacts = 2.0 * rc * rc >= r * r;
        const bool says = !strcmp(st->stop, "cap contacts_changing");
        CHECK(says == (st->contacts_recent && at_contacts));
        contacts += says;
        elsewhere += st->contacts_recent && !at_contacts;
        /* The log's stop line measures the state the step hands back (m.x: after the
         * friction and the contacts' return to the surface), not the last iterate. */
        weft_incremental_potential_h(&m, m.x, xt, m.dt, g);
        double rc_out = -1.0, r_out = weft_residual_split(&m, m.x, t1, m.dt, g, NULL, &rc_out);
        snprintf(expect[step], sizeof expect[step], "stop=cap residual_at_contacts=%.2f reason=%s\n",
                 rc_out * rc_out / (r_out * r_out), st->stop + 4);
    }
    /* The same run through weft_run: the log's stop lines carry the same shares and reasons
     * (the monitor's metrics, computed on their own, agree with the solver). */
    weft_newton_euler.destroy(st);
    st = NULL;
    weft_model_free(&m);
    weft_config_free(&cfg);
    memset(&m, 0, sizeof m);
    cfg = NULL;
    if (scene_build_cfg("drape_sphere", sets, weft_energy_registry, &m, &cfg)) {
        tmp_dir d;
        char log[128];
        if (tmp_open(&d)) {
            tmp_file(&d, "reason.log", log, sizeof log);
            weft_run_options opt = weft_run_options_default();
            opt.log_path = log;
            opt.config = cfg;
            weft_run_result res;
            CHECK(weft_run(&weft_newton_euler, &m, &opt, &res, &err) == WEFT_OK);
            CHECK(res.steps_capped == capped &&
                  reason_steps(&res, "cap", "contacts_changing") == contacts);
            FILE *f = fopen(log, "r");
            char line[512];
            int lines = 0;
            while (f && fgets(line, sizeof line, f)) {
                int s, it;
                if (sscanf(line, "# step %d iter %d", &s, &it) != 2 || !strstr(line, "stop=cap"))
                    continue;
                lines++;
                CHECK(s >= 0 && s < 30 && strstr(line, expect[s]) != NULL);
            }
            if (f) fclose(f);
            CHECK(lines == capped);
            remove(log);
            tmp_close(&d);
        }
    }
    fprintf(stderr, "%d capped steps: %d contacts_changing, %d whose contacts changed with the "
                    "residual elsewhere\n", capped, contacts, elsewhere);
    CHECK(contacts >= 1 && elsewhere >= 1);
    free(xt), free(g);
out:
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void test_newton_bitwise(void) {
    static const char *const none[] = {NULL};
    newton_bitwise(&weft_newton_euler, none);
}

/* Steps 0 .. steps − 1 of solver s (newton_euler or newton_patch) on scene `name` with
 * the overrides `sets` (cap 15 among them): every step ends with residual_rel ≤ 1e-6 (the target of papers/residual.md; a step that
 * starts within tolerance_abs counts, see below), with the word "converged" too when
 * `word` (the cap can end a step whose residual_rel is below 1e-6 but whose residual is
 * still above tolerance_abs), and at least min_contacts steps end with active contacts.
 * Returns the total iterations. */
static long every_step_converges(const weft_solver_type *s, const char *name,
                                 const char *const *sets, int steps, int min_contacts,
                                 bool word) {
    weft_model m;
    weft_config *cfg = NULL;
    long total = 0;
    if (!scene_build_cfg(name, sets, weft_energy_registry, &m, &cfg)) return 0;
    weft_error err = {{0}};
    im_state *st = s->create(&m, cfg, &err);
    CHECK(st != NULL);
    if (!st) goto out;
    CHECK(st->set.common.iterations == 15);
    int with_contacts = 0, converged = 0, most = 0;
    double worst = 0.0;
    for (int step = 0; step < steps; step++) {
        if (s->step(st, &m, NULL, &err) != WEFT_OK) {
            fprintf(stderr, "step %d: %s\n", step, err.msg);
            CHECK(0);
            break;
        }
        const double rel = st->r0 > 0.0 ? st->r / st->r0 : 0.0;
        /* a step that starts within tolerance_abs (the balloon's free fall: r(x⁰) is
         * rounding, ~1e-13 N) converges at iteration 0 with residual_rel 1 by definition */
        const bool conv = st->stop && !strcmp(st->stop, "converged");
        const bool ok = (conv || !word) &&
                        (rel <= 1e-6 || (conv && st->iter == 0 && st->r0 <= st->set.tolerance_abs));
        if (!ok)
            fprintf(stderr, "step %d: %s after %d iterations, residual_rel %.3g\n", step,
                    st->stop ? st->stop : "?", st->iter, rel);
        converged += ok;
        if (st->iter > 0 && rel > worst) worst = rel;
        if (st->iter > most) most = st->iter;
        total += st->iter;
        int nc = 0;
        for (int i = 0; i < m.n; i++) nc += st->contact[i] >= 0;
        with_contacts += nc > 0;
    }
    fprintf(stderr, "%s, %s: %d of %d steps met the target (worst residual_rel %.3g, at most %d "
            "iterations, %ld in all), %d with active contacts\n", s->name, name, converged, steps, worst,
            most, total, with_contacts);
    CHECK(converged == steps);
    CHECK(with_contacts >= min_contacts);
    s->destroy(st);
out:
    weft_model_free(&m);
    weft_config_free(&cfg);
    return total;
}

/* every_step_converges on drape_sphere at 8 × 8 over its fall and impact (the cloth meets
 * the sphere at step 11 and settles by 40), with the extra overrides `more`. */
static long newton_drape(const char *const *more) {
    const char *sets[8] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=15"};
    for (int i = 0, k = 3; more[i] && k < 7; i++) sets[k++] = more[i];
    return every_step_converges(&weft_newton_euler, "drape_sphere", sets, 45, 30, true);
}

/* The convergence target's scenes (papers/residual.md) as they are (32 × 32 drape, 642-vertex balloon), newton_patch's
 * default settings at cap 15: every step of the drape's fall and impact (the cloth meets the sphere at step 11;
 * steps 11–24 are the buckling ones) and of the balloon's fall, impact (steps 15–19) and
 * first bounce converges to residual_rel ≤ 1e-6. newton_euler (no smoothing) caps 14 of
 * these drape steps (papers/residual.md). */
static void test_drape_full(void) {
    static const char *const sets[] = {"solver.iterations=15", NULL};
    every_step_converges(&weft_newton_patch, "drape_sphere", sets, 25, 10, false);
}

static void test_balloon_full(void) {
    static const char *const sets[] = {"solver.iterations=15", NULL};
    every_step_converges(&weft_newton_patch, "balloon", sets, 30, 10, false);
}

static void test_newton_drape(void) {
    static const char *const none[] = {NULL};
    newton_drape(none);
}

/* hanging_cloth at 8 × 8 (no contacts, convex enough for one answer) stepped by solver s
 * with the overrides; the positions after `steps` steps into x (3n). */
static bool hanging_positions(const weft_solver_type *s, const char *const *more, int steps,
                              double *x, int *n) {
    weft_model m;
    weft_config *cfg = NULL;
    const char *sets[8] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=40",
                           "solver.tolerance=1e-9", "solver.tolerance_abs=1e-9"};
    for (int i = 0, k = 5; more[i] && k < 7; i++) sets[k++] = more[i];
    if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg)) return false;
    weft_error err = {{0}};
    im_state *st = s->create(&m, cfg, &err);
    bool ok = st != NULL;
    CHECK(ok);
    for (int k = 0; st && k < steps && ok; k++) {
        ok = s->step(st, &m, NULL, &err) == WEFT_OK;
        if (!ok) fprintf(stderr, "step %d: %s\n", k, err.msg);
        CHECK(ok);
        if (ok && st->stop) CHECK(!strcmp(st->stop, "converged"));
    }
    if (st) s->destroy(st);
    if (ok) memcpy(x, m.x, 3 * (size_t)m.n * sizeof *x), *n = m.n;
    weft_model_free(&m);
    weft_config_free(&cfg);
    return ok;
}

/* Two Newton variants (solvers s1, s2 with the settings `one`, `more`) solve the same
 * backward-Euler steps: 10 steps of hanging_cloth 8 x 8 end within 1e-7 m of each other, while
 * the cloth moved more than 0.1 m. `what` names the pair in the printed figure. */
static void agrees_between(const weft_solver_type *s1, const char *const *one,
                           const weft_solver_type *s2, const char *const *more,
                           const char *what) {
    enum { cap = 3 * 81 };
    static double a[cap], b[cap];
    int na = 0, nb = 0;
    if (!hanging_positions(s1, one, 10, a, &na) || !hanging_positions(s2, more, 10, b, &nb)) {
        CHECK(0);
        return;
    }
    CHECK(na == nb && 3 * na <= cap);
    double diff = 0.0, moved = 0.0;
    for (int j = 0; j < 3 * na; j++) diff = fmax(diff, fabs(a[j] - b[j]));
    for (int j = 0; j < 3 * na; j++) moved = fmax(moved, fabs(a[j]));
    fprintf(stderr, "%s: max |dx| %.3g m\n", what, diff);
    CHECK(diff <= 1e-7);
    CHECK(moved > 0.1);
}

/* Runs newton_euler on hanging_cloth at 8 × 8 with the overrides, logging iterations into
 * d's "newton.log"; returns the run's status. */
static int newton_run(tmp_dir *d, const char *const *sets, weft_run_result *res, char *log,
                      size_t size) {
    weft_model m;
    weft_config *cfg = NULL;
    const char *all[16] = {"mesh.nx=8", "mesh.ny=8", "scene.steps=6"};
    int k = 3;
    for (int i = 0; sets[i] && k < 15; i++) all[k++] = sets[i];
    all[k] = NULL;
    if (!scene_build_cfg("hanging_cloth", all, weft_energy_registry, &m, &cfg)) return -1;
    tmp_file(d, "newton.log", log, size);
    weft_run_options opt = weft_run_options_default();
    opt.log_path = log;
    opt.config = cfg;
    weft_error err = {{0}};
    int rc = weft_run(&weft_newton_euler, &m, &opt, res, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return rc;
}

/* Counts the "# step S iter I stop=WORD" lines of log with that word; checks that each
 * follows a data row of step S, iteration I. */
static int stop_lines(const char *log, const char *word) {
    FILE *f = fopen(log, "r");
    CHECK(f != NULL);
    if (!f) return -1;
    char line[512], prev[512] = "";
    int count = 0;
    while (fgets(line, sizeof line, f)) {
        int s, it;
        char w[64];
        if (sscanf(line, "# step %d iter %d stop=%63s", &s, &it, w) == 3) {
            int ps = -1, pi = -1;
            CHECK(sscanf(prev, "%d %d", &ps, &pi) == 2 && ps == s && pi == it);
            count += strcmp(w, word) == 0;
        }
        snprintf(prev, sizeof prev, "%s", line);
    }
    fclose(f);
    return count;
}

/* newton_friction (file comment): the step-end rows of the log, read after each step's
 * "# step S iter I stop=WORD" line. */
static void test_newton_friction(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char log[128];
    tmp_file(&d, "friction.log", log, sizeof log);
    weft_model m;
    weft_config *cfg = NULL;
    static const char *const sets[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=15",
                                       "scene.steps=45", NULL};
    if (!scene_build_cfg("drape_sphere", sets, weft_energy_registry, &m, &cfg)) {
        tmp_close(&d);
        return;
    }
    CHECK(m.ncolliders >= 1 && m.colliders[0].friction == 0.3);
    weft_run_options opt = weft_run_options_default();
    opt.log_path = log;
    opt.log_level = WEFT_LOG_STEPS;
    opt.config = cfg;
    weft_run_result res;
    weft_error err = {{0}};
    CHECK(weft_run(&weft_newton_euler, &m, &opt, &res, &err) == WEFT_OK);
    FILE *f = fopen(log, "r");
    CHECK(f != NULL);
    char line[512], prev[512] = "";
    int steps = 0, ok = 0, iterated = 0;
    while (f && fgets(line, sizeof line, f)) {
        int s, it;
        char w[64];
        if (sscanf(line, "# step %d iter %d stop=%63s", &s, &it, w) == 3) {
            int ps = -1, pi = -1;
            double r = -1.0, rel = -1.0;
            CHECK(sscanf(prev, "%d %d %*f %lf %lf", &ps, &pi, &r, &rel) == 4 && ps == s && pi == it);
            steps++;
            /* a step that starts at rounding (the free fall) converges at iteration 0, where
             * residual_rel is 1 by definition and the residual itself is at rounding */
            const bool good = !strcmp(w, "converged") &&
                              (it == 0 ? r <= 1e-9 : rel <= 1e-6);
            if (!good) fprintf(stderr, "step %d iter %d %s: residual %.3g N, residual_rel %.3g\n",
                               s, it, w, r, rel);
            ok += good;
            iterated += it > 0;
        }
        snprintf(prev, sizeof prev, "%s", line);
    }
    if (f) fclose(f);
    fprintf(stderr, "newton_euler, drape_sphere 8x8: %d of %d step-end rows at the target, %d "
            "with iterations (contact steps)\n", ok, steps, iterated);
    CHECK(steps == 45 && ok == steps);
    CHECK(iterated >= 30); /* the contact steps, where friction acts, are in the count */
    remove(log);
    weft_model_free(&m);
    weft_config_free(&cfg);
    tmp_close(&d);
}

/* newton_touching (file comment). */
static void test_newton_touching(void) {
    weft_model m;
    weft_config *cfg = NULL;
    static const char *const sets[] = {"collider.ground.friction=0", "scene.steps=45", NULL};
    if (!scene_build_cfg("balloon", sets, weft_energy_registry, &m, &cfg)) return;
    weft_run_options opt = weft_run_options_default();
    opt.log_level = WEFT_LOG_NONE;
    opt.config = cfg;
    weft_run_result res;
    weft_error err = {{0}};
    int rc = weft_run(&weft_newton_euler, &m, &opt, &res, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    fprintf(stderr, "balloon, frictionless ground: %d stalled, %d capped of 45 steps\n",
            res.steps_stalled, res.steps_capped);
    CHECK(rc == WEFT_OK && res.steps_stalled == 0);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void test_newton_header(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char log[128];
    weft_run_result res;
    static const char *const sets[] = {"solver.tolerance_abs=2.5e-7", NULL};
    CHECK(newton_run(&d, sets, &res, log, sizeof log) == WEFT_OK);
    FILE *f = fopen(log, "r");
    char line[1024];
    bool found = false;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "# [solver]", 10) && strstr(line, " tolerance=1e-06") &&
            strstr(line, " tolerance_abs=2.5e-07"))
            found = true;
    if (f) fclose(f);
    CHECK(found);
    /* Every step of this easy scene converges: one stop line each, none capped. */
    CHECK(stop_lines(log, "converged") == 6);
    CHECK(res.steps_capped == 0 && res.steps_stalled == 0);
    remove(log);
    tmp_close(&d);
}

static void test_newton_cap(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char log[128];
    weft_run_result res;
    static const char *const sets[] = {"solver.iterations=2", "solver.tolerance=1e-13", NULL};
    CHECK(newton_run(&d, sets, &res, log, sizeof log) == WEFT_OK);
    CHECK(res.steps_capped == 6);
    CHECK(stop_lines(log, "cap") == 6);
    CHECK(stop_lines(log, "converged") == 0);
    /* Each capped step says why; no colliders here, so never contacts_changing. */
    FILE *f = fopen(log, "r");
    char line[512];
    int indefinite = 0, slow = 0, other = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "# step ", 7) != 0 || !strstr(line, "stop=cap")) continue;
        /* no colliders: nothing of the residual at contacts */
        CHECK(strstr(line, " residual_at_contacts=0.00 ") != NULL);
        if (strstr(line, " reason=indefinite\n"))
            indefinite++;
        else if (strstr(line, " reason=slow\n"))
            slow++;
        else
            other++;
    }
    if (f) fclose(f);
    CHECK(other == 0 && indefinite + slow == 6);
    CHECK(reason_steps(&res, "cap", "indefinite") == indefinite &&
          reason_steps(&res, "cap", "slow") == slow &&
          reason_steps(&res, "cap", "contacts_changing") == 0);
    /* lib/ counted Newton's words without knowing them; compare's column lists them. */
    char text[128], want[128] = "";
    if (indefinite) snprintf(want, sizeof want, "indefinite:%d", indefinite);
    if (slow) snprintf(want + strlen(want), sizeof want - strlen(want), "%sslow:%d",
                       indefinite ? "," : "", slow);
    weft_run_stop_reasons(&res, "cap", text, sizeof text);
    CHECK(!strcmp(text, want));
    remove(log);
    tmp_close(&d);
}

static void test_newton_no_repeat(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char log[128];
    weft_run_result res;
    /* Below rounding: Newton converges quadratically, then G and the residual stop
     * improving and the step ends "stalled" before the cap. */
    static const char *const sets[] = {"solver.iterations=40", "solver.tolerance=1e-300",
                                       "solver.tolerance_abs=1e-300", "solver.hessian=exact",
                                       NULL};
    CHECK(newton_run(&d, sets, &res, log, sizeof log) == WEFT_OK);
    int stalled = stop_lines(log, "stalled");
    fprintf(stderr, "stalled %d, capped %d\n", res.steps_stalled, res.steps_capped);
    CHECK(stalled == res.steps_stalled);
    CHECK(stalled + stop_lines(log, "cap") == 6);
    CHECK(stalled >= 1);
    /* No row repeats the previous row's state within a step. */
    FILE *f = fopen(log, "r");
    char line[512];
    int ps = -1, repeats = 0, rows = 0;
    double prev[6] = {0};
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        int s, it;
        double w, v[6];
        if (sscanf(line, "%d %d %lf %lf %lf %lf %lf %lf %lf", &s, &it, &w, &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5]) != 9)
            continue;
        rows++;
        if (s == ps && v[0] == prev[0] && v[2] == prev[2] && v[3] == prev[3] && v[4] == prev[4])
            repeats++;
        ps = s;
        memcpy(prev, v, sizeof prev);
    }
    if (f) fclose(f);
    CHECK(rows > 6);
    CHECK(repeats == 0);
    remove(log);
    tmp_close(&d);
}

/* Nonlinear smoothing is a preconditioner: newton_patch's answer on hanging_cloth (patch
 * sweeps after each Newton step) is newton_euler's, to the tolerance (1e-9 N); likewise
 * with Rayleigh damping's β term, which the patches hold. */
static void test_smooth_agrees(void) {
    static const char *const none[] = {NULL};
    agrees_between(&weft_newton_patch, none, &weft_newton_euler, none,
                   "newton_patch vs newton_euler");
    static const char *const beta[] = {"solver.damping_beta=0.01", NULL};
    agrees_between(&weft_newton_patch, beta, &weft_newton_euler, beta,
                   "damping_beta 0.01: newton_patch vs newton_euler");
}

/* G with Rayleigh damping's β term (β/2ĥ) eᵀ K_n e, e = x − a, from the solver's own K_n
 * (weft_incremental_potential_h holds the rest; α = 0 here). */
static double damped_potential(const im_state *st, const weft_model *m, const double *x,
                               double hh, double *grad) {
    double G = weft_incremental_potential_h(m, x, st->xt, hh, grad);
    const double be = st->set.damping_beta;
    if (!(be > 0.0)) return G;
    const size_t n3 = 3 * (size_t)m->n;
    double *e = malloc(n3 * sizeof *e), *q = malloc(n3 * sizeof *q), sum = 0.0;
    if (!e || !q) {
        free(e), free(q);
        return NAN;
    }
    weft_bsr Kn = *st->A;
    Kn.val = st->Kn_val;
    for (size_t j = 0; j < n3; j++) e[j] = x[j] - st->a[j];
    weft_bsr_spmv(&Kn, e, q, 1);
    for (size_t j = 0; j < n3; j++) sum += e[j] * q[j];
    free(e), free(q);
    return G + 0.5 * be * sum / hh;
}

/* newton_patch's passes (im_state.after_step, one sweep of 16-vertex patches) on scene
 * `name` (8 × 8) after `steps` steps of newton_patch:
 * from the positions x_n (contacts caught where a vertex is inside), five passes, each
 * checked against G = weft_incremental_potential_h: G never rises, the first pass lowers
 * it by more than rounding, no free vertex ends inside a collider and no pin moves. */
static void smooth_descent(const char *name, int steps, const char *beta) {
    weft_model m;
    weft_config *cfg = NULL;
    const char *const sets[] = {"mesh.nx=8", "mesh.ny=8", "newton_patch.smoothing_sweeps=1",
                                "newton_patch.patch_size=16", beta, NULL};
    if (!scene_build_cfg(name, sets, weft_energy_registry, &m, &cfg)) return;
    weft_error err = {{0}};
    im_state *st = weft_newton_patch.create(&m, cfg, &err);
    CHECK(st != NULL && st->after_step != NULL);
    const size_t n3 = 3 * (size_t)m.n;
    double *x = malloc(n3 * sizeof *x), *pins = malloc(n3 * sizeof *pins),
           *grad = malloc(n3 * sizeof *grad);
    for (int k = 0; st && k < steps; k++) CHECK(weft_newton_patch.step(st, &m, NULL, &err) == 0);
    if (!st || !st->after_step || !x || !pins || !grad) goto out;
    const double hh = im_setup_scheme(st, &m), t1 = m.t + m.dt;
    memcpy(x, m.x, n3 * sizeof *x);
    weft_model_apply_pins(&m, t1, x);
    memcpy(pins, x, n3 * sizeof *x);
    int caught = 0;
    for (int i = 0; i < m.n; i++) {
        st->contact[i] = -1;
        if (m.pin[i] < 0) caught += im_catch_contact(st, &m, i, t1, x);
    }
    double G = damped_potential(st, &m, x, hh, grad), G_first = G;
    for (int pass = 0; pass < 5; pass++) {
        st->after_step(st, &m, t1, hh, x);
        double G1 = damped_potential(st, &m, x, hh, grad);
        fprintf(stderr, "%s, %s, pass %d: G %.12g -> %.12g J\n", name, beta, pass, G, G1);
        CHECK(G1 <= G);
        if (pass == 0) CHECK(G_first - G1 > 1e-9 * fabs(G_first));
        G = G1;
    }
    double deepest = 0.0;
    int touching = 0;
    for (int i = 0; i < m.n; i++) {
        if (m.pin[i] >= 0) {
            for (int k = 0; k < 3; k++) CHECK(x[3 * i + k] == pins[3 * i + k]);
            continue;
        }
        for (int c = 0; c < m.ncolliders; c++) {
            double d =
                weft_collider_distance_at(&m.colliders[c], &x[3 * i], t1, NULL) - m.contact_margin;
            deepest = fmin(deepest, d);
            touching += d < 1e-9;
        }
    }
    fprintf(stderr, "%s: %d caught at the start, %d touching after, deepest %.3g m\n", name, caught,
            touching, deepest);
    CHECK(deepest > -1e-12);
out:
    free(x), free(pins), free(grad);
    if (st) weft_newton_patch.destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void test_smooth_descent(void) {
    /* the cloth meets the sphere at step 11 */
    smooth_descent("drape_sphere", 12, "solver.damping_beta=0");
    smooth_descent("hanging_cloth", 3, "solver.damping_beta=0");
    smooth_descent("drape_sphere", 12, "solver.damping_beta=0.01");
}

static void test_smooth_bitwise(void) {
    static const char *const none[] = {NULL};
    newton_bitwise(&weft_newton_patch, none);
}

/* A test-only solver whose stop statuses are words lib/ has never seen: step s ends with
 * stop_words_of(s), after reporting iteration 0; the positions stay where they are. */
static const char *(*stop_words_of)(int step);

static void *words_create(const weft_model *m, weft_config *cfg, weft_error *err) {
    (void)m, (void)cfg, (void)err;
    int *step = calloc(1, sizeof *step);
    return step;
}

static int words_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    (void)err;
    int *step = state;
    weft_monitor_report(mon, m->x, 0, false);
    weft_monitor_stop(mon, m->x, 1, stop_words_of((*step)++));
    m->t += m->dt;
    return WEFT_OK;
}

static const weft_solver_type words_solver = {
    .name = "stop_words", .paper = "-", .iteration = "none", .summary = "test-only",
    .create = words_create, .step = words_step, .destroy = free, .fixed_iterations = 1,
};

static const char *unheard(int step) {
    static const char *const w[] = {"cap wobbly", "stalled frayed", "cap wobbly",
                                    "converged", "cap tangled", "stalled"};
    return w[step % 6];
}

static const char *many(int step) {
    static char w[32];
    snprintf(w, sizeof w, "cap r%02d", step);
    return w;
}

static const char *two_reasons(int step) { return step == 2 ? "cap too many" : "cap ok"; }

static const char *long_reason(int step) {
    return step == 1 ? "cap abcdefghijklmnopqrstuvwxyz_01234" : "cap ok";
}

/* Runs words_solver on hanging_cloth for steps steps with stop words from words, logging to
 * log; returns weft_run's code, with res and err. */
static int words_run(const char *(*words)(int), int steps, const char *log,
                     weft_run_result *res, weft_error *err) {
    char steps_set[32];
    snprintf(steps_set, sizeof steps_set, "scene.steps=%d", steps);
    const char *const sets[] = {"mesh.nx=4", "mesh.ny=4", steps_set, NULL};
    weft_model m;
    weft_config *cfg = NULL;
    if (!scene_build_cfg("hanging_cloth", sets, weft_energy_registry, &m, &cfg)) return -100;
    stop_words_of = words;
    char partial[160];
    snprintf(partial, sizeof partial, "%s.partial", log);
    remove(partial), remove(log); /* a failed run leaves its .partial */
    weft_run_options opt = weft_run_options_default();
    opt.log_path = log;
    opt.config = cfg;
    int rc = weft_run(&words_solver, &m, &opt, res, err);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return rc;
}

static void test_stop_words(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char log[128];
    tmp_file(&d, "words.log", log, sizeof log);
    weft_run_result res;
    weft_error err = {{0}};
    /* Words no part of lib/ names: counted per (status, reason), sorted, and printed. */
    CHECK(words_run(unheard, 12, log, &res, &err) == WEFT_OK);
    CHECK(res.steps_capped == 6 && res.steps_stalled == 4);
    CHECK(res.nstop_reasons == 3);
    CHECK(reason_steps(&res, "cap", "wobbly") == 4 && reason_steps(&res, "cap", "tangled") == 2 &&
          reason_steps(&res, "stalled", "frayed") == 2);
    char text[256];
    CHECK(weft_run_stop_reasons(&res, "cap", text, sizeof text) == 18 &&
          !strcmp(text, "tangled:2,wobbly:4"));
    weft_run_stop_reasons(&res, "stalled", text, sizeof text);
    CHECK(!strcmp(text, "frayed:2"));
    weft_run_stop_reasons(&res, "converged", text, sizeof text);
    CHECK(!strcmp(text, "-"));
    weft_run_stop_reasons(&res, NULL, text, sizeof text);
    CHECK(!strcmp(text, "cap/tangled:2,cap/wobbly:4,stalled/frayed:2"));
    /* A short buffer: cut, terminated, and the length it needs returned. */
    char small[8];
    CHECK(weft_run_stop_reasons(&res, "cap", small, sizeof small) == 18 &&
          !strcmp(small, "tangled"));
    /* The log's stop lines carry the words as the solver gave them. */
    CHECK(stop_lines(log, "cap") == 6 && stop_lines(log, "stalled") == 4);
    FILE *f = fopen(log, "r");
    char line[512];
    int wobbly = 0, frayed = 0, bare = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "# step ", 7) != 0) continue;
        wobbly += strstr(line, " stop=cap residual_at_contacts=0.00 reason=wobbly\n") != NULL;
        frayed += strstr(line, " stop=stalled residual_at_contacts=0.00 reason=frayed\n") != NULL;
        bare += strstr(line, " stop=stalled residual_at_contacts=0.00\n") != NULL;
    }
    if (f) fclose(f);
    CHECK(wobbly == 4 && frayed == 2 && bare == 2);
    remove(log);
    /* The table holds WEFT_STOP_REASONS_MAX pairs; one more fails the run by name. */
    CHECK(words_run(many, WEFT_STOP_REASONS_MAX, log, &res, &err) == WEFT_OK);
    CHECK(res.nstop_reasons == WEFT_STOP_REASONS_MAX && res.steps_capped == WEFT_STOP_REASONS_MAX);
    remove(log);
    CHECK(words_run(many, WEFT_STOP_REASONS_MAX + 1, log, &res, &err) == WEFT_ERR_INPUT);
    fprintf(stderr, "full: %s\n", err.msg);
    CHECK(strstr(err.msg, "stop_words: step 16: stop status 'cap r16'") == err.msg &&
          strstr(err.msg, "at most 16") != NULL);
    /* A status that is not "WORD" or "WORD REASON", or a word too long to count whole. */
    CHECK(words_run(two_reasons, 4, log, &res, &err) == WEFT_ERR_INPUT);
    fprintf(stderr, "words: %s\n", err.msg);
    CHECK(strstr(err.msg, "stop_words: step 2: stop status 'cap too many'") == err.msg);
    CHECK(words_run(long_reason, 4, log, &res, &err) == WEFT_ERR_INPUT);
    fprintf(stderr, "long: %s\n", err.msg);
    CHECK(strstr(err.msg, "stop_words: step 1: stop status 'cap abcdefghijklmnopqrstuvwxyz_01234'") ==
          err.msg);
    char partial[160];
    snprintf(partial, sizeof partial, "%s.partial", log);
    remove(partial);
    tmp_close(&d);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"ground_rest", test_ground_rest},       {"sphere_pull", test_sphere_pull},
        {"newton_bitwise", test_newton_bitwise}, {"newton_header", test_newton_header},
        {"newton_cap", test_newton_cap},         {"newton_no_repeat", test_newton_no_repeat},
        {"newton_drape", test_newton_drape},     {"newton_reason", test_newton_reason},
        {"newton_friction", test_newton_friction}, {"newton_touching", test_newton_touching},
        {"smooth_agrees", test_smooth_agrees},
        {"smooth_descent", test_smooth_descent}, {"smooth_bitwise", test_smooth_bitwise},
        {"drape_full", test_drape_full},         {"balloon_full", test_balloon_full},
        {"stop_words", test_stop_words},
        {0},
    };
    return check_main(argc, argv, cases);
}
