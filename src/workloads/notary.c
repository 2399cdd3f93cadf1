/* workloads/notary: the notary workload -- `teebench bench notary`: notarizations
 * without a TEE, with TEE attestation, and with the client verifying the quote.
 *
 * Metrics, per mode (no_tee, tee_no_verify, tee_verify): the notarization time, the
 * end-to-end time and the client process's life, tee_verify's verification time,
 * and the paired overhead of each TEE mode over no_tee. Every mode but no_tee is
 * SIMULATED outside a TEE. */
#include "workloads/workload.h"

#define NOTARY(q)                                                                                  \
    {                                                                                              \
        "notary.*." q, "ms", TB_WL_LOWER, TB_CAT_NOTARY, 1, "no_tee", 0, 0                         \
    }

static const tb_wl_metric metrics[] = {
    NOTARY("notarization_ms"), NOTARY("total_e2e_ms"), NOTARY("wall_ms"),
    NOTARY("verify_ms"),       NOTARY("overhead_ms"),
};

const tb_workload tb_wl_notary = {
    .name = "notary",
    .title = "Notary",
    .what = "notarizations without and with a TEE (teebench bench notary)",
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
};
