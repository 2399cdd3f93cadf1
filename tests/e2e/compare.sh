#!/usr/bin/env bash
# `teebench compare`: result files crafted here (schema teebench-result 1) for the
# article's three environments; text, markdown, csv and json outputs; --baseline by
# label, position and argument; --fail-if exit codes; bad input is one line; a TD
# and an SEV-SNP guest (recorded env documents) side by side, each column naming its TEE;
# issue 19's verdicts: the test's direction with equal medians, the multiple-comparison
# line in every format and --adjust, why a ratio interval is missing, gates as printed.
# And `teebench report`'s date from SOURCE_DATE_EPOCH (a malformed one refused).
source "$(dirname "$0")/lib.sh"

python3 - "$WORK" <<'PY'
import json, random, sys, uuid
work = sys.argv[1]

def record(label, metrics, simulated=False):
    return {
        "schema": "teebench-result", "schema_version": 1, "id": str(uuid.UUID(int=random.getrandbits(128), version=4)),
        "label": label, "status": "complete", "profile": "custom",
        "started": "2026-11-30T18:55:32Z", "finished": "2026-11-30T19:05:32Z",
        "teebench_version": "0.1.0", "simulated": simulated, "env": None,
        "commands": ["teebench suite"], "versions": {}, "extra": {},
        "metrics": [dict(name=n, unit=u, better=b, workload=n.split(".")[0], simulated=s, samples=x)
                    for (n, u, b, s, x) in metrics],
    }

def around(rng, center, rel, n):
    return [round(center * (1 + rng.uniform(-rel, rel)), 3) for _ in range(n)]

rng = random.Random(20261130)
random.seed(1)
syscall = around(rng, 13212.1, 0.01, 30)
host = record("bare-metal", [
    ("http.nginx.rps", "req/s", "higher", False, around(rng, 162588, 0.01, 30)),
    ("syscall.overhead.index", "index", "higher", False, syscall),
    ("http.nginx.latency_p50", "ms", "lower", False, around(rng, 0.61, 0.02, 30)),
    ("probe.cpuid.ns", "ns", "lower", False, around(rng, 40, 0.01, 3)),
])
td = record("tdx-guest", [
    ("http.nginx.rps", "req/s", "higher", False, around(rng, 34952, 0.012, 30)),
    ("syscall.overhead.index", "index", "higher", False, around(rng, 12500.3, 0.01, 30)),
    ("http.nginx.latency_p50", "ms", "lower", False, around(rng, 2.85, 0.3, 30)),
    ("probe.cpuid.ns", "ns", "lower", False, around(rng, 1500, 0.01, 3)),
    ("attest.quote.get_ms", "ms", "lower", True, around(rng, 2.1, 0.01, 10)),
], simulated=True)
vm = record("vm-kvm", [
    ("http.nginx.rps", "req/s", "higher", False, around(rng, 150000, 0.01, 30)),
    ("syscall.overhead.index", "index", "higher", False, list(reversed(syscall))),
    ("http.nginx.latency_p50", "ms", "lower", False, around(rng, 0.55, 0.02, 30)),
])
for name, doc in (("host", host), ("td", td), ("vm", vm)):
    json.dump(doc, open(f"{work}/{name}.json", "w"), indent=1)
other = dict(host, schema="teebench-compare")
json.dump(other, open(f"{work}/other-schema.json", "w"))
open(f"{work}/truncated.json", "w").write(json.dumps(host)[:200])
PY
H=$WORK/host.json T=$WORK/td.json V=$WORK/vm.json

# text: header, the rps row of the article, "~" for the identical syscall samples
"$TB" compare "$H" "$T" "$V" >"$WORK/text" || fail "compare exits 0"
head -1 "$WORK/text" | grep -q 'bare-metal (baseline) .*|  tdx-guest \[SIMULATED\] .*|  vm-kvm' ||
  fail "header names the environments: $(head -1 "$WORK/text")"
