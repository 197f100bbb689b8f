/* newton_smooth.c — Newton's nonlinear smoothing (smoothing_sweeps = s > 0; newton.c runs
 * it after or before each Newton step, [solver] smoothing_at): the graph and timing every
 * smoother shares, and the vertex smoother ([solver] smoother = vertex; the default, patch,
 * is newton_patch.c). Nonlinearly preconditioned Newton, in which each Newton iteration
 * holds s Gauss-Seidel sweeps of vertex block descent on the same
 * incremental potential G (Chen, Liu, Yang & Yuksel 2024, "Vertex Block Descent"; the
 * kernels are vertex_block.c's): a nonlinear Gauss-Seidel smoother composed with Newton,
 * one of the compositions of Brune, Knepley, Smith & Tu 2015, "Composing scalable nonlinear
 * algebraic solvers" (SIAM Review 57(4)).
 *
 * Vertex i (free, not pinned) moves with every other vertex fixed to lower its local
 * potential, G's terms that hold x_i:
 *     G_i(p) = m_i/(2ĥ²) |p − x̃_i|² + α m_i/(2ĥ) |p − a_i|² + Σ_{j ∋ i} Ψ_j,
 * by one 3×3 Newton step
 *     H_i Δx_i = f_i,  f_i = −∂G_i/∂x_i,  H_i = m_i (1/ĥ² + α/ĥ) I + Σ_j ∂²Ψ_j/∂x_i²,
 * with the exact element blocks where H_i is positive definite, else their PSD projections
 * (as [solver] hessian = adaptive does for the whole system). On an active contact (normal
 * n̂) the step is taken in the tangent plane: f_i ← (I − n̂n̂ᵀ) f_i,
 * H_i ← (I − n̂n̂ᵀ) H_i (I − n̂n̂ᵀ) + m_i/ĥ² n̂n̂ᵀ. The trial p = x_i + β Δx_i is projected as
 * Newton's line search projects its trial points (newton.c, project_trial): an active
 * contact back onto its collider's surface along the normal there, any other vertex that
 * went into a plane or sphere onto its surface, where it is caught. β halves from 1 until
 * G_i(p) < G_i(x_i) (at most SMOOTH_HALVINGS times, then the vertex stays); a step whose
 * predicted decrease f_i·Δx_i is below G_i's rounding is not taken. The vertices of one
 * colour share no element, so G falls by the sum of their decreases: a sweep never raises
 * G. Pinned vertices and those of zero inverse mass are never moved.
 *
 * Newton then goes on from the smoothed point with its own contact rule (pulling contacts
 * released), filters, residual (weft_residual) and stopping test; a pass counts inside its
 * iteration: the residual logged for iteration k is the one after the Newton step and the
 * smoothing of iteration k, in the order smoothing_at sets. The vertex smoother refuses
 * Rayleigh stiffness damping (damping_beta > 0), whose term couples every vertex to its
 * neighbours through K(x_n); the patches hold it.
 *
 * Passes per sweep: each free vertex evaluates the gradient and Hessian of each incident
 * element once and its energy once per trial (an element of nv vertices nv times per
 * sweep), as one iteration of vbd.
 */
#include "implicit_internal.h"

#define SMOOTH_HALVINGS 10 /* halvings of a vertex's step before it stays */

/* Per-thread counts of a colour, summed after it (integers: any order gives one sum). */
typedef struct smooth_counts {
    long updates, rejected, caught;
} smooth_counts;

int im_smooth_create(im_state *st, const weft_model *m, weft_error *err) {
    st->smoother = im_smoother_registry[st->set.smoother];
    if (st->set.smoothing_sweeps <= 0) return WEFT_OK;
    if (st->set.damping_beta > 0.0 && !st->smoother->damping_beta)
        return weft_fail(err, WEFT_ERR_INPUT,
                         "%s: smoother = %s needs damping_beta = 0 (the stiffness damping term "
                         "is not vertex-local; smoother = patch takes it)",
                         st->type->name, st->smoother->name);
    const size_t n = m->n > 0 ? (size_t)m->n : 1;
    st->smooth = calloc(1, sizeof *st->smooth);
    st->sm_x = malloc(3 * n * sizeof *st->sm_x);
    st->sm_g = malloc(3 * n * sizeof *st->sm_g);
    st->sm_cn = malloc(3 * n * sizeof *st->sm_cn);
    st->sm_contact = malloc(n * sizeof *st->sm_contact);
    if (!st->smooth || !st->sm_x || !st->sm_g || !st->sm_cn || !st->sm_contact)
        return weft_fail(err, WEFT_ERR_NOMEM, "%s: out of memory", st->type->name);
    int rc = vb_graph_build(st->smooth, m, st->type->name, err);
    if (rc || !st->smoother->create) return rc;
    return st->smoother->create(st, m, err);
}

