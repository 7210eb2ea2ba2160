/* core/src/base/arena.c -- the core's one bump allocator (arena.h). Owned by core/. */
#include "arena.h"
#include "textf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dc__arena_chunk {
    struct dc__arena_chunk *next;
};

/* Count one allocation of `size` bytes in *counter (may be NULL): false when
 * it is the one the counter makes fail. */
static bool counted(struct dc__alloc_counter *counter, size_t size)
{
    if (counter == NULL)
        return true;
    counter->allocs++;
    if (counter->fail_at != 0 && counter->allocs == counter->fail_at)
        return false;
    counter->alloc_bytes += size;
    return true;
}

void *dc__alloc(struct dc__alloc_counter *counter, size_t size)
{
    return counted(counter, size) ? malloc(size) : NULL;
}

void *dc__calloc(struct dc__alloc_counter *counter, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return counted(counter, n * size) ? calloc(n, size) : NULL;
}

void *dc__realloc(struct dc__alloc_counter *counter, void *p, size_t size)
{
    return counted(counter, size) ? realloc(p, size) : NULL;
}

void dc__arena_free_chunks(struct dc__arena *a)
{
    struct dc__arena_chunk *c = a->chunks;
    while (c != NULL) {
        struct dc__arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->chunks = NULL;
}

enum dc_status dc__arena_grow(struct dc__arena *a, size_t size)
{
    size_t cap = a->chunk_min;
    /* Chunks grow with the arena so that big arenas take few mallocs. */
    if (a->total > cap)
        cap = a->total < DC__ARENA_CHUNK_GROW_MAX ? a->total : DC__ARENA_CHUNK_GROW_MAX;
    if (cap < size)
        cap = size;
    if (cap > a->limit - a->total) {
        if (size > a->limit - a->total)
            return DC_ELIMIT;
        cap = size;
    }
    if (cap > SIZE_MAX - sizeof(struct dc__arena_chunk))
        return DC_ENOMEM;
    struct dc__arena_chunk *c = dc__alloc(a->counter, sizeof(*c) + cap);
    if (c == NULL)
        return DC_ENOMEM;
    c->next = a->chunks;
    a->chunks = c;
    a->cur = (unsigned char *)(c + 1);
    a->end = a->cur + cap;
    a->total += cap;
    return DC_OK;
}

struct dc__arena *dc__arena_new(size_t first)
{
    struct dc__arena *a = malloc(sizeof(*a));
    if (a == NULL)
        return NULL;
    dc__arena_init(a, NULL, 0, SIZE_MAX, NULL);
    if (first != 0)
        a->chunk_min = first;
    if (dc__arena_grow(a, 0) != DC_OK) {
        free(a);
        return NULL;
    }
    return a;
}

void *dc__arena_alloc(struct dc__arena *a, size_t size)
{
    void *p = NULL;
    if (dc__arena_take(a, size, &p) != DC_OK)
        return NULL;
    memset(p, 0, size);
    return p;
}

char *dc__arena_strdup(struct dc__arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = dc__arena_alloc(a, n);
    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

void dc__arena_free(struct dc__arena *a)
{
    if (a == NULL)
        return;
    dc__arena_release(a);
    free(a);
}

/* Whether every conversion of format `f` is "%s" or "%%": dc__textf's,
 * whose text is snprintf's byte for byte. */
static bool strings_only(const char *f)
{
    for (const char *p = strchr(f, '%'); p != NULL; p = strchr(p + 2, '%'))
        if (p[1] != 's' && p[1] != '%')
            return false;
    return true;
}

char *dc__fmt(struct dc__arena *ar, const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    /* The decision's texts join words and numbers already written (the
     * warnings of reasons/report.c and defaults.c): without printf's
     * parse and locale. */
    int n =
        strings_only(f) ? dc__vtextf(buf, sizeof(buf), f, ap) : vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    size_t len = n < 0 ? strlen(buf) : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
    void *p = NULL;
    if (dc__arena_take(ar, len + 1, &p) != DC_OK)
        return NULL;
    memcpy(p, buf, len + 1);
    return p;
}
