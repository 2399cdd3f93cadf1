/* cli/notary: `teebench notary serve` (the notary service) and
 * `teebench notary check FILE` (offline check of a saved attestation document).
 * serve blocks SIGINT/SIGTERM/SIGHUP in every thread and waits for them with
 * sigwait in the main thread, so no signal flag (global state) is needed:
 * SIGHUP reads --api-keys again (a bad file keeps the keys in use), the others
 * stop the notary. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/sha.h>

#include "base/buf.h"
#include "base/clock.h"
#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "notary/auth.h"
#include "notary/check.h"
#include "notary/client.h"
#include "notary/doc.h"
#include "notary/evidence.h"
#include "notary/server.h"
#include "notary/target.h"
#include "notary/tee.h"
#include "base/fdlimit.h"
#include "base/hex.h"

#define MAX_CA 16

static void serve_usage(FILE *f, const cli_cmd *c)
{
    fprintf(f, "usage: teebench notary serve [options]\n");
    cli_flags_help(f, c);
}

static void log_line(void *ctx, const char *line)
{
    (void)ctx;
    char ts[32];
    tb_utc_iso8601((int64_t)time(NULL), ts, sizeof ts);
    fprintf(stderr, "%s notary: %s\n", ts, line);
}

typedef struct serve_opts {
    tb_tee tee;
    const char *addr, *sim_dir, *key, *save_key, *tls_cert, *tls_key, *api_keys;
    const char *ca[MAX_CA];
    size_t n_ca;
    int system_ca, quiet;
    tb_notary_allowlist allow;
    int allow_given;
    uint64_t port, max_sent, max_recv, concurrency, session_s, io_ms, target_ms;
    uint64_t per_client, max_conns, inflight_per_client;
    uint64_t max_sessions, per_prefix, reserved, reserve_below, inflight_per_prefix;
    uint64_t lookups_per_client, lookups_per_prefix, max_lookups;
    int reserved_given;
} serve_opts;

static int set_tee(void *args, const char *flag, const char *v, tb_err *err)
{
    if (tb_tee_parse(v, &((serve_opts *)args)->tee) < 0)
        return tb_errf(err, "%s %s: unknown (none, tdx, sim, snp, sim-snp)", flag, v);
    return 0;
}

static int add_ca(void *args, const char *flag, const char *v, tb_err *err)
{
    serve_opts *o = args;
    if (o->n_ca == MAX_CA)
        return tb_errf(err, "%s: at most %d files", flag, MAX_CA);
    o->ca[o->n_ca++] = v;
    return 0;
}

static int no_system_ca(void *args, const char *flag, const char *v, tb_err *err)
{
    (void)flag, (void)v, (void)err;
    ((serve_opts *)args)->system_ca = 0;
    return 0;
}

/* The first --allow-target replaces the default (loopback only). */
static int add_allow(void *args, const char *flag, const char *v, tb_err *err)
{
    serve_opts *o = args;
    (void)flag;
    if (!o->allow_given)
        memset(&o->allow, 0, sizeof o->allow);
    o->allow_given = 1;
    return tb_notary_allowlist_add(&o->allow, v, err);
}

#define U64(n, f, lo, hi, a, h) CLI_U64(n, 0, serve_opts, f, lo, hi, a, h)

