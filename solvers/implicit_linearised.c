/* implicit_linearised.c — Baraff & Witkin 1998's linearised backward Euler
 * (`implicit_euler`) and linearised BDF2 as in Pixar's Fizt (`bdf2`, Kim & Eberle 2020
 * ch. 8): f linearised about (x_n, v_n) gives one linear system for Δv per step,
 *     (M + ĥ D + ĥ² K_n) Δv = M (b̄ − v_n) + ĥ [f_n − K_n (a − x_n) − ĥ K_n v_n − D v_n],
 * f_n = −∇E(x_n) + M g, (ĥ, a, b̄) as in implicit_internal.h.
 *
 * Passes per step: one assembly of E, ∇E and K at x_n (one pass over the elements), one
 * linear solve, and up to 3 more solves while the contact set changes; then friction.
 */
#include "implicit_internal.h"

#include <stddef.h>

/* ------------------------------------------------------------------------------ */
/* Linearised step (Baraff & Witkin)                                               */
/* ------------------------------------------------------------------------------ */

int im_linearised_step(im_state *st, weft_model *m, weft_monitor *mon, weft_error *err) {
    const int n = m->n;
    const size_t n3 = 3 * (size_t)n;
    const double h = m->dt, t1 = m->t + h;
    const double hh = im_setup_scheme(st, m);
    const double al = st->set.damping_alpha, be = st->set.damping_beta;
    if (st->bdf2) weft_monitor_set_target(mon, st->xt, hh);

    /* Iteration 0: the inertial target, pins at t + h (as every solver reports it). */
    memcpy(st->x, st->xt, n3 * sizeof *st->x);
    weft_model_apply_pins(m, t1, st->x);
    for (int i = 0; i < n; i++) st->contact[i] = -1;
    for (int i = 0; i < n; i++)
        if (m->pin[i] < 0 && m->w[i] > 0.0) im_catch_contact(st, m, i, t1, st->x);
    weft_monitor_report(mon, st->x, 0, false);

    bool projected = false;
    for (;;) {
        double E = im_assemble(st, m, m->x, projected, err);
        if (!isfinite(E))
            return im_fail_because(err, WEFT_ERR_DIVERGED, "%s: step %d", st->type->name, st->step);
        double t0 = weft_now();
        /* rhs = M (b̄ − v_n) + ĥ [−∇E + M g − α M v_n] − ĥ K (a − x_n + (ĥ + β) v_n). */
        for (size_t k = 0; k < n3; k++) st->w[k] = st->a[k] - m->x[k] + (hh + be) * m->v[k];
        weft_bsr_spmv(st->A, st->w, st->q, st->set.common.threads);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                size_t j = 3 * (size_t)i + k;
                double mi = m->mass[i];
                st->rhs[j] = mi * (st->vbar[j] - m->v[j]) +
                             hh * (-st->gE[j] + mi * m->gravity[k] - al * mi * m->v[j]) -
                             hh * st->q[j];
            }
        for (int i = 0; i < n; i++) st->dmass[i] = m->mass[i] * (1.0 + hh * al);
        im_form_system(st, hh * be + hh * hh);
        st->stats.filter_s += weft_now() - t0;

        weft_solve_status s = WEFT_SOLVE_CONVERGED;
        for (int pass = 0; pass < MAX_CONTACT_PASSES; pass++) {
            /* Prescribed Δv: pins reach their path, contacts the surface point q. */
            for (int i = 0; i < n; i++) {
                double *z = &st->w[3 * i];
                if (m->pin[i] >= 0) {
                    for (int k = 0; k < 3; k++)
                        z[k] = (st->x[3 * i + k] - st->a[3 * i + k]) / hh - m->v[3 * i + k];
                } else if (st->contact[i] >= 0) {
                    /* n̂·v_{n+1} = n̂·(q − a)/ĥ, q the contact point stored in x. */
                    double d[3];
                    for (int k = 0; k < 3; k++)
                        d[k] = (st->x[3 * i + k] - st->a[3 * i + k]) / hh - m->v[3 * i + k];
                    st->q[i] = weft_dot3(d, &st->cn[3 * i]);
                }
            }
            int rc = im_build_filters(st, m, st->w, st->q, err);
            if (rc) return rc;
            st->iter = 1;
            s = im_linear_solve(st, st->rhs, st->dx, err);
            if (s != WEFT_SOLVE_CONVERGED) break;
            if (m->ncolliders == 0) break;
            /* Constraint impulses F ĥ = A Δv − rhs: release pulling contacts; catch new
             * penetrations of x = a + ĥ (v_n + Δv). */
            weft_bsr_spmv(st->A, st->dx, st->g, st->set.common.threads);
            bool changed = false;
            for (int i = 0; i < n; i++) {
                if (m->pin[i] >= 0 || m->w[i] == 0.0) continue;
                double *xi = &st->xtrial[3 * i];
                for (int k = 0; k < 3; k++)
                    xi[k] = st->a[3 * i + k] + hh * (m->v[3 * i + k] + st->dx[3 * i + k]);
                if (st->contact[i] >= 0) {
                    double F[3];
                    for (int k = 0; k < 3; k++) F[k] = st->g[3 * i + k] - st->rhs[3 * i + k];
                    if (weft_dot3(F, &st->cn[3 * i]) < 0.0) {
                        st->contact[i] = -1;
                        st->stats.contact_releases++;
                        changed = true;
                    }
                } else if (im_catch_contact(st, m, i, t1, st->xtrial)) {
                    memcpy(&st->x[3 * i], xi, 3 * sizeof(double));
                    changed = true;
                }
            }
            if (!changed) break;
        }
        if (s == WEFT_SOLVE_INDEFINITE && !projected &&
            (st->set.hessian == WEFT_SOLVER_HESSIAN_EXACT ||
             st->set.hessian == WEFT_SOLVER_HESSIAN_ADAPTIVE)) {
            im_note_indefinite(st, err ? err->msg : "the system is not positive definite");
            projected = true;
            continue;
        }
        if (s != WEFT_SOLVE_CONVERGED)
            return im_fail_because(err, weft_solve_status_code(s),
                                   "%s: step %d: linear solve %s",
                                   st->type->name, st->step, weft_solve_status_name(s));
        break;
    }
    /* v_{n+1} = v_n + Δv, x_{n+1} = a + ĥ v_{n+1}; pins exactly on their paths. */
    if (st->bdf2) {
        memcpy(st->xprev, m->x, n3 * sizeof *st->xprev);
        memcpy(st->vprev, m->v, n3 * sizeof *st->vprev);
        st->have_prev = true;
    }
    for (int i = 0; i < n; i++) {
        double *v = &m->v[3 * i], *x = &m->x[3 * i];
        for (int k = 0; k < 3; k++) {
            v[k] += st->dx[3 * i + k];
            x[k] = m->pin[i] >= 0 ? st->x[3 * i + k] : st->a[3 * i + k] + hh * v[k];
        }
    }
    if (m->ncolliders > 0) {
        for (size_t k = 0; k < n3; k++) st->g[k] = (st->g[k] - st->rhs[k]) / hh;
        im_apply_friction(st, m, st->g, hh, m->v);
    }
    st->stats.newton_iterations++;
    m->t = t1;
    weft_monitor_report(mon, m->x, 1, true);
    return WEFT_OK;
}

