/* workloads/notary: the notary workload (see notary.c) -- its parameters. */
#ifndef TB_WORKLOADS_NOTARY_H
#define TB_WORKLOADS_NOTARY_H

#include "benchcsv/benchcsv.h"
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

/* How rows of results.csv become samples. */
typedef struct tb_wl_notary_rows_opts {
    int simulated;   /* the notary's TEE was SIMULATED: the TEE modes' samples are marked */
    const char *tag; /* appended to a SIMULATED sample's note; NULL: " (SIMULATED TEE)" */
    int overheads;   /* also each TEE mode's paired overhead (not for a cut-short round) */
} tb_wl_notary_rows_opts;

/* The samples of rows rs (the last attempt of each run; failed runs left out), one per
   run: notary.<mode>.notarization_ms, .total_e2e_ms, .wall_ms where the row has them,
   .verify_ms where the run verified the quote; then, with o->overheads, one sample per
   TEE mode: notary.<mode>.overhead_ms, the median over iterations of the mode's
   notarization_ms (tee_verify: notarization_plus_verify_ms) minus no_tee's of the same
   iteration (none without a pair). Modes in order of first appearance; a mode's name
   made safe for a metric name. O(rows log rows). 0, or -1 with err. The suite gives it
   each round's rows, results import a results.csv's. */
int tb_wl_notary_rows(const tb_bench_results *rs, const tb_wl_notary_rows_opts *o, tb_wl_sink *sink,
                      tb_err *err);

/* A step that runs the harness (bench/run) with bc -- the notary's and tlsn's: until it
   ends or the sink's stop flag is raised, then samples(ctx, rows, oc, sink, err) with the
   last attempt of every run. TB_WL_FAILED with err when the harness could not run or
   samples failed; TB_WL_CANCELLED when it was interrupted; TB_WL_FAILED with "<failed>
   of <completed> <runs> failed<detail> (logs: <run dir>/logs)" when runs failed; else
   TB_WL_OK. */
struct tb_bench_config;  /* bench/run.h */
struct tb_bench_outcome; /* bench/run.h */
typedef int (*tb_wl_bench_samples_fn)(void *ctx, const tb_bench_results *rows,
                                      const struct tb_bench_outcome *oc, tb_wl_sink *sink,
                                      tb_err *err);
int tb_wl_bench_step(const struct tb_bench_config *bc, tb_wl_sink *sink,
                     tb_wl_bench_samples_fn samples, void *ctx, const char *runs,
                     const char *detail, tb_err *err);

/* The notary's TEE from the notary.tee setting and the TEE the env facts name: auto is
   the guest's own TEE (tdx, snp), else sim; anything else is taken as given. */
const char *tb_wl_notary_tee(const char *setting, const char *env_tee);

#endif
