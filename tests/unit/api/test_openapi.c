/* tests/unit/api/test_openapi.c -- api/src/openapi.c (the contract),
 * api/src/json_read.c (the strict body parser) and api/src/problem.c (RFC 9457
 * problems). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/openapi.h"
#include "api/problem.h"
#include "dc/embedded.h"

/* Parse `len` bytes copied into a NUL-terminated buffer, as the server holds them. */
static enum api_json_error parse(const char *s, size_t len, unsigned depth, cJSON **out,
                                 struct dc_error *err)
{
    char *buf = malloc(len + 1);
    memcpy(buf, s, len);
    buf[len] = '\0';
    enum api_json_error e = api_json_parse(buf, len, depth, out, err);
    free(buf);
    return e;
}

static void expect(const char *s, size_t len, enum api_json_error want, const char *msg_part)
{
    cJSON *j = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum api_json_error got = parse(s, len, 0, &j, &err);
    if (got != want)
        fail_msg("\"%.*s\": got %s (%s), want %s", (int)len, s, api_json_error_name(got), err.msg,
                 api_json_error_name(want));
    if (want == API_JSON_OK) {
        assert_non_null(j);
    } else {
        assert_null(j);
        if (msg_part != NULL && strstr(err.msg, msg_part) == NULL)
            fail_msg("\"%.*s\": message \"%s\" lacks \"%s\"", (int)len, s, err.msg, msg_part);
    }
    cJSON_Delete(j);
}

#define OK(s)        expect(s, sizeof(s) - 1, API_JSON_OK, NULL)
#define BAD(s, e, m) expect(s, sizeof(s) - 1, e, m)

static void test_strict_json(void **state)
{
    (void)state;
    OK("{}");
    OK("[]");
    OK(" \t\r\n{\"a\" : [1, -2.5e+3, 0, -0, 0.125, true, false, null, \"x\"]} \n");
    OK("\"\\u00e9\\ud83d\\ude80 \\\" \\\\ \\/ \\b\\f\\n\\r\\t\"");
    OK("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\"");
    OK("123");
    OK("1E5");
    BAD("", API_JSON_MALFORMED, "empty body");
    BAD("   ", API_JSON_MALFORMED, "end of input");
    BAD("{\"a\":1,}", API_JSON_MALFORMED, "expected a string key");
    BAD("[1,]", API_JSON_MALFORMED, "unexpected character");
    BAD("{\"a\" 1}", API_JSON_MALFORMED, "expected ':'");
    BAD("{\"a\":1} {}", API_JSON_MALFORMED, "unexpected data after the JSON value");
    BAD("{\"a\":1}x", API_JSON_MALFORMED, "after the JSON value");
    BAD("[1 2]", API_JSON_MALFORMED, "expected ',' or ']'");
    BAD("{'a':1}", API_JSON_MALFORMED, "expected a string key");
    BAD("[01]", API_JSON_MALFORMED, NULL);
    BAD("[1.]", API_JSON_MALFORMED, "invalid number");
    BAD("[.5]", API_JSON_MALFORMED, NULL);
    BAD("[+1]", API_JSON_MALFORMED, NULL);
    BAD("[-]", API_JSON_MALFORMED, "invalid number");
    BAD("[1e]", API_JSON_MALFORMED, "invalid number");
    BAD("[NaN]", API_JSON_MALFORMED, NULL);
    BAD("[tru]", API_JSON_MALFORMED, NULL);
    BAD("[1e400]", API_JSON_MALFORMED, "out of range");
    BAD("[1234567890123456789012345678901234567890123456789012345678901234]", API_JSON_MALFORMED,
        "longer than 63");
    BAD("\"abc", API_JSON_MALFORMED, "unterminated string");
    BAD("\"a\tb\"", API_JSON_MALFORMED, "control character");
    BAD("\"\\x\"", API_JSON_MALFORMED, "invalid escape");
    BAD("\"\\u12\"", API_JSON_MALFORMED, "invalid \\u escape");
    BAD("\"\\u0000\"", API_JSON_NUL_IN_STRING, "\\u0000 (NUL)");
    BAD("{\"task\\u0000x\":1}", API_JSON_NUL_IN_STRING, "line 1, column 7");
    BAD("[\"training\\u0000x\"]", API_JSON_NUL_IN_STRING, NULL);
    BAD("{\"a\":1}\0{\"b\":2}", API_JSON_MALFORMED, "after the JSON value");
    BAD("\xef\xbb\xbf{}", API_JSON_MALFORMED, "unexpected character");
    /* UTF-8: invalid bytes, overlong forms, surrogates, past U+10FFFF, truncation. */
    BAD("\"\xff\"", API_JSON_INVALID_UTF8, "invalid UTF-8");
    BAD("\"\xc0\xaf\"", API_JSON_INVALID_UTF8, NULL);
    BAD("\"\xe0\x80\xaf\"", API_JSON_INVALID_UTF8, NULL);
    BAD("\"\xed\xa0\x80\"", API_JSON_INVALID_UTF8, NULL);
    BAD("\"\xf4\x90\x80\x80\"", API_JSON_INVALID_UTF8, NULL);
    BAD("\"\xe2\x82\"", API_JSON_INVALID_UTF8, NULL);
    BAD("\"\xc3", API_JSON_INVALID_UTF8, "truncated");
    BAD("{\"k\xc3\x28\":1}", API_JSON_INVALID_UTF8, NULL);
    BAD("\"\\ud800\"", API_JSON_INVALID_UTF8, "unpaired high surrogate");
    BAD("\"\\ud800\\u0041\"", API_JSON_INVALID_UTF8, "unpaired high surrogate");
    BAD("\"\\udc00\"", API_JSON_INVALID_UTF8, "unpaired low surrogate");
    /* Positions are given by line and column. */
    BAD("{\n  \"a\": 1,\n  \"b\": }", API_JSON_MALFORMED, "line 3, column 8");
}

