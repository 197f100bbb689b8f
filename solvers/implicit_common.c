/* implicit_common.c — what the implicit integrators (implicit_linearised.c, newton.c)
 * share: their settings, the state, the scheme's anchor, contacts and filters, the linear
 * solve, assembly and friction. implicit_internal.h holds the equations of both forms.
 */
#include "implicit_internal.h"
#include "ipc_contact.h"

#include <omp.h>
#include <stdarg.h>
#include <stddef.h>

/* clang-format off: one row per setting reads as a table. */
// clang-format off
#define F(field) offsetof(weft_implicit_settings, field)
static const char *const hessian_names[] = {"projected", "exact", "clamp", "adaptive", NULL};

const weft_param im_implicit_params[] = {
    {.key = "linear", .type = WEFT_PARAM_NAME, .offset = F(linear), .unit = "",
     .name_at = weft_linear_name_at, .dflt_name = "cholmod",
     .doc = "a registered linear solver for each system (its own section has its settings)"},
    {.key = "damping_alpha", .type = WEFT_PARAM_DOUBLE, .offset = F(damping_alpha),
     .unit = "1/s", .lo = 0, .hi = 1e6, .dflt = 0,
     .doc = "Rayleigh damping D = alpha M + beta K"},
    {.key = "damping_beta", .type = WEFT_PARAM_DOUBLE, .offset = F(damping_beta), .unit = "s",
     .lo = 0, .hi = 1e6, .dflt = 0, .doc = "Rayleigh damping's stiffness part"},
    {0},
};

const weft_param im_linearised_params[] = {
    {.key = "hessian", .type = WEFT_PARAM_NAME, .offset = F(hessian), .unit = "",
     .names = hessian_names, .dflt_name = "projected",
     .doc = "element Hessians: PSD-projected, exact (retried projected when not SPD), clamped "
            "by the generic eigensolver; adaptive is exact here"},
    {0},
};

const weft_param im_newton_params[] = {
    {.key = "tolerance", .type = WEFT_PARAM_DOUBLE, .offset = F(tolerance), .unit = "1",
     .lo = 0, .hi = 1, .flags = WEFT_PARAM_LO_OPEN, .dflt = 1e-6,
     .doc = "relative: Newton stops once its residual r <= tolerance max(r(x0), tolerance_abs) "
            "and r <= tolerance_abs"},
    {.key = "tolerance_abs", .type = WEFT_PARAM_DOUBLE, .offset = F(tolerance_abs), .unit = "N",
     .lo = 0, .hi = 1e12, .flags = WEFT_PARAM_LO_OPEN, .dflt = 1e-5,
     .doc = "absolute: Newton stops only once r <= tolerance_abs (r: the residual, docs/logs.md)"},
    {.key = "hessian", .type = WEFT_PARAM_NAME, .offset = F(hessian), .unit = "",
     .names = hessian_names, .dflt_name = "adaptive",
     .doc = "element Hessians: adaptive (exact in the iterations whose system is SPD, else "
            "projected), projected, exact (projected for the rest of a step after a not-SPD "
            "system), clamped by the generic eigensolver"},
    {0},
};
#undef F
// clang-format on

void im_destroy(void *state) {
    im_state *st = state;
    if (!st) return;
    weft_assembly_free(&st->as);
    weft_filter_destroy(&st->f);
    if (st->lin) st->linear->destroy(st->lin);
    double *v[] = {st->Kn_val, st->x, st->g, st->gE,     st->dx,    st->rhs,   st->xt,    st->a,
                   st->vbar,   st->w, st->q, st->xtrial, st->xprev, st->vprev, st->dmass, st->cn,
                   st->tcn,    st->vgrad, st->vz};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) free(v[i]);
    free(st->contact);
    free(st->tcontact);
    weft_ipc_free(st->ipc);
    free(st->ipc);
    free(st->settings);
    if (st->variant_free) st->variant_free(st);
    free(st);
}

