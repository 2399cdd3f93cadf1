/* Unit tests for attest/tdx/collateral: the dcap-qvl JSON format (round trip, every string
 * escape decoded by the one reader, strictness), PEM CRLs inside JSON strings, a folder
 * of PCS responses, exact value spans of PCS bodies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "attest/internal.h"
#include "attest_test_util.h"
#include "base/hex.h"

#include <openssl/evp.h>

static void load(const char *name, tb_tdx_collateral *c)
{
    char p[1024];
    tb_err e;
    case_path(name, "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_collateral_load(p, c, &e), 0);
}

static void test_dcap_qvl_json_round_trip(void **state)
{
    (void)state;
    tb_tdx_collateral c, d;
    tb_err e;
    load("qvl-v4-uptodate", &c);
    assert_true(c.root_ca_crl_len > 100 && c.root_ca_crl[0] == 0x30); /* hex -> DER */
    assert_true(c.pck_crl_len > 1000 && c.pck_crl[0] == 0x30);
    assert_memory_equal(c.tcb_info, "{\"id\":\"TDX\"", 11);
    char *json;
    assert_int_equal(tb_tdx_collateral_to_json(&c, &json, &e), 0);
    assert_int_equal(tb_tdx_collateral_parse_json(json, strlen(json), &d, &e), 0);
    assert_int_equal(d.tcb_info_len, c.tcb_info_len);
    assert_memory_equal(d.tcb_info, c.tcb_info, c.tcb_info_len);
    assert_memory_equal(d.pck_crl, c.pck_crl, c.pck_crl_len);
    assert_memory_equal(d.qe_identity_sig, c.qe_identity_sig, 64);
    int64_t next;
    assert_int_equal(tb_tdx_collateral_next_update(&c, &next, &e), 0);
    assert_int_equal(next, 1752919235); /* the PCK CRL's nextUpdate, the earliest */
    free(json);
    tb_tdx_collateral_clear(&c);
    tb_tdx_collateral_clear(&d);
}

static void test_json_errors(void **state)
{
    (void)state;
    tb_tdx_collateral c;
    tb_err e;
    assert_int_equal(tb_tdx_collateral_parse_json("[]", 2, &c, &e), -1);
    assert_non_null(strstr(e.msg, "not a JSON object"));
    const char *missing = "{\"pck_crl_issuer_chain\": \"x\"}";
    assert_int_equal(tb_tdx_collateral_parse_json(missing, strlen(missing), &c, &e), -1);
    assert_non_null(strstr(e.msg, "root_ca_crl"));
}

#define SIG                                                                                        \
    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"                             \
    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

/* A dcap-qvl document with qe_identity's JSON string value given raw (quotes included). */
static void doc_with(char *doc, size_t n, const char *qe_identity)
{
    snprintf(doc, n,
             "{ \"pck_crl_issuer_chain\": \"a\\nb\", \"x\": [1, {\"y\": \"}\"}], "
             "\"root_ca_crl\": \"3000\", \"pck_crl\": [48, 1], "
             "\"tcb_info_issuer_chain\": \"c\", \"tcb_info\": \"{\\\"id\\\":\\\\1}\", "
             "\"tcb_info_signature\": \"%s\", \"qe_identity_issuer_chain\": \"d\", "
             "\"qe_identity\": %s, \"qe_identity_signature\": \"%s\" }\n",
             SIG, qe_identity, SIG);
}

