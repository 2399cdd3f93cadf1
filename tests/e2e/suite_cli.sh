#!/usr/bin/env bash
# `teebench suite`: bad input (unknown workload, profile, setting, bad suite files)
# is one line and exit 2 with no result written; `suite plan` (text and JSON) and
# the profiles' planned times in --help; a small run with -o - (result JSON on
# stdout, summary on stderr) and --progress=jsonl (one event object per line);
# suite files; a missing nginx is skipped with the package to install; --label;
# every run lands in the store (--db).
source "$(dirname "$0")/lib.sh"

# ---- bad input ----
expect_fail 2 "$TB" suite run --workloads http,foo -o "$WORK/x.json"
grep -q "unknown workload 'foo'" "$WORK/err" || fail "unknown workload message: $(cat "$WORK/err")"
expect_fail 2 "$TB" suite run --profile fast -o "$WORK/x.json"
grep -q "unknown profile 'fast'" "$WORK/err" || fail "unknown profile message: $(cat "$WORK/err")"
expect_fail 2 "$TB" suite run --set http.duration=5x -o "$WORK/x.json"
grep -q "http.duration" "$WORK/err" || fail "bad setting message: $(cat "$WORK/err")"
expect_fail 2 "$TB" suite run --set http.speed=1
expect_fail 2 "$TB" suite run --set nokey
expect_fail 2 "$TB" suite run --repeat 0
expect_fail 2 "$TB" suite run --label 'Bad/Label'
expect_fail 2 "$TB" suite run --label 'trailing '
expect_fail 2 "$TB" suite run --label $'esc\e[2J'
grep -q 'esc\\x1b\[2J: want 1..63 of A-Z a-z 0-9' "$WORK/err" || fail "the bad label escaped: $(cat -v "$WORK/err")"
expect_fail 2 "$TB" suite run --progress fancy
expect_fail 2 "$TB" suite run stray
expect_fail 2 "$TB" suite run --bogus
expect_fail 2 "$TB" suite walk
expect_fail 2 "$TB" suite run --suite "$WORK/missing.json" -o "$WORK/x.json"
printf '{"workloads": {"http": {"duration": }}}\n' >"$WORK/broken.json"
expect_fail 2 "$TB" suite run --suite "$WORK/broken.json" -o "$WORK/x.json"
grep -q "line 1" "$WORK/err" || fail "suite file error lacks the line: $(cat "$WORK/err")"
printf '{"workloads": {"http": {"conections": 5}}}\n' >"$WORK/typo.json"
expect_fail 2 "$TB" suite run --suite "$WORK/typo.json" -o "$WORK/x.json"
grep -q "http.conections" "$WORK/err" || fail "unknown key not named: $(cat "$WORK/err")"
printf '{"workloads": {"web": {}}}\n' >"$WORK/web.json"
expect_fail 2 "$TB" suite run --suite "$WORK/web.json"
printf '{"profile": "fastest"}\n' >"$WORK/prof.json"
expect_fail 2 "$TB" suite run --suite "$WORK/prof.json"
expect_fail 2 "$TB" suite run --workloads attest -o "$WORK/nodir/r.json"
grep -q "cannot write into" "$WORK/err" || fail "unwritable -o: $(cat "$WORK/err")"
[ ! -e "$WORK/x.json" ] || fail "a result was written for bad input"

# ---- plan and help ----
"$TB" suite run --help >"$WORK/help" || fail "suite run --help"
for p in quick standard seed; do
  grep -Eq "^  $p +~ *[0-9]+ s" "$WORK/help" || fail "--help lacks the planned time of $p"
done
"$TB" suite plan --profile seed >"$WORK/plan" || fail "suite plan"
grep -q "^profile seed, 1 round of 18 steps" "$WORK/plan" || fail "plan header: $(head -1 "$WORK/plan")"
grep -q -- "-t4 -c100 -d30s" "$WORK/plan" || fail "seed http parameters"
grep -q "10 x 10 s" "$WORK/plan" || fail "seed syscall parameters"
"$TB" suite plan --profile quick --workloads syscall,notary --set notary.iterations=4 --json >"$WORK/plan.json" \
  || fail "suite plan --json"
