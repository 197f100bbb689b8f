/* newton.c — backward Euler (`newton_euler`) and BDF2 (`bdf2_newton`) solved to
 * tolerance by Newton's method on the incremental potential (Kim & Eberle 2020, ch. 8):
 *     G(x) = ½ (x − x̃)ᵀ M (x − x̃) / ĥ² + E(x) + (x − a)ᵀ D (x − a) / (2ĥ),
 * one filtered solve of (M/ĥ² + K(x) + D/ĥ) Δx = −∇G(x) per iteration, then a
 * backtracking line search on G along the path projected onto the colliders; it stops on
 * the residual of the logs, weft_residual (papers/residual.md; implicit_internal.h has the
 * whole method). With [solver] globalisation = trust_region each iteration instead takes a
 * trust-region step on the exact Hessian (Steihaug-Toint CG preconditioned by the
 * projected system; Nocedal & Wright 2006, ch. 4 and §7.1; Steihaug 1983), measured on
 * the same projected path and stopped by the same residual: newton_trust.c has its
 * equations. With [solver] springs = mixed the springs' geometric stiffness comes from a
 * dual λ per spring, updated after each iteration (primal–dual Newton; newton_mixed.c).
 * No smoother: the nonlinearly preconditioned variant (a patch smoother after each Newton
 * step) is its own solver, newton_patch (newton_patch.c), plugged in through
 * im_state.after_step.
 *
 * Passes per iteration: one assembly of E, ∇E and K (one pass over the elements), one
 * linear solve (two when hessian = adaptive finds the exact system not SPD), one energy
 * pass per line-search trial (usually one) and one E, ∇E pass at the new iterate (trust
 * region: two assemblies, one factorisation, a few CG products and solves, one energy pass
 * per trial). Per step: two E, ∇E passes to choose the start point.
 */
#include "implicit_internal.h"

#include <stddef.h>

/* ------------------------------------------------------------------------------ */
/* Newton on the incremental potential                                             */
/* ------------------------------------------------------------------------------ */

/* G(x) and, if grad is non-NULL, ∇G(x) (3n, pinned DOFs zeroed). The undamped part is
 * lib/metrics.c's weft_incremental_potential_h, so that the residual Newton stops on is
 * the logs' residual bit for bit; Rayleigh damping (α, β > 0) adds its terms. */
static double potential(im_state *st, const weft_model *m, const double *x, double hh,
                        double *grad) {
    const int n = m->n;
    const double al = st->set.damping_alpha, be = st->set.damping_beta, h2 = hh * hh;
    double G;
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

/* The curvature of the active sphere contacts in the trust region's model B (values vals
 * on A's pattern): the constraint g(x) = |x − c| − R − η has ∇²g = (I − n̂n̂ᵀ)/ρ,
 * ρ = |x − c|, so the Hessian of the Lagrangian G − λ g adds −(λ/ρ)(I − n̂n̂ᵀ) to vertex
 * i's diagonal block, λ = ∇G_i·n̂ ≥ 0 the contact's force (Nocedal & Wright 2006, §12.4).
 * The trial is projected back onto the sphere, which G measures; without this term the
 * model misses the λ t²/(2ρ) a tangential move t costs there, and at impact (λ/ρ of some
 * N/m against M/ĥ² = 0.35 N/m per vertex on drape_sphere) the radius must stay small.
 * Planes have none. It makes B indefinite, which the trust region handles; the
 * line-search Newton does not use it (papers/residual.md). */
static void add_contact_curvature(im_state *st, const weft_model *m, double t, double *vals) {
    for (int i = 0; i < m->n; i++) {
        int c = st->contact[i];
        if (c < 0 || m->pin[i] >= 0) continue;
        const weft_collider *col = &m->colliders[c];
        if (weft_collider_type_of(col) != &weft_collider_sphere) continue;
        const double *n = &st->cn[3 * i];
        double lam = weft_dot3(&st->g[3 * i], n);
        if (!(lam > 0.0)) continue;
        double rho = weft_collider_distance_at(col, &st->x[3 * i], t, NULL) + col->radius;
        if (!(rho > 0.0)) continue;
        double *B = &vals[9 * (size_t)st->A->diag[i]], w = lam / rho;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) B[3 * a + b] -= w * ((a == b) - n[a] * n[b]);
    }
}

