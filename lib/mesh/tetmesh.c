/* tetmesh.c — tetrahedral meshes: the generated block (every cube split into six
 * tetrahedra around its main diagonal, the Freudenthal or Kuhn triangulation: Kuhn 1960,
 * "Some combinatorial lemmas in topology"), the TetGen .node/.ele reader (the formats of
 * the TetGen 1.4 manual, Si 2006, §4.1.1 and §4.1.5), signed volumes, and the boundary
 * surface whose triangles lib/mesh/mesh.c turns into edges and hinges.
 *
 * Orientation: tetrahedron (x0, x1, x2, x3) is positive when
 *   det[x1 − x0, x2 − x0, x3 − x0] > 0,
 * that is, x3 lies on the side of triangle (x0, x1, x2) that (x1 − x0) × (x2 − x0) points to.
 * Its four faces, counter-clockwise seen from outside, are then (see `face_corner`)
 *   (x1, x2, x3), (x0, x3, x2), (x0, x1, x3), (x0, x2, x1).
 * In a conforming mesh of positive tetrahedra every interior face belongs to two
 * tetrahedra that run it in opposite directions, and the faces of exactly one tetrahedron
 * form the boundary, oriented outward; by the divergence theorem the volume it encloses
 * (weft_mesh_volume) is then the sum of the tetrahedra's volumes.
 *
 * TetGen files whose tetrahedra are all (or partly) negatively oriented are accepted:
 * the reader swaps the last two corners of each negative tetrahedron, which makes it
 * positive without moving it. A tetrahedron inverted *relative to its neighbours* (a
 * folded mesh) cannot be repaired that way; it is found afterwards, because it then runs a
 * shared face in the same direction as its neighbour, and the mesh is refused.
 * Vertex and tetrahedron numbers in messages are 1-based unless the message quotes a
 * TetGen file, where they are the file's own numbers.
 */
#include "weft.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Corners of face f of a positive tetrahedron, counter-clockwise seen from outside. */
static const int face_corner[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

/* malloc of n elements of size sz, NULL on overflow; never asks for 0 bytes. */
static void *alloc_array(size_t n, size_t sz) {
    if (n == 0) n = 1;
    if (n > SIZE_MAX / sz) return NULL;
    return malloc(n * sz);
}

/* 6 × the signed volume of the tetrahedron with corner indices v at positions x, m^3. */
static double tet_det(const double *x, const int *v) {
    const double *a = &x[3 * v[0]], *b = &x[3 * v[1]], *c = &x[3 * v[2]], *d = &x[3 * v[3]];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double e3[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) +
           e1[2] * (e2[0] * e3[1] - e2[1] * e3[0]);
}

/* Signed volume of tetrahedron t at positions x (the rest positions if NULL), m^3. */
double weft_mesh_tet_volume(const weft_mesh *m, const double *x, int t) {
    return tet_det(x ? x : m->x, &m->tet[4 * t]) / 6.0;
}

/* "where:line" of tetrahedron t when the mesh knows its source lines, else "where". */
static const char *tet_where(const weft_mesh *m, int t, const char *where, char *buf, size_t n) {
    if (!m->tet_line) return where;
    snprintf(buf, n, "%s:%d", where, m->tet_line[t]);
    return buf;
}

/* Checks tetrahedron t's indices and volume; *det gets 6 × its signed volume. A volume
 * below 1e-14 × (longest edge)³ counts as zero: rounding of exactly coplanar corners
 * stays far below that, whatever the mesh's scale. */
static int check_tet(const weft_mesh *m, int t, const char *where, double *det,
                     weft_error *err) {
    char buf[600];
    const int *v = &m->tet[4 * t];
    for (int a = 0; a < 4; a++)
        if (v[a] < 0 || v[a] >= m->nv)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: tetrahedron %d (1-based) has vertex index %d out of range "
                             "(%d vertices)",
                             tet_where(m, t, where, buf, sizeof buf), t + 1, v[a] + 1, m->nv);
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            if (v[a] == v[b])
                return weft_fail(err, WEFT_ERR_INPUT,
                                 "%s: degenerate tetrahedron %d (1-based): vertex %d repeated",
                                 tet_where(m, t, where, buf, sizeof buf), t + 1, v[a] + 1);
    double l2 = 0.0;
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++) {
            double d2 = 0.0;
            for (int k = 0; k < 3; k++) {
                double d = m->x[3 * v[a] + k] - m->x[3 * v[b] + k];
                d2 += d * d;
            }
            l2 = fmax(l2, d2);
        }
    *det = tet_det(m->x, v);
    if (!(fabs(*det) > 1e-14 * l2 * sqrt(l2)))
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s: degenerate tetrahedron %d (1-based): zero volume, its corners are "
                         "coplanar",
                         tet_where(m, t, where, buf, sizeof buf), t + 1);
    return WEFT_OK;
}

