#!/usr/bin/env bash
# teebench vm without booting anything: the golden --dry-run command lines of the
# three kinds (one description, only --kind differs; every option's reason
# pinned; the host is the recorded Ubuntu 25.10 -- QEMU 10.1 listing both TEE
# objects -- so the lines do not depend on this machine), the exact difference
# between them, and bad input -- unknown kind, nothing to boot, missing files, a
# port in use, a name already running, a host without TDX/SNP (a fake QEMU 7.2
# whose -object help lists no TEE object) -- each one clear line with nothing
# left running. TB_UPDATE_GOLDEN=1 rewrites tests/data/vm/*.txt from the current
# output.
source "$(dirname "$0")/lib.sh"
GOLDEN=$(cd "$(dirname "$0")/../data/vm" && pwd)
HOST=$GOLDEN/hosts/ubuntu-25.10
RUN=$WORK/run

# ---- golden command lines ----
desc=(--kernel /guest/vmlinuz --initrd /guest/initrd.img --append quiet --cpus 4 --memory 16G
      --pin 2-5 --ssh-port 10022 --accel kvm --vsock on --cbitpos 51 --dir "$RUN"
      --from "$HOST" --dry-run)
for kind in regular tdx snp regular-swiotlb; do
  "$TB" vm start vm1 --kind "$kind" "${desc[@]}" --why >"$WORK/$kind.raw" 2>"$WORK/$kind.err" ||
    fail "--dry-run --kind $kind failed: $(cat "$WORK/$kind.err")"
  [ ! -s "$WORK/$kind.err" ] || fail "--dry-run --kind $kind printed notes: $(cat "$WORK/$kind.err")"
  sed "s|$RUN|@RUNDIR@|g" "$WORK/$kind.raw" >"$WORK/$kind.txt"
  if [ -n "${TB_UPDATE_GOLDEN:-}" ]; then cp "$WORK/$kind.txt" "$GOLDEN/$kind.txt"; fi
  diff -u "$GOLDEN/$kind.txt" "$WORK/$kind.txt" ||
    fail "--kind $kind: the command line differs from tests/data/vm/$kind.txt (TB_UPDATE_GOLDEN=1 to accept)"
  # the copy-pastable part is a valid shell word list; --dry-run starts nothing
  sed '/^$/,$d' "$WORK/$kind.raw" >"$WORK/$kind.cmd"
  bash -n "$WORK/$kind.cmd" || fail "--kind $kind: the printed command line is not valid shell"
done
[ ! -e "$RUN" ] || fail "--dry-run created $RUN"
pass "golden command lines of regular, tdx, snp and regular-swiotlb"

# regular-swiotlb differs from regular in the kernel command line only: swiotlb=<slabs>,force
# with the pool a TD of 16 GiB gets (6 % = 983 MiB, within [64 MiB, 1 GiB]: 503424 slabs of
# 2 KiB, whole 128-slab segments); every virtio device has iommu_platform=on in both.
diff <(sed '/^$/,$d' "$WORK/regular.txt") <(sed '/^$/,$d' "$WORK/regular-swiotlb.txt") >"$WORK/d.sw" || true
cat >"$WORK/want.sw" <<'EOF'
15c15
<   -append 'console=ttyS0 quiet' \
---
>   -append 'console=ttyS0 quiet swiotlb=503424,force' \
EOF
diff -u "$WORK/want.sw" "$WORK/d.sw" || fail "regular and regular-swiotlb differ in more than swiotlb=force"
grep -q '^-append swiotlb=503424,force: regular-swiotlb: .*mem_encrypt.c' "$WORK/regular-swiotlb.txt" ||
  fail "regular-swiotlb: the parameter lacks its reason"
"$TB" vm start vm1 --kind regular-swiotlb:256M "${desc[@]}" >"$WORK/sw256" 2>&1 || fail "regular-swiotlb:256M: $(cat "$WORK/sw256")"
grep -q "swiotlb=131072,force" "$WORK/sw256" || fail "regular-swiotlb:256M is not 131072 slabs"
code=0; "$TB" vm start vm1 --kind regular-swiotlb:1K "${desc[@]}" >"$WORK/out" 2>"$WORK/err" || code=$?
[ $code = 2 ] && grep -q "regular-swiotlb:1024B: the bounce-buffer pool must be 1M .. half" "$WORK/err" ||
  fail "a pool below 1 MiB: $code $(cat "$WORK/err")"
