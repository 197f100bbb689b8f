/* pbd_internal.h — what the two position-based solvers share (Müller et al. 2006):
 * packed constraint arrays, the projection kernels, and the stages of Algorithm 1
 * other than the solver loop. Private to solvers/ and the tests.
 *
 * Generic projection (eqs. 1–9): for a constraint C with stiffness k',
 *   s = C / Σ_j w_j |∇_{p_j} C|²,   Δp_i = −k' s w_i ∇_{p_i} C.
 */
#ifndef WEFT_PBD_INTERNAL_H
#define WEFT_PBD_INTERNAL_H

#include "weft_broadphase.h"
#include "weft_energies.h"
#include "weft_solvers.h"

#include <math.h>

/* A distance constraint |p_a − p_b| − ℓ0 = 0 (eqs. 10–11). 16 bytes: four fit a cache line. */
typedef struct pbd_distance {
    int a, b;
    double rest;
} pbd_distance;

/* A dihedral bending constraint θ(p0..p3) − θ0 = 0 (§4.1). */
typedef struct pbd_bend {
    int v[4];
    double rest;  /* θ0, rad */
    double cs[2]; /* cos θ0, sin θ0 (pbd_bend_delta_cs) */
} pbd_bend;

/* A collision constraint (p_i − q)·n ≥ 0 generated once per step (§3.4). */
typedef struct pbd_contact {
    int i;            /* vertex */
    int collider;     /* index into model colliders */
    double q[3], n[3];
    double vn_before; /* normal velocity of the prediction, m/s (for restitution) */
} pbd_contact;

/* A self-collision constraint (§4.3, eqs. 12–13) generated once per step:
 * s (q − p1)·n̂ − h ≥ 0 for vertex q against triangle (p1, p2, p3), s = ±1 the side of
 * the triangle q was on at the start of the step. */
typedef struct pbd_self_contact {
    int v[4];    /* q, p1, p2, p3 (the triangle's corners in mesh order) */
    double side; /* s: +1 if q started on the side n̂ points to (eq. 12), −1 if not (eq. 13) */
} pbd_self_contact;

/* Wall time (s) spent in each stage of a PBD step and counts, summed over the run;
 * reported by pbd_stats. */
typedef struct pbd_timers {
    double predict;     /* external forces, damping, prediction, pins (lines 5-7) */
    double collide;     /* collision constraint generation (line 8) */
    double project;     /* solver iterations (lines 9-11) */
    double update;      /* velocity update, friction, restitution (lines 12-16) */
    long projections;   /* constraint projections performed (all iterations) */
    long self_contacts; /* self-collision constraints generated (§4.3, all steps) */
} pbd_timers;

/* State shared by both PBD solvers; each solver's own state begins with it. */
typedef struct pbd_state {
    int n;
    double *p;       /* predicted positions, 3n */
    double *w;       /* inverse masses, n */
    int ndist, nbend;
    pbd_distance *dist;
    pbd_bend *bend;
    /* After pbd_colour_constraints: bending colour k (k < 63, disjoint vertices) is
     * bend[bend_colour[k] .. bend_colour[k+1]−1]; bend_colour[63..64] the shared last
     * bucket. All zero before (no colours known). */
    int bend_colour[65];
    double k_stretch, k_bend; /* stiffness after the §3.3 mapping */
    int ncontact, cap_contact;
    pbd_contact *contact;
    bool balloon;
    double *vgrad;   /* ∇V, 3n (balloon) */
    bool self;       /* §4.3 self-collision on ([pbd] self_collision) */
    double self_h;   /* thickness h, m ([pbd] self_thickness) */
    weft_spatial_hash *hash;     /* broad phase over the mesh (self-collision only) */
    weft_pairs pairs;            /* its vertex–triangle candidate pairs, reused every step */
    int nself, cap_self;
    pbd_self_contact *self_contact; /* this step's self-collision constraints */
    int threads;
    weft_pbd_settings set;       /* the solver's settings, from the run's config */
    pbd_timers timers;
} pbd_state;

/* The [pbd] rows of weft_pbd_settings (pbd_common.c). */
extern const weft_param pbd_params[];

