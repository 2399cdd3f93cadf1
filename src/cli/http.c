/* cli/http: `teebench http`, the wrk-compatible load generator.
 *
 * Parses wrk's flags (plus -R/--rate, --u-latency, --json, --server-name,
 * --cacert, --connect, --server-log), builds the request bytes once, checks that
 * the target accepts connections, runs the engine (load/load.h) and prints wrk
 * 4.x's text layout line for line, or one JSON document with --json.
 * SIGINT (not SIGTERM, as wrk) sets the stop flag (cli/stop's), which the engine's
 * threads read every 100 ms: the run ends early and is printed. */
#include <ctype.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/fdlimit.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "cli/stop.h"
#include "load/load.h"
#include "load/logcount.h"
#include "load/script.h"
#include "net/sock.h"
#include "net/tls.h"
#include "net/url.h"
#include "base/file.h"
#include "stats/hdr.h"
#include "stats/hist.h"
#include "stats/units.h"
#include "sys/env.h"
#include "workloads/http.h"

#define CMD "http"
#define SCHEMA TB_WL_HTTP_SCHEMA
#define MAX_HEADERS 64

/* A -H header as wrk takes it: "Name: value" (a colon, then one space); the
 * name is line[0..name_len). */
struct header {
    const char *line;
    size_t name_len;
};

struct http_opts {
    uint64_t threads, connections, duration_ms, timeout_ms;
    double rate;
    bool latency, u_latency, json;
    struct header headers[MAX_HEADERS]; /* distinct names, first position, last value */
    int nheaders;
    const char *url_text;
    const char *server_name, *cacert, *connect, *server_log, *hdr_log, *script;
    const char *const *args; /* the URL and what follows it */
    int nargs;
    tb_url url;
};

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f, "Usage: teebench http <options> <url>\n"
               "  Options:\n");
    cli_flags_help(f, c);
    fprintf(f, "\n"
               "  Numeric arguments may include a SI unit (1k, 1M, 1G)\n"
               "  Time arguments may include a time unit (2s, 2m, 2h, 500ms, 1.5s;\n"
               "  none: seconds)\n");
}

/* -H as wrk takes it: "Name: value" with exactly ": " after the name; anything else
 * is ignored (wrk drops it silently, teebench says so on stderr). A repeated name
 * replaces the earlier value (wrk: last wins) -- compared case-insensitively, where
 * wrk compares exactly (it sends `host: a` and its own `Host:` both). Returns -1
 * when the table is full. */
static int add_header(struct http_opts *o, const char *h)
{
    const char *colon = strchr(h, ':');
    size_t n = colon ? (size_t)(colon - h) : 0;
    if (!colon || colon[1] != ' ' || n == 0 || strpbrk(h, "\r\n") || strcspn(h, " \t") < n) {
        fprintf(stderr,
                "teebench: http: note: ignoring header \"%s\" (want \"Name: value\", as wrk)\n", h);
        return 0;
    }
    for (int i = 0; i < o->nheaders; i++) {
        if (o->headers[i].name_len == n && !strncasecmp(o->headers[i].line, h, n)) {
            o->headers[i].line = h;
            return 0;
        }
    }
    if (o->nheaders == MAX_HEADERS)
        return -1;
    o->headers[o->nheaders++] = (struct header){h, n};
    return 0;
}

/* -R: a positive number of requests/s, with wrk2's SI suffixes (2k, 1.5M). */
static int scan_rate(const char *s, double *rate)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return -1;
    if (*end) {
        const char *units = "kmg";
        const char *u = strchr(units, tolower((unsigned char)*end));
        if (!u || end[1])
            return -1;
        for (const char *k = units; k <= u; k++)
            v *= 1000.0;
    }
    if (!(v > 0) || v > 1e9)
        return -1;
    *rate = v;
    return 0;
}

struct http_flags {
    struct http_opts *o;
    bool version;
};

static int set_threads(void *args, const char *flag, const char *v, tb_err *err)
{
    struct http_opts *o = ((struct http_flags *)args)->o;
    (void)flag;
    if (tb_scan_metric(v, &o->threads) < 0 || o->threads > 10000)
        return tb_errf(err, "invalid thread count: %s", v);
    return 0;
}

