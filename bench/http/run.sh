#!/usr/bin/env bash
# HTTP benchmark: wrk against POST /v1/recommendations, and in the same run nginx
# serving a static file of the same size (the body the server returned) as the
# ceiling. Prints requests per second, p50/p99 latency, CPU a request, the ratios, and the
# server's resident memory under load and over a million requests.
#
#   bench/http/run.sh                 build (Release) and run with the defaults
#   BIN=build/accel-advisor bench/http/run.sh     use an existing binary
#
# Settings (environment): CONNS (32), DURATION (10s per round), ROUNDS (3,
# alternating server and nginx; medians reported), PIN (1: wrk on CPU 0, servers on
# the other CPUs), WRK_THREADS (1 pinned, 2 not), THREADS (server worker threads
# and nginx workers; default: the CPUs the servers get), LOGS (on: both write an
# access log to a file; off: neither does), MILLION (1: also send 1,000,000
# requests and sample RSS), WORKLOAD (examples/llm-serving.json). When the server
# has the summary view (?view=summary), each round also runs nginx on a file of the
# summary's bytes and distinct bodies asking for the summary. FLOOR (1) adds, each
# round, the request path without a decision beside nginx serving the same bytes:
# GET /healthz, and distinct workloads the schema refuses for one unknown member
# (read, scanned and checked whole, answered 400): the summary's ratio cannot pass
# that floor however cheap the decision and the body become.
# Needs wrk and nginx (Debian packages wrk, nginx-light or nginx) and curl;
# scripts/deps.sh bench installs whatever of them is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
CONNS=${CONNS:-32}
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-3}
ncpu=$(nproc)
# PIN=1 (default with 2+ CPUs): wrk runs on CPU 0, the server and nginx on the
# others, so the load generator never takes CPU from the server it measures and
# both servers get exactly the same CPUs. PIN=0 lets the scheduler mix them.
PIN=${PIN:-$([ "$ncpu" -ge 2 ] && echo 1 || echo 0)}
if [ "$PIN" = 1 ]; then
    command -v taskset >/dev/null || { echo "bench/http: taskset (util-linux) is needed for PIN=1" >&2; exit 2; }
    WRK_PIN=(taskset -c 0)
    SRV_PIN=(taskset -c "1-$((ncpu - 1))")
    THREADS=${THREADS:-$((ncpu - 1))}
    WRK_THREADS=${WRK_THREADS:-1}
else
    WRK_PIN=()
    SRV_PIN=()
    THREADS=${THREADS:-$ncpu}
    WRK_THREADS=${WRK_THREADS:-2}
fi
LOGS=${LOGS:-on}
MILLION=${MILLION:-1}
FLOOR=${FLOOR:-1}
WORKLOAD=${WORKLOAD:-$root/examples/llm-serving.json}
PORT_A=${PORT_A:-18480}
PORT_N=${PORT_N:-18481}

"$root/scripts/deps.sh" bench
# Debian installs nginx in /usr/sbin, which is not on a user's PATH.
export PATH="$PATH:/usr/sbin:/sbin"
for tool in wrk nginx curl; do
    command -v "$tool" >/dev/null || { echo "bench/http: $tool is not installed" >&2; exit 2; }
done
if [ -z "${BIN:-}" ]; then
    cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DAA_BUILD_TESTS=OFF >/dev/null
    cmake --build "$root/build-bench" -j"$(nproc)" --target accel-advisor >/dev/null
    BIN=$root/build-bench/accel-advisor
fi

work=$(mktemp -d)
chmod 755 "$work" # nginx workers run as an unprivileged user and must read the file
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# ---- the server ------------------------------------------------------------------
log_flag=--access-log=true
[ "$LOGS" = on ] || log_flag=--access-log=false
"${SRV_PIN[@]}" "$BIN" serve --listen "127.0.0.1:$PORT_A" --threads "$THREADS" "$log_flag" 2>"$work/server.log" &
srv=$!
pids+=("$srv")
for _ in $(seq 100); do
    grep -q '"event":"listening"' "$work/server.log" 2>/dev/null && break
    sleep 0.05
done
grep -q '"event":"listening"' "$work/server.log" || { cat "$work/server.log"; exit 1; }

# ---- nginx with a static file of the same size ----------------------------------------
mkdir -p "$work/www" "$work/nginx"
chmod 755 "$work/www"
curl -sf -X POST -H 'Content-Type: application/json' --data-binary @"$WORKLOAD" \
    "http://127.0.0.1:$PORT_A/v1/recommendations" >"$work/www/recommendation.json"
