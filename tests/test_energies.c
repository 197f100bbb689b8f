/* test_energies.c — a generic harness over weft_energy_registry: every registered
 * energy type is checked through its descriptor alone (no per-energy code), so a new
 * energy file gets these tests by its line in WEFT_ENERGIES (weft_energies.h):
 *   registry_complete    hooks present, a kind the harness builds, unique (name, kind)
 *   registry_gradients   ∇Ψ against finite differences of Ψ; gradient() returns Ψ
 *   registry_hessians    EXACT ∂²Ψ/∂x² against finite differences of ∇Ψ; symmetric;
 *                        hessian() returns the same Ψ and gradient in every mode
 *   registry_projection  ANALYTIC and CLAMP are PSD, equal the exact Hessian where it is
 *                        PSD, and equal each other when analytic_psd is set
 *   registry_rest        Ψ = 0, ∇Ψ = 0, H PSD at rest (contact kinds: exactly zero)
 *   registry_invariance  Ψ(Rx + t) = Ψ(x), ∇Ψ(Rx + t) = R ∇Ψ(x), H(Rx + t) = R H(x) Rᵀ
 *   registry_constraints the native constraint C: ∇C by FD, C = 0 at rest, invariance
 *   registry_vertex      vertex_hessian equals the Hessian's diagonal blocks and
 *                        gradient in every mode, bit for bit
 *   registry_degenerate  inverted and collapsed elements give no NaN (+∞ is allowed)
 * plus closed_forms, spring_hessian, hinge_hessian, hinge_projection (against a full
 * 12×12 clamp), residual_fd (whole-model gradients) and assembled_directional (the
 * assembled Hessian against a directional derivative of the model gradient).
 *
 * Elements come by kind from random rest shapes (type->init), in families of deformed
 * samples (make_sample: random, compressed, near-degenerate, folded, inverted; contact
 * kinds mostly in contact), from fixed-seed LCGs. Finite differences:
 *   f'(x) ≈ [8 (f(x + h) − f(x − h)) − (f(x + 2h) − f(x − 2h))] / (12 h),
 * h = 1e-4 of the element's smallest feature, bound 1e-6 relative. Why these choices:
 * papers/dynamic-deformables.md ("Implementation notes: tests/test_energies.c").
 */
#include "check.h"
#include "test_util.h"
#include "weft.h"
#include "weft_energies.h"
#include "fem.h"
#include "weft_solvers.h"

#include <lapacke.h>
#include <stdbool.h>
#include <stdint.h>

#define COEFFICIENT 2.0
#define AREA 0.3
#define THICKNESS 0.1 /* contact thickness η of the contact kinds, m */
#define TRIALS 40
#define PER_FAMILY 16 /* samples of each configuration family, per type */
#define NX (3 * WEFT_ELEM_MAXV) /* coordinates of the largest element */

/* The material handed to every type's init. */
static const weft_energy_params PARAMS = {.stiffness = COEFFICIENT, .poisson = 0.3, .area = AREA,
                                          .fiber = {1.0, 0.3, 0.2}, .fiber_stiffness = 3.0,
                                          .thickness = THICKNESS};

static const weft_hessian_mode MODES[3] = {WEFT_HESSIAN_EXACT, WEFT_HESSIAN_ANALYTIC,
                                           WEFT_HESSIAN_CLAMP};
static const char *const MODE_NAME[3] = {"EXACT", "ANALYTIC", "CLAMP"};

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */
/* ------------------------------------------------------------------------------ */

