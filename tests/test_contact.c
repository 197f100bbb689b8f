/* test_contact.c — the contact penalties of energies/ (collision_vertex_face.c,
 * collision_edge_edge.c, contact.h) in closed form, and the per-step contact set
 * (contact_term.c) on a folded cloth. The generic derivative checks of both types (FD
 * gradients and Hessians, rest, rigid invariance, projections, degenerate shapes) run in
 * test_energies.c with every registered type. Cases:
 *   vertex_face_closed  a vertex δ below a horizontal triangle: Ψ = k/2 (η + δ)², force
 *                       k (η + δ) n̂ on the vertex, −k (η + δ) β_i n̂ on the corners; two
 *                       Hessian directions in closed form; separated and degenerate
 *                       configurations give exact zeros
 *   edge_edge_closed    two perpendicular edges at distance d < η: Ψ = k/2 (η − d)², forces
 *                       by the closest-point weights; three Hessian directions
 *   parallel_edges      near-parallel and zero-length edges: Ψ = 0 with zero derivatives
 *                       below the threshold, finite values just above it, never NaN
 *   fill_folded         weft_contact_fill on a folded cloth equals a brute-force search
 *                       over all primitive pairs (counts and energy), and in the flat
 *                       layers an independent 2-D count with Ψ = k/2 (η − gap)² each
 *   fill_assembly       the contact terms assemble with weft_assembly (energy, gradient,
 *                       matrix against element sums); a refilled set of another size is
 *                       refused by the old assembly and a fresh one works; refilling
 *                       reuses the arrays and allocates nothing
 *   fill_errors         bad pair indices, stiffness, thickness and positions are errors
 */
#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_broadphase.h"
#include "weft_energies.h"
#include "weft_geometry.h"
#include "weft_sparse.h"

#include <lapacke.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"

static const weft_hessian_mode MODES[3] = {WEFT_HESSIAN_EXACT, WEFT_HESSIAN_ANALYTIC,
                                           WEFT_HESSIAN_CLAMP};

/* vᵀ H v of a 12×12 matrix. */
static double quad12(const double *H, const double *v) {
    double s = 0.0;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) s += v[i] * H[12 * i + j] * v[j];
    return s;
}

/* Frobenius norm of n values. */
static double norm_n(const double *a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

/* Smallest eigenvalue of a symmetric 12×12 matrix (LAPACKE dsyevr). */
static double min_eigenvalue12(const double *A) {
    double a[144], w[12], z[144];
    lapack_int isuppz[24], m = 0;
    memcpy(a, A, sizeof a);
    lapack_int info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'N', 'A', 'U', 12, a, 12, 0.0, 0.0, 0, 0,
                                     0.0, &m, w, z, 12, isuppz);
    CHECK(info == 0 && m == 12);
    return info == 0 ? w[0] : NAN;
}

/* True if any of the n values is not finite. */
static bool any_nonfinite(const double *a, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return true;
    return false;
}

