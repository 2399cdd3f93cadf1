/* cli/vm_flags: the flags that describe a VM (vm/vm.h tb_vm_spec), declared once as
 * cli/flags table entries for `teebench vm start` and `teebench suite run
 * --vm-kinds`: CLI_VM_IMAGE(T, s), ... expand to the fields of one entry (name, type,
 * value, range or callback) writing T's tb_vm_spec field s; the command's table adds
 * the help, since each command's --help tells of them its own way and in its own order.
 * The two commands spell some names differently: suite run prefixes the ones that
 * could be read as the suite's own (--cpus is --vm-cpus there, --policy
 * --vm-snp-policy), and leaves out those that name one VM (--kind: --vm-kinds lists
 * them; --ssh-port and --cid: each VM picks a free one). --firmware and --qemu take
 * FILE for every kind or KIND=FILE for one (repeatable: "--firmware
 * tdx=/usr/share/edk2/ovmf/OVMF.inteltdx.fd"). Every entry has group CLI_VM_GROUP
 * (suite run tells which flag was the first VM flag given). Errors are cli/flags'
 * ("teebench: CMD: --flag VALUE: why"). Nothing here allocates or keeps state. */
#ifndef TB_CLI_VM_FLAGS_H
#define TB_CLI_VM_FLAGS_H

#include "base/err.h"
#include "cli/flags.h"
#include "vm/vm.h"

#define CLI_VM_GROUP 1

/* The callbacks of the entries below: spec is a tb_vm_spec; flag names the flag in
   the error. 0, or -1 with err "<flag> <value>: why". */
int cli_vm_flag_kind(void *spec, const char *flag, const char *v, tb_err *err);
int cli_vm_flag_memory(void *spec, const char *flag, const char *v, tb_err *err);
int cli_vm_flag_pin(void *spec, const char *flag, const char *v, tb_err *err);
int cli_vm_flag_firmware(void *spec, const char *flag, const char *v, tb_err *err);
int cli_vm_flag_accel(void *spec, const char *flag, const char *v, tb_err *err);
int cli_vm_flag_vsock(void *spec, const char *flag, const char *v, tb_err *err);
int cli_vm_flag_policy(void *spec, const char *flag, const char *v, tb_err *err);
int cli_vm_flag_boot_timeout(void *spec, const char *flag, const char *v, tb_err *err);
int cli_vm_flag_qemu(void *spec, const char *flag, const char *v, tb_err *err);
int cli_vm_flag_cpu(void *spec, const char *flag, const char *v, tb_err *err);
/* --seed's values (off 0, on 1). */
extern const char *const cli_vm_off_on[];
int cli_vm_flag_no_snapshot(void *spec, const char *flag, const char *v, tb_err *err);

/* The fields of one entry of each kind, named n, writing T's spec (a tb_vm_spec), all
   but its help. */
#define CLI_VM_F_STR(n, T, s, f, a)                                                                \
    .name = n, .type = CLI_F_STR, .arg = a, .off = CLI_OFF(T, s.f, const char *),                  \
    .group = CLI_VM_GROUP
#define CLI_VM_F_BOOL(n, T, s, f)                                                                  \
    .name = n, .type = CLI_F_BOOL, .off = CLI_OFF(T, s.f, int), .group = CLI_VM_GROUP
#define CLI_VM_F_INT(n, T, s, f, l, u, a)                                                          \
    .name = n, .type = CLI_F_INT, .arg = a, .off = CLI_OFF(T, s.f, int), .lo = l, .hi = u,         \
    .group = CLI_VM_GROUP
#define CLI_VM_F_INDEX(n, T, s, f, list, a)                                                        \
    .name = n, .type = CLI_F_INDEX, .arg = a, .off = CLI_OFF(T, s.f, int), .choices = list,        \
    .group = CLI_VM_GROUP
#define CLI_VM_F_CALL(n, T, s, fn, a)                                                              \
    .name = n, .type = CLI_F_CALL, .arg = a, .off = CLI_OFF(T, s, tb_vm_spec), .call = fn,         \
    .group = CLI_VM_GROUP

