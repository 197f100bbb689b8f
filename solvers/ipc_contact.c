/* ipc_contact.c — the contact model `[contact] model = ipc` (ipc_contact.h): Incremental
 * Potential Contact, Li et al. 2020 (ACM TOG 39(4)) §4, with C-IPC's thickness ξ (Li,
 * Kaufman & Jiang 2021, ACM TOG 40(4), §3). papers/li2020-ipc.md has the whole.
 *
 * Barrier (Li 2020 eq. 5–6): B(x) = Σ_{k ∈ C(x)} b(d_k²), b of energies/ipc_barrier.c (κ in
 * J/m⁴, zero at d ≥ ξ + d̂, +∞ at d ≤ ξ), over the constraint set C(x) of close pairs:
 *   - cloth point–triangle and edge–edge pairs, classified (ipc_distance.c), edge–edge
 *     mollified (§4.3); candidates from a BVH grown by (ξ + d̂)/2, kept when lib/collision's
 *     closest-point distance is < ξ + d̂ (b vanishes there with two derivatives);
 *   - triangle-mesh obstacles ([collider.X] type = mesh) where they stand at t_{n+1}: cloth
 *     vertex–obstacle triangle, obstacle vertex–cloth triangle, edge–edge, the same
 *     barriers with the obstacle's corners held in the element (constants: their rows and
 *     columns left out);
 *   - a free vertex against an analytic collider where it stands at t_{n+1}: d = its gap
 *     (distance function − [collision] margin; a spinning sphere's does not change).
 * The set of a step only grows: each point x the solver evaluates adds the pairs close at
 * x that it lacks (a hash of their keys), each element exact in the positions, so B is
 * exact at every point of the step, and the Hessian's pattern changes only when a pair is
 * added (newton.c then makes a new assembly).
 * CCD filter (Li 2020 §4.2, Alg. 1 line 8): α ≤ 0.9 TOI of the whole motion, by
 * weft_ccd_step: separation ξ between cloth primitives and against the obstacles, ξ +
 * margin from a collider's surface, obstacles and colliders standing at t_{n+1}.
 * Moving colliders and obstacles (weft_ipc_carry): every iterate is measured against them
 * at t_{n+1}, where x_n may be inside; the start point carries by u h every vertex (of
 * every cloth primitive) that the sweep over [t_n, t_{n+1}] can bring within ξ + d̂, so in
 * the mover's frame it keeps its distance at t_n (> ξ) and every other one ends ≥ ξ + d̂
 * away: nothing tunnels, whatever the speed; the CCD checks the carry against the cloth.
 * Second-order correction (N&W 2006 §15.6): weft_ipc_correction moves back the cloth pairs
 * a trial step closed at second order (newton.c takes it where G falls).
 */
#include "ipc_contact.h"

#include "weft_ccd_step.h"
#include "weft_geometry.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Elements: one type (weft_ipc_barrier_type) of 4 vertices; k = κ, k2 = d̂, rest[0] = ξ,
 * rest[1] the kind: point–triangle (p, t0, t1, t2); edge–edge (a0, a1, b0, b1; rest[2]
 * ε_x); vertex–collider (v, v, v, v; rest[2] the collider type's registry index, rest[3]
 * the margin, rest[4..10] its parameters, rest[11..13] its offset u t_{n+1}; only the
 * first slot's rows non-zero); obstacle point–triangle (p, p, p, p), triangle–point (t0,
 * t0, t1, t2), edge–edge (a0, a1, a0, a0; rest[2] ε_x): the obstacle's slots (obstacle_
 * slots) hold their positions in rest[3..] in slot order, their rows zero. v[4], v[5]: the
 * collider, or the obstacle and its primitive (with the vertices and the kind, the key of
 * the step's set). */
enum { KIND_PT = 0, KIND_EE = 1, KIND_COLLIDER = 2, KIND_OBS_PT = 3, KIND_OBS_TP = 4,
       KIND_OBS_EE = 5 };

/* A collider's parameters an element holds (rest[4 .. 4 + COLLIDER_PARAMS − 1]), then its
 * offset (rest[11..13]). */
#define COLLIDER_PARAMS 7
#define COLLIDER_OFFSET 11

/* κ before adaptive κ's first value (J/m⁴; the step's start replaces it); until adaptive κ
 * was the default, the default κ: with d̂ = 1 mm it holds about 1e-3 N per vertex at
 * d = d̂/2 (|b'(s)| 2d ≈ 4.3 κ ŝ d), a 32² cloth vertex's weight at 0.1 kg/m². */
#define WEFT_IPC_KAPPA_DEFAULT 1e6

/* Most triangle-mesh obstacles a model under ipc may have. */
#define IPC_MAX_OBSTACLES 8

/* Fraction of the time of impact a Newton step may take (Li 2020 uses 0.8 – 0.9). */
#define IPC_TOI_FRACTION 0.9

/* ------------------------------------------------------------------------------ */
/* The element type                                                                */
/* ------------------------------------------------------------------------------ */

/* The collider of a vertex–collider element: its type (registry index rest[2]) and its
 * parameters (rest[4..]), standing still (where it stands at t = 0: the element's point
 * goes into its frame by the offset rest[11..13]). */
static weft_collider element_collider(const weft_element *e) {
    weft_collider c = {.type = weft_collider_registry[(int)e->rest[2]]};
    memcpy(c.param, &e->rest[4], COLLIDER_PARAMS * sizeof(double));
    return c;
}

/* The barrier b(d²) of a vertex against a collider, d its gap (distance − margin rest[3]),
 * through the collider's distance function: ∇d = n̂, ∇²d = S (the shape operator), so
 * ∇b = 2 d b' n̂ and ∇²b = (4 d² b'' + 2 b') n̂ n̂ᵀ + 2 d b' S. Projected: the first term
 * with its coefficient clamped at 0, the second left out (b' ≤ 0, so for a convex collider
 * it is negative semi-definite). */
static double collider_eval(const weft_element *e, const double *xe, const weft_ipc_params *p,
                            bool project, double *g, double *H) {
    const weft_collider col = element_collider(e);
    double n[3], S[9] = {0}, q[3];
    for (int k = 0; k < 3; k++) q[k] = xe[k] - e->rest[COLLIDER_OFFSET + k];
    const double d = weft_collider_distance(&col, q, n) - e->rest[3];
    if (g) memset(g, 0, 12 * sizeof *g);
    if (H) memset(H, 0, 144 * sizeof *H);
    if (!(d > p->xi)) return INFINITY;
    double db, d2b;
    const double b = weft_ipc_barrier(d * d, p, &db, &d2b);
    /* s = d², ∇s = 2d n̂, ∇²s = 2 n̂ n̂ᵀ: ∇²b = (4 d² b'' + 2 b') n̂ n̂ᵀ */
    double c = 4.0 * d * d * d2b + 2.0 * db;
    if (project && c < 0.0) c = 0.0;
    if (H && !project && db != 0.0) weft_collider_curvature_at(&col, q, 0.0, S);
    for (int k = 0; k < 3; k++) {
        if (g) g[k] = db * 2.0 * d * n[k];
        if (H)
            for (int l = 0; l < 3; l++)
                H[12 * k + l] = c * n[k] * n[l] + 2.0 * d * db * S[3 * k + l];
    }
    return b;
}

/* The slots of an obstacle element's kind that the obstacle holds (a bit each). */
static unsigned obstacle_slots(int kind) {
    return kind == KIND_OBS_PT ? 0xEu : kind == KIND_OBS_TP ? 0x1u : kind == KIND_OBS_EE ? 0xCu
                                                                                         : 0u;
}

/* y: an obstacle element's 4 corners, the cloth's from xe and the obstacle's where the
 * element holds them; returns the slots the obstacle holds (obstacle_slots). */
static unsigned obstacle_corners(const weft_element *e, const double *xe, double y[12]) {
    const unsigned fixed = obstacle_slots((int)e->rest[1]);
    memcpy(y, xe, 12 * sizeof *y);
    for (int a = 0, j = 0; a < 4; a++)
        if (fixed >> a & 1u) memcpy(&y[3 * a], &e->rest[3 + 3 * j++], 3 * sizeof(double));
    return fixed;
}

/* Ψ of an obstacle element: the cloth's barrier with the obstacle's slots at their stored
 * positions, their rows and columns zeroed (constants, not degrees of freedom; a principal
 * block of a PSD matrix is PSD, so the projection carries over). */
static double obstacle_eval(const weft_element *e, const double *xe, const weft_ipc_params *p,
                            bool project, double *g, double *H) {
    const int kind = (int)e->rest[1];
    double y[12];
    const unsigned fixed = obstacle_corners(e, xe, y);
    const double b = kind == KIND_OBS_EE ? weft_ipc_ee_energy(y, e->rest[2], p, project, g, H)
                                         : weft_ipc_pt_energy(y, p, project, g, H);
    for (int r = 0; r < 12; r++) {
        const bool out = fixed >> (r / 3) & 1u;
        if (g && out) g[r] = 0.0;
        for (int c = 0; H && c < 12; c++)
            if (out || (fixed >> (c / 3) & 1u)) H[12 * r + c] = 0.0;
    }
    return b;
}

/* Ψ of one barrier element, with gradient (12) and Hessian (12×12) where asked. */
static double barrier_eval(const weft_element *e, const double *xe, bool project, double *g,
                           double *H) {
    const weft_ipc_params p = {.kappa = e->k, .dhat = e->k2, .xi = e->rest[0]};
    switch ((int)e->rest[1]) {
    case KIND_PT: return weft_ipc_pt_energy(xe, &p, project, g, H);
    case KIND_EE: return weft_ipc_ee_energy(xe, e->rest[2], &p, project, g, H);
    case KIND_COLLIDER: return collider_eval(e, xe, &p, project, g, H);
    default: return obstacle_eval(e, xe, &p, project, g, H);
    }
}

static double barrier_energy(const weft_element *e, const double *xe) {
    return barrier_eval(e, xe, false, NULL, NULL);
}

static double barrier_gradient(const weft_element *e, const double *xe, double *g) {
    return barrier_eval(e, xe, false, g, NULL);
}

/* The pair's Hessian, exact in mode WEFT_HESSIAN_EXACT and PSD-projected in the others.
 * Newton (newton.c) assembles the barrier term projected, as Li 2020 (Alg. 1) does, in
 * every system but the first of an iteration under indefinite = shift: the pairs' exact
 * curvature b′ ∇²d (b′ < 0) grows without bound as d → 0 (against a sphere of radius R,
 * 2 d b′(d²)/R across the normal), where a shift of the whole system would have to follow
 * it; so the exact pairs are taken only where the whole system is SPD with them. */
static double barrier_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                              double *g, double *H) {
    return barrier_eval(e, xe, mode != WEFT_HESSIAN_EXACT, g, H);
}

