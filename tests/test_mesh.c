/* test_mesh.c — tests of lib/mesh/mesh.c, lib/mesh/obj.c and lib/mesh/tetmesh.c: grid and icosphere
 * generation, derived topology (counts, hinge orientation, manifold and orientation
 * checks), enclosed volume, the OBJ reader and writer with their error messages, and
 * tetrahedral meshes: the Kuhn block (counts, orientation, matching faces, closed outward
 * surface enclosing the sum of the tetrahedra's volumes) and the TetGen reader.
 *
 * Files are written to a fresh mkdtemp directory under /tmp and removed afterwards.
 */
#include "check.h"
#include "tmp_files.h"
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

/* ------------------------------------------------------------------------------ */
/* Tetrahedral meshes                                                              */
/* ------------------------------------------------------------------------------ */

/* One face of one tetrahedron, counted by the test itself (not by lib/mesh/tetmesh.c). */
typedef struct face_rec {
    int key[3];  /* sorted corners */
    int v[3];    /* corners counter-clockwise seen from outside */
    int t;
} face_rec;

static int cmp_face_rec(const void *pa, const void *pb) {
    const face_rec *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

/* Whether the ordered triples a and b are the same cyclic order of the same corners. */
static bool same_cycle(const int *a, const int *b) {
    for (int r = 0; r < 3; r++)
        if (a[0] == b[r] && a[1] == b[(r + 1) % 3] && a[2] == b[(r + 2) % 3]) return true;
    return false;
}

/* Checks the facts every tetrahedral mesh must hold: each tetrahedron positive; each face
 * in one tetrahedron (then it is a surface triangle, with the same outward order) or in
 * two running it in opposite directions; no other surface triangle; the surface closed,
 * and enclosing exactly the sum of the tetrahedra's volumes. Returns that sum (m^3). */
static double check_tet_mesh(const weft_mesh *m) {
    /* Outward faces of tetrahedron (0, 1, 2, 3) with det[x1-x0, x2-x0, x3-x0] > 0: the
     * normal of (1, 2, 3) points away from 0, and so on. */
    static const int fc[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    int nonpositive = 0;
    double vsum = 0.0;
    for (int t = 0; t < m->ntet; t++) {
        const int *v = &m->tet[4 * t];
        const double *x0 = &m->x[3 * v[0]];
        double e[3][3];
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 3; k++) e[a][k] = m->x[3 * v[a + 1] + k] - x0[k];
        double c[3];
        c[0] = e[1][1] * e[2][2] - e[1][2] * e[2][1];
        c[1] = e[1][2] * e[2][0] - e[1][0] * e[2][2];
        c[2] = e[1][0] * e[2][1] - e[1][1] * e[2][0];
        double det = dot3(e[0], c);
        nonpositive += !(det > 0);
        vsum += det / 6;
        CHECK_NEAR(weft_mesh_tet_volume(m, NULL, t), det / 6, 1e-15 * fabs(det));
    }
    CHECK(nonpositive == 0);

    face_rec *f = malloc(sizeof *f * 4 * (size_t)m->ntet);
    CHECK(f != NULL);
    if (!f) return vsum;
    for (int t = 0; t < m->ntet; t++)
        for (int a = 0; a < 4; a++) {
            face_rec *r = &f[4 * t + a];
            for (int k = 0; k < 3; k++) r->v[k] = r->key[k] = m->tet[4 * t + fc[a][k]];
            for (int i = 0; i < 2; i++) /* bubble sort of three */
                for (int j = 0; j < 2 - i; j++)
                    if (r->key[j] > r->key[j + 1]) {
                        int s = r->key[j];
                        r->key[j] = r->key[j + 1], r->key[j + 1] = s;
                    }
            r->t = t;
        }
    qsort(f, 4 * (size_t)m->ntet, sizeof *f, cmp_face_rec);
    int single = 0, shared = 0, bad = 0, unmatched = 0;
    bool *used = calloc((size_t)m->nt + 1, sizeof *used);
    CHECK(used != NULL);
    for (int i = 0; i < 4 * m->ntet && used;) {
        int j = i + 1;
        while (j < 4 * m->ntet && !memcmp(f[j].key, f[i].key, sizeof f[i].key)) j++;
        if (j - i == 1) {
            single++;
            /* It must be exactly one surface triangle, in the same outward order. */
            int found = 0;
            for (int s = 0; s < m->nt; s++)
                if (same_cycle(&m->tri[3 * s], f[i].v)) found++, used[s] = true;
            unmatched += found != 1;
        } else if (j - i == 2) {
            shared++;
            int rev[3] = {f[i + 1].v[0], f[i + 1].v[2], f[i + 1].v[1]};
            bad += !same_cycle(f[i].v, rev); /* opposite directions */
        } else {
            bad++;
        }
        i = j;
    }
    int extra = 0;
    for (int s = 0; used && s < m->nt; s++) extra += !used[s];
    CHECK(bad == 0);
    CHECK(unmatched == 0);
    CHECK(extra == 0);
    CHECK(single == m->nt);
    CHECK(2 * shared + single == 4 * m->ntet);
    CHECK(m->closed && m->nb == 0 && m->nh == m->ne);
    CHECK_NEAR(weft_mesh_volume(m, NULL), vsum, 1e-12 * vsum);
    free(used);
    free(f);
    return vsum;
}

/* Builds a tet block, failing the case if that fails. */
static bool make_block(weft_mesh *m, double sx, double sy, double sz, int nx, int ny, int nz,
                       const double *origin) {
    const double size[3] = {sx, sy, sz};
    const int cells[3] = {nx, ny, nz};
    weft_error err = {{0}};
    int rc = weft_mesh_tet_block(m, size, cells, origin, &err);
    if (rc != WEFT_OK) fprintf(stderr, "weft_mesh_tet_block: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* Counts, lattice positions and volumes of tet blocks; bad descriptions are refused. */
static void tet_block_counts(void) {
    const double o[3] = {0.1, -0.2, 0.3}, sx = 0.6, sy = 0.5, sz = 1.2;
    weft_mesh m = {0};
    if (make_block(&m, sx, sy, sz, 3, 2, 4, o)) {
        CHECK(m.nv == 4 * 3 * 5);
        CHECK(m.ntet == 6 * 3 * 2 * 4);
        CHECK(m.nt == 4 * (3 * 2 + 2 * 4 + 4 * 3));     /* two triangles per cell face */
        int surface_v = m.nv - (3 - 1) * (2 - 1) * (4 - 1); /* all but the interior */
        CHECK(m.ne == surface_v + m.nt - 2);               /* Euler: V - E + F = 2 */
        CHECK(m.closed && m.nb == 0 && m.nh == m.ne);
        CHECK(m.nuv == 0 && m.uv == NULL && m.tet_line == NULL && m.tri_line == NULL);
        /* Vertex (i, j, k) = i + 4 (j + 3 k) sits on the lattice; the far corner exactly. */
        int p = 2 + 4 * (1 + 3 * 3);
        CHECK_NEAR(m.x[3 * p], o[0] + 2 * sx / 3, 1e-15);
        CHECK_NEAR(m.x[3 * p + 1], o[1] + sy / 2, 1e-15);
        CHECK_NEAR(m.x[3 * p + 2], o[2] + 3 * sz / 4, 1e-15);
        const double *far = &m.x[3 * (m.nv - 1)];
        CHECK(far[0] == o[0] + sx && far[1] == o[1] + sy && far[2] == o[2] + sz);
        /* Six tetrahedra of equal volume per cell. */
        double cell = sx * sy * sz / 24, worst = 0;
        for (int t = 0; t < m.ntet; t++)
            worst = fmax(worst, fabs(weft_mesh_tet_volume(&m, NULL, t) - cell / 6));
        CHECK(worst <= 1e-15);
    }
    weft_mesh_free(&m);

    /* One cube: 8 corners, 6 tetrahedra around the diagonal 0-7, 12 surface triangles. */
    if (make_block(&m, 1, 1, 1, 1, 1, 1, NULL)) {
        CHECK(m.nv == 8 && m.ntet == 6 && m.nt == 12 && m.ne == 18);
        int diagonal = 0;
        for (int t = 0; t < m.ntet; t++) {
            bool has0 = false, has7 = false;
            for (int a = 0; a < 4; a++)
                has0 |= m.tet[4 * t + a] == 0, has7 |= m.tet[4 * t + a] == 7;
            diagonal += has0 && has7;
        }
        CHECK(diagonal == 6);
    }
    weft_mesh_free(&m);

    const double bad_size[][3] = {{0, 1, 1}, {1, -1, 1}, {1, 1, NAN}, {INFINITY, 1, 1}};
    for (size_t i = 0; i < sizeof bad_size / sizeof bad_size[0]; i++) {
        const int cells[3] = {2, 2, 2};
        weft_error err = {{0}};
        CHECK(weft_mesh_tet_block(&m, bad_size[i], cells, NULL, &err) == WEFT_ERR_INPUT);
        CHECK(strstr(err.msg, "tet_block: size") == err.msg);
        CHECK(m.x == NULL && m.tet == NULL && m.nv == 0 && m.ntet == 0);
    }
    const int bad_cells[][3] = {{0, 1, 1}, {1, -2, 1}, {1, 1, 0}, {4096, 4096, 4096}};
    for (size_t i = 0; i < sizeof bad_cells / sizeof bad_cells[0]; i++) {
        const double size[3] = {1, 1, 1};
        weft_error err = {{0}};
        CHECK(weft_mesh_tet_block(&m, size, bad_cells[i], NULL, &err) == WEFT_ERR_INPUT);
        CHECK(strstr(err.msg, "tet_block: ") == err.msg && strstr(err.msg, "cells") != NULL);
        CHECK(m.x == NULL && m.tet == NULL);
    }
    weft_mesh_free(&m);
}

/* Every tetrahedron of several blocks is positively oriented, faces match (shared by two
 * tetrahedra in opposite directions, or on the surface once), and the surface is closed,
 * outward and encloses the box's volume. */
static void tet_block_surface(void) {
    static const int cells[][3] = {{1, 1, 1}, {2, 1, 1}, {3, 4, 2}, {5, 2, 3}};
    const double o[3] = {-0.3, 1.0, 0.25};
    for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
        const double s[3] = {0.7, 0.3, 0.45};
        weft_mesh m = {0};
        if (!make_block(&m, s[0], s[1], s[2], cells[c][0], cells[c][1], cells[c][2], o)) continue;
        double vol = check_tet_mesh(&m), box = s[0] * s[1] * s[2];
        CHECK_NEAR(vol, box, 1e-14);
        CHECK_NEAR(weft_mesh_volume(&m, NULL), box, 1e-14);
        check_hinges(&m, NULL);
        /* Each surface triangle lies in one face of the box and its normal points out of
         * it along that face's axis. */
        int wrong = 0;
        for (int t = 0; t < m.nt; t++) {
            double n[3];
            tri_normal(&m, m.x, t, n);
            int axis = -1, side = 0;
            for (int k = 0; k < 3; k++)
                for (int sd = 0; sd < 2; sd++) {
                    double plane = o[k] + sd * s[k];
                    bool on = true;
                    for (int a = 0; a < 3; a++) on = on && m.x[3 * m.tri[3 * t + a] + k] == plane;
                    if (on) axis = k, side = sd ? 1 : -1;
                }
            if (axis < 0) {
                wrong++;
                continue;
            }
            double len = sqrt(dot3(n, n));
            if (!(n[axis] * side > 0.999999 * len)) wrong++;
        }
        CHECK(wrong == 0);
        weft_mesh_free(&m);
    }
}

/* Writes mesh m as TetGen files stem.node and stem.ele, numbered from `first`, with one
 * attribute and boundary markers on the points, a region attribute on the tetrahedra,
 * comments, blank lines, tabs and CRLF line ends; `flip` swaps the last two nodes of
 * every tetrahedron (all negatively oriented). */
static void write_tetgen(const weft_mesh *m, const char *stem, int first, bool flip) {
    char path[256];
    snprintf(path, sizeof path, "%s.node", stem);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "# written by test_mesh\r\n\r\n%d  3  1  1   # points, dim, attributes, markers\r\n",
            m->nv);
    for (int i = 0; i < m->nv; i++)
        fprintf(f, "%d\t%.17g %.17g %.17g  %g %d\r\n", i + first, m->x[3 * i], m->x[3 * i + 1],
                m->x[3 * i + 2], 0.5 * i, i % 2);
    fprintf(f, "# end\r\n");
    CHECK(fclose(f) == 0);
    snprintf(path, sizeof path, "%s.ele", stem);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "%d 4 1\n", m->ntet);
    for (int t = 0; t < m->ntet; t++) {
        const int *v = &m->tet[4 * t];
        fprintf(f, "  %d  %d %d %d %d  %d\n", t + first, v[0] + first, v[1] + first,
                (flip ? v[3] : v[2]) + first, (flip ? v[2] : v[3]) + first, t % 3);
        if (t == 0) fprintf(f, "\n# a comment between tetrahedra\n");
    }
    CHECK(fclose(f) == 0);
}

