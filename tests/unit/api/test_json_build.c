/* tests/unit/api/test_json_build.c -- api/src/json_build.c: the strict reader's
 * own tree (api_json_parse, and api_json_parse_doc's arena) is, node for node,
 * what cJSON's parser makes of the same text: types, valueint, valuedouble (bit
 * for bit), strings, keys and links. Checked on edge texts and on every
 * workload of the decision table, compact and indented. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/json_read.h"
#include "read_file.h"

/* Node by node; `where` names the place for a failure. */
static void same_tree(const cJSON *a, const cJSON *b, const char *text)
{
    if (a->type != b->type || a->valueint != b->valueint ||
        memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)) != 0)
        fail_msg("%s: node differs (type %d/%d, int %d/%d, double %.17g/%.17g)", text, a->type,
                 b->type, a->valueint, b->valueint, a->valuedouble, b->valuedouble);
    if ((a->valuestring == NULL) != (b->valuestring == NULL) ||
        (a->valuestring != NULL && strcmp(a->valuestring, b->valuestring) != 0))
        fail_msg("%s: valuestring differs", text);
    if ((a->string == NULL) != (b->string == NULL) ||
        (a->string != NULL && strcmp(a->string, b->string) != 0))
        fail_msg("%s: key differs", text);
    const cJSON *ca = a->child, *cb = b->child;
    const cJSON *la = NULL, *lb = NULL;
    while (ca != NULL && cb != NULL) {
        /* prev: the previous sibling, and for the first the last (or as cJSON). */
        if ((ca->prev == la) != (cb->prev == lb))
            fail_msg("%s: prev link differs", text);
        same_tree(ca, cb, text);
        la = ca;
        lb = cb;
        ca = ca->next;
        cb = cb->next;
    }
    if (ca != NULL || cb != NULL)
        fail_msg("%s: member count differs", text);
    if (a->child != NULL && ((a->child->prev == la) != (b->child->prev == lb)))
        fail_msg("%s: first member's prev differs", text);
}

/* `text` (NUL-terminated) read both ways and by cJSON; all three agree. */
static void check_text(const char *text)
{
    size_t len = strlen(text);
    struct dc_error err;
    cJSON *mine = NULL;
    api_json_doc *doc = NULL;
    dc_error_clear(&err);
    if (api_json_parse(text, len, 0, &mine, &err) != API_JSON_OK)
        fail_msg("%.200s: refused: %s", text, err.msg);
    assert_int_equal(api_json_parse_doc(text, len, 0, &doc, &err), API_JSON_OK);
    const char *end = NULL;
    cJSON *ref = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    assert_non_null(ref);
    same_tree(mine, ref, text);
    same_tree(api_json_doc_root(doc), ref, text);
    cJSON_Delete(ref);
    cJSON_Delete(mine);
    api_json_doc_free(doc);
}

static void test_edges(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "{}",
        "[]",
        "0",
        "-0",
        "1",
        "-1",
        "true",
        "false",
        "null",
        "\"\"",
        " [ 1 , 2 ,3 ] ",
        "2147483647",
        "2147483648",
        "-2147483648",
        "-2147483649",
        "1e308",
        "-1e308",
        "4.9e-324",
        "1e-320",
        "0.1",
        "123456789012345678901234567890",
        "1.7976931348623157e308",
        "0.0000000000000000000000000000000000000000000000000000000001234" /* 63 characters, the most
                                                                           */
        ,
        "[1.5, -2.25e3, 3E+2, 4e-2, 0.5E0]",
        "\"plain\"",
        "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t\"",
        "\"\\u0041\\u00e9\\u20ac\\ud83d\\ude00 x\"",
        "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
        "\"\\u007f\\u0080\\u07ff\\u0800\\uffff\\udbff\\udfff\"",
        "{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\",\"f\":{}},\"g\":[[],[{}]]}",
        "{\"k\\u00e9y\":\"v\",\"\":0,\"a/b~c\":[1]}",
        "[{\"x\":1},{\"x\":2},{\"x\":3}]",
        "{\n  \"name\" : \"a\" ,\r\n\t\"n\":\t-12.5e-3 }",
    };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        check_text(texts[i]);
}

/* Numbers of every shape the fast path takes or leaves to strtod, bit for bit
 * what cJSON reads: random digits, points and exponents. */
