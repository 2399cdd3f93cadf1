/* tlsn/wasm: the pinned tlsn-wasm package and the fixture-root substitution (see
 * wasm.h). Invariant: a tb_tlsn_wasm that tb_tlsn_wasm_load filled holds every
 * file of the table, each equal to its pin; only tb_tlsn_wasm_substitute_root
 * changes bytes afterwards, and the caller records that it did. */
#include "tlsn/wasm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "base/file.h"
#include "base/hex.h"

/* The files of tlsn-wasm 0.1.0-alpha.12 that the pages load, with the SHA-256 of
   each as the npm tarball (integrity sha512-0HlhM466...RYBtuQ==) has it. */
static const struct {
    const char *path, *sha256;
} pins[TB_TLSN_WASM_FILES] = {
    {"tlsn_wasm.js", "f497754ba69a960196f8c43a751b9d04eb8d29849e5e161e8bf09cb18cbccb21"},
    {"tlsn_wasm_bg.wasm", "f77fadf47ed8c3bfb0932041b280f834940ecf1a64b491f8658d789717588716"},
    {"spawn.js", "d242cfed76caf13bd188a36b12e6099d68be230bc7bfd18c67127f4e33857fec"},
    {"snippets/web-spawn-0303048270a97ee1/js/spawn.js",
     "d242cfed76caf13bd188a36b12e6099d68be230bc7bfd18c67127f4e33857fec"},
};

#define MAX_FILE (64u << 20)

