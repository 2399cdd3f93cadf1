#!/usr/bin/env bash
# make install's parts: the man page and the bash completion are generated from the
# binary's --help text (scripts/gen-docs.sh) and say what it says; an install into
# DESTDIR puts the binary, teebench.1 and the completion where PREFIX says.
source "$(dirname "$0")/lib.sh"
SRC=${TEEBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bash "$SRC/scripts/gen-docs.sh" "$TB" "$WORK/docs" || fail "gen-docs"
man1=$WORK/docs/teebench.1
# Every command has its section, holding its --help text; every option of a command
# is in the page.
for c in $("$TB" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}'); do
  grep -qx ".SS $c" "$man1" || fail "no section for $c"
  for o in $("$TB" help "$c" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    grep -q -- "${o//-/\\\\-}\|$o" "$man1" || fail "option $o of $c missing from the man page"
  done
done
if command -v man >/dev/null; then
  MANWIDTH=100 man -l "$man1" >"$WORK/man.txt" 2>"$WORK/man.err" || fail "man -l: $(cat "$WORK/man.err")"
  grep -q 'teebench help <command> (= teebench <command> --help)' "$WORK/man.txt" || fail "rendered page"
  grep -q -- '--copies N     processes run at once per pass' "$WORK/man.txt" || fail "syscall section rendered"
fi
# The completion: commands, subcommands, options.
comp() { # WORDS...: COMPREPLY for the last word being completed
  # shellcheck disable=SC1090
  source "$WORK/docs/teebench.bash"
  COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
  _teebench
  echo "${COMPREPLY[*]}"
}
[ "$(comp teebench ht)" = http ] || fail "command completion: $(comp teebench ht)"
[ "$(comp teebench bench su)" = summarize ] || fail "subcommand: $(comp teebench bench su)"
[ "$(comp teebench syscall --du)" = --duration ] || fail "option: $(comp teebench syscall --du)"
[ "$(comp teebench nginx start --us)" = --user ] || fail "nginx option: $(comp teebench nginx start --us)"
[ "$(comp teebench help sysc)" = syscall ] || fail "help CMD completion"
# An install into DESTDIR from the build directory the binary came from.
build=$(dirname "$TB")
if command -v cmake >/dev/null && [ -f "$build/CMakeCache.txt" ]; then
  prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
  cmake --build "$build" --target teebench_docs >/dev/null || fail "building the docs target"
  DESTDIR=$WORK/dest cmake --install "$build" >/dev/null || fail "cmake --install"
  for f in bin/teebench share/man/man1/teebench.1 share/bash-completion/completions/teebench; do
    [ -f "$WORK/dest$prefix/$f" ] || fail "not installed: $prefix/$f ($(find "$WORK/dest" -type f))"
  done
  "$WORK/dest$prefix/bin/teebench" --version | grep -q '^teebench ' || fail "installed binary"
fi
pass install
