/* settings.c — the [solver] settings several solvers share, as table rows that each
 * solver places in its own settings struct (weft_solvers.h, lib/weft_base.h's tables). */
#include "weft_solvers.h"

#include <stddef.h>

const weft_param weft_iterations_params[] = {
    {.key = "iterations", .type = WEFT_PARAM_INT,
     .offset = offsetof(weft_solver_common, iterations), .unit = "", .lo = 1, .hi = 1000000,
     .dflt = 10, .doc = "inner iterations per step (Newton: the cap)"},
    {0},
};

const weft_param weft_threads_params[] = {
    {.key = "threads", .type = WEFT_PARAM_INT, .offset = offsetof(weft_solver_common, threads),
     .unit = "", .lo = 1, .hi = 1024, .dflt = 1,
     .doc = "OpenMP threads of the step (results are bitwise the same for any count)"},
    {0},
};

int weft_pressure_check(const weft_model *m, const weft_config *cfg, double k_pressure,
                        weft_error *err) {
    if (!(k_pressure > 0.0) || m->mesh.closed) return WEFT_OK;
    char w[330];
    weft_config_where(cfg, "pbd", "k_pressure", w, sizeof w);
    return weft_fail(err, WEFT_ERR_INPUT, "%s%spbd.k_pressure: the balloon constraint needs a "
                     "closed mesh", w, w[0] ? ": " : "");
}
