/* vertex_block.h — the per-vertex kernels of Vertex Block Descent (Chen, Liu, Yang & Yuksel
 * 2024; solvers/vbd.c), shared by vbd.c and by newton_patch.c
 * (the vertex graph): each vertex's incident elements, a colouring in which no two vertices
 * of one colour share an element, the vertex's force f_i = −Σ_j ∂Ψ_j/∂x_i and 3×3 block
 * Σ_j ∂²Ψ_j/∂x_i² from the energy descriptors alone, its elements' energy with the vertex
 * moved (the 3×3 Cholesky of each vertex's step is weft_vec.h's). Private to solvers/ and
 * the tests.
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
 * its exact block through it (the same numbers). False if any value is not finite. */
bool vb_vertex_block(const vb_graph *g, const weft_model *m, const double *x, int i,
                     weft_hessian_mode mode, double f[3], double H[9]);

/* G0 + Σ_{j ∋ i} Ψ_j with vertex i at p (the other vertices at x), summed in incidence
 * order (J); +inf outside an energy's domain. */
double vb_vertex_energy(const vb_graph *g, const weft_model *m, const double *x, int i,
                        const double *p, double G0);


#endif
