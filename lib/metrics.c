/* metrics.c — the common metrics of docs/architecture.md, computed by the same code for every
 * solver so that PBD and implicit methods land on the same axes:
 *   x̃ = xn + h vn + h² g                        (inertial target; f_ext = M g)
 *   G(x) = ½ (x − x̃)ᵀ M (x − x̃) / h² + E(x)    (backward-Euler incremental potential;
 *                                               BDF2: its own x̃ and h = 2/3 dt)
 *   residual = ‖r(x)‖₂, N: ∇G with the step's active constraints taken out
 *              (weft_residual, papers/residual.md); residual_rel = residual / residual(x⁰)
 *   strain = |ℓ − ℓ₀| / ℓ₀ per mesh edge (max, RMS)
 *   energy = ½ Σ m |(x − xn)/Δt|² − Σ m g·x + E(x), J
 *            (Δt the whole step, whatever substeps the solver takes; the kinetic part is
 *            the mean velocity over the step, which is what two written frames give)
 * Gravity enters G through x̃ (an affine shift), so ∇G is the same as with −Σ m g·x in E.
 * One report costs one pass over the elements: E and ∇E together. */
#include "weft.h"

#include <math.h>
#include <string.h>

void weft_inertial_target_h(const weft_model *m, const double *a, const double *b, double h,
                            double *xt) {
    for (int i = 0; i < m->n; i++)
        for (int k = 0; k < 3; k++)
            xt[3 * i + k] = a[3 * i + k] + h * b[3 * i + k] + h * h * m->gravity[k];
}

void weft_inertial_target(const weft_model *m, const double *xn, const double *vn, double *xt) {
    weft_inertial_target_h(m, xn, vn, m->dt, xt);
}

double weft_incremental_potential(const weft_model *m, const double *x, const double *xt,
                                  double *grad) {
    return weft_incremental_potential_h(m, x, xt, m->dt, grad);
}

/* G(x) and ∇G(x) (pinned DOFs zeroed) with E(x) in *E: one pass over the elements. */
static double potential_parts(const weft_model *m, const double *x, const double *xt, double h,
                              double *grad, double *E) {
    double h2 = h * h, inertia = 0.0;
    memset(grad, 0, 3 * (size_t)m->n * sizeof *grad);
    *E = weft_model_gradient(m, x, grad);
    for (int i = 0; i < m->n; i++) {
        for (int k = 0; k < 3; k++) {
            double d = x[3 * i + k] - xt[3 * i + k];
            inertia += 0.5 * m->mass[i] * d * d / h2;
            if (m->pin[i] >= 0)
                grad[3 * i + k] = 0.0; /* S: pinned DOFs are not unknowns */
            else
                grad[3 * i + k] += m->mass[i] * d / h2;
        }
    }
    return inertia + *E;
}

double weft_incremental_potential_h(const weft_model *m, const double *x, const double *xt,
                                    double h, double *grad) {
    double E;
    return potential_parts(m, x, xt, h, grad, &E);
}

int weft_residual_contact(const weft_model *m, const double *x, int i, double t, double *gap,
                          double n[3]) {
    int best = -1;
    for (int c = 0; c < m->ncolliders; c++) {
        const weft_collider *col = &m->colliders[c];
        if (!weft_collider_type_of(col)->smooth) continue;
        double nc[3];
        double g = weft_collider_distance_at(col, &x[3 * i], t, nc) - m->contact_margin;
        if (best < 0 || g < *gap) {
            best = c, *gap = g;
            n[0] = nc[0], n[1] = nc[1], n[2] = nc[2];
        }
    }
    return best;
}

/* The residual (papers/residual.md). Per free vertex i with a contact candidate (the
 * nearest smooth collider, gap g ≥ 0 outside), f_n = ∇G_i·n̂ and s = m_i/h²:
 *     r_i = ∇G_i + (min(f_n, s g) − f_n) n̂   when s g < f_n,   else r_i = ∇G_i.
 * On the surface (g = 0) a pushing contact (f_n > 0) loses its normal component and a
 * pulling one (f_n < 0) keeps it; s g is the force that would close the gap in one step
 * of the inertia metric, so a vertex a little off the surface counts that much, and one
 * inside (g < 0) counts s |g|. The vertices with g ≤ η (the contact margin: on the
 * surface, inside, or within one margin of it) are "at a contact": their share of ‖r‖²
 * goes to *r_contact as well. */
