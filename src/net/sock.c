/* sock: plain TCP implementation of the tb_sock vtable, address resolution,
 * non-blocking connect and listen/accept helpers. See sock.h. */
#include "net/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "net/ev.h"

static tb_sock_status plain_handshake(tb_sock *s)
{
    (void)s;
    return TB_SOCK_OK;
}

static tb_sock_status plain_close(tb_sock *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    return TB_SOCK_OK;
}

static tb_sock_status plain_read(tb_sock *s, void *buf, size_t len, size_t *n)
{
    ssize_t r = read(s->fd, buf, len);
    if (r >= 0) {
        *n = (size_t)r;
        return TB_SOCK_OK;
    }
    *n = 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        s->want = TB_EV_READABLE;
        return TB_SOCK_RETRY;
    }
    tb_errno(&s->err, "read");
    return TB_SOCK_ERROR;
}

static tb_sock_status plain_write(tb_sock *s, const void *buf, size_t len, size_t *n)
{
    ssize_t r = send(s->fd, buf, len, MSG_NOSIGNAL);
    if (r >= 0) {
        *n = (size_t)r;
        return TB_SOCK_OK;
    }
    *n = 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        s->want = TB_EV_WRITABLE;
        return TB_SOCK_RETRY;
    }
    tb_errno(&s->err, "write");
    return TB_SOCK_ERROR;
}

static size_t plain_readable(tb_sock *s)
{
    int n = 0;
    return ioctl(s->fd, FIONREAD, &n) == 0 && n > 0 ? (size_t)n : 0;
}

const tb_sock_ops tb_sock_plain_ops = {
    .handshake = plain_handshake,
    .close = plain_close,
    .read = plain_read,
    .write = plain_write,
    .readable = plain_readable,
};

void tb_sock_init_plain(tb_sock *s, int fd)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->ops = &tb_sock_plain_ops;
}

int tb_addr_resolve(const char *host, const char *port, tb_addr *out, tb_err *err)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0)
        return tb_errf(err, "resolve %s:%s: %s", host, port,
                       rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
    memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
    out->len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

void tb_addr_format(const tb_addr *a, char *out, size_t size)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (a->ss.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&a->ss;
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        snprintf(out, size, "%s:%u", ip, ntohs(in->sin_port));
    } else if (a->ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->ss;
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
        snprintf(out, size, "[%s]:%u", ip, ntohs(in6->sin6_port));
    } else {
        snprintf(out, size, "?");
    }
}

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int tb_sock_connect_start(const tb_addr *a, int *fd, tb_err *err)
{
    int s = socket(a->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0)
        return tb_errno(err, "socket");
    if (connect(s, (const struct sockaddr *)&a->ss, a->len) < 0 && errno != EINPROGRESS) {
        tb_errno(err, "connect");
        close(s);
        return -1;
    }
    set_nodelay(s);
    *fd = s;
    return 0;
}

int tb_sock_connect_result(int fd, tb_err *err)
{
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
        return tb_errno(err, "connect");
    if (soerr != 0)
        return tb_errf(err, "connect: %s", strerror(soerr));
    return 0;
}

int tb_sock_connect_wait(const tb_addr *a, int timeout_ms, tb_err *err)
{
    char where[80];
    tb_addr_format(a, where, sizeof where);
    int fd;
    if (tb_sock_connect_start(a, &fd, err) < 0)
        return tb_err_wrap(err, "%s", where);
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int rc = poll(&p, 1, timeout_ms);
    if (rc == 0) {
        close(fd);
        return tb_errf(err, "connect %s: timed out after %d ms", where, timeout_ms);
    }
    if (rc < 0 || tb_sock_connect_result(fd, err) < 0) {
        if (rc < 0)
            tb_errno(err, "poll");
        close(fd);
        return tb_err_wrap(err, "%s", where);
    }
    close(fd);
    return 0;
}

int tb_sock_listen(const char *host, const char *port, int backlog, int reuseport, int *fd,
                   tb_err *err)
{
    tb_addr a;
    if (tb_addr_resolve(host, port, &a, err) < 0)
        return -1;
    int s = socket(a.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0)
        return tb_errno(err, "socket");
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (reuseport && setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) {
        tb_errno(err, "SO_REUSEPORT");
        close(s);
        return -1;
    }
    if (bind(s, (struct sockaddr *)&a.ss, a.len) < 0 || listen(s, backlog) < 0) {
        tb_errno(err, "listen on %s:%s", host, port);
        close(s);
        return -1;
    }
    *fd = s;
    return 0;
}

int tb_sock_free_port(tb_err *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return tb_errno(err, "socket");
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
                     getsockname(fd, (struct sockaddr *)&sa, &len) == 0
                 ? ntohs(sa.sin_port)
                 : tb_errno(err, "picking a free port on 127.0.0.1");
    close(fd);
    return rc;
}

int tb_sock_accept(int lfd, int *fd, tb_err *err)
{
    int s = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (s < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED)
            return 1;
        return tb_errno(err, "accept");
    }
    set_nodelay(s);
    *fd = s;
    return 0;
}