chmod 644 "$work/www/recommendation.json"
size=$(stat -c %s "$work/www/recommendation.json")
# The summary view (issue 33), when the server has it: nginx serves a file of its
# bytes too, the ceiling for the summary rows.
curl -sf -X POST -H 'Content-Type: application/json' --data-binary @"$WORKLOAD" \
    "http://127.0.0.1:$PORT_A/v1/recommendations?view=summary" >"$work/www/summary.json" || true
chmod 644 "$work/www/summary.json"
summary=0
grep -q '"view":"summary"' "$work/www/summary.json" && summary=1
ssize=$(stat -c %s "$work/www/summary.json")
# The floor's two answers, for nginx to serve as files: /healthz, and the 400 of a
# workload with one unknown member.
if [ "$FLOOR" = 1 ]; then
    curl -s "http://127.0.0.1:$PORT_A/healthz" >"$work/www/healthz.json"
    sed '0,/{/s//{"x-floor":true,/' "$WORKLOAD" >"$work/refused-workload.json"
    curl -s -X POST -H 'Content-Type: application/json' --data-binary @"$work/refused-workload.json" \
        "http://127.0.0.1:$PORT_A/v1/recommendations" >"$work/www/refused.json"
    grep -q '"status":400' "$work/www/refused.json" || { echo "bench/http: the floor's workload was not refused" >&2; cat "$work/www/refused.json" >&2; exit 1; }
    chmod 644 "$work/www/healthz.json" "$work/www/refused.json"
    hsize=$(stat -c %s "$work/www/healthz.json")
    rsize=$(stat -c %s "$work/www/refused.json")
fi
ngx_log="access_log off;"
[ "$LOGS" = on ] && ngx_log="access_log $work/nginx/access.log;"
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes $THREADS;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
    $ngx_log
    keepalive_requests 100000000;
    client_body_temp_path $work/nginx;
    proxy_temp_path $work/nginx;
    fastcgi_temp_path $work/nginx;
    uwsgi_temp_path $work/nginx;
    scgi_temp_path $work/nginx;
    server {
        listen 127.0.0.1:$PORT_N;
        root $work/www;
        location / { default_type application/json; }
    }
}
EOF
"${SRV_PIN[@]}" nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" 2>"$work/nginx/stderr" &
ngx=$!
pids+=("$ngx")
for _ in $(seq 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT_N/recommendation.json" && break
    sleep 0.05
done
got=$(curl -sf "http://127.0.0.1:$PORT_N/recommendation.json" | wc -c) || got=0
[ "$got" = "$size" ] || { echo "bench/http: nginx does not serve the file (got $got bytes)" >&2; cat "$work/nginx/error.log" >&2; exit 1; }

# ---- wrk scripts ---------------------------------------------------------------------
cat >"$work/post.lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$WORKLOAD", "rb")
wrk.body = f:read("*a")
f:close()
EOF
# Every request a different workload (a distinct name): nothing is answered from
# the recommendation cache, so this measures parse, validate, decide, render.
cat >"$work/post-distinct.lua" <<EOF
local f = io.open("$WORKLOAD", "rb")
local base = f:read("*a"):gsub("^%s*{", "", 1)
f:close()
local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
-- A name no earlier run used: the recommendation cache (1,024 entries) would
-- otherwise answer a round's first requests from the names of the round before.
math.randomseed(os.time())
local run = math.random(1, 999999999)
local n = 0
function request()
    n = n + 1
    local body = string.format('{"name":"bench-%d-%d-%d",', run, tid, n) .. base:gsub('"name"%s*:%s*"[^"]*"%s*,', "", 1)
    return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
EOF
# The floor: the same distinct workloads, each with one member the schema does not
# know, so the server reads, scans and checks the whole body and answers 400
# without deciding anything.
sed 's/{"name":"bench-/{"x-floor":true,"name":"bench-/' "$work/post-distinct.lua" >"$work/post-refused.lua"

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$srv/status"; }

