/* workloads/attest: the attest workload -- get the TEE's evidence (TDX quotes or
 * SEV-SNP reports) and verify it.
 *
 * Evidence (tb_wl_attest_tee): configfs-tsm in a TDX guest (real quotes;
 * collateral from a PCS or PCCS through the attest cache, fetched once, not
 * timed) or in an SEV-SNP guest (real reports; the VCEK and chain from AMD's
 * KDS through the same cache, fetched once, not timed); elsewhere a SIMULATED
 * provider, TDX's by default or SEV-SNP's (sim-snp), with its own PKI made in
 * the work directory (nothing is read from testdata/). The metric names are
 * the same for both TEEs, so that a TDX and an SEV-SNP environment line up
 * row by row in `compare`; each metric's note and the record's extra.attest
 * say which evidence it was. Per round: `quotes` evidence requests (one sample
 * each, ms), then `iterations` verifications with prepared collateral (TDX:
 * tb_attest_prepare; SNP: the certificate chain checked once) and as many from
 * scratch (everything parsed and checked every time, as `teebench attest
 * bench` does), each in 5 batches whose mean is one sample. A verdict of
 * ACCEPTED or REFUSED (valid evidence the default policy refuses, e.g. an
 * out-of-date TCB or a debug guest) counts; INVALID or EXPIRED fails the step.
 * Every metric is marked simulated when a SIMULATED provider made the evidence.
 * Setup opens the provider and fetches the collateral (once, not timed); a setup
 * that fails fails every step with its reason. */
#include "workloads/attest.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest/attest.h"
#include "attest/evidence.h"
#include "attest/snp.h"
#include "attest/timing.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/tee.h"

_Static_assert(sizeof(tb_wl_attest_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_attest_params, f)

static int check_folder(const char *key, const char *v, tb_err *err)
{
    return v[0] ? 0 : tb_errf(err, "%s: wants a folder", key);
}

static const tb_wl_param param_table[] = {
    {"provider",
     "auto (tsm in a TDX or SEV-SNP guest, else sim), sim (SIMULATED TDX), "
     "sim-snp (SIMULATED SEV-SNP) or tsm",
     TB_WLP_TEXT, P(provider), .choices = "auto|sim|sim-snp|tsm", .def = {"auto"}},
    {"quotes", "quotes (SEV-SNP: reports) timed per round", TB_WLP_INT, P(quotes), .lo = 1,
     .hi = 100000, .def = {"5", "20", "25"}},
    {"iterations", "verifications timed per round, prepared and from scratch", TB_WLP_INT,
     P(iterations), .lo = 5, .hi = 10000000, .def = {"50", "500", "1000"}},
    {"pccs", "PCS/PCCS base URL for the collateral of real TDX quotes", TB_WLP_TEXT, P(pccs),
     .check = tb_wl_check_http_url, .def = {TB_WL_PCS_URL}, .flags = TB_WLP_PLACE},
    {"kds", "AMD KDS base URL for the certificates of real SEV-SNP reports", TB_WLP_TEXT, P(kds),
     .check = tb_wl_check_http_url, .def = {TB_WL_KDS_URL}, .flags = TB_WLP_PLACE},
    {"certs",
     "a folder of SEV-SNP certificates (ark.pem, ask.pem, vcek.der, crl.der) to use "
     "instead of the KDS",
     TB_WLP_TEXT, P(certs), .check = check_folder, .flags = TB_WLP_PLACE},
};

static const tb_wl_metric metrics[] = {
    {"attest.quote_get.ms", "ms", TB_WL_LOWER, TB_CAT_ATTEST, 1, NULL, 0, 0},
    {"attest.verify_prepared.us", "us", TB_WL_LOWER, TB_CAT_ATTEST, 1, NULL, 0, 0},
    {"attest.verify_scratch.ms", "ms", TB_WL_LOWER, TB_CAT_ATTEST, 1, NULL, 0, 0},
};

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    (void)params;
    for (size_t k = 0; k < sizeof metrics / sizeof metrics[0]; k++)
        if (emit(ctx, metrics[k].name) < 0)
            return -1;
    return 0;
}

