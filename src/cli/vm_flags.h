/* cli/vm_flags: the flags that describe a VM (vm/vm.h tb_vm_spec), parsed in one
 * place for `teebench vm start` and `teebench suite run --vm-kinds`. Each flag has
 * one code (CLI_VM_*) and one parser; the two commands spell some names
 * differently: suite run prefixes the ones that could be read as the suite's own
 * (--cpus is --vm-cpus there, --policy --vm-snp-policy), and leaves out those that
 * name one VM (--kind: --vm-kinds lists them; --ssh-port and --cid: each VM picks
 * a free one). --firmware and --qemu take FILE for every kind or KIND=FILE for one
 * (repeatable: "--firmware tdx=/usr/share/edk2/ovmf/OVMF.inteltdx.fd"). The tables
 * are static; nothing here allocates. */
#ifndef TB_CLI_VM_FLAGS_H
#define TB_CLI_VM_FLAGS_H

#include <getopt.h>

#include "vm/vm.h"

enum {
    CLI_VM_FIRST = 0x1000,
    CLI_VM_KIND = CLI_VM_FIRST,
    CLI_VM_IMAGE,
    CLI_VM_KERNEL,
    CLI_VM_INITRD,
    CLI_VM_APPEND,
    CLI_VM_CPUS,
    CLI_VM_MEMORY,
    CLI_VM_PIN,
    CLI_VM_PREALLOC,
    CLI_VM_SSH_PORT,
    CLI_VM_SSH_USER,
    CLI_VM_SSH_KEY,
    CLI_VM_FIRMWARE,
    CLI_VM_ACCEL,
    CLI_VM_VSOCK,
    CLI_VM_CID,
    CLI_VM_CBITPOS,
    CLI_VM_RPB,
    CLI_VM_POLICY,
    CLI_VM_SNAPSHOT,
    CLI_VM_BOOT_TIMEOUT,
    CLI_VM_QEMU,
    CLI_VM_CPU,
    CLI_VM_SEED,
    CLI_VM_NO_SNAPSHOT,
    CLI_VM_LAST = CLI_VM_NO_SNAPSHOT
};

/* The long options of `vm start` and of `suite run` (each ends with a zero entry). */
extern const struct option cli_vm_flags_start[];
extern const struct option cli_vm_flags_suite[];

/* 1 when c is a CLI_VM_* code. */
int cli_vm_flag_is(int c);

/* Flag c (from table, which names it in messages) with value v into s. Returns 0,
   or exit code 2 after printing "teebench: CMD: --flag VALUE: why". */
int cli_vm_flag_take(const char *cmd, const struct option *table, int c, const char *v,
                     tb_vm_spec *s);

/* Appends the zero-terminated table add to out, which holds *n entries and has room
   for cap (a zero entry is kept at the end). 0, or -1 when it does not fit. */
int cli_opt_append(struct option *out, int *n, int cap, const struct option *add);

#endif
