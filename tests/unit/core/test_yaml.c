/* tests/unit/core/test_yaml.c -- core/src/base/yaml.c: scalars, structure, lines and
 * every rejected construct. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dc/yaml.h"

static dc_yaml_doc *parse_ok(const char *text)
{
    dc_yaml_doc *doc = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc = dc_yaml_parse(text, strlen(text), "t.yaml", &doc, &err);
    if (rc != DC_OK)
        fail_msg("parse failed: %s: %s", err.where, err.msg);
    return doc;
}

static void expect_error(const char *text, enum dc_status code, const char *where,
                         const char *msg_part)
{
    dc_yaml_doc *doc = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_yaml_parse(text, strlen(text), "t.yaml", &doc, &err), code);
    assert_null(doc);
    assert_string_equal(err.where, where);
    if (strstr(err.msg, msg_part) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, msg_part);
}

static void test_scalars(void **state)
{
    (void)state;
    dc_yaml_doc *doc = parse_ok("a: 1\n"
                                "b: 0x10de\n"
                                "c: 1.5e9\n"
                                "d: true\n"
                                "e: ~\n"
                                "f: \"1\"\n"
                                "g: 2024-12\n"
                                "h: 1.2.3\n"
                                "i: False\n"
                                "j: -3\n"
                                "k: 0o17\n"
                                "l:\n"
                                "m: '0x10'\n");
    const cJSON *r = dc_yaml_root(doc);
    assert_true(cJSON_IsObject(r));
    assert_true(cJSON_GetObjectItem(r, "a")->valuedouble == 1);
    assert_true(cJSON_GetObjectItem(r, "b")->valuedouble == 0x10de);
    assert_true(cJSON_GetObjectItem(r, "c")->valuedouble == 1.5e9);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "d")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "e")));
    assert_string_equal(cJSON_GetObjectItem(r, "f")->valuestring, "1");
    assert_string_equal(cJSON_GetObjectItem(r, "g")->valuestring, "2024-12");
    assert_string_equal(cJSON_GetObjectItem(r, "h")->valuestring, "1.2.3");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(r, "i")));
    assert_true(cJSON_GetObjectItem(r, "j")->valuedouble == -3);
    assert_true(cJSON_GetObjectItem(r, "k")->valuedouble == 15);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "l")));
    assert_string_equal(cJSON_GetObjectItem(r, "m")->valuestring, "0x10");
    dc_yaml_doc_free(doc);
}

static void test_structure_and_lines(void **state)
{
    (void)state;
    dc_yaml_doc *doc = parse_ok("# comment\n"
                                "rules:\n"
                                "  - id: a\n"
                                "    when: {\"==\": [1, 1]}\n"
                                "  - id: b\n"
                                "    list: [x, y]\n");
    const cJSON *rules = cJSON_GetObjectItem(dc_yaml_root(doc), "rules");
    assert_int_equal(cJSON_GetArraySize(rules), 2);
    const cJSON *a = cJSON_GetArrayItem(rules, 0);
    const cJSON *b = cJSON_GetArrayItem(rules, 1);
    assert_int_equal(dc_yaml_line(doc, rules), 3);
    assert_int_equal(dc_yaml_line(doc, a), 3);
    assert_int_equal(dc_yaml_line(doc, b), 5);
    assert_int_equal(dc_yaml_line(doc, cJSON_GetObjectItem(a, "when")), 4);
    const cJSON *eq = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "when"), "==");
    assert_int_equal(cJSON_GetArraySize(eq), 2);
    assert_int_equal(dc_yaml_line(doc, NULL), 0);
    assert_int_equal(dc_yaml_line(NULL, a), 0);
    /* Taking the root keeps lines available for its nodes. */
    cJSON *root = dc_yaml_take_root(doc);
    assert_null(dc_yaml_root(doc));
    assert_int_equal(dc_yaml_line(doc, b), 5);
    cJSON_Delete(root);
    dc_yaml_doc_free(doc);
}

