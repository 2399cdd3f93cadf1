#!/usr/bin/env bash
# The dispatcher and the command-line conventions every command shares: help,
# version, unknown commands ("did you mean"), one wording for an unknown option and
# a missing value, `help CMD` = `CMD --help`, one duration syntax, the --json
# envelope (and no float noise in it), and a start that does not map libcurl.
source "$(dirname "$0")/lib.sh"
"$TB" --help | grep -q '^  http ' || fail "--help lists http"
for v in --version -V; do
  "$TB" $v | grep -Eq '^teebench [0-9]+\.[0-9]+\.[0-9]+$' || fail "$v format"
done
rc=0; "$TB" no-such-command 2>"$WORK/err" || rc=$?
[ "$rc" -eq 2 ] || fail "unknown command exits 2, got $rc"
grep -q "unknown command 'no-such-command'" "$WORK/err" || fail "unknown command message"
grep -q 'did you mean' "$WORK/err" && fail "no suggestion for a far word: $(cat "$WORK/err")"
expect_fail 2 "$TB" htpp
grep -q "unknown command 'htpp'; did you mean 'http'?" "$WORK/err" || fail "suggestion: $(cat "$WORK/err")"
expect_fail 2 "$TB" bench sumarize
grep -q "sumarize: unknown subcommand (notary, summarize); did you mean 'summarize'?" "$WORK/err" \
  || fail "subcommand suggestion: $(cat "$WORK/err")"
expect_fail 2 "$TB" nginx strat
grep -q "did you mean 'start'" "$WORK/err" || fail "nginx action suggestion: $(cat "$WORK/err")"

# help CMD prints exactly CMD --help (stdout, exit 0), for every command.
cmds=$("$TB" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
[ "$(echo "$cmds" | wc -w)" -ge 10 ] || fail "command list: $cmds"
for c in $cmds; do
  "$TB" help "$c" >"$WORK/h1" 2>&1 || fail "help $c exits non-zero"
  "$TB" "$c" --help >"$WORK/h2" 2>&1 || fail "$c --help exits non-zero"
  cmp -s "$WORK/h1" "$WORK/h2" || fail "help $c differs from $c --help"
  [ -s "$WORK/h1" ] || fail "help $c is empty"
done
expect_fail 2 "$TB" help htpp

# One wording: "<option>: unknown option (teebench <cmd> --help)", "<option>: needs a value".
unknown() { # CMDNAME ARGS...: the unknown option --bogus-flag
  local name=$1; shift
  expect_fail 2 "$TB" "$@" --bogus-flag
  grep -qx -- "teebench: $name: --bogus-flag: unknown option (teebench $name --help)" "$WORK/err" \
    || fail "unknown option wording of '$*': $(cat "$WORK/err")"
}
unknown http http
unknown serve serve
unknown nginx nginx start
unknown syscall syscall
unknown probe probe
unknown env env
unknown compare compare
unknown report report
unknown results results list
unknown vm vm start
unknown "bench notary" bench notary
unknown "bench summarize" bench summarize
missing() { # CMDNAME OPTION ARGS...: OPTION as the last word, without its value
  local name=$1 opt=$2; shift 2
  expect_fail 2 "$TB" "$@" "$opt"
  grep -qx -- "teebench: $name: $opt: needs a value" "$WORK/err" \
    || fail "missing value wording of '$* $opt': $(cat "$WORK/err")"
}
missing http -d http
missing http --duration http
missing serve --port serve
missing nginx --port nginx start
missing syscall --duration syscall
missing probe --reps probe
missing report -o report
missing "bench notary" --iterations bench notary
expect_fail 2 "$TB" syscall -x
grep -qx -- 'teebench: syscall: -x: unknown option (teebench syscall --help)' "$WORK/err" \
  || fail "short option named: $(cat "$WORK/err")"

# One duration syntax: 2s, 500ms, 1.5m, a bare number = seconds, in every command.
expect_fail 2 "$TB" syscall --duration 2x
grep -q -- '--duration 2x: not a duration' "$WORK/err" || fail "bad duration: $(cat "$WORK/err")"
expect_fail 2 "$TB" http -d 2x http://127.0.0.1/
grep -q -- '--duration 2x: not a duration' "$WORK/err" || fail "http bad duration: $(cat "$WORK/err")"
expect_fail 2 "$TB" nginx start --port 1 --timeout 1y
expect_fail 2 "$TB" syscall --duration -1s

# syscall --duration with a unit and --copies auto; --json: the envelope, no float noise.
"$TB" syscall --mode getpid --duration 54.541ms --passes 1 --copies auto --json >"$WORK/sc.json" \
  || fail "syscall --duration 54.541ms"
grep -q '"duration_s": 0.054541,' "$WORK/sc.json" || fail "float noise: $(grep duration_s "$WORK/sc.json")"
python3 - "$WORK/sc.json" <<'PY' || fail "syscall envelope"
import json, os, sys
d = json.load(open(sys.argv[1]))
assert list(d)[:3] == ["schema", "teebench", "env"], list(d)[:4]
assert d["schema"] == "teebench-syscall/1" and d["env"]["schema"] == "teebench-env/1"
assert d["copies"] == len(os.sched_getaffinity(0)), (d["copies"], os.sched_getaffinity(0))
PY
"$TB" syscall --mode getpid --duration 0.05 --passes 1 | grep -q '1 pass of 0.05 s' || fail "bare seconds"

# Start-up: libcurl is loaded on first use only (a command that fetches nothing
# does not map its dependency chain).
if LD_TRACE_LOADED_OBJECTS=1 "$TB" >"$WORK/ldd" 2>&1; then
  grep -q libcurl "$WORK/ldd" && fail "teebench maps libcurl at start: $(cat "$WORK/ldd")"
fi
pass cli_basics
