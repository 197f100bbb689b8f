/* collision.c — the cloth collision pipeline of Bridson, Fedkiw & Anderson 2002 (§6–7),
 * after course slides on the paper, with Provot 1997's rigid impact zones. Every equation,
 * tolerance and measured default of this file is in papers/bridson2002-collisions.md
 * ("The pipeline as implemented").
 *
 * Vertex i moves on x_i(t) = x0_i + t h v̄_i, t ∈ [0, 1]; every stage changes v̄ and
 * x1 = x0 + h v̄, and at the end v += (x1_new − x1_in)/h. Scripted vertices (pins,
 * triangle-mesh obstacles) have inverse mass w = 0. A pair impulse J (N·s) on weights ω
 * (Σ ω_j = 0) gives Δv_j = ω_j w_j J, which conserves linear momentum, and angular
 * momentum when J is along the gap.
 *   1. Repulsions on proximity pairs d < η: inelastic stop plus a spring k (η − d)
 *      limited to 0.1 (η − d)/h of separation, with Coulomb friction
 *      u_T' = max(1 − μ Δu_N / |u_T|, 0) u_T.
 *   2. CCD passes over x0 → x1 (vertex–face, edge–edge): each approaching contact gets
 *      an inelastic impulse with friction, up to max_iterations passes.
 *   3. Rigid impact zones for what the passes leave, until a pass finds no collision.
 *   4. Colliders (planes, spheres, boxes) after every stage, through the contact toolkit
 *      (lib/collider/contact.c): swept entry, push to the margin, Coulomb friction.
 * Stage switches (repulsions, ccd, impact_zones) take a stage out for experiments.
 * Determinism: pairs come sorted from the broad phase; BVH and hash give bitwise equal
 * results.
 */
#include "weft_collision.h"

#include "weft_broadphase.h"
#include "weft_geometry.h"
#include "weft_vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------ */
/* Types                                                                           */
/* ------------------------------------------------------------------------------ */

/* One broad-phase candidate as four global vertex indices: vertex–face p, a, b, c or
 * edge–edge p0, p1, q0, q1 (the order of the CCD queries). */
typedef struct candidate {
    int v[4];
    short ee;       /* 1 for an edge–edge pair */
    short obstacle; /* -1: the cloth against itself; else the obstacle's index */
} candidate;

typedef struct obstacle {
    const weft_mesh *mesh;
    int offset;      /* global index of its vertex 0 */
    double friction; /* μ against the cloth */
    bool placed;     /* positions have been given */
    weft_bvh *bvh;
    weft_spatial_hash *hash;
} obstacle;

struct weft_collision_pipeline {
    weft_collision_options opt;
    const weft_mesh *mesh; /* the cloth */
    int n;                 /* cloth vertices */
    int nall;              /* cloth and obstacle vertices: the global index space */
    weft_bvh *bvh;
    weft_spatial_hash *hash;
    int nobst;
    obstacle *obst;
    weft_collision_pairs pairs; /* broad-phase output, reused */
    candidate *cand;            /* candidates of the current pass */
    int ncand, cap_cand;
    double *x0, *x1, *v;   /* 3 nall: start, end, average velocity v̄ */
    double *w, *mass;      /* nall: inverse mass (0 scripted) and mass, kg */
    unsigned char *locked; /* nall: held by a collider during the zone phase */
    int *parent;           /* nall: union-find forest of the impact zones */
    int *root0;            /* nall: each vertex's zone at the start of a zone pass */
    unsigned char *flag;   /* nall, by root: zone is rigid (free vertices only, >= 2) */
    int *zcount, *zstart, *zmember, *zfree, *zscript; /* nall (+1): zone membership */
};

/* ------------------------------------------------------------------------------ */
/* Small vector helpers                                                            */
/* ------------------------------------------------------------------------------ */



/* ------------------------------------------------------------------------------ */
/* Rigid motion of an impact zone, (3)                                             */
/* ------------------------------------------------------------------------------ */

/* Eigen-decomposition A = V diag(lam) Vᵀ of a symmetric 3×3 matrix by cyclic Jacobi
 * rotations (Golub & Van Loan §8.5); the columns of V are the eigenvectors. a_in is kept. */
static void sym3_eigen(double a_in[3][3], double lam[3], double vec[3][3]) {
    double a[3][3];
    memcpy(a, a_in, sizeof a);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) vec[i][j] = i == j ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if (off == 0.0 || off <= 1e-36 * diag) break;
        for (int p = 0; p < 2; p++) {
            for (int q = p + 1; q < 3; q++) {
                if (a[p][q] == 0.0) continue;
                /* The rotation in the (p, q) plane that zeroes a[p][q]. */
                double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                double t = fabs(theta) > 1e150 ? 0.5 / theta
                                               : (theta >= 0 ? 1.0 : -1.0) /
                                                     (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                double g[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, b[3][3] = {{0}},
                       r[3][3] = {{0}};
                g[p][p] = c, g[q][q] = c, g[p][q] = s, g[q][p] = -s;
                for (int i = 0; i < 3; i++) /* b = a g */
                    for (int j = 0; j < 3; j++)
                        for (int k = 0; k < 3; k++) b[i][j] += a[i][k] * g[k][j];
                for (int i = 0; i < 3; i++) /* a = gᵀ b */
                    for (int j = 0; j < 3; j++) {
                        a[i][j] = 0.0;
                        for (int k = 0; k < 3; k++) a[i][j] += g[k][i] * b[k][j];
                    }
                a[p][q] = a[q][p] = 0.0;
                for (int i = 0; i < 3; i++) /* vec = vec g */
                    for (int j = 0; j < 3; j++)
                        for (int k = 0; k < 3; k++) r[i][j] += vec[i][k] * g[k][j];
                memcpy(vec, r, sizeof r);
            }
        }
    }
    for (int i = 0; i < 3; i++) lam[i] = a[i][i];
}

