#!/usr/bin/env bash
# Installs the Debian 12 packages accel-advisor needs, only those missing.
#   scripts/deps.sh build   -- to build and run the service
#   scripts/deps.sh test    -- also what the test suite needs
#   scripts/deps.sh bench   -- also what bench/http/run.sh needs (wrk, nginx-light)
set -euo pipefail
# libcurl: the service's fleet client (--fleet-prometheus) and the integration tests.
want=(build-essential cmake pkg-config libmicrohttpd-dev libcjson-dev libyaml-dev libssl-dev
    libcurl4-openssl-dev)
case "${1:-build}" in
build | test) ;;
bench)
    # bench/http/run.sh: wrk loads the server, nginx (the light build is enough)
    # serves the same bytes as a static file for the ceiling, curl checks both
    # answer, taskset (util-linux) pins wrk and the servers to their CPUs.
    want+=(wrk nginx-light curl util-linux)
    ;;
*)
    echo "usage: scripts/deps.sh [build|test|bench]" >&2
    exit 2
    ;;
esac
if [ "${1:-build}" = test ]; then
    # cmocka: unit tests; prometheus: promtool check metrics, and the server the fleet
    # test (tests/integration/test_fleet.c) scrapes the node agents with; gcovr:
    # coverage; clang + its runtime: fuzzers; clang-format: scripts/format.sh --check.
    want+=(libcmocka-dev prometheus gcovr clang libclang-rt-14-dev clang-format)
    # curl: the installed-binary test (tests/deploy/test_install.sh) calls the server.
    want+=(curl)
    # iproute2: the README test (tests/readme/test_readme.sh) brings up loopback in
    # the network namespace its commands run in (unshare, from util-linux).
    want+=(iproute2 util-linux)
    # chromium: the playground's browser test (tests/js/playground.test.mjs drives it
    # with puppeteer-core; no browser is downloaded from npm).
    want+=(chromium)
    # npm runs the pinned OpenAPI linter and the tests of tests/js. A machine may
    # already have Node.js from another source (NodeSource's nodejs bundles npm and
    # conflicts with Debian's npm package), so ask for Debian's npm only when there
    # is no npm command at all.
    command -v npm >/dev/null 2>&1 || want+=(npm)
fi
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
