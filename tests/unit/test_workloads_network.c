/* Unit tests for src/workloads/network: iperf3 3.12's real --json outputs
 * (tests/data/iperf3/, made by running Debian's iperf3 here: see its README) read into
 * figures, the error document iperf3 exits 0 with, broken and older layouts; iperf3's
 * version; threads counted and what a count says (and, where iperf3 is installed, the
 * probe of its threads against a one-off server); how streams go to processes; the
 * parameters and their refusals; /proc/net/tcp's listening sockets; the metric names a
 * plan produces; the teebench-network/1 document read (names, notes, refusals); live
 * round trips against servers started here, and -- where iperf3 is installed -- a short
 * TCP and UDP run through the same code the suite runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "workloads/internal.h"
#include "workloads/network.h"

static void load(const char *name, tb_buf *b)
{
    char path[1024];
    const char *src = getenv("TEEBENCH_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/tests/data/iperf3/%s", src ? src : ".", name);
    tb_err e;
    memset(b, 0, sizeof *b);
    if (tb_file_read(path, 1 << 20, b, &e) < 0)
        fail_msg("%s", e.msg);
}

static int parse_file(const char *name, tb_wl_iperf3 *r, tb_err *e)
{
    tb_buf b;
    load(name, &b);
    int rc = tb_wl_iperf3_parse((const char *)b.p, b.len, r, e);
    tb_buf_clear(&b);
    return rc;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static void test_iperf3_outputs(void **state)
{
    (void)state;
    tb_wl_iperf3 r;
    tb_err e;
    assert_int_equal(parse_file("tcp-p2.json", &r, &e), 0);
    assert_string_equal(r.version, "iperf 3.12");
    assert_false(r.udp);
    assert_int_equal(r.streams, 2);
    assert_true(near(r.received_bps, 21211519769.542366));
    assert_true(near(r.sent_bps, 21270905373.563274));
    assert_true(r.retransmits == 4);
    assert_true(r.seconds > 0.9 && r.seconds < 1.1);
    assert_true(r.cpu_host > 0 && r.cpu_remote > 0);
    assert_int_equal(parse_file("udp-64b.json", &r, &e), 0);
    assert_true(r.udp);
    assert_true(near(r.received_bps, 56126102.90472886));
    assert_true(near(r.sent_bps, 152474149.522257));
    assert_true(near(r.lost_percent, 63.18216628375453));
    assert_true(r.packets == 300330);
    assert_true(r.retransmits == -1);
    assert_int_equal(parse_file("udp-1472b.json", &r, &e), 0);
    assert_true(near(r.received_bps, 835898535.0659077));
    assert_true(near(r.lost_percent, 71.7034428794992));
    /* across a veth (MTU 1500), -l 1472: iperf3 writes a warning line before its document */
    assert_int_equal(parse_file("udp-1472b-veth.json", &r, &e), 0);
    assert_true(r.udp);
    assert_true(near(r.received_bps, 99725370.8739472));
    assert_true(near(r.lost_percent, 87.87891617273498));
    /* a line that is not the document's start, and text with no document at all */
    const char *two = "warning: one\nwarning: {two}\n{\"error\": \"it failed\"}\n";
    assert_int_equal(tb_wl_iperf3_parse(two, strlen(two), &r, &e), -1);
    assert_string_equal(e.msg, "iperf3: it failed");
    assert_int_equal(tb_wl_iperf3_parse("warning: x\n", 11, &r, &e), -1);
    assert_non_null(strstr(e.msg, "iperf3 --json: not JSON"));
    /* iperf3 3.12 exits 0 when it could not connect: the document says why */
    assert_int_equal(parse_file("refused.json", &r, &e), -1);
    assert_string_equal(e.msg, "iperf3: unable to connect to server: Connection refused");
}

