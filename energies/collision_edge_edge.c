/* collision_edge_edge.c — a one-sided penalty between two edges, for implicit solvers
 * (Kim & Eberle, "Dynamic Deformables", §10.2.2).
 *
 * Element: v = (a0, a1, b0, b1), edge a then edge b. With the unit common normal
 *   n̂ = (a1 − a0) × (b1 − b0) / |(a1 − a0) × (b1 − b0)|,
 * the signed distance between the two infinite lines is d = s (b0 − a0)·n̂ (m), s = ±1 the
 * side edge b was on when the element was made (init), and
 *   Ψ = k/2 (η − d)²  for d < η,   Ψ = 0 otherwise            (J; k in N/m, η in m).
 * The seed writes k (ε + (x_b − x_a)ᵀn)² with x_a, x_b the closest points; any points x_a
 * of line a and x_b of line b have (x_b − x_a)·n̂ = (b0 − a0)·n̂, since they differ from
 * a0 and b0 by vectors along the edges, normal to n̂. So Ψ is the seed's energy with
 * ε = −η and k halved, made one-sided. With x_a = a0 + σ (a1 − a0), x_b = b0 + τ (b1 − b0)
 * the closest points of the lines,
 *   ∂d/∂a0 = −s (1 − σ) n̂,  ∂d/∂a1 = −s σ n̂,  ∂d/∂b0 = s (1 − τ) n̂,  ∂d/∂b1 = s τ n̂
 * (contact.h derives this and the Hessian, including ∂n̂/∂x and ∂²n̂/∂x²).
 *
 * Validity: the line distance is the distance between the edges only while the closest
 * points are interior (0 < σ, τ < 1); weft_contact_fill creates edge–edge elements only
 * for such pairs, at the positions it is called with, and the element keeps using the
 * line distance for the rest of that step. Near-parallel edges (sine of their angle at
 * most WEFT_CONTACT_SINE = 1e-8, or an edge of zero length) have no normal: Ψ = 0 with
 * zero gradient and Hessian, never NaN. The closest-point query treats edges as parallel
 * below the same sine (never interior), so such pairs are left to the vertex–face pairs
 * of their endpoints.
 * Maps u = (r, a, b) = (b0 − a0, a1 − a0, b1 − b0).
 * Element data: k (N/m), rest[0] = η (m), rest[1] = s. */
#include "contact.h"

static const weft_contact_map EE_MAP = {.plus = {2, 1, 3}, .minus = {0, 0, 2}};

static void ee_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_contact_init(e, xe, &EE_MAP, p);
}

static double ee_energy(const weft_element *e, const double *xe) {
    return weft_contact_eval(e, xe, &EE_MAP, WEFT_HESSIAN_EXACT, NULL, NULL);
}

static double ee_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_contact_eval(e, xe, &EE_MAP, WEFT_HESSIAN_EXACT, g, NULL);
}

static double ee_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                         double *H) {
    return weft_contact_eval(e, xe, &EE_MAP, mode, g, H);
}

double weft_edge_edge_distance(const weft_element *e, const double *xe) {
    return weft_contact_distance(e, xe, &EE_MAP, NULL);
}

const weft_energy_type weft_edge_edge_contact = {
    .name = "edge_edge_contact",
    .paper = "Kim & Eberle 2020 §10.2.2",
    .summary = "edge-edge penalty k/2 (eta - d)^2 for d < eta, d the signed distance "
               "between the edges' lines",
    .kind = WEFT_ELEM_EDGE_EDGE,
    .nv = 4,
    .init = ee_init,
    .energy = ee_energy,
    .gradient = ee_gradient,
    .hessian = ee_hessian,
    .analytic_psd = false,
    .constraint = NULL,
};
