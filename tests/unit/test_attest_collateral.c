/* Unit tests for attest/collateral: the dcap-qvl JSON format (round trip, fast path and
 * jansson fallback), a folder of PCS responses, exact value spans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "attest/internal.h"
#include "attest_test_util.h"
#include "base/hex.h"

static void load(const char *name, tb_attest_collateral *c)
{
    char p[1024];
    tb_err e;
    case_path(name, "collateral.json", p, sizeof p);
    assert_int_equal(tb_attest_collateral_load(p, c, &e), 0);
}

static void test_dcap_qvl_json_round_trip(void **state)
{
    (void)state;
    tb_attest_collateral c, d;
    tb_err e;
    load("qvl-v4-uptodate", &c);
    assert_true(c.root_ca_crl_len > 100 && c.root_ca_crl[0] == 0x30); /* hex -> DER */
    assert_true(c.pck_crl_len > 1000 && c.pck_crl[0] == 0x30);
    assert_memory_equal(c.tcb_info, "{\"id\":\"TDX\"", 11);
    char *json;
    assert_int_equal(tb_attest_collateral_to_json(&c, &json, &e), 0);
    assert_int_equal(tb_attest_collateral_parse_json(json, strlen(json), &d, &e), 0);
    assert_int_equal(d.tcb_info_len, c.tcb_info_len);
    assert_memory_equal(d.tcb_info, c.tcb_info, c.tcb_info_len);
    assert_memory_equal(d.pck_crl, c.pck_crl, c.pck_crl_len);
    assert_memory_equal(d.qe_identity_sig, c.qe_identity_sig, 64);
    int64_t next;
    assert_int_equal(tb_attest_collateral_next_update(&c, &next, &e), 0);
    assert_int_equal(next, 1752919235); /* the PCK CRL's nextUpdate, the earliest */
    free(json);
    tb_attest_collateral_clear(&c);
    tb_attest_collateral_clear(&d);
}

static void test_json_errors(void **state)
{
    (void)state;
    tb_attest_collateral c;
    tb_err e;
    assert_int_equal(tb_attest_collateral_parse_json("[]", 2, &c, &e), -1);
    assert_non_null(strstr(e.msg, "not a JSON object"));
    const char *missing = "{\"pck_crl_issuer_chain\": \"x\"}";
    assert_int_equal(tb_attest_collateral_parse_json(missing, strlen(missing), &c, &e), -1);
    assert_non_null(strstr(e.msg, "root_ca_crl"));
}

static void test_fast_path_and_fallback(void **state)
{
    (void)state;
    const char *sig = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
                      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    char doc[2048];
    tb_attest_collateral c;
    tb_err e;
    /* Escapes the fast path decodes itself, with whitespace and an unknown field. */
    snprintf(doc, sizeof doc,
             "{ \"pck_crl_issuer_chain\": \"a\\nb\", \"x\": [1, {\"y\": \"}\"}], "
             "\"root_ca_crl\": \"3000\", \"pck_crl\": \"3001\", "
             "\"tcb_info_issuer_chain\": \"c\", \"tcb_info\": \"{\\\"id\\\":\\\\1}\", "
             "\"tcb_info_signature\": \"%s\", \"qe_identity_issuer_chain\": \"d\", "
             "\"qe_identity\": \"q\\/r\", \"qe_identity_signature\": \"%s\" }\n",
             sig, sig);
    assert_int_equal(tb_attest_collateral_parse_json(doc, strlen(doc), &c, &e), 0);
    assert_string_equal(c.pck_crl_issuer_chain, "a\nb");
    assert_string_equal(c.tcb_info, "{\"id\":\\1}");
    assert_string_equal(c.qe_identity, "q/r");
    assert_int_equal(c.pck_crl_len, 2);
    assert_int_equal(c.pck_crl[1], 0x01);
    assert_int_equal(c.tcb_info_sig[1], 0x11);
    tb_attest_collateral_clear(&c);
    /* \u escapes go to jansson, with the same result. */
    char *u = strstr(doc, "\"q\\/r\"");
    memmove(u + 8, u + 6, strlen(u + 6) + 1);
    memcpy(u, "\"\\u0041\"", 8);
    assert_int_equal(tb_attest_collateral_parse_json(doc, strlen(doc), &c, &e), 0);
    assert_string_equal(c.qe_identity, "A");
    tb_attest_collateral_clear(&c);
    /* Not strings, or trailing garbage: errors from jansson. */
    const char *bad = "{\"pck_crl_issuer_chain\": 1}";
    assert_int_equal(tb_attest_collateral_parse_json(bad, strlen(bad), &c, &e), -1);
    size_t n = strlen(doc);
    doc[n - 1] = 'x';
    assert_int_equal(tb_attest_collateral_parse_json(doc, n, &c, &e), -1);
}

static void test_value_span(void **state)
{
    (void)state;
    const char *s = " { \"a\" : [1, {\"tcbInfo\": 2}], \"tcbInfo\" : {\"x\":\"}\\\"\"} , \"b\":1}";
    size_t off, len;
    tb_err e;
    assert_int_equal(tb_attest_json_value_span(s, strlen(s), "tcbInfo", &off, &len, &e), 0);
    assert_int_equal(len, strlen("{\"x\":\"}\\\"\"}"));
    assert_memory_equal(s + off, "{\"x\":\"}\\\"\"}", len);
    assert_int_equal(tb_attest_json_value_span(s, strlen(s), "nope", &off, &len, &e), -1);
    assert_int_equal(tb_attest_json_value_span("{\"tcbInfo\": {", 13, "tcbInfo", &off, &len, &e),
                     -1);
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
    tb_attest_collateral c, f;
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
    assert_int_equal(tb_attest_collateral_load(dir, &f, &e), 0);
    assert_int_equal(f.tcb_info_len, c.tcb_info_len);
    assert_memory_equal(f.tcb_info, c.tcb_info, c.tcb_info_len);
    assert_memory_equal(f.root_ca_crl, c.root_ca_crl, c.root_ca_crl_len);
    /* It verifies like the JSON file. */
    char qp[1024];
    case_path("qvl-v4-uptodate", "quote.bin", qp, sizeof qp);
    tb_buf q = read_all(qp);
    tb_attest_root *root;
    tb_attest_verdict v;
    assert_int_equal(tb_attest_root_intel(&root, &e), 0);
    assert_int_equal(tb_attest_verify(q.p, q.len, &f, case_now("qvl-v4-uptodate"), NULL, root, &v),
                     0);
    tb_attest_collateral_clear(&f);
    /* A missing piece names the file. */
    char path[1024];
    snprintf(path, sizeof path, "%s/pck_crl.der", dir);
    unlink(path);
    assert_int_equal(tb_attest_collateral_load(dir, &f, &e), -1);
    assert_non_null(strstr(e.msg, "pck_crl"));
    tb_attest_root_free(root);
    tb_buf_free(&q);
    tb_buf_free(&b);
    free(hex);
    tb_attest_collateral_clear(&c);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dcap_qvl_json_round_trip),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_fast_path_and_fallback),
        cmocka_unit_test(test_value_span),
        cmocka_unit_test(test_pcs_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
