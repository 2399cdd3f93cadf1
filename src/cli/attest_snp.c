/* cli/attest_snp: the SEV-SNP side of `teebench attest show|verify` (cli/attest.c detects
 * an SNP report by its bytes and hands it here): printing a report's every field, and
 * verifying one against certificates from a folder or a KDS -- one
 * tb_attest_evidence_check_traced: the fetch, the cache and the refetch of cached
 * certificates that fail are attest/common/evidence's --, printed like a TDX verdict with
 * the same words and exit codes (0 accepted, 3 refused, 4 invalid, 5 expired, 1 error, 2 a
 * v2 report with --kds and no --product). Anything simulated says SIMULATED. */
#include "cli/attest_snp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/common/evidence.h"
#include "attest/snp/snp.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/hex.h"
#include "cli/cli.h"
#include "cli/json.h"

#define EXIT_REFUSED 3
#define EXIT_INVALID 4
#define EXIT_EXPIRED 5

static json_t *hexj(const uint8_t *p, size_t n)
{
    char buf[2 * 72 + 1];
    tb_hex_encode(p, n, buf);
    return json_string(buf);
}

static json_t *hex64(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "0x%016llx", (unsigned long long)v);
    return json_string(b);
}

static json_t *tcb_json(uint64_t raw, tb_snp_product p)
{
    tb_snp_tcb t;
    tb_snp_tcb_decode(raw, p, &t);
    json_t *o = json_object();
    json_object_set_new(o, "raw", hex64(raw));
    if (t.has_fmc)
        json_object_set_new(o, "fmc_spl", json_integer(t.fmc));
    json_object_set_new(o, "bootloader_spl", json_integer(t.bl));
    json_object_set_new(o, "tee_spl", json_integer(t.tee));
    json_object_set_new(o, "snp_spl", json_integer(t.snp));
    json_object_set_new(o, "microcode_spl", json_integer(t.ucode));
    return o;
}

static json_t *version_json(uint8_t major, uint8_t minor, uint8_t build)
{
    char b[32];
    snprintf(b, sizeof b, "%u.%u (build %u)", major, minor, build);
    return json_string(b);
}

