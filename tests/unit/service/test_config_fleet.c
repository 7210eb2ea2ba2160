/* tests/unit/service/test_config_fleet.c -- the fleet and node-agent settings of
 * service/src/config.c: their defaults, ranges and forms (a Prometheus URL, a
 * label name that goes into PromQL, a node name), the three sources like every
 * setting, and the agent's scope (its settings only, its own listen default, the
 * server's settings refused as flags and ignored with a warning elsewhere).
 * Owner: the fleet availability work (issue 19). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "setting_index.h"

#define S(x) ((char *)(uintptr_t)(x))

static char *empty_env[] = {NULL};

/* Copy the message of a failed load to why[512]; returns `rc`. */
static enum dc_status with_why(enum dc_status rc, const struct dc_error *err, char *why)
{
    if (rc != DC_OK)
        snprintf(why, 512, "%s", err->msg);
    return rc;
}

/* serve with one flag and its value; returns the status, *why the message. */
static enum dc_status serve_flag(const char *flag, const char *value, struct svc_config *cfg,
                                 char *why)
{
    char *argv[] = {S("serve"), S(flag), S(value), NULL};
    struct dc_error err;
    return with_why(svc_config_load(3, argv, empty_env, cfg, &err), &err, why);
}

static void test_fleet_defaults(void **state)
{
    (void)state;
    struct svc_config cfg;
    char *argv[] = {S("serve"), NULL};
    assert_int_equal(svc_config_load(1, argv, empty_env, &cfg, NULL), DC_OK);
    assert_string_equal(cfg.fleet_prometheus, "");
    assert_string_equal(cfg.fleet_bearer_token_file, "");
    assert_string_equal(cfg.fleet_ca_file, "");
    assert_int_equal(cfg.fleet_timeout_ms, 5000);
    assert_int_equal(cfg.fleet_interval_ms, 15000);
    assert_int_equal(cfg.fleet_stale_after_ms, 120000);
    assert_int_equal(cfg.fleet_max_response_bytes, 8u << 20);
    assert_int_equal(cfg.fleet_max_series, 20000);
    assert_string_equal(cfg.fleet_cluster_label, "cluster");
    assert_string_equal(cfg.node_name, "");
    assert_int_equal(cfg.scope, SVC_SCOPE_SERVE);
}

/* Flag over environment over file, as for every setting. */
static void test_fleet_sources(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof(path), "/tmp/aa-config-fleet-%d.yaml", (int)getpid());
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("fleet_prometheus: http://prom.file:9090\nfleet_timeout: 2s\nfleet_interval: 1m\n"
          "fleet_bearer_token_file: /var/run/token\n",
          fp);
    fclose(fp);
    char *env[] = {S("ACCEL_ADVISOR_FLEET_TIMEOUT=750ms"),
                   S("ACCEL_ADVISOR_FLEET_CA_FILE=/etc/ca.pem"), NULL};
    char *argv[] = {S("serve"), S("--config"), path, S("--fleet-interval"), S("30s"), NULL};
    struct svc_config cfg;
    assert_int_equal(svc_config_load(5, argv, env, &cfg, NULL), DC_OK);
    assert_string_equal(cfg.fleet_prometheus, "http://prom.file:9090");
    assert_int_equal(cfg.source[index_of("fleet_prometheus")], SVC_SRC_FILE);
    assert_int_equal(cfg.fleet_timeout_ms, 750);
    assert_int_equal(cfg.source[index_of("fleet_timeout")], SVC_SRC_ENV);
    assert_int_equal(cfg.fleet_interval_ms, 30000);
    assert_int_equal(cfg.source[index_of("fleet_interval")], SVC_SRC_FLAG);
    assert_string_equal(cfg.fleet_ca_file, "/etc/ca.pem");
    assert_string_equal(cfg.fleet_bearer_token_file, "/var/run/token");
    unlink(path);
}

