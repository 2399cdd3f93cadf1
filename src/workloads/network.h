/* workloads/network: the network workload (see network.c) -- its parameters; what
 * `teebench network` and the suite share: iperf3's --json output read, its version,
 * the runs of TCP, UDP and round trips, the teebench-network/1 document (its writer;
 * the reader is the workload's doc_read); and the server side that `teebench network
 * serve` runs (the echo server and the iperf3 servers), here or in the environment
 * under test. */
#ifndef TB_WORKLOADS_NETWORK_H
#define TB_WORKLOADS_NETWORK_H

#include <signal.h>
#include <stddef.h>

#include "base/proc.h"
#include "net/echo.h"
#include "workloads/workload.h"

#define TB_WL_NETWORK_SCHEMA "teebench-network/1"
#define TB_WL_NETWORK_SERVE_SCHEMA "teebench-network-serve/1" /* serve's ready line */
#define TB_IPERF3_BIN "/usr/bin/iperf3"

#define TB_WL_NET_MAX_STREAMS 8 /* TCP stream counts a plan lists */
#define TB_WL_NET_MAX_UDP 8     /* UDP datagram sizes a plan lists */
#define TB_WL_NET_MAX_PROCS 16  /* iperf3 processes (and servers) at most */

/* The tests, in the order a round runs them. */
typedef enum tb_wl_net_test {
    TB_WL_NET_TCP = 0,
    TB_WL_NET_UDP,
    TB_WL_NET_RTT,
    TB_WL_NET_TESTS
} tb_wl_net_test;

typedef struct tb_wl_network_params {
    int test[TB_WL_NET_TESTS]; /* "tests": which run */
    int duration_s;            /* iperf3 -t of each TCP and UDP run (whole seconds: iperf3's) */
    int n_streams;
    int streams[TB_WL_NET_MAX_STREAMS]; /* TCP: -P N, one metric each */
    int procs;                          /* iperf3 processes for N streams at most; 0: auto */
    int n_udp;
    int udp_sizes[TB_WL_NET_MAX_UDP]; /* UDP: datagram bytes (-l), one metric pair each */
    char udp_rate[24];                /* UDP: -b ("0": as fast as the sender can) */
    double rtt_s;                     /* round trips: seconds per protocol (TCP, UDP) */
    char iperf3_bin[256];
    char server[300]; /* "": servers here (loopback); "HOST:PORT": `teebench network serve`
                         runs there (the server side of --net-client local) */
} tb_wl_network_params;

extern const tb_workload tb_wl_network;

/* ---- iperf3 ---- */

/* What one iperf3 client's --json output says. */
typedef struct tb_wl_iperf3 {
    char version[32]; /* start.version: "iperf 3.12" */
    int udp;          /* start.test_start.protocol is UDP */
    int streams;      /* start.test_start.num_streams */
    double seconds;   /* end.sum_received.seconds */
    double sent_bps, received_bps;
    double sent_bytes, received_bytes;
    double retransmits; /* TCP: end.sum_sent.retransmits; -1 when absent */
    double lost_percent, lost_packets, packets, jitter_ms; /* UDP: the receiver's; else 0 */
    double cpu_host, cpu_remote; /* end.cpu_utilization_percent: host_total, remote_total */
} tb_wl_iperf3;

/* Runs `bin --version` (its output in dir_fd's "iperf3-version.txt"): "3.12" into out,
   for the record only -- whether it runs streams in threads is probed
   (tb_wl_network_iperf3_threads). 0, or -1 when the version is unknown (out ""). */
int tb_wl_network_iperf3_version(const char *bin, int dir_fd, const char *dir, char *out, size_t n);

/* What iperf3 does with -P: `bin -c 127.0.0.1 -P 2 -t 1` against a one-off `bin -s -1`
   on a free loopback port, the client's threads counted (/proc/PID/task) while it runs
   (its output in dir/iperf3-threads.log when dir). The most threads seen (1: its streams
   share one thread), or -1 with err when the probe could not run. About 1 s. */
