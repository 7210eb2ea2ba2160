/* tests/unit/service/test_cache.c -- service/src/server_cache.c: request-id
 * splicing, versions, eviction by entries and bytes, clearing, threads. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server_cache.h"

static const char V1[] = "1111111111111111111111111111111111111111111111111111111111111111";
static const char V2[] = "2222222222222222222222222222222222222222222222222222222222222222";

static void put_body(svc_cache *c, const char *version, const char *key, const char *id)
{
    char body[256];
    int n = snprintf(body, sizeof(body), "{\"request_id\":\"%s\",\"x\":\"%s\"}", id, key);
    svc_cache_put(c, version, key, strlen(key), body, (size_t)n, 15, strlen(id), 1);
}

static void test_splice_and_versions(void **state)
{
    (void)state;
    svc_cache *c = svc_cache_new(100, 1 << 20);
    assert_non_null(c);
    put_body(c, V1, "{\"a\":1}", "first-id");
    size_t len = 0;
    unsigned fam = 9;
    char *hit = svc_cache_get(c, V1, "{\"a\":1}", 7, "second", &len, &fam);
    assert_non_null(hit);
    assert_string_equal(hit, "{\"request_id\":\"second\",\"x\":\"{\"a\":1}\"}");
    assert_int_equal(len, strlen(hit));
    assert_int_equal(fam, 1);
    free(hit);
    /* Another version, another key, a prefix of the key: misses. */
    assert_null(svc_cache_get(c, V2, "{\"a\":1}", 7, "x", &len, &fam));
    assert_null(svc_cache_get(c, V1, "{\"a\":2}", 7, "x", &len, &fam));
    assert_null(svc_cache_get(c, V1, "{\"a\":1", 6, "x", &len, &fam));
    /* Replacing an entry keeps one copy. */
    put_body(c, V1, "{\"a\":1}", "third");
    size_t entries = 0, bytes = 0;
    svc_cache_stats(c, &entries, &bytes);
    assert_int_equal(entries, 1);
    assert_true(bytes > 0);
    svc_cache_clear(c);
    svc_cache_stats(c, &entries, &bytes);
    assert_int_equal(entries, 0);
    assert_int_equal(bytes, 0);
    assert_null(svc_cache_get(c, V1, "{\"a\":1}", 7, "x", &len, &fam));
    /* Bad splice positions are ignored. */
    svc_cache_put(c, V1, "k", 1, "short", 5, 3, 10, 0);
    svc_cache_stats(c, &entries, NULL);
    assert_int_equal(entries, 0);
    svc_cache_free(c);
}

static void test_eviction(void **state)
{
    (void)state;
    /* 16 shards: 32 entries in all means 2 per shard. */
    svc_cache *c = svc_cache_new(32, 1 << 20);
    char key[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "key-%d", i);
        put_body(c, V1, key, "id");
    }
    size_t entries = 0, bytes = 0;
    svc_cache_stats(c, &entries, &bytes);
    assert_true(entries <= 32);
    assert_true(entries >= 16);
    /* The most recent entry is there. */
    size_t len;
    unsigned fam;
    char *hit = svc_cache_get(c, V1, "key-999", 7, "z", &len, &fam);
    assert_non_null(hit);
    free(hit);
    svc_cache_free(c);

    /* A byte bound: each shard holds 1/16 of it. */
    c = svc_cache_new(100000, 16 * 1024);
    for (int i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "key-%d", i);
        put_body(c, V1, key, "id");
    }
    svc_cache_stats(c, &entries, &bytes);
    assert_true(bytes <= 16 * 1024);
    assert_true(entries > 0);
    svc_cache_free(c);

    /* Off: every call is a no-op or a miss. */
    assert_null(svc_cache_new(0, 100));
    svc_cache_put(NULL, V1, "k", 1, "{}", 2, 0, 0, 0);
    assert_null(svc_cache_get(NULL, V1, "k", 1, "x", &len, &fam));
    svc_cache_clear(NULL);
    svc_cache_free(NULL);
    svc_cache_stats(NULL, &entries, &bytes);
    assert_int_equal(entries, 0);
}

static void *hammer(void *arg)
{
    svc_cache *c = arg;
    char key[32], id[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(key, sizeof(key), "k%d", i % 300);
        snprintf(id, sizeof(id), "id%d", i);
        size_t len;
        unsigned fam;
        char *hit = svc_cache_get(c, V1, key, strlen(key), id, &len, &fam);
        if (hit != NULL) {
            char want[128];
            snprintf(want, sizeof(want), "{\"request_id\":\"%s\",\"x\":\"%s\"}", id, key);
            if (strcmp(hit, want) != 0)
                abort();
            free(hit);
        } else {
            put_body(c, V1, key, "orig");
        }
        if (i % 5000 == 0)
            svc_cache_clear(c);
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    svc_cache *c = svc_cache_new(128, 1 << 20);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, hammer, c), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    svc_cache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splice_and_versions),
        cmocka_unit_test(test_eviction),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests_name("service.cache", tests, NULL, NULL);
}
