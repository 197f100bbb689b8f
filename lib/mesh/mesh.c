/* mesh.c — triangle meshes: the generated grid and icosphere, the union of meshes as
 * separate components, the derived topology (edges, hinges, boundary) with its manifold
 * and orientation checks, enclosed volume.
 *
 * Topology is built by sorting half-edges, so it costs O(n log n) and its ordering
 * (edges by vertex pair, hinges in edge order) is the same on every platform.
 * Vertex and triangle numbers in messages are 1-based, like OBJ files.
 */
#include "weft.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One side of an edge as seen from one triangle: the edge tri[3t+k] -> tri[3t+(k+1)%3]. */
typedef struct half_edge {
    int lo, hi; /* the edge's vertices, lo < hi */
    int t, k;   /* triangle and corner where the half-edge starts */
} half_edge;

/* Frees the arrays derived by weft_mesh_build_topology and clears their counts. */
static void free_topology(weft_mesh *m) {
    free(m->edge);
    free(m->edge_tri);
    free(m->hinge);
    free(m->hinge_edge);
    free(m->boundary);
    m->edge = m->edge_tri = m->hinge = m->hinge_edge = m->boundary = NULL;
    m->ne = m->nh = m->nb = 0;
    m->closed = false;
}

/* Frees everything m owns and zeroes it; safe on a zeroed mesh and on NULL. */
void weft_mesh_free(weft_mesh *m) {
    if (!m) return;
    free_topology(m);
    free(m->x);
    free(m->tri);
    free(m->uv);
    free(m->tri_uv);
    free(m->tri_line);
    free(m->tet);
    free(m->tet_line);
    memset(m, 0, sizeof *m);
}

/* malloc of n elements of size sz, NULL on overflow; never asks for 0 bytes. */
static void *alloc_array(size_t n, size_t sz) {
    if (n == 0) n = 1; /* malloc(0) may return NULL, which would read as out of memory */
    if (n > SIZE_MAX / sz) return NULL;
    return malloc(n * sz);
}

/* Fills m with a grid mesh (triangles, material coordinates) and its topology.
 * m's previous contents are overwritten, not freed; on failure m is left zeroed. */
