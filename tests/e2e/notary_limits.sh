#!/usr/bin/env bash
# labels: threads
# Issue 12, items 2, 3, 9 and 11 against the real notary process:
#  - a target that trickles one byte every 0.5 s is given up at
#    --target-timeout (504), and SIGTERM does not wait for such a target;
#  - one client cannot exhaust the session table (429 at its quota, others go
#    on), notarizations keep flowing (the figure is printed), an expired
#    session is 410 every time, and a refusal before the target is contacted
#    (403, 422) leaves the session usable;
#  - --allow-target refuses signs, spaces, leading zeros and bare IPv6 hosts.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_notary.sh"

PKI=$WORK/pki
make_pki "$PKI"
TPORT=$(free_port)
start_target "$TPORT" "$PKI/server.pem" "$PKI/server.key"
export TARGET_PORT=$TPORT FIXTURE_CA=$PKI/ca.pem
unset ENABLE_TEE_ATTESTATION MAX_SENT_DATA MAX_RECV_DATA USE_FIXTURE_CA TARGET_URI VERIFY_ATTESTATION
slack=1
[ -n "$TB_SANITIZER" ] && slack=3
secs() { date +%s%N; }
within() { # within START LIMIT: true when less than LIMIT seconds passed since START
  [ $(($(date +%s%N) - $1)) -lt $(($2 * 1000000000)) ]
}

# 1. --target-timeout is one deadline: 504 after ~1 s, not a wait per read
N1=$(free_port)
start_notary "$N1" --trust-ca "$PKI/ca.pem" --target-timeout 1000
t0=$(secs)
expect_fail 1 "$TB" notarize --notary-port "$N1" --uri /trickle
grep -q "notary answered 504" "$WORK/err" || fail "trickling target: $(cat "$WORK/err")"
grep -q "limited to 1000 ms" "$WORK/err" || fail "deadline message: $(cat "$WORK/err")"
within "$t0" $((2 + slack)) || fail "504 came later than $((2 + slack)) s"
pass "a trickling target is given up at --target-timeout (504)"

# 2. SIGTERM while a notarization waits for a trickling target (deadline 60 s)
N2=$(free_port)
spawn "$TB" notary serve --port "$N2" --quiet --trust-ca "$PKI/ca.pem" --target-timeout 60000 \
  >"$WORK/n2.out" 2>"$WORK/n2.err"
n2=$SPAWNED_PID
wait_port "$N2"
"$TB" notarize --notary-port "$N2" --uri /trickle >"$WORK/c.out" 2>"$WORK/c.err" &
client=$!
# wait until the notary is connected to the target (the notarization is in flight)
for _ in $(seq 200); do
  [ -n "$(ss -Htn state established "( dport = :$TPORT )" 2>/dev/null)" ] && break
  sleep 0.05
done
[ -n "$(ss -Htn state established "( dport = :$TPORT )")" ] || fail "the notary never reached the target"
sleep 0.5
t0=$(secs)
kill -TERM "$n2"
for _ in $(seq 100); do kill -0 "$n2" 2>/dev/null || break; sleep 0.05; done
! kill -0 "$n2" 2>/dev/null || fail "the notary still runs 5 s after SIGTERM"
within "$t0" $((2 + slack)) || fail "SIGTERM took more than $((2 + slack)) s"
grep -q "stopped (SIGTERM)" "$WORK/n2.out" || fail "stop line: $(cat "$WORK/n2.out")"
! wait "$client" || fail "the client succeeded against a stopped notary"
grep -q "503" "$WORK/c.err" || fail "client of the stopped notary: $(cat "$WORK/c.err")"
pass "SIGTERM does not wait for a trickling target (the client gets 503)"

# 3. sessions: one client's flood, honest throughput, expiry, refusals
N3=$(free_port)
start_notary "$N3" --trust-ca "$PKI/ca.pem" --session-timeout 2 --concurrency 4
python3 - "$N3" "$TPORT" >"$WORK/s.out" 2>"$WORK/s.err" <<'PY' || fail "sessions: $(cat "$WORK/s.err")"
import base64, http.client, json, socket, sys, time
port, tport = int(sys.argv[1]), int(sys.argv[2])

def call(path, body, src="127.0.0.1"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(src, 0))
    c.request("POST", path, json.dumps(body))
    r = c.getresponse()
    out = (r.status, json.loads(r.read()))
    c.close()
    return out

req = base64.b64encode(b"GET /formats/json?size=1 HTTP/1.1\r\nHost: test-server.io\r\n"
                       b"Connection: close\r\n\r\n").decode()
good = {"host": "127.0.0.1", "port": tport, "serverName": "test-server.io", "request": req}
# a flood from 127.0.0.2: its quota (64) and then 429, in well under a second
codes = [call("/session", {}, "127.0.0.2")[0] for _ in range(100)]
assert codes.count(200) == 64 and codes.count(429) == 36, codes
# honest notarizations from 127.0.0.1 meanwhile: count them for 2 s
n, t0 = 0, time.monotonic()
while time.monotonic() - t0 < 2:
    st, s = call("/session", {})
    assert st == 200, s
    st, d = call("/notarize?sessionId=" + s["sessionId"], good)
    assert st == 200, d
    n += 1
rate = n / (time.monotonic() - t0)
# a replay is 409, every time
for _ in range(2):
    st, e = call("/notarize?sessionId=" + s["sessionId"], good)
    assert st == 409, (st, e)
# 403 and 422 before the target is contacted leave the session usable
st, s = call("/session", {"maxSentData": 10})
for _ in range(2):
    assert call("/notarize?sessionId=" + s["sessionId"], good)[0] == 422
far = dict(good, host="192.0.2.1")
st, s = call("/session", {})
for _ in range(2):
    assert call("/notarize?sessionId=" + s["sessionId"], far)[0] == 403
assert call("/notarize?sessionId=" + s["sessionId"], good)[0] == 200
# an expired session is 410, and 410 again (it used to be 404 the second time)
st, s = call("/session", {})
time.sleep(2.3)
for _ in range(2):
    st, e = call("/notarize?sessionId=" + s["sessionId"], good)
    assert st == 410 and "expired" in e["error"], (st, e)
# the flooder's sessions expired too: it may create again
assert call("/session", {}, "127.0.0.2")[0] == 200
print(f"honest notarizations beside a session flood: {n} in 2 s ({rate:.0f}/s)")
PY
cat "$WORK/s.out"
pass "session flood: 429 for the flooder only; replays 409, expiry 410 twice; 403/422 keep the session"

# 4. --allow-target spelling
for spec in 10.0.0.0/-0 10.0.0.0/+8 '10.0.0.0/ 8' 10.0.0.0/08 10.0.0.1/8 ::1 '[::1]:0443' 'bad_host:443'; do
  expect_fail 2 "$TB" notary serve --port 0 --allow-target "$spec"
  grep -qF "allow-target '$spec'" "$WORK/err" || fail "$spec: $(cat "$WORK/err")"
done
grep -q "in brackets" <("$TB" notary serve --port 0 --allow-target ::1 2>&1) || fail "::1 message"
pass "--allow-target refuses signs, spaces, leading zeros, host bits and bare IPv6"
