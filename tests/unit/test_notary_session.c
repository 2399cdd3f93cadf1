/* Unit tests for src/notary/session: create, peek, claim once, replay, expiry
 * (answered the same every time), capacity with slots freed by claims,
 * per-client quotas and their keys, and concurrent claims of one session
 * (exactly one wins). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>

#include "notary/internal.h"

#define SEC 1000000000ull

static void test_claim_once(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_session_table t;
    assert_int_equal(tb_notary_session_table_init(&t, 8, 10 * SEC, 0, &err), 0);
    tb_notary_session s = {.max_sent = 100, .max_recv = 200, .tee = 1, .nonce_len = 2};
    s.nonce[0] = 7;
    assert_int_equal(tb_notary_session_create(&t, &s, 1 * SEC, &err), 0);
    tb_notary_session other = s;
    assert_int_equal(tb_notary_session_create(&t, &other, 1 * SEC, &err), 0);
    assert_memory_not_equal(s.id, other.id, 16); /* random ids */
    tb_notary_session got;
    assert_int_equal(tb_notary_session_claim(&t, s.id, 2 * SEC, &got), TB_NOTARY_CLAIM_OK);
    assert_true(got.max_sent == 100 && got.max_recv == 200 && got.tee == 1);
    assert_int_equal(got.nonce_len, 2);
    assert_int_equal(got.nonce[0], 7);
    assert_int_equal(tb_notary_session_claim(&t, s.id, 2 * SEC, &got), TB_NOTARY_CLAIM_USED);
    uint8_t unknown[16] = {0};
    assert_int_equal(tb_notary_session_claim(&t, unknown, 2 * SEC, &got), TB_NOTARY_CLAIM_UNKNOWN);
    /* the claimed session left the table: one open session remains */
    assert_int_equal(tb_notary_session_count(&t, 2 * SEC), 1);
    assert_int_equal(tb_notary_session_peek(&t, other.id, 2 * SEC, &got), TB_NOTARY_CLAIM_OK);
    assert_int_equal(tb_notary_session_peek(&t, other.id, 2 * SEC, &got),
                     TB_NOTARY_CLAIM_OK); /* peek keeps it */
    assert_int_equal(tb_notary_session_peek(&t, s.id, 2 * SEC, &got), TB_NOTARY_CLAIM_USED);
    tb_notary_session_table_clear(&t);
}

/* An expired session is "expired" every time it is asked for (it used to be
 * 410 once, then 404), also when its slot was reused meanwhile. */
static void test_expiry(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_session_table t;
    assert_int_equal(tb_notary_session_table_init(&t, 1, 10 * SEC, 0, &err), 0);
    tb_notary_session s = {.max_sent = 1, .max_recv = 1}, s2 = s, s3 = s;
    assert_int_equal(tb_notary_session_create(&t, &s, 0, &err), 0);
    assert_true(s.expires_ns == 10 * SEC);
    tb_notary_session got;
    assert_int_equal(tb_notary_session_claim(&t, s.id, 10 * SEC, &got), TB_NOTARY_CLAIM_EXPIRED);
    assert_int_equal(tb_notary_session_claim(&t, s.id, 10 * SEC, &got), TB_NOTARY_CLAIM_EXPIRED);
    assert_int_equal(tb_notary_session_peek(&t, s.id, 11 * SEC, &got), TB_NOTARY_CLAIM_EXPIRED);
    assert_int_equal(tb_notary_session_count(&t, 10 * SEC), 0);
    /* capacity 1: an expired, never-asked-for session gives way to a new one */
    assert_int_equal(tb_notary_session_create(&t, &s2, 20 * SEC, &err), 0);
    assert_int_equal(tb_notary_session_create(&t, &s3, 40 * SEC, &err), 0);
    assert_int_equal(tb_notary_session_claim(&t, s2.id, 40 * SEC, &got), TB_NOTARY_CLAIM_EXPIRED);
    assert_int_equal(tb_notary_session_claim(&t, s3.id, 41 * SEC, &got), TB_NOTARY_CLAIM_OK);
    tb_notary_session_table_clear(&t);
}

/* Item 2 of issue 12: a claimed session frees its slot at once (the table
 * used to stay full of used sessions until they expired), a full table is
 * TB_NOTARY_SESSION_FULL, a client over its quota TB_NOTARY_SESSION_QUOTA. */
