/* tests/unit/service/test_config.c -- service/src/config.c: defaults, the
 * precedence flag > environment > file > default, value parsing, and errors
 * that name their source. */
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

/* String literals as the char * that argv and environ hold. */
#define S(x) ((char *)(uintptr_t)(x))

static char *empty_env[] = {NULL};

static char *temp_file(const char *suffix, const char *text)
{
    static char path[256];
    snprintf(path, sizeof(path), "/tmp/aa-config-test-%d%s", (int)getpid(), suffix);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}

/* svc_config_load with its error message, if any, in why[512]. */
static enum dc_status load(int argc, char **argv, char **env, struct svc_config *cfg, char *why)
{
    struct dc_error err;
    enum dc_status rc = svc_config_load(argc, argv, env, cfg, &err);
    if (rc != DC_OK) {
        assert_int_equal(err.code, rc);
        snprintf(why, 512, "%s", err.msg);
    }
    return rc;
}

static void test_defaults(void **state)
{
    (void)state;
    struct svc_config cfg;
    char why[512];
    char *argv[] = {S("serve"), NULL};
    assert_int_equal(load(1, argv, empty_env, &cfg, why), DC_OK);
    assert_string_equal(cfg.listen, SVC_DEFAULT_LISTEN);
    assert_int_equal(cfg.threads, 0);
    assert_string_equal(cfg.rules, "");
    assert_true(cfg.rules_watch);
    assert_int_equal(cfg.max_body_bytes, SVC_DEFAULT_MAX_BODY_BYTES);
    assert_int_equal(cfg.max_json_depth, SVC_DEFAULT_MAX_JSON_DEPTH);
    assert_int_equal(cfg.max_batch, SVC_DEFAULT_MAX_BATCH);
    assert_int_equal(cfg.max_connections, SVC_DEFAULT_MAX_CONNECTIONS);
    assert_int_equal(cfg.connection_timeout_s, SVC_DEFAULT_CONNECTION_TIMEOUT_S);
    assert_int_equal(cfg.request_timeout_s, SVC_DEFAULT_REQUEST_TIMEOUT_S);
    assert_string_equal(cfg.admin_listen, "");
    assert_int_equal(cfg.max_buffered_body_bytes, SVC_DEFAULT_MAX_BUFFERED_BODY_BYTES);
    assert_int_equal(cfg.max_queued_response_bytes, SVC_DEFAULT_MAX_QUEUED_RESPONSE_BYTES);
    assert_int_equal(cfg.shutdown_grace_s, SVC_DEFAULT_SHUTDOWN_GRACE_S);
    assert_int_equal(cfg.cache_entries, SVC_DEFAULT_CACHE_ENTRIES);
    assert_int_equal(cfg.cache_max_bytes, SVC_DEFAULT_CACHE_MAX_BYTES);
    assert_string_equal(cfg.api_keys_file, "");
    assert_string_equal(cfg.cors_origins, "");
    assert_true(cfg.access_log);
    assert_string_equal(cfg.log_level, "info");
    assert_false(cfg.prefer_available);
    assert_false(cfg.probe);
    assert_int_equal(cfg.probe_interval_ms, 10000);
    assert_int_equal(cfg.probe_timeout_ms, 5000);
    assert_string_equal(cfg.sysfs_root, "/sys");
    assert_string_equal(cfg.dev_root, "/dev");
    assert_string_equal(cfg.proc_root, "/proc");
    assert_string_equal(cfg.nvml, "auto");
    for (size_t i = 0; i < svc_config_setting_count(); i++)
        assert_int_equal(cfg.source[i], SVC_SRC_DEFAULT);
}

