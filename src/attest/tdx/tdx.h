/* attest/tdx: Intel TDX quotes -- the public TDX API of the attest module: what the cli
 * (src/cli/attest.c), the notary (src/notary/tee.c) and the suite use. What TDX and
 * SEV-SNP share (roots, policy, results) is attest/attest.h; the entry points only tests
 * and fuzz targets call are in attest/internal.h.
 *
 * Layers (one file each in attest/tdx, after go-tdx-guest's split; the DER walker,
 * certificate/CRL reader, JSON tokenizer, roots, policy, configfs-tsm and the collateral
 * cache they use are in attest/common):
 *   quote.c         bytes <-> structs: TDX quote v4/v5 (body types 2 and 3), the
 *                   ECDSA signature data, QE report, PCK chain; hex/base64 text input.
 *   pck.c           the SGX extension of a PCK certificate (FMSPC, PCE-ID, TCB).
 *   collateral.c    collateral: the dcap-qvl JSON format, a folder of PCS responses,
 *                   the exact byte spans of tcbInfo / enclaveIdentity for signatures.
 *   tcbinfo.c       TCB info v3 (TDX) and QE identity v2 (TD_QE) JSON -> structs.
 *   verify.c        the PURE verifier: (quote, collateral, now, policy, root) -> verdict,
 *                   in Intel QVL's order and semantics; no network, clock or globals.
 *   provider_sim.c  SIMULATED quotes and matching collateral from a local PKI.
 *   pccs.c          collateral from an Intel PCS / PCCS (v4 API) with libcurl.
 *   tdx.c           one-call helpers (get a quote, verify against a file / PCCS / sim).
 *
 * Ownership: every function that returns allocated memory says who frees it. A _free
 * function frees an object it was handed a pointer to; a _clear function releases what
 * a caller-owned struct holds and zeroes it (the struct itself is the caller's).
 * Errors: functions return 0 / -1 and fill a tb_err (base/err.h). Nothing prints.
 * Thread safety: no shared mutable state; distinct objects may be used from
 * distinct threads, and one tb_tdx_prepared may be used by many threads at once.
 * Exit codes of `teebench attest verify` (cli): 0 accepted, 3 valid but refused by the
 * policy (TB_ATTEST_REFUSED), 4 invalid (TB_ATTEST_INVALID), 5 collateral expired
 * (TB_ATTEST_EXPIRED), 1 error, 2 usage. */
#ifndef TB_TDX_H
#define TB_TDX_H

#include <stddef.h>
#include <stdint.h>

#include "attest/attest.h"
#include "base/err.h"
#include "base/tee.h"

/* ------------------------------------------------------------------ quote */

#define TB_TDX_TEE_TYPE 0x81u
#define TB_TDX_HEADER_LEN 48
#define TB_TDX_TD10_BODY_LEN 584
#define TB_TDX_TD15_BODY_LEN 648
#define TB_TDX_SGX_REPORT_LEN 384

/* The SGX enclave report body (here: the Quoting Enclave's report). */
typedef struct tb_tdx_sgx_report {
    uint8_t cpusvn[16];
    uint32_t miscselect;
    uint8_t attributes[16];
    uint8_t mrenclave[32];
    uint8_t mrsigner[32];
    uint16_t isvprodid;
    uint16_t isvsvn;
    uint8_t reportdata[64];
} tb_tdx_sgx_report;

/* The TD report body (TDX 1.0 = body type 2; TDX 1.5 = type 3 adds the last two). */
typedef struct tb_tdx_td_report {
    uint8_t tee_tcb_svn[16];
    uint8_t mrseam[48];
    uint8_t mrsignerseam[48];
    uint8_t seam_attributes[8];
    uint8_t td_attributes[8]; /* bit 0 of byte 0: DEBUG */
    uint8_t xfam[8];
    uint8_t mrtd[48];
    uint8_t mrconfigid[48];
    uint8_t mrowner[48];
    uint8_t mrownerconfig[48];
    uint8_t rtmr[4][48];
    uint8_t reportdata[64];
    uint8_t tee_tcb_svn2[16]; /* body type 3 only (else zero) */
    uint8_t mrservicetd[48];  /* body type 3 only (else zero) */
} tb_tdx_td_report;

