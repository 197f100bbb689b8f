/* chebyshev.c — the Chebyshev semi-iterative acceleration of Wang 2015 ("A Chebyshev
 * semi-iterative approach for accelerating projective and position-based dynamics"), one
 * schedule and one settings table for every solver that uses it (pbd_jacobi,
 * projective_dynamics, vbd; papers/wang2015-chebyshev.md).
 *
 * With q̂_{k+1} the host method's plain iterate from q_k, the accelerated iterate is
 *   q_{k+1} = ω_{k+1} (γ (q̂_{k+1} − q_k) + q_k − q_{k−1}) + q_{k−1},          (weft_chebyshev_mix)
 * with the weights
 *   ω_k = 1 for k < S,   ω_S = 2/(2 − ρ²),   ω_{k+1} = 4/(4 − ρ² ω_k)          (weft_chebyshev_weight)
 * restarted every time step (q_{−1} = q_0). ρ ([section] chebyshev_rho) is the plain
 * iteration's spectral radius, estimated from its convergence rate; S (chebyshev_delay)
 * the plain iterations before the acceleration, 0 standing for the host paper's own
 * (Wang's S = 10 for projective_dynamics and pbd_jacobi, Chen et al. 2024's S = 2 for
 * vbd); γ (chebyshev_gamma) under-relaxes q̂, also in the iterations k < S when γ ≠ 1.
 * ρ = 0 runs the plain method exactly. The host owns its data layout: it skips pinned
 * vertices and handles its colliders where its paper does.
 */
#include "weft_solvers.h"

#include <stddef.h>

// clang-format off
#define F(field) offsetof(weft_chebyshev, field)
const weft_param weft_chebyshev_params[] = {
    {.key = "chebyshev_rho", .type = WEFT_PARAM_DOUBLE, .offset = F(rho), .unit = "1",
     .lo = 0, .hi = 1, .flags = WEFT_PARAM_HI_OPEN, .dflt = 0,
     .doc = "Wang 2015 Chebyshev acceleration: the plain iteration's spectral radius rho; 0: off"},
    {.key = "chebyshev_delay", .type = WEFT_PARAM_INT, .offset = F(delay), .unit = "",
     .lo = 0, .hi = 1000000, .dflt = 0,
     .doc = "Chebyshev: plain iterations before the acceleration starts (Wang's S); 0: the "
            "solver's paper's (10; vbd: 2)"},
    {.key = "chebyshev_gamma", .type = WEFT_PARAM_DOUBLE, .offset = F(gamma), .unit = "1",
     .lo = 0, .hi = 2, .flags = WEFT_PARAM_LO_OPEN, .dflt = 1,
     .doc = "Chebyshev: under-relaxation gamma of the accelerated update"},
    {0},
};
#undef F
// clang-format on

double weft_chebyshev_weight(const weft_chebyshev *c, int paper_delay, int k, double *omega) {
    if (!(c->rho > 0.0)) return 0.0;
    const int S = c->delay > 0 ? c->delay : paper_delay;
    const double rho = c->rho;
    if (k == 1) *omega = 1.0; /* a new step: the recurrence starts again */
    if (k >= S) /* ω_S = 2/(2 − ρ²), then ω_{k+1} = 4/(4 − ρ² ω_k) */
        *omega = k == S ? 2.0 / (2.0 - rho * rho) : 4.0 / (4.0 - rho * rho * *omega);
    return k >= S || c->gamma != 1.0 ? *omega : 0.0;
}

double weft_chebyshev_mix(double omega, double gamma, double hat, double cur, double prev) {
    return omega * (gamma * (hat - cur) + cur - prev) + prev;
}
