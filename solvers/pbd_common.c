/* pbd_common.c — the stages of Müller et al. 2006, Algorithm 1, that Gauss-Seidel and
 * Jacobi PBD share:
 *   (5)  v_i ← v_i + Δt w_i f_ext(x_i)                       external forces (gravity)
 *   (6)  dampVelocities                                      §3.5
 *   (7)  p_i ← x_i + Δt v_i                                  prediction (pins: scripted)
 *   (8)  generateCollisionConstraints(x_i → p_i)             §3.4 (colliders), §4.3 (self:
 *                                                            pbd_self.c)
 *   (13) v_i ← (p_i − x_i)/Δt,  (14) x_i ← p_i
 *   (16) velocityUpdate: friction and restitution of colliding vertices
 * plus the balloon constraint of §4.4 (eqs. 14–15) and the stiffness mapping of §3.3.
 */
#include "pbd_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Stiffness mapping (§3.3): after n_s iterations the error left by k' is
 * (1 − k')^{n_s} = 1 − k, independent of the iteration count. */
double pbd_mapped_stiffness(double k, int iterations, bool mapping) {
    if (!mapping || k >= 1.0) return k;
    if (k <= 0.0) return 0.0;
    return 1.0 - pow(1.0 - k, 1.0 / (double)iterations);
}

#define F(field) offsetof(weft_pbd_settings, field)
/* The rows that add physics to the model (WEFT_PARAM_MODEL) and their thickness, shared
 * by pbd_params and pbd_model_params. */
#define PBD_MODEL_ROWS                                                                         \
    {.key = "k_pressure", .type = WEFT_PARAM_DOUBLE, .offset = F(k_pressure), .unit = "1",     \
     .lo = 0, .hi = 100, .flags = WEFT_PARAM_MODEL, .dflt = 0,                                 \
     .doc = "§4.4 balloon overpressure V = k V0 (closed meshes; 0: none)"},                   \
    {.key = "self_collision", .type = WEFT_PARAM_BOOL, .offset = F(self_collision),           \
     .unit = "", .flags = WEFT_PARAM_MODEL, .dflt = 0,                                         \
     .doc = "§4.3 vertex-triangle self-collision constraints"},                               \
    {.key = "self_thickness", .type = WEFT_PARAM_DOUBLE, .offset = F(self_thickness),          \
     .unit = "m", .lo = 0, .hi = 1, .flags = WEFT_PARAM_LO_OPEN, .dflt = 0.005,                \
     .doc = "§4.3 cloth thickness kept between a vertex and a triangle"},
const weft_param pbd_params[] = {
    {.key = "k_stretch", .type = WEFT_PARAM_DOUBLE, .offset = F(k_stretch), .unit = "1",
     .lo = 0, .hi = 1, .dflt = 1, .doc = "distance constraint stiffness (1: hard)"},
    {.key = "k_bending", .type = WEFT_PARAM_DOUBLE, .offset = F(k_bending), .unit = "1",
     .lo = 0, .hi = 1, .dflt = 0.1, .doc = "dihedral bending constraint stiffness"},
    {.key = "k_damping", .type = WEFT_PARAM_DOUBLE, .offset = F(k_damping), .unit = "1",
     .lo = 0, .hi = 1, .dflt = 0.01, .doc = "§3.5 damping that keeps rigid-body motion"},
    {.key = "stiffness_mapping", .type = WEFT_PARAM_BOOL, .offset = F(stiffness_mapping),
     .unit = "", .dflt = 1, .doc = "§3.3 k' = 1 - (1 - k)^(1/iterations)"},
    PBD_MODEL_ROWS
    {0},
};

const weft_param pbd_model_params[] = {
    PBD_MODEL_ROWS
    {0},
};
#undef F

int pbd_model_changes(const weft_model *m, weft_model_change *out, int max) {
    int n = 0;
    for (int t = 0; t < m->nterms && n < max; t++)
        out[n++] = (weft_model_change){
            t,
            t == m->stretch_term   ? "distance constraints (pbd.k_stretch)"
            : t == m->bending_term ? "dihedral angle constraints (pbd.k_bending)"
                                   : "nothing (no PBD constraint)",
            false};
    return n;
}

int pbd_state_init(pbd_state *st, const weft_model *m, weft_config *cfg,
                   const weft_param_table *tables, weft_error *err) {
    weft_pbd_settings set = {0};
    weft_config_settings(cfg, tables, &set);
    return pbd_state_setup(st, m, cfg, &set, err);
}

int pbd_state_setup(pbd_state *st, const weft_model *m, const weft_config *cfg,
                    const weft_pbd_settings *set, weft_error *err) {
    memset(st, 0, sizeof *st);
    st->set = *set;
    if (weft_pressure_check(m, cfg, st->set.k_pressure, err)) return WEFT_ERR_INPUT;
    /* PBD's constraints are its own model (§4.1): one distance constraint per mesh edge
     * and one bending constraint per hinge, with rest values from the rest mesh and the
     * stiffness of [pbd]; the scene's energy terms are for energy-based solvers. */
    const weft_mesh *mesh = &m->mesh;
    if (mesh->ntet > 0) /* refused before anything is allocated */
        return weft_fail(err, WEFT_ERR_INPUT,
                         "position-based solvers have no tetrahedral constraints; a "
                         "tetrahedral mesh needs an energy-based solver (./weft list)");
    st->n = m->n;
    st->threads = st->set.common.threads;
    st->p = malloc(3 * (size_t)m->n * sizeof *st->p);
    st->w = malloc((size_t)m->n * sizeof *st->w);
    st->ndist = mesh->ne;
    st->nbend = mesh->nh;
    st->dist = malloc((size_t)(st->ndist + 1) * sizeof *st->dist);
    st->bend = malloc((size_t)(st->nbend + 1) * sizeof *st->bend);
    st->cap_contact = m->ncolliders > 0 ? m->n * m->ncolliders : 1;
    st->contact = malloc((size_t)st->cap_contact * sizeof *st->contact);
    st->balloon = st->set.k_pressure > 0.0;
    st->vgrad = st->balloon ? malloc(3 * (size_t)m->n * sizeof *st->vgrad) : NULL;
    if (!st->p || !st->w || !st->dist || !st->bend || !st->contact ||
        (st->balloon && !st->vgrad)) {
        pbd_state_free(st);
        return weft_fail(err, WEFT_ERR_NOMEM, "out of memory creating the PBD solver");
    }
    memcpy(st->w, m->w, (size_t)m->n * sizeof *st->w);
    /* Constraints in the model's order (edges sorted by vertex, hinges by edge): a fixed,
     * deterministic order whose vertex accesses are mostly local in memory. */
    for (int i = 0; i < st->ndist; i++) {
        const int a = mesh->edge[2 * i], b = mesh->edge[2 * i + 1];
        const double *pa = &mesh->x[3 * a], *pb = &mesh->x[3 * b];
        double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
        st->dist[i] = (pbd_distance){a, b, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])};
    }
    for (int i = 0; i < st->nbend; i++) {
        const int *v = &mesh->hinge[4 * i];
        const double *x = mesh->x;
        double theta0 = weft_hinge_angle(&x[3 * v[0]], &x[3 * v[1]], &x[3 * v[2]], &x[3 * v[3]], NULL);
        st->bend[i] = (pbd_bend){{v[0], v[1], v[2], v[3]}, theta0, {cos(theta0), sin(theta0)}};
    }
    int it = st->set.common.iterations;
    st->k_stretch = pbd_mapped_stiffness(st->set.k_stretch, it, st->set.stiffness_mapping);
    st->k_bend = pbd_mapped_stiffness(st->set.k_bending, it, st->set.stiffness_mapping);
    int rc = pbd_self_init(st, m, err);
    if (rc != WEFT_OK) pbd_state_free(st);
    return rc;
}

