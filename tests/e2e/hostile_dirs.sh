#!/usr/bin/env bash
# e2e: directories an attacker prepared. `bench notary --results-dir DIR` and `suite
# run --work-dir DIR` (and `env --record DIR`, `serve --gen-pki DIR`) are given a
# directory that another user made -- owned by nobody, or root's but writable by
# everyone without the sticky bit -- holding symlinks, at the names teebench writes,
# to a root-only file. Each is refused with one line before anything is written,
# and the root-only file keeps its bytes (the old code followed the links and wrote
# log text into it). A directory of the caller's own still works, and so does a
# fresh one (created 0700).
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (a directory of another user)"
getent passwd nobody >/dev/null || skip "needs the user nobody"
NOBODY=$(id -u nobody)

echo precious >"$WORK/rootfile"
chmod 600 "$WORK/rootfile"
intact() { [ "$(cat "$WORK/rootfile")" = precious ] || fail "$1 wrote into the root-only file: $(head -c 200 "$WORK/rootfile")"; }

# plant DIR: symlinks to the root-only file at every name teebench writes there
plant() {
  local d=$1 n
  mkdir -p "$d/logs"
  # the logs the old code opened with O_TRUNC through whatever was there (bench's
  # client logs, the suite's syscall logs), and files written by the atomic writer
  for n in logs/no_tee-1.stdout.log logs/no_tee-1.stderr.log syscall-c1.json \
    syscall-c1.stderr.log nginx-version.txt summary.txt ca.pem uname; do
    ln -sf "$WORK/rootfile" "$d/$n"
  done
}
# theirs DIR: planted and owned by nobody; open DIR: root's, mode 0777, not sticky
theirs() { plant "$1"; chown -hR nobody "$1"; }
open_dir() { plant "$1"; chmod 777 "$1"; }

BENCH=(bench notary --iterations 1 --benchmark-modes no_tee --start-fixture 0 --start-notary 0
  --client-cmd 'echo NOTARIZATION_MS=1; echo TOTAL_E2E_MS=2')
SUITE=(suite run --profile quick --workloads syscall --repeat 1 --set syscall.duration=0.05
  --set syscall.passes=1 --set syscall.copies=1 --no-store --progress none)

# refused WHAT CMD...: the root-only file intact (checked first: the old code wrote
# into it and then succeeded), then one error line and a non-zero exit.
refused() {
  local what=$1 rc=0
  shift
  "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  intact "$what"
  [ $rc -ne 0 ] || fail "$what: accepted"
  [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q '^teebench: ' "$WORK/err" || fail "$what: not one error line: $(cat "$WORK/err")"
}
for kind in theirs open_dir; do
  $kind "$WORK/$kind-bench"
  refused "bench notary --results-dir ($kind)" "$TB" "${BENCH[@]}" --results-dir "$WORK/$kind-bench"
  $kind "$WORK/$kind-suite"
  refused "suite run --work-dir ($kind)" "$TB" "${SUITE[@]}" -o "$WORK/suite.json" --work-dir "$WORK/$kind-suite"
  $kind "$WORK/$kind-env"
  refused "env --record ($kind)" "$TB" env --record "$WORK/$kind-env"
  $kind "$WORK/$kind-pki"
  refused "serve --gen-pki ($kind)" "$TB" serve --gen-pki "$WORK/$kind-pki"
done
grep -q "owned by uid $NOBODY, not by this user (uid 0): refusing it" <("$TB" "${BENCH[@]}" --results-dir "$WORK/theirs-bench" 2>&1) ||
  fail "bench: the refusal does not say why"
grep -q "writable by others (mode 0777): refusing it" <("$TB" "${SUITE[@]}" --work-dir "$WORK/open_dir-suite" 2>&1) ||
  fail "suite: the refusal does not say why"
pass "another user's or a world-writable directory is refused, the root-only file intact"

# A subdirectory of a private directory that is a symlink (logs/ -> elsewhere) is
# refused too, not written through.
d=$WORK/mine-linked
mkdir -m 700 "$d" "$WORK/elsewhere"
ln -s "$WORK/elsewhere" "$d/logs"
expect_fail 1 "$TB" "${BENCH[@]}" --results-dir "$d"
grep -q "logs: a symbolic link, not a directory: refusing it" "$WORK/err" || fail "logs symlink: $(cat "$WORK/err")"
[ -z "$(ls -A "$WORK/elsewhere")" ] || fail "wrote through the logs symlink"
pass "a symlinked logs/ is refused"

# Our own directories: an existing 0755 one, and a fresh one (created 0700).
mkdir -m 755 "$WORK/mine-bench"
"$TB" "${BENCH[@]}" --results-dir "$WORK/mine-bench" >"$WORK/out" 2>&1 || fail "bench in our directory: $(tail -3 "$WORK/out")"
[ -s "$WORK/mine-bench/results.csv" ] || fail "no results.csv"
grep -q "^NOTARIZATION_MS=1" "$WORK/mine-bench/logs/no_tee-1.stdout.log" || fail "the client's log"
"$TB" "${BENCH[@]}" --results-dir "$WORK/new-bench" >"$WORK/out" 2>&1 || fail "bench in a new directory: $(tail -3 "$WORK/out")"
[ "$(stat -c %a "$WORK/new-bench")" = 700 ] || fail "a new results dir is mode $(stat -c %a "$WORK/new-bench"), not 700"
"$TB" "${SUITE[@]}" -o "$WORK/suite.json" --work-dir "$WORK/new-suite" >"$WORK/out" 2>&1 || fail "suite in a new work dir: $(tail -3 "$WORK/out")"
[ -s "$WORK/new-suite/syscall-c1.json" ] || fail "no syscall output in the work dir"
[ "$(stat -c %a "$WORK/new-suite")" = 700 ] || fail "a new work dir is mode $(stat -c %a "$WORK/new-suite"), not 700"
intact "the runs in our own directories"
pass "our own directories, existing and new (0700), still work"
