#!/usr/bin/env bash
# Start-up time of `teebench --help` against `openssl version` (the peer: a program
# that loads the same libssl/libcrypto and does nothing). Prints the minimum and
# median wall time of each and their ratio, plus the shared objects each maps.
#   bench/startup.sh [path/to/teebench]     (default build/teebench)
# Uses hyperfine (Debian package) when installed, else a timing loop in bash.
set -euo pipefail
TB=${1:-build/teebench}
RUNS=${RUNS:-300}
[ -x "$TB" ] || { echo "startup.sh: $TB: not an executable (make first)" >&2; exit 1; }
command -v openssl >/dev/null || { echo "startup.sh: openssl not installed" >&2; exit 1; }

objects() { LD_TRACE_LOADED_OBJECTS=1 "$@" 2>/dev/null | grep -c '=>\|ld-linux' || true; }
echo "shared objects mapped at start: teebench $(objects "$TB") (libcurl: $(LD_TRACE_LOADED_OBJECTS=1 "$TB" | grep -c libcurl || true)), openssl $(objects "$(command -v openssl)")"

if command -v hyperfine >/dev/null && command -v python3 >/dev/null; then
  json=$(mktemp)
  trap 'rm -f "$json"' EXIT
  hyperfine -N --warmup 30 --runs "$RUNS" "$TB --help" "openssl version" --export-json "$json" >/dev/null 2>&1
  python3 - "$json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
for x in r:
    print(f"{x['command']:<40} min {x['min']*1e3:6.2f} ms  median {x['median']*1e3:6.2f} ms  "
          f"user+sys {(x['user']+x['system'])*1e3:6.2f} ms")
a, b = r[0], r[1]
print(f"ratio teebench/openssl: min {a['min']/b['min']:.2f}x  median {a['median']/b['median']:.2f}x")
PY
else
  t() { # min and median of RUNS runs of "$@", in ms
    local s e xs=()
    for _ in $(seq "$RUNS"); do
      s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); xs+=($(( (e - s) / 1000 )))
    done
    printf '%s\n' "${xs[@]}" | sort -n | awk '{a[NR]=$1} END {printf "min %.2f ms  median %.2f ms\n", a[1]/1000, a[int((NR+1)/2)]/1000}'
  }
  echo "teebench --help   $(t "$TB" --help)   (no hyperfine: bash loop, includes fork/exec of date)"
  echo "openssl version   $(t openssl version)"
fi
