/* cli/bench_tlsn: what `teebench bench tlsn` adds to bench notary's harness -- its
 * own options (threads per party, the package, Chromium, the TEE, phase timeouts),
 * the client (`teebench tlsn session --env`, one per run), the checks before the
 * first run (the pinned package, Chromium), phases.csv, and its table. */
#ifndef TB_CLI_BENCH_TLSN_H
#define TB_CLI_BENCH_TLSN_H

#include <limits.h>
#include <stdio.h>

#include "base/err.h"
#include "bench/run.h"

typedef struct cli_bench_tlsn {
    int threads;
    char wasm[PATH_MAX];
    char chromium[PATH_MAX];
    char tee[8]; /* sim | tdx | auto */
    int startup_timeout_s, phase_timeout_s;
} cli_bench_tlsn;

/* The columns of phases.csv (KEY names the session prints). */
#define CLI_TLSN_KEYS                                                                              \
    "INIT_MS SETUP_MS REQUEST_MS REVEAL_MS VERIFY_MS TEE_MS QUOTE_MS TDX_VERIFY_MS "               \
    "BYTES_PROVER_TO_VERIFIER BYTES_VERIFIER_TO_PROVER BYTES_TEE_CHANNEL BYTES_TO_TARGET "         \
    "BYTES_FROM_TARGET PROVER_CPU_MS VERIFIER_CPU_MS PROVER_PEAK_RSS_MIB VERIFIER_PEAK_RSS_MIB"

void cli_bench_tlsn_defaults(tb_bench_config *c, cli_bench_tlsn *t);
void cli_bench_tlsn_usage(FILE *f);
/* argv[*i] if it is one of its flags (its value consumed, *i moved): 1; not one: 0;
   a bad value: -1 with err. */
int cli_bench_tlsn_flag(cli_bench_tlsn *t, int argc, char **argv, int *i, tb_err *err);
/* After the options: the checks and the client command. */
int cli_bench_tlsn_prepare(tb_bench_config *c, cli_bench_tlsn *t, tb_err *err);
/* The phases' medians per mode from run_dir/phases.csv (successful runs). */
void cli_bench_tlsn_print_phases(const cli_bench_tlsn *t, const char *run_dir, FILE *f);

#endif
