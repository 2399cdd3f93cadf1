/* attest/snp: AMD SEV-SNP attestation reports -- the public SNP API of the attest module
 * (what the cli and the notary use; TDX's is attest/tdx/tdx.h, shared types come from it).
 *
 * Files (after go-sev-guest's split; the TDX layers are described in attest.h):
 *   snp_report.c  bytes <-> struct: the 1184-byte ATTESTATION_REPORT (SEV-SNP firmware ABI,
 *                 versions 2, 3 and 5: 3 adds the CPUID family/model/stepping, 5 the
 *                 mitigation vectors), TCB versions per product, policy and platform bits.
 *   snp_x509.c    AMD certificates and CRLs with the module's DER walker (der.c): RSA-PSS
 *                 SHA-384 (ARK, ASK, CRL), P-384 keys (VCEK/VLEK), the AMD extensions
 *                 (1.3.6.1.4.1.3704.1.*: product, bl/tee/snp/ucode/fmc SPLs, hwID, CSP id).
 *   snp_roots.c   the built-in ARK and ASK (VCEK and VLEK) of Milan, Genoa and Turin.
 *   snp_verify.c  the PURE verifier: (report, certs, now, policy) -> verdict.
 *   snp_certdir.c certificates from a folder (ark.pem, ask.pem, vcek.der|pem, crl.der).
 *   snp_kds.c     certificates from AMD's KDS (or a look-alike) through the cache.
 *   snp_sim.c     the SIMULATED SNP provider: own ARK/ASK/VCEK, reports with the real layout.
 * Errors: 0 / -1 with a tb_err; nothing prints. Exit codes of `attest verify` are TDX's. */
#ifndef TB_SNP_H
#define TB_SNP_H

#include <stddef.h>
#include <stdint.h>

#include "attest/attest.h"

#define TB_SNP_REPORT_LEN 1184  /* 0x4A0 */
#define TB_SNP_SIGNED_LEN 0x2A0 /* the signature covers bytes [0, 0x2A0) */

/* Guest policy bits (SEV-SNP ABI, GUEST_POLICY). Bits 0-15: ABI minor/major. */
#define TB_SNP_POLICY_SMT (1ull << 16)
#define TB_SNP_POLICY_RESERVED1 (1ull << 17) /* must be 1 */
#define TB_SNP_POLICY_MIGRATE_MA (1ull << 18)
#define TB_SNP_POLICY_DEBUG (1ull << 19)
#define TB_SNP_POLICY_SINGLE_SOCKET (1ull << 20)
#define TB_SNP_POLICY_CXL_ALLOW (1ull << 21)
#define TB_SNP_POLICY_MEM_AES_256_XTS (1ull << 22)
#define TB_SNP_POLICY_RAPL_DIS (1ull << 23)
#define TB_SNP_POLICY_CIPHERTEXT_HIDING (1ull << 24)
#define TB_SNP_POLICY_PAGE_SWAP_DISABLE (1ull << 25)

typedef enum tb_snp_product {
    TB_SNP_UNKNOWN = 0,
    TB_SNP_MILAN,
    TB_SNP_GENOA,
    TB_SNP_TURIN,
    TB_SNP_PRODUCT_COUNT
} tb_snp_product;

/* "Milan", "Genoa", "Turin" ("unknown"). */
const char *tb_snp_product_name(tb_snp_product p);
/* Case-insensitive name (a "-B0" style stepping suffix allowed) -> product; -1 unknown. */
int tb_snp_product_parse(const char *s, tb_snp_product *out);

/* A TCB_VERSION decoded. Milan/Genoa: byte 0 boot loader, 1 TEE, 6 SNP, 7 microcode.
 * Turin: 0 FMC, 1 boot loader, 2 TEE, 3 SNP, 7 microcode. */
typedef struct tb_snp_tcb {
    uint8_t bl, tee, snp, ucode, fmc;
    int has_fmc; /* Turin */
} tb_snp_tcb;
void tb_snp_tcb_decode(uint64_t raw, tb_snp_product p, tb_snp_tcb *out);
uint64_t tb_snp_tcb_encode(const tb_snp_tcb *t, tb_snp_product p);

