/* attest/common/timing: the one loop that times verification, from scratch or prepared, of a
 * TDX quote or an SEV-SNP report -- what `attest bench` (cli/attest, cli/attest_snp)
 * and the suite's attest workload measure.
 *
 * From scratch: TDX: the collateral JSON parsed and checked with the quote every time
 * (tb_tdx_collateral_parse_json + tb_tdx_verify); SEV-SNP: the certificates'
 * chain, CRL and the report checked every time (tb_snp_verify). Prepared: the
 * collateral (tb_tdx_prepare) or the chain (tb_snp_prepare) checked once, not
 * timed, then each verification (tb_attest_*verify_prepared).
 *
 * A run is `warmup` untimed verifications, then `batches` timed batches of `per`
 * verifications each: a batch gives its mean wall (CLOCK_MONOTONIC) and thread CPU time
 * per verification; the result is their median over the batches done (stats/summary).
 * Between batches the caller may stop the run (stop) and sees each batch (batch) --
 * the suite makes a sample of each and refuses a batch whose verdict is INVALID.
 * Invariants: the input is borrowed and never changed; nothing prints; the last
 * verdict of the family verified is always filled (from preparing when that failed). */
#ifndef TB_ATTEST_TIMING_H
#define TB_ATTEST_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "attest/snp/snp.h"
#include "attest/tdx/tdx.h"
#include "base/tee.h"

typedef enum tb_attest_way { TB_ATTEST_FROM_SCRATCH = 0, TB_ATTEST_PREPARED = 1 } tb_attest_way;

/* What is verified (borrowed). family TDX: evidence is a quote and collateral_json its
   collateral (dcap-qvl JSON), root the trusted root; family SNP: evidence is a report,
   certs its certificates, ark the trusted ARK (NULL: AMD's built-in). now: the time
   checked against (UNIX seconds). */
typedef struct tb_attest_timed_input {
    tb_tee_family family;
    const uint8_t *evidence;
    size_t len;
    int64_t now;
    const char *collateral_json; /* TDX */
    size_t collateral_len;
    const tb_attest_root *root;
    const tb_snp_certs *certs; /* SEV-SNP */
    const uint8_t *ark;
    size_t ark_len;
} tb_attest_timed_input;

/* One batch (to the batch callback), or the run (the result). */
typedef struct tb_attest_timed {
    tb_attest_way way;
    int batch;          /* callback: this batch's index; result: the batches done */
    double wall_ms;     /* per verification: the batch's mean; result: the median of the means */
    double cpu_ms;      /* the same for this thread's CPU time */
    tb_tdx_verdict tdx; /* the last verdict (family TDX) */
    tb_snp_verdict snp; /* the last verdict (family SNP) */
} tb_attest_timed;

typedef struct tb_attest_timing_opts {
    int batches; /* 1..64 */
    int per;     /* verifications per batch, > 0 */
    int warmup;  /* untimed verifications first (0: none) */
    void *ctx;
    int (*stop)(void *ctx); /* NULL, or nonzero: no more batches (checked before each) */
    /* NULL, or after each batch: 0 goes on; -1 stops the run with err (returned). */
    int (*batch)(void *ctx, const tb_attest_timed *b, tb_err *err);
} tb_attest_timing_opts;

/* Times verification of in one way. Returns 0 with *out (batch: the batches done; with
   none done the times are 0), or -1: the collateral does not parse, preparing fails (out's
   verdict says why; SEV-SNP: "SEV-SNP report verification failed at STEP: why"), the
   batch callback's error, bad options, or out of memory. */
int tb_attest_time_verify(const tb_attest_timed_input *in, tb_attest_way way,
                          const tb_attest_timing_opts *o, tb_attest_timed *out, tb_err *err);

#endif
