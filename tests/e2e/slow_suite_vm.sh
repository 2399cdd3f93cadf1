#!/usr/bin/env bash
# `teebench suite run --vm-kinds regular` on a real guest under TCG (KVM guests hang on
# nested development VMs, TCG runs anywhere): this machine's suite, then a VM started
# from the description, the suite inside it over SSH, both runs stored, the comparison
# printed with host as the baseline, the guest's boot time as vm.boot.s, its record
# marked as emulated, and the VM stopped afterwards. Then `--target g=vm:g1` against a
# VM started with `teebench vm start` (its boot time from its state, the VM left
# running: it is the user's), and Ctrl-C twice: while the guest boots (QEMU killed at
# once, nothing left) and while the suite runs inside (the interrupted record comes
# back with the boot time, the VM is stopped). Slow (one to two minutes): its name
# starts with slow_ so that sanitizer stages leave it out. The guest is built by
# tests/e2e/lib_vmguest.sh; skipped (exit 77) where it cannot be.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_vmguest.sh"
T0=$(date +%s)
vmguest_build
T_BUILD=$(date +%s)

RUN=$WORK/vm
DB=$WORK/results.db
# every VM under $RUN is stopped whatever happens (vm stop of a stopped VM is a no-op)
stop_vms() {
  local d
  for d in "$RUN"/*/; do
    [ -e "$d/vm.json" ] && "$TB" vm stop "$(basename "$d")" --dir "$RUN" --timeout 5 >/dev/null 2>&1
  done
  _tb_cleanup
}
trap stop_vms EXIT
boot=(--kernel "$GUEST_KERNEL" --initrd "$GUEST_INITRD" --append quiet --accel tcg --firmware none
      --vsock off --boot-timeout 240)
vm=("${boot[@]}" --vm-cpus 1 --vm-memory 1G --vm-dir "$RUN" --db "$DB")
small=(--profile quick --workloads syscall,probe --repeat 2 --set syscall.duration=0.2
       --set syscall.passes=2 --set probe.probes=getpid,rdtsc --set probe.max_reps=2000)

# gone PID: the process does not exist (or is a zombie its new parent has not reaped)
gone() {
  local state
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null || true)
  [ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ]
}

# ---- 1. host and a regular VM in one command ----
T1=$(date +%s)
"$TB" suite run "${small[@]}" --vm-kinds regular "${vm[@]}" --vm-boot-memory 1G,512M -o "$WORK/res" --progress plain \
  >"$WORK/run.out" 2>"$WORK/run.err" || fail "suite run --vm-kinds regular: $(tail -n 5 "$WORK/run.err")"
T1_END=$(date +%s)
cat "$WORK/run.err"
grep -q "^teebench: suite: vm-regular-tcg: NOTE: TCG EMULATION (--accel tcg)" "$WORK/run.err" ||
  fail "no loud TCG note"
grep -q '^suite\[host\]: complete after' "$WORK/run.err" || fail "host did not run"
grep -Eq '^suite\[vm-regular-tcg\]: booted in [0-9]+\.[0-9] s \(vm start to the first SSH login\), ssh://root@127\.0\.0\.1:[0-9]+$' \
  "$WORK/run.err" || fail "no boot line"
grep -q '^suite\[vm-regular-tcg\] \[[0-9]*/[0-9]*\] round 1/2: syscall c1: ok' "$WORK/run.err" ||
  fail "the guest's progress was not streamed back"
grep -q '^suite\[vm-regular-tcg\]: complete after' "$WORK/run.err" || fail "the guest's suite did not complete"
PID=$(sed -n 's/^suite\[vm-regular-tcg\]: VM vm-regular-tcg (QEMU pid \([0-9]*\)) powered off$/\1/p' "$WORK/run.err")
[ -n "$PID" ] || fail "the VM was not powered off: $(tail -n 3 "$WORK/run.err")"
gone "$PID" || fail "QEMU $PID still runs after the suite"
"$TB" vm list --dir "$RUN" | grep -Eq '^vm-regular-tcg +regular +TCG +stopped ' || fail "vm list: not stopped"
cat "$WORK/run.out"
grep -q '^== comparison (baseline host)' "$WORK/run.out" || fail "no comparison"
grep -Eq '^metric +unit +better +host \(baseline\) +\| +vm-regular-tcg' "$WORK/run.out" ||
  fail "the comparison's columns: $(grep -A1 '^== comparison' "$WORK/run.out")"