/* A parsed report: every field of the ABI's ATTESTATION_REPORT (little-endian integers
 * converted). */
typedef struct tb_snp_report {
    uint32_t version; /* 2, 3 or 5 */
    uint32_t guest_svn;
    uint64_t policy;
    uint8_t family_id[16], image_id[16];
    uint32_t vmpl;
    uint32_t sig_algo; /* 1: ECDSA P-384 with SHA-384 */
    uint64_t current_tcb;
    uint64_t platform_info;
    uint32_t signer_info; /* bit 0 AUTHOR_KEY_EN, bit 1 MASK_CHIP_KEY, bits 2-4 SIGNING_KEY */
    uint8_t report_data[64];
    uint8_t measurement[48];
    uint8_t host_data[32];
    uint8_t id_key_digest[48], author_key_digest[48];
    uint8_t report_id[32], report_id_ma[32];
    uint64_t reported_tcb;
    uint8_t cpuid_fam, cpuid_mod, cpuid_step; /* version >= 3 (else 0) */
    uint8_t chip_id[64];
    uint64_t committed_tcb;
    uint8_t current_build, current_minor, current_major;
    uint8_t committed_build, committed_minor, committed_major;
    uint64_t launch_tcb;
    uint64_t launch_mit_vector, current_mit_vector; /* version >= 5 (else 0) */
    uint8_t sig_r[72], sig_s[72];                   /* little-endian, as in the report */
} tb_snp_report;

/* 1 when the bytes look like an SNP report (1184 bytes, version 2..5, signature algorithm
 * 1) rather than a TDX quote; 0 otherwise. No full parse. */
int tb_snp_sniff(const uint8_t *p, size_t n);
/* Parses exactly TB_SNP_REPORT_LEN bytes. Strict: known versions only, reserved
 * bytes and bits zero, policy bit 17 set, signing key 0 (VCEK), 1 (VLEK) or 7 (none). */
int tb_snp_parse(const uint8_t *p, size_t n, tb_snp_report *out, tb_err *err);
/* The inverse: writes the 1184 bytes of r (reserved bytes zero). */
void tb_snp_serialize(const tb_snp_report *r, uint8_t out[TB_SNP_REPORT_LEN]);
/* The product from the report's CPUID fields (version >= 3), else UNKNOWN. */
tb_snp_product tb_snp_report_product(const tb_snp_report *r);
/* 0 VCEK, 1 VLEK, 7 none. */
unsigned tb_snp_signing_key(const tb_snp_report *r);
/* 1 when FAMILY_ID holds the marker the SIMULATED provider writes ("teebench SIM SNP"). */
int tb_snp_is_simulated(const tb_snp_report *r);

/* The names of policy bits 16-25 and platform-info bits 0-7, for printing: fills up to max
 * (name, set) pairs; returns how many. */
typedef struct tb_snp_bit {
    const char *name;
    int set;
} tb_snp_bit;
int tb_snp_policy_bits(uint64_t policy, tb_snp_bit *out, int max);
int tb_snp_platform_bits(uint64_t info, tb_snp_bit *out, int max);

/* ---------------------------------------------------------------- certificates */

/* The DER of the certificates a report is checked against; all owned (release with
 * tb_snp_certs_clear). ark/ask NULL: the built-in ones of the product. */
typedef struct tb_snp_certs {
    uint8_t *ark, *ask, *vcek, *crl;
    size_t ark_len, ask_len, vcek_len, crl_len;
} tb_snp_certs;
void tb_snp_certs_clear(tb_snp_certs *c);
/* A folder: ark.pem, ask.pem (each optional: built-in), vcek.der or vcek.pem (or vlek.der
 * / vlek.pem), crl.der or crl.pem (optional: then no revocation check). PEM or DER in
 * each. A file ask_ark.pem / cert_chain.pem (ASK then ARK, as the KDS serves it) is read
 * when ark.pem and ask.pem are absent. */
int tb_snp_certs_load(const char *dir, tb_snp_certs *out, tb_err *err);

/* A certificate (crl 0) or CRL (crl 1) file, PEM or DER -> DER (malloc'd, caller frees). */
int tb_snp_read_der(const char *path, int crl, uint8_t **der, size_t *len, tb_err *err);

