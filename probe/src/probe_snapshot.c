/* probe/src/probe_snapshot.c -- probe_run(): the snapshot builder, the order
 * in which the sources run, the id table, and the snapshot's lifetime. */
#include "probe_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *vstrdupf(const char *fmt, va_list ap) DC_PRINTF(1, 0);
static void free_device(struct probe_device *d);
static struct probe_snapshot_box *box_of(const struct probe_snapshot *s);
static uint64_t ns_between(const struct timespec *a, const struct timespec *b);

/* The box that holds a snapshot. The public pointer is const (snapshots are
 * immutable), the box is not (its refcount changes): going through uintptr_t
 * keeps that one place explicit. */
static struct probe_snapshot_box *box_of(const struct probe_snapshot *s)
{
    uintptr_t p = (uintptr_t)s - offsetof(struct probe_snapshot_box, snap);
    return (struct probe_snapshot_box *)p;
}

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

static uint64_t ns_between(const struct timespec *a, const struct timespec *b)
{
    int64_t ns = ((int64_t)b->tv_sec - (int64_t)a->tv_sec) * 1000000000LL +
                 ((int64_t)b->tv_nsec - (int64_t)a->tv_nsec);
    return ns > 0 ? (uint64_t)ns : 0;
}

static void free_device(struct probe_device *d)
{
    free(d->vendor);
    free(d->family);
    free(d->catalog_id);
    free(d->name);
    free(d->generation);
    free(d->uuid);
    free(d->pids);
    for (size_t i = 0; i < d->n_nodes; i++)
        free(d->nodes[i]);
    free(d->nodes);
    free(d->message);
}

/* ---- library-wide functions below ---- */

enum dc_status probe_config_check(const struct probe_config *cfg, struct dc_error *err)
{
    const char *roots[3] = {cfg->sysfs_root, cfg->dev_root, cfg->proc_root};
    for (size_t i = 0; i < 3; i++) {
        if (roots[i] != NULL && (roots[i][0] == '\0' || strlen(roots[i]) > PROBE_PATH_MAX / 2))
            return dc_error_set(err, DC_EINVAL, NULL,
                                "probe root \"%.64s\" is empty or longer "
                                "than %d bytes",
                                roots[i], PROBE_PATH_MAX / 2);
    }
    if (cfg->nvml_mode != PROBE_NVML_AUTO && cfg->nvml_mode != PROBE_NVML_OFF &&
        cfg->nvml_mode != PROBE_NVML_PATH)
        return dc_error_set(err, DC_EINVAL, NULL, "unknown NVML mode %d", (int)cfg->nvml_mode);
    if (cfg->nvml_mode == PROBE_NVML_PATH && (cfg->nvml_path == NULL || cfg->nvml_path[0] == '\0'))
        return dc_error_set(err, DC_EINVAL, NULL, "NVML mode PATH needs a library path");
    if (cfg->n_ids > PROBE_IDS_MAX)
        return dc_error_set(err, DC_EINVAL, NULL, "%zu PCI ids: more than the limit of %d",
                            cfg->n_ids, PROBE_IDS_MAX);
    if (cfg->n_ids > 0 && cfg->ids == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "n_ids is %zu but ids is NULL", cfg->n_ids);
    for (size_t i = 0; i < cfg->n_ids; i++) {
        if (cfg->ids[i].catalog_id == NULL || cfg->ids[i].catalog_id[0] == '\0')
            return dc_error_set(err, DC_EINVAL, NULL,
                                "PCI id row %zu (0x%04x:0x%04x) has no "
                                "catalog id",
                                i, (unsigned)cfg->ids[i].vendor, (unsigned)cfg->ids[i].device);
    }
    return DC_OK;
}

void probe_warn(struct probe_ctx *ctx, const char *fmt, ...)
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

char *probe_strdup(struct probe_ctx *ctx, const char *s)
{
    if (s == NULL)
        return NULL;
    char *d = strdup(s);
    if (d == NULL)
        ctx->oom = true;
    return d;
}

