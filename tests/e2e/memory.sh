#!/usr/bin/env bash
# `teebench memory` with tiny sizes: the text (every part, its units), the
# teebench-memory/1 document (bandwidth per thread count with all four kernels, a
# latency per working set, first touch), `results import` of it (the metric names the
# suite gives, their units), the suite's memory workload (not in quick unless named;
# named, with quick's defaults), an interrupt, and bad flags (one line, exit 2).
source "$(dirname "$0")/lib.sh"
"$TB" memory --array 1m --threads 1,n --passes 2 --sizes 4k,1m --chase 20ms \
  --first-touch 8m >"$WORK/text" || fail "memory: $(cat "$WORK/text")"
grep -Eq '^memory bandwidth: 3 arrays of 1m each .*the best of 2 passes' "$WORK/text" || fail "bandwidth line: $(cat "$WORK/text")"
grep -Eq '^  t1 \(1\) +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}$' "$WORK/text" || fail "t1 row: $(cat "$WORK/text")"
grep -Eq "^  tn \($(nproc)\) " "$WORK/text" || fail "tn row: $(cat "$WORK/text")"
grep -q 'GB/s' "$WORK/text" || fail "units"
grep -Eq '^  1m +[0-9]+\.[0-9]{2}$' "$WORK/text" || fail "latency row: $(cat "$WORK/text")"
grep -Eq '^first touch: mmap\(MAP_POPULATE\) of 8m: [0-9.]+ s, [0-9.]+ ns per 4 KiB page' "$WORK/text" || fail "first touch: $(cat "$WORK/text")"

"$TB" memory --parts bandwidth,latency,first-touch --array 512k --threads 2 --passes 1 \
  --sizes 4k,16k,64k --chase 10ms --first-touch 4m --json >"$WORK/mem.json" || fail "memory --json"
python3 - "$WORK/mem.json" <<'PY' || fail "memory JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "teebench-memory/1" and d["env"]["platform"]["value"], d.keys()
assert d["options"]["array"] == "512k" and d["options"]["sizes"] == ["4k", "16k", "64k"], d["options"]
(bw,) = d["bandwidth"]
assert bw["label"] == "t2" and bw["threads"] == 2 and bw["array_bytes"] == 512 * 1024, bw
for k in ("copy", "scale", "add", "triad"):
    x = bw["kernels"][k]
    assert x["best_Bps"] > 0 and 0 < x["best_s"] <= x["mean_s"] * 1.000001, (k, x)
assert [l["label"] for l in d["latency"]] == ["4k", "16k", "64k"]
assert all(l["ns_per_load"] > 0 and l["loads"] >= 65536 for l in d["latency"])
ft = d["first_touch"]
assert ft["pages"] == 1024 and ft["ns_per_page"] > 0, ft
PY
DB=$WORK/db
"$TB" results --db "$DB" import "$WORK/mem.json" --label mem >"$WORK/imp" || fail "import: $(cat "$WORK/imp")"
grep -q '(8 metrics)' "$WORK/imp" || fail "8 metrics imported: $(cat "$WORK/imp")"
"$TB" results --db "$DB" export mem >"$WORK/exp.json" || fail "export"
python3 - "$WORK/exp.json" <<'PY' || fail "imported metrics"
import json, sys
d = json.load(open(sys.argv[1]))
if isinstance(d, list): d = d[0]
m = {x["name"]: x for x in d["metrics"]}
want = {"memory.bw.copy.t2": "B/s", "memory.bw.triad.t2": "B/s", "memory.latency.4kib": "ns",
        "memory.latency.64kib": "ns", "memory.first_touch": "ns"}
for n, u in want.items():
    assert n in m and m[n]["unit"] == u, (n, m.get(n))
assert m["memory.bw.copy.t2"]["better"] in ("higher", 1) and m["memory.latency.4kib"]["better"] in ("lower", -1)
PY

# the suite: not in quick, unless named
"$TB" suite plan --profile quick >"$WORK/plan" || fail "plan"
grep -q 'memory' "$WORK/plan" && fail "quick runs memory: $(cat "$WORK/plan")"
"$TB" suite run --profile quick --workloads memory --repeat 2 --set memory.array=1m \
  --set memory.sizes=4k,64k --set memory.first_touch=4m --no-store -o "$WORK/suite.json" \
  --progress none >"$WORK/suite.out" 2>&1 || fail "suite: $(cat "$WORK/suite.out")"
python3 - "$WORK/suite.json" <<'PY' || fail "suite result"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
m = {x["name"]: x for x in d["metrics"]}
assert sorted(m) == sorted(["memory.bw.copy.t1", "memory.bw.scale.t1", "memory.bw.add.t1",
                            "memory.bw.triad.t1", "memory.latency.4kib", "memory.latency.64kib",
                            "memory.first_touch"]), sorted(m)
for x in m.values():
    assert len(x["samples"]) == 2 and min(x["samples"]) > 0, x
assert d["extra"]["memory"]["thp"] in ("always", "madvise", "never", "unknown"), d["extra"]
assert any(c.startswith("teebench memory --parts latency --sizes 4k,64k") for c in d["commands"]), d["commands"]
PY

# Ctrl-C: what finished is printed, exit 130
"$TB" memory --parts latency --sizes 4k,16k,64k,256k --chase 3s >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
sleep 1
kill -INT $pid
rc=0; wait $pid || rc=$?
[ $rc = 130 ] || fail "interrupted: exit $rc"
grep -q '^teebench: memory: interrupted' "$WORK/int.err" || fail "says so: $(cat "$WORK/int.err")"

expect_fail 2 "$TB" memory --array 1x
grep -q -- '--array 1x: .1x. is not a size' "$WORK/err" || fail "names the flag: $(cat "$WORK/err")"
expect_fail 2 "$TB" memory --threads 0
expect_fail 2 "$TB" memory --sizes 1k
expect_fail 2 "$TB" memory --parts nothing
expect_fail 2 "$TB" memory --passes 0
expect_fail 2 "$TB" memory --bogus
expect_fail 2 "$TB" memory extra
"$TB" memory --help | grep -q 'first-touch' || fail "help"
pass memory
