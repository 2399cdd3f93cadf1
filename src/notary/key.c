/* notary/key: ECDSA P-256 key handling and signatures (see key.h). */
#include "notary/key.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "base/file.h"
#include "notary/internal.h"

static int check_p256(EVP_PKEY *pkey, tb_err *err)
{
    char group[64];
    size_t glen = 0;
    if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC ||
        !EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                        &glen) ||
        strcmp(group, "prime256v1") != 0)
        return tb_errf(err, "not an EC P-256 key");
    return 0;
}

/* Fills spki, pem and the hash from k->pkey. */
static int derive_public(tb_notary_key *k, tb_err *err)
{
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(k->pkey, &der);
    if (n <= 0)
        return tb_err_ssl(err, "encoding the public key");
    int rc = tb_buf_append(&k->spki, der, (size_t)n);
    OPENSSL_free(der);
    if (rc < 0)
        return tb_errf(err, "out of memory");
    SHA256(k->spki.p, k->spki.len, k->spki_sha256);
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio || !PEM_write_bio_PUBKEY(bio, k->pkey)) {
        BIO_free(bio);
        return tb_err_ssl(err, "writing the public key PEM");
    }
    char *p;
    long len = BIO_get_mem_data(bio, &p);
    rc = tb_buf_append(&k->pem, p, (size_t)len);
    BIO_free(bio);
    return rc < 0 ? tb_errf(err, "out of memory") : 0;
}

int tb_notary_key_generate(tb_notary_key *k, tb_err *err)
{
    memset(k, 0, sizeof *k);
    k->pkey = EVP_EC_gen("P-256");
    if (!k->pkey)
        return tb_err_ssl(err, "generating a P-256 key");
    if (derive_public(k, err) < 0) {
        tb_notary_key_clear(k);
        return -1;
    }
    return 0;
}

int tb_notary_key_load(tb_notary_key *k, const char *path, tb_err *err)
{
    memset(k, 0, sizeof *k);
    FILE *f = fopen(path, "r");
    if (!f)
        return tb_errno(err, "%s", path);
    k->pkey = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    if (!k->pkey)
        return tb_err_ssl(err, "%s: not a PEM private key", path);
    if (check_p256(k->pkey, err) < 0 || derive_public(k, err) < 0) {
        tb_err_wrap(err, "%s", path);
        tb_notary_key_clear(k);
        return -1;
    }
    return 0;
}

int tb_notary_key_save(const tb_notary_key *k, const char *path, tb_err *err)
{
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio || !PEM_write_bio_PrivateKey(bio, k->pkey, NULL, NULL, 0, NULL, NULL)) {
        BIO_free(bio);
        return tb_err_ssl(err, "writing the private key PEM");
    }
    char *p;
    long len = BIO_get_mem_data(bio, &p);
    /* 0600 from the first byte (the writer fixes the mode); a device or FIFO the
       user named (--save-key /dev/null) keeps its own. */
    int rc = tb_file_write_atomic_mode(path, p, (size_t)len, 0600, err);
    OPENSSL_cleanse(p, (size_t)len);
    BIO_free(bio);
    return rc;
}

void tb_notary_key_clear(tb_notary_key *k)
{
    EVP_PKEY_free(k->pkey);
    tb_buf_clear(&k->spki);
    tb_buf_clear(&k->pem);
    memset(k, 0, sizeof *k);
}

int tb_notary_sign(const tb_notary_key *k, const uint8_t *data, size_t len, tb_buf *sig,
                   tb_err *err)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    size_t siglen = 0;
    int ok = md && EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, k->pkey) == 1 &&
             EVP_DigestSign(md, NULL, &siglen, data, len) == 1 &&
             tb_buf_reserve(sig, siglen) == 0 &&
             EVP_DigestSign(md, sig->p + sig->len, &siglen, data, len) == 1;
    EVP_MD_CTX_free(md);
    if (!ok)
        return tb_err_ssl(err, "signing");
    sig->len += siglen;
    sig->p[sig->len] = 0;
    return 0;
}

int tb_notary_verify_sig(const uint8_t *spki, size_t spki_len, const uint8_t *data, size_t len,
                         const uint8_t *sig, size_t sig_len, tb_err *err)
{
    const unsigned char *q = spki;
    EVP_PKEY *pub = d2i_PUBKEY(NULL, &q, (long)spki_len);
    if (!pub || q != spki + spki_len) {
        EVP_PKEY_free(pub);
        ERR_clear_error();
        return tb_errf(err, "notary public key: not a DER SubjectPublicKeyInfo");
    }
    if (check_p256(pub, err) < 0) {
        EVP_PKEY_free(pub);
        return tb_err_wrap(err, "notary public key");
    }
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int rc = md && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pub) == 1
                 ? EVP_DigestVerify(md, sig, sig_len, data, len)
                 : -1;
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(pub);
    ERR_clear_error();
    if (rc != 1)
        return tb_errf(err, "signature does not verify with the notary key");
    return 0;
}
