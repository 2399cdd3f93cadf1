/* bench/snp-floor: the floor of SEV-SNP report verification, for bench/snp-verify.sh.
 *
 * The floor is the cryptography no verifier can skip: the ASK's RSA-PSS-4096 SHA-384
 * signature checked with the ARK's key, the VCEK's with the ASK's key, and the report's
 * ECDSA P-384 SHA-384 signature with the VCEK's key (the built-in ARK's self-signature is
 * not checked per report). Keys are made into EVP_PKEYs once, outside floor_once(), so
 * the floor holds only the three EVP_DigestVerify calls (hashing included).
 *
 * Usage: snp-floor ARK.pem ASK.pem VCEK.der REPORT.bin ITERATIONS
 * Prints the mean wall-clock ms of floor_once(); exits 1 if any signature fails, so the
 * floor is known to be the work of a successful verification. Under callgrind,
 * --toggle-collect=floor_once counts its instructions alone. */
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct sig {
    EVP_PKEY *key;
    int pss;
    unsigned char *tbs, *sig;
    size_t tbs_len, sig_len;
} sig;

static X509 *load(const char *path, int pem)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    X509 *x = pem ? PEM_read_X509(f, NULL, NULL, NULL) : d2i_X509_fp(f, NULL);
    fclose(f);
    return x;
}

/* The signed part and signature of cert, to be checked with key. */
static int cert_sig(X509 *cert, EVP_PKEY *key, sig *s)
{
    const ASN1_BIT_STRING *bs;
    X509_get0_signature(&bs, NULL, cert);
    unsigned char *tbs = NULL;
    int n = i2d_re_X509_tbs(cert, &tbs);
    if (n <= 0)
        return -1;
    s->key = key;
    s->pss = 1;
    s->tbs = tbs;
    s->tbs_len = (size_t)n;
    s->sig_len = (size_t)ASN1_STRING_length(bs);
    s->sig = malloc(s->sig_len);
    memcpy(s->sig, ASN1_STRING_get0_data(bs), s->sig_len);
    return 0;
}

/* The report's signature (r, s little-endian at 0x2A0 and 0x2E8) as DER. */
static int report_sig(const unsigned char *rep, EVP_PKEY *key, sig *s)
{
    unsigned char r[48], sv[48];
    for (int i = 0; i < 48; i++) {
        r[i] = rep[0x2A0 + 47 - i];
        sv[i] = rep[0x2A0 + 72 + 47 - i];
    }
    ECDSA_SIG *es = ECDSA_SIG_new();
    ECDSA_SIG_set0(es, BN_bin2bn(r, 48, NULL), BN_bin2bn(sv, 48, NULL));
    unsigned char *der = NULL;
    int n = i2d_ECDSA_SIG(es, &der);
    ECDSA_SIG_free(es);
    if (n <= 0)
        return -1;
    s->key = key;
    s->pss = 0;
    s->tbs = malloc(0x2A0);
    memcpy(s->tbs, rep, 0x2A0);
    s->tbs_len = 0x2A0;
    s->sig = der;
    s->sig_len = (size_t)n;
    return 0;
}

static int verify(const sig *s)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    int ok = c && EVP_DigestVerifyInit(c, &pc, EVP_sha384(), NULL, s->key) == 1;
    if (ok && s->pss)
        ok = EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) == 1 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, 48) == 1 &&
             EVP_PKEY_CTX_set_rsa_mgf1_md(pc, EVP_sha384()) == 1;
    ok = ok && EVP_DigestVerify(c, s->sig, s->sig_len, s->tbs, s->tbs_len) == 1;
    EVP_MD_CTX_free(c);
    return ok;
}

/* The floor: three verifications. Not static, not inlined: callgrind toggles on it. */
__attribute__((noinline)) int floor_once(const sig *s);
__attribute__((noinline)) int floor_once(const sig *s)
{
    return verify(&s[0]) & verify(&s[1]) & verify(&s[2]);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: snp-floor ARK.pem ASK.pem VCEK.der REPORT.bin ITERATIONS\n");
        return 2;
    }
    X509 *ark = load(argv[1], 1), *ask = load(argv[2], 1), *vcek = load(argv[3], 0);
    unsigned char rep[1184];
    FILE *f = fopen(argv[4], "rb");
    int iters = atoi(argv[5]);
    if (!ark || !ask || !vcek || !f || fread(rep, 1, sizeof rep, f) != sizeof rep || iters < 1) {
        fprintf(stderr, "snp-floor: bad input\n");
        return 1;
    }
    fclose(f);
    EVP_PKEY *kark = X509_get_pubkey(ark), *kask = X509_get_pubkey(ask),
             *kvcek = X509_get_pubkey(vcek);
    sig s[3];
    if (!kark || !kask || !kvcek || cert_sig(ask, kark, &s[0]) < 0 ||
        cert_sig(vcek, kask, &s[1]) < 0 || report_sig(rep, kvcek, &s[2]) < 0 || !floor_once(s)) {
        fprintf(stderr, "snp-floor: the signatures do not verify\n");
        return 1;
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int ok = 1;
    for (int i = 0; i < iters; i++)
        ok &= floor_once(s);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.6f\n",
           ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6) / iters);
    for (int i = 0; i < 3; i++) {
        free(s[i].sig);
        free(s[i].tbs);
    }
    EVP_PKEY_free(kark);
    EVP_PKEY_free(kask);
    EVP_PKEY_free(kvcek);
    X509_free(ark);
    X509_free(ask);
    X509_free(vcek);
    return ok ? 0 : 1;
}
