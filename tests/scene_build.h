/* scene_build.h — building models from scenes in tests: load a scene file or built-in,
 * apply NULL-terminated "section.key=value" overrides (origin "--set", as on the command
 * line), build with a registry of energy types and make the run's config (the plug-ins'
 * settings, checked as the experiments check them); and the expectation that a build
 * fails with a one-line message. */
#ifndef WEFT_SCENE_BUILD_H
#define WEFT_SCENE_BUILD_H

#include "check.h"
#include "weft.h"
#include "weft_solvers.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Loads scene, applies the overrides, makes the config (into *cfg, or checked and freed
 * when cfg is NULL) and builds m with reg; returns the status, with the message in err. */
static inline int scene_try_build_cfg(const char *scene, const char *const *sets,
                                      const weft_energy_type *const *reg, weft_model *m,
                                      weft_config **cfg, weft_error *err) {
    if (cfg) *cfg = NULL;
    weft_scene *s = weft_scene_load(scene, err);
    if (!s) return WEFT_ERR_INPUT;
    int rc = WEFT_OK;
    for (int i = 0; sets && sets[i] && rc == WEFT_OK; i++)
        rc = weft_scene_set(s, sets[i], "--set", err);
    weft_config *c = NULL;
    if (rc == WEFT_OK && !(c = weft_config_from_scene(s, err))) rc = WEFT_ERR_INPUT;
    if (rc == WEFT_OK) rc = weft_scene_build(s, reg, m, err);
    if (rc == WEFT_OK && (rc = weft_run_check(c, m, err)) != WEFT_OK)
        weft_model_free(m); /* built, then refused */
    weft_scene_free(&s);
    if (rc != WEFT_OK || !cfg)
        weft_config_free(&c);
    else
        *cfg = c;
    return rc;
}

/* scene_try_build_cfg without the config. */
static inline int scene_try_build(const char *scene, const char *const *sets,
                                  const weft_energy_type *const *reg, weft_model *m,
                                  weft_error *err) {
    return scene_try_build_cfg(scene, sets, reg, m, NULL, err);
}

/* scene_try_build_cfg that must succeed: a failed check (with the message) otherwise. */
static inline bool scene_build_cfg(const char *scene, const char *const *sets,
                                   const weft_energy_type *const *reg, weft_model *m,
                                   weft_config **cfg) {
    weft_error err = {{0}};
    int rc = scene_try_build_cfg(scene, sets, reg, m, cfg, &err);
    if (rc != WEFT_OK) fprintf(stderr, "building %s: %s\n", scene, err.msg);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* scene_build_cfg without the config. */
static inline bool scene_build(const char *scene, const char *const *sets,
                               const weft_energy_type *const *reg, weft_model *m) {
    return scene_build_cfg(scene, sets, reg, m, NULL);
}

/* The value of section.key in cfg (the first plug-in that has it), NAN if none has it. */
static inline double cfg_value(const weft_config *cfg, const char *section, const char *key) {
    double v;
    return weft_config_value(cfg, section, key, &v) ? v : NAN;
}

/* Builds scene with the overrides, which must fail (WEFT_ERR_INPUT) with a one-line
 * message holding want1 and want2 (NULL: not checked). */
static inline void scene_expect_error(const char *scene, const char *const *sets,
                                      const weft_energy_type *const *reg, const char *want1,
                                      const char *want2) {
    weft_model m = {0};
    weft_error err = {{0}};
    int rc = scene_try_build(scene, sets, reg, &m, &err);
    bool ok = rc == WEFT_ERR_INPUT && strstr(err.msg, want1) &&
              (!want2 || strstr(err.msg, want2)) && !strchr(err.msg, '\n');
    if (!ok)
        fprintf(stderr, "expected '%s' / '%s', got rc %d: '%s'\n", want1, want2 ? want2 : "",
                rc, err.msg);
    CHECK(ok);
    weft_model_free(&m);
}

/* Applies one "section.key=value" assignment to every plug-in of cfg that has the key
 * (origin `who` in messages); a failed check (with the message) otherwise. */
static inline bool cfg_assign(weft_config *cfg, const char *assignment, const char *who) {
    weft_error err = {{0}};
    int rc = weft_config_set(cfg, assignment, who, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* Steps solver s on m `steps` times with the settings of cfg (a fresh state, no monitor);
 * false with a failed check (and the message) when create or a step fails. stats (may be
 * NULL) receives the solver's profile. */
static inline bool solver_steps(const weft_solver_type *s, weft_model *m, weft_config *cfg,
                                int steps, weft_profile *stats) {
    weft_error err = {{0}};
    void *st = s->create(m, cfg, &err);
    if (!st) fprintf(stderr, "%s: create: %s\n", s->name, err.msg);
    CHECK(st != NULL);
    if (!st) return false;
    int rc = WEFT_OK;
    for (int i = 0; i < steps && rc == WEFT_OK; i++) rc = s->step(st, m, NULL, &err);
    if (rc) fprintf(stderr, "%s: %s\n", s->name, err.msg);
    CHECK(rc == WEFT_OK);
    if (stats) weft_solver_stats(s, st, stats);
    s->destroy(st);
    return rc == WEFT_OK;
}

#endif
