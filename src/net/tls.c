/* tls: OpenSSL implementation of the tb_sock vtable. See tls.h.
 * SSL_MODE_ENABLE_PARTIAL_WRITE and ACCEPT_MOVING_WRITE_BUFFER let a retried
 * write pass the same bytes from a different offset, like a plain socket. */
#include "net/tls.h"

#include <arpa/inet.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "net/ev.h"

static tb_sock_status ssl_status(tb_sock *s, int rc, const char *what)
{
    int e = SSL_get_error((SSL *)s->ssl, rc);
    switch (e) {
    case SSL_ERROR_WANT_READ:
        s->want = TB_EV_READABLE;
        return TB_SOCK_RETRY;
    case SSL_ERROR_WANT_WRITE:
        s->want = TB_EV_WRITABLE;
        return TB_SOCK_RETRY;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_error() == 0) {
            tb_errno(&s->err, "%s", what);
            ERR_clear_error();
            return TB_SOCK_ERROR;
        }
        /* fall through */
    default:
        tb_err_ssl(&s->err, "%s", what);
        return TB_SOCK_ERROR;
    }
}

static tb_sock_status tls_handshake(tb_sock *s)
{
    ERR_clear_error();
    int rc = SSL_do_handshake((SSL *)s->ssl);
    if (rc == 1)
        return TB_SOCK_OK;
    tb_sock_status st = ssl_status(s, rc, "TLS handshake");
    if (st == TB_SOCK_ERROR) {
        long v = SSL_get_verify_result((SSL *)s->ssl);
        if (v != X509_V_OK)
            tb_errf(&s->err, "TLS handshake: certificate verify failed: %s",
                    X509_verify_cert_error_string(v));
    }
    return st;
}

static tb_sock_status tls_close(tb_sock *s)
{
    if (s->ssl) {
        SSL_free((SSL *)s->ssl);
        s->ssl = NULL;
    }
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    return TB_SOCK_OK;
}

static tb_sock_status tls_read(tb_sock *s, void *buf, size_t len, size_t *n)
{
    *n = 0;
    ERR_clear_error();
    if (SSL_read_ex((SSL *)s->ssl, buf, len, n) == 1)
        return TB_SOCK_OK;
    int e = SSL_get_error((SSL *)s->ssl, 0);
    if (e == SSL_ERROR_ZERO_RETURN) {
        *n = 0;
        return TB_SOCK_OK;
    }
    if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
        /* EOF without close_notify: most servers do this; treat as a clean close. */
        *n = 0;
        return TB_SOCK_OK;
    }
    return ssl_status(s, 0, "TLS read");
}

static tb_sock_status tls_write(tb_sock *s, const void *buf, size_t len, size_t *n)
{
    *n = 0;
    ERR_clear_error();
    if (SSL_write_ex((SSL *)s->ssl, buf, len, n) == 1)
        return TB_SOCK_OK;
    return ssl_status(s, 0, "TLS write");
}

static size_t tls_readable(tb_sock *s)
{
    return (size_t)SSL_pending((SSL *)s->ssl);
}

const tb_sock_ops tb_tls_ops = {
    .handshake = tls_handshake,
    .close = tls_close,
    .read = tls_read,
    .write = tls_write,
    .readable = tls_readable,
};

tb_tls_ctx *tb_tls_client_ctx_new(const char *cacert, tb_err *err)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        tb_err_ssl(err, "TLS client context");
        return NULL;
    }
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (cacert) {
        if (SSL_CTX_load_verify_locations(ctx, cacert, NULL) != 1) {
            tb_err_ssl(err, "load CA file %s", cacert);
            SSL_CTX_free(ctx);
            return NULL;
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    return ctx;
}

tb_tls_ctx *tb_tls_server_ctx_new(const char *cert, const char *key, tb_err *err)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        tb_err_ssl(err, "TLS server context");
        return NULL;
    }
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
        tb_err_ssl(err, "load certificate %s", cert);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        tb_err_ssl(err, "load key %s", key);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        tb_err_ssl(err, "key %s does not match certificate %s", key, cert);
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

void tb_tls_ctx_free(tb_tls_ctx *ctx)
{
    SSL_CTX_free(ctx);
}

static int is_ip_literal(const char *h)
{
    unsigned char tmp[16];
    return inet_pton(AF_INET, h, tmp) == 1 || inet_pton(AF_INET6, h, tmp) == 1;
}

static int wrap(tb_sock *s, tb_tls_ctx *ctx, int fd, tb_err *err, SSL **out)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    SSL *ssl = SSL_new(ctx);
    if (!ssl || SSL_set_fd(ssl, fd) != 1) {
        tb_err_ssl(err, "SSL_new");
        SSL_free(ssl);
        close(fd);
        return -1;
    }
    s->fd = fd;
    s->ssl = ssl;
    s->ops = &tb_tls_ops;
    *out = ssl;
    return 0;
}

int tb_tls_sock_init_client(tb_sock *s, tb_tls_ctx *ctx, int fd, const char *sni, tb_err *err)
{
    SSL *ssl;
    if (wrap(s, ctx, fd, err, &ssl) < 0)
        return -1;
    if (sni && *sni) {
        int ip = is_ip_literal(sni);
        if (!ip && SSL_set_tlsext_host_name(ssl, sni) != 1) {
            tb_err_ssl(err, "set SNI %s", sni);
            tls_close(s);
            return -1;
        }
        if (SSL_CTX_get_verify_mode(ctx) & SSL_VERIFY_PEER) {
            X509_VERIFY_PARAM *vp = SSL_get0_param(ssl);
            int ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(vp, sni)
                        : X509_VERIFY_PARAM_set1_host(vp, sni, 0);
            if (ok != 1) {
                tb_err_ssl(err, "set expected host %s", sni);
                tls_close(s);
                return -1;
            }
        }
    }
    SSL_set_connect_state(ssl);
    return 0;
}

int tb_tls_sock_init_server(tb_sock *s, tb_tls_ctx *ctx, int fd, tb_err *err)
{
    SSL *ssl;
    if (wrap(s, ctx, fd, err, &ssl) < 0)
        return -1;
    SSL_set_accept_state(ssl);
    return 0;
}
