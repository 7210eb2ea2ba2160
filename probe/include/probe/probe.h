/* probe/include/probe/probe.h -- live accelerator discovery.
 *
 * The probe looks at the host it runs on and reports the accelerators attached
 * to it: every NVIDIA, AMD and Google TPU PCI function whose class is an
 * accelerator class (sysfs), what NVML says about the NVIDIA GPUs (loaded at
 * run time with dlopen; never a build dependency), the amdgpu sysfs counters,
 * the TPU device nodes and which processes hold them (/proc/<pid>/fd), and the
 * host's CPU model, logical cores and memory.
 *
 * It is transport-free and uses nothing of ours but three core headers:
 * dc/common.h (status codes, struct dc_error, and dc_error_set and
 * dc_error_clear, for which it links core's common.c), dc/utf8.h and
 * dc/clock.h (both inline);
 * and cJSON for the JSON form. There is no global state: every call works on
 * what it is given. See docs/probe.md.
 *
 * The pieces, in the order a server wires them:
 *   struct probe_config   where to look (roots, NVML mode, PCI id table);
 *   probe_run()           one synchronous probe, giving an immutable snapshot;
 *   probe_snapshot_to_json() / probe_snapshot_format_table()  its two forms;
 *   probe_holder          the latest snapshot, swapped atomically, refcounted;
 *   probe_worker          a thread that runs probe_run() every interval and
 *                         publishes into a holder, so readers never wait on a
 *                         probe.
 *
 * Timeouts. probe_run() has no internal timeout: a wedged driver can keep an
 * NVML call (or, more rarely, a sysfs read) blocked for as long as the kernel
 * likes, and a C library cannot safely abandon a call in progress. Time limits
 * are therefore applied by the caller's thread: run the probe on a
 * probe_worker (or a thread of your own) and let request handlers read the
 * holder, which never waits on a probe. A slow or stuck probe only ages the
 * published snapshot (probe_snapshot_age_seconds()); probe_worker_stats()
 * tells for how long the probe in progress has been running, and
 * probe_worker_stop() takes a time limit after which it leaves a stuck
 * thread to finish on its own. */
#ifndef PROBE_PROBE_H
#define PROBE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "dc/common.h"

/* ------------------------------------------------------------------ limits */

/* Bytes read from one sysfs attribute; a longer attribute is refused. */
#define PROBE_ATTR_MAX 4096
/* Bytes read from one /proc text file (cpuinfo, meminfo); past it the rest is
 * ignored and a warning recorded. */
#define PROBE_TEXT_FILE_MAX (8u * 1024u * 1024u)
/* Entries of <sysfs_root>/bus/pci/devices looked at. */
#define PROBE_PCI_ENTRIES_MAX 4096
/* Accelerators reported in one snapshot. */
#define PROBE_DEVICES_MAX 256
/* Devices asked of NVML. */
#define PROBE_NVML_DEVICES_MAX 256
/* Compute processes fetched from NVML for one GPU; more are counted, not listed. */
#define PROBE_NVML_PROCS_MAX 1024
/* Tries of nvmlDeviceGetComputeRunningProcesses_v3 when the count keeps growing. */
#define PROBE_NVML_PROCS_TRIES 4
/* Process ids kept per device. */
#define PROBE_PIDS_MAX 64
/* Device nodes kept per device. */
#define PROBE_NODES_MAX 4
/* Entries of <proc_root> looked at when looking for device-node holders. */
#define PROBE_PROC_ENTRIES_MAX 65536
/* /proc/<pid>/fd links read in one scan, all processes together. */
#define PROBE_FDS_MAX (1u << 20)
/* Warnings kept in one snapshot; more are counted in n_warnings_dropped. */
#define PROBE_WARNINGS_MAX 256
/* Entries accepted in probe_config.ids. */
#define PROBE_IDS_MAX 4096
/* Longest path the probe builds (root + relative path). */
#define PROBE_PATH_MAX 4096
/* Room for a PCI address "dddddddd:bb:dd.f" and its NUL. */
#define PROBE_PCI_ADDRESS_SIZE 20
/* Shortest refresh interval probe_worker_start() accepts. */
#define PROBE_WORKER_INTERVAL_MIN_MS 10u

