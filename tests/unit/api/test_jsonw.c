/* tests/unit/api/test_jsonw.c -- api/src/jsonw.c and the renderers of
 * api/src/convert.c: byte-for-byte cJSON compatibility on synthetic values and
 * on real recommendation, catalog and rules bodies, the streaming writer's
 * commas and raw values, and its failure on invalid input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/convert.h"
#include "api/jsonw.h"
#include "dc/embedded.h"
#include "dc/engine.h"
#include "dc/numfmt.h"

/* api_json_print must equal cJSON_PrintUnformatted byte for byte. */
static void same_as_cjson(const cJSON *item)
{
    char *want = cJSON_PrintUnformatted(item);
    size_t len = 0;
    char *got = api_json_print(item, 16, &len);
    assert_non_null(want);
    assert_non_null(got);
    if (strcmp(want, got) != 0)
        fail_msg("cJSON: %.400s\nours:  %.400s", want, got);
    assert_int_equal(len, strlen(want));
    cJSON_free(want);
    free(got);
}

/* Besides cJSON's own cases, the short forms of api/src/json_number.c (the
 * whole numbers to 9999; at most six significant digits, in fixed and
 * exponent notation) and 40,000 random values, half of them rounded as
 * convert.c's display numbers are. */
static void test_json_numbers(void **state)
{
    (void)state;
    static const double values[] = {0,
                                    -0.0,
                                    9,
                                    10,
                                    99,
                                    100,
                                    999,
                                    1000,
                                    9999,
                                    9999.5,
                                    10000,
                                    0.999,
                                    1,
                                    -1,
                                    42,
                                    2147483647,
                                    2147483648.0,
                                    -2147483648.0,
                                    -2147483649.0,
                                    1e9,
                                    7e10,
                                    1e15,
                                    1e16,
                                    1e21,
                                    1e300,
                                    0.5,
                                    0.1,
                                    0.2,
                                    0.3,
                                    1.0 / 3,
                                    2.0 / 3,
                                    126.9,
                                    15790,
                                    21.63,
                                    11.77,
                                    33.13,
                                    0.0001,
                                    0.00012345,
                                    0.00009999,
                                    1e-5,
                                    1e-300,
                                    123456789012345.6,
                                    999999999999999.9,
                                    99999999999999.99,
                                    3.14159265358979,
                                    2.718281828459045,
                                    1234.5678,
                                    -0.5,
                                    -126.9,
                                    4.916,
                                    0.9,
                                    1.2,
                                    1e-4,
                                    5e-05,
                                    6.02214076e23,
                                    1.7976931348623157e308,
                                    4.9e-324,
                                    0.30000000000000004,
                                    100.25,
                                    9007199254740993.0,
                                    123.456e-2,
                                    0.015625,
                                    0.001,
                                    0.00123456,
                                    123.456,
                                    -98765.4,
                                    9.87e-05,
                                    -4.875e-05,
                                    1.135e-06,
                                    2.5e-10,
                                    1.23456e-12,
                                    9.99999e-05,
                                    1e-17,
                                    3e-18,
                                    1e-20,
                                    1.0000001e-05};
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(values[i]));
    /* Rounded like convert.c's display numbers, and plain random doubles. */
    srand(12345);
    for (int i = 0; i < 20000; i++) {
        double v = ((double)rand() / RAND_MAX - 0.3) * pow(10, rand() % 24 - 8);
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(v));
        double mag = pow(10, 3 - floor(log10(fabs(v) + 1e-300)));
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(round(v * mag) / mag));
    }
    /* The large exponent form: up to seven digits from 1e15 to 1e28, and
     * past them; arbitrary doubles from 1e15 to 1e29, and ones of a few
     * digits. */
    static const double large[] = {
        6.3e23, 1.5e15,      2.5e15, -3.2e20, 1234567e18,        12345678e17,
        1e27,   9.999999e27, 1e28,   3e100,   9007199254740993e3};
    for (size_t i = 0; i < sizeof(large) / sizeof(large[0]); i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(large[i]));
    for (int i = 0; i < 20000; i++) {
        double v = ((double)rand() / RAND_MAX + 0.05) * pow(10, rand() % 15 + 15);
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(i % 2 ? v : -v));
        double mag = pow(10, (double)(rand() % 7) - floor(log10(v)));
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(round(v * mag) / mag));
    }
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(NAN));
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(INFINITY));
    same_as_cjson(arr);
    cJSON_Delete(arr);
}

