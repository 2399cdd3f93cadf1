/* Unit tests for attest/tdx/provider_sim: the simulated PKI (created once, atomically, reused
 * across processes and by the open-once API), its quotes and collateral, the "sim"
 * sources of tb_tdx_verify_quote, the state directory's resolution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <openssl/evp.h>

#include "attest/common/evidence.h"
#include "attest_test_util.h"
#include "base/file.h"

static void test_sim_state_created_once(void **state)
{
    (void)state;
    char dir[256], sim[300], root[512];
    make_tmpdir(dir, sizeof dir);
    snprintf(sim, sizeof sim, "%s/a/b/sim", dir);
    tb_err e;
    /* Two processes racing to create the PKI agree on one root. */
    pid_t kids[2];
    for (int i = 0; i < 2; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            uint8_t rd[64] = {0}, *q;
            size_t n;
            _exit(tb_tdx_sim_get_quote(sim, rd, 0, &q, &n, &e) == 0 ? 0 : 1);
        }
    }
    for (int i = 0; i < 2; i++) {
        int st;
        waitpid(kids[i], &st, 0);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    assert_int_equal(tb_tdx_sim_root_path(sim, root, sizeof root, &e), 0);
    tb_attest_root *r;
    assert_int_equal(tb_attest_root_load(root, &r, &e), 0);
    assert_true(r->simulated);
    /* Quotes made now verify with collateral made now with this root. */
    uint8_t rd[64], *q;
    size_t n;
    memset(rd, 0xab, sizeof rd);
    assert_int_equal(tb_tdx_sim_get_quote(sim, rd, 0, &q, &n, &e), 0);
    tb_tdx_collateral c;
    long long now = (long long)time(NULL);
    assert_int_equal(tb_tdx_sim_collateral(sim, now, 0, &c, NULL, &e), 0);
    tb_tdx_verdict v;
    assert_int_equal(tb_tdx_verify(q, n, &c, now, NULL, r, &v), 0);
    assert_true(v.simulated);
    /* The quote says SIMULATED in its header user data and certificate subjects. */
    tb_tdx_quote *pq;
    assert_int_equal(tb_tdx_quote_parse(q, n, &pq, &e), 0);
    assert_memory_equal(pq->user_data, "teebench SIMULATED", 18);
    assert_true(tb_tdx_quote_is_simulated(pq));
    char subj[4][256];
    assert_int_equal(tb_tdx_quote_pck_subjects(pq, subj, 4, &e), 3);
    for (int i = 0; i < 3; i++)
        assert_non_null(strstr(subj[i], "SIMULATED"));
    tb_tdx_pck_info pck;
    char fmspc[13];
    const char *ca;
    assert_int_equal(tb_tdx_quote_fmspc_ca(pq, fmspc, &ca, &e), 0);
    assert_string_equal(fmspc, "feeb00000000");
    assert_string_equal(ca, "processor");
    (void)pck;
    tb_tdx_quote_free(pq);
    /* The one-call helper with a "sim:DIR" source defaults to the sim root. */
    char src[400];
    snprintf(src, sizeof src, "sim:%s", sim);
    tb_tdx_timing t;
    assert_int_equal(tb_tdx_verify_quote(q, n, src, NULL, now, NULL, NULL, &v, &t, &e), 0);
    assert_true(v.simulated);
    /* ... and refuses it with the Intel root given explicitly. */
    char intel[1024];
    snprintf(intel, sizeof intel, "%s/tdx/intel-sgx-root-ca.pem", testdata());
    assert_int_equal(tb_tdx_verify_quote(q, n, src, intel, now, NULL, NULL, &v, &t, &e), -1);
    assert_int_equal(v.step, TB_TDX_STEP_PCK_CHAIN);
    /* tb_attest_get_evidence with options. */
    tb_attest_get_opts qo = {.sim_dir = sim, .sim_debug = 1};
    uint8_t *q2;
    size_t n2;
    assert_int_equal(tb_attest_get_evidence(TB_TEE_SIM, rd, &qo, &q2, &n2, &e), 0);
    assert_int_equal(tb_tdx_quote_parse(q2, n2, &pq, &e), 0);
    assert_true(tb_tdx_quote_is_debug(pq));
    tb_tdx_quote_free(pq);
    free(q2);
    free(q);
    tb_tdx_collateral_clear(&c);
    tb_attest_root_free(r);
    rm_rf(dir);
}

