#!/usr/bin/env bash
# labels: threads
# teebench serve --gen-pki + --tls: a client trusting only the fixture CA reaches
# test-server.io on 127.0.0.1 (curl --cacert --resolve, openssl s_client
# -verify_return_error with SNI); a wrong name fails verification; keep-alive
# over TLS; the served count matches; the JSON summary.
source "$(dirname "$0")/lib.sh"
pki="$WORK/pki/sub"
"$TB" serve --gen-pki "$pki" >"$WORK/gen.out" || fail "--gen-pki failed"
grep -q "^wrote fixture PKI to $pki" "$WORK/gen.out" || fail "gen-pki message: $(cat "$WORK/gen.out")"
for f in ca.pem ca-key.pem server.pem server-key.pem; do [ -s "$pki/$f" ] || fail "missing $f"; done
[ "$(stat -c %a "$pki/server-key.pem")" = 600 ] || fail "server key mode"
openssl verify -CAfile "$pki/ca.pem" -purpose sslserver -verify_hostname test-server.io \
  "$pki/server.pem" >/dev/null || fail "openssl verify of server.pem against ca.pem"
openssl x509 -in "$pki/server.pem" -noout -ext subjectAltName | grep -q 'DNS:test-server.io, DNS:localhost, IP Address:127.0.0.1' \
  || fail "SANs: $(openssl x509 -in "$pki/server.pem" -noout -ext subjectAltName)"

port=$(free_port)
spawn "$TB" serve --tls --pki "$pki" --port "$port" --json >"$WORK/serve.json" 2>"$WORK/serve.err"
srv=$SPAWNED_PID
wait_port "$port"
for _ in $(seq 100); do grep -q '^listening' "$WORK/serve.err" && break; sleep 0.05; done
grep -q "^listening on https://127.0.0.1:$port" "$WORK/serve.err" || fail "listening line: $(cat "$WORK/serve.err")"
url="https://test-server.io:$port"
curl -sS --cacert "$pki/ca.pem" --resolve "test-server.io:$port:127.0.0.1" -o "$WORK/j4" \
  "$url/formats/json?size=4" || fail "curl over TLS with the CA"
[ "$(wc -c <"$WORK/j4")" -eq 3111 ] || fail "size=4 over TLS is not 3111 bytes"
python3 -c 'import json,sys; sys.stdout.write(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' \
  "$TESTDATA/fixture/4kb.json" | cmp -s - "$WORK/j4" || fail "size=4 over TLS differs"
# Keep-alive over TLS: two transfers, one connection.
conns=$(curl -sS --cacert "$pki/ca.pem" --resolve "test-server.io:$port:127.0.0.1" -o /dev/null -o /dev/null \
  -w '%{num_connects}\n' "$url/" "$url/bytes?size=200000" | paste -sd' ')
[ "$conns" = "1 0" ] || fail "TLS keep-alive: $conns"
# A client that checks the name refuses a name the certificate does not have.
if curl -sS --cacert "$pki/ca.pem" --resolve "other.io:$port:127.0.0.1" -o /dev/null "https://other.io:$port/" 2>/dev/null; then
  fail "curl accepted other.io"
fi
# openssl s_client, verification errors fatal, SNI test-server.io.
printf 'GET / HTTP/1.1\r\nHost: test-server.io\r\nConnection: close\r\n\r\n' |
  timeout 10 openssl s_client -quiet -verify_return_error -CAfile "$pki/ca.pem" \
    -servername test-server.io -verify_hostname test-server.io -connect "127.0.0.1:$port" \
    >"$WORK/sclient.out" 2>"$WORK/sclient.err" || fail "s_client: $(cat "$WORK/sclient.err")"
grep -q '^HTTP/1.1 200 OK' "$WORK/sclient.out" || fail "s_client reply: $(head -3 "$WORK/sclient.out")"
# 4 requests answered (the other.io handshake failed before any request).
kill -TERM "$srv"
wait "$srv" || fail "serve exited non-zero"
python3 - "$WORK/serve.json" <<'PY' || fail "JSON summary: $(cat "$WORK/serve.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["served"] == 4, d
rows = {(r["route"], r["status"]): r["requests"] for r in d["by_route"]}
assert rows == {("/", 200): 2, ("/formats/json?size=4", 200): 1, ("/bytes", 200): 1}, rows
PY
pass serve_tls
