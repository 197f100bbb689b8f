/* test_sparse.c — the block-sparse Hessian (lib/linalg/sparse.c, weft_sparse.h): pattern,
 * assembly, products, CHOLMOD export, the interleaved LDLᵀ solve and RCM ordering.
 *
 * The energies here are test-local types with hand-derived exact Hessians, so the
 * assembly is tested independently of the energies/ folder:
 *   test_spring      Ψ = ½ k (|x0 − x1| − ℓ0)²                      (edges, nv = 2)
 *   test_second_diff Ψ = ½ k |x0 − 2 x1 + x2 − r|², r its rest value (triangles, nv = 3)
 *   test_volume      Ψ = ½ k (V − V0)², V the signed volume of the  (hinges, nv = 4)
 *                    tetrahedron x0 x1 x2 x3
 * They act on three kinds of model: a hand-built grid with all three, a "fan" whose
 * centre vertex lies in every element (no two batches can share a colour), and the
 * built-in hanging_cloth scene with its terms retyped to the test types. The case
 * `registry` runs the same checks on every term of every built-in scene whose registered
 * type has a Hessian, so the real energies are covered as soon as they provide one.
 *
 * Random numbers come from a fixed-seed LCG, so runs are reproducible.
 */
#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_sparse.h"
#include "weft_cholmod.h"

#include <stdbool.h>
#include <stdint.h>

#include "alloc_count.h"

/* ------------------------------------------------------------------------------ */
/* Test energy types                                                               */
/* ------------------------------------------------------------------------------ */

/* Spring: d = x0 − x1, l = |d|, u = d/l, C = l − ℓ0 (rest[0]), k (N/m):
 *   Ψ = ½ k C²,  ∂Ψ/∂x0 = k C u = −∂Ψ/∂x1,
 *   ∂²Ψ/∂x0² = k [(1 − s) u uᵀ + s I] with s = C/l = 1 − ℓ0/l, blocks ±(that) elsewhere.
 * Eigenvalues of the 3×3 block: k along u, k s twice across it; PSD modes clamp s to
 * ≥ 0. An element with k2 != 0 plays one that left its domain: Ψ = +∞, zero derivatives. */
static void spring_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    e->rest[0] = norm3(d);
    e->k = p->stiffness;
    e->k2 = 0.0;
}

static double spring_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                             double *g, double *H) {
    if (e->k2 != 0.0) {
        if (g) memset(g, 0, 6 * sizeof *g);
        memset(H, 0, 36 * sizeof *H);
        return INFINITY;
    }
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l = norm3(d), C = l - e->rest[0], u[3] = {d[0] / l, d[1] / l, d[2] / l};
    if (g)
        for (int k = 0; k < 3; k++) g[k] = e->k * C * u[k], g[3 + k] = -g[k];
    double s = C / l;
    if (mode != WEFT_HESSIAN_EXACT && s < 0.0) s = 0.0;
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) {
            double h = e->k * ((1.0 - s) * u[p] * u[q] + (p == q ? s : 0.0));
            H[p * 6 + q] = H[(3 + p) * 6 + 3 + q] = h;
            H[p * 6 + 3 + q] = H[(3 + p) * 6 + q] = -h;
        }
    return 0.5 * e->k * C * C;
}

static double spring_gradient(const weft_element *e, const double *xe, double *g) {
    double H[36];
    return spring_hessian(e, xe, WEFT_HESSIAN_EXACT, g, H);
}

static double spring_energy(const weft_element *e, const double *xe) {
    if (e->k2 != 0.0) return INFINITY;
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double C = norm3(d) - e->rest[0];
    return 0.5 * e->k * C * C;
}

static const weft_energy_type test_spring = {
    .name = "test_spring", .kind = WEFT_ELEM_EDGE, .nv = 2, .init = spring_init,
    .energy = spring_energy, .gradient = spring_gradient, .hessian = spring_hessian};

/* Second difference: s = x0 − 2 x1 + x2 − r with r = rest[0..2], c = (1, −2, 1):
 *   Ψ = ½ k |s|²,  ∂Ψ/∂x_a = k c_a s,  ∂²Ψ/∂x_a∂x_b = k c_a c_b I (constant and PSD). */
static const double C2[3] = {1.0, -2.0, 1.0};

static void second_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    for (int k = 0; k < 3; k++) e->rest[k] = xe[k] - 2.0 * xe[3 + k] + xe[6 + k];
    e->k = p->stiffness;
}

static double second_energy(const weft_element *e, const double *xe) {
    double s[3];
    for (int k = 0; k < 3; k++) s[k] = xe[k] - 2.0 * xe[3 + k] + xe[6 + k] - e->rest[k];
    return 0.5 * e->k * dot3(s, s);
}

static double second_gradient(const weft_element *e, const double *xe, double *g) {
    double s[3];
    for (int k = 0; k < 3; k++) s[k] = xe[k] - 2.0 * xe[3 + k] + xe[6 + k] - e->rest[k];
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 3; k++) g[3 * a + k] = e->k * C2[a] * s[k];
    return 0.5 * e->k * dot3(s, s);
}

static double second_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                             double *g, double *H) {
    (void)mode;
    for (int r = 0; r < 9; r++)
        for (int c = 0; c < 9; c++)
            H[9 * r + c] = r % 3 == c % 3 ? e->k * C2[r / 3] * C2[c / 3] : 0.0;
    double gg[9];
    double psi = second_gradient(e, xe, gg);
    if (g) memcpy(g, gg, sizeof gg);
    return psi;
}

static const weft_energy_type test_second_diff = {
    .name = "test_second_diff", .kind = WEFT_ELEM_TRIANGLE, .nv = 3, .init = second_init,
    .energy = second_energy, .gradient = second_gradient, .hessian = second_hessian};

/* Volume: e_a = x_a − x0 (a = 1, 2, 3), V = (1/6) e1 · (e2 × e3), k (J/m⁶):
 *   Ψ = ½ k (V − V0)²,  ∇Ψ = k (V − V0) ∇V,
 *   ∂V/∂x1 = (e2 × e3)/6, ∂V/∂x2 = (e3 × e1)/6, ∂V/∂x3 = (e1 × e2)/6, ∂V/∂x0 = −their sum,
 *   ∇²Ψ = k ∇V ∇Vᵀ + k (V − V0) ∇²V,
 *   ∂²V/∂e_a∂e_b = (1/6) sgn(a b c) M(e_c), M(w)_ij = ε_ijk w_k, for {a, b, c} = {1, 2, 3};
 * the rows and columns of x0 follow from e_a = x_a − x0 (minus the sums over a). PSD
 * modes return the Gauss-Newton part k ∇V ∇Vᵀ. */
static void volume_grad(const double *xe, double *V, double *gv) {
    double e[3][3];
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 3; k++) e[a][k] = xe[3 * (a + 1) + k] - xe[k];
    cross3(e[1], e[2], &gv[3]);
    cross3(e[2], e[0], &gv[6]);
    cross3(e[0], e[1], &gv[9]);
    *V = dot3(e[0], &gv[3]) / 6.0;
    for (int k = 0; k < 3; k++) {
        gv[3 + k] /= 6.0, gv[6 + k] /= 6.0, gv[9 + k] /= 6.0;
        gv[k] = -(gv[3 + k] + gv[6 + k] + gv[9 + k]);
    }
}

static void volume_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double gv[12];
    volume_grad(xe, &e->rest[0], gv);
    e->k = p->stiffness;
}

static double volume_energy(const weft_element *e, const double *xe) {
    double V, gv[12];
    volume_grad(xe, &V, gv);
    return 0.5 * e->k * (V - e->rest[0]) * (V - e->rest[0]);
}

static double volume_gradient(const weft_element *e, const double *xe, double *g) {
    double V, gv[12];
    volume_grad(xe, &V, gv);
    for (int r = 0; r < 12; r++) g[r] = e->k * (V - e->rest[0]) * gv[r];
    return 0.5 * e->k * (V - e->rest[0]) * (V - e->rest[0]);
}