static int set_connections(void *args, const char *flag, const char *v, tb_err *err)
{
    struct http_opts *o = ((struct http_flags *)args)->o;
    (void)flag;
    if (tb_scan_metric(v, &o->connections) < 0 || o->connections > 1000000)
        return tb_errf(err, "invalid connection count: %s", v);
    return 0;
}

static int set_duration(void *args, const char *flag, const char *v, tb_err *err)
{
    double sec;
    if (cli_opt_duration(flag, v, 0.001, 86400.0 * 7, &sec, err) < 0)
        return -1;
    ((struct http_flags *)args)->o->duration_ms = (uint64_t)llround(sec * 1000.0);
    return 0;
}

static int set_timeout(void *args, const char *flag, const char *v, tb_err *err)
{
    double sec;
    if (cli_opt_duration(flag, v, 0.001, 86400.0, &sec, err) < 0)
        return -1;
    ((struct http_flags *)args)->o->timeout_ms = (uint64_t)llround(sec * 1000.0);
    return 0;
}

static int set_header(void *args, const char *flag, const char *v, tb_err *err)
{
    (void)flag;
    if (add_header(((struct http_flags *)args)->o, v) < 0)
        return tb_errf(err, "too many headers (at most %d)", MAX_HEADERS);
    return 0;
}

static int set_rate(void *args, const char *flag, const char *v, tb_err *err)
{
    (void)flag;
    if (scan_rate(v, &((struct http_flags *)args)->o->rate) < 0)
        return tb_errf(err, "invalid rate (requests/s > 0, e.g. 2000 or 2k): %s", v);
    return 0;
}

/* The string flags, each into its field of the options. */
static int set_string(void *args, const char *flag, const char *v, tb_err *err)
{
    struct http_opts *o = ((struct http_flags *)args)->o;
    (void)err;
    const char **to = !strcmp(flag, "--script")        ? &o->script
                      : !strcmp(flag, "--hdr-log")     ? &o->hdr_log
                      : !strcmp(flag, "--server-name") ? &o->server_name
                      : !strcmp(flag, "--cacert")      ? &o->cacert
                      : !strcmp(flag, "--connect")     ? &o->connect
                                                       : &o->server_log;
    *to = v;
    return 0;
}

/* The switches: -L, -U (wrk2: also the corrected latency, so implies -L), -v. */
static int set_switch(void *args, const char *flag, const char *v, tb_err *err)
{
    struct http_flags *h = args;
    (void)v, (void)err;
    if (!strcmp(flag, "--version"))
        h->version = true;
    else if (!strcmp(flag, "--json"))
        h->o->json = true;
    else
        h->o->latency = true;
    if (!strcmp(flag, "--u-latency"))
        h->o->u_latency = true;
    return 0;
}

