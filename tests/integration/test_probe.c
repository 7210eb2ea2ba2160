/* tests/integration/test_probe.c -- the accelerator probe inside the real server:
 * GET /v1/inventory, the probe metrics, availability in recommendations, the
 * probe settings, a failing source, a probe past its timeout, and a rule reload
 * while probing. The hosts are the fixture trees of tests/fixtures/hosts, NVML
 * the test library of tests/unit/probe/fake_nvml.c.
 *
 * usage: integration_probe ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "harness.h"

#ifndef FAKE_NVML_LIB
#error "FAKE_NVML_LIB must name the test NVML library"
#endif

/* A workload every GPU of the fixtures can take, on at most two of them (so the
 * H100 host's three free GPUs hold its configuration). In the cloud: on premises
 * an H100 is bought as an 8-GPU HGX machine (catalog.yaml, on_prem_unit), which
 * two chips cannot hold. */
static const char workload[] = "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":7e9},"
                               "\"constraints\":{\"max_accelerators\":2}%s}";

/* Start `serve --probe` on fixture host `host` with extra arguments. */
static void start_on_host(struct server *s, const char *host, const char *nvml,
                          const char *nvml_conf, const char *const *extra)
{
    static char sys[1024], dev[1024], proc[1024], conf[1024];
    snprintf(sys, sizeof(sys), "%s/tests/fixtures/hosts/%s/sys", h_source_dir, host);
    snprintf(dev, sizeof(dev), "%s/tests/fixtures/hosts/%s/dev", h_source_dir, host);
    snprintf(proc, sizeof(proc), "%s/tests/fixtures/hosts/%s/proc", h_source_dir, host);
    if (nvml_conf != NULL && nvml_conf[0] == '/') { /* a file of the test's own */
        snprintf(conf, sizeof(conf), "%s", nvml_conf);
        setenv("FAKE_NVML_CONFIG", conf, 1);
    } else if (nvml_conf != NULL) {
        snprintf(conf, sizeof(conf), "%s/tests/fixtures/hosts/%s/%s", h_source_dir, host,
                 nvml_conf);
        setenv("FAKE_NVML_CONFIG", conf, 1);
    } else {
        unsetenv("FAKE_NVML_CONFIG");
    }
    const char *args[32] = {"--probe", "--probe-interval", "200ms", "--sysfs-root",
                            sys,       "--dev-root",       dev,     "--proc-root",
                            proc,      "--nvml",           nvml};
    size_t n = 11;
    for (size_t i = 0; extra != NULL && extra[i] != NULL && n < 31; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    assert_int_equal(server_start(s, args), 0);
}

/* GET /v1/inventory until it answers 200 (the first probe may still run). */
static cJSON *inventory(struct server *s, int timeout_ms)
{
    for (int waited = 0;; waited += 50) {
        struct resp r;
        assert_int_equal(http_get(s, "/v1/inventory", &r), 0);
        if (r.status == 200) {
            check_contract(&r, "GET", "/v1/inventory");
            cJSON *j = resp_json(&r);
            resp_free(&r);
            assert_non_null(j);
            return j;
        }
        expect_problem(&r, 503, "tag:accel-advisor,2025:not-ready", "GET", "/v1/inventory");
        char ra[16];
        assert_true(resp_header(&r, "Retry-After", ra, sizeof(ra)));
        resp_free(&r);
        if (waited >= timeout_ms)
            fail_msg("no snapshot after %d ms", timeout_ms);
        h_sleep_ms(50);
    }
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        fail_msg("%s is not a number", key);
    return v->valuedouble;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v == NULL)
        fail_msg("no member %s", key);
    return v;
}

/* The value of the first metric line starting with `series` ("name{labels}"). */
static double metric(const char *body, const char *series)
{
    double v = 0;
    if (!metric_find(body, series, &v))
        fail_msg("no metric %s", series);
    return v;
}

/* The candidate for accelerator `id` in a Recommendation (recommended or excluded). */
static const cJSON *candidate(const cJSON *rec, const char *id)
{
    const cJSON *c = rec_candidate(rec, id);
    if (c == NULL)
        fail_msg("no candidate %s", id);
    return c;
}

