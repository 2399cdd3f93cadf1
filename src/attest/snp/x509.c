/* attest/snp/x509: AMD's SEV-SNP certificates and CRLs, read with the module's one DER
 * walker (der.c), and their signatures checked with OpenSSL.
 *
 * Why not d2i_X509: as for DCAP (cert.c), OpenSSL 3's X.509 decoding costs more than the
 * RSA verification it precedes; the verifier needs only the signed bytes, names,
 * serial, validity, key, basicConstraints and AMD's extensions.
 * What is accepted (all AMD KDS certificates and CRLs are so):
 *   - signatures RSASSA-PSS with SHA-384, MGF1 SHA-384, salt length 48 (trailer field 1
 *     may be explicit, as AMD writes it); the same AlgorithmIdentifier inside the TBS;
 *   - keys: RSA (rsaEncryption; ARK, ASK, ASVK) or EC P-384 (VCEK, VLEK);
 *   - AMD extensions 1.3.6.1.4.1.3704.1.*: .1 structVersion, .2 productName (IA5String),
 *     .3.1 blSPL, .3.2 teeSPL, .3.3 snpSPL, .3.4-.3.7 spl_4..7, .3.8 ucodeSPL, .3.9 fmcSPL
 *     (INTEGERs 0..255), .4 hwID (64 raw bytes, or an OCTET STRING of 64), .5 csp_id (VLEK).
 * Invariant: every pointer a parse hands out lies inside the caller's DER (which the
 * caller keeps alive); every container is consumed exactly (strict DER, der.c). */
#define OPENSSL_SUPPRESS_DEPRECATED /* RSA / EC_KEY: no provider fetch per verification */
#include "attest/internal.h"
#include "attest/snp/snp.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

typedef tb_attest_der der;

static const uint8_t OID_PSS[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a};
static const uint8_t OID_RSA[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01};
static const uint8_t OID_MGF1[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08};
static const uint8_t OID_SHA384[] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02};
static const uint8_t OID_EC_PUBKEY[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
static const uint8_t OID_P384[] = {0x2b, 0x81, 0x04, 0x00, 0x22};
static const uint8_t OID_BASIC_CONSTRAINTS[] = {0x55, 0x1d, 0x13};
static const uint8_t OID_AMD[] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0x9c, 0x78, 0x01}; /* ...3704.1 */

static int oid_is(der o, const uint8_t *oid, size_t n)
{
    return o.n == n && !memcmp(o.p, oid, n);
}

/* AlgorithmIdentifier { sha384, NULL or absent }. */
static int alg_sha384(der a)
{
    der seq, oid, null;
    if (tb_attest_der_expect(&a, 0x30, &seq) < 0 || a.n != 0 ||
        tb_attest_der_expect(&seq, 0x06, &oid) < 0 || !oid_is(oid, OID_SHA384, sizeof OID_SHA384))
        return 0;
    if (seq.n && (tb_attest_der_expect(&seq, 0x05, &null) < 0 || null.n != 0))
        return 0;
    return seq.n == 0;
}

