# Regression replay of the libFuzzer harnesses in the normal test suite (any
# compiler): each harness source is linked with fuzz/replay_main.c instead of
# libFuzzer and runs every file of fuzz/corpus/<harness>/ and
# fuzz/regressions/<harness>/ as ctest `fuzz.replay.<harness>`. In the ASan build
# of scripts/test.sh they run under the sanitizers. Included from
# tests/CMakeLists.txt (which provides aa_target_warnings and the libraries).
set(AA_FUZZ_DIR ${CMAKE_SOURCE_DIR}/fuzz)
include(${AA_FUZZ_DIR}/harnesses.cmake)
foreach(h IN LISTS AA_FUZZ_HARNESSES)
    set(exe replay_${h})
    add_executable(${exe} ${AA_FUZZ_DIR}/${h}.c ${AA_FUZZ_DIR}/fuzz_common.c
                          ${AA_FUZZ_DIR}/replay_main.c)
    target_include_directories(${exe} PRIVATE ${AA_FUZZ_DIR} ${AA_CORE_INCLUDE_DIRS}
                                              ${CMAKE_SOURCE_DIR}/probe/src)
    target_link_libraries(${exe} PRIVATE aa_api aa_core aa_probe aa_embedded Threads::Threads)
    aa_target_warnings(${exe})
    add_test(NAME fuzz.replay.${h}
             COMMAND ${exe} ${AA_FUZZ_DIR}/corpus/${h} ${AA_FUZZ_DIR}/regressions/${h})
    set_tests_properties(fuzz.replay.${h} PROPERTIES TIMEOUT 300)
endforeach()
# The fleet's pure sources come from aa_service, the library they are compiled
# into once (the clang fuzzers compile their own instrumented copies instead).
target_link_libraries(replay_fuzz_fleet PRIVATE aa_service)
