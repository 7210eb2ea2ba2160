/* tests/unit/probe/test_fixtures.c -- probe_run() with NVML off on every
 * fixture host (tests/fixtures/hosts) and on trees built at test time: PCI
 * classification, the id table, AMD counters, TPU nodes and holders, host
 * facts, limits, and every malformed-file path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit/probe/probe_test_util.h"

static void expect_sources(const struct probe_snapshot *s, enum probe_source_state pci,
                           enum probe_source_state nvml, enum probe_source_state amd,
                           enum probe_source_state tpu, enum probe_source_state host)
{
    enum probe_source_state want[PROBE_SOURCE_COUNT] = {pci, nvml, amd, tpu, host};
    for (int i = 0; i < PROBE_SOURCE_COUNT; i++) {
        if (s->sources[i].state != want[i])
            fail_msg("source %s is %s, expected %s (%s)", probe_source_name((enum probe_source)i),
                     probe_source_state_name(s->sources[i].state), probe_source_state_name(want[i]),
                     s->sources[i].message != NULL ? s->sources[i].message : "");
    }
}

static void test_h100x8(void **state)
{
    (void)state;
    static const char *const addrs[] = {"0000:1b:00.0", "0000:43:00.0", "0000:52:00.0",
                                        "0000:61:00.0", "0000:9d:00.0", "0000:c3:00.0",
                                        "0000:d1:00.0", "0000:df:00.0"};
    struct fixture f;
    fixture_init(&f, "h100x8");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    expect_sources(s, PROBE_SOURCE_OK, PROBE_SOURCE_OFF, PROBE_SOURCE_SKIPPED, PROBE_SOURCE_SKIPPED,
                   PROBE_SOURCE_OK);
    /* Eight GPUs, in address order; no NVSwitch, NIC, audio or bridge. */
    assert_int_equal(s->n_devices, 8);
    assert_false(s->devices_truncated);
    for (size_t i = 0; i < 8; i++) {
        const struct probe_device *d = &s->devices[i];
        assert_string_equal(d->pci_address, addrs[i]);
        assert_string_equal(d->vendor, "nvidia");
        assert_string_equal(d->family, "gpu");
        assert_string_equal(d->catalog_id, "h100");
        assert_string_equal(d->name, "NVIDIA H100 SXM 80GB");
        assert_false(d->unknown);
        assert_null(d->generation);
        assert_int_equal(d->pci_vendor, 0x10de);
        assert_int_equal(d->pci_device, 0x2330);
        assert_true(d->has_pci_class);
        assert_int_equal(d->pci_class, 0x030200);
        assert_true(d->has_pci_subsystem_device);
        assert_int_equal(d->pci_subsystem_device, 0x16c1);
        assert_int_equal(d->index, -1);
        assert_null(d->uuid);
        /* Without NVML: the catalog's memory, nothing live. */
        assert_true(d->has_memory_total);
        assert_true(d->memory_total_bytes == 80 * GIB);
        assert_false(d->has_memory_used);
        assert_false(d->has_utilization);
        assert_int_equal(d->in_use, PROBE_IN_USE_UNKNOWN);
        assert_int_equal(d->n_pids, 0);
        assert_int_equal(d->n_nodes, 0);
        assert_int_equal(d->source, PROBE_DATA_PCI);
        assert_int_equal(d->state, PROBE_DEVICE_OK);
        assert_null(d->message);
    }
    assert_string_equal(s->host.cpu_model, "Intel(R) Xeon(R) Platinum 8480C");
    assert_int_equal(s->host.logical_cores, 224);
    assert_true(s->host.memory_total_bytes == 2113612436ULL * 1024);
    assert_null(s->nvml_driver_version);
    if (s->n_warnings != 0) {
        dump_warnings(s);
        fail_msg("%zu warnings on a clean host", s->n_warnings);
    }
    assert_true(s->taken_at.tv_sec > 0);
    assert_true(probe_snapshot_age_seconds(s) >= 0.0);
    probe_snapshot_release(s);
}

