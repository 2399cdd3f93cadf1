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
rm -rf "$ngdir"
trap - EXIT

echo
echo "== teebench http against teebench serve over HTTPS (fixture PKI, SNI test-server.io): a short run"
svdir=$(mktemp -d /tmp/tb-run-serve.XXXXXX)
svport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$TB" serve --gen-pki "$svdir/pki"
"$TB" serve --tls --pki "$svdir/pki" --port "$svport" >"$svdir/serve.out" &
svpid=$!
# (also does what the nginx step's trap did: remove its directory)
trap 'kill -TERM '"$svpid"' 2>/dev/null || true; rm -rf "'"$svdir"'" "${ngdir:-}"' EXIT
for _ in $(seq 100); do grep -q '^listening' "$svdir/serve.out" && break; sleep 0.05; done
"$TB" http -t1 -c20 -d3s --cacert "$svdir/pki/ca.pem" --connect "127.0.0.1:$svport" \
  "https://test-server.io:$svport/formats/json?size=4"
kill -TERM "$svpid"
wait "$svpid" || true
echo "teebench serve's own count:"
cat "$svdir/serve.out"
rm -rf "$svdir" "${ngdir:-}"
trap - EXIT
echo
echo "== teebench bench notary: \"TEE vs No TEE\" notarization benchmark (5 iterations x 3 modes;"
echo "   local fixture server and notary, SIMULATED TEE unless this is a TDX guest)"
"$TB" bench notary --iterations 5 --fixture-port 0 --results-dir benchmark-results \
  || echo "(teebench bench notary exited $?: see the failed runs above)"

echo
echo "== teebench attest: the real TDX quotes of testdata, verified at their times (exit 0 accepted,"
echo "   3 valid but refused by the default policy, 4 invalid: each case's expectation is in its case.json)"
for d in testdata/tdx/*/; do
  d=${d%/}
  now=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['now'])" "$d/case.json")
  rc=0
  "$TB" attest verify "$d/quote.bin" --collateral "$d/collateral.json" --now "$now" 2>&1 || rc=$?
  echo "(exit $rc; expected: $(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['expect'])" "$d/case.json"))"
  "$TB" attest bench "$d/quote.bin" --collateral "$d/collateral.json" --now "$now" --iterations 500
  echo
done
echo "(bench/attest-verify.sh compares these times with @phala/dcap-qvl; it installs the peer with npm)"

echo
echo "== teebench report: one page of the runs this job stored"
# The job's runs are stored as result files in results/<UTC stamp>/ (by teebench suite,
# where this build has it: the quick profile); the page goes beside them, and its path
# is the job's last line.
rdir=results/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$rdir"
if "$TB" suite plan --profile quick >/dev/null 2>&1; then
  "$TB" suite run --profile quick -o "$rdir/result.json" --progress plain ||
    echo "(teebench suite exited $?)"
fi
if compgen -G "$rdir/*.json" >/dev/null; then
  "$TB" report "$rdir"/*.json -o "$rdir/report.html" --title "teebench report: $(hostname)"
  echo "report: $PWD/$rdir/report.html"
else
  echo "(no stored run to report: this build has no teebench suite)"
fi