static double volume_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                             double *g, double *H) {
    double V, gv[12];
    volume_grad(xe, &V, gv);
    double dv = V - e->rest[0];
    for (int r = 0; r < 12; r++)
        for (int c = 0; c < 12; c++) H[12 * r + c] = e->k * gv[r] * gv[c];
    if (mode == WEFT_HESSIAN_EXACT) {
        double ev[3][3], He[9][9] = {{0}};
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 3; k++) ev[a][k] = xe[3 * (a + 1) + k] - xe[k];
        /* The even permutations (a, b, c) of (0, 1, 2); odd ones are (b, a, c). */
        static const int perm[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
        for (int s = 0; s < 3; s++) {
            int a = perm[s][0], b = perm[s][1], c = perm[s][2];
            const double *w = ev[c];
            double M[3][3] = {{0, w[2], -w[1]}, {-w[2], 0, w[0]}, {w[1], -w[0], 0}};
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    He[3 * a + i][3 * b + j] = M[i][j] / 6.0;
                    He[3 * b + i][3 * a + j] = -M[i][j] / 6.0;
                }
        }
        /* Back to x: rows/columns of x0 are minus the sums over the e_a. */
        double Hx[12][12] = {{0}};
        for (int r = 0; r < 9; r++)
            for (int c = 0; c < 9; c++) {
                double h = He[r][c];
                int i = r % 3, j = c % 3;
                Hx[3 + r][3 + c] += h;
                Hx[i][3 + c] -= h;
                Hx[3 + r][j] -= h;
                Hx[i][j] += h;
            }
        for (int r = 0; r < 12; r++)
            for (int c = 0; c < 12; c++) H[12 * r + c] += e->k * dv * Hx[r][c];
    }
    if (g)
        for (int r = 0; r < 12; r++) g[r] = e->k * dv * gv[r];
    return 0.5 * e->k * dv * dv;
}

static const weft_energy_type test_volume = {
    .name = "test_volume", .kind = WEFT_ELEM_HINGE, .nv = 4, .init = volume_init,
    .energy = volume_energy, .gradient = volume_gradient, .hessian = volume_hessian};

/* ------------------------------------------------------------------------------ */
/* Models                                                                          */
/* ------------------------------------------------------------------------------ */

/* Adds a term of `type` over `count` elements whose vertices are verts[i*stride + a],
 * initialised from rest positions xr with the given stiffness. */
static void add_term(weft_model *m, const weft_energy_type *type, const int *verts, int count,
                     int stride, const double *xr, double stiffness) {
    weft_term *t = &m->terms[m->nterms++];
    t->type = type;
    t->n = count;
    t->elem = calloc((size_t)(count > 0 ? count : 1), sizeof *t->elem);
    weft_energy_params p = {.stiffness = stiffness};
    for (int i = 0; i < count; i++) {
        double xe[3 * WEFT_ELEM_MAXV];
        for (int a = 0; a < type->nv; a++) {
            t->elem[i].v[a] = verts[i * stride + a];
            for (int k = 0; k < 3; k++) xe[3 * a + k] = xr[3 * verts[i * stride + a] + k];
        }
        type->init(&t->elem[i], xe, &p);
    }
}

/* Positions and masses for a model of n vertices: x = copy of xr, masses 0.01 kg. */
static void alloc_state(weft_model *m, int n, const double *xr) {
    m->n = n;
    m->x = malloc(3 * (size_t)n * sizeof *m->x);
    m->mass = malloc((size_t)n * sizeof *m->mass);
    memcpy(m->x, xr, 3 * (size_t)n * sizeof *m->x);
    for (int i = 0; i < n; i++) m->mass[i] = 0.01;
}

/* Moves every coordinate of m->x by up to ±amp (m). */
static void jiggle(weft_model *m, lcg *g, double amp) {
    for (int i = 0; i < 3 * m->n; i++) m->x[i] += rnd_in(g, -amp, amp);
}

/* A grid of nx × ny vertices 0.1 m apart, its rest shape wrinkled by up to ±2 cm out of
 * plane, with springs on edges, second differences on triangles and volumes on hinges,
 * deformed by up to ±2 cm. Returns the length scale 0.1 m. */
static double grid_model(weft_model *m, int nx, int ny, uint64_t seed) {
    memset(m, 0, sizeof *m);
    lcg g = {seed};
    weft_grid_desc d = {.width = 0.1 * (nx - 1), .height = 0.1 * (ny - 1), .nx = nx, .ny = ny};
    weft_error err;
    if (weft_mesh_grid(&m->mesh, &d, &err) != WEFT_OK) {
        fprintf(stderr, "grid: %s\n", err.msg);
        CHECK(false);
        return 0.1;
    }
    for (int i = 0; i < m->mesh.nv; i++) m->mesh.x[3 * i + 2] += rnd_in(&g, -0.02, 0.02);
    const weft_mesh *me = &m->mesh;
    add_term(m, &test_spring, me->edge, me->ne, 2, me->x, 100.0);
    add_term(m, &test_second_diff, me->tri, me->nt, 3, me->x, 10.0);
    add_term(m, &test_volume, me->hinge, me->nh, 4, me->x, 1e7);
    alloc_state(m, me->nv, me->x);
    jiggle(m, &g, 0.02);
    return 0.1;
}

/* A fan: vertex 0 at the centre joined by springs to 150 rim vertices, and second
 * differences over (rim i, centre, rim i+1): vertex 0 is in every element, so each
 * term needs one colour per batch of elements. */
#define FAN 150
static double fan_model(weft_model *m, uint64_t seed) {
    memset(m, 0, sizeof *m);
    lcg g = {seed};
    int n = FAN + 1, springs[2 * FAN], seconds[3 * (FAN - 1)];
    double xr[3 * (FAN + 1)] = {0, 0, 0};
    for (int i = 1; i < n; i++) {
        double t = 2.0 * WEFT_PI * i / FAN;
        xr[3 * i] = 0.1 * cos(t), xr[3 * i + 1] = 0.1 * sin(t);
        xr[3 * i + 2] = rnd_in(&g, -0.02, 0.02);
        springs[2 * (i - 1)] = 0, springs[2 * (i - 1) + 1] = i;
    }
    for (int i = 1; i < FAN; i++)
        seconds[3 * (i - 1)] = i, seconds[3 * (i - 1) + 1] = 0, seconds[3 * (i - 1) + 2] = i + 1;
    add_term(m, &test_spring, springs, FAN, 2, xr, 100.0);
    add_term(m, &test_second_diff, seconds, FAN - 1, 3, xr, 10.0);
    alloc_state(m, n, xr);
    jiggle(m, &g, 0.02);
    return 0.1;
}

/* Loads a built-in scene at a small size (grids 10 × 10, icospheres subdivided once). */
static bool load_scene(const char *name, weft_model *m) {
    weft_error err = {{0}};
    memset(m, 0, sizeof *m);
    weft_scene *s = weft_scene_load(name, &err);
    CHECK(s != NULL);
    if (!s) return false;
    int rc = weft_scene_build(s, weft_energy_registry, m, &err);
    if (rc == WEFT_OK && m->mesh.grid_nx > 0) {
        weft_model_free(m);
        rc = weft_scene_set(s, "mesh.nx=10", "test", &err);
        if (rc == WEFT_OK) rc = weft_scene_set(s, "mesh.ny=10", "test", &err);
        if (rc == WEFT_OK) rc = weft_scene_build(s, weft_energy_registry, m, &err);
    } else if (rc == WEFT_OK) {
        weft_model_free(m);
        rc = weft_scene_set(s, "mesh.subdivisions=1", "test", &err);
        if (rc == WEFT_OK) rc = weft_scene_build(s, weft_energy_registry, m, &err);
    }
    weft_scene_free(&s);
    if (rc != WEFT_OK) fprintf(stderr, "%s: %s\n", name, err.msg);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* Mean rest edge length of the model's mesh (m). */
static double mean_edge(const weft_model *m) {
    double s = 0.0;
    for (int e = 0; e < m->mesh.ne; e++) {
        const double *a = &m->mesh.x[3 * m->mesh.edge[2 * e]];
        const double *b = &m->mesh.x[3 * m->mesh.edge[2 * e + 1]];
        double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
        s += norm3(d);
    }
    return m->mesh.ne > 0 ? s / m->mesh.ne : 1.0;
}

/* hanging_cloth at 10 × 10 with its springs retyped to test_spring (same k and ℓ0
 * layout as mass_spring), its hinges to test_volume (V0 = 0: the rest cloth is flat),
 * and a second-difference term added on triangles; deformed by 0.2 edge lengths. */
static double retyped_scene(weft_model *m, uint64_t seed) {
    if (!load_scene("hanging_cloth", m)) return 1.0;
    const weft_mesh *me = &m->mesh;
    CHECK(m->stretch_term >= 0 && m->bending_term >= 0);
    m->terms[m->stretch_term].type = &test_spring;
    weft_term *bend = &m->terms[m->bending_term];
    bend->type = &test_volume;
    weft_energy_params p = {.stiffness = 1e9};
    for (int i = 0; i < bend->n; i++) {
        double xe[12];
        for (int a = 0; a < 4; a++)
            for (int k = 0; k < 3; k++) xe[3 * a + k] = me->x[3 * bend->elem[i].v[a] + k];
        test_volume.init(&bend->elem[i], xe, &p);
    }
    add_term(m, &test_second_diff, me->tri, me->nt, 3, me->x, 10.0);
    double L = mean_edge(m);
    lcg g = {seed};
    jiggle(m, &g, 0.2 * L);
    return L;
}

/* The test models: 0 grid, 1 fan, 2 retyped scene. */
#define NMODELS 3
static const char *const MODEL_NAMES[NMODELS] = {"grid", "fan", "retyped hanging_cloth"};

static double make_model(int which, weft_model *m) {
    switch (which) {
    case 0: return grid_model(m, 7, 6, 11);
    case 1: return fan_model(m, 12);
    default: return retyped_scene(m, 13);
    }
}

/* ------------------------------------------------------------------------------ */
/* Independent references                                                          */
/* ------------------------------------------------------------------------------ */

/* The dense 3n × 3n Hessian summed element by element in model order, without the
 * symmetrisation the assembly applies; terms without a Hessian are left out. */
static double *dense_hessian(const weft_model *m, const double *x, weft_hessian_mode mode) {
    size_t n3 = 3 * (size_t)m->n;
    double *D = calloc(n3 * n3, sizeof *D);
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *term = &m->terms[t];
        if (!term->type->hessian) continue;
        int nv = term->type->nv, nd = 3 * nv;
        for (int i = 0; i < term->n; i++) {
            const int *v = term->elem[i].v;
            double xe[12], H[144];
            for (int a = 0; a < nv; a++)
                for (int k = 0; k < 3; k++) xe[3 * a + k] = x[3 * v[a] + k];
            term->type->hessian(&term->elem[i], xe, mode, NULL, H);
            for (int r = 0; r < nd; r++)
                for (int c = 0; c < nd; c++)
                    D[(3 * (size_t)v[r / 3] + (size_t)(r % 3)) * n3 + 3 * (size_t)v[c / 3] +
                      (size_t)(c % 3)] += H[r * nd + c];
        }
    }
    return D;
}

