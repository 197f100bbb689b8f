/* ccd_queries.h — reading the CCD query files of the benchmark of Wang et al. 2021 (format
 * in tests/data/ccd/README.md): '#' comment lines, then per line a query id, the ground
 * truth (0 or 1) and 24 coordinates, the four points at t = 0 then at t = 1 (m). */
#ifndef WEFT_CCD_QUERIES_H
#define WEFT_CCD_QUERIES_H

#include "weft.h"

/* Most queries one file may hold (about 450 MB of queries), checked before growing. */
#define WEFT_CCD_MAX_QUERIES (1 << 21)

/* One parsed query. */
typedef struct weft_ccd_query {
    long id;
    int truth;    /* 1 when the primitives touch at some t in [0, 1] */
    int line;     /* 1-based line in the file */
    double x[24]; /* the four points at t = 0, then at t = 1, m */
} weft_ccd_query;

/* Reads every query of path into *out (malloc'd; the caller frees it). edge_edge only
 * names the fields in messages. Returns the count (>= 1), or WEFT_ERR_INPUT/NOMEM with
 * "path:line: field NAME: ..." in err. */
int weft_ccd_read_queries(const char *path, bool edge_edge, weft_ccd_query **out, weft_error *err);

/* Diagonal of the bounding box of a query's eight points x[24], m: the scale that a
 * relative contact tolerance multiplies. */
double weft_ccd_query_diagonal(const double *x);

#endif
