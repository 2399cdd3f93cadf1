#!/usr/bin/env bash
# e2e: writing to a device does not destroy it. Every command that writes a file the
# user names is run against /dev/null, and every command that writes into a
# directory the user names is given /dev/null as that directory: afterwards /dev/null
# is still the character device 1:3 with its mode (the old atomic writer renamed a
# regular file over it -- as root that breaks every program on the machine). Also a
# FIFO (written in place: its reader gets the bytes), /dev/full (ENOSPC: one line,
# exit 1), /dev/stdout (the bytes on stdout, the link kept) and refused special files
# (a socket, a block device: one line, non-zero exit, left as they were).
#
# All of it runs in a mount namespace whose /dev is a private tmpfs holding fresh
# device nodes (mknod), so a regression replaces only that /dev/null, never the
# machine's. Needs root and unshare(CLONE_NEWNS); skipped otherwise.
source "$(dirname "$0")/lib.sh"

if [ -z "${TB_DEVNULL_INNER:-}" ]; then
  [ "$(id -u)" -eq 0 ] || skip "needs root (mknod and a private /dev in a mount namespace)"
  command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
  unshare --mount --propagation private true 2>/dev/null || skip "unshare --mount is not permitted here"
  rc=0
  TB_DEVNULL_INNER=1 unshare --mount --propagation private bash "$0" "$@" || rc=$?
  exit $rc
fi

# ---- inside the namespace: a /dev of our own ----
mount -t tmpfs -o mode=0755,size=1m tbdev /dev || skip "cannot mount a tmpfs on /dev in the namespace"
mknod -m 0666 /dev/null c 1 3
mknod -m 0666 /dev/zero c 1 5
mknod -m 0666 /dev/full c 1 7
mknod -m 0666 /dev/urandom c 1 9
mknod -m 0666 /dev/random c 1 8
mknod -m 0600 /dev/tbblock b 7 200 # a loop device number nothing uses: never opened
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mkdir /dev/shm /dev/pts
exec </dev/null

# still_null WHAT: /dev/null is the character device 1:3, mode 0666.
still_null() {
  local st
  st=$(stat -c '%F %t:%T %a' /dev/null)
  [ "$st" = "character special file 1:3 666" ] || fail "$1 replaced /dev/null: now $st"
}
# wrote OUT CMD...: CMD succeeds (its stdout/stderr in $WORK/out and $WORK/err).
wrote() {
  "$@" >"$WORK/out" 2>"$WORK/err" || fail "$* failed: $(tail -5 "$WORK/err")"
}

D=$(cd "$(dirname "$0")/../data/import" && pwd)
SIM=$WORK/sim
"$TB" attest quote --provider sim --sim-dir "$SIM" --report-data 00 -o "$WORK/q.bin" 2>/dev/null ||
  fail "attest quote into a file"

# ---- every command that writes a file the user names ----
wrote "$TB" attest quote --provider sim --sim-dir "$SIM" --report-data 00 -o /dev/null
still_null "attest quote -o"
wrote "$TB" report "$D/syscall.json" -o /dev/null
still_null "report -o"
expect_fail 2 "$TB" report --format markdown "$D/syscall.json" -o /dev/null
grep -q 'markdown needs a file' "$WORK/err" || fail "report --format markdown -o /dev/null: $(cat "$WORK/err")"
[ "$(ls /dev | grep -c '\.svg$')" -eq 0 ] || fail "report --format markdown wrote SVGs into /dev"
still_null "report --format markdown -o"
DB=$WORK/results.db
"$TB" results --db "$DB" import "$D/syscall.json" >/dev/null
wrote "$TB" results --db "$DB" export --format csv -o /dev/null "$D/syscall.json"
still_null "results export -o"
wrote "$TB" results --db "$DB" export -o /dev/null "$D/syscall.json"
still_null "results export (json) -o"
PORT=$(free_port)
spawn "$TB" serve --port "$PORT" >"$WORK/serve.log" 2>&1
wait_port "$PORT"
wrote "$TB" http -c 2 -t 1 -d 1 --hdr-log /dev/null "http://127.0.0.1:$PORT/"
still_null "http --hdr-log"
wrote "$TB" suite run --profile quick --workloads env --no-store -o /dev/null --progress none
still_null "suite run -o"
# notary serve --save-key writes the key first, then serves
NPORT=$(free_port)
spawn "$TB" notary serve --port "$NPORT" --tee none --save-key /dev/null >"$WORK/notary.log" 2>&1
wait_port "$NPORT"
still_null "notary serve --save-key"
pass "attest quote, report, results export, http --hdr-log, suite run, notary --save-key: /dev/null stays a device"

