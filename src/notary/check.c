/* notary/check: the checks of a notarization's document and evidence, and
 * loading saved ones (see check.h). It only sequences doc, evidence and tee:
 * no check is implemented here twice. */
#include "notary/check.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "base/clock.h"
#include "base/file.h"
#include "notary/internal.h"

/* Part 1: the key pin and the server chain. */
static int check_doc(const tb_notary_doc *d, const tb_notary_check_opts *o, tb_err *err)
{
    if (o->key_sha256) {
        uint8_t got[32];
        SHA256(d->notary_key.p, d->notary_key.len, got);
        if (CRYPTO_memcmp(o->key_sha256, got, 32))
            return tb_errf(err, "signed by another notary key");
    }
    if (o->store && tb_notary_doc_verify_chain(d, o->store, err) < 0)
        return -1;
    return 0;
}

/* Part 2: the evidence binds the document (and the quote verifies). */
static int check_evidence(const tb_notary_doc *d, const tb_notary_check_opts *o, tb_err *err)
{
    const tb_notary_evidence *ev = o->evidence;
    const char *tee = tb_tee_name(ev->tee);
    if (d->tee.len != strlen(tee) || memcmp(d->tee.p, tee, d->tee.len))
        return tb_errf(err, "the document's tee is not the evidence's (%s)", tee);
    const uint8_t *nonce = o->nonce ? o->nonce : d->nonce.p;
    size_t nonce_len = o->nonce ? o->nonce_len : d->nonce.len;
    if (!o->verify)
        return tb_notary_evidence_check(ev, d->notary_key.p, d->notary_key.len, nonce, nonce_len,
                                        NULL, err);
    tb_notary_verifier_opts vo = *o->verify;
    vo.simulated = ev->simulated;
    vo.tee = ev->tee;
    tb_notary_quote_verifier qv;
    if (tb_notary_verifier_open(&vo, &qv, err) < 0)
        return -1;
    int rc = tb_notary_evidence_check(ev, d->notary_key.p, d->notary_key.len, nonce, nonce_len, &qv,
                                      err);
    tb_notary_verifier_close(&qv);
    return rc;
}

int tb_notary_check(const tb_notary_doc *d, const tb_notary_check_opts *o,
                    tb_notary_check_report *report, tb_err *err)
{
    tb_notary_check_report r = {0};
    uint64_t t0 = tb_mono_ns();
    int rc = check_doc(d, o, err);
    uint64_t t1 = tb_mono_ns();
    r.doc_ns = t1 - t0;
    if (rc < 0)
        r.failed = TB_NOTARY_CHECK_DOC;
    else if (o->evidence) {
        rc = check_evidence(d, o, err);
        r.evidence_ns = tb_mono_ns() - t1;
        if (rc < 0)
            r.failed = TB_NOTARY_CHECK_EVIDENCE;
    }
    if (report)
        *report = r;
    return rc;
}

int tb_notary_doc_load(const char *path, tb_buf *buf, tb_notary_doc *d, tb_err *err)
{
    if (tb_file_read(path, TB_NOTARY_DOC_MAX_SIZE, buf, err) < 0)
        return -1;
    if (tb_notary_doc_verify(buf->p, buf->len, d, err) < 0)
        return tb_err_wrap(err, "%s", path);
    return 0;
}

int tb_notary_evidence_load(const char *path, tb_notary_evidence *ev, tb_err *err)
{
    memset(ev, 0, sizeof *ev);
    tb_buf b = {0};
    int rc = tb_file_read(path, 64u << 20, &b, err);
    if (rc == 0 && (rc = tb_notary_evidence_parse((const char *)b.p, b.len, ev, err)) < 0)
        tb_err_wrap(err, "%s", path);
    tb_buf_clear(&b);
    return rc;
}
