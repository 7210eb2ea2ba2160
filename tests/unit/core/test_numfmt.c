/* tests/unit/core/test_numfmt.c -- the number formatter (dc/numfmt.h): every
 * golden case of tests/fixtures/numfmt.json (the same cases web/format.js is
 * held to), and the properties the texts rely on: a number formats alike
 * before and after the JSON's rounding to 4 significant digits, rounding is
 * idempotent, and nothing the formatters write has an exponent; and the
 * fixed text under them (digits.h) against printf's "%.*f" on many values,
 * and a whole number's digits (dc/decimal.h) against its "%" PRIu64. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "dc/decimal.h"
#include "dc/numfmt.h"
#include "digits.h"
#include "read_file.h"

static enum dc_period period_of(const char *name)
{
    static const char *const names[] = {"none", "hour", "chip_hour", "month", "run", "job"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(names[i], name) == 0)
            return (enum dc_period)i;
    }
    fail_msg("unknown period \"%s\" in numfmt.json", name);
    return DC_PER_NONE;
}

/* One case's text: `kind` names the formatter; a null value is not finite. */
static const char *format_case(const cJSON *c, char *buf, size_t len)
{
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(c, "kind"));
    const cJSON *value = cJSON_GetObjectItem(c, "value");
    double v = cJSON_IsNumber(value) ? value->valuedouble : NAN;
    assert_non_null(kind);
    if (strcmp(kind, "money") == 0)
        return dc_fmt_money(v, period_of(cJSON_GetStringValue(cJSON_GetObjectItem(c, "per"))), buf,
                            len);
    if (strcmp(kind, "hours") == 0)
        return dc_fmt_hours(v, buf, len);
    if (strcmp(kind, "ms") == 0)
        return dc_fmt_ms(v, buf, len);
    if (strcmp(kind, "duration") == 0)
        return dc_fmt_duration(v, buf, len);
    if (strcmp(kind, "count") == 0)
        return dc_fmt_count(v, buf, len);
    if (strcmp(kind, "quantity") == 0)
        return dc_fmt_quantity(v, buf, len);
    if (strcmp(kind, "number") == 0)
        return dc_fmt_number(v, buf, len);
    if (strcmp(kind, "percent") == 0)
        return dc_fmt_percent(v, buf, len);
    if (strcmp(kind, "flop") == 0)
        return dc_fmt_flop(v, buf, len);
    fail_msg("unknown kind \"%s\" in numfmt.json", kind);
    return NULL;
}

static void golden_cases(void **state)
{
    (void)state;
    char *text = test_read_file(AA_FIXTURES_DIR "/numfmt.json", 1u << 20);
    assert_non_null(text);
    cJSON *cases = cJSON_Parse(text);
    assert_non_null(cases);
    int failed = 0, n = 0;
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cases)
    {
        char buf[96];
        const char *want = cJSON_GetStringValue(cJSON_GetObjectItem(c, "expect"));
        assert_non_null(want);
        const char *got = format_case(c, buf, sizeof(buf));
        n++;
        if (strcmp(got, want) != 0) {
            char *line = cJSON_PrintUnformatted(c);
            print_error("%s: got \"%s\"\n", line, got);
            free(line);
            failed++;
        }
    }
    print_message("numfmt: %d cases, %d failed\n", n, failed);
    assert_true(n >= 50);
    assert_int_equal(failed, 0);
    cJSON_Delete(cases);
    free(text);
}

/* A deterministic spread of values over 30 decades (xorshift64*). */
static double next_value(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    uint64_t x = *s * 2685821657736338717ull;
    double mantissa = 1 + (double)(x >> 11) / 9007199254740992.0 * 9;
    int decade = (int)((x >> 3) % 30) - 12;
    double v = mantissa;
    for (int i = 0; i < decade; i++)
        v *= 10;
    for (int i = 0; i > decade; i--)
        v /= 10;
    return v;
}

typedef const char *(*formatter)(double, char *, size_t);

static const char *money_month(double v, char *buf, size_t len)
{
    return dc_fmt_money(v, DC_PER_MONTH, buf, len);
}

/* What a reader sees of a value and of the value the JSON carries is the same
 * text: the property behind "every number in a reason text equals its JSON
 * field after formatting". */
