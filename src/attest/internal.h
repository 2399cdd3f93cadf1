/* attest/internal: what the attest module's files share, and the entry points only its
 * unit tests and fuzz targets call besides (not a public API: other modules include
 * attest/tdx/tdx.h only). Ownership as stated per function; a _clear function releases
 * what a caller-owned struct holds and zeroes it. */
#ifndef TB_ATTEST_INTERNAL_H
#define TB_ATTEST_INTERNAL_H

#include <stdint.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "attest/tdx/tdx.h"
#include "attest/snp/snp.h"
#include "base/x509.h"

struct tb_attest_root {
    X509 *cert;
    int simulated;
    void *group; /* a P-256 group made once with the root: tb_tdx_prepare dups it */
};

/* A root owning x (freed on failure); simulated when its CN says SIMULATED. */
int tb_attest_root_wrap(X509 *x, tb_attest_root **out, tb_err *err);

/* The SIMULATED provider's marker: the first bytes of a simulated quote's header user
 * data (provider_sim.c writes it, tb_tdx_quote_is_simulated reads it). */
#define TB_TDX_SIM_MARKER "teebench SIMULATED"
#define TB_TDX_SIM_MARKER_LEN (sizeof TB_TDX_SIM_MARKER - 1)

/* ------------------------------------------------------ common/evidence_file.c */

/* When `in` is hex or base64 text (whitespace allowed), decodes it into *out
 * (malloc'd, caller frees) and returns 1; returns 0 when it is not text (binary
 * input: use as is), -1 on allocation failure. */
int tb_attest_evidence_decode_text(const uint8_t *in, size_t n, uint8_t **out, size_t *outlen,
                             tb_err *err);

/* ---------------------------------------------------------------- tcbinfo.c */

/* "2025-02-13T03:50:41Z" (fractional seconds allowed) -> unix seconds. */
int tb_tdx_iso8601_parse(const char *s, int64_t *out);
/* Intel's spelling ("UpToDate", ...) -> status. Returns 0 or -1. */
int tb_attest_tcb_status_parse(const char *s, tb_attest_tcb_status *out);

/* A level's advisory IDs: n NUL-terminated strings back to back in ids (len bytes,
 * malloc'd; NULL when n == 0). Any number, any length (QVL accepts any strings). */
typedef struct tb_tdx_adv_list {
    int n;
    char *ids;
    size_t len;
} tb_tdx_adv_list;

typedef struct tb_tdx_tcb_level {
    uint8_t sgx[16];
    uint16_t pcesvn;
    uint8_t tdx[16];
    uint16_t isvsvn; /* QE identity / TDX module levels */
    char date[32];
    int status; /* a tb_attest_tcb_status; -1: a TDX module level's status that QVL does not
                   recognize (TCB_UNRECOGNIZED_STATUS if this level is the one matched) */
    char status_text[48]; /* tcbStatus as written (cut to fit), for messages */
    tb_tdx_adv_list adv;
} tb_tdx_tcb_level;

typedef struct tb_tdx_module_identity {
    char id[16];
    uint8_t mrsigner[48];
    uint8_t attributes[8], attributes_mask[8];
    int n_levels;
    tb_tdx_tcb_level *levels;
} tb_tdx_module_identity;

/* Platform levels are sorted highest first by QVL's TcbLevel ordering and unique; each
 * identity's levels highest ISVSVN first and unique (tcbinfo.c). */
typedef struct tb_tdx_tcb_info {
    int version;
    uint32_t eval_number; /* tcbEvaluationDataNumber */
    int64_t issue, next;
    uint8_t fmspc[6];
    uint8_t pceid[2];
    int has_module;
    tb_tdx_module_identity module; /* tdxModule (no levels) */
    int n_ids;
    tb_tdx_module_identity *ids; /* tdxModuleIdentities */
    int n_levels;
    tb_tdx_tcb_level *levels;
} tb_tdx_tcb_info;

