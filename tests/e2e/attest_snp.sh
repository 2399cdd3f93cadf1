#!/usr/bin/env bash
# teebench attest show / verify / quote with AMD SEV-SNP reports: the real Milan report
# and go-sev-guest's attestation (accepted at a time inside their validity, refused by the
# policy, invalid when a byte changes or the chain is another product's), exit codes and
# messages as for TDX, the SIMULATED provider (committed sim PKI: no RSA-4096 key
# generation in the test), and the KDS fetch against a fake KDS (429 retried, the
# cache hit makes no request). Few python3 starts: they cost seconds on a loaded host.
source "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
S=$TESTDATA/snp
NOW=1700000000
export TEEBENCH_SIM_DIR=$WORK/sim XDG_CACHE_HOME=$WORK/cache
mkdir -p "$WORK/sim" && cp -r "$HERE/../data/snp-sim/snp" "$WORK/sim/"

# --- show
"$TB" attest show "$S/report_milan.hex" >"$WORK/out" || fail "show"
for f in guest_svn smt_allowed migrate_ma debug single_socket family_id image_id vmpl \
  signature_algo current_tcb bootloader_spl tee_spl snp_spl microcode_spl platform_info \
  signing_key report_data measurement host_data id_key_digest author_key_digest report_id \
  report_id_ma reported_tcb chip_id committed_tcb current_firmware launch_tcb signature; do
  grep -q "$f" "$WORK/out" || fail "show lacks $f"
done
grep -q 'SEV-SNP attestation report v2' "$WORK/out" || fail "show header"
"$TB" attest show --json "$S/gosev_attestation.bin" >"$WORK/out.json" || fail "show --json"
for want in '"tee": "SEV-SNP"' '"version": 2,' '"simulated": false' '"debug": true' \
  '"signing_key": "VCEK"' '"microcode_spl": '; do
  grep -q "$want" "$WORK/out.json" || fail "show --json lacks $want"
done
pass "show"

# --- verify the real reports
D=$WORK/milan && mkdir -p "$D"
cp "$S/ark_milan.pem" "$D/ark.pem" && cp "$S/ask_milan.pem" "$D/ask.pem" && cp "$S/vcek_milan.der" "$D/vcek.der"
"$TB" attest verify "$S/report_milan.hex" --certs "$D" --now $NOW >"$WORK/out" || fail "milan accepted"
grep -q '^verdict: *ACCEPTED' "$WORK/out" || fail "verdict"
grep -q 'reported tcb: bl 3, tee 0, snp 8, ucode 115' "$WORK/out" || fail "tcb line"
G=$WORK/gosev && mkdir -p "$G" && cp "$S/gosev_milan.testcer" "$G/cert_chain.pem" && cp "$S/gosev_vcek.testcer" "$G/vcek.der"
expect_fail 3 "$TB" attest verify "$S/gosev_attestation.bin" --certs "$G" --now $NOW
grep -q 'refused by the policy: the guest policy allows debugging' "$WORK/err" || fail "debug refused"
"$TB" attest verify "$S/gosev_attestation.bin" --certs "$G" --now $NOW --allow-debug --json >"$WORK/out.json" || fail "allow-debug"
grep -q '"verdict": "ACCEPTED"' "$WORK/out.json" && grep -q '"product": "Milan"' "$WORK/out.json" \
  || fail "allow-debug json: $(cat "$WORK/out.json")"
echo '{"min_tcb": {"snp": 99}}' >"$WORK/pol.json"
expect_fail 3 "$TB" attest verify "$S/report_milan.hex" --certs "$D" --now $NOW --policy "$WORK/pol.json"
grep -q 'snp SPL 8 is below' "$WORK/err" || fail "min_tcb"
# invalid: a changed byte, a time outside the VCEK, the other report's VCEK
xxd -r -p "$S/report_milan.hex" >"$WORK/flip.bin"
printf '\x01' | dd of="$WORK/flip.bin" bs=1 seek=$((0x90)) conv=notrunc status=none # was 0x7a
expect_fail 4 "$TB" attest verify "$WORK/flip.bin" --certs "$D" --now $NOW
grep -q 'invalid: step signature' "$WORK/err" || fail "flip: $(cat "$WORK/err")"
grep -q '^failed step: *6 (signature)' "$WORK/out" || fail "flip step"
expect_fail 5 "$TB" attest verify "$S/report_milan.hex" --certs "$D" --now 1920000000
grep -q 'collateral expired at 2030-04-03T19:23:43Z (VCEK)' "$WORK/err" || fail "expired: $(cat "$WORK/err")"
"$TB" attest verify "$S/report_milan.hex" --certs "$D" --now 1920000000 --allow-expired-collateral \
  >/dev/null || fail "--allow-expired-collateral"
expect_fail 4 "$TB" attest verify "$S/report_milan.hex" --certs "$D" --now 1600000000
grep -q 'step ark: the ARK is not yet valid' "$WORK/err" || fail "not yet valid"
cp "$S/gosev_vcek.testcer" "$D/vcek.der"
expect_fail 4 "$TB" attest verify "$S/report_milan.hex" --certs "$D" --now $NOW
grep -q 'step tcb' "$WORK/err" || fail "wrong VCEK: $(cat "$WORK/err")"
pass "verify real reports"

