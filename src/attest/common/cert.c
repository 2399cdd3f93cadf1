/* attest/common/cert: a lean, strict X.509 / CRL reader for the DCAP verifier's hot path.
 *
 * Why: OpenSSL 3.0's d2i_X509 decodes the public key through its provider decoders and
 * costs ~100 us per certificate -- more than the ECDSA check it is parsed for. The
 * verifier needs only: the signed bytes (tbsCertificate / tbsCertList), the
 * signature, issuer and subject names (compared as DER), the serial number, the
 * validity times, the P-256 public key, basicConstraints and the SGX extension.
 * This file extracts exactly those with the module's one DER walker (der.c: strict
 * DER, no trailing bytes anywhere) and rejects everything that is not
 * ECDSA-with-SHA256 over P-256 (all DCAP certificates and CRLs are). Signatures are
 * checked with OpenSSL's ECDSA (SHA-256 + P-256 verify).
 * The structure of a certificate up to its key (tb_attest_cert_frame_read), the signed
 * envelope of a certificate or CRL (tb_attest_signed_read) and a whole CRL
 * (tb_attest_crl_read: the one CRL reader, given its signature algorithm) are read
 * here once for both the PCK and the AMD (snp_x509.c) readers; each checks its own
 * algorithms, keys and extensions.
 * Invariant: a parsed tb_attest_cert's pointers point into the DER it was parsed from,
 * which the caller keeps alive; every length was checked against its container. */
#define OPENSSL_SUPPRESS_DEPRECATED /* EC_KEY/ECDSA_do_verify: no provider fetch per call */
#include "attest/internal.h"

#include <string.h>
#include <time.h>

#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/sha.h>

typedef tb_attest_der der;

