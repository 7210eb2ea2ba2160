/* tests/unit/probe/probe_test_util.h -- what the probe tests share: the PCI id
 * table (mirroring rules/catalog.yaml), fixture configs, lookups in a
 * snapshot, and small file-tree builders for trees made at test time.
 * Header-only: each test file is its own executable. Include after cmocka.h. */
#ifndef PROBE_TEST_UTIL_H
#define PROBE_TEST_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/probe.h"

#define GIB (1024ULL * 1024ULL * 1024ULL)

/* snprintf that fails the test rather than truncate. */
static inline void fmt(char *buf, size_t cap, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static inline void fmt(char *buf, size_t cap, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(buf, cap, format, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap)
        fail_msg("path too long: %s", buf);
}

/* The catalog's PCI ids as the core would hand them over (rules/catalog.yaml),
 * plus TPU v2/v3 rows with subsystem ids to check the exact-subsystem rule. */
static const struct probe_pci_id test_ids[] = {
    {0x10de, 0x2330, 0, "h100", "gpu", "NVIDIA H100 SXM 80GB", 80 * GIB},
    {0x10de, 0x2331, 0, "h100", "gpu", "NVIDIA H100 SXM 80GB", 80 * GIB},
    {0x10de, 0x20b2, 0, "a100", "gpu", "NVIDIA A100 80GB SXM", 80 * GIB},
    {0x10de, 0x20b5, 0, "a100", "gpu", "NVIDIA A100 80GB SXM", 80 * GIB},
    {0x1002, 0x74a1, 0, "mi300x", "gpu", "AMD Instinct MI300X", 192 * GIB},
    {0x1ae0, 0x005e, 0, "tpu-v4", "tpu", "Google Cloud TPU v4", 32 * GIB},
    {0x1ae0, 0x0063, 0, "tpu-v5e", "tpu", "Google Cloud TPU v5e", 16 * GIB},
    {0x1ae0, 0x0062, 0, "tpu-v5p", "tpu", "Google Cloud TPU v5p", 95 * GIB},
    {0x1ae0, 0x0027, 0x004f, "tpu-v3", "tpu", "Google Cloud TPU v3", 16 * GIB},
};
#define N_TEST_IDS (sizeof(test_ids) / sizeof(test_ids[0]))

struct fixture {
    char sys[1024];
    char dev[1024];
    char proc[1024];
    char nvml[1024];
    struct probe_config cfg;
};

/* A config for tests/fixtures/hosts/<host>, NVML off. */
static inline void fixture_init(struct fixture *f, const char *host)
{
    memset(f, 0, sizeof(*f));
    fmt(f->sys, sizeof(f->sys), "%s/hosts/%s/sys", AA_FIXTURES_DIR, host);
    fmt(f->dev, sizeof(f->dev), "%s/hosts/%s/dev", AA_FIXTURES_DIR, host);
    fmt(f->proc, sizeof(f->proc), "%s/hosts/%s/proc", AA_FIXTURES_DIR, host);
    f->cfg.sysfs_root = f->sys;
    f->cfg.dev_root = f->dev;
    f->cfg.proc_root = f->proc;
    f->cfg.nvml_mode = PROBE_NVML_OFF;
    f->cfg.ids = test_ids;
    f->cfg.n_ids = N_TEST_IDS;
}

/* The same with the test NVML library at `lib` answering from `conf` (a path
 * relative to the host's fixture directory, or absolute). */
static inline void fixture_init_nvml(struct fixture *f, const char *host, const char *lib,
                                     const char *conf)
{
    fixture_init(f, host);
    f->cfg.nvml_mode = PROBE_NVML_PATH;
    f->cfg.nvml_path = lib;
    if (conf == NULL)
        unsetenv("FAKE_NVML_CONFIG");
    else {
        if (conf[0] == '/')
            fmt(f->nvml, sizeof(f->nvml), "%s", conf);
        else
            fmt(f->nvml, sizeof(f->nvml), "%s/hosts/%s/%s", AA_FIXTURES_DIR, host, conf);
        setenv("FAKE_NVML_CONFIG", f->nvml, 1);
    }
}

static inline const struct probe_snapshot *run_ok(const struct probe_config *cfg)
{
    const struct probe_snapshot *s = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc = probe_run(cfg, &s, &err);
    if (rc != DC_OK)
        fail_msg("probe_run: %s: %s", dc_status_name(rc), err.msg);
    assert_non_null(s);
    return s;
}

static inline const struct probe_device *find_dev(const struct probe_snapshot *s, const char *addr)
{
    for (size_t i = 0; i < s->n_devices; i++) {
        if (strcmp(s->devices[i].pci_address, addr) == 0)
            return &s->devices[i];
    }
    fail_msg("no device %s in the snapshot", addr);
    return NULL;
}

/* How many warnings contain every given fragment (NULL-terminated list). */
static inline size_t count_warnings(const struct probe_snapshot *s, ...)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_warnings; i++) {
        va_list ap;
        va_start(ap, s);
        bool all = true;
        for (const char *frag = va_arg(ap, const char *); frag != NULL;
             frag = va_arg(ap, const char *)) {
            if (strstr(s->warnings[i], frag) == NULL)
                all = false;
        }
        va_end(ap);
        if (all)
            n++;
    }
    return n;
}

