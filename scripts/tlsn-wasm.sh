#!/usr/bin/env bash
# Installs tlsn-wasm, the TLSNotary prover and verifier compiled to WebAssembly, for
# `teebench bench tlsn` and its tests -- the pinned version only, from the npm
# registry, checked against the pinned integrity (the tarball's sha512, as npm
# records it) and every file teebench serves against its SHA-256 (the same pins as
# src/tlsn/wasm.c). Into a cache directory, never the repository:
#   $TEEBENCH_TLSN_WASM if set; as root /var/cache/teebench/tlsn-wasm/VERSION/package;
#   else ${XDG_CACHE_HOME:-~/.cache}/teebench/tlsn-wasm/VERSION/package
# (teebench looks in the same places). Nothing is downloaded when it is there already.
#   --system  into /var/cache/teebench/... whoever runs it (scripts/setup.sh: the tests
#             run with an empty HOME and look there)
#   --check   download nothing: exit 0 if the pinned package is there, 1 if not
set -euo pipefail
system=0 check=0
for a in "$@"; do
  case $a in
  --system) system=1 ;;
  --check) check=1 ;;
  *) echo "usage: $0 [--system] [--check]" >&2; exit 2 ;;
  esac
done
VERSION=0.1.0-alpha.12
INTEGRITY=sha512-0HlhM466ewogualMmpevFAgfWfUh1qwt/RjbOKSQiE+EPK99x8BrMBlChAxjnCxWpuUaDfaVEXTEPF07RYBtuQ==
PINS="f497754ba69a960196f8c43a751b9d04eb8d29849e5e161e8bf09cb18cbccb21  tlsn_wasm.js
f77fadf47ed8c3bfb0932041b280f834940ecf1a64b491f8658d789717588716  tlsn_wasm_bg.wasm
d242cfed76caf13bd188a36b12e6099d68be230bc7bfd18c67127f4e33857fec  spawn.js
d242cfed76caf13bd188a36b12e6099d68be230bc7bfd18c67127f4e33857fec  snippets/web-spawn-0303048270a97ee1/js/spawn.js"

if [ -n "${TEEBENCH_TLSN_WASM:-}" ] && [ "$system" -eq 0 ]; then
  dest=$TEEBENCH_TLSN_WASM
elif [ "$system" -eq 1 ] || [ "$(id -u)" -eq 0 ]; then
  dest=/var/cache/teebench/tlsn-wasm/$VERSION/package
else
  dest=${XDG_CACHE_HOME:-$HOME/.cache}/teebench/tlsn-wasm/$VERSION/package
fi
pinned() { (cd "$1" && echo "$PINS" | sha256sum --check --quiet --status); }
if [ -d "$dest" ] && pinned "$dest"; then
  exit 0
fi
if [ "$check" -eq 1 ]; then exit 1; fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: tlsn-wasm@$VERSION needs npm (Node.js) to be installed" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "setup: installing tlsn-wasm@$VERSION (npm registry) into $dest"
(cd "$tmp" && npm pack --silent "tlsn-wasm@$VERSION" >/dev/null)
tgz=$tmp/tlsn-wasm-$VERSION.tgz
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
  echo "setup: tlsn-wasm@$VERSION: integrity $got, not the pinned $INTEGRITY: not installed" >&2
  exit 1
fi
mkdir "$tmp/x"
tar -xzf "$tgz" -C "$tmp/x" --no-same-owner
if ! pinned "$tmp/x/package"; then
  echo "setup: tlsn-wasm@$VERSION: a file differs from its pinned SHA-256: not installed" >&2
  exit 1
fi
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.new"
mv "$tmp/x/package" "$dest.new"
chmod -R a+rX,go-w "$dest.new"
rm -rf "$dest"
mv "$dest.new" "$dest"
