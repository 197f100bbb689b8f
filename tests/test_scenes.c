/* test_scenes.c — scenes of several meshes and moving obstacles: [mesh.NAME] parts
 * appended to the model's one mesh (counts, positions, topology, per-part density,
 * initial velocity, rest shape, pins that name a part, PBD damping per part, errors),
 * box colliders (signed
 * distance and normal against hand-computed values), colliders translating with constant
 * velocity (distance at time t; a static collider unchanged bit for bit; friction that
 * carries a cloth on a moving box, under both PBD solvers and the explicit one; a fast
 * sphere caught by the ray test in its own frame), and the facts the three built-in
 * collision scenes are built on.
 *
 * Expected values are derived next to each check from geometry and mechanics, not taken
 * from running this code. Scene files go to a fresh mkdtemp directory.
 */
#include "check.h"
#include "collider_helpers.h"
#include "tmp_files.h"
#include "scene_build.h"
#include "pbd_internal.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <unistd.h>

/* π, which strict C17 does not define. */
#define PI 3.14159265358979323846

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */
/* ------------------------------------------------------------------------------ */


/* Builds scene with the overrides; a failed check otherwise. */
static bool build(const char *scene, const char *const *sets, weft_model *m) {
    return scene_build(scene, sets, weft_energy_registry, m);
}

/* build, keeping the run's config (the plug-ins' settings) in *cfg. */
static bool build_cfg(const char *scene, const char *const *sets, weft_model *m,
                      weft_config **cfg) {
    return scene_build_cfg(scene, sets, weft_energy_registry, m, cfg);
}

/* The run length, s: the config's [scene] steps times the model's dt. */
static double duration(const weft_config *cfg, const weft_model *m) {
    return cfg_value(cfg, "scene", "steps") * m->dt;
}

/* The build must fail with a one-line message holding want1 and want2 (or NULL). */
static void expect_error(const char *scene, const char *const *sets, const char *want1,
                         const char *want2) {
    scene_expect_error(scene, sets, weft_energy_registry, want1, want2);
}

/* Writes text as d/name and builds it into m, its config into *cfg (NULL: checked and
 * dropped); false (and a failed check) on failure. */
static bool build_text(const tmp_dir *d, const char *name, const char *text, weft_model *m,
                       weft_config **cfg) {
    char path[128];
    write_file(d, name, text, path, sizeof path);
    bool ok = build_cfg(path, NULL, m, cfg);
    remove(path);
    return ok;
}

/* The part called name, or NULL. */
static const weft_part *find_part(const weft_model *m, const char *name) {
    for (int p = 0; p < m->nparts; p++)
        if (strcmp(m->parts[p].name, name) == 0) return &m->parts[p];
    return NULL;
}

/* Sum of the lumped masses of vertices first .. first + n - 1, kg. */
static double mass_of(const weft_model *m, int first, int n) {
    double M = 0.0;
    for (int i = first; i < first + n; i++) M += m->mass[i];
    return M;
}

/* Mass-weighted mean of component k of positions (x) or velocities (v) over the free
 * vertices. */
static double mean_of(const weft_model *m, const double *a, int k) {
    double s = 0.0, M = 0.0;
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] < 0) s += m->mass[i] * a[3 * i + k], M += m->mass[i];
    return s / M;
}

static void *create(const weft_solver_type *solver, const weft_model *m, weft_config *cfg) {
    weft_error err = {{0}};
    void *st = solver->create(m, cfg, &err);
    if (!st) fprintf(stderr, "%s create: %s\n", solver->name, err.msg);
    CHECK(st != NULL);
    return st;
}

/* One step; false (and a failed check) on an error or a non-finite state. */
static bool step(const weft_solver_type *solver, void *st, weft_model *m) {
    weft_error err = {{0}};
    int rc = solver->step(st, m, NULL, &err);
    if (rc != WEFT_OK) fprintf(stderr, "%s step: %s\n", solver->name, err.msg);
    CHECK(rc == WEFT_OK);
    bool finite = true;
    for (int i = 0; i < 3 * m->n && finite; i++) finite = isfinite(m->x[i]) && isfinite(m->v[i]);
    CHECK(finite);
    return rc == WEFT_OK && finite;
}

/* ------------------------------------------------------------------------------ */
/* Several meshes: [mesh.NAME] parts                                               */
/* ------------------------------------------------------------------------------ */

/* A 5 x 3 grid (1 m x 0.5 m) as [mesh], a 4 x 4 grid (0.4 m) part "top" and a level-1
 * icosphere part "ball", with per-part densities and velocities and pins on each. */
#define PARTS_SCENE                                                                        \
    "[scene]\nname = parts\n"                                                              \
    "[mesh]\ntype = grid\nwidth = 1\nheight = 0.5\nnx = 5\nny = 3\nplane = xz\n"           \
    "origin = 0 1 0\nvelocity = 0 0 1\n"                                                   \
    "[mesh.top]\ntype = grid\nwidth = 0.4\nheight = 0.4\nnx = 4\nny = 4\nplane = xz\n"     \
    "origin = 0 1.5 0\ndensity = 0.5\nvelocity = 1 2 3\n"                                  \
    "[mesh.ball]\ntype = icosphere\nradius = 0.1\nsubdivisions = 1\ncenter = 3 0 0\n"      \
    "density = 2\n"                                                                        \
    "[material]\ndensity = 0.2\n"                                                          \
    "[pins]\ncorners = top_left\n"                                                         \
    "[pins.a]\nmesh = top\ncorners = bottom_right\nedges = top\nvertices = 5\n"            \
    "[pins.b]\nmesh = ball\nvertices = 0 41\n"

/* Each part is appended whole: vertex and triangle counts add up, positions are the
 * generator's own, triangles are shifted by the part's first vertex, and the single
 * topology build over the union finds each part's edges and no edge between parts. */
