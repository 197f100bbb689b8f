/* test_tet.c — tetrahedral meshes end to end: scenes that build them (tet_block and
 * tetgen mesh types, masses lumped from tetrahedron volumes, the density unit, the
 * `box` pin selector) and the explicit baseline solver that simulates any energy model
 * on them (solvers/symplectic_euler.c): conservation of linear and angular momentum,
 * scripted pins, contact and Coulomb friction, and its stability limit on the tet_beam
 * scene.
 *
 * No tetrahedral energy is registered in energies/ yet, so the volume terms here are a
 * stand-in defined in this file, "test_neo_hookean": the stable Neo-Hookean density of
 * Smith, de Goes & Kim 2018 in its simple form, without their log(I_C + 1) term,
 *   ψ(F) = μ/2 (I_C − 3) + λ'/2 (J − α)²,   λ' = λ + μ,   α = 1 + μ/λ',
 * whose small-strain limit is linear elasticity with the Lamé constants μ, λ of E and ν.
 * Case tet_beam_builtin runs the shipped scene with the registered stable_neo_hookean;
 * it is written for the merge with the energies and not registered in CMake before.
 *
 * Expected values come from geometry and mechanics, derived next to each check; none is
 * taken from running this code. Scene files go to a fresh mkdtemp directory.
 */
#include "check.h"
#include "tmp_files.h"
#include "scene_build.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------ */
/* A stand-in tetrahedral energy                                                   */
/* ------------------------------------------------------------------------------ */

/* det A of a 3×3 matrix. */
static double det3(double A[3][3]) {
    return A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
           A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
           A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
}

/* The cofactor matrix, C = ∂ det A / ∂A. */
static void cof3(double A[3][3], double C[3][3]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            C[i][j] = A[i1][j1] * A[i2][j2] - A[i1][j2] * A[i2][j1];
        }
}

/* D = [x1 − x0, x2 − x0, x3 − x0] (edge vectors as columns) of xe (12 values). */
static void edge_matrix(const double *xe, double D[3][3]) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) D[r][c] = xe[3 * (c + 1) + r] - xe[r];
}

/* Element data: rest[0..8] = Dm⁻¹ (row-major), rest[9] = V (m³); k = μ, k2 = λ' (Pa). */
static void nh_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double D[3][3], C[3][3];
    edge_matrix(xe, D);
    double J = det3(D);
    cof3(D, C);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) e->rest[3 * r + c] = C[c][r] / J; /* Dm⁻¹ = Cᵀ / det */
    e->rest[9] = J / 6.0;
    double E = p->stiffness, nu = p->poisson;
    double mu = E / (2.0 * (1.0 + nu)), lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    e->k = mu;
    e->k2 = lambda + mu;
}

/* F = Ds Dm⁻¹. */
static void nh_F(const weft_element *e, const double *xe, double F[3][3]) {
    double D[3][3];
    edge_matrix(xe, D);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            F[r][c] = 0.0;
            for (int k = 0; k < 3; k++) F[r][c] += D[r][k] * e->rest[3 * k + c];
        }
}

static double nh_energy(const weft_element *e, const double *xe) {
    double F[3][3], ic = 0.0;
    nh_F(e, xe, F);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) ic += F[r][c] * F[r][c];
    double alpha = 1.0 + e->k / e->k2, J = det3(F);
    return e->rest[9] * (0.5 * e->k * (ic - 3.0) + 0.5 * e->k2 * (J - alpha) * (J - alpha));
}

/* ∂Ψ/∂x_a = V P Dm⁻ᵀ e_a (a = 1..3), P = μ F + λ' (J − α) cof F; x0 gets minus their sum. */
static double nh_gradient(const weft_element *e, const double *xe, double *g) {
    double F[3][3], C[3][3];
    nh_F(e, xe, F);
    cof3(F, C);
    double alpha = 1.0 + e->k / e->k2, J = det3(F), V = e->rest[9];
    for (int k = 0; k < 3; k++) g[k] = 0.0;
    for (int a = 0; a < 3; a++)
        for (int r = 0; r < 3; r++) {
            double s = 0.0;
            for (int c = 0; c < 3; c++)
                s += (e->k * F[r][c] + e->k2 * (J - alpha) * C[r][c]) * e->rest[3 * a + c];
            g[3 * (a + 1) + r] = V * s;
            g[r] -= V * s;
        }
    return nh_energy(e, xe);
}

