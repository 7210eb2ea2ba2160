/* probe/src/probe_tpu.c -- Google TPU chips (their generation from the PCI ids
 * is the kit's, probe_kit.c): the chip's device node, and which processes
 * hold it, the way tpu-info does it
 * (https://github.com/AI-Hypercomputer/cloud-accelerator-diagnostics/blob/main/tpu_info/tpu_info/device.py):
 * v2 to v4 chips are /dev/accel<N>, v5e and later /dev/vfio/<N>, and a holder is a process with an
 * fd link to that node. */
#include "probe_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Holders kept from one /proc scan (links to TPU nodes, not all links). */
#define TPU_HOLDERS_MAX 65536
/* Longest fd link target looked at; TPU node paths are short. */
#define TPU_LINK_MAX 64

struct holder {
    int kind;
    unsigned long number;
    pid_t pid;
};

struct holders {
    struct holder *v;
    size_t n;
    size_t cap;
    bool capped;
};

static bool iommu_group(struct probe_ctx *ctx, const struct probe_device *d, long *out);
static void find_node(struct probe_ctx *ctx, struct probe_device *d, struct probe_dev_extra *x);
static bool holders_push(struct probe_ctx *ctx, struct holders *h, int kind, unsigned long n,
                         pid_t pid);
static void scan_process(struct probe_ctx *ctx, int proc_fd, pid_t pid, struct holders *h,
                         size_t *fds, size_t *unreadable, bool *fd_capped);
static bool scan_holders(struct probe_ctx *ctx, struct holders *h, int *errno_out);

/* A vfio node is numbered by the function's IOMMU group, which sysfs gives as
 * the iommu_group link (".../kernel/iommu_groups/<N>"). */
static bool iommu_group(struct probe_ctx *ctx, const struct probe_device *d, long *out)
{
    char rel[PROBE_PATH_MAX];
    char path[PROBE_PATH_MAX];
    char target[PROBE_PATH_MAX];
    snprintf(rel, sizeof(rel), "bus/pci/devices/%s/iommu_group", d->pci_address);
    if (!probe__path_join(path, sizeof(path), ctx->sysfs_root, rel))
        return false;
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    if (n < 0)
        return false;
    target[n] = '\0';
    const char *base = strrchr(target, '/');
    base = base != NULL ? base + 1 : target;
    uint64_t v = 0;
    if (!probe__parse_uint(base, strlen(base), &v) || v > LONG_MAX) {
        probe__warn(ctx, "%s: iommu_group link \"%.64s\" does not end in a number", path, target);
        return false;
    }
    *out = (long)v;
    return true;
}

static void find_node(struct probe_ctx *ctx, struct probe_device *d, struct probe_dev_extra *x)
{
    char rel[64];
    char canonical[80];
    char path[PROBE_PATH_MAX];
    if (x->tpu_node_kind == PROBE_TPU_NODE_ACCEL)
        snprintf(rel, sizeof(rel), "accel%ld", x->tpu_node_number);
    else
        snprintf(rel, sizeof(rel), "vfio/%ld", x->tpu_node_number);
    snprintf(canonical, sizeof(canonical), "/dev/%s", rel);
    if (!probe__path_join(path, sizeof(path), ctx->dev_root, rel)) {
        probe__warn(ctx, "%s/%s: path too long", ctx->dev_root, rel);
        return;
    }
    /* Only the name matters (a fixture may use plain files). */
    struct stat st;
    if (lstat(path, &st) != 0) {
        int e = errno;
        char eb[PROBE_ERRBUF];
        probe__warn(ctx, "%s: %s: no device node for TPU %s", path,
                    probe__strerror(e, eb, sizeof(eb)), d->pci_address);
        return;
    }
    probe__device_add_node(ctx, d, canonical);
}

static bool holders_push(struct probe_ctx *ctx, struct holders *h, int kind, unsigned long n,
                         pid_t pid)
{
    if (h->n >= TPU_HOLDERS_MAX) {
        h->capped = true;
        return false;
    }
    if (h->n == h->cap) {
        size_t ncap = h->cap == 0 ? 16 : h->cap * 2;
        struct holder *nv = realloc(h->v, ncap * sizeof(*nv));
        if (nv == NULL) {
            ctx->oom = true;
            return false;
        }
        h->v = nv;
        h->cap = ncap;
    }
    h->v[h->n].kind = kind;
    h->v[h->n].number = n;
    h->v[h->n].pid = pid;
    h->n++;
    return true;
}

static void scan_process(struct probe_ctx *ctx, int proc_fd, pid_t pid, struct holders *h,
                         size_t *fds, size_t *unreadable, bool *fd_capped)
{
    char rel[32];
    snprintf(rel, sizeof(rel), "%ld/fd", (long)pid);
    int dfd = openat(proc_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        /* Gone since the listing (ENOENT) is normal; anything else
         * (EACCES without privileges) hides that process's holds. */
        if (errno != ENOENT)
            (*unreadable)++;
        return;
    }
    DIR *fd_dir = fdopendir(dfd);
    if (fd_dir == NULL) {
        close(dfd);
        (*unreadable)++;
        return;
    }
    for (;;) {
        struct dirent *de = readdir(fd_dir);
        if (de == NULL)
            break;
        if (de->d_name[0] == '.')
            continue;
        if (++*fds > PROBE_FDS_MAX) {
            *fd_capped = true;
            break;
        }
        char target[TPU_LINK_MAX];
        ssize_t n = readlinkat(dirfd(fd_dir), de->d_name, target, sizeof(target) - 1);
        if (n < 0)
            continue;
        target[n] = '\0';
        int kind = -1;
        unsigned long number = 0;
        if (probe__tpu_match_node(target, &kind, &number) &&
            !holders_push(ctx, h, kind, number, pid))
            break;
    }
    closedir(fd_dir);
}