/* wrk's help layout: its own name column (the values' names aligned). */
static const cli_flag http_flags[] = {
    {.name = "connections",
     .shortc = 'c',
     .type = CLI_F_CALL,
     .arg = "N",
     .call = set_connections,
     .label = "-c, --connections <N>",
     .help = "Connections to keep open (default 10)"},
    {.name = "duration",
     .shortc = 'd',
     .type = CLI_F_CALL,
     .arg = "T",
     .call = set_duration,
     .label = "-d, --duration    <T>",
     .help = "Duration of test (default 10s)"},
    {.name = "threads",
     .shortc = 't',
     .type = CLI_F_CALL,
     .arg = "N",
     .call = set_threads,
     .label = "-t, --threads     <N>",
     .help = "Number of threads to use (default 2)"},
    {.name = "script",
     .shortc = 's',
     .type = CLI_F_CALL,
     .arg = "S",
     .call = set_string,
     .label = "-s, --script      <S>",
     .help = "Load Lua script file (wrk's scripting API)",
     .before = "\n"},
    {.name = "header",
     .shortc = 'H',
     .type = CLI_F_CALL,
     .arg = "H",
     .call = set_header,
     .label = "-H, --header      <H>",
     .help = "Add header to request (\"Name: value\"; a repeated\n"
             "name: the last wins; malformed ones are ignored)"},
    {.name = "latency",
     .shortc = 'L',
     .type = CLI_F_CALL,
     .call = set_switch,
     .label = "-L, --latency",
     .help = "Print latency statistics"},
    {.name = "timeout",
     .type = CLI_F_CALL,
     .arg = "T",
     .call = set_timeout,
     .label = "    --timeout     <T>",
     .help = "Socket/request timeout (default 2s)"},
    {.name = "version",
     .shortc = 'v',
     .type = CLI_F_CALL,
     .call = set_switch,
     .label = "-v, --version",
     .help = "Print version details"},
    {.name = "rate",
     .shortc = 'R',
     .type = CLI_F_CALL,
     .arg = "N",
     .call = set_rate,
     .label = "-R, --rate        <N>",
     .help = "Constant rate: N requests/s in total (2k = 2000); latency\n"
             "is measured from each request's intended send time",
     .before = "\n"},
    {.name = "u-latency",
     .shortc = 'U',
     .type = CLI_F_CALL,
     .call = set_switch,
     .label = "-U, --u-latency",
     .help = "With -R: also print the uncorrected latency (wrk2's\n"
             "--u_latency; implies --latency)"},
    CLI_ALIAS("u_latency", "u-latency"),
    {.name = "hdr-log",
     .type = CLI_F_CALL,
     .arg = "F",
     .call = set_string,
     .label = "    --hdr-log     <F>",
     .help = "Write the latency histograms to F in HdrHistogram's\n"
             "interval log format (.hlog)"},
    {.name = "json",
     .type = CLI_F_CALL,
     .call = set_switch,
     .label = "    --json",
     .help = "Print one JSON document instead of text"},
    {.name = "server-name",
     .type = CLI_F_CALL,
     .arg = "S",
     .call = set_string,
     .label = "    --server-name <S>",
     .help = "TLS server name (SNI and verified name)"},
    {.name = "cacert",
     .type = CLI_F_CALL,
     .arg = "F",
     .call = set_string,
     .label = "    --cacert      <F>",
     .help = "Verify the server certificate against CA file F"},
    {.name = "connect",
     .type = CLI_F_CALL,
     .arg = "H:P",
     .call = set_string,
     .label = "    --connect  <H:P>",
     .help = "Connect to H:P instead of the URL's host and port"},
    {.name = "server-log",
     .type = CLI_F_CALL,
     .arg = "F",
     .call = set_string,
     .label = "    --server-log  <F>",
     .help = "Compare the lines the server appends to its\n"
             "access log F with the requests completed"},
    {.name = "help", .shortc = 'h', .type = CLI_F_HELP, .hidden = 1},
    {0}};

const cli_cmd cli_http_cmd = {
    .name = CMD, .flags = http_flags, .usage = usage, .max_operands = -1, .col = 27, .indent = 4};

/* Returns 0 to run, 1 to exit 0 (help/version), or an exit code > 1 after an error line. */
static int parse(int argc, char **argv, struct http_opts *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 2;
    o->connections = 10;
    o->duration_ms = 10000;
    o->timeout_ms = 2000;
    struct http_flags h = {.o = o};
    int first, rc = cli_flags_parse(&cli_http_cmd, argc, argv, &h, &first);
    if (rc != CLI_FLAGS_GO)
        return rc == 0 ? 1 : rc;
    bool version = h.version;
    if (version) {
        printf("teebench http %s (wrk 4.x compatible) [epoll] %s\n", TEEBENCH_VERSION,
               OpenSSL_version(OPENSSL_VERSION));
        if (first == argc)
            return 1;
    }
    if (first == argc)
        return cli_fail_code(2, CMD, "missing URL (usage: teebench http <options> <url>)");
    if (first + 1 < argc && !o->script)
        return cli_fail_code(2, CMD,
                             "%s: unexpected argument (arguments after the URL go to a "
                             "-s script)",
                             argv[first + 1]);
    o->args = (const char *const *)argv + first; /* init(args): the URL, then the rest */
    o->nargs = argc - first;
    if (o->threads == 0 || o->duration_ms == 0)
        return cli_fail_code(2, CMD, "threads and duration must be > 0");
    if (o->connections == 0 || o->connections < o->threads)
        return cli_fail_code(2, CMD, "number of connections must be >= threads");
    if (o->u_latency && o->rate == 0)
        return cli_fail_code(2, CMD, "--u-latency needs -R/--rate");
    if (o->hdr_log && !*o->hdr_log)
        return cli_fail_code(2, CMD, "--hdr-log: needs a file name");
    tb_err e;
    o->url_text = argv[first];
    if (tb_url_parse(o->url_text, &o->url, &e) < 0)
        return cli_fail_code(2, CMD, "%s", e.msg);
    if (!o->url.tls && (o->cacert || o->server_name))
        return cli_fail_code(2, CMD, "--cacert and --server-name need an https:// URL");
    return 0;
}