/* A block written as TetGen files (1- and 0-based, all tetrahedra inverted in the second)
 * reads back with the same positions and tetrahedra, whichever file names it. */
static void tetgen_roundtrip(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char stem[128], node[160], ele[160];
    tmp_file(&d, "block.1", stem, sizeof stem);
    snprintf(node, sizeof node, "%s.node", stem);
    snprintf(ele, sizeof ele, "%s.ele", stem);
    const double o[3] = {0.3, -0.1, 2.0};
    weft_mesh a = {0};
    if (make_block(&a, 0.4, 0.2, 0.9, 2, 2, 3, o)) {
        for (int variant = 0; variant < 2; variant++) {
            write_tetgen(&a, stem, variant ? 0 : 1, variant == 1);
            const char *names[3] = {stem, node, ele};
            for (int p = 0; p < 3; p++) {
                weft_mesh b = {0};
                weft_error err = {{0}};
                int rc = weft_mesh_read_tetgen(&b, names[p], &err);
                if (rc != WEFT_OK) fprintf(stderr, "read %s: %s\n", names[p], err.msg);
                CHECK(rc == WEFT_OK);
                CHECK(b.nv == a.nv && b.ntet == a.ntet && b.nt == a.nt && b.ne == a.ne);
                if (rc == WEFT_OK && b.nv == a.nv && b.ntet == a.ntet) {
                    CHECK(memcmp(a.x, b.x, 3 * sizeof(double) * (size_t)a.nv) == 0);
                    /* Inverted tetrahedra get their last two nodes swapped back. */
                    CHECK(memcmp(a.tet, b.tet, 4 * sizeof(int) * (size_t)a.ntet) == 0);
                    CHECK(b.tet_line != NULL && b.tet_line[0] == 2 && b.tet_line[1] == 5);
                    check_tet_mesh(&b);
                    CHECK_NEAR(weft_mesh_volume(&b, NULL), 0.4 * 0.2 * 0.9, 1e-14);
                }
                weft_mesh_free(&b);
            }
        }
    }
    weft_mesh_free(&a);
    remove(node), remove(ele);
    CHECK(rmdir(d.path) == 0);
}