static const weft_energy_type test_neo_hookean = {
    .name = "test_neo_hookean",
    .paper = "Smith, de Goes, Kim 2018 (test stand-in)",
    .summary = "mu/2 (I_C - 3) + lambda'/2 (J - alpha)^2",
    .kind = WEFT_ELEM_TET,
    .nv = 4,
    .init = nh_init,
    .energy = nh_energy,
    .gradient = nh_gradient,
};

/* The registry the scenes of this file build with. */
static const weft_energy_type *const registry[] = {&weft_mass_spring, &weft_dihedral_bending,
                                                   &test_neo_hookean, NULL};

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */
/* ------------------------------------------------------------------------------ */


/* Builds scene with this file's registry; a failed check otherwise. */
static bool build(const char *scene, const char *const *sets, weft_model *m) {
    return scene_build(scene, sets, registry, m);
}

/* The build must fail with a one-line message holding want1 and want2 (or NULL). */
static void expect_error(const char *scene, const char *const *sets, const char *want1,
                         const char *want2) {
    scene_expect_error(scene, sets, registry, want1, want2);
}

/* Sum of the lumped masses, kg. */
static double total_mass(const weft_model *m) {
    double M = 0.0;
    for (int i = 0; i < m->n; i++) M += m->mass[i];
    return M;
}

/* Steps m with the symplectic Euler solver; false (and a failed check) on an error. */
static bool run_steps(void *st, weft_model *m, int steps) {
    weft_error err = {{0}};
    for (int s = 0; s < steps; s++) {
        int rc = weft_symplectic_euler.step(st, m, NULL, &err);
        if (rc != WEFT_OK) {
            fprintf(stderr, "step %d: %s\n", s, err.msg);
            CHECK(rc == WEFT_OK);
            return false;
        }
    }
    return true;
}

/* A symplectic Euler state for m with every solver setting at its default (the block and
 * beam scenes set none). */
static void *create(const weft_model *m) {
    weft_error err = {{0}};
    void *st = weft_symplectic_euler.create(m, NULL, &err);
    if (!st) fprintf(stderr, "create: %s\n", err.msg);
    CHECK(st != NULL);
    return st;
}

/* A 0.4 m x 0.2 m x 0.2 m block of 4 x 2 x 2 cells at the origin, springs on its surface
 * edges and no volume term, no gravity and no colliders; the overrides come after. */
#define BLOCK_SCENE                                                                      \
    "[scene]\nname = block\ndt = 0.001\nsteps = 10\ngravity = 0 0 0\n"                 \
    "[mesh]\ntype = tet_block\nsize = 0.4 0.2 0.2\ncells = 4 2 2\norigin = 0 0 0\n"    \
    "[material]\nmembrane = mass_spring\nvolume = none\nstretch_stiffness = 100\n"

/* ------------------------------------------------------------------------------ */
/* Scenes                                                                          */
/* ------------------------------------------------------------------------------ */

/* A tet_block scene has the generated mesh, masses ρ Σ V_t / 4 (1000 kg/m³ by default),
 * springs on its surface edges when asked for, and no volume term with volume = none. */
