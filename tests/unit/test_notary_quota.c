/* Unit tests for src/notary/quota: the client keys (address, and the IPv4 /24
 * or IPv6 /64 prefix; IPv4-mapped IPv6 counted as IPv4), the admission rule
 * of shared tables (quotas per address and per prefix, the reserve for small
 * prefixes), the limits check, counts per client key up to the limit, given
 * back to zero, the key limit, the table staying consistent under many takes
 * and gives of colliding and non-colliding keys (checked against a plain
 * array), and the two-key count that takes both or neither. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "notary/internal.h"

static tb_notary_client client(const char *ip)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *in = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, ip, &in->sin_addr) == 1)
        in->sin_family = AF_INET;
    else if (inet_pton(AF_INET6, ip, &in6->sin6_addr) == 1)
        in6->sin6_family = AF_INET6;
    else
        fail_msg("bad test address %s", ip);
    tb_notary_client c;
    tb_notary_client_of((struct sockaddr *)&ss, &c);
    return c;
}

static void test_client_keys(void **state)
{
    (void)state;
    tb_notary_client a = client("192.0.2.7"), m = client("::ffff:192.0.2.7"),
                     b = client("192.0.2.200"), c = client("192.0.3.7");
    static const uint8_t want_addr[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7};
    static const uint8_t want_pfx[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 0};
    assert_memory_equal(a.addr, want_addr, 16);
    assert_memory_equal(a.prefix, want_pfx, 16);
    assert_memory_equal(&a, &m, sizeof a); /* IPv4-mapped IPv6 is the IPv4 client */
    assert_memory_not_equal(a.addr, b.addr, 16);
    assert_memory_equal(a.prefix, b.prefix, 16); /* one /24 */
    assert_memory_not_equal(a.prefix, c.prefix, 16);
    tb_notary_client x = client("2001:db8:1:2::1"), y = client("2001:db8:1:2:ffff::9"),
                     z = client("2001:db8:1:3::1");
    assert_memory_not_equal(x.addr, y.addr, 16); /* IPv6 addresses are all 128 bits */
    assert_memory_equal(x.prefix, y.prefix, 16); /* one /64 */
    assert_memory_not_equal(x.prefix, z.prefix, 16);
    static const uint8_t zeros[8] = {0};
    assert_memory_equal(x.prefix + 8, zeros, 8);
    /* no IPv6 prefix key equals an IPv4 one, also for ::/64 */
    tb_notary_client n = client("::7");
    assert_memory_not_equal(n.prefix, a.prefix, 16);
    struct sockaddr unix_sa = {.sa_family = AF_UNIX};
    tb_notary_client_of(&unix_sa, &n);
    assert_memory_equal(n.addr, zeros, 8);
}

/* The admission rule, case by case. */
static void test_admit_rule(void **state)
{
    (void)state;
    tb_notary_limits l = {
        .cap = 100, .per_addr = 5, .per_prefix = 20, .reserved = 10, .reserve_below = 3};
    assert_int_equal(tb_notary_admit_check(&l, 0, 0, 0), TB_NOTARY_ADMIT_OK);
    assert_int_equal(tb_notary_admit_check(&l, 50, 4, 19), TB_NOTARY_ADMIT_OK);
    assert_int_equal(tb_notary_admit_check(&l, 50, 5, 5), TB_NOTARY_ADMIT_ADDR);
    assert_int_equal(tb_notary_admit_check(&l, 50, 1, 20), TB_NOTARY_ADMIT_PREFIX);
    /* the client's own quota is said first, even in a full table */
    assert_int_equal(tb_notary_admit_check(&l, 100, 5, 20), TB_NOTARY_ADMIT_ADDR);
    assert_int_equal(tb_notary_admit_check(&l, 89, 2, 10), TB_NOTARY_ADMIT_OK); /* shared */
    assert_int_equal(tb_notary_admit_check(&l, 90, 2, 3), TB_NOTARY_ADMIT_RESERVE);
    assert_int_equal(tb_notary_admit_check(&l, 90, 2, 2), TB_NOTARY_ADMIT_OK); /* small */
    assert_int_equal(tb_notary_admit_check(&l, 99, 0, 0), TB_NOTARY_ADMIT_OK);
    assert_int_equal(tb_notary_admit_check(&l, 100, 0, 0), TB_NOTARY_ADMIT_FULL);
    l.reserved = 0; /* no reserve: everything is shared */
    assert_int_equal(tb_notary_admit_check(&l, 99, 4, 19), TB_NOTARY_ADMIT_OK);
    assert_int_equal(tb_notary_admit_check(&l, 100, 0, 0), TB_NOTARY_ADMIT_FULL);
}

static void test_limits_check(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_limits l = {.cap = 10, .per_addr = 1, .per_prefix = 1, .reserved = 9};
    assert_int_equal(tb_notary_limits_check(&l, &err), 0);
    l.reserved = 10;
    assert_int_equal(tb_notary_limits_check(&l, &err), -1);
    assert_non_null(strstr(err.msg, "reserve (10 slots) must be smaller than the table (10)"));
    l.reserved = 0;
    l.per_prefix = 0;
    assert_int_equal(tb_notary_limits_check(&l, &err), -1);
    l.per_prefix = 1;
    l.cap = 0;
    assert_int_equal(tb_notary_limits_check(&l, &err), -1);
}

/* Both keys or neither: a refusal by prefix gives the address's count back. */
static void test_two_keys(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_quota2 q;
    assert_int_equal(tb_notary_quota2_init(&q, 8, 2, 3, &err), 0);
    tb_notary_client a = client("10.1.1.1"), b = client("10.1.1.2"), c = client("10.1.2.1");
    assert_int_equal(tb_notary_quota2_take(&q, &a), TB_NOTARY_ADMIT_OK);
    assert_int_equal(tb_notary_quota2_take(&q, &a), TB_NOTARY_ADMIT_OK);
    assert_int_equal(tb_notary_quota2_take(&q, &a), TB_NOTARY_ADMIT_ADDR);
    assert_int_equal(tb_notary_quota2_take(&q, &b), TB_NOTARY_ADMIT_OK);
    assert_int_equal(tb_notary_quota2_take(&q, &b), TB_NOTARY_ADMIT_PREFIX);
    assert_int_equal(tb_notary_quota_count(&q.addr, b.addr), 1); /* not counted */
    assert_int_equal(tb_notary_quota2_take(&q, &c), TB_NOTARY_ADMIT_OK);
    tb_notary_quota2_give(&q, &a);
    assert_int_equal(tb_notary_quota2_take(&q, &b), TB_NOTARY_ADMIT_OK);
    assert_int_equal(tb_notary_quota_count(&q.prefix, a.prefix), 3);
    tb_notary_quota2_clear(&q);
}

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
        cmocka_unit_test(test_client_keys),   cmocka_unit_test(test_admit_rule),
        cmocka_unit_test(test_limits_check),  cmocka_unit_test(test_two_keys),
        cmocka_unit_test(test_limit_per_key), cmocka_unit_test(test_max_keys),
        cmocka_unit_test(test_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
