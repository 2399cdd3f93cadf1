/* attest/tdx/provider_sim: SIMULATED TDX quotes, for machines without TDX.
 *
 * A simulated quote has the real v4 layout and passes every DCAP check, but it is
 * signed by a local PKI that teebench generates, never by Intel: it verifies with
 * the simulated root (`sim-root.pem`) and never with the Intel SGX Root CA. Every
 * certificate subject says "SIMULATED", the quote header's user data says
 * "teebench SIMULATED", and the collateral's advisory IDs start with "SIMULATED".
 *
 * State directory (tb_attest_sim_dir): root, PCK CA, PCK (with the SGX extension), TCB
 * signing certificates and their P-256 keys, plus the attestation key. It is created
 * on first use by attest/common/sim_state (a temporary directory renamed into place, so
 * two processes starting at once agree on one PKI). Collateral (tb_tdx_sim_collateral) is
 * made fresh on demand: valid from now - 1 h to now + 30 days.
 *
 * The simulated platform: FMSPC feeb00000000, PCE-ID 0000, SGX TCB components
 * {3,3,2,2,4,1,0,5,0...}, PCESVN 13, TEE_TCB_SVN {5,1,3,0...} (module TDX_01 SVN 5),
 * QE ISVSVN 4. The collateral lists it as UpToDate. */
#include "attest/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "base/bytes.h"
#include "base/buf.h"
#include "base/x509.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/paths.h"

static const uint8_t SIM_FMSPC[6] = {0xfe, 0xeb, 0x00, 0x00, 0x00, 0x00};
static const uint8_t SIM_SGX[16] = {3, 3, 2, 2, 4, 1, 0, 5};
static const uint16_t SIM_PCESVN = 13;
static const uint8_t SIM_TEE_TCB_SVN[16] = {5, 1, 3};
static const uint16_t SIM_QE_ISVSVN = 4;
static const uint8_t INTEL_QE_VENDOR[16] = {0x93, 0x9a, 0x72, 0x33, 0xf7, 0x9c, 0x4c, 0xa9,
                                            0x94, 0x0a, 0x0d, 0xb3, 0x95, 0x7f, 0x06, 0x07};

typedef struct sim {
    EVP_PKEY *root_k, *ca_k, *pck_k, *tcb_k, *ak;
    X509 *root, *ca, *pck, *tcb;
} sim;

