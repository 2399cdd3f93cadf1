/* workloads/attest: the attest workload -- get the TEE's evidence (TDX quotes or
 * SEV-SNP reports) and verify it.
 *
 * Evidence (tb_wl_attest_tee) and its collateral come through attest/common/evidence,
 * one path for every kind: configfs-tsm in a TDX guest (real quotes; collateral
 * from a PCS or PCCS through the attest cache, prepared once, not timed) or in an
 * SEV-SNP guest (real reports; the VCEK and chain from AMD's KDS through the same
 * cache, or the folder attest.certs, prepared once, not timed); elsewhere a
 * SIMULATED provider, TDX's by default or SEV-SNP's (sim-snp), with its own PKI
 * made in the work directory (nothing is read from testdata/). What differs by
 * kind is data: the words of its notes and failures (KINDS, FAMILY) and the files
 * and commands that redo a SIMULATED setup by hand. The metric names are
 * the same for both TEEs, so that a TDX and an SEV-SNP environment line up
 * row by row in `compare`; each metric's note and the record's extra.attest
 * say which evidence it was. Per round: `quotes` evidence requests (one sample
 * each, ms), then `iterations` verifications with prepared collateral (TDX:
 * tb_tdx_prepare; SNP: the certificate chain checked once) and as many from
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

#include "attest/tdx/tdx.h"
#include "attest/common/evidence.h"
#include "attest/snp/snp.h"
#include "attest/common/timing.h"
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
    char sim_dir[PATH_MAX];
    char sim_certs[PATH_MAX];          /* sim-snp: the certificates written for the commands */
    tb_attest_evidence *ev;            /* the provider, opened once */
    tb_attest_evidence_collateral col; /* prepared once; have_col 0: none (verify_reason) */
    int have_col;
    char verify_reason[TB_ERR_MAX];
    int attest_reported;
} attest_state;