/* The -H lines as the request builder takes them (hl has MAX_HEADERS entries). */
static size_t header_lines(const struct http_opts *o, const char **hl)
{
    for (int i = 0; i < o->nheaders; i++)
        hl[i] = o->headers[i].line;
    return (size_t)o->nheaders;
}

/* --connect HOST:PORT ([v6]:port accepted). */
static int resolve_target(const struct http_opts *o, tb_addr *a, tb_err *e)
{
    if (!o->connect)
        return tb_addr_resolve(o->url.host, o->url.port, a, e);
    char host[300];
    const char *colon = strrchr(o->connect, ':');
    if (!colon || colon == o->connect || !colon[1] || strlen(o->connect) >= sizeof host)
        return tb_errf(e, "--connect: want HOST:PORT, got %s", o->connect);
    size_t hl = (size_t)(colon - o->connect);
    memcpy(host, o->connect, hl);
    host[hl] = 0;
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = 0;
    }
    long port;
    if (tb_num_long(colon + 1, 1, 65535, &port) != TB_NUM_OK)
        return tb_errf(e, "--connect: bad port in %s", o->connect);
    return tb_addr_resolve(host, colon + 1, a, e);
}

/* ---- text output, wrk 4.x layout ---- */

typedef char *(*fmt_fn)(long double, char *);

/* wrk's print_units: the value right-aligned in width, unit suffixes eat the padding. */
static void print_units(long double n, fmt_fn fmt, int width)
{
    char msg[TB_UNITS_MAX];
    fmt(n, msg);
    int len = (int)strlen(msg), pad = 2;
    if (len > 0 && ((msg[len - 1] >= 'a' && msg[len - 1] <= 'z') ||
                    (msg[len - 1] >= 'A' && msg[len - 1] <= 'Z')))
        pad--;
    if (len > 1 && ((msg[len - 2] >= 'a' && msg[len - 2] <= 'z') ||
                    (msg[len - 2] >= 'A' && msg[len - 2] <= 'Z')))
        pad--;
    width -= pad;
    printf("%*.*s%.*s", width, width, msg, pad, "  ");
}

/* scale converts the histogram's unit to the printed one (ns -> us: 1e-3). */
static void print_stats(const char *name, const tb_hist *h, fmt_fn fmt, double scale)
{
    double mean = tb_hist_mean(h), sd = tb_hist_stdev(h, mean);
    printf("    %-10s", name);
    print_units((long double)mean * scale, fmt, 8);
    print_units((long double)sd * scale, fmt, 10);
    print_units((long double)h->max * scale, fmt, 9);
    printf("%8.2Lf%%\n", (long double)tb_hist_within(h, mean, sd, 1));
}

static void print_distribution(const char *title, const tb_hist *h)
{
    static const double ps[] = {50, 75, 90, 99};
    printf("  %s\n", title);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        printf("%7.0Lf%%", (long double)ps[i]);
        print_units((long double)tb_hist_percentile(h, ps[i]) / 1000.0L, tb_fmt_time_us, 10);
        printf("\n");
    }
}

/* wrk2's --latency block for one histogram (ns): 8 percentiles, then HdrHistogram's
 * percentile spectrum in ms (5 steps per halving) with its footer, then wrk2's rule. */
static void print_hdr_latency(const tb_hist *h, const char *what)
{
    static const double ps[] = {50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0};
    printf("  Latency Distribution (HdrHistogram - %s)\n", what);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        printf("%7.3Lf%%", (long double)ps[i]);
        print_units((long double)tb_hdr_value_at_percentile(h, ps[i]) / 1000.0L, tb_fmt_time_us,
                    10);
        printf("\n");
    }
    printf("\n  Detailed Percentile spectrum:\n");
    tb_buf b = {0};
    if (tb_hdr_spectrum(h, 1e6, 5, &b) == 0)
        fwrite(b.p, 1, b.len, stdout);
    tb_buf_clear(&b);
    printf("----------------------------------------------------------\n");
}

