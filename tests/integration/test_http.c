/* tests/integration/test_http.c -- every endpoint and every error status of the
 * HTTP API, against the real binary on loopback, each response checked against
 * openapi.yaml.
 *
 * usage: integration_http ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <openssl/evp.h>

#include "api/openapi.h"
#include "harness.h"

static struct server srv; /* default configuration, shared by most tests */

static char *example(const char *name)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/examples/%s", h_source_dir, name);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    return text;
}

static int setup_default(void **state)
{
    (void)state;
    static const char *const args[] = {"--max-batch", "3", "--rules-watch=false", NULL};
    return server_start(&srv, args);
}

static int teardown_default(void **state)
{
    (void)state;
    return server_stop(&srv, SIGTERM) == 0 ? 0 : -1;
}

/* ---- the endpoints ------------------------------------------------------------- */

static void test_recommend_examples(void **state)
{
    (void)state;
    static const char *const files[] = {"llm-pretraining.json", "llm-serving.json",
                                        "custom-ops-finetune.json"};
    struct resp rules;
    assert_int_equal(http_get(&srv, "/v1/rules", &rules), 0);
    cJSON *rj = resp_json(&rules);
    for (size_t i = 0; i < 3; i++) {
        char *body = example(files[i]);
        struct resp r;
        assert_int_equal(http_post_json(&srv, "/v1/recommendations", body, &r), 0);
        assert_int_equal(r.status, 200);
        check_contract(&r, "POST", "/v1/recommendations");
        cJSON *j = resp_json(&r);
        char id[128];
        assert_true(resp_header(&r, "X-Request-Id", id, sizeof(id)));
        assert_string_equal(str_field(j, "request_id"), id);
        assert_int_equal(strlen(id), 32);
        assert_string_equal(str_field(j, "rules_version"), str_field(rj, "rules_version"));
        assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "recommendations")) > 0);
        cJSON_Delete(j);
        resp_free(&r);
        free(body);
    }
    cJSON_Delete(rj);
    resp_free(&rules);
}

static void test_request_ids(void **state)
{
    (void)state;
    const char *body = "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}";
    static const char *const good[] = {"X-Request-Id: trace-42.a:b_c", NULL};
    struct resp r;
    assert_int_equal(
        http(&srv, "POST", "/v1/recommendations", "application/json", body, strlen(body), good, &r),
        0);
    assert_int_equal(r.status, 200);
    char id[128];
    assert_true(resp_header(&r, "X-Request-Id", id, sizeof(id)));
    assert_string_equal(id, "trace-42.a:b_c");
    cJSON *j = resp_json(&r);
    assert_string_equal(str_field(j, "request_id"), "trace-42.a:b_c");
    cJSON_Delete(j);
    resp_free(&r);

    /* Malformed ids are replaced by a generated one. */
    char longid[100] = "X-Request-Id: ";
    memset(longid + strlen(longid), 'a', 65);
    static const char *const bad1[] = {"X-Request-Id: has space", NULL};
    const char *const bad2[] = {longid, NULL};
    const char *const *bads[] = {bad1, bad2};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(http(&srv, "GET", "/healthz", NULL, NULL, 0, bads[i], &r), 0);
        assert_int_equal(r.status, 200);
        assert_true(resp_header(&r, "X-Request-Id", id, sizeof(id)));
        assert_int_equal(strlen(id), 32);
        assert_true(strspn(id, "0123456789abcdef") == 32);
        j = resp_json(&r);
        assert_string_equal(str_field(j, "request_id"), id);
        cJSON_Delete(j);
        check_contract(&r, "GET", "/healthz");
        resp_free(&r);
    }
}

