#!/usr/bin/env bash
# teebench nginx start --tls with the fixture PKI: a client trusting only the
# fixture CA reaches test-server.io on 127.0.0.1; requests are logged.
source "$(dirname "$0")/lib.sh"
[ -x /usr/sbin/nginx ] || skip "/usr/sbin/nginx is not installed (scripts/setup.sh installs nginx-light)"
run="$WORK/run"
chmod 755 "$WORK" # as root, nginx's workers run as an unprivileged user: they pass through $WORK
stop_nginx() { "$TB" nginx stop --dir "$run" >/dev/null 2>&1 || true; _tb_cleanup; }
trap stop_nginx EXIT
"$TB" serve --gen-pki "$WORK/pki" >/dev/null || fail "gen-pki"
expect_fail nz "$TB" nginx start --tls --pki "$WORK/none" --port "$(free_port)" --dir "$run"
grep -q 'gen-pki' "$WORK/err" || fail "missing cert message: $(cat "$WORK/err")"
port=$(free_port)
"$TB" nginx start --tls --pki "$WORK/pki" --port "$port" --dir "$run" >"$WORK/start.out" || fail "start --tls"
grep -q "https://127.0.0.1:$port/" "$WORK/start.out" || fail "start output"
url="https://test-server.io:$port/"
for i in 1 2 3; do
  size=$(curl -sS --cacert "$WORK/pki/ca.pem" --resolve "test-server.io:$port:127.0.0.1" -o /dev/null -w '%{size_download}' "$url") \
    || fail "curl --cacert over TLS"
  [ "$size" = 615 ] || fail "size $size"
done
"$TB" nginx log-lines --dir "$run" | grep -q ': 3 lines$' || fail "log lines"
"$TB" nginx stop --dir "$run" >/dev/null || fail "stop"
pass nginx_tls
