/* weft_collider.h — collider shapes (one file each in lib/collider/), moving obstacles
 * and scripted pins.
 *
 * Units are SI: m, m/s, kg, s, J, N. Arrays of 3-vectors are flat: x[3*i + 0..2] is vertex i.
 */
#ifndef WEFT_COLLIDER_H
#define WEFT_COLLIDER_H

#include "weft_mesh.h"

/* ------------------------------------------------------------------------------ */
/* Colliders and pins                                                              */
/* ------------------------------------------------------------------------------ */

/* Capacity of a collider's parameter block (doubles): what its type's table lays out. */
#define WEFT_COLLIDER_PARAM_MAX 16

/* An obstacle, static or translating with constant velocity u: it stands at p0 + u t at
 * time t, p0 its shape's parameters below. The shape-independent data are fields; the
 * shape's own parameters (a point, a normal, a centre, a radius, ...) sit in param, laid
 * out by its type's table (weft_collider_type.params). */
typedef struct weft_collider {
    char name[64];
    const struct weft_collider_type *type; /* its shape: one of weft_collider_registry */
    double param[WEFT_COLLIDER_PARAM_MAX]; /* the shape's parameters, per its type's table */
    double velocity[3];         /* u, m/s; (0, 0, 0) for a static obstacle */
    double friction;            /* Coulomb coefficient μ >= 0 (dimensionless) */
    double restitution;         /* e in [0, 1] */
} weft_collider;

/* One key of a collider shape's [collider.NAME] section: a number or a 3-vector stored
 * at param[at .. at + n - 1]. The scene parser reads it, `./weft list` lists it. */
typedef struct weft_collider_param {
    const char *key;  /* scene key */
    int n;            /* 1: a number; 3: a 3-vector "x y z" */
    int at;           /* index of its first value in weft_collider.param */
    const char *unit; /* SI unit; "1" for a dimensionless value */
    double lo, hi;    /* every component's allowed range; lo == hi: any finite value */
    unsigned flags;   /* WEFT_PARAM_LO_OPEN, WEFT_PARAM_HI_OPEN */
    double dflt[3];   /* default (the first n values) */
    const char *each; /* a 3-vector's component in a range message ("half extent"), or NULL */
    const char *doc;  /* one line: what it means */
} weft_collider_param;

/* A collider shape: one file each in lib/collider/ and one line of WEFT_COLLIDERS in
 * collider.c. Positions are in the collider's own frame (where it stands at t = 0). */
typedef struct weft_collider_type {
    const char *name;        /* [collider.NAME] type */
    const char *summary;
    bool smooth;             /* one normal describes every contact: the implicit solvers
                                can filter it (a shape with edges is not smooth) */
    const weft_collider_param *params; /* its keys, terminated by key == NULL */
    /* Optional: checks and normalises the parameters read from a scene; NULL when fine,
     * else a one-line message with *key the key it concerns. */
    const char *(*prepare)(weft_collider *c, const char **key);
    /* Signed distance of p (m), outward normal at the closest surface point in n (may be
     * NULL). */
    double (*distance)(const weft_collider *c, const double p[3], double n[3]);
    /* First t in [0, 1] where the segment x0 → x1 enters the collider grown by margin
     * (m), with the outward normal there in n; false when it starts inside or misses. */
    bool (*segment_entry)(const weft_collider *c, const double x0[3], const double x1[3],
                          double margin, double *t, double n[3]);
    /* Optional: moves p onto the surface grown by margin (m), normal there in n; returns
     * the signed gap p had. NULL: p − (d − margin) n̂, exact for a distance field. */
    double (*project)(const weft_collider *c, double p[3], double margin, double n[3]);
    /* Optional: the shape operator at p, S = ∂n̂/∂p (1/m, symmetric 3×3, row-major), the
     * curvature of the level set of the distance through p. NULL: central differences of
     * the normal (weft_collider_curvature_at). */
    void (*curvature)(const weft_collider *c, const double p[3], double S[9]);
    /* Optional: the velocity (m/s) of its surface at the surface point p beyond the
     * collider's translation, for a shape that turns in place without changing (a sphere
     * spinning about its centre: ω × (p − c)); tangential, so normal velocities stay those
     * of the translation. NULL: the surface moves with the translation only. */
    void (*spin)(const weft_collider *c, const double p[3], double w[3]);
} weft_collider_type;

/* The registered collider types, NULL-terminated. */
extern const weft_collider_type *const weft_collider_registry[];

/* The type of collider c. */
const weft_collider_type *weft_collider_type_of(const weft_collider *c);

/* The registered collider type of that name, or NULL. */
const weft_collider_type *weft_collider_find(const char *name);

/* The row of type t's table for key, or NULL. */
const weft_collider_param *weft_collider_param_find(const weft_collider_type *t,
                                                    const char *key);

/* A collider of type t with its table's defaults, at rest, friction and restitution 0. */
void weft_collider_init(weft_collider *c, const weft_collider_type *t);

/* Signed distance of p from collider c where it stands at t = 0 (m), with the outward
 * normal at the closest surface point in n (may be NULL). */
double weft_collider_distance(const weft_collider *c, const double p[3], double n[3]);

/* Signed distance of p from collider c at time t (s), m, with the outward normal in n (may
 * be NULL): the distance of p - u t from the collider at t = 0. A static collider gives
 * exactly weft_collider_distance's values at every t. */
double weft_collider_distance_at(const weft_collider *c, const double p[3], double t,
                                 double n[3]);

/* Moves p (m) onto collider c's surface at time t grown by margin (m), along the outward
 * normal, which goes to n; returns the signed gap p had (distance − margin). */
double weft_collider_project_at(const weft_collider *c, double p[3], double t, double margin,
                                double n[3]);

