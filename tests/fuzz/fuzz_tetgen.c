/* fuzz_tetgen.c — libFuzzer target: one input holds a TetGen .node file, a line "---",
 * then the .ele file (no separator: all of it is the .node file and the .ele is empty);
 * weft_mesh_read_tetgen (lib/mesh/tetmesh.c) reads the pair and builds its surface. */
#include "fuzz_util.h"
#include "weft.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char sep[] = "\n---\n";
    const size_t len = sizeof sep - 1;
    size_t node_len = size, ele_at = size;
    for (size_t i = 0; i + len <= size; i++)
        if (!memcmp(data + i, sep, len)) {
            node_len = i + 1; /* keep the .node file's last newline */
            ele_at = i + len;
            break;
        }
    fuzz_write("in.node", data, node_len);
    fuzz_write("in.ele", data + ele_at, size - ele_at);
    char stem[600];
    snprintf(stem, sizeof stem, "%s/in", fuzz_dir());
    weft_mesh m;
    weft_error err = {{0}};
    int rc = weft_mesh_read_tetgen(&m, stem, &err);
    fuzz_note(rc, err.msg);
    if (rc == WEFT_OK) {
        /* The reader's promise: every tetrahedron positive, the surface closed. */
        for (int t = 0; t < m.ntet; t++)
            if (!(weft_mesh_tet_volume(&m, NULL, t) > 0.0)) {
                fprintf(stderr, "fuzz_tetgen: tetrahedron %d has volume <= 0\n", t);
                abort();
            }
        weft_mesh_free(&m);
    }
    return 0;
}
