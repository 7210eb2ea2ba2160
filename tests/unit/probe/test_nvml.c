/* tests/unit/probe/test_nvml.c -- probe/src/probe_nvml.c: the real dlopen
 * loader against the test NVML library (fake_nvml.c): every answer, every
 * error code, lost GPUs, the process-list retry, missing symbols, a missing
 * library, and concurrent probes. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit/probe/probe_test_util.h"

static const char *const h100_addrs[] = {"0000:1b:00.0", "0000:43:00.0", "0000:52:00.0",
                                         "0000:61:00.0", "0000:9d:00.0", "0000:c3:00.0",
                                         "0000:d1:00.0", "0000:df:00.0"};

/* How often the test library saw a call since it last loaded its config. */
static unsigned fake_calls(const char *lib, const char *name)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        fail_msg("dlopen %s: %s", lib, dlerror());
    unsigned (*fn)(const char *) = NULL;
    void *sym = dlsym(h, "fake_nvml_calls");
    assert_non_null(sym);
    memcpy(&fn, &sym, sizeof(fn));
    unsigned n = fn(name);
    dlclose(h);
    return n;
}

static void expect_pci_only(const struct probe_snapshot *s, size_t n)
{
    assert_int_equal(s->n_devices, n);
    for (size_t i = 0; i < n; i++) {
        const struct probe_device *d = &s->devices[i];
        assert_int_equal(d->source, PROBE_DATA_PCI);
        assert_int_equal(d->state, PROBE_DEVICE_OK);
        assert_true(d->has_memory_total); /* the catalog's */
        assert_false(d->has_memory_used);
        assert_false(d->has_utilization);
        assert_int_equal(d->in_use, PROBE_IN_USE_UNKNOWN);
        assert_null(d->uuid);
        assert_int_equal(d->index, -1);
    }
}

static void test_h100_all_answers(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, "nvml.conf");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_OK);
    assert_null(s->sources[PROBE_SOURCE_NVML].message);
    assert_string_equal(s->nvml_driver_version, "550.54.15");
    assert_int_equal(s->n_devices, 8);
    for (int i = 0; i < 8; i++) {
        const struct probe_device *d = &s->devices[i];
        char uuid[64];
        snprintf(uuid, sizeof(uuid), "GPU-00000000-0000-4000-8000-00000000000%d", i);
        assert_string_equal(d->pci_address, h100_addrs[i]);
        assert_int_equal(d->source, PROBE_DATA_NVML);
        assert_int_equal(d->index, i);
        assert_string_equal(d->uuid, uuid);
        assert_string_equal(d->name, "NVIDIA H100 80GB HBM3"); /* NVML's, not the table's */
        assert_string_equal(d->catalog_id, "h100");
        assert_false(d->unknown);
        if (i != 6) {
            assert_true(d->memory_total_bytes == 85520809984ULL);
            assert_true(d->has_memory_used);
            assert_int_equal(d->state, PROBE_DEVICE_OK);
        }
    }
    const struct probe_device *d = &s->devices[0];
    assert_true(d->memory_used_bytes == 42760404992ULL);
    assert_true(d->has_utilization);
    assert_int_equal(d->utilization_percent, 97);
    assert_int_equal(d->in_use, PROBE_IN_USE_YES);
    assert_int_equal(d->n_pids, 1);
    assert_int_equal(d->pids[0], 4242);

    d = &s->devices[1];
    assert_true(d->memory_used_bytes == 0);
    assert_int_equal(d->utilization_percent, 0);
    assert_int_equal(d->in_use, PROBE_IN_USE_NO);
    assert_int_equal(d->n_pids, 0);

    d = &s->devices[2];
    assert_int_equal(d->n_pids, 2);
    assert_int_equal(d->pids[0], 5001); /* ascending */
    assert_int_equal(d->pids[1], 5002);

    /* 40 processes: more than the first buffer, fetched on the retry. */
    d = &s->devices[3];
    assert_int_equal(d->in_use, PROBE_IN_USE_YES);
    assert_int_equal(d->n_pids, 40);
    assert_false(d->pids_truncated);
    assert_int_equal(d->pids[0], 10000);
    assert_int_equal(d->pids[39], 10039);

    d = &s->devices[4]; /* utilization not supported: unknown, no warning */
    assert_false(d->has_utilization);
    assert_int_equal(d->state, PROBE_DEVICE_OK);
    assert_int_equal(d->in_use, PROBE_IN_USE_NO);

    d = &s->devices[5]; /* processes not permitted: unknown, one warning */
    assert_int_equal(d->in_use, PROBE_IN_USE_UNKNOWN);
    assert_int_equal(d->state, PROBE_DEVICE_OK);
    assert_warning(s, "NVML 0000:c3:00.0: nvmlDeviceGetComputeRunningProcesses_v3: Insufficient "
                      "Permissions");

    d = &s->devices[6]; /* memory query fails: error state, the rest still read */
    assert_int_equal(d->state, PROBE_DEVICE_ERROR);
    assert_string_equal(d->message, "nvmlDeviceGetMemoryInfo: Unknown Error (NVML error 999)");
    assert_false(d->has_memory_used);
    assert_true(d->memory_total_bytes == 80 * GIB); /* the catalog's */
    assert_true(d->has_utilization);
    assert_int_equal(d->in_use, PROBE_IN_USE_NO);

    assert_int_equal(s->devices[7].pids[0], 7777);
    if (s->n_warnings != 1) {
        dump_warnings(s);
        fail_msg("%zu warnings, expected 1", s->n_warnings);
    }
    /* One call per GPU and one retry for the GPU with 40 processes; NVML
     * shut down again. */
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "procs"), 9);
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "init"), 1);
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "shutdown"), 1);
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "inits"), 0);
    probe_snapshot_release(s);
}

