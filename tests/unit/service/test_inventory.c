/* tests/unit/service/test_inventory.c -- service/src/inventory.c: the PCI id
 * table drawn from the catalog, the probe settings, and availability per
 * catalog accelerator from snapshots of the fixture hosts and of hand-made
 * devices. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "inventory.h"
#include "dc/engine.h"

static dc_ruleset *rs;

static int setup(void **state)
{
    (void)state;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = dc_ruleset_load_dir(AA_SOURCE_DIR "/rules", &rs, &d);
    dc_diags_cleanup(&d);
    return rc == DC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(rs);
    return 0;
}

static const struct probe_pci_id *row(const struct probe_pci_id *ids, size_t n, uint16_t vendor,
                                      uint16_t device)
{
    for (size_t i = 0; i < n; i++) {
        if (ids[i].vendor == vendor && ids[i].device == device)
            return &ids[i];
    }
    return NULL;
}

static void test_ids_from_catalog(void **state)
{
    (void)state;
    struct probe_pci_id *ids = NULL;
    size_t n = 0;
    assert_int_equal(svc_inventory_ids(rs, &ids, &n), DC_OK);
    assert_true(n >= 12); /* every catalog entry but the CPU server has PCI ids */
    const struct probe_pci_id *h100 = row(ids, n, 0x10de, 0x2330);
    assert_non_null(h100);
    assert_string_equal(h100->catalog_id, "h100");
    assert_string_equal(h100->family, "gpu");
    assert_true(h100->memory_bytes == 80ull << 30);
    const struct probe_pci_id *v5e = row(ids, n, 0x1ae0, 0x0063);
    assert_non_null(v5e);
    assert_string_equal(v5e->catalog_id, "tpu-v5e");
    assert_string_equal(v5e->family, "tpu");
    for (size_t i = 0; i < n; i++)
        assert_string_not_equal(ids[i].catalog_id, "cpu-server");
    free(ids);
}

static void test_config(void **state)
{
    (void)state;
    struct probe_config pc;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(svc_inventory_config("/s", "/d", "/p", "off", NULL, 0, &pc, &err), DC_OK);
    assert_int_equal(pc.nvml_mode, PROBE_NVML_OFF);
    assert_string_equal(pc.sysfs_root, "/s");
    assert_int_equal(svc_inventory_config("/s", "/d", "/p", "/opt/libnvml.so", NULL, 0, &pc, &err),
                     DC_OK);
    assert_int_equal(pc.nvml_mode, PROBE_NVML_PATH);
    assert_string_equal(pc.nvml_path, "/opt/libnvml.so");
    assert_int_equal(svc_inventory_config("/s", "/d", "/p", "", NULL, 0, &pc, &err), DC_EINVAL);
    assert_non_null(strstr(err.msg, "nvml"));
}

static const struct dc_availability *find(const struct dc_availability *av, size_t n,
                                          const char *id)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(av[i].accelerator_id, id) == 0)
            return &av[i];
    }
    return NULL;
}

/* A fixture host probed for real (NVML off), through the CLI's entry point. */
static void test_fixture_hosts(void **state)
{
    (void)state;
    struct svc_probe_settings ps = {AA_FIXTURES_DIR "/hosts/tpu-v5e-x4/sys",
                                    AA_FIXTURES_DIR "/hosts/tpu-v5e-x4/dev",
                                    AA_FIXTURES_DIR "/hosts/tpu-v5e-x4/proc", "off"};
    const struct probe_snapshot *snap = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(svc_inventory_probe_once(rs, &ps, &snap, &err), DC_OK);
    struct dc_availability *av = NULL;
    size_t n = 0;
    assert_int_equal(svc_inventory_availability(rs, snap, &av, &n), DC_OK);
    assert_int_equal(n, 1);
    const struct dc_availability *v5e = find(av, n, "tpu-v5e");
    assert_non_null(v5e);
    assert_int_equal(v5e->attached, 4);
    assert_int_equal(v5e->free, 3);
    /* Free chips with no memory reading count their whole (catalog) memory. */
    assert_true(fabs(v5e->memory_free_gb - 3 * 16.0 * 1.073741824) < 1e-6);
    free(av);
    probe_snapshot_release(snap);

    ps.nvml = "";
    assert_int_equal(svc_inventory_probe_once(rs, &ps, &snap, &err), DC_EINVAL);
    assert_null(snap);
}

static void test_availability_rules(void **state)
{
    (void)state;
    char h100_id[] = "h100", l4_id[] = "l4", t4_id[] = "t4";
    struct probe_device devs[] = {
        /* free: nobody holds it; 1 of 80 GB used by the driver */
        {.catalog_id = h100_id,
         .state = PROBE_DEVICE_OK,
         .in_use = PROBE_IN_USE_NO,
         .has_memory_total = true,
         .memory_total_bytes = 80000000000ull,
         .has_memory_used = true,
         .memory_used_bytes = 1000000000ull},
        /* idle and unheld, but 10 of 80 GB left allocated: not free */
        {.catalog_id = h100_id,
         .state = PROBE_DEVICE_OK,
         .in_use = PROBE_IN_USE_NO,
         .has_memory_total = true,
         .memory_total_bytes = 80000000000ull,
         .has_memory_used = true,
         .memory_used_bytes = 10000000000ull},
        /* held */
        {.catalog_id = h100_id, .state = PROBE_DEVICE_OK, .in_use = PROBE_IN_USE_YES},
        /* failing but attached */
        {.catalog_id = h100_id, .state = PROBE_DEVICE_ERROR, .in_use = PROBE_IN_USE_NO},
        /* lost: not attached */
        {.catalog_id = h100_id, .state = PROBE_DEVICE_LOST},
        /* unknown ids: no catalog entry to count against */
        {.catalog_id = NULL, .unknown = true, .state = PROBE_DEVICE_OK, .in_use = PROBE_IN_USE_NO},
        /* free, memory total unknown: the sum is unknown */
        {.catalog_id = l4_id, .state = PROBE_DEVICE_OK, .in_use = PROBE_IN_USE_NO},
        /* used beyond the total (a bad reading): counts the total */
        {.catalog_id = t4_id,
         .state = PROBE_DEVICE_OK,
         .in_use = PROBE_IN_USE_NO,
         .has_memory_total = true,
         .memory_total_bytes = 16000000000ull,
         .has_memory_used = true,
         .memory_used_bytes = 17000000000ull},
    };
    struct probe_snapshot snap = {.devices = devs, .n_devices = sizeof(devs) / sizeof(devs[0])};
    struct dc_availability *av = NULL;
    size_t n = 0;
    assert_int_equal(svc_inventory_availability(rs, &snap, &av, &n), DC_OK);
    assert_int_equal(n, 3);
    const struct dc_availability *h100 = find(av, n, "h100");
    assert_int_equal(h100->attached, 4);
    assert_int_equal(h100->free, 1);
    assert_true(fabs(h100->memory_free_gb - 79.0) < 1e-9);
    const struct dc_availability *l4 = find(av, n, "l4");
    assert_int_equal(l4->free, 1);
    assert_true(isnan(l4->memory_free_gb));
    assert_true(fabs(find(av, n, "t4")->memory_free_gb - 16.0) < 1e-9);
    assert_null(find(av, n, "b200"));
    free(av);

    /* No snapshot yet: nothing attached anywhere. */
    assert_int_equal(svc_inventory_availability(rs, NULL, &av, &n), DC_OK);
    assert_null(av);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_from_catalog),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_fixture_hosts),
        cmocka_unit_test(test_availability_rules),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