grep -E '^http\.nginx\.rps +req/s +higher +1[56][0-9],[0-9]{3} ±[0-9.]+%  \|  +3[45],[0-9]{3} ±[0-9.]+%  0\.2[0-9]{2}x \[0\.2[0-9]{2}, 0\.2[0-9]{2}\]  worse \(p=0\.000\)' \
  "$WORK/text" >/dev/null || fail "rps row: $(grep '^http.nginx.rps' "$WORK/text")"
grep -E '^syscall\.overhead\.index .*\|.*\| +1[0-9],[0-9]{3} ±[0-9.]+%  1\.000x \[[0-9.]+, [0-9.]+\]  ~ \(p=1\.000\)$' \
  "$WORK/text" >/dev/null || fail "identical samples say ~: $(grep '^syscall' "$WORK/text")"
grep -q '(n=3, too few)' "$WORK/text" || fail "too few samples are said"
grep -q 'too few to test' "$WORK/text" || fail "an untestable difference is said"
grep -q '^attest\.quote\.get_ms \[SIMULATED\]' "$WORK/text" || fail "simulated row labelled"
grep -Eq '^geomean +ratio +higher' "$WORK/text" || fail "geomean row (higher)"
grep -Eq '^geomean +ratio +lower' "$WORK/text" || fail "geomean row (lower)"
grep -q '^! noisy: coefficient of variation above 5 %' "$WORK/text" || fail "noisy legend"
grep -q '^SIMULATED: ' "$WORK/text" || fail "SIMULATED legend"

# markdown: a GitHub table, 3 + 3 columns on every line
"$TB" compare --format markdown "$H" "$T" "$V" >"$WORK/md" || fail "markdown exits 0"
python3 - "$WORK/md" <<'PY' || fail "markdown table"
import sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.startswith("|")]
assert len(lines) == 2 + 5 + 2, lines
for l in lines:
    assert l.endswith("|") and l.replace("\\|", "").count("|") == 7, l
assert lines[1] == "|---|---|---|---:|---:|---:|", lines[1]
PY

# csv: one line per (metric, environment) with every field
"$TB" compare --format csv "$H" "$T" "$V" >"$WORK/csv" || fail "csv exits 0"
python3 - "$WORK/csv" <<'PY' || fail "csv content"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 5 * 3, len(rows)
r = {(x["metric"], x["environment"]): x for x in rows}
td = r[("http.nginx.rps", "tdx-guest [SIMULATED]")]
assert td["verdict"] == "worse" and td["significant"] == "1", td
assert 0.2 < float(td["ratio_lo"]) < float(td["ratio"]) < float(td["ratio_hi"]) < 0.23, td
assert r[("syscall.overhead.index", "vm-kvm")]["verdict"] == "same"
assert r[("attest.quote.get_ms", "bare-metal")]["present"] == "0"
assert r[("probe.cpuid.ns", "bare-metal")]["ci_lo"] == ""
PY

# json: the documented object
"$TB" compare --format json "$H" "$T" "$V" >"$WORK/json" || fail "json exits 0"
python3 - "$WORK/json" <<'PY' || fail "json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "teebench-compare" and d["schema_version"] == 1
assert [e["label"] for e in d["environments"]] == ["bare-metal", "tdx-guest", "vm-kvm"]
assert d["environments"][1]["simulated"] is True
m = {x["name"]: x for x in d["metrics"]}
assert len(m) == 5
c = m["http.nginx.rps"]["cells"]
assert c[0]["verdict"] == "baseline" and c[0]["ratio"] is None
assert c[1]["ci"][0] <= c[1]["median"] <= c[1]["ci"][1]
assert c[1]["p_value"] < 0.001 and c[1]["significant"] is True
assert m["probe.cpuid.ns"]["cells"][1]["ci"] is None and m["probe.cpuid.ns"]["cells"][1]["verdict"] == "untestable"
assert m["attest.quote.get_ms"]["simulated"] is True
assert d["geomean"]["higher"][1]["n"] == 2 and d["geomean"]["higher"][0]["ratio"] is None
PY

