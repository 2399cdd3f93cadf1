#!/usr/bin/env bash
# `teebench bench summarize`: a hand-made results.csv in the source script's
# format gives figures equal to python3's; garbage files and bad flags give one
# clear error line.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_bench.sh"

# A hand-made file as the source script writes it (integer ms, empty fields,
# absolute log paths), with a retried-and-folded row, a failed row and an outlier.
csv=$WORK/results.csv
python3 - "$csv" <<'PY'
import random, sys
rng = random.Random(25)
h = "mode,iteration,enable_tee,verify_attestation,exit_code,notarization_ms,total_e2e_ms,tdx_verify_ms,notarization_plus_verify_ms,wall_ms,stdout_log,stderr_log"
out = [h]
for i in range(1, 26):
    for mode, tee, ver in [("no_tee", "true", "false"), ("tee_no_verify", "true", "false"), ("tee_verify", "true", "true")]:
        tee = "false" if mode == "no_tee" else "true"
        n = 1091 + rng.randint(-60, 60) + (278 if mode != "no_tee" else 0) + (rng.randint(0, 80) if mode == "tee_verify" else 0)
        if mode == "tee_verify" and i == 7:
            n = 9000  # a far outlier
        v = 326 + rng.randint(-20, 20) if ver == "true" else ""
        code = 0
        if mode == "tee_no_verify" and i == 13:
            code, n = 124, ""
        npv = "" if n == "" else (n + v if v != "" else n)
        log = "/srv/bench/benchmark-results/20260508T150207Z/logs/%s-%d" % (mode, i)
        out.append(",".join(str(x) for x in [mode, i, tee, ver, code, n, "" if n == "" else n + 5, v, npv, "", log + ".stdout.log", log + ".stderr.log"]))
open(sys.argv[1], "w").write("\r\n".join(out) + "\r\n")
PY
"$TB" bench summarize "$csv" >"$WORK/summary" || fail "summarize: $(cat "$WORK/summary")"
summary_check "$csv" "$WORK/summary" || fail "figures differ from python"
grep -q '^notary tee: unknown' "$WORK/summary" || fail "unknown tee label"
grep -q 'OUTLIER tee_verify iteration 7: notarization_ms=9000.00 ms' "$WORK/summary" || fail "outlier flag"
grep -q 'FAILED tee_no_verify iteration 13: exit 124 (timeout)' "$WORK/summary" || fail "failed row"
grep -q '^runs: 75 rows, 74 successful, 1 failed$' "$WORK/summary" || fail "run counts"
grep -Eq '^  tee_no_verify notarization_ms: pairs=24 .*Wilcoxon signed-rank p=[0-9.e-]+ \(exact' "$WORK/summary" \
  || fail "paired line"
grep -Eq '^  tee_no_verify notarization_ms: median \+[0-9.]+ ms \(\+[0-9.]+%\), 95% bootstrap CI \[\+[0-9.]+ ms, \+[0-9.]+ ms\]; mean' \
  "$WORK/summary" || fail "overhead line"
# The Wilcoxon p-value and paired medians against python (exact enumeration is too
# big for n=24, so the exact distribution is computed by dynamic programming here).
python3 - "$csv" "$WORK/summary" <<'PY' || fail "paired figures differ from python"
import csv, statistics as st, sys, re
rows = list(csv.DictReader(open(sys.argv[1])))
text = open(sys.argv[2]).read()
get = lambda m: {r["iteration"]: float(r["notarization_ms"]) for r in rows if r["mode"] == m and r["exit_code"] == "0"}
a, b = get("no_tee"), get("tee_no_verify")
d = [b[i] - a[i] for i in b if i in a]
nz = [x for x in d if x != 0]
absd = sorted(abs(x) for x in nz)
def rank(v):
    lo = absd.index(v); hi = len(absd) - absd[::-1].index(v)
    return (lo + 1 + hi) / 2
r2 = [int(2 * rank(abs(x))) for x in nz]
wp2 = sum(r2[i] for i, x in enumerate(nz) if x > 0)
cnt = {0: 1}
for r in r2:
    new = dict(cnt)
    for s, c in cnt.items(): new[s + r] = new.get(s + r, 0) + c
    cnt = new
tot = 2 ** len(nz)
le = sum(c for s, c in cnt.items() if s <= wp2); ge = sum(c for s, c in cnt.items() if s >= wp2)
p = min(1, 2 * min(le, ge) / tot)
want = "pairs=%d mean diff %+.2f ms, median diff %+.2f ms; Wilcoxon signed-rank p=%.4g (exact" % (len(d), st.mean(d), st.median(d), p)
assert want in text, (want, text)
print("paired ok:", want)
PY

