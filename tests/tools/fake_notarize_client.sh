#!/usr/bin/env bash
# A stand-in for `teebench notarize` used by the harness tests (--client-cmd).
# Prints the KEY=value lines a real client prints, with values derived from
# BENCHMARK_MODE and BENCHMARK_ITERATION (set by the harness):
#   no_tee:        NOTARIZATION_MS = 100 + iteration
#   tee_no_verify: NOTARIZATION_MS = 130 + 2 * iteration
#   tee_verify:    NOTARIZATION_MS = 140 + iteration, TDX_VERIFY_MS = 20 + iteration / 2
# FAKE_PLAN="mode:iteration=behaviour ..." changes single runs; behaviours:
#   fail | hang | garbage | noverify (no TDX_VERIFY_MS) | fail-once | hang-once  (the *-once ones only on the first
#   attempt, remembered in FAKE_STATE_DIR). FAKE_ALL=behaviour applies to every run.
set -u
mode=${BENCHMARK_MODE:?} it=${BENCHMARK_ITERATION:?}
behaviour=${FAKE_ALL:-ok}
for entry in ${FAKE_PLAN:-}; do
  [ "${entry%%=*}" = "$mode:$it" ] && behaviour=${entry#*=}
done
case $behaviour in
  *-once)
    mark="${FAKE_STATE_DIR:?}/$mode-$it.seen"
    if [ -e "$mark" ]; then behaviour=ok; else : >"$mark"; behaviour=${behaviour%-once}; fi ;;
esac
echo "fake client: mode=$mode iteration=$it tee=$ENABLE_TEE_ATTESTATION verify=$VERIFY_ATTESTATION notary=$NOTARY_SCHEME://$NOTARY_HOST:$NOTARY_PORT target=$TARGET_HOST:$TARGET_PORT/$TARGET_SERVER_NAME$TARGET_URI" >&2
case $behaviour in
  fail) echo "NOTARIZATION_MS=1 ENABLE_TEE_ATTESTATION=$ENABLE_TEE_ATTESTATION"; exit 3 ;;
  hang) sleep 1000 & echo $! >"${FAKE_STATE_DIR:-/tmp}/$mode-$it.grandchild"; sleep 1000; exit 0 ;;
  garbage) printf 'NOTARIZATION_MS=abc\nTOTAL_E2E_MS=\x01\x02\nTDX_VERIFY_MS=-5\n=\n'; exit 0 ;;
esac
case $mode in
  no_tee) n=$((100 + it)) ;;
  tee_no_verify) n=$((130 + 2 * it)) ;;
  *) n=$((140 + it)) ;;
esac
echo "NOTARIZATION_MS=999 ENABLE_TEE_ATTESTATION=$ENABLE_TEE_ATTESTATION"  # superseded: last wins
echo "some log line"
echo "NOTARIZATION_MS=$n ENABLE_TEE_ATTESTATION=$ENABLE_TEE_ATTESTATION"
echo "TOTAL_E2E_MS=$((n + 7))"
if { [ "$VERIFY_ATTESTATION" = 1 ] || [ "$VERIFY_ATTESTATION" = true ]; } && [ "$behaviour" != noverify ]; then
  echo "TDX_VERIFY_MS=$((20 + it / 2)).5"
fi
exit 0
