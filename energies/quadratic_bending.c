/* quadratic_bending.c — the isometric bending model of Bergou, Wardetzky, Harmon, Zorin
 * & Grinspun 2006, "A quadratic bending model for inextensible surfaces" (§3–4): on each
 * interior edge (hinge: edge p0 p1, opposite p2 in triangle A, p3 in triangle B)
 *   v = Σ_i K_i p_i   (a 3-vector, m),   Ψ = ½ k |v|²  =  ½ xᵀ (Q_e ⊗ I₃) x,  Q_e = k K Kᵀ,
 * with the cotangent weights of the REST diamond (α_jX the rest angle at p_j in triangle X)
 *   K = (cot α1A + cot α1B,  cot α0A + cot α0B,  −cot α0A − cot α1A,  −cot α0B − cot α1B),
 * computed once, so the Hessian is constant (what Projective Dynamics puts straight into
 * its global matrix). Σ K_i = 0 and Σ K_i p_i = 0 on a planar diamond: Ψ measures bending
 * only, and is invariant under rigid motions.
 *
 * Calibration (papers/calibration.md §2): k = D / (A_A + A_B) (N/m; D the bending
 * stiffness, N·m), so that Ψ = ½ D L² θ² / Ā near flat, the calibrated dihedral_bending to
 * leading order. The paper's 3/Ā K Kᵀ is Grinspun's weight, three times this.
 *
 * Curved rest states (|v̄| = r0 > 0): Ψ = ½ k (|v| − r0)², Bouaziz et al. 2014 §5's element;
 * a diamond counts as flat when r0 ≤ 1e-10 Σ|K_i||p̄_i − p̄_0|. Then the Hessian is
 *   K Kᵀ ⊗ S,   S = k [v̂v̂ᵀ + (1 − r0/|v|)(I − v̂v̂ᵀ)],
 * projected (ANALYTIC, = CLAMP) by clamping the transverse factor at 0; at v = 0, S = k I.
 * Native constraint (XPBD): C = |v| − r0, ∇_i C = K_i v̂ (0 at v = 0).
 * More on the calibration and the curved form: papers/bergou2006-quadratic-bending.md
 * ("Implementation notes: energies/quadratic_bending.c").
 * Element data: v = (p0, p1, p2, p3) of the hinge, rest[0..3] = K (dimensionless),
 * rest[4] = r0 (m), k (N/m). A degenerate rest triangle gives k = 0 (no energy). */
#include "fem.h"
#include "weft_vec.h"

#include <math.h>
#include <string.h>

/* cot of the angle at o between o→a and o→b, and |(a − o) × (b − o)| in *twice_area. */
static double cot_at(const double *o, const double *a, const double *b, double *twice_area) {
    double u[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
    double w[3] = {b[0] - o[0], b[1] - o[1], b[2] - o[2]};
    double c[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    double s = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    *twice_area = s;
    return (u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) / s;
}

/* v = Σ_i K_i (p_i − p_0) (= Σ K_i p_i since Σ K_i = 0, with less rounding). */
static void curvature_vector(const weft_element *e, const double *xe, double v[3]) {
    for (int k = 0; k < 3; k++) {
        v[k] = 0.0;
        for (int i = 1; i < 4; i++) v[k] += e->rest[i] * (xe[3 * i + k] - xe[k]);
    }
}

static void qb_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    const double *p0 = xe, *p1 = xe + 3, *p2 = xe + 6, *p3 = xe + 9;
    double sA0, sA1, sB0, sB1;
    double c0A = cot_at(p0, p1, p2, &sA0), c1A = cot_at(p1, p0, p2, &sA1);
    double c0B = cot_at(p0, p1, p3, &sB0), c1B = cot_at(p1, p0, p3, &sB1);
    memset(e->rest, 0, sizeof e->rest);
    e->k = e->k2 = 0.0;
    double L2 = (p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                (p1[2] - p0[2]) * (p1[2] - p0[2]);
    /* Degenerate rest triangle (height ≤ 1e-12 of the edge): no weights, no energy. */
    if (!(sA0 > 1e-12 * L2) || !(sB0 > 1e-12 * L2) || !isfinite(c0A + c1A + c0B + c1B)) return;
    (void)sA1, (void)sB1;
    e->rest[0] = c1A + c1B;
    e->rest[1] = c0A + c0B;
    e->rest[2] = -(c0A + c1A);
    e->rest[3] = -(c0B + c1B);
    e->k = p->stiffness / (0.5 * (sA0 + sB0)); /* D / (A_A + A_B) */
    double v[3], scale = 0.0;
    curvature_vector(e, xe, v);
    for (int i = 1; i < 4; i++) {
        double d[3] = {xe[3 * i] - p0[0], xe[3 * i + 1] - p0[1], xe[3 * i + 2] - p0[2]};
        scale += fabs(e->rest[i]) * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    double r0 = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    e->rest[4] = r0 > 1e-10 * scale ? r0 : 0.0; /* flat up to rounding: exactly quadratic */
}

/* C = |v| − r0 with v̂ in vh (0 at v = 0); |v| in *len. */
static double qb_stretch(const weft_element *e, const double *xe, double vh[3], double *len) {
    double v[3];
    curvature_vector(e, xe, v);
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    double il = l > 0.0 ? 1.0 / l : 0.0;
    for (int k = 0; k < 3; k++) vh[k] = v[k] * il;
    *len = l;
    return l - e->rest[4];
}

static double qb_constraint(const weft_element *e, const double *xe, double *grad) {
    double vh[3], l;
    double C = qb_stretch(e, xe, vh, &l);
    if (grad)
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++) grad[3 * i + k] = e->rest[i] * vh[k];
    return C;
}

static double qb_energy(const weft_element *e, const double *xe) {
    double vh[3], l;
    double C = qb_stretch(e, xe, vh, &l);
    return 0.5 * e->k * C * C;
}

/* g_i = k K_i (|v| − r0) v̂, which is k K_i v exactly when r0 = 0. */
static double qb_gradient(const weft_element *e, const double *xe, double *g) {
    double v[3];
    curvature_vector(e, xe, v);
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), r0 = e->rest[4];
    double f = r0 == 0.0 ? 1.0 : (l > 0.0 ? (l - r0) / l : 0.0); /* force along v per |v| */
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++) g[3 * i + k] = e->k * f * e->rest[i] * v[k];
    double C = l - r0;
    return 0.5 * e->k * C * C;
}

