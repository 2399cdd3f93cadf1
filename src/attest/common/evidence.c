/* attest/common/evidence: every TEE kind behind one interface (see evidence.h): the provider,
 * and the collateral and verifier of each family. The kinds are told apart here, once:
 * by family (TDX, SEV-SNP) and by simulated or not.
 * Invariants: exactly the member of kind's provider is set (sim, snp_sim, or neither for
 * configfs-tsm); the mutex exists from open to close; prepared collateral holds the
 * members of its family only, all freed by tb_attest_evidence_collateral_clear. The cache
 * (attest/common/cache, attest/snp/kds) gets collateral only after it verified the evidence,
 * and a cached collateral that gives INVALID or EXPIRED is fetched again once -- here only
 * (tb_attest_evidence_check_traced): every verifier of the tree goes through it. */
#include "attest/common/evidence.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attest/tdx/tdx.h"
#include "attest/internal.h"
#include "attest/snp/snp.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"

struct tb_attest_evidence {
    tb_tee kind;
    tb_tdx_sim *sim;     /* sim: opened once (thread-safe) */
    tb_snp_sim *snp_sim; /* sim-snp: the same */
    char dir[4096];      /* sim, sim-snp: the state folder */
    char tsm_root[4096]; /* tdx, snp: "" = configfs-tsm's default */
    pthread_mutex_t mu;  /* tdx, snp: one configfs-tsm report at a time */
};

int tb_attest_evidence_open(tb_tee kind, const char *sim_dir, const char *tsm_root,
                            tb_attest_evidence **out, tb_err *err)
{
    *out = NULL;
    if (kind == TB_TEE_NONE || tb_tee_family_of(kind) == TB_TEE_FAMILY_NONE)
        return tb_errf(err, "unknown TEE '%s' (want tdx, snp, sim or sim-snp)", tb_tee_name(kind));
    tb_attest_evidence *ev = calloc(1, sizeof *ev);
    if (!ev)
        return tb_errf(err, "out of memory");
    ev->kind = kind;
    if (tsm_root)
        snprintf(ev->tsm_root, sizeof ev->tsm_root, "%s", tsm_root);
    int rc = 0;
    if (tb_tee_simulated(kind)) {
        rc = tb_attest_sim_dir(sim_dir, ev->dir, sizeof ev->dir, err);
        if (rc == 0)
            rc = kind == TB_TEE_SIM_SNP ? tb_snp_sim_open(ev->dir, &ev->snp_sim, err)
                                        : tb_tdx_sim_open(ev->dir, &ev->sim, err);
    }
    if (rc < 0) {
        free(ev);
        return -1;
    }
    pthread_mutex_init(&ev->mu, NULL);
    *out = ev;
    return 0;
}

int tb_attest_evidence_get(tb_attest_evidence *ev, const uint8_t rd[64], uint8_t **evidence,
                           size_t *len, tb_err *err)
{
    return tb_attest_evidence_get_debug(ev, rd, 0, evidence, len, err);
}

int tb_attest_evidence_get_debug(tb_attest_evidence *ev, const uint8_t rd[64], int debug,
                                 uint8_t **evidence, size_t *len, tb_err *err)
{
    if (ev->kind == TB_TEE_SIM)
        return tb_tdx_sim_quote(ev->sim, rd, debug, evidence, len, err);
    if (ev->kind == TB_TEE_SIM_SNP)
        return tb_snp_sim_quote(ev->snp_sim, rd, debug, evidence, len, err);
    const char *root = ev->tsm_root[0] ? ev->tsm_root : NULL;
    pthread_mutex_lock(&ev->mu);
    int rc = ev->kind == TB_TEE_SNP ? tb_snp_tsm_report(root, rd, evidence, len, err)
                                    : tb_tdx_tsm_get_quote(root, rd, evidence, len, err);
    pthread_mutex_unlock(&ev->mu);
    return rc;
}

tb_tee tb_attest_evidence_kind(const tb_attest_evidence *ev)
{
    return ev->kind;
}

