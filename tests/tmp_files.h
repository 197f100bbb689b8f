/* tmp_files.h — scratch files for tests that write scenes, meshes or TetGen files: a
 * fresh directory under /tmp per case, and helpers that write text into it, failing the
 * case (CHECK) when the file system refuses. */
#ifndef WEFT_TMP_FILES_H
#define WEFT_TMP_FILES_H

#include "check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A temporary directory for one case's files. */
typedef struct tmp_dir {
    char path[64];
} tmp_dir;

/* Creates a fresh directory under /tmp. */
static inline bool tmp_open(tmp_dir *d) {
    strcpy(d->path, "/tmp/weft_test_XXXXXX");
    bool ok = mkdtemp(d->path) != NULL;
    CHECK(ok);
    return ok;
}

/* Path of the file `name` inside d (in buf). */
static inline const char *tmp_file(const tmp_dir *d, const char *name, char *buf, size_t n) {
    snprintf(buf, n, "%s/%s", d->path, name);
    return buf;
}

/* Writes text to path, failing the case if it cannot. */
static inline void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    CHECK(fclose(f) == 0);
}

/* Writes text to d/name and returns the path in buf. */
static inline const char *write_file(const tmp_dir *d, const char *name, const char *text,
                                     char *buf, size_t n) {
    write_text(tmp_file(d, name, buf, n), text);
    return buf;
}

#endif