static void test_batch(void **state)
{
    (void)state;
    const char *body = "{\"workloads\":["
                       "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}},"
                       "{\"task\":\"training\",\"model\":{\"parameters\":-1},\"colour\":1},"
                       "5]}";
    struct resp r;
    assert_int_equal(http_post_json(&srv, "/v1/recommendations:batch", body, &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "POST", "/v1/recommendations:batch");
    cJSON *j = resp_json(&r);
    cJSON *results = cJSON_GetObjectItemCaseSensitive(j, "results");
    assert_int_equal(cJSON_GetArraySize(results), 3);
    assert_int_equal(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(results, 0), "status")->valueint, 200);
    cJSON *second = cJSON_GetArrayItem(results, 1);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(second, "status")->valueint, 400);
    cJSON *errs = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(second, "problem"), "errors");
    assert_int_equal(cJSON_GetArraySize(errs), 2);
    /* Pointers are into the whole request body. */
    bool saw_param = false, saw_colour = false;
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, errs)
    {
        saw_param |= strcmp(str_field(e, "pointer"), "/workloads/1/model/parameters") == 0;
        saw_colour |= strcmp(str_field(e, "pointer"), "/workloads/1/colour") == 0 ||
                      strcmp(str_field(e, "pointer"), "/workloads/1") == 0;
    }
    assert_true(saw_param && saw_colour);
    assert_int_equal(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(results, 2), "status")->valueint, 400);
    cJSON_Delete(j);
    resp_free(&r);

    /* Over the batch limit (3 in this server): 413. */
    const char *big = "{\"workloads\":[{\"task\":\"inference\",\"model\":{\"parameters\":1}},"
                      "{\"task\":\"inference\",\"model\":{\"parameters\":1}},"
                      "{\"task\":\"inference\",\"model\":{\"parameters\":1}},"
                      "{\"task\":\"inference\",\"model\":{\"parameters\":1}}]}";
    assert_int_equal(http_post_json(&srv, "/v1/recommendations:batch", big, &r), 0);
    expect_problem(&r, 413, "tag:accel-advisor,2025:batch-too-large", "POST",
                   "/v1/recommendations:batch");
    resp_free(&r);

    /* A fault in the envelope fails the whole request, whatever the items: only the
     * envelope's violations are listed. */
    assert_int_equal(
        http_post_json(&srv, "/v1/recommendations:batch", "{\"workloads\":[5],\"x\":1}", &r), 0);
    expect_problem(&r, 400, "tag:accel-advisor,2025:validation", "POST",
                   "/v1/recommendations:batch");
    j = resp_json(&r);
    errs = cJSON_GetObjectItemCaseSensitive(j, "errors");
    assert_int_equal(cJSON_GetArraySize(errs), 1);
    assert_string_equal(str_field(cJSON_GetArrayItem(errs, 0), "pointer"), "/x");
    cJSON_Delete(j);
    resp_free(&r);

    /* Not a batch at all: 400 for the whole request. */
    assert_int_equal(http_post_json(&srv, "/v1/recommendations:batch", "{\"workloads\":[]}", &r),
                     0);
    expect_problem(&r, 400, "tag:accel-advisor,2025:validation", "POST",
                   "/v1/recommendations:batch");
    resp_free(&r);
    assert_int_equal(http_post_json(&srv, "/v1/recommendations:batch", "[1]", &r), 0);
    expect_problem(&r, 400, "tag:accel-advisor,2025:validation", "POST",
                   "/v1/recommendations:batch");
    resp_free(&r);
}

/* A batch of `n` copies of one small workload (owned). */
static char *batch_of(int n)
{
    static const char w[] = "{\"task\":\"inference\",\"model\":{\"parameters\":1e9}}";
    size_t cap = 32 + (size_t)n * sizeof(w);
    char *body = malloc(cap);
    assert_non_null(body);
    size_t len = (size_t)snprintf(body, cap, "{\"workloads\":[");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(body + len, cap - len, "%s%s", i > 0 ? "," : "", w);
    snprintf(body + len, cap - len, "]}");
    return body;
}

/* The contract's maxItems is the default batch limit the server enforces; a
 * configured limit above it is honoured (the schema's maxItems does not turn
 * a larger batch into a 400), and items are answered one by one. */
static void test_batch_limits(void **state)
{
    (void)state;
    struct server def, big;
    struct resp r;
    assert_int_equal(server_start(&def, NULL), 0);
    assert_int_equal(http_get(&def, "/openapi.json", &r), 0);
    cJSON *doc = resp_json(&r);
    resp_free(&r);
    const cJSON *max = api_json_pointer_get(
        doc, "#/components/schemas/BatchRequest/properties/workloads/maxItems");
    assert_true(cJSON_IsNumber(max));
    int limit = max->valueint;
    cJSON_Delete(doc);
    char *at = batch_of(limit), *over = batch_of(limit + 1), *more = batch_of(limit + 20);
    assert_int_equal(http_post_json(&def, "/v1/recommendations:batch", at, &r), 0);
    assert_int_equal(r.status, 200);
    cJSON *j = resp_json(&r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "results")), limit);
    cJSON_Delete(j);
    resp_free(&r);
    assert_int_equal(http_post_json(&def, "/v1/recommendations:batch", over, &r), 0);
    expect_problem(&r, 413, "tag:accel-advisor,2025:batch-too-large", "POST",
                   "/v1/recommendations:batch");
    resp_free(&r);
    assert_int_equal(server_stop(&def, SIGTERM), 0);

    char configured[16];
    snprintf(configured, sizeof(configured), "%d", limit + 20);
    const char *const args[] = {"--max-batch", configured, NULL};
    assert_int_equal(server_start(&big, args), 0);
    assert_int_equal(http_post_json(&big, "/v1/recommendations:batch", more, &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "POST", "/v1/recommendations:batch");
    j = resp_json(&r);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(j, "results");
    assert_int_equal(cJSON_GetArraySize(results), limit + 20);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, results)
    {
        assert_int_equal(cJSON_GetObjectItemCaseSensitive(it, "status")->valueint, 200);
    }
    cJSON_Delete(j);
    resp_free(&r);
    /* Past the configured limit: 413 again. */
    free(more);
    more = batch_of(limit + 21);
    assert_int_equal(http_post_json(&big, "/v1/recommendations:batch", more, &r), 0);
    expect_problem(&r, 413, "tag:accel-advisor,2025:batch-too-large", "POST",
                   "/v1/recommendations:batch");
    resp_free(&r);
    assert_int_equal(server_stop(&big, SIGTERM), 0);
    free(at);
    free(over);
    free(more);
}

static int count_with(const cJSON *list, const char *key, const char *value)
{
    int n = 0;
    const cJSON *a = NULL;
    cJSON_ArrayForEach(a, list)
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, key);
        if (cJSON_IsString(v) && strcmp(v->valuestring, value) == 0)
            n++;
    }
    return n;
}

