/* tests/unit/probe/test_parse.c -- probe/src/probe_fs.c and the small pure
 * helpers: strict id and counter parsing, PCI addresses, bounded reads,
 * TPU node names and generations, names, NVML mode parsing and the config
 * checks of probe_run(). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "probe_internal.h"
#include "unit/probe/probe_test_util.h"

static void expect_hex(const char *text, unsigned digits, uint32_t want)
{
    uint32_t v = 0;
    const char *why = NULL;
    enum dc_status rc = probe__parse_hex_attr(text, strlen(text), digits, &v, &why);
    if (rc != DC_OK)
        fail_msg("\"%s\": %s", text, why);
    assert_int_equal(v, want);
}

static void expect_hex_bad(const char *text, size_t len, unsigned digits, const char *why_part)
{
    uint32_t v = 0xdead;
    const char *why = NULL;
    assert_int_equal(probe__parse_hex_attr(text, len, digits, &v, &why), DC_EPARSE);
    assert_non_null(why);
    if (strstr(why, why_part) == NULL)
        fail_msg("\"%s\": reason \"%s\" lacks \"%s\"", text, why, why_part);
    assert_int_equal(v, 0xdead);
}

static void test_hex_ids(void **state)
{
    (void)state;
    expect_hex("0x10de\n", 4, 0x10de);
    expect_hex("0x1AE0\n", 4, 0x1ae0);
    expect_hex("0x030200\n", 6, 0x030200);
    expect_hex("0x0000\n", 4, 0);
    expect_hex_bad("0x10de", 6, 4, "truncated"); /* no newline */
    expect_hex_bad("0x10d\n", 6, 4, "too few");  /* cut short */
    expect_hex_bad("0x10dee\n", 8, 4, "too many");
    expect_hex_bad("10de\n", 5, 4, "0x prefix");
    expect_hex_bad("zz10de\n", 7, 4, "0x prefix");
    expect_hex_bad("0xzz10\n", 7, 4, "not hexadecimal");
    expect_hex_bad("0xGGGG\n", 7, 4, "not hexadecimal");
    expect_hex_bad("0x10de \n", 8, 4, "not hexadecimal"); /* trailing space */
    expect_hex_bad(" 0x10de\n", 8, 4, "0x prefix");
    expect_hex_bad("0x10de\n\n", 8, 4, "not hexadecimal");
    expect_hex_bad("", 0, 4, "empty");
    expect_hex_bad("\n", 1, 4, "empty");
    expect_hex_bad("0x\n", 3, 4, "too few");
    expect_hex_bad("0x10\0e\n", 7, 4, "NUL");
}

static void test_decimal_counters(void **state)
{
    (void)state;
    uint64_t v = 0;
    const char *why = NULL;
    assert_int_equal(probe__parse_u64_attr("205822885888\n", 13, &v, &why), DC_OK);
    assert_true(v == 205822885888ULL);
    assert_int_equal(probe__parse_u64_attr("0\n", 2, &v, &why), DC_OK);
    assert_true(v == 0);
    assert_int_equal(probe__parse_u64_attr("18446744073709551615\n", 21, &v, &why), DC_OK);
    assert_true(v == UINT64_MAX);
    assert_int_equal(probe__parse_u64_attr("18446744073709551616\n", 21, &v, &why), DC_EPARSE);
    assert_string_equal(why, "out of range");
    assert_int_equal(probe__parse_u64_attr("12345abc\n", 9, &v, &why), DC_EPARSE);
    assert_string_equal(why, "not a decimal number");
    assert_int_equal(probe__parse_u64_attr("-5\n", 3, &v, &why), DC_EPARSE);
    assert_int_equal(probe__parse_u64_attr("+5\n", 3, &v, &why), DC_EPARSE);
    assert_int_equal(probe__parse_u64_attr(" 5\n", 3, &v, &why), DC_EPARSE);
    assert_int_equal(probe__parse_u64_attr("0x10\n", 5, &v, &why), DC_EPARSE);
    assert_int_equal(probe__parse_u64_attr("42", 2, &v, &why), DC_EPARSE);
    assert_string_equal(why, "no trailing newline (truncated)");
    assert_int_equal(probe__parse_u64_attr("\n", 1, &v, &why), DC_EPARSE);
    assert_string_equal(why, "empty");
    assert_int_equal(probe__parse_u64_attr("", 0, &v, &why), DC_EPARSE);

    assert_true(probe__parse_uint("4242", 4, &v));
    assert_true(v == 4242);
    assert_false(probe__parse_uint("", 0, &v));
    assert_false(probe__parse_uint("42a", 3, &v));
    assert_false(probe__parse_uint("99999999999999999999", 20, &v));
}