static double qb_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode, double *g,
                         double *H) {
    double gl[12];
    double psi = qb_gradient(e, xe, g ? g : gl);
    double S[9] = {e->k, 0, 0, 0, e->k, 0, 0, 0, e->k}; /* r0 = 0: S = k I, constant */
    double r0 = e->rest[4];
    if (r0 > 0.0) {
        double vh[3], l;
        qb_stretch(e, xe, vh, &l);
        double r = r0 / l;
        if (l > 0.0 && isfinite(r)) { /* else a cone point: S = k I (see the top) */
            double t = e->k * (1.0 - r);
            if (mode == WEFT_HESSIAN_ANALYTIC && t < 0.0) t = 0.0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    S[3 * a + b] = (e->k - t) * vh[a] * vh[b] + (a == b ? t : 0.0);
        }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double kk = e->rest[i] * e->rest[j];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) H[12 * (3 * i + a) + 3 * j + b] = kk * S[3 * a + b];
        }
    if (mode == WEFT_HESSIAN_CLAMP && r0 > 0.0) weft_psd_clamp(H, 12);
    return psi;
}

/* Vertex v's gradient and diagonal block of qb_hessian's: k f K_v v and K_v² S, the same
 * operations on 9 entries of 144; CLAMP of a curved element projects the 12×12 as a whole,
 * so that case takes the full matrix's block. */
static double qb_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                int v, double *g, double *H) {
    double gl[12], Hf[144];
    double r0 = e->rest[4];
    if (mode == WEFT_HESSIAN_CLAMP && r0 > 0.0) {
        double psi = qb_hessian(e, xe, mode, gl, Hf);
        for (int i = 0; i < 3; i++) {
            g[i] = gl[3 * v + i];
            for (int j = 0; j < 3; j++) H[3 * i + j] = Hf[12 * (3 * v + i) + 3 * v + j];
        }
        return psi;
    }
    double psi = qb_gradient(e, xe, gl);
    for (int k = 0; k < 3; k++) g[k] = gl[3 * v + k];
    double S[9] = {e->k, 0, 0, 0, e->k, 0, 0, 0, e->k};
    if (r0 > 0.0) {
        double vh[3], l;
        qb_stretch(e, xe, vh, &l);
        double r = r0 / l;
        if (l > 0.0 && isfinite(r)) {
            double t = e->k * (1.0 - r);
            if (mode == WEFT_HESSIAN_ANALYTIC && t < 0.0) t = 0.0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    S[3 * a + b] = (e->k - t) * vh[a] * vh[b] + (a == b ? t : 0.0);
        }
    }
    double kk = e->rest[v] * e->rest[v];
    for (int k = 0; k < 9; k++) H[k] = kk * S[k];
    return psi;
}

/* Projective form (Bouaziz et al. 2014 §5, bending): w = k, A x = v = Σ K_i x_i, C the
 * sphere |p| = r0 (its centre 0 for a flat rest state: the element then only adds its
 * constant k K Kᵀ to PD's matrix), so ½ k ‖v − P(v)‖² = ½ k (|v| − r0)², this energy. */
static double qb_pd_form(const weft_element *e, double *A) {
    for (int i = 0; i < 4; i++) A[i] = e->rest[i];
    return e->k;
}

static void qb_pd_project(const weft_element *e, const double *y, double *p) {
    weft_sphere_project3(e->rest[4], y, p);
}

/* C's radius r0 (project is the sphere's projection). */
static double qb_pd_radius(const weft_element *e) { return e->rest[4]; }

static const weft_projective qb_projective = {1, qb_pd_form, qb_pd_project, qb_pd_radius};

const weft_energy_type weft_quadratic_bending = {
    .name = "quadratic_bending",
    .paper = "Bergou, Wardetzky, Harmon, Zorin & Grinspun 2006 (isometric bending), "
             "weight calibrated (papers/bergou2006-quadratic-bending.md)",
    .summary = "hinge bending 1/2 k |sum K_i x_i|^2, K rest cotangent weights, k = D / A: "
               "constant Hessian; flexural rigidity D (curved rest: 1/2 k (|v| - |v0|)^2)",
    .kind = WEFT_ELEM_HINGE,
    .nv = 4,
    .init = qb_init,
    .energy = qb_energy,
    .gradient = qb_gradient,
    .hessian = qb_hessian,
    .vertex_hessian = qb_vertex_hessian,
    .analytic_psd = true,
    .constraint = qb_constraint,
    .projective = &qb_projective,
};