/* A parsed quote. It owns `raw` (a copy of the input); every pointer below
 * points into raw. Free with tb_tdx_quote_free. */
typedef struct tb_tdx_quote {
    uint8_t *raw;
    size_t raw_len;
    /* header */
    uint16_t version; /* 4 or 5 */
    uint16_t att_key_type;
    uint32_t tee_type;
    uint16_t qe_svn, pce_svn;
    uint8_t qe_vendor_id[16];
    uint8_t user_data[20];
    /* body */
    uint16_t body_type; /* 2 (TDX 1.0) or 3 (TDX 1.5); v4 is always 2 */
    uint32_t body_len;
    tb_tdx_td_report td;
    size_t signed_len; /* raw[0..signed_len) is signed by the attestation key */
    /* signature data */
    uint32_t sig_data_len;
    uint8_t signature[64];        /* r || s */
    uint8_t att_key[64];          /* x || y (P-256) */
    uint16_t cert_type;           /* outer certification data type: 6 */
    const uint8_t *qe_report_raw; /* TB_TDX_SGX_REPORT_LEN bytes */
    tb_tdx_sgx_report qe_report;
    uint8_t qe_report_sig[64];
    const uint8_t *qe_auth;
    uint16_t qe_auth_len;
    uint16_t pck_cert_type; /* inner certification data type: 5 (PEM chain) */
    const char *pck_chain;  /* PEM text, not NUL-terminated */
    size_t pck_chain_len;
    size_t trailing; /* bytes after the signature data (padding) */
} tb_tdx_quote;

/* Parses a binary quote. On success *out is a new quote (free with tb_tdx_quote_free). */
int tb_tdx_quote_parse(const uint8_t *p, size_t n, tb_tdx_quote **out, tb_err *err);
void tb_tdx_quote_free(tb_tdx_quote *q);
/* tb_attest_evidence_file_read + tb_tdx_quote_parse; every message names the path once. */
int tb_tdx_quote_load(const char *path, tb_tdx_quote **out, tb_err *err);
/* Accessors. */
const uint8_t *tb_tdx_quote_report_data(const tb_tdx_quote *q); /* 64 bytes */
int tb_tdx_quote_is_debug(const tb_tdx_quote *q);
/* 1 when the header's user data carries the marker the SIMULATED provider writes. */
int tb_tdx_quote_is_simulated(const tb_tdx_quote *q);
/* The FMSPC (hex, 13 bytes with NUL) and PCK CA ("processor"/"platform") of a quote,
 * from its PCK certificate's SGX extension and issuer. */
int tb_tdx_quote_fmspc_ca(const tb_tdx_quote *q, char fmspc[13], const char **ca, tb_err *err);
/* Subjects (one-line form) of the quote's PCK chain, leaf first; returns how many
 * (<= max) or -1. */
int tb_tdx_quote_pck_subjects(const tb_tdx_quote *q, char subjects[][256], int max, tb_err *err);

/* ---------------------------------------------------------------- collateral */

/* The four pieces of collateral, as Intel serves them (the dcap-qvl format's
 * fields). All fields are owned (malloc'd); release with tb_tdx_collateral_clear. */
typedef struct tb_tdx_collateral {
    char *pck_crl_issuer_chain; /* PEM */
    uint8_t *root_ca_crl;       /* DER */
    size_t root_ca_crl_len;
    uint8_t *pck_crl; /* DER */
    size_t pck_crl_len;
    char *tcb_info_issuer_chain; /* PEM */
    char *tcb_info;              /* the exact bytes of the tcbInfo value (signed) */
    size_t tcb_info_len;
    uint8_t tcb_info_sig[64];
    char *qe_identity_issuer_chain; /* PEM */
    char *qe_identity;              /* the exact bytes of the enclaveIdentity value */
    size_t qe_identity_len;
    uint8_t qe_identity_sig[64];
} tb_tdx_collateral;

void tb_tdx_collateral_clear(tb_tdx_collateral *c);
/* Parses the dcap-qvl collateral JSON (CRLs as hex DER, PEM or an array of byte values;
 * signatures hex). Strict JSON (jsontok.c); duplicate fields are refused. */
