/* core/shared/arena.h -- the core's one bump allocator, and the allocation
 * counter tests use to fail a chosen allocation. Owned by core/ (core/src/base/arena.c);
 * used by the engine (a result freed in one call, built with a handful of
 * mallocs) and by JSONLogic (a program's nodes, and an evaluation's strings
 * and arrays, whose first bytes are on the caller's stack), and by api/'s JSON
 * Schema compiler (a compiled schema's nodes; every allocation of
 * api/src/schema_*.c goes through dc__alloc and its siblings, so that its unit
 * test can fail any one).
 *
 * Shared by declaration, not API: core/shared/ holds what core lends to the
 * libraries above it (core/shared/README.md); CMakeLists.txt puts it on the
 * include path of aa_core and aa_api alone (and of tests/ and fuzz/), so
 * service/ and probe/ cannot include it.
 *
 * Memory comes in chunks from dc__alloc(); a chunk is at least chunk_min bytes
 * and grows with the arena (up to DC__ARENA_CHUNK_GROW_MAX), so a large arena
 * takes few mallocs. Everything is released at once. */
#ifndef DC_ARENA_H
#define DC_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "dc/common.h"

#define DC__ARENA_ALIGN          8                 /* doubles, pointers, size_t */
#define DC__ARENA_CHUNK_MIN      4096              /* smallest chunk by default */
#define DC__ARENA_CHUNK_GROW_MAX ((size_t)1 << 20) /* chunks grow up to this size */

/* Counts allocations and can make one of them fail: how a test proves that a
 * path does not allocate, and reaches every out-of-memory path. */
struct dc__alloc_counter {
    size_t fail_at;     /* in: the fail_at-th allocation (1-based) fails; 0: none */
    size_t allocs;      /* out: calls, the failed one included */
    size_t alloc_bytes; /* out: bytes the successful calls asked for */
};

/* malloc(size), counted in *counter (may be NULL) and failed on request. */
void *dc__alloc(struct dc__alloc_counter *counter, size_t size);
/* calloc(n, size) and realloc(p, size), counted and failed the same way (a
 * failed realloc leaves `p` as it was). */
void *dc__calloc(struct dc__alloc_counter *counter, size_t n, size_t size);
void *dc__realloc(struct dc__alloc_counter *counter, void *p, size_t size);

struct dc__arena_chunk;

/* An arena lives where its owner puts it (inside a struct, on the stack). */
struct dc__arena {
    struct dc__arena_chunk *chunks;
    unsigned char *cur;
    unsigned char *end;
    size_t total;                      /* bytes in chunks */
    size_t limit;                      /* most bytes in chunks */
    size_t chunk_min;                  /* smallest chunk */
    struct dc__alloc_counter *counter; /* may be NULL */
};

/* An empty arena. `buf` (may be NULL) is a caller-owned first block of `len`
 * bytes, aligned to DC__ARENA_ALIGN, used before any chunk; `limit` bounds the
 * bytes of chunks (SIZE_MAX: none); `counter` (may be NULL) sees every malloc. */
static inline void dc__arena_init(struct dc__arena *a, void *buf, size_t len, size_t limit,
                                  struct dc__alloc_counter *counter)
{
    a->chunks = NULL;
    a->cur = buf;
    a->end = buf != NULL ? (unsigned char *)buf + len : NULL;
    a->total = 0;
    a->limit = limit;
    a->chunk_min = DC__ARENA_CHUNK_MIN;
    a->counter = counter;
}

/* Free every chunk (dc__arena_release does, when there are any). */
void dc__arena_free_chunks(struct dc__arena *a);

/* Free every chunk; the arena is then empty (its first block forgotten).
 * Inline: most evaluations never leave their first block. */
static inline void dc__arena_release(struct dc__arena *a)
{
    if (a->chunks != NULL)
        dc__arena_free_chunks(a);
    a->cur = NULL;
    a->end = NULL;
    a->total = 0;
}

/* Room for at least `size` more bytes: DC_OK, DC_ELIMIT (past the limit) or
 * DC_ENOMEM. Called by dc__arena_take() when the current block is full. */
enum dc_status dc__arena_grow(struct dc__arena *a, size_t size);

/* `size` bytes (not zeroed), aligned to DC__ARENA_ALIGN, into *out: DC_OK,
 * DC_ELIMIT or DC_ENOMEM. Inline: the common case is a pointer bump. */
static inline enum dc_status dc__arena_take(struct dc__arena *a, size_t size, void **out)
{
    if (size > SIZE_MAX - DC__ARENA_ALIGN)
        return DC_ENOMEM;
    size = (size + DC__ARENA_ALIGN - 1) & ~(size_t)(DC__ARENA_ALIGN - 1);
    if (size == 0)
        size = DC__ARENA_ALIGN;
    if (a->cur == NULL || (size_t)(a->end - a->cur) < size) {
        enum dc_status rc = dc__arena_grow(a, size);
        if (rc != DC_OK)
            return rc;
    }
    *out = a->cur;
    a->cur += size;
    return DC_OK;
}

/* An arena of its own on the heap, first chunk of `first` bytes (0: the
 * default) made at once; NULL on OOM. Released with dc__arena_free(). */
struct dc__arena *dc__arena_new(size_t first);
/* `size` bytes, aligned, zeroed; NULL on OOM. */
void *dc__arena_alloc(struct dc__arena *a, size_t size);
/* A copy of `s` in the arena; NULL on OOM. */
char *dc__arena_strdup(struct dc__arena *a, const char *s);
/* Free an arena from dc__arena_new(); NULL is a no-op. */
void dc__arena_free(struct dc__arena *a);
/* printf into the arena: a copy of at most 511 bytes of the formatted text
 * (longer is cut); NULL on OOM. */
char *dc__fmt(struct dc__arena *ar, const char *f, ...) DC_PRINTF(2, 3);

#endif /* DC_ARENA_H */
