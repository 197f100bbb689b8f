/* mass_spring.c — mass-spring stretch on mesh edges, the implicit twin of the PBD
 * distance constraint (Müller 2006 eqs. 10–11):
 *   C(x0, x1) = |x0 − x1| − ℓ0,   Ψ = ½ k C²,   ∂Ψ/∂x0 = k C d̂ = −∂Ψ/∂x1,  d̂ = (x0 − x1)/|x0 − x1|.
 * The spring constant comes from the membrane stiffness Y (N/m, ≈ Young's modulus ×
 * thickness) and the edge's share of area A_e (a third of each adjacent triangle):
 *   k = Y A_e / ℓ0²  (N/m), so a finer mesh of the same cloth is about as stiff.
 * Element data: rest[0] = ℓ0 (m). */
#include "weft_energies.h"

static void ms_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l0 = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    e->rest[0] = l0;
    e->k = l0 > 0.0 ? p->stiffness * p->area / (l0 * l0) : 0.0;
}

static double ms_constraint(const weft_element *e, const double *xe, double *grad) {
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (grad) {
        double il = l > 0.0 ? 1.0 / l : 0.0; /* coincident ends: no direction, no force */
        for (int k = 0; k < 3; k++) {
            grad[k] = d[k] * il;
            grad[3 + k] = -d[k] * il;
        }
    }
    return l - e->rest[0];
}

static double ms_energy(const weft_element *e, const double *xe) {
    double C = ms_constraint(e, xe, NULL);
    return 0.5 * e->k * C * C;
}

static double ms_gradient(const weft_element *e, const double *xe, double *g) {
    double C = ms_constraint(e, xe, g);
    for (int k = 0; k < 6; k++) g[k] *= e->k * C;
    return 0.5 * e->k * C * C;
}

const weft_energy_type weft_mass_spring = {
    .name = "mass_spring",
    .paper = "Mueller 2006 eqs. 10-11 (distance constraint as spring energy)",
    .summary = "edge springs 1/2 k (|x0-x1| - l0)^2, k = Y A_e / l0^2",
    .kind = WEFT_ELEM_EDGE,
    .nv = 2,
    .init = ms_init,
    .energy = ms_energy,
    .gradient = ms_gradient,
    .constraint = ms_constraint,
};
