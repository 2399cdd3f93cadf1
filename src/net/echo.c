/* echo: TCP and UDP round trips (see echo.h).
 *
 * Owns: the server's sockets (opened by tb_echo_open, closed by tb_echo_close; a
 * connection that errs or closes is closed at once) and the client's one socket per
 * measurement (closed before tb_echo_rtt returns). The client's samples grow by
 * doubling up to max_samples; they are sorted before return. */
#include "net/echo.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "stats/summary.h"

/* ---------- the server ---------- */

static int bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return -1;
}

int tb_echo_open(const char *host, const char *port, tb_echo_server *s, tb_err *err)
{
    memset(s, 0, sizeof s->conns);
    s->tcp_fd = s->udp_fd = -1;
    s->n_conns = 0;
    if (tb_sock_listen(host, port, 64, 0, &s->tcp_fd, err) < 0)
        return tb_err_wrap(err, "echo server (TCP)");
    s->port = bound_port(s->tcp_fd);
    char p[16];
    snprintf(p, sizeof p, "%d", s->port);
    tb_addr a;
    if (s->port <= 0 || tb_addr_resolve(host, p, &a, err) < 0) {
        if (s->port <= 0)
            tb_errno(err, "getsockname");
        tb_echo_close(s);
        return tb_err_wrap(err, "echo server (UDP)");
    }
    s->udp_fd = socket(a.ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->udp_fd < 0 || bind(s->udp_fd, (struct sockaddr *)&a.ss, a.len) < 0) {
        tb_errno(err, "echo server: UDP on %s:%s", host, p);
        tb_echo_close(s);
        return -1;
    }
    return 0;
}

void tb_echo_close(tb_echo_server *s)
{
    for (int i = 0; i < s->n_conns; i++)
        close(s->conns[i]);
    s->n_conns = 0;
    if (s->tcp_fd >= 0)
        close(s->tcp_fd);
    if (s->udp_fd >= 0)
        close(s->udp_fd);
    s->tcp_fd = s->udp_fd = -1;
}

static void drop_conn(tb_echo_server *s, int i)
{
    close(s->conns[i]);
    s->conns[i] = s->conns[--s->n_conns];
}

/* Writes all of buf to a non-blocking socket, waiting up to 1 s for room. */
static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
        if (w > 0) {
            buf += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            if (poll(&p, 1, 1000) <= 0)
                return -1;
            continue;
        }
        return -1;
    }
    return 0;
}

/* Echoes what connection i has; 0 to keep it, -1 when it is done. */
static int serve_conn(tb_echo_server *s, int i)
{
    char buf[4096];
    for (;;) {
        ssize_t n = recv(s->conns[i], buf, sizeof buf, 0);
        if (n > 0) {
            if (write_all(s->conns[i], buf, (size_t)n) < 0)
                return -1;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    }
}

static void serve_udp(tb_echo_server *s)
{
    char buf[2048];
    for (;;) {
        struct sockaddr_storage from;
        socklen_t len = sizeof from;
        ssize_t n = recvfrom(s->udp_fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return; /* EAGAIN: drained; anything else: the next datagram may do */
        sendto(s->udp_fd, buf, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&from, len);
    }
}

static void accept_conns(tb_echo_server *s)
{
    for (;;) {
        int fd;
        tb_err e;
        if (tb_sock_accept(s->tcp_fd, &fd, &e) != 0)
            return;
        if (s->n_conns == TB_ECHO_MAX_CONNS) {
            close(fd);
            continue;
        }
        s->conns[s->n_conns++] = fd;
    }
}

int tb_echo_serve(tb_echo_server *s, const volatile sig_atomic_t *stop, tb_err *err)
{
    struct pollfd p[2 + TB_ECHO_MAX_CONNS];
    /* *stop is set by a signal handler or by another thread (the network workload's
       local server): read atomically, so that neither is a data race */
    while (!(stop && __atomic_load_n(stop, __ATOMIC_RELAXED))) {
        p[0] = (struct pollfd){.fd = s->tcp_fd, .events = POLLIN};
        p[1] = (struct pollfd){.fd = s->udp_fd, .events = POLLIN};
        int n = s->n_conns;
        for (int i = 0; i < n; i++)
            p[2 + i] = (struct pollfd){.fd = s->conns[i], .events = POLLIN};
        int rc = poll(p, (nfds_t)(2 + n), 200);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return tb_errno(err, "echo server: poll");
        /* connections first, from the last (dropping one moves the last into its place) */
        for (int i = n - 1; i >= 0; i--)
            if (p[2 + i].revents && serve_conn(s, i) < 0)
                drop_conn(s, i);
        if (p[1].revents)
            serve_udp(s);
        if (p[0].revents)
            accept_conns(s);
    }
    return 0;
}

/* ---------- the client ---------- */

static int set_timeout(int fd, int ms)
{
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) |
           setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* A connected blocking socket to o->addr (TCP: TCP_NODELAY), or -1 with err. */
static int client_socket(const tb_echo_opts *o, tb_err *err)
{
    char where[80];
    tb_addr_format(&o->addr, where, sizeof where);
    if (o->udp) {
        int fd = socket(o->addr.ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (const struct sockaddr *)&o->addr.ss, o->addr.len) < 0) {
            tb_errno(err, "UDP to %s", where);
            if (fd >= 0)
                close(fd);
            return -1;
        }
        set_timeout(fd, o->timeout_ms);
        return fd;
    }
    int fd;
    if (tb_sock_connect_start(&o->addr, &fd, err) < 0)
        return tb_err_wrap(err, "%s", where);
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int rc = poll(&p, 1, o->timeout_ms);
    if (rc <= 0 || tb_sock_connect_result(fd, err) < 0) {
        if (rc == 0)
            tb_errf(err, "connect %s: timed out after %d ms", where, o->timeout_ms);
        else if (rc < 0)
            tb_errno(err, "poll");
        close(fd);
        return rc <= 0 ? -1 : tb_err_wrap(err, "%s", where);
    }
    int one = 1, fl = fcntl(fd, F_GETFL);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* blocking from here on, with timeouts */
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        tb_errno(err, "%s: fcntl", where);
        close(fd);
        return -1;
    }
    set_timeout(fd, o->timeout_ms);
    return fd;
}

