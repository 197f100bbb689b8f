/* test_colliders.c — properties every registered collider shape must have, checked for
 * each entry of weft_collider_registry, so a new shape (docs/guide-collider.md) is tested
 * by adding its registry line. Each shape gets one sample collider (its table's defaults,
 * with the keys below moved off the origin where it has them), and deterministic sample
 * points in a 2 m box around it:
 *   distance:  the normal is a unit vector, equal to the finite-difference gradient of
 *              the signed distance, and p − d(p) n lies on the surface, wherever the
 *              distance is smooth (sampled away from a box's medial planes);
 *   segment:   a segment from outside the grown collider (d > margin) to inside (d < 0)
 *              enters it at t ∈ [0, 1] with no sample before t inside the grown shape;
 *              for a smooth shape d(x(t)) = margin and n is the distance's normal there;
 *              a shape with edges may grow by margin per face (a box of half-extents +
 *              margin), so there margin ≤ d(x(t)) ≤ √3 margin. A segment whose samples
 *              all stay farther than √3 margin reports no entry;
 *   table:     every key fits the parameter block, no two overlap, defaults in range;
 *   curvature: the shape operator is symmetric and equals central differences of the
 *              normal (the hook where the type has one, and the generic fallback);
 *   project:   a projected point (static and moving collider) is at distance margin;
 *   contact:   the contact toolkit (lib/collider/contact.c) on drape_sphere's colliders,
 *              built from the scene (no shape fields read here), the ball moving at
 *              u = (0.5, 0, 0) m/s: a swept entry ends on the grown ball where it stands
 *              at t1, on the path seen in its frame, and a path that starts inside reports
 *              none; the projection lands on the surface offset by the margin (or leaves
 *              an outside point alone); restitution and Coulomb friction give their
 *              closed forms, relative to the moving ball. */
#include "check.h"
#include "collider_helpers.h"
#include "scene_build.h"
#include "weft.h"
#include "weft_energies.h"
#include "weft_vec.h"

/* One collider of shape t: its defaults, with these keys set where t has them (m). */
static weft_collider sample(const weft_collider_type *t) {
    weft_collider c = collider_of(t->name);
    static const struct {
        const char *key;
        double v[3];
    } set[] = {{"point", {0.05, -0.02, 0.03}}, {"center", {0.05, -0.02, 0.03}},
               {"radius", {0.4}}, {"half_extents", {0.5, 0.3, 0.4}},
               {"start", {-0.1, -0.4, 0.05}}, {"end", {0.2, 0.35, -0.1}}};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        if (weft_collider_param_find(t, set[i].key))
            collider_set(&c, set[i].key, set[i].v[0], set[i].v[1], set[i].v[2]);
    return c;
}

/* Deterministic points in [−1, 1]³ (a linear congruential sequence; no library RNG). */
static void next_point(unsigned long long *s, double p[3]) {
    for (int k = 0; k < 3; k++) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        p[k] = 2.0 * (double)(*s >> 11) / 9007199254740992.0 - 1.0;
    }
}

/* Central-difference gradient of the signed distance at p with step h. */
static void fd_gradient(const weft_collider *c, const double p[3], double h, double g[3]) {
    double q[3];
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < 3; j++) q[j] = p[j];
        q[k] = p[k] + h;
        double up = c->type->distance(c, q, NULL);
        q[k] = p[k] - h;
        g[k] = (up - c->type->distance(c, q, NULL)) / (2.0 * h);
    }
}

/* True where the signed distance is smooth around p (the gradients at two steps agree),
 * which leaves out points near a box's medial planes and a sphere's centre. */
static bool regular(const weft_collider *c, const double p[3]) {
    double g1[3], g2[3];
    fd_gradient(c, p, 1e-4, g1);
    fd_gradient(c, p, 1e-6, g2);
    for (int k = 0; k < 3; k++)
        if (fabs(g1[k] - g2[k]) > 1e-6) return false;
    return true;
}