static void sim_clear(sim *s)
{
    EVP_PKEY_free(s->root_k);
    EVP_PKEY_free(s->ca_k);
    EVP_PKEY_free(s->pck_k);
    EVP_PKEY_free(s->tcb_k);
    EVP_PKEY_free(s->ak);
    X509_free(s->root);
    X509_free(s->ca);
    X509_free(s->pck);
    X509_free(s->tcb);
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- DER bits */

static int der_tlv(tb_buf *out, uint8_t tag, const void *p, size_t n)
{
    uint8_t h[6];
    size_t hl = 0;
    h[hl++] = tag;
    if (n < 128) {
        h[hl++] = (uint8_t)n;
    } else if (n < 256) {
        h[hl++] = 0x81;
        h[hl++] = (uint8_t)n;
    } else {
        h[hl++] = 0x82;
        h[hl++] = (uint8_t)(n >> 8);
        h[hl++] = (uint8_t)n;
    }
    return tb_buf_append(out, h, hl) < 0 || tb_buf_append(out, p, n) < 0 ? -1 : 0;
}

static const uint8_t SGX_OID[] = {0x2a, 0x86, 0x48, 0x86, 0xf8, 0x4d, 0x01, 0x0d, 0x01};

/* SEQUENCE { OID SGX.arc1[.arc2], <value TLV> } appended to out. */
static int der_entry(tb_buf *out, int arc1, int arc2, const tb_buf *value)
{
    uint8_t oid[16];
    size_t on = sizeof SGX_OID;
    memcpy(oid, SGX_OID, on);
    oid[on++] = (uint8_t)arc1;
    if (arc2)
        oid[on++] = (uint8_t)arc2;
    tb_buf seq = {0};
    int rc = der_tlv(&seq, 0x06, oid, on) < 0 || tb_buf_append(&seq, value->p, value->len) < 0 ||
                     der_tlv(out, 0x30, seq.p, seq.len) < 0
                 ? -1
                 : 0;
    tb_buf_clear(&seq);
    return rc;
}

static int der_int(tb_buf *out, unsigned v)
{
    uint8_t b[5];
    size_t n = 0;
    for (int shift = 24; shift >= 0; shift -= 8)
        if (n || (v >> shift) & 0xff || shift == 0)
            b[n++] = (uint8_t)(v >> shift);
    if (b[0] & 0x80) { /* keep it positive: prepend a zero byte */
        memmove(b + 1, b, n++);
        b[0] = 0;
    }
    return der_tlv(out, 0x02, b, n);
}

static int sgx_extension_der(tb_buf *out)
{
    tb_buf tcb = {0}, v = {0}, all = {0};
    uint8_t ppid[16], cpusvn[16];
    memset(ppid, 0x5e, sizeof ppid);
    memcpy(cpusvn, SIM_SGX, 16);
    int rc = -1;
    for (int i = 1; i <= 18; i++) {
        tb_buf_reset(&v);
        if (i <= 16   ? der_int(&v, SIM_SGX[i - 1])
            : i == 17 ? der_int(&v, SIM_PCESVN)
                      : der_tlv(&v, 0x04, cpusvn, 16))
            goto out;
        if (der_entry(&tcb, 2, i, &v) < 0)
            goto out;
    }
    tb_buf_reset(&v);
    if (der_tlv(&v, 0x04, ppid, 16) < 0 || der_entry(&all, 1, 0, &v) < 0)
        goto out;
    tb_buf_reset(&v);
    if (der_tlv(&v, 0x30, tcb.p, tcb.len) < 0 || der_entry(&all, 2, 0, &v) < 0)
        goto out;
    tb_buf_reset(&v);
    if (der_tlv(&v, 0x04, "\0\0", 2) < 0 || der_entry(&all, 3, 0, &v) < 0)
        goto out;
    tb_buf_reset(&v);
    if (der_tlv(&v, 0x04, SIM_FMSPC, 6) < 0 || der_entry(&all, 4, 0, &v) < 0)
        goto out;
    tb_buf_reset(&v);
    if (der_tlv(&v, 0x0a, "\0", 1) < 0 || der_entry(&all, 5, 0, &v) < 0)
        goto out;
    rc = der_tlv(out, 0x30, all.p, all.len);
out:
    tb_buf_clear(&tcb);
    tb_buf_clear(&v);
    tb_buf_clear(&all);
    return rc;
}

/* ------------------------------------------------------------ PKI creation */

/* A certificate of the SIMULATED TDX PKI (base/x509): P-256, ECDSA-SHA256, a random
   serial, valid from a day before now for 20 years; sgx_ext: the PCK's SGX extension. */
static X509 *make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key, int ca,
                       int64_t now, int sgx_ext)
{
    const char *const name[] = {"CN", cn, "O", "teebench SIMULATED TDX", NULL};
    const tb_x509_ext ext[] = {
        {NID_basic_constraints, ca ? "critical,CA:TRUE" : "critical,CA:FALSE"},
        {NID_key_usage,
         ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature,nonRepudiation"},
        {NID_subject_key_identifier, "hash"},
        {NID_authority_key_identifier, "keyid:always"},
    };
    tb_buf d = {0};
    if (sgx_ext && sgx_extension_der(&d) < 0) {
        tb_buf_clear(&d);
        return NULL;
    }
    const tb_x509_raw_ext raw = {"1.2.840.113741.1.13.1", d.p, d.len};
    tb_x509_spec spec = tb_attest_sim_cert_spec(name, key, issuer, issuer_key, now);
    spec.ext = ext;
    spec.n_ext = sizeof ext / sizeof ext[0];
    spec.raw = &raw;
    spec.n_raw = sgx_ext ? 1 : 0;
    tb_err e;
    X509 *x = tb_x509_make(&spec, &e);
    tb_buf_clear(&d);
    return x;
}

static int sim_generate(sim *s, int64_t now, tb_err *err)
{
    s->root_k = EVP_EC_gen("P-256");
    s->ca_k = EVP_EC_gen("P-256");
    s->pck_k = EVP_EC_gen("P-256");
    s->tcb_k = EVP_EC_gen("P-256");
    s->ak = EVP_EC_gen("P-256");
    if (!s->root_k || !s->ca_k || !s->pck_k || !s->tcb_k || !s->ak)
        return tb_err_ssl(err, "generating simulated keys");
    s->root = make_cert("teebench SIMULATED SGX Root CA", s->root_k, NULL, s->root_k, 1, now, 0);
    s->ca = s->root ? make_cert("teebench SIMULATED SGX PCK Processor CA", s->ca_k, s->root,
                                s->root_k, 1, now, 0)
                    : NULL;
    s->pck = s->ca ? make_cert("teebench SIMULATED SGX PCK Certificate", s->pck_k, s->ca, s->ca_k,
                               0, now, 1)
                   : NULL;
    s->tcb = s->root ? make_cert("teebench SIMULATED SGX TCB Signing", s->tcb_k, s->root, s->root_k,
                                 0, now, 0)
                     : NULL;
    if (!s->pck || !s->tcb)
        return tb_err_ssl(err, "creating simulated certificates");
    return 0;
}

/* The state's files, written into the new state folder dfd (tmp: its path) -- a
   tb_attest_sim_state_make writer. */
static int sim_generate_into(int dfd, const char *tmp, void *ctx, tb_err *err)
{
    (void)ctx;
    sim s = {0};
    int rc = sim_generate(&s, (int64_t)(tb_wall_ns() / 1000000000ull), err) < 0 ||
                     tb_x509_write_at(dfd, tmp, "sim-root.pem", s.root, NULL, 0, err) < 0 ||
                     tb_x509_write_at(dfd, tmp, "root.key", NULL, s.root_k, 0, err) < 0 ||
                     tb_x509_write_at(dfd, tmp, "pck-ca.pem", s.ca, NULL, 0, err) < 0 ||
                     tb_x509_write_at(dfd, tmp, "pck-ca.key", NULL, s.ca_k, 0, err) < 0 ||
                     tb_x509_write_at(dfd, tmp, "pck.pem", s.pck, NULL, 0, err) < 0 ||
                     tb_x509_write_at(dfd, tmp, "pck.key", NULL, s.pck_k, 0, err) < 0 ||
                     tb_x509_write_at(dfd, tmp, "tcb-signing.pem", s.tcb, NULL, 0, err) < 0 ||
                     tb_x509_write_at(dfd, tmp, "tcb-signing.key", NULL, s.tcb_k, 0, err) < 0 ||
                     tb_x509_write_at(dfd, tmp, "attestation.key", NULL, s.ak, 0, err) < 0
                 ? -1
                 : 0;
    sim_clear(&s);
    return rc;
}

/* name in dir: a certificate (x) or a key (k). */
static int read_pem(const char *dir, const char *name, X509 **x, EVP_PKEY **k, tb_err *err)
{
    char path[4200];
    if (tb_path_join(path, sizeof path, dir, name, err) < 0)
        return -1;
    return tb_x509_read(path, x, k, err);
}

static int sim_read(sim *s, const char *dir, tb_err *err)
{
    if (read_pem(dir, "sim-root.pem", &s->root, NULL, err) < 0 ||
        read_pem(dir, "root.key", NULL, &s->root_k, err) < 0 ||
        read_pem(dir, "pck-ca.pem", &s->ca, NULL, err) < 0 ||
        read_pem(dir, "pck-ca.key", NULL, &s->ca_k, err) < 0 ||
        read_pem(dir, "pck.pem", &s->pck, NULL, err) < 0 ||
        read_pem(dir, "pck.key", NULL, &s->pck_k, err) < 0 ||
        read_pem(dir, "tcb-signing.pem", &s->tcb, NULL, err) < 0 ||
        read_pem(dir, "tcb-signing.key", NULL, &s->tcb_k, err) < 0 ||
        read_pem(dir, "attestation.key", NULL, &s->ak, err) < 0) {
        tb_err_wrap(err, "simulated-TDX state");
        sim_clear(s);
        return -1;
    }
    return 0;
}

/* Loads the sim state, creating it (atomically) when the directory does not exist. */
static int sim_open(const char *dir, sim *s, tb_err *err)
{
    static const char note[] = "teebench SIMULATED TDX attestation state: a local PKI, not "
                               "Intel's. Quotes made with it verify only with sim-root.pem.\n";
    memset(s, 0, sizeof *s);
    if (tb_attest_sim_state_make(dir, "sim-root.pem", note, sim_generate_into, NULL, err) < 0)
        return -1;
    return sim_read(s, dir, err);
}

/* The cache is two files in dir: collateral-cache.json (dcap-qvl JSON) and
 * collateral-cache.made (the `now` it was made for, decimal). Either may come from a
 * different writer than the other: any complete pair is valid collateral of this PKI. */
#define SIM_CACHE_DAYS 7

static int sim_cache_read(const char *dir, int64_t now, tb_tdx_collateral *out,
                          tb_attest_root **root)
{
    char jp[4200], mp[4200], rp[4200];
    tb_buf b = {0};
    tb_err e;
    long long made = 0;
    char *end = NULL;
    int ok = tb_path_join(mp, sizeof mp, dir, "collateral-cache.made", &e) == 0 &&
             tb_path_join(jp, sizeof jp, dir, "collateral-cache.json", &e) == 0 &&
             tb_file_read(mp, 64, &b, &e) == 0 && b.len > 0; /* p[len] is NUL */
    if (ok)
        made = strtoll((const char *)b.p, &end, 10);
    ok = ok && end != (char *)b.p && made <= now && now < made + SIM_CACHE_DAYS * 86400LL;
    tb_buf_clear(&b);
    ok = ok && tb_file_read(jp, 16u << 20, &b, &e) == 0 &&
         tb_tdx_collateral_parse_json((const char *)b.p, b.len, out, &e) == 0;
    tb_buf_clear(&b);
    /* the root's file as is (the PKI exists: it made the cache), without opening the keys */
    if (ok && (tb_path_join(rp, sizeof rp, dir, "sim-root.pem", &e) < 0 ||
               tb_attest_root_load(rp, root, &e) < 0)) {
        tb_tdx_collateral_clear(out);
        ok = 0;
    }
    if (ok)
        (*root)->simulated = 1;
    return ok ? 0 : -1;
}

int tb_tdx_sim_collateral_cached(const char *dir, int64_t now, tb_tdx_collateral *out,
                                 tb_attest_root **root, tb_err *err)
{
    memset(out, 0, sizeof *out);
    *root = NULL;
    if (sim_cache_read(dir, now, out, root) == 0)
        return 0;
    if (tb_tdx_sim_collateral(dir, now, 0, out, root, err) < 0)
        return -1;
    /* kept for the next verifier; a folder we cannot write only costs the next one time */
    char jp[4200], mp[4200], made[32], *js = NULL;
    tb_err e;
    int n = snprintf(made, sizeof made, "%lld\n", (long long)now);
    if (tb_tdx_collateral_to_json(out, &js, &e) == 0 &&
        tb_path_join(jp, sizeof jp, dir, "collateral-cache.json", &e) == 0 &&
        tb_path_join(mp, sizeof mp, dir, "collateral-cache.made", &e) == 0 &&
        tb_file_write_atomic(jp, js, strlen(js), &e) == 0)
        tb_file_write_atomic(mp, made, (size_t)n, &e);
    free(js);
    return 0;
}

int tb_tdx_sim_root_path(const char *dir, char *out, size_t outlen, tb_err *err)
{
    sim s;
    if (sim_open(dir, &s, err) < 0)
        return -1;
    sim_clear(&s);
    if ((size_t)snprintf(out, outlen, "%s/sim-root.pem", dir) >= outlen)
        return tb_errf(err, "path too long");
    return 0;
}

/* ---------------------------------------------------------------- quotes */

static void digest(const EVP_MD *md, const char *label, uint8_t *out)
{
    unsigned n = 0;
    EVP_Digest(label, strlen(label), out, &n, md, NULL);
}

static int pem_of(X509 *x, tb_buf *out)
{
    return tb_x509_encode(x, NULL, 0, "a simulated certificate", out, NULL);
}

static int ak_xy(EVP_PKEY *k, uint8_t xy[64])
{
    uint8_t pt[65];
    size_t n = 0;
    if (EVP_PKEY_get_octet_string_param(k, "pub", pt, sizeof pt, &n) != 1 || n != 65 || pt[0] != 4)
        return -1;
    memcpy(xy, pt + 1, 64);
    return 0;
}

/* The quote header: version 4 or 5, ECDSA P-256 key, TDX, the QE's and PCE's SVNs, Intel's
   QE vendor ID and the SIMULATED marker as user data. */
static void quote_header(int v5, uint16_t qe_isvsvn, uint8_t hdr[TB_TDX_HEADER_LEN])
{
    memset(hdr, 0, TB_TDX_HEADER_LEN);
    tb_wr_le16(hdr, v5 ? 5 : 4);
    tb_wr_le16(hdr + 2, 2);
    tb_wr_le32(hdr + 4, TB_TDX_TEE_TYPE);
    tb_wr_le16(hdr + 8, qe_isvsvn);
    tb_wr_le16(hdr + 10, SIM_PCESVN);
    memcpy(hdr + 12, INTEL_QE_VENDOR, 16);
    memcpy(hdr + 28, TB_TDX_SIM_MARKER, TB_TDX_SIM_MARKER_LEN);
}

/* The TD report body (see tb_tdx_td_report for the offsets): the simulated module and
   TD measurements, report data rd, DEBUG when asked; td15: the TDX 1.5 fields. */
static void td_body(const tb_tdx_sim_quote_params *par, const uint8_t rd[64], int debug, int td15,
                    uint8_t body[TB_TDX_TD15_BODY_LEN])
{
    memset(body, 0, TB_TDX_TD15_BODY_LEN);
    memcpy(body, par->set_tee_tcb_svn ? par->tee_tcb_svn : SIM_TEE_TCB_SVN, 16);
    digest(EVP_sha384(), "teebench SIMULATED TDX module", body + 16);
    /* mrsignerseam (64..112) stays zero; seam attributes (112..120) zero unless asked. */
    memcpy(body + 112, par->seam_attributes, 8);
    if (td15)
        memcpy(body + 584, par->tee_tcb_svn2, 16);
    body[120] = debug ? 1 : 0; /* td_attributes bit 0: DEBUG */
    static const uint8_t xfam[8] = {0xe7, 0x02, 0x06, 0, 0, 0, 0, 0};
    memcpy(body + 128, xfam, 8);
    digest(EVP_sha384(), "teebench SIMULATED TD", body + 136); /* MRTD */
    for (int i = 0; i < 4; i++) {
        char label[48];
        snprintf(label, sizeof label, "teebench SIMULATED RTMR%d", i);
        digest(EVP_sha384(), label, body + 328 + 48 * i);
    }
    memcpy(body + 520, rd, 64);
}

/* The QE's part of the signature data: its report binding the attestation key ak and the
   authentication data auth, signed by the PCK key. */
typedef struct qe_part {
    uint8_t report[TB_TDX_SGX_REPORT_LEN], sig[64], ak[64], auth[32];
} qe_part;

static int qe_report(const sim *s, const tb_tdx_sim_quote_params *par, uint16_t qe_isvsvn,
                     EVP_PKEY *pck_key, qe_part *qe, tb_err *err)
{
    uint8_t *r = qe->report;
    memset(r, 0, sizeof qe->report);
    memcpy(r, SIM_SGX, 16);
    r[48] = 0x11;
    digest(EVP_sha256(), "teebench SIMULATED QE enclave", r + 64);
    digest(EVP_sha256(), "teebench SIMULATED QE signer", r + 128);
    tb_wr_le32(r + 16, par->qe_miscselect);
    tb_wr_le16(r + 256, 2);
    tb_wr_le16(r + 258, qe_isvsvn);
    for (int i = 0; i < 32; i++)
        qe->auth[i] = (uint8_t)i;
    if (ak_xy(s->ak, qe->ak) < 0)
        return tb_errf(err, "simulated attestation key is not P-256");
    uint8_t cat[96];
    memcpy(cat, qe->ak, 64);
    memcpy(cat + 64, qe->auth, 32);
    unsigned hl = 0;
    EVP_Digest(cat, sizeof cat, r + 320, &hl, EVP_sha256(), NULL);
    if (tb_attest_ecdsa_sign_raw(pck_key, r, sizeof qe->report, qe->sig) < 0)
        return tb_err_ssl(err, "signing the simulated QE report");
    return 0;
}

/* The PCK chain as PEM (the given one, else PCK, CA, root) with a trailing NUL, like real
   quotes. */
static int pck_chain(const sim *s, const tb_tdx_sim_quote_params *par, tb_buf *chain)
{
    return (par->pck_chain_pem
                ? tb_buf_append(chain, par->pck_chain_pem, strlen(par->pck_chain_pem)) < 0
                : (pem_of(s->pck, chain) < 0 || pem_of(s->ca, chain) < 0 ||
                   pem_of(s->root, chain) < 0)) ||
                   tb_buf_append(chain, "", 1) < 0
               ? -1
               : 0;
}

/* After header || body: the signature data -- its length, the quote's signature sig, the
   attestation key, then certification data type 6 (the QE report, its signature, the
   authentication data, and certification data type 5: the PCK chain). */
static int append_signature_data(tb_buf *q, const uint8_t sig[64], const qe_part *qe,
                                 const tb_buf *chain)
{
    size_t inner = TB_TDX_SGX_REPORT_LEN + 64 + 2 + sizeof qe->auth + 6 + chain->len;
    size_t sig_len = 64 + 64 + 6 + inner;
    uint8_t b4[4], b2[2];
    tb_wr_le32(b4, (uint32_t)sig_len);
    if (tb_buf_append(q, b4, 4) < 0 || tb_buf_append(q, sig, 64) < 0 ||
        tb_buf_append(q, qe->ak, 64) < 0)
        return -1;
    tb_wr_le16(b2, 6);
    tb_wr_le32(b4, (uint32_t)inner);
    if (tb_buf_append(q, b2, 2) < 0 || tb_buf_append(q, b4, 4) < 0 ||
        tb_buf_append(q, qe->report, sizeof qe->report) < 0 || tb_buf_append(q, qe->sig, 64) < 0)
        return -1;
    tb_wr_le16(b2, sizeof qe->auth);
    if (tb_buf_append(q, b2, 2) < 0 || tb_buf_append(q, qe->auth, sizeof qe->auth) < 0)
        return -1;
    tb_wr_le16(b2, 5);
    tb_wr_le32(b4, (uint32_t)chain->len);
    if (tb_buf_append(q, b2, 2) < 0 || tb_buf_append(q, b4, 4) < 0 ||
        tb_buf_append(q, chain->p, chain->len) < 0)
        return -1;
    return 0;
}

/* A quote into q: header, body (version 5: with its type and length), signed by the
   attestation key, then the signature data. */
static int build_quote(const sim *s, const uint8_t rd[64], int debug,
                       const tb_tdx_sim_quote_params *par, tb_buf *q, tb_err *err)
{
    static const tb_tdx_sim_quote_params defaults = {0};
    if (!par)
        par = &defaults;
    int v5 = par->version == 5, td15 = par->body_type == 3;
    if (td15 && !v5)
        return tb_errf(err, "a TDX 1.5 body (type 3) needs a version 5 quote");
    uint16_t qe_isvsvn = par->set_qe_isvsvn ? par->qe_isvsvn : SIM_QE_ISVSVN;
    uint8_t hdr[TB_TDX_HEADER_LEN], body[TB_TDX_TD15_BODY_LEN], sig[64];
    size_t body_len = td15 ? TB_TDX_TD15_BODY_LEN : TB_TDX_TD10_BODY_LEN;
    quote_header(v5, qe_isvsvn, hdr);
    td_body(par, rd, debug, td15, body);
    qe_part qe;
    if (qe_report(s, par, qe_isvsvn, par->pck_key ? par->pck_key : s->pck_k, &qe, err) < 0)
        return -1;
    tb_buf chain = {0};
    if (pck_chain(s, par, &chain) < 0) {
        tb_buf_clear(&chain);
        return tb_errf(err, "out of memory");
    }
    int rc = -1;
    uint8_t desc[6];
    tb_wr_le16(desc, td15 ? 3 : 2);
    tb_wr_le32(desc + 2, (uint32_t)body_len);
    if (tb_buf_append(q, hdr, sizeof hdr) < 0 || (v5 && tb_buf_append(q, desc, 6) < 0) ||
        tb_buf_append(q, body, body_len) < 0)
        goto out;
    if (tb_attest_ecdsa_sign_raw(s->ak, q->p, q->len, sig) < 0) {
        tb_err_ssl(err, "signing the simulated quote");
        goto out;
    }
    rc = append_signature_data(q, sig, &qe, &chain);
out:
    if (rc < 0 && err && !err->msg[0])
        tb_errf(err, "out of memory");
    tb_buf_clear(&chain);
    return rc;
}

/* A quote of the opened PKI s into *quote (malloc'd, caller frees). */
static int sim_quote(const sim *s, const uint8_t rd[64], int debug,
                     const tb_tdx_sim_quote_params *par, uint8_t **quote, size_t *len, tb_err *err)
{
    *quote = NULL;
    *len = 0;
    tb_buf q = {0};
    if (err)
        err->msg[0] = '\0';
    if (build_quote(s, rd, debug, par, &q, err) < 0) {
        tb_buf_clear(&q);
        return tb_err_wrap(err, "simulated quote");
    }
    *quote = q.p;
    *len = q.len;
    return 0;
}

/* A quote of the PKI in dir, opened for it. */
static int dir_quote(const char *dir, const uint8_t rd[64], int debug,
                     const tb_tdx_sim_quote_params *par, uint8_t **quote, size_t *len, tb_err *err)
{
    *quote = NULL;
    *len = 0;
    sim s;
    if (sim_open(dir, &s, err) < 0)
        return -1;
    int rc = sim_quote(&s, rd, debug, par, quote, len, err);
    sim_clear(&s);
    return rc;
}

int tb_tdx_sim_quote_custom(const char *dir, const uint8_t rd[64],
                            const tb_tdx_sim_quote_params *par, uint8_t **quote, size_t *len,
                            tb_err *err)
{
    return dir_quote(dir, rd, 0, par, quote, len, err);
}

int tb_tdx_sim_get_quote(const char *dir, const uint8_t rd[64], int debug, uint8_t **quote,
                         size_t *len, tb_err *err)
{
    return dir_quote(dir, rd, debug, NULL, quote, len, err);
}

/* tb_tdx_sim: an opened simulated provider (see attest.h). */
struct tb_tdx_sim {
    sim s;
};

int tb_tdx_sim_open(const char *dir, tb_tdx_sim **out, tb_err *err)
{
    *out = NULL;
    tb_tdx_sim *h = calloc(1, sizeof *h);
    if (!h)
        return tb_errf(err, "out of memory");
    if (sim_open(dir, &h->s, err) < 0) {
        free(h);
        return -1;
    }
    *out = h;
    return 0;
}

int tb_tdx_sim_quote(const tb_tdx_sim *h, const uint8_t rd[64], int debug, uint8_t **quote,
                     size_t *len, tb_err *err)
{
    return sim_quote(&h->s, rd, debug, NULL, quote, len, err);
}

void tb_tdx_sim_close(tb_tdx_sim *h)
{
    if (!h)
        return;
    sim_clear(&h->s);
    free(h);
}

/* ------------------------------------------------------------- collateral */

static char *chain_pem(X509 *a, X509 *b)
{
    tb_buf t = {0};
    if (pem_of(a, &t) < 0 || pem_of(b, &t) < 0) {
        tb_buf_clear(&t);
        return NULL;
    }
    return (char *)t.p;
}

static int sim_tcb_info(int64_t now, tb_buf *out)
{
    char iss[32], nxt[32], date[32], old[32], fm[13], sgx[16][64], comps[2][1024];
    tb_utc_iso8601(now - 3600, iss, sizeof iss);
    tb_utc_iso8601(now + 30LL * 86400, nxt, sizeof nxt);
    tb_utc_iso8601(now - 86400 * 30 - (now % 86400), date, sizeof date);
    snprintf(old, sizeof old, "2023-01-01T00:00:00Z");
    tb_hex_encode(SIM_FMSPC, 6, fm);
    for (int lvl = 0; lvl < 2; lvl++) {
        size_t k = 0;
        for (int i = 0; i < 16; i++) {
            int v = SIM_SGX[i] > 0 && lvl ? SIM_SGX[i] - 1 : SIM_SGX[i];
            snprintf(sgx[i], sizeof sgx[i], "{\"svn\":%d}", v);
            k += (size_t)snprintf(comps[lvl] + k, sizeof comps[lvl] - k, "%s%s", i ? "," : "",
                                  sgx[i]);
        }
    }
    static const char *const zeros96 =
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000";
    tb_buf_reset(out);
    return tb_buf_printf(
        out,
        "{\"id\":\"TDX\",\"version\":3,\"issueDate\":\"%s\",\"nextUpdate\":\"%s\",\"fmspc\":"
        "\"%s\",\"pceId\":\"0000\",\"tcbType\":0,\"tcbEvaluationDataNumber\":1,"
        "\"tdxModule\":{\"mrsigner\":\"%s\",\"attributes\":\"0000000000000000\","
        "\"attributesMask\":\"FFFFFFFFFFFFFFFF\"},"
        "\"tdxModuleIdentities\":[{\"id\":\"TDX_01\",\"mrsigner\":\"%s\",\"attributes\":"
        "\"0000000000000000\",\"attributesMask\":\"FFFFFFFFFFFFFFFF\",\"tcbLevels\":["
        "{\"tcb\":{\"isvsvn\":%d},\"tcbDate\":\"%s\",\"tcbStatus\":\"UpToDate\"},"
        "{\"tcb\":{\"isvsvn\":1},\"tcbDate\":\"%s\",\"tcbStatus\":\"OutOfDate\","
        "\"advisoryIDs\":[\"SIMULATED-SA-00002\"]}]}],"
        "\"tcbLevels\":[{\"tcb\":{\"sgxtcbcomponents\":[%s],\"pcesvn\":%d,"
        "\"tdxtcbcomponents\":[{\"svn\":%d},{\"svn\":0},{\"svn\":%d},{\"svn\":0},{\"svn\":0},"
        "{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0},"
        "{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0}]},\"tcbDate\":\"%s\",\"tcbStatus\":"
        "\"UpToDate\"},"
        "{\"tcb\":{\"sgxtcbcomponents\":[%s],\"pcesvn\":5,"
        "\"tdxtcbcomponents\":[{\"svn\":1},{\"svn\":0},{\"svn\":1},{\"svn\":0},{\"svn\":0},"
        "{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0},"
        "{\"svn\":0},{\"svn\":0},{\"svn\":0},{\"svn\":0}]},\"tcbDate\":\"%s\",\"tcbStatus\":"
        "\"OutOfDate\",\"advisoryIDs\":[\"SIMULATED-SA-00001\"]}]}",
        iss, nxt, fm, zeros96, zeros96, SIM_TEE_TCB_SVN[0], date, old, comps[0], SIM_PCESVN,
        SIM_TEE_TCB_SVN[0], SIM_TEE_TCB_SVN[2], date, comps[1], old);
}

static int sim_qe_identity(int64_t now, tb_buf *out)
{
    char iss[32], nxt[32], date[32], signer[65];
    uint8_t mr[32];
    tb_utc_iso8601(now - 3600, iss, sizeof iss);
    tb_utc_iso8601(now + 30LL * 86400, nxt, sizeof nxt);
    tb_utc_iso8601(now - 86400 * 30 - (now % 86400), date, sizeof date);
    digest(EVP_sha256(), "teebench SIMULATED QE signer", mr);
    tb_hex_encode(mr, 32, signer);
    tb_buf_reset(out);
    return tb_buf_printf(
        out,
        "{\"id\":\"TD_QE\",\"version\":2,\"issueDate\":\"%s\",\"nextUpdate\":\"%s\","
        "\"tcbEvaluationDataNumber\":1,\"miscselect\":\"00000000\",\"miscselectMask\":"
        "\"FFFFFFFF\",\"attributes\":\"11000000000000000000000000000000\",\"attributesMask\":"
        "\"FBFFFFFFFFFFFFFF0000000000000000\",\"mrsigner\":\"%s\",\"isvprodid\":2,"
        "\"tcbLevels\":[{\"tcb\":{\"isvsvn\":%d},\"tcbDate\":\"%s\",\"tcbStatus\":\"UpToDate\"},"
        "{\"tcb\":{\"isvsvn\":1},\"tcbDate\":\"%s\",\"tcbStatus\":\"OutOfDate\","
        "\"advisoryIDs\":[\"SIMULATED-SA-00003\",\"SIMULATED-SA-00001\"]}]}",
        iss, nxt, signer, SIM_QE_ISVSVN, date, date);
}

int tb_tdx_sim_collateral(const char *dir, int64_t now, int revoke_pck, tb_tdx_collateral *c,
                          tb_attest_root **root, tb_err *err)
{
    memset(c, 0, sizeof *c);
    if (root)
        *root = NULL;
    sim s;
    if (sim_open(dir, &s, err) < 0)
        return -1;
    tb_buf tcb = {0}, qe = {0};
    int rc = -1;
    tb_x509_crl_spec root_crl = tb_attest_sim_crl_spec(s.root, s.root_k, now, NULL);
    tb_x509_crl_spec pck_crl = tb_attest_sim_crl_spec(s.ca, s.ca_k, now, revoke_pck ? s.pck : NULL);
    if (tb_x509_crl_make(&root_crl, &c->root_ca_crl, &c->root_ca_crl_len, err) < 0 ||
        tb_x509_crl_make(&pck_crl, &c->pck_crl, &c->pck_crl_len, err) < 0) {
        tb_err_wrap(err, "simulated CRLs");
        goto out;
    }
    c->pck_crl_issuer_chain = chain_pem(s.ca, s.root);
    c->tcb_info_issuer_chain = chain_pem(s.tcb, s.root);
    c->qe_identity_issuer_chain = chain_pem(s.tcb, s.root);
    if (!c->pck_crl_issuer_chain || !c->tcb_info_issuer_chain || !c->qe_identity_issuer_chain ||
        sim_tcb_info(now, &tcb) < 0 || sim_qe_identity(now, &qe) < 0) {
        tb_errf(err, "out of memory");
        goto out;
    }
    if (tb_attest_ecdsa_sign_raw(s.tcb_k, tcb.p, tcb.len, c->tcb_info_sig) < 0 ||
        tb_attest_ecdsa_sign_raw(s.tcb_k, qe.p, qe.len, c->qe_identity_sig) < 0) {
        tb_err_ssl(err, "signing simulated collateral");
        goto out;
    }
    c->tcb_info = (char *)tcb.p;
    c->tcb_info_len = tcb.len;
    c->qe_identity = (char *)qe.p;
    c->qe_identity_len = qe.len;
    tcb = (tb_buf){0};
    qe = (tb_buf){0};
    if (root) {
        X509_up_ref(s.root);
        if (tb_attest_root_wrap(s.root, root, err) < 0)
            goto out;
        (*root)->simulated = 1;
    }
    rc = 0;
out:
    tb_buf_clear(&tcb);
    tb_buf_clear(&qe);
    sim_clear(&s);
    if (rc < 0)
        tb_tdx_collateral_clear(c);
    return rc;
}