/* A random unit vector. */
static void rnd_unit(lcg *g, double *u) {
    double l;
    do {
        for (int k = 0; k < 3; k++) u[k] = rnd_in(g, -1.0, 1.0);
        l = norm3(u);
    } while (l < 0.1 || l > 1.0);
    for (int k = 0; k < 3; k++) u[k] /= l;
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

static void mat_vec(const double R[9], const double *v, double *out) {
    double r[3];
    for (int i = 0; i < 3; i++) r[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

/* Euclidean norm of n values (the Frobenius norm for a matrix of n entries). */
static double norm_n(const double *a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

/* ‖a − b‖ over n values. */
static double dist_n(const double *a, const double *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(s);
}

/* ‖A − Aᵀ‖_F of an n×n matrix. */
static double asymmetry(const double *A, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double d = A[n * i + j] - A[n * j + i];
            s += d * d;
        }
    return sqrt(s);
}

/* True if any of the n values is NaN. */
static bool any_nan(const double *a, int n) {
    for (int i = 0; i < n; i++)
        if (isnan(a[i])) return true;
    return false;
}

/* Smallest eigenvalue of the symmetric part of the n×n matrix A (LAPACKE dsyevr, n ≤ 12). */
static double min_eigenvalue(const double *A, int n) {
    double a[NX * NX], w[NX], z[NX * NX];
    lapack_int isuppz[2 * NX], m = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) a[n * i + j] = 0.5 * (A[n * i + j] + A[n * j + i]);
    lapack_int info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'N', 'A', 'U', n, a, n, 0.0, 0.0, 0, 0,
                                     0.0, &m, w, z, n, isuppz);
    CHECK(info == 0 && m == n);
    return info == 0 ? w[0] : NAN; /* ascending order */
}

/* Vertices per element of a kind the harness can build, or 0. */
static int kind_nv(weft_element_kind kind) {
    switch (kind) {
    case WEFT_ELEM_EDGE: return 2;
    case WEFT_ELEM_TRIANGLE: return 3;
    case WEFT_ELEM_HINGE: return 4;
    case WEFT_ELEM_TRI_HINGES: return 6;
    case WEFT_ELEM_TET: return 4;
    case WEFT_ELEM_VERTEX_FACE: return 4;
    case WEFT_ELEM_EDGE_EDGE: return 4;
    default: return 0;
    }
}

/* Contact kinds: one-sided penalties, zero wherever the separation is at least η. */
static bool one_sided(weft_element_kind kind) {
    return kind == WEFT_ELEM_VERTEX_FACE || kind == WEFT_ELEM_EDGE_EDGE;
}

/* The plane distance f of a contact element x (m; signed by the orientation of n̂, before
 * an element's side s), computed here from the definitions, not by the types:
 * vertex–face x = (p, t0, t1, t2), f = (p − t0)·n̂ with
 * n̂ ∥ (t1 − t0) × (t2 − t0); edge–edge x = (a0, a1, b0, b1), f = (b0 − a0)·n̂ with
 * n̂ ∥ (a1 − a0) × (b1 − b0). The unit normal goes to n, the moving part (p, or edge b)
 * is what contact_place shifts. */
static double contact_plane(weft_element_kind kind, const double *x, double *n) {
    double a[3], b[3], r[3];
    bool vf = kind == WEFT_ELEM_VERTEX_FACE;
    for (int k = 0; k < 3; k++) {
        a[k] = vf ? x[6 + k] - x[3 + k] : x[3 + k] - x[k];
        b[k] = vf ? x[9 + k] - x[3 + k] : x[9 + k] - x[6 + k];
        r[k] = vf ? x[k] - x[3 + k] : x[6 + k] - x[k];
    }
    cross3(a, b, n);
    double ln = norm3(n);
    for (int k = 0; k < 3; k++) n[k] /= ln;
    return dot3(r, n);
}

/* Moves the vertex p (vertex–face) or the edge b (edge–edge) of x along the normal so
 * that the signed separation s f becomes d (m). */
static void contact_place(weft_element_kind kind, double s, double d, double *x) {
    double n[3], f = contact_plane(kind, x, n), shift = s * d - f;
    int first = kind == WEFT_ELEM_VERTEX_FACE ? 0 : 2, last = kind == WEFT_ELEM_VERTEX_FACE ? 0 : 3;
    for (int a = first; a <= last; a++)
        for (int k = 0; k < 3; k++) x[3 * a + k] += shift * n[k];
}

/* det[x1 − x0, x2 − x0, x3 − x0] of a tetrahedron (m³, six times its signed volume). */
static double tet_det(const double *x) {
    double a[3], b[3], c[3], axb[3];
    for (int k = 0; k < 3; k++) {
        a[k] = x[3 + k] - x[k], b[k] = x[6 + k] - x[k], c[k] = x[9 + k] - x[k];
    }
    cross3(a, b, axb);
    return dot3(axb, c);
}

/* Contact rest shapes (see rest_shape), in the frame (e, u, v) around c, size L:
 * - vertex–face: the triangle t0 = c, t1 = c + L e, t2 = c + a2 e + b2 u (normal +v), and
 *   p above an interior point of it (barycentric coordinates ≥ 0.1) on a random side, at
 *   a distance η + (0.2–0.6) L;
 * - edge–edge: a0 = c, a1 = c + L e, and b along q = cos φ u + sin φ e (|φ| ≤ 1 rad, so
 *   a × b = L |b| cos φ v ≠ 0), its closest point to line a at the parameters α, β ∈
 *   [0.2, 0.8] of both edges, on a random side at the distance η + (0.2–0.6) L. */
static void contact_rest(lcg *g, weft_element_kind kind, double L, const double *c,
                         const double *e, const double *u, const double *v, double *xe) {
    double side = rnd(g) < 0.5 ? -1.0 : 1.0, gap = THICKNESS + rnd_in(g, 0.2, 0.6) * L;
    if (kind == WEFT_ELEM_VERTEX_FACE) {
        double a2 = rnd_in(g, 0.1, 0.9) * L, b2 = rnd_in(g, 0.5, 1.0) * L;
        double w1 = rnd_in(g, 0.1, 0.45), w2 = rnd_in(g, 0.1, 0.45); /* w0 ≥ 0.1 */
        for (int k = 0; k < 3; k++) {
            xe[3 + k] = c[k];
            xe[6 + k] = c[k] + L * e[k];
            xe[9 + k] = c[k] + a2 * e[k] + b2 * u[k];
            xe[k] = c[k] + w1 * L * e[k] + w2 * (a2 * e[k] + b2 * u[k]) + side * gap * v[k];
        }
    } else {
        double phi = rnd_in(g, -1.0, 1.0), lb = rnd_in(g, 0.5, 1.0) * L;
        double al = rnd_in(g, 0.2, 0.8), be = rnd_in(g, 0.2, 0.8);
        for (int k = 0; k < 3; k++) {
            double q = cos(phi) * u[k] + sin(phi) * e[k];
            xe[k] = c[k];
            xe[3 + k] = c[k] + L * e[k];
            xe[6 + k] = c[k] + al * L * e[k] + side * gap * v[k] - be * lb * q;
            xe[9 + k] = xe[6 + k] + lb * q;
        }
    }
}

/* The wings of a triangle with its hinges (xe[0..8] the triangle): wing i across the edge
 * (p_{i+1}, p_{i+2}) at 0.1–0.9 along it and 0.5–1 L off it, turned about it from the
 * triangle's plane by a rest dihedral in [−1.5, 1.5] rad, or 0 (a flat rest) one time in
 * three. */
static void tri_wings(lcg *g, double L, double *xe) {
    bool flat = rnd(g) < 1.0 / 3.0;
    for (int i = 0; i < 3; i++) {
        const double *P = xe + 3 * ((i + 1) % 3), *Q = xe + 3 * ((i + 2) % 3), *R = xe + 3 * i;
        double t[3], r[3], o[3], n[3];
        for (int k = 0; k < 3; k++) t[k] = Q[k] - P[k], r[k] = R[k] - P[k];
        double lt = norm3(t);
        for (int k = 0; k < 3; k++) t[k] /= lt;
        double rt = dot3(r, t);
        for (int k = 0; k < 3; k++) o[k] = -(r[k] - rt * t[k]);
        double lo = norm3(o);
        for (int k = 0; k < 3; k++) o[k] /= lo;
        cross3(t, o, n);
        double s = rnd_in(g, 0.1, 0.9) * lt, h = rnd_in(g, 0.5, 1.0) * L;
        double phi = flat ? 0.0 : rnd_in(g, -1.5, 1.5);
        for (int k = 0; k < 3; k++)
            xe[9 + 3 * i + k] = P[k] + s * t[k] + h * (cos(phi) * o[k] + sin(phi) * n[k]);
    }
}

/* A random non-degenerate rest shape of the given kind in xe; returns its length scale
 * L (m), the edge length for edges and hinges, the longest edge otherwise.
 * - edge: two points 0.5–2 m apart;
 * - triangle: p0, p0 + L e, and a third point 0.5–1 L off the edge line;
 * - hinge: edge p0 p1, p2 0.5–1 L off the edge, p3 on the other side rotated about the
 *   edge by a rest dihedral in [−2, 2] rad (bent rest shapes, not only flat ones);
 * - tet: a triangle plus a fourth point 0.5–1 L off its plane, on the side that makes
 *   det[x1 − x0, x2 − x0, x3 − x0] = L b2 h3 > 0 (positive orientation: with v = e × u,
 *   det[e, u, v] = 1);
 * - triangle with its hinges: a triangle and tri_wings' three wings; one sample in two
 *   has one or two boundary edges (wing i given as v_i, make_sample);
 * - vertex–face, edge–edge: contact_rest, separated by more than η (L the edge length).
 * All near a random centre in [−1, 1]³. */
static double rest_shape(lcg *g, weft_element_kind kind, double *xe) {
    double e[3], u[3], v[3], t[3], c[3];
    rnd_unit(g, e);
    do {
        rnd_unit(g, t);
        cross3(e, t, u);
    } while (norm3(u) < 0.3);
    double lu = norm3(u);
    for (int k = 0; k < 3; k++) u[k] /= lu;
    cross3(e, u, v);
    double L = rnd_in(g, 0.5, 2.0);
    for (int k = 0; k < 3; k++) c[k] = rnd_in(g, -1.0, 1.0);
    if (one_sided(kind)) {
        contact_rest(g, kind, L, c, e, u, v, xe);
        return L;
    }
    double a2 = rnd_in(g, 0.1, 0.9) * L, b2 = rnd_in(g, 0.5, 1.0) * L;
    double a3 = rnd_in(g, 0.1, 0.9) * L, b3 = rnd_in(g, 0.5, 1.0) * L;
    double phi = rnd_in(g, -2.0, 2.0), h3 = rnd_in(g, 0.5, 1.0) * L;
    for (int k = 0; k < 3; k++) {
        xe[k] = c[k];
        xe[3 + k] = c[k] + L * e[k];
        if (kind == WEFT_ELEM_EDGE) continue;
        xe[6 + k] = c[k] + a2 * e[k] + b2 * u[k];
        if (kind == WEFT_ELEM_HINGE)
            xe[9 + k] = c[k] + a3 * e[k] + b3 * (-cos(phi) * u[k] + sin(phi) * v[k]);
        else if (kind == WEFT_ELEM_TET)
            xe[9 + k] = c[k] + a3 * e[k] + 0.3 * b3 * u[k] + h3 * v[k];
    }
    if (kind == WEFT_ELEM_TET) CHECK(tet_det(xe) > 0.0);
    if (kind == WEFT_ELEM_TRI_HINGES) tri_wings(g, L, xe);
    if (kind == WEFT_ELEM_EDGE || kind == WEFT_ELEM_HINGE) return L;
    double m = 0.0;
    int nv = kind_nv(kind);
    for (int a = 0; a < nv; a++)
        for (int b = a + 1; b < nv; b++) {
            double d[3] = {xe[3 * a] - xe[3 * b], xe[3 * a + 1] - xe[3 * b + 1],
                           xe[3 * a + 2] - xe[3 * b + 2]};
            m = fmax(m, norm3(d));
        }
    return m;
}

/* Material coordinates of the rest triangle x (9 values) in uv (6, m): the triangle laid
 * isometrically into its own plane (x0 at the origin, x1 on the first axis, x2 on the
 * positive side, so counter-clockwise), then turned by a random angle and shifted, so
 * the material axes are not aligned with any edge. */
static void iso_uv(lcg *g, const double *x, double *uv) {
    double e1[3], e2[3], n[3], t1[3], t2[3];
    for (int k = 0; k < 3; k++) e1[k] = x[3 + k] - x[k], e2[k] = x[6 + k] - x[k];
    cross3(e1, e2, n);
    double l1 = norm3(e1), ln = norm3(n);
    for (int k = 0; k < 3; k++) t1[k] = e1[k] / l1, n[k] /= ln;
    cross3(n, t1, t2);
    double al = rnd_in(g, -WEFT_PI, WEFT_PI), ca = cos(al), sa = sin(al);
    double o[2] = {rnd_in(g, -1.0, 1.0), rnd_in(g, -1.0, 1.0)};
    for (int a = 0; a < 3; a++) {
        double d[3] = {x[3 * a] - x[0], x[3 * a + 1] - x[1], x[3 * a + 2] - x[2]};
        double p = dot3(d, t1), q = dot3(d, t2);
        uv[2 * a] = o[0] + ca * p - sa * q;
        uv[2 * a + 1] = o[1] + sa * p + ca * q;
    }
}

/* A deformed configuration: every coordinate moved by up to ±0.08 L. Small enough
 * that no triangle or tet degenerates (heights ≥ 0.5 L move by < 0.3 L) and a hinge's
 * angle stays well inside (θ0 − π, θ0 + π), large enough for O(0.1) strains. */
static void deform(lcg *g, const double *xrest, int nv, double L, double *x) {
    for (int i = 0; i < 3 * nv; i++) x[i] = xrest[i] + rnd_in(g, -0.08, 0.08) * L;
}

/* Squashes x to the fraction f of its size along one direction n about its centroid,
 * x ← c + (I − (1 − f) n nᵀ)(x − c): along the edge for edges, a direction in the
 * triangle's plane for triangles, a random direction otherwise. The map has det f > 0,
 * so orientations (of tets, of a hinge's fold) are kept, and every height shrinks by at
 * most f: nothing degenerates below f times its size. */
static void squash(lcg *g, weft_element_kind kind, int nv, double f, double *x) {
    double n[3], c[3] = {0, 0, 0};
    if (kind == WEFT_ELEM_EDGE) {
        for (int k = 0; k < 3; k++) n[k] = x[3 + k] - x[k];
    } else {
        rnd_unit(g, n);
        if (kind == WEFT_ELEM_TRIANGLE) { /* remove the component along the normal */
            double e1[3], e2[3], m[3];
            for (int k = 0; k < 3; k++) e1[k] = x[3 + k] - x[k], e2[k] = x[6 + k] - x[k];
            cross3(e1, e2, m);
            double lm = norm3(m), nm = dot3(n, m) / (lm * lm);
            for (int k = 0; k < 3; k++) n[k] -= nm * m[k];
        }
    }
    double ln = norm3(n);
    for (int k = 0; k < 3; k++) n[k] /= ln;
    for (int a = 0; a < nv; a++)
        for (int k = 0; k < 3; k++) c[k] += x[3 * a + k] / nv;
    for (int a = 0; a < nv; a++) {
        double d[3] = {x[3 * a] - c[0], x[3 * a + 1] - c[1], x[3 * a + 2] - c[2]};
        double dn = (1.0 - f) * dot3(d, n);
        for (int k = 0; k < 3; k++) x[3 * a + k] -= dn * n[k];
    }
}

/* Rotates vertex 3 of a hinge about its edge line (p0, p1) by φ, right-handed about
 * e = p1 − p0; that changes weft_hinge_angle's θ by +φ (derived in hinge_hessian). */
static void rotate_wing(double *x, double phi) {
    double e[3] = {x[3] - x[0], x[4] - x[1], x[5] - x[2]}, R[9], d[3];
    double le = norm3(e);
    for (int k = 0; k < 3; k++) e[k] /= le, d[k] = x[9 + k] - x[k];
    rotation(e, phi, R);
    mat_vec(R, d, d);
    for (int k = 0; k < 3; k++) x[9 + k] = x[k] + d[k];
}

/* Configuration families; the applicable ones depend on the element kind. */
typedef enum { FAM_RANDOM, FAM_COMPRESSED, FAM_THIN, FAM_FOLDED, FAM_INVERTED } family;
static const char *const FAM_NAME[] = {"random", "compressed", "near-degenerate", "folded",
                                       "inverted"};

/* The families of a kind, in fam[]; returns how many. */
static int families(weft_element_kind kind, family fam[5]) {
    int n = 0;
    fam[n++] = FAM_RANDOM, fam[n++] = FAM_COMPRESSED, fam[n++] = FAM_THIN;
    if (kind == WEFT_ELEM_HINGE || kind == WEFT_ELEM_TRI_HINGES) fam[n++] = FAM_FOLDED;
    if (kind == WEFT_ELEM_TET) fam[n++] = FAM_INVERTED;
    return n;
}

/* One test element: rest and deformed positions, the FD step for the deformed ones. */
typedef struct sample {
    weft_element e;
    double xr[NX]; /* rest positions, m */
    double x[NX];  /* deformed positions, m */
    double uv[6];  /* material coordinates of triangles when with_uv, m */
    bool with_uv;
    family fam;
    double L;   /* rest size, m */
    double len; /* smallest feature of x: L, or the squashed thickness f L, m */
    double h;   /* finite-difference step, 1e-4 len, m */
    int contact; /* contact kinds: 1 if x is within η (active), −1 if separated; else 0 */
} sample;

/* Builds a sample of type t: a rest shape (with material coordinates for a triangle
 * when with_uv: the rest triangle laid flat and turned by a random angle, so the warp/weft
 * axes differ from the rest frame; else p.uv = NULL), t->init(e, xrest, PARAMS), and a
 * deformed configuration of family fam:
 *   random        deform(): ±0.08 L per coordinate;
 *   compressed    random, then squashed to 20 % along one direction;
 *   near-degenerate  random, then squashed to 1 %: slivers, nearly collapsed triangles
 *                 and edges, still smooth (squashing keeps the orientation);
 *   folded        (hinges; a triangle with its hinges: its first hinge with a wing)
 *                 ±0.01 L noise, then the wing p3 turned about the edge to
 *                 θ = ±(π − δ), δ ∈ [−0.15, 0.3] (past ±π when δ < 0), keeping
 *                 |θ − θ0| ≤ π − 0.1 so a wrapped angle difference stays smooth;
 *   inverted      (tets) random, then x0 mirrored through the plane of x1, x2, x3
 *                 (det < 0; the energy may be +∞ there).
 * Contact kinds then get their separation placed (contact_place): 3 samples in 4 active,
 * d = η − (0.05–1) L (d < 0 past the plane: penetrating), the rest separated,
 * d = η + (0.05–0.5) L. No finite-difference stencil straddles d = η, where the Hessian
 * jumps: the stencil moves one coordinate by at most 2h = 2e-4 len, which changes d by at
 * most 2h max|∂d/∂x| (∂d/∂x are closest-point weights times n̂: O(1), up to ~L/len for
 * squashed samples), so |Δd| ≲ 2e-4 L, 250 times less than the margin 0.05 L. */
static void make_sample(const weft_energy_type *t, lcg *g, family fam, bool with_uv,
                        sample *s) {
    memset(s, 0, sizeof *s);
    int nv = t->nv;
    s->fam = fam;
    s->with_uv = with_uv && t->kind == WEFT_ELEM_TRIANGLE;
    s->L = rest_shape(g, t->kind, s->xr);
    weft_energy_params p = PARAMS;
    if (s->with_uv) {
        iso_uv(g, s->xr, s->uv);
        p.uv = s->uv;
    }
    s->e = (weft_element){.v = {0, 1, 2, 3, 4, 5}};
    /* Boundary edges (wing i = v_i): one, or two (a corner); not all three, whose isolated
     * triangle has no bending energy at all. */
    if (t->kind == WEFT_ELEM_TRI_HINGES && rnd(g) < 0.5) {
        int mask = 1 + (int)(rnd(g) * 6.0) % 6;
        for (int i = 0; i < 3; i++)
            if (mask >> i & 1) s->e.v[3 + i] = i;
    }
    t->init(&s->e, s->xr, &p);
    double f = 1.0;
    switch (fam) {
    case FAM_RANDOM: deform(g, s->xr, nv, s->L, s->x); break;
    case FAM_COMPRESSED:
    case FAM_THIN:
        f = fam == FAM_COMPRESSED ? 0.2 : 0.01;
        deform(g, s->xr, nv, s->L, s->x);
        squash(g, t->kind, nv, f, s->x);
        break;
    case FAM_FOLDED: {
        for (int i = 0; i < 3 * nv; i++) s->x[i] = s->xr[i] + rnd_in(g, -0.01, 0.01) * s->L;
        /* a triangle with its hinges: fold its first hinge that has a wing */
        int slot[4] = {0, 1, 2, 3}, hi = 0;
        if (t->kind == WEFT_ELEM_TRI_HINGES) {
            while (s->e.v[3 + hi] == hi) hi++;
            slot[0] = (hi + 1) % 3, slot[1] = (hi + 2) % 3, slot[2] = hi, slot[3] = 3 + hi;
        }
        double xh[12], xrh[12];
        for (int a = 0; a < 4; a++)
            for (int k = 0; k < 3; k++)
                xh[3 * a + k] = s->x[3 * slot[a] + k], xrh[3 * a + k] = s->xr[3 * slot[a] + k];
        double th0 = weft_hinge_angle(xrh, xrh + 3, xrh + 6, xrh + 9, NULL);
        double th = weft_hinge_angle(xh, xh + 3, xh + 6, xh + 9, NULL), target;
        do {
            target = weft_wrap_angle((rnd(g) < 0.5 ? -1.0 : 1.0) *
                                     (WEFT_PI - rnd_in(g, -0.15, 0.3)));
        } while (fabs(weft_wrap_angle(target - th0)) > WEFT_PI - 0.1);
        rotate_wing(xh, weft_wrap_angle(target - th));
        th = weft_hinge_angle(xh, xh + 3, xh + 6, xh + 9, NULL);
        CHECK(fabs(weft_wrap_angle(th - target)) < 1e-9); /* the harness's own geometry */
        for (int k = 0; k < 3; k++) s->x[3 * slot[3] + k] = xh[9 + k];
        break;
    }
    case FAM_INVERTED: {
        deform(g, s->xr, nv, s->L, s->x);
        double a[3], b[3], n[3], d[3];
        for (int k = 0; k < 3; k++) {
            a[k] = s->x[6 + k] - s->x[3 + k], b[k] = s->x[9 + k] - s->x[3 + k];
            d[k] = s->x[k] - s->x[3 + k];
        }
        cross3(a, b, n);
        double dn = 2.0 * dot3(d, n) / dot3(n, n);
        for (int k = 0; k < 3; k++) s->x[k] -= dn * n[k];
        CHECK(tet_det(s->x) < 0.0);
        break;
    }
    }
    if (one_sided(t->kind)) {
        double n[3], side = contact_plane(t->kind, s->xr, n) < 0.0 ? -1.0 : 1.0;
        bool active = rnd(g) < 0.75;
        double d = active ? THICKNESS - rnd_in(g, 0.05, 1.0) * s->L
                          : THICKNESS + rnd_in(g, 0.05, 0.5) * s->L;
        contact_place(t->kind, side, d, s->x);
        CHECK(fabs(side * contact_plane(t->kind, s->x, n) - d) <= 1e-12 * s->L);
        s->contact = active ? 1 : -1;
    }
    s->len = f * s->L;
    s->h = 1e-4 * s->len;
}

/* Samples per type of a kind: PER_FAMILY of each family. */
static int n_samples(weft_element_kind kind) {
    family all[5];
    return families(kind, all) * PER_FAMILY;
}

/* The family and uv choice of sample i of a kind: families in turn, and for triangles
 * every other round with material coordinates. */
static void sample_plan(weft_element_kind kind, int i, family *fam, bool *with_uv) {
    family all[5];
    int nf = families(kind, all);
    *fam = all[i % nf];
    *with_uv = kind == WEFT_ELEM_TRIANGLE && (i / nf) % 2 == 1;
}

/* "compressed, uv" etc. for messages. */
static const char *sample_name(const sample *s, char *buf, size_t n) {
    snprintf(buf, n, "%s%s", FAM_NAME[s->fam], s->with_uv ? ", with uv" : "");
    return buf;
}

/* "name/kind" of a type for messages: one name may have a tet and a membrane variant. */
static const char *label(const weft_energy_type *t) {
    static char buf[96];
    const char *kind = t->kind == WEFT_ELEM_EDGE          ? "edge"
                       : t->kind == WEFT_ELEM_TRIANGLE    ? "triangle"
                       : t->kind == WEFT_ELEM_HINGE       ? "hinge"
                       : t->kind == WEFT_ELEM_TRI_HINGES  ? "tri_hinges"
                       : t->kind == WEFT_ELEM_TET         ? "tet"
                       : t->kind == WEFT_ELEM_VERTEX_FACE ? "vertex_face"
                       : t->kind == WEFT_ELEM_EDGE_EDGE   ? "edge_edge"
                                                          : "other";
    snprintf(buf, sizeof buf, "%s/%s", t->name ? t->name : "(unnamed)", kind);
    return buf;
}

/* Checks a type's nv against its kind and says whether the harness can build it. A
 * registered kind the harness does not know fails the case, so nobody can register an
 * energy that escapes these tests. */
static bool supported(const weft_energy_type *t) {
    int nv = kind_nv(t->kind);
    if (nv == 0) {
        fprintf(stderr, "%s: element kind %d has no generator in test_energies.c; add one\n",
                t->name, (int)t->kind);
        CHECK(nv != 0);
        return false;
    }
    CHECK(t->nv == nv);
    CHECK(t->init != NULL);
    return t->nv == nv && t->init;
}

/* Fourth-order central differences of f over the 3 nv coordinates, step h:
 *   f'(x) ≈ [8 (f(x + h) − f(x − h)) − (f(x + 2h) − f(x − 2h))] / (12 h),
 * truncation h⁴ f⁽⁵⁾/30, with h = 1e-4 of the element's smallest feature ℓ (L, or the
 * squashed thickness): truncation ~(h/ℓ)⁴ = 1e-16 and rounding ~ε ℓ/h ≈ 1e-12, both
 * relative to the derivative's natural scale. A wrong term is O(1) relative, so the
 * bound 1e-6 separates right from wrong by orders of magnitude either way. */
typedef double (*scalar_fn)(const weft_element *e, const double *xe);

static const weft_energy_type *current; /* the type constraint_value evaluates */

static double constraint_value(const weft_element *e, const double *xe) {
    return current->constraint(e, xe, NULL);
}

static void fd_gradient(scalar_fn f, const weft_element *e, const double *x, int nv, double h,
                        double *g) {
    double q[NX];
    for (int i = 0; i < 3 * nv; i++) {
        double fv[4];
        static const double off[4] = {1.0, -1.0, 2.0, -2.0};
        memcpy(q, x, sizeof(double) * 3 * (size_t)nv);
        for (int j = 0; j < 4; j++) {
            q[i] = x[i] + off[j] * h;
            fv[j] = f(e, q);
        }
        g[i] = (8.0 * (fv[0] - fv[1]) - (fv[2] - fv[3])) / (12.0 * h);
    }
}

/* J[n i + j] ≈ ∂g_i/∂x_j by the same stencil applied to a function grad(e, x, g) that
 * writes g = ∇f(x) (an energy's gradient, a constraint's; n = 3 nv). */
static void fd_jacobian(double (*grad)(const weft_element *, const double *, double *),
                        const weft_element *e, const double *x, int nv, double h, double *J) {
    int n = 3 * nv;
    double q[NX], gv[4][NX];
    static const double off[4] = {1.0, -1.0, 2.0, -2.0};
    for (int j = 0; j < n; j++) {
        memcpy(q, x, sizeof(double) * (size_t)n);
        for (int s = 0; s < 4; s++) {
            q[j] = x[j] + off[s] * h;
            grad(e, q, gv[s]);
        }
        for (int i = 0; i < n; i++)
            J[n * i + j] = (8.0 * (gv[0][i] - gv[1][i]) - (gv[2][i] - gv[3][i])) / (12.0 * h);
    }
}

/* H[n i + j] ≈ ∂g_i/∂x_j: fd_jacobian of t->gradient. */
static void fd_hessian(const weft_energy_type *t, const weft_element *e, const double *x,
                       double h, double *H) {
    fd_jacobian(t->gradient, e, x, t->nv, h, H);
}

/* Whether the generic derivative cases can run on t (registry_complete reports the
 * missing functions). */
static bool has_derivatives(const weft_energy_type *t) {
    return supported(t) && t->energy && t->gradient && t->hessian;
}

/* ------------------------------------------------------------------------------ */
/* Generic cases                                                                   */
/* ------------------------------------------------------------------------------ */

static void test_registry_complete(void) {
    int ntypes = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ntypes++) {
        const weft_energy_type *t = *tp;
        bool named = t->name && t->name[0] && t->paper && t->summary;
        CHECK(named);
        if (!named) continue;
        if (!t->init || !t->energy || !t->gradient || !t->hessian)
            fprintf(stderr, "%s: missing%s%s%s%s\n", label(t), t->init ? "" : " init",
                    t->energy ? "" : " energy", t->gradient ? "" : " gradient",
                    t->hessian ? "" : " hessian");
        CHECK(t->init && t->energy && t->gradient && t->hessian);
        if (kind_nv(t->kind) == 0 || t->nv != kind_nv(t->kind))
            fprintf(stderr, "%s: kind %d with nv = %d is not one the harness builds\n", label(t),
                    (int)t->kind, t->nv);
        CHECK(kind_nv(t->kind) != 0 && t->nv == kind_nv(t->kind));
        /* A name may have one variant per kind (e.g. a tet and a membrane "stvk"), and
         * the lookup the scene builder uses finds exactly this one. */
        if (weft_energy_find_kind(t->name, t->kind) != t)
            fprintf(stderr, "%s: (name, kind) registered twice\n", label(t));
        CHECK(weft_energy_find_kind(t->name, t->kind) == t);
        CHECK(weft_energy_find(t->name) != NULL);
    }
    CHECK(ntypes >= 2); /* mass_spring and dihedral_bending at least */
}

