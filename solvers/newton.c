/* newton.c — backward Euler (`newton_euler`) and BDF2 (`bdf2_newton`) solved to
 * tolerance by Newton's method on the incremental potential (Kim & Eberle 2020, ch. 8):
 *     G(x) = ½ (x − x̃)ᵀ M (x − x̃) / ĥ² + E(x) + (x − a)ᵀ D (x − a) / (2ĥ),
 * one filtered solve of (M/ĥ² + K(x) + D/ĥ) Δx = −∇G(x) per iteration, then a
 * backtracking line search on G along the path projected onto the colliders; it stops on
 * the residual of the logs, weft_residual (papers/residual.md; implicit_internal.h has the
 * whole method).
 * The balloon's volume constraint ([pbd] k_pressure = k > 0, Müller 2006 §4.4), the hard
 * equality C(x) = V(x) − k V0 = 0 the position-based solvers and vbd hold: Newton on the
 * equality-constrained problem min G s.t. C = 0 (Nocedal & Wright 2006, §18.1), with the
 * Lagrangian L = G + λ C. Each iteration solves the KKT system
 *     [H ∇C; ∇Cᵀ 0] [Δx; Δλ] = −[∇G + λ∇C; C],   H = ∇²G + λ ∇²V (the projected
 * Hessian drops λ ∇²V), by its Schur complement with two solves of H (one factorisation):
 *     y = H⁻¹(−∇L),  z = H⁻¹∇C,  Δλ = (C + ∇Cᵀy)/(∇Cᵀz),  Δx = y − z Δλ,
 * then λ ← λ + Δλ and the line search runs on the augmented Lagrangian merit
 * φ(x) = G + λ C + (ρ/2) C², ρ = |λ|/(k V0) (N&W eq. 18.52 / Fletcher's; along Δx its slope
 * is −ΔxᵀHΔx − ρC² < 0, and it agrees with the contacts' release test on ∇L, where the
 * ℓ1 merit G + μ|C| stalled at the ground impact). The residual Newton stops on is
 * weft_residual of ∇L (papers/residual.md, "The balloon's volume constraint"), and a step
 * converges only once also |C| ≤ tolerance · k V0.
 * No smoother: the nonlinearly preconditioned variant (a patch smoother after each Newton
 * step) is its own solver, newton_patch (newton_patch.c), plugged in through
 * im_state.after_step.
 *
 * Passes per iteration: one assembly of E, ∇E and K (one pass over the elements), one
 * linear solve (two when hessian = adaptive finds the exact system not SPD; under ipc's
 * shift one more with the barrier projected, one per doubling of τ), one energy
 * pass per line-search trial (usually one; under ipc, one per try of the second-order
 * correction, N&W §15.6), one E, ∇E pass at the new iterate; per step two for the start.
 */
#include "implicit_internal.h"
#include "ipc_contact.h"

#include <stddef.h>

/* Halvings the second-order correction of the ipc line search's point may take. */
#define SOC_TRIES 4

/* ------------------------------------------------------------------------------ */
/* Newton on the incremental potential                                             */
/* ------------------------------------------------------------------------------ */

/* True when the solver handles the colliders itself (filters, projected line search,
 * friction on the velocities): a model with colliders and no contact model ([contact]
 * model = none). Under ipc the barrier term holds them. */
static bool own_contacts(const im_state *st, const weft_model *m) {
    return m->ncolliders > 0 && !st->ipc;
}

/* The volume constraint's part of potential(): C(x) into st->C and, if grad is non-NULL,
 * ∇V(x) into st->vgrad and λ ∇V on grad's free DOFs (grad becomes ∇L); returns the merit's
 * λ C + (ρ/2) C² (ρ = st->mu). */
static double pressure_terms(im_state *st, const weft_model *m, const double *x, double *grad) {
    double V = grad ? weft_mesh_volume_gradient(&m->mesh, x, st->vgrad)
                    : weft_mesh_volume(&m->mesh, x);
    st->C = V - st->k_pressure * m->rest_volume;
    if (grad)
        for (int i = 0; i < m->n; i++)
            if (m->pin[i] < 0)
                for (int k = 0; k < 3; k++) grad[3 * i + k] += st->lambda * st->vgrad[3 * i + k];
    return st->lambda * st->C + 0.5 * st->mu * st->C * st->C;
}

/* G(x) and, if grad is non-NULL, ∇G(x) (3n, pinned DOFs zeroed). The undamped part is
 * lib/metrics.c's weft_incremental_potential_h, so that the residual Newton stops on is
 * the logs' residual bit for bit; Rayleigh damping (α, β > 0) adds its terms. With the
 * volume constraint, the merit φ = G + λC + (ρ/2)C² and ∇L = ∇G + λ∇V (pressure_terms). */
static double potential(im_state *st, const weft_model *m, const double *x, double hh,
                        double *grad) {
    const int n = m->n;
    const double al = st->set.damping_alpha, be = st->set.damping_beta, h2 = hh * hh;
    double G;
    if (st->ipc) { /* the barrier's pairs at x (ipc_contact.h), so that B(x) is exact */
        WEFT_ASSERT(st->ipc_model == m);
        if (weft_ipc_fill(st->ipc, st->ipc_model, x, NULL)) return INFINITY;
    }
    if (grad) {
        G = weft_incremental_potential_h(m, x, st->xt, hh, grad);
    } else {
        double inertia = 0.0;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                double d = x[3 * i + k] - st->xt[3 * i + k];
                inertia += 0.5 * m->mass[i] * d * d / h2;
            }
        G = inertia + weft_model_energy(m, x);
    }
    if (al > 0.0) { /* (α/2ĥ) eᵀ M e, e = x − a */
        double damp = 0.0;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                size_t j = 3 * (size_t)i + k;
                double e = x[j] - st->a[j];
                damp += 0.5 * al * m->mass[i] * e * e / hh;
                if (grad && m->pin[i] < 0) grad[j] += al * m->mass[i] * e / hh;
            }
        G += damp;
    }
    if (be > 0.0) { /* (β/2ĥ) eᵀ K_n e */
        weft_bsr Kn = *st->A;
        Kn.val = st->Kn_val;
        for (size_t j = 0; j < 3 * (size_t)n; j++) st->w[j] = x[j] - st->a[j];
        weft_bsr_spmv(&Kn, st->w, st->q, st->set.common.threads);
        double sum = 0.0;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                size_t j = 3 * (size_t)i + k;
                sum += st->w[j] * st->q[j];
                if (grad && m->pin[i] < 0) grad[j] += be * st->q[j] / hh;
            }
        G += 0.5 * be * sum / hh;
    }
    if (st->pressure) G += pressure_terms(st, m, x, grad);
    return G;
}

