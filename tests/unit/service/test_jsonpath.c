/* tests/unit/service/test_jsonpath.c -- service/src/jsonpath.c: the subset of
 * kubectl's -o jsonpath the CLI takes (paths, indexes, [*], range, quoted
 * text), and an error with its place for what it does not take. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsonpath.h"

static const char doc_text[] =
    "{\"request_id\":\"r1\",\"status\":\"ok\",\"recommendations\":["
    "{\"accelerator\":\"h100\",\"score\":90,\"sizing\":{\"chips\":8,\"fits\":true}},"
    "{\"accelerator\":\"tpu-v6e\",\"score\":72.5,\"sizing\":{\"chips\":16,\"fits\":false}}],"
    "\"odd key\":{\"a.b\":null},\"empty\":[]}";

/* What `tmpl` prints from the document (owned), asserting `want` status. */
static char *run(const char *tmpl, enum dc_status want)
{
    cJSON *doc = cJSON_Parse(doc_text);
    assert_non_null(doc);
    svc_jsonpath *p = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    if (svc_jsonpath_compile(tmpl, &p, &err) != DC_OK)
        fail_msg("%s does not compile: %s", tmpl, err.msg);
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    assert_non_null(fp);
    enum dc_status rc = svc_jsonpath_print(p, doc, fp, &err);
    fclose(fp);
    if (rc != want)
        fail_msg("%s: %s, want %s (%s)", tmpl, dc_status_name(rc), dc_status_name(want), err.msg);
    if (rc != DC_OK) {
        free(buf);
        buf = strdup(err.msg);
    }
    svc_jsonpath_free(p);
    cJSON_Delete(doc);
    return buf;
}

static void expect(const char *tmpl, const char *want)
{
    char *got = run(tmpl, DC_OK);
    if (strcmp(got, want) != 0)
        fail_msg("%s printed \"%s\", want \"%s\"", tmpl, got, want);
    free(got);
}

static void test_paths(void **state)
{
    (void)state;
    expect("{.status}", "ok\n");
    expect("{$.status}", "ok\n");
    expect("{.recommendations[0].accelerator}", "h100\n");
    expect("{.recommendations[-1].accelerator}", "tpu-v6e\n");
    expect("{.recommendations[1].score}", "72.5\n");
    expect("{.recommendations[*].accelerator}", "h100 tpu-v6e\n");
    expect("{.recommendations[*].sizing.fits}", "true false\n");
    expect("{['odd key']['a.b']}", "null\n");
    expect("{.recommendations[0].sizing}", "{\"chips\":8,\"fits\":true}\n");
    expect("{.empty}", "[]\n");
    expect("{.empty[*]}", "\n");
    expect("id={.request_id} n={.recommendations[0].sizing.chips}", "id=r1 n=8\n");
}

static void test_range(void **state)
{
    (void)state;
    expect("{range .recommendations[*]}{.accelerator}{\"\\t\"}{.score}{\"\\n\"}{end}",
           "h100\t90\ntpu-v6e\t72.5\n");
    /* {range .list} walks the list's items, as {range .list[*]} does. */
    expect("{range .recommendations}[{@.sizing.chips}]{end}", "[8][16]\n");
    /* $ reaches the root from inside a range. */
    expect("{range .recommendations[*]}{$.request_id}:{.accelerator} {end}",
           "r1:h100 r1:tpu-v6e \n");
    expect("{range .empty[*]}x{end}", "\n");
}

static void test_errors_at_run(void **state)
{
    (void)state;
    char *m = run("{.recomendations}", DC_EINVAL);
    assert_non_null(strstr(m, "no field \"recomendations\""));
    assert_non_null(strstr(m, "did you mean \"recommendations\"?"));
    free(m);
    m = run("{.recommendations[2]}", DC_EINVAL);
    assert_non_null(strstr(m, "index 2 is out of range (the array has 2 items)"));
    free(m);
    m = run("{.status.x}", DC_EINVAL);
    assert_non_null(strstr(m, "not an object"));
    free(m);
    m = run("{.status[0]}", DC_EINVAL);
    assert_non_null(strstr(m, "not an array"));
    free(m);
}

/* What the subset leaves out, and broken templates: DC_EPARSE with the place. */
static void test_errors_at_compile(void **state)
{
    (void)state;
    static const struct {
        const char *tmpl, *says;
    } bad[] = {
        {"{.a[?(@.x==1)]}", "filters [?(...)] are not in the supported subset at character 5"},
        {"{.a[0:2]}", "slices [a:b] are not in the supported subset"},
        {"{.a[0,1]}", "unions [a,b] are not in the supported subset"},
        {"{..a}", "recursive descent .. is not in the supported subset"},
        {"{.a", "{ without }"},
        {"a}", "} without {"},
        {"{range .a}x", "range without {end}"},
        {"x{end}", "{end} without {range}"},
        {"{range}", "range needs a path"},
        {"{a}", "a path starts with ., [, $ or @"},
        {"{.a[}", "an index, * or a quoted name expected"},
        {"{.a['b}", "an unclosed quote"},
        {"{.len(a)}", "not in a field name"},
        {"{.odd key}", "not in a field name"},
        {"{\"x\" y}", "text after a quoted string"},
        {"", "an empty template"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        svc_jsonpath *p = NULL;
        struct dc_error err;
        dc_error_clear(&err);
        if (svc_jsonpath_compile(bad[i].tmpl, &p, &err) != DC_EPARSE)
            fail_msg("\"%s\" compiled", bad[i].tmpl);
        assert_null(p);
        if (strstr(err.msg, bad[i].says) == NULL)
            fail_msg("\"%s\": \"%s\" lacks \"%s\"", bad[i].tmpl, err.msg, bad[i].says);
    }
    /* Nested ranges stop at the limit. */
    char deep[256] = "";
    for (int i = 0; i <= SVC_JSONPATH_MAX_DEPTH; i++)
        strcat(deep, "{range .a}");
    svc_jsonpath *p = NULL;
    struct dc_error err;
    assert_int_equal(svc_jsonpath_compile(deep, &p, &err), DC_EPARSE);
    assert_non_null(strstr(err.msg, "ranges nested too deep"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_errors_at_run),
        cmocka_unit_test(test_errors_at_compile),
    };
    return cmocka_run_group_tests_name("service.jsonpath", tests, NULL, NULL);
}
