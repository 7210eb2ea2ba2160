/* tests/unit/service/test_metrics.c -- service/src/metrics.c: counters, the
 * histogram, label escaping, /proc/self, and an exposition promtool accepts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "metrics.h"

static struct svc_metrics m;

static const struct svc_metrics_info info = {
    .version = "1.2.3",
    .mhd_version = "0.9.75",
    .contract_version = "1.0.0",
    .rules_version = "abc123",
    .rules_origin = "/etc/rules \"quoted\" \\ back",
    .rules_count = 63,
    .accelerator_count = 13,
    .threads = 4,
    .max_connections = 1024,
    .cache_enabled = true,
    .cache_entries = 2,
    .cache_bytes = 4096,
};

static char *render(void)
{
    size_t len = 0;
    char *text = svc_metrics_render(&m, &info, &len);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    assert_true(len > 0 && text[len - 1] == '\n');
    return text;
}

static void expect_line(const char *text, const char *line)
{
    char needle[512];
    snprintf(needle, sizeof(needle), "\n%s\n", line);
    if (strstr(text, needle) == NULL)
        fail_msg("no line \"%s\" in:\n%s", line, text);
}

static void test_counters_and_histogram(void **state)
{
    (void)state;
    svc_metrics_init(&m);
    svc_metrics_observe(&m, SVC_ROUTE_RECOMMEND, SVC_METHOD_POST, 200, 30000);       /* 30 us */
    svc_metrics_observe(&m, SVC_ROUTE_RECOMMEND, SVC_METHOD_POST, 200, 8000);        /* 8 us */
    svc_metrics_observe(&m, SVC_ROUTE_RULES, SVC_METHOD_GET, 304, 12000);            /* 12 us */
    svc_metrics_observe(&m, SVC_ROUTE_RECOMMEND, SVC_METHOD_POST, 200, 700000);      /* 0.7 ms */
    svc_metrics_observe(&m, SVC_ROUTE_RECOMMEND, SVC_METHOD_POST, 400, 50000);       /* = 50 us */
    svc_metrics_observe(&m, SVC_ROUTE_RECOMMEND, SVC_METHOD_POST, 200, 20000000000); /* 20 s */
    svc_metrics_observe(&m, SVC_ROUTE_UNMATCHED, SVC_METHOD_OTHER, 404, 1000);
    svc_metrics_observe(&m, SVC_ROUTE_RULES, SVC_METHOD_GET, 299, 1000); /* counted as 500 */
    svc_metrics_recommendation(&m, DC_FAMILY_TPU);
    svc_metrics_recommendation(&m, SVC_METRICS_FAMILY_NONE);
    svc_metrics_recommendation(&m, 99);
    svc_metrics_reload(&m, true, 1700000000);
    svc_metrics_reload(&m, false, 1700000100);
    atomic_store(&m.inflight, 3);
    atomic_store(&m.cache_hits, 5);
    char *t = render();
    expect_line(t,
                "accel_advisor_http_requests_total{route=\"/v1/recommendations\",method=\"POST\","
                "code=\"200\"} 4");
    expect_line(t,
                "accel_advisor_http_requests_total{route=\"/v1/recommendations\",method=\"POST\","
                "code=\"400\"} 1");
    expect_line(t, "accel_advisor_http_requests_total{route=\"unmatched\",method=\"other\","
                   "code=\"404\"} 1");
    expect_line(t, "accel_advisor_http_requests_total{route=\"/v1/rules\",method=\"GET\","
                   "code=\"500\"} 1");
    expect_line(t, "accel_advisor_http_requests_total{route=\"/v1/rules\",method=\"GET\","
                   "code=\"304\"} 1");
    /* Buckets are cumulative; le is inclusive; +Inf equals _count. The first
     * bound is 10 us. */
    expect_line(t,
                "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/recommendations\","
                "le=\"1e-05\"} 1");
    expect_line(t,
                "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/recommendations\","
                "le=\"2.5e-05\"} 1");
    expect_line(t, "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/rules\","
                   "le=\"1e-05\"} 1");
    expect_line(t, "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/rules\","
                   "le=\"2.5e-05\"} 2");
    expect_line(t,
                "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/recommendations\","
                "le=\"5e-05\"} 3");
    expect_line(t,
                "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/recommendations\","
                "le=\"0.0005\"} 3");
    expect_line(t,
                "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/recommendations\","
                "le=\"0.001\"} 4");
    expect_line(t,
                "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/recommendations\","
                "le=\"10\"} 4");
    expect_line(t,
                "accel_advisor_http_request_duration_seconds_bucket{route=\"/v1/recommendations\","
                "le=\"+Inf\"} 5");
    expect_line(
        t, "accel_advisor_http_request_duration_seconds_count{route=\"/v1/recommendations\"} 5");
    expect_line(t, "accel_advisor_http_request_duration_seconds_sum{route=\"/v1/recommendations\"} "
                   "20.000788000");
    /* Routes without requests have no series. */
    assert_null(strstr(t, "route=\"/openapi.yaml\""));
    expect_line(t, "accel_advisor_recommendations_total{family=\"tpu\"} 1");
    expect_line(t, "accel_advisor_recommendations_total{family=\"none\"} 2");
    expect_line(t, "accel_advisor_recommendations_total{family=\"gpu\"} 0");
    expect_line(t, "accel_advisor_rule_reloads_total{result=\"success\"} 1");
    expect_line(t, "accel_advisor_rule_reloads_total{result=\"failure\"} 1");
    expect_line(t, "accel_advisor_rules_last_success_timestamp_seconds 1700000000");
    expect_line(t, "accel_advisor_inflight_requests 3");
    expect_line(t, "accel_advisor_recommendation_cache_requests_total{result=\"hit\"} 5");
    expect_line(t, "accel_advisor_build_info{version=\"1.2.3\",contract=\"1.0.0\","
                   "libmicrohttpd=\"0.9.75\"} 1");
    /* Label values are escaped. */
    expect_line(t, "accel_advisor_rules_info{version=\"abc123\",origin=\"/etc/rules \\\"quoted\\\" "
                   "\\\\ back\"} 1");
    /* One HELP and one TYPE per family. */
    const char *p = t;
    int types = 0, helps = 0;
    while ((p = strstr(p, "# TYPE accel_advisor_http_requests_total ")) != NULL) {
        types++;
        p++;
    }
    p = t;
    while ((p = strstr(p, "# HELP accel_advisor_http_requests_total ")) != NULL) {
        helps++;
        p++;
    }
    assert_int_equal(types, 1);
    assert_int_equal(helps, 1);
    free(t);
}

