/* alloc_count.h — counts the heap allocations of a test program: tests/CMakeLists.txt
 * links the program with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (weft_alloc_test),
 * so every malloc, calloc and realloc call of weft's statically linked code and of the
 * test itself lands here first. A test sets `allocations = 0`, runs a warm step and
 * asserts the count is still 0 ("nothing allocated per step"). Shared libraries (libc's
 * own callers, LAPACK, CHOLMOD) are not wrapped. Include in exactly one file per test
 * program. */
#ifndef WEFT_ALLOC_COUNT_H
#define WEFT_ALLOC_COUNT_H

#include <stddef.h>

static long allocations = 0;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n) {
    allocations++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size) {
    allocations++;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n) {
    allocations++;
    return __real_realloc(p, n);
}

#endif
