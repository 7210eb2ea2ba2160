#!/usr/bin/env bash
# tests/readme/test_readme.sh -- README.md's commands run as written, in order, on
# a fresh copy of the source tree: every line of its ```sh blocks.
#
# `scripts/run.sh` builds the copy and starts the service; once it listens, the
# curl lines ask it (any HTTP error fails them: curl's `fail` option, set in a
# curlrc of the test's own); a line that starts a server (`serve`, `agent`) must
# reach "listening" and exit 0 on SIGTERM; every other line must exit 0. The
# example table the README prints under "Example (`recommend ...`)" must be what
# that command prints (a line ending in " ..." is a prefix, "..." skips lines).
# After the run command, `ctest --test-dir build` must not answer "No tests were
# found" (cmake/NoTests.cmake).
#
# Not run, each for its stated reason (and the test fails on a README command it
# neither runs nor names here): scripts/test.sh (the suite this test belongs to),
# the full soak (minutes of both CPUs; soak.short runs its driver shorter), and
# docker and kubectl lines (an engine and a cluster; deploy.* tests the install
# tree and the manifests). ctest lines are checked against this test's own build
# with -N (they select tests the suite runs anyway).
#
#   tests/readme/test_readme.sh SOURCE_DIR WORK_DIR BUILD_DIR
# SOURCE_DIR: the tree whose README is tested (its tracked and untracked,
# not-ignored files are copied: a clone with the working changes); WORK_DIR:
# scratch, emptied first; BUILD_DIR: the build running this test.
#
# The service listens on 127.0.0.1:8080 as the README says, so the commands run
# in a network namespace of their own (unshare -rn), where that port is free
# whatever else runs on the machine. Exit 77 (skipped) only where that cannot be
# made: no user and network namespaces, or no `ip` to bring loopback up.
set -euo pipefail
SKIP=77

