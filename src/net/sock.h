/* sock: a connected stream socket behind a five-function vtable (as wrk has it):
 * handshake, close, read, write, readable. Plain TCP is tb_sock_plain_ops;
 * net/tls.h provides the OpenSSL implementation with the same vtable, for the
 * client (load generator) and the server (fixture server) side alike.
 *
 * Every call is non-blocking. TB_SOCK_RETRY means "call again when the fd is
 * ready"; which readiness is in s->want (TB_EV_READABLE or TB_EV_WRITABLE,
 * from net/ev.h; TLS may want to write during a read and vice versa).
 * read: *n = 0 with TB_SOCK_OK means the peer closed the stream cleanly.
 *
 * Ownership: a tb_sock owns its fd (and its SSL, for TLS) after init; ops->close
 * releases both and sets fd to -1. The struct itself is caller-owned (embed it). */
#ifndef TB_NET_SOCK_H
#define TB_NET_SOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "base/err.h"

typedef enum { TB_SOCK_OK = 0, TB_SOCK_ERROR = -1, TB_SOCK_RETRY = 1 } tb_sock_status;

typedef struct tb_sock tb_sock;

typedef struct tb_sock_ops {
    /* Completes the session setup after the TCP connection exists (TLS handshake;
     * a no-op for plain TCP). For clients call it once the fd is writable. */
    tb_sock_status (*handshake)(tb_sock *s);
    tb_sock_status (*close)(tb_sock *s);
    tb_sock_status (*read)(tb_sock *s, void *buf, size_t len, size_t *n);
    tb_sock_status (*write)(tb_sock *s, const void *buf, size_t len, size_t *n);
    /* Bytes readable without a syscall-level wait (FIONREAD, or TLS pending). */
    size_t (*readable)(tb_sock *s);
} tb_sock_ops;

struct tb_sock {
    int fd;
    int want;  /* readiness to wait for after TB_SOCK_RETRY */
    void *ssl; /* SSL * for TLS sockets, NULL for plain ones */
    const tb_sock_ops *ops;
    tb_err err; /* why the last call returned TB_SOCK_ERROR */
};

extern const tb_sock_ops tb_sock_plain_ops;

/* Makes s a plain TCP socket over fd (takes ownership of fd). */
void tb_sock_init_plain(tb_sock *s, int fd);

/* A resolved address. */
typedef struct tb_addr {
    struct sockaddr_storage ss;
    socklen_t len;
} tb_addr;

/* Resolves host and port (numeric or service name) to the first TCP address. */
int tb_addr_resolve(const char *host, const char *port, tb_addr *out, tb_err *err);
/* Formats an address as "1.2.3.4:80" or "[::1]:80" into out (size >= 64). */
void tb_addr_format(const tb_addr *a, char *out, size_t size);

/* Starts a non-blocking TCP connect (TCP_NODELAY set). On success *fd is the
 * socket; the connect completes when it becomes writable (then check
 * tb_sock_connect_result). Returns -1 with err on immediate failure. */
int tb_sock_connect_start(const tb_addr *a, int *fd, tb_err *err);
/* After writability: 0 if the connect succeeded, -1 with err (SO_ERROR) if not. */
int tb_sock_connect_result(int fd, tb_err *err);
/* Blocking connect with a timeout, for a pre-flight reachability check. */
int tb_sock_connect_wait(const tb_addr *a, int timeout_ms, tb_err *err);

/* Opens a non-blocking listening socket bound to host:port (SO_REUSEADDR; with
 * reuseport also SO_REUSEPORT so several threads can each listen). */
int tb_sock_listen(const char *host, const char *port, int backlog, int reuseport, int *fd,
                   tb_err *err);
/* A TCP port on 127.0.0.1 that nothing uses now, picked by the kernel (bind to port
 * 0, read it back, close): the one way teebench picks a local port for a server it
 * starts (nginx, the fixture server, the notary, a VM's SSH forward). Another program
 * may take it before the caller binds it, so a caller retries or says which port was
 * taken. The port (1..65535), or -1 with err. */
int tb_sock_free_port(tb_err *err);
/* Accepts one connection as a non-blocking, TCP_NODELAY fd. Returns 0 with *fd,
 * 1 if none is pending (EAGAIN), -1 with err on failure. */
int tb_sock_accept(int lfd, int *fd, tb_err *err);

#endif