# ---- every command that writes into a directory the user names: refused ----
refused() {
  local what=$1; shift
  expect_fail nz "$@"
  still_null "$what"
}
refused "env --record" "$TB" env --record /dev/null
refused "serve --gen-pki" "$TB" serve --gen-pki /dev/null
refused "attest sim-collateral" "$TB" attest sim-collateral /dev/null --sim-dir "$SIM"
refused "attest sim-snp-certs" "$TB" attest sim-snp-certs /dev/null --sim-dir "$WORK/sim-snp"
refused "attest quote --sim-dir" "$TB" attest quote --provider sim --sim-dir /dev/null --report-data 00
refused "attest collateral --cache-dir" "$TB" attest verify "$WORK/q.bin" --pccs http://127.0.0.1:9/ --cache-dir /dev/null --timeout 200
refused "bench notary --results-dir" "$TB" bench notary --iterations 1 --start-fixture 0 --start-notary 0 \
  --client-cmd true --results-dir /dev/null
refused "suite run --work-dir" "$TB" suite run --profile quick --workloads env --no-store --work-dir /dev/null --progress none
refused "suite run --target -o DIR" "$TB" suite run --target a=local --no-store -o /dev/null --progress none
refused "nginx start --dir" "$TB" nginx start --dir /dev/null --port "$(free_port)"
refused "vm start --dir" "$TB" vm start x --dir /dev/null --dry-run
refused "results --db" "$TB" results --db /dev/null list
[ "$(ls /dev | grep -c -- '-journal$\|-wal$')" -eq 0 ] || fail "results --db /dev/null left a journal in /dev"
pass "env --record, serve --gen-pki, attest sim-*, --sim-dir, --cache-dir, bench --results-dir, suite --work-dir, suite --target -o DIR, nginx --dir, vm --dir, --db: refused, /dev/null untouched"

# ---- a FIFO: written in place, its reader gets the bytes ----
mkfifo "$WORK/fifo"
cat "$WORK/fifo" >"$WORK/from-fifo" &
READER=$!
"$TB" attest quote --provider sim --sim-dir "$SIM" --report-data 00 -o "$WORK/fifo" 2>/dev/null ||
  fail "attest quote -o FIFO"
wait "$READER"
[ -p "$WORK/fifo" ] || fail "the FIFO was replaced"
[ "$(stat -c %s "$WORK/from-fifo")" -eq "$(stat -c %s "$WORK/q.bin")" ] ||
  fail "the FIFO's reader got $(stat -c %s "$WORK/from-fifo") bytes, not the quote's $(stat -c %s "$WORK/q.bin")"
pass "a FIFO is written in place"

# ---- /dev/full: the error, not a file ----
expect_fail 1 "$TB" results --db "$DB" export -o /dev/full "$D/syscall.json"
grep -q 'No space left on device' "$WORK/err" || fail "/dev/full: $(cat "$WORK/err")"
[ "$(stat -c '%F %t:%T' /dev/full)" = "character special file 1:7" ] || fail "/dev/full replaced"
# ---- /dev/stdout: the bytes on stdout, the link kept ----
"$TB" results --db "$DB" export -o /dev/stdout "$D/syscall.json" >"$WORK/via-stdout"
grep -q '"schema"' "$WORK/via-stdout" || fail "-o /dev/stdout wrote nothing to stdout"
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a symlink"
pass "/dev/full reports ENOSPC, /dev/stdout writes to stdout"

# ---- refused special files: a socket, a block device ----
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$WORK/sock"
expect_fail 1 "$TB" results --db "$DB" export -o "$WORK/sock" "$D/syscall.json"
grep -q 'a socket: refusing to write to it' "$WORK/err" || fail "socket: $(cat "$WORK/err")"
[ -S "$WORK/sock" ] || fail "the socket was replaced"
expect_fail 1 "$TB" attest quote --provider sim --sim-dir "$SIM" --report-data 00 -o /dev/tbblock
grep -q 'a block device: refusing to write to it' "$WORK/err" || fail "block device: $(cat "$WORK/err")"
[ -b /dev/tbblock ] || fail "the block device was replaced"
pass "a socket and a block device are refused"