# --- errors and usage
expect_fail 1 "$TB" attest verify "$S/report_milan.hex" --certs "$WORK/nowhere" --now $NOW
grep -q 'not a folder' "$WORK/err" || fail "missing folder"
expect_fail 2 "$TB" attest verify "$S/report_milan.hex" --certs "$D" --collateral "$D"
expect_fail 2 "$TB" attest verify "$S/report_milan.hex" --collateral "$D"
grep -q 'SEV-SNP report' "$WORK/err" || fail "snp with --collateral"
expect_fail 4 "$TB" attest verify "$TESTDATA/tdx/qvl-v4-uptodate/quote.bin" --certs "$D"
grep -q 'not an SEV-SNP report' "$WORK/err" || fail "tdx with --certs"
expect_fail 2 "$TB" attest verify "$S/report_milan.hex" --kds ftp://x
pass "errors"

# --- SIMULATED provider
"$TB" attest quote --provider sim-snp --report-data 0102 -o "$WORK/sim.bin" 2>"$WORK/err" || fail "sim-snp quote"
grep -q 'SIMULATED SEV-SNP report' "$WORK/err" || fail "sim label"
"$TB" attest show "$WORK/sim.bin" | grep -q '^SIMULATED SEV-SNP report' || fail "show SIMULATED"
"$TB" attest sim-snp-certs "$WORK/simc" >/dev/null || fail "sim-snp-certs"
"$TB" attest verify "$WORK/sim.bin" --certs "$WORK/simc" --root "$WORK/simc/ark.pem" >"$WORK/out" || fail "sim accepted"
grep -q 'SIMULATED' "$WORK/out" && grep -q 'crl: *checked' "$WORK/out" || fail "sim verdict: $(cat "$WORK/out")"
expect_fail 4 "$TB" attest verify "$WORK/sim.bin" --certs "$WORK/simc"
grep -q '(SIMULATED): invalid: step ark' "$WORK/err" || fail "sim vs AMD ARK"
"$TB" attest sim-snp-certs "$WORK/simr" --revoke-vcek >/dev/null
expect_fail 4 "$TB" attest verify "$WORK/sim.bin" --certs "$WORK/simr" --root "$WORK/simc/ark.pem"
grep -q 'step crl: the VCEK is revoked' "$WORK/err" || fail "revoked"
expect_fail 1 "$TB" attest quote --provider snp --report-data 00
grep -q 'SEV-SNP' "$WORK/err" || fail "no configfs-tsm message"
pass "simulated provider"

# --- KDS: a fake one; 429 answered once per path, then the cache
PORT=$(free_port)
spawn python3 "$HERE/kds_server.py" --port "$PORT" --dir "$WORK/simc" --log "$WORK/kds.log"
wait_port "$PORT"
URL=http://127.0.0.1:$PORT
"$TB" attest verify "$WORK/sim.bin" --kds "$URL" --root "$WORK/simc/ark.pem" >"$WORK/out" || fail "kds: $(cat "$WORK/out")"
grep -q 'certificates from network' "$WORK/out" || fail "kds network"
[ "$(wc -l <"$WORK/kds.log")" -eq 6 ] || fail "want 3 pieces x (429 + 200): $(cat "$WORK/kds.log")"
grep -q "/vcek/v1/Milan/[0-9a-f]\{128\}?blSPL=3&teeSPL=0&snpSPL=8&ucodeSPL=115" "$WORK/kds.log" || fail "vcek path"
"$TB" attest verify "$WORK/sim.bin" --kds "$URL/" --root "$WORK/simc/ark.pem" >"$WORK/out" || fail "kds cached"
grep -q 'certificates from cache' "$WORK/out" || fail "cache hit"
[ "$(wc -l <"$WORK/kds.log")" -eq 6 ] || fail "a cache hit made requests"
"$TB" attest verify "$WORK/sim.bin" --kds "$URL" --root "$WORK/simc/ark.pem" --no-cache >/dev/null || fail "no-cache"
[ "$(wc -l <"$WORK/kds.log")" -eq 9 ] || fail "--no-cache fetches"
# a cached VCEK that does not verify (another chip's) is fetched again, never served
for f in "$WORK"/cache/teebench/snp/*/Milan-vcek-*.der; do cp "$S/vcek_milan.der" "$f"; done
"$TB" attest verify "$WORK/sim.bin" --kds "$URL" --root "$WORK/simc/ark.pem" >"$WORK/out" || fail "poisoned cache"
grep -q 'the cached certificates failed and were fetched again' "$WORK/out" || fail "refetch: $(cat "$WORK/out")"
[ "$(wc -l <"$WORK/kds.log")" -eq 12 ] || fail "refetch requests: $(wc -l <"$WORK/kds.log")"
cmp -s "$WORK/simc/vcek.der" "$WORK"/cache/teebench/snp/*/Milan-vcek-*.der || fail "the cache was not repaired"
echo junk >"$(echo "$WORK"/cache/teebench/snp/*/Milan-cert_chain.pem)" # a corrupt entry: a miss
"$TB" attest verify "$WORK/sim.bin" --kds "$URL" --root "$WORK/simc/ark.pem" >"$WORK/out" || fail "corrupt cached chain"
grep -q 'certificates from network' "$WORK/out" || fail "corrupt chain refetch"
expect_fail 1 "$TB" attest verify "$WORK/sim.bin" --kds "$URL/always429" --root "$WORK/simc/ark.pem"
grep -q 'rate-limited' "$WORK/err" || fail "429 forever: $(cat "$WORK/err")"
[ "$(grep -c always429 "$WORK/kds.log")" -eq 4 ] || fail "want 1 + 3 retries"
pass "kds"