const weft_energy_type weft_ipc_barrier_type = {
    .name = "ipc_barrier",
    .paper = "Li et al. 2020 §4 (IPC); Li, Kaufman & Jiang 2021 §3 (thickness)",
    .summary = "log barrier -k (s - s^)^2 ln(s/s^) on the squared distances of close pairs",
    .kind = WEFT_ELEM_VERTEX_FACE,
    .nv = 4,
    .energy = barrier_energy,
    .gradient = barrier_gradient,
    .hessian = barrier_hessian,
};

/* A friction element (Li 2020 §5): the pair's four points v (a vertex against a collider:
 * v, v, v, v, its weights 1, 0, 0, 0), k = εᵥh (m); rest[0..3] the closest-point weights
 * w, rest[4..9] the tangent basis P (3×2 row-major), rest[10..11] c = −Tᵀxⁿ (− Pᵀuₛh),
 * rest[12] μλ (N), all lagged; T = w ⊗ P. */
static double friction_eval(const weft_element *e, const double *xe, bool project, double *g,
                            double *H) {
    weft_ipc_friction f = {.n = 12, .c = {e->rest[10], e->rest[11]}, .mu_lambda = e->rest[12]};
    for (int a = 0; a < 12; a++)
        for (int c = 0; c < 2; c++) f.T[2 * a + c] = e->rest[a / 3] * e->rest[4 + 2 * (a % 3) + c];
    return weft_ipc_friction_energy(&f, xe, e->k, project, g, H);
}

static double friction_energy(const weft_element *e, const double *xe) {
    return friction_eval(e, xe, false, NULL, NULL);
}

static double friction_gradient(const weft_element *e, const double *xe, double *g) {
    return friction_eval(e, xe, false, g, NULL);
}

static double friction_hessian(const weft_element *e, const double *xe, weft_hessian_mode mode,
                               double *g, double *H) {
    return friction_eval(e, xe, mode != WEFT_HESSIAN_EXACT, g, H);
}

const weft_energy_type weft_ipc_friction_type = {
    .name = "ipc_friction",
    .paper = "Li et al. 2020 §5 (lagged smoothed Coulomb friction)",
    .summary = "mu lambda f0(|T'(x - x_n)|), T and lambda lagged",
    .kind = WEFT_ELEM_VERTEX_FACE,
    .nv = 4,
    .energy = friction_energy,
    .gradient = friction_gradient,
    .hessian = friction_hessian,
};

/* ------------------------------------------------------------------------------ */
/* Settings                                                                        */
/* ------------------------------------------------------------------------------ */

const char *const weft_contact_model_names[] = {"none", "ipc", NULL};
static const char *const indefinite_names[] = {"shift", "project", NULL};

/* d̂ of [contact] barrier_distance = relative, as a fraction of the cloth's bounding-box
 * diagonal at t = 0: IPC's own default (Li et al. 2020, d̂ = 1e-3 l). */
#define WEFT_IPC_DHAT_RELATIVE 1e-3

/* d̂ when [contact] barrier_distance is empty (the default), m. */
#define WEFT_IPC_DHAT_DEFAULT 1e-3

/* [contact] barrier_distance: a number in (0, 1] (m), "relative", or empty (1 mm). */
static bool check_dhat(const char *text, char *msg, size_t size) {
    if (!text[0] || !strcmp(text, "relative")) return true; /* empty: 1 mm */
    char *end;
    double d = strtod(text, &end);
    if (end == text || *end != '\0' || !(d > 0.0 && d <= 1.0)) {
        snprintf(msg, size, "'%s' is not a barrier distance: a number in (0, 1] m (or relative)",
                 text);
        return false;
    }
    return true;
}

/* [contact] stiffness: a number > 0 (J/m⁴) or "adaptive". */
static bool check_stiffness(const char *text, char *msg, size_t size) {
    if (!text[0] || !strcmp(text, "adaptive")) return true; /* empty: adaptive, the default */
    char *end;
    double k = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(k) || !(k > 0.0)) {
        snprintf(msg, size, "'%s' is not a stiffness: a number > 0 in J/m^4 (or adaptive)", text);
        return false;
    }
    return true;
}

