/* cli/notarize: `teebench notarize`, the notary client. Options come from the
 * same environment variables as the source benchmark's client (NOTARY_*,
 * TARGET_*, MAX_SENT_DATA, MAX_RECV_DATA, USE_FIXTURE_CA, ENABLE_TEE_ATTESTATION;
 * NOTARY_API_KEY or NOTARY_API_KEY_FILE for a notary with API keys) and from
 * flags, which win. It prints the source client's KEY=value lines:
 *   NOTARIZATION_MS=<ms> ENABLE_TEE_ATTESTATION=<true|false>
 *   TDX_VERIFY_MS=<ms>          (only with --verify and TEE attestation)
 *   TOTAL_E2E_MS=<ms>
 * With --json it prints one document instead (cli/json's envelope, schema
 * teebench-notarize/1) with the same figures, and on a failure after the flags
 * were read, the envelope with "error".
 * All durations are CLOCK_MONOTONIC milliseconds with microsecond resolution.
 * NOTARIZATION_MS covers session creation, the notarization, and checking the
 * document (signature, fields, server chain); TDX_VERIFY_MS the quote
 * verification and its binding; TOTAL_E2E_MS the whole command after option
 * parsing (including loading trust stores and saving files). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/hex.h"
#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "notary/check.h"
#include "notary/client.h"

static const char *CMD = "notarize";
static const char *SCHEMA = "teebench-notarize/1";

static void usage(FILE *f, const cli_cmd *c)
{
    fprintf(f, "usage: teebench notarize [options]      (environment variable in brackets)\n");
    cli_flags_help(f, c);
}

static int parse_bool(const char *s, int *out)
{
    if (!strcasecmp(s, "true") || !strcmp(s, "1") || !strcasecmp(s, "yes")) {
        *out = 1;
        return 0;
    }
    if (!strcasecmp(s, "false") || !strcmp(s, "0") || !strcasecmp(s, "no") || !*s) {
        *out = 0;
        return 0;
    }
    return -1;
}

typedef struct opts {
    const char *url, *scheme, *nhost, *nport, *notary_ca;
    const char *thost, *tport, *server_name, *uri, *max_sent, *max_recv;
    const char *use_fixture_ca, *fixture_ca, *tee, *verify, *out, *timeout;
    const char *api_key, *api_key_file;
    int json;
    tb_notary_verifier_opts vo;
} opts;

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

static int set_verify(void *args, const char *flag, const char *v, tb_err *err)
{
    (void)flag, (void)v, (void)err;
    ((opts *)args)->verify = "true";
    return 0;
}

/* A flag wins over the environment: the key or its file, the other one dropped. */
static int set_api_key(void *args, const char *flag, const char *v, tb_err *err)
{
    (void)flag, (void)err;
    ((opts *)args)->api_key = v;
    ((opts *)args)->api_key_file = NULL;
    return 0;
}

static int set_api_key_file(void *args, const char *flag, const char *v, tb_err *err)
{
    (void)flag, (void)err;
    ((opts *)args)->api_key_file = v;
    ((opts *)args)->api_key = NULL;
    return 0;
}