/* The rigid motion (3) of the n vertices idx[] (masses mass[], NULL: unit) at x with
 * velocities v: centre c, velocity vc and angular velocity om. */
static void rigid_fit(int n, const int *idx, const double *mass, const double *x, const double *v,
                      double c[3], double vc[3], double om[3]) {
    double M = 0.0;
    for (int k = 0; k < 3; k++) c[k] = vc[k] = om[k] = 0.0;
    for (int a = 0; a < n; a++) {
        int i = idx[a];
        double mi = mass ? mass[i] : 1.0;
        M += mi;
        for (int k = 0; k < 3; k++) c[k] += mi * x[3 * i + k], vc[k] += mi * v[3 * i + k];
    }
    if (!(M > 0.0)) return;
    for (int k = 0; k < 3; k++) c[k] /= M, vc[k] /= M;
    double L[3] = {0, 0, 0}, I[3][3] = {{0}};
    for (int a = 0; a < n; a++) {
        int i = idx[a];
        double mi = mass ? mass[i] : 1.0, r[3], dv[3], rxv[3];
        for (int k = 0; k < 3; k++) r[k] = x[3 * i + k] - c[k], dv[k] = v[3 * i + k] - vc[k];
        weft_cross3(r, dv, rxv);
        double rr = weft_dot3(r, r);
        for (int k = 0; k < 3; k++) {
            L[k] += mi * rxv[k];
            for (int l = 0; l < 3; l++) I[k][l] += mi * ((k == l ? rr : 0.0) - r[k] * r[l]);
        }
    }
    /* ω = I⁺ L: eigenvalues that are rounding noise (collinear or single-vertex zones)
     * are dropped; L has no component along their eigenvectors (up to rounding). */
    double lam[3], e[3][3], big = 0.0;
    sym3_eigen(I, lam, e);
    for (int k = 0; k < 3; k++) big = fmax(big, fabs(lam[k]));
    for (int j = 0; j < 3; j++) {
        if (!(lam[j] > 1e-12 * big)) continue;
        double ej[3] = {e[0][j], e[1][j], e[2][j]};
        double s = weft_dot3(ej, L) / lam[j];
        for (int k = 0; k < 3; k++) om[k] += s * ej[k];
    }
}

/* v_i = vc + om × (x_i − c) for the n vertices idx[]. */
static void rigid_apply(int n, const int *idx, const double *x, const double c[3],
                        const double vc[3], const double om[3], double *v) {
    for (int a = 0; a < n; a++) {
        int i = idx[a];
        double r[3] = {x[3 * i] - c[0], x[3 * i + 1] - c[1], x[3 * i + 2] - c[2]}, wr[3];
        weft_cross3(om, r, wr);
        for (int k = 0; k < 3; k++) v[3 * i + k] = vc[k] + wr[k];
    }
}

void weft_collision_rigidify(int n, const int *idx, const double *mass, const double *x,
                             double *v) {
    double c[3], vc[3], om[3];
    rigid_fit(n, idx, mass, x, v, c, vc, om);
    rigid_apply(n, idx, x, c, vc, om, v);
}

/* ------------------------------------------------------------------------------ */
/* Creation, obstacles                                                             */
/* ------------------------------------------------------------------------------ */

weft_collision_options weft_collision_options_default(void) {
    return (weft_collision_options){.thickness = 1e-3,
                                    .ccd_tolerance = 1e-4,
                                    .friction = 0.1,
                                    .stiffness = 1000.0,
                                    .margin = 1e-3,
                                    .broad_phase = WEFT_BROAD_PHASE_BVH,
                                    .hash_cell = 0.0,
                                    .max_iterations = 10,
                                    .max_zone_iterations = 100,
                                    .count_intersections = false,
                                    .repulsions = true,
                                    .ccd = true,
                                    .impact_zones = true};
}

weft_collision_options weft_collision_options_from_settings(const weft_model *m,
                                                            const weft_collision_settings *s) {
    weft_collision_settings d;
    if (!s) {
        weft_settings_default(weft_bridson_stage.settings, &d);
        s = &d;
    }
    weft_collision_options o = weft_collision_options_default();
    if (s->thickness > 0.0) o.thickness = s->thickness;
    o.ccd_tolerance = 0.1 * o.thickness;
    o.friction = s->friction;
    o.stiffness = s->stiffness > 0.0 ? s->stiffness : m->material.stretch_stiffness;
    o.margin = m->contact_margin;
    o.broad_phase = (weft_broad_phase_kind)s->broad_phase;
    if (s->max_iterations > 0) o.max_iterations = s->max_iterations;
    o.count_intersections = s->count_intersections;
    o.repulsions = s->repulsions;
    o.ccd = s->ccd;
    o.impact_zones = s->impact_zones;
    return o;
}