code=0; "$TB" vm start vm1 --kind regular-swiotlb:9G "${desc[@]}" >"$WORK/out" 2>"$WORK/err" || code=$?
[ $code = 2 ] && grep -q "regular-swiotlb:9G: the bounce-buffer pool must be 1M .. half" "$WORK/err" ||
  fail "a pool above half the memory: $code $(cat "$WORK/err")"
pass "regular-swiotlb: the regular line plus swiotlb=force (default pool: a TD's; :SIZE to choose)"

# The kinds differ in the TEE's options only: one -machine property and one -object.
diff <(sed '/^$/,$d' "$WORK/regular.txt") <(sed '/^$/,$d' "$WORK/tdx.txt") >"$WORK/d.tdx" || true
cat >"$WORK/want.tdx" <<'EOF'
7c7
<   -machine q35,kernel-irqchip=split,hpet=off,smm=off,memory-backend=ram0 \
---
>   -machine q35,kernel-irqchip=split,hpet=off,smm=off,memory-backend=ram0,confidential-guest-support=tdx0 \
11a12
>   -object '{"qom-type":"tdx-guest","id":"tdx0","sept-ve-disable":true,"quote-generation-socket":{"type":"vsock","cid":"2","port":"4050"}}' \
EOF
diff -u "$WORK/want.tdx" "$WORK/d.tdx" || fail "regular and tdx differ in more than the TEE"
diff <(sed '/^$/,$d' "$WORK/regular.txt") <(sed '/^$/,$d' "$WORK/snp.txt") >"$WORK/d.snp" || true
cat >"$WORK/want.snp" <<'EOF'
7c7
<   -machine q35,kernel-irqchip=split,hpet=off,smm=off,memory-backend=ram0 \
---
>   -machine q35,kernel-irqchip=split,hpet=off,smm=off,memory-backend=ram0,confidential-guest-support=sev0 \
11a12
>   -object sev-snp-guest,id=sev0,cbitpos=51,reduced-phys-bits=1,policy=0x30000 \
EOF
diff -u "$WORK/want.snp" "$WORK/d.snp" || fail "regular and snp differ in more than the TEE"
grep -q '^\[TEE\] -machine confidential-guest-support=tdx0: .*tdx.rst' "$WORK/tdx.txt" ||
  fail "tdx: confidential-guest-support lacks its reason"
grep -q '^-machine kernel-irqchip=split: .*must be split' "$WORK/tdx.txt" ||
  fail "tdx: kernel-irqchip=split lacks QEMU's documented requirement"
pass "the three kinds differ only in the TEE's options"

# A dry run without the host values still shows an SNP line, marked as placeholder.
"$TB" vm start s1 --kind snp --kernel /k --dir "$RUN" --dry-run --why >"$WORK/out" 2>"$WORK/err" ||
  fail "snp dry run without --cbitpos failed"
grep -q "NOTE: the line shows SSH port 2222; a real start picks a free port" "$WORK/err" ||
  fail "dry run without --ssh-port does not say the port is a stand-in"
if ! grep -q 'cbitpos=' "$WORK/out"; then fail "snp dry run lacks cbitpos"; fi
if grep -q 'PLACEHOLDER' "$WORK/err"; then
  grep -q '^\[TEE\] -object cbitpos=51: PLACEHOLDER' "$WORK/out" || fail "placeholder not marked"
fi
pass "snp dry run on any host"

# ---- bad input: one line each, exit 2 for flags, 1 for the host ----
# A fake QEMU that reports 7.2, lists no TEE object and records any launch: the checks
# below then depend on neither this machine's QEMU nor its KVM/TDX/SNP (a start never
# gets to run it).
FAKEQ=$WORK/fake-qemu
cat >"$FAKEQ" <<EOF
#!/bin/sh
if [ "\$1" = --version ]; then echo "QEMU emulator version 7.2.0 (fake)"; exit 0; fi
if [ "\$1" = -object ]; then printf 'List of user creatable objects:\n  memory-backend-ram\n  sev-guest\n'; exit 0; fi
touch "$WORK/fake-qemu-launched"
echo "qemu-system-x86_64: -netdev user,id=net0: Could not set up host forwarding rule" >&2
exit 1
EOF
chmod +x "$FAKEQ"
K=$WORK/vmlinuz
echo kernel >"$K"
# An operand an action does not take: the flag tables' wording, after the action.
for extra in "check extra" "list extra" "stop vmA extra"; do
  read -r action _ <<<"$extra"
  # shellcheck disable=SC2086
  expect_fail 2 "$TB" vm $extra --dir "$RUN"
  grep -qx "teebench: vm: $action: extra: unexpected argument" "$WORK/err" ||
    fail "vm $extra: $(cat "$WORK/err")"
