/* newton_mixed.c — the mixed (primal–dual) form of Newton's method for stiff springs
 * ([solver] springs = mixed; newton.c runs the iterations).
 *
 * Papers: Macklin, Erleben, Müller, Chentanez, Jeschke & Kim 2020, "Primal/Dual Descent
 * Methods for Dynamics" (SCA; Newton on the primal–dual system of compliant constraints,
 * the dual eliminated); Trusty, Chen, Levin & Kaufman 2022, "Mixed Variational Finite
 * Elements for Implicit Simulation of Deformables" (the same for stretch energies, with the
 * dual warm-started across steps); Nocedal & Wright 2006, §18.1 (Newton–Lagrange).
 *
 * Why: the energy of a stiff spring Ψ = ½ k C², C = |x_i − x_j| − L, grows with the fourth
 * power of a transverse (buckling) displacement u, ½ k (u²/2L)², so on a cloth that buckles
 * onto a sphere the quadratic model of G holds only for steps of a few millimetres and
 * Newton caps (papers/residual.md, "The impact steps"). Written with the spring's force as
 * an unknown, the energy is linear in C and its curvature along u is set by the force, not
 * by k C(x) at an iterate that overshoots.
 *
 * For the elements e of a term whose type has a mixed form (type->mixed_hessian: Ψ_e =
 * ½ k_e C_e² exactly, mass_spring), with a dual λ_e (N) each, the Lagrangian
 *     L(x, λ) = ½ ‖x − x̃‖²_{M/ĥ²} + E_other(x) + Σ_e [λ_e C_e(x) − λ_e²/(2 k_e)]
 * is stationary exactly where G is: ∂L/∂λ_e = C_e − λ_e/k_e = 0 gives λ_e = k_e C_e and
 * ∇_x L = ∇G. Newton on (∇_x L, ∂L/∂λ) = 0 at (x, λ):
 *     [M/ĥ² + ∇²E_other + Σ_e λ_e ∇²C_e] Δx + Σ_e ∇C_e Δλ_e = −∇_x L(x, λ),
 *     ∇C_eᵀ Δx − Δλ_e / k_e = λ_e / k_e − C_e;
 * the second row gives Δλ_e = k_e (C_e + ∇C_e·Δx) − λ_e, and in the first
 * ∇_x L + Σ_e ∇C_e Δλ_e = ∇G + Σ_e k_e ∇C_e∇C_eᵀ Δx, so
 *     H̃ Δx = −∇G(x),   H̃ = M/ĥ² + ∇²E_other + Σ_e [k_e ∇C_e∇C_eᵀ + λ_e ∇²C_e]:
 * the primal gradient and the exact Hessian, except that the geometric term of each spring
 * has λ_e in place of k_e C_e(x). At λ_e = k_e C_e(x) it is the primal Newton step. The
 * primal part is unchanged: G, ∇G, the residual (weft_residual) and the stopping test are
 * the line search's; Δx descends G wherever H̃ is positive definite, so the line search
 * (or the trust region) on G globalises it as before. After the step, with the accepted
 * step length α and displacement s = x_new − x (the contacts' projection included),
 *     λ_e ← λ_e + α (k_e C_e(x) − λ_e) + k_e ∇C_e(x)·s_e,
 * which is λ_e + α Δλ_e when s = α Δx.
 *
 * Indefiniteness: ∇²C_e is PSD for a spring (its range is across the spring), so a
 * compressive dual λ_e < 0 makes the spring's block indefinite. The projected system (and
 * the adaptive fallback) uses λ⁺ = max(λ, 0), the PSD projection of the spring's mixed
 * block (mass_spring.c); [solver] mixed_clamp uses λ⁺ in every system.
 * The dual at a step's start ([solver] mixed_start) is k_e C_e(x⁰) (constraint: the first
 * iteration is the primal one) or the previous step's last λ (previous).
 *
 * Cost: one pass over the mixed terms' elements per iteration (C, ∇C at x) and one per
 * step (the start); the assembly calls type->mixed_hessian in place of type->hessian.
 */
#include "implicit_internal.h"

