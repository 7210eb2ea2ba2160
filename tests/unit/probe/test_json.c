/* tests/unit/probe/test_json.c -- probe/src/probe_json.c: the JSON shape
 * documented in docs/probe.md (exact key sets, nulls for unknowns, the
 * counts) and the table formatter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit/probe/probe_test_util.h"

static const cJSON *get(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL)
        fail_msg("no key \"%s\"", key);
    return v;
}

static void expect_keys(const cJSON *obj, const char *const *keys, size_t n)
{
    assert_true(cJSON_IsObject(obj));
    size_t count = 0;
    for (const cJSON *c = obj->child; c != NULL; c = c->next) {
        bool known = false;
        for (size_t i = 0; i < n; i++)
            known = known || strcmp(c->string, keys[i]) == 0;
        if (!known)
            fail_msg("unexpected key \"%s\"", c->string);
        count++;
    }
    assert_int_equal(count, n);
}

static double num(const cJSON *obj, const char *key)
{
    const cJSON *v = get(obj, key);
    if (!cJSON_IsNumber(v))
        fail_msg("\"%s\" is not a number", key);
    return v->valuedouble;
}

static const char *str(const cJSON *obj, const char *key)
{
    const cJSON *v = get(obj, key);
    if (!cJSON_IsString(v))
        fail_msg("\"%s\" is not a string", key);
    return v->valuestring;
}

static void expect_null(const cJSON *obj, const char *key)
{
    if (!cJSON_IsNull(get(obj, key)))
        fail_msg("\"%s\" is not null", key);
}

static cJSON *to_json(const struct probe_snapshot *s)
{
    cJSON *j = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(probe_snapshot_to_json(s, &j, &err), DC_OK);
    assert_non_null(j);
    /* What goes on the wire parses back to the same tree. */
    char *text = cJSON_PrintUnformatted(j);
    assert_non_null(text);
    cJSON *back = cJSON_Parse(text);
    assert_non_null(back);
    assert_true(cJSON_Compare(j, back, 1));
    cJSON_Delete(back);
    cJSON_free(text);
    return j;
}

static const char *const root_keys[] = {"timestamp", "age_seconds",       "duration_seconds",
                                        "host",      "sources",           "nvml_driver_version",
                                        "counts",    "devices_truncated", "devices",
                                        "warnings",  "warnings_dropped"};
static const char *const device_keys[] = {"vendor",
                                          "family",
                                          "catalog_id",
                                          "unknown",
                                          "name",
                                          "generation",
                                          "pci",
                                          "index",
                                          "uuid",
                                          "memory_total_bytes",
                                          "memory_used_bytes",
                                          "utilization_ratio",
                                          "in_use",
                                          "pids",
                                          "pids_truncated",
                                          "device_nodes",
                                          "source",
                                          "state",
                                          "message"};
static const char *const pci_keys[] = {"address", "vendor_id", "device_id", "subsystem_device_id",
                                       "class"};

