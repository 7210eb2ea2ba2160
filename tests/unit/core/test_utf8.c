/* tests/unit/core/test_utf8.c -- core/include/dc/utf8.h: the strict check
 * (RFC 3629's table, every way a sequence is wrong, bounded and NUL-ended
 * input), the lenient decoder and the character count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dc/utf8.h"

static size_t seq(const char *s, size_t rem, uint32_t *cp)
{
    return dc_utf8_seq((const unsigned char *)s, rem, cp);
}

static void test_strict_valid(void **state)
{
    (void)state;
    uint32_t cp = 0;
    assert_int_equal(seq("A", 1, &cp), 1);
    assert_int_equal(cp, 0x41);
    assert_int_equal(seq("\xC2\x80", 2, &cp), 2);
    assert_int_equal(cp, 0x80);
    assert_int_equal(seq("\xE2\x82\xAC", 3, &cp), 3); /* EURO SIGN */
    assert_int_equal(cp, 0x20AC);
    assert_int_equal(seq("\xED\x9F\xBF", 3, &cp), 3); /* U+D7FF, below the surrogates */
    assert_int_equal(cp, 0xD7FF);
    assert_int_equal(seq("\xEE\x80\x80", 3, &cp), 3); /* U+E000, above them */
    assert_int_equal(cp, 0xE000);
    assert_int_equal(seq("\xF0\x9F\x98\x80", 4, &cp), 4);
    assert_int_equal(cp, 0x1F600);
    assert_int_equal(seq("\xF4\x8F\xBF\xBF", 4, &cp), 4);
    assert_int_equal(cp, 0x10FFFF);
    assert_int_equal(seq("\xF0\x9F\x98\x80", SIZE_MAX, NULL), 4);
}

static void test_strict_invalid(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "\x80",             /* stray continuation byte */
        "\xC0\x80",         /* overlong NUL */
        "\xC1\xBF",         /* overlong */
        "\xE0\x9F\xBF",     /* overlong three bytes */
        "\xED\xA0\x80",     /* high surrogate */
        "\xED\xBF\xBF",     /* low surrogate */
        "\xF0\x8F\xBF\xBF", /* overlong four bytes */
        "\xF4\x90\x80\x80", /* past U+10FFFF */
        "\xF5\x80\x80\x80", /* no such lead byte */
        "\xFF",
        "\xC3\x28",     /* second byte not a continuation */
        "\xE2\x82\x28", /* third byte not a continuation */
        "\xE2\x82",     /* cut short by the NUL */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(seq(bad[i], SIZE_MAX, NULL), 0);
        assert_int_equal(dc_utf8_seq((const unsigned char *)bad[i], strlen(bad[i]), NULL), 0);
    }
    /* Bounded input: a valid sequence longer than what is left is no sequence. */
    assert_int_equal(seq("\xE2\x82\xAC", 2, NULL), 0);
    assert_int_equal(seq("A", 0, NULL), 0);
    assert_int_equal(dc_utf8_lead(0x41), 1);
    assert_int_equal(dc_utf8_lead(0xC2), 2);
    assert_int_equal(dc_utf8_lead(0xEF), 3);
    assert_int_equal(dc_utf8_lead(0xF4), 4);
    assert_int_equal(dc_utf8_lead(0xC1), 0);
    assert_int_equal(dc_utf8_lead(0xBF), 0);
    assert_int_equal(dc_utf8_lead(0xF5), 0);
}

static void test_lenient(void **state)
{
    (void)state;
    size_t adv = 0;
    assert_int_equal(dc_utf8_decode_lenient("\xE2\x82\xAC", 3, &adv), 0x20AC);
    assert_int_equal(adv, 3);
    /* Malformed: U+FFFD, one byte consumed, so every byte is consumed once. */
    assert_int_equal(dc_utf8_decode_lenient("\xC0\x80", 2, &adv), 0xFFFD);
    assert_int_equal(adv, 1);
    assert_int_equal(dc_utf8_decode_lenient("\xE2\x82", 2, &adv), 0xFFFD);
    assert_int_equal(adv, 1);
    assert_int_equal(dc_utf8_decode_lenient("\xF4\x90\x80\x80", 4, &adv), 0xFFFD);
    assert_int_equal(adv, 1);
    assert_int_equal(dc_utf8_decode_lenient("\x80", 1, &adv), 0xFFFD);
    assert_int_equal(adv, 1);
    /* An encoded surrogate passes as the code point it spells (CESU-8). */
    assert_int_equal(dc_utf8_decode_lenient("\xED\xA0\x80", 3, &adv), 0xD800);
    assert_int_equal(adv, 3);
}

static void test_count(void **state)
{
    (void)state;
    assert_int_equal(dc_utf8_count(""), 0);
    assert_int_equal(dc_utf8_count("H100"), 4);
    assert_int_equal(dc_utf8_count("caf\xC3\xA9 \xF0\x9F\x98\x80"), 6);
    /* A byte that starts no well-formed sequence counts one, as the lenient
     * decoder reads it (U+FFFD): never more than the bytes. */
    assert_int_equal(dc_utf8_count("\xFF\xFE"), 2);
}

/* Malformed bytes: the one count (dc/utf8.h) agrees with the lenient decoder
 * step by step, so the workload's name limit, the schema's maxLength and the
 * CLI table's columns (api_text_width) count the same characters. */
static void test_count_malformed(void **state)
{
    (void)state;
    assert_int_equal(dc_utf8_count("\x80\x80"), 2);         /* stray continuations */
    assert_int_equal(dc_utf8_count("a\x80z"), 3);           /* one inside ASCII */
    assert_int_equal(dc_utf8_count("\xC0\x80"), 2);         /* overlong NUL */
    assert_int_equal(dc_utf8_count("\xE2\x82"), 2);         /* truncated at the end */
    assert_int_equal(dc_utf8_count("\xE2\x82x"), 2 + 1);    /* truncated before ASCII */
    assert_int_equal(dc_utf8_count("\xF4\x90\x80\x80"), 4); /* past U+10FFFF */
    assert_int_equal(dc_utf8_count("\xED\xA0\x80"), 1);     /* a surrogate, let through */
    assert_int_equal(dc_utf8_count("\xE2\x82\xAC\x80"), 2); /* a euro, then a stray byte */
    /* Each agrees with walking the lenient decoder. */
    const char *const cases[] = {"\x80\x80",        "\xC0\x80",
                                 "\xE2\x82x",       "\xF8\x88\x80\x80\x80",
                                 "caf\xC3\xA9\xA9", "\xF0\x9F\x98"};
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const char *s = cases[k];
        size_t len = strlen(s), n = 0;
        for (size_t i = 0, adv = 1; i < len; i += adv, n++)
            (void)dc_utf8_decode_lenient(s + i, len - i, &adv);
        assert_int_equal(dc_utf8_count(s), n);
        assert_true(n <= len);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strict_valid),    cmocka_unit_test(test_strict_invalid),
        cmocka_unit_test(test_lenient),         cmocka_unit_test(test_count),
        cmocka_unit_test(test_count_malformed),
    };
    return cmocka_run_group_tests_name("utf8", tests, NULL, NULL);
}
