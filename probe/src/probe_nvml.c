/* probe/src/probe_nvml.c -- NVIDIA GPUs as NVML sees them. The library is
 * opened with dlopen for each probe and closed after it; every call's return
 * code is looked at. NVML devices are matched to PCI devices by bus id. */
#include "probe_internal.h"
#include "probe_nvml_abi.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* Process entries asked for on the first try (the common case is a few). */
#define NVML_PROCS_FIRST 16

struct nvml_lib {
    void *handle;
    const char *path;
    probe_nvml_init_fn init;
    probe_nvml_shutdown_fn shutdown;
    probe_nvml_error_string_fn error_string; /* optional */
    probe_nvml_count_fn count;
    probe_nvml_handle_fn handle_by_index;
    probe_nvml_pci_fn pci_info;
    probe_nvml_string_fn name;      /* optional */
    probe_nvml_string_fn uuid;      /* optional */
    probe_nvml_memory_fn memory;    /* optional */
    probe_nvml_util_fn utilization; /* optional */
    probe_nvml_procs_fn processes;  /* optional */
    probe_nvml_driver_fn driver;    /* optional */
};

static bool resolve(void *handle, const char *name, void *fnptr, size_t size);
static const char *resolve_all(struct probe_ctx *ctx, struct nvml_lib *l);
static const char *err_text(const struct nvml_lib *l, nvmlReturn_t rc);
static bool call_ok(struct probe_ctx *ctx, const struct nvml_lib *l, struct probe_device *d,
                    const char *call, nvmlReturn_t rc);
static struct probe_device *match_device(struct probe_ctx *ctx, unsigned idx,
                                         const nvmlPciInfo_t *pci);
static void query_device(struct probe_ctx *ctx, const struct nvml_lib *l, unsigned idx,
                         unsigned *lost);
static void query_processes(struct probe_ctx *ctx, const struct nvml_lib *l, struct probe_device *d,
                            nvmlDevice_t h);
static void settle_unmatched(struct probe_ctx *ctx, unsigned lost);
static bool has_nvidia_device(const struct probe_ctx *ctx);

/* dlsym gives a data pointer; POSIX guarantees it converts to a function
 * pointer of the same size, and memcpy says so without a cast ISO C forbids. */
static bool resolve(void *handle, const char *name, void *fnptr, size_t size)
{
    void *sym = dlsym(handle, name);
    if (sym == NULL || size != sizeof(sym))
        return false;
    memcpy(fnptr, &sym, sizeof(sym));
    return true;
}

/* Resolve every symbol; returns the first missing required one, or NULL. */
static const char *resolve_all(struct probe_ctx *ctx, struct nvml_lib *l)
{
#define REQUIRED(field, sym)                                                                       \
    do {                                                                                           \
        if (!resolve(l->handle, sym, &l->field, sizeof(l->field)))                                 \
            return sym;                                                                            \
    } while (0)
#define OPTIONAL(field, sym, what)                                                                 \
    do {                                                                                           \
        if (!resolve(l->handle, sym, &l->field, sizeof(l->field)))                                 \
            probe__warn(ctx, "%s: no symbol %s: %s unknown", l->path, sym, what);                  \
    } while (0)
    REQUIRED(init, "nvmlInit_v2");
    REQUIRED(shutdown, "nvmlShutdown");
    REQUIRED(count, "nvmlDeviceGetCount_v2");
    REQUIRED(handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
    REQUIRED(pci_info, "nvmlDeviceGetPciInfo_v3");
    OPTIONAL(error_string, "nvmlErrorString", "error texts");
    OPTIONAL(name, "nvmlDeviceGetName", "product names");
    OPTIONAL(uuid, "nvmlDeviceGetUUID", "UUIDs");
    OPTIONAL(memory, "nvmlDeviceGetMemoryInfo", "memory");
    OPTIONAL(utilization, "nvmlDeviceGetUtilizationRates", "utilization");
    OPTIONAL(processes, "nvmlDeviceGetComputeRunningProcesses_v3", "processes");
    OPTIONAL(driver, "nvmlSystemGetDriverVersion", "the driver version");
#undef REQUIRED
#undef OPTIONAL
    return NULL;
}

/* NVML's own text when it has one, else ours for the codes we know. */
static const char *err_text(const struct nvml_lib *l, nvmlReturn_t rc)
{
    if (l != NULL && l->error_string != NULL) {
        const char *s = l->error_string(rc);
        if (s != NULL)
            return s;
    }
    switch (rc) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case NVML_ERROR_NOT_SUPPORTED:
        return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
        return "Insufficient Permissions";
    case NVML_ERROR_INSUFFICIENT_SIZE:
        return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    case NVML_ERROR_LIBRARY_NOT_FOUND:
        return "NVML Shared Library Not Found";
    case NVML_ERROR_GPU_IS_LOST:
        return "GPU is lost";
    default:
        return "Unknown Error";
    }
}

