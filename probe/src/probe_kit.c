/* probe/src/probe_kit.c -- the helper kit the probe's sources build a snapshot
 * with: warnings, string copies, source outcomes, devices (added, given pids and
 * nodes, failed), sysfs attributes read strictly, and a device identified from
 * its PCI ids (the configured id table, the vendor names, the TPU generations).
 * Owned by probe/. The sources (probe_pci.c, probe_nvml.c, probe_amd.c,
 * probe_tpu.c, probe_host.c) call into it, the runner (probe_snapshot.c) calls
 * the sources, and nothing here calls either of them. */
#include "probe_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *vstrdupf(const char *fmt, va_list ap) DC_PRINTF(1, 0);

/* The generation of a Google PCI device id, as tpu-info's table gives it
 * (https://github.com/AI-Hypercomputer/cloud-accelerator-diagnostics/blob/main/tpu_info/tpu_info/device.py).
 */
static const struct probe__tpu_generation generations[] = {
    {0x0027, 0x004e, "v2", PROBE_TPU_NODE_ACCEL}, {0x0027, 0x004f, "v3", PROBE_TPU_NODE_ACCEL},
    {0x005e, 0, "v4", PROBE_TPU_NODE_ACCEL},      {0x0063, 0, "v5e", PROBE_TPU_NODE_VFIO},
    {0x0062, 0, "v5p", PROBE_TPU_NODE_VFIO},      {0x006f, 0, "v6e", PROBE_TPU_NODE_VFIO},
    {0x0076, 0, "7x", PROBE_TPU_NODE_VFIO},
};

static char *vstrdupf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s == NULL)
        return NULL;
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* ---- library-wide functions below ---- */

void probe__warn(struct probe_ctx *ctx, const char *fmt, ...)
{
    struct probe_snapshot *s = ctx->snap;
    if (s->n_warnings >= PROBE_WARNINGS_MAX) {
        s->n_warnings_dropped++;
        return;
    }
    if (s->n_warnings == ctx->cap_warnings) {
        size_t ncap = ctx->cap_warnings == 0 ? 16 : ctx->cap_warnings * 2;
        char **nw = realloc(s->warnings, ncap * sizeof(*nw));
        if (nw == NULL) {
            ctx->oom = true;
            return;
        }
        s->warnings = nw;
        ctx->cap_warnings = ncap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *w = vstrdupf(fmt, ap);
    va_end(ap);
    if (w == NULL) {
        ctx->oom = true;
        return;
    }
    s->warnings[s->n_warnings++] = w;
}

char *probe__strdup(struct probe_ctx *ctx, const char *s)
{
    if (s == NULL)
        return NULL;
    char *d = strdup(s);
    if (d == NULL)
        ctx->oom = true;
    return d;
}

char *probe__strdupf(struct probe_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vstrdupf(fmt, ap);
    va_end(ap);
    if (s == NULL)
        ctx->oom = true;
    return s;
}

void probe__source_set(struct probe_ctx *ctx, enum probe_source src, enum probe_source_state state,
                       int code, const char *fmt, ...)
{
    struct probe_source_report *r = &ctx->snap->sources[src];
    r->state = state;
    r->code = code;
    free(r->message);
    r->message = NULL;
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        r->message = vstrdupf(fmt, ap);
        va_end(ap);
        if (r->message == NULL)
            ctx->oom = true;
    }
}

struct probe_device *probe__device_add(struct probe_ctx *ctx, struct probe_dev_extra **extra_out)
{
    struct probe_snapshot *s = ctx->snap;
    *extra_out = NULL;
    if (s->n_devices >= PROBE_DEVICES_MAX) {
        if (!s->devices_truncated)
            probe__warn(ctx, "more than %d accelerators: the rest are not reported",
                        PROBE_DEVICES_MAX);
        s->devices_truncated = true;
        return NULL;
    }
    if (s->n_devices == ctx->cap_devices) {
        size_t ncap = ctx->cap_devices == 0 ? 8 : ctx->cap_devices * 2;
        struct probe_device *nd = realloc(s->devices, ncap * sizeof(*nd));
        if (nd == NULL) {
            ctx->oom = true;
            return NULL;
        }
        s->devices = nd;
        struct probe_dev_extra *ne = realloc(ctx->extra, ncap * sizeof(*ne));
        if (ne == NULL) {
            ctx->oom = true;
            return NULL;
        }
        ctx->extra = ne;
        ctx->cap_devices = ncap;
    }
    struct probe_device *d = &s->devices[s->n_devices];
    struct probe_dev_extra *x = &ctx->extra[s->n_devices];
    s->n_devices++;
    memset(d, 0, sizeof(*d));
    memset(x, 0, sizeof(*x));
    d->index = -1;
    d->source = PROBE_DATA_PCI;
    d->state = PROBE_DEVICE_OK;
    d->in_use = PROBE_IN_USE_UNKNOWN;
    x->tpu_node_kind = -1;
    x->tpu_node_number = -1;
    *extra_out = x;
    return d;
}

