/* record/tee: which TEE a stored run's environment is, and what attestation
 * evidence the run used -- read from the record alone, so that every output
 * (compare, report, results show, the suite's summary) says it the same way.
 *
 * Where it comes from:
 * - kind: the env document's platform as sys/env's tb_env_json_tee reads it ("tdx"
 *   -> "TDX", "snp" -> "SEV-SNP", "sev-es" -> "SEV-ES", "sev" -> "SEV", "none": bare
 *   metal or a VM); anything else, or no env, is "unknown".
 * - evidence: extra.attest.tee and extra.notary_tee, each one of "tdx", "snp",
 *   "sim", "sim-snp". A record written before the suite stored extra.attest.tee has
 *   only extra.attest.provider: "sim..." was the SIMULATED TDX provider, "tsm..."
 *   configfs-tsm (SEV-SNP reports on an SEV-SNP guest, TDX quotes otherwise).
 *   An imported bench folder keeps its run.json in extra.bench, whose notary_tee
 *   counts when one of its modes used the TEE. When the attest and notary workloads
 *   used different evidence, both are named.
 *
 * Invariants: pure (no I/O, no allocation); every output field is filled, and a
 * simulated evidence is always spelled with the word "SIMULATED". */
#include "record/internal.h"
#include "record/record.h"

#include <stdio.h>
#include <string.h>

#include "sys/env.h"

const char *tb_record_tee_kind_name(const char *tee)
{
    static const struct {
        const char *tee, *kind;
    } map[] = {
        {"tdx", "TDX"}, {"snp", "SEV-SNP"}, {"sev-es", "SEV-ES"}, {"sev", "SEV"}, {"none", "none"}};
    for (size_t i = 0; tee && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(tee, map[i].tee))
            return map[i].kind;
    return "unknown";
}

const char *tb_record_tee_kind(const json_t *env)
{
    return tb_record_tee_kind_name(json_is_object(env) ? tb_env_json_tee(env) : "unknown");
}

const char *tb_record_tee_evidence(const char *tee)
{
    static const struct {
        const char *tee, *words;
    } map[] = {
        {"tdx", "TDX quotes"},
        {"snp", "SEV-SNP reports"},
        {"sim", "SIMULATED TDX quotes"},
        {"sim-snp", "SIMULATED SEV-SNP reports"},
    };
    for (size_t i = 0; tee && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(tee, map[i].tee))
            return map[i].words;
    return NULL;
}

/* The evidence code of extra.attest: its "tee", else what an older record's
   "provider" (and "simulated") says; NULL when the run had no attest workload. */
static const char *attest_tee(const json_t *attest, const char *env_tee)
{
    if (!json_is_object(attest))
        return NULL;
    const char *tee = json_string_value(json_object_get(attest, "tee"));
    if (tb_record_tee_evidence(tee))
        return tee;
    const char *prov = json_string_value(json_object_get(attest, "provider"));
    if (prov && !strncmp(prov, "sim-snp", 7))
        return "sim-snp";
    if ((prov && !strncmp(prov, "sim", 3)) || json_is_true(json_object_get(attest, "simulated")))
        return "sim";
    if (prov && !strncmp(prov, "tsm", 3))
        return !strcmp(env_tee, "snp") ? "snp" : "tdx";
    return NULL;
}

/* The notary's evidence code: extra.notary_tee, else the notary_tee of an imported
   bench folder's run.json (extra.bench) when one of its modes used the TEE. */
static const char *notary_tee(const json_t *extra)
{
    const char *n = json_string_value(json_object_get(extra, "notary_tee"));
    if (tb_record_tee_evidence(n))
        return n;
    const json_t *bench = json_object_get(extra, "bench");
    n = json_string_value(json_object_get(bench, "notary_tee"));
    if (!tb_record_tee_evidence(n))
        return NULL;
    const json_t *modes = json_object_get(bench, "benchmark_modes"), *m;
    size_t i;
    if (!json_is_array(modes))
        return n;
    json_array_foreach(modes, i, m)
    {
        const char *s = json_string_value(m);
        if (s && !strncmp(s, "tee", 3))
            return n;
    }
    return NULL;
}

/* The real evidence a TEE kind produces itself, or NULL. */
static const char *own_evidence(const char *kind)
{
    return !strcmp(kind, "TDX")       ? "TDX quotes"
           : !strcmp(kind, "SEV-SNP") ? "SEV-SNP reports"
                                      : NULL;
}

int tb_record_tee(const tb_record *r, tb_record_tee_info *out)
{
    memset(out, 0, sizeof *out);
    const json_t *env = r ? r->env : NULL, *extra = r ? r->extra : NULL;
    snprintf(out->kind, sizeof out->kind, "%s", tb_record_tee_kind(env));

    const char *a = attest_tee(json_object_get(extra, "attest"),
                               json_is_object(env) ? tb_env_json_tee(env) : "unknown");
    const char *n = notary_tee(extra);
    if (a && n && !strcmp(a, n))
        n = NULL;
    if (!a) {
        a = n;
        n = NULL;
    }
    if (a && n)
        snprintf(out->evidence, sizeof out->evidence, "%s + %s", tb_record_tee_evidence(a),
                 tb_record_tee_evidence(n));
    else if (a)
        snprintf(out->evidence, sizeof out->evidence, "%s", tb_record_tee_evidence(a));
    out->simulated = (a && !strncmp(a, "sim", 3)) || (n && !strncmp(n, "sim", 3));

    const char *own = own_evidence(out->kind);
    if (!out->evidence[0] || (own && !strcmp(own, out->evidence)))
        snprintf(out->summary, sizeof out->summary, "%s", out->kind);
    else
        snprintf(out->summary, sizeof out->summary, "%s (%s)", out->kind, out->evidence);
    out->known = strcmp(out->kind, "none") != 0 && strcmp(out->kind, "unknown") != 0;
    out->known |= out->evidence[0] != '\0';
    return out->known;
}
