#!/bin/sh
# The long soak of `kubesim serve` (issue 32's full sizes; CI runs tests/api/soak_test.py's
# short version): 4,200 slow-body connections, half with the bearer token, and 300 watchers
# of a 2.9 MiB pod. Usage: scripts/soak-long.sh [build/kubesim]
set -e
here=$(dirname "$0")
exec python3 "$here/../tests/api/soak_test.py" "${1:-build/kubesim}" --slow-bodies 4200 --watchers 300 --large-pod-mib 2.9