/* Grows every per-vertex array to nall vertices (new entries zeroed where it matters). */
static int resize_vertices(weft_collision_pipeline *p, int nall) {
    size_t n = (size_t)(nall > 0 ? nall : 1);
#define GROW(field, type, count)                                                                   \
    do {                                                                                           \
        type *tmp_ = realloc(p->field, (count) * sizeof(type));                                    \
        if (!tmp_) return WEFT_ERR_NOMEM;                                                          \
        p->field = tmp_;                                                                           \
    } while (0)
    GROW(x0, double, 3 * n);
    GROW(x1, double, 3 * n);
    GROW(v, double, 3 * n);
    GROW(w, double, n);
    GROW(mass, double, n);
    GROW(locked, unsigned char, n);
    GROW(parent, int, n);
    GROW(root0, int, n);
    GROW(flag, unsigned char, n);
    GROW(zcount, int, n);
    GROW(zstart, int, n + 1);
    GROW(zmember, int, n);
    GROW(zfree, int, n);
    GROW(zscript, int, n);
#undef GROW
    for (int i = p->nall; i < nall; i++) {
        p->w[i] = 0.0, p->mass[i] = 0.0, p->locked[i] = 0;
        for (int c = 0; c < 3; c++) p->x0[3 * i + c] = p->x1[3 * i + c] = p->v[3 * i + c] = 0.0;
    }
    p->nall = nall;
    return WEFT_OK;
}

/* Creates the broad-phase structure (BVH or hash) of one mesh at positions x. */
static int make_broad_phase(const weft_collision_options *o, const weft_mesh *mesh, const double *x,
                            weft_bvh **bvh, weft_spatial_hash **hash, weft_error *err) {
    if (o->broad_phase == WEFT_BROAD_PHASE_HASH)
        *hash = weft_spatial_hash_create(mesh, x, o->hash_cell, 0, err);
    else
        *bvh = weft_bvh_create(mesh, x, err);
    return *bvh || *hash ? WEFT_OK : weft_error_code(WEFT_ERR_NOMEM);
}

weft_collision_pipeline *weft_collision_create(const weft_model *m,
                                               const weft_collision_options *opt, weft_error *err) {
    weft_collision_options o = opt ? *opt : weft_collision_options_from_settings(m, NULL);
    const char *bad = NULL;
    if (!(o.thickness > 0.0 && isfinite(o.thickness)))
        bad = "thickness must be a positive number of metres";
    else if (!(o.ccd_tolerance > 0.0 && o.ccd_tolerance <= o.thickness))
        bad = "ccd_tolerance must lie in (0, thickness]";
    else if (!(o.friction >= 0.0 && isfinite(o.friction)))
        bad = "friction must be >= 0";
    else if (!(o.stiffness >= 0.0 && isfinite(o.stiffness)))
        bad = "stiffness must be >= 0";
    else if (!(o.margin >= 0.0 && isfinite(o.margin)))
        bad = "margin must be >= 0";
    else if (o.max_iterations < 1 || o.max_zone_iterations < 1)
        bad = "iteration caps must be >= 1";
    else if (m->mesh.nt > 0 && !m->mesh.edge)
        bad = "the mesh has no topology (weft_mesh_build_topology)";
    else if (m->n != m->mesh.nv)
        bad = "the model's vertex count differs from its mesh's";
    if (bad) {
        weft_fail(err, WEFT_ERR_INPUT, "collision pipeline: %s", bad);
        return NULL;
    }
    weft_collision_pipeline *p = calloc(1, sizeof *p);
    if (!p) {
        weft_fail(err, WEFT_ERR_NOMEM, "collision pipeline: out of memory");
        return NULL;
    }
    p->opt = o;
    p->mesh = &m->mesh;
    p->n = m->n;
    if (resize_vertices(p, m->n) != WEFT_OK) {
        weft_collision_free(&p);
        weft_fail(err, WEFT_ERR_NOMEM, "collision pipeline: out of memory");
        return NULL;
    }
    if (make_broad_phase(&o, &m->mesh, m->x, &p->bvh, &p->hash, err) != WEFT_OK) {
        weft_collision_free(&p);
        return NULL;
    }
    return p;
}

int weft_collision_add_obstacle(weft_collision_pipeline *p, const weft_mesh *mesh, double friction,
                                weft_error *err) {
    if (!(friction >= 0.0 && isfinite(friction)))
        return weft_fail(err, WEFT_ERR_INPUT, "collision obstacle: friction must be >= 0");
    if (mesh->nt > 0 && !mesh->edge)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "collision obstacle: the mesh has no topology (weft_mesh_build_topology)");
    obstacle *o = realloc(p->obst, (size_t)(p->nobst + 1) * sizeof *o);
    if (!o) return weft_fail(err, WEFT_ERR_NOMEM, "collision obstacle: out of memory");
    p->obst = o;
    obstacle *ob = &p->obst[p->nobst];
    *ob = (obstacle){.mesh = mesh, .offset = p->nall, .friction = friction};
    int rc = make_broad_phase(&p->opt, mesh, mesh->x, &ob->bvh, &ob->hash, err);
    if (rc != WEFT_OK) return rc;
    if (resize_vertices(p, p->nall + mesh->nv) != WEFT_OK) {
        weft_bvh_free(&ob->bvh);
        weft_spatial_hash_free(&ob->hash);
        return weft_fail(err, WEFT_ERR_NOMEM, "collision obstacle: out of memory");
    }
    return p->nobst++;
}

int weft_collision_move_obstacle(weft_collision_pipeline *p, int id, const double *x0,
                                 const double *x1, weft_error *err) {
    if (id < 0 || id >= p->nobst)
        return weft_fail(err, WEFT_ERR_INPUT, "collision obstacle %d: no such obstacle", id);
    obstacle *ob = &p->obst[id];
    for (int i = 0; i < 3 * ob->mesh->nv; i++)
        if (!isfinite(x0[i]) || !isfinite(x1[i]))
            return weft_fail(err, WEFT_ERR_INPUT,
                             "collision obstacle %d: vertex %d has a non-finite position", id,
                             i / 3);
    size_t bytes = 3 * (size_t)ob->mesh->nv * sizeof(double);
    memcpy(p->x0 + 3 * (size_t)ob->offset, x0, bytes);
    memcpy(p->x1 + 3 * (size_t)ob->offset, x1, bytes);
    ob->placed = true;
    return WEFT_OK;
}

