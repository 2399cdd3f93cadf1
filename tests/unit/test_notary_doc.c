/* Unit tests for src/notary/doc: encode/decode round trip, canonical form,
 * the signature covers every byte, strict decoding, chain checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <time.h>

#include "notary/internal.h"
#include "notary/doc.h"
#include "notary_util.h"

typedef struct fx {
    test_pki pki;
    tb_notary_key key;
    tb_buf cert, ca;
    tb_notary_doc d;
} fx;

static const char REQ[] = "GET / HTTP/1.1\r\nHost: test-server.io\r\n\r\n";
static const char RESP[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    tb_err err;
    if (test_pki_make(&f->pki) < 0 || tb_notary_key_generate(&f->key, &err) < 0 ||
        test_pem_to_der(f->pki.cert, &f->cert) < 0 || test_pem_to_der(f->pki.ca, &f->ca) < 0)
        return -1;
    tb_notary_doc *d = &f->d;
    for (int i = 0; i < 16; i++)
        d->session_id[i] = (uint8_t)i;
    d->time_ms = (uint64_t)time(NULL) * 1000 + 123;
    d->server_name = (tb_notary_view){(const uint8_t *)"test-server.io", 14};
    d->target_host = (tb_notary_view){(const uint8_t *)"127.0.0.1", 9};
    d->target_port = 4000;
    d->tee = (tb_notary_view){(const uint8_t *)"sim", 3};
    d->nonce = (tb_notary_view){(const uint8_t *)"0123456789abcdef0123456789abcdef", 32};
    d->notary_key = (tb_notary_view){f->key.spki.p, f->key.spki.len};
    d->n_certs = 2;
    d->certs[0] = (tb_notary_view){f->cert.p, f->cert.len};
    d->certs[1] = (tb_notary_view){f->ca.p, f->ca.len};
    d->request = (tb_notary_view){(const uint8_t *)REQ, strlen(REQ)};
    d->response = (tb_notary_view){(const uint8_t *)RESP, strlen(RESP)};
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    test_pki_remove(&f->pki);
    tb_notary_key_clear(&f->key);
    tb_buf_clear(&f->cert);
    tb_buf_clear(&f->ca);
    free(f);
    return 0;
}

static int view_eq(tb_notary_view a, tb_notary_view b)
{
    return a.len == b.len && (a.len == 0 || !memcmp(a.p, b.p, a.len));
}

static void test_roundtrip(void **state)
{
    fx *f = *state;
    tb_err err;
    tb_buf out = {0};
    assert_int_equal(tb_notary_doc_encode_sign(&f->d, &f->key, &out, &err), 0);
    tb_notary_doc g;
    assert_int_equal(tb_notary_doc_verify(out.p, out.len, &g, &err), 0);
    assert_int_equal(g.version, TB_NOTARY_DOC_VERSION);
    assert_memory_equal(g.session_id, f->d.session_id, 16);
    assert_true(g.time_ms == f->d.time_ms);
    assert_int_equal(g.target_port, 4000);
    assert_true(view_eq(g.server_name, f->d.server_name));
    assert_true(view_eq(g.target_host, f->d.target_host));
    assert_true(view_eq(g.tee, f->d.tee));
    assert_true(view_eq(g.nonce, f->d.nonce));
    assert_true(view_eq(g.notary_key, f->d.notary_key));
    assert_int_equal(g.n_certs, 2);
    assert_true(view_eq(g.certs[0], f->d.certs[0]));
    assert_true(view_eq(g.certs[1], f->d.certs[1]));
    assert_true(view_eq(g.request, f->d.request));
    assert_true(view_eq(g.response, f->d.response));
    /* re-encoding the decoded document gives the same signed bytes */
    tb_buf again = {0};
    assert_int_equal(tb_notary_doc_encode_sign(&g, &f->key, &again, &err), 0);
    tb_notary_doc h;
    assert_int_equal(tb_notary_doc_verify(again.p, again.len, &h, &err), 0);
    assert_int_equal(h.signed_len, g.signed_len);
    assert_memory_equal(again.p, out.p, g.signed_len); /* ECDSA signatures differ; the rest not */
    tb_buf_clear(&again);
    tb_buf_clear(&out);
}

static void test_every_byte_is_covered(void **state)
{
    fx *f = *state;
    tb_err err;
    tb_buf out = {0};
    assert_int_equal(tb_notary_doc_encode_sign(&f->d, &f->key, &out, &err), 0);
    tb_notary_doc g;
    for (size_t i = 0; i < out.len; i++) {
        out.p[i] ^= 0x01;
        assert_int_equal(tb_notary_doc_verify(out.p, out.len, &g, &err), -1);
        out.p[i] ^= 0x01;
    }
    assert_int_equal(tb_notary_doc_verify(out.p, out.len, &g, &err), 0);
    /* truncation and trailing bytes */
    for (size_t n = 0; n < out.len; n += 7)
        assert_int_equal(tb_notary_doc_verify(out.p, n, &g, &err), -1);
    tb_buf_puts(&out, "x");
    assert_int_equal(tb_notary_doc_verify(out.p, out.len, &g, &err), -1);
    assert_non_null(strstr(err.msg, "after the signature"));
    tb_buf_clear(&out);
}