const weft_param weft_contact_params[] = {
    {.key = "model", .type = WEFT_PARAM_NAME, .offset = offsetof(weft_contact_settings, model),
     .unit = "", .dflt_name = "none",
     .names = weft_contact_model_names,
     .doc = "contact model: none (the solver's own handling of colliders) or ipc (Li 2020 "
            "barrier; newton_euler, bdf2_newton: CCD-filtered line search, vbd: Chen 2024 bound)"},
    {.key = "barrier_distance", .type = WEFT_PARAM_STRING,
     .offset = offsetof(weft_contact_settings, barrier_distance), .unit = "m",
     .check = check_dhat,
     .doc = "ipc: activation distance d^ of the barrier (beyond the thickness), in (0, 1]; "
            "relative: 1e-3 of the cloth's bounding-box diagonal at t = 0 (IPC's default); "
            "empty (the default): 0.001 (the value in the log header)"},
    {.key = "thickness", .type = WEFT_PARAM_DOUBLE,
     .offset = offsetof(weft_contact_settings, thickness), .unit = "m", .lo = 0, .hi = 1,
     .dflt = 0, .doc = "ipc: C-IPC thickness xi, the distance the barrier keeps (infinite at xi)"},
    {.key = "stiffness", .type = WEFT_PARAM_STRING,
     .offset = offsetof(weft_contact_settings, stiffness), .unit = "J/m^4",
     .check = check_stiffness,
     .doc = "ipc: barrier stiffness kappa of b(s) = -kappa (s - s^)^2 ln(s/s^), s = d^2, "
            "fixed, or adaptive (the default, empty: Li 2020 4.3, bounds in the log header)"},
    {.key = "friction", .type = WEFT_PARAM_DOUBLE,
     .offset = offsetof(weft_contact_settings, friction), .unit = "1", .lo = 0, .hi = 10,
     .dflt = 0, .doc = "ipc: Coulomb coefficient mu of cloth-cloth contacts (lagged, mollified: "
                       "Li 2020 5); cloth-collider contacts take [collider.NAME] friction"},
    {.key = "friction_velocity", .type = WEFT_PARAM_DOUBLE,
     .offset = offsetof(weft_contact_settings, friction_velocity), .unit = "m/s", .lo = 0,
     .hi = 100, .flags = WEFT_PARAM_LO_OPEN, .dflt = 1e-3,
     .doc = "ipc: friction's static-to-dynamic velocity eps_v"},
    {.key = "friction_iterations", .type = WEFT_PARAM_INT,
     .offset = offsetof(weft_contact_settings, friction_iterations), .unit = "", .lo = 1,
     .hi = 100, .dflt = 1, .doc = "ipc: friction's lagging iterations per step"},
    {.key = "indefinite", .type = WEFT_PARAM_NAME,
     .offset = offsetof(weft_contact_settings, indefinite), .unit = "", .dflt_name = "shift",
     .names = indefinite_names,
     .doc = "ipc: Newton's system where the exact Hessian is not SPD ([solver] hessian = "
            "adaptive): shift (exact + least tau M/h^2 that factorises, Nocedal & Wright "
            "3.4) or project (every element PSD-projected)"},
    {.key = "shift_max", .type = WEFT_PARAM_DOUBLE,
     .offset = offsetof(weft_contact_settings, shift_max), .unit = "1", .lo = 1e-3, .hi = 1e6,
     .dflt = 8,
     .doc = "ipc, indefinite = shift: the largest shift tau (of M/h^2) tried (tau doubles "
            "from 1e-3, so 8 allows 4.1); where none up to it factorises, every element is "
            "PSD-projected; 1e6: no bound in practice"},
    {0},
};

/* ------------------------------------------------------------------------------ */
/* The model's state                                                               */
/* ------------------------------------------------------------------------------ */

/* Fails with "WHERE: contact.KEY: what" (WHERE from the config when it knows it). */
static int refuse(const weft_config *cfg, const char *key, weft_error *err, const char *what) {
    char w[330] = "";
    if (cfg) weft_config_where(cfg, "contact", key, w, sizeof w);
    return weft_fail(err, WEFT_ERR_INPUT, "%s%scontact.%s: %s", w, w[0] ? ": " : "", key, what);
}

int weft_contact_check_none(const weft_contact_settings *s, const weft_config *cfg,
                            weft_error *err) {
    static const weft_param_table table[] = {{"contact", weft_contact_params, 0}, {0}};
    weft_contact_settings dflt;
    weft_settings_default(table, &dflt);
    char a[WEFT_PARAM_STRING_MAX + 64], b[WEFT_PARAM_STRING_MAX + 64];
    for (const weft_param *p = weft_contact_params + 1; p->key; p++) {
        /* At its default it changes nothing (a written config.ini lists every key). */
        weft_param_format(p, 0, s, a, sizeof a);
        weft_param_format(p, 0, &dflt, b, sizeof b);
        if (strcmp(a, b) != 0)
            return refuse(cfg, p->key, err, "read only with [contact] model = ipc");
    }
    return WEFT_OK;
}

/* The free vertices' average mass (kg). */
static double average_mass(const weft_model *m) {
    double mass = 0.0;
    int free_v = 0;
    for (int i = 0; i < m->n; i++)
        if (m->pin[i] < 0 && m->w[i] > 0.0) mass += m->mass[i], free_v++;
    return free_v > 0 ? mass / free_v : 0.0;
}

/* The diagonal (m) of the bounding box of the n points x. */
static double bbox_diagonal(const double *x, int n) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], x[3 * i + k]), hi[k] = fmax(hi[k], x[3 * i + k]);
    return n > 0 ? sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                            (hi[2] - lo[2]) * (hi[2] - lo[2]))
                 : 0.0;
}

int weft_ipc_create(weft_ipc *ipc, const weft_contact_settings *s, const weft_model *m,
                    const weft_config *cfg, const char *solver, weft_error *err) {
    memset(ipc, 0, sizeof *ipc);
    ipc->term = -1, ipc->fterm = -1;
    ipc->npattern = -1; /* the first barrier term is a change of the model's pattern */
    if (m->nobstacles > IPC_MAX_OBSTACLES)
        return refuse(cfg, "model", err, "ipc runs at most 8 triangle-mesh obstacles");
    for (int k = 0; k < m->nobstacles; k++) /* its contacts' μ, as a collider's */
        ipc->friction |= m->obstacles[k].friction > 0.0;
    for (int c = 0; c < m->ncolliders; c++) {
        const weft_collider *col = &m->colliders[c];
        char what[200];
        snprintf(what, sizeof what, "collider.%s.restitution = %g: ipc has no restitution; "
                 "set it to 0", col->name, col->restitution);
        if (col->restitution != 0.0) return refuse(cfg, "model", err, what);
        ipc->friction |= col->friction > 0.0; /* its contacts' μ (weft_ipc_friction_build) */
    }
    for (int c = 0; c < m->ncolliders; c++)
        for (int k = COLLIDER_PARAMS; k < WEFT_COLLIDER_PARAM_MAX; k++)
            if (m->colliders[c].param[k] != 0.0)
                return refuse(cfg, "model", err, "ipc: a collider of this shape has more "
                                                 "parameters than a barrier element holds");
    (void)solver;
    ipc->mu = s->friction, ipc->eps_v = s->friction_velocity;
    ipc->lags = s->friction_iterations > 0 ? s->friction_iterations : 1;
    ipc->shift = s->indefinite == WEFT_CONTACT_SHIFT;
    ipc->tau_cap = s->shift_max;
    ipc->friction |= s->friction > 0.0;
    ipc->fterm = -1;
    ipc->adaptive = !s->stiffness[0] || !strcmp(s->stiffness, "adaptive"); /* the default */
    ipc->p.kappa = s->stiffness[0] && !ipc->adaptive ? strtod(s->stiffness, NULL)
                                                     : WEFT_IPC_KAPPA_DEFAULT;
    ipc->kappa_lo = INFINITY, ipc->kappa_hi = 0.0;
    ipc->bbox = bbox_diagonal(m->x_start, m->n);
    ipc->m_avg = average_mass(m);
    ipc->dt = m->dt;
    ipc->dhat_relative = !strcmp(s->barrier_distance, "relative");
    ipc->p.dhat = ipc->dhat_relative      ? WEFT_IPC_DHAT_RELATIVE * ipc->bbox
                  : s->barrier_distance[0] ? strtod(s->barrier_distance, NULL)
                                           : WEFT_IPC_DHAT_DEFAULT;
    if (!(ipc->p.dhat > 0.0))
        return refuse(cfg, "barrier_distance", err, "relative: the cloth's bounding box is a "
                                                    "point; give d^ in m");
    ipc->p.xi = s->thickness;
    ipc->margin = m->contact_margin;
    if (m->mesh.nt > 0 && !(ipc->bvh = weft_bvh_create(&m->mesh, m->x, err)))
        return weft_error_code(WEFT_ERR_NOMEM);
    if (m->nobstacles == 0 || m->mesh.nt == 0) return WEFT_OK;
    ipc->obs_bvh = calloc((size_t)m->nobstacles, sizeof *ipc->obs_bvh);
    ipc->obs_x = calloc((size_t)m->nobstacles, sizeof *ipc->obs_x);
    if (!ipc->obs_bvh || !ipc->obs_x) return weft_fail(err, WEFT_ERR_NOMEM, "ipc: out of memory");
    ipc->nobs = m->nobstacles;
    for (int k = 0; k < m->nobstacles; k++) {
        const weft_mesh *om = &m->obstacles[k].mesh;
        if (!(ipc->obs_x[k] = malloc(3 * (size_t)(om->nv + 1) * sizeof(double))))
            return weft_fail(err, WEFT_ERR_NOMEM, "ipc: out of memory");
        weft_obstacle_positions(&m->obstacles[k], 0.0, ipc->obs_x[k]);
        if (om->nt > 0 && !(ipc->obs_bvh[k] = weft_bvh_create(om, ipc->obs_x[k], err)))
            return weft_error_code(WEFT_ERR_NOMEM);
    }
    return WEFT_OK;
}