static bool has_reason(const cJSON *c, const char *rule)
{
    const cJSON *r = rec_reason(c, rule);
    if (r != NULL)
        assert_string_equal(str_field(r, "source"), "probe");
    return r != NULL;
}

static cJSON *recommend(struct server *s, bool prefer)
{
    char body[512];
    snprintf(body, sizeof(body), workload, prefer ? ",\"prefer_available\":true" : "");
    struct resp r;
    assert_int_equal(http_post_json(s, "/v1/recommendations", body, &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "POST", "/v1/recommendations");
    cJSON *j = resp_json(&r);
    resp_free(&r);
    return j;
}

static void test_h100_host(void **state)
{
    (void)state;
    struct server s;
    const char *const node[] = {"--node-name", "hgx-1", NULL};
    start_on_host(&s, "h100x8", FAKE_NVML_LIB, "nvml.conf", node);
    cJSON *inv = inventory(&s, HANG_MS);
    const cJSON *counts = get(inv, "counts");
    assert_true(num(counts, "devices") == 8); /* NVSwitches, NIC and audio left out */
    assert_true(num(counts, "in_use") == 4);
    assert_true(num(counts, "free") == 3);
    assert_true(num(counts, "error") == 1);
    assert_string_equal(str_field(get(get(inv, "sources"), "nvml"), "state"), "ok");
    assert_string_equal(str_field(inv, "nvml_driver_version"), "550.54.15");
    const cJSON *d0 = cJSON_GetArrayItem(get(inv, "devices"), 0);
    assert_string_equal(str_field(d0, "catalog_id"), "h100");
    assert_string_equal(str_field(d0, "source"), "nvml");
    assert_true(num(get(inv, "probe"), "runs") >= 1);
    assert_true(num(inv, "age_seconds") >= 0);
    cJSON_Delete(inv);

    /* Availability on every candidate; the bonus only when asked for. */
    cJSON *rec = recommend(&s, false);
    const cJSON *h100 = candidate(rec, "h100");
    const cJSON *av = get(h100, "availability");
    assert_true(num(av, "attached") == 8); /* the failing one is attached, not lost */
    assert_true(num(av, "free") == 3);
    assert_true(num(av, "memory_free_gb") > 200);
    assert_false(has_reason(h100, "probe.available"));
    assert_true(cJSON_IsTrue(get(av, "configuration_free"))); /* 1 x 2 H100 on 3 free */
    const cJSON *a100 = get(candidate(rec, "a100"), "availability");
    assert_true(num(a100, "attached") == 0);
    assert_true(num(a100, "free") == 0);
    double soft_plain = num(get(h100, "selection"), "soft_points");
    double adjust_plain = num(get(h100, "selection"), "adjustment");
    cJSON_Delete(rec);
    rec = recommend(&s, true);
    h100 = candidate(rec, "h100");
    assert_true(has_reason(h100, "probe.available"));
    assert_false(has_reason(candidate(rec, "a100"), "probe.available"));
    /* Free chips count as availability_points (20) of soft points, which move
     * the H100's objective value down (docs/scoring.md, section 7). */
    assert_true(num(get(h100, "selection"), "soft_points") == soft_plain + 20);
    assert_true(num(get(h100, "selection"), "adjustment") < adjust_plain);
    cJSON_Delete(rec);

    /* Metrics: devices by vendor and model, memory, utilisation, probe timing. */
    struct resp r;
    assert_int_equal(http_get(&s, "/metrics", &r), 0);
    assert_int_equal(r.status, 200);
    /* Devices by vendor and model, and one series per device labelled with its
     * PCI address, vendor, catalog id and node, free included (docs/probe.md). */
    assert_true(metric(r.body, "accel_advisor_probe_devices{vendor=\"nvidia\",model=\"h100\","
                               "state=\"attached\",node=\"hgx-1\"}") == 8);
    assert_true(metric(r.body, "accel_advisor_probe_devices{vendor=\"nvidia\",model=\"h100\","
                               "state=\"free\",node=\"hgx-1\"}") == 3);
    assert_true(metric(r.body,
                       "accel_advisor_probe_device_utilization_ratio{device="
                       "\"0000:1b:00.0\",vendor=\"nvidia\",model=\"h100\",node=\"hgx-1\"}") ==
                0.97);
    assert_true(metric(r.body, "accel_advisor_probe_device_up{device=\"0000:d1:00.0\","
                               "vendor=\"nvidia\",model=\"h100\",node=\"hgx-1\"}") == 0);
    assert_true(metric(r.body,
                       "accel_advisor_probe_device_memory_total_bytes{device="
                       "\"0000:43:00.0\",vendor=\"nvidia\",model=\"h100\",node=\"hgx-1\"}") > 8e10);
    assert_true(metric(r.body, "accel_advisor_probe_device_free{device=\"0000:43:00.0\","
                               "vendor=\"nvidia\",model=\"h100\",node=\"hgx-1\"}") == 1);
    assert_true(metric(r.body, "accel_advisor_probe_device_free{device=\"0000:1b:00.0\","
                               "vendor=\"nvidia\",model=\"h100\",node=\"hgx-1\"}") == 0);
    assert_true(metric(r.body, "accel_advisor_probe_runs_total") >= 1);
    assert_true(metric(r.body, "accel_advisor_probe_errors_total{source=\"nvml\"}") == 0);
    assert_true(metric(r.body, "accel_advisor_probe_duration_seconds") > 0);
    assert_true(metric(r.body, "accel_advisor_probe_last_success_timestamp_seconds") >
                (double)time(NULL) - 60);
    check_promtool(&r);
    resp_free(&r);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
}

/* TPUs and AMD GPUs without NVML: availability from /proc holders and amdgpu. */
static void test_tpu_and_amd_hosts(void **state)
{
    (void)state;
    struct server s;
    start_on_host(&s, "tpu-v5e-x4", "off", NULL, NULL);
    cJSON *inv = inventory(&s, HANG_MS);
    assert_true(num(get(inv, "counts"), "devices") == 4);
    assert_string_equal(str_field(get(get(inv, "sources"), "nvml"), "state"), "off");
    cJSON_Delete(inv);
    char body[] = "{\"task\":\"inference\",\"model\":{\"parameters\":1e9},"
                  "\"framework\":\"jax\",\"prefer_available\":true}";
    struct resp r;
    assert_int_equal(http_post_json(&s, "/v1/recommendations", body, &r), 0);
    assert_int_equal(r.status, 200);
    cJSON *rec = resp_json(&r);
    resp_free(&r);
    const cJSON *v5e = candidate(rec, "tpu-v5e");
    assert_true(num(get(v5e, "availability"), "attached") == 4);
    assert_true(num(get(v5e, "availability"), "free") == 3); /* pid 4242 holds chip 0 */
    cJSON_Delete(rec);
    assert_int_equal(server_stop(&s, SIGTERM), 0);

    start_on_host(&s, "mi300x-x2", "off", NULL, NULL);
    inv = inventory(&s, HANG_MS);
    const cJSON *d = cJSON_GetArrayItem(get(inv, "devices"), 0);
    assert_string_equal(str_field(d, "catalog_id"), "mi300x");
    assert_string_equal(str_field(d, "source"), "sysfs");
    assert_true(cJSON_IsNull(get(d, "in_use")));
    cJSON_Delete(inv);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
}

/* An NVML library that is not there: the source fails, the PCI scan still
 * reports the GPUs with catalog memory, and the error is counted. */
static void test_failing_source(void **state)
{
    (void)state;
    struct server s;
    start_on_host(&s, "h100x8", "/nonexistent/libnvidia-ml.so.1", NULL, NULL);
    cJSON *inv = inventory(&s, HANG_MS);
    const cJSON *nvml = get(get(inv, "sources"), "nvml");
    assert_string_equal(str_field(nvml, "state"), "error");
    assert_non_null(str_field(nvml, "message"));
    assert_true(num(get(inv, "counts"), "devices") == 8);
    const cJSON *d0 = cJSON_GetArrayItem(get(inv, "devices"), 0);
    assert_string_equal(str_field(d0, "source"), "pci");
    assert_true(num(d0, "memory_total_bytes") == 80.0 * 1024 * 1024 * 1024);
    cJSON_Delete(inv);
    struct resp r;
    assert_int_equal(http_get(&s, "/metrics", &r), 0);
    assert_true(metric(r.body, "accel_advisor_probe_errors_total{source=\"nvml\"}") >= 1);
    assert_true(metric(r.body, "accel_advisor_probe_errors_total{source=\"pci\"}") == 0);
    resp_free(&r);
    /* Without NVML nothing says a GPU is idle: attached, none free. */
    cJSON *rec = recommend(&s, true);
    const cJSON *h100 = candidate(rec, "h100");
    assert_true(num(get(h100, "availability"), "attached") == 8);
    assert_true(num(get(h100, "availability"), "free") == 0);
    assert_false(has_reason(h100, "probe.available"));
    cJSON_Delete(rec);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
}

/* A slow driver: 503 until the first snapshot, then the probe in progress past
 * the timeout is counted once and flagged, and requests never wait on it. The
 * driver's initialisation is held (the test NVML's init_gate) until the test
 * has seen all of that, so none of it depends on how fast the machine is. */
static void test_slow_probe(void **state)
{
    (void)state;
    char conf[] = "/tmp/aa-nvml-slow-XXXXXX", gate[64];
    int fd = mkstemp(conf);
    assert_true(fd >= 0);
    snprintf(gate, sizeof(gate), "%s.gate", conf);
    char text[128];
    int tl = snprintf(text, sizeof(text), "init_gate %s\n", gate);
    assert_int_equal(write(fd, text, (size_t)tl), (ssize_t)tl);
    close(fd);
    struct server s;
    setenv("FAKE_NVML_CONFIG", conf, 1); /* the server inherits it */
    char sys[1024], dev[1024], proc[1024];
    snprintf(sys, sizeof(sys), "%s/tests/fixtures/hosts/h100x8/sys", h_source_dir);
    snprintf(dev, sizeof(dev), "%s/tests/fixtures/hosts/h100x8/dev", h_source_dir);
    snprintf(proc, sizeof(proc), "%s/tests/fixtures/hosts/h100x8/proc", h_source_dir);
    const char *args[] = {"--probe",     "--probe-interval",
                          "10s",         "--probe-timeout",
                          "300ms",       "--sysfs-root",
                          sys,           "--dev-root",
                          dev,           "--proc-root",
                          proc,          "--nvml",
                          FAKE_NVML_LIB, NULL};
    assert_int_equal(server_start(&s, args), 0);
    struct resp r;
    assert_int_equal(http_get(&s, "/v1/inventory", &r), 0);
    expect_problem(&r, 503, "tag:accel-advisor,2025:not-ready", "GET", "/v1/inventory");
    resp_free(&r);
    /* Recommendations do not wait: every candidate attached 0 until a snapshot. */
    cJSON *rec = recommend(&s, true);
    assert_true(num(get(candidate(rec, "h100"), "availability"), "attached") == 0);
    cJSON_Delete(rec);
    /* The held probe passes its 300 ms timeout: counted once, however often it
     * is looked at, and still in progress. */
    static const char timeouts[] = "accel_advisor_probe_errors_total{source=\"timeout\"}";
    assert_int_equal(metric_wait(s.port, timeouts, 1, HANG_MS), 1);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(http_get(&s, "/metrics", &r), 0);
        assert_true(metric(r.body, timeouts) == 1);
        assert_true(metric(r.body, "accel_advisor_probe_in_progress_seconds") > 0.3);
        resp_free(&r);
    }
    assert_true(server_log_wait(&s, 0, "\"event\":\"probe_timeout\"", HANG_MS));
    /* Let the driver go: the probe ends and its snapshot is served. */
    fd = open(gate, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);
    cJSON *inv = inventory(&s, HANG_MS);
    assert_true(num(get(inv, "counts"), "devices") == 8);
    assert_true(cJSON_IsFalse(get(get(inv, "probe"), "stuck")));
    cJSON_Delete(inv);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    unlink(gate);
    unlink(conf);
    unsetenv("FAKE_NVML_CONFIG");
}

