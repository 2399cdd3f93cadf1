#!/usr/bin/env bash
# labels: threads
# The suite with SEV-SNP evidence where there is no SEV-SNP (`attest.provider=sim-snp`,
# `notary.tee=sim-snp`): the attest metrics carry the same names as TDX's, SEV-SNP and
# SIMULATED in their notes, extra.attest.tee and extra.notary_tee say sim-snp, the notary
# the harness starts runs `--tee sim-snp` and its documents are verified as SEV-SNP
# evidence (tee_verify); the commands to reproduce it are recorded. Bad values of the two
# settings are one line and exit 2.
source "$(dirname "$0")/lib.sh"

expect_fail 2 "$TB" suite run --workloads attest --set attest.provider=snp -o "$WORK/x.json"
grep -q "attest.provider" "$WORK/err" || fail "bad provider message: $(cat "$WORK/err")"
expect_fail 2 "$TB" suite run --workloads notary --set notary.tee=sev -o "$WORK/x.json"
grep -q "notary.tee" "$WORK/err" || fail "bad notary.tee message: $(cat "$WORK/err")"
[ ! -e "$WORK/x.json" ] || fail "a result was written for bad input"

mkdir -p "$WORK/tmp"
rc=0
TMPDIR=$WORK/tmp "$TB" suite run --profile quick --workloads attest,notary --repeat 1 \
  --set attest.provider=sim-snp --set notary.tee=sim-snp --set notary.iterations=2 \
  --set attest.iterations=10 --label snp-sim --no-store -o "$WORK/r.json" \
  >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" -eq 0 ] || fail "suite run exit $rc: $(tail -5 "$WORK/err")"

python3 - "$WORK/r.json" <<'PY' || fail "result checks"
import json, sys
r = json.load(open(sys.argv[1]))
errors = []
def check(cond, what):
    if not cond:
        errors.append(what)
check(r["status"] == "complete", "status %s: %s" % (r["status"], r["extra"].get("failures")))
check(r["simulated"] is True, "record simulated")
m = {x["name"]: x for x in r["metrics"]}
for name in ("attest.quote_get.ms", "attest.verify_prepared.us", "attest.verify_scratch.ms"):
    check(name in m, name)
    if name in m:
        check(m[name]["simulated"], name + " simulated")
        check("SEV-SNP" in m[name]["note"] and "SIMULATED" in m[name]["note"], name + " note")
for mode in ("tee_no_verify", "tee_verify"):
    name = "notary.%s.notarization_ms" % mode
    check(name in m and m[name]["simulated"] and len(m[name]["samples"]) == 2, name)
    check("SEV-SNP" in (m.get(name) or {}).get("note", ""), name + " note says SEV-SNP")
check("notary.tee_verify.verify_ms" in m, "tee_verify verified the SNP evidence")
check(not m["notary.no_tee.notarization_ms"]["simulated"], "no_tee is not simulated")
a = r["extra"].get("attest", {})
check(a.get("tee") == "sim-snp" and a.get("verdict") == "ACCEPTED", "extra.attest %s" % a)
check(a.get("product") == "Milan", "sim reports are Milan's layout")
check(r["extra"].get("notary_tee") == "sim-snp", "extra.notary_tee")
cmds = "\n".join(r["commands"])
check("attest quote --provider sim-snp" in cmds, "attest quote command")
check("attest sim-snp-certs" in cmds, "sim certificates command")
check("--notary-tee sim-snp" in cmds, "bench notary command")
plan = r["extra"]["plan"]["workloads"]
check(plan["attest"]["provider"] == "sim-snp" and plan["notary"]["tee"] == "sim-snp", "plan")
if errors:
    print("\n".join(errors))
    sys.exit(1)
PY
grep -q "SIMULATED" "$WORK/out" || fail "summary lacks SIMULATED: $(head -3 "$WORK/out")"
pass "suite with SIMULATED SEV-SNP evidence"