void im_smooth_free(im_state *st) {
    if (st->smoother && st->smoother->destroy) st->smoother->destroy(st);
    free(st->sm_x), free(st->sm_g), free(st->sm_cn), free(st->sm_contact);
    st->sm_x = st->sm_g = st->sm_cn = NULL, st->sm_contact = NULL;
    if (!st->smooth) return;
    vb_graph_free(st->smooth);
    free(st->smooth);
    st->smooth = NULL;
}

/* G_i with vertex i at p (the other vertices at x). */
static double local_potential(const im_state *st, const weft_model *m, const double *x, int i,
                              const double *p, double hh) {
    const double *xt = &st->xt[3 * i], *a = &st->a[3 * i], al = st->set.damping_alpha;
    double G = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = p[k] - xt[k];
        G += 0.5 * m->mass[i] * d * d / (hh * hh);
    }
    if (al > 0.0)
        for (int k = 0; k < 3; k++) {
            double e = p[k] - a[k];
            G += 0.5 * al * m->mass[i] * e * e / hh;
        }
    return vb_vertex_energy(st->smooth, m, x, i, p, G);
}

void im_project_vertex(const weft_model *m, double t, int *c, double *p, double nrm[3]) {
    if (*c >= 0) {
        double d = weft_collider_distance_at(&m->colliders[*c], p, t, nrm) - m->contact_margin;
        for (int k = 0; k < 3; k++) p[k] -= d * nrm[k];
        return;
    }
    for (int j = 0; j < m->ncolliders; j++) {
        const weft_collider *col = &m->colliders[j];
        if (!weft_collider_type_of(col)->smooth) continue;
        double d = weft_collider_distance_at(col, p, t, nrm) - m->contact_margin;
        if (!(d < 0.0)) continue;
        for (int k = 0; k < 3; k++) p[k] -= d * nrm[k];
        *c = j;
        return;
    }
}

/* One vertex's step on x (in place; only x_i and its contact change). */
static void vertex_step(im_state *st, const weft_model *m, double *x, int i, double t1, double hh,
                        smooth_counts *cnt) {
    const double al = st->set.damping_alpha, mi = m->mass[i];
    const double cm = mi * (1.0 / (hh * hh) + al / hh);
    double *xi = &x[3 * i];
    double f[3], H[9], L[9], dx[3];
    bool ok = vb_vertex_block(st->smooth, m, x, i, WEFT_HESSIAN_EXACT, f, H);
    if (!ok) return;
    for (int k = 0; k < 3; k++) {
        f[k] -= mi * (xi[k] - st->xt[3 * i + k]) / (hh * hh);
        if (al > 0.0) f[k] -= al * mi * (xi[k] - st->a[3 * i + k]) / hh;
    }
    const int c0 = st->contact[i];
    const double *n = &st->cn[3 * i];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) { /* the exact block is not positive definite: the projected one */
            double fp[3];
            if (!vb_vertex_block(st->smooth, m, x, i, WEFT_HESSIAN_ANALYTIC, fp, H)) return;
        }
        for (int k = 0; k < 3; k++) H[4 * k] += cm;
        if (c0 >= 0) { /* H ← P H P + cm n̂n̂ᵀ, P = I − n̂n̂ᵀ */
            double P[9], PH[9];
            for (int r = 0; r < 3; r++)
                for (int s = 0; s < 3; s++) P[3 * r + s] = (r == s) - n[r] * n[s];
            for (int r = 0; r < 3; r++)
                for (int s = 0; s < 3; s++) {
                    double v = 0.0;
                    for (int q = 0; q < 3; q++) v += P[3 * r + q] * H[3 * q + s];
                    PH[3 * r + s] = v;
                }
            for (int r = 0; r < 3; r++)
                for (int s = 0; s < 3; s++) {
                    double v = cm * n[r] * n[s];
                    for (int q = 0; q < 3; q++) v += PH[3 * r + q] * P[3 * q + s];
                    H[3 * r + s] = v;
                }
        }
        if (weft_cholesky33(H, L)) break;
        if (pass == 1) return;
    }
    if (c0 >= 0) {
        double fn = weft_dot3(f, n);
        for (int k = 0; k < 3; k++) f[k] -= fn * n[k];
    }
    weft_cholesky33_solve(L, f, dx);
    const double G0 = local_potential(st, m, x, i, xi, hh);
    if (!(weft_dot3(f, dx) > G_ROUNDING * fabs(G0))) return; /* nothing G_i can resolve */
    double beta = 1.0;
    for (int bt = 0; bt <= SMOOTH_HALVINGS; bt++, beta *= 0.5) {
        double p[3], nrm[3];
        int c = c0;
        for (int k = 0; k < 3; k++) p[k] = xi[k] + beta * dx[k];
        if (m->ncolliders > 0) im_project_vertex(m, t1, &c, p, nrm);
        double G = local_potential(st, m, x, i, p, hh);
        if (G < G0) {
            for (int k = 0; k < 3; k++) xi[k] = p[k];
            if (c >= 0) {
                st->contact[i] = c;
                for (int k = 0; k < 3; k++) st->cn[3 * i + k] = nrm[k];
                if (c0 < 0) cnt->caught++;
            }
            cnt->updates++;
            return;
        }
    }
    cnt->rejected++;
}

