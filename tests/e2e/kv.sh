#!/usr/bin/env bash
# e2e: teebench kv -- real redis-benchmark against real redis-server: one started by the
# command on 127.0.0.1 (plain and TLS, --json, imported); across a network-namespace pair
# (198.18.0.0/15, made here): `teebench kv serve` in the namespace, the client here, over
# plain TCP and TLS with the fixture PKI; an untrusted CA and a server that is not there
# (one line each, not redis-benchmark's endless retries); missing tools (the packages
# named); and the suite's kv workload (measured; skipped with the package).
source "$(dirname "$0")/lib.sh"
command -v redis-server >/dev/null || skip "redis-server is not installed (scripts/setup.sh installs it)"
command -v redis-benchmark >/dev/null || skip "redis-benchmark is not installed (redis-tools)"
FAST=(--requests 3000 --clients 4 --pipeline 8)

# 1. its own redis-server: both transports, one JSON document
"$TB" kv "${FAST[@]}" --json >"$WORK/kv.json" 2>"$WORK/kv.err" || fail "teebench kv --json: $(cat "$WORK/kv.err")"
python3 - "$WORK/kv.json" <<'EOF' || fail "teebench kv --json: the document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "teebench-kv/1", d["schema"]
assert d["redis_server"].startswith("7.") and d["redis_benchmark"] == d["redis_server"], d
o = d["options"]
assert (o["requests"], o["clients"], o["pipeline"]) == (3000, 4, 8), o
runs = {r["transport"]: r for r in d["runs"]}
assert sorted(runs) == ["plain", "tls"], runs.keys()
for r in runs.values():
    assert r["server"].startswith("127.0.0.1:"), r
    tests = {t["test"]: t for t in r["tests"]}
    assert sorted(tests) == ["GET", "SET"], tests
    for t in tests.values():
        assert t["rps"] > 0 and 0 <= t["p50_ms"] <= t["p95_ms"] <= t["p99_ms"], t
assert runs["plain"]["server"] != runs["tls"]["server"]
print("plain GET %.0f req/s, TLS GET %.0f req/s" % (
    [t for t in runs["plain"]["tests"] if t["test"] == "GET"][0]["rps"],
    [t for t in runs["tls"]["tests"] if t["test"] == "GET"][0]["rps"]))
EOF
pgrep -f "redis-server.*teebench-kv" >/dev/null && fail "the redis-server of teebench kv still runs"
DB="$WORK/r.db"
"$TB" results --db "$DB" import "$WORK/kv.json" >"$WORK/imp.out" || fail "import of teebench kv --json"
"$TB" results --db "$DB" show "$(awk '{print $2; exit}' "$WORK/imp.out")" >"$WORK/show.out"
for m in kv.plain.set.rps kv.tls.get.latency.p99 kv.tls.set.latency.p50; do
  grep -q "$m" "$WORK/show.out" || fail "imported run lacks $m"
done
"$TB" kv "${FAST[@]}" --transports plain >"$WORK/kv.txt" || fail "text output"
grep -Eq '^plain +GET +[0-9.]+ +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+ ms +127\.0\.0\.1:' "$WORK/kv.txt" ||
  fail "text row: $(cat "$WORK/kv.txt")"
grep -q '^tls ' "$WORK/kv.txt" && fail "--transports plain ran TLS"
pass "redis-server here: plain and TLS, --json, imported, text"

# 2. missing tools, each with its package (PATH with redis-server alone, or nothing)
mkdir -p "$WORK/bin" "$WORK/empty"
ln -s "$(command -v redis-server)" "$WORK/bin/redis-server"
expect_fail 1 env PATH="$WORK/bin" "$TB" kv "${FAST[@]}"
grep -q "redis-benchmark is not installed (redis-benchmark not found in PATH): install the package redis-tools" \
  "$WORK/err" || fail "missing redis-benchmark: $(cat "$WORK/err")"
expect_fail 1 env PATH="$WORK/empty" "$TB" kv "${FAST[@]}"
grep -q "install the package redis-server" "$WORK/err" || fail "missing redis-server: $(cat "$WORK/err")"
pass "missing tools: the packages named"