# wrk --latency output -> "rps p50 p99" (latencies in ms)
parse_wrk() {
    awk '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    /^ +50%/ { p50 = ms($2) } /^ +99%/ { p99 = ms($2) } /^Requests\/sec:/ { rps = $2 }
    /Non-2xx/ { bad = $NF } /Socket errors/ { err = $0 }
    END { printf "%s %.3f %.3f %s\n", rps, p50, p99, (bad == "" ? 0 : bad) }'
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# CPU time (user and system, clock ticks) the given processes have used so far.
cpu_ticks() { for p in "$@"; do cat "/proc/$p/stat"; done | awk '{s += $14 + $15} END {print s + 0}'; }
tick_us=$(awk -v t="$(getconf CLK_TCK)" 'BEGIN {print 1000000 / t}')

# One wrk run -> "rps p50 p99 non2xx cpu_us": cpu_us is the CPU the server that
# answered spent a request (accel-advisor's process, or nginx's workers), which
# other load on the machine disturbs far less than requests/s.
run_wrk() { # name url [script]
    local out="$work/wrk-$1-$RANDOM.txt" who t0 t1
    case "$2" in
    *":$PORT_A/"*) who=("$srv") ;;
    *) mapfile -t who < <(pgrep -P "$ngx") ;;
    esac
    t0=$(cpu_ticks "${who[@]}")
    if [ -n "${3:-}" ]; then
        "${WRK_PIN[@]}" wrk -t"$WRK_THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$3" "$2" >"$out" 2>&1
    else
        "${WRK_PIN[@]}" wrk -t"$WRK_THREADS" -c"$CONNS" -d"$DURATION" --latency "$2" >"$out" 2>&1
    fi
    t1=$(cpu_ticks "${who[@]}")
    parse_wrk <"$out" | awk -v d="$((t1 - t0))" -v us="$tick_us" \
        -v n="$(awk '/requests in/ {print $1}' "$out")" '{printf "%s %.1f\n", $0, (n > 0 ? d * us / n : 0)}'
}

echo "bench/http: $ncpu CPUs, pinned $PIN, server and nginx $THREADS thread(s)/worker(s), wrk -t$WRK_THREADS -c$CONNS -d$DURATION, $ROUNDS round(s), logs $LOGS"
echo "bench/http: body $size bytes ($WORKLOAD)$([ "$summary" = 1 ] && echo "; summary view $ssize bytes")"
# Warm both up.
wrk -t1 -c4 -d2s -s "$work/post.lua" "http://127.0.0.1:$PORT_A/v1/recommendations" >/dev/null 2>&1
wrk -t1 -c4 -d2s "http://127.0.0.1:$PORT_N/recommendation.json" >/dev/null 2>&1

: >"$work/a.txt"
: >"$work/n.txt"
: >"$work/d.txt"
: >"$work/ns.txt"
: >"$work/ds.txt"
for f in h nh f nf; do : >"$work/$f.txt"; done
rss_max=0
for r in $(seq "$ROUNDS"); do
    run_wrk server "http://127.0.0.1:$PORT_A/v1/recommendations" "$work/post.lua" >>"$work/a.txt"
    rss=$(rss_kb)
    [ "$rss" -gt "$rss_max" ] && rss_max=$rss
    run_wrk nginx "http://127.0.0.1:$PORT_N/recommendation.json" >>"$work/n.txt"
    run_wrk distinct "http://127.0.0.1:$PORT_A/v1/recommendations" "$work/post-distinct.lua" >>"$work/d.txt"
    rss=$(rss_kb)
    [ "$rss" -gt "$rss_max" ] && rss_max=$rss
    if [ "$summary" = 1 ]; then
        run_wrk nginx-summary "http://127.0.0.1:$PORT_N/summary.json" >>"$work/ns.txt"
        run_wrk distinct-summary "http://127.0.0.1:$PORT_A/v1/recommendations?view=summary" \
            "$work/post-distinct.lua" >>"$work/ds.txt"
        echo "  round $r: nginx (summary size) $(sed -n "${r}p" "$work/ns.txt") | distinct summaries $(sed -n "${r}p" "$work/ds.txt")"
    fi
    if [ "$FLOOR" = 1 ]; then
        run_wrk healthz "http://127.0.0.1:$PORT_A/healthz" >>"$work/h.txt"
        run_wrk nginx-healthz "http://127.0.0.1:$PORT_N/healthz.json" >>"$work/nh.txt"
        run_wrk refused "http://127.0.0.1:$PORT_A/v1/recommendations" "$work/post-refused.lua" >>"$work/f.txt"
        run_wrk nginx-refused "http://127.0.0.1:$PORT_N/refused.json" >>"$work/nf.txt"
        echo "  round $r: floor: GET /healthz $(sed -n "${r}p" "$work/h.txt") | nginx (its size) $(sed -n "${r}p" "$work/nh.txt") | refused distinct $(sed -n "${r}p" "$work/f.txt") | nginx (its size) $(sed -n "${r}p" "$work/nf.txt")"
    fi
    echo "  round $r: server $(sed -n "${r}p" "$work/a.txt") | nginx $(sed -n "${r}p" "$work/n.txt") | distinct bodies $(sed -n "${r}p" "$work/d.txt")   (rps p50ms p99ms non2xx cpu_us)"
done
col() { awk -v c="$2" '{print $c}' "$1" | median; }
# "A / B" of two runs' medians: requests/s, then (load-robust) nginx's CPU a
# request over the server's.
vs() { awk -v a="$(col "$1" 1)" -v n="$(col "$2" 1)" -v ca="$(col "$1" 5)" -v cn="$(col "$2" 5)" \
    'BEGIN {printf "%.2f (by CPU a request: %.2f)", a / n, (ca > 0 ? cn / ca : 0)}'; }
