/* weft_collision.h — the integrator-independent cloth collision pipeline of Bridson,
 * Fedkiw & Anderson 2002, separated from the time integrator as the paper does (in course
 * slides on it, "Separation from internal dynamics" and "Putting it together"):
 *
 *   (x1, v) = advance_internal_dynamics(x0, v0, h)     any solver, collisions ignored
 *   x_new   = solve_collisions(x0, x1)                 this module
 *   v      += (x_new − x1) / h                         velocity correction
 *
 * x0 are collision-free positions at the start of the step, x1 the solver's candidate
 * positions at its end (m), h the step (s). Inside, every vertex moves on the straight
 * line x0 → x1 with the step's average velocity v̄ = (x1 − x0)/h (m/s); the three stages
 * change v̄ and with it x1 = x0 + h v̄:
 *
 *   1. repulsions at x0: pairs closer than the thickness η get an inelastic impulse and
 *      a limited spring impulse, with Coulomb friction;
 *   2. continuous collision detection (CCD) over x0 → x1, an inelastic impulse (with
 *      friction) per collision, repeated until a pass finds none or a cap is reached;
 *   3. rigid impact zones (Provot 1997): colliding vertices are merged into zones that
 *      move rigidly, conserving linear and angular momentum, until a pass finds no
 *      collision between different zones (or a cap, reported as a failure).
 *
 * Planes and spheres of the model (weft_collider) are kept out in the same step, and
 * triangle-mesh obstacles with scripted positions (infinite mass) go through the same
 * broad phase and CCD as the cloth. lib/collision/collision.c holds the algorithm and its
 * equations; papers/bridson2002-collisions.md maps it to the slides and the tests.
 */
#ifndef WEFT_COLLISION_H
#define WEFT_COLLISION_H

#include "weft.h"

/* Broad phase of the collision pipeline (lib/collision/weft_broadphase.h). */
typedef enum { WEFT_BROAD_PHASE_BVH = 0, WEFT_BROAD_PHASE_HASH } weft_broad_phase_kind;

/* The scene's settings of the pipeline as a post-step stage ([collision] section), the
 * struct of weft_bridson_stage's table (lib/collision/bridson_stage.c). */
typedef struct weft_collision_settings {
    int pipeline;          /* 0 "none", 1 "bridson": run the pipeline after every step
                              (default none) */
    double thickness;      /* cloth thickness η: repulsion range, m (default 1e-3) */
    double friction;       /* cloth–cloth Coulomb μ (default 0.1) */
    double stiffness;      /* repulsion spring k, N/m; 0: the material's stretch_stiffness
                              (default 0) */
    int broad_phase;       /* a weft_broad_phase_kind (default BVH) */
    int max_iterations;    /* CCD impulse passes before impact zones (default 10) */
    bool count_intersections; /* count remaining triangle intersections after every step
                                 (O(nt²); default false) */
    bool repulsions, ccd, impact_zones; /* the stages (default on; what "off" does: below) */
} weft_collision_settings;

/* The pipeline as a post-step stage, enabled by [collision] pipeline = bridson. */
extern const weft_stage_type weft_bridson_stage;

/* Tuning of a pipeline. Units: m, s, N/m; friction coefficients are dimensionless. */
typedef struct weft_collision_options {
    double thickness;     /* η > 0: repulsions act on pairs closer than this, m */
    double ccd_tolerance; /* η_c ∈ (0, η]: CCD reports pairs that come within η_c, m */
    double friction;      /* μ ≥ 0 of cloth–cloth pairs */
    double stiffness;     /* k ≥ 0 of the repulsion spring, N/m */
    double margin;        /* distance kept from planes and spheres, m (≥ 0) */
    weft_broad_phase_kind broad_phase; /* BVH or spatial hash */
    double hash_cell;         /* spatial hash cell side, m; ≤ 0: the average edge length */
    int max_iterations;       /* CCD impulse passes before impact zones (≥ 1) */
    int max_zone_iterations;  /* impact-zone rounds before giving up (≥ 1) */
    bool count_intersections; /* count intersecting triangle pairs at x_new (O(nt²)) */
    /* Stage switches, for experiments that run the pipeline without one of its stages
     * (all true by default). Colliders (planes, spheres) are handled in every case.
     *   repulsions:   false skips stage 1 (no proximity broad phase either);
     *   ccd:          false skips stages 2 and 3: nothing checks the motion x0 → x1, so
     *                 no collision is found, no zone can form, and `unresolved` stays 0
     *                 (nothing was detected, not everything was resolved);
     *   impact_zones: false stops after the max_iterations CCD impulse passes; if they
     *                 did not end clean, one more CCD pass (no response) counts the
     *                 collisions left into `unresolved` (WEFT_WARN_UNRESOLVED). */
    bool repulsions, ccd, impact_zones;
} weft_collision_options;

