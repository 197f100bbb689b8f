/* vbd_ipc.h — vbd's side of the contact model `[contact] model = ipc` (solvers/vbd_ipc.c):
 * Li 2020's barrier elements (ipc_contact.h) as incident elements of their vertices in
 * Vertex Block Descent's local systems, and the conservative per-vertex displacement bound
 * of Chen, Liu, Yang & Yuksel 2024 ("Vertex Block Descent", §3.7, after Lan et al. 2022)
 * in place of Newton's CCD-filtered line search:
 *     ‖x_i − x_i^ref‖ ≤ b_i = γ (d_min(i) − ξ),
 * d_min(i) the smallest distance from a primitive holding i to any other primitive (cloth,
 * obstacle, collider) at the last refresh x^ref (capped at the query radius R). Two
 * primitives at distance d each move at most γ (d − ξ) < (d − ξ)/2, so no pair comes
 * within ξ between refreshes. papers/chen2024-vbd.md ("Contact: ipc") has the whole.
 * Private to solvers/ and the tests.
 */
#ifndef WEFT_VBD_IPC_H
#define WEFT_VBD_IPC_H

#include "ipc_contact.h"
#include "vertex_block.h"

/* One contact element holding a free vertex: its term (the barrier's or the friction's),
 * its index there, and the slots that name the vertex (a bit each: a vertex–collider
 * element names it in all four). */
typedef struct vbd_ipc_entry {
    int term, elem;
    unsigned mask;
} vbd_ipc_entry;

/* vbd's state of the ipc model. */
typedef struct vbd_ipc {
    weft_ipc ipc;          /* the pair set, κ, friction (ipc_contact.c) */
    const weft_model *m;   /* the model of the current step */
    double gamma;          /* [vbd] ipc_gamma: Chen's γ_p, in (0, 0.5) */
    double radius;         /* [vbd] ipc_radius, m (0: per step, from the motion) */
    double r_step;         /* this step's query radius R, m */
    double edge;           /* the mesh's mean edge length at its start positions, m */
    int n;
    int *inc_ptr;          /* vertex → contact elements, CSR (rebuilt at each refresh) */
    vbd_ipc_entry *inc;
    int cap_inc;
    double *xref;          /* positions at the last refresh (3n, m) */
    double *bound;         /* b_i (n, m) */
    double *xs;            /* the positions contact partners read (3n, m): a colour's
                              vertices are copied in after the colour (Jacobi within it) */
    double *g, *gB, *gE;   /* 3n scratch for adaptive κ */
    weft_collision_pairs pairs; /* the bound's query */
    long refreshes, clipped;
    double bound_s;        /* time in the bound's query, s */
} vbd_ipc;

/* vbd's ipc state for m from the [contact] settings s (weft_ipc_create, then what vbd does
 * not run refused: friction_iterations > 1). */
int vbd_ipc_create(vbd_ipc *c, const weft_contact_settings *s, double gamma, double radius,
                   const weft_model *m, const weft_config *cfg, weft_error *err);

/* Frees what c holds. */
void vbd_ipc_free(vbd_ipc *c);

/* The step's start: the pair set emptied (weft_ipc_begin_step), friction lagged at x_n,
 * x_n carried by moving colliders (weft_ipc_carry), a refresh there, each free vertex of
 * the initial guess x (3n, m, pins at t_{n+1}; in and out) clipped to its bound, a refresh
 * at the result, and adaptive κ from ∇G there (y: the inertial target). */
int vbd_ipc_begin_step(vbd_ipc *c, weft_model *m, const double *y, double *x, weft_error *err);

/* A refresh at x: the bound b_i of every vertex, the pairs within ξ + d̂ added to the set
 * (weft_ipc_fill), the contact incidence rebuilt, x^ref = xs = x. */
int vbd_ipc_refresh(vbd_ipc *c, weft_model *m, const double *x, weft_error *err);

/* Clips p (vertex i's trial, m) into the ball of radius b_i about x_i^ref; true when it
 * moved p. */
bool vbd_ipc_clip(const vbd_ipc *c, int i, double p[3]);

/* The contact elements' part of vertex i's local system (vb_extra's add; ctx a vbd_ipc):
 * their gradient at xs subtracted from f, their 3×3 block (mode) added to H. */
bool vbd_ipc_add(void *ctx, int i, weft_hessian_mode mode, double f[3], double H[9]);

/* The contact elements' energy (J) with vertex i at p, the other vertices at xs. */
double vbd_ipc_energy(const vbd_ipc *c, int i, const double p[3]);

/* Copies the vertices order[first .. end) of x into xs (a colour's results). */
void vbd_ipc_colour_done(vbd_ipc *c, const double *x, const int *order, int first, int end);

#endif