static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_attest_params *a = params;
    out[0] = (tb_wl_step){"", 0.05 + a->quotes * 0.005 + a->iterations * 0.0025};
    return 1;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_attest_params *a = params;
    (void)target;
    snprintf(out, n, "provider %s: %d quotes; %d verifications prepared and from scratch",
             a->provider, a->quotes, a->iterations);
}

/* the provider opened, the first quote and its collateral */
static double setup_estimate(const void *params)
{
    (void)params;
    return 0.1;
}

/* ---- the suite's steps ---- */

#define BATCHES 5

/* The workload's state between setup and cleanup. */
typedef struct attest_state {
    const tb_wl_attest_params *a;
    const tb_wl_env *env;
    tb_wl_sink *sink;  /* the current call's */
    tb_tee attest_tee; /* the evidence: tdx, snp (configfs-tsm), sim, sim-snp */
    int attest_sim;    /* attest_tee is a SIMULATED one */
    int attest_snp;    /* attest_tee is SEV-SNP */
    char sim_dir[PATH_MAX];
    tb_attest_evidence *ev; /* the provider, opened once */
    char *collateral_json;  /* TDX; NULL: verification unavailable (verify_reason) */
    char verify_reason[TB_ERR_MAX];
    tb_attest_root *root;
    tb_attest_snp_certs snp_certs; /* SEV-SNP; vcek NULL: verification unavailable */
    uint8_t *snp_root;             /* the trusted ARK (SIMULATED); NULL: built-in */
    size_t snp_root_len;
    int attest_reported;
} attest_state;

static void clear(attest_state *c)
{
    tb_attest_evidence_close(c->ev);
    c->ev = NULL;
    free(c->collateral_json);
    c->collateral_json = NULL;
    tb_attest_root_free(c->root);
    c->root = NULL;
    tb_attest_snp_certs_clear(&c->snp_certs);
    free(c->snp_root);
    c->snp_root = NULL;
}

const char *tb_wl_attest_tee(const char *provider, const char *env_tee)
{
    tb_tee guest = tb_tee_guest(env_tee), t;
    if (tb_tee_provider(provider, &t) < 0) /* auto */
        return tb_tee_name(guest != TB_TEE_NONE ? guest : TB_TEE_SIM);
    if (!tb_tee_simulated(t)) /* tsm: configfs-tsm, the guest's own evidence */
        t = guest == TB_TEE_SNP ? TB_TEE_SNP : TB_TEE_TDX;
    return tb_tee_name(t);
}

static int64_t now_s(void)
{
    return (int64_t)(tb_wall_ns() / 1000000000ull);
}

static void report_data(int round, int i, uint8_t rd[64])
{
    memset(rd, 0, 64);
    snprintf((char *)rd, 64, "teebench suite round %d quote %d", round, i);
}

/* One quote (or SNP report) from the provider the suite uses. */
static int get_quote(attest_state *c, const uint8_t rd[64], uint8_t **q, size_t *len, tb_err *err)
{
    return tb_attest_evidence_get(c->ev, rd, q, len, err);
}

/* Records the three commands that redo the SIMULATED setup by hand: the first quote or
   report (-o evidence), its collateral or certificates (col_cmd into col_dir), and
   `attest bench` (col_flag col_arg --root root). */
