/* tests/integration/test_explain.c -- "explain" over HTTP (docs/explanations.md):
 * the `changes` and `robustness` sections of POST /v1/recommendations and of
 * each item of a batch, checked against openapi.yaml; every change re-posted
 * without "explain" gives the pick it claims; a bad "explain" is a 400 with
 * its pointer; explained answers are cached apart from plain ones (and not at
 * all when the clock cut them short); the metrics count them.
 *
 * usage: integration_explain ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dc/explain.h"
#include "harness.h"

static struct server srv;

static const char *const workload =
    "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":1.3e10},"
    "\"training\":{\"deadline_hours\":400},\"constraints\":{\"budget_usd\":60000},";

static int setup(void **state)
{
    (void)state;
    static const char *const args[] = {"--rules-watch=false", NULL};
    return server_start(&srv, args);
}

static int teardown(void **state)
{
    (void)state;
    return server_stop_clean(&srv);
}

/* POST `w` + `tail` ("\"explain\":[...]}") and expect 200 per the contract. */
static cJSON *post_ok(const char *w, const char *tail)
{
    char body[1024];
    snprintf(body, sizeof(body), "%s%s", w, tail);
    struct resp r;
    assert_int_equal(http_post_json(&srv, "/v1/recommendations", body, &r), 0);
    if (r.status != 200)
        fail_msg("%ld: %s", r.status, r.body);
    check_contract(&r, "POST", "/v1/recommendations");
    cJSON *j = resp_json(&r);
    resp_free(&r);
    return j;
}

static const char *top_of(const cJSON *result)
{
    const cJSON *first =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result, "recommendations"), 0);
    return first != NULL ? str_field(first, "accelerator") : NULL;
}

/* `w` (a request body) with one change applied, posted without "explain":
 * the top pick must be the one the change claims. */
static void reapply(const cJSON *w, const cJSON *change)
{
    const char *field = str_field(change, "field");
    cJSON *edited = cJSON_Duplicate(w, true);
    cJSON_DeleteItemFromObjectCaseSensitive(edited, "explain");
    char sec[64] = "";
    const char *key = field + 1;
    const char *slash = strchr(key, '/');
    cJSON *obj = edited;
    if (slash != NULL) {
        snprintf(sec, sizeof(sec), "%.*s", (int)(slash - key), key);
        obj = cJSON_GetObjectItemCaseSensitive(edited, sec);
        if (obj == NULL)
            obj = cJSON_AddObjectToObject(edited, sec);
        key = slash + 1;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(change, "to");
    if (!cJSON_IsNull(to))
        cJSON_AddItemToObject(obj, key, cJSON_Duplicate(to, true));
    char *body = cJSON_PrintUnformatted(edited);
    cJSON *res = post_ok(body, "");
    const char *want = str_field(change, "top");
    const char *got = top_of(res);
    if ((want == NULL) != (got == NULL) || (want != NULL && strcmp(want, got) != 0))
        fail_msg("%s: claims %s, the server picks %s", body, want != NULL ? want : "nothing",
                 got != NULL ? got : "nothing");
    cJSON_Delete(res);
    free(body);
    cJSON_Delete(edited);
}

static void test_both_sections(void **state)
{
    (void)state;
    cJSON *j = post_ok(workload, "\"explain\":[\"changes\",\"robustness\"]}");
    const cJSON *changes = cJSON_GetObjectItemCaseSensitive(j, "changes");
    const cJSON *rob = cJSON_GetObjectItemCaseSensitive(j, "robustness");
    assert_non_null(changes);
    assert_non_null(rob);
    assert_string_equal(str_field(rob, "top"), top_of(j));
    int evals = cJSON_GetObjectItemCaseSensitive(changes, "evaluations")->valueint +
                cJSON_GetObjectItemCaseSensitive(rob, "evaluations")->valueint;
    assert_true(evals <= DC_EXPLAIN_MAX_EVALUATIONS);
    /* The echo of the workload does not carry the request's "explain". */
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "workload"),
                                                 "explain"));
    char body[1024];
    snprintf(body, sizeof(body), "%s\"explain\":[]}", workload);
    cJSON *w = cJSON_Parse(body);
    const cJSON *t = NULL;
    const cJSON *first =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(changes, "targets"), 0);
    assert_string_equal(str_field(first, "role"), "top");
    assert_string_equal(str_field(first, "accelerator"), top_of(j));
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(changes, "targets"))
    {
        const cJSON *c = NULL;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(t, "changes"))
        {
            reapply(w, c);
        }
    }
    cJSON_Delete(w);
    cJSON_Delete(j);
}

static void test_one_section_or_none(void **state)
{
    (void)state;
    cJSON *j = post_ok(workload, "\"explain\":[\"robustness\"]}");
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "changes"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(j, "robustness"));
    cJSON_Delete(j);
    j = post_ok(workload, "\"explain\":[\"changes\"]}");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(j, "changes"));
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "robustness"));
    cJSON_Delete(j);
    j = post_ok(workload, "\"explain\":[]}");
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "changes"));
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "robustness"));
    cJSON_Delete(j);
}

static void expect_400(const char *body, const char *pointer)
{
    struct resp r;
    assert_int_equal(http_post_json(&srv, "/v1/recommendations", body, &r), 0);
    expect_problem(&r, 400, "tag:accel-advisor,2025:validation", "POST", "/v1/recommendations");
    cJSON *j = resp_json(&r);
    bool found = false;
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "errors"))
    {
        found |= strcmp(str_field(e, "pointer"), pointer) == 0;
    }
    if (!found)
        fail_msg("no error at %s in %s", pointer, r.body);
    cJSON_Delete(j);
    resp_free(&r);
}