static const cli_flag serve_flags[] = {
    CLI_STR("addr", 0, serve_opts, addr, "ADDR", "listen address (default 127.0.0.1)"),
    U64("port", port, 0, 65535, "N", "listen port (default 7047; 0 = any free port)"),
    CLI_CALL("tee", 0, set_tee, "none|tdx|sim|snp|sim-snp",
             "\nTEE evidence: none, configfs-tsm TDX quotes or SEV-SNP\n"
             "reports, or SIMULATED ones (sim: TDX, sim-snp: SEV-SNP)"),
    CLI_STR("sim-dir", 0, serve_opts, sim_dir, "DIR",
            "simulated TEE state (default: the attest module's)"),
    CLI_STR("key", 0, serve_opts, key, "FILE",
            "PEM P-256 signing key (default: a fresh key each start)"),
    CLI_STR("save-key", 0, serve_opts, save_key, "FILE",
            "write the signing key used to FILE (PEM, mode 0600)"),
    CLI_CALL("trust-ca", 0, add_ca, "FILE", "CA certificates trusted for targets (repeatable)"),
    CLI_CALL("no-system-ca", 0, no_system_ca, NULL, "trust only --trust-ca, not the system store"),
    CLI_CALL("allow-target", 0, add_allow, "SPEC",
             "HOST:PORT or CIDR the notary may connect to (repeatable;\n"
             "default: loopback only, 127.0.0.0/8 and ::1/128)"),
    U64("max-sent", max_sent, 1, TB_NOTARY_DOC_MAX_DATA, "BYTES",
        "largest request a session may send (default 4096)"),
    U64("max-recv", max_recv, 1, TB_NOTARY_DOC_MAX_DATA, "BYTES",
        "largest response a session may receive (default 16384)"),
    U64("concurrency", concurrency, 1, 1024, "N", "notarization worker threads (default 64)"),
    U64("session-timeout", session_s, 1, 86400, "S",
        "seconds an unclaimed session stays valid (default 10)"),
    CLI_STR("api-keys", 0, serve_opts, api_keys, "FILE",
            "require an API key (Authorization: Bearer KEY, or the bare\n"
            "KEY) for POST /session and /notarize; FILE: one KEY or\n"
            "NAME KEY a line, # comments; keys 16..256 visible\n"
            "characters; SIGHUP reads it again (default: no keys)"),
    {.name = "max-sessions",
     .type = CLI_F_U64,
     .arg = "N",
     .off = CLI_OFF(serve_opts, max_sessions, uint64_t),
     .lo = 1,
     .hi = 1u << 20,
     .before = "  Quotas count a client by address and by network (IPv4 /24, IPv6 /64):\n",
     .help = "open sessions at once (default 4096)"},
    U64("sessions-per-client", per_client, 1, 1u << 20, "N",
        "open sessions per address (default 64; then 429)"),
    U64("sessions-per-prefix", per_prefix, 1, 1u << 20, "N",
        "open sessions per network (default 4 x the above)"),
    U64("reserved-sessions", reserved, 0, 1u << 20, "N",
        "the last N session slots go only to networks holding\n"
        "fewer than --reserve-below sessions (default: a\n"
        "quarter of --max-sessions; 0: no reserve)"),
    U64("reserve-below", reserve_below, 1, 1u << 20, "N", "see --reserved-sessions (default 8)"),
    U64("notarizations-per-client", inflight_per_client, 1, 1u << 20, "N",
        "notarizations queued or running per address\n"
        "(default: half of --concurrency; then 429)"),
    U64("notarizations-per-prefix", inflight_per_prefix, 1, 1u << 20, "N",
        "... per network (default: as per address)"),
    U64("resolutions-per-client", lookups_per_client, 1, 4096, "N",
        "target names being resolved per address (default\n"
        "4, a lookup the notary gave up on counts until it ends)"),
    U64("resolutions-per-prefix", lookups_per_prefix, 1, 4096, "N",
        "... per network (default 2 x the above)"),
    U64("max-resolutions", max_lookups, 1, 4096, "N",
        "... in all (default: half of --concurrency, so names\n"
        "that never resolve cannot hold every worker; then 503)"),
    U64("max-connections", max_conns, 16, 1u << 20, "N",
        "client connections at once (default 4096)"),
    U64("io-timeout", io_ms, 10, 600000, "MS",
        "budget to receive a request (TLS handshake included) and\n"
        "to send a reply (default 5000)"),
    U64("target-timeout", target_ms, 10, 600000, "MS",
        "one deadline for name resolution and the whole target\n"
        "exchange: connect, TLS, request, response (default\n"
        "10000; then 504)"),
    CLI_STR("tls-cert", 0, serve_opts, tls_cert, "FILE",
            "serve HTTPS with this PEM certificate chain"),
    CLI_STR("tls-key", 0, serve_opts, tls_key, "FILE",
            "its PEM private key (default: in --tls-cert)"),
    CLI_BOOL("quiet", 0, serve_opts, quiet, "no per-request log lines on stderr"),
    {.name = "help", .shortc = 'h', .type = CLI_F_HELP, .hidden = 1},
    {0}};

