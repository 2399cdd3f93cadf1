/* Unit tests for attest/collateral, attest/tcbinfo and attest/policy: the dcap-qvl JSON
 * format (round trip), a folder of PCS responses, exact value spans, TCB info / QE
 * identity parsing and validation, policy files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "attest/internal.h"
#include "attest_test_util.h"

static void load(const char *name, tb_collateral *c)
{
    char p[1024];
    tb_err e;
    case_path(name, "collateral.json", p, sizeof p);
    assert_int_equal(tb_collateral_load(p, c, &e), 0);
}

static void test_dcap_qvl_json_round_trip(void **state)
{
    (void)state;
    tb_collateral c, d;
    tb_err e;
    load("qvl-v4-uptodate", &c);
    assert_true(c.root_ca_crl_len > 100 && c.root_ca_crl[0] == 0x30); /* hex -> DER */
    assert_true(c.pck_crl_len > 1000 && c.pck_crl[0] == 0x30);
    assert_memory_equal(c.tcb_info, "{\"id\":\"TDX\"", 11);
    char *json;
    assert_int_equal(tb_collateral_to_json(&c, &json, &e), 0);
    assert_int_equal(tb_collateral_parse_json(json, strlen(json), &d, &e), 0);
    assert_int_equal(d.tcb_info_len, c.tcb_info_len);
    assert_memory_equal(d.tcb_info, c.tcb_info, c.tcb_info_len);
    assert_memory_equal(d.pck_crl, c.pck_crl, c.pck_crl_len);
    assert_memory_equal(d.qe_identity_sig, c.qe_identity_sig, 64);
    int64_t next;
    assert_int_equal(tb_collateral_next_update(&c, &next, &e), 0);
    assert_int_equal(next, 1752919235); /* the PCK CRL's nextUpdate, the earliest */
    free(json);
    tb_collateral_free(&c);
    tb_collateral_free(&d);
}

static void test_json_errors(void **state)
{
    (void)state;
    tb_collateral c;
    tb_err e;
    assert_int_equal(tb_collateral_parse_json("[]", 2, &c, &e), -1);
    assert_non_null(strstr(e.msg, "not a JSON object"));
    const char *missing = "{\"pck_crl_issuer_chain\": \"x\"}";
    assert_int_equal(tb_collateral_parse_json(missing, strlen(missing), &c, &e), -1);
    assert_non_null(strstr(e.msg, "root_ca_crl"));
}

static void test_fast_path_and_fallback(void **state)
{
    (void)state;
    const char *sig = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
                      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    char doc[2048];
    tb_collateral c;
    tb_err e;
    /* Escapes the fast path decodes itself, with whitespace and an unknown field. */
    snprintf(doc, sizeof doc,
             "{ \"pck_crl_issuer_chain\": \"a\\nb\", \"x\": [1, {\"y\": \"}\"}], "
             "\"root_ca_crl\": \"3000\", \"pck_crl\": \"3001\", "
             "\"tcb_info_issuer_chain\": \"c\", \"tcb_info\": \"{\\\"id\\\":\\\\1}\", "
             "\"tcb_info_signature\": \"%s\", \"qe_identity_issuer_chain\": \"d\", "
             "\"qe_identity\": \"q\\/r\", \"qe_identity_signature\": \"%s\" }\n",
             sig, sig);
    assert_int_equal(tb_collateral_parse_json(doc, strlen(doc), &c, &e), 0);
    assert_string_equal(c.pck_crl_issuer_chain, "a\nb");
    assert_string_equal(c.tcb_info, "{\"id\":\\1}");
    assert_string_equal(c.qe_identity, "q/r");
    assert_int_equal(c.pck_crl_len, 2);
    assert_int_equal(c.pck_crl[1], 0x01);
    assert_int_equal(c.tcb_info_sig[1], 0x11);
    tb_collateral_free(&c);
    /* \u escapes go to jansson, with the same result. */
    char *u = strstr(doc, "\"q\\/r\"");
    memmove(u + 8, u + 6, strlen(u + 6) + 1);
    memcpy(u, "\"\\u0041\"", 8);
    assert_int_equal(tb_collateral_parse_json(doc, strlen(doc), &c, &e), 0);
    assert_string_equal(c.qe_identity, "A");
    tb_collateral_free(&c);
    /* Not strings, or trailing garbage: errors from jansson. */
    const char *bad = "{\"pck_crl_issuer_chain\": 1}";
    assert_int_equal(tb_collateral_parse_json(bad, strlen(bad), &c, &e), -1);
    size_t n = strlen(doc);
    doc[n - 1] = 'x';
    assert_int_equal(tb_collateral_parse_json(doc, n, &c, &e), -1);
}

