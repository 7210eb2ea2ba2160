/* tests/unit/probe/fake_nvml.c -- a test NVML library.
 *
 * Built as a shared library (tests/unit/probe/extra.cmake) and loaded by the
 * probe's real dlopen loader in place of libnvidia-ml.so.1. It implements
 * the calls the probe makes, with answers and errors read from the file named
 * by the FAKE_NVML_CONFIG environment variable when nvmlInit_v2 first runs
 * (again after the last nvmlShutdown). Without the variable it has no device.
 *
 * Config file: one setting per line, "#" starts a comment.
 *   init_error <code>          nvmlInit_v2 returns it
 *   init_delay_ms <ms>         nvmlInit_v2 sleeps first (a slow driver)
 *   init_gate <path>           nvmlInit_v2 waits until <path> exists (a driver
 *                              stuck until the test lets it go; at most
 *                              FAKE_GATE_MAX_MS, a bound for a failed test)
 *   count_error <code>         nvmlDeviceGetCount_v2 returns it
 *   count <n>                  claim n devices (default: the devices listed)
 *   driver_version <text>
 *   driver_error <code>
 *   shutdown_error <code>
 *   device                     starts the next device (index 0, 1, ...)
 *     bus_id <text>            as NVML prints it: "00000000:1B:00.0"
 *     pci_device_id <hex>      device id << 16 | vendor id (0x233010de)
 *     pci_subsystem_id <hex>
 *     name <text...>  uuid <text>
 *     memory <total> <used>    bytes
 *     utilization <gpu> <mem>  percent
 *     processes <pid>...       compute processes
 *     process_count <n>        n processes with pids 10000, 10001, ...
 *     grow_processes <n>       every call finds n more processes than the last
 *     handle_error / pci_error / name_error / uuid_error / memory_error /
 *     util_error / procs_error <code>
 *
 * Compile-time variants leave a symbol out: FAKE_NVML_OMIT_PROCESSES (an
 * optional one), FAKE_NVML_OMIT_PCI_INFO (a required one).
 *
 * fake_nvml_calls(name) tells a test how often a call was made since the
 * last (re)load of the config. A test double may keep global state; the
 * probe itself keeps none. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe_nvml_abi.h"

#define FAKE_EXPORT      __attribute__((visibility("default")))
#define FAKE_DEVICES_MAX 64
#define FAKE_PROCS_MAX   4096
#define FAKE_TEXT        128
#define FAKE_GATE_MAX_MS 120000

struct nvmlDevice_st {
    char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    unsigned pci_device_id;
    unsigned pci_subsystem_id;
    char name[FAKE_TEXT];
    char uuid[FAKE_TEXT];
    unsigned long long mem_total, mem_used;
    unsigned util_gpu, util_mem;
    unsigned n_procs;
    unsigned *procs;
    unsigned grow;
    unsigned proc_calls;
    int handle_error, pci_error, name_error, uuid_error, memory_error, util_error, procs_error;
};

/* Everything a config load resets. */
struct fake_conf {
    int init_error, count_error, driver_error, shutdown_error;
    long init_delay_ms;
    char init_gate[512]; /* "" : none */
    int count;           /* -1: the devices listed */
    char driver_version[FAKE_TEXT];
    struct nvmlDevice_st devices[FAKE_DEVICES_MAX];
    int n_devices;
    unsigned calls_init, calls_count, calls_handle, calls_pci, calls_name, calls_uuid, calls_memory,
        calls_util, calls_procs, calls_shutdown, calls_driver;
};

static pthread_mutex_t fake_mu = PTHREAD_MUTEX_INITIALIZER;
static int fake_inits; /* nvmlInit_v2 successes not yet shut down */
static struct fake_conf fake;

FAKE_EXPORT nvmlReturn_t nvmlInit_v2(void);
FAKE_EXPORT nvmlReturn_t nvmlShutdown(void);
FAKE_EXPORT const char *nvmlErrorString(nvmlReturn_t result);
FAKE_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                       nvmlUtilization_t *utilization);
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                                 unsigned int *infoCount,
                                                                 nvmlProcessInfo_t *infos);
FAKE_EXPORT unsigned fake_nvml_calls(const char *name);

static void reset(void)
{
    for (int i = 0; i < fake.n_devices; i++)
        free(fake.devices[i].procs);
    memset(&fake, 0, sizeof(fake));
    fake.count = -1;
}