const cli_cmd cli_notary_serve_cmd = {.name = "notary serve",
                                      .flags = serve_flags,
                                      .usage = serve_usage,
                                      .max_operands = 0,
                                      .col = 25};

static int parse_serve(int argc, char **argv, serve_opts *o)
{
    memset(o, 0, sizeof *o);
    o->addr = "127.0.0.1";
    o->tee = TB_TEE_NONE;
    o->system_ca = 1;
    o->port = 7047;
    o->max_sent = 4096;
    o->max_recv = 16384;
    o->concurrency = 64;
    o->session_s = 10;
    o->per_client = 64;
    o->max_conns = 4096;
    o->max_sessions = 4096;
    o->reserve_below = 8;
    o->lookups_per_client = 4;
    o->io_ms = 5000;
    o->target_ms = 10000;
    o->reserved = UINT64_MAX; /* not given */
    int first, rc = cli_flags_parse(&cli_notary_serve_cmd, argc, argv, o, &first);
    if (rc != CLI_FLAGS_GO)
        return rc;
    o->reserved_given = o->reserved != UINT64_MAX;
    if (o->tls_key && !o->tls_cert)
        return cli_fail_code(2, "notary serve", "--tls-key needs --tls-cert");
    if (!o->allow_given)
        tb_notary_allowlist_loopback(&o->allow);
    if (!o->per_prefix)
        o->per_prefix = 4 * o->per_client;
    if (!o->max_lookups)
        o->max_lookups = o->concurrency > 1 ? o->concurrency / 2 : 1;
    if (!o->lookups_per_prefix)
        o->lookups_per_prefix = 2 * o->lookups_per_client;
    if (!o->reserved_given)
        o->reserved = o->max_sessions / 4;
    if (o->reserved >= o->max_sessions)
        return cli_fail_code(2, "notary serve",
                             "--reserved-sessions %llu must be smaller than --max-sessions %llu",
                             (unsigned long long)o->reserved, (unsigned long long)o->max_sessions);
    return -1; /* parsed; go on */
}

/* SIGHUP: reads the keys file again; a file that does not parse leaves the
 * keys in use as they are. One line on stderr either way (never a key). */
static void reload_keys(const char *path, tb_notary_server *srv, tb_notary_keys **keys)
{
    char line[TB_ERR_MAX + 96];
    tb_err err;
    tb_notary_keys *fresh = NULL;
    if (!path) {
        log_line(NULL, "SIGHUP: no --api-keys file to read again");
        return;
    }
    if (tb_notary_keys_load(path, &fresh, &err) < 0) {
        snprintf(line, sizeof line, "SIGHUP: API keys not reloaded (the %zu in use stay): %s",
                 tb_notary_keys_count(*keys), err.msg);
        log_line(NULL, line);
        return;
    }
    tb_notary_server_set_keys(srv, fresh); /* the server no longer reads the old set */
    tb_notary_keys_free(*keys);
    *keys = fresh;
    snprintf(line, sizeof line, "SIGHUP: %zu API keys loaded from %s", tb_notary_keys_count(fresh),
             path);
    log_line(NULL, line);
}

/* The server's configuration from o; it borrows key, tee (NULL: none), target and
   keys. */