/* Levels in document order (QVL: first level with isvsvn <= the QE's wins). */
typedef struct tb_tdx_qe_identity {
    int version;
    uint32_t eval_number;
    int64_t issue, next;
    uint32_t miscselect, miscselect_mask; /* as the QE report's little-endian field */
    uint8_t attributes[16], attributes_mask[16];
    uint8_t mrsigner[32];
    uint16_t isvprodid;
    int n_levels;
    tb_tdx_tcb_level *levels;
} tb_tdx_qe_identity;

/* Parse the signed JSON bodies (the tcbInfo / enclaveIdentity values). */
int tb_tdx_tcb_info_parse(const char *text, size_t n, tb_tdx_tcb_info *out, tb_err *err);
void tb_tdx_tcb_info_clear(tb_tdx_tcb_info *t);
int tb_tdx_qe_identity_parse(const char *text, size_t n, tb_tdx_qe_identity *out, tb_err *err);
void tb_tdx_qe_identity_clear(tb_tdx_qe_identity *q);

/* ---------------------------------------------------------------- jsontok.c */

/* The module's one JSON reader for collateral (network input): strict RFC 8259, no DOM. */
enum {
    TB_ATTEST_JOBJ = 1,
    TB_ATTEST_JARR,
    TB_ATTEST_JSTR,
    TB_ATTEST_JNUM,
    TB_ATTEST_JTRUE,
    TB_ATTEST_JFALSE,
    TB_ATTEST_JNULL
};
typedef struct tb_attest_jtok {
    uint8_t type, escaped; /* escaped: a string with backslash escapes */
    uint32_t start, end;   /* byte span (strings: the content between the quotes;
                              objects/arrays: from the bracket to after its partner) */
    uint32_t next;         /* index of the token after this one's subtree */
    uint32_t count;        /* objects: members; arrays: elements */
} tb_attest_jtok;
typedef struct tb_attest_jdoc {
    const char *s;     /* the input (not owned) */
    tb_attest_jtok *t; /* owned */
    int count;
} tb_attest_jdoc;
/* Tokenizes a whole document (token 0 is the top-level value). Release with
 * tb_attest_json_clear. */
int tb_attest_json_tokenize(const char *s, size_t n, tb_attest_jdoc *doc, tb_err *err);
void tb_attest_json_clear(tb_attest_jdoc *doc);
/* The value token of key in object obj: -1 absent (or obj not an object), -2 duplicate. */
int tb_attest_jobj_get(const tb_attest_jdoc *d, int obj, const char *key);
/* A string without escapes (not NUL-terminated, points into the input), or -1. */
int tb_attest_jstr(const tb_attest_jdoc *d, int k, const char **p, size_t *n);
/* Any string, unescaped (\uXXXX as UTF-8) into a new NUL-terminated buffer (malloc'd,
 * caller frees) of *n bytes. -1: not a string, \u0000, a lone surrogate, out of memory. */
int tb_attest_jstr_dup(const tb_attest_jdoc *d, int k, char **out, size_t *n);
/* A non-negative integer <= max, or -1. */
int tb_attest_juint(const tb_attest_jdoc *d, int k, long max, long *out);
/* The document re-serialized compactly as Intel's QVL does before checking a collateral
 * signature (rapidjson's Writer: no whitespace, members in order, its string escapes and
 * number forms), appended to out. */
struct tb_buf;
int tb_attest_json_compact(const char *s, size_t n, struct tb_buf *out, tb_err *err);

/* -------------------------------------------------------------------- der.c */

/* The module's one DER walker (strict DER; see der.c). A span of bytes being read. */
typedef struct tb_attest_der {
    const uint8_t *p;
    size_t n;
} tb_attest_der;
/* Reads one TLV from *d and advances past it: its tag, its content and the whole TLV
 * (each may be NULL). -1: malformed or not DER (*d unchanged). */
