#!/usr/bin/env bash
# teebench http prints wrk 4.x's text layout line for line: run the real wrk and
# teebench http against the same nginx with the same flags and compare the
# outputs with every number replaced by N (values differ, the lines must not).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_http.sh"
command -v wrk >/dev/null || skip "wrk is not installed (scripts/setup.sh --test installs it)"

port=$(free_port)
start_nginx "$port"
normalize() {
  sed -E 's/[0-9]+(\.[0-9]+)?(us|ms|s|m|h|k|K|M|G|T|%)?/N/g; s/ +/ /g' "$1"
}
compare() { # flags...
  wrk "$@" >"$WORK/wrk.out" 2>&1 || fail "wrk $*"
  "$TB" http "$@" >"$WORK/tb.out" || fail "teebench http $*: $(cat "$WORK/tb.out")"
  normalize "$WORK/wrk.out" >"$WORK/wrk.norm"
  normalize "$WORK/tb.out" >"$WORK/tb.norm"
  diff -u "$WORK/wrk.norm" "$WORK/tb.norm" >"$WORK/diff" ||
    fail "layout differs for $*: $(cat "$WORK/diff")"
  # the fixed-width columns line up exactly
  for pat in '^  Thread Stats' '^Requests/sec:' '^Transfer/sec:'; do
    a=$(grep "$pat" "$WORK/wrk.out" | head -1) b=$(grep "$pat" "$WORK/tb.out" | head -1)
    [ "${#a}" -eq "${#b}" ] || fail "column widths differ: '$a' vs '$b'"
  done
  [ "$(grep -c '' "$WORK/wrk.out")" -eq "$(grep -c '' "$WORK/tb.out")" ] || fail "line counts differ"
}
compare -t2 -c10 -d1s "http://127.0.0.1:$port/"
compare -t1 -c4 -d1s --latency "http://127.0.0.1:$port/"
compare -t1 -c4 -d1s --latency "http://127.0.0.1:$port/no-such-page" # Non-2xx line
grep -q '^  Non-2xx or 3xx responses: [0-9]' "$WORK/tb.out" || fail "Non-2xx line missing"
stop_nginx
# the Socket errors line: a server that answers every 10th request with garbage
port=$(free_port)
start_pyserver "$port" flaky
compare -t1 -c2 -d1s "http://127.0.0.1:$port/"
grep -q '^  Socket errors: connect 0, read [1-9][0-9]*, write 0, timeout 0$' "$WORK/tb.out" ||
  fail "Socket errors line: $(cat "$WORK/tb.out")"
pass http_wrk_layout
