#!/usr/bin/env bash
# bench/http-rate-vs-wrk2.sh: teebench http -R beside wrk2 -R, the same flags against
# the same nginx (one worker, pinned to CPU 0; clients on CPU 1), to show what wrk2's
# whole-millisecond pacing adds to its corrected latency. wrk2 is not packaged by
# Debian: build it yourself and pass its path in WRK2.
#
# Both run -t1 -c10 -R RATE for DURATION + 10 s: wrk2 resets its histograms after
# a 10 s calibration, so the first 10 s of teebench's run are left out too (a
# separate 10 s warm-up run first) and both report DURATION of steady load.
#
# usage: WRK2=/path/to/wrk2 bench/http-rate-vs-wrk2.sh [--rate 1000] [--duration 10]
set -euo pipefail
cd "$(dirname "$0")/.."
TB=${TEEBENCH:-build/teebench}
rate=1000 duration=10
while [ $# -gt 0 ]; do
  case $1 in
  --rate) rate=$2; shift 2 ;;
  --duration) duration=$2; shift 2 ;;
  -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "http-rate-vs-wrk2: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "${WRK2:-}" ] || { echo "http-rate-vs-wrk2: set WRK2 to a wrk2 binary" >&2; exit 1; }
WORK=$(mktemp -d /tmp/tb-bench-wrk2.XXXXXX)
chmod 755 "$WORK"
trap '"$TB" nginx stop --dir "$WORK/nginx" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
taskset -c 0 "$TB" nginx start --port "$port" --dir "$WORK/nginx" --workers 1 >/dev/null
url="http://127.0.0.1:$port/"
taskset -c 1 "$WRK2" -t1 -c10 -d$((duration + 10))s -R "$rate" --latency "$url" >"$WORK/wrk2.out"
taskset -c 1 "$TB" http -t1 -c10 -d10s -R "$rate" "$url" >/dev/null # warm-up, as wrk2's calibration
taskset -c 1 "$TB" http -t1 -c10 -d"${duration}s" -R "$rate" --latency "$url" >"$WORK/tb.out"
row() { # file percentile
  awk -v p="$2" '$1 == p {print $2}' "$1"
}
printf "%-10s %12s %12s\n" "corrected" "wrk2" "teebench"
for p in 50.000% 75.000% 90.000% 99.000% 99.900% 100.000%; do
  printf "%-10s %12s %12s\n" "$p" "$(row "$WORK/wrk2.out" "$p")" "$(row "$WORK/tb.out" "$p")"
done
grep -h "requests in" "$WORK/wrk2.out" "$WORK/tb.out" | sed 's/^/  /'