grep -Eq '^syscall\.c1\.lps +lps +higher ' "$WORK/run.out" || fail "comparison rows"
grep -Eq '^vm\.boot\.s +s +lower +- +\| +[0-9.]+ \(n=1' "$WORK/run.out" || fail "vm.boot.s row"
BOOT=$(python3 - "$WORK/res" <<'PY'
import json, os, sys
d = {n: json.load(open(os.path.join(sys.argv[1], n + ".json"))) for n in ("host", "vm-regular-tcg")}
for n, r in d.items():
    assert r["label"] == n and r["status"] == "complete", (n, r["status"])
    names = {m["name"] for m in r["metrics"]}
    assert {"syscall.c1.lps", "syscall.cn.index", "probe.getpid.ns"} <= names, (n, names)
assert "vm.boot.s" not in {m["name"] for m in d["host"]["metrics"]}
g = d["vm-regular-tcg"]
boot = [m for m in g["metrics"] if m["name"] == "vm.boot.s"][0]
assert boot["unit"] == "s" and boot["better"] == "lower" and boot["workload"] == "vm", boot
assert len(boot["samples"]) == 1 and 0 < boot["samples"][0] < 240, boot["samples"]
vm = g["extra"]["vm"]
assert vm["kind"] == "regular" and vm["accel"] == "tcg" and vm["cpus"] == 1 and vm["memory_mib"] == 1024, vm
assert "no performance figure" in vm["note"], vm
assert abs(vm["boot_s"] - boot["samples"][0]) < 1e-6, vm
assert "TCG" in g["env"]["hypervisor"]["value"], g["env"]["hypervisor"]
assert g["env"]["platform"]["value"] == "vm", g["env"]["platform"]
assert any(c.split(" ", 1)[0].endswith("qemu-system-x86_64") and "-accel tcg" in c
           for c in g["commands"]), g["commands"]
# what ran: the QEMU found (path, version, hash) and the firmware (none here)
assert vm["qemu"]["path"].endswith("qemu-system-x86_64") and len(vm["qemu"]["sha256"]) == 64, vm
assert vm["qemu"]["version"].startswith("QEMU emulator version"), vm
assert vm["firmware"].startswith("none"), vm
# the boot's phases, from the guest's own uptime and kernel log (busybox: no systemd,
# so userspace runs to the login and there is no ssh phase); they add up to vm.boot.s
ph = {m["name"]: m for m in g["metrics"] if m["name"].startswith("vm.boot.") and m["name"] != "vm.boot.s"
      and not m["name"].startswith("vm.boot.mem.")}
assert set(ph) == {"vm.boot.firmware.s", "vm.boot.kernel.s", "vm.boot.userspace.s"}, (sorted(ph), vm.get("boot_phases"))
for m in ph.values():
    assert m["unit"] == "s" and m["better"] == "lower" and len(m["samples"]) == 1 and m["samples"][0] >= 0, m
    assert "TCG" in m["note"] and "no systemd-analyze" in m["note"], m["note"]
assert abs(sum(m["samples"][0] for m in ph.values()) - boot["samples"][0]) < 1e-6, ph
assert 0 < ph["vm.boot.kernel.s"]["samples"][0] < boot["samples"][0], ph
# --vm-boot-memory 1G,512M: the suite's own boot is the 1 GiB point, one more boot at 512 MiB
mem = {m["name"]: m for m in g["metrics"] if m["name"].startswith("vm.boot.mem.")}
assert set(mem) == {"vm.boot.mem.1024mib.s", "vm.boot.mem.512mib.s"}, sorted(mem)
assert mem["vm.boot.mem.1024mib.s"]["samples"] == boot["samples"], mem
assert len(mem["vm.boot.mem.512mib.s"]["samples"]) == 1 and 0 < mem["vm.boot.mem.512mib.s"]["samples"][0] < 240, mem
assert "TCG" in mem["vm.boot.mem.512mib.s"]["note"], mem
print("%.1f" % boot["samples"][0])
PY
) || fail "result files"
grep -q '^suite\[vm-regular-tcg\]: booting VM vm-regular-tcg again with 512 MiB (boot time by memory)$' "$WORK/run.err" ||
  fail "no second boot line"
"$TB" results list --db "$DB" >"$WORK/list" || fail "results list"
[ "$(grep -cE ' (host|vm-regular-tcg) +[A-Za-z-]+ +custom +complete' "$WORK/list")" = 2 ] ||
  fail "both runs stored: $(cat "$WORK/list")"
pass "host and vm-regular-tcg in one command: stored, compared, VM stopped (boot $BOOT s, $((T1_END - T1)) s)"

# ---- 2. --target g=vm:g1: a VM started with teebench vm start ----
"$TB" vm start g1 "${boot[@]}" --cpus 1 --memory 1G --dir "$RUN" >"$WORK/start.out" 2>"$WORK/start.err" ||
  fail "vm start: $(cat "$WORK/start.err")"
G1_PID=$(sed -n 's/^vm g1 (regular, TCG EMULATION): QEMU pid \([0-9]*\),.*/\1/p' "$WORK/start.out")
[ -n "$G1_PID" ] || fail "vm start's pid: $(cat "$WORK/start.out")"
"$TB" vm show g1 --json --dir "$RUN" >"$WORK/g1.json"
"$TB" suite run --profile quick --workloads probe --repeat 1 --set probe.probes=getpid \
  --set probe.max_reps=500 --target g=vm:g1 --vm-dir "$RUN" --db "$DB" -o "$WORK/res2" \
  --progress plain >"$WORK/t.out" 2>"$WORK/t.err" || fail "suite --target g=vm:g1: $(tail -n 3 "$WORK/t.err")"
