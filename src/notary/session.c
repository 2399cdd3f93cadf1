/* notary/session: fixed-capacity session table (see session.h). Lookups are a
 * linear scan under the mutex: with the default capacity (4096) that is a few
 * microseconds, far below a notarization's cost, and it cannot degrade. */
#include "notary/session.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

int tb_session_table_init(tb_session_table *t, size_t cap, uint64_t ttl_ns, tb_err *err)
{
    memset(t, 0, sizeof *t);
    if (cap == 0)
        return tb_errf(err, "session table: capacity must be positive");
    t->slots = calloc(cap, sizeof *t->slots);
    if (!t->slots)
        return tb_errf(err, "session table: out of memory");
    t->cap = cap;
    t->ttl_ns = ttl_ns;
    pthread_mutex_init(&t->mu, NULL);
    return 0;
}

void tb_session_table_free(tb_session_table *t)
{
    if (!t->slots)
        return;
    pthread_mutex_destroy(&t->mu);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static int live(const tb_session *s, uint64_t now)
{
    return s->state != 0 && now < s->expires_ns;
}

int tb_session_create(tb_session_table *t, tb_session *s, uint64_t now_ns, tb_err *err)
{
    if (RAND_bytes(s->id, sizeof s->id) != 1)
        return tb_err_ssl(err, "session id: random generator");
    s->expires_ns = now_ns + t->ttl_ns;
    s->state = 1;
    pthread_mutex_lock(&t->mu);
    /* Prefer a never-used or long-free slot; reuse expired ones otherwise. */
    tb_session *slot = NULL;
    for (size_t i = 0; i < t->cap && !slot; i++)
        if (t->slots[i].state == 0)
            slot = &t->slots[i];
    for (size_t i = 0; i < t->cap && !slot; i++)
        if (!live(&t->slots[i], now_ns))
            slot = &t->slots[i];
    if (slot)
        *slot = *s;
    pthread_mutex_unlock(&t->mu);
    if (!slot)
        return tb_errf(err, "session table full (%zu live sessions): try again later", t->cap);
    return 0;
}

tb_claim tb_session_claim(tb_session_table *t, const uint8_t id[16], uint64_t now_ns,
                          tb_session *out)
{
    tb_claim r = TB_CLAIM_UNKNOWN;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->cap; i++) {
        tb_session *s = &t->slots[i];
        if (s->state == 0 || memcmp(s->id, id, 16))
            continue;
        if (now_ns >= s->expires_ns) {
            r = TB_CLAIM_EXPIRED;
            s->state = 0;
        } else if (s->state == 2) {
            r = TB_CLAIM_USED;
        } else {
            s->state = 2;
            *out = *s;
            r = TB_CLAIM_OK;
        }
        break;
    }
    pthread_mutex_unlock(&t->mu);
    return r;
}

size_t tb_session_count(tb_session_table *t, uint64_t now_ns)
{
    size_t n = 0;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->cap; i++)
        n += live(&t->slots[i], now_ns);
    pthread_mutex_unlock(&t->mu);
    return n;
}
