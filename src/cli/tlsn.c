/* cli/tlsn: `teebench tlsn session` -- one TLSNotary session (tlsn/session) in
 * headless Chromium, printed as the bench harness's KEY=value lines, so that
 * `teebench bench tlsn` runs it as its client, one process a run.
 * With --env the mode, target and limits come from the harness's variables
 * (BENCHMARK_MODE, TARGET_HOST, TARGET_PORT, TARGET_SERVER_NAME, TARGET_URI,
 * MAX_SENT_DATA, MAX_RECV_DATA, USE_FIXTURE_CA, FIXTURE_CA); flags win.
 * SIGINT/SIGTERM set the stop flag (cli/stop's): the session stops its Chromium
 * processes and fails. */
#include "cli/cli.h"
#include "cli/flags.h"

#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/file.h"
#include "cli/opt.h"
#include "cli/stop.h"
#include "tlsn/session.h"
#include "tlsn/wasm.h"

/* The hub's notes go to stderr: the session's log (the harness keeps it per run). */
static void log_line(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "tlsn: %s\n", line);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void usage_session(FILE *f, const cli_cmd *c)
{
    fprintf(f,
            "usage: teebench tlsn session [options]\n"
            "One TLSNotary session (tlsn-wasm %s): the prover and the verifier, each in its own\n"
            "headless Chromium, run MPC-TLS with the target through teebench's relay and\n"
            "WebSocket-to-TCP proxy, then the prover reveals the transcript and the verifier\n"
            "verifies it. Prints KEY=value lines (the bench harness's client protocol).\n",
            TB_TLSN_WASM_VERSION);
    cli_flags_help(f, c);
}

static int set_target(const char *v, tb_tlsn_session_config *c, tb_err *err)
{
    const char *colon = strrchr(v, ':');
    long port;
    if (!colon || colon == v || (size_t)(colon - v) >= sizeof c->target_host)
        return tb_errf(err, "--target %s: HOST:PORT", v);
    if (cli_opt_long("--target", colon + 1, 1, 65535, &port, err) < 0)
        return -1;
    snprintf(c->target_host, sizeof c->target_host, "%.*s", (int)(colon - v), v);
    c->target_port = (int)port;
    return 0;
}

static int set_mode(const char *m, tb_tlsn_session_config *c, tb_err *err)
{
    if (!strcmp(m, "no_tee"))
        c->tee = c->verify = 0;
    else if (!strcmp(m, "tee_no_verify"))
        c->tee = 1, c->verify = 0;
    else if (!strcmp(m, "tee_verify"))
        c->tee = c->verify = 1;
    else
        return tb_errf(err, "--mode %s: no_tee, tee_no_verify or tee_verify", m);
    return 0;
}

/* The harness's variables (bench/run's client environment). */
static int from_env(tb_tlsn_session_config *c, tb_err *err)
{
    const char *v;
    long n;
    if ((v = getenv("BENCHMARK_MODE")) && v[0] && set_mode(v, c, err) < 0)
        return -1;
    if ((v = getenv("TARGET_HOST")) && v[0])
        snprintf(c->target_host, sizeof c->target_host, "%s", v);
    if ((v = getenv("TARGET_PORT")) && v[0]) {
        if (cli_opt_long("TARGET_PORT", v, 1, 65535, &n, err) < 0)
            return -1;
        c->target_port = (int)n;
    }
    if ((v = getenv("TARGET_SERVER_NAME")) && v[0])
        snprintf(c->server_name, sizeof c->server_name, "%s", v);
    if ((v = getenv("TARGET_URI")) && v[0])
        snprintf(c->uri, sizeof c->uri, "%s", v);
    if ((v = getenv("MAX_SENT_DATA")) && v[0]) {
        if (cli_opt_long("MAX_SENT_DATA", v, 1, 1L << 30, &c->max_sent_data, err) < 0)
            return -1;
    }
    if ((v = getenv("MAX_RECV_DATA")) && v[0]) {
        if (cli_opt_long("MAX_RECV_DATA", v, 1, 1L << 30, &c->max_recv_data, err) < 0)
            return -1;
    }
    v = getenv("USE_FIXTURE_CA");
    const char *ca = getenv("FIXTURE_CA");
    if (v && (!strcmp(v, "true") || !strcmp(v, "1")) && ca && ca[0])
        snprintf(c->fixture_ca, sizeof c->fixture_ca, "%s", ca);
    return 0;
}

