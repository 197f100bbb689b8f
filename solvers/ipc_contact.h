/* ipc_contact.h — the contact model `[contact] model = ipc`: Incremental Potential Contact
 * (Li et al. 2020, ACM TOG 39(4)) with C-IPC's thickness (Li, Kaufman & Jiang 2021, ACM
 * TOG 40(4)) as a plug-in of the Newton solvers (solvers/ipc_contact.c; newton.c calls it).
 *
 * The barrier B(x) = Σ_pairs b(d²) of energies/ipc_barrier.c becomes one energy term of the
 * model, grown at every point where the solver evaluates G = inertia + E + B: the close
 * pairs (d < d̂ + ξ) of the cloth against itself and against triangle-mesh obstacles
 * (point–triangle and edge–edge, classified, edge–edge mollified) and of every free vertex
 * against each analytic collider (its gap, distance − [collision] margin), obstacles and
 * colliders where they stand at the step's end. So the
 * common residual (lib/metrics.c) sees ∇B as it sees ∇E. With friction, a second term holds
 * Li 2020 §5's lagged friction potentials of the close pairs, rebuilt at each lagging
 * iteration; κ is adaptive (§4.3) unless fixed. Newton's line search is limited to
 * a fraction of the time of impact of its whole motion (weft_ccd_step, separation ξ), so no
 * iterate intersects.
 *
 * Units: d̂, ξ in m; κ in J/m⁴ (b is written in s = d², m²); ε_v in m/s.
 */
#ifndef WEFT_IPC_CONTACT_H
#define WEFT_IPC_CONTACT_H

#include "ipc.h"
#include "weft_broadphase.h"
#include "weft_solvers.h"

/* The contact models a scene may name ([contact] model). */
typedef enum { WEFT_CONTACT_NONE = 0, WEFT_CONTACT_IPC = 1 } weft_contact_model;

/* The [contact] settings (rows weft_contact_params). */
typedef struct weft_contact_settings {
    int model;                  /* weft_contact_model (default none: today's behaviour) */
    char barrier_distance[WEFT_PARAM_STRING_MAX]; /* d̂ in m, a number in (0, 1];
                                                     "relative": 1e-3 of the cloth's
                                                     bounding-box diagonal at t = 0 (IPC's
                                                     default); empty (the default): 1 mm */
    double thickness;           /* ξ ≥ 0, m (default 0) */
    char stiffness[WEFT_PARAM_STRING_MAX]; /* κ > 0 in J/m⁴, or "adaptive" (also when
                                              empty: Li 2020 §4.3, ipc_stiffness.c) */
    double friction;            /* μ ≥ 0 of cloth–cloth contacts (a collider's contacts
                                   take its own [collider.NAME] friction) */
    double friction_velocity;   /* ε_v > 0, m/s (default 1e-3) */
    int friction_iterations;    /* lagging iterations per step (default 1) */
    int indefinite;             /* a weft_contact_indefinite: Newton's system where the exact
                                   Hessian is not SPD (default shift) */
    double shift_max;           /* under shift: the largest τ (of M/ĥ²) tried; beyond it the
                                   elements are projected */
} weft_contact_settings;

/* [contact] indefinite: what Newton ([solver] hessian = adaptive) solves under ipc where
 * the exact system is not SPD. */
typedef enum weft_contact_indefinite {
    WEFT_CONTACT_SHIFT = 0,  /* the exact one plus the least τ M/ĥ² found (N&W 2006 §3.4) */
    WEFT_CONTACT_PROJECT = 1 /* every element's Hessian PSD-projected (model = none's rule) */
} weft_contact_indefinite;

/* The [contact] rows, offsets within a weft_contact_settings: a solver that runs a contact
 * model lists them in its tables and names the model in its caps.contact_models (a solver
 * that does not is refused a scene naming it: weft_solver_check). */
extern const weft_param weft_contact_params[];

/* The names of [contact] model, NULL-terminated. */
extern const char *const weft_contact_model_names[];

/* The per-step element type of the barrier (not a scene energy: not registered). */
extern const weft_energy_type weft_ipc_barrier_type;

/* The per-lag element type of the lagged friction (Li 2020 §5; not registered). */
extern const weft_energy_type weft_ipc_friction_type;