void weft_ipc_free(weft_ipc *ipc) {
    if (!ipc) return;
    free(ipc->pattern);
    free(ipc->table);
    weft_bvh_free(&ipc->bvh);
    weft_collision_pairs_free(&ipc->pairs);
    for (int k = 0; k < ipc->nobs; k++) {
        if (ipc->obs_bvh) weft_bvh_free(&ipc->obs_bvh[k]);
        if (ipc->obs_x) free(ipc->obs_x[k]);
    }
    free(ipc->obs_bvh);
    free(ipc->obs_x);
    weft_collision_pairs_free(&ipc->obs_pairs);
}

/* The key of an element in the step's set: its vertices, v[4], v[5] (collider, or
 * obstacle and primitive) and its tag (its kind). */
static unsigned long long key_hash(const int v[WEFT_ELEM_MAXV], int tag) {
    unsigned long long h = 1469598103934665603ull;
    for (int i = 0; i < 6; i++) h = (h ^ (unsigned)v[i]) * 1099511628211ull;
    return (h ^ (unsigned)tag) * 1099511628211ull;
}

/* The tag of element e (the part of its key besides v). */
static int elem_tag(const weft_element *e) { return (int)e->rest[1]; }

/* Makes the hash table hold every element of the term (size a power of 2 ≥ 2 n + 64). */
static int rehash(weft_ipc *ipc, const weft_term *t, weft_error *err) {
    int size = 64;
    while (size < 2 * t->n + 64) size *= 2;
    if (size != ipc->table_size) {
        int *p = realloc(ipc->table, (size_t)size * sizeof *p);
        if (!p) return weft_fail(err, WEFT_ERR_NOMEM, "ipc: out of memory");
        ipc->table = p, ipc->table_size = size;
    }
    for (int i = 0; i < size; i++) ipc->table[i] = -1;
    for (int i = 0; i < t->n; i++) {
        unsigned long long h = key_hash(t->elem[i].v, elem_tag(&t->elem[i]));
        size_t j = h & (size_t)(size - 1);
        while (ipc->table[j] >= 0) j = (j + 1) & (size_t)(size - 1);
        ipc->table[j] = i;
    }
    return WEFT_OK;
}

/* Adds e to m's barrier term unless the step's set holds it already (its array, owned by
 * the model, and the hash table grow as needed). */
static int add(weft_ipc *ipc, weft_model *m, const weft_element *e, weft_error *err) {
    weft_term *t = &m->terms[ipc->term];
    const int tag = elem_tag(e);
    const size_t mask = (size_t)ipc->table_size - 1;
    size_t j = key_hash(e->v, tag) & mask;
    for (; ipc->table[j] >= 0; j = (j + 1) & mask) {
        const weft_element *o = &t->elem[ipc->table[j]];
        if (!memcmp(o->v, e->v, sizeof e->v) && elem_tag(o) == tag) return WEFT_OK;
    }
    if (t->n == ipc->cap) {
        if (ipc->cap > (1 << 28)) return weft_fail(err, WEFT_ERR_NOMEM, "ipc: too many pairs");
        int grown = ipc->cap > 0 ? 2 * ipc->cap : 256;
        weft_element *p = realloc(t->elem, (size_t)grown * sizeof *p);
        if (!p) return weft_fail(err, WEFT_ERR_NOMEM, "ipc: out of memory");
        t->elem = p;
        ipc->cap = grown;
    }
    t->elem[t->n] = *e;
    ipc->table[j] = t->n++;
    return 2 * t->n + 64 > ipc->table_size ? rehash(ipc, t, err) : WEFT_OK;
}

/* The 12 coordinates of vertices v[0..3] of x. */
static void gather(const int v[4], const double *x, double xe[12]) {
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) xe[3 * a + k] = x[3 * (size_t)v[a] + k];
}

/* A barrier element of kind `kind` on vertices v, with the model's parameters. */
static weft_element element(const weft_ipc *ipc, int kind, const int v[4]) {
    weft_element e = {.v = {v[0], v[1], v[2], v[3]}, .k = ipc->p.kappa, .k2 = ipc->p.dhat};
    e.rest[0] = ipc->p.xi;
    e.rest[1] = kind;
    return e;
}

/* The cloth's close pairs at x: candidates from the BVH, then the classified distance. */
static int fill_mesh(weft_ipc *ipc, weft_model *m, const double *x, weft_error *err) {
    const weft_mesh *me = &m->mesh;
    const double reach = ipc->p.xi + ipc->p.dhat;
    int rc = weft_bvh_refit(ipc->bvh, x, NULL, reach, err);
    if (rc || (rc = weft_bvh_pairs(ipc->bvh, NULL, &ipc->pairs, err))) return rc;
    double xe[12];
    for (int i = 0; i < ipc->pairs.vt.n && rc == WEFT_OK; i++) {
        const int p = ipc->pairs.vt.pair[i].a, *t = &me->tri[3 * ipc->pairs.vt.pair[i].b];
        if (p == t[0] || p == t[1] || p == t[2]) continue;
        const int v[4] = {p, t[0], t[1], t[2]};
        gather(v, x, xe);
        double bary[3];
        if (!(weft_point_triangle_closest(xe, xe + 3, xe + 6, xe + 9, bary, NULL) < reach))
            continue;
        weft_element e = element(ipc, KIND_PT, v);
        rc = add(ipc, m, &e, err);
    }
    for (int i = 0; i < ipc->pairs.ee.n && rc == WEFT_OK; i++) {
        const int *a = &me->edge[2 * ipc->pairs.ee.pair[i].a];
        const int *b = &me->edge[2 * ipc->pairs.ee.pair[i].b];
        if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1]) continue;
        const int v[4] = {a[0], a[1], b[0], b[1]};
        gather(v, x, xe);
        double sa, sb;
        if (!(weft_edge_edge_closest(xe, xe + 3, xe + 6, xe + 9, &sa, &sb, NULL) < reach))
            continue;
        weft_element e = element(ipc, KIND_EE, v);
        double xr[12];
        gather(v, m->x_start, xr);
        e.rest[2] = weft_ipc_mollifier_eps(xr);
        rc = add(ipc, m, &e, err);
    }
    return rc;
}

/* An obstacle element of kind `kind` on cloth vertices v (the obstacle's slots too, as
 * placeholders), obstacle k's primitive `prim`, the obstacle's corners q (3 each, slot
 * order) stored. */
static weft_element obstacle_element(const weft_ipc *ipc, int kind, const int v[4], int k,
                                     int prim, const int *q, int nq) {
    weft_element e = element(ipc, kind, v);
    e.v[4] = k, e.v[5] = prim;
    for (int j = 0; j < nq; j++)
        memcpy(&e.rest[3 + 3 * j], &ipc->obs_x[k][3 * (size_t)q[j]], 3 * sizeof(double));
    return e;
}