static void scene_tet_block(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "block.ini", BLOCK_SCENE, path, sizeof path);
    weft_model m = {0};
    if (build(path, NULL, &m)) {
        CHECK(m.mesh.nv == 5 * 3 * 3 && m.mesh.ntet == 6 * 16 && m.n == m.mesh.nv);
        CHECK(m.mesh.closed && m.rest_volume > 0);
        CHECK_NEAR(m.rest_volume, 0.4 * 0.2 * 0.2, 1e-15);
        CHECK(m.material.density == 1000.0);
        CHECK_NEAR(total_mass(&m), 1000.0 * 0.016, 1e-12);
        /* Each tetrahedron is a sixth of a 0.1 m cube, so vertex i weighs
         * 1000 kg/m³ × (0.1 m)³ / 6 / 4 times the number of tetrahedra around it. */
        int *count = calloc((size_t)m.n, sizeof *count), bad = 0;
        CHECK(count != NULL);
        for (int t = 0; count && t < m.mesh.ntet; t++)
            for (int a = 0; a < 4; a++) count[m.mesh.tet[4 * t + a]]++;
        for (int i = 0; count && i < m.n; i++)
            if (!(fabs(m.mass[i] - count[i] * 1000.0 * 1e-3 / 24.0) <= 1e-15)) bad++;
        CHECK(bad == 0);
        free(count);
        CHECK(m.stretch_term >= 0 && m.volume_term < 0 && m.bending_term < 0);
        if (m.stretch_term >= 0) CHECK(m.terms[m.stretch_term].n == m.mesh.ne);
        int pinned = 0;
        for (int i = 0; i < m.n; i++) pinned += m.pin[i] >= 0 || m.w[i] != 1.0 / m.mass[i];
        CHECK(pinned == 0);
    }
    weft_model_free(&m);

    /* The stand-in volume energy builds one element per tetrahedron. */
    static const char *const nh[] = {"material.volume=test_neo_hookean", NULL};
    if (build(path, nh, &m)) {
        CHECK(m.volume_term >= 0);
        if (m.volume_term >= 0) CHECK(m.terms[m.volume_term].n == m.mesh.ntet);
    }
    weft_model_free(&m);
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* [material] density is per area on a surface and per volume on a solid: the same value
 * gives a 1 m² cloth and a 0.016 m³ block the masses density × area and density × volume. */
static void scene_density_units(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "block.ini", BLOCK_SCENE, path, sizeof path);
    static const char *const dens[] = {"material.density=250", NULL};
    weft_model m = {0};
    if (build(path, dens, &m)) CHECK_NEAR(total_mass(&m), 250.0 * 0.016, 1e-12); /* kg/m³ */
    weft_model_free(&m);
    static const char *const cloth[] = {"material.density=250", "mesh.width=2",
                                        "mesh.height=0.5", NULL};
    if (build("hanging_cloth", cloth, &m)) {
        CHECK(m.mesh.ntet == 0);
        CHECK_NEAR(total_mass(&m), 250.0 * 1.0, 1e-10); /* kg/m² × 2 m × 0.5 m */
    }
    weft_model_free(&m);
    /* Without the key a cloth keeps its areal default, 0.1 kg/m². */
    if (build("drape_sphere", NULL, &m)) CHECK(m.material.density == 0.1);
    weft_model_free(&m);
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* pins.box pins exactly the vertices inside the closed box, on a solid and on a cloth;
 * a malformed, inverted or empty box is refused with file:line and the key. */
