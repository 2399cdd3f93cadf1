/* Unit tests for attest/common/evidence: one handle per TEE kind -- the SIMULATED TDX provider
 * (a fresh PKI) and the SIMULATED SEV-SNP one (the committed tests/data/snp-sim PKI,
 * copied) give evidence whose report data is the one asked for, from several threads;
 * configfs-tsm opens and then fails without a guest; no TEE is refused. The collateral
 * and verifier of both families: the SIMULATED PKI's collateral (and a file of it, and a
 * folder of SEV-SNP certificates) verifies the evidence, REFUSED for other report data,
 * INVALID for a changed byte, through check and through timing alike; read gives the
 * report data and the SIMULATED marker; what cannot be prepared says why, and
 * check_traced says what failed (the evidence, its key, the collateral, the root -- the
 * root before a PCCS is asked) and what it did (fetch and verify times, no cache). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "base/file.h"

#include "attest/common/evidence.h"
#include "attest/snp/snp.h"
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
    tb_tdx_quote *qq = NULL;
    w->ok = tb_attest_evidence_get(w->ev, rd, &q, &n, &e) == 0 &&
            tb_tdx_quote_parse(q, n, &qq, &e) == 0 &&
            !memcmp(tb_tdx_quote_report_data(qq), rd, 64) && tb_tdx_quote_is_simulated(qq);
    tb_tdx_quote_free(qq);
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
    assert_int_equal(n, TB_SNP_REPORT_LEN);
    tb_snp_report r;
    assert_int_equal(tb_snp_parse(q, n, &r, &e), 0);
    assert_memory_equal(r.report_data, rd, 64);
    assert_true(tb_snp_is_simulated(&r));
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

/* prepare from src, then verify, check and time ev's evidence for rd: ACCEPTED, SIMULATED;
   other report data REFUSED; a changed signed byte INVALID. */
static void verify_both_ways(tb_attest_evidence *ev, const tb_attest_collateral_source *src)
{
    tb_tee kind = tb_attest_evidence_kind(ev);
    uint8_t rd[64], *q = NULL, back[64];
    size_t n;
    tb_err e;
    int64_t now = (int64_t)time(NULL);
    rd_of(3, rd);
    assert_int_equal(tb_attest_evidence_get(ev, rd, &q, &n, &e), 0);
    int sim = 0;
    assert_int_equal(tb_attest_evidence_read(kind, q, n, back, &sim, &e), 0);
    assert_memory_equal(back, rd, 64);
    assert_true(sim);
    tb_attest_evidence_collateral c;
    assert_int_equal(tb_attest_evidence_prepare(kind, q, n, src, now, &c, &e), 0);
    assert_true(tb_tee_family_of(kind) == TB_TEE_FAMILY_SNP ? c.certs.vcek != NULL
                                                            : c.tdx.tcb_info != NULL);
    tb_attest_policy pol;
    tb_attest_policy_default(&pol);
    memcpy(pol.report_data, rd, 64);
    pol.report_data_len = 64;
    tb_attest_evidence_verdict v;
    if (tb_attest_evidence_verify(&c, q, n, now, &pol, &v) < 0) /* say why */
        fail_msg("%s: %s at %s", tb_tee_name(kind), tb_attest_evidence_reason(&v),
                 tb_attest_evidence_step(&v));
    assert_int_equal(v.result, TB_ATTEST_ACCEPTED);
    assert_int_equal(v.family, tb_tee_family_of(kind));
    assert_true(v.simulated);
    int prepared = 0;
    assert_int_equal(tb_attest_evidence_check(kind, q, n, src, now, &pol, &v, &prepared, &e), 0);
    assert_true(prepared);
    tb_attest_timing_opts o = {.batches = 2, .per = 2};
    for (int way = 0; way < 2; way++) {
        tb_attest_timed t;
        assert_int_equal(tb_attest_evidence_time(&c, q, n, now, (tb_attest_way)way, &o, &t, &e), 0);
        assert_int_equal(t.batch, 2);
        assert_int_equal(v.family == TB_TEE_FAMILY_SNP ? t.snp.result : t.tdx.result,
                         TB_ATTEST_ACCEPTED);
    }
    pol.report_data[0] ^= 1; /* another binding: valid, refused */
    assert_int_equal(tb_attest_evidence_verify(&c, q, n, now, &pol, &v), -1);
    assert_int_equal(v.result, TB_ATTEST_REFUSED);
    assert_non_null(strstr(tb_attest_evidence_reason(&v), "differs from the policy's"));
    q[n / 3] ^= 1; /* a changed byte: invalid */
    assert_int_equal(tb_attest_evidence_verify(&c, q, n, now, NULL, &v), -1);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    assert_true(tb_attest_evidence_step(&v)[0]);
    tb_attest_evidence_collateral_clear(&c);
    assert_null(c.json);
    free(q);
}

