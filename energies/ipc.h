/* ipc.h — the building blocks of Incremental Potential Contact (Li et al. 2020, "Incremental
 * Potential Contact", ACM TOG 39(4); thickness from Li, Kaufman & Jiang 2021, "Codimensional
 * Incremental Potential Contact", ACM TOG 40(4)), as a library: unsigned squared distances
 * between primitives with their distance-type classification (ipc_distance.c), and the
 * barrier, the edge–edge mollifier and the per-pair barrier energy (ipc_barrier.c), the
 * lagged smoothed friction of §5 (ipc_friction.c) and the adaptive barrier stiffness
 * (ipc_stiffness.c). The contact model `[contact] model = ipc` (solvers/ipc_contact.c)
 * uses all three (papers/li2020-ipc.md).
 *
 * Layout: a pair is 12 coordinates (m), four points of 3: point–triangle x = (p, t0, t1, t2),
 * edge–edge x = (a0, a1, b0, b1). Gradients are 12 values, Hessians 144 row-major; a NULL
 * gradient or Hessian pointer is not written. All distances are squared: s = d² (m²).
 * Pair energies are +∞ at d ≤ ξ (their derivatives are then not meaningful): a solver's
 * line search must keep every iterate outside, as IPC's CCD-filtered search does.
 */
#ifndef WEFT_IPC_H
#define WEFT_IPC_H

#include <stdbool.h>

/* The distance types of Li 2020 (§4, Fig. 4). The PP and PE types name the points of the
 * pair they use, by their index 0..3 in the 12-coordinate layout. */
typedef enum weft_ipc_dtype {
    WEFT_IPC_PP,         /* point–point: |x_i − x_j|² */
    WEFT_IPC_PE,         /* point–edge (point–line): x_i to the line through x_j, x_k */
    WEFT_IPC_PT,         /* point–triangle (point–plane): x_0 to the plane of x_1, x_2, x_3 */
    WEFT_IPC_EE,         /* edge–edge (line–line): line x_0 x_1 to line x_2 x_3 */
} weft_ipc_dtype;

/* A classified pair: the type and the points it uses (i, j, k; unused entries −1). */
typedef struct weft_ipc_dist {
    weft_ipc_dtype type;
    int i, j, k;
} weft_ipc_dist;

/* The barrier's parameters: stiffness κ (J/m⁴, since b is written in s = d²), activation
 * distance d̂ (m, > 0) and thickness ξ (m, ≥ 0, C-IPC's offset). */
typedef struct weft_ipc_params {
    double kappa, dhat, xi;
} weft_ipc_params;

/* Squared distance |p − q|² (m²) of two points, gradient (6) and Hessian (6×6). */
double weft_ipc_d2_pp(const double p[3], const double q[3], double g[6], double H[36]);

/* Squared distance (m²) of p from the line through e0, e1 (e0 ≠ e1), gradient (9: p, e0,
 * e1) and Hessian (9×9). */
double weft_ipc_d2_pe(const double p[3], const double e0[3], const double e1[3], double g[9],
                      double H[81]);

/* Squared distance (m²) of p from the plane of t0, t1, t2 (not collinear), gradient (12:
 * p, t0, t1, t2) and Hessian (12×12). */
double weft_ipc_d2_pt(const double p[3], const double t0[3], const double t1[3],
                      const double t2[3], double g[12], double H[144]);

/* Squared distance (m²) of the lines a0 a1 and b0 b1 (not parallel), gradient (12: a0, a1,
 * b0, b1) and Hessian (12×12). */
double weft_ipc_d2_ee(const double a0[3], const double a1[3], const double b0[3],
                      const double b1[3], double g[12], double H[144]);

/* The distance type of the point x[0..2] against the triangle x[3..11]: the feature
 * (vertex, edge or face) that holds the closest point. */
weft_ipc_dist weft_ipc_classify_pt(const double x[12]);

/* The distance type of the segments x[0..5] and x[6..11]: the features holding the
 * closest points (line–line only for non-parallel edges with interior closest points). */
weft_ipc_dist weft_ipc_classify_ee(const double x[12]);

/* Squared distance (m²) of the type t on the 12 coordinates x, with the gradient (12) and
 * Hessian (12×12) over all 12 coordinates (zero rows for points the type does not use). */
double weft_ipc_d2(const double x[12], weft_ipc_dist t, double g[12], double H[144]);

