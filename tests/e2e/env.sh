#!/usr/bin/env bash
# `teebench env`: what it says given the facts it reads. Recorded machines
# (tests/data/env: a TD, an SNP guest, a KVM VM, a TDX host, bare metal) must be
# classified as such; on this live machine -- whatever it is: Intel or AMD, VM, bare
# metal or a TD -- only consistency is asserted: the platform agrees with the
# hypervisor flag and vendor the test reads itself from /proc/cpuinfo, and a
# recording of this machine (`--record`) reads back as the same facts (`--from`).
source "$(dirname "$0")/lib.sh"
REC=${TEEBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/data/env

# 1. recorded machines: name -> platform, hypervisor, tdx_guest, sev_guest, tdx_host
check_recorded() { # DIR PLATFORM HYPERVISOR TDX SEV TDX_HOST
  "$TB" env --from "$REC/$1" --json >"$WORK/$1.json" || fail "env --from $1"
  python3 - "$WORK/$1.json" "$@" <<'PY' || fail "env --from $1: facts"
import json, sys
d = json.load(open(sys.argv[1]))
name, platform, hv, tdx, sev, tdx_host = sys.argv[2:]
got = (d["platform"]["value"], d["hypervisor"]["value"], str(d["tdx_guest"]["value"]).lower(),
       d["sev_guest"]["value"], str(d["tdx_host"]["value"]).lower())
want = (platform, hv, tdx, sev, tdx_host)
assert got == want, f"{name}: got {got}, want {want}"
assert d["recorded"].endswith(name), d.get("recorded")
for k, f in d.items():
    if k in ("schema", "recorded"):
        continue
    assert "value" in f and isinstance(f.get("source"), str) and f["source"], k
PY
}
check_recorded td tdx-guest KVM true none false
check_recorded snp sev-snp-guest KVM false sev-snp false
check_recorded vm-kvm vm KVM false none false
check_recorded tdx-host bare-metal none false none true
check_recorded bare bare-metal none false none false
python3 - "$WORK/snp.json" "$WORK/td.json" <<'PY' || fail "recorded CPU facts"
import json, sys
snp, td = (json.load(open(p)) for p in sys.argv[1:])
assert snp["cpu_vendor"]["value"] == "AuthenticAMD" and snp["sev_cpuid"]["value"] == "SEV SEV-ES SEV-SNP"
assert td["cpu_vendor"]["value"] == "GenuineIntel" and td["memory_bytes"]["value"] > 0
PY
"$TB" env --from "$REC/td" >"$WORK/td.txt" || fail "env --from td (text)"
grep -Eq '^platform +tdx-guest ' "$WORK/td.txt" || fail "text names the TD: $(grep platform "$WORK/td.txt")"
grep -Eq '^recorded .*not this one' "$WORK/td.txt" || fail "text says the machine is a recording"
# a recording lacking inputs: unknown, not guessed
mkdir -p "$WORK/empty"
"$TB" env --from "$WORK/empty" --json >"$WORK/empty.json" || fail "env --from an empty recording"
python3 - "$WORK/empty.json" <<'PY' || fail "empty recording reports unknowns"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["platform"]["value"] == "unknown", d["platform"]
assert d["cpus"]["value"] == "unknown" and d["tdx_module"]["value"] == "unknown"
PY

# 2. this machine: consistent with what the test reads itself
"$TB" env --json >"$WORK/env.json" || fail "env --json exits 0"
python3 - "$WORK/env.json" <<'PY' || fail "env --json agrees with /proc/cpuinfo"
import json, sys
d = json.load(open(sys.argv[1]))
for k, f in d.items():
    if k == "schema":
        continue
    assert "value" in f and isinstance(f.get("source"), str) and f["source"], k
cpu = open("/proc/cpuinfo").read()
procs = [b for b in cpu.split("\n\n") if b.strip().startswith("processor")]
flags = set()
vendor = ""
for line in procs[0].splitlines():
    k, _, v = line.partition(":")
    if k.strip() == "flags":
        flags = set(v.split())
    if k.strip() == "vendor_id":
        vendor = v.strip()
p = d["platform"]["value"]
if "hypervisor" in flags:
    assert p in ("vm", "tdx-guest", "sev-guest", "sev-es-guest", "sev-snp-guest"), p
    assert d["hypervisor"]["value"] not in ("none",), d["hypervisor"]
else:
    assert p == "bare-metal", p
    assert d["hypervisor"]["value"] == "none", d["hypervisor"]
assert d["tdx_guest"]["value"] == ("tdx_guest" in flags or p == "tdx-guest"), d["tdx_guest"]
assert (p == "tdx-guest") == d["tdx_guest"]["value"]
if vendor != "AuthenticAMD":
    assert d["sev_guest"]["value"] == "none", d["sev_guest"]
assert d["cpu_vendor"]["value"] == vendor, (d["cpu_vendor"], vendor)
assert d["cpus"]["value"] == len(procs), (d["cpus"], len(procs))
assert d["memory_bytes"]["value"] > 0
cs = open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip()
assert d["clocksource"]["value"] == cs, (d["clocksource"], cs)
PY
"$TB" env >"$WORK/env.txt" || fail "env exits 0"
plat=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["platform"]["value"])' "$WORK/env.json")
grep -Eq "^platform +$plat " "$WORK/env.txt" || fail "text and JSON agree on the platform: $(head -1 "$WORK/env.txt")"
"$TB" env --help | grep -q -- '--json' || fail "--help lists --json"

# 3. a recording of this machine reads back as the same facts
"$TB" env --record "$WORK/self" 2>/dev/null || fail "env --record"
"$TB" env --from "$WORK/self" --json >"$WORK/self.json" || fail "env --from the recording"
python3 - "$WORK/env.json" "$WORK/self.json" <<'PY' || fail "recording reads back as this machine"
import json, sys
live, rec = (json.load(open(p)) for p in sys.argv[1:])
for k, f in live.items():
    if k == "schema":
        continue
    assert rec[k]["value"] == f["value"], (k, f["value"], rec[k]["value"])
PY

# 4. unprivileged, with the kernel log restricted: what cannot be read is "unknown", not guessed
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)" = 1 ]; then
  chmod 755 "$WORK"; cp "$TB" "$WORK/tb"; chmod 755 "$WORK/tb"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$WORK/tb" env --json >"$WORK/nobody.json" || fail "env as nobody"
  python3 - "$WORK/env.json" "$WORK/nobody.json" <<'PY' || fail "env as nobody reports unknowns"
import json, sys
root, nobody = (json.load(open(p)) for p in sys.argv[1:])
assert nobody["platform"]["value"] == root["platform"]["value"], (nobody["platform"], root["platform"])
assert nobody["tdx_module"]["value"] == "unknown" and "kernel log unreadable" in nobody["tdx_module"]["source"], nobody["tdx_module"]
sev = nobody["sev_guest"]["value"]
if root["sev_guest"]["value"] not in ("none", "unknown"):
    assert sev == root["sev_guest"]["value"], sev   # positive evidence readable without privileges
elif root["cpu_vendor"]["value"] == "AuthenticAMD":
    assert sev == "unknown", sev                   # boot log and MSR unreadable: no guess
else:
    assert sev == "none", sev                      # not an AMD CPU
PY
fi
expect_fail 2 "$TB" env --bogus
expect_fail 2 "$TB" env extra
expect_fail 2 "$TB" env --from "$REC/td" --record "$WORK/x"
expect_fail 1 "$TB" env --from "$WORK/does-not-exist"
pass env
