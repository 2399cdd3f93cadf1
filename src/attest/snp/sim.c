/* attest/snp/sim: the SIMULATED SEV-SNP provider -- reports with the real v3 layout, signed
 * by a local PKI that mimics AMD's, so that the whole SNP path (report, chain, CRL,
 * TCB, policy, notary) runs on any machine. Not AMD: everything says SIMULATED.
 *
 * State: <sim dir>/snp/ (the TDX sim's directory, tb_attest_sim_dir): ark.pem/.key and
 * ask.pem/.key (RSA-4096, RSA-PSS SHA-384 signatures, as AMD's), vcek.der/.key (P-384,
 * with AMD's extensions: productName "Milan-B0", bl/tee/snp/ucode SPLs, hwID = the sim
 * chip id), SIMULATED.txt. Created on first use in a temporary directory renamed into
 * place (atomic; a process that loses the race uses the winner's). RSA-4096 key
 * generation takes seconds, once.
 * Reports: version 3, CPUID family 19h model 01h (Milan), FAMILY_ID "teebench SIM SNP"
 * (the SIMULATED marker), REPORTED = CURRENT = COMMITTED = LAUNCH TCB = the VCEK's SPLs,
 * CHIP_ID = the VCEK's hwID, signed by the VCEK (ECDSA P-384, r and s little-endian). */
#include "attest/internal.h"
#include "attest/snp/snp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509v3.h>

#include "base/x509.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"

static const tb_snp_tcb SIM_TCB = {.bl = 3, .tee = 0, .snp = 8, .ucode = 115};

typedef struct sim {
    X509 *ark, *ask, *vcek;
    EVP_PKEY *ark_k, *ask_k, *vcek_k;
} sim;

static void sim_clear(sim *s)
{
    X509_free(s->ark);
    X509_free(s->ask);
    X509_free(s->vcek);
    EVP_PKEY_free(s->ark_k);
    EVP_PKEY_free(s->ask_k);
    EVP_PKEY_free(s->vcek_k);
    memset(s, 0, sizeof *s);
}

/* RSA-PSS, SHA-384, MGF1 SHA-384, salt 48: AMD's signature algorithm. */
static EVP_MD_CTX *pss_ctx(EVP_PKEY *key)
{
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    if (!m || EVP_DigestSignInit(m, &pc, EVP_sha384(), NULL, key) != 1 ||
        EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) != 1 ||
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, 48) != 1 ||
        EVP_PKEY_CTX_set_rsa_mgf1_md(pc, EVP_sha384()) != 1) {
        EVP_MD_CTX_free(m);
        return NULL;
    }
    return m;
}

/* An SPL extension's value: INTEGER v, DER (a sign byte when the top bit is set). */
static size_t spl_der(uint8_t d[4], uint8_t v)
{
    d[0] = 0x02;
    if (v & 0x80) {
        d[1] = 2;
        d[2] = 0;
        d[3] = v;
        return 4;
    }
    d[1] = 1;
    d[2] = v;
    return 3;
}

/* A certificate of the SIMULATED SEV-SNP PKI (base/x509): RSA-PSS SHA-384 (salt 48) by
   issuer_key, valid from a day before now for 20 years; hwid: the VCEK's AMD extensions
   (structVersion, productName, the SPLs, hwID). */
