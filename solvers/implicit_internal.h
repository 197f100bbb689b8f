/* implicit_internal.h — what the implicit time integrators share (implicit_common.c,
 * implicit_linearised.c, newton.c): the equations, the solver state, and the pieces both
 * forms use. Private to solvers/ and the tests.
 *
 * The integrators: implicit time integrators of any energy model: Baraff & Witkin's linearised
 * backward Euler, backward Euler solved by Newton's method, and BDF2 (Pixar's Fizt) in the
 * same two forms, with constraint filters and a PPCG or CHOLMOD linear solve.
 *
 * Papers: Baraff & Witkin 1998, "Large Steps in Cloth Simulation": the implicit step
 * (eq. 6, linearised), the constraints section (filters; contact constraints released when
 * they pull); Kim & Eberle 2020, "Dynamic Deformables", ch. 8 (backward Euler, BDF2 as in
 * Fizt) and ch. 9 (filtered PCG, Tamstorf, Jones & McCormick 2015).
 *
 * Notation (SI): M lumped masses (kg), E(x) the model's elastic energy (J), K = ∇²E its
 * Hessian, PSD-projected per element unless [solver] hessian = exact (N/m), g gravity
 * (m/s²), h = dt (s), D = αM + βK_n Rayleigh damping ([solver] damping_alpha α in 1/s,
 * damping_beta β in s), K_n = K(x_n).
 *
 * Both schemes are written with one step ĥ, an anchor a and a velocity b̄:
 *     backward Euler:  ĥ = h,     a = x_n,                 b̄ = v_n
 *     BDF2:            ĥ = 2h/3,  a = (4x_n − x_{n−1})/3,  b̄ = (4v_n − v_{n−1})/3
 * so that the step is   x_{n+1} = a + ĥ v_{n+1},   M (v_{n+1} − b̄) = ĥ f(x_{n+1}, v_{n+1}),
 * with f(x, v) = −∇E(x) + M g − D v. (BDF2's first step is backward Euler: there is no
 * x_{n−1} yet.)
 *
 * Linearised (implicit_euler, bdf2): f linearised about (x_n, v_n), f(x) ≈ f_n − K_n (x − x_n),
 * gives one linear system for Δv = v_{n+1} − v_n (Baraff & Witkin eq. 6 when ĥ = h):
 *     (M + ĥ D + ĥ² K_n) Δv = M (b̄ − v_n) + ĥ [f_n − K_n (a − x_n) − ĥ K_n v_n − D v_n],
 *     f_n = −∇E(x_n) + M g.
 *
 * Newton (newton_euler, bdf2_newton): x_{n+1} minimises the incremental potential
 *     G(x) = ½ (x − x̃)ᵀ M (x − x̃) / ĥ² + E(x) + (x − a)ᵀ D (x − a) / (2ĥ),
 *     x̃ = a + ĥ b̄ + ĥ² g,
 * whose stationarity is the scheme above (D frozen at K_n keeps G a potential). Each
 * iteration solves (M/ĥ² + K(x) + D/ĥ) Δx = −∇G(x) on the filtered subspace, then
 * backtracks (halving, Armijo constant 1e-4) until G decreases, so G never increases
 * within a step beyond rounding: once the predicted decrease −∇G·Δx is below G's rounding
 * (1e-12 |G|, reached at a relative residual of about √ε), the full step is taken while
 * it halves the residual, and the step ends when it does not. It starts from x̃ or from the
 * constant-velocity prediction a + ĥ b̄, whichever has the lower G (with pins and contacts
 * applied; from x_n when G(x̃) is not finite, e.g. an inverted element), and stops when the
 * residual r of the logs (weft_residual: ∇G with pins and pushing contacts' normal forces
 * out) satisfies r ≤ tolerance_abs and r ≤ tolerance · max(r(x⁰), tolerance_abs)
 * ("converged"), at the iteration cap ([solver] iterations, "cap"), or when G stagnates at
 * rounding level ("stalled"); the log gets one "# step S iter I stop=WORD" line per step,
 * a capped one with why: "cap contacts_changing" (the contact set changed in one of the
 * last CONTACT_WINDOW iterations and at least half of ‖r‖² sits at the contacts),
 * "cap indefinite" (otherwise, when the last exact system was not SPD), "cap slow" (neither).
 * v_{n+1} = (x_{n+1} − a)/ĥ.
 *
 * Constraints (Baraff & Witkin's constraints section, Kim & Eberle §9.1) are filters
 * (lib/linalg/weft_linsolve.h):
 *   - a pinned vertex has 3 constrained DOFs and moves on its scripted path;
 *   - a free vertex whose start position (x̃) lies inside a plane or sphere collider (within
 *     the contact margin) is projected onto the surface and gets a 1-DOF filter along the
 *     collider's normal n̂: it slides on the tangent plane. After the solve the constraint
 *     force is F = (A Δv − rhs)/ĥ (linearised) or ∇G (Newton, the unfiltered gradient the
 *     filter absorbed); where n̂·F < 0 the collider would pull, so the filter is released;
 *     a free vertex that ends inside a collider is projected and constrained. The solve is
 *     repeated up to 4 times while the contact set changes. Newton instead linearises the
 *     contacts afresh at every iterate: its line search measures G on the path projected
 *     onto the colliders (active contacts back onto the surface along the current normal,
 *     vertices that went in caught), and releases pulling contacts after each iteration.
 *     Coulomb friction then takes up to μ ĥ (n̂·F)/m_i off the
 *     tangential velocity relative to the collider. A moving collider is taken where it
 *     stands at t + h.
 * Box colliders and triangle-mesh obstacles are left to the collision pipeline
 * ([collision] pipeline = bridson), which runs after any solver's step.
 *
 * A system that is not positive definite (only possible with hessian = exact) is solved
 * again with the PSD-projected Hessian, which Newton then keeps for the rest of the step;
 * this is counted in the statistics and reported once on stderr; a non-finite energy, gradient or
 * Hessian names the element; a Newton step that is not a descent direction, or a line search that
 * cannot decrease G, stops the run with a message. The common metrics are reported at iteration 0
 * (the start point) and after every Newton iteration (linearised: after the one solve), with BDF2's
 * own G.
 */