/* The one reader (jsontok) decodes every JSON string escape itself: no fallback. */
static void test_strings_and_escapes(void **state)
{
    (void)state;
    char doc[2048];
    tb_tdx_collateral c;
    tb_err e;
    /* Escapes, whitespace, an unknown field, a CRL as an array of byte values. */
    doc_with(doc, sizeof doc, "\"q\\/r\\t\\u0041\\u00e9\\ud83d\\ude00\"");
    assert_int_equal(tb_tdx_collateral_parse_json(doc, strlen(doc), &c, &e), 0);
    assert_string_equal(c.pck_crl_issuer_chain, "a\nb");
    assert_string_equal(c.tcb_info, "{\"id\":\\1}");
    assert_string_equal(c.qe_identity, "q/r\tA\xc3\xa9\xf0\x9f\x98\x80");
    assert_int_equal(c.qe_identity_len, strlen(c.qe_identity));
    assert_int_equal(c.pck_crl_len, 2);
    assert_int_equal(c.pck_crl[0], 48);
    assert_int_equal(c.pck_crl[1], 0x01);
    assert_int_equal(c.root_ca_crl_len, 2);
    assert_int_equal(c.tcb_info_sig[1], 0x11);
    tb_tdx_collateral_clear(&c);
    /* Refused: \u0000, lone surrogates, raw control characters, malformed UTF-8, a
     * non-string, a non-byte array element, a duplicate field, trailing garbage. */
    static const char *const bad_values[] = {
        "\"a\\u0000b\"", "\"\\ud83d\"",  "\"\\ude00x\"",     "\"\\ud83d\\u0041\"",   "\"a\tb\"",
        "\"\xc3\"",      "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "7",
        "\"\"",          "\"\\x\""};
    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        doc_with(doc, sizeof doc, bad_values[i]);
        assert_int_equal(tb_tdx_collateral_parse_json(doc, strlen(doc), &c, &e), -1);
    }
    doc_with(doc, sizeof doc, "\"q\"");
    char *arr = strstr(doc, "[48, 1]");
    memcpy(arr, "[48,-1]", 7);
    assert_int_equal(tb_tdx_collateral_parse_json(doc, strlen(doc), &c, &e), -1);
    assert_non_null(strstr(e.msg, "non-byte"));
    doc_with(doc, sizeof doc, "\"q\", \"pck_crl\": \"3001\"");
    assert_int_equal(tb_tdx_collateral_parse_json(doc, strlen(doc), &c, &e), -1);
    assert_non_null(strstr(e.msg, "duplicate \"pck_crl\""));
    doc_with(doc, sizeof doc, "\"q\"");
    size_t n = strlen(doc);
    doc[n - 1] = 'x';
    assert_int_equal(tb_tdx_collateral_parse_json(doc, n, &c, &e), -1);
    assert_non_null(strstr(e.msg, "not well-formed JSON"));
    const char *bad = "{\"pck_crl_issuer_chain\": 1}";
    assert_int_equal(tb_tdx_collateral_parse_json(bad, strlen(bad), &c, &e), -1);
}

/* A CRL given as PEM inside a JSON string (its newlines escaped) is decoded first. */
static void test_pem_crl_in_json(void **state)
{
    (void)state;
    tb_tdx_collateral c, d;
    tb_err e;
    load("qvl-v4-uptodate", &c);
    size_t b64n = 4 * ((c.pck_crl_len + 2) / 3);
    char *b64 = malloc(b64n + 1);
    EVP_EncodeBlock((unsigned char *)b64, c.pck_crl, (int)c.pck_crl_len);
    tb_buf pem = {0};
    tb_buf_puts(&pem, "-----BEGIN X509 CRL-----\\n");
    for (size_t i = 0; i < b64n; i += 64)
        tb_buf_printf(&pem, "%.*s\\n", (int)(b64n - i < 64 ? b64n - i : 64), b64 + i);
    tb_buf_puts(&pem, "-----END X509 CRL-----\\n");
    char *json;
    assert_int_equal(tb_tdx_collateral_to_json(&c, &json, &e), 0);
    char *v = strstr(json, "\"pck_crl\": \"") + 12;
    tb_buf doc = {0};
    tb_buf_append(&doc, json, (size_t)(v - json));
    tb_buf_append(&doc, pem.p, pem.len);
    tb_buf_puts(&doc, strchr(v, '"'));
    assert_int_equal(tb_tdx_collateral_parse_json((const char *)doc.p, doc.len, &d, &e), 0);
    assert_int_equal(d.pck_crl_len, c.pck_crl_len);
    assert_memory_equal(d.pck_crl, c.pck_crl, c.pck_crl_len);
    tb_tdx_collateral_clear(&d);
    tb_tdx_collateral_clear(&c);
    tb_buf_clear(&doc);
    tb_buf_clear(&pem);
    free(json);
    free(b64);
}