/* api_json_number_sig prints what api_json_number prints of the value
 * dc_round_sig gives (the display figures' path, which takes the digits
 * from the rounding), on edges of its fast path and 60,000 random values. */
static void sig_same(double v, int digits)
{
    char want[API_JSON_NUMBER_BUF], got[API_JSON_NUMBER_BUF];
    size_t nw = api_json_number(dc_round_sig(v, digits), want, sizeof(want));
    size_t ng = api_json_number_sig(v, digits, got, sizeof(got));
    if (nw != ng || strcmp(want, got) != 0)
        fail_msg("%.17g to %d digits: want %s, got %s", v, digits, want, got);
}

static void test_json_number_sig(void **state)
{
    (void)state;
    static const double values[] = {0, -0.0, NAN, INFINITY, -INFINITY, 9999.5, 9999.4, 99995,
                                    0.99995, 1e-3, 9.9995e-4, 1e-4, 1.2e-4, 1e-21, 1e21, 9.9995e14,
                                    1e15, 123456789, 0.55, -41.27, 1e-300, 1e300, 126.94999,
                                    0.000115,
                                    /* the four-digit path's edges: whole, all
                                     * decimals dropped, 1e-4 and below */
                                    1000, 7600.4, -76.3, 0.1, 0.00012345, -0.0012345, 1234.5, 99.99,
                                    0.09999, 1.0004e-4, 9.9994e-5};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        for (int d = 1; d <= 17; d++)
            sig_same(values[i], d);
    }
    srand(777);
    for (int i = 0; i < 60000; i++) {
        double v = ((double)rand() / RAND_MAX - 0.3) * pow(10, rand() % 40 - 20);
        sig_same(v, 1 + rand() % 8);
    }
}

static void test_json_strings_and_shapes(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "plain", "hello");
    cJSON_AddStringToObject(o, "escapes", "q\" b\\ s/ \b\f\n\r\t \x01\x1f \x7f");
    cJSON_AddStringToObject(o, "utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80");
    cJSON_AddStringToObject(o, "", "empty key");
    cJSON_AddItemToObject(o, "key \"quoted\"\n", cJSON_CreateNull());
    cJSON_AddItemToObject(o, "t", cJSON_CreateTrue());
    cJSON_AddItemToObject(o, "f", cJSON_CreateFalse());
    cJSON_AddItemToObject(o, "empty_obj", cJSON_CreateObject());
    cJSON_AddItemToObject(o, "empty_arr", cJSON_CreateArray());
    cJSON *nested = cJSON_CreateArray();
    cJSON *inner = cJSON_CreateObject();
    cJSON_AddItemToObject(inner, "a", cJSON_CreateArray());
    cJSON_AddItemToArray(nested, inner);
    cJSON_AddItemToArray(nested, cJSON_CreateString(""));
    cJSON_AddItemToObject(o, "nested", nested);
    cJSON_AddRawToObject(o, "raw", "{\"x\":1}");
    same_as_cjson(o);
    cJSON_Delete(o);
    assert_null(api_json_print(NULL, 0, NULL));
}