static void test_pci_addresses(void **state)
{
    (void)state;
    struct probe_pci_addr a, b;
    char buf[PROBE_PCI_ADDRESS_SIZE];
    assert_true(probe__pci_addr_parse("0000:17:00.0", &a));
    assert_int_equal(a.domain, 0);
    assert_int_equal(a.bus, 0x17);
    assert_int_equal(a.dev, 0);
    assert_int_equal(a.fn, 0);
    /* NVML's form: 8-digit domain, upper case. */
    assert_true(probe__pci_addr_parse("00000000:9D:1f.7", &b));
    assert_int_equal(b.bus, 0x9d);
    assert_int_equal(b.dev, 0x1f);
    assert_int_equal(b.fn, 7);
    probe__pci_addr_format(&b, buf);
    assert_string_equal(buf, "0000:9d:1f.7");
    assert_true(probe__pci_addr_parse("10000:00:00.0", &a)); /* VMD domain */
    probe__pci_addr_format(&a, buf);
    assert_string_equal(buf, "10000:00:00.0");
    assert_true(probe__pci_addr_cmp(&b, &a) < 0);
    assert_int_equal(probe__pci_addr_cmp(&a, &a), 0);

    const char *bad[] = {"",
                         "garbage-entry",
                         "0000:17:00",
                         "000:17:00.0",
                         "0000:17:00.8",
                         "0000:17:20.0",
                         "0000:117:00.0",
                         "0000:17:00.0 ",
                         "000000000:17:00.0",
                         "0000:1g:00.0",
                         "0000:17.00.0",
                         "0000:17:00.00"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (probe__pci_addr_parse(bad[i], &a))
            fail_msg("\"%s\" parsed as a PCI address", bad[i]);
    }
}