/* The cloth's close pairs with obstacle k (standing at t1) at x: candidates of the cloth's
 * tree (refitted at x by fill_mesh) against the obstacle's, then the closest-point
 * distance. */
static int fill_obstacle(weft_ipc *ipc, weft_model *m, int k, const double *x, weft_error *err) {
    const weft_mesh *me = &m->mesh, *om = &m->obstacles[k].mesh;
    const double reach = ipc->p.xi + ipc->p.dhat, *ox = ipc->obs_x[k];
    int rc = weft_bvh_pairs(ipc->bvh, ipc->obs_bvh[k], &ipc->obs_pairs, err);
    const weft_collision_pairs *cp = &ipc->obs_pairs;
    double bary[3], sa, sb;
    for (int i = 0; i < cp->vt.n && rc == WEFT_OK; i++) { /* cloth vertex, obstacle triangle */
        const int p = cp->vt.pair[i].a, *t = &om->tri[3 * cp->vt.pair[i].b];
        if (!(weft_point_triangle_closest(&x[3 * p], &ox[3 * t[0]], &ox[3 * t[1]], &ox[3 * t[2]],
                                          bary, NULL) < reach))
            continue;
        const int v[4] = {p, p, p, p};
        weft_element e = obstacle_element(ipc, KIND_OBS_PT, v, k, cp->vt.pair[i].b, t, 3);
        rc = add(ipc, m, &e, err);
    }
    for (int i = 0; i < cp->tv.n && rc == WEFT_OK; i++) { /* cloth triangle, obstacle vertex */
        const int *t = &me->tri[3 * cp->tv.pair[i].a], q = cp->tv.pair[i].b;
        if (!(weft_point_triangle_closest(&ox[3 * q], &x[3 * t[0]], &x[3 * t[1]], &x[3 * t[2]],
                                          bary, NULL) < reach))
            continue;
        const int v[4] = {t[0], t[0], t[1], t[2]};
        weft_element e = obstacle_element(ipc, KIND_OBS_TP, v, k, q, &q, 1);
        rc = add(ipc, m, &e, err);
    }
    for (int i = 0; i < cp->ee.n && rc == WEFT_OK; i++) { /* cloth edge, obstacle edge */
        const int *a = &me->edge[2 * cp->ee.pair[i].a], *b = &om->edge[2 * cp->ee.pair[i].b];
        if (!(weft_edge_edge_closest(&x[3 * a[0]], &x[3 * a[1]], &ox[3 * b[0]], &ox[3 * b[1]],
                                     &sa, &sb, NULL) < reach))
            continue;
        const int v[4] = {a[0], a[1], a[0], a[0]};
        weft_element e = obstacle_element(ipc, KIND_OBS_EE, v, k, cp->ee.pair[i].b, b, 2);
        double xr[12]; /* ε_x from the rest positions: the cloth's at t = 0, the obstacle's */
        for (int j = 0; j < 2; j++) {
            memcpy(&xr[3 * j], &m->x_start[3 * (size_t)a[j]], 3 * sizeof(double));
            memcpy(&xr[6 + 3 * j], &om->x[3 * (size_t)b[j]], 3 * sizeof(double));
        }
        e.rest[2] = weft_ipc_mollifier_eps(xr);
        rc = add(ipc, m, &e, err);
    }
    return rc;
}

/* Every free vertex within reach of an analytic collider at x: an element holding the
 * collider (its type's registry index, the margin and its parameters). */
static int fill_colliders(weft_ipc *ipc, weft_model *m, const double *x, weft_error *err) {
    const double reach = ipc->p.xi + ipc->p.dhat;
    int rc = WEFT_OK;
    for (int i = 0; i < m->n && rc == WEFT_OK; i++) {
        if (m->pin[i] >= 0 || m->w[i] == 0.0) continue;
        for (int c = 0; c < m->ncolliders && rc == WEFT_OK; c++) {
            const weft_collider *col = &m->colliders[c];
            if (!(weft_contact_gap(col, &x[3 * (size_t)i], ipc->t1, ipc->margin, NULL) < reach))
                continue;
            const int v[4] = {i, i, i, i};
            weft_element e = element(ipc, KIND_COLLIDER, v);
            int ti = 0;
            while (weft_collider_registry[ti] != col->type) ti++;
            e.v[4] = c; /* its index: part of the key (not read by the energy) */
            e.rest[2] = ti;
            e.rest[3] = ipc->margin;
            memcpy(&e.rest[4], col->param, COLLIDER_PARAMS * sizeof(double));
            for (int k = 0; weft_collider_moving(col) && k < 3; k++) /* where it is at t1 */
                e.rest[COLLIDER_OFFSET + k] = col->velocity[k] * ipc->t1;
            rc = add(ipc, m, &e, err);
        }
    }
    return rc;
}

int weft_ipc_begin_step(weft_ipc *ipc, weft_model *m, weft_error *err) {
    if (ipc->term < 0) {
        if (m->nterms == WEFT_MAX_TERMS)
            return weft_fail(err, WEFT_ERR_INPUT, "ipc: the model has %d energy terms already",
                             m->nterms);
        ipc->term = m->nterms++;
        m->terms[ipc->term] = (weft_term){.type = &weft_ipc_barrier_type};
    }
    weft_term *term = &m->terms[ipc->term];
    WEFT_ASSERT(term->type == &weft_ipc_barrier_type);
    term->n = 0;
    if (ipc->fterm >= 0 && m->terms[ipc->fterm].n > 0) /* last step's friction: gone */
        m->terms[ipc->fterm].n = 0, ipc->npattern = -1;
    ipc->t1 = m->t + m->dt;
    const double reach = ipc->p.xi + ipc->p.dhat;
    for (int k = 0; k < ipc->nobs; k++) { /* where they stand at t1, boxes grown */
        weft_obstacle_positions(&m->obstacles[k], ipc->t1, ipc->obs_x[k]);
        int rc = ipc->obs_bvh[k] ? weft_bvh_refit(ipc->obs_bvh[k], ipc->obs_x[k], NULL, reach, err)
                                 : WEFT_OK;
        if (rc) return rc;
    }
    return rehash(ipc, term, err);
}

int weft_ipc_fill(weft_ipc *ipc, weft_model *m, const double *x, weft_error *err) {
    double t0 = weft_now();
    WEFT_ASSERT(ipc->term >= 0 && ipc->table); /* weft_ipc_begin_step came first */
    int rc = ipc->bvh ? fill_mesh(ipc, m, x, err) : WEFT_OK;
    for (int k = 0; k < ipc->nobs && rc == WEFT_OK; k++)
        if (ipc->obs_bvh[k]) rc = fill_obstacle(ipc, m, k, x, err);
    if (rc == WEFT_OK) rc = fill_colliders(ipc, m, x, err);
    ipc->fills++;
    ipc->fill_s += weft_now() - t0;
    return rc;
}

bool weft_ipc_pattern_changed(weft_ipc *ipc, const weft_model *m) {
    if (ipc->term < 0) return false; /* no barrier term yet: the pattern is the model's */
    const weft_term *t = &m->terms[ipc->term];
    bool same = t->n == ipc->npattern;
    for (int i = 0; same && i < t->n; i++)
        same = !memcmp(t->elem[i].v, &ipc->pattern[4 * (size_t)i], 4 * sizeof(int));
    if (same) return false;
    if (t->n > ipc->cap_pattern) {
        int *p = realloc(ipc->pattern, 4 * (size_t)t->n * sizeof *p);
        if (!p) return ipc->npattern = -1, true;
        ipc->pattern = p, ipc->cap_pattern = t->n;
    }
    for (int i = 0; i < t->n; i++)
        memcpy(&ipc->pattern[4 * (size_t)i], t->elem[i].v, 4 * sizeof(int));
    ipc->npattern = t->n;
    return true;
}

/* Claims free vertex i for a carry by u (by[i]); false when another velocity claimed it. */
static bool claim(const weft_model *m, const double **by, int i, const double *u) {
    if (m->pin[i] >= 0 || m->w[i] == 0.0) return true;
    const double *o = by[i];
    if (o && (o[0] != u[0] || o[1] != u[1] || o[2] != u[2])) return false;
    by[i] = u;
    return true;
}

