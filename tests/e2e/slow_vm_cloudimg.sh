#!/usr/bin/env bash
# A stock-like cloud image, provisioned by teebench alone, end to end under TCG (KVM
# guests hang on nested development VMs; QEMU 7.2 here):
# 1. `teebench vm image --stock` builds it from Debian packages with mmdebstrap --
#    systemd, cloud-init, openssh-server, a kernel, nginx; a GPT disk with its own
#    bootloader (systemd-boot on an EFI system partition, booted by the default OVMF);
#    qcow2 under a .img name; no key and no password in it. (Plus libjansson4 and
#    liblua5.4-0: the libraries this dynamically linked teebench needs there, until
#    the remote copy is a static build.) Cached in the build dir (vm-guest/, or
#    $TEEBENCH_VM_CACHE) with the downloaded packages, so a second run skips the build.
# 2. `teebench vm start` boots it with no other help: the format read from the file
#    (qcow2, whatever its name), SSH through the cloud-init seed teebench writes;
#    booted = the first `ssh true` that ran. Inside: cloud-init's datasource is
#    NoCloud on the seed, root has no password.
# 3. `suite run --target g=vm:NAME --target host=local --profile quick --workloads
#    syscall,probe,http` stores a run with nginx rows from the guest and compares it
#    with this machine; then the VM is stopped and nothing is left running.
# Prints the time of each part. Skipped (exit 77) without root, QEMU, OVMF, the image
# tools or the Debian mirror.
source "$(dirname "$0")/lib.sh"
T0=$(date +%s)
[ "$(id -u)" = 0 ] || skip "building an image needs root (mmdebstrap's root mode)"
for t in qemu-system-x86_64 qemu-img mmdebstrap mkfs.ext4 mkfs.vfat mcopy sfdisk ssh ssh-keygen; do
  command -v "$t" >/dev/null || skip "$t not installed (scripts/setup.sh --test)"
done
[ -r /usr/share/ovmf/OVMF.fd ] || skip "no OVMF firmware (Debian's ovmf)"
# the mirror this machine's apt uses (deb822 URIs: or a one-line deb entry)
MIRROR=$({ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
  2>/dev/null || true; } | { grep -Eo 'https?://[^ ]+/debian/?( |$)' || true; } | head -n 1 | tr -d ' ')
[ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian

CACHE=${TEEBENCH_VM_CACHE:-$(dirname "$TB")/vm-guest}
mkdir -p "$CACHE"
IMG_ARGS=(--stock --suite bookworm --mirror "$MIRROR" --include libjansson4,liblua5.4-0 --size 3G)
# the image is rebuilt when what vm image runs changes (its command line and hook)
KEY=$("$TB" vm image "${IMG_ARGS[@]}" -o /cloudimg.img --print | sha256sum | cut -c1-12)
IMG=$CACHE/cloudimg-$KEY.img
if [ ! -s "$IMG" ]; then
  rm -f "$CACHE"/cloudimg-*.img
  "$TB" vm image "${IMG_ARGS[@]}" --apt-cache "$CACHE/apt" -o "$IMG" >"$WORK/image.out" 2>"$WORK/image.err" ||
    { grep -q "Temporary failure resolving\|Could not resolve\|Failed to fetch\|Unable to connect" \
        "$WORK/image.err" "$CACHE"/.teebench-image.*/build.log 2>/dev/null &&
        skip "the Debian mirror $MIRROR cannot be reached: $(tail -n 1 "$WORK/image.err")"
      fail "vm image: $(cat "$WORK/image.err")"; }
  cat "$WORK/image.out"
fi
T_IMAGE=$(date +%s)
qemu-img info "$IMG" | grep -q '^file format: qcow2$' || fail "the image is not a qcow2: $(qemu-img info "$IMG")"
case "$IMG" in *.img) ;; *) fail "the image must have a .img name" ;; esac
pass "a stock-like cloud image: qcow2 under a .img name ($(du -m "$IMG" | cut -f1) MiB, $((T_IMAGE - T0)) s)"

# ---- boot it with nothing but teebench ----
RUN=$WORK/vm
DB=$WORK/results.db
stop_all() {
  "$TB" vm stop c1 --dir "$RUN" --timeout 20 >/dev/null 2>&1 || true
  _tb_cleanup
}
trap stop_all EXIT
# --snapshot keeps the cached image as it was built; --accel tcg: no usable KVM here
"$TB" vm start c1 --image "$IMG" --snapshot --accel tcg --cpus 2 --memory 1G --boot-timeout 400 \
  --dir "$RUN" >"$WORK/start.out" 2>"$WORK/start.err" ||
  fail "vm start: $(cat "$WORK/start.err"); serial log: $(tail -n 20 "$RUN/c1/serial.log" 2>/dev/null)"
T_BOOT=$(date +%s)
cat "$WORK/start.out"
grep -Eq "^booted in [0-9]+\.[0-9] s \(first SSH login\)$" "$WORK/start.out" ||
  fail "no boot time: $(cat "$WORK/start.out")"
"$TB" vm show c1 --json --dir "$RUN" >"$WORK/show.json"
grep -q -- '-drive file=[^,]*cloudimg-[0-9a-f]*\.img,if=none,id=disk0,format=qcow2,snapshot=on' \
  <(tr -d '\n' <"$WORK/show.json" | sed 's/", *"/ /g') || fail "the image was not opened as qcow2: $(cat "$WORK/show.json")"
