#!/bin/sh
# tests/unit/api/body_identical.sh FAST REFERENCE CASES_JSON
# The fast body writer's output is byte for byte the reference's (printf
# formatting, as before it) for every workload of the decision table, in each
# view (tests/unit/api/body_dump.c). On a difference, names the first workload
# and where its bodies part.
set -eu
fast=$1 ref=$2 cases=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$fast" "$cases" >"$dir/fast"
"$ref" "$cases" >"$dir/ref"
if cmp -s "$dir/fast" "$dir/ref"; then
    echo "identical: $(wc -c <"$dir/fast") bytes, $(wc -l <"$dir/fast") lines"
    exit 0
fi
line=$(cmp "$dir/fast" "$dir/ref" | sed -n 's/.* line \([0-9]*\)$/\1/p')
echo "the bodies differ at line $line of the dump:" >&2
awk -v l="$line" 'NR < l && !/^[{(]/ { name = $0 } END { print "workload: " name }' "$dir/fast" >&2
sed -n "${line}p" "$dir/fast" >"$dir/a"
sed -n "${line}p" "$dir/ref" >"$dir/b"
at=$(cmp "$dir/a" "$dir/b" | sed -n 's/.* byte \([0-9]*\),.*/\1/p')
from=$((at > 120 ? at - 120 : 1))
echo "at byte $at of that body; fast, then reference:" >&2
cut -c"$from-$((at + 120))" "$dir/a" >&2
cut -c"$from-$((at + 120))" "$dir/b" >&2
exit 1
