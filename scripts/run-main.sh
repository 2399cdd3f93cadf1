#!/usr/bin/env bash
# The main job (`make run`): measures this machine with the quick profile's workloads
# (`teebench suite run --profile quick`; storage, kv, memory, network and tlsn need
# tools and minutes, and run with --profile standard or --workloads), stores the run in the results store, compares it with
# the previous run stored on this machine, verifies the real TDX quotes of testdata,
# and ends by writing one HTML report of the stored runs: its path is the last line.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's tools first (setup.sh installed them; a version manager's python3 shim is slow)
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
TB=build/teebench
echo "teebench main job on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"

echo
echo "== teebench env: what this machine is"
"$TB" env

echo
echo "== teebench suite run --profile quick: syscall, probe, http on nginx and on teebench"
echo "   serve over HTTPS, attest, the notary's three modes; 3 rounds, stored (storage, kv,"
echo "   memory, network and tlsn: --profile standard, or --workloads)"
rdir=results/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$rdir"
rc=0
"$TB" suite run --profile quick -o "$rdir/result.json" --progress plain || rc=$?
[ $rc -eq 0 ] || echo "(teebench suite exited $rc: see the lines above)"
[ -s "$rdir/result.json" ] || { echo "teebench suite wrote no result" >&2; exit 1; }
this=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$rdir/result.json")
# the run stored on this machine before this one (oldest first in the list)
prev=$("$TB" results list --json | python3 -c '
import json, sys
runs = json.load(sys.stdin); this = sys.argv[1]
ids = [r["id"] for r in runs]
i = ids.index(this) if this in ids else len(ids)
print(ids[i - 1] if i > 0 else "")' "$this")

echo
if [ -n "$prev" ]; then
  echo "== teebench compare: the previous run stored on this machine (baseline) vs this one"
  "$TB" compare "$prev" "$this"
else
  echo "== teebench compare: no earlier run stored on this machine yet (run make run again"
  echo "   to compare two runs); this run alone:"
  "$TB" compare "$this"
fi
echo
echo "== teebench attest: the real TDX quotes of testdata, verified at their times (exit 0 accepted,"
echo "   3 valid but refused by the default policy, 4 invalid, 5 collateral expired: each case's"
echo "   expectation is in its case.json)"
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
echo "== teebench attest: an AMD SEV-SNP report of testdata (virtee/sev's Milan vector), verified"
echo "   with its certificates at a time inside their validity"
snp=$(mktemp -d)
cp testdata/snp/ark_milan.pem "$snp/ark.pem"
cp testdata/snp/ask_milan.pem "$snp/ask.pem"
cp testdata/snp/vcek_milan.der "$snp/vcek.der"
rc=0
"$TB" attest verify testdata/snp/report_milan.hex --certs "$snp" --now 1700000000 2>&1 || rc=$?
echo "(exit $rc)"
rm -rf "$snp"


echo
echo "== teebench report: one page of the runs this job compared"
"$TB" report ${prev:+"$prev"} "$this" -o "$rdir/report.html" --title "teebench: $(hostname)"
echo "report: $PWD/$rdir/report.html"