static void test_accelerators(void **state)
{
    (void)state;
    struct resp r;
    assert_int_equal(http_get(&srv, "/v1/accelerators", &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/v1/accelerators");
    cJSON *all = resp_json(&r);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(all, "accelerators");
    int total = cJSON_GetArraySize(list);
    assert_true(total > 0);
    int tpus = count_with(list, "family", "tpu");
    int nvidia = count_with(list, "vendor", "nvidia");
    resp_free(&r);

    assert_int_equal(http_get(&srv, "/v1/accelerators?family=tpu", &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/v1/accelerators");
    cJSON *j = resp_json(&r);
    list = cJSON_GetObjectItemCaseSensitive(j, "accelerators");
    assert_int_equal(cJSON_GetArraySize(list), tpus);
    assert_int_equal(count_with(list, "family", "tpu"), tpus);
    cJSON_Delete(j);
    resp_free(&r);

    assert_int_equal(http_get(&srv, "/v1/accelerators?vendor=nvidia&family=gpu", &r), 0);
    j = resp_json(&r);
    list = cJSON_GetObjectItemCaseSensitive(j, "accelerators");
    assert_int_equal(cJSON_GetArraySize(list), nvidia);
    cJSON_Delete(j);
    resp_free(&r);

    assert_int_equal(http_get(&srv, "/v1/accelerators?provider=gcp", &r), 0);
    assert_int_equal(r.status, 200);
    j = resp_json(&r);
    list = cJSON_GetObjectItemCaseSensitive(j, "accelerators");
    const cJSON *a = NULL;
    cJSON_ArrayForEach(a, list)
    {
        bool gcp = false;
        const cJSON *p = NULL;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(a, "providers"))
        {
            gcp |= strcmp(p->valuestring, "gcp") == 0;
        }
        assert_true(gcp);
    }
    cJSON_Delete(j);
    resp_free(&r);

    /* Values outside the contract's enum and unknown parameters: 400. */
    assert_int_equal(http_get(&srv, "/v1/accelerators?family=fpga", &r), 0);
    expect_problem(&r, 400, "tag:accel-advisor,2025:validation", "GET", "/v1/accelerators");
    resp_free(&r);
    assert_int_equal(http_get(&srv, "/v1/accelerators?colour=red", &r), 0);
    expect_problem(&r, 400, "tag:accel-advisor,2025:validation", "GET", "/v1/accelerators");
    j = resp_json(&r);
    assert_string_equal(
        str_field(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "errors"), 0),
                  "parameter"),
        "colour");
    cJSON_Delete(j);
    resp_free(&r);
    cJSON_Delete(all);
}

static void test_rules_inventory_health(void **state)
{
    (void)state;
    struct resp r;
    assert_int_equal(http_get(&srv, "/v1/rules", &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/v1/rules");
    cJSON *j = resp_json(&r);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "count")->valueint,
                     cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "rules")));
    assert_string_equal(str_field(j, "origin"), "embedded");
    cJSON_Delete(j);
    resp_free(&r);

    /* The model registry: its entries, each with a kind and sources, and a
     * name the recommendation endpoint accepts. */
    assert_int_equal(http_get(&srv, "/v1/models", &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/v1/models");
    j = resp_json(&r);
    cJSON *models = cJSON_GetObjectItemCaseSensitive(j, "models");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "count")->valueint,
                     cJSON_GetArraySize(models));
    assert_true(cJSON_GetArraySize(models) >= 40);
    char body[256];
    snprintf(body, sizeof(body), "{\"task\":\"inference\",\"model\":{\"name\":\"%s\"}}",
             str_field(cJSON_GetArrayItem(models, 0), "name"));
    cJSON_Delete(j);
    resp_free(&r);
    assert_int_equal(http_post_json(&srv, "/v1/recommendations", body, &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);

    assert_int_equal(http_get(&srv, "/v1/inventory", &r), 0);
    expect_problem(&r, 404, "tag:accel-advisor,2025:probe-disabled", "GET", "/v1/inventory");
    resp_free(&r);

    assert_int_equal(http_get(&srv, "/healthz", &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/healthz");
    resp_free(&r);
    assert_int_equal(http_get(&srv, "/readyz", &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/readyz");
    resp_free(&r);

    /* HEAD: headers only. */
    assert_int_equal(http(&srv, "HEAD", "/healthz", NULL, NULL, 0, NULL, &r), 0);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, 0);
    resp_free(&r);

    /* OPTIONS without CORS: 204 and Allow. */
    char allow[128];
    assert_int_equal(http(&srv, "OPTIONS", "/v1/recommendations", NULL, NULL, 0, NULL, &r), 0);
    assert_int_equal(r.status, 204);
    assert_true(resp_header(&r, "Allow", allow, sizeof(allow)));
    assert_string_equal(allow, "POST, OPTIONS");
    resp_free(&r);
}

static void test_contract_endpoints(void **state)
{
    (void)state;
    struct resp r;
    char path[1024], ct[128];
    snprintf(path, sizeof(path), "%s/openapi.yaml", h_source_dir);
    size_t len = 0;
    char *yaml = read_file(path, &len);
    assert_non_null(yaml);
    assert_int_equal(http_get(&srv, "/openapi.yaml", &r), 0);
    assert_int_equal(r.status, 200);
    assert_true(resp_header(&r, "Content-Type", ct, sizeof(ct)));
    assert_non_null(strstr(ct, "application/yaml"));
    assert_int_equal(r.len, len);
    assert_memory_equal(r.body, yaml, len);
    check_contract(&r, "GET", "/openapi.yaml");
    resp_free(&r);
    free(yaml);

    assert_int_equal(http_get(&srv, "/openapi.json", &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/openapi.json");
    cJSON *j = resp_json(&r);
    assert_non_null(j);
    assert_string_equal(str_field(j, "openapi"), "3.1.0");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "components"),
                                         "schemas"),
        "Workload"));
    cJSON_Delete(j);
    resp_free(&r);
}

static void test_metrics(void **state)
{
    (void)state;
    struct resp r;
    /* Make sure a recommendation was counted. */
    assert_int_equal(http_post_json(&srv, "/v1/recommendations",
                                    "{\"task\":\"inference\",\"model\":{\"parameters\":1e9}}", &r),
                     0);
    resp_free(&r);
    /* Counted as it completes, a moment after the answer was read. */
    assert_true(metrics_wait(srv.port,
                             "accel_advisor_http_requests_total{route=\"/v1/recommendations\","
                             "method=\"POST\",code=\"200\"}",
                             20000));
    assert_int_equal(http_get(&srv, "/metrics", &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/metrics");
    char ct[128];
    assert_true(resp_header(&r, "Content-Type", ct, sizeof(ct)));
    assert_string_equal(ct, "text/plain; version=0.0.4; charset=utf-8");
    static const char *const want[] = {
        "accel_advisor_http_requests_total{route=\"/v1/recommendations\",method=\"POST\","
        "code=\"200\"}",
        "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/recommendations\","
        "le=\"1e-05\"}",
        "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/recommendations\","
        "le=\"+Inf\"}",
        "accel_advisor_http_request_duration_seconds_count{route=\"/v1/recommendations\"}",
        "accel_advisor_recommendations_total{family=\"gpu\"}",
        "accel_advisor_rule_reloads_total{result=\"success\"} 1",
        "accel_advisor_rule_reloads_total{result=\"failure\"} 0",
        "accel_advisor_build_info{version=",
        "accel_advisor_rules_info{version=\"",
        "process_resident_memory_bytes ",
        "process_cpu_seconds_total ",
        "process_open_fds ",
        "process_max_fds ",
        "process_virtual_memory_bytes ",
        "process_start_time_seconds ",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (strstr(r.body, want[i]) == NULL)
            fail_msg("metrics lack %s", want[i]);
    }
    /* The scrape itself is in flight. The POST before it may still be too: its
     * completion callback can run after the client has read its response. */
    const char *inflight = strstr(r.body, "\naccel_advisor_inflight_requests ");
    assert_non_null(inflight);
    long n_inflight = strtol(inflight + strlen("\naccel_advisor_inflight_requests "), NULL, 10);
    if (n_inflight < 1 || n_inflight > 2)
        fail_msg("accel_advisor_inflight_requests is %ld, want 1 or 2", n_inflight);
    /* promtool (Debian package prometheus) must accept the exposition. */
    check_promtool(&r);
    resp_free(&r);
}

/* ---- errors ------------------------------------------------------------------------ */

static void post_expect(const char *body, size_t len, long status, const char *type,
                        const char *pointer)
{
    struct resp r;
    assert_int_equal(
        http(&srv, "POST", "/v1/recommendations", "application/json", body, len, NULL, &r), 0);
    expect_problem(&r, status, type, "POST", "/v1/recommendations");
    if (pointer != NULL) {
        cJSON *j = resp_json(&r);
        const cJSON *errs = cJSON_GetObjectItemCaseSensitive(j, "errors");
        bool found = false;
        const cJSON *e = NULL;
        cJSON_ArrayForEach(e, errs)
        {
            found |= strcmp(str_field(e, "pointer"), pointer) == 0;
        }
        if (!found)
            fail_msg("no error at %s in %s", pointer, r.body);
        cJSON_Delete(j);
    }
    resp_free(&r);
}

static void test_400(void **state)
{
    (void)state;
    const char *mal = "{\"task\":\"inference\",}";
    post_expect(mal, strlen(mal), 400, "tag:accel-advisor,2025:malformed-json", "");
    const char *trailing = "{\"task\":\"inference\",\"model\":{\"parameters\":1}} x";
    post_expect(trailing, strlen(trailing), 400, "tag:accel-advisor,2025:malformed-json", NULL);
    post_expect("", 0, 400, "tag:accel-advisor,2025:malformed-json", NULL);
    const char bad_utf8[] =
        "{\"task\":\"inference\",\"name\":\"\xc3\x28\",\"model\":{\"parameters\":1}}";
    post_expect(bad_utf8, sizeof(bad_utf8) - 1, 400, "tag:accel-advisor,2025:invalid-utf8", NULL);
    /* An escaped NUL is JSON (RFC 8259) but would cut a C string short. */
    const char *nul = "{\"task\":\"training\\u0000x\",\"model\":{\"parameters\":1}}";
    post_expect(nul, strlen(nul), 400, "tag:accel-advisor,2025:nul-in-string", "");
    const char *dup = "{\"task\":\"inference\",\"model\":{\"parameters\":1,\"parameters\":2}}";
    post_expect(dup, strlen(dup), 400, "tag:accel-advisor,2025:duplicate-key", "/model/parameters");
    char deep[200];
    size_t n = 0;
    n += (size_t)snprintf(deep + n, sizeof(deep) - n, "{\"task\":");
    for (int i = 0; i < 40; i++)
        deep[n++] = '[';
    for (int i = 0; i < 40; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    deep[n] = '\0';
    post_expect(deep, n, 400, "tag:accel-advisor,2025:too-deep", NULL);
    /* Wrong shape, wrong values, unknown fields: every violation listed. */
    const char *shape = "{\"task\":\"sleeping\",\"model\":{\"parameters\":-5},\"colour\":\"red\","
                        "\"constraints\":{\"providers\":[\"aws\",\"aws\"]}}";
    post_expect(shape, strlen(shape), 400, "tag:accel-advisor,2025:validation", "/task");
    post_expect(shape, strlen(shape), 400, "tag:accel-advisor,2025:validation",
                "/model/parameters");
    post_expect(shape, strlen(shape), 400, "tag:accel-advisor,2025:validation", "/colour");
    post_expect(shape, strlen(shape), 400, "tag:accel-advisor,2025:validation",
                "/constraints/providers");
    post_expect("[]", 2, 400, "tag:accel-advisor,2025:validation", "");
    const char *missing = "{\"task\":\"training\"}";
    post_expect(missing, strlen(missing), 400, "tag:accel-advisor,2025:validation", "");
}

static void test_404_405(void **state)
{
    (void)state;
    struct resp r;
    assert_int_equal(http_get(&srv, "/v2/nothing", &r), 0);
    expect_problem(&r, 404, "about:blank", "GET", "/v2/nothing");
    resp_free(&r);
    assert_int_equal(http(&srv, "POST", "/nothing", "application/json", "{}", 2, NULL, &r), 0);
    expect_problem(&r, 404, "about:blank", "POST", "/nothing");
    resp_free(&r);

    char allow[128];
    assert_int_equal(http(&srv, "DELETE", "/v1/rules", NULL, NULL, 0, NULL, &r), 0);
    expect_problem(&r, 405, "about:blank", "DELETE", "/v1/rules");
    assert_true(resp_header(&r, "Allow", allow, sizeof(allow)));
    assert_string_equal(allow, "GET, HEAD, OPTIONS");
    resp_free(&r);
    assert_int_equal(http_get(&srv, "/v1/recommendations", &r), 0);
    expect_problem(&r, 405, "about:blank", "GET", "/v1/recommendations");
    assert_true(resp_header(&r, "Allow", allow, sizeof(allow)));
    assert_string_equal(allow, "POST, OPTIONS");
    resp_free(&r);
}

static void test_415(void **state)
{
    (void)state;
    const char *body = "{\"task\":\"inference\",\"model\":{\"parameters\":1e9}}";
    static const char *const types[] = {"text/plain", "application/json; charset=latin1",
                                        "application/x-www-form-urlencoded", NULL};
    struct resp r;
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(
            http(&srv, "POST", "/v1/recommendations", types[i], body, strlen(body), NULL, &r), 0);
        expect_problem(&r, 415, "tag:accel-advisor,2025:unsupported-media-type", "POST",
                       "/v1/recommendations");
        resp_free(&r);
    }
    static const char *const ok[] = {"application/json; charset=utf-8",
                                     "Application/JSON;charset=\"UTF-8\""};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(
            http(&srv, "POST", "/v1/recommendations", ok[i], body, strlen(body), NULL, &r), 0);
        assert_int_equal(r.status, 200);
        resp_free(&r);
    }
}

static void test_cache(void **state)
{
    (void)state;
    const char *body = "{\"task\":\"inference\",\"model\":{\"parameters\":3e9}}";
    struct resp a, b;
    assert_int_equal(http_post_json(&srv, "/v1/recommendations", body, &a), 0);
    assert_int_equal(http_post_json(&srv, "/v1/recommendations", body, &b), 0);
    assert_int_equal(a.status, 200);
    assert_int_equal(b.status, 200);
    check_contract(&b, "POST", "/v1/recommendations");
    cJSON *ja = resp_json(&a), *jb = resp_json(&b);
    assert_string_not_equal(str_field(ja, "request_id"), str_field(jb, "request_id"));
    cJSON_DeleteItemFromObject(ja, "request_id");
    cJSON_DeleteItemFromObject(jb, "request_id");
    assert_true(cJSON_Compare(ja, jb, true));
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    resp_free(&a);
    resp_free(&b);
    struct resp m;
    assert_int_equal(http_get(&srv, "/metrics", &m), 0);
    assert_non_null(
        strstr(m.body, "accel_advisor_recommendation_cache_requests_total{result=\"hit\"}"));
    assert_null(
        strstr(m.body, "accel_advisor_recommendation_cache_requests_total{result=\"hit\"} 0\n"));
    resp_free(&m);
}

/* view, candidates and frontier (issue 33): each asks for a body of its own,
 * cached apart from the others; a bad value is a 400 problem naming it. */
static void test_views(void **state)
{
    (void)state;
    const char *body = "{\"task\":\"inference\",\"model\":{\"parameters\":5e9}}";
    static const char *const paths[] = {"/v1/recommendations", "/v1/recommendations?view=summary",
                                        "/v1/recommendations?view=summary",
                                        "/v1/recommendations?candidates=2&frontier=false"};
    struct resp r[4];
    cJSON *j[4];
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(http_post_json(&srv, paths[i], body, &r[i]), 0);
        assert_int_equal(r[i].status, 200);
        check_contract(&r[i], "POST", "/v1/recommendations");
        j[i] = resp_json(&r[i]);
    }
    /* The full body, then the summary twice (the second from the cache), each
     * what was asked, and never the other view's body from the cache. */
    assert_null(cJSON_GetObjectItem(j[0], "view"));
    assert_string_equal(str_field(j[1], "view"), "summary");
    assert_string_equal(str_field(j[2], "view"), "summary");
    assert_true(r[1].len * 3 < r[0].len);
    assert_null(cJSON_GetObjectItem(j[1], "frontier"));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j[3], "recommendations")), 2);
    assert_null(cJSON_GetObjectItem(j[3], "view"));
    assert_null(cJSON_GetObjectItem(j[3], "frontier"));
    for (size_t i = 0; i < 4; i++) {
        cJSON_Delete(j[i]);
        resp_free(&r[i]);
    }
    static const struct {
        const char *query, *parameter;
    } bad[] = {{"?view=all", "view"},           {"?candidates=0", "candidates"},
               {"?candidates=x", "candidates"}, {"?candidates=1001", "candidates"},
               {"?frontier=yes", "frontier"},   {"?views=summary", "views"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char path[96];
        snprintf(path, sizeof(path), "/v1/recommendations%s", bad[i].query);
        struct resp e;
        assert_int_equal(http_post_json(&srv, path, body, &e), 0);
        expect_problem(&e, 400, "tag:accel-advisor,2025:validation", "POST", "/v1/recommendations");
        cJSON *p = resp_json(&e);
        assert_string_equal(
            str_field(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "errors"), 0),
                      "parameter"),
            bad[i].parameter);
        cJSON_Delete(p);
        resp_free(&e);
    }
    /* A batch answers every workload in the view asked for. */
    struct resp b;
    assert_int_equal(http_post_json(&srv, "/v1/recommendations:batch?view=summary&candidates=1",
                                    "{\"workloads\":[{\"task\":\"inference\",\"model\":"
                                    "{\"parameters\":5e9}}]}",
                                    &b),
                     0);
    assert_int_equal(b.status, 200);
    check_contract(&b, "POST", "/v1/recommendations:batch");
    cJSON *jb = resp_json(&b);
    const cJSON *res =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(jb, "results"), 0), "result");
    assert_string_equal(str_field(res, "view"), "summary");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(res, "recommendations")), 1);
    cJSON_Delete(jb);
    resp_free(&b);
}