void probe__device_add_pid(struct probe_ctx *ctx, struct probe_device *d, pid_t pid)
{
    size_t pos = 0;
    while (pos < d->n_pids && d->pids[pos] < pid)
        pos++;
    if (pos < d->n_pids && d->pids[pos] == pid)
        return;
    if (d->n_pids >= PROBE_PIDS_MAX) {
        d->pids_truncated = true;
        return;
    }
    if (d->pids == NULL) {
        d->pids = malloc(PROBE_PIDS_MAX * sizeof(*d->pids));
        if (d->pids == NULL) {
            ctx->oom = true;
            return;
        }
    }
    memmove(&d->pids[pos + 1], &d->pids[pos], (d->n_pids - pos) * sizeof(*d->pids));
    d->pids[pos] = pid;
    d->n_pids++;
}

void probe__device_add_node(struct probe_ctx *ctx, struct probe_device *d, const char *path)
{
    if (d->n_nodes >= PROBE_NODES_MAX)
        return;
    if (d->nodes == NULL) {
        d->nodes = calloc(PROBE_NODES_MAX, sizeof(*d->nodes));
        if (d->nodes == NULL) {
            ctx->oom = true;
            return;
        }
    }
    char *p = probe__strdup(ctx, path);
    if (p == NULL)
        return;
    d->nodes[d->n_nodes++] = p;
}

void probe__device_fail(struct probe_ctx *ctx, struct probe_device *d,
                        enum probe_device_state state, const char *fmt, ...)
{
    if (d->state == PROBE_DEVICE_LOST && state != PROBE_DEVICE_LOST)
        return;
    if (d->state == state && d->message != NULL)
        return; /* keep the first reason */
    d->state = state;
    free(d->message);
    va_list ap;
    va_start(ap, fmt);
    d->message = vstrdupf(fmt, ap);
    va_end(ap);
    if (d->message == NULL)
        ctx->oom = true;
}

/* Read attribute `name` of `dir` into buf (path into `path`), warning about
 * every way it can fail but a missing optional file; false on any failure. */
static bool read_attr(struct probe_ctx *ctx, const char *dir, const char *name, bool optional,
                      char path[PROBE_PATH_MAX], char buf[PROBE_ATTR_MAX], size_t *len)
{
    int e = 0;
    if (!probe__path_join(path, PROBE_PATH_MAX, dir, name)) {
        probe__warn(ctx, "%s/%s: path longer than %d bytes", dir, name, PROBE_PATH_MAX);
        return false;
    }
    enum dc_status rc = probe__read_file(path, buf, PROBE_ATTR_MAX, len, &e);
    if (rc == DC_ENOTFOUND) {
        if (!optional)
            probe__warn(ctx, "%s: missing", path);
        return false;
    }
    if (rc == DC_ELIMIT) {
        probe__warn(ctx, "%s: longer than %d bytes", path, PROBE_ATTR_MAX - 1);
        return false;
    }
    if (rc != DC_OK) {
        char eb[PROBE_ERRBUF];
        probe__warn(ctx, "%s: unreadable: %s", path, probe__strerror(e, eb, sizeof(eb)));
        return false;
    }
    return true;
}

bool probe__read_hex_attr(struct probe_ctx *ctx, const char *dir, const char *name, unsigned digits,
                          bool optional, uint32_t *out)
{
    char path[PROBE_PATH_MAX], buf[PROBE_ATTR_MAX];
    size_t len = 0;
    const char *why = NULL;
    if (!read_attr(ctx, dir, name, optional, path, buf, &len))
        return false;
    if (probe__parse_hex_attr(buf, len, digits, out, &why) != DC_OK) {
        probe__warn(ctx, "%s: %s", path, why);
        return false;
    }
    return true;
}