static void test_empty_document(void **state)
{
    (void)state;
    dc_yaml_doc *doc = parse_ok("");
    assert_true(cJSON_IsNull(dc_yaml_root(doc)));
    dc_yaml_doc_free(doc);
    doc = parse_ok("# only a comment\n");
    assert_true(cJSON_IsNull(dc_yaml_root(doc)));
    dc_yaml_doc_free(doc);
    /* libyaml places the empty node of a text with no final line break on a
     * line past the text's end; it is reported on the text's last line. */
    doc = parse_ok("---");
    assert_true(cJSON_IsNull(dc_yaml_root(doc)));
    assert_int_equal(dc_yaml_line(doc, dc_yaml_root(doc)), 1);
    dc_yaml_doc_free(doc);
    doc = parse_ok("---\n");
    assert_int_equal(dc_yaml_line(doc, dc_yaml_root(doc)), 2);
    dc_yaml_doc_free(doc);
}

static void test_rejected(void **state)
{
    (void)state;
    expect_error("a: &x 1\nb: *x\n", DC_EPARSE, "t.yaml:1", "anchors");
    expect_error("a: 1\na: 2\n", DC_EPARSE, "t.yaml:2", "duplicate key \"a\"");
    expect_error("a: !!python/object 1\n", DC_EPARSE, "t.yaml:1", "tags");
    expect_error("a: .inf\n", DC_EPARSE, "t.yaml:1", "non-finite");
    expect_error("a: [1, 2\n", DC_EPARSE, "t.yaml:2", "syntax error");
    /* At the end of a text with no final line break: its last line, not one
     * past it (fuzz/regressions/fuzz_rules/yaml-error-at-end-of-...). */
    expect_error("a: [1, 2", DC_EPARSE, "t.yaml:1", "syntax error");
    expect_error("a: 1\r\nb: [", DC_EPARSE, "t.yaml:2", "syntax error");
    expect_error("---\na: 1\n---\nb: 2\n", DC_EPARSE, "t.yaml:3", "one YAML document");
    expect_error("? [a, b]\n: 1\n", DC_EPARSE, "t.yaml:1", "keys must be scalars");
    expect_error("a: !custom x\n", DC_EPARSE, "t.yaml:1", "tags");
}

/* Duplicate keys among many (the check is a hash set per mapping since issue
 * 35; it compared each key with every earlier one): found wherever they are,
 * with their line; each mapping has its own keys; a number key and the string
 * of the same text are one key; many distinct keys load. */
static void test_many_keys(void **state)
{
    (void)state;
    enum { N = 50000 };
    char *text = malloc((size_t)N * 16 + 128);
    assert_non_null(text);
    size_t len = 0;
    for (int i = 0; i < N; i++)
        len += (size_t)sprintf(text + len, "k%d: %d\n", i, i);
    dc_yaml_doc *doc = parse_ok(text);
    assert_int_equal(cJSON_GetArraySize(dc_yaml_root(doc)), N);
    assert_int_equal(
        dc_yaml_line(doc, cJSON_GetObjectItemCaseSensitive(dc_yaml_root(doc), "k49999")), N);
    dc_yaml_doc_free(doc);
    /* The first key again, as the last. */
    sprintf(text + len, "k0: again\n");
    char where[32];
    snprintf(where, sizeof(where), "t.yaml:%d", N + 1);
    expect_error(text, DC_EPARSE, where, "duplicate key \"k0\"");
    /* A key of the middle, after a nested mapping with the same keys. */
    sprintf(text + len, "inner: {k0: 1, k1: 2, k25000: 3}\nk25000: 4\n");
    snprintf(where, sizeof(where), "t.yaml:%d", N + 2);
    expect_error(text, DC_EPARSE, where, "duplicate key \"k25000\"");
    free(text);
    expect_error("a: {x: 1, y: 2, x: 3}\n", DC_EPARSE, "t.yaml:1", "duplicate key \"x\"");
    expect_error("1: a\n\"1\": b\n", DC_EPARSE, "t.yaml:2", "duplicate key \"1\"");
    doc = parse_ok("- {a: 1, b: 2}\n- {a: 3, b: 4}\n- a: {a: {a: 5}}\n");
    assert_int_equal(cJSON_GetArraySize(dc_yaml_root(doc)), 3);
    dc_yaml_doc_free(doc);
}