/* Gathers element e's vertex positions (3 nv values). */
static void gather(const weft_element *e, int nv, const double *x, double *xe) {
    for (int a = 0; a < nv; a++)
        for (int c = 0; c < 3; c++) xe[3 * a + c] = x[3 * (size_t)e->v[a] + c];
}

int im_mixed_create(im_state *st, const weft_model *m, weft_error *err) {
    st->mixed = false;
    if (st->set.springs != WEFT_SOLVER_SPRINGS_MIXED) return WEFT_OK;
    for (int t = 0; t < m->nterms; t++) {
        const weft_term *T = &m->terms[t];
        if (!T->type->mixed_hessian || !T->type->constraint || T->n == 0) continue;
        if (!(st->lam[t] = calloc((size_t)T->n, sizeof(double))) ||
            !(st->lam_asm[t] = calloc((size_t)T->n, sizeof(double))))
            return weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the %s solver",
                             st->type->name);
        st->n_lam[t] = T->n;
        int rc = weft_assembly_set_dual(st->as, t, st->lam_asm[t], err);
        if (rc) return rc;
        st->mixed = true;
    }
    return WEFT_OK;
}

void im_mixed_free(im_state *st) {
    for (int t = 0; t < WEFT_MAX_TERMS; t++) {
        free(st->lam[t]);
        free(st->lam_asm[t]);
        st->lam[t] = st->lam_asm[t] = NULL;
    }
}

/* Element e's force k C(x_e) (N). */
static double spring_force(const weft_term *T, const weft_element *e, const double *x) {
    double xe[3 * WEFT_ELEM_MAXV];
    gather(e, T->type->nv, x, xe);
    return e->k * T->type->constraint(e, xe, NULL);
}

void im_mixed_start(im_state *st, const weft_model *m, const double *x) {
    if (!st->mixed) return;
    if (st->set.mixed_start == WEFT_SOLVER_MIXED_START_PREVIOUS && st->lam_set) return;
    for (int t = 0; t < m->nterms; t++)
        for (int i = 0; st->lam[t] && i < m->terms[t].n; i++)
            st->lam[t][i] = spring_force(&m->terms[t], &m->terms[t].elem[i], x);
    st->lam_set = true;
}

void im_mixed_shift(im_state *st, const weft_model *m, const double *x, const double *xnew) {
    if (!st->mixed) return;
    for (int t = 0; t < m->nterms; t++)
        for (int i = 0; st->lam[t] && i < m->terms[t].n; i++) {
            const weft_term *T = &m->terms[t];
            st->lam[t][i] += spring_force(T, &T->elem[i], xnew) - spring_force(T, &T->elem[i], x);
        }
}

void im_mixed_prepare(im_state *st) {
    for (int t = 0; t < WEFT_MAX_TERMS; t++) {
        if (!st->lam[t]) continue;
        const int n = st->n_lam[t];
        for (int i = 0; i < n; i++) {
            double l = st->lam[t][i];
            st->lam_asm[t][i] = st->set.mixed_clamp && l < 0.0 ? 0.0 : l;
        }
    }
}

void im_mixed_update(im_state *st, const weft_model *m, const double *x, const double *xnew,
                     double alpha) {
    if (!st->mixed) return;
    for (int t = 0; t < m->nterms; t++) {
        if (!st->lam[t]) continue;
        const weft_term *T = &m->terms[t];
        const int nv = T->type->nv;
        for (int i = 0; i < T->n; i++) {
            const weft_element *e = &T->elem[i];
            double xe[3 * WEFT_ELEM_MAXV], se[3 * WEFT_ELEM_MAXV], dC[3 * WEFT_ELEM_MAXV];
            gather(e, nv, x, xe);
            for (int a = 0; a < nv; a++)
                for (int c = 0; c < 3; c++) {
                    size_t j = 3 * (size_t)e->v[a] + c;
                    se[3 * a + c] = xnew[j] - x[j];
                }
            double C = T->type->constraint(e, xe, dC), lin = 0.0;
            for (int k = 0; k < 3 * nv; k++) lin += dC[k] * se[k];
            double *l = &st->lam[t][i];
            *l += alpha * (e->k * C - *l) + e->k * lin;
        }
    }
}