/* Sort one call's outcome: success gives true; "not supported" leaves the
 * figure unknown quietly (normal on some boards); "no permission" leaves it
 * unknown with a warning; a lost GPU marks the device lost; anything else
 * marks it in error with the call and NVML's text. */
static bool call_ok(struct probe_ctx *ctx, const struct nvml_lib *l, struct probe_device *d,
                    const char *call, nvmlReturn_t rc)
{
    switch (rc) {
    case NVML_SUCCESS:
        return true;
    case NVML_ERROR_NOT_SUPPORTED:
        return false;
    case NVML_ERROR_NO_PERMISSION:
        probe__warn(ctx, "NVML %s: %s: %s", d->pci_address, call, err_text(l, rc));
        return false;
    case NVML_ERROR_GPU_IS_LOST:
        probe__device_fail(ctx, d, PROBE_DEVICE_LOST, "%s: %s", call, err_text(l, rc));
        return false;
    default:
        probe__device_fail(ctx, d, PROBE_DEVICE_ERROR, "%s: %s (NVML error %d)", call,
                           err_text(l, rc), rc);
        return false;
    }
}

static bool has_nvidia_device(const struct probe_ctx *ctx)
{
    for (size_t i = 0; i < ctx->snap->n_devices; i++) {
        if (ctx->snap->devices[i].pci_vendor == PROBE_PCI_VENDOR_NVIDIA)
            return true;
    }
    return false;
}

/* The PCI device with NVML's bus id, or a new one when the PCI scan did not
 * see it (no sysfs, or a root that is not this host's). NULL when the bus id
 * cannot be read or the device limit is reached. */
static struct probe_device *match_device(struct probe_ctx *ctx, unsigned idx,
                                         const nvmlPciInfo_t *pci)
{
    char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    struct probe_pci_addr addr;
    memcpy(bus_id, pci->busId, sizeof(bus_id));
    bus_id[sizeof(bus_id) - 1] = '\0';
    if (!probe__pci_addr_parse(bus_id, &addr)) {
        char legacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
        memcpy(legacy, pci->busIdLegacy, sizeof(legacy));
        legacy[sizeof(legacy) - 1] = '\0';
        if (!probe__pci_addr_parse(legacy, &addr)) {
            probe__warn(ctx, "NVML device index %u: bus id \"%.32s\" is not a PCI address", idx,
                        bus_id);
            return NULL;
        }
    }
    for (size_t i = 0; i < ctx->snap->n_devices; i++) {
        struct probe_device *d = &ctx->snap->devices[i];
        struct probe_dev_extra *x = &ctx->extra[i];
        if (!x->has_addr || d->pci_vendor != PROBE_PCI_VENDOR_NVIDIA ||
            probe__pci_addr_cmp(&x->addr, &addr) != 0)
            continue;
        if (x->nvml_matched) {
            probe__warn(ctx, "NVML device index %u: bus id %s already seen at another index", idx,
                        d->pci_address);
            return NULL;
        }
        x->nvml_matched = true;
        return d;
    }
    struct probe_dev_extra *x = NULL;
    struct probe_device *d = probe__device_add(ctx, &x);
    if (d == NULL)
        return NULL;
    x->addr = addr;
    x->has_addr = true;
    x->nvml_matched = true;
    probe__pci_addr_format(&addr, d->pci_address);
    d->pci_vendor = (uint16_t)(pci->pciDeviceId & 0xffffu);
    d->pci_device = (uint16_t)(pci->pciDeviceId >> 16);
    d->has_pci_subsystem_device = true;
    d->pci_subsystem_device = (uint16_t)(pci->pciSubSystemId >> 16);
    if (d->pci_vendor != PROBE_PCI_VENDOR_NVIDIA) {
        /* NVML only knows NVIDIA parts; a different vendor id is a reporting
         * error, not a reason to call the device something else. */
        d->pci_vendor = PROBE_PCI_VENDOR_NVIDIA;
    }
    probe__device_identify(ctx, d);
    probe__warn(ctx, "NVML device %s (index %u) is not in the PCI scan", d->pci_address, idx);
    return d;
}

