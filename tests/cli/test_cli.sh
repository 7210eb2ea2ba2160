#!/usr/bin/env bash
# CLI behaviour of the accel-advisor executable: exit statuses, outputs, errors.
# usage: test_cli.sh BINARY SOURCE_DIR
set -u
bin=$1
src=$2
# shellcheck source=tests/cli/lib.sh
. "$src/tests/cli/lib.sh"

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
# prices.yaml is linted like the rest: an operator's replacement with a typo, a
# provider the catalog does not list and an undated price; none is the same set.
mkdir -p "$tmp/prices" && cp "$src/rules/catalog.yaml" "$src/rules/sizing.yaml" "$src/rules/rules.yaml" "$tmp/prices/"
cat > "$tmp/prices/prices.yaml" <<'EOF_PRICES'
prices:
  - accelerator: h100
    provider: aws
    region: us-east-1
    instance_type: p5.48xlarge
    accelerators: 8
    source: https://aws.amazon.com/ec2/pricing/on-demand/
    confidence: high
    on_demand: {usd_per_hour: 24.8, as_of: "2026-10-01"}
    reserved: {usd_per_hour: 16.0, as_of: "2026-10-01"}
  - accelerator: tpu-v6e
    provider: aws
    region: us-east-1
    instance_type: not sold there
    source: https://cloud.google.com/tpu/pricing
    confidence: high
    on_demand: {usd_per_chip_hour: 2.7, as_of: 2025}
EOF_PRICES
check check-prices 1 "$bin" check "$tmp/prices"
expect_out check-prices err "prices.yaml:10: h100: missing required field \"min_hours\""
expect_out check-prices err "prices.yaml:11: tpu-v6e: the catalog does not list aws among the providers of tpu-v6e"
expect_out check-prices err "prices.yaml:17: tpu-v6e: \"as_of\" must be a date written YYYY-MM or YYYY-MM-DD"
# A rule that can spend most of a request's rule-evaluation budget: a warning
# with its file, line and id; the set still loads (exit 0).
cp "$src/rules/prices.yaml" "$tmp/prices/prices.yaml"
nums=$(seq -s, 0 299)
cat >> "$tmp/prices/rules.yaml" <<EOF_HEAVY
  - id: heavy
    description: Spends about 180,000 steps.
    source: https://example.com/heavy
    when: {"all": [[$nums], {"none": [[$nums], {"==": [1, 2]}]}]}
    effect: {families: {gpu: 1}}
EOF_HEAVY
check check-costly 0 "$bin" check "$tmp/prices"
expect_out check-costly err "warning: rules.yaml:[0-9]*: heavy: can spend 180601 of the 250000 evaluation steps"
expect_out check-costly out "ok: "

# prices: coverage per part, provider and basis, and why a part has no price.
check prices-coverage 0 "$bin" prices --rules "$src/rules"
expect_out prices-coverage out "^h100  *gcp  *4 ([0-9]*d)  *4 ([0-9]*d)  *4 ([0-9]*d)  *4 ([0-9]*d)"
expect_out prices-coverage out "^tpu7x  *-  *unpriced: Google publishes TPU7x"
# ...and why one provider of a part priced elsewhere has none.
expect_out prices-coverage out "^cpu-server  *oci  *unpriced: No OCI machine of this part"
expect_out prices-coverage out "^cpu-server  *azure  *2 ([0-9]*d)"
# The reserved basis has its column (AWS sells Trainium2 by Capacity Block); a
# price past price_stale_after_days carries a * (here, maybe, the spot one).
expect_out prices-coverage out "^trainium2  *aws  *-  *1 ([0-9]*d)\**  *-  *-  *1 ([0-9]*d)"
check prices-embedded 0 "$bin" prices
check prices-help 0 "$bin" prices --help
check prices-usage 2 "$bin" prices frobnicate x y
check prices-missing-rules 1 "$bin" prices --rules /nonexistent
check check-costly-json 0 "$bin" check -o json "$tmp/prices"
expect_out check-costly-json out '"warnings":\[{"file":"rules.yaml","line":[0-9]*,"id":"heavy"'
rm "$tmp/prices/prices.yaml"
check check-no-prices 1 "$bin" check "$tmp/prices"
expect_out check-no-prices err "no prices.yaml in the rule set"
# models.yaml is linted like the rest: each entry's fields through the
# workload's parser, its parameters recounted from its architecture, its source.
cat > "$tmp/prices/models.yaml" <<'EOF_MODELS'
models:
  - name: tiny
    title: Tiny
    architecture: transformer
    facts:
      - source: https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json
        layers: 32
        hidden_size: 4096
        attention_heads: 32
        kv_heads: 8
        intermediate_size: 14336
        vocab_size: 128256
        parameters: 5e9
  - name: unsourced
    title: Unsourced
    architecture: cnn
    facts:
      - parameters: 2.5e7
  - name: tiny
    title: Tiny again
    architecture: cnn
    colour: red
    facts:
      - source: https://example.com/x
        parameters: 2.5e7
