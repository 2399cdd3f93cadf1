/* notary/session: the session table (declared in internal.h). Open sessions sit in a
 * dense array (removal moves the last one into the hole); lookups are linear
 * scans under the mutex over at most cap open sessions and 2 x cap tombstones:
 * with the default capacity (4096) tens of microseconds at worst, far below a
 * notarization's cost, and it cannot degrade. Invariant: an id is in the open
 * array at most once, and never both open and in a tombstone. */
#include "notary/internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

int tb_notary_session_table_init(tb_notary_session_table *t, const tb_notary_limits *lim,
                                 uint64_t ttl_ns, tb_err *err)
{
    memset(t, 0, sizeof *t);
    if (tb_notary_limits_check(lim, err) < 0)
        return tb_err_wrap(err, "session table");
    t->open = calloc(lim->cap, sizeof *t->open);
    t->tombs = calloc(2 * lim->cap, sizeof *t->tombs);
    if (!t->open || !t->tombs) {
        free(t->open);
        free(t->tombs);
        t->open = NULL;
        return tb_errf(err, "session table: out of memory");
    }
    t->lim = *lim;
    t->tomb_cap = 2 * lim->cap;
    t->ttl_ns = ttl_ns;
    pthread_mutex_init(&t->mu, NULL);
    return 0;
}

void tb_notary_session_table_clear(tb_notary_session_table *t)
{
    if (!t->open)
        return;
    pthread_mutex_destroy(&t->mu);
    free(t->open);
    free(t->tombs);
    memset(t, 0, sizeof *t);
}

/* Under the mutex: remembers that id was claimed or expired. */
static void bury(tb_notary_session_table *t, const uint8_t id[16], int expired)
{
    tb_notary_session_tomb *g = &t->tombs[t->tomb_next];
    memcpy(g->id, id, 16);
    g->expired = (uint8_t)expired;
    t->tomb_next = (t->tomb_next + 1) % t->tomb_cap;
    if (t->n_tombs < t->tomb_cap)
        t->n_tombs++;
}

/* Under the mutex: frees open slot i, leaving a tombstone. */
static void remove_open(tb_notary_session_table *t, size_t i, int expired)
{
    bury(t, t->open[i].id, expired);
    t->open[i] = t->open[--t->n_open];
}

/* Why a session was refused, in err. */
static int refusal(const tb_notary_limits *l, tb_notary_admit why, size_t n_open, tb_err *err)
{
    switch (why) {
    case TB_NOTARY_ADMIT_ADDR:
        tb_errf(err,
                "this client address already has %zu open sessions (the limit): use or let "
                "them expire",
                l->per_addr);
        return TB_NOTARY_SESSION_QUOTA;
    case TB_NOTARY_ADMIT_PREFIX:
        tb_errf(err,
                "this client's network (IPv4 /24, IPv6 /64) already has %zu open sessions "
                "(the limit): use or let them expire",
                l->per_prefix);
        return TB_NOTARY_SESSION_PREFIX;
    case TB_NOTARY_ADMIT_RESERVE:
        tb_errf(err,
                "session table full for this client's network (%zu open sessions; the last %zu "
                "are kept for networks holding fewer than %zu): try again later",
                n_open, l->reserved, l->reserve_below);
        return TB_NOTARY_SESSION_FULL;
    default:
        tb_errf(err, "session table full (%zu open sessions): try again later", n_open);
        return TB_NOTARY_SESSION_FULL;
    }
}

int tb_notary_session_create(tb_notary_session_table *t, tb_notary_session *s, uint64_t now_ns,
                             tb_err *err)
{
    if (RAND_bytes(s->id, sizeof s->id) != 1) {
        tb_err_ssl(err, "session id: random generator");
        return TB_NOTARY_SESSION_ERROR;
    }
    s->expires_ns = now_ns + t->ttl_ns;
    pthread_mutex_lock(&t->mu);
    size_t by_addr = 0, by_prefix = 0;
    for (size_t i = 0; i < t->n_open;) {
        if (now_ns >= t->open[i].expires_ns) {
            remove_open(t, i, 1); /* slot i now holds another session: look again */
            continue;
        }
        by_addr += !memcmp(t->open[i].who.addr, s->who.addr, 16);
        by_prefix += !memcmp(t->open[i].who.prefix, s->who.prefix, 16);
        i++;
    }
    tb_notary_admit why = tb_notary_admit_check(&t->lim, t->n_open, by_addr, by_prefix);
    if (why == TB_NOTARY_ADMIT_OK)
        t->open[t->n_open++] = *s;
    size_t n = t->n_open;
    pthread_mutex_unlock(&t->mu);
    return why == TB_NOTARY_ADMIT_OK ? TB_NOTARY_SESSION_OK : refusal(&t->lim, why, n, err);
}

/* Under the mutex: the state of id; *slot is its open index when OK. */
static tb_notary_claim find(tb_notary_session_table *t, const uint8_t id[16], uint64_t now_ns,
                            size_t *slot)
{
    for (size_t i = 0; i < t->n_open; i++) {
        if (memcmp(t->open[i].id, id, 16))
            continue;
        if (now_ns >= t->open[i].expires_ns) {
            remove_open(t, i, 1);
            return TB_NOTARY_CLAIM_EXPIRED;
        }
        *slot = i;
        return TB_NOTARY_CLAIM_OK;
    }
    /* newest tombstones first: an id is buried at most once */
    for (size_t k = 1; k <= t->n_tombs; k++) {
        const tb_notary_session_tomb *g = &t->tombs[(t->tomb_next + t->tomb_cap - k) % t->tomb_cap];
        if (!memcmp(g->id, id, 16))
            return g->expired ? TB_NOTARY_CLAIM_EXPIRED : TB_NOTARY_CLAIM_USED;
    }
    return TB_NOTARY_CLAIM_UNKNOWN;
}

/* Looks id up under the lock: on TB_NOTARY_CLAIM_OK copies it to *out and, when
 * take, frees its slot (the id is then buried as used). */
static tb_notary_claim look_up(tb_notary_session_table *t, const uint8_t id[16], uint64_t now_ns,
                               tb_notary_session *out, bool take)
{
    size_t i = 0;
    pthread_mutex_lock(&t->mu);
    tb_notary_claim r = find(t, id, now_ns, &i);
    if (r == TB_NOTARY_CLAIM_OK) {
        *out = t->open[i];
        if (take)
            remove_open(t, i, 0);
    }
    pthread_mutex_unlock(&t->mu);
    return r;
}

tb_notary_claim tb_notary_session_peek(tb_notary_session_table *t, const uint8_t id[16],
                                       uint64_t now_ns, tb_notary_session *out)
{
    return look_up(t, id, now_ns, out, false);
}

tb_notary_claim tb_notary_session_claim(tb_notary_session_table *t, const uint8_t id[16],
                                        uint64_t now_ns, tb_notary_session *out)
{
    return look_up(t, id, now_ns, out, true);
}

size_t tb_notary_session_count(tb_notary_session_table *t, uint64_t now_ns)
{
    size_t n = 0;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->n_open; i++)
        n += now_ns < t->open[i].expires_ns;
    pthread_mutex_unlock(&t->mu);
    return n;
}
