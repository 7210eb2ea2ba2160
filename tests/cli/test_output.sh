#!/usr/bin/env bash
# The CLI's output for people and for scripts (issue 34): golden files of
# -o table at 80 and 120 columns (stdout no terminal, $COLUMNS set) and of
# `prices show`, made with a frozen rule set (tests/cli/golden/rules, the unit
# tests' mini set) so they change when the output does, not when the shipped
# rules do; each -o option against the JSON it is drawn from; a terminal's
# width and pretty JSON (under script(1), when there is one); the error paths.
# AA_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing (review
# the diff before committing it).
#   usage: test_output.sh BINARY SOURCE_DIR
set -u
bin=$1
src=$2
# shellcheck source=tests/cli/lib.sh
. "$src/tests/cli/lib.sh"
golden=$src/tests/cli/golden
rules=$golden/rules
serving=$src/examples/llm-serving.json
training=$src/examples/llm-pretraining.json

golden_check() { # name golden-file command...
    local name=$1 file=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [ -n "${AA_UPDATE_GOLDEN:-}" ] && cp "$tmp/out" "$golden/$file"
    if [ $rc -eq 0 ] && cmp -s "$tmp/out" "$golden/$file"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name: exit $rc, or the output differs from $file (AA_UPDATE_GOLDEN=1 rewrites it):"
        diff -u "$golden/$file" "$tmp/out" | head -40
        head -5 "$tmp/err"
    fi
}
# No line of $tmp/out wider than $2 characters, but a line of one word (a URL).
fits() { # name width
    local bad
    # Characters, not bytes: UTF-8 continuation bytes are not counted.
    bad=$(awk -v w="$2" '{ t = $0; gsub(/[\200-\277]/, "", t); s = $0; sub(/^ */, "", s)
        if (length(t) > w && index(s, " ") > 0) print }' "$tmp/out")
    if [ -z "$bad" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $1: lines wider than $2:"; printf '%s\n' "$bad" | head -5; fi
}

# A check of any command: passes when it succeeds ("holds NAME CMD..."), or
# when it fails ("lacks NAME CMD...": a grep that must find nothing).
holds() { # name, command...
    local name=$1
    shift
    if "$@"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL $name"; head -5 "$tmp/out" | sed 's/^/  /'; fi
}
lacks() { # name, command...
    local name=$1
    shift
    if "$@"; then
        fail=$((fail + 1)); echo "FAIL $name"; head -5 "$tmp/out" | sed 's/^/  /'
    else pass=$((pass + 1)); fi
}
lines() { wc -l <"$1"; }

# ---- golden files: the table at 80 and 120 columns ------------------------------------
export LC_ALL=C.UTF-8
for cols in 80 120; do
    golden_check "serving-$cols" "recommend-serving-$cols.txt" \
        env COLUMNS=$cols "$bin" recommend --rules "$rules" -o table "$serving"
    fits "serving-$cols fits" $cols
    golden_check "training-$cols" "recommend-training-$cols.txt" \
        env COLUMNS=$cols "$bin" recommend --rules "$rules" -o table "$training"
    fits "training-$cols fits" $cols
    golden_check "prices-show-$cols" "prices-show-$cols.txt" \
        env COLUMNS=$cols "$bin" prices show --rules "$rules"
    fits "prices-show-$cols fits" $cols
done
# Narrower: the columns left out, and named under the table.
golden_check training-60 recommend-training-60.txt \
    env COLUMNS=60 "$bin" recommend --rules "$rules" -o table "$training"
fits "training-60 fits" 60
expect_out training-60 out "^(Left out to fit 60 columns: \$/H, CHIPS; -o wide shows every$"
golden_check wide recommend-serving-wide.txt env COLUMNS=80 "$bin" recommend --rules "$rules" -o wide "$serving"
golden_check no-headers recommend-serving-no-headers.txt \
    env COLUMNS=80 "$bin" recommend --rules "$rules" -o table --no-headers "$serving"
golden_check prices-show-part prices-show-gpu-a-4.txt env COLUMNS=80 "$bin" prices show --rules "$rules" gpu-a:4
golden_check prices-show-wide prices-show-wide.txt "$bin" prices show --rules "$rules" -o wide

# ---- the shipped rules: every width fits, every option agrees with the JSON ----------
for cols in 60 80 100 120 160; do
    check "table-$cols" 0 env COLUMNS=$cols "$bin" recommend -o table "$serving"
    fits "table-$cols fits" $cols
    check "prices-$cols" 0 env COLUMNS=$cols "$bin" prices show H100:8
    fits "prices-$cols fits" $cols
done
# What would change the answer (--why-not) is wrapped at the width too.
check why-not-80 0 env COLUMNS=80 "$bin" recommend --why-not -o table "$serving"
expect_out why-not-80 out "^What would change the answer:$"
fits "why-not-80 fits" 80
# Narrow: the columns left out are named; -o wide is never cut.
check table-narrow 0 env COLUMNS=60 "$bin" recommend -o table "$serving"
expect_out table-narrow out "^(Left out to fit 60 columns: \$/H, CHIPS"
check wide-whole 0 env COLUMNS=60 "$bin" recommend -o wide "$serving"
expect_out wide-whole out "PRICE AS OF  CONFIDENCE  SCORE  ID"
# $COLUMNS out of bounds: 80.
check columns-bad 0 env COLUMNS=abc "$bin" recommend -o table "$serving"
fits "columns-bad fits 80" 80
# -o name: the candidates' ids, best first, as the JSON lists them.
check name 0 "$bin" recommend -o name "$serving"
cp "$tmp/out" "$tmp/names"
check name-jsonpath 0 "$bin" recommend -o 'jsonpath={range .recommendations[*]}{.accelerator}{"\n"}{end}' "$serving"
holds "-o name is the JSON's ids" cmp -s "$tmp/names" "$tmp/out"
holds "-o name: a line a candidate" [ "$(lines "$tmp/names")" -ge 5 ]
# --no-headers: one line a candidate, no column names.
check no-headers 0 "$bin" recommend -o table --no-headers "$serving"
holds "--no-headers: one line a candidate" [ "$(lines "$tmp/out")" -eq "$(lines "$tmp/names")" ]
lacks "--no-headers printed headers" grep -q "PART\|Target:" "$tmp/out"
# probe --no-headers: the devices alone (a fixture host of 8 H100s).
h=$src/tests/fixtures/hosts/h100x8
check probe-no-headers 0 "$bin" probe -o table --no-headers --sysfs-root "$h/sys" --dev-root "$h/dev" \
    --proc-root "$h/proc" --nvml off
holds "probe --no-headers: 8 devices" [ "$(grep -c '^0000:.*NVIDIA H100' "$tmp/out")" -eq 8 ]
holds "probe --no-headers: the devices alone" [ "$(lines "$tmp/out")" -eq 8 ]
# -o jsonpath: one field, a list, a range; on check and version too.
check jsonpath-one 0 "$bin" recommend -o 'jsonpath={.recommendations[0].accelerator}' "$serving"
holds "jsonpath-one is -o name's first" [ "$(cat "$tmp/out")" = "$(head -1 "$tmp/names")" ]
check jsonpath-status 0 "$bin" recommend -o jsonpath='{.status}' "$serving"
expect_out jsonpath-status out "^ok$"
check jsonpath-list 0 "$bin" recommend -o 'jsonpath={.recommendations[*].score}' "$serving"
expect_out jsonpath-list out "^[0-9][0-9.]*\( [0-9][0-9.]*\)\{4,\}$"
check jsonpath-version 0 "$bin" version -o 'jsonpath={.version}'
expect_out jsonpath-version out "^[0-9]*\.[0-9]*\.[0-9]*$"
check jsonpath-check 0 "$bin" check -o 'jsonpath={.valid}'
expect_out jsonpath-check out "^true$"
check jsonpath-prices 0 "$bin" prices show H100:8 -o 'jsonpath={.offers[*].accelerators}'
expect_out jsonpath-prices out "^8\( 8\)*$"
# JSON off a terminal: one line.
check json-one-line 0 "$bin" recommend -o json "$serving"
holds "JSON off a terminal is one line" [ "$(lines "$tmp/out")" -eq 1 ]

# ---- a terminal: its width (ioctl) over $COLUMNS, JSON indented -------------------------
if command -v script >/dev/null 2>&1; then
    check tty-json 0 script -qec "stty cols 100; '$bin' version -o json" /dev/null
    expect_out tty-json out '^  "version": '
    check tty-table 0 env COLUMNS=300 script -qec "stty cols 70; '$bin' recommend -o table '$serving'" /dev/null
    tr -d '\r' <"$tmp/out" >"$tmp/tty" && mv "$tmp/tty" "$tmp/out"
    fits "tty-table fits the terminal, not \$COLUMNS" 70
    expect_out tty-table out "^(Left out to fit 70 columns"
else
    echo "skip: no script(1) for the terminal checks"
fi

# ---- error paths ---------------------------------------------------------------------
check bad-o 2 "$bin" recommend -o tabel "$serving"
expect_out bad-o err "recommend: -o must be json, yaml, table, wide, name or jsonpath=TEMPLATE"
expect_out bad-o err "did you mean -o table?"
check name-not-for-check 2 "$bin" check -o name
check bad-jsonpath 2 "$bin" recommend -o 'jsonpath={.a' "$serving"
expect_out bad-jsonpath err "jsonpath: { without } at character 1"
check jsonpath-filter 2 "$bin" recommend -o 'jsonpath={.recommendations[?(@.score>50)]}' "$serving"
expect_out jsonpath-filter err "filters \[?(...)\] are not in the supported subset"
check jsonpath-empty 2 "$bin" recommend -o jsonpath= "$serving"
expect_out jsonpath-empty err "needs a template"
check jsonpath-missing 2 "$bin" recommend -o 'jsonpath={.recomendations[0]}' "$serving"
expect_out jsonpath-missing err 'no field "recomendations" (did you mean "recommendations"?)'
lacks "jsonpath-missing wrote output" [ -s "$tmp/out" ]
check jsonpath-range 2 "$bin" recommend -o 'jsonpath={.recommendations[99]}' "$serving"
expect_out jsonpath-range err "index 99 is out of range"
check misspelt-command 2 "$bin" recomend "$serving"
expect_out misspelt-command err 'Did you mean "accel-advisor recommend"?'
check misspelt-flag 2 "$bin" recommend --prety "$serving"
expect_out misspelt-flag err "recommend: did you mean --pretty?"
check misspelt-check-flag 2 "$bin" check --outptu json
expect_out misspelt-check-flag err "check: did you mean --output?"
check misspelt-subcommand 2 "$bin" prices shwo H100
expect_out misspelt-subcommand err 'did you mean "prices show"?'
check misspelt-format 2 "$bin" prices import skypilt --cloud aws --source https://x --as-of 2025-01 f.csv
expect_out misspelt-format err "did you mean skypilot?"

# ---- prices show ---------------------------------------------------------------------
check prices-part-count 0 "$bin" prices show H100:8 -o json
expect_out prices-part-count out '"accelerator":"h100"'
lacks "H100:8 lists another count" grep -q '"accelerators":[0-79]' "$tmp/out"
# A part sold per chip is priced at COUNT chips.
check prices-per-chip 0 "$bin" prices show tpu-v6e:8 -o 'jsonpath={range .offers[*]}{.usd_per_hour} {.usd_per_chip_hour}{"\n"}{end}'
# shellcheck disable=SC2016 # awk's fields, not the shell's
holds "tpu-v6e:8 is 8 chips' price" awk 'NF != 2 || $1 < 7.99 * $2 || $1 > 8.01 * $2 { bad = 1 }
    END { exit bad || NR == 0 }' "$tmp/out"
check prices-name 0 "$bin" prices show h100 -o name
expect_out prices-name out "^aws/us-east-1/p5.48xlarge$"
check prices-short-name 0 "$bin" prices show 'TPU v6e'
check prices-unknown 1 "$bin" prices show H10
expect_out prices-unknown err 'no part "H10" in the catalog; did you mean h100?'
check prices-none 1 "$bin" prices show H100:3
expect_out prices-none err "offers no h100 with 3 chips"
check prices-bad-count 2 "$bin" prices show H100:zero
expect_out prices-bad-count err "COUNT in H100:zero must be a number"
check prices-too-many 2 "$bin" prices show H100 extra
check prices-coverage-o 2 "$bin" prices -o json
expect_out prices-coverage-o err "prices: -o, --pretty and --no-headers are prices show's"
# Nothing mapped is an error, and says which table to fix.
printf 'skypilot,NOPE,h100\n' >"$tmp/none.csv"
check import-nothing-mapped 1 "$bin" prices import skypilot --cloud nebius --source https://nebius.com/prices \
    --as-of 2025-01 --map "$tmp/none.csv" "$src/tests/fixtures/prices/skypilot-nebius.csv"
expect_out import-nothing-mapped err "prices import: nothing mapped: the name table ($tmp/none.csv) knows none of the 5"
lacks "nothing mapped wrote a document" [ -s "$tmp/out" ]

echo "test_output: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
