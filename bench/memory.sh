#!/usr/bin/env bash
# teebench memory's bandwidth kernels vs Debian's mbw and sysbench memory, measured
# alternately in the same run, at one thread and at one thread per CPU.
#
#   bench/memory.sh                 # ROUNDS=5, arrays of teebench's auto size
#   ARRAY=512m ROUNDS=3 bench/memory.sh
#
# Environment: ARRAY (bytes of each array / buffer, k/m/g; default teebench's auto:
# 4 x the last-level cache, at least 64m), ROUNDS (default 5), TEEBENCH (the binary;
# default build/teebench), MBW, SYSBENCH (default: from PATH).
#
# Each round runs, one after the other so that all see the same machine state:
#   teebench memory --parts bandwidth --threads 1,n --passes 3 --array ARRAY
#   mbw -n 3 -t0 / -t1 / -t2 MiB        (memcpy, a loop, memcpy in blocks; 1 thread)
#   sysbench memory --memory-oper=write|read --memory-block-size=ARRAY
#            --memory-total-size=3 x ARRAY --threads=1|n --memory-scope=local
#            (its block a power of two: the largest not above ARRAY)
# and keeps each tool's best figure, as STREAM and mbw report theirs: teebench's best
# pass of its best kernel; mbw's best run of its best test; sysbench's fastest event
# (one pass over its buffer: its latency "min"). All are compared as bytes of memory
# traffic per second the way STREAM counts them (what the test reads plus what it
# writes): mbw's "Copy" MiB/s counts the bytes copied once, so it is doubled; sysbench's
# write (or read) counts what it wrote (or read). It prints every figure and the ratio
# teebench / the best of mbw and sysbench per thread count; the issue's target is
# >= 0.9. Exit 0 when the run completed, 2 when a tool is missing (says which package).
set -euo pipefail
cd "$(dirname "$0")/.."
TB=${TEEBENCH:-build/teebench}
ROUNDS=${ROUNDS:-5}
MBW=${MBW:-$(command -v mbw || true)}
SYSBENCH=${SYSBENCH:-$(command -v sysbench || true)}
[ -x "$TB" ] || { echo "memory.sh: $TB not built (run make)" >&2; exit 2; }
[ -n "$MBW" ] || { echo "memory.sh: mbw is not installed: install the package mbw (apt-get install mbw)" >&2; exit 2; }
[ -n "$SYSBENCH" ] || { echo "memory.sh: sysbench is not installed: install the package sysbench (apt-get install sysbench)" >&2; exit 2; }
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "memory.sh: ROUNDS must be a whole number >= 1" >&2; exit 2 ;; esac

exec python3 - "$TB" "$MBW" "$SYSBENCH" "$ROUNDS" "${ARRAY:-auto}" <<'PY'
import json, os, re, subprocess, sys

tb, mbw, sysbench, rounds, array = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
ncpu = os.cpu_count() or 1

def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("memory.sh: %s failed (exit %d): %s" % (" ".join(argv), p.returncode, p.stderr.strip()[:300]))
    return p.stdout

def teebench():
    d = json.loads(run([tb, "memory", "--parts", "bandwidth", "--threads", "1,n", "--passes", "3",
                        "--array", array, "--json"]))
    out = {}
    for b in d["bandwidth"]:
        k = max(b["kernels"], key=lambda n: b["kernels"][n]["best_Bps"])
        out[b["threads"]] = (b["kernels"][k]["best_Bps"], k)
    return out, d["bandwidth"][0]["array_bytes"]

def mbw_best(mib):
    best = (0.0, "")
    for t, name in (("-t0", "memcpy"), ("-t1", "dumb"), ("-t2", "mcblock")):
        for line in run([mbw, "-q", "-n", "3", t, str(mib)]).splitlines():
            m = re.match(r"^\d+\s+Method: (\S+).*Copy: ([0-9.]+) MiB/s", line)
            if m:
                bps = 2 * float(m.group(2)) * 2**20  # read + written, as STREAM counts
                best = max(best, (bps, name))
    return best

def sysbench_best(block, threads):
    best = (0.0, "")
    for op in ("write", "read"):
        o = run([sysbench, "memory", "--memory-oper=" + op, "--memory-access-mode=seq",
                 "--memory-scope=local", "--memory-block-size=%d" % block, "--memory-total-size=%d" % (3 * block * threads),
                 "--threads=%d" % threads, "run"])
        m = re.search(r"^\s*min:\s+([0-9.]+)", o, re.M)
        if not m or float(m.group(1)) <= 0:
            sys.exit("memory.sh: sysbench printed no latency min: " + o[:300])
        # each thread's events are passes over its own buffer; the fastest pass, and
        # all threads at that pace
        best = max(best, (threads * block / (float(m.group(1)) / 1e3), op))
    return best

tbest, mbest, sbest = {}, (0.0, ""), {}
array_bytes = None
for r in range(rounds):
    t, array_bytes = teebench()
    for n, v in t.items():
        tbest[n] = max(tbest.get(n, (0.0, "")), v)
    mbest = max(mbest, mbw_best(max(1, array_bytes // 2**20)))
    for n in sorted(t):
        # sysbench takes powers of two only: the largest not above the arrays
        sbest[n] = max(sbest.get(n, (0.0, "")), sysbench_best(1 << (array_bytes.bit_length() - 1), n))
    print("round %d of %d done" % (r + 1, rounds), file=sys.stderr)

gb = lambda x: x / 1e9
print("arrays of %d MiB, %d rounds, best of each; GB/s = 10^9 bytes read + written per second" % (array_bytes // 2**20, rounds))
print("%-8s %18s %18s %18s %8s" % ("threads", "teebench", "mbw", "sysbench", "ratio"))
worst = None
for n in sorted(tbest):
    t = tbest[n]
    m = mbest if n == 1 else (0.0, "")
    s = sbest[n]
    other = max(m, s)
    ratio = t[0] / other[0]
    worst = ratio if worst is None else min(worst, ratio)
    print("%-8s %11.2f %-6s %11.2f %-6s %11.2f %-6s %8.3f" % (
        "%d" % n, gb(t[0]), t[1], gb(m[0]) if m[0] else float("nan"), m[1] or "-", gb(s[0]), s[1], ratio))
print("teebench / best of mbw and sysbench memory: %.3f at worst (target >= 0.9)" % worst)
PY