/* Durations: N seconds, or N with ms, s, m or h; shown back in the shortest unit. */
static void test_durations(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        unsigned ms;
        const char *shown;
    } ok[] = {{"3", 3000, "3s"},          {"250ms", 250, "250ms"}, {"2s", 2000, "2s"},
              {"1500ms", 1500, "1500ms"}, {"5m", 300000, "300s"},  {"1h", 3600000, "3600s"},
              {"24h", 86400000, "86400s"}};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct svc_config cfg;
        char why[512], arg[64], shown[64];
        snprintf(arg, sizeof(arg), "--probe-interval=%s", ok[i].text);
        char *argv[] = {S("serve"), arg, NULL};
        if (load(2, argv, empty_env, &cfg, why) != DC_OK)
            fail_msg("%s: %s", ok[i].text, why);
        assert_int_equal(cfg.probe_interval_ms, ok[i].ms);
        svc_config_setting_value(&cfg, index_of("probe_interval"), shown, sizeof(shown));
        assert_string_equal(shown, ok[i].shown);
    }
    static const struct {
        const char *text;
        const char *why;
    } bad[] = {{"99ms", "99ms is out of range (100ms to 86400000ms)"},
               {"25h", "out of range"},
               {"1d", "is not a duration"},
               {"-1s", "is not a duration"},
               {"s", "is not a duration"},
               {"", "is not a duration"},
               {"99999999999999999999h", "is not a duration"},
               {"5000000000000000h", "is not a duration"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct svc_config cfg;
        char why[512], arg[64];
        snprintf(arg, sizeof(arg), "--probe-timeout=%s", bad[i].text);
        char *argv[] = {S("serve"), arg, NULL};
        assert_int_equal(load(2, argv, empty_env, &cfg, why), DC_EINVAL);
        if (strstr(why, bad[i].why) == NULL || strstr(why, "flag --probe-timeout") == NULL)
            fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].text, why, bad[i].why);
    }
}

static void test_precedence(void **state)
{
    (void)state;
    char *file = temp_file(".conf", "# a comment\n"
                                    "max_batch = 7\n"
                                    "threads = 3   # inline comment\n"
                                    "cors-origins = \"https://a.example, https://b.example\"\n"
                                    "\n"
                                    "max_body_bytes = 2MiB\n");
    char cfgarg[300];
    snprintf(cfgarg, sizeof(cfgarg), "--config=%s", file);
    char *env[] = {S("ACCEL_ADVISOR_THREADS=5"), S("ACCEL_ADVISOR_MAX_JSON_DEPTH=9"),
                   S("PATH=/bin"), NULL};
    char *argv[] = {S("serve"), cfgarg, S("--max-json-depth"), S("11"), S("--access-log=no"), NULL};
    struct svc_config cfg;
    char why[512];
    assert_int_equal(load(5, argv, env, &cfg, why), DC_OK);
    assert_int_equal(cfg.max_batch, 7);             /* file */
    assert_int_equal(cfg.threads, 5);               /* env over file */
    assert_int_equal(cfg.max_json_depth, 11);       /* flag over env */
    assert_int_equal(cfg.max_body_bytes, 2u << 20); /* suffix */
    assert_false(cfg.access_log);                   /* flag */
    assert_string_equal(cfg.cors_origins, "https://a.example, https://b.example");
    assert_int_equal(cfg.source[index_of("max_batch")], SVC_SRC_FILE);
    assert_int_equal(cfg.source[index_of("threads")], SVC_SRC_ENV);
    assert_int_equal(cfg.source[index_of("max_json_depth")], SVC_SRC_FLAG);
    assert_int_equal(cfg.source[index_of("listen")], SVC_SRC_DEFAULT);
    assert_string_equal(cfg.config_file, file);
    unlink(file);

    /* The file may also come from the environment; bare boolean flags mean true. */
    file = temp_file(".yaml", "listen: \"[::1]:9000\"\nmax_batch: 12\ncors_origins:\n"
                              "  - https://x.example\n  - https://y.example\nrules_watch: false\n"
                              "log_level: debug\n");
    char envcfg[300];
    snprintf(envcfg, sizeof(envcfg), "ACCEL_ADVISOR_CONFIG=%s", file);
    char *env2[] = {envcfg, NULL};
    char *argv2[] = {S("serve"), S("--rules-watch"), NULL};
    assert_int_equal(load(2, argv2, env2, &cfg, why), DC_OK);
    assert_string_equal(cfg.listen, "[::1]:9000");
    assert_int_equal(cfg.max_batch, 12);
    assert_string_equal(cfg.cors_origins, "https://x.example,https://y.example");
    assert_true(cfg.rules_watch);
    assert_string_equal(cfg.log_level, "debug");
    assert_int_equal(cfg.source[index_of("log_level")], SVC_SRC_FILE);
    /* The environment sets the level too, over the file. */
    char *env3[] = {envcfg, S("ACCEL_ADVISOR_LOG_LEVEL=warn"), NULL};
    assert_int_equal(load(2, argv2, env3, &cfg, why), DC_OK);
    assert_string_equal(cfg.log_level, "warn");
    unlink(file);
}

