#!/usr/bin/env bash
# kill -9 of the harness: the fixture server, the notary and the client it started
# die with it (PR_SET_PDEATHSIG in base/proc), so their ports are free for the next
# run at once instead of "fixture port 127.0.0.1:4000 is not available".
source "$(dirname "$0")/lib.sh"
fport=$(free_port)
nport=$(free_port)
[ "$fport" != "$nport" ] || nport=$(free_port)
mkdir -p "$WORK/state"
# The client sleeps and records its pid: the harness is killed while it runs.
"$TB" bench notary --results-dir "$WORK/r" --iterations 1 --benchmark-modes no_tee \
  --fixture-port "$fport" --notary-port "$nport" --notary-tee none \
  --client-cmd "echo \$\$ > $WORK/state/client.pid; exec sleep 60" \
  >"$WORK/bench.out" 2>"$WORK/bench.err" &
harness=$!
for _ in $(seq 200); do [ -s "$WORK/state/client.pid" ] && break; sleep 0.05; done
[ -s "$WORK/state/client.pid" ] || { kill -9 $harness; fail "the client never started: $(cat "$WORK/bench.err")"; }
client=$(cat "$WORK/state/client.pid")
wait_port "$fport" 5
wait_port "$nport" 5
kill -9 $harness
wait $harness 2>/dev/null || true
listening() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
gone=0
for _ in $(seq 100); do
  if ! listening "$fport" && ! listening "$nport" && ! kill -0 "$client" 2>/dev/null; then gone=1; break; fi
  # A killed child whose new parent does not reap it stays a zombie: that is gone too.
  if ! listening "$fport" && ! listening "$nport" && grep -q '^State:.*Z' /proc/"$client"/status 2>/dev/null; then gone=1; break; fi
  sleep 0.05
done
[ $gone -eq 1 ] || fail "after kill -9 of the harness: fixture listening $(listening "$fport" && echo yes || echo no), notary listening $(listening "$nport" && echo yes || echo no), client alive $(kill -0 "$client" 2>/dev/null && echo yes || echo no)"
# The next run gets the same fixture port.
"$TB" bench notary --results-dir "$WORK/r2" --iterations 1 --benchmark-modes no_tee \
  --fixture-port "$fport" --notary-port "$nport" --notary-tee none \
  --client-cmd 'echo NOTARIZATION_MS=5' >"$WORK/bench2.out" 2>&1 || fail "the next run: $(cat "$WORK/bench2.out")"
pass bench_kill9