static void test_h100_json(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, "nvml.conf");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    cJSON *j = to_json(s);
    expect_keys(j, root_keys, sizeof(root_keys) / sizeof(root_keys[0]));

    const char *ts = str(j, "timestamp");
    assert_int_equal(strlen(ts), 24); /* 2025-01-31T12:00:00.123Z */
    assert_int_equal(ts[10], 'T');
    assert_int_equal(ts[19], '.');
    assert_int_equal(ts[23], 'Z');
    assert_true(num(j, "age_seconds") >= 0);
    assert_true(num(j, "duration_seconds") > 0);

    const cJSON *host = get(j, "host");
    static const char *const host_keys[] = {"cpu_model", "logical_cores", "memory_total_bytes"};
    expect_keys(host, host_keys, 3);
    assert_string_equal(str(host, "cpu_model"), "Intel(R) Xeon(R) Platinum 8480C");
    assert_true(num(host, "logical_cores") == 224);
    assert_true(num(host, "memory_total_bytes") == 2113612436.0 * 1024);

    const cJSON *sources = get(j, "sources");
    static const char *const source_keys[] = {"pci", "nvml", "amd", "tpu", "host"};
    static const char *const report_keys[] = {"state", "code", "message"};
    expect_keys(sources, source_keys, 5);
    for (size_t i = 0; i < 5; i++)
        expect_keys(get(sources, source_keys[i]), report_keys, 3);
    assert_string_equal(str(get(sources, "nvml"), "state"), "ok");
    expect_null(get(sources, "nvml"), "code");
    expect_null(get(sources, "nvml"), "message");
    assert_string_equal(str(get(sources, "amd"), "state"), "skipped");
    assert_string_equal(str(j, "nvml_driver_version"), "550.54.15");

    const cJSON *counts = get(j, "counts");
    assert_true(num(counts, "devices") == 8);
    assert_true(num(counts, "in_use") == 4); /* GPUs 0, 2, 3, 7 */
    /* 1 and 4; 5 too: its holders are unknown but it is measured 0% busy;
     * 6 is in error. */
    assert_true(num(counts, "free") == 3);
    assert_true(num(counts, "lost") == 0);
    assert_true(num(counts, "error") == 1);
    assert_true(num(get(counts, "by_family"), "gpu") == 8);
    assert_true(cJSON_IsFalse(get(j, "devices_truncated")));

    const cJSON *devices = get(j, "devices");
    assert_int_equal(cJSON_GetArraySize(devices), 8);
    const cJSON *d = cJSON_GetArrayItem(devices, 0);
    expect_keys(d, device_keys, sizeof(device_keys) / sizeof(device_keys[0]));
    assert_string_equal(str(d, "vendor"), "nvidia");
    assert_string_equal(str(d, "family"), "gpu");
    assert_string_equal(str(d, "catalog_id"), "h100");
    assert_true(cJSON_IsFalse(get(d, "unknown")));
    assert_string_equal(str(d, "name"), "NVIDIA H100 80GB HBM3");
    expect_null(d, "generation");
    const cJSON *pci = get(d, "pci");
    expect_keys(pci, pci_keys, 5);
    assert_string_equal(str(pci, "address"), "0000:1b:00.0");
    assert_string_equal(str(pci, "vendor_id"), "0x10de");
    assert_string_equal(str(pci, "device_id"), "0x2330");
    assert_string_equal(str(pci, "subsystem_device_id"), "0x16c1");
    assert_string_equal(str(pci, "class"), "0x030200");
    assert_true(num(d, "index") == 0);
    assert_string_equal(str(d, "uuid"), "GPU-00000000-0000-4000-8000-000000000000");
    assert_true(num(d, "memory_total_bytes") == 85520809984.0);
    assert_true(num(d, "memory_used_bytes") == 42760404992.0);
    assert_true(num(d, "utilization_ratio") > 0.969 && num(d, "utilization_ratio") < 0.971);
    assert_true(cJSON_IsTrue(get(d, "in_use")));
    const cJSON *pids = get(d, "pids");
    assert_int_equal(cJSON_GetArraySize(pids), 1);
    assert_true(cJSON_GetArrayItem(pids, 0)->valuedouble == 4242);
    assert_true(cJSON_IsFalse(get(d, "pids_truncated")));
    assert_int_equal(cJSON_GetArraySize(get(d, "device_nodes")), 0);
    assert_string_equal(str(d, "source"), "nvml");
    assert_string_equal(str(d, "state"), "ok");
    expect_null(d, "message");

    d = cJSON_GetArrayItem(devices, 4); /* utilization not supported */
    expect_null(d, "utilization_ratio");
    assert_true(cJSON_IsFalse(get(d, "in_use")));
    d = cJSON_GetArrayItem(devices, 5); /* processes not permitted */
    expect_null(d, "in_use");
    d = cJSON_GetArrayItem(devices, 6); /* memory query failed */
    assert_string_equal(str(d, "state"), "error");
    assert_string_equal(str(d, "message"),
                        "nvmlDeviceGetMemoryInfo: Unknown Error (NVML error 999)");
    expect_null(d, "memory_used_bytes");

    assert_int_equal(cJSON_GetArraySize(get(j, "warnings")), 1);
    assert_true(num(j, "warnings_dropped") == 0);
    cJSON_Delete(j);
    probe_snapshot_release(s);
}

