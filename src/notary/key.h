/* notary/key: the notary's ECDSA P-256 signing key and signature checks.
 *
 * A tb_notary_key owns an EVP_PKEY (private) plus its public key as DER
 * SubjectPublicKeyInfo ("SPKI"), its PEM text and SHA-256(SPKI). It is read-only
 * after creation, so one key may sign from many threads at once (OpenSSL 3
 * EVP_PKEY objects are safe for concurrent use when not modified).
 * Signatures are ECDSA over SHA-256, DER-encoded (X9.62 ECDSA-Sig-Value). */
#ifndef TB_NOTARY_KEY_H
#define TB_NOTARY_KEY_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct tb_notary_key {
    EVP_PKEY *pkey;
    tb_buf spki; /* DER SubjectPublicKeyInfo */
    tb_buf pem;  /* public key PEM text */
    uint8_t spki_sha256[32];
} tb_notary_key;

/* A fresh P-256 key. Free with tb_notary_key_clear. */
int tb_notary_key_generate(tb_notary_key *k, tb_err *err);
/* Loads a PEM private key (must be EC P-256). */
int tb_notary_key_load(tb_notary_key *k, const char *path, tb_err *err);
/* Writes the private key as PEM to path (mode 0600, atomically). */
int tb_notary_key_save(const tb_notary_key *k, const char *path, tb_err *err);
void tb_notary_key_clear(tb_notary_key *k);

#endif
