#!/usr/bin/env bash
# An ssh target that takes only a password -- a TD started by hand, as the source
# document does (Canonical's image: ssh -p 10022 tdx@localhost, password 123456): the
# BatchMode refusal is one line with the exact ssh-copy-id command; --ssh-copy-id runs
# that command on a terminal (script(1) gives it one here) and is refused without one.
# ssh and ssh-copy-id are stand-ins first in PATH: ssh answers as such a server does,
# ssh-copy-id records how it was called. Nothing listens anywhere.
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/bin"
cat >"$WORK/bin/ssh" <<'SH'
#!/bin/sh
case " $* " in *" -O exit "*) exit 0 ;; esac
echo "tdx@localhost: Permission denied (publickey,password)." >&2
exit 255
SH
cat >"$WORK/bin/ssh-copy-id" <<SH
#!/bin/sh
echo "\$*" >"$WORK/copy-id.args"
if [ -t 0 ]; then echo yes >"$WORK/copy-id.tty"; fi
exit 0
SH
chmod +x "$WORK/bin/ssh" "$WORK/bin/ssh-copy-id"
run=(suite run --profile quick --workloads env --no-store --progress none --target td=ssh://tdx@localhost:10022)

PATH=$WORK/bin:$PATH expect_fail 1 "$TB" "${run[@]}"
grep -qxF "teebench: suite: td: tdx@localhost accepts no key of yours, only a password (publickey,password), and teebench's ssh runs in BatchMode, which never types one: install your key there once with \`ssh-copy-id -p 10022 tdx@localhost\` (or add --ssh-copy-id to run it here on this terminal), then run this again" \
  "$WORK/err" || fail "the refusal: $(cat "$WORK/err")"
pass "a password-only target: one line with the exact ssh-copy-id command"

PATH=$WORK/bin:$PATH expect_fail 2 "$TB" "${run[@]}" --ssh-copy-id </dev/null
grep -q "^teebench: suite: --ssh-copy-id: needs a terminal (ssh-copy-id asks for the password of localhost)$" \
  "$WORK/err" || fail "no terminal: $(cat "$WORK/err")"
[ ! -e "$WORK/copy-id.args" ] || fail "ssh-copy-id ran without a terminal"
expect_fail 2 "$TB" suite run --profile quick --workloads env --no-store --ssh-copy-id
grep -q -- "--ssh-copy-id: needs a --target NAME=ssh://" "$WORK/err" || fail "$(cat "$WORK/err")"
pass "--ssh-copy-id refused without a terminal or an ssh target"

command -v script >/dev/null || skip "no script(1) to give --ssh-copy-id a terminal"
rc=0
script -qec "env PATH='$WORK/bin:$PATH' '$TB' ${run[*]} --ssh-copy-id" /dev/null \
  >"$WORK/tty.out" 2>&1 </dev/null || rc=$?
[ -s "$WORK/copy-id.args" ] || fail "ssh-copy-id did not run: $(cat "$WORK/tty.out")"
[ "$(cat "$WORK/copy-id.args")" = "-p 10022 tdx@localhost" ] ||
  fail "ssh-copy-id's arguments: $(cat "$WORK/copy-id.args")"
[ -s "$WORK/copy-id.tty" ] || fail "ssh-copy-id did not get the terminal"
grep -q "teebench: suite: td: running ssh-copy-id -p 10022 tdx@localhost" "$WORK/tty.out" ||
  fail "not said: $(cat "$WORK/tty.out")"
# the stand-in server still refuses: the run goes on and says so
grep -q "accepts no key of yours" "$WORK/tty.out" || fail "the run after ssh-copy-id: $(cat "$WORK/tty.out")"
pass "--ssh-copy-id runs ssh-copy-id -p 10022 tdx@localhost on the terminal, then the run"
