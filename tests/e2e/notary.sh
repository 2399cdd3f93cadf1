#!/usr/bin/env bash
# labels: threads
# The notary and its client on loopback, without a TEE: notarization against a
# local HTTPS target with a test CA, saved documents checked offline (and any
# one-byte change refused), each error path's message, 32 concurrent sessions,
# and a stalling client that does not block others.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_notary.sh"

PKI=$WORK/pki
make_pki "$PKI"
TPORT=$(free_port)
start_target "$TPORT" "$PKI/server.pem" "$PKI/server.key"
NPORT=$(free_port)
start_notary "$NPORT" --trust-ca "$PKI/ca.pem" --no-system-ca --concurrency 8 --io-timeout 1000

export NOTARY_PORT=$NPORT TARGET_PORT=$TPORT FIXTURE_CA=$PKI/ca.pem
unset ENABLE_TEE_ATTESTATION MAX_SENT_DATA MAX_RECV_DATA USE_FIXTURE_CA TARGET_URI VERIFY_ATTESTATION

# 1. a notarization: the source client's output lines, exactly
"$TB" notarize --out "$WORK/doc" >"$WORK/out" 2>"$WORK/err" || fail "notarize: $(cat "$WORK/err")"
grep -Eq '^NOTARIZATION_MS=[0-9]+\.[0-9]{3} ENABLE_TEE_ATTESTATION=false$' "$WORK/out" \
  || fail "NOTARIZATION_MS line: $(cat "$WORK/out")"
grep -Eq '^TOTAL_E2E_MS=[0-9]+\.[0-9]{3}$' "$WORK/out" || fail "TOTAL_E2E_MS line"
! grep -q TDX_VERIFY_MS "$WORK/out" || fail "TDX_VERIFY_MS without verification"
[ ! -s "$WORK/err" ] || fail "stderr not empty: $(cat "$WORK/err")"
[ -s "$WORK/doc.tbnd" ] || fail "--out did not write the document"
[ ! -e "$WORK/doc.evidence.json" ] || fail "evidence written without TEE"
pass "notarize (no TEE) prints the source client's lines"

# 2. offline check, with the CA, the key pin; refused with another CA
"$TB" notary check "$WORK/doc.tbnd" --ca "$PKI/ca.pem" >"$WORK/check" || fail "notary check"
grep -q '^signature: valid$' "$WORK/check" || fail "check output"
grep -q '^server name: test-server.io$' "$WORK/check" || fail "check server name"
grep -q "^target: 127.0.0.1:$TPORT\$" "$WORK/check" || fail "check target"
KEYSHA=$(sed -n 's/^notary key sha256: //p' "$WORK/check")
"$TB" notary check "$WORK/doc.tbnd" --notary-key-sha256 "$KEYSHA" >/dev/null || fail "key pin"
expect_fail 1 "$TB" notary check "$WORK/doc.tbnd" --notary-key-sha256 "$(printf '0%.0s' $(seq 64))"
grep -q "another notary key" "$WORK/err" || fail "key pin message"
expect_fail 1 "$TB" notary check "$WORK/doc.tbnd" --ca "$PKI/other-ca.pem"
grep -q "unable to get local issuer certificate" "$WORK/err" || fail "other CA message: $(cat "$WORK/err")"
pass "notary check: signature, chain, key pin"

# 3. one byte changed -> refused by the command, with its one error line (about 24
# positions across the file and the last byte; test_notary_doc changes every byte)
size=$(stat -c %s "$WORK/doc.tbnd")
positions="$(seq 0 $((size / 24 + 1)) $((size - 1))) $((size - 1))"
for pos in $positions; do
  cp "$WORK/doc.tbnd" "$WORK/t.tbnd"
  orig=$(od -An -tu1 -j "$pos" -N1 "$WORK/t.tbnd" | tr -d ' ')
  printf "$(printf '\\%03o' $(( (orig + 1) % 256 )))" \
    | dd of="$WORK/t.tbnd" bs=1 seek="$pos" conv=notrunc status=none
  rc=0; "$TB" notary check "$WORK/t.tbnd" >/dev/null 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "byte $pos changed: notary check exit $rc"
  grep -q '^teebench: notary check: ' "$WORK/err" || fail "byte $pos: error line"
