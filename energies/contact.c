/* contact.c — the plane-distance kernel of the contact penalties and their evaluation on
 * a 4-vertex element (equations in contact.h; Kim & Eberle §10.2, McAdams et al. 2011). */
#include "contact.h"
#include "weft_vec.h"

#include "fem.h"

#include <string.h>

/* Blocks of u = (r, a, b) in 9-vectors and 9×9 matrices. */
enum { UR = 0, UA = 1, UB = 2 };



/* The cross-product matrix [x]×, [x]× y = x × y, scaled by w. */
static void skew(const double *x, double w, double S[9]) {
    S[0] = 0.0, S[1] = -w * x[2], S[2] = w * x[1];
    S[3] = w * x[2], S[4] = 0.0, S[5] = -w * x[0];
    S[6] = -w * x[1], S[7] = w * x[0], S[8] = 0.0;
}

/* C = A B (3×3 row-major; C must not alias A or B). */
static void mul3(const double A[9], const double B[9], double C[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* Adds w S to block (U, V) of the 9×9 M and, when U ≠ V, w Sᵀ to block (V, U). */
static void add_block(double M[81], int U, int V, const double S[9], double w) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            M[9 * (3 * U + i) + 3 * V + j] += w * S[3 * i + j];
            if (U != V) M[9 * (3 * V + j) + 3 * U + i] += w * S[3 * i + j];
        }
}

bool weft_contact_plane_distance(const double u[9], double *f, double gf[9], double Hf[81]) {
    const double *r = u + 3 * UR, *a = u + 3 * UA, *b = u + 3 * UB;
    double m[3];
    weft_cross3(a, b, m);
    double mu = sqrt(weft_dot3(m, m)), aa = weft_dot3(a, a), bb = weft_dot3(b, b);
    /* No normal: also catches a or b of zero length, and NaN input (the comparison is
     * false), so nothing below divides by zero. */
    if (!(mu > WEFT_CONTACT_SINE * sqrt(aa) * sqrt(bb))) {
        *f = 0.0;
        if (gf) memset(gf, 0, 9 * sizeof *gf);
        if (Hf) memset(Hf, 0, 81 * sizeof *Hf);
        return false;
    }
    double n[3] = {m[0] / mu, m[1] / mu, m[2] / mu};
    double fv = weft_dot3(r, n);
    *f = fv;
    if (!gf && !Hf) return true;

    /* ∇f = (n̂, b × r_t/μ, r_t × a/μ), r_t = r − f n̂; ∇μ = (0, b × n̂, n̂ × a). */
    double rt[3] = {r[0] - fv * n[0], r[1] - fv * n[1], r[2] - fv * n[2]};
    double g[9], gm[9] = {0}, t[3];
    for (int k = 0; k < 3; k++) g[3 * UR + k] = n[k];
    weft_cross3(b, rt, t);
    for (int k = 0; k < 3; k++) g[3 * UA + k] = t[k] / mu;
    weft_cross3(rt, a, t);
    for (int k = 0; k < 3; k++) g[3 * UB + k] = t[k] / mu;
    weft_cross3(b, n, gm + 3 * UA);
    weft_cross3(n, a, gm + 3 * UB);
    if (gf) memcpy(gf, g, sizeof g);
    if (!Hf) return true;

    /* ∇²f = (∇²D − ∇f ∇μᵀ − ∇μ ∇fᵀ − f ∇²μ)/μ. */
    double M[81] = {0}, S[9], Sa[9], Sb[9], P[9], T[9], U[9];
    skew(b, -1.0, S), add_block(M, UR, UA, S, 1.0); /* ∂²D/∂r∂a = −[b]× */
    skew(a, 1.0, S), add_block(M, UR, UB, S, 1.0);  /* ∂²D/∂r∂b = [a]× */
    skew(r, -1.0, S), add_block(M, UA, UB, S, 1.0); /* ∂²D/∂a∂b = −[r]× */
    /* ∇²μ: with P = I − n̂n̂ᵀ, [b]× P [b]×, [a]× P [a]× and [b]× P [a]× over μ, and −[n̂]×. */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) P[3 * i + j] = (i == j ? 1.0 : 0.0) - n[i] * n[j];
    skew(a, 1.0, Sa), skew(b, 1.0, Sb);
    double w = -fv / mu; /* −f ∇²μ, the μ-terms of ∇²μ carrying 1/μ */
    mul3(Sb, P, T), mul3(T, Sb, U), add_block(M, UA, UA, U, -w);
    mul3(Sa, P, T), mul3(T, Sa, U), add_block(M, UB, UB, U, -w);
    mul3(Sb, P, T), mul3(T, Sa, U), add_block(M, UA, UB, U, w);
    skew(n, 1.0, S), add_block(M, UA, UB, S, fv); /* −f · (−[n̂]×) */
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) {
            int ij = 9 * i + j;
            Hf[ij] = (M[ij] - g[i] * gm[j] - gm[i] * g[j]) / mu;
        }
    return true;
}