static void test_init_failures(void **state)
{
    (void)state;
    static const struct {
        int code;
        const char *text;
    } cases[] = {
        {9, "nvmlInit_v2: Driver Not Loaded (NVML error 9)"},
        {4, "nvmlInit_v2: Insufficient Permissions (NVML error 4)"},
        {12, "nvmlInit_v2: NVML Shared Library Not Found (NVML error 12)"},
        {1, "nvmlInit_v2: Uninitialized (NVML error 1)"},
        {999, "nvmlInit_v2: Unknown Error (NVML error 999)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char conf[64], text[64];
        snprintf(text, sizeof(text), "init_error %d\n", cases[i].code);
        write_nvml_conf(conf, sizeof(conf), text);
        struct fixture f;
        fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, conf);
        const struct probe_snapshot *s = run_ok(&f.cfg);
        const struct probe_source_report *r = &s->sources[PROBE_SOURCE_NVML];
        assert_int_equal(r->state, PROBE_SOURCE_ERROR);
        assert_int_equal(r->code, cases[i].code);
        assert_string_equal(r->message, cases[i].text);
        assert_null(s->nvml_driver_version);
        expect_pci_only(s, 8); /* the PCI view stands */
        assert_int_equal(fake_calls(FAKE_NVML_LIB, "shutdown"), 0);
        probe_snapshot_release(s);
        unlink(conf);
    }
}

static void test_count_failure(void **state)
{
    (void)state;
    char conf[64];
    write_nvml_conf(conf, sizeof(conf), "driver_version 1.2\ncount_error 999\n");
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, conf);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_ERROR);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].code, 999);
    assert_non_null(strstr(s->sources[PROBE_SOURCE_NVML].message, "nvmlDeviceGetCount_v2"));
    expect_pci_only(s, 8);
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "shutdown"), 1);
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "inits"), 0);
    probe_snapshot_release(s);
    unlink(conf);
}

/* NVML cannot even hand out the lost GPU's handle, so it cannot say which
 * it is; the one NVIDIA PCI device it does not answer for is it. */
static void test_lost_at_handle(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init_nvml(&f, "a100-lost", FAKE_NVML_LIB, "nvml-handle-lost.conf");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_OK);
    assert_int_equal(s->n_devices, 4);
    const struct probe_device *lost = find_dev(s, "0000:47:00.0");
    assert_int_equal(lost->state, PROBE_DEVICE_LOST);
    assert_string_equal(lost->message, "NVML reports a lost GPU and does not answer for this one");
    assert_int_equal(lost->source, PROBE_DATA_PCI);
    assert_string_equal(lost->catalog_id, "a100");
    assert_warning(s, "NVML device index 2: nvmlDeviceGetHandleByIndex_v2: GPU is lost");
    const char *others[] = {"0000:07:00.0", "0000:0f:00.0", "0000:4e:00.0"};
    for (size_t i = 0; i < 3; i++) {
        const struct probe_device *d = find_dev(s, others[i]);
        assert_int_equal(d->state, PROBE_DEVICE_OK);
        assert_int_equal(d->source, PROBE_DATA_NVML);
        assert_string_equal(d->name, "NVIDIA A100-SXM4-80GB");
        assert_int_equal(d->in_use, PROBE_IN_USE_NO);
    }
    assert_string_equal(find_dev(s, "0000:4e:00.0")->uuid,
                        "GPU-a100a100-0000-4000-8000-000000000003");
    probe_snapshot_release(s);
}

