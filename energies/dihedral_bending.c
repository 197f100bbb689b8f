/* dihedral_bending.c — bending on interior edges (hinges), the implicit twin of the
 * PBD bending constraint of Müller 2006 §4.1:
 *   C = θ − θ0 (wrapped into (−π, π]),   Ψ = ½ k C²,   ∂Ψ/∂x = k C ∂θ/∂x,
 *   ∂²Ψ/∂x² = k (∇θ ∇θᵀ + C ∇²θ),
 * θ the signed dihedral angle of weft_hinge_angle (robust at 0 and ±π), and
 *   k = D |ē|² / Ā  (J/rad²),  D the bending stiffness (N·m), Ā the two triangles' rest area,
 * so that D is the flexural rigidity of cylindrical bending (papers/calibration.md §2);
 * discrete_shells keeps Grinspun et al. 2003's weight, 3 |ē|²/Ā.
 *
 * ∇²θ without dividing by sin θ (weft_hinge_angle_hessian, which shape_operator_bending
 * shares): with e = p1 − p0, a = p2 − p0, b = p3 − p1,
 *   θ = atan2(s, c),  s = −|e| det[e, a, b],  c = −[(e·e)(a·b) − (e·b)(e·a)],  r² = s² + c²,
 *   ∇θ = G = (c ∇s − s ∇c)/r²,   Q = (s ∇s + c ∇c)/r²,
 *   ∇²θ = (c ∇²s − s ∇²c)/r² − (Q Gᵀ + G Qᵀ),   valid at every θ.
 *
 * PSD projection. WEFT_HESSIAN_ANALYTIC (the implicit solvers' default): in the eight
 * hinge coordinates y = T δx (weft_hinge_coordinates: wing offsets, edge tilt, axial
 * offsets) H_y is two tridiagonal 4×4 blocks, clamped by weft_symeig_tridiagonal, and
 * H⁺ = Tᵀ H_y⁺ T. WEFT_HESSIAN_CLAMP: the eigenvalue clamp of H restricted to the
 * complement of its null space (translations and the stretch along the edge), an 8×8
 * clamp (clamp_hinge). At C = 0, H = k ∇θ∇θᵀ is returned without an eigen-solve; a
 * degenerate hinge has θ = 0 and ∇θ = 0 (Ψ = ½ k θ0², g = 0, H = 0).
 * The derivations, block forms, null-space proof and measurements:
 * papers/dihedral-bending.md.
 * Element data: v = (edge v0, v1, opposite v2, v3), rest = (θ0 (rad), cos θ0, sin θ0). */
#include "fem.h"

#include <math.h>
#include <string.h>

/* Rest angle, its cosine and sine, and k = c D |ē|²/Ā: c = 1 calibrated
 * (dihedral_bending), 3 Grinspun's. */
static void hinge_init(weft_element *e, const double *xe, const weft_energy_params *p, double c) {
    e->rest[0] = weft_hinge_angle(xe, xe + 3, xe + 6, xe + 9, NULL);
    e->rest[1] = cos(e->rest[0]), e->rest[2] = sin(e->rest[0]);
    double d[3] = {xe[3] - xe[0], xe[4] - xe[1], xe[5] - xe[2]};
    double ee = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    e->k = p->area > 0.0 ? c * p->stiffness * ee / p->area : 0.0;
}

static void db_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    hinge_init(e, xe, p, 1.0);
}

static void ds_init(weft_element *e, const double *xe, const weft_energy_params *p) {
    hinge_init(e, xe, p, 3.0);
}

static double db_constraint(const weft_element *e, const double *xe, double *grad) {
    double theta = weft_hinge_angle(xe, xe + 3, xe + 6, xe + 9, grad);
    return weft_wrap_angle(theta - e->rest[0]);
}

/* The constraint hook (XPBD): C = θ − θ0 and ∇θ as db_constraint's to rounding, in closed
 * form with one division: with e = p1 − p0, a = p2 − p0, b = p3 − p1, nA = e × a,
 * nB = b × e, ℓ = |e|, dij = (pi − pj)·e and ρ = 1/(|nA|² |nB|² ℓ),
 *   θ = atan2(−ℓ nA·b, nA·nB),   ∇θ = (−ρ (d21 |nB|² nA + d31 |nA|² nB),
 *   ρ (d20 |nB|² nA + d30 |nA|² nB), −ρ ℓ² |nB|² nA, −ρ ℓ² |nA|² nB),
 * θ − θ0 measured from (cos θ0, sin θ0) by weft_angle_from (papers/mueller2006-pbd.md). */
static double db_constraint_fast(const weft_element *el, const double *xe, double *grad) {
    const double *p0 = xe, *p1 = xe + 3, *p2 = xe + 6, *p3 = xe + 9;
    const weft_hinge_frame hf = weft_hinge_frame_of(p0, p1, p2, p3);
    const double *e = hf.e, *a = hf.a, *b = hf.b, *nA = hf.nA, *nB = hf.nB;
    const double ee = hf.ee, aa = hf.aa, bb = hf.bb;
    if (weft_hinge_degenerate(&hf)) {
        if (grad) /* degenerate, as weft_hinge_angle: θ = 0, ∇θ = 0 */
            for (int k = 0; k < 12; k++) grad[k] = 0.0;
        return weft_wrap_angle(-el->rest[0]);
    }
    double ab = nA[0] * nB[0] + nA[1] * nB[1] + nA[2] * nB[2];
    double nAb = nA[0] * b[0] + nA[1] * b[1] + nA[2] * b[2];
    double le = sqrt(ee);
    if (grad) {
        double d20 = a[0] * e[0] + a[1] * e[1] + a[2] * e[2], d21 = d20 - ee;
        double d31 = b[0] * e[0] + b[1] * e[1] + b[2] * e[2], d30 = d31 + ee;
        double r = 1.0 / (aa * bb * le), ra = r * bb, rb = r * aa;
        for (int k = 0; k < 3; k++) {
            double ua = ra * nA[k], ub = rb * nB[k];
            grad[k] = -(d21 * ua + d31 * ub);
            grad[3 + k] = d20 * ua + d30 * ub;
            grad[6 + k] = -ee * ua;
            grad[9 + k] = -ee * ub;
        }
    }
    return weft_angle_from(-le * nAb, ab, &el->rest[1]);
}

/* The compliant projection (weft_energy.h) in the closed form of db_constraint_fast's
 * gradient: with X = |nA|² |nB|² ℓ², Σ_a w_a |∇_a θ|² = E / X for
 *   E = |nB|² (w0 d21² + w1 d20² + w2 ℓ⁴) + |nA|² (w0 d31² + w1 d30² + w3 ℓ⁴)
 *       + 2 (nA·nB)(w0 d21 d31 + w1 d20 d30),
 * so Δλ = (−C − α̃λ) X / (E + α̃ X) and, with f = (C + α̃λ) ℓ / (E + α̃ X), one division,
 *   Δp0 = f w0 (d21 |nB|² nA + d31 |nA|² nB),   Δp1 = −f w1 (d20 |nB|² nA + d30 |nA|² nB),
 *   Δp2 = f w2 ℓ² |nB|² nA,   Δp3 = f w3 ℓ² |nA|² nB:
 * pbd_gauss_seidel's dihedral projection with k C replaced by (C + α̃λ) E/(E + α̃ X). */