void *im_create(const weft_model *m, weft_config *cfg, const weft_solver_type *type,
                const weft_param_table *tables, bool newton, bool bdf2, im_form form,
                weft_error *err) {
    im_state *st = calloc(1, sizeof *st);
    if (!st) goto nomem;
    st->type = type, st->newton = newton, st->bdf2 = bdf2, st->form = form, st->n = m->n;
    /* the whole settings block (a variant's extends weft_implicit_settings), then the
     * implicit part every form reads */
    if (!(st->settings = calloc(1, type->settings_size))) goto nomem;
    weft_config_settings(cfg, tables, st->settings);
    memcpy(&st->set, st->settings, sizeof st->set);
    size_t n = m->n > 0 ? (size_t)m->n : 1, n3 = 3 * n;
    double **v[] = {&st->x,    &st->g, &st->gE, &st->dx,     &st->rhs,   &st->xt,    &st->a,
                    &st->vbar, &st->w, &st->q,  &st->xtrial, &st->xprev, &st->vprev, &st->cn,
                    &st->tcn};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!(*v[i] = calloc(n3, sizeof(double)))) goto nomem;
    if (!(st->dmass = calloc(n, sizeof(double))) || !(st->contact = malloc(n * sizeof(int))) ||
        !(st->tcontact = malloc(n * sizeof(int))))
        goto nomem;
    for (size_t i = 0; i < n; i++) st->contact[i] = st->tcontact[i] = -1;
    if (weft_filter_create(&st->f, m->n, err)) goto fail;
    st->as = weft_assembly_create(m, err);
    if (!st->as) goto fail;
    st->A = weft_assembly_matrix(st->as);
    if (st->set.damping_beta > 0.0 &&
        !(st->Kn_val = malloc(9 * (size_t)(st->A->nnzb > 0 ? st->A->nnzb : 1) * sizeof(double))))
        goto nomem;
    st->linear = weft_linear_registry[st->set.linear];
    if (!(st->lin = st->linear->create(m->n, cfg, st->set.common.threads, err))) goto fail;
    return st;
nomem:
    weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the %s solver", type->name);
fail:
    im_destroy(st);
    return NULL;
}

