#!/usr/bin/env bash
# `teebench suite run --net-client local`: the network workload's servers (`teebench
# network serve --daemon`) in an ssh target -- a host the test makes (a network
# namespace, veth, 198.18.0.0/15, sshd: tests/e2e/lib_hosts.sh) -- and its clients
# here, over the veth; the network.* metrics measured from here are in that target's
# record (extra.network_client), the rest of the suite ran there, and no server is left
# running there afterwards. A bad value, a vm: target, a local one and no target at all
# are refused (exit 2) before anything runs. Without iperf3 here, tcp and udp are
# skipped (the package named) and the round trips still measured.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_hosts.sh"

# 1. refusals: one line, exit 2, nothing runs (no host needed)
expect_fail 2 "$TB" suite run --net-client sideways --no-store
grep -q "^teebench: suite: --net-client sideways: unknown (remote, local)$" "$WORK/err" ||
  fail "bad value: $(cat "$WORK/err")"
expect_fail 2 "$TB" suite run --profile quick --workloads network --target td=vm:td1 \
  --net-client local --no-store
grep -q "^teebench: suite: --net-client local: td is a VM (vm:td1): only SSH is forwarded" "$WORK/err" ||
  fail "vm: target: $(cat "$WORK/err")"
expect_fail 2 "$TB" suite run --profile quick --workloads network --target here=local \
  --net-client local --no-store
grep -q "^teebench: suite: --net-client local: here is this machine" "$WORK/err" ||
  fail "local target: $(cat "$WORK/err")"
expect_fail 2 "$TB" suite run --profile quick --workloads network --net-client local --no-store
grep -q "^teebench: suite: --net-client local: needs a --target NAME=ssh://" "$WORK/err" ||
  fail "no target: $(cat "$WORK/err")"

# 2. the servers on b, the clients here
hosts_up b
B=${HOST_ADDR[b]}
have_iperf3=1
[ -x /usr/bin/iperf3 ] || { have_iperf3=0; echo "note: iperf3 is not installed here: tcp and udp are skipped"; }
"$TB" suite run --profile quick --workloads network,probe --repeat 2 \
  --set network.duration=1 --set network.streams=2 --set network.udp_sizes=1472 \
  --set network.rtt=100ms --set probe.probes=getpid --set probe.max_reps=500 \
  --target b=ssh://b --ssh-config "$SSH_CONFIG" --net-client local --no-store \
  -o "$WORK/nc" --progress plain >"$WORK/nc.out" 2>"$WORK/nc.err" ||
  fail "net-client local: $(tail -5 "$WORK/nc.err")"
grep -q "^suite\[b\]: network servers at $B:[0-9]* (echo; [0-9]* iperf3 after it), the clients here (--net-client local)" "$WORK/nc.err" ||
  fail "servers there, clients here: $(grep -i network "$WORK/nc.err" | head -5)"
port=$(sed -n "s|^suite\[b\]: network servers at $B:\([0-9]*\) .*|\1|p" "$WORK/nc.err")
python3 - "$WORK/nc/b.json" "$B" "$have_iperf3" <<'PY' || fail "net-client local result"
import json, socket, sys
d = json.load(open(sys.argv[1]))
addr, have_iperf3 = sys.argv[2], sys.argv[3] == "1"
assert d["label"] == "b" and d["status"] == "complete", (d["label"], d["status"])
nc = d["extra"]["network_client"]
assert nc["mode"] == "local" and nc["client"] == socket.gethostname(), nc
assert nc["env"], nc
m = {x["name"]: x for x in d["metrics"]}
want = {"network.rtt.tcp.p50", "network.rtt.tcp.p99", "network.rtt.udp.p50", "network.rtt.udp.p99"}
if have_iperf3:
    want |= {"network.tcp.p2.throughput", "network.udp.1472b.throughput", "network.udp.1472b.loss"}
got = {n for n in m if n.startswith("network.")}
assert got == want, got
for n in want:
    assert len(m[n]["samples"]) == 2 and min(m[n]["samples"]) >= 0, (n, m[n]["samples"])
    if not n.endswith(".loss"):  # the loss's note says what of, not where
        assert "servers in another environment" in m[n].get("note", ""), (n, m[n].get("note"))
if have_iperf3:
    assert min(m["network.tcp.p2.throughput"]["samples"]) > 0
else:
    sk = json.dumps(d["extra"].get("skipped", d["extra"]))
    assert "install the package iperf3" in sk, sk
# the rest of the suite ran there; the commands name the servers there
assert "probe.getpid.ns" in m, sorted(m)
assert any(("--server " + addr + ":") in c for c in d["commands"]), d["commands"]
PY
# nothing left running on b, its run directory removed
for ns in "${_TB_NETNS[@]}"; do
  left=$(ip netns pids "$ns" | xargs -r ps -o args= -p | grep -E 'network serve|iperf3' || true)
  [ -z "$left" ] || fail "left running on b: $left"
done
[ -n "$port" ] || fail "no port in: $(grep 'network servers' "$WORK/nc.err")"
ssh -F "$SSH_CONFIG" b "test ! -e /tmp/teebench-net-client.b.$port" ||
  fail "the servers' run directory /tmp/teebench-net-client.b.$port left on b"

# 3. no iperf3 here (network.iperf3_bin names none): no iperf3 server is started there,
#    tcp and udp are skipped with the package named -- in b's record -- and the round
#    trips still measured from here
"$TB" suite run --profile quick --workloads network --repeat 1 --set network.rtt=50ms \
  --set "network.iperf3_bin=$WORK/none/iperf3" --target b=ssh://b --ssh-config "$SSH_CONFIG" \
  --net-client local --no-store -o "$WORK/ni" --progress plain >"$WORK/ni.out" 2>"$WORK/ni.err" ||
  fail "net-client local without iperf3: $(tail -5 "$WORK/ni.err")"
grep -q "^suite\[b\]: network servers at $B:[0-9]* (echo; 0 iperf3 after it)" "$WORK/ni.err" ||
  fail "no iperf3 server without iperf3 here: $(grep 'network servers' "$WORK/ni.err")"
python3 - "$WORK/ni/b.json" <<'PY' || fail "net-client local without iperf3: the result"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
got = sorted(m["name"] for m in d["metrics"] if m["name"].startswith("network."))
assert got == ["network.rtt.tcp.p50", "network.rtt.tcp.p99", "network.rtt.udp.p50",
               "network.rtt.udp.p99"], got
sk = [x for x in d["extra"]["skipped"] if x["workload"] == "network"]
assert sorted(x["target"] for x in sk) == ["tcp", "udp"], sk
assert all("install the package iperf3" in x["reason"] for x in sk), sk
assert d["extra"]["network_client"]["mode"] == "local"
PY
for ns in "${_TB_NETNS[@]}"; do
  left=$(ip netns pids "$ns" | xargs -r ps -o args= -p | grep -E 'network serve|iperf3' || true)
  [ -z "$left" ] || fail "left running on b (no iperf3 here): $left"
done
pass suite_net_client
