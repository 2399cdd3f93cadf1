/* workloads/network: the network workload -- iperf3 (Debian's) for TCP throughput
 * (-P N streams) and UDP throughput and loss (-u -l SIZE), and net/echo for TCP and
 * UDP request/response round trips, measured by teebench itself.
 *
 * The servers run in the environment under test: the echo server and one `iperf3 -s`
 * per client process, on consecutive ports (echo on PORT, iperf3 on PORT+1...). By
 * default the clients run there too (over its loopback: the stack, memory copies and
 * wakeups, no NIC); with network.server (the suite's --net-client local) they run on
 * the machine that drives the suite and the servers' machine is reached over the
 * network, so its I/O path -- virtio, a TD's bounce buffers -- is in the figures.
 *
 * An iperf3 that runs all of one process's streams in one thread (Debian 12's 3.12) gets
 * N streams spread over several client processes (and as many servers), each with its
 * share of -P, and their receivers' throughputs are summed; one that runs each stream in
 * a thread of its own carries them all in one process. Which of the two the iperf3 here
 * is, is probed (a -P 2 client's threads, counted while it runs), never read from its
 * version number; a probe that cannot run counts as one thread a process.
 *
 * Metrics (the sweeps' values in the names): network.tcp.p<N>.throughput (bit/s
 * received), network.udp.<SIZE>b.throughput (bit/s received) and .loss (% of the
 * datagrams sent), network.rtt.tcp|udp.p50|p99 (us). One sample per name and round.
 *
 * A missing iperf3 makes the TCP and UDP steps skipped with the package to install;
 * the round trips need nothing but teebench. */
#include "workloads/internal.h"
#include "workloads/network.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "net/sock.h"

_Static_assert(sizeof(tb_wl_network_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_network_params, f)

static const char *const test_names[TB_WL_NET_TESTS] = {"tcp", "udp", "rtt"};

/* ---- parameters ---- */

static const tb_wl_name_set test_set = {.what = "test", .names = test_names, .n = TB_WL_NET_TESTS};

/* A list of distinct integers in [lo, hi], in the order given. */
typedef struct int_list {
    int *v, *n, max, lo, hi;
    const char *what;
} int_list;

static int int_token(void *ctx, const char *t, tb_err *err)
{
    int_list *l = ctx;
    int x;
    if (tb_wl_parse_int("", t, l->lo, l->hi, &x, err) < 0)
        return tb_errf(err, "'%.40s': want %s (%d..%d)", t, l->what, l->lo, l->hi);
    for (int i = 0; i < *l->n; i++)
        if (l->v[i] == x)
            return 0;
    if (*l->n == l->max)
        return tb_errf(err, "more than %d values", l->max);
    l->v[(*l->n)++] = x;
    return 0;
}

static int parse_streams(void *params, const char *key, const char *v, tb_err *err)
{
    tb_wl_network_params *n = params;
    n->n_streams = 0;
    int_list l = {n->streams, &n->n_streams, TB_WL_NET_MAX_STREAMS, 1, 128, "a stream count"};
    return tb_wl_each_token(key, v, int_token, &l, err);
}

static int parse_udp(void *params, const char *key, const char *v, tb_err *err)
{
    tb_wl_network_params *n = params;
    n->n_udp = 0;
    int_list l = {n->udp_sizes, &n->n_udp, TB_WL_NET_MAX_UDP, 16, 65507, "a datagram size"};
    return tb_wl_each_token(key, v, int_token, &l, err);
}

/* As strings, like every list of the plan's JSON ("1", "4"). */
static json_t *ints_json(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) {
        char t[16];
        snprintf(t, sizeof t, "%d", v[i]);
        json_array_append_new(a, json_string(t));
    }
    return a;
}

static json_t *streams_json(const void *params)
{
    const tb_wl_network_params *n = params;
    return ints_json(n->streams, n->n_streams);
}

static json_t *udp_json(const void *params)
{
    const tb_wl_network_params *n = params;
    return ints_json(n->udp_sizes, n->n_udp);
}

/* iperf3's -b: a number with an optional K, M, G (bits per second); "0": unlimited. */
static int check_rate(const char *key, const char *v, tb_err *err)
{
    const char *c = v;
    while (*c >= '0' && *c <= '9')
        c++;
    if (*c == '.' && c[1] >= '0' && c[1] <= '9')
        for (c++; *c >= '0' && *c <= '9'; c++)
            ;
    if (c == v || (*c && strchr("KMGkmg", *c) && c[1]) || (*c && !strchr("KMGkmg", *c)))
        return tb_errf(err, "%s: '%.40s' is not a bitrate (0, 100M, 1.5G)", key, v);
    return 0;
}

/* "HOST:PORT" or "[V6]:PORT" into host and port; 0, or -1 with err naming key. */
static int split_server(const char *key, const char *v, char *host, size_t hn, int *port,
                        tb_err *err)
{
    const char *colon = strrchr(v, ':');
    const char *h = v, *he = colon;
    if (v[0] == '[') {
        const char *rb = strchr(v, ']');
        if (!rb || rb[1] != ':')
            return tb_errf(err, "%s: '%.60s' is not [ADDRESS]:PORT", key, v);
        h = v + 1;
        he = rb;
        colon = rb + 1;
    }
    if (!colon || he == h || (size_t)(he - h) >= hn)
        return tb_errf(err, "%s: '%.60s' is not HOST:PORT", key, v);
    int pn;
    if (tb_wl_parse_int(key, colon + 1, 1, 65535 - TB_WL_NET_MAX_PROCS, &pn, err) < 0)
        return -1;
    snprintf(host, hn, "%.*s", (int)(he - h), h);
    *port = pn;
    return 0;
}

static int check_server(const char *key, const char *v, tb_err *err)
{
    char host[256];
    int port;
    return v[0] ? split_server(key, v, host, sizeof host, &port, err) : 0;
}

