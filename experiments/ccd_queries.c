/* ccd_queries.c — the reader of CCD query files (ccd_queries.h): one query per data line,
 * every field checked, errors as "path:line: field NAME: what". Shared by ccd_benchmark
 * and the fuzz target tests/fuzz/fuzz_ccd.c. */
#include "ccd_queries.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NFIELDS = 26 }; /* query_id, ground_truth, 8 points × 3 coordinates */

/* Name of field f (0-based) of a line, e.g. "f1_t0.y", for error messages. */
static void field_name(bool edge_edge, int f, char *buf, size_t n) {
    static const char *vf[8] = {"v_t0", "f0_t0", "f1_t0", "f2_t0",
                                "v_t1", "f0_t1", "f1_t1", "f2_t1"};
    static const char *ee[8] = {"a0_t0", "a1_t0", "b0_t0", "b1_t0",
                                "a0_t1", "a1_t1", "b0_t1", "b1_t1"};
    if (f == 0)
        snprintf(buf, n, "query_id");
    else if (f == 1)
        snprintf(buf, n, "ground_truth");
    else
        snprintf(buf, n, "%s.%c", (edge_edge ? ee : vf)[(f - 2) / 3], "xyz"[(f - 2) % 3]);
}

/* Parses one data line into q; WEFT_OK or WEFT_ERR_INPUT with the message in err. */
static int parse_line(char *text, const char *path, int line, bool edge_edge, weft_ccd_query *q,
                      weft_error *err) {
    char *tok[NFIELDS + 1], *save = NULL;
    int n = 0;
    for (char *s = strtok_r(text, " \t\r\n", &save); s; s = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == NFIELDS) {
            n++;
            break;
        }
        tok[n++] = s;
    }
    if (n != NFIELDS)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%d: expected %d fields (query_id "
                         "ground_truth and 24 coordinates), found %s%d",
                         path, line, NFIELDS, n > NFIELDS ? "more than " : "",
                         n > NFIELDS ? NFIELDS : n);
    char name[32], *end;
    errno = 0;
    q->id = strtol(tok[0], &end, 10);
    if (*end || end == tok[0] || errno)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%d: field query_id: '%.40s' is not an "
                         "integer",
                         path, line, tok[0]);
    if (strcmp(tok[1], "0") != 0 && strcmp(tok[1], "1") != 0)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%d: field ground_truth: '%.40s' is not 0 "
                         "or 1",
                         path, line, tok[1]);
    q->truth = tok[1][0] - '0';
    for (int f = 2; f < NFIELDS; f++) {
        errno = 0;
        double v = strtod(tok[f], &end);
        if (*end || end == tok[f] || !isfinite(v)) {
            field_name(edge_edge, f, name, sizeof name);
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s:%d: field %s: '%.40s' is not a finite "
                             "number",
                             path, line, name, tok[f]);
        }
        q->x[f - 2] = v;
    }
    q->line = line;
    return WEFT_OK;
}

int weft_ccd_read_queries(const char *path, bool edge_edge, weft_ccd_query **out, weft_error *err) {
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp) return weft_fail(err, WEFT_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    weft_ccd_query *qs = NULL;
    int n = 0, cap = 0, line = 0, rc = WEFT_OK;
    char *text = NULL;
    size_t size = 0;
    while (getline(&text, &size, fp) != -1) {
        if (line == INT_MAX) {
            rc = weft_fail(err, WEFT_ERR_INPUT, "%s: more than %d lines", path, INT_MAX);
            break;
        }
        line++;
        const char *s = text + strspn(text, " \t\r\n");
        if (*s == '#' || *s == '\0') continue; /* comment or blank */
        if (n == cap) {
            if (n == WEFT_CCD_MAX_QUERIES) {
                rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%d: more than %d queries (the limit)", path,
                               line, WEFT_CCD_MAX_QUERIES);
                break;
            }
            cap = cap ? 2 * cap : 1024;
            weft_ccd_query *grown = realloc(qs, (size_t)cap * sizeof *qs);
            if (!grown) {
                rc = weft_fail(err, WEFT_ERR_NOMEM, "%s:%d: out of memory", path, line);
                break;
            }
            qs = grown;
        }
        if ((rc = parse_line(text, path, line, edge_edge, &qs[n], err)) != WEFT_OK) break;
        n++;
    }
    if (rc == WEFT_OK && ferror(fp))
        rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%d: read error: %s", path, line + 1,
                       strerror(errno));
    if (rc == WEFT_OK && n == 0)
        rc = weft_fail(err, WEFT_ERR_INPUT, "%s: no queries (only comments or blank lines)", path);
    free(text);
    fclose(fp);
    if (rc != WEFT_OK) {
        free(qs);
        return rc;
    }
    *out = qs;
    return n;
}

double weft_ccd_query_diagonal(const double *x) {
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double lo = x[k], hi = x[k];
        for (int i = 1; i < 8; i++) lo = fmin(lo, x[3 * i + k]), hi = fmax(hi, x[3 * i + k]);
        d2 += (hi - lo) * (hi - lo);
    }
    return sqrt(d2);
}
