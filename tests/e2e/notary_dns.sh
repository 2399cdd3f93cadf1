#!/usr/bin/env bash
# labels: threads
# Issue 19, the notary's name resolution, against a DNS server that never
# answers: the old notary resolved target names with a blocking getaddrinfo
# outside its deadline (10 s and more a name), so such names held its workers,
# stalled honest notarizations, and SIGTERM waited for them and then closed the
# clients' connections unanswered. Checked here:
#  1. a name nobody answers for fails with 504 at --target-timeout (1 s), not
#     at the resolver's own timeouts (set to 30 s x 5 attempts here);
#  2. 32 such notarizations from one /24 at once (32 workers): 8 lookups (the
#     network's cap) wait, the rest are refused at once (429), lookups the notary gave up on
#     still count (429 again), and honest notarizations from another network --
#     by IP and by a name in /etc/hosts -- are not stalled meanwhile;
#  3. SIGTERM while a lookup hangs: the client is answered 503 within a second
#     and the notary exits promptly.
# The test runs in network and mount namespaces of its own: /etc/resolv.conf
# names 127.0.0.1 of that namespace, where a UDP socket reads queries and never
# replies; /etc/hosts and /etc/nsswitch.conf are the test's (files, then dns).
if [ -z "${TB_DNS_NS:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare --net --mount true 2>/dev/null; then
    exec unshare --net --mount --propagation private env TB_DNS_NS=1 bash "$0" "$@"
  fi
  source "$(dirname "$0")/lib.sh"
  skip "needs root and unshare --net --mount (util-linux) for a DNS server of its own"
fi
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_notary.sh"

ip link set lo up || skip "cannot bring up loopback in a new network namespace"
mkdir -p "$WORK/etc"
printf 'nameserver 127.0.0.1\noptions timeout:30 attempts:5\n' >"$WORK/etc/resolv.conf"
printf '127.0.0.1 localhost\n127.0.0.1 test-server.io\n' >"$WORK/etc/hosts"
printf 'hosts: files dns\n' >"$WORK/etc/nsswitch.conf"
for f in resolv.conf hosts nsswitch.conf; do
  mount --bind "$WORK/etc/$f" "/etc/$f" || skip "cannot bind-mount /etc/$f in a mount namespace"
done

# the black hole: counts the queries it reads, answers none
spawn python3 -c '
import signal, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
n = 0
def bye(*_):
    open(sys.argv[1], "w").write(str(n))
    sys.exit(0)
signal.signal(signal.SIGTERM, bye)
print("ready", flush=True)
while True:
    s.recvfrom(4096)
    n += 1
    open(sys.argv[1], "w").write(str(n))
' "$WORK/queries" >"$WORK/dns.out"
for _ in $(seq 100); do grep -q ready "$WORK/dns.out" 2>/dev/null && break; sleep 0.05; done
grep -q ready "$WORK/dns.out" || fail "the black-hole DNS server did not start"

PKI=$WORK/pki
make_pki "$PKI"
TPORT=$(free_port)
start_target "$TPORT" "$PKI/server.pem" "$PKI/server.key"
export TARGET_PORT=$TPORT FIXTURE_CA=$PKI/ca.pem
unset ENABLE_TEE_ATTESTATION MAX_SENT_DATA MAX_RECV_DATA USE_FIXTURE_CA TARGET_URI VERIFY_ATTESTATION
slack=1 limit_ms=1000
[ -n "$TB_SANITIZER" ] && slack=3 limit_ms=3000
now() { date +%s%N; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# 1. one name nobody answers for: 504 at the deadline
NPORT=$(free_port)
start_notary "$NPORT" --trust-ca "$PKI/ca.pem" --target-timeout 1000 --concurrency 32
export NOTARY_PORT=$NPORT
t0=$(now)
expect_fail 1 "$TB" notarize --target-host stuck.example
took=$(ms_since "$t0")
grep -q "notary answered 504: target stuck.example:$TPORT: resolving the name: no answer before the deadline (name resolution and the target exchange are limited to 1000 ms)" "$WORK/err" \
  || fail "stuck name: $(cat "$WORK/err")"
[ "$took" -lt $((1000 + slack * 1000)) ] || fail "the stuck name was answered after $took ms"
[ "$(cat "$WORK/queries")" -ge 1 ] || fail "the notary never asked the DNS server"
pass "a name whose DNS server never answers: 504 after $took ms (--target-timeout 1000)"

# 2. a flood of stuck names from 127.0.5.0/24, honest notarizations beside it
python3 - "$NPORT" "$TPORT" >"$WORK/flood.out" 2>"$WORK/flood.err" <<'PY' &
import base64, http.client, json, sys, threading
port, tport = int(sys.argv[1]), int(sys.argv[2])
req = base64.b64encode(b"GET / HTTP/1.1\r\nHost: test-server.io\r\n\r\n").decode()

def call(path, body, src):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20, source_address=(src, 0))
    c.request("POST", path, json.dumps(body))
    r = c.getresponse()
    out = (r.status, json.loads(r.read()))
    c.close()
    return out

def notarize(i, wave, results):
    src = "127.0.5.%d" % (2 + i % 8)
    st, s = call("/session", {}, src)
    assert st == 200, s
    body = {"host": "w%d-%d.stuck.example" % (wave, i), "port": tport,
            "serverName": "test-server.io", "request": req}
    results[i] = call("/notarize?sessionId=" + s["sessionId"], body, src)

def wave(n, w):
    results = [None] * n
    ts = [threading.Thread(target=notarize, args=(i, w, results)) for i in range(n)]
    for t in ts: t.start()
    for t in ts: t.join()
    return results

r1 = wave(32, 1)
codes = sorted(st for st, _ in r1)
assert codes.count(504) == 8 and codes.count(429) == 24, codes
# the 8 abandoned lookups still hang in the resolver: a new wave is refused at once
r2 = wave(8, 2)
assert all(st == 429 for st, _ in r2), r2
assert any("name resolutions in flight" in e["error"] for _, e in r2), r2
print("flood: wave 1: 8 x 504, 24 x 429; wave 2: 8 x 429 (abandoned lookups still count)")
PY
flood=$!
sleep 0.5 # the first wave's lookups hang
for host in 127.0.0.1 test-server.io; do
  "$TB" notarize --target-host "$host" >"$WORK/h.out" 2>"$WORK/h.err" || fail "honest notarization via $host beside the flood: $(cat "$WORK/h.err")"
  ms=$(sed -n 's/^NOTARIZATION_MS=\([0-9.]*\) .*/\1/p' "$WORK/h.out")
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$ms" "$limit_ms" \
    || fail "honest notarization via $host took $ms ms beside the flood (limit $limit_ms ms)"
  echo "honest notarization via $host beside 8 hanging lookups: $ms ms"
done
wait "$flood" || fail "flood: $(cat "$WORK/flood.err")"
cat "$WORK/flood.out"
pass "stuck names from one network: capped, refused at once beyond the cap; honest clients not stalled"

# 3. SIGTERM while a lookup hangs (deadline 60 s): 503 within a second, prompt exit
N2=$(free_port)
spawn "$TB" notary serve --port "$N2" --trust-ca "$PKI/ca.pem" --target-timeout 60000 \
  >"$WORK/n2.out" 2>"$WORK/n2.err"
n2=$SPAWNED_PID
wait_port "$N2"
"$TB" notarize --notary-port "$N2" --target-host term.stuck.example >"$WORK/c.out" 2>"$WORK/c.err" &
client=$!
for _ in $(seq 100); do grep -q "sessionId\|POST /session -> 200" "$WORK/n2.err" && break; sleep 0.05; done
sleep 0.5
t0=$(now)
kill -TERM "$n2"
wait "$client" && fail "the client succeeded against a stopped notary"
answered=$(ms_since "$t0")
grep -q "notary answered 503" "$WORK/c.err" || fail "client of the stopped notary: $(cat "$WORK/c.err")"
[ "$answered" -lt $((1000 + slack * 500)) ] || fail "the client's 503 came $answered ms after SIGTERM"
for _ in $(seq 100); do kill -0 "$n2" 2>/dev/null || break; sleep 0.05; done
! kill -0 "$n2" 2>/dev/null || fail "the notary still runs 5 s after SIGTERM"
exited=$(ms_since "$t0")
[ "$exited" -lt $((1500 + slack * 1000)) ] || fail "the notary exited $exited ms after SIGTERM"
grep -q "stopped (SIGTERM)" "$WORK/n2.out" || fail "stop line: $(cat "$WORK/n2.out")"
pass "SIGTERM during a hanging lookup: the client got 503 after $answered ms, the notary exited after $exited ms"