static void print_ms(const char *key, double v)
{
    if (v >= 0)
        printf("%s=%.3f\n", key, v);
}

static void print_result(const tb_tlsn_session_config *c, const tb_tlsn_session_result *r)
{
    const tb_tlsn_hub_stats *h = &r->hub;
    json_t *po = json_object_get(r->out[TB_TLSN_PROVER], "output");
    json_t *vo = json_object_get(r->out[TB_TLSN_VERIFIER], "output");
    printf("TLSN_WASM_VERSION=%s\n", TB_TLSN_WASM_VERSION);
    printf("TLSN_THREADS=%d\n", c->threads);
    printf("TLSN_SESSION=%s\n", r->session);
    printf("ENABLE_TEE_ATTESTATION=%d\n", c->tee);
    if (r->substituted)
        printf("TRUST_NOTE=\"%s\"\n", TB_TLSN_SUBSTITUTED_NOTE);
    /* the MPC session, and in TEE modes the quote's arrival: the notarization */
    print_ms("NOTARIZATION_MS", r->notarization_ms);
    if (r->out[TB_TLSN_PROVER] && r->out[TB_TLSN_VERIFIER])
        print_ms("TOTAL_E2E_MS", (double)r->wall_ms);
    if (c->verify)
        print_ms("TDX_VERIFY_MS", r->tdx_verify_ms);
    print_ms("INIT_MS", tb_tlsn_session_phase(r, TB_TLSN_PROVER, "init"));
    print_ms("SETUP_MS", tb_tlsn_session_phase(r, TB_TLSN_PROVER, "setup"));
    print_ms("REQUEST_MS", tb_tlsn_session_phase(r, TB_TLSN_PROVER, "request"));
    print_ms("REVEAL_MS", tb_tlsn_session_phase(r, TB_TLSN_PROVER, "reveal"));
    print_ms("VERIFY_MS", tb_tlsn_session_phase(r, TB_TLSN_VERIFIER, "verify"));
    if (c->tee) {
        print_ms("TEE_MS", tb_tlsn_session_phase(r, TB_TLSN_PROVER, "tee"));
        print_ms("QUOTE_MS", r->quote_ms);
        if (r->quote_len)
            printf("QUOTE_BYTES=%zu\n", r->quote_len);
        printf("TEE_KIND=%s%s\n", tb_tee_name(c->tee_kind), r->simulated ? " (SIMULATED)" : "");
    }
    printf("BYTES_PROVER_TO_VERIFIER=%llu\n",
           (unsigned long long)h->relay_bytes[TB_TLSN_MPC][TB_TLSN_PROVER]);
    printf("BYTES_VERIFIER_TO_PROVER=%llu\n",
           (unsigned long long)h->relay_bytes[TB_TLSN_MPC][TB_TLSN_VERIFIER]);
    printf("BYTES_TEE_CHANNEL=%llu\n",
           (unsigned long long)(h->relay_bytes[TB_TLSN_TEE][0] + h->relay_bytes[TB_TLSN_TEE][1]));
    printf("BYTES_TO_TARGET=%llu\nBYTES_FROM_TARGET=%llu\n", (unsigned long long)h->proxy_to_target,
           (unsigned long long)h->proxy_from_target);
    printf("PROVER_CPU_MS=%.0f\nVERIFIER_CPU_MS=%.0f\n", r->cpu_ms[0], r->cpu_ms[1]);
    printf("PROVER_PEAK_RSS_MIB=%.1f\nVERIFIER_PEAK_RSS_MIB=%.1f\n", r->peak_rss_mib[0],
           r->peak_rss_mib[1]);
    json_t *status = json_object_get(po, "status");
    if (json_is_integer(status))
        printf("TARGET_STATUS=%lld\n", (long long)json_integer_value(status));
    const char *sn = json_string_value(json_object_get(vo, "server_name"));
    if (sn)
        printf("VERIFIED_SERVER_NAME=%s\n", sn);
    json_t *rl = json_object_get(vo, "recv_len");
    if (json_is_integer(rl))
        printf("VERIFIED_RECV_BYTES=%lld\n", (long long)json_integer_value(rl));
    /* what the verifier verified it received from the server, whole (max_recv_data) */
    const char *recv = json_string_value(json_object_get(vo, "recv"));
    if (recv) {
        size_t n = strlen(recv);
        char *b = malloc(4 * ((n + 2) / 3) + 1);
        if (b) {
            EVP_EncodeBlock((unsigned char *)b, (const unsigned char *)recv, (int)n);
            printf("VERIFIED_RECV_BASE64=%s\n", b);
        }
        free(b);
    }
}

