#!/usr/bin/env bash
# teebench nginx against a hostile peer:
#  1. `nginx stop --dir` signals only the nginx master running in that directory: a
#     nginx.pid naming a process that is not nginx (a sleep), the master of another
#     run directory's nginx, or one of its own workers is refused with one line, and
#     the process named lives on;
#  2. (root) the run directory swapped under its name while `nginx start` runs: its
#     parent is writable by everyone (not sticky) and an unprivileged user (nobody)
#     rename-exchanges it, in a tight loop, with a directory of their own holding a
#     config with `user root` and a document root that is a root-only directory.
#     Over many starts, nginx never loads that config (no root workers, never the
#     root-only file served, the attacker's pid file never written): every start
#     either runs our nginx in our directory or is refused.
source "$(dirname "$0")/lib.sh"
[ -x /usr/sbin/nginx ] || skip "/usr/sbin/nginx is not installed (scripts/setup.sh installs nginx-light)"
chmod 755 "$WORK"
SLEEP_PID=
# Stops every nginx whose working directory or command line is in $WORK (ours, or the
# attacker's should a regression start it), and the sleep.
cleanup() {
  local p
  for p in $(pgrep -f 'nginx: master' || true); do
    if readlink "/proc/$p/cwd" 2>/dev/null | grep -q "^$WORK" ||
      tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "$WORK"; then
      kill -TERM "$p" 2>/dev/null || true
    fi
  done
  [ -z "$SLEEP_PID" ] || kill "$SLEEP_PID" 2>/dev/null || true
  [ -z "${SWAP_PID:-}" ] || kill "$SWAP_PID" 2>/dev/null || true
  _tb_cleanup
}
trap cleanup EXIT

# ---- 1. stop --dir checks the pid it reads ----
b1=$WORK/b1 b2=$WORK/b2
"$TB" nginx start --port "$(free_port)" --dir "$b1" >/dev/null || fail "nginx start b1"
"$TB" nginx start --port "$(free_port)" --dir "$b2" >/dev/null || fail "nginx start b2"
pid1=$(cat "$b1/nginx.pid") pid2=$(cat "$b2/nginx.pid")
sleep 300 &
SLEEP_PID=$!
echo "$SLEEP_PID" >"$b2/nginx.pid"
expect_fail 1 "$TB" nginx stop --dir "$b2"
grep -q "no nginx runs from $b2" "$WORK/err" || fail "stop with a sleep's pid: $(cat "$WORK/err")"
kill -0 "$SLEEP_PID" || fail "the sleep named by nginx.pid was signalled"
echo "$pid1" >"$b2/nginx.pid"
expect_fail 1 "$TB" nginx stop --dir "$b2"
grep -q "names pid $pid1, which is not the nginx master running in $b2: refusing to signal it" "$WORK/err" ||
  fail "stop with another directory's nginx: $(cat "$WORK/err")"
kill -0 "$pid1" || fail "stop --dir $b2 stopped the nginx of $b1"
worker=$(pgrep -P "$pid2" | head -1)
[ -n "$worker" ] || fail "no worker of $pid2"
echo "$worker" >"$b2/nginx.pid"
expect_fail 1 "$TB" nginx stop --dir "$b2"
grep -q "which is not the nginx master" "$WORK/err" || fail "stop with a worker's pid: $(cat "$WORK/err")"
kill -0 "$worker" || fail "the worker named by nginx.pid was signalled"
echo "$pid2" >"$b2/nginx.pid"
"$TB" nginx stop --dir "$b2" >/dev/null || fail "stop b2 with its own pid"
"$TB" nginx stop --dir "$b1" >/dev/null || fail "stop b1"
pass "nginx stop --dir signals only the nginx master running in that directory"