double weft_residual_split(const weft_model *m, const double *x, double t, double h,
                           const double *grad, double *r, double *r_contact) {
    const double h2 = h * h;
    double r2 = 0.0, rc2 = 0.0;
    for (int i = 0; i < m->n; i++) {
        double ri[3] = {grad[3 * i], grad[3 * i + 1], grad[3 * i + 2]};
        bool at_contact = false;
        if (m->pin[i] >= 0) {
            ri[0] = ri[1] = ri[2] = 0.0;
        } else if (m->ncolliders > 0) {
            double g = 0.0, n[3] = {0.0, 0.0, 0.0};
            if (weft_residual_contact(m, x, i, t, &g, n) >= 0) {
                double fn = ri[0] * n[0] + ri[1] * n[1] + ri[2] * n[2];
                double sg = m->mass[i] * g / h2;
                if (sg < fn)
                    for (int k = 0; k < 3; k++) ri[k] += (sg - fn) * n[k];
                at_contact = g <= m->contact_margin;
            }
        }
        const double q = ri[0] * ri[0] + ri[1] * ri[1] + ri[2] * ri[2];
        r2 += q;
        if (at_contact) rc2 += q;
        if (r)
            for (int k = 0; k < 3; k++) r[3 * i + k] = ri[k];
    }
    if (r_contact) *r_contact = sqrt(rc2);
    return sqrt(r2);
}

double weft_residual(const weft_model *m, const double *x, double t, double h,
                     const double *grad, double *r) {
    return weft_residual_split(m, x, t, h, grad, r, NULL);
}

void weft_strain(const weft_model *m, const double *x, double *cmax, double *crms) {
    /* Measured on the mesh's edges against their rest lengths, whatever the membrane
     * energy is (springs, triangles or tetrahedra), so every model is on the same axis. */
    const weft_mesh *mesh = &m->mesh;
    double mx = 0.0, sum = 0.0;
    for (int i = 0; i < mesh->ne; i++) {
        const int a = mesh->edge[2 * i], b = mesh->edge[2 * i + 1];
        double d2 = 0.0, r2 = 0.0;
        for (int k = 0; k < 3; k++) {
            double d = x[3 * a + k] - x[3 * b + k], r = mesh->x[3 * a + k] - mesh->x[3 * b + k];
            d2 += d * d, r2 += r * r;
        }
        double l0 = sqrt(r2);
        double s = fabs(sqrt(d2) - l0) / l0;
        if (s > mx) mx = s;
        sum += s * s;
    }
    *cmax = mx;
    *crms = mesh->ne ? sqrt(sum / mesh->ne) : 0.0;
}

void weft_metrics_compute(const weft_model *m, const double *x, const double *xn, double dt,
                          const double *xt, double h_target, double t, double r0,
                          double *scratch, weft_metrics *out) {
    const double h = dt; /* never m->dt: a substepping solver changes it inside its step */
    double E;
    potential_parts(m, x, xt, h_target, scratch, &E);
    out->residual = weft_residual_split(m, x, t, h_target, scratch, NULL, &out->residual_contact);
    /* A step that starts at its own solution (r0 = 0: free fall, where x̃ solves G) has no
     * residual to reduce; rounding may still leave ~1e-15 N, which must not read as an
     * infinite relative residual in the logs. */
    out->residual_rel = r0 > 0.0 ? out->residual / r0 : 0.0;
    weft_strain(m, x, &out->cmax, &out->crms);
    double kinetic = 0.0, grav = 0.0;
    for (int i = 0; i < m->n; i++) {
        for (int k = 0; k < 3; k++) {
            double v = (x[3 * i + k] - xn[3 * i + k]) / h;
            kinetic += 0.5 * m->mass[i] * v * v;
            grav -= m->mass[i] * m->gravity[k] * x[3 * i + k];
        }
    }
    out->energy = kinetic + grav + E;
    out->volume = m->mesh.closed ? weft_mesh_volume(&m->mesh, x) : 0.0;
}