int tb_attest_der_next(tb_attest_der *d, int *tag, tb_attest_der *content, tb_attest_der *whole);
/* tb_attest_der_next that also requires the tag. */
int tb_attest_der_expect(tb_attest_der *d, int tag, tb_attest_der *content);
/* 0 when an INTEGER's content is minimal two's complement (non-empty), else -1. */
int tb_attest_der_int(tb_attest_der v);
/* A minimal non-negative INTEGER content <= max. */
int tb_attest_der_uint(tb_attest_der v, unsigned max, unsigned *out);
/* A DER BOOLEAN content (0x00 or 0xff). */
int tb_attest_der_bool(tb_attest_der v, int *out);

/* ------------------------------------------------------------ cert.c, root.c */

/* The DER bytes of up to TB_ATTEST_DER_MAX PEM certificates (no X.509 parsing: OpenSSL
 * 3's d2i_X509 costs ~100 us, so the verifier compares raw DER with what it has already
 * checked before parsing anything). Release with tb_attest_der_list_clear. */
#define TB_ATTEST_DER_MAX 4
typedef struct tb_attest_der_list {
    int n;
    uint8_t *der[TB_ATTEST_DER_MAX];
    size_t len[TB_ATTEST_DER_MAX];
} tb_attest_der_list;
int tb_attest_pem_certs_to_der(const char *pem, size_t n, tb_attest_der_list *out, tb_err *err);
void tb_attest_der_list_clear(tb_attest_der_list *l);
/* A certificate read by cert.c (pointers into the caller's DER). */
/* What every certificate reader keeps of a certificate's frame (tb_attest_cert_frame_id):
   the whole tbsCertificate, the serial's INTEGER content, the issuer and subject Name TLVs
   (pointers into the caller's DER), and the validity. */
typedef struct tb_attest_cert_id {
    const uint8_t *tbs, *issuer, *subject, *serial;
    size_t tbs_len, issuer_len, subject_len, serial_len;
    int64_t not_before, not_after;
} tb_attest_cert_id;
typedef struct tb_attest_cert {
    tb_attest_cert_id id;
    const uint8_t *sgx_ext;
    size_t sgx_ext_len;
    uint8_t pub[65]; /* uncompressed P-256 point */
    uint8_t sig[64]; /* r || s */
    int is_ca;
} tb_attest_cert;
/* A CRL, Intel's (PCK, ECDSA) or AMD's (RSA-PSS), read by the one CRL reader
   (tb_attest_crl_read). Every pointer lies inside the caller's DER. */
typedef struct tb_attest_crl {
    const uint8_t *tbs, *issuer, *revoked; /* revoked: the entries' SEQUENCE content */
    size_t tbs_len, issuer_len, revoked_len;
    int64_t this_update, next_update;
    uint8_t sig[64];        /* ECDSA: r || s */
    const uint8_t *rsa_sig; /* RSA-PSS: the signature bytes */
    size_t rsa_sig_len;
} tb_attest_crl;
/* The signature algorithm a CRL must carry (its issuer's family): alg_ok accepts the
   AlgorithmIdentifier's contents (outer and inside the TBS), take_sig stores the
   signature BIT STRING's content in the CRL (0 or -1); the names go in the errors
   ("CRL is not signed with <signed_name>", "... is not <inner_name>"). */
typedef struct tb_attest_crl_alg {
    int (*alg_ok)(tb_attest_der alg);
    int (*take_sig)(tb_attest_der bits, tb_attest_crl *c);
    const char *signed_name, *inner_name;
} tb_attest_crl_alg;
/* The one CRL reader: the signed envelope, the optional version, the inner algorithm
   (both as alg says), issuer, thisUpdate, nextUpdate (required), the revoked entries
   (shape-checked) and crlExtensions; nothing may follow. 0 or -1 + err. */
int tb_attest_crl_read(const uint8_t *der, size_t n, const tb_attest_crl_alg *alg, tb_attest_crl *c,
                       tb_err *err);
/* The signed envelope of a certificate or CRL, shared by the PCK and AMD readers:
   SEQUENCE { tbs SEQUENCE, signatureAlgorithm SEQUENCE, signature BIT STRING } and nothing
   after it. *tbs: the whole tbs TLV (what the signature covers); *alg, *bits: contents.
   what ("certificate", "CRL") names it in the errors. 0 or -1 + err. */