/* Probes that take longer than their interval plus timeout leave the snapshot
 * stale between them: answers go on with it, marked stale, with the warning. */
static void test_stale_probe(void **state)
{
    (void)state;
    char conf[] = "/tmp/aa-nvml-stale-XXXXXX";
    int fd = mkstemp(conf);
    assert_true(fd >= 0);
    static const char text[] = "init_delay_ms 1500\n"; /* every probe, past 100 + 100 ms */
    assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
    close(fd);
    const char *const extra[] = {"--probe-timeout", "100ms", "--probe-interval", "100ms", NULL};
    struct server s;
    start_on_host(&s, "h100x8", FAKE_NVML_LIB, conf, extra);
    cJSON_Delete(inventory(&s, 60000));
    cJSON *rec = NULL;
    for (int waited = 0;; waited += 50) {
        rec = recommend(&s, true);
        const cJSON *av = get(candidate(rec, "h100"), "availability");
        if (cJSON_IsTrue(get(av, "stale")))
            break;
        cJSON_Delete(rec);
        if (waited > 60000)
            fail_msg("the availability never turned stale");
        h_sleep_ms(50);
    }
    const cJSON *av = get(candidate(rec, "h100"), "availability");
    assert_true(num(av, "age_seconds") > 0.2);
    assert_string_equal(str_field(av, "source"), "probe");
    const cJSON *w = NULL;
    bool warned = false;
    cJSON_ArrayForEach(w, get(rec, "warnings"))
    {
        warned = warned || strcmp(str_field(w, "code"), "availability_stale") == 0;
    }
    assert_true(warned);
    cJSON_Delete(rec);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    unlink(conf);
    unsetenv("FAKE_NVML_CONFIG");
}

