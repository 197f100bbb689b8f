/* test_reorder.c — renumbering a model's vertices (weft_model_permute, lib/linalg/reorder.c)
 * and the [mesh] reorder = rcm key: the renumbered model is the same physical system
 * (same energies, mapped gradients and Hessian blocks, same PBD trajectories mapped
 * through the permutation), reverse Cuthill-McKee narrows the Hessian's band, parts stay
 * contiguous, and a bad permutation is refused without touching the model. */
#include "check.h"
#include "scene_build.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_solvers.h"
#include "weft_sparse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Loads a built-in scene, applies the overrides (NULL-terminated) and builds it, with
 * its config (the solvers' settings) into *cfg (cfg NULL: checked and dropped). */
static bool build(weft_model *m, weft_config **cfg, const char *scene,
                  const char *const *sets) {
    return scene_build_cfg(scene, sets, weft_energy_registry, m, cfg);
}

/* Bandwidth max |i − j| over the blocks of m's Hessian pattern; -1 on failure. */
static int bandwidth(const weft_model *m) {
    weft_bsr A = {0};
    weft_error err = {{0}};
    if (weft_bsr_pattern(&A, m, &err) != WEFT_OK) return -1;
    int bw = 0;
    for (int i = 0; i < A.n; i++)
        for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++)
            bw = abs(A.col[k] - i) > bw ? abs(A.col[k] - i) : bw;
    weft_bsr_free(&A);
    return bw;
}