/* Explanations: by kind asked, cut short by budget, and their duration. */
static void test_explanations(void **state)
{
    (void)state;
    svc_metrics_init(&m);
    char *t = render();
    /* Present from the start, at zero, so a dashboard has the series. */
    expect_line(t, "accel_advisor_explanations_total{kind=\"changes\"} 0");
    expect_line(t, "accel_advisor_explanation_duration_seconds_count 0");
    free(t);
    /* 0.4 ms, exactly 2 ms (le is inclusive), and 30 ms. */
    unsigned both = DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS;
    svc_metrics_explanation(&m, both, DC_EXPLAIN_COMPLETE, 400000);
    svc_metrics_explanation(&m, DC_EXPLAIN_ROBUSTNESS, DC_EXPLAIN_STOP_TIME, 2000000);
    svc_metrics_explanation(&m, DC_EXPLAIN_CHANGES, DC_EXPLAIN_STOP_EVALUATIONS, 30000000);
    t = render();
    expect_line(t, "accel_advisor_explanations_total{kind=\"changes\"} 2");
    expect_line(t, "accel_advisor_explanations_total{kind=\"robustness\"} 2");
    expect_line(t, "accel_advisor_explanations_stopped_total{budget=\"evaluations\"} 1");
    expect_line(t, "accel_advisor_explanations_stopped_total{budget=\"time\"} 1");
    expect_line(t, "accel_advisor_explanation_duration_seconds_bucket{le=\"0.0005\"} 1");
    expect_line(t, "accel_advisor_explanation_duration_seconds_bucket{le=\"0.001\"} 1");
    expect_line(t, "accel_advisor_explanation_duration_seconds_bucket{le=\"0.002\"} 2");
    expect_line(t, "accel_advisor_explanation_duration_seconds_bucket{le=\"0.025\"} 2");
    expect_line(t, "accel_advisor_explanation_duration_seconds_bucket{le=\"0.05\"} 3");
    expect_line(t, "accel_advisor_explanation_duration_seconds_bucket{le=\"+Inf\"} 3");
    expect_line(t, "accel_advisor_explanation_duration_seconds_sum 0.032400000");
    expect_line(t, "accel_advisor_explanation_duration_seconds_count 3");
    free(t);
}

static void test_process_stats(void **state)
{
    (void)state;
    struct svc_process_stats ps;
    svc_process_stats_read(&ps);
    assert_true(ps.cpu_seconds >= 0);
    assert_true(ps.resident_bytes > 1024 * 1024);
    assert_true(ps.virtual_bytes >= ps.resident_bytes);
    assert_true(ps.open_fds >= 3);
    assert_true(ps.max_fds >= ps.open_fds);
    assert_true(ps.start_time_seconds > 1.5e9);
}

static void test_promtool(void **state)
{
    (void)state;
    if (system("command -v promtool >/dev/null 2>&1") != 0) {
        /* scripts/deps.sh test installs it: a missing promtool is a failure. */
        fail_msg("promtool (Debian package prometheus) is not installed");
    }
    svc_metrics_init(&m);
    for (int r = 0; r < SVC_ROUTE_COUNT; r++)
        svc_metrics_observe(&m, (enum svc_route)r, SVC_METHOD_GET, 200, (uint64_t)r * 100000);
    svc_metrics_recommendation(&m, DC_FAMILY_GPU);
    svc_metrics_explanation(&m, DC_EXPLAIN_CHANGES, DC_EXPLAIN_STOP_TIME, 2500000);
    char *t = render();
    char path[] = "/tmp/aa-prom-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, t, strlen(t)), (ssize_t)strlen(t));
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
    int rc = system(cmd);
    unlink(path);
    if (rc != 0)
        fail_msg("promtool check metrics: %d\n%s", rc, t);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_and_histogram),
        cmocka_unit_test(test_explanations),
        cmocka_unit_test(test_process_stats),
        cmocka_unit_test(test_promtool),
    };
    return cmocka_run_group_tests_name("service.metrics", tests, NULL, NULL);
}
