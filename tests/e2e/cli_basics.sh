#!/usr/bin/env bash
# The dispatcher: help, version, unknown commands.
source "$(dirname "$0")/lib.sh"
"$TB" --help | grep -q '^  http ' || fail "--help lists http"
"$TB" --version | grep -Eq '^teebench [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version format"
rc=0; "$TB" no-such-command 2>"$WORK/err" || rc=$?
[ "$rc" -eq 2 ] || fail "unknown command exits 2, got $rc"
grep -q "unknown command 'no-such-command'" "$WORK/err" || fail "unknown command message"
pass cli_basics