static json_t *report_json(const tb_snp_report *r)
{
    tb_snp_product p = tb_snp_report_product(r);
    json_t *o = json_object(), *pol = json_object(), *pi = json_object(), *si = json_object();
    tb_snp_bit bits[16];
    char b[96];
    json_object_set_new(o, "tee", json_string("SEV-SNP"));
    json_object_set_new(o, "simulated", json_boolean(tb_snp_is_simulated(r)));
    json_object_set_new(o, "version", json_integer(r->version));
    if (p)
        json_object_set_new(o, "product", json_string(tb_snp_product_name(p)));
    else
        json_object_set_new(o, "product",
                            json_string(r->version < 3 ? "unknown (a version 2 report has no "
                                                         "CPUID fields; TCBs read as Milan/Genoa)"
                                                       : "unknown CPUID family/model"));
    json_object_set_new(o, "guest_svn", json_integer(r->guest_svn));
    json_object_set_new(pol, "raw", hex64(r->policy));
    json_object_set_new(pol, "abi_major", json_integer((r->policy >> 8) & 0xff));
    json_object_set_new(pol, "abi_minor", json_integer(r->policy & 0xff));
    int n = tb_snp_policy_bits(r->policy, bits, 16);
    for (int i = 0; i < n; i++)
        json_object_set_new(pol, bits[i].name, json_boolean(bits[i].set));
    json_object_set_new(o, "policy", pol);
    json_object_set_new(o, "family_id", hexj(r->family_id, 16));
    json_object_set_new(o, "image_id", hexj(r->image_id, 16));
    json_object_set_new(o, "vmpl", json_integer(r->vmpl));
    snprintf(b, sizeof b, "%u (%s)", r->sig_algo,
             r->sig_algo == 1 ? "ECDSA P-384 with SHA-384" : "?");
    json_object_set_new(o, "signature_algo", json_string(b));
    json_object_set_new(o, "current_tcb", tcb_json(r->current_tcb, p));
    json_object_set_new(pi, "raw", hex64(r->platform_info));
    n = tb_snp_platform_bits(r->platform_info, bits, 16);
    for (int i = 0; i < n; i++)
        json_object_set_new(pi, bits[i].name, json_boolean(bits[i].set));
    json_object_set_new(o, "platform_info", pi);
    unsigned key = tb_snp_signing_key(r);
    json_object_set_new(si, "author_key_en", json_boolean(r->signer_info & 1));
    json_object_set_new(si, "mask_chip_key", json_boolean(r->signer_info & 2));
    json_object_set_new(si, "signing_key",
                        json_string(key == 0   ? "VCEK"
                                    : key == 1 ? "VLEK"
                                               : "none"));
    json_object_set_new(o, "signer_info", si);
    json_object_set_new(o, "report_data", hexj(r->report_data, 64));
    json_object_set_new(o, "measurement", hexj(r->measurement, 48));
    json_object_set_new(o, "host_data", hexj(r->host_data, 32));
    json_object_set_new(o, "id_key_digest", hexj(r->id_key_digest, 48));
    json_object_set_new(o, "author_key_digest", hexj(r->author_key_digest, 48));
    json_object_set_new(o, "report_id", hexj(r->report_id, 32));
    json_object_set_new(o, "report_id_ma", hexj(r->report_id_ma, 32));
    json_object_set_new(o, "reported_tcb", tcb_json(r->reported_tcb, p));
    if (r->version >= 3) {
        json_t *c = json_object();
        snprintf(b, sizeof b, "0x%02x", r->cpuid_fam);
        json_object_set_new(c, "family", json_string(b));
        snprintf(b, sizeof b, "0x%02x", r->cpuid_mod);
        json_object_set_new(c, "model", json_string(b));
        snprintf(b, sizeof b, "0x%02x", r->cpuid_step);
        json_object_set_new(c, "stepping", json_string(b));
        json_object_set_new(o, "cpuid", c);
    }
    json_object_set_new(o, "chip_id", hexj(r->chip_id, 64));
    json_object_set_new(o, "committed_tcb", tcb_json(r->committed_tcb, p));
    json_object_set_new(o, "current_firmware",
                        version_json(r->current_major, r->current_minor, r->current_build));
    json_object_set_new(o, "committed_firmware",
                        version_json(r->committed_major, r->committed_minor, r->committed_build));
    json_object_set_new(o, "launch_tcb", tcb_json(r->launch_tcb, p));
    if (r->version >= 5) {
        json_object_set_new(o, "launch_mit_vector", hex64(r->launch_mit_vector));
        json_object_set_new(o, "current_mit_vector", hex64(r->current_mit_vector));
    }
    uint8_t be[48];
    json_t *s = json_object();
    for (int i = 0; i < 48; i++)
        be[i] = r->sig_r[47 - i];
    json_object_set_new(s, "r", hexj(be, 48));
    for (int i = 0; i < 48; i++)
        be[i] = r->sig_s[47 - i];
    json_object_set_new(s, "s", hexj(be, 48));
    json_object_set_new(s, "encoding", json_string("big-endian (little-endian in the report)"));
    json_object_set_new(o, "signature", s);
    return o;
}

int cli_attest_snp_show(const char *path, const uint8_t *b, size_t n, int json)
{
    tb_snp_report r;
    tb_err e;
    if (tb_snp_parse(b, n, &r, &e) < 0)
        return cli_fail("attest show", "%s: not an SEV-SNP report: %s", path, e.msg);
    json_t *o = report_json(&r);
    if (json) {
        cli_json_print("attest show",
                       cli_json_envelope("teebench-attest-show/1", json_incref(o), 0));
    } else {
        if (tb_snp_is_simulated(&r))
            printf("SIMULATED SEV-SNP report (teebench simulated provider, not AMD firmware)\n");
        tb_snp_product p = tb_snp_report_product(&r);
        printf("SEV-SNP attestation report v%u, %s, %zu bytes\n", r.version,
               p ? tb_snp_product_name(p) : "product unknown", n);
        printf("policy debug: %s\n",
               r.policy & TB_SNP_POLICY_DEBUG ? "DEBUG allowed (bit 19 set)" : "off");
        cli_json_print_text(o, 0, 28);
    }
    json_decref(o);
    return 0;
}

static int step_number(tb_snp_step s)
{
    return s >= TB_SNP_STEP_ARK && s <= TB_SNP_STEP_SIGNATURE ? (int)s - TB_SNP_STEP_ARK + 1 : 0;
}

