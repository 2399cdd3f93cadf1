/* attest: what the attest module's TEEs share -- the public part common to TDX quotes
 * (attest/tdx/tdx.h) and SEV-SNP reports (attest/snp/snp.h): trusted roots, the verifier's
 * policy (one struct for both TEEs, fields shared where their meaning is), the TCB status
 * names a policy accepts and the result of a verification.
 *
 * The module is three folders: attest/common (the DER walker and certificate/CRL readers,
 * the strict JSON tokenizer, the HTTP fetch of collateral and its cache, roots, policy,
 * configfs-tsm, the evidence interface and the verification-timing loop), attest/tdx
 * (Intel TDX: quotes, DCAP collateral, PCS/PCCS, the SIMULATED TDX provider and the pure
 * verifier; functions tb_tdx_*) and attest/snp (AMD SEV-SNP: reports, VCEK/VLEK chains,
 * the KDS, the SIMULATED SEV-SNP provider and the pure verifier; functions tb_snp_*).
 * What only the module's files and its tests share is in attest/internal.h.
 *
 * Ownership: a _free function frees an object it was handed; a _clear function releases
 * what a caller-owned struct holds and zeroes it. Errors: 0 / -1 and a tb_err (base/err.h).
 * Nothing prints; no shared mutable state. */
#ifndef TB_ATTEST_H
#define TB_ATTEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* --------------------------------------------------------------- trusted root */

typedef struct tb_attest_root tb_attest_root; /* an X.509 root certificate (opaque) */
/* The built-in Intel SGX Root CA. Caller frees with tb_attest_root_free. */
int tb_attest_root_intel(tb_attest_root **out, tb_err *err);
/* A root from a PEM or DER file. */
int tb_attest_root_load(const char *path, tb_attest_root **out, tb_err *err);
void tb_attest_root_free(tb_attest_root *r);

/* ------------------------------------------------------------------ policy */

typedef enum tb_attest_tcb_status {
    TB_ATTEST_TCB_UP_TO_DATE = 0,
    TB_ATTEST_TCB_SW_HARDENING_NEEDED,
    TB_ATTEST_TCB_CONFIGURATION_NEEDED,
    TB_ATTEST_TCB_CONFIGURATION_AND_SW_HARDENING_NEEDED,
    TB_ATTEST_TCB_OUT_OF_DATE,
    TB_ATTEST_TCB_OUT_OF_DATE_CONFIGURATION_NEEDED,
    TB_ATTEST_TCB_REVOKED,
    /* Only QVL's TDRelaunchCheck gives these (TDX 1.5 quotes): the TD's TCB is out of date
     * but a relaunch on this platform would bring it up to date (TEE_TCB_SVN2). */
    TB_ATTEST_TCB_TD_RELAUNCH_ADVISED,
    TB_ATTEST_TCB_TD_RELAUNCH_ADVISED_CONFIGURATION_NEEDED,
    TB_ATTEST_TCB_STATUS_COUNT
} tb_attest_tcb_status;

/* Intel's spelling ("UpToDate", ...). */
const char *tb_attest_tcb_status_name(tb_attest_tcb_status s);

typedef struct tb_attest_policy {
    int allow_debug;              /* accept a TD with the DEBUG attribute */
    int allow_expired_collateral; /* collateral past its nextUpdate/notAfter still verifies
                                     (offline re-verification of old evidence) */
    uint32_t accept;              /* bit (1u << status) for each acceptable status */
    int want_mrtd, want_mrconfigid, want_rtmr[4];
    uint8_t mrtd[48], mrconfigid[48], rtmr[4][48];
    size_t report_data_len; /* 0: any; 1..64: REPORTDATA must start with these */
    uint8_t report_data[64];
    /* AMD SEV-SNP only (attest/snp/snp.h). A TDX quote is refused when one of these is set,
     * an SNP report when one of the TDX-only ones is (mrtd, mrconfigid, rtmr*). */
    int want_measurement, want_host_data, want_min_tcb, want_vmpl, want_min_guest_svn;
    uint8_t measurement[48], host_data[32];
    uint8_t min_bl, min_tee, min_snp, min_ucode, min_fmc; /* minimum reported TCB SPLs */
    uint32_t min_guest_svn, vmpl;
    int deny_smt, deny_migration; /* refuse guest policies allowing SMT / a migration agent */
} tb_attest_policy;

/* The default policy: UpToDate only, no DEBUG, no measurement requirements. */
void tb_attest_policy_default(tb_attest_policy *p);
/* Reads a policy JSON file: {"allow_debug": bool, "allow_expired_collateral": bool,
 * "tcb_statuses": ["UpToDate", ..., "TDRelaunchAdvised", ...],
 * "mrtd": hex, "mrconfigid": hex, "rtmr0".."rtmr3": hex, "report_data": hex (64 bytes),
 * "report_data_prefix": hex; SEV-SNP: "measurement": hex (48), "host_data": hex (32),
 * "min_tcb": {"bl","tee","snp","ucode","fmc": 0..255}, "min_guest_svn": n, "vmpl": 0..3,
 * "allow_smt": bool, "allow_migration": bool}. Fields absent keep the defaults. */
/* 1 when the policy sets an SNP-only / a TDX-only requirement. */
int tb_attest_policy_has_snp(const tb_attest_policy *p);
int tb_attest_policy_has_tdx(const tb_attest_policy *p);
int tb_attest_policy_load(const char *path, tb_attest_policy *p, tb_err *err);

/* ------------------------------------------------------- evidence files */

/* Reads an evidence file (a TDX quote or an SEV-SNP report; attest/common/evidence_file):
 * binary, or hex / base64 text (decoded). *out is malloc'd (caller frees). Fails only when
 * the file cannot be read (the message names the path once). */
int tb_attest_evidence_file_read(const char *path, uint8_t **out, size_t *len, tb_err *err);

/* ------------------------------------------------------- SIMULATED state */

/* The SIMULATED providers' state directory, TDX's and SEV-SNP's (attest/common/sim_state):
 * override, else $TEEBENCH_SIM_DIR, else $XDG_CACHE_HOME/teebench/sim (~/.cache/...).
 * Writes the path into out; returns 0 or -1 (no home / too long). */
int tb_attest_sim_dir(const char *override, char *out, size_t outlen, tb_err *err);

/* -------------------------------------------------------------- the result */

typedef enum tb_attest_result {
    TB_ATTEST_ACCEPTED = 0, /* valid and the policy accepts it */
    TB_ATTEST_REFUSED,      /* valid, but the policy refuses it (status, DEBUG, values) */
    TB_ATTEST_INVALID,      /* verification failed at `step` */
    TB_ATTEST_EXPIRED       /* every check passed but the collateral had expired at `now`
                               (QvE's collateral_expiration_status); the policy's
                               allow_expired_collateral accepts it. `step` is the step whose
                               collateral expired first. */
} tb_attest_result;
/* The verdict's word, for both TEE families' output: "ACCEPTED", "REFUSED", "INVALID",
   "COLLATERAL EXPIRED". */
const char *tb_attest_result_name(tb_attest_result r);

#endif
