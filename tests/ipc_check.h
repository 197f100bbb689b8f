/* ipc_check.h — brute-force checks of what the contact model must guarantee, shared by
 * the tests that run it (test_ipc_contact.c: Newton; test_vbd_ipc.c: vbd): the smallest
 * distance of non-adjacent cloth pairs, of vertices to the colliders and of the cloth to
 * its triangle-mesh obstacles, and the intersecting triangle pairs; O(n²), for small
 * test scenes only. Distances in m. */
#ifndef WEFT_IPC_CHECK_H
#define WEFT_IPC_CHECK_H

#include "ipc.h"
#include "tmp_files.h"
#include "weft_collider.h"
#include "weft_geometry.h"
#include "weft_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The smallest distance (m) of a non-adjacent vertex–triangle or edge–edge pair of m's
 * cloth at x, by brute force over the classified distances. */
static inline double min_pair_distance(const weft_mesh *m, const double *x) {
    double best = INFINITY, xe[12];
    for (int v = 0; v < m->nv; v++)
        for (int t = 0; t < m->nt; t++) {
            const int *c = &m->tri[3 * t];
            if (v == c[0] || v == c[1] || v == c[2]) continue;
            const int idx[4] = {v, c[0], c[1], c[2]};
            for (int a = 0; a < 4; a++) memcpy(&xe[3 * a], &x[3 * idx[a]], 3 * sizeof(double));
            best = fmin(best, weft_ipc_d2(xe, weft_ipc_classify_pt(xe), NULL, NULL));
        }
    for (int i = 0; i < m->ne; i++)
        for (int j = i + 1; j < m->ne; j++) {
            const int *a = &m->edge[2 * i], *b = &m->edge[2 * j];
            if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1]) continue;
            const int idx[4] = {a[0], a[1], b[0], b[1]};
            for (int k = 0; k < 4; k++) memcpy(&xe[3 * k], &x[3 * idx[k]], 3 * sizeof(double));
            best = fmin(best, weft_ipc_d2(xe, weft_ipc_classify_ee(xe), NULL, NULL));
        }
    return sqrt(best);
}

/* The smallest gap (distance − margin, m) of a free vertex of m at x to a collider. */
static inline double min_collider_gap(const weft_model *m, const double *x) {
    double best = INFINITY;
    for (int i = 0; i < m->n; i++)
        for (int c = 0; c < m->ncolliders; c++)
            best = fmin(best, weft_contact_gap(&m->colliders[c], &x[3 * i], m->t,
                                               m->contact_margin, NULL));
    return best;
}

/* The smallest distance (m) between m's cloth at x and its obstacles where they stand at
 * time t (cloth vertex–obstacle triangle, obstacle vertex–cloth triangle, edge–edge), by
 * brute force with lib/collision's closest points; INFINITY without obstacles. */
static inline double min_obstacle_distance(const weft_model *m, const double *x, double t) {
    double best = INFINITY, bary[3], sa, sb;
    const weft_mesh *me = &m->mesh;
    for (int k = 0; k < m->nobstacles; k++) {
        const weft_mesh *om = &m->obstacles[k].mesh;
        double *ox = malloc(3 * (size_t)om->nv * sizeof *ox);
        if (!ox) return -1.0;
        weft_obstacle_positions(&m->obstacles[k], t, ox);
        for (int v = 0; v < me->nv; v++)
            for (int f = 0; f < om->nt; f++) {
                const int *c = &om->tri[3 * f];
                best = fmin(best, weft_point_triangle_closest(&x[3 * v], &ox[3 * c[0]],
                                                              &ox[3 * c[1]], &ox[3 * c[2]],
                                                              bary, NULL));
            }
        for (int v = 0; v < om->nv; v++)
            for (int f = 0; f < me->nt; f++) {
                const int *c = &me->tri[3 * f];
                best = fmin(best, weft_point_triangle_closest(&ox[3 * v], &x[3 * c[0]],
                                                              &x[3 * c[1]], &x[3 * c[2]],
                                                              bary, NULL));
            }
        for (int i = 0; i < me->ne; i++)
            for (int j = 0; j < om->ne; j++) {
                const int *a = &me->edge[2 * i], *b = &om->edge[2 * j];
                best = fmin(best, weft_edge_edge_closest(&x[3 * a[0]], &x[3 * a[1]],
                                                         &ox[3 * b[0]], &ox[3 * b[1]], &sa, &sb,
                                                         NULL));
            }
        free(ox);
    }
    return best;
}

/* Intersecting triangle pairs of m's cloth at x, with itself and with its obstacles where
 * they stand at time t (lib/collision). */
static inline long crossings(const weft_model *m, const double *x, double t) {
    const weft_mesh *om[8] = {0};
    double *ox[8] = {0};
    const int nobs = m->nobstacles < 8 ? m->nobstacles : 8;
    long n = 0;
    for (int k = 0; k < nobs; k++) {
        om[k] = &m->obstacles[k].mesh;
        if (!(ox[k] = malloc(3 * (size_t)om[k]->nv * sizeof(double)))) n = -1;
        else weft_obstacle_positions(&m->obstacles[k], t, ox[k]);
    }
    if (n == 0) n = weft_count_intersections(&m->mesh, x, nobs, om, (const double *const *)ox);
    for (int k = 0; k < nobs; k++) free(ox[k]);
    return n;
}

/* The lift scene in d (plate.obj and lift.ini, its path into ini): a triangle-mesh plate
 * (an OBJ, 0.4 m) rising at 1 m/s under a 0.3 m cloth (8²) falling onto it, under
 * [contact] model = ipc with d̂ = 5 mm; `tail` ends the [contact] section and holds the
 * [solver] section, the caller's own settings. The files' paths go to obj and ini (size
 * bytes each), for the caller to unlink. */
static inline void write_lift_scene(const tmp_dir *d, const char *tail, char *obj, char *ini,
                                    size_t size) {
    char text[1024];
    write_file(d, "plate.obj",
               "v -0.2 0 -0.2\nv 0.2 0 -0.2\nv 0.2 0 0.2\nv -0.2 0 0.2\nf 1 3 2\nf 1 4 3\n", obj,
               size);
    snprintf(text, sizeof text,
             "[scene]\nname = lift\ndt = 0.016666666666666666\nsteps = 30\n"
             "gravity = 0 -9.81 0\n[mesh]\ntype = grid\nwidth = 0.3\nheight = 0.3\nnx = 8\n"
             "ny = 8\nplane = xz\norigin = -0.15 0.05 0.15\n[material]\ndensity = 0.1\n"
             "stretch_stiffness = 1000\nbending_stiffness = 1e-5\n[contact]\nmodel = ipc\n"
             "barrier_distance = 5e-3\n%s[collider.plate]\n"
             "type = mesh\npath = plate.obj\nvelocity = 0 1 0\nfriction = 0\n",
             tail);
    write_file(d, "lift.ini", text, ini, size);
}

#endif
