/* ipc_stiffness.c — the adaptive barrier stiffness κ of Incremental Potential Contact (Li
 * et al. 2020, ACM TOG 39(4), §4.3 "adaptive barrier stiffness" and its supplement), as
 * pure functions; weft's barrier is written in squared distances (ipc_barrier.c).
 *
 * Bounds: with b̂ the barrier at κ = 1, its stiffness along the normal at distance d is
 * ∂²b̂/∂d² = 4 s b̂″(s) + 2 b̂′(s) ≈ 4 s b̂″(s) for small s = d². The paper asks the barrier,
 * at a distance 1e-8 of the scene's bounding-box diagonal l, to be as stiff as 1e11 times
 * the average vertex mass m̄ (the incremental potential's mass term):
 *   κ_min = 1e11 m̄ / (4 s₀ b̂″(s₀)),  s₀ = (ξ + 1e-8 l)²  (ξ² + ŝ/2 if that is beyond d̂),
 *   κ_max = 100 κ_min.
 * Initial value: the κ that best balances the objective's gradient g_E against the
 * barrier's g_B (at κ = 1) at the start, the minimiser of |g_E + κ g_B|²,
 *   κ₀ = −g_E·g_B / |g_B|²,  clamped to [κ_min, κ_max]  (κ_min without contacts).
 * Update: when the smallest distance d_min is below ε_d = ξ + 1e-9 l and still shrinking
 * (d_min < d_prev, both below ε_d), κ ← min(2κ, κ_max); else it stays.
 */
#include "ipc.h"

#include <math.h>
#include <stddef.h>

void weft_ipc_kappa_bounds(double bbox, double m_avg, const weft_ipc_params *p, double *kappa_min,
                           double *kappa_max) {
    weft_ipc_params unit = {1, p->dhat, p->xi};
    double d0 = p->xi + 1e-8 * bbox, s0 = d0 * d0;
    if (d0 >= p->xi + p->dhat) s0 = p->xi * p->xi + 0.5 * p->dhat * (2 * p->xi + p->dhat);
    double d2b;
    weft_ipc_barrier(s0, &unit, NULL, &d2b);
    *kappa_min = 1e11 * m_avg / (4 * s0 * d2b);
    *kappa_max = 100 * *kappa_min;
}

double weft_ipc_kappa_initial(const double *g_E, const double *g_B, int n, double kappa_min,
                              double kappa_max) {
    double eb = 0, bb = 0;
    for (int i = 0; i < n; i++) eb += g_E[i] * g_B[i], bb += g_B[i] * g_B[i];
    if (!(bb > 0)) return kappa_min;
    return fmin(fmax(-eb / bb, kappa_min), kappa_max);
}

double weft_ipc_kappa_update(double kappa, double kappa_max, double d_prev, double d_min,
                             double bbox, double xi) {
    double eps_d = xi + 1e-9 * bbox;
    if (d_prev < eps_d && d_min < eps_d && d_min < d_prev) return fmin(2 * kappa, kappa_max);
    return kappa;
}