void weft_collision_free(weft_collision_pipeline **pp) {
    if (!pp || !*pp) return;
    weft_collision_pipeline *p = *pp;
    weft_bvh_free(&p->bvh);
    weft_spatial_hash_free(&p->hash);
    for (int k = 0; k < p->nobst; k++) {
        weft_bvh_free(&p->obst[k].bvh);
        weft_spatial_hash_free(&p->obst[k].hash);
    }
    free(p->obst);
    weft_collision_pairs_free(&p->pairs);
    free(p->cand);
    free(p->x0), free(p->x1), free(p->v), free(p->w), free(p->mass), free(p->locked);
    free(p->parent), free(p->root0), free(p->flag);
    free(p->zcount), free(p->zstart), free(p->zmember), free(p->zfree), free(p->zscript);
    free(p);
    *pp = NULL;
}

/* ------------------------------------------------------------------------------ */
/* Broad phase: candidates in global vertex indices                                */
/* ------------------------------------------------------------------------------ */

static int push_candidate(weft_collision_pipeline *p, int a, int b, int c, int d, int ee,
                          int obstacle) {
    if (p->ncand == p->cap_cand) {
        int cap = p->cap_cand ? 2 * p->cap_cand : 1024;
        candidate *nc = realloc(p->cand, (size_t)cap * sizeof *nc);
        if (!nc) return WEFT_ERR_NOMEM;
        p->cand = nc, p->cap_cand = cap;
    }
    p->cand[p->ncand++] = (candidate){{a, b, c, d}, (short)ee, (short)obstacle};
    return WEFT_OK;
}

/* Refits (or re-hashes) one mesh's structure to x0 and x1 (NULL: proximity at x0). */
static int refit(weft_bvh *bvh, weft_spatial_hash *hash, const double *x0, const double *x1,
                 double pad, weft_error *err) {
    return bvh ? weft_bvh_refit(bvh, x0, x1, pad, err)
               : weft_spatial_hash_update(hash, x0, x1, pad, err);
}

/* Fills p->cand with every pair whose boxes, padded so that primitives within `pad` (m)
 * are candidates, overlap: at x0 alone (proximity) or swept over x0 → x1. The cloth
 * against itself first, then against each obstacle; each list sorted. */
static int gather(weft_collision_pipeline *p, bool swept, double pad, weft_error *err) {
    p->ncand = 0;
    const double *x1 = swept ? p->x1 : NULL;
    int rc = refit(p->bvh, p->hash, p->x0, x1, pad, err);
    if (rc == WEFT_OK)
        rc = p->bvh ? weft_bvh_pairs(p->bvh, NULL, &p->pairs, err)
                    : weft_spatial_hash_pairs(p->hash, NULL, &p->pairs, err);
    if (rc != WEFT_OK) return rc;
    const weft_mesh *cm = p->mesh;
    for (int i = 0; i < p->pairs.vt.n && rc == WEFT_OK; i++) {
        const weft_pair q = p->pairs.vt.pair[i];
        const int *t = &cm->tri[3 * q.b];
        rc = push_candidate(p, q.a, t[0], t[1], t[2], 0, -1);
    }
    for (int i = 0; i < p->pairs.ee.n && rc == WEFT_OK; i++) {
        const weft_pair q = p->pairs.ee.pair[i];
        const int *e = &cm->edge[2 * q.a], *f = &cm->edge[2 * q.b];
        rc = push_candidate(p, e[0], e[1], f[0], f[1], 1, -1);
    }
    for (int k = 0; k < p->nobst && rc == WEFT_OK; k++) {
        obstacle *ob = &p->obst[k];
        const weft_mesh *om = ob->mesh;
        const int off = ob->offset;
        rc = refit(ob->bvh, ob->hash, p->x0 + 3 * (size_t)off,
                   swept ? p->x1 + 3 * (size_t)off : NULL, pad, err);
        if (rc == WEFT_OK)
            rc = p->bvh ? weft_bvh_pairs(p->bvh, ob->bvh, &p->pairs, err)
                        : weft_spatial_hash_pairs(p->hash, ob->hash, &p->pairs, err);
        if (rc != WEFT_OK) return rc;
        for (int i = 0; i < p->pairs.vt.n && rc == WEFT_OK; i++) { /* cloth vertex, obstacle face */
            const weft_pair q = p->pairs.vt.pair[i];
            const int *t = &om->tri[3 * q.b];
            rc = push_candidate(p, q.a, off + t[0], off + t[1], off + t[2], 0, k);
        }
        for (int i = 0; i < p->pairs.tv.n && rc == WEFT_OK; i++) { /* obstacle vertex, cloth face */
            const weft_pair q = p->pairs.tv.pair[i];
            const int *t = &cm->tri[3 * q.a];
            rc = push_candidate(p, off + q.b, t[0], t[1], t[2], 0, k);
        }
        for (int i = 0; i < p->pairs.ee.n && rc == WEFT_OK; i++) {
            const weft_pair q = p->pairs.ee.pair[i];
            const int *e = &cm->edge[2 * q.a], *f = &om->edge[2 * q.b];
            rc = push_candidate(p, e[0], e[1], off + f[0], off + f[1], 1, k);
        }
    }
    if (rc != WEFT_OK) return weft_fail(err, rc, "collision pipeline: out of memory for pairs");
    return WEFT_OK;
}