/* Of those, the rows that add physics to the model: k_pressure, self_collision (both
 * WEFT_PARAM_MODEL) and self_thickness, for a solver that runs that physics with PBD's
 * stages (xpbd). Offsets within weft_pbd_settings. */
extern const weft_param pbd_model_params[];

/* caps.model_changes of the PBD solvers: they project their own constraints, with the
 * [pbd] stiffnesses, in place of the scene's membrane and bending energies, and nothing
 * for any other term. */
int pbd_model_changes(const weft_model *m, weft_model_change *out, int max);

/* Fills the shared state from model m with the settings of the solver whose tables are
 * `tables`, taken from cfg (defaults when NULL); allocates everything the step needs. */
int pbd_state_init(pbd_state *st, const weft_model *m, weft_config *cfg,
                   const weft_param_table *tables, weft_error *err);

/* pbd_state_init with the settings given (cfg: where the [pbd] values came from, for
 * errors; may be NULL). */
int pbd_state_setup(pbd_state *st, const weft_model *m, const weft_config *cfg,
                    const weft_pbd_settings *set, weft_error *err);

/* Reorders the stretch and bending constraints colour by colour (pbd_order.c) so that
 * consecutive Gauss-Seidel projections touch disjoint vertices. */
int pbd_colour_constraints(pbd_state *st);

/* The Gauss-Seidel order of pbd_colour_constraints for any nc constraints of `arity`
 * vertices (constraint c's at verts[c*stride .. c*stride + arity − 1], stride in ints, of
 * nv vertices): the permutation that sorts them by greedy colour, stably, into perm (nc);
 * colour k (k < 63) is perm[starts[k] .. starts[k+1] − 1] when starts (65) != NULL. */
int pbd_colour_order(int nc, int arity, const int *verts, int stride, int nv, int *perm,
                     int *starts);

/* The wavefront order of nc constraints (as pbd_colour_order's arguments) projected in
 * the order given: constraint c's level is one more than the highest level of the
 * earlier constraints that share a vertex with it (0 if none), and perm (nc) sorts them
 * by level, stably. Two constraints that share a vertex keep their relative order and a
 * level shares no vertex, so a Gauss-Seidel sweep in this order gives the given order's
 * result bit for bit (projections of disjoint vertices commute), with each level's
 * projections independent. Level l is perm[starts[l] .. starts[l+1] − 1], l < *nlevel;
 * starts holds nc + 2 ints. */
int pbd_level_order(int nc, int arity, const int *verts, int stride, int nv, int *perm,
                    int *starts, int *nlevel);

/* Frees what pbd_state_init allocated. */
void pbd_state_free(pbd_state *st);

/* The stats hook of both PBD solvers (their states begin with a pbd_state): timers
 * predict, collide, project, update (s) and counters projections, self_contacts. */
void pbd_stats(const void *state, weft_profile *out);

/* §3.3: k' = 1 − (1 − k)^(1/n_s) when mapping is on, else k. */
double pbd_mapped_stiffness(double k, int iterations, bool mapping);

/* Lines 5–8: v += h g, §3.5 damping, p = x + h v, pins to their path at t + h,
 * collision constraints from the rays x → p (colliders, and the cloth itself when
 * self-collision is on). WEFT_ERR_DIVERGED for a non-finite prediction found by the
 * self-collision broad phase, WEFT_ERR_NOMEM if its buffers cannot grow. */
int pbd_begin_step(pbd_state *st, weft_model *m, weft_error *err);

/* Lines 12–16: v = (p − x)/h, x = p, friction and restitution on contacts, t += h. */
void pbd_end_step(pbd_state *st, weft_model *m);

/* Projects every collision constraint (inequality, stiffness 1). */
void pbd_project_contacts(pbd_state *st, double *p);

/* Creates the self-collision broad phase (pbd_self.c) when [pbd] self_collision is on;
 * WEFT_ERR_INPUT if the thickness h exceeds the rest distance between a vertex and a
 * triangle not incident to it (a flat rest state would be pushed apart). */
int pbd_self_init(pbd_state *st, const weft_model *m, weft_error *err);

/* Frees what pbd_self_init allocated; safe when self-collision is off. */
void pbd_self_free(pbd_state *st);

