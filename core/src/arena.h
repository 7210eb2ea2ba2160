/* core/src/arena.h -- a bump allocator owned by one result, so a result is
 * freed in one call and building it costs a handful of mallocs. */
#ifndef DC_ARENA_H
#define DC_ARENA_H

#include <stddef.h>

struct dc__arena;

/* A new arena whose first chunk holds `first` bytes; NULL on OOM. */
struct dc__arena *dc__arena_new(size_t first);
/* `size` bytes aligned for any type, zeroed; NULL on OOM. */
void *dc__arena_alloc(struct dc__arena *a, size_t size);
/* A copy of `s` in the arena; NULL on OOM. */
char *dc__arena_strdup(struct dc__arena *a, const char *s);
void dc__arena_free(struct dc__arena *a);

#endif