/* Claims for moving collider c every free vertex whose distance to it at t_n is below
 * reach + |u| h (file comment). */
static bool claim_collider(const weft_ipc *ipc, const weft_model *m, int c, const double **by) {
    const weft_collider *col = &m->colliders[c];
    const double *u = col->velocity, reach = ipc->p.xi + ipc->p.dhat;
    const double len = m->dt * sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int i = 0; i < m->n; i++)
        if (weft_contact_gap(col, &m->x[3 * (size_t)i], m->t, ipc->margin, NULL) < reach + len &&
            !claim(m, by, i, u))
            return false;
    return true;
}

/* Claims for moving obstacle k the cloth vertices of every cloth primitive whose box at x_n
 * meets the obstacle's box swept over [t_n, t1], both grown by reach/2: a primitive not
 * claimed never comes within reach of the obstacle as it sweeps, and a primitive with
 * some corners carried stays within that sweep in the obstacle's frame. Leaves the
 * obstacle's tree fitted at t1 (fill_obstacle's) and the cloth's at x_n. */
static int claim_obstacle(weft_ipc *ipc, const weft_model *m, int k, const double **by,
                          bool *clash, weft_error *err) {
    const weft_obstacle *ob = &m->obstacles[k];
    const double reach = ipc->p.xi + ipc->p.dhat;
    double *x0 = malloc(3 * (size_t)(ob->mesh.nv + 1) * sizeof *x0);
    if (!x0) return weft_fail(err, WEFT_ERR_NOMEM, "ipc: out of memory");
    weft_obstacle_positions(ob, m->t, x0);
    int rc = weft_bvh_refit(ipc->bvh, m->x, NULL, reach, err);
    if (!rc) rc = weft_bvh_refit(ipc->obs_bvh[k], x0, ipc->obs_x[k], reach, err);
    if (!rc) rc = weft_bvh_pairs(ipc->bvh, ipc->obs_bvh[k], &ipc->obs_pairs, err);
    if (!rc) rc = weft_bvh_refit(ipc->obs_bvh[k], ipc->obs_x[k], NULL, reach, err);
    free(x0);
    const weft_collision_pairs *cp = &ipc->obs_pairs;
    const weft_mesh *me = &m->mesh;
    for (int i = 0; !rc && i < cp->vt.n; i++)
        *clash |= !claim(m, by, cp->vt.pair[i].a, ob->velocity);
    for (int i = 0; !rc && i < cp->tv.n; i++)
        for (int j = 0; j < 3; j++)
            *clash |= !claim(m, by, me->tri[3 * cp->tv.pair[i].a + j], ob->velocity);
    for (int i = 0; !rc && i < cp->ee.n; i++)
        for (int j = 0; j < 2; j++)
            *clash |= !claim(m, by, me->edge[2 * cp->ee.pair[i].a + j], ob->velocity);
    return rc;
}

/* True when obstacle k moves. */
static bool obstacle_moving(const weft_model *m, int k) {
    const double *u = m->obstacles[k].velocity;
    return u[0] != 0.0 || u[1] != 0.0 || u[2] != 0.0;
}

/* The carry (file comment): a moving collider claims every free vertex within reach + |u| h
 * of it at t_n (the distance is 1-Lipschitz, so the sweep brings no other vertex within
 * reach); a moving obstacle claims the corners of every cloth primitive whose box at x_n
 * meets its swept box (claim_obstacle). A claimed vertex moves by u h: in the mover's
 * frame it stands still. */
int weft_ipc_carry(weft_ipc *ipc, const weft_model *m, double *xc, weft_error *err) {
    const size_t n3 = 3 * (size_t)m->n;
    memcpy(xc, m->x, n3 * sizeof *xc);
    bool moving = false, clash = false, any = false;
    for (int c = 0; c < m->ncolliders; c++) moving |= weft_collider_moving(&m->colliders[c]);
    for (int k = 0; k < ipc->nobs; k++) moving |= obstacle_moving(m, k);
    if (!moving) return WEFT_OK;
    const double **by = calloc((size_t)m->n + 1, sizeof *by);
    if (!by) return weft_fail(err, WEFT_ERR_NOMEM, "ipc: out of memory");
    int rc = WEFT_OK;
    for (int c = 0; c < m->ncolliders && !clash; c++)
        if (weft_collider_moving(&m->colliders[c])) clash = !claim_collider(ipc, m, c, by);
    for (int k = 0; k < ipc->nobs && !clash && !rc; k++)
        if (obstacle_moving(m, k) && ipc->obs_bvh[k])
            rc = claim_obstacle(ipc, m, k, by, &clash, err);
    for (int i = 0; i < m->n && !clash; i++) {
        for (int k = 0; by[i] && k < 3; k++) xc[3 * i + k] += by[i][k] * m->dt;
        any |= by[i] != NULL;
    }
    free(by);
    if (rc) return rc;
    if (clash)
        return weft_fail(err, WEFT_ERR_DIVERGED, "ipc: t = %g s: a vertex is within one step's "
                         "reach of two colliders or obstacles moving differently; a smaller dt "
                         "is needed", m->t);
    if (!any || m->mesh.nt == 0) return WEFT_OK;
    /* the carry is a motion: the CCD says it brings no cloth pair within ξ, nor the cloth
     * within ξ of a static obstacle (the moving ones: claim_obstacle) */
    double *dx = malloc((n3 + 1) * sizeof *dx);
    if (!dx) return weft_fail(err, WEFT_ERR_NOMEM, "ipc: out of memory");
    for (size_t j = 0; j < n3; j++) dx[j] = xc[j] - m->x[j];
    weft_ccd_step_options o = weft_ccd_step_options_default();
    o.fraction = 1.0, o.separation = ipc->p.xi;
    weft_ccd_step_obstacle obs[IPC_MAX_OBSTACLES];
    int nobs = 0;
    for (int k = 0; k < ipc->nobs; k++)
        if (!obstacle_moving(m, k))
            obs[nobs++] = (weft_ccd_step_obstacle){&m->obstacles[k].mesh, ipc->obs_x[k]};
    weft_ccd_step_stats stats;
    double alpha;
    rc = weft_ccd_step(&m->mesh, m->x, dx, nobs, obs, 0, NULL, ipc->t1, &o, &alpha, &stats, err);
    free(dx);
    if (rc == WEFT_OK && stats.kind != WEFT_CCD_STEP_NONE)
        rc = weft_fail(err, WEFT_ERR_DIVERGED, "ipc: t = %g s: carrying the cloth with a moving "
                       "collider brings two of its primitives within the thickness (pair kind "
                       "%d: %d, %d); a smaller dt is needed", m->t, stats.kind, stats.a, stats.b);
    return rc;
}

int weft_ipc_step_bound(weft_ipc *ipc, const weft_model *m, const double *x, const double *dx,
                        double t, double *alpha, weft_error *err) {
    double t0 = weft_now();
    weft_ccd_step_options o = weft_ccd_step_options_default();
    o.fraction = IPC_TOI_FRACTION;
    /* the cloth against itself, separation ξ; then its vertices against the colliders,
     * separation ξ + margin (the barrier's d there is the gap beyond the margin) */
    o.separation = ipc->p.xi;
    weft_ccd_step_obstacle obs[IPC_MAX_OBSTACLES];
    const int nobs = ipc->nobs;
    for (int k = 0; k < nobs; k++) obs[k] = (weft_ccd_step_obstacle){&m->obstacles[k].mesh,
                                                                     ipc->obs_x[k]};
    int rc = weft_ccd_step(&m->mesh, x, dx, nobs, obs, 0, NULL, t, &o, alpha, NULL, err);
    if (rc == WEFT_OK && m->ncolliders > 0) {
        weft_mesh points = {.nv = m->mesh.nv}; /* no triangles: the vertices alone */
        double ac;
        o.separation = ipc->p.xi + ipc->margin;
        rc = weft_ccd_step(&points, x, dx, 0, NULL, m->ncolliders, m->colliders, t, &o, &ac,
                           NULL, err);
        *alpha = fmin(*alpha, ac);
    }
    ipc->ccd_calls++;
    ipc->ccd_s += weft_now() - t0;
    return rc;
}


