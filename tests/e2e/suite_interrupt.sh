#!/usr/bin/env bash
# Ctrl-C during `teebench suite run`: SIGINT while a long http step runs stops it
# within seconds; exit 130; the result is written and stored with status
# "interrupted", keeps the samples of the steps that finished (syscall) and none
# of the interrupted step; nginx, the fixture server and every child are gone and
# their ports are free. SIGTERM does the same.
source "$(dirname "$0")/lib.sh"

targets=serve-tls
[ -x /usr/sbin/nginx ] && targets=nginx,serve-tls

# run_until_http SIGNAL: starts the suite, waits until the syscall steps are done
# and the http step runs, sends SIGNAL, waits; sets RC and SECS (signal to exit).
run_until_http() {
  local sig=$1 pid i t0
  rm -rf "$WORK/w" "$WORK/r.json"
  "$TB" suite run --profile quick --workloads syscall,http --repeat 2 \
    --set syscall.duration=0.1 --set syscall.passes=1 --set http.targets=$targets \
    --set http.duration=60s --set http.warmup=0 --work-dir "$WORK/w" -o "$WORK/r.json" \
    --db "$WORK/db" --progress plain >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  _TB_PIDS+=("$pid")
  for i in $(seq 300); do
    grep -q "round 1/2: syscall cn: ok" "$WORK/err" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || fail "suite exited early: $(cat "$WORK/err")"
    sleep 0.1
  done
  grep -q "round 1/2: syscall cn: ok" "$WORK/err" || fail "syscall steps did not finish: $(cat "$WORK/err")"
  sleep 1 # inside the 60 s http step now
  NGINX_PID=
  [ -f "$WORK/w/nginx/nginx.pid" ] && NGINX_PID=$(cat "$WORK/w/nginx/nginx.pid")
  FIXTURE_PID=$(pgrep -f -- "--pki $WORK/w/pki" | head -1 || true)
  [ -n "$FIXTURE_PID" ] || fail "no fixture server running"
  t0=$(date +%s%N)
  kill "-$sig" "$pid"
  RC=0
  wait "$pid" || RC=$?
  SECS=$(( ($(date +%s%N) - t0) / 1000000000 ))
}

# running PID: the process exists and is not a zombie (the nginx master is
# reparented to PID 1, which may reap it a moment later).
running() {
  local st
  st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

check_after() {
  local sig=$1
  [ "$RC" -eq 130 ] || fail "$sig: exit $RC, want 130: $(tail -3 "$WORK/err")"
  [ "$SECS" -le 10 ] || fail "$sig: took ${SECS} s to stop"
  grep -q "^teebench: suite: interrupted" "$WORK/err" || fail "$sig: no interrupted line: $(tail -3 "$WORK/err")"
  python3 - "$WORK/r.json" <<'PY' || fail "$sig: result"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "interrupted", r["status"]
m = {x["name"]: x for x in r["metrics"]}
assert len(m["syscall.c1.index"]["samples"]) == 1, m.keys()
assert len(m["syscall.cn.index"]["samples"]) == 1
assert not any(n.startswith("http.") for n in m), list(m)
assert r["finished"], "finished time"
PY
  # children gone, ports free
  if [ -n "$NGINX_PID" ] && running "$NGINX_PID"; then fail "$sig: nginx $NGINX_PID still runs"; fi
  if running "$FIXTURE_PID"; then fail "$sig: fixture server $FIXTURE_PID still runs"; fi
  if pgrep -f -- "$WORK/w" >/dev/null; then fail "$sig: processes left: $(pgrep -af -- "$WORK/w")"; fi
  local port
  for port in $(grep -o '127\.0\.0\.1:[0-9]*' "$WORK/err" | cut -d: -f2 | sort -u); do
    if (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; then fail "$sig: port $port still open"; fi
  done
}

run_until_http INT
echo "SIGINT: stopped in ${SECS} s"; check_after SIGINT
run_until_http TERM
echo "SIGTERM: stopped in ${SECS} s"; check_after SIGTERM
[ "$(sqlite3 "$WORK/db" "select count(*) from runs where status = 'interrupted'")" -eq 2 ] \
  || fail "interrupted runs not stored"
pass "suite interrupt"
