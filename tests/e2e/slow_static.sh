#!/usr/bin/env bash
# The self-contained build (`make static`: teebench-static beside $TEEBENCH) in a minimal
# Debian 11 root made here with mmdebstrap (--variant=essential): glibc 2.31 and none of
# the libraries the ordinary build needs -- OpenSSL 3, SQLite, jansson, Lua 5.4, libcurl,
# and zlib (essential in Debian 11: removed from the root here). Older than Ubuntu 22.04's
# glibc 2.35 and just as bare, this one root stands for both guests.
#   1. readelf: no NEEDED entry, no program interpreter;
#   2. the ordinary build cannot start there (what the root is for);
#   3. in a chroot (a private mount namespace with /proc and /sys): env, syscall and probe
#      (short), a suite run of them (its notary workload skipped: no libcurl, said),
#      serve + http with a wrk script that tries to load a C module, notarize, and name
#      lookups that miss while /etc/nsswitch.conf names a module built for the root's glibc
#      (a statically linked glibc that loads one aborts: base/linkage.h);
#   4. suite run --target to an ssh host chrooted into that root: this build is copied,
#      cannot run, the self-contained one is copied and runs there; --guest-setup says
#      what is missing there (no package manager; then a stand-in apt-get that fails).
# Needs root, mmdebstrap and a Debian mirror (the network): a slow_* test (~40 s).
source "$(dirname "$0")/lib.sh"
STATIC=${TEEBENCH_STATIC:-$(dirname "$TB")/teebench-static}
[ -x "$STATIC" ] || skip "no self-contained build at $STATIC (make static)"
[ "$(id -u)" = 0 ] || skip "chroot and mount namespaces need root"
for t in mmdebstrap unshare chroot readelf; do
  command -v $t >/dev/null || skip "$t is not installed (scripts/setup.sh --test installs it)"
done
t0=$(date +%s)

# 1. nothing to load
readelf -d "$STATIC" >"$WORK/dyn" || fail "readelf -d $STATIC"
! grep -q '(NEEDED)' "$WORK/dyn" || fail "the self-contained build needs: $(grep NEEDED "$WORK/dyn")"
readelf -l "$STATIC" >"$WORK/phdr" || fail "readelf -l"
! grep -q 'INTERP' "$WORK/phdr" || fail "the self-contained build names a program interpreter"
grep -q '(NEEDED)' < <(readelf -d "$TB") || fail "the ordinary build has NEEDED entries (sanity)"

# 2. a Debian 11 root without those libraries
ROOT=$WORK/root
mirror=()
[ -z "${TEEBENCH_DEBIAN_MIRROR:-}" ] || mirror=("$TEEBENCH_DEBIAN_MIRROR")
mmdebstrap --quiet --variant=essential --mode=root bullseye "$ROOT" "${mirror[@]}" \
  >"$WORK/mmdebstrap.log" 2>&1 ||
  skip "mmdebstrap could not make a Debian 11 root (no Debian mirror reachable?): $(tail -1 "$WORK/mmdebstrap.log")"
t_root=$(($(date +%s) - t0))
ls "$ROOT"/lib/x86_64-linux-gnu/libc-2.31.so >/dev/null || fail "the root's glibc is not 2.31"
rm -f "$ROOT"/lib/x86_64-linux-gnu/libz.so.* "$ROOT"/usr/lib/x86_64-linux-gnu/libz.so.*
for so in libssl.so.3 libcrypto.so.3 libsqlite3.so.0 libjansson.so.4 liblua5.4.so.0 libz.so.1 \
  libcurl.so.4; do
  [ -z "$(find "$ROOT" -name "$so*" -print -quit)" ] || fail "$so is in the root"