static void parts_mesh(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    weft_model m = {0};
    weft_mesh g0 = {0}, g1 = {0}, ball = {0};
    weft_error err = {{0}};
    weft_grid_desc d0 = {.width = 1, .height = 0.5, .nx = 5, .ny = 3, .plane = WEFT_PLANE_XZ,
                         .origin = {0, 1, 0}};
    weft_grid_desc d1 = {.width = 0.4, .height = 0.4, .nx = 4, .ny = 4, .plane = WEFT_PLANE_XZ,
                         .origin = {0, 1.5, 0}};
    const double c[3] = {3, 0, 0};
    CHECK(weft_mesh_grid(&g0, &d0, &err) == WEFT_OK && weft_mesh_grid(&g1, &d1, &err) == WEFT_OK &&
          weft_mesh_icosphere(&ball, 0.1, 1, c, &err) == WEFT_OK);
    if (build_text(&d, "parts.ini", PARTS_SCENE, &m, NULL)) {
        /* 15 + 16 + 42 vertices; 2·4·2 + 2·3·3 + 80 triangles. */
        CHECK(m.n == 73 && m.mesh.nv == 73 && m.mesh.nt == 16 + 18 + 80);
        CHECK(m.nparts == 3);
        const weft_mesh *src[3] = {&g0, &g1, &ball};
        static const char *const names[3] = {"", "top", "ball"};
        const int first[3] = {0, 15, 31}, first_tri[3] = {0, 16, 34};
        const int gx[3] = {5, 4, 0}, gy[3] = {3, 4, 0};
        int ne = 0, nb = 0, nh = 0;
        for (int p = 0; p < 3 && m.nparts == 3; p++) {
            const weft_part *pt = &m.parts[p];
            CHECK(strcmp(pt->name, names[p]) == 0);
            CHECK(pt->first == first[p] && pt->nv == src[p]->nv);
            CHECK(pt->first_tri == first_tri[p] && pt->nt == src[p]->nt);
            CHECK(pt->grid_nx == gx[p] && pt->grid_ny == gy[p]);
            CHECK(memcmp(&m.mesh.x[3 * pt->first], src[p]->x,
                         3 * sizeof(double) * (size_t)pt->nv) == 0);
            CHECK(memcmp(&m.x[3 * pt->first], src[p]->x, 3 * sizeof(double) * (size_t)pt->nv) == 0);
            int shifted = 0;
            for (int t = 0; t < 3 * pt->nt; t++)
                shifted += m.mesh.tri[3 * pt->first_tri + t] == src[p]->tri[t] + pt->first;
            CHECK(shifted == 3 * pt->nt);
            ne += src[p]->ne, nb += src[p]->nb, nh += src[p]->nh;
        }
        CHECK(m.mesh.ne == ne && m.mesh.nb == nb && m.mesh.nh == nh);
        CHECK(!m.mesh.closed); /* two open grids and a closed sphere */
        /* Every edge joins two vertices of one part: the parts are separate components. */
        int across = 0;
        for (int e = 0; e < m.mesh.ne; e++) {
            int a = m.mesh.edge[2 * e], b = m.mesh.edge[2 * e + 1];
            across += (a >= 15) != (b >= 15) || (a >= 31) != (b >= 31);
        }
        CHECK(across == 0);
        /* The union is not one grid, and one part has no material coordinates, so the
         * union has none (each triangle keeps its own rest shape: parts_rest_shape). */
        CHECK(m.mesh.grid_nx == 0 && m.mesh.nuv == 0 && m.mesh.tri_uv == NULL);
    }
    weft_model_free(&m);

    /* A scene without parts records its one mesh as part 0 and keeps the grid as is. */
    if (build("hanging_cloth", NULL, &m)) {
        CHECK(m.nparts == 1 && m.parts[0].name[0] == '\0' && m.parts[0].first == 0);
        CHECK(m.parts[0].nv == 1024 && m.parts[0].nt == 1922 && m.parts[0].grid_nx == 32);
        CHECK(m.mesh.grid_nx == 32 && m.mesh.nuv == 1024 && m.mesh.tri_uv != NULL);
        CHECK(m.parts[0].density == 0.1);
    }
    weft_model_free(&m);
    weft_mesh_free(&g0), weft_mesh_free(&g1), weft_mesh_free(&ball);
    CHECK(rmdir(d.path) == 0);
}

/* Lumped masses use each part's density: part p weighs density_p × its area, and a grid
 * corner whose quad is split through it (the alternating grid's (0, 0)) carries a third
 * of two triangles, density × dx dy / 3. */
static void parts_masses(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    weft_model m = {0};
    weft_mesh ball = {0};
    weft_error err = {{0}};
    const double c[3] = {3, 0, 0};
    CHECK(weft_mesh_icosphere(&ball, 0.1, 1, c, &err) == WEFT_OK);
    double ball_area = 0.0; /* the level-1 icosphere's area, from its own triangles */
    for (int t = 0; t < ball.nt; t++) {
        const double *a = &ball.x[3 * ball.tri[3 * t]], *b = &ball.x[3 * ball.tri[3 * t + 1]],
                     *e = &ball.x[3 * ball.tri[3 * t + 2]];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double v[3] = {e[0] - a[0], e[1] - a[1], e[2] - a[2]}, n[3];
        cross3(u, v, n);
        ball_area += 0.5 * norm3(n);
    }
    if (build_text(&d, "parts.ini", PARTS_SCENE, &m, NULL) && m.nparts == 3) {
        CHECK(m.parts[0].density == 0.2 && m.parts[1].density == 0.5 && m.parts[2].density == 2);
        CHECK_NEAR(mass_of(&m, 0, 15), 0.2 * 1.0 * 0.5, 1e-15);      /* [material] density */
        CHECK_NEAR(mass_of(&m, 15, 16), 0.5 * 0.4 * 0.4, 1e-15);     /* [mesh.top] */
        CHECK_NEAR(mass_of(&m, 31, 42), 2.0 * ball_area, 1e-14);     /* [mesh.ball] */
        CHECK_NEAR(m.mass[0], 0.2 * 0.25 * 0.25 / 3.0, 1e-16);
        CHECK_NEAR(m.mass[15], 0.5 * (0.4 / 3) * (0.4 / 3) / 3.0, 1e-16);
        /* Not vacuous: the inscribed polyhedron's area is a little under 4π r². */
        CHECK(ball_area > 0.1 && ball_area < 4 * PI * 0.01);
    }
    weft_model_free(&m);
    weft_mesh_free(&ball);
    CHECK(rmdir(d.path) == 0);
}

/* Free vertices start with their part's velocity; pinned vertices with none (they follow
 * their scripted path). */
static void parts_velocity(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    weft_model m = {0};
    if (build_text(&d, "parts.ini", PARTS_SCENE, &m, NULL) && m.nparts == 3) {
        static const double want[3][3] = {{0, 0, 1}, {1, 2, 3}, {0, 0, 0}};
        int wrong = 0, pinned = 0;
        for (int p = 0; p < 3; p++)
            for (int i = m.parts[p].first; i < m.parts[p].first + m.parts[p].nv; i++)
                for (int k = 0; k < 3; k++) {
                    double v = m.pin[i] >= 0 ? 0.0 : want[p][k];
                    wrong += m.v[3 * i + k] != v;
                    pinned += m.pin[i] >= 0 && k == 0;
                }
        CHECK(wrong == 0);
        CHECK(pinned == 9);
        CHECK(m.parts[1].velocity[0] == 1 && m.parts[1].velocity[2] == 3);
    }
    weft_model_free(&m);
    CHECK(rmdir(d.path) == 0);
}

/* PBD damping (§3.5) treats each part as its own object. Parts translating at different
 * velocities are each in rigid motion, so damping with k = 1 leaves them as they are
 * (damped as one object, all would take the common centre-of-mass velocity); a random
 * field keeps each part's linear momentum while k = 1 makes each part rigid. */
