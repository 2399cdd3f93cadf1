/* libFuzzer target: the collateral loaders -- the dcap-qvl JSON format, PCS response
 * bodies (exact value spans), TCB info / QE identity JSON, policy JSON -- and the
 * collateral checks of tb_tdx_prepare (CRL and certificate parsing, signature checks),
 * and the module's one JSON reader (jsontok) with its accessors and string decoder.
 * Invariants checked: no crash, no leak, no UB; spans stay inside the input; every document
 * jansson reads (nesting within the tokenizer's 32) tokenizes too; a decoded
 * string is never longer than its escaped form, holds no NUL and is valid UTF-8 (it
 * re-serializes with jansson); a parsed collateral round-trips through its JSON form; QVL's
 * compact re-serialization (tb_attest_json_compact) of a document is a document whose
 * re-serialization is itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/internal.h"
#include "base/buf.h"

static tb_attest_root *root; /* fuzz harness state, built once */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    tb_err e;
    if (tb_attest_root_intel(&root, &e) < 0)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    tb_err e;
    tb_tdx_collateral c;
    if (tb_tdx_collateral_parse_json(s, size, &c, &e) == 0) {
        tb_tdx_prepared *p = NULL;
        tb_tdx_verdict v;
        if (tb_tdx_prepare(&c, 1752919234, root, &p, &v, &e) == 0)
            tb_tdx_prepared_free(p);
        char *json = NULL;
        if (tb_tdx_collateral_to_json(&c, &json, &e) < 0)
            abort(); /* everything the reader accepts can be written back */
        tb_tdx_collateral r;
        if (tb_tdx_collateral_parse_json(json, strlen(json), &r, &e) < 0 ||
            r.tcb_info_len != c.tcb_info_len || memcmp(r.tcb_info, c.tcb_info, c.tcb_info_len) ||
            r.pck_crl_len != c.pck_crl_len || memcmp(r.pck_crl, c.pck_crl, c.pck_crl_len))
            abort();
        tb_tdx_collateral_clear(&r);
        free(json);
        int64_t next;
        (void)tb_tdx_collateral_next_update(&c, &next, &e);
        tb_tdx_collateral_clear(&c);
    }
    memset(&c, 0, sizeof c);
    if (tb_tdx_collateral_from_pcs(s, size, s, size, &c, &e) == 0 &&
        (c.tcb_info_len > size || !memmem(s, size, c.tcb_info, c.tcb_info_len)))
        abort();                 /* the signed bytes are a span of the input */
    tb_tdx_collateral_clear(&c); /* frees what a partial parse left, too */
    tb_tdx_tcb_info t;
    if (tb_tdx_tcb_info_parse(s, size, &t, &e) == 0)
        tb_tdx_tcb_info_clear(&t);
    tb_tdx_qe_identity q;
    if (tb_tdx_qe_identity_parse(s, size, &q, &e) == 0)
        tb_tdx_qe_identity_clear(&q);
    tb_buf c1 = {0}, c2 = {0};
    if (tb_attest_json_compact(s, size, &c1, &e) == 0) {
        if (tb_attest_json_compact((const char *)c1.p, c1.len, &c2, &e) < 0 || c1.len != c2.len ||
            memcmp(c1.p, c2.p, c1.len))
            abort();
    }
    tb_buf_clear(&c1);
    tb_buf_clear(&c2);
    tb_attest_jdoc d; /* the tokenizer alone, and a walk over every token */
    int tok = tb_attest_json_tokenize(s, size, &d, &e);
    json_t *ref = json_loadb(s, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (ref) { /* what jansson accepts, the (stricter) tokenizer accepts within its depth */
        size_t opens = 0;
        for (size_t i = 0; i < size; i++)
            opens += s[i] == '[' || s[i] == '{';
        if (tok < 0 && opens <= 32)
            abort();
        json_decref(ref);
    }
    if (tok == 0) {
        for (int i = 0; i < d.count; i++) {
            if (d.t[i].end > size || d.t[i].next <= (uint32_t)i || d.t[i].next > (uint32_t)d.count)
                abort();
            const char *p;
            size_t n;
            long v;
            (void)tb_attest_jstr(&d, i, &p, &n);
            char *dec = NULL;
            if (tb_attest_jstr_dup(&d, i, &dec, &n) == 0) {
                json_t *js = json_stringn(dec, n); /* NULL: bad UTF-8 or a NUL */
                if (n > d.t[i].end - d.t[i].start || strlen(dec) != n || !js)
                    abort();
                json_decref(js);
                free(dec);
            }
            (void)tb_attest_juint(&d, i, 1000000, &v);
            (void)tb_attest_jobj_get(&d, i, "tcbLevels");
        }
        tb_attest_json_clear(&d);
    }
    tb_attest_policy pol;
    (void)tb_attest_policy_parse(s, size, &pol, &e);
    uint8_t *der = NULL;
    size_t dl = 0;
    if (tb_attest_crl_to_der(data, size, &der, &dl, &e) == 0)
        free(der);
    return 0;
}