/* Line 8 for the cloth itself (§4.3): fills st->self_contact from the motion x → p. */
int pbd_self_generate(pbd_state *st, const weft_model *m, weft_error *err);

/* Gauss-Seidel: projects the self-collision constraints in turn (inequality, k = 1). */
void pbd_project_self(pbd_state *st, double *p);

/* Projects the balloon constraint (§4.4, eqs. 14–15) with stiffness 1 and writes the
 * corrections into dp (3n) when dp != NULL instead of applying them. */
void pbd_project_balloon(pbd_state *st, const weft_model *m, double *p, double *dp);

/* §3.5: damps velocities v of free vertices towards the rigid-body motion of their part
 * (each [mesh] or [mesh.NAME] on its own), v_i += k (v_cm + ω × r_i − v_i); conserves
 * each part's linear and angular momentum. */
void pbd_damp_velocities(const weft_model *m, double *v, double k_damping);

/* Distance projection (eqs. 10–11) scaled by k: writes corrections for a and b. */
static inline void pbd_distance_delta(const double *pa, const double *pb, double wa, double wb,
                                      double rest, double k, double *da, double *db) {
    double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double wsum = wa + wb;
    if (!(wsum > 0.0) || !(l > 0.0)) {
        for (int c = 0; c < 3; c++) da[c] = db[c] = 0.0;
        return;
    }
    double s = k * (l - rest) / (wsum * l);
    for (int c = 0; c < 3; c++) {
        da[c] = -wa * s * d[c];
        db[c] = wb * s * d[c];
    }
}

/* Bending projection (§4.1) scaled by k: corrections for the four hinge vertices.
 * The projection of weft_hinge_angle's constraint in closed form, one division and one
 * square root (papers/mueller2006-pbd.md, "The dihedral projection"): with e = p1 − p0,
 * a = p2 − p0, b = p3 − p1, nA = e × a, nB = b × e, |e| = ℓ,
 *   θ = atan2(−ℓ (nA·b), nA·nB)   ((nA × nB)·e = −ℓ² nA·b, common factor ℓ dropped),
 *   ∇θ = (−ρ (d21 |nB|² nA + d31 |nA|² nB), ρ (d20 |nB|² nA + d30 |nA|² nB),
 *         −ρ ℓ² |nB|² nA, −ρ ℓ² |nA|² nB),   ρ = 1/(|nA|² |nB|² ℓ),  dij = (pi − pj)·e,
 * so Σ w_i |∇_i θ|² = ρ² |nA|² |nB|² E with
 *   E = |nB|² (w0 d21² + w1 d20² + w2 ℓ⁴) + |nA|² (w0 d31² + w1 d30² + w3 ℓ⁴)
 *       + 2 (nA·nB)(w0 d21 d31 + w1 d20 d30),
 * and Δp_i = −k C w_i ∇_i θ / Σ: 1/(ρ |nA|² |nB|²) = ℓ leaves f = k C ℓ / E. */