done
expect_fail 2 "$TB" vm start x --kind sgx --kernel "$K" --dir "$RUN"
grep -q -- "--kind sgx: unknown kind" "$WORK/err" || fail "unknown kind: $(cat "$WORK/err")"
expect_fail 2 "$TB" vm start x --dir "$RUN"
grep -q "nothing to boot" "$WORK/err" || fail "nothing to boot: $(cat "$WORK/err")"
expect_fail 2 "$TB" vm start x --initrd "$K" --dir "$RUN"
expect_fail 1 "$TB" vm start x --kernel "$WORK/missing-vmlinuz" --firmware none --qemu "$FAKEQ" --dir "$RUN"
grep -q "missing-vmlinuz: No such file" "$WORK/err" || fail "missing kernel: $(cat "$WORK/err")"
expect_fail 1 "$TB" vm start x --image "$WORK/missing.qcow2" --firmware none --qemu "$FAKEQ" --dir "$RUN"
expect_fail 1 "$TB" vm start x --kernel "$K" --firmware "$WORK/no-OVMF.fd" --qemu "$FAKEQ" --dir "$RUN"
grep -q "install Debian's ovmf" "$WORK/err" || fail "missing firmware: $(cat "$WORK/err")"
expect_fail 2 "$TB" vm start x --kind tdx --accel tcg --kernel "$K" --dir "$RUN"
grep -q "cannot run under TCG" "$WORK/err" || fail "tdx under tcg: $(cat "$WORK/err")"
expect_fail 2 "$TB" vm start x --kind snp --firmware none --kernel "$K" --dir "$RUN"
expect_fail 2 "$TB" vm start x --cpus 2 --pin 1 --kernel "$K" --dir "$RUN"
grep -q "one-to-one" "$WORK/err" || fail "pin count: $(cat "$WORK/err")"
expect_fail 2 "$TB" vm start x --memory 4Q --kernel "$K" --dir "$RUN"
expect_fail 2 "$TB" vm start x --pin 3-1 --kernel "$K" --dir "$RUN"
expect_fail 2 "$TB" vm start ../x --kernel "$K" --dir "$RUN"
expect_fail 2 "$TB" vm start x --kernel "$K" --why --dir "$RUN"
expect_fail 2 "$TB" vm start --kernel "$K" --dir "$RUN"
expect_fail 2 "$TB" vm start x y --kernel "$K" --dir "$RUN"
expect_fail 2 "$TB" vm start x --ssh-port 70000 --kernel "$K" --dir "$RUN"
expect_fail 2 "$TB" vm start x --bogus --dir "$RUN"
expect_fail 2 "$TB" vm frobnicate
pass "bad flags: one line, exit 2"

# A port in use.
PORT=$(free_port)
spawn "$TB" serve --port "$PORT"
LISTENER=$SPAWNED_PID
wait_port "$PORT"
expect_fail 1 "$TB" vm start x --kernel "$K" --firmware none --ssh-port "$PORT" --qemu "$FAKEQ" --dir "$RUN"
grep -q "127.0.0.1:$PORT is in use" "$WORK/err" || fail "port in use: $(cat "$WORK/err")"
kill "$LISTENER"
[ ! -e "$RUN/x/vm.json" ] || fail "a refused start left vm.json"
pass "port in use"

echo ovmf >"$WORK/OVMF.fd"
expect_fail 1 "$TB" vm start td --kind tdx --kernel "$K" --firmware "$WORK/OVMF.fd" \
  --qemu "$FAKEQ" --dir "$RUN"
grep -Eq -- "^teebench: vm: start: --kind tdx cannot start here: [a-z-]+ missing: .*\(all checks: teebench vm check --kind tdx\)$" "$WORK/err" ||
  fail "tdx on a QEMU 7.2 host: $(cat "$WORK/err")"
