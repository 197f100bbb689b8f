/* fuzz_util.h — what the libFuzzer targets of tests/fuzz share: a private scratch
 * directory and writing the fuzzer's bytes to a file in it, because weft's readers take
 * paths (the path every binary takes). Only the fuzz targets include this. */
#ifndef WEFT_FUZZ_UTIL_H
#define WEFT_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The process's scratch directory, created on first use under $TMPDIR (else /tmp) and
 * removed with its files at exit. Aborts if it cannot be made: a fuzzer without its
 * directory would only report bogus errors. */
static inline const char *fuzz_dir(void);

/* Writes size bytes to NAME in fuzz_dir(); returns its path, in a buffer the next call
 * overwrites. Aborts on failure. */
static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size);

static char fuzz_dir_path[256];

static inline void fuzz_dir_remove(void) {
    char cmd[300];
    if (!fuzz_dir_path[0]) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_path);
    if (system(cmd) != 0) fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir_path);
}

static inline const char *fuzz_dir(void) {
    if (fuzz_dir_path[0]) return fuzz_dir_path;
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/weft-fuzz-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fuzz_dir_path)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(fuzz_dir_remove);
    return fuzz_dir_path;
}

static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

/* With WEFT_FUZZ_VERBOSE set (when checking what a seed reaches), prints why an input
 * was refused, or "accepted". */
static inline void fuzz_note(int rc, const char *msg) {
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("WEFT_FUZZ_VERBOSE") != NULL;
    if (verbose) fprintf(stderr, "fuzz: %s\n", rc == 0 ? "accepted" : msg);
}

#endif