/* The projection of a trial point x (in place) onto the feasible set, at time t: every
 * active contact back onto its collider's surface (offset by the margin) along the
 * collider's normal there (a step along a sphere's tangent plane leaves it), and every
 * other free vertex inside a plane or sphere onto its surface. The line search measures G
 * on this projected path, so no projection after it can raise G. The contacts of the
 * projected point (the active ones and those just caught) and their normals go to
 * st->tcontact, st->tcn. */
static void project_trial(im_state *st, const weft_model *m, double t, double *x) {
    for (int i = 0; i < m->n; i++) {
        st->tcontact[i] = -1;
        if (m->pin[i] >= 0 || m->w[i] == 0.0) continue;
        int c = st->contact[i];
        im_project_vertex(m, t, &c, &x[3 * i], &st->tcn[3 * i]);
        st->tcontact[i] = c;
    }
}

/* Takes the contacts of the accepted trial point (project_trial's), then releases those
 * whose constraint force ∇G_i·n̂ pulls. Returns how many vertices changed contact (caught,
 * released or moved to another collider) since the previous iterate. */
static int update_contacts(im_state *st, const weft_model *m, const double *grad) {
    int *c = st->contact, changed = 0;
    st->contact = st->tcontact, st->tcontact = c;
    double *cn = st->cn;
    st->cn = st->tcn, st->tcn = cn;
    for (int i = 0; i < m->n; i++) {
        if (st->contact[i] >= 0 && weft_dot3(&grad[3 * i], &st->cn[3 * i]) < 0.0) {
            st->contact[i] = -1;
            st->stats.contact_releases++;
        }
        changed += st->contact[i] != st->tcontact[i];
    }
    return changed;
}

/* The variant's pass over the Newton step's iterate st->x, with that point's contacts
 * (the line search's trial ones, swapped in and out); the residual logged and the stopping
 * test are then the pass's point's. */
static void after_step(im_state *st, const weft_model *m, double t1, double hh) {
    int *c0 = st->contact;
    double *n0 = st->cn;
    st->contact = st->tcontact, st->cn = st->tcn;
    double t0 = weft_now();
    st->after_step(st, m, t1, hh, st->x);
    st->stats.smooth_s += weft_now() - t0;
    st->tcontact = st->contact, st->tcn = st->cn;
    st->contact = c0, st->cn = n0;
}

/* Catches the free vertices of x inside a collider (the start point). */
static void catch_all(im_state *st, const weft_model *m, double t1, double *x) {
    for (int i = 0; i < m->n; i++) st->contact[i] = -1;
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] < 0 && m->w[i] > 0.0) im_catch_contact(st, m, i, t1, x);
}

/* A free vertex this close to a collider (m) touches it (catch_touching). */
#define TOUCH_GAP 1e-9

/* The ε-active set of projected Newton (Bertsekas 1982): a free vertex outside the contact
 * set that touches a plane or sphere (gap < TOUCH_GAP) while ∇G pushes it in (∇G_i·n̂ > 0)
 * joins the set, so the Newton direction does not send it into the collider, where the
 * projected line search would undo that part of the step and need not descend (a cloth
 * or balloon resting on the ground, started from the constant-velocity prediction). */
static void catch_touching(im_state *st, const weft_model *m, double t1) {
    for (int i = 0; i < m->n; i++) {
        if (m->pin[i] >= 0 || m->w[i] == 0.0 || st->contact[i] >= 0) continue;
        for (int c = 0; c < m->ncolliders; c++) {
            const weft_collider *col = &m->colliders[c];
            double n[3];
            if (!weft_collider_type_of(col)->smooth ||
                !(weft_contact_gap(col, &st->x[3 * i], t1, m->contact_margin, n) < TOUCH_GAP) ||
                !(weft_dot3(&st->g[3 * i], n) > 0.0))
                continue;
            st->contact[i] = c;
            memcpy(&st->cn[3 * i], n, sizeof n);
            break;
        }
    }
}

/* One Newton solve's state besides st: the scheme's ĥ and end time t1, G at the
 * iterate, the residual at the start point and now, the stopping threshold, and what a
 * capped step's reason needs. */
typedef struct newton_step {
    double hh, t1;    /* ĥ (s), t + h */
    double G;         /* G(st->x), J */
    double r0, r;     /* residual at x⁰ and at st->x, N */
    double r_stop;    /* converged once r ≤ r_stop */
    bool projected;   /* this iteration's system uses the projected Hessian */
    bool indefinite;  /* this iteration's exact system was not SPD */
    int last_change;  /* the last iteration whose new iterate changed the contact set */
    double slope;     /* the volume constraint's merit slope along st->dx (kkt_direction) */
} newton_step;

/* K_n = K(x_n) for Rayleigh damping's β term, frozen over the step (β > 0 only). */
static int freeze_damping(im_state *st, const weft_model *m, weft_error *err) {
    if (!(st->set.damping_beta > 0.0)) return WEFT_OK;
    double E = im_assemble(st, m, m->x, true, err);
    if (!isfinite(E))
        return im_fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d", st->type->name, st->step);
    memcpy(st->Kn_val, st->A->val, 9 * (size_t)st->A->nnzb * sizeof(double));
    return WEFT_OK;
}

/* The start point under ipc: x_n (with the vertices a moving collider reaches carried
 * along, weft_ipc_carry) moved toward x̃ (pins on their paths) as far as the CCD filter
 * allows (ipc_contact.h), so that it is intersection-free and outside the colliders at t1;
 * Li 2020 (Alg. 1) starts from x_n, and going toward x̃ first saves the iterations of a free
 * fall. G and ∇G into ns->G, st->g; no contact filters (the barrier holds the contacts). */
