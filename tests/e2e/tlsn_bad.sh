#!/usr/bin/env bash
# e2e: `teebench tlsn session` and `bench tlsn` with what they need missing or broken --
# no Chromium, no tlsn-wasm, a wasm whose hash differs from the pin, a page that never
# starts, a party that starts but never connects (a timeout per phase, then one line
# naming the party, the phase and who never connected), a party that fails, a browser
# that exits, a target that refuses (the proxy's close and the session's line) and one
# that is not TLS. The parties here are tests/e2e/tlsn_fake_party.py standing in for
# Chromium (a real session takes 1 to 5 minutes: slow_tlsn.sh), so this runs in seconds.
source "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FAKE=$HERE/tlsn_fake_party.py
PKG=$("$TB" tlsn session --help >/dev/null; echo "${TEEBENCH_TLSN_WASM:-/var/cache/teebench/tlsn-wasm/0.1.0-alpha.12/package}")
[ -f "$PKG/tlsn_wasm_bg.wasm" ] || skip "tlsn-wasm not installed in $PKG (scripts/setup.sh --tlsn)"

# ---- what is missing: one line each, saying what to do
expect_fail 1 env PATH=/nonexistent "$TB" tlsn session --wasm "$PKG"
grep -q "Chromium is not installed: no chromium in PATH (scripts/setup.sh --tlsn" "$WORK/err" ||
  fail "missing Chromium: $(cat "$WORK/err")"
expect_fail 1 "$TB" tlsn session --wasm "$PKG" --chromium /nonexistent/chromium
grep -q "Chromium: /nonexistent/chromium is not an executable" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 1 "$TB" bench tlsn --iterations 1 --chromium /nonexistent/chromium --results-dir "$WORK/r0"
[ ! -e "$WORK/r0" ] || fail "bench tlsn made a run directory before its checks"
expect_fail 1 "$TB" tlsn session --wasm "$WORK/none" --chromium "$FAKE"
grep -q "tlsn-wasm is not installed: no directory $WORK/none (scripts/setup.sh --tlsn installs tlsn-wasm@0.1.0-alpha.12" "$WORK/err" ||
  fail "missing package: $(cat "$WORK/err")"
cp -r "$PKG" "$WORK/pkg"
printf '\x01' | dd of="$WORK/pkg/tlsn_wasm_bg.wasm" bs=1 seek=1000 conv=notrunc status=none
expect_fail 1 "$TB" tlsn session --wasm "$WORK/pkg" --chromium "$FAKE"
grep -q "tlsn_wasm_bg.wasm: SHA-256 [0-9a-f]\{64\}, not the pinned f77fadf47ed8c3bfb0932041b280f834940ecf1a64b491f8658d789717588716 of tlsn-wasm@0.1.0-alpha.12" "$WORK/err" ||
  fail "changed wasm: $(cat "$WORK/err")"
expect_fail 1 "$TB" bench tlsn --iterations 1 --wasm "$WORK/pkg" --chromium "$FAKE" --results-dir "$WORK/r1"
grep -q "not the pinned" "$WORK/err" || fail "bench tlsn, changed wasm: $(cat "$WORK/err")"
expect_fail 2 "$TB" bench tlsn --client-cmd "true"
grep -q "bench tlsn runs its own client" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" tlsn session --mode tee_maybe
pass "missing Chromium, missing or changed tlsn-wasm, bad flags: one line each"

session() { # session FAKE_MODE [flags...]: a session with the fake parties
  local m=$1; shift
  TLSN_FAKE=$m expect_fail 1 timeout 60 "$TB" tlsn session --wasm "$PKG" --chromium "$FAKE" \
    --work-dir "$WORK/w" --startup-timeout 2s --phase-timeout 2s "$@"
}
t0=$(date +%s)
session sleep
grep -Eq "the (prover|verifier)'s page did not start within 2 s \(its Chromium's log: $WORK/w/(prover|verifier).chromium.log\)" "$WORK/err" ||
  fail "never started: $(cat "$WORK/err")"
session stall
grep -Eq "the (prover|verifier)'s setup phase did not finish: the (verifier|prover) never connected to the relay within 2 s" "$WORK/err" ||
  fail "never connected: $(cat "$WORK/err")"
session error
grep -Eq "the (prover|verifier) failed in its setup phase: fake failure" "$WORK/err" || fail "$(cat "$WORK/err")"
session exit:3
grep -Eq "the (prover|verifier)'s Chromium exited with code 3 in its startup phase" "$WORK/err" ||
  fail "exited: $(cat "$WORK/err")"
[ $(($(date +%s) - t0)) -lt 40 ] || fail "the timeouts took too long"
# every process the sessions started is gone
if pgrep -f "$FAKE" >/dev/null; then fail "a fake party outlived its session"; fi
pass "a page that never starts, a party that never connects, fails or exits: one line each"

# ---- the target: refusing, and not TLS
port=$(free_port)
TLSN_FAKE_PROVER=proxy TLSN_FAKE_VERIFIER=sleep session proxy --target "127.0.0.1:$port" --startup-timeout 20s
grep -q "proxy: the target 127.0.0.1:$port refused: " "$WORK/err" || fail "refused: $(cat "$WORK/err")"
hport=$(free_port)
spawn "$TB" serve --port "$hport"
wait_port "$hport"
TLSN_FAKE_PROVER=proxy TLSN_FAKE_VERIFIER=sleep session proxy --target "127.0.0.1:$hport" --startup-timeout 20s
grep -q "the prover failed in its request phase: proxy answered [0-9]* bytes b'HTTP/1.1 400', close 1000 target closed" "$WORK/err" ||
  fail "not TLS: $(cat "$WORK/err")"
pass "a target that refuses, and one that answers a ClientHello with HTTP: the proxy says so"
