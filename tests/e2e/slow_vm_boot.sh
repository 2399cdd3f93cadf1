#!/usr/bin/env bash
# Boots a real guest with `teebench vm start --accel tcg` (KVM guests hang on nested
# development VMs, TCG runs anywhere), then runs teebench inside it over SSH:
# `teebench env` must see a VM under the TCG hypervisor, and
# `teebench syscall --duration 1 --passes 3` must give its index; `vm stop` powers the
# guest off through QMP. Slow (tens of seconds): its name starts with slow_ so that
# sanitizer stages can leave it out.
#
# The guest is built here from Debian packages, nothing installed on the host:
# - the kernel: Debian's cloud kernel package (apt-get download + dpkg-deb -x), with
#   the virtio, fw_cfg and ACPI button modules it needs; cached in the build dir
#   (vm-guest/) so repeated runs skip the download;
# - the initramfs (made fresh each run, in $WORK): busybox-static, dropbear (SSH
#   server) and this build's teebench, each with the shared libraries ldd names, and
#   an /init that links busybox's applets, loads the modules, configures user-mode networking, takes the SSH
#   key teebench offers through fw_cfg, runs busybox acpid (power button ->
#   poweroff) and dropbear.
# Skipped (exit 77) where QEMU, busybox-static, dropbear or ssh is missing or the
# Debian kernel package cannot be downloaded.
source "$(dirname "$0")/lib.sh"
T0=$(date +%s)

skip() { echo "skipped: $*"; exit 77; }
QEMU=qemu-system-x86_64
command -v "$QEMU" >/dev/null || skip "$QEMU not installed (scripts/setup.sh --test)"
"$QEMU" --version >/dev/null 2>&1 || skip "$QEMU does not run here"
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || skip "busybox-static not installed"
DROPBEAR=$(command -v dropbear || true)
[ -n "$DROPBEAR" ] || DROPBEAR=/usr/sbin/dropbear
[ -x "$DROPBEAR" ] || skip "dropbear-bin not installed (scripts/setup.sh --test)"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || skip "openssh-client missing"
command -v dpkg-deb >/dev/null && command -v apt-get >/dev/null || skip "not a Debian system"

# ---- the kernel (cached: any cloud kernel will do, so a cached one is used as is) ----
CACHE=${TEEBENCH_VM_CACHE:-$(dirname "$TB")/vm-guest}
MODULES="virtio_pci virtio_net qemu_fw_cfg button evdev"
PKG=$(cat "$CACHE/package" 2>/dev/null || true)
if [ -z "$PKG" ] || [ ! -s "$CACHE/$PKG/vmlinuz" ] || [ ! -s "$CACHE/$PKG/modules.order" ]; then
  PKG=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
    awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  [ -n "$PKG" ] || skip "no Debian package lists for linux-image-cloud-amd64 (apt-get update)"
  mkdir -p "$WORK/deb" "$CACHE"
  (cd "$WORK/deb" && apt-get download "$PKG" >"$WORK/apt.log" 2>&1) ||
    skip "cannot download $PKG: $(tail -n 1 "$WORK/apt.log")"
  dpkg-deb -x "$WORK/deb"/"$PKG"_*.deb "$WORK/deb/x"
  KDIR=$(echo "$WORK"/deb/x/lib/modules/*)
  NEW=$WORK/deb/cache
  mkdir -p "$NEW"
  cp "$WORK"/deb/x/boot/vmlinuz-* "$NEW/vmlinuz"
  # each module after the modules it depends on (their "depends=" modinfo field)
  order=""
  add_module() {
    local m=$1 f d x
    case " $order " in *" $m "*) return ;; esac
    f=$(find "$KDIR" -name "$m.ko" | head -n 1)
    [ -n "$f" ] || fail "module $m not in $PKG"
    d=$(grep -a -o -m 1 'depends=[a-z0-9_,-]*' "$f" | head -n 1 | cut -d= -f2)
    for x in ${d//,/ }; do add_module "$x"; done
    cp "$f" "$NEW/"
    order="$order $m"
  }
  for m in $MODULES; do add_module "$m"; done
  echo "$order" >"$NEW/modules.order"
  rm -rf "${CACHE:?}/$PKG.tmp"
  mv "$NEW" "$CACHE/$PKG.tmp" && rm -rf "${CACHE:?}/$PKG" && mv "$CACHE/$PKG.tmp" "$CACHE/$PKG"
  echo "$PKG" >"$CACHE/package"
  rm -rf "$WORK/deb"
fi
KERNEL=$CACHE/$PKG/vmlinuz

# ---- the initramfs ----
R=$WORK/root
mkdir -p "$R"/{bin,sbin,etc/dropbear,etc/acpi/PWRF,proc,sys,dev,tmp,run,root/.ssh,lib/modules,var/log}
# copy_bin SRC DST: a binary and the shared libraries ldd names, at their own paths
copy_bin() {
  local lib
  mkdir -p "$(dirname "$R$2")"
  cp -L "$1" "$R$2"
  for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
    mkdir -p "$(dirname "$R$lib")"
    [ -e "$R$lib" ] || cp -L "$lib" "$R$lib"
  done
}
copy_bin "$BUSYBOX" /bin/busybox # /init links the applets (one process instead of 400 ln)
ln -s busybox "$R/bin/sh"
copy_bin "$DROPBEAR" /sbin/dropbear
copy_bin "$TB" /bin/teebench
cp "$CACHE/$PKG"/*.ko "$R/lib/modules/"
cp "$CACHE/$PKG/modules.order" "$R/etc/modules"
echo 'root:x:0:0:root:/root:/bin/sh' >"$R/etc/passwd"
echo 'root:x:0:' >"$R/etc/group"
echo /bin/sh >"$R/etc/shells"
printf '#!/bin/sh\n/bin/poweroff -f\n' >"$R/etc/acpi/PWRF/00000080"
cat >"$R/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
for m in $(cat /etc/modules); do insmod /lib/modules/$m.ko; done
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
k=/sys/firmware/qemu_fw_cfg/by_name/opt/teebench/authorized_keys/raw
cat $k >/root/.ssh/authorized_keys
chmod 700 /root /root/.ssh
chmod 600 /root/.ssh/authorized_keys
acpid
dropbear -R -s -p 22
echo "teebench-guest: ready"
while :; do sleep 3600; done
EOF
chmod +x "$R/init" "$R/etc/acpi/PWRF/00000080"
(cd "$R" && find . | cpio -o -H newc --quiet) >"$WORK/initrd.cpio" # uncompressed: boots as fast
T_BUILD=$(date +%s)

# ---- boot, run, stop ----
RUN=$WORK/vm
stop_vm() {
  "$TB" vm stop g1 --dir "$RUN" --timeout 10 >/dev/null 2>&1 || true
  _tb_cleanup
}
trap stop_vm EXIT
"$TB" vm start g1 --kernel "$KERNEL" --initrd "$WORK/initrd.cpio" --append quiet \
  --cpus 1 --memory 1G --accel tcg --firmware none --vsock off --boot-timeout 240 \
  --dir "$RUN" >"$WORK/start.out" 2>"$WORK/start.err" ||
  fail "vm start: $(cat "$WORK/start.err"); serial log: $(tail -n 20 "$RUN/g1/serial.log" 2>/dev/null)"
cat "$WORK/start.err" "$WORK/start.out"
grep -q "NOTE: TCG EMULATION (--accel tcg)" "$WORK/start.err" || fail "no loud TCG note"
grep -Eq "^booted in [0-9]+\.[0-9] s \(first SSH answer\)$" "$WORK/start.out" ||
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
