/* Unit tests for base/tee: every kind's name parses back to it, the traits of
 * each row (family, simulated, the real kind, the words), the attest provider
 * names and a guest's env tee, and the refusal of names that are not a kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/tee.h"

static void test_name_roundtrip(void **state)
{
    (void)state;
    const char *names[TB_TEE_COUNT] = {"none", "tdx", "snp", "sim", "sim-snp"};
    for (int t = 0; t < TB_TEE_COUNT; t++) {
        assert_string_equal(tb_tee_name((tb_tee)t), names[t]);
        tb_tee back = TB_TEE_COUNT;
        assert_int_equal(tb_tee_parse(tb_tee_name((tb_tee)t), &back), 0);
        assert_int_equal(back, t);
    }
    /* names are distinct: no two kinds parse to the same one */
    for (int a = 0; a < TB_TEE_COUNT; a++)
        for (int b = a + 1; b < TB_TEE_COUNT; b++)
            assert_string_not_equal(tb_tee_name((tb_tee)a), tb_tee_name((tb_tee)b));
}

static void test_refuses_unknown(void **state)
{
    (void)state;
    const char *bad[] = {"",       "TDX",      "SNP",     "sev",    "sev-snp",
                         "sev-es", "sim-tdx",  "sim ",    "simsnp", "tsm",
                         "auto",   "external", "unknown", "sgx",    "tdx\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tb_tee t = TB_TEE_SNP;
        assert_int_equal(tb_tee_parse(bad[i], &t), -1);
        assert_int_equal(t, TB_TEE_SNP); /* untouched */
    }
    tb_tee t = TB_TEE_SNP;
    assert_int_equal(tb_tee_parse(NULL, &t), -1);
    assert_int_equal(tb_tee_provider(NULL, &t), -1);
    assert_int_equal(tb_tee_provider("tdx", &t), -1);
    assert_int_equal(tb_tee_provider("none", &t), -1);
    assert_int_equal(t, TB_TEE_SNP);
}

static void test_traits(void **state)
{
    (void)state;
    assert_int_equal(tb_tee_family_of(TB_TEE_NONE), TB_TEE_FAMILY_NONE);
    assert_int_equal(tb_tee_family_of(TB_TEE_TDX), TB_TEE_FAMILY_TDX);
    assert_int_equal(tb_tee_family_of(TB_TEE_SIM), TB_TEE_FAMILY_TDX);
    assert_int_equal(tb_tee_family_of(TB_TEE_SNP), TB_TEE_FAMILY_SNP);
    assert_int_equal(tb_tee_family_of(TB_TEE_SIM_SNP), TB_TEE_FAMILY_SNP);
    assert_false(tb_tee_simulated(TB_TEE_NONE));
    assert_false(tb_tee_simulated(TB_TEE_TDX));
    assert_false(tb_tee_simulated(TB_TEE_SNP));
    assert_true(tb_tee_simulated(TB_TEE_SIM));
    assert_true(tb_tee_simulated(TB_TEE_SIM_SNP));
    assert_int_equal(tb_tee_traits_of(TB_TEE_SIM)->real, TB_TEE_TDX);
    assert_int_equal(tb_tee_traits_of(TB_TEE_SIM_SNP)->real, TB_TEE_SNP);
    assert_int_equal(tb_tee_traits_of(TB_TEE_SNP)->real, TB_TEE_SNP);
    assert_string_equal(tb_tee_traits_of(TB_TEE_SIM_SNP)->family_name, "SEV-SNP");
    assert_string_equal(tb_tee_traits_of(TB_TEE_TDX)->evidence, "TDX quote");
    assert_string_equal(tb_tee_traits_of(TB_TEE_SNP)->evidence_words, "SEV-SNP reports");
    assert_null(tb_tee_traits_of(TB_TEE_NONE)->evidence_words);
    for (int t = 0; t < TB_TEE_COUNT; t++) {
        const tb_tee_traits *x = tb_tee_traits_of((tb_tee)t);
        /* a simulated kind says so in its words; a real one does not */
        if (x->evidence_words)
            assert_int_equal(strstr(x->evidence_words, "SIMULATED") != NULL, x->simulated);
        /* a kind with evidence is of a family, and its real kind is of the same one */
        assert_int_equal(x->evidence != NULL, x->family != TB_TEE_FAMILY_NONE);
        assert_int_equal(tb_tee_family_of(x->real), x->family);
        assert_false(tb_tee_simulated(x->real));
    }
    /* a value outside the enum reads as none, never out of the table */
    assert_string_equal(tb_tee_name((tb_tee)TB_TEE_COUNT), "none");
    assert_string_equal(tb_tee_name((tb_tee)-1), "none");
}

static void test_provider_and_guest(void **state)
{
    (void)state;
    const struct {
        const char *name;
        tb_tee tee;
    } prov[] = {
        {"tsm", TB_TEE_TDX}, {"snp", TB_TEE_SNP}, {"sim", TB_TEE_SIM}, {"sim-snp", TB_TEE_SIM_SNP}};
    for (size_t i = 0; i < sizeof prov / sizeof prov[0]; i++) {
        tb_tee t = TB_TEE_NONE;
        assert_int_equal(tb_tee_provider(prov[i].name, &t), 0);
        assert_int_equal(t, prov[i].tee);
        assert_string_equal(tb_tee_traits_of(t)->provider, prov[i].name);
    }
    assert_null(tb_tee_traits_of(TB_TEE_NONE)->provider);
    assert_int_equal(tb_tee_guest("tdx"), TB_TEE_TDX);
    assert_int_equal(tb_tee_guest("snp"), TB_TEE_SNP);
    const char *no[] = {"none", "sev", "sev-es", "unknown", "sim", "sim-snp", "", NULL};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        assert_int_equal(tb_tee_guest(no[i]), TB_TEE_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_roundtrip),
        cmocka_unit_test(test_refuses_unknown),
        cmocka_unit_test(test_traits),
        cmocka_unit_test(test_provider_and_guest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