static void test_bad_explain(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"\"explain\":[\"changes\",\"changes\"]}", "/explain"},
        {"\"explain\":[\"why\"]}", "/explain/0"},
        {"\"explain\":[true]}", "/explain/0"},
        {"\"explain\":\"changes\"}", "/explain"},
        {"\"explain\":{\"changes\":true}}", "/explain"},
        {"\"explain\":null}", "/explain"},
        {"\"explain\":[\"changes\",\"robustness\",\"x\"]}", "/explain"},
    };
    char body[1024];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(body, sizeof(body), "%s%s", workload, cases[i][0]);
        expect_400(body, cases[i][1]);
    }
    /* 10,000 entries: a clean 400, as fast as any other. */
    size_t cap = strlen(workload) + 10000 * 12 + 64, n = 0;
    char *big = malloc(cap);
    n += (size_t)snprintf(big, cap, "%s\"explain\":[", workload);
    for (int i = 0; i < 10000; i++)
        n += (size_t)snprintf(big + n, cap - n, "%s\"changes\"", i > 0 ? "," : "");
    snprintf(big + n, cap - n, "]}");
    expect_400(big, "/explain");
    free(big);
}

static void test_batch(void **state)
{
    (void)state;
    char body[2048];
    snprintf(body, sizeof(body),
             "{\"workloads\":[%s\"explain\":[\"changes\"]},%s\"explain\":[\"when\"]},"
             "{\"task\":\"inference\",\"model\":{\"parameters\":7e9},"
             "\"explain\":[\"robustness\"]}]}",
             workload, workload);
    struct resp r;
    assert_int_equal(http_post_json(&srv, "/v1/recommendations:batch", body, &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "POST", "/v1/recommendations:batch");
    cJSON *j = resp_json(&r);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(j, "results");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(results, 0), "result");
    const cJSON *b = cJSON_GetArrayItem(results, 1);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(results, 2), "result");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(a, "changes"));
    assert_null(cJSON_GetObjectItemCaseSensitive(a, "robustness"));
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(b, "status")->valueint, 400);
    const cJSON *err = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(b, "problem"), "errors"),
        0);
    assert_string_equal(str_field(err, "pointer"), "/workloads/1/explain/0");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(c, "robustness"));
    assert_null(cJSON_GetObjectItemCaseSensitive(c, "changes"));
    cJSON_Delete(j);
    resp_free(&r);
}

static long metric(const char *series)
{
    struct resp m;
    assert_int_equal(http_get(&srv, "/metrics", &m), 0);
    const char *at = strstr(m.body, series);
    long v = at != NULL ? strtol(at + strlen(series), NULL, 10) : -1;
    resp_free(&m);
    return v;
}

/* Whether the clock cut a body's explanation short (under sanitizers a run is
 * many times slower, and 2 ms may not be enough). */
static bool cut_by_time(const cJSON *j)
{
    const char *names[] = {"changes", "robustness"};
    for (size_t i = 0; i < 2; i++) {
        const char *s = str_field(cJSON_GetObjectItemCaseSensitive(j, names[i]), "stopped");
        if (s != NULL && strcmp(s, "time") == 0)
            return true;
    }
    return false;
}

static void test_cache(void **state)
{
    (void)state;
    const char *w = "{\"task\":\"inference\",\"model\":{\"parameters\":3e9},";
    cJSON *plain = post_ok(w, "\"objective\":\"cost\"}");
    assert_null(cJSON_GetObjectItemCaseSensitive(plain, "changes"));
    long hits = metric("accel_advisor_recommendation_cache_requests_total{result=\"hit\"} ");
    cJSON *a = post_ok(w, "\"objective\":\"cost\",\"explain\":[\"changes\",\"robustness\"]}");
    long computed = metric("accel_advisor_explanations_total{kind=\"changes\"} ");
    cJSON *b = post_ok(w, "\"objective\":\"cost\",\"explain\":[\"changes\",\"robustness\"]}");
    /* The explained body is not the plain one's cache entry. */
    assert_non_null(cJSON_GetObjectItemCaseSensitive(a, "changes"));
    long after = metric("accel_advisor_recommendation_cache_requests_total{result=\"hit\"} ");
    if (cut_by_time(a)) {
        /* A body the clock shaped is never served again. */
        assert_int_equal(after, hits);
        assert_int_equal(metric("accel_advisor_explanations_total{kind=\"changes\"} "),
                         computed + 1);
    } else {
        assert_int_equal(after, hits + 1);
        assert_int_equal(metric("accel_advisor_explanations_total{kind=\"changes\"} "), computed);
        cJSON_DeleteItemFromObject(a, "request_id");
        cJSON_DeleteItemFromObject(b, "request_id");
        assert_true(cJSON_Compare(a, b, true));
    }
    cJSON_Delete(plain);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_metrics(void **state)
{
    (void)state;
    cJSON *j = post_ok(workload, "\"explain\":[\"robustness\"]}");
    cJSON_Delete(j);
    assert_true(metric("accel_advisor_explanations_total{kind=\"robustness\"} ") >= 1);
    assert_true(metric("accel_advisor_explanation_duration_seconds_count ") >= 1);
    assert_true(metric("accel_advisor_explanations_stopped_total{budget=\"time\"} ") >= 0);
    struct resp m;
    assert_int_equal(http_get(&srv, "/metrics", &m), 0);
    assert_non_null(
        strstr(m.body, "accel_advisor_explanation_duration_seconds_bucket{le=\"0.002\"}"));
    check_promtool(&m);
    resp_free(&m);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_sections), cmocka_unit_test(test_one_section_or_none),
        cmocka_unit_test(test_bad_explain),   cmocka_unit_test(test_batch),
        cmocka_unit_test(test_cache),         cmocka_unit_test(test_metrics),
    };
    return HARNESS_RUN("explain", tests, setup, teardown);
}
