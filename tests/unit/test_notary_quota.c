/* Unit tests for src/notary/quota: counts per client key up to the limit,
 * given back to zero, the key limit, and the table staying consistent under
 * many takes and gives of colliding and non-colliding keys (checked against a
 * plain array). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "notary/internal.h"

static void key_of(unsigned v, uint8_t k[16])
{
    memset(k, 0, 16);
    k[10] = k[11] = 0xff; /* as an IPv4-mapped client key */
    k[12] = (uint8_t)(v >> 24);
    k[13] = (uint8_t)(v >> 16);
    k[14] = (uint8_t)(v >> 8);
    k[15] = (uint8_t)v;
}

static void test_limit_per_key(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_quota q;
    assert_int_equal(tb_notary_quota_init(&q, 4, 2, &err), 0);
    uint8_t a[16], b[16];
    key_of(1, a);
    key_of(2, b);
    assert_int_equal(tb_notary_quota_take(&q, a), 0);
    assert_int_equal(tb_notary_quota_take(&q, a), 0);
    assert_int_equal(tb_notary_quota_take(&q, a), -1); /* at the limit */
    assert_int_equal(tb_notary_quota_count(&q, a), 2);
    assert_int_equal(tb_notary_quota_take(&q, b), 0); /* others are not affected */
    tb_notary_quota_give(&q, a);
    assert_int_equal(tb_notary_quota_take(&q, a), 0);
    tb_notary_quota_give(&q, a);
    tb_notary_quota_give(&q, a);
    tb_notary_quota_give(&q, a); /* nothing held: no effect */
    assert_int_equal(tb_notary_quota_count(&q, a), 0);
    assert_int_equal(tb_notary_quota_count(&q, b), 1);
    assert_int_equal(q.used, 1);
    tb_notary_quota_clear(&q);
    assert_int_equal(tb_notary_quota_init(&q, 0, 2, &err), -1);
}

static void test_max_keys(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_quota q;
    assert_int_equal(tb_notary_quota_init(&q, 3, 5, &err), 0);
    uint8_t k[16];
    for (unsigned i = 0; i < 3; i++) {
        key_of(i, k);
        assert_int_equal(tb_notary_quota_take(&q, k), 0);
    }
    key_of(3, k);
    assert_int_equal(tb_notary_quota_take(&q, k), -1); /* a fourth client */
    key_of(0, k);
    assert_int_equal(tb_notary_quota_take(&q, k), 0); /* a known one may */
    tb_notary_quota_give(&q, k);
    tb_notary_quota_give(&q, k);
    key_of(3, k);
    assert_int_equal(tb_notary_quota_take(&q, k), 0);
    tb_notary_quota_clear(&q);
}

/* Random takes and gives over 300 keys in a table of 512 entries (full
 * enough for long probe runs), compared with a plain count array. */
static void test_model(void **state)
{
    (void)state;
    enum { KEYS = 300, LIMIT = 3 };
    tb_err err;
    tb_notary_quota q;
    assert_int_equal(tb_notary_quota_init(&q, KEYS, LIMIT, &err), 0);
    size_t model[KEYS] = {0}, used = 0;
    uint64_t x = 88172645463325252ull;
    uint8_t k[16];
    for (int step = 0; step < 200000; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        unsigned v = (unsigned)(x % KEYS);
        key_of(v * 2654435761u, k);
        if ((x >> 32) % 2) {
            int want = model[v] < LIMIT ? 0 : -1;
            assert_int_equal(tb_notary_quota_take(&q, k), want);
            if (!want)
                used += model[v]++ == 0;
        } else {
            tb_notary_quota_give(&q, k);
            if (model[v])
                used -= --model[v] == 0;
        }
        if (step % 1000 == 0)
            for (unsigned i = 0; i < KEYS; i++) {
                key_of(i * 2654435761u, k);
                assert_int_equal(tb_notary_quota_count(&q, k), model[i]);
            }
        assert_int_equal(q.used, used);
    }
    tb_notary_quota_clear(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_per_key),
        cmocka_unit_test(test_max_keys),
        cmocka_unit_test(test_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
