#!/bin/sh
# A stand-in for ssh(1) used by tests/unit/test_remote.c (tb_remote_opts.ssh_program):
# takes the command line teebench gives ssh, skips its options, and runs the remote
# command here with `sh -c` from $HOME -- as sshd would run it through the user's
# shell -- so the whole remote path (probe, copy, suite, interrupt) runs without sshd.
#   ssh [options] [--] HOST COMMAND    runs COMMAND (stdin, stdout, stderr passed on)
#   ssh [options] -O CTL [--] HOST     a control request (-O exit): succeeds, does nothing
# FAKE_SSH_LOG=FILE appends one line per call: the arguments joined by spaces.
# FAKE_SSH_FAIL=1 makes every call fail as ssh does when it cannot connect (exit 255).
# FAKE_SSH_DENY=METHODS fails every call as a server that refuses the key does
# ("Permission denied (METHODS).", exit 255).
# FAKE_SSH_STDIN_BYTES=N passes only the first N bytes of stdin on (then EOF), as a
# connection that drops in the middle of a copy would.
set -u
if [ -n "${FAKE_SSH_LOG:-}" ]; then
  printf '%s\n' "$*" >>"$FAKE_SSH_LOG"
fi
if [ -n "${FAKE_SSH_FAIL:-}" ]; then
  echo "ssh: connect to host fake port 22: Connection refused" >&2
  exit 255
fi
if [ -n "${FAKE_SSH_DENY:-}" ]; then # a server that refuses the key (BatchMode: no password)
  echo "fake@fakehost: Permission denied ($FAKE_SSH_DENY)." >&2
  exit 255
fi
ctl=
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; break ;;
    -O) ctl=$2; shift 2 ;;
    -[BbcDEeFIiJLlmOopQRSWw]) shift 2 ;; # options with an argument
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "fake ssh: no host" >&2; exit 255; }
shift # the host
if [ -n "$ctl" ]; then
  exit 0
fi
[ $# -ge 1 ] || { echo "fake ssh: no command (interactive sessions are not faked)" >&2; exit 255; }
cd "$HOME" || exit 255
if [ -n "${FAKE_SSH_STDIN_BYTES:-}" ]; then
  head -c "$FAKE_SSH_STDIN_BYTES" | sh -c "$*"
  exit
fi
exec sh -c "$*"