void im_profile(const void *state, weft_profile *out) {
    const im_state *st = state;
    const im_stats *s = &st->stats;
    weft_linear_stats ls;
    st->linear->stats(st->lin, &ls);
    weft_profile_add(out, "assemble", WEFT_PROFILE_TIMER, s->assemble_s);
    weft_profile_add(out, "filter", WEFT_PROFILE_TIMER, s->filter_s);
    weft_profile_add(out, "linear", WEFT_PROFILE_TIMER, s->linear_s);
    weft_profile_add(out, "line_search", WEFT_PROFILE_TIMER, s->line_search_s);
    if (st->after_step) weft_profile_add(out, "smoothing", WEFT_PROFILE_TIMER, s->smooth_s);
    weft_profile_add(out, "setup", WEFT_PROFILE_TIMER, ls.setup_s);
    weft_profile_add(out, "factor", WEFT_PROFILE_TIMER, ls.factor_s);
    weft_profile_add(out, "solve", WEFT_PROFILE_TIMER, ls.solve_s);
    weft_profile_add(out, "newton_iterations", WEFT_PROFILE_COUNT, (double)s->newton_iterations);
    weft_profile_add(out, "linear_solves", WEFT_PROFILE_COUNT, (double)s->linear_solves);
    weft_profile_add(out, "linear_iterations", WEFT_PROFILE_COUNT, (double)s->linear_iterations);
    weft_profile_add(out, "backtracks", WEFT_PROFILE_COUNT, (double)s->backtracks);
    weft_profile_add(out, "contact_releases", WEFT_PROFILE_COUNT, (double)s->contact_releases);
    weft_profile_add(out, "fallbacks", WEFT_PROFILE_COUNT, (double)s->fallbacks);
    if (st->after_step) {
        weft_profile_add(out, "smoothing_sweeps", WEFT_PROFILE_COUNT, (double)s->smooth_sweeps);
        weft_profile_add(out, "smoothing_updates", WEFT_PROFILE_COUNT, (double)s->smooth_updates);
        weft_profile_add(out, "smoothing_rejected", WEFT_PROFILE_COUNT, (double)s->smooth_rejected);
    }
    if (st->ipc) { /* the contact model's share (ipc_contact.h) */
        weft_profile_add(out, "ipc_fill", WEFT_PROFILE_TIMER, st->ipc->fill_s);
        weft_profile_add(out, "ipc_ccd", WEFT_PROFILE_TIMER, st->ipc->ccd_s);
        weft_profile_add(out, "ipc_fills", WEFT_PROFILE_COUNT, (double)st->ipc->fills);
        weft_profile_add(out, "ipc_ccd_calls", WEFT_PROFILE_COUNT, (double)st->ipc->ccd_calls);
        /* IPC's own criterion ‖Δx‖∞/ĥ at a step's last Newton iteration, the largest over
         * the steps, in µm/s (the profile prints counts as integers) */
        weft_profile_add(out, "ipc_final_dx_over_h_um_s", WEFT_PROFILE_COUNT,
                         1e6 * st->ipc->dx_inf_h_max);
        if (st->ipc->adaptive) { /* κ's range over the run (J/m⁴), and its doublings */
            weft_profile_add(out, "ipc_kappa_lo", WEFT_PROFILE_COUNT,
                             isfinite(st->ipc->kappa_lo) ? st->ipc->kappa_lo : 0.0);
            weft_profile_add(out, "ipc_kappa_hi", WEFT_PROFILE_COUNT, st->ipc->kappa_hi);
            weft_profile_add(out, "ipc_kappa_raises", WEFT_PROFILE_COUNT,
                             (double)st->ipc->kappa_raises);
        }
        if (st->ipc->shift) { /* not-SPD systems shifted (newton.c shifted_solve) */
            weft_profile_add(out, "ipc_shifts", WEFT_PROFILE_COUNT, (double)st->ipc->shifts);
            weft_profile_add(out, "ipc_shift_solves", WEFT_PROFILE_COUNT,
                             (double)st->ipc->shift_solves);
            weft_profile_add(out, "ipc_shift_tau_max_x1000", WEFT_PROFILE_COUNT,
                             1e3 * st->ipc->tau_max);
            weft_profile_add(out, "ipc_shift_caps", WEFT_PROFILE_COUNT,
                             (double)st->ipc->shift_caps);
        }
        weft_profile_add(out, "ipc_corrections", WEFT_PROFILE_COUNT, /* newton.c */
                         (double)st->ipc->corrections);
        if (st->ipc->friction)
            weft_profile_add(out, "ipc_friction_builds", WEFT_PROFILE_COUNT,
                             (double)st->ipc->friction_builds);
    }
    weft_profile_add(out, "setups", WEFT_PROFILE_COUNT, (double)ls.setups);
    weft_profile_label(out, "ordering", ls.ordering ? ls.ordering : "none");
}

int im_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err) {
    im_state *st = state;
    st->mon = mon;
    /* A non-finite state (bad input, or a caller stepping on after a failure) is named
     * here rather than reported later as a failed solve or a non-finite potential. */
    for (int j = 0; j < 3 * m->n; j++)
        if (!isfinite(m->x[j]) || !isfinite(m->v[j]))
            return weft_fail(err, WEFT_ERR_DIVERGED,
                             "%s: step %d: non-finite %s of vertex %d "
                             "at the start of the step (t = %.6g s)",
                             st->type->name, st->step, isfinite(m->x[j]) ? "velocity" : "position",
                             j / 3, m->t);
    int rc = st->form(st, m, mon, err);
    st->step++;
    return rc;
}

/* ------------------------------------------------------------------------------ */
/* Pieces shared by both forms                                                     */
/* ------------------------------------------------------------------------------ */

