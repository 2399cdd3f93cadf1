#!/usr/bin/env bash
# The e2e harness itself (tests/e2e/lib.sh):
#  1. a test that dies under errexit says where: the ERR trap prints the line and the
#     command that failed -- in a function, in a command substitution, in a pipeline
#     (pipefail) -- and the test exits non-zero; a failure inside a section that turned
#     errexit off is not reported as one;
#  2. every test starts with a fresh, empty HOME and XDG base directories of its own,
#     inside its $WORK, and none of teebench's own environment variables from outside.
source "$(dirname "$0")/lib.sh"
LIB=$(cd "$(dirname "$0")" && pwd)/lib.sh

# ---- 1. the line that failed
cat >"$WORK/dies.sh" <<SH
source "$LIB"
probe() { local left; left=\$(find "$WORK/no-such-dir" -newer "$WORK/dies.sh" 2>/dev/null | head -3); echo "\$left"; }
echo started
probe
echo "not reached"
SH
rc=0
bash "$WORK/dies.sh" >"$WORK/dies.out" 2>"$WORK/dies.err" || rc=$?
[ $rc -ne 0 ] || fail "a failing command substitution under pipefail did not fail the test"
grep -q 'not reached' "$WORK/dies.out" && fail "the test went on after the failure"
grep -Eq '^FAIL: dies\.sh: line 2: exit [0-9]+ from: left=\$\(find ' "$WORK/dies.err" ||
  fail "the failing line was not reported: $(cat "$WORK/dies.err")"

cat >"$WORK/plain.sh" <<SH
source "$LIB"
false
SH
rc=0
bash "$WORK/plain.sh" >/dev/null 2>"$WORK/plain.err" || rc=$?
[ $rc = 1 ] || fail "plain false: exit $rc"
grep -qx 'FAIL: plain.sh: line 2: exit 1 from: false' "$WORK/plain.err" ||
  fail "plain false reported: $(cat "$WORK/plain.err")"

cat >"$WORK/handled.sh" <<SH
source "$LIB"
set +e
false
set -e
false || true
[ -e "$WORK/nothing" ] && echo never
echo done
SH
bash "$WORK/handled.sh" >"$WORK/handled.out" 2>"$WORK/handled.err" || fail "handled failures failed the test: $(cat "$WORK/handled.err")"
[ ! -s "$WORK/handled.err" ] || fail "handled failures were reported: $(cat "$WORK/handled.err")"
grep -qx done "$WORK/handled.out" || fail "handled.sh did not finish"

# ---- 2. a fresh HOME and XDG directories, per test
case $HOME in "$WORK"/*) ;; *) fail "HOME is not the test's own: $HOME" ;; esac
for v in XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_RUNTIME_DIR; do
  case ${!v:-} in "$WORK"/*) ;; *) fail "$v is not the test's own: ${!v:-unset}" ;; esac
  [ -d "${!v}" ] || fail "$v does not exist"
  [ -z "$(ls -A "${!v}")" ] || fail "$v is not empty: $(ls -A "${!v}")"
done
[ "$(stat -c %a "$XDG_RUNTIME_DIR")" = 700 ] || fail "XDG_RUNTIME_DIR is not 0700"
for v in TEEBENCH_DB TEEBENCH_PKI TEEBENCH_SIM_DIR; do
  [ -z "${!v+set}" ] || fail "$v leaked in from outside"
done
# teebench's default store lands in the test's own XDG_DATA_HOME
"$TB" results list >/dev/null || fail "results list on a fresh HOME"
[ -f "$XDG_DATA_HOME/teebench/results.db" ] || fail "the default store is not under the test's XDG_DATA_HOME"
# two tests never share one
other=$(bash -c "source '$LIB'; echo \$HOME; trap - EXIT; rm -rf \"\$WORK\"")
[ "$other" != "$HOME" ] || fail "two tests got the same HOME"
pass harness
