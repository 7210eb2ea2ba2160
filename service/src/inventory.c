/* service/src/inventory.c -- catalog PCI ids for the probe, availability from
 * its snapshots. */
#include "inventory.h"
#include "dc/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum dc_status svc_inventory_ids(const dc_ruleset *rs, struct probe_pci_id **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t rows = 0, n_acc = dc_ruleset_accelerator_count(rs);
    for (size_t i = 0; i < n_acc; i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
        if (a->pci_vendor != 0)
            rows += a->n_pci_devices;
    }
    if (rows == 0)
        return DC_OK;
    if (rows > PROBE_IDS_MAX)
        return DC_ELIMIT;
    struct probe_pci_id *ids = calloc(rows, sizeof(*ids));
    if (ids == NULL)
        return DC_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n_acc; i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
        if (a->pci_vendor == 0)
            continue;
        /* The catalog's memory_gb are the vendors' HBM sizes, which are GiB. */
        uint64_t mem = isfinite(a->memory_gb) && a->memory_gb > 0
                           ? (uint64_t)(a->memory_gb * 1024.0 * 1024.0 * 1024.0)
                           : 0;
        for (size_t d = 0; d < a->n_pci_devices; d++)
            ids[k++] = (struct probe_pci_id){.vendor = a->pci_vendor,
                                             .device = a->pci_devices[d],
                                             .catalog_id = a->id,
                                             .family = dc_family_name(a->family),
                                             .name = a->name,
                                             .memory_bytes = mem};
    }
    *out = ids;
    *n = k;
    return DC_OK;
}

enum dc_status svc_inventory_config(const char *sysfs_root, const char *dev_root,
                                    const char *proc_root, const char *nvml,
                                    const struct probe_pci_id *ids, size_t n_ids,
                                    struct probe_config *out, struct dc_error *err)
{
    memset(out, 0, sizeof(*out));
    if (probe_nvml_mode_parse(nvml, &out->nvml_mode, &out->nvml_path) != DC_OK)
        return dc_error_set(err, DC_EINVAL, "nvml", "nvml must be auto, off or a library path");
    out->sysfs_root = sysfs_root;
    out->dev_root = dev_root;
    out->proc_root = proc_root;
    out->ids = ids;
    out->n_ids = n_ids;
    return DC_OK;
}

enum dc_status svc_inventory_availability(const dc_ruleset *rs, const struct probe_snapshot *snap,
                                          struct dc_availability **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t n_acc = dc_ruleset_accelerator_count(rs);
    if (n_acc == 0 || snap == NULL)
        return DC_OK;
    struct dc_availability *av = calloc(n_acc, sizeof(*av));
    if (av == NULL)
        return DC_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n_acc; i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
        struct dc_availability e = {.accelerator_id = a->id, .memory_free_gb = 0};
        bool memory_known = true;
        for (size_t j = 0; j < snap->n_devices; j++) {
            const struct probe_device *d = &snap->devices[j];
            if (d->catalog_id == NULL || strcmp(d->catalog_id, a->id) != 0 ||
                d->state == PROBE_DEVICE_LOST)
                continue;
            e.attached++;
            if (!probe_device_free(d))
                continue;
            e.free++;
            /* A free device's memory is free but for what the driver holds. */
            if (!d->has_memory_total)
                memory_known = false;
            else if (d->has_memory_used && d->memory_used_bytes <= d->memory_total_bytes)
                e.memory_free_gb += (double)(d->memory_total_bytes - d->memory_used_bytes) / 1e9;
            else
                e.memory_free_gb += (double)d->memory_total_bytes / 1e9;
        }
        if (e.attached == 0)
            continue;
        if (!memory_known)
            e.memory_free_gb = NAN;
        av[k++] = e;
    }
    *out = av;
    *n = k;
    return DC_OK;
}

void svc_probe_settings_init(struct svc_probe_settings *s)
{
    const char *v;
    *s = (struct svc_probe_settings){"/sys", "/dev", "/proc", "auto"};
    if ((v = getenv("ACCEL_ADVISOR_SYSFS_ROOT")) != NULL && v[0] != '\0')
        s->sysfs_root = v;
    if ((v = getenv("ACCEL_ADVISOR_DEV_ROOT")) != NULL && v[0] != '\0')
        s->dev_root = v;
    if ((v = getenv("ACCEL_ADVISOR_PROC_ROOT")) != NULL && v[0] != '\0')
        s->proc_root = v;
    if ((v = getenv("ACCEL_ADVISOR_NVML")) != NULL && v[0] != '\0')
        s->nvml = v;
}

bool svc_probe_settings_option(struct svc_probe_settings *s, int c, const char *arg)
{
    switch (c) {
    case 'S':
        s->sysfs_root = arg;
        return true;
    case 'D':
        s->dev_root = arg;
        return true;
    case 'P':
        s->proc_root = arg;
        return true;
    case 'N':
        s->nvml = arg;
        return true;
    default:
        return false;
    }
}

enum dc_status svc_inventory_probe_once(const dc_ruleset *rs, const struct svc_probe_settings *s,
                                        const struct probe_snapshot **out, struct dc_error *err)
{
    struct probe_pci_id *ids = NULL;
    size_t n_ids = 0;
    struct probe_config cfg;
    *out = NULL;
    enum dc_status rc = svc_inventory_ids(rs, &ids, &n_ids);
    if (rc != DC_OK)
        return dc_error_set(err, rc, "", "cannot build the PCI id table: %s", dc_status_name(rc));
    rc = svc_inventory_config(s->sysfs_root, s->dev_root, s->proc_root, s->nvml, ids, n_ids, &cfg,
                              err);
    if (rc == DC_OK)
        rc = probe_run(&cfg, out, err);
    free(ids);
    return rc;
}