static const uint8_t OID_ECDSA_SHA256[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02};
static const uint8_t OID_EC_PUBKEY[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
static const uint8_t OID_P256[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
static const uint8_t OID_BASIC_CONSTRAINTS[] = {0x55, 0x1d, 0x13};
static const uint8_t OID_SGX_EXT[] = {0x2a, 0x86, 0x48, 0x86, 0xf8, 0x4d, 0x01, 0x0d, 0x01};
static const uint8_t OID_CN[] = {0x55, 0x04, 0x03};

static int oid_is(der o, const uint8_t *oid, size_t n)
{
    return o.n == n && !memcmp(o.p, oid, n);
}

/* AlgorithmIdentifier must be ecdsa-with-SHA256 (parameters absent). */
static int alg_ecdsa_sha256(der alg)
{
    der oid;
    return tb_attest_der_expect(&alg, 0x06, &oid) == 0 &&
           oid_is(oid, OID_ECDSA_SHA256, sizeof OID_ECDSA_SHA256) && alg.n == 0;
}

static int two_digits(const uint8_t *p)
{
    if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
        return -1;
    return (p[0] - '0') * 10 + (p[1] - '0');
}

/* UTCTime (YYMMDDHHMMSSZ) or GeneralizedTime (YYYYMMDDHHMMSSZ). */
static int parse_time(int tag, der t, int64_t *out)
{
    int year;
    const uint8_t *p = t.p;
    if (tag == 0x17 && t.n == 13) {
        int yy = two_digits(p);
        if (yy < 0)
            return -1;
        year = yy < 50 ? 2000 + yy : 1900 + yy;
        p += 2;
    } else if (tag == 0x18 && t.n == 15) {
        int a = two_digits(p), b = two_digits(p + 2);
        if (a < 0 || b < 0)
            return -1;
        year = a * 100 + b;
        p += 4;
    } else {
        return -1;
    }
    int mo = two_digits(p), d = two_digits(p + 2), h = two_digits(p + 4), mi = two_digits(p + 6),
        s = two_digits(p + 8);
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 ||
        s > 60 || p[10] != 'Z')
        return -1;
    struct tm tm = {.tm_year = year - 1900,
                    .tm_mon = mo - 1,
                    .tm_mday = d,
                    .tm_hour = h,
                    .tm_min = mi,
                    .tm_sec = s};
    *out = (int64_t)timegm(&tm);
    return 0;
}

/* ECDSA-Sig-Value (DER SEQUENCE of two minimal, positive INTEGERs) -> r || s. */
static int sig_to_raw(der bits, uint8_t out[64])
{
    if (bits.n < 1 || bits.p[0] != 0) /* BIT STRING: no unused bits */
        return -1;
    der s = {bits.p + 1, bits.n - 1}, seq;
    if (tb_attest_der_expect(&s, 0x30, &seq) < 0 || s.n != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        der v;
        if (tb_attest_der_expect(&seq, 0x02, &v) < 0 || tb_attest_der_int(v) < 0 || v.p[0] & 0x80)
            return -1;
        if (v.n > 1 && v.p[0] == 0) { /* the sign byte of a value with its top bit set */
            v.p++;
            v.n--;
        }
        if (v.n > 32)
            return -1;
        memset(out + 32 * i, 0, 32);
        memcpy(out + 32 * i + 32 - v.n, v.p, v.n);
    }
    return seq.n == 0 ? 0 : -1;
}

static int parse_spki(der spki, uint8_t pub[65])
{
    der alg, oid, curve, bits;
    if (tb_attest_der_expect(&spki, 0x30, &alg) < 0 ||
        tb_attest_der_expect(&spki, 0x03, &bits) < 0 || spki.n != 0)
        return -1;
    if (tb_attest_der_expect(&alg, 0x06, &oid) < 0 ||
        !oid_is(oid, OID_EC_PUBKEY, sizeof OID_EC_PUBKEY) ||
        tb_attest_der_expect(&alg, 0x06, &curve) < 0 || !oid_is(curve, OID_P256, sizeof OID_P256) ||
        alg.n != 0)
        return -1;
    if (bits.n != 66 || bits.p[0] != 0 || bits.p[1] != 0x04)
        return -1;
    memcpy(pub, bits.p + 1, 65);
    return 0;
}

/* BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLen INTEGER OPTIONAL } */
static int parse_basic_constraints(der val, tb_attest_cert *c)
{
    der bc, x;
    int tag;
    if (tb_attest_der_expect(&val, 0x30, &bc) < 0 || val.n != 0)
        return -1;
    if (bc.n && bc.p[0] == 0x01) {
        if (tb_attest_der_next(&bc, NULL, &x, NULL) < 0 || tb_attest_der_bool(x, &c->is_ca) < 0)
            return -1;
    }
    if (bc.n &&
        (tb_attest_der_next(&bc, &tag, &x, NULL) < 0 || tag != 0x02 || tb_attest_der_int(x) < 0))
        return -1;
    return bc.n == 0 ? 0 : -1;
}

static int parse_extensions(der exts, tb_attest_cert *c)
{
    der seq;
    if (tb_attest_der_expect(&exts, 0x30, &seq) < 0 || exts.n != 0)
        return -1;
    while (seq.n) {
        der ext, oid, val;
        int tag, critical;
        if (tb_attest_der_expect(&seq, 0x30, &ext) < 0 ||
            tb_attest_der_expect(&ext, 0x06, &oid) < 0)
            return -1;
        if (tb_attest_der_next(&ext, &tag, &val, NULL) < 0)
            return -1;
        if (tag == 0x01 && (tb_attest_der_bool(val, &critical) < 0 || /* critical BOOLEAN */
                            tb_attest_der_next(&ext, &tag, &val, NULL) < 0))
            return -1;
        if (tag != 0x04 || ext.n != 0)
            return -1;
        if (oid_is(oid, OID_BASIC_CONSTRAINTS, sizeof OID_BASIC_CONSTRAINTS)) {
            if (parse_basic_constraints(val, c) < 0)
                return -1;
        } else if (oid_is(oid, OID_SGX_EXT, sizeof OID_SGX_EXT)) {
            c->sgx_ext = val.p;
            c->sgx_ext_len = val.n;
        }
    }
    return 0;
}

int tb_attest_signed_read(const uint8_t *p, size_t n, const char *what, der *tbs, der *alg,
                          der *bits, tb_err *err)
{
    der d = {p, n}, body;
    int tag;
    if (tb_attest_der_expect(&d, 0x30, &body) < 0 || d.n != 0)
        return tb_errf(err, "not a DER %s", what);
    if (tb_attest_der_next(&body, &tag, NULL, tbs) < 0 || tag != 0x30 ||
        tb_attest_der_expect(&body, 0x30, alg) < 0 || tb_attest_der_expect(&body, 0x03, bits) < 0 ||
        body.n != 0)
        return tb_errf(err, "malformed %s", what);
    return 0;
}

int tb_attest_cert_frame_read(const uint8_t *p, size_t n, tb_attest_cert_frame *f, tb_err *err)
{
    memset(f, 0, sizeof *f);
    if (tb_attest_signed_read(p, n, "certificate", &f->tbs, &f->alg, &f->bits, err) < 0)
        return -1;
    der tw = f->tbs, tbs, validity;
    int tag, t1, t2;
    tb_attest_der_expect(&tw, 0x30, &tbs); /* cannot fail: read above */
    if (tbs.n && tbs.p[0] == 0xa0) {       /* [0] EXPLICIT version */
        der ver, x;
        if (tb_attest_der_next(&tbs, NULL, &ver, NULL) < 0 ||
            tb_attest_der_expect(&ver, 0x02, &x) < 0 || tb_attest_der_int(x) < 0 || ver.n != 0)
            return tb_errf(err, "malformed certificate version");
    }
    if (tb_attest_der_expect(&tbs, 0x02, &f->serial) < 0 || tb_attest_der_int(f->serial) < 0 ||
        f->serial.n > 21)
        return tb_errf(err, "malformed serial number");
    if (tb_attest_der_expect(&tbs, 0x30, &f->inner_alg) < 0 ||
        tb_attest_der_next(&tbs, &tag, NULL, &f->issuer) < 0 || tag != 0x30 ||
        tb_attest_der_expect(&tbs, 0x30, &validity) < 0 ||
        tb_attest_der_next(&tbs, &tag, NULL, &f->subject) < 0 || tag != 0x30 ||
        tb_attest_der_next(&tbs, &tag, NULL, &f->spki) < 0 || tag != 0x30)
        return tb_errf(err, "malformed certificate body");
    der nb, na;
    if (tb_attest_der_next(&validity, &t1, &nb, NULL) < 0 ||
        tb_attest_der_next(&validity, &t2, &na, NULL) < 0 || validity.n != 0 ||
        parse_time(t1, nb, &f->not_before) < 0 || parse_time(t2, na, &f->not_after) < 0)
        return tb_errf(err, "malformed certificate validity");
    f->rest = tbs;
    return 0;
}

tb_attest_cert_id tb_attest_cert_frame_id(const tb_attest_cert_frame *f)
{
    return (tb_attest_cert_id){.tbs = f->tbs.p,
                               .tbs_len = f->tbs.n,
                               .serial = f->serial.p,
                               .serial_len = f->serial.n,
                               .issuer = f->issuer.p,
                               .issuer_len = f->issuer.n,
                               .subject = f->subject.p,
                               .subject_len = f->subject.n,
                               .not_before = f->not_before,
                               .not_after = f->not_after};
}

int tb_attest_cert_parse(const uint8_t *p, size_t n, tb_attest_cert *c, tb_err *err)
{
    memset(c, 0, sizeof *c);
    tb_attest_cert_frame f;
    if (tb_attest_cert_frame_read(p, n, &f, err) < 0)
        return -1;
    if (!alg_ecdsa_sha256(f.alg) || sig_to_raw(f.bits, c->sig) < 0)
        return tb_errf(err, "certificate is not signed with ECDSA-SHA256");
    if (!alg_ecdsa_sha256(f.inner_alg))
        return tb_errf(err, "inner signature algorithm is not ECDSA-SHA256");
    c->id = tb_attest_cert_frame_id(&f);
    der spki;
    tb_attest_der_expect(&f.spki, 0x30, &spki); /* cannot fail: read as a SEQUENCE */
    if (parse_spki(spki, c->pub) < 0)
        return tb_errf(err, "certificate key is not a P-256 EC key");
    der tbs = f.rest;
    int tag;
    while (tbs.n) { /* [1] issuerUID, [2] subjectUID, [3] extensions */
        der x;
        if (tb_attest_der_next(&tbs, &tag, &x, NULL) < 0)
            return tb_errf(err, "malformed certificate extensions");
        if (tag == 0xa3 && parse_extensions(x, c) < 0)
            return tb_errf(err, "malformed certificate extensions");
    }
    return 0;
}

int tb_attest_name_cn_contains(const uint8_t *name_der, size_t n, const char *needle)
{
    der name = {name_der, n}, rdns;
    if (tb_attest_der_expect(&name, 0x30, &rdns) < 0)
        return 0;
    while (rdns.n) {
        der set, atv, oid, val;
        int tag;
        if (tb_attest_der_expect(&rdns, 0x31, &set) < 0)
            return 0;
        while (set.n) {
            if (tb_attest_der_expect(&set, 0x30, &atv) < 0 ||
                tb_attest_der_expect(&atv, 0x06, &oid) < 0 ||
                tb_attest_der_next(&atv, &tag, &val, NULL) < 0)
                return 0;
            if (oid_is(oid, OID_CN, sizeof OID_CN) && memmem(val.p, val.n, needle, strlen(needle)))
                return 1;
        }
    }
    return 0;
}

void *tb_attest_p256_group_new(void)
{
    return EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
}

void *tb_attest_p256_group_dup(const void *group)
{
    return EC_GROUP_dup(group); /* ~7% of EC_GROUP_new_by_curve_name's cost */
}

void tb_attest_p256_group_free(void *group)
{
    EC_GROUP_free(group);
}

void *tb_attest_p256_ctx_from(const void *group)
{
    EC_KEY *k = EC_KEY_new();
    if (k && !EC_KEY_set_group(k, group)) {
        EC_KEY_free(k);
        k = NULL;
    }
    return k;
}

void tb_attest_p256_ctx_free(void *ctx)
{
    EC_KEY_free(ctx);
}

int tb_attest_p256_verify_ctx(void *ctx, const uint8_t pub[65], const void *data, size_t n,
                              const uint8_t sig[64])
{
    EC_KEY *k = ctx;
    uint8_t h[32];
    SHA256_CTX sc; /* the direct SHA-256: SHA256() fetches the digest and allocates a
                    * context per call (~15% of the hashing here) */
    SHA256_Init(&sc);
    SHA256_Update(&sc, data, n);
    SHA256_Final(h, &sc);
    const unsigned char *pp = pub;
    ECDSA_SIG *s = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, 32, NULL), *ss = BN_bin2bn(sig + 32, 32, NULL);
    int ok = 0;
    if (k && s && r && ss && o2i_ECPublicKey(&k, &pp, 65) && ECDSA_SIG_set0(s, r, ss)) {
        r = ss = NULL;
        ok = ECDSA_do_verify(h, 32, s, k) == 1;
    }
    BN_free(r);
    BN_free(ss);
    ECDSA_SIG_free(s);
    ERR_clear_error();
    return ok;
}