static void test_fleet_forms(void **state)
{
    (void)state;
    struct svc_config cfg;
    char why[512];
    /* Read as libcurl reads them: an upper-case scheme is libcurl's http. */
    static const char *const good_urls[] = {"http://127.0.0.1:9090", "https://prom.example/api",
                                            "http://[::1]:9090/prefix/", "HTTP://upper",
                                            "http://h/x@y"};
    for (size_t i = 0; i < sizeof(good_urls) / sizeof(good_urls[0]); i++)
        assert_int_equal(serve_flag("--fleet-prometheus", good_urls[i], &cfg, why), DC_OK);
    static const char *const bad_urls[] = {
        "prom:9090",   "ftp://prom", "http://",      "https:///path",      "http://p/?q=1",
        "http://p/#x", "http://p q", "http://p\n/x", "file:///etc/passwd", "http://p:99999"};
    for (size_t i = 0; i < sizeof(bad_urls) / sizeof(bad_urls[0]); i++) {
        assert_int_equal(serve_flag("--fleet-prometheus", bad_urls[i], &cfg, why), DC_EINVAL);
        assert_non_null(strstr(why, "flag --fleet-prometheus"));
    }
    /* Credentials, as libcurl reads them (issue 35): they were sent as Basic
     * auth, logged and served in GET /v1/fleet. "h:p\\@other" is user "h",
     * password "p\\" and host "other" to libcurl. The message never quotes
     * the URL. */
    static const char *const with_credentials[] = {
        "http://user:pw@host",      "http://:pw@host",       "http://user@host",
        "http://h:pw\\@other",      "http://h:pw\\@other/x", "http://@host",
        "https://u;opt@host:9090/", "http://u%3Apw@host"};
    for (size_t i = 0; i < sizeof(with_credentials) / sizeof(with_credentials[0]); i++) {
        if (serve_flag("--fleet-prometheus", with_credentials[i], &cfg, why) != DC_EINVAL)
            fail_msg("%s was accepted", with_credentials[i]);
        assert_non_null(strstr(why, "credentials"));
        assert_null(strstr(why, "pw"));
        assert_null(strstr(why, "@host"));
    }
    /* The label is written into PromQL: a label name and nothing else. */
    assert_int_equal(serve_flag("--fleet-cluster-label", "k8s_cluster", &cfg, why), DC_OK);
    assert_int_equal(serve_flag("--fleet-cluster-label", "", &cfg, why), DC_OK);
    static const char *const bad_labels[] = {"cluster) or vector(1", "1cluster", "__name__",
                                             "clu-ster", "clu ster"};
    for (size_t i = 0; i < sizeof(bad_labels) / sizeof(bad_labels[0]); i++) {
        assert_int_equal(serve_flag("--fleet-cluster-label", bad_labels[i], &cfg, why), DC_EINVAL);
        assert_non_null(strstr(why, "not a Prometheus label name"));
    }
    char long_label[SVC_FLEET_LABEL_NAME_MAX + 2];
    memset(long_label, 'c', sizeof(long_label) - 1);
    long_label[sizeof(long_label) - 1] = '\0';
    assert_int_equal(serve_flag("--fleet-cluster-label", long_label, &cfg, why), DC_EINVAL);
    long_label[SVC_FLEET_LABEL_NAME_MAX] = '\0';
    assert_int_equal(serve_flag("--fleet-cluster-label", long_label, &cfg, why), DC_OK);
    assert_int_equal(serve_flag("--fleet-cluster-label", "Hostname", &cfg, why), DC_EINVAL);
    assert_non_null(strstr(why, "a label the fleet's queries read already"));
    assert_int_equal(serve_flag("--node-name", "gpu-node-07.example", &cfg, why), DC_OK);
    assert_int_equal(serve_flag("--node-name", "node\"} 1\nfake 2", &cfg, why), DC_EINVAL);
    assert_non_null(strstr(why, "not a node name"));
    char long_name[300];
    memset(long_name, 'a', 254);
    long_name[254] = '\0';
    assert_int_equal(serve_flag("--node-name", long_name, &cfg, why), DC_EINVAL);
    /* Ranges. */
    assert_int_equal(serve_flag("--fleet-timeout", "50ms", &cfg, why), DC_EINVAL);
    assert_non_null(strstr(why, "out of range"));
    assert_int_equal(serve_flag("--fleet-interval", "500ms", &cfg, why), DC_EINVAL);
    assert_int_equal(serve_flag("--fleet-max-response-bytes", "1KiB", &cfg, why), DC_EINVAL);
    assert_int_equal(serve_flag("--fleet-max-response-bytes", "512MiB", &cfg, why), DC_EINVAL);
    assert_int_equal(serve_flag("--fleet-max-series", "0", &cfg, why), DC_EINVAL);
    assert_int_equal(serve_flag("--fleet-max-series", "2000000", &cfg, why), DC_EINVAL);
    assert_int_equal(serve_flag("--fleet-stale-after", "8d", &cfg, why), DC_EINVAL);
}

