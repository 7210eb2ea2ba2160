#!/usr/bin/env bash
# Lint openapi.yaml with two real OpenAPI linters, @redocly/cli and
# @stoplight/spectral-cli at pinned versions, installed from npm into a local
# cache the first time, each with its default rule set and every warning an error.
#
#   scripts/lint-openapi.sh [FILE]        (default: openapi.yaml at the project root)
#   AA_NPM_CACHE=DIR                      where the linter is installed
#                                         (default: ~/.cache/accel-advisor/npm)
#
# Needs node and npm (scripts/deps.sh test installs them) and, on the first run,
# the npm registry. Offline with an empty cache it FAILS, loudly: the contract
# must never go unlinted because the linter could not be fetched.
set -euo pipefail
REDOCLY_VERSION=1.34.20 # node >= 18.17 (Debian 12 ships 18.19); 2.x needs node 20.19+
SPECTRAL_VERSION=6.16.3  # node >= 18
root=$(cd "$(dirname "$0")/.." && pwd)
spec=$(realpath "${1:-$root/openapi.yaml}")
cache=${AA_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/accel-advisor/npm}
prefix="$cache/redocly-cli-$REDOCLY_VERSION"
bin="$prefix/node_modules/.bin/redocly"

die() {
    echo "lint-openapi: $*" >&2
    exit 1
}
command -v node >/dev/null || die "node is not installed (scripts/deps.sh test installs it)"
command -v npm >/dev/null || die "npm is not installed (scripts/deps.sh test installs it)"

if [ ! -x "$bin" ]; then
    echo "lint-openapi: installing @redocly/cli@$REDOCLY_VERSION into $prefix" >&2
    mkdir -p "$prefix"
    # --ignore-scripts: no install hooks run; --no-save: no package.json is written.
    if ! npm install --prefix "$prefix" --no-save --no-audit --no-fund --ignore-scripts \
        --loglevel=error "@redocly/cli@$REDOCLY_VERSION" >&2; then
        rm -rf "$prefix"
        die "could not install @redocly/cli@$REDOCLY_VERSION from npm (offline?): the contract was NOT linted"
    fi
fi
installed=$("$bin" --version 2>/dev/null || true)
[ "$installed" = "$REDOCLY_VERSION" ] || die "expected @redocly/cli $REDOCLY_VERSION, found \"$installed\""

sprefix="$cache/spectral-cli-$SPECTRAL_VERSION"
spectral="$sprefix/node_modules/.bin/spectral"
if [ ! -x "$spectral" ]; then
    echo "lint-openapi: installing @stoplight/spectral-cli@$SPECTRAL_VERSION into $sprefix" >&2
    mkdir -p "$sprefix"
    if ! npm install --prefix "$sprefix" --no-save --no-audit --no-fund --ignore-scripts \
        --loglevel=error "@stoplight/spectral-cli@$SPECTRAL_VERSION" >&2; then
        rm -rf "$sprefix"
        die "could not install @stoplight/spectral-cli@$SPECTRAL_VERSION from npm (offline?): the contract was NOT linted"
    fi
fi
sinstalled=$("$spectral" --version 2>/dev/null || true)
[ "$sinstalled" = "$SPECTRAL_VERSION" ] || die "expected @stoplight/spectral-cli $SPECTRAL_VERSION, found \"$sinstalled\""

# Both linters run as a user runs them, with their default rule sets and nothing
# configured away: Redocly's recommended set at its strictest (recommended-strict:
# every warning an error; its example check closes every schema that does not say
# additionalProperties, so the contract's cross-field rules live in
# x-cross-field-rules, which linters and generators ignore), and Spectral's
# spectral:oas (a .spectral.yaml of one line, what `spectral lint` asks for).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'extends:\n  - recommended-strict\n' >"$work/redocly.yaml"
printf 'extends: ["spectral:oas"]\n' >"$work/.spectral.yaml"
cd "$work"
echo "lint-openapi: @redocly/cli $installed, recommended-strict, $spec"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    "$bin" lint --config "$work/redocly.yaml" "$spec"
echo "lint-openapi: @stoplight/spectral-cli $SPECTRAL_VERSION, spectral:oas, $spec"
# --fail-severity=hint: a hint, an information or a warning fails as an error does.
"$spectral" lint --ruleset "$work/.spectral.yaml" --fail-severity=hint "$spec"
