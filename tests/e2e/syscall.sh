#!/usr/bin/env bash
# `teebench syscall`: short runs of every mode; UnixBench's lines in text; JSON structure and
# plausible numbers (a getpid loop is faster than a mix loop, far faster than fork+exec);
# --copies sums processes; bad flags fail with one error line.
source "$(dirname "$0")/lib.sh"
for m in mix close getpid exec; do
  "$TB" syscall --mode "$m" --duration 0.2 --passes 3 --json >"$WORK/$m.json" || fail "syscall --mode $m"
done
python3 - "$WORK" <<'PY' || fail "syscall JSON content"
import json, math, sys
w = sys.argv[1]
d = {m: json.load(open(f"{w}/{m}.json")) for m in ("mix", "close", "getpid", "exec")}
for m, r in d.items():
    assert r["mode"] == m and r["copies"] == 1 and r["duration_s"] == 0.2, r
    ps = r["passes"]
    assert len(ps) == 3 and sum(not p["kept"] for p in ps) == 1, ps
    for p in ps:
        assert p["count"] > 0 and 0.2 <= p["seconds"] < 2 and p["lps"] > 0 and p["ns_per_loop"] > 0, p
        assert abs(p["lps"] - p["count"] / p["seconds"]) < 1e-6 * p["lps"], p
    dropped = [p for p in ps if not p["kept"]][0]
    assert dropped["count"] == min(p["count"] for p in ps), ps
    kept = [p["lps"] for p in ps if p["kept"]]
    gm = math.exp(sum(math.log(x) for x in kept) / len(kept))
    assert abs(r["score_lps"] - gm) < 1e-6 * gm, (r["score_lps"], gm)
    assert r["baseline_lps"] == 15000
    assert r["env"]["platform"]["value"] == "vm"
assert abs(d["mix"]["index"] - d["mix"]["score_lps"] / 15000 * 10) < 1e-6 * d["mix"]["index"]
assert d["getpid"]["index"] is None
assert d["getpid"]["score_lps"] > d["mix"]["score_lps"] > 10 * d["exec"]["score_lps"], \
    {m: r["score_lps"] for m, r in d.items()}
assert d["close"]["score_lps"] > d["mix"]["score_lps"]
PY
"$TB" syscall --duration 0.2 --passes 3 >"$WORK/text" || fail "syscall text"
grep -Eq '^System Call Overhead +[0-9]+\.[0-9] lps +\(0\.2 s, 2 samples\)$' "$WORK/text" \
  || fail "UnixBench result line: $(cat "$WORK/text")"
grep -Eq '^System Call Overhead +15000\.0 +[0-9]+\.[0-9] +[0-9]+\.[0-9]$' "$WORK/text" \
  || fail "UnixBench index line: $(cat "$WORK/text")"
[ "$(grep -c '^pass ' "$WORK/text")" -eq 3 ] || fail "three pass lines"
grep -Eq 'ns per loop' "$WORK/text" || fail "ns per loop shown"
"$TB" syscall --mode getpid --duration 0.2 --passes 1 --copies 2 --json >"$WORK/c2.json" || fail "copies 2"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["copies"]==2 and r["passes"][0]["count"]>0' "$WORK/c2.json" \
  || fail "copies 2 JSON"
expect_fail 2 "$TB" syscall --mode nope
expect_fail 2 "$TB" syscall --duration 0
expect_fail 2 "$TB" syscall --duration abc
expect_fail 2 "$TB" syscall --passes 0
expect_fail 2 "$TB" syscall --copies -3
expect_fail 2 "$TB" syscall --duration
expect_fail 2 "$TB" syscall --bogus
"$TB" syscall --help | grep -q -- '--copies' || fail "--help"
# the comparison script says what it needs when no UnixBench is given
rc=0; env -u UNIXBENCH_DIR TEEBENCH="$TB" bash "$(dirname "$0")/../../bench/syscall-vs-unixbench.sh" 2>"$WORK/b.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q 'UNIXBENCH_DIR' "$WORK/b.err" || fail "bench script without UnixBench: rc $rc $(cat "$WORK/b.err")"
pass syscall
