/* obj.c — a strict Wavefront OBJ reader and writer for triangle meshes.
 *
 * Reads v, vt and triangular f statements (v, v/vt, v/vt/vn, v//vn corners, negative
 * indices relative to what is defined so far) and ignores every other statement.
 * Anything malformed fails with "path:line: keyword: what", never a silent guess.
 * Writes through "<path>.partial" and a rename, so a complete-looking file is complete.
 */
#include "weft.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whitespace that separates OBJ tokens. */
#define OBJ_SPACE " \t\r\n\v\f"

/* The reader's growing arrays and position in the file. */
typedef struct obj_reader {
    const char *path;
    long line;
    int nv, nvt, nvn, nt;
    double *x;        /* 3*nv */
    double *uv;       /* 2*nvt */
    int *tri, *tri_uv; /* 3*nt each */
    int *tri_line;     /* nt: the line of each face, for topology errors */
    size_t x_cap, uv_cap, tri_cap, tri_uv_cap, line_cap;
    int faces_vt;     /* -1 before the first face, else whether faces carry vt */
    long first_face_line;
} obj_reader;

/* Returns p grown to hold at least need elements of size sz (doubling *cap), or NULL
 * when out of memory, in which case p is untouched. */
static void *grow(void *p, size_t *cap, size_t need, size_t sz) {
    if (need <= *cap) return p;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2 / sz) return NULL;
        n *= 2;
    }
    void *q = realloc(p, n * sz);
    if (q) *cap = n;
    return q;
}

/* Parses the whole token s as a finite double; false if anything is left over. */
static bool parse_double(const char *s, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* Parses a signed decimal index at s that fits an int; *end points past it. */
static bool parse_index(const char *s, const char **end, long *out) {
    char *e;
    if (!(*s == '-' || *s == '+' || (*s >= '0' && *s <= '9'))) return false;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (e == s || errno == ERANGE || v < -INT_MAX || v > INT_MAX) return false;
    *end = e;
    *out = v;
    return true;
}

/* Resolves a 1-based or negative (relative to the last defined) OBJ index against the
 * count defined so far: the 0-based index, or -1 if out of range (0 never is valid). */
static int resolve_index(long idx, int count) {
    if (idx > 0 && idx <= count) return (int)(idx - 1);
    if (idx < 0 && -idx <= count) return (int)(count + idx);
    return -1;
}

/* Parses a "v x y z [w]" or "vt u v [w]" statement: n_min..n_min+1 finite numbers. */
static int read_numbers(obj_reader *r, const char *kw, char **save, int n_min, double *out,
                        weft_error *err) {
    int n = 0;
    for (char *tok; (tok = strtok_r(NULL, OBJ_SPACE, save));) {
        double v = 0;
        if (!parse_double(tok, &v))
            return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: %s: malformed coordinate '%.80s'",
                             r->path, r->line, kw, tok);
        if (n <= n_min) out[n] = v; /* the optional w is checked but not kept */
        n++;
    }
    if (n < n_min || n > n_min + 1)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%ld: %s: expected %d coordinates (or %d with w), got %d", r->path,
                         r->line, kw, n_min, n_min + 1, n);
    return WEFT_OK;
}

/* Parses one f corner "v", "v/vt", "v/vt/vn" or "v//vn" into 0-based v and vt (-1 if
 * absent), checking every index against what has been defined so far. */
