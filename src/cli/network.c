/* cli/network: `teebench network` -- TCP and UDP throughput (iperf3) and round trips
 * (workloads/network), against servers it starts here on loopback or against
 * `teebench network serve` elsewhere (--server HOST:PORT); and `teebench network
 * serve`, those servers, in the foreground or as a daemon (--daemon --dir DIR; --stop
 * --dir DIR ends it), as the suite's --net-client local starts them in the environment
 * under test. Flags are the network workload's parameters (the suite's network.* keys)
 * with the standard profile's defaults.
 *
 * Files: iperf3's --json outputs go to a private temporary directory, removed at the
 * end. A daemon keeps DIR/serve.pid and DIR/serve.log (DIR private: base/file's rule).
 * SIGINT/SIGTERM set cli/stop's flag: the client stops, the servers end. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "cli/stop.h"
#include "workloads/network.h"

#define CMD "network"
#define SCMD "network serve" /* the errors of `teebench network serve` */

/* network's and network serve's. */
static void usage(FILE *f, const cli_cmd *c)
{
    (void)c;
    fprintf(
        f, "usage: teebench network [--tests LIST] [--duration S] [--streams LIST] [--procs N]\n"
           "                        [--udp-sizes LIST] [--udp-rate R] [--rtt T] [--iperf3 PATH]\n"
           "                        [--server HOST:PORT] [--profile quick|standard|seed] [--json]\n"
           "       teebench network serve [--addr A] [--port P] [--procs N] [--iperf3 PATH]\n"
           "                        [--json] [--dir DIR [--daemon]]\n"
           "       teebench network serve --stop --dir DIR\n\n"
           "What the network path costs: iperf3 (Debian's iperf3) for throughput, teebench for\n"
           "round trips. The servers run where the figures are wanted (the environment under\n"
           "test): the echo server on PORT (TCP and UDP), one `iperf3 -s` per client process on\n"
           "PORT+1, PORT+2, ...\n"
           "  tcp   iperf3 -P N for each N of --streams: bits received per second; an iperf3\n"
           "        that runs a process's streams in one thread (probed before the runs) gets\n"
           "        N streams over up to one process per CPU (--procs), receivers summed\n"
           "  udp   iperf3 -u -b R -l SIZE for each size: bits received per second and the %% of\n"
           "        datagrams lost (-b 0: as fast as the sender can)\n"
           "  rtt   8-byte requests and their echo over TCP and over UDP, one at a time: p50\n"
           "        and p99 of the round trip (netperf's TCP_RR/UDP_RR; not ICMP ping, which\n"
           "        needs privileges and never wakes a process on the other side)\n\n");
    cli_flags_help(f, &cli_network_cmd);
    fprintf(f, "\nserve:\n");
    cli_flags_help(f, &cli_network_serve_cmd);
    fprintf(f,
            "\n"
            "A missing iperf3 skips tcp and udp with the package to install (iperf3); rtt runs.\n");
}

/* ---- teebench network ---- */

typedef struct net_args {
    tb_wl_network_params p;
    int json;
} net_args;

static const cli_flag net_flag_table[] = {
    CLI_SETTING("tests", cli_wl_flags, set, "LIST", "tcp, udp, rtt (default: all three)"),
    CLI_SETTING("duration", cli_wl_flags, set, "S",
                "seconds of each iperf3 run, whole (default 2, seed 10)"),
    CLI_SETTING("streams", cli_wl_flags, set, "LIST", "TCP stream counts (default 1,4)"),
    CLI_SETTING("procs", cli_wl_flags, set, "N",
                "iperf3 processes for N streams at most (default 0: one per CPU;\n"
                "one when iperf3 is probed to run streams in threads)"),
    CLI_SETTING("udp-sizes", cli_wl_flags, set, "LIST",
                "UDP datagram bytes (default 64,1472: 1472 fills a 1500-byte\n"
                "Ethernet frame with IPv4)"),
    CLI_SETTING("udp-rate", cli_wl_flags, set, "R", "iperf3 -b (default 0)"),
    CLI_SETTING("rtt", cli_wl_flags, set, "T",
                "seconds of round trips per protocol (default 1s, seed 5s)"),
    {.name = "iperf3",
     .type = CLI_F_SETTING,
     .arg = "PATH",
     .off = CLI_OFF(cli_wl_flags, set, cli_settings),
     .key = "iperf3_bin",
     .help = "the iperf3 binary (default " TB_IPERF3_BIN ")"},
    CLI_SETTING("server", cli_wl_flags, set, "H:P",
                "`teebench network serve` runs there (default: servers here,\n"
                "on 127.0.0.1, for the run)"),
    CLI_STR("profile", 0, cli_wl_flags, profile, "P",
            "the defaults of the suite's profile P (default standard;\n"
            "quick: 1 s runs, 1 stream, 64-byte datagrams)"),
    CLI_BOOL("json", 0, cli_wl_flags, json,
             "print one JSON document (includes `teebench env --json`)"),
    {.name = "help", .shortc = 'h', .type = CLI_F_HELP, .hidden = 1}, /* in serve's list */
    {0}};