static void text_agrees_with_json_rounding(void **state)
{
    (void)state;
    static const formatter fs[] = {money_month,   dc_fmt_hours, dc_fmt_ms,      dc_fmt_quantity,
                                   dc_fmt_number, dc_fmt_flop,  dc_fmt_duration};
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 20000; i++) {
        double v = next_value(&seed);
        double json = dc_round_sig(v, DC_JSON_SIGNIFICANT);
        assert_true(dc_round_sig(json, DC_JSON_SIGNIFICANT) == json);
        for (size_t f = 0; f < sizeof(fs) / sizeof(fs[0]); f++) {
            char a[96], b[96];
            fs[f](v, a, sizeof(a));
            fs[f](json, b, sizeof(b));
            if (strcmp(a, b) != 0)
                fail_msg("formatter %zu: %.17g gives \"%s\" but its JSON %.17g gives \"%s\"", f, v,
                         a, json, b);
            /* Never an exponent. */
            assert_null(strstr(a, "e+"));
            assert_null(strstr(a, "e-"));
        }
    }
}

static void rounding(void **state)
{
    (void)state;
    assert_true(dc_round_sig(83170.56, 4) == 83170);
    assert_true(dc_round_sig(-0.0123456, 3) == -0.0123);
    assert_true(dc_round_sig(0, 4) == 0);
    assert_true(isnan(dc_round_sig(NAN, 4)));
    assert_true(dc_round_sig(1e-320, 4) == 1e-320 || dc_round_sig(1e-320, 4) > 0);
    assert_true(dc_round_sig(1.5, 0) == 1.5);
}

/* Short buffers truncate, NUL-terminated, and a zero-length one is left alone. */
static void short_buffers(void **state)
{
    (void)state;
    char buf[6];
    assert_string_equal(dc_fmt_money(92412, DC_PER_MONTH, buf, sizeof(buf)), "$92.4");
    assert_string_equal(dc_fmt_count(1234567, buf, sizeof(buf)), "1,234");
    char one[1] = {'x'};
    assert_string_equal(dc_fmt_hours(49.94, one, sizeof(one)), "");
    assert_ptr_equal(dc_fmt_number(1, NULL, 0), NULL);
}

/* A figure formatted again (numfmt.c keeps the texts it made, per thread)
 * gives the same text as the first time, whatever formatter, period or
 * buffer asks for it: a kept text is no other formatter's, no other
 * period's, and is never handed whole to a buffer too short for it. */
static void repeated_figures(void **state)
{
    (void)state;
    char big[64], small[6], exact[6];
    for (int round = 0; round < 2; round++) {
        assert_string_equal(dc_fmt_number(0.5, big, sizeof(big)), "0.5");
        assert_string_equal(dc_fmt_percent(0.5, big, sizeof(big)), "50%");
        assert_string_equal(dc_fmt_hours(0.5, big, sizeof(big)), "30 min");
        assert_string_equal(dc_fmt_money(92412, DC_PER_HOUR, big, sizeof(big)), "$92.4k/h");
        assert_string_equal(dc_fmt_money(92412, DC_PER_MONTH, big, sizeof(big)), "$92.4k/month");
        assert_string_equal(dc_fmt_money(92412, DC_PER_MONTH, small, sizeof(small)), "$92.4");
        assert_string_equal(dc_fmt_count(1234567, big, sizeof(big)), "1,234,567");
        assert_string_equal(dc_fmt_count(1234567, small, sizeof(small)), "1,234");
        assert_string_equal(dc_fmt_count(-0.0, big, sizeof(big)), "0");
        assert_string_equal(dc_fmt_count(12345, exact, sizeof(exact)), "12,34");
        assert_string_equal(dc_fmt_count(1234, exact, sizeof(exact)), "1,234");
        assert_string_equal(dc_fmt_flop(5.25e18, big, sizeof(big)), "5.25 EFLOP");
        assert_string_equal(dc_fmt_quantity(70e9, big, sizeof(big)), "70B");
        assert_string_equal(dc_fmt_ms(340, big, sizeof(big)), "340 ms");
        assert_string_equal(dc_fmt_duration(340, big, sizeof(big)), "5.67 min");
        assert_string_equal(dc_fmt_number(NAN, big, sizeof(big)), "unknown");
    }
}