static void parts_damping(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    weft_model m = {0};
    if (build_text(&d, "parts.ini", PARTS_SCENE, &m, NULL) && m.nparts == 3) {
        size_t n3 = 3 * (size_t)m.n;
        double *v = malloc(n3 * sizeof *v);
        CHECK(v != NULL);
        if (v) {
            memcpy(v, m.v, n3 * sizeof *v);
            pbd_damp_velocities(&m, v, 1.0);
            double worst = 0.0;
            for (size_t i = 0; i < n3; i++) worst = fmax(worst, fabs(v[i] - m.v[i]));
            CHECK(worst <= 1e-12); /* speeds of order 1 m/s: rounding only */
            /* A random field: each part's momentum Σ m v before and after. */
            lcg g = {99};
            for (size_t i = 0; i < n3; i++) v[i] = rnd_in(&g, -1, 1);
            double P0[3][3] = {{0}}, P1[3][3] = {{0}};
            for (int p = 0; p < 3; p++)
                for (int i = m.parts[p].first; i < m.parts[p].first + m.parts[p].nv; i++)
                    for (int k = 0; k < 3 && m.w[i] > 0; k++) P0[p][k] += m.mass[i] * v[3 * i + k];
            pbd_damp_velocities(&m, v, 1.0);
            for (int p = 0; p < 3; p++)
                for (int i = m.parts[p].first; i < m.parts[p].first + m.parts[p].nv; i++)
                    for (int k = 0; k < 3 && m.w[i] > 0; k++) P1[p][k] += m.mass[i] * v[3 * i + k];
            for (int p = 0; p < 3; p++)
                for (int k = 0; k < 3; k++) CHECK_NEAR(P1[p][k], P0[p][k], 1e-14);
            /* And after k = 1 each part moves rigidly: a second pass changes nothing. */
            double *v2 = malloc(n3 * sizeof *v2);
            CHECK(v2 != NULL);
            if (v2) {
                memcpy(v2, v, n3 * sizeof *v2);
                pbd_damp_velocities(&m, v2, 1.0);
                worst = 0.0;
                for (size_t i = 0; i < n3; i++) worst = fmax(worst, fabs(v2[i] - v[i]));
                CHECK(worst <= 1e-12);
            }
            free(v2);
        }
        free(v);
    }
    weft_model_free(&m);
    CHECK(rmdir(d.path) == 0);
}

/* Pins resolve local indices, corners and edges in the part their `mesh` key names, the
 * primary [mesh] without it; a box holds the named part's vertices, or every part's. */
