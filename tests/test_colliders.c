/* test_colliders.c — properties every registered collider shape must have, checked for
 * each entry of weft_collider_registry, so a new shape (docs/guide-collider.md) is tested
 * by adding its registry line. Each shape gets one sample collider with every geometry
 * field of weft_collider filled (a shape reads the fields it needs), and deterministic
 * sample points in a 2 m box around it:
 *   distance:  the normal is a unit vector, equal to the finite-difference gradient of
 *              the signed distance, and p − d(p) n lies on the surface, wherever the
 *              distance is smooth (sampled away from a box's medial planes);
 *   segment:   a segment from outside the grown collider (d > margin) to inside (d < 0)
 *              enters it at t ∈ [0, 1] with no sample before t inside the grown shape;
 *              for a smooth shape d(x(t)) = margin and n is the distance's normal there;
 *              a shape with edges may grow by margin per face (a box of half-extents +
 *              margin), so there margin ≤ d(x(t)) ≤ √3 margin. A segment whose samples
 *              all stay farther than √3 margin reports no entry. */
#include "check.h"
#include "weft.h"
#include "weft_vec.h"

/* One collider of shape t with every geometry field set (lengths in m). */
static weft_collider sample(const weft_collider_type *t) {
    weft_collider c = {.type = t, .radius = 0.4, .friction = 0.3, .restitution = 0.0};
    snprintf(c.name, sizeof c.name, "%s", t->name);
    const double centre[3] = {0.05, -0.02, 0.03}, normal[3] = {0.0, 1.0, 0.0};
    const double half[3] = {0.5, 0.3, 0.4};
    for (int k = 0; k < 3; k++) {
        c.point[k] = c.center[k] = centre[k];
        c.normal[k] = normal[k];
        c.half_extents[k] = half[k];
    }
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
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