static int ipc_start_point(im_state *st, const weft_model *m, newton_step *ns, weft_error *err) {
    const size_t n3 = 3 * (size_t)m->n;
    memcpy(st->xtrial, st->xt, n3 * sizeof *st->xtrial);
    weft_model_apply_pins(m, ns->t1, st->xtrial);
    int rc = weft_ipc_carry(st->ipc, m, st->x, err); /* x_n, moving colliders' carry */
    if (rc) return rc;
    for (size_t j = 0; j < n3; j++) st->dx[j] = st->xtrial[j] - st->x[j];
    double alpha;
    if ((rc = weft_ipc_step_bound(st->ipc, m, st->x, st->dx, ns->t1, &alpha, err))) return rc;
    for (size_t j = 0; j < n3; j++) st->x[j] += alpha * st->dx[j];
    weft_model_apply_pins(m, ns->t1, st->x);
    for (int i = 0; i < m->n; i++) st->contact[i] = -1;
    ns->G = potential(st, m, st->x, ns->hh, st->g);
    if (!isfinite(ns->G))
        return weft_fail(err, WEFT_ERR_DIVERGED,
                         "%s: step %d: the barrier is infinite at the start point (a pair "
                         "within the thickness, or a vertex inside a collider, at x_n)",
                         st->type->name, st->step);
    /* adaptive κ (st->dx, st->xtrial: scratch here) */
    if (weft_ipc_kappa_start(st->ipc, st->ipc_model, st->x, st->g, ns->hh, st->dx, st->xtrial))
        ns->G = potential(st, m, st->x, ns->hh, st->g);
    return im_build_filters(st, m, NULL, NULL, err);
}

/* The start point x⁰ into st->x (G and ∇G into ns->G, st->g; contacts caught): x̃ with
 * pins on their paths and contacts on the surface, or x_n when G is not finite at x̃ (an
 * element outside its domain); then the constant-velocity prediction a + ĥ b̄ (x̃ without
 * gravity's ĥ² g) when G is lower there: on a contact scene x̃ pushes the whole cloth
 * ĥ² g into the colliders, and catching the vertices that went in strains the springs to
 * the ones that did not (9 % at 60 Hz on a 32² cloth at rest on a sphere), which Newton
 * then spends its first iterations undoing. */
static int start_point(im_state *st, const weft_model *m, newton_step *ns, weft_error *err) {
    const size_t n3 = 3 * (size_t)m->n;
    const double hh = ns->hh, t1 = ns->t1;
    for (int from_xn = 0; from_xn < 2; from_xn++) {
        memcpy(st->x, from_xn ? m->x : st->xt, n3 * sizeof *st->x);
        weft_model_apply_pins(m, t1, st->x);
        catch_all(st, m, t1, st->x);
        ns->G = potential(st, m, st->x, hh, st->g);
        if (isfinite(ns->G)) break;
    }
    if (!isfinite(ns->G)) {
        double E = im_assemble(st, m, st->x, true, err);
        if (isfinite(E)) weft_fail(err, WEFT_ERR_DIVERGED, "non-finite positions");
        return im_fail_because(err, WEFT_ERR_DIVERGED,
                               "%s: step %d: the incremental potential is not finite at the "
                               "start point",
                               st->type->name, st->step);
    }
    /* the candidate's contacts go to tcontact, tcn, swapped in if it wins */
    for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->a[j] + hh * st->vbar[j];
    weft_model_apply_pins(m, t1, st->xtrial);
    int *c0 = st->contact;
    double *n0 = st->cn;
    st->contact = st->tcontact, st->cn = st->tcn;
    catch_all(st, m, t1, st->xtrial);
    double G1 = potential(st, m, st->xtrial, hh, st->rhs);
    if (G1 < ns->G) {
        memcpy(st->x, st->xtrial, n3 * sizeof *st->x);
        memcpy(st->g, st->rhs, n3 * sizeof *st->g);
        ns->G = G1;
        st->tcontact = c0, st->tcn = n0;
    } else {
        st->tcontact = st->contact, st->tcn = st->cn;
        st->contact = c0, st->cn = n0;
        if (st->pressure) ns->G = potential(st, m, st->x, hh, st->g); /* C, ∇V at x⁰ */
    }
    if (own_contacts(st, m)) catch_touching(st, m, t1);
    return im_build_filters(st, m, NULL, NULL, err);
}

/* The volume constraint's KKT step (file comment): st->dx holds y = H⁻¹(−∇L); solves
 * z = H⁻¹∇C with the same matrix (its factorisation, where the linear solver keeps one),
 * takes Δλ = (C + ∇Cᵀy)/(∇Cᵀz), Δx = y − z Δλ, then λ ← λ + Δλ and ρ = |λ|/(k V0) in the
 * merit (ns->G follows) and its slope (∇G + (λ + ρC)∇V)ᵀ Δx into ns->slope. */
static int kkt_direction(im_state *st, const weft_model *m, newton_step *ns, int k,
                         weft_error *err) {
    const size_t n3 = 3 * (size_t)m->n;
    weft_solve_status s = im_linear_resolve(st, st->vgrad, st->vz, err);
    if (s != WEFT_SOLVE_CONVERGED && s != WEFT_SOLVE_MAX_ITER)
        return im_fail_because(err, weft_solve_status_code(s),
                               "%s: step %d, iteration %d: volume constraint's solve %s",
                               st->type->name, st->step, k, weft_solve_status_name(s));
    double cy = 0.0, cz = 0.0;
    for (size_t j = 0; j < n3; j++) cy += st->vgrad[j] * st->dx[j], cz += st->vgrad[j] * st->vz[j];
    if (!(cz > 0.0))
        return weft_fail(err, WEFT_ERR_DIVERGED,
                         "%s: step %d, iteration %d: the volume constraint's Schur complement "
                         "grad(V)' H^-1 grad(V) = %.3g is not positive",
                         st->type->name, st->step, k, cz);
    const double dl = (st->C + cy) / cz;
    double gdx = 0.0, vdx = 0.0;
    for (size_t j = 0; j < n3; j++) {
        st->dx[j] -= st->vz[j] * dl;
        gdx += st->g[j] * st->dx[j], vdx += st->vgrad[j] * st->dx[j];
    }
    const double C = st->C, lam = st->lambda + dl;
    const double rho = fabs(lam) / (st->k_pressure * m->rest_volume);
    ns->G += (lam - st->lambda) * C + 0.5 * (rho - st->mu) * C * C;
    ns->slope = gdx + (lam + rho * C - st->lambda) * vdx; /* st->g is ∇G + λ∇V */
    st->mu = rho, st->lambda = lam;
    return WEFT_OK;
}

