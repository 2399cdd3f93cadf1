/* workloads/notary: the notary workload (see notary.c) -- its parameters. */
#ifndef TB_WORKLOADS_NOTARY_H
#define TB_WORKLOADS_NOTARY_H

#include "workloads/workload.h"

typedef struct tb_wl_notary_params {
    int iterations; /* per round and mode */
    int n_modes;
    char modes[3][16]; /* no_tee, tee_no_verify, tee_verify (in this order) */
    int run_timeout_s;
    int retries;
    char pccs[512]; /* tee_verify against a real TDX notary */
    char tee[8];    /* the notary's TEE: auto (tdx / snp in such a guest, else sim), sim,
                       sim-snp, tdx, snp */
} tb_wl_notary_params;

extern const tb_workload tb_wl_notary;

/* The notary's TEE from the notary.tee setting and the TEE the env facts name: auto is
   the guest's own TEE (tdx, snp), else sim; anything else is taken as given. */
const char *tb_wl_notary_tee(const char *setting, const char *env_tee);

#endif
