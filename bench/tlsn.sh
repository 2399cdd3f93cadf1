#!/usr/bin/env bash
# The real TLSNotary protocol's cost, with and without the TEE message: one
# `teebench bench tlsn` run (tlsn-wasm in two headless Chromium processes, the
# fixture target, the three modes), then per mode and phase the median with a 95 %
# interval of the median (the order statistics around it, binomial; with fewer than
# 6 runs the interval is the range, and said so), CPU per session (both parties) and
# peak memory (the larger party), bytes each way, and each TEE mode's paired overhead.
#
#   bench/tlsn.sh                   # 5 iterations x 3 modes, 2 threads per party
#   ITERATIONS=25 THREADS=2 bench/tlsn.sh
#
# Environment: ITERATIONS (5), THREADS (2), TEEBENCH (build/teebench), TLSN_WASM
# (the package; default: where scripts/setup.sh --tlsn puts it). The headline says
# what ran: tlsn-wasm's version, the threads per party, and that it ran in Chromium's
# WebAssembly -- a native Rust prover and notary are faster; where one is at hand,
# `teebench bench notary --client-cmd` times it. A session takes about a minute of both
# cores: run it on a quiet machine (other load inflates every phase). Exit 0 when the
# run completed, 1 when the harness failed.
set -euo pipefail
cd "$(dirname "$0")/.."
TB=${TEEBENCH:-build/teebench}
ITERATIONS=${ITERATIONS:-5}
THREADS=${THREADS:-2}
out=$(mktemp -d /tmp/tb-bench-tlsn.XXXXXX)
trap 'rm -rf "$out"' EXIT
extra=()
if [ -n "${TLSN_WASM:-}" ]; then extra+=(--wasm "$TLSN_WASM"); fi
start=$(date +%s)
rc=0
"$TB" bench tlsn --iterations "$ITERATIONS" --threads "$THREADS" --fixture-port 0 \
  --results-dir "$out/run" "${extra[@]}" >"$out/log" 2>&1 || rc=$?
end=$(date +%s)
if [ ! -f "$out/run/phases.csv" ]; then
  cat "$out/log" >&2
  echo "bench/tlsn.sh: the harness failed (exit $rc)" >&2
  exit 1
fi
python3 - "$out/run" "$THREADS" "$((end - start))" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import csv, json, math, statistics as st, sys
d, threads, wall, ncpu, load = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
res = {(r["mode"], r["iteration"]): r for r in csv.DictReader(open(d + "/results.csv"))}
ph = [r for r in csv.DictReader(open(d + "/phases.csv")) if r["exit_code"] == "0"]
tee = json.load(open(d + "/run.json")).get("notary_tee", "?")
sim = " (SIMULATED TEE: quotes from a software provider)" if tee == "sim" else ""
print("tlsn-wasm 0.1.0-alpha.12 in Chromium's WebAssembly, %d threads per party, %d CPUs "
      "(load %s at the end); TEE message: %s%s" % (threads, ncpu, load, tee, sim))
print("(a native Rust prover and notary are faster; `bench notary --client-cmd` times one)")
print("%d successful sessions of %d in %d s; fixture root substituted in the wasm's trust store"
      % (len(ph), len(res), wall))

def median_ci(x):
    """median and a 95 % distribution-free interval (order statistics)."""
    x = sorted(x)
    n = len(x)
    m = st.median(x)
    if n < 6:
        return m, x[0], x[-1], "range"
    # the largest k with P(Binomial(n, 1/2) < k) <= 2.5 %
    c, k = 0.0, 0
    for j in range(n + 1):
        p = math.comb(n, j) / 2 ** n
        if c + p > 0.025:
            break
        c += p
        k = j + 1
    return m, x[k - 1] if k else x[0], x[n - k] if k else x[-1], "95% CI"

modes = [m for m in ("no_tee", "tee_no_verify", "tee_verify") if any(r["mode"] == m for r in ph)]
cols = [("notarization_ms", "ms", "notarization (both parties done; TEE: + the quote)"),
        ("setup_ms", "ms", "prover: MPC setup"), ("request_ms", "ms", "prover: MPC-TLS request"),
        ("reveal_ms", "ms", "prover: reveal + finalize"), ("verify_ms", "ms", "verifier: verify()"),
        ("tee_ms", "ms", "prover: reveal end to the quote's arrival"),
        ("quote_ms", "ms", "the quote (teebench)"), ("tdx_verify_ms", "ms", "its check (teebench)"),
        ("cpu_ms", "s", "CPU per session, both parties"), ("peak_mib", "MiB", "peak RSS, larger party"),
        ("bytes_prover_to_verifier", "MB", "prover -> verifier"),
        ("bytes_verifier_to_prover", "MB", "verifier -> prover")]
def val(r, c):
    if c == "notarization_ms":
        v = res[(r["mode"], r["iteration"])]["notarization_ms"]
        return float(v) if v else None
    if c == "cpu_ms":
        return (float(r["prover_cpu_ms"]) + float(r["verifier_cpu_ms"])) / 1000
    if c == "peak_mib":
        return max(float(r["prover_peak_rss_mib"]), float(r["verifier_peak_rss_mib"]))
    if not r.get(c):
        return None
    v = float(r[c])
    return v / 1e6 if c.startswith("bytes") else v
for m in modes:
    rows = [r for r in ph if r["mode"] == m]
    print("\n%s (%d sessions)%s" % (m, len(rows), sim if m != "no_tee" else ""))
    for c, unit, what in cols:
        x = [v for v in (val(r, c) for r in rows) if v is not None]
        if not x:
            continue
        med, lo, hi, kind = median_ci(x)
        print("  %-46s median %11.3f %-3s  %s [%.3f, %.3f]" % (what, med, unit, kind, lo, hi))
base = {r["iteration"]: val(r, "notarization_ms") for r in ph if r["mode"] == "no_tee"}
for m in modes[1:]:
    d2 = []
    for r in ph:
        if r["mode"] == m and r["iteration"] in base:
            v = val(r, "notarization_ms") + (float(r["tdx_verify_ms"]) if r.get("tdx_verify_ms") else 0)
            d2.append(v - base[r["iteration"]])
    if d2:
        med, lo, hi, kind = median_ci(d2)
        b = st.median(base.values())
        print("\n%s - no_tee, paired by iteration%s: median %+.1f ms (%+.2f %% of no_tee's median), %s [%+.1f, %+.1f] ms%s"
              % (m, " (+ tdx_verify_ms)" if m == "tee_verify" else "", med, 100 * med / b, kind, lo, hi, sim))
PY