static inline double db_step(const int v[4], double theta0, const double cs[2], const double *w,
                             double at, double lambda, double *p) {
    double *p0 = &p[3 * v[0]], *p1 = &p[3 * v[1]], *p2 = &p[3 * v[2]], *p3 = &p[3 * v[3]];
    const weft_hinge_frame hf = weft_hinge_frame_of(p0, p1, p2, p3);
    const double *e = hf.e, *a = hf.a, *b = hf.b, *nA = hf.nA, *nB = hf.nB;
    const double ee = hf.ee, aa = hf.aa, bb = hf.bb;
    if (weft_hinge_degenerate(&hf)) {
        /* degenerate (db_constraint_fast): θ = 0, no gradient, λ alone moves */
        double r = -weft_wrap_angle(-theta0) - at * lambda;
        return at > 0.0 ? r / at : 0.0;
    }
    const double w0 = w[v[0]], w1 = w[v[1]], w2 = w[v[2]], w3 = w[v[3]];
    double ab = nA[0] * nB[0] + nA[1] * nB[1] + nA[2] * nB[2];
    double nAb = nA[0] * b[0] + nA[1] * b[1] + nA[2] * b[2];
    double d20 = a[0] * e[0] + a[1] * e[1] + a[2] * e[2], d21 = d20 - ee;
    double d31 = b[0] * e[0] + b[1] * e[1] + b[2] * e[2], d30 = d31 + ee;
    double le = sqrt(ee), ee2 = ee * ee, X = aa * bb * ee;
    double r = -weft_angle_from(-le * nAb, ab, cs) - at * lambda; /* −C − α̃ λ */
    double E = bb * (w0 * d21 * d21 + w1 * d20 * d20 + w2 * ee2) +
               aa * (w0 * d31 * d31 + w1 * d30 * d30 + w3 * ee2) +
               2.0 * ab * (w0 * d21 * d31 + w1 * d20 * d30);
    double denom = E + at * X;
    if (!(denom > 0.0)) return 0.0;
    double f = -r * (le / denom);
    double fa0 = f * w0 * d21 * bb, fb0 = f * w0 * d31 * aa;
    double fa1 = -f * w1 * d20 * bb, fb1 = -f * w1 * d30 * aa;
    double fa2 = f * w2 * ee * bb, fb3 = f * w3 * ee * aa;
    double dp[12];
    for (int k = 0; k < 3; k++) {
        dp[k] = fa0 * nA[k] + fb0 * nB[k];
        dp[3 + k] = fa1 * nA[k] + fb1 * nB[k];
        dp[6 + k] = fa2 * nA[k];
        dp[9 + k] = fb3 * nB[k];
    }
    /* one vertex at a time: no loop that the compiler versions for aliasing */
    for (int k = 0; k < 3; k++) p0[k] += dp[k];
    for (int k = 0; k < 3; k++) p1[k] += dp[3 + k];
    for (int k = 0; k < 3; k++) p2[k] += dp[6 + k];
    for (int k = 0; k < 3; k++) p3[k] += dp[9 + k];
    return -f * (aa * bb * le);
}

static double db_compliant_step(const weft_element *el, const double *w, double at,
                                double lambda, double *p) {
    return db_step(el->v, el->rest[0], &el->rest[1], w, at, lambda, p);
}

/* db_compliant_step for four hinges el[0..3] that share no vertex, one per SIMD lane
 * (weft_energy.h's compliant_step4): each lane in db_compliant_step's operations and
 * order, so p ends bitwise as after the four scalar steps in any order. A lane away from
 * the rest angle takes weft_angle_from's atan2 on its own; a degenerate hinge or a
 * denominator not positive in any lane returns false, touching nothing. */
