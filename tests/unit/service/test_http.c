/* tests/unit/service/test_http.c -- service/src/http.c (routes, methods, request
 * ids, content types, CORS) and service/src/http_json.c (byte-for-byte cJSON
 * compatibility on synthetic values and on real recommendation bodies). */
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
#include "dc/embedded.h"
#include "dc/engine.h"
#include "http.h"
#include "http_json.h"


static void test_routes(void **state)
{
    (void)state;
    assert_int_equal(svc_route_match("/v1/recommendations"), SVC_ROUTE_RECOMMEND);
    assert_int_equal(svc_route_match("/v1/recommendations:batch"), SVC_ROUTE_BATCH);
    assert_int_equal(svc_route_match("/v1/accelerators"), SVC_ROUTE_ACCELERATORS);
    assert_int_equal(svc_route_match("/metrics"), SVC_ROUTE_METRICS);
    assert_int_equal(svc_route_match("/v1/recommendations/"), SVC_ROUTE_UNMATCHED);
    assert_int_equal(svc_route_match("/V1/rules"), SVC_ROUTE_UNMATCHED);
    assert_int_equal(svc_route_match(""), SVC_ROUTE_UNMATCHED);
    assert_int_equal(svc_route_match(NULL), SVC_ROUTE_UNMATCHED);
    assert_string_equal(svc_route_label(SVC_ROUTE_UNMATCHED), "unmatched");
    assert_string_equal(svc_route_label(SVC_ROUTE_BATCH), "/v1/recommendations:batch");
    char allow[64];
    svc_route_allow(SVC_ROUTE_RECOMMEND, allow, sizeof(allow));
    assert_string_equal(allow, "POST, OPTIONS");
    svc_route_allow(SVC_ROUTE_HEALTHZ, allow, sizeof(allow));
    assert_string_equal(allow, "GET, HEAD, OPTIONS");
    svc_route_allow(SVC_ROUTE_UNMATCHED, allow, sizeof(allow));
    assert_string_equal(allow, "");
    assert_true(svc_route_protected(SVC_ROUTE_RULES));
    assert_true(svc_route_protected(SVC_ROUTE_INVENTORY));
    assert_false(svc_route_protected(SVC_ROUTE_METRICS));
    assert_false(svc_route_protected(SVC_ROUTE_HEALTHZ));
    assert_false(svc_route_protected(SVC_ROUTE_READYZ));
    assert_false(svc_route_protected(SVC_ROUTE_OPENAPI_JSON));
    assert_true(svc_route_needs_rules(SVC_ROUTE_ACCELERATORS));
    assert_false(svc_route_needs_rules(SVC_ROUTE_HEALTHZ));
    assert_int_equal(svc_method_parse("GET"), SVC_METHOD_GET);
    assert_int_equal(svc_method_parse("get"), SVC_METHOD_OTHER);
    assert_int_equal(svc_method_parse("PATCH"), SVC_METHOD_OTHER);
    assert_string_equal(svc_method_label(SVC_METHOD_OTHER), "other");
}

static void test_request_ids(void **state)
{
    (void)state;
    assert_true(svc_request_id_valid("abc"));
    assert_true(svc_request_id_valid("A-Z_a.z:0-9"));
    char id64[65];
    memset(id64, 'x', 64);
    id64[64] = '\0';
    assert_true(svc_request_id_valid(id64));
    char id65[66];
    memset(id65, 'x', 65);
    id65[65] = '\0';
    assert_false(svc_request_id_valid(id65));
    assert_false(svc_request_id_valid(""));
    assert_false(svc_request_id_valid(NULL));
    assert_false(svc_request_id_valid("has space"));
    assert_false(svc_request_id_valid("quote\""));
    assert_false(svc_request_id_valid("caf\xc3\xa9"));
    char a[33], b[33];
    for (int i = 0; i < 200; i++) {
        assert_true(svc_request_id_generate(a));
        assert_true(svc_request_id_generate(b));
        assert_int_equal(strlen(a), 32);
        assert_int_equal(strspn(a, "0123456789abcdef"), 32);
        assert_string_not_equal(a, b);
        assert_true(svc_request_id_valid(a));
    }
}

