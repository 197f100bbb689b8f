/* ipc_barrier.c — the barrier, the edge–edge mollifier and the per-pair barrier energy of
 * Incremental Potential Contact (Li et al. 2020, ACM TOG 39(4), §4; thickness: Li, Kaufman
 * & Jiang 2021, "Codimensional IPC", ACM TOG 40(4), §3).
 *
 * Barrier (Li 2020 eq. 6), written as the IPC reference code does on squared distances,
 * s = d² (m²) and ŝ = d̂², so no square root is taken:
 *   b(s) = −κ (s − ŝ)² ln(s/ŝ)  for 0 < s < ŝ,   b = 0 for s ≥ ŝ         (κ in J/m⁴)
 *   b'(s) = −κ [2 (s − ŝ) ln(s/ŝ) + (s − ŝ)²/s]
 *   b''(s) = −κ [2 ln(s/ŝ) + 4 (s − ŝ)/s − (s − ŝ)²/s²]
 * b is C² at s = ŝ (b = b' = b'' = 0 there) and → +∞ as s → 0.
 * Thickness ξ (C-IPC): the barrier acts on the offset surfaces, zero at d = ξ + d̂ and
 * infinite at d = ξ. In squared form it takes s − ξ² for s and (ξ + d̂)² − ξ² = d̂(2ξ + d̂)
 * for ŝ: s − ξ² = (d − ξ)(d + ξ) vanishes exactly at d = ξ and equals the new ŝ exactly at
 * d = ξ + d̂, and is affine in s, so b' and b'' above hold unchanged.
 *
 * Mollifier (Li 2020 §4.3), for nearly parallel edges where the edge–edge distance's
 * derivatives degenerate: with c = |(a1 − a0) × (b1 − b0)|² and ε_x = 1e-3 |ā1 − ā0|²
 * |b̄1 − b̄0|² from the rest edges,
 *   e(c) = −c²/ε_x² + 2 c/ε_x for c < ε_x, 1 otherwise;  e' = 2/ε_x − 2c/ε_x²,  e'' = −2/ε_x²
 * (C¹ at c = ε_x), ∇e = e' ∇c, ∇²e = e'' ∇c ∇cᵀ + e' ∇²c.
 *
 * Pair energies: point–triangle B = b(s(x)); edge–edge B = e(x) b(s(x)), s from the
 * classified distance type (ipc_distance.c):
 *   ∇B = e b' ∇s + b ∇e,
 *   ∇²B = e (b'' ∇s ∇sᵀ + b' ∇²s) + b' (∇e ∇sᵀ + ∇s ∇eᵀ) + b ∇²e,
 * and the 12×12 Hessian is projected to PSD by clamping its eigenvalues (weft_psd_clamp).
 */
#include "ipc.h"

#include "fem.h"

#include <math.h>
#include <string.h>

double weft_ipc_barrier(double s, const weft_ipc_params *p, double *db, double *d2b) {
    double xi2 = p->xi * p->xi, sh = p->dhat * (2 * p->xi + p->dhat), t = s - xi2;
    if (t >= sh) {
        if (db) *db = 0;
        if (d2b) *d2b = 0;
        return 0;
    }
    if (t <= 0) {
        if (db) *db = -INFINITY;
        if (d2b) *d2b = INFINITY;
        return INFINITY;
    }
    double q = t - sh, l = log(t / sh);
    if (db) *db = -p->kappa * (2 * q * l + q * q / t);
    if (d2b) *d2b = -p->kappa * (2 * l + 4 * q / t - q * q / (t * t));
    return -p->kappa * q * q * l;
}

double weft_ipc_mollifier_eps(const double x_rest[12]) {
    double a = 0, b = 0;
    for (int c = 0; c < 3; c++) {
        double u = x_rest[3 + c] - x_rest[c], v = x_rest[9 + c] - x_rest[6 + c];
        a += u * u;
        b += v * v;
    }
    return 1e-3 * a * b;
}

double weft_ipc_mollifier(const double x[12], double eps_x, double g[12], double H[144]) {
    double gc[12], Hc[144];
    double c = weft_ipc_cross_sq(x, gc, Hc);
    if (c >= eps_x) {
        if (g) memset(g, 0, 12 * sizeof *g);
        if (H) memset(H, 0, 144 * sizeof *H);
        return 1;
    }
    double r = c / eps_x, e1 = 2 / eps_x - 2 * c / (eps_x * eps_x), e2 = -2 / (eps_x * eps_x);
    if (g)
        for (int a = 0; a < 12; a++) g[a] = e1 * gc[a];
    if (H)
        for (int a = 0; a < 12; a++)
            for (int b = 0; b < 12; b++) H[a * 12 + b] = e2 * gc[a] * gc[b] + e1 * Hc[a * 12 + b];
    return (2 - r) * r;
}

/* e b(s) with its gradient and Hessian, given s, e and their derivatives (ge, He NULL: e = 1
 * constant). Returns the energy; zero g, H outside the barrier's support. */
static double pair_energy(double s, const double *gs, const double *Hs, double e,
                          const double *ge, const double *He, const weft_ipc_params *p,
                          bool project, double *g, double *H) {
    double db, d2b, b = weft_ipc_barrier(s, p, &db, &d2b);
    if (g)
        for (int a = 0; a < 12; a++) g[a] = e * db * gs[a] + (ge ? b * ge[a] : 0);
    if (H) {
        for (int a = 0; a < 12; a++)
            for (int c = 0; c < 12; c++) {
                double h = e * (d2b * gs[a] * gs[c] + db * Hs[a * 12 + c]);
                if (ge) h += db * (ge[a] * gs[c] + gs[a] * ge[c]) + b * He[a * 12 + c];
                H[a * 12 + c] = h;
            }
        if (project && b > 0) weft_psd_clamp(H, 12);
    }
    return e * b;
}

double weft_ipc_pt_energy(const double x[12], const weft_ipc_params *p, bool project,
                          double g[12], double H[144]) {
    double gs[12], Hs[144];
    double s = weft_ipc_d2(x, weft_ipc_classify_pt(x), gs, Hs);
    return pair_energy(s, gs, Hs, 1, NULL, NULL, p, project, g, H);
}

double weft_ipc_ee_energy(const double x[12], double eps_x, const weft_ipc_params *p,
                          bool project, double g[12], double H[144]) {
    double gs[12], Hs[144], ge[12], He[144];
    double s = weft_ipc_d2(x, weft_ipc_classify_ee(x), gs, Hs);
    double e = weft_ipc_mollifier(x, eps_x, ge, He);
    return pair_energy(s, gs, Hs, e, ge, He, p, project, g, H);
}