/* A reload that changes the rule set restarts the probe with the new catalog;
 * SIGHUP asks for a fresh probe. */
static void test_reload_while_probing(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_int_equal(copy_rules(dir), 0);
    struct server s;
    const char *extra[] = {"--rules", dir, "--rules-watch=false", NULL};
    start_on_host(&s, "tpu-v4-x4", "off", NULL, extra);
    cJSON *inv = inventory(&s, HANG_MS);
    double runs = num(get(inv, "probe"), "runs");
    cJSON_Delete(inv);
    assert_int_equal(touch_rules(dir, 1), 0);
    size_t from = server_log_len(&s);
    kill(s.pid, SIGHUP);
    assert_true(server_log_wait(&s, from, "\"changed\":true", HANG_MS));
    /* The restarted worker probes at once; until it has, the last snapshot
     * stays served. Its runs add to the totals of the worker it replaced. */
    for (int waited = 0;; waited += 50) {
        inv = inventory(&s, HANG_MS);
        assert_true(num(get(inv, "counts"), "devices") == 4);
        assert_string_equal(str_field(cJSON_GetArrayItem(get(inv, "devices"), 0), "catalog_id"),
                            "tpu-v4");
        bool more = num(get(inv, "probe"), "runs") > runs;
        cJSON_Delete(inv);
        if (more)
            break;
        if (waited >= HANG_MS)
            fail_msg("no probe counted after the reload in %d ms", HANG_MS);
        h_sleep_ms(50);
    }
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    remove_tree(dir);
    free(dir);
}

