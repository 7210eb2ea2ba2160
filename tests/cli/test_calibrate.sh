#!/usr/bin/env bash
# `accel-advisor calibrate`: the published-run table of docs/calibration.md is
# exactly what the command prints for tests/fixtures/calibration.json, and every
# exit status and error path.
# usage: test_calibrate.sh BINARY SOURCE_DIR
set -u
bin=$1
src=$2
fixture=$src/tests/fixtures/calibration.json
# shellcheck source=tests/cli/lib.sh
. "$src/tests/cli/lib.sh"

check fixture 0 "$bin" calibrate "$fixture"
sed -n '/<!-- calibrate:begin -->/,/<!-- calibrate:end -->/p' "$src/docs/calibration.md" |
    sed '1d;$d' >"$tmp/doc"
if cmp -s "$tmp/out" "$tmp/doc"; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL docs/calibration.md is not what 'calibrate' prints; regenerate the table:"
    diff "$tmp/doc" "$tmp/out" | head -10 | sed 's/^/  /'
fi
check json 0 "$bin" calibrate --format json "$fixture"
expect_out json out '"measure":"accelerator_hours"'
expect_out json out '"within":true'
expect_out json out '"split":"held-out"'
expect_out json out '"regime":"training-moe"'
check json-o 0 "$bin" calibrate -o json "$fixture"
# The bands sizing.yaml states are what --bands prints from the fit rows.
check bands 0 "$bin" calibrate --bands "$fixture"
sed -n '/^  uncertainty:$/,/^$/p' "$src/rules/sizing.yaml" | sed '/^$/d' >"$tmp/stated"
if cmp -s "$tmp/out" "$tmp/stated"; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL rules/sizing.yaml's uncertainty block is not what 'calibrate --bands' prints:"
    diff "$tmp/stated" "$tmp/out" | head -10 | sed 's/^/  /'
fi
# The shipped serving parameters are what the fitter gives: --fit exits 0 and
# prints each; a rule set that states another value exits 1, naming it.
check fit 0 "$bin" calibrate --fit "$fixture"
expect_out fit out 'hbm_efficiency: '
expect_out fit out 'tp_allreduce_us.gpu: '
expect_out fit out 'mfu_factor.inference.cdna: '
mkdir -p "$tmp/refit"
cp "$src"/rules/*.yaml "$tmp/refit/"
sed -i 's/hbm_efficiency: {value: [0-9.]*,/hbm_efficiency: {value: 0.9,/' "$tmp/refit/sizing.yaml"
check refit 1 "$bin" calibrate --rules "$tmp/refit" --fit "$fixture"
expect_out refit err 'hbm_efficiency: the fit gives'
check fit-bad 2 "$bin" calibrate --fit "$tmp/none.json"

# A row moved to the other split fails the run, named.
sed '0,/"split": "held-out"/s//"split": "fit"/' "$fixture" >"$tmp/moved.json"
check moved-split 1 "$bin" calibrate "$tmp/moved.json"
expect_out moved-split err "but the split rule puts it in held-out"

# A row pushed out of the band (ten times the measured hours) fails the run.
sed 's/"accelerator_hours": 184320/"accelerator_hours": 1843200/' "$fixture" >"$tmp/off.json"
check out-of-band 1 "$bin" calibrate "$tmp/off.json"
expect_out out-of-band err "T1 (Llama 2 7B pre-training): ratio 0.11 is outside"
# Broken rows: what and where.
echo '[{"id":"X","run":"r","accelerator":"h100","chips":8,"split":"fit","source":"s","evidence":"e","measured":{"hours":1,"tokens_per_second":2},"workload":{"task":"training","model":{"parameters":1e9}}}]' >"$tmp/two.json"
check two-measures 2 "$bin" calibrate "$tmp/two.json"
expect_out two-measures err "row 0/measured: measured must hold exactly one positive measure"
echo '[{"id":"X","run":"r","accelerator":"h999","chips":8,"split":"fit","source":"s","evidence":"e","measured":{"hours":1},"workload":{"task":"training","model":{"parameters":1e9}}}]' >"$tmp/acc.json"
check unknown-accelerator 2 "$bin" calibrate "$tmp/acc.json"
expect_out unknown-accelerator err 'no accelerator "h999" in the catalog'
echo '[{"id":"X","run":"r","accelerator":"h100","chips":8,"split":"fit","source":"s","evidence":"e","measured":{"hours":1},"workload":{"task":"training","model":{"parameters":-1}}}]' >"$tmp/wl.json"
check bad-workload 2 "$bin" calibrate "$tmp/wl.json"
expect_out bad-workload err "row 0/model/parameters"
echo '{"not":"an array"}' >"$tmp/obj.json"
check not-array 2 "$bin" calibrate "$tmp/obj.json"
expect_out not-array err "not a JSON array of calibration rows"
check missing-file 2 "$bin" calibrate "$tmp/none.json"
check no-args 2 "$bin" calibrate
check bad-format 2 "$bin" calibrate --format yaml "$fixture"
check help 0 "$bin" calibrate --help
expect_out help out "within"
check bad-rules 2 "$bin" calibrate --rules /nonexistent "$fixture"
echo '[{"id":"X","run":"r","accelerator":"h100","chips":8,"source":"s","evidence":"e","measured":{"hours":1},"workload":{"task":"training","model":{"parameters":1e9}}}]' >"$tmp/nosplit.json"
check no-split 2 "$bin" calibrate "$tmp/nosplit.json"
expect_out no-split err 'row 0/split: split must be "fit" or "held-out"' 

echo "cli.calibrate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