/* One malformed TetGen mesh and what its error must say. */
typedef struct bad_tetgen {
    const char *node, *ele; /* file texts; NULL: the file is missing */
    const char *file;       /* "node" or "ele": the file the message names */
    const char *line;       /* ":N:" after the path, or NULL for a file-level error */
    const char *want1, *want2;
} bad_tetgen;

/* A unit corner tetrahedron plus a fifth point: 1-based, nodes 1-4 positive. */
#define TG_NODE "5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n"
#define TG_ELE "1 4 0\n1 1 2 3 4\n"

/* Malformed .node and .ele files fail naming file, line and what is wrong. */
static void tetgen_errors(void) {
    static const bad_tetgen bad[] = {
        {NULL, TG_ELE, "node", NULL, "cannot open", NULL},
        {TG_NODE, NULL, "ele", NULL, "cannot open", NULL},
        {"# only a comment\n\n", TG_ELE, "node", NULL, "empty file", NULL},
        {"five 3 0 0\n", TG_ELE, "node", ":1:", "bad point count 'five'", NULL},
        {"0 3 0 0\n", TG_ELE, "node", ":1:", "bad point count 0", NULL},
        {"5 2 0 0\n", TG_ELE, "node", ":1:", "bad dimension 2", NULL},
        {"5 3 0 2\n", TG_ELE, "node", ":1:", "bad boundary marker flag 2", NULL},
        {"5 3 0 0 7\n", TG_ELE, "node", ":1:", "header has 5 values", NULL},
        {"# c\n6 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n", TG_ELE, "node", ":2:",
         "announces 6 points but the file ends after 5", NULL},
        {TG_NODE "6 2 2 2\n", TG_ELE, "node", ":7:", "more data after the 5 points", NULL},
        {"5 3 0 0\n1 0 0 0\n2 1 0x 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n", TG_ELE, "node", ":3:",
         "bad number '0x' for y", NULL},
        {"5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 nan\n5 1 1 1\n", TG_ELE, "node", ":5:",
         "bad number 'nan' for z", NULL},
        {"5 3 0 0\n2 0 0 0\n3 1 0 0\n4 0 1 0\n5 0 0 1\n6 1 1 1\n", TG_ELE, "node", ":2:",
         "first point is numbered 2", "from 0 or 1"},
        {"5 3 0 0\n1 0 0 0\n2 1 0 0\n4 0 1 0\n4 0 0 1\n5 1 1 1\n", TG_ELE, "node", ":4:",
         "point numbered 4, expected 3", NULL},
        {"5 3 1 0\n1 0 0 0 9\n2 1 0 0\n3 0 1 0 9\n4 0 0 1 9\n5 1 1 1 9\n", TG_ELE, "node",
         ":3:", "expected 5 values", "got 4"},
        {"5 3 0 1\n1 0 0 0 1\n2 1 0 0 1.5\n3 0 1 0 0\n4 0 0 1 1\n5 1 1 1 0\n", TG_ELE, "node",
         ":3:", "bad boundary marker '1.5'", NULL},
        {TG_NODE, "1 10 0\n1 1 2 3 4 5 5 5 5 5 5\n", "ele", ":1:", "10 nodes per tetrahedron",
         "-o2"},
        {TG_NODE, "1 4 0\n1 1 2 3 6\n", "ele", ":2:", "node 6 out of range", "numbered 1..5"},
        {TG_NODE, "1 4 0\n1 0 1 2 3\n", "ele", ":2:", "node 0 out of range", NULL},
        {TG_NODE, "1 4 0\n1 1 2 x 4\n", "ele", ":2:", "bad node number 'x'", NULL},
        {TG_NODE, "1 4 0\n1 1 2 3 2\n", "ele", ":2:", "degenerate tetrahedron", "node 2 repeated"},
        {TG_NODE, "1 4 0\n1 1 2 3\n", "ele", ":2:", "expected 5 values", "got 4"},
        {TG_NODE, "2 4 0\n1 1 2 3 4\n", "ele", ":1:", "announces 2 tetrahedra", "after 1"},
        {TG_NODE, "1 4 0\n0 1 2 3 4\n1 1 2 3 5\n", "ele", ":3:", "more data after the 1 "
         "tetrahedra", NULL},
        /* Nodes 1, 2, 3 and 5 all lie in the plane z = 0. */
        {"5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 0\n", "1 4 0\n1 1 2 3 5\n", "ele",
         ":2:", "degenerate tetrahedron 1", "zero volume"},
        /* Two tetrahedra on the same side of face 1-2-3 (overlapping). */
        {"5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0.2 0.2 0.5\n",
         "2 4 0\n1 1 2 3 4\n2 1 2 3 5\n", "ele", ":3:", "same side of their shared face", NULL},
        /* Three tetrahedra on face 1-2-3. */
        {"6 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0 0 -1\n6 0.2 0.2 2\n",
         "3 4 0\n1 1 2 3 4\n2 1 3 2 5\n3 1 2 3 6\n", "ele", ":4:", "shared by 3 tetrahedra", NULL},
    };
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char stem[128], node[160], ele[160];
    tmp_file(&d, "bad", stem, sizeof stem);
    snprintf(node, sizeof node, "%s.node", stem);
    snprintf(ele, sizeof ele, "%s.ele", stem);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        remove(node), remove(ele);
        if (bad[i].node) write_text(node, bad[i].node);
        if (bad[i].ele) write_text(ele, bad[i].ele);
        weft_mesh m = {0};
        weft_error err = {{0}};
        int rc = weft_mesh_read_tetgen(&m, stem, &err);
        char where[200];
        snprintf(where, sizeof where, "%s%s", strcmp(bad[i].file, "node") ? ele : node,
                 bad[i].line ? bad[i].line : ":");
        bool ok = rc == WEFT_ERR_INPUT && strstr(err.msg, where) == err.msg &&
                  strstr(err.msg, bad[i].want1) &&
                  (!bad[i].want2 || strstr(err.msg, bad[i].want2)) && !strchr(err.msg, '\n');
        if (!ok) fprintf(stderr, "bad tetgen %zu: rc %d, message '%s'\n", i, rc, err.msg);
        CHECK(ok);
        CHECK(m.x == NULL && m.tet == NULL && m.tri == NULL && m.nv == 0 && m.ntet == 0);
        weft_mesh_free(&m);
    }
    /* A NUL byte: not a text file. */
    FILE *f = fopen(node, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite("5 3 0 0\n1 0\0 0 0\n", 1, 17, f);
        CHECK(fclose(f) == 0);
        weft_mesh m = {0};
        weft_error err = {{0}};
        CHECK(weft_mesh_read_tetgen(&m, node, &err) == WEFT_ERR_INPUT);
        CHECK(strstr(err.msg, ":2: NUL byte") != NULL);
    }
    /* Valid: the corner tetrahedron, 0-based, one inverted tetrahedron beside a positive
     * one (files may use either orientation); the unused point 5 is kept. */
    write_text(node, "5 3\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 0 0 -1\n");
    write_text(ele, "2\n0 0 1 2 3\n1 0 1 2 4\n");
    weft_mesh m = {0};
    weft_error err = {{0}};
    int rc = weft_mesh_read_tetgen(&m, node, &err);
    if (rc != WEFT_OK) fprintf(stderr, "valid tetgen: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    if (rc == WEFT_OK) {
        CHECK(m.nv == 5 && m.ntet == 2 && m.nt == 6);
        static const int want[8] = {0, 1, 2, 3, 0, 1, 4, 2};
        CHECK(memcmp(m.tet, want, sizeof want) == 0);
        CHECK_NEAR(check_tet_mesh(&m), 2.0 / 6.0, 1e-15);
    }
    weft_mesh_free(&m);
    remove(node), remove(ele);
    CHECK(rmdir(d.path) == 0);
}