/* text with doc's JSON changed by edit */
static void parse_edited(const char *file, void (*edit)(json_t *), tb_wl_iperf3 *r, int want_rc,
                         const char *want_msg)
{
    tb_buf b;
    load(file, &b);
    json_t *d = json_loadb((const char *)b.p, b.len, 0, NULL);
    tb_buf_clear(&b);
    assert_non_null(d);
    edit(d);
    char *t = json_dumps(d, 0);
    json_decref(d);
    tb_err e;
    assert_int_equal(tb_wl_iperf3_parse(t, strlen(t), r, &e), want_rc);
    if (want_msg)
        assert_string_equal(e.msg, want_msg);
    free(t);
}

static void drop_received(json_t *d)
{
    json_object_del(json_object_get(d, "end"), "sum_received");
}

static void old_udp(json_t *d)
{
    json_t *end = json_object_get(d, "end");
    json_object_del(end, "sum_received");
    json_object_del(end, "sum_sent");
}

static void negative(json_t *d)
{
    json_object_set_new(json_object_get(json_object_get(d, "end"), "sum_received"),
                        "bits_per_second", json_real(-1));
}

static void no_end(json_t *d)
{
    json_object_del(d, "end");
}

/* fuzz_iperf3's first find: a stream count no double-to-int conversion holds */
static void huge_streams(json_t *d)
{
    json_object_set_new(json_object_get(json_object_get(d, "start"), "test_start"), "num_streams",
                        json_real(8.84525e12));
}

static void test_iperf3_broken(void **state)
{
    (void)state;
    tb_wl_iperf3 r;
    tb_err e;
    parse_edited("tcp-p2.json", drop_received, &r, -1,
                 "iperf3 --json: missing \"end.sum_received\"");
    parse_edited("tcp-p2.json", negative, &r, -1,
                 "iperf3 --json: end.sum_received: \"bits_per_second\" is not a number >= 0");
    parse_edited("tcp-p2.json", no_end, &r, -1, "iperf3 --json: missing \"end\"");
    parse_edited("tcp-p2.json", huge_streams, &r, 0, NULL);
    assert_int_equal(r.streams, 0); /* unknown, not a wrapped int */
    /* an older UDP layout: one "sum", the receiver's loss in it */
    parse_edited("udp-64b.json", old_udp, &r, 0, NULL);
    assert_true(near(r.received_bps, 152474149.522257)); /* end.sum's */
    assert_true(near(r.lost_percent, 63.18216628375453));
    tb_buf b;
    load("tcp-p2.json", &b);
    assert_int_equal(tb_wl_iperf3_parse((const char *)b.p, 100, &r, &e), -1); /* cut short */
    assert_non_null(strstr(e.msg, "iperf3 --json: not JSON"));
    tb_buf_clear(&b);
    assert_int_equal(tb_wl_iperf3_parse("[1]", 3, &r, &e), -1);
    assert_string_equal(e.msg, "iperf3 --json: not a JSON object");
    assert_int_equal(tb_wl_iperf3_parse("", 0, &r, &e), -1);
}

