# The libFuzzer harnesses, one fuzz/<name>.c each (fuzz/README.md). Shared by
# fuzz/CMakeLists.txt (the clang fuzzers) and fuzz/replay.cmake (their replay in
# the normal test suite), so a new harness is added in one place.
set(AA_FUZZ_HARNESSES fuzz_request fuzz_logic fuzz_rules fuzz_schema fuzz_probe)