/* One TCP round trip of request seq. 0, or -1 (errno set; EAGAIN: the timeout). */
static int tcp_round(int fd, uint64_t seq)
{
    char b[TB_ECHO_BYTES];
    memcpy(b, &seq, sizeof b);
    if (send(fd, b, sizeof b, MSG_NOSIGNAL) != (ssize_t)sizeof b)
        return -1;
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = recv(fd, b + got, sizeof b - got, 0);
        if (n > 0)
            got += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else {
            if (n == 0)
                errno = ECONNRESET;
            return -1;
        }
    }
    uint64_t back;
    memcpy(&back, b, sizeof back);
    return back == seq ? 0 : (errno = EPROTO, -1);
}

/* One UDP round trip: 0, 1 (lost: no echo of seq in time), -1 (errno). */
static int udp_round(int fd, uint64_t seq)
{
    char b[TB_ECHO_BYTES];
    memcpy(b, &seq, sizeof b);
    if (send(fd, b, sizeof b, MSG_NOSIGNAL) != (ssize_t)sizeof b)
        return errno == ECONNREFUSED ? 1 : -1;
    for (;;) {
        ssize_t n = recv(fd, b, sizeof b, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNREFUSED ? 1 : -1;
        uint64_t back;
        if (n == (ssize_t)sizeof b && (memcpy(&back, b, sizeof back), back == seq))
            return 0;
        /* a late echo of an earlier request, or junk: wait on for ours */
    }
}

static int keep_sample(tb_echo_result *r, size_t *cap, size_t max, double v)
{
    if (r->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4096;
        if (nc > max)
            nc = max;
        double *p = realloc(r->rtt_ns, nc * sizeof *p);
        if (!p)
            return -1;
        r->rtt_ns = p;
        *cap = nc;
    }
    r->rtt_ns[r->n++] = v;
    return 0;
}

int tb_echo_rtt(const tb_echo_opts *o, tb_echo_result *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    if (!(o->seconds > 0) || o->max_samples == 0 || o->timeout_ms <= 0)
        return tb_errf(err, "round trips: seconds, samples and timeout must be > 0");
    int fd = client_socket(o, err);
    if (fd < 0)
        return -1;
    size_t cap = 0;
    uint64_t seq = 0, limit = (uint64_t)(o->seconds * 1e9);
    uint64_t t_start = tb_mono_ns(), t;
    int rc = 0;
    char where[80];
    tb_addr_format(&o->addr, where, sizeof where);
    do {
        seq++;
        uint64_t t0 = tb_mono_ns();
        int r = o->udp ? udp_round(fd, seq) : tcp_round(fd, seq);
        t = tb_mono_ns();
        if (r < 0) {
            rc = errno == EAGAIN || errno == EWOULDBLOCK
                     ? tb_errf(err, "%s %s: no echo within %d ms", o->udp ? "UDP" : "TCP", where,
                               o->timeout_ms)
                     : tb_errno(err, "%s %s", o->udp ? "UDP" : "TCP", where);
            break;
        }
        if (r == 1)
            out->lost++;
        else if (keep_sample(out, &cap, o->max_samples, (double)(t - t0)) < 0) {
            rc = tb_errf(err, "out of memory");
            break;
        }
        if (o->stop && __atomic_load_n(o->stop, __ATOMIC_RELAXED)) {
            out->stopped = 1;
            break;
        }
    } while (t - t_start < limit && out->n < o->max_samples);
    close(fd);
    out->seconds = (double)(tb_mono_ns() - t_start) / 1e9;
    if (rc == 0 && out->n == 0 && !out->stopped)
        rc = tb_errf(err, "%s %s: no echo came back (%llu requests lost)", o->udp ? "UDP" : "TCP",
                     where, (unsigned long long)out->lost);
    if (rc < 0) {
        tb_echo_result_clear(out);
        return -1;
    }
    if (out->n) {
        tb_stats_sort(out->rtt_ns, out->n);
        out->p50_us = tb_stats_quantile_sorted(out->rtt_ns, out->n, 1, 2) / 1e3;
        out->p99_us = tb_stats_quantile_sorted(out->rtt_ns, out->n, 99, 100) / 1e3;
        out->mean_us = tb_stats_mean(out->rtt_ns, out->n) / 1e3;
        out->min_us = out->rtt_ns[0] / 1e3;
        out->max_us = out->rtt_ns[out->n - 1] / 1e3;
    }
    return 0;
}

void tb_echo_result_clear(tb_echo_result *r)
{
    free(r->rtt_ns);
    r->rtt_ns = NULL;
    r->n = 0;
}
