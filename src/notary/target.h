/* notary/target: what the notary may connect to, and fetching one TLS resource.
 *
 * tb_notary_allowlist: entries are CIDR blocks ("127.0.0.0/8", "::1/128", "10.1.2.3/32")
 * that a target's resolved address must fall into, or "HOST:PORT" pairs
 * ("example.com:443", "[::1]:8443") that the requested host and port must equal
 * (case-insensitive). Prefix lengths and ports are plain decimal digits without
 * a sign, space or leading zero; a CIDR block has no bits set after its prefix;
 * an IPv6 host in HOST:PORT is written in brackets. Anything else is refused
 * with a message that says what was expected. By default
 * (tb_notary_allowlist_loopback) only loopback addresses are allowed, so an exposed
 * notary cannot be used to reach other hosts.
 *
 * tb_notary_target: one shared client SSL_CTX (trusted CAs, peer verification on,
 * no session resumption, so every document carries the chain the server
 * sent), created once and reused by every notarization; read-only after
 * init, so safe to use from many threads.
 *
 * A notarization is two calls under ONE deadline (tb_notary_target_deadline:
 * timeout_ms after the notarization starts), so that a refusal costs the client
 * nothing: tb_notary_target_resolve resolves the host (notary/resolve: a lookup
 * thread the caller stops waiting for at the deadline or at cancel_fd, capped
 * per client) and keeps only the addresses the allow-list permits (403 when
 * none), before the notary commits a session; tb_notary_target_fetch then
 * connects, does TLS with SNI = server name, verifies the chain and the name,
 * sends the request and reads one HTTP response (framed by net/http_resp:
 * Content-Length, chunked, or until close_notify) of at most max_recv bytes.
 * Every wait -- the lookup, connect, handshake, write, read -- ends at that
 * deadline (a DNS server that never answers or a target that trickles bytes
 * cannot stretch it), and at once when cancel_fd becomes readable (the notary
 * is stopping). */
#ifndef TB_NOTARY_TARGET_H
#define TB_NOTARY_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <openssl/ssl.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_NOTARY_ALLOW_MAX 64
#define TB_NOTARY_TARGET_MAX_ADDRS 8
#define TB_NOTARY_TARGET_MAX_CERTS 16

typedef struct tb_notary_allow_entry {
    int is_cidr;
    int family; /* AF_INET or AF_INET6 (cidr) */
    uint8_t addr[16];
    int prefix;
    char host[254]; /* host:port entry */
    uint16_t port;
} tb_notary_allow_entry;

typedef struct tb_notary_allowlist {
    tb_notary_allow_entry e[TB_NOTARY_ALLOW_MAX];
    size_t n;
} tb_notary_allowlist;

/* Empties l and allows 127.0.0.0/8 and ::1/128. */
void tb_notary_allowlist_loopback(tb_notary_allowlist *l);
/* Adds one entry ("CIDR" or "HOST:PORT"); err names the entry and what is wrong. */
int tb_notary_allowlist_add(tb_notary_allowlist *l, const char *spec, tb_err *err);

typedef struct tb_notary_target {
    SSL_CTX *ctx;
    tb_notary_allowlist allow;
    int timeout_ms; /* name resolution and the whole target exchange */
} tb_notary_target;

/* ca_files: PEM files of CAs to trust (may be 0); system_ca: also trust the
 * system store. allow is copied. */
int tb_notary_target_init(tb_notary_target *t, const char *const *ca_files, size_t n_ca,
                          int system_ca, const tb_notary_allowlist *allow, int timeout_ms,
                          tb_err *err);
void tb_notary_target_clear(tb_notary_target *t);

#endif
