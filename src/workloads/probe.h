/* workloads/probe: the probe workload (see probe.c) -- its parameters, and the
 * teebench-probe/1 document `teebench probe --json` prints (its writer; the reader is
 * the workload's doc_read). */
#ifndef TB_WORKLOADS_PROBE_H
#define TB_WORKLOADS_PROBE_H

#include "sys/probe.h"
#include "workloads/workload.h"

#define TB_WL_PROBE_SCHEMA "teebench-probe/1"

#define TB_WL_PROBE_MAX 32 /* probes a plan may name */

typedef struct tb_wl_probe_params {
    int max_reps; /* samples per probe: min(this, the probe's default); 0: defaults */
    int n;        /* 0: every probe */
    char names[TB_WL_PROBE_MAX][32];
} tb_wl_probe_params;

extern const tb_workload tb_wl_probe;

/* One probe's result as the document has it: name, what, available, unit, and when it
   was measured its median, p99, min, mean, samples, batch and timer cost; the CPUs; the
   note. NULL when out of memory. */
json_t *tb_wl_probe_result_json(const tb_probe_info *p, const tb_probe_result *r);
/* The teebench-probe/1 document's members (cli/json puts the envelope around them):
   {"probes": results} (results, an array of tb_wl_probe_result_json, is consumed). */
json_t *tb_wl_probe_doc(json_t *results);

#endif
