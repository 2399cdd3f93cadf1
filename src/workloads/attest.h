/* workloads/attest: the attest workload (see attest.c) -- its parameters. */
#ifndef TB_WORKLOADS_ATTEST_H
#define TB_WORKLOADS_ATTEST_H

#include "workloads/workload.h"

#define TB_WL_PCS_URL "https://api.trustedservices.intel.com"
#define TB_WL_KDS_URL "https://kdsintf.amd.com"

typedef struct tb_wl_attest_params {
    char provider[8]; /* auto (tsm in a TDX or SEV-SNP guest, else sim), sim (SIMULATED TDX),
                         sim-snp (SIMULATED SEV-SNP), tsm (configfs-tsm: the guest's TEE) */
    int quotes;       /* quotes (SNP: reports) timed per round (one sample each) */
    int iterations;   /* verifications per round and kind, in 5 batches (one sample each) */
    char pccs[512];   /* collateral source for real TDX quotes (PCS/PCCS base URL) */
    char kds[512];    /* certificate source for real SEV-SNP reports (AMD KDS base URL) */
    char certs[512];  /* or a folder of them (ark.pem, ask.pem, vcek.der, crl.der); "": KDS */
} tb_wl_attest_params;

extern const tb_workload tb_wl_attest;

/* The evidence the attest workload uses, from the attest.provider setting and the TEE the
   env facts name (tb_env_json_tee): "tdx", "snp" (configfs-tsm), "sim" or "sim-snp"
   (SIMULATED). auto: the guest's own TEE, else sim; tsm: the guest's (tdx unless snp). */
const char *tb_wl_attest_tee(const char *provider, const char *env_tee);

#endif