static void sim_commands(attest_state *c, const char *provider, const char *evidence,
                         const char *col_cmd, const char *col_dir, const char *col_flag,
                         const char *col_arg, const char *root)
{
    char hex[129], iters[16];
    uint8_t rd[64];
    report_data(1, 1, rd);
    tb_hex_encode(rd, 64, hex);
    snprintf(iters, sizeof iters, "%d", c->a->iterations);
    char *quote[] = {
        (char *)c->env->exe, "attest",        "quote", "--provider", (char *)provider, "--sim-dir",
        c->sim_dir,          "--report-data", hex,     "-o",         (char *)evidence, NULL};
    char *col[] = {(char *)c->env->exe, "attest", (char *)col_cmd, (char *)col_dir, "--sim-dir",
                   c->sim_dir,          NULL};
    char *bench[] = {(char *)c->env->exe, "attest",        "bench",  (char *)evidence,
                     (char *)col_flag,    (char *)col_arg, "--root", (char *)root,
                     "--iterations",      iters,           NULL};
    tb_wl_command(c->sink, quote);
    tb_wl_command(c->sink, col);
    tb_wl_command(c->sink, bench);
}

/* Writes what the equivalent `teebench attest ...` commands read (quote.bin,
   collateral.json, sim-root.pem in <work>/attest) and records those commands. */
static void sim_files(attest_state *c, const uint8_t *q, size_t len)
{
    char dir[PATH_MAX], qp[PATH_MAX], cp[PATH_MAX], rp[PATH_MAX], srcroot[PATH_MAX];
    tb_err e;
    int dfd = -1;
    if (tb_wl_path(c->sink, "attest", dir, sizeof dir, &e) < 0 ||
        snprintf(qp, sizeof qp, "%s/quote.bin", dir) >= (int)sizeof qp ||
        snprintf(cp, sizeof cp, "%s/collateral.json", dir) >= (int)sizeof cp ||
        snprintf(rp, sizeof rp, "%s/sim-root.pem", dir) >= (int)sizeof rp ||
        (dfd = tb_dir_open_at(c->sink->dir_fd, c->sink->dir, "attest", 0700, &e)) < 0)
        return;
    tb_buf root = {0};
    int rc = tb_file_write_at(dfd, dir, "quote.bin", q, len, 0644, &e) < 0 ||
                     tb_file_write_at(dfd, dir, "collateral.json", c->collateral_json,
                                      strlen(c->collateral_json), 0644, &e) < 0 ||
                     tb_attest_sim_root_path(c->sim_dir, srcroot, sizeof srcroot, &e) < 0 ||
                     tb_file_read(srcroot, 1 << 16, &root, &e) < 0 ||
                     tb_file_write_at(dfd, dir, "sim-root.pem", root.p, root.len, 0644, &e) < 0
                 ? -1
                 : 0;
    close(dfd);
    tb_buf_clear(&root);
    if (rc < 0)
        return;
    sim_commands(c, "sim", qp, "sim-collateral", dir, "--collateral", cp, rp);
}

/* Real quotes: the collateral of the quote's FMSPC from the PCS/PCCS. */
static void tsm_collateral(attest_state *c, const uint8_t *q, size_t len)
{
    tb_err e;
    tb_attest_quote *pq = NULL;
    char fmspc[13];
    const char *ca;
    tb_attest_collateral col;
    if (tb_attest_quote_parse(q, len, &pq, &e) < 0 ||
        tb_attest_quote_fmspc_ca(pq, fmspc, &ca, &e) < 0 ||
        tb_attest_pccs_fetch(c->a->pccs, fmspc, ca, 10000, &col, &e) < 0) {
        snprintf(c->verify_reason, sizeof c->verify_reason,
                 "no collateral for the quote from %.200s: %.200s", c->a->pccs, e.msg);
        tb_attest_quote_free(pq);
        return;
    }
    tb_attest_quote_free(pq);
    if (tb_attest_collateral_to_json(&col, &c->collateral_json, &e) < 0 ||
        tb_attest_root_intel(&c->root, &e) < 0)
        snprintf(c->verify_reason, sizeof c->verify_reason, "collateral: %.300s", e.msg);
    tb_attest_collateral_clear(&col);
    char *argv[] = {(char *)c->env->exe, "attest", "quote", "--provider", "tsm",
                    "--report-data",     "00",     NULL};
    tb_wl_command(c->sink, argv);
}