/* What one step did. Pair counts add up over all passes of the step. */
typedef struct weft_collision_stats {
    long proximity_pairs;   /* broad-phase candidates tested for repulsion */
    long swept_pairs;       /* swept broad-phase candidates tested by CCD, all passes */
    long repulsions;        /* pairs closer than η that received an impulse */
    long ccd_hits;          /* collisions found by the CCD passes (impulse and zone) */
    int ccd_iterations;     /* CCD impulse passes */
    int zone_iterations;    /* impact-zone rounds (rigidifications); 0 if none were needed */
    int zones;              /* impact zones of two or more vertices at the end */
    int max_zone;           /* vertices in the largest zone (cloth and obstacle), 0 if none */
    long collider_contacts; /* corrections against planes and spheres */
    long unresolved;        /* collisions left at the caps; 0 = the step is collision-free
                               (with ccd off: nothing was checked, always 0) */
    long remaining;         /* intersecting triangle pairs at x_new (self and against
                               obstacles), or -1 when not counted */
    double seconds;         /* wall time of the step, without the intersection count, s */
} weft_collision_stats;

/* A pipeline for one model: broad phase, obstacles and every buffer. */
typedef struct weft_collision_pipeline weft_collision_pipeline;

/* Defaults: η = 1e-3 m, η_c = η/10, μ = 0.1, k = 1000 N/m, margin 1e-3 m, BVH, 10 CCD
 * passes, 100 zone rounds, no intersection count, every stage on. */
weft_collision_options weft_collision_options_default(void);

/* The options [collision] settings s ask for (NULL: the table's defaults), with the
 * margin, and k when s leaves it 0, from the model. */
weft_collision_options weft_collision_options_from_settings(const weft_model *m,
                                                            const weft_collision_settings *s);

/* Creates a pipeline for m's mesh (which must keep its topology and outlive the
 * pipeline); opt NULL: weft_collision_options_from_settings(m, NULL). NULL on failure. */
weft_collision_pipeline *weft_collision_create(const weft_model *m,
                                               const weft_collision_options *opt, weft_error *err);

/* Adds a triangle-mesh obstacle (topology built; must outlive the pipeline) with Coulomb
 * coefficient `friction` against the cloth. Its vertices have infinite mass and follow
 * the positions given by weft_collision_move_obstacle. Returns its id (≥ 0) or an error. */
int weft_collision_add_obstacle(weft_collision_pipeline *p, const weft_mesh *mesh, double friction,
                                weft_error *err);

/* Sets obstacle `id`'s positions at the start (x0) and end (x1) of the coming step
 * (3*nv each, m; copied). They stay until the next call: a static obstacle is placed once
 * with x0 = x1. */
int weft_collision_move_obstacle(weft_collision_pipeline *p, int id, const double *x0,
                                 const double *x1, weft_error *err);

/* One step of collision handling for m's cloth: x0 (3n, m) collision-free start, x1 (3n,
 * in: candidate end, out: collision-free end), v (3n, m/s, in/out: v += (x_new − x1)/h),
 * h (s). Pinned vertices (m->w = 0) are never moved. stats may be NULL. Returns WEFT_OK,
 * WEFT_WARN_UNRESOLVED when the caps left collisions (stats->unresolved > 0), or a
 * negative error (bad h or positions, out of memory, an obstacle without positions). */
int weft_collision_step(weft_collision_pipeline *p, const weft_model *m, const double *x0,
                        double *x1, double *v, double h, weft_collision_stats *stats,
                        weft_error *err);

/* Frees the pipeline and sets *p to NULL; safe on NULL. */
void weft_collision_free(weft_collision_pipeline **p);

/* Replaces the velocities v (m/s) of the n vertices idx[] at positions x (m), masses
 * mass[] (kg; NULL: all 1) by the rigid motion v_i = v_c + ω × (x_i − c) with the same
 * linear and angular momentum: c the centre of mass, v_c its velocity, ω = I⁺ L with I
 * the inertia tensor about c and I⁺ its pseudo-inverse (so collinear zones and single
 * vertices are handled). The impact-zone step of Provot 1997 / Bridson et al. 2002 §7.4. */
void weft_collision_rigidify(int n, const int *idx, const double *mass, const double *x, double *v);

#endif
