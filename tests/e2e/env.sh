#!/usr/bin/env bash
# `teebench env`: this machine is a KVM VM without TDX; text and JSON agree; bad flags fail cleanly.
source "$(dirname "$0")/lib.sh"
"$TB" env --json >"$WORK/env.json" || fail "env --json exits 0"
python3 - "$WORK/env.json" <<'PY' || fail "env --json content"
import json, sys
d = json.load(open(sys.argv[1]))
for k, f in d.items():
    if k == "schema":
        continue
    assert "value" in f and isinstance(f.get("source"), str) and f["source"], k
assert d["platform"]["value"] == "vm", d["platform"]
assert d["hypervisor"]["value"] == "KVM", d["hypervisor"]
assert d["tdx_guest"]["value"] is False, d["tdx_guest"]
assert d["cpus"]["value"] >= 1 and d["memory_bytes"]["value"] > 0
assert d["clocksource"]["value"] not in ("", "unknown")
PY
"$TB" env >"$WORK/env.txt" || fail "env exits 0"
grep -Eq '^platform +vm ' "$WORK/env.txt" || fail "text names the platform: $(head -1 "$WORK/env.txt")"
grep -Eq '^hypervisor +KVM ' "$WORK/env.txt" || fail "text names the hypervisor"
grep -Eq '^tdx_guest +no ' "$WORK/env.txt" || fail "text says no TDX"
"$TB" env --help | grep -q -- '--json' || fail "--help lists --json"
# unprivileged, with the kernel log restricted: what cannot be read is "unknown", not guessed
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)" = 1 ]; then
  chmod 755 "$WORK"; cp "$TB" "$WORK/tb"; chmod 755 "$WORK/tb"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$WORK/tb" env --json >"$WORK/nobody.json" || fail "env as nobody"
  python3 - "$WORK/nobody.json" <<'PY' || fail "env as nobody reports unknowns"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["platform"]["value"] == "vm"
assert d["tdx_module"]["value"] == "unknown" and "kernel log unreadable" in d["tdx_module"]["source"], d["tdx_module"]
assert d["sev_guest"]["value"] == "unknown", d["sev_guest"]
PY
fi
expect_fail 2 "$TB" env --bogus
expect_fail 2 "$TB" env extra
pass env