/* The contents of an AlgorithmIdentifier: rsassaPss with SHA-384 / MGF1-SHA-384 / salt 48. */
static int alg_pss384(der alg)
{
    der oid, params, x;
    int tag;
    unsigned salt = 0, trailer = 1;
    if (tb_attest_der_expect(&alg, 0x06, &oid) < 0 || !oid_is(oid, OID_PSS, sizeof OID_PSS) ||
        tb_attest_der_expect(&alg, 0x30, &params) < 0 || alg.n != 0)
        return 0;
    int seen = 0;
    while (params.n) {
        if (tb_attest_der_next(&params, &tag, &x, NULL) < 0)
            return 0;
        if (tag == 0xa0 && !(seen & 1)) {
            if (!alg_sha384(x))
                return 0;
            seen |= 1;
        } else if (tag == 0xa1 && !(seen & 2)) {
            der seq, moid;
            if (tb_attest_der_expect(&x, 0x30, &seq) < 0 || x.n != 0 ||
                tb_attest_der_expect(&seq, 0x06, &moid) < 0 ||
                !oid_is(moid, OID_MGF1, sizeof OID_MGF1) || !alg_sha384(seq))
                return 0;
            seen |= 2;
        } else if (tag == 0xa2 && !(seen & 4)) {
            der v;
            if (tb_attest_der_expect(&x, 0x02, &v) < 0 || x.n != 0 ||
                tb_attest_der_uint(v, 1024, &salt) < 0)
                return 0;
            seen |= 4;
        } else if (tag == 0xa3 && !(seen & 8)) {
            der v;
            if (tb_attest_der_expect(&x, 0x02, &v) < 0 || x.n != 0 ||
                tb_attest_der_uint(v, 1, &trailer) < 0)
                return 0;
            seen |= 8;
        } else {
            return 0; /* unknown, duplicate or out of order */
        }
    }
    return (seen & 7) == 7 && salt == 48 && trailer == 1;
}

static int bits_content(der bits, const uint8_t **p, size_t *n)
{
    if (bits.n < 2 || bits.p[0] != 0) /* no unused bits */
        return -1;
    *p = bits.p + 1;
    *n = bits.n - 1;
    return 0;
}

static der strip_sign(der v)
{
    if (v.n > 1 && v.p[0] == 0) {
        v.p++;
        v.n--;
    }
    return v;
}

static int parse_spki(der spki, tb_snp_cert *c)
{
    der alg, oid, bits, x;
    if (tb_attest_der_expect(&spki, 0x30, &alg) < 0 ||
        tb_attest_der_expect(&spki, 0x03, &bits) < 0 || spki.n != 0 ||
        tb_attest_der_expect(&alg, 0x06, &oid) < 0)
        return -1;
    const uint8_t *k;
    size_t kn;
    if (bits_content(bits, &k, &kn) < 0)
        return -1;
    if (oid_is(oid, OID_RSA, sizeof OID_RSA)) {
        if (tb_attest_der_expect(&alg, 0x05, &x) < 0 || x.n != 0 || alg.n != 0)
            return -1;
        der key = {k, kn}, seq, n, e;
        if (tb_attest_der_expect(&key, 0x30, &seq) < 0 || key.n != 0 ||
            tb_attest_der_expect(&seq, 0x02, &n) < 0 || tb_attest_der_int(n) < 0 || n.p[0] & 0x80 ||
            tb_attest_der_expect(&seq, 0x02, &e) < 0 || tb_attest_der_int(e) < 0 || e.p[0] & 0x80 ||
            seq.n != 0)
            return -1;
        n = strip_sign(n);
        e = strip_sign(e);
        c->key_rsa = 1;
        c->rsa_n = n.p;
        c->rsa_n_len = n.n;
        c->rsa_e = e.p;
        c->rsa_e_len = e.n;
        return 0;
    }
    if (oid_is(oid, OID_EC_PUBKEY, sizeof OID_EC_PUBKEY)) {
        der curve;
        if (tb_attest_der_expect(&alg, 0x06, &curve) < 0 ||
            !oid_is(curve, OID_P384, sizeof OID_P384) || alg.n != 0 || kn != 97 || k[0] != 0x04)
            return -1;
        memcpy(c->ec, k, 97);
        return 0;
    }
    return -1;
}

static int parse_basic_constraints(der val, int *is_ca)
{
    der bc, x;
    int tag;
    if (tb_attest_der_expect(&val, 0x30, &bc) < 0 || val.n != 0)
        return -1;
    if (bc.n && bc.p[0] == 0x01 &&
        (tb_attest_der_next(&bc, NULL, &x, NULL) < 0 || tb_attest_der_bool(x, is_ca) < 0))
        return -1;
    if (bc.n &&
        (tb_attest_der_next(&bc, &tag, &x, NULL) < 0 || tag != 0x02 || tb_attest_der_int(x) < 0))
        return -1;
    return bc.n == 0 ? 0 : -1;
}