/* ------------------------------------------------------------------------------ */
/* Pair geometry and impulses                                                      */
/* ------------------------------------------------------------------------------ */

/* The four points of candidate c from x (3 nall values) into q (12 values). */
static void points(const candidate *c, const double *x, double q[12]) {
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++) q[3 * j + k] = x[3 * c->v[j] + k];
}

/* Distance of the pair at positions q, with the signed weights ω of its closest points
 * (Σ ω_j q_j is the gap from the second primitive to the first) and the unit gap. */
static double closest(bool ee, const double q[12], double w[4], double dir[3]) {
    if (ee) {
        double s, u;
        double d = weft_edge_edge_closest(q, q + 3, q + 6, q + 9, &s, &u, dir);
        w[0] = 1.0 - s, w[1] = s, w[2] = -(1.0 - u), w[3] = -u;
        return d;
    }
    double b[3];
    double d = weft_point_triangle_closest(q, q + 3, q + 6, q + 9, b, dir);
    w[0] = 1.0, w[1] = -b[0], w[2] = -b[1], w[3] = -b[2];
    return d;
}

/* 1 / m_eff = Σ ω_j² w_j of (1). */
static double inverse_mass(const weft_collision_pipeline *p, const candidate *c,
                           const double w[4]) {
    double s = 0.0;
    for (int j = 0; j < 4; j++) s += w[j] * w[j] * p->w[c->v[j]];
    return s;
}

/* Relative velocity u = Σ ω_j v̄_j of the pair. */
static void relative_velocity(const weft_collision_pipeline *p, const candidate *c,
                              const double w[4], double u[3]) {
    u[0] = u[1] = u[2] = 0.0;
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++) u[k] += w[j] * p->v[3 * c->v[j] + k];
}

/* Applies the normal change dn (m/s) of the relative velocity u along n, with friction
 * (2) of coefficient mu on the tangential part, through (1); updates x1 of the vertices
 * that moved. minv = 1/m_eff > 0. */
static void pair_impulse(weft_collision_pipeline *p, const candidate *c, const double w[4],
                         const double n[3], const double u[3], double dn, double mu, double minv,
                         double h) {
    double un = weft_dot3(u, n), ut[3], du[3];
    for (int k = 0; k < 3; k++) ut[k] = u[k] - un * n[k];
    double ut_len = sqrt(weft_dot3(ut, ut));
    double scale = ut_len > 0.0 ? fmax(1.0 - mu * dn / ut_len, 0.0) : 1.0;
    for (int k = 0; k < 3; k++) du[k] = dn * n[k] + (scale - 1.0) * ut[k];
    for (int j = 0; j < 4; j++) {
        int g = c->v[j];
        double f = w[j] * p->w[g] / minv;
        if (f == 0.0) continue;
        for (int k = 0; k < 3; k++) {
            p->v[3 * g + k] += f * du[k];
            p->x1[3 * g + k] = p->x0[3 * g + k] + h * p->v[3 * g + k];
        }
    }
}

/* Friction coefficient of a candidate: the cloth's, or its obstacle's. */
static double pair_friction(const weft_collision_pipeline *p, const candidate *c) {
    return c->obstacle < 0 ? p->opt.friction : p->obst[c->obstacle].friction;
}

/* ------------------------------------------------------------------------------ */
/* 1. Repulsions at x0                                                             */
/* ------------------------------------------------------------------------------ */

static int repulsions(weft_collision_pipeline *p, double h, weft_collision_stats *st,
                      weft_error *err) {
    const double eta = p->opt.thickness, k = p->opt.stiffness;
    int rc = gather(p, false, eta, err);
    if (rc != WEFT_OK) return rc;
    st->proximity_pairs += p->ncand;
    for (int i = 0; i < p->ncand; i++) {
        const candidate *c = &p->cand[i];
        double q[12], w[4], n[3], u[3];
        points(c, p->x0, q);
        double d = closest(c->ee, q, w, n);
        if (!(d < eta) || weft_dot3(n, n) == 0.0) continue;
        double minv = inverse_mass(p, c, w);
        if (!(minv > 0.0)) continue; /* only scripted vertices take part */
        relative_velocity(p, c, w, u);
        double un = weft_dot3(u, n);
        double dn = un < 0.0 ? -un : 0.0; /* inelastic: stop the approach */
        double overlap = eta - d;
        double room = 0.1 * overlap / h - (un + dn); /* separation speed still allowed */
        if (room > 0.0) dn += fmin(h * k * overlap * minv, room);
        if (!(dn > 0.0)) continue;
        pair_impulse(p, c, w, n, u, dn, pair_friction(p, c), minv, h);
        st->repulsions++;
    }
    return WEFT_OK;
}

/* ------------------------------------------------------------------------------ */
/* 4. Colliders (planes, spheres)                                                  */
/* ------------------------------------------------------------------------------ */

/* How far (m) x1 must move along n to keep the segment x0 → x1 at least margin from
 * collider c (see the file comment), or 0. */
static double collider_push(const weft_collider *c, const double *x0, const double *x1,
                            double margin, double kappa, double n[3]) {
    double q[3];
    /* x0, x1 are already in the collider's frame: the swept entry at t = 0. */
    if (weft_contact_swept_entry(c, x0, 0.0, x1, 0.0, margin, q, n)) {
        /* Started outside and the segment enters the grown collider: onto the tangent
         * plane at the entry point (plus κ), so the new segment stays outside a convex
         * collider. */
        double s = 0.0;
        for (int k = 0; k < 3; k++) s += (x1[k] - q[k]) * n[k];
        if (s < kappa) return kappa - s;
    }
    double d1 = weft_collider_distance(c, x1, n);
    return d1 < margin ? margin + kappa - d1 : 0.0;
}

