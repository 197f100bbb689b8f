/* newton_trust.c — the trust-region globalisation of Newton's method on the incremental
 * potential ([solver] globalisation = trust_region; newton.c runs the iterations).
 *
 * Papers: Nocedal & Wright 2006, "Numerical Optimization", ch. 4 (trust regions: the
 * model, the ratio ρ, Algorithm 4.1's radius update) and §7.1 (Algorithm 7.2, CG-Steihaug);
 * Steihaug 1983, "The conjugate gradient method and trust regions in large scale
 * optimization" (SIAM J. Numer. Anal. 20(3)); Toint 1981; Conn, Gould & Toint 2000,
 * "Trust-Region Methods", §5.1 and Alg. 7.5.1 (the preconditioned form, a trust region in
 * the preconditioner's norm, and its norm recurrences).
 *
 * Why: on a buckling cloth the exact Hessian of G is indefinite, and Newton with the
 * PSD-projected Hessian (line_search with hessian = adaptive) then converges only linearly
 * along the wrinkling modes: the projection drops their negative curvature, so its steps
 * are too short (papers/residual.md, "The impact steps"). The trust region keeps the exact
 * model and follows its negative curvature as far as the model is trusted.
 *
 * At the iterate x with gradient g = ∇G(x) (pins out), on the free subspace of the filters
 * (S: pins and active contacts' normals removed), the model is
 *     m(s) = gᵀs + ½ sᵀ B s,   B = M/ĥ² + D/ĥ + K(x)  (K per [solver] hessian: exact for
 *                                                      exact and adaptive),
 * and the step s approximately solves
 *     min m(s)   subject to   S s = s,   ‖s‖_P = √(sᵀ P s) ≤ Δ,
 * P = M/ĥ² + D/ĥ + K⁺(x), K⁺ the PSD-projected Hessian, SPD: its factorisation (the
 * configured linear solver's factor / solve_factored, CHOLMOD) preconditions the CG, and
 * the trust region in its norm is the one the preconditioned CG measures (Conn, Gould &
 * Toint §5.1.1). Steihaug-Toint CG, with r = S(g + B s), y = P⁻¹ r, from s = 0, d = −y:
 *     κ = dᵀ B d ≤ 0            →  s + τ d on the boundary (negative curvature),
 *     α = rᵀy / κ, ‖s + α d‖_P ≥ Δ  →  s + τ d on the boundary,
 *     s ← s + α d, r ← r + α B d, y = P⁻¹ r,
 *     √(rᵀy) ≤ η √(r₀ᵀy₀)      →  s (interior: the inexact Newton step),
 *     β = rᵀy_new / rᵀy_old, d ← −y + β d,
 * τ ≥ 0 the root of ‖s + τ d‖_P = Δ, with ‖s‖²_P, sᵀPd and ‖d‖²_P from the recurrences
 * sᵀPd ← β (sᵀPd + α ‖d‖²_P), ‖d‖²_P ← rᵀy + β² ‖d‖²_P (Conn, Gould & Toint (7.5.5)).
 * The first direction −P⁻¹g is the projected Newton step: where κ ≤ 0 at once and
 * Δ ≥ its length the method takes exactly that step.
 *
 * Newton then measures G at the trial Π(x + s) (projected onto the colliders, as the line
 * search does) and compares the actual with the predicted decrease,
 *     ρ = (G(x) − G(Π(x + s))) / (−m(s)),
 * accepts the trial when ρ > TR_ACCEPT, and updates Δ as Algorithm 4.1 does: ρ < ¼ →
 * Δ = ½ ‖s‖_P (Algorithm 4.1 takes ¼; ½ took fewer iterations on drape_sphere's impact);
 * ρ > ¾ with s on the boundary → Δ = 2Δ, first tried within the iteration ("internal
 * doubling", Dennis & Schnabel 1983, §6.4.1): the trial at 2Δ replaces the kept one while
 * it lowers G further, at most TR_DOUBLINGS times. A rejected trial is solved again with
 * the smaller radius, from the same assembly and factorisation, and counted as a
 * backtrack, not as an iteration. Each time step starts with Δ = ‖P⁻¹g‖_P, the projected
 * Newton step's length.
 *
 * Before each step the contacts whose force ∇G_i·n̂ pulls are released (newton.c). The
 * model B also holds the curvature of the active sphere contacts, −(λ/ρ)(I − n̂n̂ᵀ)
 * (newton.c, add_contact_curvature): the trial is projected back onto the sphere, and G
 * measures what that costs.
 *
 * Passes per Newton iteration: two assemblies (the model's Hessian and the projected one),
 * one factorisation of P, per CG iteration one product with B and one solve with P's
 * factor, and one energy pass per trial.
 */
#include "implicit_internal.h"

/* y = S (B x), B held as A's pattern with the values st->H_val. */
static void model_product(im_state *st, const double *x, double *y) {
    weft_bsr B = *st->A;
    B.val = st->H_val;
    weft_bsr_spmv(&B, x, y, st->set.common.threads);
    weft_filter_apply(&st->f, y, y);
}