static int spl(der val, uint8_t *out)
{
    der v;
    unsigned x;
    if (tb_attest_der_expect(&val, 0x02, &v) < 0 || val.n != 0 ||
        tb_attest_der_uint(v, 255, &x) < 0)
        return -1;
    *out = (uint8_t)x;
    return 0;
}

/* One AMD extension (oid: the arc after 3704.1). seen: a bit per extension, duplicates
 * refused. */
static int amd_ext(der oid, der val, tb_snp_ext *e, uint32_t *seen, tb_err *err)
{
    der x;
    int tag, bit;
    unsigned dummy;
    uint8_t spls[10];
    if (oid.n == 1 && oid.p[0] >= 1 && oid.p[0] <= 5)
        bit = oid.p[0]; /* .1 .. .5 */
    else if (oid.n == 2 && oid.p[0] == 3 && oid.p[1] >= 1 && oid.p[1] <= 9)
        bit = 10 + oid.p[1]; /* .3.1 .. .3.9 */
    else
        return 0; /* unknown AMD extension: ignored */
    if (*seen & (1u << bit))
        return tb_errf(err, "duplicate AMD certificate extension");
    *seen |= 1u << bit;
    switch (bit) {
    case 1: /* structVersion */
        if (tb_attest_der_expect(&val, 0x02, &x) < 0 || val.n != 0 ||
            tb_attest_der_uint(x, 0xffff, &dummy) < 0)
            return tb_errf(err, "malformed AMD structVersion extension");
        return 0;
    case 2: /* productName */
        if (tb_attest_der_next(&val, &tag, &x, NULL) < 0 || val.n != 0 ||
            (tag != 0x16 && tag != 0x0c) || x.n >= sizeof e->product)
            return tb_errf(err, "malformed AMD productName extension");
        for (size_t i = 0; i < x.n; i++)
            if (x.p[i] < 0x20 || x.p[i] > 0x7e)
                return tb_errf(err, "AMD productName extension is not printable");
        memcpy(e->product, x.p, x.n);
        e->product[x.n] = '\0';
        return 0;
    case 4: /* hwID: 64 raw bytes, or an OCTET STRING of them */
        if (val.n == 64) {
            memcpy(e->hwid, val.p, 64);
        } else if (tb_attest_der_expect(&val, 0x04, &x) == 0 && val.n == 0 && x.n == 64) {
            memcpy(e->hwid, x.p, 64);
        } else {
            return tb_errf(err, "malformed AMD hwID extension (want 64 bytes)");
        }
        e->has_hwid = 1;
        return 0;
    case 5: /* csp_id (VLEK) */
        if (tb_attest_der_next(&val, &tag, &x, NULL) < 0 || val.n != 0)
            return tb_errf(err, "malformed AMD csp_id extension");
        e->has_csp_id = 1;
        return 0;
    case 3:
        return 0; /* an arc without a value of its own */
    default:
        if (spl(val, &spls[0]) < 0)
            return tb_errf(err, "malformed AMD SPL extension 1.3.6.1.4.1.3704.1.3.%d", bit - 10);
        if (bit == 11)
            e->bl = spls[0];
        else if (bit == 12)
            e->tee = spls[0];
        else if (bit == 13)
            e->snp = spls[0];
        else if (bit == 18)
            e->ucode = spls[0];
        else if (bit == 19) {
            e->fmc = spls[0];
            e->has_fmc = 1;
        }
        return 0;
    }
}

