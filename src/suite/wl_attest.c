/* suite/wl_attest: the attest workload -- get TDX quotes and verify them.
 *
 * Provider: configfs-tsm in a TDX guest (real quotes; collateral from a PCS or
 * PCCS through the attest cache, fetched once, not timed), the SIMULATED
 * provider elsewhere (its own PKI and collateral, made in the work directory:
 * nothing is read from testdata/). Per round: `quotes` quote requests (one
 * sample each, ms), then `iterations` verifications with prepared collateral
 * and as many from scratch (collateral JSON parsed and checked every time, as
 * `teebench attest bench` does), each in 5 batches whose mean per quote is one
 * sample. A verdict of ACCEPTED or REFUSED (a valid quote the default policy
 * refuses, e.g. an out-of-date TCB) counts; an INVALID quote fails the step.
 * Every metric is marked simulated when the SIMULATED provider made the quote. */
#include "suite/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/hex.h"

#define BATCHES 5

void suite_attest_cleanup(suite_ctx *c)
{
    tb_attest_sim_close(c->sim);
    c->sim = NULL;
    free(c->collateral_json);
    c->collateral_json = NULL;
    tb_attest_root_free(c->root);
    c->root = NULL;
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

/* One quote from the provider the suite uses. */
static int get_quote(suite_ctx *c, const uint8_t rd[64], uint8_t **q, size_t *len, tb_err *err)
{
    if (c->attest_sim)
        return tb_attest_sim_quote(c->sim, rd, 0, q, len, err);
    return tb_attest_tsm_get_quote(NULL, rd, q, len, err);
}

/* Writes what the equivalent `teebench attest ...` commands read (quote.bin,
   collateral.json, sim-root.pem in <work>/attest) and records those commands. */
static void sim_files(suite_ctx *c, const char *simdir, const uint8_t *q, size_t len)
{
    char dir[PATH_MAX], qp[PATH_MAX], cp[PATH_MAX], rp[PATH_MAX], srcroot[PATH_MAX];
    tb_err e;
    if (suite_path(c, "attest", dir, sizeof dir, &e) < 0 || tb_mkdirs(dir, &e) < 0 ||
        snprintf(qp, sizeof qp, "%s/quote.bin", dir) >= (int)sizeof qp ||
        snprintf(cp, sizeof cp, "%s/collateral.json", dir) >= (int)sizeof cp ||
        snprintf(rp, sizeof rp, "%s/sim-root.pem", dir) >= (int)sizeof rp)
        return;
    tb_buf root = {0};
    if (tb_file_write_atomic(qp, q, len, &e) < 0 ||
        tb_file_write_atomic(cp, c->collateral_json, strlen(c->collateral_json), &e) < 0 ||
        tb_attest_sim_root_path(simdir, srcroot, sizeof srcroot, &e) < 0 ||
        tb_file_read(srcroot, 1 << 16, &root, &e) < 0 ||
        tb_file_write_atomic(rp, root.p, root.len, &e) < 0) {
        tb_buf_clear(&root);
        return;
    }
    tb_buf_clear(&root);
    char hex[129], iters[16];
    uint8_t rd[64];
    report_data(1, 1, rd);
    tb_hex_encode(rd, 64, hex);
    snprintf(iters, sizeof iters, "%d", c->p->attest.iterations);
    char *quote[] = {c->exe,         "attest",        "quote", "--provider", "sim", "--sim-dir",
                     (char *)simdir, "--report-data", hex,     "-o",         qp,    NULL};
    char *col[] = {c->exe, "attest", "sim-collateral", dir, "--sim-dir", (char *)simdir, NULL};
    char *bench[] = {c->exe, "attest",       "bench", qp,  "--collateral", cp, "--root",
                     rp,     "--iterations", iters,   NULL};
    suite_command(c, quote);
    suite_command(c, col);
    suite_command(c, bench);
}

/* Real quotes: the collateral of the quote's FMSPC from the PCS/PCCS. */
static void tsm_collateral(suite_ctx *c, const uint8_t *q, size_t len)
{
    tb_err e;
    tb_attest_quote *pq = NULL;
    char fmspc[13];
    const char *ca;
    tb_attest_collateral col;
    if (tb_attest_quote_parse(q, len, &pq, &e) < 0 ||
        tb_attest_quote_fmspc_ca(pq, fmspc, &ca, &e) < 0 ||
        tb_attest_pccs_fetch(c->p->attest.pccs, fmspc, ca, 10000, &col, &e) < 0) {
        snprintf(c->verify_reason, sizeof c->verify_reason,
                 "no collateral for the quote from %.200s: %.200s", c->p->attest.pccs, e.msg);
        tb_attest_quote_free(pq);
        return;
    }
    tb_attest_quote_free(pq);
    if (tb_attest_collateral_to_json(&col, &c->collateral_json, &e) < 0 ||
        tb_attest_root_intel(&c->root, &e) < 0)
        snprintf(c->verify_reason, sizeof c->verify_reason, "collateral: %.300s", e.msg);
    tb_attest_collateral_clear(&col);
    char *argv[] = {c->exe, "attest", "quote", "--provider", "tsm", "--report-data", "00", NULL};
    suite_command(c, argv);
}

static int setup(suite_ctx *c, tb_err *err)
{
    const char *prov = c->p->attest.provider;
    c->attest_sim = !strcmp(prov, "sim") || (!strcmp(prov, "auto") && !c->tdx_guest);
    uint8_t rd[64], *q = NULL;
    size_t len;
    report_data(0, 0, rd);
    if (c->attest_sim) {
        char dir[PATH_MAX];
        tb_attest_collateral col;
        if (suite_path(c, "sim", dir, sizeof dir, err) < 0 ||
            tb_attest_sim_open(dir, &c->sim, err) < 0)
            return tb_err_wrap(err, "SIMULATED provider");
        int rc = tb_attest_sim_collateral(dir, now_s(), 0, &col, &c->root, err);
        if (rc == 0) {
            rc = tb_attest_collateral_to_json(&col, &c->collateral_json, err);
            tb_attest_collateral_clear(&col);
        }
        if (rc == 0 && (rc = tb_attest_sim_quote(c->sim, rd, 0, &q, &len, err)) == 0)
            sim_files(c, dir, q, len);
        free(q);
        return rc < 0 ? tb_err_wrap(err, "SIMULATED collateral") : 0;
    }
    if (tb_attest_tsm_get_quote(NULL, rd, &q, &len, err) < 0)
        return tb_err_wrap(err, "configfs-tsm quote");
    tsm_collateral(c, q, len);
    free(q);
    return 0;
}

static void report_once(suite_ctx *c, const tb_attest_verdict *v)
{
    if (c->attest_reported)
        return;
    c->attest_reported = 1;
    json_t *o = json_pack("{s:s, s:b, s:s, s:s}", "provider",
                          c->attest_sim ? "sim (SIMULATED)" : "tsm (configfs-tsm)", "simulated",
                          c->attest_sim, "verdict",
                          v->result == TB_ATTEST_ACCEPTED ? "ACCEPTED" : "REFUSED", "tcb_status",
                          v->status_known ? tb_attest_tcb_status_name(v->status) : "");
    if (o)
        json_object_set_new(c->r->extra, "attest", o);
}

/* Prepared and from-scratch verification of quote q, BATCHES samples each. */
static int verify_round(suite_ctx *c, const uint8_t *q, size_t len, tb_err *err)
{
    int per = c->p->attest.iterations / BATCHES > 0 ? c->p->attest.iterations / BATCHES : 1;
    const char *cj = c->collateral_json;
    int64_t now = now_s();
    tb_attest_collateral col;
    tb_attest_prepared *prep = NULL;
    tb_attest_verdict v;
    if (tb_attest_collateral_parse_json(cj, strlen(cj), &col, err) < 0)
        return tb_err_wrap(err, "collateral");
    int rc = tb_attest_prepare(&col, now, c->root, &prep, &v, err);
    tb_attest_collateral_clear(&col);
    if (rc < 0)
        return tb_err_wrap(err, "collateral");
    const char *sim_note = c->attest_sim ? " (SIMULATED quote and collateral)" : "";
    char note[256];
    snprintf(
        note, sizeof note,
        "verification of one quote with collateral checked beforehand (tb_attest_prepare), mean of "
        "a batch of %d%s",
        per, sim_note);
    for (int b = 0; b < BATCHES && rc == 0; b++) {
        if (suite_stopped(c))
            break;
        uint64_t t0 = tb_mono_ns();
        for (int i = 0; i < per; i++)
            tb_attest_verify_prepared(q, len, prep, now, NULL, &v);
        double us = (double)(tb_mono_ns() - t0) / 1e3 / per;
        if (v.result >= TB_ATTEST_INVALID)
            rc = tb_errf(err, "quote verification failed at %s: %s", tb_attest_step_name(v.step),
                         v.reason);
        else
            rc = suite_sample(c, "attest.verify_prepared.us", us, c->attest_sim, note, err);
    }
    tb_attest_prepared_free(prep);
    if (rc == 0)
        report_once(c, &v);
    snprintf(note, sizeof note,
             "verification of one quote from scratch: collateral JSON parsed and checked every "
             "time, mean of a batch of %d%s",
             per, sim_note);
    for (int b = 0; b < BATCHES && rc == 0; b++) {
        if (suite_stopped(c))
            break;
        uint64_t t0 = tb_mono_ns();
        for (int i = 0; i < per && rc == 0; i++) {
            if (tb_attest_collateral_parse_json(cj, strlen(cj), &col, err) < 0) {
                rc = tb_err_wrap(err, "collateral");
            } else {
                tb_attest_verify(q, len, &col, now, NULL, c->root, &v);
                tb_attest_collateral_clear(&col);
            }
        }
        double ms = (double)(tb_mono_ns() - t0) / 1e6 / per;
        if (rc == 0 && v.result >= TB_ATTEST_INVALID)
            rc = tb_errf(err, "quote verification failed at %s: %s", tb_attest_step_name(v.step),
                         v.reason);
        else if (rc == 0)
            rc = suite_sample(c, "attest.verify_scratch.ms", ms, c->attest_sim, note, err);
    }
    return rc;
}

int suite_attest_step(suite_ctx *c, int round, tb_err *err)
{
    if (c->attest_ready == 0) {
        tb_err e;
        if (setup(c, &e) < 0) {
            c->attest_ready = -1;
            snprintf(c->attest_reason, sizeof c->attest_reason, "%s", e.msg);
        } else {
            c->attest_ready = 1;
            if (!c->collateral_json)
                suite_problem(c->skipped, "attest", "verify", 0, c->verify_reason);
        }
    }
    if (c->attest_ready < 0) {
        tb_errf(err, "%s", c->attest_reason);
        return ST_FAILED;
    }
    char note[256];
    snprintf(note, sizeof note, "time to get one quote binding 64 bytes of report data: %s",
             c->attest_sim ? "SIMULATED provider (local PKI, opened once as the notary does)"
                           : "configfs-tsm (the TD's quote through the host's quoting enclave)");
    uint8_t rd[64], *q = NULL, *last = NULL;
    size_t len = 0, last_len = 0;
    for (int i = 1; i <= c->p->attest.quotes; i++) {
        if (suite_stopped(c)) {
            free(last);
            return ST_CANCELLED;
        }
        report_data(round, i, rd);
        uint64_t t0 = tb_mono_ns();
        if (get_quote(c, rd, &q, &len, err) < 0) {
            free(last);
            return ST_FAILED;
        }
        double ms = (double)(tb_mono_ns() - t0) / 1e6;
        free(last);
        last = q;
        last_len = len;
        if (suite_sample(c, "attest.quote_get.ms", ms, c->attest_sim, note, err) < 0) {
            free(last);
            return ST_FAILED;
        }
    }
    int rc = c->collateral_json ? verify_round(c, last, last_len, err) : 0;
    free(last);
    if (suite_stopped(c))
        return ST_CANCELLED;
    return rc < 0 ? ST_FAILED : ST_OK;
}
