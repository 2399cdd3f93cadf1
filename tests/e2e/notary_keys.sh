#!/usr/bin/env bash
# labels: threads
# Issue 19: API keys for the notary (`notary serve --api-keys FILE`).
#  - a bad keys file is one error line at start that names the line and never
#    shows the key;
#  - without a key, or with a wrong one, POST /session is 401 (JSON error,
#    counted at the stop); /healthcheck and /info stay open;
#  - `notarize` sends the key from --api-key-file, NOTARY_API_KEY_FILE or
#    NOTARY_API_KEY (as "Authorization: Bearer"); the bare key (TLSNotary's
#    form) is accepted too; `bench notary` against such a notary passes the
#    key on to its clients through the environment;
#  - the log names the key's name, never the key;
#  - SIGHUP reads the file again; a broken file keeps the keys in use.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_notary.sh"

PKI=$WORK/pki
make_pki "$PKI"
TPORT=$(free_port)
start_target "$TPORT" "$PKI/server.pem" "$PKI/server.key"
export TARGET_PORT=$TPORT FIXTURE_CA=$PKI/ca.pem
unset ENABLE_TEE_ATTESTATION MAX_SENT_DATA MAX_RECV_DATA USE_FIXTURE_CA TARGET_URI VERIFY_ATTESTATION
unset NOTARY_API_KEY NOTARY_API_KEY_FILE
KA=alice-0123456789abcdef0123456789
KB=bob-fedcba9876543210fedcba9876
KC=carol-00112233445566778899aabb

# 1. bad files: one line, the line number, no key
printf '# keys\n%s\nshort-secret\n' "$KA" >"$WORK/bad.keys"
expect_fail 1 "$TB" notary serve --port 0 --api-keys "$WORK/bad.keys"
grep -q "^teebench: notary serve: --api-keys: $WORK/bad.keys:3: the key has 12 characters: want 16..256" "$WORK/err" \
  || fail "bad keys file: $(cat "$WORK/err")"
! grep -q "short-secret" "$WORK/err" || fail "the error shows the key"
printf 'alice %s\nbob %s\n' "$KA" "$KA" >"$WORK/dup.keys"
expect_fail 1 "$TB" notary serve --port 0 --api-keys "$WORK/dup.keys"
grep -q "dup.keys:2: the same key as an earlier line" "$WORK/err" || fail "duplicate: $(cat "$WORK/err")"
expect_fail 1 "$TB" notary serve --port 0 --api-keys "$WORK/none.keys"
grep -q "api-keys: .*none.keys" "$WORK/err" || fail "missing file: $(cat "$WORK/err")"
pass "bad keys files: one error line with the line number, never the key"

# 2. a notary with two keys
printf '# who may use this notary\nalice %s\n\nbob\t%s\n' "$KA" "$KB" >"$WORK/notary.keys"
NPORT=$(free_port)
spawn "$TB" notary serve --port "$NPORT" --trust-ca "$PKI/ca.pem" --api-keys "$WORK/notary.keys" \
  >"$WORK/n.out" 2>"$WORK/n.err"
