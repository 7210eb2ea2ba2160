/* tests/unit/service/test_output.c -- service/src/output.c and yaml_out.c: the
 * CLI's formats. YAML output is loaded back with the project's own YAML loader
 * (core/src/base/yaml.c) and must give the very document written; pretty JSON is
 * indented by two spaces and parses back to the same document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/convert.h"
#include "api/openapi.h"
#include "dc/embedded.h"
#include "dc/yaml.h"
#include "output.h"
#include "yaml_out.h"

/* `doc` written in `fmt` into a string (owned). */
static char *render(const cJSON *doc, enum svc_output fmt, bool pretty, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    assert_non_null(fp);
    const struct svc_output_opts o = {fmt, pretty, false, NULL};
    assert_int_equal(svc_output_document(fp, "t", doc, &o), DC_OK);
    fclose(fp);
    if (len != NULL)
        *len = n;
    return buf;
}

/* Write `doc` as YAML, load it back, and compare with `want`. */
static void yaml_round_trip(const cJSON *doc, const cJSON *want)
{
    size_t n = 0;
    char *text = render(doc, SVC_OUTPUT_YAML, false, &n);
    dc_yaml_doc *y = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_yaml_parse(text, n, "out.yaml", &y, &err) != DC_OK)
        fail_msg("the YAML written does not load: %s: %s\n%.3000s", err.where, err.msg, text);
    if (!cJSON_Compare(dc_yaml_root(y), want, true)) {
        char *got = cJSON_PrintUnformatted(dc_yaml_root(y));
        fail_msg("the YAML loads as another document:\n%.3000s\nloaded: %.3000s", text, got);
    }
    dc_yaml_doc_free(y);
    free(text);
}

static void test_yaml_tricky_strings(void **state)
{
    (void)state;
    static const char *const strings[] = {"",
                                          "plain words",
                                          "yes",
                                          "No",
                                          "ON",
                                          "off",
                                          "y",
                                          "N",
                                          "null",
                                          "Null",
                                          "~",
                                          "true",
                                          "FALSE",
                                          "1",
                                          "1.5",
                                          "-1",
                                          "+1",
                                          ".5",
                                          "0x10",
                                          "0o7",
                                          "1e5",
                                          "12:30",
                                          ".inf",
                                          ".NaN",
                                          "-",
                                          "- a",
                                          "? x",
                                          ": x",
                                          "a: b",
                                          "a:b",
                                          "a:",
                                          "https://example.com/x?y=1#z",
                                          "a #b",
                                          "#x",
                                          "&anchor",
                                          "*alias",
                                          "!tag",
                                          "%directive",
                                          "@at",
                                          "`tick",
                                          "|",
                                          ">",
                                          "[a]",
                                          "{a}",
                                          "a, b",
                                          "'single'",
                                          "\"double\"",
                                          "back\\slash",
                                          "trailing ",
                                          " leading",
                                          "multi\nline",
                                          "tab\there",
                                          "cr\rlf",
                                          "\x01\x02\x1f controls",
                                          "del\x7f",
                                          "nel\xc2\x85",
                                          "c1\xc2\x9f",
                                          "ls\xe2\x80\xa8ps\xe2\x80\xa9",
                                          "bom\xef\xbb\xbf",
                                          "nonchar\xef\xbf\xbe\xef\xbf\xbf",
                                          "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80",
                                          "replacement \xef\xbf\xbd",
                                          "<<",
                                          "=",
                                          "h100",
                                          "H100 SXM (80 GB)",
                                          "v5e-8",
                                          "it's",
                                          "100%",
                                          "a=b"};
    cJSON *doc = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(doc, "strings");
    cJSON *keys = cJSON_AddObjectToObject(doc, "keys");
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        cJSON_AddItemToArray(list, cJSON_CreateString(strings[i]));
        cJSON_AddItemToObject(keys, strings[i], cJSON_CreateNumber((double)i));
    }
    yaml_round_trip(doc, doc);
    cJSON_Delete(doc);

    /* Bytes that are not UTF-8 come back as U+FFFD. */
    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "bad", "x\xff y\xc3(");
    cJSON *want = cJSON_CreateObject();
    cJSON_AddStringToObject(want, "bad", "x\xef\xbf\xbd y\xef\xbf\xbd(");
    yaml_round_trip(doc, want);
    cJSON_Delete(doc);
    cJSON_Delete(want);
}