/* Fails with code, the message "<prefix>: <err's current message>" (err may be NULL). */
int im_fail_because(weft_error *err, int code, const char *fmt, ...) {
    if (!err) return code;
    char why[sizeof err->msg], prefix[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    return weft_fail(err, code, "%s: %s", prefix, why[0] ? why : "unknown cause");
}

/* The scheme's ĥ, anchor a, velocity b̄ and target x̃ = a + ĥ b̄ + ĥ² g for this step. */
double im_setup_scheme(im_state *st, const weft_model *m) {
    const double h = m->dt;
    const bool two = st->bdf2 && st->have_prev;
    const double hh = two ? 2.0 * h / 3.0 : h;
    for (int i = 0; i < 3 * m->n; i++) {
        if (two) {
            st->a[i] = (4.0 * m->x[i] - st->xprev[i]) / 3.0;
            st->vbar[i] = (4.0 * m->v[i] - st->vprev[i]) / 3.0;
        } else {
            st->a[i] = m->x[i];
            st->vbar[i] = m->v[i];
        }
    }
    weft_inertial_target_h(m, st->a, st->vbar, hh, st->xt);
    return hh;
}

/* True for the colliders the filters handle (the smooth shapes: one normal per contact). */
static bool filtered_collider(const weft_collider *c) {
    return weft_collider_type_of(c)->smooth;
}

/* Free vertex i at x_i inside collider c at time t: moves it onto the surface (offset by
 * the margin) and records the contact. Returns true if it was inside. */
bool im_catch_contact(im_state *st, const weft_model *m, int i, double t, double *x) {
    int c = -1;
    double n[3];
    im_project_vertex(m, t, &c, &x[3 * i], n);
    if (c < 0) return false;
    st->contact[i] = c;
    memcpy(&st->cn[3 * i], n, sizeof n);
    return true;
}

void im_project_vertex(const weft_model *m, double t, int *c, double *p, double nrm[3]) {
    const double margin = m->contact_margin;
    if (*c >= 0) {
        weft_contact_project(&m->colliders[*c], t, margin, true, p, nrm);
        return;
    }
    for (int j = 0; j < m->ncolliders; j++) {
        if (!filtered_collider(&m->colliders[j])) continue;
        if (weft_contact_project(&m->colliders[j], t, margin, false, p, nrm) < 0.0) {
            *c = j;
            return;
        }
    }
}

/* Rebuilds the filters: pins (3 DOFs) and active contacts (1 DOF along the normal), with
 * prescribed values z from zpin (3n, or NULL for 0) and zc (per-vertex normal component,
 * or NULL for 0). */
int im_build_filters(im_state *st, const weft_model *m, const double *zpin, const double *zc,
                     weft_error *err) {
    weft_filter_free_all(&st->f);
    for (int i = 0; i < m->n; i++) {
        if (m->pin[i] >= 0) {
            const double zero[3] = {0, 0, 0};
            weft_filter_pin(&st->f, i, zpin ? &zpin[3 * i] : zero);
        } else if (st->contact[i] >= 0) {
            const double *n = &st->cn[3 * i];
            double s = zc ? zc[i] : 0.0;
            const double z[3] = {s * n[0], s * n[1], s * n[2]};
            if (weft_filter_plane(&st->f, i, n, z, err)) return WEFT_ERR_DIVERGED;
        }
    }
    return WEFT_OK;
}

/* Logs a linear solve's progress to "<log>.linear". */
static void linear_progress(int iter, double rel, const char *status, void *user) {
    im_state *st = user;
    weft_monitor_linear(st->mon, st->iter, iter, rel, status);
}

/* Solves A x = b on the filtered subspace with the configured linear solver. A solve
 * stopped at an iterative solver's cap is taken as an inexact solve: the step goes on
 * (the "cap" row of the linear log says so). */
weft_solve_status im_linear_solve(im_state *st, const double *b, double *x, weft_error *err) {
    double t0 = weft_now();
    st->stats.linear_solves++;
    int it = 0;
    weft_solve_status s = st->linear->solve(st->lin, st->A, &st->f, b, x, st->assembled_at,
                                            linear_progress, st, &it, err);
    st->stats.linear_iterations += it;
    if (s == WEFT_SOLVE_MAX_ITER) s = WEFT_SOLVE_CONVERGED;
    st->stats.linear_s += weft_now() - t0;
    return s;
}

weft_solve_status im_linear_resolve(im_state *st, const double *b, double *x, weft_error *err) {
    if (!st->linear->solve_factored) return im_linear_solve(st, b, x, err);
    double t0 = weft_now();
    st->stats.linear_solves++;
    weft_solve_status s = st->linear->solve_factored(st->lin, st->A, &st->f, b, x, err);
    st->stats.linear_s += weft_now() - t0;
    return s;
}

/* Adds s·B to block (i, j) of A, B = σ[p]× (the cross-product matrix of p, σ = ±1). */
static void add_cross_block(weft_bsr *A, int i, int j, const double p[3], double s) {
    int k = weft_bsr_block(A, i, j);
    if (k < 0) return; /* not reached: a triangle's vertices share an element */
    double *b = &A->val[9 * (size_t)k];
    b[1] -= s * p[2], b[2] += s * p[1];
    b[3] += s * p[2], b[5] -= s * p[0];
    b[6] -= s * p[1], b[7] += s * p[0];
}

void im_add_volume_hessian(weft_bsr *A, const weft_mesh *mesh, const double *x, double s) {
    const double c = s / 6.0;
    for (int t = 0; t < mesh->nt; t++) {
        const int *v = &mesh->tri[3 * t];
        for (int k = 0; k < 3; k++) {
            /* ∂(x_a · (x_b × x_c))/∂x_a∂x_b = −[x_c]×, for (a, b, c) each cyclic turn */
            const int a = v[k], b = v[(k + 1) % 3], cc = v[(k + 2) % 3];
            add_cross_block(A, a, b, &x[3 * cc], -c);
            add_cross_block(A, b, a, &x[3 * cc], c);
        }
    }
}

/* Assembles K (mode per [solver] hessian, or projected when force_projected) and ∇E at x
 * into A and gE; returns E(x), or +inf with the element named in err. */
double im_assemble(im_state *st, const weft_model *m, const double *x, bool force_projected,
                   weft_error *err) {
    double t0 = weft_now();
    const bool exact = st->set.hessian == WEFT_SOLVER_HESSIAN_EXACT ||
                       st->set.hessian == WEFT_SOLVER_HESSIAN_ADAPTIVE;
    weft_hessian_mode mode = exact && !force_projected
                                 ? WEFT_HESSIAN_EXACT
                             : st->set.hessian == WEFT_SOLVER_HESSIAN_CLAMP ? WEFT_HESSIAN_CLAMP
                                                                            : WEFT_HESSIAN_ANALYTIC;
    double E = weft_assembly_run(st->as, m, x, mode, st->gE, st->set.common.threads);
    st->assembled_at = x;
    if (!isfinite(E)) weft_assembly_check(st->as, err);
    st->stats.assemble_s += weft_now() - t0;
    return E;
}

/* Turns the assembled K into s K + diag(dmass) (A's values in place). */
void im_form_system(im_state *st, double s) {
    const size_t nv = 9 * (size_t)st->A->nnzb;
    if (s != 1.0)
        for (size_t k = 0; k < nv; k++) st->A->val[k] *= s;
    weft_bsr_add_diagonal(st->A, st->dmass);
}

/* Reports a not-SPD system once per run on stderr. */
void im_note_indefinite(im_state *st, const char *msg) {
    st->stats.fallbacks++;
    if (st->warned_indefinite) return;
    st->warned_indefinite = true;
    fprintf(stderr,
            "warning: %s: step %d: %s; solving with the PSD-projected Hessian instead "
            "(reported once; counted in the statistics)\n",
            st->type->name, st->step, msg);
}

/* Coulomb friction on the active contacts, on the velocities only: the tangential
 * velocity relative to the collider loses up to μ ĥ Fn / m_i (Fn = n̂·F ≥ 0, F the
 * per-vertex constraint force in F3, N). The positions stay the solve's, so a step solved
 * to tolerance hands back its converged point (papers/contact.md). */
void im_apply_friction(im_state *st, const weft_model *m, const double *F3, double hh, double *v) {
    for (int i = 0; i < m->n; i++) {
        int c = st->contact[i];
        if (c < 0 || m->pin[i] >= 0) continue;
        double fn = weft_dot3(&F3[3 * i], &st->cn[3 * i]);
        if (!(m->colliders[c].friction > 0.0) || !(fn > 0.0)) continue;
        /* The contact's impulse ĥ Fn changes the normal velocity by ĥ Fn / m_i, which
         * bounds the friction; the normal velocity itself is the solve's. */
        weft_contact_friction(&m->colliders[c], &m->x[3 * i], m->t + m->dt, &v[3 * i],
                              &st->cn[3 * i], hh * fn / m->mass[i]);
    }
}
