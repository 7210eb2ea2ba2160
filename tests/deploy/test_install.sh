#!/usr/bin/env bash
# deploy.install: `cmake --install` into a staging directory gives a tree that
# holds exactly the binary, the default rules, the contract and the documentation;
# the installed binary links only system libraries and works with an empty
# environment from an unrelated directory: version, check, recommend, and serve
# (on an ephemeral loopback port, GET /healthz and POST /v1/recommendations with
# curl), then exits 0 on SIGTERM.
# usage: test_install.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
pass=0
fail=0
tmp=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill -KILL "$server" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL $*"
}
for tool in curl ldd readelf cmake; do
    command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed"; exit 1; }
done

# 1. Install into a staging directory (DESTDIR), as packagers and the Dockerfile do.
stage=$tmp/stage
prefix=/usr/local
if ! DESTDIR=$stage cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    echo "FAIL: cmake --install"
    exit 1
fi
root=$stage$prefix
bin=$root/bin/accel-advisor

# 2. The tree holds exactly what the install rules promise.
{
    echo bin/accel-advisor
    echo share/accel-advisor/openapi.yaml
    for f in "$src"/rules/*.yaml; do echo "share/accel-advisor/rules/$(basename "$f")"; done
    echo share/doc/accel-advisor/README.md
    for f in "$src"/docs/*.md; do echo "share/doc/accel-advisor/docs/$(basename "$f")"; done
} | LC_ALL=C sort >"$tmp/want"
(cd "$root" && find . -mindepth 1 ! -type d | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/got"
if diff -u "$tmp/want" "$tmp/got"; then ok; else bad "installed tree (- expected, + installed)"; fi
if [ -x "$bin" ]; then ok; else bad "$bin is not executable"; exit 1; fi
for f in "$src"/rules/*.yaml; do
    if cmp -s "$f" "$root/share/accel-advisor/rules/$(basename "$f")"; then ok; else bad "installed $(basename "$f") differs"; fi
done
if cmp -s "$src/openapi.yaml" "$root/share/accel-advisor/openapi.yaml"; then ok; else bad "installed openapi.yaml differs"; fi

# 3. Only system libraries, found without the build tree: no RPATH/RUNPATH left,
# every dependency resolved under /lib or /usr/lib.
if readelf -d "$bin" | grep -Eq 'R(UN)?PATH'; then
    bad "the installed binary keeps an RPATH/RUNPATH: $(readelf -d "$bin" | grep -E 'R(UN)?PATH')"
else ok; fi
env -i ldd "$bin" >"$tmp/ldd" 2>&1 || bad "ldd failed: $(cat "$tmp/ldd")"
sed 's/^/  ldd: /' "$tmp/ldd"
if grep -q "not found" "$tmp/ldd"; then bad "unresolved libraries"; else ok; fi
if grep -F -e "$build" -e "$src" "$tmp/ldd"; then bad "a library resolves into the build or source tree"; else ok; fi
while read -r line; do
    case $line in
        linux-vdso.so.* | *ld-linux*.so.*) continue ;;
    esac
    path=$(printf '%s\n' "$line" | sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p')
    case $path in
        /lib/* | /usr/lib/* | /lib64/* | /usr/lib64/*) ok ;;
        *) bad "library outside the system directories: $line" ;;
    esac
done <"$tmp/ldd"

# 4. The installed binary with an empty environment, from an unrelated directory.
elsewhere=$tmp/elsewhere
mkdir -p "$elsewhere"
cp "$src/examples/llm-serving.json" "$elsewhere/workload.json"
cd "$elsewhere" || exit 1
run() { # expected status, output file, args...
    local want=$1 out=$2
    shift 2
    env -i "$bin" "$@" >"$tmp/$out" 2>"$tmp/$out.err"
    local got=$?
    if [ "$got" -eq "$want" ]; then ok; else
        bad "accel-advisor $*: exit $got, want $want"
        head -5 "$tmp/$out" "$tmp/$out.err"
    fi
}
expect() { # file, extended regex
    if grep -Eq -- "$2" "$tmp/$1"; then ok; else bad "$1 lacks /$2/"; head -5 "$tmp/$1"; fi
}
run 0 version version
expect version "^accel-advisor [0-9]+\.[0-9]+\.[0-9]+$"
expect version "^embedded rules [0-9a-f]{64} \([0-9]+ rules, [0-9]+ accelerators\)$"
emb=$(sed -n 's/^embedded rules \([0-9a-f]*\) .*/\1/p' "$tmp/version")
run 0 check check
expect check "^embedded: ok: [0-9]+ rules, [0-9]+ accelerators, [0-9]+ models, version $emb$"
# The installed default rules are the embedded ones.
run 0 check-installed check "$root/share/accel-advisor/rules"
expect check-installed "ok: .* version $emb$"
run 0 recommend recommend workload.json
expect recommend "\"rules_version\": ?\"$emb\""
expect recommend "\"recommendations\""
run 2 recommend-missing recommend no-such-file.json

# serve on an ephemeral loopback port; the port is read from the `listening` line.
env -i "$bin" serve --listen 127.0.0.1:0 --threads 2 2>"$tmp/serve.log" &
server=$!
port=
for _ in $(seq 200); do
    port=$(sed -n 's/.*"event":"listening".*"port":\([0-9]*\).*/\1/p' "$tmp/serve.log")
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.05
done
if [ -z "$port" ]; then
    bad "serve did not log its port"
    cat "$tmp/serve.log"
else
    ok
    expect serve.log '"event":"listening".*"rules_origin":"embedded"'
    code=$(curl -s -o "$tmp/healthz" -w '%{http_code}' "http://127.0.0.1:$port/healthz")
    [ "$code" = 200 ] && ok || bad "GET /healthz: $code"
    expect healthz '"status":"ok"'
    code=$(curl -s -o "$tmp/post" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary @workload.json "http://127.0.0.1:$port/v1/recommendations")
    [ "$code" = 200 ] && ok || bad "POST /v1/recommendations: $code"
    expect post "\"rules_version\":\"$emb\""
    expect post '"recommendations":\[\{'
    # The contract is compiled in: what the server serves is the installed file.
    curl -s -o "$tmp/openapi.yaml" "http://127.0.0.1:$port/openapi.yaml"
    if cmp -s "$tmp/openapi.yaml" "$root/share/accel-advisor/openapi.yaml"; then ok; else bad "GET /openapi.yaml is not the installed contract"; fi
fi
kill -TERM "$server" 2>/dev/null
wait "$server"
st=$?
server=
[ "$st" -eq 0 ] && ok || bad "serve exited $st on SIGTERM"
expect serve.log '"event":"stopped"'

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