typedef struct session_args {
    tb_tlsn_session_config c;
    const char *out_json, *work;
    int env, verbose;
} session_args;

static int flag_mode(void *args, const char *flag, const char *v, tb_err *err)
{
    (void)flag;
    return set_mode(v, &((session_args *)args)->c, err);
}

static int flag_target(void *args, const char *flag, const char *v, tb_err *err)
{
    (void)flag;
    return set_target(v, &((session_args *)args)->c, err);
}

static int flag_uri(void *args, const char *flag, const char *v, tb_err *err)
{
    session_args *a = args;
    if (v[0] != '/')
        return tb_errf(err, "%s %s: a path starting with /", flag, v);
    snprintf(a->c.uri, sizeof a->c.uri, "%s", v);
    return 0;
}

static int flag_tee(void *args, const char *flag, const char *v, tb_err *err)
{
    session_args *a = args;
    if (tb_tee_parse(v, &a->c.tee_kind) < 0 || tb_tee_family_of(a->c.tee_kind) != TB_TEE_FAMILY_TDX)
        return tb_errf(err, "%s %s: sim or tdx", flag, v);
    return 0;
}

/* The timeouts are whole seconds in the config. */
static int flag_startup(void *args, const char *flag, const char *v, tb_err *err)
{
    double d;
    if (cli_opt_duration(flag, v, 1, 3600, &d, err) < 0)
        return -1;
    ((session_args *)args)->c.startup_timeout_s = (int)d;
    return 0;
}

static int flag_phase(void *args, const char *flag, const char *v, tb_err *err)
{
    double d;
    if (cli_opt_duration(flag, v, 1, 86400, &d, err) < 0)
        return -1;
    ((session_args *)args)->c.phase_timeout_s = (int)d;
    return 0;
}

static const cli_flag session_flags[] = {
    CLI_CALL("mode", 0, flag_mode, "no_tee|tee_no_verify|tee_verify", "(no_tee)"),
    CLI_CALL("target", 0, flag_target, "HOST:PORT", "TCP target (127.0.0.1:4000)"),
    CLI_BUF("server-name", session_args, c.server_name, "NAME", "SNI and Host (test-server.io)"),
    CLI_CALL("uri", 0, flag_uri, "PATH", "(/formats/json?size=4)"),
    CLI_BUF("fixture-ca", session_args, c.fixture_ca, "FILE",
            "the target's CA: substituted for one root in the\n"
            "wasm's compiled-in trust store (labelled)"),
    CLI_INT("threads", 0, session_args, c.threads, 1, 64, "N", "threads per party (2)"),
    CLI_LONG("max-sent-data", 0, session_args, c.max_sent_data, 1, 1L << 30, "N", "(4096)"),
    CLI_LONG("max-recv-data", 0, session_args, c.max_recv_data, 1, 1L << 30, "N", "(16384)"),
    CLI_CALL("tee", 0, flag_tee, "sim|tdx", "the TEE message's quote source (sim: SIMULATED)"),
    CLI_BUF("sim-dir", session_args, c.sim_dir, "DIR", "the SIMULATED provider's state"),
    CLI_BUF("collateral", session_args, c.collateral, "FILE",
            "verifying a real quote (tee_verify, --tee tdx)"),
    CLI_BUF("pccs", session_args, c.pccs, "URL", "the same, from a PCCS"),
    CLI_BUF("wasm", session_args, c.wasm_dir, "DIR",
            "the tlsn-wasm package (~/.cache/teebench/tlsn-wasm/<version>/package)"),
    CLI_BUF("chromium", session_args, c.chromium, "PATH", "(chromium)"),
    CLI_STR("work-dir", 0, session_args, work, "DIR",
            "profiles and Chromium logs (a new temporary one)"),
    CLI_CALL("startup-timeout", 0, flag_startup, "DUR",
             "until a page asks for its configuration, and until\n"
             "its peer connects to the relay (60s)"),
    CLI_CALL("phase-timeout", 0, flag_phase, "DUR", "each phase (900s)"),
    CLI_STR("verifier-output", 0, session_args, out_json, "FILE",
            "the verifier's verify() output as JSON"),
    CLI_BOOL("env", 0, session_args, env, "mode, target and limits from the harness's variables"),
    CLI_BOOL("verbose", 0, session_args, verbose, "the relay's and the proxy's events on stderr"),
    {.name = "help", .shortc = 'h', .type = CLI_F_HELP, .hidden = 1},
    {0}};