static void test_yaml_shapes(void **state)
{
    (void)state;
    cJSON *doc = cJSON_Parse(
        "{\"n\":[0,-0.5,1e300,7000000000,1.5e-07,123456789012345678,3.14159265358979,-2],"
        "\"b\":[true,false],\"z\":null,\"e\":{},\"a\":[],"
        "\"nested\":[[1,[2,[]]],[{\"k\":{}},{\"k\":[{\"x\":1,\"y\":[3]}]}],{}],"
        "\"deep\":{\"a\":{\"b\":{\"c\":[{\"d\":\"e\"}]}}}}");
    assert_non_null(doc);
    yaml_round_trip(doc, doc);
    char *text = render(doc, SVC_OUTPUT_YAML, false, NULL);
    /* Block style: a key with a nested value on its own line, list items "- ". */
    assert_non_null(strstr(text, "\ndeep:\n  a:\n    b:\n      c:\n        - d: e\n"));
    assert_non_null(strstr(text, "\ne: {}\na: []\n"));
    free(text);
    cJSON_Delete(doc);

    /* A scalar document. */
    cJSON *s = cJSON_CreateString("yes");
    yaml_round_trip(s, s);
    cJSON_Delete(s);
}

/* Real documents: the contract (every kind of string OpenAPI holds) and the
 * embedded rules (JSONLogic, sources, messages) survive the round trip. */
static void test_yaml_real_documents(void **state)
{
    (void)state;
    api_contract *c = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(api_contract_load_embedded(aa_embedded_files, &c, &err), DC_OK);
    yaml_round_trip(api_contract_root(c), api_contract_root(c));
    api_contract_free(c);

    dc_ruleset *rs = NULL;
    assert_int_equal(dc_ruleset_load_embedded(aa_embedded_files, &rs, NULL), DC_OK);
    cJSON *rules = NULL, *catalog = NULL;
    assert_int_equal(api_rules_to_json(rs, &rules), DC_OK);
    assert_int_equal(api_catalog_to_json(rs, NULL, &catalog), DC_OK);
    yaml_round_trip(rules, rules);
    yaml_round_trip(catalog, catalog);
    cJSON_Delete(rules);
    cJSON_Delete(catalog);
    dc_ruleset_release(rs);
}

static void test_json(void **state)
{
    (void)state;
    cJSON *doc =
        cJSON_Parse("{\"a\":[1,{\"b\":\"x\\\"y\\n\",\"c\":[]},{}],\"d\":null,\"e\":1.5e-07}");
    size_t n = 0;
    char *compact = render(doc, SVC_OUTPUT_JSON, false, &n);
    assert_string_equal(compact, "{\"a\":[1,{\"b\":\"x\\\"y\\n\",\"c\":[]},{}],\"d\":null,"
                                 "\"e\":1.5e-07}\n");
    free(compact);
    char *pretty = render(doc, SVC_OUTPUT_JSON, true, &n);
    assert_string_equal(pretty, "{\n"
                                "  \"a\": [\n"
                                "    1,\n"
                                "    {\n"
                                "      \"b\": \"x\\\"y\\n\",\n"
                                "      \"c\": []\n"
                                "    },\n"
                                "    {}\n"
                                "  ],\n"
                                "  \"d\": null,\n"
                                "  \"e\": 1.5e-07\n"
                                "}\n");
    cJSON *back = cJSON_Parse(pretty);
    assert_true(cJSON_Compare(back, doc, true));
    cJSON_Delete(back);
    free(pretty);

    /* Text in: compact JSON is passed through as it is; other formats parse it. */
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, &n);
    /* The test's stdout is no terminal (ctest), so JSON stays one line. */
    const struct svc_output_opts json = {SVC_OUTPUT_JSON, false, false, NULL};
    const struct svc_output_opts yaml = {SVC_OUTPUT_YAML, false, false, NULL};
    const struct svc_output_opts path = {SVC_OUTPUT_JSONPATH, false, false, "{.k}"};
    const struct svc_output_opts miss = {SVC_OUTPUT_JSONPATH, false, false, "{.j}"};
    assert_int_equal(svc_output_text(fp, "t", "{\"k\":  1}", 9, &json), DC_OK);
    assert_int_equal(svc_output_text(fp, "t", "{\"k\":  1}", 9, &yaml), DC_OK);
    assert_int_equal(svc_output_text(fp, "t", "{\"k\":", 5, &yaml), DC_EPARSE);
    assert_int_equal(svc_output_text(fp, "t", "{\"k\":  1}", 9, &path), DC_OK);
    /* A field that is not there: an error, and nothing written. */
    assert_int_equal(svc_output_text(fp, "t", "{\"k\":  1}", 9, &miss), DC_EINVAL);
    fclose(fp);
    assert_string_equal(buf, "{\"k\":  1}\nk: 1\n1\n");
    free(buf);
    /* A write that fails is DC_EIO in every format (/dev/full takes nothing). */
    FILE *full = fopen("/dev/full", "w");
    if (full != NULL) {
        setvbuf(full, NULL, _IONBF, 0);
        const struct svc_output_opts a = {SVC_OUTPUT_JSON, true, false, NULL};
        const struct svc_output_opts b = {SVC_OUTPUT_JSONPATH, false, false, "{.d}"};
        assert_int_equal(svc_output_document(full, "t", doc, &json), DC_EIO);
        assert_int_equal(svc_output_document(full, "t", doc, &a), DC_EIO);
        assert_int_equal(svc_output_document(full, "t", doc, &yaml), DC_EIO);
        assert_int_equal(svc_output_document(full, "t", doc, &b), DC_EIO);
        assert_int_equal(svc_output_text(full, "t", "{\"k\":1}", 7, &json), DC_EIO);
        fclose(full);
    }
    cJSON_Delete(doc);
}