#if defined(__GNUC__) && !defined(__clang__)
/* Inlined into db_compliant_steps, GCC 12 takes the lanes' vectors, each filled lane by
 * lane, for possibly uninitialised (-Wmaybe-uninitialized); every lane is written before
 * any is read. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
static inline __attribute__((always_inline)) bool db_lanes(const int *const v[4],
                                                          const double *const cs[4],
                                                          const double *w, const double at_[4],
                                                          const double lambda[4], double *p,
                                                          double dl[4]) {
    const double *q[4][4]; /* hinge vertex i of lane l */
    for (int i = 0; i < 4; i++)
        for (int l = 0; l < 4; l++) q[i][l] = &p[3 * v[l][i]];
    /* each lane filled from registers, not read back as a vector; zeroed first, which
     * inlined takes GCC 12 fewer instructions (116 M against 122 M for 60 substeps at 64²) */
    weft_vd4 x[4][3] = {{{0}}}, wv[4] = {{0}};
    for (int i = 0; i < 4; i++) {
        for (int c = 0; c < 3; c++)
            x[i][c] = (weft_vd4){q[i][0][c], q[i][1][c], q[i][2][c], q[i][3][c]};
        wv[i] = (weft_vd4){w[v[0][i]], w[v[1][i]], w[v[2][i]], w[v[3][i]]};
    }
    const weft_vd4 c0 = {cs[0][0], cs[1][0], cs[2][0], cs[3][0]};
    const weft_vd4 s0 = {cs[0][1], cs[1][1], cs[2][1], cs[3][1]};
    const weft_vd4 at = {at_[0], at_[1], at_[2], at_[3]}, lam = {lambda[0], lambda[1], lambda[2], lambda[3]};
    weft_vd4 e[3], a[3], b[3], nA[3], nB[3];
    for (int c = 0; c < 3; c++)
        e[c] = x[1][c] - x[0][c], a[c] = x[2][c] - x[0][c], b[c] = x[3][c] - x[1][c];
    nA[0] = e[1] * a[2] - e[2] * a[1];
    nA[1] = e[2] * a[0] - e[0] * a[2];
    nA[2] = e[0] * a[1] - e[1] * a[0];
    nB[0] = b[1] * e[2] - b[2] * e[1];
    nB[1] = b[2] * e[0] - b[0] * e[2];
    nB[2] = b[0] * e[1] - b[1] * e[0];
    weft_vd4 ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    weft_vd4 aa = nA[0] * nA[0] + nA[1] * nA[1] + nA[2] * nA[2];
    weft_vd4 bb = nB[0] * nB[0] + nB[1] * nB[1] + nB[2] * nB[2];
    weft_vd4 ab = nA[0] * nB[0] + nA[1] * nB[1] + nA[2] * nB[2];
    weft_vd4 nAb = nA[0] * b[0] + nA[1] * b[1] + nA[2] * b[2];
    weft_vd4 d20 = a[0] * e[0] + a[1] * e[1] + a[2] * e[2], d21 = d20 - ee;
    weft_vd4 d31 = b[0] * e[0] + b[1] * e[1] + b[2] * e[2], d30 = d31 + ee;
    weft_vd4 ee2 = ee * ee, X = aa * bb * ee;
    weft_vd4 E = bb * (wv[0] * d21 * d21 + wv[1] * d20 * d20 + wv[2] * ee2) +
                 aa * (wv[0] * d31 * d31 + wv[1] * d30 * d30 + wv[3] * ee2) +
                 2.0 * ab * (wv[0] * d21 * d31 + wv[1] * d20 * d30);
    weft_vd4 denom = E + at * X;
    __typeof__(ee > 0.0) ok = (ee > 0.0) & (aa > 1e-24 * ee * ee) & (bb > 1e-24 * ee * ee) &
                              (denom > 0.0);
    weft_vd4 le;
    for (int l = 0; l < 4; l++) {
        if (!ok[l]) return false;
        le[l] = sqrt(ee[l]);
    }
    /* weft_angle_from(−ℓ nA·b, nA·nB, (cos θ0, sin θ0)), lane by lane */
    weft_vd4 sn = -le * nAb;
    weft_vd4 y = sn * c0 - ab * s0, xr = ab * c0 + sn * s0, ax = 0.125 * xr;
    __typeof__(ok) small = (xr > 0.0) & (y <= ax) & (-y <= ax);
    weft_vd4 t = y / xr, C; /* weft_atan_small(t), its operations in its order */
    {
        weft_vd4 u = t * t, u2 = u * u, u4 = u2 * u2;
        weft_vd4 p01 = -1.0 / 3.0 + u * (1.0 / 5.0), p23 = -1.0 / 7.0 + u * (1.0 / 9.0);
        weft_vd4 p45 = -1.0 / 11.0 + u * (1.0 / 13.0), p67 = -1.0 / 15.0 + u * (1.0 / 17.0);
        weft_vd4 p03 = p01 + u2 * p23, p47 = p45 + u2 * p67;
        C = t + t * (u * (p03 + u4 * (p47 + u4 * (-1.0 / 19.0))));
    }
    for (int l = 0; l < 4; l++)
        if (!small[l]) C[l] = weft_angle_from(sn[l], ab[l], cs[l]);
    weft_vd4 r = -C - at * lam, f = -r * (le / denom);
    weft_vd4 fa0 = f * wv[0] * d21 * bb, fb0 = f * wv[0] * d31 * aa;
    weft_vd4 fa1 = -f * wv[1] * d20 * bb, fb1 = -f * wv[1] * d30 * aa;
    weft_vd4 fa2 = f * wv[2] * ee * bb, fb3 = f * wv[3] * ee * aa;
    for (int c = 0; c < 3; c++) {
        x[0][c] += fa0 * nA[c] + fb0 * nB[c];
        x[1][c] += fa1 * nA[c] + fb1 * nB[c];
        x[2][c] += fa2 * nA[c];
        x[3][c] += fb3 * nB[c];
    }
    for (int l = 0; l < 4; l++)
        for (int i = 0; i < 4; i++)
            for (int c = 0; c < 3; c++) p[3 * v[l][i] + c] = x[i][c][l];
    weft_vd4 d = -f * (aa * bb * le);
    for (int l = 0; l < 4; l++) dl[l] = d[l];
    return true;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

WEFT_AVX2_CLONE static bool db_compliant_step4(const weft_element *const el[4], const double *w,
                                               const double at[4], const double lambda[4],
                                               double *p, double dl[4]) {
    const int *const v[4] = {el[0]->v, el[1]->v, el[2]->v, el[3]->v};
    const double *const cs[4] = {&el[0]->rest[1], &el[1]->rest[1], &el[2]->rest[1],
                                 &el[3]->rest[1]};
    return db_lanes(v, cs, w, at, lambda, p, dl);
}

/* A hinge packed for db_compliant_steps: what its step reads, 48 bytes (weft_element:
 * 152). */
typedef struct db_packed {
    int v[4];
    double theta0, cs[2], alpha; /* θ0, (cos θ0, sin θ0), compliance (rad²/J) */
} db_packed;

/* weft_energy.h's compliant_pack. */
static void db_compliant_pack(const weft_element *e, double alpha, void *rec) {
    *(db_packed *)rec = (db_packed){{e->v[0], e->v[1], e->v[2], e->v[3]},
                                    e->rest[0], {e->rest[1], e->rest[2]}, alpha};
}

/* Packed hinge j of r through db_step (`lambda` as weft_energy.h's compliant_steps). */
static inline void db_one(const db_packed *r, int j, double ih2, const double *w,
                          double *lambda, double *p) {
    const double l = lambda ? lambda[j] : 0.0;
    const double dl = db_step(r[j].v, r[j].theta0, r[j].cs, w, r[j].alpha * ih2, l, p);
    if (lambda) lambda[j] = l + dl;
}

/* db_compliant_step on the packed hinges r[0 .. n − 1] in turn (weft_energy.h's
 * compliant_steps), with `lanes` four at a time through db_lanes (the same bits; one by
 * one where a lane declines). */
WEFT_AVX2_CLONE static void db_compliant_steps(const void *rec, int n, bool lanes, double ih2,
                                               const double *w, double *lambda, double *p) {
    const db_packed *r = rec;
    int j = 0;
    for (; lanes && j + 4 <= n; j += 4) {
        const int *const v[4] = {r[j].v, r[j + 1].v, r[j + 2].v, r[j + 3].v};
        const double *const cs[4] = {r[j].cs, r[j + 1].cs, r[j + 2].cs, r[j + 3].cs};
        double at[4], l[4], dl[4];
        for (int k = 0; k < 4; k++)
            at[k] = r[j + k].alpha * ih2, l[k] = lambda ? lambda[j + k] : 0.0;
        if (!db_lanes(v, cs, w, at, l, p, dl))
            for (int k = 0; k < 4; k++) db_one(r, j + k, ih2, w, lambda, p);
        else if (lambda)
            for (int k = 0; k < 4; k++) lambda[j + k] = l[k] + dl[k];
    }
    for (; j < n; j++) db_one(r, j, ih2, w, lambda, p);
}

static double db_energy(const weft_element *e, const double *xe) {
    double C = db_constraint(e, xe, NULL);
    return 0.5 * e->k * C * C;
}

static double db_gradient(const weft_element *e, const double *xe, double *g) {
    double C = db_constraint(e, xe, g);
    for (int k = 0; k < 12; k++) g[k] *= e->k * C;
    return 0.5 * e->k * C * C;
}

/* ------------------------------------------------------------------------------ */
/* ∇²θ                                                                             */
/* ------------------------------------------------------------------------------ */

/* Blocks of u = (e, a, b) in 9-vectors and 9×9 matrices. */
enum { UE = 0, UA = 1, UB = 2 };