static const cli_flag notarize_flags[] = {
    CLI_STR("notary", 0, opts, url, "URL", "notary base URL (default from the three below)"),
    CLI_STR("notary-scheme", 0, opts, scheme, "S", "http or https [NOTARY_SCHEME, default http]"),
    CLI_STR("notary-host", 0, opts, nhost, "H", "[NOTARY_HOST, default 127.0.0.1]"),
    CLI_STR("notary-port", 0, opts, nport, "N", "[NOTARY_PORT, default 7047]"),
    CLI_STR("notary-ca", 0, opts, notary_ca, "FILE", "CA for an https notary [NOTARY_CA]"),
    CLI_CALL("api-key-file", 0, set_api_key_file, "FILE",
             "the notary's API key, sent as Authorization: Bearer\n"
             "(the file's one line) [NOTARY_API_KEY_FILE]"),
    CLI_CALL("api-key", 0, set_api_key, "KEY",
             "the same from the command line (visible to other\n"
             "users in ps: prefer the file) [NOTARY_API_KEY]"),
    CLI_STR("target-host", 0, opts, thost, "H",
            "address the notary connects to [TARGET_HOST, 127.0.0.1]"),
    CLI_STR("target-port", 0, opts, tport, "N", "[TARGET_PORT, default 4000]"),
    CLI_STR("server-name", 0, opts, server_name, "NAME",
            "SNI, certificate name, Host [TARGET_SERVER_NAME,\n"
            "default test-server.io]"),
    CLI_STR("uri", 0, opts, uri, "URI", "[TARGET_URI, default /formats/json?size=4]"),
    CLI_STR("max-sent", 0, opts, max_sent, "BYTES", "[MAX_SENT_DATA, default 4096]"),
    CLI_STR("max-recv", 0, opts, max_recv, "BYTES", "[MAX_RECV_DATA, default 16384]"),
    CLI_STR("use-fixture-ca", 0, opts, use_fixture_ca, "BOOL",
            "check the chain against the fixture CA [USE_FIXTURE_CA,\n"
            "default true]; otherwise against the system store"),
    CLI_STR("fixture-ca", 0, opts, fixture_ca, "FILE", "the fixture CA certificate [FIXTURE_CA]"),
    CLI_STR("tee", 0, opts, tee, "BOOL", "ask for TEE attestation [ENABLE_TEE_ATTESTATION, false]"),
    CLI_CALL("verify", 0, set_verify, NULL,
             "verify the quote and its binding [VERIFY_ATTESTATION]"),
    CLI_STR("collateral", 0, opts, vo.collateral, "FILE",
            "collateral for --verify (dcap-qvl JSON or PCS folder)"),
    CLI_STR("pccs", 0, opts, vo.pccs, "URL", "PCCS for --verify (collateral cached on disk)"),
    CLI_STR("certs", 0, opts, vo.certs, "DIR",
            "SEV-SNP certificates for --verify (ark/ask/vcek/crl)"),
    CLI_STR("kds", 0, opts, vo.kds, "URL", "AMD KDS for --verify of SEV-SNP (cached on disk)"),
    CLI_STR("sim-dir", 0, opts, vo.sim_dir, "DIR", "simulated TEE PKI (for SIMULATED quotes)"),
    CLI_STR("policy", 0, opts, vo.policy, "FILE",
            "attestation policy JSON (default: UpToDate, no DEBUG)"),
    CLI_STR("root", 0, opts, vo.root, "FILE",
            "trusted root CA PEM (default: Intel's; sim: the sim root)"),
    CLI_STR("out", 0, opts, out, "PREFIX", "save PREFIX.tbnd (document) and PREFIX.evidence.json"),
    CLI_STR("timeout", 0, opts, timeout, "MS", "per notary request (default 30000)"),
    CLI_BOOL("json", 0, opts, json,
             "print one JSON document (the same figures, the session,\n"
             "the files written) instead of the KEY=value lines"),
    {.name = "help", .shortc = 'h', .type = CLI_F_HELP, .hidden = 1},
    {0}};

const cli_cmd cli_notarize_cmd = {
    .name = "notarize", .flags = notarize_flags, .usage = usage, .max_operands = 0, .col = 27};