/* Without an id table every accelerator is an unknown device of its vendor,
 * with its raw ids, and no memory is guessed. */
static void test_no_id_table(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f, "h100x8");
    f.cfg.ids = NULL;
    f.cfg.n_ids = 0;
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->n_devices, 8);
    const struct probe_device *d = &s->devices[0];
    assert_true(d->unknown);
    assert_null(d->catalog_id);
    assert_string_equal(d->family, "gpu");
    assert_string_equal(d->name, "Unknown NVIDIA device 0x10de:0x2330");
    assert_false(d->has_memory_total);
    probe_snapshot_release(s);

    fixture_init(&f, "tpu-v5e-x4");
    f.cfg.ids = NULL;
    f.cfg.n_ids = 0;
    s = run_ok(&f.cfg);
    assert_int_equal(s->n_devices, 4);
    assert_true(s->devices[0].unknown);
    assert_string_equal(s->devices[0].family, "tpu");
    assert_string_equal(s->devices[0].generation, "v5e");
    assert_string_equal(s->devices[0].name, "Google TPU v5e (0x1ae0:0x0063, not in the catalog)");
    probe_snapshot_release(s);
}

static void test_tpu_v5e(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f, "tpu-v5e-x4");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    expect_sources(s, PROBE_SOURCE_OK, PROBE_SOURCE_OFF, PROBE_SOURCE_SKIPPED, PROBE_SOURCE_OK,
                   PROBE_SOURCE_OK);
    assert_int_equal(s->n_devices, 4); /* the gVNIC is not one */
    for (int i = 0; i < 4; i++) {
        const struct probe_device *d = &s->devices[i];
        char addr[32], node[32];
        snprintf(addr, sizeof(addr), "0000:00:%02x.0", 4 + i);
        snprintf(node, sizeof(node), "/dev/vfio/%d", i);
        assert_string_equal(d->pci_address, addr);
        assert_string_equal(d->vendor, "google");
        assert_string_equal(d->family, "tpu");
        assert_string_equal(d->catalog_id, "tpu-v5e");
        assert_string_equal(d->generation, "v5e");
        assert_int_equal(d->index, i);
        assert_true(d->memory_total_bytes == 16 * GIB);
        assert_int_equal(d->n_nodes, 1);
        assert_string_equal(d->nodes[0], node);
        assert_int_equal(d->pci_class, 0x120000);
        if (i == 0) {
            assert_int_equal(d->in_use, PROBE_IN_USE_YES);
            assert_int_equal(d->n_pids, 1);
            assert_int_equal(d->pids[0], 4242);
        } else {
            assert_int_equal(d->in_use, PROBE_IN_USE_NO);
            assert_int_equal(d->n_pids, 0);
            assert_null(d->pids);
        }
    }
    assert_string_equal(s->host.cpu_model, "AMD EPYC 7B13");
    assert_int_equal(s->host.logical_cores, 112);
    assert_int_equal(s->n_warnings, 0);
    probe_snapshot_release(s);
}

