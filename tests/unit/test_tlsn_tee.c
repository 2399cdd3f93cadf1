/* Unit tests for tlsn/tee: REPORTDATA is SHA-512 over exactly the documented bytes,
 * and changes with each part; a SIMULATED quote made for one session verifies for it
 * and is rejected for another session, another nonce, another server name or
 * another transcript, and a byte flipped in the quote fails it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "tlsn/tee.h"

static char tmp[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/test_tlsn_tee.XXXXXX");
    return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd) == 0 ? 0 : -1;
}

static const uint8_t sid_a[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t sid_b[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17};
static uint8_t nonce[32], nonce2[32];
static const char sent[] = "GET /formats/json?size=4 HTTP/1.1\r\nhost: test-server.io\r\n\r\n";
static const char recv_[] = "HTTP/1.1 200 OK\r\n\r\n{}";

static void rd(const uint8_t *sid, const uint8_t *n, const char *name, const char *s, const char *r,
               uint8_t out[64])
{
    tb_tlsn_tee_report_data(sid, n, name, (const uint8_t *)s, strlen(s), (const uint8_t *)r,
                            strlen(r), out);
}

static void test_report_data(void **state)
{
    (void)state;
    memset(nonce, 0x5a, sizeof nonce);
    uint8_t a[64], b[64];
    rd(sid_a, nonce, "test-server.io", sent, recv_, a);
    /* by hand */
    uint8_t hs[32], hr[32], want[64];
    unsigned l;
    EVP_Digest(sent, strlen(sent), hs, &l, EVP_sha256(), NULL);
    EVP_Digest(recv_, strlen(recv_), hr, &l, EVP_sha256(), NULL);
    uint8_t msg[20 + 16 + 32 + 4 + 14 + 64];
    size_t k = 0;
    memcpy(msg, "teebench-tlsn-tee/1", 19);
    k = 19;
    msg[k++] = 0;
    memcpy(msg + k, sid_a, 16), k += 16;
    memcpy(msg + k, nonce, 32), k += 32;
    msg[k++] = 0, msg[k++] = 0, msg[k++] = 0, msg[k++] = 14;
    memcpy(msg + k, "test-server.io", 14), k += 14;
    memcpy(msg + k, hs, 32), k += 32;
    memcpy(msg + k, hr, 32), k += 32;
    EVP_Digest(msg, k, want, &l, EVP_sha512(), NULL);
    assert_memory_equal(a, want, 64);
    rd(sid_b, nonce, "test-server.io", sent, recv_, b);
    assert_memory_not_equal(a, b, 64);
    rd(sid_a, nonce, "test-server.iq", sent, recv_, b);
    assert_memory_not_equal(a, b, 64);
    rd(sid_a, nonce, "test-server.io", sent, "HTTP/1.1 200 OK\r\n\r\n{ }", b);
    assert_memory_not_equal(a, b, 64);
}

static void test_sim_quote_binds_session(void **state)
{
    (void)state;
    memset(nonce, 0x5a, sizeof nonce);
    memset(nonce2, 0x5b, sizeof nonce2);
    tb_tlsn_tee t;
    tb_err e;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/sim", tmp);
    assert_int_equal(tb_tlsn_tee_open(TB_TEE_SIM, dir, &t, &e), 0);
    assert_true(tb_tee_simulated(t.kind));
    uint8_t a[64], other[64];
    rd(sid_a, nonce, "test-server.io", sent, recv_, a);
    uint8_t *q = NULL;
    size_t ql = 0;
    assert_int_equal(tb_tlsn_tee_quote(&t, a, &q, &ql, &e), 0);
    assert_true(ql > 600);
    assert_int_equal(tb_tlsn_tee_verify(&t, q, ql, a, &e), 0);
    /* another session's expectation: the quote does not bind it */
    rd(sid_b, nonce, "test-server.io", sent, recv_, other);
    assert_int_equal(tb_tlsn_tee_verify(&t, q, ql, other, &e), -1);
    assert_non_null(strstr(e.msg, "does not bind this session"));
    rd(sid_a, nonce2, "test-server.io", sent, recv_, other);
    assert_int_equal(tb_tlsn_tee_verify(&t, q, ql, other, &e), -1);
    rd(sid_a, nonce, "test-server.io", sent, "HTTP/1.1 500 x\r\n\r\n", other);
    assert_int_equal(tb_tlsn_tee_verify(&t, q, ql, other, &e), -1);
    /* a byte of the signed body changed */
    q[100] ^= 1;
    assert_int_equal(tb_tlsn_tee_verify(&t, q, ql, a, &e), -1);
    free(q);
    tb_tlsn_tee_close(&t);
    assert_int_equal(tb_tlsn_tee_open(TB_TEE_SNP, dir, &t, &e), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_data),
        cmocka_unit_test(test_sim_quote_binds_session),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
