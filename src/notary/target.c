/* notary/target: allow-list and the TLS fetch of one resource (see target.h).
 * Invariants: the notary connects only to an address the allow-list permits
 * (checked on each resolved address, not on the name); a response larger than
 * the limit or cut short is an error, never a truncated success; every wait
 * (connect, handshake, write, read) is a poll bounded by the one deadline of
 * the fetch and by cancel_fd; the response is parsed incrementally (each byte
 * once, by net/http_resp). */
#include "notary/target.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "base/clock.h"
#include "net/http_resp.h"
#include "notary/internal.h"

/* ------------------------------------------------------------- allow-list */

void tb_notary_allowlist_loopback(tb_notary_allowlist *l)
{
    memset(l, 0, sizeof *l);
    tb_notary_allowlist_add(l, "127.0.0.0/8", NULL);
    tb_notary_allowlist_add(l, "::1/128", NULL);
}

/* s[0..n) as a decimal number without sign, space or leading zero, <= max. */
static int plain_decimal(const char *s, size_t n, long max, long *out)
{
    if (n == 0 || n > 6 || (s[0] == '0' && n > 1))
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

static int add_cidr(tb_notary_allow_entry *e, const char *spec, const char *slash, tb_err *err)
{
    char ip[64];
    size_t n = (size_t)(slash - spec);
    if (n == 0 || n >= sizeof ip)
        return tb_errf(err, "allow-target '%s': want ADDR/BITS (e.g. 10.0.0.0/8)", spec);
    memcpy(ip, spec, n);
    ip[n] = 0;
    if (inet_pton(AF_INET, ip, e->addr) == 1)
        e->family = AF_INET;
    else if (inet_pton(AF_INET6, ip, e->addr) == 1)
        e->family = AF_INET6;
    else
        return tb_errf(err, "allow-target '%s': '%s' is not an IPv4 or IPv6 address", spec, ip);
    long max = e->family == AF_INET ? 32 : 128, pfx;
    if (plain_decimal(slash + 1, strlen(slash + 1), max, &pfx) < 0)
        return tb_errf(err, "allow-target '%s': the prefix length must be 0..%ld in plain digits",
                       spec, max);
    for (long bit = pfx; bit < max; bit++)
        if (e->addr[bit / 8] & (0x80 >> (bit % 8)))
            return tb_errf(err, "allow-target '%s': address bits are set after the /%ld prefix",
                           spec, pfx);
    e->is_cidr = 1;
    e->prefix = (int)pfx;
    return 0;
}

static int add_host_port(tb_notary_allow_entry *e, const char *spec, tb_err *err)
{
    const char *colon = strrchr(spec, ':');
    if (!colon)
        return tb_errf(err, "allow-target '%s': want CIDR (ADDR/BITS) or HOST:PORT", spec);
    long port;
    if (plain_decimal(colon + 1, strlen(colon + 1), 65535, &port) < 0 || port < 1)
        return tb_errf(err, "allow-target '%s': the port must be 1..65535 in plain digits", spec);
    const char *h = spec;
    size_t n = (size_t)(colon - spec);
    uint8_t tmp[16];
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
        h++;
        n -= 2;
        if (n == 0 || n >= sizeof e->host)
            return tb_errf(err, "allow-target '%s': empty or long IPv6 address", spec);
        memcpy(e->host, h, n);
        e->host[n] = 0;
        if (inet_pton(AF_INET6, e->host, tmp) != 1)
            return tb_errf(err, "allow-target '%s': '%s' is not an IPv6 address", spec, e->host);
    } else {
        if (memchr(h, ':', n) || memchr(h, '[', n) || memchr(h, ']', n))
            return tb_errf(err,
                           "allow-target '%s': an IPv6 address goes in brackets ([::1]:443) "
                           "or takes a prefix length (::1/128)",
                           spec);
        if (n == 0 || n >= sizeof e->host)
            return tb_errf(err, "allow-target '%s': want HOST:PORT with a host", spec);
        memcpy(e->host, h, n);
        e->host[n] = 0;
        if (inet_pton(AF_INET, e->host, tmp) != 1 && !tb_notary_dns_name_valid(e->host))
            return tb_errf(err, "allow-target '%s': '%s' is not a host name or IPv4 address", spec,
                           e->host);
    }
    e->port = (uint16_t)port;
    return 0;
}

int tb_notary_allowlist_add(tb_notary_allowlist *l, const char *spec, tb_err *err)
{
    if (l->n == TB_NOTARY_ALLOW_MAX)
        return tb_errf(err, "allow-target: more than %d entries", TB_NOTARY_ALLOW_MAX);
    tb_notary_allow_entry e;
    memset(&e, 0, sizeof e);
    const char *slash = strchr(spec, '/');
    if ((slash ? add_cidr(&e, spec, slash, err) : add_host_port(&e, spec, err)) < 0)
        return -1;
    l->e[l->n++] = e;
    return 0;
}