[ "$(wc -l <"$WORK/err")" = 1 ] || fail "tdx refusal: more than one line: $(cat "$WORK/err")"
# what this QEMU lacks is said whatever the host's kernel offers, its version only in words
rc=0
"$TB" vm check --kind tdx --firmware "$WORK/OVMF.fd" --qemu "$FAKEQ" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] && [ ! -s "$WORK/err" ] || fail "vm check of a host without TDX: exit $rc, $(cat "$WORK/err")"
grep -q "^missing  qemu-tdx       this QEMU lists no tdx-guest object: a build without TDX (QEMU emulator version 7.2.0 (fake))" "$WORK/out" ||
  fail "vm check qemu-tdx: $(cat "$WORK/out")"
grep -q "^missing  firmware       $WORK/OVMF.fd cannot boot a TD: no OVMF GUIDed table" "$WORK/out" ||
  fail "vm check firmware: $(cat "$WORK/out")"
grep -q "^verdict  --kind tdx cannot start here: " "$WORK/out" || fail "vm check verdict: $(cat "$WORK/out")"
expect_fail 1 "$TB" vm start sn --kind snp --kernel "$K" --firmware "$WORK/OVMF.fd" \
  --qemu "$FAKEQ" --dir "$RUN"
grep -Eq -- "^teebench: vm: start: --kind snp cannot start here: [a-z-]+ missing" "$WORK/err" ||
  fail "snp on a QEMU 7.2 host: $(cat "$WORK/err")"
# the host's lack comes first, before missing files
expect_fail 1 "$TB" vm start td --kind tdx --kernel "$K" --firmware "$WORK/no-OVMF.fd" \
  --qemu "$FAKEQ" --dir "$RUN"
grep -q -- "--kind tdx cannot start here" "$WORK/err" || fail "tdx, no firmware: $(cat "$WORK/err")"
[ ! -e "$WORK/fake-qemu-launched" ] || fail "a refused TD start launched QEMU"
pass "tdx/snp refused on a host without them"

# QEMU failing to start: its own message, no state left behind (the lines before it are
# the loud notes, e.g. TCG emulation).
rc=0
"$TB" vm start r1 --kernel "$K" --firmware none --accel tcg --qemu "$FAKEQ" --dir "$RUN" \
  >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" -eq 1 ] || fail "failing QEMU: exit $rc"
tail -n 1 "$WORK/err" | grep -q "^teebench: vm: start r1: QEMU exited with 1: qemu-system-x86_64: -netdev user,id=net0: Could not set up host forwarding rule$" ||
  fail "failing QEMU: $(cat "$WORK/err")"
grep -q "NOTE: TCG EMULATION (--accel tcg)" "$WORK/err" || fail "no TCG note: $(cat "$WORK/err")"
[ "$(grep -vc '^teebench: vm: NOTE: ' "$WORK/err")" -eq 1 ] || fail "more than one error line"
[ ! -e "$RUN/r1/vm.json" ] || fail "a failed start left vm.json"
[ ! -e "$RUN/r1/qmp.sock" ] || fail "a failed start left qmp.sock"
[ "$(stat -c %a "$RUN")" = 700 ] || fail "run dir is not 0700"
pass "QEMU failing to start"

# A name already running: a state whose pid is a process holding the VM's pid file path
# in its command line (as QEMU does with -pidfile).
mkdir -p "$RUN/busy"
mkfifo "$WORK/fifo" # opened read-write: never an EOF, and no writer process to clean up
sh -c 'read x' -pidfile "$RUN/busy/qemu.pid" <>"$WORK/fifo" &
BUSY=$!
_TB_PIDS+=("$BUSY")
D=$RUN/busy
cat >"$D/vm.json" <<EOF
{"schema": "teebench-vm", "version": 1, "name": "busy", "kind": "regular", "tcg": true,
 "pid": $BUSY, "ssh": {"url": "ssh://root@127.0.0.1:1", "port": 1, "user": "root",
 "key": "$D/id_ed25519", "known_hosts": "$D/known_hosts"},
 "paths": {"dir": "$D", "qmp": "$D/qmp.sock", "serial_log": "$D/serial.log",
           "qemu_log": "$D/qemu.log", "pidfile": "$D/qemu.pid"},
 "cpus": 1, "memory_bytes": 1073741824, "started_at": "2025-01-01T00:00:00Z",
 "boot_ns": 12300000000, "boot_s": 12.3, "argv": ["qemu-system-x86_64"]}