int tb_tdx_collateral_parse_json(const char *text, size_t n, tb_tdx_collateral *out, tb_err *err);
/* Serializes to the dcap-qvl JSON format; *out is malloc'd (caller frees). */
int tb_tdx_collateral_to_json(const tb_tdx_collateral *c, char **out, tb_err *err);

/* ------------------------------------------------------------------ verify */

/* The steps, in Intel QVL's order. */
typedef enum tb_tdx_step {
    TB_TDX_STEP_NONE = 0,
    TB_TDX_STEP_PARSE,           /* the quote's bytes */
    TB_TDX_STEP_HEADER,          /* 1 */
    TB_TDX_STEP_PCK_CHAIN,       /* 2 */
    TB_TDX_STEP_TCB_INFO,        /* 3 */
    TB_TDX_STEP_QE_IDENTITY,     /* 4 */
    TB_TDX_STEP_QE_REPORT,       /* 5 */
    TB_TDX_STEP_QUOTE_SIGNATURE, /* 6 */
    TB_TDX_STEP_TDX_MODULE,      /* 7 */
    TB_TDX_STEP_TCB_LEVEL,       /* 8 */
    TB_TDX_STEP_POLICY           /* the quote is valid; the policy refused it */
} tb_tdx_step;

const char *tb_tdx_step_name(tb_tdx_step s);

#define TB_TDX_ADVISORY_BYTES 4096
/* Which TCB level listed an advisory ID (bits of tb_tdx_verdict.advisory_from). */
enum {
    TB_TDX_ADV_PLATFORM = 1,   /* the platform TCB level (TCB info tcbLevels) */
    TB_TDX_ADV_TDX_MODULE = 2, /* the TDX module identity's TCB level */
    TB_TDX_ADV_QE = 4          /* the QE identity's TCB level */
};

typedef struct tb_tdx_verdict {
    tb_attest_result result;
    tb_tdx_step step; /* failing step (INVALID), the expired collateral's step (EXPIRED)
                            or TB_TDX_STEP_POLICY (REFUSED) */
    char reason[TB_ERR_MAX];
    int status_known;            /* status fields below are set (step 8 reached) */
    tb_attest_tcb_status status; /* combined TCB status (Intel QVL's) */
    tb_attest_tcb_status platform_status, qe_status, module_status;
    /* Whose date is whose (as QvE's supplemental data): */
    char tcb_date[32];        /* the platform TCB level's tcbDate in the TCB info
                                 (QvE tcb_level_date_tag), "2024-03-13T00:00:00Z" */
    char qe_tcb_date[32];     /* the QE identity's TCB level (qe_iden_tcb_level_date_tag) */
    char module_tcb_date[32]; /* the TDX module identity's TCB level ("" if none applies) */
    /* Advisory IDs: the union of the matched platform TCB level's, TDX module level's and
     * QE identity level's, each ID once, in that order (a level's own order within it;
     * an ID keeps the place of its first level). n_advisories NUL-terminated IDs back to
     * back (read them with tb_tdx_verdict_advisory); any length; advisories_cut is
     * set when they did not all fit. advisory_from[i]: the TB_TDX_ADV_* levels that
     * list ID i. Intel QvE's sa_list (the platform level's alone) is the IDs with
     * TB_TDX_ADV_PLATFORM, in this order. */
    int n_advisories, advisories_cut;
    char advisory_ids[TB_TDX_ADVISORY_BYTES];
    unsigned char advisory_from[TB_TDX_ADVISORY_BYTES / 2];
    /* The collateral's validity: the earliest nextUpdate / notAfter of the CRLs, TCB info,
     * QE identity and every certificate (QvE earliest_expiration_date), what it is, and
     * whether `now` is past it. 0 / "" when verification stopped before it was known. */
    int64_t collateral_expiration;
    char collateral_expiration_what[64];
    int collateral_expired;
    char fmspc[13]; /* hex, from the PCK certificate (when step 2 passed) */
    int simulated;  /* the trusted root is a teebench simulated root */
    int debug;      /* the TD has the DEBUG attribute */
} tb_tdx_verdict;

