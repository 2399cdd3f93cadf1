#!/usr/bin/env bash
# scripts/check-architecture.py fails on a document naming what is not in the tree:
# a copy of docs/ARCHITECTURE.md with a renamed file, a missing module file, a missing
# directory and an unknown function must give exactly one line for each and exit 1;
# the document itself passes (exit 0); a document that cannot be read exits 2.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
check="$root/scripts/check-architecture.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$check" "$root/docs/ARCHITECTURE.md" "$root" >"$work/good.out" ||
  fail "the document itself: $(cat "$work/good.out")"
[ ! -s "$work/good.out" ] || fail "output on a good document: $(cat "$work/good.out")"

grep -q 'src/cli/attest_snp.c' "$root/docs/ARCHITECTURE.md" || fail "the document no longer names src/cli/attest_snp.c"
sed 's|src/cli/attest_snp\.c|src/cli/attest_sev.c|' "$root/docs/ARCHITECTURE.md" >"$work/bad.md"
# the function's name is made here, so that this file does not hold it as one word
fn="tb_nosuch""_fn"
printf '%s\n' '' "extra  cli/gone ─→ src/nosuch/ and \`$fn(x)\`" >>"$work/bad.md"
n=$(wc -l <"$work/bad.md")
first=$(grep -n 'src/cli/attest_sev\.c' "$work/bad.md" | head -n 1 | cut -d: -f1)
rc=0
python3 "$check" "$work/bad.md" "$root" >"$work/bad.out" || rc=$?
[ "$rc" -eq 1 ] || fail "bad document: exit $rc, want 1"
cat >"$work/want" <<WANT
$work/bad.md:$first: missing file: src/cli/attest_sev.c
$work/bad.md:$n: missing module file: cli/gone
$work/bad.md:$n: missing directory: src/nosuch/
$work/bad.md:$n: missing identifier: $fn
WANT
diff -u "$work/want" "$work/bad.out" || fail "bad document: unexpected lines"

rc=0
python3 "$check" "$work/absent.md" "$root" >/dev/null 2>"$work/absent.err" || rc=$?
[ "$rc" -eq 2 ] || fail "absent document: exit $rc, want 2"
grep -q "absent.md" "$work/absent.err" || fail "absent document: no message"
echo "ok"