static void test_version_and_procs(void **state)
{
    (void)state;
    int ma, mi;
    assert_int_equal(tb_wl_iperf3_version_parse("iperf 3.12 (cJSON 1.7.15)\nLinux vm", &ma, &mi),
                     0);
    assert_true(ma == 3 && mi == 12);
    assert_int_equal(tb_wl_iperf3_version_parse("iperf 3.16 (cJSON 1.7.15)", &ma, &mi), 0);
    assert_true(ma == 3 && mi == 16);
    /* the probe's count decides: 1 thread (3.12's one loop), 3 (a main thread and one a
       stream), and a probe that failed: one thread a process */
    assert_false(tb_wl_iperf3_threaded(1));
    assert_true(tb_wl_iperf3_threaded(2));
    assert_true(tb_wl_iperf3_threaded(3));
    assert_false(tb_wl_iperf3_threaded(0));
    assert_false(tb_wl_iperf3_threaded(-1));
    assert_int_equal(tb_wl_iperf3_version_parse("iperf3: unknown option", &ma, &mi), -1);
    tb_wl_network_params p;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_network, &p, TB_WL_STANDARD, &e), 0);
    /* one thread a process: one process per stream up to the CPUs (or procs) */
    assert_int_equal(tb_wl_network_procs(&p, 1, 2, 0), 1);
    assert_int_equal(tb_wl_network_procs(&p, 4, 2, 0), 2);
    assert_int_equal(tb_wl_network_procs(&p, 4, 8, 0), 4);
    assert_int_equal(tb_wl_network_procs(&p, 64, 64, 0), TB_WL_NET_MAX_PROCS);
    assert_int_equal(tb_wl_network_procs(&p, 4, 8, 1), 1); /* threads: one process */
    p.procs = 3;
    assert_int_equal(tb_wl_network_procs(&p, 8, 2, 0), 3);
    p.procs = 0;
    assert_int_equal(tb_wl_network_server_procs(&p, 2, 0), 2); /* streams 1,4 on 2 CPUs */
    assert_int_equal(tb_wl_network_server_procs(&p, 2, 1), 1);
    p.test[TB_WL_NET_TCP] = 0;
    assert_int_equal(tb_wl_network_server_procs(&p, 2, 0), 1); /* UDP's one */
    p.test[TB_WL_NET_UDP] = 0;
    assert_int_equal(tb_wl_network_server_procs(&p, 2, 0), 0); /* round trips only */
    assert_int_equal(tb_wl_network_have_iperf3("/nonexistent/iperf3", &e), -1);
    assert_string_equal(e.msg, "iperf3 is not installed (/nonexistent/iperf3: No such file or "
                               "directory): install the package iperf3 (apt-get install iperf3, "
                               "dnf install iperf3)");
}

static void test_params(void **state)
{
    (void)state;
    tb_wl_network_params p;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_network, &p, TB_WL_QUICK, &e), 0);
    assert_true(p.duration_s == 1 && p.n_streams == 1 && p.n_udp == 1 && p.udp_sizes[0] == 64);
    assert_true(tb_wl_network.flags & TB_WL_NOT_QUICK);
    assert_int_equal(tb_wl_params_init(&tb_wl_network, &p, TB_WL_SEED, &e), 0);
    assert_int_equal(p.duration_s, 10); /* iperf3's own default */
    static const struct {
        const char *key, *value, *msg; /* msg NULL: accepted */
    } cases[] = {
        {"streams", "1,4,4", NULL},
        {"streams", "0", "network.streams: '0': want a stream count (1..128)"},
        {"udp_sizes", "8", "network.udp_sizes: '8': want a datagram size (16..65507)"},
        {"udp_sizes", "16,65507", NULL},
        {"udp_rate", "100M", NULL},
        {"udp_rate", "1.5G", NULL},
        {"udp_rate", "fast", "network.udp_rate: 'fast' is not a bitrate (0, 100M, 1.5G)"},
        {"udp_rate", "1MM", "network.udp_rate: '1MM' is not a bitrate (0, 100M, 1.5G)"},
        {"server", "198.18.0.2:5201", NULL},
        {"server", "[::1]:5201", NULL},
        {"server", "box.example:40000", NULL},
        {"server", "host", "network.server: 'host' is not HOST:PORT"},
        {"server", ":5201", "network.server: ':5201' is not HOST:PORT"},
        {"server", "[::1]5201", "network.server: '[::1]5201' is not [ADDRESS]:PORT"},
        {"server", "h:0", "network.server: 0 is out of range (1 .. 65519)"},
        {"tests", "rtt", NULL},
        {"tests", "ping", "network.tests: unknown test 'ping' (tcp, udp, rtt)"},
        {"duration", "0", "network.duration: 0 is out of range (1 .. 3600)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = tb_wl_params_set(&tb_wl_network, &p, cases[i].key, cases[i].value, NULL, &e);
        if (cases[i].msg) {
            assert_int_equal(rc, -1);
            assert_string_equal(e.msg, cases[i].msg);
        } else if (rc < 0) {
            fail_msg("%s=%s: %s", cases[i].key, cases[i].value, e.msg);
        }
    }
    assert_int_equal(p.n_streams, 2);
    assert_string_equal(p.server, "box.example:40000");
    assert_true(p.test[TB_WL_NET_RTT] && !p.test[TB_WL_NET_TCP]);
}

