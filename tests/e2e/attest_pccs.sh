#!/usr/bin/env bash
# teebench attest collateral / verify --pccs against a local PCCS-like server
# (tests/e2e/pccs_server.py): v4 paths, URL-encoded issuer-chain headers, DER CRLs,
# 404 for an unknown FMSPC, a slow, a broken and a forged response, the on-disk cache
# (keyed by URL, FMSPC and CA; only verified collateral; refetch once on failure).
source "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
CASE=$TESTDATA/tdx/qvl-v4-uptodate
NOW=$(python3 -c "import json;print(json.load(open('$CASE/case.json'))['now'])")
PORT=$(free_port)
LOG=$WORK/requests.log
: >"$LOG"
spawn python3 "$HERE/pccs_server.py" --port "$PORT" --case "$CASE" --log "$LOG" --slow-seconds 3
wait_port "$PORT"
URL=http://127.0.0.1:$PORT
export XDG_CACHE_HOME=$WORK/cache

# collateral: fetch the four pieces, write dcap-qvl JSON with the exact signed bytes.
"$TB" attest collateral "$CASE/quote.bin" --pccs "$URL" -o "$WORK/col.json" 2>"$WORK/err" \
  || fail "collateral fetch: $(cat "$WORK/err")"
grep -q 'fetched collateral for FMSPC b0c06f000000 (platform CA) in [0-9.]* ms' "$WORK/err" \
  || fail "collateral fetch message: $(cat "$WORK/err")"
python3 - "$CASE/collateral.json" "$WORK/col.json" <<'PY' || fail "fetched collateral differs from the served pieces"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in a:
    assert a[k].lower() == b[k].lower() if k.endswith(("crl", "signature")) else a[k] == b[k], k
PY
[ "$(grep -c . "$LOG")" -eq 4 ] || fail "collateral: want 4 requests, got $(cat "$LOG")"
grep -q '^/sgx/certification/v4/pckcrl?ca=platform&encoding=der$' "$LOG" || fail "pckcrl path"
grep -q '^/tdx/certification/v4/tcb?fmspc=b0c06f000000$' "$LOG" || fail "tcb path"
"$TB" attest verify "$CASE/quote.bin" --collateral "$WORK/col.json" --now "$NOW" >/dev/null \
  || fail "verify with the fetched collateral"
pass "collateral fetch"

# verify --pccs: first a fetch (network), then the cache, then --no-cache fetches again.
: >"$LOG"
"$TB" attest verify "$CASE/quote.bin" --pccs "$URL" --now "$NOW" >"$WORK/out" || fail "verify --pccs"
grep -q '^verdict: *ACCEPTED' "$WORK/out" || fail "verdict: $(cat "$WORK/out")"
grep -Eq '^fetch time: *[0-9.]+ ms \(collateral from network\)' "$WORK/out" || fail "network fetch: $(cat "$WORK/out")"
grep -Eq '^verify time: *[0-9.]+ ms$' "$WORK/out" || fail "verify time"
[ "$(grep -c . "$LOG")" -eq 4 ] || fail "first verify: want 4 requests"
# One entry, named by FMSPC, CA and the PCCS URL's hash.
ENTRIES=$XDG_CACHE_HOME/teebench/collateral
entries() { find "$ENTRIES" -name '*.json' | wc -l; }
[ "$(entries)" -eq 1 ] || fail "want one cache entry: $(ls "$ENTRIES")"
ENTRY=$(ls "$ENTRIES"/B0C06F000000-platform-*.json) || fail "cache entry: $(ls "$ENTRIES")"
H=$(python3 -c "import hashlib,sys;print(hashlib.sha256(sys.argv[1].encode()).hexdigest()[:16])" "$URL")
[ "$ENTRY" = "$ENTRIES/B0C06F000000-platform-$H.json" ] || fail "entry name $ENTRY (want hash $H of $URL)"
"$TB" attest verify "$CASE/quote.bin" --pccs "$URL" --now "$NOW" --json >"$WORK/out" || fail "cached verify"
grep -q '"collateral_source": "cache"' "$WORK/out" || fail "second verify from the cache: $(cat "$WORK/out")"
[ "$(grep -c . "$LOG")" -eq 4 ] || fail "cached verify made requests"
"$TB" attest verify "$CASE/quote.bin" --pccs "$URL" --now "$NOW" --no-cache >"$WORK/out" || fail "--no-cache"
grep -q 'collateral from network' "$WORK/out" || fail "--no-cache fetches"
[ "$(grep -c . "$LOG")" -eq 8 ] || fail "--no-cache: want 4 more requests"
# After the collateral's nextUpdate the cache entry is stale: fetched again (and then
# the collateral itself has expired: exit 5, "collateral expired").
expect_fail 5 "$TB" attest verify "$CASE/quote.bin" --pccs "$URL" --now $((NOW + 86400 * 40))
[ "$(grep -c . "$LOG")" -eq 12 ] || fail "stale cache entry was not refetched"
grep -q 'expired' "$WORK/err" || fail "expired collateral message: $(cat "$WORK/err")"
pass "verify --pccs with cache"