/* Largest |A_ij − B_ij| over n values. */
static double max_diff(const double *a, const double *b, size_t n) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

/* Creates the assembly of m, failing the case if it cannot. */
static weft_assembly *must_create(const weft_model *m, const char *label) {
    weft_error err = {{0}};
    weft_assembly *a = weft_assembly_create(m, &err);
    if (!a) fprintf(stderr, "%s: %s\n", label, err.msg);
    CHECK(a != NULL);
    return a;
}

static const weft_hessian_mode MODES[3] = {WEFT_HESSIAN_EXACT, WEFT_HESSIAN_ANALYTIC,
                                           WEFT_HESSIAN_CLAMP};

/* ------------------------------------------------------------------------------ */
/* Checks on one model (shared by the test-type models and the registry case)      */
/* ------------------------------------------------------------------------------ */

/* The pattern is exactly the set of vertex pairs sharing an element, plus diagonals;
 * rows are strictly ascending and diag[] points at (i, i). */
static void check_pattern(const weft_model *m, const char *label) {
    int n = m->n;
    unsigned char *adj = calloc((size_t)n * (size_t)n, 1);
    for (int i = 0; i < n; i++) adj[(size_t)i * n + i] = 1;
    for (int t = 0; t < m->nterms; t++)
        for (int e = 0; e < m->terms[t].n; e++)
            for (int a = 0; a < m->terms[t].type->nv; a++)
                for (int b = 0; b < m->terms[t].type->nv; b++)
                    adj[(size_t)m->terms[t].elem[e].v[a] * n + m->terms[t].elem[e].v[b]] = 1;
    weft_bsr A;
    weft_error err = {{0}};
    CHECK(weft_bsr_pattern(&A, m, &err) == WEFT_OK);
    CHECK(A.n == n);
    long expected = 0;
    for (size_t k = 0; k < (size_t)n * n; k++) expected += adj[k];
    CHECK(A.nnzb == expected);
    CHECK(A.row_ptr[0] == 0 && A.row_ptr[n] == A.nnzb);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++) {
            if (!adj[(size_t)i * n + A.col[k]]) bad++;                  /* not a shared pair */
            if (k > A.row_ptr[i] && A.col[k] <= A.col[k - 1]) bad++;    /* not ascending */
            if (weft_bsr_block(&A, i, A.col[k]) != k) bad++;
        }
        if (A.col[A.diag[i]] != i || A.diag[i] < A.row_ptr[i] || A.diag[i] >= A.row_ptr[i + 1])
            bad++;
        for (int j = 0; j < n; j++)
            if (!adj[(size_t)i * n + j] && weft_bsr_block(&A, i, j) != -1) bad++;
    }
    if (bad) fprintf(stderr, "%s: %d pattern errors\n", label, bad);
    CHECK(bad == 0);
    for (size_t k = 0; k < 9 * (size_t)A.nnzb; k++) bad += A.val[k] != 0.0;
    CHECK(bad == 0); /* a fresh pattern holds zeros */
    weft_bsr_free(&A);
    CHECK(A.val == NULL && A.n == 0);
    free(adj);
}

/* Per mode: the assembled matrix equals the dense element-by-element sum to rounding,
 * is exactly symmetric, and is zero outside the pattern (weft_bsr_to_dense). Returns
 * the largest |EXACT − ANALYTIC| entry, so callers can see the modes differ. */
static double check_dense(const weft_model *m, const char *label) {
    weft_assembly *a = must_create(m, label);
    if (!a) return 0.0;
    size_t n3 = 3 * (size_t)m->n;
    double *S = malloc(n3 * n3 * sizeof *S), *first = NULL, mode_diff = 0.0;
    for (int md = 0; md < 3; md++) {
        double *D = dense_hessian(m, m->x, MODES[md]);
        double E = weft_assembly_run(a, m, m->x, MODES[md], NULL, 1);
        CHECK(isfinite(E));
        weft_bsr_to_dense(weft_assembly_matrix(a), S);
        /* Summation order differs (colours vs model order), and symmetrisation rounds
         * once: a few ulps of the largest entry. */
        double scale = max_abs(D, (int)(n3 * n3)), err = max_diff(S, D, n3 * n3);
        if (!(err <= 1e-13 * scale))
            fprintf(stderr, "%s mode %d: |sparse - dense| %.3g of %.3g\n", label, md, err, scale);
        CHECK(scale > 0.0);
        CHECK(err <= 1e-13 * scale);
        int asym = 0;
        for (size_t r = 0; r < n3; r++)
            for (size_t c = 0; c < r; c++) asym += S[r * n3 + c] != S[c * n3 + r];
        CHECK(asym == 0);
        if (md == 0) {
            first = D;
        } else {
            mode_diff = fmax(mode_diff, max_diff(first, D, n3 * n3));
            free(D);
        }
    }
    free(first), free(S);
    weft_assembly_free(&a);
    CHECK(a == NULL);
    return mode_diff;
}

/* H v (EXACT mode, whole mesh) equals the central difference of the assembled gradient
 * along a random v: (∇E(x + h v) − ∇E(x − h v)) / 2h with h = 1e-6 L. Truncation is
 * O(h²) ~ 1e-12 relative; rounding of ∇E (entries ~ k L, errors ~ 1e-16 k L) over 2h
 * gives ~1e-10 of |H v| ~ k; a wrong block is O(1) off: tolerance 1e-6 of max |H v|. */
