#!/usr/bin/env bash
# teebench http prints wrk 4.x's text layout line for line: run the real wrk and
# teebench http against the same server with the same flags and compare the outputs
# with every number replaced by N (values differ, the lines must not) -- a plain run,
# --latency with Non-2xx responses, read errors. (http_wrk_errors.sh: timeouts, a
# silent server, -H.) lib_http.sh has compare().
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_http.sh"
command -v wrk >/dev/null || skip "wrk is not installed (scripts/setup.sh --test installs it)"

port=$(free_port)
start_nginx "$port"
compare 0 -t2 -c10 -d1s "http://127.0.0.1:$port/"
compare 0 -t1 -c4 -d1s --latency "http://127.0.0.1:$port/no-such-page" # Non-2xx line
grep -q '^  Non-2xx or 3xx responses: [0-9]' "$WORK/tb.out" || fail "Non-2xx line missing"
# Non-2xx counts responses within the run only: never more than the requests counted
non2xx=$(awk '/Non-2xx/ {print $NF}' "$WORK/tb.out")
[ "$non2xx" -eq "$(requests "$WORK/tb.out")" ] || fail "Non-2xx $non2xx vs $(requests "$WORK/tb.out") requests"
stop_nginx

# the Socket errors line: a server that answers every 10th request with garbage
# (teebench exits 1 when wrk prints that line)
port=$(free_port)
start_pyserver "$port" flaky
compare 1 -t1 -c2 -d1s "http://127.0.0.1:$port/"
grep -q '^  Socket errors: connect 0, read [1-9][0-9]*, write 0, timeout 0$' "$WORK/tb.out" ||
  fail "Socket errors line: $(cat "$WORK/tb.out")"
grep -q '^teebench: http: socket errors: connect 0, read [1-9]' "$WORK/tb.err" || fail "exit line: $(cat "$WORK/tb.err")"
kill -TERM "$SPAWNED_PID"

pass http_wrk_layout