/* weft_mesh_tet_surface refuses inverted, degenerate and out-of-range tetrahedra that a
 * caller hands it directly, naming the tetrahedron. */
static void tet_surface_errors(void) {
    static const double x[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0};
    static const struct {
        int tet[4];
        const char *want;
    } bad[] = {
        {{0, 2, 1, 3}, "inverted tetrahedron 1"},
        {{0, 1, 2, 4}, "degenerate tetrahedron 1 (1-based): zero volume"},
        {{0, 1, 1, 3}, "degenerate tetrahedron 1 (1-based): vertex 2 repeated"},
        {{0, 1, 2, 5}, "vertex index 6 out of range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        weft_mesh m = {0};
        m.nv = 5, m.ntet = 1;
        m.x = malloc(sizeof x), m.tet = malloc(4 * sizeof(int));
        CHECK(m.x && m.tet);
        if (!m.x || !m.tet) {
            weft_mesh_free(&m);
            continue;
        }
        memcpy(m.x, x, sizeof x), memcpy(m.tet, bad[i].tet, 4 * sizeof(int));
        weft_error err = {{0}};
        CHECK(weft_mesh_tet_surface(&m, "hand", &err) == WEFT_ERR_INPUT);
        bool ok = strstr(err.msg, "hand: ") == err.msg && strstr(err.msg, bad[i].want);
        if (!ok) fprintf(stderr, "case %zu: '%s'\n", i, err.msg);
        CHECK(ok);
        CHECK(m.tri == NULL && m.nt == 0);
        weft_mesh_free(&m);
    }
}

static const check_case cases[] = {
    {"grid_counts", grid_counts},
    {"grid_alternating", grid_alternating},
    {"hinge_orientation", hinge_orientation},
    {"icosphere", icosphere},
    {"obj_roundtrip", obj_roundtrip},
    {"obj_errors", obj_errors},
    {"volume_cube", volume_cube},
    {"tet_block_counts", tet_block_counts},
    {"tet_block_surface", tet_block_surface},
    {"tetgen_roundtrip", tetgen_roundtrip},
    {"tetgen_errors", tetgen_errors},
    {"tet_surface_errors", tet_surface_errors},
    {NULL, NULL},
};

int main(int argc, char **argv) { return check_main(argc, argv, cases); }