static void check_fd(const weft_model *m, double L, uint64_t seed, const char *label) {
    weft_assembly *a = must_create(m, label);
    if (!a) return;
    int n3 = 3 * m->n;
    double *v = malloc((size_t)n3 * sizeof *v), *xp = malloc((size_t)n3 * sizeof *xp);
    double *gp = malloc((size_t)n3 * sizeof *gp), *gm = malloc((size_t)n3 * sizeof *gm);
    double *Hv = malloc((size_t)n3 * sizeof *Hv);
    lcg g = {seed};
    for (int trial = 0; trial < 3; trial++) {
        for (int i = 0; i < n3; i++) v[i] = rnd_in(&g, -1.0, 1.0);
        double h = 1e-6 * L;
        CHECK(isfinite(weft_assembly_run(a, m, m->x, WEFT_HESSIAN_EXACT, NULL, 1)));
        weft_bsr_spmv(weft_assembly_matrix(a), v, Hv, 1);
        for (int i = 0; i < n3; i++) xp[i] = m->x[i] + h * v[i];
        CHECK(isfinite(weft_assembly_run(a, m, xp, WEFT_HESSIAN_EXACT, gp, 1)));
        for (int i = 0; i < n3; i++) xp[i] = m->x[i] - h * v[i];
        CHECK(isfinite(weft_assembly_run(a, m, xp, WEFT_HESSIAN_EXACT, gm, 1)));
        double err = 0.0, scale = max_abs(Hv, n3);
        for (int i = 0; i < n3; i++) err = fmax(err, fabs((gp[i] - gm[i]) / (2.0 * h) - Hv[i]));
        if (!(err <= 1e-6 * scale))
            fprintf(stderr, "%s: |Hv - FD| %.3g of %.3g\n", label, err, scale);
        CHECK(scale > 0.0);
        CHECK(err <= 1e-6 * scale);
    }
    free(v), free(xp), free(gp), free(gm), free(Hv);
    weft_assembly_free(&a);
}

/* The assembled E and ∇E equal weft_model_energy and weft_model_gradient (summed in
 * another order: a few ulps), and ∇E is the derivative of E (FD along random v). */
static void check_consistency(const weft_model *m, double L, uint64_t seed, const char *label) {
    weft_assembly *a = must_create(m, label);
    if (!a) return;
    int n3 = 3 * m->n;
    double *g = malloc((size_t)n3 * sizeof *g), *gm = calloc((size_t)n3, sizeof *gm);
    double *xp = malloc((size_t)n3 * sizeof *xp), *v = malloc((size_t)n3 * sizeof *v);
    for (int i = 0; i < n3; i++) g[i] = NAN; /* "receives": every entry is overwritten */
    for (int md = 0; md < 3; md++) {
        double E = weft_assembly_run(a, m, m->x, MODES[md], g, 1);
        double Em = weft_model_energy(m, m->x);
        memset(gm, 0, (size_t)n3 * sizeof *gm);
        weft_model_gradient(m, m->x, gm);
        double scale = max_abs(gm, n3);
        CHECK(Em > 0.0 && scale > 0.0);
        CHECK_NEAR(E, Em, 1e-12 * Em);
        CHECK(max_diff(g, gm, (size_t)n3) <= 1e-12 * scale);
    }
    /* dE/dh along v at h = 0 by central differences, against ∇E · v. */
    lcg r = {seed};
    for (int i = 0; i < n3; i++) v[i] = rnd_in(&r, -1.0, 1.0);
    double h = 1e-6 * L, gv = 0.0, gv_abs = 0.0;
    for (int i = 0; i < n3; i++) gv += g[i] * v[i], gv_abs += fabs(g[i] * v[i]);
    for (int i = 0; i < n3; i++) xp[i] = m->x[i] + h * v[i];
    double Ep = weft_assembly_run(a, m, xp, WEFT_HESSIAN_EXACT, NULL, 1);
    for (int i = 0; i < n3; i++) xp[i] = m->x[i] - h * v[i];
    double Emm = weft_assembly_run(a, m, xp, WEFT_HESSIAN_EXACT, NULL, 1);
    CHECK_NEAR((Ep - Emm) / (2.0 * h), gv, 1e-6 * gv_abs);
    free(g), free(gm), free(xp), free(v);
    weft_assembly_free(&a);
}

/* 1, 2, 3 and 4 threads give the same matrix, gradient and energy, bit for bit. */
static void check_threads(const weft_model *m, const char *label) {
    weft_assembly *a = must_create(m, label);
    if (!a) return;
    size_t n3 = 3 * (size_t)m->n, nval = 9 * (size_t)weft_assembly_matrix(a)->nnzb;
    double *val1 = malloc(nval * sizeof *val1), *g1 = malloc(n3 * sizeof *g1);
    double *g = malloc(n3 * sizeof *g);
    for (int md = 0; md < 3; md++) {
        double E1 = weft_assembly_run(a, m, m->x, MODES[md], g1, 1);
        memcpy(val1, weft_assembly_matrix(a)->val, nval * sizeof *val1);
        for (int threads = 2; threads <= 4; threads++) {
            double E = weft_assembly_run(a, m, m->x, MODES[md], g, threads);
            CHECK(memcmp(&E, &E1, sizeof E) == 0);
            CHECK(memcmp(g, g1, n3 * sizeof *g) == 0);
            CHECK(memcmp(weft_assembly_matrix(a)->val, val1, nval * sizeof *val1) == 0);
        }
    }
    free(val1), free(g1), free(g);
    weft_assembly_free(&a);
}

/* SpMV equals the dense product (and is independent of the thread count), the diagonal
 * blocks are the dense diagonal, and add_diagonal adds d_i I₃ there only. */
static void check_products(const weft_model *m, uint64_t seed, const char *label) {
    weft_assembly *a = must_create(m, label);
    if (!a) return;
    weft_bsr *A = weft_assembly_matrix(a);
    int n = m->n;
    size_t n3 = 3 * (size_t)n;
    double *D = malloc(n3 * n3 * sizeof *D), *x = malloc(n3 * sizeof *x);
    double *y = malloc(n3 * sizeof *y), *y3 = malloc(n3 * sizeof *y3);
    double *yd = calloc(n3, sizeof *yd), *blocks = malloc(9 * (size_t)n * sizeof *blocks);
    double *d = malloc((size_t)n * sizeof *d), *D2 = malloc(n3 * n3 * sizeof *D2);
    CHECK(isfinite(weft_assembly_run(a, m, m->x, WEFT_HESSIAN_EXACT, NULL, 1)));
    weft_bsr_to_dense(A, D);
    lcg g = {seed};
    for (size_t i = 0; i < n3; i++) x[i] = rnd_in(&g, -1.0, 1.0);
    for (size_t r = 0; r < n3; r++)
        for (size_t c = 0; c < n3; c++) yd[r] += D[r * n3 + c] * x[c];
    weft_bsr_spmv(A, x, y, 1);
    weft_bsr_spmv(A, x, y3, 3);
    double scale = 0.0; /* Σ|A_rc x_c| bounds the rounding of each row */
    for (size_t r = 0; r < n3; r++) {
        double s = 0.0;
        for (size_t c = 0; c < n3; c++) s += fabs(D[r * n3 + c] * x[c]);
        scale = fmax(scale, s);
    }
    CHECK(max_diff(y, yd, n3) <= 1e-14 * scale);
    CHECK(memcmp(y, y3, n3 * sizeof *y) == 0);
    weft_bsr_diagonal_blocks(A, blocks);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                bad += blocks[9 * i + 3 * p + q] != D[(3 * (size_t)i + p) * n3 + 3 * i + q];
    CHECK(bad == 0);
    for (int i = 0; i < n; i++) d[i] = 1.0 + i;
    weft_bsr_add_diagonal(A, d);
    weft_bsr_to_dense(A, D2);
    for (size_t r = 0; r < n3; r++)
        for (size_t c = 0; c < n3; c++)
            bad += D2[r * n3 + c] != D[r * n3 + c] + (r == c ? d[r / 3] : 0.0);
    CHECK(bad == 0);
    free(D), free(x), free(y), free(y3), free(yd), free(blocks), free(d), free(D2);
    weft_assembly_free(&a);
}

/* Every term's colouring lists each batch once, ascending within a colour, never an
 * empty colour, and no two batches of a colour share a vertex. */
static void check_colouring(const weft_model *m, const char *label) {
    weft_assembly *a = must_create(m, label);
    if (!a) return;
    int *seen = calloc((size_t)m->n, sizeof *seen), stamp = 0;
    for (int t = 0; t < m->nterms; t++) {
        const int *ptr, *order;
        int batch, nc = weft_assembly_colouring(a, t, &ptr, &order, &batch);
        const weft_term *term = &m->terms[t];
        int nb = (term->n + batch - 1) / batch;
        CHECK(batch >= 1 && nc > 0 && ptr[0] == 0 && ptr[nc] == nb);
        unsigned char *listed = calloc((size_t)nb, 1);
        int bad = 0;
        for (int c = 0; c < nc; c++) {
            if (ptr[c + 1] <= ptr[c]) bad++;
            stamp++; /* seen[w] == stamp: w is a vertex of an earlier batch of colour c */
            for (int k = ptr[c]; k < ptr[c + 1]; k++) {
                int b = order[k];
                if (b < 0 || b >= nb || listed[b]) {
                    bad++;
                    continue;
                }
                listed[b] = 1;
                if (k > ptr[c] && order[k - 1] >= b) bad++;
                int end = (b + 1) * batch < term->n ? (b + 1) * batch : term->n;
                for (int e = b * batch; e < end; e++)
                    for (int v = 0; v < term->type->nv; v++)
                        if (seen[term->elem[e].v[v]] == stamp) bad++;
                for (int e = b * batch; e < end; e++)
                    for (int v = 0; v < term->type->nv; v++) seen[term->elem[e].v[v]] = stamp;
            }
        }
        if (bad) fprintf(stderr, "%s term %d: %d colouring errors\n", label, t, bad);
        CHECK(bad == 0);
        free(listed);
    }
    free(seen);
    weft_assembly_free(&a);
}