static double dot(const double *x, const double *y) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

static void cross(const double *x, const double *y, double *out) {
    out[0] = x[1] * y[2] - x[2] * y[1];
    out[1] = x[2] * y[0] - x[0] * y[2];
    out[2] = x[0] * y[1] - x[1] * y[0];
}

/* S = α I + β x yᵀ + γ y xᵀ (3×3 row-major). */
static void mat3(double alpha, double beta, const double *x, const double *y, double gamma,
                 double S[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            S[3 * i + j] = (i == j ? alpha : 0.0) + beta * x[i] * y[j] + gamma * y[i] * x[j];
}

/* The cross-product matrix [x]×, [x]× y = x × y, scaled by w. */
static void skew(const double *x, double w, double S[9]) {
    S[0] = 0.0, S[1] = -w * x[2], S[2] = w * x[1];
    S[3] = w * x[2], S[4] = 0.0, S[5] = -w * x[0];
    S[6] = -w * x[1], S[7] = w * x[0], S[8] = 0.0;
}

/* θ's first derivatives over u = (e, a, b) at u/|e| (θ is scale-invariant, θ(λx) = θ(x),
 * so the derivatives are taken where s, c = O(1) whatever the mesh size; ∇²θ(u) = M/|e|²),
 * what every block of ∇²θ reads. */
typedef struct hinge_u {
    double le;                  /* |e| before the scaling, m */
    double e[3], a[3], b[3];    /* u/|e| */
    double ee, n, ab, ea, eb, D; /* e·e, |e|, a·b, e·a, e·b, det[e, a, b] */
    double s, c, r2;            /* s = −|e| D, c = −P, r² = s² + c² */
    double dD[9], dn[9], ds[9], dc[9];
} hinge_u;

/* The first derivatives of a non-degenerate hinge xe (12 values, m) into h:
 *   ∇D = (a × b, b × e, e × a),   ∇|e| = (ê, 0, 0),   s = −|e| D,
 *   P = (e·e)(a·b) − (e·b)(e·a),  c = −P,
 *   ∇P = (2(a·b) e − (e·a) b − (e·b) a,  (e·e) b − (e·b) e,  (e·e) a − (e·a) e). */
static void hinge_u_make(const double *xe, hinge_u *h) {
    double le = sqrt((xe[3] - xe[0]) * (xe[3] - xe[0]) + (xe[4] - xe[1]) * (xe[4] - xe[1]) +
                     (xe[5] - xe[2]) * (xe[5] - xe[2]));
    double *e = h->e, *a = h->a, *b = h->b;
    for (int k = 0; k < 3; k++) {
        e[k] = (xe[3 + k] - xe[k]) / le;
        a[k] = (xe[6 + k] - xe[k]) / le;
        b[k] = (xe[9 + k] - xe[3 + k]) / le;
    }
    double ee = dot(e, e), n = sqrt(ee), ab = dot(a, b), ea = dot(e, a), eb = dot(e, b);
    double axb[3], bxe[3], exa[3], dP[9];
    cross(a, b, axb), cross(b, e, bxe), cross(e, a, exa);
    double D = dot(e, axb); /* det[e, a, b] */
    for (int k = 0; k < 9; k++) h->dn[k] = 0.0;
    for (int k = 0; k < 3; k++) {
        h->dD[3 * UE + k] = axb[k], h->dD[3 * UA + k] = bxe[k], h->dD[3 * UB + k] = exa[k];
        h->dn[3 * UE + k] = e[k] / n;
        dP[3 * UE + k] = 2.0 * ab * e[k] - ea * b[k] - eb * a[k];
        dP[3 * UA + k] = ee * b[k] - eb * e[k];
        dP[3 * UB + k] = ee * a[k] - ea * e[k];
    }
    double s = -n * D, c = -(ee * ab - eb * ea);
    for (int i = 0; i < 9; i++) h->ds[i] = -(D * h->dn[i] + n * h->dD[i]), h->dc[i] = -dP[i];
    h->le = le, h->ee = ee, h->n = n, h->ab = ab, h->ea = ea, h->eb = eb, h->D = D;
    h->s = s, h->c = c, h->r2 = s * s + c * c;
}

/* Adds S (or Sᵀ when t) to the 3×3 B. */
static void put3(double B[9], const double S[9], bool t) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) B[3 * i + j] += t ? S[3 * j + i] : S[3 * i + j];
}

/* Block (U, V) of the second derivatives of D, |e| and P over u into D2, n2, P2 (3×3 each).
 * D is trilinear: ∂²D/∂e∂a = −[b]×, ∂²D/∂a∂b = −[e]×, ∂²D/∂b∂e = −[a]×, zero diagonal
 * blocks. ∂²|e|/∂e² = (I − êêᵀ)/|e|.
 * P: ∂²P/∂e² = 2(a·b) I − b aᵀ − a bᵀ,  ∂²P/∂e∂a = 2 e bᵀ − b eᵀ − (e·b) I,
 *    ∂²P/∂e∂b = 2 e aᵀ − a eᵀ − (e·a) I,  ∂²P/∂a∂b = (e·e) I − e eᵀ,
 *    ∂²P/∂a² = ∂²P/∂b² = 0;  ∇²c = −∇²P.
 * Each block is formed once, for the (U, V) written above, and read transposed for (V, U). */
static void second_block(const hinge_u *h, int U, int V, double D2[9], double n2[9],
                         double P2[9]) {
    const double *e = h->e, *a = h->a, *b = h->b;
    double S[9];
    for (int k = 0; k < 9; k++) D2[k] = n2[k] = P2[k] = 0.0;
    const int lo = U < V ? U : V, hi = U < V ? V : U;
    if (lo == UE && hi == UE) {
        mat3(1.0 / h->n, -1.0 / (h->n * h->ee), e, e, 0.0, S), put3(n2, S, false);
        mat3(2.0 * h->ab, -1.0, b, a, -1.0, S), put3(P2, S, false);
    } else if (lo == UE && hi == UA) {
        skew(b, -1.0, S), put3(D2, S, U != UE);
        mat3(-h->eb, 2.0, e, b, 0.0, S);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) S[3 * i + j] -= b[i] * e[j];
        put3(P2, S, U != UE);
    } else if (lo == UA && hi == UB) {
        skew(e, -1.0, S), put3(D2, S, U != UA);
        mat3(h->ee, -1.0, e, e, 0.0, S), put3(P2, S, U != UA);
    } else if (lo == UE && hi == UB) {
        skew(a, -1.0, S), put3(D2, S, U != UB);
        mat3(-h->ea, 2.0, e, a, 0.0, S);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) S[3 * i + j] -= a[i] * e[j];
        put3(P2, S, U != UE);
    }
}