static void query_processes(struct probe_ctx *ctx, const struct nvml_lib *l, struct probe_device *d,
                            nvmlDevice_t h)
{
    nvmlProcessInfo_t first[NVML_PROCS_FIRST];
    nvmlProcessInfo_t *heap = NULL;
    nvmlProcessInfo_t *infos = first;
    unsigned cap = NVML_PROCS_FIRST;
    const char *call = "nvmlDeviceGetComputeRunningProcesses_v3";

    for (unsigned tries = 0;; tries++) {
        if (tries == PROBE_NVML_PROCS_TRIES) {
            /* The list grew on every try: there are at least `cap`. */
            probe__warn(ctx, "NVML %s: %s: the process count kept growing; not listed",
                        d->pci_address, call);
            d->in_use = PROBE_IN_USE_YES;
            d->pids_truncated = true;
            break;
        }
        unsigned count = cap;
        memset(infos, 0, (size_t)cap * sizeof(*infos));
        nvmlReturn_t rc = l->processes(h, &count, infos);
        if (rc == NVML_SUCCESS) {
            if (count > cap)
                count = cap;
            d->in_use = count > 0 ? PROBE_IN_USE_YES : PROBE_IN_USE_NO;
            for (unsigned i = 0; i < count; i++)
                probe__device_add_pid(ctx, d, (pid_t)infos[i].pid);
            break;
        }
        if (rc != NVML_ERROR_INSUFFICIENT_SIZE) {
            (void)call_ok(ctx, l, d, call, rc);
            break;
        }
        /* Too small: count now holds what NVML needs. It may grow again
         * before the next call, hence some room and a bounded number of tries. */
        if (count <= cap)
            count = cap * 2;
        if (count > PROBE_NVML_PROCS_MAX) {
            probe__warn(ctx, "NVML %s: %u compute processes, more than the %d listed",
                        d->pci_address, count, PROBE_NVML_PROCS_MAX);
            d->in_use = PROBE_IN_USE_YES;
            d->pids_truncated = true;
            break;
        }
        unsigned ncap = count + count / 4 + 1;
        if (ncap > PROBE_NVML_PROCS_MAX)
            ncap = PROBE_NVML_PROCS_MAX;
        nvmlProcessInfo_t *nh = realloc(heap, (size_t)ncap * sizeof(*nh));
        if (nh == NULL) {
            ctx->oom = true;
            break;
        }
        heap = nh;
        infos = heap;
        cap = ncap;
    }
    free(heap);
}

