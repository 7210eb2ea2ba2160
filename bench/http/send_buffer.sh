#!/bin/sh
# bench/http/send_buffer.sh BINARY SNDBUF: how long an 8.4 MB answer (a batch of
# 110 workloads) takes to reach a client on loopback, with send_buffer_bytes
# SNDBUF (bench/README.md, "Send buffers"). Three runs; curl's time to the first
# byte is about the time to compute it, the rest is the transfer. Needs curl and
# python3; the response cache is off so every run computes.
set -eu
bin=$1; sb=$2
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
body=$(mktemp)
trap 'rm -f "$body"' EXIT
python3 -c 'import json,sys; w={"task":"inference","model":{"parameters":7e9}}; sys.stdout.write(json.dumps({"workloads":[w]*110}))' >"$body"
$bin serve --listen 127.0.0.1:$port --max-batch 200 --send-buffer-bytes $sb --cache-entries 0 --access-log=false 2>/dev/null &
pid=$!
for i in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:$port/healthz && break; sleep 0.1; done
for i in 1 2 3; do
curl -s -o /dev/null -w "sndbuf=$sb size=%{size_download} total=%{time_total}s first_byte=%{time_starttransfer}s\n" -H 'Content-Type: application/json' --data-binary @"$body" http://127.0.0.1:$port/v1/recommendations:batch
done
kill $pid; wait $pid 2>/dev/null
