/* fuzz_scene.c — libFuzzer target: the input is a scene file, loaded and built into a
 * model by weft_cli_build (experiments/cli.c), as every experiment binary does
 * (weft_scene_load, weft_scene_build in lib/scene/scene.c, with the energy registry).
 * The scene's directory also holds small mesh files it may name: sheet.obj (with vt),
 * octa.obj (closed) and cube.node/cube.ele (TetGen). */
#include "cli.h"
#include "fuzz_util.h"

/* An open unit square of two triangles, with material coordinates. */
static const char sheet_obj[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                                "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                                "f 1/1 2/2 3/3\nf 1/1 3/3 4/4\n";
/* A closed octahedron of radius 0.2 m, centred 1 m below the origin. */
static const char octa_obj[] = "v 0.2 -1 0\nv -0.2 -1 0\nv 0 -0.8 0\nv 0 -1.2 0\n"
                               "v 0 -1 0.2\nv 0 -1 -0.2\n"
                               "f 1 3 5\nf 3 2 5\nf 2 4 5\nf 4 1 5\n"
                               "f 3 1 6\nf 2 3 6\nf 4 2 6\nf 1 4 6\n";
/* A unit cube as six tetrahedra around its diagonal (numbered from 1). */
static const char cube_node[] = "8 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n"
                                "5 0 0 1\n6 1 0 1\n7 0 1 1\n8 1 1 1\n";
static const char cube_ele[] = "6 4 0\n1 1 2 4 8\n2 1 3 7 8\n3 1 5 6 8\n"
                               "4 1 2 8 6\n5 1 3 8 4\n6 1 5 8 7\n";

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    fuzz_write("sheet.obj", (const uint8_t *)sheet_obj, sizeof sheet_obj - 1);
    fuzz_write("octa.obj", (const uint8_t *)octa_obj, sizeof octa_obj - 1);
    fuzz_write("cube.node", (const uint8_t *)cube_node, sizeof cube_node - 1);
    fuzz_write("cube.ele", (const uint8_t *)cube_ele, sizeof cube_ele - 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[600];
    snprintf(path, sizeof path, "%s", fuzz_write("scene.ini", data, size));
    const weft_cli cli = {.scene = path, .steps = -1, .plot_step = -1}; /* no overrides */
    weft_error err = {{0}};
    weft_model m;
    int rc = weft_cli_build(&cli, &m, NULL, &err);
    fuzz_note(rc, err.msg);
    if (rc == WEFT_OK) weft_model_free(&m);
    return 0;
}
