#!/usr/bin/env bash
# The bounce-buffer split on a real guest under TCG: `teebench suite run --vm-kinds
# regular,regular-swiotlb:64M` boots the same kernel and initramfs twice (1 vCPU, 1 GiB,
# one boot each), the second with swiotlb=32768,force appended to -append. The
# regular-swiotlb record's env facts (measured inside the guest) say swiotlb forced by
# the kernel command line with a 64 MiB pool, its kernel_cmdline carries the parameter,
# its kernel log shows the software IO TLB set up, its extra.vm.swiotlb says how
# ("append") and the guest's /proc/cmdline; the regular one's say none of it. Both
# records carry the "swiotlb buffer is full" count over the run (extra.swiotlb_full).
# Then a guest that cannot prove the parameter (an image whose boot loader ignores the
# seed: here the same kernel with --seed's bootcmd unread) is refused loudly. Slow
# (about two minutes): its name starts with slow_, so sanitizer stages leave it out; the
# guest comes from tests/e2e/lib_vmguest.sh, skipped (exit 77) where it cannot be built.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_vmguest.sh"
T0=$(date +%s)
vmguest_build

RUN=$WORK/vm
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
small=(--profile quick --workloads probe --repeat 1 --set probe.probes=getpid --set probe.max_reps=500)

"$TB" suite run "${small[@]}" --vm-kinds regular,regular-swiotlb:64M "${boot[@]}" \
  --vm-cpus 1 --vm-memory 1G --vm-dir "$RUN" --no-store -o "$WORK/res" --progress plain \
  >"$WORK/run.out" 2>"$WORK/run.err" || fail "suite run: $(tail -n 5 "$WORK/run.err")"
grep -q '^suite\[vm-regular-swiotlb-tcg\]: starting VM vm-regular-swiotlb-tcg (regular-swiotlb, TCG' \
  "$WORK/run.err" || fail "no start line for regular-swiotlb: $(grep starting "$WORK/run.err")"
grep -q '^suite\[vm-regular-swiotlb-tcg\]: bounce buffers forced: the guest.s /proc/cmdline has swiotlb=32768,force (append)$' \
  "$WORK/run.err" || fail "no line saying the guest has the parameter"
if grep -q "bounce buffers forced" <(grep '^suite\[vm-regular-tcg\]' "$WORK/run.err"); then fail "the regular VM says bounce"; fi
grep -q "swiotlb buffer is full" "$WORK/run.err" && fail "a 64 MiB pool ran out: $(grep 'buffer is full' "$WORK/run.err")"
python3 - "$WORK/res" <<'PY' || fail "the records' swiotlb facts"
import json, os, sys
d = {n: json.load(open(os.path.join(sys.argv[1], n + ".json")))
     for n in ("vm-regular-tcg", "vm-regular-swiotlb-tcg")}
r, b = d["vm-regular-tcg"], d["vm-regular-swiotlb-tcg"]
for n, x in d.items():
    assert x["status"] == "complete", (n, x["status"])
    assert x["env"]["platform"]["value"] == "vm", x["env"]["platform"]
    f = x["extra"]["swiotlb_full"]
    assert f.get("grew") is False and f["end"] == f["start"] == 0, (n, f)
# the bounced guest: forced by its command line, a 64 MiB pool (32768 slabs of 2 KiB)
sw = b["env"]["swiotlb"]["value"]
assert sw["forced"] is True and sw["forced_by"] == "kernel command line", sw
assert sw["param"] == "swiotlb=32768,force" and sw["nslabs"] == 32768, sw
assert sw["pool_bytes"] == 64 << 20, sw
assert sw["full_lines"] == 0, sw
# its own kernel log: the pool was set up ("software IO TLB: area num 1." on Debian's 6.1)
assert sw["log_line"] and sw["log_line"].startswith("software IO TLB:"), sw
assert "swiotlb=32768,force" in b["env"]["kernel_cmdline"]["value"].split(), b["env"]["kernel_cmdline"]
v = b["extra"]["vm"]
assert v["kind"] == "regular" and v["swiotlb"]["forced"] is True, v
assert v["swiotlb"]["how"] == "append" and v["swiotlb"]["nslabs"] == 32768, v["swiotlb"]
assert "swiotlb=32768,force" in v["swiotlb"]["guest_cmdline"].split(), v["swiotlb"]
assert any("swiotlb=32768,force" in c for c in b["commands"]), b["commands"]
# the regular guest: nothing forced, no parameter, and no pool at 1 GiB (the kernel
# sets one up only above 4 GiB of RAM or when forced)
sw = r["env"]["swiotlb"]["value"]
assert sw["forced"] is False and sw["param"] is None, sw
assert sw["log_line"] is None and sw["pool_bytes"] is None, sw
assert "swiotlb" not in r["env"]["kernel_cmdline"]["value"], r["env"]["kernel_cmdline"]
assert r["extra"]["vm"]["swiotlb"] == {"forced": False}, r["extra"]["vm"]
print("ok")
PY
pass "regular and regular-swiotlb under TCG: forced swiotlb (64 MiB, append) in the env facts of the bounced guest only"