int tb_tlsn_wasm_default_dir(char *out, size_t n, tb_err *err)
{
    const char *env = getenv("TEEBENCH_TLSN_WASM"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    char cand[3][4096];
    int nc = 0;
    if (env && env[0]) {
        snprintf(cand[nc++], sizeof cand[0], "%s", env);
    } else {
        if (xdg && xdg[0] == '/')
            snprintf(cand[nc++], sizeof cand[0], "%.3000s/teebench/tlsn-wasm/%s/package", xdg,
                     TB_TLSN_WASM_VERSION);
        else if (home && home[0] == '/')
            snprintf(cand[nc++], sizeof cand[0], "%.3000s/.cache/teebench/tlsn-wasm/%s/package",
                     home, TB_TLSN_WASM_VERSION);
        snprintf(cand[nc++], sizeof cand[0], "/var/cache/teebench/tlsn-wasm/%s/package",
                 TB_TLSN_WASM_VERSION);
    }
    for (int i = 0; i < nc; i++) {
        struct stat st;
        if (stat(cand[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (strlen(cand[i]) >= n)
                return tb_errf(err, "the tlsn-wasm directory's path is too long");
            snprintf(out, n, "%s", cand[i]);
            return 0;
        }
    }
    /* none there: the first, whose load says how to install it */
    if (strlen(cand[0]) >= n)
        return tb_errf(err, "the tlsn-wasm directory's path is too long");
    snprintf(out, n, "%s", cand[0]);
    return 0;
}

void tb_tlsn_wasm_clear(tb_tlsn_wasm *w)
{
    for (int i = 0; i < TB_TLSN_WASM_FILES; i++)
        tb_buf_clear(&w->files[i].data);
    memset(w, 0, sizeof *w);
}

tb_buf *tb_tlsn_wasm_module(tb_tlsn_wasm *w)
{
    return &w->files[1].data;
}

int tb_tlsn_wasm_load(const char *dir, tb_tlsn_wasm *w, tb_err *err)
{
    memset(w, 0, sizeof *w);
    snprintf(w->dir, sizeof w->dir, "%s", dir);
    struct stat st;
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return tb_errf(err,
                       "tlsn-wasm is not installed: no directory %s (scripts/setup.sh --tlsn "
                       "installs %s from the npm registry; --wasm DIR or TEEBENCH_TLSN_WASM "
                       "names another place)",
                       dir, TB_TLSN_WASM_NPM);
    for (int i = 0; i < TB_TLSN_WASM_FILES; i++) {
        tb_tlsn_wasm_file *f = &w->files[i];
        f->path = pins[i].path;
        f->sha256 = pins[i].sha256;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, f->path);
        if (tb_file_read(path, MAX_FILE, &f->data, err) < 0) {
            tb_tlsn_wasm_clear(w);
            return tb_err_wrap(err,
                               "tlsn-wasm %s is incomplete (scripts/setup.sh --tlsn "
                               "installs it again)",
                               TB_TLSN_WASM_VERSION);
        }
        uint8_t md[EVP_MAX_MD_SIZE];
        unsigned mdlen = 0;
        char hex[65];
        EVP_Digest(f->data.p, f->data.len, md, &mdlen, EVP_sha256(), NULL);
        tb_hex_encode(md, 32, hex);
        if (strcmp(hex, f->sha256)) {
            tb_errf(err,
                    "%s: SHA-256 %s, not the pinned %s of %s (scripts/setup.sh --tlsn "
                    "installs the pinned package again)",
                    path, hex, f->sha256, TB_TLSN_WASM_NPM);
            tb_tlsn_wasm_clear(w);
            return -1;
        }
    }
    return 0;
}

/* GlobalSign ECC Root CA - R4: its subject's contents, as webpki-roots has it. */
static const uint8_t anchor_subject[] = {
    0x31, 0x24, 0x30, 0x22, 0x06, 0x03, 0x55, 0x04, 0x0b, 0x13, 0x1b, 'G',  'l',  'o',  'b',  'a',
    'l',  'S',  'i',  'g',  'n',  ' ',  'E',  'C',  'C',  ' ',  'R',  'o',  'o',  't',  ' ',  'C',
    'A',  ' ',  '-',  ' ',  'R',  '4',  0x31, 0x13, 0x30, 0x11, 0x06, 0x03, 0x55, 0x04, 0x0a, 0x13,
    0x0a, 'G',  'l',  'o',  'b',  'a',  'l',  'S',  'i',  'g',  'n',  0x31, 0x13, 0x30, 0x11, 0x06,
    0x03, 0x55, 0x04, 0x03, 0x13, 0x0a, 'G',  'l',  'o',  'b',  'a',  'l',  'S',  'i',  'g',  'n'};
/* The start of a P-256 SubjectPublicKeyInfo's contents (id-ecPublicKey, prime256v1,
   an uncompressed point); 89 bytes in all. */
static const uint8_t p256_prefix[] = {0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d,
                                      0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
                                      0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04};
#define P256_SPKI_LEN 89

/* The contents of the DER SEQUENCE in der[0..n): *off and *len. -1 when it is not one. */
static int seq_contents(const uint8_t *der, size_t n, size_t *off, size_t *len)
{
    if (n < 2 || der[0] != 0x30)
        return -1;
    size_t l = der[1], h = 2;
    if (l == 0x81 && n >= 3) {
        l = der[2];
        h = 3;
    } else if (l == 0x82 && n >= 4) {
        l = (size_t)der[2] << 8 | der[3];
        h = 4;
    } else if (l >= 0x80) {
        return -1;
    }
    if (h + l != n)
        return -1;
    *off = h;
    *len = l;
    return 0;
}

static const uint8_t *find_once(const uint8_t *hay, size_t n, const uint8_t *needle, size_t m,
                                int *count)
{
    const uint8_t *first = NULL;
    *count = 0;
    for (size_t i = 0; i + m <= n; i++) {
        if (hay[i] == needle[0] && !memcmp(hay + i, needle, m)) {
            if (!first)
                first = hay + i;
            ++*count;
        }
    }
    return first;
}

int tb_tlsn_wasm_substitute_root(uint8_t *wasm, size_t len, const char *ca_pem, tb_err *err)
{
    int rc = -1, count;
    uint8_t *name = NULL, *spki = NULL;
    FILE *f = fopen(ca_pem, "r");
    if (!f)
        return tb_errno(err, "%s", ca_pem);
    X509 *ca = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    if (!ca)
        return tb_err_ssl(err, "%s: not a PEM certificate", ca_pem);
    int nl = i2d_X509_NAME(X509_get_subject_name(ca), &name);
    int kl = i2d_PUBKEY(X509_get0_pubkey(ca), &spki);
    size_t noff, nlen, koff, klen;
    if (nl <= 0 || kl <= 0 || seq_contents(name, (size_t)nl, &noff, &nlen) < 0 ||
        seq_contents(spki, (size_t)kl, &koff, &klen) < 0) {
        tb_err_ssl(err, "%s: encoding its subject and key", ca_pem);
        goto out;
    }
    if (nlen != sizeof anchor_subject) {
        tb_errf(err,
                "%s: the CA's subject is %zu bytes of DER, the replaced root's %zu (they must be "
                "equal)",
                ca_pem, nlen, sizeof anchor_subject);
        goto out;
    }
    if (klen != P256_SPKI_LEN || memcmp(spki + koff, p256_prefix, sizeof p256_prefix)) {
        tb_errf(err, "%s: the CA's key is not EC P-256, as the replaced root's is", ca_pem);
        goto out;
    }
    uint8_t *at = (uint8_t *)find_once(wasm, len, anchor_subject, sizeof anchor_subject, &count);
    if (count != 1) {
        tb_errf(err, "the wasm has %d copies of the GlobalSign ECC Root CA - R4 anchor, not one",
                count);
        goto out;
    }
    uint8_t *key = at + sizeof anchor_subject;
    if ((size_t)(key - wasm) + P256_SPKI_LEN > len ||
        memcmp(key, p256_prefix, sizeof p256_prefix)) {
        tb_errf(err, "the wasm's GlobalSign ECC Root CA - R4 anchor has no P-256 key after it");
        goto out;
    }
    memcpy(at, name + noff, nlen);
    memcpy(key, spki + koff, klen);
    rc = 0;
out:
    OPENSSL_free(name);
    OPENSSL_free(spki);
    X509_free(ca);
    return rc;
}
