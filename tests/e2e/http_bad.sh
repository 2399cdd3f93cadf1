#!/usr/bin/env bash
# teebench http on bad input: flags, URLs, an unreachable server, and servers
# that send garbage, close mid-response or never answer -- each gives one clear
# error line or the right counter, and never a crash or a hang.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_http.sh"

# flags and URLs (exit 2, one "teebench: http: ..." line)
expect_fail 2 "$TB" http
expect_fail 2 "$TB" http --no-such-flag http://127.0.0.1/
grep -q -- '--no-such-flag: unknown option (teebench http --help)' "$WORK/err" || fail "unknown flag message"
expect_fail 2 "$TB" http -t4 -c2 http://127.0.0.1/
grep -q 'connections must be >= threads' "$WORK/err" || fail "connections < threads message"
expect_fail 2 "$TB" http -d 10x http://127.0.0.1/
expect_fail 2 "$TB" http -c http://127.0.0.1/
expect_fail 2 "$TB" http -R 2x http://127.0.0.1/
expect_fail 2 "$TB" http -R -5 http://127.0.0.1/
expect_fail 2 "$TB" http "ftp://127.0.0.1/"
grep -q 'invalid URL' "$WORK/err" || fail "bad URL message"
expect_fail 2 "$TB" http "http://127.0.0.1:99999/"
expect_fail 2 "$TB" http "http://host/a b"
expect_fail 2 "$TB" http --cacert /x "http://127.0.0.1/"
expect_fail 1 "$TB" http --connect nocolon "http://127.0.0.1/"
"$TB" http --help | grep -q -- '--rate' || fail "--help"
"$TB" http -v | grep -q '^teebench http ' || fail "-v"

# unreachable server: one clear line, quickly
dead=$(free_port)
start=$(date +%s)
expect_fail 1 "$TB" http -d5s "http://127.0.0.1:$dead/"
grep -q "127.0.0.1:$dead: connect: Connection refused" "$WORK/err" || fail "refused: $(cat "$WORK/err")"
expect_fail 1 "$TB" http -d1s "http://no-such-host.invalid/"
[ $(($(date +%s) - start)) -lt 4 ] || fail "unreachable server took too long"
expect_fail 1 "$TB" http -d1s --server-log /nonexistent/log "http://127.0.0.1:$dead/"

# garbage: every response is a read error; nothing completes
port=$(free_port)
start_pyserver "$port" garbage
expect_fail 1 timeout 20 "$TB" http -t1 -c2 -d1s "http://127.0.0.1:$port/"
grep -q 'Socket errors: connect 0, read [1-9]' "$WORK/out" || fail "garbage read errors: $(cat "$WORK/out")"
grep -q 'not an HTTP/1.x status line' "$WORK/err" || fail "garbage message: $(cat "$WORK/err")"
kill -TERM "$SPAWNED_PID"

# the server closes mid-response
port=$(free_port)
start_pyserver "$port" midclose
expect_fail 1 timeout 20 "$TB" http -t1 -c2 -d1s "http://127.0.0.1:$port/"
grep -q 'read [1-9]' "$WORK/out" || fail "midclose read errors: $(cat "$WORK/out")"
grep -q 'closed mid-response' "$WORK/err" || fail "midclose message: $(cat "$WORK/err")"
kill -TERM "$SPAWNED_PID"

# the server never answers: as in wrk no request is abandoned and no error counted
# (no Socket errors line), nothing completes (exit 1), and the run still ends on time
port=$(free_port)
start_pyserver "$port" silent
start=$(date +%s)
expect_fail 1 timeout 20 "$TB" http -t1 -c2 -d2s --timeout 500ms "http://127.0.0.1:$port/"
! grep -q 'Socket errors' "$WORK/out" || fail "silent: $(cat "$WORK/out")"
grep -q '^teebench: http: no request completed' "$WORK/err" || fail "silent: $(cat "$WORK/err")"
[ $(($(date +%s) - start)) -le 5 ] || fail "silent server run took too long"
# ... with a timeout longer than the run: the requests are still in flight at the end
# and counted as unfinished (they were reported 0); no completed request fails the run,
# and --json still prints one document, with "error".
expect_fail 1 timeout 20 "$TB" http -t1 -c3 -d1s --timeout 30s --json "http://127.0.0.1:$port/"
python3 - "$WORK/out" "$WORK/err" <<'PY' || fail "silent --json: $(cat "$WORK/out" "$WORK/err")"
import json, sys
d = json.load(open(sys.argv[1])); r = d["requests"]
assert list(d)[:3] == ["schema", "teebench", "env"] and d["schema"] == "teebench-http/1", list(d)[:3]
assert r["completed"] == 0 and r["unfinished"] == 3 and r["sent"] == 3, r
assert d["connections_up"] == 3 and 0 < d["setup_s"] < d["runtime_s"], d
assert d["error"].startswith("no request completed"), d["error"]
assert open(sys.argv[2]).read() == "teebench: http: " + d["error"] + "\n"
PY
kill -TERM "$SPAWNED_PID"

# --json on a failure before the run (nothing listens): a JSON error document
dead=$(free_port)
expect_fail 1 "$TB" http -d1s --json "http://127.0.0.1:$dead/"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "Connection refused" in d["error"] and d["schema"] == "teebench-http/1", d' \
  "$WORK/out" || fail "--json error document: $(cat "$WORK/out")"

# chunked, close-delimited and Connection: close responses: no errors, and
# served == completed + drained
for mode in chunked close eof; do
  port=$(free_port)
  start_pyserver "$port" "$mode"
  "$TB" http -t1 -c3 -d1s --json "http://127.0.0.1:$port/" >"$WORK/j" || fail "$mode run"
  kill -TERM "$SPAWNED_PID"; wait "$SPAWNED_PID" 2>/dev/null || true
  served=$(awk '/^served/ {print $2}' "$WORK/pyserver.out")
  python3 - "$WORK/j" "$served" "$mode" <<'PY' || fail "$mode accounting"
import json, sys
d = json.load(open(sys.argv[1])); r = d["requests"]
print("%s: completed %d + drained %d, served %s, connections %d" % (sys.argv[3], r["completed"], r["drained_after_end"], sys.argv[2], d["connections_opened"]))
assert r["completed"] > 0 and sum(d["errors"].values()) == 0, d["errors"]
assert r["completed"] + r["drained_after_end"] == int(sys.argv[2]), (r, sys.argv[2])
if sys.argv[3] != "chunked":  # one connection per response
    assert d["connections_opened"] >= r["completed"], d["connections_opened"]
PY
done

# SIGINT stops early and still prints the results
port=$(free_port)
start_pyserver "$port" ok
"$TB" http -t1 -c2 -d30s "http://127.0.0.1:$port/" >"$WORK/out" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid" || fail "SIGINT exit status"
grep -q '^Requests/sec:' "$WORK/out" || fail "SIGINT output: $(cat "$WORK/out")"
pass http_bad