/* Block (U, V) of ∇²θ over u at u/|e| into B (3×3):
 *   ∇²s = −(D ∇²|e| + ∇|e| ∇Dᵀ + ∇D ∇|e|ᵀ + |e| ∇²D),
 *   ∇²θ = (c ∇²s − s ∇²c)/r² − (Q Gᵀ + G Qᵀ),  G = (c ∇s − s ∇c)/r²,  Q = (s ∇s + c ∇c)/r²
 * (G and Q given). */
static void angle_block(const hinge_u *h, int U, int V, const double G[9], const double Q[9],
                        double B[9]) {
    double D2[9], n2[9], P2[9];
    second_block(h, U, V, D2, n2, P2);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int I = 3 * U + i, J = 3 * V + j, ij = 3 * i + j;
            double s2 = -(h->D * n2[ij] + h->dn[I] * h->dD[J] + h->dD[I] * h->dn[J] +
                          h->n * D2[ij]);
            double c2 = -P2[ij];
            B[ij] = (h->c * s2 - h->s * c2) / h->r2 - (Q[I] * G[J] + G[I] * Q[J]);
        }
}

/* angle_block's block (U, U) for U = a or b, where D, |e| and P have no second derivative
 * and |e| no first: its (c ∇²s − s ∇²c)/r² term is a zero, so the block is
 * −(Q Gᵀ + G Qᵀ), the same numbers (for finite s and c) up to the sign of a zero, which
 * the sums that take the block (from +0) drop. */
static void angle_block_ab(int U, const double G[9], const double Q[9], double B[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int I = 3 * U + i, J = 3 * U + j;
            B[3 * i + j] = 0.0 - (Q[I] * G[J] + G[I] * Q[J]);
        }
}

/* G and Q of angle_block at the indices of block U of u. */
static void angle_gq(const hinge_u *h, int U, double G[9], double Q[9]) {
    for (int i = 3 * U; i < 3 * U + 3; i++) {
        G[i] = (h->c * h->ds[i] - h->s * h->dc[i]) / h->r2;
        Q[i] = (h->s * h->ds[i] + h->c * h->dc[i]) / h->r2;
    }
}

/* x → u: e = p1 − p0, a = p2 − p0, b = p3 − p1: the (vertex, sign) pairs of each block of u;
 * then ∇²ₓθ = Jᵀ M J / |e|² (the scale factor of the normalisation above). */
static const int u_vert[3][2] = {{1, 0}, {2, 0}, {3, 1}};
static const double u_sign[2] = {1.0, -1.0};

void weft_hinge_angle_hessian(const double *xe, double Ht[144]) {
    hinge_u h;
    hinge_u_make(xe, &h);
    double G[9], Q[9], M[3][3][9];
    for (int U = 0; U < 3; U++) angle_gq(&h, U, G, Q);
    for (int U = 0; U < 3; U++)
        for (int V = 0; V < 3; V++) angle_block(&h, U, V, G, Q, M[U][V]);
    /* Ht = Jᵀ M J w, block (U, V) of M to vertices (u_vert[U][p], u_vert[V][q]) */
    const double w = 1.0 / (h.le * h.le);
    memset(Ht, 0, 144 * sizeof *Ht);
    for (int U = 0; U < 3; U++)
        for (int V = 0; V < 3; V++)
            for (int p = 0; p < 2; p++)
                for (int q = 0; q < 2; q++) {
                    int r0 = 3 * u_vert[U][p], c0 = 3 * u_vert[V][q];
                    double f = w * u_sign[p] * u_sign[q];
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++)
                            Ht[12 * (r0 + i) + c0 + j] += f * M[U][V][3 * i + j];
                }
}

/* Hv += f B (or f Bᵀ when t), 3×3. */
static void add_scaled(double Hv[9], double f, const double B[9], bool t) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Hv[3 * i + j] += f * (t ? B[3 * j + i] : B[3 * i + j]);
}

void weft_hinge_angle_hessian_vertex(const double *xe, int v, double Hv[9]) {
    /* The same sums as weft_hinge_angle_hessian's, in the same order, on the blocks of u
     * that hold p_v: p2 is the + end of a alone, p3 of b alone; p0 is the − end of e and a,
     * p1 the + end of e and the − end of b, so their blocks are (e, e), (e, x), (x, e),
     * (x, x) for x = a or b. Block (x, e) is (e, x)ᵀ bit for bit up to the sign of a zero
     * (dn vanishes on a and b, so the sums of s2 and of Q Gᵀ + G Qᵀ take the same nonzero
     * terms, in orders that differ only by zeros and commuted operands). */
    hinge_u h;
    hinge_u_make(xe, &h);
    const double w = 1.0 / (h.le * h.le);
    double G[9], Q[9], B[9];
    memset(Hv, 0, 9 * sizeof *Hv);
    if (v >= 2) {
        const int x = v == 2 ? UA : UB;
        angle_gq(&h, x, G, Q);
        angle_block_ab(x, G, Q, B);
        add_scaled(Hv, w * u_sign[0] * u_sign[0], B, false);
        return;
    }
    const int x = v == 0 ? UA : UB, pe = v == 0 ? 1 : 0, px = 1; /* the signs' indices */
    angle_gq(&h, UE, G, Q);
    angle_gq(&h, x, G, Q);
    angle_block(&h, UE, UE, G, Q, B);
    add_scaled(Hv, w * u_sign[pe] * u_sign[pe], B, false);
    angle_block(&h, UE, x, G, Q, B);
    add_scaled(Hv, w * u_sign[pe] * u_sign[px], B, false);
    add_scaled(Hv, w * u_sign[px] * u_sign[pe], B, true);
    angle_block_ab(x, G, Q, B);
    add_scaled(Hv, w * u_sign[px] * u_sign[px], B, false);
}

/* PSD projection of a non-degenerate hinge's H (12×12, which it overwrites) by clamping
 * an 8×8 eigenproblem: H annihilates the 4-dimensional space N spanned by the three
 * rigid translations and the stretch along the edge ν, ν_i = ((p_i − p0)·ê) ê (see the
 * file comment), so H = Qᵀ (Q H Qᵀ) Q for any orthonormal basis Q (8×12) of N's
 * orthogonal complement, and the clamp of Q H Qᵀ mapped back is the clamp of H. Q is the
 * Helmert basis of the translation-free subspace (9×12: row r − 1 of B is
 * (1, …, 1, −r, 0, …)/√(r(r + 1)) over the vertices, times I₃) followed by the
 * Householder reflection that sends ν's coordinates y in it to the last axis; its first
 * 8 rows are Q. y ≠ 0 because ν0 = 0 and
 * ν1 = e are not equal (ν is not a translation). */
