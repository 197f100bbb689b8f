/* ipc_friction.c — the lagged, smoothed Coulomb friction of Incremental Potential Contact
 * (Li et al. 2020, ACM TOG 39(4), §5), as pure functions with exact derivatives.
 *
 * Smoothed friction (Li 2020 §5.1, eq. 14–15): over a step of length h a contact slides by
 * the tangential displacement u = Tᵀ(x − xⁿ) ∈ ℝ² (m, y = |u|); the friction force is
 * −μλ f₁(y) T û, its magnitude μλ once y ≥ εᵥh (kinetic), smoothly less below (static):
 *   f₁(y) = 2y/εᵥh − y²/εᵥh²  (y < εᵥh),  1 beyond;   f₁′ = 2/εᵥh − 2y/εᵥh²  (≥ 0, 0 at εᵥh)
 *   f₀(y) = −y³/(3εᵥh²) + y²/εᵥh + εᵥh/3  (y < εᵥh),  y beyond;   f₀′ = f₁
 * Lagging (§5.2): T and the normal force λ are frozen at the lagged positions xˡ (the step's
 * start, then each lagging iteration's result), so the friction is the potential
 *   D(x) = μλ f₀(|Tᵀ(x − xⁿ)|),   ∇D = μλ f₁(y)/y T u,
 *   ∇²D = μλ T [f₁′(y) ûûᵀ + f₁(y)/y (I₂ − ûûᵀ)] Tᵀ,
 * exact for the lagged D (f₁/y → 2/εᵥh = f₁′(0) as y → 0, so it is finite there). The 2×2
 * middle matrix has eigenvalues f₁′ (along û) and f₁/y (across): the paper's f₂ term
 * (f₁′y − f₁)/y³ ûûᵀ y² is negative, but added to f₁/y I it leaves f₁′ ≥ 0, so the Hessian
 * is PSD as it stands; with project, f₁′ is clamped at 0 all the same (rounding).
 * Tangent operator T = Γᵀ P: Γ = w ⊗ I₃ takes the pair's four points to the relative
 * position of its closest points (weights w: 1 and −1 for point–point, the segment's
 * parameter for point–edge, the barycentric coordinates of the projection for
 * point–triangle, the two lines' parameters for edge–edge), P (3×2) an orthonormal basis
 * of the plane perpendicular to that relative position.
 * Normal force (§5.2): λ = −∂b/∂d at xˡ; in squared distances, −2√s b′(s).
 * A point against an analytic collider: P spans the collider's tangent plane at the
 * closest point, and the collider's surface velocity there (translation plus rotation) is
 * subtracted, u = Pᵀ(x − xⁿ − uₛh). A pair against a triangle-mesh obstacle: the same pair
 * term with the obstacle's corners constants (their rows of T zero), their motion over the
 * step (at xⁿ where they were at t_n, at the lag where they are at t_{n+1}) in the offset.
 */
#include "ipc.h"

#include <math.h>
#include <string.h>

static double dot(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross(const double *a, const double *b, double *c) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}
static void unit(double *a) {
    double l = sqrt(dot(a, a));
    if (l > 0)
        for (int i = 0; i < 3; i++) a[i] /= l;
}

double weft_ipc_friction_f1(double y, double eps_vh, double *df1) {
    if (y >= eps_vh) {
        if (df1) *df1 = 0;
        return 1;
    }
    double r = y / eps_vh;
    if (df1) *df1 = (2 - 2 * r) / eps_vh;
    return (2 - r) * r;
}

double weft_ipc_friction_f0(double y, double eps_vh) {
    if (y >= eps_vh) return y;
    return -y * y * y / (3 * eps_vh * eps_vh) + y * y / eps_vh + eps_vh / 3;
}

/* The 2×2 system [a b; b c] z = (r0, r1), by Cramer's rule (0 for a singular one). */
static void solve2(double a, double b, double c, double r0, double r1, double *z0, double *z1) {
    double det = a * c - b * b;
    *z0 = det != 0 ? (c * r0 - b * r1) / det : 0;
    *z1 = det != 0 ? (a * r1 - b * r0) / det : 0;
}