# Hardening (issue 12, item 8): collateral is cached only after it verified a quote,
# entries belong to one PCCS URL, and a cached entry that fails is fetched again once.
cp "$ENTRY" "$WORK/good-entry.json"
: >"$LOG"
expect_fail 4 "$TB" attest verify "$CASE/quote.bin" --pccs "$URL/forged" --now "$NOW"
grep -q 'step tcb-info: TCB info signature does not verify' "$WORK/err" || fail "forged answer: $(cat "$WORK/err")"
[ "$(grep -c '^/forged/' "$LOG")" -eq 4 ] || fail "forged: want 4 requests to /forged, got $(cat "$LOG")"
[ "$(entries)" -eq 1 ] || fail "a forged answer was cached: $(ls "$ENTRIES")"
cmp -s "$ENTRY" "$WORK/good-entry.json" || fail "a forged answer replaced another URL's entry"
expect_fail 4 "$TB" attest verify "$CASE/quote.bin" --pccs "$URL/forged" --now "$NOW" --json
grep -q '"collateral_source": "network"' "$WORK/out" || fail "forged answer served from a cache: $(cat "$WORK/out")"
[ "$(grep -c . "$LOG")" -eq 8 ] || fail "second forged verify: want 4 more requests"
"$TB" attest verify "$CASE/quote.bin" --pccs "$URL/" --now "$NOW" --json >"$WORK/out" || fail "good URL after forged"
grep -q '"collateral_source": "cache"' "$WORK/out" || fail "the good URL's entry (trailing /) is gone: $(cat "$WORK/out")"
[ "$(grep -c . "$LOG")" -eq 8 ] || fail "good URL: cached verify made requests"
# A poisoned entry (as an older teebench could have stored it: forged nextUpdate 2099)
# fails verification, is fetched again once, and the verified answer replaces it.
python3 - "$ENTRY" <<'PY' || fail "poisoning the entry"
import json, sys
d = json.load(open(sys.argv[1]))
nu = json.loads(d["tcb_info"])["nextUpdate"]
d["tcb_info"] = d["tcb_info"].replace('"nextUpdate":"%s"' % nu, '"nextUpdate":"2099%s"' % nu[4:])
json.dump(d, open(sys.argv[1], "w"))
PY
"$TB" attest verify "$CASE/quote.bin" --pccs "$URL" --now "$NOW" --json >"$WORK/out" || fail "poisoned entry: $(cat "$WORK/out")"
grep -q '"verdict": "ACCEPTED"' "$WORK/out" || fail "poisoned entry verdict"
grep -q '"collateral_source": "network"' "$WORK/out" || fail "poisoned entry not refetched"
grep -q '"collateral_refetched": true' "$WORK/out" || fail "refetch not reported"
[ "$(grep -c . "$LOG")" -eq 12 ] || fail "poisoned entry: want one refetch (4 requests)"
cmp -s "$ENTRY" "$WORK/good-entry.json" || fail "the refetched, verified collateral did not replace the poisoned entry"
"$TB" attest verify "$CASE/quote.bin" --pccs "$URL" --now "$NOW" >"$WORK/out" || fail "after refetch"
grep -q 'collateral from cache)' "$WORK/out" || fail "after refetch: $(cat "$WORK/out")"
[ "$(grep -c . "$LOG")" -eq 12 ] || fail "after refetch: requests"
pass "cache: only verified collateral, keyed by URL, refetch once"