/* The variant's pass over the Newton step's iterate st->x, with that point's contacts
 * (the line search's trial ones, swapped in and out); the residual logged and the stopping
 * test are then the pass's point's. Springs = mixed: the duals follow the move by their
 * springs' exact change of force. */
static void after_step(im_state *st, const weft_model *m, double t1, double hh) {
    const size_t n3 = 3 * (size_t)m->n;
    int *c0 = st->contact;
    double *n0 = st->cn;
    st->contact = st->tcontact, st->cn = st->tcn;
    if (st->mixed) memcpy(st->xtrial, st->x, n3 * sizeof *st->x);
    double t0 = weft_now();
    st->after_step(st, m, t1, hh, st->x);
    st->stats.smooth_s += weft_now() - t0;
    im_mixed_shift(st, m, st->xtrial, st->x);
    st->tcontact = st->contact, st->tcn = st->cn;
    st->contact = c0, st->cn = n0;
}

/* Catches the free vertices of x inside a collider (the start point). */
static void catch_all(im_state *st, const weft_model *m, double t1, double *x) {
    for (int i = 0; i < m->n; i++) st->contact[i] = -1;
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] < 0 && m->w[i] > 0.0) im_catch_contact(st, m, i, t1, x);
}

/* One trust-region iteration at st->x (G, ∇G in st->g, residual r; newton_trust.c has the
 * method): assembles the model's system B (per [solver] hessian) into st->H_val and the
 * projected one P into A, factorises P, then solves the model within the radius and
 * measures G at the projected trial Π(x + s) until a trial is accepted (shrinking the
 * radius after each rejected one, counted as a backtrack). Returns 0 with the trial in
 * st->xtrial and its G in *Gt, TR_STALLED when G cannot decrease beyond rounding, or an
 * error. *negative: the CG met negative curvature. */
