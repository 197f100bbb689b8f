/* registry.c — the solver types weft knows, and the constraint types its
 * position-based solvers project. A new solver is one file plus one line in WEFT_SOLVERS
 * below (and its file's line in CMakeLists.txt). */
#include "weft_collision.h"
#include "weft_linsolve.h"
#include "weft_solvers.h"

#include <stdlib.h>
#include <string.h>

/* The solvers, in listing order: one line each. The list declares each descriptor itself
 * (a solver file needs no header line) and then forms the registry from it. */
#define WEFT_SOLVERS(X)   \
    X(pbd_gauss_seidel)   \
    X(pbd_jacobi)         \
    X(symplectic_euler)   \
    X(implicit_euler)     \
    X(newton_euler)       \
    X(newton_patch)       \
    X(bdf2)               \
    X(bdf2_newton)        \
    X(xpbd)               \
    X(vbd)                \
    X(projective_dynamics) \
    /* one line per solver above; this line ends the list */

#define WEFT_DECLARE_SOLVER(name) extern const weft_solver_type weft_##name;
#define WEFT_LIST_SOLVER(name) &weft_##name,
WEFT_SOLVERS(WEFT_DECLARE_SOLVER)

const weft_solver_type *const weft_solver_registry[] = {WEFT_SOLVERS(WEFT_LIST_SOLVER) NULL};

const weft_stage_type *const weft_stage_registry[] = {
    &weft_bridson_stage,
    NULL,
};

int weft_plugins(weft_plugin *out, int max) {
    int n = 0;
#define WEFT_PLUGIN_PUT(...) \
    do {                     \
        if (n < max) out[n] = (weft_plugin){__VA_ARGS__}; \
        n++;                 \
    } while (0)
    WEFT_PLUGIN_PUT(.kind = "run", .type = weft_run_tables, .name = "run", .paper = "",
                    .summary = "the run loop", .size = sizeof(weft_run_settings),
                    .tables = weft_run_tables);
    for (const weft_solver_type *const *s = weft_solver_registry; *s; s++)
        WEFT_PLUGIN_PUT(.kind = "solver", .type = *s, .name = (*s)->name,
                        .paper = (*s)->paper, .summary = (*s)->summary,
                        .size = (*s)->settings_size, .tables = (*s)->settings);
    for (const weft_linear_type *const *s = weft_linear_registry; *s; s++)
        WEFT_PLUGIN_PUT(.kind = "linear", .type = *s, .name = (*s)->name,
                        .paper = (*s)->paper, .summary = (*s)->summary,
                        .size = (*s)->settings_size, .tables = (*s)->settings);
    for (const weft_precond_type *const *s = weft_precond_registry; *s; s++)
        WEFT_PLUGIN_PUT(.kind = "preconditioner", .type = *s, .name = (*s)->name,
                        .paper = (*s)->paper, .summary = (*s)->summary,
                        .size = (*s)->settings_size, .tables = (*s)->settings);
    for (const weft_stage_type *const *s = weft_stage_registry; *s; s++)
        WEFT_PLUGIN_PUT(.kind = "stage", .type = *s, .name = (*s)->name,
                        .paper = (*s)->paper, .summary = (*s)->summary,
                        .size = (*s)->settings_size, .tables = (*s)->settings);
#undef WEFT_PLUGIN_PUT
    return n;
}

weft_plugin *weft_plugins_all(int *n) {
    *n = weft_plugins(NULL, 0);
    weft_plugin *p = malloc((size_t)*n * sizeof *p);
    if (p) weft_plugins(p, *n);
    return p;
}

weft_config *weft_config_from_scene(const weft_scene *s, weft_error *err) {
    int n;
    weft_plugin *p = weft_plugins_all(&n);
    if (!p) {
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory listing %d plug-ins", n);
        return NULL;
    }
    weft_config *c = weft_config_create(p, n, s, err);
    free(p);
    return c;
}

const weft_solver_type *weft_solver_find(const char *name) {
    for (const weft_solver_type *const *s = weft_solver_registry; *s; s++)
        if (strcmp((*s)->name, name) == 0) return *s;
    return NULL;
}

const weft_constraint_info weft_constraint_list[] = {
    {"distance", "Mueller 2006 eqs. 10-11", "|p1 - p2| - l0 = 0 on every mesh edge"},
    {"dihedral_bending", "Mueller 2006 §4.1, Appendix A",
     "signed dihedral angle theta - theta0 = 0 on every interior edge"},
    {"balloon_volume", "Mueller 2006 §4.4, eqs. 14-15",
     "enclosed volume - k_pressure V0 = 0 on closed meshes"},
    {"collision", "Mueller 2006 §3.4", "(p - q).n >= 0 against planes and spheres"},
    {"self_collision", "Mueller 2006 §4.3, eqs. 12-13",
     "s (q - p1).n - h >= 0 for a vertex near a triangle of its own cloth ([pbd] self_collision)"},
    {"attachment", "Mueller 2006 §3.6", "w = 0 for pinned or scripted vertices"},
    {NULL, NULL, NULL},
};