EOF
expect_fail 1 "$TB" vm start busy --kernel "$K" --firmware none --qemu "$FAKEQ" --dir "$RUN"
grep -q "VM busy is already running (QEMU pid $BUSY" "$WORK/err" ||
  fail "name already running: $(cat "$WORK/err")"
"$TB" vm list --dir "$RUN" >"$WORK/out"
grep -Eq "^busy +regular +TCG +running +$BUSY " "$WORK/out" || fail "vm list: $(cat "$WORK/out")"
"$TB" vm show busy --dir "$RUN" >"$WORK/out"
grep -q "boot time   12.3 s" "$WORK/out" || fail "vm show: $(cat "$WORK/out")"
grep -q "TCG EMULATION" "$WORK/out" || fail "vm show hides TCG: $(cat "$WORK/out")"
"$TB" vm show busy --json --dir "$RUN" >"$WORK/out"
grep -q '"running": true' "$WORK/out" && grep -q '"tcg": true' "$WORK/out" &&
  grep -q '"boot_ns": 12300000000,' "$WORK/out" || fail "vm show --json: $(cat "$WORK/out")"
kill "$BUSY"
wait "$BUSY" 2>/dev/null || true
"$TB" vm list --dir "$RUN" >"$WORK/out"
grep -Eq "^busy +regular +TCG +stopped " "$WORK/out" || fail "vm list after exit: $(cat "$WORK/out")"
expect_fail 1 "$TB" vm ssh busy --dir "$RUN" -- true
grep -q "VM busy is not running" "$WORK/err" || fail "ssh to a stopped VM: $(cat "$WORK/err")"
"$TB" vm stop busy --dir "$RUN" >"$WORK/out" || fail "stop of a stopped VM failed"
grep -q "vm busy was not running" "$WORK/out" || fail "stop: $(cat "$WORK/out")"
pass "name already running, list, show, stop of a stopped VM"

expect_fail 1 "$TB" vm stop nosuch --dir "$RUN"
grep -q "no VM named nosuch" "$WORK/err" || fail "stop unknown: $(cat "$WORK/err")"
expect_fail 1 "$TB" vm show nosuch --dir "$RUN"
"$TB" vm list --dir "$WORK/empty" | grep -q "^no VMs in $WORK/empty$" || fail "empty list"
pass "unknown names"

# ---- images: the format from the content, never the name ----
# Each format made by QEMU's own qemu-img, so the probe is checked against QEMU's.
if command -v qemu-img >/dev/null; then
  for f in qcow2 qcow qed vmdk vdi vhdx vpc parallels raw; do
    qemu-img create -q -f "$f" "$WORK/disk-$f.img" 16M 2>"$WORK/qi.err" || continue
    "$TB" vm start f1 --image "$WORK/disk-$f.img" --firmware none --accel tcg --ssh-port 10022 \
      --dir "$RUN" --dry-run >"$WORK/out" 2>"$WORK/err" || fail "dry run of a $f image: $(cat "$WORK/err")"
    grep -q -- "-drive file=$WORK/disk-$f.img,if=none,id=disk0,format=$f " "$WORK/out" ||
      fail "a $f image named .img: $(grep -- '-drive file=' "$WORK/out" | head -n 1)"
  done
  # a raw file named .qcow2 stays raw
  head -c 65536 /dev/zero >"$WORK/raw.qcow2"
  "$TB" vm start f1 --image "$WORK/raw.qcow2" --firmware none --accel tcg --dir "$RUN" --dry-run \
    --why >"$WORK/out" 2>/dev/null || fail "dry run of raw.qcow2"
  grep -q -- "-drive file=$WORK/raw.qcow2,if=none,id=disk0,format=raw " "$WORK/out" ||
    fail "raw.qcow2: $(grep -- '-drive file=' "$WORK/out" | head -n 1)"
  grep -q '^-drive format=raw: the image.s format, read from its first bytes' "$WORK/out" ||
    fail "the format's reason"
  pass "image formats from their content (qemu-img's qcow2 qcow qed vmdk vdi vhdx vpc parallels raw)"
else
  echo "skipped part: qemu-img missing (image formats)"
fi

# A dry run of an image that is not here: the line leaves the format to QEMU, and says so.
"$TB" vm start f1 --image /nonexistent/disk.img --firmware none --dir "$RUN" --dry-run \
  >"$WORK/out" 2>"$WORK/err" || fail "dry run of a missing image"
