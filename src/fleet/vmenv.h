/* fleet/vmenv: the VM environments of `suite run --vm-kinds` -- the pure parts:
 * which VMs (kinds and labels), the label a TCG guest gets, and what a record
 * measured in a VM carries about it. Starting, running and stopping the VMs is
 * fleet/vm.c's (through vm/ and suite/remote).
 *
 * Invariants:
 * - A VM environment's label is also its VM's name (`teebench vm list` shows it
 *   while the suite runs there), so it is a valid label and a valid VM name.
 * - A guest under TCG never passes for a real VM: its default label ends in
 *   "-tcg", its record's extra "vm" says "accel": "tcg" with a note, and the
 *   vm.boot.s metric's note says so too.
 * Nothing here prints or touches the host. */
#ifndef TB_FLEET_VMENV_H
#define TB_FLEET_VMENV_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "record/record.h"
#include "vm/vm.h"

#define TB_FLEET_VM_MAX 8
/* The metric: vm start to the first SSH login, one sample per start. */
#define TB_FLEET_VM_BOOT_METRIC "vm.boot.s"
#define TB_FLEET_VM_TCG_NOTE "emulated (TCG): no performance figure from this guest means anything"

typedef struct tb_fleet_vm_env {
    tb_vm_kind kind;
    char label[TB_VM_NAME_MAX + 1]; /* "vm-regular", or the LABEL of LABEL=KIND */
    int named;                      /* 1: LABEL=KIND (the label is the user's) */
    uint64_t swiotlb; /* "regular-swiotlb[:POOL]": tb_vm_spec.swiotlb (0: not forced) */
} tb_fleet_vm_env;

/* Parses "regular,tdx" (labels vm-regular, vm-tdx) or "td=tdx,vm=regular" (labels
   given): at most max entries, no label twice. A kind is also "regular-swiotlb" or
   "regular-swiotlb:POOL" (label vm-regular-swiotlb): the regular VM with forced bounce
   buffers (vm/vm.h, tb_vm_kind_parse_ext). 0, or -1 with one line in err. */
int tb_fleet_vm_kinds_parse(const char *list, tb_fleet_vm_env *out, int max, int *n, tb_err *err);

/* The label of e once its accelerator is known: a default label of a TCG guest
   gets "-tcg" ("vm-regular-tcg"); a given label stays as it is. */
void tb_fleet_vm_label(const tb_fleet_vm_env *e, int tcg, char *out, size_t len);

/* What r, measured in the VM of st, carries about it: the metric vm.boot.s (s, lower
   is better, workload "vm"; one sample: st->boot_ns, when known), extra "vm" =
   {"name", "kind", "accel" ("kvm"|"tcg"), "cpus", "memory_mib", "boot_s" (or
   null), "swiotlb" ({"forced": false}, or {"forced": true, "param", "nslabs",
   "pool_bytes", "how" ("append"|"seed-reboot"), "guest_cmdline"}), "qemu" {path, version,
   sha256} (when st knows it), "firmware" {path, sha256} or "none: ...", "note" (TCG only)},
   the QEMU command line appended to r->commands (when st has it) and versions.qemu (when
   qemu_version is not NULL). 0, or -1 (err). */
int tb_fleet_vm_annotate(tb_record *r, const tb_vm_state *st, const char *qemu_version,
                         tb_err *err);

#endif
