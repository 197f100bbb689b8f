/* vertex_block.h — the per-vertex kernels of Vertex Block Descent (Chen, Liu, Yang & Yuksel
 * 2024; solvers/vbd.c), shared by vbd.c and by newton_patch.c
 * (the vertex graph): each vertex's incident elements, a colouring in which no two vertices
 * of one colour share an element, the vertex's force f_i = −Σ_j ∂Ψ_j/∂x_i and 3×3 block
 * Σ_j ∂²Ψ_j/∂x_i² from the energy descriptors alone, its elements' energy with the vertex
 * moved; the local inertia + damping potential of one vertex; and the one policy of a local
 * Newton step (a vertex's in vbd, a patch's in newton_patch): which block is solved when
 * the exact one is not positive definite, the line search and the rule at rounding.
 * Private to solvers/ and the tests.
 */
#ifndef WEFT_VERTEX_BLOCK_H
#define WEFT_VERTEX_BLOCK_H

#include "weft_energies.h"
#include "weft_solvers.h"

#include <stdbool.h>

/* One element holding a vertex: its term, its index in the term, and the vertex's place
 * in it (0 .. nv − 1). */
typedef struct vb_incidence {
    int term, elem, local;
} vb_incidence;

/* The incidence and colouring of a model's free vertices. */
typedef struct vb_graph {
    int n;
    /* Vertex → incident elements, CSR: inc[inc_ptr[i] .. inc_ptr[i+1]). */
    int *inc_ptr;
    vb_incidence *inc;
    /* Free vertices colour by colour: colour c is order[colour_ptr[c] .. colour_ptr[c+1]). */
    int ncolours;
    int *colour_ptr, *order;
} vb_graph;

/* Builds g for model m: the vertex → element incidence of every energy term (an error for
 * an energy without a Hessian; `who` names the caller in messages) and a greedy colouring
 * of the free vertices in index order on the Hessian's vertex graph. */
int vb_graph_build(vb_graph *g, const weft_model *m, const char *who, weft_error *err);

/* Frees g's arrays (g itself is the caller's); a zeroed g is a no-op. */
void vb_graph_free(vb_graph *g);

/* The force f_i and the block H_i (element Hessians of `mode`) of the elements holding
 * vertex i at x, without any inertia term; an element whose type has vertex_hessian gives
 * its block through it (the same numbers, any mode). False if any value is not finite. */
bool vb_vertex_block(const vb_graph *g, const weft_model *m, const double *x, int i,
                     weft_hessian_mode mode, double f[3], double H[9]);

/* vb_vertex_block that also writes each incident element's Ψ_j at x into psi[0 .. deg − 1]
 * (deg = inc_ptr[i + 1] − inc_ptr[i], incidence order; psi NULL: not kept). The Ψ the
 * descriptors' hessian and vertex_hessian return, which are their energy's. */
bool vb_vertex_block_psi(const vb_graph *g, const weft_model *m, const double *x, int i,
                         weft_hessian_mode mode, double f[3], double H[9], double *psi);

/* G0 + Σ_q psi[q] over vertex i's incidences, in vb_vertex_energy's order: its value with
 * vertex i where vb_vertex_block_psi saw it, without evaluating the elements again. */
double vb_vertex_energy_sum(const vb_graph *g, int i, const double *psi, double G0);

/* G0 + Σ_{j ∋ i} Ψ_j with vertex i at p (the other vertices at x), summed in incidence
 * order (J); +inf outside an energy's domain. */
double vb_vertex_energy(const vb_graph *g, const weft_model *m, const double *x, int i,
                        const double *p, double G0);

/* ---- The local inertia + damping potential of one vertex ----------------------------- */

/* The per-vertex terms of the incremental potential G that are not energy, for a scheme of
 * effective step ĥ (hh, s): inertia about the target x̃ (xt, 3n, m) and, when alpha > 0,
 * Rayleigh mass damping α (1/s) about a (3n, m; unread when alpha = 0). */
typedef struct vb_inertia {
    double hh, alpha;
    const double *xt, *a;
} vb_inertia;

/* I_i(p) = m_i/(2ĥ²)|p − x̃_i|² + α m_i/(2ĥ)|p − a_i|² (J) for vertex i at p; when f is
 * non-NULL, f −= ∇I_i(p) = m_i/ĥ² (p − x̃_i) + α m_i/ĥ (p − a_i); when diag is non-NULL,
 * *diag = m_i (1/ĥ² + α/ĥ), the block ∇²I_i = diag · I (N/m). */
double vb_inertia_eval(const vb_inertia *in, const weft_model *m, int i, const double p[3],
                       double f[3], double *diag);

