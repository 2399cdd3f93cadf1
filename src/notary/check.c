/* notary/check: the checks of a notarization's document and evidence (see
 * check.h). It only sequences doc, evidence and tee: no check is implemented
 * here twice. */
#include "notary/check.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "notary/internal.h"

int tb_notary_check_doc(const tb_doc *d, X509_STORE *store, const uint8_t *key_sha256, tb_err *err)
{
    if (key_sha256) {
        uint8_t got[32];
        SHA256(d->notary_key.p, d->notary_key.len, got);
        if (CRYPTO_memcmp(key_sha256, got, 32))
            return tb_errf(err, "signed by another notary key");
    }
    if (store && tb_doc_verify_chain(d, store, err) < 0)
        return -1;
    return 0;
}

int tb_notary_check_evidence(const tb_doc *d, const tb_evidence *ev, const uint8_t *nonce,
                             size_t nonce_len, const tb_notary_verifier_opts *vo, tb_err *err)
{
    if (d->tee.len != strlen(ev->tee) || memcmp(d->tee.p, ev->tee, d->tee.len))
        return tb_errf(err, "the document's tee is not the evidence's (%s)", ev->tee);
    if (!nonce) {
        nonce = d->nonce.p;
        nonce_len = d->nonce.len;
    }
    if (!vo)
        return tb_evidence_check(ev, d->notary_key.p, d->notary_key.len, nonce, nonce_len, NULL,
                                 err);
    tb_notary_verifier_opts o = *vo;
    o.simulated = ev->simulated;
    tb_notary_quote_verifier qv;
    if (tb_notary_verifier_open(&o, &qv, err) < 0)
        return -1;
    int rc = tb_evidence_check(ev, d->notary_key.p, d->notary_key.len, nonce, nonce_len, &qv, err);
    tb_notary_verifier_close(&qv);
    return rc;
}