/* PCI vendor ids the probe knows. */
#define PROBE_PCI_VENDOR_NVIDIA 0x10deu
#define PROBE_PCI_VENDOR_AMD    0x1002u
#define PROBE_PCI_VENDOR_GOOGLE 0x1ae0u

/* ------------------------------------------------------------------ config */

/* How NVML is found. AUTO opens "libnvidia-ml.so.1" and treats its absence as
 * normal (source state "unavailable"); PATH opens nvml_path and treats its
 * absence as an error; OFF never loads it. */
enum probe_nvml_mode {
    PROBE_NVML_AUTO = 0,
    PROBE_NVML_OFF,
    PROBE_NVML_PATH,
};

/* The library AUTO opens. */
#define PROBE_NVML_DEFAULT_LIBRARY "libnvidia-ml.so.1"

/* One row of the caller's PCI id table: how PCI ids map to the catalog (which
 * lives in the core, so the probe is told rather than knowing).
 * subsystem_device 0 matches any subsystem; a row with a non-zero
 * subsystem_device is preferred over a wildcard row for the same ids (TPU v2
 * and v3 share device id 0x0027 and differ by subsystem). */
struct probe_pci_id {
    uint16_t vendor;
    uint16_t device;
    uint16_t subsystem_device; /* 0: any */
    const char *catalog_id;    /* "h100"; required */
    const char *family;        /* "gpu" | "tpu" | ...; NULL: from the vendor */
    const char *name;          /* "NVIDIA H100 SXM 80GB"; NULL: the catalog id */
    uint64_t memory_bytes;     /* per device; 0: unknown */
};

/* What to probe. A zeroed struct probes the real host with NVML in AUTO mode
 * and no id table (every accelerator then reads as unknown). All pointers are
 * borrowed for the duration of probe_run(); probe_worker_start() copies them. */
struct probe_config {
    const char *sysfs_root; /* plays /sys;  NULL: "/sys" */
    const char *dev_root;   /* plays /dev;  NULL: "/dev" */
    const char *proc_root;  /* plays /proc; NULL: "/proc" */
    enum probe_nvml_mode nvml_mode;
    const char *nvml_path; /* PROBE_NVML_PATH only: a path or soname for dlopen */
    const struct probe_pci_id *ids;
    size_t n_ids;
};

/* ---------------------------------------------------------------- snapshot */

/* Where a device's live figures came from: "pci" (ids only, memory from the
 * table), "sysfs" (amdgpu counters) or "nvml". */
enum probe_data_source {
    PROBE_DATA_PCI = 0,
    PROBE_DATA_SYSFS,
    PROBE_DATA_NVML,
};

/* "ok", "lost" (NVML_ERROR_GPU_IS_LOST: fallen off the bus) or "error"
 * (another failure specific to this device; see message). */
enum probe_device_state {
    PROBE_DEVICE_OK = 0,
    PROBE_DEVICE_LOST,
    PROBE_DEVICE_ERROR,
};

/* Whether a process uses the device: unknown, no or yes. */
enum probe_in_use {
    PROBE_IN_USE_UNKNOWN = 0,
    PROBE_IN_USE_NO,
    PROBE_IN_USE_YES,
};

/* One accelerator. Every string is owned by the snapshot; NULL where stated. */
struct probe_device {
    char *vendor;     /* "nvidia" | "amd" | "google" */
    char *family;     /* from the id table, else "gpu" (NVIDIA, AMD) or "tpu" */
    char *catalog_id; /* NULL when the ids are not in the table */
    char *name;       /* NVML's product name, else the table's, else
                         "Unknown <Vendor> device 0xVVVV:0xDDDD" */
    bool unknown;     /* the ids are not in the table */
    char *generation; /* TPU generation ("v5e") from the PCI ids; NULL otherwise */
    char pci_address[PROBE_PCI_ADDRESS_SIZE]; /* "0000:17:00.0"; "" when unknown */
    uint16_t pci_vendor;
    uint16_t pci_device;
    bool has_pci_subsystem_device;
    uint16_t pci_subsystem_device;
    bool has_pci_class;
    uint32_t pci_class; /* 24 bits: 0x030200 */
    int index;          /* NVML index or TPU chip index; -1 when none */
    char *uuid;         /* NVML UUID; NULL otherwise */
    bool has_memory_total;
    uint64_t memory_total_bytes;
    bool has_memory_used;
    uint64_t memory_used_bytes;
    bool has_utilization;
    unsigned utilization_percent; /* 0..100 */
    enum probe_in_use in_use;
    pid_t *pids; /* processes using it, ascending; NULL when none known */
    size_t n_pids;
    bool pids_truncated; /* more than PROBE_PIDS_MAX, or NVML said more than it listed */
    char **nodes;        /* canonical device node paths that exist ("/dev/vfio/0") */
    size_t n_nodes;
    enum probe_data_source source;
    enum probe_device_state state;
    char *message; /* why lost or error; NULL when ok */
};

