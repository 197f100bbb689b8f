/* registry.c — the linear solvers and PPCG preconditioners weft knows. A new one is one
 * file (linear_NAME.c, precond_NAME.c) plus one line here and one in CMakeLists.txt. */
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

/* The preconditioners, in listing order: a new one is its file (precond_NAME.c, defining
 * weft_precond_NAME), one line here, which also declares it, and one in CMakeLists.txt. */
#define WEFT_PRECONDITIONERS(X) \
    X(none)                     \
    X(jacobi)                   \
    X(block_jacobi)             \
    X(boomeramg)                \
    X(sa_amg)                   \
    /* one line per preconditioner above; this line ends the list */

#define WEFT_DECLARE_PRECOND(name) extern const weft_precond_type weft_precond_##name;
#define WEFT_LIST_PRECOND(name) &weft_precond_##name,
WEFT_PRECONDITIONERS(WEFT_DECLARE_PRECOND)

const weft_precond_type *const weft_precond_registry[] = {
    WEFT_PRECONDITIONERS(WEFT_LIST_PRECOND) NULL};

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

