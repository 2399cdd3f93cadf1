#!/usr/bin/env bash
# e2e: teebench storage -- real fio on a file in a directory on this machine's disk (both
# engines, --json, the document imported), the text output, the places refused before
# anything is written (ramfs: no O_DIRECT; tmpfs: memory; both in a mount namespace this
# test makes), a loop device this test makes (free: measured; mounted: refused), a missing
# fio (PATH without it: the package named), an interrupt, and the suite's storage workload
# (measured; skipped with the package when fio is missing).
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed (scripts/setup.sh installs it)"
D="$WORK/disk"
mkdir -m 0700 "$D"
fs=$(stat -f -c %T "$D")
case $fs in tmpfs | ramfs) skip "$WORK is on $fs: no disk here for fio's direct I/O" ;; esac
FAST=(--size 16M --runtime 300ms --ramp 100ms)

# 1. a file in a named directory, two jobs (one mixed), both engines, one JSON document
"$TB" storage --dir "$D" "${FAST[@]}" --jobs lat-randread,iops-randrw --engines libaio,io_uring \
  --json >"$WORK/st.json" 2>"$WORK/st.err" || fail "teebench storage --json: $(cat "$WORK/st.err")"
[ -z "$(ls -A "$D")" ] || fail "fio's file was left in $D: $(ls -A "$D")"
python3 - "$WORK/st.json" "$D" <<'EOF' || fail "teebench storage --json: the document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "teebench-storage/1", d["schema"]
assert d["fio"].startswith("fio-"), d["fio"]
t = d["target"]
assert t["kind"] == "file" and t["path"].startswith(sys.argv[2] + "/teebench-fio."), t
assert t["size_bytes"] == 16 << 20 and t["filesystem"], t
assert d["options"]["direct"] is True and d["options"]["runtime_s"] == 0.3, d["options"]
runs = {r["engine"]: r for r in d["runs"]}
assert "libaio" in runs, runs.keys()
for r in runs.values():
    jobs = {j["name"]: j for j in r["jobs"]}
    assert sorted(jobs) == ["iops-randrw", "lat-randread"], sorted(jobs)
    rr = jobs["lat-randread"]["read"]
    assert rr["iops"] > 0 and 0 < rr["clat_us"]["p50"] <= rr["clat_us"]["p99"] <= rr["clat_us"]["p99.9"]
    assert "write" not in jobs["lat-randread"]
    mixed = jobs["iops-randrw"]
    assert mixed["rwmixread"] == 70 and mixed["read"]["iops"] > mixed["write"]["iops"] > 0, mixed
print("engines:", ", ".join(sorted(runs)))
EOF
# the document is one `results import` reads: the workload's names
DB="$WORK/r.db"
"$TB" results --db "$DB" import "$WORK/st.json" >"$WORK/imp.out" || fail "import of teebench storage --json"
"$TB" results --db "$DB" show "$(awk '{print $2; exit}' "$WORK/imp.out")" >"$WORK/show.out"
for m in storage.libaio.lat-randread.clat.p99.9 storage.libaio.iops-randrw.write.iops \
  storage.libaio.iops-randrw.read.bw; do
  grep -q "$m" "$WORK/show.out" || fail "imported run lacks $m: $(cat "$WORK/show.out")"
done
pass "fio on a file: both engines, --json, imported"

# 2. text output: a line per job and direction, with units
"$TB" storage --dir "$D" "${FAST[@]}" --jobs lat-write >"$WORK/st.txt" 2>&1 || fail "text: $(cat "$WORK/st.txt")"
grep -q "^fio-.* on file $D/teebench-fio\..* direct=1" "$WORK/st.txt" || fail "text head: $(cat "$WORK/st.txt")"
grep -Eq '^libaio +lat-write +write +write +4k +1 +1 +[0-9]+ +[0-9.]+ MiB/s +[0-9.]+(us|ms)' "$WORK/st.txt" ||
  fail "text row: $(cat "$WORK/st.txt")"
[ -z "$(ls -A "$D")" ] || fail "fio's file was left in $D"

# 3. refused places, each with one line, nothing written
mkdir -p "$WORK/empty"
expect_fail 1 env PATH="$WORK/empty" "$TB" storage --dir "$D" "${FAST[@]}"
grep -q "fio is not installed (fio not found in PATH): install the package fio" "$WORK/err" ||
  fail "missing fio: $(cat "$WORK/err")"