static void serve_config(const serve_opts *o, const tb_notary_key *key,
                         const tb_notary_quote_source *tee, const tb_notary_target *target,
                         tb_notary_keys *keys, tb_notary_config *cfg)
{
    *cfg = (tb_notary_config){
        .addr = o->addr,
        .port = (uint16_t)o->port,
        .key = key,
        .tee = tee,
        .target = target,
        .max_sent = o->max_sent,
        .max_recv = o->max_recv,
        .concurrency = (int)o->concurrency,
        .session_ttl_ns = o->session_s * 1000000000ull,
        .max_sessions = (size_t)o->max_sessions,
        .sessions_per_client = (size_t)o->per_client,
        .sessions_per_prefix = (size_t)o->per_prefix,
        .reserved_sessions = (size_t)o->reserved,
        .reserve_below = (size_t)o->reserve_below,
        .notarizations_per_client = (size_t)o->inflight_per_client,
        .notarizations_per_prefix = (size_t)o->inflight_per_prefix,
        .resolutions_per_client = (size_t)o->lookups_per_client,
        .resolutions_per_prefix = (size_t)o->lookups_per_prefix,
        .max_resolutions = (size_t)o->max_lookups,
        .keys = keys,
        .max_connections = (size_t)o->max_conns,
        .io_timeout_ms = (int)o->io_ms,
        .log = o->quiet ? NULL : log_line,
        .tls_cert = o->tls_cert,
        .tls_key = o->tls_key,
    };
}