/* The handle and bus id come back, then every query says the GPU is lost. */
static void test_lost_on_query(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init_nvml(&f, "a100-lost", FAKE_NVML_LIB, "nvml-query-lost.conf");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_OK);
    const struct probe_device *lost = find_dev(s, "0000:47:00.0");
    assert_int_equal(lost->state, PROBE_DEVICE_LOST);
    assert_string_equal(lost->message, "nvmlDeviceGetName: GPU is lost");
    assert_int_equal(lost->source, PROBE_DATA_NVML);
    assert_int_equal(lost->index, 2);
    assert_null(lost->uuid);
    assert_false(lost->has_memory_used);
    assert_int_equal(lost->in_use, PROBE_IN_USE_UNKNOWN);
    assert_string_equal(lost->name, "NVIDIA A100 80GB SXM"); /* the table's */
    /* After the first "lost" the device is left alone: 4 name calls, 3 of
     * everything else. */
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "name"), 4);
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "memory"), 3);
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "procs"), 3);
    assert_int_equal(find_dev(s, "0000:07:00.0")->state, PROBE_DEVICE_OK);
    assert_int_equal(s->n_warnings, 0);
    probe_snapshot_release(s);
}

/* One lost handle, several unmatched PCI GPUs: no guessing which. Another
 * GPU's handle is refused (no permission): not lost, not visible. */
static void test_lost_ambiguous(void **state)
{
    (void)state;
    char conf[64];
    write_nvml_conf(conf, sizeof(conf),
                    "device\n bus_id 00000000:1B:00.0\n pci_device_id 0x233010de\n"
                    "device\n handle_error 15\n"
                    "device\n handle_error 4\n"
                    "device\n bus_id 00000000:43:00.0\n pci_device_id 0x233010de\n");
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, conf);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->n_devices, 8);
    assert_warning(s, "NVML lost 1 GPU(s) and 6 NVIDIA PCI device(s) are unmatched");
    assert_warning(s, "NVML device index 2: nvmlDeviceGetHandleByIndex_v2: Insufficient "
                      "Permissions (NVML error 4)");
    for (size_t i = 0; i < 8; i++) {
        const struct probe_device *d = &s->devices[i];
        assert_int_equal(d->state, PROBE_DEVICE_OK);
        assert_int_equal(d->source, i < 2 ? PROBE_DATA_NVML : PROBE_DATA_PCI);
    }
    /* No name in the config: the table's name stays. */
    assert_string_equal(s->devices[0].name, "NVIDIA H100 SXM 80GB");
    probe_snapshot_release(s);
    unlink(conf);

    write_nvml_conf(conf, sizeof(conf),
                    "device\n bus_id 00000000:1B:00.0\n pci_device_id 0x233010de\n");
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, conf);
    s = run_ok(&f.cfg);
    assert_warning(s, "0000:df:00.0: NVIDIA device not visible to NVML");
    assert_int_equal(count_warnings(s, "not visible to NVML", (const char *)NULL), 7);
    probe_snapshot_release(s);
    unlink(conf);
}