/* Every TEE kind round-trips, SEV-SNP's longer names included; the field is 3..7 bytes
 * and names only known kinds. */
static void test_tee_kinds(void **state)
{
    fx *f = *state;
    tb_err err;
    static const char *const ok[] = {"none", "tdx", "sim", "snp", "sim-snp"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        tb_notary_doc d = f->d, g;
        d.tee = (tb_notary_view){(const uint8_t *)ok[i], strlen(ok[i])};
        tb_buf out = {0};
        assert_int_equal(tb_notary_doc_encode_sign(&d, &f->key, &out, &err), 0);
        assert_int_equal(tb_notary_doc_verify(out.p, out.len, &g, &err), 0);
        assert_true(view_eq(g.tee, d.tee));
        tb_buf_clear(&out);
    }
    static const char *const bad[] = {"sim-sn", "sim-snpx", "sev", "snp "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tb_notary_doc d = f->d;
        d.tee = (tb_notary_view){(const uint8_t *)bad[i], strlen(bad[i])};
        tb_buf out = {0};
        assert_int_equal(tb_notary_doc_encode_sign(&d, &f->key, &out, &err), -1);
        assert_non_null(strstr(err.msg, "sim-snp"));
        assert_int_equal(out.len, 0);
    }
}

static void test_field_ranges(void **state)
{
    fx *f = *state;
    tb_err err;
    tb_buf out = {0};
    tb_notary_doc d = f->d;
    d.server_name = (tb_notary_view){(const uint8_t *)"bad name", 8};
    assert_int_equal(tb_notary_doc_encode_sign(&d, &f->key, &out, &err), -1);
    assert_non_null(strstr(err.msg, "server name"));
    d = f->d;
    d.tee = (tb_notary_view){(const uint8_t *)"sgx", 3};
    assert_int_equal(tb_notary_doc_encode_sign(&d, &f->key, &out, &err), -1);
    d = f->d;
    d.n_certs = 0;
    assert_int_equal(tb_notary_doc_encode_sign(&d, &f->key, &out, &err), -1);
    d = f->d;
    d.target_port = 0;
    assert_int_equal(tb_notary_doc_encode_sign(&d, &f->key, &out, &err), -1);
    /* the key field must be the signing key */
    tb_notary_key other;
    assert_int_equal(tb_notary_key_generate(&other, &err), 0);
    d = f->d;
    assert_int_equal(tb_notary_doc_encode_sign(&d, &other, &out, &err), -1);
    assert_int_equal(out.len, 0);
    tb_notary_key_clear(&other);
    /* a wrong magic or version is named */
    tb_notary_doc g;
    assert_int_equal(tb_notary_doc_decode((const uint8_t *)"TBNX\0\1", 6, &g, &err), -1);
    assert_non_null(strstr(err.msg, "magic"));
    assert_int_equal(tb_notary_doc_decode((const uint8_t *)"TBND\0\2", 6, &g, &err), -1);
    assert_non_null(strstr(err.msg, "version 2"));
    tb_buf_clear(&out);
}

static void test_chain(void **state)
{
    fx *f = *state;
    tb_err err;
    X509_STORE *st = X509_STORE_new();
    assert_int_equal(X509_STORE_load_file(st, f->pki.ca), 1);
    assert_int_equal(tb_notary_doc_verify_chain(&f->d, st, &err), 0);
    /* another name */
    tb_notary_doc d = f->d;
    d.server_name = (tb_notary_view){(const uint8_t *)"other.example", 13};
    assert_int_equal(tb_notary_doc_verify_chain(&d, st, &err), -1);
    assert_non_null(strstr(err.msg, "other.example"));
    /* a time outside the validity */
    d = f->d;
    d.time_ms = 1000;
    assert_int_equal(tb_notary_doc_verify_chain(&d, st, &err), -1);
    X509_STORE_free(st);
    /* a store without the CA */
    st = X509_STORE_new();
    assert_int_equal(tb_notary_doc_verify_chain(&f->d, st, &err), -1);
    X509_STORE_free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),    cmocka_unit_test(test_every_byte_is_covered),
        cmocka_unit_test(test_field_ranges), cmocka_unit_test(test_tee_kinds),
        cmocka_unit_test(test_chain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