/* ------------------------------------------------------------------------------ */
/* Adaptive stiffness (Li 2020 §4.3; energies/ipc_stiffness.c)                      */
/* ------------------------------------------------------------------------------ */

/* κ into the model's state and every barrier element (the term's elements carry it). */
static void set_kappa(weft_ipc *ipc, weft_model *m, double kappa) {
    ipc->p.kappa = kappa;
    weft_term *t = &m->terms[ipc->term];
    for (int i = 0; i < t->n; i++) t->elem[i].k = kappa;
}

/* The distance (m) of barrier element e at its coordinates xe: the classified distance of a
 * cloth pair, a vertex's gap beyond the margin to its collider where it stands at t1 (the
 * element's collider stands at t = 0: the point goes into its frame by the offset
 * rest[11..13], as in collider_eval). */
static double element_distance(const weft_element *e, const double *xe) {
    switch ((int)e->rest[1]) {
    case KIND_PT: return sqrt(weft_ipc_d2(xe, weft_ipc_classify_pt(xe), NULL, NULL));
    case KIND_EE: return sqrt(weft_ipc_d2(xe, weft_ipc_classify_ee(xe), NULL, NULL));
    case KIND_COLLIDER: {
        const weft_collider col = element_collider(e);
        double q[3];
        for (int k = 0; k < 3; k++) q[k] = xe[k] - e->rest[COLLIDER_OFFSET + k];
        return weft_collider_distance(&col, q, NULL) - e->rest[3];
    }
    default: { /* an obstacle pair: its slots where the element holds them (obstacle_eval) */
        const int kind = (int)e->rest[1];
        double y[12];
        obstacle_corners(e, xe, y);
        const weft_ipc_dist type =
            kind == KIND_OBS_EE ? weft_ipc_classify_ee(y) : weft_ipc_classify_pt(y);
        return sqrt(weft_ipc_d2(y, type, NULL, NULL));
    }
    }
}

double weft_ipc_min_distance(const weft_ipc *ipc, const weft_model *m, const double *x) {
    if (ipc->term < 0) return INFINITY;
    const weft_term *t = &m->terms[ipc->term];
    double best = INFINITY, xe[12];
    for (int i = 0; i < t->n; i++) {
        gather(t->elem[i].v, x, xe);
        best = fmin(best, element_distance(&t->elem[i], xe));
    }
    return best;
}

void weft_ipc_header(const weft_ipc *ipc, double hh, char *buf, size_t size) {
    char dhat[96];
    if (ipc->dhat_relative)
        snprintf(dhat, sizeof dhat, "dhat=%.6g m (relative: 1e-3 of bbox %.6g m)", ipc->p.dhat,
                 ipc->bbox);
    else
        snprintf(dhat, sizeof dhat, "dhat=%.6g m", ipc->p.dhat);
    if (!ipc->adaptive) {
        snprintf(buf, size, "contact: ipc  %s  thickness=%.6g m  kappa=%.6g J/m^4 (fixed)", dhat,
                 ipc->p.xi, ipc->p.kappa);
        return;
    }
    double lo, hi;
    const double m_avg = ipc->m_avg;
    weft_ipc_kappa_bounds(ipc->bbox, m_avg / (hh * hh), &ipc->p, &lo, &hi);
    snprintf(buf, size, "contact: ipc  %s  thickness=%.6g m  kappa=adaptive in "
             "[%.6g, %.6g] J/m^4 (Li 2020 4.3: bbox %.6g m, mean vertex mass %.6g kg, "
             "h^ %.6g s)", dhat, ipc->p.xi, lo, hi, ipc->bbox, m_avg, hh);
}

bool weft_ipc_kappa_start(weft_ipc *ipc, weft_model *m, const double *x, const double *g,
                          double hh, double *gB, double *gE) {
    if (!ipc->adaptive) return false;
    /* G = ½ (x − x̃)ᵀM(x − x̃)/ĥ² + E + B: the mass term's Hessian is M/ĥ² */
    const double m_avg = ipc->m_avg / (hh * hh);
    weft_ipc_kappa_bounds(ipc->bbox, m_avg, &ipc->p, &ipc->kappa_min, &ipc->kappa_max);
    const size_t n3 = 3 * (size_t)m->n;
    memset(gB, 0, n3 * sizeof *gB);
    const weft_term *t = &m->terms[ipc->term];
    double xe[12], ge[12];
    for (int i = 0; i < t->n; i++) { /* g_B: the barrier's gradient at κ = 1 */
        weft_element e = t->elem[i];
        e.k = 1.0;
        gather(e.v, x, xe);
        barrier_gradient(&e, xe, ge);
        const int nv = (int)e.rest[1] == KIND_COLLIDER ? 1 : 4;
        for (int a = 0; a < nv; a++)
            if (m->pin[e.v[a]] < 0)
                for (int k = 0; k < 3; k++) gB[3 * (size_t)e.v[a] + k] += ge[3 * a + k];
    }
    for (size_t j = 0; j < n3; j++) gE[j] = g[j] - ipc->p.kappa * gB[j]; /* the rest of ∇G */
    const double kappa = weft_ipc_kappa_initial(gE, gB, (int)n3, ipc->kappa_min, ipc->kappa_max);
    ipc->d_prev = weft_ipc_min_distance(ipc, m, x);
    ipc->kappa_lo = fmin(ipc->kappa_lo, kappa), ipc->kappa_hi = fmax(ipc->kappa_hi, kappa);
    if (kappa == ipc->p.kappa) return false;
    set_kappa(ipc, m, kappa);
    return true;
}

bool weft_ipc_kappa_iterate(weft_ipc *ipc, weft_model *m, const double *x) {
    if (!ipc->adaptive) return false;
    const double d = weft_ipc_min_distance(ipc, m, x);
    const double k = weft_ipc_kappa_update(ipc->p.kappa, ipc->kappa_max, ipc->d_prev, d,
                                           ipc->bbox, ipc->p.xi);
    ipc->d_prev = d;
    if (k == ipc->p.kappa) return false;
    ipc->kappa_raises++;
    ipc->kappa_hi = fmax(ipc->kappa_hi, k);
    set_kappa(ipc, m, k);
    return true;
}


/* ------------------------------------------------------------------------------ */
/* Lagged friction (Li 2020 §5; energies/ipc_friction.c)                           */
/* ------------------------------------------------------------------------------ */

/* The friction of obstacle element b (the obstacle's own μ) at the lagged coordinates xl
 * and the step's start xp: its corners where the element holds them (t_{n+1}) in the lag,
 * where they stood at t_n (those minus u h) in the start, so the slip is the cloth's
 * relative to the obstacle's surface (weft_ipc_friction_obstacle); w with the obstacle's
 * slots zeroed, P, and f. False without friction or inside ξ. */
static bool obstacle_friction(const weft_model *m, const weft_element *b, const double *xl,
                              const double *xp, double h, const weft_ipc_params *p, double w[4],
                              double P[6], weft_ipc_friction *f) {
    const int kind = (int)b->rest[1];
    const weft_obstacle *ob = &m->obstacles[b->v[4]];
    const unsigned fixed = obstacle_slots(kind);
    if (!(ob->friction > 0.0)) return false;
    double yl[12], yp[12];
    memcpy(yl, xl, sizeof yl);
    memcpy(yp, xp, sizeof yp);
    for (int a = 0, j = 0; a < 4; a++) {
        if (!(fixed >> a & 1u)) continue;
        for (int k = 0; k < 3; k++)
            yl[3 * a + k] = b->rest[3 + 3 * j + k],
            yp[3 * a + k] = yl[3 * a + k] - ob->velocity[k] * h;
        j++;
    }
    const weft_ipc_dist t = kind == KIND_OBS_EE ? weft_ipc_classify_ee(yl) : weft_ipc_classify_pt(yl);
    if (!(weft_ipc_d2(yl, t, NULL, NULL) > p->xi * p->xi)) return false;
    const double weight = kind == KIND_OBS_EE ? weft_ipc_mollifier(yl, b->rest[2], NULL, NULL) : 1.0;
    weft_ipc_friction_obstacle(yl, yp, t, p, ob->friction, weight, fixed, f);
    weft_ipc_closest_weights(yl, t, w);
    weft_ipc_tangent_basis(yl, t, P);
    for (int a = 0; a < 4; a++)
        if (fixed >> a & 1u) w[a] = 0.0; /* T = w ⊗ P: f's rows */
    return true;
}

