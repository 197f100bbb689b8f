/* weft_energies.h — the energy and constraint types of weft (energies/), and the
 * inline geometric kernels that position-based solvers share with them.
 *
 * Every type is a weft_energy_type descriptor (lib/weft_energy.h) listed in WEFT_ENERGIES
 * below; adding an energy is its file, its line there and its line in CMakeLists.txt.
 * Units: positions m, stiffness as documented per type, energies J, gradients N.
 */
#ifndef WEFT_ENERGIES_H
#define WEFT_ENERGIES_H

#include "weft.h"
#include "weft_broadphase.h"

#include <math.h>

/* π, spelled out because strict C17 math.h does not define M_PI. */
#define WEFT_PI 3.14159265358979323846

/* The energy types, in registry order: one line each, X(descriptor) for the
 * weft_energy_type weft_<descriptor> its file defines. This list declares every descriptor
 * and energies/registry.c forms weft_energy_registry from it, so an energy is its file,
 * its line here and its file's line in energies/CMakeLists.txt. Scene files name a type by
 * its .name (variants for different element kinds share one); its file opens with its
 * equations, units and paper. */
#define WEFT_ENERGIES(X)                                                                    \
    X(mass_spring)                 /* edge springs ½ k (|x0 − x1| − ℓ0)² */                 \
    X(dihedral_bending)            /* hinge ½ k (θ − θ0)², calibrated weight */             \
    X(discrete_shells)             /* the same, Grinspun et al. 2003's weight */            \
    X(quadratic_bending)           /* Bergou et al. 2006, constant Hessian */               \
    X(shape_operator_bending)      /* per-triangle shape operator, D on narrow strips */   \
    X(stvk_membrane)               /* triangle (3×2 F) finite elements: */                  \
    X(neo_hookean_membrane)                                                                 \
    X(stable_neo_hookean_membrane)                                                          \
    X(arap_membrane)                                                                        \
    X(baraff_witkin_membrane)                                                               \
    X(anisotropic_fiber_membrane)                                                           \
    X(area_preservation_membrane)  /* docs/guide-energy.md's example */                     \
    X(stvk_tet)                    /* tetrahedron finite elements: */                       \
    X(neo_hookean_tet)                                                                      \
    X(stable_neo_hookean_tet)                                                               \
    X(arap_tet)                                                                             \
    X(symmetric_dirichlet_tet)                                                              \
    X(anisotropic_fiber_tet)                                                                \
    X(vertex_face_contact)         /* contact penalties, made per step */                   \
    X(edge_edge_contact)                                                                    \
    /* one line per energy above; this line ends the list */

#define WEFT_DECLARE_ENERGY(name) extern const weft_energy_type weft_##name;
WEFT_ENERGIES(WEFT_DECLARE_ENERGY)

/* The registered energy types in WEFT_ENERGIES order, NULL-terminated. */
extern const weft_energy_type *const weft_energy_registry[];

/* The signed separation d (m) of a vertex_face_contact element at xe; 0 without a normal. */
double weft_vertex_face_distance(const weft_element *e, const double *xe);

/* The signed separation d (m) of an edge_edge_contact element at xe; 0 without a normal. */
double weft_edge_edge_distance(const weft_element *e, const double *xe);

/* The contact elements of one step: a vertex–face and an edge–edge term over one mesh's
 * vertices, whose element arrays are kept from step to step. Zero-initialise; free with
 * weft_contacts_free. */
typedef struct weft_contacts {
    weft_term vertex_face;   /* type weft_vertex_face_contact */
    weft_term edge_edge;     /* type weft_edge_edge_contact */
    int vertex_face_cap;     /* elements vertex_face.elem has room for */
    int edge_edge_cap;       /* elements edge_edge.elem has room for */
} weft_contacts;

/* Refills c from self-collision candidate pairs of mesh m at positions x (3 nv, m):
 * vertex–triangle pairs (pairs->vt, and pairs->tv read as (triangle, vertex)) whose
 * closest point is inside the triangle, and edge–edge pairs (pairs->ee) whose closest
 * points are inside both edges, each closer than eta (m); sides are taken at x, k in N/m.
 * Allocates only when an array must grow. WEFT_ERR_INPUT for a bad index, k or eta. */
int weft_contact_fill(weft_contacts *c, const weft_mesh *m, const double *x,
                      const weft_collision_pairs *pairs, double k, double eta,
                      weft_error *err);

/* Frees c's element arrays and zeroes it; safe on a zeroed set. */
void weft_contacts_free(weft_contacts *c);