static const weft_param_table linearised_tables[] = {
    {"solver", weft_threads_params, offsetof(weft_implicit_settings, common)},
    {"solver", im_implicit_params, 0},
    {"solver", im_linearised_params, 0},
    {0},
};

static void *create_ie(const weft_model *m, weft_config *cfg, weft_error *err) {
    return im_create(m, cfg, &weft_implicit_euler, linearised_tables, false, false,
                     im_linearised_step, err);
}
static void *create_b2(const weft_model *m, weft_config *cfg, weft_error *err) {
    return im_create(m, cfg, &weft_bdf2, linearised_tables, false, true, im_linearised_step, err);
}

const weft_solver_type weft_implicit_euler = {
    .name = "implicit_euler",
    .paper = "Baraff & Witkin 1998, eq. 6 (linearised backward Euler)",
    .iteration = "the step's one linear solve",
    .summary = "backward Euler linearised about x_n: one sparse solve per step, Rayleigh "
               "damping, filters for pins and contacts",
    .settings_size = sizeof(weft_implicit_settings),
    .settings = linearised_tables,
    .create = create_ie,
    .step = im_step,
    .destroy = im_destroy,
    .stats = im_profile,
    .fixed_iterations = 1,
    .linear_log = true,
    .caps = {.order = 1,
             .contact = "contacts as velocity filters of the linear solve (Baraff-Witkin)"},
};

const weft_solver_type weft_bdf2 = {
    .name = "bdf2",
    .paper = "Kim & Eberle 2020, ch. 8 (BDF2 as in Pixar's Fizt), linearised",
    .iteration = "the step's one linear solve",
    .summary = "second-order BDF linearised about x_n (first step backward Euler): less "
               "numerical damping than backward Euler",
    .settings_size = sizeof(weft_implicit_settings),
    .settings = linearised_tables,
    .create = create_b2,
    .step = im_step,
    .destroy = im_destroy,
    .stats = im_profile,
    .fixed_iterations = 1,
    .linear_log = true,
    .caps = {.order = 2,
             .contact = "contacts as velocity filters of the linear solve (Baraff-Witkin)"},
};