static void test_distance(void) {
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++) {
        weft_collider c = sample(*t);
        unsigned long long s = 12345;
        int checked = 0;
        for (int i = 0; i < 2000; i++) {
            double p[3], n[3], q[3], nq[3];
            next_point(&s, p);
            double d = c.type->distance(&c, p, n);
            CHECK(isfinite(d));
            CHECK_NEAR(weft_dot3(n, n), 1.0, 1e-12);
            if (fabs(d) < 1e-3 || !regular(&c, p)) continue;
            double g[3];
            fd_gradient(&c, p, 1e-6, g);
            for (int k = 0; k < 3; k++) CHECK_NEAR(n[k], g[k], 1e-6);
            for (int k = 0; k < 3; k++) q[k] = p[k] - d * n[k];
            CHECK_NEAR(c.type->distance(&c, q, nq), 0.0, 1e-12);
            checked++;
        }
        if (checked < 500) fprintf(stderr, "%s: only %d regular points\n", c.type->name, checked);
        CHECK(checked >= 500);
    }
}

/* Signed distance at parameter u of the segment x0 → x1. */
static double along(const weft_collider *c, const double x0[3], const double x1[3], double u) {
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = x0[k] + u * (x1[k] - x0[k]);
    return c->type->distance(c, x, NULL);
}

static void test_segment(void) {
    const double margin = 0.01;
    const int samples = 400;
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++) {
        weft_collider c = sample(*t);
        unsigned long long s = 987654321;
        int entries = 0, misses = 0;
        for (int i = 0; i < 4000; i++) {
            double x0[3], x1[3], n[3], te = -1.0;
            next_point(&s, x0);
            next_point(&s, x1);
            double d0 = along(&c, x0, x1, 0.0), d1 = along(&c, x0, x1, 1.0);
            if (d0 <= margin + 1e-6) continue; /* starts inside the grown collider */
            double dmin = d0;
            for (int j = 1; j <= samples; j++) {
                double dj = along(&c, x0, x1, (double)j / samples);
                dmin = dj < dmin ? dj : dmin;
            }
            bool hit = c.type->segment_entry(&c, x0, x1, margin, &te, n);
            if (d1 < 0.0) { /* ends inside: it must enter */
                CHECK(hit);
                if (!hit) continue;
                CHECK(te >= 0.0 && te <= 1.0);
                double de = along(&c, x0, x1, te);
                if (c.type->smooth)
                    CHECK_NEAR(de, margin, 1e-9);
                else
                    CHECK(de >= margin - 1e-9 && de <= sqrt(3.0) * margin + 1e-9);
                for (int j = 0; j < samples && (double)j / samples < te - 1e-9; j++)
                    CHECK(along(&c, x0, x1, (double)j / samples) > margin - 1e-9);
                double x[3], nd[3];
                for (int k = 0; k < 3; k++) x[k] = x0[k] + te * (x1[k] - x0[k]);
                c.type->distance(&c, x, nd);
                if (c.type->smooth && regular(&c, x)) CHECK(weft_dot3(n, nd) > 1.0 - 1e-6);
                entries++;
            } else if (dmin > sqrt(3.0) * margin + 1e-3) { /* clear of it everywhere */
                CHECK(!hit);
                misses++;
            }
        }
        if (entries < 100 || misses < 100)
            fprintf(stderr, "%s: %d entries, %d misses sampled\n", c.type->name, entries, misses);
        CHECK(entries >= 100 && misses >= 100);
    }
}

/* Each type's table fits weft_collider.param without overlaps, keys are unique and the
 * defaults lie in range; a collider made from the table holds those defaults. */
