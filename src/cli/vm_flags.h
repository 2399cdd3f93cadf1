/* cli/vm_flags: the flags that describe a VM (vm/vm.h tb_vm_spec), declared once as
 * cli/flags table entries for `teebench vm start` and `teebench suite run
 * --vm-kinds`: CLI_VM_FLAGS_START(T, spec) and CLI_VM_FLAGS_SUITE(T, spec) expand to
 * the entries (to be placed in the command's table) that write T's tb_vm_spec field
 * spec. The two commands spell some names differently: suite run prefixes the ones
 * that could be read as the suite's own (--cpus is --vm-cpus there, --policy
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

/* One entry of each kind, named n, writing T's spec (a tb_vm_spec). */
#define CLI_VM_STR(n, T, s, f, a, h)                                                               \
    {                                                                                              \
        .name = n, .type = CLI_F_STR, .arg = a, .off = CLI_OFF(T, s.f, const char *), .help = h,   \
        .group = CLI_VM_GROUP                                                                      \
    }
#define CLI_VM_BOOL(n, T, s, f, h)                                                                 \
    {                                                                                              \
        .name = n, .type = CLI_F_BOOL, .off = CLI_OFF(T, s.f, int), .help = h,                     \
        .group = CLI_VM_GROUP                                                                      \
    }
#define CLI_VM_INT(n, T, s, f, l, u, a, h)                                                         \
    {                                                                                              \
        .name = n, .type = CLI_F_INT, .arg = a, .off = CLI_OFF(T, s.f, int), .lo = l, .hi = u,     \
        .help = h, .group = CLI_VM_GROUP                                                           \
    }
#define CLI_VM_INDEX(n, T, s, f, list, a, h)                                                       \
    {                                                                                              \
        .name = n, .type = CLI_F_INDEX, .arg = a, .off = CLI_OFF(T, s.f, int), .choices = list,    \
        .help = h, .group = CLI_VM_GROUP                                                           \
    }
#define CLI_VM_CALL(n, T, s, fn, a, h)                                                             \
    {                                                                                              \
        .name = n, .type = CLI_F_CALL, .arg = a, .off = CLI_OFF(T, s, tb_vm_spec), .call = fn,     \
        .help = h, .group = CLI_VM_GROUP                                                           \
    }

/* The flags both commands spell alike. */
#define CLI_VM_FLAGS_COMMON(T, s)                                                                  \
    CLI_VM_STR("image", T, s, image, "DISK", "disk image"),                                        \
        CLI_VM_STR("kernel", T, s, kernel, "K", "direct kernel boot"),                             \
        CLI_VM_STR("initrd", T, s, initrd, "I", "its initrd"),                                     \
        CLI_VM_STR("append", T, s, append, "ARGS", "its command line"),                            \
        CLI_VM_BOOL("prealloc", T, s, prealloc, "allocate guest memory first"),                    \
        CLI_VM_CALL("firmware", T, s, cli_vm_flag_firmware, "[KIND=]F", "OVMF file"),              \
        CLI_VM_CALL("accel", T, s, cli_vm_flag_accel, "A", "auto, kvm or tcg"),                    \
        CLI_VM_CALL("vsock", T, s, cli_vm_flag_vsock, "V", "auto, on or off"),                     \
        CLI_VM_INT("cbitpos", T, s, cbitpos, 32, 63, "N", "SNP C-bit position"),                   \
        CLI_VM_INT("reduced-phys-bits", T, s, reduced_phys_bits, 0, 63, "N", "SNP guest value"),   \
        CLI_VM_BOOL("snapshot", T, s, snapshot, "image writes to an overlay"),                     \
        CLI_VM_CALL("boot-timeout", T, s, cli_vm_flag_boot_timeout, "S", "first SSH login"),       \
        CLI_VM_CALL("qemu", T, s, cli_vm_flag_qemu, "[KIND=]BIN", "QEMU binary")

/* `vm start`'s. */
#define CLI_VM_FLAGS_START(T, s)                                                                   \
    CLI_VM_CALL("kind", T, s, cli_vm_flag_kind, "K", "regular, tdx or snp"),                       \
        CLI_VM_FLAGS_COMMON(T, s),                                                                 \
        CLI_VM_INT("cpus", T, s, cpus, 1, TB_VM_MAX_CPUS, "N", "vCPUs"),                           \
        CLI_VM_CALL("memory", T, s, cli_vm_flag_memory, "SIZE", "guest memory"),                   \
        CLI_VM_CALL("pin", T, s, cli_vm_flag_pin, "CPULIST", "vCPU i on the i-th host CPU"),       \
        CLI_VM_INT("ssh-port", T, s, ssh_port, 1, 65535, "P", "host port to the guest's 22"),      \
        CLI_VM_STR("ssh-user", T, s, ssh_user, "U", "user to log in as"),                          \
        CLI_VM_STR("ssh-key", T, s, ssh_key, "K", "private key the guest accepts"),                \
        {.name = "cid",                                                                            \
         .type = CLI_F_UINT,                                                                       \
         .arg = "N",                                                                               \
         .off = CLI_OFF(T, s.vsock_cid, unsigned),                                                 \
         .lo = 3,                                                                                  \
         .hi = 0xfffffffe,                                                                         \
         .help = "guest vsock CID",                                                                \
         .group = CLI_VM_GROUP},                                                                   \
        CLI_VM_CALL("policy", T, s, cli_vm_flag_policy, "P", "SNP guest policy"),                  \
        CLI_VM_CALL("cpu", T, s, cli_vm_flag_cpu, "MODEL", "-cpu model"),                          \
        CLI_VM_INDEX("seed", T, s, seed, cli_vm_off_on, "on|off", "attach the cloud-init seed")

/* `suite run`'s (the VMs of --vm-kinds). */
#define CLI_VM_FLAGS_SUITE(T, s)                                                                   \
    CLI_VM_FLAGS_COMMON(T, s), CLI_VM_INT("vm-cpus", T, s, cpus, 1, TB_VM_MAX_CPUS, "N", "vCPUs"), \
        CLI_VM_CALL("vm-memory", T, s, cli_vm_flag_memory, "SIZE", "guest memory"),                \
        CLI_VM_CALL("vm-pin", T, s, cli_vm_flag_pin, "CPULIST", "vCPU i on the i-th host CPU"),    \
        CLI_VM_STR("vm-ssh-user", T, s, ssh_user, "U", "user to log in as"),                       \
        CLI_VM_STR("vm-ssh-key", T, s, ssh_key, "K", "private key the guest accepts"),             \
        CLI_VM_CALL("vm-snp-policy", T, s, cli_vm_flag_policy, "P", "SNP guest policy"),           \
        CLI_VM_CALL("no-snapshot", T, s, cli_vm_flag_no_snapshot, NULL,                            \
                    "the VMs write the image"),                                                    \
        CLI_VM_CALL("vm-cpu", T, s, cli_vm_flag_cpu, "MODEL", "-cpu model"),                       \
        CLI_VM_INDEX("vm-seed", T, s, seed, cli_vm_off_on, "on|off", "attach the cloud-init seed")

#endif