/* The friction element of barrier element b (weights w, basis P, offset c, μλ) at the
 * lagged coordinates xl and the step's start xp (12 each); false when μλ = 0. */
static bool friction_element(const weft_ipc *ipc, const weft_model *m, const weft_element *b,
                             const double *xl, const double *xp, double h, weft_element *e) {
    double w[4] = {1, 0, 0, 0}, P[6];
    weft_ipc_friction f;
    const weft_ipc_params p = {.kappa = b->k, .dhat = b->k2, .xi = b->rest[0]};
    const int kind = (int)b->rest[1];
    if (kind >= KIND_OBS_PT) {
        if (!obstacle_friction(m, b, xl, xp, h, &p, w, P, &f)) return false;
    } else if (kind == KIND_COLLIDER) {
        const int c = b->v[4];
        const weft_collider col = element_collider(b);
        const double *off = &b->rest[COLLIDER_OFFSET]; /* the collider's frame: x − u t_{n+1} */
        const double t1 = m->t + m->dt;
        double n[3], xf[3], q[3], us[3];
        for (int k = 0; k < 3; k++) xf[k] = xl[k] - off[k];
        const double d = weft_collider_distance(&col, xf, n) - b->rest[3];
        const double mu = m->colliders[c].friction;
        if (!(d > p.xi) || !(mu > 0.0)) return false;
        for (int k = 0; k < 3; k++) /* the closest surface point, where it stands at t_{n+1} */
            q[k] = xf[k] - (d + b->rest[3]) * n[k] + off[k];
        const bool moves = weft_collider_surface_velocity(&m->colliders[c], q, t1, us);
        weft_ipc_friction_point(n, xp, moves ? us : NULL, h, weft_ipc_normal_force(d * d, &p),
                                mu, &f);
        memcpy(P, f.T, sizeof P);
    } else {
        const weft_ipc_dist t =
            kind == KIND_PT ? weft_ipc_classify_pt(xl) : weft_ipc_classify_ee(xl);
        const double weight =
            kind == KIND_EE ? weft_ipc_mollifier(xl, b->rest[2], NULL, NULL) : 1.0;
        weft_ipc_friction_pair(xl, xp, t, &p, ipc->mu, weight, &f);
        weft_ipc_closest_weights(xl, t, w);
        weft_ipc_tangent_basis(xl, t, P);
    }
    if (!(f.mu_lambda > 0.0)) return false;
    *e = (weft_element){.v = {b->v[0], b->v[1], b->v[2], b->v[3]}, .k = ipc->eps_v * h};
    memcpy(e->rest, w, sizeof w);
    memcpy(e->rest + 4, P, sizeof P);
    e->rest[10] = f.c[0], e->rest[11] = f.c[1], e->rest[12] = f.mu_lambda;
    return true;
}

int weft_ipc_friction_build(weft_ipc *ipc, weft_model *m, const double *x_lag,
                            const double *x_prev, double h, weft_error *err) {
    if (!ipc->friction) return WEFT_OK;
    int rc = weft_ipc_fill(ipc, m, x_lag, err);
    if (rc) return rc;
    if (ipc->fterm < 0) {
        if (m->nterms == WEFT_MAX_TERMS)
            return weft_fail(err, WEFT_ERR_INPUT, "ipc: the model has %d energy terms already",
                             m->nterms);
        ipc->fterm = m->nterms++;
        m->terms[ipc->fterm] = (weft_term){.type = &weft_ipc_friction_type};
    }
    const weft_term *b = &m->terms[ipc->term];
    weft_term *f = &m->terms[ipc->fterm];
    f->n = 0;
    if (b->n > ipc->fcap) {
        weft_element *p = realloc(f->elem, (size_t)b->n * sizeof *p);
        if (!p) return weft_fail(err, WEFT_ERR_NOMEM, "ipc: out of memory");
        f->elem = p, ipc->fcap = b->n;
    }
    double xl[12], xp[12];
    for (int i = 0; i < b->n; i++) {
        gather(b->elem[i].v, x_lag, xl);
        gather(b->elem[i].v, x_prev, xp);
        f->n += friction_element(ipc, m, &b->elem[i], xl, xp, h, &f->elem[f->n]);
    }
    ipc->npattern = -1; /* the assembly is remade with the friction term's elements */
    ipc->friction_builds++;
    return WEFT_OK;
}

/* One cloth pair's part of weft_ipc_correction: its gap g = d − ξ at x and at xs, and,
 * where g(xs) < ½ (g(x) + ∇d(x)·(xs − x)) (the linear prediction), the least change in the
 * mass metric that restores the predicted gap (capped at d̂) added to c; returns whether. */
static bool correct_pair(const weft_element *e, const weft_model *m, const double *x,
                         const double *xs, double *c) {
    const int kind = (int)e->rest[1];
    const double xi = e->rest[0], dhat = e->k2;
    double y0[12], y1[12], g[12];
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) {
            y0[3 * a + k] = x[3 * e->v[a] + k];
            y1[3 * a + k] = xs[3 * e->v[a] + k];
        }
    weft_ipc_dist t = kind == KIND_EE ? weft_ipc_classify_ee(y0) : weft_ipc_classify_pt(y0);
    const double d0 = sqrt(weft_ipc_d2(y0, t, g, NULL));
    if (!(d0 > xi && d0 < xi + dhat)) return false; /* not active at x */
    double lin = d0 - xi; /* the gap the step predicts: g(x) + ∇d·s, ∇d = ∇s/(2d) */
    for (int j = 0; j < 12; j++) lin += g[j] / (2.0 * d0) * (y1[j] - y0[j]);
    t = kind == KIND_EE ? weft_ipc_classify_ee(y1) : weft_ipc_classify_pt(y1);
    const double d1 = sqrt(weft_ipc_d2(y1, t, g, NULL)), gap = d1 - xi;
    if (!(gap > 0.0 && gap < 0.5 * lin)) return false;
    double den = 0.0; /* ∇dᵀ M⁻¹ ∇d at xs over the free vertices */
    for (int a = 0; a < 4; a++)
        if (m->pin[e->v[a]] < 0)
            for (int k = 0; k < 3; k++) den += g[3 * a + k] * g[3 * a + k] / m->mass[e->v[a]];
    den /= 4.0 * d1 * d1;
    if (!(den > 0.0)) return false;
    const double lam = (fmin(lin, dhat) - gap) / den / (2.0 * d1);
    for (int a = 0; a < 4; a++)
        if (m->pin[e->v[a]] < 0)
            for (int k = 0; k < 3; k++) c[3 * e->v[a] + k] += lam * g[3 * a + k] / m->mass[e->v[a]];
    return true;
}

int weft_ipc_correction(const weft_ipc *ipc, const weft_model *m, const double *x,
                        const double *xs, double *c) {
    memset(c, 0, 3 * (size_t)m->n * sizeof *c);
    if (ipc->term < 0) return 0;
    const weft_term *T = &m->terms[ipc->term];
    int count = 0;
    for (int i = 0; i < T->n; i++) {
        const int kind = (int)T->elem[i].rest[1];
        if ((kind == KIND_PT || kind == KIND_EE) && correct_pair(&T->elem[i], m, x, xs, c))
            count++;
    }
    return count;
}
