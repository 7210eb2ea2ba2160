/* tests/integration/test_explain.c -- "explain" over HTTP (docs/explanations.md):
 * the `changes` and `robustness` sections of POST /v1/recommendations and of
 * each item of a batch, checked against openapi.yaml; every change re-posted
 * without "explain" gives the pick it claims; a bad "explain" is a 400 with
 * its pointer; explained answers are cached apart from plain ones (and not at
 * all when the clock cut them short); the same workload explained by the
 * server under load and by the CLI gives the same body; the metrics count them.
 *
 * usage: integration_explain ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <pthread.h>
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

/* Whether the wall-clock guard cut a body's explanation short (it stands far
 * above the evaluation budget, but a sanitizer build on a loaded machine may
 * still reach it). */
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

/* Load for test_same_under_load: a thread spinning until told to stop. */
static volatile int spinning;

static void *spin(void *arg)
{
    (void)arg;
    volatile unsigned long x = 0;
    while (__atomic_load_n(&spinning, __ATOMIC_RELAXED))
        x++;
    return NULL;
}

/* The body `accel-advisor recommend --why-not FILE` prints, parsed. */
static cJSON *cli_explained(const char *body)
{
    char path[] = "/tmp/aa-explain-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(body, f);
    assert_int_equal(fclose(f), 0);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "'%s' recommend --why-not '%s'", h_binary, path);
    FILE *fp = popen(cmd, "r");
    assert_non_null(fp);
    static char out[1 << 20];
    size_t n = fread(out, 1, sizeof(out) - 1, fp);
    out[n] = '\0';
    assert_int_equal(pclose(fp), 0);
    remove(path);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    return j;
}

/* The explanation is bounded by evaluations the input decides, not by the
 * clock: a server with no cache, under two spinning threads, answers the
 * same workload eight times with the body the CLI prints (request ids
 * aside). */
static void test_same_under_load(void **state)
{
    (void)state;
    static const char body[] =
        "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":7e9},"
        "\"training\":{\"deadline_hours\":48},"
        "\"constraints\":{\"budget_usd\":2000},\"explain\":[\"changes\",\"robustness\"]}";
    cJSON *want = cli_explained(body);
    cJSON_DeleteItemFromObject(want, "request_id");
    assert_false(cut_by_time(want));
    const cJSON *evals = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(want, "changes"), "evaluations");
    assert_true(cJSON_IsNumber(evals) && evals->valuedouble > 0);
    struct server s;
    static const char *const args[] = {"--rules-watch=false", "--cache-entries", "0", NULL};
    assert_int_equal(server_start(&s, args), 0);
    pthread_t load[2];
    __atomic_store_n(&spinning, 1, __ATOMIC_RELAXED);
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&load[i], NULL, spin, NULL), 0);
    for (int k = 0; k < 8; k++) {
        struct resp r;
        assert_int_equal(http_post_json(&s, "/v1/recommendations", body, &r), 0);
        assert_int_equal(r.status, 200);
        cJSON *got = resp_json(&r);
        resp_free(&r);
        cJSON_DeleteItemFromObject(got, "request_id");
        if (!cut_by_time(got) && !cJSON_Compare(want, got, true)) {
            char *g = cJSON_PrintUnformatted(got);
            fail_msg("answer %d differs from the CLI's: %.600s", k, g);
        }
        cJSON_Delete(got);
    }
    __atomic_store_n(&spinning, 0, __ATOMIC_RELAXED);
    for (size_t i = 0; i < 2; i++)
        pthread_join(load[i], NULL);
    assert_int_equal(server_stop_clean(&s), 0);
    cJSON_Delete(want);
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
        cmocka_unit_test(test_cache),         cmocka_unit_test(test_same_under_load),
        cmocka_unit_test(test_metrics),
    };
    return HARNESS_RUN("explain", tests, setup, teardown);
}
