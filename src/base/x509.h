/* x509: the one certificate builder for teebench's own PKIs -- the SIMULATED TDX and
 * SEV-SNP PKIs (attest/provider_sim, attest/snp_sim) and the fixture server's CA and
 * certificate (serve/pki).
 *
 * A certificate is described by a tb_x509_spec (subject name entries in order, key,
 * issuer, serial, validity, X509V3 extensions in the openssl.cnf syntax, extensions of
 * raw DER bytes, the signature) and made by tb_x509_make: version 3, the issuer's
 * subject as issuer name (its own when self-signed), the extensions in the order given
 * (the X509V3 context's issuer is the issuer, or the certificate itself), then signed.
 * Nothing else is added, so each caller's certificates keep exactly their properties.
 * Invariant: tb_x509_make returns a complete signed certificate or NULL with err set;
 * it never keeps a reference to the spec's keys or certificates. */
#ifndef TB_BASE_X509_H
#define TB_BASE_X509_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "base/err.h"

/* An extension from its X509V3 configuration string ("critical,CA:TRUE", "hash"). */
typedef struct tb_x509_ext {
    int nid;
    const char *value;
} tb_x509_ext;

/* A non-critical extension whose value is the DER bytes der (an OID in dotted text). */
typedef struct tb_x509_raw_ext {
    const char *oid;
    const uint8_t *der;
    size_t len;
} tb_x509_raw_ext;

typedef struct tb_x509_spec {
    const char *const *name;       /* subject: field, value, field, value, ..., NULL */
    EVP_PKEY *key;                 /* the subject's key */
    X509 *issuer;                  /* NULL: self-signed */
    EVP_PKEY *issuer_key;          /* signs */
    long serial;                   /* > 0: this serial; 0: 127 random bits */
    int64_t not_before, not_after; /* unix seconds */
    const tb_x509_ext *ext;
    size_t n_ext;
    const tb_x509_raw_ext *raw;
    size_t n_raw;
    EVP_MD_CTX *sign_ctx; /* NULL: X509_sign with SHA-256; else a ready DigestSign context
                             on issuer_key (RSA-PSS), used as it is (not freed) */
} tb_x509_spec;

/* The certificate of spec (caller frees with X509_free), or NULL + err. */
X509 *tb_x509_make(const tb_x509_spec *spec, tb_err *err);

#endif