#ifndef WEFT_IMPLICIT_INTERNAL_H
#define WEFT_IMPLICIT_INTERNAL_H

#include "vertex_block.h"
#include "weft_solvers.h"
#include "weft_linsolve.h"
#include "weft_vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTACT_PASSES 4
#define ARMIJO 1e-4
#define MAX_BACKTRACKS 40
#define G_ROUNDING 1e-12 /* relative change of G taken as rounding */
/* A capped Newton step whose contact set changed in one of its last CONTACT_WINDOW
 * iterations, and whose residual sits at least half (in ‖r‖²) at the contacts
 * (weft_residual_split), is logged "cap contacts_changing". */
#define CONTACT_WINDOW 2
/* Counters and timers of an implicit solver's run, summed over its steps; im_profile
 * reports them with the linear solver's (analyses, ordering, factor and solve times). */
typedef struct im_stats {
    long newton_iterations; /* Newton steps taken (linearised solvers: one per step) */
    long linear_solves;     /* linear systems solved (contact passes and retries included) */
    long linear_iterations; /* PPCG iterations, summed (0 with CHOLMOD) */
    long backtracks;        /* line-search halvings */
    long contact_releases;  /* contact filters released because the force pulled */
    long fallbacks;         /* not-SPD systems solved again with the projected Hessian */
    double assemble_s;      /* E, ∇E and K assembly, s */
    double filter_s;        /* forming the system and right-hand side, s */
    double linear_s;        /* linear solves (CHOLMOD: any analysis, factorise, solve), s */
    double line_search_s;   /* line-search energy evaluations, s */
    long smooth_sweeps;     /* a variant's smoothing sweeps (newton_patch.c) */
    long smooth_updates;    /* patch steps the smoothing took */
    long smooth_rejected;   /* patch steps it left out: no decrease after every halving */
    double smooth_s;        /* smoothing sweeps, s */
} im_stats;

typedef struct im_state im_state;

/* One step of a form (linearised or Newton) of the integrator. */
typedef int (*im_form)(im_state *st, weft_model *m, weft_monitor *mon, weft_error *err);

struct im_state {
    const weft_solver_type *type;
    bool newton, bdf2;
    im_form form;               /* this solver's step: im_linearised_step or im_newton_step */
    weft_implicit_settings set; /* the solver's settings, from the run's config */
    int n;
    weft_assembly *as;
    weft_bsr *A;    /* the assembly's matrix: K, then the system matrix */
    const double *assembled_at; /* positions of the last assembly (3n, m; the caller's
                                   array, alive until the solve): the preconditioner's
                                   near-null space */
    double *Kn_val; /* K(x_n) values for stiffness-proportional damping (β > 0) */
    weft_filter f;
    const weft_linear_type *linear; /* the linear solver ([solver] linear) and its state */
    void *lin;
    /* 3n vectors */
    double *x, *g, *gE, *dx, *rhs, *xt, *a, *vbar, *w, *q, *xtrial, *xprev, *vprev;
    double *dmass;  /* n: the mass coefficient added to A's diagonal */
    int *contact;   /* n: collider index of an active contact, -1 if none */
    double *cn;     /* 3n: the contact's unit normal */
    int *tcontact;  /* n, 3n: Newton's contacts and normals at its line-search trial point */
    double *tcn;
    /* A variant of Newton (newton_patch.c) plugs in here; NULL for plain Newton. After
     * each Newton step that does not already meet the stopping test, after_step moves x
     * (the new iterate, in place) at the step's end time t1 lowering G, never raising it,
     * with the contacts of st->contact, st->cn kept as the line search keeps them (active
     * ones on their surface, vertices that went into a plane or sphere caught, pins
     * fixed); it returns how many vertices a collider caught. variant holds its data,
     * variant_free frees it. */
    int (*after_step)(im_state *st, const weft_model *m, double t1, double hh, double *x);
    void *variant;
    void (*variant_free)(im_state *st);
    void *settings; /* the solver's whole settings block (type->settings_size bytes) */
    bool have_prev; /* BDF2: x_{n−1}, v_{n−1} are known */
    bool warned_indefinite;
    int step;
    weft_monitor *mon; /* for the PPCG callback */
    int iter;          /* current inner iteration, for the linear log */
    /* Newton's last step: the residual (weft_residual, N) at its start point and where it
     * stopped, and its status ("converged", "cap REASON", "stalled") */
    double r0, r;
    const char *stop;
    /* At a capped step: the residual's norm over the vertices at a contact
     * (weft_residual_split, N) and whether the contact set changed in one of the last
     * CONTACT_WINDOW iterations; the reason word follows from them (newton.c). */
    double r_contact;
    bool contacts_recent;
    im_stats stats;
};

