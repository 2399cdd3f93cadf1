#!/usr/bin/env bash
# The main job (`make run`): measures this machine. Each later stage appends here.
set -euo pipefail
cd "$(dirname "$0")/.."
TB=build/teebench
echo "teebench main job on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"

echo
echo "== teebench env: what this machine is"
"$TB" env
echo
echo "== teebench syscall: UnixBench System Call Overhead (short: 3 passes of 2 s; UnixBench's own is 10 x 10 s)"
"$TB" syscall --duration 2 --passes 3
echo
echo "== teebench probe: where a confidential VM pays (ns per operation)"
"$TB" probe
echo
echo "== teebench http against nginx (one worker, loopback): a short wrk-style run"
ngdir=$(mktemp -d /tmp/tb-run-nginx.XXXXXX)
chmod 755 "$ngdir"
ngport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$TB" nginx start --port "$ngport" --dir "$ngdir/nginx" --workers 1
trap '"$TB" nginx stop --dir "$ngdir/nginx" >/dev/null 2>&1 || true; rm -rf "$ngdir"' EXIT
"$TB" http -t1 -c50 -d5s --latency --server-log "$ngdir/nginx/access.log" "http://127.0.0.1:$ngport/"
"$TB" nginx stop --dir "$ngdir/nginx"
