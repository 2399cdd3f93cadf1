/* cli/notary: `teebench notary serve` (the notary service) and
 * `teebench notary check FILE` (offline check of a saved attestation document).
 * serve blocks SIGINT/SIGTERM/SIGHUP in every thread and waits for them with
 * sigwait in the main thread, so no signal flag (global state) is needed:
 * SIGHUP reads --api-keys again (a bad file keeps the keys in use), the others
 * stop the notary. */
#include <errno.h>
#include <getopt.h>
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

static void serve_usage(FILE *f)
{
    fprintf(f,
            "usage: teebench notary serve [options]\n"
            "  --addr ADDR            listen address (default 127.0.0.1)\n"
            "  --port N               listen port (default 7047; 0 = any free port)\n"
            "  --tee none|tdx|sim|snp|sim-snp\n"
            "                         TEE evidence: none, configfs-tsm TDX quotes or SEV-SNP\n"
            "                         reports, or SIMULATED ones (sim: TDX, sim-snp: SEV-SNP)\n"
            "  --sim-dir DIR          simulated TEE state (default: the attest module's)\n"
            "  --key FILE             PEM P-256 signing key (default: a fresh key each start)\n"
            "  --save-key FILE        write the signing key used to FILE (PEM, mode 0600)\n"
            "  --trust-ca FILE        CA certificates trusted for targets (repeatable)\n"
            "  --no-system-ca         trust only --trust-ca, not the system store\n"
            "  --allow-target SPEC    HOST:PORT or CIDR the notary may connect to (repeatable;\n"
            "                         default: loopback only, 127.0.0.0/8 and ::1/128)\n"
            "  --max-sent BYTES       largest request a session may send (default 4096)\n"
            "  --max-recv BYTES       largest response a session may receive (default 16384)\n"
            "  --concurrency N        notarization worker threads (default 64)\n"
            "  --session-timeout S    seconds an unclaimed session stays valid (default 10)\n"
            "  --api-keys FILE        require an API key (Authorization: Bearer KEY, or the bare\n"
            "                         KEY) for POST /session and /notarize; FILE: one KEY or\n"
            "                         NAME KEY a line, # comments; keys 16..256 visible\n"
            "                         characters; SIGHUP reads it again (default: no keys)\n"
            "  Quotas count a client by address and by network (IPv4 /24, IPv6 /64):\n"
            "  --max-sessions N       open sessions at once (default 4096)\n"
            "  --sessions-per-client N  open sessions per address (default 64; then 429)\n"
            "  --sessions-per-prefix N  open sessions per network (default 4 x the above)\n"
            "  --reserved-sessions N  the last N session slots go only to networks holding\n"
            "                         fewer than --reserve-below sessions (default: a\n"
            "                         quarter of --max-sessions; 0: no reserve)\n"
            "  --reserve-below N      see --reserved-sessions (default 8)\n"
            "  --notarizations-per-client N  notarizations queued or running per address\n"
            "                         (default: half of --concurrency; then 429)\n"
            "  --notarizations-per-prefix N  ... per network (default: as per address)\n"
            "  --resolutions-per-client N  target names being resolved per address (default\n"
            "                         4, a lookup the notary gave up on counts until it ends)\n"
            "  --resolutions-per-prefix N  ... per network (default 2 x the above)\n"
            "  --max-resolutions N    ... in all (default: half of --concurrency, so names\n"
            "                         that never resolve cannot hold every worker; then 503)\n"
            "  --max-connections N    client connections at once (default 4096)\n"
            "  --io-timeout MS        budget to receive a request (TLS handshake included) and\n"
            "                         to send a reply (default 5000)\n"
            "  --target-timeout MS    one deadline for name resolution and the whole target\n"
            "                         exchange: connect, TLS, request, response (default\n"
            "                         10000; then 504)\n"
            "  --tls-cert FILE        serve HTTPS with this PEM certificate chain\n"
            "  --tls-key FILE         its PEM private key (default: in --tls-cert)\n"
            "  --quiet                no per-request log lines on stderr\n");
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

static int parse_serve(int argc, char **argv, serve_opts *o)
{
    static const struct option opts[] = {{"addr", required_argument, 0, 'a'},
                                         {"port", required_argument, 0, 'p'},
                                         {"tee", required_argument, 0, 't'},
                                         {"sim-dir", required_argument, 0, 'S'},
                                         {"key", required_argument, 0, 'k'},
                                         {"save-key", required_argument, 0, 'K'},
                                         {"trust-ca", required_argument, 0, 'c'},
                                         {"no-system-ca", no_argument, 0, 'n'},
                                         {"allow-target", required_argument, 0, 'A'},
                                         {"max-sent", required_argument, 0, 's'},
                                         {"max-recv", required_argument, 0, 'r'},
                                         {"concurrency", required_argument, 0, 'j'},
                                         {"session-timeout", required_argument, 0, 'T'},
                                         {"io-timeout", required_argument, 0, 'i'},
                                         {"target-timeout", required_argument, 0, 'o'},
                                         {"sessions-per-client", required_argument, 0, 'Q'},
                                         {"notarizations-per-client", required_argument, 0, 'F'},
                                         {"max-connections", required_argument, 0, 'M'},
                                         {"api-keys", required_argument, 0, 'y'},
                                         {"max-sessions", required_argument, 0, 'm'},
                                         {"sessions-per-prefix", required_argument, 0, 'P'},
                                         {"reserved-sessions", required_argument, 0, 'R'},
                                         {"reserve-below", required_argument, 0, 'B'},
                                         {"notarizations-per-prefix", required_argument, 0, 'f'},
                                         {"resolutions-per-client", required_argument, 0, 'l'},
                                         {"resolutions-per-prefix", required_argument, 0, 'L'},
                                         {"max-resolutions", required_argument, 0, 'X'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"tls-cert", required_argument, 0, 'C'},
                                         {"tls-key", required_argument, 0, 'Y'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
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
    tb_err err;
    opterr = 0;
    optind = 1;
    int c, li = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, &li)) != -1) {
        int bad = 0;
        switch (c) {
        case 'a':
            o->addr = optarg;
            break;
        case 'p':
            bad = cli_opt_u64(optarg, 0, 65535, &o->port);
            break;
        case 't':
            bad = tb_tee_parse(optarg, &o->tee) < 0;
            break;
        case 'S':
            o->sim_dir = optarg;
            break;
        case 'k':
            o->key = optarg;
            break;
        case 'K':
            o->save_key = optarg;
            break;
        case 'c':
            if (o->n_ca == MAX_CA)
                return cli_fail_code(2, "notary serve", "--trust-ca: at most %d files", MAX_CA);
            o->ca[o->n_ca++] = optarg;
            break;
        case 'n':
            o->system_ca = 0;
            break;
        case 'A':
            if (!o->allow_given)
                memset(&o->allow, 0, sizeof o->allow);
            o->allow_given = 1;
            if (tb_notary_allowlist_add(&o->allow, optarg, &err) < 0)
                return cli_fail_code(2, "notary serve", "%s", err.msg);
            break;
        case 's':
            bad = cli_opt_u64(optarg, 1, TB_NOTARY_DOC_MAX_DATA, &o->max_sent);
            break;
        case 'r':
            bad = cli_opt_u64(optarg, 1, TB_NOTARY_DOC_MAX_DATA, &o->max_recv);
            break;
        case 'j':
            bad = cli_opt_u64(optarg, 1, 1024, &o->concurrency);
            break;
        case 'T':
            bad = cli_opt_u64(optarg, 1, 86400, &o->session_s);
            break;
        case 'i':
            bad = cli_opt_u64(optarg, 10, 600000, &o->io_ms);
            break;
        case 'o':
            bad = cli_opt_u64(optarg, 10, 600000, &o->target_ms);
            break;
        case 'Q':
            bad = cli_opt_u64(optarg, 1, 1u << 20, &o->per_client);
            break;
        case 'F':
            bad = cli_opt_u64(optarg, 1, 1u << 20, &o->inflight_per_client);
            break;
        case 'M':
            bad = cli_opt_u64(optarg, 16, 1u << 20, &o->max_conns);
            break;
        case 'y':
            o->api_keys = optarg;
            break;
        case 'm':
            bad = cli_opt_u64(optarg, 1, 1u << 20, &o->max_sessions);
            break;
        case 'P':
            bad = cli_opt_u64(optarg, 1, 1u << 20, &o->per_prefix);
            break;
        case 'R':
            bad = cli_opt_u64(optarg, 0, 1u << 20, &o->reserved);
            o->reserved_given = 1;
            break;
        case 'B':
            bad = cli_opt_u64(optarg, 1, 1u << 20, &o->reserve_below);
            break;
        case 'f':
            bad = cli_opt_u64(optarg, 1, 1u << 20, &o->inflight_per_prefix);
            break;
        case 'l':
            bad = cli_opt_u64(optarg, 1, 4096, &o->lookups_per_client);
            break;
        case 'L':
            bad = cli_opt_u64(optarg, 1, 4096, &o->lookups_per_prefix);
            break;
        case 'X':
            bad = cli_opt_u64(optarg, 1, 4096, &o->max_lookups);
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'C':
            o->tls_cert = optarg;
            break;
        case 'Y':
            o->tls_key = optarg;
            break;
        case 'h':
            serve_usage(stdout);
            return 0;
        default:
            return cli_bad_option("notary serve", c, argv);
        }
        if (bad)
            return cli_fail_code(2, "notary serve", "--%s: bad value '%s'", opts[li].name, optarg);
    }
    if (optind < argc)
        return cli_fail_code(2, "notary serve", "unexpected argument '%s'", argv[optind]);
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
    tb_notary_config cfg = {
        .addr = o.addr,
        .port = (uint16_t)o.port,
        .key = &key,
        .tee = have_tee ? &tee : NULL,
        .target = &target,
        .max_sent = o.max_sent,
        .max_recv = o.max_recv,
        .concurrency = (int)o.concurrency,
        .session_ttl_ns = o.session_s * 1000000000ull,
        .max_sessions = (size_t)o.max_sessions,
        .sessions_per_client = (size_t)o.per_client,
        .sessions_per_prefix = (size_t)o.per_prefix,
        .reserved_sessions = (size_t)o.reserved,
        .reserve_below = (size_t)o.reserve_below,
        .notarizations_per_client = (size_t)o.inflight_per_client,
        .notarizations_per_prefix = (size_t)o.inflight_per_prefix,
        .resolutions_per_client = (size_t)o.lookups_per_client,
        .resolutions_per_prefix = (size_t)o.lookups_per_prefix,
        .max_resolutions = (size_t)o.max_lookups,
        .keys = keys,
        .max_connections = (size_t)o.max_conns,
        .io_timeout_ms = (int)o.io_ms,
        .log = o.quiet ? NULL : log_line,
        .tls_cert = o.tls_cert,
        .tls_key = o.tls_key,
    };
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

static void check_usage(FILE *f)
{
    fprintf(f,
            "usage: teebench notary check FILE [options]\n"
            "  FILE                   a saved attestation document (teebench notarize --out)\n"
            "  --ca FILE              also check the server chain leads to this CA\n"
            "  --system-ca            also check the server chain against the system store\n"
            "  --notary-key-sha256 H  require this notary key (hex SHA-256 of its SPKI)\n"
            "  --evidence FILE        check the TEE evidence binds the document's key and nonce\n"
            "  --verify               with --evidence: verify the quote too\n"
            "  --collateral FILE      collateral for --verify (dcap-qvl JSON or PCS folder)\n"
            "  --pccs URL             fetch collateral for --verify from a PCCS (cached)\n"
            "  --certs DIR            SEV-SNP: ark.pem, ask.pem, vcek.der, crl.der for --verify\n"
            "  --kds URL              SEV-SNP: fetch certificates from AMD's KDS (cached)\n"
            "  --sim-dir DIR          simulated TEE PKI for SIMULATED evidence\n"
            "  --policy FILE          attestation policy JSON (default: UpToDate, no DEBUG)\n"
            "  --root FILE            trusted root CA PEM (default: Intel's; sim: the sim root)\n"
            "  --json                 print one JSON document (the fields and what was checked)\n");
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

static int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {{"ca", required_argument, 0, 'c'},
                                         {"system-ca", no_argument, 0, 's'},
                                         {"notary-key-sha256", required_argument, 0, 'k'},
                                         {"evidence", required_argument, 0, 'e'},
                                         {"verify", no_argument, 0, 'v'},
                                         {"collateral", required_argument, 0, 'C'},
                                         {"pccs", required_argument, 0, 'P'},
                                         {"certs", required_argument, 0, 'D'},
                                         {"kds", required_argument, 0, 'K'},
                                         {"sim-dir", required_argument, 0, 'S'},
                                         {"policy", required_argument, 0, 'Y'},
                                         {"root", required_argument, 0, 'R'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "notary check", *ca = NULL, *keyhex = NULL, *evpath = NULL;
    tb_notary_verifier_opts vo;
    memset(&vo, 0, sizeof vo);
    int system_ca = 0, verify = 0, json = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            ca = optarg;
            break;
        case 's':
            system_ca = 1;
            break;
        case 'k':
            keyhex = optarg;
            break;
        case 'e':
            evpath = optarg;
            break;
        case 'v':
            verify = 1;
            break;
        case 'C':
            vo.collateral = optarg;
            break;
        case 'P':
            vo.pccs = optarg;
            break;
        case 'D':
            vo.certs = optarg;
            break;
        case 'K':
            vo.kds = optarg;
            break;
        case 'S':
            vo.sim_dir = optarg;
            break;
        case 'Y':
            vo.policy = optarg;
            break;
        case 'R':
            vo.root = optarg;
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            check_usage(stdout);
            return 0;
        default:
            return cli_bad_option(cmd, c, argv);
        }
    }
    if (optind + 1 != argc)
        return cli_fail_code(2, cmd, "want exactly one document FILE (see --help)");
    if (verify && !evpath)
        return cli_fail_code(2, cmd, "--verify needs --evidence FILE");
    const char *path = argv[optind];
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