int tb_wl_network_iperf3_threads(const char *bin, const char *dir, tb_err *err);
/* The probe's answer: *threaded 1 when the iperf3 here runs streams in threads, else 0 (also
   when the probe could not run: then -1 with err, which callers warn of -- the streams
   are spread over processes, right for either kind of iperf3); 0 otherwise. */
int tb_wl_network_probe_threaded(const char *bin, const char *dir, int *threaded, tb_err *err);

/* The iperf3 servers a plan's runs need: the most any of its TCP runs uses; 1 for UDP. */
int tb_wl_network_server_procs(const tb_wl_network_params *p, int ncpu, int threaded);

/* ---- the server side (`teebench network serve`) ---- */

typedef struct tb_wl_net_server {
    tb_echo_server echo;                /* TCP and UDP on port */
    tb_proc iperf[TB_WL_NET_MAX_PROCS]; /* `iperf3 -s` on port + 1 + i */
    int n_iperf;
    int port;
} tb_wl_net_server;

/* Starts the echo server on addr:port (port 0: a free one whose next procs ports are free
   too, tried a few times) and procs iperf3 servers on the ports after it (-B addr), each
   waited for until it listens (iperf3's stderr to log_dir/iperf3-<port>.log when log_dir,
   else nowhere). 0, or -1 with err (what iperf3 said when one did not start; nothing left
   running). */
int tb_wl_net_server_start(const char *addr, int port, int procs, const char *iperf3_bin,
                           const char *log_dir, tb_wl_net_server *s, tb_err *err);
/* Serves the echo server until *stop (an iperf3 server that exits is a warning in err,
   returned as -1 once the loop ends). */
int tb_wl_net_server_serve(tb_wl_net_server *s, const volatile sig_atomic_t *stop, tb_err *err);
/* Stops the iperf3 servers and closes the echo server. */
void tb_wl_net_server_stop(tb_wl_net_server *s);

/* The ready line of `teebench network serve --json` for s (a new object). */
json_t *tb_wl_net_server_json(const tb_wl_net_server *s, const char *addr, const char *iperf3);

/* The servers on 127.0.0.1 (a free port) for the clients of this process: the echo server
   served by a thread of its own. NULL with err (tb_wl_net_server_start's). */
typedef struct tb_wl_net_local tb_wl_net_local;
tb_wl_net_local *tb_wl_net_local_start(int procs, const char *iperf3_bin, const char *log_dir,
                                       tb_err *err);
const tb_wl_net_server *tb_wl_net_local_server(const tb_wl_net_local *l);
/* Stops and frees l (NULL: nothing); -1 with err when the serving thread had failed. */
int tb_wl_net_local_stop(tb_wl_net_local *l, tb_err *err);

/* ---- the runs ---- */

/* Where a run's servers are and what it may use. Borrowed. */
typedef struct tb_wl_net_ctx {
    const char *host; /* the servers' address */
    int port;         /* the echo server's; iperf3's from port + 1 */
    int ncpu;         /* CPUs here */
    int threaded;     /* the iperf3 here runs streams in threads */
    int remote;       /* the servers are elsewhere (a note says so) */
    int dir_fd;       /* iperf3's output files go here, named "iperf3-*.json" */
    const char *dir;  /* its path, for messages */
    const volatile sig_atomic_t *stop;
} tb_wl_net_ctx;

/* A new teebench-network/1 body (cli/json adds the envelope): the options and where the
   servers were. NULL when out of memory. */
json_t *tb_wl_network_doc(const tb_wl_network_params *p, const tb_wl_net_ctx *c,
                          const char *iperf3_version);

/* Runs test's index-th case (TCP: streams[index]; UDP: udp_sizes[index]; round trips: 0
   TCP, 1 UDP) into doc's "tcp", "udp" or "rtt" array. *stopped (may be NULL): the stop
   flag cut it short, nothing added. 0, or -1 with err. */
int tb_wl_network_run(const tb_wl_network_params *p, const tb_wl_net_ctx *c, tb_wl_net_test test,
                      int index, json_t *doc, int *stopped, tb_err *err);

/* "iperf3 is not installed (PATH: why): install the package iperf3 (...)" into err when
   bin cannot be run (returns -1), else 0. */
int tb_wl_network_have_iperf3(const char *bin, tb_err *err);

#endif