/* Every process's fd links to a TPU node. False when <proc_root> cannot be
 * listed at all. */
static bool scan_holders(struct probe_ctx *ctx, struct holders *h, int *errno_out)
{
    size_t entries = 0, fds = 0, unreadable = 0;
    bool fd_capped = false;
    int proc_fd = open(ctx->proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (proc_fd < 0) {
        *errno_out = errno;
        return false;
    }
    DIR *proc = fdopendir(proc_fd);
    if (proc == NULL) {
        *errno_out = errno;
        close(proc_fd);
        return false;
    }
    for (;;) {
        struct dirent *de = readdir(proc);
        if (de == NULL)
            break;
        uint64_t pid = 0;
        if (!probe__parse_uint(de->d_name, strlen(de->d_name), &pid) || pid == 0 || pid > INT_MAX)
            continue; /* "self", "sys", "cpuinfo", ... */
        if (++entries > PROBE_PROC_ENTRIES_MAX) {
            probe__warn(ctx, "%s: more than %d processes: the rest are not scanned", ctx->proc_root,
                        PROBE_PROC_ENTRIES_MAX);
            break;
        }
        scan_process(ctx, dirfd(proc), (pid_t)pid, h, &fds, &unreadable, &fd_capped);
        if (fd_capped || h->capped || ctx->oom)
            break;
    }
    closedir(proc);
    if (unreadable > 0)
        probe__warn(ctx,
                    "%s: the fds of %zu process(es) could not be read (not root?): TPU "
                    "holders among them are not seen",
                    ctx->proc_root, unreadable);
    if (fd_capped)
        probe__warn(ctx, "%s: more than %u fd links: the scan stopped there", ctx->proc_root,
                    (unsigned)PROBE_FDS_MAX);
    if (h->capped)
        probe__warn(ctx, "%s: more than %d TPU node holds: the scan stopped there", ctx->proc_root,
                    TPU_HOLDERS_MAX);
    return true;
}

/* ---- library-wide functions below ---- */

bool probe__tpu_match_node(const char *target, int *kind, unsigned long *number)
{
    static const char accel[] = "/dev/accel";
    static const char vfio[] = "/dev/vfio/";
    const char *rest;
    int k;
    if (strncmp(target, accel, sizeof(accel) - 1) == 0) {
        rest = target + sizeof(accel) - 1;
        k = PROBE_TPU_NODE_ACCEL;
    } else if (strncmp(target, vfio, sizeof(vfio) - 1) == 0) {
        rest = target + sizeof(vfio) - 1;
        k = PROBE_TPU_NODE_VFIO;
    } else {
        return false;
    }
    uint64_t v = 0;
    if (!probe__parse_uint(rest, strlen(rest), &v) || v > LONG_MAX)
        return false;
    *kind = k;
    *number = (unsigned long)v;
    return true;
}

void probe__tpu_collect(struct probe_ctx *ctx)
{
    struct holders h;
    long next_index[2] = {0, 0};
    size_t chips = 0;
    int e = 0;
    memset(&h, 0, sizeof(h));

    /* Chips are numbered per node kind in PCI address order, as tpu-info
     * numbers them. */
    for (size_t i = 0; i < ctx->snap->n_devices; i++) {
        struct probe_device *d = &ctx->snap->devices[i];
        struct probe_dev_extra *x = &ctx->extra[i];
        if (d->pci_vendor != PROBE_PCI_VENDOR_GOOGLE || !x->has_addr)
            continue;
        const struct probe__tpu_generation *g = probe__tpu_generation(
            d->pci_device, d->has_pci_subsystem_device, d->pci_subsystem_device);
        if (g == NULL) {
            probe__warn(ctx,
                        "%s: Google accelerator 0x%04x:0x%04x is no TPU generation this "
                        "probe knows: no device node looked for",
                        d->pci_address, (unsigned)d->pci_vendor, (unsigned)d->pci_device);
            continue;
        }
        chips++;
        x->tpu_node_kind = (int)g->kind;
        d->index = (int)next_index[g->kind]++;
        long group = -1;
        x->tpu_node_number =
            g->kind == PROBE_TPU_NODE_VFIO && iommu_group(ctx, d, &group) ? group : d->index;
        find_node(ctx, d, x);
    }
    if (chips == 0) {
        probe__source_set(ctx, PROBE_SOURCE_TPU, PROBE_SOURCE_SKIPPED, 0, NULL);
        return;
    }
    if (!scan_holders(ctx, &h, &e)) {
        char eb[PROBE_ERRBUF];
        probe__source_set(ctx, PROBE_SOURCE_TPU, PROBE_SOURCE_ERROR, e,
                          "%s: %s: TPU holders unknown", ctx->proc_root,
                          probe__strerror(e, eb, sizeof(eb)));
        goto out;
    }
    for (size_t i = 0; i < ctx->snap->n_devices; i++) {
        struct probe_device *d = &ctx->snap->devices[i];
        struct probe_dev_extra *x = &ctx->extra[i];
        if (x->tpu_node_kind < 0)
            continue;
        d->in_use = PROBE_IN_USE_NO;
        for (size_t j = 0; j < h.n; j++) {
            if (h.v[j].kind == x->tpu_node_kind &&
                h.v[j].number == (unsigned long)x->tpu_node_number) {
                d->in_use = PROBE_IN_USE_YES;
                probe__device_add_pid(ctx, d, h.v[j].pid);
            }
        }
    }
    probe__source_set(ctx, PROBE_SOURCE_TPU, PROBE_SOURCE_OK, 0, NULL);
out:
    free(h.v);
}
