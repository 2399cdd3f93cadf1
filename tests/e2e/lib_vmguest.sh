# Shared by the e2e tests that boot a real guest (sourced after lib.sh; not a test
# itself: ctest skips tests/e2e/lib*.sh). `vmguest_build` makes a bootable guest and
# sets GUEST_KERNEL and GUEST_INITRD; it skips the test (exit 77) where QEMU,
# busybox-static, dropbear or ssh is missing or the Debian kernel package cannot be
# downloaded. Boot it with `teebench vm start ... --kernel "$GUEST_KERNEL" --initrd
# "$GUEST_INITRD" --accel tcg --firmware none --vsock off` (KVM guests hang on nested
# development VMs, TCG runs anywhere).
#
# The guest is built from Debian packages, nothing installed on the host:
# - the kernel: Debian's cloud kernel package (apt-get download + dpkg-deb -x), with
#   the virtio, fw_cfg and ACPI button modules it needs; cached in the build dir
#   (vm-guest/, or $TEEBENCH_VM_CACHE) so repeated runs skip the download;
# - the initramfs (made fresh each run, in $WORK): busybox-static, dropbear (SSH
#   server) and this build's teebench, each with the shared libraries ldd names, and
#   an /init that links busybox's applets, loads the modules, configures user-mode
#   networking, takes the SSH key teebench offers through fw_cfg (unless the kernel
#   command line says teebench.nokey), runs busybox acpid (power button -> poweroff)
#   and dropbear.

# vmguest_need: skips unless QEMU, busybox-static, dropbear, ssh and apt are here.
vmguest_need() {
  VMGUEST_QEMU=qemu-system-x86_64
  command -v "$VMGUEST_QEMU" >/dev/null || skip "$VMGUEST_QEMU not installed (scripts/setup.sh --test)"
  "$VMGUEST_QEMU" --version >/dev/null 2>&1 || skip "$VMGUEST_QEMU does not run here"
  VMGUEST_BUSYBOX=/bin/busybox
  [ -x "$VMGUEST_BUSYBOX" ] || skip "busybox-static not installed"
  VMGUEST_DROPBEAR=$(command -v dropbear || true)
  [ -n "$VMGUEST_DROPBEAR" ] || VMGUEST_DROPBEAR=/usr/sbin/dropbear
  [ -x "$VMGUEST_DROPBEAR" ] || skip "dropbear-bin not installed (scripts/setup.sh --test)"
  command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || skip "openssh-client missing"
  command -v dpkg-deb >/dev/null && command -v apt-get >/dev/null || skip "not a Debian system"
}