#define TR_STALLED 1
static int trust_iteration(im_state *st, const weft_model *m, double t1, double hh, double G,
                           double r, double *Gt, bool *negative, weft_error *err) {
    const int n = m->n;
    const size_t n3 = 3 * (size_t)n, nv = 9 * (size_t)st->A->nnzb;
    const double al = st->set.damping_alpha, be = st->set.damping_beta;
    const char *name = st->type->name;
    const bool two = st->set.hessian == WEFT_SOLVER_HESSIAN_EXACT ||
                     st->set.hessian == WEFT_SOLVER_HESSIAN_ADAPTIVE;
    /* A contact whose force pulls is not active (the residual counts its normal force):
     * released before the step, so that the filtered model sees that force (the line
     * search releases such contacts after each iteration, update_contacts). Without this
     * the balloon at cap 10 stalled 70 steps (papers/residual.md). */
    if (m->ncolliders > 0) {
        int released = 0;
        for (int i = 0; i < n; i++)
            if (st->contact[i] >= 0 && weft_dot3(&st->g[3 * i], &st->cn[3 * i]) < 0.0) {
                st->contact[i] = -1;
                st->stats.contact_releases++;
                released++;
            }
        int rc = released ? im_build_filters(st, m, NULL, NULL, err) : WEFT_OK;
        if (rc) return rc;
    }
    /* B (model), then P (preconditioner and norm): K + (β/ĥ) K_n + M (1/ĥ² + α/ĥ) */
    for (int pass = 0; pass < (two ? 2 : 1); pass++) {
        double E = im_assemble(st, m, st->x, pass == 1, err);
        if (!isfinite(E))
            return im_fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d, iteration %d", name,
                                   st->step, st->iter);
        double t0 = weft_now();
        if (be > 0.0)
            for (size_t j = 0; j < nv; j++) st->A->val[j] += be / hh * st->Kn_val[j];
        for (int i = 0; i < n; i++) st->dmass[i] = m->mass[i] * (1.0 / (hh * hh) + al / hh);
        im_form_system(st, 1.0);
        if (pass == 0) {
            memcpy(st->H_val, st->A->val, nv * sizeof *st->H_val);
            if (m->ncolliders > 0) add_contact_curvature(st, m, t1, st->H_val);
        }
        st->stats.filter_s += weft_now() - t0;
    }
    double t0 = weft_now();
    weft_solve_status s = st->linear->factor(st->lin, st->A, &st->f, err);
    st->stats.linear_s += weft_now() - t0;
    if (s != WEFT_SOLVE_CONVERGED)
        return im_fail_because(err, WEFT_ERR_DIVERGED,
                               "%s: step %d, iteration %d: the projected system's "
                               "factorisation %s",
                               name, st->step, st->iter, weft_solve_status_name(s));
    st->stats.newton_iterations++;
    const double eta = fmin(TR_ETA_MAX, sqrt(r / st->r0));
    int doubling = 0;
    double saved_G = 0.0, saved_radius = 0.0;
    for (int bt = 0;; bt++) {
        double pred, snorm;
        bool boundary, neg;
        s = im_steihaug(st, st->g, eta, TR_CG_MAX, &pred, &snorm, &boundary, &neg, err);
        if (s != WEFT_SOLVE_CONVERGED)
            return im_fail_because(err, WEFT_ERR_DIVERGED,
                                   "%s: step %d, iteration %d: the preconditioner's solve %s",
                                   name, st->step, st->iter, weft_solve_status_name(s));
        *negative = *negative || neg;
        t0 = weft_now();
        for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->x[j] + st->dx[j];
        if (m->ncolliders > 0) project_trial(st, m, t1, st->xtrial);
        if (!(pred > G_ROUNDING * fabs(G))) {
            /* G cannot resolve the model's decrease (near the solution, at a relative
             * residual of about √ε): take the step while it halves the residual without
             * raising G beyond rounding, as the line search does; else stalled. */
            *Gt = potential(st, m, st->xtrial, hh, st->rhs);
            st->stats.line_search_s += weft_now() - t0;
            st->stats.backtracks += bt;
            if (*Gt <= G + G_ROUNDING * fabs(G) &&
                weft_residual(m, st->xtrial, t1, hh, st->rhs, NULL) <= 0.5 * r)
                return 0;
            return TR_STALLED;
        }
        *Gt = potential(st, m, st->xtrial, hh, NULL);
        st->stats.line_search_s += weft_now() - t0;
        double rho = (G - *Gt) / pred;
        if (rho > TR_ACCEPT && rho > 0.75 && boundary && doubling < TR_DOUBLINGS) {
            /* Internal doubling (Dennis & Schnabel 1983, §6.4.1): the model held to the
             * boundary, so try twice the radius before accepting, keeping this trial. */
            memcpy(st->tr_s, st->dx, n3 * sizeof *st->dx);
            saved_G = *Gt, saved_radius = st->radius, doubling++;
            st->radius *= 2.0;
            bt--;
            continue;
        }
        if (doubling > 0 && !(rho > TR_ACCEPT && *Gt < saved_G)) {
            /* the doubled trial is no better: back to the saved one */
            memcpy(st->dx, st->tr_s, n3 * sizeof *st->dx);
            for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->x[j] + st->dx[j];
            if (m->ncolliders > 0) project_trial(st, m, t1, st->xtrial);
            *Gt = saved_G;
            st->radius = saved_radius;
            st->stats.backtracks += bt;
            return 0;
        }
        im_trust_update(st, rho, snorm, boundary);
        if (rho > TR_ACCEPT) {
            st->stats.backtracks += bt;
            return 0;
        }
        if (bt >= MAX_BACKTRACKS) {
            st->stats.backtracks += bt;
            if (r <= 1e3 * st->set.tolerance * st->r0 || fabs(*Gt - G) <= G_ROUNDING * fabs(G))
                return TR_STALLED;
            return weft_fail(err, WEFT_ERR_DIVERGED,
                             "%s: step %d, iteration %d: the trust region shrank %d times "
                             "without decreasing G (relative residual %.3g): the model does "
                             "not describe the energy",
                             name, st->step, st->iter, bt, r / st->r0);
        }
    }
}