static void test_table(void) {
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++) {
        bool used[WEFT_COLLIDER_PARAM_MAX] = {false};
        weft_collider c;
        weft_collider_init(&c, *t);
        CHECK((*t)->params != NULL);
        for (const weft_collider_param *q = (*t)->params; q && q->key; q++) {
            CHECK(q->n == 1 || q->n == 3);
            CHECK(q->at >= 0 && q->at + q->n <= WEFT_COLLIDER_PARAM_MAX);
            CHECK(q->unit && q->doc && q->doc[0]);
            CHECK(weft_collider_param_find(*t, q->key) == q);
            for (int k = 0; k < q->n && q->at + q->n <= WEFT_COLLIDER_PARAM_MAX; k++) {
                CHECK(!used[q->at + k]);
                used[q->at + k] = true;
                CHECK(c.param[q->at + k] == q->dflt[k]);
                if (q->lo < q->hi) CHECK(q->dflt[k] > q->lo && q->dflt[k] <= q->hi);
            }
        }
    }
}

/* Central differences of the unit normal at p with step h: column j is ∂n̂/∂p_j. */
static void fd_shape_operator(const weft_collider *c, const double p[3], double h, double S[9]) {
    for (int j = 0; j < 3; j++) {
        double a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]}, na[3], nb[3];
        a[j] += h, b[j] -= h;
        c->type->distance(c, a, na);
        c->type->distance(c, b, nb);
        for (int i = 0; i < 3; i++) S[3 * i + j] = (na[i] - nb[i]) / (2.0 * h);
    }
}

/* The shape operator against differences of the normal at regular points, through the
 * type's hook and through the generic fallback (a copy of the type without the hook). */
static void test_curvature(void) {
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++) {
        weft_collider c = sample(*t);
        weft_collider_type bare = **t;
        bare.curvature = NULL;
        weft_collider cb = c;
        cb.type = &bare;
        unsigned long long s = 2468;
        int checked = 0;
        for (int i = 0; i < 2000; i++) {
            double p[3], S[9], Sb[9], F1[9], F2[9];
            next_point(&s, p);
            if (fabs(c.type->distance(&c, p, NULL)) < 1e-3 || !regular(&c, p)) continue;
            fd_shape_operator(&c, p, 1e-4, F1);
            fd_shape_operator(&c, p, 1e-5, F2);
            bool smooth = true; /* the normal is differentiable around p */
            for (int k = 0; k < 9; k++) smooth = smooth && fabs(F1[k] - F2[k]) < 1e-4;
            if (!smooth) continue;
            weft_collider_curvature_at(&c, p, 0.0, S);
            weft_collider_curvature_at(&cb, p, 0.0, Sb);
            for (int k = 0; k < 9; k++) {
                CHECK_NEAR(S[k], F2[k], 1e-5 * (1.0 + fabs(F2[k])));
                CHECK_NEAR(Sb[k], F2[k], 1e-4 * (1.0 + fabs(F2[k])));
            }
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) CHECK_NEAR(S[3 * a + b], S[3 * b + a], 1e-12);
            checked++;
        }
        if (checked < 300) fprintf(stderr, "%s: only %d smooth points\n", c.type->name, checked);
        CHECK(checked >= 300);
    }
}

/* Projection with a margin onto a static collider and onto one moving at u, at time t:
 * the projected point is margin from the surface where the collider stands at t. */
static void test_project(void) {
    const double margin = 0.01, tm = 0.5;
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++) {
        weft_collider c = sample(*t), mv = c;
        mv.velocity[0] = 0.2, mv.velocity[1] = -0.1;
        unsigned long long s = 1357;
        for (int i = 0; i < 500; i++) {
            double p[3], q[3], n[3], n2[3];
            next_point(&s, p);
            for (int k = 0; k < 3; k++) q[k] = p[k];
            double d = weft_collider_project_at(&c, q, 0.0, margin, n);
            CHECK_NEAR(d, c.type->distance(&c, p, NULL) - margin, 1e-15);
            if (regular(&c, p)) CHECK_NEAR(weft_collider_distance(&c, q, n2), margin, 1e-12);
            for (int k = 0; k < 3; k++) q[k] = p[k];
            d = weft_collider_project_at(&mv, q, tm, margin, n);
            CHECK_NEAR(d, weft_collider_distance_at(&mv, p, tm, NULL) - margin, 1e-15);
            double r[3] = {p[0] - 0.2 * tm, p[1] + 0.1 * tm, p[2]};
            if (regular(&c, r))
                CHECK_NEAR(weft_collider_distance_at(&mv, q, tm, n2), margin, 1e-12);
        }
    }
}