done
pass "one-byte tampering at $(echo $positions | wc -w) positions refused"

# 4. chunked and close-delimited responses
for uri in /chunked /close; do
  "$TB" notarize --uri "$uri" --out "$WORK/r" >/dev/null 2>"$WORK/err" || fail "$uri: $(cat "$WORK/err")"
  "$TB" notary check "$WORK/r.tbnd" >"$WORK/check" || fail "$uri check"
done
pass "chunked and close-delimited responses"

# 5. the error paths, each one clear line
expect_fail 1 env MAX_SENT_DATA=99999 "$TB" notarize
grep -q "maxSentData 99999 exceeds this notary's limit of 4096 bytes" "$WORK/err" || fail "limit: $(cat "$WORK/err")"
expect_fail 1 "$TB" notarize --max-recv 1000
grep -q "exceeds the session's maxRecvData (1000 bytes)" "$WORK/err" || fail "recv limit: $(cat "$WORK/err")"
expect_fail 1 "$TB" notarize --target-port "$(free_port)"
grep -q "cannot connect" "$WORK/err" || fail "closed port: $(cat "$WORK/err")"
expect_fail 1 "$TB" notarize --server-name wrong.example
grep -q "server certificate rejected" "$WORK/err" || fail "wrong name: $(cat "$WORK/err")"
expect_fail 1 "$TB" notarize --fixture-ca "$PKI/other-ca.pem"
grep -q "server certificate chain for test-server.io" "$WORK/err" || fail "client CA: $(cat "$WORK/err")"
expect_fail 1 "$TB" notarize --tee true
grep -q "without a TEE" "$WORK/err" || fail "tee on none: $(cat "$WORK/err")"
expect_fail 1 "$TB" notarize --notary-port "$(free_port)"
grep -q "POST /session" "$WORK/err" || fail "no notary: $(cat "$WORK/err")"
expect_fail 2 "$TB" notarize --bogus
expect_fail 2 env USE_FIXTURE_CA=true FIXTURE_CA= "$TB" notarize
expect_fail 2 "$TB" notary serve --port 70000
expect_fail 2 "$TB" notary serve --allow-target 10.0.0.0/33
expect_fail 2 "$TB" notary check
expect_fail 1 "$TB" notary check "$WORK/nonexistent"
pass "limits, bad targets, wrong certificates, bad flags: clear errors"