/* ------------------------------------------------------------------------------ */
/* Cases on the test-type models                                                   */
/* ------------------------------------------------------------------------------ */

static void test_pattern(void) {
    for (int w = 0; w < NMODELS; w++) {
        weft_model m;
        make_model(w, &m);
        check_pattern(&m, MODEL_NAMES[w]);
        weft_model_free(&m);
    }
    /* A vertex in no element still gets its diagonal block, and only that. */
    weft_model m;
    grid_model(&m, 3, 3, 5);
    m.n += 2;
    m.x = realloc(m.x, 3 * (size_t)m.n * sizeof *m.x);
    check_pattern(&m, "grid + 2 free vertices");
    weft_bsr A;
    CHECK(weft_bsr_pattern(&A, &m, NULL) == WEFT_OK);
    CHECK(A.row_ptr[m.n] - A.row_ptr[m.n - 1] == 1 && A.col[A.nnzb - 1] == m.n - 1);
    weft_bsr_free(&A);
    weft_model_free(&m);
}

static void test_dense(void) {
    for (int w = 0; w < NMODELS; w++) {
        weft_model m;
        make_model(w, &m);
        double mode_diff = check_dense(&m, MODEL_NAMES[w]);
        /* The deformation compresses some springs, so the PSD modes differ from EXACT:
         * the comparison above is sensitive to which mode reaches the types. */
        CHECK(mode_diff > 0.0);
        weft_model_free(&m);
    }
}

static void test_fd_hessian(void) {
    for (int w = 0; w < NMODELS; w++) {
        weft_model m;
        double L = make_model(w, &m);
        check_fd(&m, L, 100 + (uint64_t)w, MODEL_NAMES[w]);
        weft_model_free(&m);
    }
}

static void test_consistency(void) {
    for (int w = 0; w < NMODELS; w++) {
        weft_model m;
        double L = make_model(w, &m);
        check_consistency(&m, L, 200 + (uint64_t)w, MODEL_NAMES[w]);
        weft_model_free(&m);
    }
}

static void test_threads_bitwise(void) {
    for (int w = 0; w < NMODELS; w++) {
        weft_model m;
        make_model(w, &m);
        check_threads(&m, MODEL_NAMES[w]);
        weft_model_free(&m);
    }
    /* A larger grid, so every thread gets many elements of each colour. */
    weft_model m;
    grid_model(&m, 40, 40, 21);
    check_threads(&m, "grid 40 x 40");
    weft_model_free(&m);
}

static void test_products(void) {
    for (int w = 0; w < NMODELS; w++) {
        weft_model m;
        make_model(w, &m);
        check_products(&m, 300 + (uint64_t)w, MODEL_NAMES[w]);
        weft_model_free(&m);
    }
}

static void test_colouring(void) {
    for (int w = 0; w < NMODELS; w++) {
        weft_model m;
        make_model(w, &m);
        check_colouring(&m, MODEL_NAMES[w]);
        weft_model_free(&m);
    }
    /* A fan whose centre is in every element needs one colour per batch; with more than
     * 64 batches the colouring goes into a second round of 64 colours. */
    weft_model m = {0};
    weft_assembly *a = must_create(&m, "empty model");
    const int *ptr, *order;
    int batch = 0;
    if (a) CHECK(weft_assembly_colouring(a, 0, &ptr, &order, &batch) == 0 && !ptr && !order);
    weft_assembly_free(&a);
    if (batch < 1) return;
    int nb = 70, ns = nb * batch - batch / 2; /* the last batch half full */
    int *springs = malloc(2 * (size_t)ns * sizeof *springs);
    double *xr = calloc(3 * ((size_t)ns + 1), sizeof *xr);
    for (int i = 1; i <= ns; i++) {
        double t = 2.0 * WEFT_PI * i / ns;
        xr[3 * i] = cos(t), xr[3 * i + 1] = sin(t);
        springs[2 * (i - 1)] = 0, springs[2 * (i - 1) + 1] = i;
    }
    add_term(&m, &test_spring, springs, ns, 2, xr, 100.0);
    alloc_state(&m, ns + 1, xr);
    lcg g = {2};
    jiggle(&m, &g, 0.1);
    a = must_create(&m, "big fan");
    if (a) CHECK(weft_assembly_colouring(a, 0, &ptr, &order, &batch) == nb);
    weft_assembly_free(&a);
    check_colouring(&m, "big fan");
    check_threads(&m, "big fan");
    free(springs), free(xr);
    weft_model_free(&m);
}

/* ------------------------------------------------------------------------------ */
/* CHOLMOD                                                                         */
/* ------------------------------------------------------------------------------ */

/* K = A + M/h² for the grid model with PSD (ANALYTIC) element Hessians: SPD. */
static void assemble_spd(weft_assembly *a, const weft_model *m, const double *x, double factor,
                         double *d) {
    double h = 1.0 / 60.0;
    CHECK(isfinite(weft_assembly_run(a, m, x, WEFT_HESSIAN_ANALYTIC, NULL, 2)));
    for (int i = 0; i < m->n; i++) d[i] = factor * m->mass[i] / (h * h);
    weft_bsr_add_diagonal(weft_assembly_matrix(a), d);
}

static void test_cholmod_multiply(void) {
    for (int w = 0; w < NMODELS; w++) {
        weft_model m;
        make_model(w, &m);
        weft_assembly *a = must_create(&m, MODEL_NAMES[w]);
        if (!a) {
            weft_model_free(&m);
            continue;
        }
        weft_bsr *A = weft_assembly_matrix(a);
        CHECK(isfinite(weft_assembly_run(a, &m, m.x, WEFT_HESSIAN_EXACT, NULL, 1)));
        cholmod_common cc;
        cholmod_start(&cc);
        weft_error err = {{0}};
        cholmod_sparse *S = weft_bsr_cholmod_pattern(A, &cc, &err);
        CHECK(S != NULL);
        if (S) {
            size_t n3 = 3 * (size_t)m.n;
            CHECK(cholmod_check_sparse(S, &cc) == 1); /* CHOLMOD's own validity check */
            CHECK(S->stype == 1 && S->sorted && S->packed && S->nrow == n3 && S->ncol == n3);
            /* Upper triangle only: every row index ≤ its column. */
            const int *Sp = S->p, *Si = S->i;
            int lower = 0;
            for (size_t c = 0; c < n3; c++)
                for (int p = Sp[c]; p < Sp[c + 1]; p++) lower += (size_t)Si[p] > c;
            CHECK(lower == 0);
            /* As many entries as the upper triangle of the dense matrix has positions
             * in the block pattern: 9 per off-diagonal block pair, 6 per diagonal. */
            CHECK(Sp[n3] == 9 * (A->nnzb - m.n) / 2 + 6 * m.n);
            cholmod_dense *X = cholmod_zeros(n3, 1, CHOLMOD_REAL, &cc);
            cholmod_dense *Y = cholmod_zeros(n3, 1, CHOLMOD_REAL, &cc);
            double *xv = X->x, *yv = Y->x, *y = malloc(n3 * sizeof *y);
            lcg g = {400 + (uint64_t)w};
            for (size_t i = 0; i < n3; i++) xv[i] = rnd_in(&g, -1.0, 1.0);
            double one[2] = {1, 0}, zero[2] = {0, 0};
            CHECK(cholmod_sdmult(S, 0, one, zero, X, Y, &cc) == 1);
            weft_bsr_spmv(A, xv, y, 1);
            /* Same products summed in another order. */
            double scale = max_abs(y, (int)n3);
            CHECK(scale > 0.0);
            CHECK(max_diff(y, yv, n3) <= 1e-13 * scale);
            free(y);
            cholmod_free_dense(&X, &cc);
            cholmod_free_dense(&Y, &cc);
            cholmod_free_sparse(&S, &cc);
        }
        cholmod_finish(&cc);
        weft_assembly_free(&a);
        weft_model_free(&m);
    }
}