static int read_corner(obj_reader *r, const char *tok, int *v, int *vt, weft_error *err) {
    const char *p = tok;
    long iv = 0, ivt = 0, ivn = 0;
    bool has_vt = false, has_vn = false, ok = parse_index(p, &p, &iv);
    if (ok && *p == '/') {
        p++;
        if (*p != '/') ok = has_vt = parse_index(p, &p, &ivt);
        if (ok && *p == '/') {
            p++;
            ok = has_vn = parse_index(p, &p, &ivn);
        }
    }
    if (!ok || *p != '\0')
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%ld: f: malformed corner '%.80s' (expected v, v/vt, v/vt/vn or "
                         "v//vn)",
                         r->path, r->line, tok);
    *v = resolve_index(iv, r->nv);
    if (*v < 0)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%ld: f: vertex index %ld out of range (%d vertices defined)",
                         r->path, r->line, iv, r->nv);
    *vt = -1;
    if (has_vt) {
        *vt = resolve_index(ivt, r->nvt);
        if (*vt < 0)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s:%ld: f: texture index %ld out of range (%d texture "
                             "coordinates defined)",
                             r->path, r->line, ivt, r->nvt);
    }
    /* Normals are not kept, but a dangling reference still marks a broken file. */
    if (has_vn && resolve_index(ivn, r->nvn) < 0)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%ld: f: normal index %ld out of range (%d normals defined)",
                         r->path, r->line, ivn, r->nvn);
    return WEFT_OK;
}

/* Parses an "f" statement: exactly three corners, all with or all without vt, and the
 * same choice as every earlier face. */
static int read_face(obj_reader *r, char **save, weft_error *err) {
    char *corner[3];
    int n = 0;
    for (char *tok; (tok = strtok_r(NULL, OBJ_SPACE, save)); n++)
        if (n < 3) corner[n] = tok;
    if (n > 3)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%ld: f: polygon with %d vertices; weft reads triangles only "
                         "(triangulate the mesh first)",
                         r->path, r->line, n);
    if (n < 3)
        return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: f: face with %d vertices; a triangle "
                         "needs 3", r->path, r->line, n);
    int v[3], vt[3];
    for (int k = 0; k < 3; k++) {
        int rc = read_corner(r, corner[k], &v[k], &vt[k], err);
        if (rc != WEFT_OK) return rc;
    }
    for (int k = 0; k < 3; k++)
        if (v[k] == v[(k + 1) % 3])
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s:%ld: f: degenerate face (vertex %d repeated)", r->path,
                             r->line, v[k] + 1);
    int with_vt = (vt[0] >= 0) + (vt[1] >= 0) + (vt[2] >= 0);
    if (with_vt != 0 && with_vt != 3)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%ld: f: some corners have texture coordinates and some do not",
                         r->path, r->line);
    if (r->faces_vt < 0) {
        r->faces_vt = with_vt == 3;
        r->first_face_line = r->line;
    } else if (r->faces_vt != (with_vt == 3)) {
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s:%ld: f: face %s texture coordinates but the face on line %ld %s",
                         r->path, r->line, with_vt ? "has" : "lacks", r->first_face_line,
                         with_vt ? "has none" : "has them");
    }
    if (r->nt >= WEFT_MAX_ELEMENTS)
        return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: f: more than %d triangles (the limit, "
                         "WEFT_MAX_ELEMENTS)", r->path, r->line, WEFT_MAX_ELEMENTS);
    size_t need = 3 * ((size_t)r->nt + 1);
    int *tri = grow(r->tri, &r->tri_cap, need, sizeof *tri);
    if (!tri) return weft_fail(err, WEFT_ERR_NOMEM, "%s:%ld: out of memory", r->path, r->line);
    r->tri = tri;
    if (with_vt) {
        int *tuv = grow(r->tri_uv, &r->tri_uv_cap, need, sizeof *tuv);
        if (!tuv)
            return weft_fail(err, WEFT_ERR_NOMEM, "%s:%ld: out of memory", r->path, r->line);
        r->tri_uv = tuv;
        for (int k = 0; k < 3; k++) r->tri_uv[3 * r->nt + k] = vt[k];
    }
    int *tl = grow(r->tri_line, &r->line_cap, (size_t)r->nt + 1, sizeof *tl);
    if (!tl) return weft_fail(err, WEFT_ERR_NOMEM, "%s:%ld: out of memory", r->path, r->line);
    r->tri_line = tl;
    tl[r->nt] = r->line > INT_MAX ? INT_MAX : (int)r->line;
    for (int k = 0; k < 3; k++) r->tri[3 * r->nt + k] = v[k];
    r->nt++;
    return WEFT_OK;
}

