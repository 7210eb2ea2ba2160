/* tests/unit/core/test_arena.c -- core/src/base/arena.c: the one bump allocator
 * (the engine's results, JSONLogic programs and evaluations, compiled JSON
 * schemas): the caller's first block, chunk growth, the byte limit, every
 * failure the allocation counter can inject (arena chunks, dc__alloc,
 * dc__calloc, dc__realloc), and the heap-owned form the engine uses. */
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arena.h"

static void test_first_block_costs_no_malloc(void **state)
{
    (void)state;
    alignas(DC__ARENA_ALIGN) unsigned char buf[64];
    struct dc__alloc_counter count = {0, 0, 0};
    struct dc__arena a;
    dc__arena_init(&a, buf, sizeof(buf), SIZE_MAX, &count);
    void *p = NULL;
    void *q = NULL;
    assert_int_equal(dc__arena_take(&a, 3, &p), DC_OK);
    assert_int_equal(dc__arena_take(&a, 0, &q), DC_OK);
    assert_ptr_equal(p, buf);
    /* 3 bytes round up to the alignment; 0 bytes still get a distinct place. */
    assert_ptr_equal(q, buf + DC__ARENA_ALIGN);
    assert_int_equal(count.allocs, 0);
    dc__arena_release(&a);
    assert_int_equal(count.allocs, 0);
}

static void test_growth_and_alignment(void **state)
{
    (void)state;
    struct dc__alloc_counter count = {0, 0, 0};
    struct dc__arena a;
    dc__arena_init(&a, NULL, 0, SIZE_MAX, &count);
    void *p = NULL;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(dc__arena_take(&a, 1 + (size_t)i * 7, &p), DC_OK);
        assert_int_equal((uintptr_t)p % DC__ARENA_ALIGN, 0);
        memset(p, 0xAB, 1 + (size_t)i * 7);
    }
    /* 100 pieces of 35,000 bytes in all: chunks of at least DC__ARENA_CHUNK_MIN
     * that grow with the arena take a handful of mallocs, not one per piece. */
    assert_true(count.allocs >= 2);
    assert_true(count.allocs <= 5);
    assert_true(count.alloc_bytes >= 35000);
    /* One piece larger than any chunk yet gets a chunk of its own size. */
    assert_int_equal(dc__arena_take(&a, (size_t)3 << 20, &p), DC_OK);
    memset(p, 0, (size_t)3 << 20);
    dc__arena_release(&a);
    assert_null(a.chunks);
    assert_int_equal(a.total, 0);
    /* A released arena can be used again. */
    assert_int_equal(dc__arena_take(&a, 16, &p), DC_OK);
    dc__arena_release(&a);
}

static void test_limit(void **state)
{
    (void)state;
    struct dc__arena a;
    dc__arena_init(&a, NULL, 0, 10000, NULL);
    void *p = NULL;
    assert_int_equal(dc__arena_take(&a, 10001, &p), DC_ELIMIT);
    /* Under the limit a smaller chunk than the usual growth is still given. */
    assert_int_equal(dc__arena_take(&a, 6000, &p), DC_OK);
    assert_int_equal(dc__arena_take(&a, 4000, &p), DC_OK);
    assert_true(a.total <= 10000);
    assert_int_equal(dc__arena_take(&a, 4000, &p), DC_ELIMIT);
    dc__arena_release(&a);
}

static void test_injected_failures(void **state)
{
    (void)state;
    struct dc__alloc_counter count = {2, 0, 0};
    struct dc__arena a;
    dc__arena_init(&a, NULL, 0, SIZE_MAX, &count);
    void *p = NULL;
    assert_int_equal(dc__arena_take(&a, 5000, &p), DC_OK);
    assert_int_equal(count.allocs, 1);
    size_t bytes = count.alloc_bytes;
    /* The second allocation is the one asked to fail: nothing is counted as
     * given, and the arena is unchanged. */
    assert_int_equal(dc__arena_take(&a, 5000, &p), DC_ENOMEM);
    assert_int_equal(count.allocs, 2);
    assert_int_equal(count.alloc_bytes, bytes);
    assert_int_equal(dc__arena_take(&a, 5000, &p), DC_OK);
    assert_int_equal(count.allocs, 3);
    dc__arena_release(&a);
    /* A size no chunk can hold fails before any malloc. */
    assert_int_equal(dc__arena_take(&a, SIZE_MAX, &p), DC_ENOMEM);
    assert_int_equal(dc__arena_take(&a, SIZE_MAX - DC__ARENA_ALIGN, &p), DC_ENOMEM);
    assert_int_equal(count.allocs, 3);
    /* dc__alloc alone counts the same way; a NULL counter is plain malloc. */
    struct dc__alloc_counter one = {1, 0, 0};
    assert_null(dc__alloc(&one, 8));
    void *q = dc__alloc(&one, 8);
    assert_non_null(q);
    assert_int_equal(one.allocs, 2);
    assert_int_equal(one.alloc_bytes, 8);
    free(q);
    q = dc__alloc(NULL, 8);
    assert_non_null(q);
    free(q);
    /* So do dc__calloc and dc__realloc; a failed realloc keeps the block. */
    struct dc__alloc_counter two = {2, 0, 0};
    unsigned char *z = dc__calloc(&two, 4, 2);
    assert_non_null(z);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(z[i], 0);
    assert_null(dc__realloc(&two, z, 64));
    z[7] = 1;
    unsigned char *y = dc__realloc(&two, z, 64);
    assert_non_null(y);
    assert_int_equal(y[7], 1);
    assert_int_equal(two.allocs, 3);
    assert_int_equal(two.alloc_bytes, 8 + 64);
    assert_null(dc__calloc(NULL, SIZE_MAX, 2));
    free(y);
}

static void test_heap_arena(void **state)
{
    (void)state;
    struct dc__arena *a = dc__arena_new(0);
    assert_non_null(a);
    unsigned char *z = dc__arena_alloc(a, 100);
    assert_non_null(z);
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(z[i], 0);
    char *s = dc__arena_strdup(a, "H100 SXM");
    assert_string_equal(s, "H100 SXM");
    /* Past the first chunk, and past the growth cap. */
    unsigned char *big = dc__arena_alloc(a, (size_t)2 << 20);
    assert_non_null(big);
    assert_int_equal(big[((size_t)2 << 20) - 1], 0);
    assert_null(dc__arena_alloc(a, SIZE_MAX));
    assert_string_equal(s, "H100 SXM");
    dc__arena_free(a);
    dc__arena_free(NULL);
    a = dc__arena_new(100);
    assert_non_null(a);
    assert_int_equal(a->chunk_min, 100);
    dc__arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_block_costs_no_malloc),
        cmocka_unit_test(test_growth_and_alignment),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_injected_failures),
        cmocka_unit_test(test_heap_arena),
    };
    return cmocka_run_group_tests_name("arena", tests, NULL, NULL);
}