grep -q "NOTE: --image /nonexistent/disk.img: .*No such file.*QEMU's probe" "$WORK/err" ||
  fail "missing image in a dry run: $(cat "$WORK/err")"
grep -q -- '-drive file=/nonexistent/disk.img,if=none,id=disk0 ' "$WORK/out" || fail "missing image's line"
# --seed off: no seed drive; the fw_cfg key stays
"$TB" vm start s0 --kernel /k --seed off --firmware none --dir "$RUN" --dry-run >"$WORK/out" 2>/dev/null
grep -q 'seed.iso' "$WORK/out" && fail "--seed off still attaches the seed"
grep -q -- '-fw_cfg name=opt/teebench/authorized_keys' "$WORK/out" || fail "--seed off dropped fw_cfg"
expect_fail 2 "$TB" vm start s0 --kernel /k --seed maybe --dir "$RUN"
grep -q -- "--seed maybe: unknown (off, on)" "$WORK/err" || fail "$(cat "$WORK/err")"
pass "a missing image in a dry run; --seed off"

# Images teebench refuses before QEMU runs, and one QEMU cannot read (its own message).
rm -f "$WORK/fake-qemu-launched" # launched on purpose above
: >"$WORK/empty.img"
expect_fail 1 "$TB" vm start b1 --image "$WORK/empty.img" --firmware none --qemu "$FAKEQ" --dir "$RUN"
grep -q "^teebench: vm: start: --image: $WORK/empty.img: 0 bytes, too small to be a disk image$" "$WORK/err" ||
  fail "empty image: $(cat "$WORK/err")"
mkdir -p "$WORK/adir"
expect_fail 1 "$TB" vm start b1 --image "$WORK/adir" --firmware none --qemu "$FAKEQ" --dir "$RUN"
grep -q "a directory, not a disk image" "$WORK/err" || fail "directory image: $(cat "$WORK/err")"
if command -v qemu-img >/dev/null && qemu-img create -q -f luks --object secret,id=s0,data=pw \
  -o key-secret=s0 "$WORK/luks.img" 16M 2>/dev/null; then
  expect_fail 1 "$TB" vm start b1 --image "$WORK/luks.img" --firmware none --qemu "$FAKEQ" --dir "$RUN"
  grep -q "LUKS-encrypted image: QEMU needs its passphrase" "$WORK/err" || fail "luks: $(cat "$WORK/err")"
fi
[ ! -e "$WORK/fake-qemu-launched" ] || fail "a refused image launched QEMU"
# qcow2's magic over a header QEMU rejects: the real QEMU says why, in one line, nothing left
if command -v qemu-system-x86_64 >/dev/null; then
  { printf 'QFI\373\000\000\000\011'; head -c 4096 /dev/zero; } >"$WORK/bad.img"
  rc=0
  "$TB" vm start b2 --image "$WORK/bad.img" --firmware none --accel tcg --vsock off --dir "$RUN" \
    >"$WORK/out" 2>"$WORK/err" || rc=$?
  [ $rc -eq 1 ] || fail "an image QEMU cannot read: exit $rc: $(cat "$WORK/err")"
  tail -n 1 "$WORK/err" | grep -q "^teebench: vm: start b2: QEMU exited with 1: qemu-system-x86_64: -drive file=$WORK/bad.img,.*: .*qcow2 version 9" ||
    fail "an image QEMU cannot read: $(cat "$WORK/err")"
  [ ! -e "$RUN/b2/vm.json" ] || fail "a failed start left vm.json"
  [ ! -e "$RUN/b2/qemu.pid" ] || fail "a failed start left qemu.pid"
fi
pass "images refused (empty, a directory, LUKS) and one QEMU cannot read"

# ---- the cloud-init seed ----
ssh-keygen -q -t ed25519 -N '' -C "seed test" -f "$WORK/k1"
"$TB" vm seed "$WORK/seed.iso" --ssh-key "$WORK/k1.pub" --ssh-user debian --hostname g1 \
  >"$WORK/out" 2>"$WORK/err" || fail "vm seed: $(cat "$WORK/err")"
