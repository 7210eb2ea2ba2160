/* tests/integration/test_conventions.c -- the conventions integrators expect,
 * against the real binary on loopback: ETag, If-None-Match and 304,
 * Cache-Control, W3C traceparent propagation, trace ids and a msg on every log
 * line, the log level, and the latency buckets in the metrics.
 *
 * usage: integration_conventions ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define TRACE_ID  "4bf92f3577b34da6a3ce929d0e0e4736"
#define PARENT_ID "00f067aa0ba902b7"

static struct server srv; /* debug logs, so ignored traceparents are logged too */

static int setup(void **state)
{
    (void)state;
    static const char *const args[] = {"--rules-watch=false", "--log-level", "debug", NULL};
    return server_start(&srv, args);
}

static int teardown(void **state)
{
    (void)state;
    return server_stop(&srv, SIGTERM) == 0 ? 0 : -1;
}

/* GET (or HEAD) `path` with one extra header line ("Name: value"; NULL for none). */
static void get(struct server *s, const char *method, const char *path, const char *header,
                struct resp *r)
{
    const char *const hdrs[] = {header, NULL};
    assert_int_equal(http(s, method, path, NULL, NULL, 0, header != NULL ? hdrs : NULL, r), 0);
}

static void header(const struct resp *r, const char *name, char *buf, size_t len)
{
    if (!resp_header(r, name, buf, len))
        fail_msg("no %s header in:\n%s", name, r->headers);
}

static void expect_header(const struct resp *r, const char *name, const char *want)
{
    char got[256];
    header(r, name, got, sizeof(got));
    if (strcmp(got, want) != 0)
        fail_msg("%s is \"%s\", want \"%s\"", name, got, want);
}

/* The server's log line that holds `needle`, parsed (waits up to HANG_MS). */
static cJSON *log_line(struct server *s, const char *needle)
{
    char *line = server_log_wait_line(s, 0, needle, HANG_MS);
    if (line == NULL)
        fail_msg("no log line with %s", needle);
    cJSON *j = cJSON_Parse(line);
    if (!cJSON_IsObject(j))
        fail_msg("log line is not a JSON object: %s", line);
    free(line);
    return j;
}

/* ---- ETag, If-None-Match, 304 ------------------------------------------------------- */

/* The conditional GET of one route: 200 with a strong ETag and no-cache; 304
 * with the same headers and no body for the tag, W/ form, a list or *; 200
 * for another tag or a malformed field. */
static void conditional(const char *path, const char *template)
{
    struct resp r, c;
    char etag[128], cond[300], len200[32], len304[32];
    get(&srv, "GET", path, NULL, &r);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", template);
    header(&r, "ETag", etag, sizeof(etag));
    assert_int_equal(strlen(etag), 34);
    assert_int_equal(etag[0], '"');
    expect_header(&r, "Cache-Control", "no-cache");
    header(&r, "Content-Length", len200, sizeof(len200));

    /* The tag alone, weak, in a list, or "*" (which ignores the tag). */
    static const struct {
        const char *before, *after;
        bool tag;
    } forms[] = {{"", "", true}, {"W/", "", true}, {"\"0\", ", " , ", true}, {"*", "", false}};
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        snprintf(cond, sizeof(cond), "If-None-Match: %s%s%s", forms[i].before,
                 forms[i].tag ? etag : "", forms[i].after);
        for (int head = 0; head < 2; head++) {
            get(&srv, head ? "HEAD" : "GET", path, cond, &c);
            if (c.status != 304)
                fail_msg("%s with %s: %ld, want 304", path, cond, c.status);
            check_contract(&c, "GET", template); /* HEAD is the GET operation's */
            assert_int_equal(c.len, 0);
            expect_header(&c, "ETag", etag);
            expect_header(&c, "Cache-Control", "no-cache");
            assert_false(resp_header(&c, "Content-Type", cond, sizeof(cond)));
            /* Content-Length, when sent, is the 200's (RFC 9110, 8.6). */
            if (resp_header(&c, "Content-Length", len304, sizeof(len304)))
                assert_string_equal(len304, len200);
            resp_free(&c);
        }
    }
    static const char *const misses[] = {"If-None-Match: \"00000000000000000000000000000000\"",
                                         "If-None-Match: unquoted", "If-None-Match: * , *"};
    for (size_t i = 0; i < sizeof(misses) / sizeof(misses[0]); i++) {
        get(&srv, "GET", path, misses[i], &c);
        assert_int_equal(c.status, 200);
        assert_int_equal(c.len, r.len);
        resp_free(&c);
    }
    /* Two If-None-Match lines form one list. */
    snprintf(cond, sizeof(cond), "If-None-Match: %s", etag);
    const char *const two[] = {"If-None-Match: \"1\"", cond, NULL};
    assert_int_equal(http(&srv, "GET", path, NULL, NULL, 0, two, &c), 0);
    assert_int_equal(c.status, 304);
    resp_free(&c);
    resp_free(&r);
}