/* contact (file comment). */
static void test_contact(void) {
    weft_model m;
    static const char *const sets[] = {"mesh.nx=2", "mesh.ny=2", "collider.ball.velocity=0.5,0,0",
                                       "collider.ground.friction=0.5",
                                       "collider.ground.restitution=0.5", NULL};
    if (!scene_build("drape_sphere", sets, weft_energy_registry, &m)) return;
    const weft_collider *ball = NULL, *ground = NULL;
    for (int c = 0; c < m.ncolliders; c++) {
        if (!strcmp(m.colliders[c].name, "ball")) ball = &m.colliders[c];
        if (!strcmp(m.colliders[c].name, "ground")) ground = &m.colliders[c];
    }
    CHECK(ball && ground && ball->friction == 0.3);
    if (!ball || !ground) goto out;
    const double delta = m.contact_margin, u[3] = {0.5, 0.0, 0.0};
    CHECK(delta == 0.002);
    /* Swept entry into the moving ball: from above at t0 = 0.2 s into it at t1 = 0.3 s. */
    const double t0 = 0.2, t1 = 0.3, x0[3] = {0.0, 1.0, 0.0}, x1[3] = {0.0, 0.4, 0.0};
    double q[3], n[3], nq[3];
    CHECK(weft_contact_swept_entry(ball, x0, t0, x1, t1, delta, q, n));
    CHECK(fabs(weft_contact_gap(ball, q, t1, delta, nq)) < 1e-12);
    for (int k = 0; k < 3; k++) CHECK(fabs(n[k] - nq[k]) < 1e-9);
    double a0[3], a1[3], e[3], d[3], cr[3];
    for (int k = 0; k < 3; k++) {
        a0[k] = x0[k] - u[k] * t0, a1[k] = x1[k] - u[k] * t1;
        e[k] = a1[k] - a0[k], d[k] = q[k] - u[k] * t1 - a0[k];
    }
    weft_cross3(e, d, cr);
    CHECK(sqrt(weft_dot3(cr, cr)) < 1e-12 && weft_dot3(d, e) > 0.0 &&
          weft_dot3(d, d) < weft_dot3(e, e));
    /* The approach along n over the path, in the ball's frame: (a1 − a0)·n. */
    CHECK(fabs(weft_contact_path_approach(ball, x0, t0, x1, t1, n) - weft_dot3(e, n)) < 1e-15);
    /* A path that starts inside the grown ball (its centre at t0 is (0.1, 0.3, 0)). */
    const double inside[3] = {0.1, 0.31, 0.0};
    CHECK(!weft_contact_swept_entry(ball, inside, t0, x1, t1, delta, q, n));
    /* Projection: onto the surface offset by the margin; an outside point stays put unless
     * held on the surface (always). */
    double p[3] = {0.1, 0.5, 0.0};
    double g = weft_contact_project(ball, t0, delta, false, p, n);
    CHECK(g < 0.0 && fabs(weft_contact_gap(ball, p, t0, delta, NULL)) < 1e-12);
    double out[3] = {0.1, 0.7, 0.0}, keep[3] = {0.1, 0.7, 0.0};
    CHECK(weft_contact_project(ball, t0, delta, false, out, NULL) > 0.0);
    CHECK(out[0] == keep[0] && out[1] == keep[1] && out[2] == keep[2]);
    weft_contact_project(ball, t0, delta, true, out, NULL);
    CHECK(fabs(weft_contact_gap(ball, out, t0, delta, NULL)) < 1e-12);
    /* Restitution e = 0.5 and μ = 0.5 on the static ground (n = +y). Arriving at −2 m/s:
     * leaves at 1 m/s, Δv_n = 3, and friction 0.5·3 ≥ |v_t| = 1 stops the sliding. */
    const double up[3] = {0.0, 1.0, 0.0};
    double v[3] = {1.0, -2.0, 0.0};
    const double on_ground[3] = {0.3, 0.0, 0.2};
    weft_contact_velocity_update(ground, on_ground, t0, v, up, -2.0);
    CHECK(fabs(v[0]) < 1e-15 && fabs(v[1] - 1.0) < 1e-15 && v[2] == 0.0);
    /* Approached at −0.2 m/s, now at rest: v_n = 0.1, Δv_n = 0.3, v_t × (1 − 0.15). */
    double w[3] = {1.0, 0.0, 0.0};
    weft_contact_velocity_update(ground, on_ground, t0, w, up, -0.2);
    CHECK(fabs(w[0] - 0.85) < 1e-15 && fabs(w[1] - 0.1) < 1e-15 && w[2] == 0.0);
    /* Friction alone on the moving ball's top (μ = 0.3): v − u = (1, 0, 0) loses 0.3·0.4. */
    double vb[3] = {1.5, 0.0, 0.0}, top[3] = {0.1, 5.0, 0.0};
    weft_collider_project_at(ball, top, t0, 0.0, n);
    weft_contact_friction(ball, top, t0, vb, up, 0.4);
    CHECK(fabs(vb[0] - 1.38) < 1e-15 && vb[1] == 0.0 && vb[2] == 0.0);
    /* Spinning at ω = (0, 2, 0) rad/s: the surface at the equator point c + (r, 0, 0)
     * moves at u + ω × (r, 0, 0) = (0.5, 0, −2r); at the top (on the axis) at u alone.
     * Friction drags a vertex at rest there along (sticking: μ Δv_n ≥ |v_t|): it takes the
     * surface's tangential velocity (0, 0, −2r) and keeps its own normal one (0). */
    weft_collider spun = *ball;
    const weft_collider_param *om = weft_collider_param_find(spun.type, "angular_velocity");
    CHECK(om && om->n == 3);
    if (!om) goto out;
    spun.param[om->at + 1] = 2.0;
    double eq[3] = {5.0, 0.3, 0.0}, ne[3], us[3]; /* the centre at t0 is (0.1, 0.3, 0) */
    weft_collider_project_at(&spun, eq, t0, 0.0, ne);
    double rad = eq[0] - 0.1;
    CHECK(fabs(eq[1] - 0.3) < 1e-12 && rad > 0.1);
    CHECK(weft_collider_surface_velocity(&spun, eq, t0, us));
    CHECK(fabs(us[0] - 0.5) < 1e-15 && us[1] == 0.0 && fabs(us[2] + 2.0 * rad) < 1e-12);
    CHECK(weft_collider_surface_velocity(&spun, top, t0, us) && us[0] == 0.5 && us[2] == 0.0);
    double vs[3] = {0.0, 0.0, 0.0};
    weft_contact_friction(&spun, eq, t0, vs, ne, 10.0);
    CHECK(fabs(vs[0]) < 1e-12 && vs[1] == 0.0 && fabs(vs[2] + 2.0 * rad) < 1e-12);
    weft_collider still = *ball; /* no spin, no translation: a surface at rest */
    still.velocity[0] = 0.0;
    CHECK(!weft_collider_surface_velocity(&still, eq, t0, us) && us[2] == 0.0);
out:
    weft_model_free(&m);
}

/* The registry is what the scene reader offers: every shape has a name and both hooks. */
static void test_registry(void) {
    int n = 0;
    for (const weft_collider_type *const *t = weft_collider_registry; *t; t++, n++) {
        CHECK((*t)->name && (*t)->name[0]);
        CHECK((*t)->summary && (*t)->summary[0]);
        CHECK((*t)->distance != NULL);
        CHECK((*t)->segment_entry != NULL);
        CHECK(weft_collider_find((*t)->name) == *t);
    }
    CHECK(n >= 3); /* plane, sphere, box */
}

int main(int argc, char **argv) {
    static const check_case cases[] = {
        {"registry", test_registry},
        {"distance", test_distance},
        {"segment", test_segment},
        {"table", test_table},
        {"curvature", test_curvature},
        {"project", test_project},
        {"contact", test_contact},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