# ---- 2. the run directory swapped while nginx start runs ----
[ "$(id -u)" = 0 ] || skip "part 2 needs root (an attacker of another uid)"
getent passwd nobody >/dev/null || skip "part 2 needs the user nobody"
command -v setpriv >/dev/null || skip "part 2 needs setpriv (util-linux)"
NOBODY=$(id -u nobody)
shared=$WORK/shared
mkdir -m 777 "$shared"
chmod 777 "$shared" # writable by everyone, not sticky
mkdir -m 700 "$WORK/secret"
echo "ROOT-ONLY-$$" >"$WORK/secret/index.html"
chmod 600 "$WORK/secret/index.html"
port=$(free_port)
evil=$shared/evil
mkdir -p "$evil/html" "$evil/tmp"
echo "ATTACKER" >"$evil/html/index.html"
cat >"$WORK/evil.conf" <<EOF
user root root;
worker_processes 1;
daemon on;
master_process on;
pid "$WORK/evil.pid";
error_log "$WORK/evil-error.log";
events { worker_connections 64; }
http { access_log off; server { listen 127.0.0.1:$port; root "$WORK/secret"; } }
EOF
cp "$WORK/evil.conf" "$evil/nginx.conf"
chown -R nobody "$evil"
chmod 644 "$WORK/evil.conf"
cat >"$WORK/swap.py" <<'EOF'
# The attacker: exchanges the two names as fast as it can and keeps its config in
# whichever of them is its own directory (re-written after teebench wrote over it).
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, conf, stop = sys.argv[1], sys.argv[2], open(sys.argv[3], "rb").read(), sys.argv[4]
me = os.getuid()
n = 0
while not os.path.exists(stop):
    if libc.renameat2(-100, a.encode(), -100, b.encode(), 2) == 0:  # RENAME_EXCHANGE
        n += 1
    for d in (a, b):
        try:
            if os.lstat(d).st_uid != me:
                continue
            p = os.path.join(d, "nginx.conf")
            try:
                cur = open(p, "rb").read()
            except OSError:
                cur = b""
            if cur != conf:
                t = os.path.join(d, ".c")
                open(t, "wb").write(conf)
                os.replace(t, p)
        except OSError:
            pass
open(sys.argv[5], "w").write(str(n))
EOF
run=$shared/run
# The run directory exists before the race starts (created by a first start).
"$TB" nginx start --port "$port" --dir "$run" --timeout 3s >/dev/null || fail "first start"
"$TB" nginx stop --dir "$run" >/dev/null || fail "first stop"
setpriv --reuid "$NOBODY" --regid "$(id -g nobody)" --clear-groups \
  python3 "$WORK/swap.py" "$run" "$evil" "$WORK/evil.conf" "$WORK/swap.stop" "$shared/swap.count" &
SWAP_PID=$!
ours=0 refused=0
for i in $(seq 40); do
  if "$TB" nginx start --port "$port" --dir "$run" --timeout 3s >"$WORK/start.out" 2>"$WORK/start.err"; then
    ours=$((ours + 1))
    master=$(sed -n 's/^nginx started: pid \([0-9]*\),.*/\1/p' "$WORK/start.out")
    [ -n "$master" ] || fail "start output: $(cat "$WORK/start.out")"
    body=$(curl -sS --max-time 2 "http://127.0.0.1:$port/" || true)
    case $body in *ROOT-ONLY*) fail "attempt $i: nginx served the root-only file" ;; esac
    case $body in *ATTACKER*) fail "attempt $i: nginx served the attacker's directory" ;; esac
    ps -o user= --ppid "$master" | grep -qx root && fail "attempt $i: nginx's workers run as root"
    # Stop it: through the name, which may lead to the attacker's directory for a
    # while (then refused), else by its pid.
    stopped=0
    for _ in $(seq 20); do
      if "$TB" nginx stop --dir "$run" >/dev/null 2>&1; then stopped=1; break; fi
    done
    if [ $stopped = 0 ]; then
      kill -TERM "$master"
      for _ in $(seq 100); do kill -0 "$master" 2>/dev/null || break; sleep 0.02; done
    fi
  else
    refused=$((refused + 1))
    [ "$(wc -l <"$WORK/start.err")" -eq 1 ] || fail "attempt $i: a refusal of more than one line: $(cat "$WORK/start.err")"
  fi
  [ -e "$WORK/evil.pid" ] && fail "attempt $i: nginx loaded the attacker's config"
done
touch "$WORK/swap.stop"
wait "$SWAP_PID" || true
SWAP_PID=
swaps=$(cat "$shared/swap.count" 2>/dev/null || echo 0)
[ "$swaps" -gt 100 ] || fail "the attacker swapped only $swaps times: the race was not run"
[ "$ours" -gt 0 ] || fail "no start succeeded in 40 attempts (all refused: $(cat "$WORK/start.err"))"
pass "40 starts against a swapping attacker ($swaps swaps): $ours ran our nginx, $refused refused, none loaded the attacker's config"
