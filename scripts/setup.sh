#!/usr/bin/env bash
# Installs the Debian packages that teebench needs, skipping those already present.
# Needs root (or sudo) only when something is missing.
#   scripts/setup.sh          what the build and the main job (`make run`) need
#   scripts/setup.sh --tlsn   that, plus what `teebench bench tlsn` needs: Chromium, and
#                             tlsn-wasm from the npm registry (scripts/tlsn-wasm.sh)
#   scripts/setup.sh --test   that, plus what only the tests need (`make test`):
#                             cmocka, clang + sanitizer runtimes, wrk, sshd, Ansible,
#                             Chromium, QEMU and the guest kernel/initramfs tools,
#                             hyperfine (bench/startup.sh), HdrHistogram (Java), mmdebstrap,
#                             mbw and sysbench (bench/memory.sh)
# (`make static` needs nothing more: the -dev packages below ship the static archives)
set -euo pipefail

RUN_PACKAGES=(
  build-essential cmake pkg-config git
  libssl-dev openssl libcurl4-openssl-dev libjansson-dev libsqlite3-dev
  zlib1g-dev liblua5.4-dev
  nginx-light curl python3 iproute2 procps util-linux ca-certificates
  openssh-client
  fio redis-server redis-tools  # the suite's storage and kv workloads (standard profile)
  iperf3                        # the suite's network workload (standard profile)
)
TEST_PACKAGES=(
  libcmocka-dev clang libclang-rt-14-dev clang-format wrk
  openssh-server ansible
  chromium
  qemu-system-x86 qemu-utils busybox-static cpio dropbear-bin
  ovmf  # a real OVMF.fd with TDVF and SEV-SNP metadata (tests/unit/test_vm_firmware.c)
  mmdebstrap dosfstools mtools fdisk genisoimage  # vm image (slow_vm_cloudimg.sh), isoinfo
  hyperfine
  libhdrhistogram-java  # HdrHistogram's own log reader (tests/e2e/http_wrk2_report.sh, with a JRE)
  python3-fusepy fuse3  # a fake configfs-tsm in a mount namespace (tests/e2e/suite_snp_tsm.sh)
  time                  # /usr/bin/time: peak memory of a run (tests/e2e/suite_hostile.sh)
  mmdebstrap            # a Debian 11 root for the self-contained build (tests/e2e/slow_static.sh)
  mbw sysbench          # the bandwidth kernel's yardsticks (bench/memory.sh)
)

packages=("${RUN_PACKAGES[@]}")
tlsn=0
case "${1:-}" in --test | --tlsn) tlsn=1 ;; esac
if [ "${1:-}" = "--test" ]; then packages+=("${TEST_PACKAGES[@]}"); fi
if [ "${1:-}" = "--tlsn" ]; then packages+=(chromium); fi
# npm fetches tlsn-wasm; Debian's npm (and its nodejs) unless an npm is there already (a
# nodejs from elsewhere, e.g. NodeSource's, ships its own and conflicts with Debian's)
if [ "$tlsn" -eq 1 ] && ! command -v npm >/dev/null 2>&1; then packages+=(npm); fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# tlsn-wasm (pinned, integrity-checked) into the system's cache directory, where bench
# tlsn and its tests (run with an empty HOME) find it; after the packages (npm)
tlsn_wasm() {
  local w
  w=$(dirname "$0")/tlsn-wasm.sh
  if [ "$tlsn" -eq 1 ] && ! bash "$w" --system --check; then $SUDO bash "$w" --system; fi
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  tlsn_wasm
  exit 0
fi
echo "setup: installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts nginx, sshd and redis-server on install (iperf3 when debconf says so);
# teebench runs its own instances (tests start sshd in network namespaces they create)
# and needs nothing global running.
for svc in nginx ssh redis-server iperf3; do
  if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl disable --now "$svc" >/dev/null 2>&1 || true; fi
  $SUDO service "$svc" stop >/dev/null 2>&1 || true
done
tlsn_wasm