/* The shape operator S = ∂n̂/∂p of collider c at p at time t (1/m, row-major 3×3): its
 * type's curvature hook, or central differences of the normal where it has none. */
void weft_collider_curvature_at(const weft_collider *c, const double p[3], double t,
                                double S[9]);

/* True when c moves (a non-zero velocity). */
bool weft_collider_moving(const weft_collider *c);

/* The velocity u (m/s) of collider c's surface at the surface point p (m) at time t (s):
 * its translation plus, for a spinning shape, its type's spin hook at p − (translation) t.
 * Returns false (u zero) for a surface at rest. */
bool weft_collider_surface_velocity(const weft_collider *c, const double p[3], double t,
                                    double u[3]);

/* Its type's segment test, in the collider's frame (see weft_collider_type). */
bool weft_collider_segment_entry(const weft_collider *c, const double x0[3],
                                 const double x1[3], double margin, double *t, double n[3]);

/* ------------------------------------------------------------------------------ */
/* The contact toolkit (lib/collider/contact.c; papers/contact.md): one vertex against  */
/* one collider, through the type's hooks only                                      */
/* ------------------------------------------------------------------------------ */

/* (v − u)·n, the normal velocity relative to a collider moving at u (NULL: static). */
double weft_contact_normal_velocity(const double v[3], const double n[3], const double *u);

/* The contact response every solver and the collision pipeline use: with v − u = v_n n̂ +
 * v_t (u the collider's velocity, NULL for a static one; n the unit normal), v becomes
 * u + vn_new n̂ + max(0, 1 − μ dvn/|v_t|) v_t: the normal velocity that non-penetration and
 * restitution ask for, and Coulomb friction bounded by μ times the contact's normal
 * velocity change dvn ≥ 0 (m/s). */
void weft_contact_response(double v[3], const double n[3], const double *u, double vn_new,
                           double dvn, double mu);

/* Gap of p from collider c at time t (s): its signed distance minus margin (m), with the
 * outward normal in n (may be NULL); negative inside the collider grown by margin. */
double weft_contact_gap(const weft_collider *c, const double p[3], double t, double margin,
                        double n[3]);

/* Projects p (m, in place) onto collider c's surface offset by margin, where c stands at
 * time t (weft_collider_project_at: the type's hook, else p −= g n), only when its gap g
 * < 0 unless always (a contact held on the surface). Returns g (m), the normal in n (may
 * be NULL). */
double weft_contact_project(const weft_collider *c, double t, double margin, bool always,
                            double p[3], double n[3]);

/* Swept entry of the straight path x0 (at time t0) → x1 (at t1) into collider c grown by
 * margin (m), in the collider's frame: true when x0 starts outside (gap ≥ 0) and the path
 * enters; then q is the entry point (m) where c stands at t1, n the outward normal there. */
bool weft_contact_swept_entry(const weft_collider *c, const double x0[3], double t0,
                              const double x1[3], double t1, double margin, double q[3],
                              double n[3]);

/* (x1 − x0)·n relative to collider c (m): the path x0 (at t0) → x1 (at t1) in c's frame
 * along n; divided by the step, the normal velocity restitution starts from. */
double weft_contact_path_approach(const weft_collider *c, const double x0[3], double t0,
                                  const double x1[3], double t1, const double n[3]);

/* The velocity update of a vertex at p (m) touching collider c at time t (s) (v in m/s, in
 * place; n the unit normal): restitution (a contact approached at vn_before < 0, m/s,
 * relative to c leaves at no less than −e vn_before) and Coulomb friction bounded by
 * μ |Δv_n|, relative to c's surface velocity at p (weft_collider_surface_velocity). */
void weft_contact_velocity_update(const weft_collider *c, const double p[3], double t,
                                  double v[3], const double n[3], double vn_before);

/* Coulomb friction of collider c on the vertex at p (m) at time t (s), v (m/s, in place; n
 * the unit normal): the normal velocity kept, the tangential one relative to c's surface
 * velocity at p reduced by up to μ dvn (dvn ≥ 0, the contact's normal velocity change,
 * m/s). */
void weft_contact_friction(const weft_collider *c, const double p[3], double t, double v[3],
                           const double n[3], double dvn);

/* A triangle-mesh obstacle ([collider.NAME] type = mesh): scripted (infinite mass),
 * moving by a constant translation, x(t) = x_rest + u t. Only the collision pipeline
 * (lib/collision/weft_collision.h) sees it: the solvers' own contact handling knows the
 * analytic shapes only, so a model with obstacles needs [collision] pipeline = bridson. */
typedef struct weft_obstacle {
    char name[64];
    weft_mesh mesh;     /* rest positions x_rest (mesh.x, m), triangles and topology */
    double velocity[3]; /* u, m/s */
    double friction;    /* Coulomb coefficient μ >= 0 against the cloth */
    char where[400];    /* "file:line: collider.NAME.type" of its scene section, for errors */
} weft_obstacle;

/* Positions of obstacle o at time t (s), x_rest + u t, into x (3*nv values, m). */
void weft_obstacle_positions(const weft_obstacle *o, double t, double *x);

typedef enum { WEFT_PIN_FIXED, WEFT_PIN_TRANSLATE, WEFT_PIN_ROTATE } weft_pin_motion;

/* Scripted path of a pinned vertex: x(t) = c + R(ω t)(x0 - c) + u t. */
typedef struct weft_pin_path {
    weft_pin_motion motion;
    double velocity[3]; /* u, m/s (translate) */
    double omega[3];    /* ω, rad/s, axis times rate (rotate) */
    double center[3];   /* c, m (rotate) */
} weft_pin_path;

/* Position at time t (s) of a pinned vertex that started at x0. */
void weft_pin_position(const weft_pin_path *p, const double x0[3], double t, double out[3]);

#endif
