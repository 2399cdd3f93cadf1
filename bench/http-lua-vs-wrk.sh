#!/usr/bin/env bash
# bench/http-lua-vs-wrk.sh: what a Lua request() hook costs per request, in
# teebench http and in wrk, measured in the same run.
#
# Runs bench/http-vs-wrk.sh twice against the same kind of server: without a
# script, then with bench/lua/request.lua (request() returns wrk.format() each
# time). The hook's cost per request of each client = its median client CPU time
# per request with the script minus without. Both run wrk's model: one Lua state
# per thread, the hook called before every request.
#
# usage: bench/http-lua-vs-wrk.sh [--target nginx|serve] [--rounds N] [--duration 10s]
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
while [ $# -gt 0 ]; do
  case $1 in
  --target | --rounds | --duration) args+=("$1" "$2"); shift 2 ;;
  -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "http-lua-vs-wrk: unknown option $1" >&2; exit 2 ;;
  esac
done
out=$(mktemp /tmp/tb-bench-lua.XXXXXX)
trap 'rm -f "$out"' EXIT
echo "--- without a script"
bench/http-vs-wrk.sh "${args[@]}" | tee "$out.plain"
echo "--- with bench/lua/request.lua"
bench/http-vs-wrk.sh "${args[@]}" --script bench/lua/request.lua | tee "$out.lua"
cpu() { awk '/median client CPU per request/ {gsub(",", ""); print $7, $10}' "$1"; }
read -r wp tp < <(cpu "$out.plain")
read -r wl tl < <(cpu "$out.lua")
rm -f "$out.plain" "$out.lua"
awk -v wp="$wp" -v tp="$tp" -v wl="$wl" -v tl="$tl" 'BEGIN {
  printf "request() hook, client CPU per request: wrk %.2f us (%.2f -> %.2f), teebench %.2f us (%.2f -> %.2f), ratio teebench/wrk %.2f\n",
    wl - wp, wp, wl, tl - tp, tp, tl, (tl - tp) / (wl - wp) }'