static void copy_text(char *dst, const char *src)
{
    snprintf(dst, FAKE_TEXT, "%s", src);
}

static int load(void)
{
    reset();
    const char *path = getenv("FAKE_NVML_CONFIG");
    if (path == NULL)
        return 0;
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        fprintf(stderr, "fake_nvml: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[512];
    struct nvmlDevice_st *d = NULL;
    int rc = 0;
    while (fgets(line, sizeof(line), fp) != NULL) {
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            continue;
        char *key = p;
        char *val = p + strcspn(p, " \t");
        if (*val != '\0') {
            *val++ = '\0';
            while (*val == ' ' || *val == '\t')
                val++;
        }
        if (strcmp(key, "device") == 0) {
            if (fake.n_devices == FAKE_DEVICES_MAX) {
                rc = -1;
                break;
            }
            d = &fake.devices[fake.n_devices++];
            continue;
        }
        long v = strtol(val, NULL, 0);
        if (strcmp(key, "init_error") == 0) {
            fake.init_error = (int)v;
        } else if (strcmp(key, "init_delay_ms") == 0) {
            fake.init_delay_ms = v;
        } else if (strcmp(key, "init_gate") == 0) {
            snprintf(fake.init_gate, sizeof(fake.init_gate), "%s", val);
        } else if (strcmp(key, "count_error") == 0) {
            fake.count_error = (int)v;
        } else if (strcmp(key, "count") == 0) {
            fake.count = (int)v;
        } else if (strcmp(key, "driver_version") == 0) {
            copy_text(fake.driver_version, val);
        } else if (strcmp(key, "driver_error") == 0) {
            fake.driver_error = (int)v;
        } else if (strcmp(key, "shutdown_error") == 0) {
            fake.shutdown_error = (int)v;
        } else if (d == NULL) {
            fprintf(stderr, "fake_nvml: %s: \"%s\" before any \"device\"\n", path, key);
            rc = -1;
            break;
        } else if (strcmp(key, "bus_id") == 0) {
            snprintf(d->bus_id, sizeof(d->bus_id), "%s", val);
        } else if (strcmp(key, "pci_device_id") == 0) {
            d->pci_device_id = (unsigned)strtoul(val, NULL, 0);
        } else if (strcmp(key, "pci_subsystem_id") == 0) {
            d->pci_subsystem_id = (unsigned)strtoul(val, NULL, 0);
        } else if (strcmp(key, "name") == 0) {
            copy_text(d->name, val);
        } else if (strcmp(key, "uuid") == 0) {
            copy_text(d->uuid, val);
        } else if (strcmp(key, "memory") == 0) {
            char *end = NULL;
            d->mem_total = strtoull(val, &end, 0);
            d->mem_used = strtoull(end, NULL, 0);
        } else if (strcmp(key, "utilization") == 0) {
            char *end = NULL;
            d->util_gpu = (unsigned)strtoul(val, &end, 0);
            d->util_mem = (unsigned)strtoul(end, NULL, 0);
        } else if (strcmp(key, "processes") == 0 || strcmp(key, "process_count") == 0) {
            free(d->procs);
            d->procs = calloc(FAKE_PROCS_MAX, sizeof(*d->procs));
            d->n_procs = 0;
            if (d->procs == NULL) {
                rc = -1;
                break;
            }
            if (strcmp(key, "processes") == 0) {
                char *cur = val;
                while (*cur != '\0' && d->n_procs < FAKE_PROCS_MAX) {
                    char *end = NULL;
                    unsigned long pid = strtoul(cur, &end, 10);
                    if (end == cur)
                        break;
                    d->procs[d->n_procs++] = (unsigned)pid;
                    cur = end;
                }
            } else {
                for (long i = 0; i < v && i < FAKE_PROCS_MAX; i++)
                    d->procs[d->n_procs++] = (unsigned)(10000 + i);
            }
        } else if (strcmp(key, "grow_processes") == 0) {
            d->grow = (unsigned)v;
        } else if (strcmp(key, "handle_error") == 0) {
            d->handle_error = (int)v;
        } else if (strcmp(key, "pci_error") == 0) {
            d->pci_error = (int)v;
        } else if (strcmp(key, "name_error") == 0) {
            d->name_error = (int)v;
        } else if (strcmp(key, "uuid_error") == 0) {
            d->uuid_error = (int)v;
        } else if (strcmp(key, "memory_error") == 0) {
            d->memory_error = (int)v;
        } else if (strcmp(key, "util_error") == 0) {
            d->util_error = (int)v;
        } else if (strcmp(key, "procs_error") == 0) {
            d->procs_error = (int)v;
        } else {
            fprintf(stderr, "fake_nvml: %s: unknown setting \"%s\"\n", path, key);
            rc = -1;
            break;
        }
    }
    fclose(fp);
    return rc;
}

static int device_count(void)
{
    return fake.count >= 0 ? fake.count : fake.n_devices;
}

/* The device behind a handle, or NULL when the handle is not one of ours. */
static struct nvmlDevice_st *check(nvmlDevice_t device, nvmlReturn_t *rc)
{
    if (fake_inits == 0) {
        *rc = NVML_ERROR_UNINITIALIZED;
        return NULL;
    }
    if (device < &fake.devices[0] || device >= &fake.devices[fake.n_devices]) {
        *rc = NVML_ERROR_INVALID_ARGUMENT;
        return NULL;
    }
    *rc = NVML_SUCCESS;
    return device;
}

nvmlReturn_t nvmlInit_v2(void)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc = NVML_SUCCESS;
    if (fake_inits == 0) {
        if (load() != 0) {
            rc = NVML_ERROR_UNKNOWN;
        } else if (fake.init_error != 0) {
            rc = fake.init_error;
        }
    }
    fake.calls_init++;
    long delay = fake.init_delay_ms;
    char gate[sizeof(fake.init_gate)];
    memcpy(gate, fake.init_gate, sizeof(gate));
    if (rc == NVML_SUCCESS)
        fake_inits++;
    else if (fake_inits == 0)
        reset();
    pthread_mutex_unlock(&fake_mu);
    if (delay > 0) {
        struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
    for (long waited = 0; gate[0] != '\0' && access(gate, F_OK) != 0 && waited < FAKE_GATE_MAX_MS;
         waited += 2) {
        struct timespec ts = {0, 2000000L};
        nanosleep(&ts, NULL);
    }
    return rc;
}

nvmlReturn_t nvmlShutdown(void)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc = NVML_SUCCESS;
    fake.calls_shutdown++;
    if (fake_inits == 0) {
        rc = NVML_ERROR_UNINITIALIZED;
    } else {
        rc = fake.shutdown_error;
        fake_inits--;
        /* The config and counters stay until the next first init, so that a
         * test can read the counters after the probe is done. */
    }
    pthread_mutex_unlock(&fake_mu);
    return rc;
}

