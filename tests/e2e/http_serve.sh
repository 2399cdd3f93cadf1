#!/usr/bin/env bash
# labels: threads
# teebench http against teebench serve, HTTP and HTTPS (fixture PKI, SNI
# test-server.io, --connect to 127.0.0.1, --cacert): the client's completed
# requests (within the run + drained after it) equal the server's served count.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_http.sh"

check() { # json-file served-count
  python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); r = d["requests"]; served = int(sys.argv[2])
print("client completed %d + drained %d, server served %d" % (r["completed"], r["drained_after_end"], served))
assert r["completed"] > 0 and sum(d["errors"].values()) == 0, d["errors"]
assert r["unfinished"] == 0 and r["failed"] == 0, r
assert r["completed"] + r["drained_after_end"] == served
PY
}

port=$(free_port)
start_serve "$port" -t1
"$TB" http -t2 -c8 -d1s --json "http://127.0.0.1:$port/" >"$WORK/j" || fail "http run"
stop_serve
check "$WORK/j" "$SERVED" || fail "HTTP counts differ"

make_pki
port=$(free_port)
start_serve "$port" -t1 --tls --pki "$WORK/pki"
"$TB" http -t1 -c4 -d1s --json --cacert "$WORK/pki/ca.pem" --connect "127.0.0.1:$port" \
  "https://test-server.io/formats/json?size=4" >"$WORK/j" || fail "https run"
stop_serve
check "$WORK/j" "$SERVED" || fail "HTTPS counts differ"
python3 -c "
import json,sys; d=json.load(open('$WORK/j'))
# 3111-byte body per response: the bytes read cover at least the bodies
assert d['bytes']['read'] >= 3111 * d['requests']['completed'], d['bytes']
" || fail "bytes read"
pass http_serve
