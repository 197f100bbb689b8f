/* fuzz_obj.c — libFuzzer target: the input is an OBJ file for weft_mesh_read_obj (lib/mesh/
 * obj.c), followed by its topology build. A mesh that reads must also write and read back
 * to the same arrays (the writer promises that, with %.17g coordinates). */
#include "fuzz_util.h"
#include "weft.h"

static void same_or_abort(bool same, const char *what) {
    if (same) return;
    fprintf(stderr, "fuzz_obj: the written mesh reads back with different %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char in[600];
    snprintf(in, sizeof in, "%s", fuzz_write("in.obj", data, size));
    weft_mesh m, back;
    weft_error err = {{0}};
    int rc = weft_mesh_read_obj(&m, in, &err);
    fuzz_note(rc, err.msg);
    if (rc != WEFT_OK) return 0;
    char out[600];
    snprintf(out, sizeof out, "%s/out.obj", fuzz_dir());
    if (weft_mesh_write_obj(&m, NULL, out, &err) != WEFT_OK) {
        fprintf(stderr, "fuzz_obj: a mesh that was read cannot be written: %s\n", err.msg);
        abort();
    }
    if (weft_mesh_read_obj(&back, out, &err) != WEFT_OK) {
        fprintf(stderr, "fuzz_obj: a written mesh does not read back: %s\n", err.msg);
        abort();
    }
    same_or_abort(back.nv == m.nv && back.nt == m.nt && back.nuv == m.nuv, "counts");
    same_or_abort(!memcmp(back.x, m.x, 3 * (size_t)m.nv * sizeof *m.x), "positions");
    same_or_abort(!memcmp(back.tri, m.tri, 3 * (size_t)m.nt * sizeof *m.tri), "triangles");
    same_or_abort(back.ne == m.ne && back.nh == m.nh, "edges or hinges");
    weft_mesh_free(&back);
    weft_mesh_free(&m);
    return 0;
}
