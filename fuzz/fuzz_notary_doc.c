/* libFuzzer target: the attestation document decoder and the evidence parser.
 * Inputs starting with '{' go to tb_notary_evidence_parse, others to tb_notary_doc_verify
 * (decode + signature check). A decoded document must re-encode to the same
 * signed bytes: the decoder accepts only the canonical encoding. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "notary/internal.h"
#include "notary/doc.h"
#include "notary/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tb_err err;
    if (size > 0 && data[0] == '{') {
        tb_notary_evidence ev;
        if (tb_notary_evidence_parse((const char *)data, size, &ev, &err) == 0) {
            if (ev.nonce_len > 64 || ev.quote.len == 0)
                abort();
            tb_notary_evidence_clear(&ev);
        }
        return 0;
    }
    tb_notary_doc d;
    if (tb_notary_doc_decode(data, size, &d, &err) == 0) {
        if (d.signed_len > size || d.n_certs < 1 || d.n_certs > TB_NOTARY_DOC_MAX_CERTS)
            abort();
        /* every view lies inside the input */
        const tb_notary_view *vs[] = {&d.server_name, &d.target_host, &d.tee,      &d.nonce,
                                      &d.notary_key,  &d.request,     &d.response, &d.signature};
        for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++)
            if (vs[i]->p < data || vs[i]->p + vs[i]->len > data + size)
                abort();
        tb_notary_doc_verify(data, size, &d, &err);
    }
    return 0;
}
