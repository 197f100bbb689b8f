/* contact.h — the kernel shared by the two contact penalties of Kim & Eberle,
 * "Dynamic Deformables", §10.2 (vertex–face after McAdams et al. 2011, and edge–edge):
 * the signed distance of a point from a plane spanned by two edge vectors,
 *
 *   f(r, a, b) = r·n̂,   n̂ = m/μ,   m = a × b,   μ = |m|          (m),
 *
 * r, a, b differences of the element's vertex positions, penalised one-sidedly:
 *
 *   d = s f,   Ψ = k/2 (η − d)² for d < η,   Ψ = 0 for d ≥ η,
 *
 * s = ±1 the side recorded at init, η the thickness (m), k the stiffness (N/m). Ψ is C¹ at
 * d = η but its Hessian jumps there: finite differences must not straddle d = η.
 *
 * Derivatives over u = (r, a, b), with D = det[r, a, b], f = D/μ, r_t = r − f n̂:
 *   ∇f = (n̂, b × r_t/μ, r_t × a/μ),
 *   ∇²f = (∇²D − ∇f ∇μᵀ − ∇μ ∇fᵀ − f ∇²μ)/μ,
 *   ∇Ψ = −k (η − d) s ∇f,   ∇²Ψ = k ∇f ∇fᵀ − k (η − d) s ∇²f,
 * mapped to the 12 coordinates by u = J_x x. No normal (μ ≤ WEFT_CONTACT_SINE |a||b|,
 * the threshold of geometry.c's GEOM_DEGENERATE_SINE): the element is inactive (Ψ = 0,
 * zero gradient and Hessian). PSD projection: ANALYTIC and CLAMP both clamp the 12×12
 * Hessian's eigenvalues (weft_psd_clamp).
 * The second derivatives of D and μ written out, and why the thresholds agree with the
 * closest-point code: papers/kim-eberle2020-collision-energies.md ("Implementation
 * notes: energies/contact.h").
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