python3 - "$WORK/plan.json" <<'PY' || fail "plan JSON"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["profile"] == "custom" and p["base_profile"] == "quick", p["profile"]
assert p["order"] == ["env", "syscall", "notary"], p["order"]
assert p["workloads"]["notary"]["iterations"] == 4
names = [m["name"] for m in p["metrics"]]
assert "syscall.cn.index" in names and "notary.tee_verify.overhead_ms" in names, names
assert not any(n.startswith("http.") for n in names)
assert all(m["better"] in ("higher", "lower") and m["unit"] for m in p["metrics"])
PY

# ---- -o - and --progress=jsonl, from a suite file ----
cat >"$WORK/suite.json" <<'EOF'
{"profile": "quick", "repeat": 2,
 "workloads": {"attest": {"provider": "sim", "quotes": 2, "iterations": 10},
               "probe": {"probes": ["rdtsc", "clock_gettime"], "max_reps": 50}}}
EOF
"$TB" suite run --suite "$WORK/suite.json" -o - --progress jsonl --label 'E2E lab' --db "$WORK/db" \
  >"$WORK/r.json" 2>"$WORK/err" || fail "suite run -o -: $(cat "$WORK/err")"
python3 - "$WORK/r.json" "$WORK/err" <<'PY' || fail "-o - / jsonl checks"
import json, sys
r = json.load(open(sys.argv[1]))          # stdout is exactly the result document
assert r["label"] == "E2E lab" and r["status"] == "complete", (r["label"], r["status"])
names = sorted(m["name"] for m in r["metrics"])
assert names == ["attest.quote_get.ms", "attest.verify_prepared.us", "attest.verify_scratch.ms",
                 "probe.clock_gettime.ns", "probe.rdtsc.ns"], names
q = [m for m in r["metrics"] if m["name"] == "attest.quote_get.ms"][0]
assert len(q["samples"]) == 4 and q["simulated"] and r["simulated"]
events = []
rest = []
for line in open(sys.argv[2]).read().splitlines():
    if line.startswith("{"):
        events.append(json.loads(line))
    else:
        rest.append(line)
kinds = [e["event"] for e in events]
assert kinds[0] == "begin" and kinds[-1] == "end", kinds
assert kinds.count("step") == 4 and kinds.count("step_done") == 4, kinds
for e in events:
    for k in ("workload", "target", "round", "rounds", "step", "steps", "elapsed_s", "eta_s",
              "step_s", "status", "text"):
        assert k in e, (k, e)
done = [e for e in events if e["event"] == "step_done"]
assert [(e["workload"], e["round"]) for e in done] == [("probe", 1), ("attest", 1), ("probe", 2), ("attest", 2)], done
assert all(e["status"] == "ok" for e in done)
assert events[-1]["status"] == "complete"
summary = "\n".join(rest)                  # the summary went to stderr
assert "attest.quote_get.ms" in summary and "SIMULATED" in summary, summary
PY
# ...and it is in the store.
sqlite3 "$WORK/db" "select label, status from runs" | grep -qx "E2E lab|complete" \
  || fail "run not stored: $(sqlite3 "$WORK/db" 'select * from runs' 2>&1)"

# ---- no nginx: skipped with the package to install ----
"$TB" suite run --profile quick --workloads http --repeat 1 --set http.targets=nginx \
  --set http.nginx_bin=/nonexistent/sbin/nginx -o "$WORK/skip.json" --no-store --progress plain \
  >"$WORK/out" 2>"$WORK/err" || fail "suite with nginx missing should succeed: $(cat "$WORK/err")"
python3 - "$WORK/skip.json" <<'PY' || fail "skipped nginx"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete" and r["metrics"] == [], r["status"]
s = r["extra"]["skipped"]
assert len(s) == 1 and s[0]["workload"] == "http" and s[0]["target"] == "nginx", s
assert "/nonexistent/sbin/nginx" in s[0]["reason"] and "install the package nginx" in s[0]["reason"], s
assert "--guest-setup" in s[0]["reason"], s
assert r["versions"]["nginx"] == "not installed"
PY
grep -q "^skipped:" "$WORK/out" && grep -q "http nginx: nginx is not installed" "$WORK/out" \
  || fail "summary does not list the skipped workload: $(cat "$WORK/out")"
grep -q "http nginx: skipped" "$WORK/err" || fail "progress does not say skipped: $(cat "$WORK/err")"
# --guest-setup installs there: here it is refused (scripts/setup.sh does that)
expect_fail 2 "$TB" suite run --guest-setup --no-store
grep -q -- '--guest-setup: only with --target or --vm-kinds' "$WORK/err" || fail "guest-setup here: $(cat "$WORK/err")"
pass "suite cli"
