/* sweep_text.c — the `sweep` binary's memory and text: an arena of blocks that grows (a
 * block of 1 MiB, or one as large as a larger request), lists that double in it, text
 * that grows, shell quoting, and whole files read into it. */
#include "sweep.h"
#include "sweep_tool.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One block of the arena; data follows the header, aligned for any type. */
typedef struct block {
    struct block *next;
    size_t size, used;
    max_align_t data[];
} block;

static block *arena; /* the newest block first */

/* Ends the program after the one error the arena has. */
static void out_of_memory(void) {
    fprintf(stderr, "error: sweep: out of memory\n");
    exit(1);
}

void *sweep_alloc(size_t size) {
    const size_t align = sizeof(max_align_t);
    size = (size + align - 1) / align * align;
    if (!arena || arena->size - arena->used < size) {
        size_t bsize = size > ((size_t)1 << 20) ? size : (size_t)1 << 20;
        if (bsize > SIZE_MAX - sizeof(block)) out_of_memory();
        block *b = malloc(sizeof(block) + bsize);
        if (!b) out_of_memory();
        b->size = bsize, b->used = 0;
        /* A block made for one large request goes behind the current one, so that the
         * current one's room is still used. */
        if (arena && size > ((size_t)1 << 20) / 2) {
            b->next = arena->next, arena->next = b;
        } else {
            b->next = arena, arena = b;
        }
        b->used = size;
        memset(b->data, 0, size);
        return b->data;
    }
    void *p = (char *)arena->data + arena->used;
    arena->used += size;
    memset(p, 0, size);
    return p;
}

void sweep_arena_free(void) {
    while (arena) {
        block *next = arena->next;
        free(arena);
        arena = next;
    }
}

void *sweep_grow(void *items, int n, int *cap, size_t size) {
    if (items && n < *cap) return items;
    if (*cap > INT_MAX / 2) out_of_memory();
    int grown = *cap > 0 ? 2 * *cap : 8;
    if ((size_t)grown > SIZE_MAX / size) out_of_memory();
    void *p = sweep_alloc((size_t)grown * size);
    if (items && n > 0) memcpy(p, items, (size_t)n * size);
    *cap = grown;
    return p;
}

char *sweep_keepn(const char *s, size_t n) {
    if (n == SIZE_MAX) out_of_memory();
    char *p = sweep_alloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *sweep_keep(const char *s) {
    return sweep_keepn(s, strlen(s));
}

char *sweep_trimmed(const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '\t')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    return sweep_keepn(s, n);
}

char *sweep_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) out_of_memory();
    char *p = sweep_alloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* Makes room for more bytes (and a terminator) after t's text. */
static void reserve(sweep_text *t, size_t more) {
    if (t->s && t->cap - t->len > more) return;
    size_t cap = t->cap ? t->cap : 256;
    while (cap - t->len <= more) {
        if (cap > SIZE_MAX / 2) out_of_memory();
        cap *= 2;
    }
    char *s = sweep_alloc(cap);
    if (t->s) memcpy(s, t->s, t->len + 1);
    t->s = s, t->cap = cap;
}