static int parse_opts(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->url = getenv("NOTARY_URL");
    o->scheme = env_or("NOTARY_SCHEME", "http");
    o->nhost = env_or("NOTARY_HOST", "127.0.0.1");
    o->nport = env_or("NOTARY_PORT", "7047");
    o->notary_ca = env_or("NOTARY_CA", NULL);
    o->thost = env_or("TARGET_HOST", "127.0.0.1");
    o->tport = env_or("TARGET_PORT", "4000");
    o->server_name = env_or("TARGET_SERVER_NAME", "test-server.io");
    o->uri = env_or("TARGET_URI", "/formats/json?size=4");
    o->max_sent = env_or("MAX_SENT_DATA", "4096");
    o->max_recv = env_or("MAX_RECV_DATA", "16384");
    o->use_fixture_ca = env_or("USE_FIXTURE_CA", "true");
    o->fixture_ca = env_or("FIXTURE_CA", NULL);
    o->tee = env_or("ENABLE_TEE_ATTESTATION", "false");
    o->verify = env_or("VERIFY_ATTESTATION", "false");
    o->timeout = "30000";
    o->api_key = env_or("NOTARY_API_KEY", NULL);
    o->api_key_file = env_or("NOTARY_API_KEY_FILE", NULL);
    int first;
    return cli_flags_parse(&cli_notarize_cmd, argc, argv, o, &first);
}

/* The API key from FILE: its one line (a final newline and surrounding blanks
 * dropped). The caller frees *key (wiped) with free_key. */
static int read_key_file(const char *path, tb_buf *key, tb_err *err)
{
    if (tb_file_read(path, 4096, key, err) < 0)
        return -1;
    size_t a = 0, n = key->len;
    const char *p = (const char *)key->p;
    while (a < n && (p[a] == ' ' || p[a] == '\t'))
        a++;
    while (n > a && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n == a || memchr(p + a, '\n', n - a))
        return tb_errf(err, "%s: want the API key alone on one line", path);
    memmove(key->p, key->p + a, n - a);
    key->len = n - a;
    key->p[key->len] = 0;
    return 0;
}

static void free_key(tb_buf *key)
{
    if (key->p)
        OPENSSL_cleanse(key->p, key->len);
    tb_buf_clear(key);
}

/* Saves the document and evidence next to each other. */
static int save(const char *prefix, const tb_notary_client_result *res, tb_err *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s.evidence.json", prefix) >= (int)sizeof path)
        return tb_errf(err, "%s: path too long", prefix);
    snprintf(path, sizeof path, "%s.tbnd", prefix);
    if (tb_file_write_atomic(path, res->document.p, res->document.len, err) < 0)
        return -1;
    if (!res->has_evidence)
        return 0;
    snprintf(path, sizeof path, "%s.evidence.json", prefix);
    return tb_file_write_atomic(path, res->evidence_json.p, res->evidence_json.len, err);
}

/* A failure after the flags were read: with --json also the error document. */
static int fail(const opts *o, const char *msg)
{
    return o->json ? cli_json_fail(1, CMD, SCHEMA, "%s", msg) : cli_fail(CMD, "%s", msg);
}

/* The --json document's own members. */
static json_t *result_json(const tb_notary_client_opts *no, const tb_notary_client_result *res,
                           const char *prefix, double notarization_ms, double verify_ms,
                           double total_ms)
{
    char sid[33], kh[65];
    uint8_t sha[32];
    tb_hex_encode(res->doc.session_id, 16, sid);
    SHA256(res->doc.notary_key.p, res->doc.notary_key.len, sha);
    tb_hex_encode(sha, 32, kh);
    char doc[4096] = "", ev[4096] = "";
    if (prefix) {
        snprintf(doc, sizeof doc, "%s.tbnd", prefix);
        if (res->has_evidence)
            snprintf(ev, sizeof ev, "%s.evidence.json", prefix);
    }
    json_t *o = json_pack(
        "{s:s, s:{s:s, s:i, s:s, s:s}, s:b, s:s, s:b, s:b, s:s, s:s, s:I, s:I, s:o, s:o, s:f, "
        "s:o, s:f}",
        "notary", no->notary_url, "target", "host", no->host, "port", (int)no->port, "server_name",
        no->server_name, "uri", no->uri, "tee_attestation", no->tee, "notary_tee",
        tb_tee_name(res->has_evidence ? res->evidence.tee : TB_TEE_NONE), "simulated",
        res->has_evidence && res->evidence.simulated, "verified", verify_ms >= 0, "session_id", sid,
        "notary_key_sha256", kh, "request_bytes", (json_int_t)res->doc.request.len,
        "response_bytes", (json_int_t)res->doc.response.len, "document_file",
        doc[0] ? json_string(doc) : json_null(), "evidence_file",
        ev[0] ? json_string(ev) : json_null(), "notarization_ms", notarization_ms, "tdx_verify_ms",
        verify_ms >= 0 ? json_real(verify_ms) : json_null(), "total_e2e_ms", total_ms);
    return o;
}