# Garbage in -> one error line, non-zero exit, nothing written.
printf '' >"$WORK/empty.csv"
expect_fail 1 "$TB" bench summarize "$WORK/empty.csv"; grep -q 'empty file' "$WORK/err" || fail "empty: $(cat "$WORK/err")"
printf 'a,b,c\n1,2,3\n' >"$WORK/hdr.csv"
expect_fail 1 "$TB" bench summarize "$WORK/hdr.csv"; grep -q 'line 1: not the expected header' "$WORK/err" || fail "header"
head -c 3000 /dev/urandom >"$WORK/bin.csv"
expect_fail 1 "$TB" bench summarize "$WORK/bin.csv"
head -1 "$csv" >"$WORK/bad.csv"; echo 'no_tee,1,false,false,0,abc,,,,,x,y' >>"$WORK/bad.csv"
expect_fail 1 "$TB" bench summarize "$WORK/bad.csv"
grep -q "line 2: notarization_ms: not a non-negative number of ms: 'abc'" "$WORK/err" || fail "bad number: $(cat "$WORK/err")"
head -1 "$csv" >"$WORK/short.csv"; echo 'no_tee,1,false,false,0,5' >>"$WORK/short.csv"
expect_fail 1 "$TB" bench summarize "$WORK/short.csv"; grep -q 'line 2: 6 fields, expected 12' "$WORK/err" || fail "short row"
head -1 "$csv" >"$WORK/quote.csv"; printf 'no_tee,1,false,false,0,5,,,,,"x,y\n' >>"$WORK/quote.csv"
expect_fail 1 "$TB" bench summarize "$WORK/quote.csv"; grep -q 'unterminated quoted field' "$WORK/err" || fail "quote"
head -1 "$csv" >"$WORK/nan.csv"; echo 'no_tee,1,false,false,0,nan,,,,,x,y' >>"$WORK/nan.csv"
expect_fail 1 "$TB" bench summarize "$WORK/nan.csv"
head -1 "$csv" >"$WORK/mode.csv"; echo 'no tee,1,false,false,0,5,,,,,x,y' >>"$WORK/mode.csv"
expect_fail 1 "$TB" bench summarize "$WORK/mode.csv"; grep -q 'mode: not a mode name' "$WORK/err" || fail "mode"
expect_fail 1 "$TB" bench summarize "$WORK/missing.csv"; grep -q 'No such file' "$WORK/err" || fail "missing"
mkdir "$WORK/emptydir"
expect_fail 1 "$TB" bench summarize "$WORK/emptydir"; grep -q 'results.csv: No such file' "$WORK/err" || fail "dir"
expect_fail 2 "$TB" bench summarize
expect_fail 2 "$TB" bench summarize a b
# A header-only file is valid: everything n/a.
head -1 "$csv" >"$WORK/none.csv"
"$TB" bench summarize "$WORK/none.csv" >"$WORK/out" || fail "header-only file"
grep -q '^runs: 0 rows' "$WORK/out" || fail "header-only summary"

# Bad flags and environment for `bench notary`.
expect_fail 2 "$TB" bench notary --iterations 0
expect_fail 2 "$TB" bench notary --iterations abc
expect_fail 2 "$TB" bench notary --benchmark-modes "no_tee bogus"
grep -q "unknown mode 'bogus'" "$WORK/err" || fail "bad mode message"
expect_fail 2 "$TB" bench notary --no-such-flag 1
expect_fail 2 "$TB" bench notary --retries
expect_fail 2 "$TB" bench notary --notary-tee maybe
expect_fail 1 env ITERATIONS=-3 "$TB" bench notary
grep -q 'environment: ITERATIONS' "$WORK/err" || fail "env error"
expect_fail 2 env START_FIXTURE=0 "$TB" bench notary
grep -q 'needs FIXTURE_CA' "$WORK/err" || fail "fixture CA check: $(cat "$WORK/err")"
expect_fail 2 "$TB" bench notary --start-fixture 0 --fixture-ca "$WORK/no-ca.pem"
grep -q 'FIXTURE_CA .*no-ca.pem: No such file' "$WORK/err" || fail "fixture CA file: $(cat "$WORK/err")"
expect_fail 2 "$TB" bench notary --fixture-port 5000 --notary-port 5000
expect_fail 2 "$TB" bench bogus
expect_fail 2 "$TB" bench
"$TB" bench notary --help | grep -q -- '--run-timeout-seconds' || fail "help"
# A client command that cannot run at all: every run fails with 127, exit 1.
START_NOTARY=0 START_FIXTURE=0 RETRIES=0 "$TB" bench notary --results-dir "$WORK/x" --iterations 1 \
  --benchmark-modes no_tee --client-cmd "$WORK/no-such-client" >"$WORK/out" 2>"$WORK/err" && fail "missing client must fail"
grep -q 'exit 127 (command not found)' "$WORK/out" || fail "127 reported: $(cat "$WORK/out")"
# --json: summarize prints the envelope and the figures; bench notary --json keeps
# stdout for its one document (progress on stderr).
"$TB" bench summarize --json "$csv" >"$WORK/sum.json" || fail "summarize --json"
bench_fake "$WORK/j" --iterations 2 --json
[ "$BENCH_RC" -eq 0 ] || fail "bench notary --json: $(cat "$WORK/bench.err")"
grep -q '^\[no_tee 1/2\] attempt 1' "$WORK/bench.err" || fail "progress on stderr: $(cat "$WORK/bench.err")"
python3 - "$WORK/sum.json" "$WORK/bench.out" "$RUN_DIR" <<'PY' || fail "--json documents"
import json, sys
s = json.load(open(sys.argv[1]))
assert list(s)[:3] == ["schema", "teebench", "env"] and s["schema"] == "teebench-bench-summary/1"
assert s["runs"]["rows"] == 75 and s["runs"]["failed"] == 1 and s["runs"]["damaged"] == 0, s["runs"]
assert {(o["mode"], o["iteration"]) for o in s["outliers"]} == {("tee_verify", 7)}, s["outliers"]
assert s["failed_runs"] == [{"mode": "tee_no_verify", "iteration": 13, "exit_code": 124}], s["failed_runs"]
n = json.load(open(sys.argv[2]))
assert list(n)[:3] == ["schema", "teebench", "env"] and n["schema"] == "teebench-bench-notary/1"
assert n["status"] == "complete" and n["rows"] == 6 and n["run_dir"] == sys.argv[3], n
assert n["summary"]["modes"]["no_tee"]["notarization_ms"]["median"] == 101.5, n["summary"]["modes"]
PY
pass bench_summarize