static inline void dump_warnings(const struct probe_snapshot *s)
{
    for (size_t i = 0; i < s->n_warnings; i++)
        fprintf(stderr, "  warning: %s\n", s->warnings[i]);
}

#define assert_warning(s, ...)                                                                     \
    do {                                                                                           \
        if (count_warnings((s), __VA_ARGS__, (const char *)NULL) == 0) {                           \
            dump_warnings(s);                                                                      \
            fail_msg("no warning with %s", #__VA_ARGS__);                                          \
        }                                                                                          \
    } while (0)

#define assert_no_warning(s, ...)                                                                  \
    do {                                                                                           \
        if (count_warnings((s), __VA_ARGS__, (const char *)NULL) != 0) {                           \
            dump_warnings(s);                                                                      \
            fail_msg("unexpected warning with %s", #__VA_ARGS__);                                  \
        }                                                                                          \
    } while (0)

/* ----------------------------------------------- trees built at test time */

/* Write `text` to root/rel, creating parent directories. */
static inline void put_file(const char *root, const char *rel, const char *text)
{
    char path[2048];
    fmt(path, sizeof(path), "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                fail_msg("mkdir %s: %s", path, strerror(errno));
            *p = '/';
        }
    }
    FILE *fp = fopen(path, "w");
    if (fp == NULL)
        fail_msg("fopen %s: %s", path, strerror(errno));
    fputs(text, fp);
    fclose(fp);
}

static inline void put_link(const char *root, const char *rel, const char *target)
{
    char path[2048];
    fmt(path, sizeof(path), "%s/%s", root, rel);
    char dir[2048];
    fmt(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    *slash = '\0';
    char keep[2100];
    fmt(keep, sizeof(keep), "%s/.keep", dir + strlen(root) + 1);
    put_file(root, keep, "");
    if (symlink(target, path) != 0)
        fail_msg("symlink %s: %s", path, strerror(errno));
}

/* A PCI function in a tree at root (plays a host root with sys/ under it). */
static inline void put_pci(const char *root, const char *addr, const char *vendor,
                           const char *device, const char *cls, const char *subsys)
{
    char rel[512], link[512], target[512];
    fmt(rel, sizeof(rel), "sys/devices/pci0000:00/%s/vendor", addr);
    put_file(root, rel, vendor);
    fmt(rel, sizeof(rel), "sys/devices/pci0000:00/%s/device", addr);
    put_file(root, rel, device);
    fmt(rel, sizeof(rel), "sys/devices/pci0000:00/%s/class", addr);
    put_file(root, rel, cls);
    if (subsys != NULL) {
        fmt(rel, sizeof(rel), "sys/devices/pci0000:00/%s/subsystem_device", addr);
        put_file(root, rel, subsys);
    }
    fmt(link, sizeof(link), "sys/bus/pci/devices/%s", addr);
    fmt(target, sizeof(target), "../../../devices/pci0000:00/%s", addr);
    put_link(root, link, target);
}

/* A fresh directory under /tmp; remove it with rm_tree(). */
static inline void make_tmp_root(char *buf, size_t cap)
{
    fmt(buf, cap, "/tmp/probe-test-XXXXXX");
    if (mkdtemp(buf) == NULL)
        fail_msg("mkdtemp: %s", strerror(errno));
}

static inline void rm_tree(const char *root)
{
    char cmd[1200];
    if (strncmp(root, "/tmp/probe-test-", 16) != 0)
        return;
    fmt(cmd, sizeof(cmd), "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", root, root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
}

/* A config for a tree made at test time. */
static inline void tmp_config(struct fixture *f, const char *root)
{
    memset(f, 0, sizeof(*f));
    fmt(f->sys, sizeof(f->sys), "%s/sys", root);
    fmt(f->dev, sizeof(f->dev), "%s/dev", root);
    fmt(f->proc, sizeof(f->proc), "%s/proc", root);
    f->cfg.sysfs_root = f->sys;
    f->cfg.dev_root = f->dev;
    f->cfg.proc_root = f->proc;
    f->cfg.nvml_mode = PROBE_NVML_OFF;
    f->cfg.ids = test_ids;
    f->cfg.n_ids = N_TEST_IDS;
}

/* Write an NVML config for the test library to a temporary file. */
static inline void write_nvml_conf(char *path, size_t cap, const char *text)
{
    fmt(path, cap, "/tmp/probe-nvml-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        fail_msg("mkstemp: %s", strerror(errno));
    size_t len = strlen(text);
    if (write(fd, text, len) != (ssize_t)len)
        fail_msg("write %s", path);
    close(fd);
}

#endif /* PROBE_TEST_UTIL_H */
