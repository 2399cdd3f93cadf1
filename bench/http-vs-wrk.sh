#!/usr/bin/env bash
# bench/http-vs-wrk.sh: teebench http against wrk, measured in the same run.
#
# The server (nginx with one worker via `teebench nginx start`, or `teebench
# serve -t1`) is pinned to CPU 0, the client to CPU 1. wrk and teebench http run
# alternately with the same flags (default -t1 -c50 -d10s, 3 rounds each). For
# each run: requests/sec, and client CPU time per request = (user + sys time of
# the client process, from getrusage of the child) / requests completed.
# Targets: requests/sec ratio teebench/wrk >= 1.0; CPU per request ratio <= 0.8.
# With --target both it also measures teebench serve against nginx under the
# same client (target: serve/nginx >= 1.0 for /).
#
# --script FILE runs both clients with the same wrk Lua script (-s FILE);
# bench/http-lua-vs-wrk.sh uses it to price a request() hook.
#
# usage: bench/http-vs-wrk.sh [--target nginx|serve|both] [--rounds N]
#                             [--duration 10s] [--connections 50] [--path /]
#                             [--script FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
TB=${TEEBENCH:-build/teebench}
target=nginx rounds=3 duration=10s conns=50 path=/ script=()
while [ $# -gt 0 ]; do
  case $1 in
  --target) target=$2; shift 2 ;;
  --rounds) rounds=$2; shift 2 ;;
  --duration) duration=$2; shift 2 ;;
  --connections) conns=$2; shift 2 ;;
  --path) path=$2; shift 2 ;;
  --script) script=(-s "$(realpath "$2")"); shift 2 ;;
  -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
  *) echo "http-vs-wrk: unknown option $1" >&2; exit 2 ;;
  esac
done
case $target in nginx | serve | both) ;; *) echo "http-vs-wrk: --target nginx|serve|both" >&2; exit 2 ;; esac
command -v wrk >/dev/null || { echo "http-vs-wrk: wrk is not installed" >&2; exit 1; }
[ -x "$TB" ] || { echo "http-vs-wrk: $TB not built (run make)" >&2; exit 1; }
ncpu=$(nproc)
srv_cpu=0 cli_cpu=$((ncpu > 1 ? 1 : 0))
[ "$ncpu" -gt 1 ] || echo "warning: one CPU only: server and client share it" >&2

WORK=$(mktemp -d /tmp/tb-bench-http.XXXXXX)
chmod 755 "$WORK"
SERVE_PID=
cleanup() {
  "$TB" nginx stop --dir "$WORK/nginx" >/dev/null 2>&1 || true
  [ -n "$SERVE_PID" ] && kill -TERM "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# run_client NAME CMD...: runs the client pinned to cli_cpu; prints "reqs rps cpu_s".
run_client() {
  local out=$WORK/client.out
  shift
  python3 - "$out" taskset -c "$cli_cpu" "$@" <<'PY'
import resource, subprocess, sys
out = sys.argv[1]
with open(out, "w") as f:
    rc = subprocess.run(sys.argv[2:], stdout=f).returncode
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
reqs = rps = None
for line in open(out):
    w = line.split()
    if "requests in" in line: reqs = int(w[0])
    if line.startswith("Requests/sec:"): rps = float(w[1])
if rc != 0 or reqs is None or rps is None:
    sys.exit("client failed (exit %d): %s" % (rc, open(out).read()))
print(reqs, rps, ru.ru_utime + ru.ru_stime)
PY
}

start_server() { # nginx|serve -> sets URL
  local port
  port=$(free_port)
  if [ "$1" = nginx ]; then
    taskset -c "$srv_cpu" "$TB" nginx start --port "$port" --dir "$WORK/nginx" --workers 1 >/dev/null
    local pid
    pid=$(cat "$WORK/nginx/nginx.pid")
    for p in $pid $(pgrep -P "$pid"); do taskset -pc "$srv_cpu" "$p" >/dev/null; done
  else
    taskset -c "$srv_cpu" "$TB" serve --port "$port" -t1 >"$WORK/serve.out" 2>&1 &
    SERVE_PID=$!
    for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.05; done
  fi
  URL="http://127.0.0.1:$port$path"
}

stop_server() {
  if [ "$1" = nginx ]; then
    "$TB" nginx stop --dir "$WORK/nginx" >/dev/null
  else
    kill -TERM "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true; SERVE_PID=
  fi
}

# bench_against SERVER: alternating rounds; prints per-round lines and a summary;
# leaves the medians in MED_WRK_RPS MED_TB_RPS MED_WRK_CPU MED_TB_CPU.
bench_against() {
  local srv=$1 i w t
  start_server "$srv"
  echo "== $srv ($URL): server on CPU $srv_cpu, client on CPU $cli_cpu, -t1 -c$conns -d$duration ${script[*]}, $rounds rounds"
  : >"$WORK/rows"
  for i in $(seq "$rounds"); do
    w=$(run_client wrk wrk -t1 -c"$conns" -d"$duration" "${script[@]}" "$URL")
    t=$(run_client tb "$TB" http -t1 -c"$conns" -d"$duration" "${script[@]}" "$URL")
    echo "$w $t" >>"$WORK/rows"
    echo "$i $w $t" | awk '{printf "round %d: wrk %10.2f req/s  %6.2f us CPU/req | teebench %10.2f req/s  %6.2f us CPU/req\n", $1, $3, $4/$2*1e6, $6, $7/$5*1e6}'
  done
  stop_server "$srv"
  read -r MED_WRK_RPS MED_TB_RPS MED_WRK_CPU MED_TB_CPU < <(python3 - "$WORK/rows" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
m = statistics.median
print(m(r[1] for r in rows), m(r[4] for r in rows),
      m(r[2] / r[0] * 1e6 for r in rows), m(r[5] / r[3] * 1e6 for r in rows))
PY
)
  awk -v a="$MED_WRK_RPS" -v b="$MED_TB_RPS" -v c="$MED_WRK_CPU" -v d="$MED_TB_CPU" 'BEGIN {
    printf "median requests/sec: wrk %.2f, teebench %.2f, ratio teebench/wrk %.3f (target >= 1.0)\n", a, b, b / a
    printf "median client CPU per request: wrk %.2f us, teebench %.2f us, ratio %.3f (target <= 0.8)\n", c, d, d / c }'
}

case $target in
nginx) bench_against nginx ;;
serve) bench_against serve ;;
both)
  bench_against nginx
  ng_tb=$MED_TB_RPS ng_wrk=$MED_WRK_RPS
  bench_against serve
  awk -v a="$ng_tb" -v b="$MED_TB_RPS" -v c="$ng_wrk" -v d="$MED_WRK_RPS" 'BEGIN {
    printf "serve vs nginx (%s): %.2f vs %.2f req/s under teebench http, ratio %.3f; under wrk %.3f (target >= 1.0)\n", "'"$path"'", b, a, b / a, d / c }'
  ;;
esac
