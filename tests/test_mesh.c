/* test_mesh.c — tests of lib/mesh.c and lib/obj.c: grid and icosphere generation,
 * derived topology (counts, hinge orientation, manifold and orientation checks),
 * enclosed volume, and the OBJ reader and writer with their error messages.
 *
 * Files are written to a fresh mkdtemp directory under /tmp and removed afterwards.
 */
#include "check.h"
#include "weft.h"

#include <limits.h>
#include <stdbool.h>
#include <unistd.h>

/* Plane normal u x v of a grid plane. */
static const double normal_xy[3] = {0, 0, 1}, normal_xz[3] = {0, 1, 0};

/* Unnormalised normal (b - a) x (c - a) of triangle t at positions x. */
static void tri_normal(const weft_mesh *m, const double *x, int t, double n[3]) {
    const double *a = &x[3 * m->tri[3 * t]], *b = &x[3 * m->tri[3 * t + 1]],
                 *c = &x[3 * m->tri[3 * t + 2]];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

/* Dot product of two 3-vectors. */
static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Builds a grid, failing the case (and returning false) if that fails. */
static bool make_grid(weft_mesh *m, int nx, int ny, double w, double h, weft_diagonals diag,
                      weft_plane plane) {
    weft_grid_desc d = {.width = w, .height = h, .nx = nx, .ny = ny, .diagonals = diag,
                        .plane = plane, .origin = {0.25, -0.5, 1.0}};
    weft_error err = {{0}};
    int rc = weft_mesh_grid(m, &d, &err);
    if (rc != WEFT_OK) fprintf(stderr, "weft_mesh_grid: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* A temporary directory for one case's files. */
typedef struct tmp_dir {
    char path[64];
} tmp_dir;

/* Creates a fresh directory under /tmp. */
static bool tmp_open(tmp_dir *d) {
    strcpy(d->path, "/tmp/weft_test_mesh_XXXXXX");
    bool ok = mkdtemp(d->path) != NULL;
    CHECK(ok);
    return ok;
}

/* Path of the file `name` inside d (in buf). */
static const char *tmp_file(const tmp_dir *d, const char *name, char *buf, size_t n) {
    snprintf(buf, n, "%s/%s", d->path, name);
    return buf;
}

/* Writes text to path, failing the case if it cannot. */
static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    CHECK(fclose(f) == 0);
}

/* Checks the counts, normals and area of a 32 x 32 grid of the given style and plane. */
static void check_grid_32(weft_diagonals diag, weft_plane plane) {
    const double w = 1.3, h = 0.7;
    weft_mesh m = {0};
    if (!make_grid(&m, 32, 32, w, h, diag, plane)) return;
    CHECK(m.nv == 1024);
    CHECK(m.nt == 2 * 31 * 31);
    CHECK(m.ne == 31 * 32 * 2 + 31 * 31);
    CHECK(m.nb == 4 * 31);
    CHECK(m.nh == m.ne - m.nb);
    CHECK(!m.closed);
    CHECK(m.grid_nx == 32 && m.grid_ny == 32);
    CHECK(m.nuv == m.nv && m.uv && m.tri_uv);
    CHECK(memcmp(m.tri, m.tri_uv, 3 * sizeof(int) * (size_t)m.nt) == 0);

    const double *n = plane == WEFT_PLANE_XY ? normal_xy : normal_xz;
    double area = 0;
    int wrong = 0;
    for (int t = 0; t < m.nt; t++) {
        double nt[3];
        tri_normal(&m, m.x, t, nt);
        double len = sqrt(dot3(nt, nt));
        /* The normal must be along +n, not merely on its side. */
        if (!(dot3(nt, n) > 0.999999 * len)) wrong++;
        area += 0.5 * len;
    }
    CHECK(wrong == 0);
    CHECK_NEAR(area, w * h, 1e-12);

    /* Vertex (i, j) sits at origin + s u + t v and its material coordinate is (s, t). */
    int p = 5 + 7 * 32;
    double s = 5 * w / 31, t = 7 * h / 31;
    CHECK_NEAR(m.uv[2 * p], s, 1e-15);
    CHECK_NEAR(m.uv[2 * p + 1], t, 1e-15);
    CHECK_NEAR(m.x[3 * p], 0.25 + s, 1e-15);
    if (plane == WEFT_PLANE_XY) {
        CHECK_NEAR(m.x[3 * p + 1], -0.5 + t, 1e-15);
        CHECK_NEAR(m.x[3 * p + 2], 1.0, 1e-15);
    } else {
        CHECK_NEAR(m.x[3 * p + 1], -0.5, 1e-15);
        CHECK_NEAR(m.x[3 * p + 2], 1.0 - t, 1e-15);
    }
    /* The far corner is exactly width x height from the origin. */
    CHECK(m.uv[2 * (m.nv - 1)] == w && m.uv[2 * (m.nv - 1) + 1] == h);
    weft_mesh_free(&m);
}

/* Counts, orientation and area of 32 x 32 grids; invalid descriptions are refused. */
static void grid_counts(void) {
    check_grid_32(WEFT_DIAG_REGULAR, WEFT_PLANE_XY);
    check_grid_32(WEFT_DIAG_REGULAR, WEFT_PLANE_XZ);
    check_grid_32(WEFT_DIAG_ALTERNATING, WEFT_PLANE_XY);
    check_grid_32(WEFT_DIAG_ALTERNATING, WEFT_PLANE_XZ);

    weft_grid_desc bad[] = {
        {.width = 1, .height = 1, .nx = 1, .ny = 4},
        {.width = 1, .height = 1, .nx = 4, .ny = 0},
        {.width = 0, .height = 1, .nx = 4, .ny = 4},
        {.width = 1, .height = -1, .nx = 4, .ny = 4},
        {.width = NAN, .height = 1, .nx = 4, .ny = 4},
        {.width = 1, .height = INFINITY, .nx = 4, .ny = 4},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        weft_mesh m = {0};
        weft_error err = {{0}};
        CHECK(weft_mesh_grid(&m, &bad[i], &err) == WEFT_ERR_INPUT);
        CHECK(strncmp(err.msg, "grid: ", 6) == 0);
        CHECK(strchr(err.msg, '\n') == NULL);
        CHECK(m.x == NULL && m.tri == NULL && m.nv == 0);
        weft_mesh_free(&m);
    }
}

/* For each triangle of grid m, the quad it lies in and its diagonal: +1 when the
 * diagonal joins (i,j)-(i+1,j+1), -1 when it joins (i+1,j)-(i,j+1). */
static void grid_diagonals(const weft_mesh *m, int *quad, int *diag) {
    const int nx = m->grid_nx;
    for (int t = 0; t < m->nt; t++) {
        int mi = INT_MAX, mj = INT_MAX;
        diag[t] = 0;
        for (int k = 0; k < 3; k++) {
            int a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
            int ia = a % nx, ja = a / nx, ib = b % nx, jb = b / nx;
            if (ia < mi) mi = ia;
            if (ja < mj) mj = ja;
            if (ia != ib && ja != jb) diag[t] = (ib - ia) * (jb - ja) > 0 ? 1 : -1;
        }
        quad[t] = mi + mj * (nx - 1);
    }
}

/* REGULAR uses one diagonal direction everywhere; ALTERNATING a checkerboard. */
static void grid_alternating(void) {
    const int n = 9;
    weft_mesh reg = {0}, alt = {0};
    if (!make_grid(&reg, n, n, 1, 1, WEFT_DIAG_REGULAR, WEFT_PLANE_XZ) ||
        !make_grid(&alt, n, n, 1, 1, WEFT_DIAG_ALTERNATING, WEFT_PLANE_XZ)) {
        weft_mesh_free(&reg), weft_mesh_free(&alt);
        return;
    }
    CHECK(reg.nt == alt.nt);
    CHECK(memcmp(reg.tri, alt.tri, 3 * sizeof(int) * (size_t)reg.nt) != 0);

    int *quad = malloc(sizeof(int) * (size_t)reg.nt), *diag = malloc(sizeof(int) * (size_t)reg.nt);
    CHECK(quad && diag);
    if (quad && diag) {
        grid_diagonals(&reg, quad, diag);
        int first = diag[0], parallel = 0;
        for (int t = 0; t < reg.nt; t++) parallel += diag[t] == first;
        CHECK(first != 0);
        CHECK(parallel == reg.nt);

        grid_diagonals(&alt, quad, diag);
        int differ = 0, plus = 0, minus = 0, bad = 0;
        for (int t = 0; t < alt.nt; t++) {
            int qi = quad[t] % (n - 1), qj = quad[t] / (n - 1);
            /* The two triangles of a quad share its diagonal. */
            for (int s = 0; s < alt.nt; s++)
                if (s != t && quad[s] == quad[t] && diag[s] != diag[t]) bad++;
            /* Neighbouring quads (differing parity) have opposite diagonals. */
            int expected = (qi + qj) % 2 == 0 ? diag[0] : -diag[0];
            if (diag[t] != expected) bad++;
            differ += diag[t] != first;
            plus += diag[t] == 1;
            minus += diag[t] == -1;
        }
        CHECK(bad == 0);
        CHECK(plus > 0 && minus > 0 && plus + minus == alt.nt);
        CHECK(differ == alt.nt / 2); /* 8 x 8 quads: exactly half are flipped */
    }
    free(quad), free(diag);
    weft_mesh_free(&reg), weft_mesh_free(&alt);
}

/* Whether triangle t of m runs the directed edge a -> b. */
static bool runs(const weft_mesh *m, int t, int a, int b) {
    for (int k = 0; k < 3; k++)
        if (m->tri[3 * t + k] == a && m->tri[3 * t + (k + 1) % 3] == b) return true;
    return false;
}

/* Whether triangle t of m has vertex v. */
static bool has_vertex(const weft_mesh *m, int t, int v) {
    return m->tri[3 * t] == v || m->tri[3 * t + 1] == v || m->tri[3 * t + 2] == v;
}

/* Checks every hinge of m against its edge and the two triangles of that edge; with
 * plane_n != NULL (a flat mesh) also the geometric sense of v0 -> v1. */
static void check_hinges(const weft_mesh *m, const double *plane_n) {
    int bad = 0, interior = 0;
    for (int e = 0; e < m->ne; e++) interior += m->edge_tri[2 * e + 1] >= 0;
    CHECK(interior == m->nh);
    for (int h = 0; h < m->nh; h++) {
        const int *hg = &m->hinge[4 * h];
        int e = m->hinge_edge[h];
        if (e < 0 || e >= m->ne) {
            bad++;
            continue;
        }
        int lo = hg[0] < hg[1] ? hg[0] : hg[1], hi = hg[0] < hg[1] ? hg[1] : hg[0];
        if (m->edge[2 * e] != lo || m->edge[2 * e + 1] != hi) bad++;
        if (hg[2] == hg[3] || hg[2] == hg[0] || hg[2] == hg[1] || hg[3] == hg[0] ||
            hg[3] == hg[1])
            bad++;
        int t0 = m->edge_tri[2 * e], t1 = m->edge_tri[2 * e + 1];
        if (t1 < 0) {
            bad++;
            continue;
        }
        int ta = has_vertex(m, t0, hg[2]) ? t0 : t1, tb = ta == t0 ? t1 : t0;
        if (!has_vertex(m, ta, hg[2]) || !has_vertex(m, tb, hg[3])) bad++;
        if (!runs(m, ta, hg[0], hg[1])) bad++; /* counter-clockwise in triangle A */
        if (!runs(m, tb, hg[1], hg[0])) bad++; /* clockwise (reversed) in triangle B */
        if (plane_n) {
            const double *x0 = &m->x[3 * hg[0]], *x1 = &m->x[3 * hg[1]],
                         *x2 = &m->x[3 * hg[2]], *x3 = &m->x[3 * hg[3]];
            double e1[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
            double a[3] = {x2[0] - x0[0], x2[1] - x0[1], x2[2] - x0[2]};
            double b[3] = {x3[0] - x0[0], x3[1] - x0[1], x3[2] - x0[2]};
            double na[3] = {e1[1] * a[2] - e1[2] * a[1], e1[2] * a[0] - e1[0] * a[2],
                            e1[0] * a[1] - e1[1] * a[0]};
            double nb[3] = {e1[1] * b[2] - e1[2] * b[1], e1[2] * b[0] - e1[0] * b[2],
                            e1[0] * b[1] - e1[1] * b[0]};
            /* v2 lies left of v0 -> v1 seen from +n, v3 right of it. */
            if (!(dot3(na, plane_n) > 0) || !(dot3(nb, plane_n) < 0)) bad++;
        }
    }
    CHECK(bad == 0);
    /* Edges sorted by (v0, v1) with v0 < v1; hinges in edge order. */
    int unsorted = 0;
    for (int e = 0; e < m->ne; e++) {
        if (m->edge[2 * e] >= m->edge[2 * e + 1]) unsorted++;
        if (e > 0 && (m->edge[2 * e - 2] > m->edge[2 * e] ||
                      (m->edge[2 * e - 2] == m->edge[2 * e] &&
                       m->edge[2 * e - 1] >= m->edge[2 * e + 1])))
            unsorted++;
    }
    for (int h = 1; h < m->nh; h++) unsorted += m->hinge_edge[h - 1] >= m->hinge_edge[h];
    CHECK(unsorted == 0);
}

/* Hinges of grids and an icosphere are oriented as weft.h documents. */
static void hinge_orientation(void) {
    weft_mesh m = {0};
    if (make_grid(&m, 7, 5, 0.6, 0.4, WEFT_DIAG_ALTERNATING, WEFT_PLANE_XY)) {
        CHECK(m.nh > 0);
        check_hinges(&m, normal_xy);
    }
    weft_mesh_free(&m);
    if (make_grid(&m, 6, 6, 0.5, 0.5, WEFT_DIAG_REGULAR, WEFT_PLANE_XZ)) check_hinges(&m, normal_xz);
    weft_mesh_free(&m);

    weft_error err = {{0}};
    const double c[3] = {0.1, 0.2, 0.3};
    CHECK(weft_mesh_icosphere(&m, 0.5, 2, c, &err) == WEFT_OK);
    CHECK(m.nh == m.ne);
    check_hinges(&m, NULL);
    weft_mesh_free(&m);
}

/* Level-3 icosphere: counts, closedness, radius, outward orientation and volume. */
static void icosphere(void) {
    const double r = 0.37, c[3] = {1.0, -2.0, 0.5};
    weft_mesh m = {0};
    weft_error err = {{0}};
    CHECK(weft_mesh_icosphere(&m, r, 3, c, &err) == WEFT_OK);
    CHECK(m.nv == 642 && m.nt == 1280);
    CHECK(m.closed && m.nb == 0 && m.ne == 1920 && m.nh == m.ne);
    CHECK(m.nv - m.ne + m.nt == 2);
    CHECK(m.nuv == 0 && m.uv == NULL && m.tri_uv == NULL);
    double worst = 0;
    for (int i = 0; i < m.nv; i++) {
        double d[3] = {m.x[3 * i] - c[0], m.x[3 * i + 1] - c[1], m.x[3 * i + 2] - c[2]};
        worst = fmax(worst, fabs(sqrt(dot3(d, d)) - r));
    }
    CHECK(worst <= 1e-14);
    int inward = 0;
    for (int t = 0; t < m.nt; t++) {
        double n[3], g[3] = {0, 0, 0};
        tri_normal(&m, m.x, t, n);
        for (int k = 0; k < 3; k++)
            for (int q = 0; q < 3; q++) g[q] += (m.x[3 * m.tri[3 * t + k] + q] - c[q]) / 3;
        inward += !(dot3(n, g) > 0);
    }
    CHECK(inward == 0);
    double vol = weft_mesh_volume(&m, NULL), exact = 4.0 / 3.0 * acos(-1.0) * r * r * r;
    CHECK(vol > 0);
    CHECK(fabs(vol - exact) <= 0.02 * exact);
    CHECK(vol < exact); /* inscribed polyhedron */
    weft_mesh_free(&m);

    /* Every level has 10*4^s + 2 vertices and stays a closed sphere. */
    for (int s = 0; s <= 5; s++) {
        CHECK(weft_mesh_icosphere(&m, 1.0, s, NULL, &err) == WEFT_OK);
        CHECK(m.nv == 10 * (1 << (2 * s)) + 2 && m.nt == 20 * (1 << (2 * s)));
        CHECK(m.closed && m.nv - m.ne + m.nt == 2);
        weft_mesh_free(&m);
    }
    CHECK(weft_mesh_icosphere(&m, 0.0, 2, NULL, &err) == WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, "icosphere: ") == err.msg);
    CHECK(weft_mesh_icosphere(&m, 1.0, 8, NULL, &err) == WEFT_ERR_INPUT);
    CHECK(weft_mesh_icosphere(&m, 1.0, -1, NULL, &err) == WEFT_ERR_INPUT);
    CHECK(m.nv == 0 && m.x == NULL);
    weft_mesh_free(&m);
}

/* A grid written as OBJ reads back with identical counts, positions and uv. */
static void obj_roundtrip(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128], partial[160], missing[160];
    tmp_file(&d, "grid.obj", path, sizeof path);
    snprintf(partial, sizeof partial, "%s.partial", path);

    weft_mesh a = {0}, b = {0};
    weft_error err = {{0}};
    if (make_grid(&a, 5, 4, 0.3, 0.7, WEFT_DIAG_ALTERNATING, WEFT_PLANE_XZ)) {
        CHECK(weft_mesh_write_obj(&a, NULL, path, &err) == WEFT_OK);
        CHECK(access(partial, F_OK) != 0); /* renamed away */
        int rc = weft_mesh_read_obj(&b, path, &err);
        if (rc != WEFT_OK) fprintf(stderr, "read: %s\n", err.msg);
        CHECK(rc == WEFT_OK);
        CHECK(b.nv == a.nv && b.nt == a.nt && b.ne == a.ne && b.nh == a.nh && b.nb == a.nb);
        if (rc == WEFT_OK && b.nv == a.nv && b.nt == a.nt) {
            CHECK(memcmp(a.x, b.x, 3 * sizeof(double) * (size_t)a.nv) == 0);
            CHECK(memcmp(a.tri, b.tri, 3 * sizeof(int) * (size_t)a.nt) == 0);
            CHECK(b.nuv == a.nuv && b.uv && b.tri_uv);
            if (b.nuv == a.nuv && b.uv && b.tri_uv) {
                CHECK(memcmp(a.uv, b.uv, 2 * sizeof(double) * (size_t)a.nuv) == 0);
                CHECK(memcmp(a.tri_uv, b.tri_uv, 3 * sizeof(int) * (size_t)a.nt) == 0);
            }
        }
        weft_mesh_free(&b);

        /* Explicit positions replace the rest positions in the file. */
        double *x = malloc(3 * sizeof(double) * (size_t)a.nv);
        CHECK(x != NULL);
        if (x) {
            for (int i = 0; i < 3 * a.nv; i++) x[i] = a.x[i] * 1.5 + 1e-3 * i;
            CHECK(weft_mesh_write_obj(&a, x, path, &err) == WEFT_OK);
            CHECK(weft_mesh_read_obj(&b, path, &err) == WEFT_OK);
            CHECK(b.nv == a.nv && b.x && memcmp(x, b.x, 3 * sizeof(double) * (size_t)a.nv) == 0);
            weft_mesh_free(&b);
            x[4] = NAN; /* weft would not read such a file back, so it is not written */
            CHECK(weft_mesh_write_obj(&a, x, path, &err) == WEFT_ERR_INPUT);
            CHECK(strstr(err.msg, "non-finite") != NULL);
            free(x);
        }

        /* A mesh without material coordinates is written with plain f a b c. */
        free(a.uv), free(a.tri_uv);
        a.uv = NULL, a.tri_uv = NULL, a.nuv = 0;
        CHECK(weft_mesh_write_obj(&a, NULL, path, &err) == WEFT_OK);
        CHECK(weft_mesh_read_obj(&b, path, &err) == WEFT_OK);
        CHECK(b.nv == a.nv && b.nt == a.nt && b.nuv == 0 && b.uv == NULL && b.tri_uv == NULL);
        weft_mesh_free(&b);

        /* An unwritable path fails with the path and leaves nothing behind. */
        tmp_file(&d, "no_such_dir/grid.obj", missing, sizeof missing);
        CHECK(weft_mesh_write_obj(&a, NULL, missing, &err) == WEFT_ERR_IO);
        CHECK(strstr(err.msg, missing) == err.msg && strstr(err.msg, "cannot write") != NULL);
    }
    weft_mesh_free(&a);
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* One malformed OBJ file and what its error message must contain. */
typedef struct bad_obj {
    const char *text;
    const char *line;  /* ":N:" expected after the path, or NULL (file-level errors) */
    const char *want1; /* substrings the message must contain */
    const char *want2;
} bad_obj;

/* Square of four vertices used by several bad files. */
#define SQUARE "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"

/* Malformed files fail with path, line and keyword; unusual valid ones read correctly. */
static void obj_errors(void) {
    static const bad_obj bad[] = {
        {SQUARE "f 1 2 3 4\n", ":5:", "f: polygon with 4 vertices", "triangulate"},
        {SQUARE "f 1 2 5\n", ":5:", "f: vertex index 5 out of range", "(4 vertices defined)"},
        {SQUARE "f 0 1 2\n", ":5:", "f: vertex index 0 out of range", NULL},
        {SQUARE "f -5 1 2\n", ":5:", "f: vertex index -5 out of range", NULL},
        {"v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\n", ":2:", "vertex index 2 out of range",
         "(1 vertices defined)"}, /* defined before use */
        {"# c\nv 1.0abc 0 0\n", ":2:", "v: malformed coordinate '1.0abc'", NULL},
        {"v 0 nan 0\n", ":1:", "v: malformed coordinate 'nan'", NULL},
        {"v 0 0 inf\n", ":1:", "v: malformed coordinate 'inf'", NULL},
        {"v 0 0\n", ":1:", "v: expected 3 coordinates", NULL},
        {SQUARE "vt 0 x\n", ":5:", "vt: malformed coordinate 'x'", NULL},
        {SQUARE "f 1 2 3x\n", ":5:", "f: malformed corner '3x'", NULL},
        {SQUARE "f 1 2\n", ":5:", "f: face with 2 vertices", NULL},
        {SQUARE "f 1 2 2\n", ":5:", "f: degenerate face", "vertex 2 repeated"},
        {SQUARE "vt 0 0\nvt 1 0\nvt 1 1\nf 1/1 2/2 3/3\nf 1 3 4\n", ":9:", "f: face lacks "
         "texture coordinates", "line 8"},
        {SQUARE "vt 0 0\nf 1/1 2/2 3/3\n", ":6:", "f: texture index 2 out of range", NULL},
        {SQUARE "f 1//1 2//1 3//1\n", ":5:", "f: normal index 1 out of range", NULL},
        {"v 0 0 0\n# only a vertex\n", NULL, "no triangles", NULL},
        {"", NULL, "no triangles", NULL},
        /* Three triangles on edge 1-2 (the first two would be consistent). */
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nf 1 2 3\nf 2 1 4\nf 1 2 5\n", ":8:",
         "non-manifold edge between vertices 1 and 2", "shared by 3 triangles"},
        /* Neighbours that run their shared edge 1-3 the same way. */
        {SQUARE "f 1 2 3\nf 1 4 3\n", ":6:", "inconsistent triangle orientation "
         "across edge", NULL},
        {"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", ":4:", "degenerate triangle 1 (zero area)",
         NULL},
    };
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    tmp_file(&d, "bad.obj", path, sizeof path);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(path, bad[i].text);
        weft_mesh m = {0};
        weft_error err = {{0}};
        int rc = weft_mesh_read_obj(&m, path, &err);
        char where[200];
        snprintf(where, sizeof where, "%s%s", path, bad[i].line ? bad[i].line : ": ");
        bool ok = rc == WEFT_ERR_INPUT && strstr(err.msg, where) == err.msg &&
                  strstr(err.msg, bad[i].want1) &&
                  (!bad[i].want2 || strstr(err.msg, bad[i].want2)) &&
                  !strchr(err.msg, '\n');
        if (!ok) fprintf(stderr, "bad file %zu: rc %d, message '%s'\n", i, rc, err.msg);
        CHECK(ok);
        CHECK(m.x == NULL && m.tri == NULL && m.edge == NULL && m.nv == 0);
        weft_mesh_free(&m);
    }

    /* A missing file. */
    char missing[160];
    tmp_file(&d, "missing.obj", missing, sizeof missing);
    weft_mesh m = {0};
    weft_error err = {{0}};
    CHECK(weft_mesh_read_obj(&m, missing, &err) == WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, missing) == err.msg && strstr(err.msg, "cannot open") != NULL);

    /* Valid: negative indices, v/vt/vn corners, comments, CRLF, tabs, ignored statements. */
    write_text(path, "# square\r\nmtllib x.mtl\r\no sq\r\n"
                     "v 0 0 0\r\nv 1 0 0 1\r\nv 1 1 0\r\nv 0 1 0\r\n"
                     "vt 0 0\nvt 2 0\nvt 2 2 0\nvt 0 2\nvn 0 0 1\n"
                     "g part\nusemtl cloth\ns off\n"
                     "f -4/-4/-1 -3/-3/-1 -2/-2/-1   # first\n"
                     "f\t1/1/1 3/3/1\t4/4/1\n"
                     "l 1 2\n\n");
    int rc = weft_mesh_read_obj(&m, path, &err);
    if (rc != WEFT_OK) fprintf(stderr, "valid file: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    if (rc == WEFT_OK) {
        static const int tri[6] = {0, 1, 2, 0, 2, 3};
        static const double uv[8] = {0, 0, 2, 0, 2, 2, 0, 2};
        CHECK(m.nv == 4 && m.nt == 2 && m.nuv == 4);
        CHECK(memcmp(m.tri, tri, sizeof tri) == 0 && memcmp(m.tri_uv, tri, sizeof tri) == 0);
        CHECK(memcmp(m.uv, uv, sizeof uv) == 0);
        CHECK(m.x[3] == 1 && m.x[7] == 1 && m.ne == 5 && m.nh == 1 && m.nb == 4);
    }
    weft_mesh_free(&m);

    /* Valid: v//vn corners have no texture coordinates, so none are kept. */
    write_text(path, SQUARE "vt 0 0\nvn 0 0 1\nf 1//1 2//1 3//1\nf -4//-1 -2//1 -1//1\n");
    rc = weft_mesh_read_obj(&m, path, &err);
    if (rc != WEFT_OK) fprintf(stderr, "valid file: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    CHECK(m.nt == 2 && m.nuv == 0 && m.uv == NULL && m.tri_uv == NULL);
    if (rc == WEFT_OK) CHECK(m.tri[3] == 0 && m.tri[4] == 2 && m.tri[5] == 3);
    weft_mesh_free(&m);

    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* A closed unit cube, outward, encloses exactly 1 m^3. */
static void volume_cube(void) {
    /* Vertex 1 + x + 2y + 4z (1-based) is the corner (x, y, z). */
    static const char cube[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
                               "v 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\n"
                               "f 1 3 4\nf 1 4 2\n"  /* z = 0, normal -z */
                               "f 5 6 8\nf 5 8 7\n"  /* z = 1, +z */
                               "f 1 2 6\nf 1 6 5\n"  /* y = 0, -y */
                               "f 3 7 8\nf 3 8 4\n"  /* y = 1, +y */
                               "f 1 5 7\nf 1 7 3\n"  /* x = 0, -x */
                               "f 2 4 8\nf 2 8 6\n"; /* x = 1, +x */
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    tmp_file(&d, "cube.obj", path, sizeof path);
    write_text(path, cube);
    weft_mesh m = {0};
    weft_error err = {{0}};
    int rc = weft_mesh_read_obj(&m, path, &err);
    if (rc != WEFT_OK) fprintf(stderr, "cube: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    if (rc == WEFT_OK) {
        CHECK(m.nv == 8 && m.nt == 12 && m.ne == 18 && m.closed);
        CHECK(m.nv - m.ne + m.nt == 2);
        check_hinges(&m, NULL);
        CHECK_NEAR(weft_mesh_volume(&m, NULL), 1.0, 1e-12);
        /* Translation does not change the enclosed volume; reversal negates it. */
        double x[24];
        for (int i = 0; i < 24; i++) x[i] = m.x[i] + (i % 3 == 0 ? 3.0 : -2.0);
        CHECK_NEAR(weft_mesh_volume(&m, x), 1.0, 1e-12);
        for (int t = 0; t < m.nt; t++) {
            int s = m.tri[3 * t + 1];
            m.tri[3 * t + 1] = m.tri[3 * t + 2], m.tri[3 * t + 2] = s;
        }
        CHECK_NEAR(weft_mesh_volume(&m, NULL), -1.0, 1e-12);
        /* Reversed everywhere is still consistent, just inward. */
        CHECK(weft_mesh_build_topology(&m, path, &err) == WEFT_OK && m.closed);
        check_hinges(&m, NULL);
    }
    weft_mesh_free(&m);
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

static const check_case cases[] = {
    {"grid_counts", grid_counts},
    {"grid_alternating", grid_alternating},
    {"hinge_orientation", hinge_orientation},
    {"icosphere", icosphere},
    {"obj_roundtrip", obj_roundtrip},
    {"obj_errors", obj_errors},
    {"volume_cube", volume_cube},
    {NULL, NULL},
};

int main(int argc, char **argv) { return check_main(argc, argv, cases); }
