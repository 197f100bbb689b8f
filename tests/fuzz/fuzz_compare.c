/* fuzz_compare.c — libFuzzer target: the input is the command line of `compare`, one
 * argument per line; it goes through the option parser (weft_cli_parse_args in
 * experiments/cli.c), the --solvers list and the scene set-up with every override
 * (weft_cli_build), which is all compare does before it runs a solver. */
#include "cli.h"
#include "fuzz_util.h"

enum { MAX_ARGS = 128 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = "compare";
    for (char *p = text; argc < MAX_ARGS;) {
        argv[argc++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
    argv[argc] = NULL;
    weft_cli cli;
    weft_error err = {{0}};
    int rc = weft_cli_parse_args(argc, argv, &cli, false, &err);
    const weft_solver_type *solvers[16];
    if (rc == WEFT_OK && cli.solvers && weft_cli_solvers(cli.solvers, "--solvers", solvers, 16) < 0)
        rc = weft_fail(&err, WEFT_ERR_INPUT, "bad --solvers (message above)");
    if (rc == WEFT_OK) {
        weft_model m;
        rc = weft_cli_build(&cli, &m, NULL, &err);
        if (rc == WEFT_OK) weft_model_free(&m);
    }
    fuzz_note(rc, rc == 1 ? "--help" : err.msg);
    free(text);
    return 0;
}