static void expect_error(int argc, char **argv, char **env, const char *needle)
{
    struct svc_config cfg;
    char why[512];
    assert_int_equal(load(argc, argv, env, &cfg, why), DC_EINVAL);
    if (strstr(why, needle) == NULL)
        fail_msg("error \"%s\" lacks \"%s\"", why, needle);
}

static void test_errors_name_their_source(void **state)
{
    (void)state;
    char *a1[] = {S("serve"), S("--max-batch"), S("0"), NULL};
    expect_error(3, a1, empty_env, "flag --max-batch: max_batch: 0 is out of range (1 to 10000)");
    char *a2[] = {S("serve"), S("--threads"), S("many"), NULL};
    expect_error(3, a2, empty_env,
                 "flag --threads: threads: \"many\" is not a non-negative integer");
    char *a3[] = {S("serve"), S("--nope"), NULL};
    expect_error(2, a3, empty_env, "unknown flag --nope");
    char *a4[] = {S("serve"), S("--listen"), NULL};
    expect_error(2, a4, empty_env, "flag --listen needs a value");
    char *a5[] = {S("serve"), S("extra"), NULL};
    expect_error(2, a5, empty_env, "unexpected argument \"extra\"");
    char *a6[] = {S("serve"), S("--listen"), S("localhost"), NULL};
    expect_error(3, a6, empty_env, "is not HOST:PORT");
    char *a7[] = {S("serve"), S("--listen"), S("127.0.0.1:70000"), NULL};
    expect_error(3, a7, empty_env, "the port must be 0 to 65535");
    char *a8[] = {S("serve"), S("--access-log=maybe"), NULL};
    expect_error(2, a8, empty_env, "is not a boolean");
    char *a9[] = {S("serve"), S("--max-body-bytes"), S("3PB"), NULL};
    expect_error(3, a9, empty_env, "is not a byte count");
    char *l1[] = {S("serve"), S("--admin-listen"), S("localhost"), NULL};
    expect_error(3, l1, empty_env,
                 "flag --admin-listen: admin_listen: \"localhost\" is not HOST:PORT");
    char *l2[] = {S("serve"), S("--max-buffered-body-bytes"), S("1KiB"), NULL};
    expect_error(3, l2, empty_env, "max_buffered_body_bytes: 1024 is out of range (65536 to");
    /* CORS origins are checked at start-up, each error naming the bad origin. */
    char *c1[] = {S("serve"), S("--cors-origins"), S("https://a.example,null"), NULL};
    expect_error(3, c1, empty_env,
                 "flag --cors-origins: cors_origins: \"null\" is not an allowed origin");
    char *c2[] = {S("serve"), NULL};
    char *c2env[] = {S("ACCEL_ADVISOR_CORS_ORIGINS=https://*.example.com"), NULL};
    expect_error(1, c2, c2env,
                 "environment ACCEL_ADVISOR_CORS_ORIGINS: cors_origins: \"https://*.example.com\" "
                 "is not an allowed origin: wildcards are not supported");
    char *a10[] = {S("serve"), S("--log-level"), S("verbose"), NULL};
    expect_error(3, a10, empty_env,
                 "flag --log-level: log_level: \"verbose\" is not debug, info, warn or error");
    char *a11[] = {S("serve"), S("--log-level"), S("INFO"), NULL};
    expect_error(3, a11, empty_env, "\"INFO\" is not debug, info, warn or error");

    char *argv[] = {S("serve"), NULL};
    char *env[] = {S("ACCEL_ADVISOR_MAX_CONNECTIONS=-3"), NULL};
    expect_error(1, argv, env, "environment ACCEL_ADVISOR_MAX_CONNECTIONS: max_connections:");

    char *file = temp_file(".conf", "threads = 2\n\nmax_batch = lots\n");
    char cfgarg[300];
    snprintf(cfgarg, sizeof(cfgarg), "--config=%s", file);
    char *b1[] = {S("serve"), cfgarg, NULL};
    char where[400];
    snprintf(where, sizeof(where), "file %s:3: max_batch: \"lots\"", file);
    expect_error(2, b1, empty_env, where);
    unlink(file);

    file = temp_file(".conf", "colour = red\n");
    snprintf(cfgarg, sizeof(cfgarg), "--config=%s", file);
    snprintf(where, sizeof(where), "file %s:1: unknown setting \"colour\"", file);
    expect_error(2, b1, empty_env, where);
    unlink(file);

    file = temp_file(".conf", "just words\n");
    snprintf(where, sizeof(where), "file %s:1: expected key = value", file);
    expect_error(2, b1, empty_env, where);
    unlink(file);

    file = temp_file(".yaml", "threads: 1\nmax_json_depth: 1000\n");
    snprintf(cfgarg, sizeof(cfgarg), "--config=%s", file);
    snprintf(where, sizeof(where), "file %s:2: max_json_depth: 1000 is out of range", file);
    expect_error(2, b1, empty_env, where);
    unlink(file);

    file = temp_file(".yaml", "- a list\n");
    snprintf(where, sizeof(where), "file %s:1: expected a mapping of settings", file);
    expect_error(2, b1, empty_env, where);
    unlink(file);

    file = temp_file(".yaml", "cors_origins:\n  - https://a.example\n  - https://a.example/app\n");
    snprintf(where, sizeof(where),
             "file %s:2: cors_origins: \"https://a.example/app\" is not an allowed origin: it "
             "has a path",
             file);
    expect_error(2, b1, empty_env, where);
    unlink(file);

    /* A NUL byte in a key = value file: an error naming its line. It cut the
     * value there and silently dropped every line after it (issue 35). */
    static const char nul_text[] = "threads = 1\nmax_batch = 5\0junk\nmax_batch = 6\n";
    file = temp_file(".conf", "");
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    assert_int_equal(fwrite(nul_text, 1, sizeof(nul_text) - 1, fp), sizeof(nul_text) - 1);
    fclose(fp);
    snprintf(cfgarg, sizeof(cfgarg), "--config=%s", file);
    snprintf(where, sizeof(where), "file %s:2: a NUL byte", file);
    expect_error(2, b1, empty_env, where);
    unlink(file);

    char *b2[] = {S("serve"), S("--config"), S("/nonexistent/accel.conf"), NULL};
    expect_error(3, b2, empty_env, "file /nonexistent/accel.conf: No such file");
}