int tb_snp_ext_parse(const uint8_t *p, size_t n, tb_snp_ext *e, int *is_ca, tb_err *err)
{
    memset(e, 0, sizeof *e);
    *is_ca = 0;
    der exts = {p, n}, seq;
    uint32_t seen = 0;
    int bc_seen = 0;
    if (tb_attest_der_expect(&exts, 0x30, &seq) < 0 || exts.n != 0)
        return tb_errf(err, "malformed certificate extensions");
    while (seq.n) {
        der ext, oid, val;
        int tag, critical;
        if (tb_attest_der_expect(&seq, 0x30, &ext) < 0 ||
            tb_attest_der_expect(&ext, 0x06, &oid) < 0 ||
            tb_attest_der_next(&ext, &tag, &val, NULL) < 0)
            return tb_errf(err, "malformed certificate extension");
        if (tag == 0x01 && (tb_attest_der_bool(val, &critical) < 0 ||
                            tb_attest_der_next(&ext, &tag, &val, NULL) < 0))
            return tb_errf(err, "malformed certificate extension");
        if (tag != 0x04 || ext.n != 0)
            return tb_errf(err, "malformed certificate extension value");
        if (oid_is(oid, OID_BASIC_CONSTRAINTS, sizeof OID_BASIC_CONSTRAINTS)) {
            if (bc_seen++ || parse_basic_constraints(val, is_ca) < 0)
                return tb_errf(err, "malformed basicConstraints");
        } else if (oid.n > sizeof OID_AMD && !memcmp(oid.p, OID_AMD, sizeof OID_AMD)) {
            der arc = {oid.p + sizeof OID_AMD, oid.n - sizeof OID_AMD};
            if (amd_ext(arc, val, e, &seen, err) < 0)
                return -1;
        }
    }
    /* bl (.3.1), tee (.3.2), snp (.3.3) and ucode (.3.8) */
    uint32_t tcb = 1u << 11 | 1u << 12 | 1u << 13 | 1u << 18;
    e->has_tcb = (seen & tcb) == tcb;
    return 0;
}

int tb_snp_cert_parse(const uint8_t *p, size_t n, tb_snp_cert *c, tb_err *err)
{
    memset(c, 0, sizeof *c);
    tb_attest_cert_frame f;
    if (tb_attest_cert_frame_read(p, n, &f, err) < 0)
        return -1;
    if (!alg_pss384(f.alg) || bits_content(f.bits, &c->sig, &c->sig_len) < 0)
        return tb_errf(err, "certificate is not signed with RSA-PSS SHA-384 (salt 48)");
    if (!alg_pss384(f.inner_alg))
        return tb_errf(err, "inner signature algorithm is not RSA-PSS SHA-384");
    c->id = tb_attest_cert_frame_id(&f);
    c->spki = f.spki.p;
    c->spki_len = f.spki.n;
    der spki_in = f.spki, spki_c, tbs = f.rest;
    int tag;
    tb_attest_der_expect(&spki_in, 0x30, &spki_c); /* cannot fail: read as a SEQUENCE */
    if (parse_spki(spki_c, c) < 0)
        return tb_errf(err, "certificate key is neither RSA nor EC P-384");
    int last = 0;
    while (tbs.n) { /* [1] issuerUID, [2] subjectUID, [3] extensions, in this order */
        der x;
        if (tb_attest_der_next(&tbs, &tag, &x, NULL) < 0 || tag < 0xa1 || tag > 0xa3 || tag <= last)
            return tb_errf(err, "malformed certificate body");
        last = tag;
        if (tag == 0xa3 && tb_snp_ext_parse(x.p, x.n, &c->ext, &c->is_ca, err) < 0)
            return -1;
    }
    return 0;
}

static int pss_take_sig(der bits, tb_attest_crl *c)
{
    return bits_content(bits, &c->rsa_sig, &c->rsa_sig_len);
}

static const tb_attest_crl_alg crl_pss = {alg_pss384, pss_take_sig, "RSA-PSS SHA-384 (salt 48)",
                                          "RSA-PSS SHA-384"};

int tb_snp_crl_parse(const uint8_t *p, size_t n, tb_attest_crl *c, tb_err *err)
{
    return tb_attest_crl_read(p, n, &crl_pss, c, err);
}