static void test_tpu_v4(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f, "tpu-v4-x4");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    expect_sources(s, PROBE_SOURCE_OK, PROBE_SOURCE_OFF, PROBE_SOURCE_SKIPPED, PROBE_SOURCE_OK,
                   PROBE_SOURCE_OK);
    assert_int_equal(s->n_devices, 4);
    for (int i = 0; i < 4; i++) {
        const struct probe_device *d = &s->devices[i];
        char node[32];
        snprintf(node, sizeof(node), "/dev/accel%d", i);
        assert_string_equal(d->catalog_id, "tpu-v4");
        assert_string_equal(d->generation, "v4");
        assert_int_equal(d->n_nodes, 1);
        assert_string_equal(d->nodes[0], node);
    }
    /* 100 holds accel2 and accel3, 200 accel3; 300's look-alikes count for
     * nothing (/dev/accel12 has no chip). */
    assert_int_equal(s->devices[0].in_use, PROBE_IN_USE_NO);
    assert_int_equal(s->devices[1].in_use, PROBE_IN_USE_NO);
    assert_int_equal(s->devices[2].in_use, PROBE_IN_USE_YES);
    assert_int_equal(s->devices[2].n_pids, 1);
    assert_int_equal(s->devices[2].pids[0], 100);
    assert_int_equal(s->devices[3].in_use, PROBE_IN_USE_YES);
    assert_int_equal(s->devices[3].n_pids, 2);
    assert_int_equal(s->devices[3].pids[0], 100);
    assert_int_equal(s->devices[3].pids[1], 200);
    assert_int_equal(s->n_warnings, 0);
    probe_snapshot_release(s);
}

static void test_mi300x(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f, "mi300x-x2");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    expect_sources(s, PROBE_SOURCE_OK, PROBE_SOURCE_OFF, PROBE_SOURCE_OK, PROBE_SOURCE_SKIPPED,
                   PROBE_SOURCE_OK);
    assert_int_equal(s->n_devices, 2);
    const struct probe_device *a = find_dev(s, "0000:0c:00.0");
    const struct probe_device *b = find_dev(s, "0000:22:00.0");
    assert_string_equal(a->vendor, "amd");
    assert_string_equal(a->catalog_id, "mi300x");
    assert_int_equal(a->source, PROBE_DATA_SYSFS);
    /* The driver's figure, not the catalog's. */
    assert_true(a->memory_total_bytes == 205822885888ULL);
    assert_true(a->has_memory_used);
    assert_true(a->memory_used_bytes == GIB);
    assert_true(a->has_utilization);
    assert_int_equal(a->utilization_percent, 0);
    assert_int_equal(a->in_use, PROBE_IN_USE_UNKNOWN);
    assert_true(b->memory_used_bytes == 150323855360ULL);
    assert_int_equal(b->utilization_percent, 87);
    assert_int_equal(s->host.logical_cores, 384);
    assert_int_equal(s->n_warnings, 0);
    probe_snapshot_release(s);
}

static void test_empty(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f, "empty");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    expect_sources(s, PROBE_SOURCE_OK, PROBE_SOURCE_OFF, PROBE_SOURCE_SKIPPED, PROBE_SOURCE_SKIPPED,
                   PROBE_SOURCE_OK);
    assert_int_equal(s->n_devices, 0);
    assert_null(s->devices);
    assert_int_equal(s->host.logical_cores, 4);
    assert_true(s->host.memory_total_bytes == 16393252ULL * 1024);
    assert_int_equal(s->n_warnings, 0);
    probe_snapshot_release(s);

    /* NVML is not even loaded when the PCI scan found no NVIDIA device. */
    fixture_init_nvml(&f, "empty", "/nonexistent/libnvidia-ml.so.1", NULL);
    s = run_ok(&f.cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_SKIPPED);
    probe_snapshot_release(s);
}

/* ------------------------------------------------------------- malformed */

static char unreadable_path[1024];

static int malformed_setup(void **state)
{
    (void)state;
    snprintf(unreadable_path, sizeof(unreadable_path),
             "%s/hosts/malformed/sys/bus/pci/devices/0000:05:00.0/device", AA_FIXTURES_DIR);
    return chmod(unreadable_path, 0) == 0 ? 0 : -1;
}

static int malformed_teardown(void **state)
{
    (void)state;
    return chmod(unreadable_path, 0644) == 0 ? 0 : -1;
}