static void test_registry_gradients(void) {
    int ti = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!supported(t) || !t->energy || !t->gradient) continue;
        lcg g = {1000 + (uint64_t)ti};
        int n = 3 * t->nv, ns = n_samples(t->kind), ninf = 0, nactive = 0;
        double worst = 0.0;
        char where[96] = "none";
        for (int i = 0; i < ns; i++) {
            family fam;
            bool uv;
            sample_plan(t->kind, i, &fam, &uv);
            sample s;
            make_sample(t, &g, fam, uv, &s);
            double gr[NX], fd[NX];
            double psi = t->energy(&s.e, s.x);
            double psig = t->gradient(&s.e, s.x, gr);
            CHECK(!isnan(psi) && !isnan(psig));
            if (isinf(psi)) { /* only where the element left the domain: inverted */
                CHECK(psi > 0.0 && s.fam == FAM_INVERTED && psig == psi);
                ninf++;
                continue;
            }
            /* gradient() returns Ψ: the same quantity, so equal up to a few roundings. */
            CHECK_NEAR(psig, psi, 1e-13 * fabs(psi));
            CHECK(psi >= 0.0);
            fd_gradient(t->energy, &s.e, s.x, t->nv, s.h, fd);
            if (s.contact < 0) {
                /* Separated by more than the stencil reaches: Ψ = 0 around x, so ∇Ψ and
                 * its finite differences are exactly zero. */
                CHECK(psi == 0.0 && max_abs(gr, n) == 0.0 && max_abs(fd, n) == 0.0);
                continue;
            }
            if (s.contact > 0) {
                CHECK(psi > 0.0); /* d < η by at least 0.05 L */
                nactive++;
            }
            /* The natural scale of ∇Ψ: |∇Ψ|, or Ψ/ℓ where ∇Ψ happens to be small (FD
             * rounding is ~ε Ψ/h). */
            double scale = fmax(norm_n(gr, n), psi / s.len);
            double err = dist_n(gr, fd, n) / scale;
            char buf[48];
            if (!(err <= 1e-6))
                fprintf(stderr, "%s sample %d (%s): FD error %.3g relative to %.3g\n", label(t),
                        i, sample_name(&s, buf, sizeof buf), err, scale);
            CHECK(scale > 0.0);
            CHECK(err <= 1e-6);
            if (err > worst) {
                worst = err;
                snprintf(where, sizeof where, "sample %d, %s", i, sample_name(&s, buf, sizeof buf));
            }
        }
        fprintf(stderr, "registry_gradients: %-34s worst FD error %.2e (%s); %d infinite\n",
                label(t), worst, where, ninf);
        if (one_sided(t->kind)) {
            /* Most samples must be in contact, or the FD checks above say little. */
            fprintf(stderr, "registry_gradients: %-34s %d of %d samples in contact (d < eta)\n",
                    label(t), nactive, ns);
            CHECK(nactive > ns / 2);
        }
    }
}

static void test_registry_hessians(void) {
    int ti = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!has_derivatives(t)) continue;
        lcg g = {7000 + (uint64_t)ti};
        int n = 3 * t->nv, ns = n_samples(t->kind), nactive = 0;
        double worst = 0.0;
        char where[96] = "none";
        for (int i = 0; i < ns; i++) {
            family fam;
            bool uv;
            sample_plan(t->kind, i, &fam, &uv);
            sample s;
            make_sample(t, &g, fam, uv, &s);
            double psi = t->energy(&s.e, s.x), gr[NX];
            t->gradient(&s.e, s.x, gr);
            double gscale = fmax(norm_n(gr, n), psi / s.len);
            /* Every mode returns the same Ψ as energy() and the same gradient as
             * gradient() (a few roundings: 1e-13 and 1e-12 relative), and computes the
             * same H whether or not the gradient is asked for. */
            double H[3][NX * NX];
            for (int m = 0; m < 3; m++) {
                double gh[NX], H2[NX * NX];
                double psih = t->hessian(&s.e, s.x, MODES[m], gh, H[m]);
                double psi2 = t->hessian(&s.e, s.x, MODES[m], NULL, H2);
                CHECK(!isnan(psih) && !any_nan(gh, n) && !any_nan(H[m], n * n));
                if (isinf(psi)) {
                    CHECK(psih == psi && psi2 == psi);
                    continue;
                }
                CHECK_NEAR(psih, psi, 1e-13 * psi);
                CHECK_NEAR(psi2, psi, 1e-13 * psi);
                if (!(dist_n(gh, gr, n) <= 1e-12 * gscale))
                    fprintf(stderr, "%s %s: hessian's gradient differs from gradient() by %.3g\n",
                            label(t), MODE_NAME[m], dist_n(gh, gr, n));
                CHECK(dist_n(gh, gr, n) <= 1e-12 * gscale);
                CHECK(dist_n(H2, H[m], n * n) <=
                      1e-14 * fmax(norm_n(H[0], n * n), norm_n(H[m], n * n)));
            }
            if (isinf(psi)) {
                CHECK(s.fam == FAM_INVERTED);
                continue;
            }
            double hn = norm_n(H[0], n * n);
            if (s.contact < 0) { /* separated: Ψ = 0 around x, every mode's H is zero */
                for (int m = 0; m < 3; m++) CHECK(max_abs(H[m], n * n) == 0.0);
                continue;
            }
            nactive += s.contact > 0;
            /* Symmetric up to rounding: 1e-12 of ‖H‖_F. */
            CHECK(hn > 0.0);
            CHECK(asymmetry(H[0], n) <= 1e-12 * hn);
            /* Against FD of the gradient: the error in ‖·‖_F relative to ‖H‖_F, or to
             * ‖∇Ψ‖/ℓ where H happens to be small (FD rounding is ~ε |∇Ψ|/h). */
            double fd[NX * NX];
            fd_hessian(t, &s.e, s.x, s.h, fd);
            double err = dist_n(fd, H[0], n * n) / fmax(hn, gscale / s.len);
            char buf[48];
            if (!(err <= 1e-6))
                fprintf(stderr, "%s sample %d (%s): Hessian FD error %.3g, |H|_F %.3g\n",
                        label(t), i, sample_name(&s, buf, sizeof buf), err, hn);
            CHECK(err <= 1e-6);
            if (err > worst) {
                worst = err;
                snprintf(where, sizeof where, "sample %d, %s", i, sample_name(&s, buf, sizeof buf));
            }
        }
        fprintf(stderr, "registry_hessians: %-34s worst FD error %.2e (%s)\n", label(t), worst,
                where);
        if (one_sided(t->kind)) {
            fprintf(stderr, "registry_hessians: %-34s %d of %d samples in contact (d < eta)\n",
                    label(t), nactive, ns);
            CHECK(nactive > ns / 2);
        }
    }
}

static void test_registry_projection(void) {
    int ti = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!has_derivatives(t)) continue;
        lcg g = {8000 + (uint64_t)ti};
        int n = 3 * t->nv, ns = n_samples(t->kind), indefinite = 0, finite = 0;
        for (int i = 0; i < ns; i++) {
            family fam;
            bool uv;
            sample_plan(t->kind, i, &fam, &uv);
            sample s;
            make_sample(t, &g, fam, uv, &s);
            double H[3][NX * NX];
            double psi = t->hessian(&s.e, s.x, WEFT_HESSIAN_EXACT, NULL, H[0]);
            if (isinf(psi)) continue;
            finite++;
            t->hessian(&s.e, s.x, WEFT_HESSIAN_ANALYTIC, NULL, H[1]);
            t->hessian(&s.e, s.x, WEFT_HESSIAN_CLAMP, NULL, H[2]);
            /* Eigenvalues of a computed 12×12 matrix carry errors ~n ε ‖H‖; exact zero
             * modes (rigid motions) then show as ±1e-15 ‖H‖. "PSD" below means
             * λmin ≥ −1e-10 scale; "already PSD" for the exact H the stricter −1e-12
             * ‖H‖_F, where clamping changes it by ≲ 1e-12 ‖H‖ (times the squared
             * conditioning of ∂F/∂x for F-based types) — far below the 1e-8 allowed. */
            double hn = norm_n(H[0], n * n), lx = min_eigenvalue(H[0], n);
            bool psd = lx >= -1e-12 * hn;
            indefinite += !psd;
            for (int m = 1; m < 3; m++) {
                double scale = fmax(hn, norm_n(H[m], n * n));
                double lp = min_eigenvalue(H[m], n);
                char buf[48];
                if (!(lp >= -1e-10 * scale))
                    fprintf(stderr, "%s %s sample %d (%s): λmin %.3g of |H|_F %.3g\n", label(t),
                            MODE_NAME[m], i, sample_name(&s, buf, sizeof buf), lp, scale);
                CHECK(lp >= -1e-10 * scale);
                CHECK(asymmetry(H[m], n) <= 1e-12 * scale);
                /* Projecting a PSD matrix changes nothing: for ∂²Ψ/∂x² = W Bᵀ A B with
                 * B = ∂vec(F)/∂x onto (rank 9 for tets, 6 for membranes), H is PSD
                 * exactly when A is, so this holds for projections of A as well. */
                if (psd) {
                    if (!(dist_n(H[m], H[0], n * n) <= 1e-8 * scale))
                        fprintf(stderr, "%s %s sample %d (%s): PSD H changed by %.3g of %.3g\n",
                                label(t), MODE_NAME[m], i, sample_name(&s, buf, sizeof buf),
                                dist_n(H[m], H[0], n * n), scale);
                    CHECK(dist_n(H[m], H[0], n * n) <= 1e-8 * scale);
                }
            }
            /* An analytic eigensystem must give the projection LAPACKE gives. */
            if (t->analytic_psd) {
                double scale = fmax(hn, norm_n(H[2], n * n)), d = dist_n(H[1], H[2], n * n);
                char buf[48];
                if (!(d <= 1e-8 * scale))
                    fprintf(stderr, "%s sample %d (%s): ANALYTIC − CLAMP %.3g of |H|_F %.3g\n",
                            label(t), i, sample_name(&s, buf, sizeof buf), d, scale);
                CHECK(d <= 1e-8 * scale);
            }
        }
        fprintf(stderr, "registry_projection: %-34s %d of %d exact Hessians indefinite%s\n",
                label(t), indefinite, finite, t->analytic_psd ? " (analytic = clamp checked)" : "");
    }
}

