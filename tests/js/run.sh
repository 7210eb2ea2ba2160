#!/usr/bin/env bash
# Run one JavaScript test of tests/js with its npm packages: the exact versions of
# package-lock.json (puppeteer-core, openapi-typescript, openapi-fetch, typescript;
# dev tooling only, never part of the service), installed with `npm ci` into a
# local cache the first time, as scripts/lint-openapi.sh installs the linter.
#
#   tests/js/run.sh WORKDIR SCRIPT [ARGS...]
#   AA_NPM_CACHE=DIR      where the packages are installed
#                         (default: ~/.cache/accel-advisor/npm)
#
# WORKDIR (in the build tree) gets a copy of tests/js and a node_modules link to
# the cache; SCRIPT runs there with node. Needs node >= 18.17 and npm
# (scripts/deps.sh test installs them) and, on the first run, the npm registry.
# Offline with an empty cache it FAILS, loudly: the tests must never go unrun
# because their tools could not be fetched.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 WORKDIR SCRIPT [ARGS...]" >&2; exit 2; }
work=$1
script=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
cache=${AA_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/accel-advisor/npm}

die() {
    echo "tests/js: $*" >&2
    exit 1
}
command -v node >/dev/null || die "node is not installed (scripts/deps.sh test installs it)"
command -v npm >/dev/null || die "npm is not installed (scripts/deps.sh test installs it)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || die "node $(node --version) is too old: these tests need node 18.17 or later"

# One install per lock file: the directory name is the lock's digest, so a new
# lock installs afresh and an old install is never half-updated. Installs happen
# in a scratch directory renamed into place, so concurrent runs (two builds, two
# developers) never see a partial tree.
key=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-16)
prefix="$cache/js-tests-$key"
if [ ! -d "$prefix/node_modules" ]; then
    mkdir -p "$cache"
    tmp=$(mktemp -d "$cache/.js-tests-XXXXXX")
    cp "$here/package.json" "$here/package-lock.json" "$tmp/"
    echo "tests/js: installing the locked packages into $prefix" >&2
    # --ignore-scripts: no install hooks run (puppeteer-core downloads no browser
    # anyway: the tests drive Debian's chromium).
    if ! (cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2); then
        rm -rf "$tmp"
        die "could not install the packages of tests/js/package-lock.json from npm (offline?): the tests did NOT run"
    fi
    mv -T "$tmp" "$prefix" 2>/dev/null || rm -rf "$tmp" # another run got there first
fi

mkdir -p "$work"
cp "$here"/*.mjs "$here"/*.ts "$here"/tsconfig.json "$here/package.json" "$work/"
ln -sfn "$prefix/node_modules" "$work/node_modules"
cd "$work"
exec node "$script" "$@"
