/* log.c — the per-iteration text log of docs/architecture.md: '#' metadata lines, then a '#'
 * header naming the columns, then whitespace-separated rows. The file is written as
 * "<path>.partial" and renamed to <path> only when the run completes, so an interrupted
 * or failed run never leaves a file that looks complete; its last line then says
 * "# status=incomplete reason=...". */
#include "weft.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef WEFT_GIT
#define WEFT_GIT "unknown"
#endif
#ifndef WEFT_BUILD_TYPE
#define WEFT_BUILD_TYPE "unknown"
#endif

struct weft_log {
    FILE *f;
    char *path;    /* final path */
    char *partial; /* path being written */
};

/* The column header; plots find columns by these names. */
static const char *const metric_columns =
    "step iter wall_s residual residual_rel cmax crms energy volume";

weft_log *weft_log_open(const char *path, const char *const *meta, weft_error *err) {
    return weft_log_open_columns(path, meta, metric_columns, err);
}

weft_log *weft_log_open_columns(const char *path, const char *const *meta, const char *columns,
                                weft_error *err) {
    weft_log *l = calloc(1, sizeof *l);
    size_t n = strlen(path);
    if (!l || !(l->path = malloc(n + 1)) || !(l->partial = malloc(n + 9))) {
        if (l) free(l->path);
        free(l);
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(l->path, path, n + 1);
    snprintf(l->partial, n + 9, "%s.partial", path);
    l->f = fopen(l->partial, "w");
    if (!l->f) {
        weft_fail(err, WEFT_ERR_IO, "%s: cannot write: %s", l->partial, strerror(errno));
        free(l->path), free(l->partial), free(l);
        return NULL;
    }
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(l->f, "# weft %s  git=%s  build=%s  date=%s\n", WEFT_VERSION, WEFT_GIT,
            WEFT_BUILD_TYPE, date);
    fprintf(l->f, "# status=running (a finished run ends with '# status=complete')\n");
    for (; meta && *meta; meta++) fprintf(l->f, "# %s\n", *meta);
    fprintf(l->f, "# %s\n", columns);
    return l;
}

void weft_log_row(weft_log *l, int step, int iter, double wall_s, const weft_metrics *mm) {
    if (!l) return;
    fprintf(l->f, "%d %d %.6f %.10e %.10e %.10e %.10e %.10e %.10e\n", step, iter, wall_s,
            mm->residual, mm->residual_rel, mm->cmax, mm->crms, mm->energy, mm->volume);
}

void weft_log_printf(weft_log *l, const char *fmt, ...) {
    if (!l) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(l->f, fmt, ap);
    va_end(ap);
}

int weft_log_close(weft_log **pl, bool complete, const char *reason, weft_error *err) {
    if (!pl || !*pl) return WEFT_OK;
    weft_log *l = *pl;
    *pl = NULL;
    int rc = WEFT_OK;
    if (complete)
        fprintf(l->f, "# status=complete\n");
    else
        fprintf(l->f, "# status=incomplete reason=%s\n", reason ? reason : "unknown");
    if (ferror(l->f) | (fclose(l->f) != 0)) {
        rc = weft_fail(err, WEFT_ERR_IO, "%s: write failed", l->partial);
    } else if (complete && rename(l->partial, l->path) != 0) {
        rc = weft_fail(err, WEFT_ERR_IO, "%s: cannot rename to %s: %s", l->partial, l->path,
                       strerror(errno));
    }
    free(l->path), free(l->partial), free(l);
    return rc;
}