int im_smooth(im_state *st, const weft_model *m, double t1, double hh, double *x) {
    double t0 = weft_now();
    int caught = st->smoother->smooth(st, m, t1, hh, x);
    st->stats.smooth_s += weft_now() - t0;
    return caught;
}

/* smoothing_sweeps Gauss-Seidel sweeps of vertex block descent. */
static int vertex_smooth(im_state *st, const weft_model *m, double t1, double hh, double *x) {
    const vb_graph *gr = st->smooth;
    long caught = 0;
    for (int s = 0; s < st->set.smoothing_sweeps; s++) {
        for (int c = 0; c < gr->ncolours; c++) {
            const int first = gr->colour_ptr[c], end = gr->colour_ptr[c + 1];
            long upd = 0, rej = 0, cau = 0;
#pragma omp parallel for num_threads(st->set.common.threads) schedule(static) \
    reduction(+ : upd, rej, cau)
            for (int k = first; k < end; k++) {
                const int i = gr->order[k];
                if (m->w[i] == 0.0) continue;
                smooth_counts cnt = {0};
                vertex_step(st, m, x, i, t1, hh, &cnt);
                upd += cnt.updates, rej += cnt.rejected, cau += cnt.caught;
            }
            st->stats.smooth_updates += upd;
            st->stats.smooth_rejected += rej;
            caught += cau;
        }
        st->stats.smooth_sweeps++;
    }
    return (int)caught;
}

const im_smoother_type im_smoother_vertex = {
    .name = "vertex",
    .smooth = vertex_smooth,
};

void im_smooth_save(im_state *st, const weft_model *m, double G) {
    const size_t n3 = 3 * (size_t)m->n;
    memcpy(st->sm_x, st->x, n3 * sizeof *st->x);
    memcpy(st->sm_g, st->g, n3 * sizeof *st->g);
    memcpy(st->sm_cn, st->cn, n3 * sizeof *st->cn);
    memcpy(st->sm_contact, st->contact, (size_t)m->n * sizeof *st->contact);
    st->sm_G = G;
}

double im_smooth_restore(im_state *st, const weft_model *m) {
    const size_t n3 = 3 * (size_t)m->n;
    memcpy(st->x, st->sm_x, n3 * sizeof *st->x);
    memcpy(st->g, st->sm_g, n3 * sizeof *st->g);
    memcpy(st->cn, st->sm_cn, n3 * sizeof *st->cn);
    memcpy(st->contact, st->sm_contact, (size_t)m->n * sizeof *st->contact);
    return st->sm_G;
}