static void parts_pins(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    weft_model m = {0};
    if (build_text(&d, "parts.ini", PARTS_SCENE, &m, NULL) && m.nparts == 3) {
        int want[73];
        for (int i = 0; i < 73; i++) want[i] = -1;
        want[0 + 0 + 2 * 5] = 0;                          /* [mesh] top_left: (0, ny-1) */
        want[15 + 3 + 0 * 4] = 1;                         /* top: bottom_right (nx-1, 0) */
        for (int i = 0; i < 4; i++) want[15 + i + 3 * 4] = 1; /* top: edge j = ny-1 */
        want[15 + 5] = 1;                                 /* top: local vertex 5 */
        want[31 + 0] = want[31 + 41] = 2;                 /* ball: local 0 and 41 */
        int wrong = 0;
        for (int i = 0; i < m.n; i++) wrong += m.pin[i] != want[i];
        CHECK(wrong == 0);
        CHECK(m.npaths == 3);
        for (int i = 0; i < m.n; i++) wrong += (m.pin[i] >= 0) != (m.w[i] == 0.0);
        CHECK(wrong == 0);
    }
    weft_model_free(&m);

    /* Box pins: with mesh = top, the part's vertex (0, 1.5, 0) only; the same box on the
     * ball's part holds nothing and says where that part lies; without the key, a box
     * around everything pins every part. */
    char path[128];
    write_file(&d, "parts.ini", PARTS_SCENE, path, sizeof path);
    static const char *const top_box[] = {"pins.c.mesh=top", "pins.c.box=-0.01 1.49 -0.01 "
                                          "0.01 1.51 0.01", NULL};
    if (build(path, top_box, &m)) {
        int count = 0;
        for (int i = 0; i < m.n; i++) count += m.pin[i] == 3;
        CHECK(count == 1 && m.pin[15] == 3);
    }
    weft_model_free(&m);
    static const char *const ball_box[] = {"pins.c.mesh=ball", "pins.c.box=-0.01 1.49 -0.01 "
                                           "0.01 1.51 0.01", NULL};
    expect_error(path, ball_box, "pins.c.box: the box holds no vertex (the mesh.ball spans",
                 "x [2.9");
    static const char *const all_box[] = {"pins.c.box=-10 -10 -10 10 10 10", NULL};
    if (build(path, all_box, &m)) {
        int count = 0;
        for (int i = 0; i < m.n; i++) count += m.pin[i] == 3;
        CHECK(count == 73);
    }
    weft_model_free(&m);
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* Each part keeps its own rest shape for triangle energies, whatever the other parts:
 * every element of a part equals (shifted) the element of the same mesh built alone as
 * [mesh] — a grid's layout, an icosphere's positions, an OBJ's vt under rest_shape = uv —
 * although the union has no material coordinates because the icosphere has none. */
static void parts_rest_shape(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char obj[128];
    /* A unit square whose vt are twice its positions: rest shape uv differs from positions. */
    write_file(&d, "quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
               "vt 0 0\nvt 2 0\nvt 2 2\nvt 0 2\nf 1/1 2/2 3/3\nf 1/1 3/3 4/4\n", obj, sizeof obj);
    static const char *const part_text[3] = {
        "type = grid\nwidth = 0.4\nheight = 0.3\nnx = 4\nny = 3\nplane = xz\norigin = 0 1 0\n",
        "type = icosphere\nradius = 0.1\nsubdivisions = 1\ncenter = 3 0 0\n",
        "type = obj\npath = quad.obj\nrest_shape = uv\ntranslate = 5 0 0\n"};
    char text[2048];
    snprintf(text, sizeof text, "[scene]\nname = rs\n[material]\nmembrane = stvk\n"
             "[mesh]\n%s[mesh.ball]\n%s[mesh.quad]\n%s", part_text[0], part_text[1],
             part_text[2]);
    weft_model all = {0};
    char path[128];
    write_file(&d, "all.ini", text, path, sizeof path);
    bool ok = build(path, NULL, &all) && all.nparts == 3 && all.stretch_term >= 0;
    CHECK(ok);
    CHECK(all.mesh.nuv == 0);
    for (int p = 0; ok && p < 3; p++) {
        snprintf(text, sizeof text, "[scene]\nname = rs\n[material]\nmembrane = stvk\n"
                 "[mesh]\n%s", part_text[p]);
        weft_model one = {0};
        char one_path[128];
        write_file(&d, "one.ini", text, one_path, sizeof one_path);
        if (build(one_path, NULL, &one) && one.stretch_term >= 0) {
            const weft_part *pt = &all.parts[p];
            const weft_term *ta = &all.terms[all.stretch_term], *to = &one.terms[one.stretch_term];
            CHECK(pt->nt == to->n && ta->n == all.mesh.nt);
            int same = 0;
            for (int t = 0; t < to->n && pt->nt == to->n; t++) {
                const weft_element *ea = &ta->elem[pt->first_tri + t], *eo = &to->elem[t];
                bool eq = ea->k == eo->k && ea->k2 == eo->k2 &&
                          memcmp(ea->rest, eo->rest, sizeof ea->rest) == 0;
                for (int a = 0; a < 3; a++) eq = eq && ea->v[a] == eo->v[a] + pt->first;
                same += eq;
            }
            CHECK(same == to->n);
        }
        weft_model_free(&one);
        remove(one_path);
    }
    /* And the OBJ part's uv really is its rest shape: its elements differ from those of
     * the same part with rest_shape = positions (a square of twice the size). */
    if (ok) {
        static const char *const pos[] = {"mesh.quad.rest_shape=positions", NULL};
        weft_model alt = {0};
        if (build(path, pos, &alt)) {
            const weft_element *ea = &all.terms[all.stretch_term].elem[all.parts[2].first_tri];
            const weft_element *eb = &alt.terms[alt.stretch_term].elem[alt.parts[2].first_tri];
            CHECK(memcmp(ea->rest, eb->rest, sizeof ea->rest) != 0);
        }
        weft_model_free(&alt);
    }
    weft_model_free(&all);
    remove(path), remove(obj);
    CHECK(rmdir(d.path) == 0);
}

/* Bad parts and part references are refused with file:line, section.key and a message
 * that says what is wrong; an OBJ part's own errors name the OBJ file and line. */
static void parts_errors(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "parts.ini", PARTS_SCENE, path, sizeof path);
    char want[256];
    static const char *const unknown[] = {"pins.a.mesh=nope", NULL};
    expect_error(path, unknown, "pins.a.mesh: no part 'nope'", "parts are: top, ball");
    static const char *const tet[] = {"mesh.top.type=tet_block", NULL};
    expect_error(path, tet, "mesh.top.type: a [mesh.NAME] part is a surface", NULL);
    static const char *const tetgen[] = {"mesh.ball.type=tetgen", NULL};
    expect_error(path, tetgen, "mesh.ball.type: a [mesh.NAME] part is a surface", NULL);
    static const char *const vel2[] = {"mesh.top.velocity=1 2", NULL};
    expect_error(path, vel2, "mesh.top.velocity: '1 2' needs 3 components", NULL);
    static const char *const velx[] = {"mesh.velocity=1 x 2", NULL};
    expect_error(path, velx, "mesh.velocity: 'x' is not a number", NULL);
    static const char *const dens0[] = {"mesh.top.density=0", NULL};
    expect_error(path, dens0, "mesh.top.density: 0 must lie in (0,", NULL);
    static const char *const primary_density[] = {"mesh.density=0.3", NULL};
    expect_error(path, primary_density, "mesh.density: the primary mesh takes material.density",
                 NULL);
    static const char *const local[] = {"pins.b.vertices=42", NULL};
    expect_error(path, local, "pins.b.vertices: vertex index 42 out of range",
                 "mesh.ball has 42 vertices");
    static const char *const corners[] = {"pins.b.corners=top_left", NULL};
    expect_error(path, corners, "pins.b.corners: named corners and edges need a grid mesh",
                 "mesh.ball is not one");
    static const char *const tet_primary[] = {"mesh.type=tet_block", NULL};
    expect_error(path, tet_primary, "mesh.type: a tetrahedral mesh cannot be combined", NULL);
    static const char *const typo[] = {"mesh.top.nxx=3", NULL};
    expect_error(path, typo, "mesh.top.nxx: unknown key", NULL);
    static const char *const no_path[] = {"mesh.ball.type=obj", NULL};
    expect_error(path, no_path, "mesh.ball.type: type obj needs mesh.ball.path", NULL);

    /* In the file: the line of the key. */
    char bad[128];
    write_file(&d, "bad.ini", "[scene]\nname = bad\n[mesh.top]\nvelocity = 1 2\n", bad,
               sizeof bad);
    snprintf(want, sizeof want, "%s:4: mesh.top.velocity", bad);
    expect_error(bad, NULL, want, "needs 3 components");
    write_file(&d, "bad.ini", "[scene]\nname = bad\n[mesh.top]\nnx = 3\n[pins]\nmesh = tpo\n",
               bad, sizeof bad);
    snprintf(want, sizeof want, "%s:6: pins.mesh: no part 'tpo'", bad);
    expect_error(bad, NULL, want, "parts are: top");
    write_file(&d, "bad.ini", "[scene]\nname = bad\n[pins]\nmesh = top\n", bad, sizeof bad);
    expect_error(bad, NULL, "pins.mesh: no part 'top' (the scene has no [mesh.NAME] parts)",
                 NULL);

    /* An OBJ part's errors name the OBJ file and line, as [mesh]'s do. */
    char obj[128];
    write_file(&d, "quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n", obj,
               sizeof obj);
    write_file(&d, "bad.ini", "[scene]\nname = bad\n[mesh.q]\ntype = obj\npath = quad.obj\n",
               bad, sizeof bad);
    snprintf(want, sizeof want, "%s:5: f", obj);
    expect_error(bad, NULL, want, "polygon");
    write_file(&d, "quad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\n"
               "f 1 2 3\nf 2 1 4\nf 1 2 5\n", obj, sizeof obj);
    snprintf(want, sizeof want, "%s:", obj);
    expect_error(bad, NULL, want, "non-manifold");
    remove(obj), remove(bad), remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* weft_mesh_append on its own: appending to an empty mesh copies (layout and source lines
 * kept); a second append shifts indices and drops what no longer holds. */
static void mesh_append(void) {
    weft_mesh a = {0}, b = {0}, u = {0};
    weft_error err = {{0}};
    weft_grid_desc d = {.width = 1, .height = 1, .nx = 3, .ny = 2};
    if (weft_mesh_grid(&a, &d, &err) != WEFT_OK || weft_mesh_grid(&b, &d, &err) != WEFT_OK) {
        CHECK(!"grid");
        return;
    }
    CHECK(weft_mesh_append(&u, &a, &err) == WEFT_OK);
    CHECK(u.nv == 6 && u.nt == 4 && u.grid_nx == 3 && u.nuv == 6 && u.ne == 0);
    CHECK(weft_mesh_append(&u, &b, &err) == WEFT_OK);
    CHECK(u.nv == 12 && u.nt == 8 && u.grid_nx == 0 && u.nuv == 12);
    int shifted = 0;
    for (int i = 0; i < 12; i++)
        shifted += u.tri[12 + i] == b.tri[i] + 6 && u.tri_uv[12 + i] == b.tri_uv[i] + 6;
    CHECK(shifted == 12);
    CHECK(weft_mesh_build_topology(&u, "union", &err) == WEFT_OK);
    CHECK(u.ne == 2 * a.ne && u.nb == 2 * a.nb && u.nh == 2 * a.nh);
    /* A mesh without material coordinates takes them away from the union. */
    weft_mesh s = {0};
    CHECK(weft_mesh_icosphere(&s, 1, 0, NULL, &err) == WEFT_OK);
    CHECK(weft_mesh_append(&u, &s, &err) == WEFT_OK);
    CHECK(u.nv == 24 && u.nuv == 0 && u.uv == NULL && u.tri_uv == NULL);
    /* Tetrahedral meshes are refused, and the union is left as it was. */
    weft_mesh t = {0};
    const double size[3] = {1, 1, 1}, o[3] = {0, 0, 0};
    const int cells[3] = {1, 1, 1};
    CHECK(weft_mesh_tet_block(&t, size, cells, o, &err) == WEFT_OK);
    CHECK(weft_mesh_append(&u, &t, &err) == WEFT_ERR_INPUT && strstr(err.msg, "tetrahedral"));
    CHECK(u.nv == 24);
    weft_mesh_free(&a), weft_mesh_free(&b), weft_mesh_free(&u), weft_mesh_free(&s);
    weft_mesh_free(&t);
}

/* ------------------------------------------------------------------------------ */
/* Colliders: boxes and motion                                                     */
/* ------------------------------------------------------------------------------ */

/* Checks the signed distance and normal of p from c against the hand-computed d and n. */
static void check_distance(const weft_collider *c, const double p[3], double d,
                           const double n[3]) {
    double got[3] = {NAN, NAN, NAN};
    double dist = weft_collider_distance(c, p, got);
    CHECK_NEAR(dist, d, 1e-12);
    for (int k = 0; k < 3; k++) CHECK_NEAR(got[k], n[k], 1e-12);
    CHECK(weft_collider_distance(c, p, NULL) == dist);
}

/* A box centred at (1, 2, 3) with half extents (0.5, 1, 2), i.e. x in [0.5, 1.5],
 * y in [1, 3], z in [1, 5]. With q_k = |p_k - c_k| - h_k: outside, the distance is the
 * length of max(q, 0) and the normal points from the closest box point to p; inside, the
 * nearest face's q (< 0) and its ±axis normal. */
static void box_distance(void) {
    weft_collider c = collider_of("box");
    collider_set(&c, "center", 1, 2, 3);
    collider_set(&c, "half_extents", 0.5, 1, 2);
    const double *ctr = collider_at(&c, "center"), *half = collider_at(&c, "half_extents");
    /* Inside, 0.2 m from the +x face (x = 1.5), 0.9 from +y, 1.8 from +z. */
    check_distance(&c, (double[]){1.3, 2.1, 3.2}, -0.2, (double[]){1, 0, 0});
    /* Inside, 0.2 m from the -z face (z = 1). */
    check_distance(&c, (double[]){1, 2, 1.2}, -0.2, (double[]){0, 0, -1});
    /* At the centre: the nearest faces are x's (0.5 m away); ties go to +. */
    check_distance(&c, (double[]){1, 2, 3}, -0.5, (double[]){1, 0, 0});
    /* On the +x face: distance 0, the face's normal. */
    check_distance(&c, (double[]){1.5, 2, 3}, 0.0, (double[]){1, 0, 0});
    /* Outside the +y face by 0.5 m. */
    check_distance(&c, (double[]){1, 3.5, 3}, 0.5, (double[]){0, 1, 0});
    /* Outside the -x face by 0.25 m. */
    check_distance(&c, (double[]){0.25, 2.5, 4}, 0.25, (double[]){-1, 0, 0});
    /* Beyond the edge x = 1.5, y = 3 by (0.3, 0.4): a 3-4-5 triangle, distance 0.5. */
    check_distance(&c, (double[]){1.8, 3.4, 3}, 0.5, (double[]){0.6, 0.8, 0});
    /* Beyond the corner (0.5, 1, 5) by (-0.2, -0.2, 0.1): distance 0.3. */
    check_distance(&c, (double[]){0.3, 0.8, 5.1}, 0.3,
                   (double[]){-2.0 / 3.0, -2.0 / 3.0, 1.0 / 3.0});
    /* On the edge x = 0.5, y = 1 itself: distance 0, normal of the lowest axis, -x. */
    check_distance(&c, (double[]){0.5, 1, 3}, 0.0, (double[]){-1, 0, 0});
    /* Equidistant from two faces inside a unit cube: the lowest axis wins. */
    weft_collider cube = collider_of("box");
    collider_set(&cube, "half_extents", 1, 1, 1);
    check_distance(&cube, (double[]){0.5, 0.5, 0}, -0.5, (double[]){1, 0, 0});
    check_distance(&cube, (double[]){0, -0.5, -0.5}, -0.5, (double[]){0, -1, 0});

    /* Away from ties, for random points inside and out: the normal is the gradient of the
     * distance (central differences, error O(δ²) with δ = 1e-6), unit length, and
     * stepping back by the distance along it lands on the surface. */
    lcg g = {42};
    int checked = 0;
    for (int s = 0; s < 2000; s++) {
        double p[3] = {rnd_in(&g, -1, 3), rnd_in(&g, -0.5, 4.5), rnd_in(&g, -1, 7)}, n[3];
        double dist = weft_collider_distance(&c, p, n);
        /* Skip points near a tie between faces or near an edge's region boundary, where
         * the distance is not differentiable. */
        double q[3];
        for (int k = 0; k < 3; k++) q[k] = fabs(p[k] - ctr[k]) - half[k];
        bool near_kink = false;
        for (int a = 0; a < 3; a++) {
            if (fabs(q[a]) < 1e-3 || fabs(p[a] - ctr[a]) < 1e-3) near_kink = true;
            for (int b = a + 1; b < 3; b++)
                if (dist < 0 && fabs(q[a] - q[b]) < 1e-3) near_kink = true;
        }
        if (near_kink) continue;
        checked++;
        for (int k = 0; k < 3; k++) {
            double pp[3] = {p[0], p[1], p[2]}, pm[3] = {p[0], p[1], p[2]};
            pp[k] += 1e-6, pm[k] -= 1e-6;
            double fd = (weft_collider_distance(&c, pp, NULL) -
                         weft_collider_distance(&c, pm, NULL)) / 2e-6;
            CHECK_NEAR(fd, n[k], 1e-6);
        }
        CHECK_NEAR(norm3(n), 1.0, 1e-12);
        double back[3] = {p[0] - dist * n[0], p[1] - dist * n[1], p[2] - dist * n[2]};
        CHECK_NEAR(weft_collider_distance(&c, back, NULL), 0.0, 1e-12);
    }
    CHECK(checked > 1000);
}

/* A translating collider at time t stands at p0 + u t: the distance of p at t is that of
 * p - u t from the collider at rest. A static collider gives exactly (bit for bit) the
 * values of weft_collider_distance at every t, so scenes without motion are unchanged. */
static void collider_motion(void) {
    double n[3];
    weft_collider plane = collider_of("plane");
    plane.velocity[1] = 0.5;
    /* At t = 2 s the plane y = 0 has risen to y = 1: (3, 1.5, -1) is 0.5 m above it. */
    CHECK_NEAR(weft_collider_distance_at(&plane, (double[]){3, 1.5, -1}, 2.0, n), 0.5, 1e-15);
    CHECK(n[0] == 0 && n[1] == 1 && n[2] == 0);
    weft_collider sphere = collider_of("sphere");
    collider_set(&sphere, "radius", 1, 0, 0);
    sphere.velocity[0] = 1;
    /* At t = 3 s the unit sphere's centre is (3, 0, 0): (3, 2, 0) is 1 m off its top. */
    CHECK_NEAR(weft_collider_distance_at(&sphere, (double[]){3, 2, 0}, 3.0, n), 1.0, 1e-15);
    CHECK_NEAR(n[1], 1.0, 1e-15);
    weft_collider box = collider_of("box");
    collider_set(&box, "half_extents", 1, 1, 1);
    box.velocity[2] = -2;
    /* At t = 0.5 s the cube's centre is (0, 0, -1), its -z face at z = -2. */
    CHECK_NEAR(weft_collider_distance_at(&box, (double[]){0, 0, -2.25}, 0.5, n), 0.25, 1e-15);
    CHECK(n[0] == 0 && n[1] == 0 && n[2] == -1);
    CHECK(weft_collider_moving(&plane) && weft_collider_moving(&box));

    /* Static: bit for bit, at any time. */
    weft_collider fixed[3] = {collider_of("plane"), collider_of("sphere"), collider_of("box")};
    collider_set(&fixed[0], "point", 0.1, 0.2, 0.3);
    collider_set(&fixed[0], "normal", 0.6, 0.8, 0);
    collider_set(&fixed[1], "center", 0.1, 0.3, -0.2);
    collider_set(&fixed[1], "radius", 0.3, 0, 0);
    collider_set(&fixed[2], "center", -0.2, 0.1, 0);
    collider_set(&fixed[2], "half_extents", 0.3, 0.1, 0.2);
    static const double times[] = {0.0, 1.0 / 60.0, 7.5, -3.0, 1e300};
    lcg g = {7};
    int differ = 0;
    for (int s = 0; s < 500; s++) {
        double p[3] = {rnd_in(&g, -1, 1), rnd_in(&g, -1, 1), rnd_in(&g, -1, 1)};
        for (int c = 0; c < 3; c++) {
            CHECK(!weft_collider_moving(&fixed[c]));
            double n0[3], n1[3];
            double d0 = weft_collider_distance(&fixed[c], p, n0);
            for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
                double d1 = weft_collider_distance_at(&fixed[c], p, times[t], n1);
                differ += memcmp(&d0, &d1, sizeof d0) != 0 || memcmp(n0, n1, sizeof n0) != 0;
            }
        }
    }
    CHECK(differ == 0);
}