static void test_etag_routes(void **state)
{
    (void)state;
    conditional("/v1/rules", "/v1/rules");
    conditional("/v1/models", "/v1/models");
    conditional("/v1/accelerators", "/v1/accelerators");
    conditional("/v1/accelerators?family=gpu&vendor=nvidia", "/v1/accelerators");
    conditional("/openapi.yaml", "/openapi.yaml");
    conditional("/openapi.json", "/openapi.json");
}

static void etag_of(struct server *s, const char *path, char *etag, size_t len)
{
    struct resp r;
    get(s, "GET", path, NULL, &r);
    assert_int_equal(r.status, 200);
    header(&r, "ETag", etag, len);
    resp_free(&r);
}

/* The tag follows the body: another query or representation, another tag; the
 * order of the query parameters does not change the body, nor the tag. */
static void test_etag_differs(void **state)
{
    (void)state;
    char all[64], gpu[64], gpu_nv[64], nv_gpu[64], tpu[64], yaml[64], json[64], rules[64],
        models[64];
    etag_of(&srv, "/v1/accelerators", all, sizeof(all));
    etag_of(&srv, "/v1/accelerators?family=gpu", gpu, sizeof(gpu));
    etag_of(&srv, "/v1/accelerators?family=gpu&vendor=nvidia", gpu_nv, sizeof(gpu_nv));
    etag_of(&srv, "/v1/accelerators?vendor=nvidia&family=gpu", nv_gpu, sizeof(nv_gpu));
    etag_of(&srv, "/v1/accelerators?family=tpu", tpu, sizeof(tpu));
    etag_of(&srv, "/openapi.yaml", yaml, sizeof(yaml));
    etag_of(&srv, "/openapi.json", json, sizeof(json));
    etag_of(&srv, "/v1/rules", rules, sizeof(rules));
    etag_of(&srv, "/v1/models", models, sizeof(models)); /* same rule set, another body */
    const char *tags[] = {all, gpu, gpu_nv, tpu, yaml, json, rules, models};
    for (size_t i = 0; i < 8; i++) {
        for (size_t k = i + 1; k < 8; k++)
            assert_string_not_equal(tags[i], tags[k]);
    }
    assert_string_equal(gpu_nv, nv_gpu);
    /* A tag of another query is not this one's. */
    char cond[128];
    snprintf(cond, sizeof(cond), "If-None-Match: %s", gpu);
    struct resp r;
    get(&srv, "GET", "/v1/accelerators?family=tpu", cond, &r);
    assert_int_equal(r.status, 200);
    resp_free(&r);
}

/* Errors and uncacheable answers carry no ETag and are never stored; a
 * matching tag does not turn an error into a 304. */
static void test_cache_control(void **state)
{
    (void)state;
    char etag[64], cond[128], v[64];
    etag_of(&srv, "/v1/accelerators", etag, sizeof(etag));
    snprintf(cond, sizeof(cond), "If-None-Match: %s", etag);
    struct resp r;
    get(&srv, "GET", "/v1/accelerators?family=fpga", cond, &r);
    expect_problem(&r, 400, "tag:accel-advisor,2025:validation", "GET", "/v1/accelerators");
    assert_false(resp_header(&r, "ETag", v, sizeof(v)));
    expect_header(&r, "Cache-Control", "no-store");
    resp_free(&r);
    assert_int_equal(http_post_json(&srv, "/v1/recommendations",
                                    "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}", &r),
                     0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "POST", "/v1/recommendations");
    expect_header(&r, "Cache-Control", "no-store");
    assert_false(resp_header(&r, "ETag", v, sizeof(v)));
    resp_free(&r);
    static const char *const plain[] = {"/healthz", "/readyz", "/metrics", "/nowhere"};
    for (size_t i = 0; i < 4; i++) {
        get(&srv, "GET", plain[i], "If-None-Match: *", &r);
        assert_true(r.status == 200 || r.status == 404);
        expect_header(&r, "Cache-Control", "no-store");
        assert_false(resp_header(&r, "ETag", v, sizeof(v)));
        resp_free(&r);
    }
}