void pbd_state_free(pbd_state *st) {
    free(st->p), free(st->w), free(st->dist), free(st->bend), free(st->contact);
    free(st->vgrad);
    pbd_self_free(st);
    memset(st, 0, sizeof *st);
}

void pbd_stats(const void *state, weft_profile *out) {
    const pbd_timers *t = &((const pbd_state *)state)->timers;
    weft_profile_add(out, "predict", WEFT_PROFILE_TIMER, t->predict);
    weft_profile_add(out, "collide", WEFT_PROFILE_TIMER, t->collide);
    weft_profile_add(out, "project", WEFT_PROFILE_TIMER, t->project);
    weft_profile_add(out, "update", WEFT_PROFILE_TIMER, t->update);
    weft_profile_add(out, "projections", WEFT_PROFILE_COUNT, (double)t->projections);
    weft_profile_add(out, "self_contacts", WEFT_PROFILE_COUNT, (double)t->self_contacts);
}

/* Solves the symmetric 3×3 system A x = b by Cramer's rule; returns false if A is
 * (numerically) singular. */
static bool solve3(const double A[9], const double b[3], double x[3]) {
    double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8],
           c2 = A[3] * A[7] - A[4] * A[6];
    double det = A[0] * c0 + A[1] * c1 + A[2] * c2;
    double tr = A[0] + A[4] + A[8];
    if (!(fabs(det) > 1e-12 * tr * tr * tr)) return false;
    double inv[9] = {c0, A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                     c1, A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                     c2, A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
    for (int r = 0; r < 3; r++)
        x[r] = (inv[3 * r] * b[0] + inv[3 * r + 1] * b[1] + inv[3 * r + 2] * b[2]) / det;
    return true;
}

