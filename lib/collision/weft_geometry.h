/* weft_geometry.h — proximity queries, triangle–triangle intersection and continuous
 * collision detection (CCD) for cloth, after Bridson, Fedkiw & Anderson 2002 (§4
 * "Proximity detection" and "Collision detection").
 *
 * Points are 3-vectors in m. Time in the CCD is the fraction t ∈ [0, 1] of a step in
 * which every vertex moves on a straight line, x(t) = x0 + t (x1 − x0), so t and the
 * time tolerances are dimensionless.
 *
 * lib/collision/geometry.c holds the closest-point and intersection queries, lib/collision/collision.ccd.c the CCD.
 */
#ifndef WEFT_GEOMETRY_H
#define WEFT_GEOMETRY_H

#include "weft.h"

#include <stdbool.h>

/* ------------------------------------------------------------------------------ */
/* Closest points (lib/collision/geometry.c)                                                 */
/* ------------------------------------------------------------------------------ */

/* Distance (m) from p to the closed triangle (a, b, c); its closest point is
 * q = bary[0] a + bary[1] b + bary[2] c (bary ≥ 0, sum 1). dir is (p − q)/|p − q| when
 * the distance is > 0, else the unit triangle normal, or zero if the triangle has no
 * normal (zero area). Degenerate triangles fall back to their closest edge or vertex. */
double weft_point_triangle_closest(const double p[3], const double a[3], const double b[3],
                                   const double c[3], double bary[3], double dir[3]);

/* Distance (m) between the closed segments p0p1 and q0q1, with closest points
 * p0 + s (p1 − p0) and q0 + u (q1 − q0), s, u ∈ [0, 1]. dir is the unit vector from the
 * second closest point to the first when the distance is > 0, else the unit
 * (p1 − p0) × (q1 − q0), or zero for parallel or zero-length segments. */
double weft_edge_edge_closest(const double p0[3], const double p1[3], const double q0[3],
                              const double q1[3], double *s, double *u, double dir[3]);

/* ------------------------------------------------------------------------------ */
/* Intersection (lib/collision/geometry.c)                                                   */
/* ------------------------------------------------------------------------------ */

/* Sign of det(b − a, c − a, d − a): +1 or −1, or 0 when its magnitude is within a
 * bound on the floating-point error (d on or too close to the plane of a, b, c). */
int weft_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]);

/* True when the closed triangles (a0, a1, a2) and (b0, b1, b2) share a point (touching
 * counts); meant for triangles that share no vertex. Orientation signs that are within
 * rounding error of zero count as zero, so near-contacts are reported. */
bool weft_tri_tri_intersect(const double a0[3], const double a1[3], const double a2[3],
                            const double b0[3], const double b1[3], const double b2[3]);

/* Number of intersecting pairs of triangles of m that share no vertex, at positions x
 * (3*nv, m; the rest positions if NULL). Brute force over all pairs, O(nt²). */
long weft_mesh_count_intersections(const weft_mesh *m, const double *x);

/* The same count for m at x (3*nv, m; NULL: rest positions), plus the intersecting
 * pairs of a triangle of m and a triangle of obstacle mesh obs[k] at positions xo[k]
 * (NULL, or xo NULL: its rest positions) for k < nobs; obstacles are not tested against
 * each other. Sort and sweep over the triangles' boxes (lib/collision/intersections.c):
 * O(n log n + pairs whose boxes overlap along one axis), and exactly the pairs brute
 * force tests. Returns −1 for non-finite positions or when out of memory. */
long weft_count_intersections(const weft_mesh *m, const double *x, int nobs,
                              const weft_mesh *const *obs, const double *const *xo);

/* ------------------------------------------------------------------------------ */
/* Continuous collision detection (lib/collision/collision.ccd.c)                                      */
/* ------------------------------------------------------------------------------ */

/* Tolerances of a CCD query. */
typedef struct weft_ccd_params {
    double eta;    /* η ≥ 0, m: a contact is reported when the distance between the two
                      primitives is ≤ η at some t ∈ [0, 1], where distances within
                      rounding error of η count as ≤ η (so η = 0 reports touching as far
                      as double precision can tell); default 1e-6 */
    double t_tol;  /* resolution of the reported time t, dimensionless (default 1e-10) */
    int max_nodes; /* budget of distance evaluations per query; a query that spends it
                      without deciding is reported as a contact, marked `assumed`
                      (default 20000) */
} weft_ccd_params;

/* Defaults: η = 1e-6 m, t_tol = 1e-10, max_nodes = 20000. Set η for the scene's scale. */
weft_ccd_params weft_ccd_params_default(void);

/* The earliest contact found by a CCD query. */
typedef struct weft_ccd_hit {
    double t;    /* earliest time (fraction of the step) at which the distance is ≤ η
                    (up to rounding), within t_tol */
    double dist; /* distance at t, m (≤ η up to rounding, unless assumed) */
    double w[4]; /* signed weights of the four points at t: the gap vector
                    g = Σ w_i x_i(t) runs from the closest point of the second primitive
                    to that of the first. Vertex–face (p; a, b, c): (1, −b_a, −b_b, −b_c)
                    with the barycentric coordinates of the closest point of the face;
                    edge–edge (p0 p1; q0 q1): (1 − s, s, −(1 − u), −u) */
    double n[3]; /* unit contact normal at t for impulses: the face normal (vertex–face)
                    or the normalised cross product of the edges (edge–edge), turned so
                    that the first primitive approaches along −n (it came from the +n
                    side); (p − q)/|p − q| where that normal does not exist; zero when no
                    direction is defined (coincident, motionless, degenerate) */
    bool assumed; /* true when the budget ran out and a contact was assumed */
} weft_ccd_hit;

/* Vertex–face CCD. x0 and x1 hold the vertex p then the face corners a, b, c at t = 0
 * and t = 1 (12 values each, m). Returns true and fills hit (may be NULL) when the
 * vertex comes within η of the closed triangle during the step. */
bool weft_ccd_vertex_face(const double *x0, const double *x1, const weft_ccd_params *prm,
                          weft_ccd_hit *hit);

/* Edge–edge CCD. x0 and x1 hold p0, p1 (first edge) then q0, q1 (second edge) at t = 0
 * and t = 1 (12 values each, m). Returns true and fills hit (may be NULL) when the
 * closed segments come within η of each other during the step. */
bool weft_ccd_edge_edge(const double *x0, const double *x1, const weft_ccd_params *prm,
                        weft_ccd_hit *hit);

/* Coefficients c[0..3] of the coplanarity cubic f(t) = c0 + c1 t + c2 t² + c3 t³ =
 * det(x1(t) − x0(t), x2(t) − x0(t), x3(t) − x0(t)) of four linearly moving points
 * (Bridson et al. 2002, "Defining the cubic"); x0, x1 as for the CCD queries, m³. */
void weft_ccd_cubic(const double *x0, const double *x1, double c[4]);

#endif