/* out = R v for a row-major 3×3 R. */
static void mat_vec(const double R[9], const double *v, double *out) {
    double r[3];
    for (int i = 0; i < 3; i++) r[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

/* The rotation matrix (row-major) of angle t about the unit axis a (Rodrigues). */
static void rotation(const double *a, double t, double R[9]) {
    double c = cos(t), s = sin(t);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[3 * i + j] = (1.0 - c) * a[i] * a[j] + (i == j ? c : 0.0);
    R[1] -= s * a[2], R[2] += s * a[1];
    R[3] += s * a[2], R[5] -= s * a[0];
    R[6] -= s * a[1], R[7] += s * a[0];
}

/* Every entry of g (12) and H (144) is exactly zero. */
static bool all_zero(const double *g, const double *H) {
    for (int i = 0; i < 12; i++)
        if (g[i] != 0.0) return false;
    for (int i = 0; i < 144; i++)
        if (H[i] != 0.0) return false;
    return true;
}

/* ------------------------------------------------------------------------------ */
/* Closed forms                                                                    */
/* ------------------------------------------------------------------------------ */

static void test_vertex_face_closed(void) {
    /* Triangle t0 = (0, 0, z0), t1 = (L, 0, z0), t2 = (0.3 L, 0.9 L, z0): (t1 − t0) × (t2 − t0)
     * = 0.9 L² ẑ, so n̂ = ẑ. The vertex p = q + z ẑ over the point q = Σ β_i t_i of the plane
     * (barycentric β, inside the face or not: Ψ uses the plane) has (p − t0)·n̂ = z. Built
     * with p on side s (p = q + 3η s ẑ at init, so the element stores s) and deformed to
     * z = −s δ (δ past the plane when δ > 0), d = s z = −δ and
     *   Ψ = k/2 (η − d)² = k/2 (η + δ)².
     * Gradient: d = s (p − t0)·n̂ is affine in p, ∂d/∂p = s n̂. Moving corner t_i by ε n̂
     * lifts the plane over q by ε β_i (the plane's height is affine in the barycentric
     * coordinates), and the change of the normal, perpendicular to n̂ ∥ p − q, enters d
     * only at second order; moving t_i within the plane does not move it. So
     * ∂d/∂t_i = −s β_i n̂ and, with ∇Ψ = −k (η − d) ∇d:
     *   force on p     −∂Ψ/∂p   = k (η + δ) s n̂   (back to its side),
     *   force on t_i   −∂Ψ/∂t_i = −k (η + δ) s β_i n̂ (the reaction, shared by β_i).
     * Hessian: ∂²Ψ/∂p² = k (s n̂)(s n̂)ᵀ = k n̂n̂ᵀ (d affine in p). Turning the triangle by θ
     * about an in-plane unit axis ω through q (p fixed) keeps q on the plane and turns n̂,
     * so d(θ) = s (p − q)·n̂(θ) = d cos θ; the path's acceleration at θ = 0 is in the plane
     * (centripetal, ⟂ ω and n̂), orthogonal to ∇Ψ (∥ n̂ at every vertex). Hence with the
     * velocity v = (0, ω × (t_i − q)):
     *   vᵀ H v = d²Ψ/dθ² = k [(d′)² − (η − d) d″] = k d (η − d)   (d′ = 0, d″ = −d),
     * negative for d < 0: the exact Hessian is indefinite, its projections are not.
     * Tolerances: a few roundings, 1e-12 relative to the force k (η + δ), to k, and to
     * ‖H‖ |v|² for vᵀHv. Lengths are powers of two where Ψ must vanish exactly at d = η.
     */
    const double k = 250.0, eta = 0.0078125, L = 0.25, z0 = 0.25;
    const double bary[2][3] = {{0.5, 0.2, 0.3}, {1.2, -0.5, 0.3}}; /* inside, outside */
    const double deltas[4] = {0.004, 0.01, 0.05, -0.006};          /* −0.006: above, d < η */
    const double s_of[2] = {-1.0, 1.0};
    weft_energy_params prm = {.stiffness = k, .thickness = eta};
    double t[9] = {0, 0, z0, L, 0, z0, 0.3 * L, 0.9 * L, z0};
    for (int bi = 0; bi < 2; bi++)
        for (int si = 0; si < 2; si++)
            for (int di = 0; di < 4; di++) {
                const double *b = bary[bi];
                double s = s_of[si], delta = deltas[di], d = -delta;
                double q[3], xr[12], x[12], g[12], H[144];
                for (int c = 0; c < 3; c++) q[c] = b[0] * t[c] + b[1] * t[3 + c] + b[2] * t[6 + c];
                memcpy(xr + 3, t, sizeof t), memcpy(x + 3, t, sizeof t);
                for (int c = 0; c < 3; c++) xr[c] = x[c] = q[c];
                xr[2] += 3.0 * eta * s;
                x[2] += -s * delta;
                weft_element e = {.v = {0, 1, 2, 3}};
                weft_vertex_face_contact.init(&e, xr, &prm);
                CHECK(e.k == k && e.rest[0] == eta && e.rest[1] == s);
                CHECK_NEAR(weft_vertex_face_distance(&e, x), d, 1e-14);
                double psi = 0.5 * k * (eta + delta) * (eta + delta), F = k * (eta + delta);
                CHECK_NEAR(weft_vertex_face_contact.energy(&e, x), psi, 1e-12 * psi);
                double psih = weft_vertex_face_contact.hessian(&e, x, WEFT_HESSIAN_EXACT, g, H);
                CHECK_NEAR(psih, psi, 1e-12 * psi);
                for (int c = 0; c < 3; c++) {
                    double nz = c == 2 ? 1.0 : 0.0;
                    CHECK_NEAR(-g[c], F * s * nz, 1e-12 * F);
                    for (int i = 0; i < 3; i++)
                        CHECK_NEAR(-g[3 * (i + 1) + c], -F * s * b[i] * nz, 1e-12 * F);
                    for (int j = 0; j < 3; j++) /* H_pp = k n̂n̂ᵀ */
                        CHECK_NEAR(H[12 * c + j], k * nz * (j == 2 ? 1.0 : 0.0), 1e-12 * k);
                }
                /* Turning the face about ω through q. */
                double v[12] = {0}, om[3] = {cos(0.7), sin(0.7), 0.0};
                for (int i = 0; i < 3; i++) {
                    double r[3] = {t[3 * i] - q[0], t[3 * i + 1] - q[1], t[3 * i + 2] - q[2]};
                    cross3(om, r, &v[3 * (i + 1)]);
                }
                double vv = norm_n(v, 12), want = k * d * (eta - d),
                       scale = norm_n(H, 144) * vv * vv;
                CHECK_NEAR(quad12(H, v), want, 1e-12 * scale);
                if (d < 0.0) CHECK(quad12(H, v) < 0.0);
                /* Projections: PSD, and along v no longer negative. */
                for (int m = 1; m < 3; m++) {
                    double Hp[144];
                    weft_vertex_face_contact.hessian(&e, x, MODES[m], NULL, Hp);
                    CHECK(min_eigenvalue12(Hp) >= -1e-12 * norm_n(Hp, 144));
                    CHECK(quad12(Hp, v) >= -1e-12 * scale);
                }
                /* Separated: beyond η on its side, and exactly at η (Ψ is C¹ there). */
                for (int j = 0; j < 2; j++) {
                    x[2] = z0 + s * (j == 0 ? 1.5 * eta : eta); /* exact: d = η for j = 1 */
                    for (int m = 0; m < 3; m++) {
                        CHECK(weft_vertex_face_contact.hessian(&e, x, MODES[m], g, H) == 0.0);
                        CHECK(all_zero(g, H));
                    }
                }
            }
    /* A degenerate triangle (t2 on the line t0 t1) has no normal: Ψ = 0, no NaN; and a
     * vertex exactly in the plane at init counts as side +1. */
    double xr[12] = {0.1, 0.05, z0 + 0.02, 0, 0, z0, L, 0, z0, 0.3 * L, 0.9 * L, z0}, g[12], H[144];
    weft_element e = {.v = {0, 1, 2, 3}};
    weft_vertex_face_contact.init(&e, xr, &prm);
    double x[12];
    memcpy(x, xr, sizeof x);
    x[2] = z0 - 0.001, x[9] = 2.0 * L, x[10] = 0.0;
    for (int m = 0; m < 3; m++) {
        CHECK(weft_vertex_face_contact.hessian(&e, x, MODES[m], g, H) == 0.0);
        CHECK(all_zero(g, H));
    }
    xr[2] = z0;
    weft_vertex_face_contact.init(&e, xr, &prm);
    CHECK(e.rest[1] == 1.0);
}

/* Edge a along R x̂ and edge b along R ŷ, crossing over the origin o at height h along
 * R ẑ: a0 = o − σ La R x̂, a1 = o + (1 − σ) La R x̂, b0 = o + h R ẑ − τ Lb R ŷ,
 * b1 = b0 + Lb R ŷ (x is 12 values). */
static void ee_config(const double R[9], const double *o, double sigma, double tau, double La,
                      double Lb, double h, double *x) {
    const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    double X[3], Y[3], Z[3];
    mat_vec(R, ex, X), mat_vec(R, ey, Y), mat_vec(R, ez, Z);
    for (int c = 0; c < 3; c++) {
        x[c] = o[c] - sigma * La * X[c];
        x[3 + c] = o[c] + (1.0 - sigma) * La * X[c];
        x[6 + c] = o[c] + h * Z[c] - tau * Lb * Y[c];
        x[9 + c] = x[6 + c] + Lb * Y[c];
    }
}

static void test_edge_edge_closed(void) {
    /* Built in a rotated frame (R, origin o) as in ee_config: a × b = La Lb R ẑ, so n̂ = R ẑ
     * and (b0 − a0)·n̂ = h; the lines' closest points are o on a (parameter σ) and o + h n̂
     * on b (parameter τ). The element is made at h = 3η s (side s) and deformed to h,
     * so d = s h and Ψ = k/2 (η − d)².
     * Gradient: with x_a = a0 + σ (a1 − a0) and x_b = b0 + τ (b1 − b0) (σ, τ held fixed),
     * d = s (x_b − x_a)·n̂, since n̂ is normal to both edges. Perturbing the vertices moves
     * x_b − x_a by (1 − τ) δb0 + τ δb1 − (1 − σ) δa0 − σ δa1, and the normal's change,
     * ⟂ n̂ ∥ x_b − x_a, enters only at second order:
     *   ∂d/∂a0 = −s (1 − σ) n̂,  ∂d/∂a1 = −s σ n̂,  ∂d/∂b0 = s (1 − τ) n̂,  ∂d/∂b1 = s τ n̂,
     * and the forces −∂Ψ/∂x = k (η − d) ∂d/∂x push b back to side s with the weights
     * (1 − τ, τ) and a the other way with (1 − σ, σ).
     * Hessian along three motions of edge b (a fixed), velocity v on b0, b1:
     *   translation along n̂: d(ε) = d + s ε, a straight path: vᵀHv = k;
     *   rotation about n̂ through x_b: b stays in its plane and n̂ is unchanged, so Ψ is
     *   constant; the acceleration is in that plane, ⟂ ∇Ψ: vᵀHv = 0;
     *   rotation about R x̂ (a's direction) through x_b: n̂(θ) = R (0, −sin θ, cos θ), so
     *   d(θ) = d cos θ, the acceleration (toward the axis) is ⟂ n̂: vᵀHv = k d (η − d).
     * Tolerances: 1e-12 relative, as for the vertex–face case. */
    const double k = 40.0, eta = 0.02, La = 0.3, Lb = 0.25, sigma = 0.35, tau = 0.6;
    const double o[3] = {0.1, -0.2, 0.05}, axis[3] = {0.48, -0.6, 0.64}; /* unit */
    const double hs[4] = {0.5 * eta, 0.0, -2.0 * eta, 0.99 * eta};
    weft_energy_params prm = {.stiffness = k, .thickness = eta};
    double R[9], n[3], X[3];
    rotation(axis, 1.1, R);
    const double ez[3] = {0, 0, 1}, ex[3] = {1, 0, 0};
    mat_vec(R, ez, n), mat_vec(R, ex, X);
    for (int si = 0; si < 2; si++)
        for (int hi = 0; hi < 4; hi++) {
            double s = si == 0 ? -1.0 : 1.0, h = s * hs[hi], d = s * h;
            double xr[12], x[12], g[12], H[144];
            ee_config(R, o, sigma, tau, La, Lb, 3.0 * eta * s, xr);
            ee_config(R, o, sigma, tau, La, Lb, h, x);
            weft_element e = {.v = {0, 1, 2, 3}};
            weft_edge_edge_contact.init(&e, xr, &prm);
            CHECK(e.k == k && e.rest[0] == eta && e.rest[1] == s);
            CHECK_NEAR(weft_edge_edge_distance(&e, x), d, 1e-14);
            double psi = 0.5 * k * (eta - d) * (eta - d), F = k * (eta - d);
            double psih = weft_edge_edge_contact.hessian(&e, x, WEFT_HESSIAN_EXACT, g, H);
            CHECK_NEAR(weft_edge_edge_contact.energy(&e, x), psi, 1e-12 * psi);
            CHECK_NEAR(psih, psi, 1e-12 * psi);
            const double w[4] = {-(1.0 - sigma), -sigma, 1.0 - tau, tau};
            for (int a = 0; a < 4; a++)
                for (int c = 0; c < 3; c++)
                    CHECK_NEAR(-g[3 * a + c], F * s * w[a] * n[c], 1e-12 * F);
            double xb[3], v[3][12] = {{0}};
            for (int c = 0; c < 3; c++) xb[c] = o[c] + h * n[c];
            for (int a = 2; a < 4; a++) {
                double r[3] = {x[3 * a] - xb[0], x[3 * a + 1] - xb[1], x[3 * a + 2] - xb[2]};
                for (int c = 0; c < 3; c++) v[0][3 * a + c] = n[c];
                cross3(n, r, &v[1][3 * a]);
                cross3(X, r, &v[2][3 * a]);
            }
            const double want[3] = {k, 0.0, k * d * (eta - d)};
            for (int j = 0; j < 3; j++) {
                double vv = norm_n(v[j], 12);
                CHECK_NEAR(quad12(H, v[j]), want[j], 1e-12 * norm_n(H, 144) * vv * vv);
            }
            for (int m = 1; m < 3; m++) {
                double Hp[144];
                weft_edge_edge_contact.hessian(&e, x, MODES[m], NULL, Hp);
                CHECK(min_eigenvalue12(Hp) >= -1e-12 * norm_n(Hp, 144));
            }
            /* Separated on its side: exact zeros in every mode. */
            ee_config(R, o, sigma, tau, La, Lb, s * 1.2 * eta, x);
            for (int m = 0; m < 3; m++) {
                CHECK(weft_edge_edge_contact.hessian(&e, x, MODES[m], g, H) == 0.0);
                CHECK(all_zero(g, H));
            }
        }
}

static void test_parallel_edges(void) {
    /* Made perpendicular (side +1, h = 3η), then b turned towards a's direction by φ at
     * h = η/2. The sine of the angle between the edges is sin φ; at or below 1e-8 the
     * element has no normal (Ψ = 0, zero derivatives); above it the penalty is active
     * with Ψ = k/2 (η/2)², its Hessian large (∝ 1/sin φ) but finite. A zero-length
     * edge b has no normal either. */
    const double k = 40.0, eta = 0.02, L = 0.3;
    weft_energy_params prm = {.stiffness = k, .thickness = eta};
    double xr[12] = {-0.1, 0, 0, 0.2, 0, 0, 0, -0.1, 3 * eta, 0, 0.2, 3 * eta};
    weft_element e = {.v = {0, 1, 2, 3}};
    weft_edge_edge_contact.init(&e, xr, &prm);
    const double phis[6] = {0.0, 1e-12, 1e-9, 0.99e-8, 1e-6, 1e-3};
    for (int i = 0; i < 7; i++) {
        double x[12] = {-0.1, 0, 0, 0.2, 0, 0}, g[12], H[144];
        double phi = i < 6 ? phis[i] : 0.5;
        for (int c = 0; c < 2; c++) {
            double t = c == 0 ? -0.4 : 0.6; /* b0, b1 around the point (0.05, 0) */
            x[6 + 3 * c] = 0.05 + t * L * cos(phi);
            x[7 + 3 * c] = t * L * sin(phi);
            x[8 + 3 * c] = 0.5 * eta;
        }
        if (i == 6) memcpy(x + 9, x + 6, 3 * sizeof *x); /* zero-length b */
        bool none = i == 6 || sin(phi) <= 1e-8;
        for (int m = 0; m < 3; m++) {
            double psi = weft_edge_edge_contact.hessian(&e, x, MODES[m], g, H);
            CHECK(isfinite(psi) && !any_nonfinite(g, 12) && !any_nonfinite(H, 144));
            if (none) {
                CHECK(psi == 0.0 && all_zero(g, H));
            } else {
                /* The direction of a × b is ẑ (φ > 0), so d = h = η/2 whatever φ. */
                CHECK_NEAR(psi, 0.5 * k * 0.25 * eta * eta, 1e-9 * k * eta * eta);
            }
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* The contact set of a folded cloth                                               */
/* ------------------------------------------------------------------------------ */

/* A 1 m × 0.5 m grid of 21 × 11 vertices in the xy plane, turned by 0.3 rad about z (so
 * no edge is parallel to the fold) and folded over the line X = XF with a half-cylinder
 * bend of radius R: points with X ≤ XF stay flat at z = 0 (layer 0), the arc of length πR
 * beyond it bends up, and the rest lies mirrored at z = 2R (layer 1, upside down). The
 * layers are 2R apart. layer[i] is 0, 1, or −1 in the bend. */
#define FOLD_R 0.006
#define FOLD_X 0.41
static double *folded_cloth(weft_mesh *m, int **layer) {
    weft_error err = {{0}};
    weft_grid_desc d = {.width = 1.0,
                        .height = 0.5,
                        .nx = 21,
                        .ny = 11,
                        .diagonals = WEFT_DIAG_ALTERNATING,
                        .plane = WEFT_PLANE_XY};
    int rc = weft_mesh_grid(m, &d, &err);
    CHECK(rc == WEFT_OK);
    if (rc != WEFT_OK) return NULL;
    double *x = malloc(3 * (size_t)m->nv * sizeof *x);
    *layer = malloc((size_t)m->nv * sizeof **layer);
    if (!x || !*layer) return NULL;
    const double al = 0.3, R = FOLD_R, pi = 3.14159265358979323846;
    for (int i = 0; i < m->nv; i++) {
        double u = m->x[3 * i], v = m->x[3 * i + 1];
        double X = cos(al) * u - sin(al) * v, Y = sin(al) * u + cos(al) * v, arc = X - FOLD_X;
        double *p = &x[3 * i];
        p[1] = Y;
        if (arc <= 0.0) {
            p[0] = X, p[2] = 0.0, (*layer)[i] = 0;
        } else if (arc < pi * R) {
            p[0] = FOLD_X + R * sin(arc / R), p[2] = R - R * cos(arc / R), (*layer)[i] = -1;
        } else {
            p[0] = FOLD_X - (arc - pi * R), p[2] = 2.0 * R, (*layer)[i] = 1;
        }
    }
    return x;
}

/* Sign of the 2-D orientation of (a, b, c) in the xy projection. */
static double orient2(const double *a, const double *b, const double *c) {
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Candidate pairs of mesh m at x from a bounding-box hierarchy padded by eta. */
static int candidates(const weft_mesh *m, const double *x, double eta, weft_collision_pairs *cp) {
    weft_error err = {{0}};
    weft_bvh *b = weft_bvh_create(m, x, &err);
    CHECK(b != NULL);
    if (!b) return WEFT_ERR_NOMEM;
    int rc = weft_bvh_refit(b, x, NULL, eta, &err);
    if (rc == WEFT_OK) rc = weft_bvh_pairs(b, b, cp, &err);
    if (rc != WEFT_OK) fprintf(stderr, "broad phase: %s\n", err.msg);
    weft_bvh_free(&b);
    return rc;
}

/* Brute force over every vertex–triangle and edge–edge pair of m at x that shares no
 * vertex: the pairs closer than eta with interior closest points, their count in *nvf
 * and *nee, and Σ k/2 (eta − dist)² (J) as the return value. */
static double brute_force(const weft_mesh *m, const double *x, double k, double eta, int *nvf,
                          int *nee) {
    double E = 0.0, bary[3], s, u;
    *nvf = *nee = 0;
    for (int v = 0; v < m->nv; v++)
        for (int t = 0; t < m->nt; t++) {
            const int *c = &m->tri[3 * t];
            if (v == c[0] || v == c[1] || v == c[2]) continue;
            double dist = weft_point_triangle_closest(&x[3 * v], &x[3 * c[0]], &x[3 * c[1]],
                                                      &x[3 * c[2]], bary, NULL);
            if (dist < eta && bary[0] > 0.0 && bary[1] > 0.0 && bary[2] > 0.0) {
                (*nvf)++;
                E += 0.5 * k * (eta - dist) * (eta - dist);
            }
        }
    for (int a = 0; a < m->ne; a++)
        for (int b = a + 1; b < m->ne; b++) {
            const int *p = &m->edge[2 * a], *q = &m->edge[2 * b];
            if (p[0] == q[0] || p[0] == q[1] || p[1] == q[0] || p[1] == q[1]) continue;
            double dist = weft_edge_edge_closest(&x[3 * p[0]], &x[3 * p[1]], &x[3 * q[0]],
                                                 &x[3 * q[1]], &s, &u, NULL);
            if (dist < eta && s > 0.0 && s < 1.0 && u > 0.0 && u < 1.0) {
                (*nee)++;
                E += 0.5 * k * (eta - dist) * (eta - dist);
            }
        }
    return E;
}

/* Σ Ψ of a term's elements at x (J). */
static double term_energy(const weft_term *t, const double *x) {
    double E = 0.0;
    for (int i = 0; i < t->n; i++) {
        double xe[12];
        for (int a = 0; a < 4; a++)
            for (int c = 0; c < 3; c++) xe[3 * a + c] = x[3 * t->elem[i].v[a] + c];
        E += t->type->energy(&t->elem[i], xe);
    }
    return E;
}

static void test_fill_folded(void) {
    /* k = 100 N/m, η = 2 cm, layers 2R = 1.2 cm apart. A contact between the flat layers
     * has d = 2R, so Ψ = k/2 (η − 2R)² = 3.2e-3 J each. The flat-layer contacts are
     * counted here without lib/collision/geometry.c: a vertex of one layer whose xy projection is
     * strictly inside a triangle of the other layer (all three 2-D orientations of one
     * sign), and pairs of edges of the two layers whose projections cross properly.
     * Contacts in the bend have other distances; the brute force covers all of them.
     * Energies: per element a few roundings of O(1e-2) lengths, 1e-12 relative. */
    const double k = 100.0, eta = 0.02, gap = 2.0 * FOLD_R;
    weft_mesh m = {0};
    int *layer = NULL;
    double *x = folded_cloth(&m, &layer);
    weft_collision_pairs cp = {0};
    weft_contacts c = {0};
    weft_error err = {{0}};
    CHECK(x && layer);
    if (!x || !layer || candidates(&m, x, eta, &cp) != WEFT_OK) goto done;
    int rc = weft_contact_fill(&c, &m, x, &cp, k, eta, &err);
    if (rc != WEFT_OK) fprintf(stderr, "fill: %s\n", err.msg);
    CHECK(rc == WEFT_OK);
    CHECK(c.vertex_face.type == &weft_vertex_face_contact);
    CHECK(c.edge_edge.type == &weft_edge_edge_contact);
    int nvf, nee;
    double Eb = brute_force(&m, x, k, eta, &nvf, &nee);
    double Ef = term_energy(&c.vertex_face, x) + term_energy(&c.edge_edge, x);
    fprintf(stderr,
            "fill_folded: %d vertex-face and %d edge-edge contacts (brute force %d, %d) "
            "of %d, %d candidates; energy %.6g J (brute force %.6g J)\n",
            c.vertex_face.n, c.edge_edge.n, nvf, nee, cp.vt.n, cp.ee.n, Ef, Eb);
    CHECK(c.vertex_face.n == nvf && c.edge_edge.n == nee);
    CHECK_NEAR(Ef, Eb, 1e-12 * Eb);

    /* Flat layers: elements whose vertices all lie in them, against the 2-D counts. */
    const double psi_flat = 0.5 * k * (eta - gap) * (eta - gap);
    int flat_vf = 0, flat_ee = 0, want_vf = 0, want_ee = 0;
    for (int tt = 0; tt < 2; tt++) {
        const weft_term *t = tt == 0 ? &c.vertex_face : &c.edge_edge;
        for (int i = 0; i < t->n; i++) {
            const int *v = t->elem[i].v;
            int first = tt == 0 ? 1 : 2; /* where the second primitive starts */
            bool flat = true, opposite = true;
            for (int a = 0; a < 4; a++) flat = flat && layer[v[a]] >= 0;
            for (int a = 0; a < 4 && flat; a++)
                opposite = opposite && (layer[v[a]] == layer[v[0]]) == (a < first);
            if (!flat) continue;
            CHECK(opposite); /* no contact within one flat layer */
            double xe[12];
            for (int a = 0; a < 4; a++)
                for (int q = 0; q < 3; q++) xe[3 * a + q] = x[3 * v[a] + q];
            CHECK_NEAR(t->type->energy(&t->elem[i], xe), psi_flat, 1e-12 * psi_flat);
            if (tt == 0)
                flat_vf++;
            else
                flat_ee++;
        }
    }
    for (int v = 0; v < m.nv; v++)
        for (int t = 0; t < m.nt; t++) {
            const int *q = &m.tri[3 * t];
            if (layer[v] < 0 || layer[q[0]] != 1 - layer[v] || layer[q[1]] != 1 - layer[v] ||
                layer[q[2]] != 1 - layer[v])
                continue;
            const double *p = &x[3 * v], *a = &x[3 * q[0]], *b = &x[3 * q[1]], *cc = &x[3 * q[2]];
            double o1 = orient2(a, b, p), o2 = orient2(b, cc, p), o3 = orient2(cc, a, p);
            want_vf += (o1 > 0 && o2 > 0 && o3 > 0) || (o1 < 0 && o2 < 0 && o3 < 0);
        }
    for (int ea = 0; ea < m.ne; ea++)
        for (int eb = 0; eb < m.ne; eb++) {
            const int *p = &m.edge[2 * ea], *q = &m.edge[2 * eb];
            if (layer[p[0]] != 0 || layer[p[1]] != 0 || layer[q[0]] != 1 || layer[q[1]] != 1)
                continue;
            const double *a0 = &x[3 * p[0]], *a1 = &x[3 * p[1]];
            const double *b0 = &x[3 * q[0]], *b1 = &x[3 * q[1]];
            want_ee += orient2(a0, a1, b0) * orient2(a0, a1, b1) < 0.0 &&
                       orient2(b0, b1, a0) * orient2(b0, b1, a1) < 0.0;
        }
    fprintf(stderr,
            "fill_folded: flat layers: %d vertex-face, %d edge-edge contacts (2-D "
            "count %d, %d), each %.4g J\n",
            flat_vf, flat_ee, want_vf, want_ee, psi_flat);
    CHECK(flat_vf == want_vf && flat_ee == want_ee);
    CHECK(want_vf > 20 && want_ee > 20);
    /* The bend adds contacts at other distances, so the flat ones are not all. */
    CHECK(c.vertex_face.n + c.edge_edge.n > flat_vf + flat_ee);
done:
    weft_contacts_free(&c);
    weft_collision_pairs_free(&cp);
    weft_mesh_free(&m);
    free(x), free(layer);
}

static void test_fill_assembly(void) {
    /* The model view of a solver: the contact terms appended to a model's terms (here
     * the only terms). weft_assembly_run's E and ∇E must equal weft_model_energy and
     * weft_model_gradient (the same sums: 1e-12 relative), and its matrix times a random
     * v the sum of the element Hessians times v, scattered by hand (1e-12 of |Hv|). */
    const double k = 100.0, eta = 0.02;
    weft_mesh m = {0};
    int *layer = NULL;
    double *x = folded_cloth(&m, &layer);
    weft_collision_pairs cp = {0};
    weft_contacts c = {0};
    weft_error err = {{0}};
    weft_assembly *as = NULL, *as2 = NULL;
    size_t N = 3 * (size_t)m.nv;
    double *g = calloc(N, sizeof *g), *g2 = calloc(N, sizeof *g2), *v = malloc(N * sizeof *v);
    double *y = malloc(N * sizeof *y), *yr = calloc(N, sizeof *yr);
    CHECK(x && layer && g && g2 && v && y && yr);
    if (!x || !layer || !g || !g2 || !v || !y || !yr) goto done;
    if (candidates(&m, x, eta, &cp) != WEFT_OK) goto done;
    CHECK(weft_contact_fill(&c, &m, x, &cp, k, eta, &err) == WEFT_OK);
    weft_model mv = {0};
    mv.n = m.nv;
    mv.nterms = 2;
    mv.terms[0] = c.vertex_face;
    mv.terms[1] = c.edge_edge;
    as = weft_assembly_create(&mv, &err);
    CHECK(as != NULL);
    if (!as) {
        fprintf(stderr, "assembly: %s\n", err.msg);
        goto done;
    }
    double E = weft_assembly_run(as, &mv, x, WEFT_HESSIAN_EXACT, g, 1);
    double Em = weft_model_gradient(&mv, x, g2);
    CHECK(E > 0.0);
    CHECK_NEAR(E, Em, 1e-12 * Em);
    double gs = 0.0;
    for (size_t i = 0; i < N; i++) gs = fmax(gs, fabs(g2[i]));
    for (size_t i = 0; i < N; i++) CHECK_NEAR(g[i], g2[i], 1e-12 * gs);
    lcg r = {4242};
    for (size_t i = 0; i < N; i++) v[i] = rnd_in(&r, -1.0, 1.0);
    weft_bsr *A = weft_assembly_matrix(as);
    weft_bsr_spmv(A, v, y, 1);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < mv.terms[t].n; i++) {
            const weft_element *e = &mv.terms[t].elem[i];
            double xe[12], He[144];
            for (int a = 0; a < 4; a++)
                for (int q = 0; q < 3; q++) xe[3 * a + q] = x[3 * e->v[a] + q];
            mv.terms[t].type->hessian(e, xe, WEFT_HESSIAN_EXACT, NULL, He);
            for (int a = 0; a < 12; a++)
                for (int b = 0; b < 12; b++)
                    yr[3 * e->v[a / 3] + a % 3] += He[12 * a + b] * v[3 * e->v[b / 3] + b % 3];
            /* Every pair of the element's vertices has its block. */
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++) CHECK(weft_bsr_block(A, e->v[a], e->v[b]) >= 0);
        }
    double yn = 0.0, dn = 0.0;
    for (size_t i = 0; i < N; i++) yn += yr[i] * yr[i], dn += (y[i] - yr[i]) * (y[i] - yr[i]);
    CHECK(yn > 0.0 && sqrt(dn) <= 1e-12 * sqrt(yn));
    /* Projected per element, the sum is PSD: vᵀ A v ≥ 0. */
    weft_assembly_run(as, &mv, x, WEFT_HESSIAN_CLAMP, NULL, 1);
    weft_bsr_spmv(A, v, y, 1);
    double vAv = 0.0;
    for (size_t i = 0; i < N; i++) vAv += v[i] * y[i];
    CHECK(vAv >= 0.0);

    /* Refilling with the same input reuses the arrays (no allocation) and gives the
     * same set; filling an empty set allocates (the counter sees weft's calls). */
    weft_element *pvf = c.vertex_face.elem, *pee = c.edge_edge.elem;
    int nvf = c.vertex_face.n, nee = c.edge_edge.n, cvf = c.vertex_face_cap, cee = c.edge_edge_cap;
    weft_contacts fresh = {0};
    allocations = 0;
    CHECK(weft_contact_fill(&fresh, &m, x, &cp, k, eta, &err) == WEFT_OK);
    CHECK(allocations > 0);
    weft_contacts_free(&fresh);
    allocations = 0;
    CHECK(weft_contact_fill(&c, &m, x, &cp, k, eta, &err) == WEFT_OK);
    CHECK(allocations == 0);
    CHECK(c.vertex_face.elem == pvf && c.edge_edge.elem == pee);
    CHECK(c.vertex_face_cap == cvf && c.edge_edge_cap == cee);
    CHECK(c.vertex_face.n == nvf && c.edge_edge.n == nee);

    /* A thinner contact layer, η = 1 cm < 2R, is a new set: only contacts in the bend
     * remain. The old assembly refuses the changed model (another element count), a
     * fresh one assembles it. */
    const double eta2 = 0.01;
    CHECK(candidates(&m, x, eta2, &cp) == WEFT_OK);
    CHECK(weft_contact_fill(&c, &m, x, &cp, k, eta2, &err) == WEFT_OK);
    CHECK(c.vertex_face.n + c.edge_edge.n > 0);
    CHECK(c.vertex_face.n + c.edge_edge.n < nvf + nee);
    mv.terms[0] = c.vertex_face;
    mv.terms[1] = c.edge_edge;
    CHECK(isinf(weft_assembly_run(as, &mv, x, WEFT_HESSIAN_EXACT, g, 1)));
    CHECK(weft_assembly_check(as, &err) == WEFT_ERR_INPUT);
    as2 = weft_assembly_create(&mv, &err);
    CHECK(as2 != NULL);
    if (!as2) goto done;
    memset(g2, 0, N * sizeof *g2);
    E = weft_assembly_run(as2, &mv, x, WEFT_HESSIAN_EXACT, g, 1);
    Em = weft_model_gradient(&mv, x, g2);
    CHECK(weft_assembly_check(as2, &err) == WEFT_OK);
    CHECK_NEAR(E, Em, 1e-12 * Em);
    fprintf(stderr,
            "fill_assembly: eta 2 cm: %d + %d elements, %d blocks; eta 1 cm: %d + %d "
            "elements, %d blocks\n",
            nvf, nee, A->nnzb, c.vertex_face.n, c.edge_edge.n, weft_assembly_matrix(as2)->nnzb);
done:
    weft_assembly_free(&as), weft_assembly_free(&as2);
    weft_contacts_free(&c);
    weft_collision_pairs_free(&cp);
    weft_mesh_free(&m);
    free(x), free(layer), free(g), free(g2), free(v), free(y), free(yr);
}

static void test_fill_errors(void) {
    /* Every error leaves an empty set and says what was wrong. */
    weft_mesh m = {0};
    int *layer = NULL;
    double *x = folded_cloth(&m, &layer);
    weft_collision_pairs cp = {0};
    weft_contacts c = {0};
    weft_error err = {{0}};
    CHECK(x && layer);
    if (!x || !layer || candidates(&m, x, 0.02, &cp) != WEFT_OK) goto done;
    CHECK(weft_contact_fill(&c, &m, x, &cp, 100.0, 0.02, &err) == WEFT_OK);
    CHECK(c.vertex_face.n > 0 && c.edge_edge.n > 0);
    struct {
        double k, eta;
        const char *what;
    } bad[] = {{-1.0, 0.02, "stiffness"},
               {100.0, -0.01, "thickness"},
               {NAN, 0.02, "stiffness"},
               {100.0, INFINITY, "thickness"}};
    for (int i = 0; i < 4; i++) {
        err.msg[0] = '\0';
        CHECK(weft_contact_fill(&c, &m, x, &cp, bad[i].k, bad[i].eta, &err) == WEFT_ERR_INPUT);
        CHECK(strstr(err.msg, bad[i].what) != NULL);
    }
    /* Out-of-range indices in each list. */
    weft_collision_pairs one = {0};
    for (int list = 0; list < 3; list++) {
        weft_collision_pairs_clear(&one);
        weft_pairs *l = list == 0 ? &one.vt : list == 1 ? &one.tv : &one.ee;
        CHECK(weft_pairs_push(l, list == 0 ? m.nv : list == 1 ? m.nt : m.ne, 0) == WEFT_OK);
        CHECK(weft_contact_fill(&c, &m, x, &cp, 100.0, 0.02, &err) == WEFT_OK);
        err.msg[0] = '\0';
        CHECK(weft_contact_fill(&c, &m, x, &one, 100.0, 0.02, &err) == WEFT_ERR_INPUT);
        CHECK(strstr(err.msg, "out of range") != NULL);
        CHECK(c.vertex_face.n == 0 && c.edge_edge.n == 0);
    }
    weft_collision_pairs_free(&one);
    /* A non-finite position met by a pair. */
    int v = cp.vt.pair[0].a;
    x[3 * v] = NAN;
    err.msg[0] = '\0';
    CHECK(weft_contact_fill(&c, &m, x, &cp, 100.0, 0.02, &err) == WEFT_ERR_INPUT);
    CHECK(strstr(err.msg, "non-finite") != NULL);
    CHECK(c.vertex_face.n == 0 && c.edge_edge.n == 0);
done:
    weft_contacts_free(&c);
    weft_collision_pairs_free(&cp);
    weft_mesh_free(&m);
    free(x), free(layer);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"vertex_face_closed", test_vertex_face_closed},
        {"edge_edge_closed", test_edge_edge_closed},
        {"parallel_edges", test_parallel_edges},
        {"fill_folded", test_fill_folded},
        {"fill_assembly", test_fill_assembly},
        {"fill_errors", test_fill_errors},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