static void test_depth_and_duplicates(void **state)
{
    (void)state;
    char buf[1200];
    for (unsigned depth = 1; depth <= 300; depth += 37) {
        size_t n = 0;
        for (unsigned i = 0; i < depth; i++)
            buf[n++] = i % 2 ? '[' : '[';
        for (unsigned i = 0; i < depth; i++)
            buf[n++] = ']';
        cJSON *j = NULL;
        struct dc_error err;
        unsigned limit = depth > API_JSON_DEPTH_MAX ? API_JSON_DEPTH_MAX : depth;
        assert_int_equal(parse(buf, n, limit, &j, &err),
                         depth > API_JSON_DEPTH_MAX ? API_JSON_TOO_DEEP : API_JSON_OK);
        cJSON_Delete(j);
        if (depth > 1 && depth <= API_JSON_DEPTH_MAX) {
            assert_int_equal(parse(buf, n, depth - 1, &j, &err), API_JSON_TOO_DEEP);
            assert_non_null(strstr(err.msg, "nesting deeper than the limit"));
        }
    }
    /* Hostile depth costs nothing: a million brackets fail fast at the limit. */
    size_t big = 1000000;
    char *deep = malloc(big + 1);
    memset(deep, '[', big);
    deep[big] = '\0';
    cJSON *j = NULL;
    struct dc_error err;
    assert_int_equal(api_json_parse(deep, big, 0, &j, &err), API_JSON_TOO_DEEP);
    free(deep);

    dc_error_clear(&err);
    const char *dup = "{\"a\":{\"b~/\":1,\"b~/\":2}}";
    assert_int_equal(parse(dup, strlen(dup), 0, &j, &err), API_JSON_DUPLICATE_KEY);
    assert_string_equal(err.where, "/a/b~0~1");
    /* A large object takes the sorted path. */
    char obj[4096];
    size_t n = 0;
    obj[n++] = '[';
    obj[n++] = '{';
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(obj + n, sizeof(obj) - n, "%s\"k%d\":%d", i ? "," : "", i % 99, i);
    obj[n++] = '}';
    obj[n++] = ']';
    assert_int_equal(parse(obj, n, 0, &j, &err), API_JSON_DUPLICATE_KEY);
    assert_string_equal(err.where, "/0/k0");
    assert_string_equal(api_json_error_name(API_JSON_TOO_DEEP), "too-deep");
}