# --baseline: a label, a position, an argument as given
for b in tdx-guest 2 "$T"; do
  "$TB" compare --baseline "$b" "$H" "$T" "$V" >"$WORK/b" || fail "--baseline $b"
  head -1 "$WORK/b" | grep -q 'tdx-guest \[SIMULATED\] (baseline)' || fail "--baseline $b: $(head -1 "$WORK/b")"
done
expect_fail 2 "$TB" compare --baseline nope "$H" "$T"
expect_fail 2 "$TB" compare --baseline 3 "$H" "$T"

# gates: exit 1 when one trips (table still printed, one line per failure), else 0
rc=0; "$TB" compare --fail-if 'http.nginx.rps < 0.9' "$H" "$T" "$V" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" -eq 1 ] || fail "a tripped gate exits 1, got $rc"
grep -q '^http\.nginx\.rps ' "$WORK/out" || fail "the table is printed with a failing gate"
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "one line per failure: $(cat "$WORK/err")"
grep -q '^teebench: compare: gate failed: http.nginx.rps < 0.9: tdx-guest \[SIMULATED\] is 0\.2' "$WORK/err" ||
  fail "gate line: $(cat "$WORK/err")"
"$TB" compare --fail-if 'http.nginx.rps < 0.5' "$H" "$V" >/dev/null || fail "a gate that does not trip exits 0"
"$TB" compare --fail-if 'http.nginx.rps<0.5' --fail-if 'http.nginx.latency_p50 >= 10' "$H" "$V" >/dev/null ||
  fail "gates that do not trip exit 0"
rc=0; "$TB" compare --fail-if 'http.nginx.rps < 0.5' --fail-if 'http.nginx.latency_p50 > 2' "$H" "$T" "$V" \
  >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" -eq 1 ] || fail "the second of two gates trips: exit $rc"
grep -q 'latency_p50 > 2: tdx-guest' "$WORK/err" || fail "names the tripped gate: $(cat "$WORK/err")"
rc=0; "$TB" compare --fail-if 'attest.quote.get_ms > 1000' "$H" "$T" >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q 'not in the baseline' "$WORK/err" || fail "no ratio fails closed: $rc $(cat "$WORK/err")"