static const tb_wl_param param_table[] = {
    {"tests", "tcp, udp and/or rtt", TB_WLP_NAMES, P(test), .names = &test_set,
     .def = {"tcp,udp,rtt"}},
    {"duration", "seconds of each TCP and UDP run (iperf3 -t: whole seconds)", TB_WLP_INT,
     P(duration_s), .lo = 1, .hi = 3600, .def = {"1", "2", "10"}},
    {"streams", "TCP: parallel stream counts (iperf3 -P), one metric each", TB_WLP_CUSTOM,
     .parse = parse_streams, .json = streams_json, .def = {"1", "1,4"}},
    {"procs",
     "TCP: iperf3 processes for N streams at most (0: one per CPU) where iperf3 runs its "
     "streams in one thread; one where it threads them (probed)",
     TB_WLP_INT, P(procs), .lo = 0, .hi = TB_WL_NET_MAX_PROCS, .def = {"0"}},
    {"udp_sizes", "UDP: datagram sizes in bytes (iperf3 -l), one metric pair each", TB_WLP_CUSTOM,
     .parse = parse_udp, .json = udp_json, .def = {"64", "64,1472"}},
    {"udp_rate", "UDP: target bitrate (iperf3 -b; 0: as fast as the sender can)", TB_WLP_TEXT,
     P(udp_rate), .check = check_rate, .def = {"0"}},
    {"rtt", "round trips: seconds of 8-byte requests per protocol (TCP, UDP)", TB_WLP_SECONDS,
     P(rtt_s), .lo = 0.01, .hi = 3600, .def = {"200ms", "1", "5"}},
    {"iperf3_bin", "the iperf3 binary (default " TB_IPERF3_BIN ")", TB_WLP_TEXT, P(iperf3_bin),
     .check = tb_wl_check_abs_path, .def = {TB_IPERF3_BIN}, .flags = TB_WLP_PLACE},
    {"server", "servers elsewhere (HOST:PORT of `teebench network serve`) instead of here",
     TB_WLP_TEXT, P(server), .check = check_server, .flags = TB_WLP_PLACE | TB_WLP_UNLISTED},
};

static int check(const void *params, tb_err *err)
{
    const tb_wl_network_params *n = params;
    if (!n->test[0] && !n->test[1] && !n->test[2])
        return tb_errf(err, "network.tests: none selected");
    return 0;
}

/* ---- the metric table ---- */

static const tb_wl_metric metrics[] = {
    {"network.tcp.*.throughput", "bit/s", TB_WL_HIGHER, TB_CAT_NETWORK, 0, NULL, 0, 0},
    {"network.udp.*.throughput", "bit/s", TB_WL_HIGHER, TB_CAT_NETWORK, 0, NULL, 0, 0},
    {"network.udp.*.loss", "%", TB_WL_LOWER, TB_CAT_NETWORK, 0, NULL, 0, 0},
    {"network.rtt.*.p50", "us", TB_WL_LOWER, TB_CAT_NETWORK, 0, NULL, 0, 0},
    {"network.rtt.*.p99", "us", TB_WL_LOWER, TB_CAT_NETWORK, 0, NULL, 0, 0},
};

/* The sweeps the report draws as line charts: TCP by stream count ("p4"), UDP by
   datagram size ("1472b"). */
static const tb_wl_family families[] = {
    {.kind = TB_WLF_SWEEP,
     .title = "TCP throughput by parallel streams",
     .metric = "network.tcp.*.throughput",
     .prefix = "p",
     .axis = "streams (iperf3 -P)",
     .log = 1},
    {.kind = TB_WLF_SWEEP,
     .title = "UDP throughput by datagram size",
     .metric = "network.udp.*.throughput",
     .prefix = "",
     .axis = "datagram",
     .unit = "B",
     .log = 1},
    {.kind = TB_WLF_SWEEP,
     .title = "UDP loss by datagram size",
     .metric = "network.udp.*.loss",
     .prefix = "",
     .axis = "datagram",
     .unit = "B",
     .log = 1},
};

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    const tb_wl_network_params *n = params;
    char name[128];
    for (int i = 0; n->test[TB_WL_NET_TCP] && i < n->n_streams; i++) {
        snprintf(name, sizeof name, "network.tcp.p%d.throughput", n->streams[i]);
        if (emit(ctx, name) < 0)
            return -1;
    }
    for (int i = 0; n->test[TB_WL_NET_UDP] && i < n->n_udp; i++) {
        snprintf(name, sizeof name, "network.udp.%db.throughput", n->udp_sizes[i]);
        if (emit(ctx, name) < 0)
            return -1;
        snprintf(name, sizeof name, "network.udp.%db.loss", n->udp_sizes[i]);
        if (emit(ctx, name) < 0)
            return -1;
    }
    static const char *const rtt[] = {"network.rtt.tcp.p50", "network.rtt.tcp.p99",
                                      "network.rtt.udp.p50", "network.rtt.udp.p99"};
    for (size_t i = 0; n->test[TB_WL_NET_RTT] && i < 4; i++)
        if (emit(ctx, rtt[i]) < 0)
            return -1;
    return 0;
}

/* ---- steps ---- */

/* One step per test: tcp runs every stream count, udp every size, rtt both protocols. */
static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_network_params *n = params;
    size_t k = 0;
    if (n->test[TB_WL_NET_TCP])
        out[k++] = (tb_wl_step){"tcp", n->n_streams * (n->duration_s + 0.5)};
    if (n->test[TB_WL_NET_UDP])
        out[k++] = (tb_wl_step){"udp", n->n_udp * (n->duration_s + 0.5)};
    if (n->test[TB_WL_NET_RTT])
        out[k++] = (tb_wl_step){"rtt", 2 * n->rtt_s + 0.1};
    return k;
}

static void list_text(const int *v, int n, const char *suffix, char *out, size_t len)
{
    size_t k = 0;
    out[0] = 0;
    for (int i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(out + k, len - k, "%s%d%s", i ? "," : "", v[i], suffix);
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_network_params *p = params;
    char l[128];
    const char *where = p->server[0] ? p->server : "servers here, over loopback";
    if (!strcmp(target, "tcp")) {
        list_text(p->streams, p->n_streams, "", l, sizeof l);
        snprintf(out, n, "iperf3 TCP, -P %s, %d s each (%s)", l, p->duration_s, where);
    } else if (!strcmp(target, "udp")) {
        list_text(p->udp_sizes, p->n_udp, " B", l, sizeof l);
        snprintf(out, n, "iperf3 UDP -b %s, datagrams of %s, %d s each (%s)", p->udp_rate, l,
                 p->duration_s, where);
    } else {
        snprintf(out, n, "TCP and UDP round trips of 8 bytes, %gs each (%s)", p->rtt_s, where);
    }
}

/* ---- iperf3's --json output ---- */

static const json_t *object_at(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_object(v) ? v : NULL;
}

/* An optional number >= 0 at o.k (def when absent or not one). */
static double opt_number(const json_t *o, const char *k, double def)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) >= 0
               ? json_number_value(v)
               : def;
}