/* Smallest shift factor τ (of M/ĥ²) shifted_solve tries; the largest is [contact]
 * shift_max (ipc->tau_cap). */
#define SHIFT_MIN 1e-3

/* Hessian modification (Nocedal & Wright 2006 §3.4, Alg. 3.3, the mass matrix M/ĥ² in
 * place of the identity) for ipc's not-SPD exact systems ([contact] indefinite = shift):
 * A = M/ĥ² + K is assembled exact and is not SPD; solves (A + τ M/ĥ²) Δx = rhs with τ
 * doubled from half the last τ that worked (SHIFT_MIN at the first) until the Cholesky
 * factorisation succeeds. Unlike the per-element projection it keeps K's exact
 * curvature in every direction where A is positive, only lifting the whole spectrum by
 * τ M/ĥ²: where the iterates approach a stationary point with an indefinite Hessian (a
 * buckling cloth held symmetric, papers/li2020-ipc.md) the tail stays fast. The doubling
 * stops above [contact] shift_max: a larger τ outweighs the inertia τ-fold in every
 * direction, a near steepest-descent step (N&W §3.4), so the system is left not SPD
 * (counted) and newton_direction projects every element instead (papers/li2020-ipc.md,
 * "The folding steps and the shift's cap"). */
static weft_solve_status shifted_solve(im_state *st, const weft_model *m, weft_error *err) {
    weft_ipc *ipc = st->ipc;
    double tau = fmax(0.5 * ipc->tau, SHIFT_MIN), added = 0.0;
    weft_solve_status s = WEFT_SOLVE_INDEFINITE;
    double *d = st->xtrial; /* scratch (n of 3n): the line search writes it next */
    for (; tau <= ipc->tau_cap && s == WEFT_SOLVE_INDEFINITE; tau *= 2.0) {
        for (int i = 0; i < m->n; i++) d[i] = (tau - added) * st->dmass[i];
        weft_bsr_add_diagonal(st->A, d);
        added = tau;
        s = im_linear_solve(st, st->rhs, st->dx, err);
        ipc->shift_solves++;
    }
    if (s != WEFT_SOLVE_INDEFINITE) {
        ipc->tau = added, ipc->shifts++;
        ipc->tau_max = fmax(ipc->tau_max, added);
    } else {
        ipc->shift_caps++; /* newton_direction projects every element instead */
    }
    return s;
}

/* Whether this iteration's first system takes the barrier pairs' exact Hessians: under ipc
 * with [contact] indefinite = shift and [solver] hessian = adaptive, without the volume
 * constraint (its KKT system keeps the projected pairs, as measured). Where they make the
 * system not SPD newton_direction projects them, then shifts. The projection raises the
 * model's curvature above the true one where it is not needed; exact first took 5-21 %
 * fewer iterations on every scene measured and capped no step more (papers/li2020-ipc.md,
 * "The steps that still capped"). */
static bool ipc_exact_first(const im_state *st) {
    return st->ipc && st->ipc->shift && !st->pressure &&
           st->set.hessian == WEFT_SOLVER_HESSIAN_ADAPTIVE;
}

/* The Newton direction st->dx: solves (K + (β/ĥ) K_n + M (1/ĥ² + α/ĥ)) Δx = −∇G on the
 * filtered subspace, K per [solver] hessian; a not-SPD exact system is solved again with
 * the projected Hessian (adaptive: for this iteration, counted; exact: for the rest of
 * the step, reported once), or under ipc with [contact] indefinite = shift (its default)
 * first with the barrier pairs' Hessians projected, then shifted by τ M/ĥ² (shifted_
 * solve; both counted): the exact barrier is tried first (ipc_exact_first), as the
 * projection of an SPD system's pairs slows Newton's tail (papers/li2020-ipc.md). */