/* A 0.2 m x 0.2 m, 8 x 8 cloth lying on the top face (y = 0.1) of a 1 m x 0.1 m x 1 m box
 * at the contact margin (2 mm), no damping; the box slides along +x at 0.5 m/s. */
#define CARRY_SCENE                                                                        \
    "[scene]\nname = carry\ngravity = 0 -9.81 0\n"                                         \
    "[mesh]\ntype = grid\nwidth = 0.2\nheight = 0.2\nnx = 8\nny = 8\nplane = xz\n"         \
    "origin = -0.1 0.102 0.1\n"                                                            \
    "[pbd]\nk_damping = 0\n[collision]\nmargin = 0.002\n"                                  \
    "[collider.box]\ntype = box\ncenter = 0 0.05 0\nhalf_extents = 0.5 0.05 0.5\n"         \
    "velocity = 0.5 0 0\nrestitution = 0\n"

/* Runs the carry scene with friction mu for time T under solver at step h; returns the
 * mean x displacement and velocity of the cloth and the extremes of its distance from
 * the box over the run. */
static bool carry(const weft_solver_type *solver, double mu, double h, double T, double *dx,
                  double *vx, double dmin_max[2]) {
    tmp_dir d;
    if (!tmp_open(&d)) return false;
    char path[128], fr[64], dt[64];
    write_file(&d, "carry.ini", CARRY_SCENE, path, sizeof path);
    snprintf(fr, sizeof fr, "collider.box.friction=%.17g", mu);
    snprintf(dt, sizeof dt, "scene.dt=%.17g", h);
    const char *sets[] = {fr, dt, NULL};
    weft_model m = {0};
    weft_config *cfg = NULL;
    bool ok = build_cfg(path, sets, &m, &cfg);
    remove(path);
    CHECK(rmdir(d.path) == 0);
    void *st = ok ? create(solver, &m, cfg) : NULL;
    if (!st) {
        weft_model_free(&m);
        weft_config_free(&cfg);
        return false;
    }
    double x0 = mean_of(&m, m.x, 0);
    dmin_max[0] = DBL_MAX, dmin_max[1] = -DBL_MAX;
    int steps = (int)lround(T / h);
    for (int s = 0; s < steps && ok; s++) {
        ok = step(solver, st, &m);
        for (int i = 0; i < m.n; i++) {
            double dist = weft_collider_distance_at(&m.colliders[0], &m.x[3 * i], m.t, NULL);
            dmin_max[0] = fmin(dmin_max[0], dist), dmin_max[1] = fmax(dmin_max[1], dist);
        }
    }
    *dx = mean_of(&m, m.x, 0) - x0;
    *vx = mean_of(&m, m.v, 0);
    solver->destroy(st);
    weft_model_free(&m);
    weft_config_free(&cfg);
    return ok;
}