/* One face of one tetrahedron: its corners sorted, and the parity of the permutation
 * that sorts them (faces run in opposite directions have opposite parities). */
typedef struct tet_face {
    int v[3]; /* sorted vertex indices */
    int t, f; /* tetrahedron and face (face_corner row) */
    int odd;  /* 1 if sorting the outward corners takes an odd permutation */
} tet_face;

/* Orders faces by their sorted corners, then tetrahedron and face: a total order. */
static int cmp_face(const void *pa, const void *pb) {
    const tet_face *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return (a->f > b->f) - (a->f < b->f);
}

/* Replaces m's triangles by the boundary of its tetrahedra (faces of exactly one, outward)
 * and derives their topology; fails naming the tetrahedron if one is out of range,
 * degenerate or inverted, or if a face has more than two, or two same-side, tetrahedra.
 * Material coordinates and the grid layout are dropped: they describe surfaces. */
int weft_mesh_tet_surface(weft_mesh *m, const char *where, weft_error *err) {
    if (!where) where = "mesh";
    if (m->ntet <= 0 || !m->tet || m->nv <= 0 || !m->x)
        return weft_fail(err, WEFT_ERR_INPUT, "%s: no tetrahedra (%d vertices, %d tetrahedra)",
                         where, m->nv, m->ntet);
    /* 4 faces per tetrahedron, and mesh.c's bound of 6 ints per triangle. */
    if (m->ntet > INT_MAX / 24 || m->nv > INT_MAX / 3)
        return weft_fail(err, WEFT_ERR_INPUT, "%s: too many tetrahedra or vertices", where);
    for (int i = 0; i < 3 * m->nv; i++)
        if (!isfinite(m->x[i]))
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: vertex %d (1-based) has a non-finite position", where,
                             i / 3 + 1);
    char buf[600];
    for (int t = 0; t < m->ntet; t++) {
        double det;
        int rc = check_tet(m, t, where, &det, err);
        if (rc != WEFT_OK) return rc;
        if (det < 0.0)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: inverted tetrahedron %d (1-based): det[x1-x0, x2-x0, x3-x0] "
                             "< 0",
                             tet_where(m, t, where, buf, sizeof buf), t + 1);
    }

    const int nf = 4 * m->ntet;
    tet_face *face = alloc_array((size_t)nf, sizeof *face);
    unsigned char *outer = calloc((size_t)nf, 1);
    if (!face || !outer) {
        free(face), free(outer);
        return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory finding the surface", where);
    }
    for (int t = 0; t < m->ntet; t++) {
        for (int f = 0; f < 4; f++) {
            tet_face *q = &face[4 * t + f];
            int a = m->tet[4 * t + face_corner[f][0]], b = m->tet[4 * t + face_corner[f][1]],
                c = m->tet[4 * t + face_corner[f][2]];
            q->odd = ((a > b) + (a > c) + (b > c)) & 1; /* inversions of (a, b, c) */
            /* Sort three values with three compare-exchanges. */
            if (a > b) { int s = a; a = b, b = s; }
            if (b > c) { int s = b; b = c, c = s; }
            if (a > b) { int s = a; a = b, b = s; }
            q->v[0] = a, q->v[1] = b, q->v[2] = c;
            q->t = t, q->f = f;
        }
    }
    qsort(face, (size_t)nf, sizeof *face, cmp_face);

    int nt = 0, rc = WEFT_OK;
    for (int i = 0; i < nf && rc == WEFT_OK;) {
        int j = i + 1;
        while (j < nf && !memcmp(face[j].v, face[i].v, sizeof face[i].v)) j++;
        const tet_face *p = &face[i];
        if (j - i > 2) {
            rc = weft_fail(err, WEFT_ERR_INPUT,
                           "%s: face %d-%d-%d (1-based vertices) is shared by %d tetrahedra",
                           tet_where(m, face[i + 2].t, where, buf, sizeof buf), p->v[0] + 1,
                           p->v[1] + 1, p->v[2] + 1, j - i);
        } else if (j - i == 2 && face[i].odd == face[i + 1].odd) {
            rc = weft_fail(err, WEFT_ERR_INPUT,
                           "%s: tetrahedra %d and %d (1-based) lie on the same side of their "
                           "shared face %d-%d-%d: one is inverted or they overlap",
                           tet_where(m, face[i + 1].t, where, buf, sizeof buf), p->t + 1,
                           face[i + 1].t + 1, p->v[0] + 1, p->v[1] + 1, p->v[2] + 1);
        } else if (j - i == 1) {
            outer[4 * p->t + p->f] = 1;
            nt++;
        }
        i = j;
    }
    free(face);
    int *tri = rc == WEFT_OK ? alloc_array(3 * (size_t)nt, sizeof *tri) : NULL;
    int *tri_line = rc == WEFT_OK && m->tet_line ? alloc_array((size_t)nt, sizeof *tri_line)
                                                 : NULL;
    if (rc == WEFT_OK && (!tri || (m->tet_line && !tri_line)))
        rc = weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory finding the surface", where);
    if (rc != WEFT_OK) {
        free(outer), free(tri), free(tri_line);
        return rc;
    }
    /* Boundary faces in tetrahedron order, so the surface keeps the volume's locality. */
    int k = 0;
    for (int t = 0; t < m->ntet; t++)
        for (int f = 0; f < 4; f++) {
            if (!outer[4 * t + f]) continue;
            for (int c = 0; c < 3; c++) tri[3 * k + c] = m->tet[4 * t + face_corner[f][c]];
            if (tri_line) tri_line[k] = m->tet_line[t];
            k++;
        }
    free(outer);

    free(m->tri), free(m->tri_uv), free(m->uv), free(m->tri_line);
    m->tri = tri;
    m->tri_line = tri_line;
    m->tri_uv = NULL;
    m->uv = NULL;
    m->nuv = 0;
    m->nt = nt;
    m->grid_nx = m->grid_ny = 0;
    return weft_mesh_build_topology(m, where, err);
}

