/* probe/src/probe_internal.h -- what the probe's files share: the snapshot
 * under construction, bounded file reading and strict parsing (probe_fs.c), the
 * helper kit the sources build the snapshot with (probe_kit.c), and the
 * sources the runner (probe_snapshot.c) calls. Calls go one way: runner ->
 * sources -> kit. Everything here is probe__ (internal; the API is
 * probe/probe.h). Not installed; tests include it to reach the helpers. */
#ifndef PROBE_INTERNAL_H
#define PROBE_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/probe.h"

/* ------------------------------------------------------------ PCI address */

struct probe_pci_addr {
    uint32_t domain;
    uint8_t bus;
    uint8_t dev; /* 0..31 */
    uint8_t fn;  /* 0..7 */
};

/* Parse "dddd:bb:dd.f" (domain 4 to 8 hex digits, either case), the whole of
 * `s`. Returns false on anything else. */
bool probe__pci_addr_parse(const char *s, struct probe_pci_addr *out);
/* Canonical form: "%04x:%02x:%02x.%x" (lower case). `buf` has
 * PROBE_PCI_ADDRESS_SIZE bytes. */
void probe__pci_addr_format(const struct probe_pci_addr *a, char *buf);
/* <0, 0, >0 like strcmp. */
int probe__pci_addr_cmp(const struct probe_pci_addr *a, const struct probe_pci_addr *b);

/* ------------------------------------------------------- reading and parsing */

/* Read the regular file at `path` into buf (cap bytes, NUL-terminated, so at
 * most cap - 1 bytes of content). Never blocks on a FIFO (opened non-blocking,
 * then required to be a regular file).
 * Returns DC_OK with *len set; DC_ENOTFOUND (no such file); DC_ELIMIT (longer
 * than cap - 1 bytes); DC_EIO (cannot open or read, or not a regular file);
 * *errno_out gets the errno (EISDIR for a directory, 0 for DC_ELIMIT). */
enum dc_status probe__read_file(const char *path, char *buf, size_t cap, size_t *len,
                                int *errno_out);

/* As probe__read_file() into a heap buffer of at most `max` bytes of content;
 * *truncated tells when the file was longer (then *out holds the first
 * `max` bytes). On DC_OK *out is owned by the caller (free). Errors as above,
 * plus DC_ENOMEM. */
enum dc_status probe__read_text(const char *path, size_t max, char **out, size_t *len,
                                bool *truncated, int *errno_out);

/* Strict parsers for one sysfs value: the text must be exactly the value and
 * one trailing newline (the kernel ends every attribute with one, so a value
 * without it was cut short). On failure they return DC_EPARSE and set *why to
 * a static phrase. */
/* "0x" followed by exactly `digits` hex digits: vendor/device ids (4), class (6). */
enum dc_status probe__parse_hex_attr(const char *text, size_t len, unsigned digits, uint32_t *out,
                                     const char **why);
/* Decimal digits only (no sign, no spaces), no overflow of uint64_t. */
enum dc_status probe__parse_u64_attr(const char *text, size_t len, uint64_t *out, const char **why);
/* Decimal digits, whole of [s, s+len), no overflow; used for names in /proc
 * and /dev ("4242", "accel3"). */
bool probe__parse_uint(const char *s, size_t len, uint64_t *out);

/* Room for an errno text. */
#define PROBE_ERRBUF 96
/* strerror for threads: the text of errno `e` in buf (cap bytes); returns buf. */
const char *probe__strerror(int e, char *buf, size_t cap);

/* Join root and a relative path with snprintf; false when it does not fit. */
bool probe__path_join(char *buf, size_t cap, const char *root, const char *rel);

/* -------------------------------------------- the helper kit (probe_kit.c) */

/* The checks probe_run() makes of a config (its DC_EINVAL cases). */
enum dc_status probe__config_check(const struct probe_config *cfg, struct dc_error *err);

/* Snapshot storage: the refcount lives next to the public struct, so the
 * public struct carries no mutable field. */
struct probe_snapshot_box {
    atomic_size_t refs;
    struct probe_snapshot snap;
};

/* Per-device facts only the probe needs while it runs. */
struct probe_dev_extra {
    struct probe_pci_addr addr;
    bool has_addr;
    bool nvml_matched;
    int tpu_node_kind;    /* enum probe_tpu_node_kind; -1: not a TPU */
    long tpu_node_number; /* N of /dev/accelN or /dev/vfio/N; -1: unknown */
};

/* The probe in progress. Allocation failures inside helpers that cannot
 * return a status (warnings, string copies) set `oom`, which probe_run()
 * checks at the end: the snapshot is then discarded and DC_ENOMEM returned,
 * so no caller sees a half-built snapshot. */
struct probe_ctx {
    const struct probe_config *cfg;
    const char *sysfs_root;
    const char *dev_root;
    const char *proc_root;
    struct probe_snapshot *snap;
    struct probe_dev_extra *extra; /* parallel to snap->devices */
    size_t cap_devices;
    size_t cap_warnings;
    bool oom;
};