static void test_contract(void **state)
{
    (void)state;
    api_contract *c = NULL;
    struct dc_error err;
    assert_int_equal(api_contract_load_embedded(aa_embedded_files, &c, &err), DC_OK);
    size_t ylen = 0, jlen = 0;
    const char *yaml = api_contract_yaml(c, &ylen);
    const char *json = api_contract_json(c, &jlen);
    assert_true(ylen > 1000 && strncmp(yaml, "openapi: 3.1.0", 14) == 0);
    assert_int_equal(strlen(json), jlen);
    cJSON *j = cJSON_Parse(json);
    assert_true(cJSON_Compare(j, api_contract_root(c), true));
    cJSON_Delete(j);
    assert_string_equal(api_contract_version(c), "1.0.0");

    const cJSON *w = api_json_pointer_get(api_contract_root(c), API_SCHEMA_WORKLOAD);
    assert_true(cJSON_IsObject(w));
    assert_null(api_json_pointer_get(api_contract_root(c), "#/components/schemas/Nope"));
    assert_non_null(
        api_json_pointer_get(api_contract_root(c), "#/paths/~1v1~1recommendations:batch/post"));
    char ptr[64] = "#";
    assert_true(api_json_pointer_append(ptr, sizeof(ptr), "a/b~c"));
    assert_string_equal(ptr, "#/a~1b~0c");
    char small[6] = "#";
    assert_false(api_json_pointer_append(small, sizeof(small), "toolong"));

    /* The compiled Workload schema accepts the examples and reports every violation. */
    struct api_schema_result vr = {0};
    cJSON *ok = cJSON_Parse("{\"task\":\"inference\",\"model\":{\"parameters\":1e9}}");
    assert_int_equal(api_schema_validate(api_contract_workload_schema(c), ok, 0, &vr, &err), DC_OK);
    assert_true(vr.valid);
    api_schema_result_cleanup(&vr);
    cJSON *bad = cJSON_Parse("{\"task\":\"x\",\"model\":{\"parameters\":0,\"layers\":1.5},"
                             "\"extra\":1}");
    assert_int_equal(api_schema_validate(api_contract_workload_schema(c), bad, 0, &vr, &err),
                     DC_OK);
    assert_false(vr.valid);
    assert_true(vr.count >= 4);
    api_schema_result_cleanup(&vr);
    cJSON *batch =
        cJSON_Parse("{\"workloads\":[{\"task\":\"inference\",\"model\":{\"parameters\":1}}]}");
    assert_int_equal(api_schema_validate(api_contract_batch_schema(c), batch, 0, &vr, &err), DC_OK);
    assert_true(vr.valid);
    api_schema_result_cleanup(&vr);
    /* The envelope schema leaves the workloads to the Workload schema: 100 empty
     * workloads pass it; past the contract's maxItems only that is reported (the
     * server checks the limit in force, max_batch, and drops this one). */
    cJSON *env = cJSON_CreateObject();
    cJSON *wls = cJSON_AddArrayToObject(env, "workloads");
    for (int i = 0; i < 100; i++)
        cJSON_AddItemToArray(wls, cJSON_CreateObject());
    assert_int_equal(
        api_schema_validate(api_contract_batch_envelope_schema(c), env, 100, &vr, &err), DC_OK);
    assert_true(vr.valid);
    api_schema_result_cleanup(&vr);
    cJSON_AddItemToArray(wls, cJSON_CreateObject());
    assert_int_equal(
        api_schema_validate(api_contract_batch_envelope_schema(c), env, 100, &vr, &err), DC_OK);
    assert_false(vr.valid);
    assert_int_equal(vr.count, 1);
    assert_string_equal(vr.items[0].keyword, "maxItems");
    api_schema_result_cleanup(&vr);
    cJSON_DeleteItemFromArray(wls, 100);
    cJSON_AddNumberToObject(env, "priority", 1);
    assert_int_equal(
        api_schema_validate(api_contract_batch_envelope_schema(c), env, 100, &vr, &err), DC_OK);
    assert_false(vr.valid);
    assert_int_equal(vr.count, 1);
    assert_string_equal(vr.items[0].keyword, "additionalProperties");
    api_schema_result_cleanup(&vr);
    cJSON_DeleteItemFromObject(env, "priority");
    cJSON_ReplaceItemInObject(env, "workloads", cJSON_CreateArray());
    assert_int_equal(
        api_schema_validate(api_contract_batch_envelope_schema(c), env, 100, &vr, &err), DC_OK);
    assert_false(vr.valid);
    assert_string_equal(vr.items[0].pointer, "/workloads");
    api_schema_result_cleanup(&vr);
    cJSON_Delete(env);
    cJSON_Delete(ok);
    cJSON_Delete(bad);
    cJSON_Delete(batch);

    struct api_query_params qp;
    assert_int_equal(api_contract_query_params(c, "/v1/accelerators", "get", &qp, &err), DC_OK);
    assert_int_equal(qp.count, 3);
    assert_string_equal(qp.items[0].name, "family");
    assert_false(qp.items[0].required);
    cJSON *v = cJSON_CreateString("gpu");
    assert_int_equal(api_schema_validate(qp.items[0].schema, v, 0, &vr, &err), DC_OK);
    assert_true(vr.valid);
    api_schema_result_cleanup(&vr);
    cJSON_SetValuestring(v, "fpga");
    assert_int_equal(api_schema_validate(qp.items[0].schema, v, 0, &vr, &err), DC_OK);
    assert_false(vr.valid);
    api_schema_result_cleanup(&vr);
    cJSON_Delete(v);
    api_query_params_cleanup(&qp);
    assert_int_equal(api_contract_query_params(c, "/v1/rules", "get", &qp, &err), DC_OK);
    assert_int_equal(qp.count, 0);
    api_query_params_cleanup(&qp);
    assert_int_equal(api_contract_query_params(c, "/v1/nothing", "get", &qp, &err), DC_ENOTFOUND);
    api_contract_free(c);
    api_contract_free(NULL);
}

