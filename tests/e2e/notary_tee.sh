#!/usr/bin/env bash
# The notary with a SIMULATED TEE: evidence binds the notary key and the
# client's nonce, --verify checks the quote against the simulated PKI, and a
# quote bound to another key or another nonce is refused; the same for a SIMULATED
# SEV-SNP report (--tee sim-snp). Also: --tee tdx on a
# machine without configfs-tsm fails at start with a clear error.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_notary.sh"

export TEEBENCH_SIM_DIR=$WORK/sim
PKI=$WORK/pki
make_pki "$PKI"
TPORT=$(free_port)
start_target "$TPORT" "$PKI/server.pem" "$PKI/server.key"
NPORT=$(free_port)
start_notary "$NPORT" --tee sim --trust-ca "$PKI/ca.pem"
N2PORT=$(free_port)
start_notary "$N2PORT" --tee sim --trust-ca "$PKI/ca.pem" # same sim PKI, another key

export TARGET_PORT=$TPORT FIXTURE_CA=$PKI/ca.pem
unset MAX_SENT_DATA MAX_RECV_DATA USE_FIXTURE_CA TARGET_URI VERIFY_ATTESTATION

# 1. TEE attestation with verification: the source client's lines plus the label
"$TB" notarize --notary-port "$NPORT" --tee true --verify --out "$WORK/a" >"$WORK/out" 2>"$WORK/err" \
  || fail "notarize --verify: $(cat "$WORK/err")"
grep -Eq '^NOTARIZATION_MS=[0-9]+\.[0-9]{3} ENABLE_TEE_ATTESTATION=true$' "$WORK/out" || fail "line 1"
grep -Eq '^TDX_VERIFY_MS=[0-9]+\.[0-9]{3}$' "$WORK/out" || fail "TDX_VERIFY_MS: $(cat "$WORK/out")"
grep -q '^NOTARY_TEE=sim SIMULATED=true$' "$WORK/out" || fail "simulated label"
grep -Eq '^TOTAL_E2E_MS=[0-9]+\.[0-9]{3}$' "$WORK/out" || fail "TOTAL_E2E_MS"
grep -q '"simulated":true' "$WORK/a.evidence.json" || fail "evidence file label"
# without --verify: no TDX_VERIFY_MS; env var form
ENABLE_TEE_ATTESTATION=true "$TB" notarize --notary-port "$NPORT" >"$WORK/out" || fail "tee_no_verify"
! grep -q TDX_VERIFY_MS "$WORK/out" || fail "TDX_VERIFY_MS without --verify"
pass "TEE notarization with and without verification"

# 2. offline: document + evidence + quote verification
"$TB" notary check "$WORK/a.tbnd" --evidence "$WORK/a.evidence.json" --verify --ca "$PKI/ca.pem" \
  >"$WORK/check" || fail "notary check --evidence --verify"
grep -q '^tee: sim (SIMULATED)$' "$WORK/check" || fail "check tee line"
grep -q 'quote verified' "$WORK/check" || fail "check verified line"
"$TB" notary check "$WORK/a.tbnd" --evidence "$WORK/a.evidence.json" --verify --json >"$WORK/c.json" \
  || fail "notary check --json"
"$TB" notarize --notary-port "$NPORT" --tee true --verify --json >"$WORK/n.json" || fail "notarize --json"
python3 - "$WORK/c.json" "$WORK/n.json" <<'PY' || fail "SIMULATED in the --json documents"
import json, sys
c, n = (json.load(open(p)) for p in sys.argv[1:3])
assert c["tee"] == "sim" and c["simulated"] is True, c
assert c["evidence"]["simulated"] is True and c["evidence"]["quote_verified"] is True, c["evidence"]
assert n["notary_tee"] == "sim" and n["simulated"] is True and n["verified"] is True, n
assert n["tdx_verify_ms"] > 0
PY
pass "notary check verifies the saved evidence"

# 3. a quote bound to another key: evidence from the second notary, with its
#    nonce and reportData rewritten to claim the first document's key and nonce
"$TB" notarize --notary-port "$N2PORT" --tee true --out "$WORK/b" >/dev/null || fail "second notary"
python3 - "$WORK/a.evidence.json" "$WORK/b.evidence.json" "$WORK/forged-key.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
b["nonce"], b["reportData"] = a["nonce"], a["reportData"]
json.dump(b, open(sys.argv[3], "w"))
PY
"$TB" notary check "$WORK/a.tbnd" --evidence "$WORK/forged-key.json" >/dev/null \
  || fail "without --verify the rewritten fields look consistent"
expect_fail 1 "$TB" notary check "$WORK/a.tbnd" --evidence "$WORK/forged-key.json" --verify
grep -q "does not bind this nonce and notary key" "$WORK/err" || fail "other key: $(cat "$WORK/err")"
# the second notary's own evidence does not match the first document either
expect_fail 1 "$TB" notary check "$WORK/a.tbnd" --evidence "$WORK/b.evidence.json" --verify
pass "a quote bound to another key is refused"

