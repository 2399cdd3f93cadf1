#!/bin/sh
# A stand-in for one recorded QEMU build: answers teebench's probe (src/vm/qemu.c)
# from the files of a recording's vm/qemu/ directory, so `teebench vm check --qemu
# tests/tools/fake_qemu.sh` reads a build this machine does not have through the
# same process path as a real QEMU.
#   FAKE_QEMU_DIR     the directory: version.txt, object-help.txt, TYPE-help.txt,
#                     qmp.txt (as `teebench env --record` writes them)
#   FAKE_QEMU_LOG     optional: a real launch appends its arguments here
#   FAKE_QEMU_STDERR  optional: a file whose text a launch prints on stderr
#   FAKE_QEMU_EXIT    a launch's exit code (default 1: nothing is started)
#   FAKE_QEMU_LAUNCH  optional: a program a launch execs instead, with the same
#                     arguments (tests/unit/test_fleet.c: a guest that daemonizes,
#                     answers SSH's banner and QMP, and powers off when asked)
d=${FAKE_QEMU_DIR:?FAKE_QEMU_DIR: the recorded vm/qemu directory}
if [ "$1" = --version ]; then
  cat "$d/version.txt"
  exit 0
fi
if [ "$1" = -object ] && [ "$2" = help ]; then
  cat "$d/object-help.txt"
  exit 0
fi
if [ "$1" = -object ] && [ "$#" -eq 2 ]; then
  type=${2%,help}
  if [ -f "$d/$type-help.txt" ]; then
    cat "$d/$type-help.txt"
    exit 0
  fi
  echo "qemu-system-x86_64: -object $2: Parameter 'qom-type' does not accept value '$type'" >&2
  exit 1
fi
for a in "$@"; do
  if [ "$a" = stdio ]; then # -qmp stdio: the recorded transcript
    cat >/dev/null
    if [ -f "$d/qmp.txt" ]; then cat "$d/qmp.txt"; fi
    exit 0
  fi
done
if [ -n "${FAKE_QEMU_LOG:-}" ]; then printf '%s\n' "$*" >>"$FAKE_QEMU_LOG"; fi
if [ -n "${FAKE_QEMU_LAUNCH:-}" ]; then exec "$FAKE_QEMU_LAUNCH" "$@"; fi
if [ -n "${FAKE_QEMU_STDERR:-}" ]; then cat "$FAKE_QEMU_STDERR" >&2; fi
exit "${FAKE_QEMU_EXIT:-1}"