static void test_alias_rejected(void **state)
{
    (void)state;
    /* A billion-laughs document must fail at the first alias, not expand. */
    expect_error("a: &a [x, x]\nb: [*a, *a]\n", DC_EPARSE, "t.yaml:1", "anchors");
    expect_error("b: *a\n", DC_EPARSE, "t.yaml:1", "");
}

static void test_limits(void **state)
{
    (void)state;
    /* Depth: 65 nested flow sequences. */
    char deep[200];
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    deep[130] = '\0';
    expect_error(deep, DC_ELIMIT, "t.yaml:1", "nesting");
    /* Size. */
    size_t big = DC_YAML_MAX_BYTES + 1;
    char *data = malloc(big);
    assert_non_null(data);
    memset(data, ' ', big);
    dc_yaml_doc *doc = NULL;
    struct dc_error err;
    assert_int_equal(dc_yaml_parse(data, big, "big.yaml", &doc, &err), DC_ELIMIT);
    assert_string_equal(err.where, "big.yaml:1");
    free(data);
    /* Node count: a flow sequence of 200001 scalars. */
    size_t n = DC_YAML_MAX_NODES + 1;
    data = malloc(n * 2 + 4);
    assert_non_null(data);
    size_t p = 0;
    data[p++] = '[';
    for (size_t i = 0; i < n; i++) {
        data[p++] = '1';
        data[p++] = ',';
    }
    data[p - 1] = ']';
    assert_int_equal(dc_yaml_parse(data, p, "n.yaml", &doc, &err), DC_ELIMIT);
    free(data);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    dc_yaml_doc *doc = NULL;
    struct dc_error err;
    assert_int_equal(dc_yaml_parse("a: 1", 4, "x", NULL, &err), DC_EINVAL);
    assert_int_equal(dc_yaml_parse(NULL, 4, "x", &doc, &err), DC_EINVAL);
    assert_int_equal(dc_yaml_parse("a: 1", 4, NULL, &doc, NULL), DC_OK);
    dc_yaml_doc_free(doc);
    dc_yaml_doc_free(NULL);
    assert_null(dc_yaml_take_root(NULL));
    assert_null(dc_yaml_root(NULL));
    /* Embedded NUL inside a scalar is refused rather than silently truncated. */
    static const char nul[] = "a: \"x\\0y\"\n";
    assert_int_equal(dc_yaml_parse(nul, sizeof(nul) - 1, "x", &doc, &err), DC_EPARSE);
}

static void test_not_nul_terminated(void **state)
{
    (void)state;
    /* Only `len` bytes are read: the rest of the buffer is garbage. */
    const char text[] = "a: 1\nXXXX: [";
    dc_yaml_doc *doc = NULL;
    assert_int_equal(dc_yaml_parse(text, 5, "x", &doc, NULL), DC_OK);
    assert_int_equal(cJSON_GetArraySize(dc_yaml_root(doc)), 1);
    dc_yaml_doc_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),        cmocka_unit_test(test_structure_and_lines),
        cmocka_unit_test(test_empty_document), cmocka_unit_test(test_rejected),
        cmocka_unit_test(test_alias_rejected), cmocka_unit_test(test_limits),
        cmocka_unit_test(test_bad_arguments),  cmocka_unit_test(test_not_nul_terminated),
        cmocka_unit_test(test_many_keys),
    };
    return cmocka_run_group_tests_name("yaml", tests, NULL, NULL);
}
