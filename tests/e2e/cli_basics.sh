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
grep -q "sumarize: unknown subcommand (notary, tlsn, summarize); did you mean 'summarize'?" "$WORK/err" \
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

# One wording for every command and subcommand, exit 2:
#   teebench: NAME: --bogus: unknown option (teebench NAME --help)
#   teebench: NAME: OPTION: needs a value       (OPTION the last word, no value)
# Each line: the words after teebench | NAME (the command the message names: a
# subcommand with its own --help, else the command) | an option that takes a value
# ("-": none). Every command of `teebench --help` must have at least one line here.
table='http|http|--duration
http|http|-d
serve|serve|--port
nginx start|nginx|--port
nginx stop|nginx|--dir
nginx start|nginx|--user
nginx log-lines|nginx|--dir
syscall|syscall|--duration
probe|probe|--reps
env|env|--from
attest show|attest show|-
attest verify|attest verify|--collateral
attest collateral|attest collateral|--pccs
attest quote|attest quote|--report-data
attest sim-collateral|attest sim-collateral|--sim-dir
attest bench|attest bench|--iterations
notary serve|notary serve|--port
notary check|notary check|--ca
notarize|notarize|--notary
bench notary|bench notary|--iterations
bench summarize|bench summarize|-
bench tlsn|bench tlsn|--iterations
bench tlsn|bench tlsn|--threads
tlsn session|tlsn session|--threads
compare|compare|--format
report|report|-o
results list|results|--db
results show|results|--label
results export|results|--output
results import|results|--db
results rm|results|--db
vm start|vm|--kind
vm stop|vm|--timeout
vm list|vm|--dir
vm show|vm|--dir
suite run|suite|--repeat
suite plan|suite|-o
storage|storage|--size
kv|kv|--requests
kv serve|kv serve|--port
memory|memory|--passes
network|network|--duration
network serve|network serve|--port'
for c in $cmds; do
  echo "$table" | grep -q "^$c[ |]" || fail "cli_basics: no option-wording line for '$c'"
done
n=0
while IFS='|' read -r args name opt; do
  read -ra words <<<"$args"
  expect_fail 2 "$TB" "${words[@]}" --bogus
  grep -qx -- "teebench: $name: --bogus: unknown option (teebench $name --help)" "$WORK/err" \
    || fail "unknown option wording of '$args': $(cat "$WORK/err")"
  [ ! -s "$WORK/out" ] || fail "'$args --bogus' printed on stdout: $(cat "$WORK/out")"
  if [ "$opt" != - ]; then
    expect_fail 2 "$TB" "${words[@]}" "$opt"
    grep -qx -- "teebench: $name: $opt: needs a value" "$WORK/err" \
      || fail "missing value wording of '$args $opt': $(cat "$WORK/err")"
  fi
  n=$((n + 1))
done <<<"$table"
expect_fail 2 "$TB" http --bogus-flag=3
grep -qx -- 'teebench: http: --bogus-flag: unknown option (teebench http --help)' "$WORK/err" \
  || fail "--flag=value named: $(cat "$WORK/err")"
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
pass "cli_basics ($n commands: one wording for unknown options and missing values)"