static void query_device(struct probe_ctx *ctx, const struct nvml_lib *l, unsigned idx,
                         unsigned *lost)
{
    nvmlDevice_t h = NULL;
    nvmlReturn_t rc = l->handle_by_index(idx, &h);
    if (rc == NVML_ERROR_GPU_IS_LOST) {
        (*lost)++;
        probe__warn(ctx, "NVML device index %u: nvmlDeviceGetHandleByIndex_v2: %s", idx,
                    err_text(l, rc));
        return;
    }
    if (rc != NVML_SUCCESS) {
        probe__warn(ctx, "NVML device index %u: nvmlDeviceGetHandleByIndex_v2: %s (NVML error %d)",
                    idx, err_text(l, rc), rc);
        return;
    }
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof(pci));
    rc = l->pci_info(h, &pci);
    if (rc == NVML_ERROR_GPU_IS_LOST) {
        (*lost)++;
        probe__warn(ctx, "NVML device index %u: nvmlDeviceGetPciInfo_v3: %s", idx, err_text(l, rc));
        return;
    }
    if (rc != NVML_SUCCESS) {
        probe__warn(ctx, "NVML device index %u: nvmlDeviceGetPciInfo_v3: %s (NVML error %d)", idx,
                    err_text(l, rc), rc);
        return;
    }
    struct probe_device *d = match_device(ctx, idx, &pci);
    if (d == NULL)
        return;
    d->source = PROBE_DATA_NVML;
    d->index = (int)idx;

    char text[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    if (l->name != NULL && d->state != PROBE_DEVICE_LOST) {
        memset(text, 0, sizeof(text));
        rc = l->name(h, text, (unsigned)sizeof(text));
        text[sizeof(text) - 1] = '\0';
        if (call_ok(ctx, l, d, "nvmlDeviceGetName", rc) && text[0] != '\0') {
            char *n = probe__strdup(ctx, text);
            if (n != NULL) {
                free(d->name);
                d->name = n;
            }
        }
    }
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    if (l->uuid != NULL && d->state != PROBE_DEVICE_LOST) {
        memset(uuid, 0, sizeof(uuid));
        rc = l->uuid(h, uuid, (unsigned)sizeof(uuid));
        uuid[sizeof(uuid) - 1] = '\0';
        if (call_ok(ctx, l, d, "nvmlDeviceGetUUID", rc) && uuid[0] != '\0')
            d->uuid = probe__strdup(ctx, uuid);
    }
    if (l->memory != NULL && d->state != PROBE_DEVICE_LOST) {
        nvmlMemory_t mem;
        memset(&mem, 0, sizeof(mem));
        rc = l->memory(h, &mem);
        if (call_ok(ctx, l, d, "nvmlDeviceGetMemoryInfo", rc)) {
            d->has_memory_total = true;
            d->memory_total_bytes = mem.total;
            d->has_memory_used = true;
            d->memory_used_bytes = mem.used;
        }
    }
    if (l->utilization != NULL && d->state != PROBE_DEVICE_LOST) {
        nvmlUtilization_t u;
        memset(&u, 0, sizeof(u));
        rc = l->utilization(h, &u);
        if (call_ok(ctx, l, d, "nvmlDeviceGetUtilizationRates", rc)) {
            if (u.gpu <= 100) {
                d->has_utilization = true;
                d->utilization_percent = u.gpu;
            } else {
                probe__warn(ctx, "NVML %s: utilization %u%% is out of range", d->pci_address,
                            u.gpu);
            }
        }
    }
    if (l->processes != NULL && d->state != PROBE_DEVICE_LOST)
        query_processes(ctx, l, d, h);
}

/* NVIDIA PCI devices NVML did not answer for. When NVML lost exactly as many
 * GPUs as there are such devices, those are the lost ones (NVML could not
 * give their bus ids); otherwise they are reported as the PCI scan saw them. */
static void settle_unmatched(struct probe_ctx *ctx, unsigned lost)
{
    size_t unmatched = 0;
    for (size_t i = 0; i < ctx->snap->n_devices; i++) {
        if (ctx->snap->devices[i].pci_vendor == PROBE_PCI_VENDOR_NVIDIA &&
            !ctx->extra[i].nvml_matched)
            unmatched++;
    }
    if (unmatched == 0)
        return;
    bool eliminate = lost > 0 && unmatched == lost;
    if (lost > 0 && !eliminate)
        probe__warn(ctx,
                    "NVML lost %u GPU(s) and %zu NVIDIA PCI device(s) are unmatched: cannot "
                    "tell which are lost",
                    lost, unmatched);
    for (size_t i = 0; i < ctx->snap->n_devices; i++) {
        struct probe_device *d = &ctx->snap->devices[i];
        if (d->pci_vendor != PROBE_PCI_VENDOR_NVIDIA || ctx->extra[i].nvml_matched)
            continue;
        if (eliminate)
            probe__device_fail(ctx, d, PROBE_DEVICE_LOST,
                               "NVML reports a lost GPU and does not answer for this one");
        else if (lost == 0)
            probe__warn(ctx,
                        "%s: NVIDIA device not visible to NVML (another driver, or hidden "
                        "from this container?)",
                        d->pci_address);
    }
}