/* §3.5 on the vertices first .. end - 1: x_cm, v_cm, L = Σ r_i × m_i v_i,
 * I = Σ m_i r̃_i r̃_iᵀ, ω = I⁻¹ L, Δv_i = v_cm + ω × r_i − v_i, v_i ← v_i + k Δv_i. Only
 * free vertices take part: a pinned vertex's velocity is scripted. */
static void damp_range(const weft_model *m, double *v, double k, int first, int end) {
    const double *x = m->x;
    double M = 0.0, xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    for (int i = first; i < end; i++) {
        if (m->w[i] == 0.0) continue;
        double mi = m->mass[i];
        M += mi;
        for (int c = 0; c < 3; c++) xc[c] += mi * x[3 * i + c], vc[c] += mi * v[3 * i + c];
    }
    if (!(M > 0.0)) return;
    for (int c = 0; c < 3; c++) xc[c] /= M, vc[c] /= M;
    double L[3] = {0, 0, 0}, I[9] = {0};
    for (int i = first; i < end; i++) {
        if (m->w[i] == 0.0) continue;
        double mi = m->mass[i];
        double r[3] = {x[3 * i] - xc[0], x[3 * i + 1] - xc[1], x[3 * i + 2] - xc[2]};
        const double *vi = &v[3 * i];
        L[0] += mi * (r[1] * vi[2] - r[2] * vi[1]);
        L[1] += mi * (r[2] * vi[0] - r[0] * vi[2]);
        L[2] += mi * (r[0] * vi[1] - r[1] * vi[0]);
        /* r̃ r̃ᵀ = |r|² 1 − r rᵀ (r̃ the cross-product matrix, r̃ᵀ = −r̃) */
        double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) I[3 * a + b] += mi * ((a == b ? rr : 0.0) - r[a] * r[b]);
    }
    double w[3] = {0, 0, 0};
    if (!solve3(I, L, w)) w[0] = w[1] = w[2] = 0.0; /* collinear set: no rotation to keep */
    for (int i = first; i < end; i++) {
        if (m->w[i] == 0.0) continue;
        double r[3] = {x[3 * i] - xc[0], x[3 * i + 1] - xc[1], x[3 * i + 2] - xc[2]};
        double wr[3] = {w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2],
                        w[0] * r[1] - w[1] * r[0]};
        for (int c = 0; c < 3; c++) v[3 * i + c] += k * (vc[c] + wr[c] - v[3 * i + c]);
    }
}

/* §3.5 for each part of the scene on its own: the paper damps one object towards its
 * rigid motion, and two pieces of cloth that do not touch are two objects (damped as one,
 * a falling piece would be dragged towards the other's velocity). A model without
 * recorded parts is one object. */
void pbd_damp_velocities(const weft_model *m, double *v, double k) {
    if (!(k > 0.0)) return;
    if (m->nparts == 0) {
        damp_range(m, v, k, 0, m->n);
        return;
    }
    for (int p = 0; p < m->nparts; p++)
        damp_range(m, v, k, m->parts[p].first, m->parts[p].first + m->parts[p].nv);
}