static void test_listening(void **state)
{
    (void)state;
    const char *tcp =
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
        "timeout inode\n"
        "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0 "
        "       0 12345 1 0000000000000000 100 0 0 10 0\n"
        "   1: 0100007F:A1B2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0 "
        "       0 12346 1 0000000000000000 20 4 30 10 -1\n";
    assert_int_equal(tb_wl_network_listening(tcp, 8080), 1);
    assert_int_equal(tb_wl_network_listening(tcp, 0xA1B2), 0); /* established, not listening */
    assert_int_equal(tb_wl_network_listening(tcp, 80), 0);
    const char *tcp6 = "  sl  local_address                         remote_address ...\n"
                       "   0: 00000000000000000000000000000000:1451 "
                       "00000000000000000000000000000000:0000 0A 00000000:00000000\n";
    assert_int_equal(tb_wl_network_listening(tcp6, 5201), 1);
    assert_int_equal(tb_wl_network_listening("", 5201), 0);
}

typedef struct kept {
    char names[32][96], notes[32][400];
    double values[32];
    size_t n;
} kept;

static int keep(void *ctx, const char *name, double v, int simulated, const char *note, tb_err *err)
{
    kept *k = ctx;
    (void)err;
    (void)simulated;
    tb_wl_match m;
    if (!tb_wl_metric_find(name, &m))
        fail_msg("%s: in no table", name);
    assert_ptr_equal(m.workload, &tb_wl_network);
    assert_int_equal(m.metric->category, TB_CAT_NETWORK);
    snprintf(k->names[k->n], sizeof k->names[0], "%s", name);
    snprintf(k->notes[k->n], sizeof k->notes[0], "%s", note ? note : "");
    k->values[k->n++] = v;
    return 0;
}

static int read_doc(const json_t *doc, kept *k, tb_err *e)
{
    memset(k, 0, sizeof *k);
    tb_wl_sink sink = {.ctx = k, .sample = keep, .dir_fd = -1};
    tb_wl_doc_info info;
    assert_ptr_equal(tb_workload_for_doc(doc), &tb_wl_network);
    return tb_wl_network.doc_read(doc, NULL, &sink, &info, e);
}

static int collect(void *ctx, const char *name)
{
    kept *k = ctx;
    snprintf(k->names[k->n++], sizeof k->names[0], "%s", name);
    return 0;
}

static void test_plan_metrics(void **state)
{
    (void)state;
    tb_wl_network_params p;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_network, &p, TB_WL_STANDARD, &e), 0);
    kept k = {0};
    assert_int_equal(tb_wl_network.plan_metrics(&p, collect, &k), 0);
    static const char *const want[] = {"network.tcp.p1.throughput",    "network.tcp.p4.throughput",
                                       "network.udp.64b.throughput",   "network.udp.64b.loss",
                                       "network.udp.1472b.throughput", "network.udp.1472b.loss",
                                       "network.rtt.tcp.p50",          "network.rtt.tcp.p99",
                                       "network.rtt.udp.p50",          "network.rtt.udp.p99"};
    static const char *const units[] = {"bit/s", "bit/s", "bit/s", "%",  "bit/s",
                                        "%",     "us",    "us",    "us", "us"};
    assert_int_equal(k.n, 10);
    for (size_t i = 0; i < k.n; i++) {
        assert_string_equal(k.names[i], want[i]);
        tb_wl_match m;
        assert_int_equal(tb_wl_metric_find(want[i], &m), 1);
        assert_string_equal(m.metric->unit, units[i]);
        assert_int_equal(m.metric->better, !strcmp(units[i], "bit/s") ? TB_WL_HIGHER : TB_WL_LOWER);
    }
    tb_wl_step st[TB_WL_MAX_STEPS];
    assert_int_equal(tb_wl_network.steps(&p, st), 3);
    assert_string_equal(st[0].target, "tcp");
    assert_true(st[0].estimate_s >= 2 * 2); /* 2 stream counts x 2 s */
}