# 4. another nonce: a quote for the same key but another session's nonce
"$TB" notarize --notary-port "$NPORT" --tee true --out "$WORK/c" >/dev/null || fail "third run"
python3 - "$WORK/a.evidence.json" "$WORK/c.evidence.json" "$WORK/forged-nonce.json" <<'PY'
import json, sys
a, c = (json.load(open(p)) for p in sys.argv[1:3])
c["nonce"], c["reportData"] = a["nonce"], a["reportData"]
json.dump(c, open(sys.argv[3], "w"))
PY
expect_fail 1 "$TB" notary check "$WORK/a.tbnd" --evidence "$WORK/forged-nonce.json" --verify
grep -q "does not bind this nonce and notary key" "$WORK/err" || fail "other nonce: $(cat "$WORK/err")"
expect_fail 1 "$TB" notary check "$WORK/a.tbnd" --evidence "$WORK/c.evidence.json"
grep -q "nonce is not the one" "$WORK/err" || fail "nonce mismatch: $(cat "$WORK/err")"
pass "a quote bound to another nonce is refused"

# 5. a quote from another simulated PKI does not verify
expect_fail 1 env TEEBENCH_SIM_DIR="$WORK/other-sim" "$TB" notary check "$WORK/a.tbnd" \
  --evidence "$WORK/a.evidence.json" --verify
grep -q "quote verification failed" "$WORK/err" || fail "other PKI: $(cat "$WORK/err")"
expect_fail 1 env TEEBENCH_SIM_DIR="$WORK/other-sim" "$TB" notarize --notary-port "$NPORT" --tee true --verify
pass "a quote from another (simulated) PKI is refused"

# 7. SEV-SNP (SIMULATED): the report carries the same binding and --verify checks it
#    with the SNP verifier against the simulated ARK/ASK/VCEK (committed sim PKI:
#    no RSA-4096 key generation in the test)
mkdir -p "$WORK/sim" && cp -r "$(dirname "$0")/../data/snp-sim/snp" "$WORK/sim/"
SPORT=$(free_port)
start_notary "$SPORT" --tee sim-snp --trust-ca "$PKI/ca.pem"
"$TB" notarize --notary-port "$SPORT" --tee true --verify --out "$WORK/s" >"$WORK/out" 2>"$WORK/err" \
  || fail "sim-snp notarize --verify: $(cat "$WORK/err")"
grep -q '^NOTARY_TEE=sim-snp SIMULATED=true$' "$WORK/out" || fail "sim-snp label: $(cat "$WORK/out")"
grep -Eq '^TDX_VERIFY_MS=[0-9]+\.[0-9]{3}$' "$WORK/out" || fail "sim-snp verify time"
grep -q '"tee":"sim-snp","simulated":true' "$WORK/s.evidence.json" || fail "sim-snp evidence label"
"$TB" notary check "$WORK/s.tbnd" --evidence "$WORK/s.evidence.json" --verify >"$WORK/check" \
  || fail "notary check sim-snp"
grep -q '^tee: sim-snp (SIMULATED)$' "$WORK/check" || fail "sim-snp check tee line"
grep -q 'quote verified' "$WORK/check" || fail "sim-snp check verified line"
# another session's SNP report, its nonce and reportData rewritten to claim this
# document's: the report's own REPORT_DATA gives it away
"$TB" notarize --notary-port "$SPORT" --tee true --out "$WORK/s2" >/dev/null || fail "sim-snp 2"
python3 - "$WORK/s.evidence.json" "$WORK/s2.evidence.json" "$WORK/forged-snp.json" <<'PY'
import json, sys
s, s2 = (json.load(open(p)) for p in sys.argv[1:3])
s2["nonce"], s2["reportData"] = s["nonce"], s["reportData"]
json.dump(s2, open(sys.argv[3], "w"))
PY
expect_fail 1 "$TB" notary check "$WORK/s.tbnd" --evidence "$WORK/forged-snp.json" --verify
grep -q "does not bind this nonce and notary key" "$WORK/err" || fail "snp other nonce: $(cat "$WORK/err")"
# SNP evidence beside a TDX (sim) document
expect_fail 1 "$TB" notary check "$WORK/a.tbnd" --evidence "$WORK/s.evidence.json" --verify
grep -q "the document's tee is not the evidence's" "$WORK/err" || fail "tdx doc, snp evidence: $(cat "$WORK/err")"
# TDX collateral options make no sense for an SNP report
expect_fail 1 "$TB" notary check "$WORK/s.tbnd" --evidence "$WORK/s.evidence.json" --verify \
  --collateral /nonexistent
grep -q "are for TDX quotes" "$WORK/err" || fail "snp + --collateral: $(cat "$WORK/err")"
pass "SEV-SNP (SIMULATED) evidence: notarize --verify and notary check"

# 6. --tee tdx without configfs-tsm: a clear error at start
if [ ! -d /sys/kernel/config/tsm/report ]; then
  expect_fail 1 "$TB" notary serve --port "$(free_port)" --tee tdx
  grep -q "TEE quote for /info" "$WORK/err" || fail "tdx without tsm: $(cat "$WORK/err")"
  pass "--tee tdx without configfs-tsm fails at start"
fi
