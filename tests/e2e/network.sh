#!/usr/bin/env bash
# `teebench network`: 1. here, over loopback -- the text (every test, its units) and the
# teebench-network/1 document (iperf3's TCP streams split over processes where it is not
# threaded and summed, UDP throughput and loss, the round trips), `results import` of it (the suite's
# metric names and units); 2. `network serve` in a network namespace (198.18.0.0/15, as
# lib_hosts.sh makes them), the clients here across the veth pair; 3. no iperf3: tcp and
# udp skipped with the package to install, rtt measured, in the command and in the suite
# (whose network workload quick leaves out unless named); 4. bad flags (one line, exit 2).
source "$(dirname "$0")/lib.sh"
command -v iperf3 >/dev/null || skip "iperf3 is not installed (scripts/setup.sh --test installs it)"


# 1. here
"$TB" network --duration 1 --streams 2 --udp-sizes 1472 --rtt 200ms --json >"$WORK/net.json" \
  2>"$WORK/net.err" || fail "network --json: $(cat "$WORK/net.err")"
python3 - "$WORK/net.json" <<'PY' || fail "network JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "teebench-network/1" and d["env"]["platform"]["value"], d.keys()
assert d["server"]["host"] == "127.0.0.1" and d["server"]["remote"] is False, d["server"]
assert d["iperf3"]["version"], d["iperf3"]
assert d["skipped"] == [], d["skipped"]
(t,) = d["tcp"]
assert t["streams"] == 2 and sum(r["streams"] for r in t["runs"]) == 2, t
assert len(t["runs"]) == t["processes"] == (1 if d["iperf3"]["threaded"] else 2), t
assert abs(t["throughput_bps"] - sum(r["received_bps"] for r in t["runs"])) < 1, t
assert t["throughput_bps"] > 1e7, t  # loopback: far more than 10 Mbit/s anywhere
(u,) = d["udp"]
assert u["size"] == 1472 and u["throughput_bps"] > 0 and 0 <= u["loss_percent"] <= 100, u
assert u["packets"] > 0 and 0 <= u["lost_packets"] <= u["packets"], u
assert [r["protocol"] for r in d["rtt"]] == ["tcp", "udp"], d["rtt"]
for r in d["rtt"]:
    assert r["round_trips"] > 100 and 0 < r["min_us"] <= r["p50_us"] <= r["p99_us"] <= r["max_us"], r
PY
DB=$WORK/db
"$TB" results --db "$DB" import "$WORK/net.json" --label net >"$WORK/imp" || fail "import: $(cat "$WORK/imp")"
grep -q '(7 metrics)' "$WORK/imp" || fail "7 metrics imported: $(cat "$WORK/imp")"
"$TB" results --db "$DB" export net >"$WORK/exp.json" || fail "export"
python3 - "$WORK/exp.json" <<'PY' || fail "imported metrics"
import json, sys
d = json.load(open(sys.argv[1]))
if isinstance(d, list): d = d[0]
m = {x["name"]: x["unit"] for x in d["metrics"]}
assert m == {"network.tcp.p2.throughput": "bit/s", "network.udp.1472b.throughput": "bit/s",
             "network.udp.1472b.loss": "%", "network.rtt.tcp.p50": "us",
             "network.rtt.tcp.p99": "us", "network.rtt.udp.p50": "us",
             "network.rtt.udp.p99": "us"}, m
PY
"$TB" network --tests tcp --duration 1 --streams 1 >"$WORK/text" 2>&1 || fail "text: $(cat "$WORK/text")"
grep -Eq '^  tcp  -P 1 +[0-9]+\.[0-9]{3} Gbit/s received \(1 iperf3 process' "$WORK/text" ||
  fail "tcp row: $(cat "$WORK/text")"
pass "network here: tcp, udp, rtt, the document and its import"

# 2. the servers in a network namespace, the clients here
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! ip netns add "tbnet$$" 2>/dev/null; then
  echo "note: no network namespaces here (root and iproute2): the namespace pair is not tested"
