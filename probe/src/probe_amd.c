/* probe/src/probe_amd.c -- AMD GPUs: the amdgpu driver's counters in the PCI
 * device's own sysfs directory (the same directory /sys/class/drm/card<N>/device
 * points to): mem_info_vram_total and mem_info_vram_used in bytes, and
 * gpu_busy_percent (https://docs.kernel.org/gpu/amdgpu/driver-misc.html). */
#include "probe_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool collect_one(struct probe_ctx *ctx, struct probe_device *d);

/* Returns whether any counter could be read. */
static bool collect_one(struct probe_ctx *ctx, struct probe_device *d)
{
    char rel[PROBE_PATH_MAX];
    char dir[PROBE_PATH_MAX];
    uint64_t total = 0, used = 0, busy = 0;
    bool any = false;

    snprintf(rel, sizeof(rel), "bus/pci/devices/%s", d->pci_address);
    if (!probe__path_join(dir, sizeof(dir), ctx->sysfs_root, rel)) {
        probe__warn(ctx, "%s: sysfs path too long", d->pci_address);
        return false;
    }
    /* The counters exist only while amdgpu is bound; their absence is worth
     * a warning, since the device then has no live figures. */
    if (probe__read_u64_attr(ctx, dir, "mem_info_vram_total", false, &total)) {
        d->has_memory_total = true;
        d->memory_total_bytes = total;
        any = true;
    }
    if (probe__read_u64_attr(ctx, dir, "mem_info_vram_used", false, &used)) {
        if (d->has_memory_total && used > d->memory_total_bytes) {
            probe__warn(ctx, "%s/mem_info_vram_used: %llu is more than the total", dir,
                        (unsigned long long)used);
        } else {
            d->has_memory_used = true;
            d->memory_used_bytes = used;
            any = true;
        }
    }
    if (probe__read_u64_attr(ctx, dir, "gpu_busy_percent", false, &busy)) {
        if (busy > 100) {
            probe__warn(ctx, "%s/gpu_busy_percent: %llu is out of range", dir,
                        (unsigned long long)busy);
        } else {
            d->has_utilization = true;
            d->utilization_percent = (unsigned)busy;
            any = true;
        }
    }
    if (any)
        d->source = PROBE_DATA_SYSFS;
    return any;
}

/* ---- library-wide functions below ---- */

void probe__amd_collect(struct probe_ctx *ctx)
{
    size_t amd = 0, read = 0;
    for (size_t i = 0; i < ctx->snap->n_devices && !ctx->oom; i++) {
        struct probe_device *d = &ctx->snap->devices[i];
        if (d->pci_vendor != PROBE_PCI_VENDOR_AMD || !ctx->extra[i].has_addr)
            continue;
        amd++;
        if (collect_one(ctx, d))
            read++;
    }
    if (amd == 0)
        probe__source_set(ctx, PROBE_SOURCE_AMD, PROBE_SOURCE_SKIPPED, 0, NULL);
    else if (read == 0)
        probe__source_set(ctx, PROBE_SOURCE_AMD, PROBE_SOURCE_ERROR, ENOENT,
                          "no amdgpu counter could be read for %zu AMD device(s) (driver not "
                          "bound?)",
                          amd);
    else
        probe__source_set(ctx, PROBE_SOURCE_AMD, PROBE_SOURCE_OK, 0, NULL);
}
