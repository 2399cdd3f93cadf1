# Helpers for the `teebench http` end-to-end tests (sourced after lib.sh).
# start_pyserver PORT MODE [ARG]: the misbehaving test server (http_pyserver.py).
# start_nginx PORT [tls]: a real nginx, one worker, own config in $WORK/nginx
#   (access log at $WORK/nginx/access.log; with tls a CA-signed certificate for
#   test-server.io and 127.0.0.1, CA at $WORK/pki/ca.pem).
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

start_pyserver() {
  spawn python3 "$E2E_DIR/http_pyserver.py" "$@" >"$WORK/pyserver.out"
  wait_port "$1"
}

make_pki() {
  mkdir -p "$WORK/pki"
  (cd "$WORK/pki" &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=e2e-ca \
      -days 1 -keyout ca.key -out ca.pem 2>/dev/null &&
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=test-server.io \
      -keyout server.key -out server.csr 2>/dev/null &&
    printf 'subjectAltName=DNS:test-server.io,IP:127.0.0.1\n' >ext &&
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
      -extfile ext -out server.pem 2>/dev/null) || fail "cannot make the test PKI"
}

start_nginx() {
  local port=$1 tls=${2:-} d="$WORK/nginx" listen
  command -v nginx >/dev/null || fail "nginx is not installed"
  mkdir -p "$d/html" "$d/tmp"
  chmod 755 "$WORK" "$d" "$d/html"  # workers run as an unprivileged user
  head -c 615 /dev/zero | tr '\0' 'n' >"$d/html/index.html"
  listen="listen 127.0.0.1:$port;"
  if [ -n "$tls" ]; then
    make_pki
    listen="listen 127.0.0.1:$port ssl; ssl_certificate $WORK/pki/server.pem; ssl_certificate_key $WORK/pki/server.key;"
  fi
  cat >"$d/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $d/nginx.pid;
error_log $d/error.log;
events { worker_connections 4096; }
http {
  access_log $d/access.log;
  keepalive_requests 1000000;
  client_body_temp_path $d/tmp; proxy_temp_path $d/tmp; fastcgi_temp_path $d/tmp;
  uwsgi_temp_path $d/tmp; scgi_temp_path $d/tmp;
  server { $listen root $d/html; }
}
CONF
  spawn nginx -c "$d/nginx.conf" -p "$d"
  wait_port "$port"
}