static void test_read_file_bounds(void **state)
{
    (void)state;
    char root[256];
    char path[512];
    char buf[16];
    size_t len = 0;
    int e = 0;
    make_tmp_root(root, sizeof(root));

    put_file(root, "exact", "0123456789abcde"); /* 15 bytes: cap - 1 */
    snprintf(path, sizeof(path), "%s/exact", root);
    assert_int_equal(probe__read_file(path, buf, sizeof(buf), &len, &e), DC_OK);
    assert_int_equal(len, 15);
    assert_string_equal(buf, "0123456789abcde");

    put_file(root, "long", "0123456789abcdef"); /* 16 bytes: one too many */
    snprintf(path, sizeof(path), "%s/long", root);
    assert_int_equal(probe__read_file(path, buf, sizeof(buf), &len, &e), DC_ELIMIT);
    assert_int_equal(len, 0);

    put_file(root, "empty", "");
    snprintf(path, sizeof(path), "%s/empty", root);
    assert_int_equal(probe__read_file(path, buf, sizeof(buf), &len, &e), DC_OK);
    assert_int_equal(len, 0);

    snprintf(path, sizeof(path), "%s/missing", root);
    assert_int_equal(probe__read_file(path, buf, sizeof(buf), &len, &e), DC_ENOTFOUND);
    assert_int_equal(e, ENOENT);
    snprintf(path, sizeof(path), "%s/exact/below", root);
    assert_int_equal(probe__read_file(path, buf, sizeof(buf), &len, &e), DC_ENOTFOUND);

    /* A directory is refused, as is a FIFO, without blocking on it. */
    snprintf(path, sizeof(path), "%s/dir", root);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(probe__read_file(path, buf, sizeof(buf), &len, &e), DC_EIO);
    assert_int_equal(e, EISDIR);
    snprintf(path, sizeof(path), "%s/fifo", root);
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(probe__read_file(path, buf, sizeof(buf), &len, &e), DC_EIO);

    /* Unreadable: chmod 000 blocks a non-root reader only. */
    snprintf(path, sizeof(path), "%s/exact", root);
    assert_int_equal(chmod(path, 0), 0);
    enum dc_status rc = probe__read_file(path, buf, sizeof(buf), &len, &e);
    if (access(path, R_OK) == 0) {
        assert_int_equal(rc, DC_OK); /* root */
    } else {
        assert_int_equal(rc, DC_EIO);
        assert_int_equal(e, EACCES);
    }

    /* Text files: a cap in bytes, the excess reported. */
    char *text = NULL;
    bool truncated = true;
    put_file(root, "text", "line one\nline two\n");
    snprintf(path, sizeof(path), "%s/text", root);
    assert_int_equal(probe__read_text(path, 1024, &text, &len, &truncated, &e), DC_OK);
    assert_false(truncated);
    assert_int_equal(len, 18);
    assert_string_equal(text, "line one\nline two\n");
    free(text);
    assert_int_equal(probe__read_text(path, 18, &text, &len, &truncated, &e), DC_OK);
    assert_false(truncated);
    free(text);
    assert_int_equal(probe__read_text(path, 10, &text, &len, &truncated, &e), DC_OK);
    assert_true(truncated);
    assert_int_equal(len, 10);
    assert_string_equal(text, "line one\nl");
    free(text);
    snprintf(path, sizeof(path), "%s/empty", root);
    assert_int_equal(probe__read_text(path, 10, &text, &len, &truncated, &e), DC_OK);
    assert_int_equal(len, 0);
    assert_string_equal(text, "");
    free(text);
    snprintf(path, sizeof(path), "%s/dir", root);
    assert_int_equal(probe__read_text(path, 10, &text, &len, &truncated, &e), DC_EIO);
    assert_null(text);

    /* Bigger than one read chunk. */
    size_t big = 200 * 1024;
    char *content = malloc(big + 1);
    assert_non_null(content);
    memset(content, 'x', big);
    content[big] = '\0';
    put_file(root, "big", content);
    free(content);
    snprintf(path, sizeof(path), "%s/big", root);
    assert_int_equal(probe__read_text(path, big, &text, &len, &truncated, &e), DC_OK);
    assert_int_equal(len, big);
    assert_false(truncated);
    free(text);
    assert_int_equal(probe__read_text(path, big - 1, &text, &len, &truncated, &e), DC_OK);
    assert_true(truncated);
    free(text);

    char joined[8];
    assert_true(probe__path_join(joined, sizeof(joined), "/a", "bcd"));
    assert_string_equal(joined, "/a/bcd");
    assert_false(probe__path_join(joined, sizeof(joined), "/a", "bcdef"));
    rm_tree(root);
}

