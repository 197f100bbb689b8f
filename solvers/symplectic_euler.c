/* symplectic_euler.c — the explicit baseline: semi-implicit (symplectic) Euler, which runs
 * any energy model through the descriptor's gradient (Hairer, Lubich & Wanner 2006,
 * "Geometric Numerical Integration", §I.1.2 and Theorem VI.3.3):
 *   v_{n+1} = v_n + h M⁻¹ (f_ext − ∇E(x_n)),   f_ext = M g,
 *   x_{n+1} = x_n + h v_{n+1}.
 * Velocity first, then positions with the new velocity: the map is symplectic (no energy
 * drift while stable), and a free body's linear and angular momentum are kept to rounding
 * (the internal forces of a translation- and rotation-invariant E sum to zero, no torque).
 *
 * Stable only while h ω_max < 2 (ω_max the highest natural frequency of M⁻¹∇²E), about
 * h < ℓ_min / c with c = √((λ + 2μ)/ρ) for an elastic solid (Courant-Friedrichs-Lewy).
 * Larger steps blow up and the run loop stops with "diverged": the stability baseline of
 * the implicit integrators, marked conditionally stable, run only when named.
 *
 * Pinned vertices go to their scripted position at t + h (weft_model_apply_pins), with
 * the velocity that takes them there. Contacts, after the position update, one pass over
 * the colliders in scene order (papers/contact.md): a free vertex closer than the margin is
 * projected onto the surface offset by it; if it moves inward, v_n becomes −e v_n and
 * Coulomb friction takes up to μ |Δv_n| off its tangential speed (Bridson, Fedkiw &
 * Anderson 2002), relative to a moving collider. The test is discrete (no ray cast): a
 * vertex that crosses a whole collider in one step is missed.
 *
 * One inner iteration = the single force evaluation. Iteration 0 is reported at the
 * inertial prediction x_n + h v_n + h² g (pins at t + h), as the PBD solvers report
 * theirs; iteration 1 is the new state.
 */
#include "weft_solvers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Scratch memory of a run, allocated once. */
typedef struct se_state {
    double *grad; /* ∇E(x_n), 3n, N */
    double *pred; /* inertial prediction with pins at t + h, 3n, m */
    double force_s, contacts_s; /* time in ∇E and in the collider pass, s */
    long projections;           /* vertices projected out of a collider */
} se_state;

static void se_destroy(void *state) {
    se_state *st = state;
    if (!st) return;
    free(st->grad), free(st->pred);
    free(st);
}

static void *se_create(const weft_model *m, weft_config *cfg, weft_error *err) {
    (void)cfg; /* no settings */
    se_state *st = calloc(1, sizeof *st);
    if (st) {
        st->grad = malloc(3 * (size_t)(m->n > 0 ? m->n : 1) * sizeof *st->grad);
        st->pred = malloc(3 * (size_t)(m->n > 0 ? m->n : 1) * sizeof *st->pred);
    }
    if (!st || !st->grad || !st->pred) {
        se_destroy(st);
        weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the symplectic Euler solver");
        return NULL;
    }
    return st;
}

/* Projects free vertices out of the colliders as they stand at time t and updates their
 * velocities (see the file comment); returns the number of projections. */
static long resolve_contacts(const weft_model *m, double t, double *x, double *v) {
    long projections = 0;
    for (int i = 0; i < m->n; i++) {
        if (m->w[i] == 0.0) continue;
        double *xi = &x[3 * i], *vw = &v[3 * i];
        for (int c = 0; c < m->ncolliders; c++) {
            const weft_collider *col = &m->colliders[c];
            double n[3];
            if (!(weft_contact_project(col, t, m->contact_margin, false, xi, n) < 0.0)) continue;
            projections++;
            const double *u = weft_collider_moving(col) ? col->velocity : NULL;
            double vn = weft_contact_normal_velocity(vw, n, u);
            if (!(vn < 0.0)) continue; /* already leaving: position fix only */
            /* Restitution from the velocity it arrives with: v_n becomes −e v_n. */
            weft_contact_velocity_update(col, xi, t, vw, n, vn);
        }
    }
    return projections;
}

static int se_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    (void)err;
    se_state *st = state;
    const double h = m->dt;
    const int n = m->n;
    double *x = m->x, *v = m->v, *p = st->pred;

    /* Iteration 0: where the step would go under the external forces alone. */
    weft_inertial_target(m, x, v, p);
    weft_model_apply_pins(m, m->t + h, p);
    weft_monitor_iteration(mon, p, 0);

    /* The one force evaluation, at x_n. */
    double t0 = weft_now();
    memset(st->grad, 0, 3 * (size_t)n * sizeof *st->grad);
    weft_model_gradient(m, x, st->grad);
    st->force_s += weft_now() - t0;
    for (int i = 0; i < n; i++) {
        double *xi = &x[3 * i], *vi = &v[3 * i];
        if (m->pin[i] >= 0) { /* scripted: reach the path's position at t + h */
            for (int k = 0; k < 3; k++) {
                vi[k] = (p[3 * i + k] - xi[k]) / h;
                xi[k] = p[3 * i + k];
            }
            continue;
        }
        const double *gi = &st->grad[3 * i];
        for (int k = 0; k < 3; k++) {
            vi[k] += h * (m->gravity[k] - m->w[i] * gi[k]);
            xi[k] += h * vi[k];
        }
    }
    if (m->ncolliders > 0) {
        t0 = weft_now();
        st->projections += resolve_contacts(m, m->t + h, x, v);
        st->contacts_s += weft_now() - t0;
    }
    m->t += h;
    weft_monitor_iteration(mon, x, 1);
    return WEFT_OK;
}

/* Timers force (∇E) and contacts (the collider pass), s; counter contact_projections. */
static void se_stats(const void *state, weft_profile *out) {
    const se_state *st = state;
    weft_profile_add(out, "force", WEFT_PROFILE_TIMER, st->force_s);
    weft_profile_add(out, "contacts", WEFT_PROFILE_TIMER, st->contacts_s);
    weft_profile_add(out, "contact_projections", WEFT_PROFILE_COUNT, (double)st->projections);
}

const weft_solver_type weft_symplectic_euler = {
    .name = "symplectic_euler",
    .paper = "Hairer, Lubich, Wanner 2006, sec. I.1.2 (explicit baseline)",
    .iteration = "the step's single force evaluation",
    .summary = "semi-implicit Euler v += h M^-1 f(x), x += h v; stable only below the CFL "
               "limit on h",
    .create = se_create,
    .step = se_step,
    .destroy = se_destroy,
    .stats = se_stats,
    .fixed_iterations = 1,
    .conditionally_stable = true,
    .caps = {.order = 1, .contact = "discrete contact response after the position update"},
};
