/* core/src/arena.c -- see arena.h. */
#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct chunk {
    struct chunk *next;
    size_t used;
    size_t cap;
    alignas(max_align_t) unsigned char data[];
};

struct dc__arena {
    struct chunk *head;
};

static struct chunk *chunk_new(size_t cap)
{
    if (cap > SIZE_MAX - sizeof(struct chunk))
        return NULL;
    struct chunk *c = malloc(sizeof(*c) + cap);
    if (c == NULL)
        return NULL;
    c->next = NULL;
    c->used = 0;
    c->cap = cap;
    return c;
}

struct dc__arena *dc__arena_new(size_t first)
{
    struct dc__arena *a = malloc(sizeof(*a));
    if (a == NULL)
        return NULL;
    a->head = chunk_new(first != 0 ? first : 4096);
    if (a->head == NULL) {
        free(a);
        return NULL;
    }
    return a;
}

void *dc__arena_alloc(struct dc__arena *a, size_t size)
{
    const size_t align = alignof(max_align_t);
    if (size > SIZE_MAX - align)
        return NULL;
    size = (size + align - 1) & ~(align - 1);
    struct chunk *c = a->head;
    if (c->cap - c->used < size) {
        size_t cap = c->cap * 2;
        if (cap < size)
            cap = size;
        struct chunk *n = chunk_new(cap);
        if (n == NULL)
            return NULL;
        n->next = c;
        a->head = n;
        c = n;
    }
    void *p = c->data + c->used;
    c->used += size;
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
    struct chunk *c = a->head;
    while (c != NULL) {
        struct chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}
