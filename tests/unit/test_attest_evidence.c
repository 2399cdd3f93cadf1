/* Unit tests for attest/evidence: one handle per TEE kind -- the SIMULATED TDX provider
 * (a fresh PKI) and the SIMULATED SEV-SNP one (the committed tests/data/snp-sim PKI,
 * copied) give evidence whose report data is the one asked for, from several threads;
 * configfs-tsm opens and then fails without a guest; no TEE is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>

#include "attest/evidence.h"
#include "attest/snp.h"
#include "attest_test_util.h"

static void rd_of(int i, uint8_t rd[64])
{
    memset(rd, 0, 64);
    snprintf((char *)rd, 64, "evidence test %d", i);
}

typedef struct worker {
    tb_attest_evidence *ev;
    int id, ok;
} worker;

static void *get_one(void *arg)
{
    worker *w = arg;
    uint8_t rd[64], *q = NULL;
    size_t n;
    tb_err e;
    rd_of(w->id, rd);
    tb_attest_quote *qq = NULL;
    w->ok = tb_attest_evidence_get(w->ev, rd, &q, &n, &e) == 0 &&
            tb_attest_quote_parse(q, n, &qq, &e) == 0 &&
            !memcmp(tb_attest_quote_report_data(qq), rd, 64) && tb_attest_quote_is_simulated(qq);
    tb_attest_quote_free(qq);
    free(q);
    return NULL;
}

static void test_sim_tdx(void **state)
{
    (void)state;
    char dir[256];
    make_tmpdir(dir, sizeof dir);
    tb_attest_evidence *ev;
    tb_err e;
    assert_int_equal(tb_attest_evidence_open(TB_TEE_SIM, dir, NULL, &ev, &e), 0);
    assert_int_equal(tb_attest_evidence_kind(ev), TB_TEE_SIM);
    assert_string_equal(tb_attest_evidence_sim_dir(ev), dir);
    worker w[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){.ev = ev, .id = i};
        assert_int_equal(pthread_create(&t[i], NULL, get_one, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_true(w[i].ok);
    }
    tb_attest_evidence_close(ev);
    rm_rf(dir);
}

static void test_sim_snp(void **state)
{
    (void)state;
    char dir[256], cmd[1024];
    make_tmpdir(dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "cp -r '%s/tests/data/snp-sim/.' '%s/'", TEEBENCH_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    tb_attest_evidence *ev;
    tb_err e;
    assert_int_equal(tb_attest_evidence_open(TB_TEE_SIM_SNP, dir, NULL, &ev, &e), 0);
    uint8_t rd[64], *q = NULL;
    size_t n;
    rd_of(7, rd);
    assert_int_equal(tb_attest_evidence_get(ev, rd, &q, &n, &e), 0);
    assert_int_equal(n, TB_ATTEST_SNP_REPORT_LEN);
    tb_attest_snp_report r;
    assert_int_equal(tb_attest_snp_parse(q, n, &r, &e), 0);
    assert_memory_equal(r.report_data, rd, 64);
    assert_true(tb_attest_snp_is_simulated(&r));
    free(q);
    tb_attest_evidence_close(ev);
    rm_rf(dir);
}

static void test_tsm_and_refusals(void **state)
{
    (void)state;
    tb_attest_evidence *ev = (tb_attest_evidence *)&ev;
    tb_err e;
    /* no TEE: refused, *out NULL */
    assert_int_equal(tb_attest_evidence_open(TB_TEE_NONE, NULL, NULL, &ev, &e), -1);
    assert_null(ev);
    assert_non_null(strstr(e.msg, "unknown TEE 'none'"));
    /* configfs-tsm: opens; without a guest the first get says why */
    const tb_tee real[] = {TB_TEE_TDX, TB_TEE_SNP};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tb_attest_evidence_open(real[i], NULL, "/nonexistent/tsm/report", &ev, &e),
                         0);
        assert_int_equal(tb_attest_evidence_kind(ev), real[i]);
        assert_string_equal(tb_attest_evidence_sim_dir(ev), "");
        uint8_t rd[64] = {0}, *q = NULL;
        size_t n;
        assert_int_equal(tb_attest_evidence_get(ev, rd, &q, &n, &e), -1);
        assert_null(q);
        assert_non_null(strstr(e.msg, real[i] == TB_TEE_SNP ? "SEV-SNP" : "TDX"));
        tb_attest_evidence_close(ev);
    }
    tb_attest_evidence_close(NULL);
    /* a sim folder that cannot be made */
    assert_int_equal(tb_attest_evidence_open(TB_TEE_SIM, "/proc/version/sim", NULL, &ev, &e), -1);
    assert_null(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_tdx),
        cmocka_unit_test(test_sim_snp),
        cmocka_unit_test(test_tsm_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
