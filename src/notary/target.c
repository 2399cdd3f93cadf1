/* notary/target: allow-list and the TLS fetch of one resource (see target.h).
 * Invariants: the notary connects only to an address the allow-list permits
 * (checked on each resolved address, not on the name); a response larger than
 * the limit or cut short is an error, never a truncated success. */
#include "notary/target.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "base/clock.h"
#include "notary/proto.h"

void tb_allowlist_loopback(tb_allowlist *l)
{
    memset(l, 0, sizeof *l);
    tb_allowlist_add(l, "127.0.0.0/8", NULL);
    tb_allowlist_add(l, "::1/128", NULL);
}

int tb_allowlist_add(tb_allowlist *l, const char *spec, tb_err *err)
{
    if (l->n == TB_ALLOW_MAX)
        return tb_errf(err, "allow-target: more than %d entries", TB_ALLOW_MAX);
    tb_allow_entry e;
    memset(&e, 0, sizeof e);
    const char *slash = strchr(spec, '/');
    if (slash) {
        char ip[64];
        size_t n = (size_t)(slash - spec);
        char *end;
        long pfx = strtol(slash + 1, &end, 10);
        if (n == 0 || n >= sizeof ip || *end || end == slash + 1)
            return tb_errf(err, "allow-target '%s': want CIDR (ADDR/BITS) or HOST:PORT", spec);
        memcpy(ip, spec, n);
        ip[n] = 0;
        if (inet_pton(AF_INET, ip, e.addr) == 1 && pfx >= 0 && pfx <= 32)
            e.family = AF_INET;
        else if (inet_pton(AF_INET6, ip, e.addr) == 1 && pfx >= 0 && pfx <= 128)
            e.family = AF_INET6;
        else
            return tb_errf(err, "allow-target '%s': bad address or prefix length", spec);
        e.is_cidr = 1;
        e.prefix = (int)pfx;
    } else {
        const char *colon = strrchr(spec, ':');
        if (!colon || colon == spec)
            return tb_errf(err, "allow-target '%s': want CIDR (ADDR/BITS) or HOST:PORT", spec);
        char *end;
        long port = strtol(colon + 1, &end, 10);
        if (*end || end == colon + 1 || port < 1 || port > 65535)
            return tb_errf(err, "allow-target '%s': bad port", spec);
        const char *h = spec;
        size_t n = (size_t)(colon - spec);
        if (h[0] == '[' && n >= 2 && h[n - 1] == ']') {
            h++;
            n -= 2;
        }
        if (n == 0 || n >= sizeof e.host)
            return tb_errf(err, "allow-target '%s': bad host", spec);
        memcpy(e.host, h, n);
        e.host[n] = 0;
        e.port = (uint16_t)port;
    }
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

int tb_allowlist_permits(const tb_allowlist *l, const char *host, uint16_t port,
                         const struct sockaddr *sa)
{
    for (size_t i = 0; i < l->n; i++) {
        const tb_allow_entry *e = &l->e[i];
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

int tb_target_init(tb_target *t, const char *const *ca_files, size_t n_ca, int system_ca,
                   const tb_allowlist *allow, int timeout_ms, tb_err *err)
{
    memset(t, 0, sizeof *t);
    t->allow = *allow;
    t->timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
    t->ctx = SSL_CTX_new(TLS_client_method());
    if (!t->ctx)
        return tb_err_ssl(err, "TLS client context");
    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
    /* Every notarization must see (and record) the full certificate chain:
     * no session resumption. */
    SSL_CTX_set_session_cache_mode(t->ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(t->ctx, SSL_OP_NO_TICKET);
    for (size_t i = 0; i < n_ca; i++)
        if (SSL_CTX_load_verify_locations(t->ctx, ca_files[i], NULL) != 1) {
            tb_err_ssl(err, "trust-ca %s", ca_files[i]);
            tb_target_free(t);
            return -1;
        }
    if (system_ca && SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
        tb_err_ssl(err, "system CA store");
        tb_target_free(t);
        return -1;
    }
    if (!system_ca && n_ca == 0) {
        tb_errf(err, "no trusted CA: give --trust-ca FILE or drop --no-system-ca");
        tb_target_free(t);
        return -1;
    }
    return 0;
}

void tb_target_free(tb_target *t)
{
    SSL_CTX_free(t->ctx);
    t->ctx = NULL;
}

void tb_fetch_free(tb_fetch *f)
{
    tb_buf_free(&f->response);
    tb_buf_free(&f->certs);
    memset(f, 0, sizeof *f);
}

static void set_io_timeout(int fd, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* Connects to the first permitted address of host:port within timeout_ms. */
static int connect_target(const tb_target *t, const char *host, uint16_t port, tb_fetch *out,
                          int *status, tb_err *err)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char ps[8];
    snprintf(ps, sizeof ps, "%u", port);
    int gai = getaddrinfo(host, ps, &hints, &res);
    if (gai) {
        *status = 502;
        return tb_errf(err, "target %s:%u: cannot resolve: %s", host, port, gai_strerror(gai));
    }
    int fd = -1, allowed = 0, last_errno = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        if (!tb_allowlist_permits(&t->allow, host, port, a->ai_addr))
            continue;
        allowed = 1;
        int s = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s < 0) {
            last_errno = errno;
            continue;
        }
        if (connect(s, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
            last_errno = errno;
            close(s);
            continue;
        }
        struct pollfd pfd = {s, POLLOUT, 0};
        int pr = poll(&pfd, 1, t->timeout_ms);
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (pr <= 0 || getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
            last_errno = pr == 0 ? ETIMEDOUT : soerr ? soerr : errno;
            close(s);
            continue;
        }
        char ip[INET6_ADDRSTRLEN] = "?";
        if (a->ai_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)a->ai_addr)->sin_addr, ip, sizeof ip);
        else
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)a->ai_addr)->sin6_addr, ip, sizeof ip);
        snprintf(out->address, sizeof out->address, "%s:%u", ip, port);
        fd = s;
    }
    freeaddrinfo(res);
    if (!allowed) {
        *status = 403;
        return tb_errf(err, "target %s:%u is not allowed by this notary (see --allow-target)", host,
                       port);
    }
    if (fd < 0) {
        *status = last_errno == ETIMEDOUT ? 504 : 502;
        return tb_errf(err, "target %s:%u: cannot connect: %s", host, port, strerror(last_errno));
    }
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    set_io_timeout(fd, t->timeout_ms);
    return fd;
}