static int iperf3_read(const json_t *d, tb_wl_iperf3 *out, tb_err *err)
{
    const json_t *start = object_at(d, "start"), *end = object_at(d, "end");
    const char *e = json_string_value(json_object_get(d, "error"));
    if (e)
        return tb_errf(err, "iperf3: %.300s", e);
    if (!start || !end)
        return tb_errf(err, "iperf3 --json: missing \"%s\"", start ? "end" : "start");
    const char *v = json_string_value(json_object_get(start, "version"));
    snprintf(out->version, sizeof out->version, "%s", v ? v : "");
    const json_t *ts = object_at(start, "test_start");
    const char *proto = json_string_value(json_object_get(ts, "protocol"));
    out->udp = proto && !strcmp(proto, "UDP");
    double ns = opt_number(ts, "num_streams", 0);
    out->streams = ns <= 1e6 ? (int)ns : 0; /* not a count iperf3 makes: unknown */
    const json_t *recv = object_at(end, "sum_received"), *sent = object_at(end, "sum_sent");
    if (out->udp && !recv)
        recv = object_at(end, "sum"); /* before iperf3 3.?: one sum, the receiver's loss */
    if (out->udp && !sent)
        sent = object_at(end, "sum");
    if (!recv || !sent)
        return tb_errf(err, "iperf3 --json: missing \"end.%s\"",
                       recv ? "sum_sent" : "sum_received");
    if (tb_wl_doc_number(recv, "iperf3 --json: end.sum_received", "bits_per_second", NULL,
                         &out->received_bps, err) < 0 ||
        tb_wl_doc_number(recv, "iperf3 --json: end.sum_received", "bytes", NULL,
                         &out->received_bytes, err) < 0 ||
        tb_wl_doc_number(sent, "iperf3 --json: end.sum_sent", "bits_per_second", NULL,
                         &out->sent_bps, err) < 0 ||
        tb_wl_doc_number(sent, "iperf3 --json: end.sum_sent", "bytes", NULL, &out->sent_bytes,
                         err) < 0)
        return -1;
    out->seconds = opt_number(recv, "seconds", 0);
    out->retransmits = out->udp ? -1 : opt_number(sent, "retransmits", -1);
    if (out->udp && (tb_wl_doc_number(recv, "iperf3 --json: end.sum_received", "lost_percent", NULL,
                                      &out->lost_percent, err) < 0 ||
                     tb_wl_doc_number(recv, "iperf3 --json: end.sum_received", "packets", NULL,
                                      &out->packets, err) < 0))
        return -1;
    out->lost_packets = out->udp ? opt_number(recv, "lost_packets", 0) : 0;
    out->jitter_ms = out->udp ? opt_number(recv, "jitter_ms", 0) : 0;
    const json_t *cpu = object_at(end, "cpu_utilization_percent");
    out->cpu_host = opt_number(cpu, "host_total", 0);
    out->cpu_remote = opt_number(cpu, "remote_total", 0);
    return 0;
}

/* Where iperf3's document begins in text: the first line that opens with "{". iperf3
   3.12 writes a warning line first when a UDP datagram is larger than the path's TCP
   MSS ("warning: UDP block size 1472 exceeds TCP MSS 1448, may result in fragmentation
   / drops": -l 1472 over any Ethernet path, never over loopback). 0 when there is none
   (the whole text is then parsed, for its error). */
static size_t doc_start(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '{' && (i == 0 || text[i - 1] == '\n'))
            return i;
        const char *nl = memchr(text + i, '\n', len - i);
        if (!nl)
            break;
        i = (size_t)(nl - text);
    }
    return 0;
}

int tb_wl_iperf3_parse(const char *text, size_t len, tb_wl_iperf3 *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    size_t at = doc_start(text, len);
    /* not JSON_REJECT_DUPLICATES: iperf3 3.12 writes "sock_bufsize" twice in "start" */
    json_t *d = json_loadb(text + at, len - at, 0, &je);
    if (!d)
        return tb_errf(err, "iperf3 --json: not JSON (line %d: %.120s)", je.line, je.text);
    int rc = json_is_object(d) ? iperf3_read(d, out, err)
                               : tb_errf(err, "iperf3 --json: not a JSON object");
    json_decref(d);
    return rc;
}

int tb_wl_iperf3_version_parse(const char *text, int *major, int *minor)
{
    const char *v = strstr(text, "iperf ");
    if (!v || sscanf(v + 6, "%d.%d", major, minor) != 2 || *major < 0 || *minor < 0)
        return -1;
    return 0;
}

int tb_wl_iperf3_threaded(int threads)
{
    return threads > 1;
}

int tb_wl_network_procs(const tb_wl_network_params *p, int streams, int ncpu, int threaded)
{
    if (threaded)
        return 1;
    int k = p->procs ? p->procs : (ncpu > 0 ? ncpu : 1);
    if (k > streams)
        k = streams;
    if (k > TB_WL_NET_MAX_PROCS)
        k = TB_WL_NET_MAX_PROCS;
    return k < 1 ? 1 : k;
}

int tb_wl_network_server_procs(const tb_wl_network_params *p, int ncpu, int threaded)
{
    int k = 0;
    for (int i = 0; p->test[TB_WL_NET_TCP] && i < p->n_streams; i++) {
        int m = tb_wl_network_procs(p, p->streams[i], ncpu, threaded);
        k = m > k ? m : k;
    }
    return p->test[TB_WL_NET_UDP] && k < 1 ? 1 : k;
}

int tb_wl_network_have_iperf3(const char *bin, tb_err *err)
{
    if (access(bin, X_OK) == 0)
        return 0;
    return tb_errf(err,
                   "iperf3 is not installed (%s: %s): install the package iperf3 (apt-get "
                   "install iperf3, dnf install iperf3)",
                   bin, strerror(errno));
}

/* ---- the server side ---- */

int tb_wl_network_listening(const char *text, int port)
{
    /* "  sl  local_address rem_address   st ..." then
       "   0: 0100007F:1F90 00000000:0000 0A ..." (hex address:port, state 0A = LISTEN) */
    for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
        char local[80], remote[80], st[8];
        unsigned sl;
        if (sscanf(l, " %u: %79s %79s %7s", &sl, local, remote, st) != 4)
            continue;
        const char *c = strrchr(local, ':');
        unsigned long pn;
        char *end;
        if (!c || strcmp(st, "0A"))
            continue;
        pn = strtoul(c + 1, &end, 16);
        if (*end == 0 && (int)pn == port)
            return 1;
    }
    return 0;
}

static int port_listening(int port)
{
    static const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    for (int i = 0; i < 2; i++) {
        tb_buf b = {0};
        tb_err e;
        int yes = tb_file_read(files[i], 64 << 20, &b, &e) == 0 && b.p &&
                  tb_wl_network_listening((const char *)b.p, port);
        tb_buf_clear(&b);
        if (yes)
            return 1;
    }
    return 0;
}

/* Whether a TCP socket could bind addr:port now. */
static int port_free(const char *addr, int port)
{
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int fd;
    tb_err e;
    if (tb_sock_listen(addr, ps, 1, 0, &fd, &e) < 0)
        return 0;
    close(fd);
    return 1;
}

/* The last line of a log file, for an error message. */
static void last_line(const char *path, char *out, size_t n)
{
    tb_buf b = {0};
    tb_err e;
    out[0] = 0;
    if (path && tb_file_read(path, 1 << 20, &b, &e) == 0 && b.p && b.len) {
        size_t end = b.len;
        while (end > 0 && (b.p[end - 1] == '\n' || b.p[end - 1] == '\r'))
            end--;
        size_t s = end;
        while (s > 0 && b.p[s - 1] != '\n')
            s--;
        snprintf(out, n, "%.*s", (int)(end - s), (const char *)b.p + s);
    }
    tb_buf_clear(&b);
}