static void test_json_real_bodies(void **state)
{
    (void)state;
    dc_ruleset *rs = NULL;
    assert_int_equal(dc_ruleset_load_embedded(aa_embedded_files, &rs, NULL), DC_OK);
    static const char *const workloads[] = {
        "{\"task\":\"inference\",\"model\":{\"parameters\":7e10,\"layers\":80,\"hidden_size\":8192}"
        ","
        "\"precision\":\"fp8\",\"inference\":{\"requests_per_second\":20,\"latency_ms_p99\":50}}",
        "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":1.3e10},"
        "\"training\":{\"tokens\":2.6e11,\"deadline_hours\":720}}",
        "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":7e9,\"custom_ops\":true},"
        "\"constraints\":{\"budget_usd\":5000,\"providers\":[\"aws\"]}}",
        "{\"task\":\"training\",\"precision\":\"fp64\",\"model\":{\"parameters\":1e6,"
        "\"architecture\":\"mlp\"},\"constraints\":{\"deployment\":\"on-prem\"}}",
    };
    for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
        cJSON *w = cJSON_Parse(workloads[i]);
        struct dc_result *res = NULL;
        struct dc_error err;
        assert_int_equal(dc_recommend(rs, w, NULL, &res, &err), DC_OK);
        cJSON *body = NULL;
        assert_int_equal(api_result_to_json(res, &body), DC_OK);
        same_as_cjson(body);
        /* The text the server sends is cJSON's printing of that tree. */
        size_t len = 0;
        char *text = api_result_render(res, &len);
        char *want = cJSON_PrintUnformatted(body);
        assert_string_equal(text, want);
        assert_int_equal(len, strlen(want));
        free(text);
        cJSON_free(want);
        cJSON_Delete(body);
        dc_result_free(res);
        cJSON_Delete(w);
    }
    cJSON *cat = NULL, *rules = NULL;
    assert_int_equal(api_catalog_to_json(rs, NULL, &cat), DC_OK);
    same_as_cjson(cat);
    assert_int_equal(api_rules_to_json(rs, &rules), DC_OK);
    same_as_cjson(rules);
    static const struct api_catalog_filter tpu = {.family = "tpu"};
    size_t len = 0;
    char *text = api_catalog_render(rs, &tpu, &len);
    assert_non_null(text);
    assert_null(strstr(text, "\"family\":\"gpu\""));
    assert_non_null(strstr(text, "\"family\":\"tpu\""));
    free(text);
    text = api_rules_render(rs, &len);
    char *want = cJSON_PrintUnformatted(rules);
    assert_string_equal(text, want);
    free(text);
    cJSON_free(want);
    cJSON_Delete(cat);
    cJSON_Delete(rules);
    dc_ruleset_release(rs);
}

/* Random strings of every byte value (1..255) and length, so the eight-bytes-at-a-
 * time scan meets escapes at every offset of a word. */
static void test_json_random_strings(void **state)
{
    (void)state;
    cJSON *arr = cJSON_CreateArray();
    srand(4242);
    char s[80];
    for (int i = 0; i < 5000; i++) {
        int n = rand() % 79;
        for (int k = 0; k < n; k++) {
            /* Mostly plain ASCII, sometimes an escape or a high byte. */
            int r = rand() % 16;
            s[k] = (char)(r == 0   ? 1 + rand() % 31
                          : r == 1 ? '"'
                          : r == 2 ? '\\'
                          : r == 3 ? 0x80 + rand() % 128
                                   : 0x20 + rand() % 95);
        }
        s[n] = '\0';
        cJSON_AddItemToArray(arr, cJSON_CreateString(s));
    }
    same_as_cjson(arr);
    cJSON_Delete(arr);
}