static void test_access_log(void **state)
{
    (void)state;
    static const char *const hdr[] = {"X-Request-Id: log-line-check", NULL};
    struct resp r;
    assert_int_equal(http(&srv, "GET", "/v1/rules", NULL, NULL, 0, hdr, &r), 0);
    resp_free(&r);
    /* Cut out the line and check it is one JSON object with the fields. */
    char *line = server_log_wait_line(&srv, 0, "\"request_id\":\"log-line-check\"", HANG_MS);
    assert_non_null(line);
    cJSON *j = cJSON_Parse(line);
    free(line);
    assert_non_null(j);
    assert_string_equal(str_field(j, "event"), "request");
    assert_string_equal(str_field(j, "method"), "GET");
    assert_string_equal(str_field(j, "route"), "/v1/rules");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "status")->valueint, 200);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "duration_ms")));
    assert_true(cJSON_GetObjectItemCaseSensitive(j, "bytes")->valuedouble > 0);
    assert_non_null(str_field(j, "time"));
    cJSON_Delete(j);
    /* Every line of the log is a JSON object. */
    char *copy = server_log_copy(&srv, 0, NULL);
    assert_non_null(copy);
    for (char *l = strtok(copy, "\n"); l != NULL; l = strtok(NULL, "\n")) {
        cJSON *o = cJSON_Parse(l);
        if (!cJSON_IsObject(o))
            fail_msg("log line is not a JSON object: %s", l);
        cJSON_Delete(o);
    }
    free(copy);
}