if [ "${1:-}" != --inside ]; then
    [ $# -eq 3 ] || { echo "usage: $0 SOURCE_DIR WORK_DIR BUILD_DIR" >&2; exit 2; }
    src=$(cd "$1" && pwd)
    work=$2
    build=$(cd "$3" && pwd)
    for tool in unshare ip git curl; do
        command -v "$tool" >/dev/null || { echo "SKIP: no $tool here"; exit $SKIP; }
    done
    unshare -rn true 2>/dev/null || { echo "SKIP: no user and network namespaces here (unshare -rn)"; exit $SKIP; }
    git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
        { echo "SKIP: $src is not a git checkout, so there is no clone to copy"; exit $SKIP; }
    rm -rf "$work"
    mkdir -p "$work/clone" "$work/out" "$work/curl"
    work=$(cd "$work" && pwd)
    (cd "$src" && git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
        tar -xf - -C "$work/clone"
    exec unshare -rn bash "$0" --inside "$work" "$build"
fi

work=$2
build=$3
clone=$work/clone
cd "$clone"
ip link set lo up
export CURL_HOME=$work/curl
printf 'fail\nmax-time = 120\n' >"$CURL_HOME/.curlrc"

fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# The README's ```sh lines, one command each (a line ending in a backslash goes
# on with the next, as bash reads it), NUL-separated.
commands() {
    awk '/^```sh[[:space:]]*$/ { inside = 1; next }
         /^```/ && inside      { inside = 0; next }
         inside {
             line = (more == "" ? $0 : more "\n" $0)
             if (line ~ /\\$/) { more = line; next }
             more = ""
             if (line !~ /^[[:space:]]*(#.*)?$/) printf "%s%c", line, 0
         }' README.md
}

# A server started in the background: its pid and log, until stopped.
bg_pid=
bg_log=
bg_cmd=

start_server() { # COMMAND LOG
    bg_cmd=$1
    bg_log=$2
    bash -c "exec $1" >"$bg_log" 2>&1 &
    bg_pid=$!
}

# Waits until the server's log says it listens (the JSON log's "listening"
# event), it exits, or DEADLINE seconds pass.
wait_listening() { # DEADLINE
    local end=$((SECONDS + $1))
    until grep -q '"event":"listening"' "$bg_log"; do
        if ! kill -0 "$bg_pid" 2>/dev/null; then
            fail "$bg_cmd: exited before listening:"
            tail -n 30 "$bg_log"
            bg_pid=
            return 1
        fi
        if [ $SECONDS -ge "$end" ]; then
            fail "$bg_cmd: not listening after $1 s:"
            tail -n 30 "$bg_log"
            return 1
        fi
        sleep 0.2
    done
}

stop_server() {
    [ -n "$bg_pid" ] || return 0
    local rc=0
    kill -TERM "$bg_pid" 2>/dev/null || true
    wait "$bg_pid" || rc=$?
    [ $rc -eq 0 ] || { fail "$bg_cmd: exit status $rc after SIGTERM:"; tail -n 20 "$bg_log"; }
    bg_pid=
}

# Whether FILE has LINE (trailing blanks ignored on both sides), or a line that
# begins with it when LINE ends in " ...".
printed() { # LINE FILE
    L=$1 awk 'function trim(s) { sub(/[ \t]+$/, "", s); return s }
        BEGIN { want = trim(ENVIRON["L"]); prefix = sub(/ \.\.\.$/, "", want) }
        { got = trim($0); if (got == want || (prefix && index(got, want) == 1)) { found = 1; exit } }
        END { exit !found }' "$2"
}

trap 'if [ -n "$bg_pid" ]; then kill -KILL "$bg_pid" 2>/dev/null || true; fi' EXIT

n=0
ran=0
while IFS= read -r -d '' cmd; do
    n=$((n + 1))
    out=$work/out/$(printf '%02d' $n).txt
    case $cmd in
        scripts/run.sh*)
            stop_server
            echo "run (server): $cmd"
            start_server "$cmd" "$out"
            # The first build of the copy happens here.
            wait_listening 1200 || continue
            ran=$((ran + 1))
            # What the issue saw: ctest in the run command's build said "No tests
            # were found" and succeeded.
            if ctest --test-dir build >"$work/out/ctest-build.txt" 2>&1; then
                fail "ctest --test-dir build succeeded in a build without tests"
            fi
            if grep -q 'No tests were found' "$work/out/ctest-build.txt" ||
                ! grep -q 'AA_BUILD_TESTS=OFF' "$work/out/ctest-build.txt"; then
                fail "ctest --test-dir build after $cmd:"
                cat "$work/out/ctest-build.txt"
            fi
            ;;
        scripts/test.sh*)
            echo "not run: $cmd: the suite this test belongs to (it would run itself)"
            ;;
        bench/soak/run.sh*)
            echo "not run: $cmd: the full soak, minutes of both CPUs (soak.short runs its driver shorter)"
            ;;
        docker\ * | kubectl\ * | *'| kubectl '*)
            echo "not run: $cmd: needs a container engine or a Kubernetes cluster (deploy.* tests the install tree and the manifests)"
            ;;
        ctest\ *)
            listed=${cmd/--test-dir build-test/--test-dir \"$build\" -N}
            [ "$listed" != "$cmd" ] || { fail "$cmd: names another build than scripts/test.sh's build-test"; continue; }
            echo "listed: $cmd"
            if ! bash -c "$listed" >"$out" 2>&1 || ! grep -Eq 'Total Tests: [1-9]' "$out"; then
                fail "$cmd selects no test:"
                cat "$out"
            fi
            ran=$((ran + 1))
            ;;
        build/accel-advisor\ serve* | build/accel-advisor\ agent*)
            stop_server
            echo "run (server): $cmd"
            start_server "$cmd" "$out"
            wait_listening 60 && stop_server
            ran=$((ran + 1))
            ;;
        *)
            echo "run: $cmd"
            if ! bash -c "$cmd" </dev/null >"$out" 2>&1; then
                fail "$cmd:"
                tail -n 20 "$out"
            fi
            ran=$((ran + 1))
            ;;
    esac
done < <(commands)
stop_server

# The example table: the README's lines against what the command prints now.
# shellcheck disable=SC2016 # backticks, not expansions
example=$(grep -o '^Example (`recommend [^`]*`' README.md | head -n 1 | sed 's/^Example (`//; s/`$//')
if [ -z "$example" ]; then
    fail "README.md has no 'Example (\`recommend ...\`)' block"
else
    echo "run: build/accel-advisor $example (the README's example table)"
    # shellcheck disable=SC2086 # the README's words, split as a shell would
    build/accel-advisor $example >"$work/out/example.txt" 2>&1 || fail "build/accel-advisor $example"
    awk -v want="Example (\`$example\`" 'index($0, want) == 1 { found = 1; next }
        found && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' README.md >"$work/out/example-readme.txt"
    [ -s "$work/out/example-readme.txt" ] || fail "the example block under 'Example (\`$example\`' is empty"
    while IFS= read -r line; do
        [ "$line" = "..." ] && continue
        printed "$line" "$work/out/example.txt" || fail "the README's example, not printed: $line"
    done <"$work/out/example-readme.txt"
fi

[ $ran -ge 20 ] || fail "only $ran README commands ran: did the extraction break?"
if [ $fails -ne 0 ]; then
    echo "readme: $fails of the README's commands failed (outputs in $work/out)"
    exit 1
fi
echo "readme: $ran commands ran as written, the example table is current"