/* Formatter `f` of the ten kept_texts_are_made_texts asks of each value. */
static const char *format_as(int f, double v, char *buf, size_t len)
{
    switch (f) {
    case 0:
        return dc_fmt_number(v, buf, len);
    case 1:
        return dc_fmt_count(v, buf, len);
    case 2:
        return dc_fmt_quantity(v, buf, len);
    case 3:
        return dc_fmt_percent(v, buf, len);
    case 4:
        return dc_fmt_flop(v, buf, len);
    case 5:
        return dc_fmt_hours(v, buf, len);
    case 6:
        return dc_fmt_ms(v, buf, len);
    case 7:
        return dc_fmt_duration(v, buf, len);
    case 8:
        return dc_fmt_money(v, DC_PER_MONTH, buf, len);
    default:
        return dc_fmt_money(v, DC_PER_CHIP_HOUR, buf, len);
    }
}

/* Every formatter's text for values of every kind, at every buffer length
 * from 1 to 48, made and then asked for again: the second comes from the
 * table of texts kept (kept with the length its formatter returned), and
 * must be the same text. */
static void kept_texts_are_made_texts(void **state)
{
    (void)state;
    static const double values[] = {0,      -0.0,   0.5,     -0.5,    0.00123, 1,     9.995,
                                    99.95,  999.95, 1234.5,  -1234.5, 92412,   1.5e6, 2.25e9,
                                    7.7e12, 5e15,   1.25e21, 3e24,    -7e18,   NAN,   INFINITY};
    int bad = 0;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        for (size_t len = 1; len <= 48; len++) {
            for (int f = 0; f < 10; f++) {
                char made[48], again[48];
                double v = values[i];
                const char *a = format_as(f, v, made, len), *b = format_as(f, v, again, len);
                if ((strcmp(a, b) != 0 || strlen(a) >= len) && bad++ < 5)
                    print_message("formatter %d, %g, %zu bytes: \"%s\" then \"%s\"\n", f, v, len, a,
                                  b);
            }
        }
    }
    assert_int_equal(bad, 0);
}

/* dc__fixed_put as it was built on printf: "%.*f", trailing zeros past
 * `keep` places and a bare point dropped, grouped by thousands, cut to len. */
static void fixed_put_printf(double a, int decimals, int keep, bool group, char *out, size_t len)
{
    char digits[400];
    int r = snprintf(digits, sizeof(digits), "%.*f", decimals > 20 ? 20 : decimals, a);
    size_t total = (size_t)r;
    if (decimals > 20)
        decimals = 20;
    char *dot = decimals > 0 ? digits + total - decimals - 1 : NULL;
    char *end = digits + total;
    if (dot != NULL) {
        while (end > dot + 1 + keep && end[-1] == '0')
            *--end = '\0';
        if (end == dot + 1)
            *--end = '\0';
    }
    size_t int_len = dot != NULL ? (size_t)(dot - digits) : total, k = 0;
    for (size_t i = 0; digits[i] != '\0' && k + 1 < len; i++) {
        if (group && i > 0 && i < int_len && (int_len - i) % 3 == 0 && k + 2 < len)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k < len ? k : len - 1] = '\0';
}

/* One value through dc__fixed_put and the printf version, every place count
 * from 0 to 21, keep 0 to 2, grouped or not, and buffers of 1 to 40 bytes
 * (`all_lengths`) or of 31 and 40 (either side of the room for any text the
 * fast digits write). */
static int fixed_put_each(double a, bool all_lengths)
{
    int bad = 0;
    for (int d = 0; d <= 21; d++) {
        for (int keep = 0; keep <= 2; keep++) {
            for (int g = 0; g < 2; g++) {
                for (size_t len = all_lengths ? 1 : 31; len <= 40; len += !all_lengths ? 9
                                                                          : len < 8    ? 1
                                                                                       : 8) {
                    char got[64], want[64];
                    memset(got, 'x', sizeof(got));
                    size_t n = dc__fixed_put(a, d, keep, g, got, len);
                    fixed_put_printf(a, d, keep, g, want, len);
                    if ((strcmp(got, want) != 0 || n != strlen(got)) && bad++ < 5)
                        print_message("fixed_put(%.17g, %d, %d, %d, %zu): \"%s\" (%zu), printf "
                                      "\"%s\"\n",
                                      a, d, keep, g, len, got, n, want);
                }
            }
        }
    }
    return bad;
}