int weft_mesh_grid(weft_mesh *m, const weft_grid_desc *d, weft_error *err) {
    memset(m, 0, sizeof *m);
    if (!d) return weft_fail(err, WEFT_ERR_INPUT, "grid: no grid description");
    if (!(isfinite(d->width) && d->width > 0 && isfinite(d->height) && d->height > 0))
        return weft_fail(err, WEFT_ERR_INPUT,
                         "grid: width and height must be finite and > 0 (got %g m x %g m)",
                         d->width, d->height);
    if (d->nx < 2 || d->ny < 2)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "grid: nx and ny must be >= 2 vertices (got %d x %d)", d->nx, d->ny);
    /* 6*nt must fit an int: topology indexes hinge[4h+3] and tri[3t+2] with ints. */
    long long quads = (long long)(d->nx - 1) * (d->ny - 1);
    if ((long long)d->nx * d->ny > INT_MAX / 3 || quads > INT_MAX / 12)
        return weft_fail(err, WEFT_ERR_INPUT, "grid: %d x %d vertices is too many", d->nx,
                         d->ny);
    if ((long long)d->nx * d->ny > WEFT_MAX_VERTICES || 2 * quads > WEFT_MAX_ELEMENTS)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "grid: %d x %d vertices is beyond the limit of %d vertices and %d "
                         "triangles (WEFT_MAX_VERTICES, WEFT_MAX_ELEMENTS)",
                         d->nx, d->ny, WEFT_MAX_VERTICES, WEFT_MAX_ELEMENTS);
    if (d->plane != WEFT_PLANE_XY && d->plane != WEFT_PLANE_XZ)
        return weft_fail(err, WEFT_ERR_INPUT, "grid: unknown plane %d", (int)d->plane);
    if (d->diagonals != WEFT_DIAG_ALTERNATING && d->diagonals != WEFT_DIAG_REGULAR)
        return weft_fail(err, WEFT_ERR_INPUT, "grid: unknown diagonal style %d",
                         (int)d->diagonals);
    for (int k = 0; k < 3; k++)
        if (!isfinite(d->origin[k]))
            return weft_fail(err, WEFT_ERR_INPUT, "grid: origin must be finite");

    const int nx = d->nx, ny = d->ny;
    const int nv = nx * ny, nt = (int)(2 * quads);
    /* The grid's axes; XZ has v = -z so that u x v = +y points up. */
    const double u[3] = {1, 0, 0};
    const double v[3] = {0, d->plane == WEFT_PLANE_XY ? 1 : 0, d->plane == WEFT_PLANE_XZ ? -1 : 0};

    m->x = alloc_array(3 * (size_t)nv, sizeof *m->x);
    m->uv = alloc_array(2 * (size_t)nv, sizeof *m->uv);
    m->tri = alloc_array(3 * (size_t)nt, sizeof *m->tri);
    m->tri_uv = alloc_array(3 * (size_t)nt, sizeof *m->tri_uv);
    if (!m->x || !m->uv || !m->tri || !m->tri_uv) {
        weft_mesh_free(m);
        return weft_fail(err, WEFT_ERR_NOMEM, "grid: out of memory for %d x %d vertices", nx,
                         ny);
    }
    m->nv = nv;
    m->nuv = nv;
    m->nt = nt;

    for (int j = 0; j < ny; j++) {
        for (int i = 0; i < nx; i++) {
            /* i*width/(nx-1) rather than i*dx puts the last column exactly at width. */
            double s = (double)i * d->width / (nx - 1);
            double t = (double)j * d->height / (ny - 1);
            int p = i + j * nx;
            for (int k = 0; k < 3; k++) m->x[3 * p + k] = d->origin[k] + s * u[k] + t * v[k];
            m->uv[2 * p + 0] = s;
            m->uv[2 * p + 1] = t;
        }
    }

    /* Quad corners a=(i,j), b=(i+1,j), c=(i+1,j+1), e=(i,j+1) run counter-clockwise in
     * (u, v), hence about u x v. REGULAR splits every quad along a-c; ALTERNATING uses
     * a-c on even (i+j) and b-e on odd, so no direction is preferred over the sheet. */
    int *tr = m->tri;
    for (int j = 0; j < ny - 1; j++) {
        for (int i = 0; i < nx - 1; i++) {
            int a = i + j * nx, b = a + 1, c = b + nx, e = a + nx;
            bool main_diag = d->diagonals == WEFT_DIAG_REGULAR || (i + j) % 2 == 0;
            if (main_diag) {
                tr[0] = a, tr[1] = b, tr[2] = c;
                tr[3] = a, tr[4] = c, tr[5] = e;
            } else {
                tr[0] = a, tr[1] = b, tr[2] = e;
                tr[3] = b, tr[4] = c, tr[5] = e;
            }
            tr += 6;
        }
    }
    /* Material coordinates are laid out like the vertices, so they share the indices. */
    memcpy(m->tri_uv, m->tri, 3 * (size_t)nt * sizeof *m->tri);
    m->grid_nx = nx;
    m->grid_ny = ny;

    int rc = weft_mesh_build_topology(m, "grid", err);
    if (rc != WEFT_OK) weft_mesh_free(m);
    return rc;
}

/* Appends src to dst as a separate connected component: src's vertices follow dst's, its
 * triangles follow dst's with indices shifted by dst->nv (and its material coordinates by
 * dst->nuv). Appending to an empty mesh copies src, source lines and grid layout
 * included. Otherwise the result keeps material coordinates only if both meshes have
 * them, and drops source lines (they would name lines of different files under one
 * `where`) and the grid layout; the caller keeps what it needs of src first. Tetrahedral
 * meshes are refused. dst's topology is cleared; on failure dst is unchanged. */
