# The libFuzzer harnesses, one fuzz/<name>.c each (fuzz/README.md). Shared by
# fuzz/CMakeLists.txt (the clang fuzzers) and fuzz/replay.cmake (their replay in
# the normal test suite), so a new harness is added in one place.
set(AA_FUZZ_HARNESSES fuzz_request fuzz_logic fuzz_rules fuzz_schema fuzz_probe fuzz_fleet)
# fuzz_fleet also needs the fleet's pure sources from service/src (no libcurl): the
# clang fuzzer compiles instrumented copies of these; the replay links aa_service.
set(AA_FUZZ_FLEET_SOURCES ${CMAKE_SOURCE_DIR}/service/src/fleet_parse.c
    ${CMAKE_SOURCE_DIR}/service/src/fleet_model.c ${CMAKE_SOURCE_DIR}/service/src/fleet_json.c)