/* The sources of one probe, each with its own outcome. */
enum probe_source {
    PROBE_SOURCE_PCI = 0, /* <sysfs_root>/bus/pci/devices */
    PROBE_SOURCE_NVML,    /* the NVML library */
    PROBE_SOURCE_AMD,     /* amdgpu sysfs counters */
    PROBE_SOURCE_TPU,     /* TPU device nodes and their holders in <proc_root> */
    PROBE_SOURCE_HOST,    /* <proc_root>/cpuinfo and meminfo */
    PROBE_SOURCE_COUNT
};

/* "ok"; "skipped" (nothing for it to look at: no AMD device, no TPU, no
 * NVIDIA device for NVML); "off" (NVML mode off); "unavailable" (NVML AUTO and
 * no library); "error" (see code and message). */
enum probe_source_state {
    PROBE_SOURCE_OK = 0,
    PROBE_SOURCE_SKIPPED,
    PROBE_SOURCE_OFF,
    PROBE_SOURCE_UNAVAILABLE,
    PROBE_SOURCE_ERROR,
};

struct probe_source_report {
    enum probe_source_state state;
    int code;      /* NVML return code (nvml) or errno (others); 0 when none */
    char *message; /* NULL when ok, skipped or off */
};

struct probe_host {
    char *cpu_model;             /* "model name" of cpuinfo; NULL when unknown */
    unsigned logical_cores;      /* "processor" entries of cpuinfo; 0 when unknown */
    uint64_t memory_total_bytes; /* MemTotal of meminfo; 0 when unknown */
};

/* The result of one probe: immutable once returned, shared by reference
 * (probe_snapshot_retain/release), safe to read from any thread. */
struct probe_snapshot {
    struct probe_device *devices; /* ordered by PCI address; NVML-only devices last */
    size_t n_devices;
    bool devices_truncated; /* more than PROBE_DEVICES_MAX accelerators */
    struct probe_host host;
    struct probe_source_report sources[PROBE_SOURCE_COUNT];
    char *nvml_driver_version; /* NULL unless NVML answered */
    char **warnings;           /* "path: what was wrong", in the order found */
    size_t n_warnings;
    size_t n_warnings_dropped;     /* past PROBE_WARNINGS_MAX */
    struct timespec taken_at;      /* CLOCK_REALTIME when the probe started */
    struct timespec finished_mono; /* CLOCK_MONOTONIC when it finished */
    uint64_t duration_ns;
};

/* ------------------------------------------------------------------- names */

/* Fixed lower-case names used in the JSON form; never NULL. Thread-safe. */
DC_API const char *probe_source_name(enum probe_source s);             /* "nvml" */
DC_API const char *probe_source_state_name(enum probe_source_state s); /* "ok" */
DC_API const char *probe_data_source_name(enum probe_data_source s);   /* "sysfs" */
DC_API const char *probe_device_state_name(enum probe_device_state s); /* "lost" */

/* Parse the NVML setting as given on a command line or in the environment:
 * "auto", "off", or anything else (non-empty) as a library path. On DC_OK
 * *mode is set and *path points into `text` (borrowed) for PROBE_NVML_PATH,
 * else NULL. Errors: DC_EINVAL (NULL or empty text). */
DC_API DC_NODISCARD enum dc_status
probe_nvml_mode_parse(const char *text, enum probe_nvml_mode *mode, const char **path);