static void test_process_list_limits(void **state)
{
    (void)state;
    char conf[64];
    write_nvml_conf(conf, sizeof(conf),
                    "device\n bus_id 00000000:1B:00.0\n pci_device_id 0x233010de\n"
                    " grow_processes 20\n"
                    "device\n bus_id 00000000:43:00.0\n pci_device_id 0x233010de\n"
                    " process_count 2000\n"
                    "device\n bus_id 00000000:52:00.0\n pci_device_id 0x233010de\n"
                    " process_count 100\n");
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, conf);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    /* Growing at every call: PROBE_NVML_PROCS_TRIES tries, then in use with
     * no list. */
    const struct probe_device *d = &s->devices[0];
    assert_int_equal(d->in_use, PROBE_IN_USE_YES);
    assert_true(d->pids_truncated);
    assert_int_equal(d->n_pids, 0);
    assert_warning(s, "NVML 0000:1b:00.0", "the process count kept growing");
    /* More than PROBE_NVML_PROCS_MAX: not fetched at all. */
    d = &s->devices[1];
    assert_int_equal(d->in_use, PROBE_IN_USE_YES);
    assert_true(d->pids_truncated);
    assert_int_equal(d->n_pids, 0);
    assert_warning(s, "NVML 0000:43:00.0: 2000 compute processes, more than the 1024 listed");
    /* 100: fetched on the retry, PROBE_PIDS_MAX kept. */
    d = &s->devices[2];
    assert_int_equal(d->n_pids, PROBE_PIDS_MAX);
    assert_true(d->pids_truncated);
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "procs"), PROBE_NVML_PROCS_TRIES + 1 + 2);
    probe_snapshot_release(s);
    unlink(conf);
}

static void test_odd_answers(void **state)
{
    (void)state;
    char conf[64];
    write_nvml_conf(conf, sizeof(conf),
                    "driver_error 3\nshutdown_error 999\n"
                    "device\n bus_id garbage\n"
                    "device\n bus_id 00000000:1B:00.0\n pci_device_id 0x233010de\n"
                    " utilization 150 0\n uuid_error 3\n name_error 999\n"
                    "device\n bus_id 0000:1b:00.0\n pci_device_id 0x233010de\n");
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, conf);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_OK);
    assert_null(s->nvml_driver_version);
    assert_warning(s, "nvmlSystemGetDriverVersion: Not Supported (NVML error 3)");
    assert_warning(s, "nvmlShutdown: Unknown Error (NVML error 999)");
    assert_warning(s, "NVML device index 0: bus id \"garbage\" is not a PCI address");
    assert_warning(s, "NVML 0000:1b:00.0: utilization 150% is out of range");
    assert_warning(s, "NVML device index 2: bus id 0000:1b:00.0 already seen at another index");
    const struct probe_device *d = &s->devices[0];
    assert_int_equal(d->index, 1);
    assert_false(d->has_utilization);
    assert_null(d->uuid); /* not supported: quietly unknown */
    assert_int_equal(d->state, PROBE_DEVICE_ERROR);
    assert_string_equal(d->message, "nvmlDeviceGetName: Unknown Error (NVML error 999)");
    probe_snapshot_release(s);
    unlink(conf);
}

static void test_missing_symbols(void **state)
{
    (void)state;
    /* An optional symbol: that figure is unknown, the rest is read. */
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB_NOPROC, "nvml.conf");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_OK);
    assert_warning(s, "no symbol nvmlDeviceGetComputeRunningProcesses_v3: processes unknown");
    for (size_t i = 0; i < s->n_devices; i++) {
        assert_int_equal(s->devices[i].source, PROBE_DATA_NVML);
        assert_int_equal(s->devices[i].in_use, PROBE_IN_USE_UNKNOWN);
    }
    assert_true(s->devices[0].memory_used_bytes == 42760404992ULL);
    probe_snapshot_release(s);

    /* A required symbol: NVML is not used at all (not even initialised). */
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB_NOPCI, "nvml.conf");
    s = run_ok(&f.cfg);
    const struct probe_source_report *r = &s->sources[PROBE_SOURCE_NVML];
    assert_int_equal(r->state, PROBE_SOURCE_ERROR);
    assert_int_equal(r->code, 13);
    assert_non_null(strstr(r->message, "no symbol nvmlDeviceGetPciInfo_v3"));
    expect_pci_only(s, 8);
    assert_int_equal(fake_calls(FAKE_NVML_LIB_NOPCI, "init"), 0);
    probe_snapshot_release(s);

    /* A library that is not NVML at all. */
    fixture_init_nvml(&f, "h100x8", "libc.so.6", NULL);
    s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_ERROR);
    assert_non_null(strstr(s->sources[PROBE_SOURCE_NVML].message, "no symbol nvmlInit_v2"));
    expect_pci_only(s, 8);
    probe_snapshot_release(s);
}