/* ---- servers with their own configuration ------------------------------------------ */

static void sha256_hex(const char *s, char out[65])
{
    unsigned char md[32];
    unsigned int n = 0;
    EVP_Digest(s, strlen(s), md, &n, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static void test_401(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    char keys[1024], d1[65], d2[65], text[300];
    snprintf(keys, sizeof(keys), "%s/keys", dir);
    sha256_hex("s3cret-key", d1);
    sha256_hex("other-key", d2);
    snprintf(text, sizeof(text), "# API keys\n%s\n\n%s\n", d1, d2);
    assert_int_equal(write_file(keys, text, strlen(text)), 0);
    const char *const args[] = {"--api-keys-file", keys, NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    struct resp r;
    char www[128];
    assert_int_equal(http_get(&s, "/v1/rules", &r), 0);
    expect_problem(&r, 401, "tag:accel-advisor,2025:unauthorized", "GET", "/v1/rules");
    assert_true(resp_header(&r, "WWW-Authenticate", www, sizeof(www)));
    assert_non_null(strstr(www, "Bearer"));
    resp_free(&r);
    static const char *const wrong[] = {"Authorization: Bearer s3cret-kez", NULL};
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, wrong, &r), 0);
    expect_problem(&r, 401, "tag:accel-advisor,2025:unauthorized", "GET", "/v1/rules");
    resp_free(&r);
    static const char *const basic[] = {"Authorization: Basic czNjcmV0LWtleQ==", NULL};
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, basic, &r), 0);
    assert_int_equal(r.status, 401);
    resp_free(&r);
    /* POST with a body: refused before the body is read. */
    const char *body = "{\"task\":\"inference\",\"model\":{\"parameters\":1}}";
    assert_int_equal(http_post_json(&s, "/v1/recommendations", body, &r), 0);
    expect_problem(&r, 401, "tag:accel-advisor,2025:unauthorized", "POST", "/v1/recommendations");
    resp_free(&r);
    static const char *const right[] = {"Authorization: Bearer s3cret-key", NULL};
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, right, &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    static const char *const right2[] = {"Authorization: bearer other-key", NULL};
    assert_int_equal(
        http(&s, "POST", "/v1/recommendations", "application/json", body, strlen(body), right2, &r),
        0);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    /* Health, readiness, metrics, the contract and the playground stay open (the
     * page asks for the key when the API answers 401). */
    static const char *const open_paths[] = {"/healthz",      "/readyz", "/metrics",
                                             "/openapi.json", "/",       "/ui/playground.js"};
    for (size_t i = 0; i < sizeof(open_paths) / sizeof(open_paths[0]); i++) {
        assert_int_equal(http_get(&s, open_paths[i], &r), 0);
        assert_int_equal(r.status, 200);
        resp_free(&r);
    }
    /* Key rotation: SIGHUP reads the keys file again. */
    snprintf(text, sizeof(text), "%s\n", d2);
    assert_int_equal(write_file(keys, text, strlen(text)), 0);
    size_t mark = server_log_len(&s);
    kill(s.pid, SIGHUP);
    assert_true(server_log_wait(
        &s, mark, "\"event\":\"api_keys_reload\",\"result\":\"success\",\"keys\":1", HANG_MS));
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, right, &r), 0);
    assert_int_equal(r.status, 401); /* s3cret-key was removed */
    resp_free(&r);
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, right2, &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    /* A keys file that does not load keeps the current keys. */
    assert_int_equal(write_file(keys, "not a digest\n", 13), 0);
    mark = server_log_len(&s);
    kill(s.pid, SIGHUP);
    assert_true(
        server_log_wait(&s, mark, "\"event\":\"api_keys_reload\",\"result\":\"failure\"", HANG_MS));
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, right2, &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, NULL, &r), 0);
    assert_int_equal(r.status, 401);
    resp_free(&r);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    remove_tree(dir);
    free(dir);
}