static void test_content_types(void **state)
{
    (void)state;
    assert_int_equal(svc_content_type_classify("application/json"), SVC_CTYPE_JSON);
    assert_int_equal(svc_content_type_classify("Application/JSON"), SVC_CTYPE_JSON);
    assert_int_equal(svc_content_type_classify("application/json; charset=utf-8"), SVC_CTYPE_JSON);
    assert_int_equal(svc_content_type_classify("application/json;charset=\"UTF-8\""),
                     SVC_CTYPE_JSON);
    assert_int_equal(svc_content_type_classify("application/json; charset=utf8"), SVC_CTYPE_JSON);
    assert_int_equal(svc_content_type_classify(" application/json "), SVC_CTYPE_JSON);
    assert_int_equal(svc_content_type_classify(NULL), SVC_CTYPE_MISSING);
    assert_int_equal(svc_content_type_classify("application/json; charset=latin1"),
                     SVC_CTYPE_OTHER);
    assert_int_equal(svc_content_type_classify("application/jsonx"), SVC_CTYPE_OTHER);
    assert_int_equal(svc_content_type_classify("application/json-patch+json"), SVC_CTYPE_OTHER);
    assert_int_equal(svc_content_type_classify("text/json"), SVC_CTYPE_OTHER);
    assert_int_equal(svc_content_type_classify(""), SVC_CTYPE_OTHER);
    assert_int_equal(svc_content_type_classify("application/json; charset"), SVC_CTYPE_OTHER);
    assert_int_equal(svc_content_type_classify("application/json; charset=\"utf-8"),
                     SVC_CTYPE_OTHER);
}

static void test_cors(void **state)
{
    (void)state;
    const char *list = "https://a.example, https://b.example:8443 ,http://c";
    assert_true(svc_cors_origin_allowed(list, "https://a.example"));
    assert_true(svc_cors_origin_allowed(list, "https://b.example:8443"));
    assert_true(svc_cors_origin_allowed(list, "http://c"));
    assert_false(svc_cors_origin_allowed(list, "https://a.example.evil"));
    assert_false(svc_cors_origin_allowed(list, "https://b.example"));
    assert_false(svc_cors_origin_allowed(list, "http://a.example"));
    assert_false(svc_cors_origin_allowed(list, NULL));
    assert_false(svc_cors_origin_allowed("", "https://a.example"));
    assert_true(svc_cors_origin_allowed("*", "https://anything"));
    assert_false(svc_cors_origin_allowed("*", NULL));
}

/* svc_json_print must equal cJSON_PrintUnformatted byte for byte. */
static void same_as_cjson(const cJSON *item)
{
    char *want = cJSON_PrintUnformatted(item);
    size_t len = 0;
    char *got = svc_json_print(item, 16, &len);
    assert_non_null(want);
    assert_non_null(got);
    if (strcmp(want, got) != 0)
        fail_msg("cJSON: %.400s\nours:  %.400s", want, got);
    assert_int_equal(len, strlen(want));
    cJSON_free(want);
    free(got);
}

static void test_json_numbers(void **state)
{
    (void)state;
    static const double values[] = {
        0, -0.0, 1, -1, 42, 2147483647, 2147483648.0, -2147483648.0, -2147483649.0, 1e9, 7e10,
        1e15, 1e16, 1e21, 1e300, 0.5, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 126.9, 15790, 21.63,
        11.77, 33.13, 0.0001, 0.00012345, 0.00009999, 1e-5, 1e-300, 123456789012345.6,
        999999999999999.9, 99999999999999.99, 3.14159265358979, 2.718281828459045, 1234.5678,
        -0.5, -126.9, 4.916, 0.9, 1.2, 1e-4, 5e-05, 6.02214076e23, 1.7976931348623157e308,
        4.9e-324, 0.30000000000000004, 100.25, 9007199254740993.0, 123.456e-2, 0.015625};
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
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(NAN));
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(INFINITY));
    same_as_cjson(arr);
    cJSON_Delete(arr);
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
    assert_null(svc_json_print(NULL, 0, NULL));
}

static void test_json_real_bodies(void **state)
{
    (void)state;
    struct dc_source_file files[16];
    size_t n = 0;
    for (const struct aa_embedded_file *f = aa_embedded_files; f->name != NULL && n < 16; f++) {
        if (strncmp(f->name, "rules/", 6) == 0) {
            files[n].name = f->name + 6;
            files[n].data = f->data;
            files[n].len = f->len;
            n++;
        }
    }
    dc_ruleset *rs = NULL;
    assert_int_equal(dc_ruleset_load_files(files, n, &rs, NULL), DC_OK);
    static const char *const workloads[] = {
        "{\"task\":\"inference\",\"model\":{\"parameters\":7e10,\"layers\":80,\"hidden_size\":8192},"
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
        cJSON_Delete(body);
        dc_result_free(res);
        cJSON_Delete(w);
    }
    cJSON *cat = NULL, *rules = NULL;
    assert_int_equal(api_catalog_to_json(rs, NULL, &cat), DC_OK);
    same_as_cjson(cat);
    assert_int_equal(api_rules_to_json(rs, &rules), DC_OK);
    same_as_cjson(rules);
    cJSON_Delete(cat);
    cJSON_Delete(rules);
    dc_ruleset_release(rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_request_ids),
        cmocka_unit_test(test_content_types),
        cmocka_unit_test(test_cors),
        cmocka_unit_test(test_json_numbers),
        cmocka_unit_test(test_json_strings_and_shapes),
        cmocka_unit_test(test_json_real_bodies),
    };
    return cmocka_run_group_tests_name("service.http", tests, NULL, NULL);
}