/* Solves K x = K x* with CHOLMOD and returns max |x − x*|; -1 if a step failed. */
static double solve_error(cholmod_sparse *S, cholmod_factor *L, const weft_bsr *K,
                          const double *xstar, cholmod_common *cc) {
    size_t n3 = 3 * (size_t)K->n;
    cholmod_dense *B = cholmod_zeros(n3, 1, CHOLMOD_REAL, cc);
    if (!B) return -1.0;
    weft_bsr_spmv(K, xstar, B->x, 1);
    double e = -1.0;
    if (cholmod_factorize(S, L, cc) && cc->status == CHOLMOD_OK && L->minor == L->n) {
        cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, B, cc);
        if (X) {
            e = max_diff(X->x, xstar, n3);
            cholmod_free_dense(&X, cc);
        }
    }
    cholmod_free_dense(&B, cc);
    return e;
}

static void test_cholmod_solve(void) {
    weft_model m;
    grid_model(&m, 9, 8, 31);
    weft_assembly *a = must_create(&m, "grid");
    size_t n3 = 3 * (size_t)m.n;
    double *d = malloc((size_t)m.n * sizeof *d), *xstar = malloc(n3 * sizeof *xstar);
    double *x2 = malloc(n3 * sizeof *x2);
    lcg g = {500};
    for (size_t i = 0; i < n3; i++) xstar[i] = rnd_in(&g, -1.0, 1.0);
    cholmod_common cc;
    cholmod_start(&cc);
    weft_error err = {{0}};
    weft_bsr *K = a ? weft_assembly_matrix(a) : NULL;
    cholmod_sparse *S = NULL;
    cholmod_factor *L = NULL;
    if (!a) goto done;
    assemble_spd(a, &m, m.x, 1.0, d);
    S = weft_bsr_cholmod_pattern(K, &cc, &err);
    CHECK(S != NULL);
    if (!S) goto done;
    L = cholmod_analyze(S, &cc);
    CHECK(L != NULL);
    if (!L) goto done;
    /* K is SPD with eigenvalues between m/h² = 36 N/m and ~1e3 N/m: the solve loses
     * ~3 digits of 1e-16; 1e-10 leaves a wide margin yet catches any wrong entry. */
    double e1 = solve_error(S, L, K, xstar, &cc);
    CHECK(e1 >= 0.0 && e1 <= 1e-10);

    /* Refill with a different K (another state, twice the mass term): the same symbolic
     * analysis, new values in the same arrays, and the new system is solved exactly. */
    void *px = S->x, *pp = S->p, *pi = S->i;
    for (size_t i = 0; i < n3; i++) x2[i] = m.x[i] + rnd_in(&g, -0.03, 0.03);
    assemble_spd(a, &m, x2, 2.0, d);
    CHECK(weft_bsr_cholmod_values(K, S, &err) == WEFT_OK);
    CHECK(S->x == px && S->p == pp && S->i == pi);
    double e2 = solve_error(S, L, K, xstar, &cc);
    CHECK(e2 >= 0.0 && e2 <= 1e-10);
    /* The factor now holds the new matrix: the old right-hand side K1 x* no longer
     * returns x*. */
    {
        cholmod_dense *B = cholmod_zeros(n3, 1, CHOLMOD_REAL, &cc);
        assemble_spd(a, &m, m.x, 1.0, d); /* K1 again, but not handed to CHOLMOD */
        weft_bsr_spmv(K, xstar, B->x, 1);
        cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, B, &cc);
        CHECK(X != NULL);
        if (X) CHECK(max_diff(X->x, xstar, n3) > 1e-3);
        cholmod_free_dense(&X, &cc);
        cholmod_free_dense(&B, &cc);
    }
done:
    cholmod_free_factor(&L, &cc);
    cholmod_free_sparse(&S, &cc);
    cholmod_finish(&cc);
    free(d), free(xstar), free(x2);
    weft_assembly_free(&a);
    weft_model_free(&m);
}

/* weft_ldl3_solve (of weft_ldl3_from_cholmod's copy) against cholmod_solve2 on a random
 * SPD scalar matrix (a random symmetric pattern, diagonally dominant) factorised as
 * simplicial LDLᵀ: the three interleaved right-hand sides in the factor's order give
 * CHOLMOD's n×3 solution to rounding, and both solve K X = K X* to ~1e-13. */
static void test_cholmod_ldl3(void) {
    enum { N = 80, PER_COL = 4 };
    cholmod_common cc;
    cholmod_start(&cc);
    cc.supernodal = CHOLMOD_SIMPLICIAL;
    lcg g = {77};
    double Kd[N][N] = {{0}};
    for (int j = 0; j < N; j++)
        for (int r = 0; r < PER_COL; r++) {
            int i = (int)rnd_in(&g, 0.0, N - 0.5);
            double v = rnd_in(&g, -1.0, 1.0);
            Kd[i][j] += v, Kd[j][i] += i == j ? 0.0 : v;
        }
    for (int i = 0; i < N; i++) {
        double rs = 0.0;
        for (int j = 0; j < N; j++) rs += i == j ? 0.0 : fabs(Kd[i][j]);
        Kd[i][i] = rs + rnd_in(&g, 0.5, 2.0);
    }
    cholmod_sparse *K = cholmod_allocate_sparse(N, N, N * N, 1, 1, 1, CHOLMOD_REAL, &cc);
    int *Kp = K->p, *Ki = K->i, nz = 0;
    double *Kx = K->x;
    for (int j = 0; j < N; j++) {
        Kp[j] = nz;
        for (int i = 0; i <= j; i++)
            if (Kd[i][j] != 0.0) Ki[nz] = i, Kx[nz++] = Kd[i][j];
    }
    Kp[N] = nz;
    cholmod_factor *L = cholmod_analyze(K, &cc);
    CHECK(L != NULL && cholmod_factorize(K, L, &cc) && cc.status == CHOLMOD_OK);
    CHECK(L && !L->is_super && !L->is_ll);
    cholmod_dense *B = cholmod_zeros(N, 3, CHOLMOD_REAL, &cc), *X = NULL, *Y = NULL, *E = NULL;
    double xs[N][3], *y = aligned_alloc(32, 32 * N);
    weft_ldl3 f = {0};
    CHECK(weft_ldl3_from_cholmod(&f, L) == 0 && f.n == N);
    for (int i = 0; i < N; i++)
        for (int c = 0; c < 3; c++) xs[i][c] = rnd_in(&g, -1.0, 1.0);
    for (int i = 0; i < N; i++) /* B = K X* */
        for (int c = 0; c < 3; c++) {
            double t = 0.0;
            for (int j = 0; j < N; j++) t += Kd[i][j] * xs[j][c];
            ((double *)B->x)[i + N * c] = t;
        }
    CHECK(cholmod_solve2(CHOLMOD_A, L, B, NULL, &X, NULL, &Y, &E, &cc));
    const int *P = L->Perm;
    for (int k = 0; k < N; k++)
        for (int c = 0; c < 4; c++) y[4 * k + c] = c < 3 ? ((double *)B->x)[P[k] + N * c] : 0.0;
    weft_ldl3_solve(&f, y);
    double dc = 0.0, de = 0.0, dx = 0.0;
    for (int k = 0; k < N; k++)
        for (int c = 0; c < 3; c++) {
            double xc = ((double *)X->x)[P[k] + N * c];
            dc = fmax(dc, fabs(y[4 * k + c] - xc));
            de = fmax(de, fabs(xc - xs[P[k]][c]));
            dx = fmax(dx, fabs(y[4 * k + c] - xs[P[k]][c]));
        }
    printf("ldl3: |weft - cholmod_solve2| %.3g, |cholmod - x*| %.3g, |weft - x*| %.3g\n",
           dc, de, dx);
    CHECK(dc <= 1e-13 && de <= 1e-13 && dx <= 1e-13);
    cholmod_free_dense(&X, &cc), cholmod_free_dense(&Y, &cc), cholmod_free_dense(&E, &cc);
    cholmod_free_dense(&B, &cc);
    cholmod_free_factor(&L, &cc);
    cholmod_free_sparse(&K, &cc);
    cholmod_finish(&cc);
    weft_ldl3_free(&f);
    free(y);
}

/* A run (serial or parallel), SpMV and the CHOLMOD refill allocate nothing: the matrix
 * and CHOLMOD arrays keep their addresses, and the wrapped allocator counts no call. */
