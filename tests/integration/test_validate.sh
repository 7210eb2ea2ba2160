#!/usr/bin/env bash
# `accel-advisor validate FILE|-`: exit 0 valid, 1 invalid with every violation as
# "POINTER: message", 2 usage or I/O errors; --schema validates against any schema.
#   usage: test_validate.sh ACCEL_ADVISOR_BINARY SOURCE_DIR
set -uo pipefail
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # name expected-status actual-status
    if [ "$2" != "$3" ]; then
        echo "FAIL: $1: exit $3, expected $2"
        fails=$((fails + 1))
    else
        echo "ok: $1"
    fi
}
expect_line() { # name file line
    if ! grep -qxF -- "$3" "$2"; then
        echo "FAIL: $1: no line \"$3\" in:"
        cat "$2"
        fails=$((fails + 1))
    fi
}

for f in "$src"/examples/*.json; do
    "$bin" validate "$f" >"$tmp/out" 2>&1
    check "valid $(basename "$f")" 0 $?
    expect_line "valid $(basename "$f") says so" "$tmp/out" "$f: valid"
done
# -q: nothing when valid.
"$bin" validate -q "$src/examples/llm-serving.json" >"$tmp/out" 2>&1
check "quiet" 0 $?
[ -s "$tmp/out" ] && { echo "FAIL: -q printed:"; cat "$tmp/out"; fails=$((fails + 1)); }

# What the schema cannot say and the server refuses (issue 34): the core's
# reading of the workload is part of validate, by the server's own code.
printf '{"task":"inference","model":{"parameters":7e9,"active_parameters":8e9}}' >"$tmp/active.json"
"$bin" validate "$tmp/active.json" >"$tmp/out" 2>&1
check "active_parameters above parameters" 1 $?
grep -q "^$tmp/active.json: /model/active_parameters: " "$tmp/out" ||
    { echo "FAIL: active_parameters: no line with the file and pointer:"; cat "$tmp/out"; fails=$((fails + 1)); }
printf 'task: inference\nmodel:\n  name: no-such-model-anywhere\n' >"$tmp/unknown.yaml"
"$bin" validate -q "$tmp/unknown.yaml" >"$tmp/out" 2>&1
check "unknown model (YAML)" 1 $?
grep -q "^$tmp/unknown.yaml:3: /model/name: " "$tmp/out" ||
    { echo "FAIL: unknown model: no FILE:LINE: POINTER line:"; cat "$tmp/out"; fails=$((fails + 1)); }
"$bin" validate --rules "$src/rules" "$tmp/active.json" >"$tmp/out" 2>&1
check "--rules" 1 $?
"$bin" validate --rules /nonexistent "$tmp/active.json" >"$tmp/out" 2>&1
check "--rules that does not load" 2 $?
"$bin" validate --quite "$tmp/active.json" >"$tmp/out" 2>&1
check "misspelt flag" 2 $?
grep -q "did you mean --quiet?" "$tmp/out" || { echo "FAIL: no suggestion for --quite"; cat "$tmp/out"; fails=$((fails + 1)); }

printf '{"task":"sleeping","model":{"parameters":-1},"colour":"red"}' >"$tmp/bad.json"
"$bin" validate "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err"
check "invalid workload" 1 $?
expect_line "task" "$tmp/out" "$tmp/bad.json: /task: must be one of: training, fine-tuning, inference"
expect_line "parameters" "$tmp/out" "$tmp/bad.json: /model/parameters: must be >= 1"
expect_line "unknown field" "$tmp/out" "$tmp/bad.json: /colour: unknown field \"colour\""

# A mistyped value of an enumeration: the nearest one (issue 34).
printf '{"task":"trainig","model":{"parameters":1e9}}' >"$tmp/typo.json"
"$bin" validate "$tmp/typo.json" >"$tmp/out" 2>&1
check "mistyped enum" 1 $?
expect_line "enum suggestion" "$tmp/out" "$tmp/typo.json: /task: must be one of: training, fine-tuning, inference (did you mean \"training\"?)"

printf '{"task":"inference"}' | "$bin" validate - >"$tmp/out" 2>&1
check "stdin, missing model" 1 $?
grep -q '^-: /: ' "$tmp/out" || { echo "FAIL: root pointer shown as /"; fails=$((fails + 1)); }

printf '{"task":"inference",' >"$tmp/mal.json"
"$bin" validate "$tmp/mal.json" >"$tmp/out" 2>&1
check "malformed JSON" 1 $?
grep -q 'unexpected end of input' "$tmp/out" || { echo "FAIL: malformed message"; cat "$tmp/out"; fails=$((fails + 1)); }

printf '{"task":"inference","task":"training","model":{"parameters":1}}' >"$tmp/dup.json"
"$bin" validate "$tmp/dup.json" >"$tmp/out" 2>&1
check "duplicate key" 1 $?
expect_line "duplicate pointer" "$tmp/out" "$tmp/dup.json: /task: duplicate-key: duplicate key \"task\" at \"/task\""

"$bin" validate "$tmp/does-not-exist.json" >"$tmp/out" 2>&1
check "missing file" 2 $?
"$bin" validate >"$tmp/out" 2>&1
check "no argument" 2 $?
"$bin" validate --bogus x >"$tmp/out" 2>&1
check "unknown option" 2 $?
"$bin" validate --help >"$tmp/out" 2>&1
check "help" 0 $?

# Any schema with --schema.
printf '{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":3}}}' >"$tmp/s.json"
printf '{"a":5}' >"$tmp/ok.json"
printf '{"a":1.5}' >"$tmp/no.json"
"$bin" validate --schema "$tmp/s.json" "$tmp/ok.json" >"$tmp/out" 2>&1
check "--schema valid" 0 $?
"$bin" validate --schema "$tmp/s.json" "$tmp/no.json" >"$tmp/out" 2>&1
check "--schema invalid" 1 $?
grep -q "^$tmp/no.json: /a: " "$tmp/out" || { echo "FAIL: --schema pointer"; cat "$tmp/out"; fails=$((fails + 1)); }
printf 'type: object\nrequired: [b]\n' >"$tmp/s.yaml"
"$bin" validate --schema "$tmp/s.yaml" "$tmp/ok.json" >"$tmp/out" 2>&1
check "--schema YAML" 1 $?
printf '{"type":"objekt"}' >"$tmp/broken.json"
"$bin" validate --schema "$tmp/broken.json" "$tmp/ok.json" >"$tmp/out" 2>&1
check "--schema that does not compile" 2 $?

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "validate: all passed"