struct log_check {
    bool on;
    uint64_t before, after;
    bool ok;
};

static void print_text(const struct http_opts *o, const tb_load_result *r,
                       const struct log_check *lc)
{
    char b1[TB_UNITS_MAX], b2[TB_UNITS_MAX];
    long double runtime_s = (long double)r->runtime_ns / 1e9L;
    printf("  Thread Stats%6s%11s%8s%12s\n", "Avg", "Stdev", "Max", "+/- Stdev");
    print_stats("Latency", &r->latency, tb_fmt_time_us, 1e-3);
    print_stats("Req/Sec", &r->rate, tb_fmt_metric, 1.0);
    if (o->rate > 0) { /* wrk2's report */
        if (o->latency)
            print_hdr_latency(&r->latency, "Recorded Latency");
        if (o->u_latency) {
            printf("\n");
            print_hdr_latency(&r->latency_uncorrected,
                              "Uncorrected Latency (measured without taking delayed starts into "
                              "account)");
        }
    } else if (o->latency) {
        print_distribution("Latency Distribution", &r->latency);
    }
    printf("  %llu requests in %s, %sB read\n", (unsigned long long)r->completed,
           tb_fmt_time_us((long double)r->runtime_ns / 1000.0L, b1),
           tb_fmt_binary((long double)r->bytes, b2));
    const tb_load_errors *e = &r->errors;
    if (e->connect || e->read || e->write || e->timeout)
        printf("  Socket errors: connect %llu, read %llu, write %llu, timeout %llu\n",
               (unsigned long long)e->connect, (unsigned long long)e->read,
               (unsigned long long)e->write, (unsigned long long)e->timeout);
    if (e->status)
        printf("  Non-2xx or 3xx responses: %llu\n", (unsigned long long)e->status);
    printf("Requests/sec: %9.2Lf\n", runtime_s > 0 ? (long double)r->completed / runtime_s : 0.0L);
    printf("Transfer/sec: %10sB\n",
           tb_fmt_binary(runtime_s > 0 ? (long double)r->bytes / runtime_s : 0.0L, b1));
    if (lc->on)
        printf("Server log: %llu new lines for %llu completed requests (%llu within the run, "
               "%llu after it) - %s\n",
               (unsigned long long)(lc->after - lc->before),
               (unsigned long long)(r->completed + r->drained), (unsigned long long)r->completed,
               (unsigned long long)r->drained, lc->ok ? "match" : "MISMATCH");
}

/* ---- JSON output: the http workload's document (workloads/http) ---- */

static int print_json(const struct http_opts *o, const tb_load_result *r, const tb_hist *raw,
                      uint64_t wrk_interval_ns, const struct log_check *lc, const char *started,
                      const char *target, const char *error)
{
    const char *hl[MAX_HEADERS];
    tb_wl_http_run run = {.url = o->url_text,
                          .threads = o->threads,
                          .connections = o->connections,
                          .duration_s = o->duration_ms / 1000.0,
                          .timeout_s = o->timeout_ms / 1000.0,
                          .rate_rps = o->rate,
                          .headers = hl,
                          .n_headers = header_lines(o, hl),
                          .latency = o->latency,
                          .u_latency = o->u_latency,
                          .server_name = o->server_name,
                          .cacert = o->cacert,
                          .connect = o->connect,
                          .server_log = o->server_log,
                          .target_address = target,
                          .tls = o->url.tls,
                          .started_at = started,
                          .r = r,
                          .raw = raw,
                          .wrk_interval_ns = wrk_interval_ns,
                          .log_on = lc->on,
                          .log_before = lc->before,
                          .log_after = lc->after,
                          .log_match = lc->ok,
                          .error = error};
    json_t *doc = tb_wl_http_doc(&run);
    if (!doc)
        return -1;
    return cli_json_print(CMD, cli_json_envelope(TB_WL_HTTP_SCHEMA, doc, 1));
}