/* One pass over the free cloth vertices and the colliders; true if anything moved.
 * lock: vertices moved become scripted (zone phase). A collider moving with velocity u
 * (weft_collider_moving) is handled in its own frame: the step's start and end points
 * are seen relative to where it stands at t0 = m->t − h and t1 = m->t (the solver has
 * already advanced m->t), and friction acts on the velocity relative to it, v − u. For
 * a static collider the frame change is skipped, so results are bit for bit those of
 * the static code. */
static bool colliders(weft_collision_pipeline *p, const weft_model *m, double h, bool lock,
                      weft_collision_stats *st) {
    if (m->ncolliders == 0) return false;
    const double margin = p->opt.margin, kappa = 1e-3 * p->opt.ccd_tolerance;
    const double t1 = m->t, t0 = m->t - h;
    bool moved = false;
    for (int i = 0; i < p->n; i++) {
        if (p->w[i] == 0.0) continue;
        double *x0 = &p->x0[3 * i], *x1 = &p->x1[3 * i], *v = &p->v[3 * i];
        for (int c = 0; c < m->ncolliders; c++) {
            const weft_collider *col = &m->colliders[c];
            const bool moving = weft_collider_moving(col);
            const double *u = col->velocity;
            /* Start, end and velocity in the collider's frame (copies when moving). */
            double a0[3], a1[3], n[3];
            for (int k = 0; k < 3; k++) {
                a0[k] = moving ? x0[k] - u[k] * t0 : x0[k];
                a1[k] = moving ? x1[k] - u[k] * t1 : x1[k];
            }
            double push = collider_push(col, a0, a1, margin, kappa, n);
            if (!(push > 0.0)) continue;
            moved = true;
            st->collider_contacts++;
            if (lock && weft_collider_distance(col, a0, NULL) >= 0.5 * margin) {
                /* Zone phase: the vertex sticks where it started relative to the
                 * collider, clear of it; it then moves with the collider (at rest for a
                 * static one) as a scripted vertex that holds its zone. */
                for (int k = 0; k < 3; k++) v[k] = moving ? u[k] : 0.0, x1[k] = x0[k] + h * v[k];
                p->locked[i] = 1;
                continue;
            }
            /* The push as a normal velocity change, then the shared contact response:
             * the normal velocity the push leaves, Coulomb friction bounded by μ Δv_n. */
            double dvn = push / h;
            for (int k = 0; k < 3; k++) v[k] += dvn * n[k];
            weft_contact_friction(col, x1, t1, v, n, dvn);
            for (int k = 0; k < 3; k++) x1[k] = x0[k] + h * v[k];
            if (lock) p->locked[i] = 1;
        }
    }
    return moved;
}

/* ------------------------------------------------------------------------------ */
/* 2. and 3. CCD passes, impact zones                                              */
/* ------------------------------------------------------------------------------ */

/* A pass answers each collision with an impulse, merges zones, or only counts (what is
 * left when impact zones are switched off). */
enum { PASS_IMPULSE, PASS_ZONES, PASS_COUNT };

/* Union-find root of g, with path halving. */
static int find(int *parent, int g) {
    while (parent[g] != g) {
        parent[g] = parent[parent[g]];
        g = parent[g];
    }
    return g;
}

/* Merges the zones of a and b; the smaller root index wins, so the result does not
 * depend on the order of merges. */