static inline void pbd_bend_delta_cs(const double *p0, const double *p1, const double *p2,
                                     const double *p3, const double w[4], const double cs[2],
                                     double k, double *dp /* 12 */) {
    const weft_hinge_frame hf = weft_hinge_frame_of(p0, p1, p2, p3);
    const double *e = hf.e, *a = hf.a, *b = hf.b, *nA = hf.nA, *nB = hf.nB;
    const double ee = hf.ee, aa = hf.aa, bb = hf.bb;
    double ab = nA[0] * nB[0] + nA[1] * nB[1] + nA[2] * nB[2];
    double nAb = nA[0] * b[0] + nA[1] * b[1] + nA[2] * b[2];
    /* the projections of the wing vertices on the edge: d20 = a·e, d21 = d20 − ℓ²,
     * d31 = b·e, d30 = d31 + ℓ² */
    double d20 = a[0] * e[0] + a[1] * e[1] + a[2] * e[2], d21 = d20 - ee;
    double d31 = b[0] * e[0] + b[1] * e[1] + b[2] * e[2], d30 = d31 + ee;
    /* weft_hinge_angle's degenerate hinge (no angle, zero gradient): no correction */
    if (weft_hinge_degenerate(&hf)) {
        for (int i = 0; i < 12; i++) dp[i] = 0.0;
        return;
    }
    double le = sqrt(ee);
    double C = weft_angle_from(-le * nAb, ab, cs);
    double ee2 = ee * ee;
    double E = bb * (w[0] * d21 * d21 + w[1] * d20 * d20 + w[2] * ee2) +
               aa * (w[0] * d31 * d31 + w[1] * d30 * d30 + w[3] * ee2) +
               2.0 * ab * (w[0] * d21 * d31 + w[1] * d20 * d30);
    /* Σ w |∇θ|² ≤ 1e-30 (every vertex pinned): no correction, as the generic form */
    if (!(E > 1e-30 * aa * bb * ee)) {
        for (int i = 0; i < 12; i++) dp[i] = 0.0;
        return;
    }
    double f = (k * C) * (le / E);
    double fa0 = f * w[0] * d21 * bb, fb0 = f * w[0] * d31 * aa;
    double fa1 = -f * w[1] * d20 * bb, fb1 = -f * w[1] * d30 * aa;
    double fa2 = f * w[2] * ee * bb, fb3 = f * w[3] * ee * aa;
    for (int c = 0; c < 3; c++) {
        dp[c] = fa0 * nA[c] + fb0 * nB[c];
        dp[3 + c] = fa1 * nA[c] + fb1 * nB[c];
        dp[6 + c] = fa2 * nA[c];
        dp[9 + c] = fb3 * nB[c];
    }
}

/* pbd_bend_delta_cs at rest angle θ0 (rad). */
static inline void pbd_bend_delta(const double *p0, const double *p1, const double *p2,
                                  const double *p3, const double w[4], double rest, double k,
                                  double *dp /* 12 */) {
    const double cs[2] = {cos(rest), sin(rest)};
    pbd_bend_delta_cs(p0, p1, p2, p3, w, cs, k, dp);
}

/* PBD_LANES doubles, one per lane, and the AVX2 clone of a function: weft_energies.h's
 * weft_vd4 and WEFT_AVX2_CLONE, which the hinges' compliant_step4 (XPBD) shares. */
enum { PBD_LANES = 4 };
typedef weft_vd4 pbd_vd;
#define PBD_AVX2_CLONE WEFT_AVX2_CLONE

/* Applies the bending projections of PBD_LANES constraints b[0..] that share no vertex
 * (one colour) to p, lane l computing pbd_bend_delta_cs of b[l] in the same operations
 * and order, so p ends bitwise as after the scalar projections one after the other, in
 * any order. A lane away from the rest angle takes weft_angle_from's atan2 on its own.
 * Returns false, touching nothing, when a lane has a degenerate hinge or all its
 * vertices pinned: the caller then projects them one by one with pbd_bend_delta_cs. */