grep -q "^wrote $WORK/seed.iso: a cloud-init NoCloud seed (ISO 9660, label cidata, [0-9]* KiB) authorizing $WORK/k1.pub for debian$" \
  "$WORK/out" || fail "vm seed: $(cat "$WORK/out")"
if command -v blkid >/dev/null; then
  blkid -p -o export "$WORK/seed.iso" >"$WORK/blkid" || fail "blkid does not recognise the seed"
  grep -qx 'TYPE=iso9660' "$WORK/blkid" && grep -qx 'LABEL=cidata' "$WORK/blkid" ||
    fail "blkid: $(cat "$WORK/blkid")"
fi
if command -v isoinfo >/dev/null; then
  isoinfo -R -l -i "$WORK/seed.iso" >"$WORK/rr" && isoinfo -J -l -i "$WORK/seed.iso" >"$WORK/joliet" ||
    fail "isoinfo cannot read the seed"
  grep -q ' user-data *$' "$WORK/rr" && grep -q ' meta-data *$' "$WORK/rr" || fail "Rock Ridge names: $(cat "$WORK/rr")"
  grep -q -- '-r--r--r-- *1 *0 *0' "$WORK/rr" || fail "Rock Ridge modes: $(cat "$WORK/rr")"
  grep -q ' user-data *$' "$WORK/joliet" && grep -q ' meta-data *$' "$WORK/joliet" ||
    fail "Joliet names: $(cat "$WORK/joliet")"
  isoinfo -R -i "$WORK/seed.iso" -x /user-data >"$WORK/ud"
  head -n 1 "$WORK/ud" | grep -qx '#cloud-config' || fail "user-data: $(cat "$WORK/ud")"
  grep -qF "      - '$(cat "$WORK/k1.pub")'" "$WORK/ud" || fail "the key in user-data: $(cat "$WORK/ud")"
  grep -q "^  - name: 'debian'$" "$WORK/ud" || fail "the user in user-data: $(cat "$WORK/ud")"
  isoinfo -J -i "$WORK/seed.iso" -x /meta-data >"$WORK/md"
  grep -Eq '^instance-id: teebench-g1-[0-9a-f]{16}$' "$WORK/md" && grep -qx 'local-hostname: g1' "$WORK/md" ||
    fail "meta-data: $(cat "$WORK/md")"
  pass "vm seed: blkid sees iso9660 labelled cidata; isoinfo reads user-data and meta-data (Rock Ridge and Joliet)"
else
  echo "skipped part: isoinfo missing (genisoimage)"
fi
expect_fail 2 "$TB" vm seed "$WORK/s2.iso"
grep -q -- "--ssh-key K.pub" "$WORK/err" || fail "vm seed without a key: $(cat "$WORK/err")"
echo "not a key" >"$WORK/bad.pub"
expect_fail 1 "$TB" vm seed "$WORK/s2.iso" --ssh-key "$WORK/bad.pub"
grep -q "not one line of an OpenSSH .pub file" "$WORK/err" || fail "bad key: $(cat "$WORK/err")"
[ ! -e "$WORK/s2.iso" ] || fail "a refused seed was written"

# A seed that cannot be written (a full disk under the run directory): one line, before
# QEMU starts, nothing left running.
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
  mkdir -p "$WORK/full"
  rc=0
  unshare -m bash -c '
    mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
    head -c 40000 /dev/zero >"$1/filler" 2>/dev/null
    "$2" vm start g9 --kernel "$3" --ssh-key "$4" --firmware none --qemu "$5" --dir "$1/run" \
      >"$6/full.out" 2>"$6/full.err"' _ "$WORK/full" "$TB" "$K" "$WORK/k1" "$FAKEQ" "$WORK" || rc=$?
  if [ $rc -ne 99 ]; then
    [ $rc -eq 1 ] || fail "a seed that cannot be written: exit $rc: $(cat "$WORK/full.err")"
    grep -q "^teebench: vm: start g9: writing the cloud-init seed: .*seed.iso.*No space left on device$" \
      "$WORK/full.err" || fail "a seed that cannot be written: $(cat "$WORK/full.err")"
    [ "$(grep -vc "^teebench: vm: NOTE: " "$WORK/full.err")" -eq 1 ] || fail "one line: $(cat "$WORK/full.err")"
    [ ! -e "$WORK/fake-qemu-launched" ] || fail "QEMU was launched without a seed"
    pass "a seed that cannot be written: one line, QEMU not started"
  fi
fi