/* ---- One local Newton step: its policy -------------------------------------------- */

#define VB_HALVINGS 10    /* halvings of a local step before the block stays */
#define VB_ROUNDING 1e-12 /* relative change of a local potential taken as rounding */
#define VB_DET_EPS 1e-12  /* det H ≤ ε (tr H/3)³: a 3×3 block counts as singular */

/* Solves H Δ = f for a symmetric 3×3 block H (row-major). False, with Δ untouched, unless H
 * is positive definite (its Cholesky factor exists) and not near-singular
 * (det H > VB_DET_EPS (tr H/3)³): the caller then falls back as vb_vertex_direction does. */
bool vb_block_solve(const double H[9], const double f[3], double dx[3]);

/* Which block vb_vertex_direction solved. */
typedef enum vb_block_kind { VB_BLOCK_NONE, VB_BLOCK_EXACT, VB_BLOCK_PROJECTED } vb_block_kind;

/* Vertex i's local Newton step at x on G_i = I_i + Σ_{j ∋ i} Ψ_j (+ f_extra · x_i, a held
 * force such as a multiplier's; NULL for none): f = −∇G_i into f and Δ = H_i⁻¹ f into dx.
 * The one policy for the block: with mode = WEFT_HESSIAN_EXACT the exact block, and where
 * it is not positive definite or near-singular (vb_block_solve) the block of the
 * PSD-projected element Hessians (WEFT_HESSIAN_ANALYTIC), which I_i's diag · I makes
 * definite; with mode = WEFT_HESSIAN_ANALYTIC that block directly. VB_BLOCK_NONE (no
 * step) when neither solves or a value is not finite. */
vb_block_kind vb_vertex_direction(const vb_graph *g, const weft_model *m, const double *x, int i,
                                  weft_hessian_mode mode, const vb_inertia *in,
                                  const double *f_extra, double f[3], double dx[3]);

/* An extra term of a vertex's local potential that is not an element of the vertex graph
 * (vbd's contact model: barrier elements whose pairs change during a step): add(ctx, i,
 * mode, f, H) subtracts its gradient at vertex i from f and adds its 3×3 block (element
 * Hessians of `mode`) to H; false if a value is not finite. */
typedef struct vb_extra {
    bool (*add)(void *ctx, int i, weft_hessian_mode mode, double f[3], double H[9]);
    void *ctx;
} vb_extra;

/* vb_vertex_direction with the extra term's force and block in G_i (extra NULL: none). */
vb_block_kind vb_vertex_direction_extra(const vb_graph *g, const weft_model *m, const double *x,
                                        int i, weft_hessian_mode mode, const vb_inertia *in,
                                        const double *f_extra, const vb_extra *extra,
                                        double f[3], double dx[3]);

/* The most incidences of a vertex whose Ψ_j a caller keeps on the stack
 * (vb_vertex_direction_psi). */
#define VB_PSI_MAX 64

/* vb_vertex_direction_extra that also keeps the incident elements' Ψ_j at x in psi
 * (vb_vertex_block_psi; NULL: not kept), valid when a block was solved. */
vb_block_kind vb_vertex_direction_psi(const vb_graph *g, const weft_model *m, const double *x,
                                      int i, weft_hessian_mode mode, const vb_inertia *in,
                                      const double *f_extra, const vb_extra *extra, double f[3],
                                      double dx[3], double *psi);

/* A trial of a local step: moves the block's unknowns to x0 + β Δ (projected onto the
 * colliders as the caller's contact handling does) and returns the local potential there
 * (+inf outside an energy's domain). */
typedef double (*vb_trial_fn)(void *ctx, double beta);

/* The line search and rounding rule of a local Newton step Δ (a vertex's or a patch's) from
 * x0, where the local potential is G0 and the predicted decrease f·Δ is `slope`:
 *   - slope ≤ VB_ROUNDING |G0|: G_loc cannot resolve the step (evaluating it errs by more
 *     than the step would lower it), so the block stays: VB_AT_ROUNDING, no trial made;
 *   - else β = 1, ½, ¼, … (at most VB_HALVINGS halvings) until G_loc(β) ≤ G0.
 * So an accepted step never raises G_loc. Returns the halvings taken (0 .. VB_HALVINGS),
 * the last trial being the accepted point, or VB_REJECTED when no trial was accepted (the
 * caller puts the block back at x0). */
enum { VB_REJECTED = -1, VB_AT_ROUNDING = -2 };
int vb_line_search(double slope, double G0, vb_trial_fn trial, void *ctx);

#endif
