/* tests/unit/service/test_etag.c -- service/src/etag.c: strong tags from what a
 * body depends on, and If-None-Match as RFC 9110 section 13.1.2 reads it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etag.h"

static void make(const char *const *parts, size_t n, char out[SVC_ETAG_SIZE])
{
    assert_int_equal(svc_etag_make(parts, n, out), DC_OK);
    assert_int_equal(strlen(out), SVC_ETAG_SIZE - 1);
    assert_int_equal(out[0], '"');
    assert_int_equal(out[33], '"');
    assert_int_equal(strspn(out + 1, "0123456789abcdef"), 32);
}

static void test_make(void **state)
{
    (void)state;
    char a[SVC_ETAG_SIZE], b[SVC_ETAG_SIZE];
    const char *rules1[] = {"rules", "0.1.0", "v1"};
    const char *rules1_again[] = {"rules", "0.1.0", "v1"};
    const char *rules2[] = {"rules", "0.1.0", "v2"};
    make(rules1, 3, a);
    make(rules1_again, 3, b);
    assert_string_equal(a, b); /* same inputs, same tag */
    make(rules2, 3, b);
    assert_string_not_equal(a, b); /* a reload with a new version */
    /* Parts are framed: moving a boundary or dropping a part changes the tag. */
    const char *ab_c[] = {"ab", "c"}, *a_bc[] = {"a", "bc"}, *abc[] = {"abc"};
    make(ab_c, 2, a);
    make(a_bc, 2, b);
    assert_string_not_equal(a, b);
    make(abc, 1, b);
    assert_string_not_equal(a, b);
    /* An absent query parameter differs from an empty one and from any value. */
    const char *absent[] = {"accelerators", NULL}, *empty[] = {"accelerators", ""},
               *gpu[] = {"accelerators", "gpu"};
    make(absent, 2, a);
    make(empty, 2, b);
    assert_string_not_equal(a, b);
    make(gpu, 2, b);
    assert_string_not_equal(a, b);
    /* The contract digest: SHA-256 of the bytes. */
    char d[65];
    assert_int_equal(svc_etag_digest("abc", 3, d), DC_OK);
    assert_string_equal(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

#define TAG   "\"0123456789abcdef0123456789abcdef\""
#define OTHER "\"fedcba9876543210fedcba9876543210\""

static void test_none_match(void **state)
{
    (void)state;
    static const char *const match[] = {
        TAG,
        "*",
        "  *\t",
        "W/" TAG,
        OTHER ", " TAG,
        OTHER "," TAG ",",
        ", ," TAG,
        "\t" TAG "\t",
        "W/" OTHER ",W/" TAG,
        "\"x\", \"\", " TAG,
    };
    for (size_t i = 0; i < sizeof(match) / sizeof(match[0]); i++) {
        if (!svc_etag_none_match(match[i], TAG))
            fail_msg("If-None-Match: %s does not match", match[i]);
    }
    /* The server's tag compared weakly when it is itself weak. */
    assert_true(svc_etag_none_match(TAG, "W/" TAG));
    static const char *const no_match[] = {
        "",
        ",",
        " , ",
        OTHER,
        "W/" OTHER,
        "\"0123456789abcdef0123456789abcdeF\"",
        "\"0123456789abcdef0123456789abcdef", /* unterminated */
        "0123456789abcdef0123456789abcdef",   /* not quoted */
        "w/" TAG,                             /* W is case-sensitive */
        "* , " TAG,                           /* "*" only stands alone */
        TAG " *",
        TAG " " TAG,            /* no comma */
        OTHER ", " TAG " junk", /* a bad element spoils the field */
        "\"a\"b\", " TAG,
        "\"a\x7f\", " TAG,
    };
    for (size_t i = 0; i < sizeof(no_match) / sizeof(no_match[0]); i++) {
        if (svc_etag_none_match(no_match[i], TAG))
            fail_msg("If-None-Match: %s matches", no_match[i]);
    }
    assert_false(svc_etag_none_match(NULL, TAG));
    assert_false(svc_etag_none_match("*", ""));
    assert_false(svc_etag_none_match(TAG, NULL));
    /* Past the length limit the field is not read at all. */
    size_t big = SVC_ETAG_FIELD_MAX + 64;
    char *field = malloc(big + 1);
    assert_non_null(field);
    memset(field, ',', big);
    memcpy(field, TAG, strlen(TAG));
    field[big] = '\0';
    assert_false(svc_etag_none_match(field, TAG));
    field[SVC_ETAG_FIELD_MAX] = '\0';
    assert_true(svc_etag_none_match(field, TAG));
    free(field);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_make),
        cmocka_unit_test(test_none_match),
    };
    return cmocka_run_group_tests_name("service.etag", tests, NULL, NULL);
}