/* Parses one line (already stripped of its comment); unknown statements are ignored. */
static int read_line(obj_reader *r, char *line, weft_error *err) {
    char *save = NULL;
    char *kw = strtok_r(line, OBJ_SPACE, &save);
    if (!kw) return WEFT_OK;
    if (strcmp(kw, "v") == 0) {
        double p[4];
        int rc = read_numbers(r, "v", &save, 3, p, err);
        if (rc != WEFT_OK) return rc;
        if (r->nv >= WEFT_MAX_VERTICES)
            return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: v: more than %d vertices (the "
                             "limit, WEFT_MAX_VERTICES)", r->path, r->line, WEFT_MAX_VERTICES);
        double *x = grow(r->x, &r->x_cap, 3 * ((size_t)r->nv + 1), sizeof *x);
        if (!x)
            return weft_fail(err, WEFT_ERR_NOMEM, "%s:%ld: out of memory", r->path, r->line);
        r->x = x;
        memcpy(&r->x[3 * (size_t)r->nv], p, 3 * sizeof *p);
        r->nv++;
    } else if (strcmp(kw, "vt") == 0) {
        double p[3];
        int rc = read_numbers(r, "vt", &save, 2, p, err);
        if (rc != WEFT_OK) return rc;
        if (r->nvt >= WEFT_MAX_ELEMENTS)
            return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: vt: more than %d texture "
                             "coordinates (the limit, WEFT_MAX_ELEMENTS)", r->path, r->line,
                             WEFT_MAX_ELEMENTS);
        double *uv = grow(r->uv, &r->uv_cap, 2 * ((size_t)r->nvt + 1), sizeof *uv);
        if (!uv)
            return weft_fail(err, WEFT_ERR_NOMEM, "%s:%ld: out of memory", r->path, r->line);
        r->uv = uv;
        r->uv[2 * (size_t)r->nvt] = p[0];
        r->uv[2 * (size_t)r->nvt + 1] = p[1];
        r->nvt++;
    } else if (strcmp(kw, "vn") == 0) {
        /* Only counted, so that v//vn corners can be checked. */
        if (r->nvn == INT_MAX)
            return weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: vn: too many normals", r->path,
                             r->line);
        r->nvn++;
    } else if (strcmp(kw, "f") == 0) {
        return read_face(r, &save, err);
    }
    return WEFT_OK;
}

/* Reads a Wavefront OBJ triangle mesh (v, vt, f; polygons are rejected with file:line).
 * m's previous contents are overwritten, not freed; on failure m is left zeroed. */
int weft_mesh_read_obj(weft_mesh *m, const char *path, weft_error *err) {
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) return weft_fail(err, WEFT_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));

    obj_reader r = {.path = path, .faces_vt = -1};
    char *line = NULL;
    size_t line_cap = 0;
    int rc = WEFT_OK;
    for (;;) {
        errno = 0;
        ssize_t len = getline(&line, &line_cap, f);
        if (len < 0) {
            /* getline reports both end of file and failure as -1. */
            if (ferror(f) || !feof(f))
                rc = weft_fail(err, errno == ENOMEM ? WEFT_ERR_NOMEM : WEFT_ERR_INPUT,
                               "%s:%ld: cannot read: %s", path, r.line + 1,
                               strerror(errno ? errno : EIO));
            break;
        }
        r.line++;
        if (strlen(line) != (size_t)len) {
            rc = weft_fail(err, WEFT_ERR_INPUT, "%s:%ld: NUL byte in line (not a text file?)",
                           path, r.line);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        rc = read_line(&r, line, err);
        if (rc != WEFT_OK) break;
    }
    free(line);
    fclose(f);

    if (rc == WEFT_OK && r.nt == 0) rc = weft_fail(err, WEFT_ERR_INPUT, "%s: no triangles", path);
    if (rc != WEFT_OK) {
        free(r.x), free(r.uv), free(r.tri), free(r.tri_uv), free(r.tri_line);
        return rc;
    }

    m->nv = r.nv;
    m->x = r.x;
    m->nt = r.nt;
    m->tri = r.tri;
    m->tri_line = r.tri_line;
    if (r.faces_vt == 1) {
        m->nuv = r.nvt;
        m->uv = r.uv;
        m->tri_uv = r.tri_uv;
    } else {
        free(r.uv); /* texture coordinates no face uses describe nothing */
        free(r.tri_uv);
    }
    rc = weft_mesh_build_topology(m, path, err);
    if (rc != WEFT_OK) weft_mesh_free(m);
    return rc;
}

