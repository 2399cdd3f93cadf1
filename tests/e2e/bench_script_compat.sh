#!/usr/bin/env bash
# `teebench bench notary` as a drop-in for the source document's
# benchmark-tee-impact.sh (fake client, no servers; a few seconds):
# - summary.txt starts with the script's own summary section, key for key, with
#   figures recomputed here in python3;
# - results.csv: enable_tee/verify_attestation 0/1, log paths as the script writes
#   them (RESULTS_DIR as given), the client sees ENABLE_TEE_ATTESTATION=0/1;
# - RESULTS_DIR is the run directory itself (an existing results.csv is refused);
# - success = exit 0 + NOTARIZATION_MS: a tee_verify run without TDX_VERIFY_MS
#   counts and is FLAGGED; no retries by default;
# - TARGET_HOST defaults to FIXTURE_ADDR;
# - timeout: exit 124, "benchmark runner: timed out after 3s" at the end of the
#   run's stderr log, the client's process group gone;
# - a busy fixed fixture port fails before the run directory exists, with the hint;
# - --json of both commands: the common envelope, with the script's figures.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_bench.sh"
mkdir -p "$WORK/state"
export FAKE_STATE_DIR=$WORK/state

# 3 iterations; tee_verify 2 reports no TDX_VERIFY_MS; no_tee 3 hangs past the 3 s (3 s: an honest run of the fake client, even under ASan on a busy machine, never comes near it)
# timeout. FIXTURE_ADDR=127.0.0.2 (no TARGET_HOST): the client's target follows it.
FIXTURE_ADDR=127.0.0.2 FAKE_PLAN="tee_verify:2=noverify no_tee:3=hang" \
  bench_fake "$WORK/run" --iterations 3 --run-timeout-seconds 3
[ "$BENCH_RC" -eq 1 ] || fail "a timed-out run fails the harness (exit 1), got $BENCH_RC: $(cat "$WORK/bench.err")"
grep -q 'no retries: RETRIES=0' "$WORK/bench.err" || fail "error line: $(cat "$WORK/bench.err")"
[ -f "$WORK/run/results.csv" ] && [ -f "$WORK/run/summary.txt" ] || fail "RESULTS_DIR is not the run directory: $(ls -R "$WORK/run" | head)"
csv=$WORK/run/results.csv
[ "$(tail -n +2 "$WORK/run/retries.csv" | wc -l)" -eq 0 ] || fail "RETRIES defaults to 0"

# CSV: 0/1 flags, exit codes, log paths as the script writes them.
got=$(tail -n +2 "$csv" | cut -d, -f1-5 | tr '\n' ' ')
want="no_tee,1,0,0,0 tee_no_verify,1,1,0,0 tee_verify,1,1,1,0 no_tee,2,0,0,0 tee_no_verify,2,1,0,0 tee_verify,2,1,1,0 "
want+="no_tee,3,0,0,124 tee_no_verify,3,1,0,0 tee_verify,3,1,1,0 "
[ "$got" = "$want" ] || fail "rows: $got"
grep -qx "tee_verify,2,1,1,0,142,149,,142,[0-9.]*,$WORK/run/logs/tee_verify-2.stdout.log,$WORK/run/logs/tee_verify-2.stderr.log" "$csv" \
  || fail "unverified row / log paths: $(grep '^tee_verify,2' "$csv")"
grep -q "tee=1 verify=1 .* target=127.0.0.2:4000/" "$WORK/run/logs/tee_verify-1.stderr.log" \
  || fail "client env: $(cat "$WORK/run/logs/tee_verify-1.stderr.log")"
grep -q "tee=0 verify=0 " "$WORK/run/logs/no_tee-1.stderr.log" || fail "client env 0/0"

# Timeout: 124, the script's line last in the stderr log, the hung group killed.
[ "$(tail -1 "$WORK/run/logs/no_tee-3.stderr.log")" = "benchmark runner: timed out after 3s" ] \
  || fail "timeout line: $(cat "$WORK/run/logs/no_tee-3.stderr.log")"
