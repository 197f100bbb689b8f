/* util.c — small shared pieces of the common layer: error formatting, the assertion
 * failure path, the monotonic clock, the interrupt flag, scripted pin paths (Rodrigues'
 * rotation formula) and signed distances to the colliders, static or translating. */
#include "weft.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int weft_suggest_distance(const char *a, const char *b) {
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63 || lb > 63) return 99;
    /* Three rows of the dynamic programme: d[i][j] is the distance of the first i
     * characters of a and the first j of b. */
    int prev2[64], prev[64], cur[64];
    for (int j = 0; j <= lb; j++) prev2[j] = prev[j] = j;
    for (int i = 1; i <= la; i++) {
        cur[0] = i;
        for (int j = 1; j <= lb; j++) {
            int best = prev[j - 1] + (a[i - 1] != b[j - 1]); /* substitute (or keep) */
            if (prev[j] + 1 < best) best = prev[j] + 1;        /* delete a[i-1] */
            if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;  /* insert b[j-1] */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1; /* swap two neighbours */
            cur[j] = best;
        }
        memcpy(prev2, prev, sizeof(int) * (size_t)(lb + 1));
        memcpy(prev, cur, sizeof(int) * (size_t)(lb + 1));
    }
    return prev[lb];
}

void weft_suggest_init(weft_suggest *s, const char *word) {
    *s = (weft_suggest){.word = word, .best = NULL, .d = 1 << 30};
}

void weft_suggest_offer(weft_suggest *s, const char *name) {
    if (!name || !strcmp(name, s->word)) return;
    int d = weft_suggest_distance(s->word, name);
    if (d < s->d) s->d = d, s->best = name;
}

const char *weft_suggest_best(const weft_suggest *s) {
    if (!s->best) return NULL;
    size_t lw = strlen(s->word), ln = strlen(s->best);
    int longer = (int)(lw > ln ? lw : ln), limit = longer / 3 > 1 ? longer / 3 : 1;
    return s->d <= limit ? s->best : NULL;
}

void weft_appendf(char *buf, size_t size, int *len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t at = (size_t)*len;
    int n = vsnprintf(at < size ? buf + at : NULL, at < size ? size - at : 0, fmt, ap);
    va_end(ap);
    if (n > 0) *len += n;
}

/* The code of this thread's last weft_fail (weft_error_code). */
static _Thread_local int last_code;

int weft_error_code(int fallback) {
    return last_code < 0 ? last_code : fallback;
}

int weft_fail(weft_error *err, int code, const char *fmt, ...) {
    last_code = code;
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