static void test_malformed(void **state)
{
    (void)state;
    /* chmod 000 does not stop root; the test expects whichever applies. */
    bool blocked = access(unreadable_path, R_OK) != 0;
    struct fixture f;
    fixture_init(&f, "malformed");
    const struct probe_snapshot *s = run_ok(&f.cfg);
    expect_sources(s, PROBE_SOURCE_OK, PROBE_SOURCE_OFF, PROBE_SOURCE_ERROR, PROBE_SOURCE_OK,
                   PROBE_SOURCE_OK);

    assert_warning(s, "0000:01:00.0/vendor: not hexadecimal");
    assert_warning(s, "0000:02:00.0/vendor: missing");
    assert_warning(s, "0000:03:00.0/vendor: no trailing newline (truncated)");
    assert_warning(s, "0000:04:00.0/vendor: not a hex id (no 0x prefix)");
    assert_warning(s, "0000:06:00.0/class: unreadable: Is a directory");
    assert_warning(s, "0000:07:00.0/mem_info_vram_total: not a decimal number");
    assert_warning(s, "0000:07:00.0/mem_info_vram_used: missing");
    assert_warning(s, "0000:07:00.0/gpu_busy_percent: 250 is out of range");
    assert_warning(s, "0000:08:00.0/device: not hexadecimal");
    assert_warning(s, "0000:0b:00.0/vendor: longer than 4095 bytes");
    assert_warning(s, "0000:0c:00.0/class: too few hex digits (truncated)");
    assert_warning(s, "0000:0e:00.0/vendor: empty");
    assert_warning(s, "0000:0f:00.0/mem_info_vram_total: not a decimal number");
    assert_warning(s, "0000:0f:00.0/mem_info_vram_used: out of range");
    assert_warning(s, "0000:0f:00.0/gpu_busy_percent: missing");
    assert_warning(s, "garbage-entry: not a PCI address");
    assert_warning(s, "0000:0D:00.0: not a PCI address");
    assert_warning(s, "vfio/0", "no device node for TPU 0000:0a:00.0");
    assert_warning(s, "cpuinfo: no \"model name\"");
    assert_warning(s, "meminfo: MemTotal: not \"<number> kB\"");
    if (blocked)
        assert_warning(s, "0000:05:00.0/device: unreadable: Permission denied");
    else
        assert_no_warning(s, "0000:05:00.0");

    /* What is left: the H100 at 05 when readable, the two AMD parts without
     * live figures, the unknown NVIDIA part, the v5p recognised by its ids
     * despite its class. */
    assert_int_equal(s->n_devices, blocked ? 4 : 5);
    if (!blocked)
        assert_string_equal(find_dev(s, "0000:05:00.0")->catalog_id, "h100");
    const struct probe_device *amd = find_dev(s, "0000:07:00.0");
    assert_int_equal(amd->source, PROBE_DATA_PCI);
    assert_true(amd->has_memory_total); /* the catalog's */
    assert_true(amd->memory_total_bytes == 192 * GIB);
    assert_false(amd->has_memory_used);
    assert_false(amd->has_utilization);
    const struct probe_device *amd2 = find_dev(s, "0000:0f:00.0");
    assert_int_equal(amd2->source, PROBE_DATA_PCI);
    const struct probe_device *unk = find_dev(s, "0000:09:00.0");
    assert_true(unk->unknown);
    assert_null(unk->catalog_id);
    assert_string_equal(unk->vendor, "nvidia");
    assert_string_equal(unk->family, "gpu");
    assert_string_equal(unk->name, "Unknown NVIDIA device 0x10de:0x1234");
    assert_int_equal(unk->pci_class, 0x030000);
    assert_false(unk->has_memory_total);
    const struct probe_device *tpu = find_dev(s, "0000:0a:00.0");
    assert_string_equal(tpu->catalog_id, "tpu-v5p");
    assert_int_equal(tpu->pci_class, 0xff0000);
    assert_int_equal(tpu->n_nodes, 0);
    assert_int_equal(tpu->in_use, PROBE_IN_USE_NO);

    assert_null(s->host.cpu_model);
    assert_int_equal(s->host.logical_cores, 2);
    assert_true(s->host.memory_total_bytes == 0);
    probe_snapshot_release(s);
}