static void test_writer(void **state)
{
    (void)state;
    struct api_jw w;
    api_jw_init(&w, 1); /* forces the buffer to grow */
    api_jw_object(&w);
    api_jw_key(&w, "a");
    api_jw_array(&w);
    api_jw_number(&w, 1);
    api_jw_raw(&w, "{\"x\":[]}", 8);
    api_jw_string_or_null(&w, NULL);
    api_jw_string(&w, NULL);
    api_jw_bool(&w, false);
    api_jw_number(&w, NAN);
    api_jw_array(&w);
    api_jw_array_end(&w);
    api_jw_object(&w);
    api_jw_object_end(&w);
    api_jw_array_end(&w);
    api_jw_key(&w, "b\n");
    api_jw_string(&w, "\x01\"");
    api_jw_object_end(&w);
    size_t len = 0;
    char *text = api_jw_finish(&w, &len);
    assert_string_equal(
        text, "{\"a\":[1,{\"x\":[]},null,\"\",false,null,[],{}],\"b\\n\":\"\\u0001\\\"\"}");
    assert_int_equal(len, strlen(text));
    free(text);

    /* An invalid item fails the whole document; so does a missing one. */
    cJSON bad = {0};
    bad.type = 0x4000;
    api_jw_init(&w, 0);
    api_jw_array(&w);
    api_jw_value(&w, &bad);
    api_jw_array_end(&w);
    assert_null(api_jw_finish(&w, NULL));
    api_jw_init(&w, 0);
    api_jw_value(&w, NULL);
    assert_null(api_jw_finish(&w, NULL));
    api_jw_init(&w, 0);
    api_jw_null(&w);
    api_jw_discard(&w);
    assert_null(api_result_render(NULL, NULL));
    assert_null(api_catalog_render(NULL, NULL, NULL));
    assert_null(api_rules_render(NULL, NULL));
}

/* A string written in place (api_jw_text_begin/end): as it is when it needs
 * no escaping, escaped when it does, copied when the text came from
 * elsewhere, and nothing at all once the document has failed. */
static void test_text_in_place(void **state)
{
    (void)state;
    static const char *const texts[] = {"",
                                        "short",
                                        "exactly 16 bytes",
                                        "a longer text, past two blocks",
                                        "a \"quoted\" word",
                                        "tab\tand\nnew line in a long text"};
    struct api_jw w;
    api_jw_init(&w, 1); /* a small buffer, which begin has to grow */
    api_jw_array(&w);
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        char *at = api_jw_text_begin(&w, 64);
        assert_non_null(at);
        size_t n = strlen(texts[i]);
        memcpy(at, texts[i], n + 1);
        api_jw_text_end(&w, at, n);
    }
    assert_non_null(api_jw_text_begin(&w, 64));
    api_jw_text_end(&w, "from elsewhere \\", 16);
    api_jw_array_end(&w);
    size_t len = 0;
    char *text = api_jw_finish(&w, &len);
    assert_string_equal(text, "[\"\",\"short\",\"exactly 16 bytes\",\"a longer text, past two "
                              "blocks\",\"a \\\"quoted\\\" word\",\"tab\\tand\\nnew line in a long "
                              "text\",\"from elsewhere \\\\\"]");
    assert_int_equal(len, strlen(text));
    free(text);

    /* Room past the document's limit fails it, rather than leaving a key
     * without its value. */
    api_jw_init(&w, 0);
    api_jw_object(&w);
    api_jw_key(&w, "k");
    assert_null(api_jw_text_begin(&w, (size_t)API_JW_MAX_BYTES + 1));
    api_jw_object_end(&w);
    assert_null(api_jw_finish(&w, NULL));
}

/* The members of one object, written as key then value (hint: the
 * buffer's first size) or in one step (API_JW_MEMBER_*). */
