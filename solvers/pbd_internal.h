/* pbd_internal.h — what the two position-based solvers share (Müller et al. 2006):
 * packed constraint arrays, the projection kernels, and the stages of Algorithm 1
 * other than the solver loop. Private to solvers/ and the tests.
 *
 * Generic projection (eqs. 1–9): for a constraint C with stiffness k',
 *   s = C / Σ_j w_j |∇_{p_j} C|²,   Δp_i = −k' s w_i ∇_{p_i} C.
 */
#ifndef WEFT_PBD_INTERNAL_H
#define WEFT_PBD_INTERNAL_H

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
    double rest;
} pbd_bend;

/* A collision constraint (p_i − q)·n ≥ 0 generated once per step (§3.4). */
typedef struct pbd_contact {
    int i;            /* vertex */
    int collider;     /* index into model colliders */
    double q[3], n[3];
    double vn_before; /* normal velocity of the prediction, m/s (for restitution) */
} pbd_contact;

/* State shared by both PBD solvers; each solver's own state begins with it. */
typedef struct pbd_state {
    int n;
    double *p;       /* predicted positions, 3n */
    double *w;       /* inverse masses, n */
    int ndist, nbend;
    pbd_distance *dist;
    pbd_bend *bend;
    double k_stretch, k_bend; /* stiffness after the §3.3 mapping */
    int ncontact, cap_contact;
    pbd_contact *contact;
    bool balloon;
    double *vgrad;   /* ∇V, 3n (balloon) */
    int threads;
    weft_pbd_timers timers;
} pbd_state;

/* Fills the shared state from model m (allocates everything the step needs). */
int pbd_state_init(pbd_state *st, const weft_model *m, weft_error *err);

/* Reorders the stretch and bending constraints colour by colour (pbd_order.c) so that
 * consecutive Gauss-Seidel projections touch disjoint vertices. */
int pbd_colour_constraints(pbd_state *st);

/* Frees what pbd_state_init allocated. */
void pbd_state_free(pbd_state *st);

/* §3.3: k' = 1 − (1 − k)^(1/n_s) when mapping is on, else k. */
double pbd_mapped_stiffness(double k, int iterations, bool mapping);

/* Lines 5–8: v += h g, §3.5 damping, p = x + h v, pins to their path at t + h,
 * collision constraints from the rays x → p. */
void pbd_begin_step(pbd_state *st, weft_model *m);

/* Lines 12–16: v = (p − x)/h, x = p, friction and restitution on contacts, t += h. */
void pbd_end_step(pbd_state *st, weft_model *m);

/* Projects every collision constraint (inequality, stiffness 1). */
void pbd_project_contacts(pbd_state *st, double *p);

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

/* Bending projection (§4.1) scaled by k: corrections for the four hinge vertices. */
static inline void pbd_bend_delta(const double *p0, const double *p1, const double *p2,
                                  const double *p3, const double w[4], double rest, double k,
                                  double *dp /* 12 */) {
    double g[12];
    double C = weft_wrap_angle(weft_hinge_angle(p0, p1, p2, p3, g) - rest);
    double denom = 0.0;
    for (int a = 0; a < 4; a++)
        denom += w[a] * (g[3 * a] * g[3 * a] + g[3 * a + 1] * g[3 * a + 1] +
                         g[3 * a + 2] * g[3 * a + 2]);
    if (!(denom > 1e-30)) { /* degenerate hinge or all pinned: no correction */
        for (int i = 0; i < 12; i++) dp[i] = 0.0;
        return;
    }
    double s = k * C / denom;
    for (int a = 0; a < 4; a++)
        for (int c = 0; c < 3; c++) dp[3 * a + c] = -s * w[a] * g[3 * a + c];
}

#endif