static void test_413(void **state)
{
    (void)state;
    static const char *const args[] = {"--max-body-bytes", "1024", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    char big[3000];
    memset(big, ' ', sizeof(big));
    const char *w = "{\"task\":\"inference\",\"model\":{\"parameters\":1}}";
    memcpy(big, w, strlen(w));
    struct resp r;
    /* Announced by Content-Length: refused before the body is read. */
    assert_int_equal(
        http(&s, "POST", "/v1/recommendations", "application/json", big, sizeof(big), NULL, &r), 0);
    expect_problem(&r, 413, "tag:accel-advisor,2025:body-too-large", "POST", "/v1/recommendations");
    resp_free(&r);
    /* Chunked (no Content-Length): refused once it passes the limit. */
    static const char *const chunked[] = {"Transfer-Encoding: chunked", NULL};
    assert_int_equal(
        http(&s, "POST", "/v1/recommendations", "application/json", big, sizeof(big), chunked, &r),
        0);
    expect_problem(&r, 413, "tag:accel-advisor,2025:body-too-large", "POST", "/v1/recommendations");
    resp_free(&r);
    /* Within the limit: fine (trailing whitespace is allowed JSON). */
    assert_int_equal(
        http(&s, "POST", "/v1/recommendations", "application/json", big, 1000, NULL, &r), 0);
    if (r.status != 200)
        fprintf(stderr, "%s\n", r.body);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
}

static void test_503_connections(void **state)
{
    (void)state;
    /* The admin listener has connections of its own: the test reads the
     * server's count of open API connections there, without taking one. */
    static const char *const args[] = {"--max-connections", "2", "--admin-listen", "127.0.0.1:0",
                                       NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    int a = raw_connect(&s), b = raw_connect(&s);
    assert_true(a >= 0 && b >= 0);
    assert_int_equal(metric_wait(s.admin_port, "accel_advisor_open_connections", 2, HANG_MS), 2);
    struct resp r;
    assert_int_equal(http_get(&s, "/v1/rules", &r), 0);
    expect_problem(&r, 503, "tag:accel-advisor,2025:overloaded", "GET", "/v1/rules");
    char ra_hdr[32];
    assert_true(resp_header(&r, "Retry-After", ra_hdr, sizeof(ra_hdr)));
    resp_free(&r);
    close(a);
    close(b);
    /* Once the server has seen the others close, requests are served again. */
    assert_int_equal(metric_wait(s.admin_port, "accel_advisor_open_connections", 0, HANG_MS), 0);
    assert_int_equal(http_get(&s, "/v1/rules", &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    assert_true(scrape_metric(s.admin_port, "accel_advisor_rejected_connections_total") >= 1);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
}

static void test_cors(void **state)
{
    (void)state;
    static const char *const args[] = {"--cors-origins",
                                       "https://portal.example, https://b.example", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    struct resp r;
    char v[256];
    static const char *const pre[] = {"Origin: https://portal.example",
                                      "Access-Control-Request-Method: POST",
                                      "Access-Control-Request-Headers: content-type", NULL};
    assert_int_equal(http(&s, "OPTIONS", "/v1/recommendations", NULL, NULL, 0, pre, &r), 0);
    assert_int_equal(r.status, 204);
    assert_true(resp_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    assert_string_equal(v, "https://portal.example");
    assert_true(resp_header(&r, "Access-Control-Allow-Methods", v, sizeof(v)));
    assert_non_null(strstr(v, "POST"));
    assert_true(resp_header(&r, "Access-Control-Allow-Headers", v, sizeof(v)));
    assert_non_null(strstr(v, "Content-Type"));
    assert_true(resp_header(&r, "Access-Control-Max-Age", v, sizeof(v)));
    resp_free(&r);
    static const char *const get[] = {"Origin: https://b.example", NULL};
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, get, &r), 0);
    assert_int_equal(r.status, 200);
    assert_true(resp_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    assert_string_equal(v, "https://b.example");
    assert_true(resp_header(&r, "Vary", v, sizeof(v)));
    resp_free(&r);
    static const char *const evil[] = {"Origin: https://evil.example",
                                       "Access-Control-Request-Method: POST", NULL};
    assert_int_equal(http(&s, "OPTIONS", "/v1/recommendations", NULL, NULL, 0, evil, &r), 0);
    assert_false(resp_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    resp_free(&r);
    assert_int_equal(server_stop(&s, SIGTERM), 0);

    /* Off by default: no CORS headers at all. */
    assert_int_equal(http(&srv, "OPTIONS", "/v1/recommendations", NULL, NULL, 0, pre, &r), 0);
    assert_false(resp_header(&r, "Access-Control-Allow-Origin", v, sizeof(v)));
    resp_free(&r);

    /* Origins that are not scheme://host[:port] stop the server at start-up (exit
     * 2), the error naming the origin: "null" used to be accepted and to grant
     * itself to every sandboxed page. */
    static const char *const bad[] = {"null", "evil", "https://a.example/path",
                                      "https://*.example.com"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char cmd[2048], errf[64];
        snprintf(errf, sizeof(errf), "/tmp/aa-cors-%d.err", (int)getpid());
        snprintf(cmd, sizeof(cmd), "'%s' serve --listen 127.0.0.1:0 --cors-origins '%s' 2>%s",
                 h_binary, bad[i], errf);
        int st = system(cmd);
        char *err = read_file(errf, NULL);
        unlink(errf);
        assert_non_null(err);
        char want[160];
        snprintf(want, sizeof(want), "cors_origins: \"%s\" is not an allowed origin", bad[i]);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 2 || strstr(err, want) == NULL)
            fail_msg("--cors-origins %s: status %d, stderr %s", bad[i], st, err);
        free(err);
    }
}

static void test_openapi_file_drives_validation(void **state)
{
    (void)state;
    /* The same server code with a contract whose name limit is 5: the contract,
     * not the code, decides what is accepted. */
    char path[1024];
    snprintf(path, sizeof(path), "%s/openapi.yaml", h_source_dir);
    size_t len = 0;
    char *yaml = read_file(path, &len);
    assert_non_null(yaml);
    const char *from =
        "minLength: 1\n          maxLength: 128\n          description: An optional label";
    char *p = strstr(yaml, from);
    assert_non_null(p);
    memcpy(strstr(p, "128"), "5  ", 3);
    char *dir = make_temp_dir();
    char mod[1024];
    snprintf(mod, sizeof(mod), "%s/openapi.yaml", dir);
    assert_int_equal(write_file(mod, yaml, len), 0);
    free(yaml);
    const char *const args[] = {"--openapi-file", mod, NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    const char *body =
        "{\"name\":\"longer-than-five\",\"task\":\"inference\",\"model\":{\"parameters\":1}}";
    struct resp r;
    assert_int_equal(http_post_json(&s, "/v1/recommendations", body, &r), 0);
    assert_int_equal(r.status, 400);
    assert_non_null(strstr(r.body, "\"pointer\":\"/name\""));
    resp_free(&r);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    assert_int_equal(http_post_json(&srv, "/v1/recommendations", body, &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    remove_tree(dir);
    free(dir);
}

static void test_bad_start(void **state)
{
    (void)state;
    struct server s;
    static const char *const bad_flag[] = {"--max-batch", "0", NULL};
    assert_int_not_equal(server_start(&s, bad_flag), 0);
    static const char *const bad_rules[] = {"--rules", "/nonexistent-rules-dir", NULL};
    assert_int_not_equal(server_start(&s, bad_rules), 0);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest shared[] = {
        cmocka_unit_test(test_recommend_examples),
        cmocka_unit_test(test_request_ids),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_batch_limits),
        cmocka_unit_test(test_accelerators),
        cmocka_unit_test(test_rules_inventory_health),
        cmocka_unit_test(test_contract_endpoints),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_400),
        cmocka_unit_test(test_404_405),
        cmocka_unit_test(test_415),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_access_log),
        cmocka_unit_test(test_401),
        cmocka_unit_test(test_413),
        cmocka_unit_test(test_503_connections),
        cmocka_unit_test(test_cors),
        cmocka_unit_test(test_openapi_file_drives_validation),
        cmocka_unit_test(test_bad_start),
    };
    return HARNESS_RUN("http", shared, setup_default, teardown_default);
}