static void test_contract_errors(void **state)
{
    (void)state;
    api_contract *c = NULL;
    struct dc_error err;
    const char *not_openapi = "swagger: '2.0'\ninfo: {version: x}\n";
    assert_int_equal(api_contract_load(not_openapi, strlen(not_openapi), "x.yaml", &c, &err),
                     DC_EPARSE);
    assert_null(c);
    const char *no_workload = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n";
    assert_int_not_equal(api_contract_load(no_workload, strlen(no_workload), "y.yaml", &c, &err),
                         DC_OK);
    /* A BatchRequest without a workloads property has no envelope to check. */
    const char *no_workloads = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
                               "components:\n  schemas:\n    Workload: {type: object}\n"
                               "    BatchRequest: {type: object}\n";
    assert_int_equal(api_contract_load(no_workloads, strlen(no_workloads), "w.yaml", &c, &err),
                     DC_EPARSE);
    assert_null(c);
    assert_string_equal(err.where, "#/components/schemas/BatchRequest/properties/workloads");
    const char *bad_yaml = "openapi: [\n";
    assert_int_equal(api_contract_load(bad_yaml, strlen(bad_yaml), "z.yaml", &c, &err), DC_EPARSE);
    const struct aa_embedded_file none[] = {{NULL, NULL, 0}};
    assert_int_equal(api_contract_load_embedded(none, &c, &err), DC_ENOTFOUND);
}

static void test_problems(void **state)
{
    (void)state;
    cJSON *p = api_problem_new(404, NULL, NULL, "gone", "rid");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(p, "type")->valuestring, "about:blank");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(p, "title")->valuestring, "Not Found");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(p, "status")->valueint, 404);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(p, "detail")->valuestring, "gone");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(p, "request_id")->valuestring, "rid");
    assert_null(cJSON_GetObjectItemCaseSensitive(p, "errors"));
    cJSON_Delete(p);

    p = api_problem_new(400, API_PROBLEM_VALIDATION, "Bad", NULL, NULL);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(p, "type")->valuestring,
                        "tag:accel-advisor,2025:validation");
    assert_null(cJSON_GetObjectItemCaseSensitive(p, "detail"));
    struct api_schema_violation v[] = {
        {(char *)(uintptr_t) "/workloads/1/model", (char *)(uintptr_t) "type",
         (char *)(uintptr_t) "m1"},
        {(char *)(uintptr_t) "/workloads/10", (char *)(uintptr_t) "type", (char *)(uintptr_t) "m2"},
        {(char *)(uintptr_t) "/workloads/1", (char *)(uintptr_t) "type", (char *)(uintptr_t) "m3"},
        {(char *)(uintptr_t) "", (char *)(uintptr_t) "required", (char *)(uintptr_t) "m4"},
    };
    struct api_schema_result res = {false, 4, true, v};
    size_t added = 0;
    assert_int_equal(api_problem_add_violations(p, &res, "/workloads/1", NULL, &added), DC_OK);
    assert_int_equal(added, 3); /* m1, m3 and the truncation note */
    cJSON *errs = cJSON_GetObjectItemCaseSensitive(p, "errors");
    assert_int_equal(cJSON_GetArraySize(errs), 3);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(errs, 1), "message")->valuestring,
        "m3");
    assert_int_equal(api_problem_add_violations(p, &res, "", "/x", &added), DC_OK);
    assert_int_equal(added, 5);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(errs, 6), "pointer")->valuestring,
        "/x");
    assert_int_equal(api_problem_add_error(p, "/a", "b"), DC_OK);
    assert_int_equal(api_problem_add_error(NULL, "/a", "b"), DC_EINVAL);
    char *text = api_problem_render(p);
    assert_non_null(strstr(text, "\"errors\":["));
    cJSON_free(text);
    cJSON_Delete(p);
    assert_string_equal(api_http_reason(413), "Content Too Large");
    assert_string_equal(api_http_reason(599), "Error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strict_json), cmocka_unit_test(test_depth_and_duplicates),
        cmocka_unit_test(test_contract),    cmocka_unit_test(test_contract_errors),
        cmocka_unit_test(test_problems),
    };
    return cmocka_run_group_tests_name("api.openapi", tests, NULL, NULL);
}