static void test_registry_rest(void) {
    int ti = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!supported(t) || !t->energy) continue;
        lcg g = {2000 + (uint64_t)ti};
        int n = 3 * t->nv;
        for (int trial = 0; trial < TRIALS; trial++) {
            sample s;
            make_sample(t, &g, FAM_RANDOM, trial % 2 == 1, &s);
            double gr[NX], gd[NX];
            if (one_sided(t->kind)) {
                /* A contact penalty vanishes on the whole separated region d ≥ η, and
                 * rest shapes are separated by more than η: Ψ, ∇Ψ and the Hessian in
                 * every mode are exactly zero there (a minimum, but not a strict one). */
                CHECK(t->energy(&s.e, s.xr) == 0.0);
                if (t->gradient) {
                    CHECK(t->gradient(&s.e, s.xr, gr) == 0.0);
                    CHECK(max_abs(gr, n) == 0.0);
                }
                for (int m = 0; m < 3 && t->hessian; m++) {
                    double H[NX * NX];
                    CHECK(t->hessian(&s.e, s.xr, MODES[m], gr, H) == 0.0);
                    CHECK(max_abs(gr, n) == 0.0 && max_abs(H, n * n) == 0.0);
                }
                /* ... while the deformed shape costs energy exactly when it is in contact. */
                double psi = t->energy(&s.e, s.x);
                CHECK(s.contact > 0 ? psi > 0.0 : psi == 0.0);
                continue;
            }
            /* Reference magnitudes from a deformed shape of the same element. */
            double psi_ref = t->energy(&s.e, s.x);
            CHECK(psi_ref > 0.0); /* deforming costs energy: the rest shape is a strict
                                     minimum of Ψ away from rigid motions */
            /* At rest the energy vanishes and is stationary. Rest data computed from the
             * same shape leave only rounding: strains ~1e-16, so Ψ ~ 1e-32 and ∇Ψ ~ 1e-16
             * in units of the deformed (strain ~0.1) values; 1e-12 and 1e-10 relative
             * are generous and still catch a wrong rest datum (O(1) relative). */
            CHECK(fabs(t->energy(&s.e, s.xr)) <= 1e-12 * psi_ref);
            if (!t->gradient) continue;
            t->gradient(&s.e, s.x, gd);
            double psir = t->gradient(&s.e, s.xr, gr);
            CHECK(fabs(psir) <= 1e-12 * psi_ref);
            CHECK(max_abs(gr, n) <= 1e-10 * max_abs(gd, n));
            if (!t->hessian) continue;
            /* A minimum: the exact Hessian is PSD there (to the rounding of its zero
             * modes), so both projections leave it unchanged (tolerances as in
             * registry_projection); hessian() agrees on Ψ = 0 and ∇Ψ = 0. */
            double H[3][NX * NX];
            for (int m = 0; m < 3; m++) {
                double psih = t->hessian(&s.e, s.xr, MODES[m], gr, H[m]);
                CHECK(fabs(psih) <= 1e-12 * psi_ref);
                CHECK(max_abs(gr, n) <= 1e-10 * max_abs(gd, n));
            }
            double hn = norm_n(H[0], n * n), lx = min_eigenvalue(H[0], n);
            if (!(lx >= -1e-10 * hn))
                fprintf(stderr, "%s trial %d: rest Hessian has λmin %.3g, |H|_F %.3g\n", label(t),
                        trial, lx, hn);
            CHECK(hn > 0.0 && lx >= -1e-10 * hn);
            CHECK(dist_n(H[1], H[0], n * n) <= 1e-8 * hn);
            CHECK(dist_n(H[2], H[0], n * n) <= 1e-8 * hn);
        }
    }
}

/* Applies x -> R x + tr to every vertex. */
static void rigid(const double R[9], const double *tr, const double *x, int nv, double *y) {
    for (int a = 0; a < nv; a++) {
        mat_vec(R, &x[3 * a], &y[3 * a]);
        for (int k = 0; k < 3; k++) y[3 * a + k] += tr[k];
    }
}

/* out = R̃ H R̃ᵀ with R̃ = diag(R, …, R) (nv blocks): the Hessian in the rotated frame. */
static void rotate_hessian(const double R[9], const double *H, int nv, double *out) {
    int n = 3 * nv;
    for (int a = 0; a < nv; a++)
        for (int b = 0; b < nv; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double s = 0.0;
                    for (int k = 0; k < 3; k++)
                        for (int l = 0; l < 3; l++)
                            s += R[3 * i + k] * H[n * (3 * a + k) + 3 * b + l] * R[3 * j + l];
                    out[n * (3 * a + i) + 3 * b + j] = s;
                }
}

static void test_registry_invariance(void) {
    int ti = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!supported(t) || !t->energy) continue;
        lcg g = {3000 + (uint64_t)ti};
        int nv = t->nv, n = 3 * nv, ns = n_samples(t->kind);
        for (int i = 0; i < ns; i++) {
            family fam;
            bool uv;
            sample_plan(t->kind, i, &fam, &uv);
            sample s;
            make_sample(t, &g, fam, uv, &s);
            double y[NX], axis[3], R[9], tr[3];
            rnd_unit(&g, axis);
            rotation(axis, rnd_in(&g, -WEFT_PI, WEFT_PI), R);
            for (int k = 0; k < 3; k++) tr[k] = rnd_in(&g, -5.0, 5.0);
            rigid(R, tr, s.x, nv, y);
            double psi = t->energy(&s.e, s.x), psiy = t->energy(&s.e, y);
            if (isinf(psi)) {
                CHECK(psiy == psi); /* leaving the domain is frame-independent too */
                continue;
            }
            /* Frame indifference: Ψ depends on the shape only. Moving the coordinates
             * rounds them by ~1e-15 m (|t| ≤ 5 m), which changes Ψ by at most
             * ~1e-15 · nv · max|∇Ψ| on top of its own relative rounding: the tolerance
             * 1e-12 (Ψ + L max|∇Ψ|) covers both with a wide margin (a small random
             * deformation can make Ψ itself tiny, so a purely relative bound would
             * be wrong), while a frame-dependent Ψ differs at O(Ψ). */
            double gx[NX], gy[NX], sum[3] = {0, 0, 0};
            double scale = 0.0;
            if (t->gradient) {
                t->gradient(&s.e, s.x, gx);
                scale = max_abs(gx, n);
            }
            if (!(fabs(psiy - psi) <= 1e-12 * (psi + s.L * scale)))
                fprintf(stderr, "%s sample %d: Psi %.17g, moved %.17g\n", label(t), i, psi, psiy);
            CHECK(fabs(psiy - psi) <= 1e-12 * (psi + s.L * scale));
            if (!t->gradient) continue;
            /* ∇Ψ(R x + t) = R ∇Ψ(x): forces rotate with the body (and, as Σ∇Ψ = 0 follows
             * from translation invariance, sum to zero). Rounding as above, relative
             * to max|∇Ψ| and amplified by the conditioning of ∇Ψ (~1/strain, and
             * ~L/len for squashed samples): 1e-10. */
            t->gradient(&s.e, y, gy);
            for (int a = 0; a < nv; a++) {
                double rg[3];
                mat_vec(R, &gx[3 * a], rg);
                for (int k = 0; k < 3; k++) {
                    CHECK_NEAR(gy[3 * a + k], rg[k], 1e-10 * scale);
                    sum[k] += gx[3 * a + k];
                }
            }
            for (int k = 0; k < 3; k++) CHECK_NEAR(sum[k], 0.0, 1e-12 * scale * nv);
            if (!t->hessian) continue;
            /* H(R x + t) = R̃ H(x) R̃ᵀ in every mode (a projection built from the shape is
             * as frame-independent as the shape). Rounding as for ∇Ψ, one derivative
             * further (×L/len): 1e-9 of ‖H‖_F, the exact Hessian's norm also for the
             * projections (one of an indefinite H can be all rounding, ~0). */
            double hn = 0.0;
            for (int m = 0; m < 3; m++) {
                double Hx[NX * NX], Hy[NX * NX], RH[NX * NX];
                t->hessian(&s.e, s.x, MODES[m], NULL, Hx);
                t->hessian(&s.e, y, MODES[m], NULL, Hy);
                rotate_hessian(R, Hx, nv, RH);
                hn = fmax(hn, norm_n(Hx, n * n));
                double d = dist_n(Hy, RH, n * n);
                char buf[48];
                if (!(d <= 1e-9 * hn))
                    fprintf(stderr, "%s %s sample %d (%s): |H(Rx+t) - R H Rᵀ| %.3g of %.3g\n",
                            label(t), MODE_NAME[m], i, sample_name(&s, buf, sizeof buf), d, hn);
                CHECK(d <= 1e-9 * hn);
            }
        }
    }
}

static void test_registry_constraints(void) {
    int ti = 0, tested = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!supported(t) || !t->constraint) continue;
        tested++;
        current = t;
        lcg g = {4000 + (uint64_t)ti};
        int nv = t->nv;
        for (int trial = 0; trial < TRIALS; trial++) {
            double y[NX], gc[NX], fd[NX];
            sample s;
            make_sample(t, &g, FAM_RANDOM, trial % 2 == 1, &s);
            double c = t->constraint(&s.e, s.x, gc);
            /* Filling the gradient does not change the value. */
            CHECK(t->constraint(&s.e, s.x, NULL) == c);
            /* The contract XPBD's compliance α = 1/k rests on: Ψ = ½ k C². */
            double psi = t->energy(&s.e, s.x);
            CHECK_NEAR(psi, 0.5 * s.e.k * c * c, 1e-12 * fmax(fabs(psi), 1e-300));
            /* ∇C against finite differences: same argument as for Ψ (C is smooth
             * away from degenerate shapes). */
            fd_gradient(constraint_value, &s.e, s.x, nv, s.h, fd);
            double err = 0.0, scale = max_abs(gc, 3 * nv);
            for (int i = 0; i < 3 * nv; i++) err = fmax(err, fabs(gc[i] - fd[i]));
            CHECK(scale > 0.0);
            CHECK(err <= 1e-6 * scale);
            /* C = 0 at rest (the rest data are where the constraint is satisfied), to
             * rounding: 1e-10 of the deformed |C| ~ 0.1. */
            double cr = t->constraint(&s.e, s.xr, NULL);
            CHECK(fabs(cr) <= 1e-10 * fmax(fabs(c), 1e-3));
            /* Rigid invariance of C (tolerance argued as for Ψ in registry_invariance). */
            double axis[3], R[9], tr[3];
            rnd_unit(&g, axis);
            rotation(axis, rnd_in(&g, -WEFT_PI, WEFT_PI), R);
            for (int k = 0; k < 3; k++) tr[k] = rnd_in(&g, -5.0, 5.0);
            rigid(R, tr, s.x, nv, y);
            CHECK_NEAR(t->constraint(&s.e, y, NULL), c, 1e-12 * (fabs(c) + s.L * scale));
        }
    }
    fprintf(stderr, "registry_constraints: %d type(s) with a native constraint\n", tested);
}

/* Degenerate configuration j of a deformed element x (nv vertices) into y; returns its
 * name, "" when it does not apply to nv vertices, NULL past the last one. */
static const char *degenerate(lcg *g, int j, const double *x, int nv, double *y) {
    memcpy(y, x, sizeof(double) * 3 * (size_t)nv);
    double d[3];
    switch (j) {
    case 0: /* an inverted tet; a triangle seen from its other side; a hinge's edge reversed */
        for (int k = 0; k < 3; k++) y[k] = x[3 + k], y[3 + k] = x[k];
        return "vertices 0 and 1 swapped";
    case 1: /* a zero-length edge */
        for (int k = 0; k < 3; k++) y[3 + k] = x[k];
        return "vertices 0 and 1 coincident";
    case 2: /* collinear: a collapsed triangle, a hinge of zero-area triangles */
        if (nv < 3) return "";
        for (int k = 0; k < 3; k++) d[k] = x[3 + k] - x[k];
        for (int a = 2; a < nv; a++) {
            double s = rnd_in(g, -0.5, 1.5);
            for (int k = 0; k < 3; k++) y[3 * a + k] = x[k] + s * d[k];
        }
        return "all vertices on the line x0 x1";
    case 3: { /* x3 into the plane of x0, x1, x2: a flat tet (det = 0), a flat hinge */
        if (nv < 4) return "";
        double a[3], b[3], n[3];
        for (int k = 0; k < 3; k++) {
            a[k] = x[3 + k] - x[k], b[k] = x[6 + k] - x[k], d[k] = x[9 + k] - x[k];
        }
        cross3(a, b, n);
        double dn = dot3(d, n) / dot3(n, n);
        for (int k = 0; k < 3; k++) y[9 + k] -= dn * n[k];
        return "vertex 3 in the plane of x0 x1 x2";
    }
    case 4:
        for (int a = 1; a < nv; a++)
            for (int k = 0; k < 3; k++) y[3 * a + k] = x[k];
        return "all vertices at one point";
    default: return NULL;
    }
}

/* vertex_hessian(mode) equals hessian(mode)'s vertex block and gradient, bit for bit. */
static void check_vertex_blocks_mode(const weft_energy_type *t, const weft_element *e,
                                     const double *xe, weft_hessian_mode mode) {
    const int n = 3 * t->nv;
    double g[NX], H[NX * NX];
    const double psi = t->hessian(e, xe, mode, g, H);
    for (int v = 0; v < t->nv; v++) {
        double gv[3], Hv[9];
        CHECK(t->vertex_hessian(e, xe, mode, v, gv, Hv) == psi);
        for (int i = 0; i < 3; i++) {
            CHECK(gv[i] == g[3 * v + i]);
            for (int j = 0; j < 3; j++) CHECK(Hv[3 * i + j] == H[n * (3 * v + i) + 3 * v + j]);
        }
    }
}

/* vertex_hessian equals hessian's vertex block and gradient in every mode, bit for bit, on
 * xe. */
static void check_vertex_blocks(const weft_energy_type *t, const weft_element *e,
                                const double *xe) {
    const weft_hessian_mode modes[] = {WEFT_HESSIAN_EXACT, WEFT_HESSIAN_ANALYTIC,
                                       WEFT_HESSIAN_CLAMP};
    for (int mi = 0; mi < 3; mi++) check_vertex_blocks_mode(t, e, xe, modes[mi]);
}

static void test_registry_vertex(void) {
    /* vertex_hessian (vertex block descent's per-vertex blocks, solvers/vertex_block.c) of
     * every type that has one: the same numbers as the full Hessian's diagonal blocks and
     * gradient in every mode, bit for bit, on random, compressed, near-degenerate and folded
     * samples, at rest (C = 0) and on the degenerate configurations. */
    int ti = 0, tested = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!t->vertex_hessian) continue;
        CHECK(t->hessian != NULL);
        if (!t->hessian) continue;
        tested++;
        current = t;
        lcg g = {9500 + (uint64_t)ti};
        for (int i = 0; i < n_samples(t->kind); i++) {
            family fam;
            bool uv;
            sample_plan(t->kind, i, &fam, &uv);
            sample s;
            make_sample(t, &g, fam, uv, &s);
            check_vertex_blocks(t, &s.e, s.x);
            if (i == 0) check_vertex_blocks(t, &s.e, s.xr);
            double y[NX];
            const char *name;
            for (int j = 0; (name = degenerate(&g, j, s.x, t->nv, y)) != NULL; j++)
                if (*name) check_vertex_blocks(t, &s.e, y);
        }
        fprintf(stderr, "registry_vertex: %-34s blocks equal\n", label(t));
    }
    /* mass_spring, both dihedral hinges, quadratic_bending, 7 membranes, 6 tetrahedra */
    CHECK(tested >= 17);
}


