/* workloads/tlsn: the real TLSNotary protocol's workload (see tlsn.c) -- its
 * parameters, and how a bench tlsn run's rows become samples. */
#ifndef TB_WORKLOADS_TLSN_H
#define TB_WORKLOADS_TLSN_H

#include "benchcsv/benchcsv.h"
#include "workloads/workload.h"

typedef struct tb_wl_tlsn_params {
    int iterations; /* sessions per mode, in round 1 only (0: off) */
    int threads;    /* per party */
    int run_timeout_s;
    char tee[8];        /* auto | sim | tdx */
    char wasm[512];     /* the package; "" = where setup.sh installs it */
    char chromium[512]; /* "chromium" (PATH) */
} tb_wl_tlsn_params;

extern const tb_workload tb_wl_tlsn;

/* The samples of a bench tlsn run: for each successful row of rs, tlsn.<mode>.
   notarization_ms and .total_e2e_ms (and .verify_ms where it verified); from phases
   (phases.csv's text, may be NULL) its setup_ms, request_ms, reveal_ms, cpu_ms (both
   parties) and peak_rss_mib (the larger party); then each TEE mode's overhead_ms (the
   median of paired differences to no_tee, as notary's). simulated: the TEE modes'
   samples are SIMULATED. 0, or -1 with err. */
int tb_wl_tlsn_rows(const tb_bench_results *rs, const char *phases, int simulated, tb_wl_sink *sink,
                    tb_err *err);

#endif