/* Friction carries a cloth resting on a moving box: relative to the box the cloth slides
 * back at u = 0.5 m/s and Coulomb friction (μ = 0.5) takes μ g h off that relative speed
 * per step, so the cloth reaches the box's speed after u/(μ g) = 0.102 s, having fallen
 * behind by u²/(2 μ g) = 25.5 mm, and moves with the box from then on: after T = 0.5 s it
 * has travelled u T − u²/(2 μ g) = 0.2245 m. Without friction nothing pushes it along x
 * (the top face's normal is +y), so it stays where it was. */
static void moving_box_carries(void) {
    const weft_solver_type *const solvers[] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi,
                                               &weft_symplectic_euler};
    const double u = 0.5, mu = 0.5, g = 9.81, T = 0.5;
    for (int k = 0; k < 3; k++) {
        /* The explicit solver needs a step below its stability limit for the cloth's
         * springs (about 3e-4 s here); PBD runs at the scenes' 60 Hz. */
        double h = k < 2 ? 1.0 / 60.0 : 1e-4;
        double dx = 0, vx = 0, dm[2] = {0, 0};
        if (!carry(solvers[k], mu, h, T, &dx, &vx, dm)) continue;
        printf("%s, mu = 0.5: moved %.5g m (continuous %.5g m), vx %.6g m/s, distance from "
               "the box in [%.4g, %.4g] m\n", solvers[k]->name, dx,
               u * T - u * u / (2 * mu * g), vx, dm[0], dm[1]);
        /* The speed is the box's: once matched, the relative tangential velocity is
         * zeroed exactly, up to rounding. */
        CHECK_NEAR(vx, u, 1e-9);
        /* Positions are updated with the velocity of the step before (friction acts at
         * the end of a step, line 16), so the discrete path lags the continuous one by at
         * most one step's travel u h (8.3 mm at 60 Hz). */
        CHECK_NEAR(dx, u * T - u * u / (2 * mu * g), u * h + 1e-6);
        /* It rests on the box all along: never inside, never lifted beyond 1 mm. */
        CHECK(dm[0] >= 0.0 && dm[1] <= 0.002 + 1e-3);
        /* μ = 0: the box slides away beneath the cloth, which keeps its place. */
        if (!carry(solvers[k], 0.0, h, T, &dx, &vx, dm)) continue;
        CHECK(fabs(dx) < 1e-12 && fabs(vx) < 1e-12);
        CHECK(dm[0] >= 0.0);
    }
}