const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
        return "Invalid Argument";
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

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc = fake_inits == 0 ? NVML_ERROR_UNINITIALIZED : fake.driver_error;
    fake.calls_driver++;
    if (rc == NVML_SUCCESS) {
        if (strlen(fake.driver_version) + 1 > length)
            rc = NVML_ERROR_INSUFFICIENT_SIZE;
        else
            memcpy(version, fake.driver_version, strlen(fake.driver_version) + 1);
    }
    pthread_mutex_unlock(&fake_mu);
    return rc;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc = fake_inits == 0 ? NVML_ERROR_UNINITIALIZED : fake.count_error;
    fake.calls_count++;
    if (rc == NVML_SUCCESS)
        *count = (unsigned)device_count();
    pthread_mutex_unlock(&fake_mu);
    return rc;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc = NVML_SUCCESS;
    fake.calls_handle++;
    if (fake_inits == 0)
        rc = NVML_ERROR_UNINITIALIZED;
    else if (index >= (unsigned)fake.n_devices)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    else if (fake.devices[index].handle_error != 0)
        rc = fake.devices[index].handle_error;
    else
        *device = &fake.devices[index];
    pthread_mutex_unlock(&fake_mu);
    return rc;
}

#ifndef FAKE_NVML_OMIT_PCI_INFO
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc;
    struct nvmlDevice_st *d = check(device, &rc);
    fake.calls_pci++;
    if (d != NULL && d->pci_error != 0)
        rc = d->pci_error;
    if (d != NULL && rc == NVML_SUCCESS) {
        memset(pci, 0, sizeof(*pci));
        snprintf(pci->busId, sizeof(pci->busId), "%s", d->bus_id);
        unsigned dom = 0, bus = 0, dev = 0, fn = 0;
        if (sscanf(d->bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4) {
            snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04x:%02x:%02x.%x", dom & 0xffffu,
                     bus, dev, fn);
            pci->domain = dom;
            pci->bus = bus;
            pci->device = dev;
        }
        pci->pciDeviceId = d->pci_device_id;
        pci->pciSubSystemId = d->pci_subsystem_id;
    }
    pthread_mutex_unlock(&fake_mu);
    return rc;
}
#endif

