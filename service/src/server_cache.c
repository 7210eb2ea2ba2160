/* service/src/server_cache.c -- a sharded LRU of rendered recommendation bodies.
 *
 * Shards, each with its own mutex, keep threads from queueing on one lock; a
 * shard holds a chained hash table and an LRU list. Keys are hashed with a
 * word-wise FNV-1a variant seeded at random at start-up, so clients cannot aim
 * collisions without the seed. A shard never holds more than its share of
 * max_entries, so a chain holds max_entries / (SHARDS * BUCKETS_PER_SHARD)
 * entries on average: a quarter at the default 1024. */
#include "server_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#define SHARDS            16
#define BUCKETS_PER_SHARD 256

struct entry {
    struct entry *chain;       /* next in the bucket */
    struct entry *prev, *next; /* LRU: head is the most recent */
    uint64_t hash;
    char version[SVC_CACHE_VERSION_MAX + 1];
    unsigned family;
    size_t key_len;
    size_t prefix_len; /* body bytes before the request id */
    size_t suffix_len; /* body bytes after it */
    size_t size;       /* bytes charged to the cache */
    char data[];       /* key, prefix, suffix */
};

struct shard {
    pthread_mutex_t mu;
    struct entry *buckets[BUCKETS_PER_SHARD];
    struct entry *head, *tail;
    size_t entries;
    size_t bytes;
};

struct svc_cache {
    size_t max_entries; /* per shard */
    size_t max_bytes;   /* per shard */
    uint64_t seed;
    struct shard shards[SHARDS];
};

static uint64_t hash_key(uint64_t seed, const char *version, const char *key, size_t len)
{
    uint64_t h = 14695981039346656037ull ^ seed;
    /* The whole version: with a probe, the snapshot generation after the rules
     * version tells the bodies of one snapshot from another's. */
    for (size_t i = 0; version[i] != '\0'; i++) {
        h ^= (unsigned char)version[i];
        h *= 1099511628211ull;
    }
    /* FNV-1a over 8-byte words, then the tail bytewise. */
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, key + i, 8);
        h ^= w;
        h *= 1099511628211ull;
        h ^= h >> 32;
    }
    for (; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

svc_cache *svc_cache_new(size_t max_entries, size_t max_bytes)
{
    if (max_entries == 0 || max_bytes == 0)
        return NULL;
    svc_cache *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->max_entries = (max_entries + SHARDS - 1) / SHARDS;
    c->max_bytes = max_bytes / SHARDS;
    if (RAND_bytes((unsigned char *)&c->seed, (int)sizeof(c->seed)) != 1)
        c->seed = (uint64_t)(uintptr_t)c;
    for (int i = 0; i < SHARDS; i++)
        pthread_mutex_init(&c->shards[i].mu, NULL);
    return c;
}

/* A key's shard is its hash's low bits, its bucket in the shard the bits above
 * them: taken from the same low bits (SHARDS divides BUCKETS_PER_SHARD), every
 * key of a shard fell in one sixteenth of its buckets, with chains sixteen
 * times as long as the entries called for, each step a cache miss. */
static struct shard *shard_of(svc_cache *c, uint64_t h)
{
    return &c->shards[h % SHARDS];
}

static struct entry **bucket_of(struct shard *s, uint64_t h)
{
    return &s->buckets[(h / SHARDS) % BUCKETS_PER_SHARD];
}

static void unlink_entry(struct shard *s, struct entry *e)
{
    struct entry **pp = bucket_of(s, e->hash);
    while (*pp != NULL && *pp != e)
        pp = &(*pp)->chain;
    if (*pp == e)
        *pp = e->chain;
    if (e->prev != NULL)
        e->prev->next = e->next;
    else
        s->head = e->next;
    if (e->next != NULL)
        e->next->prev = e->prev;
    else
        s->tail = e->prev;
    s->entries--;
    s->bytes -= e->size;
}

static void clear_shard(struct shard *s)
{
    struct entry *e = s->head;
    while (e != NULL) {
        struct entry *n = e->next;
        free(e);
        e = n;
    }
    memset(s->buckets, 0, sizeof(s->buckets));
    s->head = s->tail = NULL;
    s->entries = 0;
    s->bytes = 0;
}

void svc_cache_free(svc_cache *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < SHARDS; i++) {
        clear_shard(&c->shards[i]);
        pthread_mutex_destroy(&c->shards[i].mu);
    }
    free(c);
}