const char *tb_attest_evidence_sim_dir(const tb_attest_evidence *ev)
{
    return ev->dir;
}

void tb_attest_evidence_close(tb_attest_evidence *ev)
{
    if (!ev)
        return;
    tb_tdx_sim_close(ev->sim);
    tb_snp_sim_close(ev->snp_sim);
    pthread_mutex_destroy(&ev->mu);
    free(ev);
}

/* ------------------------------------------------------------ reading */

int tb_attest_evidence_read(tb_tee kind, const uint8_t *evidence, size_t len, uint8_t rd[64],
                            int *simulated, tb_err *err)
{
    if (tb_tee_family_of(kind) == TB_TEE_FAMILY_SNP) {
        tb_snp_report r;
        if (tb_snp_parse(evidence, len, &r, err) < 0)
            return -1;
        memcpy(rd, r.report_data, 64);
        *simulated = tb_snp_is_simulated(&r);
        return 0;
    }
    tb_tdx_quote *q;
    if (tb_tdx_quote_parse(evidence, len, &q, err) < 0)
        return -1;
    memcpy(rd, q->td.reportdata, 64);
    *simulated = tb_tdx_quote_is_simulated(q);
    tb_tdx_quote_free(q);
    return 0;
}

/* ------------------------------------------------------------ collateral */

void tb_attest_evidence_collateral_clear(tb_attest_evidence_collateral *c)
{
    free(c->json);
    tb_tdx_collateral_clear(&c->tdx);
    tb_attest_root_free(c->root);
    tb_snp_certs_clear(&c->certs);
    free(c->ark);
    memset(c, 0, sizeof *c);
}

/* Notes what preparing failed at; returns rc (-1). */
static int failed(tb_attest_evidence_collateral *c, tb_attest_prep_fail what, int rc)
{
    c->failed = what;
    return rc;
}

static tb_snp_kds_opts kds_opts(const tb_attest_collateral_source *src)
{
    return (tb_snp_kds_opts){.timeout_ms = src->fetch.timeout_ms,
                             .cache_dir = src->fetch.cache_dir,
                             .no_cache = src->fetch.no_cache};
}

/* SEV-SNP: the KDS (through its cache) for the report's chip and TCB. */
static int snp_from_kds(const uint8_t *report, size_t len, const tb_attest_collateral_source *src,
                        int64_t now, tb_attest_evidence_collateral *c, tb_err *err)
{
    if (tb_snp_parse(report, len, &c->report, err) < 0)
        return failed(c, TB_ATTEST_PREP_PARSE, tb_err_wrap(err, "the report"));
    c->product = tb_snp_report_product(&c->report);
    if (!c->product)
        c->product = src->product;
    if (!c->product)
        return failed(
            c, TB_ATTEST_PREP_KEY,
            tb_errf(err,
                    "a version %u report does not name its product (Milan, Genoa, Turin): "
                    "the KDS cannot be asked for its VCEK",
                    c->report.version));
    tb_snp_kds_opts o = kds_opts(src);
    uint64_t t0 = tb_mono_ns();
    int rc =
        tb_snp_kds_fetch(src->kds, &c->report, c->product, now, &o, &c->certs, &c->fetched, err);
    c->fetch_ns = tb_mono_ns() - t0;
    if (rc < 0)
        return failed(c, TB_ATTEST_PREP_COLLATERAL, -1);
    c->from_cache = !c->fetched;
    return 0;
}

/* SEV-SNP: certificates (a folder, the KDS -- never for SIMULATED reports --, else the
   SIMULATED PKI's) and the trusted ARK. */
