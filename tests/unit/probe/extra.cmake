# tests/unit/probe/extra.cmake -- included by tests/CMakeLists.txt (lib = probe).
# Builds the test NVML library in three variants and passes their paths to
# every probe test as compile definitions:
#   FAKE_NVML_LIB          every call the probe makes;
#   FAKE_NVML_LIB_NOPROC   without nvmlDeviceGetComputeRunningProcesses_v3 (optional symbol);
#   FAKE_NVML_LIB_NOPCI    without nvmlDeviceGetPciInfo_v3 (required symbol).
set(AA_FAKE_NVML_DIR ${CMAKE_BINARY_DIR}/tests/fake_nvml)
foreach(variant full noproc nopci)
    add_library(fake_nvml_${variant} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/unit/probe/fake_nvml.c)
    target_include_directories(fake_nvml_${variant} PRIVATE ${CMAKE_SOURCE_DIR}/probe/src)
    target_link_libraries(fake_nvml_${variant} PRIVATE Threads::Threads)
    set_target_properties(fake_nvml_${variant} PROPERTIES
        LIBRARY_OUTPUT_DIRECTORY ${AA_FAKE_NVML_DIR}
        C_VISIBILITY_PRESET hidden)
    aa_target_warnings(fake_nvml_${variant})
endforeach()
target_compile_definitions(fake_nvml_noproc PRIVATE FAKE_NVML_OMIT_PROCESSES)
target_compile_definitions(fake_nvml_nopci PRIVATE FAKE_NVML_OMIT_PCI_INFO)

file(GLOB aa_probe_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/probe/test_*.c)
foreach(src IN LISTS aa_probe_tests)
    get_filename_component(stem ${src} NAME_WE)
    target_compile_definitions(unit_probe_${stem} PRIVATE
        FAKE_NVML_LIB="$<TARGET_FILE:fake_nvml_full>"
        FAKE_NVML_LIB_NOPROC="$<TARGET_FILE:fake_nvml_noproc>"
        FAKE_NVML_LIB_NOPCI="$<TARGET_FILE:fake_nvml_nopci>")
    target_link_libraries(unit_probe_${stem} PRIVATE ${CMAKE_DL_LIBS})
    add_dependencies(unit_probe_${stem} fake_nvml_full fake_nvml_noproc fake_nvml_nopci)
endforeach()