static void clear(attest_state *c)
{
    tb_attest_evidence_close(c->ev);
    c->ev = NULL;
    tb_attest_evidence_collateral_clear(&c->col);
    c->have_col = 0;
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

/* SIMULATED TDX, after the collateral is prepared: writes what the equivalent
   `teebench attest ...` commands read (quote.bin, collateral.json, sim-root.pem in
   <work>/attest) and records those commands. */
static int sim_files(attest_state *c, const uint8_t *q, size_t len, tb_err *err)
{
    char dir[PATH_MAX], qp[PATH_MAX], cp[PATH_MAX], rp[PATH_MAX], srcroot[PATH_MAX];
    tb_err e;
    int dfd = -1;
    (void)err; /* the files are for a reader: a work folder that refuses them costs nothing */
    if (!c->have_col || tb_wl_path(c->sink, "attest", dir, sizeof dir, &e) < 0 ||
        snprintf(qp, sizeof qp, "%s/quote.bin", dir) >= (int)sizeof qp ||
        snprintf(cp, sizeof cp, "%s/collateral.json", dir) >= (int)sizeof cp ||
        snprintf(rp, sizeof rp, "%s/sim-root.pem", dir) >= (int)sizeof rp ||
        (dfd = tb_dir_open_at(c->sink->dir_fd, c->sink->dir, "attest", 0700, &e)) < 0)
        return 0;
    tb_buf root = {0};
    char *json = NULL;
    int rc =
        tb_file_write_at(dfd, dir, "quote.bin", q, len, 0644, &e) < 0 ||
                tb_tdx_collateral_to_json(&c->col.tdx, &json, &e) < 0 ||
                tb_file_write_at(dfd, dir, "collateral.json", json, strlen(json), 0644, &e) < 0 ||
                tb_tdx_sim_root_path(c->sim_dir, srcroot, sizeof srcroot, &e) < 0 ||
                tb_file_read(srcroot, 1 << 16, &root, &e) < 0 ||
                tb_file_write_at(dfd, dir, "sim-root.pem", root.p, root.len, 0644, &e) < 0
            ? -1
            : 0;
    close(dfd);
    free(json);
    tb_buf_clear(&root);
    if (rc == 0)
        sim_commands(c, "sim", qp, "sim-collateral", dir, "--collateral", cp, rp);
    return 0;
}

/* SIMULATED SEV-SNP, before the collateral is prepared: the sim's certificates in
   <work>/attest/snp-certs (what prepare then reads, as `attest bench --certs` does), the
   first report in <work>/attest/report.bin, and the equivalent commands. */
static int snp_sim_files(attest_state *c, const uint8_t *q, size_t len, tb_err *err)
{
    char dir[PATH_MAX], rp[PATH_MAX], ark[PATH_MAX];
    if (tb_wl_path(c->sink, "attest", dir, sizeof dir, err) < 0)
        return -1;
    if (snprintf(c->sim_certs, sizeof c->sim_certs, "%s/snp-certs", dir) >=
            (int)sizeof c->sim_certs ||
        snprintf(rp, sizeof rp, "%s/report.bin", dir) >= (int)sizeof rp ||
        snprintf(ark, sizeof ark, "%s/ark.pem", c->sim_certs) >= (int)sizeof ark)
        return tb_errf(err, "work directory path too long");
    int dfd = tb_dir_open_at(c->sink->dir_fd, c->sink->dir, "attest", 0700, err);
    if (dfd < 0)
        return -1;
    int rc = tb_snp_sim_certs(c->sim_dir, c->sim_certs, now_s(), 0, err) < 0 ||
                     tb_file_write_at(dfd, dir, "report.bin", q, len, 0644, err) < 0
                 ? -1
                 : 0;
    close(dfd);
    if (rc < 0)
        return -1;
    sim_commands(c, "sim-snp", rp, "sim-snp-certs", c->sim_certs, "--certs", c->sim_certs, ark);
    return 0;
}

/* Real evidence: the command that gets one from configfs-tsm. */
static int tsm_command(attest_state *c, const uint8_t *q, size_t len, tb_err *err)
{
    (void)q, (void)len, (void)err;
    char *argv[] = {(char *)c->env->exe,
                    "attest",
                    "quote",
                    "--provider",
                    (char *)tb_tee_traits_of(c->attest_tee)->provider,
                    "--report-data",
                    "00",
                    NULL};
    tb_wl_command(c->sink, argv);
    return 0;
}

/* What each kind's setup says and does around its collateral: the words of its failure
   (opening, preparing), the files and commands before and after the collateral is
   prepared, where its evidence comes from, and what made it. */
typedef struct kind_setup {
    const char *open_what, *what;
    int (*before)(attest_state *c, const uint8_t *q, size_t len, tb_err *err);
    int (*after)(attest_state *c, const uint8_t *q, size_t len, tb_err *err);
    const char *source;   /* the step's note */
    const char *evidence; /* extra.attest and the notes */
} kind_setup;

static const kind_setup KINDS[TB_TEE_COUNT] = {
    [TB_TEE_TDX] = {"configfs-tsm quote", "configfs-tsm quote", tsm_command, NULL,
                    "configfs-tsm (the TD's quote through the host's quoting enclave)",
                    "TDX quotes (configfs-tsm tdx_guest)"},
    [TB_TEE_SNP] = {"configfs-tsm SEV-SNP report", "configfs-tsm SEV-SNP report", tsm_command, NULL,
                    "configfs-tsm (the guest's report from the AMD secure processor)",
                    "SEV-SNP reports (configfs-tsm sev_guest)"},
    [TB_TEE_SIM] = {"SIMULATED provider", "SIMULATED collateral", NULL, sim_files,
                    "SIMULATED TDX provider (local PKI, opened once as the notary does)",
                    "SIMULATED TDX quotes (teebench sim provider)"},
    [TB_TEE_SIM_SNP] = {"SIMULATED SEV-SNP provider", "SIMULATED SEV-SNP provider", snp_sim_files,
                        NULL,
                        "SIMULATED SEV-SNP provider (local PKI, opened once as the notary does)",
                        "SIMULATED SEV-SNP reports (teebench sim-snp provider)"},
};

/* The collateral of the first evidence q, prepared once (not timed) from the workload's
   sources, and kept in attest's cache once it verified q. Real evidence without it is
   not verified (verify_reason says why); SIMULATED evidence without it fails setup. */
static int prepare_collateral(attest_state *c, const uint8_t *q, size_t len, tb_err *err)
{
    tb_attest_collateral_source src = {.pccs = c->a->pccs,
                                       .kds = c->a->kds,
                                       .certs = c->sim_certs[0]  ? c->sim_certs
                                                : c->a->certs[0] ? c->a->certs
                                                                 : NULL,
                                       .sim_dir = c->sim_dir,
                                       .fetch = {.timeout_ms = 10000, .no_cache = c->attest_sim}};
    tb_err e;
    int64_t now = now_s();
    if (tb_attest_evidence_prepare(c->attest_tee, q, len, &src, now, &c->col, &e) < 0) {
        if (c->attest_sim)
            return tb_errf(err, "%s", e.msg);
        snprintf(c->verify_reason, sizeof c->verify_reason,
                 "no collateral for the %s from %.200s: %.200s",
                 tb_tee_traits_of(c->attest_tee)->evidence,
                 tb_attest_evidence_source_name(c->attest_tee, &src), e.msg);
        return 0;
    }
    c->have_col = 1;
    tb_attest_evidence_verdict v;
    tb_attest_evidence_verify(&c->col, q, len, now, NULL, &v);
    tb_attest_evidence_keep(&c->col, &src, &v);
    return 0;
}

static int open_evidence(attest_state *c, tb_err *err)
{
    tb_tee tee;
    if (tb_tee_parse(tb_wl_attest_tee(c->a->provider, c->env->tee), &tee) < 0)
        return tb_errf(err, "provider: '%s' is not auto, sim, sim-snp or tsm", c->a->provider);
    const kind_setup *k = &KINDS[tee];
    c->attest_tee = tee;
    c->attest_sim = tb_tee_simulated(tee);
    uint8_t rd[64], *q = NULL;
    size_t len;
    report_data(0, 0, rd);
    if (c->attest_sim && tb_wl_path(c->sink, "sim", c->sim_dir, sizeof c->sim_dir, err) < 0)
        return -1;
    /* opening a SIMULATED provider makes its PKI (SEV-SNP's RSA-4096 keys: seconds, once;
       not timed) */
    if (tb_attest_evidence_open(tee, c->attest_sim ? c->sim_dir : NULL, NULL, &c->ev, err) < 0)
        return tb_err_wrap(err, "%s", k->open_what);
    int rc = tb_attest_evidence_get(c->ev, rd, &q, &len, err);
    if (rc == 0 && k->before)
        rc = k->before(c, q, len, err);
    if (rc == 0)
        rc = prepare_collateral(c, q, len, err);
    if (rc == 0 && k->after)
        rc = k->after(c, q, len, err);
    free(q);
    return rc < 0 ? tb_err_wrap(err, "%s", k->what) : 0;
}

static const char *tdx_fact(const tb_attest_evidence_verdict *v)
{
    return v->tdx.status_known ? tb_attest_tcb_status_name(v->tdx.status) : "";
}

static const char *snp_fact(const tb_attest_evidence_verdict *v)
{
    return tb_snp_product_name(v->snp.product);
}

/* The words of one family's verification: its failure, the two ways' notes (", mean of
   a batch of N" and the SIMULATED note follow), the SIMULATED note, the fact of
   extra.attest (its key and value) and what a failure to prepare in the timing loop
   is (TDX: the collateral's, named so; SEV-SNP: the report's, said by timing). */
typedef struct family_words {
    const char *failed, *prepared, *scratch, *sim_note;
    const char *fact_key;
    const char *(*fact)(const tb_attest_evidence_verdict *v);
    const char *unprepared; /* NULL: timing's error as it is */
} family_words;

static const family_words FAMILY[] = {
    [TB_TEE_FAMILY_TDX] = {"quote",
                           "verification of one quote with collateral checked beforehand "
                           "(tb_tdx_prepare)",
                           "verification of one quote from scratch: collateral JSON parsed and "
                           "checked every time",
                           " (SIMULATED quote and collateral)", "tcb_status", tdx_fact,
                           "collateral"},
    [TB_TEE_FAMILY_SNP] = {"SEV-SNP report",
                           "verification of one SEV-SNP report with the certificate chain checked "
                           "beforehand (tb_snp_prepare)",
                           "verification of one SEV-SNP report from scratch: certificates parsed, "
                           "chain, CRL and report checked every time",
                           " (SIMULATED SEV-SNP report and certificates)", "product", snp_fact,
                           NULL},
};

/* extra.attest: {provider, tee, evidence, simulated, verdict, tcb_status | product}. */
static void report_once(attest_state *c, const tb_attest_evidence_verdict *v)
{
    if (c->attest_reported)
        return;
    c->attest_reported = 1;
    const family_words *w = &FAMILY[v->family];
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:b, s:s, s:s}", "provider",
        c->attest_sim ? "sim (SIMULATED)" : "tsm (configfs-tsm)", "tee", tb_tee_name(c->attest_tee),
        "evidence", KINDS[c->attest_tee].evidence, "simulated", c->attest_sim, "verdict",
        v->result == TB_ATTEST_ACCEPTED ? "ACCEPTED" : "REFUSED", w->fact_key, w->fact(v));
    tb_wl_fact(c->sink, "attest", o);
}