/* A device is free when it answers (state ok), no process is known to hold it,
 * its utilisation, where measured, is at most PROBE_FREE_UTILIZATION_MAX
 * percent and its memory used, where both figures are known, at most
 * PROBE_FREE_MEMORY_USED_MAX percent of its memory. When the holders cannot be
 * known (AMD; NVIDIA without NVML) a measured utilisation must say it is idle.
 * NULL is not free. Thread-safe. The fleet applies the same limits to
 * dcgm-exporter's series (docs/operations.md, "Fleet"). */
#define PROBE_FREE_UTILIZATION_MAX 5u
#define PROBE_FREE_MEMORY_USED_MAX 5u
DC_API bool probe_device_free(const struct probe_device *d);

/* -------------------------------------------------------------------- run */

/* Probe the host described by `cfg` (borrowed) once, synchronously.
 * What a source cannot read is recorded in the snapshot (sources[], device
 * state, warnings), never returned as a failure: a host with no sysfs still
 * gives a snapshot, with sources[PROBE_SOURCE_PCI] in state error.
 * On DC_OK *out holds one reference (release with probe_snapshot_release()).
 * Errors: DC_EINVAL (NULL cfg or out, PROBE_NVML_PATH without a path, more
 * than PROBE_IDS_MAX ids, an id row without catalog_id, a root longer than
 * PROBE_PATH_MAX / 2), DC_ENOMEM; *out stays NULL and details go in *err
 * (may be NULL). Reentrant; may block on the kernel or NVML (see the
 * timeout note at the top). */
DC_API DC_NODISCARD enum dc_status
probe_run(const struct probe_config *cfg, const struct probe_snapshot **out, struct dc_error *err);

/* Take another reference; returns `s`. NULL gives NULL. Thread-safe. */
DC_API const struct probe_snapshot *probe_snapshot_retain(const struct probe_snapshot *s);

/* Drop a reference; the last one frees the snapshot. NULL is a no-op.
 * Thread-safe. */
DC_API void probe_snapshot_release(const struct probe_snapshot *s);

/* Seconds since the snapshot was finished (monotonic clock). Thread-safe. */
DC_API double probe_snapshot_age_seconds(const struct probe_snapshot *s);

/* The snapshot as JSON (shape in docs/probe.md): an object with timestamp,
 * age_seconds (at the time of this call), duration_seconds, host, sources,
 * nvml_driver_version, counts, devices[] and warnings[].
 * On DC_OK *out is owned by the caller (cJSON_Delete). Errors: DC_EINVAL,
 * DC_ENOMEM. Thread-safe. */
DC_API DC_NODISCARD enum dc_status probe_snapshot_to_json(const struct probe_snapshot *s,
                                                          cJSON **out, struct dc_error *err);

/* A fixed-width table for people: a host line, one row per device, then the
 * sources that are not ok and the warnings. `wide` adds the PCI vendor:device
 * ids, the catalog id and the device index to each row. `fp` is borrowed.
 * Errors: DC_EINVAL, DC_EIO (a write failed). */
DC_API DC_NODISCARD enum dc_status probe_snapshot_format_table(const struct probe_snapshot *s,
                                                               FILE *fp, bool wide);

/* The snapshot's devices as Prometheus text-format (0.0.4) gauge families, the
 * series that `accel-advisor agent` and `serve --probe` export on /metrics
 * (docs/probe.md, "Metrics"): accel_advisor_probe_devices{vendor, model, state,
 * node} (attached and free per catalog model), and per device
 * accel_advisor_probe_device_up, _free (lost devices left out),
 * _memory_total_bytes, _memory_used_bytes and _utilization_ratio, each labelled
 * device (the PCI address, else "index-N"), vendor, model (the catalog id, or
 * "unknown") and node (`node`, borrowed; NULL is ""). A figure that is not known
 * is left out. `fp` is borrowed. Errors: DC_EINVAL (NULL s or fp), DC_EIO (a
 * write failed). Thread-safe. */
DC_API DC_NODISCARD enum dc_status probe_snapshot_format_metrics(const struct probe_snapshot *s,
                                                                 const char *node, FILE *fp);

/* Escape `s` (NULL is "") as a label value of the text format (\\, \" and \n)
 * into dst, at most cap - 1 bytes and a NUL; what does not fit is cut. */
DC_API void probe_metrics_label(char *dst, size_t cap, const char *s);

