/* attest/internal: helpers shared by the attest module's files (not a public API).
 * Ownership as stated per function; structs with pointers have a _free. */
#ifndef TB_ATTEST_INTERNAL_H
#define TB_ATTEST_INTERNAL_H

#include <stdint.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "attest/attest.h"

struct tb_attest_root {
    X509 *cert;
    int simulated;
};

/* "2025-02-13T03:50:41Z" (fractional seconds allowed) -> unix seconds. */
int tb_attest_iso8601_parse(const char *s, int64_t *out);
/* (unix seconds -> "2025-02-13T03:50:41Z" is tb_utc_iso8601 in base/clock.) */
/* ASN1_TIME -> unix seconds. */
int tb_attest_asn1_time_unix(const ASN1_TIME *t, int64_t *out);

typedef struct tb_attest_adv_list {
    int n;
    char id[TB_ATTEST_MAX_ADVISORIES][24];
} tb_attest_adv_list;

typedef struct tb_attest_tcb_level {
    uint8_t sgx[16];
    uint16_t pcesvn;
    uint8_t tdx[16];
    uint16_t isvsvn; /* QE identity / TDX module levels */
    char date[32];
    tb_attest_tcb_status status;
    tb_attest_adv_list adv;
} tb_attest_tcb_level;

typedef struct tb_attest_module_identity {
    char id[16];
    uint8_t mrsigner[48];
    uint8_t attributes[8], attributes_mask[8];
    int n_levels;
    tb_attest_tcb_level *levels;
} tb_attest_module_identity;

typedef struct tb_attest_tcb_info {
    int version;
    int64_t issue, next;
    uint8_t fmspc[6];
    uint8_t pceid[2];
    int has_module;
    tb_attest_module_identity module; /* tdxModule (no levels) */
    int n_ids;
    tb_attest_module_identity *ids; /* tdxModuleIdentities */
    int n_levels;
    tb_attest_tcb_level *levels;
} tb_attest_tcb_info;

typedef struct tb_attest_qe_identity {
    int version;
    int64_t issue, next;
    uint32_t miscselect, miscselect_mask;
    uint8_t attributes[16], attributes_mask[16];
    uint8_t mrsigner[32];
    uint16_t isvprodid;
    int n_levels;
    tb_attest_tcb_level *levels;
} tb_attest_qe_identity;

/* jsontok.c: a strict JSON tokenizer (no DOM) for the signed bodies. */
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
    uint32_t start, end;   /* byte span (strings: the content between the quotes) */
    uint32_t next;         /* index of the token after this one's subtree */
    uint32_t count;        /* objects: members; arrays: elements */
} tb_attest_jtok;
typedef struct tb_attest_jdoc {
    const char *s;     /* the input (not owned) */
    tb_attest_jtok *t; /* owned */
    int count;
} tb_attest_jdoc;
/* Tokenizes a whole document (token 0 is the top-level value). Free with tb_attest_json_clear. */
int tb_attest_json_tokenize(const char *s, size_t n, tb_attest_jdoc *doc, tb_err *err);
void tb_attest_json_clear(tb_attest_jdoc *doc);
/* The value token of key in object obj: -1 absent (or obj not an object), -2 duplicate. */
int tb_attest_jobj_get(const tb_attest_jdoc *d, int obj, const char *key);
/* Element i of array arr, or -1. */
int tb_attest_jarr_get(const tb_attest_jdoc *d, int arr, uint32_t i);
/* A string without escapes (not NUL-terminated), or -1. */
int tb_attest_jstr(const tb_attest_jdoc *d, int k, const char **p, size_t *n);
/* A non-negative integer <= max, or -1. */
int tb_attest_juint(const tb_attest_jdoc *d, int k, long max, long *out);

/* Parse the signed JSON bodies (the tcbInfo / enclaveIdentity values). */
int tb_attest_tcb_info_parse(const char *text, size_t n, tb_attest_tcb_info *out, tb_err *err);
void tb_attest_tcb_info_clear(tb_attest_tcb_info *t);
int tb_attest_qe_identity_parse(const char *text, size_t n, tb_attest_qe_identity *out,
                                tb_err *err);
void tb_attest_qe_identity_clear(tb_attest_qe_identity *q);

