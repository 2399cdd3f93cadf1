#!/usr/bin/env bash
# teebench attest show / verify / quote / sim-collateral: the real cases' verdicts and
# exit codes (0 accepted, 3 refused by the policy, 4 invalid, 1 error, 2 usage), text
# and JSON output, hex/base64 input, policies, and the SIMULATED provider end to end.
source "$(dirname "$0")/lib.sh"
T=$TESTDATA/tdx
now_of() { python3 -c "import json;print(json.load(open('$T/$1/case.json'))['now'])"; }
export TEEBENCH_SIM_DIR=$WORK/sim XDG_CACHE_HOME=$WORK/cache

# --- show
"$TB" attest show "$T/qvl-v5-notcb/quote.bin" >"$WORK/out" || fail "show v5"
for f in tee_tcb_svn mrseam mrsignerseam seam_attributes td_attributes xfam mrtd mrconfigid \
  mrowner mrownerconfig rtmr0 rtmr3 report_data tee_tcb_svn2 mrservicetd attestation_key \
  qe_report mrsigner isvprodid pck_subjects fmspc; do
  grep -q "$f" "$WORK/out" || fail "show lacks $f"
done
grep -q 'TDX quote v5, body type 3 (TDX 1.5)' "$WORK/out" || fail "show v5 header"
grep -q 'Intel SGX PCK' "$WORK/out" || fail "show PCK subjects"
"$TB" attest show --json "$T/dcaprs-v4-outofdate/quote.bin" >"$WORK/out.json" || fail "show --json"
python3 - "$WORK/out.json" <<'PY' || fail "show --json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["header"]["version"] == 4 and d["td_report"]["body_type"] == 2
assert d["trailing_bytes"] > 0 and d["signature_data"]["fmspc"] == "00806f050000"
assert d["simulated"] is False and d["td_report"]["debug"] is False
PY
xxd -p "$T/qvl-v4-uptodate/quote.bin" >"$WORK/q.hex"
base64 "$T/qvl-v4-uptodate/quote.bin" >"$WORK/q.b64"
"$TB" attest show --json "$WORK/q.hex" | grep -q '"fmspc": "b0c06f000000"' || fail "show hex input"
"$TB" attest show --json "$WORK/q.b64" | grep -q '"fmspc": "b0c06f000000"' || fail "show base64 input"
head -c 700 "$T/qvl-v4-uptodate/quote.bin" >"$WORK/trunc.bin"
expect_fail 1 "$TB" attest show "$WORK/trunc.bin"
grep -q 'truncated' "$WORK/err" || fail "truncated show message"
pass "show"

# --- verify: every real case, expected verdict and exit code
C=qvl-v4-uptodate
"$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --now "$(now_of $C)" >"$WORK/out" \
  || fail "uptodate case must be accepted"
grep -q '^verdict: *ACCEPTED' "$WORK/out" || fail "accepted verdict"
grep -q '^tcb status: *UpToDate' "$WORK/out" || fail "UpToDate"
C=dcaprs-v4-outofdate
expect_fail 3 "$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --now "$(now_of $C)"
grep -q '^advisories: *INTEL-SA-00960, INTEL-SA-00982, INTEL-SA-00986 ' "$WORK/out" || fail "advisories"
grep -q '^  platform: *INTEL-SA-00960, INTEL-SA-00982, INTEL-SA-00986$' "$WORK/out" || fail "platform advisories"
grep -q '^  qe: *none$' "$WORK/out" || fail "QE level's advisories: $(cat "$WORK/out")"
rc=0
"$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --now "$(now_of $C)" --json \
  >"$WORK/adv.json" 2>/dev/null || rc=$?