static void test_registry_degenerate(void) {
    int ti = 0;
    for (const weft_energy_type *const *tp = weft_energy_registry; *tp; tp++, ti++) {
        const weft_energy_type *t = *tp;
        if (!has_derivatives(t)) continue;
        lcg g = {9000 + (uint64_t)ti};
        int n = 3 * t->nv, ninf = 0, nconf = 0;
        for (int trial = 0; trial < 8; trial++) {
            sample s;
            make_sample(t, &g, FAM_RANDOM, trial % 2 == 1, &s);
            double y[NX];
            const char *what;
            for (int j = 0; (what = degenerate(&g, j, s.x, t->nv, y)); j++) {
                if (!what[0]) continue;
                /* Ψ ∈ [0, +∞] and the same from every function; no NaN anywhere. */
                double gr[NX], gh[NX], H[NX * NX];
                double psi = t->energy(&s.e, y), psig = t->gradient(&s.e, y, gr);
                bool ok = !isnan(psi) && psi >= 0.0 && !any_nan(gr, n) &&
                          (psig == psi || fabs(psig - psi) <= 1e-13 * psi);
                for (int m = 0; m < 3; m++) {
                    double psih = t->hessian(&s.e, y, MODES[m], gh, H);
                    ok = ok && !any_nan(gh, n) && !any_nan(H, n * n) &&
                         (psih == psi || fabs(psih - psi) <= 1e-13 * psi);
                }
                if (!ok)
                    fprintf(stderr, "%s trial %d%s, %s: Psi %g / %g, NaN in g or H, or the "
                            "functions disagree\n", label(t), trial, s.with_uv ? " (uv)" : "",
                            what, psi, psig);
                CHECK(ok);
                nconf++;
                ninf += isinf(psi);
            }
        }
        fprintf(stderr, "registry_degenerate: %-34s %d configurations, %d with Psi = +inf\n",
                label(t), nconf, ninf);
    }
}

/* ------------------------------------------------------------------------------ */
/* Closed forms                                                                    */
/* ------------------------------------------------------------------------------ */

/* shape_operator_bending on the regular grid (papers/calibration.md §2b): the triangle
 * (0, 0), (h, 0), (h, h) of square cells with diagonals along (1, 1), its wings (2h, h),
 * (0, h), (0, −h), lifted to z = ε w with w = ½(a x² + 2b xy + c y²). Its shape operator
 * is [[a, b], [b, c]] ε to first order, so Ψ/ε² → ½ D A [(1 − ν)(a² + 2b² + c²) +
 * ν (a + c)²], A = h²/2 (D = coefficient, ν = 0.3). ε = 1e-5 leaves O(ε²) relative:
 * tolerance 1e-6. A corner of a free side (wing 2 missing): the angle across that edge
 * (normal (0, 1)) is eliminated, so S_yy is free and Ψ is the minimum over it:
 * c replaced by the c' that minimises, ½ D A (1 − ν²) a² + (1 − ν) D A b² (c' = −ν a). */
static void shape_operator_grid(void) {
    lcg g = {29};
    const double h = 0.3, eps = 1e-5, nu = PARAMS.poisson, D = COEFFICIENT, A = 0.5 * h * h;
    const double uv[6][2] = {{0, 0}, {h, 0}, {h, h}, {2 * h, h}, {0, h}, {0, -h}};
    for (int trial = 0; trial < 8; trial++) {
        double a = rnd_in(&g, -2, 2), b = rnd_in(&g, -2, 2), c = rnd_in(&g, -2, 2);
        bool side = trial % 2 == 1;
        double xr[18] = {0}, x[18];
        for (int i = 0; i < 6; i++) {
            double u = uv[i][0], v = uv[i][1];
            xr[3 * i] = u, xr[3 * i + 1] = v;
            x[3 * i] = u, x[3 * i + 1] = v;
            x[3 * i + 2] = eps * 0.5 * (a * u * u + 2 * b * u * v + c * v * v);
        }
        weft_element e = {.v = {0, 1, 2, 3, 4, side ? 2 : 5}};
        weft_shape_operator_bending.init(&e, xr, &PARAMS);
        double psi = weft_shape_operator_bending.energy(&e, x) / (eps * eps);
        double want = side ? 0.5 * D * A * (1 - nu * nu) * a * a + (1 - nu) * D * A * b * b
                           : 0.5 * D * A * ((1 - nu) * (a * a + 2 * b * b + c * c) +
                                            nu * (a + c) * (a + c));
        if (!(fabs(psi - want) <= 1e-6 * fabs(want)))
            fprintf(stderr, "shape_operator_bending grid%s: Psi/eps^2 %.9g, want %.9g\n",
                    side ? " (free side)" : "", psi, want);
        CHECK_NEAR(psi, want, 1e-6 * fabs(want));
    }
}

static void test_closed_forms(void) {
    /* mass_spring: k = Y (A₁ + A₂)/ℓ0² = 3 Y A/ℓ0² with Y = coefficient = 2 N/m and
     * A = area = 0.3 m² (a third of the adjacent area, as the scene passes it).
     * Stretched to 1.5 ℓ0, C = 0.5 ℓ0 and Ψ = ½ k C² = ½ (1.8/ℓ0²)(0.25 ℓ0²) = 0.225 J,
     * independent of ℓ0 (the point of k ∝ 1/ℓ0²: Ψ = ½ Y (A₁ + A₂) ε², mesh-independent).
     * The force is k C = 0.9/ℓ0 N along the edge, pulling the ends together. */
    const double l0s[] = {0.01, 0.7, 3.0};
    for (int i = 0; i < 3; i++) {
        double l0 = l0s[i];
        double xr[6] = {0, 0, 0, l0, 0, 0}, x[6] = {0, 0, 0, 1.5 * l0, 0, 0}, g[6];
        weft_element e = {.v = {0, 1, 0, 0}};
        weft_mass_spring.init(&e, xr, &PARAMS);
        CHECK_NEAR(e.k, 3.0 * COEFFICIENT * AREA / (l0 * l0), 1e-12 * e.k);
        /* A few roundings of O(1) quantities: 1e-14 relative. */
        CHECK_NEAR(weft_mass_spring.energy(&e, x), 0.225, 3e-14);
        weft_mass_spring.gradient(&e, x, g);
        CHECK_NEAR(g[0], -0.9 / l0, 3e-13 / l0);
        CHECK_NEAR(g[3], 0.9 / l0, 3e-13 / l0);
        CHECK(g[1] == 0.0 && g[2] == 0.0 && g[4] == 0.0 && g[5] == 0.0);
        /* Compressed to 0.5 ℓ0: the same |C|, the same energy (Ψ is even in C). */
        x[3] = 0.5 * l0;
        CHECK_NEAR(weft_mass_spring.energy(&e, x), 0.225, 3e-14);
    }
    /* dihedral_bending: k = D |e|²/A with D = coefficient = 2 N·m, A = area = 0.3 m²,
     * so k = 20/3 |e|² J/rad² (discrete_shells: Grinspun's 3 D |e|²/A = 20 |e|²). A flat
     * rest hinge (edge on the x axis, p2 at +y, p3 at −y), folded by rotating p3 about
     * the edge by φ, has θ − θ0 = ±φ, so Ψ = ½ k φ². */
    for (int i = 0; i < 2; i++) {
        double L = 0.5 + 1.5 * i;
        double xr[12] = {0, 0, 0, L, 0, 0, 0.3 * L, 0.8 * L, 0, 0.6 * L, -0.7 * L, 0};
        weft_element e = {.v = {0, 1, 2, 3}};
        weft_discrete_shells.init(&e, xr, &PARAMS);
        CHECK_NEAR(e.k, COEFFICIENT * 3.0 * L * L / AREA, 1e-12 * e.k);
    }
    const double Ls[] = {0.5, 2.0};
    const double phis[] = {0.3, -0.3, 1.0, -2.5, 3.0};
    for (int i = 0; i < 2; i++) {
        double L = Ls[i];
        double xr[12] = {0, 0, 0, L, 0, 0, 0.3 * L, 0.8 * L, 0, 0.6 * L, -0.7 * L, 0};
        weft_element e = {.v = {0, 1, 2, 3}};
        weft_dihedral_bending.init(&e, xr, &PARAMS);
        double k = COEFFICIENT * L * L / AREA;
        CHECK_NEAR(e.k, k, 1e-12 * k);
        CHECK_NEAR(weft_dihedral_bending.energy(&e, xr), 0.0, 1e-30);
        for (int j = 0; j < 5; j++) {
            double phi = phis[j], x[12];
            memcpy(x, xr, sizeof x);
            /* (0.6 L, −0.7 L, 0) rotated about the x axis by φ. */
            x[10] = -0.7 * L * cos(phi);
            x[11] = -0.7 * L * sin(phi);
            /* θ is recovered to ~1e-15 rad; Ψ's relative error is then ≤ 2e-15/|φ|:
             * 1e-13 relative. */
            CHECK_NEAR(weft_dihedral_bending.energy(&e, x), 0.5 * k * phi * phi,
                       1e-13 * 0.5 * k * phi * phi);
        }
        /* A bent rest shape (θ0 = ±0.8, depending on the orientation convention)
         * folded a further 0.5 rad in the same sense: Ψ = ½ k 0.5². */
        double xb[12], x2[12];
        memcpy(xb, xr, sizeof xb);
        xb[10] = -0.7 * L * cos(0.8), xb[11] = -0.7 * L * sin(0.8);
        weft_dihedral_bending.init(&e, xb, &PARAMS);
        memcpy(x2, xr, sizeof x2);
        x2[10] = -0.7 * L * cos(1.3), x2[11] = -0.7 * L * sin(1.3);
        CHECK_NEAR(weft_dihedral_bending.energy(&e, x2), 0.5 * k * 0.25, 1e-13 * k);
    }
    shape_operator_grid();
}

/* quadratic_bending on a flat rest diamond (Bergou et al. 2006): the exactly quadratic
 * model. The diamond is laid in a random plane at a random place. Checks:
 * - the cotangent weights K: Σ K_i = 0, and K_i/L n̂ is ∇θ_i of weft_hinge_angle at the
 *   flat rest state (the linearisation the calibration k = D/Ā rests on), to 1e-12;
 * - the rest diamond counts as flat (r0 = 0 exactly) and k = D/(A_A + A_B);
 * - the Hessian is the same matrix at every configuration, bit for bit and in every
 *   mode, and equals k K Kᵀ ⊗ I₃ (to rounding, 1e-14 of ‖H‖);
 * - Ψ(x) = ½ xᵀ H x at deformed shapes (1e-12 relative), and a small fold φ about the
 *   edge costs ½ D L² φ²/Ā to O(φ²) relative. */
static void test_quadratic_flat(void) {
    lcg g = {777};
    const weft_energy_type *t = &weft_quadratic_bending;
    for (int trial = 0; trial < 20; trial++) {
        double e1[3], tmp[3], e2[3], n[3], c[3];
        rnd_unit(&g, e1);
        do {
            rnd_unit(&g, tmp);
            cross3(e1, tmp, n);
        } while (norm3(n) < 0.3);
        double ln = norm3(n);
        for (int k = 0; k < 3; k++) n[k] /= ln;
        cross3(n, e1, e2); /* (e1, e2) span the plane, n its normal */
        for (int k = 0; k < 3; k++) c[k] = rnd_in(&g, -1.0, 1.0);
        double L = rnd_in(&g, 0.05, 2.0);
        double uv[4][2] = {{0, 0}, {L, 0}, {rnd_in(&g, -0.3, 1.3) * L, rnd_in(&g, 0.3, 1.0) * L},
                           {rnd_in(&g, -0.3, 1.3) * L, -rnd_in(&g, 0.3, 1.0) * L}};
        double xr[12];
        for (int a = 0; a < 4; a++)
            for (int k = 0; k < 3; k++) xr[3 * a + k] = c[k] + uv[a][0] * e1[k] + uv[a][1] * e2[k];
        weft_element e = {.v = {0, 1, 2, 3}};
        t->init(&e, xr, &PARAMS);
        const double *K = e.rest;
        double area = 0.5 * L * (uv[2][1] - uv[3][1]);
        CHECK(e.rest[4] == 0.0);
        CHECK_NEAR(e.k, COEFFICIENT / area, 1e-12 * e.k);
        CHECK_NEAR(K[0] + K[1] + K[2] + K[3], 0.0, 1e-12 * (fabs(K[2]) + fabs(K[3])));
        double gt[12];
        weft_hinge_angle(xr, xr + 3, xr + 6, xr + 9, gt);
        double gmax = max_abs(gt, 12), nA[3], a2[3], ed[3];
        for (int k = 0; k < 3; k++) ed[k] = xr[3 + k] - xr[k], a2[k] = xr[6 + k] - xr[k];
        cross3(ed, a2, nA);
        double lA = norm3(nA);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                CHECK_NEAR(gt[3 * i + k], K[i] / L * nA[k] / lA, 1e-12 * gmax);
        /* Constant Hessian, equal to k K Kᵀ ⊗ I₃. */
        double H0[144], H[144], x[12], gr[12];
        t->hessian(&e, xr, WEFT_HESSIAN_EXACT, NULL, H0);
        double hn = norm_n(H0, 144);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        CHECK_NEAR(H0[12 * (3 * i + a) + 3 * j + b],
                                   a == b ? e.k * K[i] * K[j] : 0.0, 1e-14 * hn);
        for (int s = 0; s < 3; s++) {
            deform(&g, xr, 4, L, x);
            if (s == 2) squash(&g, WEFT_ELEM_HINGE, 4, 0.05, x);
            for (int m = 0; m < 3; m++) {
                t->hessian(&e, x, MODES[m], gr, H);
                CHECK(memcmp(H, H0, sizeof H) == 0);
            }
            double psi = t->energy(&e, x), quad = 0.0;
            for (int i = 0; i < 12; i++)
                for (int j = 0; j < 12; j++) quad += 0.5 * x[i] * H0[12 * i + j] * x[j];
            CHECK_NEAR(psi, quad, 1e-10 * psi); /* quad sums terms of size |x|² ≫ Ψ */
        }
        /* A fold by φ: p3 turned about the edge; Ψ → ½ D L² φ² / Ā as φ → 0. */
        const double phi = 1e-3;
        memcpy(x, xr, sizeof x);
        rotate_wing(x, phi);
        double want = 0.5 * COEFFICIENT * L * L * phi * phi / area;
        CHECK_NEAR(t->energy(&e, x), want, 1e-4 * want);
    }
}

/* H (6×6) = [[K, −K], [−K, K]] from a 3×3 K. */
static void spring_blocks(const double K[9], double H[36]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            H[6 * i + j] = H[6 * (i + 3) + j + 3] = K[3 * i + j];
            H[6 * i + j + 3] = H[6 * (i + 3) + j] = -K[3 * i + j];
        }
}