int weft_mesh_append(weft_mesh *dst, const weft_mesh *src, weft_error *err) {
    if (dst->ntet > 0 || src->ntet > 0)
        return weft_fail(err, WEFT_ERR_INPUT, "mesh: tetrahedral meshes cannot be appended");
    if ((long long)dst->nv + src->nv > INT_MAX / 3 || (long long)dst->nt + src->nt > INT_MAX / 6)
        return weft_fail(err, WEFT_ERR_INPUT, "mesh: %d + %d vertices, %d + %d triangles is "
                         "too many", dst->nv, src->nv, dst->nt, src->nt);
    const bool empty = dst->nv == 0 && dst->nt == 0;
    const bool uv = src->nuv > 0 && src->tri_uv && (empty || (dst->nuv > 0 && dst->tri_uv));
    const bool lines = empty && src->tri_line;
    const int nv = dst->nv + src->nv, nt = dst->nt + src->nt, nuv = uv ? dst->nuv + src->nuv : 0;
    double *x = alloc_array(3 * (size_t)nv, sizeof *x);
    int *tri = alloc_array(3 * (size_t)nt, sizeof *tri);
    double *uvs = uv ? alloc_array(2 * (size_t)nuv, sizeof *uvs) : NULL;
    int *tri_uv = uv ? alloc_array(3 * (size_t)nt, sizeof *tri_uv) : NULL;
    int *tri_line = lines ? alloc_array((size_t)nt, sizeof *tri_line) : NULL;
    if (!x || !tri || (uv && (!uvs || !tri_uv)) || (lines && !tri_line)) {
        free(x), free(tri), free(uvs), free(tri_uv), free(tri_line);
        return weft_fail(err, WEFT_ERR_NOMEM, "mesh: out of memory appending %d vertices",
                         src->nv);
    }
    if (dst->nv > 0) memcpy(x, dst->x, 3 * (size_t)dst->nv * sizeof *x);
    if (src->nv > 0) memcpy(x + 3 * (size_t)dst->nv, src->x, 3 * (size_t)src->nv * sizeof *x);
    if (dst->nt > 0) memcpy(tri, dst->tri, 3 * (size_t)dst->nt * sizeof *tri);
    for (int i = 0; i < 3 * src->nt; i++) tri[3 * dst->nt + i] = src->tri[i] + dst->nv;
    if (uv) {
        if (dst->nuv > 0) memcpy(uvs, dst->uv, 2 * (size_t)dst->nuv * sizeof *uvs);
        memcpy(uvs + 2 * (size_t)dst->nuv, src->uv, 2 * (size_t)src->nuv * sizeof *uvs);
        if (dst->nt > 0) memcpy(tri_uv, dst->tri_uv, 3 * (size_t)dst->nt * sizeof *tri_uv);
        for (int i = 0; i < 3 * src->nt; i++) tri_uv[3 * dst->nt + i] = src->tri_uv[i] + dst->nuv;
    }
    if (lines && src->nt > 0) memcpy(tri_line, src->tri_line, (size_t)src->nt * sizeof *tri_line);
    const int gx = empty ? src->grid_nx : 0, gy = empty ? src->grid_ny : 0;
    weft_mesh_free(dst);
    dst->nv = nv, dst->nt = nt, dst->nuv = nuv;
    dst->x = x, dst->tri = tri, dst->uv = uvs, dst->tri_uv = tri_uv, dst->tri_line = tri_line;
    dst->grid_nx = gx, dst->grid_ny = gy;
    return WEFT_OK;
}

/* One entry of the edge -> midpoint map used while subdividing; a < 0 marks a free slot. */
typedef struct midpoint_slot {
    int a, b, mid;
} midpoint_slot;

