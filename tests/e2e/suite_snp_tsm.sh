#!/usr/bin/env bash
# The real configfs-tsm path, end to end, without TEE hardware: in a mount namespace this
# test creates, a fake configfs-tsm (tests/e2e/tsm_fuse.py, FUSE) stands at
# /sys/kernel/config/tsm/report and hands out recorded evidence -- AMD's real Milan report
# (virtee/sev's vector) for provider sev_guest, Intel's real v4 quote (QVL's vector) for
# tdx_guest. Checked:
# - `teebench env` calls the machine an SEV-SNP guest (a TDX guest) from the provider;
# - `attest quote --provider snp` / `--provider tsm` go through the protocol (mkdir, provider,
#   the 64 bytes written to inblob, generation, outblob, rmdir: every entry removed) and
#   return the evidence; the wrong provider is refused in one line;
# - `suite run --workloads attest` in the SEV-SNP "guest" picks configfs-tsm sev_guest by
#   itself, verifies the reports against AMD's real chain (attest.certs: the Milan ARK, ASK
#   and VCEK) and records TEE SEV-SNP, evidence SEV-SNP reports, not SIMULATED.
source "$(dirname "$0")/lib.sh"

SRC=${TEEBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
[ "$(id -u)" = 0 ] || skip "needs root (a mount namespace and a FUSE mount)"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
command -v fusermount >/dev/null || skip "fusermount (fuse3) is not installed"
[ -c /dev/fuse ] || skip "no /dev/fuse on this machine"
/usr/bin/python3 -c 'import fusepy' 2>/dev/null || skip "python3-fusepy is not installed"

xxd -r -p "$SRC/testdata/snp/report_milan.hex" >"$WORK/snp.bin"
cp "$SRC/testdata/tdx/qvl-v4-uptodate/quote.bin" "$WORK/tdx.bin"
mkdir -p "$WORK/certs"
cp "$SRC/testdata/snp/ark_milan.pem" "$WORK/certs/ark.pem"
cp "$SRC/testdata/snp/ask_milan.pem" "$WORK/certs/ask.pem"
cp "$SRC/testdata/snp/vcek_milan.der" "$WORK/certs/vcek.der"

cat >"$WORK/inner.sh" <<'EOF'
# Runs in the test's own mount namespace: nothing mounted here is seen outside it.
set -u
T=/sys/kernel/config/tsm/report
fail() { echo "FAIL: $*" >&2; exit 1; }
mount -t tmpfs tmpfs /sys/kernel 2>/dev/null || { echo "skipped: cannot mount over /sys/kernel"; exit 77; }
mkdir -p "$T"
FUSE_PID=""
stop() {
  fusermount -u "$T" 2>/dev/null
  [ -n "$FUSE_PID" ] && { kill "$FUSE_PID" 2>/dev/null; wait "$FUSE_PID" 2>/dev/null; }
  FUSE_PID=""
}
trap stop EXIT
start() { # start PROVIDER OUTBLOB LOG
  /usr/bin/python3 "$HERE/tsm_fuse.py" "$T" --provider "$1" --outblob "$2" --log "$3" 2>"$3.err" &
  FUSE_PID=$!
  for _ in $(seq 100); do
    grep -q " $T fuse" /proc/self/mounts && return 0
    sleep 0.05
  done
  fail "the fake configfs-tsm did not mount: $(cat "$3.err")"
}

# ---- SEV-SNP ----
start sev_guest "$WORK/snp.bin" "$WORK/snp.log"
"$TB" env --json >"$WORK/env.json" || fail "env"
/usr/bin/python3 - "$WORK/env.json" <<'PY' || fail "env in the SEV-SNP guest: $(head -c 600 "$WORK/env.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["platform"]["value"] == "sev-snp-guest", d["platform"]
assert d["tsm_provider"]["value"] == "sev_guest", d["tsm_provider"]
PY
RD=$(printf 'ab%.0s' $(seq 64))
"$TB" attest quote --provider snp --report-data "$RD" -o "$WORK/q.bin" >/dev/null 2>"$WORK/err" ||
  fail "attest quote --provider snp: $(cat "$WORK/err")"
cmp -s "$WORK/q.bin" "$WORK/snp.bin" || fail "the report is not what configfs-tsm gave"
grep -q "^write inblob teebench-[0-9-]* $RD\$" "$WORK/snp.log" || fail "inblob: $(cat "$WORK/snp.log")"
rc=0; "$TB" attest quote --provider tsm --report-data 00 >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" -ne 0 ] && [ "$(wc -l <"$WORK/err")" = 1 ] && grep -q 'provider is "sev_guest", not tdx_guest' "$WORK/err" ||
  fail "a TDX quote from an SEV-SNP provider: $rc $(cat "$WORK/err")"
"$TB" suite run --profile quick --workloads attest --repeat 1 --set "attest.certs=$WORK/certs" \
  --no-store -o "$WORK/r.json" >"$WORK/suite.out" 2>"$WORK/suite.err" ||
  fail "suite in the SEV-SNP guest: $(tail -5 "$WORK/suite.err")"
grep -q '^TEE: SEV-SNP$' "$WORK/suite.out" || fail "summary: $(head -3 "$WORK/suite.out")"
[ -z "$(ls -A "$T")" ] || fail "configfs-tsm entries left behind: $(ls "$T")"
mkdirs=$(grep -c '^mkdir ' "$WORK/snp.log"); rmdirs=$(grep -c '^rmdir ' "$WORK/snp.log")
[ "$mkdirs" -ge 7 ] && [ "$mkdirs" = "$rmdirs" ] || fail "entries made $mkdirs, removed $rmdirs"
stop

# ---- TDX ----
start tdx_guest "$WORK/tdx.bin" "$WORK/tdx.log"
"$TB" env --json >"$WORK/env.json" || fail "env"
grep -q '"value": "tdx-guest"' "$WORK/env.json" || fail "env in the TDX guest: $(head -c 400 "$WORK/env.json")"
"$TB" attest quote --provider tsm --report-data 00 -o "$WORK/tq.bin" >/dev/null 2>"$WORK/err" ||
  fail "attest quote --provider tsm: $(cat "$WORK/err")"
cmp -s "$WORK/tq.bin" "$WORK/tdx.bin" || fail "the quote is not what configfs-tsm gave"
"$TB" attest show "$WORK/tq.bin" | grep -qi 'tdx' || fail "attest show of the configfs-tsm quote"
stop
exit 0
EOF

rc=0
HERE=$(cd "$(dirname "$0")" && pwd) TB="$TB" WORK="$WORK" \
  unshare -m --propagation private bash "$WORK/inner.sh" || rc=$?
[ "$rc" -eq 77 ] && skip "cannot mount over /sys/kernel in a mount namespace here"
[ "$rc" -eq 0 ] || fail "inside the mount namespace (exit $rc)"

python3 - "$WORK/r.json" <<'PY' || fail "result checks"
import json, sys
r = json.load(open(sys.argv[1]))
errors = []
def check(cond, what):
    if not cond:
        errors.append(what)
check(r["status"] == "complete", "status %s: %s" % (r["status"], r["extra"].get("failures")))
check(r["label"] == "sev-snp-guest", "default label from the env: %s" % r["label"])
check(r["simulated"] is False, "real evidence is not SIMULATED")
a = r["extra"].get("attest", {})
check(a.get("tee") == "snp" and a.get("product") == "Milan" and a.get("verdict") == "ACCEPTED",
      "extra.attest %s" % a)
check(not r["extra"].get("skipped"), "verification ran: %s" % r["extra"].get("skipped"))
m = {x["name"]: x for x in r["metrics"]}
for name, n in (("attest.quote_get.ms", 5), ("attest.verify_prepared.us", 5),
                ("attest.verify_scratch.ms", 5)):
    check(name in m and len(m[name]["samples"]) == n and not m[name]["simulated"], name)
    check("SEV-SNP" in m.get(name, {}).get("note", ""), name + " note")
check("configfs-tsm" in m["attest.quote_get.ms"]["note"], "quote note names configfs-tsm")
check(any("attest quote --provider snp" in c for c in r["commands"]), "command recorded")
if errors:
    print("\n".join(errors))
    sys.exit(1)
PY
pass "configfs-tsm (fake, FUSE) for SEV-SNP and TDX: env, attest quote, suite"