/* The one-line reason of a failed SSL call. */
static int ssl_fail(SSL *ssl, int rc, const char *what, int *status, tb_err *err)
{
    int e = SSL_get_error(ssl, rc);
    long vr = SSL_get_verify_result(ssl);
    *status = 502;
    if (vr != X509_V_OK) {
        ERR_clear_error();
        return tb_errf(err, "%s: server certificate rejected: %s", what,
                       X509_verify_cert_error_string(vr));
    }
    if ((e == SSL_ERROR_SYSCALL || e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) &&
        (errno == EAGAIN || errno == EWOULDBLOCK)) {
        *status = 504;
        ERR_clear_error();
        return tb_errf(err, "%s: timed out", what);
    }
    if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
        return errno ? tb_errno(err, "%s", what) : tb_errf(err, "%s: connection closed", what);
    }
    return tb_err_ssl(err, "%s", what);
}

static int save_chain(SSL *ssl, tb_fetch *out, int *status, tb_err *err)
{
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);
    int n = chain ? sk_X509_num(chain) : 0;
    *status = 502;
    if (n <= 0)
        return tb_errf(err, "TLS: the server sent no certificate");
    if (n > TB_FETCH_MAX_CERTS)
        return tb_errf(err, "TLS: the server sent %d certificates (at most %d)", n,
                       TB_FETCH_MAX_CERTS);
    for (int i = 0; i < n; i++) {
        unsigned char *der = NULL;
        int len = i2d_X509(sk_X509_value(chain, i), &der);
        if (len <= 0)
            return tb_err_ssl(err, "TLS: encoding the server certificate");
        out->cert_off[i] = out->certs.len;
        out->cert_len[i] = (size_t)len;
        int rc = tb_buf_append(&out->certs, der, (size_t)len);
        OPENSSL_free(der);
        if (rc < 0)
            return tb_errf(err, "out of memory");
    }
    out->n_certs = (size_t)n;
    return 0;
}