/* The i-th advisory ID of a verdict (0 <= i < n_advisories), or NULL. */
const char *tb_tdx_verdict_advisory(const tb_tdx_verdict *v, int i);
/* The name of one TB_TDX_ADV_* bit: "platform", "tdx_module", "qe" (NULL otherwise). */
const char *tb_tdx_adv_level_name(unsigned bit);

/* Collateral checked once (signatures, chains, CRLs, parsed JSON), reusable for
 * many quotes of the same FMSPC while `now` stays inside its validity window. */
typedef struct tb_tdx_prepared tb_tdx_prepared;

/* Checks the collateral against the root at time now (steps 3-4's collateral
 * parts and the CRLs' signatures; collateral not yet valid at now fails, expired
 * collateral prepares and each verdict reports it). On failure returns -1, fills *v
 * (INVALID, step, reason) and err; on success *out is new (free with
 * tb_tdx_prepared_free). */
int tb_tdx_prepare(const tb_tdx_collateral *c, int64_t now, const tb_attest_root *root,
                   tb_tdx_prepared **out, tb_tdx_verdict *v, tb_err *err);
void tb_tdx_prepared_free(tb_tdx_prepared *p);
/* Verifies a quote with prepared collateral at time now. Always fills *v;
 * returns 0 when the verdict is ACCEPTED, -1 otherwise. Pure. */
int tb_tdx_verify_prepared(const uint8_t *quote, size_t len, const tb_tdx_prepared *pc, int64_t now,
                           const tb_attest_policy *policy, tb_tdx_verdict *v);
/* The pure verifier: verify(quote, collateral, now, policy, root) -> verdict.
 * = tb_tdx_prepare + tb_tdx_verify_prepared. Returns 0 when ACCEPTED, -1 otherwise. */
int tb_tdx_verify(const uint8_t *quote, size_t len, const tb_tdx_collateral *c, int64_t now,
                  const tb_attest_policy *policy, const tb_attest_root *root, tb_tdx_verdict *v);

/* ---------------------------------------------------------------- providers */

/* A quote from configfs-tsm under tsm_root (NULL: /sys/kernel/config/tsm/report). */
int tb_tdx_tsm_get_quote(const char *tsm_root, const uint8_t report_data[64], uint8_t **quote,
                         size_t *len, tb_err *err);

/* The SIMULATED provider opened once, for callers that make many quotes (the
 * notary makes one per notarization): it reads the PKI's nine PEM files once (creating
 * the PKI under dir on first use, atomically). *out is new (free with
 * tb_tdx_sim_close); tb_tdx_sim_quote may be called from many threads at once
 * (read-only keys). *quote is malloc'd (caller frees). */
typedef struct tb_tdx_sim tb_tdx_sim;
int tb_tdx_sim_open(const char *dir, tb_tdx_sim **out, tb_err *err);
int tb_tdx_sim_quote(const tb_tdx_sim *s, const uint8_t report_data[64], int debug, uint8_t **quote,
                     size_t *len, tb_err *err);
void tb_tdx_sim_close(tb_tdx_sim *s);
/* SIMULATED collateral matching the sim quotes, valid from now - 1 h to now + 30 days,
 * signed by the sim PKI; revoke_pck puts the sim PCK certificate in the PCK CRL.
 * *root (if non-NULL) receives the sim root (free with tb_attest_root_free). */
int tb_tdx_sim_collateral(const char *dir, int64_t now, int revoke_pck, tb_tdx_collateral *out,
                          tb_attest_root **root, tb_err *err);
/* The same collateral as a verifier keeps it (always revoke_pck 0): read from dir's
 * collateral cache when it was made for a time at most 7 days before now (and not after),
 * else made as above and written there (best effort). So verifying a SIMULATED quote costs
 * what verifying a real one with cached collateral costs -- a JSON read and parse -- and
 * not four signatures with keys loaded from disk each time. *root as above (never NULL). */
int tb_tdx_sim_collateral_cached(const char *dir, int64_t now, tb_tdx_collateral *out,
                                 tb_attest_root **root, tb_err *err);
