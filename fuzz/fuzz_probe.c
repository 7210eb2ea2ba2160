/* fuzz/fuzz_probe.c -- the probe's parsers of sysfs and /proc text, alone and
 * inside a whole probe_run() over a small fake host written from the input.
 *
 * Input: fields separated by NUL bytes (all optional; a missing field is a
 * missing file, an empty field an empty file):
 *   0 vendor   1 device   2 class   3 subsystem_device   (PCI attributes)
 *   4 mem_info_vram_total   5 mem_info_vram_used   6 gpu_busy_percent (amdgpu)
 *   7 iommu_group link target   8 target of the fd link /proc/4242/fd/3
 *   9 /proc/cpuinfo   10 /proc/meminfo
 *   11 name of the PCI device directory (default "0000:3b:00.0")
 *
 * Invariants (each aborts when broken):
 *  - each field through probe__parse_hex_attr (1 to 8 digits),
 *    probe__parse_u64_attr, probe__parse_uint, probe__pci_addr_parse and
 *    probe__tpu_match_node gives exactly what an independent reference parser
 *    written from the documented grammar gives (accepted or not, and the
 *    value); a refusal comes with a reason;
 *  - a PCI address round-trips: parse(format(parse(x))) == parse(x), and the
 *    format is the canonical lower-case form;
 *  - probe_run() on the fake host returns DC_OK; the snapshot holds the one
 *    device exactly when the reference parsers say the directory name is a
 *    canonical address, the vendor is NVIDIA, AMD or Google, the ids parse and
 *    the class is an accelerator class (or the ids are a TPU); its ids,
 *    address, amdgpu counters (with the documented range checks) and TPU
 *    holder are the ones the files say; the snapshot renders as JSON that
 *    parses back strictly, and as a table.
 * The fake host lives in a fresh directory per input, removed afterwards, so
 * each input is probed alone and the same way every time. */
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/openapi.h"
#include "fuzz_common.h"
#include "probe_internal.h"

#define N_FIELDS         12
#define DEFAULT_PCI_NAME "0000:3b:00.0"
#define HOLDER_PID       4242
#define HOLDER_PID_NAME  "4242"
#define TPU_LINK_MAX     64 /* probe_tpu.c reads fd link targets into this many bytes */
#define LINK_TARGET_MAX  1024

enum {
    F_VENDOR,
    F_DEVICE,
    F_CLASS,
    F_SUBSYS,
    F_VRAM_TOTAL,
    F_VRAM_USED,
    F_BUSY,
    F_IOMMU,
    F_FD_LINK,
    F_CPUINFO,
    F_MEMINFO,
    F_PCI_NAME
};

struct field {
    bool present;
    const char *p; /* NUL-terminated (fields never hold a NUL) */
    size_t len;
};

static const struct probe_pci_id ids[] = {
    {0x10de, 0x2330, 0, "h100", NULL, "NVIDIA H100 SXM 80GB", 80000000000u},
    {0x1002, 0x74a1, 0, "mi300x", NULL, NULL, 192000000000u},
    {0x1002, 0x740f, 0, "mi210", "gpu", NULL, 0},
    {0x1ae0, 0x0063, 0, "tpu-v5e", "tpu", NULL, 16000000000u},
    {0x1ae0, 0x0027, 0x004f, "tpu-v3", NULL, NULL, 0},
};

static char g_base[PATH_MAX];

static int hexval(char c);
static bool ref_hex_attr(const char *t, size_t len, unsigned digits, uint32_t *out);
static bool ref_u64(const char *t, size_t len, uint64_t *out);
static bool ref_pci_addr(const char *s, struct probe_pci_addr *out);
static bool ref_tpu_node(const char *s, int *kind, unsigned long *number);
static void check_parsers(const struct field *f);
static void check_pci_roundtrip(const char *s);
static void rm_tree(const char *path);
static void remove_base(void);
static void make_dir(const char *path);
static void write_file(const char *dir, const char *name, const struct field *f);
static bool link_usable(const struct field *f);
static void write_link(const char *dir, const char *name, const struct field *f);
static bool is_accel_class(uint32_t cls);
static bool attr_hex(const struct field *f, unsigned digits, uint32_t *out);
static bool attr_u64(const struct field *f, uint64_t *out);
static void join(char *buf, const char *dir, const char *rel);
static void probe_fake_host(const struct field *f);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* $TMPDIR, else /dev/shm (RAM: a disk makes each input cost ms), else /tmp. */
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0')
        tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(g_base, sizeof(g_base), "%s/aa-fuzz-probe-XXXXXX", tmp);
    FUZZ_CHECK(mkdtemp(g_base) != NULL, "mkdtemp %s: %s", g_base, strerror(errno));
    atexit(remove_base);
    return 0;
}