static X509 *make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key, int ca,
                       long serial, int64_t now, const uint8_t *hwid)
{
    static const uint8_t product[] = {0x16, 0x08, 'M', 'i', 'l', 'a', 'n', '-', 'B', '0'};
    static const uint8_t ver[] = {0x02, 0x01, 0x00};
    const char *const name[] = {"OU", "teebench SIMULATED", "O", "teebench SIMULATED AMD", "CN", cn,
                                NULL};
    const tb_x509_ext ext[] = {
        {NID_basic_constraints, ca ? "critical,CA:TRUE" : "CA:FALSE"},
        {NID_key_usage, ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature"},
    };
    uint8_t spl[4][4];
    const uint8_t spl_v[4] = {SIM_TCB.bl, SIM_TCB.tee, SIM_TCB.snp, SIM_TCB.ucode};
    size_t spl_n[4];
    for (int i = 0; i < 4; i++)
        spl_n[i] = spl_der(spl[i], spl_v[i]);
    const tb_x509_raw_ext raw[] = {
        {"1.3.6.1.4.1.3704.1.1", ver, sizeof ver},
        {"1.3.6.1.4.1.3704.1.2", product, sizeof product},
        {"1.3.6.1.4.1.3704.1.3.1", spl[0], spl_n[0]},
        {"1.3.6.1.4.1.3704.1.3.2", spl[1], spl_n[1]},
        {"1.3.6.1.4.1.3704.1.3.3", spl[2], spl_n[2]},
        {"1.3.6.1.4.1.3704.1.3.8", spl[3], spl_n[3]},
        {"1.3.6.1.4.1.3704.1.4", hwid, 64},
    };
    EVP_MD_CTX *m = pss_ctx(issuer_key);
    if (!m)
        return NULL;
    tb_x509_spec spec = tb_attest_sim_cert_spec(name, key, issuer, issuer_key, now);
    spec.serial = serial;
    spec.ext = ext;
    spec.n_ext = sizeof ext / sizeof ext[0];
    spec.raw = raw;
    spec.n_raw = hwid ? sizeof raw / sizeof raw[0] : 0;
    spec.sign_ctx = m;
    tb_err e;
    X509 *x = tb_x509_make(&spec, &e);
    EVP_MD_CTX_free(m);
    return x;
}

/* The state's files, written into the new state folder dfd (tmp: its path) -- a
   tb_attest_sim_state_make writer. */
static int sim_generate_into(int dfd, const char *tmp, void *ctx, tb_err *err)
{
    (void)ctx;
    sim s = {0};
    int64_t now = (int64_t)(tb_wall_ns() / 1000000000ull);
    uint8_t hwid[64];
    int rc = -1;
    if (RAND_bytes(hwid, sizeof hwid) != 1)
        return tb_err_ssl(err, "random chip id");
    s.ark_k = EVP_RSA_gen(4096);
    s.ask_k = s.ark_k ? EVP_RSA_gen(4096) : NULL;
    s.vcek_k = s.ask_k ? EVP_EC_gen("P-384") : NULL;
    if (!s.vcek_k) {
        tb_err_ssl(err, "generating simulated SEV-SNP keys");
        goto out;
    }
    s.ark = make_cert("ARK-Milan SIMULATED", s.ark_k, NULL, s.ark_k, 1, 0x10000, now, NULL);
    s.ask = s.ark ? make_cert("SEV-Milan SIMULATED", s.ask_k, s.ark, s.ark_k, 1, 0x10001, now, NULL)
                  : NULL;
    s.vcek =
        s.ask ? make_cert("SEV-VCEK SIMULATED", s.vcek_k, s.ask, s.ask_k, 0, 2, now, hwid) : NULL;
    if (!s.vcek) {
        tb_err_ssl(err, "creating simulated SEV-SNP certificates");
        goto out;
    }
    if (tb_x509_write_at(dfd, tmp, "ark.pem", s.ark, NULL, 0, err) < 0 ||
        tb_x509_write_at(dfd, tmp, "ark.key", NULL, s.ark_k, 0, err) < 0 ||
        tb_x509_write_at(dfd, tmp, "ask.pem", s.ask, NULL, 0, err) < 0 ||
        tb_x509_write_at(dfd, tmp, "ask.key", NULL, s.ask_k, 0, err) < 0 ||
        tb_x509_write_at(dfd, tmp, "vcek.der", s.vcek, NULL, 1, err) < 0 ||
        tb_x509_write_at(dfd, tmp, "vcek.key", NULL, s.vcek_k, 0, err) < 0)
        goto out;
    rc = 0;
out:
    sim_clear(&s);
    return rc;
}

/* <dir>/snp, created atomically when absent. */
static int sim_path(const char *dir, char *out, size_t n, tb_err *err)
{
    static const char note[] =
        "teebench SIMULATED SEV-SNP attestation state: a local ARK/ASK/VCEK, not AMD's. "
        "Reports made with it verify only with --root ark.pem of this folder.\n";
    if ((size_t)snprintf(out, n, "%s/snp", dir) >= n)
        return tb_errf(err, "sim path too long");
    return tb_attest_sim_state_make(out, "vcek.key", note, sim_generate_into, NULL, err);
}

static int read_cert(const char *dir, const char *name, X509 **x, EVP_PKEY **k, tb_err *err)
{
    char path[4200];
    if (tb_path_join(path, sizeof path, dir, name, err) < 0)
        return -1;
    return tb_x509_read(path, x, k, err);
}

static int sim_open(const char *dir, sim *s, int need_ca_keys, tb_err *err)
{
    char d[4096];
    memset(s, 0, sizeof *s);
    if (sim_path(dir, d, sizeof d, err) < 0)
        return -1;
    if (read_cert(d, "ark.pem", &s->ark, NULL, err) < 0 ||
        read_cert(d, "ask.pem", &s->ask, NULL, err) < 0 ||
        read_cert(d, "vcek.der", &s->vcek, NULL, err) < 0 ||
        read_cert(d, "vcek.key", NULL, &s->vcek_k, err) < 0 ||
        (need_ca_keys && read_cert(d, "ark.key", NULL, &s->ark_k, err) < 0)) {
        sim_clear(s);
        return -1;
    }
    return 0;
}

static int sign_report(EVP_PKEY *k, uint8_t *rep, tb_err *err)
{
    uint8_t h[48];
    SHA384(rep, TB_SNP_SIGNED_LEN, h);
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(k, NULL);
    unsigned char der[160];
    size_t dl = sizeof der;
    int ok = c && EVP_PKEY_sign_init(c) == 1 && EVP_PKEY_sign(c, der, &dl, h, 48) == 1;
    EVP_PKEY_CTX_free(c);
    const unsigned char *p = der;
    ECDSA_SIG *s = ok ? d2i_ECDSA_SIG(NULL, &p, (long)dl) : NULL;
    if (!s)
        return tb_err_ssl(err, "signing the simulated report");
    uint8_t be[48];
    const BIGNUM *r, *ss;
    ECDSA_SIG_get0(s, &r, &ss);
    const BIGNUM *v[2] = {r, ss};
    for (int i = 0; i < 2; i++) {
        if (BN_bn2binpad(v[i], be, 48) != 48) {
            ECDSA_SIG_free(s);
            return tb_err_ssl(err, "signing the simulated report");
        }
        for (int j = 0; j < 48; j++)
            rep[TB_SNP_SIGNED_LEN + 72 * i + j] = be[47 - j];
    }
    ECDSA_SIG_free(s);
    return 0;
}

/* An opened SIMULATED SEV-SNP provider: the VCEK's certificate and key, read once. */
struct tb_snp_sim {
    sim s;
    tb_snp_tcb tcb;   /* the VCEK's SPLs: the reports' TCB */
    uint8_t hwid[64]; /* the VCEK's hwID: the reports' CHIP_ID */
};

int tb_snp_sim_open(const char *dir, tb_snp_sim **out, tb_err *err)
{
    *out = NULL;
    tb_snp_sim *h = calloc(1, sizeof *h);
    if (!h)
        return tb_errf(err, "out of memory");
    if (sim_open(dir, &h->s, 0, err) < 0) {
        free(h);
        return -1;
    }
    unsigned char *der = NULL;
    int dl = i2d_X509(h->s.vcek, &der);
    tb_snp_cert vc;
    if (dl <= 0 || tb_snp_cert_parse(der, (size_t)dl, &vc, err) < 0 || !vc.ext.has_hwid) {
        OPENSSL_free(der);
        tb_snp_sim_close(h);
        return tb_errf(err, "the simulated VCEK is unreadable");
    }
    h->tcb = (tb_snp_tcb){vc.ext.bl, vc.ext.tee, vc.ext.snp, vc.ext.ucode, 0, 0};
    memcpy(h->hwid, vc.ext.hwid, 64);
    OPENSSL_free(der);
    *out = h;
    return 0;
}

void tb_snp_sim_close(tb_snp_sim *h)
{
    if (!h)
        return;
    sim_clear(&h->s);
    free(h);
}

int tb_snp_sim_quote(const tb_snp_sim *h, const uint8_t rd[64], int debug, uint8_t **report,
                     size_t *len, tb_err *err)
{
    *report = NULL;
    *len = 0;
    tb_snp_report r;
    memset(&r, 0, sizeof r);
    r.version = 3;
    r.policy = TB_SNP_POLICY_SMT | TB_SNP_POLICY_RESERVED1 | (debug ? TB_SNP_POLICY_DEBUG : 0);
    memcpy(r.family_id, TB_SNP_SIM_MARKER, 16);
    memcpy(r.image_id, "SIMULATED image", 16);
    r.sig_algo = 1;
    r.current_tcb = r.reported_tcb = r.committed_tcb = r.launch_tcb =
        tb_snp_tcb_encode(&h->tcb, TB_SNP_MILAN);
    r.platform_info = 1; /* SMT enabled */
    memcpy(r.report_data, rd, 64);
    SHA384((const unsigned char *)"teebench SIMULATED SEV-SNP launch measurement", 45,
           r.measurement);
    if (RAND_bytes(r.report_id, 32) != 1)
        return tb_err_ssl(err, "random report id");
    memset(r.report_id_ma, 0xff, 32);
    r.cpuid_fam = 0x19;
    r.cpuid_mod = 0x01;
    r.cpuid_step = 0x01;
    memcpy(r.chip_id, h->hwid, 64);
    r.current_major = r.committed_major = 1;
    r.current_minor = r.committed_minor = 55;
    r.current_build = r.committed_build = 21;
    uint8_t *out = malloc(TB_SNP_REPORT_LEN);
    if (!out)
        return tb_errf(err, "out of memory");
    tb_snp_serialize(&r, out);
    if (sign_report(h->s.vcek_k, out, err) < 0) {
        free(out);
        return -1;
    }
    *report = out;
    *len = TB_SNP_REPORT_LEN;
    return 0;
}

int tb_snp_sim_report(const char *dir, const uint8_t rd[64], int debug, uint8_t **report,
                      size_t *len, tb_err *err)
{
    tb_snp_sim *h;
    *report = NULL;
    *len = 0;
    if (tb_snp_sim_open(dir, &h, err) < 0)
        return -1;
    int rc = tb_snp_sim_quote(h, rd, debug, report, len, err);
    tb_snp_sim_close(h);
    return rc;
}

int tb_snp_sim_certs(const char *dir, const char *outdir, int64_t now, int revoke_vcek, tb_err *err)
{
    /* the output directory first: one that is refused costs no simulated key */
    int ofd = tb_dir_open_private(outdir, 0700, err);
    if (ofd < 0)
        return -1;
    sim s;
    if (sim_open(dir, &s, 1, err) < 0) {
        close(ofd);
        return -1;
    }
    uint8_t *crl = NULL;
    size_t crl_len = 0;
    int rc = -1;
    tb_x509_crl_spec cs = tb_attest_sim_crl_spec(s.ark, s.ark_k, now, revoke_vcek ? s.vcek : NULL);
    cs.sign_ctx = pss_ctx(s.ark_k);
    if (!cs.sign_ctx || tb_x509_crl_make(&cs, &crl, &crl_len, err) < 0) {
        EVP_MD_CTX_free(cs.sign_ctx);
        tb_err_wrap(err, "making the simulated CRL");
        goto out;
    }
    EVP_MD_CTX_free(cs.sign_ctx);
    if (tb_x509_write_at(ofd, outdir, "ark.pem", s.ark, NULL, 0, err) < 0 ||
        tb_x509_write_at(ofd, outdir, "ask.pem", s.ask, NULL, 0, err) < 0 ||
        tb_x509_write_at(ofd, outdir, "vcek.der", s.vcek, NULL, 1, err) < 0 ||
        tb_file_write_at(ofd, outdir, "crl.der", crl, crl_len, 0644, err) < 0)
        goto out;
    rc = 0;
out:
    close(ofd);
    OPENSSL_free(crl);
    sim_clear(&s);
    return rc;
}

int tb_snp_sim_certs_cached(const char *dir, int64_t now, tb_snp_certs *out, tb_err *err)
{
    char d[4096], cd[4200];
    tb_err e;
    memset(out, 0, sizeof *out);
    if (sim_path(dir, d, sizeof d, err) < 0 || tb_path_join(cd, sizeof cd, d, "certs", err) < 0)
        return -1;
    if (tb_snp_certs_load(cd, out, &e) == 0) {
        tb_attest_crl crl;
        if (out->crl && tb_snp_crl_parse(out->crl, out->crl_len, &crl, &e) == 0 &&
            crl.this_update <= now && now + 86400 < crl.next_update)
            return 0;
        tb_snp_certs_clear(out);
    }
    if (tb_snp_sim_certs(dir, cd, now, 0, &e) == 0)
        return tb_snp_certs_load(cd, out, err);
    /* a sim folder we cannot write: made in a temporary folder, as if never kept */
    char tmp[] = "/tmp/teebench-snp-certs.XXXXXX";
    if (!mkdtemp(tmp))
        return tb_errno(err, "%s (and no temporary folder)", e.msg);
    int rc = tb_snp_sim_certs(dir, tmp, now, 0, err);
    if (rc == 0)
        rc = tb_snp_certs_load(tmp, out, err);
    tb_attest_sim_dir_remove(tmp);
    return rc;
}

int tb_snp_sim_ark(const char *dir, uint8_t **der, size_t *len, tb_err *err)
{
    char d[4096], path[4200];
    if (sim_path(dir, d, sizeof d, err) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/ark.pem", d);
    return tb_snp_read_der(path, 0, der, len, err);
}
