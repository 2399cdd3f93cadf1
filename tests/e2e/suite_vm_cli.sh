#!/usr/bin/env bash
# `teebench suite run --vm-kinds` without booting anything (the boot itself is
# slow_suite_vm.sh): bad flags (exit 2, one line, nothing runs); a VM whose start
# cannot even be tried (a missing kernel, its name already running: exit 1 before
# anything runs); a TD on a host that cannot run one -- a fake QEMU 7.2 whose -object
# help lists no tdx-guest, so a TD is refused here whatever this kernel offers -- refused with one
# line while this machine's suite still runs and is stored; and a QEMU that fails at
# launch: QEMU's own line, the host's run kept, nothing left running or behind.
source "$(dirname "$0")/lib.sh"
RUN=$WORK/vm
DB=$WORK/results.db
FAKEQ=$WORK/fake-qemu
cat >"$FAKEQ" <<EOF
#!/bin/sh
if [ "\$1" = --version ]; then echo "QEMU emulator version 7.2.0 (fake)"; exit 0; fi
if [ "\$1" = -object ]; then printf 'List of user creatable objects:\n  memory-backend-ram\n'; exit 0; fi
touch "$WORK/fake-qemu-launched"
echo "qemu-system-x86_64: -netdev user,id=net0: Could not set up host forwarding rule" >&2
exit 1
EOF
chmod +x "$FAKEQ"
K=$WORK/vmlinuz
echo kernel >"$K"
small=(--profile quick --workloads probe --repeat 1 --set probe.probes=getpid --set probe.max_reps=200
       --db "$DB" --vm-dir "$RUN" --qemu "$FAKEQ")

# ---- bad flags: one line, exit 2, nothing runs ----
expect_fail 2 "$TB" suite run --profile quick --kernel "$K" --qemu "$FAKEQ" --db "$DB"
grep -q -- "--kernel: describes the VMs of --vm-kinds (none given)" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds kvm --kernel "$K"
grep -q -- "--vm-kinds kvm: kvm: unknown kind 'kvm'" "$WORK/err" || fail "$(cat "$WORK/err")"
# no --image or --kernel: the default image (teebench vm image), built first when absent --
# here it cannot be (no tools on this PATH, or not root): one line, nothing runs
expect_fail 1 env PATH=/nonexistent "$TB" suite run "${small[@]}" --vm-kinds regular
grep -qF "teebench: suite: --vm-kinds: nothing to boot: no --image or --kernel, and the default guest image ($XDG_DATA_HOME/teebench/images/bookworm.qcow2) cannot be built here: " \
  "$WORK/err" || fail "$(cat "$WORK/err")"
grep -q "needs root\|mmdebstrap (mmdebstrap)" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds regular,regular --kernel "$K"
grep -q "vm-regular twice" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds regular,tdx --kernel "$K" --firmware none
grep -q "vm-tdx: --kind tdx needs OVMF firmware" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds tdx --accel tcg --kernel "$K"
grep -q "cannot run under TCG" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds regular --kernel "$K" --vm-cpus 0
grep -q -- "--vm-cpus 0: must be between 1 and 256" "$WORK/err" || fail "$(cat "$WORK/err")"
# --vm-boot-memory: sizes checked before anything boots
expect_fail 2 "$TB" suite run "${small[@]}" --vm-boot-memory 1G
grep -q -- "--vm-boot-memory: boots the VMs of --vm-kinds (none given)" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds regular --kernel "$K" --vm-boot-memory 1G,1024M
grep -q -- "--vm-boot-memory: 1024M twice" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds regular --kernel "$K" --vm-boot-memory 32M
grep -q -- "--vm-boot-memory 32M: at least 64M" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds regular --kernel "$K" --vm-boot-memory 1G,,2G
grep -q -- "--vm-boot-memory 1G,,2G: want SIZE" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds regular --kernel "$K" --vm-boot-memory 1X
grep -q -- "--vm-boot-memory 1X: " "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds regular --kernel "$K" --vm-memory 2Q
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds regular --kernel "$K" --cpus 2
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds host=regular --kernel "$K" --firmware none
grep -q "host names two environments" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite run "${small[@]}" --vm-kinds g=regular --kernel "$K" --firmware none \
  --target g=ssh://example.org
grep -q "g names two environments" "$WORK/err" || fail "$(cat "$WORK/err")"
expect_fail 2 "$TB" suite plan --profile quick --vm-kinds regular --kernel "$K"
grep -q -- "--vm-kinds: only for suite run" "$WORK/err" || fail "$(cat "$WORK/err")"
[ ! -e "$DB" ] || fail "a refused command stored something"
[ ! -e "$WORK/fake-qemu-launched" ] || fail "a refused command launched QEMU"
pass "bad flags: one line, exit 2, nothing run"