/* --hdr-log: HdrHistogram's interval log with one interval, the whole run: the
 * latency as printed (corrected) untagged, the uncorrected one tagged. */
static int write_hdr_log(const struct http_opts *o, const tb_load_result *r, const tb_hist *raw,
                         double start_epoch, tb_err *e)
{
    tb_buf b = {0};
    double len = (double)r->runtime_ns / 1e9;
    int rc = tb_hdr_log_header(&b,
                               o->rate > 0 ? "teebench http -R: latency in ns from the intended "
                                             "send time; Tag=uncorrected from the actual one"
                                           : "teebench http: latency in ns with wrk's closed-loop "
                                             "correction; Tag=uncorrected without it",
                               start_epoch) < 0
                 ? tb_errf(e, "out of memory")
                 : 0;
    if (rc == 0)
        rc = tb_hdr_log_interval(&b, NULL, 0.0, len, &r->latency, 1e6, e);
    if (rc == 0)
        rc = tb_hdr_log_interval(&b, "uncorrected", 0.0, len,
                                 o->rate > 0 ? &r->latency_uncorrected : raw, 1e6, e);
    if (rc == 0)
        rc = tb_file_write_atomic(o->hdr_log, b.p, b.len, e);
    tb_buf_clear(&b);
    return rc;
}

/* A failure after the flags were read: with --json also a JSON document with
 * "error" on stdout (a script reading stdout gets a document, not nothing). */