/* The 12 vertices of the icosahedron (±1, ±φ, 0) and cyclic permutations, unnormalised. */
static const double ico_vertex[12][3] = {
    {-1, 1.6180339887498949, 0}, {1, 1.6180339887498949, 0},
    {-1, -1.6180339887498949, 0}, {1, -1.6180339887498949, 0},
    {0, -1, 1.6180339887498949}, {0, 1, 1.6180339887498949},
    {0, -1, -1.6180339887498949}, {0, 1, -1.6180339887498949},
    {1.6180339887498949, 0, -1}, {1.6180339887498949, 0, 1},
    {-1.6180339887498949, 0, -1}, {-1.6180339887498949, 0, 1},
};

/* Its 20 faces, counter-clockwise seen from outside. */
static const int ico_face[20][3] = {
    {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
    {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
    {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
    {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1},
};

/* Scales the 3-vector p to unit length. */
static void normalize3(double *p) {
    double r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    p[0] /= r, p[1] /= r, p[2] /= r;
}

/* Returns the vertex at the midpoint of edge a-b on the unit sphere, creating it (as
 * vertex *nv) the first time so that both triangles of the edge share it. */
static int midpoint(midpoint_slot *table, size_t mask, double *x, int *nv, int a, int b) {
    if (a > b) {
        int s = a;
        a = b, b = s;
    }
    /* Multiplicative hash of the pair; linear probing in a table at most half full. */
    uint64_t h = ((uint64_t)(uint32_t)a * 0x9E3779B97F4A7C15u) ^ (uint64_t)(uint32_t)b;
    h *= 0xBF58476D1CE4E5B9u;
    size_t i = (size_t)(h >> 32) & mask;
    while (table[i].a >= 0) {
        if (table[i].a == a && table[i].b == b) return table[i].mid;
        i = (i + 1) & mask;
    }
    int mid = (*nv)++;
    for (int k = 0; k < 3; k++) x[3 * mid + k] = 0.5 * (x[3 * a + k] + x[3 * b + k]);
    normalize3(&x[3 * mid]);
    table[i].a = a, table[i].b = b, table[i].mid = mid;
    return mid;
}

/* Fills m with a closed icosphere (outward normals) of the given radius and level;
 * center NULL means the origin. m's previous contents are overwritten, not freed. */
int weft_mesh_icosphere(weft_mesh *m, double radius, int subdivisions, const double center[3],
                        weft_error *err) {
    memset(m, 0, sizeof *m);
    if (!(isfinite(radius) && radius > 0))
        return weft_fail(err, WEFT_ERR_INPUT, "icosphere: radius must be finite and > 0 (got %g m)",
                         radius);
    /* Level 7 already has 327680 triangles; 8 would pass a million for no use here. */
    if (subdivisions < 0 || subdivisions > 7)
        return weft_fail(err, WEFT_ERR_INPUT, "icosphere: subdivisions must be in 0..7 (got %d)",
                         subdivisions);
    const double zero[3] = {0, 0, 0};
    if (!center) center = zero;
    for (int k = 0; k < 3; k++)
        if (!isfinite(center[k]))
            return weft_fail(err, WEFT_ERR_INPUT, "icosphere: center must be finite");

    /* Each level splits every triangle in four and adds one vertex per edge. */
    const int nv_final = 10 * (1 << (2 * subdivisions)) + 2;
    const int nt_final = 20 * (1 << (2 * subdivisions));
    /* The map must hold the edges of the level being split: 3/2 of its triangles. */
    size_t table_cap = 1;
    while (table_cap < (size_t)3 * (size_t)(nt_final / 4)) table_cap *= 2;

    double *x = alloc_array(3 * (size_t)nv_final, sizeof *x);
    int *tri = alloc_array(3 * (size_t)nt_final, sizeof *tri);
    int *next = subdivisions > 0 ? alloc_array(3 * (size_t)nt_final, sizeof *next) : NULL;
    midpoint_slot *table = subdivisions > 0 ? alloc_array(table_cap, sizeof *table) : NULL;
    if (!x || !tri || (subdivisions > 0 && (!next || !table))) {
        free(x), free(tri), free(next), free(table);
        return weft_fail(err, WEFT_ERR_NOMEM, "icosphere: out of memory for level %d",
                         subdivisions);
    }

    int nv = 12, nt = 20;
    for (int i = 0; i < 12; i++) {
        for (int k = 0; k < 3; k++) x[3 * i + k] = ico_vertex[i][k];
        normalize3(&x[3 * i]);
    }
    for (int t = 0; t < 20; t++)
        for (int k = 0; k < 3; k++) tri[3 * t + k] = ico_face[t][k];

    for (int level = 0; level < subdivisions; level++) {
        size_t cap = 1;
        while (cap < (size_t)3 * (size_t)nt) cap *= 2; /* >= twice the 3nt/2 edges */
        for (size_t i = 0; i < cap; i++) table[i].a = -1;
        for (int t = 0; t < nt; t++) {
            int a = tri[3 * t], b = tri[3 * t + 1], c = tri[3 * t + 2];
            int ab = midpoint(table, cap - 1, x, &nv, a, b);
            int bc = midpoint(table, cap - 1, x, &nv, b, c);
            int ca = midpoint(table, cap - 1, x, &nv, c, a);
            /* Three corner triangles and the middle one, all keeping a-b-c's winding. */
            int *o = &next[12 * t];
            o[0] = a, o[1] = ab, o[2] = ca;
            o[3] = b, o[4] = bc, o[5] = ab;
            o[6] = c, o[7] = ca, o[8] = bc;
            o[9] = ab, o[10] = bc, o[11] = ca;
        }
        int *s = tri;
        tri = next, next = s;
        nt *= 4;
    }
    free(next);
    free(table);

    for (int i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) x[3 * i + k] = center[k] + radius * x[3 * i + k];

    m->nv = nv;
    m->nt = nt;
    m->x = x;
    m->tri = tri;
    int rc = weft_mesh_build_topology(m, "icosphere", err);
    if (rc != WEFT_OK) weft_mesh_free(m);
    return rc;
}

/* Orders half-edges by edge (lo, hi), then triangle and corner, so the order is total
 * and qsort's instability cannot change the result. */
static int cmp_half_edge(const void *pa, const void *pb) {
    const half_edge *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

/* "where:line" of triangle t when the mesh knows its source lines, else "where". */
static const char *tri_where(const weft_mesh *m, int t, const char *where, char *buf, size_t n) {
    if (!m->tri_line) return where;
    snprintf(buf, n, "%s:%d", where, m->tri_line[t]);
    return buf;
}

/* Checks one triangle's indices and area; returns WEFT_OK or the error. */
static int check_triangle(const weft_mesh *m, int t, const char *where, weft_error *err) {
    char buf[600];
    where = tri_where(m, t, where, buf, sizeof buf);
    const int *v = &m->tri[3 * t];
    for (int k = 0; k < 3; k++)
        if (v[k] < 0 || v[k] >= m->nv)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: triangle %d (1-based) has vertex index out of range "
                             "(%d, %d vertices)",
                             where, t + 1, v[k] + 1, m->nv);
    for (int k = 0; k < 3; k++)
        if (v[k] == v[(k + 1) % 3])
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: degenerate triangle %d (vertex %d repeated)", where, t + 1,
                             v[k] + 1);
    const double *a = &m->x[3 * v[0]], *b = &m->x[3 * v[1]], *c = &m->x[3 * v[2]];
    double e1[3], e2[3], e3[3];
    for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], e3[k] = c[k] - b[k];
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    double l2 = fmax(fmax(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2],
                          e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]),
                     e3[0] * e3[0] + e3[1] * e3[1] + e3[2] * e3[2]);
    /* Relative to the longest edge so the test does not depend on the mesh's scale;
     * 1e-14 leaves room for rounding but catches collinear and coincident corners. */
    if (sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) <= 1e-14 * l2)
        return weft_fail(err, WEFT_ERR_INPUT, "%s: degenerate triangle %d (zero area)", where,
                         t + 1);
    return WEFT_OK;
}