/* Each VM flag: the fields of its entry but the help, which is the command's (its
   --help says it its way), so a table entry reads {CLI_VM_IMAGE(T, s), .help = "..."}
   (with .label, .hidden, .before as that --help wants). n: the name, for the flags the
   two commands spell differently (vm start's first). */
#define CLI_VM_KIND(T, s) CLI_VM_F_CALL("kind", T, s, cli_vm_flag_kind, "K")
#define CLI_VM_IMAGE(T, s) CLI_VM_F_STR("image", T, s, image, "DISK")
#define CLI_VM_KERNEL(T, s) CLI_VM_F_STR("kernel", T, s, kernel, "K")
#define CLI_VM_INITRD(T, s) CLI_VM_F_STR("initrd", T, s, initrd, "I")
#define CLI_VM_APPEND(T, s) CLI_VM_F_STR("append", T, s, append, "ARGS")
#define CLI_VM_PREALLOC(T, s) CLI_VM_F_BOOL("prealloc", T, s, prealloc)
#define CLI_VM_FIRMWARE(T, s) CLI_VM_F_CALL("firmware", T, s, cli_vm_flag_firmware, "[KIND=]F")
#define CLI_VM_ACCEL(T, s) CLI_VM_F_CALL("accel", T, s, cli_vm_flag_accel, "A")
#define CLI_VM_VSOCK(T, s) CLI_VM_F_CALL("vsock", T, s, cli_vm_flag_vsock, "V")
#define CLI_VM_CBITPOS(T, s) CLI_VM_F_INT("cbitpos", T, s, cbitpos, 32, 63, "N")
#define CLI_VM_REDUCED_PHYS_BITS(T, s)                                                             \
    CLI_VM_F_INT("reduced-phys-bits", T, s, reduced_phys_bits, 0, 63, "N")
#define CLI_VM_SNAPSHOT(T, s) CLI_VM_F_BOOL("snapshot", T, s, snapshot)
#define CLI_VM_BOOT_TIMEOUT(T, s) CLI_VM_F_CALL("boot-timeout", T, s, cli_vm_flag_boot_timeout, "S")
#define CLI_VM_QEMU(T, s) CLI_VM_F_CALL("qemu", T, s, cli_vm_flag_qemu, "[KIND=]BIN")
/* cpus | vm-cpus, memory | vm-memory, ... */
#define CLI_VM_CPUS(n, T, s) CLI_VM_F_INT(n, T, s, cpus, 1, TB_VM_MAX_CPUS, "N")
#define CLI_VM_MEMORY(n, T, s) CLI_VM_F_CALL(n, T, s, cli_vm_flag_memory, "SIZE")
#define CLI_VM_PIN(n, T, s) CLI_VM_F_CALL(n, T, s, cli_vm_flag_pin, "CPULIST")
#define CLI_VM_SSH_USER(n, T, s) CLI_VM_F_STR(n, T, s, ssh_user, "U")
#define CLI_VM_SSH_KEY(n, T, s) CLI_VM_F_STR(n, T, s, ssh_key, "K")
#define CLI_VM_POLICY(n, T, s) CLI_VM_F_CALL(n, T, s, cli_vm_flag_policy, "P")
#define CLI_VM_CPU(n, T, s) CLI_VM_F_CALL(n, T, s, cli_vm_flag_cpu, "MODEL")
#define CLI_VM_SEED(n, T, s) CLI_VM_F_INDEX(n, T, s, seed, cli_vm_off_on, "on|off")
/* vm start's alone */
#define CLI_VM_SSH_PORT(T, s) CLI_VM_F_INT("ssh-port", T, s, ssh_port, 1, 65535, "P")
#define CLI_VM_CID(T, s)                                                                           \
    .name = "cid", .type = CLI_F_UINT, .arg = "N", .off = CLI_OFF(T, s.vsock_cid, unsigned),       \
    .lo = 3, .hi = 0xfffffffe, .group = CLI_VM_GROUP
/* suite run's alone */
#define CLI_VM_NO_SNAPSHOT(T, s) CLI_VM_F_CALL("no-snapshot", T, s, cli_vm_flag_no_snapshot, NULL)

#endif