static void test_no_allocation(void) {
    weft_model m;
    grid_model(&m, 12, 10, 41);
    allocations = 0;
    weft_assembly *a = must_create(&m, "grid");
    CHECK(allocations > 0); /* the counter sees weft's allocations */
    if (!a) {
        weft_model_free(&m);
        return;
    }
    weft_bsr *A = weft_assembly_matrix(a);
    size_t n3 = 3 * (size_t)m.n;
    double *g = malloc(n3 * sizeof *g), *y = malloc(n3 * sizeof *y);
    cholmod_common cc;
    cholmod_start(&cc);
    weft_error err = {{0}};
    CHECK(isfinite(weft_assembly_run(a, &m, m.x, WEFT_HESSIAN_EXACT, g, 1)));
    cholmod_sparse *S = weft_bsr_cholmod_pattern(A, &cc, &err);
    CHECK(S != NULL);
    const double *val = A->val;
    const int *col = A->col;
    void *sx = S ? S->x : NULL;
    /* Warm up the OpenMP thread pool outside the counted window (libgomp allocates
     * on its own, through its own malloc references, but keep the window minimal). */
    CHECK(isfinite(weft_assembly_run(a, &m, m.x, WEFT_HESSIAN_ANALYTIC, g, 3)));
    allocations = 0;
    for (int threads = 1; threads <= 3; threads++) {
        double E = weft_assembly_run(a, &m, m.x, MODES[threads - 1], g, threads);
        CHECK(isfinite(E));
        weft_bsr_spmv(A, g, y, threads);
        if (S) CHECK(weft_bsr_cholmod_values(A, S, &err) == WEFT_OK);
    }
    long counted = allocations;
    CHECK(counted == 0);
    CHECK(A->val == val && A->col == col && (!S || S->x == sx));
    cholmod_free_sparse(&S, &cc);
    cholmod_finish(&cc);
    free(g), free(y);
    weft_assembly_free(&a);
    weft_model_free(&m);
}

/* ------------------------------------------------------------------------------ */
/* Errors                                                                          */
/* ------------------------------------------------------------------------------ */

/* Elements touching vertex w, in term then element order: how many and the first. */
static int touching(const weft_model *m, int w, int *t0, int *e0) {
    int count = 0;
    *t0 = *e0 = -1;
    for (int t = 0; t < m->nterms; t++)
        for (int e = 0; e < m->terms[t].n; e++) {
            bool hit = false;
            for (int a = 0; a < m->terms[t].type->nv; a++) hit |= m->terms[t].elem[e].v[a] == w;
            if (hit && count++ == 0) *t0 = t, *e0 = e;
        }
    return count;
}

static void test_nonfinite(void) {
    weft_model m;
    grid_model(&m, 7, 6, 51);
    weft_assembly *a = must_create(&m, "grid");
    if (!a) {
        weft_model_free(&m);
        return;
    }
    size_t n3 = 3 * (size_t)m.n;
    double *g = malloc(n3 * sizeof *g);
    weft_error err = {{0}};
    int t, e;

    /* A clean run reports nothing. */
    CHECK(isfinite(weft_assembly_run(a, &m, m.x, WEFT_HESSIAN_EXACT, g, 1)));
    CHECK(weft_assembly_nonfinite(a, &t, &e) == 0 && t == -1 && e == -1);
    CHECK(weft_assembly_check(a, &err) == WEFT_OK);

    /* Elements that leave their domain (k2 marks them in test_spring): +∞, counted,
     * the first named, whatever the thread count. */
    m.terms[0].elem[17].k2 = 1.0;
    m.terms[0].elem[40].k2 = 1.0;
    for (int threads = 1; threads <= 3; threads += 2) {
        double E = weft_assembly_run(a, &m, m.x, WEFT_HESSIAN_EXACT, g, threads);
        CHECK(E == INFINITY);
        CHECK(weft_assembly_nonfinite(a, &t, &e) == 2 && t == 0 && e == 17);
        CHECK(weft_assembly_check(a, &err) == WEFT_ERR_DIVERGED);
        char want[128];
        snprintf(want, sizeof want, "element 17 (vertices %d %d) of term 0 (test_spring): "
                 "energy is inf; 2 bad element(s)", m.terms[0].elem[17].v[0],
                 m.terms[0].elem[17].v[1]);
        if (!strstr(err.msg, want)) fprintf(stderr, "message: %s\n", err.msg);
        CHECK(strstr(err.msg, want) != NULL);
        CHECK(strchr(err.msg, '\n') == NULL);
    }
    m.terms[0].elem[17].k2 = m.terms[0].elem[40].k2 = 0.0;

    /* A NaN or infinite coordinate: every element on that vertex is reported (without
     * a gradient too), and the run returns +∞, never NaN. */
    const double poison[2] = {NAN, INFINITY};
    for (int p = 0; p < 2; p++) {
        int w = 17, tw, ew, count = touching(&m, w, &tw, &ew);
        double keep = m.x[3 * w + 1];
        m.x[3 * w + 1] = poison[p];
        double E = weft_assembly_run(a, &m, m.x, WEFT_HESSIAN_ANALYTIC, p ? NULL : g, 2);
        CHECK(E == INFINITY);
        CHECK(weft_assembly_nonfinite(a, &t, &e) == count && t == tw && e == ew);
        CHECK(count > 4);
        CHECK(weft_assembly_check(a, &err) == WEFT_ERR_DIVERGED);
        m.x[3 * w + 1] = keep;
    }
    /* A finite Ψ with non-finite derivatives: a spring whose ends coincide has Ψ = ½ k ℓ0²
     * but no direction (0/0). Only that spring is reported. */
    {
        const weft_element *s = &m.terms[0].elem[9];
        double keep[3];
        memcpy(keep, &m.x[3 * s->v[0]], sizeof keep);
        memcpy(&m.x[3 * s->v[0]], &m.x[3 * s->v[1]], sizeof keep);
        CHECK(weft_assembly_run(a, &m, m.x, WEFT_HESSIAN_EXACT, NULL, 2) == INFINITY);
        CHECK(weft_assembly_nonfinite(a, &t, &e) == 1 && t == 0 && e == 9);
        CHECK(weft_assembly_check(a, &err) == WEFT_ERR_DIVERGED);
        CHECK(strstr(err.msg, "of term 0 (test_spring): gradient or Hessian is not finite"));
        memcpy(&m.x[3 * s->v[0]], keep, sizeof keep);
    }
    /* ... and the next clean run clears the report. */
    CHECK(isfinite(weft_assembly_run(a, &m, m.x, WEFT_HESSIAN_EXACT, g, 1)));
    CHECK(weft_assembly_nonfinite(a, NULL, NULL) == 0);

    /* A model other than the one the assembly was made for is refused, not assembled. */
    weft_model other = m;
    other.nterms = 2;
    CHECK(weft_assembly_run(a, &other, m.x, WEFT_HESSIAN_EXACT, g, 1) == INFINITY);
    CHECK(weft_assembly_check(a, &err) == WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, "not the one it was created for") != NULL);
    free(g);
    weft_assembly_free(&a);
    weft_model_free(&m);
}

/* An energy with a gradient but no Hessian, and a constraint with no energy at all. */
static const weft_energy_type no_hessian = {
    .name = "no_hessian", .kind = WEFT_ELEM_EDGE, .nv = 2, .init = spring_init,
    .energy = spring_energy, .gradient = spring_gradient};
static const weft_energy_type constraint_only = {
    .name = "constraint_only", .kind = WEFT_ELEM_EDGE, .nv = 2, .init = spring_init};