int tb_attest_signed_read(const uint8_t *p, size_t n, const char *what, tb_attest_der *tbs,
                          tb_attest_der *alg, tb_attest_der *bits, tb_err *err);
/* A certificate read up to its SPKI, shared by the PCK and AMD readers: the envelope,
   the optional [0] version (a valid INTEGER), the serial (at most 21 bytes), the inner
   signature algorithm, issuer, validity and subject. The algorithms, the key and what
   follows the SPKI are the caller's to check. Every span points into the input. */
typedef struct tb_attest_cert_frame {
    tb_attest_der tbs;             /* the whole tbsCertificate TLV */
    tb_attest_der alg, inner_alg;  /* signatureAlgorithm contents: outer, in the TBS */
    tb_attest_der bits;            /* the signature BIT STRING's content */
    tb_attest_der serial;          /* INTEGER content */
    tb_attest_der issuer, subject; /* whole Name TLVs */
    tb_attest_der spki;            /* the whole SubjectPublicKeyInfo TLV */
    int64_t not_before, not_after;
    tb_attest_der rest; /* the TBS after the SPKI: [1] issuerUID, [2] subjectUID, [3] */
} tb_attest_cert_frame;
int tb_attest_cert_frame_read(const uint8_t *p, size_t n, tb_attest_cert_frame *f, tb_err *err);
/* The spans and validity of f that the certificate types keep. */
tb_attest_cert_id tb_attest_cert_frame_id(const tb_attest_cert_frame *f);
int tb_attest_cert_parse(const uint8_t *der, size_t n, tb_attest_cert *c, tb_err *err);
/* A PCK CRL (ECDSA-SHA256): tb_attest_crl_read with that algorithm. */
int tb_attest_crl_parse(const uint8_t *der, size_t n, tb_attest_crl *c, tb_err *err);
/* 1 when the serial (INTEGER content bytes) is listed in the CRL (Intel's or AMD's; a
   damaged list fails closed: 1). */
int tb_attest_crl_is_revoked(const tb_attest_crl *c, const uint8_t *serial, size_t n);
/* 1 when a common name of the DER Name (an issuer or subject) contains needle. */
int tb_attest_name_cn_contains(const uint8_t *name, size_t n, const char *needle);
/* A P-256 group (read-only once made; may be shared by threads) and a verification
 * context made from it (a P-256 EC_KEY; used by one thread at a time). */
void *tb_attest_p256_group_new(void);
void *tb_attest_p256_group_dup(const void *group);
void tb_attest_p256_group_free(void *group);
void *tb_attest_p256_ctx_from(const void *group);
void tb_attest_p256_ctx_free(void *ctx);
/* 1: sig (r || s) over SHA-256(data) verifies with the uncompressed P-256 point pub. */
int tb_attest_p256_verify_ctx(void *ctx, const uint8_t pub[65], const void *data, size_t n,
                              const uint8_t sig[64]);
/* DER / PEM / hex text CRL bytes -> DER (malloc'd). */
int tb_attest_crl_to_der(const uint8_t *p, size_t n, uint8_t **der, size_t *derlen, tb_err *err);
/* Signs SHA-256(data) into raw r||s. */
int tb_attest_ecdsa_sign_raw(EVP_PKEY *key, const void *data, size_t n, uint8_t sig[64]);
/* The built-in Intel SGX Root CA: the embedded PEM text (*len bytes, NUL-terminated). */
const char *tb_attest_intel_root_pem(size_t *len);

/* -------------------------------------------------------------------- pck.c */