void svc_cache_clear(svc_cache *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < SHARDS; i++) {
        pthread_mutex_lock(&c->shards[i].mu);
        clear_shard(&c->shards[i]);
        pthread_mutex_unlock(&c->shards[i].mu);
    }
}

static struct entry *find(struct shard *s, uint64_t h, const char *version, const char *key,
                          size_t key_len)
{
    for (struct entry *e = *bucket_of(s, h); e != NULL; e = e->chain) {
        if (e->hash == h && e->key_len == key_len && strcmp(e->version, version) == 0 &&
            memcmp(e->data, key, key_len) == 0)
            return e;
    }
    return NULL;
}

char *svc_cache_get(svc_cache *c, const char *version, const char *key, size_t key_len,
                    const char *request_id, size_t *len, unsigned *family)
{
    if (c == NULL || key_len > SVC_CACHE_MAX_KEY_BYTES || strlen(version) > SVC_CACHE_VERSION_MAX)
        return NULL;
    uint64_t h = hash_key(c->seed, version, key, key_len);
    struct shard *s = shard_of(c, h);
    size_t idl = strlen(request_id);
    char *out = NULL;
    pthread_mutex_lock(&s->mu);
    struct entry *e = find(s, h, version, key, key_len);
    if (e != NULL) {
        size_t n = e->prefix_len + idl + e->suffix_len;
        out = malloc(n + 1);
        if (out != NULL) {
            const char *body = e->data + e->key_len;
            memcpy(out, body, e->prefix_len);
            memcpy(out + e->prefix_len, request_id, idl);
            memcpy(out + e->prefix_len + idl, body + e->prefix_len, e->suffix_len);
            out[n] = '\0';
            *len = n;
            *family = e->family;
            /* Move to the front of the LRU list. */
            if (s->head != e) {
                e->prev->next = e->next;
                if (e->next != NULL)
                    e->next->prev = e->prev;
                else
                    s->tail = e->prev;
                e->prev = NULL;
                e->next = s->head;
                s->head->prev = e;
                s->head = e;
            }
        }
    }
    pthread_mutex_unlock(&s->mu);
    return out;
}

void svc_cache_put(svc_cache *c, const char *version, const char *key, size_t key_len,
                   const char *body, size_t body_len, size_t id_off, size_t id_len, unsigned family)
{
    if (c == NULL || key_len > SVC_CACHE_MAX_KEY_BYTES || strlen(version) > SVC_CACHE_VERSION_MAX ||
        id_off + id_len > body_len)
        return;
    size_t data = key_len + body_len - id_len;
    size_t size = sizeof(struct entry) + data;
    if (size > c->max_bytes)
        return;
    struct entry *e = malloc(size);
    if (e == NULL)
        return;
    memset(e, 0, sizeof(*e));
    e->hash = hash_key(c->seed, version, key, key_len);
    strcpy(e->version, version);
    e->family = family;
    e->key_len = key_len;
    e->prefix_len = id_off;
    e->suffix_len = body_len - id_off - id_len;
    e->size = size;
    memcpy(e->data, key, key_len);
    memcpy(e->data + key_len, body, id_off);
    memcpy(e->data + key_len + id_off, body + id_off + id_len, e->suffix_len);
    struct shard *s = shard_of(c, e->hash);
    pthread_mutex_lock(&s->mu);
    struct entry *old = find(s, e->hash, version, key, key_len);
    if (old != NULL) {
        unlink_entry(s, old);
        free(old);
    }
    while (s->tail != NULL && (s->entries + 1 > c->max_entries || s->bytes + size > c->max_bytes)) {
        struct entry *victim = s->tail;
        unlink_entry(s, victim);
        free(victim);
    }
    struct entry **bucket = bucket_of(s, e->hash);
    e->chain = *bucket;
    *bucket = e;
    e->next = s->head;
    if (s->head != NULL)
        s->head->prev = e;
    s->head = e;
    if (s->tail == NULL)
        s->tail = e;
    s->entries++;
    s->bytes += size;
    pthread_mutex_unlock(&s->mu);
}

void svc_cache_stats(svc_cache *c, size_t *entries, size_t *bytes)
{
    size_t n = 0, b = 0;
    for (int i = 0; c != NULL && i < SHARDS; i++) {
        pthread_mutex_lock(&c->shards[i].mu);
        n += c->shards[i].entries;
        b += c->shards[i].bytes;
        pthread_mutex_unlock(&c->shards[i].mu);
    }
    if (entries != NULL)
        *entries = n;
    if (bytes != NULL)
        *bytes = b;
}