/* Derives edges, hinges and boundary; fails naming the edge if the mesh is non-manifold
 * or inconsistently oriented, or naming a degenerate or out-of-range triangle. */
int weft_mesh_build_topology(weft_mesh *m, const char *where, weft_error *err) {
    if (!where) where = "mesh";
    free_topology(m);
    if (m->nv < 0 || m->nt < 0 || (m->nt > 0 && !m->tri) || (m->nv > 0 && !m->x))
        return weft_fail(err, WEFT_ERR_INPUT, "%s: malformed mesh (%d vertices, %d triangles)",
                         where, m->nv, m->nt);
    /* 6*nt bounds hinge[4h+3] (nh <= 3nt/2) and 3*nv bounds x[3v+2] as ints. */
    if (m->nt > INT_MAX / 6 || m->nv > INT_MAX / 3)
        return weft_fail(err, WEFT_ERR_INPUT, "%s: too many triangles or vertices", where);
    for (int i = 0; i < 3 * m->nv; i++)
        if (!isfinite(m->x[i]))
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: vertex %d (1-based) has a non-finite position", where,
                             i / 3 + 1);
    for (int t = 0; t < m->nt; t++) {
        int rc = check_triangle(m, t, where, err);
        if (rc != WEFT_OK) return rc;
    }

    const int nhe = 3 * m->nt;
    half_edge *he = alloc_array((size_t)nhe, sizeof *he);
    if (!he) return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory building topology", where);
    for (int t = 0; t < m->nt; t++) {
        for (int k = 0; k < 3; k++) {
            int a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
            half_edge *h = &he[3 * t + k];
            h->lo = a < b ? a : b;
            h->hi = a < b ? b : a;
            h->t = t;
            h->k = k;
        }
    }
    qsort(he, (size_t)nhe, sizeof *he, cmp_half_edge);

    /* First pass: count edges and check that each has one or two consistent sides. */
    int ne = 0, nh = 0, nb = 0;
    for (int i = 0; i < nhe;) {
        int j = i + 1;
        while (j < nhe && he[j].lo == he[i].lo && he[j].hi == he[i].hi) j++;
        int n = j - i;
        if (n > 2) {
            int lo = he[i].lo, hi = he[i].hi;
            char buf[600];
            /* Name the line of the (sorted) third triangle: the first one too many. */
            const char *at = tri_where(m, he[i + 2].t, where, buf, sizeof buf);
            free(he);
            return weft_fail(err, WEFT_ERR_INPUT,
                             "%s: non-manifold edge between vertices %d and %d (1-based) is "
                             "shared by %d triangles",
                             at, lo + 1, hi + 1, n);
        }
        if (n == 2) {
            /* Consistent neighbours traverse their shared edge in opposite directions. */
            bool fwd0 = m->tri[3 * he[i].t + he[i].k] == he[i].lo;
            bool fwd1 = m->tri[3 * he[i + 1].t + he[i + 1].k] == he[i].lo;
            if (fwd0 == fwd1) {
                int lo = he[i].lo, hi = he[i].hi, t0 = he[i].t, t1 = he[i + 1].t;
                char buf[600];
                const char *at = tri_where(m, t1, where, buf, sizeof buf);
                free(he);
                return weft_fail(err, WEFT_ERR_INPUT,
                                 "%s: inconsistent triangle orientation across edge %d-%d "
                                 "(1-based): triangles %d and %d both run it the same way",
                                 at, lo + 1, hi + 1, t0 + 1, t1 + 1);
            }
            nh++;
        } else {
            nb++;
        }
        ne++;
        i = j;
    }

    m->edge = alloc_array(2 * (size_t)ne, sizeof *m->edge);
    m->edge_tri = alloc_array(2 * (size_t)ne, sizeof *m->edge_tri);
    m->hinge = alloc_array(4 * (size_t)nh, sizeof *m->hinge);
    m->hinge_edge = alloc_array((size_t)nh, sizeof *m->hinge_edge);
    m->boundary = alloc_array((size_t)nb, sizeof *m->boundary);
    if (!m->edge || !m->edge_tri || !m->hinge || !m->hinge_edge || !m->boundary) {
        free(he);
        free_topology(m);
        return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory building topology", where);
    }

    /* Second pass: fill the arrays in edge order. */
    int e = 0, h = 0, b = 0;
    for (int i = 0; i < nhe; e++) {
        const half_edge *s0 = &he[i];
        bool two = i + 1 < nhe && he[i + 1].lo == s0->lo && he[i + 1].hi == s0->hi;
        m->edge[2 * e] = s0->lo;
        m->edge[2 * e + 1] = s0->hi;
        m->edge_tri[2 * e] = s0->t;
        m->edge_tri[2 * e + 1] = two ? he[i + 1].t : -1;
        if (two) {
            /* Triangle A is the lower-numbered one; (v0, v1) is the edge as A runs it. */
            const half_edge *s1 = &he[i + 1];
            const int *ta = &m->tri[3 * s0->t], *tb = &m->tri[3 * s1->t];
            int *hg = &m->hinge[4 * h];
            hg[0] = ta[s0->k];
            hg[1] = ta[(s0->k + 1) % 3];
            hg[2] = ta[(s0->k + 2) % 3];
            hg[3] = tb[(s1->k + 2) % 3];
            m->hinge_edge[h++] = e;
            i += 2;
        } else {
            m->boundary[b++] = e;
            i += 1;
        }
    }
    free(he);
    m->ne = ne;
    m->nh = nh;
    m->nb = nb;
    m->closed = nb == 0 && ne > 0;
    return WEFT_OK;
}