const cli_cmd cli_network_cmd = {
    .name = CMD, .flags = net_flag_table, .usage = usage, .max_operands = 0, .col = 20};

static int parse_args(int argc, char **argv, net_args *a)
{
    cli_wl_flags fl = {.profile = "standard"};
    int first, rc = cli_flags_parse(&cli_network_cmd, argc, argv, &fl, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    a->json = fl.json;
    tb_err e;
    rc = cli_setting_apply(CMD, &tb_wl_network, &fl, &a->p, &e);
    if (rc < 0)
        return cli_fail(CMD, "%s", e.msg);
    return rc ? rc : -1;
}

/* A private temporary directory for iperf3's outputs; its fd, or -1 with err. */
static int temp_dir(char *path, size_t n, tb_err *err)
{
    const char *t = getenv("TMPDIR");
    if (snprintf(path, n, "%s/teebench-network.XXXXXX", t && t[0] == '/' ? t : "/tmp") >= (int)n)
        return tb_errf(err, "TMPDIR too long");
    if (!mkdtemp(path))
        return tb_errno(err, "mkdtemp %s", path);
    int fd = open(path, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        tb_errno(err, "%s", path);
        rmdir(path);
    }
    return fd;
}

/* Removes the files of the temporary directory and it. */
static void remove_temp(int fd, const char *path)
{
    int dfd = dup(fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(fd, e->d_name, 0);
    if (d)
        closedir(d);
    else if (dfd >= 0)
        close(dfd);
    close(fd);
    rmdir(path);
}

static double gbit(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k)) / 1e9;
}

static void print_case(const json_t *doc, int t)
{
    const char *member = t == TB_WL_NET_TCP ? "tcp" : t == TB_WL_NET_UDP ? "udp" : "rtt";
    const json_t *list = json_object_get(doc, member);
    const json_t *e = json_array_get(list, json_array_size(list) - 1);
    if (!e)
        return;
    if (t == TB_WL_NET_TCP) {
        int s = (int)json_integer_value(json_object_get(e, "streams"));
        int k = (int)json_integer_value(json_object_get(e, "processes"));
        const json_t *r = json_object_get(e, "retransmits");
        char rt[48] = "";
        if (json_is_number(r))
            snprintf(rt, sizeof rt, ", %.0f retransmits", json_number_value(r));
        printf("  tcp  -P %-4d %10.3f Gbit/s received (%d iperf3 process%s%s)\n", s,
               gbit(e, "throughput_bps"), k, k == 1 ? "" : "es", rt);
    } else if (t == TB_WL_NET_UDP) {
        printf("  udp  %5d B %10.3f Gbit/s received, %.2f %% lost (sent %.3f Gbit/s, -b %s)\n",
               (int)json_integer_value(json_object_get(e, "size")), gbit(e, "throughput_bps"),
               json_number_value(json_object_get(e, "loss_percent")), gbit(e, "sent_bps"),
               json_string_value(json_object_get(e, "rate")));
    } else {
        printf("  rtt  %-8s p50 %9.1f us  p99 %9.1f us  (%lld round trips in %.1f s, %lld "
               "lost)\n",
               json_string_value(json_object_get(e, "protocol")),
               json_number_value(json_object_get(e, "p50_us")),
               json_number_value(json_object_get(e, "p99_us")),
               (long long)json_integer_value(json_object_get(e, "round_trips")),
               json_number_value(json_object_get(e, "seconds")),
               (long long)json_integer_value(json_object_get(e, "lost")));
    }
    fflush(stdout);
}