static void test_value_span(void **state)
{
    (void)state;
    const char *s = " { \"a\" : [1, {\"tcbInfo\": 2}], \"tcbInfo\" : {\"x\":\"}\\\"\"} , \"b\":1}";
    size_t off, len;
    tb_err e;
    assert_int_equal(tb_json_value_span(s, strlen(s), "tcbInfo", &off, &len, &e), 0);
    assert_int_equal(len, strlen("{\"x\":\"}\\\"\"}"));
    assert_memory_equal(s + off, "{\"x\":\"}\\\"\"}", len);
    assert_int_equal(tb_json_value_span(s, strlen(s), "nope", &off, &len, &e), -1);
    assert_int_equal(tb_json_value_span("{\"tcbInfo\": {", 13, "tcbInfo", &off, &len, &e), -1);
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    tb_err e;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(tb_file_write_atomic(path, p, n, &e), 0);
}

static void test_pcs_folder(void **state)
{
    (void)state;
    tb_collateral c, f;
    tb_err e;
    load("qvl-v4-uptodate", &c);
    char dir[256], sig[129], *hex = malloc(2 * c.root_ca_crl_len + 1);
    make_tmpdir(dir, sizeof dir);
    tb_buf b = {0};
    tb_hex_encode(c.tcb_info_sig, 64, sig);
    /* PCS bodies with whitespace around the value: the span keeps the exact bytes. */
    tb_buf_printf(&b, "{\n  \"tcbInfo\": %.*s,\n  \"signature\": \"%s\"\n}\n", (int)c.tcb_info_len,
                  c.tcb_info, sig);
    write_file(dir, "tcb_info.json", b.p, b.len);
    tb_buf_reset(&b);
    tb_hex_encode(c.qe_identity_sig, 64, sig);
    tb_buf_printf(&b, "{\"enclaveIdentity\":%.*s,\"signature\":\"%s\"}", (int)c.qe_identity_len,
                  c.qe_identity, sig);
    write_file(dir, "qe_identity.json", b.p, b.len);
    write_file(dir, "pck_crl.der", c.pck_crl, c.pck_crl_len);
    tb_hex_encode(c.root_ca_crl, c.root_ca_crl_len, hex);
    write_file(dir, "root_ca_crl.hex", hex, strlen(hex));
    write_file(dir, "tcb_info_issuer_chain.pem", c.tcb_info_issuer_chain,
               strlen(c.tcb_info_issuer_chain));
    write_file(dir, "qe_identity_issuer_chain.pem", c.qe_identity_issuer_chain,
               strlen(c.qe_identity_issuer_chain));
    write_file(dir, "pck_crl_issuer_chain.pem", c.pck_crl_issuer_chain,
               strlen(c.pck_crl_issuer_chain));
    assert_int_equal(tb_collateral_load(dir, &f, &e), 0);
    assert_int_equal(f.tcb_info_len, c.tcb_info_len);
    assert_memory_equal(f.tcb_info, c.tcb_info, c.tcb_info_len);
    assert_memory_equal(f.root_ca_crl, c.root_ca_crl, c.root_ca_crl_len);
    /* It verifies like the JSON file. */
    char qp[1024];
    case_path("qvl-v4-uptodate", "quote.bin", qp, sizeof qp);
    tb_buf q = read_all(qp);
    tb_root *root;
    tb_verdict v;
    assert_int_equal(tb_root_intel(&root, &e), 0);
    assert_int_equal(tb_verify(q.p, q.len, &f, case_now("qvl-v4-uptodate"), NULL, root, &v), 0);
    tb_collateral_free(&f);
    /* A missing piece names the file. */
    char path[1024];
    snprintf(path, sizeof path, "%s/pck_crl.der", dir);
    unlink(path);
    assert_int_equal(tb_collateral_load(dir, &f, &e), -1);
    assert_non_null(strstr(e.msg, "pck_crl"));
    tb_root_free(root);
    tb_buf_free(&q);
    tb_buf_free(&b);
    free(hex);
    tb_collateral_free(&c);
    rm_rf(dir);
}