static int prefix_match(const uint8_t *a, const uint8_t *b, int bits)
{
    int full = bits / 8, rest = bits % 8;
    if (memcmp(a, b, (size_t)full))
        return 0;
    if (!rest)
        return 1;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (a[full] & mask) == (b[full] & mask);
}

int tb_notary_allowlist_permits(const tb_notary_allowlist *l, const char *host, uint16_t port,
                                const struct sockaddr *sa)
{
    for (size_t i = 0; i < l->n; i++) {
        const tb_notary_allow_entry *e = &l->e[i];
        if (!e->is_cidr) {
            if (e->port == port && !strcasecmp(e->host, host))
                return 1;
            continue;
        }
        if (sa->sa_family == AF_INET && e->family == AF_INET) {
            const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
            if (prefix_match((const uint8_t *)&in->sin_addr, e->addr, e->prefix))
                return 1;
        } else if (sa->sa_family == AF_INET6) {
            const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
            const uint8_t *a = (const uint8_t *)&in6->sin6_addr;
            if (e->family == AF_INET6 && prefix_match(a, e->addr, e->prefix))
                return 1;
            /* an IPv4-mapped IPv6 address is checked as IPv4 */
            if (e->family == AF_INET && IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) &&
                prefix_match(a + 12, e->addr, e->prefix))
                return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ target */

int tb_notary_target_init(tb_notary_target *t, const char *const *ca_files, size_t n_ca,
                          int system_ca, const tb_notary_allowlist *allow, int timeout_ms,
                          tb_err *err)
{
    memset(t, 0, sizeof *t);
    t->allow = *allow;
    t->timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
    t->ctx = SSL_CTX_new(TLS_client_method());
    if (!t->ctx)
        return tb_err_ssl(err, "TLS client context");
    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* Every notarization must see (and record) the full certificate chain:
     * no session resumption. */
    SSL_CTX_set_session_cache_mode(t->ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(t->ctx, SSL_OP_NO_TICKET);
    for (size_t i = 0; i < n_ca; i++)
        if (SSL_CTX_load_verify_locations(t->ctx, ca_files[i], NULL) != 1) {
            tb_err_ssl(err, "trust-ca %s", ca_files[i]);
            tb_notary_target_clear(t);
            return -1;
        }
    if (system_ca && SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
        tb_err_ssl(err, "system CA store");
        tb_notary_target_clear(t);
        return -1;
    }
    if (!system_ca && n_ca == 0) {
        tb_errf(err, "no trusted CA: give --trust-ca FILE or drop --no-system-ca");
        tb_notary_target_clear(t);
        return -1;
    }
    return 0;
}

void tb_notary_target_clear(tb_notary_target *t)
{
    SSL_CTX_free(t->ctx);
    t->ctx = NULL;
}

void tb_notary_target_response_clear(tb_notary_target_response *r)
{
    tb_buf_clear(&r->response);
    tb_buf_clear(&r->certs);
    memset(r, 0, sizeof *r);
}

/* 1 when some entry of l could permit host:port: a CIDR entry (after the
 * lookup), or the HOST:PORT entry of exactly this host and port. */
static int could_permit(const tb_notary_allowlist *l, const char *host, uint16_t port)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].is_cidr || (l->e[i].port == port && !strcasecmp(l->e[i].host, host)))
            return 1;
    return 0;
}

int tb_notary_target_resolve(const tb_notary_target *t, tb_notary_resolver *r,
                             const tb_notary_client *who, const char *host, uint16_t port,
                             uint64_t deadline_ns, int cancel_fd, tb_notary_target_addrs *out,
                             int *status, tb_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->host, sizeof out->host, "%s", host);
    out->port = port;
    if (!could_permit(&t->allow, host, port)) {
        *status = 403;
        return tb_errf(err, "target %s:%u is not allowed by this notary (see --allow-target)", host,
                       port);
    }
    struct addrinfo *res = NULL;
    if (tb_notary_resolve(r, who, host, port, deadline_ns, cancel_fd, &res, status, err) < 0) {
        if (*status != 504)
            return tb_err_wrap(err, "target %s:%u", host, port);
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return tb_errf(err,
                       "target %s:%u: %s (name resolution and the target exchange are limited to "
                       "%d ms)",
                       host, port, why, t->timeout_ms);
    }
    for (struct addrinfo *a = res; a && out->n < TB_NOTARY_TARGET_MAX_ADDRS; a = a->ai_next) {
        if (a->ai_addrlen > sizeof out->addr[0] ||
            !tb_notary_allowlist_permits(&t->allow, host, port, a->ai_addr))
            continue;
        memcpy(&out->addr[out->n], a->ai_addr, a->ai_addrlen);
        out->len[out->n++] = a->ai_addrlen;
    }
    freeaddrinfo(res);
    if (out->n == 0) {
        *status = 403;
        return tb_errf(err, "target %s:%u is not allowed by this notary (see --allow-target)", host,
                       port);
    }
    return 0;
}