/* What a run has: servers here (local) or there, iperf3 here or its reason. */
typedef struct net_run {
    tb_wl_net_ctx ctx;
    char host[256], version[32], dir[1024];
    int have_iperf3;
    tb_err iperf3_why;
    tb_wl_net_local *local;
} net_run;

static int prepare(net_args *a, net_run *r, tb_err *err)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    r->ctx = (tb_wl_net_ctx){
        .host = r->host, .ncpu = ncpu > 0 ? (int)ncpu : 1, .stop = cli_stop_flag(), .dir = r->dir};
    if ((r->ctx.dir_fd = temp_dir(r->dir, sizeof r->dir, err)) < 0)
        return -1;
    int want = a->p.test[TB_WL_NET_TCP] || a->p.test[TB_WL_NET_UDP];
    r->have_iperf3 = want && tb_wl_network_have_iperf3(a->p.iperf3_bin, &r->iperf3_why) == 0;
    if (r->have_iperf3) {
        tb_wl_network_iperf3_version(a->p.iperf3_bin, r->ctx.dir_fd, r->dir, r->version,
                                     sizeof r->version);
        tb_err e;
        if (tb_wl_network_probe_threaded(a->p.iperf3_bin, r->dir, &r->ctx.threaded, &e) < 0)
            /* as the suite's network workload warns: streams over processes then */
            fprintf(stderr,
                    "teebench: network: warning: iperf3's threads not probed (%s): one thread "
                    "a process\n",
                    e.msg);
    }
    if (a->p.server[0]) {
        const char *v = a->p.server, *colon = strrchr(v, ':');
        int v6 = v[0] == '[';
        snprintf(r->host, sizeof r->host, "%.*s", (int)(colon - v) - 2 * v6, v + v6);
        r->ctx.port = atoi(colon + 1); /* checked by the parameter */
        r->ctx.remote = 1;
        return 0;
    }
    int procs =
        r->have_iperf3 ? tb_wl_network_server_procs(&a->p, r->ctx.ncpu, r->ctx.threaded) : 0;
    if (!(r->local = tb_wl_net_local_start(procs, a->p.iperf3_bin, r->dir, err)))
        return tb_err_wrap(err, "starting the servers here");
    snprintf(r->host, sizeof r->host, "127.0.0.1");
    r->ctx.port = tb_wl_net_local_server(r->local)->port;
    return 0;
}

static int run_all(net_args *a, net_run *r, json_t *doc, int *measured, tb_err *err)
{
    json_t *skipped = json_array();
    json_object_set_new(doc, "skipped", skipped);
    for (int t = 0; t < TB_WL_NET_TESTS && !cli_stopped(); t++) {
        if (!a->p.test[t])
            continue;
        if (t != TB_WL_NET_RTT && !r->have_iperf3) {
            json_array_append_new(skipped, json_pack("{s:s, s:s}", "test",
                                                     t == TB_WL_NET_TCP ? "tcp" : "udp", "reason",
                                                     r->iperf3_why.msg));
            if (!a->json)
                fprintf(stderr, "teebench: network: %s: skipped: %s\n",
                        t == TB_WL_NET_TCP ? "tcp" : "udp", r->iperf3_why.msg);
            continue;
        }
        int cases = t == TB_WL_NET_TCP ? a->p.n_streams : t == TB_WL_NET_UDP ? a->p.n_udp : 2;
        for (int i = 0; i < cases && !cli_stopped(); i++) {
            int stopped = 0;
            if (tb_wl_network_run(&a->p, &r->ctx, t, i, doc, &stopped, err) < 0)
                return -1;
            if (stopped)
                break;
            (*measured)++;
            if (!a->json)
                print_case(doc, t);
        }
    }
    return 0;
}