gpid=$(cat "$WORK/state/no_tee-3.grandchild")
for _ in $(seq 50); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$gpid" 2>/dev/null && fail "the timed-out client's process group survived"

sum=$WORK/run/summary.txt
grep -q '^  FLAGGED tee_verify iteration 2: exit 0, no TDX_VERIFY_MS$' "$sum" || fail "unverified run flagged"
grep -q "^\[tee_verify 2/3\] attempt 1: exit 0, .*no TDX_VERIFY_MS (FLAGGED)" "$WORK/bench.out" || fail "progress flags it"
grep -q '^  FAILED no_tee iteration 3: exit 124 (timeout)$' "$sum" || fail "timeout listed"
grep -q '^tee_no_verify median overhead over no_tee: +[0-9.]* ms (+[0-9.]*%); not significant' "$sum" \
  || fail "n < 6 said on the headline: $(tail -3 "$sum")"
grep -q 'results written to '"$WORK/run/results.csv" "$WORK/bench.out" || fail "the script's results line"
# summarize reproduces it; the same RESULTS_DIR again is refused, nothing overwritten.
"$TB" bench summarize "$WORK/run" | cmp -s - "$sum" || fail "summarize differs from summary.txt"
cp "$csv" "$WORK/csv.before"
bench_fake "$WORK/run" --iterations 1 --benchmark-modes no_tee
[ "$BENCH_RC" -eq 1 ] || fail "an existing results.csv must be refused, got $BENCH_RC"
grep -q 'already holds a results.csv' "$WORK/bench.err" || fail "refusal: $(cat "$WORK/bench.err")"
cmp -s "$csv" "$WORK/csv.before" || fail "results.csv overwritten"

# A busy fixed fixture port: error with the hint, before the run directory exists.
spawn python3 -c 'import socket,time,sys,os
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen()
open(sys.argv[1]+".tmp","w").write(str(s.getsockname()[1])); os.rename(sys.argv[1]+".tmp",sys.argv[1]); time.sleep(30)' "$WORK/port"
for _ in $(seq 300); do [ -s "$WORK/port" ] && break; sleep 0.02; done
port=$(cat "$WORK/port")
expect_fail 1 env START_NOTARY=0 NOTARY_PORT=1 "$TB" bench notary --fixture-port "$port" \
  --client-cmd true --results-dir "$WORK/busy"
grep -q "fixture port 127.0.0.1:$port is not available: .*(--fixture-port 0 picks a free port)" "$WORK/err" \
  || fail "busy port: $(cat "$WORK/err")"
[ ! -e "$WORK/busy" ] || fail "the run directory was created for a busy port"

# --json runs (checked below).
bench_fake "$WORK/j" --iterations 2 --benchmark-modes "no_tee tee_no_verify" --json
[ "$BENCH_RC" -eq 0 ] || fail "--json run: $(cat "$WORK/bench.err")"
"$TB" bench summarize --json "$WORK/j" >"$WORK/s.json" || fail "summarize --json"
rc=0; "$TB" bench notary --json --iterations 0 >"$WORK/e.json" 2>/dev/null || rc=$?
[ $rc -eq 2 ] || fail "bad flag with --json: exit $rc"
# One python3 (its start-up is most of this test's time): summary.txt's first section
# is the script's, key for key, figures as python computes them; the --json documents
# carry the envelope (schema, teebench, env) and the script's figures.
python3 - "$csv" "$sum" "$WORK/bench.out" "$WORK/s.json" "$WORK/e.json" <<'PY' || fail "script section / --json"
import csv, json, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
text = open(sys.argv[2]).read()
section = text.split("\n\n")[0].splitlines()
ok = lambda r, m: r["mode"] == m and r["exit_code"] == "0" and r["notarization_ms"] != ""
vals = lambda m, k: [float(r[k]) for r in rows if ok(r, m) and r[k] != ""]
f = lambda x: "n/a" if x is None else "%.2f" % x
mean = lambda x: st.mean(x) if x else None
med = lambda x: st.median(x) if x else None
p90 = lambda x: None if not x else x[0] if len(x) == 1 else st.quantiles(x, n=10, method="inclusive")[8]
want = ["summary from successful runs:"]
for m in ["no_tee", "tee_no_verify", "tee_verify"]:
    n, t, v, c, w = (vals(m, k) for k in ["notarization_ms", "total_e2e_ms", "tdx_verify_ms", "notarization_plus_verify_ms", "wall_ms"])
    runs = sum(ok(r, m) for r in rows)
    want.append(f"{m}: runs={runs} avg_notarization_ms={f(mean(n))} median_notarization_ms={f(med(n))} "
                f"p90_notarization_ms={f(p90(n))} avg_total_e2e_ms={f(mean(t))} avg_tdx_verify_ms={f(mean(v))} "
                f"median_tdx_verify_ms={f(med(v))} avg_notarization_plus_verify_ms={f(mean(c))} "
                f"median_notarization_plus_verify_ms={f(med(c))} p90_notarization_plus_verify_ms={f(p90(c))} "
                f"avg_wall_ms={f(mean(w))}")
