/* probe/src/probe_snapshot.c -- the probe's runner: probe_run() checks the
 * configuration, runs the sources in order (probe_pci.c, probe_nvml.c,
 * probe_amd.c, probe_tpu.c, probe_host.c) and publishes the snapshot; plus the
 * snapshot's lifetime and the names of its enums. Owned by probe/. The sources
 * build the snapshot with the helper kit (probe_kit.c), never with this file. */
#include "probe_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

enum dc_status probe__config_check(const struct probe_config *cfg, struct dc_error *err)
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

void probe__snapshot_destroy(struct probe_snapshot *s)
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
    rc = probe__config_check(cfg, err);
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
    probe__pci_scan(&ctx);
    probe__nvml_collect(&ctx);
    probe__amd_collect(&ctx);
    probe__tpu_collect(&ctx);
    probe__host_collect(&ctx);

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
        probe__snapshot_destroy(&box->snap);
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
        probe__snapshot_destroy(&b->snap);
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