bool probe__read_u64_attr(struct probe_ctx *ctx, const char *dir, const char *name, bool optional,
                          uint64_t *out)
{
    char path[PROBE_PATH_MAX], buf[PROBE_ATTR_MAX];
    size_t len = 0;
    const char *why = NULL;
    if (!read_attr(ctx, dir, name, optional, path, buf, &len))
        return false;
    if (probe__parse_u64_attr(buf, len, out, &why) != DC_OK) {
        probe__warn(ctx, "%s: %s", path, why);
        return false;
    }
    return true;
}

const char *probe__vendor_name(uint16_t vendor)
{
    switch (vendor) {
    case PROBE_PCI_VENDOR_NVIDIA:
        return "nvidia";
    case PROBE_PCI_VENDOR_AMD:
        return "amd";
    case PROBE_PCI_VENDOR_GOOGLE:
        return "google";
    default:
        return NULL;
    }
}

const struct probe_pci_id *probe__ids_lookup(const struct probe_config *cfg, uint16_t vendor,
                                             uint16_t device, bool has_subsystem,
                                             uint16_t subsystem)
{
    const struct probe_pci_id *wild = NULL;
    for (size_t i = 0; i < cfg->n_ids; i++) {
        const struct probe_pci_id *id = &cfg->ids[i];
        if (id->vendor != vendor || id->device != device)
            continue;
        if (id->subsystem_device == 0) {
            if (wild == NULL)
                wild = id;
        } else if (has_subsystem && id->subsystem_device == subsystem) {
            return id;
        }
    }
    return wild;
}

void probe__device_identify(struct probe_ctx *ctx, struct probe_device *d)
{
    static const char *const display[] = {"NVIDIA", "AMD", "Google"};
    const char *vname = probe__vendor_name(d->pci_vendor);
    const char *vdisp = d->pci_vendor == PROBE_PCI_VENDOR_NVIDIA ? display[0]
                        : d->pci_vendor == PROBE_PCI_VENDOR_AMD  ? display[1]
                                                                 : display[2];
    const struct probe_pci_id *id =
        probe__ids_lookup(ctx->cfg, d->pci_vendor, d->pci_device, d->has_pci_subsystem_device,
                          d->pci_subsystem_device);
    free(d->vendor);
    free(d->family);
    free(d->catalog_id);
    free(d->name);
    d->vendor = probe__strdup(ctx, vname != NULL ? vname : "unknown");
    if (d->pci_vendor == PROBE_PCI_VENDOR_GOOGLE) {
        const struct probe__tpu_generation *g = probe__tpu_generation(
            d->pci_device, d->has_pci_subsystem_device, d->pci_subsystem_device);
        free(d->generation);
        d->generation = g != NULL ? probe__strdup(ctx, g->name) : NULL;
    }
    if (id != NULL) {
        d->unknown = false;
        d->catalog_id = probe__strdup(ctx, id->catalog_id);
        d->family = probe__strdup(
            ctx, id->family != NULL ? id->family
                                    : (d->pci_vendor == PROBE_PCI_VENDOR_GOOGLE ? "tpu" : "gpu"));
        d->name = probe__strdup(ctx, id->name != NULL ? id->name : id->catalog_id);
        if (id->memory_bytes > 0 && !d->has_memory_total) {
            d->has_memory_total = true;
            d->memory_total_bytes = id->memory_bytes;
        }
        return;
    }
    /* Not in the table: say so with the raw ids rather than guess. A TPU
     * generation is a hardware fact (tpu-info's table), not a catalog entry,
     * so it still names the chip. */
    d->unknown = true;
    d->catalog_id = NULL;
    d->family = probe__strdup(ctx, d->pci_vendor == PROBE_PCI_VENDOR_GOOGLE ? "tpu" : "gpu");
    if (d->generation != NULL)
        d->name = probe__strdupf(ctx, "Google TPU %s (0x%04x:0x%04x, not in the catalog)",
                                 d->generation, (unsigned)d->pci_vendor, (unsigned)d->pci_device);
    else
        d->name = probe__strdupf(ctx, "Unknown %s device 0x%04x:0x%04x", vdisp,
                                 (unsigned)d->pci_vendor, (unsigned)d->pci_device);
}

const struct probe__tpu_generation *probe__tpu_generation(uint16_t device, bool has_subsystem,
                                                          uint16_t subsystem)
{
    for (size_t i = 0; i < sizeof(generations) / sizeof(generations[0]); i++) {
        const struct probe__tpu_generation *g = &generations[i];
        if (g->device != device)
            continue;
        if (g->subsystem == 0 || (has_subsystem && g->subsystem == subsystem))
            return g;
    }
    return NULL;
}