/* A PCS response body: the signed value is the exact byte span of the top-level key's
 * object (whitespace, escapes and all), never a nested key of the same name. */
static void test_pcs_body_span(void **state)
{
    (void)state;
    const char *body = " { \"a\" : [1, {\"tcbInfo\": 2}], \"tcbInfo\" : {\"x\":\"}\\\"\"} ,"
                       " \"signature\": \"" SIG "\", \"b\":1}";
    const char *qe = "{\"enclaveIdentity\":{\"k\":[]},\"signature\":\"" SIG "\"}";
    tb_tdx_collateral c = {0};
    tb_err e;
    assert_int_equal(tb_tdx_collateral_from_pcs(body, strlen(body), qe, strlen(qe), &c, &e), 0);
    assert_int_equal(c.tcb_info_len, strlen("{\"x\":\"}\\\"\"}"));
    assert_memory_equal(c.tcb_info, "{\"x\":\"}\\\"\"}", c.tcb_info_len);
    assert_string_equal(c.qe_identity, "{\"k\":[]}");
    assert_int_equal(c.qe_identity_sig[63], 0xff);
    tb_tdx_collateral_clear(&c);
    static const char *const bad[] = {
        "{\"tcbInfo\": {",                                                /* truncated */
        "{\"tcbInfo\": 2, \"signature\": \"" SIG "\"}",                   /* not an object */
        "{\"tcbInfo\": {}, \"tcbInfo\": {}, \"signature\": \"" SIG "\"}", /* duplicate */
        "{\"tcbInfo\": {}, \"signature\": \"00\"}",                       /* short signature */
        "{\"tcbInfo\": {}}",                                              /* no signature */
        "{\"a\": {\"tcbInfo\": {}}, \"signature\": \"" SIG "\"}",         /* not top level */
        "{\"tcbInfo\": {}, \"signature\": \"" SIG "\"} x",                /* trailing bytes */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&c, 0, sizeof c);
        assert_int_equal(tb_tdx_collateral_from_pcs(bad[i], strlen(bad[i]), qe, strlen(qe), &c, &e),
                         -1);
        assert_non_null(strstr(e.msg, "TCB info response"));
        tb_tdx_collateral_clear(&c);
    }
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
    tb_tdx_collateral c, f;
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
    assert_int_equal(tb_tdx_collateral_load(dir, &f, &e), 0);
    assert_int_equal(f.tcb_info_len, c.tcb_info_len);
    assert_memory_equal(f.tcb_info, c.tcb_info, c.tcb_info_len);
    assert_memory_equal(f.root_ca_crl, c.root_ca_crl, c.root_ca_crl_len);
    /* It verifies like the JSON file. */
    char qp[1024];
    case_path("qvl-v4-uptodate", "quote.bin", qp, sizeof qp);
    tb_buf q = read_all(qp);
    tb_attest_root *root;
    tb_tdx_verdict v;
    assert_int_equal(tb_attest_root_intel(&root, &e), 0);
    assert_int_equal(tb_tdx_verify(q.p, q.len, &f, case_now("qvl-v4-uptodate"), NULL, root, &v), 0);
    tb_tdx_collateral_clear(&f);
    /* A missing piece names the file. */
    char path[1024];
    snprintf(path, sizeof path, "%s/pck_crl.der", dir);
    unlink(path);
    assert_int_equal(tb_tdx_collateral_load(dir, &f, &e), -1);
    assert_non_null(strstr(e.msg, "pck_crl"));
    tb_attest_root_free(root);
    tb_buf_clear(&q);
    tb_buf_clear(&b);
    free(hex);
    tb_tdx_collateral_clear(&c);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dcap_qvl_json_round_trip),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_strings_and_escapes),
        cmocka_unit_test(test_pem_crl_in_json),
        cmocka_unit_test(test_pcs_body_span),
        cmocka_unit_test(test_pcs_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
