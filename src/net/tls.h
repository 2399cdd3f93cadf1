/* tls: OpenSSL behind the tb_sock vtable (net/sock.h), client and server side.
 *
 * Client: tb_tls_client_ctx_new makes an SSL_CTX; verification is off unless a
 * CA file is given (like wrk). With a CA file the peer chain must verify and
 * the certificate must match the expected host name (SNI name or --server-name).
 * Server: tb_tls_server_ctx_new loads a PEM certificate chain and key.
 * tb_tls_sock_init_* wrap a connected fd; then use s->ops exactly like a plain
 * socket (ops->handshake until TB_SOCK_OK, then read/write).
 *
 * Ownership: the SSL_CTX belongs to the caller (tb_tls_ctx_free); it may be shared
 * by all threads (OpenSSL 3 contexts are thread-safe once set up). Each tb_sock
 * owns its SSL and fd (ops->close frees them). */
#ifndef TB_NET_TLS_H
#define TB_NET_TLS_H

#include "base/err.h"
#include "net/sock.h"

typedef struct ssl_ctx_st tb_tls_ctx; /* = SSL_CTX */

extern const tb_sock_ops tb_tls_ops;

/* cacert: PEM file of trusted CAs, or NULL for no verification. */
tb_tls_ctx *tb_tls_client_ctx_new(const char *cacert, tb_err *err);
/* cert: PEM chain (leaf first), key: PEM private key. */
tb_tls_ctx *tb_tls_server_ctx_new(const char *cert, const char *key, tb_err *err);
void tb_tls_ctx_free(tb_tls_ctx *ctx);

/* Wraps a connecting/connected client fd. sni: the name sent in the SNI extension
 * and, when the ctx verifies, checked against the certificate (NULL: neither;
 * IP literals are checked as IP addresses and not sent as SNI).
 * Takes ownership of fd (closed on failure too). */
int tb_tls_sock_init_client(tb_sock *s, tb_tls_ctx *ctx, int fd, const char *sni, tb_err *err);
/* Wraps an accepted server fd. Takes ownership of fd (closed on failure too). */
int tb_tls_sock_init_server(tb_sock *s, tb_tls_ctx *ctx, int fd, tb_err *err);

#endif