[ $rc = 3 ] || fail "refused --json: exit $rc"
python3 - "$WORK/adv.json" <<'PY' || fail "advisories in --json"
import json, sys
d = json.load(open(sys.argv[1]))
ids = ["INTEL-SA-00960", "INTEL-SA-00982", "INTEL-SA-00986"]
assert d["advisory_ids"] == ids, d["advisory_ids"]
assert d["advisories"] == [{"id": i, "levels": ["platform"]} for i in ids], d["advisories"]
assert d["sa_list"] == ",".join(ids) and d["advisories_cut"] is False, d
PY
grep -q 'TCB status OutOfDate is not acceptable' "$WORK/err" || fail "refused reason"
echo '{"tcb_statuses": ["UpToDate", "OutOfDate"]}' >"$WORK/policy.json"
"$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --now "$(now_of $C)" \
  --policy "$WORK/policy.json" >/dev/null || fail "policy accepting OutOfDate"
for C in gotdx-v4-notcb qvl-v5-notcb; do
  expect_fail 4 "$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --now "$(now_of $C)"
  grep -q 'no TCB level matches the platform (Intel: TCB_NOT_SUPPORTED)' "$WORK/err" || fail "$C reason"
  grep -q '^failed step: *8 (tcb-level)' "$WORK/out" || fail "$C step"
done
C=qvl-v4-uptodate
"$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --now "$(now_of $C)" --json >"$WORK/out.json"
python3 - "$WORK/out.json" <<'PY' || fail "verify --json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d)[:3] == ["schema", "teebench", "env"] and d["schema"] == "teebench-attest-verify/1", list(d)[:4]
assert d["verdict"] == "ACCEPTED" and d["tcb_status"] == "UpToDate" and d["advisory_ids"] == []
assert d["advisories"] == [] and d["sa_list"] == ""
assert d["tcb_date"] == "2024-03-13T00:00:00Z" and d["fmspc"] == "b0c06f000000"
assert d["verify_ms"] > 0 and d["simulated"] is False
PY
# Invalid inputs: flipped body byte, truncated quote, expired collateral, other FMSPC.
python3 -c "
import sys; b=bytearray(open('$T/$C/quote.bin','rb').read()); b[300]^=1; open('$WORK/flip.bin','wb').write(b)"
expect_fail 4 "$TB" attest verify "$WORK/flip.bin" --collateral "$T/$C/collateral.json" --now "$(now_of $C)"
grep -q 'step quote-signature' "$WORK/err" || fail "flipped body: $(cat "$WORK/err")"
expect_fail 4 "$TB" attest verify "$WORK/trunc.bin" --collateral "$T/$C/collateral.json" --now "$(now_of $C)"
grep -q 'trunc.bin: invalid: step parse: truncated' "$WORK/err" || fail "unparsable quote: $(cat "$WORK/err")"
# Stale collateral is its own verdict (exit 5), not an invalid quote; it verifies with
# --allow-expired-collateral (offline re-verification of old evidence).
expect_fail 5 "$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --now 1900000000
grep -q 'collateral expired at 2025-07-19T10:00:35Z (PCK CRL)' "$WORK/err" || fail "expired: $(cat "$WORK/err")"
grep -q '^verdict:      COLLATERAL EXPIRED' "$WORK/out" || fail "expired verdict line"
"$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --now 1900000000 \
    --allow-expired-collateral >"$WORK/out" 2>"$WORK/err" || fail "--allow-expired-collateral: $(cat "$WORK/err")"
grep -q '^collateral:   EXPIRED at 2025-07-19T10:00:35Z (PCK CRL)' "$WORK/out" || fail "expired line: $(cat "$WORK/out")"
expect_fail 4 "$TB" attest verify "$T/$C/quote.bin" --collateral "$T/qvl-v5-notcb/collateral.json" --now "$(now_of qvl-v5-notcb)"
grep -q 'FMSPC' "$WORK/err" || fail "other FMSPC: $(cat "$WORK/err")"
# Errors and usage. An unreadable quote is an error (1), not an invalid quote (4); every
# message names a path once.
once() { # once PATH: the error line names PATH exactly once
  [ "$(grep -o -F "$1" "$WORK/err" | wc -l)" -eq 1 ] || fail "want $1 once in: $(cat "$WORK/err")"
}
expect_fail 1 "$TB" attest verify "$WORK/nope.bin" --collateral "$T/$C/collateral.json"
grep -q 'No such file' "$WORK/err" || fail "unreadable quote: $(cat "$WORK/err")"
once "$WORK/nope.bin"
chmod 000 "$WORK/q.hex"
if ! cat "$WORK/q.hex" >/dev/null 2>&1; then # (root reads it anyway)
  expect_fail 1 "$TB" attest verify "$WORK/q.hex" --collateral "$T/$C/collateral.json"
  once "$WORK/q.hex"
