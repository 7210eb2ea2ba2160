/* probe/src/probe_pci.c -- the PCI scan: every function under
 * <sysfs_root>/bus/pci/devices whose vendor is NVIDIA, AMD or Google and
 * whose class is an accelerator class becomes a device. */
#include "probe_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest directory name kept: a valid address has at most 16 characters. */
#define PCI_NAME_MAX 24

struct pci_entry {
    struct probe_pci_addr addr;
    char name[PCI_NAME_MAX];
};

static bool is_accelerator_class(uint32_t cls);
static int entry_cmp(const void *a, const void *b);
static void examine(struct probe_ctx *ctx, const char *devices_dir, const struct pci_entry *e);

/* Base class and subclass (the top 16 of the 24 bits): 0x0300 VGA,
 * 0x0302 3D controller (NVIDIA data-centre GPUs), 0x0380 other display
 * controller (AMD Instinct MI100/MI200 report this one), 0x1200 processing
 * accelerator. The programming interface byte is ignored. Bridges (0x0680,
 * NVSwitch), audio (0x0403) and network (0x02xx) functions of the same
 * vendors are thereby left out. */
static bool is_accelerator_class(uint32_t cls)
{
    uint32_t base_sub = cls >> 8;
    return base_sub == 0x0300 || base_sub == 0x0302 || base_sub == 0x0380 || base_sub == 0x1200;
}

static int entry_cmp(const void *a, const void *b)
{
    const struct pci_entry *x = a;
    const struct pci_entry *y = b;
    return probe__pci_addr_cmp(&x->addr, &y->addr);
}

static void examine(struct probe_ctx *ctx, const char *devices_dir, const struct pci_entry *e)
{
    char dir[PROBE_PATH_MAX];
    uint32_t vendor = 0, device = 0, cls = 0, sub = 0;

    if (!probe__path_join(dir, sizeof(dir), devices_dir, e->name)) {
        probe__warn(ctx, "%s/%s: path longer than %d bytes", devices_dir, e->name, PROBE_PATH_MAX);
        return;
    }
    if (!probe__read_hex_attr(ctx, dir, "vendor", 4, false, &vendor))
        return;
    if (probe__vendor_name((uint16_t)vendor) == NULL)
        return; /* another vendor's function: not ours to look at */
    if (!probe__read_hex_attr(ctx, dir, "device", 4, false, &device))
        return;
    bool has_cls = probe__read_hex_attr(ctx, dir, "class", 6, false, &cls);
    bool has_sub = probe__read_hex_attr(ctx, dir, "subsystem_device", 4, true, &sub);

    bool accel = has_cls && is_accelerator_class(cls);
    /* A TPU chip is recognised by its ids whatever class it reports: the
     * sources we have (tpu-info) match ids only. Other Google functions
     * (gVNIC 0x0042, class 0x0200) still need an accelerator class. */
    if (vendor == PROBE_PCI_VENDOR_GOOGLE &&
        probe__tpu_generation((uint16_t)device, has_sub, (uint16_t)sub) != NULL)
        accel = true;
    if (!accel)
        return;

    struct probe_dev_extra *x = NULL;
    struct probe_device *d = probe__device_add(ctx, &x);
    if (d == NULL)
        return;
    d->pci_vendor = (uint16_t)vendor;
    d->pci_device = (uint16_t)device;
    d->has_pci_class = has_cls;
    d->pci_class = cls;
    d->has_pci_subsystem_device = has_sub;
    d->pci_subsystem_device = (uint16_t)sub;
    x->addr = e->addr;
    x->has_addr = true;
    probe__pci_addr_format(&e->addr, d->pci_address);
    probe__device_identify(ctx, d);
}

/* ---- library-wide functions below ---- */

void probe__pci_scan(struct probe_ctx *ctx)
{
    char devices_dir[PROBE_PATH_MAX];
    DIR *dir = NULL;
    struct pci_entry *entries = NULL;
    size_t n = 0, cap = 0, seen = 0;

    if (!probe__path_join(devices_dir, sizeof(devices_dir), ctx->sysfs_root, "bus/pci/devices")) {
        probe__source_set(ctx, PROBE_SOURCE_PCI, PROBE_SOURCE_ERROR, ENAMETOOLONG,
                          "sysfs root too long");
        return;
    }
    dir = opendir(devices_dir);
    if (dir == NULL) {
        int e = errno;
        char eb[PROBE_ERRBUF];
        probe__source_set(ctx, PROBE_SOURCE_PCI, PROBE_SOURCE_ERROR, e, "%s: %s", devices_dir,
                          probe__strerror(e, eb, sizeof(eb)));
        return;
    }
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(dir);
        if (de == NULL) {
            if (errno != 0) {
                int e = errno;
                char eb[PROBE_ERRBUF];
                probe__warn(ctx, "%s: reading the directory failed: %s", devices_dir,
                            probe__strerror(e, eb, sizeof(eb)));
            }
            break;
        }
        if (de->d_name[0] == '.')
            continue; /* ".", ".." and dotfiles (a fixture's .keep) */
        if (++seen > PROBE_PCI_ENTRIES_MAX) {
            probe__warn(ctx, "%s: more than %d entries: the rest are not scanned", devices_dir,
                        PROBE_PCI_ENTRIES_MAX);
            break;
        }
        /* The kernel names these "%04x:%02x:%02x.%x"; anything else (upper
         * case included) is not one of its entries. */
        struct probe_pci_addr addr;
        char canon[PROBE_PCI_ADDRESS_SIZE];
        bool valid = strlen(de->d_name) < PCI_NAME_MAX && probe__pci_addr_parse(de->d_name, &addr);
        if (valid) {
            probe__pci_addr_format(&addr, canon);
            valid = strcmp(canon, de->d_name) == 0;
        }
        if (!valid) {
            probe__warn(ctx, "%s/%.64s: not a PCI address", devices_dir, de->d_name);
            continue;
        }
        if (n == cap) {
            size_t ncap = cap == 0 ? 64 : cap * 2;
            struct pci_entry *ne = realloc(entries, ncap * sizeof(*ne));
            if (ne == NULL) {
                ctx->oom = true;
                goto out;
            }
            entries = ne;
            cap = ncap;
        }
        entries[n].addr = addr;
        memcpy(entries[n].name, canon, sizeof(canon));
        n++;
    }
    /* readdir order is the file system's; sort so that snapshots compare. */
    if (n > 1)
        qsort(entries, n, sizeof(*entries), entry_cmp);
    for (size_t i = 0; i < n && !ctx->oom; i++)
        examine(ctx, devices_dir, &entries[i]);
    probe__source_set(ctx, PROBE_SOURCE_PCI, PROBE_SOURCE_OK, 0, NULL);
out:
    free(entries);
    closedir(dir);
}