/* Fills m with a box of size[0] x size[1] x size[2] m from origin (NULL: the origin),
 * cells[0..2] cubes along x, y, z, six tetrahedra each, and its boundary surface.
 * Vertex (i, j, k) is i + (nx+1) (j + (ny+1) k). Each cell's tetrahedra follow the six
 * monotone paths from its corner (0,0,0) to (1,1,1), one per order of the axes; every
 * cell face is then cut along the diagonal from its lowest to its highest corner, so
 * the faces of neighbouring cells match. m's previous contents are overwritten, not
 * freed; on failure m is left zeroed. */
int weft_mesh_tet_block(weft_mesh *m, const double size[3], const int cells[3],
                        const double origin[3], weft_error *err) {
    memset(m, 0, sizeof *m);
    if (!size || !cells) return weft_fail(err, WEFT_ERR_INPUT, "tet_block: no size or cells");
    const double zero[3] = {0, 0, 0};
    if (!origin) origin = zero;
    for (int a = 0; a < 3; a++) {
        if (!(isfinite(size[a]) && size[a] > 0))
            return weft_fail(err, WEFT_ERR_INPUT,
                             "tet_block: size must be finite and > 0 (got %g x %g x %g m)",
                             size[0], size[1], size[2]);
        if (cells[a] < 1)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "tet_block: cells must be >= 1 along each axis (got %d x %d x %d)",
                             cells[0], cells[1], cells[2]);
        if (!isfinite(origin[a]))
            return weft_fail(err, WEFT_ERR_INPUT, "tet_block: origin must be finite");
    }
    const int nx = cells[0], ny = cells[1], nz = cells[2];
    long long nv = (long long)(nx + 1LL) * (ny + 1LL) * (nz + 1LL);
    long long ntet = 6LL * nx * ny * nz;
    if (nx >= INT_MAX || ny >= INT_MAX || nz >= INT_MAX || nv > INT_MAX / 3 ||
        ntet > INT_MAX / 24)
        return weft_fail(err, WEFT_ERR_INPUT, "tet_block: %d x %d x %d cells is too many", nx,
                         ny, nz);
    if (nv > WEFT_MAX_VERTICES || ntet > WEFT_MAX_ELEMENTS)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "tet_block: %d x %d x %d cells (%lld vertices, %lld tetrahedra) is "
                         "beyond the limit of %d vertices and %d tetrahedra (WEFT_MAX_VERTICES, "
                         "WEFT_MAX_ELEMENTS)", nx, ny, nz, nv, ntet, WEFT_MAX_VERTICES,
                         WEFT_MAX_ELEMENTS);
    m->x = alloc_array(3 * (size_t)nv, sizeof *m->x);
    m->tet = alloc_array(4 * (size_t)ntet, sizeof *m->tet);
    if (!m->x || !m->tet) {
        weft_mesh_free(m);
        return weft_fail(err, WEFT_ERR_NOMEM, "tet_block: out of memory for %d x %d x %d cells",
                         nx, ny, nz);
    }
    m->nv = (int)nv;
    m->ntet = (int)ntet;
    for (int k = 0; k <= nz; k++)
        for (int j = 0; j <= ny; j++)
            for (int i = 0; i <= nx; i++) {
                double *p = &m->x[3 * (i + (nx + 1) * (j + (ny + 1) * k))];
                /* (i/n) size can miss size by an ulp at i = n: the far faces get it exactly,
                 * so that they are planes a box pin or a test can compare against. */
                p[0] = origin[0] + (i == nx ? size[0] : (double)i * size[0] / nx);
                p[1] = origin[1] + (j == ny ? size[1] : (double)j * size[1] / ny);
                p[2] = origin[2] + (k == nz ? size[2] : (double)k * size[2] / nz);
            }
    /* The six orders of the axes; det[e_p0, e_p0+e_p1, e_p0+e_p1+e_p2] = sign(p), so the
     * odd ones get their last two corners swapped. */
    static const int order[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                    {0, 2, 1}, {1, 0, 2}, {2, 1, 0}};
    const int step[3] = {1, nx + 1, (nx + 1) * (ny + 1)};
    int *tet = m->tet;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                int c0 = i + (nx + 1) * (j + (ny + 1) * k);
                for (int p = 0; p < 6; p++) {
                    int v1 = c0 + step[order[p][0]], v2 = v1 + step[order[p][1]],
                        v3 = v2 + step[order[p][2]];
                    tet[0] = c0, tet[1] = v1;
                    tet[2] = p < 3 ? v2 : v3;
                    tet[3] = p < 3 ? v3 : v2;
                    tet += 4;
                }
            }
    int rc = weft_mesh_tet_surface(m, "tet_block", err);
    if (rc != WEFT_OK) weft_mesh_free(m);
    return rc;
}

