/* record/tee_label: which TEE a stored run's environment is, and what attestation
 * evidence the run used -- read from the record alone, so that every output
 * (compare, report, results show, the suite's summary) says it the same way.
 *
 * Where it comes from:
 * - kind: the env document's platform as sys/env's tb_env_json_tee reads it ("tdx"
 *   -> "TDX", "snp" -> "SEV-SNP", "sev-es" -> "SEV-ES", "sev" -> "SEV", "none": bare
 *   metal or a VM); anything else, or no env, is "unknown".
 * - evidence: extra.attest.tee and extra.notary_tee, each one of "tdx", "snp",
 *   "sim", "sim-snp". A record written before the suite stored extra.attest.tee has
 *   only extra.attest.provider, whose first word is an attest provider name (base/tee):
 *   "sim (SIMULATED)" was the SIMULATED TDX provider, "tsm (configfs-tsm)" configfs-tsm
 *   (SEV-SNP reports on an SEV-SNP guest, TDX quotes otherwise).
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

#include "base/tee.h"
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

int tb_record_tee_kind_is_tee(const char *kind)
{
    return strcmp(kind, "none") != 0 && strcmp(kind, "unknown") != 0;
}

const char *tb_record_tee_kind(const json_t *env)
{
    return tb_record_tee_kind_name(json_is_object(env) ? tb_env_json_tee(env) : "unknown");
}

/* An evidence code (a tb_tee name other than none): 0 and its kind, else -1. */
static int evidence_code(const char *name, tb_tee *out)
{
    return tb_tee_parse(name, out) == 0 && *out != TB_TEE_NONE ? 0 : -1;
}

const char *tb_record_tee_evidence(const char *tee)
{
    tb_tee t;
    return evidence_code(tee, &t) == 0 ? tb_tee_traits_of(t)->evidence_words : NULL;
}

/* An older record's extra.attest.provider, "sim (SIMULATED)" or "tsm (configfs-tsm)":
   its first word as an attest provider name. 0 and the kind, else -1. */
static int legacy_provider(const char *prov, tb_tee *out)
{
    char word[16];
    size_t n = prov ? strcspn(prov, " ") : sizeof word;
    if (n >= sizeof word)
        return -1;
    memcpy(word, prov, n);
    word[n] = '\0';
    return tb_tee_provider(word, out);
}

/* The evidence of extra.attest: its "tee", else what an older record's "provider"
   (and "simulated") says; -1 when the run had no attest workload. */
static int attest_tee(const json_t *attest, const char *env_tee, tb_tee *out)
{
    if (!json_is_object(attest))
        return -1;
    if (evidence_code(json_string_value(json_object_get(attest, "tee")), out) == 0)
        return 0;
    tb_tee p;
    int known = legacy_provider(json_string_value(json_object_get(attest, "provider")), &p) == 0;
    if (known && p == TB_TEE_SIM_SNP)
        *out = TB_TEE_SIM_SNP;
    else if ((known && p == TB_TEE_SIM) || json_is_true(json_object_get(attest, "simulated")))
        *out = TB_TEE_SIM;
    else if (known) /* tsm: configfs-tsm, the guest's own */
        *out = tb_tee_guest(env_tee) == TB_TEE_SNP ? TB_TEE_SNP : TB_TEE_TDX;
    else
        return -1;
    return 0;
}

/* The notary's evidence: extra.notary_tee, else the notary_tee of an imported
   bench folder's run.json (extra.bench) when one of its modes used the TEE. */
static int notary_tee(const json_t *extra, tb_tee *out)
{
    if (evidence_code(json_string_value(json_object_get(extra, "notary_tee")), out) == 0)
        return 0;
    const json_t *bench = json_object_get(extra, "bench");
    if (evidence_code(json_string_value(json_object_get(bench, "notary_tee")), out) < 0)
        return -1;
    const json_t *modes = json_object_get(bench, "benchmark_modes"), *m;
    size_t i;
    if (!json_is_array(modes))
        return 0;
    json_array_foreach(modes, i, m)
    {
        const char *s = json_string_value(m);
        if (s && !strncmp(s, "tee", 3))
            return 0;
    }
    return -1;
}

int tb_record_tee(const tb_record *r, tb_record_tee_info *out)
{
    memset(out, 0, sizeof *out);
    const json_t *env = r ? r->env : NULL, *extra = r ? r->extra : NULL;
    snprintf(out->kind, sizeof out->kind, "%s", tb_record_tee_kind(env));

    const char *env_tee = json_is_object(env) ? tb_env_json_tee(env) : "unknown";
    tb_tee a, n;
    int has_a = attest_tee(json_object_get(extra, "attest"), env_tee, &a) == 0;
    int has_n = notary_tee(extra, &n) == 0;
    if (has_a && has_n && a == n)
        has_n = 0;
    if (!has_a) {
        a = n;
        has_a = has_n;
        has_n = 0;
    }
    if (has_a && has_n)
        snprintf(out->evidence, sizeof out->evidence, "%s + %s",
                 tb_tee_traits_of(a)->evidence_words, tb_tee_traits_of(n)->evidence_words);
    else if (has_a)
        snprintf(out->evidence, sizeof out->evidence, "%s", tb_tee_traits_of(a)->evidence_words);
    out->simulated = (has_a && tb_tee_simulated(a)) || (has_n && tb_tee_simulated(n));

    /* the real evidence the machine's TEE produces itself, or NULL */
    tb_tee guest = tb_tee_guest(env_tee);
    const char *own = guest != TB_TEE_NONE ? tb_tee_traits_of(guest)->evidence_words : NULL;
    if (!out->evidence[0] || (own && !strcmp(own, out->evidence)))
        snprintf(out->summary, sizeof out->summary, "%s", out->kind);
    else
        snprintf(out->summary, sizeof out->summary, "%s (%s)", out->kind, out->evidence);
    out->known = tb_record_tee_kind_is_tee(out->kind);
    out->known |= out->evidence[0] != '\0';
    return out->known;
}