static void clamp_hinge(double H[144], const double *xe) {
    double B[3][4] = {{0}};
    for (int r = 1; r < 4; r++) {
        double c = 1.0 / sqrt((double)r * (r + 1));
        for (int a = 0; a < 4; a++) B[r - 1][a] = a < r ? c : a == r ? -r * c : 0.0;
    }
    double e[3] = {xe[3] - xe[0], xe[4] - xe[1], xe[5] - xe[2]}, ee = dot(e, e), t[4];
    for (int a = 0; a < 4; a++)
        t[a] = ((xe[3 * a] - xe[0]) * e[0] + (xe[3 * a + 1] - xe[1]) * e[1] +
                (xe[3 * a + 2] - xe[2]) * e[2]) / ee;
    /* y = Q9 ν, Q9's entry (3r + i, 3a + j) = B[r][a] δij; then the Householder vector
     * v = y + sign(y8) |y| e8, P = I − 2 v vᵀ / (vᵀv), Q = (P Q9)[0..7]. */
    double y[9], yy = 0.0;
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 3; i++) {
            double sum = 0.0;
            for (int a = 0; a < 4; a++) sum += B[r][a] * t[a];
            y[3 * r + i] = sum * e[i];
            yy += y[3 * r + i] * y[3 * r + i];
        }
    y[8] += copysign(sqrt(yy), y[8]);
    double vv = 0.0, Q[8][12], vQ[12] = {0};
    for (int k = 0; k < 9; k++) vv += y[k] * y[k];
    for (int r = 0; r < 3; r++) /* vQ = vᵀ Q9 */
        for (int i = 0; i < 3; i++)
            for (int a = 0; a < 4; a++) vQ[3 * a + i] += y[3 * r + i] * B[r][a];
    for (int k = 0; k < 8; k++)
        for (int col = 0; col < 12; col++) {
            int a = col / 3, j = col % 3;
            double q9 = k % 3 == j ? B[k / 3][a] : 0.0;
            Q[k][col] = q9 - 2.0 * y[k] / vv * vQ[col];
        }
    /* R = Q H Qᵀ (8×8): the lower triangle, mirrored, so exactly symmetric. */
    double T[8][12], R[64];
    for (int k = 0; k < 8; k++)
        for (int col = 0; col < 12; col++) {
            double sum = 0.0;
            for (int m = 0; m < 12; m++) sum += Q[k][m] * H[12 * m + col];
            T[k][col] = sum;
        }
    for (int k = 0; k < 8; k++)
        for (int l = 0; l <= k; l++) {
            double sum = 0.0;
            for (int m = 0; m < 12; m++) sum += T[k][m] * Q[l][m];
            R[8 * k + l] = R[8 * l + k] = sum;
        }
    if (!weft_psd_clamp(R, 8)) return; /* already PSD: H stays exact, bit for bit */
    /* H = Qᵀ R Q, the lower triangle mirrored. */
    for (int k = 0; k < 8; k++)
        for (int col = 0; col < 12; col++) {
            double sum = 0.0;
            for (int l = 0; l < 8; l++) sum += R[8 * k + l] * Q[l][col];
            T[k][col] = sum;
        }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j <= i; j++) {
            double sum = 0.0;
            for (int k = 0; k < 8; k++) sum += Q[k][i] * T[k][j];
            H[12 * i + j] = H[12 * j + i] = sum;
        }
}

/* The hinge's frame at a non-degenerate hinge: ê along the edge p0 → p1, u1 the unit
 * offset of wing A (p2) from the edge line, u2 = ê × u1; wing B's offset is
 * h_B (b0 u1 + b1 u2). */
typedef struct hinge_frame {
    double L;          /* edge length |p1 − p0|, m */
    double lA, lB;     /* feet of p2, p3 on the edge line, as fractions of L from p0 */
    double hA, hB;     /* distances of p2, p3 from the edge line, m */
    double b0, b1;     /* wing B's unit offset in (u1, u2) */
    double u[3][3];    /* u1, u2, ê */
} hinge_frame;

static void hinge_frame_make(const double *xe, hinge_frame *f) {
    double e[3] = {xe[3] - xe[0], xe[4] - xe[1], xe[5] - xe[2]}, a[3], b[3], wb[3];
    f->L = sqrt(dot(e, e));
    for (int k = 0; k < 3; k++) f->u[2][k] = e[k] / f->L;
    for (int k = 0; k < 3; k++) a[k] = xe[6 + k] - xe[k], b[k] = xe[9 + k] - xe[k];
    double ta = dot(a, f->u[2]), tb = dot(b, f->u[2]);
    f->lA = ta / f->L, f->lB = tb / f->L;
    for (int k = 0; k < 3; k++) f->u[0][k] = a[k] - ta * f->u[2][k], wb[k] = b[k] - tb * f->u[2][k];
    f->hA = sqrt(dot(f->u[0], f->u[0])), f->hB = sqrt(dot(wb, wb));
    for (int k = 0; k < 3; k++) f->u[0][k] /= f->hA;
    cross(f->u[2], f->u[0], f->u[1]);
    f->b0 = dot(wb, f->u[0]) / f->hB, f->b1 = dot(wb, f->u[1]) / f->hB;
}

/* Vertex weights of the hinge coordinates' functionals (each sums to zero). */
static void hinge_weights(const hinge_frame *f, double cA[4], double cB[4]) {
    cA[0] = -(1.0 - f->lA), cA[1] = -f->lA, cA[2] = 1.0, cA[3] = 0.0;
    cB[0] = -(1.0 - f->lB), cB[1] = -f->lB, cB[2] = 0.0, cB[3] = 1.0;
}

void weft_hinge_coordinates(const double *xe, double T[8][12], double R[8][12]) {
    hinge_frame f;
    hinge_frame_make(xe, &f);
    double cA[4], cB[4];
    hinge_weights(&f, cA, cB);
    const double cT[4] = {-1.0, 1.0, 0.0, 0.0};
    const double *wT[8] = {cA, cA, cB, cB, cT, cT, cA, cB};
    const int dir[8] = {0, 1, 0, 1, 0, 1, 2, 2};
    /* R: ℓ_A, ℓ_B and the axial ℓ's move their own wing vertex only; Lτ moves p1 by L τ
     * and each wing with the edge point at its foot (λ L τ), which keeps ℓ_A = ℓ_B = 0. */
    const double rA[4] = {0, 0, 1, 0}, rB[4] = {0, 0, 0, 1}, rT[4] = {0, 1, f.lA, f.lB};
    const double *wR[8] = {rA, rA, rB, rB, rT, rT, rA, rB};
    for (int p = 0; p < 8; p++)
        for (int v = 0; v < 4; v++)
            for (int k = 0; k < 3; k++) {
                T[p][3 * v + k] = wT[p][v] * f.u[dir[p]][k];
                R[p][3 * v + k] = wR[p][v] * f.u[dir[p]][k];
            }
}

/* Sets q (12) to the x-space direction c ⊗ dir of one hinge coordinate: vertex v moves
 * by c[v] dir. */
static void kron(const double c[4], const double dir[3], double q[12]) {
    for (int v = 0; v < 4; v++)
        for (int k = 0; k < 3; k++) q[3 * v + k] = c[v] * dir[k];
}

