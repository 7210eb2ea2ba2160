/* service/src/server_cache.h -- memoised recommendation bodies.
 *
 * A recommendation is a pure function of the request body and the rule set
 * (docs/scoring.md: the same workload and the same rules_version always give the
 * same result, byte for byte), except for the request id it echoes. So the
 * server keeps the rendered bodies of recent POST /v1/recommendations requests,
 * keyed by the exact request bytes and the rule-set version, split around the
 * request id; a repeated request skips parsing, validation, evaluation and
 * rendering and gets the stored body with its own id spliced in. The cache is
 * bounded in entries and bytes (least recently used entries go first), emptied
 * on every rule-set swap, and can be turned off (cache_entries = 0). */
#ifndef SVC_SERVER_CACHE_H
#define SVC_SERVER_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#define SVC_CACHE_MAX_KEY_BYTES 65536 /* larger request bodies are never cached */
/* Longest version a body is cached under: a rules_version (64 hex digits); with
 * a probe or a fleet "/", the probe snapshot's generation (up to 20 digits) and
 * "s" when stale; with a fleet "/f", its snapshot's generation and "s" (server.c,
 * fleet_server.c); then, for any view but the default full one, "#" and what the
 * query asked (server_routes.c, view_tag: at most 24 bytes). */
#define SVC_CACHE_VERSION_MAX (64 + 1 + 20 + 1 + 2 + 20 + 1 + 24)

typedef struct svc_cache svc_cache; /* opaque; thread-safe */

/* A cache of at most `max_entries` bodies and `max_bytes` bytes in all. Returns
 * NULL when out of memory or when max_entries is 0 (a NULL cache is valid: every
 * call below is then a no-op or a miss). */
svc_cache *svc_cache_new(size_t max_entries, size_t max_bytes);
void svc_cache_free(svc_cache *c); /* NULL is a no-op */

/* A hit: a new body (owned, free()) for `request_id` of *len bytes, and the
 * stored top family in *family; NULL on a miss. `version` is the rules_version
 * the request is served with (and the probe generation, when there is a
 * probe); one longer than SVC_CACHE_VERSION_MAX is never cached. */
char *svc_cache_get(svc_cache *c, const char *version, const char *key, size_t key_len,
                    const char *request_id, size_t *len, unsigned *family);

/* Store `body` (borrowed, copied), whose request id is the `id_len` bytes at
 * `id_off`, under (version, key). */
void svc_cache_put(svc_cache *c, const char *version, const char *key, size_t key_len,
                   const char *body, size_t body_len, size_t id_off, size_t id_len,
                   unsigned family);

/* Drop every entry (after a rule-set swap). */
void svc_cache_clear(svc_cache *c);

/* Entries and bytes held now. */
void svc_cache_stats(svc_cache *c, size_t *entries, size_t *bytes);

#endif /* SVC_SERVER_CACHE_H */
