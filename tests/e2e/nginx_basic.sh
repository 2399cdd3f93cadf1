#!/usr/bin/env bash
# teebench nginx start/stop: the generated config keeps everything in the run
# directory, nginx answers, the access log has one line per request, stop waits
# until it is gone, and bad input (port in use, running twice, not running,
# unwritable dir) gives one clear error line.
source "$(dirname "$0")/lib.sh"
[ -x /usr/sbin/nginx ] || skip "/usr/sbin/nginx is not installed (scripts/setup.sh installs nginx-light)"
run="$WORK/run"
chmod 755 "$WORK" # as root, nginx's workers run as an unprivileged user: they pass through $WORK
stop_nginx() { "$TB" nginx stop --dir "$run" >/dev/null 2>&1 || true; _tb_cleanup; }
trap stop_nginx EXIT
port=$(free_port)
"$TB" nginx start --port "$port" --dir "$run" >"$WORK/start.out" || fail "nginx start"
grep -q "^nginx started: pid [0-9]*, http://127.0.0.1:$port/ with 1 worker$" "$WORK/start.out" || fail "start output: $(cat "$WORK/start.out")"
grep -q "^access log: $run/access.log$" "$WORK/start.out" || fail "access log line"
pid=$(cat "$run/nginx.pid")
kill -0 "$pid" || fail "nginx pid $pid not running"
# The run directory is ours alone (0700; as root 0710 with the workers' group), and
# the workers, which parse HTTP, do not run as root.
mode=$(stat -c %a "$run")
if [ "$(id -u)" = 0 ]; then
  [ "$mode" = 710 ] || fail "run dir mode $mode"
  grep -q '^user root' "$run/nginx.conf" && fail "workers as root: $(grep ^user "$run/nginx.conf")"
  wuser=$(ps -o user= --ppid "$pid" | sort -u)
  [ -n "$wuser" ] && [ "$wuser" != root ] || fail "worker user: '$wuser'"
else
  [ "$mode" = 700 ] || fail "run dir mode $mode"
fi
# Everything nginx writes is in the run directory: nginx runs inside it (its working
# directory, -p ./) and every path it is given is relative, without "..".
grep -E '^(pid|error_log|    access_log|    [a-z_]+temp_path|        root) ' "$run/nginx.conf" | grep -E '"/|\.\.' && fail "a path outside the run dir"
[ "$(readlink "/proc/$pid/cwd")" = "$run" ] || fail "nginx's working directory is $(readlink "/proc/$pid/cwd"), not $run"
size=$(curl -sS -o /dev/null -w '%{size_download}' "http://127.0.0.1:$port/")
[ "$size" = 615 ] || fail "/ is $size bytes, not 615"
for i in $(seq 24); do printf 'url = "http://127.0.0.1:%s/"\noutput = "/dev/null"\n' "$port"; done >"$WORK/urls"
curl -sS -K "$WORK/urls" || fail "curl x24"
code=$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/missing")
[ "$code" = 404 ] || fail "missing is $code"
"$TB" nginx log-lines --dir "$run" >"$WORK/lines" || fail "log-lines"
grep -q "^$run/access.log: 26 lines$" "$WORK/lines" || fail "log lines: $(cat "$WORK/lines")"
[ "$(wc -l <"$run/access.log")" -eq 26 ] || fail "access.log has $(wc -l <"$run/access.log") lines"

# Errors.
expect_fail nz "$TB" nginx start --port "$port" --dir "$run"
grep -q 'already runs' "$WORK/err" || fail "second start: $(cat "$WORK/err")"
expect_fail nz "$TB" nginx start --port "$port" --dir "$WORK/other"
grep -q 'Address already in use' "$WORK/err" || fail "port in use: $(cat "$WORK/err")"
[ ! -e "$WORK/other/nginx.pid" ] || fail "failed start left a pid file"
expect_fail 2 "$TB" nginx start --port 0 --dir "$WORK/x"
expect_fail 2 "$TB" nginx start --dir "$WORK/x"
expect_fail 2 "$TB" nginx start --port "$port" --workers zero
expect_fail 2 "$TB" nginx restart
touch "$WORK/file"
expect_fail nz "$TB" nginx start --port "$(free_port)" --dir "$WORK/file/run"

"$TB" nginx stop --dir "$run" >"$WORK/stop.out" || fail "nginx stop"
grep -q "^nginx stopped (pid $pid" "$WORK/stop.out" || fail "stop output: $(cat "$WORK/stop.out")"
! kill -0 "$pid" 2>/dev/null || grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null || fail "nginx still runs after stop"
(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && fail "port still open after stop"
expect_fail nz "$TB" nginx stop --dir "$run"
grep -q 'no nginx runs' "$WORK/err" || fail "stop twice: $(cat "$WORK/err")"

# A custom root and two workers.
mkdir -p "$WORK/root"
echo hello >"$WORK/root/index.html"
port2=$(free_port)
"$TB" nginx start --port "$port2" --dir "$run" --root "$WORK/root" --workers 2 >/dev/null 2>"$WORK/err" || fail "start with root: $(cat "$WORK/err")"
[ "$(curl -sS "http://127.0.0.1:$port2/")" = hello ] || fail "custom root"
[ "$(pgrep -P "$(cat "$run/nginx.pid")" | wc -l)" -eq 2 ] || fail "two workers"
"$TB" nginx stop --dir "$run" >/dev/null || fail "stop 2"

# A run directory someone else could change is refused before anything is written:
# writable by others (e.g. /tmp itself), a symlink, owned by another user.
mkdir -m 777 "$WORK/open"
chmod 777 "$WORK/open"
expect_fail 1 "$TB" nginx start --port "$(free_port)" --dir "$WORK/open"
grep -q "run directory: $WORK/open: writable by others (mode 0777): refusing it" "$WORK/err" \
  || fail "world-writable run dir: $(cat "$WORK/err")"
[ -z "$(ls -A "$WORK/open")" ] || fail "wrote into a refused run dir: $(ls -A "$WORK/open")"
mkdir "$WORK/target"
ln -s "$WORK/target" "$WORK/link"
expect_fail 1 "$TB" nginx start --port "$(free_port)" --dir "$WORK/link"
grep -q 'a symbolic link, not a directory: refusing it' "$WORK/err" || fail "symlink run dir: $(cat "$WORK/err")"
[ -z "$(ls -A "$WORK/target")" ] || fail "wrote through a symlinked run dir"
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null; then
  # Another user's directory with a start.log pointing at a root file: refused, the
  # root file keeps its bytes.
  mkdir "$WORK/theirs"
  echo precious >"$WORK/rootfile"
  ln -s "$WORK/rootfile" "$WORK/theirs/start.log"
  chown -h nobody "$WORK/theirs" "$WORK/theirs/start.log"
  expect_fail 1 "$TB" nginx start --port "$(free_port)" --dir "$WORK/theirs"
  grep -q "owned by uid $(id -u nobody), not by this user (uid 0): refusing it" "$WORK/err" \
    || fail "another user's run dir: $(cat "$WORK/err")"
  [ "$(cat "$WORK/rootfile")" = precious ] || fail "the root file was truncated"
  # A document root the workers cannot reach is said plainly, not served as 403s.
  mkdir -m 700 "$WORK/private"
  mkdir "$WORK/private/www"
  expect_fail 1 "$TB" nginx start --port "$(free_port)" --dir "$WORK/run3" --root "$WORK/private/www"
  grep -q "$WORK/private: nginx's workers (user [a-z-]*) cannot pass through it" "$WORK/err" \
    || fail "unreachable root: $(cat "$WORK/err")"
fi
pass nginx_basic