static int snp_prepare(tb_tee kind, const uint8_t *report, size_t len,
                       const tb_attest_collateral_source *src, int64_t now,
                       tb_attest_evidence_collateral *c, tb_err *err)
{
    char dir[4096];
    int sim = tb_tee_simulated(kind);
    if (sim && tb_attest_sim_dir(src->sim_dir, dir, sizeof dir, err) < 0)
        return failed(c, TB_ATTEST_PREP_COLLATERAL, -1);
    if (src->root ? tb_snp_read_der(src->root, 0, &c->ark, &c->ark_len, err) < 0
        : sim     ? tb_snp_sim_ark(dir, &c->ark, &c->ark_len, err) < 0
                  : 0)
        return failed(c, TB_ATTEST_PREP_ROOT, -1);
    if (src->kds && !src->certs && !sim)
        return snp_from_kds(report, len, src, now, c, err);
    uint64_t t0 = tb_mono_ns();
    int rc = src->certs ? tb_snp_certs_load(src->certs, &c->certs, err)
             : sim      ? tb_snp_sim_certs_cached(dir, now, &c->certs, err)
                        : tb_errf(err, "no certificates for the SEV-SNP report (want a folder or "
                                            "a KDS URL)");
    c->fetch_ns = tb_mono_ns() - t0;
    return rc < 0 ? failed(c, TB_ATTEST_PREP_COLLATERAL, -1) : 0;
}

/* TDX: a PCS/PCCS (through the cache) for the quote's FMSPC and CA. */
static int tdx_from_pccs(const uint8_t *quote, size_t len, const tb_attest_collateral_source *src,
                         int64_t now, tb_attest_evidence_collateral *c, tb_err *err)
{
    tb_tdx_quote *q;
    if (tb_tdx_quote_parse(quote, len, &q, err) < 0)
        return failed(c, TB_ATTEST_PREP_PARSE, -1);
    int rc = tb_tdx_quote_fmspc_ca(q, c->fmspc, &c->ca, err);
    tb_tdx_quote_free(q);
    if (rc < 0)
        return failed(c, TB_ATTEST_PREP_KEY, -1);
    char dir[4096];
    tb_err ignored; /* a cache that cannot be read only costs time */
    int have_dir = tb_attest_cache_dir(src->fetch.cache_dir, dir, sizeof dir, &ignored) == 0;
    uint64_t t0 = tb_mono_ns();
    c->from_cache =
        have_dir && !src->fetch.no_cache &&
        tb_attest_cache_get(dir, src->pccs, c->fmspc, c->ca, now, &c->tdx, &ignored) == 1;
    long timeout = src->fetch.timeout_ms ? src->fetch.timeout_ms : 10000;
    rc = c->from_cache ? 0 : tb_tdx_pccs_fetch(src->pccs, c->fmspc, c->ca, timeout, &c->tdx, err);
    c->fetch_ns = tb_mono_ns() - t0;
    if (rc < 0)
        return failed(c, TB_ATTEST_PREP_COLLATERAL, -1);
    c->fetched = !c->from_cache;
    return 0;
}

/* TDX: a file's JSON as it is (what from-scratch timing parses), checked by parsing it. */
static int tdx_from_file(const char *path, tb_attest_evidence_collateral *c, tb_err *err)
{
    tb_buf b = {0};
    if (tb_file_read(path, 16u << 20, &b, err) < 0)
        return -1;
    c->json = (char *)b.p;
    c->json_len = b.len;
    if (tb_tdx_collateral_parse_json(c->json, c->json_len, &c->tdx, err) < 0)
        return tb_err_wrap(err, "%s", path);
    return 0;
}

/* TDX: the trusted root -- src's, else the SIMULATED PKI's (taken over from *simroot), else
   Intel's. */
static int tdx_root(const tb_attest_collateral_source *src, tb_attest_root **simroot,
                    tb_attest_evidence_collateral *c, tb_err *err)
{
    int rc = src->root  ? tb_attest_root_load(src->root, &c->root, err)
             : *simroot ? (c->root = *simroot, *simroot = NULL, 0)
                        : tb_attest_root_intel(&c->root, err);
    return rc < 0 ? failed(c, TB_ATTEST_PREP_ROOT, -1) : 0;
}

