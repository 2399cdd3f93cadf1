#!/usr/bin/env bash
# labels: threads
# Issue 12, item 1: the notary under 500 slow clients. Each drips a valid
# request at ~7 bytes/s (slowloris) and reconnects when it is dropped. The old
# notary gave every connection one of its 64 worker threads for up to 100
# keep-alive requests of 5 s each: 64 drippers held every worker for minutes
# and honest health checks waited ~40 s. Now requests are read in the event
# loop with a per-request budget: honest health checks and sessions must be
# answered within 1 s (3 s in sanitizer builds), real notarizations must go
# through, the drippers must be answered 408, and the notary's resident memory
# must stay bounded (< 64 MiB above its start, 256 MiB in sanitizer builds
# whose shadow memory grows with use; no thread or buffer per idle byte).
# Prints the measured figures.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_notary.sh"

PKI=$WORK/pki
make_pki "$PKI"
TPORT=$(free_port)
start_target "$TPORT" "$PKI/server.pem" "$PKI/server.key"
NPORT=$(free_port)
start_notary "$NPORT" --trust-ca "$PKI/ca.pem" --no-system-ca
NPID=$SPAWNED_PID
export NOTARY_PORT=$NPORT TARGET_PORT=$TPORT FIXTURE_CA=$PKI/ca.pem
unset ENABLE_TEE_ATTESTATION MAX_SENT_DATA MAX_RECV_DATA USE_FIXTURE_CA TARGET_URI VERIFY_ATTESTATION

limit_ms=1000 rss_limit_kib=65536
# sanitizer builds: slower, and their shadow memory grows with what is touched
[ -n "$TB_SANITIZER" ] && limit_ms=3000 rss_limit_kib=262144

script=$(dirname "$0")/notary_slowloris.py
rss0=$(awk '/^VmRSS:/ {print $2}' /proc/$NPID/status)
python3 "$script" drip "$NPORT" 500 11 >"$WORK/drip.out" 2>"$WORK/drip.err" &
drip=$!
sleep 2 # every dripper is connected and dripping
python3 "$script" probe "$NPORT" "$NPID" 8 >"$WORK/probe.out" 2>"$WORK/probe.err" &
probe=$!
for i in 1 2 3; do
  "$TB" notarize >"$WORK/n$i.out" 2>"$WORK/n$i.err" || fail "notarize $i under load: $(cat "$WORK/n$i.err")"
  ms=$(sed -n 's/^NOTARIZATION_MS=\([0-9.]*\) .*/\1/p' "$WORK/n$i.out")
  echo "notarization $i beside 500 slow clients: $ms ms"
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$ms" "$limit_ms" \
    || fail "notarization $i took $ms ms beside 500 slow clients (limit $limit_ms ms)"
  sleep 1
done
wait "$probe" || fail "probe: $(cat "$WORK/probe.err")"
wait "$drip" || fail "drippers: $(cat "$WORK/drip.err")"
cat "$WORK/probe.out" "$WORK/drip.out"
read -r honest max _ _ rssmax < <(sed 's/[a-z_0-9]*=//g' "$WORK/probe.out")
n408=$(sed 's/answered_408=//' "$WORK/drip.out")
[ "$honest" -ge 30 ] || fail "only $honest honest requests"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$max" "$limit_ms" \
  || fail "an honest request took $max ms beside 500 slow clients (limit $limit_ms ms)"
[ "$n408" -ge 500 ] || fail "only $n408 requests of slow clients were answered 408"
[ $((rssmax - rss0)) -lt $rss_limit_kib ] || fail "RSS grew from $rss0 KiB to $rssmax KiB"
kill -0 "$NPID" || fail "the notary died"
pass "500 slow clients: honest requests within ${max} ms, $n408 slow requests answered 408, RSS ${rss0} -> ${rssmax} KiB"