double weft_mesh_volume_gradient(const weft_mesh *m, const double *x, double *g) {
    memset(g, 0, 3 * (size_t)m->nv * sizeof *g);
    double V = 0.0;
    for (int t = 0; t < m->nt; t++) {
        const int *tri = &m->tri[3 * t];
        for (int a = 0; a < 3; a++) {
            const double *pb = &x[3 * tri[(a + 1) % 3]], *pc = &x[3 * tri[(a + 2) % 3]];
            double cr[3] = {pb[1] * pc[2] - pb[2] * pc[1], pb[2] * pc[0] - pb[0] * pc[2],
                            pb[0] * pc[1] - pb[1] * pc[0]};
            for (int k = 0; k < 3; k++) g[3 * tri[a] + k] += cr[k] / 6.0;
            if (a == 0) {
                const double *pa = &x[3 * tri[0]];
                V += (pa[0] * cr[0] + pa[1] * cr[1] + pa[2] * cr[2]) / 6.0;
            }
        }
    }
    return V;
}

/* Enclosed volume (m^3) of the triangles at positions x (3*nv; the rest positions if
 * NULL): the divergence theorem, (1/6) Σ (xa × xb)·xc; meaningful if closed. */
double weft_mesh_volume(const weft_mesh *m, const double *x) {
    if (!x) x = m->x;
    double sum = 0;
    for (int t = 0; t < m->nt; t++) {
        const double *a = &x[3 * m->tri[3 * t]], *b = &x[3 * m->tri[3 * t + 1]],
                     *c = &x[3 * m->tri[3 * t + 2]];
        sum += (a[1] * b[2] - a[2] * b[1]) * c[0] + (a[2] * b[0] - a[0] * b[2]) * c[1] +
               (a[0] * b[1] - a[1] * b[0]) * c[2];
    }
    return sum / 6;
}