# TDX and SEV-SNP side by side: env documents of the recorded machines in tests/data/env
SRC=${TEEBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
for m in td snp; do "$TB" env --from "$SRC/tests/data/env/$m" --json >"$WORK/env-$m.json"; done
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
vm = json.load(open(f"{work}/vm.json"))
for name, tee, env in (("td", "tdx", "td"), ("snp", "sim-snp", "snp")):
    doc = dict(vm, label=name, id=vm["id"][:-1] + ("a" if tee == "tdx" else "b"),
               env=json.load(open(f"{work}/env-{env}.json")), extra={"attest": {"tee": tee}})
    json.dump(doc, open(f"{work}/tee-{name}.json", "w"))
PY
"$TB" compare "$WORK/tee-td.json" "$WORK/tee-snp.json" >"$WORK/tee" || fail "compare TDX and SNP"
head -1 "$WORK/tee" | grep -q 'td \[TDX\] (baseline) *|  snp \[SEV-SNP\]$' || fail "TEE titles: $(head -1 "$WORK/tee")"
grep -q '^td \[TDX\]: TEE TDX; evidence TDX quotes; platform tdx-guest, hypervisor KVM, CPU Intel' "$WORK/tee" ||
  fail "TDX legend line: $(cat "$WORK/tee")"
grep -q '^snp \[SEV-SNP\]: TEE SEV-SNP; evidence SIMULATED SEV-SNP reports; platform sev-snp-guest' "$WORK/tee" ||
  fail "SEV-SNP legend line: $(cat "$WORK/tee")"
"$TB" compare --format json "$WORK/tee-td.json" "$WORK/tee-snp.json" |
  python3 -c 'import json,sys; e=json.load(sys.stdin)["environments"]; assert [x["tee"] for x in e] == [{"kind":"TDX","evidence":"TDX quotes","simulated":False},{"kind":"SEV-SNP","evidence":"SIMULATED SEV-SNP reports","simulated":True}], e' ||
  fail "json: tee of each environment"
grep -q ': TEE ' "$WORK/text" && fail "no TEE legend without env facts"
# stored, `results list` names each run's TEE (from its environment's facts)
"$TB" results --db "$WORK/tee.db" import "$WORK/tee-td.json" "$WORK/tee-snp.json" >/dev/null ||
  fail "import the TDX and SNP runs"
"$TB" results --db "$WORK/tee.db" list >"$WORK/tee-list"
head -1 "$WORK/tee-list" | grep -q ' LABEL  *TEE  *PROFILE ' || fail "list header: $(head -1 "$WORK/tee-list")"
grep -Eq '^[0-9a-f-]+ .* td  +TDX  ' "$WORK/tee-list" || fail "list: td is TDX: $(cat "$WORK/tee-list")"
grep -Eq '^[0-9a-f-]+ .* snp  +SEV-SNP  ' "$WORK/tee-list" || fail "list: snp is SEV-SNP: $(cat "$WORK/tee-list")"
"$TB" results --db "$WORK/tee.db" list --json |
  python3 -c 'import json,sys; assert sorted(x["tee"] for x in json.load(sys.stdin)) == ["SEV-SNP", "TDX"]' ||
  fail "list --json: tee"

# issue 19: verdicts that say what the data say
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
base = json.load(open(f"{work}/vm.json"))
def counts(spec):
    return [v for v, c in spec for _ in range(c)]
def rec(label, metrics):
    return dict(base, label=label, id=base["id"][:-1] + ("c" if label == "q0" else "d"),
                metrics=[dict(name=n, unit=u, better=b, workload="q", simulated=False, samples=x)
                         for (n, u, b, x) in metrics])
json.dump(rec("q0", [("q.index", "index", "higher", counts([(10, 7), (11, 11), (12, 2)])),
                     ("g.ratio", "x", "higher", [0.1] * 8),
                     ("z.zero", "ms", "lower", list(range(0, 8)))]), open(f"{work}/q0.json", "w"))
json.dump(rec("q1", [("q.index", "index", "higher", counts([(10, 2), (11, 10), (12, 8)])),
                     ("g.ratio", "x", "higher", [0.3] * 8),
                     ("z.zero", "ms", "lower", list(range(1, 9)))]), open(f"{work}/q1.json", "w"))
PY
Q0=$WORK/q0.json Q1=$WORK/q1.json
"$TB" compare "$Q0" "$Q1" >"$WORK/q" || fail "compare quantized"
# equal medians, shifted up: better (the medians said "worse")
grep -Eq '^q\.index .* 1\.000x \[1\.000, 1\.100\]  better \(p=0\.013; shifted, medians equal\)$' "$WORK/q" ||
  fail "direction from the test: $(grep '^q.index' "$WORK/q")"
# a 0 in the baseline's samples: the interval's real reason
grep -Eq '^z\.zero .* 1\.286x \[a value ≤ 0\]  ~ \(p=' "$WORK/q" || fail "non-positive reason: $(grep '^z.zero' "$WORK/q")"
grep -q '^q1 vs q0: 2 of 3 rows differ at α = 0\.05; ≈ 0\.15 expected by chance$' "$WORK/q" ||
  fail "multiple-comparison line: $(cat "$WORK/q")"
# the article's environments: one line per environment, right under the table
sed -n '/^$/{n;p;n;p;q}' "$WORK/text" >"$WORK/lines"
printf '%s\n' 'tdx-guest [SIMULATED] vs bare-metal: 3 of 3 rows differ at α = 0.05; ≈ 0.15 expected by chance' \
  'vm-kvm vs bare-metal: 2 of 3 rows differ at α = 0.05; ≈ 0.15 expected by chance' >"$WORK/lines.want"
cmp -s "$WORK/lines" "$WORK/lines.want" || fail "one line per environment: $(cat "$WORK/lines")"
"$TB" compare --format markdown "$Q0" "$Q1" | grep -q '^- q1 vs q0: 2 of 3 rows differ at α = 0\.05; ' ||
  fail "markdown: the line under the table"
# --adjust: verdicts and the line use the adjusted p (by hand: BH 3/2 * 0.0131 = 0.0197,
# Holm max(3 * 0.000138, 2 * 0.0131) = 0.0262)
"$TB" compare --adjust bh "$Q0" "$Q1" >"$WORK/qbh" || fail "--adjust bh"
grep -Eq '^q\.index .*  better \(adj p=0\.020; shifted, medians equal\)$' "$WORK/qbh" || fail "bh: $(grep '^q.index' "$WORK/qbh")"
grep -q "^q1 vs q0: 2 of 3 rows differ at α = 0.05 with Benjamini-Hochberg's adjustment (expected share of false differences ≤ 5 %); unadjusted 2, ≈ 0.15 expected by chance$" \
  "$WORK/qbh" || fail "bh line: $(cat "$WORK/qbh")"
"$TB" compare --adjust holm "$Q0" "$Q1" | grep -Eq '^q\.index .*  better \(adj p=0\.026; ' || fail "holm"
expect_fail 2 "$TB" compare --adjust bonferroni "$Q0" "$Q1"
grep -q -- '--adjust bonferroni: unknown (none, holm, bh)' "$WORK/err" || fail "names the method: $(cat "$WORK/err")"
# csv: stdout stays CSV (three new columns at the end), the line goes to stderr
"$TB" compare --format csv --adjust bh "$Q0" "$Q1" >"$WORK/qcsv" 2>"$WORK/qcsv.err" || fail "csv"
grep -q '^q1 vs q0: 2 of 3 rows differ' "$WORK/qcsv.err" || fail "csv: the line on stderr: $(cat "$WORK/qcsv.err")"
python3 - "$WORK/qcsv" <<'PY' || fail "csv: new columns"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0][-3:] == ["p_adjusted", "shift", "ratio_ci_why"], rows[0]
assert all(len(r) == 26 for r in rows) and len(rows) == 1 + 3 * 2, rows
d = {(r[0], r[5]): dict(zip(rows[0], r)) for r in rows[1:]}
q = d[("q.index", "2")]
assert q["verdict"] == "better" and q["shift"] == "higher", q
assert abs(float(q["p_value"]) - 0.01310065) < 1e-7 and abs(float(q["p_adjusted"]) - 0.01965098) < 1e-7, q
assert d[("z.zero", "2")]["ratio_ci_why"] == "non_positive" and d[("z.zero", "2")]["too_few"] == "0"
PY
# json: the figures of the line, raw and adjusted p per cell, the interval's reason
"$TB" compare --format json --adjust holm "$Q0" "$Q1" >"$WORK/qjson" 2>"$WORK/qjson.err" || fail "json"
[ -s "$WORK/qjson.err" ] && fail "json: nothing on stderr"
python3 - "$WORK/qjson" <<'PY' || fail "json: multiple comparisons"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["adjust"] == "holm"
mc = d["multiple_comparisons"]
assert mc[0] is None, mc
m = mc[1]
assert (m["k"], m["N"], m["k_raw"], m["alpha"], m["expected"], m["adjust"]) == (2, 3, 2, 0.05, 0.15, "holm"), m
assert m["line"].startswith("q1 vs q0: 2 of 3 rows differ at α = 0.05 with Holm's adjustment"), m
c = {x["name"]: x["cells"][1] for x in d["metrics"]}
q = c["q.index"]
assert q["p_raw"] == q["p_value"] and abs(q["p_adjusted"] - 2 * q["p_raw"]) < 1e-6, q
assert q["shift"] == "higher" and q["verdict"] == "better" and q["significant"] is True, q
z = c["z.zero"]
assert z["ratio_ci"] is None and z["too_few"] is False and z["ratio_ci_why"] == "non_positive", z
assert c["g.ratio"]["ratio_ci_why"] is None
PY
# gates compare as printed: 0.3 / 0.1 is "3.000x", not < 3, and <= 3
"$TB" compare --fail-if 'g.ratio < 3' "$Q0" "$Q1" >/dev/null 2>"$WORK/err" || fail "3.000x is not < 3: $(cat "$WORK/err")"
rc=0; "$TB" compare --fail-if 'g.ratio <= 3' "$Q0" "$Q1" >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q 'g.ratio <= 3: q1 is 3.000x q0 \[3.000, 3.000\] (significant)$' "$WORK/err" ||
  fail "3.000x is <= 3: $rc $(cat "$WORK/err")"