# The report of that run in headless Chromium: the forest plot first, the bounce section
# (VM and VM+bounce are here, the TD is not: it says so), the env table's swiotlb row.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
  "$TB" report "$WORK/res/host.json" "$WORK/res/vm-regular-tcg.json" "$WORK/res/vm-regular-swiotlb-tcg.json" \
    -o "$WORK/report.html" >/dev/null || fail "report of the run"
  python3 "$(dirname "$0")/report_cdp.py" "$CHROMIUM" "$WORK/cdp" \
    '--boxes=section#overview g.tb-frow[data-kind="metric"]' "file://$WORK/report.html" ||
    fail "chromium: $(tail -5 "$WORK/cdp/chromium.log" 2>/dev/null)"
  python3 - "$WORK" <<'PY' || fail "the run's report in Chromium"
import json, re, sys
w = sys.argv[1]
p = json.load(open(w + "/cdp/page0.json"))
assert p["loaded"] and p["console"] == [] and p["exceptions"] == [], p
assert p["requests"] == ["file://%s/report.html" % w], p["requests"]
dom = open(w + "/cdp/page0.html").read()
ids = re.findall(r'<section id="([^"]+)"', dom)
assert ids[0] == "overview" and "bounce" in ids, ids
rows = p["boxes"]['section#overview g.tb-frow[data-kind="metric"]']
assert len(rows) >= 1 and all(b and b[2] > 0 and b[3] > 0 for b in rows), rows
sec = dom[dom.index('<section id="bounce"'):]
sec = sec[:sec.index("</section>")]
assert "vm-regular-swiotlb-tcg" in sec and "the split needs also a TD or SEV-SNP guest" in sec, sec
assert "forced (kernel command line: swiotlb=32768,force), pool 64 MiB" in dom, "env table: no swiotlb row"
print("ok")
PY
  pass "the run's report in Chromium: forest plot first, the bounce section says the TD is missing"
else
  echo "chromium not installed: the report check is left out"
fi

# A guest whose /proc/cmdline lacks the parameter is never measured as bounced: an
# initramfs that bind-mounts a copy of /proc/cmdline without it over the real one (as
# a guest would look whose boot loader dropped it) -- the start fails with one line
# quoting the guest's command line, QEMU is gone and no vm.json is left.
sed -i 's|^mount -t tmpfs tmp /tmp$|&\nsed "s/ swiotlb=[^ ]*//" /proc/cmdline >/etc/cmdline \&\& mount --bind /etc/cmdline /proc/cmdline|' \
  "$WORK/root/init"
grep -q 'mount --bind /etc/cmdline /proc/cmdline' "$WORK/root/init" || fail "the lying /init was not made"
(cd "$WORK/root" && find . | cpio -o -H newc --quiet) >"$WORK/lie.cpio"
code=0
"$TB" vm start lie --kind regular-swiotlb:64M --kernel "$GUEST_KERNEL" --initrd "$WORK/lie.cpio" \
  --append quiet --accel tcg --firmware none --vsock off --boot-timeout 240 --cpus 1 --memory 1G \
  --dir "$RUN" >"$WORK/lie.out" 2>"$WORK/lie.err" || code=$?
[ $code = 1 ] || fail "a guest without the parameter started (exit $code): $(cat "$WORK/lie.out" "$WORK/lie.err")"
grep -q "^teebench: vm: start lie: regular-swiotlb: the guest runs without swiotlb=32768,force (its /proc/cmdline: 'console=ttyS0 quiet')" \
  "$WORK/lie.err" || fail "the refusal does not quote the guest's command line: $(cat "$WORK/lie.err")"
[ "$(grep -vc ': NOTE: ' "$WORK/lie.err")" = 1 ] || fail "more than one error line: $(cat "$WORK/lie.err")"
[ ! -e "$RUN/lie/vm.json" ] || fail "a refused start left vm.json"
if pgrep -f "$RUN/lie/qemu.pid" >/dev/null; then fail "QEMU still runs after the refusal"; fi
pass "a guest whose /proc/cmdline lacks swiotlb=...,force: refused in one line, nothing left"
pass "slow_suite_swiotlb ($(($(date +%s) - T0)) s)"