const cli_cmd cli_tlsn_session_cmd = {.name = "tlsn session",
                                      .flags = session_flags,
                                      .usage = usage_session,
                                      .max_operands = 0,
                                      .col = 28};

static int cmd_session(int argc, char **argv)
{
    session_args a = {0};
    tb_tlsn_session_config_defaults(&a.c);
    tb_err err = {{0}};
    /* --env first: flags override the harness's variables */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--env"))
            a.env = 1;
    if (a.env && from_env(&a.c, &err) < 0)
        return cli_fail_code(2, "tlsn session", "%s", err.msg);
    int first, done = cli_flags_parse(&cli_tlsn_session_cmd, argc, argv, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    tb_tlsn_session_config c = a.c;
    const char *out_json = a.out_json, *work = a.work;
    int verbose = a.verbose;
    if (!c.wasm_dir[0] && tb_tlsn_wasm_default_dir(c.wasm_dir, sizeof c.wasm_dir, &err) < 0)
        return cli_fail("tlsn session", "%s", err.msg);
    char chromium[sizeof c.chromium];
    if (tb_tlsn_find_chromium(c.chromium, chromium, sizeof chromium, &err) < 0)
        return cli_fail("tlsn session", "%s", err.msg);
    snprintf(c.chromium, sizeof c.chromium, "%s", chromium);
    char tmp[PATH_MAX] = "";
    if (work) {
        snprintf(c.work_dir, sizeof c.work_dir, "%s", work);
        if (tb_mkdirs(work, &err) < 0)
            return cli_fail("tlsn session", "--work-dir: %s", err.msg);
    } else {
        const char *t = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/teebench-tlsn-XXXXXX", t && t[0] ? t : "/tmp");
        if (!mkdtemp(tmp))
            return cli_fail("tlsn session", "%s: cannot make a work directory", tmp);
        snprintf(c.work_dir, sizeof c.work_dir, "%s", tmp);
    }
    cli_stop_catch(NULL, NULL);
    if (verbose)
        c.log = log_line;
    tb_tlsn_session_result r;
    int rc = tb_tlsn_session_run(&c, cli_stop_flag(), &r, &err);
    print_result(&c, &r);
    fflush(stdout);
    if (out_json && r.out[TB_TLSN_VERIFIER]) {
        json_t *vo = json_object_get(r.out[TB_TLSN_VERIFIER], "output");
        char *txt = json_dumps(vo, JSON_INDENT(2));
        tb_err werr;
        if (!txt || tb_file_write_atomic(out_json, txt, strlen(txt), &werr) < 0)
            fprintf(stderr, "teebench: tlsn session: --verifier-output %s: %s\n", out_json,
                    txt ? werr.msg : "out of memory");
        free(txt);
    }
    tb_tlsn_session_result_clear(&r);
    if (tmp[0])
        nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS); /* our own temporary directory */
    if (rc < 0)
        return cli_fail("tlsn session", "%s", err.msg);
    return 0;
}

int cmd_tlsn(int argc, char **argv)
{
    static const char *const subs[] = {"session", NULL};
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: teebench tlsn session [options]\n"
                "The real TLSNotary protocol (tlsn-wasm %s in headless Chromium); the\n"
                "benchmark of its three modes is `teebench bench tlsn`.\n",
                TB_TLSN_WASM_VERSION);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "session"))
        return cmd_session(argc - 1, argv + 1);
    return cli_unknown_subcommand("tlsn", argv[1], subs);
}
