#!/usr/bin/env bash
# `teebench results import` of many result files (issue 8): target <= 10 s for
# 1,000 files. Generates N result documents shaped like a suite run (the env
# facts of this machine, 40 metrics x 10 samples, unique ids) in a temp dir,
# imports them all with one command into a new store, then imports them again
# (every file "already stored"), and prints the times and files/s.
#
#   bench/results-import.sh            # 1000 files
#   N=5000 bench/results-import.sh
#
# Environment: N (default 1000), TEEBENCH (default build/teebench). Each file is
# one transaction (WAL, synchronous=NORMAL: no fsync per commit). Exit 1 when an
# import failed or the store does not hold N runs afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
TB=${TEEBENCH:-build/teebench}
N=${N:-1000}
out=$(mktemp -d /tmp/tb-bench-results.XXXXXX)
trap 'rm -rf "$out"' EXIT

"$TB" env --json >"$out/env.json"
python3 - "$out" "$N" <<'EOF'
import json, random, sys, uuid
out, n = sys.argv[1], int(sys.argv[2])
env = json.load(open(out + "/env.json"))
rnd = random.Random(8)
names = ([f"http.nginx.latency.p{p}" for p in ("50", "90", "99", "99.9", "99.99", "99.999")] +
         [f"probe.p{i}.ns" for i in range(30)] +
         ["http.nginx.rps", "http.nginx.transfer", "syscall.c1.lps", "syscall.c1.index"])
for i in range(n):
    doc = {"schema": "teebench-result", "schema_version": 1, "id": str(uuid.UUID(int=rnd.getrandbits(128), version=4)),
           "label": ["bare-metal", "vm-kvm", "tdx-guest"][i % 3], "status": "complete", "profile": "quick",
           "started": "2026-01-%02dT%02d:%02d:00Z" % (1 + i % 28, (i // 28) % 24, i % 60),
           "finished": "", "teebench_version": "0.1.0", "simulated": False, "env": env,
           "commands": ["teebench suite run --profile quick"], "versions": {"nginx": "1.22.1"}, "extra": {},
           "metrics": [{"name": m, "unit": "ms" if "latency" in m else "ns", "better": "lower",
                        "workload": m.split(".")[0], "simulated": False,
                        "samples": [round(rnd.uniform(1, 1000), 3) for _ in range(10)]} for m in names]}
    with open(f"{out}/run-{i:05d}.json", "w") as f:
        json.dump(doc, f, indent=2)
EOF
size=$(du -sk "$out" | cut -f1)

# wall, user and system seconds of each import (CPU time says more than wall time
# on a loaded machine)
TIMEFORMAT='%R %U %S'
{ time "$TB" results --db "$out/store.db" import "$out"/run-*.json >"$out/import.log"; } 2>"$out/t1"
{ time "$TB" results --db "$out/store.db" import "$out"/run-*.json >"$out/again.log"; } 2>"$out/t2"

imported=$(grep -c '^imported ' "$out/import.log" || true)
already=$(grep -c '^already stored ' "$out/again.log" || true)
stored=$("$TB" results --db "$out/store.db" list --json | grep -c '^    "id": ' || true)
db_kb=$(du -k "$out/store.db" | cut -f1)
python3 - "$N" "$(cat "$out/t1")" "$(cat "$out/t2")" "$size" "$db_kb" "$(cut -d' ' -f1 /proc/loadavg)" <<'EOF'
import sys
n, (a, au, asy), (b, bu, bsy) = int(sys.argv[1]), map(float, sys.argv[2].split()), map(float, sys.argv[3].split())
size, db, load = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
print(f"files:           {n} result documents, {size / 1024:.1f} MiB (40 metrics x 10 samples each)")
print(f"import:          {a:.2f} s   {n / a:.0f} files/s   CPU {au + asy:.2f} s ({(au + asy) / n * 1000:.2f} ms/file)"
      f"   (target: {n} files <= {n / 100:.0f} s: {'met' if a <= n / 100 else 'NOT met'})")
print(f"import again:    {b:.2f} s   {n / b:.0f} files/s   CPU {bu + bsy:.2f} s   (every file already stored)")
print(f"store:           {db / 1024:.1f} MiB; load average {load} while measuring")
EOF
echo "imported: $imported, already stored on the second import: $already, runs in the store: $stored"
[ "$imported" -eq "$N" ] && [ "$already" -eq "$N" ] && [ "$stored" -eq "$N" ]
