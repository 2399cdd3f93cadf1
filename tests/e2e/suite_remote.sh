#!/usr/bin/env bash
# `teebench suite run --target NAME=ssh://...`: two hosts made by the test (network
# namespaces, veth, 198.18.0.0/15, sshd with throwaway keys; tests/e2e/lib_hosts.sh),
# each starting without a teebench. The suite copies this build there once, runs
# there, streams progress back, stores both results here and prints the comparison;
# `compare` then finds the stored runs by label. Bad targets, an unreachable host, a
# remote that cannot run teebench (a missing library) and Ctrl-C are each checked.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_hosts.sh"
hosts_up a b
A=${HOST_ADDR[a]} B=${HOST_ADDR[b]}
DB=$WORK/results.db
small=(--profile quick --workloads syscall,probe --repeat 2 --set syscall.duration=0.2
       --set syscall.passes=2 --set probe.probes=getpid,rdtsc --set probe.max_reps=2000)

# 1. two targets: copied, run, stored, compared
"$TB" suite run "${small[@]}" --target a=ssh://a --target "b=ssh://root@$B:22/" \
  --ssh-config "$SSH_CONFIG" --db "$DB" -o "$WORK/res" --progress plain \
  >"$WORK/run.out" 2>"$WORK/run.err" || fail "suite with two targets: $(tail -5 "$WORK/run.err")"
grep -q '^suite\[a\] \[[0-9]*/[0-9]*\] round 1/2: syscall c1: ok' "$WORK/run.err" ||
  fail "progress of a streamed back: $(head -5 "$WORK/run.err")"
grep -q '^suite\[b\]: complete after' "$WORK/run.err" || fail "b's end streamed back"
grep -q '^== comparison (baseline a)' "$WORK/run.out" || fail "comparison printed: $(cat "$WORK/run.out")"
grep -Eq '^syscall\.c1\.lps +lps +higher' "$WORK/run.out" || fail "comparison rows"
# under the table, compare's multiple-comparison line
grep -Eq '^b vs a: [0-9]+ of [0-9]+ rows? differ at α = 0\.05; ≈ [0-9.]+ expected by chance$' "$WORK/run.out" ||
  fail "multiple-comparison line: $(sed -n '/^== comparison/,$p' "$WORK/run.out")"
python3 - "$WORK/res" <<'PY' || fail "result files"
import json, sys, os
for name in ("a", "b"):
    d = json.load(open(os.path.join(sys.argv[1], name + ".json")))
    assert d["schema"] == "teebench-result" and d["label"] == name and d["status"] == "complete", d["label"]
    names = {m["name"] for m in d["metrics"]}
    assert {"syscall.c1.lps", "syscall.cn.index", "probe.getpid.ns"} <= names, names
    assert d["env"]["platform"]["value"], d["env"]
    assert any("suite run" in c for c in d["commands"]) or d["commands"], d["commands"]
PY
"$TB" results list --db "$DB" >"$WORK/list" || fail "results list"
[ "$(grep -cE ' (a|b) +[A-Za-z-]+ +custom +complete' "$WORK/list")" = 2 ] || fail "both runs stored: $(cat "$WORK/list")"
"$TB" compare a b --db "$DB" --format csv >"$WORK/cmp.csv" || fail "compare the stored labels"
grep -q '^syscall.c1.lps,' "$WORK/cmp.csv" || grep -q 'syscall.c1.lps' "$WORK/cmp.csv" || fail "compare rows: $(head -3 "$WORK/cmp.csv")"
# this build was copied once per host, into its own cache
for h in a b; do
  ssh -F "$SSH_CONFIG" "$h" 'ls ~/.cache/teebench/' >"$WORK/ls.$h" || fail "ls on $h"
  grep -Eq '^teebench-[0-9.]+-[0-9a-f]{12}$' "$WORK/ls.$h" || fail "binary on $h: $(cat "$WORK/ls.$h")"
done
ssh -F "$SSH_CONFIG" a 'stat -c %Y ~/.cache/teebench/teebench-*' >"$WORK/mtime1"

# 2. a second run reuses the copy; an unreachable target is reported, the other still runs
"$TB" suite run --profile quick --workloads probe --set probe.probes=getpid --set probe.max_reps=500 \
  --target "gone=ssh://root@$A:2" --target a=ssh://a --ssh-config "$SSH_CONFIG" --db "$DB" \
  --progress none >"$WORK/run2.out" 2>"$WORK/run2.err" && fail "an unreachable target makes the exit non-zero"
grep -q '^teebench: suite: gone: ' "$WORK/run2.err" || fail "the unreachable target is named: $(cat "$WORK/run2.err")"
[ "$(grep -c '^teebench: suite: gone: ' "$WORK/run2.err")" = 1 ] || fail "one line for it"
grep -q 'teebench suite: a, profile' "$WORK/run2.out" || fail "a still ran: $(cat "$WORK/run2.out")"
ssh -F "$SSH_CONFIG" a 'stat -c %Y ~/.cache/teebench/teebench-*' >"$WORK/mtime2"
cmp -s "$WORK/mtime1" "$WORK/mtime2" || fail "the copy was reused, not copied again"

