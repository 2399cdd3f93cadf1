/* notary/target: what the notary may connect to, and fetching one TLS resource.
 *
 * tb_allowlist: entries are CIDR blocks ("127.0.0.0/8", "::1/128", "10.1.2.3/32")
 * that a target's resolved address must fall into, or "HOST:PORT" pairs
 * ("example.com:443", "[::1]:8443") that the requested host and port must equal
 * (case-insensitive). By default (tb_allowlist_loopback) only loopback addresses
 * are allowed, so an exposed notary cannot be used to reach other hosts.
 *
 * tb_target: one shared client SSL_CTX (trusted CAs, peer verification on),
 * created once and reused by every notarization; read-only after init, so
 * safe to use from many threads. tb_target_fetch connects (only to addresses the
 * allow-list permits), does TLS with SNI = server name, verifies the chain and
 * the name, sends the request and reads one HTTP response (Content-Length,
 * chunked, or until close_notify) of at most max_recv bytes. */
#ifndef TB_NOTARY_TARGET_H
#define TB_NOTARY_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <openssl/ssl.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_ALLOW_MAX 64
#define TB_FETCH_MAX_CERTS 16

typedef struct tb_allow_entry {
    int is_cidr;
    int family; /* AF_INET or AF_INET6 (cidr) */
    uint8_t addr[16];
    int prefix;
    char host[254]; /* host:port entry */
    uint16_t port;
} tb_allow_entry;

typedef struct tb_allowlist {
    tb_allow_entry e[TB_ALLOW_MAX];
    size_t n;
} tb_allowlist;

/* Empties l and allows 127.0.0.0/8 and ::1/128. */
void tb_allowlist_loopback(tb_allowlist *l);
/* Adds one entry ("CIDR" or "HOST:PORT"). */
int tb_allowlist_add(tb_allowlist *l, const char *spec, tb_err *err);
/* 1 when connecting to sa (resolved from host:port) is allowed, else 0. */
int tb_allowlist_permits(const tb_allowlist *l, const char *host, uint16_t port,
                         const struct sockaddr *sa);

typedef struct tb_target {
    SSL_CTX *ctx;
    tb_allowlist allow;
    int timeout_ms; /* connect, and the whole exchange after it */
} tb_target;

/* ca_files: PEM files of CAs to trust (may be 0); system_ca: also trust the
 * system store. allow is copied. */
int tb_target_init(tb_target *t, const char *const *ca_files, size_t n_ca, int system_ca,
                   const tb_allowlist *allow, int timeout_ms, tb_err *err);
void tb_target_free(tb_target *t);

typedef struct tb_fetch {
    tb_buf response; /* the exact response bytes */
    tb_buf certs;    /* DER certificates as sent by the server, concatenated */
    size_t n_certs;
    size_t cert_off[TB_FETCH_MAX_CERTS], cert_len[TB_FETCH_MAX_CERTS];
    char address[64]; /* the address connected to, "ip:port" */
} tb_fetch;

/* Fetches; on failure *status is the HTTP status the notary should answer
 * (403 target not allowed, 422 response larger than max_recv, 502 connection, TLS
 * or HTTP failure, 504 timeout) and err says why. Free out with tb_fetch_free
 * (also after a failure). */
int tb_target_fetch(const tb_target *t, const char *host, uint16_t port, const char *server_name,
                    const uint8_t *req, size_t req_len, size_t max_recv, tb_fetch *out, int *status,
                    tb_err *err);
void tb_fetch_free(tb_fetch *f);

#endif