typedef struct tb_tdx_pck_info {
    uint8_t fmspc[6];
    uint8_t pceid[2];
    uint8_t sgx_comp[16]; /* SGX TCB components 1..16 */
    uint16_t pcesvn;
    uint8_t cpusvn[16];
    int ca_platform; /* 1: issued by the Platform CA, 0: the Processor CA */
} tb_tdx_pck_info;
/* The SGX extension's value (the OCTET STRING content) -> PCK info (ca_platform unset). */
int tb_tdx_pck_info_from_ext(const uint8_t *ext, size_t n, tb_tdx_pck_info *out, tb_err *err);
/* A DER PCK certificate (read by cert.c) -> PCK info, the CA kind from its issuer. */
int tb_tdx_pck_info_from_der(const uint8_t *der, size_t n, tb_tdx_pck_info *out, tb_err *err);

/* ------------------------------------------------------------- collateral.c */

/* Loads a dcap-qvl JSON file, or a folder of PCS responses (see collateral.c). */
int tb_tdx_collateral_load(const char *path, tb_tdx_collateral *out, tb_err *err);
/* Fills the TCB info and QE identity fields from two PCS response bodies
 * ({"tcbInfo": ..., "signature": ...} and {"enclaveIdentity": ..., "signature": ...}):
 * the exact bytes of the signed value and the signature. */
int tb_tdx_collateral_from_pcs(const char *tcb_resp, size_t tcb_len, const char *qe_resp,
                               size_t qe_len, tb_tdx_collateral *c, tb_err *err);
/* Earliest nextUpdate of TCB info, QE identity and both CRLs (unix seconds), for caching. */
int tb_tdx_collateral_next_update(const tb_tdx_collateral *c, int64_t *next, tb_err *err);

/* ---------------------------------------------------- policy.c, providers, cache */

int tb_attest_policy_parse(const char *text, size_t n, tb_attest_policy *p, tb_err *err);
/* A SIMULATED quote: opens the sim PKI under dir (creating it on first use), quotes, closes. */
int tb_tdx_sim_get_quote(const char *dir, const uint8_t report_data[64], int debug, uint8_t **quote,
                         size_t *len, tb_err *err);
/* A SIMULATED quote with what the QVL rule tests vary (all zero = the default sim quote):
 * quote version 5 with a TDX 1.5 body (TEE_TCB_SVN2), TEE_TCB_SVN, SEAMATTRIBUTES, the
 * QE's ISVSVN and MISCSELECT, and another PCK chain (PEM, leaf first) with the key of its
 * leaf that signs the QE report. */
typedef struct tb_tdx_sim_quote_params {
    int version;   /* 4 (0 = 4) or 5 */
    int body_type; /* 2 (0 = 2) or 3 (version 5 only) */
    int set_tee_tcb_svn;
    uint8_t tee_tcb_svn[16];
    uint8_t tee_tcb_svn2[16];
    uint8_t seam_attributes[8];
    int set_qe_isvsvn;
    uint16_t qe_isvsvn;
    uint32_t qe_miscselect;
    const char *pck_chain_pem;
    EVP_PKEY *pck_key;
} tb_tdx_sim_quote_params;
int tb_tdx_sim_quote_custom(const char *dir, const uint8_t report_data[64],
                            const tb_tdx_sim_quote_params *par, uint8_t **quote, size_t *len,
                            tb_err *err);
/* What every certificate of the SIMULATED PKIs (TDX's in provider_sim.c, SEV-SNP's in
   snp_sim.c) shares, for base/x509: subject name, key, issuer (NULL: self-signed) and
   its key, valid from a day before now for 20 years. The caller adds the rest. */
tb_x509_spec tb_attest_sim_cert_spec(const char *const *name, EVP_PKEY *key, X509 *issuer,
                                     EVP_PKEY *issuer_key, int64_t now);
/* ... and every CRL of them: valid from an hour before now for 30 days. */
tb_x509_crl_spec tb_attest_sim_crl_spec(X509 *issuer, EVP_PKEY *issuer_key, int64_t now,
                                        X509 *revoked);
/* The SIMULATED state folder dir, made when dir/probe does not exist: a temporary folder
   next to it (its parent made first), filled by write (dfd: the folder, tmp: its path)
   and SIMULATED.txt (note), then renamed into place -- a process that loses the race
   uses the winner's. 0 when dir exists or was made (by anyone), or -1 with err. */