npid=$SPAWNED_PID
wait_port "$NPORT"
export NOTARY_PORT=$NPORT
for _ in $(seq 100); do grep -q "listening on" "$WORK/n.out" && break; sleep 0.05; done
grep -q "listening on .*, 2 API keys)$" "$WORK/n.out" || fail "listening line: $(cat "$WORK/n.out")"
expect_fail 1 "$TB" notarize
grep -q "POST /session: notary answered 401: missing API key" "$WORK/err" || fail "no key: $(cat "$WORK/err")"
NOTARY_API_KEY=$KC expect_fail 1 "$TB" notarize
grep -q "notary answered 401: invalid API key" "$WORK/err" || fail "wrong key: $(cat "$WORK/err")"
printf '%s\n' "$KA" >"$WORK/alice.key"
"$TB" notarize --api-key-file "$WORK/alice.key" >"$WORK/ok.out" 2>"$WORK/ok.err" || fail "alice's key: $(cat "$WORK/ok.err")"
grep -q "^NOTARIZATION_MS=" "$WORK/ok.out" || fail "alice: $(cat "$WORK/ok.out")"
NOTARY_API_KEY=$KB "$TB" notarize >/dev/null 2>"$WORK/ok.err" || fail "bob's key (env): $(cat "$WORK/ok.err")"
NOTARY_API_KEY_FILE=$WORK/alice.key "$TB" notarize >/dev/null 2>"$WORK/ok.err" || fail "NOTARY_API_KEY_FILE: $(cat "$WORK/ok.err")"
printf '\n' >"$WORK/empty.key"
expect_fail 1 "$TB" notarize --api-key-file "$WORK/empty.key"
grep -q "want the API key alone on one line" "$WORK/err" || fail "empty key file: $(cat "$WORK/err")"
python3 - "$NPORT" "$KB" <<'PY' || fail "raw requests"
import http.client, json, sys
port, key = int(sys.argv[1]), sys.argv[2]
def req(method, path, headers, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request(method, path, body, headers)
    r = c.getresponse()
    out = (r.status, r.getheader("WWW-Authenticate"), r.read())
    c.close()
    return out
st, www, body = req("POST", "/session", {}, "{}")
assert st == 401 and www == 'Bearer realm="teebench-notary"', (st, www)
assert json.loads(body) == {"error": "missing API key: this notary wants an Authorization: "
                            "Bearer <key> header", "status": 401}, body
assert req("POST", "/session", {"Authorization": key}, "{}")[0] == 200  # bare (TLSNotary's form)
assert req("POST", "/session", {"Authorization": "bearer " + key}, "{}")[0] == 200
assert req("GET", "/healthcheck", {})[0] == 200
assert req("GET", "/info", {})[0] == 200
PY
# bench notary with its own notary off, against this one: the key reaches its clients
START_NOTARY=0 START_FIXTURE=0 NOTARY_API_KEY=$KA "$TB" bench notary --iterations 1 \
  --benchmark-modes no_tee --results-dir "$WORK/bench" >"$WORK/bench.out" 2>"$WORK/bench.err" \
  || fail "bench notary with NOTARY_API_KEY: $(tail -5 "$WORK/bench.err") $(cat "$WORK"/bench/logs/*.stderr.log 2>/dev/null)"
grep -q ",no_tee,1,0," "$WORK/bench/results.csv" || grep -q "no_tee" "$WORK/bench/results.csv" \
  || fail "bench results: $(cat "$WORK/bench/results.csv")"
grep -q "key alice" "$WORK/n.err" || fail "the log does not name alice's key: $(head -5 "$WORK/n.err")"
grep -q "key bob" "$WORK/n.err" || fail "the log does not name bob's key"
! grep -qe "$KA" -e "$KB" -e "$KC" "$WORK/n.err" "$WORK/n.out" || fail "a key is in the notary's log"
pass "401 without or with a wrong key; --api-key-file, NOTARY_API_KEY(_FILE), the bare key and bench notary work; the log names keys, never shows them"

# 3. SIGHUP: carol replaces alice and bob; a broken file changes nothing
printf 'carol %s\n' "$KC" >"$WORK/notary.keys"
kill -HUP "$npid"
for _ in $(seq 100); do grep -q "SIGHUP: 1 API keys loaded" "$WORK/n.err" && break; sleep 0.05; done
grep -q "SIGHUP: 1 API keys loaded from $WORK/notary.keys" "$WORK/n.err" || fail "reload: $(tail -3 "$WORK/n.err")"
NOTARY_API_KEY=$KA expect_fail 1 "$TB" notarize
grep -q "401: invalid API key" "$WORK/err" || fail "alice after the reload: $(cat "$WORK/err")"
NOTARY_API_KEY=$KC "$TB" notarize >/dev/null 2>"$WORK/ok.err" || fail "carol: $(cat "$WORK/ok.err")"
printf 'carol %s\ncarol %s\n' "$KC" "$KA" >"$WORK/notary.keys"
kill -HUP "$npid"
for _ in $(seq 100); do grep -q "not reloaded" "$WORK/n.err" && break; sleep 0.05; done
grep -q "SIGHUP: API keys not reloaded (the 1 in use stay): .*notary.keys:2: the name 'carol' is used by an earlier line" "$WORK/n.err" \
  || fail "broken reload: $(tail -3 "$WORK/n.err")"
NOTARY_API_KEY=$KC "$TB" notarize >/dev/null 2>"$WORK/ok.err" || fail "carol after a broken reload: $(cat "$WORK/ok.err")"
pass "SIGHUP reads the keys again; a broken file keeps the keys in use"

# 4. the stop line counts the refusals: no key, wrong key, alice after the reload, raw one
kill -TERM "$npid"
for _ in $(seq 100); do kill -0 "$npid" 2>/dev/null || break; sleep 0.05; done
grep -q "stopped (SIGTERM); refused 4 requests without a valid API key (401)" "$WORK/n.out" \
  || fail "stop line: $(cat "$WORK/n.out")"
pass "401s counted: $(sed -n 's/.*refused \([0-9]*\) requests without.*/\1/p' "$WORK/n.out")"
