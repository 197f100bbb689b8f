/* check.h — a minimal test harness: each test file defines a table of named cases;
 * CTest runs each case as its own test ("test_mesh grid"), so one failure never hides
 * the others. A failed CHECK prints file:line and the expression, and the case fails. */
#ifndef WEFT_CHECK_H
#define WEFT_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures = 0;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

/* |a - b| <= tol, printing both values on failure. */
#define CHECK_NEAR(a, b, tol)                                                         \
    do {                                                                              \
        double check_a_ = (a), check_b_ = (b), check_t_ = (tol);                      \
        if (!(fabs(check_a_ - check_b_) <= check_t_)) {                               \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g, tol %g\n", \
                    __FILE__, __LINE__, #a, check_a_, #b, check_b_, check_t_);        \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

typedef struct check_case {
    const char *name;
    void (*fn)(void);
} check_case;

/* Runs the case named argv[1] (or every case with no argument); exit 1 on failure. */
static inline int check_main(int argc, char **argv, const check_case *cases) {
    int ran = 0;
    for (const check_case *c = cases; c->name; c++) {
        if (argc > 1 && strcmp(argv[1], c->name) != 0) continue;
        c->fn();
        ran++;
    }
    if (ran == 0) {
        fprintf(stderr, "no test case named '%s'\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}

#endif