__attribute__((format(printf, 2, 3))) static int fail(const struct http_opts *o, const char *fmt,
                                                      ...)
{
    char msg[TB_ERR_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (o->json)
        return cli_json_fail(1, CMD, SCHEMA, "%s", msg);
    return cli_fail(CMD, "%s", msg);
}

/* What a run holds from its setup to its end; run_free frees it. */
struct http_run {
    tb_load_opts lo;
    char target[80];
    tb_buf req;
    tb_script *script;
    tb_tls_ctx *tls;
    struct log_check lc;
    char started[32];
    double started_epoch;
};

static void run_free(struct http_run *h)
{
    tb_script_free(h->script);
    tb_tls_ctx_free(h->tls);
    tb_buf_clear(&h->req);
    h->script = NULL;
    h->tls = NULL;
}

/* Everything before the run: the target, the request, the script, TLS, the target
 * reachable, the server log's length, the engine's options. 0, or -1 with e (what
 * was made is in h). */
static int prepare(const struct http_opts *o, struct http_run *h, tb_err *e)
{
    tb_load_opts *lo = &h->lo;
    if (resolve_target(o, &lo->addr, e) < 0)
        return -1;
    tb_addr_format(&lo->addr, h->target, sizeof h->target);
    const char *hl[MAX_HEADERS];
    size_t nhl = header_lines(o, hl);
    if (tb_wl_http_request(&o->url, hl, nhl, &h->req) < 0)
        return tb_errf(e, "building the request: out of memory");
    if (o->script) {
        tb_script_target st = {.scheme = o->url.tls ? "https" : "http",
                               .host = o->url.host,
                               .port = o->url.port_explicit ? o->url.port : NULL,
                               .path = o->url.path,
                               .headers = hl,
                               .nheaders = (int)nhl,
                               .args = o->args,
                               .nargs = o->nargs,
                               .addr = h->target};
        if (!(h->script = tb_script_new(o->script, (uint32_t)o->threads, &st, e)))
            return -1;
    }
    if (o->url.tls && !(h->tls = tb_tls_client_ctx_new(o->cacert, e)))
        return -1;
    tb_fd_limit_raise(o->connections + o->threads * 2 + 256);
    if (tb_sock_connect_wait(&lo->addr, o->timeout_ms > 5000 ? 5000 : (int)o->timeout_ms, e) < 0)
        return -1;
    h->lc.on = o->server_log != NULL;
    if (h->lc.on && tb_log_count_lines(o->server_log, &h->lc.before, e) < 0)
        return tb_err_wrap(e, "--server-log");
    lo->tls = h->tls;
    lo->sni = o->server_name ? o->server_name : o->url.host;
    lo->request = h->req.p;
    lo->request_len = h->req.len;
    if (h->script) {
        tb_script_first_request(h->script, &lo->request, &lo->request_len);
        lo->pipeline = tb_script_pipeline(h->script);
        lo->hooks = tb_script_hooks(h->script);
    }
    lo->threads = (uint32_t)o->threads;
    lo->connections = (uint32_t)o->connections;
    lo->duration_ns = o->duration_ms * 1000000ULL;
    lo->timeout_ns = o->timeout_ms * 1000000ULL;
    lo->drain_ns = lo->timeout_ns < 2000000000ULL ? lo->timeout_ns : 2000000000ULL;
    lo->rate = o->rate;
    lo->stop_flag = cli_stop_flag();
    return 0;
}

/* The start time, and wrk's first lines (text only). */
static void start_banner(const struct http_opts *o, struct http_run *h)
{
    struct timespec started_ts;
    clock_gettime(CLOCK_REALTIME, &started_ts);
    h->started_epoch = (double)started_ts.tv_sec + (double)started_ts.tv_nsec / 1e9;
    tb_utc_iso8601((int64_t)started_ts.tv_sec, h->started, sizeof h->started);
    char dur[TB_UNITS_MAX];
    if (o->duration_ms < 1000) /* wrk has no sub-second durations: say it exactly */
        snprintf(dur, sizeof dur, "%llums", (unsigned long long)o->duration_ms);
    else
        tb_fmt_time_s((long double)o->duration_ms / 1000.0L, dur);
    if (!o->json) {
        printf("Running %s test @ %s\n", dur, o->url_text);
        printf("  %llu threads and %llu connections\n", (unsigned long long)o->threads,
               (unsigned long long)o->connections);
        fflush(stdout);
    }
}

/* The run, SIGINT ending it early; TLS and the request freed after it. 0 and *r
 * (the caller clears it), or -1 with e. */
static int run_load(struct http_run *h, tb_load_result *r, tb_err *e)
{
    cli_stop_catch_sigint(NULL);
    int rc = tb_load_run(&h->lo, r, e);
    signal(SIGINT, SIG_DFL);
    tb_tls_ctx_free(h->tls);
    h->tls = NULL;
    tb_buf_clear(&h->req);
    if (rc == 0 && r->hook_failed) {
        snprintf(e->msg, sizeof e->msg, "script: %s", tb_script_error(h->script));
        tb_load_result_clear(r);
        rc = -1;
    }
    return rc;
}

/* The run's verdict into why (empty: it passed; exit 1 after the report): no
 * completed request (responses that only came in while draining do not count), any
 * socket error (wrk's "Socket errors" line: connect, read, write, timeout), or a
 * server log that disagrees. Non-2xx responses are answers and do not fail the run.
 * setup: the note on a slow connection setup, or empty. */
static void verdict(const struct http_opts *o, const tb_load_result *r, const struct log_check *lc,
                    char *why, size_t wn, char *setup, size_t sn)
{
    why[0] = setup[0] = 0;
    bool slow_setup = r->runtime_ns && !r->stopped_early && r->setup_ns * 10 >= r->runtime_ns;
    if (slow_setup)
        snprintf(setup, sn,
                 "setting up the connections took %.2f s of the %.2f s run (%llu of %llu "
                 "established)",
                 (double)r->setup_ns / 1e9, (double)r->runtime_ns / 1e9,
                 (unsigned long long)r->connections_up, (unsigned long long)o->connections);
    if (r->completed == 0)
        snprintf(why, wn, "no request completed%s%s%s%s%s",
                 r->drained ? " (responses came only after the end of the run)" : "",
                 r->first_error[0] ? ": " : "", r->first_error,
                 slow_setup && !r->first_error[0] ? "; " : "",
                 slow_setup && !r->first_error[0] ? setup : "");
    else if (r->errors.connect || r->errors.read || r->errors.write || r->errors.timeout)
        snprintf(why, wn, "socket errors: connect %llu, read %llu, write %llu, timeout %llu%s%s",
                 (unsigned long long)r->errors.connect, (unsigned long long)r->errors.read,
                 (unsigned long long)r->errors.write, (unsigned long long)r->errors.timeout,
                 r->first_error[0] ? "; first: " : "", r->first_error);
    else if (lc->on && !lc->ok)
        snprintf(why, wn, "server log: %llu new lines for %llu completed requests",
                 (unsigned long long)(lc->after - lc->before),
                 (unsigned long long)(r->completed + r->drained));
}

/* The report: the JSON document, or wrk's text and then the script's done(). A
 * failing done() becomes the verdict when there is none yet. 0, or -1. */
static int report(const struct http_opts *o, struct http_run *h, tb_load_result *r,
                  const tb_hist *raw, uint64_t interval, char *why, size_t wn)
{
    if (o->json)
        return print_json(o, r, raw, interval, &h->lc, h->started, h->target, why[0] ? why : NULL);
    print_text(o, r, &h->lc);
    if (h->script && tb_script_has_done(h->script)) { /* wrk: after the report */
        tb_script_summary sum = {.duration_us = r->runtime_ns / 1000,
                                 .requests = r->completed,
                                 .bytes = r->bytes,
                                 .connect = r->errors.connect,
                                 .read = r->errors.read,
                                 .write = r->errors.write,
                                 .status = r->errors.status,
                                 .timeout = r->errors.timeout};
        tb_err e;
        fflush(stdout);
        if (tb_script_done(h->script, &sum, &r->latency, &r->rate, &e) < 0 && !why[0])
            snprintf(why, wn, "%s", e.msg);
    }
    fflush(stdout);
    return 0;
}

/* After the run: wrk's closed-loop correction (see stats/hist.h; the raw copy kept
 * for --json), the server log, --hdr-log, the report, the verdict. An exit code. */
static int finish(const struct http_opts *o, struct http_run *h, tb_load_result *r)
{
    tb_err e;
    tb_hist raw;
    uint64_t interval = 0;
    if (tb_hist_init(&raw, TB_HIST_DEFAULT_MAX, &e) < 0)
        return fail(o, "%s", e.msg);
    tb_hist_merge(&raw, &r->latency, NULL);
    if (o->rate == 0)
        interval = tb_wl_http_correct(r, o->connections);
    struct log_check *lc = &h->lc;
    int rc = 0;
    if (lc->on) {
        if (tb_wl_http_log_settled(o->server_log, &lc->after, &e) < 0)
            rc = fail(o, "--server-log: %s", e.msg);
        lc->ok = lc->after >= lc->before && lc->after - lc->before == r->completed + r->drained;
    }
    if (rc == 0 && o->hdr_log && write_hdr_log(o, r, &raw, h->started_epoch, &e) < 0)
        rc = fail(o, "--hdr-log: %s", e.msg);
    char why[TB_ERR_MAX + 300] = "", setup[160] = "";
    if (rc == 0) {
        verdict(o, r, lc, why, sizeof why, setup, sizeof setup);
        rc = report(o, h, r, &raw, interval, why, sizeof why);
    }
    if (rc == 0 && why[0])
        rc = cli_fail(CMD, "%s", why);
    if (rc == 0 && r->unfinished > 0 && !o->json)
        fprintf(stderr,
                "teebench: http: note: %llu requests were still in flight %.1f s after "
                "the end (not counted)\n",
                (unsigned long long)r->unfinished, (double)h->lo.drain_ns / 1e9);
    /* Setting up the connections is part of the run (as in wrk): say so when it took
     * a noticeable share of it (a tenth or more). */
    if (rc == 0 && !o->json && setup[0])
        fprintf(stderr, "teebench: http: note: %s\n", setup);
    tb_hist_free(&raw);
    return rc;
}

int cmd_http(int argc, char **argv)
{
    struct http_opts o;
    int rc = parse(argc, argv, &o);
    if (rc == 1)
        return 0;
    if (rc != 0)
        return rc;
    tb_err e;
    struct http_run h = {0};
    tb_load_result r;
    if (prepare(&o, &h, &e) < 0) {
        run_free(&h);
        return fail(&o, "%s", e.msg);
    }
    start_banner(&o, &h);
    if (run_load(&h, &r, &e) < 0) {
        run_free(&h);
        return fail(&o, "%s", e.msg);
    }
    rc = finish(&o, &h, &r);
    tb_load_result_clear(&r);
    run_free(&h);
    return rc;
}