static int newton_direction(im_state *st, const weft_model *m, newton_step *ns, int k,
                            weft_error *err) {
    const int n = m->n;
    const double hh = ns->hh, al = st->set.damping_alpha, be = st->set.damping_beta;
    const bool adaptive = st->set.hessian == WEFT_SOLVER_HESSIAN_ADAPTIVE;
    if (adaptive) ns->projected = false; /* exact again, at every iteration */
    ns->indefinite = false;
    bool exact_barrier = ipc_exact_first(st);
    for (;;) {
        if (st->ipc && weft_ipc_pattern_changed(st->ipc, m)) { /* the barrier's pairs */
            weft_assembly_free(&st->as);
            if (!(st->as = weft_assembly_create(m, err))) return weft_error_code(WEFT_ERR_NOMEM);
            st->A = weft_assembly_matrix(st->as);
        }
        if (st->ipc) /* the barrier pairs projected, but where tried exact (ipc_exact_first) */
            weft_assembly_term_mode(st->as, st->ipc->term,
                                    exact_barrier ? WEFT_HESSIAN_EXACT : WEFT_HESSIAN_CLAMP);
        double E = im_assemble(st, m, st->x, ns->projected, err);
        if (!isfinite(E))
            return im_fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d, iteration %d",
                                   st->type->name, st->step, k);
        double t0 = weft_now();
        if (st->pressure && !ns->projected) /* the Lagrangian's λ ∇²V */
            im_add_volume_hessian(st->A, &m->mesh, st->x, st->lambda);
        if (be > 0.0)
            for (size_t j = 0; j < 9 * (size_t)st->A->nnzb; j++)
                st->A->val[j] += be / hh * st->Kn_val[j];
        for (int i = 0; i < n; i++) st->dmass[i] = m->mass[i] * (1.0 / (hh * hh) + al / hh);
        im_form_system(st, 1.0);
        for (size_t j = 0; j < 3 * (size_t)n; j++) st->rhs[j] = -st->g[j];
        st->stats.filter_s += weft_now() - t0;
        weft_solve_status s = im_linear_solve(st, st->rhs, st->dx, err);
        if (s == WEFT_SOLVE_INDEFINITE && exact_barrier) { /* again, the pairs projected */
            st->stats.fallbacks++;
            exact_barrier = false;
            continue;
        }
        if (s == WEFT_SOLVE_INDEFINITE && !ns->projected && adaptive && st->ipc &&
            st->ipc->shift) { /* ipc: shift rather than project (shifted_solve) */
            st->stats.fallbacks++;
            ns->indefinite = true;
            s = shifted_solve(st, m, err);
        }
        if (s == WEFT_SOLVE_INDEFINITE && !ns->projected &&
            (st->set.hessian == WEFT_SOLVER_HESSIAN_EXACT || adaptive)) {
            if (adaptive)
                st->stats.fallbacks++;
            else
                im_note_indefinite(st, err ? err->msg : "the system is not positive definite");
            ns->projected = ns->indefinite = true;
            continue;
        }
        if (s != WEFT_SOLVE_CONVERGED)
            return im_fail_because(err, weft_solve_status_code(s),
                                   "%s: step %d, iteration %d: linear solve %s", st->type->name,
                                   st->step, k, weft_solve_status_name(s));
        st->stats.newton_iterations++;
        if (st->ipc) { /* IPC's own criterion ‖Δx‖∞/ĥ (Li 2020 §4.1), m/s */
            double mx = 0.0;
            for (size_t j = 0; j < 3 * (size_t)n; j++) mx = fmax(mx, fabs(st->dx[j]));
            st->ipc->dx_inf_h = mx / hh;
        }
        return st->pressure ? kkt_direction(st, m, ns, k, err) : WEFT_OK;
    }
}

/* G's rounding (J): G_ROUNDING of |G|; under ipc with the volume constraint, of the
 * merit's λV too: λC = λV − λkV0 is a difference of terms of size |λ| k V0, so at C ≈ 0 it
 * carries their rounding, which |G| alone does not bound (papers/li2020-ipc.md, "balloon":
 * a full KKT step that cut r a million-fold was refused for a rise of G of 1.4e-12 |G|;
 * under model = none it turned 3 converging bdf2_newton balloon steps into stalls). */
static double g_rounding(const im_state *st, const weft_model *m, double G) {
    double scale = fabs(G);
    if (st->pressure) scale += fabs(st->lambda) * st->k_pressure * m->rest_volume;
    return G_ROUNDING * scale;
}

/* Backtracking line search on G along st->dx (halving from 1, Armijo constant ARMIJO),
 * each trial projected onto the colliders (project_trial); the accepted point goes to
 * st->xtrial. Near the solution, where the predicted decrease is below G's rounding, the
 * full step is taken while it halves the residual without raising G beyond rounding.
 * Sets *stalled when rounding ends the step here; fails when the direction does not
 * descend or G cannot decrease away from rounding. */
static int line_search(im_state *st, const weft_model *m, const newton_step *ns, int k,
                       bool *stalled, weft_error *err) {
    const size_t n3 = 3 * (size_t)m->n;
    const double G = ns->G, r = ns->r, r0 = ns->r0, tol = st->set.tolerance;
    double t0 = weft_now(), slope = 0.0;
    if (st->pressure)
        slope = ns->slope; /* the merit's */
    else
        for (size_t j = 0; j < n3; j++) slope += st->g[j] * st->dx[j];
    *stalled = false;
    if (!(slope < 0.0)) {
        if (r <= 1e3 * tol * r0 || slope == 0.0) return *stalled = true, WEFT_OK;
        return weft_fail(err, WEFT_ERR_DIVERGED,
                         "%s: step %d, iteration %d: the Newton direction is not a descent "
                         "direction (gradient·dx = %.3g, relative residual %.3g)",
                         st->type->name, st->step, k, slope, r / r0);
    }
    double alpha = 1.0, Gt = INFINITY;
    int bt = 0;
    if (st->ipc) { /* the CCD filter: no trial point intersects (ipc_contact.h) */
        int rc = weft_ipc_step_bound(st->ipc, m, st->x, st->dx, ns->t1, &alpha, err);
        if (rc) return rc;
        if (!(alpha > 0.0))
            return weft_fail(err, WEFT_ERR_DIVERGED,
                             "%s: step %d, iteration %d: the CCD filter allows no step (a "
                             "pair is already within the thickness)",
                             st->type->name, st->step, k);
    }
    if (-slope <= g_rounding(st, m, G)) { /* G cannot resolve the step: see above */
        for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->x[j] + alpha * st->dx[j];
        if (own_contacts(st, m)) project_trial(st, m, ns->t1, st->xtrial);
        Gt = potential(st, m, st->xtrial, ns->hh, st->rhs); /* rhs: scratch after the solve */
        *stalled = !(Gt <= G + g_rounding(st, m, G) &&
                     weft_residual(m, st->xtrial, ns->t1, ns->hh, st->rhs, NULL) <= 0.5 * r);
        st->stats.line_search_s += weft_now() - t0;
        return WEFT_OK;
    }
    for (; bt <= MAX_BACKTRACKS; bt++, alpha *= 0.5) {
        for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->x[j] + alpha * st->dx[j];
        if (own_contacts(st, m)) project_trial(st, m, ns->t1, st->xtrial);
        Gt = potential(st, m, st->xtrial, ns->hh, NULL);
        if (Gt <= G + ARMIJO * alpha * slope) break;
    }
    st->stats.line_search_s += weft_now() - t0;
    if (bt <= MAX_BACKTRACKS) {
        st->stats.backtracks += bt;
        return WEFT_OK;
    }
    /* G cannot decrease along a descent direction: rounding has taken over, or the
     * Hessian does not describe the energy. */
    if (r <= 1e3 * tol * r0 || fabs(Gt - G) <= g_rounding(st, m, G))
        return *stalled = true, WEFT_OK;
    return weft_fail(err, WEFT_ERR_DIVERGED,
                     "%s: step %d, iteration %d: the line search could not decrease G "
                     "(relative residual %.3g): the Hessian does not describe the energy",
                     st->type->name, st->step, k, r / r0);
}

