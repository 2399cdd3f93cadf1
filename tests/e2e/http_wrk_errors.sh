#!/usr/bin/env bash
# teebench http counts as wrk does, in wrk's layout (compare() in lib_http.sh: the
# same flags against the same server, numbers replaced by N): responses later than
# --timeout are timeout errors when they arrive (nothing aborted), a server that
# never answers gives no Socket errors line; and -H sends what wrk sends.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_http.sh"
command -v wrk >/dev/null || skip "wrk is not installed (scripts/setup.sh --test installs it)"

# --timeout as wrk (whole seconds there): every response comes 1.1 s late for a 1 s
# timeout; nothing is aborted (no reconnect, no read error): each is a timeout error
# when it arrives
port=$(free_port)
start_pyserver "$port" paths 1100
compare 1 -t1 -c2 -d2s --timeout 1s "http://127.0.0.1:$port/slow"
for f in wrk tb; do
  n=$(requests "$WORK/$f.out")
  grep -q "^  Socket errors: connect 0, read 0, write 0, timeout $n\$" "$WORK/$f.out" ||
    fail "$f: timeouts for $n late responses: $(cat "$WORK/$f.out")"
  [ "$n" -ge 1 ] || fail "$f: $n late responses"
done

# a server that never answers: no Socket errors line at all (wrk), 0 requests;
# teebench exits 1 for the run that completed nothing
compare 1 -t1 -c2 -d1s --timeout 1 "http://127.0.0.1:$port/silent"
! grep -q 'Socket errors' "$WORK/tb.out" || fail "silent server: $(cat "$WORK/tb.out")"
[ "$(requests "$WORK/tb.out")" = 0 ] || fail "silent server requests: $(cat "$WORK/tb.out")"
grep -q '^teebench: http: no request completed' "$WORK/tb.err" || fail "silent exit line: $(cat "$WORK/tb.err")"

# -H as wrk: a repeated name sends the last value, malformed ones are dropped
# (teebench says so on stderr), a Host header replaces the URL's. The server prints
# each distinct request head once: the same as wrk's prints nothing new.
hdrs=(-H "X-A: 1" -H "X-A: 2" -H "NoColon" -H "X-B:nospace" -H "Host: example.test" -H "X-C: c")
wrk -t1 -c1 -d1 "${hdrs[@]}" "http://127.0.0.1:$port/x" >/dev/null 2>&1 || fail "wrk -H"
"$TB" http -t1 -c1 -d300ms "${hdrs[@]}" "http://127.0.0.1:$port/x" >/dev/null 2>"$WORK/hdr.err" ||
  fail "teebench http -H: $(cat "$WORK/hdr.err")"
kill -TERM "$SPAWNED_PID"; wait "$SPAWNED_PID" 2>/dev/null || true
grep '^REQ GET /x' "$WORK/pyserver.out" >"$WORK/req"
[ "$(cat "$WORK/req")" = "REQ GET /x HTTP/1.1|Host: example.test|X-A: 2|X-C: c" ] ||
  fail "wrk and teebench sent (one line if the same): $(cat "$WORK/req")"
[ "$(grep -c 'note: ignoring header' "$WORK/hdr.err")" -eq 2 ] || fail "-H notes: $(cat "$WORK/hdr.err")"
pass http_wrk_errors
