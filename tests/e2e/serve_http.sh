#!/usr/bin/env bash
# labels: threads
# teebench serve over HTTP: every route's bytes (the JSON documents compared with
# a compact re-encoding computed here with python3), HEAD, keep-alive, pipelining,
# 400/404/405, and the served counts printed at SIGTERM equal the requests made.
source "$(dirname "$0")/lib.sh"
port=$(free_port)
spawn "$TB" serve --port "$port" --threads 2 >"$WORK/serve.out" 2>"$WORK/serve.err"
srv=$SPAWNED_PID
wait_port "$port"
base="http://127.0.0.1:$port"
for _ in $(seq 100); do grep -q '^listening' "$WORK/serve.out" && break; sleep 0.05; done
grep -q "^listening on http://127.0.0.1:$port with 2 threads$" "$WORK/serve.out" || fail "listening line: $(cat "$WORK/serve.out")"

get() { # get PATH OUTFILE -> prints the status code
  curl -sS -o "$2" -w '%{http_code}' "$base$1"
}
compact() {
  python3 -c 'import json,sys; sys.stdout.write(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' "$1"
}

[ "$(get / "$WORK/root")" = 200 ] || fail "/ status"
[ "$(wc -c <"$WORK/root")" -eq 615 ] || fail "/ is not 615 bytes"
for n in 1 4 8; do
  [ "$(get "/formats/json?size=$n" "$WORK/j$n")" = 200 ] || fail "size=$n status"
  compact "$TESTDATA/fixture/${n}kb.json" >"$WORK/want$n"
  cmp -s "$WORK/j$n" "$WORK/want$n" || fail "size=$n differs from python's compact encoding"
done
[ "$(wc -c <"$WORK/j4")" -eq 3111 ] || fail "size=4 is $(wc -c <"$WORK/j4") bytes, not 3111"
ct=$(curl -sS -o /dev/null -w '%{content_type}' "$base/formats/json?size=4")
[ "$ct" = application/json ] || fail "json content type: $ct"
[ "$(get /formats/html "$WORK/html")" = 200 ] || fail "html status"
cmp -s "$WORK/html" "$TESTDATA/fixture/4kb.html" || fail "html differs from 4kb.html"
[ "$(get '/bytes?size=100000' "$WORK/bytes")" = 200 ] || fail "bytes status"
[ "$(wc -c <"$WORK/bytes")" -eq 100000 ] || fail "bytes size"
[ "$(tr -d B <"$WORK/bytes" | wc -c)" -eq 0 ] || fail "bytes are not all B"
[ "$(get '/bytes?size=16777217' "$WORK/big")" = 400 ] || fail "bytes above the cap is not 400"
grep -q 'above the cap of 16777216 bytes' "$WORK/big" || fail "cap message: $(cat "$WORK/big")"
[ "$(get '/bytes?size=x' "$WORK/o")" = 400 ] || fail "bytes?size=x is not 400"
[ "$(get /nope "$WORK/o")" = 404 ] || fail "/nope is not 404"
[ "$(get '/formats/json?size=2' "$WORK/o")" = 404 ] || fail "size=2 is not 404"
code=$(curl -sS -o /dev/null -w '%{http_code}' -X POST -d x "$base/")
[ "$code" = 405 ] || fail "POST is not 405: $code"
len=$(curl -sS -I "$base/formats/json?size=8" | tr -d '\r' | awk -F': ' 'tolower($1)=="content-length"{print $2}')
[ "$len" = 6962 ] || fail "HEAD content-length: $len"
# 13 requests so far.

# Keep-alive: three transfers over one connection.
conns=$(curl -sS -o /dev/null -o /dev/null -o /dev/null -w '%{num_connects}\n' "$base/" "$base/" "$base/formats/html" | paste -sd' ')
[ "$conns" = "1 0 0" ] || fail "keep-alive: connects per transfer: $conns"
# 16 requests.

# Raw socket: two pipelined requests in one write (one with a body), then a
# malformed one: two 200s, then 400 and the connection is closed.
python3 - "$port" >"$WORK/raw" <<'PY' || fail "raw socket exchange: $(cat "$WORK/raw")"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /formats/json?size=4 HTTP/1.1\r\nHost: x\r\n\r\n"
          b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
          b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
replies = []
while data:
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    n = int([l.split(b": ")[1] for l in lines if l.lower().startswith(b"content-length:")][0])
    replies.append((lines[0], lines, rest[:n]))
    data = rest[n:]
print([r[0] for r in replies])
assert [r[0] for r in replies] == [b"HTTP/1.1 200 OK"] * 2 + [b"HTTP/1.1 400 Bad Request"]
assert len(replies[0][2]) == 3111 and len(replies[1][2]) == 615
assert b"Connection: close" in replies[2][1]
PY
# 19 requests: 18 answered + 1 malformed.

# HTTP/1.0 without keep-alive closes after the reply.
python3 - "$port" <<'PY' || fail "HTTP/1.0 close"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
assert data.startswith(b"HTTP/1.1 200 OK") and data.endswith(b"</html>\n"), data[:100]
assert b"Connection: close\r\n" in data
PY
# 20 requests.

kill -TERM "$srv"
wait "$srv" || fail "serve exited non-zero after SIGTERM"
grep -q '^served: 20 requests$' "$WORK/serve.out" || fail "served count: $(cat "$WORK/serve.out")"
grep -Eq '^  /formats/json\?size=4 +200  3 requests$' "$WORK/serve.out" || fail "json4 count: $(cat "$WORK/serve.out")"
grep -Eq '^  / +405  1 requests$' "$WORK/serve.out" || fail "405 count"
grep -Eq '^  malformed +400  1 requests$' "$WORK/serve.out" || fail "malformed count"
grep -Eq '^  /bytes +400  2 requests$' "$WORK/serve.out" || fail "bytes 400 count"
pass serve_http