b, tn = vals("no_tee", "notarization_ms"), vals("tee_no_verify", "notarization_ms")
want.append(f"tee_no_verify_avg_notarization_overhead_ms={mean(tn)-mean(b):.2f} tee_no_verify_avg_notarization_overhead_percent={(mean(tn)-mean(b))/mean(b)*100:.2f}")
want.append(f"tee_no_verify_median_notarization_overhead_ms={med(tn)-med(b):.2f} tee_no_verify_median_notarization_overhead_percent={(med(tn)-med(b))/med(b)*100:.2f}")
assert section[:len(want)] == want, "\n".join(["want:"] + want + ["got:"] + section)
keys = [kv.split("=")[0] for line in section[len(want):] for kv in line.split()]
assert keys == [
    "tee_no_verify_paired_avg_notarization_overhead_ms", "tee_no_verify_paired_avg_notarization_overhead_percent",
    "tee_no_verify_paired_median_notarization_overhead_ms", "tee_no_verify_paired_median_notarization_overhead_percent",
    "tee_verify_avg_notarization_overhead_ms", "tee_verify_avg_notarization_overhead_percent",
    "tee_verify_avg_combined_overhead_ms", "tee_verify_avg_combined_overhead_percent",
    "tee_verify_median_combined_overhead_ms", "tee_verify_median_combined_overhead_percent",
    "tee_verify_paired_avg_combined_overhead_ms", "tee_verify_paired_avg_combined_overhead_percent",
    "tee_verify_paired_median_combined_overhead_ms", "tee_verify_paired_median_combined_overhead_percent",
    "tee_verify_avg_tdx_verify_ms", "tee_verify_median_tdx_verify_ms", "failed_runs"], keys
assert section[-1] == "failed_runs=1", section[-1]
# paired tee_no_verify over iterations 1 and 2 (no_tee 3 timed out): +31, +32 ms
assert "tee_no_verify_paired_median_notarization_overhead_ms=31.50 " in text
print("script section ok")
n, s = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
assert list(n)[:3] == ["schema", "teebench", "env"] and n["schema"] == "teebench-bench-notary/1", list(n)[:4]
assert list(s)[:3] == ["schema", "teebench", "env"] and s["schema"] == "teebench-bench-summary/1", list(s)[:4]
sc = s["script"]
assert sc["modes"]["no_tee"]["runs"] == 2 and sc["modes"]["no_tee"]["median_notarization_ms"] == 101.5, sc
assert sc["overhead"]["tee_no_verify_median_notarization_overhead_ms"] == 31.5, sc["overhead"]
assert sc["failed_runs"] == 0 and n["retries"] == 0 and n["summary"]["script"] == sc
e = json.load(open(sys.argv[5]))
assert list(e)[:3] == ["schema", "teebench", "env"] and e["error"].startswith("ITERATIONS: '0'"), e.get("error")
print("json ok")
PY
pass bench_script_compat