static json_t *handmade(int remote)
{
    return json_pack("{s:s, s:{s:s, s:i, s:b}, s:[{s:i, s:i, s:f}], s:[{s:i, s:s, s:f, s:f}], "
                     "s:[{s:s, s:f, s:f}, {s:s, s:f, s:f}]}",
                     "schema", TB_WL_NETWORK_SCHEMA, "server", "host", "198.18.0.2", "port", 40000,
                     "remote", remote, "tcp", "streams", 4, "processes", 2, "throughput_bps", 9.5e9,
                     "udp", "size", 1472, "rate", "0", "throughput_bps", 1.2e9, "loss_percent", 3.5,
                     "rtt", "protocol", "tcp", "p50_us", 30.5, "p99_us", 80.25, "protocol", "udp",
                     "p50_us", 25.0, "p99_us", 60.0);
}

static void test_document(void **state)
{
    (void)state;
    json_t *doc = handmade(1);
    kept k;
    tb_err e;
    assert_int_equal(read_doc(doc, &k, &e), 0);
    static const char *const want[] = {"network.tcp.p4.throughput", "network.udp.1472b.throughput",
                                       "network.udp.1472b.loss",    "network.rtt.tcp.p50",
                                       "network.rtt.tcp.p99",       "network.rtt.udp.p50",
                                       "network.rtt.udp.p99"};
    static const double values[] = {9.5e9, 1.2e9, 3.5, 30.5, 80.25, 25.0, 60.0};
    assert_int_equal(k.n, 7);
    for (size_t i = 0; i < k.n; i++) {
        assert_string_equal(k.names[i], want[i]);
        assert_true(k.values[i] == values[i]);
    }
    assert_non_null(strstr(k.notes[0], "4 streams in 2 processes"));
    assert_non_null(strstr(k.notes[0], "servers in another environment"));
    json_decref(doc);
    doc = handmade(0);
    assert_int_equal(read_doc(doc, &k, &e), 0);
    assert_non_null(strstr(k.notes[0], "over loopback"));
    /* refused */
    json_object_set_new(json_array_get(json_object_get(doc, "tcp"), 0), "streams", json_real(2.5));
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "network JSON: tcp[0]: \"streams\" is not a stream count");
    json_object_del(doc, "tcp");
    json_object_set_new(json_array_get(json_object_get(doc, "rtt"), 1), "protocol",
                        json_string("icmp"));
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "network JSON: rtt[1]: \"protocol\" must be \"tcp\" or \"udp\"");
    json_object_del(doc, "rtt");
    json_object_del(json_array_get(json_object_get(doc, "udp"), 0), "loss_percent");
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "network JSON: udp[0]: missing \"loss_percent\"");
    json_object_del(doc, "udp");
    assert_int_equal(read_doc(doc, &k, &e), -1);
    assert_string_equal(e.msg, "network JSON: none of \"tcp\", \"udp\", \"rtt\"");
    json_decref(doc);
}

/* A private directory for iperf3's outputs; its fd. */
static int work_dir(char *path)
{
    assert_non_null(mkdtemp(path));
    int fd = open(path, O_DIRECTORY | O_CLOEXEC);
    assert_true(fd >= 0);
    return fd;
}

static void remove_dir(int fd, char *path)
{
    close(fd);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
}