/* The [solver] rows of weft_implicit_settings: those of every implicit solver (linear,
 * damping), the linearised solvers' hessian (default projected), and Newton's own
 * (tolerance, tolerance_abs, hessian with default adaptive) (implicit_common.c). */
extern const weft_param im_implicit_params[];
extern const weft_param im_linearised_params[];
extern const weft_param im_newton_params[];

/* Creates the state of solver `type` (newton: the Newton form; bdf2: BDF2's anchor), with
 * the settings of `tables` from cfg and the form's step function. */
void *im_create(const weft_model *m, weft_config *cfg, const weft_solver_type *type,
                const weft_param_table *tables, bool newton, bool bdf2, im_form form,
                weft_error *err);

/* Frees an implicit solver's state; NULL is a no-op. */
void im_destroy(void *state);

/* The stats hook of the four implicit solvers: timers assemble, filter, linear,
 * line_search and, inside linear, the linear solver's setup, factor and solve (s);
 * counters newton_iterations, linear_solves, linear_iterations, backtracks,
 * contact_releases, fallbacks and setups (CHOLMOD analyses, preconditioner set-ups);
 * label ordering (CHOLMOD's fill-reducing ordering, "none" for PPCG). */
void im_profile(const void *state, weft_profile *out);

/* The solver descriptors' step: checks the state, then runs the form's step. */
int im_step(void *state, weft_model *m, weft_monitor *mon, weft_error *err);

/* The linearised step (implicit_linearised.c) and the Newton step (newton.c). */
int im_linearised_step(im_state *st, weft_model *m, weft_monitor *mon, weft_error *err);
int im_newton_step(im_state *st, weft_model *m, weft_monitor *mon, weft_error *err);

/* Fails with code, the message "<prefix>: <err's current message>" (err may be NULL). */
int im_fail_because(weft_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The scheme's ĥ, anchor a, velocity b̄ and target x̃ = a + ĥ b̄ + ĥ² g for this step. */
double im_setup_scheme(im_state *st, const weft_model *m);

/* Free vertex i at x_i inside collider c at time t: moves it onto the surface (offset by
 * the margin) and records the contact. Returns true if it was inside. */
bool im_catch_contact(im_state *st, const weft_model *m, int i, double t, double *x);

/* Rebuilds the filters: pins (3 DOFs) and active contacts (1 DOF along the normal), with
 * prescribed values z from zpin (3n, or NULL for 0) and zc (per-vertex normal component,
 * or NULL for 0). */
int im_build_filters(im_state *st, const weft_model *m, const double *zpin, const double *zc,
                     weft_error *err);

/* Solves A x = b on the filtered subspace with the configured linear solver. */
weft_solve_status im_linear_solve(im_state *st, const double *b, double *x, weft_error *err);

/* Assembles K (mode per [solver] hessian, or projected when force_projected) and ∇E at x
 * into A and gE; returns E(x), or +inf with the element named in err. */
double im_assemble(im_state *st, const weft_model *m, const double *x, bool force_projected,
                   weft_error *err);

/* Turns the assembled K into s K + diag(dmass) (A's values in place). */
void im_form_system(im_state *st, double s);

/* Reports a not-SPD system once per run on stderr. */
void im_note_indefinite(im_state *st, const char *msg);

/* Projects a vertex's trial position p as newton.c's project_trial does: onto the surface
 * of its active contact *c (normal into nrm), else onto the first plane or sphere it is
 * inside (then *c is that collider, nrm its normal); else p stays (implicit_common.c). */
void im_project_vertex(const weft_model *m, double t, int *c, double *p, double nrm[3]);

/* Coulomb friction on the active contacts: the tangential velocity relative to the collider
 * loses up to μ ĥ Fn / m_i (Fn = n̂·F ≥ 0, F the per-vertex constraint force in F3, N); x
 * moves by ĥ times the velocity change. */
void im_apply_friction(im_state *st, const weft_model *m, const double *F3, double hh, double *x,
                       double *v);

#endif
