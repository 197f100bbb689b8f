/* defaults.c — the solvers a study runs when none are named: every registered solver that
 * can run its scene, decided from the descriptors alone (capabilities and whether the
 * solver accepts the model), so that a new solver joins every study with no edit. */
#include "cli.h"

#include "weft_solvers.h"

#include <stdio.h>
#include <string.h>

int weft_cli_default_solvers(const weft_cli *cli, unsigned flags, const weft_solver_type **out,
                             int max) {
    weft_model m;
    weft_config *cfg = NULL;
    weft_error err = {{0}};
    if (weft_cli_build(cli, &m, &cfg, &err) != WEFT_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return -1;
    }
    int n = 0;
    for (const weft_solver_type *const *s = weft_solver_registry; *s && n < max; s++) {
        /* An explicit method diverges at a dt not chosen for it: only when asked for. */
        if (((*s)->conditionally_stable && !(flags & WEFT_CLI_EXPLICIT)) ||
            ((flags & WEFT_CLI_NEED_ORDER) && (*s)->caps.order <= 0))
            continue;
        weft_error e = {{0}};
        void *state = weft_solver_create(*s, &m, cfg, &e); /* refuses a model it cannot run */
        if (!state) continue;
        (*s)->destroy(state);
        out[n++] = *s;
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
    return n;
}

bool weft_cli_print_solvers(const weft_cli *cli, const weft_solver_type *const *s, int n) {
    if (!cli->list_solvers) return false;
    printf("solvers:");
    for (int k = 0; k < n; k++) printf("%s%s", k ? "," : " ", s[k]->name);
    printf("\n");
    return true;
}