/* Round trips against servers started here, written to a document and read back. */
static void test_live_rtt(void **state)
{
    (void)state;
    tb_wl_network_params p;
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_network, &p, TB_WL_QUICK, &e), 0);
    assert_int_equal(tb_wl_params_set(&tb_wl_network, &p, "rtt", "50ms", NULL, &e), 0);
    tb_wl_net_local *l = tb_wl_net_local_start(0, p.iperf3_bin, NULL, &e);
    if (!l)
        fail_msg("%s", e.msg);
    char dir[] = "/tmp/tb-test-net.XXXXXX";
    int dfd = work_dir(dir);
    tb_wl_net_ctx c = {.host = "127.0.0.1",
                       .port = tb_wl_net_local_server(l)->port,
                       .ncpu = 2,
                       .dir_fd = dfd,
                       .dir = dir};
    assert_int_equal(tb_wl_net_local_server(l)->n_iperf, 0);
    json_t *doc = tb_wl_network_doc(&p, &c, "");
    json_object_set_new(doc, "schema", json_string(TB_WL_NETWORK_SCHEMA));
    for (int i = 0; i < 2; i++) {
        int stopped = 1;
        if (tb_wl_network_run(&p, &c, TB_WL_NET_RTT, i, doc, &stopped, &e) < 0)
            fail_msg("%s", e.msg);
        assert_false(stopped);
    }
    assert_int_equal(tb_wl_network_run(&p, &c, TB_WL_NET_RTT, 2, doc, NULL, &e), -1);
    kept k;
    assert_int_equal(read_doc(doc, &k, &e), 0);
    assert_int_equal(k.n, 4);
    assert_string_equal(k.names[0], "network.rtt.tcp.p50");
    assert_string_equal(k.names[3], "network.rtt.udp.p99");
    assert_true(k.values[0] > 0 && k.values[0] <= k.values[1]);
    json_decref(doc);
    assert_int_equal(tb_wl_net_local_stop(l, &e), 0);
    remove_dir(dfd, dir);
}

static void *park(void *arg)
{
    int *fd = arg;
    char c;
    (void)!read(*fd, &c, 1); /* until the test writes */
    return NULL;
}

/* /proc/PID/task counted: this process with a thread more while it is parked; a pid that
   is no process. */
static void test_task_count(void **state)
{
    (void)state;
    int before = tb_wl_network_task_count(getpid());
    assert_true(before >= 1);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, park, &fds[0]), 0);
    assert_int_equal(tb_wl_network_task_count(getpid()), before + 1);
    assert_int_equal(write(fds[1], "x", 1), 1);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(tb_wl_network_task_count(getpid()), before);
    close(fds[0]);
    close(fds[1]);
    assert_int_equal(tb_wl_network_task_count(-5), -1);
}

/* A stand-in iperf3 (the probe runs it as bin), a Python script: "-s ... -p PORT" listens
   on 127.0.0.1:PORT until it is stopped; "-c" runs for 1 s with
   TB_TEST_IPERF3_STREAM_THREADS more threads (made 100 ms in, as iperf3 makes its streams'
   once the test runs), then exits 0. Not this test program: a sanitizer's runtime may
   add threads of its own to an instrumented process (ThreadSanitizer does), and the
   probe counts every thread. Writes dir/fake-iperf3 into path. */
static void fake_iperf3(const char *dir, char *path, size_t len)
{
    static const char script[] = "#!/usr/bin/python3\n"
                                 "import os, socket, sys, threading, time\n"
                                 "a = sys.argv[1:]\n"
                                 "if a[0] == '-s':\n"
                                 "    s = socket.socket()\n"
                                 "    s.bind(('127.0.0.1', int(a[a.index('-p') + 1])))\n"
                                 "    s.listen(1)\n"
                                 "    time.sleep(20)\n"
                                 "    sys.exit(0)\n"
                                 "n = int(os.environ.get('TB_TEST_IPERF3_STREAM_THREADS', '0'))\n"
                                 "time.sleep(0.1)\n"
                                 "stop = threading.Event()\n"
                                 "ts = [threading.Thread(target=stop.wait) for _ in range(n)]\n"
                                 "for t in ts:\n"
                                 "    t.start()\n"
                                 "time.sleep(0.9)\n"
                                 "stop.set()\n"
                                 "for t in ts:\n"
                                 "    t.join()\n";
    snprintf(path, len, "%s/fake-iperf3", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(script, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, 0755), 0);
}