/* SIMULATED SEV-SNP: the sim's certificates (<work>/attest/snp-certs) and ARK, the
   first report in <work>/attest/report.bin, and the equivalent commands. */
static int snp_sim_setup(attest_state *c, const uint8_t *q, size_t len, tb_err *err)
{
    char dir[PATH_MAX], certs[PATH_MAX], rp[PATH_MAX], ark[PATH_MAX];
    if (tb_wl_path(c->sink, "attest", dir, sizeof dir, err) < 0)
        return -1;
    if (snprintf(certs, sizeof certs, "%s/snp-certs", dir) >= (int)sizeof certs ||
        snprintf(rp, sizeof rp, "%s/report.bin", dir) >= (int)sizeof rp ||
        snprintf(ark, sizeof ark, "%s/ark.pem", certs) >= (int)sizeof ark)
        return tb_errf(err, "work directory path too long");
    int dfd = tb_dir_open_at(c->sink->dir_fd, c->sink->dir, "attest", 0700, err);
    if (dfd < 0)
        return -1;
    int rc = tb_attest_snp_sim_certs(c->sim_dir, certs, now_s(), 0, err) < 0 ||
                     tb_attest_snp_certs_load(certs, &c->snp_certs, err) < 0 ||
                     tb_attest_snp_sim_ark(c->sim_dir, &c->snp_root, &c->snp_root_len, err) < 0 ||
                     tb_file_write_at(dfd, dir, "report.bin", q, len, 0644, err) < 0
                 ? -1
                 : 0;
    close(dfd);
    if (rc < 0)
        return -1;
    sim_commands(c, "sim-snp", rp, "sim-snp-certs", certs, "--certs", certs, ark);
    return 0;
}

/* Real SEV-SNP reports: the VCEK and chain of the report's chip and TCB from the KDS
   (through the attest cache), or from the folder attest.certs. Without them, verification
   is skipped with the reason. */
static void snp_kds_certs(attest_state *c, const uint8_t *q, size_t len)
{
    tb_err e;
    tb_attest_snp_report r;
    tb_attest_snp_kds_opts o = {.timeout_ms = 10000};
    int fetched = 0;
    tb_attest_snp_product prod;
    char *argv[] = {(char *)c->env->exe, "attest", "quote", "--provider", "snp",
                    "--report-data",     "00",     NULL};
    tb_wl_command(c->sink, argv);
    if (tb_attest_snp_parse(q, len, &r, &e) < 0) {
        snprintf(c->verify_reason, sizeof c->verify_reason, "the report: %.300s", e.msg);
        return;
    }
    if (c->a->certs[0]) { /* a folder given instead of the KDS */
        if (tb_attest_snp_certs_load(c->a->certs, &c->snp_certs, &e) < 0)
            snprintf(c->verify_reason, sizeof c->verify_reason, "attest.certs: %.300s", e.msg);
        return;
    }
    if (!(prod = tb_attest_snp_report_product(&r))) {
        snprintf(c->verify_reason, sizeof c->verify_reason,
                 "a version %u report does not name its product (Milan, Genoa, Turin): the "
                 "KDS cannot be asked for its VCEK",
                 r.version);
        return;
    }
    if (tb_attest_snp_kds_fetch(c->a->kds, &r, prod, now_s(), &o, &c->snp_certs, &fetched, &e) <
        0) {
        snprintf(c->verify_reason, sizeof c->verify_reason,
                 "no certificates for the report from %.200s: %.200s", c->a->kds, e.msg);
        tb_attest_snp_certs_clear(&c->snp_certs);
        return;
    }
    tb_attest_snp_verdict v;
    tb_attest_snp_verify(q, len, &c->snp_certs, now_s(), NULL, NULL, 0, &v);
    if (fetched && v.result != TB_ATTEST_INVALID)
        tb_attest_snp_kds_cache_put(c->a->kds, &r, prod, &o, &c->snp_certs, &e);
}