PBD_AVX2_CLONE static inline bool pbd_bend_lanes(double *restrict p, const double *restrict w,
                                                 const pbd_bend b[PBD_LANES], double k) {
    /* Each lane filled from registers (an initialiser), not through memory: four scalar
     * stores read back as one vector cannot be forwarded and stall. */
    _Static_assert(PBD_LANES == 4, "the initialisers below list four lanes");
    const double *q[4][PBD_LANES]; /* hinge vertex i of lane l */
    for (int i = 0; i < 4; i++)
        for (int l = 0; l < PBD_LANES; l++) q[i][l] = &p[3 * b[l].v[i]];
    pbd_vd x[4][3], wv[4]; /* positions of hinge vertex i, coordinate c; inverse masses */
    for (int i = 0; i < 4; i++) {
        for (int c = 0; c < 3; c++)
            x[i][c] = (pbd_vd){q[i][0][c], q[i][1][c], q[i][2][c], q[i][3][c]};
        wv[i] = (pbd_vd){w[b[0].v[i]], w[b[1].v[i]], w[b[2].v[i]], w[b[3].v[i]]};
    }
    pbd_vd c0 = {b[0].cs[0], b[1].cs[0], b[2].cs[0], b[3].cs[0]};
    pbd_vd s0 = {b[0].cs[1], b[1].cs[1], b[2].cs[1], b[3].cs[1]};
    pbd_vd e[3], a[3], bv[3], nA[3], nB[3];
    for (int c = 0; c < 3; c++)
        e[c] = x[1][c] - x[0][c], a[c] = x[2][c] - x[0][c], bv[c] = x[3][c] - x[1][c];
    nA[0] = e[1] * a[2] - e[2] * a[1];
    nA[1] = e[2] * a[0] - e[0] * a[2];
    nA[2] = e[0] * a[1] - e[1] * a[0];
    nB[0] = bv[1] * e[2] - bv[2] * e[1];
    nB[1] = bv[2] * e[0] - bv[0] * e[2];
    nB[2] = bv[0] * e[1] - bv[1] * e[0];
    pbd_vd ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    pbd_vd aa = nA[0] * nA[0] + nA[1] * nA[1] + nA[2] * nA[2];
    pbd_vd bb = nB[0] * nB[0] + nB[1] * nB[1] + nB[2] * nB[2];
    pbd_vd ab = nA[0] * nB[0] + nA[1] * nB[1] + nA[2] * nB[2];
    pbd_vd nAb = nA[0] * bv[0] + nA[1] * bv[1] + nA[2] * bv[2];
    pbd_vd d20 = a[0] * e[0] + a[1] * e[1] + a[2] * e[2], d21 = d20 - ee;
    pbd_vd d31 = bv[0] * e[0] + bv[1] * e[1] + bv[2] * e[2], d30 = d31 + ee;
    pbd_vd ee2 = ee * ee;
    pbd_vd E = bb * (wv[0] * d21 * d21 + wv[1] * d20 * d20 + wv[2] * ee2) +
               aa * (wv[0] * d31 * d31 + wv[1] * d30 * d30 + wv[3] * ee2) +
               2.0 * ab * (wv[0] * d21 * d31 + wv[1] * d20 * d30);
    /* pbd_bend_delta_cs's two early exits, lane by lane (true = −1) */
    __typeof__(ee > 0.0) ok = (ee > 0.0) & (aa > 1e-24 * ee * ee) & (bb > 1e-24 * ee * ee) &
                              (E > 1e-30 * aa * bb * ee);
    pbd_vd le;
    for (int l = 0; l < PBD_LANES; l++) {
        if (!ok[l]) return false;
        le[l] = sqrt(ee[l]);
    }
    /* weft_angle_from: the angle of (c, s) = (nA·nB, −ℓ nA·b) rotated by −θ0 */
    pbd_vd s = -le * nAb;
    pbd_vd y = s * c0 - ab * s0, xr = ab * c0 + s * s0, ax = 0.125 * xr;
    __typeof__(ok) small = (xr > 0.0) & (y <= ax) & (-y <= ax);
    pbd_vd t = y / xr, C; /* weft_atan_small(t), its operations in its order */
    {
        pbd_vd u = t * t, u2 = u * u, u4 = u2 * u2;
        pbd_vd p01 = -1.0 / 3.0 + u * (1.0 / 5.0), p23 = -1.0 / 7.0 + u * (1.0 / 9.0);
        pbd_vd p45 = -1.0 / 11.0 + u * (1.0 / 13.0), p67 = -1.0 / 15.0 + u * (1.0 / 17.0);
        pbd_vd p03 = p01 + u2 * p23, p47 = p45 + u2 * p67;
        C = t + t * (u * (p03 + u4 * (p47 + u4 * (-1.0 / 19.0))));
    }
    for (int l = 0; l < PBD_LANES; l++)
        if (!small[l]) C[l] = weft_angle_from(s[l], ab[l], b[l].cs);
    pbd_vd f = (k * C) * (le / E);
    pbd_vd fa0 = f * wv[0] * d21 * bb, fb0 = f * wv[0] * d31 * aa;
    pbd_vd fa1 = -f * wv[1] * d20 * bb, fb1 = -f * wv[1] * d30 * aa;
    pbd_vd fa2 = f * wv[2] * ee * bb, fb3 = f * wv[3] * ee * aa;
    for (int c = 0; c < 3; c++) {
        x[0][c] += fa0 * nA[c] + fb0 * nB[c];
        x[1][c] += fa1 * nA[c] + fb1 * nB[c];
        x[2][c] += fa2 * nA[c];
        x[3][c] += fb3 * nB[c];
    }
    for (int l = 0; l < PBD_LANES; l++)
        for (int i = 0; i < 4; i++)
            for (int c = 0; c < 3; c++) p[3 * b[l].v[i] + c] = x[i][c][l];
    return true;
}

