#!/bin/bash
# Container HEALTHCHECK: GET /healthz on the admin listener,
# ACCEL_ADVISOR_ADMIN_LISTEN (the image sets 0.0.0.0:9090: answered while the API
# port is flooded), or without one on ACCEL_ADVISOR_LISTEN (the image sets
# 0.0.0.0:8080), with bash's /dev/tcp, because the slim image has no curl or wget
# and installing one only for this would add megabytes. Exit 0 when the server
# answers 200, 1 otherwise (no answer within 2 s included).
set -u
listen=${ACCEL_ADVISOR_ADMIN_LISTEN:-${ACCEL_ADVISOR_LISTEN:-127.0.0.1:8080}}
port=${listen##*:}
host=${listen%:*}
case $host in
    0.0.0.0 | '') host=127.0.0.1 ;;
    '[::]') host=::1 ;;
    \[*\])
        host=${host#[}
        host=${host%]}
        ;;
esac
if ! { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null; then
    echo "healthcheck: nothing accepts connections on $host:$port" >&2
    exit 1
fi
printf 'GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3 || exit 1
if ! IFS= read -r -t 2 status <&3; then
    echo "healthcheck: no answer from $host:$port within 2 s" >&2
    exit 1
fi
exec 3<&-
[[ $status =~ ^HTTP/1\.[01]\ 200\  ]] && exit 0
echo "healthcheck: GET /healthz answered: ${status%$'\r'}" >&2
exit 1