static void test_spring_hessian(void) {
    /* Ψ(d) = ½ k (|d| − ℓ0)² with d = x0 − x1; the Hessian over (x0, x1) is
     * [[K, −K], [−K, K]] with K = ∂²Ψ/∂d², since ∂d/∂x0 = I and ∂d/∂x1 = −I.
     * For a spring of length ℓ along the x axis, d = (−ℓ + s, y, z):
     *   along it, Ψ = ½ k (ℓ − s − ℓ0)², so ∂²Ψ/∂s² = k;
     *   across it, |d| = √(ℓ² + y²) = ℓ + y²/(2ℓ) + O(y⁴), so
     *   Ψ = ½ k (ℓ − ℓ0)² + ½ k (ℓ − ℓ0) y²/ℓ + O(y⁴) and ∂²Ψ/∂y² = k (1 − ℓ0/ℓ);
     *   Ψ is even in y and in z, so every mixed derivative vanishes.
     * Hence K = diag(k, t, t), t = k (1 − ℓ0/ℓ): at ℓ = 1.5 ℓ0, t = k/3; at ℓ = 0.5 ℓ0,
     * t = −k. The 6×6 eigenvalues are 2k, 2t, 2t and three zeros (translations), so
     * projecting clamps t to 0: diag(k, 0, 0) when compressed. Stretched to ℓ = 2 ℓ0 along
     * d̂ = (1, 1, 0)/√2 instead, K = k d̂d̂ᵀ + (k/2)(I − d̂d̂ᵀ) = (k/2)(I + d̂d̂ᵀ):
     * K_xx = K_yy = 3k/4, K_xy = k/4, K_zz = k/2. With coincident ends (ℓ = 0) the type
     * returns K = k I, g = 0 and Ψ = ½ k ℓ0² (documented in mass_spring.c).
     * Tolerance: a few roundings of k, 1e-13 k (CLAMP goes through an eigensolver). */
    const double l0 = 0.7, s2 = sqrt(0.5);
    const double xr[6] = {0, 0, 0, l0, 0, 0};
    weft_element e = {.v = {0, 1, 0, 0}};
    weft_mass_spring.init(&e, xr, &PARAMS);
    double k = e.k;
    CHECK_NEAR(k, 3.0 * COEFFICIENT * AREA / (l0 * l0), 1e-12 * k);
    struct {
        double x1[3];   /* x0 = 0 */
        double K[3][9]; /* expected K for EXACT, ANALYTIC, CLAMP */
    } cases[] = {
        {{1.5 * l0, 0, 0},
         {{k, 0, 0, 0, k / 3, 0, 0, 0, k / 3}, {k, 0, 0, 0, k / 3, 0, 0, 0, k / 3},
          {k, 0, 0, 0, k / 3, 0, 0, 0, k / 3}}},
        {{0.5 * l0, 0, 0},
         {{k, 0, 0, 0, -k, 0, 0, 0, -k}, {k, 0, 0, 0, 0, 0, 0, 0, 0},
          {k, 0, 0, 0, 0, 0, 0, 0, 0}}},
        {{-2.0 * l0 * s2, -2.0 * l0 * s2, 0}, /* d = x0 − x1 = 2 ℓ0 (1, 1, 0)/√2 */
         {{0.75 * k, 0.25 * k, 0, 0.25 * k, 0.75 * k, 0, 0, 0, 0.5 * k},
          {0.75 * k, 0.25 * k, 0, 0.25 * k, 0.75 * k, 0, 0, 0, 0.5 * k},
          {0.75 * k, 0.25 * k, 0, 0.25 * k, 0.75 * k, 0, 0, 0, 0.5 * k}}},
        {{0, 0, 0}, /* coincident ends */
         {{k, 0, 0, 0, k, 0, 0, 0, k}, {k, 0, 0, 0, k, 0, 0, 0, k}, {k, 0, 0, 0, k, 0, 0, 0, k}}},
    };
    for (int c = 0; c < 4; c++) {
        double x[6] = {0, 0, 0, cases[c].x1[0], cases[c].x1[1], cases[c].x1[2]};
        double dl = norm3(cases[c].x1) - l0, psi = 0.5 * k * dl * dl;
        for (int m = 0; m < 3; m++) {
            double H[36], want[36], g[6];
            spring_blocks(cases[c].K[m], want);
            CHECK_NEAR(weft_mass_spring.hessian(&e, x, MODES[m], g, H), psi, 1e-14 * psi);
            for (int i = 0; i < 36; i++) {
                if (!(fabs(H[i] - want[i]) <= 1e-13 * k))
                    fprintf(stderr, "case %d %s: H[%d][%d] = %.17g, want %.17g\n", c,
                            MODE_NAME[m], i / 6, i % 6, H[i], want[i]);
                CHECK_NEAR(H[i], want[i], 1e-13 * k);
            }
            if (c == 3)
                for (int i = 0; i < 6; i++) CHECK(g[i] == 0.0);
        }
    }
}

static void test_hinge_hessian(void) {
    /* A flat rest hinge p0 = 0, p1 = (L, 0, 0), p2 = (a2, b2, 0), p3 = (a3, −b3, 0) (θ0 = 0),
     * with the wing p3 turned about the edge (the x axis) by φ:
     *   p3(φ) = (a3, −b3 cos φ, −b3 sin φ).
     * Then nA = e × (p2 − p0) = (0, 0, L b2) and nB = −e × (p3 − p1) = L b3 (0, −sin φ, cos φ),
     * so n̂A·n̂B = cos φ and (n̂A × n̂B)·ê = sin φ: θ(φ) = φ for every φ ∈ (−π, π), hence
     * dθ/dφ = 1 and d²θ/dφ² = 0 along this path. weft_hinge_angle's gradient there:
     *   ∂θ/∂p2 = −|e| nA/|nA|² = (0, 0, −1/b2),   ∂θ/∂p3 = −|e| nB/|nB|² = (0, sin φ, −cos φ)/b3,
     *   ∂θ/∂p0 = −[(a2 − L)/b2 (0, 0, 1) + (a3 − L)/b3 (0, −sin φ, cos φ)] / L,
     *   ∂θ/∂p1 = +[a2/b2 (0, 0, 1) + a3/b3 (0, −sin φ, cos φ)] / L.
     * With v = dp/dφ = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b3 sin φ, −b3 cos φ), ∇²θ v is the
     * φ-derivative of ∇θ along the path; only the nB terms turn, with
     * d/dφ (0, −sin φ, cos φ) = (0, −cos φ, −sin φ):
     *   (∇²θ v)_p0 = −(a3 − L)/(b3 L) (0, −cos φ, −sin φ),
     *   (∇²θ v)_p1 = a3/(b3 L) (0, −cos φ, −sin φ),
     *   (∇²θ v)_p2 = 0,  (∇²θ v)_p3 = (0, cos φ, sin φ)/b3.
     * So with C = θ − θ0 = φ and ∇θ·v = 1:
     *   ∂Ψ/∂x = k φ ∇θ,   H v = k (∇θ (∇θ·v) + φ ∇²θ v) = k (∇θ + φ ∇²θ v),
     * and vᵀ H v = k (the second derivative of ½ k φ²; (∇²θ v)·v = 0 above). Checked for
     * φ up to ±3.1 rad, where the wings nearly close. Entries are O(k/L) and follow
     * from O(1) arithmetic: 1e-12 relative. */
    const double Ls[] = {0.5, 2.0};
    const double phis[] = {0.0, 0.3, -1.0, 2.5, 3.1, -3.1};
    for (int li = 0; li < 2; li++) {
        double L = Ls[li], a2 = 0.3 * L, b2 = 0.8 * L, a3 = 0.6 * L, b3 = 0.7 * L;
        double xr[12] = {0, 0, 0, L, 0, 0, a2, b2, 0, a3, -b3, 0};
        weft_element e = {.v = {0, 1, 2, 3}};
        weft_dihedral_bending.init(&e, xr, &PARAMS);
        double k = e.k;
        CHECK_NEAR(e.rest[0], 0.0, 1e-15);
        for (int j = 0; j < 6; j++) {
            double phi = phis[j], c = cos(phi), s = sin(phi);
            double x[12], v[12] = {0}, gt[12], w[12] = {0};
            memcpy(x, xr, sizeof x);
            x[10] = -b3 * c, x[11] = -b3 * s;
            v[10] = b3 * s, v[11] = -b3 * c;
            double nb[3] = {0, -s, c}, dnb[3] = {0, -c, -s};
            for (int i = 0; i < 3; i++) {
                double za = i == 2 ? 1.0 : 0.0;
                gt[i] = -((a2 - L) / b2 * za + (a3 - L) / b3 * nb[i]) / L;
                gt[3 + i] = (a2 / b2 * za + a3 / b3 * nb[i]) / L;
                gt[6 + i] = -za / b2;
                gt[9 + i] = -nb[i] / b3;
                w[i] = -(a3 - L) / (b3 * L) * dnb[i];
                w[3 + i] = a3 / (b3 * L) * dnb[i];
                w[9 + i] = -dnb[i] / b3;
            }
            double H[144], g[12];
            double psi = weft_dihedral_bending.hessian(&e, x, WEFT_HESSIAN_EXACT, g, H);
            CHECK_NEAR(psi, 0.5 * k * phi * phi, 1e-13 * k);
            double gscale = k * norm_n(gt, 12), hscale = gscale + k * fabs(phi) * norm_n(w, 12);
            double Hv[12], vHv = 0.0;
            for (int i = 0; i < 12; i++) {
                Hv[i] = 0.0;
                for (int jj = 0; jj < 12; jj++) Hv[i] += H[12 * i + jj] * v[jj];
                vHv += v[i] * Hv[i];
                CHECK_NEAR(g[i], k * phi * gt[i], 1e-12 * gscale);
                double want = k * (gt[i] + phi * w[i]);
                if (!(fabs(Hv[i] - want) <= 1e-12 * hscale))
                    fprintf(stderr, "L %g phi %g: (Hv)[%d] = %.17g, want %.17g\n", L, phi, i,
                            Hv[i], want);
                CHECK_NEAR(Hv[i], want, 1e-12 * hscale);
            }
            CHECK_NEAR(vHv, k, 1e-12 * k);
            if (phi == 0.0) {
                /* At rest C = 0: H = k ∇θ ∇θᵀ exactly, rank one and PSD, so every mode
                 * returns it. */
                for (int m = 0; m < 3; m++) {
                    weft_dihedral_bending.hessian(&e, x, MODES[m], NULL, H);
                    for (int i = 0; i < 144; i++)
                        CHECK_NEAR(H[i], k * gt[i / 12] * gt[i % 12], 1e-12 * k * dot3(gt, gt));
                }
            }
        }
        /* Degenerate hinges of a bent rest element (θ0 = 0.8): weft_hinge_angle reports
         * θ = 0 with a zero gradient, so Ψ = ½ k θ0² (finite), g = 0 and H = 0. */
        double xb[12];
        memcpy(xb, xr, sizeof xb);
        xb[10] = -b3 * cos(0.8), xb[11] = -b3 * sin(0.8);
        weft_dihedral_bending.init(&e, xb, &PARAMS);
        CHECK_NEAR(e.rest[0], 0.8, 1e-14);
        for (int d = 0; d < 3; d++) {
            double x[12], g[12], H[144];
            memcpy(x, xb, sizeof x);
            if (d == 0) x[7] = 0.0;          /* p2 on the edge line: zero-area triangle A */
            if (d == 1) x[3] = 0.0;          /* p1 = p0: zero-length edge */
            if (d == 2) x[10] = x[11] = 0.0; /* p3 on the edge line: zero-area triangle B */
            for (int m = 0; m < 3; m++) {
                double psi = weft_dihedral_bending.hessian(&e, x, MODES[m], g, H);
                CHECK_NEAR(psi, 0.5 * e.k * 0.64, 1e-14 * e.k);
                CHECK(max_abs(g, 12) == 0.0 && max_abs(H, 144) == 0.0);
            }
        }
    }
}

/* ------------------------------------------------------------------------------ */
/* Whole-model gradients                                                           */
/* ------------------------------------------------------------------------------ */

static void test_residual_fd(void) {
    weft_error err = {{0}};
    weft_model m = {0};
    weft_scene *s = weft_scene_load("hanging_cloth", &err);
    CHECK(s != NULL);
    if (!s) return;
    /* The scene's solver settings, for the Gauss-Seidel steps below. */
    weft_config *cfg = weft_config_from_scene(s, &err);
    int rc = cfg ? weft_scene_build(s, weft_energy_registry, &m, &err) : WEFT_ERR_INPUT;
    weft_scene_free(&s);
    CHECK(rc == WEFT_OK);
    if (rc != WEFT_OK) {
        fprintf(stderr, "build: %s\n", err.msg);
        weft_config_free(&cfg);
        weft_model_free(&m);
        return;
    }
    size_t n3 = 3 * (size_t)m.n;
    double *xn = malloc(n3 * sizeof *xn), *xt = malloc(n3 * sizeof *xt);
    double *gG = malloc(n3 * sizeof *gG), *gE = calloc(n3, sizeof *gE);
    double *scratch = malloc(n3 * sizeof *scratch), *x = malloc(n3 * sizeof *x);
    CHECK(xn && xt && gG && gE && scratch && x);
    if (!xn || !xt || !gG || !gE || !scratch || !x) goto done;
    /* Deform: 5 Gauss-Seidel steps of the falling cloth; take that state as the step
     * start (x_n, v_n), and evaluate G at the state one step later, which differs from
     * the inertial target x̃ and is stretched and bent. */
    void *st = weft_pbd_gauss_seidel.create(&m, cfg, &err);
    CHECK(st != NULL);
    if (!st) goto done;
    for (int i = 0; i < 5; i++) weft_pbd_gauss_seidel.step(st, &m, NULL, &err);
    memcpy(xn, m.x, n3 * sizeof *xn);
    weft_inertial_target(&m, xn, m.v, xt);
    weft_pbd_gauss_seidel.step(st, &m, NULL, &err);
    weft_pbd_gauss_seidel.destroy(st);
    memcpy(x, m.x, n3 * sizeof *x);
    weft_incremental_potential(&m, x, xt, gG);
    weft_model_gradient(&m, x, gE); /* adds into the zeroed gE */

    /* Pinned DOFs are not unknowns: ∇G is exactly zero there (S in S ∇G). */
    int npinned = 0;
    for (int i = 0; i < m.n; i++)
        if (m.pin[i] >= 0) {
            npinned++;
            for (int k = 0; k < 3; k++) CHECK(gG[3 * i + k] == 0.0);
        }
    CHECK(npinned == 2);

    /* FD step: 1e-6 of the rest edge length (~3.2 cm / 1e6). G and E are sums over
     * ~6000 elements of values up to ~1 J; their rounding (~1e-16 × n × |terms|) over
     * 2h gives ~1e-8 N of noise at worst, the truncation error (h/ℓ)² ~ 1e-12 relative,
     * against gradients up to ~1 N: compare with 1e-6 of the largest free-DOF gradient
     * (a component-wise relative error is meaningless for near-zero components). */
    double h = 1e-6 * m.terms[m.stretch_term].elem[0].rest[0];
    double gscale = 0.0, escale = max_abs(gE, (int)n3);
    for (int i = 0; i < m.n; i++)
        if (m.pin[i] < 0)
            for (int k = 0; k < 3; k++) gscale = fmax(gscale, fabs(gG[3 * i + k]));
    CHECK(gscale > 0.0 && escale > 0.0);
    lcg g = {5150};
    int checked = 0;
    while (checked < 30) {
        int dof = (int)(rnd(&g) * (double)n3);
        if (m.pin[dof / 3] >= 0) continue;
        checked++;
        double keep = x[dof];
        x[dof] = keep + h;
        double Gp = weft_incremental_potential(&m, x, xt, scratch);
        double Ep = weft_model_energy(&m, x);
        x[dof] = keep - h;
        double Gm = weft_incremental_potential(&m, x, xt, scratch);
        double Em = weft_model_energy(&m, x);
        x[dof] = keep;
        double fdG = (Gp - Gm) / (2.0 * h), fdE = (Ep - Em) / (2.0 * h);
        if (!(fabs(fdG - gG[dof]) <= 1e-6 * gscale))
            fprintf(stderr, "dof %d: dG/dx %.10g, FD %.10g\n", dof, gG[dof], fdG);
        CHECK(fabs(fdG - gG[dof]) <= 1e-6 * gscale);
        CHECK(fabs(fdE - gE[dof]) <= 1e-6 * escale);
    }
    /* ∇G = M (x − x̃)/h² + ∇E on free DOFs: the inertial part, recomputed here from
     * the masses, accounts for the whole difference (a few roundings: 1e-12). */
    for (int i = 0; i < m.n; i++) {
        if (m.pin[i] >= 0) continue;
        for (int k = 0; k < 3; k++) {
            int d = 3 * i + k;
            double inertia = m.mass[i] * (x[d] - xt[d]) / (m.dt * m.dt);
            CHECK_NEAR(gG[d], inertia + gE[d], 1e-12 * gscale);
        }
    }
done:
    free(xn), free(xt), free(gG), free(gE), free(scratch), free(x);
    weft_model_free(&m);
    weft_config_free(&cfg);
}