/* TDX: collateral from a file or folder, else the SIMULATED PKI's (its root into *simroot). */
static int tdx_local(int sim, const tb_attest_collateral_source *src, int64_t now,
                     tb_attest_evidence_collateral *c, tb_attest_root **simroot, tb_err *err)
{
    if (src->collateral) {
        struct stat st;
        return stat(src->collateral, &st) == 0 && !S_ISDIR(st.st_mode)
                   ? tdx_from_file(src->collateral, c, err)
                   : tb_tdx_collateral_load(src->collateral, &c->tdx, err);
    }
    if (!sim)
        return tb_errf(err,
                       "no collateral for the TDX quote (want a file, a folder or a PCCS URL)");
    char dir[4096];
    if (tb_attest_sim_dir(src->sim_dir, dir, sizeof dir, err) < 0)
        return -1;
    return src->fetch.no_cache ? tb_tdx_sim_collateral(dir, now, 0, &c->tdx, simroot, err)
                               : tb_tdx_sim_collateral_cached(dir, now, &c->tdx, simroot, err);
}

/* TDX: collateral (a PCS/PCCS -- never for SIMULATED quotes; the root loaded first --, a file
   or folder, else the SIMULATED PKI's) and the trusted root; a file's JSON kept as it is. */
static int tdx_prepare(tb_tee kind, const uint8_t *quote, size_t len,
                       const tb_attest_collateral_source *src, int64_t now,
                       tb_attest_evidence_collateral *c, tb_err *err)
{
    tb_attest_root *simroot = NULL;
    int sim = tb_tee_simulated(kind);
    if (src->pccs && !sim)
        return tdx_root(src, &simroot, c, err) < 0 ? -1
                                                   : tdx_from_pccs(quote, len, src, now, c, err);
    uint64_t t0 = tb_mono_ns();
    int rc = tdx_local(sim, src, now, c, &simroot, err);
    c->fetch_ns = tb_mono_ns() - t0;
    rc = rc < 0 ? failed(c, TB_ATTEST_PREP_COLLATERAL, -1) : tdx_root(src, &simroot, c, err);
    tb_attest_root_free(simroot);
    return rc;
}

const char *tb_attest_evidence_source_name(tb_tee kind, const tb_attest_collateral_source *src)
{
    int sim = tb_tee_simulated(kind);
    const char *url = sim                                           ? NULL
                      : tb_tee_family_of(kind) == TB_TEE_FAMILY_SNP ? src->kds
                                                                    : src->pccs;
    const char *file = tb_tee_family_of(kind) == TB_TEE_FAMILY_SNP ? src->certs : src->collateral;
    const char *given =
        tb_tee_family_of(kind) == TB_TEE_FAMILY_SNP ? (file ? file : url) : (url ? url : file);
    return given ? given : sim ? "the simulated PKI" : "nowhere";
}

int tb_attest_evidence_prepare(tb_tee kind, const uint8_t *evidence, size_t len,
                               const tb_attest_collateral_source *src, int64_t now,
                               tb_attest_evidence_collateral *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    tb_tee_family f = tb_tee_family_of(kind);
    int rc = f == TB_TEE_FAMILY_SNP   ? snp_prepare(kind, evidence, len, src, now, out, err)
             : f == TB_TEE_FAMILY_TDX ? tdx_prepare(kind, evidence, len, src, now, out, err)
                                      : failed(out, TB_ATTEST_PREP_COLLATERAL,
                                               tb_errf(err, "no verifier for evidence of no TEE"));
    if (rc < 0) { /* cleared, but for what failed and the time it took */
        uint64_t ns = out->fetch_ns;
        tb_attest_prep_fail what = out->failed;
        tb_attest_evidence_collateral_clear(out);
        out->kind = kind;
        out->fetch_ns = ns;
        out->failed = what;
    }
    return rc;
}

/* ------------------------------------------------------------ verification */

void tb_attest_evidence_timed_verdict(tb_tee kind, const tb_attest_timed *t,
                                      tb_attest_evidence_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->family = tb_tee_family_of(kind);
    v->tdx = t->tdx;
    v->snp = t->snp;
    v->result = v->family == TB_TEE_FAMILY_SNP ? t->snp.result : t->tdx.result;
    v->simulated = v->family == TB_TEE_FAMILY_SNP ? t->snp.simulated : t->tdx.simulated;
}