/* ------------------------------------------------------------------------------ */
/* TetGen .node / .ele                                                             */
/* ------------------------------------------------------------------------------ */

/* A TetGen file read line by line: each data line split into whitespace tokens, with
 * '#' comments and blank lines skipped. */
typedef struct tg_file {
    const char *path;
    FILE *f;
    long line;       /* 1-based number of the current line */
    char *text;      /* the current line */
    size_t text_cap;
    char **tok;      /* its tokens */
    int ntok;
    size_t tok_cap;
} tg_file;

/* Opens path; fails with "path: cannot open: reason". */
static int tg_open(tg_file *r, const char *path, weft_error *err) {
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = fopen(path, "r");
    if (!r->f) return weft_fail(err, WEFT_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    return WEFT_OK;
}

static void tg_close(tg_file *r) {
    if (r->f) fclose(r->f);
    free(r->text);
    free(r->tok);
    memset(r, 0, sizeof *r);
}

/* Reads up to the next line with data: 1 when there is one (tokens in r->tok), 0 at the
 * end of the file, or an error code. */
static int tg_next(tg_file *r, weft_error *err) {
    for (;;) {
        errno = 0;
        ssize_t len = getline(&r->text, &r->text_cap, r->f);
        if (len < 0) {
            if (ferror(r->f) || !feof(r->f))
                return weft_fail(err, errno == ENOMEM ? WEFT_ERR_NOMEM : WEFT_ERR_INPUT,
                                 "%s:%ld: cannot read: %s", r->path, r->line + 1,
                                 strerror(errno ? errno : EIO));
            return 0;
        }
        r->line++;
        if (strlen(r->text) != (size_t)len)
            return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: NUL byte in line (not a text file?)",
                             r->path, r->line);
        char *hash = strchr(r->text, '#');
        if (hash) *hash = '\0';
        r->ntok = 0;
        char *save = NULL;
        for (char *t = strtok_r(r->text, " \t\r\n\v\f", &save); t;
             t = strtok_r(NULL, " \t\r\n\v\f", &save)) {
            if ((size_t)r->ntok == r->tok_cap) {
                size_t cap = r->tok_cap ? 2 * r->tok_cap : 16;
                char **tok = realloc(r->tok, cap * sizeof *tok);
                if (!tok)
                    return weft_fail(err, WEFT_ERR_NOMEM, "%s:%ld: out of memory", r->path,
                                     r->line);
                r->tok = tok, r->tok_cap = cap;
            }
            if (r->ntok == INT_MAX)
                return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: too many values", r->path, r->line);
            r->tok[r->ntok++] = t;
        }
        if (r->ntok > 0) return 1;
    }
}