static int client(int argc, char **argv)
{
    net_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    cli_stop_catch(NULL, NULL);
    net_run r;
    memset(&r, 0, sizeof r);
    tb_err err;
    json_t *doc = NULL;
    int measured = 0;
    rc = prepare(&a, &r, &err);
    if (rc == 0 && !(doc = tb_wl_network_doc(&a.p, &r.ctx, r.version)))
        rc = tb_errf(&err, "out of memory");
    if (rc == 0 && !a.json)
        printf("network: %s %s:%d (echo), iperf3 %s%s\n",
               r.ctx.remote ? "servers at" : "servers here on", r.host, r.ctx.port,
               r.version[0]                                         ? r.version
               : a.p.test[TB_WL_NET_TCP] || a.p.test[TB_WL_NET_UDP] ? "not installed"
                                                                    : "not used",
               r.version[0] && !r.ctx.threaded ? " (one thread per process)" : "");
    if (rc == 0)
        rc = run_all(&a, &r, doc, &measured, &err);
    tb_err se;
    if (tb_wl_net_local_stop(r.local, &se) < 0 && rc == 0)
        rc = tb_errf(&err, "%s", se.msg);
    if (r.dir[0])
        remove_temp(r.ctx.dir_fd, r.dir);
    if (rc == 0 && cli_stopped())
        rc = tb_errf(&err, "interrupted");
    if (rc == 0 && !measured)
        rc = tb_errf(&err, "%s", r.iperf3_why.msg[0] ? r.iperf3_why.msg : "nothing measured");
    if (rc < 0) {
        json_decref(doc);
        int code = cli_stopped() ? 130 : 1;
        return a.json ? cli_json_fail(code, CMD, TB_WL_NETWORK_SCHEMA, "%s", err.msg)
                      : cli_fail_code(code, CMD, "%s", err.msg);
    }
    if (!a.json) {
        json_decref(doc);
        return 0;
    }
    return cli_json_print(CMD, cli_json_envelope(TB_WL_NETWORK_SCHEMA, doc, 1));
}

/* ---- teebench network serve ---- */

typedef struct serve_args {
    const char *addr, *iperf3, *dir;
    int port, procs, json, daemon, stop;
} serve_args;

static int set_iperf3(void *args, const char *flag, const char *v, tb_err *err)
{
    if (v[0] != '/')
        return tb_errf(err, "%s %s: not an absolute path", flag, v);
    ((serve_args *)args)->iperf3 = v;
    return 0;
}

/* --iperf3 and --daemon are told of in the usage lines and --dir's help. */
static const cli_flag serve_flags[] = {
    CLI_STR("addr", 0, serve_args, addr, "A",
            "listen on A (default 127.0.0.1; the address clients reach)"),
    CLI_INT("port", 0, serve_args, port, 0, 65535 - TB_WL_NET_MAX_PROCS, "P",
            "the echo server's port (default 0: a free one)"),
    CLI_INT("procs", 0, serve_args, procs, 0, TB_WL_NET_MAX_PROCS, "N",
            "iperf3 servers (default 2; 0: round trips only)"),
    {.name = "iperf3", .type = CLI_F_CALL, .arg = "PATH", .call = set_iperf3, .hidden = 1},
    CLI_BOOL("json", 0, serve_args, json,
             "say where it listens as one JSON line (teebench-network-serve/1)"),
    CLI_STR("dir", 0, serve_args, dir, "DIR",
            "iperf3's logs there; with --daemon also serve.pid and serve.log:\n"
            "the command returns once everything listens"),
    {.name = "daemon", .type = CLI_F_BOOL, .off = CLI_OFF(serve_args, daemon, int), .hidden = 1},
    CLI_BOOL("stop", 0, serve_args, stop,
             "end the daemon of --dir DIR (and remove its files there)"),
    CLI_HELP(),
    {0}};

const cli_cmd cli_network_serve_cmd = {
    .name = SCMD, .flags = serve_flags, .usage = usage, .max_operands = 0, .col = 20};

