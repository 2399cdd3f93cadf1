/* Unit tests for attest/tdx/tcbinfo: TCB info v3 and QE identity v2 parsing and validation,
 * status names, ISO 8601 times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "attest/internal.h"
#include "attest_test_util.h"
#include "base/clock.h"

static void load(const char *name, tb_tdx_collateral *c)
{
    char p[1024];
    tb_err e;
    case_path(name, "collateral.json", p, sizeof p);
    assert_int_equal(tb_tdx_collateral_load(p, c, &e), 0);
}

static void test_tcb_info_parse(void **state)
{
    (void)state;
    tb_tdx_collateral c;
    tb_tdx_tcb_info t;
    tb_tdx_qe_identity q;
    tb_err e;
    load("qvl-v5-notcb", &c);
    assert_int_equal(tb_tdx_tcb_info_parse(c.tcb_info, c.tcb_info_len, &t, &e), 0);
    assert_int_equal(t.version, 3);
    assert_int_equal(t.fmspc[0], 0x90);
    assert_true(t.has_module);
    assert_int_equal(t.n_ids, 2);
    assert_string_equal(t.ids[1].id, "TDX_01");
    assert_int_equal(t.ids[1].n_levels, 3);
    assert_int_equal(t.ids[1].levels[1].status, TB_ATTEST_TCB_OUT_OF_DATE);
    assert_int_equal(t.ids[1].levels[1].adv.n, 2);
    assert_int_equal(t.levels[0].pcesvn, 13);
    assert_int_equal(t.levels[0].tdx[0], 5);
    assert_string_equal(t.levels[0].date, "2024-11-13T00:00:00Z");
    tb_tdx_tcb_info_clear(&t);
    assert_int_equal(tb_tdx_qe_identity_parse(c.qe_identity, c.qe_identity_len, &q, &e), 0);
    assert_int_equal(q.isvprodid, 2);
    assert_int_equal(q.miscselect_mask, 0xffffffffu);
    assert_int_equal(q.attributes_mask[0], 0xfb);
    assert_int_equal(q.levels[0].isvsvn, 4);
    tb_tdx_qe_identity_clear(&q);
    /* Wrong id / version / status. */
    const char *bad[] = {
        "{\"id\":\"SGX\",\"version\":3}",
        "{\"id\":\"TDX\",\"version\":2}",
        "{\"id\":\"TD_QE\",\"version\":2}",
    };
    assert_int_equal(tb_tdx_tcb_info_parse(bad[0], strlen(bad[0]), &t, &e), -1);
    assert_non_null(strstr(e.msg, "not \"TDX\""));
    assert_int_equal(tb_tdx_tcb_info_parse(bad[1], strlen(bad[1]), &t, &e), -1);
    assert_non_null(strstr(e.msg, "version 2"));
    assert_int_equal(tb_tdx_tcb_info_parse(bad[2], strlen(bad[2]), &t, &e), -1);
    char *s = strdup(c.tcb_info);
    char *st = strstr(strstr(s, "sgxtcbcomponents"), "\"UpToDate\""); /* a platform level */
    memcpy(st, "\"UpToLate\"", 10);
    assert_int_equal(tb_tdx_tcb_info_parse(s, strlen(s), &t, &e), -1);
    assert_non_null(strstr(e.msg, "UpToLate"));
    free(s);
    tb_tdx_collateral_clear(&c);
}

static void test_status_and_dates(void **state)
{
    (void)state;
    tb_attest_tcb_status s;
    for (int i = 0; i < TB_ATTEST_TCB_STATUS_COUNT; i++) {
        assert_int_equal(
            tb_attest_tcb_status_parse(tb_attest_tcb_status_name((tb_attest_tcb_status)i), &s), 0);
        assert_int_equal(s, i);
    }
    assert_int_equal(tb_attest_tcb_status_parse("uptodate", &s), -1);
    int64_t t;
    assert_int_equal(tb_tdx_iso8601_parse("2025-07-19T10:16:03Z", &t), 0);
    assert_int_equal(t, 1752920163);
    assert_int_equal(tb_tdx_iso8601_parse("2025-07-19T10:16:03.123Z", &t), 0);
    assert_int_equal(tb_tdx_iso8601_parse("2025-07-19 10:16:03", &t), -1);
    assert_int_equal(tb_tdx_iso8601_parse("2025-13-19T10:16:03Z", &t), -1);
    char out[32];
    tb_utc_iso8601(1752920163, out, sizeof out);
    assert_string_equal(out, "2025-07-19T10:16:03Z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcb_info_parse),
        cmocka_unit_test(test_status_and_dates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