"$TB" compare --help | grep -q -- '--adjust M' || fail "--help lists --adjust"

# one environment: medians only
"$TB" compare "$H" >"$WORK/one" || fail "one environment exits 0"
grep -q 'geomean' "$WORK/one" && fail "no geomean for one environment"
grep -Eq '^http\.nginx\.rps +req/s +higher +1[56][0-9],[0-9]{3} ±' "$WORK/one" || fail "one environment: $(cat "$WORK/one")"

# bad input: one line each
expect_fail 2 "$TB" compare
expect_fail 2 "$TB" compare --format xml "$H"
grep -q 'format xml' "$WORK/err" || fail "names the format"
expect_fail 2 "$TB" compare --fail-if 'http.nginx.rps' "$H" "$T"
expect_fail 2 "$TB" compare --fail-if 'http.nginx.rps < lots' "$H" "$T"
expect_fail 2 "$TB" compare --fail-if 'no.such.metric < 1' "$H" "$T"
[ -s "$WORK/out" ] && fail "nothing on stdout when a gate cannot be evaluated"
expect_fail 2 "$TB" compare --fail-if 'http.nginx.rps < 1' "$H"
expect_fail 2 "$TB" compare --alpha 0 "$H" "$T"
expect_fail 2 "$TB" compare --alpha x "$H" "$T"
expect_fail 2 "$TB" compare --bogus "$H"
expect_fail 2 "$TB" compare --format
expect_fail 1 "$TB" compare "$H" "$WORK/other-schema.json"
grep -q 'other-schema.json: .*schema' "$WORK/err" || fail "wrong schema named: $(cat "$WORK/err")"
expect_fail 1 "$TB" compare "$H" "$WORK/truncated.json"
expect_fail 1 "$TB" compare "$H" "$WORK/missing.json"
"$TB" compare --help | grep -q -- '--fail-if' || fail "--help lists --fail-if"
pass compare