static void test_names(void **state)
{
    (void)state;
    struct svc_output_opts o = {SVC_OUTPUT_JSON, false, false, NULL};
    char names[96];
    svc_output_names(SVC_OUTPUT_ALL, "|", names, sizeof(names));
    assert_string_equal(names, "json|yaml|table|wide|jsonpath=TEMPLATE");
    svc_output_names(SVC_OUTPUT_TABLES | SVC_OUTPUT_BIT(SVC_OUTPUT_NAME), " ", names,
                     sizeof(names));
    assert_string_equal(names, "json yaml table name jsonpath=TEMPLATE");
    assert_true(svc_output_parse("t", "wide", SVC_OUTPUT_ALL, &o));
    assert_int_equal(o.format, SVC_OUTPUT_WIDE);
    assert_true(svc_output_parse("t", "yaml", SVC_OUTPUT_TABLES, &o));
    assert_int_equal(o.format, SVC_OUTPUT_YAML);
    assert_false(svc_output_parse("t", "wide", SVC_OUTPUT_TABLES, &o));
    assert_false(svc_output_parse("t", "name", SVC_OUTPUT_ALL, &o));
    assert_false(svc_output_parse("t", "JSON", SVC_OUTPUT_ALL, &o));
    assert_false(svc_output_parse("t", "", SVC_OUTPUT_ALL, &o));
    assert_int_equal(o.format, SVC_OUTPUT_YAML);
    /* jsonpath: the template is checked when given, and kept. */
    assert_true(svc_output_parse("t", "jsonpath={.a[0]}", SVC_OUTPUT_TABLES, &o));
    assert_int_equal(o.format, SVC_OUTPUT_JSONPATH);
    assert_string_equal(o.jsonpath, "{.a[0]}");
    assert_false(svc_output_parse("t", "jsonpath=", SVC_OUTPUT_TABLES, &o));
    assert_false(svc_output_parse("t", "jsonpath", SVC_OUTPUT_TABLES, &o));
    assert_false(svc_output_parse("t", "jsonpath={.a", SVC_OUTPUT_TABLES, &o));
    assert_false(svc_output_parse("t", "jsonpath={.a}", SVC_OUTPUT_BIT(SVC_OUTPUT_JSON), &o));
    /* -H and -p. */
    assert_true(svc_output_option("t", 'H', NULL, SVC_OUTPUT_ALL, &o));
    assert_true(o.no_headers);
    assert_true(svc_output_option("t", 'p', NULL, SVC_OUTPUT_ALL, &o));
    assert_true(o.pretty);
    assert_true(svc_output_pretty(&o));
}

/* The width a table fits: $COLUMNS when stdout is no terminal (as under
 * ctest), within its bounds, else 80. */
static void test_columns(void **state)
{
    (void)state;
    if (isatty(STDOUT_FILENO))
        skip();
    setenv("COLUMNS", "120", 1);
    assert_int_equal(svc_output_columns(), 120);
    setenv("COLUMNS", "19", 1);
    assert_int_equal(svc_output_columns(), 80);
    setenv("COLUMNS", "100x", 1);
    assert_int_equal(svc_output_columns(), 80);
    unsetenv("COLUMNS");
    assert_int_equal(svc_output_columns(), 80);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yaml_tricky_strings),
        cmocka_unit_test(test_yaml_shapes),
        cmocka_unit_test(test_yaml_real_documents),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_columns),
    };
    return cmocka_run_group_tests_name("service.output", tests, NULL, NULL);
}