/* Parses the whole token s as an integer; false if it is not one or overflows a long. */
static bool tg_long(const char *s, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE) return false;
    *out = v;
    return true;
}

/* Parses the whole token s as a finite double. */
static bool tg_double(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* Checks the index (first value) of data line `k` (0-based) of a list whose numbering
 * starts at *first: the first line sets it (TetGen numbers from 0 or 1), the others must
 * count up from it. */
static int tg_index(const tg_file *r, const char *what, long k, long *first, weft_error *err) {
    long idx;
    if (!tg_long(r->tok[0], &idx))
        return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: bad %s number '%.40s' (expected an "
                         "integer)", r->path, r->line, what, r->tok[0]);
    if (k == 0) {
        if (idx != 0 && idx != 1)
            return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: the first %s is numbered %ld; "
                             "TetGen numbers from 0 or 1", r->path, r->line, what, idx);
        *first = idx;
    } else if (idx != *first + k) {
        return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: %s numbered %ld, expected %ld (numbers "
                         "must count up from %ld)", r->path, r->line, what, idx, *first + k,
                         *first);
    }
    return WEFT_OK;
}

/* Fails unless the current line has exactly `want` values. */
static int tg_count(const tg_file *r, long want, const char *layout, weft_error *err) {
    if (r->ntok == want) return WEFT_OK;
    return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: expected %ld values (%s), got %d", r->path,
                     r->line, want, layout, r->ntok);
}

/* Returns p grown to hold at least need elements of size sz (doubling *cap), or NULL. */
static void *grow(void *p, size_t *cap, size_t need, size_t sz) {
    if (need <= *cap) return p;
    size_t n = *cap ? *cap : 256;
    while (n < need) {
        if (n > SIZE_MAX / 2 / sz) return NULL;
        n *= 2;
    }
    void *q = realloc(p, n * sz);
    if (q) *cap = n;
    return q;
}

/* After the announced lines: anything more is an error (a wrong count in the header). */
static int tg_expect_end(tg_file *r, long n, const char *what, long header_line,
                         weft_error *err) {
    int got = tg_next(r, err);
    if (got < 0) return got;
    if (got > 0)
        return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: more data after the %ld %s that the "
                         "header (line %ld) announces", r->path, r->line, n, what, header_line);
    return WEFT_OK;
}

/* Reads the header line of a TetGen file into vals[0..nvals-1] (which keep their defaults
 * where the line is shorter): each an integer in [lo[k], hi[k]]. */
static int tg_header(tg_file *r, int nvals, const char *const *what, const long *lo,
                     const long *hi, long *vals, const char *layout, weft_error *err) {
    int got = tg_next(r, err);
    if (got < 0) return got;
    if (got == 0)
        return weft_fail(err, WEFT_ERR_INPUT, "%s: empty file (expected the header '%s')",
                         r->path, layout);
    if (r->ntok > nvals)
        return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: header has %d values; expected '%s'",
                         r->path, r->line, r->ntok, layout);
    for (int k = 0; k < r->ntok; k++) {
        long v;
        if (!tg_long(r->tok[k], &v))
            return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: bad %s '%.40s' in the header "
                             "(expected an integer)", r->path, r->line, what[k], r->tok[k]);
        if (v < lo[k] || v > hi[k])
            return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: bad %s %ld in the header (must lie "
                             "in [%ld, %ld])", r->path, r->line, what[k], v, lo[k], hi[k]);
        vals[k] = v;
    }
    return WEFT_OK;
}

