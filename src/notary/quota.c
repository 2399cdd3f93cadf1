/* notary/quota: client keys, the admission rule of shared tables, and counts
 * per client of things a client holds at once (declared in internal.h). The
 * server counts the notarizations each client has queued or running (by address
 * and by prefix), so that neither one client nor one network can take every
 * worker; the resolver counts name resolutions in flight the same way.
 *
 * tb_notary_client_of and tb_notary_admit_check are pure functions.
 *
 * The count is an open-addressing hash table (linear probing, backward-shift deletion, so
 * no tombstones accumulate) of client keys with a non-zero count; its
 * capacity is a power of two at least twice the most keys it may hold, so a
 * probe always ends at an empty entry. Not thread-safe: one thread owns it
 * (the server's event loop). Invariant: every stored entry has n > 0 and is
 * reachable from its home slot without crossing an empty entry. */
#include "notary/internal.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

void tb_notary_client_of(const struct sockaddr *sa, tb_notary_client *out)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    memset(out, 0, sizeof *out);
    const uint8_t *v4 = NULL;
    if (sa->sa_family == AF_INET) {
        v4 = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
    } else if (sa->sa_family == AF_INET6) {
        const uint8_t *a = (const uint8_t *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (!memcmp(a, mapped, 12)) {
            v4 = a + 12;
        } else {
            memcpy(out->addr, a, 16);
            memcpy(out->prefix, a, 8); /* the /64 */
        }
    }
    if (v4) {
        memcpy(out->addr, mapped, 12);
        memcpy(out->addr + 12, v4, 4);
        memcpy(out->prefix, out->addr, 15); /* the /24: last byte zero */
    }
}

int tb_notary_limits_check(const tb_notary_limits *l, tb_err *err)
{
    if (!l->cap)
        return tb_errf(err, "the table needs at least one slot");
    if (!l->per_addr || !l->per_prefix)
        return tb_errf(err, "the quotas per address and per prefix must be at least 1");
    if (l->reserved >= l->cap)
        return tb_errf(err, "the reserve (%zu slots) must be smaller than the table (%zu)",
                       l->reserved, l->cap);
    return 0;
}

tb_notary_admit tb_notary_admit_check(const tb_notary_limits *l, size_t used, size_t n_addr,
                                      size_t n_prefix)
{
    if (n_addr >= l->per_addr)
        return TB_NOTARY_ADMIT_ADDR;
    if (n_prefix >= l->per_prefix)
        return TB_NOTARY_ADMIT_PREFIX;
    if (used >= l->cap)
        return TB_NOTARY_ADMIT_FULL;
    /* the shared part is full: the reserve is for prefixes that hold few */
    if (used >= l->cap - l->reserved && n_prefix >= l->reserve_below)
        return TB_NOTARY_ADMIT_RESERVE;
    return TB_NOTARY_ADMIT_OK;
}

static size_t home(const tb_notary_quota *q, const uint8_t key[16])
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (int i = 0; i < 16; i++)
        h = (h ^ key[i]) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29)) & q->mask;
}

int tb_notary_quota_init(tb_notary_quota *q, size_t max_keys, size_t limit, tb_err *err)
{
    memset(q, 0, sizeof *q);
    if (!max_keys || !limit)
        return tb_errf(err, "quota: keys and limit must be positive");
    size_t cap = 16;
    while (cap < 2 * max_keys)
        cap *= 2;
    q->e = calloc(cap, sizeof *q->e);
    if (!q->e)
        return tb_errf(err, "quota: out of memory");
    q->mask = cap - 1;
    q->max_keys = max_keys;
    q->limit = limit;
    return 0;
}

void tb_notary_quota_clear(tb_notary_quota *q)
{
    free(q->e);
    memset(q, 0, sizeof *q);
}

/* The slot of key, or of the empty entry where it would go. */
static size_t find(const tb_notary_quota *q, const uint8_t key[16])
{
    size_t i = home(q, key);
    while (q->e[i].n && memcmp(q->e[i].key, key, 16))
        i = (i + 1) & q->mask;
    return i;
}

size_t tb_notary_quota_count(const tb_notary_quota *q, const uint8_t key[16])
{
    return q->e[find(q, key)].n;
}

int tb_notary_quota_take(tb_notary_quota *q, const uint8_t key[16])
{
    size_t i = find(q, key);
    if (q->e[i].n >= q->limit)
        return -1;
    if (!q->e[i].n) {
        if (q->used == q->max_keys)
            return -1;
        memcpy(q->e[i].key, key, 16);
        q->used++;
    }
    q->e[i].n++;
    return 0;
}

void tb_notary_quota_give(tb_notary_quota *q, const uint8_t key[16])
{
    size_t i = find(q, key);
    if (!q->e[i].n || --q->e[i].n)
        return;
    q->used--;
    /* backward-shift deletion: move later entries of the run into the hole
     * when their home slot is not after the hole (cyclically) */
    for (size_t j = (i + 1) & q->mask; q->e[j].n; j = (j + 1) & q->mask) {
        size_t h = home(q, q->e[j].key);
        if (((j - h) & q->mask) >= ((j - i) & q->mask)) {
            q->e[i] = q->e[j];
            q->e[j].n = 0;
            i = j;
        }
    }
}

int tb_notary_quota2_init(tb_notary_quota2 *q, size_t max_keys, size_t per_addr, size_t per_prefix,
                          tb_err *err)
{
    memset(q, 0, sizeof *q);
    if (tb_notary_quota_init(&q->addr, max_keys, per_addr, err) < 0 ||
        tb_notary_quota_init(&q->prefix, max_keys, per_prefix, err) < 0) {
        tb_notary_quota2_clear(q);
        return -1;
    }
    return 0;
}

void tb_notary_quota2_clear(tb_notary_quota2 *q)
{
    tb_notary_quota_clear(&q->addr);
    tb_notary_quota_clear(&q->prefix);
}

tb_notary_admit tb_notary_quota2_take(tb_notary_quota2 *q, const tb_notary_client *c)
{
    if (tb_notary_quota_take(&q->addr, c->addr) < 0)
        return TB_NOTARY_ADMIT_ADDR;
    if (tb_notary_quota_take(&q->prefix, c->prefix) < 0) {
        tb_notary_quota_give(&q->addr, c->addr);
        return TB_NOTARY_ADMIT_PREFIX;
    }
    return TB_NOTARY_ADMIT_OK;
}

void tb_notary_quota2_give(tb_notary_quota2 *q, const tb_notary_client *c)
{
    tb_notary_quota_give(&q->addr, c->addr);
    tb_notary_quota_give(&q->prefix, c->prefix);
}