static void test_sim_open_once(void **state)
{
    (void)state;
    char dir[256], sim[300];
    make_tmpdir(dir, sizeof dir);
    snprintf(sim, sizeof sim, "%s/sim", dir);
    tb_tdx_sim *s;
    tb_err e;
    assert_int_equal(tb_tdx_sim_open(sim, &s, &e), 0); /* creates the PKI */
    uint8_t rd[64], *q;
    size_t n;
    memset(rd, 7, sizeof rd);
    assert_int_equal(tb_tdx_sim_quote(s, rd, 0, &q, &n, &e), 0);
    tb_tdx_collateral c;
    tb_attest_root *root;
    long long now = (long long)time(NULL);
    assert_int_equal(tb_tdx_sim_collateral(sim, now, 0, &c, &root, &e), 0);
    tb_tdx_verdict v;
    assert_int_equal(tb_tdx_verify(q, n, &c, now, NULL, root, &v), 0);
    assert_true(v.simulated);
    free(q);
    /* The DEBUG flag goes through too. */
    assert_int_equal(tb_tdx_sim_quote(s, rd, 1, &q, &n, &e), 0);
    assert_int_equal(tb_tdx_verify(q, n, &c, now, NULL, root, &v), -1);
    assert_int_equal(v.result, TB_ATTEST_REFUSED);
    free(q);
    tb_tdx_sim_close(s);
    tb_tdx_collateral_clear(&c);
    tb_attest_root_free(root);
    rm_rf(dir);
}

/* The verifier's copy of the sim collateral: made once and read back (the same TCB info
 * bytes) for 7 days; made again for a time outside that or when the cache is damaged;
 * a quote verifies with what it reads, through tb_tdx_verify_quote's "sim:DIR" too. */
static void test_sim_collateral_cached(void **state)
{
    (void)state;
    char dir[256], sim[300], path[400], src[320];
    make_tmpdir(dir, sizeof dir);
    snprintf(sim, sizeof sim, "%s/sim", dir);
    tb_tdx_sim *s;
    tb_err e;
    assert_int_equal(tb_tdx_sim_open(sim, &s, &e), 0);
    uint8_t rd[64], *q;
    size_t n;
    memset(rd, 3, sizeof rd);
    assert_int_equal(tb_tdx_sim_quote(s, rd, 0, &q, &n, &e), 0);
    int64_t now = (int64_t)time(NULL);
    tb_tdx_collateral a, b, c;
    tb_attest_root *ra, *rb, *rc;
    assert_int_equal(tb_tdx_sim_collateral_cached(sim, now, &a, &ra, &e), 0);
    assert_int_equal(tb_tdx_sim_collateral_cached(sim, now + 3600, &b, &rb, &e), 0);
    assert_int_equal(a.tcb_info_len, b.tcb_info_len);
    assert_memory_equal(a.tcb_info, b.tcb_info, a.tcb_info_len); /* read, not made again */
    assert_true(ra->simulated && rb->simulated);
    tb_tdx_verdict v;
    assert_int_equal(tb_tdx_verify(q, n, &b, now + 3600, NULL, rb, &v), 0);
    assert_true(v.simulated);
    /* eight days on, or before it was made: made again for that time */
    assert_int_equal(tb_tdx_sim_collateral_cached(sim, now + 8 * 86400, &c, &rc, &e), 0);
    assert_true(c.tcb_info_len != a.tcb_info_len || memcmp(c.tcb_info, a.tcb_info, a.tcb_info_len));
    assert_int_equal(tb_tdx_verify(q, n, &c, now + 8 * 86400, NULL, rc, &v), 0);
    tb_tdx_collateral_clear(&c);
    tb_attest_root_free(rc);
    /* a damaged cache is not an error: the collateral is made again */
    snprintf(path, sizeof path, "%s/collateral-cache.json", sim);
    assert_int_equal(tb_file_write_atomic(path, "{\"tcbInfo\": 1", 14, &e), 0);
    assert_int_equal(tb_tdx_sim_collateral_cached(sim, now + 8 * 86400, &c, &rc, &e), 0);
    assert_int_equal(tb_tdx_verify(q, n, &c, now + 8 * 86400, NULL, rc, &v), 0);
    /* the "sim:DIR" source of tb_tdx_verify_quote goes through the cache */
    snprintf(src, sizeof src, "sim:%s", sim);
    assert_int_equal(
        tb_tdx_verify_quote(q, n, src, NULL, now + 8 * 86400, NULL, NULL, &v, NULL, &e), 0);
    assert_true(v.simulated);
    free(q);
    tb_tdx_sim_close(s);
    tb_tdx_collateral_clear(&a);
    tb_tdx_collateral_clear(&b);
    tb_tdx_collateral_clear(&c);
    tb_attest_root_free(ra);
    tb_attest_root_free(rb);
    tb_attest_root_free(rc);
    rm_rf(dir);
}

static void test_sim_dir_resolution(void **state)
{
    (void)state;
    char out[512];
    tb_err e;
    setenv("TEEBENCH_SIM_DIR", "/tmp/sim-env", 1);
    assert_int_equal(tb_attest_sim_dir("/tmp/over", out, sizeof out, &e), 0);
    assert_string_equal(out, "/tmp/over");
    assert_int_equal(tb_attest_sim_dir(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/tmp/sim-env");
    unsetenv("TEEBENCH_SIM_DIR");
    setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    assert_int_equal(tb_attest_sim_dir(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/tmp/xdg/teebench/sim");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    assert_int_equal(tb_attest_sim_dir(NULL, out, sizeof out, &e), 0);
    assert_string_equal(out, "/home/u/.cache/teebench/sim");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_state_created_once),
        cmocka_unit_test(test_sim_open_once),
        cmocka_unit_test(test_sim_collateral_cached),
        cmocka_unit_test(test_sim_dir_resolution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