/* Looks up a registered energy type by name (the first variant); NULL if there is none. */
const weft_energy_type *weft_energy_find(const char *name);

/* Looks up the variant of a registered name that acts on `kind`; NULL if there is none. */
const weft_energy_type *weft_energy_find_kind(const char *name, weft_element_kind kind);

/* Wraps an angle difference into (−π, π]. */
static inline double weft_wrap_angle(double a) {
    while (a > WEFT_PI) a -= 2.0 * WEFT_PI;
    while (a <= -WEFT_PI) a += 2.0 * WEFT_PI;
    return a;
}

/* The hinge (p0 p1 the shared edge, p2 p3 the wings) as the closed-form dihedral
 * projections of PBD and XPBD use it: e = p1 − p0, a = p2 − p0, b = p3 − p1, the wing
 * normals nA = e × a and nB = b × e (m²), and |e|², |nA|², |nB|². */
typedef struct weft_hinge_frame {
    double e[3], a[3], b[3], nA[3], nB[3];
    double ee, aa, bb;
} weft_hinge_frame;

/* The frame of the hinge p0 p1 p2 p3 (positions in m). */
static inline weft_hinge_frame weft_hinge_frame_of(const double *p0, const double *p1,
                                                   const double *p2, const double *p3) {
    weft_hinge_frame f;
    for (int k = 0; k < 3; k++)
        f.e[k] = p1[k] - p0[k], f.a[k] = p2[k] - p0[k], f.b[k] = p3[k] - p1[k];
    f.nA[0] = f.e[1] * f.a[2] - f.e[2] * f.a[1];
    f.nA[1] = f.e[2] * f.a[0] - f.e[0] * f.a[2];
    f.nA[2] = f.e[0] * f.a[1] - f.e[1] * f.a[0];
    f.nB[0] = f.b[1] * f.e[2] - f.b[2] * f.e[1];
    f.nB[1] = f.b[2] * f.e[0] - f.b[0] * f.e[2];
    f.nB[2] = f.b[0] * f.e[1] - f.b[1] * f.e[0];
    f.ee = f.e[0] * f.e[0] + f.e[1] * f.e[1] + f.e[2] * f.e[2];
    f.aa = f.nA[0] * f.nA[0] + f.nA[1] * f.nA[1] + f.nA[2] * f.nA[2];
    f.bb = f.nB[0] * f.nB[0] + f.nB[1] * f.nB[1] + f.nB[2] * f.nB[2];
    return f;
}

/* Whether the hinge of frame f is degenerate (no angle, zero gradient): an edge of length 0,
 * or a wing whose area is tiny against it (|n| ≤ 1e-12 |e|²). */
static inline bool weft_hinge_degenerate(const weft_hinge_frame *f) {
    return !(f->ee > 0.0) || !(f->aa > 1e-24 * f->ee * f->ee) || !(f->bb > 1e-24 * f->ee * f->ee);
}

/* Four doubles, one per SIMD lane (GCC/Clang vector extension): +, −, ×, ÷ and comparisons
 * act lane by lane with the rounding of the scalar operation, so a lane's result is
 * bitwise the scalar one; on x86-64 one AVX instruction does four lanes (two SSE2
 * instructions without AVX). */
typedef double weft_vd4 __attribute__((vector_size(32)));

/* On x86-64 with GCC, a function so marked is compiled twice, with AVX2 and without, and
 * the CPU's version is picked at load time (AVX2: four lanes an instruction, and
 * three-operand forms that need no register copies). There is no FMA either way
 * (-ffp-contract=off), so both versions give the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WEFT_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define WEFT_AVX2_CLONE
#endif

/* atan(t) for |t| ≤ 1/8 by its Taylor series to t¹⁹ (Estrin's scheme in u = t²): the
 * first omitted term, t²¹/21, is below 2⁻⁶³ |t|, so the sum is atan(t) to rounding. */
static inline double weft_atan_small(double t) {
    double u = t * t, u2 = u * u, u4 = u2 * u2;
    double p01 = -1.0 / 3.0 + u * (1.0 / 5.0), p23 = -1.0 / 7.0 + u * (1.0 / 9.0);
    double p45 = -1.0 / 11.0 + u * (1.0 / 13.0), p67 = -1.0 / 15.0 + u * (1.0 / 17.0);
    double p03 = p01 + u2 * p23, p47 = p45 + u2 * p67;
    double p = p03 + u4 * (p47 + u4 * (-1.0 / 19.0));
    return t + t * (u * p);
}