else
  NS="tbnet$$" VH="tbneth$$" VN="tbnetn$$"
  cleanup_ns() {
    for p in $(ip netns pids "$NS" 2>/dev/null); do kill -TERM "$p" 2>/dev/null || true; done
    sleep 0.2
    for p in $(ip netns pids "$NS" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    ip netns del "$NS" 2>/dev/null || true
    ip link del "$VH" 2>/dev/null || true
  }
  trap 'cleanup_ns; _tb_cleanup' EXIT
  n=
  for _ in $(seq 50); do
    c=$((RANDOM % 250 + 1))
    ip -4 addr show | grep -q "inet 198\.18\.$c\." || { n=$c; break; }
  done
  [ -n "$n" ] || fail "no free 198.18.N.0/24"
  ip link add "$VH" type veth peer name "$VN"
  ip link set "$VN" netns "$NS"
  ip addr add "198.18.$n.1/24" dev "$VH"
  ip link set "$VH" up
  ip netns exec "$NS" ip link set lo up
  ip netns exec "$NS" ip addr add "198.18.$n.2/24" dev "$VN"
  ip netns exec "$NS" ip link set "$VN" up
  A="198.18.$n.2"
  mkdir "$WORK/srv"
  ip netns exec "$NS" "$TB" network serve --addr "$A" --port 5301 --procs 1 --dir "$WORK/srv" \
    --daemon --json >"$WORK/serve.json" 2>"$WORK/serve.err" || fail "serve --daemon: $(cat "$WORK/serve.err")"
  python3 - "$WORK/serve.json" "$A" <<'PY' || fail "serve's line: $(cat "$WORK/serve.json")"
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert d["schema"] == "teebench-network-serve/1", d
assert d["addr"] == sys.argv[2] and d["port"] == 5301, d
PY
  "$TB" network --server "$A:5301" --duration 1 --streams 1 --udp-sizes 64 --rtt 200ms --json \
    >"$WORK/ns.json" 2>"$WORK/ns.err" || fail "network across the namespaces: $(cat "$WORK/ns.err")"
  python3 - "$WORK/ns.json" "$A" <<'PY' || fail "network across the namespaces: the document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["server"]["host"] == sys.argv[2] and d["server"]["port"] == 5301, d["server"]
assert d["server"]["remote"] is True, d["server"]
assert [r["port"] for r in d["tcp"][0]["runs"]] == [5302], d["tcp"]
assert d["tcp"][0]["throughput_bps"] > 1e6 and d["udp"][0]["packets"] > 0
assert all(r["round_trips"] > 10 for r in d["rtt"]), d["rtt"]
PY
  # nothing listening there: one line, at once
  t0=$(date +%s)
  expect_fail 1 "$TB" network --server "$A:5311" --tests rtt --rtt 100ms
  grep -q "$A:5311" "$WORK/err" || fail "no server: $(cat "$WORK/err")"
  [ $(($(date +%s) - t0)) -lt 10 ] || fail "the refusal took $(($(date +%s) - t0)) s"
  ip netns exec "$NS" "$TB" network serve --stop --dir "$WORK/srv" || fail "serve --stop"
  [ -z "$(ip netns pids "$NS")" ] || fail "serve --stop left processes: $(ip netns pids "$NS")"
  [ ! -e "$WORK/srv/serve.pid" ] || fail "serve --stop left serve.pid"
  pass "network serve in a namespace ($A), the clients here; no server refused"
fi

# 3. no iperf3: tcp and udp skipped with the package, rtt measured
"$TB" network --iperf3 "$WORK/none/iperf3" --duration 1 --rtt 100ms --json >"$WORK/no.json" \
  2>"$WORK/no.err" || fail "without iperf3: $(cat "$WORK/no.err")"
python3 - "$WORK/no.json" <<'PY' || fail "without iperf3: the document"
import json, sys
d = json.load(open(sys.argv[1]))
sk = {s["test"]: s["reason"] for s in d["skipped"]}
assert sorted(sk) == ["tcp", "udp"], d["skipped"]
assert all("install the package iperf3" in r for r in sk.values()), sk
assert not d.get("tcp") and not d.get("udp") and len(d["rtt"]) == 2, d
PY
"$TB" suite plan --profile quick >"$WORK/plan" || fail "plan"
grep -q 'network' "$WORK/plan" && fail "quick runs network: $(cat "$WORK/plan")"
"$TB" suite run --profile quick --workloads network --repeat 1 --set network.rtt=100ms \
  --set "network.iperf3_bin=$WORK/none/iperf3" --no-store -o "$WORK/suite.json" --progress none \
  >"$WORK/suite.out" 2>&1 || fail "suite: $(cat "$WORK/suite.out")"
python3 - "$WORK/suite.json" <<'PY' || fail "suite without iperf3"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete", r["status"]
assert sorted(m["name"] for m in r["metrics"]) == ["network.rtt.tcp.p50", "network.rtt.tcp.p99",
                                                   "network.rtt.udp.p50", "network.rtt.udp.p99"]
sk = r["extra"]["skipped"]
assert [s["target"] for s in sk] == ["tcp", "udp"], sk
assert all("install the package iperf3" in s["reason"] for s in sk), sk
PY
pass "no iperf3: tcp and udp skipped with the package, rtt measured (command and suite)"

# 4. bad flags
expect_fail 2 "$TB" network --streams 0
grep -q -- '--streams 0: ' "$WORK/err" || fail "names the flag: $(cat "$WORK/err")"
expect_fail 2 "$TB" network --udp-sizes 8
expect_fail 2 "$TB" network --tests ping
expect_fail 2 "$TB" network --server nowhere
expect_fail 2 "$TB" network --profile fast
expect_fail 2 "$TB" network --iperf3 iperf3
expect_fail 2 "$TB" network serve --daemon
grep -q -- '^teebench: network serve: --daemon needs --dir DIR' "$WORK/err" || fail "serve --daemon: $(cat "$WORK/err")"
pass network