static void test_tpu_names(void **state)
{
    (void)state;
    int kind = -1;
    unsigned long n = 0;
    assert_true(probe__tpu_match_node("/dev/accel0", &kind, &n));
    assert_int_equal(kind, PROBE_TPU_NODE_ACCEL);
    assert_int_equal(n, 0);
    assert_true(probe__tpu_match_node("/dev/vfio/12", &kind, &n));
    assert_int_equal(kind, PROBE_TPU_NODE_VFIO);
    assert_int_equal(n, 12);
    const char *no[] = {"/dev/accel",       "/dev/accel1x",  "/dev/vfio/vfio", "/dev/vfio/",
                        "socket:[12345]",   "/dev/null",     "dev/accel0",     "/dev/accelerator0",
                        "/host/dev/accel0", "/dev/vfio/1/2", "/dev/accel-1"};
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        if (probe__tpu_match_node(no[i], &kind, &n))
            fail_msg("\"%s\" matched as a TPU node", no[i]);
    }

    const struct probe__tpu_generation *g = probe__tpu_generation(0x0063, false, 0);
    assert_non_null(g);
    assert_string_equal(g->name, "v5e");
    assert_int_equal(g->kind, PROBE_TPU_NODE_VFIO);
    g = probe__tpu_generation(0x005e, true, 0x1234);
    assert_non_null(g);
    assert_string_equal(g->name, "v4");
    assert_int_equal(g->kind, PROBE_TPU_NODE_ACCEL);
    assert_string_equal(probe__tpu_generation(0x0027, true, 0x004e)->name, "v2");
    assert_string_equal(probe__tpu_generation(0x0027, true, 0x004f)->name, "v3");
    assert_null(probe__tpu_generation(0x0027, false, 0)); /* v2 or v3: cannot tell */
    assert_null(probe__tpu_generation(0x0027, true, 0x0050));
    assert_null(probe__tpu_generation(0x0042, true, 0x0058)); /* gVNIC */
    assert_string_equal(probe__tpu_generation(0x0062, false, 0)->name, "v5p");
    assert_string_equal(probe__tpu_generation(0x006f, false, 0)->name, "v6e");
    assert_string_equal(probe__tpu_generation(0x0076, false, 0)->name, "7x");
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(probe_source_name(PROBE_SOURCE_PCI), "pci");
    assert_string_equal(probe_source_name(PROBE_SOURCE_NVML), "nvml");
    assert_string_equal(probe_source_name(PROBE_SOURCE_AMD), "amd");
    assert_string_equal(probe_source_name(PROBE_SOURCE_TPU), "tpu");
    assert_string_equal(probe_source_name(PROBE_SOURCE_HOST), "host");
    assert_string_equal(probe_source_name(PROBE_SOURCE_COUNT), "unknown");
    assert_string_equal(probe_source_state_name(PROBE_SOURCE_OK), "ok");
    assert_string_equal(probe_source_state_name(PROBE_SOURCE_SKIPPED), "skipped");
    assert_string_equal(probe_source_state_name(PROBE_SOURCE_OFF), "off");
    assert_string_equal(probe_source_state_name(PROBE_SOURCE_UNAVAILABLE), "unavailable");
    assert_string_equal(probe_source_state_name(PROBE_SOURCE_ERROR), "error");
    assert_string_equal(probe_data_source_name(PROBE_DATA_PCI), "pci");
    assert_string_equal(probe_data_source_name(PROBE_DATA_SYSFS), "sysfs");
    assert_string_equal(probe_data_source_name(PROBE_DATA_NVML), "nvml");
    assert_string_equal(probe_device_state_name(PROBE_DEVICE_OK), "ok");
    assert_string_equal(probe_device_state_name(PROBE_DEVICE_LOST), "lost");
    assert_string_equal(probe_device_state_name(PROBE_DEVICE_ERROR), "error");
    assert_string_equal(probe__vendor_name(0x10de), "nvidia");
    assert_string_equal(probe__vendor_name(0x1002), "amd");
    assert_string_equal(probe__vendor_name(0x1ae0), "google");
    assert_null(probe__vendor_name(0x8086));
}

static void test_nvml_mode_parse(void **state)
{
    (void)state;
    enum probe_nvml_mode mode = PROBE_NVML_PATH;
    const char *path = "x";
    assert_int_equal(probe_nvml_mode_parse("auto", &mode, &path), DC_OK);
    assert_int_equal(mode, PROBE_NVML_AUTO);
    assert_null(path);
    assert_int_equal(probe_nvml_mode_parse("off", &mode, &path), DC_OK);
    assert_int_equal(mode, PROBE_NVML_OFF);
    assert_int_equal(probe_nvml_mode_parse("/opt/nvml/libnvidia-ml.so.1", &mode, &path), DC_OK);
    assert_int_equal(mode, PROBE_NVML_PATH);
    assert_string_equal(path, "/opt/nvml/libnvidia-ml.so.1");
    assert_int_equal(probe_nvml_mode_parse("", &mode, &path), DC_EINVAL);
    assert_int_equal(probe_nvml_mode_parse(NULL, &mode, &path), DC_EINVAL);
    assert_int_equal(probe_nvml_mode_parse("auto", NULL, &path), DC_EINVAL);
}

