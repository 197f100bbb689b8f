/* dihedral_bending.c — bending on interior edges (hinges), the implicit twin of the
 * PBD bending constraint of Müller 2006 §4.1:
 *   C = θ − θ0 (wrapped into (−π, π]),   Ψ = ½ k C²,   ∂Ψ/∂x = k C ∂θ/∂x,
 * with θ the signed dihedral angle of weft_hinge_angle (robust at 0 and ±π). The
 * hinge stiffness follows discrete shells (Grinspun et al. 2003): from the bending
 * stiffness D (N·m), k = D · 3|ē|² / Ā (J/rad²), Ā the rest area of the two triangles.
 * Element data: v = (edge v0, v1, opposite v2, v3), rest[0] = θ0 (rad). */
#include "weft_energies.h"

static void db_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    e->rest[0] = weft_hinge_angle(xe, xe + 3, xe + 6, xe + 9, NULL);
    double d[3] = {xe[3] - xe[0], xe[4] - xe[1], xe[5] - xe[2]};
    double ee = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    e->k = p->area > 0.0 ? p->stiffness * 3.0 * ee / p->area : 0.0;
}

static double db_constraint(const weft_element *e, const double *xe, double *grad) {
    double theta = weft_hinge_angle(xe, xe + 3, xe + 6, xe + 9, grad);
    return weft_wrap_angle(theta - e->rest[0]);
}

static double db_energy(const weft_element *e, const double *xe) {
    double C = db_constraint(e, xe, NULL);
    return 0.5 * e->k * C * C;
}

static double db_gradient(const weft_element *e, const double *xe, double *g) {
    double C = db_constraint(e, xe, g);
    for (int k = 0; k < 12; k++) g[k] *= e->k * C;
    return 0.5 * e->k * C * C;
}

const weft_energy_type weft_dihedral_bending = {
    .name = "dihedral_bending",
    .paper = "Mueller 2006 §4.1; Grinspun et al. 2003 (hinge weight 3|e|^2/A)",
    .summary = "hinge bending 1/2 k (theta - theta0)^2, k = D 3|e|^2 / A",
    .kind = WEFT_ELEM_HINGE,
    .nv = 4,
    .init = db_init,
    .energy = db_energy,
    .gradient = db_gradient,
    .constraint = db_constraint,
};
