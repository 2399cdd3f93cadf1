#!/usr/bin/env bash
# The suite's speed targets (issue 8), measured on this machine:
#   whole `suite run --profile quick`                    <= 90 s on 2 cores
#   whole `suite run --profile standard` (with --standard) <= 10 min
#   the suite adds no load to a workload: http.serve-tls.rps measured by the suite vs
#   the same load run alone (`teebench serve --tls` + `teebench http`, same flags),
#   ratio ~ 1.00 (within the noise of the machine)
#
#   bench/suite.sh              # quick + the overhead check
#   bench/suite.sh --standard   # also the standard profile (~6 min)
#
# Environment: TEEBENCH (default build/teebench), ROUNDS (overhead check, default 3).
# Nothing is stored (--no-store). The machine must be quiet: on a loaded machine the
# times are upper bounds and the ratio is noisy. Exit 0 when every run completed.
set -euo pipefail
cd "$(dirname "$0")/.."
TB=${TEEBENCH:-build/teebench}
ROUNDS=${ROUNDS:-3}
out=$(mktemp -d /tmp/tb-bench-suite.XXXXXX)
srv=
cleanup() {
  [ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
  rm -rf "$out"
}
trap cleanup EXIT

timed() { # timed NAME TARGET_S ARGS...: runs the suite, prints its wall time vs the target
  local name=$1 target=$2 t0 t1
  shift 2
  t0=$(date +%s.%N)
  "$TB" suite run "$@" --no-store -o "$out/$name.json" --progress none >/dev/null 2>"$out/$name.err" || {
    cat "$out/$name.err" >&2
    echo "bench/suite.sh: suite run $* failed" >&2
    exit 1
  }
  t1=$(date +%s.%N)
  python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); t=float(sys.argv[3]); \
print('%-28s %7.1f s  (target <= %.0f s: %s)' % (sys.argv[4], s, t, 'ok' if s <= t else 'MISSED'))" \
    "$t0" "$t1" "$target" "$name"
}

timed "profile quick" 90 --profile quick
if [ "${1:-}" = --standard ]; then
  timed "profile standard" 600 --profile standard
fi

# Overhead: the suite's http.serve-tls.rps vs the same load run alone.
"$TB" suite run --profile quick --workloads http --set http.targets=serve-tls \
  --set http.duration=3s --set http.warmup=0.5s --repeat "$ROUNDS" --no-store \
  -o "$out/http.json" --progress none >/dev/null 2>"$out/http.err" || { cat "$out/http.err" >&2; exit 1; }
"$TB" serve --gen-pki "$out/pki" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
threads=$(nproc)
"$TB" serve --tls --pki "$out/pki" --port "$port" --threads "$threads" >/dev/null 2>&1 &
srv=$!
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.05; done
"$TB" http -t2 -c50 -d500ms --cacert "$out/pki/ca.pem" --server-name test-server.io \
  "https://127.0.0.1:$port/" >/dev/null
for i in $(seq "$ROUNDS"); do
  "$TB" http -t2 -c50 -d3s --json --cacert "$out/pki/ca.pem" --server-name test-server.io \
    "https://127.0.0.1:$port/" >"$out/alone-$i.json"
done
python3 - "$out/http.json" "$out"/alone-*.json <<'PY'
import json, statistics as st, sys
suite = [m for m in json.load(open(sys.argv[1]))["metrics"] if m["name"] == "http.serve-tls.rps"][0]["samples"]
alone = [json.load(open(f))["requests"]["per_second"] for f in sys.argv[2:]]
s, a = st.median(suite), st.median(alone)
print("http.serve-tls.rps in the suite %10.0f req/s (median of %d)" % (s, len(suite)))
print("the same load run alone         %10.0f req/s (median of %d)" % (a, len(alone)))
print("ratio suite / alone             %10.3f  (target ~1.00: the suite adds no load)" % (s / a))
PY
