/* workloads/probe: the probe workload (see probe.c) -- its parameters. */
#ifndef TB_WORKLOADS_PROBE_H
#define TB_WORKLOADS_PROBE_H

#include "workloads/workload.h"

#define TB_WL_PROBE_MAX 32 /* probes a plan may name */

typedef struct tb_wl_probe_params {
    int max_reps; /* samples per probe: min(this, the probe's default); 0: defaults */
    int n;        /* 0: every probe */
    char names[TB_WL_PROBE_MAX][32];
} tb_wl_probe_params;

extern const tb_workload tb_wl_probe;

/* Whether the plan's parameters select the probe called name. */
int tb_wl_probe_selected(const tb_wl_probe_params *pr, const char *name);

#endif
