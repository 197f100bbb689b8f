/* contact.c — the contact toolkit every solver and the collision pipeline share: a vertex
 * against one collider (plane, sphere, box, …) through the type's hooks only (distance,
 * segment_entry), so a new shape needs nothing here. papers/contact.md has the whole.
 *
 * A collider translating with velocity u is met where it stands: a point p at time t is
 * seen in the collider's frame as p − u t.
 *
 * Gap and projection: g(p) = d(p − u t) − δ, d the signed distance, δ the contact margin;
 * the projection moves p along the outward normal n̂ there, p ← p − g n̂.
 *
 * Swept entry: the straight path x₀ (at t₀) → x₁ (at t₁), seen in the collider's frame,
 * enters the collider grown by δ at parameter s; its entry point q (world frame, where the
 * collider stands at t₁) and the normal there define the tangent plane (q, n̂), whose outside
 * lies outside a convex collider.
 *
 * Velocity response (Bridson, Fedkiw & Anderson 2002 §7.2; Müller et al. 2007 Algorithm 1
 * line 16), on the velocity relative to the collider: with v − u = v_n n̂ + v_t,
 *     v ← u + v_n' n̂ + max(0, 1 − μ Δv_n / |v_t|) v_t,
 * v_n' what non-penetration and restitution ask of the normal velocity and Δv_n ≥ 0 the
 * contact's normal velocity change, which bounds what Coulomb friction takes (μ Δv_n).
 * Restitution: a contact approached at v_n⁻ < 0 leaves at least at −e v_n⁻.
 * u is the collider's surface velocity at the contact point: its translation plus, for a
 * shape spinning in place (a sphere's angular_velocity ω), ω × (p − c), which is
 * tangential, so the normal parts stay those of the translation. */
#include "collider_internal.h"

#include <math.h>

double weft_contact_normal_velocity(const double v[3], const double n[3], const double *u) {
    double s = 0.0;
    for (int k = 0; k < 3; k++) s += (u ? v[k] - u[k] : v[k]) * n[k];
    return s;
}

void weft_contact_response(double v[3], const double n[3], const double *u, double vn_new,
                           double dvn, double mu) {
    double w[3]; /* velocity relative to the collider */
    for (int k = 0; k < 3; k++) w[k] = u ? v[k] - u[k] : v[k];
    double vn = w[0] * n[0] + w[1] * n[1] + w[2] * n[2];
    double vt[3] = {w[0] - vn * n[0], w[1] - vn * n[1], w[2] - vn * n[2]};
    double vt_len = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
    double scale = vt_len > 0.0 ? fmax(0.0, 1.0 - mu * dvn / vt_len) : 0.0;
    for (int k = 0; k < 3; k++) {
        double r = vn_new * n[k] + scale * vt[k];
        v[k] = u ? r + u[k] : r;
    }
}

double weft_contact_gap(const weft_collider *c, const double p[3], double t, double margin,
                        double n[3]) {
    return weft_collider_distance_at(c, p, t, n) - margin;
}

double weft_contact_project(const weft_collider *c, double t, double margin, bool always,
                            double p[3], double n[3]) {
    double own[3], *nn = n ? n : own;
    double g = weft_contact_gap(c, p, t, margin, nn);
    if (always || g < 0.0) weft_collider_project_at(c, p, t, margin, nn); /* the type's hook */
    return g;
}

bool weft_contact_swept_entry(const weft_collider *c, const double x0[3], double t0,
                              const double x1[3], double t1, double margin, double q[3],
                              double n[3]) {
    if (!(weft_contact_gap(c, x0, t0, margin, NULL) >= 0.0)) return false; /* starts inside */
    const bool moving = weft_collider_moving(c);
    const double *u = c->velocity;
    double a0[3], a1[3], s; /* the path in the collider's frame (itself when static) */
    for (int k = 0; k < 3; k++) {
        a0[k] = moving ? x0[k] - u[k] * t0 : x0[k];
        a1[k] = moving ? x1[k] - u[k] * t1 : x1[k];
    }
    if (!weft_collider_segment_entry(c, a0, a1, margin, &s, n)) return false;
    for (int k = 0; k < 3; k++) q[k] = a0[k] + s * (a1[k] - a0[k]) + (moving ? u[k] * t1 : 0.0);
    return true;
}

double weft_contact_path_approach(const weft_collider *c, const double x0[3], double t0,
                                  const double x1[3], double t1, const double n[3]) {
    const bool moving = weft_collider_moving(c);
    const double *u = c->velocity;
    double s = 0.0;
    for (int k = 0; k < 3; k++) {
        double a0 = moving ? x0[k] - u[k] * t0 : x0[k], a1 = moving ? x1[k] - u[k] * t1 : x1[k];
        s += (a1 - a0) * n[k];
    }
    return s;
}

void weft_contact_velocity_update(const weft_collider *c, const double p[3], double t,
                                  double v[3], const double n[3], double vn_before) {
    double us[3];
    const double *u = weft_collider_surface_velocity(c, p, t, us) ? us : NULL, e = c->restitution;
    double vn = weft_contact_normal_velocity(v, n, u), vn_new = vn;
    if (vn_before < 0.0 && vn < -e * vn_before) vn_new = -e * vn_before;
    weft_contact_response(v, n, u, vn_new, fabs(vn_new - vn_before), c->friction);
}

void weft_contact_friction(const weft_collider *c, const double p[3], double t, double v[3],
                           const double n[3], double dvn) {
    double us[3];
    const double *u = weft_collider_surface_velocity(c, p, t, us) ? us : NULL;
    weft_contact_response(v, n, u, weft_contact_normal_velocity(v, n, u), dvn, c->friction);
}