/* θ − θ0 wrapped into (−π, π] for θ = atan2(s, c), given cs = (cos θ0, sin θ0): the
 * angle of (s, c) rotated by −θ0, atan2(s cos θ0 − c sin θ0, c cos θ0 + s sin θ0).
 * Near the rest angle (|θ − θ0| ≲ 0.124) atan of the ratio by weft_atan_small, else
 * atan2; the same angle to rounding as weft_wrap_angle(atan2(s, c) − θ0). */
static inline double weft_angle_from(double s, double c, const double cs[2]) {
    double y = s * cs[0] - c * cs[1], x = c * cs[0] + s * cs[1];
    if (x > 0.0 && fabs(y) <= 0.125 * x) return weft_atan_small(y / x);
    double a = atan2(y, x);
    return a == -WEFT_PI ? WEFT_PI : a;
}

/* θ from a weft_hinge_frame's e, nA, nB and le = |e| (m): cos θ |nA||nB||e| = (nA·nB)|e| and
 * sin θ |nA||nB||e| = (nA × nB)·e; atan2 needs only the ratio, so the common positive
 * factor is never divided out. */
static inline double weft_hinge_theta(const double e[3], const double nA[3], const double nB[3],
                                      double le) {
    const double c = (nA[0] * nB[0] + nA[1] * nB[1] + nA[2] * nB[2]) * le;
    const double cx[3] = {nA[1] * nB[2] - nA[2] * nB[1], nA[2] * nB[0] - nA[0] * nB[2],
                          nA[0] * nB[1] - nA[1] * nB[0]};
    return atan2(cx[0] * e[0] + cx[1] * e[1] + cx[2] * e[2], c);
}

/* Signed dihedral angle θ of the hinge (p0, p1 shared edge; p2 opposite in triangle A
 * = (p0, p1, p2), p3 opposite in triangle B = (p1, p0, p3)), with its gradient
 * g = ∂θ/∂(p0, p1, p2, p3) (12 values) if g != NULL.
 *
 * θ = atan2((n̂A × n̂B)·ê, n̂A·n̂B) with nA = (p1−p0)×(p2−p0), nB = (p0−p1)×(p3−p1),
 * e = p1 − p0; θ = 0 for a flat hinge. Gradients (Bridson, Marino, Fedkiw 2003):
 *   ∂θ/∂p2 = −|e| nA/|nA|²,  ∂θ/∂p3 = −|e| nB/|nB|²,
 *   ∂θ/∂p0 = −[(p2−p1)·e nA/|nA|² + (p3−p1)·e nB/|nB|²] / |e|,
 *   ∂θ/∂p1 = +[(p2−p0)·e nA/|nA|² + (p3−p0)·e nB/|nB|²] / |e|.
 * They equal Müller 2006 Appendix A's ∂arccos(n̂A·n̂B)/∂p times sign(θ), but need no
 * division by sin θ, so they stay finite at θ = 0 and θ = ±π. Returns 0 with a zero
 * gradient when either triangle or the edge is degenerate (zero area or length). */
static inline double weft_hinge_angle(const double *p0, const double *p1, const double *p2,
                                      const double *p3, double *g) {
    const weft_hinge_frame f = weft_hinge_frame_of(p0, p1, p2, p3);
    const double *e = f.e, *nA = f.nA, *nB = f.nB;
    if (weft_hinge_degenerate(&f)) {
        if (g)
            for (int k = 0; k < 12; k++) g[k] = 0.0;
        return 0.0;
    }
    double le = sqrt(f.ee);
    double theta = weft_hinge_theta(e, nA, nB, le);
    if (g) {
        double ia = 1.0 / f.aa, ib = 1.0 / f.bb, il = 1.0 / le;
        double d21 = (p2[0] - p1[0]) * e[0] + (p2[1] - p1[1]) * e[1] + (p2[2] - p1[2]) * e[2];
        double d31 = (p3[0] - p1[0]) * e[0] + (p3[1] - p1[1]) * e[1] + (p3[2] - p1[2]) * e[2];
        double d20 = f.a[0] * e[0] + f.a[1] * e[1] + f.a[2] * e[2];
        double d30 = (p3[0] - p0[0]) * e[0] + (p3[1] - p0[1]) * e[1] + (p3[2] - p0[2]) * e[2];
        for (int k = 0; k < 3; k++) {
            double ua = nA[k] * ia, ub = nB[k] * ib;
            g[0 + k] = -(d21 * ua + d31 * ub) * il;
            g[3 + k] = (d20 * ua + d30 * ub) * il;
            g[6 + k] = -le * ua;
            g[9 + k] = -le * ub;
        }
    }
    return theta;
}

#endif