/* ------------------------------------------------------------------------------ */
/* Assembled Hessian                                                               */
/* ------------------------------------------------------------------------------ */

/* out = [8 (∇E(x + εv) − ∇E(x − εv)) − (∇E(x + 2εv) − ∇E(x − 2εv))] / (12 ε), the
 * fourth-order directional derivative of the model's gradient (N values; tmp, xs and gs
 * are N-value scratch). */
static void directional_fd(const weft_model *m, const double *x, const double *v, double eps,
                           double *out, double *xs, double *gs) {
    static const double off[4] = {1.0, -1.0, 2.0, -2.0}, w[4] = {8.0, -8.0, -1.0, 1.0};
    size_t N = 3 * (size_t)m->n;
    memset(out, 0, N * sizeof *out);
    for (int s = 0; s < 4; s++) {
        for (size_t i = 0; i < N; i++) xs[i] = x[i] + off[s] * eps * v[i];
        memset(gs, 0, N * sizeof *gs);
        weft_model_gradient(m, xs, gs);
        for (size_t i = 0; i < N; i++) out[i] += w[s] * gs[i] / (12.0 * eps);
    }
}

static void test_assembled_directional(void) {
    weft_error err = {{0}};
    weft_model m = {0};
    weft_scene *s = weft_scene_load("hanging_cloth", &err);
    CHECK(s != NULL);
    if (!s) return;
    /* 6 × 6 vertices (spacing 0.2 m, 108 unknowns: a dense matrix is fine). Bending
     * stiffness 9 N·m makes the hinge Hessians (~D |∇θ|² ~ 300 N/m) as large as the
     * springs' (~Y (A₁ + A₂)/ℓ0² ~ 900 N/m), so an error in either shows in the sum. */
    const char *const set[] = {"mesh.nx=6", "mesh.ny=6", "material.bending_stiffness=9"};
    for (int i = 0; i < 3; i++) CHECK(weft_scene_set(s, set[i], "test", &err) == WEFT_OK);
    int rc = weft_scene_build(s, weft_energy_registry, &m, &err);
    weft_scene_free(&s);
    CHECK(rc == WEFT_OK);
    if (rc != WEFT_OK) {
        fprintf(stderr, "build: %s\n", err.msg);
        return;
    }
    CHECK(m.stretch_term >= 0 && m.bending_term >= 0);
    size_t N = 3 * (size_t)m.n;
    double *H = calloc(N * N, sizeof *H), *Ht = malloc(N * N * sizeof *Ht);
    double *x = malloc(N * sizeof *x), *v = malloc(N * sizeof *v), *Hv = malloc(N * sizeof *Hv);
    double *fd = malloc(N * sizeof *fd), *xs = malloc(N * sizeof *xs), *gs = malloc(N * sizeof *gs);
    CHECK(H && Ht && x && v && Hv && fd && xs && gs);
    if (!H || !Ht || !x || !v || !Hv || !fd || !xs || !gs) goto done;
    /* A crumpled state: every coordinate moved by up to ±3 cm (15 % of the spacing), so
     * springs are stretched and compressed and hinges bent both ways; and a random
     * direction v. */
    lcg g = {6060};
    for (size_t i = 0; i < N; i++) x[i] = m.x[i] + rnd_in(&g, -0.03, 0.03);
    for (size_t i = 0; i < N; i++) v[i] = rnd_in(&g, -1.0, 1.0);
    /* FD step: 1e-4 of the 0.2 m spacing per unit |v_i| (stencil error as at the top of
     * the file, ~1e-12 relative). */
    double eps = 2e-5;
    /* Each term on its own (a shallow one-term view of the model, so an error in a small
     * term cannot hide under a large one), then the sum, which is H. */
    for (int t = 0; t <= m.nterms; t++) {
        const weft_term *term = t < m.nterms ? &m.terms[t] : NULL;
        weft_model view = m;
        if (term) {
            view.nterms = 1;
            view.terms[0] = *term;
            CHECK(term->type->hessian != NULL);
            if (!term->type->hessian) continue;
            /* Scatter each element's (3 nv)² block into the rows and columns of its
             * vertices; both the term's own matrix and the total. */
            memset(Ht, 0, N * N * sizeof *Ht);
            int nv = term->type->nv;
            for (int i = 0; i < term->n; i++) {
                const weft_element *e = &term->elem[i];
                double xe[NX], He[NX * NX];
                for (int a = 0; a < nv; a++)
                    for (int k = 0; k < 3; k++) xe[3 * a + k] = x[3 * e->v[a] + k];
                term->type->hessian(e, xe, WEFT_HESSIAN_EXACT, NULL, He);
                for (int a = 0; a < 3 * nv; a++)
                    for (int b = 0; b < 3 * nv; b++) {
                        size_t r = 3 * (size_t)e->v[a / 3] + (size_t)(a % 3);
                        size_t c = 3 * (size_t)e->v[b / 3] + (size_t)(b % 3);
                        Ht[N * r + c] += He[3 * nv * a + b];
                    }
            }
            for (size_t i = 0; i < N * N; i++) H[i] += Ht[i];
        }
        const double *M = term ? Ht : H;
        for (size_t i = 0; i < N; i++) {
            Hv[i] = 0.0;
            for (size_t j = 0; j < N; j++) Hv[i] += M[N * i + j] * v[j];
        }
        directional_fd(&view, x, v, eps, fd, xs, gs);
        double hv = norm_n(Hv, (int)N), d = dist_n(Hv, fd, (int)N);
        fprintf(stderr, "assembled_directional: %-18s |Hv| %.4g, |Hv - FD| %.3g\n",
                term ? term->type->name : "all terms", hv, d);
        CHECK(hv > 0.0);
        CHECK(d <= 1e-6 * hv);
    }
done:
    free(H), free(Ht), free(x), free(v), free(Hv), free(fd), free(xs), free(gs);
    weft_model_free(&m);
}

/* Reference PSD projection of a symmetric 12×12 matrix, independent of weft_psd_clamp:
 * the full 12×12 eigendecomposition by LAPACKE dsyevr, negative eigenvalues dropped.
 * Returns the number of negative eigenvalues. */
static int reference_clamp12(const double *H, double *P) {
    double a[144], w[12], z[144];
    lapack_int isuppz[24], m = 0;
    memcpy(a, H, sizeof a);
    lapack_int info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'V', 'A', 'U', 12, a, 12, 0.0, 0.0, 0, 0,
                                     0.0, &m, w, z, 12, isuppz);
    CHECK(info == 0 && m == 12);
    int negative = 0;
    memset(P, 0, 144 * sizeof *P);
    for (int k = 0; k < m; k++) {
        negative += w[k] < 0.0;
        if (w[k] > 0.0)
            for (int i = 0; i < 12; i++)
                for (int j = 0; j < 12; j++) P[12 * i + j] += w[k] * z[12 * i + k] * z[12 * j + k];
    }
    return negative;
}

/* Sorts w[0..n−1] ascending (insertion sort; n ≤ 12). */
static void sort_small(double *w, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && w[j] < w[j - 1]; j--) {
            double t = w[j];
            w[j] = w[j - 1], w[j - 1] = t;
        }
}

/* A random orthogonal n×n Q (row-major): Gram–Schmidt of random rows. */
static void random_orthogonal(lcg *g, int n, double *Q) {
    for (int i = 0; i < n; i++) {
        for (;;) {
            for (int j = 0; j < n; j++) Q[i * n + j] = rnd_in(g, -1, 1);
            for (int r = 0; r < 2; r++) /* twice, for orthogonality to rounding */
                for (int k = 0; k < i; k++) {
                    double d = 0.0;
                    for (int j = 0; j < n; j++) d += Q[i * n + j] * Q[k * n + j];
                    for (int j = 0; j < n; j++) Q[i * n + j] -= d * Q[k * n + j];
                }
            double nn = 0.0;
            for (int j = 0; j < n; j++) nn += Q[i * n + j] * Q[i * n + j];
            if (nn < 1e-6) continue;
            for (int j = 0; j < n; j++) Q[i * n + j] /= sqrt(nn);
            break;
        }
    }
}

/* weft_symeig (the eigen-solver behind every clamp) against LAPACKE_dsyev, n = 1 … 12, on
 * eight families: random, rank-deficient PSD, clustered (eigenvalues repeated exactly, and
 * 1 ± 1e-12), graded (rows and columns scaled over 16 decades), diagonal, already
 * tridiagonal, scaled by 1e150 and 1e−150, and zero. Asserts the eigenvalues (sorted)
 * agree to 1e-13 n ‖A‖, ‖A Z − Z Λ‖ ≤ 1e-13 n ‖A‖ and ‖ZᵀZ − I‖ ≤ 1e-13 n (max
 * entries); weft_symeig_tridiagonal applies its rotations to a given basis; bad input
 * (n out of range, NaN, ∞) returns −1. */
static void test_symeig(void) {
    lcg g = {5150};
    enum { FAMILIES = 8, PER = 6 };
    double worst_w = 0.0, worst_res = 0.0, worst_orth = 0.0;
    for (int n = 1; n <= 12; n++)
        for (int trial = 0; trial < FAMILIES * PER; trial++) {
            int fam = trial % FAMILIES;
            double A[144] = {0}, Q[144], lam[12];
            random_orthogonal(&g, n, Q);
            for (int i = 0; i < n; i++) lam[i] = rnd_in(&g, -1, 1);
            if (fam == 1) /* PSD with a null space */
                for (int i = 0; i < n; i++) lam[i] = i % 3 == 0 ? 0.0 : fabs(lam[i]);
            if (fam == 2) /* clusters: exact repeats and a 1e-12 split */
                for (int i = 0; i < n; i++) lam[i] = i % 4 == 3 ? 1.0 + 1e-12 : i % 2 ? 1.0 : -0.5;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    double sum = 0.0;
                    for (int k = 0; k < n; k++) sum += Q[k * n + i] * lam[k] * Q[k * n + j];
                    A[i * n + j] = sum;
                }
            if (fam == 3) /* graded: D A D, D = diag(10^(−16 i/n)) */
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++)
                        A[i * n + j] *= pow(10.0, -16.0 * (i + j) / (2.0 * n));
            if (fam == 4) /* diagonal */
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++)
                        if (i != j) A[i * n + j] = 0.0;
            if (fam == 5) /* tridiagonal */
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++)
                        if (abs(i - j) > 1) A[i * n + j] = 0.0;
            if (fam == 6)
                for (int i = 0; i < n * n; i++) A[i] *= trial % 2 ? 1e150 : 1e-150;
            if (fam == 7) memset(A, 0, sizeof A);
            for (int i = 0; i < n; i++) /* exactly symmetric */
                for (int j = 0; j < i; j++) A[j * n + i] = A[i * n + j];
            double w[12], Z[144], wl[12], a[144], work[64], amax = max_abs(A, n * n);
            CHECK(weft_symeig(A, n, w, Z) == 0);
            memcpy(a, A, sizeof a);
            CHECK(LAPACKE_dsyev_work(LAPACK_ROW_MAJOR, 'N', 'U', n, a, n, wl, work, 64) == 0);
            double ws[12];
            memcpy(ws, w, sizeof ws);
            sort_small(ws, n);
            double ew = 0.0, res = 0.0, orth = 0.0;
            for (int i = 0; i < n; i++) ew = fmax(ew, fabs(ws[i] - wl[i]));
            for (int i = 0; i < n; i++)
                for (int k = 0; k < n; k++) {
                    double az = 0.0, zz = 0.0;
                    for (int j = 0; j < n; j++) {
                        az += A[i * n + j] * Z[j * n + k];
                        zz += Z[j * n + i] * Z[j * n + k];
                    }
                    res = fmax(res, fabs(az - w[k] * Z[i * n + k]));
                    orth = fmax(orth, fabs(zz - (i == k)));
                }
            double scale = amax > 0.0 ? amax : 1.0;
            worst_w = fmax(worst_w, ew / scale), worst_res = fmax(worst_res, res / scale);
            worst_orth = fmax(worst_orth, orth);
            CHECK(ew <= 1e-13 * n * scale);
            CHECK(res <= 1e-13 * n * scale);
            CHECK(orth <= 1e-13 * n);
        }
    /* The tridiagonal entry point rotates a given basis B: B T Bᵀ = Z Λ Zᵀ. */
    double d[6] = {1, -2, 0.5, 3, 0, -1}, e[5] = {0.3, -1, 2, 1e-9, 0.7}, B[36], Z[36], T[36] = {0};
    random_orthogonal(&g, 6, B);
    memcpy(Z, B, sizeof Z);
    for (int i = 0; i < 6; i++) T[i * 6 + i] = d[i];
    for (int i = 0; i < 5; i++) T[i * 6 + i + 1] = T[(i + 1) * 6 + i] = e[i];
    CHECK(weft_symeig_tridiagonal(6, d, e, Z) == 0);
    double worst_t = 0.0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double btb = 0.0, zlz = 0.0;
            for (int p = 0; p < 6; p++) {
                zlz += Z[i * 6 + p] * d[p] * Z[j * 6 + p];
                for (int q = 0; q < 6; q++) btb += B[i * 6 + p] * T[p * 6 + q] * B[j * 6 + q];
            }
            worst_t = fmax(worst_t, fabs(btb - zlz));
        }
    CHECK(worst_t <= 1e-13 * 6 * 3);
    /* Bad input. */
    double bad[4] = {1, NAN, NAN, 2}, w[12], Zb[144];
    CHECK(weft_symeig(bad, 2, w, Zb) == -1);
    bad[1] = bad[2] = INFINITY;
    CHECK(weft_symeig(bad, 2, w, Zb) == -1);
    /* n past the largest size (18: a triangle with its three hinges) is refused before A
     * is read */
    CHECK(weft_symeig(bad, 0, w, Zb) == -1 && weft_symeig(bad, 19, w, Zb) == -1);
    printf("symeig: 576 matrices, n = 1..12: worst eigenvalue error %.2g |A|, residual %.2g "
           "|A|, orthogonality %.2g; tridiagonal entry %.2g\n", worst_w, worst_res, worst_orth,
           worst_t);
}

