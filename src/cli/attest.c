/* cli/attest: `teebench attest show|verify|collateral|quote|sim-collateral`.
 * An AMD SEV-SNP report (recognized by its bytes) goes to cli/attest_snp.c.
 *
 * Exit codes (documented in README.md and --help):
 *   0  accepted (verify) / success
 *   1  runtime error (unreadable file, fetch failed, provider unavailable)
 *   2  usage error
 *   3  the quote is valid, but the policy refuses it (TCB status, DEBUG, values)
 *   4  the quote is invalid (verification failed at a step; bytes that are no quote fail
 *      the parse step -- a quote file that cannot be read is 1)
 *   5  the collateral had expired at the verification time (every check passed otherwise;
 *      --allow-expired-collateral verifies old evidence anyway)
 * Messages name each path once: the module's errors already carry it.
 * Anything involving the simulated provider says "SIMULATED" in its output. */
#include <errno.h>
#include <getopt.h> /* optind: the first operand after cli_flags_parse */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "attest/tdx/tdx.h"
#include "attest/common/evidence.h"
#include "attest/common/timing.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/hex.h"
#include "cli/attest_snp.h"
#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/json.h"

#define EXIT_REFUSED 3
#define EXIT_INVALID 4
#define EXIT_EXPIRED 5

static const char USAGE[] =
    "usage: teebench attest <subcommand> [options]\n"
    "\n"
    "  show QUOTE|REPORT [--json]\n"
    "      print every field of a TDX quote (v4/v5) or an SEV-SNP report (v2/v3/v5);\n"
    "      binary, hex or base64 file\n"
    "  verify QUOTE (--collateral FILE|DIR|sim[:DIR] | --pccs URL) [--now UNIX_TIME]\n"
    "         [--root CA_FILE] [--allow-debug] [--policy FILE] [--json]\n"
    "         [--no-cache] [--cache-dir DIR] [--timeout MS] [--allow-expired-collateral]\n"
    "      full DCAP verification by Intel QVL's rules; prints the verdict, the TCB\n"
    "      status, advisories and the fetch and verify times\n"
    "  verify REPORT (--certs DIR | --kds URL [--product milan|genoa|turin])\n"
    "         [--root ARK_FILE] [--now UNIX_TIME] [--allow-debug] [--policy FILE] [--json]\n"
    "         [--no-cache] [--cache-dir DIR] [--timeout MS] [--allow-expired-collateral]\n"
    "      SEV-SNP: ARK -> ASK -> VCEK/VLEK (built-in ARK/ASK of Milan, Genoa, Turin),\n"
    "      CRL, TCB and chip id against the VCEK, the report signature, the policy\n"
    "  collateral QUOTE --pccs URL [-o FILE] [--timeout MS]\n"
    "      fetch the quote's collateral from a PCS/PCCS (v4 API), write dcap-qvl JSON\n"
    "  quote (--report-data HEX | --report-data-file FILE) [-o OUT]\n"
    "        [--provider tsm|sim|snp|sim-snp] [--sim-dir DIR] [--debug]\n"
    "      get a TDX quote from configfs-tsm (default) or the SIMULATED provider, or an\n"
    "      SEV-SNP report (snp: configfs-tsm sev_guest; sim-snp: SIMULATED);\n"
    "      without -o the quote is printed as hex\n"
    "  sim-snp-certs DIR [--sim-dir DIR] [--now UNIX_TIME] [--revoke-vcek]\n"
    "      write the SIMULATED SEV-SNP certificates (ark.pem, ask.pem, vcek.der, crl.der)\n"
    "  sim-collateral DIR [--sim-dir DIR] [--now UNIX_TIME] [--revoke-pck]\n"
    "      write SIMULATED collateral (DIR/collateral.json) and root (DIR/sim-root.pem)\n"
    "  bench QUOTE --collateral FILE [--now UNIX_TIME] [--root CA_FILE] [--iterations N]\n"
    "        [--json]\n"
    "  bench REPORT --certs DIR [--now UNIX_TIME] [--root ARK_FILE] [--iterations N] [--json]\n"
    "      time verification per quote: from scratch (collateral JSON parsed and checked\n"
    "      every time) and with prepared collateral (checked once)\n"
    "\n"
    "exit codes: 0 accepted, 1 error (a file that cannot be read, a failed fetch), 2 usage,\n"
    "            3 valid but refused by the policy, 4 invalid quote (bytes that are no\n"
    "            quote included), 5 collateral expired (verify)\n";

static int usage_fail(const char *cmd, const char *msg)
{
    return cli_fail_code(2, cmd, "%s (teebench attest --help)", msg);
}

/* Every subcommand's --help is the one text above. */
static void attest_usage(FILE *f, const cli_cmd *c)
{
    (void)c;
    fputs(USAGE, f);
}

/* --now: a UNIX time in seconds; --timeout: milliseconds. */
#define NOW_FLAG(T) CLI_I64("now", 0, T, now, 0, 1e19, "UNIX_TIME", NULL)
#define TIMEOUT_FLAG(T) CLI_I64("timeout", 0, T, timeout, 1, 86400000, "MS", NULL)
#define HELP_FLAG                                                                                  \
    {                                                                                              \
        .name = "help", .shortc = 'h', .type = CLI_F_HELP                                          \
    }

static int64_t wall_now(void)
{
    return (int64_t)(tb_wall_ns() / 1000000000ull);
}

/* ------------------------------------------------------------------ show */

static json_t *hexj(const uint8_t *p, size_t n)
{
    char buf[2 * 648 + 1];
    tb_hex_encode(p, n, buf);
    return json_string(buf);
}

static void chain_info(const tb_tdx_quote *q, json_t *o)
{
    char fmspc[13];
    const char *ca;
    tb_err e;
    if (tb_tdx_quote_fmspc_ca(q, fmspc, &ca, &e) == 0) {
        json_object_set_new(o, "fmspc", json_string(fmspc));
        json_object_set_new(o, "pck_ca", json_string(ca));
    } else {
        json_object_set_new(o, "pck_error", json_string(e.msg));
    }
}

