#!/usr/bin/env bash
# e2e (slow: the release stage only): the real TLSNotary protocol, one session of mode
# tee_verify by default (the one that runs everything: MPC-TLS, verify(), the quote on the
# TEE channel and its check) or one per mode with TEEBENCH_TLSN_MODES=all (or a list:
# "no_tee tee_verify"), sized to what it carries (--max-sent-data 1024 --max-recv-data
# 6144: the MPC's setup grows with those limits, used or not -- 39 s a session instead of
# 4 minutes with the 4 KiB / 16 KiB defaults on a loaded 2-core machine, and make test
# must stay under 20) -- `teebench bench tlsn --iterations 1` with tlsn-wasm in
# two headless Chromium processes
# (2 threads per party), against the fixture target test-server.io (the fixture root
# substituted in the wasm's trust store). Checks: every session succeeded; the
# verifier's verify() output names test-server.io and what it verified it received is
# the fixture's response, body and all (fetched here with curl for comparison); the TEE
# modes' quote is SIMULATED and labelled so, and in tee_verify teebench's verifier
# accepted it against this session's REPORTDATA (a quote of another session is refused:
# unit test test_tlsn_tee); results.csv and phases.csv have a row per mode run, bytes
# both ways, CPU and memory; bench summarize and results import read the run directory
# (with no_tee and a TEE mode: the paired overhead); no Chromium is left running.
source "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || skip "chromium not installed (scripts/setup.sh --tlsn)"
PKG=${TEEBENCH_TLSN_WASM:-/var/cache/teebench/tlsn-wasm/0.1.0-alpha.12/package}
[ -f "$PKG/tlsn_wasm_bg.wasm" ] || skip "tlsn-wasm not installed in $PKG (scripts/setup.sh --tlsn)"
if [ -n "${TEEBENCH_SANITIZER:-}" ]; then skip "the release stage runs it"; fi

MODES=${TEEBENCH_TLSN_MODES:-tee_verify}
[ "$MODES" = all ] && MODES="no_tee tee_no_verify tee_verify"
for m in $MODES; do
  case $m in no_tee | tee_no_verify | tee_verify) ;; *) fail "TEEBENCH_TLSN_MODES: no mode $m" ;; esac
done
has() { case " $MODES " in *" $1 "*) return 0 ;; esac; return 1; }

t0=$(date +%s)
rc=0
"$TB" bench tlsn --iterations 1 --threads 2 --tee sim --wasm "$PKG" --fixture-port 0 \
  --max-sent-data 1024 --max-recv-data 6144 \
  --benchmark-modes "$MODES" --results-dir "$WORK/run" >"$WORK/out" 2>"$WORK/err" || rc=$?
t1=$(date +%s)
[ "$rc" -eq 0 ] || fail "bench tlsn exit $rc: $(tail -5 "$WORK/err") $(tail -3 "$WORK"/run/logs/*.stderr.log)"
echo "bench tlsn: $(echo $MODES | wc -w) session(s) ($MODES) in $((t1 - t0)) s"

# ---- results.csv: the source script's columns; phases.csv beside it
head -1 "$WORK/run/results.csv" | grep -qx 'mode,iteration,enable_tee,verify_attestation,exit_code,notarization_ms,total_e2e_ms,tdx_verify_ms,notarization_plus_verify_ms,wall_ms,stdout_log,stderr_log' ||
  fail "results.csv header"
python3 - "$WORK/run" "$MODES" <<'PY' || fail "results.csv / phases.csv"
import csv, sys
d, modes = sys.argv[1], set(sys.argv[2].split())
rows = {r["mode"]: r for r in csv.DictReader(open(d + "/results.csv"))}
assert set(rows) == modes, rows
for m, r in rows.items():
    assert r["exit_code"] == "0", (m, r)
    assert float(r["notarization_ms"]) > 1000, (m, r)
    assert (r["tdx_verify_ms"] != "") == (m == "tee_verify"), (m, r)
if "tee_verify" in rows:
    assert float(rows["tee_verify"]["tdx_verify_ms"]) > 0