static int fixed_put_differs(double a)
{
    return fixed_put_each(a, true);
}

static void fixed_text_matches_printf(void **state)
{
    (void)state;
    static const double edges[] = {0,
                                   0.5,
                                   1.5,
                                   2.5,
                                   0.125,
                                   0.0625,
                                   1e-4,
                                   0.00009999,
                                   0.00010001,
                                   0.001,
                                   0.01,
                                   0.1,
                                   0.3,
                                   0.7,
                                   1,
                                   9.995,
                                   99.5,
                                   999.5,
                                   1000,
                                   1234567,
                                   1e15,
                                   1e21,
                                   562949953421311.75, /* 2^49 - 1/4 */
                                   562949953421312.0,  /* 2^49 */
                                   4503599627370496.0, /* 2^52 */
                                   9007199254740992.0, /* 2^53 */
                                   9007199254740993.0,
                                   4.9406564584124654e-324, /* the least subnormal */
                                   2.2250738585072009e-308, /* the greatest subnormal */
                                   1.7976931348623157e308};
    int bad = 0;
    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
        bad += fixed_put_differs(edges[i]);
    for (int k = 0; k <= 22; k++) { /* powers of ten and the halves beside them */
        double p = 1;
        for (int j = 0; j < k; j++)
            p *= 10;
        bad += fixed_put_differs(p) + fixed_put_differs(1 / p) + fixed_put_differs(0.5 / p) +
               fixed_put_differs(p + 0.5) + fixed_put_differs(5 / p);
    }
    /* Random values: display figures (3 or 4 significant digits, as numfmt
     * rounds them), halves of the last place, and raw doubles of every size. */
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double unit = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
        int e = (int)(x % 40) - 20;
        double scale = pow(10, e);
        bad += fixed_put_each(dc_round_sig(unit * scale, 3 + (int)(x % 2)), false);
        bad += fixed_put_each((floor(unit * 1000) + 0.5) / 1000, false);
        double raw;
        uint64_t bits = x;
        memcpy(&raw, &bits, sizeof(raw));
        if (isfinite(raw) && i % 8 == 0) /* up to 309 digits each: a few */
            bad += fixed_put_each(fabs(raw), false);
        bad += fixed_put_each(unit * scale, false);
    }
    assert_int_equal(bad, 0);
}

/* A whole number's digits (dc/decimal.h) against printf's "%" PRIu64: every
 * power of ten and its neighbours (where the digit count changes), the ends
 * of the range, and a spread of values from a fixed generator. */
static void check_uint(uint64_t v)
{
    char want[32], got[32], put[32];
    snprintf(want, sizeof(want), "%" PRIu64, v);
    memset(got, 'x', sizeof(got));
    size_t n = dc_uint_text(v, got);
    assert_int_equal(n, strlen(want));
    assert_string_equal(got, want);
    assert_int_equal(dc_uint_digits(v), n);
    memset(put, 'x', sizeof(put));
    dc_uint_put(v, n, put + 1);
    assert_memory_equal(put + 1, want, n);
    assert_true(put[0] == 'x' && put[n + 1] == 'x'); /* nothing written outside */
}

static void uint_text_matches_printf(void **state)
{
    (void)state;
    check_uint(0);
    check_uint(UINT64_MAX);
    check_uint(UINT64_MAX - 1);
    for (int k = 0; k < 20; k++) {
        uint64_t p = dc_pow10u[k];
        check_uint(p - 1);
        check_uint(p);
        check_uint(p + 1);
    }
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        check_uint(x >> (i % 64)); /* every length, not only 19 and 20 digits */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_cases),
        cmocka_unit_test(text_agrees_with_json_rounding),
        cmocka_unit_test(rounding),
        cmocka_unit_test(short_buffers),
        cmocka_unit_test(repeated_figures),
        cmocka_unit_test(kept_texts_are_made_texts),
        cmocka_unit_test(fixed_text_matches_printf),
        cmocka_unit_test(uint_text_matches_printf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