static int open_evidence(attest_state *c, tb_err *err)
{
    tb_tee tee;
    if (tb_tee_parse(tb_wl_attest_tee(c->a->provider, c->env->tee), &tee) < 0)
        return tb_errf(err, "provider: '%s' is not auto, sim, sim-snp or tsm", c->a->provider);
    c->attest_tee = tee;
    c->attest_sim = tb_tee_simulated(tee);
    c->attest_snp = tb_tee_family_of(tee) == TB_TEE_FAMILY_SNP;
    uint8_t rd[64], *q = NULL;
    size_t len;
    report_data(0, 0, rd);
    if (c->attest_sim && tb_wl_path(c->sink, "sim", c->sim_dir, sizeof c->sim_dir, err) < 0)
        return -1;
    /* what failed, as each kind's setup says it */
    const char *what = tee == TB_TEE_SIM_SNP ? "SIMULATED SEV-SNP provider"
                       : tee == TB_TEE_SNP   ? "configfs-tsm SEV-SNP report"
                                             : "configfs-tsm quote";
    /* opening a SIMULATED provider makes its PKI (SEV-SNP's RSA-4096 keys: seconds, once;
       not timed) */
    if (tb_attest_evidence_open(tee, c->attest_sim ? c->sim_dir : NULL, NULL, &c->ev, err) < 0)
        return tb_err_wrap(err, "%s", tee == TB_TEE_SIM ? "SIMULATED provider" : what);
    int rc = 0;
    if (tee == TB_TEE_SIM) {
        tb_attest_collateral col;
        what = "SIMULATED collateral";
        rc = tb_attest_sim_collateral(c->sim_dir, now_s(), 0, &col, &c->root, err);
        if (rc == 0) {
            rc = tb_attest_collateral_to_json(&col, &c->collateral_json, err);
            tb_attest_collateral_clear(&col);
        }
    }
    if (rc == 0)
        rc = tb_attest_evidence_get(c->ev, rd, &q, &len, err);
    if (rc == 0) {
        switch (tee) {
        case TB_TEE_SIM_SNP:
            rc = snp_sim_setup(c, q, len, err);
            break;
        case TB_TEE_SIM:
            sim_files(c, q, len);
            break;
        case TB_TEE_SNP:
            snp_kds_certs(c, q, len);
            break;
        default:
            tsm_collateral(c, q, len);
        }
    }
    free(q);
    return rc < 0 ? tb_err_wrap(err, "%s", what) : 0;
}

/* What made the evidence, for extra.attest and the notes. */
static const char *evidence_name(const attest_state *c)
{
    switch (c->attest_tee) {
    case TB_TEE_SIM:
        return "SIMULATED TDX quotes (teebench sim provider)";
    case TB_TEE_SIM_SNP:
        return "SIMULATED SEV-SNP reports (teebench sim-snp provider)";
    case TB_TEE_SNP:
        return "SEV-SNP reports (configfs-tsm sev_guest)";
    default:
        return "TDX quotes (configfs-tsm tdx_guest)";
    }
}

/* Where the step's quotes come from, for its note. */
static const char *quote_source(tb_tee t)
{
    switch (t) {
    case TB_TEE_SIM:
        return "SIMULATED TDX provider (local PKI, opened once as the notary does)";
    case TB_TEE_SIM_SNP:
        return "SIMULATED SEV-SNP provider (local PKI, opened once as the notary does)";
    case TB_TEE_SNP:
        return "configfs-tsm (the guest's report from the AMD secure processor)";
    default:
        return "configfs-tsm (the TD's quote through the host's quoting enclave)";
    }
}

