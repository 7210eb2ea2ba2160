#!/usr/bin/env bash
# Build the libFuzzer harnesses of fuzz/ (clang, ASan + UBSan) and run each for
# SECONDS (default 60), two at a time. The checked-in seeds (fuzz/corpus/<h>/)
# and regressions (fuzz/regressions/<h>/) are copied to a scratch corpus, so the
# runs never grow the checked-in files. Any crash, broken invariant, leak,
# timeout or out-of-memory fails the script: it prints the reproducer and
# copies the input into fuzz/regressions/<h>/, where the replay tests
# (ctest fuzz.replay.<h>) run it in every build from then on. See fuzz/README.md.
#
#   scripts/fuzz.sh [SECONDS]
#   AA_FUZZ_HARNESSES="fuzz_schema fuzz_logic" scripts/fuzz.sh 300   -- some harnesses only
#   AA_FUZZ_JOBS=1 scripts/fuzz.sh             -- one harness at a time
#   AA_FUZZ_BUILD_DIR=DIR AA_FUZZ_NO_BUILD=1   -- use harnesses already built in DIR
#                                                 (the `fuzz` target of fuzz/CMakeLists.txt)
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
case "$secs" in
'' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2 ;;
esac
build=${AA_FUZZ_BUILD_DIR:-build-fuzz}
jobs=${AA_FUZZ_JOBS:-2}
# The harness list lives in fuzz/harnesses.cmake (one place for CMake and here).
all=$(sed -n 's/^set(AA_FUZZ_HARNESSES \(.*\))$/\1/p' fuzz/harnesses.cmake)
harnesses=(${AA_FUZZ_HARNESSES:-$all})
[ ${#harnesses[@]} -gt 0 ] || { echo "fuzz.sh: no harness found in fuzz/harnesses.cmake" >&2; exit 2; }

# Longest input per harness: a workload body, a rule plus its data, one rule
# file (a whole compact catalog fits), a schema plus instance, sysfs fields, a
# Prometheus answer of a few dozen series.
max_len() {
    case "$1" in
    fuzz_request) echo 4096 ;;
    fuzz_logic) echo 2048 ;;
    fuzz_rules) echo 12288 ;;
    fuzz_schema) echo 8192 ;;
    fuzz_probe) echo 2048 ;;
    fuzz_fleet) echo 4096 ;;
    *) echo 4096 ;;
    esac
}

# Slowest input allowed, in seconds. The request, rules, schema and fleet
# harnesses drive what a client, a rule file or a Prometheus server controls: an
# input taking a second there is a path whose cost grows faster than its input
# (a quadratic uniqueItems took 160 s for 1 MiB, issue 22), so it fails the run
# like a crash.
timeout_s() {
    case "$1" in
    fuzz_request | fuzz_rules | fuzz_schema | fuzz_fleet) echo 1 ;;
    *) echo 10 ;;
    esac
}

# libFuzzer's -timeout is the wall clock: on a loaded machine (two harnesses at
# once, other builds) an input can pass it without being slow. Each timeout is
# run again, alone, and kept only when its CPU time (user + system) passes the
# limit too; 0 when it does (a slow input).
slow_input() {
    local exe=$1 input=$2 limit=$3 cpu
    cpu=$(
        TIMEFORMAT='%3U %3S'
        { time "$exe" -timeout=600 "$input" >/dev/null 2>&1; } 2>&1 | tail -1
    )
    awk -v t="$cpu" -v l="$limit" 'BEGIN { split(t, a, " "); exit !(a[1] + a[2] >= l) }'
}

if [ "${AA_FUZZ_NO_BUILD:-0}" != 1 ]; then
    command -v clang >/dev/null || { echo "fuzz.sh: clang is needed (scripts/deps.sh test installs it)" >&2; exit 2; }
    CC=clang cmake -S . -B "$build" -DAA_FUZZ=ON -DAA_BUILD_TESTS=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" --target fuzz_harnesses -j2 >/dev/null
fi

work="$build/fuzz-work"
rm -rf "$work"
mkdir -p "$work"
# Sanitizer reports abort, so libFuzzer records the input; leaks are checked.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# fuzz_probe writes a small fake host per input: a RAM file system keeps it fast.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi

