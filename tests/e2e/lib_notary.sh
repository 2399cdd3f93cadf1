# Helpers for the notary end-to-end tests (sourced after lib.sh; not a test).
# make_pki DIR: a test CA (ca.pem), a server certificate for test-server.io
# signed by it (server.pem + server.key, chain in server-chain.pem), a second
# unrelated CA (other-ca.pem), a certificate for another name (wrong.pem) and
# one for the notary itself at 127.0.0.1 (notary.pem + notary.key).
make_pki() {
  local d=$1
  mkdir -p "$d"
  (
    cd "$d"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
      -out ca.pem -days 30 -subj "/CN=notary test CA" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout other-ca.key \
      -out other-ca.pem -days 30 -subj "/CN=other CA" -addext basicConstraints=critical,CA:TRUE
    for f in server wrong notary; do
      local san=DNS:test-server.io name=test-server.io
      [ $f = wrong ] && san=DNS:wrong.example name=wrong.example
      [ $f = notary ] && san=IP:127.0.0.1 name=notary
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $f.key -out $f.csr \
        -subj "/CN=$name"
      printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' \
        "$san" >$f.ext
      openssl x509 -req -in $f.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
        -extfile $f.ext -out $f.pem
    done
  ) >/dev/null 2>&1 || fail "make_pki: openssl failed"
}

# start_target PORT CERT KEY: the python HTTPS target; waits until it listens.
start_target() {
  spawn python3 "$(dirname "${BASH_SOURCE[0]}")/notary_target.py" "$1" "$2" "$3"
  wait_port "$1"
}

# start_notary PORT ARGS...: `teebench notary serve` on 127.0.0.1:PORT; waits.
start_notary() {
  local port=$1; shift
  spawn "$TB" notary serve --port "$port" --quiet "$@"
  wait_port "$port"
}
