#!/usr/bin/env bash
# `teebench vm check` and `vm start --dry-run` on the stacks people run, from their
# recordings (tests/data/vm/hosts/<stack>/, README.md there cites each fact): per
# stack the verdict of every kind and its check lines (golden check-<kind>.txt), the
# command lines of the regular VM and the TEE kind (golden dryrun-<kind>.txt) that
# differ in the TEE's own options only, and the same QEMU checks when the stack's
# QEMU answers live (tests/tools/fake_qemu.sh replaying its recorded answers). Then
# this machine recorded and read back (the same verdicts), bad recordings (none,
# another schema version, malformed firmware facts), flags that cannot go together,
# and QEMU's SEV-SNP CPUID refusal surfaced as one line naming --cpu.
# TB_UPDATE_GOLDEN=1 rewrites the goldens from the current output.
source "$(dirname "$0")/lib.sh"
SRC=${TEEBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
HOSTS=$SRC/tests/data/vm/hosts
FAKE=$SRC/tests/tools/fake_qemu.sh
RUN=$WORK/run

# The stacks and the TEE kind each can start (the README's table).
declare -A TEE=([ubuntu-24.04-canonical-tdx]=tdx [ubuntu-25.04-tdx]=tdx [ubuntu-25.10]=tdx
                [centos-stream-10]=tdx [ubuntu-25.04-snp]=snp [qemu-10.1-without-tdx]=)
desc=(--kernel /guest/vmlinuz --initrd /guest/initrd.img --append quiet --cpus 4 --memory 16G
      --ssh-port 10022 --vsock on --dir "$RUN" --dry-run)

golden() { # NAME FILE: compare (or rewrite) the golden
  if [ -n "${TB_UPDATE_GOLDEN:-}" ]; then cp "$2" "$1"; fi
  diff -u "$1" "$2" || fail "$(basename "$(dirname "$1")")/$(basename "$1") differs (TB_UPDATE_GOLDEN=1 to accept)"
}

n=0
for dir in "$HOSTS"/*/; do
  stack=$(basename "$dir")
  dir=${dir%/}
  [ "${TEE[$stack]+set}" ] || fail "$stack: not in this test's table"
  tee=${TEE[$stack]}
  for kind in regular tdx snp; do
    rc=0
    "$TB" vm check --kind "$kind" --from "$dir" >"$WORK/raw" 2>"$WORK/err" || rc=$?
    [ ! -s "$WORK/err" ] || fail "$stack $kind: stderr: $(cat "$WORK/err")"
    want=1
    if [ "$kind" = regular ] || [ "$kind" = "$tee" ]; then want=0; fi
    [ "$rc" = "$want" ] || fail "$stack: vm check --kind $kind exit $rc, want $want: $(tail -1 "$WORK/raw")"
    sed "s|$dir|@HOST@|g" "$WORK/raw" >"$WORK/check.txt"
    golden "$dir/check-$kind.txt" "$WORK/check.txt"
    # one line per check: ok / missing / note, a detail, where it was read
    grep -vE '^(vm check|ABI|verdict) ' "$WORK/check.txt" |
      grep -vE '^(ok|missing|note) +[a-z-]+ +.+  \[.+\]$' && fail "$stack $kind: a line not of the form"
    "$TB" vm check --kind "$kind" --from "$dir" --json >"$WORK/json" || true
    python3 - "$WORK/json" "$want" "$WORK/raw" <<'PY' || fail "$stack $kind: --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["can_start"] == (sys.argv[2] == "0"), d
text = open(sys.argv[3]).read().splitlines()
checks = [l for l in text if l.split(" ", 1)[0] in ("ok", "missing", "note")]
assert len(checks) == len(d["checks"]), (len(checks), len(d["checks"]))
for line, c in zip(checks, d["checks"]):
    assert line.split()[0] == c["status"] and line.split()[1] == c["name"], (line, c)
assert (d["first_missing"] is None) == d["can_start"]
PY
  done
  # the command lines: regular and the stack's TEE kind, goldens, differing in the TEE only
  kinds=(regular)
  if [ -n "$tee" ]; then kinds+=("$tee"); fi
  for kind in "${kinds[@]}"; do
    "$TB" vm start vm1 --kind "$kind" "${desc[@]}" --from "$dir" >"$WORK/raw" 2>"$WORK/err" ||
      fail "$stack: --dry-run --kind $kind: $(cat "$WORK/err")"
    [ ! -s "$WORK/err" ] || fail "$stack: --dry-run --kind $kind printed notes: $(cat "$WORK/err")"
    sed "s|$RUN|@RUNDIR@|g" "$WORK/raw" >"$WORK/$kind.txt"
    golden "$dir/dryrun-$kind.txt" "$WORK/$kind.txt"
  done
  if [ -n "$tee" ]; then
    python3 - "$WORK/regular.txt" "$WORK/$tee.txt" "$tee" <<'PY' || fail "$stack: regular and $tee differ in more than the TEE"
import sys
reg, tee = (open(p).read().splitlines() for p in sys.argv[1:3])
id_ = {"tdx": "tdx0", "snp": "sev0"}[sys.argv[3]]
added = [l for l in tee if l not in reg]
gone = [l for l in reg if l not in tee]
assert len(gone) == 1 and gone[0].strip().startswith("-machine q35"), gone
assert len(added) == 2, added
assert added[0] == gone[0].replace(" \\", ",confidential-guest-support=%s \\" % id_), added[0]
assert added[1].strip().startswith("-object ") and id_ in added[1], added[1]
PY
  fi
  # the stack's QEMU answering live (the fake replays its recorded answers): the same
  # QEMU checks as from the recording, through the process path a real QEMU takes
  for kind in regular tdx snp; do
    FAKE_QEMU_DIR=$dir/vm/qemu "$TB" vm check --kind "$kind" --qemu "$FAKE" --json \
      >"$WORK/live.json" || true
    "$TB" vm check --kind "$kind" --from "$dir" --json >"$WORK/rec.json" || true
    python3 - "$WORK/live.json" "$WORK/rec.json" <<'PY' || fail "$stack $kind: live QEMU checks differ from the recording's"
import json, sys
live, rec = (json.load(open(p)) for p in sys.argv[1:])
q = lambda d: [(c["name"], c["status"]) for c in d["checks"] if c["name"].startswith("qemu")]
assert q(live) == q(rec), (q(live), q(rec))
assert q(live), "no QEMU checks"
PY
  done
  n=$((n + 1))
done
[ "$n" = 6 ] || fail "found $n recorded stacks, want 6"
pass "six recorded stacks: verdicts, check lines, dry-run lines differing in the TEE only, live QEMU"

# The issue's cases, by name: Canonical's pre-upstream TDX accepted and said; a QEMU 10.1
# without TDX refused for that; the SNP guest's reduced-phys-bits the guest's 1 although
# the host's CPUID says 5.
grep -q "^ABI      pre-upstream KVM TDX ABI: VM type 2 on an Intel CPU" \
  "$HOSTS/ubuntu-24.04-canonical-tdx/check-tdx.txt" || fail "canonical: ABI not said"
grep -q "^verdict  --kind tdx cannot start here: qemu-tdx missing" \
  "$HOSTS/qemu-10.1-without-tdx/check-tdx.txt" || fail "QEMU 10.1 without TDX not refused for that"
grep -q "lost to encryption: 5" "$HOSTS/ubuntu-25.04-snp/check-snp.txt" &&
  grep -q "reduced-phys-bits=1," "$HOSTS/ubuntu-25.04-snp/dryrun-snp.txt" || fail "SNP reduced-phys-bits"
grep -q "^  -bios /usr/share/edk2/ovmf/OVMF.inteltdx.fd " "$HOSTS/centos-stream-10/dryrun-regular.txt" &&
  grep -q "^/usr/libexec/qemu-kvm " "$HOSTS/centos-stream-10/dryrun-tdx.txt" || fail "CentOS paths"
pass "pre-upstream TDX accepted and said; QEMU 10.1 without TDX refused; SNP reduced-phys-bits 1; CentOS paths"

# --cpu and per-kind firmware on a recorded host
"$TB" vm start vm1 --kind snp "${desc[@]}" --from "$HOSTS/ubuntu-25.04-snp" --cpu EPYC-v4 \
  >"$WORK/out" 2>"$WORK/err" || fail "--cpu: $(cat "$WORK/err")"
grep -q "^  -cpu EPYC-v4,pmu=off " "$WORK/out" || fail "--cpu: $(grep -- -cpu "$WORK/out")"
rc=0
"$TB" vm check --kind tdx --from "$HOSTS/ubuntu-25.10" --firmware tdx=/opt/TDVF.fd >"$WORK/out" || rc=$?
[ "$rc" = 1 ] && grep -q "^missing  firmware       no firmware: /opt/TDVF.fd: not recorded on that host" "$WORK/out" ||
  fail "per-kind firmware: $(grep firmware "$WORK/out")"
"$TB" vm check --kind regular --from "$HOSTS/ubuntu-25.10" --firmware tdx=/opt/TDVF.fd >/dev/null ||
  fail "--firmware tdx= changed the regular VM's firmware"
pass "--cpu, --firmware KIND=FILE"

# ---- this machine, recorded and read back: the same verdicts ----
"$TB" env --record "$WORK/rec" 2>"$WORK/err" || fail "env --record: $(cat "$WORK/err")"
[ -s "$WORK/rec/vm/schema" ] && [ -s "$WORK/rec/vm/firmware.json" ] && [ -d "$WORK/rec/vm/qemu" ] ||
  fail "env --record wrote no vm/: $(ls -R "$WORK/rec/vm" 2>&1 | head)"
[ -e "$WORK/rec/dev_sev" ] || fail "env --record: no dev_sev"
for kind in regular tdx snp; do
  "$TB" vm check --kind "$kind" --json >"$WORK/live.json" || true
  "$TB" vm check --kind "$kind" --from "$WORK/rec" --json >"$WORK/rec.json" || true
  python3 - "$WORK/live.json" "$WORK/rec.json" <<'PY' || fail "this machine, $kind: the recording's verdict differs"
import json, sys
live, rec = (json.load(open(p)) for p in sys.argv[1:])
s = lambda d: [(c["name"], c["status"]) for c in d["checks"]]
assert s(live) == s(rec), (s(live), s(rec))
assert live["can_start"] == rec["can_start"]
PY
done
pass "this machine recorded: vm check --from gives its verdicts"

# ---- bad recordings and flags: one line each ----
mkdir -p "$WORK/novm"
expect_fail 1 "$TB" vm check --kind tdx --from "$WORK/novm"
grep -q "holds no VM host recording" "$WORK/err" || fail "no vm/: $(cat "$WORK/err")"
cp -r "$WORK/rec" "$WORK/old"
echo "teebench-vm-host 2" >"$WORK/old/vm/schema"
expect_fail 1 "$TB" vm check --from "$WORK/old"
grep -q 'schema "teebench-vm-host 2"; this teebench reads "teebench-vm-host 1"' "$WORK/err" ||
  fail "other schema: $(cat "$WORK/err")"
cp -r "$WORK/rec" "$WORK/bad"
echo '[{"path": 3}]' >"$WORK/bad/vm/firmware.json"
expect_fail 1 "$TB" vm check --from "$WORK/bad"
grep -q "firmware.json: entry 0" "$WORK/err" || fail "malformed firmware facts: $(cat "$WORK/err")"
expect_fail 1 "$TB" vm check --from "$WORK/nonexistent"
expect_fail 2 "$TB" vm check --from "$WORK/rec" --qemu /usr/bin/qemu-system-x86_64
grep -q "the recording holds that host's QEMU" "$WORK/err" || fail "--from --qemu: $(cat "$WORK/err")"
expect_fail 2 "$TB" vm start x --kernel /k --from "$WORK/rec" --dir "$RUN"
grep -q -- "--from: only with --dry-run" "$WORK/err" || fail "start --from: $(cat "$WORK/err")"
expect_fail 2 "$TB" vm check --kind sgx
expect_fail 2 "$TB" vm check extra
expect_fail 2 "$TB" vm check --cpu ""
expect_fail 2 "$TB" vm check --firmware tdx=none
expect_fail 2 "$TB" vm stop x --from "$WORK/rec" --dir "$RUN"
pass "bad recordings and flags: one line each"

# ---- QEMU's SEV-SNP CPUID refusal: one line with the way out ----
cat >"$WORK/cpuid.err" <<'EOF'
qemu-system-x86_64: SEV-SNP: CPUID validation failed for function 0x7, index: 0x0.
provided: eax:0x00000000, ebx: 0x219c07ab, ecx: 0x00000000, edx: 0x00000000
expected: eax:0x00000000, ebx: 0x219c05a9, ecx: 0x00000000, edx: 0x00000000
qemu-system-x86_64: SEV-SNP: failed update CPUID page
EOF
echo kernel >"$WORK/vmlinuz"
rc=0
FAKE_QEMU_DIR=$HOSTS/ubuntu-25.04-snp/vm/qemu FAKE_QEMU_STDERR=$WORK/cpuid.err FAKE_QEMU_LOG=$WORK/launch \
  "$TB" vm start s1 --kernel "$WORK/vmlinuz" --firmware none --accel tcg --vsock off \
  --qemu "$FAKE" --dir "$RUN" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] && [ -s "$WORK/launch" ] || fail "the fake launch: exit $rc, $(cat "$WORK/err")"
tail -n 1 "$WORK/err" | grep -q "QEMU exited with 1: SEV-SNP: the firmware refused the guest's CPUID page for CPUID function 0x7 index 0x0: .*--cpu" ||
  fail "CPUID refusal: $(cat "$WORK/err")"
[ "$(grep -vc ': NOTE: ' "$WORK/err")" = 1 ] || fail "more than one error line: $(cat "$WORK/err")"
[ ! -e "$RUN/s1/vm.json" ] || fail "a failed start left vm.json"
pass "QEMU's CPUID validation error: one line naming --cpu"
