/* test_profile.c — solver profiles (lib/profile.c, the stats hook of weft_solver_type) and
 * WEFT_ASSERT (lib/weft_base.h).
 *   helpers       add sums by name, labels, find/value of missing names, since, clear
 *   pbd_counts    pbd_gauss_seidel's "projections" counter is exactly steps × iterations ×
 *                 (edges + hinges) on a cloth without colliders; its stage timers are
 *                 non-negative and sum to no more than the steps' wall time
 *   run_result    weft_run hands back the solver's profile over the run: the same exact
 *                 projection count; and its inner iterations: PBD's 10 per step, Newton's
 *                 its profile's newton_iterations
 *   every_solver  every registered solver has a stats hook whose profile, after two steps,
 *                 has unique names, finite non-negative timers and whole-number counters
 *   assert_macro  WEFT_ASSERT aborts on a false condition where asserts are on, and
 *                 neither aborts nor evaluates its condition where they are off
 */
#include "check.h"
#include "scene_build.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_helpers(void) {
    weft_profile p = {0};
    CHECK(p.n == 0 && weft_profile_find(&p, "a") == NULL);
    weft_profile_add(&p, "a", WEFT_PROFILE_TIMER, 1.5);
    weft_profile_add(&p, "n", WEFT_PROFILE_COUNT, 3);
    weft_profile_add(&p, "a", WEFT_PROFILE_TIMER, 0.25); /* same name: summed */
    weft_profile_label(&p, "ordering", "amd");
    CHECK(p.n == 3);
    CHECK(weft_profile_value(&p, "a") == 1.75);
    CHECK(weft_profile_value(&p, "n") == 3.0);
    CHECK(isnan(weft_profile_value(&p, "missing")));
    CHECK(isnan(weft_profile_value(&p, "ordering"))); /* a label has no value */
    const weft_profile_entry *e = weft_profile_find(&p, "ordering");
    CHECK(e && e->kind == WEFT_PROFILE_LABEL && strcmp(e->text, "amd") == 0);
    CHECK(strcmp(p.entry[0].name, "a") == 0 && strcmp(p.entry[1].name, "n") == 0);

    weft_profile before = {0};
    weft_profile_add(&before, "a", WEFT_PROFILE_TIMER, 0.75);
    weft_profile_add(&before, "other", WEFT_PROFILE_COUNT, 9);
    weft_profile_since(&p, &before);
    CHECK(weft_profile_value(&p, "a") == 1.0);
    CHECK(weft_profile_value(&p, "n") == 3.0); /* absent before: unchanged */
    CHECK(weft_profile_find(&p, "other") == NULL);

    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    CHECK(f != NULL);
    if (f) {
        weft_profile_print(f, &p, "  ");
        fclose(f);
    }
    CHECK(strstr(buf, "  a ") && strstr(buf, "1.000000 s") && strstr(buf, "  ordering "));
    weft_profile_clear(&p);
    CHECK(p.n == 0 && isnan(weft_profile_value(&p, "a")));
}

/* hanging_cloth at 8 × 8 vertices with the overrides, and its config into *cfg, or false
 * after a failed check. */
static bool small_cloth(weft_model *m, weft_config **cfg, const char *extra) {
    const char *sets[] = {"mesh.nx=8", "mesh.ny=8", "solver.iterations=10", extra, NULL};
    return scene_build_cfg("hanging_cloth", sets, weft_energy_registry, m, cfg);
}