grep -q 'seed.iso' "$WORK/show.json" || fail "no seed attached"
# (one word: ssh hands the command line to the guest's shell as it is)
"$TB" vm ssh c1 --dir "$RUN" -- 'cat /var/lib/cloud/instance/datasource; echo;
  awk -F: "\$1 == \"root\" {print \"root-password:\" \$2}" /etc/shadow; hostname' \
  >"$WORK/inside.out" 2>"$WORK/ssh.err" || fail "vm ssh: $(cat "$WORK/ssh.err")"
cat "$WORK/inside.out"
grep -q 'DataSourceNoCloud.*\[seed=/dev/vd[a-z]\]' "$WORK/inside.out" ||
  fail "cloud-init did not take teebench's seed: $(cat "$WORK/inside.out")"
grep -Eq '^root-password:[*!]' "$WORK/inside.out" || fail "root has a password: $(cat "$WORK/inside.out")"
grep -qx 'c1' "$WORK/inside.out" || fail "the seed's local-hostname was not applied"
pass "vm start booted it with nothing but its seed ($((T_BOOT - T_IMAGE)) s, TCG)"

# ---- the suite in the guest, compared with this machine ----
small=(--profile quick --workloads syscall,probe,http --repeat 2 --set syscall.duration=0.2
       --set syscall.passes=2 --set probe.probes=getpid,rdtsc --set probe.max_reps=2000
       --set http.duration=1 --set http.warmup=0 --set http.connections=8 --set http.targets=nginx)
"$TB" suite run "${small[@]}" --target host=local --target g=vm:c1 --vm-dir "$RUN" --db "$DB" \
  -o "$WORK/res" --progress plain >"$WORK/suite.out" 2>"$WORK/suite.err" ||
  fail "suite run: $(grep -E ': (failed|skipped)' "$WORK/suite.err" | head -5; grep -A12 '^== ' "$WORK/suite.out" | grep -Ei 'fail|skip' | head -5; tail -n 8 "$WORK/suite.err")"
T_SUITE=$(date +%s)
cat "$WORK/suite.out"
python3 - "$WORK/res" <<'PY' || fail "the guest's record"
import json, os, sys
g = json.load(open(os.path.join(sys.argv[1], "g.json")))
h = json.load(open(os.path.join(sys.argv[1], "host.json")))
assert g["status"] == "complete", g["status"]
m = {x["name"]: x for x in g["metrics"]}
rps = [n for n in m if n.startswith("http.nginx.") and n.endswith(".rps") or n == "http.nginx.rps"]
assert rps, sorted(m)
assert min(m[rps[0]]["samples"]) > 0, m[rps[0]]
assert "syscall.c1.lps" in m and "probe.getpid.ns" in m, sorted(m)
assert "vm.boot.s" in m, sorted(m)
# a systemd guest: the phases from its uptime, kernel log and systemd-analyze, summing to
# vm.boot.s (userspace absorbs ssh when the boot target came after the login)
ph = [n for n in ("vm.boot.firmware.s", "vm.boot.kernel.s", "vm.boot.userspace.s", "vm.boot.ssh.s") if n in m]
assert ph[:3] == ["vm.boot.firmware.s", "vm.boot.kernel.s", "vm.boot.userspace.s"], (ph, g["extra"]["vm"].get("boot_phases"))
assert abs(sum(m[n]["samples"][0] for n in ph) - m["vm.boot.s"]["samples"][0]) < 1e-6, ph
assert g["env"]["platform"]["value"] == "vm", g["env"]["platform"]
assert h["env"]["platform"]["value"] != "vm" or h["label"] == "host", h["env"]["platform"]
print("nginx in the guest:", rps[0], m[rps[0]]["samples"])
PY
grep -q '^== comparison (baseline host)' "$WORK/suite.out" || fail "no comparison: $(cat "$WORK/suite.out")"
grep -Eq '^http\.nginx\.[a-z.]*rps +' "$WORK/suite.out" || fail "no nginx row in the comparison"
"$TB" compare host g --db "$DB" >"$WORK/compare.out" 2>"$WORK/compare.err" ||
  fail "compare host g: $(cat "$WORK/compare.err")"
grep -Eq '^http\.nginx\.' "$WORK/compare.out" || fail "compare: $(cat "$WORK/compare.out")"
pass "suite run in the guest: nginx rows, stored and compared with the host ($((T_SUITE - T_BOOT)) s)"

PID=$(sed -n 's/^state       running (QEMU pid \([0-9]*\))$/\1/p' < <("$TB" vm show c1 --dir "$RUN"))
"$TB" vm stop c1 --dir "$RUN" --timeout 60 >"$WORK/stop.out" || fail "vm stop"
cat "$WORK/stop.out"
state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$PID/status" 2>/dev/null || true)
[ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ] || fail "QEMU $PID still runs after vm stop"
T_END=$(date +%s)
pass "slow_vm_cloudimg: image $((T_IMAGE - T0)) s, boot $((T_BOOT - T_IMAGE)) s, suite $((T_SUITE - T_BOOT)) s, stop $((T_END - T_SUITE)) s, whole $((T_END - T0)) s"