/* The state of the ipc model in one solver. */
typedef struct weft_ipc {
    weft_ipc_params p;       /* κ, d̂, ξ */
    double margin;           /* the model's [collision] margin, m */
    int term;                /* index of the barrier term in m->terms, -1 before the first
                                step */
    int cap;                 /* room in the term's element array */
    long fills;              /* refills so far; the pattern may change at each */
    weft_bvh *bvh;           /* over the cloth's triangles */
    weft_collision_pairs pairs;
    double t1;               /* the step's end time t_{n+1}, s: colliders and obstacles
                                stand where they are then */
    int nobs;                /* the model's triangle-mesh obstacles, */
    weft_bvh **obs_bvh;      /* a tree over each one's triangles, */
    double **obs_x;          /* and its positions at t1 (3 nv each, m) */
    weft_collision_pairs obs_pairs;
    int *pattern;            /* the pairs' vertices (4 per element) the solver's assembly
                                was last made for, and their count */
    int npattern, cap_pattern;
    int *table, table_size;  /* open-addressing hash of the step's elements (-1: empty) */
    double fill_s, ccd_s;    /* time in the refills and in the CCD filter, s */
    long ccd_calls;
    double dx_inf_h;         /* IPC's criterion ‖Δx‖∞/ĥ of the last Newton direction, m/s */
    double dx_inf_h_max;     /* its largest value at a step's last Newton iteration, m/s */
    /* Lagged friction (Li 2020 §5; ipc_friction.c): μ of cloth–cloth pairs ([contact]
     * friction); a pair against a collider or a mesh obstacle takes its friction */
    double mu, eps_v; /* μ, ε_v (m/s) */
    int lags;         /* [contact] friction_iterations */
    bool friction;    /* some μ > 0: the friction term is built */
    int fterm;        /* index of the friction term in m->terms, -1 before the first */
    int fcap;         /* room in its element array */
    long friction_builds;
    /* Adaptive κ (Li 2020 §4.3; ipc_stiffness.c): on when [contact] stiffness is adaptive
     * or empty (the default) */
    bool adaptive;
    bool dhat_relative;          /* d̂ = 1e-3 bbox ([contact] barrier_distance =
                                    relative) */
    double bbox;                 /* the cloth's bounding-box diagonal at t = 0, m */
    double m_avg;                /* the free vertices' average mass, kg */
    double dt;                   /* the model's step, s */
    double kappa_min, kappa_max; /* the bounds of the last step, J/m⁴ */
    double d_prev;               /* the smallest distance at the previous iterate, m */
    long kappa_raises;           /* times the update rule doubled κ */
    double kappa_lo, kappa_hi;   /* the smallest and largest κ used, J/m⁴ */
    /* Not-SPD exact systems ([contact] indefinite; newton.c's shifted_solve) */
    bool shift;                  /* shift by τ M/ĥ² (else project) */
    double tau;                  /* the last shift that made the system SPD (0: none yet) */
    long shifts, shift_solves;   /* shifted systems, and the factorisations they took */
    double tau_max;              /* the largest τ used */
    double tau_cap;              /* [contact] shift_max: no τ above it is tried */
    long shift_caps;             /* systems no τ ≤ tau_cap made SPD (projected instead) */
    long corrections;            /* iterates moved by the second-order correction (newton.c) */
} weft_ipc;

/* Fails (one line, file:line from cfg) when the [contact] settings s give a value other
 * than its default to a key besides model while model = none: a setting is never ignored
 * (one at its default, as a written config.ini lists it, changes nothing). */
int weft_contact_check_none(const weft_contact_settings *s, const weft_config *cfg,
                            weft_error *err);

/* The ipc model's state for m from the [contact] settings s (model = ipc) of config cfg,
 * into *ipc; fails with one line naming the setting (file:line where the config knows it)
 * for what is not supported yet: colliders with restitution, more than 8 obstacles.
 * Friction: μ = s->friction between cloth primitives, a collider's or a mesh obstacle's own
 * friction against it. solver names the caller in messages. */
int weft_ipc_create(weft_ipc *ipc, const weft_contact_settings *s, const weft_model *m,
                    const weft_config *cfg, const char *solver, weft_error *err);

/* Frees what ipc holds (the barrier term stays the model's, which frees it). */
void weft_ipc_free(weft_ipc *ipc);

/* Starts a step's set for the step from m->t to t1 = m->t + m->dt: empties the barrier
 * term of m (appending it to m's terms at the first call); colliders and obstacles are
 * taken where they stand at t1. */