static json_t *quote_json(const tb_tdx_quote *q)
{
    json_t *o = json_object(), *h = json_object(), *b = json_object(), *s = json_object(),
           *r = json_object();
    json_object_set_new(o, "simulated", json_boolean(tb_tdx_quote_is_simulated(q)));
    json_object_set_new(h, "version", json_integer(q->version));
    json_object_set_new(h, "att_key_type", json_integer(q->att_key_type));
    json_object_set_new(h, "tee_type", json_integer(q->tee_type));
    json_object_set_new(h, "qe_svn", json_integer(q->qe_svn));
    json_object_set_new(h, "pce_svn", json_integer(q->pce_svn));
    json_object_set_new(h, "qe_vendor_id", hexj(q->qe_vendor_id, 16));
    json_object_set_new(h, "user_data", hexj(q->user_data, 20));
    json_object_set_new(o, "header", h);
    const tb_tdx_td_report *t = &q->td;
    json_object_set_new(b, "body_type", json_integer(q->body_type));
    json_object_set_new(b, "tee_tcb_svn", hexj(t->tee_tcb_svn, 16));
    json_object_set_new(b, "mrseam", hexj(t->mrseam, 48));
    json_object_set_new(b, "mrsignerseam", hexj(t->mrsignerseam, 48));
    json_object_set_new(b, "seam_attributes", hexj(t->seam_attributes, 8));
    json_object_set_new(b, "td_attributes", hexj(t->td_attributes, 8));
    json_object_set_new(b, "debug", json_boolean(tb_tdx_quote_is_debug(q)));
    json_object_set_new(b, "xfam", hexj(t->xfam, 8));
    json_object_set_new(b, "mrtd", hexj(t->mrtd, 48));
    json_object_set_new(b, "mrconfigid", hexj(t->mrconfigid, 48));
    json_object_set_new(b, "mrowner", hexj(t->mrowner, 48));
    json_object_set_new(b, "mrownerconfig", hexj(t->mrownerconfig, 48));
    for (int i = 0; i < 4; i++) {
        char k[8];
        snprintf(k, sizeof k, "rtmr%d", i);
        json_object_set_new(b, k, hexj(t->rtmr[i], 48));
    }
    json_object_set_new(b, "report_data", hexj(t->reportdata, 64));
    if (q->body_type == 3) {
        json_object_set_new(b, "tee_tcb_svn2", hexj(t->tee_tcb_svn2, 16));
        json_object_set_new(b, "mrservicetd", hexj(t->mrservicetd, 48));
    }
    json_object_set_new(o, "td_report", b);
    json_object_set_new(s, "signature_data_bytes", json_integer(q->sig_data_len));
    json_object_set_new(s, "signature", hexj(q->signature, 64));
    json_object_set_new(s, "attestation_key", hexj(q->att_key, 64));
    json_object_set_new(s, "certification_data_type", json_integer(q->cert_type));
    const tb_tdx_sgx_report *e = &q->qe_report;
    json_object_set_new(r, "cpusvn", hexj(e->cpusvn, 16));
    json_object_set_new(r, "miscselect", json_integer(e->miscselect));
    json_object_set_new(r, "attributes", hexj(e->attributes, 16));
    json_object_set_new(r, "mrenclave", hexj(e->mrenclave, 32));
    json_object_set_new(r, "mrsigner", hexj(e->mrsigner, 32));
    json_object_set_new(r, "isvprodid", json_integer(e->isvprodid));
    json_object_set_new(r, "isvsvn", json_integer(e->isvsvn));
    json_object_set_new(r, "report_data", hexj(e->reportdata, 64));
    json_object_set_new(s, "qe_report", r);
    json_object_set_new(s, "qe_report_signature", hexj(q->qe_report_sig, 64));
    json_object_set_new(s, "qe_auth_data_bytes", json_integer(q->qe_auth_len));
    json_object_set_new(s, "pck_cert_data_type", json_integer(q->pck_cert_type));
    json_object_set_new(s, "pck_chain_bytes", json_integer((json_int_t)q->pck_chain_len));
    json_t *subjects = json_array();
    char subj[4][256];
    tb_err err;
    int n = tb_tdx_quote_pck_subjects(q, subj, 4, &err);
    for (int i = 0; i < n; i++)
        json_array_append_new(subjects, json_string(subj[i]));
    json_object_set_new(s, "pck_subjects", subjects);
    chain_info(q, s);
    json_object_set_new(o, "signature_data", s);
    json_object_set_new(o, "trailing_bytes", json_integer((json_int_t)q->trailing));
    return o;
}

typedef struct show_args {
    int json;
} show_args;

static const cli_flag show_flags[] = {CLI_BOOL("json", 'j', show_args, json, NULL), HELP_FLAG, {0}};
const cli_cmd cli_attest_show_cmd = {
    .name = "attest show", .flags = show_flags, .usage = attest_usage, .max_operands = -1};

