/* workloads/probe: the probe workload -- sys/probe's TEE-sensitive microbenchmarks.
 *
 * Metrics: probe.<name>.ns, the median time of one operation, per probe. */
#include "workloads/workload.h"

static const tb_wl_metric metrics[] = {
    {"probe.*.ns", "ns", TB_WL_LOWER, TB_CAT_PROBE, 0, NULL, 0, 0},
};

const tb_workload tb_wl_probe = {
    .name = "probe",
    .title = "Probes",
    .what = "the time of operations a confidential VM handles differently (teebench probe)",
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
};