fi
chmod 644 "$WORK/q.hex"
for sub in show "collateral --pccs http://127.0.0.1:9" "bench --collateral $T/$C/collateral.json"; do
  # shellcheck disable=SC2086 # $sub holds a subcommand and its options
  expect_fail 1 "$TB" attest $sub "$WORK/nope.bin"
  once "$WORK/nope.bin"
done
expect_fail 1 "$TB" attest show "$WORK/trunc.bin"
once "$WORK/trunc.bin"
expect_fail 1 "$TB" attest bench "$T/$C/quote.bin" --collateral "$T/$C/case.json"
once "$T/$C/case.json"
expect_fail 1 "$TB" attest verify "$T/$C/quote.bin" --collateral "$WORK/nope.json"
grep -q "collateral: $WORK/nope.json: No such file" "$WORK/err" || fail "missing collateral: $(cat "$WORK/err")"
once "$WORK/nope.json"
expect_fail 1 "$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/case.json"
expect_fail 1 "$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --root "$WORK/nope.pem"
echo '{"tcb_statuses": ["Great"]}' >"$WORK/bad-policy.json"
expect_fail 1 "$TB" attest verify "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --policy "$WORK/bad-policy.json"
expect_fail 2 "$TB" attest verify "$T/$C/quote.bin"
expect_fail 2 "$TB" attest verify "$T/$C/quote.bin" --collateral x --pccs http://x
expect_fail 2 "$TB" attest verify "$T/$C/quote.bin" --collateral x --now yesterday
expect_fail 2 "$TB" attest frobnicate
expect_fail 2 "$TB" attest quote --report-data zz --provider sim
expect_fail 2 "$TB" attest quote --report-data 00 --provider pony
"$TB" attest --help | grep -q 'exit codes: 0 accepted' || fail "--help documents exit codes"
# attest bench --json: the envelope with this machine's env (a measurement); show too
"$TB" attest bench "$T/$C/quote.bin" --collateral "$T/$C/collateral.json" --now "$(now_of $C)" \
  --iterations 5 --json >"$WORK/bench.json" || fail "bench --json"
"$TB" attest show --json "$T/$C/quote.bin" >"$WORK/show.json" || fail "show --json"
python3 - "$WORK/bench.json" "$WORK/show.json" <<'PY' || fail "bench/show --json envelope"
import json, sys
b = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
assert list(b)[:3] == ["schema", "teebench", "env"] and b["schema"] == "teebench-attest-bench/1", list(b)[:4]
assert b["env"]["schema"] == "teebench-env/1" and b["scratch_ms"] > 0 and b["verdict"] == "ACCEPTED", b
assert s["schema"] == "teebench-attest-show/1" and s["env"] is None and "header" in s, list(s)
PY
pass "verify"

# --- the SIMULATED provider, end to end
RD=$(printf '%0128x' 42)
"$TB" attest quote --provider sim --report-data "$RD" -o "$WORK/sim.bin" 2>"$WORK/err" || fail "sim quote: $(cat "$WORK/err")"
grep -q 'SIMULATED quote' "$WORK/err" || fail "sim quote is labelled SIMULATED"
[ -f "$WORK/sim/sim-root.pem" ] || fail "sim state directory created"
"$TB" attest show "$WORK/sim.bin" | grep -q '^SIMULATED quote' || fail "show labels a sim quote"
"$TB" attest show --json "$WORK/sim.bin" | grep -q "\"report_data\": \"$RD\"" || fail "sim report data"
"$TB" attest sim-collateral "$WORK/simcol" >"$WORK/out" || fail "sim-collateral"
grep -q 'SIMULATED' "$WORK/out" || fail "sim-collateral labelled"
"$TB" attest verify "$WORK/sim.bin" --collateral "$WORK/simcol/collateral.json" --root "$WORK/simcol/sim-root.pem" >"$WORK/out" \
  || fail "sim quote verifies with the sim root"
