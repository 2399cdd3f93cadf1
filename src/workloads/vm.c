/* workloads/vm: what teebench measures of the VMs it starts itself (suite run
 * --vm-kinds: fleet/vm and fleet/vmenv) -- not a suite workload: its metrics
 * are put into a VM's record by whoever started the VM.
 *
 * Metrics: vm.boot.s, the time from the VM's start to its first SSH answer; and its
 * phases, consecutive (they add up to about vm.boot.s): vm.boot.firmware.s (QEMU's
 * start to the kernel's first line on the serial console), vm.boot.kernel.s (to
 * userspace's start), vm.boot.userspace.s (to the guest's boot target, systemd-analyze)
 * and vm.boot.ssh.s (to the first SSH login) -- the report stacks them (a phases
 * family; vm/boot.h says how each is measured); and vm.boot.mem.<N>mib.s, the boot
 * time at N MiB of guest memory (suite run --vm-boot-memory: a sweep family). */
#include "workloads/workload.h"

static const tb_wl_metric metrics[] = {
    {"vm.boot.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
    {"vm.boot.firmware.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
    {"vm.boot.kernel.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
    {"vm.boot.userspace.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
    {"vm.boot.ssh.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
    {"vm.boot.mem.*.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
};

static const char *const boot_phases[] = {"vm.boot.firmware.s", "vm.boot.kernel.s",
                                          "vm.boot.userspace.s", "vm.boot.ssh.s", NULL};

static const tb_wl_family families[] = {
    {.kind = TB_WLF_PHASES, .title = "boot phases", .phases = boot_phases, .total = "vm.boot.s"},
    {.kind = TB_WLF_SWEEP,
     .title = "boot time by guest memory",
     .metric = "vm.boot.mem.*.s",
     .prefix = "",
     .axis = "guest memory",
     .unit = "B",
     .log = 1},
};

const tb_workload tb_wl_vm = {
    .name = "vm",
    .title = "VM",
    .what = "the VMs teebench starts: the time to boot one, by phase",
    .flags = TB_WL_NO_SUITE,
    TB_WL_METRIC_TABLE(metrics),
    TB_WL_FAMILY_TABLE(families),
};
