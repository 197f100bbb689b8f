/* collision_vertex_face.c — a one-sided penalty between a vertex and a triangle, for
 * implicit solvers (Kim & Eberle, "Dynamic Deformables", §10.2.1, after McAdams et al.
 * 2011, "Efficient elasticity for character skinning with contact and collisions").
 *
 * Element: v = (p, t0, t1, t2), the vertex then the triangle. With the plane's unit normal
 *   n̂ = (t1 − t0) × (t2 − t0) / |(t1 − t0) × (t2 − t0)|,
 * the signed distance of p from the plane is d = s (p − t0)·n̂ (m), s = ±1 the side p was
 * on when the element was made (init), and
 *   Ψ = k/2 (η − d)²  for d < η,   Ψ = 0 otherwise            (J; k in N/m, η in m).
 * The seed writes the spring k (tᵀn̂)² on t = p − x_s, x_s = α t0 + β t1 + γ t2 the
 * closest point of the face; for any point x_s of the plane (p − x_s)·n̂ = (p − t0)·n̂, so
 * the barycentric weights drop out of Ψ and nothing needs their derivatives (here the
 * spring is one-sided and offset by η). They reappear as the values of the gradient: with
 * (β0, β1, β2) the barycentric coordinates of p's foot on the plane,
 *   ∂d/∂p = s n̂,   ∂d/∂t_i = −s β_i n̂,
 * so −∂Ψ/∂p = k (η − d) s n̂ pushes p back to its side and the face takes the reaction
 * in proportion to β_i (contact.h derives this and the Hessian, including ∂n̂/∂x and
 * ∂²n̂/∂x²). McAdams' force carries an area weight a; here it is part of k.
 *
 * d is the distance to the plane, which equals the distance to the face only when the
 * foot lies inside it: weft_contact_fill makes vertex–face elements only for such pairs
 * and only for the steps it is called for. A degenerate triangle (the sine of its angle
 * at t0 below WEFT_CONTACT_SINE) has no normal: Ψ = 0 with zero derivatives.
 * Maps u = (r, a, b) = (p − t0, t1 − t0, t2 − t0).
 * Element data: k (N/m), rest[0] = η (m), rest[1] = s. */
#include "contact.h"

static const weft_contact_map VF_MAP = {.plus = {0, 2, 3}, .minus = {1, 1, 1}};

static void vf_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    weft_contact_init(e, xe, &VF_MAP, p);
}

static double vf_energy(const weft_element *e, const double *xe) {
    return weft_contact_eval(e, xe, &VF_MAP, WEFT_HESSIAN_EXACT, NULL, NULL);
}

static double vf_gradient(const weft_element *e, const double *xe, double *g) {
    return weft_contact_eval(e, xe, &VF_MAP, WEFT_HESSIAN_EXACT, g, NULL);
}

static double vf_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                         double *H) {
    return weft_contact_eval(e, xe, &VF_MAP, mode, g, H);
}

double weft_vertex_face_distance(const weft_element *e, const double *xe) {
    return weft_contact_distance(e, xe, &VF_MAP, NULL);
}

const weft_energy_type weft_vertex_face_contact = {
    .name = "vertex_face_contact",
    .paper = "Kim & Eberle 2020 §10.2.1; McAdams et al. 2011",
    .summary = "vertex-triangle penalty k/2 (eta - d)^2 for d < eta, d the signed distance "
               "of the vertex from the triangle's plane",
    .kind = WEFT_ELEM_VERTEX_FACE,
    .nv = 4,
    .init = vf_init,
    .energy = vf_energy,
    .gradient = vf_gradient,
    .hessian = vf_hessian,
    .analytic_psd = false,
    .constraint = NULL,
};
