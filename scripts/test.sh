#!/usr/bin/env bash
# README command 2: install what is missing, build, and run the whole test suite,
# first in a normal build, then again under AddressSanitizer + UndefinedBehaviorSanitizer
# (LeakSanitizer on). Any failure, sanitizer report or file that differs from the
# checked-in .clang-format (scripts/format.sh --check) fails the run.
#   AA_SKIP_SANITIZE=1 scripts/test.sh   -- only the normal build (quick local loop)
#   AA_SKIP_FUZZ=1 scripts/test.sh       -- without the fuzzers (AA_FUZZ_SECONDS: time per harness)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
# Formatting first: a file that differs from .clang-format fails the run, named.
scripts/format.sh --check
jobs=$(nproc)
run_suite() {
    local dir=$1; shift
    cmake -S . -B "$dir" "$@" >/dev/null
    cmake --build "$dir" -j"$jobs"
    (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 600)
}
run_suite build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [ "${AA_SKIP_SANITIZE:-0}" != 1 ]; then
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DAA_SANITIZE=ON
fi
# libFuzzer harnesses (fuzz/README.md), AA_FUZZ_SECONDS each (default 60), two at a time.
if [ "${AA_SKIP_FUZZ:-0}" != 1 ]; then bash scripts/fuzz.sh "${AA_FUZZ_SECONDS:-60}"; fi
echo "test.sh: all suites passed"
