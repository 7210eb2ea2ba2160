#!/usr/bin/env bash
# Soak: at least a million requests of every kind, valid and hostile, against the
# real server, once with the response cache on and once with it off; asserts no
# 5xx, the exact status of every response, flat resident memory and file
# descriptors, the server's own counts, and a clean exit (bench/soak/README.md).
#
#   bench/soak/run.sh                  build build-soak-release/ (Release) and run
#   BIN=build/accel-advisor SOAK=build/tests/fault/soak bench/soak/run.sh
#
# Settings (environment): REQUESTS (1000000 per pass), CLIENTS (8 keep-alive
# connections), SERVER_THREADS (2), CACHE (both | on | off), WARMUP (10: the
# percentage of the requests after which memory and descriptors must stay flat),
# MARKS (9: pauses after the warm-up one, where memory and descriptors are read
# with no client connection open), RSS_TOLERANCE_KIB (1024), SAMPLE_S (5: seconds
# between RSS/fd samples under load), BUILD (build-soak-release), JOBS (2).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
REQUESTS=${REQUESTS:-1000000}
CLIENTS=${CLIENTS:-8}
SERVER_THREADS=${SERVER_THREADS:-2}
CACHE=${CACHE:-both}
WARMUP=${WARMUP:-10}
RSS_TOLERANCE_KIB=${RSS_TOLERANCE_KIB:-1024}
SAMPLE_S=${SAMPLE_S:-5}
MARKS=${MARKS:-9}
BUILD=${BUILD:-$root/build-soak-release}
JOBS=${JOBS:-2}

if [ -z "${BIN:-}" ] || [ -z "${SOAK:-}" ]; then
    cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$BUILD" -j"$JOBS" --target accel-advisor soak >/dev/null
    BIN=${BIN:-$BUILD/accel-advisor}
    SOAK=${SOAK:-$BUILD/tests/fault/soak}
fi
echo "bench/soak: $(nproc) CPUs, $(uname -sr), $("$BIN" version 2>/dev/null | head -1)"
echo "bench/soak: $SOAK $BIN --requests $REQUESTS --clients $CLIENTS --server-threads $SERVER_THREADS --cache $CACHE --warmup $WARMUP --marks $MARKS --rss-tolerance-kib $RSS_TOLERANCE_KIB --sample-s $SAMPLE_S"
exec "$SOAK" "$BIN" --requests "$REQUESTS" --clients "$CLIENTS" --server-threads "$SERVER_THREADS" \
    --cache "$CACHE" --warmup "$WARMUP" --marks "$MARKS" --rss-tolerance-kib "$RSS_TOLERANCE_KIB" \
    --sample-s "$SAMPLE_S"