done
cp "$STATIC" "$ROOT/teebench"
cp "$TB" "$ROOT/teebench-shared"
# a module the self-contained build must never load: that glibc's own, under a new name
ln -s libnss_files.so.2 "$ROOT/lib/x86_64-linux-gnu/libnss_tbtrap.so.2"
sed -i 's/^passwd:.*/passwd: files tbtrap/; s/^group:.*/group: files tbtrap/' "$ROOT/etc/nsswitch.conf"
grep -q '^hosts:' "$ROOT/etc/nsswitch.conf" || echo 'hosts: files dns' >>"$ROOT/etc/nsswitch.conf"
sed -i 's/^hosts:.*/hosts: files tbtrap dns/' "$ROOT/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n' >"$ROOT/etc/hosts"

# "${IN_ROOT[@]}" CMD...: CMD in the root, with /proc and /sys, a clean environment; one
# process from unshare to CMD (each execs the next), so its pid is CMD's
IN_ROOT=(unshare -m --propagation private sh -c
  'r=$1; shift; mount -t proc proc "$r/proc" && mount -t sysfs sysfs "$r/sys" && exec chroot "$r" "$@"'
  sh "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root)
in_root() { "${IN_ROOT[@]}" "$@"; }
rc=0; in_root /teebench-shared --version >"$WORK/out" 2>"$WORK/err" || rc=$?
[ $rc != 0 ] && grep -Eq "GLIBC_2\.3[2-9]' not found|error while loading shared libraries" "$WORK/err" ||
  fail "the ordinary build should not start in the root (rc $rc): $(cat "$WORK/err")"

# 3. the self-contained build there
in_root /teebench --version >"$WORK/out" 2>"$WORK/err" || fail "--version: $(cat "$WORK/err")"
[ "$(cat "$WORK/out")" = "teebench $("$TB" --version | cut -d' ' -f2)" ] || fail "version: $(cat "$WORK/out")"
in_root /teebench env --json >"$WORK/env.json" 2>"$WORK/err" || fail "env: $(cat "$WORK/err")"
in_root /teebench syscall --duration 0.2 --passes 2 --json >"$WORK/sys.json" 2>"$WORK/err" ||
  fail "syscall: $(cat "$WORK/err")"
in_root /teebench probe --probes getpid,rdtsc,cpuid,clock_gettime,page-4k --reps 200 --json \
  >"$WORK/probe.json" 2>"$WORK/err" || fail "probe: $(cat "$WORK/err")"
python3 - "$WORK" "$(uname -r)" <<'PY' || fail "env, syscall and probe in the root"
import json, sys, os
w, kernel = sys.argv[1], sys.argv[2]
env = json.load(open(os.path.join(w, "env.json")))
assert env["kernel_release"]["value"] == kernel, env["kernel_release"]
assert env["cpus"]["value"] >= 1 and env["platform"]["value"], env["platform"]
s = json.load(open(os.path.join(w, "sys.json")))
assert len(s["passes"]) == 2 and s["score_lps"] > 0 and s["index"] > 0, s
assert s["env"]["kernel_release"]["value"] == kernel
p = json.load(open(os.path.join(w, "probe.json")))
names = {x["name"]: x for x in p["probes"]}
assert {"getpid", "rdtsc", "cpuid", "clock_gettime", "page-4k"} <= set(names), names.keys()
assert all(x["median_ns"] > 0 for x in names.values()), names
PY

# the suite's env, syscall, probe; notary skipped with the reason (no libcurl here)
in_root /teebench suite run --profile quick --workloads syscall,probe,notary --repeat 1 \
  --set syscall.duration=0.2 --set syscall.passes=2 --set probe.probes=getpid,rdtsc \
  --set probe.max_reps=500 --set notary.iterations=1 --no-store -o /tmp/res.json --progress none \
  >"$WORK/suite.out" 2>"$WORK/suite.err" || fail "suite in the root: $(tail -3 "$WORK/suite.err")"
python3 - "$ROOT/tmp/res.json" <<'PY' || fail "the suite's result in the root: $(cat "$WORK/suite.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
names = {m["name"] for m in d["metrics"]}
assert {"syscall.c1.lps", "probe.getpid.ns", "probe.rdtsc.ns"} <= names, names
assert not any(n.startswith("notary.") for n in names), names
sk = d["extra"]["skipped"]
assert any(s["workload"] == "notary" and "self-contained build" in s["reason"]
           and "cannot load libcurl.so.4" in s["reason"] for s in sk), sk
assert d["versions"]["teebench_build"] == "self-contained", d["versions"]
PY

# serve and http in the root; a wrk script's C module is refused, not loaded
port=$(free_port)
spawn "${IN_ROOT[@]}" /teebench serve --addr 127.0.0.1 --port "$port" >"$WORK/serve.out" 2>&1
serve_pid=$SPAWNED_PID
wait_port "$port"
cat >"$ROOT/c.lua" <<'LUA'
local f, err = package.loadlib("/lib/x86_64-linux-gnu/libnss_files.so.2", "_nss_files_getpwnam_r")
io.stderr:write("loadlib: ", tostring(f), ": ", tostring(err), "\n")
local ok = pcall(require, "tbnosuchmodule")
io.stderr:write("require: ", tostring(ok), "\n")
LUA
in_root /teebench http -t1 -c2 -d 1s -s /c.lua "http://localhost:$port/" >"$WORK/http.out" \
  2>"$WORK/http.err" || fail "http in the root: $(cat "$WORK/http.err")"
grep -Eq '^ +[0-9]+ requests in ' "$WORK/http.out" || fail "http output: $(cat "$WORK/http.out")"
grep -q "loadlib: nil: the self-contained teebench (make static) loads no C module" "$WORK/http.err" ||
  fail "package.loadlib in the self-contained build: $(cat "$WORK/http.err")"
grep -q "require: false" "$WORK/http.err" || fail "require of a missing module: $(cat "$WORK/http.err")"
kill "$serve_pid"
wait "$serve_pid" 2>/dev/null || true

# notarize: libcurl cannot be loaded here, and says so in one line
rc=0
in_root env USE_FIXTURE_CA=false /teebench notarize --notary "http://127.0.0.1:$port" \
  >"$WORK/out" 2>"$WORK/err" || rc=$?
[ $rc != 0 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
  grep -q '^teebench: notarize: libcurl is not available: this teebench is the self-contained build' "$WORK/err" ||
  fail "notarize without libcurl (rc $rc): $(cat "$WORK/err")"

# name lookups that miss reach the foreign NSS module in nsswitch.conf: not loaded
rc=0
unshare -m --propagation private sh -c 'mount -t proc proc "$0/proc" && exec chroot --userspec=54321:54321 "$0" env -i PATH=/usr/bin:/bin /teebench results list' \
  "$ROOT" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ $rc = 1 ] && grep -q '^teebench: results: no home directory' "$WORK/err" ||
  fail "an unknown uid without HOME (rc $rc): $(cat "$WORK/err")"
rc=0; in_root /teebench http -d 1s http://tb-no-such-host.invalid:1/ >"$WORK/out" 2>"$WORK/err" || rc=$?
[ $rc != 0 ] && grep -q '^teebench: http: resolve tb-no-such-host.invalid:1: ' "$WORK/err" ||
  fail "a name nobody knows (rc $rc): $(cat "$WORK/err")"
t_chroot=$(($(date +%s) - t0 - t_root))

# 4. a remote that is that root: sshd chrooted into it
source "$(dirname "$0")/lib_hosts.sh"
[ -d /mnt ] || skip "no /mnt to mount the root on in the host's namespace"
HOSTS_SSHD_EXTRA="ChrootDirectory /mnt"
HOSTS_NS_SETUP="mount --bind '$ROOT' /mnt && mount -t proc proc /mnt/proc && mount -t sysfs sysfs /mnt/sys"
hosts_up old
"$TB" suite run --profile quick --workloads syscall,probe --repeat 1 --set syscall.duration=0.2 \
  --set syscall.passes=2 --set probe.probes=getpid --set probe.max_reps=500 \
  --target old=ssh://old --ssh-config "$SSH_CONFIG" --no-store -o "$WORK/res" --progress plain \
  >"$WORK/remote.out" 2>"$WORK/remote.err" || fail "suite on the Debian 11 host: $(tail -5 "$WORK/remote.err")"
grep -Eq "^suite\[old\]: this teebench cannot run on old \((it needs glibc 2\.3[2-9] or later|lib[a-z0-9.]+ is missing).*\): running the self-contained build there \(teebench-[0-9.]+-[0-9a-f]{12}\)$" \
  "$WORK/remote.err" || fail "the fallback is said: $(grep -i 'cannot run\|self-contained' "$WORK/remote.err")"
python3 - "$WORK/res/old.json" <<'PY' || fail "the result from the Debian 11 host"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete" and d["label"] == "old", (d["status"], d["label"])
assert {"syscall.c1.lps", "probe.getpid.ns"} <= {m["name"] for m in d["metrics"]}
assert d["versions"]["teebench_build"] == "self-contained", d["versions"]
PY
# both copies are in the root's cache: this build's (which does not run) and the static one
[ "$(ls "$ROOT/root/.cache/teebench" | grep -Ec '^teebench-[0-9.]+-[0-9a-f]{12}$')" = 2 ] ||
  fail "the remote cache: $(ls -la "$ROOT/root/.cache/teebench")"
cmp -s "$STATIC" "$ROOT/root/.cache/teebench/$(cd "$ROOT/root/.cache/teebench" && for f in teebench-*; do cmp -s "$f" "$STATIC" && echo "$f"; done)" ||
  fail "the self-contained build is not among the copies"

# --guest-setup there: no package manager in an essential root -> one line, the suite
# still runs, its nginx target skipped naming the package; exit 1
guest=(--profile quick --workloads http --repeat 1 --set http.targets=nginx --set http.duration=0.2s
       --target old=ssh://old --ssh-config "$SSH_CONFIG" --no-store -o "$WORK/g" --progress plain --guest-setup)
rc=0; "$TB" suite run "${guest[@]}" >"$WORK/g.out" 2>"$WORK/g.err" || rc=$?
[ $rc = 1 ] || fail "--guest-setup that cannot install exits 1, got $rc: $(tail -3 "$WORK/g.err")"
grep -q '^teebench: suite: old: --guest-setup: nginx is not installed on old, which has neither apt-get nor dnf: install the package nginx there' \
  "$WORK/g.err" || fail "the guest-setup line: $(cat "$WORK/g.err")"
python3 - "$WORK/g/old.json" <<'PY' || fail "nginx skipped with its package named"
import json, sys
d = json.load(open(sys.argv[1]))
sk = d["extra"]["skipped"]
assert any(s["workload"] == "http" and s["target"] == "nginx" and "install the package nginx" in s["reason"]
           for s in sk), sk
PY
# with an apt-get there (a stand-in that logs and fails as an offline guest's would)
cat >"$ROOT/usr/local/bin/apt-get" <<'SH'
#!/bin/sh
echo "$* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >>/root/apt-get.log
case " $* " in *" install "*) echo "E: Unable to locate package nginx" >&2; exit 100 ;; esac
SH
chmod 755 "$ROOT/usr/local/bin/apt-get"
rc=0; "$TB" suite run "${guest[@]}" >"$WORK/g.out" 2>"$WORK/g.err" || rc=$?
[ $rc = 1 ] || fail "--guest-setup with a failing apt-get exits 1, got $rc"
grep -q '^teebench: suite: old: --guest-setup: apt-get install nginx failed on old: E: Unable to locate package nginx$' \
  "$WORK/g.err" || fail "apt-get's failure: $(cat "$WORK/g.err")"
grep -qx 'update -qq DEBIAN_FRONTEND=noninteractive' "$ROOT/root/apt-get.log" &&
  grep -qx 'install -y -qq --no-install-recommends nginx DEBIAN_FRONTEND=noninteractive' "$ROOT/root/apt-get.log" ||
  fail "apt-get's arguments: $(cat "$ROOT/root/apt-get.log")"
echo "times: root ${t_root}s, chroot checks ${t_chroot}s, total $(($(date +%s) - t0))s; static build $(du -h "$STATIC" | cut -f1)"
pass slow_static