static int cmd_serve_notary(int argc, char **argv)
{
    serve_opts o;
    int prc = parse_serve(argc, argv, &o);
    if (prc >= 0)
        return prc;
    const char *cmd = "notary serve";
    tb_err err;
    tb_notary_key key;
    if ((o.key ? tb_notary_key_load(&key, o.key, &err) : tb_notary_key_generate(&key, &err)) < 0)
        return cli_fail(cmd, "signing key: %s", err.msg);
    int rc = 1;
    tb_notary_keys *keys = NULL; /* owned here; the server borrows it */
    tb_notary_target target = {0};
    tb_notary_quote_source tee;
    memset(&tee, 0, sizeof tee);
    int have_tee = o.tee != TB_TEE_NONE;
    tb_notary_server *srv = NULL;
    if (o.save_key && tb_notary_key_save(&key, o.save_key, &err) < 0) {
        cli_fail(cmd, "--save-key: %s", err.msg);
        goto out;
    }
    if (o.api_keys && tb_notary_keys_load(o.api_keys, &keys, &err) < 0) {
        cli_fail(cmd, "--api-keys: %s", err.msg);
        goto out;
    }
    if (tb_notary_target_init(&target, o.ca, o.n_ca, o.system_ca, &o.allow, (int)o.target_ms,
                              &err) < 0) {
        cli_fail(cmd, "%s", err.msg);
        goto out;
    }
    if (have_tee && tb_notary_tee_open(o.tee, o.sim_dir, &tee, &err) < 0) {
        cli_fail(cmd, "%s", err.msg);
        have_tee = 0;
        goto out;
    }
    tb_notary_config cfg;
    serve_config(&o, &key, have_tee ? &tee : NULL, &target, keys, &cfg);
    /* every connection is an fd: the server sizes its connection cap from what this
     * reaches */
    tb_fd_limit_raise(o.max_conns + o.concurrency + 2 * o.max_lookups + 64);
    /* Block the signals before any thread starts, so they all inherit it. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (tb_notary_server_start(&cfg, &srv, &err) < 0) {
        cli_fail(cmd, "%s", err.msg);
        goto out;
    }
    int v6 = strchr(o.addr, ':') != NULL;
    char kh[65];
    tb_hex_encode(key.spki_sha256, 32, kh);
    char auth[64] = "no API keys";
    if (keys)
        snprintf(auth, sizeof auth, "%zu API keys", tb_notary_keys_count(keys));
    printf("teebench notary: listening on %s://%s%s%s:%u (tee %s%s, key sha256 %s, %s)\n",
           o.tls_cert ? "https" : "http", v6 ? "[" : "", o.addr, v6 ? "]" : "",
           tb_notary_server_port(srv), tb_tee_name(o.tee),
           tb_tee_simulated(o.tee) ? ", SIMULATED" : "", kh, auth);
    fflush(stdout);
    int sig = 0;
    while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
        reload_keys(o.api_keys, srv, &keys);
    tb_notary_server_stats st;
    tb_notary_server_stats_get(srv, &st);
    tb_notary_server_stop(srv);
    printf("teebench notary: stopped (%s); refused %llu requests without a valid API key (401), "
           "%llu over a client's or network's quota (429), %llu with no session slot left (503), "
           "%llu whose target name was not resolved in time (504)\n",
           sig == SIGINT ? "SIGINT" : "SIGTERM", (unsigned long long)st.unauthorized,
           (unsigned long long)st.over_quota, (unsigned long long)st.table_full,
           (unsigned long long)st.lookup_expired);
    rc = 0;
out:
    tb_notary_keys_free(keys);
    if (have_tee)
        tb_notary_tee_close(&tee);
    tb_notary_target_clear(&target);
    tb_notary_key_clear(&key);
    return rc;
}

/* ------------------------------------------------------------------ check */

static void check_usage(FILE *f, const cli_cmd *c)
{
    fprintf(f, "usage: teebench notary check FILE [options]\n"
               "  FILE                   a saved attestation document (teebench notarize --out)\n");
    cli_flags_help(f, c);
}

/* A document's fields as text, for print_doc and check_json: names, the session id, the
 * time (ISO 8601 UTC with milliseconds), SHA-256 of the notary key, request and response. */
typedef struct doc_text {
    char server[TB_NOTARY_DOC_MAX_NAME + 1], host[TB_NOTARY_DOC_MAX_NAME + 1], tee[8];
    char id[33], key_sha[65], req_sha[65], resp_sha[65], time[40];
    int simulated;
} doc_text;

static void doc_text_fill(const tb_notary_doc *d, doc_text *x)
{
    uint8_t sha[32];
    char t[32];
    tb_notary_view_str(d->server_name, x->server, sizeof x->server);
    tb_notary_view_str(d->target_host, x->host, sizeof x->host);
    tb_notary_view_str(d->tee, x->tee, sizeof x->tee);
    tb_tee kind; /* the document's tee: doc.c refuses one that does not parse */
    x->simulated = tb_tee_parse(x->tee, &kind) == 0 && tb_tee_simulated(kind);
    tb_hex_encode(d->session_id, 16, x->id);
    SHA256(d->notary_key.p, d->notary_key.len, sha);
    tb_hex_encode(sha, 32, x->key_sha);
    SHA256(d->request.p, d->request.len, sha);
    tb_hex_encode(sha, 32, x->req_sha);
    SHA256(d->response.p, d->response.len, sha);
    tb_hex_encode(sha, 32, x->resp_sha);
    tb_utc_iso8601((int64_t)(d->time_ms / 1000), t, sizeof t);
    /* tb_utc_iso8601 ends in 'Z': milliseconds go before it */
    snprintf(x->time, sizeof x->time, "%.*s.%03uZ", (int)strcspn(t, "Z"), t,
             (unsigned)(d->time_ms % 1000));
}

static void print_doc(const char *path, const tb_notary_doc *d)
{
    doc_text x;
    doc_text_fill(d, &x);
    printf("document: %s\n", path);
    printf("format version: %u\n", d->version);
    printf("session id: %s\n", x.id);
    printf("time: %s\n", x.time);
    printf("server name: %s\n", x.server);
    printf("target: %s:%u\n", x.host, d->target_port);
    printf("tee: %s%s\n", x.tee, x.simulated ? " (SIMULATED)" : "");
    printf("server certificates: %zu\n", d->n_certs);
    printf("request: %zu bytes, sha256 %s\n", d->request.len, x.req_sha);
    printf("response: %zu bytes, sha256 %s\n", d->response.len, x.resp_sha);
    printf("notary key sha256: %s\n", x.key_sha);
}

#define CHECK_SCHEMA "teebench-notary-check/1"

/* A failure after the flags were read: with --json also the error document. */
static void fail_check(int json, const char *msg)
{
    if (json)
        cli_json_fail(1, "notary check", CHECK_SCHEMA, "%s", msg);
    else
        cli_fail("notary check", "%s", msg);
}

/* The --json document's own members: the fields print_doc prints, and what was
 * checked (the signature always; chain, key pin and evidence when asked). */
static json_t *check_json(const char *path, const tb_notary_doc *d, const char *chain, int pinned,
                          const char *evpath, const tb_notary_evidence *ev, int verified)
{
    doc_text x;
    doc_text_fill(d, &x);
    json_t *evj = json_null();
    if (evpath)
        evj = json_pack("{s:s, s:s, s:b, s:b, s:b}", "file", evpath, "tee", tb_tee_name(ev->tee),
                        "simulated", ev->simulated, "binds_key_and_nonce", 1, "quote_verified",
                        verified);
    return json_pack("{s:s, s:i, s:s, s:s, s:I, s:s, s:s, s:i, s:s, s:b, s:I, s:I, s:s, s:I, s:s, "
                     "s:s, s:s, s:o, s:b, s:o}",
                     "document", path, "format_version", (int)d->version, "session_id", x.id,
                     "time", x.time, "time_ms", (json_int_t)d->time_ms, "server_name", x.server,
                     "target_host", x.host, "target_port", (int)d->target_port, "tee", x.tee,
                     "simulated", x.simulated, "server_certificates", (json_int_t)d->n_certs,
                     "request_bytes", (json_int_t)d->request.len, "request_sha256", x.req_sha,
                     "response_bytes", (json_int_t)d->response.len, "response_sha256", x.resp_sha,
                     "notary_key_sha256", x.key_sha, "signature", "valid", "server_chain",
                     chain ? json_pack("{s:s, s:s}", "valid_for", x.server, "against", chain)
                           : json_null(),
                     "notary_key_pinned", pinned, "evidence", evj);
}

typedef struct check_args {
    const char *ca, *keyhex, *evpath;
    tb_notary_verifier_opts vo;
    int system_ca, verify, json;
} check_args;

static const cli_flag check_flags[] = {
    CLI_STR("ca", 0, check_args, ca, "FILE", "also check the server chain leads to this CA"),
    CLI_BOOL("system-ca", 0, check_args, system_ca,
             "also check the server chain against the system store"),
    CLI_STR("notary-key-sha256", 0, check_args, keyhex, "H",
            "require this notary key (hex SHA-256 of its SPKI)"),
    CLI_STR("evidence", 0, check_args, evpath, "FILE",
            "check the TEE evidence binds the document's key and nonce"),
    CLI_BOOL("verify", 0, check_args, verify, "with --evidence: verify the quote too"),
    CLI_STR("collateral", 0, check_args, vo.collateral, "FILE",
            "collateral for --verify (dcap-qvl JSON or PCS folder)"),
    CLI_STR("pccs", 0, check_args, vo.pccs, "URL",
            "fetch collateral for --verify from a PCCS (cached)"),
    CLI_STR("certs", 0, check_args, vo.certs, "DIR",
            "SEV-SNP: ark.pem, ask.pem, vcek.der, crl.der for --verify"),
    CLI_STR("kds", 0, check_args, vo.kds, "URL",
            "SEV-SNP: fetch certificates from AMD's KDS (cached)"),
    CLI_STR("sim-dir", 0, check_args, vo.sim_dir, "DIR",
            "simulated TEE PKI for SIMULATED evidence"),
    CLI_STR("policy", 0, check_args, vo.policy, "FILE",
            "attestation policy JSON (default: UpToDate, no DEBUG)"),
    CLI_STR("root", 0, check_args, vo.root, "FILE",
            "trusted root CA PEM (default: Intel's; sim: the sim root)"),
    CLI_BOOL("json", 0, check_args, json,
             "print one JSON document (the fields and what was checked)"),
    {.name = "help", .shortc = 'h', .type = CLI_F_HELP, .hidden = 1},
    {0}};

const cli_cmd cli_notary_check_cmd = {.name = "notary check",
                                      .flags = check_flags,
                                      .usage = check_usage,
                                      .max_operands = -1,
                                      .col = 25};

static int cmd_check(int argc, char **argv)
{
    const char *cmd = "notary check";
    check_args a = {0};
    int first, done = cli_flags_parse(&cli_notary_check_cmd, argc, argv, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    const char *ca = a.ca, *keyhex = a.keyhex, *evpath = a.evpath;
    tb_notary_verifier_opts vo = a.vo;
    int system_ca = a.system_ca, verify = a.verify, json = a.json;
    if (first + 1 != argc)
        return cli_fail_code(2, cmd, "want exactly one document FILE (see --help)");
    if (verify && !evpath)
        return cli_fail_code(2, cmd, "--verify needs --evidence FILE");
    const char *path = argv[first];
    tb_err err;
    tb_buf buf = {0};
    tb_notary_evidence ev;
    memset(&ev, 0, sizeof ev);
    int rc = 1;
    tb_notary_doc d;
    uint8_t want_key[32];
    if (keyhex && tb_hex_decode_upto(keyhex, strlen(keyhex), want_key, 32) != 32)
        return cli_fail_code(2, cmd, "--notary-key-sha256: want 64 hex digits");
    tb_notary_check_opts co = {.key_sha256 = keyhex ? want_key : NULL,
                               .evidence = evpath ? &ev : NULL,
                               .verify = verify ? &vo : NULL};
    tb_notary_check_report rep;
    if (tb_notary_doc_load(path, &buf, &d, &err) < 0 ||
        (evpath && tb_notary_evidence_load(evpath, &ev, &err) < 0) ||
        ((ca || system_ca) && !(co.store = tb_notary_trust_store(ca, &err)))) {
        fail_check(json, err.msg);
        goto out;
    }
    if (tb_notary_check(&d, &co, &rep, &err) < 0) {
        tb_err_wrap(&err, "%s", rep.failed == TB_NOTARY_CHECK_EVIDENCE ? evpath : path);
        fail_check(json, err.msg);
        goto out;
    }
    if (json) {
        rc = cli_json_print(cmd, cli_json_envelope(CHECK_SCHEMA,
                                                   check_json(path, &d,
                                                              ca          ? ca
                                                              : system_ca ? "system store"
                                                                          : NULL,
                                                              keyhex != NULL, evpath, &ev, verify),
                                                   1));
        goto out;
    }
    print_doc(path, &d);
    printf("signature: valid\n");
    if (ca || system_ca)
        printf("server chain: valid for the server name (%s)\n", ca ? ca : "system store");
    if (evpath)
        printf("evidence: binds this notary key and nonce (%s%s)%s\n", tb_tee_name(ev.tee),
               ev.simulated ? ", SIMULATED" : "", verify ? "; quote verified" : "");
    rc = 0;
out:
    X509_STORE_free(co.store);
    tb_notary_evidence_clear(&ev);
    tb_buf_clear(&buf);
    return rc;
}

int cmd_notary(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "usage: teebench notary serve [options] | teebench notary check FILE "
                   "[options]\n(each has --help)\n");
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "serve"))
        return cmd_serve_notary(argc - 1, argv + 1);
    if (!strcmp(argv[1], "check"))
        return cmd_check(argc - 1, argv + 1);
    static const char *const subs[] = {"serve", "check", NULL};
    return cli_unknown_subcommand("notary", argv[1], subs);
}