/* The built-in ARK / ASK DER of a product (vlek: the ASVK that signs VLEKs). Static
 * memory. -1 when unknown. */
int tb_snp_builtin(tb_snp_product p, int vlek, const uint8_t **ark, size_t *ark_len,
                   const uint8_t **ask, size_t *ask_len);

/* ---------------------------------------------------------------- verify */

typedef enum tb_snp_step {
    TB_SNP_STEP_NONE = 0,
    TB_SNP_STEP_PARSE,     /* the report's bytes */
    TB_SNP_STEP_ARK,       /* 1: the root: trusted, self-signed, RSA-4096 PSS */
    TB_SNP_STEP_ASK,       /* 2: the ASK / ASVK signed by the ARK */
    TB_SNP_STEP_VCEK,      /* 3: the VCEK / VLEK signed by the ASK, times, product */
    TB_SNP_STEP_CRL,       /* 4: the product's CRL (signed by the ARK, not revoked) */
    TB_SNP_STEP_TCB,       /* 5: the VCEK's SPLs and hwID vs the reported TCB, chip id */
    TB_SNP_STEP_SIGNATURE, /* 6: the report signature (P-384 over [0, 0x2A0)) */
    TB_SNP_STEP_POLICY     /* the report is valid; the policy refused it */
} tb_snp_step;
const char *tb_snp_step_name(tb_snp_step s);

typedef struct tb_snp_verdict {
    tb_attest_result result; /* the same results as TDX: ACCEPTED, REFUSED, INVALID, EXPIRED */
    tb_snp_step step;
    char reason[TB_ERR_MAX];
    tb_snp_product product;
    int vlek;                 /* the report was signed by a VLEK */
    int crl_checked;          /* a CRL was given and checked */
    int simulated;            /* the root is a teebench SIMULATED ARK */
    int debug;                /* the guest policy allows debugging */
    int64_t expiration;       /* the earliest notAfter / CRL nextUpdate of what was checked */
    char expiration_what[16]; /* whose: "ARK", "ASK", "VCEK", "VLEK", "CRL" */
    int expired;              /* expiration is before now: the verdict is EXPIRED (exit 5, as
                                 TDX's) unless the policy's allow_expired_collateral */
    tb_snp_tcb reported;      /* the report's REPORTED_TCB (decoded for product) */
    tb_snp_tcb cert_tcb;      /* the VCEK's SPLs (when step 5 was reached) */
} tb_snp_verdict;

/* The pure verifier: verify(report, certs, now, policy, root) -> verdict. root_ark: the
 * trusted ARK DER (NULL: the built-in ARK of the product the certificates or the report
 * name); the ARK given in certs must be byte-identical to it. policy NULL: default.
 * Always fills *v; returns 0 when ACCEPTED, -1 otherwise. No network, clock or globals. */
int tb_snp_verify(const uint8_t *report, size_t len, const tb_snp_certs *certs, int64_t now,
                  const tb_attest_policy *policy, const uint8_t *root_ark, size_t root_ark_len,
                  tb_snp_verdict *v);

/* Prepared certificates: steps 1-4 (ARK, ASK, VCEK, CRL) checked once, at now, for the
 * certificates of report (its signing key and product); a copy of the leaf is kept. Then
 * tb_snp_verify_prepared checks any report of that leaf: steps 5-6, expiration at
 * its own now, and the policy -- the same verdicts as tb_snp_verify. The caller
 * frees *out with tb_snp_prepared_free. -1 with *v saying why (INVALID). */
typedef struct tb_snp_prepared tb_snp_prepared;
int tb_snp_prepare(const uint8_t *report, size_t len, const tb_snp_certs *certs, int64_t now,
                   const uint8_t *root_ark, size_t root_ark_len, tb_snp_prepared **out,
                   tb_snp_verdict *v);
int tb_snp_verify_prepared(const uint8_t *report, size_t len, const tb_snp_prepared *p, int64_t now,
                           const tb_attest_policy *policy, tb_snp_verdict *v);
void tb_snp_prepared_free(tb_snp_prepared *p);

/* ---------------------------------------------------------------- KDS */

