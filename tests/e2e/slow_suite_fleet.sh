#!/usr/bin/env bash
# Fleets and the full remote suite, on two hosts made by the test (network namespaces
# with sshd; tests/e2e/lib_hosts.sh), each starting without a teebench:
#  1. contrib/ansible/teebench-suite.yml with Debian's ansible-playbook: an inventory
#     of the two hosts, a small suite on each; the fetched results are imported with
#     `teebench results import` and compared by label. An unreachable host in the inventory is reported, the others still run.
#     Ansible writes nothing outside $WORK.
#  2. `teebench suite run --profile quick --target a=ssh://a --target b=ssh://b`, the
#     issue's own command, then `compare` on the stored runs. It finds the copy the
#     playbook made (same name) and does not send it again.
# Release stage only (slow_: the quick profile runs twice, a few minutes on 2 cores).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_hosts.sh"
SRC=${TEEBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PLAYBOOK=$SRC/contrib/ansible/teebench-suite.yml
command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (Debian package ansible)"
t0=$(date +%s)
touch "$WORK/t0"
hosts_up a b
A=${HOST_ADDR[a]} B=${HOST_ADDR[b]}

# ---- 1. the Ansible playbook
# Everything Ansible writes goes under $WORK: its home, temp dirs (local and on the
# hosts, which share this file system), ssh control sockets; no retry files, no
# ansible.cfg from elsewhere; host keys checked against the test's known_hosts.
AW=$WORK/ansible
mkdir -p "$AW/home" "$AW/tmp" "$AW/remote-tmp" "$AW/cp"
: >"$AW/ansible.cfg"
export ANSIBLE_CONFIG=$AW/ansible.cfg ANSIBLE_HOME=$AW/home ANSIBLE_LOCAL_TEMP=$AW/tmp \
  ANSIBLE_REMOTE_TEMP=$AW/remote-tmp ANSIBLE_SSH_CONTROL_PATH_DIR=$AW/cp \
  ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_HOST_KEY_CHECKING=true ANSIBLE_NOCOLOR=1 \
  ANSIBLE_FORCE_COLOR=0 ANSIBLE_STDOUT_CALLBACK=default ANSIBLE_LOAD_CALLBACK_PLUGINS=false \
  ANSIBLE_DEPRECATION_WARNINGS=false ANSIBLE_GATHERING=explicit ANSIBLE_PIPELINING=true
close_ansible_masters() {
  local s
  for s in "$AW"/cp/*; do
    [ -S "$s" ] && ssh -o ControlPath="$s" -O exit dummy 2>/dev/null || true
  done
}
trap 'close_ansible_masters; hosts_down; _tb_cleanup' EXIT

cat >"$WORK/inventory.ini" <<INV
[bench]
a ansible_host=$A
gone ansible_host=$A ansible_port=2
b ansible_host=$B label=b

[bench:vars]
ansible_user=root
ansible_ssh_private_key_file=$SSH_KEY
ansible_ssh_common_args='-F $SSH_CONFIG'
ansible_python_interpreter=/usr/bin/python3
INV
# task_out NAME FILE: what ansible-playbook printed for the task NAME (a prefix)
task_out() { awk -v t="TASK [$1" 'index($0, "TASK [") == 1 { on = index($0, t) == 1; next } on' "$2"; }
suite_args="--workloads syscall,probe --repeat 3 --set syscall.duration=0.2 --set syscall.passes=2 --set probe.probes=getpid,rdtsc --set probe.max_reps=2000"
# (from $WORK: the relative results_dir is taken from there, not the playbook's folder)
play() {
  (cd "$WORK" && ansible-playbook -i inventory.ini "$PLAYBOOK" -e "teebench_binary=$TB" \
    -e profile=quick -e results_dir=fleet -e "{\"suite_args\": \"$suite_args\"}" "$@")
}
p0=$(date +%s)
rc=0
play >"$WORK/play1.out" 2>"$WORK/play1.err" || rc=$?
p1=$(date +%s)
# exit 4: some host was unreachable (gone); the others ran
[ $rc = 4 ] || fail "ansible-playbook exit $rc, not 4: $(tail -30 "$WORK/play1.out") $(cat "$WORK/play1.err")"
grep -Eq '^gone +: ok=[0-9]+ +changed=0 +unreachable=1 +failed=0' "$WORK/play1.out" ||
  fail "the unreachable host in the recap: $(tail -5 "$WORK/play1.out")"
grep -q 'fatal: \[gone\]: UNREACHABLE' "$WORK/play1.out" || fail "gone reported unreachable"
grep -Eq '^a +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0' "$WORK/play1.out" ||
  fail "play recap for a: $(tail -5 "$WORK/play1.out")"
grep -Eq '^b +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0' "$WORK/play1.out" ||
  fail "play recap for b"
grep -v 'gone' "$WORK/play1.out" "$WORK/play1.err" | grep -q 'WARNING' &&
  fail "ansible warned: $(grep -h -A2 WARNING "$WORK/play1.out" "$WORK/play1.err")"
# the copy landed under the name `suite run --target` uses, once per host
name=$(ssh -F "$SSH_CONFIG" a 'ls ~/.cache/teebench/')
echo "$name" | grep -Eq '^teebench-[0-9.]+-[0-9a-f]{12}$' || fail "the copy's name on a: $name"
task_out 'This build, copied' "$WORK/play1.out" | grep -q '^changed: \[a\]' ||
  fail "the binary was copied to a: $(task_out 'This build, copied' "$WORK/play1.out")"
# the summaries came back in the play's output; the results were fetched and removed there
grep -q 'probe.getpid.ns' "$WORK/play1.out" || fail "the suite's summary shown"
[ -s "$WORK/fleet/a.json" ] && [ -s "$WORK/fleet/b.json" ] || fail "results fetched: $(ls -la "$WORK/fleet" 2>&1)"
if [ -e "$SRC/contrib/ansible/fleet" ]; then
  rm -rf "$SRC/contrib/ansible/fleet"
  fail "results_dir was taken relative to the playbook's folder"
fi
ssh -F "$SSH_CONFIG" b 'ls ~/.cache/teebench/' | grep -q result && fail "the result was left on b"
# no retry file beside the playbook (nor anything in ~/.ansible: checked below)
[ ! -e "$SRC/contrib/ansible/teebench-suite.retry" ] || fail "a retry file was written"
# the copy Ansible made is the one `suite run --target` looks for (checked in part 2)
for h in a b; do ssh -F "$SSH_CONFIG" "$h" 'stat -c "%i %Y %s" ~/.cache/teebench/teebench-*'; done >"$WORK/copies1"
# import and compare what the fleet measured
DB=$WORK/fleet.db
"$TB" results --db "$DB" import "$WORK"/fleet/*.json >"$WORK/import.out" 2>&1 ||
  fail "results import: $(cat "$WORK/import.out")"
"$TB" results --db "$DB" list >"$WORK/list" || fail "results list"
grep -Eq ' a +[A-Za-z-]+ +custom +complete' "$WORK/list" || fail "a imported under its label: $(cat "$WORK/list")"
grep -Eq ' b +[A-Za-z-]+ +custom +complete' "$WORK/list" || fail "b imported under its label"
"$TB" compare a b --db "$DB" --format csv >"$WORK/cmp.csv" || fail "compare a b"
for m in syscall.c1.lps probe.getpid.ns; do
  grep -q "^$m," "$WORK/cmp.csv" || fail "compare row $m: $(head -5 "$WORK/cmp.csv")"
done
python3 - "$WORK/fleet" <<'PY' || fail "fetched result documents"
import json, os, sys
for h in ("a", "b"):
    d = json.load(open(os.path.join(sys.argv[1], h + ".json")))
    assert d["schema"] == "teebench-result" and d["label"] == h, (h, d["label"])
    s = {m["name"]: m for m in d["metrics"]}
    assert len(s["probe.getpid.ns"]["samples"]) == 3, s["probe.getpid.ns"]
    assert any("suite run" in c for c in d["commands"]), d["commands"]
PY
close_ansible_masters
# (HOME is the test's own, empty at the start: lib.sh; a machine that never ran Ansible
# has no ~/.ansible, and Ansible must not have made one)
[ ! -e "$HOME/.ansible" ] || fail "ansible wrote under ~/.ansible: $(find "$HOME/.ansible" | head -3)"
p2=$(date +%s)

# ---- 2. the issue's command: the quick profile on both hosts over OpenSSH
DB2=$WORK/ssh.db
"$TB" suite run --profile quick --target a=ssh://a --target b=ssh://b --ssh-config "$SSH_CONFIG" \
  --db "$DB2" -o "$WORK/quick" --progress plain >"$WORK/quick.out" 2>"$WORK/quick.err" ||
  fail "suite run --profile quick on a and b: $(tail -20 "$WORK/quick.err")"
p3=$(date +%s)
for h in a b; do ssh -F "$SSH_CONFIG" "$h" 'stat -c "%i %Y %s" ~/.cache/teebench/teebench-*'; done >"$WORK/copies2"
cmp -s "$WORK/copies1" "$WORK/copies2" || fail "suite run --target copied again over Ansible's copy: $(cat "$WORK/copies1" "$WORK/copies2")"
grep -q '^== comparison (baseline a)' "$WORK/quick.out" || fail "comparison printed: $(tail "$WORK/quick.out")"
for h in a b; do
  grep -q "^suite\[$h\]: complete after" "$WORK/quick.err" || fail "$h complete: $(grep "suite\[$h\]" "$WORK/quick.err" | tail -5)"
done
"$TB" results --db "$DB2" list >"$WORK/list2" || fail "results list (ssh)"
[ "$(grep -cE ' (a|b) +[A-Za-z-]+ +quick +complete' "$WORK/list2")" = 2 ] || fail "both quick runs stored: $(cat "$WORK/list2")"
"$TB" compare a b --db "$DB2" --format csv >"$WORK/cmp2.csv" || fail "compare the stored quick runs"
for m in http.nginx.rps syscall.c1.lps; do
  grep -q "^$m," "$WORK/cmp2.csv" || fail "quick compare row $m: $(cut -d, -f1 "$WORK/cmp2.csv" | tr '\n' ' ')"
done
[ "$(tail -n +2 "$WORK/cmp2.csv" | wc -l)" -ge 10 ] || fail "quick compare has the suite's rows"
echo "times: hosts up $((p0 - t0)) s, play $((p1 - p0)) s, play+import+compare $((p2 - p0)) s, suite --profile quick on 2 targets $((p3 - p2)) s, total $(($(date +%s) - t0)) s"
pass slow_suite_fleet
