/* probe/src/probe_nvml_abi.h -- the part of NVML's C ABI the probe calls.
 *
 * NVML is never a build dependency (probe_nvml.c loads libnvidia-ml with
 * dlopen when the host has it), so nvml.h is not included: these declarations
 * restate the types, constants and signatures the probe uses, with the
 * layouts of nvml.h (https://github.com/NVIDIA/go-nvml/blob/main/gen/nvml/nvml.h). The static
 * assertions pin the sizes and offsets on LP64. The test NVML library
 * (tests/unit/probe/fake_nvml.c) implements the same calls. */
#ifndef PROBE_NVML_ABI_H
#define PROBE_NVML_ABI_H

#include <stddef.h>

/* nvmlReturn_t: an int-sized enum. Only the codes the probe tells apart. */
typedef int nvmlReturn_t;
#define NVML_SUCCESS                  0
#define NVML_ERROR_UNINITIALIZED      1
#define NVML_ERROR_INVALID_ARGUMENT   2
#define NVML_ERROR_NOT_SUPPORTED      3
#define NVML_ERROR_NO_PERMISSION      4
#define NVML_ERROR_NOT_FOUND          6
#define NVML_ERROR_INSUFFICIENT_SIZE  7
#define NVML_ERROR_DRIVER_NOT_LOADED  9
#define NVML_ERROR_TIMEOUT            10
#define NVML_ERROR_LIBRARY_NOT_FOUND  12
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
#define NVML_ERROR_GPU_IS_LOST        15
#define NVML_ERROR_UNKNOWN            999

/* Buffer sizes from nvml.h. */
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE     32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE  16
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE        96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE        96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
/* usedGpuMemory when the driver cannot tell (nvml.h: (-1) as unsigned long long). */
#define NVML_VALUE_NOT_AVAILABLE_ULL (~0ULL)

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlUtilization_st {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;    /* device id << 16 | vendor id */
    unsigned int pciSubSystemId; /* subsystem device id << 16 | subsystem vendor id */
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t layout");
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t layout");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t layout");
_Static_assert(offsetof(nvmlPciInfo_t, pciDeviceId) == 28, "nvmlPciInfo_t layout");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t layout");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t layout");
_Static_assert(offsetof(nvmlProcessInfo_t, usedGpuMemory) == 8, "nvmlProcessInfo_t layout");

/* Signatures, as function pointer types for dlsym. */
typedef nvmlReturn_t (*probe_nvml_init_fn)(void);
typedef nvmlReturn_t (*probe_nvml_shutdown_fn)(void);
typedef const char *(*probe_nvml_error_string_fn)(nvmlReturn_t result);
typedef nvmlReturn_t (*probe_nvml_count_fn)(unsigned int *count);
typedef nvmlReturn_t (*probe_nvml_handle_fn)(unsigned int index, nvmlDevice_t *device);
typedef nvmlReturn_t (*probe_nvml_string_fn)(nvmlDevice_t device, char *buf, unsigned int len);
typedef nvmlReturn_t (*probe_nvml_pci_fn)(nvmlDevice_t device, nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*probe_nvml_memory_fn)(nvmlDevice_t device, nvmlMemory_t *memory);
typedef nvmlReturn_t (*probe_nvml_util_fn)(nvmlDevice_t device, nvmlUtilization_t *util);
typedef nvmlReturn_t (*probe_nvml_procs_fn)(nvmlDevice_t device, unsigned int *count,
                                            nvmlProcessInfo_t *infos);
typedef nvmlReturn_t (*probe_nvml_driver_fn)(char *version, unsigned int len);

#endif /* PROBE_NVML_ABI_H */