static double dot(const double *a, const double *b, size_t n) {
    double s = 0.0;
    for (size_t j = 0; j < n; j++) s += a[j] * b[j];
    return s;
}

/* The τ ≥ 0 with ‖s + τ d‖²_P = ss + 2τ sd + τ² dd = Δ² (ss ≤ Δ², dd > 0). */
static double to_boundary(double ss, double sd, double dd, double radius) {
    double gap = fmax(radius * radius - ss, 0.0);
    double disc = sqrt(sd * sd + dd * gap);
    /* the root −sd + disc, written without cancellation when sd > 0 */
    return sd > 0.0 ? gap / (sd + disc) : (disc - sd) / dd;
}

/* Steihaug-Toint CG on the model m(s) = gᵀs + ½ sᵀ B s within ‖s‖_P ≤ st->radius (the
 * radius is first set here, to ‖P⁻¹g‖_P, when it is ≤ 0). B's values are st->H_val on A's
 * pattern; P is the linear solver's last factorisation (of A); g is ∇G (3n). The step goes
 * to st->dx, −m(s) to *pred, ‖s‖_P to *snorm; *boundary says whether s is on the
 * boundary, *negative whether the CG met dᵀBd ≤ 0. Returns the linear solver's status
 * (CONVERGED unless P's solve failed). */
weft_solve_status im_steihaug(im_state *st, const double *g, double eta, int max_iter, double *pred,
                              double *snorm, bool *boundary, bool *negative, weft_error *err) {
    const size_t n3 = 3 * (size_t)st->n;
    double *s = st->dx, *r = st->tr_r, *y = st->tr_y, *d = st->tr_d, *Bd = st->tr_Bd;
    double t0 = weft_now();
    memset(s, 0, n3 * sizeof *s);
    weft_filter_apply(&st->f, g, r);
    *pred = 0.0, *snorm = 0.0, *boundary = false, *negative = false;
    weft_solve_status rc = st->linear->solve_factored(st->lin, st->A, &st->f, r, y, err);
    st->stats.linear_solves++;
    if (rc != WEFT_SOLVE_CONVERGED) goto done;
    double ry = dot(r, y, n3);
    const double ry0 = ry;
    if (!(ry0 > 0.0)) goto done; /* g = 0 on the free subspace */
    if (!(st->radius > 0.0)) st->radius = sqrt(ry0);
    const double radius = st->radius;
    for (size_t j = 0; j < n3; j++) d[j] = -y[j];
    double ss = 0.0, sd = 0.0, dd = ry; /* ‖s‖²_P, sᵀPd, ‖d‖²_P */
    const char *word = "cap";
    int it;
    for (it = 1; it <= max_iter; it++) {
        model_product(st, d, Bd);
        double kappa = dot(d, Bd, n3);
        double alpha = ry / kappa;
        if (!(kappa > 0.0) || ss + 2.0 * alpha * sd + alpha * alpha * dd >= radius * radius) {
            double tau = to_boundary(ss, sd, dd, radius);
            for (size_t j = 0; j < n3; j++) s[j] += tau * d[j];
            ss = radius * radius;
            *boundary = true, *negative = !(kappa > 0.0);
            word = kappa > 0.0 ? "boundary" : "negative_curvature";
            weft_monitor_linear(st->mon, st->iter, it, NAN, word);
            break;
        }
        for (size_t j = 0; j < n3; j++) s[j] += alpha * d[j], r[j] += alpha * Bd[j];
        ss += alpha * (2.0 * sd + alpha * dd);
        rc = st->linear->solve_factored(st->lin, st->A, &st->f, r, y, err);
        st->stats.linear_solves++;
        if (rc != WEFT_SOLVE_CONVERGED) goto done;
        double ry1 = dot(r, y, n3);
        const bool done_cg = !(ry1 > eta * eta * ry0);
        weft_monitor_linear(st->mon, st->iter, it, sqrt(fmax(ry1, 0.0) / ry0),
                            done_cg ? "converged" : "ok");
        if (done_cg) {
            word = "converged";
            break;
        }
        double beta = ry1 / ry;
        ry = ry1;
        sd = beta * (sd + alpha * dd);
        dd = ry + beta * beta * dd;
        for (size_t j = 0; j < n3; j++) d[j] = -y[j] + beta * d[j];
    }
    if (it > max_iter) weft_monitor_linear(st->mon, st->iter, max_iter, NAN, word);
    st->stats.linear_iterations += it > max_iter ? max_iter : it;
    /* −m(s), from s itself rather than the recurrences */
    model_product(st, s, Bd);
    *pred = -(dot(g, s, n3) + 0.5 * dot(s, Bd, n3));
    *snorm = sqrt(ss);
done:
    st->stats.linear_s += weft_now() - t0;
    return rc;
}

/* Algorithm 4.1's radius update from the ratio ρ of actual to predicted decrease and the
 * step's length ‖s‖_P (on the boundary or not). */
void im_trust_update(im_state *st, double rho, double snorm, bool boundary) {
    if (!(rho >= 0.25))
        st->radius = 0.5 * snorm;
    else if (rho > 0.75 && boundary)
        st->radius = 2.0 * st->radius;
}