static void test_agent_scope(void **state)
{
    (void)state;
    struct svc_config cfg;
    struct dc_error err;
    char why[512];
    char *argv[] = {S("agent"), S("--node-name"), S("n1"), S("--nvml"), S("off"), NULL};
    assert_int_equal(
        with_why(svc_config_load_scope(SVC_SCOPE_AGENT, 5, argv, empty_env, &cfg, &err), &err, why),
        DC_OK);
    assert_int_equal(cfg.scope, SVC_SCOPE_AGENT);
    assert_string_equal(cfg.listen, SVC_AGENT_DEFAULT_LISTEN);
    assert_string_equal(cfg.node_name, "n1");
    assert_string_equal(cfg.nvml, "off");

    /* A server setting is no agent flag ... */
    char *bad[] = {S("agent"), S("--fleet-prometheus"), S("http://p:9090"), NULL};
    assert_int_equal(
        with_why(svc_config_load_scope(SVC_SCOPE_AGENT, 3, bad, empty_env, &cfg, &err), &err, why),
        DC_EINVAL);
    assert_non_null(strstr(why, "unknown flag --fleet-prometheus"));
    /* ... but a shared environment or file may hold it: passed over. */
    char path[128];
    snprintf(path, sizeof(path), "/tmp/aa-config-agent-%d.conf", (int)getpid());
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("max_batch = 5\nprobe_interval = 2s\n", fp);
    fclose(fp);
    char *env[] = {S("ACCEL_ADVISOR_THREADS=4"), S("ACCEL_ADVISOR_NODE_NAME=from-env"), NULL};
    char *with_file[] = {S("agent"), S("--config"), path, NULL};
    assert_int_equal(
        with_why(svc_config_load_scope(SVC_SCOPE_AGENT, 3, with_file, env, &cfg, &err), &err, why),
        DC_OK);
    assert_int_equal(cfg.probe_interval_ms, 2000);
    assert_int_equal(cfg.max_batch, 100); /* the default, untouched */
    assert_int_equal(cfg.threads, 0);
    assert_string_equal(cfg.node_name, "from-env");
    assert_int_equal(cfg.n_warnings, 0);
    unlink(path);

    /* Help lists the agent's settings with its defaults, and no other. */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    svc_config_help_scope(SVC_SCOPE_AGENT, out);
    fclose(out);
    assert_non_null(strstr(buf, "usage: accel-advisor agent"));
    assert_non_null(strstr(buf, "--node-name NAME"));
    assert_non_null(strstr(buf, "default \"" SVC_AGENT_DEFAULT_LISTEN "\""));
    assert_null(strstr(buf, "--fleet-prometheus"));
    assert_null(strstr(buf, "--max-batch"));
    free(buf);
    for (size_t i = 0; i < svc_config_setting_count(); i++)
        assert_true(svc_config_setting_in_scope(i, SVC_SCOPE_SERVE));
    assert_true(svc_config_setting_in_scope(index_of("nvml"), SVC_SCOPE_AGENT));
    assert_false(svc_config_setting_in_scope(index_of("fleet_interval"), SVC_SCOPE_AGENT));
    assert_false(svc_config_setting_in_scope(svc_config_setting_count(), SVC_SCOPE_SERVE));
    enum svc_config_scope sc;
    assert_true(svc_config_command_scope("agent", &sc));
    assert_int_equal(sc, SVC_SCOPE_AGENT);
    assert_true(svc_config_command_scope("serve", &sc));
    assert_int_equal(sc, SVC_SCOPE_SERVE);
    assert_false(svc_config_command_scope("probe", &sc));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fleet_defaults),
        cmocka_unit_test(test_fleet_sources),
        cmocka_unit_test(test_fleet_forms),
        cmocka_unit_test(test_agent_scope),
    };
    return cmocka_run_group_tests_name("service.config_fleet", tests, NULL, NULL);
}