/* Run `serve` with `args` (a shell fragment) and `env` (NULL or "NAME=value")
 * expecting it to refuse to start: exit 2 and `want` in what it printed. */
static void expect_refused(const char *env, const char *args, const char *want)
{
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof(cmd), "env %s '%s' serve --listen 127.0.0.1:0 %s 2>&1",
             env != NULL ? env : "", h_binary, args);
    FILE *fp = popen(cmd, "r");
    assert_non_null(fp);
    size_t n = fread(out, 1, sizeof(out) - 1, fp);
    out[n] = '\0';
    int st = pclose(fp);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 2 || strstr(out, want) == NULL)
        fail_msg("`%s`: status %d, output:\n%s\nwanted exit 2 and \"%s\"", cmd, st, out, want);
}

/* Bad probe settings are refused at start-up, naming the setting. */
static void test_bad_settings(void **state)
{
    (void)state;
    expect_refused(NULL, "--probe --probe-interval 10ms",
                   "flag --probe-interval: probe_interval: 10ms is out of range");
    expect_refused(NULL, "--probe --probe-interval soon", "is not a duration");
    expect_refused(NULL, "--probe --probe-timeout 0", "out of range");
    expect_refused(NULL, "--probe --nvml ''", "flag --nvml: nvml: must not be empty");
    expect_refused(NULL, "--sysfs-root=", "flag --sysfs-root: sysfs_root: must not be empty");
    /* ACCEL_ADVISOR_* settings are checked as flags are. */
    expect_refused("ACCEL_ADVISOR_PROBE_INTERVAL=1ms", "--probe",
                   "environment ACCEL_ADVISOR_PROBE_INTERVAL");
}