/* Starts iperf3 -s on port (once: -1, it exits after one test) and waits (5 s at most)
   until it listens. */
static int start_iperf3(const char *addr, int port, int once, const char *bin, const char *log_dir,
                        tb_proc *pr, tb_err *err)
{
    char ps[16], log[1024] = "";
    snprintf(ps, sizeof ps, "%d", port);
    if (log_dir && snprintf(log, sizeof log, "%s/iperf3-%d.log", log_dir, port) >= (int)sizeof log)
        return tb_errf(err, "%s: path too long", log_dir);
    /* --idle-timeout: a client that vanished mid-test does not keep the server busy */
    char *argv[] = {(char *)bin,        "-s", "-p", ps, "-B", (char *)addr, "--idle-timeout", "60",
                    once ? "-1" : NULL, NULL};
    tb_proc_opts o = {
        .argv = argv, .stdout_path = log[0] ? log : NULL, .stderr_path = log[0] ? log : NULL};
    if (tb_proc_spawn(&o, pr, err) < 0)
        return tb_err_wrap(err, "iperf3 -s -p %d", port);
    for (int i = 0; i < 250; i++) {
        if (port_listening(port))
            return 0;
        if (!tb_proc_alive(pr)) {
            char why[300];
            last_line(log[0] ? log : NULL, why, sizeof why);
            return tb_errf(err, "iperf3 -s -p %d exited %d%s%s", port, pr->code, why[0] ? ": " : "",
                           why);
        }
        tb_sleep_ns(20000000);
    }
    tb_proc_stop(pr, 1000);
    return tb_errf(err, "iperf3 -s -p %d: not listening after 5 s", port);
}

static int server_try(const char *addr, int port, int procs, const char *bin, const char *log_dir,
                      tb_wl_net_server *s, tb_err *err)
{
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    if (tb_echo_open(addr, ps, &s->echo, err) < 0)
        return -1;
    s->port = s->echo.port;
    if (s->port + procs > 65535) {
        tb_echo_close(&s->echo);
        return tb_errf(err, "port %d: no room for %d iperf3 servers after it", s->port, procs);
    }
    for (int i = 0; i < procs; i++)
        if (!port_free(addr, s->port + 1 + i)) {
            tb_echo_close(&s->echo);
            return tb_errf(err, "port %d (iperf3 server %d of %d) is in use", s->port + 1 + i,
                           i + 1, procs);
        }
    for (int i = 0; i < procs; i++) {
        if (start_iperf3(addr, s->port + 1 + i, 0, bin, log_dir, &s->iperf[i], err) < 0) {
            tb_wl_net_server_stop(s);
            return -1;
        }
        s->n_iperf++;
    }
    return 0;
}

int tb_wl_net_server_start(const char *addr, int port, int procs, const char *iperf3_bin,
                           const char *log_dir, tb_wl_net_server *s, tb_err *err)
{
    memset(s, 0, sizeof *s);
    s->echo.tcp_fd = s->echo.udp_fd = -1;
    if (procs < 0 || procs > TB_WL_NET_MAX_PROCS)
        return tb_errf(err, "%d iperf3 servers (0..%d)", procs, TB_WL_NET_MAX_PROCS);
    if (procs && tb_wl_network_have_iperf3(iperf3_bin, err) < 0)
        return -1;
    /* No port given: a base in [20000, 32000), below Linux's ephemeral range (32768 on),
       so that the ports after it are not taken by other programs' outgoing connections
       (a kernel-picked base is in that range, and a busy machine often holds the next
       one); another base when one is taken. */
    int rc = -1;
    uint64_t r = tb_mono_ns() ^ ((uint64_t)getpid() << 20);
    for (int attempt = 0; attempt < (port ? 1 : 20) && rc < 0; attempt++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        int base = port ? port : 20000 + (int)((r >> 33) % 12000);
        rc = server_try(addr, base, procs, iperf3_bin, log_dir, s, err);
    }
    return rc;
}

int tb_wl_net_server_serve(tb_wl_net_server *s, const volatile sig_atomic_t *stop, tb_err *err)
{
    int rc = tb_echo_serve(&s->echo, stop, err);
    for (int i = 0; rc == 0 && i < s->n_iperf; i++)
        if (!tb_proc_alive(&s->iperf[i]))
            rc = tb_errf(err, "iperf3 server on port %d exited %d", s->port + 1 + i,
                         s->iperf[i].code);
    return rc;
}

void tb_wl_net_server_stop(tb_wl_net_server *s)
{
    for (int i = 0; i < s->n_iperf; i++)
        if (s->iperf[i].pid > 0)
            tb_proc_stop(&s->iperf[i], 2000);
    s->n_iperf = 0;
    tb_echo_close(&s->echo);
}

json_t *tb_wl_net_server_json(const tb_wl_net_server *s, const char *addr, const char *iperf3)
{
    json_t *ports = json_array();
    for (int i = 0; ports && i < s->n_iperf; i++)
        json_array_append_new(ports, json_integer(s->port + 1 + i));
    return json_pack("{s:s, s:s, s:i, s:o, s:s}", "schema", TB_WL_NETWORK_SERVE_SCHEMA, "addr",
                     addr, "port", s->port, "iperf3_ports", ports ? ports : json_array(), "iperf3",
                     iperf3 ? iperf3 : "");
}

/* ---- the runs ---- */

json_t *tb_wl_network_doc(const tb_wl_network_params *p, const tb_wl_net_ctx *c,
                          const char *iperf3_version)
{
    json_t *opt = tb_wl_params_json(&tb_wl_network, p);
    if (!opt)
        return NULL;
    json_object_set_new(opt, "rtt_s", json_real(p->rtt_s));
    json_object_del(opt, "rtt");
    return json_pack("{s:o, s:{s:s, s:i, s:b}, s:{s:s, s:b}}", "options", opt, "server", "host",
                     c->host, "port", c->port, "remote", c->remote, "iperf3", "version",
                     iperf3_version ? iperf3_version : "", "threaded", c->threaded);
}

/* One iperf3 client's argv (strings in buf, which must outlive the run). */
typedef struct client_argv {
    char *argv[24];
    char port[16], dur[16], par[16], len[16];
} client_argv;