static char *members(size_t hint, bool one_step)
{
    struct api_jw w;
    api_jw_init(&w, hint);
    api_jw_object(&w);
    if (one_step) {
        API_JW_MEMBER_NUMBER(&w, "n", 12);
        API_JW_MEMBER_NUMBER(&w, "x", 0.1);
        API_JW_MEMBER_NUMBER(&w, "nan", NAN);
        API_JW_MEMBER_SIG(&w, "sig", 1234.5678, 4);
        API_JW_MEMBER_SIG(&w, "zero", -0.0, 4);
        API_JW_MEMBER_SIG(&w, "none", NAN, 4);
        API_JW_MEMBER_SIG(&w, "big", 123456789, 4);
        API_JW_MEMBER_BOOL(&w, "t", true);
        API_JW_MEMBER_BOOL(&w, "f", false);
        API_JW_MEMBER_STRING(&w, "s", "a \"long\" string\n, past one block");
        API_JW_MEMBER_STRING(&w, "null", NULL);
        API_JW_MEMBER_STRING(&w, "short", "ab");
        API_JW_MEMBER_STRING_OR_NULL(&w, "on", "text");
        API_JW_MEMBER_STRING_OR_NULL(&w, "off", NULL);
    } else {
        api_jw_key(&w, "n");
        api_jw_number(&w, 12);
        api_jw_key(&w, "x");
        api_jw_number(&w, 0.1);
        api_jw_key(&w, "nan");
        api_jw_number(&w, NAN);
        api_jw_key(&w, "sig");
        api_jw_number_sig(&w, 1234.5678, 4);
        api_jw_key(&w, "zero");
        api_jw_number_sig(&w, -0.0, 4);
        api_jw_key(&w, "none");
        api_jw_number_sig(&w, NAN, 4);
        api_jw_key(&w, "big");
        api_jw_number_sig(&w, 123456789, 4);
        api_jw_key(&w, "t");
        api_jw_bool(&w, true);
        api_jw_key(&w, "f");
        api_jw_bool(&w, false);
        api_jw_key(&w, "s");
        api_jw_string(&w, "a \"long\" string\n, past one block");
        api_jw_key(&w, "null");
        api_jw_string(&w, NULL);
        api_jw_key(&w, "short");
        api_jw_string(&w, "ab");
        api_jw_key(&w, "on");
        api_jw_string_or_null(&w, "text");
        api_jw_key(&w, "off");
        api_jw_string_or_null(&w, NULL);
    }
    api_jw_object_end(&w);
    return api_jw_finish(&w, NULL);
}

/* A member written in one step is the key and value written apart, byte
 * for byte, whether the buffer has room for it (the one-step path) or has
 * to grow first (each member's fallback); nothing once the document failed. */
static void test_members(void **state)
{
    (void)state;
    static const char want[] =
        "{\"n\":12,\"x\":0.1,\"nan\":null,\"sig\":1235,\"zero\":-0,\"none\":null,"
        "\"big\":123500000,\"t\":true,\"f\":false,\"s\":\"a \\\"long\\\" string\\n, past one "
        "block\",\"null\":\"\",\"short\":\"ab\",\"on\":\"text\",\"off\":null}";
    for (int one = 0; one < 2; one++) {
        for (size_t hint = 1; hint <= 1024; hint *= 4) {
            char *text = members(hint, one == 1);
            assert_non_null(text);
            assert_string_equal(text, want);
            free(text);
        }
    }
    struct api_jw w;
    api_jw_init(&w, 0);
    api_jw_object(&w);
    api_jw_key(&w, "k");
    assert_null(api_jw_text_begin(&w, (size_t)API_JW_MAX_BYTES + 1)); /* fails the document */
    API_JW_MEMBER_NUMBER(&w, "n", 1);
    API_JW_MEMBER_BOOL(&w, "b", true);
    API_JW_MEMBER_STRING(&w, "s", "x");
    assert_true(w.failed);
    assert_null(api_jw_finish(&w, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_numbers),        cmocka_unit_test(test_json_strings_and_shapes),
        cmocka_unit_test(test_json_random_strings), cmocka_unit_test(test_json_number_sig),
        cmocka_unit_test(test_json_real_bodies),    cmocka_unit_test(test_writer),
        cmocka_unit_test(test_text_in_place),       cmocka_unit_test(test_members),
    };
    return cmocka_run_group_tests_name("api.jsonw", tests, NULL, NULL);
}