uint64_t tb_notary_target_deadline(const tb_notary_target *t)
{
    return tb_mono_ns() + (uint64_t)t->timeout_ms * 1000000u;
}

/* ------------------------------------------------------------------- fetch */

/* One fetch in progress: the deadline and how to give up. */
typedef struct fetch {
    const tb_notary_target *t;
    uint64_t deadline;
    int cancel_fd;
    int *status;
    tb_err *err;
} fetch;

/* Waits until fd is ready for events. Returns 0, or -1 (504 at the deadline,
 * 503 when cancelled) with err naming the phase. */
static int wait_fd(fetch *f, int fd, short events, const char *phase)
{
    for (;;) {
        uint64_t now = tb_mono_ns();
        if (now >= f->deadline) {
            *f->status = 504;
            return tb_errf(f->err,
                           "%s: timed out (name resolution and the target exchange are limited "
                           "to %d ms)",
                           phase, f->t->timeout_ms);
        }
        int ms = (int)((f->deadline - now + 999999) / 1000000);
        struct pollfd p[2] = {{fd, events, 0}, {f->cancel_fd, POLLIN, 0}};
        int n = poll(p, f->cancel_fd >= 0 ? 2 : 1, ms);
        if (n < 0 && errno != EINTR) {
            *f->status = 502;
            return tb_errno(f->err, "%s: poll", phase);
        }
        if (n > 0 && f->cancel_fd >= 0 && p[1].revents) {
            *f->status = 503;
            return tb_errf(f->err, "%s: abandoned, the notary is stopping", phase);
        }
        if (n > 0 && p[0].revents)
            return 0;
    }
}

/* Connects to the first address that accepts within the deadline. */
static int connect_any(fetch *f, const tb_notary_target_addrs *addrs,
                       tb_notary_target_response *out)
{
    int last_errno = ECONNREFUSED;
    for (size_t i = 0; i < addrs->n; i++) {
        const struct sockaddr *sa = (const struct sockaddr *)&addrs->addr[i];
        int s = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s < 0) {
            last_errno = errno;
            continue;
        }
        if (connect(s, sa, addrs->len[i]) < 0 && errno != EINPROGRESS) {
            last_errno = errno;
            close(s);
            continue;
        }
        if (wait_fd(f, s, POLLOUT, "connecting") < 0) {
            close(s);
            return -1;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
            last_errno = soerr ? soerr : errno;
            close(s);
            continue;
        }
        char ip[INET6_ADDRSTRLEN] = "?";
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, ip, sizeof ip);
        else
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, ip, sizeof ip);
        snprintf(out->address, sizeof out->address, "%s:%u", ip, addrs->port);
        int one = 1;
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        return s;
    }
    *f->status = 502;
    errno = last_errno;
    return tb_errno(f->err, "cannot connect");
}

/* After an SSL call returned rc <= 0: waits when OpenSSL asks for it (returns
 * 1: call again), or fails with a one-line reason (-1). */
static int ssl_again(fetch *f, SSL *ssl, int rc, const char *what)
{
    int e = SSL_get_error(ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        ERR_clear_error();
        return wait_fd(f, SSL_get_fd(ssl), e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, what) < 0
                   ? -1
                   : 1;
    }
    *f->status = 502;
    long vr = SSL_get_verify_result(ssl);
    if (vr != X509_V_OK) {
        ERR_clear_error();
        return tb_errf(f->err, "%s: server certificate rejected: %s", what,
                       X509_verify_cert_error_string(vr));
    }
    if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)
        return errno ? tb_errno(f->err, "%s", what)
                     : tb_errf(f->err, "%s: connection closed", what);
    return tb_err_ssl(f->err, "%s", what);
}