/* PEM certificates -> a new stack (caller frees with sk_X509_pop_free(s, X509_free)). */
int tb_attest_x509_chain_from_pem(const char *pem, size_t n, STACK_OF(X509) * *out, tb_err *err);
/* The DER bytes of up to TB_ATTEST_DER_MAX PEM certificates (no X.509 parsing: OpenSSL 3's
 * d2i_X509 costs ~100 us, so the verifier compares raw DER with what it has already
 * checked before parsing anything). Free with tb_attest_der_list_clear. */
#define TB_ATTEST_DER_MAX 4
typedef struct tb_attest_der_list {
    int n;
    uint8_t *der[TB_ATTEST_DER_MAX];
    size_t len[TB_ATTEST_DER_MAX];
} tb_attest_der_list;
int tb_attest_pem_certs_to_der(const char *pem, size_t n, tb_attest_der_list *out, tb_err *err);
void tb_attest_der_list_clear(tb_attest_der_list *l);
/* d2i_X509 that rejects trailing bytes; NULL on error. */
X509 *tb_attest_x509_from_der(const uint8_t *der, size_t n);
/* The SGX extension of a parsed PCK certificate (see tb_attest_pck_info_from_der). */
int tb_attest_pck_info_from_x509(X509 *x, tb_attest_pck_info *out, tb_err *err);
/* A certificate read by cert.c (pointers into the caller's DER). */
typedef struct tb_attest_cert {
    const uint8_t *tbs, *issuer, *subject, *serial, *sgx_ext;
    size_t tbs_len, issuer_len, subject_len, serial_len, sgx_ext_len;
    int64_t not_before, not_after;
    uint8_t pub[65]; /* uncompressed P-256 point */
    uint8_t sig[64]; /* r || s */
    int is_ca;
} tb_attest_cert;
typedef struct tb_attest_crl {
    const uint8_t *tbs, *issuer, *revoked; /* revoked: the entries' SEQUENCE content */
    size_t tbs_len, issuer_len, revoked_len;
    int64_t this_update, next_update;
    uint8_t sig[64];
} tb_attest_crl;
int tb_attest_cert_parse(const uint8_t *der, size_t n, tb_attest_cert *c, tb_err *err);
int tb_attest_crl_parse(const uint8_t *der, size_t n, tb_attest_crl *c, tb_err *err);
/* 1: c's issuer name is issuer's subject (DER) and issuer's key verifies c's signature. */
int tb_attest_cert_signed_by(const tb_attest_cert *c, const tb_attest_cert *issuer);
/* 1 when the serial (INTEGER content bytes) is listed in the CRL. */
int tb_attest_crl_is_revoked(const tb_attest_crl *c, const uint8_t *serial, size_t n);
int tb_attest_cert_cn_contains(const tb_attest_cert *c, const char *needle);
/* 1: sig (r || s) over SHA-256(data) verifies with the uncompressed P-256 point pub. */
int tb_attest_p256_verify(const uint8_t pub[65], const void *data, size_t n, const uint8_t sig[64]);
/* The same with a reusable context (a P-256 EC_KEY: creating the curve costs as much as a
 * verification). A context is used by one thread at a time. */
void *tb_attest_p256_ctx_new(void);
/* A P-256 group (read-only once made; may be shared by threads) and a context made
 * from it (~20x cheaper than tb_attest_p256_ctx_new). */
void *tb_attest_p256_group_new(void);
void tb_attest_p256_group_free(void *group);
void *tb_attest_p256_ctx_from(const void *group);
void tb_attest_p256_ctx_free(void *ctx);
int tb_attest_p256_verify_ctx(void *ctx, const uint8_t pub[65], const void *data, size_t n,
                              const uint8_t sig[64]);
/* The SGX extension's value (the OCTET STRING content) -> PCK info (ca_platform unset). */
int tb_attest_pck_info_from_ext(const uint8_t *ext, size_t n, tb_attest_pck_info *out, tb_err *err);
/* DER / PEM / hex text CRL bytes -> DER (malloc'd). */
int tb_attest_crl_to_der(const uint8_t *p, size_t n, uint8_t **der, size_t *derlen, tb_err *err);
/* Signs SHA-256(data) into raw r||s. */
int tb_attest_ecdsa_sign_raw(EVP_PKEY *key, const void *data, size_t n, uint8_t sig[64]);

/* The Intel SGX Root CA, PEM. */
extern const char tb_attest_intel_root_pem[];

#endif
