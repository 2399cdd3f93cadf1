# Test hosts on this machine (sourced after lib.sh; not a test itself).
#
# hosts_up NAME... makes one "host" per NAME: a network namespace with a veth pair to
# this one, addresses from the benchmarking range 198.18.0.0/15 (RFC 2544) used only
# inside what this test created, and an OpenSSH sshd in it with a throwaway host key
# and an authorized key made here. Each host also gets its own mount namespace with an
# empty tmpfs on ~/.cache/teebench (in the login's home from passwd, which sshd uses,
# not the test's $HOME), so it starts without a teebench of its own (as a fresh remote
# machine would). After it:
#   HOST_ADDR[NAME]  the host's address (198.18.N.2)
#   SSH_CONFIG       an ssh_config with an entry "NAME" per host (user root, key, port 22,
#                    known hosts in $WORK): `ssh -F "$SSH_CONFIG" NAME cmd`
#   SSH_KEY          the client key
# Optional, for every host of the call: HOSTS_SSHD_EXTRA, more sshd_config lines (e.g.
# ChrootDirectory); HOSTS_NS_SETUP, a sh command run in the host's mount namespace before
# its sshd starts (e.g. mounts for that chroot: they vanish with the namespace).
# Everything is stopped and deleted at exit (hosts_down, called by the EXIT trap).
# Skips the test (exit 77, "skipped: why") where namespaces or sshd are not available.
declare -A HOST_ADDR=()
_TB_NETNS=()
_TB_VETH=()
_TB_SSHD_PIDS=()

hosts_down() {
  local p ns v
  for p in "${_TB_SSHD_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${_TB_SSHD_PIDS[@]}"; do
    for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
  done
  for ns in "${_TB_NETNS[@]}"; do
    # anything the test left running in the namespace dies with it
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
  for v in "${_TB_VETH[@]}"; do ip link del "$v" 2>/dev/null || true; done
  _TB_SSHD_PIDS=(); _TB_NETNS=(); _TB_VETH=()
}
trap 'hosts_down; _tb_cleanup' EXIT

# _hosts_subnet: prints a third octet N such that 198.18.N.0/24 is unused here.
_hosts_subnet() {
  local n
  for _ in $(seq 50); do
    n=$((RANDOM % 250 + 1))
    if ! ip -4 addr show 2>/dev/null | grep -q "inet 198\.18\.$n\."; then echo "$n"; return 0; fi
  done
  return 1
}

hosts_up() {
  [ "$(id -u)" = 0 ] || skip "network namespaces need root"
  command -v ip >/dev/null || skip "iproute2 (ip) is not installed"
  [ -x /usr/sbin/sshd ] || skip "sshd is not installed (scripts/setup.sh --test installs openssh-server)"
  command -v ssh >/dev/null || skip "ssh is not installed (openssh-client)"
  command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
  local probe="tbp$$"
  ip netns add "$probe" 2>/dev/null || skip "network namespaces are not permitted here (ip netns add failed)"
  ip netns del "$probe"
  REMOTE_HOME=$(getent passwd "$(id -un)" | cut -d: -f6)
  [ -n "$REMOTE_HOME" ] && [ -d "$REMOTE_HOME" ] || skip "the login's home directory ($(id -un)) is unknown"
  mkdir -p "$WORK/ssh" /run/sshd # /run/sshd: sshd's privilege separation directory
  chmod 700 "$WORK/ssh"
  SSH_KEY="$WORK/ssh/id_ed25519"
  ssh-keygen -q -t ed25519 -N '' -f "$SSH_KEY" -C teebench-test
  ssh-keygen -q -t ed25519 -N '' -f "$WORK/ssh/host_key" -C teebench-test-host
  cp "$SSH_KEY.pub" "$WORK/ssh/authorized_keys"
  SSH_CONFIG="$WORK/ssh/config"
  : >"$SSH_CONFIG"
  : >"$WORK/ssh/known_hosts"
  local name i=0
  for name in "$@"; do
    local n ns="tb$$$i" vh="tbh$$$i" vn="tbn$$$i"
    i=$((i + 1))
    n=$(_hosts_subnet) || fail "no free 198.18.N.0/24 subnet"
    ip netns add "$ns" || fail "ip netns add $ns"
    _TB_NETNS+=("$ns")
    ip link add "$vh" type veth peer name "$vn" || fail "veth pair for $name"
    _TB_VETH+=("$vh")
    ip link set "$vn" netns "$ns"
    ip addr add "198.18.$n.1/24" dev "$vh"
    ip link set "$vh" up
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip addr add "198.18.$n.2/24" dev "$vn"
    ip netns exec "$ns" ip link set "$vn" up
    HOST_ADDR[$name]="198.18.$n.2"
    cat >"$WORK/ssh/sshd_$name" <<CFG
ListenAddress 198.18.$n.2
Port 22
HostKey $WORK/ssh/host_key
AuthorizedKeysFile $WORK/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile none
Subsystem sftp internal-sftp
AcceptEnv TEEBENCH_*
${HOSTS_SSHD_EXTRA:-}
CFG
    # own mount namespace: an empty tmpfs on ~/.cache/teebench (a fresh remote)
    # (sshd logs in with the passwd database's home, not this test's $HOME: lib.sh)
    mkdir -p "$REMOTE_HOME/.cache/teebench"
    ip netns exec "$ns" unshare -m --propagation private sh -c \
      "mount -t tmpfs -o size=256m,mode=0700 tmpfs '$REMOTE_HOME/.cache/teebench' && ${HOSTS_NS_SETUP:-:} && exec /usr/sbin/sshd -D -e -f '$WORK/ssh/sshd_$name'" \
      2>"$WORK/ssh/sshd_$name.log" &
    _TB_SSHD_PIDS+=($!)
    echo "198.18.$n.2 $(cut -d' ' -f1-2 "$WORK/ssh/host_key.pub")" >>"$WORK/ssh/known_hosts"
    cat >>"$SSH_CONFIG" <<CFG
Host $name 198.18.$n.2
  HostName 198.18.$n.2
  User root
  Port 22
  IdentityFile $SSH_KEY
  IdentitiesOnly yes
  UserKnownHostsFile $WORK/ssh/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 5
CFG
  done
  for name in "$@"; do
    local ok=0
    for _ in $(seq 100); do
      if ssh -F "$SSH_CONFIG" "$name" true 2>/dev/null; then ok=1; break; fi
      sleep 0.1
    done
    [ $ok = 1 ] || fail "sshd on $name (${HOST_ADDR[$name]}) does not answer: $(cat "$WORK/ssh/sshd_$name.log")"
  done
}