static double ms_since(uint64_t t0)
{
    return (double)(tb_mono_ns() - t0) / 1e6;
}

/* The options that are strings (a flag or its environment variable), read. */
typedef struct values {
    int tee, verify, use_fixture;
    uint64_t tport, max_sent, max_recv, timeout;
    char url[1024]; /* the notary's, when built from scheme, host and port */
} values;

/* o's strings into v, and o->url from scheme, host and port unless given (then in
 * v->url). -1 to go on, or exit code 2 after the message. */
static int read_values(opts *o, values *v)
{
    uint64_t nport;
    if (parse_bool(o->tee, &v->tee) < 0)
        return cli_fail_code(
            2, CMD, "ENABLE_TEE_ATTESTATION/--tee: want 1/0 or true/false, got '%s'", o->tee);
    if (parse_bool(o->verify, &v->verify) < 0)
        return cli_fail_code(2, CMD, "VERIFY_ATTESTATION: want 1/0 or true/false, got '%s'",
                             o->verify);
    if (parse_bool(o->use_fixture_ca, &v->use_fixture) < 0)
        return cli_fail_code(2, CMD, "USE_FIXTURE_CA: want true or false, got '%s'",
                             o->use_fixture_ca);
    if (cli_opt_u64(o->tport, 1, 65535, &v->tport) < 0)
        return cli_fail_code(2, CMD, "TARGET_PORT: want 1..65535, got '%s'", o->tport);
    if (cli_opt_u64(o->max_sent, 1, TB_NOTARY_DOC_MAX_DATA, &v->max_sent) < 0 ||
        cli_opt_u64(o->max_recv, 1, TB_NOTARY_DOC_MAX_DATA, &v->max_recv) < 0)
        return cli_fail_code(2, CMD, "MAX_SENT_DATA/MAX_RECV_DATA: want 1..%u bytes",
                             TB_NOTARY_DOC_MAX_DATA);
    if (cli_opt_u64(o->timeout, 1, 3600000, &v->timeout) < 0)
        return cli_fail_code(2, CMD, "--timeout: want milliseconds, got '%s'", o->timeout);
    if (v->use_fixture && !o->fixture_ca)
        return cli_fail_code(2, CMD,
                             "USE_FIXTURE_CA is true: give --fixture-ca FILE (or "
                             "FIXTURE_CA), or set USE_FIXTURE_CA=false");
    if (!o->url) {
        if (strcmp(o->scheme, "http") && strcmp(o->scheme, "https"))
            return cli_fail_code(2, CMD, "NOTARY_SCHEME: want http or https, got '%s'", o->scheme);
        if (cli_opt_u64(o->nport, 1, 65535, &nport) < 0)
            return cli_fail_code(2, CMD, "NOTARY_PORT: want 1..65535, got '%s'", o->nport);
        int v6 = strchr(o->nhost, ':') != NULL;
        snprintf(v->url, sizeof v->url, "%s://%s%s%s:%llu", o->scheme, v6 ? "[" : "", o->nhost,
                 v6 ? "]" : "", (unsigned long long)nport);
        o->url = v->url;
    }
    if (v->verify && !v->tee)
        v->verify = 0; /* nothing to verify without TEE attestation (as the source client) */
    return -1;
}