/* Under ipc, the second-order correction of the line search's point (weft_ipc_correction:
 * a step that slides a deep pair closes it at second order, so Newton creeps at α = 1 by
 * about √(2 d L) a step, papers/li2020-ipc.md, "The creeps"): taken, cut to the CCD bound
 * and halved at most SOC_TRIES times, where it lowers G; st->w, st->q are scratch (β = 0
 * under ipc). The point still meets the Armijo test: G only falls. */
static int ipc_correction(im_state *st, const weft_model *m, const newton_step *ns,
                          weft_error *err) {
    const size_t n3 = 3 * (size_t)m->n;
    double *y = st->w, *c = st->q, alpha = 1.0;
    if (!st->ipc || !weft_ipc_correction(st->ipc, m, st->x, st->xtrial, c)) return WEFT_OK;
    memcpy(y, st->xtrial, n3 * sizeof *y);
    int rc = weft_ipc_step_bound(st->ipc, m, y, c, ns->t1, &alpha, err);
    if (rc || !(alpha > 0.0)) return rc;
    const double G1 = potential(st, m, y, ns->hh, NULL);
    for (int k = 0; k < SOC_TRIES; k++, alpha *= 0.5) {
        for (size_t j = 0; j < n3; j++) st->xtrial[j] = y[j] + alpha * c[j];
        if (potential(st, m, st->xtrial, ns->hh, NULL) < G1) return st->ipc->corrections++, WEFT_OK;
    }
    memcpy(st->xtrial, y, n3 * sizeof *y);
    return WEFT_OK;
}

/* Takes the line search's point as the new iterate: a variant's pass (newton_patch.c)
 * unless the point already meets the stopping test, then G, ∇G, the contact set (the
 * projected path's, less those that pull), the filters and the residual there. */
static int accept_iterate(im_state *st, const weft_model *m, newton_step *ns, int k,
                          weft_error *err) {
    const double hh = ns->hh, t1 = ns->t1;
    memcpy(st->x, st->xtrial, 3 * (size_t)m->n * sizeof *st->x);
    bool have_g = false; /* G and ∇G already at st->x */
    if (st->after_step) {
        ns->G = potential(st, m, st->x, hh, st->g);
        have_g = weft_residual(m, st->x, t1, hh, st->g, NULL) <= ns->r_stop;
        if (!have_g) after_step(st, m, t1, hh);
    }
    if (!have_g) ns->G = potential(st, m, st->x, hh, st->g);
    if (own_contacts(st, m)) {
        if (update_contacts(st, m, st->g) > 0) ns->last_change = k;
        int rc = im_build_filters(st, m, NULL, NULL, err);
        if (rc) return rc;
    }
    ns->r = st->r = weft_residual(m, st->x, t1, hh, st->g, NULL);
    if (!isfinite(ns->r) || !isfinite(ns->G))
        return weft_fail(err, WEFT_ERR_DIVERGED, "%s: step %d, iteration %d: non-finite residual",
                         st->type->name, st->step, k);
    return WEFT_OK;
}

/* The stopping test: r ≤ r_stop and, with the volume constraint, |C| ≤ tolerance · k V0. */
static bool converged(const im_state *st, const weft_model *m, const newton_step *ns) {
    return ns->r <= ns->r_stop &&
           (!st->pressure ||
            fabs(st->C) <= st->set.tolerance * st->k_pressure * m->rest_volume);
}

/* Why a step stopped at the cap k: "contacts_changing" only where the contact set changed
 * in the last CONTACT_WINDOW iterations and the contacts hold at least half of ‖r‖² (a
 * cloth still buckling away from the colliders catches and releases a few vertices at its
 * edge of contact while its residual sits elsewhere); else "indefinite" when the last
 * exact system was not SPD (or the step solves projected); else "slow". */
static const char *cap_reason(im_state *st, const weft_model *m, const newton_step *ns, int k) {
    weft_residual_split(m, st->x, ns->t1, ns->hh, st->g, NULL, &st->r_contact);
    st->contacts_recent = ns->last_change >= k - CONTACT_WINDOW + 1;
    if (st->contacts_recent && 2.0 * st->r_contact * st->r_contact >= ns->r * ns->r)
        return "cap contacts_changing";
    return ns->indefinite || ns->projected ? "cap indefinite" : "cap slow";
}

/* The step's end: x_{n+1} = st->x, v_{n+1} = (x_{n+1} − a)/ĥ (BDF2 keeps x_n, v_n), then
 * Coulomb friction on the active contacts' velocities; x_{n+1} stays the point Newton
 * converged to (papers/contact.md). */
static void end_step(im_state *st, weft_model *m, double hh, double t1) {
    const size_t n3 = 3 * (size_t)m->n;
    if (st->bdf2) {
        memcpy(st->xprev, m->x, n3 * sizeof *st->xprev);
        memcpy(st->vprev, m->v, n3 * sizeof *st->vprev);
        st->have_prev = true;
    }
    for (size_t j = 0; j < n3; j++) {
        m->v[j] = (st->x[j] - st->a[j]) / hh;
        m->x[j] = st->x[j];
    }
    if (own_contacts(st, m)) im_apply_friction(st, m, st->g, hh, m->v);
    m->t = t1;
}

/* One step: Newton's method on G from the start point, each iteration a direction, a line
 * search, the new iterate and the stopping test on the residual of the logs
 * (weft_residual): converged once r ≤ tolerance_abs and r ≤ tolerance · max(r0,
 * tolerance_abs) (a step that starts within tolerance_abs, a cloth at rest or a free fall
 * at rounding level, asks for no reduction below that: none of rounding is meaningful),
 * "stalled" when rounding ends it, "cap REASON" at the iteration cap. */
