#!/usr/bin/env bash
# labels: threads
# `teebench bench notary` with a fake client (no servers): layout of the run
# directory, exact results.csv header, iteration-major order, last KEY=value wins,
# logs, env.json/run.json, the summary's figures against python3's statistics.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_bench.sh"

# RESULTS_DIR unset: benchmark-results/<UTC stamp>/ under the working directory, and
# the log paths in results.csv are written as the script writes them (relative).
(cd "$WORK" && START_NOTARY=0 START_FIXTURE=0 NOTARY_PORT=1 "$TB" bench notary --iterations 4 \
  --client-cmd "$FAKE" >"$WORK/bench.out" 2>"$WORK/bench.err") || fail "harness: $(cat "$WORK/bench.err")"
RUN_DIR=$(ls -d "$WORK"/benchmark-results/*/ | tail -1); RUN_DIR=${RUN_DIR%/}
stamp=$(basename "$RUN_DIR")
echo "$stamp" | grep -Eq '^[0-9]{8}T[0-9]{6}Z$' || fail "run dir name $stamp"
csv=$RUN_DIR/results.csv
[ "$(head -1 "$csv")" = "mode,iteration,enable_tee,verify_attestation,exit_code,notarization_ms,total_e2e_ms,tdx_verify_ms,notarization_plus_verify_ms,wall_ms,stdout_log,stderr_log" ] \
  || fail "results.csv header: $(head -1 "$csv")"
[ "$(wc -l <"$csv")" -eq 13 ] || fail "expected 12 rows: $(cat "$csv")"
# Iteration-major order, flags per mode, values from the fake client (last occurrence wins).
got=$(tail -n +2 "$csv" | cut -d, -f1-9 | tr '\n' ' ')
want="no_tee,1,0,0,0,101,108,,101 tee_no_verify,1,1,0,0,132,139,,132 tee_verify,1,1,1,0,141,148,20.5,161.5 "
want+="no_tee,2,0,0,0,102,109,,102 tee_no_verify,2,1,0,0,134,141,,134 tee_verify,2,1,1,0,142,149,21.5,163.5 "
want+="no_tee,3,0,0,0,103,110,,103 tee_no_verify,3,1,0,0,136,143,,136 tee_verify,3,1,1,0,143,150,21.5,164.5 "
want+="no_tee,4,0,0,0,104,111,,104 tee_no_verify,4,1,0,0,138,145,,138 tee_verify,4,1,1,0,144,151,22.5,166.5 "
[ "$got" = "$want" ] || fail "rows: $got"
# wall_ms is a positive number; logs exist and hold the client's output.
tail -n +2 "$csv" | cut -d, -f10 | while read -r w; do
  python3 -c "import sys; assert float(sys.argv[1]) > 0" "$w" || fail "wall_ms '$w'"
done
for m in no_tee tee_no_verify tee_verify; do for i in 1 2 3 4; do
  [ -f "$RUN_DIR/logs/$m-$i.stdout.log" ] || fail "missing log $m-$i.stdout.log"
  grep -q "fake client: mode=$m iteration=$i" "$RUN_DIR/logs/$m-$i.stderr.log" || fail "stderr log $m-$i"
done; done
grep -q "^no_tee,1,.*,benchmark-results/$stamp/logs/no_tee-1.stdout.log,benchmark-results/$stamp/logs/no_tee-1.stderr.log\$" "$csv" \
  || fail "log columns: $(sed -n 2p "$csv")"
# The client saw the source script's environment.
grep -q "notary=http://127.0.0.1:1 target=127.0.0.1:4000/test-server.io/formats/json?size=4" \
  "$RUN_DIR/logs/no_tee-1.stderr.log" || fail "client environment: $(cat "$RUN_DIR/logs/no_tee-1.stderr.log")"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert 'tdx_guest' in j and 'platform' in j" "$RUN_DIR/env.json" || fail "env.json"
python3 -c "
import json,sys; j=json.load(open(sys.argv[1]))
assert j['status']=='complete' and j['iterations']==4 and j['benchmark_modes']==['no_tee','tee_no_verify','tee_verify'], j
assert j['notary_tee']=='external'" "$RUN_DIR/run.json" || fail "run.json"
[ "$(tail -n +2 "$RUN_DIR/retries.csv" | wc -l)" -eq 0 ] || fail "no retries expected"
# summary.txt: written, printed, and its numbers match python3.
[ -s "$RUN_DIR/summary.txt" ] || fail "no summary.txt"
grep -qF "$(tail -1 "$RUN_DIR/summary.txt")" "$WORK/bench.out" || fail "summary not printed"
summary_check "$csv" "$RUN_DIR/summary.txt" || fail "summary figures"
grep -q '^tee_no_verify median overhead over no_tee: +32.50 ms (+31.71%); not significant (fewer than 6 runs): 95 % CI \[+[0-9.]*, +[0-9.]*\] ms, n=4$' \
  "$RUN_DIR/summary.txt" || fail "headline 1: $(tail -3 "$RUN_DIR/summary.txt")"
grep -q '^tdx verify median: 21.50 ms (n=4)$' "$RUN_DIR/summary.txt" || fail "headline 3"
# summarize recomputes the same text from the directory and from the file.
(cd "$WORK" && "$TB" bench summarize "benchmark-results/$stamp") >"$WORK/s1" || fail "summarize dir"
cmp -s "$WORK/s1" "$RUN_DIR/summary.txt" || fail "summarize DIR differs from summary.txt"
(cd "$WORK" && "$TB" bench summarize "benchmark-results/$stamp/results.csv") >"$WORK/s2" || fail "summarize file"
cmp -s "$WORK/s2" "$RUN_DIR/summary.txt" || fail "summarize FILE differs"

# A single mode, and a simulated notary label when NOTARY_TEE=sim.
bench_fake "$WORK/out2" --iterations 2 --benchmark-modes "tee_verify" --notary-tee sim
[ "$BENCH_RC" -eq 0 ] || fail "single mode: $(cat "$WORK/bench.err")"
[ "$(tail -n +2 "$RUN_DIR/results.csv" | cut -d, -f1 | sort -u)" = tee_verify ] || fail "single mode rows"
grep -q 'SIMULATED' "$RUN_DIR/summary.txt" || fail "simulated label missing"
grep -q '"simulated": true' "$RUN_DIR/run.json" || fail "simulated in run.json"
grep -q '^tee_no_verify median overhead over no_tee: n/a.*; SIMULATED TEE$' "$RUN_DIR/summary.txt" || fail "n/a headline"
grep -q '^tdx verify median: [0-9.]* ms (n=2); SIMULATED TEE$' "$RUN_DIR/summary.txt" || fail "simulated headline"
# The same for a SIMULATED SEV-SNP notary (NOTARY_TEE=sim-snp).
bench_fake "$WORK/out3" --iterations 2 --benchmark-modes "tee_verify" --notary-tee sim-snp
[ "$BENCH_RC" -eq 0 ] || fail "sim-snp: $(cat "$WORK/bench.err")"
grep -q '^notary tee: sim-snp -- SIMULATED TEE.*SEV-SNP hardware' "$RUN_DIR/summary.txt" \
  || fail "sim-snp notary tee line: $(grep 'notary tee' "$RUN_DIR/summary.txt")"
grep -q '"simulated": true' "$RUN_DIR/run.json" || fail "sim-snp simulated in run.json"
grep -q '^tdx verify median: [0-9.]* ms (n=2); SIMULATED TEE$' "$RUN_DIR/summary.txt" || fail "sim-snp headline"
pass bench_harness