static void remove_base(void)
{
    rm_tree(g_base);
}

/* ---- reference parsers, written from the grammar in probe_internal.h ---- */

static int hexval(char c)
{
    const char *digits = "0123456789abcdef";
    char lower = (c >= 'A' && c <= 'F') ? (char)(c - 'A' + 'a') : c;
    const char *p = lower != '\0' ? strchr(digits, lower) : NULL;
    return p != NULL ? (int)(p - digits) : -1;
}

/* "0x" or "0X", exactly `digits` hex digits, one newline. */
static bool ref_hex_attr(const char *t, size_t len, unsigned digits, uint32_t *out)
{
    if (len != 2 + digits + 1 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X') || t[len - 1] != '\n')
        return false;
    uint32_t v = 0;
    for (size_t i = 2; i < len - 1; i++) {
        int h = hexval(t[i]);
        if (h < 0)
            return false;
        v = v * 16u + (uint32_t)h;
    }
    *out = v;
    return true;
}

/* One or more decimal digits whose value fits in 64 bits (compared as text
 * against 18446744073709551615, so no arithmetic is shared with the code). */
static bool ref_u64(const char *t, size_t len, uint64_t *out)
{
    static const char max[] = "18446744073709551615";
    if (len == 0 || strspn(t, "0123456789") < len)
        return false;
    size_t z = 0;
    while (z + 1 < len && t[z] == '0')
        z++;
    size_t sig = len - z;
    if (sig > sizeof(max) - 1 || (sig == sizeof(max) - 1 && strncmp(t + z, max, sig) > 0))
        return false;
    char buf[32];
    memcpy(buf, t + z, sig);
    buf[sig] = '\0';
    *out = strtoull(buf, NULL, 10);
    return true;
}

/* [hex]{4,8} ':' [hex]{2} ':' [hex]{2} '.' [hex], device <= 0x1f, function <= 7. */
static bool ref_pci_addr(const char *s, struct probe_pci_addr *out)
{
    size_t len = strlen(s);
    if (len < 4 + 8 || len > 8 + 8)
        return false;
    size_t d = len - 8; /* domain digits */
    for (size_t i = 0; i < len; i++) {
        bool sep = i == d || i == d + 3 || i == d + 6;
        if (sep && s[i] != (i == d + 6 ? '.' : ':'))
            return false;
        if (!sep && hexval(s[i]) < 0)
            return false;
    }
    uint32_t dom = 0;
    for (size_t i = 0; i < d; i++)
        dom = dom * 16u + (uint32_t)hexval(s[i]);
    unsigned bus = (unsigned)(hexval(s[d + 1]) * 16 + hexval(s[d + 2]));
    unsigned dev = (unsigned)(hexval(s[d + 4]) * 16 + hexval(s[d + 5]));
    unsigned fn = (unsigned)hexval(s[d + 7]);
    if (dev > 0x1f || fn > 7)
        return false;
    out->domain = dom;
    out->bus = (uint8_t)bus;
    out->dev = (uint8_t)dev;
    out->fn = (uint8_t)fn;
    return true;
}

/* "/dev/accel<N>" or "/dev/vfio/<N>", N decimal and at most LONG_MAX. */
static bool ref_tpu_node(const char *s, int *kind, unsigned long *number)
{
    const char *rest;
    if (strncmp(s, "/dev/accel", 10) == 0) {
        rest = s + 10;
        *kind = PROBE_TPU_NODE_ACCEL;
    } else if (strncmp(s, "/dev/vfio/", 10) == 0) {
        rest = s + 10;
        *kind = PROBE_TPU_NODE_VFIO;
    } else {
        return false;
    }
    uint64_t v = 0;
    if (!ref_u64(rest, strlen(rest), &v) || v > (uint64_t)LONG_MAX)
        return false;
    *number = (unsigned long)v;
    return true;
}

static void check_pci_roundtrip(const char *s)
{
    struct probe_pci_addr a, ra, b;
    memset(&a, 0, sizeof(a));
    memset(&ra, 0, sizeof(ra));
    bool ok = probe__pci_addr_parse(s, &a);
    bool rok = ref_pci_addr(s, &ra);
    FUZZ_CHECK(ok == rok, "probe__pci_addr_parse(\"%.40s\") = %d, reference %d", s, (int)ok,
               (int)rok);
    if (!ok)
        return;
    FUZZ_CHECK(probe__pci_addr_cmp(&a, &ra) == 0, "probe__pci_addr_parse(\"%.40s\"): wrong value",
               s);
    char buf[PROBE_PCI_ADDRESS_SIZE + 8];
    memset(buf, 'Z', sizeof(buf));
    probe__pci_addr_format(&a, buf);
    size_t blen = strnlen(buf, sizeof(buf));
    FUZZ_CHECK(blen < PROBE_PCI_ADDRESS_SIZE, "format of \"%.40s\" overflows", s);
    FUZZ_CHECK(strspn(buf, "0123456789abcdef:.") == blen, "format \"%s\" is not lower-case hex",
               buf);
    memset(&b, 0, sizeof(b));
    FUZZ_CHECK(probe__pci_addr_parse(buf, &b) && probe__pci_addr_cmp(&a, &b) == 0,
               "parse(format(parse(\"%.40s\"))) = parse(\"%s\") differs", s, buf);
    char again[PROBE_PCI_ADDRESS_SIZE];
    probe__pci_addr_format(&b, again);
    FUZZ_CHECK(strcmp(buf, again) == 0, "format not canonical: \"%s\" then \"%s\"", buf, again);
}

static void check_parsers(const struct field *f)
{
    const char *why = NULL;
    for (unsigned digits = 1; digits <= 8; digits++) {
        uint32_t v = 0, rv = 0;
        enum dc_status rc = probe__parse_hex_attr(f->p, f->len, digits, &v, &why);
        bool rok = ref_hex_attr(f->p, f->len, digits, &rv);
        FUZZ_CHECK((rc == DC_OK) == rok, "probe__parse_hex_attr(\"%.40s\", %u) = %s, reference %d",
                   f->p, digits, dc_status_name(rc), (int)rok);
        FUZZ_CHECK(rc == DC_OK || rc == DC_EPARSE, "probe__parse_hex_attr: status %s",
                   dc_status_name(rc));
        if (rc == DC_OK)
            FUZZ_CHECK(v == rv, "probe__parse_hex_attr(\"%.40s\", %u) = 0x%x, reference 0x%x", f->p,
                       digits, (unsigned)v, (unsigned)rv);
        else
            FUZZ_CHECK(why != NULL && why[0] != '\0', "probe__parse_hex_attr: no reason");
    }
    uint64_t u = 0, ru = 0;
    enum dc_status rc = probe__parse_u64_attr(f->p, f->len, &u, &why);
    bool rok = f->len >= 2 && f->p[f->len - 1] == '\n' && ref_u64(f->p, f->len - 1, &ru);
    FUZZ_CHECK((rc == DC_OK) == rok, "probe__parse_u64_attr(\"%.40s\") = %s, reference %d", f->p,
               dc_status_name(rc), (int)rok);
    FUZZ_CHECK(rc == DC_OK || rc == DC_EPARSE, "probe__parse_u64_attr: status %s",
               dc_status_name(rc));
    if (rc == DC_OK)
        FUZZ_CHECK(u == ru, "probe__parse_u64_attr(\"%.40s\") = %llu, reference %llu", f->p,
                   (unsigned long long)u, (unsigned long long)ru);
    else
        FUZZ_CHECK(why != NULL && why[0] != '\0', "probe__parse_u64_attr: no reason");

    bool ok = probe__parse_uint(f->p, f->len, &u);
    rok = ref_u64(f->p, f->len, &ru);
    FUZZ_CHECK(ok == rok && (!ok || u == ru),
               "probe__parse_uint(\"%.40s\") = %d %llu, reference %d %llu", f->p, (int)ok,
               (unsigned long long)u, (int)rok, (unsigned long long)ru);

    check_pci_roundtrip(f->p);

    int kind = -1, rkind = -1;
    unsigned long num = 0, rnum = 0;
    ok = probe__tpu_match_node(f->p, &kind, &num);
    rok = ref_tpu_node(f->p, &rkind, &rnum);
    FUZZ_CHECK(ok == rok && (!ok || (kind == rkind && num == rnum)),
               "probe__tpu_match_node(\"%.40s\") = %d %d %lu, reference %d %d %lu", f->p, (int)ok,
               kind, num, (int)rok, rkind, rnum);
}

/* ---- the fake host ---------------------------------------------------------- */

/* Remove `path` and everything under it (links are removed, never followed). */
static void rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        FUZZ_CHECK(d != NULL, "opendir %s: %s", path, strerror(errno));
        for (;;) {
            struct dirent *de = readdir(d);
            if (de == NULL)
                break;
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char child[PATH_MAX];
            join(child, path, de->d_name);
            rm_tree(child);
        }
        closedir(d);
        FUZZ_CHECK(rmdir(path) == 0, "rmdir %s: %s", path, strerror(errno));
    } else {
        FUZZ_CHECK(unlink(path) == 0, "unlink %s: %s", path, strerror(errno));
    }
}

