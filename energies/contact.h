/* contact.h — the kernel shared by the two contact penalties of Kim & Eberle,
 * "Dynamic Deformables", §10.2 (vertex–face after McAdams et al. 2011, and edge–edge):
 * both measure the signed distance of a point from a plane spanned by two edge vectors,
 *
 *   f(r, a, b) = r·n̂,   n̂ = m/μ,   m = a × b,   μ = |m|          (m),
 *
 * with r, a, b differences of the element's vertex positions (collision_vertex_face.c,
 * collision_edge_edge.c name them), and penalise it one-sidedly:
 *
 *   d = s f,   Ψ = k/2 (η − d)² for d < η,   Ψ = 0 for d ≥ η,
 *
 * s = ±1 the side recorded at init, η the contact thickness (m), k the stiffness (N/m).
 * Ψ is C¹ at d = η (value and gradient vanish there) but its Hessian jumps from k ∇d∇dᵀ
 * to 0, so finite-difference checks must not straddle d = η.
 *
 * Derivatives over u = (r, a, b) (9 values). Writing D = r·m = det[r, a, b], f = D/μ and
 * r_t = r − f n̂ (the part of r in the plane):
 *   ∇D = (m, b × r, r × a),   ∇μ = (0, b × n̂, n̂ × a)   (δm = −[b]× δa + [a]× δb),
 *   ∇f = ∇D/μ − f ∇μ/μ = (n̂, b × r_t/μ, r_t × a/μ).
 * These are the normal's derivatives written out: ∂n̂/∂a = −(I − n̂n̂ᵀ)[b]×/μ and
 * ∂n̂/∂b = (I − n̂n̂ᵀ)[a]×/μ, so ∂f/∂a = (∂n̂/∂a)ᵀ r = [b]× (I − n̂n̂ᵀ) r/μ = b × r_t/μ.
 * In the plane r_t = α a + β b (the coordinates of the foot of r), so b × r_t/μ = −α n̂ and
 * r_t × a/μ = −β n̂: ∇f is (1, −α, −β) ⊗ n̂, the weights of the closest points, although
 * those weights never enter f itself. Second derivatives, from f = D/μ:
 *   ∇²f = (∇²D − ∇f ∇μᵀ − ∇μ ∇fᵀ − f ∇²μ)/μ,
 * where D is trilinear,
 *   ∂²D/∂r∂a = −[b]×,  ∂²D/∂r∂b = [a]×,  ∂²D/∂a∂b = −[r]×,  zero diagonal blocks,
 * and μ = |m| has ∇²μ = Jᵀ (I − n̂n̂ᵀ) J/μ + Σ_i n̂_i ∇²m_i with J = ∂m/∂u = [0, −[b]×, [a]×]:
 *   ∂²μ/∂a² = −[b]× P [b]×/μ,  ∂²μ/∂b² = −[a]× P [a]×/μ,  ∂²μ/∂a∂b = [b]× P [a]×/μ − [n̂]×,
 * P = I − n̂n̂ᵀ, zero r blocks (∂²(c·(a × b))/∂a∂b = −[c]× for a fixed c). Then
 *   ∇Ψ = −k (η − d) s ∇f,   ∇²Ψ = k ∇f ∇fᵀ − k (η − d) s ∇²f     (s² = 1),
 * mapped to the element's 12 coordinates by u = J_x x (each of r, a, b is one vertex
 * minus another): ∇ₓΨ = J_xᵀ ∇ᵤΨ, ∇ₓ²Ψ = J_xᵀ ∇ᵤ²Ψ J_x.
 *
 * No normal: when μ ≤ WEFT_CONTACT_SINE |a||b| (a degenerate triangle; parallel edges)
 * n̂ is undefined and its derivatives grow like 1/μ². The element is then inactive: Ψ = 0
 * with zero gradient and Hessian (Ψ jumps to 0 there if the pair was in contact; no
 * finite value would be continuous in every direction). The threshold is lib/collision/geometry.c's
 * GEOM_DEGENERATE_SINE. For two edges weft_edge_edge_closest tests the same sine of the
 * same vectors, so an edge pair it finds with interior closest points always has a normal
 * here. For a triangle it tests the sine at t2, this file the sine at t0; by the law of
 * sines they differ by a ratio of edge lengths, so only triangles flat to within about
 * 1e-8 (times that ratio) can pass there and have no normal here (their elements stay
 * inactive).
 *
 * PSD projection: no analytic eigensystem is derived; ANALYTIC and CLAMP both clamp the
 * 12×12 Hessian's eigenvalues (weft_psd_clamp).
 *
 * Element data: k = stiffness k (N/m), rest[0] = η (m), rest[1] = s (±1).
 */
#ifndef WEFT_CONTACT_H
#define WEFT_CONTACT_H

#include "weft_energies.h"

#include <stdbool.h>

/* Below this sine of the angle between a and b there is no normal (lib/collision/geometry.c's
 * GEOM_DEGENERATE_SINE, ~√u). */
#define WEFT_CONTACT_SINE 1e-8

/* How u = (r, a, b) is made from the element's 4 vertices: u_U = x[plus[U]] − x[minus[U]]. */
typedef struct weft_contact_map {
    int plus[3], minus[3];
} weft_contact_map;

/* f = r·(a × b)/|a × b| (m) of u = (r, a, b), its gradient gf (9, dimensionless) and
 * Hessian Hf (81, row-major, 1/m) if non-NULL. Returns false, with f = 0 and zero
 * derivatives, when there is no normal (|a × b| ≤ WEFT_CONTACT_SINE |a||b|). */
bool weft_contact_plane_distance(const double u[9], double *f, double gf[9], double Hf[81]);

/* Contact init: k = p->stiffness, rest[0] = η = p->thickness, rest[1] = s, the side of
 * xe (+1 where f ≥ 0 or there is no normal, else −1). */
void weft_contact_init(weft_element *e, const double *xe, const weft_contact_map *map,
                       const weft_energy_params *p);

/* Signed distance d = s f of the element at xe (m), NAN-free; 0 when there is no normal
 * (*has_normal, if non-NULL, tells which). */
double weft_contact_distance(const weft_element *e, const double *xe, const weft_contact_map *map,
                             bool *has_normal);

/* Ψ (J) of the element at xe; the gradient into g (12, N) if non-NULL, and the Hessian
 * (12×12, N/m, exact or clamped per mode) into H if non-NULL. */
double weft_contact_eval(const weft_element *e, const double *xe, const weft_contact_map *map,
                         weft_hessian_mode mode, double *g, double *H);

#endif