# 6. sessions: unknown, replayed
N=http://127.0.0.1:$NPORT
body='{"host":"127.0.0.1","port":'$TPORT',"serverName":"test-server.io","request":"R0VUIC8gSFRUUC8xLjENCkhvc3Q6IHRlc3Qtc2VydmVyLmlvDQpDb25uZWN0aW9uOiBjbG9zZQ0KDQo="}'
code=$(curl -s -o "$WORK/r.json" -w '%{http_code}' -X POST -d "$body" "$N/notarize?sessionId=00000000000000000000000000000000")
[ "$code" = 404 ] && grep -q "unknown session" "$WORK/r.json" || fail "unknown session: $code"
sid=$(curl -s -X POST -d '{"maxSentData":4096,"maxRecvData":16384}' "$N/session" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionId"])')
code=$(curl -s -o "$WORK/r.json" -w '%{http_code}' -X POST -d "$body" "$N/notarize?sessionId=$sid")
[ "$code" = 200 ] || fail "notarize with curl: $code $(cat "$WORK/r.json")"
code=$(curl -s -o "$WORK/r.json" -w '%{http_code}' -X POST -d "$body" "$N/notarize?sessionId=$sid")
[ "$code" = 409 ] && grep -q "already used" "$WORK/r.json" || fail "replay: $code"
pass "unknown and replayed sessions refused"

# sessions expire (--session-timeout 1)
N6=$(free_port)
start_notary "$N6" --trust-ca "$PKI/ca.pem" --session-timeout 1
sid=$(curl -s -X POST -d '{}' "http://127.0.0.1:$N6/session" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionId"])')
sleep 1.3
code=$(curl -s -o "$WORK/r.json" -w '%{http_code}' -X POST -d "$body" "http://127.0.0.1:$N6/notarize?sessionId=$sid")
[ "$code" = 410 ] && grep -q "session expired" "$WORK/r.json" || fail "expired session: $code $(cat "$WORK/r.json")"
pass "expired sessions refused"

# 7. a disallowed target: a notary that may only reach 10.0.0.0/8
N2=$(free_port)
start_notary "$N2" --trust-ca "$PKI/ca.pem" --allow-target 10.0.0.0/8
expect_fail 1 "$TB" notarize --notary-port "$N2"
grep -q "is not allowed by this notary" "$WORK/err" || fail "allow-list: $(cat "$WORK/err")"
pass "disallowed target refused"

# 8. --save-key / --key: a notary restarted with its saved key signs with the same key
N3=$(free_port)
start_notary "$N3" --trust-ca "$PKI/ca.pem" --save-key "$WORK/notary.key"
KEY3=$(curl -s "http://127.0.0.1:$N3/info" | python3 -c 'import json,sys; print(json.load(sys.stdin)["publicKeySha256"])')
[ "$(stat -c %a "$WORK/notary.key")" = 600 ] || fail "saved key mode"
N4=$(free_port)
start_notary "$N4" --trust-ca "$PKI/ca.pem" --key "$WORK/notary.key"
"$TB" notarize --notary-port "$N4" --out "$WORK/k" >/dev/null || fail "notarize with --key"
"$TB" notary check "$WORK/k.tbnd" --notary-key-sha256 "$KEY3" >/dev/null || fail "restarted notary has another key"
expect_fail 1 "$TB" notary serve --port "$(free_port)" --key "$WORK/nonexistent.key"
grep -q "signing key: .*nonexistent.key" "$WORK/err" || fail "missing key: $(cat "$WORK/err")"
pass "--save-key and --key keep the notary key across restarts"

# 9. an HTTPS notary (--tls-cert): NOTARY_SCHEME=https with the CA in NOTARY_CA
N5=$(free_port)
start_notary "$N5" --trust-ca "$PKI/ca.pem" --tls-cert "$PKI/notary.pem" --tls-key "$PKI/notary.key"
NOTARY_SCHEME=https NOTARY_CA=$PKI/ca.pem "$TB" notarize --notary-port "$N5" >"$WORK/out" 2>"$WORK/err" \
  || fail "https notary: $(cat "$WORK/err")"
grep -q '^NOTARIZATION_MS=' "$WORK/out" || fail "https notary output"
expect_fail 1 env NOTARY_SCHEME=https "$TB" notarize --notary-port "$N5"
grep -q "POST /session" "$WORK/err" || fail "https without the CA: $(cat "$WORK/err")"
pass "HTTPS notary"

# 10. a stalling client holds one worker only; 32 concurrent sessions all succeed
exec 7<>/dev/tcp/127.0.0.1/"$NPORT"
printf 'POST /session HTTP/1.1\r\nContent-Length: 100\r\n\r\n{' >&7
"$TB" notarize >/dev/null 2>"$WORK/err" || fail "notarize beside a staller: $(cat "$WORK/err")"
pids=()
for i in $(seq 32); do
  "$TB" notarize >"$WORK/c$i.out" 2>"$WORK/c$i.err" &
  pids+=($!)
done
ok=0
for i in $(seq 32); do
  if wait "${pids[$((i - 1))]}"; then ok=$((ok + 1)); else echo "client $i: $(cat "$WORK/c$i.err")" >&2; fi
done
[ "$ok" -eq 32 ] || fail "$ok of 32 concurrent notarizations succeeded"
exec 7>&-
pass "32 concurrent sessions beside a stalling client"