static void test_help_and_warnings(void **state)
{
    (void)state;
    struct svc_config cfg;
    char why[512];
    char *argv[] = {S("serve"), S("--help"), NULL};
    assert_int_equal(load(2, argv, empty_env, &cfg, why), DC_OK);
    assert_true(cfg.help);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    svc_config_help(fp);
    fclose(fp);
    /* Every setting is listed with its flag, variable, key and default. */
    for (size_t i = 0; i < svc_config_setting_count(); i++) {
        const char *name = svc_config_setting_name(i);
        char env[128], flag[128];
        snprintf(env, sizeof(env), "ACCEL_ADVISOR_");
        size_t n = strlen(env);
        snprintf(flag, sizeof(flag), "--");
        size_t f = 2;
        for (const char *p = name; *p != '\0'; p++) {
            env[n++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
            flag[f++] = *p == '_' ? '-' : *p;
        }
        env[n] = '\0';
        flag[f] = '\0';
        assert_non_null(strstr(buf, env));
        assert_non_null(strstr(buf, flag));
        char key[160];
        snprintf(key, sizeof(key), "file key %s,", name);
        assert_non_null(strstr(buf, key));
    }
    free(buf);

    char *env[] = {S("ACCEL_ADVISOR_THREDS=4"), NULL};
    char *a2[] = {S("serve"), NULL};
    assert_int_equal(load(1, a2, env, &cfg, why), DC_OK);
    assert_int_equal(cfg.n_warnings, 1);
    assert_non_null(strstr(cfg.warnings[0], "ACCEL_ADVISOR_THREDS"));
    char val[64];
    svc_config_setting_value(&cfg, index_of("max_body_bytes"), val, sizeof(val));
    assert_string_equal(val, "1048576");
    svc_config_setting_value(&cfg, index_of("access_log"), val, sizeof(val));
    assert_string_equal(val, "true");
    assert_string_equal(svc_config_source_name(SVC_SRC_ENV), "environment");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),          cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_durations),         cmocka_unit_test(test_errors_name_their_source),
        cmocka_unit_test(test_help_and_warnings),
    };
    return cmocka_run_group_tests_name("service.config", tests, NULL, NULL);
}
