/* tests/unit/core/test_numfmt.c -- the number formatter (dc/numfmt.h): every
 * golden case of tests/fixtures/numfmt.json (the same cases web/format.js is
 * held to), and the properties the texts rely on: a number formats alike
 * before and after the JSON's rounding to 4 significant digits, rounding is
 * idempotent, and nothing the formatters write has an exponent. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "dc/numfmt.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_cases),
        cmocka_unit_test(text_agrees_with_json_rounding),
        cmocka_unit_test(rounding),
        cmocka_unit_test(short_buffers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