char *probe_strdupf(struct probe_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vstrdupf(fmt, ap);
    va_end(ap);
    if (s == NULL)
        ctx->oom = true;
    return s;
}

void probe_source_set(struct probe_ctx *ctx, enum probe_source src, enum probe_source_state state,
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

struct probe_device *probe_device_add(struct probe_ctx *ctx, struct probe_dev_extra **extra_out)
{
    struct probe_snapshot *s = ctx->snap;
    *extra_out = NULL;
    if (s->n_devices >= PROBE_DEVICES_MAX) {
        if (!s->devices_truncated)
            probe_warn(ctx, "more than %d accelerators: the rest are not reported",
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

void probe_device_add_pid(struct probe_ctx *ctx, struct probe_device *d, pid_t pid)
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

void probe_device_add_node(struct probe_ctx *ctx, struct probe_device *d, const char *path)
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
    char *p = probe_strdup(ctx, path);
    if (p == NULL)
        return;
    d->nodes[d->n_nodes++] = p;
}

void probe_device_fail(struct probe_ctx *ctx, struct probe_device *d, enum probe_device_state state,
                       const char *fmt, ...)
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
    if (!probe_path_join(path, PROBE_PATH_MAX, dir, name)) {
        probe_warn(ctx, "%s/%s: path longer than %d bytes", dir, name, PROBE_PATH_MAX);
        return false;
    }
    enum dc_status rc = probe_read_file(path, buf, PROBE_ATTR_MAX, len, &e);
    if (rc == DC_ENOTFOUND) {
        if (!optional)
            probe_warn(ctx, "%s: missing", path);
        return false;
    }
    if (rc == DC_ELIMIT) {
        probe_warn(ctx, "%s: longer than %d bytes", path, PROBE_ATTR_MAX - 1);
        return false;
    }
    if (rc != DC_OK) {
        char eb[PROBE_ERRBUF];
        probe_warn(ctx, "%s: unreadable: %s", path, probe_strerror(e, eb, sizeof(eb)));
        return false;
    }
    return true;
}

bool probe_read_hex_attr(struct probe_ctx *ctx, const char *dir, const char *name, unsigned digits,
                         bool optional, uint32_t *out)
{
    char path[PROBE_PATH_MAX], buf[PROBE_ATTR_MAX];
    size_t len = 0;
    const char *why = NULL;
    if (!read_attr(ctx, dir, name, optional, path, buf, &len))
        return false;
    if (probe_parse_hex_attr(buf, len, digits, out, &why) != DC_OK) {
        probe_warn(ctx, "%s: %s", path, why);
        return false;
    }
    return true;
}

bool probe_read_u64_attr(struct probe_ctx *ctx, const char *dir, const char *name, bool optional,
                         uint64_t *out)
{
    char path[PROBE_PATH_MAX], buf[PROBE_ATTR_MAX];
    size_t len = 0;
    const char *why = NULL;
    if (!read_attr(ctx, dir, name, optional, path, buf, &len))
        return false;
    if (probe_parse_u64_attr(buf, len, out, &why) != DC_OK) {
        probe_warn(ctx, "%s: %s", path, why);
        return false;
    }
    return true;
}

const char *probe_vendor_name(uint16_t vendor)
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

const struct probe_pci_id *probe_ids_lookup(const struct probe_config *cfg, uint16_t vendor,
                                            uint16_t device, bool has_subsystem, uint16_t subsystem)
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

void probe_device_identify(struct probe_ctx *ctx, struct probe_device *d)
{
    static const char *const display[] = {"NVIDIA", "AMD", "Google"};
    const char *vname = probe_vendor_name(d->pci_vendor);
    const char *vdisp = d->pci_vendor == PROBE_PCI_VENDOR_NVIDIA ? display[0]
                        : d->pci_vendor == PROBE_PCI_VENDOR_AMD  ? display[1]
                                                                 : display[2];
    const struct probe_pci_id *id =
        probe_ids_lookup(ctx->cfg, d->pci_vendor, d->pci_device, d->has_pci_subsystem_device,
                         d->pci_subsystem_device);
    free(d->vendor);
    free(d->family);
    free(d->catalog_id);
    free(d->name);
    d->vendor = probe_strdup(ctx, vname != NULL ? vname : "unknown");
    if (d->pci_vendor == PROBE_PCI_VENDOR_GOOGLE) {
        const struct probe_tpu_generation *g = probe_tpu_generation(
            d->pci_device, d->has_pci_subsystem_device, d->pci_subsystem_device);
        free(d->generation);
        d->generation = g != NULL ? probe_strdup(ctx, g->name) : NULL;
    }
    if (id != NULL) {
        d->unknown = false;
        d->catalog_id = probe_strdup(ctx, id->catalog_id);
        d->family = probe_strdup(
            ctx, id->family != NULL ? id->family
                                    : (d->pci_vendor == PROBE_PCI_VENDOR_GOOGLE ? "tpu" : "gpu"));
        d->name = probe_strdup(ctx, id->name != NULL ? id->name : id->catalog_id);
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
    d->family = probe_strdup(ctx, d->pci_vendor == PROBE_PCI_VENDOR_GOOGLE ? "tpu" : "gpu");
    if (d->generation != NULL)
        d->name = probe_strdupf(ctx, "Google TPU %s (0x%04x:0x%04x, not in the catalog)",
                                d->generation, (unsigned)d->pci_vendor, (unsigned)d->pci_device);
    else
        d->name = probe_strdupf(ctx, "Unknown %s device 0x%04x:0x%04x", vdisp,
                                (unsigned)d->pci_vendor, (unsigned)d->pci_device);
}

void probe_snapshot_destroy(struct probe_snapshot *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n_devices; i++)
        free_device(&s->devices[i]);
    free(s->devices);
    free(s->host.cpu_model);
    for (size_t i = 0; i < PROBE_SOURCE_COUNT; i++)
        free(s->sources[i].message);
    free(s->nvml_driver_version);
    for (size_t i = 0; i < s->n_warnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    free(box_of(s));
}

const char *probe_source_name(enum probe_source s)
{
    switch (s) {
    case PROBE_SOURCE_PCI:
        return "pci";
    case PROBE_SOURCE_NVML:
        return "nvml";
    case PROBE_SOURCE_AMD:
        return "amd";
    case PROBE_SOURCE_TPU:
        return "tpu";
    case PROBE_SOURCE_HOST:
        return "host";
    case PROBE_SOURCE_COUNT:
        break;
    }
    return "unknown";
}

const char *probe_source_state_name(enum probe_source_state s)
{
    switch (s) {
    case PROBE_SOURCE_OK:
        return "ok";
    case PROBE_SOURCE_SKIPPED:
        return "skipped";
    case PROBE_SOURCE_OFF:
        return "off";
    case PROBE_SOURCE_UNAVAILABLE:
        return "unavailable";
    case PROBE_SOURCE_ERROR:
        return "error";
    }
    return "unknown";
}

const char *probe_data_source_name(enum probe_data_source s)
{
    switch (s) {
    case PROBE_DATA_PCI:
        return "pci";
    case PROBE_DATA_SYSFS:
        return "sysfs";
    case PROBE_DATA_NVML:
        return "nvml";
    }
    return "unknown";
}

const char *probe_device_state_name(enum probe_device_state s)
{
    switch (s) {
    case PROBE_DEVICE_OK:
        return "ok";
    case PROBE_DEVICE_LOST:
        return "lost";
    case PROBE_DEVICE_ERROR:
        return "error";
    }
    return "unknown";
}

enum dc_status probe_nvml_mode_parse(const char *text, enum probe_nvml_mode *mode,
                                     const char **path)
{
    if (text == NULL || mode == NULL || path == NULL || text[0] == '\0')
        return DC_EINVAL;
    *path = NULL;
    if (strcmp(text, "auto") == 0) {
        *mode = PROBE_NVML_AUTO;
    } else if (strcmp(text, "off") == 0) {
        *mode = PROBE_NVML_OFF;
    } else {
        *mode = PROBE_NVML_PATH;
        *path = text;
    }
    return DC_OK;
}

enum dc_status probe_run(const struct probe_config *cfg, const struct probe_snapshot **out,
                         struct dc_error *err)
{
    struct probe_snapshot_box *box = NULL;
    struct probe_ctx ctx;
    struct timespec mono_start;
    enum dc_status rc = DC_OK;

    memset(&ctx, 0, sizeof(ctx));
    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "probe_run: out is NULL");
    *out = NULL;
    if (cfg == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "probe_run: config is NULL");
    rc = probe_config_check(cfg, err);
    if (rc != DC_OK)
        return rc;

    box = calloc(1, sizeof(*box));
    if (box == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "probe_run: out of memory");
    atomic_init(&box->refs, 1);
    ctx.cfg = cfg;
    ctx.snap = &box->snap;
    ctx.sysfs_root = cfg->sysfs_root != NULL ? cfg->sysfs_root : "/sys";
    ctx.dev_root = cfg->dev_root != NULL ? cfg->dev_root : "/dev";
    ctx.proc_root = cfg->proc_root != NULL ? cfg->proc_root : "/proc";
    clock_gettime(CLOCK_REALTIME, &ctx.snap->taken_at);
    clock_gettime(CLOCK_MONOTONIC, &mono_start);

    /* PCI first: it says which devices exist and which other sources have
     * anything to do. NVML then refines the NVIDIA devices, sysfs counters
     * the AMD ones, the TPU pass finds nodes and holders. */
    probe_pci_scan(&ctx);
    probe_nvml_collect(&ctx);
    probe_amd_collect(&ctx);
    probe_tpu_collect(&ctx);
    probe_host_collect(&ctx);

    clock_gettime(CLOCK_MONOTONIC, &ctx.snap->finished_mono);
    ctx.snap->duration_ns = ns_between(&mono_start, &ctx.snap->finished_mono);
    if (ctx.oom) {
        rc = dc_error_set(err, DC_ENOMEM, NULL, "probe_run: out of memory");
        goto out;
    }
    /* The per-device extras are scaffolding; the snapshot keeps only what the
     * public struct shows. */
    *out = ctx.snap;
    box = NULL;
out:
    free(ctx.extra);
    if (box != NULL)
        probe_snapshot_destroy(&box->snap);
    return rc;
}

const struct probe_snapshot *probe_snapshot_retain(const struct probe_snapshot *s)
{
    if (s == NULL)
        return NULL;
    atomic_fetch_add_explicit(&box_of(s)->refs, 1, memory_order_relaxed);
    return s;
}

void probe_snapshot_release(const struct probe_snapshot *s)
{
    if (s == NULL)
        return;
    struct probe_snapshot_box *b = box_of(s);
    /* acq_rel: the freeing thread must see every write made before the other
     * references were dropped. */
    if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        probe_snapshot_destroy(&b->snap);
}

double probe_snapshot_age_seconds(const struct probe_snapshot *s)
{
    if (s == NULL)
        return 0.0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)ns_between(&s->finished_mono, &now) / 1e9;
}

bool probe_device_free(const struct probe_device *d)
{
    if (d == NULL || d->state != PROBE_DEVICE_OK || d->in_use == PROBE_IN_USE_YES)
        return false;
    if (d->has_utilization && d->utilization_percent > PROBE_FREE_UTILIZATION_MAX)
        return false;
    /* Memory a job left allocated holds the device even while it idles; what the
     * driver keeps on an idle device is far below the limit. A reading above the
     * total is not a reading. */
    if (d->has_memory_used && d->has_memory_total &&
        d->memory_used_bytes <= d->memory_total_bytes &&
        (double)d->memory_used_bytes * 100.0 >
            (double)d->memory_total_bytes * PROBE_FREE_MEMORY_USED_MAX)
        return false;
    /* Unknown holders (AMD, NVIDIA without NVML) need a measured idle utilisation. */
    return d->in_use == PROBE_IN_USE_NO || d->has_utilization;
}