python3 - "$WORK/res2/g.json" "$WORK/g1.json" <<'PY' || fail "g's record lacks g1's boot time"
import json, sys
r, st = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
boot = [m for m in r["metrics"] if m["name"] == "vm.boot.s"][0]
assert boot["samples"] == [st["boot_ns"] / 1e9], (boot["samples"], st["boot_ns"])
assert r["extra"]["vm"]["name"] == "g1" and r["extra"]["vm"]["accel"] == "tcg", r["extra"]["vm"]
PY
grep -q "NOTE: vm:g1 runs under TCG" "$WORK/t.err" || fail "no TCG note for vm:g1"
if gone "$G1_PID"; then fail "the suite stopped a VM it did not start"; fi
"$TB" vm stop g1 --dir "$RUN" --timeout 30 >/dev/null || fail "vm stop g1"
pass "--target g=vm:g1: the VM's boot time from its state, the VM left running"

# ---- 3. Ctrl-C while the guest boots ----
"$TB" suite run --profile quick --workloads probe --repeat 1 --set probe.probes=getpid \
  --set probe.max_reps=200 --vm-kinds regular "${vm[@]}" --progress plain \
  >"$WORK/i1.out" 2>"$WORK/i1.err" &
pid=$!
PIDFILE=$RUN/vm-regular-tcg/qemu.pid
for _ in $(seq 300); do [ -s "$PIDFILE" ] && break; sleep 0.1; done
[ -s "$PIDFILE" ] || fail "the VM did not start: $(cat "$WORK/i1.err")"
QPID=$(cat "$PIDFILE")
sleep 1
grep -q 'booted in' "$WORK/i1.err" && fail "booted within a second: cannot interrupt the boot"
kill -INT $pid
T_INT=$(date +%s)
rc=0; wait $pid || rc=$?
[ $rc = 130 ] || fail "Ctrl-C during the boot exits 130, got $rc: $(cat "$WORK/i1.err")"
[ $(($(date +%s) - T_INT)) -le 10 ] || fail "Ctrl-C took more than 10 s to end the boot"
grep -q "^teebench: suite: vm-regular-tcg: starting VM vm-regular-tcg: interrupted" "$WORK/i1.err" ||
  fail "the interrupted boot is not said: $(cat "$WORK/i1.err")"
gone "$QPID" || fail "QEMU $QPID still runs after Ctrl-C during the boot"
[ ! -e "$RUN/vm-regular-tcg/vm.json" ] || fail "an interrupted boot left vm.json"
pass "Ctrl-C while the guest boots: QEMU killed, nothing left"

# ---- 4. Ctrl-C while the suite runs inside the guest ----
"$TB" suite run --profile quick --workloads syscall --repeat 40 --set syscall.duration=0.1 \
  --set syscall.passes=1 --set syscall.copies=1 --vm-kinds regular "${vm[@]}" -o "$WORK/int" \
  --progress plain >"$WORK/i2.out" 2>"$WORK/i2.err" &
pid=$!
for _ in $(seq 1800); do grep -q '^suite\[vm-regular-tcg\] .*round 2/40' "$WORK/i2.err" 2>/dev/null && break; sleep 0.1; done
grep -q '^suite\[vm-regular-tcg\] .*round 2/40' "$WORK/i2.err" || fail "the suite did not run in the guest: $(tail -n 5 "$WORK/i2.err")"
kill -INT $pid
rc=0; wait $pid || rc=$?
[ $rc = 130 ] || fail "Ctrl-C during the guest's suite exits 130, got $rc: $(tail -n 3 "$WORK/i2.err")"
QPID=$(sed -n 's/^suite\[vm-regular-tcg\]: VM vm-regular-tcg (QEMU pid \([0-9]*\)) .*/\1/p' "$WORK/i2.err")
[ -n "$QPID" ] || fail "the VM was not stopped after Ctrl-C: $(tail -n 5 "$WORK/i2.err")"
gone "$QPID" || fail "QEMU $QPID still runs after Ctrl-C"
python3 - "$WORK/int/vm-regular-tcg.json" <<'PY' || fail "the interrupted guest's record"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "interrupted", r["status"]
names = {m["name"] for m in r["metrics"]}
assert "vm.boot.s" in names and "syscall.c1.lps" in names, names
PY
pass "Ctrl-C while the suite runs in the guest: the interrupted record kept, the VM stopped"
T_END=$(date +%s)
pass "slow_suite_vm (guest build $((T_BUILD - T0)) s, whole test $((T_END - T0)) s)"
