/* tests/unit/service/test_http.c -- service/src/http.c: routes, methods, request
 * ids, content types, CORS. */
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
#include "dc/workload.h"
#include "http.h"

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
    /* The playground: the page at the root, its assets anywhere under /ui/ (which
     * exist is the playground's business), but not /ui/ itself. */
    static const struct {
        const char *path;
        enum svc_route route;
    } page[] = {{"/", SVC_ROUTE_PLAYGROUND},  {"/ui/playground.js", SVC_ROUTE_ASSET},
                {"/ui/x/y", SVC_ROUTE_ASSET}, {"/ui/", SVC_ROUTE_UNMATCHED},
                {"/ui", SVC_ROUTE_UNMATCHED}, {"/index.html", SVC_ROUTE_UNMATCHED}};
    for (size_t i = 0; i < sizeof(page) / sizeof(page[0]); i++)
        assert_int_equal(svc_route_match(page[i].path), page[i].route);
    assert_string_equal(svc_route_label(SVC_ROUTE_ASSET), "/ui/*");
    assert_false(svc_route_protected(SVC_ROUTE_PLAYGROUND));
    assert_false(svc_route_protected(SVC_ROUTE_ASSET));
    assert_false(svc_route_needs_rules(SVC_ROUTE_ASSET));
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
        assert_int_equal(svc_request_id_generate(a), DC_OK);
        assert_int_equal(svc_request_id_generate(b), DC_OK);
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

static void test_cors_origins_valid(void **state)
{
    (void)state;
    struct dc_error err;
    static const char *const good[] = {"",
                                       "*",
                                       " * ",
                                       "https://a.example",
                                       "https://a.example, http://b.example:8443 ,http://c",
                                       "http://127.0.0.1:3000",
                                       "http://[::1]:8080",
                                       "chrome-extension://abcdef"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        if (svc_cors_origins_check(good[i], &err) != DC_OK)
            fail_msg("\"%s\" refused: %s", good[i], err.msg);
    }
    static const struct {
        const char *list, *why;
    } bad[] = {
        {"null", "\"null\" is not an allowed origin: \"null\" would let every sandboxed"},
        {"evil", "\"evil\" is not an allowed origin: it is not scheme://host[:port]"},
        {"https://a.com/path", "\"https://a.com/path\" is not an allowed origin: it has a path"},
        {"https://a.com/", "\"https://a.com/\" is not an allowed origin: it has a path"},
        {"https://*.example.com", "\"https://*.example.com\" is not an allowed origin: wildcards"},
        {"https://a.example,https://b.*", "\"https://b.*\" is not an allowed origin: wildcards"},
        {"https://A.example", "\"https://A.example\" is not an allowed origin: browsers send"},
        {"HTTPS://a.example", "\"HTTPS://a.example\" is not an allowed origin: it is not"},
        {"https://a.example:0", "its port is not 1 to 65535"},
        {"https://a.example:65536", "its port is not 1 to 65535"},
        {"https://a.example:", "its port is not 1 to 65535"},
        {"https://user@a.example", "it has characters after scheme://host[:port]"},
        {"https://a.example?x", "it has characters after scheme://host[:port]"},
        {"https://", "it has no host"},
        {"http://[::1", "its IPv6 host is not [hex:digits]"},
        {"https://a.example,,https://b.example", "\"\" is not an allowed origin: an empty entry"},
        {"https://a.example,*", "\"*\" (any origin) must be the whole list"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (svc_cors_origins_check(bad[i].list, &err) != DC_EINVAL)
            fail_msg("\"%s\" accepted", bad[i].list);
        if (strstr(err.msg, bad[i].why) == NULL)
            fail_msg("\"%s\": want \"%s\" in \"%s\"", bad[i].list, bad[i].why, err.msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_request_ids),
        cmocka_unit_test(test_content_types),
        cmocka_unit_test(test_cors),
        cmocka_unit_test(test_cors_origins_valid),
    };
    return cmocka_run_group_tests_name("service.http", tests, NULL, NULL);
}
