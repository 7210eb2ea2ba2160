#!/usr/bin/env bash
# Formats every C source and header of the product, its tests, benchmarks and
# fuzzers in place with the checked-in .clang-format (README, "Contributing").
#   scripts/format.sh          -- rewrite the files that differ
#   scripts/format.sh --check  -- change nothing; name the files that differ and
#                                 exit 1 (scripts/test.sh runs this first)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null 2>&1 || {
    echo "format.sh: clang-format is missing (scripts/deps.sh test installs it)" >&2
    exit 2
}
mapfile -t files < <(git ls-files -- 'core/*.[ch]' 'api/*.[ch]' 'probe/*.[ch]' 'service/*.[ch]' \
    'tests/*.[ch]' 'bench/*.[ch]' 'fuzz/*.[ch]')
if [ "${1:-}" != --check ]; then
    clang-format -i "${files[@]}"
    exit 0
fi
# One clang-format for every file (one per file cost most of a minute on a loaded
# machine): each violation is reported as FILE:LINE:COL: error: ...
out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1) && rc=0 || rc=$?
mapfile -t bad < <(printf '%s\n' "$out" |
    sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ $rc -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
    printf '%s\n' "$out" >&2
    echo "format.sh: clang-format failed (exit status $rc)" >&2
    exit 1
fi
if [ ${#bad[@]} -ne 0 ]; then
    echo "format.sh: ${#bad[@]} file(s) differ from .clang-format:" >&2
    printf '  %s\n' "${bad[@]}" >&2
    echo "format.sh: run scripts/format.sh to format them in place" >&2
    exit 1
fi