/* ---------------------------------------------------- trees made by tests */

static void test_missing_roots(void **state)
{
    (void)state;
    struct probe_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.sysfs_root = "/nonexistent/sys";
    cfg.dev_root = "/nonexistent/dev";
    cfg.proc_root = "/nonexistent/proc";
    cfg.nvml_mode = PROBE_NVML_OFF;
    const struct probe_snapshot *s = run_ok(&cfg);
    expect_sources(s, PROBE_SOURCE_ERROR, PROBE_SOURCE_OFF, PROBE_SOURCE_SKIPPED,
                   PROBE_SOURCE_SKIPPED, PROBE_SOURCE_ERROR);
    assert_int_equal(s->sources[PROBE_SOURCE_PCI].code, ENOENT);
    assert_non_null(
        strstr(s->sources[PROBE_SOURCE_PCI].message, "/nonexistent/sys/bus/pci/devices"));
    assert_int_equal(s->sources[PROBE_SOURCE_HOST].code, ENOENT);
    assert_int_equal(s->n_devices, 0);
    assert_warning(s, "/nonexistent/proc/cpuinfo: unreadable: missing");
    probe_snapshot_release(s);
}

/* TPU v2 and v3 share a device id; the subsystem tells them apart, an exact
 * subsystem row wins over none, and v2 (not in the table) stays unknown but
 * named by its generation. Also: a TPU host whose /proc cannot be read, and
 * an Intel GPU (another vendor) that is not reported. */
static void test_tpu_v2_v3_and_no_proc(void **state)
{
    (void)state;
    char root[256];
    make_tmp_root(root, sizeof(root));
    put_pci(root, "0000:00:04.0", "0x1ae0\n", "0x0027\n", "0x120000\n", "0x004e\n");
    put_pci(root, "0000:00:05.0", "0x1ae0\n", "0x0027\n", "0x120000\n", "0x004f\n");
    put_pci(root, "0000:00:06.0", "0x1ae0\n", "0x0027\n", "0x120000\n", NULL);
    put_pci(root, "0000:00:02.0", "0x8086\n", "0x56c0\n", "0x030000\n", "0x0000\n");
    put_file(root, "dev/accel0", "");
    put_file(root, "dev/accel1", "");
    struct fixture f;
    tmp_config(&f, root);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->n_devices, 3);
    const struct probe_device *v2 = find_dev(s, "0000:00:04.0");
    const struct probe_device *v3 = find_dev(s, "0000:00:05.0");
    const struct probe_device *v23 = find_dev(s, "0000:00:06.0");
    assert_true(v2->unknown);
    assert_string_equal(v2->generation, "v2");
    assert_string_equal(v2->family, "tpu");
    assert_non_null(strstr(v2->name, "Google TPU v2"));
    assert_false(v3->unknown);
    assert_string_equal(v3->catalog_id, "tpu-v3");
    assert_string_equal(v3->generation, "v3");
    assert_int_equal(v3->index, 1);
    assert_string_equal(v3->nodes[0], "/dev/accel1");
    /* No subsystem: a TPU of unknown generation, counted by its class. */
    assert_true(v23->unknown);
    assert_null(v23->generation);
    assert_string_equal(v23->name, "Unknown Google device 0x1ae0:0x0027");
    assert_int_equal(v23->n_nodes, 0);
    assert_warning(s, "0000:00:06.0: Google accelerator 0x1ae0:0x0027 is no TPU generation");
    /* /proc is missing: holders unknown, the source says why. */
    assert_int_equal(s->sources[PROBE_SOURCE_TPU].state, PROBE_SOURCE_ERROR);
    assert_int_equal(s->sources[PROBE_SOURCE_TPU].code, ENOENT);
    assert_int_equal(v3->in_use, PROBE_IN_USE_UNKNOWN);
    probe_snapshot_release(s);
    rm_tree(root);
}