static void make_dir(const char *path)
{
    FUZZ_CHECK(mkdir(path, 0700) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
}

static void write_file(const char *dir, const char *name, const struct field *f)
{
    if (!f->present)
        return;
    char path[PATH_MAX];
    join(path, dir, name);
    FILE *fp = fopen(path, "wb");
    FUZZ_CHECK(fp != NULL, "fopen %s: %s", path, strerror(errno));
    FUZZ_CHECK(f->len == 0 || fwrite(f->p, 1, f->len, fp) == f->len, "write %s failed", path);
    FUZZ_CHECK(fclose(fp) == 0, "close %s failed", path);
}

/* Whether a field becomes a symlink: a target cannot be empty, and one of
 * more than LINK_TARGET_MAX bytes is left out (the kernel's own limit is
 * PATH_MAX - 1, which a fuzzed field may pass). */
static bool link_usable(const struct field *f)
{
    return f->present && f->len > 0 && f->len <= LINK_TARGET_MAX;
}

/* A symlink named `name` in `dir` pointing at the field's text, when usable. */
static void write_link(const char *dir, const char *name, const struct field *f)
{
    if (!link_usable(f))
        return;
    char path[PATH_MAX];
    join(path, dir, name);
    FUZZ_CHECK(symlink(f->p, path) == 0, "symlink %s: %s", path, strerror(errno));
}

static bool is_accel_class(uint32_t cls)
{
    /* probe/probe.h: VGA, 3D controller, other display controller, processing
     * accelerator; the programming interface byte does not matter. */
    uint32_t top = cls >> 8;
    return top == 0x0300 || top == 0x0302 || top == 0x0380 || top == 0x1200;
}

static bool attr_hex(const struct field *f, unsigned digits, uint32_t *out)
{
    return f->present && f->len < PROBE_ATTR_MAX && ref_hex_attr(f->p, f->len, digits, out);
}

static bool attr_u64(const struct field *f, uint64_t *out)
{
    return f->present && f->len < PROBE_ATTR_MAX && f->len >= 2 && f->p[f->len - 1] == '\n' &&
           ref_u64(f->p, f->len - 1, out);
}

/* dir + "/" + rel into buf (PATH_MAX bytes); the fake host's paths are short. */
static void join(char *buf, const char *dir, const char *rel)
{
    int n = snprintf(buf, PATH_MAX, "%s/%s", dir, rel);
    FUZZ_CHECK(n > 0 && n < PATH_MAX, "path %s/%s too long", dir, rel);
}

/* The fake host's three trees under g_base/host (sys, dev and proc, each
 * PATH_MAX bytes), its one PCI device's files written from the fields.
 * Returns the device directory's name. */
static const char *build_fake_host(const struct field *f, char *sys, char *dev, char *proc)
{
    char root[PATH_MAX], path[PATH_MAX], devices[PATH_MAX], pcidir[PATH_MAX], fd[PATH_MAX];
    join(root, g_base, "host");
    rm_tree(root);
    make_dir(root);
    join(sys, root, "sys");
    join(dev, root, "dev");
    join(proc, root, "proc");
    make_dir(sys);
    make_dir(dev);
    make_dir(proc);
    join(path, sys, "bus");
    make_dir(path);
    join(path, sys, "bus/pci");
    make_dir(path);
    join(devices, sys, "bus/pci/devices");
    make_dir(devices);

    /* The directory name: the field when it can name a directory. */
    const char *name = DEFAULT_PCI_NAME;
    const struct field *fn = &f[F_PCI_NAME];
    if (fn->present && fn->len > 0 && fn->len < 64 && strchr(fn->p, '/') == NULL &&
        strcmp(fn->p, ".") != 0 && strcmp(fn->p, "..") != 0)
        name = fn->p;
    join(pcidir, devices, name);
    make_dir(pcidir);
    write_file(pcidir, "vendor", &f[F_VENDOR]);
    write_file(pcidir, "device", &f[F_DEVICE]);
    write_file(pcidir, "class", &f[F_CLASS]);
    write_file(pcidir, "subsystem_device", &f[F_SUBSYS]);
    write_file(pcidir, "mem_info_vram_total", &f[F_VRAM_TOTAL]);
    write_file(pcidir, "mem_info_vram_used", &f[F_VRAM_USED]);
    write_file(pcidir, "gpu_busy_percent", &f[F_BUSY]);
    write_link(pcidir, "iommu_group", &f[F_IOMMU]);
    /* Device nodes: accel0 and vfio/0 exist. */
    struct field empty = {true, "", 0};
    write_file(dev, "accel0", &empty);
    join(path, dev, "vfio");
    make_dir(path);
    write_file(path, "0", &empty);
    write_file(proc, "cpuinfo", &f[F_CPUINFO]);
    write_file(proc, "meminfo", &f[F_MEMINFO]);
    join(path, proc, HOLDER_PID_NAME);
    make_dir(path);
    join(fd, path, "fd");
    make_dir(fd);
    write_link(fd, "3", &f[F_FD_LINK]);
    return name;
}

/* An AMD device's memory and utilisation against its files (a total the
 * catalog gives when the file does not). */
static void check_amd(const struct field *f, const struct probe_device *d,
                      const struct probe_pci_id *id)
{
    uint64_t total = 0, used = 0, busy = 0;
    bool total_ok = attr_u64(&f[F_VRAM_TOTAL], &total);
    bool has_total = total_ok || (id != NULL && id->memory_bytes > 0);
    if (!total_ok && has_total)
        total = id->memory_bytes;
    bool used_ok = attr_u64(&f[F_VRAM_USED], &used) && !(has_total && used > total);
    bool busy_ok = attr_u64(&f[F_BUSY], &busy) && busy <= 100;
    FUZZ_CHECK(d->has_memory_total == has_total && (!has_total || d->memory_total_bytes == total),
               "memory total %d %llu, expected %d %llu", (int)d->has_memory_total,
               (unsigned long long)d->memory_total_bytes, (int)has_total,
               (unsigned long long)total);
    FUZZ_CHECK(d->has_memory_used == used_ok && (!used_ok || d->memory_used_bytes == used),
               "memory used %d %llu, expected %d %llu", (int)d->has_memory_used,
               (unsigned long long)d->memory_used_bytes, (int)used_ok, (unsigned long long)used);
    FUZZ_CHECK(d->has_utilization == busy_ok && (!busy_ok || d->utilization_percent == busy),
               "utilisation %d %u, expected %d %llu", (int)d->has_utilization,
               d->utilization_percent, (int)busy_ok, (unsigned long long)busy);
}

/* A TPU's generation, node and holder against its files. */
static void check_tpu(const struct field *f, const struct probe_device *d,
                      const struct probe__tpu_generation *gen)
{
    /* The chip's node: accel<index> for v2-v4, vfio/<IOMMU group> for v5e on
     * (index 0 when the group link is unusable). A holder is a process
     * whose fd link (read into 64 bytes) names that node. */
    FUZZ_CHECK(d->index == 0, "TPU index %d", d->index);
    FUZZ_CHECK(d->generation != NULL && strcmp(d->generation, gen->name) == 0,
               "generation %s, expected %s", d->generation != NULL ? d->generation : "(null)",
               gen->name);
    unsigned long node = 0;
    const struct field *io = &f[F_IOMMU];
    if (gen->kind == PROBE_TPU_NODE_VFIO && link_usable(io)) {
        const char *base = strrchr(io->p, '/');
        base = base != NULL ? base + 1 : io->p;
        uint64_t g = 0;
        if (ref_u64(base, strlen(base), &g) && g <= (uint64_t)LONG_MAX)
            node = (unsigned long)g;
    }
    bool held = false;
    const struct field *fl = &f[F_FD_LINK];
    if (link_usable(fl)) {
        char target[TPU_LINK_MAX];
        snprintf(target, sizeof(target), "%s", fl->p);
        int kind = -1;
        unsigned long num = 0;
        held = ref_tpu_node(target, &kind, &num) && kind == (int)gen->kind && num == node;
    }
    FUZZ_CHECK(d->in_use == (held ? PROBE_IN_USE_YES : PROBE_IN_USE_NO),
               "TPU in_use %d, expected held %d (node %lu)", (int)d->in_use, (int)held, node);
    FUZZ_CHECK(held ? (d->n_pids == 1 && d->pids[0] == HOLDER_PID) : d->n_pids == 0,
               "TPU holders: %zu pids", d->n_pids);
    bool node_exists = node == 0;
    FUZZ_CHECK(d->n_nodes == (node_exists ? 1u : 0u), "TPU nodes %zu, node %lu exists %d",
               d->n_nodes, node, (int)node_exists);
}

/* The snapshot's device (or its absence) against what the reference parsers
 * read from the files. */
static void check_device(const struct field *f, const char *name, const struct probe_config *cfg,
                         const struct probe_snapshot *snap)
{
    /* What the files say, by the reference parsers. */
    struct probe_pci_addr addr;
    char canon[PROBE_PCI_ADDRESS_SIZE];
    bool name_ok = name[0] != '.' && ref_pci_addr(name, &addr);
    if (name_ok) {
        probe__pci_addr_format(&addr, canon);
        name_ok = strcmp(canon, name) == 0;
    }
    uint32_t vendor = 0, device = 0, cls = 0, sub = 0;
    bool vendor_ok = attr_hex(&f[F_VENDOR], 4, &vendor);
    bool known = vendor_ok && (vendor == PROBE_PCI_VENDOR_NVIDIA ||
                               vendor == PROBE_PCI_VENDOR_AMD || vendor == PROBE_PCI_VENDOR_GOOGLE);
    bool device_ok = attr_hex(&f[F_DEVICE], 4, &device);
    bool cls_ok = attr_hex(&f[F_CLASS], 6, &cls);
    bool sub_ok = attr_hex(&f[F_SUBSYS], 4, &sub);
    const struct probe__tpu_generation *gen =
        vendor == PROBE_PCI_VENDOR_GOOGLE && device_ok
            ? probe__tpu_generation((uint16_t)device, sub_ok, (uint16_t)sub)
            : NULL;
    bool expect = name_ok && known && device_ok && ((cls_ok && is_accel_class(cls)) || gen != NULL);

    FUZZ_CHECK(snap->n_devices == (expect ? 1u : 0u), "%zu devices, expected %d (name %s)",
               snap->n_devices, (int)expect, name);
    if (expect) {
        const struct probe_device *d = &snap->devices[0];
        FUZZ_CHECK(d->pci_vendor == vendor && d->pci_device == device,
                   "ids %04x:%04x, files say %04x:%04x", (unsigned)d->pci_vendor,
                   (unsigned)d->pci_device, (unsigned)vendor, (unsigned)device);
        FUZZ_CHECK(strcmp(d->pci_address, name) == 0, "address %s, directory %s", d->pci_address,
                   name);
        FUZZ_CHECK(d->has_pci_class == cls_ok && (!cls_ok || d->pci_class == cls),
                   "class %d 0x%06x, file says %d 0x%06x", (int)d->has_pci_class,
                   (unsigned)d->pci_class, (int)cls_ok, (unsigned)cls);
        FUZZ_CHECK(d->has_pci_subsystem_device == sub_ok &&
                       (!sub_ok || d->pci_subsystem_device == sub),
                   "subsystem %d, file says %d", (int)d->has_pci_subsystem_device, (int)sub_ok);
        FUZZ_CHECK(d->vendor != NULL && d->family != NULL && d->name != NULL,
                   "device without vendor, family or name");
        const struct probe_pci_id *id =
            probe__ids_lookup(cfg, (uint16_t)vendor, (uint16_t)device, sub_ok, (uint16_t)sub);
        FUZZ_CHECK(d->unknown == (id == NULL) &&
                       (id == NULL || strcmp(d->catalog_id, id->catalog_id) == 0),
                   "catalog id %s, table says %s", d->catalog_id != NULL ? d->catalog_id : "(null)",
                   id != NULL ? id->catalog_id : "(none)");
        if (vendor == PROBE_PCI_VENDOR_AMD)
            check_amd(f, d, id);
        if (gen != NULL)
            check_tpu(f, d, gen);
    }
}

/* The snapshot's warnings, its JSON (which must parse back) and its tables. */
static void check_outputs(const struct probe_snapshot *snap)
{
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc;
    for (size_t i = 0; i < snap->n_warnings; i++)
        FUZZ_CHECK(snap->warnings[i] != NULL && snap->warnings[i][0] != '\0', "empty warning %zu",
                   i);

    cJSON *json = NULL;
    rc = probe_snapshot_to_json(snap, &json, &err);
    FUZZ_CHECK(rc == DC_OK && json != NULL, "probe_snapshot_to_json: %s", dc_status_name(rc));
    char *text = cJSON_PrintUnformatted(json);
    FUZZ_CHECK(text != NULL, "printing the snapshot failed");
    cJSON *back = NULL;
    enum api_json_error jrc = api_json_parse(text, strlen(text), API_JSON_DEPTH_MAX, &back, &err);
    FUZZ_CHECK(jrc == API_JSON_OK, "the snapshot's JSON does not parse back: %s: %s: %.2000s",
               api_json_error_name(jrc), err.msg, text);
    cJSON_Delete(back);
    cJSON_free(text);
    cJSON_Delete(json);
    FILE *null = fopen("/dev/null", "w");
    FUZZ_CHECK(null != NULL, "/dev/null: %s", strerror(errno));
    for (int wide = 0; wide < 2; wide++) {
        rc = probe_snapshot_format_table(snap, null, wide != 0);
        FUZZ_CHECK(rc == DC_OK, "probe_snapshot_format_table: %s", dc_status_name(rc));
    }
    fclose(null);
}

static void probe_fake_host(const struct field *f)
{
    char sys[PATH_MAX], dev[PATH_MAX], proc[PATH_MAX], root[PATH_MAX];
    const char *name = build_fake_host(f, sys, dev, proc);
    struct probe_config cfg = {
        .sysfs_root = sys,
        .dev_root = dev,
        .proc_root = proc,
        .nvml_mode = PROBE_NVML_OFF,
        .ids = ids,
        .n_ids = sizeof(ids) / sizeof(ids[0]),
    };
    const struct probe_snapshot *snap = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc = probe_run(&cfg, &snap, &err);
    FUZZ_CHECK(rc == DC_OK && snap != NULL, "probe_run: %s: %s", dc_status_name(rc), err.msg);

    check_device(f, name, &cfg, snap);
    check_outputs(snap);
    probe_snapshot_release(snap);
    join(root, g_base, "host");
    rm_tree(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = fuzz_strndup(data, size);
    struct field f[N_FIELDS];
    memset(f, 0, sizeof(f));
    size_t start = 0;
    for (size_t i = 0; i < N_FIELDS && start <= size; i++) {
        const char *end = memchr(copy + start, '\0', size - start);
        size_t len = end != NULL ? (size_t)(end - (copy + start)) : size - start;
        f[i].present = true;
        f[i].p = copy + start;
        f[i].len = len;
        start += len + 1;
    }
    for (size_t i = 0; i < N_FIELDS; i++) {
        if (f[i].present)
            check_parsers(&f[i]);
    }
    probe_fake_host(f);
    free(copy);
    return 0;
}