/* The threads probe with the stand-in: a client whose streams are threads is seen as
   more than one thread (and stopped once seen), one without as one. */
static void test_threads_probe_counts(void **state)
{
    (void)state;
    char self[1024], dir[] = "/tmp/tb-test-net.XXXXXX";
    int dfd = work_dir(dir);
    fake_iperf3(dir, self, sizeof self);
    tb_err e;
    setenv("TB_TEST_IPERF3_STREAM_THREADS", "2", 1);
    int k = tb_wl_network_iperf3_threads(self, dir, &e);
    if (k < 0)
        fail_msg("%s", e.msg);
    assert_true(k == 2 || k == 3); /* the first count above one ends the probe */
    assert_true(tb_wl_iperf3_threaded(k));
    setenv("TB_TEST_IPERF3_STREAM_THREADS", "0", 1);
    assert_int_equal(tb_wl_network_iperf3_threads(self, dir, &e), 1);
    unsetenv("TB_TEST_IPERF3_STREAM_THREADS");
    remove_dir(dfd, dir);
}

/* The quick profile's params, where iperf3 is installed; else the test is skipped with the
   package to install (cmocka's skip() leaves the test from here). */
static void quick_with_iperf3(tb_wl_network_params *p)
{
    tb_err e;
    assert_int_equal(tb_wl_params_init(&tb_wl_network, p, TB_WL_QUICK, &e), 0);
    if (tb_wl_network_have_iperf3(p->iperf3_bin, &e) < 0) {
        printf("skipped: %s\n", e.msg);
        skip();
    }
}

/* The threads probe with the iperf3 here (a one-off server on a free port, a -P 2 client
   for 1 s): a count, and the one iperf3's own release notes give (3.16 made it
   multi-threaded: three threads for two streams; one before); where iperf3 is not
   installed, skipped with the package to install. */
static void test_iperf3_threads_probe(void **state)
{
    (void)state;
    tb_wl_network_params p;
    tb_err e;
    quick_with_iperf3(&p);
    char dir[] = "/tmp/tb-test-net.XXXXXX";
    int dfd = work_dir(dir);
    int k = tb_wl_network_iperf3_threads(p.iperf3_bin, dir, &e);
    if (k < 0)
        fail_msg("%s", e.msg);
    char version[32];
    int threaded;
    assert_int_equal(tb_wl_network_probe_threaded(p.iperf3_bin, dir, &threaded, &e), 0);
    assert_int_equal(tb_wl_network_iperf3_version(p.iperf3_bin, dfd, dir, version, sizeof version),
                     0);
    int ma, mi;
    assert_int_equal(sscanf(version, "%d.%d", &ma, &mi), 2);
    int documented = ma > 3 || (ma == 3 && mi >= 16);
    assert_int_equal(tb_wl_iperf3_threaded(k), documented);
    assert_int_equal(threaded, documented);
    if (!documented)
        assert_int_equal(k, 1);
    /* a program that is no iperf3 client: the probe fails, and says how */
    assert_int_equal(tb_wl_network_iperf3_threads("/bin/false", dir, &e), -1);
    assert_true(e.msg[0] != 0);
    threaded = 1;
    assert_int_equal(tb_wl_network_probe_threaded("/bin/false", dir, &threaded, &e), -1);
    assert_int_equal(threaded, 0); /* a probe that could not run: streams over processes */
    remove_dir(dfd, dir);
}