/* Steps m `steps` times with solver and the settings of cfg. */
static bool step_n(const weft_solver_type *solver, weft_model *m, weft_config *cfg,
                   int steps) {
    weft_error err = {{0}};
    void *st = solver->create(m, cfg, &err);
    CHECK(st != NULL);
    if (!st) return false;
    int rc = WEFT_OK;
    for (int i = 0; i < steps && rc == WEFT_OK; i++) rc = solver->step(st, m, NULL, &err);
    solver->destroy(st);
    if (rc) fprintf(stderr, "step: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    return rc == WEFT_OK;
}

/* Largest |a.x[perm[k]] − b.x[k]| (and likewise for v) over every coordinate. */
static double mapped_diff(const weft_model *a, const weft_model *b, const int *perm) {
    double d = 0.0;
    for (int k = 0; k < b->n; k++)
        for (int c = 0; c < 3; c++) {
            d = fmax(d, fabs(a->x[3 * perm[k] + c] - b->x[3 * k + c]));
            d = fmax(d, fabs(a->v[3 * perm[k] + c] - b->v[3 * k + c]));
        }
    return d;
}

/* True when b's positions and velocities are a's, bitwise, mapped through perm. */
static bool mapped_equal(const weft_model *a, const weft_model *b, const int *perm) {
    for (int k = 0; k < b->n; k++)
        if (memcmp(&a->x[3 * perm[k]], &b->x[3 * k], 3 * sizeof(double)) != 0 ||
            memcmp(&a->v[3 * perm[k]], &b->v[3 * k], 3 * sizeof(double)) != 0)
            return false;
    return true;
}

/* PBD with no velocity damping: Gauss-Seidel and Jacobi project the topology's
 * constraints in edge / hinge order, which permuting keeps, and every per-vertex update
 * is local, so the permuted run is the original one bitwise, for RCM and for a shuffle. */
static void test_pbd_bitwise(void) {
    static const char *const sets[] = {"mesh.nx=12", "mesh.ny=9", "pbd.k_damping=0",
                                       "solver.threads=1", NULL};
    const weft_solver_type *solvers[] = {&weft_pbd_gauss_seidel, &weft_pbd_jacobi};
    for (int s = 0; s < 2; s++)
        for (int kind = 0; kind < 2; kind++) {
            weft_model a = {0}, b = {0};
            weft_config *ca = NULL, *cb = NULL;
            if (!build(&a, &ca, "hanging_cloth", sets) ||
                !build(&b, &cb, "hanging_cloth", sets)) {
                weft_model_free(&a), weft_model_free(&b);
                weft_config_free(&ca), weft_config_free(&cb);
                return;
            }
            int *perm = malloc((size_t)b.n * sizeof *perm);
            weft_error err = {{0}};
            if (kind == 0)
                CHECK(weft_model_rcm_order(&b, perm, &err) == WEFT_OK);
            else
                weft_shuffled_order(perm, b.n, 7);
            bool moved = false;
            for (int k = 0; k < b.n; k++) moved = moved || perm[k] != k;
            CHECK(moved); /* the test would be empty for the identity */
            CHECK(weft_model_permute(&b, perm, &err) == WEFT_OK);
            if (step_n(solvers[s], &a, ca, 25) && step_n(solvers[s], &b, cb, 25)) {
                CHECK(mapped_equal(&a, &b, perm));
                CHECK(memcmp(a.x, a.x_start, 3 * (size_t)a.n * sizeof *a.x) != 0);
            }
            free(perm);
            weft_model_free(&a), weft_model_free(&b);
            weft_config_free(&ca), weft_config_free(&cb);
        }
}

/* With §3.5 damping the centre of mass, momentum and inertia are sums over the vertices
 * in index order, which a permutation reorders: the runs then agree only to rounding,
 * which stays near machine precision over 25 steps. The scene key gives the RCM run. */
static void test_pbd_damping(void) {
    static const char *const sets[] = {"mesh.nx=12", "mesh.ny=9", "pbd.k_damping=0.05", NULL};
    static const char *const rcm_sets[] = {"mesh.nx=12", "mesh.ny=9", "pbd.k_damping=0.05",
                                           "mesh.reorder=rcm", NULL};
    weft_model a = {0}, b = {0}, c = {0};
    weft_config *ca = NULL, *cb = NULL;
    if (build(&a, &ca, "hanging_cloth", sets) && build(&b, &cb, "hanging_cloth", rcm_sets) &&
        build(&c, NULL, "hanging_cloth", sets)) {
        int *perm = malloc((size_t)c.n * sizeof *perm);
        weft_error err = {{0}};
        CHECK(weft_model_rcm_order(&c, perm, &err) == WEFT_OK);
        /* The key does what the two calls do. */
        CHECK(weft_model_permute(&c, perm, &err) == WEFT_OK);
        CHECK(memcmp(b.x, c.x, 3 * (size_t)b.n * sizeof *b.x) == 0);
        CHECK(b.mesh.grid_nx == 0 && b.parts[0].grid_nx == 0);
        if (step_n(&weft_pbd_gauss_seidel, &a, ca, 25) &&
            step_n(&weft_pbd_gauss_seidel, &b, cb, 25)) {
            double d = mapped_diff(&a, &b, perm);
            CHECK(d <= 1e-12); /* positions ~1 m, velocities ~1 m/s */
            CHECK(memcmp(a.x, a.x_start, 3 * (size_t)a.n * sizeof *a.x) != 0);
        }
        free(perm);
    }
    weft_model_free(&a), weft_model_free(&b), weft_model_free(&c);
    weft_config_free(&ca), weft_config_free(&cb);
}

/* E, ∇E and ∇²E of a deformed cloth: E bitwise equal, ∇E bitwise equal mapped, every
 * Hessian block (k, l) of the permuted model equal to block (perm[k], perm[l]). */
static void test_energy_hessian(void) {
    static const char *const sets[] = {"mesh.nx=9", "mesh.ny=8", "material.membrane=stvk",
                                       "material.bending=dihedral_bending", NULL};
    weft_model a = {0}, b = {0};
    if (!build(&a, NULL, "hanging_cloth", sets) || !build(&b, NULL, "hanging_cloth", sets)) {
        weft_model_free(&a), weft_model_free(&b);
        return;
    }
    uint64_t seed = 99;
    for (int i = 0; i < 3 * a.n; i++) { /* a few mm of pseudo-random displacement */
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        a.x[i] += 0.004 * ((double)(seed >> 11) / 9007199254740992.0 - 0.5);
    }
    memcpy(b.x, a.x, 3 * (size_t)a.n * sizeof *a.x);
    int n = a.n, *perm = malloc((size_t)n * sizeof *perm);
    weft_shuffled_order(perm, n, 3);
    weft_error err = {{0}};
    CHECK(weft_model_permute(&b, perm, &err) == WEFT_OK);
    double *ga = calloc(3 * (size_t)n, sizeof *ga), *gb = calloc(3 * (size_t)n, sizeof *gb);
    double Ea = weft_model_gradient(&a, a.x, ga), Eb = weft_model_gradient(&b, b.x, gb);
    CHECK(Ea == Eb && Ea > 0.0);
    CHECK(weft_model_energy(&a, a.x) == weft_model_energy(&b, b.x));
    bool same = true;
    for (int k = 0; k < n; k++)
        same = same && memcmp(&ga[3 * perm[k]], &gb[3 * k], 3 * sizeof(double)) == 0;
    CHECK(same);

    weft_assembly *sa = weft_assembly_create(&a, &err), *sb = weft_assembly_create(&b, &err);
    CHECK(sa && sb);
    if (sa && sb) {
        double Ha = weft_assembly_run(sa, &a, a.x, WEFT_HESSIAN_ANALYTIC, NULL, 1);
        double Hb = weft_assembly_run(sb, &b, b.x, WEFT_HESSIAN_ANALYTIC, NULL, 1);
        CHECK(Ha == Hb);
        const weft_bsr *A = weft_assembly_matrix(sa), *B = weft_assembly_matrix(sb);
        CHECK(A->nnzb == B->nnzb);
        int missing = 0;
        double worst = 0.0, scale = 0.0;
        for (int k = 0; k < n; k++)
            for (int q = B->row_ptr[k]; q < B->row_ptr[k + 1]; q++) {
                int p = weft_bsr_block(A, perm[k], perm[B->col[q]]);
                if (p < 0) {
                    missing++;
                    continue;
                }
                for (int r = 0; r < 9; r++) {
                    worst = fmax(worst, fabs(A->val[9 * p + r] - B->val[9 * q + r]));
                    scale = fmax(scale, fabs(A->val[9 * p + r]));
                }
            }
        CHECK(missing == 0);
        /* The per-element Hessians are identical; a block sums its elements in element
         * order in both models, but the colouring batches differ, so allow rounding. */
        CHECK(worst <= 1e-13 * scale && scale > 0.0);
    }
    weft_assembly_free(&sa), weft_assembly_free(&sb);
    free(ga), free(gb), free(perm);
    weft_model_free(&a), weft_model_free(&b);
}

/* A long narrow grid numbered along its long side (vertex i + j nx) has a bandwidth of
 * about 2 nx: a hinge's opposite vertices lie in rows j − 1 and j + 1. RCM numbers it
 * across, for a band of a few ny. A shuffled order has a band near n; RCM of it is back
 * to a few ny. */
static void test_bandwidth(void) {
    static const char *const sets[] = {"mesh.nx=40", "mesh.ny=6", "mesh.width=4", NULL};
    static const char *const rcm_sets[] = {"mesh.nx=40", "mesh.ny=6", "mesh.width=4",
                                           "mesh.reorder=rcm", NULL};
    weft_model a = {0}, b = {0};
    if (build(&a, NULL, "hanging_cloth", sets) && build(&b, NULL, "hanging_cloth", rcm_sets)) {
        int bw_grid = bandwidth(&a), bw_rcm = bandwidth(&b);
        CHECK(bw_grid >= 40); /* vertex (i, j) couples to (i ± 1, j + 1) at least */
        CHECK(bw_rcm > 0 && bw_rcm <= 3 * 6 && 4 * bw_rcm < bw_grid);
        int *perm = malloc((size_t)a.n * sizeof *perm);
        weft_error err = {{0}};
        weft_shuffled_order(perm, a.n, 11);
        CHECK(weft_model_permute(&a, perm, &err) == WEFT_OK);
        int bw_shuffled = bandwidth(&a);
        CHECK(bw_shuffled > a.n / 2);
        CHECK(weft_model_rcm_order(&a, perm, &err) == WEFT_OK);
        CHECK(weft_model_permute(&a, perm, &err) == WEFT_OK);
        int bw_back = bandwidth(&a);
        CHECK(bw_back > 0 && bw_back <= 3 * 6);
        free(perm);
    }
    weft_model_free(&a), weft_model_free(&b);
}

/* A scene of two parts: each part keeps its block, its vertex set (rest positions, pins,
 * masses) and its mass; the whole model's Hessian band narrows or stays. */
static void test_parts(void) {
    static const char *const rcm_sets[] = {"mesh.reorder=rcm", NULL};
    weft_model a = {0}, b = {0};
    if (build(&a, NULL, "cloth_on_cloth", NULL) && build(&b, NULL, "cloth_on_cloth", rcm_sets)) {
        CHECK(a.nparts == 2 && b.nparts == 2 && a.n == b.n);
        for (int p = 0; p < a.nparts && p < b.nparts; p++) {
            const weft_part *pa = &a.parts[p], *pb = &b.parts[p];
            CHECK(pa->first == pb->first && pa->nv == pb->nv && pb->grid_nx == 0);
            /* Every vertex of b's block is a vertex of a's block with the same rest
             * position, mass, pin and velocity. */
            int unmatched = 0;
            for (int k = pb->first; k < pb->first + pb->nv; k++) {
                bool found = false;
                for (int i = pa->first; i < pa->first + pa->nv && !found; i++)
                    found = memcmp(&a.mesh.x[3 * i], &b.mesh.x[3 * k], 3 * sizeof(double)) == 0 &&
                            a.mass[i] == b.mass[k] && a.pin[i] == b.pin[k] &&
                            memcmp(&a.v[3 * i], &b.v[3 * k], 3 * sizeof(double)) == 0;
                unmatched += !found;
            }
            CHECK(unmatched == 0);
        }
        CHECK(bandwidth(&b) <= bandwidth(&a));
        CHECK(b.mesh.ne == a.mesh.ne && b.mesh.nh == a.mesh.nh);
        bool ordered = true;
        for (int e = 0; e < b.mesh.ne; e++) ordered = ordered && b.mesh.edge[2 * e] < b.mesh.edge[2 * e + 1];
        CHECK(ordered);
    }
    weft_model_free(&a), weft_model_free(&b);
}

/* Bad permutations are refused with a one-line message and leave the model as it was. */
static void test_bad_permutation(void) {
    weft_model a = {0};
    if (!build(&a, NULL, "cloth_on_cloth", NULL)) return;
    int n = a.n, *perm = malloc((size_t)n * sizeof *perm);
    double *x0 = malloc(3 * (size_t)n * sizeof *x0);
    memcpy(x0, a.x, 3 * (size_t)n * sizeof *x0);
    weft_error err = {{0}};
    for (int i = 0; i < n; i++) perm[i] = i;
    perm[3] = 4; /* 4 twice, 3 never */
    CHECK(weft_model_permute(&a, perm, &err) == WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, "repeated") != NULL && !strchr(err.msg, '\n'));
    perm[3] = n; /* out of range */
    CHECK(weft_model_permute(&a, perm, &err) == WEFT_ERR_INPUT);
    /* Swapping a vertex of the first part with one of the second breaks the blocks. */
    perm[3] = 3;
    int other = a.parts[1].first;
    perm[0] = other, perm[other] = 0;
    CHECK(weft_model_permute(&a, perm, &err) == WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, "part") != NULL);
    CHECK(memcmp(a.x, x0, 3 * (size_t)n * sizeof *x0) == 0);
    CHECK(a.parts[0].grid_nx > 0); /* untouched */
    free(perm), free(x0);
    weft_model_free(&a);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"pbd_bitwise", test_pbd_bitwise},
        {"pbd_damping", test_pbd_damping},
        {"energy_hessian", test_energy_hessian},
        {"bandwidth", test_bandwidth},
        {"parts", test_parts},
        {"bad_permutation", test_bad_permutation},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