int weft_ipc_begin_step(weft_ipc *ipc, weft_model *m, weft_error *err);

/* Adds to the step's set the pairs within ξ + d̂ at positions x (3n, m) that it lacks. */
int weft_ipc_fill(weft_ipc *ipc, weft_model *m, const double *x, weft_error *err);

/* True, once per change, when the barrier term's elements name other vertices than at the
 * previous true answer (the Hessian's pattern may have changed: a new assembly is due). A
 * failed allocation answers true (the assembly is remade, never stale). */
bool weft_ipc_pattern_changed(weft_ipc *ipc, const weft_model *m);

/* The start of a step's motion under moving colliders and obstacles (file comment of
 * ipc_contact.c): x_n (m->x) with every free vertex that a mover's sweep over [t_n, t1]
 * can bring within reach (d̂ + ξ) carried by that mover's displacement u h, into xc (3n,
 * m). Fails when two movers of different velocities claim one vertex, or when the carry
 * would bring two cloth primitives within ξ (a smaller step is needed). */
int weft_ipc_carry(weft_ipc *ipc, const weft_model *m, double *xc, weft_error *err);

/* Second-order correction of a trial point xs = x + s (Nocedal & Wright 2006 §15.6, the
 * Maratos effect): a cloth pair whose gap d − ξ at xs fell below half its linear
 * prediction d(x) − ξ + ∇d(x)·s (a sliding step closes a deep pair at second order) is
 * moved back toward the prediction (at most d̂) along M⁻¹∇d(xs), the pairs' moves summed
 * into c (3n, m; zero elsewhere). Returns the number of pairs corrected. */
int weft_ipc_correction(const weft_ipc *ipc, const weft_model *m, const double *x,
                        const double *xs, double *c);

/* The largest step α ∈ [0, 1] of x → x + α dx that keeps every cloth pair more than ξ
 * apart, more than ξ from the obstacles and every vertex out of the colliders, colliders
 * and obstacles standing where they are at t (weft_ccd_step, fraction 0.9). */
int weft_ipc_step_bound(weft_ipc *ipc, const weft_model *m, const double *x, const double *dx,
                        double t, double *alpha, weft_error *err);

/* Adaptive κ at the start of a step (Li 2020 §4.3 and supplement): the bounds for the
 * scene (bbox, the free vertices' average mass in G's Hessian units m̄/ĥ², hh = ĥ in s),
 * then κ = argmin |g_E + κ g_B|² clamped to them, g = ∇G at x (3n, with the current κ) and
 * g_B the barrier's gradient at κ = 1; the barrier's elements take it. gB, gE: scratch of
 * 3n values. Returns true when κ changed (G and ∇G at x are then stale). Nothing unless
 * adaptive. */
bool weft_ipc_kappa_start(weft_ipc *ipc, weft_model *m, const double *x, const double *g, double hh,
                          double *gB, double *gE);

/* Adaptive κ after a Newton iteration at x: κ ← min(2κ, κ_max) when the smallest distance
 * keeps shrinking below ξ + 1e-9 bbox (weft_ipc_kappa_update). True when κ changed. */
bool weft_ipc_kappa_iterate(weft_ipc *ipc, weft_model *m, const double *x);

/* The lagged friction terms (Li 2020 §5.2) of the pairs within ξ + d̂ at x_lag (added to
 * the step's barrier set first), measured from the step's start x_prev, the step h (s):
 * the model's friction term emptied and refilled, one element per pair with μλ > 0 (λ the
 * barrier's normal force at x_lag). The assembly's pattern is marked changed. Nothing
 * unless ipc->friction. */
int weft_ipc_friction_build(weft_ipc *ipc, weft_model *m, const double *x_lag, const double *x_prev,
                            double h, weft_error *err);

/* The log header's line about the model into buf (size bytes): d̂, ξ, and κ, fixed or
 * adaptive with its bounds for a step ĥ = hh (s) (Li 2020 §4.3: the issue asks for them). */
void weft_ipc_header(const weft_ipc *ipc, double hh, char *buf, size_t size);

/* The smallest distance (m) of the step's barrier pairs at x (beyond the margin for a
 * collider's; ∞ when there are none). */
double weft_ipc_min_distance(const weft_ipc *ipc, const weft_model *m, const double *x);

#endif