# A cached entry that fails while its PCCS cannot be reached gives no verdict on the quote
# (the cached collateral's INVALID is not the quote's): one error line, exit 1, as for an
# SEV-SNP report whose cached certificates fail with the KDS down (attest_snp's verify).
DEADURL=http://127.0.0.1:$(free_port)
HD=$(python3 -c "import hashlib,sys;print(hashlib.sha256(sys.argv[1].encode()).hexdigest()[:16])" "$DEADURL")
python3 - "$ENTRY" "$ENTRIES/B0C06F000000-platform-$HD.json" <<'PY' || fail "poisoning a dead PCCS's entry"
import json, sys
d = json.load(open(sys.argv[1]))
nu = json.loads(d["tcb_info"])["nextUpdate"]
d["tcb_info"] = d["tcb_info"].replace('"nextUpdate":"%s"' % nu, '"nextUpdate":"2099%s"' % nu[4:])
json.dump(d, open(sys.argv[2], "w"))
PY
expect_fail 1 "$TB" attest verify "$CASE/quote.bin" --pccs "$DEADURL" --now "$NOW" --timeout 1000
grep -q "$DEADURL" "$WORK/err" || fail "refetch failure names the PCCS: $(cat "$WORK/err")"
[ ! -s "$WORK/out" ] || fail "a verdict was printed although fresh collateral was not at hand: $(cat "$WORK/out")"
# Collateral that verified but cannot be cached: the verdict, and one warning that says so.
: >"$WORK/not-a-dir"
"$TB" attest verify "$CASE/quote.bin" --pccs "$URL" --now "$NOW" --cache-dir "$WORK/not-a-dir/c" \
  >"$WORK/out" 2>"$WORK/err" || fail "uncachable collateral: $(cat "$WORK/err")"
grep -q '^verdict: *ACCEPTED' "$WORK/out" || fail "uncachable collateral verdict: $(cat "$WORK/out")"
grep -q '^teebench: attest verify: warning: collateral not cached: ' "$WORK/err" \
  || fail "no warning that the collateral was not cached: $(cat "$WORK/err")"
pass "refetch failure and an uncachable answer said as they are"

# Unknown FMSPC: 404, one clear error line, exit 1.
OTHER=$TESTDATA/tdx/qvl-v5-notcb
expect_fail 1 "$TB" attest verify "$OTHER/quote.bin" --pccs "$URL" --no-cache
grep -q 'HTTP status 404' "$WORK/err" || fail "404 message: $(cat "$WORK/err")"
expect_fail 1 "$TB" attest collateral "$OTHER/quote.bin" --pccs "$URL"
grep -q 'tcb?fmspc=90c06f000000: HTTP status 404' "$WORK/err" || fail "404 names the URL: $(cat "$WORK/err")"
pass "unknown FMSPC"

# Slow server: the timeout fires, quickly and clearly.
start=$(date +%s%N)
expect_fail 1 "$TB" attest verify "$CASE/quote.bin" --pccs "$URL/slow" --no-cache --timeout 500
el=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$el" -lt 2500 ] || fail "timeout took ${el} ms"
grep -qi 'timeout\|timed out' "$WORK/err" || fail "timeout message: $(cat "$WORK/err")"
pass "slow PCCS times out (${el} ms)"

# Broken server: truncated body, missing header.
expect_fail 1 "$TB" attest verify "$CASE/quote.bin" --pccs "$URL/broken" --no-cache
grep -q 'broken/sgx/certification/v4/pckcrl' "$WORK/err" || fail "broken message: $(cat "$WORK/err")"
# Nothing listens: connection refused.
DEAD=$(free_port)
expect_fail 1 "$TB" attest collateral "$CASE/quote.bin" --pccs "http://127.0.0.1:$DEAD" --timeout 1000
pass "broken PCCS"
pass attest_pccs