static void test_numbers(void **state)
{
    (void)state;
    srand(33);
    char text[80];
    for (int k = 0; k < 20000; k++) {
        size_t n = 0;
        if (rand() % 2)
            text[n++] = '-';
        int intd = 1 + rand() % 18;
        text[n++] = (char)('1' + rand() % 9);
        if (rand() % 5 == 0)
            text[n - 1] = '0', intd = 1;
        for (int i = 1; i < intd; i++)
            text[n++] = (char)('0' + rand() % 10);
        if (rand() % 2) {
            text[n++] = '.';
            int fd = 1 + rand() % 20;
            for (int i = 0; i < fd; i++)
                text[n++] = (char)('0' + rand() % 10);
        }
        if (rand() % 3 == 0) {
            text[n++] = rand() % 2 ? 'e' : 'E';
            int r = rand() % 3;
            if (r == 1)
                text[n++] = '-';
            else if (r == 2)
                text[n++] = '+';
            n += (size_t)sprintf(text + n, "%d", rand() % (rand() % 4 == 0 ? 330 : 30));
        }
        text[n] = '\0';
        /* Past a double's range or 63 characters the reader refuses it (and
         * cJSON's value is infinite); everything else must agree. */
        struct dc_error err;
        cJSON *mine = NULL;
        if (api_json_parse(text, n, 0, &mine, &err) == API_JSON_OK) {
            cJSON_Delete(mine);
            check_text(text);
            continue;
        }
        cJSON *ref = cJSON_Parse(text);
        if (n <= API_JSON_NUMBER_MAX_CHARS && isfinite(ref->valuedouble))
            fail_msg("%s refused: %s", text, err.msg);
        cJSON_Delete(ref);
    }
}

/* Every workload of the decision table, compact and indented, and the batch of
 * all of them. */
static void test_decision_table(void **state)
{
    (void)state;
    char *text = test_read_file(AA_FIXTURES_DIR "/cases.json", 64u << 20);
    assert_non_null(text);
    cJSON *cases = cJSON_Parse(text);
    free(text);
    assert_non_null(cases);
    cJSON *batch = cJSON_CreateArray();
    const cJSON *c = NULL;
    size_t count = 0;
    cJSON_ArrayForEach(c, cases)
    {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(c, "workload");
        if (w == NULL)
            continue;
        char *compact = cJSON_PrintUnformatted(w);
        char *pretty = cJSON_Print(w);
        check_text(compact);
        check_text(pretty);
        free(compact);
        free(pretty);
        cJSON_AddItemToArray(batch, cJSON_Duplicate(w, 1));
        count++;
    }
    assert_true(count > 200);
    char *all = cJSON_PrintUnformatted(batch);
    check_text(all);
    free(all);
    cJSON_Delete(batch);
    cJSON_Delete(cases);
}

/* A document refuses what api_json_parse refuses, with the same message. */
static void test_doc_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "{",
        "{\"a\":1,\"a\":2}",
        "[1,]",
        "\"\\u0000\"",
        "[1e999]",
        "{\"x\":[1e400]}",
        "\"\\udc00\"",
        "[1] 2",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct dc_error e1, e2;
        cJSON *j = NULL;
        api_json_doc *d = (api_json_doc *)&j; /* overwritten with NULL */
        dc_error_clear(&e1);
        dc_error_clear(&e2);
        enum api_json_error a = api_json_parse(bad[i], strlen(bad[i]), 0, &j, &e1);
        enum api_json_error b = api_json_parse_doc(bad[i], strlen(bad[i]), 0, &d, &e2);
        assert_int_not_equal(a, API_JSON_OK);
        assert_int_equal(a, b);
        assert_null(j);
        assert_null(d);
        assert_string_equal(e1.msg, e2.msg);
        assert_string_equal(e1.where, e2.where);
    }
    struct dc_error e;
    cJSON *j = NULL;
    dc_error_clear(&e);
    const char *dup = "{\"a\":{\"b\":[0,{\"c\":1,\"c\":2}]}}";
    assert_int_equal(api_json_parse(dup, strlen(dup), 0, &j, &e), API_JSON_DUPLICATE_KEY);
    assert_string_equal(e.where, "/a/b/1/c");
    const char *big = "{\"x\":[0,1,{\"y\":-1e400}]}";
    assert_int_equal(api_json_parse(big, strlen(big), 0, &j, &e), API_JSON_MALFORMED);
    assert_string_equal(e.where, "/x/2/y");
}

/* A body whose tree outgrows the first block takes more of the arena. */
static void test_doc_large(void **state)
{
    (void)state;
    size_t n = 5000;
    char *text = malloc(n * 16 + 16);
    size_t len = 0;
    text[len++] = '[';
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s{\"k%zu\":%zu}", i ? "," : "", i, i);
    text[len++] = ']';
    text[len] = '\0';
    check_text(text);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),          cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_decision_table), cmocka_unit_test(test_doc_errors),
        cmocka_unit_test(test_doc_large),
    };
    return cmocka_run_group_tests_name("api.json_build", tests, NULL, NULL);
}