/* A vfio node is numbered by the IOMMU group, not the chip index. */
static void test_tpu_iommu_group(void **state)
{
    (void)state;
    char root[256];
    make_tmp_root(root, sizeof(root));
    put_pci(root, "0000:00:04.0", "0x1ae0\n", "0x006f\n", "0x120000\n", "0x006f\n");
    put_file(root, "sys/kernel/iommu_groups/7/type", "DMA\n");
    put_link(root, "sys/devices/pci0000:00/0000:00:04.0/iommu_group",
             "../../../kernel/iommu_groups/7");
    put_pci(root, "0000:00:05.0", "0x1ae0\n", "0x006f\n", "0x120000\n", "0x006f\n");
    put_link(root, "sys/devices/pci0000:00/0000:00:05.0/iommu_group",
             "../../../kernel/iommu_groups/not-a-number");
    put_file(root, "dev/vfio/7", "");
    put_file(root, "dev/vfio/1", "");
    put_link(root, "proc/77/fd/3", "/dev/vfio/7");
    put_link(root, "proc/78/fd/3", "/dev/vfio/0"); /* the chip index: not the node */
    struct fixture f;
    tmp_config(&f, root);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->n_devices, 2);
    const struct probe_device *d = &s->devices[0];
    assert_string_equal(d->generation, "v6e");
    assert_true(d->unknown); /* v6e is not in the test table */
    assert_int_equal(d->index, 0);
    assert_string_equal(d->nodes[0], "/dev/vfio/7");
    assert_int_equal(d->in_use, PROBE_IN_USE_YES);
    assert_int_equal(d->pids[0], 77);
    /* A bad link falls back to the chip index (1). */
    d = &s->devices[1];
    assert_warning(s, "iommu_group link", "does not end in a number");
    assert_string_equal(d->nodes[0], "/dev/vfio/1");
    assert_int_equal(d->in_use, PROBE_IN_USE_NO);
    probe_snapshot_release(s);
    rm_tree(root);
}

/* More accelerators than PROBE_DEVICES_MAX, more warnings than
 * PROBE_WARNINGS_MAX, a pid list longer than PROBE_PIDS_MAX. */
static void test_limits(void **state)
{
    (void)state;
    char root[256], addr[32], rel[64];
    make_tmp_root(root, sizeof(root));
    int made = 0;
    for (int bus = 1; made < PROBE_DEVICES_MAX + 10; bus++) {
        for (int dev = 0; dev < 32 && made < PROBE_DEVICES_MAX + 10; dev++, made++) {
            snprintf(addr, sizeof(addr), "0000:%02x:%02x.0", bus, dev);
            put_pci(root, addr, "0x1ae0\n", "0x005e\n", "0x120000\n", "0x005e\n");
        }
    }
    for (int i = 0; i < 100; i++) {
        snprintf(rel, sizeof(rel), "sys/bus/pci/devices/bad-%d", i);
        put_file(root, rel, "");
    }
    put_file(root, "dev/accel0", "");
    for (int pid = 1000; pid < 1000 + PROBE_PIDS_MAX + 5; pid++) {
        snprintf(rel, sizeof(rel), "proc/%d/fd/9", pid);
        put_link(root, rel, "/dev/accel0");
    }
    struct fixture f;
    tmp_config(&f, root);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->n_devices, PROBE_DEVICES_MAX);
    assert_true(s->devices_truncated);
    assert_int_equal(s->n_warnings, PROBE_WARNINGS_MAX);
    assert_true(s->n_warnings_dropped > 0); /* 100 names + 1 + 255 missing nodes */
    assert_warning(s, "more than 256 accelerators");
    const struct probe_device *d = &s->devices[0];
    assert_int_equal(d->in_use, PROBE_IN_USE_YES);
    assert_int_equal(d->n_pids, PROBE_PIDS_MAX);
    assert_true(d->pids_truncated);
    for (size_t i = 1; i < d->n_pids; i++)
        assert_true(d->pids[i - 1] < d->pids[i]);
    assert_int_equal(d->pids[0], 1000);
    probe_snapshot_release(s);
    rm_tree(root);
}