/* The rest of a TBSCertList after its inner signature algorithm (RFC 5280 5.1.2), the
   same for the PCK CRLs and AMD's: issuer, thisUpdate, nextUpdate (required),
   revokedCertificates (every entry's shape checked; *revoked points at their SEQUENCE
   content, NULL when there are none) and crlExtensions; nothing may follow. */
static int crl_rest(tb_attest_der tbs, const uint8_t **issuer_p, size_t *issuer_len,
                    int64_t *this_update, int64_t *next_update, const uint8_t **revoked,
                    size_t *revoked_len, tb_err *err)
{
    der issuer, tu, nu;
    int tag, t1, t2;
    if (tb_attest_der_next(&tbs, &tag, NULL, &issuer) < 0 || tag != 0x30 ||
        tb_attest_der_next(&tbs, &t1, &tu, NULL) < 0 ||
        tb_attest_der_next(&tbs, &t2, &nu, NULL) < 0 || parse_time(t1, tu, this_update) < 0 ||
        parse_time(t2, nu, next_update) < 0)
        return tb_errf(err, "malformed CRL issuer or update times (nextUpdate is required)");
    *issuer_p = issuer.p;
    *issuer_len = issuer.n;
    if (tbs.n && tbs.p[0] == 0x30) { /* revokedCertificates: check every entry's shape */
        der list, walk;
        if (tb_attest_der_expect(&tbs, 0x30, &list) < 0)
            return tb_errf(err, "malformed CRL entries");
        walk = list;
        while (walk.n) {
            der entry, serial, when;
            if (tb_attest_der_expect(&walk, 0x30, &entry) < 0 ||
                tb_attest_der_expect(&entry, 0x02, &serial) < 0 || tb_attest_der_int(serial) < 0 ||
                tb_attest_der_next(&entry, &tag, &when, NULL) < 0 || (tag != 0x17 && tag != 0x18))
                return tb_errf(err, "malformed CRL entry");
            if (entry.n && (tb_attest_der_expect(&entry, 0x30, NULL) < 0 || entry.n != 0))
                return tb_errf(err, "malformed CRL entry extensions");
        }
        *revoked = list.p;
        *revoked_len = list.n;
    }
    if (tbs.n && (tbs.p[0] != 0xa0 || tb_attest_der_next(&tbs, NULL, NULL, NULL) < 0 || tbs.n != 0))
        return tb_errf(err, "malformed CRL extensions");
    return 0;
}