const char *tb_attest_evidence_step(const tb_attest_evidence_verdict *v)
{
    return v->family == TB_TEE_FAMILY_SNP ? tb_snp_step_name(v->snp.step)
                                          : tb_tdx_step_name(v->tdx.step);
}

const char *tb_attest_evidence_reason(const tb_attest_evidence_verdict *v)
{
    return v->family == TB_TEE_FAMILY_SNP ? v->snp.reason : v->tdx.reason;
}

int tb_attest_evidence_verify(const tb_attest_evidence_collateral *c, const uint8_t *evidence,
                              size_t len, int64_t now, const tb_attest_policy *policy,
                              tb_attest_evidence_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->family = tb_tee_family_of(c->kind);
    if (v->family == TB_TEE_FAMILY_SNP) {
        tb_snp_verify(evidence, len, &c->certs, now, policy, c->ark, c->ark_len, &v->snp);
        v->result = v->snp.result;
        v->simulated = v->snp.simulated;
    } else {
        tb_tdx_verify(evidence, len, &c->tdx, now, policy, c->root, &v->tdx);
        v->result = v->tdx.result;
        v->simulated = v->tdx.simulated;
    }
    return v->result == TB_ATTEST_ACCEPTED ? 0 : -1;
}

/* tb_attest_evidence_keep, saying when the cache could not be written. */
static int keep(const tb_attest_evidence_collateral *c, const tb_attest_collateral_source *src,
                const tb_attest_evidence_verdict *v, tb_err *err)
{
    if (!c->fetched)
        return 0;
    if (v->family == TB_TEE_FAMILY_SNP) {
        tb_snp_kds_opts o = kds_opts(src);
        return v->result == TB_ATTEST_INVALID
                   ? 0
                   : tb_snp_kds_cache_put(src->kds, &c->report, c->product, &o, &c->certs, err);
    }
    char dir[4096];
    if (v->result != TB_ATTEST_ACCEPTED && v->result != TB_ATTEST_REFUSED)
        return 0;
    if (tb_attest_cache_dir(src->fetch.cache_dir, dir, sizeof dir, err) < 0)
        return -1;
    return tb_attest_cache_put(dir, src->pccs, c->fmspc, c->ca, &c->tdx, err);
}

void tb_attest_evidence_keep(const tb_attest_evidence_collateral *c,
                             const tb_attest_collateral_source *src,
                             const tb_attest_evidence_verdict *v)
{
    tb_err ignored; /* not kept: the next verifier fetches it again */
    keep(c, src, v, &ignored);
}

/* Verifies with c, the time it takes added to t->verify_ns. */
static void timed_verify(const tb_attest_evidence_collateral *c, const uint8_t *evidence,
                         size_t len, int64_t now, const tb_attest_policy *policy,
                         tb_attest_evidence_verdict *v, tb_attest_check_trace *t)
{
    uint64_t t0 = tb_mono_ns();
    tb_attest_evidence_verify(c, evidence, len, now, policy, v);
    t->verify_ns += tb_mono_ns() - t0;
}

/* Cached collateral *c failed: fetched again (no_cache) into *c and verified again; if that
   fetch fails, the cached verdict stands, its reason saying so. */
static void refetch(tb_tee kind, const uint8_t *evidence, size_t len,
                    const tb_attest_collateral_source *src, int64_t now,
                    const tb_attest_policy *policy, tb_attest_evidence_collateral *c,
                    tb_attest_evidence_verdict *v, tb_attest_check_trace *t)
{
    tb_attest_collateral_source again = *src;
    again.fetch.no_cache = 1;
    tb_attest_evidence_collateral fresh;
    int rc = tb_attest_evidence_prepare(kind, evidence, len, &again, now, &fresh, &t->refetch_err);
    t->fetch_ns += fresh.fetch_ns;
    if (rc < 0) {
        t->refetch_failed = 1;
        char *r = v->family == TB_TEE_FAMILY_SNP ? v->snp.reason : v->tdx.reason;
        size_t cap = v->family == TB_TEE_FAMILY_SNP ? sizeof v->snp.reason : sizeof v->tdx.reason;
        size_t k = strlen(r);
        snprintf(r + k, cap - k, " (with cached collateral; fetching it again failed: %s)",
                 t->refetch_err.msg);
        return;
    }
    tb_attest_evidence_collateral_clear(c);
    *c = fresh;
    t->from_cache = 0;
    t->refetched = 1;
    timed_verify(c, evidence, len, now, policy, v, t);
}