grep -q 'SIMULATED' "$WORK/out" || fail "verify output labels SIMULATED"
grep -q '^tcb status: *UpToDate' "$WORK/out" || fail "sim UpToDate"
"$TB" attest verify "$WORK/sim.bin" --collateral sim >"$WORK/out" || fail "--collateral sim"
expect_fail 4 "$TB" attest verify "$WORK/sim.bin" --collateral "$WORK/simcol/collateral.json"
grep -q 'SIMULATED' "$WORK/err" || fail "Intel-root failure says SIMULATED"
# A quote made by another process (same sim dir) verifies; a different sim dir does not.
"$TB" attest quote --provider sim --report-data 01 >"$WORK/sim.hex" 2>/dev/null || fail "sim hex quote"
"$TB" attest verify "$WORK/sim.hex" --collateral "$WORK/simcol/collateral.json" --root "$WORK/simcol/sim-root.pem" >/dev/null \
  || fail "sim hex quote verifies"
TEEBENCH_SIM_DIR=$WORK/sim2 "$TB" attest sim-collateral "$WORK/simcol2" >/dev/null
expect_fail 4 "$TB" attest verify "$WORK/sim.bin" --collateral "$WORK/simcol2/collateral.json" --root "$WORK/simcol2/sim-root.pem"
# Revoked PCK, DEBUG TD.
"$TB" attest sim-collateral "$WORK/simrev" --revoke-pck >/dev/null
expect_fail 4 "$TB" attest verify "$WORK/sim.bin" --collateral "$WORK/simrev/collateral.json" --root "$WORK/simrev/sim-root.pem"
grep -q 'revoked' "$WORK/err" || fail "revoked PCK: $(cat "$WORK/err")"
"$TB" attest quote --provider sim --debug --report-data 02 -o "$WORK/simdbg.bin" 2>/dev/null
expect_fail 3 "$TB" attest verify "$WORK/simdbg.bin" --collateral "$WORK/simcol/collateral.json" --root "$WORK/simcol/sim-root.pem"
grep -q 'DEBUG' "$WORK/err" || fail "debug refused: $(cat "$WORK/err")"
"$TB" attest verify "$WORK/simdbg.bin" --collateral "$WORK/simcol/collateral.json" --root "$WORK/simcol/sim-root.pem" --allow-debug >/dev/null \
  || fail "--allow-debug"
# Policy on REPORTDATA.
printf '{"report_data_prefix": "%s"}' "${RD:0:16}" >"$WORK/rd-policy.json"
"$TB" attest verify "$WORK/sim.bin" --collateral sim --policy "$WORK/rd-policy.json" >/dev/null || fail "report data policy"
expect_fail 3 "$TB" attest verify "$WORK/simdbg.bin" --collateral sim --allow-debug --policy "$WORK/rd-policy.json"
pass "simulated provider"

# --- configfs-tsm: not a TD here (or a fake root): a clear error saying what was looked for.
if [ ! -d /sys/kernel/config/tsm/report ]; then
  expect_fail 1 "$TB" attest quote --report-data 00 --provider tsm -o "$WORK/tsm.bin"
  grep -q 'no configfs-tsm at /sys/kernel/config/tsm/report' "$WORK/err" || fail "tsm error: $(cat "$WORK/err")"
  [ ! -e "$WORK/tsm.bin" ] || fail "no output file on failure"
fi
pass attest_cli