/* ------------------------------------------------------------------ holder */

/* The latest snapshot, shared between one writer (usually a probe_worker)
 * and any number of readers. Refcounted; every function is thread-safe and
 * none waits on a probe (the lock covers a pointer swap only). */
typedef struct probe_holder probe_holder;

/* A new, empty holder with one reference. Errors: DC_EINVAL, DC_ENOMEM. */
DC_API DC_NODISCARD enum dc_status probe_holder_new(probe_holder **out, struct dc_error *err);

/* Drop a reference; the last one frees the holder and its snapshot.
 * NULL is a no-op. */
DC_API void probe_holder_release(probe_holder *h);

/* Make `s` the latest snapshot. Takes ownership of the caller's reference to
 * `s` (even when h is NULL, in which case it is released); the previous
 * snapshot is released, so readers that still hold it keep it alive. */
DC_API void probe_holder_publish(probe_holder *h, const struct probe_snapshot *s);

/* The latest snapshot with a new reference for the caller (release it with
 * probe_snapshot_release()), or NULL when none has been published yet. */
DC_API const struct probe_snapshot *probe_holder_get(probe_holder *h);

/* How many snapshots have been published (0 before the first). */
DC_API uint64_t probe_holder_generation(probe_holder *h);

/* Wait until more than `after` snapshots have been published, at most
 * `timeout_ms`. On DC_OK *out_generation (may be NULL) is the generation
 * reached. Errors: DC_EINVAL (NULL h), DC_ELIMIT (timed out). */
DC_API DC_NODISCARD enum dc_status probe_holder_wait(probe_holder *h, uint64_t after,
                                                     unsigned timeout_ms, uint64_t *out_generation);

/* ------------------------------------------------------------------ worker */

/* A background thread that calls probe_run() at once and then every
 * interval, publishing each snapshot into a holder. */
typedef struct probe_worker probe_worker;

struct probe_worker_stats {
    uint64_t runs;     /* probes that produced a snapshot */
    uint64_t failures; /* probe_run() calls that failed (nothing published) */
    /* Published snapshots in which the source was in state error. */
    uint64_t source_errors[PROBE_SOURCE_COUNT];
    enum dc_status last_status;        /* of the last probe_run() */
    char last_error[DC_ERROR_MSG_MAX]; /* message of the last failure; "" if none */
    double last_duration_seconds;
    bool busy;           /* a probe is in progress ... */
    double busy_seconds; /* ... since this long: a stuck driver call shows here */
};

/* Start probing `cfg` (copied, ids table included) every `interval_ms`
 * (at least PROBE_WORKER_INTERVAL_MIN_MS) into `holder` (a reference is taken,
 * so the holder outlives the worker whatever order they are released in).
 * The first probe starts at once on the worker's thread; until it finishes
 * the holder stays as it was (probe_holder_get() may give NULL).
 * On DC_OK *out is owned by the caller: stop it with probe_worker_stop().
 * Errors: DC_EINVAL (as probe_run, plus NULL holder, short interval),
 * DC_ENOMEM, DC_EIO (the thread could not be created). */
DC_API DC_NODISCARD enum dc_status probe_worker_start(const struct probe_config *cfg,
                                                      unsigned interval_ms, probe_holder *holder,
                                                      probe_worker **out, struct dc_error *err);

/* Ask for a probe now instead of at the end of the interval (for example on
 * SIGHUP; not async-signal-safe). A probe in progress is not interrupted.
 * NULL is a no-op. */
DC_API void probe_worker_refresh(probe_worker *w);

/* A consistent copy of the worker's counters. */
DC_API void probe_worker_stats(probe_worker *w, struct probe_worker_stats *out);

/* Stop the worker and free it. The thread is woken at once; a probe in
 * progress is waited for at most `timeout_ms` (0: as long as it takes).
 * Returns DC_OK when the thread has ended. Returns DC_ELIMIT when it is still
 * inside a probe at the limit: it is then detached, will publish nothing
 * more, and frees the worker itself when the probe returns; `w` must not be
 * used again either way. NULL is a no-op (DC_OK). */
DC_API enum dc_status probe_worker_stop(probe_worker *w, unsigned timeout_ms);

#endif /* PROBE_PROBE_H */