int im_newton_step(im_state *st, weft_model *m, weft_monitor *mon, weft_error *err) {
    const int n = m->n;
    const size_t n3 = 3 * (size_t)n;
    const double h = m->dt, t1 = m->t + h;
    const double hh = im_setup_scheme(st, m);
    const double al = st->set.damping_alpha, be = st->set.damping_beta;
    const int cap = st->set.common.iterations;
    const char *name = st->type->name;
    const bool adaptive = st->set.hessian == WEFT_SOLVER_HESSIAN_ADAPTIVE;
    const bool trust = st->set.globalisation == WEFT_SOLVER_TRUST_REGION;
    st->radius = 0.0; /* the trust region starts at the projected Newton step's length */
    st->r_contact = 0.0, st->contacts_recent = false;
    if (st->bdf2) weft_monitor_set_target(mon, st->xt, hh);

    if (be > 0.0) { /* K_n for the damping term, frozen over the step */
        double E = im_assemble(st, m, m->x, true, err);
        if (!isfinite(E))
            return im_fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d", name, st->step);
        memcpy(st->Kn_val, st->A->val, 9 * (size_t)st->A->nnzb * sizeof(double));
    }
    /* Start at x̃ with pins on their paths and contacts on the surface; at x_n when G is
     * not finite there (an element outside its domain). */
    memcpy(st->x, st->xt, n3 * sizeof *st->x);
    weft_model_apply_pins(m, t1, st->x);
    catch_all(st, m, t1, st->x);
    double G = potential(st, m, st->x, hh, st->g);
    if (!isfinite(G)) {
        memcpy(st->x, m->x, n3 * sizeof *st->x);
        weft_model_apply_pins(m, t1, st->x);
        catch_all(st, m, t1, st->x);
        G = potential(st, m, st->x, hh, st->g);
        if (!isfinite(G)) {
            double E = im_assemble(st, m, st->x, true, err);
            if (isfinite(E)) weft_fail(err, WEFT_ERR_DIVERGED, "non-finite positions");
            return im_fail_because(err, WEFT_ERR_DIVERGED,
                                   "%s: step %d: the incremental "
                                   "potential is not finite at the start point",
                                   name, st->step);
        }
    }
    /* Or at the constant-velocity prediction a + ĥ b̄ (x̃ without gravity's ĥ² g), when G is
     * lower there: on a contact scene x̃ pushes the whole cloth ĥ² g into the colliders,
     * and catching the vertices that went in strains the springs to the ones that did not
     * (9 % at 60 Hz on a 32² cloth at rest on a sphere), which Newton then spends its
     * first iterations undoing. Contacts of the candidate go to tcontact, tcn. */
    if (isfinite(G)) {
        for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->a[j] + hh * st->vbar[j];
        weft_model_apply_pins(m, t1, st->xtrial);
        int *c0 = st->contact;
        double *n0 = st->cn;
        st->contact = st->tcontact, st->cn = st->tcn;
        catch_all(st, m, t1, st->xtrial);
        double G1 = potential(st, m, st->xtrial, hh, st->rhs);
        if (G1 < G) {
            memcpy(st->x, st->xtrial, n3 * sizeof *st->x);
            memcpy(st->g, st->rhs, n3 * sizeof *st->g);
            G = G1;
            st->tcontact = c0, st->tcn = n0;
        } else {
            st->tcontact = st->contact, st->tcn = st->cn;
            st->contact = c0, st->cn = n0;
        }
    }
    im_mixed_start(st, m, st->x); /* springs = mixed: the duals at x⁰ (newton_mixed.c) */
    int rc = im_build_filters(st, m, NULL, NULL, err);
    if (rc) return rc;
    /* The stopping test is on the residual of the logs (weft_residual). */
    const double tol = st->set.tolerance, tol_abs = st->set.tolerance_abs;
    double r0 = weft_residual(m, st->x, t1, hh, st->g, NULL), r = r0;
    st->r0 = r0, st->r = r;
    const char *stop = NULL; /* the step's status word */
    /* Converged: r ≤ tolerance_abs and r ≤ tolerance · max(r0, tolerance_abs). A step that
     * starts within tolerance_abs (a cloth at rest on the ground, a free fall at rounding
     * level) asks for no reduction below tolerance · tolerance_abs: none of rounding is
     * meaningful. */
    const double r_stop = fmin(tol_abs, tol * fmax(r0, tol_abs));
    if (r <= r_stop) {
        weft_monitor_stop(mon, st->x, 0, "converged");
        stop = "converged";
    } else {
        weft_monitor_report(mon, st->x, 0, false);
    }

    bool projected = false, retry = false;
    /* For the status of a capped step: the last iteration whose new iterate changed the
     * contact set, and whether the last iteration's exact system was not SPD. */
    int last_change = -1;
    bool indefinite = false;
    for (int k = 1; k <= cap && !stop; k++) {
        st->iter = k;
        double step_alpha = 1.0; /* the accepted line-search step (trust region: 1) */
        if (trust) {
            double Gt;
            if (!retry) indefinite = false;
            int tr = trust_iteration(st, m, t1, hh, G, r, &Gt, &indefinite, err);
            if (tr < 0) return tr;
            if (tr == TR_STALLED) {
                stop = "stalled";
                weft_monitor_stop(mon, NULL, k - 1, stop);
                break;
            }
        } else {
            if (adaptive && !retry) projected = false; /* exact again, at every iteration */
            if (!retry) indefinite = false;
            retry = false;
            double E = im_assemble(st, m, st->x, projected, err);
            if (!isfinite(E))
                return im_fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d, iteration %d", name,
                                       st->step, k);
            double t0 = weft_now();
            /* A = K + (β/ĥ) K_n + M (1/ĥ² + α/ĥ); rhs = −∇G. */
            if (be > 0.0)
                for (size_t j = 0; j < 9 * (size_t)st->A->nnzb; j++)
                    st->A->val[j] += be / hh * st->Kn_val[j];
            for (int i = 0; i < n; i++) st->dmass[i] = m->mass[i] * (1.0 / (hh * hh) + al / hh);
            im_form_system(st, 1.0);
            for (size_t j = 0; j < n3; j++) st->rhs[j] = -st->g[j];
            st->stats.filter_s += weft_now() - t0;
            weft_solve_status s = im_linear_solve(st, st->rhs, st->dx, err);
            if (s == WEFT_SOLVE_INDEFINITE && !projected &&
                (st->set.hessian == WEFT_SOLVER_HESSIAN_EXACT || adaptive)) {
                /* exact: for the rest of this step (no second failed factorisation), reported
                 * once; adaptive: for this iteration, as designed (counted only) */
                if (adaptive)
                    st->stats.fallbacks++;
                else
                    im_note_indefinite(st, err ? err->msg : "the system is not positive definite");
                projected = retry = indefinite = true;
                k--;
                continue;
            }
            if (s != WEFT_SOLVE_CONVERGED)
                return im_fail_because(err, WEFT_ERR_DIVERGED,
                                       "%s: step %d, iteration %d: linear "
                                       "solve %s",
                                       name, st->step, k, weft_solve_status_name(s));
            st->stats.newton_iterations++;

            /* Backtracking line search on G. */
            t0 = weft_now();
            double slope = 0.0;
            for (size_t j = 0; j < n3; j++) slope += st->g[j] * st->dx[j];
            if (!(slope < 0.0)) {
                if (r <= 1e3 * tol * r0 || slope == 0.0) { /* at rounding level */
                    stop = "stalled";
                    weft_monitor_stop(mon, NULL, k - 1, stop);
                    break;
                }
                return weft_fail(err, WEFT_ERR_DIVERGED,
                                 "%s: step %d, iteration %d: the Newton "
                                 "direction is not a descent direction (gradient·dx = %.3g, relative "
                                 "residual %.3g)",
                                 name, st->step, k, slope, r / r0);
            }
            double alpha = 1.0, Gt = INFINITY;
            int bt = 0;
            if (-slope <= G_ROUNDING * fabs(G)) {
                /* G cannot resolve this step (its decrease is about −slope/2): near the
                 * solution, at a relative residual of about √ε, rounding decides Armijo's
                 * test. Take the full step while it halves the residual without raising G
                 * beyond rounding; otherwise the residual is at rounding too: the step ends
                 * here (scratch: rhs, free after the solve). */
                for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->x[j] + st->dx[j];
                if (m->ncolliders > 0) project_trial(st, m, t1, st->xtrial);
                Gt = potential(st, m, st->xtrial, hh, st->rhs);
                if (!(Gt <= G + G_ROUNDING * fabs(G) &&
                      weft_residual(m, st->xtrial, t1, hh, st->rhs, NULL) <= 0.5 * r)) {
                    stop = "stalled";
                    weft_monitor_stop(mon, NULL, k - 1, stop);
                    break;
                }
                bt = -1; /* no line search */
            }
            for (; bt >= 0 && bt <= MAX_BACKTRACKS; bt++) {
                for (size_t j = 0; j < n3; j++) st->xtrial[j] = st->x[j] + alpha * st->dx[j];
                if (m->ncolliders > 0) project_trial(st, m, t1, st->xtrial);
                Gt = potential(st, m, st->xtrial, hh, NULL);
                if (Gt <= G + ARMIJO * alpha * slope) break;
                alpha *= 0.5;
            }
            st->stats.line_search_s += weft_now() - t0;
            if (bt > MAX_BACKTRACKS) {
                /* G cannot decrease along a descent direction: rounding has taken over. */
                if (r <= 1e3 * tol * r0 || fabs(Gt - G) <= G_ROUNDING * fabs(G)) {
                    stop = "stalled";
                    weft_monitor_stop(mon, NULL, k - 1, stop);
                    break;
                }
                return weft_fail(err, WEFT_ERR_DIVERGED,
                                 "%s: step %d, iteration %d: the line "
                                 "search could not decrease G (relative residual %.3g): the "
                                 "Hessian does not describe the energy",
                                 name, st->step, k, r / r0);
            }
            if (bt < 0) bt = 0;
            st->stats.backtracks += bt;
            step_alpha = alpha;
        }
        im_mixed_update(st, m, st->x, st->xtrial, step_alpha);
        memcpy(st->x, st->xtrial, n3 * sizeof *st->x);
        bool have_g = false; /* G and ∇G already at st->x (the test below) */
        if (st->after_step) { /* a variant's pass (newton_patch.c), unless x already stops */
            G = potential(st, m, st->x, hh, st->g);
            have_g = weft_residual(m, st->x, t1, hh, st->g, NULL) <= r_stop;
            if (!have_g) after_step(st, m, t1, hh);
        }
        /* The contact set of the new iterate: the projected path's, less those that pull. */
        if (!have_g) G = potential(st, m, st->x, hh, st->g);
        if (m->ncolliders > 0) {
            if (update_contacts(st, m, st->g) > 0) last_change = k;
            if ((rc = im_build_filters(st, m, NULL, NULL, err))) return rc;
        }
        r = weft_residual(m, st->x, t1, hh, st->g, NULL);
        st->r = r;
        if (!isfinite(r) || !isfinite(G))
            return weft_fail(err, WEFT_ERR_DIVERGED,
                             "%s: step %d, iteration %d: non-finite "
                             "residual",
                             name, st->step, k);
        if (r <= r_stop) {
            stop = "converged";
        } else if (k == cap) {
            /* Why: the contacts only where they changed lately and hold at least half of
             * ‖r‖² (a cloth still buckling away from the colliders catches and releases a
             * few vertices at its edge of contact while its residual sits elsewhere). */
            weft_residual_split(m, st->x, t1, hh, st->g, NULL, &st->r_contact);
            st->contacts_recent = last_change >= k - CONTACT_WINDOW + 1;
            stop = st->contacts_recent && 2.0 * st->r_contact * st->r_contact >= r * r
                       ? "cap contacts_changing"
                   : indefinite || projected ? "cap indefinite"
                                             : "cap slow";
        }
        if (stop)
            weft_monitor_stop(mon, st->x, k, stop);
        else
            weft_monitor_report(mon, st->x, k, false);
    }
    st->stop = stop;
    if (st->bdf2) {
        memcpy(st->xprev, m->x, n3 * sizeof *st->xprev);
        memcpy(st->vprev, m->v, n3 * sizeof *st->vprev);
        st->have_prev = true;
    }
    for (size_t j = 0; j < n3; j++) {
        m->v[j] = (st->x[j] - st->a[j]) / hh;
        m->x[j] = st->x[j];
    }
    if (m->ncolliders > 0) {
        /* Friction moves a contact along its tangent plane, which leaves a sphere: the
         * contact goes back onto the surface, where the step's answer has it. */
        im_apply_friction(st, m, st->g, hh, m->x, m->v);
        for (int i = 0; i < n; i++) {
            int c = st->contact[i];
            if (c < 0) continue;
            double nn[3];
            double d = weft_collider_distance_at(&m->colliders[c], &m->x[3 * i], t1, nn) -
                       m->contact_margin;
            for (int k = 0; k < 3; k++) m->x[3 * i + k] -= d * nn[k];
        }
    }
    m->t = t1;
    return WEFT_OK;
}
static const weft_param_table newton_tables[] = {
    {"solver", weft_iterations_params, offsetof(weft_implicit_settings, common)},
    {"solver", weft_threads_params, offsetof(weft_implicit_settings, common)},
    {"solver", im_newton_params, 0},
    {"solver", im_implicit_params, 0},
    {0},
};