/* ---- library-wide functions below ---- */

void probe__nvml_collect(struct probe_ctx *ctx)
{
    struct nvml_lib l;
    bool initialised = false;
    memset(&l, 0, sizeof(l));

    if (ctx->cfg->nvml_mode == PROBE_NVML_OFF) {
        probe__source_set(ctx, PROBE_SOURCE_NVML, PROBE_SOURCE_OFF, 0, NULL);
        return;
    }
    /* Nothing to ask when the PCI scan worked and found no NVIDIA device.
     * When it failed, NVML may still see GPUs, so ask. */
    if (ctx->snap->sources[PROBE_SOURCE_PCI].state == PROBE_SOURCE_OK && !has_nvidia_device(ctx)) {
        probe__source_set(ctx, PROBE_SOURCE_NVML, PROBE_SOURCE_SKIPPED, 0, NULL);
        return;
    }
    l.path =
        ctx->cfg->nvml_mode == PROBE_NVML_PATH ? ctx->cfg->nvml_path : PROBE_NVML_DEFAULT_LIBRARY;
    (void)dlerror();
    /* RTLD_NODELETE: the driver library stays mapped after dlclose, so a
     * refresh every few seconds does not map and unmap it each time and no
     * thread it may have started outlives its code. */
    l.handle = dlopen(l.path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (l.handle == NULL) {
        const char *why = dlerror();
        probe__source_set(ctx, PROBE_SOURCE_NVML,
                          ctx->cfg->nvml_mode == PROBE_NVML_AUTO ? PROBE_SOURCE_UNAVAILABLE
                                                                 : PROBE_SOURCE_ERROR,
                          NVML_ERROR_LIBRARY_NOT_FOUND, "%s", why != NULL ? why : l.path);
        return;
    }
    const char *missing = resolve_all(ctx, &l);
    if (missing != NULL) {
        probe__source_set(ctx, PROBE_SOURCE_NVML, PROBE_SOURCE_ERROR, NVML_ERROR_FUNCTION_NOT_FOUND,
                          "%s: no symbol %s", l.path, missing);
        goto out;
    }
    nvmlReturn_t rc = l.init();
    if (rc != NVML_SUCCESS) {
        probe__source_set(ctx, PROBE_SOURCE_NVML, PROBE_SOURCE_ERROR, rc,
                          "nvmlInit_v2: %s (NVML error %d)", err_text(&l, rc), rc);
        goto out;
    }
    initialised = true;
    if (l.driver != NULL) {
        char version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        memset(version, 0, sizeof(version));
        rc = l.driver(version, (unsigned)sizeof(version));
        version[sizeof(version) - 1] = '\0';
        if (rc == NVML_SUCCESS)
            ctx->snap->nvml_driver_version = probe__strdup(ctx, version);
        else
            probe__warn(ctx, "nvmlSystemGetDriverVersion: %s (NVML error %d)", err_text(&l, rc),
                        rc);
    }
    unsigned count = 0;
    rc = l.count(&count);
    if (rc != NVML_SUCCESS) {
        probe__source_set(ctx, PROBE_SOURCE_NVML, PROBE_SOURCE_ERROR, rc,
                          "nvmlDeviceGetCount_v2: %s (NVML error %d)", err_text(&l, rc), rc);
        goto out;
    }
    if (count > PROBE_NVML_DEVICES_MAX) {
        probe__warn(ctx, "NVML reports %u devices: only the first %d are asked", count,
                    PROBE_NVML_DEVICES_MAX);
        count = PROBE_NVML_DEVICES_MAX;
    }
    unsigned lost = 0;
    for (unsigned i = 0; i < count && !ctx->oom; i++)
        query_device(ctx, &l, i, &lost);
    settle_unmatched(ctx, lost);
    probe__source_set(ctx, PROBE_SOURCE_NVML, PROBE_SOURCE_OK, 0, NULL);
out:
    if (initialised) {
        rc = l.shutdown();
        if (rc != NVML_SUCCESS)
            probe__warn(ctx, "nvmlShutdown: %s (NVML error %d)", err_text(&l, rc), rc);
    }
    dlclose(l.handle);
}
