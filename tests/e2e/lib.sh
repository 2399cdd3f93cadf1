# Shared helpers for end-to-end tests (sourced, not a test itself: ctest only runs
# tests/e2e/*.sh files that do not start with "lib").
# Every test: `source "$(dirname "$0")/lib.sh"`, then use $TB (the binary), $TESTDATA,
# $WORK (a fresh temp dir removed at exit), free_port, wait_port, spawn, fail, pass.
# A test that sets its own EXIT trap must call _tb_cleanup from it (it stops what
# spawn started and, in sanitizer builds, fails the test on a sanitizer report).
set -euo pipefail
# The tests use Debian's tools (scripts/setup.sh installs them): Debian's directories
# come first, so that a version manager's shims (pyenv's python3 costs ~2 s per start)
# do not stand in for them.
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
# A test that dies must say where: with errexit on, the first command that fails
# (anywhere: a function, a subshell, a command substitution -- errtrace) prints its line
# and text before the test exits, so that no test ends silently. (Sections that turn
# errexit off report nothing: their failures are theirs to handle.)
set -E
_tb_err_trap() {
  local rc=$1 line=$2 cmd=$3
  case $- in *e*) ;; *) return 0 ;; esac
  echo "FAIL: $(basename "$0"): line $line: exit $rc from: $cmd" >&2
}
trap '_tb_err_trap $? $LINENO "$BASH_COMMAND"' ERR
TB=${TEEBENCH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/teebench}
TESTDATA=${TEEBENCH_TESTDATA:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/testdata}
WORK=$(mktemp -d /tmp/tb-e2e.XXXXXX)
# Nothing from the machine's own HOME: each test gets a fresh, empty HOME and XDG base
# directories inside $WORK/.home (a test that needs a file there creates it). What a remote
# host of lib_hosts.sh reads is its login's home from the passwd database, not $HOME.
_TB_HOME=$WORK/.home
mkdir -m 0700 "$_TB_HOME" "$_TB_HOME/.config" "$_TB_HOME/.cache" "$_TB_HOME/.local" \
  "$_TB_HOME/.local/share" "$_TB_HOME/.local/state" "$_TB_HOME/.run"
export HOME=$_TB_HOME XDG_CONFIG_HOME=$_TB_HOME/.config XDG_CACHE_HOME=$_TB_HOME/.cache \
  XDG_DATA_HOME=$_TB_HOME/.local/share XDG_STATE_HOME=$_TB_HOME/.local/state \
  XDG_RUNTIME_DIR=$_TB_HOME/.run
unset TEEBENCH_DB TEEBENCH_PKI TEEBENCH_SIM_DIR XDG_CONFIG_DIRS XDG_DATA_DIRS
_TB_PIDS=()

# Sanitizer builds (TEEBENCH_SANITIZER=asan|tsan, set by CMake for build-asan/ and
# build-tsan/): every sanitizer report of every process the test starts -- foreground
# commands and background servers alike, whose stderr nobody reads -- is written to
# $WORK/san/<tool>.<pid> (log_path) instead of stderr, and the test fails at exit if
# any report exists, whatever its own checks said. Tests that expect a failing exit
# would otherwise accept a sanitizer abort as "failed as expected".
TB_SANITIZER=${TEEBENCH_SANITIZER:-}
if [ -n "$TB_SANITIZER" ]; then
  mkdir -p "$WORK/san"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$WORK/san/asan"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$WORK/san/ubsan"
  export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$WORK/san/tsan"
fi

# _tb_sanitizer_check: prints every sanitizer report to stderr; returns 1 if any.
_tb_sanitizer_check() {
  [ -n "$TB_SANITIZER" ] && [ -d "$WORK/san" ] || return 0
  local f found=0
  for f in "$WORK/san"/*; do
    [ -s "$f" ] || continue
    echo "FAIL: sanitizer report ($(basename "$f")):" >&2
    cat "$f" >&2
    found=1
  done
  return $found
}

_tb_cleanup() {
  local pid
  for pid in "${_TB_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${_TB_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  local rc=0
  _tb_sanitizer_check || rc=1
  rm -rf "$WORK"
  if [ $rc -ne 0 ]; then exit 1; fi
}
trap _tb_cleanup EXIT

# free_port: prints a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_port PORT [SECONDS]: waits until something accepts on 127.0.0.1:PORT.
wait_port() {
  local port=$1 limit=${2:-10} i
  for i in $(seq $((limit * 20))); do
    if (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  fail "nothing listens on 127.0.0.1:$port after ${limit}s"
}

# spawn CMD...: runs CMD in the background, remembers it for cleanup, sets SPAWNED_PID.
spawn() {
  "$@" &
  SPAWNED_PID=$!
  _TB_PIDS+=("$SPAWNED_PID")
}

fail() { echo "FAIL: $*" >&2; exit 1; }
# skip WHY: the test cannot run here; ctest counts exit 77 as skipped (never passed).
skip() { echo "skipped: $*"; exit 77; }
pass() { echo "PASS: $*"; }

# expect_fail CODE CMD...: runs CMD, expects exit CODE (or any non-zero when CODE is "nz"),
# and stderr of exactly one line starting with "teebench:". Stdout goes to $WORK/out.
expect_fail() {
  local want=$1; shift
  local rc=0
  "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  if [ "$want" = nz ]; then [ "$rc" -ne 0 ] || fail "expected failure: $*"
  else [ "$rc" -eq "$want" ] || fail "expected exit $want, got $rc: $* ($(cat "$WORK/err"))"; fi
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one error line from: $* -- got: $(cat "$WORK/err")"
  grep -q '^teebench: ' "$WORK/err" || fail "error line lacks 'teebench:' prefix: $(cat "$WORK/err")"
}