EOF_MODELS
cp "$src/rules/prices.yaml" "$tmp/prices/"
check check-models 1 "$bin" check "$tmp/prices"
expect_out check-models err 'models.yaml:2: tiny: parameters 5e+09 disagree with the 8.03e+09 its architecture implies'
expect_out check-models err 'models.yaml:18: unsourced: missing required field "source"'
expect_out check-models err 'models.yaml:19: tiny: a model of this name is listed before'
expect_out check-models err 'models.yaml:22: tiny: unknown key "colour" in a model'
rm "$tmp/prices/models.yaml" "$tmp/prices/prices.yaml"

# recommend: JSON body, table, stdin, and every error path.
for f in "$src"/examples/*.json; do
    check "recommend-$(basename "$f")" 0 "$bin" recommend "$f"
    expect_out "recommend-$(basename "$f")" out '"recommendations":\[{"accelerator"'
done
# -o table at 120 columns: every short column fits (issue 34: the rest is -o wide's).
check recommend-table 0 env COLUMNS=120 "$bin" recommend --format table "$src/examples/llm-pretraining.json"
expect_out recommend-table out "^   PART  *SHAPE  *CHIPS  *RUN TIME  *\$/H  *\$/RUN  *TARGETS  *SCORE$"
# Changed (issue 29): the example's team writes JAX and states no CUDA experience,
# so the team gate (xla-team-fit-first) keeps TPUs ahead of GPUs: TPU v6e.
expect_out recommend-table out "^✔  TPU v6e  .* [0-9.]* [a-z]*  *\$[0-9.]*  *\$[0-9.]*k  deadline ✓ "
# The top row of -o wide: run time, its P10-P90 (hours to days), the cost and its range.
check recommend-wide 0 "$bin" recommend --format wide "$src/examples/llm-pretraining.json"
expect_out recommend-wide out "^   PART  *SHAPE  *CHIPS  *RUN TIME  *P10–P90  *\$/H  *TOTAL  *P10–P90  *TARGETS  *PRICE AS OF  *CONFIDENCE  *SCORE  *ID"
expect_out recommend-wide out "^✔  Google Cloud TPU v6e (Trillium)  .* [0-9.]* [a-z]*–[0-9.]* [a-z]*  .* \$[0-9.]*k/run  *\$[0-9.]*k–\$[0-9.]*k/run  deadline ✓ "
expect_out recommend-wide out "^Fixed costs: [0-9.]* min (start-up [0-9.]* min.*), \$[0-9.k]*/run, in the run's time and cost\.$"
expect_out recommend-table out "Why "
expect_out recommend-table out "^The pick buys [0-9,]* machines\?\.$"
# The header says why the pick is the pick and where it is rented (issue 34, item 5).
expect_out recommend-wide out "^Why: Google Cloud TPU v6e (Trillium) ([0-9,]* chips) is the best-value suitable option that finishes within the deadline of 30 days, at about \$[0-9.]*k/run in "
expect_out recommend-table out "^Where: gcp, us-central1, 1 x v6e-[0-9]*, on_demand$"
# On AWS the pretraining run's machines are past the on-demand limit
# prices.yaml states: a reservation sells them (sizing.capacity).
sed 's/"deployment": "cloud"/"deployment": "cloud", "providers": ["aws"]/' "$src/examples/llm-pretraining.json" >"$tmp/pt-aws.json"
check recommend-capacity 0 "$bin" recommend -o wide "$tmp/pt-aws.json"
expect_out recommend-capacity out "^Where: aws, us-east-1, [0-9]* x p[0-9a-z.-]*, reserved (the asked basis cannot sell that many)$"
expect_out recommend-capacity out "^Capacity: reserved from aws: on-demand sells at most [0-9,]* machines at once (https://"
# Nothing meets the deadline within the chip limit: the header says so first,
# and no row is ticked (docs/scoring.md, section 10).
echo '{"task":"training","model":{"parameters":1e12},"training":{"tokens":2e13,"deadline_hours":720},"constraints":{"max_accelerators":1024}}' >"$tmp/nofit.json"
check recommend-no-fit 0 "$bin" recommend -o wide "$tmp/nofit.json"
expect_out recommend-no-fit out "^Status: no_configuration_meets_targets$"
expect_out recommend-no-fit out "^No configuration meets the deadline of 30 days within constraints.max_accelerators (1,024 chips): the nearest, "
expect_out recommend-no-fit out "nearest to the targets first:$"
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

