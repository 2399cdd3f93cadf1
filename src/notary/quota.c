/* notary/quota: counts per client address of things a client holds at once
 * (declared in internal.h). The server keeps one for the notarizations each
 * client has queued or running, so that one client cannot take every worker.
 *
 * An open-addressing hash table (linear probing, backward-shift deletion, so
 * no tombstones accumulate) of client keys with a non-zero count; its
 * capacity is a power of two at least twice the most keys it may hold, so a
 * probe always ends at an empty entry. Not thread-safe: one thread owns it
 * (the server's event loop). Invariant: every stored entry has n > 0 and is
 * reachable from its home slot without crossing an empty entry. */
#include "notary/internal.h"

#include <stdlib.h>
#include <string.h>

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
