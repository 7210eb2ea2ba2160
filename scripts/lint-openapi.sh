#!/usr/bin/env bash
# Lint openapi.yaml with a real OpenAPI linter: @redocly/cli at a pinned version,
# installed from npm into a local cache the first time, with the strictest
# built-in ruleset (recommended-strict: every warning is an error).
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

# The configuration lives in a scratch directory: the ignore file's paths are
# relative to it.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# allowAdditionalProperties: the example check otherwise closes every schema that
# does not say additionalProperties, the `then` parts of the cross-field rules
# included ({properties: {experts: false}} would refuse every other field); the
# contract's objects say additionalProperties: false themselves.
cat >"$work/redocly.yaml" <<'EOF'
extends:
  - recommended-strict
rules:
  no-invalid-media-type-examples:
    severity: error
    allowAdditionalProperties: true
EOF
rel=$(realpath --relative-to="$work" "$spec")
# Liveness, readiness, metrics, the contract itself and the playground page (GET
# and HEAD), and every path's OPTIONS, have no client error to declare (any path
# they do not have is a 404/405 covered by `default`).
{
    echo "$rel:"
    echo "  operation-4xx-response:"
    for p in healthz readyz metrics openapi.yaml openapi.json ''; do
        for m in get head; do echo "    - '#/paths/~1$p/$m/responses'"; done
    done
    for p in v1~1recommendations v1~1recommendations:batch v1~1accelerators v1~1rules v1~1models \
        v1~1inventory v1~1fleet healthz readyz metrics openapi.yaml openapi.json ''; do
        echo "    - '#/paths/~1$p/options/responses'"
    done
} >"$work/.redocly.lint-ignore.yaml"
cd "$work"
echo "lint-openapi: @redocly/cli $installed, recommended-strict, $spec"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    "$bin" lint --config "$work/redocly.yaml" "$spec"