/* With a probe every body carries live availability, so the response cache's
 * key holds the snapshot's generation next to the rules version: a repeated
 * request within one snapshot is a hit (the key was longer than the cache took,
 * and it never hit), and one after the next snapshot is computed again. */
static void test_cache_with_probe(void **state)
{
    (void)state;
    struct server s;
    static const char *const slow[] = {"--probe-interval", "1h", NULL};
    start_on_host(&s, "h100x8", FAKE_NVML_LIB, "nvml.conf", slow);
    cJSON_Delete(inventory(&s, HANG_MS)); /* the first snapshot is in; the next in an hour */
    long hits = scrape_metric(s.port, "accel_advisor_recommendation_cache_requests_total{result="
                                      "\"hit\"}");
    assert_int_equal(hits, 0);
    cJSON *first = recommend(&s, false);
    cJSON *second = recommend(&s, false);
    assert_int_equal(scrape_metric(s.port, "accel_advisor_recommendation_cache_requests_total{"
                                           "result=\"hit\"}"),
                     1);
    /* The same body but for its request id, availability included. */
    cJSON_DeleteItemFromObjectCaseSensitive(first, "request_id");
    cJSON_DeleteItemFromObjectCaseSensitive(second, "request_id");
    assert_true(cJSON_Compare(first, second, true));
    assert_true(num(get(candidate(second, "h100"), "availability"), "free") == 3);
    cJSON_Delete(first);
    cJSON_Delete(second);
    /* SIGHUP asks for a fresh probe: a new generation, so a miss, then a hit. */
    long runs = scrape_metric(s.port, "accel_advisor_probe_runs_total");
    kill(s.pid, SIGHUP);
    assert_int_equal(metric_wait(s.port, "accel_advisor_probe_runs_total", runs + 1, HANG_MS),
                     runs + 1);
    long misses = scrape_metric(s.port, "accel_advisor_recommendation_cache_requests_total{"
                                        "result=\"miss\"}");
    cJSON_Delete(recommend(&s, false));
    cJSON_Delete(recommend(&s, false));
    assert_int_equal(scrape_metric(s.port, "accel_advisor_recommendation_cache_requests_total{"
                                           "result=\"miss\"}"),
                     misses + 1);
    assert_int_equal(scrape_metric(s.port, "accel_advisor_recommendation_cache_requests_total{"
                                           "result=\"hit\"}"),
                     2);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
}

/* Without --probe (nor --fleet-prometheus): 404 on the inventory and the fleet,
 * availability null everywhere. */
static void test_probe_off(void **state)
{
    (void)state;
    struct server s;
    assert_int_equal(server_start(&s, NULL), 0);
    struct resp r;
    assert_int_equal(http_get(&s, "/v1/inventory", &r), 0);
    expect_problem(&r, 404, "tag:accel-advisor,2025:probe-disabled", "GET", "/v1/inventory");
    resp_free(&r);
    assert_int_equal(http_get(&s, "/v1/fleet", &r), 0);
    expect_problem(&r, 404, "tag:accel-advisor,2025:fleet-disabled", "GET", "/v1/fleet");
    resp_free(&r);
    cJSON *rec = recommend(&s, true);
    assert_true(cJSON_IsNull(get(candidate(rec, "h100"), "availability")));
    assert_false(has_reason(candidate(rec, "h100"), "probe.available"));
    cJSON_Delete(rec);
    assert_int_equal(http_get(&s, "/metrics", &r), 0);
    assert_null(strstr(r.body, "accel_advisor_probe_"));
    resp_free(&r);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100_host),        cmocka_unit_test(test_tpu_and_amd_hosts),
        cmocka_unit_test(test_failing_source),   cmocka_unit_test(test_slow_probe),
        cmocka_unit_test(test_stale_probe),      cmocka_unit_test(test_reload_while_probing),
        cmocka_unit_test(test_bad_settings),     cmocka_unit_test(test_probe_off),
        cmocka_unit_test(test_cache_with_probe),
    };
    return HARNESS_RUN("probe", tests, NULL, NULL);
}