static int exchange(const tb_target *t, SSL *ssl, const char *server_name, const uint8_t *req,
                    size_t req_len, size_t max_recv, tb_fetch *out, int *status, tb_err *err)
{
    uint64_t deadline = tb_mono_ns() + (uint64_t)t->timeout_ms * 1000000u;
    if (!SSL_set_tlsext_host_name(ssl, server_name) || !SSL_set1_host(ssl, server_name)) {
        *status = 502;
        return tb_err_ssl(err, "TLS setup for %s", server_name);
    }
    int rc = SSL_connect(ssl);
    if (rc != 1)
        return ssl_fail(ssl, rc, "TLS handshake", status, err);
    if (save_chain(ssl, out, status, err) < 0)
        return -1;
    size_t sent = 0;
    while (sent < req_len) {
        size_t w = 0;
        rc = SSL_write_ex(ssl, req + sent, req_len - sent, &w);
        if (rc != 1)
            return ssl_fail(ssl, rc, "sending the request", status, err);
        sent += w;
    }
    int no_body = req_len >= 5 && !memcmp(req, "HEAD ", 5);
    for (;;) {
        if (tb_buf_reserve(&out->response, 16384) < 0) {
            *status = 502;
            return tb_errf(err, "out of memory");
        }
        size_t got = 0;
        rc = SSL_read_ex(ssl, out->response.p + out->response.len, 16384, &got);
        int eof = 0;
        if (rc != 1) {
            int e = SSL_get_error(ssl, rc);
            if (e == SSL_ERROR_ZERO_RETURN)
                eof = 1;
            else
                return ssl_fail(ssl, rc, "reading the response", status, err);
        }
        out->response.len += got;
        out->response.p[out->response.len] = 0;
        size_t total = 0;
        int done = tb_http_response_complete(out->response.p, out->response.len, eof, no_body,
                                             &total, err);
        if (done < 0) {
            *status = 502;
            return tb_err_wrap(err, "target response");
        }
        if (done == 1) {
            if (total > max_recv)
                break;
            out->response.len = total;
            out->response.p[total] = 0;
            return 0;
        }
        if (out->response.len > max_recv)
            break;
        if (tb_mono_ns() > deadline) {
            *status = 504;
            return tb_errf(err, "reading the response: timed out after %d ms", t->timeout_ms);
        }
    }
    *status = 422;
    return tb_errf(err, "the response exceeds the session's maxRecvData (%zu bytes)", max_recv);
}

int tb_target_fetch(const tb_target *t, const char *host, uint16_t port, const char *server_name,
                    const uint8_t *req, size_t req_len, size_t max_recv, tb_fetch *out, int *status,
                    tb_err *err)
{
    memset(out, 0, sizeof *out);
    int fd = connect_target(t, host, port, out, status, err);
    if (fd < 0)
        return -1;
    SSL *ssl = SSL_new(t->ctx);
    if (!ssl || !SSL_set_fd(ssl, fd)) {
        SSL_free(ssl);
        close(fd);
        *status = 502;
        return tb_err_ssl(err, "TLS session");
    }
    int rc = exchange(t, ssl, server_name, req, req_len, max_recv, out, status, err);
    if (rc == 0)
        SSL_shutdown(ssl);
    SSL_free(ssl);
    close(fd);
    ERR_clear_error();
    if (rc < 0)
        tb_err_wrap(err, "target %s:%u (%s)", host, port, server_name);
    return rc;
}
