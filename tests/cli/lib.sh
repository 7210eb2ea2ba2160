# tests/cli/lib.sh -- what the CLI test scripts share (sourced, not run): a
# scratch directory and two checks that count passes and failures.
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
