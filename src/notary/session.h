/* notary/session: the notary's table of sessions.
 *
 * A session is created by POST /session (limits, TEE request, nonce) and used
 * exactly once by POST /notarize. The table has a fixed capacity and a mutex;
 * all functions are safe to call from many threads. Times are monotonic
 * nanoseconds passed in by the caller (so tests control the clock).
 * States: free slot -> open (created) -> used (claimed; kept until it expires so
 * that a replay is told "already used") -> free. An open or used session whose
 * expiry has passed is treated as free. */
#ifndef TB_NOTARY_SESSION_H
#define TB_NOTARY_SESSION_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef struct tb_session {
    uint8_t id[16];
    uint64_t expires_ns;
    uint64_t max_sent, max_recv;
    int tee;
    uint8_t nonce[64];
    size_t nonce_len;
    int state; /* internal: 0 free, 1 open, 2 used */
} tb_session;

typedef struct tb_session_table {
    pthread_mutex_t mu;
    tb_session *slots; /* owned */
    size_t cap;
    uint64_t ttl_ns;
} tb_session_table;

typedef enum tb_claim {
    TB_CLAIM_OK = 0,
    TB_CLAIM_UNKNOWN,
    TB_CLAIM_EXPIRED, /* only reported while the expired slot has not been reused */
    TB_CLAIM_USED,
} tb_claim;

int tb_session_table_init(tb_session_table *t, size_t cap, uint64_t ttl_ns, tb_err *err);
void tb_session_table_free(tb_session_table *t);
/* Adds a session with s's limits, tee and nonce; draws a random 128-bit id
 * (written to s->id) and sets s->expires_ns = now + ttl. Fails when full. */
int tb_session_create(tb_session_table *t, tb_session *s, uint64_t now_ns, tb_err *err);
/* Claims session id for one notarization: on TB_CLAIM_OK *out is a copy and
 * the session is marked used; any later claim returns TB_CLAIM_USED. */
tb_claim tb_session_claim(tb_session_table *t, const uint8_t id[16], uint64_t now_ns,
                          tb_session *out);
/* Number of sessions that are open or used and not expired. */
size_t tb_session_count(tb_session_table *t, uint64_t now_ns);

#endif