ph = {r["mode"]: r for r in csv.DictReader(open(d + "/phases.csv"))}
assert set(ph) == modes, ph
for m, r in ph.items():
    for k in ("setup_ms", "request_ms", "reveal_ms", "verify_ms", "prover_cpu_ms",
              "verifier_cpu_ms", "prover_peak_rss_mib", "verifier_peak_rss_mib"):
        assert float(r[k]) > 0, (m, k, r)
    # MPC: tens of MB one way, a few MB back; the TLS bytes through the proxy
    assert int(r["bytes_prover_to_verifier"]) > 10_000_000, r
    assert int(r["bytes_verifier_to_prover"]) > 100_000, r
    assert int(r["bytes_from_target"]) > 3000, r
    assert (int(r["bytes_tee_channel"]) > 1000) == (m != "no_tee"), (m, r)
if "tee_verify" in ph:
    assert float(ph["tee_verify"]["tdx_verify_ms"]) > 0
PY
pass "one session per mode ($MODES): results.csv and phases.csv"

# ---- what the verifier verified: test-server.io and the fixture's response
ca=$WORK/run/pki/ca.pem
port=$(grep -o 'on 127.0.0.1:[0-9]*' "$WORK/out" | head -1 | cut -d: -f2)
for m in $MODES; do
  log=$WORK/run/logs/$m-1.stdout.log
  grep -qx 'VERIFIED_SERVER_NAME=test-server.io' "$log" || fail "$m: verifier's server name: $(cat "$log")"
  grep -qx "TRUST_NOTE=\"fixture root substituted in the wasm's trust store\"" "$log" || fail "$m: no trust note"
  grep -qx 'TLSN_WASM_VERSION=0.1.0-alpha.12' "$log" || fail "$m: version"
  sed -n 's/^VERIFIED_RECV_BASE64=//p' "$log" | base64 -d >"$WORK/$m.recv"
  grep -q $'^HTTP/1.1 200 OK\r$' "$WORK/$m.recv" || fail "$m: verified response: $(head -c 300 "$WORK/$m.recv")"
done
for m in $MODES; do
  [ "$m" = no_tee ] && continue
  grep -qx 'TEE_KIND=sim (SIMULATED)' "$WORK/run/logs/$m-1.stdout.log" || fail "$m: the quote is not labelled SIMULATED"
done
# the fixture's body, fetched now from the fixture server the harness has stopped: serve again
spawn "$TB" serve --tls --pki "$WORK/run/pki" --port "${port:-0}"
wait_port "$port"
curl -s --cacert "$ca" --resolve "test-server.io:$port:127.0.0.1" \
  "https://test-server.io:$port/formats/json?size=4" -o "$WORK/body"
[ "$(wc -c <"$WORK/body")" -gt 3000 ] || fail "fixture body"
first=${MODES%% *}
python3 - "$WORK/body" "$WORK/$first.recv" <<'PY' || fail "the verified transcript lacks the fixture's body"
import sys
body, recv = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
assert recv.endswith(body) and b"\r\n\r\n" + body in recv, (len(body), len(recv))
PY
pass "verify() names test-server.io and its transcript is the fixture's response"

# ---- the harness's other readers
"$TB" bench summarize "$WORK/run" >"$WORK/summary" || fail "bench summarize"
if [ "$MODES" != no_tee ]; then grep -q "SIMULATED TEE" "$WORK/summary" || fail "summary: SIMULATED label"; fi
for m in $MODES; do
  grep -q "^$m: runs=1 " "$WORK/summary" || fail "summary: $m: $(cat "$WORK/summary")"
done
"$TB" bench summarize --json "$WORK/run" | python3 -c 'import json,sys; json.load(sys.stdin)' || fail "summary --json"
TEEBENCH_DB=$WORK/db "$TB" results import "$WORK/run" >"$WORK/imp" || fail "results import"
id=$(awk '{print $2}' "$WORK/imp")
TEEBENCH_DB=$WORK/db "$TB" results show "$id" >"$WORK/show" || fail "results show"
want="tlsn.${first}.setup_ms tlsn.${first}.notarization_ms"
has tee_verify && want="$want tlsn.tee_verify.verify_ms"
has no_tee && has tee_no_verify && want="$want tlsn.tee_no_verify.overhead_ms"
has no_tee && has tee_verify && want="$want tlsn.tee_verify.overhead_ms"
for m in $want; do
  grep -q "^$m " "$WORK/show" || fail "import: no $m: $(cat "$WORK/show")"
done
grep -q "phases (median" "$WORK/out" || fail "bench tlsn prints the phases"
if pgrep -f "user-data-dir=$WORK" >/dev/null; then fail "a Chromium outlived its session"; fi
pass "bench summarize, results import; no Chromium left"