/* IPC's lagging (Li 2020 §5.2): once the step has converged on the current friction terms
 * and lagging iterations remain, x_lag ← the converged iterate, the friction terms are
 * rebuilt there (normal forces and tangent bases) and Newton goes on from that point; the
 * row held for the previous iterate is written first, on the terms it was reached with.
 * Until the iterate is converged on the last lag's terms. */
static int lag_friction(im_state *st, weft_model *m, weft_monitor *mon, newton_step *ns, int *lag,
                        weft_error *err) {
    const int lags = st->ipc && st->ipc->friction ? st->ipc->lags : 1;
    while (*lag + 1 < lags && converged(st, m, ns)) {
        weft_monitor_flush(mon);
        int rc = weft_ipc_friction_build(st->ipc, m, st->x, m->x, m->dt, err);
        if (rc) return rc;
        ++*lag;
        ns->G = potential(st, m, st->x, ns->hh, st->g);
        ns->r = st->r = weft_residual(m, st->x, ns->t1, ns->hh, st->g, NULL);
    }
    return WEFT_OK;
}

/* IPC's own criterion ‖Δx‖∞/ĥ (Li 2020 §4.1) of the step's last Newton direction on its
 * stop line, ipc_dx_inf_h=V (m/s; docs/logs.md). */
static void ipc_stop_field(const im_state *st, weft_monitor *mon) {
    if (!st->ipc) return;
    char f[48];
    snprintf(f, sizeof f, "ipc_dx_inf_h=%.3e", st->ipc->dx_inf_h);
    weft_monitor_step_field(mon, f);
}

/* Adaptive κ after iteration k's iterate (Li 2020 §4.3): raised while the smallest distance
 * keeps closing; G, ∇G and the residual at the iterate follow. The row held for the
 * previous iterate is written first, on the κ it was reached with. */
static void adapt_kappa(im_state *st, weft_model *m, weft_monitor *mon, newton_step *ns) {
    if (!st->ipc || !st->ipc->adaptive) return;
    weft_monitor_flush(mon);
    if (!weft_ipc_kappa_iterate(st->ipc, m, st->x)) return;
    ns->G = potential(st, m, st->x, ns->hh, st->g);
    ns->r = st->r = weft_residual(m, st->x, ns->t1, ns->hh, st->g, NULL);
}

/* One step: Newton's method on G from the start point, each iteration a direction, a line
 * search, the new iterate and the stopping test on the residual of the logs
 * (weft_residual): converged once r ≤ tolerance_abs and r ≤ tolerance · max(r0,
 * tolerance_abs) (a step that starts within tolerance_abs, a cloth at rest or a free fall
 * at rounding level, asks for no reduction below that: none of rounding is meaningful),
 * "stalled" when rounding ends it, "cap REASON" at the iteration cap. Under ipc with
 * friction, the iterations of every lagging solve count toward the one cap. */
int im_newton_step(im_state *st, weft_model *m, weft_monitor *mon, weft_error *err) {
    newton_step ns = {.t1 = m->t + m->dt, .last_change = -1};
    ns.hh = im_setup_scheme(st, m);
    st->ipc_model = m;
    int rc = st->ipc ? weft_ipc_begin_step(st->ipc, m, err) : WEFT_OK;
    if (rc == WEFT_OK && st->ipc) /* the first lag's friction: at x_n (Li 2020 §5.2) */
        rc = weft_ipc_friction_build(st->ipc, m, m->x, m->x, m->dt, err);
    if (rc) return rc;
    st->r_contact = 0.0, st->contacts_recent = false;
    if (st->bdf2) weft_monitor_set_target(mon, st->xt, ns.hh);
    rc = freeze_damping(st, m, err);
    if (rc || (rc = st->ipc ? ipc_start_point(st, m, &ns, err) : start_point(st, m, &ns, err)))
        return rc;
    ns.r0 = ns.r = st->r0 = st->r = weft_residual(m, st->x, ns.t1, ns.hh, st->g, NULL);
    const double tol_abs = st->set.tolerance_abs;
    ns.r_stop = fmin(tol_abs, st->set.tolerance * fmax(ns.r0, tol_abs));
    int lag = 0;
    if ((rc = lag_friction(st, m, mon, &ns, &lag, err))) return rc;
    const char *stop = converged(st, m, &ns) ? "converged" : NULL;
    if (st->ipc) st->ipc->dx_inf_h = 0.0; /* no Newton direction yet in this step */
    if (stop) {
        ipc_stop_field(st, mon);
        weft_monitor_stop(mon, st->x, 0, stop);
    } else {
        weft_monitor_report(mon, st->x, 0, false);
    }
    const int cap = st->set.common.iterations;
    for (int k = 1; k <= cap && !stop; k++) {
        st->iter = k;
        bool stalled;
        if ((rc = newton_direction(st, m, &ns, k, err))) return rc;
        if ((rc = line_search(st, m, &ns, k, &stalled, err))) return rc;
        if (stalled) {
            stop = "stalled";
            ipc_stop_field(st, mon);
            weft_monitor_stop(mon, NULL, k - 1, stop);
            break;
        }
        if ((rc = ipc_correction(st, m, &ns, err))) return rc;
        if ((rc = accept_iterate(st, m, &ns, k, err))) return rc;
        adapt_kappa(st, m, mon, &ns);
        if ((rc = lag_friction(st, m, mon, &ns, &lag, err))) return rc;
        if (converged(st, m, &ns))
            stop = "converged";
        else if (k == cap)
            stop = cap_reason(st, m, &ns, k);
        if (stop) {
            ipc_stop_field(st, mon);
            weft_monitor_stop(mon, st->x, k, stop);
        } else {
            weft_monitor_report(mon, st->x, k, false);
        }
    }
    st->stop = stop;
    if (st->ipc) st->ipc->dx_inf_h_max = fmax(st->ipc->dx_inf_h_max, st->ipc->dx_inf_h);
    end_step(st, m, ns.hh, ns.t1);
    return WEFT_OK;
}

