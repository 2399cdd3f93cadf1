/* Unit tests for src/notary/session: create, claim once, replay, expiry, capacity,
 * and concurrent claims of one session (exactly one wins). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>

#include "notary/session.h"

#define SEC 1000000000ull

static void test_claim_once(void **state)
{
    (void)state;
    tb_err err;
    tb_session_table t;
    assert_int_equal(tb_session_table_init(&t, 8, 10 * SEC, &err), 0);
    tb_session s = {.max_sent = 100, .max_recv = 200, .tee = 1, .nonce_len = 2};
    s.nonce[0] = 7;
    assert_int_equal(tb_session_create(&t, &s, 1 * SEC, &err), 0);
    tb_session other = s;
    assert_int_equal(tb_session_create(&t, &other, 1 * SEC, &err), 0);
    assert_memory_not_equal(s.id, other.id, 16); /* random ids */
    tb_session got;
    assert_int_equal(tb_session_claim(&t, s.id, 2 * SEC, &got), TB_CLAIM_OK);
    assert_true(got.max_sent == 100 && got.max_recv == 200 && got.tee == 1);
    assert_int_equal(got.nonce_len, 2);
    assert_int_equal(got.nonce[0], 7);
    assert_int_equal(tb_session_claim(&t, s.id, 2 * SEC, &got), TB_CLAIM_USED);
    uint8_t unknown[16] = {0};
    assert_int_equal(tb_session_claim(&t, unknown, 2 * SEC, &got), TB_CLAIM_UNKNOWN);
    assert_int_equal(tb_session_count(&t, 2 * SEC), 2);
    tb_session_table_free(&t);
}

static void test_expiry(void **state)
{
    (void)state;
    tb_err err;
    tb_session_table t;
    assert_int_equal(tb_session_table_init(&t, 4, 10 * SEC, &err), 0);
    tb_session s = {.max_sent = 1, .max_recv = 1};
    assert_int_equal(tb_session_create(&t, &s, 0, &err), 0);
    assert_true(s.expires_ns == 10 * SEC);
    tb_session got;
    assert_int_equal(tb_session_claim(&t, s.id, 10 * SEC, &got), TB_CLAIM_EXPIRED);
    assert_int_equal(tb_session_claim(&t, s.id, 10 * SEC, &got), TB_CLAIM_UNKNOWN);
    assert_int_equal(tb_session_count(&t, 10 * SEC), 0);
    tb_session_table_free(&t);
}

static void test_capacity_and_reuse(void **state)
{
    (void)state;
    tb_err err;
    tb_session_table t;
    assert_int_equal(tb_session_table_init(&t, 3, 10 * SEC, &err), 0);
    tb_session s[4];
    memset(s, 0, sizeof s);
    for (int i = 0; i < 3; i++)
        assert_int_equal(tb_session_create(&t, &s[i], 0, &err), 0);
    assert_int_equal(tb_session_create(&t, &s[3], 1 * SEC, &err), -1);
    assert_non_null(strstr(err.msg, "full"));
    /* a used session still occupies its slot until it expires */
    tb_session got;
    assert_int_equal(tb_session_claim(&t, s[0].id, 1 * SEC, &got), TB_CLAIM_OK);
    assert_int_equal(tb_session_create(&t, &s[3], 1 * SEC, &err), -1);
    /* after expiry the slots are reused */
    assert_int_equal(tb_session_create(&t, &s[3], 11 * SEC, &err), 0);
    assert_int_equal(tb_session_claim(&t, s[3].id, 12 * SEC, &got), TB_CLAIM_OK);
    tb_session_table_free(&t);
}

typedef struct race {
    tb_session_table *t;
    const uint8_t *id;
    int wins;
} race;

static void *claimer(void *arg)
{
    race *r = arg;
    tb_session got;
    r->wins = tb_session_claim(r->t, r->id, 1, &got) == TB_CLAIM_OK;
    return NULL;
}

static void test_concurrent_claims(void **state)
{
    (void)state;
    tb_err err;
    tb_session_table t;
    assert_int_equal(tb_session_table_init(&t, 32, 10 * SEC, &err), 0);
    for (int round = 0; round < 20; round++) {
        tb_session s = {.max_sent = 1, .max_recv = 1};
        assert_int_equal(tb_session_create(&t, &s, 0, &err), 0);
        pthread_t th[8];
        race r[8];
        for (int i = 0; i < 8; i++) {
            r[i] = (race){&t, s.id, 0};
            pthread_create(&th[i], NULL, claimer, &r[i]);
        }
        int wins = 0;
        for (int i = 0; i < 8; i++) {
            pthread_join(th[i], NULL);
            wins += r[i].wins;
        }
        assert_int_equal(wins, 1);
    }
    tb_session_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claim_once),
        cmocka_unit_test(test_expiry),
        cmocka_unit_test(test_capacity_and_reuse),
        cmocka_unit_test(test_concurrent_claims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
