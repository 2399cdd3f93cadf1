/* libFuzzer target: the collateral loaders -- the dcap-qvl JSON format, PCS response
 * bodies (exact value spans), TCB info / QE identity JSON, policy JSON -- and the
 * collateral checks of tb_attest_prepare (CRL and certificate parsing, signature checks), and
 * the JSON tokenizer with its accessors.
 * Invariant checked: no crash, no leak, no UB; spans stay inside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attest/internal.h"

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
    tb_attest_collateral c;
    if (tb_attest_collateral_parse_json(s, size, &c, &e) == 0) {
        tb_attest_prepared *p = NULL;
        tb_attest_verdict v;
        if (tb_attest_prepare(&c, 1752919234, root, &p, &v, &e) == 0)
            tb_attest_prepared_free(p);
        char *json = NULL;
        if (tb_attest_collateral_to_json(&c, &json, &e) == 0)
            free(json);
        int64_t next;
        (void)tb_attest_collateral_next_update(&c, &next, &e);
        tb_attest_collateral_clear(&c);
    }
    size_t off, len;
    if (tb_attest_json_value_span(s, size, "tcbInfo", &off, &len, &e) == 0 && (off + len > size))
        abort();
    memset(&c, 0, sizeof c);
    (void)tb_attest_collateral_from_pcs(s, size, s, size, &c, &e);
    tb_attest_collateral_clear(&c); /* frees what a partial parse left, too */
    tb_attest_tcb_info t;
    if (tb_attest_tcb_info_parse(s, size, &t, &e) == 0)
        tb_attest_tcb_info_clear(&t);
    tb_attest_qe_identity q;
    if (tb_attest_qe_identity_parse(s, size, &q, &e) == 0)
        tb_attest_qe_identity_clear(&q);
    tb_attest_jdoc d; /* the tokenizer alone, and a walk over every token */
    if (tb_attest_json_tokenize(s, size, &d, &e) == 0) {
        for (int i = 0; i < d.count; i++) {
            if (d.t[i].end > size || d.t[i].next <= (uint32_t)i || d.t[i].next > (uint32_t)d.count)
                abort();
            const char *p;
            size_t n;
            long v;
            (void)tb_attest_jstr(&d, i, &p, &n);
            (void)tb_attest_juint(&d, i, 1000000, &v);
            (void)tb_attest_jobj_get(&d, i, "tcbLevels");
            (void)tb_attest_jarr_get(&d, i, 3);
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