/* Largest eigenvalue of A Aᵀ for the 8×12 A: ‖A‖₂². */
static double norm2_squared(double A[8][12]) {
    double G[64], w[8];
    for (int p = 0; p < 8; p++)
        for (int q = 0; q < 8; q++) {
            double sum = 0.0;
            for (int i = 0; i < 12; i++) sum += A[p][i] * A[q][i];
            G[8 * p + q] = sum;
        }
    CHECK(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', 8, G, 8, w) == 0);
    return w[7];
}

/* Oracle of the ANALYTIC hinge projection, independent of its closed form: from the
 * EXACT Hessian H and weft_hinge_coordinates, M = R H Rᵀ, each of its two 4×4 diagonal
 * blocks clamped by LAPACKE dsyevr, and P = Tᵀ M⁺ T. Also returns the largest entry of
 * M's off-diagonal blocks (zero in exact arithmetic) and of H − Tᵀ M T, and
 * bound = ‖T‖₂² ‖R‖₂²: with Hc the nearest PSD matrix to H (Frobenius),
 * ‖H − P‖ = ‖Tᵀ (M − M⁺) T‖ ≤ ‖T‖² dist(M, PSD) ≤ ‖T‖² ‖M − R Hc Rᵀ‖ ≤ bound ‖H − Hc‖,
 * since R Hc Rᵀ is PSD. */
static void reference_hinge_projection(const double *xe, const double *H, double *P,
                                       double *offblock, double *reconstruct, double *bound) {
    double T[8][12], R[8][12], M[64], Mp[64] = {0};
    weft_hinge_coordinates(xe, T, R);
    *bound = norm2_squared(T) * norm2_squared(R);
    for (int p = 0; p < 8; p++)
        for (int q = 0; q < 8; q++) {
            double sum = 0.0;
            for (int i = 0; i < 12; i++)
                for (int j = 0; j < 12; j++) sum += R[p][i] * H[12 * i + j] * R[q][j];
            M[8 * p + q] = sum;
        }
    *offblock = 0.0;
    for (int p = 0; p < 4; p++)
        for (int q = 4; q < 8; q++) *offblock = fmax(*offblock, fabs(M[8 * p + q]));
    for (int blk = 0; blk < 2; blk++) {
        double a[16], w[4], z[16];
        lapack_int isuppz[8], m = 0;
        for (int p = 0; p < 4; p++)
            for (int q = 0; q < 4; q++) a[4 * p + q] = M[8 * (4 * blk + p) + 4 * blk + q];
        lapack_int info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'V', 'A', 'U', 4, a, 4, 0.0, 0.0, 0,
                                         0, 0.0, &m, w, z, 4, isuppz);
        CHECK(info == 0 && m == 4);
        for (int k = 0; k < m; k++)
            if (w[k] > 0.0)
                for (int p = 0; p < 4; p++)
                    for (int q = 0; q < 4; q++)
                        Mp[8 * (4 * blk + p) + 4 * blk + q] += w[k] * z[4 * p + k] * z[4 * q + k];
    }
    *reconstruct = 0.0;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            double sp = 0.0, sm = 0.0;
            for (int p = 0; p < 8; p++)
                for (int q = 0; q < 8; q++) {
                    sp += T[p][i] * Mp[8 * p + q] * T[q][j];
                    sm += T[p][i] * M[8 * p + q] * T[q][j];
                }
            P[12 * i + j] = sp;
            *reconstruct = fmax(*reconstruct, fabs(sm - H[12 * i + j]));
        }
}

/* The dihedral-bending projections, on hinges from six families — random (any θ, θ0,
 * wings moved off their plane), near-flat (|θ| ≤ 1e-6 at θ0 = 0), folded (θ within 0.05
 * rad of ±π, |C| up to ~π), at rest (C = 0 exactly: the Hessian k ∇θ∇θᵀ must come back
 * bit for bit), slivers (a wing 1e-4 of the edge thick, or an edge 1e-3 of the wings) and
 * scaled (lengths × 1e-3 or × 1e3) — each turned by a random rotation and shifted:
 *   - CLAMP is the PSD projection of the exact Hessian in Cartesian coordinates: against
 *     reference_clamp12 within 1e-10 relative (Frobenius);
 *   - ANALYTIC is the projection in hinge coordinates: the exact Hessian is block-diagonal
 *     there (off-diagonal blocks ≤ 1e-12 ‖H‖, the fact the closed form rests on), H =
 *     Tᵀ (R H Rᵀ) T (both to 1e-10 ‖H‖), the closed form equals reference_hinge_projection
 *     within 1e-10, and it is no farther from H than ‖T‖²‖R‖² × the nearest PSD matrix
 *     (CLAMP's) is (the bound proved at reference_hinge_projection);
 *   - the exact Hessian annihilates the stretch along the edge ν, ν_i = ((p_i − p0)·ê) ê
 *     (what CLAMP's 8×8 reduction rests on); a degenerate hinge (p1 = p0) gives H = 0. */
static void test_hinge_projection(void) {
    lcg g = {90210};
    enum { TRIALS_PER_FAMILY = 120, FAMILIES = 6 };
    int clamped = 0, indefinite_trials = 0;
    double worst = 0.0, worst_null = 0.0, worst_a = 0.0, worst_off = 0.0, worst_rec = 0.0;
    double worst_ratio = 0.0, worst_bound = 0.0;
    for (int trial = 0; trial < FAMILIES * TRIALS_PER_FAMILY; trial++) {
        int family = trial % FAMILIES;
        double L = rnd_in(&g, 0.5, 2.0), wing = 1.0;
        if (family == 4 && trial % 2) L *= 1e-3; /* short edge, long wings */
        double a2 = rnd_in(&g, -0.5, 1.5) * wing, b2 = rnd_in(&g, 0.2, 1.5) * wing;
        double a3 = rnd_in(&g, -0.5, 1.5) * wing, b3 = rnd_in(&g, 0.2, 1.5) * wing;
        if (family == 4 && trial % 2 == 0) b2 = 1e-4 * L; /* sliver wing */
        double phi = rnd_in(&g, -3.0, 3.0), theta0 = rnd_in(&g, -1.0, 1.0);
        if (family == 1) phi = rnd_in(&g, -1e-6, 1e-6), theta0 = 0.0;
        if (family == 2) phi = (rnd(&g) < 0.5 ? -1 : 1) * (3.14159265358979323846 - rnd_in(&g, 1e-4, 0.05));
        double x[12] = {0, 0, 0, L, 0, 0, a2, b2, 0, a3, -b3 * cos(phi), -b3 * sin(phi)};
        if (family == 0)
            for (int i = 3; i < 12; i++) x[i] += rnd_in(&g, -0.2, 0.2);
        double scale = family == 5 ? (trial % 2 ? 1e-3 : 1e3) : 1.0;
        /* A random rotation (Gram–Schmidt of random vectors, then a proper frame), a
         * shift, and the scale. */
        double R[9], u[3], v[3], t[3];
        rnd_unit(&g, u), rnd_unit(&g, v);
        double uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        for (int k = 0; k < 3; k++) v[k] -= uv * u[k];
        double nv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int k = 0; k < 3; k++) v[k] /= nv, t[k] = rnd_in(&g, -5.0, 5.0) * scale;
        double w[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        for (int k = 0; k < 3; k++) R[3 * k] = u[k], R[3 * k + 1] = v[k], R[3 * k + 2] = w[k];
        double xe[12];
        for (int p = 0; p < 4; p++)
            for (int i = 0; i < 3; i++)
                xe[3 * p + i] = t[i] + scale * (R[3 * i] * x[3 * p] + R[3 * i + 1] * x[3 * p + 1] +
                                                 R[3 * i + 2] * x[3 * p + 2]);
        weft_element e = {.v = {0, 1, 2, 3}};
        weft_dihedral_bending.init(&e, xe, &PARAMS); /* θ0 = θ(xe): at rest */
        if (family != 3) e.rest[0] = theta0;
        e.k = rnd_in(&g, 0.1, 10.0);
        double H[144], Hc[144], Ha[144], Href[144], gr[12];
        weft_dihedral_bending.hessian(&e, xe, WEFT_HESSIAN_EXACT, gr, H);
        weft_dihedral_bending.hessian(&e, xe, WEFT_HESSIAN_CLAMP, gr, Hc);
        weft_dihedral_bending.hessian(&e, xe, WEFT_HESSIAN_ANALYTIC, gr, Ha);
        int negative = reference_clamp12(H, Href);
        double err = 0.0, ref = 0.0, hn = 0.0;
        for (int i = 0; i < 144; i++) {
            err += (Hc[i] - Href[i]) * (Hc[i] - Href[i]);
            ref += Href[i] * Href[i], hn += H[i] * H[i];
        }
        err = sqrt(err / ref);
        worst = fmax(worst, err);
        CHECK(ref > 0.0);
        CHECK(err <= 1e-10);
        if (family == 3) CHECK(memcmp(Hc, H, sizeof H) == 0 && memcmp(Ha, H, sizeof H) == 0);
        /* ANALYTIC against its oracle, and the block structure it rests on. */
        double Hr[144], off, rec, bound, ea = 0.0, refa = 0.0, dh_a = 0.0, dh_c = 0.0;
        reference_hinge_projection(xe, H, Hr, &off, &rec, &bound);
        double hf = sqrt(hn); /* ‖H‖_F */
        worst_off = fmax(worst_off, off / hf), worst_rec = fmax(worst_rec, rec / hf);
        CHECK(off <= 1e-10 * hf);
        CHECK(rec <= 1e-10 * hf);
        for (int i = 0; i < 144; i++) {
            ea += (Ha[i] - Hr[i]) * (Ha[i] - Hr[i]), refa += Hr[i] * Hr[i];
            dh_a += (Ha[i] - H[i]) * (Ha[i] - H[i]), dh_c += (Href[i] - H[i]) * (Href[i] - H[i]);
        }
        ea = sqrt(ea / refa);
        worst_a = fmax(worst_a, ea);
        CHECK(ea <= 1e-10);
        if (family != 3 && negative > 0) {
            double ratio = sqrt(dh_a / dh_c);
            worst_ratio = fmax(worst_ratio, ratio);
            worst_bound = fmax(worst_bound, bound);
            CHECK(ratio <= bound * (1.0 + 1e-9));
        }
        /* H ν = 0, relative to ‖H‖ ‖ν‖. */
        double d[3] = {xe[3] - xe[0], xe[4] - xe[1], xe[5] - xe[2]};
        double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], nu[12], nn = 0.0, hnu = 0.0;
        for (int p = 0; p < 4; p++) {
            double tp = ((xe[3 * p] - xe[0]) * d[0] + (xe[3 * p + 1] - xe[1]) * d[1] +
                         (xe[3 * p + 2] - xe[2]) * d[2]) / dd;
            for (int i = 0; i < 3; i++) nu[3 * p + i] = tp * d[i], nn += nu[3 * p + i] * nu[3 * p + i];
        }
        for (int i = 0; i < 12; i++) {
            double sum = 0.0;
            for (int j = 0; j < 12; j++) sum += H[12 * i + j] * nu[j];
            hnu += sum * sum;
        }
        double null_rel = sqrt(hnu / (hn * nn));
        worst_null = fmax(worst_null, null_rel);
        CHECK(null_rel <= 1e-10);
        clamped += family != 3 && negative > 0;
        indefinite_trials += family != 3;
    }
    /* A degenerate hinge (zero-length edge) has H = 0 in every mode. */
    double xd[12] = {0, 0, 0, 0, 0, 0, 0.3, 0.8, 0, 0.6, -0.7, 0.1}, Hd[144];
    weft_element ed = {.v = {0, 1, 2, 3}, .k = 1.0, .rest = {0.5}};
    weft_dihedral_bending.hessian(&ed, xd, WEFT_HESSIAN_CLAMP, NULL, Hd);
    CHECK(max_abs(Hd, 144) == 0.0);
    printf("hinge_projection: %d of %d hinges away from rest were indefinite; CLAMP worst "
           "relative error %.2g; ANALYTIC worst relative error %.2g, off-diagonal blocks "
           "%.2g |H|, reconstruction %.2g |H|, |Ha - H| <= %.3f |Hc - H| (bound up to %.3g); "
           "worst |H nu| %.2g\n", clamped, indefinite_trials, worst, worst_a, worst_off,
           worst_rec, worst_ratio, worst_bound, worst_null);
    /* Away from rest (C ≠ 0) the hinge Hessian is indefinite (observed: 4 negative
     * eigenvalues), so the comparison above really exercised the clamp. */
    CHECK(clamped >= indefinite_trials * 9 / 10);
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"symeig", test_symeig},
        {"registry_complete", test_registry_complete},
        {"registry_gradients", test_registry_gradients},
        {"registry_hessians", test_registry_hessians},
        {"registry_projection", test_registry_projection},
        {"registry_rest", test_registry_rest},
        {"registry_invariance", test_registry_invariance},
        {"registry_constraints", test_registry_constraints},
        {"registry_vertex", test_registry_vertex},
        {"registry_degenerate", test_registry_degenerate},
        {"closed_forms", test_closed_forms},
        {"quadratic_flat", test_quadratic_flat},
        {"spring_hessian", test_spring_hessian},
        {"hinge_hessian", test_hinge_hessian},
        {"hinge_projection", test_hinge_projection},
        {"residual_fd", test_residual_fd},
        {"assembled_directional", test_assembled_directional},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