/* The settings of newton_euler and bdf2_newton: the implicit ones and [pbd] k_pressure. */
typedef struct newton_settings {
    weft_implicit_settings im;
    double k_pressure; /* [pbd] the balloon's overpressure factor k (0: none) */
    weft_contact_settings contact; /* [contact]: the contact model (ipc_contact.h) */
} newton_settings;

/* The physics [pbd] adds that Newton runs: the balloon's volume constraint (the same row
 * as the position-based solvers' and vbd's). */
static const weft_param newton_pressure_params[] = {
    {.key = "k_pressure", .type = WEFT_PARAM_DOUBLE, .offset = 0, .unit = "1", .lo = 0,
     .hi = 100, .flags = WEFT_PARAM_MODEL, .dflt = 0,
     .doc = "§4.4 balloon overpressure V = k V0 (closed meshes; 0: none)"},
    {0},
};

static const weft_param_table newton_tables[] = {
    {"solver", weft_iterations_params, offsetof(weft_implicit_settings, common)},
    {"solver", weft_threads_params, offsetof(weft_implicit_settings, common)},
    {"solver", im_newton_params, 0},
    {"solver", im_implicit_params, 0},
    {"pbd", newton_pressure_params, offsetof(newton_settings, k_pressure)},
    {"contact", weft_contact_params, offsetof(newton_settings, contact)},
    {0},
};

/* The contact model of [contact] model (ipc_contact.h) into st->ipc; nothing for none. */
static int create_ipc(im_state *st, const weft_model *m, const weft_config *cfg,
                      weft_error *err) {
    const weft_contact_settings *c = &((const newton_settings *)st->settings)->contact;
    if (c->model != WEFT_CONTACT_IPC) return weft_contact_check_none(c, cfg, err);
    if (st->set.damping_beta > 0.0) {
        char w[330] = "";
        weft_config_where(cfg, "solver", "damping_beta", w, sizeof w);
        return weft_fail(err, WEFT_ERR_INPUT, "%s%ssolver.damping_beta: [contact] model = ipc "
                         "runs without stiffness-proportional damping (its K_n has no barrier "
                         "pattern); set 0", w, w[0] ? ": " : "");
    }
    if (!(st->ipc = calloc(1, sizeof *st->ipc)))
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the %s solver",
                         st->type->name);
    return weft_ipc_create(st->ipc, c, m, cfg, st->type->name, err);
}

/* The log header's line about the contact model (weft_solver_type.header). */
static void newton_header(const void *state, char *buf, size_t size) {
    const im_state *st = state;
    buf[0] = '\0';
    if (st->ipc) weft_ipc_header(st->ipc, (st->bdf2 ? 2.0 / 3.0 : 1.0) * st->ipc->dt, buf, size);
}

/* The state of a Newton solver, with the volume constraint when [pbd] k_pressure > 0
 * (closed meshes only). */
static void *create_newton(const weft_model *m, weft_config *cfg, const weft_solver_type *type,
                           bool bdf2, weft_error *err) {
    im_state *st = im_create(m, cfg, type, newton_tables, true, bdf2, im_newton_step, err);
    if (!st) return NULL;
    if (create_ipc(st, m, cfg, err)) {
        im_destroy(st);
        return NULL;
    }
    const double k = ((const newton_settings *)st->settings)->k_pressure;
    if (!(k > 0.0)) return st;
    if (weft_pressure_check(m, cfg, k, err)) {
        im_destroy(st);
        return NULL;
    }
    st->pressure = true, st->k_pressure = k;
    size_t n3 = 3 * (size_t)(m->n > 0 ? m->n : 1);
    if (!(st->vgrad = calloc(n3, sizeof(double))) || !(st->vz = calloc(n3, sizeof(double)))) {
        im_destroy(st);
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the %s solver", type->name);
        return NULL;
    }
    return st;
}

static void *create_ne(const weft_model *m, weft_config *cfg, weft_error *err) {
    return create_newton(m, cfg, &weft_newton_euler, false, err);
}
static void *create_b2n(const weft_model *m, weft_config *cfg, weft_error *err) {
    return create_newton(m, cfg, &weft_bdf2_newton, true, err);
}

/* The contact models both Newton solvers run ([contact] model) and their profile timers
 * (implicit_common.c's im_profile). */
static const char *const newton_contact_models[] = {"ipc", NULL};
static const char *const newton_contact_timers[] = {"ipc_fill", "ipc_ccd", NULL};

const weft_solver_type weft_newton_euler = {
    .name = "newton_euler",
    .paper = "Kim & Eberle 2020, ch. 8 (backward Euler by Newton on G)",
    .iteration = "one Newton step with line search",
    .summary = "backward Euler solved to tolerance: Newton on the incremental potential with "
               "exact Hessians where SPD (else projected) and a backtracking line search",
    .settings_size = sizeof(newton_settings),
    .settings = newton_tables,
    .create = create_ne,
    .step = im_step,
    .destroy = im_destroy,
    .stats = im_profile,
    .header = newton_header,
    .linear_log = true,
    .caps = {.order = 1,
             .contact = "active contacts as filtered constraints of each system, or "
                        "[contact] model = ipc: a barrier with a CCD-filtered line search",
             .contact_models = newton_contact_models,
             .contact_timers = newton_contact_timers},
};

const weft_solver_type weft_bdf2_newton = {
    .name = "bdf2_newton",
    .paper = "Kim & Eberle 2020, ch. 8 (BDF2 by Newton on its G)",
    .iteration = "one Newton step with line search",
    .summary = "second-order BDF solved to tolerance by Newton on its incremental potential",
    .settings_size = sizeof(newton_settings),
    .settings = newton_tables,
    .create = create_b2n,
    .step = im_step,
    .destroy = im_destroy,
    .stats = im_profile,
    .header = newton_header,
    .linear_log = true,
    .caps = {.order = 2,
             .contact = "active contacts as filtered constraints of each system, or "
                        "[contact] model = ipc: a barrier with a CCD-filtered line search",
             .contact_models = newton_contact_models,
             .contact_timers = newton_contact_timers},
};