/* H += Σ over the positive eigenvalues λ of the tridiagonal block (d, e) in the basis
 * whose x-space directions are the rows of B: λ (Bᵀz)(Bᵀz)ᵀ, z the eigenvector. */
static void add_positive_part(double d[4], double e[3], double B[4][12], double H[144]) {
    double Z[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (weft_symeig_tridiagonal(4, d, e, Z) != 0) return; /* only for non-finite input */
    for (int k = 0; k < 4; k++) {
        if (!(d[k] > 0.0)) continue;
        double q[12];
        for (int i = 0; i < 12; i++)
            q[i] = Z[k] * B[0][i] + Z[4 + k] * B[1][i] + Z[8 + k] * B[2][i] + Z[12 + k] * B[3][i];
        for (int i = 0; i < 12; i++)
            for (int j = 0; j <= i; j++) H[12 * i + j] += d[k] * q[i] * q[j];
    }
}

/* PSD projection in hinge coordinates (the file comment): the two blocks of the exact
 * Hessian in closed form, each made tridiagonal by its choice of basis, their eigenvalues
 * clamped, and H⁺ = Tᵀ M⁺ T assembled from the positive eigenpairs. C = θ − θ0 ≠ 0. */
static void project_hinge(const double *xe, double k, double C, double H[144]) {
    hinge_frame f;
    hinge_frame_make(xe, &f);
    double cA[4], cB[4], B[4][12], d[4], e[3];
    const double cT[4] = {-1.0, 1.0, 0.0, 0.0};
    hinge_weights(&f, cA, cB);
    double al = 1.0 / f.hA, be = 1.0 / f.hB, L = f.L, b0 = f.b0, b1 = f.b1;
    /* wing B's unit offset ŵ_B and its normal n̂_B = ê × ŵ_B, in x-space */
    double wB[3], nB[3];
    for (int i = 0; i < 3; i++) {
        wB[i] = b0 * f.u[0][i] + b1 * f.u[1][i];
        nB[i] = -b1 * f.u[0][i] + b0 * f.u[1][i];
    }
    memset(H, 0, 144 * sizeof *H);

    /* Block 1, the wing offsets, in the basis (ŵ_A, n̂_A, n̂_B, ŵ_B):
     *   k (g gᵀ + C ∇²θ),  g = (0, −α, β, 0),  ∇²θ: α² on (ŵ_A, n̂_A), −β² on (n̂_B, ŵ_B). */
    kron(cA, f.u[0], B[0]), kron(cA, f.u[1], B[1]), kron(cB, nB, B[2]), kron(cB, wB, B[3]);
    d[0] = 0.0, d[1] = k * al * al, d[2] = k * be * be, d[3] = 0.0;
    e[0] = k * C * al * al, e[1] = -k * al * be, e[2] = -k * C * be * be;
    add_positive_part(d, e, B, H);

    /* Block 2, edge tilt and axial wing offsets: k C [[P, V], [Vᵀ, 0]] over (Lτ, ℓ^z_A,
     * ℓ^z_B), P = (b1/L²) [[b0, b1], [b1, −b0]] (a reflection across the bisector p₊ of
     * the two wings, eigenvalues ±b1/L²), V's columns n̂_A α/L and −n̂_B β/L. In the
     * basis (p₊, z1, p₋ = ê × p₊, z2), z1 the axial combination p₊ couples to and z2 ⊥ z1,
     * it is tridiagonal. p₊ from the larger of ŵ_A + ŵ_B and ê × (ŵ_B − ŵ_A) (parallel;
     * the larger has no cancellation). In (u1, u2): ŵ_A = (1, 0), n̂_A = (0, 1). */
    double s0 = 1.0 + b0, s1 = b1, r0 = -b1, r1 = b0 - 1.0; /* ŵ_A + ŵ_B, ê × (ŵ_B − ŵ_A) */
    double ns = s0 * s0 + s1 * s1, nr = r0 * r0 + r1 * r1, pp[2];
    if (ns >= nr) pp[0] = s0 / sqrt(ns), pp[1] = s1 / sqrt(ns);
    else pp[0] = r0 / sqrt(nr), pp[1] = r1 / sqrt(nr);
    double pm[2] = {-pp[1], pp[0]};
    /* couplings of p± to (ℓ^z_A, ℓ^z_B): (n̂_A·p α, −n̂_B·p β)/L, n̂_B = (−b1, b0) */
    double cp[2] = {pp[1] * al / L, -(-b1 * pp[0] + b0 * pp[1]) * be / L};
    double cm[2] = {pm[1] * al / L, -(-b1 * pm[0] + b0 * pm[1]) * be / L};
    double ncp = sqrt(cp[0] * cp[0] + cp[1] * cp[1]), z1[2] = {1.0, 0.0};
    if (ncp > 0.0) z1[0] = cp[0] / ncp, z1[1] = cp[1] / ncp;
    double z2[2] = {-z1[1], z1[0]};
    double Pp[3], Pm[3], cz1[4], cz2[4];
    for (int i = 0; i < 3; i++) {
        Pp[i] = pp[0] * f.u[0][i] + pp[1] * f.u[1][i];
        Pm[i] = pm[0] * f.u[0][i] + pm[1] * f.u[1][i];
    }
    for (int v = 0; v < 4; v++) {
        cz1[v] = z1[0] * cA[v] + z1[1] * cB[v];
        cz2[v] = z2[0] * cA[v] + z2[1] * cB[v];
    }
    kron(cT, Pp, B[0]), kron(cz1, f.u[2], B[1]), kron(cT, Pm, B[2]), kron(cz2, f.u[2], B[3]);
    double kc = k * C;
    d[0] = kc * b1 / (L * L), d[1] = 0.0, d[2] = -kc * b1 / (L * L), d[3] = 0.0;
    e[0] = kc * ncp;
    e[1] = kc * (cm[0] * z1[0] + cm[1] * z1[1]);
    e[2] = kc * (cm[0] * z2[0] + cm[1] * z2[1]);
    add_positive_part(d, e, B, H);

    for (int i = 0; i < 12; i++) /* mirror the lower triangle */
        for (int j = 0; j < i; j++) H[12 * j + i] = H[12 * i + j];
}

static double db_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                         double *g, double *H) {
    double gt[12];
    double C = db_constraint(e, xe, gt); /* gt = ∇θ */
    double psi = 0.5 * e->k * C * C;
    if (g)
        for (int k = 0; k < 12; k++) g[k] = gt[k] * (e->k * C);
    memset(H, 0, 144 * sizeof *H);
    /* weft_hinge_angle returns ∇θ = 0 exactly when the hinge is degenerate; otherwise
     * ∂θ/∂p2 = −|e| nA/|nA|² ≠ 0. */
    if (gt[6] == 0.0 && gt[7] == 0.0 && gt[8] == 0.0) return psi;
    /* At the rest angle (C = 0, e.g. every hinge of a cloth at rest) H = k ∇θ ∇θᵀ, which
     * is PSD as it stands: nothing to project, and ∇²θ is not needed. */
    if (C == 0.0) {
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++) H[12 * i + j] = e->k * gt[i] * gt[j];
        return psi;
    }
    if (mode == WEFT_HESSIAN_ANALYTIC) {
        project_hinge(xe, e->k, C, H);
        return psi;
    }
    double Ht[144];
    weft_hinge_angle_hessian(xe, Ht);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) H[12 * i + j] = e->k * (gt[i] * gt[j] + C * Ht[12 * i + j]);
    /* Exactly symmetric (the sums above round differently in the two triangles). */
    weft_symmetrise(H, 12);
    if (mode == WEFT_HESSIAN_CLAMP) clamp_hinge(H, xe);
    return psi;
}