void weft_ipc_closest_weights(const double x[12], weft_ipc_dist t, double w[4]) {
    memset(w, 0, 4 * sizeof *w);
    const double *a = x, *b = x + 3, *c = x + 6, *d = x + 9;
    double u[3], v[3], r[3];
    switch (t.type) {
    case WEFT_IPC_PP:
        w[t.i] = 1, w[t.j] = -1;
        return;
    case WEFT_IPC_PE: {
        const double *p = x + 3 * t.i, *e0 = x + 3 * t.j, *e1 = x + 3 * t.k;
        for (int m = 0; m < 3; m++) u[m] = e1[m] - e0[m], r[m] = p[m] - e0[m];
        double al = dot(r, u) / dot(u, u);
        w[t.i] = 1, w[t.j] = -(1 - al), w[t.k] = -al;
        return;
    }
    case WEFT_IPC_PT: { /* p − ((1 − β₁ − β₂) t0 + β₁ t1 + β₂ t2) */
        for (int m = 0; m < 3; m++) u[m] = c[m] - b[m];
        for (int m = 0; m < 3; m++) v[m] = d[m] - b[m], r[m] = a[m] - b[m];
        double b1, b2;
        solve2(dot(u, u), dot(u, v), dot(v, v), dot(r, u), dot(r, v), &b1, &b2);
        w[0] = 1, w[1] = -(1 - b1 - b2), w[2] = -b1, w[3] = -b2;
        return;
    }
    case WEFT_IPC_EE: { /* (a0 + α ua) − (b0 + β ub), closest points of the lines */
        for (int m = 0; m < 3; m++) u[m] = b[m] - a[m], v[m] = d[m] - c[m], r[m] = a[m] - c[m];
        double al, be;
        solve2(dot(u, u), -dot(u, v), dot(v, v), -dot(r, u), dot(r, v), &al, &be);
        w[0] = 1 - al, w[1] = al, w[2] = -(1 - be), w[3] = -be;
        return;
    }
    }
}

void weft_ipc_plane_basis(const double n[3], double P[6]) {
    /* The coordinate axis least aligned with n, crossed with n: never parallel to it. */
    int k = fabs(n[0]) <= fabs(n[1]) ? (fabs(n[0]) <= fabs(n[2]) ? 0 : 2)
                                     : (fabs(n[1]) <= fabs(n[2]) ? 1 : 2);
    double e[3] = {0, 0, 0}, a[3], b[3];
    e[k] = 1;
    cross(n, e, a);
    unit(a);
    cross(n, a, b);
    unit(b);
    for (int m = 0; m < 3; m++) P[2 * m] = a[m], P[2 * m + 1] = b[m];
}

/* P from a first tangent a (unit after normalising) and a normal-ish vector q: (a, q̂ × a). */
static void basis_from(double *a, const double *q, double P[6]) {
    double b[3];
    unit(a);
    cross(q, a, b);
    unit(b);
    for (int m = 0; m < 3; m++) P[2 * m] = a[m], P[2 * m + 1] = b[m];
}

void weft_ipc_tangent_basis(const double x[12], weft_ipc_dist t, double P[6]) {
    double u[3], v[3], q[3];
    switch (t.type) {
    case WEFT_IPC_PP:
        for (int m = 0; m < 3; m++) q[m] = x[3 * t.i + m] - x[3 * t.j + m];
        weft_ipc_plane_basis(q, P);
        return;
    case WEFT_IPC_PE: /* along the edge, and across it within the tangent plane */
        for (int m = 0; m < 3; m++)
            u[m] = x[3 * t.k + m] - x[3 * t.j + m], v[m] = x[3 * t.i + m] - x[3 * t.j + m];
        cross(u, v, q); /* perpendicular to the plane of point and edge, so to the normal */
        unit(u);
        unit(q);
        for (int m = 0; m < 3; m++) P[2 * m] = u[m], P[2 * m + 1] = q[m];
        return;
    case WEFT_IPC_PT:
    case WEFT_IPC_EE: {
        int o = t.type == WEFT_IPC_PT ? 3 : 0;
        for (int m = 0; m < 3; m++)
            u[m] = x[o + 3 + m] - x[o + m],
            v[m] = t.type == WEFT_IPC_PT ? x[9 + m] - x[3 + m] : x[9 + m] - x[6 + m];
        cross(u, v, q); /* the normal: of the triangle, or of both lines */
        basis_from(u, q, P);
        return;
    }
    }
}