static void client_args(const tb_wl_network_params *p, const tb_wl_net_ctx *c, int port,
                        int streams, int udp_len, client_argv *a)
{
    int n = 0;
    snprintf(a->port, sizeof a->port, "%d", port);
    snprintf(a->dur, sizeof a->dur, "%d", p->duration_s);
    snprintf(a->par, sizeof a->par, "%d", streams);
    snprintf(a->len, sizeof a->len, "%d", udp_len);
    a->argv[n++] = (char *)p->iperf3_bin;
    a->argv[n++] = "-c";
    a->argv[n++] = (char *)c->host;
    a->argv[n++] = "-p";
    a->argv[n++] = a->port;
    a->argv[n++] = "-t";
    a->argv[n++] = a->dur;
    if (udp_len) {
        a->argv[n++] = "-u";
        a->argv[n++] = "-b";
        a->argv[n++] = (char *)p->udp_rate;
        a->argv[n++] = "-l";
        a->argv[n++] = a->len;
    } else {
        a->argv[n++] = "-P";
        a->argv[n++] = a->par;
    }
    a->argv[n++] = "--connect-timeout";
    a->argv[n++] = "5000";
    a->argv[n++] = "--json";
    a->argv[n] = NULL;
}

/* Runs n iperf3 clients at once (args[i]); their outputs parsed into out[i]. */
static int run_clients(const tb_wl_net_ctx *c, const tb_wl_network_params *p, client_argv *args,
                       int n, const char *tag, tb_wl_iperf3 *out, int *stopped, tb_err *err)
{
    tb_proc pr[TB_WL_NET_MAX_PROCS];
    int fds[TB_WL_NET_MAX_PROCS], started = 0, rc = 0;
    char names[TB_WL_NET_MAX_PROCS][64];
    for (int i = 0; i < n && rc == 0; i++) {
        snprintf(names[i], sizeof names[i], "iperf3-%s-%d.json", tag, i);
        fds[i] = tb_file_create_at(c->dir_fd, c->dir, names[i], 0, 0600, err);
        if (fds[i] < 0) {
            rc = -1;
            break;
        }
        tb_proc_opts o = {.argv = args[i].argv, .stdout_fd = fds[i], .stderr_fd = fds[i]};
        if (tb_proc_spawn(&o, &pr[i], err) < 0) {
            close(fds[i]);
            rc = -1;
            break;
        }
        started++;
    }
    int64_t timeout_ms = (int64_t)p->duration_s * 1000 + 30000;
    for (int i = 0; i < started; i++) {
        tb_err e;
        int w = rc == 0 ? tb_proc_wait(&pr[i], timeout_ms, c->stop, &e) : TB_PROC_CANCELLED;
        if (w != TB_PROC_EXITED) {
            tb_proc_kill(&pr[i]);
            if (rc == 0 && w == TB_PROC_CANCELLED)
                *stopped = 1;
            else if (rc == 0)
                rc = w < 0 ? tb_errf(err, "%s", e.msg)
                           : tb_errf(err, "iperf3 -c %s -p %s did not finish in %lld s", c->host,
                                     args[i].port, (long long)timeout_ms / 1000);
            if (*stopped)
                rc = -1;
        }
        close(fds[i]);
    }
    if (*stopped)
        return 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        tb_buf b = {0};
        if (tb_file_read_at(c->dir_fd, c->dir, names[i], 16 << 20, &b, err) < 0 ||
            tb_wl_iperf3_parse(b.p ? (const char *)b.p : "", b.len, &out[i], err) < 0) {
            if (n > 1)
                tb_err_wrap(err, "iperf3 client %d of %d (port %s)", i + 1, n, args[i].port);
            rc = -1;
        }
        tb_buf_clear(&b);
    }
    return rc;
}

static int run_tcp(const tb_wl_network_params *p, const tb_wl_net_ctx *c, int streams, json_t *doc,
                   int *stopped, tb_err *err)
{
    int k = tb_wl_network_procs(p, streams, c->ncpu, c->threaded);
    client_argv args[TB_WL_NET_MAX_PROCS];
    tb_wl_iperf3 r[TB_WL_NET_MAX_PROCS];
    for (int i = 0; i < k; i++)
        client_args(p, c, c->port + 1 + i, streams / k + (i < streams % k), 0, &args[i]);
    char tag[32];
    snprintf(tag, sizeof tag, "tcp-p%d", streams);
    if (run_clients(c, p, args, k, tag, r, stopped, err) < 0 || *stopped)
        return *stopped ? 0 : -1;
    double recv = 0, sent = 0, retr = 0;
    int have_retr = 1;
    json_t *runs = json_array();
    for (int i = 0; i < k; i++) {
        recv += r[i].received_bps;
        sent += r[i].sent_bps;
        have_retr &= r[i].retransmits >= 0;
        retr += r[i].retransmits >= 0 ? r[i].retransmits : 0;
        json_array_append_new(
            runs, json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:f}", "port", c->port + 1 + i,
                            "streams", streams / k + (i < streams % k), "received_bps",
                            r[i].received_bps, "sent_bps", r[i].sent_bps, "seconds", r[i].seconds,
                            "cpu_host", r[i].cpu_host, "cpu_remote", r[i].cpu_remote));
    }
    json_t *e = json_pack("{s:i, s:i, s:i, s:f, s:f, s:o}", "streams", streams, "processes", k,
                          "duration_s", p->duration_s, "throughput_bps", recv, "sent_bps", sent,
                          "runs", runs);
    json_object_set_new(e, "retransmits", have_retr ? json_real(retr) : json_null());
    json_array_append_new(tb_wl_doc_array(doc, "tcp"), e);
    return 0;
}

static int run_udp(const tb_wl_network_params *p, const tb_wl_net_ctx *c, int size, json_t *doc,
                   int *stopped, tb_err *err)
{
    client_argv a;
    tb_wl_iperf3 r;
    client_args(p, c, c->port + 1, 1, size, &a);
    char tag[32];
    snprintf(tag, sizeof tag, "udp-%db", size);
    if (run_clients(c, p, &a, 1, tag, &r, stopped, err) < 0 || *stopped)
        return *stopped ? 0 : -1;
    json_array_append_new(tb_wl_doc_array(doc, "udp"),
                          json_pack("{s:i, s:s, s:i, s:f, s:f, s:f, s:I, s:I, s:f, s:f}", "size",
                                    size, "rate", p->udp_rate, "duration_s", p->duration_s,
                                    "throughput_bps", r.received_bps, "sent_bps", r.sent_bps,
                                    "loss_percent", r.lost_percent, "lost_packets",
                                    (json_int_t)r.lost_packets, "packets", (json_int_t)r.packets,
                                    "jitter_ms", r.jitter_ms, "cpu_host", r.cpu_host));
    return 0;
}

