/* echo: request/response round trips over TCP and UDP, as netperf's TCP_RR and UDP_RR
 * measure them -- the client sends an 8-byte request, waits for its echo, sends the
 * next; the server sends back what it gets. A round trip is what an application sees of
 * the network path: both kernels' stacks, the NICs (or the loopback), and the wakeup of
 * a process on each side (where a confidential VM pays its exits and interrupts).
 * ICMP ping is not used: it needs privileges (a raw socket, or net.ipv4.ping_group_range)
 * and is answered in the remote kernel without waking any process.
 *
 * The server: one TCP listening socket and one UDP socket on the same port, served by
 * one thread's poll loop (a benchmark's client holds one connection at a time; up to
 * TB_ECHO_MAX_CONNS are kept, more are closed at once). The client: blocking sockets,
 * each round trip timed with the monotonic clock; a UDP request whose echo does not
 * come within the timeout is counted lost (a late echo is recognised by its sequence
 * number and dropped).
 *
 * Nothing here prints; no global state. */
#ifndef TB_NET_ECHO_H
#define TB_NET_ECHO_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "net/sock.h"

#define TB_ECHO_MAX_CONNS 64
#define TB_ECHO_BYTES 8 /* a request: its sequence number */

typedef struct tb_echo_server {
    int tcp_fd, udp_fd; /* listening TCP and bound UDP, non-blocking */
    int port;           /* the port bound (the one asked, or the kernel's for "0") */
    int conns[TB_ECHO_MAX_CONNS];
    int n_conns;
} tb_echo_server;

/* Binds TCP and UDP on host:port ("0": a free port, the same for both). 0, or -1 with
   err (nothing left open). */
int tb_echo_open(const char *host, const char *port, tb_echo_server *s, tb_err *err);
/* Serves until *stop is non-zero (checked at least every 200 ms) or a system error. 0, or
   -1 with err. */
int tb_echo_serve(tb_echo_server *s, const volatile sig_atomic_t *stop, tb_err *err);
/* Closes every socket of s. */
void tb_echo_close(tb_echo_server *s);

typedef struct tb_echo_opts {
    tb_addr addr;
    int udp;              /* 0: TCP, 1: UDP */
    double seconds;       /* measure this long (> 0) */
    size_t max_samples;   /* at most this many round trips (> 0) */
    int timeout_ms;       /* TCP: connect and each echo; UDP: each echo (a loss) */
    const volatile sig_atomic_t *stop; /* may be NULL */
} tb_echo_opts;

typedef struct tb_echo_result {
    double *rtt_ns;  /* the round trips, ascending (caller frees) */
    size_t n;        /* round trips measured */
    uint64_t lost;   /* UDP requests without an echo in time */
    double seconds;  /* of the measurement */
    double p50_us, p99_us, mean_us, min_us, max_us;
    int stopped;     /* the stop flag cut it short */
} tb_echo_result;

/* Round trips to the echo server at o->addr. 0 and *out (at least one round trip), or
   -1 with err (connect, a TCP echo that did not come, no UDP echo at all). */
int tb_echo_rtt(const tb_echo_opts *o, tb_echo_result *out, tb_err *err);
void tb_echo_result_clear(tb_echo_result *r);

#endif
