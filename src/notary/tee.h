/* notary/tee: the notary's quote source and quote verifier over src/attest.
 *
 * tb_notary_tee_open gives the tb_quote_source for `--tee tdx` (Linux
 * configfs-tsm) or `--tee sim` (the attest module's SIMULATED provider, state
 * in sim_dir or its default). tb_notary_verifier_open gives the
 * tb_quote_verifier for the client's --verify: collateral from a file
 * (--collateral), a PCCS URL through the on-disk cache (--pccs), or, for
 * SIMULATED quotes, the simulated PKI's own collateral and root (kept in the
 * attest module's collateral cache, so later runs reuse it while it is valid).
 * A verifier accepts a quote only when the attest module's full verification
 * returns ACCEPTED under the policy; it then hands back the quote's REPORTDATA.
 * A SIMULATED quote is verified only when the evidence says simulated, and
 * then only against the simulated root.
 * Ownership: both allocate ctx; free with the matching _close. */
#ifndef TB_NOTARY_TEE_H
#define TB_NOTARY_TEE_H

#include "base/err.h"
#include "notary/evidence.h"

int tb_notary_tee_open(const char *kind, const char *sim_dir, tb_quote_source *out, tb_err *err);
void tb_notary_tee_close(tb_quote_source *src);

typedef struct tb_verifier_opts {
    const char *collateral; /* file or folder (dcap-qvl JSON / PCS responses) */
    const char *pccs;       /* PCCS/PCS base URL (cached) */
    const char *sim_dir;    /* simulated PKI directory (NULL: default) */
    const char *root;       /* trusted root PEM (NULL: Intel's, or the sim root for sim) */
    const char *policy;     /* policy JSON file (NULL: the default policy, UpToDate only) */
    int simulated;          /* the evidence says SIMULATED: verify against the sim PKI */
} tb_verifier_opts;

int tb_notary_verifier_open(const tb_verifier_opts *o, tb_quote_verifier *out, tb_err *err);
void tb_notary_verifier_close(tb_quote_verifier *v);

#endif