/* A reload with another rule set changes the rules' and the catalog's tags (the
 * old tag gets the new body), not the contract's. */
static void test_etag_after_reload(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_int_equal(copy_rules(dir), 0);
    const char *const args[] = {"--rules", dir, "--rules-watch=false", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    char rules0[64], acc0[64], yaml0[64], rules1[64], acc1[64], yaml1[64], cond[128];
    etag_of(&s, "/v1/rules", rules0, sizeof(rules0));
    etag_of(&s, "/v1/accelerators", acc0, sizeof(acc0));
    etag_of(&s, "/openapi.yaml", yaml0, sizeof(yaml0));
    size_t mark = server_log_len(&s);
    assert_int_equal(touch_rules(dir, 1), 0);
    kill(s.pid, SIGHUP);
    assert_true(server_log_wait(&s, mark, "\"changed\":true", HANG_MS));
    struct resp r;
    snprintf(cond, sizeof(cond), "If-None-Match: %s", rules0);
    get(&s, "GET", "/v1/rules", cond, &r);
    assert_int_equal(r.status, 200);
    header(&r, "ETag", rules1, sizeof(rules1));
    assert_string_not_equal(rules0, rules1);
    resp_free(&r);
    etag_of(&s, "/v1/accelerators", acc1, sizeof(acc1));
    assert_string_not_equal(acc0, acc1);
    etag_of(&s, "/openapi.yaml", yaml1, sizeof(yaml1));
    assert_string_equal(yaml0, yaml1);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    remove_tree(dir);
    free(dir);
}

/* ---- traceparent -------------------------------------------------------------------- */

/* Send `traceparent` lines (NULL-terminated, may be empty) with request id `id`;
 * return the response's traceparent in tp (55 characters) and its log line. */
static cJSON *traced(const char *id, const char *const *tps, char tp[64])
{
    const char *hdrs[6] = {NULL};
    char idh[96];
    snprintf(idh, sizeof(idh), "X-Request-Id: %s", id);
    size_t n = 0;
    hdrs[n++] = idh;
    for (size_t i = 0; tps[i] != NULL && n < 5; i++)
        hdrs[n++] = tps[i];
    struct resp r;
    assert_int_equal(http(&srv, "GET", "/healthz", NULL, NULL, 0, hdrs, &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/healthz");
    header(&r, "traceparent", tp, 64);
    assert_int_equal(strlen(tp), 55);
    resp_free(&r);
    char needle[128];
    snprintf(needle, sizeof(needle), "\"event\":\"request\",\"request_id\":\"%s\"", id);
    return log_line(&srv, needle);
}

static void test_traceparent_continued(void **state)
{
    (void)state;
    char tp[64];
    const char *const tps[] = {"traceparent: 00-" TRACE_ID "-" PARENT_ID "-01", NULL};
    cJSON *l = traced("tp-valid", tps, tp);
    /* The caller's trace, the server's own span, the sampled flag kept. */
    assert_memory_equal(tp, "00-" TRACE_ID "-", 36);
    assert_string_equal(tp + 52, "-01");
    assert_memory_not_equal(tp + 36, PARENT_ID, 16);
    assert_string_equal(str_field(l, "trace_id"), TRACE_ID);
    assert_memory_equal(str_field(l, "span_id"), tp + 36, 16);
    assert_int_equal(strlen(str_field(l, "span_id")), 16);
    assert_string_equal(str_field(l, "parent_span_id"), PARENT_ID);
    assert_string_equal(str_field(l, "msg"), "GET /healthz 200");
    cJSON_Delete(l);

    /* A later version is read as 00 and answered as 00; unknown flags dropped. */
    const char *const future[] = {"traceparent: cc-" TRACE_ID "-" PARENT_ID "-03-more", NULL};
    l = traced("tp-future", future, tp);
    assert_memory_equal(tp, "00-" TRACE_ID "-", 36);
    assert_string_equal(tp + 52, "-01");
    cJSON_Delete(l);
}

/* Missing, invalid or repeated: a new trace (not the caller's), no parent, and
 * the reason in a debug line. */
static void test_traceparent_new_trace(void **state)
{
    (void)state;
    char tp[64];
    const char *const none[] = {NULL};
    cJSON *l = traced("tp-none", none, tp);
    assert_memory_not_equal(tp + 3, TRACE_ID, 32);
    assert_string_equal(tp + 52, "-00");
    assert_memory_equal(str_field(l, "trace_id"), tp + 3, 32);
    assert_null(cJSON_GetObjectItemCaseSensitive(l, "parent_span_id"));
    cJSON_Delete(l);

    static const struct {
        const char *id;
        const char *lines[3];
        const char *reason;
    } bad[] = {
        {"tp-zero",
         {"traceparent: 00-00000000000000000000000000000000-" PARENT_ID "-01"},
         "trace-id is all zeros"},
        {"tp-upper",
         {"traceparent: 00-4BF92F3577B34DA6A3CE929D0E0E4736-" PARENT_ID "-01"},
         "lowercase hex"},
        {"tp-ff", {"traceparent: ff-" TRACE_ID "-" PARENT_ID "-01"}, "version ff"},
        {"tp-long", {"traceparent: 00-" TRACE_ID "-" PARENT_ID "-01-x"}, "exactly 55"},
        {"tp-two",
         {"traceparent: 00-" TRACE_ID "-" PARENT_ID "-01",
          "traceparent: 00-" TRACE_ID "-" PARENT_ID "-01"},
         "more than one traceparent header"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        l = traced(bad[i].id, bad[i].lines, tp);
        assert_memory_not_equal(tp + 3, TRACE_ID, 32);
        assert_memory_not_equal(tp + 3, "00000000000000000000000000000000", 32);
        assert_null(cJSON_GetObjectItemCaseSensitive(l, "parent_span_id"));
        cJSON_Delete(l);
        char needle[128];
        snprintf(needle, sizeof(needle), "\"event\":\"traceparent_ignored\",\"request_id\":\"%s\"",
                 bad[i].id);
        l = log_line(&srv, needle);
        assert_string_equal(str_field(l, "level"), "debug");
        if (strstr(str_field(l, "msg"), bad[i].reason) == NULL)
            fail_msg("%s: msg \"%s\" lacks \"%s\"", bad[i].id, str_field(l, "msg"), bad[i].reason);
        assert_memory_equal(str_field(l, "trace_id"), tp + 3, 32);
        cJSON_Delete(l);
    }
}

/* Browsers may send the headers and read the answers (CORS). */
static void test_cors_headers(void **state)
{
    (void)state;
    const char *const args[] = {"--cors-origins", "https://portal.example", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    const char *const pre[] = {"Origin: https://portal.example",
                               "Access-Control-Request-Method: GET", NULL};
    struct resp r;
    char v[256];
    assert_int_equal(http(&s, "OPTIONS", "/v1/rules", NULL, NULL, 0, pre, &r), 0);
    assert_int_equal(r.status, 204);
    header(&r, "Access-Control-Allow-Headers", v, sizeof(v));
    assert_non_null(strstr(v, "If-None-Match"));
    assert_non_null(strstr(v, "traceparent"));
    resp_free(&r);
    const char *const get_hdr[] = {"Origin: https://portal.example", NULL};
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, get_hdr, &r), 0);
    header(&r, "Access-Control-Expose-Headers", v, sizeof(v));
    assert_non_null(strstr(v, "ETag"));
    assert_non_null(strstr(v, "traceparent"));
    resp_free(&r);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
}

/* ---- logs and metrics ---------------------------------------------------------------- */

/* Every line the server wrote (start-up, requests, a reload, shutdown) is one
 * JSON object with a non-empty msg. */
static void every_line_has_msg(const char *log)
{
    char *copy = strdup(log);
    size_t lines = 0;
    for (char *l = strtok(copy, "\n"); l != NULL; l = strtok(NULL, "\n"), lines++) {
        cJSON *o = cJSON_Parse(l);
        const char *msg = str_field(o, "msg");
        if (!cJSON_IsObject(o) || msg == NULL || msg[0] == '\0')
            fail_msg("log line without a msg: %s", l);
        cJSON_Delete(o);
    }
    assert_true(lines > 3);
    free(copy);
}

static void test_log_msg_and_levels(void **state)
{
    (void)state;
    /* At warn, neither the configuration nor the access log is written: the
     * whole log of a run with a request and a shutdown is the lines of warn
     * and error, if any. */
    const char *const args[] = {"--log-level", "warn", NULL};
    struct server s;
    assert_int_equal(server_start_quiet(&s, args), 0);
    struct resp r;
    const char *const bad_tp[] = {"X-Request-Id: at-warn", "traceparent: nonsense", NULL};
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, bad_tp, &r), 0);
    resp_free(&r);
    kill(s.pid, SIGTERM);
    assert_int_equal(server_wait(&s, 20000), 0);
    assert_false(server_log_find(&s, 0, "at-warn", NULL));
    assert_false(server_log_find(&s, 0, "\"event\":\"config\"", NULL));
    assert_false(server_log_find(&s, 0, "\"level\":\"info\"", NULL));
    assert_false(server_log_find(&s, 0, "\"level\":\"debug\"", NULL));
    server_release(&s);

    /* The environment sets the level too; at info, no debug line. */
    setenv("ACCEL_ADVISOR_LOG_LEVEL", "info", 1);
    const char *const watch[] = {"--rules-watch=false", NULL};
    assert_int_equal(server_start(&s, watch), 0);
    unsetenv("ACCEL_ADVISOR_LOG_LEVEL");
    const char *const bad_tp2[] = {"X-Request-Id: at-info", "traceparent: nonsense", NULL};
    assert_int_equal(http(&s, "GET", "/v1/rules", NULL, NULL, 0, bad_tp2, &r), 0);
    resp_free(&r);
    assert_true(server_log_wait(&s, 0, "\"request_id\":\"at-info\"", HANG_MS));
    size_t mark = server_log_len(&s);
    kill(s.pid, SIGHUP);
    assert_true(server_log_wait(&s, mark, "\"event\":\"rules_reload\"", HANG_MS));
    kill(s.pid, SIGTERM);
    assert_int_equal(server_wait(&s, 20000), 0);
    assert_true(server_log_find(&s, 0, "\"log_level\":\"info\"", NULL));
    assert_false(server_log_find(&s, 0, "traceparent_ignored", NULL));
    char *log = server_log_copy(&s, 0, NULL);
    every_line_has_msg(log);
    free(log);
    server_release(&s);

    /* A bad level is a start-up error (its message: tests/unit/service/test_config.c). */
    const char *const bad[] = {"--log-level", "loud", NULL};
    assert_int_equal(server_start(&s, bad), -1);
}

/* 304s are counted under their own code; the histogram starts at 10 us and
 * the exposition passes promtool. */
static void test_metrics(void **state)
{
    (void)state;
    char etag[64], cond[128];
    etag_of(&srv, "/v1/rules", etag, sizeof(etag));
    snprintf(cond, sizeof(cond), "If-None-Match: %s", etag);
    struct resp r;
    get(&srv, "GET", "/v1/rules", cond, &r);
    assert_int_equal(r.status, 304);
    resp_free(&r);
    /* Counted as it completes, a moment after the answer was read. */
    assert_true(metrics_wait(srv.port,
                             "accel_advisor_http_requests_total{route=\"/v1/rules\",method=\"GET\","
                             "code=\"304\"} ",
                             20000));
    get(&srv, "GET", "/metrics", NULL, &r);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body,
                           "accel_advisor_http_requests_total{route=\"/v1/rules\",method=\"GET\","
                           "code=\"304\"} "));
    assert_non_null(strstr(r.body, "accel_advisor_http_request_duration_seconds_bucket{route="
                                   "\"/v1/rules\",le=\"1e-05\"} "));
    check_promtool(&r);
    resp_free(&r);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest shared[] = {
        cmocka_unit_test(test_etag_routes),           cmocka_unit_test(test_etag_differs),
        cmocka_unit_test(test_cache_control),         cmocka_unit_test(test_traceparent_continued),
        cmocka_unit_test(test_traceparent_new_trace), cmocka_unit_test(test_metrics),
    };
    const struct CMUnitTest own[] = {
        cmocka_unit_test(test_etag_after_reload),
        cmocka_unit_test(test_cors_headers),
        cmocka_unit_test(test_log_msg_and_levels),
    };
    int failed = HARNESS_RUN("integration.conventions", shared, setup, teardown);
    failed += HARNESS_RUN("integration.conventions.own", own, NULL, NULL);
    return failed;
}