# vmguest_kernel: sets GUEST_KERNEL and VMGUEST_MODDIR (the cached kernel and its
# modules, downloaded once; any cloud kernel will do, so a cached one is used as is).
vmguest_kernel() {
  local cache=${TEEBENCH_VM_CACHE:-$(dirname "$TB")/vm-guest}
  # virtio_blk and isofs: the guest mounts teebench's cloud-init seed (slow_vm_boot.sh)
  local modules="virtio_pci virtio_net qemu_fw_cfg button evdev virtio_blk isofs"
  local pkg
  pkg=$(cat "$cache/package" 2>/dev/null || true)
  if [ -z "$pkg" ] || [ ! -s "$cache/$pkg/vmlinuz" ] || [ ! -s "$cache/$pkg/modules.order" ] ||
    [ "$(cat "$cache/$pkg/modules.wanted" 2>/dev/null)" != "$modules" ]; then
    pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
      awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    [ -n "$pkg" ] || skip "no Debian package lists for linux-image-cloud-amd64 (apt-get update)"
    mkdir -p "$WORK/deb" "$cache"
    (cd "$WORK/deb" && apt-get download "$pkg" >"$WORK/apt.log" 2>&1) ||
      skip "cannot download $pkg: $(tail -n 1 "$WORK/apt.log")"
    dpkg-deb -x "$WORK/deb"/"$pkg"_*.deb "$WORK/deb/x"
    local kdir new m
    kdir=$(echo "$WORK"/deb/x/lib/modules/*)
    new=$WORK/deb/cache
    mkdir -p "$new"
    cp "$WORK"/deb/x/boot/vmlinuz-* "$new/vmlinuz"
    # each module after the modules it depends on (their "depends=" modinfo field)
    _vmguest_order=""
    _vmguest_add_module() {
      local m=$1 f d x
      case " $_vmguest_order " in *" $m "*) return ;; esac
      f=$(find "$kdir" -name "$m.ko" | head -n 1)
      [ -n "$f" ] || fail "module $m not in $pkg"
      d=$(grep -a -o -m 1 'depends=[a-z0-9_,-]*' "$f" | head -n 1 | cut -d= -f2)
      for x in ${d//,/ }; do _vmguest_add_module "$x"; done
      cp "$f" "$new/"
      _vmguest_order="$_vmguest_order $m"
    }
    for m in $modules; do _vmguest_add_module "$m"; done
    echo "$_vmguest_order" >"$new/modules.order"
    echo "$modules" >"$new/modules.wanted"
    rm -rf "${cache:?}/$pkg.tmp"
    mv "$new" "$cache/$pkg.tmp" && rm -rf "${cache:?}/$pkg" && mv "$cache/$pkg.tmp" "$cache/$pkg"
    echo "$pkg" >"$cache/package"
    rm -rf "$WORK/deb"
  fi
  VMGUEST_MODDIR=$cache/$pkg
  GUEST_KERNEL=$VMGUEST_MODDIR/vmlinuz
}

# vmguest_initrd: builds $WORK/initrd.cpio (needs vmguest_kernel's modules); sets GUEST_INITRD.
vmguest_initrd() {
  local r=$WORK/root
  mkdir -p "$r"/{bin,sbin,etc/dropbear,etc/acpi/PWRF,proc,sys,dev,tmp,run,root/.ssh,lib/modules,var/log}
  # copy_bin SRC DST: a binary and the shared libraries ldd names, at their own paths
  _vmguest_copy_bin() {
    local lib
    mkdir -p "$(dirname "$r$2")"
    cp -L "$1" "$r$2"
    for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
      mkdir -p "$(dirname "$r$lib")"
      [ -e "$r$lib" ] || cp -L "$lib" "$r$lib"
    done
  }
  _vmguest_copy_bin "$VMGUEST_BUSYBOX" /bin/busybox # /init links the applets (one process instead of 400 ln)
  ln -s busybox "$r/bin/sh"
  _vmguest_copy_bin "$VMGUEST_DROPBEAR" /sbin/dropbear
  _vmguest_copy_bin "$TB" /bin/teebench
  cp "$VMGUEST_MODDIR"/*.ko "$r/lib/modules/"
  cp "$VMGUEST_MODDIR/modules.order" "$r/etc/modules"
  echo 'root:x:0:0:root:/root:/bin/sh' >"$r/etc/passwd"
  echo 'root:x:0:' >"$r/etc/group"
  echo /bin/sh >"$r/etc/shells"
  printf '#!/bin/sh\n/bin/poweroff -f\n' >"$r/etc/acpi/PWRF/00000080"
  cat >"$r/init" <<'INIT'
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
# teebench.nokey on the kernel command line: a guest that takes no key at all
grep -q teebench.nokey /proc/cmdline || cat $k >/root/.ssh/authorized_keys
chmod 700 /root /root/.ssh
chmod 600 /root/.ssh/authorized_keys
acpid
dropbear -R -s -p 22
echo "teebench-guest: ready"
while :; do sleep 3600; done
INIT
  chmod +x "$r/init" "$r/etc/acpi/PWRF/00000080"
  (cd "$r" && find . | cpio -o -H newc --quiet) >"$WORK/initrd.cpio" # uncompressed: boots as fast
  GUEST_INITRD=$WORK/initrd.cpio
}

# vmguest_build: all of the above; sets GUEST_KERNEL and GUEST_INITRD.
vmguest_build() {
  vmguest_need
  vmguest_kernel
  vmguest_initrd
}