static void test_tpu_and_unknown_json(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f, "tpu-v5e-x4");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    cJSON *j = to_json(s);
    const cJSON *d = cJSON_GetArrayItem(get(j, "devices"), 0);
    expect_keys(d, device_keys, sizeof(device_keys) / sizeof(device_keys[0]));
    assert_string_equal(str(d, "vendor"), "google");
    assert_string_equal(str(d, "family"), "tpu");
    assert_string_equal(str(d, "catalog_id"), "tpu-v5e");
    assert_string_equal(str(d, "generation"), "v5e");
    assert_true(num(d, "memory_total_bytes") == 16.0 * GIB);
    expect_null(d, "memory_used_bytes");
    expect_null(d, "utilization_ratio");
    expect_null(d, "uuid");
    assert_true(cJSON_IsTrue(get(d, "in_use")));
    assert_true(cJSON_GetArrayItem(get(d, "pids"), 0)->valuedouble == 4242);
    assert_string_equal(cJSON_GetArrayItem(get(d, "device_nodes"), 0)->valuestring, "/dev/vfio/0");
    assert_string_equal(str(d, "source"), "pci");
    d = cJSON_GetArrayItem(get(j, "devices"), 1);
    assert_true(cJSON_IsFalse(get(d, "in_use")));
    assert_true(num(get(j, "counts"), "free") == 3);
    assert_true(num(get(get(j, "counts"), "by_family"), "tpu") == 4);
    expect_null(j, "nvml_driver_version");
    assert_string_equal(str(get(get(j, "sources"), "nvml"), "state"), "off");
    cJSON_Delete(j);
    probe_snapshot_release(s);

    /* Unknown ids: unknown true, catalog_id null, nothing guessed. */
    fixture_init(&f, "malformed");
    s = run_ok(&f.cfg);
    j = to_json(s);
    const cJSON *devices = get(j, "devices");
    const cJSON *unk = NULL;
    for (const cJSON *c = devices->child; c != NULL; c = c->next) {
        if (strcmp(str(get(c, "pci"), "address"), "0000:09:00.0") == 0)
            unk = c;
    }
    assert_non_null(unk);
    assert_true(cJSON_IsTrue(get(unk, "unknown")));
    expect_null(unk, "catalog_id");
    expect_null(unk, "memory_total_bytes");
    assert_string_equal(str(get(unk, "pci"), "device_id"), "0x1234");
    assert_string_equal(str(get(unk, "pci"), "class"), "0x030000");
    const cJSON *amd = get(get(j, "sources"), "amd");
    assert_string_equal(str(amd, "state"), "error");
    assert_true(num(amd, "code") == ENOENT);
    assert_non_null(strstr(str(amd, "message"), "amdgpu"));
    expect_null(get(j, "host"), "cpu_model");
    expect_null(get(j, "host"), "memory_total_bytes");
    assert_true(cJSON_GetArraySize(get(j, "warnings")) >= 20);
    cJSON_Delete(j);
    probe_snapshot_release(s);

    /* Lost devices are counted; a device with no PCI address has null. */
    fixture_init_nvml(&f, "a100-lost", FAKE_NVML_LIB, "nvml-handle-lost.conf");
    s = run_ok(&f.cfg);
    j = to_json(s);
    assert_true(num(get(j, "counts"), "lost") == 1);
    assert_true(num(get(j, "counts"), "free") == 3);
    d = cJSON_GetArrayItem(get(j, "devices"), 2);
    assert_string_equal(str(d, "state"), "lost");
    assert_non_null(strstr(str(d, "message"), "lost GPU"));
    cJSON_Delete(j);
    probe_snapshot_release(s);
}

static void test_json_errors(void **state)
{
    (void)state;
    static cJSON dummy;
    cJSON *j = &dummy;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(probe_snapshot_to_json(NULL, &j, &err), DC_EINVAL);
    assert_null(j);
    struct fixture f;
    fixture_init(&f, "empty");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(probe_snapshot_to_json(s, NULL, NULL), DC_EINVAL);
    j = to_json(s);
    assert_int_equal(cJSON_GetArraySize(get(j, "devices")), 0);
    assert_true(num(get(j, "counts"), "devices") == 0);
    assert_int_equal(cJSON_GetArraySize(get(get(j, "counts"), "by_family")), 0);
    cJSON_Delete(j);
    probe_snapshot_release(s);
}

