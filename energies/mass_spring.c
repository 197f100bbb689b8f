/* mass_spring.c — mass-spring stretch on mesh edges, the implicit twin of the PBD
 * distance constraint (Müller 2006 eqs. 10–11):
 *   C(x0, x1) = |x0 − x1| − ℓ0,   Ψ = ½ k C²,   ∂Ψ/∂x0 = k C d̂ = −∂Ψ/∂x1,  d̂ = (x0 − x1)/|x0 − x1|,
 *   k = Y (A_1 + A_2) / ℓ0²  (N/m),
 * Y the membrane stiffness (N/m), A_1, A_2 the rest areas of the edge's triangles (one on
 * the boundary); weft_energy_params gives edges a third of that area, hence a factor 3.
 * What this network models (Y and ν = 1/3 on an equilateral mesh, other grids):
 * papers/calibration.md.
 *
 * Hessian (Ψ depends on d = x0 − x1 only; Choi & Ko 2002's spring Jacobian):
 *   ∂²Ψ/∂x² = [[K, −K], [−K, K]],   K = k d̂d̂ᵀ + k (1 − ℓ0/ℓ)(I − d̂d̂ᵀ),  ℓ = |d|.
 * Its PSD projection (ANALYTIC) is exact: K with the transverse factor clamped,
 * max(0, 1 − ℓ0/ℓ); it differs from the exact Hessian only for a compressed spring.
 * Coincident ends (ℓ = 0, or ℓ0/ℓ overflowing): K = k I (the second derivative along every
 * ray) with zero gradient. Why these choices and the earlier, three times softer weight:
 * papers/calibration.md ("Implementation notes: energies/mass_spring.c").
 * Element data: rest[0] = ℓ0 (m). */
#include "fem.h"
#include "weft_vec.h"

#include <string.h>

static void ms_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l0 = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    e->rest[0] = l0;
    e->k = l0 > 0.0 ? p->stiffness * 3.0 * p->area / (l0 * l0) : 0.0; /* Y (A_1 + A_2)/ℓ0² */
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

/* The compliant projection (weft_energy.h) in closed form: |∇C|² = 1 at each end, so
 * Σ w |∇C|² = w0 + w1, and with s = Δλ/ℓ (one division) p0 += w0 s d, p1 −= w1 s d,
 * d = p0 − p1. Coincident ends have no gradient: λ alone moves, as in the generic step.
 * Without `with_lambda`, λ = 0 and the term α̃λ (+0) is not subtracted: the same bits. */
static inline double ms_step(const int v[2], double rest, const double *w, double at,
                             double lambda, bool with_lambda, double *p) {
    double *p0 = &p[3 * v[0]], *p1 = &p[3 * v[1]];
    const double w0 = w[v[0]], w1 = w[v[1]];
    double d[3] = {p0[0] - p1[0], p0[1] - p1[1], p0[2] - p1[2]};
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double r = -(l - rest); /* −C − α̃ λ */
    if (with_lambda) r -= at * lambda;
    if (!(l > 0.0)) return at > 0.0 ? r / at : 0.0;
    double denom = w0 + w1 + at;
    if (!(denom > 0.0)) return 0.0;
    double s = r / (denom * l), s0 = w0 * s, s1 = w1 * s;
    double d0[3] = {s0 * d[0], s0 * d[1], s0 * d[2]}, d1[3] = {s1 * d[0], s1 * d[1], s1 * d[2]};
    for (int k = 0; k < 3; k++) p0[k] += d0[k]; /* one end at a time: no aliasing test */
    for (int k = 0; k < 3; k++) p1[k] -= d1[k];
    return s * l;
}

static double ms_compliant_step(const weft_element *e, const double *w, double at,
                                double lambda, double *p) {
    return ms_step(e->v, e->rest[0], w, at, lambda, true, p);
}

/* A spring packed for ms_compliant_steps: what its step reads, 24 bytes (weft_element:
 * 152). */
typedef struct ms_packed {
    int v[2];
    double rest, alpha; /* ℓ0 (m), compliance (m/N) */
} ms_packed;

/* weft_energy.h's compliant_pack. */
static void ms_compliant_pack(const weft_element *e, double alpha, void *rec) {
    *(ms_packed *)rec = (ms_packed){{e->v[0], e->v[1]}, e->rest[0], alpha};
}

/* ms_compliant_step on the packed springs r[0 .. n − 1] in turn (weft_energy.h's
 * compliant_steps, `lanes` not taken): one loop with the step inlined, no call per spring,
 * 24 bytes read a spring; a loop of its own without λ. */
