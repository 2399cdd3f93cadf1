#!/usr/bin/env bash
# `teebench bench notary` on its default path: it starts its own fixture server
# (`teebench serve --tls`, PKI generated in the run directory) and its own notary,
# runs the real `teebench notarize`, and stops both at the end and on SIGTERM.
# The TEE modes run when the notary supports --tee sim; no_tee always runs.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_bench.sh"

modes="no_tee tee_no_verify tee_verify"; tee=sim
if ! "$TB" notary serve --tee sim --port 0 --sim-dir "$WORK/probe-sim" >/dev/null 2>"$WORK/probe.err" & then :; fi
probe=$!; sleep 0.5
if ! kill -0 "$probe" 2>/dev/null; then modes="no_tee"; tee=none; echo "note: notary --tee sim unavailable ($(cat "$WORK/probe.err")); no_tee only"; fi
kill "$probe" 2>/dev/null || true; wait "$probe" 2>/dev/null || true

fport=$(free_port); nport=$(free_port); while [ "$nport" = "$fport" ]; do nport=$(free_port); done
rc=0
"$TB" bench notary --iterations 3 --benchmark-modes "$modes" --notary-tee "$tee" \
  --fixture-port "$fport" --notary-port "$nport" --results-dir "$WORK/res" >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
[ "$rc" -eq 0 ] || fail "default path exit $rc: $(cat "$WORK/err.txt") $(tail -5 "$WORK/out.txt")"
run=$WORK/res
csv=$run/results.csv
nmodes=$(echo $modes | wc -w)
[ "$(tail -n +2 "$csv" | wc -l)" -eq $((3 * nmodes)) ] || fail "rows: $(cat "$csv")"
tail -n +2 "$csv" | while IFS=, read -r mode it tee_f ver code n rest; do
  [ "$code" = 0 ] || fail "run $mode $it exit $code"
  python3 -c "import sys; assert 0 < float(sys.argv[1]) < 10000" "$n" || fail "notarization_ms '$n'"
done
[ -f "$run/pki/ca.pem" ] || fail "fixture PKI not generated in the run dir"
grep -q "starting fixture server" "$WORK/out.txt" || fail "fixture start not reported"
summary_check "$csv" "$run/summary.txt" || fail "summary figures"
if [ "$tee" = sim ]; then
  grep -q SIMULATED "$run/summary.txt" || fail "simulated label"
  grep -q '^tdx verify median: [0-9.]* ms (n=3); SIMULATED TEE$' "$run/summary.txt" || fail "verify headline"
fi
# Both servers were stopped: nothing listens on their ports any more.
for p in "$fport" "$nport"; do
  (exec 3<>/dev/tcp/127.0.0.1/"$p") 2>/dev/null && fail "port $p still listening after the run"
done

# SIGTERM while a run hangs: exit 130, servers stopped, no leftover processes.
mkdir -p "$WORK/state"
fport=$(free_port); nport=$(free_port); while [ "$nport" = "$fport" ]; do nport=$(free_port); done
FAKE_STATE_DIR=$WORK/state FAKE_ALL=hang "$TB" bench notary --iterations 2 --benchmark-modes no_tee \
  --notary-tee none --fixture-port "$fport" --notary-port "$nport" --client-cmd "$FAKE" \
  --results-dir "$WORK/term" >"$WORK/term.out" 2>"$WORK/term.err" &
hpid=$!
for _ in $(seq 100); do [ -f "$WORK/state/no_tee-1.grandchild" ] && break; sleep 0.1; done
[ -f "$WORK/state/no_tee-1.grandchild" ] || fail "hung client did not start: $(cat "$WORK/term.err")"
(exec 3<>/dev/tcp/127.0.0.1/"$nport") 2>/dev/null || fail "notary not up during the run"
kill -TERM "$hpid"
rc=0; wait "$hpid" || rc=$?
[ "$rc" -eq 130 ] || fail "SIGTERM exit $rc"
for p in "$fport" "$nport"; do
  (exec 3<>/dev/tcp/127.0.0.1/"$p") 2>/dev/null && fail "port $p still listening after SIGTERM"
done
gpid=$(cat "$WORK/state/no_tee-1.grandchild")
for _ in $(seq 50); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$gpid" 2>/dev/null && fail "client child survived SIGTERM"

# The notary dying during the run ends it with a clear error (no pointless runs).
rm -f "$WORK/state"/*
fport=$(free_port); nport=$(free_port); while [ "$nport" = "$fport" ]; do nport=$(free_port); done
FAKE_STATE_DIR=$WORK/state FAKE_PLAN="no_tee:1=hang" "$TB" bench notary --iterations 3 --benchmark-modes no_tee \
  --notary-tee none --fixture-port "$fport" --notary-port "$nport" --client-cmd "$FAKE" --run-timeout-seconds 2 \
  --results-dir "$WORK/dead" >"$WORK/dead.out" 2>"$WORK/dead.err" &
hpid=$!
for _ in $(seq 100); do [ -f "$WORK/state/no_tee-1.grandchild" ] && break; sleep 0.1; done
# (pgrep: a /proc walk in bash took seconds on a loaded machine, and the run could
# end meanwhile)
notary_pid=$(pgrep -f "notary serve --addr 127.0.0.1 --port $nport " | head -1 || true)
[ -n "$notary_pid" ] || fail "could not find the harness's notary"
kill -KILL "$notary_pid" || fail "notary $notary_pid: $(cat "$WORK/dead.err" "$WORK/dead.out")"
rc=0; wait "$hpid" || rc=$?
[ "$rc" -eq 1 ] || fail "notary death: exit $rc"
grep -q 'the notary server exited with code 137 during the run' "$WORK/dead.err" || fail "notary death message: $(cat "$WORK/dead.err")"
(exec 3<>/dev/tcp/127.0.0.1/"$fport") 2>/dev/null && fail "fixture left running after the notary died"

# A fixture port already taken: a clear error, exit 1, notary never left running.
fport=$(free_port); nport=$(free_port); while [ "$nport" = "$fport" ]; do nport=$(free_port); done
spawn python3 -c 'import socket,time,sys; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(30)' "$fport"
wait_port "$fport"
expect_fail 1 "$TB" bench notary --iterations 1 --notary-tee none --benchmark-modes no_tee \
  --fixture-port "$fport" --notary-port "$nport" --results-dir "$WORK/busy" --retries 0
grep -q "fixture port 127.0.0.1:$fport is not available: Address already in use (--fixture-port 0 picks a free port)" "$WORK/err" \
  || fail "busy port error: $(cat "$WORK/err")"
[ ! -e "$WORK/busy" ] || fail "a busy port must fail before the run directory is created"
(exec 3<>/dev/tcp/127.0.0.1/"$nport") 2>/dev/null && fail "notary left running"
pass bench_default
