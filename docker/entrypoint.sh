#!/bin/sh
# Container entrypoint: `accel-advisor serve`, on the rules mounted at
# /etc/accel-advisor/rules when that directory has anything in it (a volume or a
# Kubernetes ConfigMap), otherwise on the rules compiled into the binary.
# An explicit --rules flag or ACCEL_ADVISOR_RULES wins (the flag over the variable,
# as always). `exec` makes the server PID 1's process, so it receives SIGTERM.
set -eu
dir=/etc/accel-advisor/rules
if [ "${1:-}" = serve ] && [ -z "${ACCEL_ADVISOR_RULES+set}" ] && [ -d "$dir" ] &&
    [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    ACCEL_ADVISOR_RULES=$dir
    export ACCEL_ADVISOR_RULES
fi
exec /usr/local/bin/accel-advisor "$@"