/* §3.4. For every free vertex near a collider, one inequality constraint (p − q)·n ≥ 0:
 * - continuous: the ray x → p enters the collider (inflated by the contact margin) at
 *   q_c with normal n_c; this holds also when p ends outside again, beyond the far
 *   side (a fast vertex or a large step that would cross the whole collider);
 * - static: x is already inside or p ends near the surface; q_s is the closest surface
 *   point of p and n_s the normal there.
 * Vertices whose prediction stays within margin + max_j |p_j − x_j| of the surface
 * also get a (static) constraint, inactive unless other constraints push them in: the
 * paper generates constraints once per step, so without this band a vertex pulled into
 * a collider during the iterations would end the step inside. The band uses the
 * largest predicted move of any vertex, not the vertex's own: neighbours can drag a
 * slow vertex about as far as they move themselves (a cloth whose edge stops on the
 * sphere pulls the rest in). The continuous constraint is the tangent plane at the entry
 * point, whose outside lies entirely outside a convex collider.
 * A moving collider is met where it stands: x against the collider at t, p against it at
 * t + h, and the ray test in its frame (x − u t → p − u (t + h)); q is a point of its
 * surface at t + h, where p lives, and the band adds the collider's travel |u| h. The
 * entry test is the collider type's own (weft_contact_swept_entry): for a plane it
 * gives the same constraint as the closest point, for a box the face the ray enters. */
static void generate_contacts(pbd_state *st, const weft_model *m) {
    st->ncontact = 0;
    if (m->ncolliders == 0) return; /* no colliders: nothing to scan */
    double margin = m->contact_margin;
    double move = 0.0; /* largest predicted displacement of a free vertex this step */
    for (int i = 0; i < m->n; i++) {
        if (m->w[i] == 0.0) continue;
        const double *x = &m->x[3 * i], *p = &st->p[3 * i];
        move = fmax(move, sqrt((p[0] - x[0]) * (p[0] - x[0]) + (p[1] - x[1]) * (p[1] - x[1]) +
                               (p[2] - x[2]) * (p[2] - x[2])));
    }
    for (int i = 0; i < m->n; i++) {
        if (m->w[i] == 0.0) continue;
        const double *x = &m->x[3 * i], *p = &st->p[3 * i];
        for (int c = 0; c < m->ncolliders; c++) {
            const weft_collider *col = &m->colliders[c];
            const bool moving = weft_collider_moving(col);
            const double t0 = m->t, t1 = m->t + m->dt;
            /* The band grows by the collider's own travel u h: what counts is the motion
             * relative to it (a resting vertex that a fast obstacle sweeps past in one
             * step ends far from it, but crossed it). */
            const double *u = col->velocity;
            const double reach =
                moving ? move + m->dt * sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) : move;
            double np[3];
            double dp = weft_contact_gap(col, p, t1, margin, np);
            if (dp >= reach + margin) continue; /* far away: no constraint this step */
            pbd_contact *ct = &st->contact[st->ncontact++];
            ct->i = i;
            ct->collider = c;
            /* A path that does not enter (x inside, or p ends outside near the surface)
             * takes the closest point of p. */
            if (!weft_contact_swept_entry(col, x, t0, p, t1, margin, ct->q, ct->n))
                for (int k = 0; k < 3; k++) {
                    ct->n[k] = np[k];
                    ct->q[k] = p[k] - dp * np[k];
                }
            /* Normal velocity of the motion x → p relative to the collider, for
             * restitution in line 16. */
            double vn = weft_contact_path_approach(col, x, t0, p, t1, ct->n);
            ct->vn_before = vn / m->dt;
        }
    }
}

void pbd_project_contacts(pbd_state *st, double *p) {
    for (int c = 0; c < st->ncontact; c++) {
        const pbd_contact *ct = &st->contact[c];
        double *pi = &p[3 * ct->i];
        double C = (pi[0] - ct->q[0]) * ct->n[0] + (pi[1] - ct->q[1]) * ct->n[1] +
                   (pi[2] - ct->q[2]) * ct->n[2];
        if (C < 0.0) /* inequality: only when violated; one vertex, so Δp = −C n */
            for (int k = 0; k < 3; k++) pi[k] -= C * ct->n[k];
    }
    st->timers.projections += st->ncontact;
}

/* §4.4: C = V(p) − k_pressure V0 with V = (1/6) Σ_t (p_a × p_b)·p_c, and
 * ∇_{p_i} C = (1/6) Σ_{t ∋ i} p_b × p_c (the other two corners in cyclic order). */