static nvmlReturn_t copy_string(const char *src, char *dst, unsigned int length)
{
    size_t n = strlen(src) + 1;
    if (n > length)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(dst, src, n);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc;
    struct nvmlDevice_st *d = check(device, &rc);
    fake.calls_name++;
    if (d != NULL)
        rc = d->name_error != 0 ? d->name_error : copy_string(d->name, name, length);
    pthread_mutex_unlock(&fake_mu);
    return rc;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc;
    struct nvmlDevice_st *d = check(device, &rc);
    fake.calls_uuid++;
    if (d != NULL)
        rc = d->uuid_error != 0 ? d->uuid_error : copy_string(d->uuid, uuid, length);
    pthread_mutex_unlock(&fake_mu);
    return rc;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc;
    struct nvmlDevice_st *d = check(device, &rc);
    fake.calls_memory++;
    if (d != NULL) {
        rc = d->memory_error;
        if (rc == NVML_SUCCESS) {
            memory->total = d->mem_total;
            memory->used = d->mem_used;
            memory->free = d->mem_total - d->mem_used;
        }
    }
    pthread_mutex_unlock(&fake_mu);
    return rc;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc;
    struct nvmlDevice_st *d = check(device, &rc);
    fake.calls_util++;
    if (d != NULL) {
        rc = d->util_error;
        if (rc == NVML_SUCCESS) {
            utilization->gpu = d->util_gpu;
            utilization->memory = d->util_mem;
        }
    }
    pthread_mutex_unlock(&fake_mu);
    return rc;
}

#ifndef FAKE_NVML_OMIT_PROCESSES
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_t *infos)
{
    pthread_mutex_lock(&fake_mu);
    nvmlReturn_t rc;
    struct nvmlDevice_st *d = check(device, &rc);
    fake.calls_procs++;
    if (d != NULL) {
        d->proc_calls++;
        if (d->procs_error != 0) {
            rc = d->procs_error;
        } else {
            /* With grow_processes the list is longer at every call, like
             * processes starting between the probe's two calls. */
            unsigned n = d->n_procs + d->grow * d->proc_calls;
            if (infoCount == NULL) {
                rc = NVML_ERROR_INVALID_ARGUMENT;
            } else if (*infoCount < n || (n > 0 && infos == NULL)) {
                *infoCount = n;
                rc = NVML_ERROR_INSUFFICIENT_SIZE;
            } else {
                for (unsigned i = 0; i < n; i++) {
                    infos[i].pid = i < d->n_procs ? d->procs[i] : 20000 + i;
                    infos[i].usedGpuMemory = 1ULL << 30;
                    infos[i].gpuInstanceId = 0xffffffffu;
                    infos[i].computeInstanceId = 0xffffffffu;
                }
                *infoCount = n;
                rc = NVML_SUCCESS;
            }
        }
    }
    pthread_mutex_unlock(&fake_mu);
    return rc;
}
#endif

unsigned fake_nvml_calls(const char *name)
{
    pthread_mutex_lock(&fake_mu);
    unsigned n = 0;
    if (strcmp(name, "init") == 0)
        n = fake.calls_init;
    else if (strcmp(name, "shutdown") == 0)
        n = fake.calls_shutdown;
    else if (strcmp(name, "count") == 0)
        n = fake.calls_count;
    else if (strcmp(name, "handle") == 0)
        n = fake.calls_handle;
    else if (strcmp(name, "pci") == 0)
        n = fake.calls_pci;
    else if (strcmp(name, "name") == 0)
        n = fake.calls_name;
    else if (strcmp(name, "memory") == 0)
        n = fake.calls_memory;
    else if (strcmp(name, "util") == 0)
        n = fake.calls_util;
    else if (strcmp(name, "procs") == 0)
        n = fake.calls_procs;
    else if (strcmp(name, "driver") == 0)
        n = fake.calls_driver;
    else if (strcmp(name, "inits") == 0)
        n = (unsigned)fake_inits;
    pthread_mutex_unlock(&fake_mu);
    return n;
}