static void test_collateral_and_verify(void **state)
{
    (void)state;
    char dir[256], cmd[1024], file[300], certs[300];
    make_tmpdir(dir, sizeof dir);
    tb_attest_evidence *ev;
    tb_err e;
    /* SIMULATED TDX: the sim PKI's collateral, fresh and cached, then as a file */
    assert_int_equal(tb_attest_evidence_open(TB_TEE_SIM, dir, NULL, &ev, &e), 0);
    tb_attest_collateral_source fresh = {.sim_dir = dir, .fetch.no_cache = 1};
    verify_both_ways(ev, &fresh);
    tb_attest_collateral_source cached = {.sim_dir = dir};
    verify_both_ways(ev, &cached);
    tb_attest_evidence_collateral c;
    assert_int_equal(
        tb_attest_evidence_prepare(TB_TEE_SIM, NULL, 0, &fresh, (int64_t)time(NULL), &c, &e), 0);
    assert_null(c.json); /* made by timing when needed */
    char *json;
    assert_int_equal(tb_tdx_collateral_to_json(&c.tdx, &json, &e), 0);
    snprintf(file, sizeof file, "%s/collateral.json", dir);
    assert_int_equal(tb_file_write_atomic(file, json, strlen(json), &e), 0);
    free(json);
    tb_attest_evidence_collateral_clear(&c);
    char root[300];
    assert_int_equal(tb_tdx_sim_root_path(dir, root, sizeof root, &e), 0);
    tb_attest_collateral_source from_file = {.collateral = file, .root = root};
    tb_attest_evidence_close(ev);
    /* the file with the real kind's verifier: the root given makes it verify */
    assert_int_equal(tb_attest_evidence_open(TB_TEE_SIM, dir, NULL, &ev, &e), 0);
    verify_both_ways(ev, &from_file);
    tb_attest_evidence_close(ev);
    /* what cannot be prepared */
    tb_attest_collateral_source missing = {.collateral = "/nonexistent/collateral.json"};
    assert_int_equal(
        tb_attest_evidence_prepare(TB_TEE_TDX, NULL, 0, &missing, (int64_t)time(NULL), &c, &e), -1);
    assert_non_null(strstr(e.msg, "/nonexistent/collateral.json"));
    tb_attest_collateral_source nothing = {0};
    assert_int_equal(
        tb_attest_evidence_prepare(TB_TEE_SNP, NULL, 0, &nothing, (int64_t)time(NULL), &c, &e), -1);
    assert_non_null(strstr(e.msg, "no certificates"));
    assert_int_equal(
        tb_attest_evidence_prepare(TB_TEE_NONE, NULL, 0, &nothing, (int64_t)time(NULL), &c, &e),
        -1);
    rm_rf(dir);

    /* SIMULATED SEV-SNP: the sim PKI's certificates, then a folder of them */
    make_tmpdir(dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "cp -r '%s/tests/data/snp-sim/.' '%s/'", TEEBENCH_SOURCE_DIR, dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(tb_attest_evidence_open(TB_TEE_SIM_SNP, dir, NULL, &ev, &e), 0);
    tb_attest_collateral_source snp = {.sim_dir = dir};
    verify_both_ways(ev, &snp);
    snprintf(certs, sizeof certs, "%s/given-certs", dir);
    assert_int_equal(tb_snp_sim_certs(dir, certs, (int64_t)time(NULL), 0, &e), 0);
    tb_attest_collateral_source folder = {.sim_dir = dir, .certs = certs};
    verify_both_ways(ev, &folder);
    tb_attest_evidence_close(ev);
    rm_rf(dir);
}

/* check_traced: what preparing failed at, with the reason unwrapped; a verified check's
   times; the root refused before a PCCS is asked (nothing listens at the URL, yet the
   error is the root's). */
static void test_check_traced(void **state)
{
    (void)state;
    char url[64], p[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    tb_attest_evidence_verdict v;
    tb_attest_check_trace t;
    tb_err e;
    const uint8_t junk[] = "junk";
    tb_attest_collateral_source pccs = {.pccs = url, .fetch = {.no_cache = 1, .timeout_ms = 2000}};
    assert_int_equal(
        tb_attest_evidence_check_traced(TB_TEE_TDX, junk, 4, &pccs, 0, NULL, &v, &t, &e), -1);
    assert_int_equal(t.failed, TB_ATTEST_PREP_PARSE);
    assert_int_equal(v.result, TB_ATTEST_INVALID);
    assert_true(t.fetch_ns == 0 && t.verify_ns == 0);
    pccs.root = "/nonexistent/root.pem";
    assert_int_equal(
        tb_attest_evidence_check_traced(TB_TEE_TDX, junk, 4, &pccs, 0, NULL, &v, &t, &e), -1);
    assert_int_equal(t.failed, TB_ATTEST_PREP_ROOT);
    assert_non_null(strstr(e.msg, "/nonexistent/root.pem"));
    case_path("qvl-v4-uptodate", "quote.bin", p, sizeof p);
    tb_buf q = read_all(p);
    long long now = case_now("qvl-v4-uptodate");
    pccs.root = NULL; /* the quote reads; the PCCS does not answer */
    assert_int_equal(
        tb_attest_evidence_check_traced(TB_TEE_TDX, q.p, q.len, &pccs, now, NULL, &v, &t, &e), -1);
    assert_int_equal(t.failed, TB_ATTEST_PREP_COLLATERAL);
    assert_non_null(strstr(e.msg, url));
    assert_true(t.fetch_ns > 0);
    case_path("qvl-v4-uptodate", "collateral.json", p, sizeof p);
    tb_attest_collateral_source file = {.collateral = p};
    assert_int_equal(
        tb_attest_evidence_check_traced(TB_TEE_TDX, q.p, q.len, &file, now, NULL, &v, &t, &e), 0);
    assert_int_equal(t.failed, TB_ATTEST_PREP_OK);
    assert_true(t.fetch_ns > 0 && t.verify_ns > 0);
    assert_false(t.from_cache || t.refetched || t.refetch_failed || t.not_kept);
    assert_int_equal(
        tb_attest_evidence_check_traced(TB_TEE_TDX, q.p, q.len, &file, now, NULL, &v, NULL, &e),
        0); /* no trace asked for */
    tb_buf_clear(&q);
    tb_attest_collateral_source nothing = {.kds = url};
    assert_int_equal(
        tb_attest_evidence_check_traced(TB_TEE_SNP, junk, 4, &nothing, 0, NULL, &v, &t, &e), -1);
    assert_int_equal(t.failed, TB_ATTEST_PREP_PARSE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_tdx),          cmocka_unit_test(test_sim_snp),
        cmocka_unit_test(test_tsm_and_refusals), cmocka_unit_test(test_collateral_and_verify),
        cmocka_unit_test(test_check_traced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