/* Reads the .node file: "<points> [3 [<attributes> [<markers 0|1>]]]", then per point
 * "<index> <x> <y> <z> <attributes...> [<marker>]". Sets m->nv, m->x and *first. */
static int read_node(weft_mesh *m, const char *path, long *first, weft_error *err) {
    static const char *const what[4] = {"point count", "dimension", "attribute count",
                                        "boundary marker flag"};
    static const long lo[4] = {1, 3, 0, 0}, hi[4] = {WEFT_MAX_VERTICES, 3, INT_MAX - 5, 1};
    static const char *const axis[3] = {"x", "y", "z"};
    tg_file r;
    int rc = tg_open(&r, path, err);
    if (rc != WEFT_OK) return rc;
    long h[4] = {0, 3, 0, 0}; /* points, dimension, attributes, markers */
    rc = tg_header(&r, 4, what, lo, hi, h, "<points> 3 <attributes> <boundary markers>", err);
    const long np = h[0], nattr = h[2], nmark = h[3], header_line = r.line;
    char layout[96];
    snprintf(layout, sizeof layout, "index, x, y, z, %ld attribute(s), %ld boundary marker(s)",
             nattr, nmark);
    size_t cap = 0;
    for (long k = 0; k < np && rc == WEFT_OK; k++) {
        int got = tg_next(&r, err);
        if (got <= 0) {
            rc = got < 0 ? got : weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: the header announces "
                                           "%ld points but the file ends after %ld", path,
                                           header_line, np, k);
            break;
        }
        if ((rc = tg_count(&r, 4 + nattr + nmark, layout, err)) ||
            (rc = tg_index(&r, "point", k, first, err)))
            break;
        double *x = grow(m->x, &cap, 3 * (size_t)(k + 1), sizeof *x);
        if (!x) {
            rc = weft_fail(err, WEFT_ERR_NOMEM, "%s:%ld: out of memory", path, r.line);
            break;
        }
        m->x = x;
        m->nv = (int)(k + 1);
        for (int a = 0; a < 3 && rc == WEFT_OK; a++)
            if (!tg_double(r.tok[1 + a], &x[3 * k + a]))
                rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: bad number '%.40s' for %s (expected "
                               "a finite number)", path, r.line, r.tok[1 + a], axis[a]);
        for (long a = 0; a < nattr && rc == WEFT_OK; a++) {
            double v;
            if (!tg_double(r.tok[4 + a], &v))
                rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: bad number '%.40s' for attribute "
                               "%ld", path, r.line, r.tok[4 + a], a + 1);
        }
        long marker;
        if (rc == WEFT_OK && nmark && !tg_long(r.tok[4 + nattr], &marker))
            rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: bad boundary marker '%.40s' (expected "
                           "an integer)", path, r.line, r.tok[4 + nattr]);
    }
    if (rc == WEFT_OK) rc = tg_expect_end(&r, np, "points", header_line, err);
    tg_close(&r);
    return rc;
}

/* Reads the .ele file: "<tetrahedra> [<nodes per tetrahedron> [<attributes>]]", then per
 * tetrahedron "<index> <n0> <n1> <n2> <n3> <attributes...>", node numbers counted from
 * `first` as in the .node file. Sets m->ntet, m->tet and m->tet_line. */
