/* util.c — small shared pieces of the common layer: error formatting, the assertion
 * failure path, the monotonic clock, the interrupt flag, scripted pin paths (Rodrigues'
 * rotation formula) and signed distances to the colliders (planes, spheres, axis-aligned
 * boxes), static or translating. */
#include "weft.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int weft_fail(weft_error *err, int code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        /* Messages are one line: fold any newline a caller passed through. */
        for (char *c = err->msg; *c; c++)
            if (*c == '\n') *c = ' ';
    }
    return code;
}

void weft_assert_fail(const char *cond, const char *file, int line, const char *func) {
    fprintf(stderr, "%s:%d: %s: assertion '%s' failed\n", file, line, func, cond);
    abort();
}

double weft_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile sig_atomic_t interrupted_flag = 0;

/* Only sets a flag: the run loop stops at the end of the current step and closes its
 * log as incomplete, which a signal handler could not do safely. */
static void on_signal(int sig) {
    (void)sig;
    interrupted_flag = 1;
}

void weft_install_interrupt_handler(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

bool weft_interrupted(void) { return interrupted_flag != 0; }

void weft_pin_position(const weft_pin_path *p, const double x0[3], double t, double out[3]) {
    switch (p->motion) {
    case WEFT_PIN_FIXED:
        for (int k = 0; k < 3; k++) out[k] = x0[k];
        return;
    case WEFT_PIN_TRANSLATE:
        for (int k = 0; k < 3; k++) out[k] = x0[k] + p->velocity[k] * t;
        return;
    case WEFT_PIN_ROTATE: {
        /* Rodrigues: R r = r cosθ + (a × r) sinθ + a (a·r)(1 - cosθ), θ = |ω| t. */
        double rate = sqrt(p->omega[0] * p->omega[0] + p->omega[1] * p->omega[1] +
                           p->omega[2] * p->omega[2]);
        double r[3] = {x0[0] - p->center[0], x0[1] - p->center[1], x0[2] - p->center[2]};
        if (rate == 0.0) {
            for (int k = 0; k < 3; k++) out[k] = x0[k] + p->velocity[k] * t;
            return;
        }
        double a[3] = {p->omega[0] / rate, p->omega[1] / rate, p->omega[2] / rate};
        double th = rate * t, c = cos(th), s = sin(th);
        double axr[3] = {a[1] * r[2] - a[2] * r[1], a[2] * r[0] - a[0] * r[2],
                         a[0] * r[1] - a[1] * r[0]};
        double adr = a[0] * r[0] + a[1] * r[1] + a[2] * r[2];
        for (int k = 0; k < 3; k++)
            out[k] = p->center[k] + r[k] * c + axr[k] * s + a[k] * adr * (1.0 - c) +
                     p->velocity[k] * t;
        return;
    }
    }
}

/* Signed distance of p from the axis-aligned box (centre c, half extents h) and the outward
 * normal at the closest surface point. With q = |p - c| - h per axis: outside (some
 * q_k > 0) the distance is |max(q, 0)| and the normal points from the closest point of
 * the box to p (a face, edge or corner region); inside it is max_k q_k < 0 (or 0 on the
 * surface), the nearest face's, whose normal is ±e_k. Ties go to the lowest axis, and a
 * point on the centre plane of that axis to its + face. */
static double box_distance(const double c[3], const double h[3], const double p[3],
                           double n[3]) {
    double d[3], q[3], out2 = 0.0;
    int face = 0;
    for (int k = 0; k < 3; k++) {
        d[k] = p[k] - c[k];
        q[k] = fabs(d[k]) - h[k];
        if (q[k] > 0.0) out2 += q[k] * q[k];
        if (q[k] > q[face]) face = k;
    }
    if (out2 > 0.0) {
        double len = sqrt(out2);
        if (n)
            for (int k = 0; k < 3; k++) n[k] = q[k] > 0.0 ? copysign(q[k], d[k]) / len : 0.0;
        return len;
    }
    if (n) {
        for (int k = 0; k < 3; k++) n[k] = 0.0;
        n[face] = d[face] < 0.0 ? -1.0 : 1.0;
    }
    return q[face];
}

double weft_collider_distance(const weft_collider *c, const double p[3], double n[3]) {
    if (c->kind == WEFT_COLLIDER_PLANE) {
        if (n)
            for (int k = 0; k < 3; k++) n[k] = c->normal[k];
        return (p[0] - c->point[0]) * c->normal[0] + (p[1] - c->point[1]) * c->normal[1] +
               (p[2] - c->point[2]) * c->normal[2];
    }
    if (c->kind == WEFT_COLLIDER_BOX) return box_distance(c->center, c->half_extents, p, n);
    double d[3] = {p[0] - c->center[0], p[1] - c->center[1], p[2] - c->center[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (n) {
        if (len > 0.0) {
            for (int k = 0; k < 3; k++) n[k] = d[k] / len;
        } else { /* at the centre every direction is closest: pick +y (up) */
            n[0] = 0.0, n[1] = 1.0, n[2] = 0.0;
        }
    }
    return len - c->radius;
}

bool weft_collider_moving(const weft_collider *c) {
    return c->velocity[0] != 0.0 || c->velocity[1] != 0.0 || c->velocity[2] != 0.0;
}

double weft_collider_distance_at(const weft_collider *c, const double p[3], double t,
                                 double n[3]) {
    /* A static collider takes p itself, not p - 0 t, so its values stay bit for bit those
     * of weft_collider_distance (and no -0.0 or NaN from 0 · t can creep in). */
    if (!weft_collider_moving(c)) return weft_collider_distance(c, p, n);
    double q[3];
    for (int k = 0; k < 3; k++) q[k] = p[k] - c->velocity[k] * t;
    return weft_collider_distance(c, q, n);
}
