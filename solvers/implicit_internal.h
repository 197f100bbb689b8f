/* implicit_internal.h — what the implicit time integrators share (implicit_common.c,
 * implicit_linearised.c, newton.c, newton_patch.c): the solver state and the pieces both
 * forms use. Private to solvers/ and the tests. The whole method, with its stopping test
 * and contact handling, is papers/dynamic-deformables.md ("weft's implicit integrators").
 *
 * Papers: Baraff & Witkin 1998 (the linearised step, eq. 6; constraint filters); Kim &
 * Eberle 2020, "Dynamic Deformables", ch. 8 (backward Euler, BDF2 as in Fizt) and ch. 9
 * (filtered PCG).
 *
 * Both schemes with one step ĥ, anchor a and velocity b̄ (SI; M lumped masses, E the
 * elastic energy, g gravity, D = αM + βK_n Rayleigh damping):
 *     backward Euler:  ĥ = h,     a = x_n,                 b̄ = v_n
 *     BDF2:            ĥ = 2h/3,  a = (4x_n − x_{n−1})/3,  b̄ = (4v_n − v_{n−1})/3
 *     x_{n+1} = a + ĥ v_{n+1},   M (v_{n+1} − b̄) = ĥ f(x_{n+1}, v_{n+1}),  f = −∇E + M g − D v.
 * Linearised (implicit_euler, bdf2): one solve of
 *     (M + ĥ D + ĥ² K_n) Δv = M (b̄ − v_n) + ĥ [f_n − K_n (a − x_n) − ĥ K_n v_n − D v_n].
 * Newton (newton_euler, bdf2_newton): x_{n+1} minimises
 *     G(x) = ½ (x − x̃)ᵀ M (x − x̃) / ĥ² + E(x) + (x − a)ᵀ D (x − a) / (2ĥ),  x̃ = a + ĥ b̄ + ĥ² g,
 * by filtered solves of (M/ĥ² + K(x) + D/ĥ) Δx = −∇G(x) and a backtracking line search,
 * stopping on the residual of the logs (papers/residual.md).
 * Contacts: pins and plane/sphere contacts are filters; friction acts on the velocities
 * after the solve (papers/contact.md); boxes and meshes are the collision pipeline's.
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
    /* The balloon's volume constraint C(x) = V(x) − k V0 = 0 (Müller 2006 §4.4; [pbd]
     * k_pressure > 0, newton_euler and bdf2_newton only; newton.c has the method): its
     * multiplier λ (N/m², kept from step to step), the merit's penalty ρ (in mu, J/m⁶),
     * C at the last point evaluated (m³), ∇V there (3n, m², at the iterate) and
     * z = H⁻¹∇C (3n). */
    bool pressure;
    double k_pressure, lambda, mu, C;
    double *vgrad, *vz;
    /* The contact model [contact] model = ipc (ipc_contact.h; newton_euler and bdf2_newton):
     * NULL for none. Then the colliders' filters, projections and friction are off, and the
     * barrier term of the model grows at every point G is evaluated (ipc_contact.h). */
    struct weft_ipc *ipc;
    weft_model *ipc_model; /* the model of the step in progress (ipc only) */
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

/* Solves A x = b again with the matrix and filters of the last im_linear_solve: the
 * factorisation it left when the linear solver keeps one (CHOLMOD), else a new solve. */
weft_solve_status im_linear_resolve(im_state *st, const double *b, double *x, weft_error *err);

/* Adds s ∇²V(x) to A, V the enclosed volume of mesh's triangles (x: 3n, m): per triangle
 * (a, b, c), ∂²V/∂x_a∂x_b = −[x_c]×/6 and cyclically; the diagonal blocks are 0. Every
 * pair of a triangle's vertices must be in A's pattern. */
void im_add_volume_hessian(weft_bsr *A, const weft_mesh *mesh, const double *x, double s);

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

/* Coulomb friction on the active contacts, on the velocities v only (the positions stay
 * the solve's): the tangential velocity relative to the collider loses up to μ ĥ Fn / m_i
 * (Fn = n̂·F ≥ 0, F the per-vertex constraint force in F3, N). */
void im_apply_friction(im_state *st, const weft_model *m, const double *F3, double hh, double *v);

#endif