/* PROBE_PCI_ENTRIES_MAX: the scan stops, says so, and still returns. */
static void test_pci_entry_cap(void **state)
{
    (void)state;
    char root[256], rel[1024], dir[512];
    make_tmp_root(root, sizeof(root));
    put_file(root, "sys/bus/pci/devices/.keep", "");
    snprintf(dir, sizeof(dir), "%s/sys/bus/pci/devices", root);
    for (int i = 0; i < PROBE_PCI_ENTRIES_MAX + 1; i++) {
        snprintf(rel, sizeof(rel), "%s/0000:%02x:%02x.%x", dir, i / 256, (i / 8) % 32, i % 8);
        assert_int_equal(symlink("../../../devices/none", rel), 0);
    }
    struct fixture f;
    tmp_config(&f, root);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_int_equal(s->n_devices, 0);
    assert_warning(s, "more than 4096 entries");
    assert_int_equal(s->sources[PROBE_SOURCE_PCI].state, PROBE_SOURCE_OK);
    probe_snapshot_release(s);
    rm_tree(root);
}

/* cpuinfo past PROBE_TEXT_FILE_MAX: the model is kept, the core count (which
 * would be short) is not; a MemTotal in bytes would overflow. */
static void test_host_limits(void **state)
{
    (void)state;
    char root[256], path[512];
    make_tmp_root(root, sizeof(root));
    put_file(root, "sys/bus/pci/devices/.keep", "");
    put_file(root, "proc/cpuinfo", "processor\t: 0\nmodel name\t:   Test  CPU  \n\n");
    snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
    FILE *fp = fopen(path, "a");
    assert_non_null(fp);
    static const char more[] = "processor\t: 1\n\n";
    for (size_t written = 0; written <= PROBE_TEXT_FILE_MAX; written += sizeof(more) - 1)
        fputs(more, fp);
    fclose(fp);
    put_file(root, "proc/meminfo", "MemTotal:       18446744073709551615 kB\n");
    struct fixture f;
    tmp_config(&f, root);
    const struct probe_snapshot *s = run_ok(&f.cfg);
    assert_string_equal(s->host.cpu_model, "Test  CPU"); /* trimmed at both ends */
    assert_int_equal(s->host.logical_cores, 0);
    assert_warning(s, "cpuinfo: longer than");
    assert_warning(s, "meminfo: MemTotal: out of range");
    assert_true(s->host.memory_total_bytes == 0);
    probe_snapshot_release(s);

    put_file(root, "proc/cpuinfo", "processor : 0\n");
    put_file(root, "proc/meminfo", "MemFree: 1 kB\nMemTotal: 1024 kB");
    s = run_ok(&f.cfg);
    assert_int_equal(s->host.logical_cores, 1);
    assert_warning(s, "MemTotal: no trailing newline");
    probe_snapshot_release(s);
    rm_tree(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100x8),
        cmocka_unit_test(test_no_id_table),
        cmocka_unit_test(test_tpu_v5e),
        cmocka_unit_test(test_tpu_v4),
        cmocka_unit_test(test_mi300x),
        cmocka_unit_test(test_empty),
        cmocka_unit_test_setup_teardown(test_malformed, malformed_setup, malformed_teardown),
        cmocka_unit_test(test_missing_roots),
        cmocka_unit_test(test_tpu_v2_v3_and_no_proc),
        cmocka_unit_test(test_tpu_iommu_group),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_pci_entry_cap),
        cmocka_unit_test(test_host_limits),
    };
    return cmocka_run_group_tests_name("probe fixtures", tests, NULL, NULL);
}