/* Record a warning (printf-style). Past PROBE_WARNINGS_MAX it is counted. */
void probe__warn(struct probe_ctx *ctx, const char *fmt, ...) DC_PRINTF(2, 3);
/* strdup that sets ctx->oom on failure (NULL in gives NULL out). */
char *probe__strdup(struct probe_ctx *ctx, const char *s);
/* printf into a new string; sets ctx->oom on failure. */
char *probe__strdupf(struct probe_ctx *ctx, const char *fmt, ...) DC_PRINTF(2, 3);
/* Set a source's outcome (message printf-style; fmt NULL for none). */
void probe__source_set(struct probe_ctx *ctx, enum probe_source src, enum probe_source_state state,
                       int code, const char *fmt, ...) DC_PRINTF(5, 6);
/* Append a zeroed device (index -1, state ok, source pci, tpu_node_kind -1);
 * NULL when PROBE_DEVICES_MAX is reached (devices_truncated set, warning
 * recorded) or on allocation failure (oom set). *extra_out gets its extra. */
struct probe_device *probe__device_add(struct probe_ctx *ctx, struct probe_dev_extra **extra_out);
/* Append a pid to a device, keeping the list ascending and without
 * duplicates, up to PROBE_PIDS_MAX (then pids_truncated). */
void probe__device_add_pid(struct probe_ctx *ctx, struct probe_device *d, pid_t pid);
/* Append a device node path (copied), up to PROBE_NODES_MAX. */
void probe__device_add_node(struct probe_ctx *ctx, struct probe_device *d, const char *path);
/* Set state and message (printf-style) of a device; a lost state is never
 * downgraded to error. */
void probe__device_fail(struct probe_ctx *ctx, struct probe_device *d,
                        enum probe_device_state state, const char *fmt, ...) DC_PRINTF(4, 5);

/* Read a hex id attribute `name` of the PCI device directory `dir`.
 * Returns true with *out set; false when missing (a warning unless
 * `optional`), unreadable or malformed (always a warning). */
bool probe__read_hex_attr(struct probe_ctx *ctx, const char *dir, const char *name, unsigned digits,
                          bool optional, uint32_t *out);
/* Same for a decimal counter. */
bool probe__read_u64_attr(struct probe_ctx *ctx, const char *dir, const char *name, bool optional,
                          uint64_t *out);

/* Look up the id table: an exact subsystem match wins over a wildcard row. */
const struct probe_pci_id *probe__ids_lookup(const struct probe_config *cfg, uint16_t vendor,
                                             uint16_t device, bool has_subsystem,
                                             uint16_t subsystem);
/* Fill vendor, family, catalog id, name, memory of a device from its ids. */
void probe__device_identify(struct probe_ctx *ctx, struct probe_device *d);
/* "nvidia" / "amd" / "google"; NULL for other vendors. */
const char *probe__vendor_name(uint16_t vendor);

/* ----------------------------------- the sources (the runner calls them) */

/* Fill snap->devices from <sysfs_root>/bus/pci/devices. */
void probe__pci_scan(struct probe_ctx *ctx);
/* Add NVML's view of the NVIDIA devices. */
void probe__nvml_collect(struct probe_ctx *ctx);
/* Read the amdgpu counters of the AMD devices. */
void probe__amd_collect(struct probe_ctx *ctx);
/* TPU generations, device nodes and their holders. */
void probe__tpu_collect(struct probe_ctx *ctx);
/* CPU model, logical cores, memory. */
void probe__host_collect(struct probe_ctx *ctx);

/* TPU chip facts from tpu-info
 * (https://github.com/AI-Hypercomputer/cloud-accelerator-diagnostics/blob/main/tpu_info/tpu_info/device.py).
 */
enum probe_tpu_node_kind { PROBE_TPU_NODE_ACCEL = 0, PROBE_TPU_NODE_VFIO = 1 };
struct probe__tpu_generation {
    uint16_t device;
    uint16_t subsystem; /* 0: any */
    const char *name;   /* "v5e" */
    enum probe_tpu_node_kind kind;
};
/* The generation of a Google PCI device, or NULL when the ids are not a TPU
 * chip this probe knows. */
const struct probe__tpu_generation *probe__tpu_generation(uint16_t device, bool has_subsystem,
                                                          uint16_t subsystem);

/* Whether an fd link target is a TPU node: "/dev/accel<N>" or
 * "/dev/vfio/<N>" exactly (not "/dev/vfio/vfio"). */
bool probe__tpu_match_node(const char *target, int *kind, unsigned long *number);

/* Free a snapshot's contents and the box (refcount ignored). */
void probe__snapshot_destroy(struct probe_snapshot *s);

#endif /* PROBE_INTERNAL_H */