# recommend --model: a model of the registry by name or alias, alone or in a
# workload whose own model fields override the registry's.
check recommend-model 0 "$bin" recommend --model llama-3.1-8b
expect_out recommend-model out '"model":{"name":"llama-3.1-8b","architecture":"transformer","parameters":8030000000,'
check recommend-model-alias 0 "$bin" recommend --model Qwen/Qwen3-30B-A3B -o table
expect_out recommend-model-alias out "^✔  "
printf 'task: fine-tuning\nmodel:\n  name: bert-base\n  layers: 16\n' >"$tmp/named.yaml"
check recommend-model-override 0 "$bin" recommend --model llama-3.1-8b "$tmp/named.yaml"
expect_out recommend-model-override out '"task":"fine-tuning"'
expect_out recommend-model-override out '"model":{"name":"llama-3.1-8b","architecture":"transformer","parameters":8030000000,[^}]*"layers":16,'
check recommend-model-unknown 1 "$bin" recommend --model lama-3.1-8b
expect_out recommend-model-unknown err '/model/name: unknown model "lama-3.1-8b"; close names: llama-3.1-8b'
check recommend-model-empty 1 "$bin" recommend --model ""
expect_out recommend-model-empty err "/model/name: "
check recommend-model-two-files 2 "$bin" recommend --model llama-3.1-8b a.json b.json

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
expect_out recommend-probe out '"rule_id":"probe.available","impact":[0-9]*,"message":"3 of 4 attached tpu-v5e are free on this host now: room for v5litepod-1.","source":"probe"'
check recommend-no-probe 0 "$bin" recommend "$tmp/jax.json"
expect_out recommend-no-probe out '"availability":null'
check recommend-prefer-needs-probe 2 "$bin" recommend --prefer-available "$tmp/jax.json"
expect_out recommend-prefer-needs-probe err "needs --probe"