static void *create_ne(const weft_model *m, weft_config *cfg, weft_error *err) {
    return im_create(m, cfg, &weft_newton_euler, newton_tables, true, false, im_newton_step, err);
}
static void *create_b2n(const weft_model *m, weft_config *cfg, weft_error *err) {
    return im_create(m, cfg, &weft_bdf2_newton, newton_tables, true, true, im_newton_step, err);
}

const weft_solver_type weft_newton_euler = {
    .name = "newton_euler",
    .paper = "Kim & Eberle 2020, ch. 8 (backward Euler by Newton on G)",
    .iteration = "one Newton step with line search",
    .summary = "backward Euler solved to tolerance: Newton on the incremental potential with "
               "exact Hessians where SPD (else projected) and a backtracking line search",
    .settings_size = sizeof(weft_implicit_settings),
    .settings = newton_tables,
    .create = create_ne,
    .step = im_step,
    .destroy = im_destroy,
    .stats = im_profile,
    .linear_log = true,
};

const weft_solver_type weft_bdf2_newton = {
    .name = "bdf2_newton",
    .paper = "Kim & Eberle 2020, ch. 8 (BDF2 by Newton on its G)",
    .iteration = "one Newton step with line search",
    .summary = "second-order BDF solved to tolerance by Newton on its incremental potential",
    .settings_size = sizeof(weft_implicit_settings),
    .settings = newton_tables,
    .create = create_b2n,
    .step = im_step,
    .destroy = im_destroy,
    .stats = im_profile,
    .linear_log = true,
};
