/* cli/attest_snp: the SEV-SNP side of `teebench attest show|verify|bench`
 * (cli/attest_snp.c); cli/attest.c calls these when the input's bytes are an SNP report. */
#ifndef TB_CLI_ATTEST_SNP_H
#define TB_CLI_ATTEST_SNP_H

#include <stddef.h>
#include <stdint.h>

#include "attest/snp/snp.h"
#include "attest/common/timing.h"
#include "base/err.h"

/* Prints every field of the report (text or JSON); returns the exit code. */
int cli_attest_snp_show(const char *path, const uint8_t *b, size_t n, int json);

typedef struct cli_snp_verify_args {
    const char *path; /* for messages */
    const uint8_t *report;
    size_t len;
    const char *certs;      /* a folder, or NULL */
    const char *kds;        /* a KDS base URL, or NULL */
    const char *root;       /* a trusted ARK file, or NULL (built-in) */
    tb_snp_product product; /* for a v2 report with --kds (0: unknown) */
    tb_snp_kds_opts kds_opts;
    int64_t now;
    const tb_attest_policy *policy;
    int json;
} cli_snp_verify_args;
/* Verifies (attest/common/evidence's check) and prints; returns the exit code (0, 3, 4, 5,
   1 or 2). */
int cli_attest_snp_verify(const cli_snp_verify_args *a);

/* `attest bench REPORT --certs DIR`'s output: the times of both ways (cli/attest.c ran
 * attest/common/evidence's timing on the prepared certificates: scratch_rc, prepared_rc its
 * results; e: the error of the one that failed). Returns the exit code. */
int cli_attest_snp_bench_print(const char *path, const tb_attest_timed *scratch, int scratch_rc,
                               const tb_attest_timed *prepared, int prepared_rc, int runs, int json,
                               const tb_err *e);

#endif