static void print_verdict(const char *path, const tb_snp_report *r, const tb_snp_verdict *v,
                          const char *how, int refetch, uint64_t fetch_ns, uint64_t verify_ns,
                          int json)
{
    int sim = v->simulated || tb_snp_is_simulated(r);
    const char *leaf = v->vlek ? "VLEK" : "VCEK";
    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "report", json_string(path));
        json_object_set_new(o, "tee", json_string("SEV-SNP"));
        json_object_set_new(o, "simulated", json_boolean(sim));
        json_object_set_new(o, "verdict", json_string(tb_attest_result_name(v->result)));
        json_object_set_new(o, "step", json_string(tb_snp_step_name(v->step)));
        json_object_set_new(o, "step_number", json_integer(step_number(v->step)));
        json_object_set_new(o, "reason", json_string(v->reason));
        json_object_set_new(o, "product", json_string(tb_snp_product_name(v->product)));
        json_object_set_new(o, "signing_key", json_string(leaf));
        json_t *t = json_object();
        json_object_set_new(t, "bootloader_spl", json_integer(v->reported.bl));
        json_object_set_new(t, "tee_spl", json_integer(v->reported.tee));
        json_object_set_new(t, "snp_spl", json_integer(v->reported.snp));
        json_object_set_new(t, "microcode_spl", json_integer(v->reported.ucode));
        if (v->reported.has_fmc)
            json_object_set_new(t, "fmc_spl", json_integer(v->reported.fmc));
        json_object_set_new(o, "reported_tcb", t);
        json_object_set_new(o, "crl_checked", json_boolean(v->crl_checked));
        json_object_set_new(o, "debug", json_boolean(v->debug));
        json_object_set_new(o, "collateral_expiration", json_integer(v->expiration));
        json_object_set_new(o, "collateral_expiration_what", json_string(v->expiration_what));
        json_object_set_new(o, "collateral_expired", json_boolean(v->expired));
        json_object_set_new(o, "certificates_source", json_string(how));
        json_object_set_new(o, "certificates_refetched", json_boolean(refetch));
        json_object_set_new(o, "fetch_ms", json_real((double)fetch_ns / 1e6));
        json_object_set_new(o, "verify_ms", json_real((double)verify_ns / 1e6));
        cli_json_print("attest verify",
                       cli_json_envelope("teebench-attest-verify/1", json_incref(o), 0));
        json_decref(o);
        return;
    }
    printf("report:       %s (SEV-SNP v%u, %s)%s\n", path, r->version,
           tb_snp_product_name(v->product),
           sim ? " [SIMULATED: teebench simulated provider/ARK, not AMD]" : "");
    printf("verdict:      %s\n", tb_attest_result_name(v->result));
    if (v->result != TB_ATTEST_ACCEPTED) {
        if (step_number(v->step))
            printf("failed step:  %d (%s): %s\n", step_number(v->step), tb_snp_step_name(v->step),
                   v->reason);
        else
            printf("failed step:  %s: %s\n", tb_snp_step_name(v->step), v->reason);
    }
    printf("signed by:    %s\n", leaf);
    printf("reported tcb: bl %u, tee %u, snp %u, ucode %u", v->reported.bl, v->reported.tee,
           v->reported.snp, v->reported.ucode);
    if (v->reported.has_fmc)
        printf(", fmc %u", v->reported.fmc);
    printf("\n");
    printf("crl:          %s\n", v->crl_checked               ? "checked (not revoked)"
                                 : v->step == TB_SNP_STEP_CRL ? "given, failed (above)"
                                                              : "not given (no revocation check)");
    if (v->expiration) {
        char d[32];
        tb_utc_iso8601(v->expiration, d, sizeof d);
        printf("collateral:   %s %s (%s)\n", v->expired ? "EXPIRED at" : "valid until", d,
               v->expiration_what);
    }
    printf("debug guest:  %s\n", v->debug ? "yes" : "no");
    printf("fetch time:   %.3f ms (certificates from %s%s)\n", (double)fetch_ns / 1e6, how,
           refetch ? "; the cached certificates failed and were fetched again" : "");
    printf("verify time:  %.3f ms\n", (double)verify_ns / 1e6);
}

/* a's certificate source, for attest/common/evidence. */
static tb_attest_collateral_source snp_source(const cli_snp_verify_args *a)
{
    return (tb_attest_collateral_source){.certs = a->certs,
                                         .kds = a->kds,
                                         .root = a->root,
                                         .product = a->product,
                                         .fetch = {.timeout_ms = a->kds_opts.timeout_ms,
                                                   .cache_dir = a->kds_opts.cache_dir,
                                                   .no_cache = a->kds_opts.no_cache}};
}