int tb_attest_sim_state_make(const char *dir, const char *probe, const char *note,
                             int (*write)(int dfd, const char *tmp, void *ctx, tb_err *err),
                             void *ctx, tb_err *err);
/* Removes every entry of the flat folder dir, then dir. */
void tb_attest_sim_dir_remove(const char *dir);
/* The cache directory: override, else $XDG_CACHE_HOME/teebench, else ~/.cache/teebench
 * (base/paths' rule). */
int tb_attest_cache_dir(const char *override, char *out, size_t outlen, tb_err *err);

/* ------------------------------------------------------ snp_x509.c (SEV-SNP) */

/* The AMD extensions of a VCEK / VLEK (1.3.6.1.4.1.3704.1.*). */
typedef struct tb_snp_ext {
    int has_tcb; /* bl, tee, snp and ucode SPLs all present */
    uint8_t bl, tee, snp, ucode, fmc;
    int has_fmc;      /* 1.3.9 (Turin) */
    char product[32]; /* 1.2 productName, "" when absent */
    uint8_t hwid[64]; /* 1.4 hwID (VCEK) */
    int has_hwid;
    int has_csp_id; /* 1.5 (VLEK) */
} tb_snp_ext;
/* The [3] extensions content (the SEQUENCE OF Extension, with its tag) -> AMD extensions,
 * basicConstraints cA. Strict DER; unknown extensions skipped; duplicates refused. */
int tb_snp_ext_parse(const uint8_t *p, size_t n, tb_snp_ext *out, int *is_ca, tb_err *err);

/* An AMD certificate (RSA-PSS SHA-384 signed; RSA or P-384 key). Pointers into the DER. */
typedef struct tb_snp_cert {
    tb_attest_cert_id id;
    const uint8_t *sig, *spki;
    size_t sig_len, spki_len;
    int key_rsa;                  /* 1: RSA key (n, e); 0: P-384 (ec) */
    const uint8_t *rsa_n, *rsa_e; /* INTEGER contents */
    size_t rsa_n_len, rsa_e_len;
    uint8_t ec[97]; /* uncompressed P-384 point */
    int is_ca;
    tb_snp_ext ext;
} tb_snp_cert;
int tb_snp_cert_parse(const uint8_t *der, size_t n, tb_snp_cert *c, tb_err *err);
/* An AMD CRL (RSA-PSS SHA-384, salt 48): tb_attest_crl_read with that algorithm; the
   signature in c->rsa_sig. Revocation: tb_attest_crl_is_revoked. */
int tb_snp_crl_parse(const uint8_t *der, size_t n, tb_attest_crl *c, tb_err *err);
/* 1: sig is a valid RSASSA-PSS (SHA-384, MGF1 SHA-384, salt 48) signature of data by the
 * RSA key of signer; 0 otherwise. */
int tb_snp_pss_verify(const tb_snp_cert *signer, const uint8_t *data, size_t n, const uint8_t *sig,
                      size_t sig_len);
/* 1: the report's signature (r, s little-endian, 72 bytes each, upper 24 bytes zero) over
 * SHA-384 of [0, 0x2A0) verifies with the P-384 key of the cert. */
int tb_snp_report_sig_ok(const tb_snp_cert *vcek, const uint8_t *report);
/* PEM (first certificate / CRL) or DER bytes -> DER (malloc'd). */
int tb_snp_to_der(const uint8_t *p, size_t n, int crl, uint8_t **der, size_t *len, tb_err *err);
/* A PEM chain (ASK then ARK, as the KDS serves /cert_chain) -> c->ask, c->ark (DER). */
int tb_snp_chain_from_pem(const uint8_t *p, size_t n, tb_snp_certs *c, tb_err *err);
/* The SIMULATED marker in FAMILY_ID. */
#define TB_SNP_SIM_MARKER "teebench SIM SNP"

#endif