static int read_ele(weft_mesh *m, const char *path, long first, weft_error *err) {
    static const char *const what[3] = {"tetrahedron count", "nodes per tetrahedron",
                                        "attribute count"};
    static const long lo[3] = {1, 1, 0}, hi[3] = {WEFT_MAX_ELEMENTS, 100, INT_MAX - 11};
    tg_file r;
    int rc = tg_open(&r, path, err);
    if (rc != WEFT_OK) return rc;
    long h[3] = {0, 4, 0}; /* tetrahedra, nodes per tetrahedron, attributes */
    rc = tg_header(&r, 3, what, lo, hi, h, "<tetrahedra> 4 <attributes>", err);
    const long nt = h[0], corners = h[1], nattr = h[2], header_line = r.line;
    if (rc == WEFT_OK && corners != 4)
        rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: %ld nodes per tetrahedron: weft reads "
                       "linear (4-node) tetrahedra only%s", path, r.line, corners,
                       corners == 10 ? " (run tetgen without -o2)" : "");
    char layout[80];
    snprintf(layout, sizeof layout, "index, 4 nodes, %ld attribute(s)", nattr);
    const long last = first + m->nv - 1;
    size_t cap = 0, line_cap = 0;
    long tfirst = 0;
    for (long k = 0; k < nt && rc == WEFT_OK; k++) {
        int got = tg_next(&r, err);
        if (got <= 0) {
            rc = got < 0 ? got : weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: the header announces "
                                           "%ld tetrahedra but the file ends after %ld", path,
                                           header_line, nt, k);
            break;
        }
        if ((rc = tg_count(&r, 5 + nattr, layout, err)) ||
            (rc = tg_index(&r, "tetrahedron", k, &tfirst, err)))
            break;
        int *tet = grow(m->tet, &cap, 4 * (size_t)(k + 1), sizeof *tet);
        if (tet) m->tet = tet;
        int *tl = tet ? grow(m->tet_line, &line_cap, (size_t)(k + 1), sizeof *tl) : NULL;
        if (tl) m->tet_line = tl;
        if (!tet || !tl) {
            rc = weft_fail(err, WEFT_ERR_NOMEM, "%s:%ld: out of memory", path, r.line);
            break;
        }
        m->ntet = (int)(k + 1);
        tl[k] = r.line > INT_MAX ? INT_MAX : (int)r.line;
        long node[4];
        for (int a = 0; a < 4 && rc == WEFT_OK; a++) {
            if (!tg_long(r.tok[1 + a], &node[a]))
                rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: bad node number '%.40s' (expected "
                               "an integer)", path, r.line, r.tok[1 + a]);
            else if (node[a] < first || node[a] > last)
                rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: node %ld out of range (points are "
                               "numbered %ld..%ld)", path, r.line, node[a], first, last);
            for (int b = 0; b < a && rc == WEFT_OK; b++)
                if (node[b] == node[a])
                    rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: degenerate tetrahedron "
                                   "(node %ld repeated)", path, r.line, node[a]);
            if (rc == WEFT_OK) tet[4 * k + a] = (int)(node[a] - first);
        }
        for (long a = 0; a < nattr && rc == WEFT_OK; a++) {
            double v;
            if (!tg_double(r.tok[5 + a], &v))
                rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: bad number '%.40s' for attribute "
                               "%ld", path, r.line, r.tok[5 + a], a + 1);
        }
    }
    if (rc == WEFT_OK) rc = tg_expect_end(&r, nt, "tetrahedra", header_line, err);
    tg_close(&r);
    return rc;
}

/* Reads a TetGen mesh: path names the .node file, the .ele file or their common stem
 * ("mesh.1" for mesh.1.node and mesh.1.ele). Point numbers count from the first point's
 * number (0 or 1); negatively oriented tetrahedra get their last two nodes swapped.
 * m's previous contents are overwritten, not freed; on failure m is left zeroed. */
int weft_mesh_read_tetgen(weft_mesh *m, const char *path, weft_error *err) {
    memset(m, 0, sizeof *m);
    size_t n = strlen(path);
    if (n >= 5 && strcmp(path + n - 5, ".node") == 0)
        n -= 5;
    else if (n >= 4 && strcmp(path + n - 4, ".ele") == 0)
        n -= 4;
    char *node = malloc(n + sizeof ".node"), *ele = malloc(n + sizeof ".ele");
    if (!node || !ele) {
        free(node), free(ele);
        return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", path);
    }
    memcpy(node, path, n), memcpy(node + n, ".node", sizeof ".node");
    memcpy(ele, path, n), memcpy(ele + n, ".ele", sizeof ".ele");

    long first = 0;
    int rc = read_node(m, node, &first, err);
    if (rc == WEFT_OK) rc = read_ele(m, ele, first, err);
    for (int t = 0; t < m->ntet && rc == WEFT_OK; t++) {
        double det;
        rc = check_tet(m, t, ele, &det, err);
        if (rc == WEFT_OK && det < 0.0) {
            int *v = &m->tet[4 * t];
            int s = v[2];
            v[2] = v[3], v[3] = s;
        }
    }
    if (rc == WEFT_OK) rc = weft_mesh_tet_surface(m, ele, err);
    if (rc != WEFT_OK) weft_mesh_free(m);
    free(node), free(ele);
    return rc;
}
