#!/usr/bin/env bash
# README command 1: install what is missing, build, and start the service on the
# embedded default rules (listening on 127.0.0.1:8080; extra arguments go to `serve`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DAA_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" --target accel-advisor
exec ./build/accel-advisor serve "$@"