# ---- a start that cannot be tried: exit 1 before anything runs ----
expect_fail 1 "$TB" suite run "${small[@]}" --vm-kinds regular --kernel "$WORK/missing-vmlinuz" \
  --firmware none --accel tcg
grep -q "^teebench: suite: vm-regular-tcg: --kernel .*missing-vmlinuz: No such file" "$WORK/err" ||
  fail "missing kernel: $(cat "$WORK/err")"
# a VM of that name already running: a process holding its pid file path, as QEMU does
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
expect_fail 1 "$TB" suite run "${small[@]}" --vm-kinds busy=regular --kernel "$K" --firmware none
grep -q "^teebench: suite: busy: VM busy is already running (QEMU pid $BUSY" "$WORK/err" ||
  fail "name already running: $(cat "$WORK/err")"
kill "$BUSY"
wait "$BUSY" 2>/dev/null || true
[ ! -e "$DB" ] || fail "the host ran although a VM could not start"
[ ! -e "$WORK/fake-qemu-launched" ] || fail "QEMU launched although the start could not be tried"
pass "missing kernel, name running: exit 1 before anything runs"

# ---- a TD on a host that cannot run one: refused, host still runs ----
echo ovmf >"$WORK/OVMF.fd"
rc=0
"$TB" suite run "${small[@]}" --vm-kinds tdx --kernel "$K" --firmware "$WORK/OVMF.fd" \
  --progress plain -o "$WORK/res" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] || fail "a refused environment makes the exit 1, got $rc: $(cat "$WORK/err")"
[ "$(grep -c '^teebench: ' "$WORK/err")" = 1 ] || fail "one line for the refusal: $(cat "$WORK/err")"
grep -Eq "^teebench: suite: vm-tdx: refused: --kind tdx cannot start here: [a-z-]+ missing: " \
  "$WORK/err" || fail "refusal: $(cat "$WORK/err")"
grep -q '^suite\[host\]: complete after' "$WORK/err" || fail "host did not run: $(cat "$WORK/err")"
grep -q 'teebench suite: host, profile' "$WORK/out" || fail "host's summary: $(cat "$WORK/out")"
if grep -q '^suite\[vm-tdx\]' "$WORK/err"; then fail "the refused TD was started: $(cat "$WORK/err")"; fi
[ -s "$WORK/res/host.json" ] && [ ! -e "$WORK/res/vm-tdx.json" ] || fail "result files: $(ls "$WORK/res")"
"$TB" results list --db "$DB" >"$WORK/list" || fail "results list"
[ "$(grep -cE ' host +[A-Za-z-]+ +custom +complete' "$WORK/list")" = 1 ] || fail "host stored: $(cat "$WORK/list")"
[ ! -e "$WORK/fake-qemu-launched" ] || fail "a refused TD launched QEMU"
pass "tdx refused with one line, host still ran"

# ---- QEMU failing at launch: its line, host kept, nothing left ----
rc=0
"$TB" suite run "${small[@]}" --vm-kinds regular --kernel "$K" --firmware none --accel tcg \
  --vsock off --progress plain >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] || fail "a VM that failed to start makes the exit 1, got $rc"
[ -e "$WORK/fake-qemu-launched" ] || fail "QEMU was not launched"
grep -q "^teebench: suite: vm-regular-tcg: NOTE: TCG EMULATION" "$WORK/err" || fail "no loud TCG note: $(cat "$WORK/err")"
grep -q "^teebench: suite: vm-regular-tcg: starting VM vm-regular-tcg: QEMU exited with 1: qemu-system-x86_64: -netdev user,id=net0: Could not set up host forwarding rule$" \
  "$WORK/err" || fail "QEMU's line: $(cat "$WORK/err")"
[ "$(grep -v ': NOTE: ' "$WORK/err" | grep -c '^teebench: ')" = 1 ] || fail "one error line: $(cat "$WORK/err")"
grep -q '^suite\[host\]: complete after' "$WORK/err" || fail "host did not run"
[ "$(grep -cE ' host +[A-Za-z-]+ +custom +complete' < <("$TB" results list --db "$DB"))" = 2 ] || fail "host's second run not stored"
[ ! -e "$RUN/vm-regular-tcg/vm.json" ] && [ ! -e "$RUN/vm-regular-tcg/qmp.sock" ] ||
  fail "a failed start left state behind: $(ls "$RUN/vm-regular-tcg")"
pass "QEMU failing at launch: one line, host kept, nothing left"
