#!/usr/bin/env bash
# Boots a real guest with `teebench vm start --accel tcg` (KVM guests hang on nested
# development VMs, TCG runs anywhere), then runs teebench inside it over SSH:
# `teebench env` must see a VM under the TCG hypervisor, and
# `teebench syscall --duration 1 --passes 3` must give its index; `vm stop` powers the
# guest off through QMP. Slow (tens of seconds): its name starts with slow_ so that
# sanitizer stages can leave it out.
#
# The guest (a Debian cloud kernel, an initramfs with busybox, dropbear and this
# teebench) is built by tests/e2e/lib_vmguest.sh; skipped (exit 77) where QEMU,
# busybox-static, dropbear or ssh is missing or the Debian kernel package cannot be
# downloaded.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_vmguest.sh"
T0=$(date +%s)
vmguest_build
KERNEL=$GUEST_KERNEL
T_BUILD=$(date +%s)

# ---- boot, run, stop ----
RUN=$WORK/vm
stop_vm() {
  "$TB" vm stop g1 --dir "$RUN" --timeout 10 >/dev/null 2>&1 || true
  "$TB" vm stop g2 --dir "$RUN" --timeout 5 >/dev/null 2>&1 || true
  _tb_cleanup
}
trap stop_vm EXIT
"$TB" vm start g1 --kernel "$KERNEL" --initrd "$GUEST_INITRD" --append quiet \
  --cpus 1 --memory 1G --accel tcg --firmware none --vsock off --boot-timeout 240 \
  --dir "$RUN" >"$WORK/start.out" 2>"$WORK/start.err" ||
  fail "vm start: $(cat "$WORK/start.err"); serial log: $(tail -n 20 "$RUN/g1/serial.log" 2>/dev/null)"
cat "$WORK/start.err" "$WORK/start.out"
grep -q "NOTE: TCG EMULATION (--accel tcg)" "$WORK/start.err" || fail "no loud TCG note"
grep -Eq "^booted in [0-9]+\.[0-9] s \(first SSH login\)$" "$WORK/start.out" ||
  fail "no boot time: $(cat "$WORK/start.out")"
"$TB" vm show g1 --json --dir "$RUN" >"$WORK/show.json"
grep -q '"tcg": true' "$WORK/show.json" || fail "state lacks tcg: true"
grep -Eq '"boot_ns": [1-9][0-9]{8,},' "$WORK/show.json" || fail "state lacks boot_ns"
grep -q '"running": true' "$WORK/show.json" || fail "vm show: not running"
"$TB" vm list --dir "$RUN" >"$WORK/list.out"
cat "$WORK/list.out"
grep -Eq "^g1 +regular +TCG +running " "$WORK/list.out" || fail "vm list: $(cat "$WORK/list.out")"
pass "booted under TCG"

"$TB" vm ssh g1 --dir "$RUN" -- teebench env --json >"$WORK/env.json" 2>"$WORK/ssh.err" ||
  fail "teebench env in the guest: $(cat "$WORK/ssh.err")"
"$TB" vm ssh g1 --dir "$RUN" -- teebench env >"$WORK/env.txt" 2>&1 || fail "teebench env (text)"
head -n 2 "$WORK/env.txt"
tr -d ' \n' <"$WORK/env.json" >"$WORK/env.flat"
grep -q '"platform":{"value":"vm"' "$WORK/env.flat" ||
  fail "the guest is not a VM to itself: $(head -c 400 "$WORK/env.json")"
grep -q '"hypervisor":{"value":"QEMUTCG"' "$WORK/env.flat" ||
  fail "the guest does not see TCG: $(head -c 600 "$WORK/env.json")"
[ -s "$RUN/g1/known_hosts" ] || fail "the guest's host key was not recorded"
pass "teebench env in the guest: a VM under QEMU TCG"

# What Linux's isofs makes of teebench's cloud-init seed (the only disk of this guest):
# Rock Ridge names by default, Joliet's with norock, bare ISO 9660 level 1 names with both off.
# (one word: ssh hands the command line to the guest's shell as it is)
"$TB" vm ssh g1 --dir "$RUN" -- 'mkdir -p /mnt/s && for o in ro ro,norock ro,norock,nojoliet; do
  mount -t iso9660 -o $o /dev/vda /mnt/s && echo "== $o" && ls /mnt/s && umount /mnt/s; done;
  mount -t iso9660 -o ro /dev/vda /mnt/s && cat /mnt/s/user-data /mnt/s/meta-data && umount /mnt/s' \
  >"$WORK/seed.out" 2>"$WORK/ssh.err" || fail "mounting the seed in the guest: $(cat "$WORK/ssh.err")"