/* Self-collision constraint (§4.3, eqs. 12–13) at x = (q, p1, p2, p3) (12 values, m):
 *   C = s (q − p1)·n̂ − h,   n̂ = c/|c|,   c = e1 × e2,   e1 = p2 − p1,   e2 = p3 − p1.
 * With d = q − p1 and g = ∂C/∂c = s (d − (d·n̂) n̂)/|c| (the derivative of a unit
 * vector, (1 − n̂n̂ᵀ)/|c|, applied to d), and δc = δe1 × e2 + e1 × δe2:
 *   ∇_q C = s n̂,   ∇_p2 C = e2 × g,   ∇_p3 C = g × e1,
 *   ∇_p1 C = −(∇_q C + ∇_p2 C + ∇_p3 C)   (C is unchanged by translations).
 * Returns C (m) and fills grad (12 values, dimensionless) when non-NULL. A degenerate
 * triangle (sin of its angle at p1 below 1e-12) has no normal: C = 0 and a zero
 * gradient, so the constraint is inactive rather than NaN. */
static inline double pbd_self_constraint(const double *x, double side, double h, double *grad) {
    const double *q = x, *p1 = x + 3, *p2 = x + 6, *p3 = x + 9;
    double e1[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
    double e2[3] = {p3[0] - p1[0], p3[1] - p1[1], p3[2] - p1[2]};
    double d[3] = {q[0] - p1[0], q[1] - p1[1], q[2] - p1[2]};
    double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    double cc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    double l1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    double l2 = sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
    if (!(cc > 1e-12 * l1 * l2)) {
        if (grad)
            for (int i = 0; i < 12; i++) grad[i] = 0.0;
        return 0.0;
    }
    double n[3] = {c[0] / cc, c[1] / cc, c[2] / cc};
    double dn = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
    if (grad) {
        double g[3];
        for (int k = 0; k < 3; k++) g[k] = side * (d[k] - dn * n[k]) / cc;
        double *gq = grad, *g1 = grad + 3, *g2 = grad + 6, *g3 = grad + 9;
        for (int k = 0; k < 3; k++) gq[k] = side * n[k];
        g2[0] = e2[1] * g[2] - e2[2] * g[1];
        g2[1] = e2[2] * g[0] - e2[0] * g[2];
        g2[2] = e2[0] * g[1] - e2[1] * g[0];
        g3[0] = g[1] * e1[2] - g[2] * e1[1];
        g3[1] = g[2] * e1[0] - g[0] * e1[2];
        g3[2] = g[0] * e1[1] - g[1] * e1[0];
        for (int k = 0; k < 3; k++) g1[k] = -(gq[k] + g2[k] + g3[k]);
    }
    return side * dn - h;
}

/* Projection of one self-collision constraint (eqs. 3–9 with k = 1, an inequality):
 * when C < 0, Δp_i = −C w_i ∇_i C / Σ_j w_j |∇_j C|², written into dp (12 values, m)
 * for (q, p1, p2, p3) with inverse masses w[4] (1/kg; 0 = pinned). Returns true when
 * the constraint was violated and corrected; otherwise dp is zero. */
static inline bool pbd_self_delta(const double *x, const double w[4], double side, double h,
                                  double *dp) {
    double g[12];
    double C = pbd_self_constraint(x, side, h, g);
    double denom = 0.0;
    if (C < 0.0)
        for (int a = 0; a < 4; a++)
            denom += w[a] * (g[3 * a] * g[3 * a] + g[3 * a + 1] * g[3 * a + 1] +
                             g[3 * a + 2] * g[3 * a + 2]);
    if (!(denom > 0.0)) { /* satisfied, degenerate, or every vertex pinned */
        for (int i = 0; i < 12; i++) dp[i] = 0.0;
        return false;
    }
    double s = C / denom;
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) dp[3 * a + k] = -s * w[a] * g[3 * a + k];
    return true;
}

#endif