# 3. the server in a network namespace, the client here
[ "$(id -u)" = 0 ] || skip "network namespaces need root (the rest passed)"
command -v ip >/dev/null || skip "iproute2 is not installed (the rest passed)"
NS="tbkv$$" VH="tbkvh$$" VN="tbkvn$$"
ip netns add "$NS" 2>/dev/null || skip "network namespaces are not permitted here (the rest passed)"
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
ip netns exec "$NS" "$TB" kv serve --addr "$A" --port 6379 --tls-port 6380 --pki "$WORK/pki" \
  >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVE=$!
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/$A/6380") 2>/dev/null && break
  kill -0 $SERVE 2>/dev/null || fail "kv serve exited: $(cat "$WORK/serve.err" "$WORK/serve.out")"
  sleep 0.05
done
grep -q "redis-server on $A:6379, TLS on $A:6380 (fixture PKI $WORK/pki" "$WORK/serve.err" ||
  fail "kv serve's line: $(cat "$WORK/serve.err")"
"$TB" kv "${FAST[@]}" --server "$A:6379" --tls-server "$A:6380" --cacert "$WORK/pki/ca.pem" \
  --json >"$WORK/ns.json" 2>"$WORK/ns.err" || fail "kv across the namespaces: $(cat "$WORK/ns.err")"
python3 - "$WORK/ns.json" "$A" <<'EOF' || fail "kv across the namespaces: the document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["redis_server"] is None, d["redis_server"]  # elsewhere: not this machine's to say
runs = {r["transport"]: r for r in d["runs"]}
assert runs["plain"]["server"] == sys.argv[2] + ":6379", runs["plain"]["server"]
assert runs["tls"]["server"] == sys.argv[2] + ":6380", runs["tls"]["server"]
assert all(t["rps"] > 0 for r in runs.values() for t in r["tests"])
EOF
# a CA that did not sign the server's certificate: refused in one line, at once
"$TB" serve --gen-pki "$WORK/other" >/dev/null
t0=$(date +%s)
expect_fail 1 "$TB" kv "${FAST[@]}" --transports tls --tls-server "$A:6380" --cacert "$WORK/other/ca.pem"
grep -q "redis at $A:6380 (TLS): .*certificate verify failed" "$WORK/err" || fail "untrusted CA: $(cat "$WORK/err")"
# nothing on that port: one line
expect_fail 1 "$TB" kv "${FAST[@]}" --transports plain --server "$A:6390"
grep -q "redis at $A:6390" "$WORK/err" || fail "refused: $(cat "$WORK/err")"
[ $(($(date +%s) - t0)) -lt 10 ] || fail "the refusals took $(($(date +%s) - t0)) s"
kill -TERM $SERVE
wait $SERVE 2>/dev/null || true
pass "kv serve in a namespace, the client here: plain and TLS; untrusted CA and no server refused"

# 4. the suite's kv workload, here; and skipped with the package without redis-benchmark
SET=(--set kv.requests=2000 --set kv.clients=4)
"$TB" suite run --profile quick --workloads kv --repeat 1 "${SET[@]}" --no-store \
  -o "$WORK/suite.json" --progress plain >/dev/null 2>"$WORK/suite.err" || fail "suite kv: $(cat "$WORK/suite.err")"
python3 - "$WORK/suite.json" <<'EOF' || fail "suite kv result"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete", (r["status"], r["extra"].get("failures"))
names = {m["name"] for m in r["metrics"]}
want = {"kv.%s.%s.%s" % (t, op, m) for t in ("plain", "tls") for op in ("set", "get")
        for m in ("rps", "latency.p50", "latency.p95", "latency.p99")}
assert names == want, names ^ want
assert r["versions"].get("redis-server", "").startswith("7."), r["versions"]
assert any("redis-benchmark" in c and "--tls" in c for c in r["commands"]), r["commands"]
EOF
ln -s "$(command -v python3)" "$WORK/bin/python3"
env PATH="$WORK/bin" "$TB" suite run --profile quick --workloads kv --repeat 1 "${SET[@]}" \
  --no-store -o "$WORK/suite2.json" --progress plain >/dev/null 2>"$WORK/suite2.err" ||
  fail "suite without redis-benchmark: $(cat "$WORK/suite2.err")"
python3 - "$WORK/suite2.json" <<'EOF' || fail "suite without redis-benchmark"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete" and not r["metrics"], r["status"]
sk = r["extra"]["skipped"]
assert [s["target"] for s in sk] == ["plain", "tls"], sk
assert all("install the package redis-tools" in s["reason"] for s in sk), sk
EOF
pass "suite kv: measured; skipped with the package without redis-benchmark"
