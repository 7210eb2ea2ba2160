/* service/src/inventory.h -- the probe as the service uses it: the PCI id table
 * drawn from the catalog, the probe settings, and per-accelerator availability
 * drawn from a snapshot (docs/probe.md, "Availability"). */
#ifndef SVC_INVENTORY_H
#define SVC_INVENTORY_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "dc/availability.h"
#include "dc/ruleset.h"
#include "probe/probe.h"

/* The PCI id table of the catalog of `rs`: one row per listed device id. The
 * rows' strings are views into `rs`, which must outlive the table (the probe
 * worker copies what it keeps). *out is NULL with *n 0 when the catalog lists
 * no PCI id. Release with free(). Errors: DC_ENOMEM, DC_ELIMIT (more than
 * PROBE_IDS_MAX rows). */
enum dc_status svc_inventory_ids(const dc_ruleset *rs, struct probe_pci_id **out, size_t *n);

/* The probe configuration for the given settings (borrowed; they must outlive
 * *out). `nvml` is "auto", "off" or a library path. Errors: DC_EINVAL with
 * err->msg naming the bad setting. */
enum dc_status svc_inventory_config(const char *sysfs_root, const char *dev_root,
                                    const char *proc_root, const char *nvml,
                                    const struct probe_pci_id *ids, size_t n_ids,
                                    struct probe_config *out, struct dc_error *err);

/* Where the CLI's probe looks: flags over ACCEL_ADVISOR_SYSFS_ROOT, _DEV_ROOT,
 * _PROC_ROOT and _NVML over the defaults (/sys, /dev, /proc, auto), as `serve`
 * does. Strings are borrowed from argv or the environment. */
struct svc_probe_settings {
    const char *sysfs_root;
    const char *dev_root;
    const char *proc_root;
    const char *nvml;
};

/* getopt_long entries of the four flags, for a command's option table. */
#define SVC_PROBE_OPTIONS                                                                          \
    {"sysfs-root", required_argument, NULL, 'S'}, {"dev-root", required_argument, NULL, 'D'},      \
        {"proc-root", required_argument, NULL, 'P'},                                               \
    {                                                                                              \
        "nvml", required_argument, NULL, 'N'                                                       \
    }

#define SVC_PROBE_OPTIONS_HELP                                                                     \
    "  --sysfs-root DIR  the directory read as /sys  (env ACCEL_ADVISOR_SYSFS_ROOT)\n"             \
    "  --dev-root DIR    the directory read as /dev  (env ACCEL_ADVISOR_DEV_ROOT)\n"               \
    "  --proc-root DIR   the directory read as /proc (env ACCEL_ADVISOR_PROC_ROOT)\n"              \
    "  --nvml MODE       auto (default), off, or the NVML library to load\n"                       \
    "                    (env ACCEL_ADVISOR_NVML)\n"

/* Defaults, then the environment. */
void svc_probe_settings_init(struct svc_probe_settings *s);
/* Apply option `c` (one of SVC_PROBE_OPTIONS) with `arg`; false when `c` is not one. */
bool svc_probe_settings_option(struct svc_probe_settings *s, int c, const char *arg);

/* Probe once with the catalog of `rs`. Same contract as probe_run(); a bad
 * setting is DC_EINVAL with err->msg naming it. */
enum dc_status svc_inventory_probe_once(const dc_ruleset *rs, const struct svc_probe_settings *s,
                                        const struct probe_snapshot **out, struct dc_error *err);

/* Availability of every catalog accelerator of `rs` with a device in `snap`:
 * *out (owned, free()) holds *n entries whose accelerator_id are views into
 * `rs`. Lost devices are not attached; free is probe_device_free(). Errors: DC_ENOMEM. */
enum dc_status svc_inventory_availability(const dc_ruleset *rs, const struct probe_snapshot *snap,
                                          struct dc_availability **out, size_t *n);

#endif /* SVC_INVENTORY_H */