/* The barrier b(s) (J) on s = d² (m²) with b'(s), b''(s) (when db, d2b are not NULL):
 * 0 with zero derivatives for d ≥ ξ + d̂, +∞ for d ≤ ξ (ipc_barrier.c gives the formula). */
double weft_ipc_barrier(double s, const weft_ipc_params *p, double *db, double *d2b);

/* c = |(x1 − x0) × (x3 − x2)|² (m⁴) of the edges of x, gradient (12) and Hessian (12×12). */
double weft_ipc_cross_sq(const double x[12], double g[12], double H[144]);

/* ε_x = 1e-3 |a1 − a0|² |b1 − b0|² (m⁴) of the rest edge pair x_rest (a0, a1, b0, b1). */
double weft_ipc_mollifier_eps(const double x_rest[12]);

/* The edge–edge mollifier e(x) of Li 2020 §4.3 (dimensionless, in [0, 1]) with its
 * gradient (12) and Hessian (12×12), given ε_x (m⁴). */
double weft_ipc_mollifier(const double x[12], double eps_x, double g[12], double H[144]);

/* The barrier energy (J) of the point–triangle pair x (p, t0, t1, t2): b(d²) with the
 * classified type, gradient (12) and Hessian (12×12, PSD-projected when project). */
double weft_ipc_pt_energy(const double x[12], const weft_ipc_params *p, bool project,
                          double g[12], double H[144]);

/* The mollified barrier energy (J) of the edge–edge pair x (a0, a1, b0, b1): e(x) b(d²)
 * with the classified type and ε_x from weft_ipc_mollifier_eps, gradient (12) and Hessian
 * (12×12, PSD-projected when project). */
double weft_ipc_ee_energy(const double x[12], double eps_x, const weft_ipc_params *p,
                          bool project, double g[12], double H[144]);

/* ---- Friction (Li 2020 §5; ipc_friction.c) ------------------------------------------ */

/* The friction mollifier f₁(y) (dimensionless) on a tangential displacement y ≥ 0 (m) with
 * εᵥh = eps_vh (m, > 0): 2y/εᵥh − y²/εᵥh² below εᵥh, 1 beyond; its slope f₁′ (1/m) in df1
 * (may be NULL). C¹ at εᵥh (f₁ = 1, f₁′ = 0 from both sides). */
double weft_ipc_friction_f1(double y, double eps_vh, double *df1);

/* f₀(y) (m), the integral of f₁ with f₀(εᵥh) = εᵥh: −y³/(3εᵥh²) + y²/εᵥh + εᵥh/3 below
 * εᵥh, y beyond, so f₀′ = f₁. */
double weft_ipc_friction_f0(double y, double eps_vh);

/* Closest-point weights w of the classified pair x (12 coordinates) of type t: the
 * relative position of the two closest points is Σᵢ wᵢ xᵢ (the four points of x; Σ wᵢ = 0,
 * w of unused points 0), |Σ wᵢ xᵢ|² = weft_ipc_d2(x, t). */
void weft_ipc_closest_weights(const double x[12], weft_ipc_dist t, double w[4]);

/* An orthonormal tangent basis P (3×2, row-major: P[2r + c]) of the pair x of type t: two
 * unit vectors perpendicular to the contact normal (the closest points' difference), the
 * first along the triangle's or edge's first side where the type has one. */
void weft_ipc_tangent_basis(const double x[12], weft_ipc_dist t, double P[6]);

/* An orthonormal basis P (3×2, row-major) of the plane perpendicular to n (n ≠ 0). */
void weft_ipc_plane_basis(const double n[3], double P[6]);

/* The lagged normal force λ = −∂b/∂d (N) of a pair at squared distance s (m²): −2√s b′(s),
 * ≥ 0, zero beyond ξ + d̂. */
double weft_ipc_normal_force(double s, const weft_ipc_params *p);

/* One lagged friction term of Li 2020 §5 on n coordinates (12 for a pair, 3 for a point on
 * a collider): D(x) = μλ f₀(|u|), u = Tᵀx + c ∈ ℝ² the tangential displacement (m) over the
 * step, T (n×2, row-major T[2a + c]) and c fixed at the lagged positions. */
typedef struct weft_ipc_friction {
    int n;          /* coordinates: 12 (pair) or 3 (point on a collider) */
    double T[24];   /* n×2 row-major: T = Γᵀ P, Γ the closest-point weights ⊗ I₃ */
    double c[2];    /* −Tᵀxⁿ, minus Pᵀ(surface velocity · h) against a collider (m) */
    double mu_lambda; /* μ λ (N) */
} weft_ipc_friction;