# report's date from SOURCE_DATE_EPOCH: whole seconds since 1970 or empty (now); anything
# else is one line, exit 2, before any file is read or written
SOURCE_DATE_EPOCH=0 "$TB" report "$H" "$T" -o "$WORK/epoch.html" >/dev/null || fail "epoch 0"
grep -q 'Made 1970-01-01T00:00:00Z by teebench' "$WORK/epoch.html" || fail "epoch 0: no 1970 date"
SOURCE_DATE_EPOCH=253402300799 "$TB" report "$H" -o "$WORK/epoch.html" >/dev/null ||
  fail "the last epoch"
grep -q 'Made 9999-12-31T23:59:59Z by' "$WORK/epoch.html" || fail "no 9999 date"
SOURCE_DATE_EPOCH= "$TB" report "$H" -o "$WORK/epoch.html" >/dev/null || fail "empty epoch"
grep -q "Made $(date -u +%Y)-" "$WORK/epoch.html" || fail "empty epoch: not today's date"
rm "$WORK/epoch.html"
for bad in 1.5e9 -1 ' 5' 5x 0x10 253402300800 99999999999999999999; do
  SOURCE_DATE_EPOCH=$bad expect_fail 2 "$TB" report "$H" -o "$WORK/epoch.html"
  grep -qF "teebench: report: SOURCE_DATE_EPOCH '$bad' is not whole seconds since 1970 (0 .. 253402300799)" \
    "$WORK/err" || fail "SOURCE_DATE_EPOCH=$bad: $(cat "$WORK/err")"
  [ ! -e "$WORK/epoch.html" ] || fail "SOURCE_DATE_EPOCH=$bad left a page"
done
pass "report: SOURCE_DATE_EPOCH"