WEFT_AVX2_CLONE static void ms_compliant_steps(const void *rec, int n, bool lanes, double ih2,
                                               const double *w, double *lambda, double *p) {
    (void)lanes; /* a spring's few operations do not pay for the lanes' gather and scatter */
    const ms_packed *r = rec;
    if (!lambda) {
        for (int j = 0; j < n; j++) ms_step(r[j].v, r[j].rest, w, r[j].alpha * ih2, 0.0, false, p);
        return;
    }
    for (int j = 0; j < n; j++)
        lambda[j] += ms_step(r[j].v, r[j].rest, w, r[j].alpha * ih2, lambda[j], true, p);
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

/* The 6×6 matrix [[K, −K], [−K, K]], K = t I + (k − t) d̂d̂ᵀ: stiffness k along the spring
 * and t (N/m) across it, the transverse part clamped at 0 in ANALYTIC mode and the whole
 * matrix by weft_psd_clamp in CLAMP mode; K = k I at coincident ends (the top of the file). */
static void ms_matrix(const weft_element *e, const double *xe, double t, weft_hessian_mode mode,
                      double *H) {
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double r = e->rest[0] / l; /* ℓ0/ℓ; +inf or NaN when ℓ = 0 */
    double dh[3] = {0.0, 0.0, 0.0};
    if (l > 0.0 && isfinite(r)) {
        for (int k = 0; k < 3; k++) dh[k] = d[k] / l;
        if (mode == WEFT_HESSIAN_ANALYTIC && t < 0.0) t = 0.0;
    } else {
        t = e->k; /* coincident ends: K = k I */
    }
    memset(H, 0, 36 * sizeof *H);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double K = (e->k - t) * dh[i] * dh[j] + (i == j ? t : 0.0);
            H[6 * i + j] = H[6 * (i + 3) + j + 3] = K;
            H[6 * i + j + 3] = H[6 * (i + 3) + j] = -K;
        }
    if (mode == WEFT_HESSIAN_CLAMP) weft_psd_clamp(H, 6);
}

static double ms_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                         double *g, double *H) {
    double gl[6];
    double psi = ms_gradient(e, xe, g ? g : gl);
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    ms_matrix(e, xe, e->k * (1.0 - e->rest[0] / l), mode, H); /* t = k C/ℓ */
    return psi;
}

/* Vertex v's gradient and diagonal block of ms_hessian's: ±k C d̂ and K (both diagonal
 * blocks are K), the same operations as ms_gradient and ms_matrix on 3 entries of 6 and 9 of 36;
 * CLAMP projects the 6×6 as a whole, so that mode takes the full matrix's block. */
static double ms_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                int v, double *g, double *H) {
    if (mode == WEFT_HESSIAN_CLAMP) {
        double gf[6], Hf[36];
        double psi = ms_hessian(e, xe, mode, gf, Hf);
        for (int i = 0; i < 3; i++) {
            g[i] = gf[3 * v + i];
            for (int j = 0; j < 3; j++) H[3 * i + j] = Hf[6 * (3 * v + i) + 3 * v + j];
        }
        return psi;
    }
    /* ms_gradient's ℓ, C and vertex v's ±k C d/ℓ, ℓ computed once for both parts */
    double d[3] = {xe[0] - xe[3], xe[1] - xe[4], xe[2] - xe[5]};
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double C = l - e->rest[0], il = l > 0.0 ? 1.0 / l : 0.0;
    for (int k = 0; k < 3; k++) g[k] = (v == 0 ? d[k] * il : -d[k] * il) * (e->k * C);
    double psi = 0.5 * e->k * C * C;
    double t = e->k * (1.0 - e->rest[0] / l), r = e->rest[0] / l;
    double dh[3] = {0.0, 0.0, 0.0};
    if (l > 0.0 && isfinite(r)) {
        for (int k = 0; k < 3; k++) dh[k] = d[k] / l;
        if (mode == WEFT_HESSIAN_ANALYTIC && t < 0.0) t = 0.0;
    } else {
        t = e->k;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) H[3 * i + j] = (e->k - t) * dh[i] * dh[j] + (i == j ? t : 0.0);
    return psi;
}

/* Projective form (Liu, Bargteil, O'Brien & Kavan 2013 §4): w = k, A x = x0 − x1, C the
 * sphere |p| = ℓ0, so ½ k ‖A x − P(A x)‖² = ½ k (|x0 − x1| − ℓ0)², this energy exactly. */
static double ms_pd_form(const weft_element *e, double *A) {
    A[0] = 1.0, A[1] = -1.0;
    return e->k;
}

/* p = ℓ0 y/|y| (0 at coincident ends, where every point of the sphere is as close). */
static void ms_pd_project(const weft_element *e, const double *y, double *p) {
    weft_sphere_project3(e->rest[0], y, p);
}

/* C's radius ℓ0 (project is the sphere's projection). */
static double ms_pd_radius(const weft_element *e) { return e->rest[0]; }

static const weft_projective ms_projective = {1, ms_pd_form, ms_pd_project, ms_pd_radius};

const weft_energy_type weft_mass_spring = {
    .name = "mass_spring",
    .paper = "Mueller 2006 eqs. 10-11 (distance constraint as spring energy)",
    .summary = "edge springs 1/2 k (|x0-x1| - l0)^2, k = Y (A1 + A2) / l0^2: modulus Y "
               "(nu = 1/3) on equilateral meshes, Y along the axes of a regular grid",
    .kind = WEFT_ELEM_EDGE,
    .nv = 2,
    .init = ms_init,
    .energy = ms_energy,
    .gradient = ms_gradient,
    .hessian = ms_hessian,
    .vertex_hessian = ms_vertex_hessian,
    .analytic_psd = true,
    .constraint = ms_constraint,
    .compliant_step = ms_compliant_step,
    .compliant_size = sizeof(ms_packed),
    .compliant_pack = ms_compliant_pack,
    .compliant_steps = ms_compliant_steps,
    .projective = &ms_projective,
    .default_for = WEFT_DEFAULT_MEMBRANE,
};