static int crl_lists(const uint8_t *revoked, size_t revoked_len, const uint8_t *serial, size_t n)
{
    der walk = {revoked, revoked_len};
    while (walk.n) {
        der entry, s;
        if (tb_attest_der_expect(&walk, 0x30, &entry) < 0 ||
            tb_attest_der_expect(&entry, 0x02, &s) < 0)
            return 1; /* cannot happen after crl_rest; fail closed */
        if (s.n == n && !memcmp(s.p, serial, n))
            return 1;
    }
    return 0;
}

int tb_attest_crl_read(const uint8_t *p, size_t n, const tb_attest_crl_alg *a, tb_attest_crl *c,
                       tb_err *err)
{
    memset(c, 0, sizeof *c);
    der tbs_whole, alg, bits, tbs, t;
    if (tb_attest_signed_read(p, n, "CRL", &tbs_whole, &alg, &bits, err) < 0)
        return -1;
    if (!a->alg_ok(alg) || a->take_sig(bits, c) < 0)
        return tb_errf(err, "CRL is not signed with %s", a->signed_name);
    c->tbs = tbs_whole.p;
    c->tbs_len = tbs_whole.n;
    der tw = tbs_whole, ver;
    tb_attest_der_expect(&tw, 0x30, &tbs); /* cannot fail: read above */
    if (tbs.n && tbs.p[0] == 0x02 &&
        (tb_attest_der_next(&tbs, NULL, &ver, NULL) < 0 || tb_attest_der_int(ver) < 0))
        return tb_errf(err, "malformed CRL version");
    if (tb_attest_der_expect(&tbs, 0x30, &t) < 0 || !a->alg_ok(t))
        return tb_errf(err, "CRL inner signature algorithm is not %s", a->inner_name);
    return crl_rest(tbs, &c->issuer, &c->issuer_len, &c->this_update, &c->next_update, &c->revoked,
                    &c->revoked_len, err);
}

static int ecdsa_take_sig(der bits, tb_attest_crl *c)
{
    return sig_to_raw(bits, c->sig);
}

static const tb_attest_crl_alg crl_ecdsa = {alg_ecdsa_sha256, ecdsa_take_sig, "ECDSA-SHA256",
                                            "ECDSA-SHA256"};

int tb_attest_crl_parse(const uint8_t *p, size_t n, tb_attest_crl *c, tb_err *err)
{
    return tb_attest_crl_read(p, n, &crl_ecdsa, c, err);
}

int tb_attest_crl_is_revoked(const tb_attest_crl *c, const uint8_t *serial, size_t n)
{
    return crl_lists(c->revoked, c->revoked_len, serial, n);
}
