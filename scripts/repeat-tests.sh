#!/usr/bin/env bash
# Run the integration and fault suites (soak.short included) ROUNDS times in a
# built tree, the two suites at once and beside LOAD busy loops, so a test that
# depends on timing shows itself: a test must wait for the condition it needs,
# never for time. Each round's line has the machine's load average at its end.
#   scripts/repeat-tests.sh BUILD_DIR [ROUNDS]      (ROUNDS: 20)
#   AA_REPEAT_LOAD=N    busy loops beside the suites (default: the number of CPUs)
#   AA_REPEAT_REGEX_A / AA_REPEAT_REGEX_B   the two ctest selections run together
# Each failed round keeps its ctest output in BUILD_DIR/repeat-logs/; the exit
# status is 1 when any round failed. In an ASan build, export the sanitizer
# options scripts/test.sh uses first.
set -uo pipefail
if [ $# -lt 1 ] || [ ! -f "$1/CTestTestfile.cmake" ]; then
    echo "usage: $0 BUILD_DIR [ROUNDS]" >&2
    exit 2
fi
dir=$(cd "$1" && pwd)
rounds=${2:-20}
load=${AA_REPEAT_LOAD:-$(nproc)}
regex_a=${AA_REPEAT_REGEX_A:-'^integration\.'}
regex_b=${AA_REPEAT_REGEX_B:-'^(fault|soak)\.'}
logs=$dir/repeat-logs
mkdir -p "$logs"

hogs=()
stop_hogs() {
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
    wait "${hogs[@]}" 2>/dev/null
}
trap stop_hogs EXIT
for ((i = 0; i < load; i++)); do
    (while :; do :; done) &
    hogs+=($!)
done

failed=0
for ((round = 1; round <= rounds; round++)); do
    start=$(date +%s)
    # Two ctest processes in one tree: each keeps its own output file.
    (cd "$dir" && ctest -R "$regex_a" --output-on-failure --timeout 900 >"$logs/a.$round" 2>&1) &
    pid_a=$!
    (cd "$dir" && ctest -R "$regex_b" --output-on-failure --timeout 900 >"$logs/b.$round" 2>&1) &
    pid_b=$!
    wait $pid_a
    rc_a=$?
    wait $pid_b
    rc_b=$?
    took=$(($(date +%s) - start))
    if [ $rc_a -eq 0 ] && [ $rc_b -eq 0 ]; then
        rm -f "$logs/a.$round" "$logs/b.$round"
        echo "round $round/$rounds: passed (${took} s; load average $(cut -d' ' -f1-3 /proc/loadavg))"
    else
        failed=$((failed + 1))
        echo "round $round/$rounds: FAILED (${took} s; load average $(cut -d' ' -f1-3 /proc/loadavg)):" \
            "$(grep -h -E '^\s+[0-9]+ - ' "$logs/a.$round" "$logs/b.$round" | tr -s ' ' | tr '\n' ';')"
    fi
done
echo "repeat-tests: $((rounds - failed)) of $rounds rounds passed ($load busy loops beside)"
[ $failed -eq 0 ]