/* extra.attest: {provider, tee, evidence, simulated, verdict, tcb_status | product}. */
static void report_once(attest_state *c, int accepted, const char *key, const char *value)
{
    if (c->attest_reported)
        return;
    c->attest_reported = 1;
    json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:s, s:s}", "provider",
                          c->attest_sim ? "sim (SIMULATED)" : "tsm (configfs-tsm)", "tee",
                          tb_tee_name(c->attest_tee), "evidence", evidence_name(c), "simulated",
                          c->attest_sim, "verdict", accepted ? "ACCEPTED" : "REFUSED", key, value);
    tb_wl_fact(c->sink, "attest", o);
}

/* One batch of a round's verification (attest/timing's loop) becomes one sample. */
typedef struct batch_ctx {
    attest_state *c;
    const char *metric, *note;
    double scale; /* ms -> the metric's unit */
    int refused;  /* batch_sample failed the run (else a failure is the collateral's) */
} batch_ctx;

static int batch_stopped(void *ctx)
{
    const batch_ctx *b = ctx;
    return tb_wl_stopped(b->c->sink);
}

static int batch_sample(void *ctx, const tb_attest_timed *t, tb_err *err)
{
    batch_ctx *b = ctx;
    attest_state *c = b->c;
    int rc;
    if (c->attest_snp && t->snp.result >= TB_ATTEST_INVALID)
        rc = tb_errf(err, "SEV-SNP report verification failed at %s: %s",
                     tb_attest_snp_step_name(t->snp.step), t->snp.reason);
    else if (!c->attest_snp && t->tdx.result >= TB_ATTEST_INVALID)
        rc = tb_errf(err, "quote verification failed at %s: %s", tb_attest_step_name(t->tdx.step),
                     t->tdx.reason);
    else
        rc = tb_wl_sample(c->sink, b->metric, t->wall_ms * b->scale, c->attest_sim, b->note, err);
    b->refused = rc < 0;
    return rc;
}

/* Prepared (the collateral or the SEV-SNP chain checked once per round) and from-scratch
   verification of evidence q, BATCHES samples each. */