static void expect_config_error(const struct probe_config *cfg, const char *msg_part)
{
    static struct probe_snapshot dummy;
    const struct probe_snapshot *s = &dummy; /* must come back NULL */
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(probe_run(cfg, &s, &err), DC_EINVAL);
    assert_null(s);
    assert_int_equal(err.code, DC_EINVAL);
    if (strstr(err.msg, msg_part) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, msg_part);
}

static void test_config_checks(void **state)
{
    (void)state;
    struct fixture f;
    const struct probe_snapshot *s = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(probe_run(NULL, &s, &err), DC_EINVAL);
    assert_null(s);
    fixture_init(&f, "empty");
    assert_int_equal(probe_run(&f.cfg, NULL, &err), DC_EINVAL);
    assert_int_equal(probe_run(&f.cfg, NULL, NULL), DC_EINVAL);

    f.cfg.nvml_mode = PROBE_NVML_PATH;
    expect_config_error(&f.cfg, "library path");
    f.cfg.nvml_path = "";
    expect_config_error(&f.cfg, "library path");
    f.cfg.nvml_mode = (enum probe_nvml_mode)42;
    expect_config_error(&f.cfg, "NVML mode");

    fixture_init(&f, "empty");
    f.cfg.sysfs_root = "";
    expect_config_error(&f.cfg, "empty");
    char *long_root = malloc(PROBE_PATH_MAX);
    assert_non_null(long_root);
    memset(long_root, 'a', PROBE_PATH_MAX - 1);
    long_root[PROBE_PATH_MAX - 1] = '\0';
    f.cfg.sysfs_root = f.sys;
    f.cfg.proc_root = long_root;
    expect_config_error(&f.cfg, "longer than");
    free(long_root);

    fixture_init(&f, "empty");
    f.cfg.ids = NULL;
    expect_config_error(&f.cfg, "ids is NULL");
    f.cfg.ids = test_ids;
    f.cfg.n_ids = PROBE_IDS_MAX + 1;
    expect_config_error(&f.cfg, "limit");
    struct probe_pci_id bad_row[] = {{0x10de, 0x2330, 0, NULL, "gpu", "x", 0}};
    f.cfg.ids = bad_row;
    f.cfg.n_ids = 1;
    expect_config_error(&f.cfg, "no catalog id");

    /* Refcount basics and NULL safety. */
    assert_null(probe_snapshot_retain(NULL));
    probe_snapshot_release(NULL);
    assert_true(probe_snapshot_age_seconds(NULL) == 0.0);
}

/* A zeroed config is valid and probes the real host: whatever it finds, the
 * call succeeds and every source reports something. */
static void test_real_host_smoke(void **state)
{
    (void)state;
    struct probe_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.nvml_mode = PROBE_NVML_OFF;
    const struct probe_snapshot *s = run_ok(&cfg);
    assert_int_equal(s->sources[PROBE_SOURCE_NVML].state, PROBE_SOURCE_OFF);
    for (size_t i = 0; i < s->n_devices; i++)
        assert_true(s->devices[i].unknown); /* no id table */
    assert_true(s->duration_ns > 0);
    probe_snapshot_release(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hex_ids),         cmocka_unit_test(test_decimal_counters),
        cmocka_unit_test(test_pci_addresses),   cmocka_unit_test(test_read_file_bounds),
        cmocka_unit_test(test_tpu_names),       cmocka_unit_test(test_names),
        cmocka_unit_test(test_nvml_mode_parse), cmocka_unit_test(test_config_checks),
        cmocka_unit_test(test_real_host_smoke),
    };
    return cmocka_run_group_tests_name("probe parse", tests, NULL, NULL);
}
