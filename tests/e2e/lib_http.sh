# Helpers for the `teebench http` end-to-end tests (sourced after lib.sh).
# start_pyserver PORT MODE [ARG]: the misbehaving test server (http_pyserver.py).
# start_nginx PORT [tls] / stop_nginx: a real nginx via `teebench nginx` (stopped at exit).
# start_serve PORT [flags] / stop_serve: the fixture server `teebench serve`.
# make_pki: the fixture PKI in $WORK/pki.
# compare EXIT flags...: wrk and `teebench http` with the same flags, layouts equal.
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

start_pyserver() {
  spawn python3 "$E2E_DIR/http_pyserver.py" "$@" >"$WORK/pyserver.out"
  wait_port "$1"
}

make_pki() { # the fixture PKI of `teebench serve --gen-pki` in $WORK/pki (ca.pem, server.pem)
  [ -f "$WORK/pki/ca.pem" ] || "$TB" serve --gen-pki "$WORK/pki" >/dev/null || fail "teebench serve --gen-pki"
}

_NGINX_DIRS=()
_http_cleanup() {
  local d
  for d in "${_NGINX_DIRS[@]}"; do "$TB" nginx stop --dir "$d" >/dev/null 2>&1 || true; done
  _tb_cleanup
}
trap _http_cleanup EXIT

# start_nginx PORT [tls]: `teebench nginx start` with one worker in $WORK/nginx-PORT;
# sets NGINX_LOG (its access log) and NGINX_DIR.
start_nginx() {
  local port=$1 tls=${2:-}
  NGINX_DIR="$WORK/nginx-$port"
  chmod 755 "$WORK"  # nginx workers may run as an unprivileged user
  if [ -n "$tls" ]; then
    make_pki
    "$TB" nginx start --port "$port" --dir "$NGINX_DIR" --workers 1 --tls --pki "$WORK/pki" >/dev/null ||
      fail "teebench nginx start --tls"
  else
    "$TB" nginx start --port "$port" --dir "$NGINX_DIR" --workers 1 >/dev/null || fail "teebench nginx start"
  fi
  _NGINX_DIRS+=("$NGINX_DIR")
  NGINX_LOG="$NGINX_DIR/access.log"
}

stop_nginx() { "$TB" nginx stop --dir "$NGINX_DIR" >/dev/null || fail "teebench nginx stop"; }

# start_serve PORT [serve flags...]: `teebench serve` in the background, its exit
# summary in $WORK/serve.out (after stop_serve).
start_serve() {
  local port=$1; shift
  spawn "$TB" serve --port "$port" "$@" >"$WORK/serve.out" 2>&1
  SERVE_PID=$SPAWNED_PID
  wait_port "$port"
}

# stop_serve: SIGTERM, wait; sets SERVED to the number of requests it served.
# (Call it directly, not in $(...): a subshell cannot wait for the server.)
stop_serve() {
  kill -TERM "$SERVE_PID"
  wait "$SERVE_PID" 2>/dev/null || true
  SERVED=$(awk '/^served: / {print $2}' "$WORK/serve.out")
  [ -n "$SERVED" ] || fail "teebench serve printed no served count: $(cat "$WORK/serve.out")"
}

# compare EXIT flags...: runs wrk and `teebench http` with the same flags; their outputs
# ($WORK/wrk.out, $WORK/tb.out, teebench's stderr in $WORK/tb.err) must have the same
# layout with every number replaced by N, and teebench must exit EXIT (wrk: always 0).
normalize() {
  sed -E 's/-?nan/0/g; s/[0-9]+(\.[0-9]+)?(us|ms|s|m|h|k|K|M|G|T|%)?/N/g; s/ +/ /g' "$1"
}
compare() {
  local want=$1; shift
  local rc=0
  wrk "$@" >"$WORK/wrk.out" 2>&1 || fail "wrk $*"
  "$TB" http "$@" >"$WORK/tb.out" 2>"$WORK/tb.err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "teebench http $*: exit $rc, want $want: $(cat "$WORK/tb.out" "$WORK/tb.err")"
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
requests() { awk '/ requests in / {print $1}' "$1"; }