a_rps=$(col "$work/a.txt" 1)
bad=$(awk '{s += $4} END {print s + 0}' "$work/a.txt" "$work/d.txt" "$work/ds.txt")
nbad=$(awk '{s += $4} END {print s + 0}' "$work/n.txt" "$work/ns.txt" "$work/nh.txt" "$work/nf.txt")
# Every refused request must have been a 400 (the rows count non-2xx): a 2xx there
# would mean the floor decided something after all.
fbad=$(awk '{s += $4} END {print s + 0}' "$work/f.txt")
[ "$nbad" = 0 ] || { echo "bench/http: nginx answered $nbad non-2xx responses: no valid ceiling" >&2; exit 1; }

if [ "$MILLION" = 1 ]; then
    # A million requests with RSS sampled every second: it must stay flat.
    secs=$(awk -v r="$a_rps" 'BEGIN {s = int(1250000 / r) + 2; print (s < 5 ? 5 : s)}')
    rss_start=$(rss_kb)
    "${WRK_PIN[@]}" wrk -t"$WRK_THREADS" -c"$CONNS" -d"${secs}s" -s "$work/post.lua" \
        "http://127.0.0.1:$PORT_A/v1/recommendations" >"$work/million.txt" 2>&1 &
    w=$!
    samples=()
    while kill -0 "$w" 2>/dev/null; do
        samples+=("$(rss_kb)")
        sleep 1
    done
    wait "$w" || true
    total=$(awk '/requests in/ {print $1}' "$work/million.txt")
    rss_end=$(rss_kb)
    m_max=$(printf '%s\n' "${samples[@]}" | sort -n | tail -1)
    [ "$m_max" -gt "$rss_max" ] && rss_max=$m_max
fi

echo
row() { printf '%-32s %12.0f %10.3f %10.3f %12.1f\n' "$1" "$(col "$2" 1)" "$(col "$2" 2)" "$(col "$2" 3)" "$(col "$2" 5)"; }
printf '%-32s %12s %10s %10s %12s\n' "" "requests/s" "p50 ms" "p99 ms" "CPU us/req"
row "accel-advisor POST (same body)" "$work/a.txt"
row "nginx static file ($size B)" "$work/n.txt"
row "accel-advisor POST (distinct)" "$work/d.txt"
if [ "$summary" = 1 ]; then
    row "nginx static file ($ssize B)" "$work/ns.txt"
    row "accel-advisor summary (distinct)" "$work/ds.txt"
fi
if [ "$FLOOR" = 1 ]; then
    row "accel-advisor GET /healthz" "$work/h.txt"
    row "nginx static file ($hsize B)" "$work/nh.txt"
    row "accel-advisor refused (distinct)" "$work/f.txt"
    row "nginx static file ($rsize B)" "$work/nf.txt"
fi
echo "ratio (same body / nginx): $(vs "$work/a.txt" "$work/n.txt")   target >= 0.80; p99 target <= 2 ms"
echo "ratio (distinct bodies / nginx): $(vs "$work/d.txt" "$work/n.txt")   target >= 0.50 (issue 33); p99 target <= 1 ms at 4 connections"
[ "$summary" = 1 ] && echo "ratio (distinct summaries / nginx, summary size): $(vs "$work/ds.txt" "$work/ns.txt")   target >= 0.80 (issue 33)"
if [ "$FLOOR" = 1 ]; then
    echo "floor, GET /healthz / nginx (its size): $(vs "$work/h.txt" "$work/nh.txt")"
    echo "floor, distinct refused (no decision) / nginx (its size): $(vs "$work/f.txt" "$work/nf.txt")"
    [ "$summary" = 1 ] && echo "floor, distinct refused (no decision) / nginx (summary size): $(vs "$work/f.txt" "$work/ns.txt")"
    tot=$(awk '/requests in/ {s += $1} END {print s + 0}' "$work"/wrk-refused-*.txt)
    [ "$fbad" = "$tot" ] || echo "bench/http: $((tot - fbad)) of the floor's $tot requests were not refused" >&2
fi
echo "non-2xx responses from accel-advisor: $bad"
echo "resident memory under load: max $((rss_max / 1024)) MiB   target <= 32 MiB"
if [ "$MILLION" = 1 ]; then
    echo "a million requests: $total sent; RSS $((rss_start / 1024)) MiB before, $((rss_end / 1024)) MiB after, max $((m_max / 1024)) MiB (samples, KiB: ${samples[*]})"
fi