void sweep_add(sweep_text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) out_of_memory();
    reserve(t, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

void sweep_word(sweep_text *t, const char *word) {
    bool plain = *word != '\0';
    for (const char *p = word; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._,=/+:@%-",
                       *p) != NULL;
    if (t->len) sweep_add(t, " ");
    if (plain) {
        sweep_add(t, "%s", word);
        return;
    }
    sweep_add(t, "'");
    for (const char *p = word; *p; p++) {
        size_t n = strcspn(p, "'");
        sweep_add(t, "%.*s", (int)n, p);
        p += n;
        if (!*p) break;
        sweep_add(t, "'\\''");
    }
    sweep_add(t, "'");
}

const char *sweep_str(const sweep_text *t) {
    return t->s ? t->s : "";
}

void sweep_shortest(double v, char *buf, size_t size) {
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, size, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    char *e = strchr(buf, 'e');
    if (!e) return;
    char *d = e + 1, *src = e + 1;
    if (*src == '+')
        src++;
    else if (*src == '-')
        d++, src++;
    while (*src == '0' && src[1]) src++;
    memmove(d, src, strlen(src) + 1);
    char digits[32];
    if (v == floor(v) && fabs(v) < 1e15 &&
        (size_t)snprintf(digits, sizeof digits, "%.0f", v) <= strlen(buf))
        snprintf(buf, size, "%s", digits); /* 10, 100 rather than 1e1, 1e2 */
}

bool sweep_number_of(const char *text, double *v) {
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    return end != text && !*end && !errno && isfinite(*v);
}

int sweep_split(const char *text, const char *sep, const char ***out) {
    int n = 0, cap = 0;
    const char **items = NULL;
    for (const char *p = text; *p;) {
        size_t l = strcspn(p, sep);
        char *item = sweep_trimmed(p, l);
        if (*item) {
            items = sweep_grow(items, n, &cap, sizeof *items);
            items[n++] = item;
        }
        p += l;
        if (*p) p++;
    }
    *out = items;
    return n;
}

/* A string and its index, ordered by the string, then the index. */
typedef struct indexed {
    const char *s;
    int i;
} indexed;

static int by_string(const void *a, const void *b) {
    const indexed *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

int sweep_first_repeat(const char *const *strs, int n, int *first) {
    if (n < 2) return -1;
    indexed *v = sweep_alloc((size_t)n * sizeof *v);
    for (int i = 0; i < n; i++) v[i] = (indexed){strs[i], i};
    qsort(v, (size_t)n, sizeof *v, by_string);
    int best = -1; /* in each run of equal strings, the second is the first repeat */
    for (int i = 1; i < n; i++)
        if (!strcmp(v[i].s, v[i - 1].s) && (i < 2 || strcmp(v[i - 1].s, v[i - 2].s)) &&
            (best < 0 || v[i].i < best))
            best = v[i].i, *first = v[i - 1].i;
    return best;
}

int sweep_fields(char *line, char ***out) {
    int n = 0, cap = 0;
    char **f = NULL;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line;; p++) {
        f = sweep_grow(f, n, &cap, sizeof *f);
        f[n++] = p;
        p += strcspn(p, "\t");
        if (!*p) break;
        *p = '\0';
    }
    *out = f;
    return n;
}

char *sweep_slurp(const char *path, bool quiet) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (!quiet) fprintf(stderr, "error: %s: cannot read: %s\n", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen opens a folder too */
        fclose(f);
        if (!quiet) fprintf(stderr, "error: %s: is a directory, not a file\n", path);
        return NULL;
    }
    sweep_text t = {0};
    size_t chunk = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
    int read_errno = 0;
    for (;;) {
        reserve(&t, chunk);
        size_t n = fread(t.s + t.len, 1, t.cap - t.len - 1, f);
        t.len += n;
        t.s[t.len] = '\0';
        if (ferror(f)) read_errno = errno ? errno : EIO;
        if (read_errno || feof(f)) break;
    }
    fclose(f);
    if (read_errno) {
        if (!quiet) fprintf(stderr, "error: %s: cannot read: %s\n", path, strerror(read_errno));
        return NULL;
    }
    return t.s;
}

bool sweep_absolute(const char *path, char *buf, size_t size) {
    if (path[0] == '/') return (size_t)snprintf(buf, size, "%s", path) < size;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return false;
    return (size_t)snprintf(buf, size, "%s/%s", cwd, path) < size;
}

int sweep_write_file(const char *path, const char *text) {
    char tmp[PATH_MAX + 16];
    FILE *f = weft_sweep_open(path, tmp, sizeof tmp);
    if (!f) return -1;
    fputs(text, f);
    return weft_sweep_close(f, tmp, path, true);
}