static int serve_parse(int argc, char **argv, serve_args *a)
{
    *a = (serve_args){.addr = "127.0.0.1", .iperf3 = TB_IPERF3_BIN, .procs = 2};
    int first, rc = cli_flags_parse(&cli_network_serve_cmd, argc, argv, a, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if ((a->daemon || a->stop) && !a->dir)
        return cli_fail_code(2, SCMD, "--%s needs --dir DIR", a->stop ? "stop" : "daemon");
    return -1;
}

/* The ready line: JSON, or a sentence. */
static void ready_line(const serve_args *a, const tb_wl_net_server *s, char *out, size_t n)
{
    if (a->json) {
        json_t *j = tb_wl_net_server_json(s, a->addr, a->procs ? a->iperf3 : "");
        char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
        snprintf(out, n, "%s\n", t ? t : "{}");
        free(t);
        json_decref(j);
    } else if (s->n_iperf) {
        snprintf(out, n,
                 "teebench network serve: echo on %s:%d (TCP, UDP), iperf3 on ports %d..%d\n",
                 a->addr, s->port, s->port + 1, s->port + s->n_iperf);
    } else {
        snprintf(out, n, "teebench network serve: echo on %s:%d (TCP, UDP), no iperf3 server\n",
                 a->addr, s->port);
    }
}

/* Starts the servers, says so on fd out, serves until a signal. An exit code. */
static int serve_here(const serve_args *a, int out, int *said)
{
    tb_wl_net_server s;
    tb_err e;
    if (tb_wl_net_server_start(a->addr, a->port, a->procs, a->iperf3, a->dir, &s, &e) < 0)
        return cli_fail(SCMD, "%s", e.msg);
    char line[512];
    ready_line(a, &s, line, sizeof line);
    if (write(out, line, strlen(line)) < 0) {
        /* nobody listens for the line: serve anyway */
    }
    *said = 1;
    int rc = tb_wl_net_server_serve(&s, cli_stop_flag(), &e);
    tb_wl_net_server_stop(&s);
    if (rc < 0)
        return cli_fail(SCMD, "%s", e.msg);
    return 0;
}

/* The daemon: forked, its own session; the ready line (or the error line) goes to the
   parent through a pipe, everything else to DIR/serve.log. */
static int serve_daemon(const serve_args *a)
{
    tb_err e;
    int dfd = tb_dir_open_private(a->dir, 0700, &e);
    if (dfd < 0)
        return cli_fail(SCMD, "%s", e.msg);
    int log = tb_file_create_at(dfd, a->dir, "serve.log", O_APPEND, 0600, &e);
    int pfd[2];
    if (log < 0 || pipe2(pfd, O_CLOEXEC) < 0) {
        if (log >= 0)
            tb_errno(&e, "pipe");
        close(dfd);
        if (log >= 0)
            close(log);
        return cli_fail(SCMD, "%s", e.msg);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(dfd);
        close(log);
        close(pfd[0]);
        close(pfd[1]);
        return cli_fail(SCMD, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(pfd[0]);
        setsid();
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        dup2(null, STDIN_FILENO);
        dup2(pfd[1], STDOUT_FILENO); /* the ready line */
        dup2(pfd[1], STDERR_FILENO); /* or the error line */
        tb_wl_net_server s;
        if (tb_wl_net_server_start(a->addr, a->port, a->procs, a->iperf3, a->dir, &s, &e) < 0) {
            fprintf(stderr, "teebench: network: serve: %s\n", e.msg);
            _exit(1);
        }
        char line[512];
        ready_line(a, &s, line, sizeof line);
        if (write(STDOUT_FILENO, line, strlen(line)) < 0)
            _exit(1);
        /* from here on stdout and stderr are the log: the pipe closes, so whoever started
           us (ssh) returns */
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
        close(pfd[1]);
        close(null);
        int rc = tb_wl_net_server_serve(&s, cli_stop_flag(), &e);
        tb_wl_net_server_stop(&s);
        if (rc < 0)
            fprintf(stderr, "teebench: network: serve: %s\n", e.msg);
        _exit(rc < 0 ? 1 : 0);
    }
    close(pfd[1]);
    close(log);
    tb_buf b = {0};
    uint64_t deadline = tb_mono_ns() + 30000000000ull;
    while (tb_mono_ns() < deadline) {
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        if (poll(&p, 1, 200) <= 0)
            continue;
        char c[512];
        ssize_t n = read(pfd[0], c, sizeof c);
        if (n <= 0 || (tb_buf_append(&b, c, (size_t)n), memchr(c, '\n', (size_t)n)))
            break;
    }
    close(pfd[0]);
    const char *text = b.p ? (const char *)b.p : "";
    int ok = !strncmp(text, "{", 1) || !strncmp(text, "teebench network serve:", 23);
    int rc = 0;
    if (ok) {
        char pidtext[32];
        int k = snprintf(pidtext, sizeof pidtext, "%d\n", (int)pid);
        if (tb_file_write_at(dfd, a->dir, "serve.pid", pidtext, (size_t)k, 0600, &e) < 0) {
            kill(pid, SIGTERM);
            rc = cli_fail(SCMD, "%s", e.msg);
        } else {
            fputs(text, stdout);
        }
    } else {
        int status;
        waitpid(pid, &status, 0);
        size_t l = strcspn(text, "\n");
        if (l)
            fprintf(stderr, "%.*s\n", (int)l, text);
        else
            fprintf(stderr, "teebench: network: serve: the server did not start within 30 s\n");
        rc = 1;
    }
    tb_buf_clear(&b);
    close(dfd);
    return rc;
}

/* Whether pid is a `teebench network serve` (its command line says so) that has not
   exited. */
static int is_our_daemon(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    tb_buf b = {0};
    tb_err e;
    int network = 0, serve = 0;
    if (tb_file_read(path, 1 << 16, &b, &e) == 0 && b.p)
        for (size_t i = 0; i < b.len; i += strlen((const char *)b.p + i) + 1) {
            network |= !strcmp((const char *)b.p + i, "network");
            serve |= !strcmp((const char *)b.p + i, "serve");
        }
    tb_buf_clear(&b);
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int zombie = 0;
    if (tb_file_read(path, 4096, &b, &e) == 0 && b.p) {
        const char *rp = strrchr((const char *)b.p, ')');
        zombie = rp && rp[1] == ' ' && rp[2] == 'Z';
    }
    tb_buf_clear(&b);
    return network && serve && !zombie;
}

static int serve_stop(const serve_args *a)
{
    tb_err e;
    int dfd = tb_dir_open_private(a->dir, 0700, &e);
    if (dfd < 0)
        return cli_fail(SCMD, "--stop: %s", e.msg);
    tb_buf b = {0};
    if (tb_file_read_at(dfd, a->dir, "serve.pid", 64, &b, &e) < 0) {
        close(dfd);
        return cli_fail(SCMD, "--stop: no server of %s: %s", a->dir, e.msg);
    }
    long pid = b.p ? strtol((const char *)b.p, NULL, 10) : 0;
    tb_buf_clear(&b);
    int rc = 0;
    if (pid <= 1) {
        rc = cli_fail(SCMD, "--stop: %s/serve.pid holds no process id", a->dir);
    } else if (is_our_daemon((pid_t)pid)) {
        kill((pid_t)pid, SIGTERM);
        for (int i = 0; i < 100 && is_our_daemon((pid_t)pid); i++)
            tb_sleep_ns(50000000);
        if (is_our_daemon((pid_t)pid)) {
            kill((pid_t)pid, SIGKILL);
            fprintf(stderr, "teebench: network: serve --stop: %ld did not stop in 5 s: killed\n",
                    pid);
        }
    }
    /* the daemon's files go with it: its pid, its log and iperf3's, and the directory
       when nothing else is in it */
    unlinkat(dfd, "serve.pid", 0);
    unlinkat(dfd, "serve.log", 0);
    int d2 = dup(dfd);
    DIR *d = d2 >= 0 ? fdopendir(d2) : NULL;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (!strncmp(de->d_name, "iperf3-", 7) && strstr(de->d_name, ".log"))
            unlinkat(dfd, de->d_name, 0);
    if (d)
        closedir(d);
    else if (d2 >= 0)
        close(d2);
    close(dfd);
    rmdir(a->dir); /* fails, harmlessly, when something else is in it */
    return rc;
}

static int serve(int argc, char **argv)
{
    serve_args a;
    int rc = serve_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (a.stop)
        return serve_stop(&a);
    cli_stop_catch(NULL, NULL);
    if (a.daemon)
        return serve_daemon(&a);
    if (a.dir) {
        tb_err e;
        int dfd = tb_dir_open_private(a.dir, 0700, &e);
        if (dfd < 0)
            return cli_fail(SCMD, "%s", e.msg);
        close(dfd);
    }
    int said = 0;
    return serve_here(&a, STDOUT_FILENO, &said);
}

int cmd_network(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "serve"))
        return serve(argc - 1, argv + 1);
    return client(argc, argv);
}