/* A sphere (R = 0.15 m) thrown up at 30 m/s through a resting cloth, no gravity: it moves
 * 0.5 m per step, more than its diameter, so a test of where it stands at the end of the
 * step alone would find the cloth below it, untouched. The ray test in the sphere's frame
 * (the cloth moves down through it) and the band widened by its travel catch it: no
 * vertex ever ends a step inside it, and the vertices above its centre line are carried
 * above it. */
static void moving_sphere_ray(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    const weft_solver_type *const solvers[] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi};
    for (int k = 0; k < 2; k++) {
        weft_model m = {0};
        weft_config *cfg = NULL;
        if (!build_text(&d, "throw.ini",
                        "[scene]\nname = throw\ngravity = 0 0 0\n"
                        "[mesh]\ntype = grid\nwidth = 0.6\nheight = 0.6\nnx = 24\nny = 24\n"
                        "plane = xz\norigin = -0.3 0.5 0.3\n[pbd]\nk_damping = 0\n"
                        "[collision]\nmargin = 0.002\n"
                        "[collider.ball]\ntype = sphere\ncenter = 0 0.3 0\nradius = 0.15\n"
                        "velocity = 0 30 0\nfriction = 0\n",
                        &m, &cfg))
            return;
        void *st = create(solvers[k], &m, cfg);
        double dmin = DBL_MAX, top_after_first = -DBL_MAX;
        for (int s = 0; st && s < 3; s++) {
            if (!step(solvers[k], st, &m)) break;
            for (int i = 0; i < m.n; i++) {
                double dist = weft_collider_distance_at(&m.colliders[0], &m.x[3 * i], m.t, NULL);
                dmin = fmin(dmin, dist);
            }
            if (s == 0) /* the centre vertex's height after the first step */
                for (int i = 0; i < m.n; i++)
                    if (fabs(m.mesh.x[3 * i]) < 0.02 && fabs(m.mesh.x[3 * i + 2]) < 0.02)
                        top_after_first = fmax(top_after_first, m.x[3 * i + 1]);
        }
        if (st) solvers[k]->destroy(st);
        /* After one step the sphere's centre is at 0.3 + 0.5 = 0.8 m. A cloth it passed
         * through would have stayed at 0.5 m, below its bottom (0.65 m); the caught cloth's
         * middle rides on its upper half, above 0.8 m (near its top, 0.95 m, where the
         * tangent plane of the entry point and the stretch constraints let it settle). */
        printf("%s: min distance %.4g m; cloth centre at %.4g m after one step\n",
               solvers[k]->name, dmin, top_after_first);
        CHECK(dmin >= 0.0);
        CHECK(top_after_first > 0.8);
        weft_model_free(&m);
        weft_config_free(&cfg);
    }
    CHECK(rmdir(d.path) == 0);
}

/* Collider keys: box needs positive half extents, velocity is a vector; both reach the
 * collider. */
static void collider_keys(void) {
    tmp_dir d;
    if (!tmp_open(&d)) return;
    char path[128];
    write_file(&d, "box.ini", "[scene]\nname = box\n[collider.b]\ntype = box\n"
               "center = 1 2 3\nhalf_extents = 0.1 0.2 0.3\nvelocity = 0 0 -4\n", path,
               sizeof path);
    weft_model m = {0};
    if (build(path, NULL, &m)) {
        CHECK(m.ncolliders == 1 && m.colliders[0].type == collider_type("box"));
        CHECK(collider_at(&m.colliders[0], "half_extents")[2] == 0.3 &&
              m.colliders[0].velocity[2] == -4);
        CHECK(collider_at(&m.colliders[0], "center")[1] == 2);
    }
    weft_model_free(&m);
    char want[200];
    static const char *const zero[] = {"collider.b.half_extents=0.1 0 0.3", NULL};
    expect_error(path, zero, "collider.b.half_extents: every half extent must lie in (0, 1e9]",
                 NULL);
    static const char *const neg[] = {"collider.b.half_extents=-1 1 1", NULL};
    expect_error(path, neg, "collider.b.half_extents", "every half extent");
    static const char *const two[] = {"collider.b.velocity=1 2", NULL};
    expect_error(path, two, "collider.b.velocity: '1 2' needs 3 components", NULL);
    static const char *const kind[] = {"collider.b.type=cube", NULL};
    expect_error(path, kind, "collider.b.type: 'cube' is not one of: plane, sphere, box", NULL);
    write_file(&d, "box.ini", "[scene]\nname = box\n[collider.b]\ntype = box\n"
               "half_extents = 1 1 0\n", path, sizeof path);
    snprintf(want, sizeof want, "%s:5: collider.b.half_extents", path);
    expect_error(path, NULL, want, "every half extent");
    remove(path);
    CHECK(rmdir(d.path) == 0);
}

/* ------------------------------------------------------------------------------ */
/* The built-in collision scenes                                                   */
/* ------------------------------------------------------------------------------ */

/* Lowest and highest coordinate k over vertices first .. first + n - 1 of x. */
static void span(const double *x, int first, int n, int k, double out[2]) {
    out[0] = DBL_MAX, out[1] = -DBL_MAX;
    for (int i = first; i < first + n; i++)
        out[0] = fmin(out[0], x[3 * i + k]), out[1] = fmax(out[1], x[3 * i + k]);
}

/* cloth_on_cloth: a 0.8 m cloth (24²) and a 0.6 m cloth (20²) above it, both level and at
 * rest, the smaller one inside the larger one's footprint (so it lands on it, not beside
 * it), both above a sphere, for 3 s. */