static void test_library_not_found(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", "/nonexistent/libnvidia-ml.so.1", NULL);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    const struct probe_source_report *r = &s->sources[PROBE_SOURCE_NVML];
    assert_int_equal(r->state, PROBE_SOURCE_ERROR); /* asked for by path: an error */
    assert_int_equal(r->code, 12);
    assert_non_null(strstr(r->message, "/nonexistent/libnvidia-ml.so.1"));
    expect_pci_only(s, 8);
    probe_snapshot_release(s);

    /* AUTO: where the real library is absent that is normal ("unavailable");
     * where it is present (a GPU host) it answers for other devices than the
     * fixture's, and the probe must cope either way. */
    fixture_init(&f, "h100x8");
    f.cfg.nvml_mode = PROBE_NVML_AUTO;
    s = run_ok(&f.cfg);
    r = &s->sources[PROBE_SOURCE_NVML];
    if (r->state == PROBE_SOURCE_UNAVAILABLE) {
        assert_int_equal(r->code, 12);
        assert_non_null(r->message);
        expect_pci_only(s, 8);
    } else {
        assert_true(r->state == PROBE_SOURCE_OK || r->state == PROBE_SOURCE_ERROR);
        assert_true(s->n_devices >= 8);
    }
    probe_snapshot_release(s);
}

/* No PCI view (no sysfs): NVML's devices are reported from its own ids. */
static void test_nvml_without_pci(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, "nvml.conf");
    f.cfg.sysfs_root = "/nonexistent/sys";
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_PCI].state, PROBE_SOURCE_ERROR);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_OK);
    assert_int_equal(s->n_devices, 8);
    for (size_t i = 0; i < 8; i++) {
        const struct probe_device *d = &s->devices[i];
        assert_string_equal(d->pci_address, h100_addrs[i]);
        assert_string_equal(d->catalog_id, "h100");
        assert_int_equal(d->pci_vendor, 0x10de);
        assert_int_equal(d->pci_device, 0x2330);
        assert_int_equal(d->pci_subsystem_device, 0x16c1);
        assert_false(d->has_pci_class);
        assert_int_equal(d->source, PROBE_DATA_NVML);
    }
    assert_int_equal(count_warnings(s, "is not in the PCI scan", (const char *)NULL), 8);
    probe_snapshot_release(s);

    /* A TPU host: nothing for NVML to do, the library is not opened. */
    fixture_init_nvml(&f, "tpu-v5e-x4", "/nonexistent/libnvidia-ml.so.1", NULL);
    s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_SKIPPED);
    probe_snapshot_release(s);
}

static void *probe_loop(void *arg)
{
    const struct probe_config *cfg = arg;
    for (int i = 0; i < 10; i++) {
        const struct probe_snapshot *s = NULL;
        if (probe_run(cfg, &s, NULL) != DC_OK || s->n_devices != 8 ||
            s->sources[PROBE_SOURCE_NVML].state != PROBE_SOURCE_OK ||
            s->devices[0].memory_used_bytes != 42760404992ULL) {
            probe_snapshot_release(s);
            return (void *)1;
        }
        probe_snapshot_release(s);
    }
    return NULL;
}

/* Probes on several threads at once share the library (NVML counts its
 * inits) and the probe keeps no state of its own. */
static void test_concurrent_probes(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init_nvml(&f, "h100x8", FAKE_NVML_LIB, "nvml.conf");
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, probe_loop, &f.cfg), 0);
    for (int i = 0; i < 4; i++) {
        void *rc = (void *)1;
        pthread_join(t[i], &rc);
        assert_null(rc);
    }
    assert_int_equal(fake_calls(FAKE_NVML_LIB, "inits"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100_all_answers),    cmocka_unit_test(test_init_failures),
        cmocka_unit_test(test_count_failure),       cmocka_unit_test(test_lost_at_handle),
        cmocka_unit_test(test_lost_on_query),       cmocka_unit_test(test_lost_ambiguous),
        cmocka_unit_test(test_process_list_limits), cmocka_unit_test(test_odd_answers),
        cmocka_unit_test(test_missing_symbols),     cmocka_unit_test(test_library_not_found),
        cmocka_unit_test(test_nvml_without_pci),    cmocka_unit_test(test_concurrent_probes),
    };
    return cmocka_run_group_tests_name("probe nvml", tests, NULL, NULL);
}