double weft_ipc_normal_force(double s, const weft_ipc_params *p) {
    double db;
    weft_ipc_barrier(s, p, &db, NULL);
    return db < 0 ? -2 * sqrt(s) * db : 0;
}

void weft_ipc_friction_pair(const double x_lag[12], const double x_prev[12], weft_ipc_dist t,
                            const weft_ipc_params *p, double mu, double weight,
                            weft_ipc_friction *f) {
    double w[4], P[6];
    weft_ipc_closest_weights(x_lag, t, w);
    weft_ipc_tangent_basis(x_lag, t, P);
    memset(f, 0, sizeof *f);
    f->n = 12;
    for (int a = 0; a < 12; a++)
        for (int c = 0; c < 2; c++) {
            f->T[2 * a + c] = w[a / 3] * P[2 * (a % 3) + c];
            f->c[c] -= f->T[2 * a + c] * x_prev[a];
        }
    f->mu_lambda = mu * weight * weft_ipc_normal_force(weft_ipc_d2(x_lag, t, NULL, NULL), p);
}

void weft_ipc_friction_obstacle(const double x_lag[12], const double x_prev[12],
                                weft_ipc_dist t, const weft_ipc_params *p, double mu,
                                double weight, unsigned fixed, weft_ipc_friction *f) {
    weft_ipc_friction_pair(x_lag, x_prev, t, p, mu, weight, f);
    for (int a = 0; a < 12; a++) /* an obstacle's slot: at x_lag all step long, a constant */
        if (fixed >> (a / 3) & 1u)
            for (int c = 0; c < 2; c++) f->c[c] += f->T[2 * a + c] * x_lag[a], f->T[2 * a + c] = 0;
}

void weft_ipc_friction_point(const double n[3], const double x_prev[3], const double *us, double h,
                             double lambda, double mu, weft_ipc_friction *f) {
    memset(f, 0, sizeof *f);
    f->n = 3;
    weft_ipc_plane_basis(n, f->T);
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 2; c++) f->c[c] -= f->T[2 * a + c] * (x_prev[a] + (us ? us[a] * h : 0));
    f->mu_lambda = mu * lambda;
}

double weft_ipc_friction_energy(const weft_ipc_friction *f, const double *x, double eps_vh,
                                bool project, double *g, double *H) {
    const int n = f->n;
    double u[2] = {f->c[0], f->c[1]};
    for (int a = 0; a < n; a++) u[0] += f->T[2 * a] * x[a], u[1] += f->T[2 * a + 1] * x[a];
    double y = hypot(u[0], u[1]), df1;
    weft_ipc_friction_f1(y, eps_vh, &df1);
    /* f₁(y)/y, finite at y = 0 (its limit 2/εᵥh) */
    double f1y = y < eps_vh ? (2 - y / eps_vh) / eps_vh : 1 / y;
    if (g)
        for (int a = 0; a < n; a++)
            g[a] = f->mu_lambda * f1y * (f->T[2 * a] * u[0] + f->T[2 * a + 1] * u[1]);
    if (H) {
        if (project && df1 < 0) df1 = 0;
        double M[4] = {f1y, 0, 0, f1y};
        if (y > 0)
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) M[2 * i + j] += (df1 - f1y) * u[i] * u[j] / (y * y);
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                const double *ta = f->T + 2 * a, *tb = f->T + 2 * b;
                H[a * n + b] = f->mu_lambda * (ta[0] * (M[0] * tb[0] + M[1] * tb[1]) +
                                               ta[1] * (M[2] * tb[0] + M[3] * tb[1]));
            }
    }
    return f->mu_lambda * weft_ipc_friction_f0(y, eps_vh);
}