# Run one harness; writes $work/<h>/status (0 or 1) and a summary line.
run_one() {
    local h=$1 dir="$work/$1"
    local exe="$build/fuzz/$h"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    if [ ! -x "$exe" ]; then
        echo "fuzz.sh: $exe is not built" >"$dir/log"
        echo 1 >"$dir/status"
        return
    fi
    cp -R "fuzz/corpus/$h/." "$dir/corpus/"
    if [ -d "fuzz/regressions/$h" ]; then
        find "fuzz/regressions/$h" -maxdepth 1 -type f ! -name '.*' -exec cp {} "$dir/corpus/" \;
    fi
    local dict=()
    [ -f "fuzz/dict/$h.dict" ] && dict=(-dict="fuzz/dict/$h.dict")
    local rc=0
    "$exe" "$dir/corpus" -max_total_time="$secs" -max_len="$(max_len "$h")" -timeout="$(timeout_s "$h")" \
        -rss_limit_mb=2048 -artifact_prefix="$dir/artifacts/" -print_final_stats=1 \
        "${dict[@]}" >"$dir/log" 2>&1 || rc=$?
    local found triaged=0
    for t in $(find "$dir/artifacts" -type f -name 'timeout-*' | sort); do
        if ! slow_input "$exe" "$t" "$(timeout_s "$h")"; then
            mkdir -p "$dir/load-timeouts"
            mv "$t" "$dir/load-timeouts/"
            echo "fuzz.sh: $h: $(basename "$t") passed the wall-clock limit under load but not" \
                "the CPU limit when run again alone: not a slow input" >>"$dir/log"
            triaged=1
        fi
    done
    found=$(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
        -o -name 'oom-*' \) | sort)
    # libFuzzer stops at its first timeout (exit 70): one triaged away is no failure.
    if [ -n "$found" ] || { [ "$rc" -ne 0 ] && [ "$triaged" -eq 0 ]; }; then
        echo 1 >"$dir/status"
    else
        echo 0 >"$dir/status"
    fi
    local last execs rate cov ft corp
    last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|NEW|REDUCE|pulse|INITED)' "$dir/log" | tail -1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[^ ]*\).*/\1/p')
    # Inputs run after the corpus (libFuzzer's time counts from its start, so on a
    # loaded machine a short run can spend it all on the corpus: said, not hidden).
    local inited fresh
    inited=$(sed -n 's/^#\([0-9]*\)[[:space:]]*INITED.*/\1/p' "$dir/log" | head -1)
    fresh=$(( ${execs:-0} - ${inited:-0} ))
    printf '%-13s %8s execs (%s after the corpus) %7s exec/s  cov %5s  ft %6s  corpus %s\n' "$h" \
        "${execs:-?}" "$fresh" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" >"$dir/summary"
    if [ "$fresh" -le 0 ]; then
        echo "fuzz.sh: $h: its corpus took the whole ${secs} s (a loaded machine?): no new input ran;" \
            "AA_FUZZ_SECONDS gives it longer" >>"$dir/summary"
    fi
}

echo "fuzz.sh: ${#harnesses[@]} harnesses, ${secs} s each, ${jobs} at a time (logs in $work)"
running=0
for h in "${harnesses[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    run_one "$h" &
    running=$((running + 1))
done
wait || true

failed=0
for h in "${harnesses[@]}"; do
    dir="$work/$h"
    [ -f "$dir/summary" ] && cat "$dir/summary"
    if [ "$(cat "$dir/status" 2>/dev/null || echo 1)" != 0 ]; then
        failed=1
        echo "fuzz.sh: $h FAILED; the end of its log ($dir/log):" >&2
        tail -n 60 "$dir/log" >&2
        mkdir -p "fuzz/regressions/$h"
        for f in $(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' \
            -o -name 'timeout-*' -o -name 'oom-*' \) | sort); do
            keep="fuzz/regressions/$h/$(basename "$f")"
            cp "$f" "$keep"
            echo "fuzz.sh: reproducer kept as $keep" >&2
            echo "fuzz.sh:   reproduce: $build/fuzz/$h $keep" >&2
            echo "fuzz.sh:   replay (gcc build): build-test/tests/replay_$h $keep" >&2
        done
    fi
done
if [ "$failed" -ne 0 ]; then
    echo "fuzz.sh: FAILED (fix the bug, keep the input in fuzz/regressions/)" >&2
    exit 1
fi
echo "fuzz.sh: every harness ran ${secs} s without a crash, leak or timeout"