static void pins_box(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "block.ini", BLOCK_SCENE "[pins]\nbox = -0.01 -1 -1 0.01 1 1\n"
               "[pins.far]\nbox = 0.35 0.15 -1  0.45 0.25 1\nmotion = translate\n"
               "velocity = 0 0.1 0\n", path, sizeof path);
    weft_model m = {0};
    if (build(path, NULL, &m)) {
        int near = 0, far = 0, wrong = 0;
        for (int i = 0; i < m.n; i++) {
            const double *x = &m.mesh.x[3 * i];
            int want = x[0] == 0.0 ? 0 : (x[0] == 0.4 && x[1] == 0.2) ? 1 : -1;
            if (m.pin[i] != want) wrong++;
            if (want >= 0 && m.w[i] != 0.0) wrong++;
            if (want < 0 && !(m.w[i] > 0.0)) wrong++;
            near += want == 0, far += want == 1;
        }
        CHECK(wrong == 0);
        CHECK(near == 3 * 3 && far == 3); /* the x = 0 face; the edge x = 0.4, y = 0.2 */
        CHECK(m.npaths == 2 && m.paths[1].motion == WEFT_PIN_TRANSLATE);
    }
    weft_model_free(&m);

    /* On a grid (the xz plane from z = 0.5 to -0.5): the row at z = 0.5. */
    static const char *const grid[] = {"pins.box=-1,0.9,0.49,1,1.1,0.51", "pins.corners=", NULL};
    if (build("hanging_cloth", grid, &m)) {
        int pinned = 0, wrong = 0;
        for (int i = 0; i < m.n; i++) {
            bool in_row = m.mesh.x[3 * i + 2] == 0.5;
            pinned += m.pin[i] >= 0;
            wrong += in_row != (m.pin[i] >= 0);
        }
        CHECK(pinned == 32 && wrong == 0);
    }
    weft_model_free(&m);

    static const char *const inverted[] = {"pins.box=0,0,0,-1,1,1", NULL};
    expect_error(path, inverted, "--set pins.box=0,0,0,-1,1,1: pins.box", "xmin 0 > xmax -1");
    static const char *const five[] = {"pins.box=0 0 0 1 1", NULL};
    expect_error(path, five, "pins.box: '0 0 0 1 1' needs 6 numbers", NULL);
    static const char *const word[] = {"pins.box=0 0 0 1 1 x", NULL};
    expect_error(path, word, "pins.box: 'x' is not a number", NULL);
    static const char *const empty[] = {"pins.box=2 2 2 3 3 3", NULL};
    expect_error(path, empty, "pins.box: the box holds no vertex", "x [0, 0.4]");
    char bad_path[128];
    write_file(&d, "bad.ini", BLOCK_SCENE "[pins]\nbox = 1 0 0 0 1 1\n", bad_path,
               sizeof bad_path);
    char want[200];
    snprintf(want, sizeof want, "%s:16: pins.box", bad_path);
    expect_error(bad_path, NULL, want, "xmin 1 > xmax 0");
    remove(path), remove(bad_path);
    CHECK(rmdir(d.path) == 0);
}

/* A tetgen scene reads its files relative to the scene, scales and translates them, and
 * lumps masses from the tetrahedra. */