static void test_capacity_and_quota(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_session_table t;
    assert_int_equal(tb_notary_session_table_init(&t, 3, 10 * SEC, 2, &err), 0);
    tb_notary_session a = {.max_sent = 1}, b = a, c = a;
    c.client[15] = 1; /* another client */
    tb_notary_session d = c;
    assert_int_equal(tb_notary_session_create(&t, &a, 0, &err), TB_NOTARY_SESSION_OK);
    assert_int_equal(tb_notary_session_create(&t, &b, 0, &err), TB_NOTARY_SESSION_OK);
    tb_notary_session extra = a;
    assert_int_equal(tb_notary_session_create(&t, &extra, 0, &err), TB_NOTARY_SESSION_QUOTA);
    assert_non_null(strstr(err.msg, "2 open sessions"));
    assert_int_equal(tb_notary_session_create(&t, &c, 0, &err), TB_NOTARY_SESSION_OK);
    assert_int_equal(tb_notary_session_create(&t, &d, 0, &err), TB_NOTARY_SESSION_FULL);
    assert_non_null(strstr(err.msg, "full"));
    tb_notary_session got;
    assert_int_equal(tb_notary_session_claim(&t, a.id, 1 * SEC, &got), TB_NOTARY_CLAIM_OK);
    assert_int_equal(tb_notary_session_create(&t, &d, 1 * SEC, &err), TB_NOTARY_SESSION_OK);
    /* claims free their slots, replays are refused as used */
    for (int i = 0; i < 4; i++) {
        tb_notary_session e = c;
        e.client[0] = (uint8_t)i; /* other clients */
        assert_int_equal(tb_notary_session_claim(&t, d.id, 1 * SEC, &got),
                         i ? TB_NOTARY_CLAIM_USED : TB_NOTARY_CLAIM_OK);
        assert_int_equal(tb_notary_session_create(&t, &e, 1 * SEC, &err), TB_NOTARY_SESSION_OK);
        assert_int_equal(tb_notary_session_claim(&t, e.id, 1 * SEC, &got), TB_NOTARY_CLAIM_OK);
        assert_int_equal(tb_notary_session_claim(&t, e.id, 1 * SEC, &got), TB_NOTARY_CLAIM_USED);
    }
    /* a replay the ring forgot is "unknown" -- never accepted */
    for (int i = 0; i < 10; i++) {
        tb_notary_session e = c;
        e.client[0] = (uint8_t)(100 + i);
        assert_int_equal(tb_notary_session_create(&t, &e, 1 * SEC, &err), TB_NOTARY_SESSION_OK);
        assert_int_equal(tb_notary_session_claim(&t, e.id, 1 * SEC, &got), TB_NOTARY_CLAIM_OK);
    }
    assert_int_equal(tb_notary_session_claim(&t, d.id, 1 * SEC, &got), TB_NOTARY_CLAIM_UNKNOWN);
    /* and many notarizations pass through the 3-slot table */
    for (int i = 0; i < 5000; i++) {
        tb_notary_session e = c;
        assert_int_equal(tb_notary_session_create(&t, &e, 2 * SEC, &err), TB_NOTARY_SESSION_OK);
        assert_int_equal(tb_notary_session_claim(&t, e.id, 2 * SEC, &got), TB_NOTARY_CLAIM_OK);
    }
    tb_notary_session_table_clear(&t);
}

static void test_client_key(void **state)
{
    (void)state;
    uint8_t k1[16], k2[16], k3[16];
    struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000002)};
    struct sockaddr_in6 m = {.sin6_family = AF_INET6}, a = m, b = m;
    inet_pton(AF_INET6, "::ffff:127.0.0.2", &m.sin6_addr);
    inet_pton(AF_INET6, "2001:db8:1:2::1", &a.sin6_addr);
    inet_pton(AF_INET6, "2001:db8:1:2:ffff::9", &b.sin6_addr);
    tb_notary_session_client_key((struct sockaddr *)&v4, k1);
    tb_notary_session_client_key((struct sockaddr *)&m, k2);
    assert_memory_equal(k1, k2, 16); /* IPv4 and IPv4-mapped: one client */
    tb_notary_session_client_key((struct sockaddr *)&a, k1);
    tb_notary_session_client_key((struct sockaddr *)&b, k3);
    assert_memory_equal(k1, k3, 16); /* one /64: one client */
    assert_memory_not_equal(k1, k2, 16);
}

typedef struct race {
    tb_notary_session_table *t;
    const uint8_t *id;
    int wins;
} race;

static void *claimer(void *arg)
{
    race *r = arg;
    tb_notary_session got;
    r->wins = tb_notary_session_claim(r->t, r->id, 1, &got) == TB_NOTARY_CLAIM_OK;
    return NULL;
}

static void test_concurrent_claims(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_session_table t;
    assert_int_equal(tb_notary_session_table_init(&t, 32, 10 * SEC, 0, &err), 0);
    for (int round = 0; round < 20; round++) {
        tb_notary_session s = {.max_sent = 1, .max_recv = 1};
        assert_int_equal(tb_notary_session_create(&t, &s, 0, &err), 0);
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
    tb_notary_session_table_clear(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claim_once),         cmocka_unit_test(test_expiry),
        cmocka_unit_test(test_capacity_and_quota), cmocka_unit_test(test_client_key),
        cmocka_unit_test(test_concurrent_claims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