static int run_rtt(const tb_wl_network_params *p, const tb_wl_net_ctx *c, int udp, json_t *doc,
                   int *stopped, tb_err *err)
{
    tb_echo_opts o = {.udp = udp,
                      .seconds = p->rtt_s,
                      .max_samples = (size_t)1 << 22,
                      .timeout_ms = 1000,
                      .stop = c->stop};
    char port[16];
    snprintf(port, sizeof port, "%d", c->port);
    if (tb_addr_resolve(c->host, port, &o.addr, err) < 0)
        return -1;
    tb_echo_result r;
    if (tb_echo_rtt(&o, &r, err) < 0)
        return -1;
    if (r.stopped) {
        tb_echo_result_clear(&r);
        return *stopped = 1, 0;
    }
    json_array_append_new(tb_wl_doc_array(doc, "rtt"),
                          json_pack("{s:s, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "protocol",
                                    udp ? "udp" : "tcp", "round_trips", (json_int_t)r.n, "lost",
                                    (json_int_t)r.lost, "seconds", r.seconds, "p50_us", r.p50_us,
                                    "p99_us", r.p99_us, "mean_us", r.mean_us, "min_us", r.min_us,
                                    "max_us", r.max_us));
    tb_echo_result_clear(&r);
    return 0;
}

int tb_wl_network_run(const tb_wl_network_params *p, const tb_wl_net_ctx *c, tb_wl_net_test test,
                      int index, json_t *doc, int *stopped, tb_err *err)
{
    int dummy = 0;
    if (!stopped)
        stopped = &dummy;
    *stopped = 0;
    switch (test) {
    case TB_WL_NET_TCP:
        if (index < 0 || index >= p->n_streams)
            break;
        return run_tcp(p, c, p->streams[index], doc, stopped, err);
    case TB_WL_NET_UDP:
        if (index < 0 || index >= p->n_udp)
            break;
        return run_udp(p, c, p->udp_sizes[index], doc, stopped, err);
    case TB_WL_NET_RTT:
        if (index < 0 || index > 1)
            break;
        return run_rtt(p, c, index, doc, stopped, err);
    default:
        break;
    }
    return tb_errf(err, "network: no test %d case %d", (int)test, index);
}

/* ---- the teebench-network/1 document: its samples ---- */

static const char *where_note(const json_t *doc)
{
    return json_is_true(json_object_get(json_object_get(doc, "server"), "remote"))
               ? "servers in another environment, reached over the network"
               : "client and servers here, over loopback";
}

static int tcp_samples(const json_t *doc, const json_t *list, tb_wl_sink *sink, tb_err *err)
{
    size_t i;
    const json_t *e;
    if (!json_is_array(list))
        return tb_errf(err, "network JSON: \"tcp\" must be an array");
    json_array_foreach(list, i, e)
    {
        char what[48], name[96], note[320];
        double streams, bps, procs = 1;
        snprintf(what, sizeof what, "network JSON: tcp[%zu]", i);
        if (tb_wl_doc_number(e, what, "streams", NULL, &streams, err) < 0 ||
            tb_wl_doc_number(e, what, "throughput_bps", NULL, &bps, err) < 0)
            return -1;
        if (streams < 1 || streams > 1e6 || streams != floor(streams))
            return tb_errf(err, "%s: \"streams\" is not a stream count", what);
        tb_wl_doc_number(e, what, "processes", NULL, &procs, err);
        snprintf(name, sizeof name, "network.tcp.p%.0f.throughput", streams);
        snprintf(note, sizeof note,
                 "TCP bits received per second, iperf3 with %.0f stream%s in %.0f process%s "
                 "(%s)",
                 streams, streams == 1 ? "" : "s", procs, procs == 1 ? "" : "es", where_note(doc));
        if (tb_wl_sample(sink, name, bps, 0, note, err) < 0)
            return -1;
    }
    return 0;
}

static int udp_samples(const json_t *doc, const json_t *list, tb_wl_sink *sink, tb_err *err)
{
    size_t i;
    const json_t *e;
    if (!json_is_array(list))
        return tb_errf(err, "network JSON: \"udp\" must be an array");
    json_array_foreach(list, i, e)
    {
        char what[48], name[96], note[320];
        double size, bps, loss;
        snprintf(what, sizeof what, "network JSON: udp[%zu]", i);
        if (tb_wl_doc_number(e, what, "size", NULL, &size, err) < 0 ||
            tb_wl_doc_number(e, what, "throughput_bps", NULL, &bps, err) < 0 ||
            tb_wl_doc_number(e, what, "loss_percent", NULL, &loss, err) < 0)
            return -1;
        if (size < 1 || size > 65535 || size != floor(size))
            return tb_errf(err, "%s: \"size\" is not a datagram size", what);
        const char *rate = json_string_value(json_object_get(e, "rate"));
        char r[40];
        tb_wl_name_part(rate ? rate : "?", r, sizeof r);
        snprintf(name, sizeof name, "network.udp.%.0fb.throughput", size);
        snprintf(note, sizeof note,
                 "UDP bits received per second, %.0f-byte datagrams, iperf3 -b %s (%s)", size,
                 strcmp(r, "0") ? r : "0: as fast as the sender can", where_note(doc));
        if (tb_wl_sample(sink, name, bps, 0, note, err) < 0)
            return -1;
        snprintf(name, sizeof name, "network.udp.%.0fb.loss", size);
        snprintf(note, sizeof note, "%% of the %.0f-byte datagrams sent that were not received",
                 size);
        if (tb_wl_sample(sink, name, loss, 0, note, err) < 0)
            return -1;
    }
    return 0;
}

static int rtt_samples(const json_t *doc, const json_t *list, tb_wl_sink *sink, tb_err *err)
{
    size_t i;
    const json_t *e;
    if (!json_is_array(list))
        return tb_errf(err, "network JSON: \"rtt\" must be an array");
    json_array_foreach(list, i, e)
    {
        char what[48], name[96], note[320], proto[16];
        snprintf(what, sizeof what, "network JSON: rtt[%zu]", i);
        const char *pr = json_string_value(json_object_get(e, "protocol"));
        if (!pr || (strcmp(pr, "tcp") && strcmp(pr, "udp")))
            return tb_errf(err, "%s: \"protocol\" must be \"tcp\" or \"udp\"", what);
        snprintf(proto, sizeof proto, "%s", pr);
        static const char *const q[2] = {"p50", "p99"};
        for (int k = 0; k < 2; k++) {
            char key[16];
            double v;
            snprintf(key, sizeof key, "%s_us", q[k]);
            if (tb_wl_doc_number(e, what, key, NULL, &v, err) < 0)
                return -1;
            snprintf(name, sizeof name, "network.rtt.%s.%s", proto, q[k]);
            snprintf(note, sizeof note,
                     "%s of the round trips of 8-byte %s requests and their echo, measured by "
                     "teebench (%s)",
                     q[k], proto, where_note(doc));
            if (tb_wl_sample(sink, name, v, 0, note, err) < 0)
                return -1;
        }
    }
    return 0;
}

static int doc_samples(const json_t *doc, tb_wl_sink *sink, tb_err *err)
{
    const json_t *t = json_object_get(doc, "tcp"), *u = json_object_get(doc, "udp"),
                 *r = json_object_get(doc, "rtt");
    if (t && tcp_samples(doc, t, sink, err) < 0)
        return -1;
    if (u && udp_samples(doc, u, sink, err) < 0)
        return -1;
    if (r && rtt_samples(doc, r, sink, err) < 0)
        return -1;
    return 0;
}

