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