void pbd_project_balloon(pbd_state *st, const weft_model *m, double *p, double *dp) {
    const weft_mesh *mesh = &m->mesh;
    double *g = st->vgrad;
    memset(g, 0, 3 * (size_t)m->n * sizeof *g);
    double V = 0.0;
    for (int t = 0; t < mesh->nt; t++) {
        const int *tri = &mesh->tri[3 * t];
        for (int a = 0; a < 3; a++) {
            const double *pb = &p[3 * tri[(a + 1) % 3]], *pc = &p[3 * tri[(a + 2) % 3]];
            double cr[3] = {pb[1] * pc[2] - pb[2] * pc[1], pb[2] * pc[0] - pb[0] * pc[2],
                            pb[0] * pc[1] - pb[1] * pc[0]};
            for (int k = 0; k < 3; k++) g[3 * tri[a] + k] += cr[k] / 6.0;
            if (a == 0) {
                const double *pa = &p[3 * tri[0]];
                V += (pa[0] * cr[0] + pa[1] * cr[1] + pa[2] * cr[2]) / 6.0;
            }
        }
    }
    double C = V - st->set.k_pressure * m->rest_volume;
    double denom = 0.0;
    for (int i = 0; i < m->n; i++)
        denom += st->w[i] * (g[3 * i] * g[3 * i] + g[3 * i + 1] * g[3 * i + 1] +
                             g[3 * i + 2] * g[3 * i + 2]);
    double s = denom > 0.0 ? C / denom : 0.0;
    for (int i = 0; i < m->n; i++)
        for (int k = 0; k < 3; k++) {
            double d = -s * st->w[i] * g[3 * i + k];
            if (dp)
                dp[3 * i + k] = d;
            else
                p[3 * i + k] += d;
        }
    st->timers.projections += 1;
}

int pbd_begin_step(pbd_state *st, weft_model *m, weft_error *err) {
    double t0 = weft_now();
    double h = m->dt;
    /* (5) external forces: f_ext = m g, so v += h w f = h g for free vertices. */
    for (int i = 0; i < m->n; i++)
        if (m->w[i] > 0.0)
            for (int k = 0; k < 3; k++) m->v[3 * i + k] += h * m->gravity[k];
    /* (6) damping that keeps rigid-body motion. */
    pbd_damp_velocities(m, m->v, st->set.k_damping);
    /* (7) prediction; pinned vertices go to their scripted position at t + h. */
    for (int i = 0; i < 3 * m->n; i++) st->p[i] = m->x[i] + h * m->v[i];
    weft_model_apply_pins(m, m->t + h, st->p);
    double t1 = weft_now();
    /* (8) collision constraints from the rays x → p: colliders, then the cloth itself. */
    generate_contacts(st, m);
    int rc = pbd_self_generate(st, m, err);
    double t2 = weft_now();
    st->timers.predict += t1 - t0;
    st->timers.collide += t2 - t1;
    return rc;
}

void pbd_end_step(pbd_state *st, weft_model *m) {
    double t0 = weft_now();
    double ih = 1.0 / m->dt;
    /* (12)–(15) */
    for (int i = 0; i < 3 * m->n; i++) {
        m->v[i] = (st->p[i] - m->x[i]) * ih;
        m->x[i] = st->p[i];
    }
    /* (16) velocity update of colliding vertices: restitution along n (the normal
     * velocity becomes at least −e times the incoming one) and Coulomb friction on the
     * tangential part, bounded by μ times the normal velocity change (Bridson 2002). All
     * of it acts on the velocity relative to the collider, v − u, so a moving collider
     * carries what rests on it. */
    for (int c = 0; c < st->ncontact; c++) {
        const pbd_contact *ct = &st->contact[c];
        const double *x = &m->x[3 * ct->i];
        double C = (x[0] - ct->q[0]) * ct->n[0] + (x[1] - ct->q[1]) * ct->n[1] +
                   (x[2] - ct->q[2]) * ct->n[2];
        if (C > 1e-9) continue; /* not touching its constraint at the end of the step */
        weft_contact_velocity_update(&m->colliders[ct->collider], x, m->t + m->dt,
                                     &m->v[3 * ct->i], ct->n, ct->vn_before);
    }
    m->t += m->dt;
    st->timers.update += weft_now() - t0;
}