int cli_attest_snp_verify(const cli_snp_verify_args *a)
{
    const char *cmd = "attest verify";
    tb_snp_report r;
    tb_err e;
    if (tb_snp_parse(a->report, a->len, &r, &e) < 0)
        return cli_fail_code(EXIT_INVALID, cmd, "%s: invalid: step parse: %s", a->path, e.msg);
    tb_attest_collateral_source src = snp_source(a);
    tb_attest_evidence_verdict ev;
    tb_attest_check_trace tr;
    tb_attest_evidence_check_traced(TB_TEE_SNP, a->report, a->len, &src, a->now, a->policy, &ev,
                                    &tr, &e);
    if (tr.failed == TB_ATTEST_PREP_KEY)
        return cli_fail_code(2, cmd,
                             "%s: a version 2 report does not name its product: give "
                             "--product milan|genoa|turin with --kds",
                             a->path);
    if (tr.failed)
        return cli_fail(cmd, "%s", e.msg);
    if (tr.refetch_failed)
        return cli_fail(cmd, "%s", tr.refetch_err.msg);
    if (tr.not_kept)
        fprintf(stderr, "teebench: %s: warning: certificates not cached: %s\n", cmd,
                tr.not_kept_err.msg);
    const tb_snp_verdict v = ev.snp;
    const char *how = !a->kds ? "file" : tr.from_cache ? "cache" : "network";
    print_verdict(a->path, &r, &v, how, tr.refetched, tr.fetch_ns, tr.verify_ns, a->json);
    fflush(stdout);
    int sim = v.simulated || tb_snp_is_simulated(&r);
    if (v.result == TB_ATTEST_ACCEPTED)
        return 0;
    if (v.result == TB_ATTEST_REFUSED)
        return cli_fail_code(EXIT_REFUSED, cmd, "%s%s: refused by the policy: %s", a->path,
                             sim ? " (SIMULATED)" : "", v.reason);
    if (v.result == TB_ATTEST_EXPIRED)
        return cli_fail_code(EXIT_EXPIRED, cmd, "%s%s: %s", a->path, sim ? " (SIMULATED)" : "",
                             v.reason);
    return cli_fail_code(EXIT_INVALID, cmd, "%s%s: invalid: step %s: %s", a->path,
                         sim ? " (SIMULATED)" : "", tb_snp_step_name(v.step), v.reason);
}

int cli_attest_snp_bench_print(const char *path, const tb_attest_timed *scratch, int src,
                               const tb_attest_timed *prepared, int prc, int runs, int json,
                               const tb_err *e)
{
    const char *cmd = "attest bench";
    if (src < 0)
        return cli_fail(cmd, "%s", e->msg);
    const tb_snp_verdict v = scratch->snp, pv = prepared->snp;
    double ms = scratch->wall_ms, pms = prc == 0 ? prepared->wall_ms : 0;
    if (pv.result != v.result || strcmp(pv.reason, v.reason))
        return cli_fail(cmd, "prepared and from-scratch verdicts differ: \"%s\" vs \"%s\"",
                        pv.reason, v.reason);
    if (json)
        return cli_json_print(
            cmd,
            cli_json_envelope("teebench-attest-bench/1",
                              json_pack("{s:s, s:f, s:f, s:o, s:i, s:s, s:b}", "tee", "SEV-SNP",
                                        "verify_ms", ms, "scratch_ms", ms, "prepared_ms",
                                        prc == 0 ? json_real(pms) : json_null(), "iterations", runs,
                                        "verdict", tb_attest_result_name(v.result), "simulated",
                                        v.simulated),
                              1));
    if (prc == 0)
        printf("%s%s: SEV-SNP verify from scratch %.4f ms/report (certificates parsed and the "
               "chain checked every time), prepared %.4f ms/report (chain checked once) (%d "
               "iterations each; verdict %s%s%s)\n",
               path, v.simulated ? " [SIMULATED]" : "", ms, pms, runs,
               tb_attest_result_name(v.result), v.reason[0] ? ": " : "", v.reason);
    else
        printf("%s%s: SEV-SNP verify from scratch %.4f ms/report (%d iterations; verdict %s%s%s)\n",
               path, v.simulated ? " [SIMULATED]" : "", ms, runs, tb_attest_result_name(v.result),
               v.reason[0] ? ": " : "", v.reason);
    return 0;
}