static void test_bad_input(void) {
    weft_model m;
    grid_model(&m, 5, 4, 61);
    weft_error err = {{0}};
    weft_bsr A;

    /* A vertex index out of range: pattern and assembly refuse, naming the element. */
    int keep = m.terms[2].elem[5].v[3];
    m.terms[2].elem[5].v[3] = m.n;
    CHECK(weft_bsr_pattern(&A, &m, &err) == WEFT_ERR_INPUT);
    CHECK(A.val == NULL);
    CHECK(weft_assembly_create(&m, &err) == NULL);
    CHECK(strstr(err.msg, "element 5 of term 2 (test_volume): vertex 20 out of range [0, 20)"));
    m.terms[2].elem[5].v[3] = -1;
    CHECK(weft_assembly_create(&m, &err) == NULL);
    CHECK(strstr(err.msg, "vertex -1 out of range") != NULL);
    m.terms[2].elem[5].v[3] = keep;

    /* An energy without a Hessian would be silently dropped: refused by name. */
    m.terms[1].type = &no_hessian;
    CHECK(weft_assembly_create(&m, &err) == NULL);
    CHECK(strstr(err.msg, "term 1 (no_hessian) has no Hessian") != NULL);

    /* A pure constraint contributes no energy: skipped, and E is the other terms'. */
    m.terms[1].type = &constraint_only;
    weft_assembly *a = weft_assembly_create(&m, &err);
    CHECK(a != NULL);
    if (a) {
        double E = weft_assembly_run(a, &m, m.x, WEFT_HESSIAN_EXACT, NULL, 1);
        CHECK_NEAR(E, weft_model_energy(&m, m.x), 1e-12 * E);
        const int *ptr, *order;
        int batch;
        CHECK(weft_assembly_colouring(a, 1, &ptr, &order, &batch) == 0);
        CHECK(weft_assembly_colouring(a, 7, &ptr, &order, &batch) == 0 && !ptr);

        /* CHOLMOD refill into a matrix of another shape is refused. */
        weft_model small;
        grid_model(&small, 3, 3, 62);
        weft_assembly *b = must_create(&small, "small");
        cholmod_common cc;
        cholmod_start(&cc);
        cholmod_sparse *S = b ? weft_bsr_cholmod_pattern(weft_assembly_matrix(b), &cc, &err) : NULL;
        CHECK(S != NULL);
        CHECK(weft_bsr_cholmod_values(weft_assembly_matrix(a), S, &err) == WEFT_ERR_INPUT);
        CHECK(strstr(err.msg, "CHOLMOD values") != NULL);
        cholmod_free_sparse(&S, &cc);
        cholmod_finish(&cc);
        weft_assembly_free(&b);
        weft_model_free(&small);
    }
    weft_assembly_free(&a);
    weft_assembly_free(&a); /* safe on NULL */

    /* Elements of an impossible size. */
    weft_energy_type big = test_spring;
    big.nv = WEFT_ELEM_MAXV + 1;
    m.terms[0].type = &big;
    CHECK(weft_assembly_create(&m, &err) == NULL);
    char want[96];
    snprintf(want, sizeof want, "term 0 (test_spring): elements must have 1 to %d vertices",
             WEFT_ELEM_MAXV);
    CHECK(strstr(err.msg, want) != NULL);
    m.terms[0].type = &test_spring;
    weft_model_free(&m);
}

/* ------------------------------------------------------------------------------ */
/* Real energies: every registered type with a Hessian, in every built-in scene    */
/* ------------------------------------------------------------------------------ */

static void test_registry(void) {
    int with_hessian = 0;
    for (const weft_builtin_scene *bs = weft_builtin_scenes; bs->name; bs++) {
        weft_model m;
        if (!load_scene(bs->name, &m)) continue;
        /* The whole model assembles exactly when every term with an energy has a
         * Hessian; otherwise creation names the first term that has none. */
        int missing = -1;
        for (int t = m.nterms - 1; t >= 0; t--) {
            const weft_energy_type *ty = m.terms[t].type;
            if ((ty->energy || ty->gradient) && !ty->hessian) missing = t;
        }
        weft_error err = {{0}};
        weft_assembly *a = weft_assembly_create(&m, &err);
        CHECK((a != NULL) == (missing < 0));
        if (missing >= 0) {
            char want[160];
            snprintf(want, sizeof want, "term %d (%s) has no Hessian", missing,
                     m.terms[missing].type->name);
            CHECK(strstr(err.msg, want) != NULL);
        }
        weft_assembly_free(&a);

        /* The terms that have one, on their own, through every check above. */
        weft_model sub = m;
        sub.nterms = 0;
        for (int t = 0; t < m.nterms; t++)
            if (m.terms[t].type->hessian) sub.terms[sub.nterms++] = m.terms[t];
        with_hessian += sub.nterms;
        if (sub.nterms > 0) {
            double L = mean_edge(&m);
            char label[160];
            snprintf(label, sizeof label, "%s (%d term(s) with a Hessian)", bs->name, sub.nterms);
            lcg g = {600};
            jiggle(&m, &g, 0.1 * L); /* sub shares m's arrays */
            check_pattern(&sub, label);
            check_dense(&sub, label);
            check_fd(&sub, L, 601, label);
            check_consistency(&sub, L, 602, label);
            check_threads(&sub, label);
            check_products(&sub, 603, label);
            check_colouring(&sub, label);
        }
        weft_model_free(&m); /* frees what sub borrowed */
    }
    fprintf(stderr, "registry: %d scene term(s) with a Hessian checked\n", with_hessian);
}


/* ------------------------------------------------------------------------------ */
/* Reverse Cuthill-McKee                                                           */
/* ------------------------------------------------------------------------------ */

/* max |k(i) − k(j)| over the blocks (i, j), with k(perm[s]) = s (perm NULL: identity). */
static int bandwidth(const weft_bsr *A, const int *perm) {
    int *pos = malloc((size_t)(A->n > 0 ? A->n : 1) * sizeof *pos), b = 0;
    for (int s = 0; s < A->n; s++) pos[perm ? perm[s] : s] = s;
    for (int i = 0; i < A->n; i++)
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            b = b > abs(pos[i] - pos[A->col[k]]) ? b : abs(pos[i] - pos[A->col[k]]);
    free(pos);
    return b;
}

/* Renumbers every element vertex of m by new = sigma[old] (positions are not needed
 * for a pattern and are left alone). */
static void renumber(weft_model *m, const int *sigma) {
    for (int t = 0; t < m->nterms; t++)
        for (int e = 0; e < m->terms[t].n; e++)
            for (int a = 0; a < m->terms[t].type->nv; a++)
                m->terms[t].elem[e].v[a] = sigma[m->terms[t].elem[e].v[a]];
}

/* perm is a permutation of 0..n-1. */
static bool is_permutation(const int *perm, int n) {
    unsigned char *hit = calloc((size_t)(n > 0 ? n : 1), 1);
    bool ok = true;
    for (int s = 0; s < n; s++) {
        if (perm[s] < 0 || perm[s] >= n || hit[perm[s]]) ok = false;
        else hit[perm[s]] = 1;
    }
    free(hit);
    return ok;
}

static void test_rcm(void) {
    const int shapes[4][2] = {{8, 40}, {40, 8}, {20, 20}, {3, 60}};
    for (int s = 0; s < 4; s++) {
        weft_model m;
        grid_model(&m, shapes[s][0], shapes[s][1], 70 + (uint64_t)s);
        m.n += 3; /* three vertices in no element: components of their own */
        weft_bsr A;
        CHECK(weft_bsr_pattern(&A, &m, NULL) == WEFT_OK);
        int natural = bandwidth(&A, NULL);
        weft_bsr_free(&A);
        /* Shuffle the numbering (Fisher-Yates). */
        int *sigma = malloc((size_t)m.n * sizeof *sigma);
        int *perm = malloc((size_t)m.n * sizeof *perm);
        lcg g = {80 + (uint64_t)s};
        for (int i = 0; i < m.n; i++) sigma[i] = i;
        for (int i = m.n - 1; i > 0; i--) {
            int j = (int)(rnd(&g) * (i + 1)), t = sigma[i];
            sigma[i] = sigma[j], sigma[j] = t;
        }
        renumber(&m, sigma);
        CHECK(weft_bsr_pattern(&A, &m, NULL) == WEFT_OK);
        int shuffled = bandwidth(&A, NULL);
        CHECK(weft_rcm_order(&A, perm) == WEFT_OK);
        CHECK(is_permutation(perm, m.n));
        int rcm = bandwidth(&A, perm);
        fprintf(stderr, "rcm %d x %d: bandwidth natural %d, shuffled %d, RCM %d\n",
                shapes[s][0], shapes[s][1], natural, shuffled, rcm);
        CHECK(shuffled > m.n / 2); /* the shuffle did scramble the numbering */
        CHECK(rcm <= natural);
        weft_bsr_free(&A);
        free(sigma), free(perm);
        weft_model_free(&m);
    }
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"pattern", test_pattern},
        {"dense", test_dense},
        {"fd_hessian", test_fd_hessian},
        {"consistency", test_consistency},
        {"threads_bitwise", test_threads_bitwise},
        {"products", test_products},
        {"colouring", test_colouring},
        {"cholmod_multiply", test_cholmod_multiply},
        {"cholmod_solve", test_cholmod_solve},
        {"cholmod_ldl3", test_cholmod_ldl3},
        {"no_allocation", test_no_allocation},
        {"nonfinite", test_nonfinite},
        {"bad_input", test_bad_input},
        {"registry", test_registry},
        {"rcm", test_rcm},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
