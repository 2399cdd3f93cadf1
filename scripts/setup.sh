#!/usr/bin/env bash
# Installs the Debian packages that teebench's build, tests and main job need,
# skipping those already present. Needs root (or sudo) only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git
  libssl-dev openssl libcurl4-openssl-dev libjansson-dev libsqlite3-dev libcmocka-dev
  clang libclang-rt-14-dev clang-format
  nginx-light wrk curl python3 iproute2 procps util-linux ca-certificates
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts nginx on install; teebench runs its own instances and needs port 80 free of surprises.
if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl disable --now nginx >/dev/null 2>&1 || true; fi
$SUDO service nginx stop >/dev/null 2>&1 || true
