#!/usr/bin/env bash
# Harness failure handling: a client that hangs is killed with its whole process
# group, recorded as exit 124 and retried (with --retries: the default is none); a client that keeps failing ends as a
# failed row and exit 1; garbage output is a failed run; SIGINT stops the run
# leaving only complete rows.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_bench.sh"
mkdir -p "$WORK/state"
export FAKE_STATE_DIR=$WORK/state

# 1. tee_verify iteration 2 hangs once (timeout 1 s), no_tee iteration 1 fails once.
FAKE_PLAN="tee_verify:2=hang-once no_tee:1=fail-once" bench_fake "$WORK/a" --iterations 2 --run-timeout-seconds 1 --retries 2
[ "$BENCH_RC" -eq 0 ] || fail "retried runs should succeed: rc $BENCH_RC $(cat "$WORK/bench.err")"
csv=$RUN_DIR/results.csv
[ "$(tail -n +2 "$csv" | wc -l)" -eq 6 ] || fail "one row per run: $(cat "$csv")"
grep -q '^tee_verify,2,1,1,0,142,' "$csv" || fail "retried tee_verify row: $(cat "$csv")"
grep -q '^no_tee,1,0,0,0,101,' "$csv" || fail "retried no_tee row"
retries=$(tail -n +2 "$RUN_DIR/retries.csv" | cut -d, -f1-4 | sort | tr '\n' ' ')
[ "$retries" = "no_tee,1,1,3 tee_verify,2,1,124 " ] || fail "retries.csv: $retries"
grep -q "^tee_verify,2,1,124,[0-9.]*,$RUN_DIR/logs/tee_verify-2.attempt1.stdout.log,$RUN_DIR/logs/tee_verify-2.attempt1.stderr.log\$" \
  "$RUN_DIR/retries.csv" || fail "retry log names: $(cat "$RUN_DIR/retries.csv")"
[ -f "$RUN_DIR/logs/tee_verify-2.attempt1.stderr.log" ] || fail "attempt log kept"
[ -f "$RUN_DIR/logs/tee_verify-2.stdout.log" ] || fail "final log"
wall=$(grep '^tee_verify,2,1,124' "$RUN_DIR/retries.csv" | cut -d, -f5)
python3 -c "import sys; w=float(sys.argv[1]); assert 1000 <= w < 5000, w" "$wall" || fail "timeout wall $wall ms"
gpid=$(cat "$WORK/state/tee_verify-2.grandchild")
for _ in $(seq 50); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$gpid" 2>/dev/null && fail "the hung client's background child survived"
grep -q 'RETRY tee_verify iteration 2 attempt 1: exit 124 (timeout)' "$RUN_DIR/summary.txt" || fail "summary lists retry"
grep -q 'attempt 1: exit 124.*FAILED, retrying' "$WORK/bench.out" || fail "progress shows the retry"
grep -q '^RETRIED: 2 failed attempts were rerun' "$RUN_DIR/summary.txt" || fail "summary says retries happened"
grep -q 'benchmark runner: timed out after 1s' "$RUN_DIR/logs/tee_verify-2.attempt1.stderr.log" || fail "timeout line"

# 2. A run that always fails: RETRIES=1 -> 2 attempts, final row failed, exit 1.
FAKE_PLAN="tee_no_verify:1=fail" RETRIES=1 bench_fake "$WORK/b" --iterations 1
[ "$BENCH_RC" -eq 1 ] || fail "a failed run must exit 1, got $BENCH_RC"
grep -q '^tee_no_verify,1,1,0,3,1,' "$RUN_DIR/results.csv" || fail "failed row: $(cat "$RUN_DIR/results.csv")"
[ "$(tail -n +2 "$RUN_DIR/retries.csv" | wc -l)" -eq 1 ] || fail "one retry"
grep -q 'FAILED tee_no_verify iteration 1: exit 3' "$RUN_DIR/summary.txt" || fail "summary lists the failure"
grep -q 'still failed after 1 retries' "$WORK/bench.err" || fail "error line: $(cat "$WORK/bench.err")"
# The failed row is not in the statistics.
grep -q '^tee_no_verify median overhead over no_tee: n/a' "$RUN_DIR/summary.txt" || fail "failed rows excluded"

# 3. Garbage output with exit 0 is a failed run (no NOTARIZATION_MS), RETRIES=0.
FAKE_ALL=garbage RETRIES=0 bench_fake "$WORK/c" --iterations 1 --benchmark-modes no_tee
[ "$BENCH_RC" -eq 1 ] || fail "garbage output must fail, got $BENCH_RC"
[ "$(sed -n 2p "$RUN_DIR/results.csv" | cut -d, -f1-9)" = "no_tee,1,0,0,0,,,," ] || fail "garbage row: $(cat "$RUN_DIR/results.csv")"
grep -q 'exit 0 but no NOTARIZATION_MS' "$RUN_DIR/summary.txt" || fail "garbage reason"

# 4. SIGINT in the middle of a hung run: exit 130, complete rows only, child group killed.
rm -f "$WORK/state"/*
START_NOTARY=0 START_FIXTURE=0 FAKE_PLAN="no_tee:2=hang" "$TB" bench notary --results-dir "$WORK/d" \
  --client-cmd "$FAKE" --iterations 3 --run-timeout-seconds 100 >"$WORK/d.out" 2>"$WORK/d.err" &
hpid=$!
for _ in $(seq 100); do [ -f "$WORK/state/no_tee-2.grandchild" ] && break; sleep 0.1; done
[ -f "$WORK/state/no_tee-2.grandchild" ] || fail "hung run did not start"
kill -INT "$hpid"
rc=0; wait "$hpid" || rc=$?
[ "$rc" -eq 130 ] || fail "interrupted run exits 130, got $rc"
run=$WORK/d
[ "$(tail -n +2 "$run/results.csv" | cut -d, -f1,2 | tr '\n' ' ')" = "no_tee,1 tee_no_verify,1 tee_verify,1 " ] \
  || fail "interrupted rows: $(cat "$run/results.csv")"
[ "$(tail -c 1 "$run/results.csv" | od -An -c | tr -d ' ')" = '\n' ] || fail "torn last line"
gpid=$(cat "$WORK/state/no_tee-2.grandchild")
for _ in $(seq 50); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$gpid" 2>/dev/null && fail "interrupted client's child survived"
grep -q '"status": "interrupted"' "$run/run.json" || fail "run.json status"
[ -s "$run/summary.txt" ] || fail "summary of the completed rows"
grep -q 'interrupted after 3 runs' "$WORK/d.err" || fail "interrupt message: $(cat "$WORK/d.err")"
pass bench_retry