static void test_pbd_counts(void) {
    weft_model m = {0};
    weft_config *cfg = NULL;
    if (!small_cloth(&m, &cfg, "pbd.k_bending=0.5")) return;
    CHECK(m.ncolliders == 0 && m.mesh.nh > 0);
    const weft_solver_type *s = &weft_pbd_gauss_seidel;
    weft_error err = {{0}};
    void *st = s->create(&m, cfg, &err);
    CHECK(st != NULL);
    const int steps = 3;
    double t0 = weft_now();
    for (int i = 0; st && i < steps; i++) CHECK(s->step(st, &m, NULL, &err) == WEFT_OK);
    double wall = weft_now() - t0;
    weft_profile p;
    weft_solver_stats(s, st, &p);
    s->destroy(st);
    double want = (double)steps * 10 * (m.mesh.ne + m.mesh.nh);
    CHECK(weft_profile_value(&p, "projections") == want);
    CHECK(weft_profile_value(&p, "self_contacts") == 0.0);
    double sum = 0.0;
    const char *stages[] = {"predict", "collide", "project", "update"};
    for (int k = 0; k < 4; k++) {
        double v = weft_profile_value(&p, stages[k]);
        CHECK(v >= 0.0);
        sum += v;
    }
    CHECK(sum <= wall);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void test_run_result(void) {
    weft_model m = {0};
    weft_config *cfg = NULL;
    if (!small_cloth(&m, &cfg, "scene.steps=4")) return;
    weft_run_options opt = weft_run_options_default();
    opt.log_level = WEFT_LOG_NONE;
    opt.config = cfg;
    weft_run_result res;
    weft_error err = {{0}};
    CHECK(weft_run(&weft_pbd_gauss_seidel, &m, &opt, &res, &err) == WEFT_OK);
    CHECK(res.steps_done == 4);
    CHECK(weft_profile_value(&res.profile, "projections") == 4.0 * 10 * (m.mesh.ne + m.mesh.nh));
    CHECK(weft_profile_value(&res.profile, "project") <= res.wall_s);
    CHECK(res.iterations == 4 * 10);
    weft_model_free(&m);
    weft_config_free(&cfg);
    if (!small_cloth(&m, &cfg, "scene.steps=4")) return;
    opt.config = cfg;
    CHECK(weft_run(&weft_newton_euler, &m, &opt, &res, &err) == WEFT_OK);
    const double newton = weft_profile_value(&res.profile, "newton_iterations");
    printf("run_result: newton_euler %ld inner iterations in 4 steps (profile: %g)\n",
           res.iterations, newton);
    CHECK(res.iterations > 4 && (double)res.iterations == newton);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

static void test_every_solver(void) {
    for (const weft_solver_type *const *r = weft_solver_registry; *r; r++) {
        const weft_solver_type *s = *r;
        weft_model m = {0};
        weft_config *cfg = NULL;
        if (!small_cloth(&m, &cfg, NULL)) return;
        CHECK(s->stats != NULL);
        weft_error err = {{0}};
        void *st = s->create(&m, cfg, &err);
        CHECK(st != NULL);
        for (int i = 0; st && i < 2; i++) CHECK(s->step(st, &m, NULL, &err) == WEFT_OK);
        weft_profile p;
        weft_solver_stats(s, st, &p);
        s->destroy(st);
        if (p.n == 0) fprintf(stderr, "%s: empty profile\n", s->name);
        CHECK(p.n > 0);
        for (int i = 0; i < p.n; i++) {
            const weft_profile_entry *e = &p.entry[i];
            bool ok = e->name && e->name[0] && weft_profile_find(&p, e->name) == e;
            if (e->kind == WEFT_PROFILE_TIMER) ok = ok && isfinite(e->value) && e->value >= 0;
            if (e->kind == WEFT_PROFILE_COUNT)
                ok = ok && e->value >= 0 && e->value == floor(e->value);
            if (e->kind == WEFT_PROFILE_LABEL) ok = ok && e->text != NULL;
            if (!ok) fprintf(stderr, "%s: bad profile entry '%s'\n", s->name, e->name);
            CHECK(ok);
        }
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    /* A solver without the hook reports an empty profile. */
    weft_solver_type bare = {.name = "bare"};
    weft_profile p;
    p.n = 5;
    weft_solver_stats(&bare, &bare, &p);
    CHECK(p.n == 0);
}

static int evaluations = 0;

static bool counted(bool value) {
    evaluations++;
    return value;
}

static void test_assert_macro(void) {
#if defined(WEFT_ASSERTS) || !defined(NDEBUG)
    const bool on = true;
#else
    const bool on = false;
#endif
    WEFT_ASSERT(counted(true));
    CHECK(evaluations == (on ? 1 : 0));
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        WEFT_ASSERT(counted(false)); /* aborts here where asserts are on */
        _exit(0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (on)
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    else
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"helpers", test_helpers},
        {"pbd_counts", test_pbd_counts},
        {"run_result", test_run_result},
        {"every_solver", test_every_solver},
        {"assert_macro", test_assert_macro},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
