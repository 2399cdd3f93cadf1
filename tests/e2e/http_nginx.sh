#!/usr/bin/env bash
# teebench http against a real nginx, HTTP and HTTPS: every request the client
# completed is in nginx's access log (--server-log), TLS verification with
# --cacert + --connect + SNI works, and a wrong CA fails with a clear message.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_http.sh"

port=$(free_port)
start_nginx "$port"
"$TB" http -t2 -c8 -d1s --server-log "$NGINX_LOG" "http://127.0.0.1:$port/" >"$WORK/out" ||
  fail "http run against nginx: $(cat "$WORK/out")"
grep -q '^Server log: .* - match$' "$WORK/out" || fail "access log does not match: $(cat "$WORK/out")"
grep -q "Non-2xx" "$WORK/out" && fail "error statuses: $(cat "$WORK/out")"
completed=$(awk '/requests in/ {print $1}' "$WORK/out")
[ "$completed" -gt 100 ] || fail "too few requests: $completed"

# JSON: the counts add up, and the log line count equals completed + drained
"$TB" http -t1 -c4 -d1s --json --server-log "$NGINX_LOG" "http://127.0.0.1:$port/" >"$WORK/j"
python3 - "$WORK/j" <<'PY' || fail "json accounting"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["requests"]
assert r["sent"] == r["completed"] + r["drained_after_end"] + r["failed"] + r["unfinished"], r
assert d["server_log"]["match"] and d["server_log"]["new_lines"] == r["completed"] + r["drained_after_end"], (d["server_log"], r)
assert r["completed"] > 0 and d["responses_by_status"]["2xx"] == r["completed"] + r["drained_after_end"], (r, d["responses_by_status"], d["errors"])
p = d["latency"]["percentiles_us"]
assert 0 < p["p50"] <= p["p99"] <= p["p99.999"] <= p["p100"] == d["latency"]["max_us"], p
assert d["runtime_s"] > 0.99 and d["options"]["connections"] == 4
assert d["schema"] == "teebench-http/1" and d["teebench"] and "env" in d and list(d)[:3] == ["schema", "teebench", "env"], list(d)[:4]
PY
stop_nginx

tport=$(free_port)
start_nginx "$tport" tls
"$TB" http -t1 -c4 -d1s --cacert "$WORK/pki/ca.pem" --connect "127.0.0.1:$tport" \
  --server-log "$NGINX_LOG" "https://test-server.io/" >"$WORK/out" ||
  fail "https with --cacert: $(cat "$WORK/out")"
grep -q ' - match$' "$WORK/out" || fail "https access log: $(cat "$WORK/out")"
grep -q 'Socket errors' "$WORK/out" && fail "https socket errors: $(cat "$WORK/out")"
# verification off by default (like wrk): any name works
"$TB" http -t1 -c2 -d1s "https://127.0.0.1:$tport/" >"$WORK/out" || fail "https without verification"
# --server-name sets the verified name; a wrong CA or name fails every connect
"$TB" http -t1 -c2 -d1s --cacert "$WORK/pki/ca.pem" --server-name 127.0.0.1 "https://127.0.0.1:$tport/" >"$WORK/out" ||
  fail "https --server-name 127.0.0.1"
expect_fail 1 "$TB" http -t1 -c2 -d1s --cacert "$WORK/pki/ca.pem" --server-name wrong.example "https://127.0.0.1:$tport/"
grep -q 'no request completed: .*verify' "$WORK/err" || fail "wrong name message: $(cat "$WORK/err")"
grep -q 'Socket errors: connect [1-9]' "$WORK/out" || fail "connect errors counted: $(cat "$WORK/out")"
pass http_nginx
