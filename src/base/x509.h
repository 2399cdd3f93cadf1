/* x509: the one certificate and CRL builder, and the one certificate/key encoder, for teebench's
 * own PKIs -- the SIMULATED TDX and SEV-SNP PKIs (attest/tdx/provider_sim, attest/snp/sim) and the
 * fixture server's CA and certificate (serve/pki).
 *
 * A certificate is described by a tb_x509_spec (subject name entries in order, key,
 * issuer, serial, validity, X509V3 extensions in the openssl.cnf syntax, extensions of
 * raw DER bytes, the signature) and made by tb_x509_make: version 3, the issuer's
 * subject as issuer name (its own when self-signed), the extensions in the order given
 * (the X509V3 context's issuer is the issuer, or the certificate itself), then signed.
 * Nothing else is added, so each caller's certificates keep exactly their properties.
 * A CRL (tb_x509_crl_make) is v2, names its issuer, lists at most one revoked serial
 * and is signed like a certificate. Certificates and keys are encoded (tb_x509_encode)
 * and written (tb_x509_write_at: keys 0600, certificates 0644) and read back
 * (tb_x509_read) by one function each.
 * Invariant: tb_x509_make returns a complete signed certificate or NULL with err set;
 * it never keeps a reference to the spec's keys or certificates. */
#ifndef TB_BASE_X509_H
#define TB_BASE_X509_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "base/buf.h"
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

typedef struct tb_x509_crl_spec {
    X509 *issuer;                     /* its subject is the CRL's issuer */
    EVP_PKEY *issuer_key;             /* signs (ECDSA-SHA256 unless sign_ctx) */
    EVP_MD_CTX *sign_ctx;             /* as tb_x509_spec's */
    int64_t this_update, next_update; /* unix seconds */
    X509 *revoked;                    /* NULL, or the certificate listed (revoked at this_update) */
} tb_x509_crl_spec;

/* The DER of spec's CRL into *der (OPENSSL_free), or -1 with err. */
int tb_x509_crl_make(const tb_x509_crl_spec *spec, uint8_t **der, size_t *len, tb_err *err);

/* Appends cert (PEM, or DER when der) and then key (PEM, unencrypted) to out; either
   may be NULL. 0, or -1 with err ("cannot encode what"). */
int tb_x509_encode(X509 *cert, EVP_PKEY *key, int der, const char *what, tb_buf *out, tb_err *err);
/* tb_x509_encode's bytes written to name in the directory dfd (tb_file_write_at; dir:
   its path, for messages): mode 0600 when a key is written, else 0644. */
int tb_x509_write_at(int dfd, const char *dir, const char *name, X509 *cert, EVP_PKEY *key, int der,
                     tb_err *err);
/* Reads what tb_x509_encode writes: into *cert (cert non-NULL; DER when the file starts with
   a SEQUENCE, else PEM) or *key (PEM), from path (at most 64 KiB). 0, or -1 with err
   ("path: bad certificate or key"); caller frees. */
int tb_x509_read(const char *path, X509 **cert, EVP_PKEY **key, tb_err *err);

#endif
