#!/usr/bin/env bash
# CLI behaviour of the accel-advisor executable: exit statuses, outputs, errors.
# usage: test_cli.sh BINARY SOURCE_DIR
set -u
bin=$1
src=$2
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # name, expected status, command...
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name: exit $got, want $want"
        sed 's/^/  stdout: /' "$tmp/out" | head -5
        sed 's/^/  stderr: /' "$tmp/err" | head -5
    fi
}
expect_out() { # name, file, pattern
    if grep -q -- "$3" "$tmp/$2"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $1: $2 lacks: $3"; head -5 "$tmp/$2" | sed 's/^/  /'; fi
}

check help 0 "$bin" --help
expect_out help out "recommend"
check no-args 2 "$bin"
check unknown-command 2 "$bin" frobnicate
check version 0 "$bin" version
expect_out version out "embedded rules [0-9a-f]\{64\}"

# check: the embedded default and the source tree's rules/ are valid and identical.
check check-embedded 0 "$bin" check
expect_out check-embedded out "embedded: ok: [0-9]* rules"
emb=$(sed -n 's/.*version \([0-9a-f]*\)$/\1/p' "$tmp/out")
check check-dir 0 "$bin" check "$src/rules"
dir=$(sed -n 's/.*version \([0-9a-f]*\)$/\1/p' "$tmp/out")
[ "$emb" = "$dir" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL embedded != rules/ ($emb vs $dir)"; }
check check-help 0 "$bin" check --help
check check-usage 2 "$bin" check a b
check check-missing 1 "$bin" check /nonexistent
expect_out check-missing err "cannot open rules directory"
# A broken rule set: every problem, each with file:line: id.
cp "$src/rules/catalog.yaml" "$src/rules/sizing.yaml" "$src/rules/prices.yaml" "$tmp/" 2>/dev/null
mkdir -p "$tmp/broken" && cp "$src/rules/catalog.yaml" "$src/rules/sizing.yaml" "$src/rules/prices.yaml" "$src/tests/fixtures/rulesets/broken/rules.yaml" "$tmp/broken/"
check check-broken 1 "$bin" check "$tmp/broken"
expect_out check-broken err "rules.yaml:6: unknown-operator: condition"
expect_out check-broken err "rules.yaml:12: unknown-target: unknown accelerator \"h999\""
expect_out check-broken err "rules.yaml:13: unknown-target: duplicate rule id (first at rules.yaml:8)"
expect_out check-broken err "rules.yaml:18: no-source: missing required field \"source\""
expect_out check-broken err "4 problems"

# recommend: JSON body, table, stdin, and every error path.
for f in "$src"/examples/*.json; do
    check "recommend-$(basename "$f")" 0 "$bin" recommend "$f"
    expect_out "recommend-$(basename "$f")" out '"recommendations":\[{"accelerator"'
done
check recommend-table 0 "$bin" recommend --format table "$src/examples/llm-pretraining.json"
expect_out recommend-table out "CHOSEN"
expect_out recommend-table out "Why "
check recommend-stdin 0 sh -c "\"$bin\" recommend --pretty - < \"$src/examples/llm-serving.json\""
expect_out recommend-stdin out '"rules_version"'
check recommend-rules-dir 0 "$bin" recommend --rules "$src/rules" "$src/examples/llm-serving.json"
check recommend-broken-rules 2 "$bin" recommend --rules "$tmp/broken" "$src/examples/llm-serving.json"
expect_out recommend-broken-rules err "unknown-operator"
echo '{"task":"training"' >"$tmp/bad.json"
check recommend-malformed 1 "$bin" recommend "$tmp/bad.json"
expect_out recommend-malformed err "malformed-json: unexpected end of input"
# The same contract as the server: unknown fields, duplicate keys, bad UTF-8.
echo '{"task":"training","model":{"parameters":1e9},"colour":"red"}' >"$tmp/extra.json"
check recommend-unknown-field 1 "$bin" recommend "$tmp/extra.json"
expect_out recommend-unknown-field err 'extra.json: /colour: '
echo '{"task":"training","task":"inference"}' >"$tmp/dup.json"
check recommend-duplicate-key 1 "$bin" recommend "$tmp/dup.json"
expect_out recommend-duplicate-key err "duplicate-key"
printf '{"task":"training","name":"\xff"}' >"$tmp/utf8.json"
check recommend-bad-utf8 1 "$bin" recommend "$tmp/utf8.json"
expect_out recommend-bad-utf8 err "invalid-utf8"
echo '{"task":"training","model":{"parameters":-1}}' >"$tmp/neg.json"
check recommend-invalid 1 "$bin" recommend "$tmp/neg.json"
expect_out recommend-invalid err "/model/parameters"
check recommend-missing-file 2 "$bin" recommend /nonexistent.json
check recommend-bad-format 2 "$bin" recommend --format xml "$src/examples/llm-serving.json"
check recommend-no-file 2 "$bin" recommend
head -c 1100000 /dev/zero | tr '\0' ' ' >"$tmp/huge.json"
check recommend-too-large 2 "$bin" recommend "$tmp/huge.json"
expect_out recommend-too-large err "over the limit"

# logic: one expression, and JSON Lines in bulk.
check logic-one 0 "$bin" logic '{"+":[1,2]}'
expect_out logic-one out "^3$"
check logic-data 0 "$bin" logic '{"var":"a.b"}' '{"a":{"b":"x"}}'
expect_out logic-data out '^"x"$'
check logic-unknown-op 1 "$bin" logic '{"nope":[1]}'
expect_out logic-unknown-op out '"error"'
check logic-bad-json 2 "$bin" logic '{'
printf '%s\n' '[{"==":[1,1]}, null]' '[{"var":"x"}, {"x":5}]' 'not json' '[{"bogus":1}]' '' '[{"cat":["a","b"]}]' >"$tmp/in.jsonl"
check logic-jsonl 1 sh -c "\"$bin\" logic --jsonl < \"$tmp/in.jsonl\""
[ "$(sed -n 1p "$tmp/out")" = "true" ] && [ "$(sed -n 2p "$tmp/out")" = "5" ] && [ "$(sed -n 5p "$tmp/out")" = '"ab"' ] \
    && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL logic-jsonl output:"; cat "$tmp/out"; }
expect_out logic-jsonl out 'line 3: expected a JSON array'
expect_out logic-jsonl out 'line 4: '

# probe: the fixture hosts (tests/fixtures/hosts), NVML off; JSON, table, errors.
hosts="$src/tests/fixtures/hosts"
on_host() { # host, then the command's arguments
    local h=$1
    shift
    "$@" --sysfs-root "$hosts/$h/sys" --dev-root "$hosts/$h/dev" --proc-root "$hosts/$h/proc" --nvml off
}
check probe-h100 0 on_host h100x8 "$bin" probe
expect_out probe-h100 out '"counts":{"devices":8,'
expect_out probe-h100 out '"catalog_id":"h100"'
expect_out probe-h100 out '"nvml":{"state":"off"'
check probe-table 0 on_host tpu-v4-x4 "$bin" probe --format table
expect_out probe-table out "google  tpu    Google Cloud TPU v4"
check probe-pretty 0 on_host mi300x-x2 "$bin" probe --pretty
expect_out probe-pretty out '"catalog_id":[[:space:]]*"mi300x"'
check probe-empty 0 on_host empty "$bin" probe
expect_out probe-empty out '"devices":\[\]'
check probe-malformed 0 on_host malformed "$bin" probe
expect_out probe-malformed out '"warnings":\["'
# A catalog without the TPU v4's ids: the chips are reported as unknown, raw ids kept.
mkdir -p "$tmp/no-v4" && cp "$src/rules/"*.yaml "$tmp/no-v4/"
sed -i '/^  - id: tpu-v4$/,/^  - id:/{/^    pci:$/,/devices:/d}' "$tmp/no-v4/catalog.yaml"
check probe-unknown 0 on_host tpu-v4-x4 "$bin" probe --rules "$tmp/no-v4"
expect_out probe-unknown out '"catalog_id":null,"unknown":true,"name":"Google TPU v4 (0x1ae0:0x005e, not in the catalog)"'
expect_out probe-unknown out '"generation":"v4"'
check probe-missing-root 0 "$bin" probe --sysfs-root /nonexistent --proc-root /nonexistent --nvml off
expect_out probe-missing-root out '"pci":{"state":"error"'
ACCEL_ADVISOR_SYSFS_ROOT="$hosts/tpu-v5e-x4/sys" check probe-env 0 "$bin" probe --nvml off
expect_out probe-env out '"catalog_id":"tpu-v5e"'
check probe-bad-format 2 "$bin" probe --format xml
check probe-bad-nvml 2 "$bin" probe --nvml ""
expect_out probe-bad-nvml err "nvml must be auto, off or a library path"
check probe-extra-arg 2 "$bin" probe extra
check probe-help 0 "$bin" probe --help
expect_out probe-help out "ACCEL_ADVISOR_SYSFS_ROOT"
check probe-broken-rules 2 "$bin" probe --rules "$tmp/broken"
# recommend --probe: availability on every candidate, the bonus when preferred.
echo '{"task":"inference","model":{"parameters":1e9},"framework":"jax","prefer_available":true}' >"$tmp/jax.json"
check recommend-probe 0 on_host tpu-v5e-x4 "$bin" recommend --probe "$tmp/jax.json"
expect_out recommend-probe out '"availability":{"attached":4,"free":3,'
expect_out recommend-probe out '"rule_id":"probe.available","impact":[0-9]*,"message":"3 of 4 attached tpu-v5e are free on this host now.","source":"probe"'
check recommend-no-probe 0 "$bin" recommend "$tmp/jax.json"
expect_out recommend-no-probe out '"availability":null'
check recommend-prefer-needs-probe 2 "$bin" recommend --prefer-available "$tmp/jax.json"
expect_out recommend-prefer-needs-probe err "needs --probe"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