static void test_tcb_info_parse(void **state)
{
    (void)state;
    tb_collateral c;
    tb_tcb_info t;
    tb_qe_identity q;
    tb_err e;
    load("qvl-v5-notcb", &c);
    assert_int_equal(tb_tcb_info_parse(c.tcb_info, c.tcb_info_len, &t, &e), 0);
    assert_int_equal(t.version, 3);
    assert_int_equal(t.fmspc[0], 0x90);
    assert_true(t.has_module);
    assert_int_equal(t.n_ids, 2);
    assert_string_equal(t.ids[1].id, "TDX_01");
    assert_int_equal(t.ids[1].n_levels, 3);
    assert_int_equal(t.ids[1].levels[1].status, TB_TCB_OUT_OF_DATE);
    assert_int_equal(t.ids[1].levels[1].adv.n, 2);
    assert_int_equal(t.levels[0].pcesvn, 13);
    assert_int_equal(t.levels[0].tdx[0], 5);
    assert_string_equal(t.levels[0].date, "2024-11-13T00:00:00Z");
    tb_tcb_info_free(&t);
    assert_int_equal(tb_qe_identity_parse(c.qe_identity, c.qe_identity_len, &q, &e), 0);
    assert_int_equal(q.isvprodid, 2);
    assert_int_equal(q.miscselect_mask, 0xffffffffu);
    assert_int_equal(q.attributes_mask[0], 0xfb);
    assert_int_equal(q.levels[0].isvsvn, 4);
    tb_qe_identity_free(&q);
    /* Wrong id / version / status. */
    const char *bad[] = {
        "{\"id\":\"SGX\",\"version\":3}",
        "{\"id\":\"TDX\",\"version\":2}",
        "{\"id\":\"TD_QE\",\"version\":2}",
    };
    assert_int_equal(tb_tcb_info_parse(bad[0], strlen(bad[0]), &t, &e), -1);
    assert_non_null(strstr(e.msg, "not \"TDX\""));
    assert_int_equal(tb_tcb_info_parse(bad[1], strlen(bad[1]), &t, &e), -1);
    assert_non_null(strstr(e.msg, "version 2"));
    assert_int_equal(tb_tcb_info_parse(bad[2], strlen(bad[2]), &t, &e), -1);
    char *s = strdup(c.tcb_info);
    char *st = strstr(s, "\"UpToDate\"");
    memcpy(st, "\"UpToLate\"", 10);
    assert_int_equal(tb_tcb_info_parse(s, strlen(s), &t, &e), -1);
    assert_non_null(strstr(e.msg, "UpToLate"));
    free(s);
    tb_collateral_free(&c);
}

static void test_status_and_dates(void **state)
{
    (void)state;
    tb_tcb_status s;
    for (int i = 0; i < TB_TCB_STATUS_COUNT; i++) {
        assert_int_equal(tb_tcb_status_parse(tb_tcb_status_name((tb_tcb_status)i), &s), 0);
        assert_int_equal(s, i);
    }
    assert_int_equal(tb_tcb_status_parse("uptodate", &s), -1);
    int64_t t;
    assert_int_equal(tb_iso8601_parse("2025-07-19T10:16:03Z", &t), 0);
    assert_int_equal(t, 1752920163);
    assert_int_equal(tb_iso8601_parse("2025-07-19T10:16:03.123Z", &t), 0);
    assert_int_equal(tb_iso8601_parse("2025-07-19 10:16:03", &t), -1);
    assert_int_equal(tb_iso8601_parse("2025-13-19T10:16:03Z", &t), -1);
    char out[32];
    tb_iso8601_format(1752920163, out, sizeof out);
    assert_string_equal(out, "2025-07-19T10:16:03Z");
}

static void test_policy(void **state)
{
    (void)state;
    tb_policy p;
    tb_err e;
    tb_policy_default(&p);
    assert_int_equal(p.accept, 1u << TB_TCB_UP_TO_DATE);
    const char *ok = "{\"allow_debug\": true, \"tcb_statuses\": [\"UpToDate\", "
                     "\"SWHardeningNeeded\"], \"rtmr2\": \"" /* 48 bytes */
                     "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                     "202122232425262728292a2b2c2d2e2f\", \"report_data_prefix\": \"abcd\"}";
    assert_int_equal(tb_policy_parse(ok, strlen(ok), &p, &e), 0);
    assert_true(p.allow_debug);
    assert_int_equal(p.accept, 1u << TB_TCB_UP_TO_DATE | 1u << TB_TCB_SW_HARDENING_NEEDED);
    assert_true(p.want_rtmr[2] && !p.want_rtmr[0]);
    assert_int_equal(p.rtmr[2][47], 0x2f);
    assert_int_equal(p.report_data_len, 2);
    const char *bad[] = {"{\"mrtd\": \"00\"}",
                         "{\"tcb_statuses\": [1]}",
                         "{\"debug\": true}",
                         "{\"allow_debug\": 1}",
                         "nope",
                         "{\"report_data_prefix\": \"\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tb_policy_parse(bad[i], strlen(bad[i]), &p, &e), -1);
    assert_int_equal(tb_policy_load("/nonexistent/policy.json", &p, &e), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dcap_qvl_json_round_trip),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_fast_path_and_fallback),
        cmocka_unit_test(test_value_span),
        cmocka_unit_test(test_pcs_folder),
        cmocka_unit_test(test_tcb_info_parse),
        cmocka_unit_test(test_status_and_dates),
        cmocka_unit_test(test_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
