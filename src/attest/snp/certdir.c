/* attest/snp/certdir: the certificates an SEV-SNP report is checked against, from a folder.
 *
 *   ark.pem, ask.pem          the ARK and the ASK (or ASVK); each optional (built-in)
 *   cert_chain.pem            (or ask_ark.pem) the ASK then the ARK in one PEM file, as the
 *                             KDS serves /cert_chain; read when ark.pem / ask.pem are absent
 *   vcek.der|vcek.pem|vlek.der|vlek.pem   the leaf (required)
 *   crl.der|crl.pem           the product's CRL (optional: no revocation check)
 * Each file may be PEM or DER. Nothing is verified here (snp_verify.c does that).
 * Invariant: on failure *out holds nothing (cleared); every message names the path. */
#include "attest/internal.h"
#include "attest/snp/snp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/pem.h>

#include "base/buf.h"
#include "base/file.h"

void tb_snp_certs_clear(tb_snp_certs *c)
{
    free(c->ark);
    free(c->ask);
    free(c->vcek);
    free(c->crl);
    memset(c, 0, sizeof *c);
}

/* The file at path (at most 1 MiB) handed to from (ctx: its own); its error names path. */
static int read_as(const char *path,
                   int (*from)(const uint8_t *p, size_t n, void *ctx, tb_err *err), void *ctx,
                   tb_err *err)
{
    tb_buf b = {0};
    if (tb_file_read(path, 1 << 20, &b, err) < 0)
        return -1;
    int rc = from(b.p, b.len, ctx, err);
    tb_buf_clear(&b);
    return rc < 0 ? tb_err_wrap(err, "%s", path) : 0;
}

/* name in dir into path: 1 present, 0 absent, -1 error (too long). */
static int present(const char *dir, const char *name, char path[4096], tb_err *err)
{
    struct stat st;
    if (tb_path_join(path, 4096, dir, name, err) < 0)
        return -1;
    return stat(path, &st) == 0;
}

typedef struct der_out {
    int crl;
    uint8_t **der;
    size_t *len;
} der_out;

static int der_from(const uint8_t *p, size_t n, void *ctx, tb_err *err)
{
    der_out *o = ctx;
    return tb_snp_to_der(p, n, o->crl, o->der, o->len, err);
}

/* 1 read, 0 absent, -1 error. */
static int read_one(const char *dir, const char *name, int crl, uint8_t **der, size_t *len,
                    tb_err *err)
{
    char path[4096];
    int rc = present(dir, name, path, err);
    if (rc <= 0)
        return rc;
    der_out o = {crl, der, len};
    return read_as(path, der_from, &o, err) < 0 ? -1 : 1;
}

int tb_snp_chain_from_pem(const uint8_t *p, size_t n, tb_snp_certs *c, tb_err *err)
{
    BIO *bio = BIO_new_mem_buf(p, (int)n);
    int k = 0;
    while (bio && k < 2) {
        char *pname = NULL, *hdr = NULL;
        unsigned char *data = NULL;
        long dl = 0;
        if (!PEM_read_bio(bio, &pname, &hdr, &data, &dl))
            break;
        uint8_t **dst = k == 0 ? &c->ask : &c->ark;
        size_t *dlen = k == 0 ? &c->ask_len : &c->ark_len;
        if (!strcmp(pname, PEM_STRING_X509) && dl > 0 && (*dst = malloc((size_t)dl))) {
            memcpy(*dst, data, (size_t)dl);
            *dlen = (size_t)dl;
            k++;
        }
        OPENSSL_free(pname);
        OPENSSL_free(hdr);
        OPENSSL_free(data);
    }
    BIO_free(bio);
    ERR_clear_error();
    if (k != 2) {
        free(c->ask);
        free(c->ark);
        c->ask = c->ark = NULL;
        c->ask_len = c->ark_len = 0;
        return tb_errf(err, "want two PEM certificates (ASK, then ARK)");
    }
    return 0;
}

static int chain_from(const uint8_t *p, size_t n, void *ctx, tb_err *err)
{
    return tb_snp_chain_from_pem(p, n, ctx, err);
}

/* The first two certificates of a PEM chain file (ASK, ARK). 1 read, 0 absent, -1 error. */
static int read_chain(const char *dir, const char *name, tb_snp_certs *c, tb_err *err)
{
    char path[4096];
    int rc = present(dir, name, path, err);
    if (rc <= 0)
        return rc;
    return read_as(path, chain_from, c, err) < 0 ? -1 : 1;
}

int tb_snp_certs_load(const char *dir, tb_snp_certs *c, tb_err *err)
{
    memset(c, 0, sizeof *c);
    struct stat st;
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return tb_errf(err, "%s: not a folder of certificates", dir);
    int rc = read_one(dir, "ark.pem", 0, &c->ark, &c->ark_len, err);
    if (rc >= 0)
        rc = read_one(dir, "ask.pem", 0, &c->ask, &c->ask_len, err);
    if (rc >= 0 && !c->ark && !c->ask) {
        rc = read_chain(dir, "cert_chain.pem", c, err);
        if (rc == 0)
            rc = read_chain(dir, "ask_ark.pem", c, err);
    }
    static const char *const leaves[] = {"vcek.der", "vcek.pem", "vlek.der", "vlek.pem"};
    for (size_t i = 0; rc >= 0 && !c->vcek && i < 4; i++)
        rc = read_one(dir, leaves[i], 0, &c->vcek, &c->vcek_len, err);
    if (rc >= 0 && !c->vcek)
        rc = tb_errf(err, "%s: no vcek.der, vcek.pem, vlek.der or vlek.pem", dir);
    if (rc >= 0)
        rc = read_one(dir, "crl.der", 1, &c->crl, &c->crl_len, err);
    if (rc == 0 && !c->crl)
        rc = read_one(dir, "crl.pem", 1, &c->crl, &c->crl_len, err);
    if (rc < 0) {
        tb_snp_certs_clear(c);
        return -1;
    }
    return 0;
}

int tb_snp_read_der(const char *path, int crl, uint8_t **der, size_t *len, tb_err *err)
{
    *der = NULL;
    *len = 0;
    der_out o = {crl, der, len};
    return read_as(path, der_from, &o, err);
}
