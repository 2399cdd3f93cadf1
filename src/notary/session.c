/* notary/session: the session table (declared in internal.h). Open sessions sit in a
 * dense array (removal moves the last one into the hole); lookups are linear
 * scans under the mutex over at most cap open sessions and 2 x cap tombstones:
 * with the default capacity (4096) tens of microseconds at worst, far below a
 * notarization's cost, and it cannot degrade. Invariant: an id is in the open
 * array at most once, and never both open and in a tombstone. */
#include "notary/internal.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

int tb_notary_session_table_init(tb_notary_session_table *t, size_t cap, uint64_t ttl_ns,
                                 size_t per_client, tb_err *err)
{
    memset(t, 0, sizeof *t);
    if (cap == 0)
        return tb_errf(err, "session table: capacity must be positive");
    t->open = calloc(cap, sizeof *t->open);
    t->tombs = calloc(2 * cap, sizeof *t->tombs);
    if (!t->open || !t->tombs) {
        free(t->open);
        free(t->tombs);
        return tb_errf(err, "session table: out of memory");
    }
    t->cap = cap;
    t->tomb_cap = 2 * cap;
    t->ttl_ns = ttl_ns;
    t->per_client = per_client && per_client < cap ? per_client : cap;
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

void tb_notary_session_client_key(const struct sockaddr *sa, uint8_t key[16])
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    memset(key, 0, 16);
    if (sa->sa_family == AF_INET) {
        memcpy(key, mapped, 12);
        memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        const uint8_t *a = (const uint8_t *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (!memcmp(a, mapped, 12))
            memcpy(key, a, 16);
        else
            memcpy(key, a, 8);
    }
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

int tb_notary_session_create(tb_notary_session_table *t, tb_notary_session *s, uint64_t now_ns,
                             tb_err *err)
{
    if (RAND_bytes(s->id, sizeof s->id) != 1) {
        tb_err_ssl(err, "session id: random generator");
        return TB_NOTARY_SESSION_ERROR;
    }
    s->expires_ns = now_ns + t->ttl_ns;
    int rc = TB_NOTARY_SESSION_OK;
    pthread_mutex_lock(&t->mu);
    size_t mine = 0;
    for (size_t i = 0; i < t->n_open;) {
        if (now_ns >= t->open[i].expires_ns) {
            remove_open(t, i, 1); /* slot i now holds another session: look again */
            continue;
        }
        mine += !memcmp(t->open[i].client, s->client, 16);
        i++;
    }
    if (t->n_open == t->cap)
        rc = TB_NOTARY_SESSION_FULL;
    else if (mine >= t->per_client)
        rc = TB_NOTARY_SESSION_QUOTA;
    else
        t->open[t->n_open++] = *s;
    size_t n = t->n_open;
    pthread_mutex_unlock(&t->mu);
    if (rc == TB_NOTARY_SESSION_FULL)
        tb_errf(err, "session table full (%zu open sessions): try again later", n);
    else if (rc == TB_NOTARY_SESSION_QUOTA)
        tb_errf(err,
                "this client already has %zu open sessions (the limit): use or let them expire",
                t->per_client);
    return rc;
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

tb_notary_claim tb_notary_session_peek(tb_notary_session_table *t, const uint8_t id[16],
                                       uint64_t now_ns, tb_notary_session *out)
{
    size_t i = 0;
    pthread_mutex_lock(&t->mu);
    tb_notary_claim r = find(t, id, now_ns, &i);
    if (r == TB_NOTARY_CLAIM_OK)
        *out = t->open[i];
    pthread_mutex_unlock(&t->mu);
    return r;
}

tb_notary_claim tb_notary_session_claim(tb_notary_session_table *t, const uint8_t id[16],
                                        uint64_t now_ns, tb_notary_session *out)
{
    size_t i = 0;
    pthread_mutex_lock(&t->mu);
    tb_notary_claim r = find(t, id, now_ns, &i);
    if (r == TB_NOTARY_CLAIM_OK) {
        *out = t->open[i];
        remove_open(t, i, 0);
    }
    pthread_mutex_unlock(&t->mu);
    return r;
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