/* weft_hinge_angle's θ of the hinge xe and the 3 values of its gradient at vertex v (the
 * same operations on them, so the same bits); *degenerate set where ∂θ/∂p2 = 0, db_hessian's
 * test (weft_hinge_angle returns θ = 0 and ∇θ = 0 at a degenerate hinge). */
static double hinge_angle_vertex(const double *xe, int v, double gv[3], bool *degenerate) {
    const double *p0 = xe, *p1 = xe + 3, *p2 = xe + 6, *p3 = xe + 9;
    const weft_hinge_frame f = weft_hinge_frame_of(p0, p1, p2, p3);
    const double *e = f.e, *nA = f.nA, *nB = f.nB;
    *degenerate = weft_hinge_degenerate(&f);
    if (*degenerate) {
        gv[0] = gv[1] = gv[2] = 0.0;
        return 0.0;
    }
    double le = sqrt(f.ee);
    double theta = weft_hinge_theta(e, nA, nB, le);
    /* ∂θ/∂p2 = −|e| nA/|nA|², which db_hessian tests for 0 */
    double ia = 1.0 / f.aa, g2[3];
    for (int k = 0; k < 3; k++) g2[k] = -le * (nA[k] * ia);
    *degenerate = g2[0] == 0.0 && g2[1] == 0.0 && g2[2] == 0.0;
    if (v == 2) {
        memcpy(gv, g2, sizeof g2);
        return theta;
    }
    double ib = 1.0 / f.bb;
    if (v == 3) { /* −|e| nB/|nB|² */
        for (int k = 0; k < 3; k++) gv[k] = -le * (nB[k] * ib);
        return theta;
    }
    double il = 1.0 / le, dA, dB;
    if (v == 0) { /* d21, d31 */
        dA = (p2[0] - p1[0]) * e[0] + (p2[1] - p1[1]) * e[1] + (p2[2] - p1[2]) * e[2];
        dB = (p3[0] - p1[0]) * e[0] + (p3[1] - p1[1]) * e[1] + (p3[2] - p1[2]) * e[2];
    } else { /* d20, d30 */
        dA = f.a[0] * e[0] + f.a[1] * e[1] + f.a[2] * e[2];
        dB = (p3[0] - p0[0]) * e[0] + (p3[1] - p0[1]) * e[1] + (p3[2] - p0[2]) * e[2];
    }
    for (int k = 0; k < 3; k++) {
        double ua = nA[k] * ia, ub = nB[k] * ib;
        gv[k] = v == 0 ? -(dA * ua + dB * ub) * il : (dA * ua + dB * ub) * il;
    }
    return theta;
}

/* Vertex v's part for vertex block descent: g = k C ∂θ/∂p_v and the diagonal block of
 * db_hessian's matrix of `mode`. The exact one: the same operations on the same values
 * (equal to them bit for bit) without the other 15 blocks, the other 9 gradient values
 * (hinge_angle_vertex) or the 12 × 12 products; the projected modes act on the whole
 * 12 × 12 matrix, so they take its block. Returns Ψ. */
static double db_vertex_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                                int v, double *g, double *H) {
    double gt[12];
    if (mode != WEFT_HESSIAN_EXACT) { /* projected in hinge coordinates: the full matrix */
        double Hf[144];
        double psi = db_hessian(e, xe, mode, gt, Hf);
        for (int i = 0; i < 3; i++) {
            g[i] = gt[3 * v + i];
            for (int j = 0; j < 3; j++) H[3 * i + j] = Hf[12 * (3 * v + i) + 3 * v + j];
        }
        return psi;
    }
    double gv[3];
    bool degenerate;
    double C = weft_wrap_angle(hinge_angle_vertex(xe, v, gv, &degenerate) - e->rest[0]);
    double psi = 0.5 * e->k * C * C;
    for (int k = 0; k < 3; k++) g[k] = gv[k] * (e->k * C);
    memset(H, 0, 9 * sizeof *H);
    if (degenerate) return psi; /* ∇θ = 0, as db_hessian */
    if (C == 0.0) {
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) H[3 * i + j] = e->k * gv[i] * gv[j];
        return psi;
    }
    double Ht[9];
    weft_hinge_angle_hessian_vertex(xe, v, Ht);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) H[3 * i + j] = e->k * (gv[i] * gv[j] + C * Ht[3 * i + j]);
    weft_symmetrise(H, 3);
    return psi;
}

const weft_energy_type weft_discrete_shells = {
    .name = "discrete_shells",
    .paper = "Grinspun et al. 2003 (hinge weight 3|e|^2/A)",
    .summary = "hinge bending 1/2 k (theta - theta0)^2, k = D 3|e|^2 / A: the paper's "
               "weight, 3x stiffer than D in cylindrical bending",
    .kind = WEFT_ELEM_HINGE,
    .nv = 4,
    .init = ds_init,
    .energy = db_energy,
    .gradient = db_gradient,
    .hessian = db_hessian,
    .analytic_psd = false,
    .constraint = db_constraint_fast,
    .compliant_step = db_compliant_step,
    .compliant_step4 = db_compliant_step4,
    .compliant_size = sizeof(db_packed),
    .compliant_pack = db_compliant_pack,
    .compliant_steps = db_compliant_steps,
    .vertex_hessian = db_vertex_hessian,
};

const weft_energy_type weft_dihedral_bending = {
    .name = "dihedral_bending",
    .paper = "Mueller 2006 §4.1; Grinspun et al. 2003, weight calibrated (papers/calibration.md)",
    .summary = "hinge bending 1/2 k (theta - theta0)^2, k = D |e|^2 / A: D is the flexural "
               "rigidity of cylindrical bending",
    .kind = WEFT_ELEM_HINGE,
    .nv = 4,
    .init = db_init,
    .energy = db_energy,
    .gradient = db_gradient,
    .hessian = db_hessian,
    .analytic_psd = false,
    .constraint = db_constraint_fast,
    .compliant_step = db_compliant_step,
    .compliant_step4 = db_compliant_step4,
    .compliant_size = sizeof(db_packed),
    .compliant_pack = db_compliant_pack,
    .compliant_steps = db_compliant_steps,
    .vertex_hessian = db_vertex_hessian,
    .default_for = WEFT_DEFAULT_BENDING,
};