/* Path of the sim root CA PEM inside dir (creating the PKI if needed). */
int tb_tdx_sim_root_path(const char *dir, char *out, size_t outlen, tb_err *err);

/* ------------------------------------------------------------ PCCS and cache */

typedef struct tb_tdx_fetch_opts {
    long timeout_ms;       /* per request; 0 = 10000 */
    const char *cache_dir; /* NULL: $XDG_CACHE_HOME/teebench (or ~/.cache/teebench) */
    int no_cache;          /* always fetch (verified collateral still refreshes the cache) */
} tb_tdx_fetch_opts;

/* Fetches the four pieces for (fmspc hex, ca "processor"|"platform") from a PCS
 * or PCCS base URL with the v4 paths. Fills *out (release with tb_tdx_collateral_clear). */
int tb_tdx_pccs_fetch(const char *base_url, const char *fmspc, const char *ca, long timeout_ms,
                      tb_tdx_collateral *out, tb_err *err);
/* The collateral cache: <dir>/collateral/<FMSPC>-<ca>-<source hash>.json (dcap-qvl
 * format), keyed by where the collateral came from (source: a PCCS base URL, trailing
 * '/' ignored; "sim" for simulated collateral), the FMSPC (hex) and the PCK CA. Only
 * collateral that verified a quote may be put (attest/common/evidence does so).
 * tb_attest_cache_get returns 1 (hit: *out filled) when the entry exists and every
 * nextUpdate is after now; 0 on a miss (absent, unreadable or stale); -1 on a bad key. */
int tb_attest_cache_get(const char *dir, const char *source, const char *fmspc, const char *ca,
                        int64_t now, tb_tdx_collateral *out, tb_err *err);
int tb_attest_cache_put(const char *dir, const char *source, const char *fmspc, const char *ca,
                        const tb_tdx_collateral *c, tb_err *err);

/* ------------------------------------------------------------ one-call helper */

typedef struct tb_tdx_timing {
    uint64_t fetch_ns;  /* loading / fetching collateral (0 when none) */
    uint64_t verify_ns; /* the pure verification(s) */
    int from_cache;     /* the verdict came from cached collateral */
    int refetched;      /* cached collateral failed verification; it was fetched again */
    int refetch_failed; /* ... and fetching it again failed (refetch_err: why); the verdict
                           is the cached collateral's, which the caller must not take as the
                           quote's (attest verify: an error, as for an SEV-SNP report) */
    tb_err refetch_err;
    int not_kept; /* fetched and verified, but not cached (not_kept_err: why) */
    tb_err not_kept_err;
} tb_tdx_timing;

/* "Verify this quote against this collateral with this root at time now":
 * source is a collateral file or folder path, an "http://" / "https://" PCCS base
 * URL, or "sim" / "sim:DIR" (SIMULATED collateral generated in process from the sim
 * PKI; the root then defaults to the sim root). root_path NULL = built-in Intel root
 * (or sim root for "sim"). policy NULL = default policy. fetch NULL = defaults.
 * It is attest/common/evidence's check (tb_attest_evidence_check_traced): a PCCS source
 * goes through the cache (keyed by the URL, the quote's FMSPC and CA): a hit is verified
 * like a fetch; when cached collateral gives an INVALID or EXPIRED verdict it is fetched
 * again once and the fresh verdict counts; fetched collateral is cached only after it
 * verified the quote (ACCEPTED or REFUSED), never before; the root is loaded before a PCCS
 * is asked. t (NULL: none): the collateral's fetch time (not the root's), the verify time.
 * Returns 0 when ACCEPTED; -1 otherwise: *v says why when verification ran (v->result
 * INVALID/REFUSED; bytes that are no quote: INVALID at TB_TDX_STEP_PARSE), else err
 * (collateral or root could not be loaded; then v->result is INVALID, step NONE). */
int tb_tdx_verify_quote(const uint8_t *quote, size_t len, const char *source, const char *root_path,
                        int64_t now, const tb_attest_policy *policy, const tb_tdx_fetch_opts *fetch,
                        tb_tdx_verdict *v, tb_tdx_timing *t, tb_err *err);

#endif
