/* ipc.h — the building blocks of Incremental Potential Contact (Li et al. 2020, "Incremental
 * Potential Contact", ACM TOG 39(4); thickness from Li, Kaufman & Jiang 2021, "Codimensional
 * Incremental Potential Contact", ACM TOG 40(4)), as a library: unsigned squared distances
 * between primitives with their distance-type classification (ipc_distance.c), and the
 * barrier, the edge–edge mollifier and the per-pair barrier energy (ipc_barrier.c).
 * The contact model `[contact] model = ipc` (solvers/ipc_contact.c) uses them;
 * papers/li2020-ipc.md lists what is left.
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

#endif
