/* weft_ccd_step.h — the CCD filter of an intersection-free line search (Incremental
 * Potential Contact, Li et al. 2020 §4.2): the largest step α ∈ [0, 1] along a search
 * direction dx such that the linear motion x → x + α dx brings no two primitives of a
 * cloth mesh, and no vertex and analytic collider, closer than a separation δ ≥ 0:
 *
 *     α = s · TOI,   TOI = min over pairs of the earliest t ∈ [0, 1] with d(t) ≤ δ
 *                    (1 if no pair ever comes that close),
 *
 * s ∈ (0, 1] the fraction of the time of impact a step may take (IPC: 0.8). Pairs are
 * vertex–triangle and edge–edge of the mesh (exact CCD of lib/collision/ccd.c with η = δ,
 * candidates from the swept-box broad phases of weft_broadphase.h) and vertex–collider
 * (the collider types' distance and segment_entry hooks), and the same mesh pairs
 * against static triangle-mesh obstacles. papers/ipc-ccd.md has the equations, the
 * guarantee and the cost.
 */
#ifndef WEFT_CCD_STEP_H
#define WEFT_CCD_STEP_H

#include "weft_collision.h"

/* Settings of weft_ccd_step. Units: m; s, t_tol dimensionless. */
typedef struct weft_ccd_step_options {
    double separation;                 /* δ ≥ 0: the least distance a step may leave, m */
    double fraction;                   /* s ∈ (0, 1]: fraction of the time of impact taken */
    weft_broad_phase_kind broad_phase; /* BVH or spatial hash over the swept boxes */
    double t_tol;  /* time resolution of the CCD, > 0 (fraction of the motion) */
    int max_nodes; /* distance evaluations per CCD query before a contact is
                      assumed (conservative), ≥ 1 */
    int threads;   /* OpenMP threads for the narrow phase, ≥ 1; the result is
                      the same bit for bit for any count */
} weft_ccd_step_options;

/* Which pair limited the step (kind WEFT_CCD_STEP_NONE when none did: TOI = 1). */
typedef enum {
    WEFT_CCD_STEP_NONE = 0,
    WEFT_CCD_STEP_VERTEX_TRIANGLE, /* a: vertex, b: triangle */
    WEFT_CCD_STEP_EDGE_EDGE,       /* a < b: edges */
    WEFT_CCD_STEP_COLLIDER,        /* a: vertex, b: collider index */
    WEFT_CCD_STEP_OBSTACLE_VT,     /* a: cloth vertex, b: obstacle triangle */
    WEFT_CCD_STEP_OBSTACLE_TV,     /* a: cloth triangle, b: obstacle vertex */
    WEFT_CCD_STEP_OBSTACLE_EE      /* a: cloth edge, b: obstacle edge */
} weft_ccd_step_kind;

/* A triangle-mesh obstacle standing still during the motion: its mesh (topology built)
 * and positions x (3*nv, m). */
typedef struct weft_ccd_step_obstacle {
    const weft_mesh *mesh;
    const double *x;
} weft_ccd_step_obstacle;

/* What one call found. */
typedef struct weft_ccd_step_stats {
    double toi;     /* TOI ∈ [0, 1]: the earliest time a pair reaches δ (1: none) */
    int kind, a, b; /* the limiting pair (weft_ccd_step_kind), the lowest by (kind,
                       obstacle, a, b) among those with the earliest time */
    int obstacle;   /* its obstacle for the OBSTACLE kinds, else -1 */
    long vt_pairs;  /* vertex–triangle candidates tested by CCD */
    long ee_pairs;  /* edge–edge candidates tested by CCD (obstacle pairs included, as
                       are vertex–triangle ones in vt_pairs) */
    long hits;      /* pairs (mesh and collider) that reach δ within the motion */
    bool assumed;   /* a CCD query ran out of budget and assumed a contact */
} weft_ccd_step_stats;

/* Defaults: δ = 0, s = 0.8, BVH, t_tol = 1e-10, max_nodes = 20000, 1 thread. */
weft_ccd_step_options weft_ccd_step_options_default(void);

/* t_P of one pair moving q → q + dq (12 values each, m): vertex–triangle (p; a, b, c) or,
 * edge_edge, (p0, p1; q0, q1). True with a lower bound on the earliest t ∈ [0, 1] at which
 * the distance is ≤ δ in *toi (the CCD's time less t_tol), false when none; *assumed
 * (may be NULL) is set when the CCD ran out of budget and assumed the contact. */
bool weft_ccd_step_pair(bool edge_edge, const double q[12], const double dq[12],
                        const weft_ccd_step_options *opt, double *toi, bool *assumed);

/* The largest safe step α (out) for mesh m (topology built) moving x → x + α dx (3*nv
 * each, m) against itself, the nobs static obstacles obs and the nc colliders c
 * (standing where they are at time t, s): α = s·TOI, or 1 when no pair reaches δ; 0 when
 * one starts within δ. stats may be NULL. The same for any thread count. WEFT_OK,
 * WEFT_ERR_INPUT (bad options, non-finite x or dx), or WEFT_ERR_NOMEM. */
int weft_ccd_step(const weft_mesh *m, const double *x, const double *dx, int nobs,
                  const weft_ccd_step_obstacle *obs, int nc, const weft_collider *c, double t,
                  const weft_ccd_step_options *opt, double *alpha, weft_ccd_step_stats *stats,
                  weft_error *err);

#endif