int tb_snp_pss_verify(const tb_snp_cert *signer, const uint8_t *data, size_t n, const uint8_t *sig,
                      size_t sig_len)
{
    /* AMD's ARK, ASK and ASVK are RSA-4096; nothing smaller is accepted. */
    if (!signer->key_rsa || signer->rsa_n_len != 512 || sig_len != 512 || signer->rsa_e_len > 8)
        return 0;
    RSA *rsa = RSA_new();
    BIGNUM *bn = BN_bin2bn(signer->rsa_n, (int)signer->rsa_n_len, NULL);
    BIGNUM *be = BN_bin2bn(signer->rsa_e, (int)signer->rsa_e_len, NULL);
    int ok = 0;
    if (rsa && bn && be && RSA_set0_key(rsa, bn, be, NULL)) {
        bn = be = NULL;
        uint8_t em[512], h[48];
        if (RSA_public_decrypt((int)sig_len, sig, em, rsa, RSA_NO_PADDING) == 512) {
            SHA384(data, n, h);
            ok = RSA_verify_PKCS1_PSS_mgf1(rsa, h, EVP_sha384(), EVP_sha384(), em, 48) == 1;
        }
    }
    BN_free(bn);
    BN_free(be);
    RSA_free(rsa);
    ERR_clear_error();
    return ok;
}

int tb_snp_report_sig_ok(const tb_snp_cert *vcek, const uint8_t *report)
{
    if (vcek->key_rsa)
        return 0;
    const uint8_t *sig = report + TB_SNP_SIGNED_LEN;
    uint8_t rb[48], sb[48], h[48];
    for (int i = 48; i < 72; i++)
        if (sig[i] || sig[72 + i])
            return 0; /* P-384: r and s are 48 bytes; the rest of each 72 is zero */
    for (int i = 0; i < 48; i++) {
        rb[i] = sig[47 - i];
        sb[i] = sig[72 + 47 - i];
    }
    SHA384(report, TB_SNP_SIGNED_LEN, h);
    EC_KEY *k = EC_KEY_new_by_curve_name(NID_secp384r1);
    ECDSA_SIG *s = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(rb, 48, NULL), *ss = BN_bin2bn(sb, 48, NULL);
    const unsigned char *pp = vcek->ec;
    int ok = 0;
    if (k && s && r && ss && o2i_ECPublicKey(&k, &pp, 97) && ECDSA_SIG_set0(s, r, ss)) {
        r = ss = NULL;
        ok = ECDSA_do_verify(h, 48, s, k) == 1;
    }
    BN_free(r);
    BN_free(ss);
    ECDSA_SIG_free(s);
    EC_KEY_free(k);
    ERR_clear_error();
    return ok;
}

int tb_snp_to_der(const uint8_t *p, size_t n, int crl, uint8_t **der_out, size_t *len, tb_err *err)
{
    *der_out = NULL;
    *len = 0;
    if (n > 0 && p[0] == 0x30) {
        *der_out = malloc(n);
        if (!*der_out)
            return tb_errf(err, "out of memory");
        memcpy(*der_out, p, n);
        *len = n;
        return 0;
    }
    const char *want = crl ? PEM_STRING_X509_CRL : PEM_STRING_X509;
    BIO *b = BIO_new_mem_buf(p, (int)n);
    int rc = -1;
    while (b && rc < 0) {
        char *name = NULL, *header = NULL;
        unsigned char *data = NULL;
        long dl = 0;
        if (!PEM_read_bio(b, &name, &header, &data, &dl))
            break;
        if (!strcmp(name, want) && dl > 0 && (*der_out = malloc((size_t)dl))) {
            memcpy(*der_out, data, (size_t)dl);
            *len = (size_t)dl;
            rc = 0;
        }
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(data);
    }
    BIO_free(b);
    ERR_clear_error();
    if (rc < 0)
        return tb_errf(err, "neither DER nor PEM (%s)", want);
    return 0;
}
