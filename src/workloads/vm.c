/* workloads/vm: what teebench measures of the VMs it starts itself (suite run
 * --vm-kinds: fleet/vm and fleet/vmenv) -- not a suite workload: its metrics
 * are put into a VM's record by whoever started the VM.
 *
 * Metrics: vm.boot.s, the time from the VM's start to its first SSH answer. */
#include "workloads/workload.h"

static const tb_wl_metric metrics[] = {
    {"vm.boot.s", "s", TB_WL_LOWER, TB_CAT_BOOT, 0, NULL, 0, 0},
};

const tb_workload tb_wl_vm = {
    .name = "vm",
    .title = "VM",
    .what = "the VMs teebench starts: the time to boot one",
    .flags = TB_WL_NO_SUITE,
    TB_WL_METRIC_TABLE(metrics),
};