/* Fetches the report's certificates from a KDS base URL (https://kdsintf.amd.com or a
 * look-alike): GET /vcek/v1/{product}/{hwid}?blSPL=..&teeSPL=..&snpSPL=..&ucodeSPL=..
 * (DER VCEK), /vcek/v1/{product}/cert_chain (PEM ASK+ARK), /vcek/v1/{product}/crl (DER).
 * Each piece is taken from the cache when present (<cache>/snp/<hash of URL>/...): the
 * VCEK (keyed by product, hwID and TCB) and the chain while valid at now, the CRL until
 * its nextUpdate. HTTP 429 is retried after its Retry-After (default 1 s, doubled per
 * retry, at most max_retries times, each wait at most 10 s). *fetched says how many
 * requests went out (0: all from the cache). */
typedef struct tb_snp_kds_opts {
    long timeout_ms; /* per request; 0 = 10000 */
    const char *cache_dir;
    int no_cache;
    int max_retries;        /* on 429; 0 = 3 */
    long max_retry_wait_ms; /* cap of one wait; 0 = 10000 */
} tb_snp_kds_opts;
/* Nothing is put into the cache here: the caller puts what verified a report (ACCEPTED
 * or REFUSED) with tb_snp_kds_cache_put, so an unverified answer is never cached. */
int tb_snp_kds_cache_put(const char *base_url, const tb_snp_report *r, tb_snp_product product,
                         const tb_snp_kds_opts *o, const tb_snp_certs *c, tb_err *err);
int tb_snp_kds_fetch(const char *base_url, const tb_snp_report *r, tb_snp_product product,
                     int64_t now, const tb_snp_kds_opts *o, tb_snp_certs *out, int *fetched,
                     tb_err *err);

/* ---------------------------------------------------------------- SIMULATED provider */

/* The SIMULATED SNP provider under dir (the TDX sim's dir, subfolder snp/): its PKI
 * (ARK, ASK: RSA-4096 PSS; VCEK: P-384 with the AMD extensions; a CRL) is made on first
 * use (RSA-4096 key generation takes seconds once). Reports have the v3 layout, product
 * Milan, FAMILY_ID "teebench SIM SNP", and are signed by the sim VCEK. */
int tb_snp_sim_report(const char *dir, const uint8_t report_data[64], int debug, uint8_t **report,
                      size_t *len, tb_err *err);
/* The same provider opened once (its VCEK certificate and key read from dir, the PKI made
 * first if needed), for a caller that takes many reports -- the suite, the notary -- so
 * that a report costs its signature, not reading keys from disk. A handle may be used
 * from several threads at once; tb_snp_sim_close frees it (NULL: nothing). */
typedef struct tb_snp_sim tb_snp_sim;
int tb_snp_sim_open(const char *dir, tb_snp_sim **out, tb_err *err);
int tb_snp_sim_quote(const tb_snp_sim *h, const uint8_t report_data[64], int debug,
                     uint8_t **report, size_t *len, tb_err *err);
void tb_snp_sim_close(tb_snp_sim *h);
/* Writes ark.pem, ask.pem, vcek.der and crl.der of the sim PKI into outdir (revoke_vcek:
 * a CRL listing the VCEK). now: the CRL's thisUpdate (valid 30 days). */
int tb_snp_sim_certs(const char *dir, const char *outdir, int64_t now, int revoke_vcek,
                     tb_err *err);
/* The sim PKI's certificates as a verifier keeps them (out: owned, release with
 * tb_snp_certs_clear): read from <dir>/snp/certs, written there first -- and again
 * when the CRL is not valid for another day at now -- so that verifying a SIMULATED report
 * costs what verifying a real one with certificates on disk costs, not an RSA-4096
 * signature of a new CRL each time. Each file is written atomically. */
int tb_snp_sim_certs_cached(const char *dir, int64_t now, tb_snp_certs *out, tb_err *err);
/* The sim ARK DER (malloc'd) for use as root_ark. */
int tb_snp_sim_ark(const char *dir, uint8_t **der, size_t *len, tb_err *err);

/* A report from configfs-tsm with provider sev_guest (the same code path as TDX). */
int tb_snp_tsm_report(const char *tsm_root, const uint8_t report_data[64], uint8_t **report,
                      size_t *len, tb_err *err);

#endif