static int verify_round(attest_state *c, const uint8_t *q, size_t len, tb_err *err)
{
    int per = c->a->iterations / BATCHES > 0 ? c->a->iterations / BATCHES : 1;
    const char *cj = c->collateral_json;
    tb_attest_timed_input in = {.family = tb_tee_family_of(c->attest_tee),
                                .evidence = q,
                                .len = len,
                                .now = now_s(),
                                .collateral_json = cj,
                                .collateral_len = cj ? strlen(cj) : 0,
                                .root = c->root,
                                .certs = &c->snp_certs,
                                .ark = c->snp_root,
                                .ark_len = c->snp_root_len};
    const char *sim_note = !c->attest_sim  ? ""
                           : c->attest_snp ? " (SIMULATED SEV-SNP report and certificates)"
                                           : " (SIMULATED quote and collateral)";
    char note[256];
    batch_ctx b = {.c = c, .metric = "attest.verify_prepared.us", .note = note, .scale = 1e3};
    tb_attest_timing_opts o = {
        .batches = BATCHES, .per = per, .ctx = &b, .stop = batch_stopped, .batch = batch_sample};
    tb_attest_timed t;
    if (c->attest_snp)
        snprintf(note, sizeof note,
                 "verification of one SEV-SNP report with the certificate chain checked "
                 "beforehand (tb_attest_snp_prepare), mean of a batch of %d%s",
                 per, sim_note);
    else
        snprintf(note, sizeof note,
                 "verification of one quote with collateral checked beforehand "
                 "(tb_attest_prepare), mean of a batch of %d%s",
                 per, sim_note);
    /* TDX: a collateral that does not parse or prepare is named so (SEV-SNP's failure to
       prepare says it is the report's) */
    if (tb_attest_time_verify(&in, TB_ATTEST_PREPARED, &o, &t, err) < 0)
        return c->attest_snp || b.refused ? -1 : tb_err_wrap(err, "collateral");
    if (c->attest_snp)
        report_once(c, t.snp.result == TB_ATTEST_ACCEPTED, "product",
                    tb_attest_snp_product_name(t.snp.product));
    else
        report_once(c, t.tdx.result == TB_ATTEST_ACCEPTED, "tcb_status",
                    t.tdx.status_known ? tb_attest_tcb_status_name(t.tdx.status) : "");
    if (c->attest_snp)
        snprintf(note, sizeof note,
                 "verification of one SEV-SNP report from scratch: certificates parsed, chain, "
                 "CRL and report checked every time, mean of a batch of %d%s",
                 per, sim_note);
    else
        snprintf(note, sizeof note,
                 "verification of one quote from scratch: collateral JSON parsed and checked "
                 "every time, mean of a batch of %d%s",
                 per, sim_note);
    b.metric = "attest.verify_scratch.ms";
    b.scale = 1;
    if (tb_attest_time_verify(&in, TB_ATTEST_FROM_SCRATCH, &o, &t, err) < 0)
        return c->attest_snp || b.refused ? -1 : tb_err_wrap(err, "collateral");
    return 0;
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    attest_state *c = state;
    (void)target;
    c->sink = sink;
    char note[256];
    snprintf(note, sizeof note, "time to get one %s binding 64 bytes of report data: %s",
             tb_tee_traits_of(c->attest_tee)->evidence, quote_source(c->attest_tee));
    uint8_t rd[64], *q = NULL, *last = NULL;
    size_t len = 0, last_len = 0;
    for (int i = 1; i <= c->a->quotes; i++) {
        if (tb_wl_stopped(c->sink)) {
            free(last);
            return TB_WL_CANCELLED;
        }
        report_data(round, i, rd);
        uint64_t t0 = tb_mono_ns();
        if (get_quote(c, rd, &q, &len, err) < 0) {
            free(last);
            return TB_WL_FAILED;
        }
        double ms = (double)(tb_mono_ns() - t0) / 1e6;
        free(last);
        last = q;
        last_len = len;
        if (tb_wl_sample(c->sink, "attest.quote_get.ms", ms, c->attest_sim, note, err) < 0) {
            free(last);
            return TB_WL_FAILED;
        }
    }
    int rc = c->attest_snp        ? (c->snp_certs.vcek ? verify_round(c, last, last_len, err) : 0)
             : c->collateral_json ? verify_round(c, last, last_len, err)
                                  : 0;
    free(last);
    if (tb_wl_stopped(c->sink))
        return TB_WL_CANCELLED;
    return rc < 0 ? TB_WL_FAILED : TB_WL_OK;
}

static int setup(const void *params, const tb_wl_env *env, tb_wl_sink *sink, void **state,
                 tb_err *err)
{
    attest_state *c = calloc(1, sizeof *c);
    if (!c)
        return tb_errf(err, "out of memory");
    *state = c;
    c->a = params;
    c->env = env;
    c->sink = sink;
    if (open_evidence(c, err) < 0)
        return -1;
    if (c->attest_snp ? !c->snp_certs.vcek : !c->collateral_json)
        tb_wl_problem(sink, TB_WL_SKIP, "verify", 0, c->verify_reason);
    return 0;
}

static void cleanup(void *state, tb_wl_sink *sink)
{
    (void)sink;
    clear(state);
    free(state);
}

const tb_workload tb_wl_attest = {
    .name = "attest",
    .title = "Attestation",
    .what = "getting and verifying TDX quotes or SEV-SNP reports",
    TB_WL_PARAM_TABLE(tb_wl_attest_params, param_table),
    .steps = steps,
    .describe = describe,
    .setup_estimate = setup_estimate,
    .setup = setup,
    .step = step,
    .cleanup = cleanup,
    TB_WL_METRIC_TABLE(metrics),
    .plan_metrics = plan_metrics,
};
