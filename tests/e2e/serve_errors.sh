#!/usr/bin/env bash
# teebench serve: bad input gives one clear error line and a non-zero exit.
source "$(dirname "$0")/lib.sh"
expect_fail 2 "$TB" serve --port 99999
grep -q 'port' "$WORK/err" || fail "bad port message"
expect_fail 2 "$TB" serve --port abc
expect_fail 2 "$TB" serve --threads 0
expect_fail 2 "$TB" serve --no-such-flag
expect_fail 2 "$TB" serve --cert x.pem
expect_fail nz "$TB" serve --addr 999.1.2.3 --port 0
# Missing certificate: says which file and how to make one.
expect_fail nz "$TB" serve --tls --pki "$WORK/nothing-here" --port 0
grep -q 'nothing-here/server.pem' "$WORK/err" && grep -q -- '--gen-pki' "$WORK/err" || fail "missing cert message: $(cat "$WORK/err")"
# Unwritable PKI directory (below a regular file).
touch "$WORK/file"
expect_fail nz "$TB" serve --gen-pki "$WORK/file/pki"
# Port in use, with one thread and with several (SO_REUSEPORT must not share it).
port=$(free_port)
spawn "$TB" serve --port "$port" >"$WORK/serve.out"
wait_port "$port"
expect_fail nz "$TB" serve --port "$port"
grep -qi 'in use' "$WORK/err" || fail "port in use message: $(cat "$WORK/err")"
expect_fail nz "$TB" serve --port "$port" --threads 3
grep -qi 'in use' "$WORK/err" || fail "port in use message (threads): $(cat "$WORK/err")"
# --help works and exits 0.
"$TB" serve --help | grep -q -- '--gen-pki' || fail "--help"
"$TB" serve --help | grep -q -- '--idle-timeout' || fail "--help lacks --idle-timeout"
# --idle-timeout (documented; it used to be refused as an unknown option): a
# silent connection is closed after about that long, a bad value is exit 2.
expect_fail 2 "$TB" serve --idle-timeout x
expect_fail 2 "$TB" serve --idle-timeout 86401
port=$(free_port)
spawn "$TB" serve --port "$port" --idle-timeout 1 >"$WORK/idle.out"
wait_port "$port"
python3 - "$port" <<'PY' || fail "--idle-timeout 1 did not close a silent connection in 1..3.5 s"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(5)
t0 = time.monotonic()
closed = s.recv(1) == b""
dt = time.monotonic() - t0
sys.exit(0 if closed and 0.9 <= dt <= 3.5 else 1)
PY
pass serve_errors