# 2b. --http-client local: nginx started on the host under test, loaded from here over
#     the veth (the source document's setup); nginx stopped there afterwards, its run
#     directory removed
"$TB" suite run --profile quick --workloads http --set http.targets=nginx --set http.duration=0.5s \
  --repeat 2 --target b=ssh://b --ssh-config "$SSH_CONFIG" --http-client local --no-store \
  -o "$WORK/hc" --progress plain >"$WORK/hc.out" 2>"$WORK/hc.err" || fail "http-client local: $(tail -3 "$WORK/hc.err")"
grep -q "^suite\[b\]: nginx at http://$B:[0-9]*/, the load generator here" "$WORK/hc.err" ||
  fail "nginx there, load here: $(grep nginx "$WORK/hc.err")"
python3 - "$WORK/hc/b.json" <<'PY' || fail "http-client local result"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["extra"]["http_client"]["mode"] == "local", d["extra"].get("http_client")
m = {x["name"]: x for x in d["metrics"]}
assert len(m["http.nginx.rps"]["samples"]) == 2 and min(m["http.nginx.rps"]["samples"]) > 0
assert "another machine" in m["http.nginx.rps"]["note"], m["http.nginx.rps"]["note"]
assert not any(n.startswith("http.serve-tls") for n in m)
PY
for ns in "${_TB_NETNS[@]}"; do
  ip netns pids "$ns" | xargs -r ps -o comm= -p | grep -q nginx && fail "nginx left running on a host"
done
hc_port=$(sed -n "s|^suite\[b\]: nginx at http://$B:\([0-9]*\)/, the load generator here.*|\1|p" "$WORK/hc.err")
[ -n "$hc_port" ] || fail "no nginx port in: $(grep nginx "$WORK/hc.err")"
ssh -F "$SSH_CONFIG" b "test ! -e /tmp/teebench-http-client.b.$hc_port" ||
  fail "nginx's run directory /tmp/teebench-http-client.b.$hc_port left on b"
expect_fail 2 "$TB" suite run --http-client sideways --no-store

# 3. a remote where teebench cannot run: the missing library and its package are named
cat >"$WORK/nolib" <<'SH'
#!/bin/sh
echo "teebench: error while loading shared libraries: libjansson.so.4: cannot open shared object file: No such file or directory" >&2
exit 127
SH
chmod 755 "$WORK/nolib"
expect_fail 1 "$TB" suite run --profile quick --workloads probe --target a=ssh://a \
  --ssh-config "$SSH_CONFIG" --remote-binary "$WORK/nolib" --no-store --progress none
grep -q 'libjansson.so.4 is missing (Debian package libjansson4)' "$WORK/err" || fail "package named: $(cat "$WORK/err")"

# 4. bad targets: one line, exit 2, nothing runs
expect_fail 2 "$TB" suite run --target a=http://example.org --no-store
expect_fail 2 "$TB" suite run --target noequals --no-store
expect_fail 2 "$TB" suite run --target 'a=ssh://host/path' --no-store
expect_fail 2 "$TB" suite run --target a=ssh://a --target a=ssh://b --no-store
expect_fail 2 "$TB" suite run --target 'bad/name=ssh://a' --no-store
expect_fail 2 "$TB" suite run --target 'bad name =ssh://a' --no-store

# 5. Ctrl-C while a remote target runs: the remote suite is interrupted and its
#    finished samples come back; nothing keeps running there
"$TB" suite run --profile quick --workloads syscall --repeat 50 --set syscall.duration=0.5 \
  --set syscall.passes=2 --target a=ssh://a --ssh-config "$SSH_CONFIG" --db "$DB" \
  -o "$WORK/int" --progress plain >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
for _ in $(seq 300); do grep -q 'round 2/50' "$WORK/int.err" 2>/dev/null && break; sleep 0.1; done
grep -q 'round 2/50' "$WORK/int.err" || fail "the remote run did not start: $(cat "$WORK/int.err")"
kill -INT $pid
rc=0; wait $pid || rc=$?
[ $rc = 130 ] || fail "interrupted run exits 130, got $rc: $(tail -3 "$WORK/int.err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="interrupted" and d["metrics"], d["status"]' \
  "$WORK/int/a.json" || fail "the interrupted remote result came back"
sleep 0.5
ns_pids=$(for ns in "${_TB_NETNS[@]}"; do ip netns pids "$ns"; done | xargs -r ps -o comm= -p | grep -c teebench || true)
[ "$ns_pids" = 0 ] || fail "teebench still running on the hosts"
pass suite_remote
