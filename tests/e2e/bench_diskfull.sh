#!/usr/bin/env bash
# A disk that fills up during `bench notary` (a 512 KiB tmpfs in a private mount
# namespace): the run stops with "No space left on device" instead of recording
# FAILED runs, run.json says "failed", results.csv keeps only whole rows and
# `bench summarize` reads them. Then hand-made damage: a row cut short and a
# duplicate (mode, iteration) are listed as DAMAGED, the intact rows still counted.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_bench.sh"
command -v unshare >/dev/null || skip "no unshare(1)"
mkdir -p "$WORK/small"
unshare -m true 2>/dev/null || skip "cannot create a mount namespace here (needs root or user namespaces)"

# The client of iteration 3 fills the disk before printing anything.
cat >"$WORK/client.sh" <<SH
#!/usr/bin/env bash
if [ "\$BENCHMARK_ITERATION" = 3 ]; then
  dd if=/dev/zero of="$WORK/small/filler" bs=4096 2>/dev/null
fi
exec "$FAKE"
SH
chmod +x "$WORK/client.sh"
rc=0
unshare -m bash -c '
  mount -t tmpfs -o size=512k tmpfs "$1" || exit 99
  START_NOTARY=0 START_FIXTURE=0 NOTARY_PORT=1 "$2" bench notary --results-dir "$1/r" \
    --iterations 5 --benchmark-modes "no_tee tee_no_verify" --client-cmd "$3" --retries 2 \
    >"$4/bench.out" 2>"$4/bench.err"
  rc=$?
  cp -r "$1/r" "$4/r"   # the run directory outlives the namespace
  exit $rc' _ "$WORK/small" "$TB" "$WORK/client.sh" "$WORK" || rc=$?
[ $rc -ne 99 ] || skip "cannot mount a tmpfs here"
[ $rc -eq 1 ] || fail "a full disk must fail the run (exit 1), got $rc: $(cat "$WORK/bench.err")"
grep -q 'No space left on device' "$WORK/bench.err" || fail "the error must say ENOSPC: $(cat "$WORK/bench.err")"
[ "$(wc -l <"$WORK/bench.err")" -eq 1 ] || fail "one error line: $(cat "$WORK/bench.err")"
grep -q 'FAILED' "$WORK/bench.out" && fail "runs reported FAILED for a full disk: $(cat "$WORK/bench.out")"
run=$WORK/r
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["status"]; sys.exit(s != "failed")' "$run/run.json" \
  || fail "run.json status: $(cat "$run/run.json")"
# Only whole rows: iterations 1 and 2 of both modes.
[ "$(tail -n +2 "$run/results.csv" | wc -l)" -eq 4 ] || fail "rows: $(cat "$run/results.csv")"
[ "$(tail -c 1 "$run/results.csv" | od -An -c | tr -d ' ')" = '\n' ] || fail "results.csv ends inside a row"
"$TB" bench summarize "$run" >"$WORK/sum" || fail "summarize after ENOSPC: $(cat "$WORK/sum")"
grep -q '^runs: 4 rows, 4 successful, 0 failed' "$WORK/sum" || fail "summary counts: $(head -5 "$WORK/sum")"

# A row cut short (the last one, no end of line) and a duplicate of no_tee 1.
csv=$WORK/damaged.csv
{ cat "$run/results.csv"; grep '^no_tee,1,' "$run/results.csv"; printf 'tee_no_verify,3,true,false,0,13'; } >"$csv"
# The summary of the intact rows is printed; the exit code is 1 and one line says why.
rc=0; "$TB" bench summarize "$csv" >"$WORK/sum2" 2>"$WORK/err2" || rc=$?
[ $rc -eq 1 ] || fail "summarize with damaged rows must exit 1, got $rc: $(cat "$WORK/err2")"
grep -qx "teebench: bench: summarize: $csv: 2 damaged rows not counted (first: line 6: a second row for no_tee iteration 1 (the first is line 2))" \
  "$WORK/err2" || fail "damaged rows line: $(cat "$WORK/err2")"
"$TB" bench summarize --json "$csv" >"$WORK/sum2.json" 2>/dev/null && fail "--json with damaged rows must exit 1"
python3 - "$WORK/sum2.json" <<'PY' || fail "summarize --json: $(head -c 600 "$WORK/sum2.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d)[:3] == ["schema", "teebench", "env"] and d["schema"] == "teebench-bench-summary/1", list(d)[:4]
assert d["runs"] == {"rows": 4, "successful": 4, "failed": 0, "retried_attempts": None, "damaged": 2}, d["runs"]
assert [x["line"] for x in d["damaged_rows"]] == [6, 7], d["damaged_rows"]
assert d["modes"]["no_tee"]["notarization_ms"]["n"] == 2, d["modes"]
assert d["headline"]["tee_overhead_ms"] is not None, d["headline"]
PY
grep -q '^runs: 4 rows, 4 successful, 0 failed; 2 DAMAGED rows not counted' "$WORK/sum2" || fail "counts: $(head -5 "$WORK/sum2")"
grep -q '^  DAMAGED line 6: a second row for no_tee iteration 1 (the first is line 2)$' "$WORK/sum2" \
  || fail "duplicate listed: $(grep -A3 damaged "$WORK/sum2")"
grep -q '^  DAMAGED line 7: 6 fields, expected 12 (cut short: the file ends inside the row)$' "$WORK/sum2" \
  || fail "cut row listed: $(grep -A3 damaged "$WORK/sum2")"
summary_check "$run/results.csv" "$WORK/sum2" || fail "figures of the intact rows"
pass bench_diskfull
