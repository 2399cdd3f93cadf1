/* attest/common/timing: the verification-timing loop (see timing.h).
 * Invariants: a prepared state made here is freed here on every path; the batch means
 * are kept in a fixed array of at most TIMING_MAX_BATCHES; nothing allocates per
 * verification beyond what the verifier itself does. */
#include "attest/common/timing.h"

#include <string.h>

#include "base/clock.h"
#include "stats/summary.h"

#define TIMING_MAX_BATCHES 64

typedef struct run {
    const tb_attest_timed_input *in;
    tb_attest_way way;
    tb_tdx_prepared *tdx;
    tb_snp_prepared *snp;
    tb_attest_timed *out;
} run;

static int prepare(run *r, tb_err *err)
{
    const tb_attest_timed_input *in = r->in;
    if (in->family == TB_TEE_FAMILY_SNP) {
        if (tb_snp_prepare(in->evidence, in->len, in->certs, in->now, in->ark, in->ark_len, &r->snp,
                           &r->out->snp) < 0)
            return tb_errf(err, "SEV-SNP report verification failed at %s: %s",
                           tb_snp_step_name(r->out->snp.step), r->out->snp.reason);
        return 0;
    }
    tb_tdx_collateral c;
    if (tb_tdx_collateral_parse_json(in->collateral_json, in->collateral_len, &c, err) < 0)
        return -1;
    int rc = tb_tdx_prepare(&c, in->now, in->root, &r->tdx, &r->out->tdx, err);
    tb_tdx_collateral_clear(&c);
    return rc;
}

/* One verification, its verdict into out. */
static int verify_once(run *r, tb_err *err)
{
    const tb_attest_timed_input *in = r->in;
    tb_attest_timed *out = r->out;
    if (in->family == TB_TEE_FAMILY_SNP) {
        if (r->way == TB_ATTEST_PREPARED)
            tb_snp_verify_prepared(in->evidence, in->len, r->snp, in->now, NULL, &out->snp);
        else
            tb_snp_verify(in->evidence, in->len, in->certs, in->now, NULL, in->ark, in->ark_len,
                          &out->snp);
        return 0;
    }
    if (r->way == TB_ATTEST_PREPARED) {
        tb_tdx_verify_prepared(in->evidence, in->len, r->tdx, in->now, NULL, &out->tdx);
        return 0;
    }
    tb_tdx_collateral c;
    if (tb_tdx_collateral_parse_json(in->collateral_json, in->collateral_len, &c, err) < 0)
        return -1;
    tb_tdx_verify(in->evidence, in->len, &c, in->now, NULL, in->root, &out->tdx);
    tb_tdx_collateral_clear(&c);
    return 0;
}

static int batches(run *r, const tb_attest_timing_opts *o, tb_err *err)
{
    double wall[TIMING_MAX_BATCHES], cpu[TIMING_MAX_BATCHES];
    tb_attest_timed *out = r->out;
    for (int i = 0; i < o->warmup; i++)
        if (verify_once(r, err) < 0)
            return -1;
    int done = 0;
    for (; done < o->batches; done++) {
        if (o->stop && o->stop(o->ctx))
            break;
        uint64_t t0 = tb_mono_ns(), c0 = tb_thread_cpu_ns();
        for (int i = 0; i < o->per; i++)
            if (verify_once(r, err) < 0)
                return -1;
        cpu[done] = (double)(tb_thread_cpu_ns() - c0) / 1e6 / o->per;
        wall[done] = (double)(tb_mono_ns() - t0) / 1e6 / o->per;
        tb_attest_timed b = *out;
        b.batch = done;
        b.wall_ms = wall[done];
        b.cpu_ms = cpu[done];
        if (o->batch && o->batch(o->ctx, &b, err) < 0)
            return -1;
    }
    out->batch = done;
    if (done && (tb_stats_median(wall, (size_t)done, &out->wall_ms) < 0 ||
                 tb_stats_median(cpu, (size_t)done, &out->cpu_ms) < 0))
        return tb_errf(err, "out of memory");
    return 0;
}

int tb_attest_time_verify(const tb_attest_timed_input *in, tb_attest_way way,
                          const tb_attest_timing_opts *o, tb_attest_timed *out, tb_err *err)
{
    memset(out, 0, sizeof *out);
    out->way = way;
    if (o->batches < 1 || o->batches > TIMING_MAX_BATCHES || o->per < 1 || o->warmup < 0)
        return tb_errf(err, "timing: want 1..%d batches of at least one verification",
                       TIMING_MAX_BATCHES);
    if (in->family != TB_TEE_FAMILY_TDX && in->family != TB_TEE_FAMILY_SNP)
        return tb_errf(err, "timing: no verifier for evidence of no TEE");
    run r = {.in = in, .way = way, .out = out};
    int rc = way == TB_ATTEST_PREPARED ? prepare(&r, err) : 0;
    if (rc == 0)
        rc = batches(&r, o, err);
    tb_tdx_prepared_free(r.tdx);
    tb_snp_prepared_free(r.snp);
    return rc;
}