/* The table as text, read back from a temporary file. */
static char *table_of_width(const struct probe_snapshot *s, bool wide)
{
    FILE *fp = tmpfile();
    assert_non_null(fp);
    assert_int_equal(probe_snapshot_format_table(s, fp, wide), DC_OK);
    long n = ftell(fp);
    assert_true(n > 0);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    rewind(fp);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static char *table_of(const struct probe_snapshot *s)
{
    return table_of_width(s, false);
}

static void expect_in(const char *text, const char *part)
{
    if (strstr(text, part) == NULL)
        fail_msg("table lacks \"%s\":\n%s", part, text);
}

static void test_table(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, "nvml.conf");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    char *t = table_of(s);
    expect_in(t, "host: Intel(R) Xeon(R) Platinum 8480C, 224 logical cores, 2015.7 GiB memory\n");
    expect_in(t, "ADDRESS       VENDOR  FAMILY MODEL");
    expect_in(t,
              "0000:1b:00.0  nvidia  gpu    NVIDIA H100 80GB HBM3          39.8/79.6           97% "
              "yes    4242               nvml   ok\n");
    expect_in(t, "0000:52:00.0");
    expect_in(t, "5001,5002");
    expect_in(t, "10000,10001...");
    expect_in(t, "error: nvmlDeviceGetMemoryInfo: Unknown Error (NVML error 999)\n");
    expect_in(t, "NVIDIA driver 550.54.15\n");
    expect_in(t, "warning: NVML 0000:c3:00.0: nvmlDeviceGetComputeRunningProcesses_v3");
    assert_null(strstr(t, "CATALOG"));
    free(t);
    /* Wide: the PCI ids, the catalog id and the index too. */
    t = table_of_width(s, true);
    expect_in(t, "ADDRESS       PCI ID    CATALOG      INDEX VENDOR  FAMILY MODEL");
    expect_in(t, "0000:1b:00.0  10de:2330 h100             0 nvidia  gpu    NVIDIA H100 80GB HBM3");
    free(t);
    probe_snapshot_release(s);

    char conf[64];
    write_nvml_conf(conf, sizeof(conf), "init_error 9\n");
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, conf);
    s = run_ok(&f.cfg);
    t = table_of(s);
    expect_in(t, "source nvml: error: nvmlInit_v2: Driver Not Loaded (NVML error 9)\n");
    expect_in(t, "-/80.0");
    free(t);
    probe_snapshot_release(s);
    unlink(conf);

    fixture_init(&f, "empty");
    s = run_ok(&f.cfg);
    t = table_of(s);
    expect_in(t, "no accelerators found\n");
    free(t);

    assert_int_equal(probe_snapshot_format_table(NULL, stdout, false), DC_EINVAL);
    assert_int_equal(probe_snapshot_format_table(s, NULL, true), DC_EINVAL);
    /* A stream that cannot be written. */
    FILE *ro = fopen("/dev/null", "r");
    assert_non_null(ro);
    assert_int_equal(probe_snapshot_format_table(s, ro, false), DC_EIO);
    fclose(ro);
    probe_snapshot_release(s);

    fixture_init(&f, "malformed");
    s = run_ok(&f.cfg);
    t = table_of(s);
    expect_in(t, "host: unknown CPU, 2 logical cores, ? memory\n");
    expect_in(t, "Unknown NVIDIA device 0x10de:");
    expect_in(t, "source amd: error: no amdgpu counter");
    expect_in(t, "warning: ");
    free(t);
    probe_snapshot_release(s);
}

static void test_device_free(void **state)
{
    (void)state;
    struct probe_device d = {.state = PROBE_DEVICE_OK, .in_use = PROBE_IN_USE_NO};
    assert_true(probe_device_free(&d)); /* nobody holds it, utilisation unknown */
    d.has_utilization = true;
    d.utilization_percent = PROBE_FREE_UTILIZATION_MAX;
    assert_true(probe_device_free(&d));
    d.utilization_percent = PROBE_FREE_UTILIZATION_MAX + 1; /* busy without a visible process */
    assert_false(probe_device_free(&d));
    d.in_use = PROBE_IN_USE_UNKNOWN; /* AMD: holders unknown, measured idle */
    d.utilization_percent = 0;
    assert_true(probe_device_free(&d));
    d.has_utilization = false; /* NVIDIA without NVML: nothing says it is idle */
    assert_false(probe_device_free(&d));
    /* Memory: at most PROBE_FREE_MEMORY_USED_MAX percent used, where known. */
    d = (struct probe_device){.state = PROBE_DEVICE_OK,
                              .in_use = PROBE_IN_USE_NO,
                              .has_memory_total = true,
                              .memory_total_bytes = 100u << 20,
                              .has_memory_used = true,
                              .memory_used_bytes = (uint64_t)PROBE_FREE_MEMORY_USED_MAX << 20};
    assert_true(probe_device_free(&d));
    d.memory_used_bytes++; /* a job left its memory allocated */
    assert_false(probe_device_free(&d));
    d.has_memory_total = false; /* used without a total: nothing to compare with */
    assert_true(probe_device_free(&d));
    d.has_memory_total = true;
    d.memory_total_bytes = 0; /* used above the total: a bad reading, not counted */
    assert_true(probe_device_free(&d));
    d = (struct probe_device){.state = PROBE_DEVICE_OK, .in_use = PROBE_IN_USE_YES};
    assert_false(probe_device_free(&d));
    d = (struct probe_device){.state = PROBE_DEVICE_LOST, .in_use = PROBE_IN_USE_NO};
    assert_false(probe_device_free(&d));
    d.state = PROBE_DEVICE_ERROR;
    assert_false(probe_device_free(&d));
    assert_false(probe_device_free(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100_json),
        cmocka_unit_test(test_device_free),
        cmocka_unit_test(test_tpu_and_unknown_json),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests_name("probe json", tests, NULL, NULL);
}