/* The friction term of the pair of type t: T, λ from the lagged positions x_lag (the
 * previous lagging iteration, or the step's start), the tangential displacement measured
 * from x_prev (the step's start), D = μ λ f₀(|Tᵀ(x − x_prev)|) with λ =
 * weft_ipc_normal_force(weft_ipc_d2(x_lag, t), p) (times weight, e.g. the edge–edge
 * mollifier's e(x_lag), or 1). */
void weft_ipc_friction_pair(const double x_lag[12], const double x_prev[12], weft_ipc_dist t,
                            const weft_ipc_params *p, double mu, double weight,
                            weft_ipc_friction *f);

/* The friction term of a pair against a triangle-mesh obstacle: the slots whose bit is set
 * in `fixed` (bit a: slot a) hold the obstacle's corners, constants of the step, in x_lag
 * where the barrier takes them (t_{n+1}) and in x_prev where they were at the step's start;
 * T and λ as weft_ipc_friction_pair, T's rows of those slots zero and their part of the
 * closest points' displacement in c: u = Pᵀ(Σ_free wₐ(xₐ − x_prevₐ) + Σ_fixed wₐ(x_lagₐ −
 * x_prevₐ)). For an obstacle translating by u_o h this is Pᵀ Σ_free wₐ(xₐ − x_prevₐ − u_o h)
 * (Σ wₐ = 0): the slip relative to the obstacle's surface. */
void weft_ipc_friction_obstacle(const double x_lag[12], const double x_prev[12],
                                weft_ipc_dist t, const weft_ipc_params *p, double mu,
                                double weight, unsigned fixed, weft_ipc_friction *f);

/* The friction term of a point against an analytic collider's surface: n the outward unit
 * normal at the closest point on the lagged surface, lambda the lagged normal force (N,
 * e.g. weft_ipc_normal_force of the squared signed distance), us the collider's surface
 * velocity at the closest point (m/s, NULL: static), h the step (s). u = Pᵀ(x − x_prev −
 * us h), P the tangent plane's basis. */
void weft_ipc_friction_point(const double n[3], const double x_prev[3], const double *us,
                             double h, double lambda, double mu, weft_ipc_friction *f);

/* D(x) (J) of the friction term f at x (f->n coordinates), εᵥh = eps_vh (m), its gradient
 * (n) and Hessian (n×n, row-major): μλ T [f₁′ ûûᵀ + f₁/y (I − ûûᵀ)] Tᵀ, PSD when project
 * (f₁′ clamped at 0; exact otherwise: f₁′ ≥ 0 for this f₁ anyway). NULL g, H not written. */
double weft_ipc_friction_energy(const weft_ipc_friction *f, const double *x, double eps_vh,
                                bool project, double *g, double *H);

/* ---- Adaptive barrier stiffness (Li 2020 supplement; ipc_stiffness.c) ----------------- */

/* The bounds of κ (J/m⁴) for a scene of bounding-box diagonal bbox (m) and average vertex
 * mass m_avg (in the units of the objective's Hessian: kg for IPC's incremental potential)
 * at barrier parameters p (κ ignored): κ_min makes the unit barrier's stiffness along the
 * normal, 4 s₀ b̂″(s₀), times κ equal 1e11 m_avg at s₀ = (ξ + 1e-8 bbox)² (or at half of
 * ŝ when that lies beyond d̂); κ_max = 100 κ_min. */
void weft_ipc_kappa_bounds(double bbox, double m_avg, const weft_ipc_params *p,
                           double *kappa_min, double *kappa_max);

/* The initial κ: the minimiser of |g_E + κ g_B|² over κ, −g_E·g_B/|g_B|² (g_E the
 * objective's gradient, g_B the barrier's at κ = 1, n values), clamped to [κ_min, κ_max];
 * κ_min when g_B = 0. */
double weft_ipc_kappa_initial(const double *g_E, const double *g_B, int n, double kappa_min,
                              double kappa_max);

/* The update after a step or Newton iteration: 2κ (at most κ_max) when the smallest
 * distance d_min (m) is below ξ + 1e-9 bbox and smaller than the previous d_prev (m), which
 * was below it too; else κ unchanged. */
double weft_ipc_kappa_update(double kappa, double kappa_max, double d_prev, double d_min,
                             double bbox, double xi);

#endif