/* Checks that what is about to be written can be read back: finite values, valid
 * indices. Returns WEFT_OK or the error. */
static int check_writable(const weft_mesh *m, const double *x, bool with_uv, const char *path,
                          weft_error *err) {
    for (int i = 0; i < 3 * m->nv; i++)
        if (!isfinite(x[i]))
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: vertex %d has a non-finite position; not written", path,
                             i / 3 + 1);
    for (int i = 0; with_uv && i < 2 * m->nuv; i++)
        if (!isfinite(m->uv[i]))
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: material coordinate %d is non-finite; not written", path,
                             i / 2 + 1);
    for (int i = 0; i < 3 * m->nt; i++) {
        if (m->tri[i] < 0 || m->tri[i] >= m->nv || (with_uv && (m->tri_uv[i] < 0 ||
                                                                m->tri_uv[i] >= m->nuv)))
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: triangle %d has an index out of range; not written", path,
                             i / 3 + 1);
    }
    return WEFT_OK;
}

/* Writes positions x (3*nv, or the mesh's rest positions if NULL) and triangles as OBJ,
 * with vt and v/vt corners when the mesh has material coordinates. */
int weft_mesh_write_obj(const weft_mesh *m, const double *x, const char *path, weft_error *err) {
    if (!x) x = m->x;
    bool with_uv = m->nuv > 0 && m->uv && m->tri_uv;
    /* A file weft itself cannot read back would only move the failure elsewhere. */
    int rc = check_writable(m, x, with_uv, path, err);
    if (rc != WEFT_OK) return rc;

    size_t n = strlen(path);
    char *tmp = malloc(n + sizeof ".partial");
    if (!tmp) return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", path);
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".partial", sizeof ".partial");

    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        free(tmp);
        return weft_fail(err, WEFT_ERR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    fprintf(f, "# weft %s: %d vertices, %d triangles\n", WEFT_VERSION, m->nv, m->nt);
    /* %.17g round-trips every double exactly. */
    for (int i = 0; i < m->nv; i++)
        fprintf(f, "v %.17g %.17g %.17g\n", x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    for (int i = 0; with_uv && i < m->nuv; i++)
        fprintf(f, "vt %.17g %.17g\n", m->uv[2 * i], m->uv[2 * i + 1]);
    for (int t = 0; t < m->nt; t++) {
        const int *v = &m->tri[3 * t];
        if (with_uv) {
            const int *u = &m->tri_uv[3 * t];
            fprintf(f, "f %d/%d %d/%d %d/%d\n", v[0] + 1, u[0] + 1, v[1] + 1, u[1] + 1,
                    v[2] + 1, u[2] + 1);
        } else {
            fprintf(f, "f %d %d %d\n", v[0] + 1, v[1] + 1, v[2] + 1);
        }
    }
    errno = 0;
    bool failed = fflush(f) != 0 || ferror(f);
    int e = errno;
    if (fclose(f) != 0 && !failed) failed = true, e = errno;
    if (!failed && rename(tmp, path) != 0) failed = true, e = errno;
    if (failed) {
        remove(tmp); /* a partial file is of no use to anyone */
        free(tmp);
        return weft_fail(err, WEFT_ERR_IO, "%s: cannot write: %s", path,
                         strerror(e ? e : EIO));
    }
    free(tmp);
    return WEFT_OK;
}
