#!/usr/bin/env bash
# teebench http -s: wrk's Lua scripting API, with scripts written for this test that
# do what wrk's example scripts do (tests/e2e/lua/): a static POST, request() per
# request, init(args) and pipelining, response() and thread:stop(), setup() with
# thread:set/get and done(summary, latency, requests), delay(), a header carried
# from a response into the next requests; a script error is one line and exit 1.
# The server (http_pyserver.py record) prints each distinct request once: where wrk
# runs the same script, it must print nothing new.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_http.sh"
L="$E2E_DIR/lua"
port=$(free_port)
start_pyserver "$port" paths 1000
url="http://127.0.0.1:$port/x"
run() { # script [args after the URL]
  local s=$1; shift
  "$TB" http -t2 -c2 -d300ms -s "$L/$s.lua" "$url" "$@" >"$WORK/$s.out" 2>"$WORK/$s.err" ||
    fail "$s.lua: $(cat "$WORK/$s.out" "$WORK/$s.err")"
  grep -q '^Requests/sec:' "$WORK/$s.out" || fail "$s.lua: no report"
}
reqs() { grep -c "^REQ $1" "$WORK/pyserver.out" || true; }

run post
[ "$(reqs 'POST /x HTTP/1.1|Content-Length: 23|Content-Type: application/x-www-form-urlencoded|Host: 127.0.0.1:[0-9]*|BODY name=teebench&kind=load$')" = 1 ] ||
  fail "post.lua: $(grep POST "$WORK/pyserver.out")"
run counter
for i in 1 2 3; do [ "$(reqs "GET /item/$i HTTP")" = 1 ] || fail "counter.lua: /item/$i"; done
run pipeline /pre
for i in 1 2 3; do [ "$(reqs "GET /pre$i HTTP")" = 1 ] || fail "pipeline.lua: /pre$i"; done
! grep -q 'Socket errors' "$WORK/pipeline.out" || fail "pipeline.lua: $(cat "$WORK/pipeline.out")"
if command -v wrk >/dev/null; then # the same scripts under wrk send the same requests
  before=$(grep -c '^REQ' "$WORK/pyserver.out")
  wrk -t1 -c1 -d1 -s "$L/post.lua" "$url" >/dev/null || fail "wrk post.lua"
  wrk -t1 -c1 -d1 -s "$L/pipeline.lua" "$url" /pre >/dev/null || fail "wrk pipeline.lua"
  [ "$(grep -c '^REQ' "$WORK/pyserver.out")" = "$before" ] ||
    fail "wrk sent other requests: $(grep '^REQ' "$WORK/pyserver.out" | tail -n +$((before + 1)))"
fi
run stop # each of the 2 threads (1 connection each) stops after 5 responses
grep -q '^  10 requests in ' "$WORK/stop.out" || fail "stop.lua: $(cat "$WORK/stop.out")"
run report
n=$(awk '/ requests in / {print $1}' "$WORK/report.out")
grep -q "^summary: $n requests, [0-9]* bytes, [0-9]* us, errors 0/0/0/0/0\$" "$WORK/report.out" ||
  fail "report.lua summary: $(cat "$WORK/report.out")"
for t in 1 2; do
  grep -q "^thread $t: status 200 x[1-9][0-9]*, text/plain, body 5 bytes\$" "$WORK/report.out" ||
    fail "report.lua thread $t: $(cat "$WORK/report.out")"
done
grep -Eq '^latency: min [0-9.]+ max [0-9.]+ mean [0-9.]+ stdev [0-9.]+ p50 [0-9.]+ p99 [0-9.]+ us, [1-9][0-9]* values$' \
  "$WORK/report.out" || fail "report.lua latency: $(cat "$WORK/report.out")"
grep -q '^req/s: [1-9][0-9]* samples' "$WORK/report.out" || fail "report.lua req/s"
run delay # 50 ms before each request: at most 7 per connection in 300 ms
n=$(awk '/ requests in / {print $1}' "$WORK/delay.out")
[ "$n" -ge 2 ] && [ "$n" -le 14 ] || fail "delay.lua: $n requests"
run auth
[ "$(reqs 'GET /login HTTP')" = 1 ] && [ "$(reqs 'GET /with-token HTTP/1.1|Host: [^|]*|X-Token: t0k3n$')" = 1 ] ||
  fail "auth.lua: $(grep -E 'login|token' "$WORK/pyserver.out")"

expect_fail 1 "$TB" http -t1 -c1 -d300ms -s "$L/broken.lua" "$url"
grep -q '^teebench: http: script: request(): .*broken.lua:2: attempt to concatenate a nil value$' "$WORK/err" ||
  fail "broken.lua: $(cat "$WORK/err")"
expect_fail 1 "$TB" http -t1 -c1 -d300ms -s "$L/syntax.lua" "$url"
grep -q '^teebench: http: script: .*syntax.lua:2: ' "$WORK/err" || fail "syntax.lua: $(cat "$WORK/err")"
expect_fail 1 "$TB" http -d300ms -s "$WORK/none.lua" "$url"
expect_fail 2 "$TB" http -d300ms "$url" extra-argument
pass http_lua