static void unite(int *parent, int a, int b) {
    a = find(parent, a), b = find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

static bool scripted(const weft_collision_pipeline *p, int g) {
    return p->w[g] == 0.0 || p->locked[g];
}

/* Whether the CCD contact `hit` of candidate c (points q0 → q1) is a collision: the
 * pair approaches at the contact, u_N < 0 (file comment, 2). Fills the unit normal n
 * (along the gap) and the relative velocity u. */
static bool approaching(const weft_collision_pipeline *p, const candidate *c, const double q0[12],
                        const double q1[12], const weft_ccd_hit *hit, double n[3], double u[3]) {
    double g[3] = {0, 0, 0};
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            g[k] += hit->w[j] * ((1.0 - hit->t) * q0[3 * j + k] + hit->t * q1[3 * j + k]);
    double len = sqrt(weft_dot3(g, g));
    if (len > 0.0)
        for (int k = 0; k < 3; k++) n[k] = g[k] / len;
    else
        for (int k = 0; k < 3; k++) n[k] = hit->n[k];
    if (weft_dot3(n, n) == 0.0) return false; /* coincident and motionless: nothing to do */
    relative_velocity(p, c, hit->w, u);
    return weft_dot3(u, n) < 0.0;
}

/* Runs the CCD of candidate c over x0 → x1: true when it collides, with the contact in
 * *hit, the normal n and the relative velocity u. */
static bool collides(const weft_collision_pipeline *p, const candidate *c, weft_ccd_hit *hit,
                     double n[3], double u[3]) {
    double q0[12], q1[12];
    points(c, p->x0, q0);
    points(c, p->x1, q1);
    weft_ccd_params prm = weft_ccd_params_default();
    prm.eta = p->opt.ccd_tolerance;
    bool found =
        c->ee ? weft_ccd_edge_edge(q0, q1, &prm, hit) : weft_ccd_vertex_face(q0, q1, &prm, hit);
    if (!found) return false;
    if (approaching(p, c, q0, q1, hit, n, u)) return true;
    /* Not approaching at the first contact: look once more, at half the tolerance or
     * half the starting distance, for a later approach. */
    double w[4], dir[3];
    prm.eta = 0.5 * fmin(prm.eta, closest(c->ee, q0, w, dir));
    if (!(prm.eta > 0.0)) return false; /* touching at x0: x0 was not collision-free */
    found = c->ee ? weft_ccd_edge_edge(q0, q1, &prm, hit) : weft_ccd_vertex_face(q0, q1, &prm, hit);
    return found && approaching(p, c, q0, q1, hit, n, u);
}

/* Marks, for each zone at the start of a zone pass, whether it is rigid: two or more
 * vertices, none scripted. Pairs inside one rigid zone cannot come closer (file
 * comment, 3) and are skipped. */
static void snapshot_zones(weft_collision_pipeline *p) {
    for (int g = 0; g < p->nall; g++) p->zcount[g] = 0, p->flag[g] = 1;
    for (int g = 0; g < p->nall; g++) {
        int r = find(p->parent, g);
        p->root0[g] = r;
        p->zcount[r]++;
        if (scripted(p, g)) p->flag[r] = 0;
    }
    for (int g = 0; g < p->nall; g++)
        if (p->zcount[g] < 2) p->flag[g] = 0;
}

/* One CCD pass (file comment, 2 and 3): impulses, zone merges, or a count. Adds the
 * collisions found to *hits. */
static int ccd_pass(weft_collision_pipeline *p, int mode, double h, long *hits,
                    weft_collision_stats *st, weft_error *err) {
    int rc = gather(p, true, p->opt.ccd_tolerance, err);
    if (rc != WEFT_OK) return rc;
    st->swept_pairs += p->ncand;
    if (mode == PASS_ZONES) snapshot_zones(p);
    for (int i = 0; i < p->ncand; i++) {
        const candidate *c = &p->cand[i];
        bool all_scripted = true;
        for (int j = 0; j < 4; j++) all_scripted = all_scripted && p->w[c->v[j]] == 0.0;
        if (all_scripted) continue; /* scripted against scripted: the script's business */
        if (mode == PASS_ZONES) {
            int r = p->root0[c->v[0]];
            if (p->flag[r] && p->root0[c->v[1]] == r && p->root0[c->v[2]] == r &&
                p->root0[c->v[3]] == r)
                continue;
        }
        weft_ccd_hit hit;
        double n[3], u[3];
        if (!collides(p, c, &hit, n, u)) continue;
        (*hits)++;
        if (mode == PASS_COUNT) continue;
        if (mode == PASS_ZONES) {
            for (int j = 1; j < 4; j++) unite(p->parent, c->v[0], c->v[j]);
            continue;
        }
        double minv = inverse_mass(p, c, hit.w);
        if (!(minv > 0.0)) continue; /* weights only on scripted vertices: left to zones */
        double speed = 0.0;
        for (int j = 0; j < 4; j++) {
            const double *vj = &p->v[3 * c->v[j]];
            speed += fabs(hit.w[j]) * sqrt(weft_dot3(vj, vj));
        }
        double delta = 1e-3 * p->opt.ccd_tolerance / h + 1e-12 * speed;
        pair_impulse(p, c, hit.w, n, u, delta - weft_dot3(u, n), pair_friction(p, c), minv, h);
    }
    return WEFT_OK;
}

/* Groups the vertices by zone (members in increasing index) and replaces each zone's
 * velocities by its rigid motion (3); zones with scripted vertices follow them. */
static void rigidify_zones(weft_collision_pipeline *p, double h) {
    const int nall = p->nall;
    for (int g = 0; g < nall; g++) p->zcount[g] = 0;
    for (int g = 0; g < nall; g++) p->zcount[p->root0[g] = find(p->parent, g)]++;
    p->zstart[0] = 0;
    for (int g = 0; g < nall; g++) p->zstart[g + 1] = p->zstart[g] + p->zcount[g];
    for (int g = 0; g < nall; g++) p->zcount[g] = 0;
    for (int g = 0; g < nall; g++) {
        int r = p->root0[g];
        p->zmember[p->zstart[r] + p->zcount[r]++] = g;
    }
    for (int r = 0; r < nall; r++) {
        int cnt = p->zcount[r];
        if (cnt < 2) continue;
        const int *mem = &p->zmember[p->zstart[r]];
        int nf = 0, ns = 0;
        for (int a = 0; a < cnt; a++) {
            if (scripted(p, mem[a]))
                p->zscript[ns++] = mem[a];
            else
                p->zfree[nf++] = mem[a];
        }
        if (nf == 0) continue;
        double c[3], vc[3], om[3];
        if (ns == 0)
            rigid_fit(nf, p->zfree, p->mass, p->x0, p->v, c, vc, om);
        else
            rigid_fit(ns, p->zscript, NULL, p->x0, p->v, c, vc, om);
        rigid_apply(nf, p->zfree, p->x0, c, vc, om, p->v);
        for (int a = 0; a < nf; a++) {
            int g = p->zfree[a];
            for (int k = 0; k < 3; k++) p->x1[3 * g + k] = p->x0[3 * g + k] + h * p->v[3 * g + k];
        }
    }
}

/* Zones of two or more vertices and the largest, from the union-find forest. */
static void count_zones(weft_collision_pipeline *p, weft_collision_stats *st) {
    for (int g = 0; g < p->nall; g++) p->zcount[g] = 0;
    for (int g = 0; g < p->nall; g++) p->zcount[find(p->parent, g)]++;
    for (int g = 0; g < p->nall; g++) {
        if (p->zcount[g] < 2) continue;
        st->zones++;
        if (p->zcount[g] > st->max_zone) st->max_zone = p->zcount[g];
    }
}

/* Intersecting pairs of a cloth triangle and an obstacle triangle at the pipeline's x1
 * (brute force, O(nt × nt_obstacle)). */
static long obstacle_intersections(const weft_collision_pipeline *p) {
    long count = 0;
    const weft_mesh *cm = p->mesh;
    for (int k = 0; k < p->nobst; k++) {
        const weft_mesh *om = p->obst[k].mesh;
        const double *ox = p->x1 + 3 * (size_t)p->obst[k].offset;
        for (int a = 0; a < cm->nt; a++) {
            const int *ta = &cm->tri[3 * a];
            for (int b = 0; b < om->nt; b++) {
                const int *tb = &om->tri[3 * b];
                if (weft_tri_tri_intersect(&p->x1[3 * ta[0]], &p->x1[3 * ta[1]], &p->x1[3 * ta[2]],
                                           &ox[3 * tb[0]], &ox[3 * tb[1]], &ox[3 * tb[2]]))
                    count++;
            }
        }
    }
    return count;
}

/* ------------------------------------------------------------------------------ */
/* The step                                                                        */
/* ------------------------------------------------------------------------------ */

int weft_collision_step(weft_collision_pipeline *p, const weft_model *m, const double *x0,
                        double *x1, double *v, double h, weft_collision_stats *stats,
                        weft_error *err) {
    double t_start = weft_now();
    weft_collision_stats local;
    weft_collision_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    st->remaining = -1;
    if (m->n != p->n)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "collision step: the model has %d vertices, the pipeline %d", m->n, p->n);
    if (!(h > 0.0 && isfinite(h)))
        return weft_fail(err, WEFT_ERR_INPUT, "collision step: h = %g is not a positive time", h);
    for (int k = 0; k < p->nobst; k++)
        if (!p->obst[k].placed)
            return weft_fail(err, WEFT_ERR_INPUT,
                             "collision step: obstacle %d has no positions "
                             "(weft_collision_move_obstacle)",
                             k);
    const int n = p->n;
    for (int i = 0; i < 3 * n; i++)
        if (!isfinite(x0[i]) || !isfinite(x1[i]) || !isfinite(v[i]))
            return weft_fail(err, WEFT_ERR_INPUT,
                             "collision step: vertex %d has a non-finite position or velocity",
                             i / 3);

    /* State: v̄ = (x1 − x0)/h, scripted vertices with w = 0. */
    memcpy(p->x0, x0, 3 * (size_t)n * sizeof *x0);
    memcpy(p->x1, x1, 3 * (size_t)n * sizeof *x1);
    for (int i = 0; i < 3 * p->nall; i++) p->v[i] = (p->x1[i] - p->x0[i]) / h;
    for (int i = 0; i < n; i++) p->w[i] = m->w[i], p->mass[i] = m->mass[i];
    for (int g = 0; g < p->nall; g++) p->locked[g] = 0, p->parent[g] = g;

    int rc = p->opt.repulsions ? repulsions(p, h, st, err) : WEFT_OK;
    if (rc != WEFT_OK) return rc;
    colliders(p, m, h, false, st);

    /* With CCD off nothing looks at the motion: the step counts as clean (stats say
     * no swept pairs were tested). */
    bool clean = !p->opt.ccd;
    long hits = 0;
    for (int it = 0; it < p->opt.max_iterations && !clean; it++) {
        hits = 0;
        rc = ccd_pass(p, PASS_IMPULSE, h, &hits, st, err);
        if (rc != WEFT_OK) return rc;
        st->ccd_iterations++;
        st->ccd_hits += hits;
        bool moved = colliders(p, m, h, false, st);
        clean = hits == 0 && !moved;
    }
    if (!clean && !p->opt.impact_zones) {
        /* No zones: count what the impulse passes left, without answering it. */
        hits = 0;
        rc = ccd_pass(p, PASS_COUNT, h, &hits, st, err);
        if (rc != WEFT_OK) return rc;
        st->unresolved = hits;
        clean = true;
    }
    while (!clean) {
        hits = 0;
        rc = ccd_pass(p, PASS_ZONES, h, &hits, st, err);
        if (rc != WEFT_OK) return rc;
        st->ccd_hits += hits;
        bool moved = hits == 0 && colliders(p, m, h, true, st);
        if (hits == 0 && !moved) {
            clean = true;
            break;
        }
        if (st->zone_iterations == p->opt.max_zone_iterations) {
            st->unresolved = hits > 0 ? hits : 1;
            break;
        }
        st->zone_iterations++;
        rigidify_zones(p, h);
        colliders(p, m, h, true, st);
    }
    if (st->zone_iterations > 0) count_zones(p, st);

    /* Hand back x_new and v += (x_new − x1)/h. */
    for (int i = 0; i < 3 * n; i++) {
        v[i] += (p->x1[i] - x1[i]) / h;
        x1[i] = p->x1[i];
    }
    st->seconds = weft_now() - t_start;
    if (p->opt.count_intersections)
        st->remaining = weft_mesh_count_intersections(p->mesh, x1) + obstacle_intersections(p);
    if (st->unresolved > 0 && !p->opt.impact_zones)
        return weft_fail(err, WEFT_WARN_UNRESOLVED,
                         "collision step: %ld collision(s) left after %d CCD impulse passes "
                         "(impact zones off)",
                         st->unresolved, st->ccd_iterations);
    if (st->unresolved > 0)
        return weft_fail(err, WEFT_WARN_UNRESOLVED,
                         "collision step: %ld collision(s) left after %d impact-zone rounds",
                         st->unresolved, st->zone_iterations);
    return WEFT_OK;
}