static int cmd_show(int argc, char **argv)
{
    show_args a = {0};
    int first, done = cli_flags_parse(&cli_attest_show_cmd, argc, argv, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    int json = a.json;
    if (optind != argc - 1)
        return usage_fail("attest show", "want exactly one QUOTE file");
    tb_tdx_quote *q;
    tb_err e;
    uint8_t *raw;
    size_t rawn;
    if (tb_attest_evidence_file_read(argv[optind], &raw, &rawn, &e) < 0)
        return cli_fail("attest show", "%s", e.msg);
    if (tb_snp_sniff(raw, rawn)) {
        int rc = cli_attest_snp_show(argv[optind], raw, rawn, json);
        free(raw);
        return rc;
    }
    free(raw);
    if (tb_tdx_quote_load(argv[optind], &q, &e) < 0)
        return cli_fail("attest show", "%s", e.msg);
    json_t *o = quote_json(q);
    if (json) {
        cli_json_print("attest show",
                       cli_json_envelope("teebench-attest-show/1", json_incref(o), 0));
    } else {
        if (tb_tdx_quote_is_simulated(q))
            printf("SIMULATED quote (teebench simulated provider, not a real TDX module)\n");
        printf("TDX quote v%u, body type %u (%s), %zu bytes\n", q->version, q->body_type,
               q->body_type == 3 ? "TDX 1.5" : "TDX 1.0", q->raw_len);
        printf("td_attributes debug: %s\n", tb_tdx_quote_is_debug(q) ? "DEBUG (bit 0 set)" : "off");
        cli_json_print_text(o, 0, 22);
    }
    json_decref(o);
    tb_tdx_quote_free(q);
    return 0;
}

/* ------------------------------------------------------------------ verify */

/* advisories: the union, then each level's own (platform, TDX module, QE identity). */
static void print_advisories(const tb_tdx_verdict *v)
{
    static const char *const label[] = {"  platform:   ", "  tdx module: ", "  qe:         "};
    printf("advisories:   ");
    for (int i = 0; i < v->n_advisories; i++)
        printf("%s%s", i ? ", " : "", tb_tdx_verdict_advisory(v, i));
    printf("%s%s\n", v->n_advisories ? " (every matched TCB level's, each once)" : "none",
           v->advisories_cut ? " (more did not fit)" : "");
    if (!v->n_advisories)
        return;
    for (unsigned k = 0; k < 3; k++) {
        int n = 0;
        printf("%s", label[k]);
        for (int i = 0; i < v->n_advisories; i++)
            if (v->advisory_from[i] & (1u << k))
                printf("%s%s", n++ ? ", " : "", tb_tdx_verdict_advisory(v, i));
        printf("%s\n", n ? "" : "none");
    }
}

/* The TCB statuses and dates of a verdict that reached them, into o. */
static void json_set_tcb_status(json_t *o, const tb_tdx_verdict *v)
{
    if (!v->status_known)
        return;
    json_object_set_new(o, "tcb_status", json_string(tb_attest_tcb_status_name(v->status)));
    json_object_set_new(o, "platform_tcb_status",
                        json_string(tb_attest_tcb_status_name(v->platform_status)));
    json_object_set_new(o, "tdx_module_tcb_status",
                        json_string(tb_attest_tcb_status_name(v->module_status)));
    json_object_set_new(o, "qe_tcb_status", json_string(tb_attest_tcb_status_name(v->qe_status)));
    json_object_set_new(o, "tcb_date", json_string(v->tcb_date));
    json_object_set_new(o, "qe_tcb_date", json_string(v->qe_tcb_date));
    json_object_set_new(o, "tdx_module_tcb_date",
                        v->module_tcb_date[0] ? json_string(v->module_tcb_date) : json_null());
}

/* When the collateral expires (or expired), into o; nothing if unknown. */
static void json_set_collateral_expiration(json_t *o, const tb_tdx_verdict *v)
{
    if (!v->collateral_expiration)
        return;
    char d[32];
    tb_utc_iso8601(v->collateral_expiration, d, sizeof d);
    json_object_set_new(o, "collateral_expiration", json_string(d));
    json_object_set_new(o, "collateral_expiration_what",
                        json_string(v->collateral_expiration_what));
    json_object_set_new(o, "collateral_expired", json_boolean(v->collateral_expired));
}

/* The advisory IDs, the TCB levels each came from, and the platform's SA list, into o. */
static void json_set_advisories(json_t *o, const tb_tdx_verdict *v)
{
    json_t *adv = json_array();
    json_t *from = json_array();
    tb_buf sa = {0};
    for (int i = 0; i < v->n_advisories; i++) {
        const char *id = tb_tdx_verdict_advisory(v, i);
        json_array_append_new(adv, json_string(id));
        json_t *levels = json_array();
        for (unsigned bit = 1; bit <= TB_TDX_ADV_QE; bit <<= 1)
            if (v->advisory_from[i] & bit)
                json_array_append_new(levels, json_string(tb_tdx_adv_level_name(bit)));
        json_array_append_new(from, json_pack("{s:s, s:o}", "id", id, "levels", levels));
        if (v->advisory_from[i] & TB_TDX_ADV_PLATFORM)
            tb_buf_printf(&sa, "%s%s", sa.len ? "," : "", id);
    }
    json_object_set_new(o, "advisory_ids", adv);
    json_object_set_new(o, "advisories", from);
    json_object_set_new(o, "advisories_cut", json_boolean(v->advisories_cut));
    json_object_set_new(o, "sa_list", json_string(sa.len ? (char *)sa.p : ""));
    tb_buf_clear(&sa);
}

/* `attest verify --json`: the verdict, its TCB and collateral facts and the timing. */
static void print_verdict_json(const char *path, const tb_tdx_verdict *v, const tb_tdx_timing *t,
                               const char *how, int sim)
{
    json_t *o = json_object();
    json_object_set_new(o, "quote", json_string(path));
    json_object_set_new(o, "simulated", json_boolean(sim));
    json_object_set_new(o, "verdict", json_string(tb_attest_result_name(v->result)));
    json_object_set_new(o, "step", json_string(tb_tdx_step_name(v->step)));
    json_object_set_new(
        o, "step_number",
        json_integer(v->step >= TB_TDX_STEP_HEADER && v->step <= TB_TDX_STEP_TCB_LEVEL
                         ? v->step - TB_TDX_STEP_HEADER + 1
                         : 0));
    json_object_set_new(o, "reason", json_string(v->reason));
    json_set_tcb_status(o, v);
    json_set_collateral_expiration(o, v);
    json_set_advisories(o, v);
    json_object_set_new(o, "fmspc", json_string(v->fmspc));
    json_object_set_new(o, "debug", json_boolean(v->debug));
    json_object_set_new(o, "collateral_source", json_string(how));
    json_object_set_new(o, "collateral_refetched", json_boolean(t->refetched));
    json_object_set_new(o, "fetch_ms", json_real((double)t->fetch_ns / 1e6));
    json_object_set_new(o, "verify_ms", json_real((double)t->verify_ns / 1e6));
    cli_json_print("attest verify",
                   cli_json_envelope("teebench-attest-verify/1", json_incref(o), 0));
    json_decref(o);
}

/* `attest verify`: the same facts as lines for a reader. */
static void print_verdict_text(const char *path, const tb_tdx_quote *q, const tb_tdx_verdict *v,
                               const tb_tdx_timing *t, const char *how, int sim)
{
    printf("quote:        %s (TDX v%u)%s\n", path, q->version,
           sim ? " [SIMULATED: teebench simulated provider/root, not Intel]" : "");
    printf("verdict:      %s\n", tb_attest_result_name(v->result));
    if (v->result != TB_ATTEST_ACCEPTED) {
        if (v->step >= TB_TDX_STEP_HEADER && v->step <= TB_TDX_STEP_TCB_LEVEL)
            printf("failed step:  %d (%s): %s\n", v->step - TB_TDX_STEP_HEADER + 1,
                   tb_tdx_step_name(v->step), v->reason);
        else
            printf("failed step:  %s: %s\n", tb_tdx_step_name(v->step), v->reason);
    }
    if (v->status_known) {
        printf("tcb status:   %s (platform %s, TDX module %s, QE %s)\n",
               tb_attest_tcb_status_name(v->status), tb_attest_tcb_status_name(v->platform_status),
               tb_attest_tcb_status_name(v->module_status),
               tb_attest_tcb_status_name(v->qe_status));
        printf("tcb date:     %s (platform TCB level, TCB info)\n", v->tcb_date);
        if (v->module_tcb_date[0])
            printf("module date:  %s (TDX module TCB level, TCB info)\n", v->module_tcb_date);
        printf("qe tcb date:  %s (QE identity TCB level)\n", v->qe_tcb_date);
        print_advisories(v);
    }
    if (v->collateral_expiration) {
        char d[32];
        tb_utc_iso8601(v->collateral_expiration, d, sizeof d);
        printf("collateral:   %s %s (%s)\n", v->collateral_expired ? "EXPIRED at" : "valid until",
               d, v->collateral_expiration_what);
    }
    if (v->fmspc[0])
        printf("fmspc:        %s\n", v->fmspc);
    printf("debug TD:     %s\n", v->debug ? "yes" : "no");
    printf("fetch time:   %.3f ms (collateral from %s%s)\n", (double)t->fetch_ns / 1e6, how,
           t->refetched ? "; the cached collateral failed and was fetched again" : "");
    printf("verify time:  %.3f ms\n", (double)t->verify_ns / 1e6);
}

static void print_verdict(const char *path, const tb_tdx_quote *q, const tb_tdx_verdict *v,
                          const tb_tdx_timing *t, const char *source, int json)
{
    int sim = v->simulated || tb_tdx_quote_is_simulated(q);
    const char *how = t->from_cache ? "cache" : (!strncmp(source, "http", 4) ? "network" : "file");
    if (json)
        print_verdict_json(path, v, t, how, sim);
    else
        print_verdict_text(path, q, v, t, how, sim);
}

/* The policy of `attest verify`, for both TEEs: --policy FILE (else the default) with
   --allow-debug and --allow-expired-collateral on top. 0, or the exit code of the error. */
static int verify_policy(const char *cmd, const char *policy_path, int allow_debug,
                         int allow_expired, tb_attest_policy *pol)
{
    tb_err e;
    if (!policy_path)
        tb_attest_policy_default(pol);
    else if (tb_attest_policy_load(policy_path, pol, &e) < 0)
        return cli_fail(cmd, "%s", e.msg);
    if (allow_debug)
        pol->allow_debug = 1;
    if (allow_expired)
        pol->allow_expired_collateral = 1;
    return 0;
}

/* An SEV-SNP report with --certs or --kds: reads it and hands over to cli/attest_snp.c. */
static int verify_snp(const char *path, const char *certs, const char *kds, const char *root,
                      tb_snp_product product, int64_t now, const char *policy_path, int allow_debug,
                      int allow_expired, int json, const tb_tdx_fetch_opts *fo, int64_t timeout)
{
    const char *cmd = "attest verify";
    tb_attest_policy pol;
    tb_err e;
    int prc = verify_policy(cmd, policy_path, allow_debug, allow_expired, &pol);
    if (prc)
        return prc;
    uint8_t *b;
    size_t n;
    if (tb_attest_evidence_file_read(path, &b, &n, &e) < 0)
        return cli_fail(cmd, "%s", e.msg);
    if (!tb_snp_sniff(b, n)) {
        free(b);
        return cli_fail_code(EXIT_INVALID, cmd,
                             "%s: invalid: step parse: not an SEV-SNP report (%zu bytes; "
                             "--certs / --kds are for SEV-SNP, --collateral / --pccs for TDX)",
                             path, n);
    }
    cli_snp_verify_args a = {.path = path,
                             .report = b,
                             .len = n,
                             .certs = certs,
                             .kds = kds,
                             .root = root,
                             .product = product,
                             .now = now < 0 ? wall_now() : now,
                             .policy = &pol,
                             .json = json};
    a.kds_opts.timeout_ms = (long)timeout;
    a.kds_opts.cache_dir = fo->cache_dir;
    a.kds_opts.no_cache = fo->no_cache;
    int rc = cli_attest_snp_verify(&a);
    free(b);
    return rc;
}

typedef struct verify_args {
    const char *collateral, *pccs, *root, *policy_path, *certs, *kds;
    tb_snp_product product;
    int json, allow_debug, allow_expired;
    int64_t now, timeout;
    tb_tdx_fetch_opts fo;
} verify_args;

static int set_product(void *args, const char *flag, const char *v, tb_err *err)
{
    if (tb_snp_product_parse(v, &((verify_args *)args)->product) < 0)
        return tb_errf(err, "%s wants milan, genoa or turin (teebench attest --help)", flag);
    return 0;
}

static const cli_flag verify_flags[] = {
    CLI_STR("collateral", 0, verify_args, collateral, "FILE", NULL),
    CLI_STR("pccs", 0, verify_args, pccs, "URL", NULL),
    NOW_FLAG(verify_args),
    CLI_STR("root", 0, verify_args, root, "CA_FILE", NULL),
    CLI_BOOL("allow-debug", 0, verify_args, allow_debug, NULL),
    CLI_STR("policy", 0, verify_args, policy_path, "FILE", NULL),
    CLI_BOOL("json", 0, verify_args, json, NULL),
    CLI_BOOL("no-cache", 0, verify_args, fo.no_cache, NULL),
    CLI_STR("cache-dir", 0, verify_args, fo.cache_dir, "DIR", NULL),
    TIMEOUT_FLAG(verify_args),
    CLI_BOOL("allow-expired-collateral", 0, verify_args, allow_expired, NULL),
    CLI_STR("certs", 0, verify_args, certs, "DIR", NULL),
    CLI_STR("kds", 0, verify_args, kds, "URL", NULL),
    CLI_CALL("product", 0, set_product, "milan|genoa|turin", NULL),
    HELP_FLAG,
    {0}};
const cli_cmd cli_attest_verify_cmd = {
    .name = "attest verify", .flags = verify_flags, .usage = attest_usage, .max_operands = -1};

static int cmd_verify(int argc, char **argv)
{
    const char *cmd = "attest verify";
    verify_args a = {.product = TB_SNP_UNKNOWN, .now = -1, .timeout = 10000};
    int first, done = cli_flags_parse(&cli_attest_verify_cmd, argc, argv, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    const char *collateral = a.collateral, *pccs = a.pccs, *root = a.root,
               *policy_path = a.policy_path, *certs = a.certs, *kds = a.kds;
    tb_snp_product product = a.product;
    int json = a.json, allow_debug = a.allow_debug, allow_expired = a.allow_expired;
    int64_t now = a.now, timeout = a.timeout;
    tb_tdx_fetch_opts fo = a.fo;
    if (optind != argc - 1)
        return usage_fail(cmd, "want exactly one QUOTE file");
    if (certs || kds) {
        if (collateral || pccs || (certs && kds))
            return usage_fail(cmd, "want one of --certs DIR or --kds URL (an SEV-SNP report)");
        if (kds && strncmp(kds, "http://", 7) && strncmp(kds, "https://", 8))
            return usage_fail(cmd, "--kds wants an http:// or https:// URL");
        return verify_snp(argv[optind], certs, kds, root, product, now, policy_path, allow_debug,
                          allow_expired, json, &fo, timeout);
    }
    if (product)
        return usage_fail(cmd, "--product is for SEV-SNP reports (with --kds)");
    if (!!collateral == !!pccs)
        return usage_fail(cmd, "want one of --collateral FILE or --pccs URL");
    if (pccs && strncmp(pccs, "http://", 7) && strncmp(pccs, "https://", 8))
        return usage_fail(cmd, "--pccs wants an http:// or https:// URL");
    fo.timeout_ms = (long)timeout;
    if (now < 0)
        now = wall_now();
    tb_attest_policy pol;
    tb_err e;
    int prc = verify_policy(cmd, policy_path, allow_debug, allow_expired, &pol);
    if (prc)
        return prc;
    const char *path = argv[optind];
    uint8_t *qb;
    size_t qn;
    if (tb_attest_evidence_file_read(path, &qb, &qn, &e) < 0)
        return cli_fail(cmd, "%s", e.msg); /* unreadable: an error, not an invalid quote */
    if (tb_snp_sniff(qb, qn)) {
        free(qb);
        return usage_fail(cmd,
                          "this is an SEV-SNP report: verify it with --certs DIR or --kds URL");
    }
    tb_tdx_quote *q;
    int rc = tb_tdx_quote_parse(qb, qn, &q, &e);
    free(qb);
    if (rc < 0) /* bytes that are no quote: invalid (the verifier's parse step) */
        return cli_fail_code(EXIT_INVALID, cmd, "%s: invalid: step %s: %s", path,
                             tb_tdx_step_name(TB_TDX_STEP_PARSE), e.msg);
    tb_tdx_verdict v;
    tb_tdx_timing t;
    const char *source = collateral ? collateral : pccs;
    rc = tb_tdx_verify_quote(q->raw, q->raw_len, source, root, now, &pol, &fo, &v, &t, &e);
    if (rc < 0 && v.step == TB_TDX_STEP_NONE && v.result == TB_ATTEST_INVALID) {
        tb_tdx_quote_free(q);
        return cli_fail(cmd, "%s", v.reason); /* collateral / root not loadable */
    }
    if (t.refetch_failed) { /* the cached collateral failed, fresh collateral is not at hand:
                               no verdict on the quote (as attest_snp's verify says too) */
        tb_tdx_quote_free(q);
        return cli_fail(cmd, "%s", t.refetch_err.msg);
    }
    if (t.not_kept)
        fprintf(stderr, "teebench: %s: warning: collateral not cached: %s\n", cmd,
                t.not_kept_err.msg);
    print_verdict(path, q, &v, &t, source, json);
    fflush(stdout);
    int sim = v.simulated || tb_tdx_quote_is_simulated(q);
    tb_tdx_quote_free(q);
    if (v.result == TB_ATTEST_ACCEPTED)
        return 0;
    if (v.result == TB_ATTEST_REFUSED)
        return cli_fail_code(EXIT_REFUSED, cmd, "%s%s: refused by the policy: %s", path,
                             sim ? " (SIMULATED)" : "", v.reason);
    if (v.result == TB_ATTEST_EXPIRED)
        return cli_fail_code(EXIT_EXPIRED, cmd, "%s%s: %s", path, sim ? " (SIMULATED)" : "",
                             v.reason);
    return cli_fail_code(EXIT_INVALID, cmd, "%s%s: invalid: step %s: %s", path,
                         sim ? " (SIMULATED)" : "", tb_tdx_step_name(v.step), v.reason);
}

/* --------------------------------------------------------------- collateral */

typedef struct collateral_args {
    const char *pccs, *out;
    int64_t timeout;
} collateral_args;

static const cli_flag collateral_flags[] = {
    CLI_STR("pccs", 0, collateral_args, pccs, "URL", NULL),
    CLI_STR("output", 'o', collateral_args, out, "FILE", NULL),
    TIMEOUT_FLAG(collateral_args),
    HELP_FLAG,
    {0}};
const cli_cmd cli_attest_collateral_cmd = {.name = "attest collateral",
                                           .flags = collateral_flags,
                                           .usage = attest_usage,
                                           .max_operands = -1};

static int cmd_collateral(int argc, char **argv)
{
    const char *cmd = "attest collateral";
    collateral_args a = {.timeout = 10000};
    int first, done = cli_flags_parse(&cli_attest_collateral_cmd, argc, argv, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    const char *pccs = a.pccs, *out = a.out;
    int64_t timeout = a.timeout;
    if (optind != argc - 1 || !pccs)
        return usage_fail(cmd, "want QUOTE and --pccs URL");
    tb_tdx_quote *q;
    tb_err e;
    if (tb_tdx_quote_load(argv[optind], &q, &e) < 0)
        return cli_fail(cmd, "%s", e.msg);
    char fmspc[13];
    const char *ca;
    int rc = tb_tdx_quote_fmspc_ca(q, fmspc, &ca, &e);
    tb_tdx_quote_free(q);
    if (rc < 0)
        return cli_fail(cmd, "%s: %s", argv[optind], e.msg);
    tb_tdx_collateral col;
    uint64_t t0 = tb_mono_ns();
    if (tb_tdx_pccs_fetch(pccs, fmspc, ca, (long)timeout, &col, &e) < 0)
        return cli_fail(cmd, "%s", e.msg);
    uint64_t dt = tb_mono_ns() - t0;
    char *json;
    if (tb_tdx_collateral_to_json(&col, &json, &e) < 0) {
        tb_tdx_collateral_clear(&col);
        return cli_fail(cmd, "%s", e.msg);
    }
    tb_tdx_collateral_clear(&col);
    rc = 0;
    if (out) {
        if (tb_file_write_atomic(out, json, strlen(json), &e) < 0)
            rc = cli_fail(cmd, "%s", e.msg);
        else
            fprintf(stderr, "fetched collateral for FMSPC %s (%s CA) in %.3f ms -> %s\n", fmspc, ca,
                    (double)dt / 1e6, out);
    } else {
        printf("%s\n", json);
        fprintf(stderr, "fetched collateral for FMSPC %s (%s CA) in %.3f ms\n", fmspc, ca,
                (double)dt / 1e6);
    }
    free(json);
    return rc;
}

/* ------------------------------------------------------------------ quote */

typedef struct quote_args {
    const char *hex, *file, *out;
    tb_attest_get_opts qo;
    tb_tee kind;
} quote_args;

static int set_provider(void *args, const char *flag, const char *v, tb_err *err)
{
    if (tb_tee_provider(v, &((quote_args *)args)->kind) < 0)
        return tb_errf(err, "%s wants tsm, sim, snp or sim-snp (teebench attest --help)", flag);
    return 0;
}

static const cli_flag quote_flags[] = {
    CLI_STR("report-data", 0, quote_args, hex, "HEX", NULL),
    CLI_STR("report-data-file", 0, quote_args, file, "FILE", NULL),
    CLI_STR("output", 'o', quote_args, out, "OUT", NULL),
    CLI_CALL("provider", 0, set_provider, "tsm|sim|snp|sim-snp", NULL),
    CLI_STR("sim-dir", 0, quote_args, qo.sim_dir, "DIR", NULL),
    CLI_BOOL("debug", 0, quote_args, qo.sim_debug, NULL),
    HELP_FLAG,
    {0}};
const cli_cmd cli_attest_quote_cmd = {
    .name = "attest quote", .flags = quote_flags, .usage = attest_usage, .max_operands = 0};

static int cmd_quote(int argc, char **argv)
{
    const char *cmd = "attest quote";
    quote_args a = {.kind = TB_TEE_TDX};
    int first, done = cli_flags_parse(&cli_attest_quote_cmd, argc, argv, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    const char *hex = a.hex, *file = a.file, *out = a.out;
    tb_attest_get_opts qo = a.qo;
    tb_tee kind = a.kind;
    if (!!hex == !!file)
        return usage_fail(cmd, "want one of --report-data HEX or --report-data-file FILE");
    if (qo.sim_debug && !tb_tee_simulated(kind))
        return usage_fail(cmd, "--debug is for the simulated provider only");
    uint8_t rd[64] = {0};
    tb_err e;
    if (hex) {
        size_t n = strlen(hex);
        if (n == 0 || n > 128 || n % 2 || tb_hex_decode(hex, n, rd, n / 2) < 0)
            return usage_fail(cmd, "--report-data wants 1..64 bytes of hex (zero-padded)");
    } else {
        tb_buf b = {0};
        if (tb_file_read(file, 4096, &b, &e) < 0)
            return cli_fail(cmd, "%s", e.msg);
        if (b.len > 64) {
            tb_buf_clear(&b);
            return cli_fail(cmd, "%s: report data is %zu bytes (at most 64)", file, b.len);
        }
        memcpy(rd, b.p, b.len);
        tb_buf_clear(&b);
    }
    uint8_t *quote;
    size_t len;
    /* the time includes opening the provider (a SIMULATED one reads its PKI) */
    uint64_t t0 = tb_mono_ns();
    tb_attest_evidence *ev;
    if (tb_attest_evidence_open(kind, qo.sim_dir, qo.tsm_root, &ev, &e) < 0)
        return cli_fail(cmd, "%s", e.msg);
    int rc = tb_attest_evidence_get_debug(ev, rd, qo.sim_debug, &quote, &len, &e);
    tb_attest_evidence_close(ev);
    if (rc < 0)
        return cli_fail(cmd, "%s", e.msg);
    uint64_t dt = tb_mono_ns() - t0;
    static const char *const LABEL[TB_TEE_COUNT] = {
        [TB_TEE_TDX] = "TDX quote (configfs-tsm)",
        [TB_TEE_SNP] = "SEV-SNP report (configfs-tsm)",
        [TB_TEE_SIM] = "SIMULATED quote (teebench sim provider)",
        [TB_TEE_SIM_SNP] = "SIMULATED SEV-SNP report (teebench sim-snp provider)",
    };
    const char *label = LABEL[kind];
    rc = 0;
    if (out) {
        if (tb_file_write_atomic(out, quote, len, &e) < 0)
            rc = cli_fail(cmd, "%s", e.msg);
        else
            fprintf(stderr, "%s: %zu bytes in %.3f ms -> %s\n", label, len, (double)dt / 1e6, out);
    } else {
        char *h = malloc(2 * len + 1);
        if (!h) {
            free(quote);
            return cli_fail(cmd, "out of memory");
        }
        tb_hex_encode(quote, len, h);
        printf("%s\n", h);
        free(h);
        fprintf(stderr, "%s: %zu bytes in %.3f ms\n", label, len, (double)dt / 1e6);
    }
    free(quote);
    return rc;
}

/* ------------------------------------------ sim-collateral, sim-snp-certs */

/* The arguments both sim writers take: DIR [--sim-dir DIR] [--now UNIX_TIME] [--REVOKE]. */
typedef struct sim_args {
    const char *simdir, *outdir;
    int64_t now; /* wall_now() when not given */
    int revoke;
} sim_args;

static const cli_flag sim_collateral_flags[] = {
    CLI_STR("sim-dir", 0, sim_args, simdir, "DIR", NULL),
    NOW_FLAG(sim_args),
    CLI_BOOL("revoke-pck", 0, sim_args, revoke, NULL),
    HELP_FLAG,
    {0}};
const cli_cmd cli_attest_sim_collateral_cmd = {.name = "attest sim-collateral",
                                               .flags = sim_collateral_flags,
                                               .usage = attest_usage,
                                               .max_operands = -1};

static const cli_flag sim_snp_certs_flags[] = {CLI_STR("sim-dir", 0, sim_args, simdir, "DIR", NULL),
                                               NOW_FLAG(sim_args),
                                               CLI_BOOL("revoke-vcek", 0, sim_args, revoke, NULL),
                                               HELP_FLAG,
                                               {0}};
const cli_cmd cli_attest_sim_snp_certs_cmd = {.name = "attest sim-snp-certs",
                                              .flags = sim_snp_certs_flags,
                                              .usage = attest_usage,
                                              .max_operands = -1};

/* -1: parsed, go on; else the exit code (help printed, or a usage error reported). */
static int parse_sim_args(int argc, char **argv, const cli_cmd *c, sim_args *a)
{
    const char *cmd = c->name;
    memset(a, 0, sizeof *a);
    a->now = -1;
    int first, done = cli_flags_parse(c, argc, argv, a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    if (optind != argc - 1)
        return usage_fail(cmd, "want exactly one output DIR");
    if (a->now < 0)
        a->now = wall_now();
    a->outdir = argv[optind];
    return -1;
}

static int cmd_sim_collateral(int argc, char **argv)
{
    const char *cmd = "attest sim-collateral";
    sim_args a;
    int rc = parse_sim_args(argc, argv, &cli_attest_sim_collateral_cmd, &a);
    if (rc >= 0)
        return rc;
    const char *outdir = a.outdir;
    char dir[4096];
    tb_err e;
    int ofd = -1;
    if (tb_attest_sim_dir(a.simdir, dir, sizeof dir, &e) < 0 ||
        (ofd = tb_dir_open_private(outdir, 0700, &e)) < 0)
        return cli_fail(cmd, "%s", e.msg);
    tb_tdx_collateral col;
    if (tb_tdx_sim_collateral(dir, a.now, a.revoke, &col, NULL, &e) < 0) {
        close(ofd);
        return cli_fail(cmd, "%s", e.msg);
    }
    char *json = NULL, root[4096];
    rc = tb_tdx_collateral_to_json(&col, &json, &e);
    tb_tdx_collateral_clear(&col);
    if (rc == 0)
        rc = tb_tdx_sim_root_path(dir, root, sizeof root, &e);
    tb_buf rb = {0};
    if (rc == 0)
        rc = tb_file_read(root, 1 << 16, &rb, &e);
    if (rc == 0)
        rc = tb_file_write_at(ofd, outdir, "collateral.json", json, strlen(json), 0644, &e);
    if (rc == 0)
        rc = tb_file_write_at(ofd, outdir, "sim-root.pem", rb.p, rb.len, 0644, &e);
    close(ofd);
    free(json);
    tb_buf_clear(&rb);
    if (rc < 0)
        return cli_fail(cmd, "%s", e.msg);
    printf("wrote SIMULATED collateral %s/collateral.json and root %s/sim-root.pem "
           "(sim PKI %s%s)\n",
           outdir, outdir, dir, a.revoke ? "; the PCK certificate is revoked" : "");
    return 0;
}

static int cmd_sim_snp_certs(int argc, char **argv)
{
    const char *cmd = "attest sim-snp-certs";
    sim_args a;
    int rc = parse_sim_args(argc, argv, &cli_attest_sim_snp_certs_cmd, &a);
    if (rc >= 0)
        return rc;
    char dir[4096];
    tb_err e;
    if (tb_attest_sim_dir(a.simdir, dir, sizeof dir, &e) < 0 ||
        tb_snp_sim_certs(dir, a.outdir, a.now, a.revoke, &e) < 0)
        return cli_fail(cmd, "%s", e.msg);
    printf("wrote SIMULATED SEV-SNP certificates %s/{ark.pem,ask.pem,vcek.der,crl.der} (sim PKI "
           "%s/snp%s); verify with --certs %s --root %s/ark.pem\n",
           a.outdir, dir, a.revoke ? "; the VCEK is revoked" : "", a.outdir, a.outdir);
    return 0;
}

/* ------------------------------------------------------------------ bench */

typedef struct bench_args {
    const char *col, *rootp, *certs;
    int64_t now, iters;
    int json;
} bench_args;

static const cli_flag bench_flags[] = {
    CLI_STR("collateral", 0, bench_args, col, "FILE", NULL),
    CLI_STR("certs", 0, bench_args, certs, "DIR", NULL),
    NOW_FLAG(bench_args),
    CLI_STR("root", 0, bench_args, rootp, "CA_FILE", NULL),
    CLI_I64("iterations", 0, bench_args, iters, 5, 10000000, "N", NULL),
    CLI_BOOL("json", 0, bench_args, json, NULL),
    HELP_FLAG,
    {0}};
const cli_cmd cli_attest_bench_cmd = {
    .name = "attest bench", .flags = bench_flags, .usage = attest_usage, .max_operands = -1};

/* The TDX side of `attest bench`'s output. */
static int tdx_bench_print(const char *path, int sim, const tb_attest_timed *scratch, int src,
                           const tb_attest_timed *prepared, int prc, int64_t iters, int json,
                           const tb_err *e)
{
    const char *cmd = "attest bench";
    if (src < 0 || prc < 0)
        return cli_fail(cmd, "%s", e->msg);
    const tb_tdx_verdict v1 = scratch->tdx, v2 = prepared->tdx;
    const char *verdict = v1.status_known ? tb_attest_tcb_status_name(v1.status) : v1.reason;
    if (json) {
        json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:I, s:s, s:s, s:b}", "scratch_ms",
                              scratch->wall_ms, "prepared_ms", prepared->wall_ms, "scratch_cpu_ms",
                              scratch->cpu_ms, "prepared_cpu_ms", prepared->cpu_ms, "iterations",
                              (json_int_t)iters, "verdict", tb_attest_result_name(v1.result),
                              "status", v1.status_known ? tb_attest_tcb_status_name(v1.status) : "",
                              "simulated", sim || v1.simulated);
        int jrc = cli_json_print(cmd, cli_json_envelope("teebench-attest-bench/1", o, 1));
        if (jrc)
            return jrc;
    } else
        printf("%s%s: from scratch %.4f ms/quote (CPU %.4f ms), prepared collateral %.4f "
               "ms/quote (CPU %.4f ms) (%lld iterations each; verdict %s: %s)\n",
               path, sim || v1.simulated ? " [SIMULATED]" : "", scratch->wall_ms, scratch->cpu_ms,
               prepared->wall_ms, prepared->cpu_ms, (long long)iters,
               tb_attest_result_name(v1.result), verdict);
    if (v1.result != v2.result || strcmp(v1.reason, v2.reason))
        return cli_fail(cmd, "prepared and from-scratch verdicts differ: \"%s\" vs \"%s\"",
                        v1.reason, v2.reason);
    return 0;
}

/* The evidence of `attest bench`: a TDX quote (any form tb_tdx_quote_load reads; sim:
   it says SIMULATED) or, for SEV-SNP, an SNP report. *b malloc'd; 0, or the exit code. */
static int bench_evidence(tb_tee kind, const char *path, uint8_t **b, size_t *n, int *sim)
{
    const char *cmd = "attest bench";
    tb_err e;
    *sim = 0;
    if (tb_tee_family_of(kind) == TB_TEE_FAMILY_SNP) {
        if (tb_attest_evidence_file_read(path, b, n, &e) < 0)
            return cli_fail(cmd, "%s", e.msg);
        if (tb_snp_sniff(*b, *n))
            return 0;
        free(*b);
        return cli_fail(cmd, "%s: not an SEV-SNP report", path);
    }
    tb_tdx_quote *q;
    if (tb_tdx_quote_load(path, &q, &e) < 0)
        return cli_fail(cmd, "%s", e.msg);
    *sim = tb_tdx_quote_is_simulated(q);
    *b = malloc(q->raw_len);
    if (*b) {
        memcpy(*b, q->raw, q->raw_len);
        *n = q->raw_len;
    }
    tb_tdx_quote_free(q);
    return *b ? 0 : cli_fail(cmd, "out of memory");
}

static int cmd_attest_bench(int argc, char **argv)
{
    const char *cmd = "attest bench";
    bench_args a = {.now = -1, .iters = 1000};
    int first, done = cli_flags_parse(&cli_attest_bench_cmd, argc, argv, &a, &first);
    if (done != CLI_FLAGS_GO)
        return done;
    if (optind != argc - 1 || !!a.col == !!a.certs)
        return usage_fail(cmd, "want QUOTE and --collateral FILE, or REPORT and --certs DIR");
    int64_t now = a.now < 0 ? wall_now() : a.now;
    /* verified as a real verifier does: against what is given (--root, else Intel's or
       AMD's root), whatever the evidence says */
    tb_tee kind = a.certs ? TB_TEE_SNP : TB_TEE_TDX;
    const char *path = argv[optind];
    uint8_t *b;
    size_t n;
    int sim, rc = bench_evidence(kind, path, &b, &n, &sim);
    if (rc)
        return rc;
    tb_attest_collateral_source src = {.collateral = a.col, .certs = a.certs, .root = a.rootp};
    tb_attest_evidence_collateral c;
    tb_err e;
    if (tb_attest_evidence_prepare(kind, b, n, &src, now, &c, &e) < 0) {
        free(b);
        return cli_fail(cmd, "%s", e.msg);
    }
    /* attest/common/timing's loop: 10 untimed, then the median of 5 rounds of the mean time per
       piece of evidence, wall and CPU time of this thread (the latter is what `openssl
       speed` reports by default, and what a loaded machine does not inflate); prepared:
       the collateral or the chain checked once (not timed), then each verification */
    int per = a.iters / 5 > 0 ? (int)(a.iters / 5) : 1;
    tb_attest_timing_opts o = {.batches = 5, .per = per, .warmup = 10};
    tb_attest_timed scratch, prepared;
    int src_rc = tb_attest_evidence_time(&c, b, n, now, TB_ATTEST_FROM_SCRATCH, &o, &scratch, &e);
    int prc = src_rc == 0
                  ? tb_attest_evidence_time(&c, b, n, now, TB_ATTEST_PREPARED, &o, &prepared, &e)
                  : 0;
    tb_attest_evidence_collateral_clear(&c);
    free(b);
    return tb_tee_family_of(kind) == TB_TEE_FAMILY_SNP
               ? cli_attest_snp_bench_print(path, &scratch, src_rc, &prepared, prc, per * 5, a.json,
                                            &e)
               : tdx_bench_print(path, sim, &scratch, src_rc, &prepared, prc, a.iters, a.json, &e);
}

int cmd_attest(int argc, char **argv)
{
    if (argc < 2)
        return fputs(USAGE, stderr), 2;
    const char *sub = argv[1];
    if (!strcmp(sub, "-h") || !strcmp(sub, "--help") || !strcmp(sub, "help"))
        return fputs(USAGE, stdout), 0;
    if (!strcmp(sub, "show"))
        return cmd_show(argc - 1, argv + 1);
    if (!strcmp(sub, "verify"))
        return cmd_verify(argc - 1, argv + 1);
    if (!strcmp(sub, "collateral"))
        return cmd_collateral(argc - 1, argv + 1);
    if (!strcmp(sub, "quote"))
        return cmd_quote(argc - 1, argv + 1);
    if (!strcmp(sub, "sim-collateral"))
        return cmd_sim_collateral(argc - 1, argv + 1);
    if (!strcmp(sub, "sim-snp-certs"))
        return cmd_sim_snp_certs(argc - 1, argv + 1);
    if (!strcmp(sub, "bench"))
        return cmd_attest_bench(argc - 1, argv + 1);
    static const char *const subs[] = {"show",           "verify", "collateral", "quote",
                                       "sim-collateral", "bench",  NULL};
    return cli_unknown_subcommand("attest", sub, subs);
}