static int doc_read(const json_t *doc, const tb_wl_read_opts *o, tb_wl_sink *sink,
                    tb_wl_doc_info *info, tb_err *err)
{
    (void)o;
    if (tb_wl_doc_has_one(doc, "network JSON", test_names, TB_WL_NET_TESTS, err) < 0 ||
        doc_samples(doc, sink, err) < 0)
        return -1;
    tb_wl_doc_envelope(doc, info);
    return 0;
}

/* ---- the suite's steps ---- */

/* The servers here: started by tb_wl_net_local_start, the echo server served by a thread
   of its own until tb_wl_net_local_stop. */
struct tb_wl_net_local {
    tb_wl_net_server s;
    pthread_t th;
    volatile sig_atomic_t stop;
    tb_err err; /* the serving thread's error */
};

static void *serve_main(void *arg)
{
    tb_wl_net_local *l = arg;
    l->err.msg[0] = 0;
    tb_wl_net_server_serve(&l->s, &l->stop, &l->err);
    return NULL;
}

tb_wl_net_local *tb_wl_net_local_start(int procs, const char *iperf3_bin, const char *log_dir,
                                       tb_err *err)
{
    tb_wl_net_local *l = calloc(1, sizeof *l);
    if (!l)
        return tb_errf(err, "out of memory"), NULL;
    if (tb_wl_net_server_start("127.0.0.1", 0, procs, iperf3_bin, log_dir, &l->s, err) < 0) {
        free(l);
        return NULL;
    }
    if (pthread_create(&l->th, NULL, serve_main, l) != 0) {
        tb_wl_net_server_stop(&l->s);
        free(l);
        return tb_errf(err, "starting the echo server's thread"), NULL;
    }
    return l;
}

const tb_wl_net_server *tb_wl_net_local_server(const tb_wl_net_local *l)
{
    return &l->s;
}

int tb_wl_net_local_stop(tb_wl_net_local *l, tb_err *err)
{
    if (!l)
        return 0;
    __atomic_store_n(&l->stop, 1, __ATOMIC_RELAXED); /* the serving thread reads it */
    pthread_join(l->th, NULL);
    int rc = 0;
    if (l->err.msg[0])
        rc = tb_errf(err, "%s", l->err.msg);
    tb_wl_net_server_stop(&l->s);
    free(l);
    return rc;
}

typedef struct network_state {
    const tb_wl_network_params *p;
    const tb_wl_env *env;
    tb_wl_net_ctx ctx;
    char host[256];
    char version[64]; /* "3.12" */
    int have_iperf3;
    char iperf3_reason[TB_ERR_MAX];
    tb_wl_net_local *local;
    char server_reason[TB_ERR_MAX]; /* the servers did not start: why */
} network_state;

int tb_wl_network_task_count(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Waits for the probe's client to exit (10 s at most), counting its threads every 10 ms:
   the most seen, from the first count that shows more than one thread on (it is stopped
   then: the answer is known). */
static int watch_threads(tb_proc *client)
{
    int most = 0;
    for (int i = 0; i < 1000 && most <= 1 && tb_proc_alive(client); i++) {
        int k = tb_wl_network_task_count(client->pid);
        most = k > most ? k : most;
        tb_sleep_ns(10000000);
    }
    return most;
}

int tb_wl_network_iperf3_threads(const char *bin, const char *dir, tb_err *err)
{
    int port = tb_sock_free_port(err);
    if (port < 0)
        return -1;
    tb_proc server;
    if (start_iperf3("127.0.0.1", port, 1, bin, dir, &server, err) < 0)
        return -1;
    char ps[16], log[1024] = "";
    snprintf(ps, sizeof ps, "%d", port);
    if (dir && snprintf(log, sizeof log, "%s/iperf3-threads.log", dir) >= (int)sizeof log)
        log[0] = 0;
    char *argv[] = {(char *)bin, "-c", "127.0.0.1", "-p", ps, "-P", "2", "-t", "1", NULL};
    tb_proc_opts o = {
        .argv = argv, .stdout_path = log[0] ? log : NULL, .stderr_path = log[0] ? log : NULL};
    tb_proc client;
    if (tb_proc_spawn(&o, &client, err) < 0) {
        tb_proc_stop(&server, 1000);
        return tb_err_wrap(err, "iperf3 -c 127.0.0.1 -p %d -P 2", port);
    }
    int most = watch_threads(&client);
    int failed = client.pid < 0 && client.code != 0; /* it ended on its own, badly */
    if (client.pid > 0)
        tb_proc_kill(&client);
    tb_proc_stop(&server, 1000);
    if (most > 1)
        return most;
    if (most < 1 || failed)
        return tb_errf(err, "iperf3 -c 127.0.0.1 -p %d -P 2 -t 1 exited %d", port, client.code);
    return most;
}

int tb_wl_network_iperf3_version(const char *bin, int dir_fd, const char *dir, char *out, size_t n)
{
    tb_err e;
    out[0] = 0;
    int fd = tb_file_create_at(dir_fd, dir, "iperf3-version.txt", 0, 0600, &e);
    if (fd < 0)
        return -1;
    char *argv[] = {(char *)bin, "--version", NULL};
    tb_proc_opts o = {.argv = argv, .stdout_fd = fd, .stderr_fd = fd};
    tb_proc_result r;
    int rc = tb_proc_run(&o, 5000, NULL, &r, &e);
    close(fd);
    tb_buf b = {0};
    int major, minor;
    if (rc == 0 && tb_file_read_at(dir_fd, dir, "iperf3-version.txt", 4096, &b, &e) == 0 && b.p &&
        tb_wl_iperf3_version_parse((const char *)b.p, &major, &minor) == 0)
        snprintf(out, n, "%d.%d", major, minor);
    else
        rc = -1;
    tb_buf_clear(&b);
    return rc < 0 ? -1 : 0;
}

static int start_local(network_state *st, tb_wl_sink *sink, tb_err *err)
{
    int procs =
        st->have_iperf3 ? tb_wl_network_server_procs(st->p, st->env->ncpu, st->ctx.threaded) : 0;
    if (!(st->local = tb_wl_net_local_start(procs, st->p->iperf3_bin, sink->dir, err)))
        return -1;
    snprintf(st->host, sizeof st->host, "127.0.0.1");
    st->ctx.port = tb_wl_net_local_server(st->local)->port;
    return 0;
}

/* Whether the iperf3 here runs streams in threads, into st->ctx.threaded; a probe that
   cannot run is a warning (the streams are then spread over processes, which is right
   for either kind of iperf3). */
int tb_wl_network_probe_threaded(const char *bin, const char *dir, int *threaded, tb_err *err)
{
    int k = tb_wl_network_iperf3_threads(bin, dir, err);
    *threaded = tb_wl_iperf3_threaded(k);
    return k < 0 ? -1 : 0;
}

static void probe_threads(network_state *st, tb_wl_sink *sink)
{
    tb_err e;
    if (tb_wl_network_probe_threaded(st->p->iperf3_bin, sink->dir, &st->ctx.threaded, &e) < 0) {
        char why[TB_ERR_MAX + 64];
        snprintf(why, sizeof why, "iperf3's threads not probed (%s): one thread a process", e.msg);
        tb_wl_problem(sink, TB_WL_WARN, "tcp", 0, why);
    }
}

static int setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err)
{
    network_state *st = tb_wl_state_new(sizeof *st, state, err);
    if (!st)
        return -1;
    st->p = params;
    st->env = env;
    st->ctx = (tb_wl_net_ctx){
        .ncpu = env->ncpu, .dir_fd = sink->dir_fd, .dir = sink->dir, .host = st->host};
    tb_err e;
    st->have_iperf3 = (st->p->test[TB_WL_NET_TCP] || st->p->test[TB_WL_NET_UDP]) &&
                      tb_wl_network_have_iperf3(st->p->iperf3_bin, &e) == 0;
    if (!st->have_iperf3 && (st->p->test[TB_WL_NET_TCP] || st->p->test[TB_WL_NET_UDP]))
        snprintf(st->iperf3_reason, sizeof st->iperf3_reason, "%s", e.msg);
    if (st->have_iperf3) {
        tb_wl_network_iperf3_version(st->p->iperf3_bin, sink->dir_fd, sink->dir, st->version,
                                     sizeof st->version);
        tb_wl_version(sink, "iperf3", st->version[0] ? st->version : "unknown");
        probe_threads(st, sink);
    } else if (st->iperf3_reason[0]) {
        tb_wl_version(sink, "iperf3", "not installed");
    }
    if (st->p->server[0]) {
        st->ctx.remote = 1;
        if (split_server("network.server", st->p->server, st->host, sizeof st->host, &st->ctx.port,
                         &e) < 0)
            snprintf(st->server_reason, sizeof st->server_reason, "%s", e.msg);
        else
            tb_wl_info(sink,
                       "network: servers at %s (not started here: the clients are this "
                       "machine)",
                       st->p->server);
    } else if (start_local(st, sink, &e) < 0) {
        snprintf(st->server_reason, sizeof st->server_reason, "network servers: %.480s", e.msg);
    } else {
        int k = tb_wl_net_local_server(st->local)->n_iperf;
        tb_wl_info(sink, "network: echo server on 127.0.0.1:%d, %d iperf3 server%s after it",
                   st->ctx.port, k, k == 1 ? "" : "s");
    }
    return 0;
}