/* One batch of a round's verification (attest/common/timing's loop) becomes one sample. */
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
    tb_attest_evidence_verdict v;
    tb_attest_evidence_timed_verdict(c->attest_tee, t, &v);
    int rc =
        v.result >= TB_ATTEST_INVALID
            ? tb_errf(err, "%s verification failed at %s: %s", FAMILY[v.family].failed,
                      tb_attest_evidence_step(&v), tb_attest_evidence_reason(&v))
            : tb_wl_sample(c->sink, b->metric, t->wall_ms * b->scale, c->attest_sim, b->note, err);
    b->refused = rc < 0;
    return rc;
}

/* Prepared (the collateral or the SEV-SNP chain checked once per round) and from-scratch
   verification of evidence q, BATCHES samples each. */
static int verify_round(attest_state *c, const uint8_t *q, size_t len, tb_err *err)
{
    int per = c->a->iterations / BATCHES > 0 ? c->a->iterations / BATCHES : 1;
    const family_words *w = &FAMILY[tb_tee_family_of(c->attest_tee)];
    const char *sim_note = c->attest_sim ? w->sim_note : "";
    int64_t now = now_s();
    char note[256];
    batch_ctx b = {.c = c, .metric = "attest.verify_prepared.us", .note = note, .scale = 1e3};
    tb_attest_timing_opts o = {
        .batches = BATCHES, .per = per, .ctx = &b, .stop = batch_stopped, .batch = batch_sample};
    tb_attest_timed t;
    snprintf(note, sizeof note, "%s, mean of a batch of %d%s", w->prepared, per, sim_note);
    /* TDX: a collateral that does not parse or prepare is named so (SEV-SNP's failure to
       prepare says it is the report's) */
    if (tb_attest_evidence_time(&c->col, q, len, now, TB_ATTEST_PREPARED, &o, &t, err) < 0)
        return !w->unprepared || b.refused ? -1 : tb_err_wrap(err, "%s", w->unprepared);
    tb_attest_evidence_verdict v;
    tb_attest_evidence_timed_verdict(c->attest_tee, &t, &v);
    report_once(c, &v);
    snprintf(note, sizeof note, "%s, mean of a batch of %d%s", w->scratch, per, sim_note);
    b.metric = "attest.verify_scratch.ms";
    b.scale = 1;
    if (tb_attest_evidence_time(&c->col, q, len, now, TB_ATTEST_FROM_SCRATCH, &o, &t, err) < 0)
        return !w->unprepared || b.refused ? -1 : tb_err_wrap(err, "%s", w->unprepared);
    return 0;
}

static int step(void *state, const char *target, int round, tb_wl_sink *sink, tb_err *err)
{
    attest_state *c = state;
    (void)target;
    c->sink = sink;
    char note[256];
    snprintf(note, sizeof note, "time to get one %s binding 64 bytes of report data: %s",
             tb_tee_traits_of(c->attest_tee)->evidence, KINDS[c->attest_tee].source);
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
    int rc = c->have_col ? verify_round(c, last, last_len, err) : 0;
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
    if (!c->have_col)
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