int cmd_notarize(int argc, char **argv)
{
    opts o;
    int prc = parse_opts(argc, argv, &o);
    if (prc >= 0)
        return prc;
    uint64_t t_start = tb_mono_ns();
    values v;
    if ((prc = read_values(&o, &v)) >= 0)
        return prc;
    int tee = v.tee, verify = v.verify, use_fixture = v.use_fixture;
    uint64_t tport = v.tport, max_sent = v.max_sent, max_recv = v.max_recv, timeout = v.timeout;

    tb_err err;
    int rc = 1;
    tb_notary_client_result res;
    memset(&res, 0, sizeof res);
    tb_buf key = {0};
    if (o.api_key_file && read_key_file(o.api_key_file, &key, &err) < 0) {
        free_key(&key);
        tb_err_wrap(&err, "--api-key-file");
        return fail(&o, err.msg);
    }
    X509_STORE *store = tb_notary_trust_store(use_fixture ? o.fixture_ca : NULL, &err);
    if (!store) {
        free_key(&key);
        return fail(&o, err.msg);
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    tb_notary_client_opts no = {
        .notary_url = o.url,
        .notary_ca = o.notary_ca,
        .host = o.thost,
        .port = (uint16_t)tport,
        .server_name = o.server_name,
        .uri = o.uri,
        .max_sent = max_sent,
        .max_recv = max_recv,
        .tee = tee,
        .timeout_ms = (long)timeout,
        .api_key = o.api_key_file ? (const char *)key.p : o.api_key,
    };
    uint64_t t_not = tb_mono_ns();
    if (tb_notary_client_run(&no, &res, &err) < 0) {
        fail(&o, err.msg);
        goto out;
    }
    uint64_t run_ns = tb_mono_ns() - t_not;
    tb_notary_check_opts co = {.store = store,
                               .evidence = tee ? &res.evidence : NULL,
                               .nonce = res.nonce,
                               .nonce_len = sizeof res.nonce,
                               .verify = verify ? &o.vo : NULL};
    tb_notary_check_report rep;
    if (tb_notary_check(&res.doc, &co, &rep, &err) < 0) {
        char msg[sizeof err.msg + 32];
        snprintf(msg, sizeof msg, "%s%s", err.msg,
                 rep.failed != TB_NOTARY_CHECK_DOC ? ""
                 : use_fixture                     ? " (fixture CA)"
                                                   : " (system store)");
        fail(&o, msg);
        goto out;
    }
    double notarization_ms = (double)(run_ns + rep.doc_ns) / 1e6;
    double verify_ms = verify ? (double)rep.evidence_ns / 1e6 : -1;
    if (o.out && save(o.out, &res, &err) < 0) {
        tb_err_wrap(&err, "--out");
        fail(&o, err.msg);
        goto out;
    }
    if (o.json) {
        double total_ms = ms_since(t_start); /* before the env facts are read */
        rc = cli_json_print(
            CMD,
            cli_json_envelope(
                SCHEMA, result_json(&no, &res, o.out, notarization_ms, verify_ms, total_ms), 1));
        goto out;
    }
    printf("NOTARIZATION_MS=%.3f ENABLE_TEE_ATTESTATION=%s\n", notarization_ms,
           tee ? "true" : "false");
    if (tee)
        printf("NOTARY_TEE=%s SIMULATED=%s\n", tb_tee_name(res.evidence.tee),
               res.evidence.simulated ? "true" : "false");
    if (verify_ms >= 0)
        printf("TDX_VERIFY_MS=%.3f\n", verify_ms);
    printf("TOTAL_E2E_MS=%.3f\n", ms_since(t_start));
    rc = 0;
out:
    free_key(&key);
    tb_notary_client_result_clear(&res);
    X509_STORE_free(store);
    curl_global_cleanup();
    return rc;
}