/* u = (r, a, b) of the element at xe. */
static void gather_u(const double *xe, const weft_contact_map *map, double u[9]) {
    for (int U = 0; U < 3; U++)
        for (int k = 0; k < 3; k++)
            u[3 * U + k] = xe[3 * map->plus[U] + k] - xe[3 * map->minus[U] + k];
}

void weft_contact_init(weft_element *e, const double *xe, const weft_contact_map *map,
                       const weft_energy_params *p) {
    double u[9], f;
    gather_u(xe, map, u);
    weft_contact_plane_distance(u, &f, NULL, NULL);
    e->k = p->stiffness;
    e->k2 = 0.0;
    e->rest[0] = p->thickness;
    e->rest[1] = f < 0.0 ? -1.0 : 1.0;
}

double weft_contact_distance(const weft_element *e, const double *xe, const weft_contact_map *map,
                             bool *has_normal) {
    double u[9], f;
    gather_u(xe, map, u);
    bool ok = weft_contact_plane_distance(u, &f, NULL, NULL);
    if (has_normal) *has_normal = ok;
    return e->rest[1] * f;
}

double weft_contact_eval(const weft_element *e, const double *xe, const weft_contact_map *map,
                         weft_hessian_mode mode, double *g, double *H) {
    double u[9], f, gf[9], Hf[81];
    gather_u(xe, map, u);
    if (g) memset(g, 0, 12 * sizeof *g);
    if (H) memset(H, 0, 144 * sizeof *H);
    bool ok = weft_contact_plane_distance(u, &f, g || H ? gf : NULL, H ? Hf : NULL);
    double s = e->rest[1], c = e->rest[0] - s * f; /* η − d, m */
    if (!ok || !(c > 0.0)) return 0.0;             /* no normal, or separated: inactive */
    double k = e->k, psi = 0.5 * k * c * c;
    if (g) /* ∇Ψ = −k (η − d) s J_xᵀ ∇f */
        for (int U = 0; U < 3; U++)
            for (int i = 0; i < 3; i++) {
                double v = -k * c * s * gf[3 * U + i];
                g[3 * map->plus[U] + i] += v;
                g[3 * map->minus[U] + i] -= v;
            }
    if (!H) return psi;
    /* ∇ᵤ²Ψ = k ∇f ∇fᵀ − k (η − d) s ∇²f, then J_xᵀ (·) J_x. */
    double Hu[81];
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) Hu[9 * i + j] = k * (gf[i] * gf[j] - c * s * Hf[9 * i + j]);
    for (int U = 0; U < 3; U++)
        for (int V = 0; V < 3; V++)
            for (int p = 0; p < 2; p++)
                for (int q = 0; q < 2; q++) {
                    int va = p ? map->minus[U] : map->plus[U];
                    int vb = q ? map->minus[V] : map->plus[V];
                    double sg = p == q ? 1.0 : -1.0;
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++)
                            H[12 * (3 * va + i) + 3 * vb + j] +=
                                sg * Hu[9 * (3 * U + i) + 3 * V + j];
                }
    /* Exactly symmetric (the blocks above are summed in different orders). */
    weft_symmetrise(H, 12);
    if (mode != WEFT_HESSIAN_EXACT) weft_psd_clamp(H, 12);
    return psi;
}