# agent: the node agent's settings and start-up failures (what it serves is
# tested against a real Prometheus in tests/integration/test_fleet.c).
check agent-help 0 "$bin" agent --help
expect_out agent-help out "--node-name NAME"
expect_out agent-help out "only GET /metrics"
check agent-server-flag 2 "$bin" agent --fleet-prometheus http://127.0.0.1:9090
expect_out agent-server-flag err "unknown flag --fleet-prometheus"
check agent-bad-node 2 "$bin" agent --node-name 'gpu node'
expect_out agent-bad-node err "not a node name"
check agent-broken-rules 1 "$bin" agent --rules "$tmp/broken" --listen 127.0.0.1:0
expect_out agent-broken-rules err '"event":"start_failed"'
check serve-bad-fleet-url 2 "$bin" serve --fleet-prometheus prometheus:9090
expect_out serve-bad-fleet-url err "not an http:// or https:// URL"
check serve-fleet-url-credentials 2 "$bin" serve --fleet-prometheus 'http://h:secret\@other:9090'
expect_out serve-fleet-url-credentials err "the URL holds credentials"
check serve-bad-fleet-label 2 "$bin" serve --fleet-cluster-label 'cluster) or vector(1'
expect_out serve-bad-fleet-label err "not a Prometheus label name"

