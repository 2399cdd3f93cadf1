/* Unit tests for src/notary/session: create, peek, claim once, replay, expiry
 * (answered the same every time), capacity with slots freed by claims,
 * per-address and per-prefix quotas and the reserve for small prefixes (issue
 * 19: 64 addresses of one /24 used to fill the whole table), and concurrent
 * claims of one session (exactly one wins). */
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

/* A table of cap slots, per sessions per address (0: cap), no prefix quota, no reserve. */
static tb_notary_limits lim(size_t cap, size_t per)
{
    return (tb_notary_limits){.cap = cap, .per_addr = per ? per : cap, .per_prefix = SIZE_MAX};
}

/* A session of client a.b.c.d (IPv4). */
static tb_notary_session of(unsigned a, unsigned b, unsigned c, unsigned d)
{
    tb_notary_session s = {.max_sent = 1, .max_recv = 1};
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(a << 24 | b << 16 | c << 8 | d)};
    tb_notary_client_of((struct sockaddr *)&in, &s.who);
    return s;
}

static void test_claim_once(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_session_table t;
    tb_notary_limits L8 = lim(8, 0);
    assert_int_equal(tb_notary_session_table_init(&t, &(tb_notary_limits){0}, 10 * SEC, &err), -1);
    assert_int_equal(tb_notary_session_table_init(&t, &L8, 10 * SEC, &err), 0);
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
    tb_notary_limits L1 = lim(1, 0);
    assert_int_equal(tb_notary_session_table_init(&t, &L1, 10 * SEC, &err), 0);
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
    tb_notary_limits L3 = lim(3, 2);
    assert_int_equal(tb_notary_session_table_init(&t, &L3, 10 * SEC, &err), 0);
    tb_notary_session a = {.max_sent = 1}, b = a, c = a;
    c.who.addr[15] = 1; /* another client */
    tb_notary_session d = c;
    assert_int_equal(tb_notary_session_create(&t, &a, 0, &err), TB_NOTARY_SESSION_OK);
    assert_int_equal(tb_notary_session_create(&t, &b, 0, &err), TB_NOTARY_SESSION_OK);
    tb_notary_session extra = a;
    assert_int_equal(tb_notary_session_create(&t, &extra, 0, &err), TB_NOTARY_SESSION_QUOTA);
    assert_non_null(strstr(err.msg, "address already has 2 open sessions"));
    assert_int_equal(tb_notary_session_create(&t, &c, 0, &err), TB_NOTARY_SESSION_OK);
    assert_int_equal(tb_notary_session_create(&t, &d, 0, &err), TB_NOTARY_SESSION_FULL);
    assert_non_null(strstr(err.msg, "full"));
    tb_notary_session got;
    assert_int_equal(tb_notary_session_claim(&t, a.id, 1 * SEC, &got), TB_NOTARY_CLAIM_OK);
    assert_int_equal(tb_notary_session_create(&t, &d, 1 * SEC, &err), TB_NOTARY_SESSION_OK);
    /* claims free their slots, replays are refused as used */
    for (int i = 0; i < 4; i++) {
        tb_notary_session e = c;
        e.who.addr[0] = (uint8_t)i; /* other clients */
        assert_int_equal(tb_notary_session_claim(&t, d.id, 1 * SEC, &got),
                         i ? TB_NOTARY_CLAIM_USED : TB_NOTARY_CLAIM_OK);
        assert_int_equal(tb_notary_session_create(&t, &e, 1 * SEC, &err), TB_NOTARY_SESSION_OK);
        assert_int_equal(tb_notary_session_claim(&t, e.id, 1 * SEC, &got), TB_NOTARY_CLAIM_OK);
        assert_int_equal(tb_notary_session_claim(&t, e.id, 1 * SEC, &got), TB_NOTARY_CLAIM_USED);
    }
    /* a replay the ring forgot is "unknown" -- never accepted */
    for (int i = 0; i < 10; i++) {
        tb_notary_session e = c;
        e.who.addr[0] = (uint8_t)(100 + i);
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

/* Issue 19: 64 addresses of one /24 x 64 sessions each filled the 4096-slot
 * table. With the defaults (64 per address, 256 per prefix, the last 1024
 * slots for prefixes holding fewer than 8) one network gets 256; 12 networks
 * fill the shared part, and clients of other networks still get sessions from
 * the reserve, of which an attacking network gets at most 8. */
static void test_prefix_flood(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_session_table t;
    tb_notary_limits l = {
        .cap = 4096, .per_addr = 64, .per_prefix = 256, .reserved = 1024, .reserve_below = 8};
    assert_int_equal(tb_notary_session_table_init(&t, &l, 10 * SEC, &err), 0);
    size_t ok = 0, prefix = 0, quota = 0, full = 0;
    /* every address asks until it is refused (65 times at most) */
    for (unsigned net = 0; net < 16; net++)
        for (unsigned a = 1; a <= 64; a++)
            for (int i = 0, rc = 0; i < 65 && rc == TB_NOTARY_SESSION_OK; i++) {
                tb_notary_session s = of(10, 0, net, a);
                rc = tb_notary_session_create(&t, &s, 0, &err);
                ok += rc == TB_NOTARY_SESSION_OK;
                prefix += rc == TB_NOTARY_SESSION_PREFIX;
                quota += rc == TB_NOTARY_SESSION_QUOTA;
                full += rc == TB_NOTARY_SESSION_FULL;
            }
    /* 12 networks x 256 fill the shared part; the 4 others get 8 each (fewer
     * than 8 is "small") from the reserve, and no more */
    assert_int_equal(ok, 12 * 256 + 4 * 8);
    assert_int_equal(quota, 12 * 4);   /* the first 4 addresses of a full network ask a 65th */
    assert_int_equal(prefix, 12 * 60); /* the other 60 are refused for their network */
    assert_int_equal(full, 4 * 64);    /* each address of the 4 others, once */
    assert_non_null(strstr(err.msg, "kept for networks holding fewer than 8"));
    /* an honest client of another network: a reserved slot, again and again */
    for (unsigned n = 0; n < 100; n++) {
        tb_notary_session h = of(192, 168, n, 7);
        assert_int_equal(tb_notary_session_create(&t, &h, 0, &err), TB_NOTARY_SESSION_OK);
        tb_notary_session got;
        assert_int_equal(tb_notary_session_claim(&t, h.id, 0, &got), TB_NOTARY_CLAIM_OK);
    }
    assert_int_equal(tb_notary_session_count(&t, 0), 12 * 256 + 4 * 8);
    /* the attacking networks cannot take the reserve, with new addresses either */
    tb_notary_session x = of(10, 0, 3, 200);
    assert_int_equal(tb_notary_session_create(&t, &x, 0, &err), TB_NOTARY_SESSION_PREFIX);
    x = of(10, 0, 14, 200);
    assert_int_equal(tb_notary_session_create(&t, &x, 0, &err), TB_NOTARY_SESSION_FULL);
    tb_notary_session_table_clear(&t);
}

/* The reserve in a small table: prefixes holding fewer than reserve_below get
 * the last slots, until none is left; a freed slot goes to whoever may take it. */
static void test_reserve(void **state)
{
    (void)state;
    tb_err err;
    tb_notary_session_table t;
    tb_notary_limits l = {
        .cap = 6, .per_addr = 3, .per_prefix = 4, .reserved = 2, .reserve_below = 2};
    assert_int_equal(tb_notary_session_table_init(&t, &l, 10 * SEC, &err), 0);
    tb_notary_session a[4], b, c, d;
    for (int i = 0; i < 3; i++) {
        a[i] = of(10, 0, 0, 1);
        assert_int_equal(tb_notary_session_create(&t, &a[i], 0, &err), TB_NOTARY_SESSION_OK);
    }
    a[3] = of(10, 0, 0, 2); /* the same /24: the 4th of the prefix, the shared part's last */
    assert_int_equal(tb_notary_session_create(&t, &a[3], 0, &err), TB_NOTARY_SESSION_OK);
    b = of(10, 0, 0, 3);
    assert_int_equal(tb_notary_session_create(&t, &b, 0, &err), TB_NOTARY_SESSION_PREFIX);
    b = of(10, 0, 1, 1); /* another /24: reserved slots, while it holds fewer than 2 */
    assert_int_equal(tb_notary_session_create(&t, &b, 0, &err), TB_NOTARY_SESSION_OK);
    c = b;
    assert_int_equal(tb_notary_session_create(&t, &c, 0, &err), TB_NOTARY_SESSION_OK);
    d = of(10, 0, 2, 1);
    assert_int_equal(tb_notary_session_create(&t, &d, 0, &err), TB_NOTARY_SESSION_FULL);
    assert_non_null(strstr(err.msg, "session table full (6 open sessions)"));
    tb_notary_session got;
    assert_int_equal(tb_notary_session_claim(&t, c.id, 0, &got), TB_NOTARY_CLAIM_OK);
    c = of(10, 0, 1, 1); /* its prefix holds 1 now: it may, but it holds 2 then */
    tb_notary_session e = of(10, 0, 1, 9);
    assert_int_equal(tb_notary_session_create(&t, &c, 0, &err), TB_NOTARY_SESSION_OK);
    assert_int_equal(tb_notary_session_claim(&t, a[0].id, 0, &got), TB_NOTARY_CLAIM_OK);
    assert_int_equal(tb_notary_session_create(&t, &e, 0, &err), TB_NOTARY_SESSION_FULL);
    assert_non_null(strstr(err.msg, "the last 2 are kept for networks holding fewer than 2"));
    assert_int_equal(tb_notary_session_create(&t, &d, 0, &err), TB_NOTARY_SESSION_OK);
    /* expiry frees slots for everybody */
    assert_int_equal(tb_notary_session_create(&t, &e, 11 * SEC, &err), TB_NOTARY_SESSION_OK);
    tb_notary_session_table_clear(&t);
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
    tb_notary_limits L32 = lim(32, 0);
    assert_int_equal(tb_notary_session_table_init(&t, &L32, 10 * SEC, &err), 0);
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
        cmocka_unit_test(test_claim_once),
        cmocka_unit_test(test_expiry),
        cmocka_unit_test(test_capacity_and_quota),
        cmocka_unit_test(test_prefix_flood),
        cmocka_unit_test(test_reserve),
        cmocka_unit_test(test_concurrent_claims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