static void scene_cloth_on_cloth(void) {
    weft_model m = {0};
    weft_config *cfg = NULL;
    if (!build_cfg("cloth_on_cloth", NULL, &m, &cfg)) return;
    const weft_part *low = &m.parts[0], *top = find_part(&m, "top");
    CHECK(m.nparts == 2 && top != NULL);
    CHECK(low->nv == 24 * 24 && low->grid_nx == 24);
    CHECK_NEAR(duration(cfg, &m), 3.0, 1e-9);
    if (top) {
        CHECK(top->nv == 20 * 20 && top->grid_nx == 20);
        double lx[2], lz[2], ly[2], tx[2], tz[2], ty[2];
        span(m.x, low->first, low->nv, 0, lx), span(m.x, low->first, low->nv, 2, lz);
        span(m.x, low->first, low->nv, 1, ly), span(m.x, top->first, top->nv, 1, ty);
        span(m.x, top->first, top->nv, 0, tx), span(m.x, top->first, top->nv, 2, tz);
        CHECK_NEAR(lx[1] - lx[0], 0.8, 1e-12);
        CHECK_NEAR(tx[1] - tx[0], 0.6, 1e-12);
        CHECK(ly[0] == ly[1] && ty[0] == ty[1] && ty[0] > ly[0]);
        CHECK(tx[0] > lx[0] && tx[1] < lx[1] && tz[0] > lz[0] && tz[1] < lz[1]);
        /* Both start at rest and fall together, so the gap holds until the lower one
         * lands; the upper one then lands on it. */
        for (int i = 0; i < 3 * m.n; i++) CHECK(m.v[i] == 0.0);
        const weft_collider *ball = NULL;
        for (int c = 0; c < m.ncolliders; c++)
            if (m.colliders[c].type == collider_type("sphere")) ball = &m.colliders[c];
        CHECK(ball != NULL);
        if (ball) {
            weft_collider b = *ball;
            CHECK(ly[0] > collider_at(&b, "center")[1] + collider_at(&b, "radius")[0]);
        }
        int pinned = 0;
        for (int i = 0; i < m.n; i++) pinned += m.pin[i] >= 0;
        CHECK(pinned == 0);
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* twisting_cloth: a 1 m, 32² cloth whose left edge is fixed and right edge turns about the
 * cloth's middle line (the axis through the middle of both edges, along the edges'
 * normal direction u), more than two turns over the run. */
static void scene_twisting_cloth(void) {
    weft_model m = {0};
    weft_config *cfg = NULL;
    if (!build_cfg("twisting_cloth", NULL, &m, &cfg)) return;
    CHECK(m.nparts == 1 && m.parts[0].nv == 32 * 32 && m.npaths == 2);
    int nx = m.parts[0].grid_nx, fixed = 0, turning = 0, other = 0;
    const weft_pin_path *rot = NULL;
    for (int i = 0; i < m.n; i++) {
        if (m.pin[i] < 0) continue;
        const weft_pin_path *p = &m.paths[m.pin[i]];
        if (i % nx == 0 && p->motion == WEFT_PIN_FIXED) fixed++;
        else if (i % nx == nx - 1 && p->motion == WEFT_PIN_ROTATE) turning++, rot = p;
        else other++;
    }
    CHECK(fixed == 32 && turning == 32 && other == 0);
    if (rot) {
        /* The axis: the line through the middles of the two edges. */
        const double *a = &m.x[3 * (0 + 15 * nx)], *b = &m.x[3 * (0 + 16 * nx)];
        const double *c = &m.x[3 * (nx - 1 + 15 * nx)], *e = &m.x[3 * (nx - 1 + 16 * nx)];
        double mid_l[3], mid_r[3], axis[3];
        for (int k = 0; k < 3; k++) {
            mid_l[k] = 0.5 * (a[k] + b[k]), mid_r[k] = 0.5 * (c[k] + e[k]);
            axis[k] = mid_r[k] - mid_l[k];
        }
        double w = norm3(rot->omega), cr[3];
        cross3(rot->omega, axis, cr);
        CHECK(norm3(cr) <= 1e-12 * w * norm3(axis)); /* ω along the axis */
        for (int k = 0; k < 3; k++) CHECK_NEAR(rot->center[k], mid_r[k], 1e-12);
        double T = duration(cfg, &m), turns = w * T / (2 * PI);
        printf("twisting_cloth: %.3g turns in %.3g s\n", turns, T);
        CHECK(turns > 2.0);
        /* The turning edge keeps its length: each vertex stays at its distance from the
         * axis (a rotation about it) at the end of the run. */
        double worst = 0.0;
        for (int j = 0; j < 32; j++) {
            int i = nx - 1 + j * nx;
            double x1[3];
            weft_pin_position(rot, &m.x_start[3 * i], T, x1);
            double r0[3], r1[3];
            for (int k = 0; k < 3; k++) r0[k] = m.x_start[3 * i + k] - rot->center[k];
            for (int k = 0; k < 3; k++) r1[k] = x1[k] - rot->center[k];
            worst = fmax(worst, fabs(norm3(r1) - norm3(r0)));
        }
        CHECK(worst < 1e-12);
    }
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* fast_drop_through_thin_sheet: a sheet pinned at its four corners and a small cloth of
 * ten times its areal density fired at it at 20 m/s from 0.1 m above. At the scene's
 * step the small cloth moves v h = 0.33 m per step, more than its distance to the sheet:
 * only continuous collision detection can see the crossing. */
static void scene_fast_drop(void) {
    weft_model m = {0};
    if (!build("fast_drop_through_thin_sheet", NULL, &m)) return;
    const weft_part *sheet = &m.parts[0], *drop = m.nparts == 2 ? &m.parts[1] : NULL;
    CHECK(drop != NULL);
    if (drop) {
        CHECK(drop->grid_nx == 8 && drop->grid_ny == 8);
        CHECK_NEAR(drop->density, 10 * sheet->density, 1e-15);
        double sy[2], dy[2], sx[2], dxs[2], sz[2], dz[2];
        span(m.x, sheet->first, sheet->nv, 1, sy), span(m.x, drop->first, drop->nv, 1, dy);
        span(m.x, sheet->first, sheet->nv, 0, sx), span(m.x, drop->first, drop->nv, 0, dxs);
        span(m.x, sheet->first, sheet->nv, 2, sz), span(m.x, drop->first, drop->nv, 2, dz);
        CHECK_NEAR(dxs[1] - dxs[0], 0.2, 1e-12);
        CHECK(sy[0] == sy[1] && dy[0] == dy[1]);
        double gap = dy[0] - sy[0];
        CHECK_NEAR(gap, 0.1, 1e-12);
        /* Above the sheet's interior. */
        CHECK(dxs[0] > sx[0] && dxs[1] < sx[1] && dz[0] > sz[0] && dz[1] < sz[1]);
        int wrong = 0;
        for (int i = drop->first; i < drop->first + drop->nv; i++)
            wrong += m.v[3 * i] != 0 || m.v[3 * i + 1] != -20.0 || m.v[3 * i + 2] != 0;
        CHECK(wrong == 0);
        CHECK(20.0 * m.dt > gap); /* one step jumps the gap */
        int pinned = 0, corners = 0;
        int nx = sheet->grid_nx, ny = sheet->grid_ny;
        for (int i = 0; i < m.n; i++) pinned += m.pin[i] >= 0;
        corners += m.pin[0] >= 0 && m.pin[nx - 1] >= 0 && m.pin[(ny - 1) * nx] >= 0 &&
                   m.pin[nx * ny - 1] >= 0;
        CHECK(pinned == 4 && corners == 1);
    }
    weft_model_free(&m);
}

static const check_case cases[] = {
    {"parts_mesh", parts_mesh},
    {"parts_masses", parts_masses},
    {"parts_velocity", parts_velocity},
    {"parts_damping", parts_damping},
    {"parts_pins", parts_pins},
    {"parts_rest_shape", parts_rest_shape},
    {"parts_errors", parts_errors},
    {"mesh_append", mesh_append},
    {"box_distance", box_distance},
    {"collider_motion", collider_motion},
    {"collider_keys", collider_keys},
    {"moving_box_carries", moving_box_carries},
    {"moving_sphere_ray", moving_sphere_ray},
    {"scene_cloth_on_cloth", scene_cloth_on_cloth},
    {"scene_twisting_cloth", scene_twisting_cloth},
    {"scene_fast_drop", scene_fast_drop},
    {NULL, NULL},
};

int main(int argc, char **argv) { return check_main(argc, argv, cases); }
