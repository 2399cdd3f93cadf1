#!/usr/bin/env bash
# teebench syscall vs UnixBench's pgms/syscall, measured alternately in the same run.
#
#   UNIXBENCH_DIR=/path/to/byte-unixbench/UnixBench bench/syscall-vs-unixbench.sh
#
# Environment: UNIXBENCH_DIR (required: a built UnixBench, with pgms/syscall),
# DURATION (seconds per pass, an integer as UnixBench takes it; default 10),
# PASSES (default 10), MODE (mix, close, getpid, exec; default mix),
# TEEBENCH (the binary; default build/teebench).
#
# Each pass runs UnixBench's `pgms/syscall DURATION MODE` (timed like UnixBench's
# Run script: count / wall time of the program) and then one `teebench syscall`
# pass of the same duration, alternating so that both see the same machine state.
# Both sets of passes are scored the UnixBench way (drop the lowest third by
# count, geometric mean of the rest). It prints both scores and the ratio
# teebench / UnixBench; the issue's fidelity target is 0.97..1.03 for mode mix.
# Exit 0 when the run completed, 2 when UnixBench is missing (says what it needs).
set -euo pipefail
cd "$(dirname "$0")/.."
TB=${TEEBENCH:-build/teebench}
DURATION=${DURATION:-10}
PASSES=${PASSES:-10}
MODE=${MODE:-mix}

if [ -z "${UNIXBENCH_DIR:-}" ] || [ ! -x "${UNIXBENCH_DIR}/pgms/syscall" ]; then
  cat >&2 <<MSG
syscall-vs-unixbench: needs a built UnixBench: set UNIXBENCH_DIR to its UnixBench/ directory
  (the one holding pgms/syscall), e.g.
    git clone https://github.com/kdlucas/byte-unixbench && make -C byte-unixbench/UnixBench
    UNIXBENCH_DIR=\$PWD/byte-unixbench/UnixBench bench/syscall-vs-unixbench.sh
  UNIXBENCH_DIR is ${UNIXBENCH_DIR:-unset}${UNIXBENCH_DIR:+ and has no executable pgms/syscall}.
MSG
  exit 2
fi
case "$DURATION" in ''|*[!0-9]*) echo "syscall-vs-unixbench: DURATION must be a whole number of seconds (UnixBench takes an integer)" >&2; exit 2;; esac
[ -x "$TB" ] || { echo "syscall-vs-unixbench: $TB not built (run make)" >&2; exit 2; }

exec python3 - "$UNIXBENCH_DIR/pgms/syscall" "$TB" "$DURATION" "$PASSES" "$MODE" <<'PY'
import json, math, subprocess, sys, time

ub, tb, duration, passes, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

def unixbench_pass():
    # Run measures the wall time of the program (Time::HiRes around it) and
    # reads "COUNT|<loops>|1|lps" from its output; rate = loops / time.
    t0 = time.monotonic()
    p = subprocess.run([ub, str(duration), mode], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.monotonic() - t0
    for line in p.stdout.splitlines():
        f = line.strip().split("|")
        if f[0] == "COUNT" and len(f) >= 2:
            return int(f[1]), elapsed
    sys.exit(f"syscall-vs-unixbench: {ub} printed no COUNT line (exit {p.returncode}): {p.stdout.strip()[:200]}")

def teebench_pass():
    p = subprocess.run([tb, "syscall", "--mode", mode, "--duration", str(duration), "--passes", "1", "--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"syscall-vs-unixbench: teebench failed: {p.stderr.strip()}")
    r = json.loads(p.stdout)["passes"][0]
    return r["count"], r["seconds"]

def score(ps):
    # UnixBench Run: sort by count, drop int(n/3) lowest, geometric mean of count/time.
    kept = sorted(ps, key=lambda p: p[0])[len(ps) // 3:]
    return math.exp(sum(math.log(c / t) for c, t in kept) / len(kept))

u, t = [], []
print(f"syscall-vs-unixbench: mode {mode}, {passes} passes of {duration} s each, alternating")
for i in range(passes):
    u.append(unixbench_pass())
    t.append(teebench_pass())
    print(f"pass {i + 1:2d}: UnixBench {u[-1][0] / u[-1][1]:12.1f} lps   teebench {t[-1][0] / t[-1][1]:12.1f} lps", flush=True)
su, st = score(u), score(t)
print(f"UnixBench pgms/syscall score: {su:12.1f} lps (index {su / 15000 * 10:.1f})")
print(f"teebench syscall score:       {st:12.1f} lps (index {st / 15000 * 10:.1f})")
print(f"ratio teebench / UnixBench:   {st / su:.4f}  (target 0.97..1.03 for mode mix)")
PY