cat "$WORK/seed.out"
python3 - "$WORK/seed.out" "$RUN/g1/id_ed25519.pub" <<'PY' || fail "the seed as Linux sees it"
import sys
text = open(sys.argv[1]).read()
key = open(sys.argv[2]).read().strip()
blocks = dict((b.split("\n", 1)[0], b.split("\n", 1)[1].split()) for b in text.split("== ")[1:])
assert blocks["ro"][:2] == ["meta-data", "user-data"], blocks["ro"]
assert blocks["ro,norock"][:2] == ["meta-data", "user-data"], blocks["ro,norock"]
assert blocks["ro,norock,nojoliet"][:2] == ["meta_dat", "user_dat"], blocks["ro,norock,nojoliet"]
assert "#cloud-config" in text and "disable_root: false" in text and key in text, text
assert "local-hostname: g1" in text and "instance-id: teebench-g1-" in text, text
PY
pass "the seed in a Linux guest: user-data and meta-data (Rock Ridge, and Joliet with norock)"

"$TB" vm ssh g1 --dir "$RUN" -- teebench syscall --duration 1 --passes 3 >"$WORK/syscall.out" \
  2>"$WORK/ssh.err" || fail "teebench syscall in the guest: $(cat "$WORK/ssh.err")"
cat "$WORK/syscall.out"
grep -Eq "^System Call Overhead +15000\.0 +[0-9.]+ +[0-9.]+$" "$WORK/syscall.out" ||
  fail "no syscall index: $(cat "$WORK/syscall.out")"
pass "teebench syscall in the guest"

PID=$(sed -n 's/^state       running (QEMU pid \([0-9]*\))$/\1/p' < <("$TB" vm show g1 --dir "$RUN"))
[ -n "$PID" ] || fail "no QEMU pid"
"$TB" vm stop g1 --dir "$RUN" --timeout 60 >"$WORK/stop.out" || fail "vm stop"
cat "$WORK/stop.out"
grep -q "stopped: the guest powered off (QMP system_powerdown)" "$WORK/stop.out" ||
  fail "the guest did not power off cleanly: $(cat "$WORK/stop.out")"
# gone, or a zombie its new parent (init or a subreaper) has not reaped yet
state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$PID/status" 2>/dev/null || true)
[ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ] || fail "QEMU $PID still runs after vm stop"
[ ! -e "$RUN/g1/qmp.sock" ] || fail "qmp.sock left behind"
"$TB" vm list --dir "$RUN" | grep -Eq "^g1 +regular +TCG +stopped " || fail "vm list after stop"
T_END=$(date +%s)
pass "stopped through QMP system_powerdown (guest build $((T_BUILD - T0)) s, whole test $((T_END - T0)) s)"

# ---- a guest that takes no key (no cloud-init, no fw_cfg reader): one clear line
# within the boot timeout, naming the three ways, nothing left running ----
T0=$(date +%s)
rc=0
"$TB" vm start g2 --kernel "$KERNEL" --initrd "$GUEST_INITRD" --append "quiet teebench.nokey" \
  --cpus 1 --memory 1G --accel tcg --firmware none --vsock off --boot-timeout 30 \
  --dir "$RUN" >"$WORK/nokey.out" 2>"$WORK/nokey.err" || rc=$?
T1=$(date +%s)
[ $rc -eq 1 ] || fail "a guest without a key: exit $rc: $(cat "$WORK/nokey.err")"
[ $((T1 - T0)) -le 45 ] || fail "a guest without a key took $((T1 - T0)) s to fail (boot timeout 30 s)"
grep -v '^teebench: vm: NOTE: ' "$WORK/nokey.err" >"$WORK/nokey.line"
[ "$(wc -l <"$WORK/nokey.line")" -eq 1 ] || fail "not one line: $(cat "$WORK/nokey.err")"
grep -q "^teebench: vm: start g2: the guest's sshd on 127.0.0.1:[0-9]* refused the VM's key for root for [0-9]* s (ssh: .*Permission denied (publickey).*): give the guest a key one of three ways -- an image with cloud-init (it reads the seed teebench attaches), a guest that reads the fw_cfg file opt/teebench/authorized_keys, or --ssh-key KEY (and --ssh-user) of a key the image already accepts$" \
  "$WORK/nokey.line" || fail "a guest without a key: $(cat "$WORK/nokey.line")"
[ ! -e "$RUN/g2/vm.json" ] || fail "a failed start left vm.json"
[ ! -e "$RUN/g2/qmp.sock" ] || fail "a failed start left qmp.sock"
pass "a guest that takes no key: one line within the boot timeout ($((T1 - T0)) s)"
