/* util.c — small shared pieces of the common layer: error formatting, the assertion
 * failure path, the monotonic clock, the interrupt flag, scripted pin paths (Rodrigues'
 * rotation formula) and signed distances to the colliders (planes, spheres, axis-aligned
 * boxes), static or translating. */
#include "weft.h"

#include <errno.h>
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

bool weft_parse_number(const char *text, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v)) return false;
    while (*end == ' ' || *end == '\t') end++;
    if (*end == '/') { /* A/B: a fraction such as 1/120 */
        const char *b = end + 1;
        errno = 0;
        double d = strtod(b, &end);
        if (end == b || errno == ERANGE || !isfinite(d) || d == 0.0) return false;
        while (*end == ' ' || *end == '\t') end++;
        v /= d;
        if (!isfinite(v)) return false;
    }
    if (*end) return false;
    *out = v;
    return true;
}