static int save_chain(fetch *f, SSL *ssl, tb_notary_target_response *out)
{
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);
    int n = chain ? sk_X509_num(chain) : 0;
    *f->status = 502;
    if (n <= 0)
        return tb_errf(f->err, "TLS: the server sent no certificate");
    if (n > TB_NOTARY_TARGET_MAX_CERTS)
        return tb_errf(f->err, "TLS: the server sent %d certificates (at most %d)", n,
                       TB_NOTARY_TARGET_MAX_CERTS);
    for (int i = 0; i < n; i++) {
        unsigned char *der = NULL;
        int len = i2d_X509(sk_X509_value(chain, i), &der);
        if (len <= 0)
            return tb_err_ssl(f->err, "TLS: encoding the server certificate");
        out->cert_off[i] = out->certs.len;
        out->cert_len[i] = (size_t)len;
        int rc = tb_buf_append(&out->certs, der, (size_t)len);
        OPENSSL_free(der);
        if (rc < 0)
            return tb_errf(f->err, "out of memory");
    }
    out->n_certs = (size_t)n;
    return 0;
}

static int too_large(fetch *f, size_t max_recv)
{
    *f->status = 422;
    return tb_errf(f->err, "the response exceeds the session's maxRecvData (%zu bytes)", max_recv);
}

/* Reads one response of at most max_recv bytes, feeding each read to the parser. */
static int read_response(fetch *f, SSL *ssl, int head, size_t max_recv,
                         tb_notary_target_response *out)
{
    tb_http_resp p;
    tb_http_resp_init(&p);
    p.head = head;
    tb_buf *b = &out->response;
    for (;;) {
        /* never hold more than one byte over the limit */
        size_t want = max_recv + 1 - b->len;
        if (want > 16384)
            want = 16384;
        if (tb_buf_reserve(b, want) < 0) {
            *f->status = 502;
            return tb_errf(f->err, "out of memory");
        }
        size_t got = 0;
        int rc = SSL_read_ex(ssl, b->p + b->len, want, &got);
        int r;
        if (rc == 1) {
            size_t used = 0;
            r = tb_http_resp_feed(&p, b->p + b->len, got, &used);
            b->len += r == TB_HTTP_DONE ? used : got;
        } else if (SSL_get_error(ssl, rc) == SSL_ERROR_ZERO_RETURN) {
            r = tb_http_resp_eof(&p); /* close_notify: ends a close-delimited body */
        } else {
            if (ssl_again(f, ssl, rc, "reading the response") < 0)
                return -1;
            continue;
        }
        if (r == TB_HTTP_ERROR) {
            *f->status = 502;
            return tb_errf(f->err, "target response: %s", p.error);
        }
        if (b->len > max_recv)
            return too_large(f, max_recv);
        if (r == TB_HTTP_DONE) {
            b->p[b->len] = 0;
            return 0;
        }
    }
}

static int exchange(fetch *f, SSL *ssl, const char *server_name, const uint8_t *req, size_t req_len,
                    size_t max_recv, tb_notary_target_response *out)
{
    if (!SSL_set_tlsext_host_name(ssl, server_name) || !SSL_set1_host(ssl, server_name)) {
        *f->status = 502;
        return tb_err_ssl(f->err, "TLS setup for %s", server_name);
    }
    int rc;
    while ((rc = SSL_connect(ssl)) != 1)
        if (ssl_again(f, ssl, rc, "TLS handshake") < 0)
            return -1;
    if (save_chain(f, ssl, out) < 0)
        return -1;
    size_t sent = 0;
    while (sent < req_len) {
        size_t w = 0;
        rc = SSL_write_ex(ssl, req + sent, req_len - sent, &w);
        if (rc == 1)
            sent += w;
        else if (ssl_again(f, ssl, rc, "sending the request") < 0)
            return -1;
    }
    int head = req_len >= 5 && !memcmp(req, "HEAD ", 5);
    return read_response(f, ssl, head, max_recv, out);
}

int tb_notary_target_fetch(const tb_notary_target *t, const tb_notary_target_addrs *addrs,
                           const char *server_name, const uint8_t *req, size_t req_len,
                           size_t max_recv, uint64_t deadline_ns, int cancel_fd,
                           tb_notary_target_response *out, int *status, tb_err *err)
{
    memset(out, 0, sizeof *out);
    fetch f = {t, deadline_ns, cancel_fd, status, err};
    int fd = connect_any(&f, addrs, out);
    if (fd < 0)
        return -1;
    SSL *ssl = SSL_new(t->ctx);
    if (!ssl || !SSL_set_fd(ssl, fd)) {
        SSL_free(ssl);
        close(fd);
        *status = 502;
        return tb_err_ssl(err, "TLS session");
    }
    int rc = exchange(&f, ssl, server_name, req, req_len, max_recv, out);
    if (rc == 0)
        SSL_shutdown(ssl); /* close_notify, best effort: the socket is non-blocking */
    SSL_free(ssl);
    close(fd);
    ERR_clear_error();
    if (rc < 0)
        tb_err_wrap(err, "target %s:%u (%s)", addrs->host, addrs->port, server_name);
    return rc;
}