# ---- output formats: -o json|yaml|table|wide (--format is the same flag) ----------------
serving="$src/examples/llm-serving.json"
check o-table 0 env COLUMNS=200 "$bin" recommend -o table "$serving"
expect_out o-table out "^   PART  *SHAPE  *CHIPS  *LATENCY  *\$/H  *\$/MONTH  *TARGETS  *SCORE$"
check o-wide 0 "$bin" recommend -o wide "$serving"
expect_out o-wide out "SCORE  ID  *FAMILY  RULES  OBJ  REPLICAS  MEM GB  GB/CHIP  TFLOPS  *MFU  FITS  AVAIL$"
check o-format-alias 0 "$bin" recommend --format wide "$serving"
expect_out o-format-alias out "GB/CHIP"
check o-bad 2 "$bin" recommend -o xml "$serving"
expect_out o-bad err "recommend: -o must be json, yaml, table, wide, name or jsonpath=TEMPLATE"
check o-check-no-wide 2 "$bin" check -o wide
expect_out o-check-no-wide err "check: -o must be json, yaml, table or jsonpath=TEMPLATE"
check o-version-no-wide 2 "$bin" version --output wide
check o-version-extra 2 "$bin" version extra
# JSON: one line by default; --pretty indents by two spaces.
check o-json 0 "$bin" recommend -o json "$serving"
[ "$(wc -l <"$tmp/out")" -eq 1 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL o-json: not one line"; }
check o-pretty 0 "$bin" recommend --pretty "$serving"
[ "$(sed -n 2p "$tmp/out" | cut -c1-16)" = '  "request_id": ' ] && ! grep -q "$(printf '\t')" "$tmp/out" \
    && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL o-pretty:"; head -3 "$tmp/out"; }
# No empty request_id: every run makes its own, as the server does.
"$bin" recommend "$serving" >"$tmp/out2"
id1=$(sed -n 's/^{"request_id":"\([0-9a-f]*\)".*/\1/p' "$tmp/out2")
"$bin" recommend "$serving" >"$tmp/out3"
id2=$(sed -n 's/^{"request_id":"\([0-9a-f]*\)".*/\1/p' "$tmp/out3")
[ ${#id1} -eq 32 ] && [ ${#id2} -eq 32 ] && [ "$id1" != "$id2" ] && pass=$((pass + 1)) \
    || { fail=$((fail + 1)); echo "FAIL request ids: \"$id1\" \"$id2\""; }
# The output is a Recommendation of the contract (request_id non-empty included):
# openapi.yaml read as a JSON Schema whose root refers to that component.
{ printf '$ref: "#/components/schemas/Recommendation"\n'; cat "$src/openapi.yaml"; } >"$tmp/recommendation.yaml"
check contract-recommendation 0 "$bin" validate --max-depth 64 --schema "$tmp/recommendation.yaml" "$tmp/out2"
sed 's/"request_id":"[0-9a-f]*"/"request_id":""/' "$tmp/out2" >"$tmp/empty-id.json"
check contract-empty-request-id 1 "$bin" validate --max-depth 64 --schema "$tmp/recommendation.yaml" "$tmp/empty-id.json"
expect_out contract-empty-request-id out "/request_id: must be at least 1 character long"

# ---- recommend --why-not: what would change the answer (docs/explanations.md) -----------
check why-not 0 "$bin" recommend --why-not "$serving"
expect_out why-not out '"changes":{"evaluations":[0-9]*,"stopped":null,"targets":\[{"accelerator":"[a-z0-9-]*","name":"[^"]*","family":"[a-z]*","role":"top","rank":1,'
expect_out why-not out '"robustness":{"top":"[a-z0-9-]*","top_score":[0-9]*,"runner_up":'
cp "$tmp/out" "$tmp/why1.json"
check why-not-contract 0 "$bin" validate --max-depth 64 --schema "$tmp/recommendation.yaml" "$tmp/why1.json"
# The same workload explains the same way, run after run.
"$bin" recommend --why-not "$serving" >"$tmp/why2.json"
sed -i 's/^{"request_id":"[0-9a-f]*"//' "$tmp/why1.json" "$tmp/why2.json"
cmp -s "$tmp/why1.json" "$tmp/why2.json" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL why-not: two runs differ"; }
check why-not-table 0 "$bin" recommend --why-not -o table "$serving"
expect_out why-not-table out "^What would change the answer:$"
expect_out why-not-table out "^  [a-z0-9-]* is \(robust\|fragile\)"
expect_out why-not-table out "^  [a-z0-9-]* (top):"
check why-not-yaml 0 "$bin" recommend --why-not -o yaml "$serving"
expect_out why-not-yaml out "^robustness:"
# Without --why-not or "explain": no section; the workload's own "explain" is
# honoured as the server honours it; a bad one is refused with its pointer.
check why-not-off 0 "$bin" recommend -o table "$serving"
! grep -q "What would change" "$tmp/out" && ! "$bin" recommend "$serving" | grep -q '"robustness":' \
    && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL why-not-off: an explanation nobody asked for"; }
printf '{"task":"inference","model":{"parameters":7e9},"explain":["robustness"]}' >"$tmp/expl.json"
check explain-field 0 "$bin" recommend "$tmp/expl.json"
expect_out explain-field out '"robustness":{"top":'
! grep -q '"changes":' "$tmp/out" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL explain-field: changes not asked for"; }
printf '{"task":"inference","model":{"parameters":7e9},"explain":["robustness","why"]}' >"$tmp/bad-expl.json"
check explain-bad 1 "$bin" recommend "$tmp/bad-expl.json"
expect_out explain-bad err "bad-expl.json: /explain/1: "

# YAML output loads back, with the project's own YAML loader, as the JSON document:
# `validate --schema` reads a *.yaml document with it, and a schema whose const is the
# JSON output accepts exactly that document.
same_document() { # name, json file, yaml file
    { printf '{"const":'; cat "$2"; printf '}'; } >"$tmp/const.json"
    check "$1" 0 "$bin" validate --max-depth 64 --schema "$tmp/const.json" "$3"
}
"$bin" check -o json "$src/rules" >"$tmp/c.json"
"$bin" check -o yaml "$src/rules" >"$tmp/c.yaml"
same_document yaml-check "$tmp/c.json" "$tmp/c.yaml"
"$bin" version -o json >"$tmp/v.json"
"$bin" version -o yaml >"$tmp/v.yaml"
same_document yaml-version "$tmp/v.json" "$tmp/v.yaml"
for f in "$src"/examples/*.json; do
    "$bin" recommend "$f" | sed 's/^{"request_id":"[0-9a-f]*"/{"request_id":"x"/' >"$tmp/r.json"
    "$bin" recommend -o yaml "$f" | sed 's/^request_id: .*$/request_id: x/' >"$tmp/r.yaml"
    same_document "yaml-recommend-$(basename "$f")" "$tmp/r.json" "$tmp/r.yaml"
done
# A YAML document that differs from the JSON one is refused (the check can fail).
sed -i 's/^rules_version: .*$/rules_version: other/' "$tmp/r.yaml"
check yaml-differs 1 "$bin" validate --max-depth 64 --schema "$tmp/const.json" "$tmp/r.yaml"

# ---- check -o json for CI: every diagnostic with file, line, id and message -----------
check check-json-ok 0 "$bin" check -o json
expect_out check-json-ok out '^{"rules_dir":null,"valid":true,"version":"[0-9a-f]\{64\}","rules":[0-9]*,"accelerators":[0-9]*,"models":[0-9]*,"diagnostics":\[\],"warnings":\[\],"truncated":false}$'
check check-json-broken 1 "$bin" check -o json "$tmp/broken"
expect_out check-json-broken out '"valid":false'
expect_out check-json-broken out '{"file":"rules.yaml","line":6,"id":"[^"]*","message":"[^"]*condition'
expect_out check-json-broken out '{"file":"rules.yaml","line":13,"id":"[^"]*","message":"duplicate rule id (first at rules.yaml:8)"}'
expect_out check-json-broken out '{"file":"rules.yaml","line":18,"id":"[^"]*","message":"missing required field \\"source\\""}'
[ "$(grep -o '"file":' "$tmp/out" | wc -l)" -eq 4 ] && [ ! -s "$tmp/err" ] && pass=$((pass + 1)) \
    || { fail=$((fail + 1)); echo "FAIL check-json-broken: not 4 diagnostics on stdout only"; }
check check-yaml-broken 1 "$bin" check -o yaml --pretty "$tmp/broken"
expect_out check-yaml-broken out '^  - file: rules.yaml$'
expect_out check-yaml-broken out '^    line: 13$'

# ---- version -o json: the build's commit and date ------------------------------------
check version-json 0 "$bin" version -o json
if [ -e "$src/.git" ] && command -v git >/dev/null; then
    want_commit=$(git -C "$src" rev-parse HEAD)
else
    want_commit=unknown
fi
expect_out version-json out "\"commit\":\"$want_commit\",\"modified\":\(true\|false\),\"build_date\":\"[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z\""
expect_out version-json out '"version":"[0-9.]*"'
expect_out version-json out '"rules_version":"[0-9a-f]\{64\}"'
check version-text 0 "$bin" version
expect_out version-text out "^commit $want_commit"
# cmake/BuildInfo.cmake on its own: a tree without .git says unknown; SOURCE_DATE_EPOCH
# sets the date; nothing new, nothing rewritten; a bad epoch is an error.
mkdir -p "$tmp/tarball"
SOURCE_DATE_EPOCH=0 cmake -DSRC="$tmp/tarball" -DOUT="$tmp/bi.c" -P "$src/cmake/BuildInfo.cmake"
grep -q 'aa_build_commit\[\] = "unknown"' "$tmp/bi.c" && grep -q 'aa_build_date\[\] = "1970-01-01T00:00:00Z"' "$tmp/bi.c" \
    && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL build info of a tree without .git:"; cat "$tmp/bi.c"; }
touch -d '2001-01-01' "$tmp/bi.c"
SOURCE_DATE_EPOCH=0 cmake -DSRC="$tmp/tarball" -DOUT="$tmp/bi.c" -P "$src/cmake/BuildInfo.cmake"
[ "$(date -r "$tmp/bi.c" +%Y)" = 2001 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL build info rewritten"; }
SOURCE_DATE_EPOCH=86400 cmake -DSRC="$tmp/tarball" -DOUT="$tmp/bi.c" -DCOMMIT=abc123 -P "$src/cmake/BuildInfo.cmake"
grep -q '"abc123"' "$tmp/bi.c" && grep -q '"1970-01-02T00:00:00Z"' "$tmp/bi.c" && pass=$((pass + 1)) \
    || { fail=$((fail + 1)); echo "FAIL build info with COMMIT:"; cat "$tmp/bi.c"; }
check build-info-bad-epoch 1 env SOURCE_DATE_EPOCH=yesterday cmake -DSRC="$tmp/tarball" -DOUT="$tmp/bi.c" -P "$src/cmake/BuildInfo.cmake"
expect_out build-info-bad-epoch err "SOURCE_DATE_EPOCH"

# ---- YAML workloads: recommend and validate, errors at file:line ----------------------
# The same workload as JSON and as YAML (flow and block style, comments, plain
# scalars) gives the same recommendation.
cat >"$tmp/serving.json" <<'JSON'
{"name": "70b-chat-serving", "task": "inference", "framework": "pytorch", "stage": "production",
 "model": {"architecture": "transformer", "parameters": 70e9, "layers": 80, "hidden_size": 8192},
 "precision": "fp8",
 "inference": {"requests_per_second": 20, "latency_ms_p99": 50, "context_tokens": 4096},
 "constraints": {"deployment": "cloud", "providers": ["aws", "gcp"]},
 "objective": "cost"}
JSON
cat >"$tmp/serving.yaml" <<'YAML'
# the same workload, as YAML
name: 70b-chat-serving
task: inference
framework: pytorch
stage: production
model: {architecture: transformer, parameters: 70e9, layers: 80, hidden_size: 8192}
precision: fp8
inference:
  requests_per_second: 20
  latency_ms_p99: 50
  context_tokens: 4096
constraints:
  deployment: cloud
  providers: [aws, gcp]
objective: cost
YAML
"$bin" recommend "$tmp/serving.json" | sed 's/^{"request_id":"[0-9a-f]*"/{/' >"$tmp/from-json"
check yaml-recommend 0 "$bin" recommend "$tmp/serving.yaml"
sed 's/^{"request_id":"[0-9a-f]*"/{/' "$tmp/out" >"$tmp/from-yaml"
cmp -s "$tmp/from-json" "$tmp/from-yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL yaml-recommend differs from the JSON workload's"; }
check yaml-recommend-stdin 0 sh -c "\"$bin\" recommend -o table - < \"$tmp/serving.yaml\""
expect_out yaml-recommend-stdin out "^✔  "
check yaml-validate 0 "$bin" validate "$tmp/serving.yaml"
printf 'task: training\nmodel:\n  parameters: 1e9\ncolour: red\n' >"$tmp/extra.yaml"
check yaml-unknown-field 1 "$bin" recommend "$tmp/extra.yaml"
expect_out yaml-unknown-field err '^recommend: .*extra.yaml:4: /colour: unknown field "colour"$'
check yaml-validate-unknown 1 "$bin" validate "$tmp/extra.yaml"
expect_out yaml-validate-unknown out 'extra.yaml:4: /colour: unknown field "colour"$'
printf 'task: training\nmodel:\n  parameters: -1\n' >"$tmp/neg.yaml"
check yaml-invalid-value 1 "$bin" validate "$tmp/neg.yaml"
expect_out yaml-invalid-value out 'neg.yaml:3: /model/parameters: '
printf 'model:\n  parameters: 1e9\n' >"$tmp/missing.yaml"
check yaml-missing 1 "$bin" validate "$tmp/missing.yaml"
expect_out yaml-missing out 'missing.yaml:1: /: required field "task" is missing'
printf 'task: training\nmodel: {parameters: 1e9}\ntask: inference\n' >"$tmp/dup.yaml"
check yaml-duplicate-key 1 "$bin" recommend "$tmp/dup.yaml"
expect_out yaml-duplicate-key err 'dup.yaml:3: duplicate key "task"'
printf 'task: &t training\nmodel: {parameters: 1e9}\nname: *t\n' >"$tmp/alias.yaml"
check yaml-alias 1 "$bin" validate "$tmp/alias.yaml"
expect_out yaml-alias out 'alias.yaml:1: .*anchor'
printf 'task: !!binary dHJhaW5pbmc=\nmodel: {parameters: 1e9}\n' >"$tmp/tag.yaml"
check yaml-tag 1 "$bin" validate "$tmp/tag.yaml"
expect_out yaml-tag out 'tag.yaml:1: YAML tags are not supported'
printf 'task: training\nmodel: {parameters: 1e9\n' >"$tmp/syntax.yaml"
check yaml-syntax 1 "$bin" recommend "$tmp/syntax.yaml"
expect_out yaml-syntax err 'syntax.yaml:[0-9]*: YAML syntax error'
printf 'task: training\nmodel:\n  parameters: 1e9\nconstraints:\n  providers: [[aws]]\n' >"$tmp/deep.yaml"
check yaml-too-deep 1 "$bin" validate --max-depth 2 "$tmp/deep.yaml"
expect_out yaml-too-deep out 'deep.yaml:5: /: too-deep: nesting deeper than the limit of 2 levels'
printf 'task: training\nname: \xff\n' >"$tmp/bad-utf8.yaml"
check yaml-bad-utf8 1 "$bin" validate "$tmp/bad-utf8.yaml"
expect_out yaml-bad-utf8 out 'bad-utf8.yaml:'

# ---- bash completion: sourced in bash, checked with the completions it offers --------
"$bin" completion bash >"$tmp/completion.bash"
check completion-help 0 "$bin" completion --help
check completion-zsh 2 "$bin" completion zsh
expect_out completion-zsh err '"zsh" is not a shell this command knows'
complete_words() { # words of the command line, the last being the one completed
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _accel_advisor; echo "${COMPREPLY[*]}"' \
        _ "$tmp/completion.bash" "$@"
}
expect_completion() { # name, wanted completions, words...
    local name=$1 want=$2
    shift 2
    local got
    got=$(cd "$tmp" && complete_words accel-advisor "$@")
    if [ "$got" = "$want" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL completion $name: got \"$got\", want \"$want\""; fi
}
mkdir -p "$tmp/rulesdir"
expect_completion commands "recommend" rec
expect_completion commands-all "version validate" v
expect_completion recommend-o "json yaml table wide name jsonpath=" recommend -o ''
expect_completion check-o "json yaml table jsonpath=" check --output ''
# The flags and subcommands of issue 34.
expect_completion no-headers "--no-headers" recommend --no-h
expect_completion validate-quiet "--quiet" validate --qu
expect_completion prices-subcommands "show" prices sh
expect_completion prices-o "json yaml table wide name jsonpath=" prices show -o ''
expect_completion version-format "yaml" version --format y
expect_completion log-level "warn" serve --log-level w
expect_completion log-level-eq "debug" serve --log-level = d
expect_completion bool-eq "true false" serve --rules-watch = ''
expect_completion flag "--log-level" serve --log-l
expect_completion probe-flags "--pretty --prefer-available --probe --proc-root" recommend --pr
expect_completion rules-dir "rulesdir" recommend --rules rules
expect_completion shell "bash" completion ''
expect_completion why-not "--why-not" recommend --wh
# Every flag a command's --help names is offered for that command.
for cmd in recommend check logic version validate probe serve agent completion calibrate; do
    offered=$(cd "$tmp" && complete_words accel-advisor "$cmd" --)
    for flag in $("$bin" "$cmd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        case " $offered " in
        *" $flag "*) pass=$((pass + 1)) ;;
        *) fail=$((fail + 1)); echo "FAIL completion: $cmd --help names $flag, completion lacks it" ;;
        esac
    done
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