int tb_attest_evidence_check_traced(tb_tee kind, const uint8_t *evidence, size_t len,
                                    const tb_attest_collateral_source *src, int64_t now,
                                    const tb_attest_policy *policy, tb_attest_evidence_verdict *v,
                                    tb_attest_check_trace *trace, tb_err *err)
{
    tb_attest_check_trace local;
    tb_attest_check_trace *t = trace ? trace : &local;
    memset(t, 0, sizeof *t);
    memset(v, 0, sizeof *v);
    v->result = TB_ATTEST_INVALID;
    tb_attest_evidence_collateral c;
    int rc = tb_attest_evidence_prepare(kind, evidence, len, src, now, &c, err);
    t->fetch_ns = c.fetch_ns;
    t->failed = c.failed;
    if (rc < 0)
        return -1;
    t->from_cache = c.from_cache;
    timed_verify(&c, evidence, len, now, policy, v, t);
    if (c.from_cache && (v->result == TB_ATTEST_INVALID || v->result == TB_ATTEST_EXPIRED))
        refetch(kind, evidence, len, src, now, policy, &c, v, t); /* stale or poisoned */
    t->not_kept = keep(&c, src, v, &t->not_kept_err) < 0;
    tb_attest_evidence_collateral_clear(&c);
    return v->result == TB_ATTEST_ACCEPTED ? 0 : -1;
}

int tb_attest_evidence_check(tb_tee kind, const uint8_t *evidence, size_t len,
                             const tb_attest_collateral_source *src, int64_t now,
                             const tb_attest_policy *policy, tb_attest_evidence_verdict *v,
                             int *prepared, tb_err *err)
{
    tb_attest_check_trace t;
    int rc = tb_attest_evidence_check_traced(kind, evidence, len, src, now, policy, v, &t, err);
    *prepared = t.failed == TB_ATTEST_PREP_OK;
    return rc;
}

/* ------------------------------------------------------------ timing */

int tb_attest_evidence_time(const tb_attest_evidence_collateral *c, const uint8_t *evidence,
                            size_t len, int64_t now, tb_attest_way way,
                            const tb_attest_timing_opts *o, tb_attest_timed *out, tb_err *err)
{
    tb_tee_family f = tb_tee_family_of(c->kind);
    char *made = NULL; /* TDX collateral not read from a file: its JSON, made here, untimed */
    if (f == TB_TEE_FAMILY_TDX && !c->json && tb_tdx_collateral_to_json(&c->tdx, &made, err) < 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    const char *json = made ? made : c->json;
    tb_attest_timed_input in = {.family = f,
                                .evidence = evidence,
                                .len = len,
                                .now = now,
                                .collateral_json = json,
                                .collateral_len = made ? strlen(made) : c->json_len,
                                .root = c->root,
                                .certs = &c->certs,
                                .ark = c->ark,
                                .ark_len = c->ark_len};
    int rc = tb_attest_time_verify(&in, way, o, out, err);
    free(made);
    return rc;
}

int tb_attest_get_evidence(tb_tee kind, const uint8_t rd[64], const tb_attest_get_opts *opts,
                           uint8_t **quote, size_t *len, tb_err *err)
{
    tb_attest_get_opts def = {0};
    if (!opts)
        opts = &def;
    tb_attest_evidence *ev;
    if (tb_attest_evidence_open(kind, opts->sim_dir, opts->tsm_root, &ev, err) < 0)
        return -1;
    int rc = tb_attest_evidence_get_debug(ev, rd, opts->sim_debug, quote, len, err);
    tb_attest_evidence_close(ev);
    return rc;
}