expect_fail 1 "$TB" storage --dir "$D/none" "${FAST[@]}"
grep -q "storage directory $D/none: No such file or directory" "$WORK/err" || fail "no dir: $(cat "$WORK/err")"
expect_fail 2 "$TB" storage --dir relative/dir
grep -q -- "--dir relative/dir: 'relative/dir' is not an absolute path" "$WORK/err" || fail "relative: $(cat "$WORK/err")"
expect_fail 2 "$TB" storage --dir "$D" --device /dev/null
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  M="$WORK/mnt"
  mkdir "$M"
  for kind in ramfs tmpfs; do
    rc=0
    unshare -m --propagation private sh -c \
      "mount -t $kind none '$M' && exec '$TB' storage --dir '$M' --size 16M --runtime 300ms" \
      >"$WORK/out" 2>"$WORK/err" || rc=$?
    [ $rc = 1 ] || fail "$kind: exit $rc: $(cat "$WORK/err")"
    [ "$(wc -l <"$WORK/err")" = 1 ] || fail "$kind: not one line: $(cat "$WORK/err")"
    case $kind in
      ramfs) want="direct I/O (O_DIRECT) is not supported on $M (ramfs: Invalid argument), and fio's jobs run with direct=1: name a directory on a disk" ;;
      tmpfs) want="$M is on tmpfs: memory, not a disk" ;;
    esac
    grep -qF "$want" "$WORK/err" || fail "$kind: $(cat "$WORK/err")"
  done
  pass "ramfs and tmpfs refused with one line"

  # 4. a loop device this test makes: measured when free, refused when mounted
  if command -v losetup >/dev/null && truncate -s 32M "$WORK/loop.img" &&
    L=$(losetup -f --show "$WORK/loop.img" 2>/dev/null); then
    trap 'losetup -d "$L" 2>/dev/null; _tb_cleanup' EXIT
    "$TB" storage --device "$L" --size 64M --runtime 300ms --ramp 0 --jobs lat-read,lat-write \
      --json >"$WORK/dev.json" 2>"$WORK/dev.err" || fail "loop device: $(cat "$WORK/dev.err")"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["target"]
assert t["kind"] == "device" and t["path"] == sys.argv[2] and t["filesystem"] == "block device", t
assert t["size_bytes"] == 32 << 20, t  # the device is smaller than --size: all of it
assert len(d["runs"][0]["jobs"]) == 2
' "$WORK/dev.json" "$L" || fail "loop device document: $(cat "$WORK/dev.json")"
    if command -v mkfs.ext4 >/dev/null; then
      rc=0
      unshare -m --propagation private sh -c \
        "mkfs.ext4 -q '$L' && mount '$L' '$M' && exec '$TB' storage --device '$L' --size 16M" \
        >"$WORK/out" 2>"$WORK/err" || rc=$?
      [ $rc = 1 ] || fail "mounted device: exit $rc: $(cat "$WORK/err")"
      grep -qF "$L is in use (mounted, swap, or held by another device): fio would write over it" \
        "$WORK/err" || fail "mounted device: $(cat "$WORK/err")"
    fi
    losetup -d "$L"
    trap _tb_cleanup EXIT
    pass "a loop device: measured free, refused mounted"
  fi
fi

# 5. an interrupt: fio's process group killed at once, the file removed, exit 130
"$TB" storage --dir "$D" --size 16M --runtime 30s --ramp 0 --jobs lat-read >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
for _ in $(seq 100); do pgrep -f "fio.*--filename=$D/" >/dev/null && break; sleep 0.05; done
pgrep -f "fio.*--filename=$D/" >/dev/null || fail "fio did not start: $(cat "$WORK/int.err")"
t0=$(date +%s%N)
kill -INT $pid
rc=0
wait $pid || rc=$?
[ $rc = 130 ] || fail "interrupted: exit $rc: $(cat "$WORK/int.err")"
[ $((($(date +%s%N) - t0) / 1000000)) -lt 3000 ] || fail "the interrupt took more than 3 s"
grep -qx "teebench: storage: interrupted" "$WORK/int.err" || fail "interrupted: $(cat "$WORK/int.err")"
pgrep -f "fio.*--filename=$D/" >/dev/null && fail "fio still runs after the interrupt"
[ -z "$(ls -A "$D")" ] || fail "the interrupt left fio's file in $D"
pass "SIGINT: fio stopped, its file removed, exit 130"

# 6. the suite's workload: measured; skipped with the package when fio is missing
SET=(--set storage.dir="$D" --set storage.size=16M --set storage.runtime=300ms
  --set storage.ramp=0 --set storage.jobs=lat-randread)
"$TB" suite run --profile quick --workloads storage --repeat 1 "${SET[@]}" --no-store \
  -o "$WORK/suite.json" --progress plain 2>"$WORK/suite.err" || fail "suite storage: $(cat "$WORK/suite.err")"
python3 - "$WORK/suite.json" <<'EOF' || fail "suite storage result"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete", r["status"]
names = {m["name"] for m in r["metrics"]}
want = {"storage.libaio.lat-randread." + s for s in ("iops", "bw", "clat.p50", "clat.p99", "clat.p99.9")}
assert names == want, names
assert r["extra"]["storage_target"]["kind"] == "file", r["extra"]
assert any("fio" in c and "--direct=1" in c for c in r["commands"]), r["commands"]
EOF
[ -z "$(ls -A "$D")" ] || fail "the suite left fio's file in $D"
ln -s "$(command -v python3)" "$WORK/empty/python3"
PATH="$WORK/empty" "$TB" suite run --profile quick --workloads storage --repeat 1 "${SET[@]}" \
  --no-store -o "$WORK/suite2.json" --progress plain 2>"$WORK/suite2.err" || fail "suite without fio: $(cat "$WORK/suite2.err")"
python3 - "$WORK/suite2.json" <<'EOF' || fail "suite without fio: $(cat "$WORK/suite2.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete" and not r["metrics"], r["status"]
sk = r["extra"]["skipped"]
assert len(sk) == 1 and sk[0]["workload"] == "storage", sk
assert "install the package fio" in sk[0]["reason"], sk
EOF
grep -q "install the package fio" "$WORK/suite2.err" || fail "the skip is not said on the terminal: $(cat "$WORK/suite2.err")"
pass "suite storage: measured, and skipped with the package without fio"
