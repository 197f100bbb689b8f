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

/* An obstacle, static or translating with constant velocity u: its reference point (the
 * plane's point, the sphere's or box's centre) is p0 + u t at time t, p0 the value below.
 * Plane: points p with (p - point)·normal >= 0 are outside. Box: axis-aligned. */
typedef struct weft_collider {
    char name[64];
    const struct weft_collider_type *type; /* its shape: one of weft_collider_registry */
    double point[3], normal[3]; /* plane: a point on it (m) and unit outward normal */
    double center[3], radius;   /* sphere: centre (m) and radius (m); box: centre (m) */
    double half_extents[3];     /* box: half its size along x, y, z (m), each > 0 */
    double velocity[3];         /* u, m/s; (0, 0, 0) for a static obstacle */
    double friction;            /* Coulomb coefficient μ >= 0 (dimensionless) */
    double restitution;         /* e in [0, 1] */
} weft_collider;

/* A collider shape: one file each in lib/collider/ (plane.c, sphere.c, box.c) and one
 * line of weft_collider_registry (collider.c). Positions are in the collider's own frame
 * (where it stands at t = 0). */
typedef struct weft_collider_type {
    const char *name;        /* [collider.NAME] type */
    const char *summary;
    bool smooth;             /* one normal describes every contact (planes, spheres): the
                                implicit solvers can filter it; a box has edges */
    /* Signed distance of p (m), outward normal at the closest surface point in n (may be
     * NULL). */
    double (*distance)(const weft_collider *c, const double p[3], double n[3]);
    /* First t in [0, 1] where the segment x0 → x1 enters the collider grown by margin
     * (m), with the outward normal there in n; false when it starts inside or misses. */
    bool (*segment_entry)(const weft_collider *c, const double x0[3], const double x1[3],
                          double margin, double *t, double n[3]);
} weft_collider_type;

extern const weft_collider_type weft_collider_plane, weft_collider_sphere, weft_collider_box;

/* The registered collider types, NULL-terminated. */
extern const weft_collider_type *const weft_collider_registry[];

/* The type of collider c. */
const weft_collider_type *weft_collider_type_of(const weft_collider *c);

/* The registered collider type of that name, or NULL. */
const weft_collider_type *weft_collider_find(const char *name);

/* Signed distance of p from collider c where it stands at t = 0 (m), with the outward
 * normal at the closest surface point in n (may be NULL). */
double weft_collider_distance(const weft_collider *c, const double p[3], double n[3]);

/* Signed distance of p from collider c at time t (s), m, with the outward normal in n (may
 * be NULL): the distance of p - u t from the collider at t = 0. A static collider gives
 * exactly weft_collider_distance's values at every t. */
double weft_collider_distance_at(const weft_collider *c, const double p[3], double t,
                                 double n[3]);

/* True when c moves (a non-zero velocity). */
bool weft_collider_moving(const weft_collider *c);

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

/* Projects p (m, in place) along the outward normal onto collider c's surface offset by
 * margin, where c stands at time t: p −= g n, g its gap; only when g < 0 unless always
 * (a contact held on the surface). Returns g (m), the normal in n (may be NULL). */
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

/* The velocity update of a vertex touching collider c (v in m/s, in place; n the unit
 * normal): restitution (a contact approached at vn_before < 0, m/s, relative to c leaves
 * at no less than −e vn_before) and Coulomb friction bounded by μ |Δv_n|. */
void weft_contact_velocity_update(const weft_collider *c, double v[3], const double n[3],
                                  double vn_before);

/* Coulomb friction of collider c on v (m/s, in place; n the unit normal): the normal
 * velocity kept, the tangential one relative to c reduced by up to μ dvn (dvn ≥ 0, the
 * contact's normal velocity change, m/s). */
void weft_contact_friction(const weft_collider *c, double v[3], const double n[3], double dvn);

/* A triangle-mesh obstacle ([collider.NAME] type = mesh): scripted (infinite mass),
 * moving by a constant translation, x(t) = x_rest + u t. Only the collision pipeline
 * (lib/collision/weft_collision.h) sees it: the solvers' own contact handling knows planes and
 * spheres only, so a model with obstacles needs [collision] pipeline = bridson. */
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
