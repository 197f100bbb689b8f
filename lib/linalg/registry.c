/* registry.c — the linear solvers and PPCG preconditioners weft knows. A new one is one
 * file (linear_NAME.c, precond_NAME.c) plus one line here. */
#include "weft_linsolve.h"

#include <string.h>

const weft_linear_type *const weft_linear_registry[] = {
    &weft_linear_cholmod,
    &weft_linear_ppcg,
    NULL,
};

const char *weft_linear_name_at(int i) {
    for (int k = 0; weft_linear_registry[k]; k++)
        if (k == i) return weft_linear_registry[k]->name;
    return NULL;
}

const weft_precond_type *const weft_precond_registry[] = {
    &weft_precond_none,
    &weft_precond_jacobi,
    &weft_precond_block_jacobi,
    NULL,
};

const weft_precond_type *weft_precond_find(const char *name) {
    for (const weft_precond_type *const *p = weft_precond_registry; *p; p++)
        if (!strcmp((*p)->name, name)) return *p;
    return NULL;
}

const char *weft_precond_name_at(int i) {
    for (int k = 0; weft_precond_registry[k]; k++)
        if (k == i) return weft_precond_registry[k]->name;
    return NULL;
}

