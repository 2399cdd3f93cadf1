#!/usr/bin/env bash
# `suite run --target` against a hostile remote: ssh is tests/tools/fake_ssh.sh (first in
# PATH; it runs the remote command here) and the remote teebench a script that answers
# --version as this build, then misbehaves:
#   1. progress with escape sequences (a window title, clear screen, cursor moves, a C1
#      CSI, in plain lines and inside JSON events), a 200 MB stderr line without a
#      newline, and a result labelled "host" with an escape sequence in a skipped
#      workload's reason: nothing raw reaches the terminal (each shown escaped), the
#      line costs one pass (< 20 s even under ASan), and the result is stored and
#      written under the target's name ("TDX VM");
#   2. a 120 MB result of 40 million samples: refused with one line, peak memory
#      (/usr/bin/time) under 300 MB -- the old reader took 3.3 GB;
#   3. a result over 256 MiB: one line, nothing stored, never in memory (< 128 MB);
#   4. Ctrl-C while it floods stderr with a line that never ends and ignores SIGINT:
#      teebench exits 130 within 2 s (not after the 60 s a stopping suite gets).
source "$(dirname "$0")/lib.sh"

SRC=${TEEBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
[ -x /usr/bin/time ] || skip "/usr/bin/time missing (scripts/setup.sh --test installs package time)"
mkdir -p "$WORK/bin" "$WORK/home"
ln -s "$SRC/tests/tools/fake_ssh.sh" "$WORK/bin/ssh"
export PATH="$WORK/bin:$PATH" HOME="$WORK/home"
unset XDG_CACHE_HOME
DB=$WORK/results.db
VERSION=$("$TB" --version | head -1)

# hostile NAME BODY: a remote teebench that runs BODY (sh) after answering --version
hostile() {
  printf '#!/bin/sh\n[ "$1" = --version ] && { echo "%s"; exit 0; }\n%s\n' "$VERSION" "$2" >"$WORK/$1"
  chmod 755 "$WORK/$1"
}
# raw FILE: how many lines hold what a terminal acts on (ESC, C1 CSI, BEL, CR)
raw() { LC_ALL=C grep -c $'\x1b\|\xc2\x9b\|\x07\|\r' "$1" || true; }
run() { "$TB" suite run --profile quick --workloads probe --db "$DB" \
  --progress plain "$@"; }

python3 - "$WORK/home/res.json" <<'PY'
import json, sys
json.dump({
    "schema": "teebench-result", "schema_version": 1,
    "id": "0b0f3d4e-1c2a-4b5c-8d6e-7f8091a2b3c4", "label": "host", "status": "complete",
    "profile": "quick", "started": "2026-11-30T18:10:00Z", "finished": "2026-11-30T18:10:30Z",
    "teebench_version": "0.1.0", "simulated": False, "env": None,
    "commands": ["teebench suite run \u001b]0;cmd\u0007"], "versions": {},
    "extra": {"skipped": [{"workload": "http", "target": "nginx\u001b[2K",
                           "reason": "\u001b[31mred\u001b[0m"}]},
    "metrics": [{"name": "probe.getpid.ns", "unit": "ns", "better": "lower", "workload": "probe",
                 "note": "a note \u001b[5m", "simulated": False, "samples": [42.0, 43.0]}],
}, open(sys.argv[1], "w"))
PY
EV='{"event":"step_done","workload":"probe\u001b]0;wl\u0007","target":"getpid","round":1,"rounds":1,"step":1,"steps":1,"elapsed_s":1,"eta_s":0,"step_s":0.5,"status":"ok","text":"\u001b[2Jcleared"}'

# 1. escapes, a 200 MB line, a result that calls itself "host"
hostile evil "printf '\\033]0;title\\007\\033[2J\\033[1;1Hhello \\302\\2332J\\n' >&2
printf '%s\\n' '$EV' >&2
head -c 200000000 /dev/zero | tr '\\0' x >&2
echo >&2
cat \"\$HOME/res.json\""
t0=$(date +%s%N)
run --target 'TDX VM=ssh://fake' --remote-binary "$WORK/evil" -o "$WORK/res" \
  >"$WORK/1.out" 2>"$WORK/1.err" || fail "run 1: $(tail -3 "$WORK/1.err" | cut -c1-300)"
ms=$((($(date +%s%N) - t0) / 1000000))
echo "a 200 MB stderr line: the run took $ms ms"
[ "$ms" -lt 20000 ] || fail "the 200 MB line took $ms ms"
for f in 1.out 1.err; do
  [ "$(raw "$WORK/$f")" = 0 ] || fail "$f: raw control characters: $(cut -c1-200 "$WORK/$f" | cat -v)"
done
grep -qF 'suite[TDX VM]: \x1b]0;title\x07\x1b[2J\x1b[1;1Hhello \u009b2J' "$WORK/1.err" ||
  fail "an INFO line escaped: $(cut -c1-200 "$WORK/1.err")"
grep -qF 'probe\x1b]0;wl\x07 getpid: ok in 0.5 s: \x1b[2Jcleared' "$WORK/1.err" || fail "an event's texts escaped"
grep -q '^suite\[TDX VM\]: xxxxxxxxxx.*\.\.\. (a line of 200000000 bytes, cut)$' "$WORK/1.err" ||
  fail "the giant line cut: $(grep -c x "$WORK/1.err")"
[ "$(LC_ALL=C wc -L <"$WORK/1.err")" -lt 4096 ] || fail "a line of the progress is longer than 4 KiB"
grep -qF 'teebench suite: TDX VM, profile quick' "$WORK/1.out" || fail "summary: the target's name: $(cat "$WORK/1.out")"
grep -qF 'http nginx\x1b[2K: \x1b[31mred\x1b[0m' "$WORK/1.out" || fail "summary: the skipped reason escaped"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["label"] == "TDX VM", d["label"]' \
  "$WORK/res/TDX VM.json" || fail "DIR/NAME.json carries the target's name"
"$TB" results --db "$DB" list >"$WORK/list"
grep -q ' TDX VM ' "$WORK/list" && ! grep -q ' host ' "$WORK/list" || fail "stored as 'TDX VM': $(cat "$WORK/list")"
"$TB" results --db "$DB" show 'TDX VM' >"$WORK/show" || fail "show 'TDX VM'"
[ "$(raw "$WORK/show")" = 0 ] && grep -qF 'teebench suite run \x1b]0;cmd\x07' "$WORK/show" ||
  fail "show: the command escaped: $(cat -v "$WORK/show")"
pass "escape sequences shown escaped, a 200 MB line in $ms ms, the result stored as 'TDX VM'"

# 2. a 120 MB result of 40 million samples: refused, memory bounded
hostile huge "printf '{\"schema\": \"teebench-result\", \"schema_version\": 1, \"metrics\": [{\"name\": \"probe.x.ns\", \"samples\": ['
yes 1, | head -n 40000000 | tr -d '\\n'
printf '1]}]}\\n'"
rc=0
/usr/bin/time -f '%M' -o "$WORK/rss" "$TB" suite run --profile quick --workloads probe \
  --db "$DB" --progress none --target a=ssh://fake \
  --remote-binary "$WORK/huge" >"$WORK/2.out" 2>"$WORK/2.err" || rc=$?
[ $rc = 1 ] || fail "a 120 MB result: exit $rc"
[ "$(cat "$WORK/2.err")" = "teebench: suite: a: the result from fake: too large for a result: more than 1000000 values" ] ||
  fail "a 120 MB result: $(cat "$WORK/2.err")"
kib=$(tail -1 "$WORK/rss")
echo "a 120 MB result: peak memory $((kib / 1024)) MiB"
[ "$kib" -lt $((300 * 1024)) ] || fail "a 120 MB result took $((kib / 1024)) MiB"
pass "a 120 MB result refused with one line, peak memory $((kib / 1024)) MiB"

# 3. a result over 256 MiB: one line, not stored
hostile vast "head -c 300000000 /dev/zero"
expect_fail 1 /usr/bin/time -f '%M' -o "$WORK/rss" "$TB" suite run --profile quick \
  --workloads probe --db "$DB" --progress none --target b=ssh://fake --remote-binary "$WORK/vast"
grep -qx 'teebench: suite: b: the suite on fake: the remote sent more than 256 MiB' "$WORK/err" ||
  fail "over 256 MiB: $(cat "$WORK/err")"
"$TB" results --db "$DB" list | grep -q ' b ' && fail "a refused result was stored"
kib=$(tail -1 "$WORK/rss")
[ "$kib" -lt $((128 * 1024)) ] || fail "256 MiB of result were held in memory: $((kib / 1024)) MiB"
pass "a result over 256 MiB refused with one line, peak memory $((kib / 1024)) MiB (a temporary file)"

# 4. Ctrl-C during a line that never ends, from a remote that ignores SIGINT
hostile flood "trap '' INT
printf '%s\\n' '$EV' >&2
cat /dev/zero | tr '\\0' x >&2"
"$TB" suite run --profile quick --workloads probe --db "$DB" --progress plain \
  --target c=ssh://fake --remote-binary "$WORK/flood" >"$WORK/4.out" 2>"$WORK/4.err" &
pid=$!
for _ in $(seq 100); do grep -q 'getpid: ok' "$WORK/4.err" 2>/dev/null && break; sleep 0.1; done
grep -q 'getpid: ok' "$WORK/4.err" || fail "the flooding remote did not start: $(cut -c1-200 "$WORK/4.err")"
sleep 0.3
t0=$(date +%s%N)
kill -INT $pid
rc=0; wait $pid || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "Ctrl-C during an endless line: exit after $ms ms"
[ $rc = 130 ] || fail "interrupted: exit $rc: $(tail -2 "$WORK/4.err" | cut -c1-200)"
[ "$ms" -lt 2000 ] || fail "Ctrl-C took $ms ms"
grep -qx 'teebench: suite: c: the suite on fake: interrupted, and it went on writing to stderr instead of stopping' \
  "$WORK/4.err" || fail "interrupted: $(tail -3 "$WORK/4.err" | cut -c1-200)"
sleep 0.2
pgrep -f "$WORK/flood" >/dev/null && fail "the remote script still runs"
pass "Ctrl-C during an endless stderr line: exit 130 after $ms ms"