static void scene_tetgen(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char node[128], ele[128], path[128];
    /* A unit cube split into 5 tetrahedra: one at each of the corners 1, 4, 6, 7 with its
     * three neighbours (1/6 m³ each) around the regular middle one 2-3-5-8 (1/3 m³);
     * 1-based, orientations as they come (the reader turns the negative ones). */
    write_file(&d, "cube.node", "8 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n"
               "5 0 0 1\n6 1 0 1\n7 0 1 1\n8 1 1 1\n", node, sizeof node);
    write_file(&d, "cube.ele", "5 4 0\n1 1 2 3 5\n2 4 2 3 8\n3 6 2 5 8\n4 7 3 5 8\n"
               "5 2 3 5 8\n", ele, sizeof ele);
    write_file(&d, "cube.ini", "[scene]\nname = cube\ndt = 0.001\n[mesh]\ntype = tetgen\n"
               "path = cube\nscale = 2\ntranslate = 1 2 3\n[material]\ndensity = 500\n"
               "membrane = mass_spring\nvolume = test_neo_hookean\n", path, sizeof path);
    weft_model m = {0};
    if (build(path, NULL, &m)) {
        CHECK(m.mesh.nv == 8 && m.mesh.ntet == 5 && m.mesh.nt == 12 && m.mesh.closed);
        CHECK(m.x[0] == 1.0 && m.x[1] == 2.0 && m.x[2] == 3.0);    /* point 1: 2·0 + t */
        CHECK(m.x[21] == 3.0 && m.x[22] == 4.0 && m.x[23] == 5.0); /* point 8: 2·1 + t */
        CHECK_NEAR(m.rest_volume, 8.0, 1e-13);
        CHECK_NEAR(total_mass(&m), 500.0 * 8.0, 1e-10);
        /* Point 1 is in one corner tetrahedron (8/6 m³ after scaling); point 2 in three
         * and the middle one (3 · 8/6 + 8/3 m³): a quarter of each, × 500 kg/m³. */
        CHECK_NEAR(m.mass[0], 500.0 * (8.0 / 6.0) / 4.0, 1e-11);
        CHECK_NEAR(m.mass[1], 500.0 * (3.0 * 8.0 / 6.0 + 8.0 / 3.0) / 4.0, 1e-11);
        CHECK(m.volume_term >= 0 && m.stretch_term >= 0);
    }
    weft_model_free(&m);
    remove(node), remove(ele), remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* Bad tet-mesh keys and files are refused with file:line, section.key or the mesh file. */
static void scene_tet_errors(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "block.ini", BLOCK_SCENE, path, sizeof path);
    static const char *const two_cells[] = {"mesh.cells=4 4", NULL};
    expect_error(path, two_cells, "mesh.cells: '4 4' needs 3 integers", NULL);
    static const char *const zero_cells[] = {"mesh.cells=4 0 4", NULL};
    expect_error(path, zero_cells, "mesh.cells: 0 must lie in [1, 256]", NULL);
    static const char *const frac_cells[] = {"mesh.cells=4 2.5 4", NULL};
    expect_error(path, frac_cells, "mesh.cells: '2.5' is not an integer", NULL);
    static const char *const flat[] = {"mesh.size=1 0 1", NULL};
    expect_error(path, flat, "mesh.size: every side must lie in (0, 1e6] m", NULL);
    static const char *const no_path[] = {"mesh.type=tetgen", NULL};
    expect_error(path, no_path, "mesh.type: type tetgen needs mesh.path", NULL);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.node", d.path);
    static const char *const gone[] = {"mesh.type=tetgen", "mesh.path=none", NULL};
    expect_error(path, gone, missing, "cannot open");
    static const char *const solvers[] = {"scene.solvers=pbd_jacobi;rm", NULL};
    expect_error(path, solvers, "scene.solvers: 'pbd_jacobi;rm' is not a list", NULL);
    static const char *const no_solvers[] = {"scene.solvers= , ", NULL};
    expect_error(path, no_solvers, "scene.solvers: names no solver", NULL);
    /* A volume energy needs tetrahedra, as before. */
    static const char *const cloth_volume[] = {"material.volume=test_neo_hookean", NULL};
    expect_error("hanging_cloth", cloth_volume, "material.volume", "needs a tetrahedral mesh");
    /* A cloth energy has no tetrahedral variant. */
    static const char *const bending[] = {"material.volume=dihedral_bending", NULL};
    expect_error(path, bending, "material.volume", "no variant for a tetrahedral mesh");
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* ------------------------------------------------------------------------------ */
/* The explicit baseline                                                           */
/* ------------------------------------------------------------------------------ */

/* Linear momentum P = Σ m v, angular momentum L = Σ m x × v about the origin, and the
 * scales Σ m |v|, Σ m |x||v| that bound the rounding of each sum. */
static void momenta(const weft_model *m, double P[3], double L[3], double *ps, double *ls) {
    for (int k = 0; k < 3; k++) P[k] = L[k] = 0.0;
    *ps = *ls = 0.0;
    for (int i = 0; i < m->n; i++) {
        const double *x = &m->x[3 * i], *v = &m->v[3 * i];
        double c[3];
        cross3(x, v, c);
        for (int k = 0; k < 3; k++) P[k] += m->mass[i] * v[k], L[k] += m->mass[i] * c[k];
        *ps += m->mass[i] * norm3(v);
        *ls += m->mass[i] * norm3(x) * norm3(v);
    }
}

/* A free block with random velocities, no gravity and no colliders keeps its linear and
 * angular momentum: internal forces of a translation- and rotation-invariant energy sum
 * to zero and have no torque, and symplectic Euler's L_{n+1} = Σ x_n × m v_{n+1} (since
 * x_{n+1} − x_n ∥ v_{n+1}) changes only by h Σ x_n × f_n = 0. Springs alone, and springs
 * with the stand-in volume energy. */
static void explicit_momentum(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "block.ini", BLOCK_SCENE, path, sizeof path);
    static const char *const springs[] = {NULL};
    static const char *const solid[] = {"material.volume=test_neo_hookean",
                                        "material.youngs_modulus=2e4", NULL};
    const char *const *variants[2] = {springs, solid};
    for (int var = 0; var < 2; var++) {
        weft_model m = {0};
        if (!build(path, variants[var], &m)) continue;
        lcg g = {42 + (uint64_t)var};
        for (int i = 0; i < 3 * m.n; i++) m.v[i] = rnd_in(&g, -0.5, 0.5);
        double P0[3], L0[3], ps, ls;
        momenta(&m, P0, L0, &ps, &ls);
        void *st = create(&m);
        /* 200 steps of 1 ms: the fastest spring (k ≈ 100 N/m·(A₁ + A₂)/ℓ0², m ≈ 0.04 kg)
         * has h ω ≈ 0.2, well inside the stable range (h ω < 2). */
        if (st && run_steps(st, &m, 200)) {
            double P[3], L[3], ps1, ls1;
            momenta(&m, P, L, &ps1, &ls1);
            for (int k = 0; k < 3; k++) {
                CHECK_NEAR(P[k], P0[k], 1e-13 * fmax(ps, ps1));
                CHECK_NEAR(L[k], L0[k], 1e-13 * fmax(ls, ls1));
            }
            /* Not a trivial pass: the forces really acted (edges stretched and moved). */
            double cmax, crms;
            weft_strain(&m, m.x, &cmax, &crms);
            CHECK(cmax > 1e-3);
            CHECK(fabs(m.t - 0.2) < 1e-12);
        }
        weft_symplectic_euler.destroy(st);
        weft_model_free(&m);
    }
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* Pinned vertices follow their scripted path exactly (a rotation here), with the
 * velocity that gets them there, while the rest falls under gravity. */
static void explicit_pins(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "block.ini", BLOCK_SCENE "[pins]\nbox = -0.01 -1 -1 0.01 1 1\n"
               "motion = rotate\nangular_velocity = 1 0 0\ncenter = 0 0.1 0.1\n", path,
               sizeof path);
    static const char *const gravity[] = {"scene.gravity=0 -9.81 0", NULL};
    weft_model m = {0};
    void *st = build(path, gravity, &m) ? create(&m) : NULL;
    int npinned = 0, off_path = 0, wrong_v = 0;
    for (int i = 0; st && i < m.n; i++) npinned += m.pin[i] >= 0;
    CHECK(!st || npinned == 9);
    for (int s = 0; st && s < 50; s++) {
        double *before = malloc(3 * sizeof(double) * (size_t)m.n);
        CHECK(before != NULL);
        if (!before) break;
        memcpy(before, m.x, 3 * sizeof(double) * (size_t)m.n);
        double t_next = m.t + m.dt;
        if (!run_steps(st, &m, 1)) {
            free(before);
            break;
        }
        for (int i = 0; i < m.n; i++) {
            if (m.pin[i] < 0) continue;
            double want[3];
            /* The step puts the pin at the path's position for t + h, computed by the
             * same function from the same numbers: equal to the last bit. */
            weft_pin_position(&m.paths[m.pin[i]], &m.x_start[3 * i], t_next, want);
            off_path += memcmp(&m.x[3 * i], want, sizeof want) != 0;
            for (int k = 0; k < 3; k++)
                wrong_v += !(fabs(m.v[3 * i + k] - (want[k] - before[3 * i + k]) / m.dt) <=
                             1e-9);
        }
        free(before);
    }
    CHECK(off_path == 0 && wrong_v == 0);
    if (st) {
        /* And the free part fell: the block started at y ≥ 0, and in 50 ms gravity alone
         * takes a vertex ½ g t² = 12 mm down; the soft springs hold back only part. */
        double ymin = DBL_MAX;
        for (int i = 0; i < m.n; i++) ymin = fmin(ymin, m.x[3 * i + 1]);
        CHECK(ymin < -1e-3);
    }
    weft_symplectic_euler.destroy(st);
    weft_model_free(&m);
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* A block dropped on the ground never ends a step closer than the contact margin, leaves
 * no contact vertex moving inward; sliding on it, Coulomb friction μ stops it after
 * v0 / (μ g). */
static void explicit_contact(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "block.ini", BLOCK_SCENE "[collision]\nmargin = 0.002\n"
               "[collider.ground]\ntype = plane\npoint = 0 0 0\nnormal = 0 1 0\n"
               "friction = 0.5\nrestitution = 0\n", path, sizeof path);
    static const char *const drop[] = {"scene.gravity=0 -9.81 0", "mesh.origin=0 0.05 0",
                                       "material.volume=test_neo_hookean",
                                       "material.youngs_modulus=1e5", "scene.dt=0.0002", NULL};
    weft_model m = {0};
    void *st = build(path, drop, &m) ? create(&m) : NULL;
    double dmin = DBL_MAX;
    int inward = 0;
    /* 0.25 s: the bottom (0.05 m up) lands after √(2·0.048/9.81) ≈ 0.1 s. */
    for (int s = 0; st && s < 1250; s++) {
        if (!run_steps(st, &m, 1)) break;
        for (int i = 0; i < m.n; i++) {
            double dist = weft_collider_distance(&m.colliders[0], &m.x[3 * i], NULL);
            dmin = fmin(dmin, dist);
            if (dist <= m.contact_margin + 1e-12 && m.v[3 * i + 1] < 0.0) inward++;
        }
    }
    if (st) {
        CHECK(dmin >= m.contact_margin - 1e-12);
        CHECK(dmin <= m.contact_margin + 1e-9); /* and it did land */
        CHECK(inward == 0);
    }
    weft_symplectic_euler.destroy(st);
    weft_model_free(&m);

    /* Resting on the ground (bottom at the margin) and sliding at v0 = 1 m/s along x: the
     * ground's friction decelerates the block at μ g = 4.905 m/s², so its centre of mass
     * travels v0 t − μ g t² / 2 until it stops at t = v0 / (μ g) = 0.204 s, after
     * v0² / (2 μ g) = 0.102 m. (The centre of mass, not the velocity: once the bottom
     * sticks, the undamped block keeps swaying on it.) */
    static const char *const slide[] = {"scene.gravity=0 -9.81 0", "mesh.origin=0 0.002 0",
                                        "material.volume=test_neo_hookean",
                                        "material.youngs_modulus=1e6", "scene.dt=0.0002", NULL};
    st = build(path, slide, &m) ? create(&m) : NULL;
    for (int i = 0; st && i < m.n; i++) m.v[3 * i] = 1.0;
    double M = st ? total_mass(&m) : 1.0, x0 = 0.0;
    for (int i = 0; st && i < m.n; i++) x0 += m.mass[i] * m.x[3 * i] / M;
    for (int phase = 0; st && phase < 2; phase++) {
        if (!run_steps(st, &m, phase == 0 ? 500 : 1500)) break; /* to t = 0.1 s, 0.4 s */
        double xc = 0.0;
        for (int i = 0; i < m.n; i++) xc += m.mass[i] * m.x[3 * i] / M;
        /* ±2 mm covers the sway and the bottom settling onto the ground, not a missing or
         * doubled friction (0.4 m or 0.051 m at 0.4 s). */
        if (phase == 0) CHECK_NEAR(xc - x0, 0.1 - 0.5 * 0.5 * 9.81 * 0.01, 2e-3);
        if (phase == 1) CHECK_NEAR(xc - x0, 1.0 / (2 * 0.5 * 9.81), 2e-3);
    }
    weft_symplectic_euler.destroy(st);
    weft_model_free(&m);
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* Total energy (kinetic + gravitational + elastic) of m at its current state, J. */
static double total_energy(const weft_model *m) {
    double e = weft_model_energy(m, m->x);
    for (int i = 0; i < m->n; i++)
        for (int k = 0; k < 3; k++)
            e += 0.5 * m->mass[i] * m->v[3 * i + k] * m->v[3 * i + k] -
                 m->mass[i] * m->gravity[k] * m->x[3 * i + k];
    return e;
}

/* Runs the tet_beam scene (built with sets and reg) for 0.3 s at its own dt and checks
 * that it is stable and sags as a clamped beam does; then that 2.5 times the scene's CFL
 * estimate makes it diverge. */
static void check_beam(const char *const *sets, const weft_energy_type *const *reg) {
    weft_model m = {0};
    weft_error err = {{0}};
    int rc = scene_try_build("tet_beam", sets, reg, &m, &err);
    if (rc != WEFT_OK) fprintf(stderr, "tet_beam: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    if (rc != WEFT_OK) return;
    CHECK(m.mesh.ntet == 1920 && m.n == 525 && m.volume_term >= 0);
    CHECK_NEAR(total_mass(&m), 1000.0 * 1.0 * 0.2 * 0.2, 1e-9); /* ρ V = 40 kg */
    int clamped = 0;
    for (int i = 0; i < m.n; i++) clamped += m.pin[i] >= 0;
    CHECK(clamped == 5 * 5); /* the x = 0 face of 4 x 4 cells */
    /* The free end's top edge: x = 1, y = 1.1. */
    int tip = m.n - 1;
    CHECK(m.x[3 * tip] == 0.0 + 1.0 && m.x[3 * tip + 1] == 0.9 + 0.2); /* origin + size */

    void *st = create(&m);
    const double E0 = total_energy(&m), y0 = m.x[3 * tip + 1];
    double drift = 0.0, ymin = y0;
    int steps = (int)(0.3 / m.dt + 0.5);
    for (int s = 0; st && s < steps; s++) {
        if (!run_steps(st, &m, 1)) break;
        drift = fmax(drift, fabs(total_energy(&m) - E0));
        ymin = fmin(ymin, m.x[3 * tip + 1]);
    }
    /* Stable: symplectic Euler keeps the energy within a small oscillation; 1e-3 of
     * M g L = 392 J is far above that and far below any blow-up. */
    CHECK(drift < 1e-3 * 40.0 * 9.81 * 1.0);
    /* Sags: Euler-Bernoulli gives a static tip deflection q L⁴ / (8 E I) = 0.37 m
     * (q = ρ g A = 392 N/m, I = b h³ / 12 = 1.33e-4 m⁴), and released from rest a tip
     * swings to at most twice that; after 0.3 s (about a third of the first mode's
     * period 2π / (1.875² √(E I / (ρ A L⁴))) ≈ 1 s) it is well on its way down. */
    CHECK(y0 - ymin > 0.1);
    CHECK(y0 - ymin < 2 * 0.37);
    weft_symplectic_euler.destroy(st);
    weft_model_free(&m);

    /* The .ini estimates the CFL limit at 7.6e-4 s; 2.5 times that blows up. */
    const char *big[16];
    int n = 0;
    for (; sets && sets[n] && n < 14; n++) big[n] = sets[n];
    big[n++] = "scene.dt=0.0019";
    big[n] = NULL;
    rc = scene_try_build("tet_beam", big, reg, &m, &err);
    CHECK(rc == WEFT_OK);
    st = rc == WEFT_OK ? create(&m) : NULL;
    bool blew_up = false;
    for (int s = 0; st && s < 200 && !blew_up; s++) {
        if (!run_steps(st, &m, 1)) break;
        for (int i = 0; i < 3 * m.n && !blew_up; i++)
            blew_up = !isfinite(m.x[i]) || fabs(m.x[i]) > 1e3;
    }
    CHECK(blew_up);
    weft_symplectic_euler.destroy(st);
    weft_model_free(&m);
}

/* The built-in tet_beam with the stand-in energy: stable at its dt, sags, diverges at
 * 2.5 times its CFL estimate. */
static void explicit_cfl(void) {
    static const char *const sets[] = {"material.volume=test_neo_hookean", NULL};
    check_beam(sets, registry);
}

/* The built-in tet_beam exactly as shipped, with the registered stable_neo_hookean. Needs
 * the tetrahedral energies in energies/; registered in CMake once they are merged. */
static void tet_beam_builtin(void) { check_beam(NULL, weft_energy_registry); }

static const check_case cases[] = {
    {"scene_tet_block", scene_tet_block},
    {"scene_density_units", scene_density_units},
    {"pins_box", pins_box},
    {"scene_tetgen", scene_tetgen},
    {"scene_tet_errors", scene_tet_errors},
    {"explicit_momentum", explicit_momentum},
    {"explicit_pins", explicit_pins},
    {"explicit_contact", explicit_contact},
    {"explicit_cfl", explicit_cfl},
    {"tet_beam_builtin", tet_beam_builtin},
    {NULL, NULL},
};

int main(int argc, char **argv) { return check_main(argc, argv, cases); }
