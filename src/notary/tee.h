/* notary/tee: the notary's quote source and quote verifier over src/attest.
 *
 * tb_notary_tee_open gives the tb_notary_quote_source for `--tee tdx` (Linux
 * configfs-tsm) or `--tee sim` (the attest module's SIMULATED provider, state
 * in sim_dir or its default), and for AMD SEV-SNP `--tee snp` (configfs-tsm,
 * provider sev_guest) or `--tee sim-snp` (the SIMULATED SNP provider): the
 * "quote" is then the SNP report, with the same REPORTDATA binding.
 * tb_notary_verifier_opts say how the client's --verify checks a quote
 * (notary/check.h uses them; the verifier itself is internal): one path for both
 * families over attest/common/evidence -- the evidence read (its SIMULATED marker must be the
 * verifier's, its report data the binding), then one tb_attest_evidence_check with the
 * binding in the policy. TDX: collateral from a file (--collateral), a PCCS URL
 * through attest's on-disk cache (--pccs), or, for SIMULATED quotes, attest's
 * simulated collateral and root; SEV-SNP (opts.tee snp or sim-snp): certificates
 * from --certs DIR or --kds URL (through attest's cache), or for sim-snp the
 * simulated ARK/ASK/VCEK/CRL with the simulated ARK as the only root. TDX options
 * are refused for SNP evidence and SNP options for TDX. A verifier accepts a quote
 * only when the verdict is ACCEPTED. A SIMULATED quote is verified only when the
 * evidence says simulated, and then only against the simulated root; a simulated
 * root is never accepted for real evidence. Ownership: tb_notary_tee_open allocates
 * ctx; free with tb_notary_tee_close. */
#ifndef TB_NOTARY_TEE_H
#define TB_NOTARY_TEE_H

#include "base/err.h"
#include "notary/evidence.h"

/* kind: any but TB_TEE_NONE (refused). */
int tb_notary_tee_open(tb_tee kind, const char *sim_dir, tb_notary_quote_source *out, tb_err *err);
void tb_notary_tee_close(tb_notary_quote_source *src);

typedef struct tb_notary_verifier_opts {
    const char *collateral; /* file or folder (dcap-qvl JSON / PCS responses) */
    const char *pccs;       /* PCCS/PCS base URL (cached) */
    const char *sim_dir;    /* simulated PKI directory (NULL: default) */
    const char *root;       /* trusted root PEM (NULL: Intel's, or the sim root for sim) */
    const char *policy;     /* policy JSON file (NULL: the default policy, UpToDate only) */
    int simulated;          /* the evidence says SIMULATED: verify against the sim PKI */
    tb_tee tee;             /* the evidence's TEE kind (family SNP: the SNP verifier) */
    const char *certs;      /* SNP: folder with ark.pem, ask.pem, vcek.der, crl.der */
    const char *kds;        /* SNP: AMD KDS base URL (cached as attest does) */
} tb_notary_verifier_opts;

#endif
