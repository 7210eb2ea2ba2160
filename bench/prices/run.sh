#!/usr/bin/env bash
# Times `accel-advisor prices import aws` on generated AWS offer files of 10k,
# 20k and 40k SKUs (gen_aws.py), CPU seconds and peak memory from GNU time, so
# that a machine other work shares still compares (bench/README.md, "prices
# import aws"). usage: bench/prices/run.sh BINARY [MAP_CSV]
# (MAP_CSV: for a binary without a compiled-in name table, its --map.)
set -euo pipefail
bin=$1
map=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
uptime
for n in 10000 20000 40000; do
    python3 "$here/gen_aws.py" "$n" >"$out/aws.json"
    /usr/bin/time -f "$n SKUs ($(stat -c %s "$out/aws.json") bytes): %U s user, %S s sys, %e s wall, %M KB peak" \
        "$bin" prices import aws ${map:+--map "$map"} "$out/aws.json" >/dev/null 2>"$out/err" || true
    tail -2 "$out/err"
done
uptime