static void cleanup(void *state, tb_wl_sink *sink)
{
    network_state *st = state;
    tb_err e;
    if (tb_wl_net_local_stop(st->local, &e) < 0)
        tb_wl_problem(sink, TB_WL_WARN, "", 0, e.msg);
    free(st);
}

/* `teebench network` for test t with the plan's parameters. */
static void network_command(const network_state *st, int t, tb_wl_sink *sink)
{
    const tb_wl_network_params *p = st->p;
    char d[16], l[128], rtt[24];
    snprintf(d, sizeof d, "%d", p->duration_s);
    if (t == TB_WL_NET_TCP)
        list_text(p->streams, p->n_streams, "", l, sizeof l);
    else
        list_text(p->udp_sizes, p->n_udp, "", l, sizeof l);
    tb_wl_fmt_duration(p->rtt_s, rtt, sizeof rtt);
    char *exe = (char *)st->env->exe, *tn = (char *)test_names[t];
    char *v[16];
    int n = 0;
    v[n++] = exe;
    v[n++] = "network";
    v[n++] = "--tests";
    v[n++] = tn;
    if (t == TB_WL_NET_RTT) {
        v[n++] = "--rtt";
        v[n++] = rtt;
    } else {
        v[n++] = t == TB_WL_NET_TCP ? "--streams" : "--udp-sizes";
        v[n++] = l;
        v[n++] = "--duration";
        v[n++] = d;
        if (t == TB_WL_NET_UDP) {
            v[n++] = "--udp-rate";
            v[n++] = (char *)p->udp_rate;
        }
    }
    if (p->server[0]) {
        v[n++] = "--server";
        v[n++] = (char *)p->server;
    }
    v[n] = NULL;
    tb_wl_command(sink, v);
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    network_state *st = state;
    (void)round;
    int t = -1;
    for (int i = 0; i < TB_WL_NET_TESTS; i++)
        if (!strcmp(target, test_names[i]))
            t = i;
    if (t < 0)
        return tb_errf(err, "network: no step %s", target), TB_WL_FAILED;
    if (t != TB_WL_NET_RTT && !st->have_iperf3)
        return tb_errf(err, "%s", st->iperf3_reason), TB_WL_SKIPPED;
    if (st->server_reason[0])
        return tb_errf(err, "%s", st->server_reason), TB_WL_FAILED;
    network_command(st, t, sink);
    st->ctx.stop = sink->stop;
    st->ctx.dir_fd = sink->dir_fd;
    st->ctx.dir = sink->dir;
    int cases = t == TB_WL_NET_TCP ? st->p->n_streams : t == TB_WL_NET_UDP ? st->p->n_udp : 2;
    int rc = TB_WL_OK;
    for (int i = 0; i < cases && rc == TB_WL_OK; i++) {
        json_t *doc = tb_wl_network_doc(st->p, &st->ctx, st->version);
        int stopped = 0;
        if (!doc)
            rc = (tb_errf(err, "out of memory"), TB_WL_FAILED);
        else if (tb_wl_network_run(st->p, &st->ctx, t, i, doc, &stopped, err) < 0)
            rc = TB_WL_FAILED;
        else if (stopped || tb_wl_stopped(sink))
            rc = TB_WL_CANCELLED;
        else if (doc_samples(doc, sink, err) < 0)
            rc = TB_WL_FAILED;
        json_decref(doc);
    }
    return rc;
}

const tb_workload tb_wl_network = {
    .name = "network",
    .title = "Network",
    .what = "TCP and UDP throughput (iperf3) and round trips, servers in the environment",
    .flags = TB_WL_NOT_QUICK,
    TB_WL_PARAM_TABLE(tb_wl_network_params, param_table),
    .check = check,
    .steps = steps,
    .describe = describe,
    .setup = setup,
    .step = step,
    .cleanup = cleanup,
    TB_WL_METRIC_TABLE(metrics),
    TB_WL_FAMILY_TABLE(families),
    .plan_metrics = plan_metrics,
    .doc_schema = TB_WL_NETWORK_SCHEMA,
    .doc_read = doc_read,
};
