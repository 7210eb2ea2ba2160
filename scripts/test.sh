#!/usr/bin/env bash
# README command 2: install what is missing, build, and run the whole test suite,
# first in a normal build (Release, so the optimiser's warnings are errors too),
# then again under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer
# on), then each libFuzzer harness over its corpus and new inputs. Any failure,
# sanitizer report or file that differs from the checked-in .clang-format
# (scripts/format.sh --check) fails the run. Each stage prints its time.
#
#   scripts/test.sh          the quick form: every test in both builds, the soak
#                            as a bounded smoke run (soak.short) and each fuzzer
#                            AA_FUZZ_SECONDS (default 5) over its corpus
#   scripts/test.sh --long   also the full soak (soak.long: 1,000,000 requests a
#                            pass; 50,000 under the sanitizers) and each fuzzer
#                            60 s (AA_FUZZ_SECONDS overrides); what CI runs (.ci/run)
#   AA_SKIP_SANITIZE=1 scripts/test.sh   -- only the normal build (quick local loop)
#   AA_SKIP_FUZZ=1 scripts/test.sh       -- without the fuzzers
set -euo pipefail
cd "$(dirname "$0")/.."
long=OFF
fuzz_seconds=5
case "${1:-}" in
'') ;;
--long) long=ON fuzz_seconds=60 ;;
*) echo "usage: scripts/test.sh [--long]" >&2; exit 2 ;;
esac
fuzz_seconds=${AA_FUZZ_SECONDS:-$fuzz_seconds}
t_all=$SECONDS
t_stage=$SECONDS
stage() { # NAME: the time since the last stage ended
    echo "test.sh: $1: $((SECONDS - t_stage)) s"
    t_stage=$SECONDS
}

scripts/deps.sh test
# Formatting first: a file that differs from .clang-format fails the run, named.
scripts/format.sh --check
stage "dependencies and format check"
jobs=$(nproc)
run_suite() {
    local name=$1 dir=$2; shift 2
    cmake -S . -B "$dir" -DAA_LONG_TESTS=$long "$@" >/dev/null
    cmake --build "$dir" -j"$jobs"
    stage "$name build"
    # Twice as many slots as CPUs: the tests that mostly wait run beside the
    # busy ones, which take two slots each (tests/schedule.cmake).
    (cd "$dir" && ctest --output-on-failure -j"$((2 * jobs))" --timeout 1800)
    stage "$name ctest"
}
run_suite normal build-test -DCMAKE_BUILD_TYPE=Release
if [ "${AA_SKIP_SANITIZE:-0}" != 1 ]; then
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    run_suite sanitizer build-asan -DCMAKE_BUILD_TYPE=Debug -DAA_SANITIZE=ON
fi
# libFuzzer harnesses (fuzz/README.md), each over its corpus and new inputs for
# fuzz_seconds, two at a time.
if [ "${AA_SKIP_FUZZ:-0}" != 1 ]; then
    bash scripts/fuzz.sh "$fuzz_seconds"
    stage "fuzzers (build and ${fuzz_seconds} s each)"
fi
echo "test.sh: all suites passed in $((SECONDS - t_all)) s"
