/* workloads/attest: the attest workload -- get the TEE's evidence (TDX quotes or
 * SEV-SNP reports) and verify it.
 *
 * Metrics (the same names for both TEEs, so that a TDX and an SEV-SNP environment
 * line up row by row): the time to get one quote, and to verify one with its
 * collateral prepared and from scratch. All of them SIMULATED outside a TEE. */
#include "workloads/workload.h"

static const tb_wl_metric metrics[] = {
    {"attest.quote_get.ms", "ms", TB_WL_LOWER, TB_CAT_ATTEST, 1, NULL, 0, 0},
    {"attest.verify_prepared.us", "us", TB_WL_LOWER, TB_CAT_ATTEST, 1, NULL, 0, 0},
    {"attest.verify_scratch.ms", "ms", TB_WL_LOWER, TB_CAT_ATTEST, 1, NULL, 0, 0},
};

const tb_workload tb_wl_attest = {
    .name = "attest",
    .title = "Attestation",
    .what = "getting and verifying TDX quotes or SEV-SNP reports",
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
};