/* TCP with 2 streams in 2 processes (and 2 servers) and UDP, for 1 s each, as the suite
   runs them; where iperf3 is not installed, skipped with the package to install. */
static void test_live_iperf3(void **state)
{
    (void)state;
    tb_wl_network_params p;
    tb_err e;
    quick_with_iperf3(&p);
    assert_int_equal(tb_wl_params_set(&tb_wl_network, &p, "streams", "2", NULL, &e), 0);
    char dir[] = "/tmp/tb-test-net.XXXXXX";
    int dfd = work_dir(dir);
    tb_wl_net_ctx c = {.host = "127.0.0.1", .ncpu = 2, .dir_fd = dfd, .dir = dir};
    char version[32];
    assert_int_equal(tb_wl_network_probe_threaded(p.iperf3_bin, dir, &c.threaded, &e), 0);
    assert_int_equal(tb_wl_network_iperf3_version(p.iperf3_bin, dfd, dir, version, sizeof version),
                     0);
    assert_true(version[0] >= '3');
    int procs = tb_wl_network_server_procs(&p, 2, c.threaded);
    tb_wl_net_local *l = tb_wl_net_local_start(procs, p.iperf3_bin, dir, &e);
    if (!l)
        fail_msg("%s", e.msg);
    assert_int_equal(tb_wl_net_local_server(l)->n_iperf, procs);
    c.port = tb_wl_net_local_server(l)->port;
    json_t *doc = tb_wl_network_doc(&p, &c, version);
    int stopped;
    if (tb_wl_network_run(&p, &c, TB_WL_NET_TCP, 0, doc, &stopped, &e) < 0 ||
        tb_wl_network_run(&p, &c, TB_WL_NET_UDP, 0, doc, &stopped, &e) < 0)
        fail_msg("%s", e.msg);
    const json_t *t = json_array_get(json_object_get(doc, "tcp"), 0);
    assert_int_equal(json_integer_value(json_object_get(t, "streams")), 2);
    assert_int_equal(json_integer_value(json_object_get(t, "processes")), c.threaded ? 1 : 2);
    assert_true(json_number_value(json_object_get(t, "throughput_bps")) > 1e6);
    const json_t *u = json_array_get(json_object_get(doc, "udp"), 0);
    double loss = json_number_value(json_object_get(u, "loss_percent"));
    assert_true(loss >= 0 && loss <= 100);
    assert_true(json_number_value(json_object_get(u, "throughput_bps")) > 0);
    json_decref(doc);
    assert_int_equal(tb_wl_net_local_stop(l, &e), 0);
    remove_dir(dfd, dir);
}

/* The sweeps the report draws: TCP by stream count, UDP by datagram size. */
static void test_sweep(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double x;
    } cases[] = {{"network.tcp.p4.throughput", 4},
                 {"network.udp.64b.throughput", 64},
                 {"network.udp.1472b.loss", 1472}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_wl_match m;
        double x = 0;
        assert_int_equal(tb_wl_metric_find(cases[i].name, &m), 1);
        assert_non_null(tb_wl_sweep_of(&m, &x));
        assert_true(x == cases[i].x);
    }
    tb_wl_match m;
    double x;
    assert_int_equal(tb_wl_metric_find("network.rtt.tcp.p99", &m), 1);
    assert_null(tb_wl_sweep_of(&m, &x));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_iperf3_outputs),
        cmocka_unit_test(test_iperf3_broken),
        cmocka_unit_test(test_version_and_procs),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_listening),
        cmocka_unit_test(test_plan_metrics),
        cmocka_unit_test(test_document),
        cmocka_unit_test(test_live_rtt),
        cmocka_unit_test(test_live_iperf3),
        cmocka_unit_test(test_task_count),
        cmocka_unit_test(test_threads_probe_counts),
        cmocka_unit_test(test_iperf3_threads_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
