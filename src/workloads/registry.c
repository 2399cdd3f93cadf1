/* workloads/registry: the table of teebench's workloads, in the suite's order, and
 * the lookups over their metric tables (workload.h).
 *
 * Adding a workload is its module file and one row here. Invariants: the table is
 * static const; every row's metric names start with its workload's name and a dot
 * (tb_wl_metric_find goes from the first segment to the workload); no two
 * workloads share a name. */
#include "workloads/internal.h"
#include "workloads/workload.h"

#include <stdio.h>
#include <string.h>

extern const tb_workload tb_wl_envfacts, tb_wl_syscall, tb_wl_probe, tb_wl_http, tb_wl_attest,
    tb_wl_notary, tb_wl_vm;
extern const tb_workload tb_wl_storage, tb_wl_kv, tb_wl_memory, tb_wl_network, tb_wl_tlsn;

/* env: always runs, first; the record's environment facts (`teebench env --json`) are
   the suite's own, so it has no metrics and no steps. */
const tb_workload tb_wl_envfacts = {
    .name = "env",
    .title = "Environment",
    .what = "the environment facts (teebench env --json), once",
    .flags = TB_WL_ALWAYS,
};

static const tb_workload *const workloads[] = {
    &tb_wl_envfacts, &tb_wl_syscall, &tb_wl_probe, &tb_wl_http,   &tb_wl_attest,  &tb_wl_notary,
    &tb_wl_vm,       &tb_wl_storage, &tb_wl_kv,    &tb_wl_memory, &tb_wl_network, &tb_wl_tlsn,
};

#define N_WORKLOADS (sizeof workloads / sizeof workloads[0])

size_t tb_workload_count(void)
{
    return N_WORKLOADS;
}

const tb_workload *tb_workload_at(size_t i)
{
    return i < N_WORKLOADS ? workloads[i] : NULL;
}

const tb_workload *tb_workload_find(const char *name)
{
    for (size_t i = 0; i < N_WORKLOADS; i++)
        if (!strcmp(workloads[i]->name, name))
            return workloads[i];
    return NULL;
}

int tb_workload_index(const tb_workload *w)
{
    for (size_t i = 0; i < N_WORKLOADS; i++)
        if (workloads[i] == w)
            return (int)i;
    return -1;
}

void tb_workload_names(char *out, size_t n)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < N_WORKLOADS && k < n; i++)
        if (!(workloads[i]->flags & TB_WL_NO_SUITE))
            k += (size_t)snprintf(out + k, n - k, "%s%s", k ? ", " : "", workloads[i]->name);
}

const tb_workload *tb_workload_for_doc(const json_t *doc)
{
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    const char *tool = json_string_value(json_object_get(doc, "tool"));
    for (size_t i = 0; i < N_WORKLOADS; i++) {
        const tb_workload *w = workloads[i];
        if (!w->doc_read)
            continue;
        if (schema ? w->doc_schema && !strcmp(schema, w->doc_schema)
                   : tool && w->doc_tool && !strcmp(tool, w->doc_tool))
            return w;
    }
    return NULL;
}

void tb_workload_doc_schemas(char *out, size_t n)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < N_WORKLOADS && k < n; i++)
        if (workloads[i]->doc_read && workloads[i]->doc_schema)
            k += (size_t)snprintf(out + k, n - k, "%s%s", k ? ", " : "", workloads[i]->doc_schema);
}

const char *tb_wl_category_name(tb_wl_category c)
{
    static const char *const names[TB_CAT_COUNT] = {
        "other",  "throughput", "latency", "syscall", "probe",     "attestation",
        "notary", "boot",       "storage", "network", "key-value", "memory",
    };
    return (unsigned)c < TB_CAT_COUNT ? names[c] : "other";
}

/* Whether name (from its second segment on: rest) fits the row's template (from its
   second segment on: tpl); what "*" stood for into part. */
static int fits(const char *tpl, const char *rest, char *part, size_t n)
{
    part[0] = 0;
    for (;;) {
        size_t tl = strcspn(tpl, "."), nl = strcspn(rest, ".");
        if (tl == 1 && tpl[0] == '*') {
            if (nl == 0 || nl >= n)
                return 0;
            memcpy(part, rest, nl);
            part[nl] = 0;
        } else if (tl != nl || memcmp(tpl, rest, tl)) {
            return 0;
        }
        tpl += tl;
        rest += nl;
        if (!*tpl || !*rest)
            return !*tpl && !*rest;
        tpl++;
        rest++;
    }
}

int tb_wl_metric_match(const tb_workload *w, const char *name, tb_wl_match *out)
{
    size_t wl = strcspn(name, ".");
    if (!name[wl] || strlen(w->name) != wl || memcmp(w->name, name, wl))
        return 0;
    for (size_t k = 0; k < w->n_metrics; k++) {
        const tb_wl_metric *m = &w->metrics[k];
        size_t ml = strcspn(m->name, ".");
        if (m->name[ml] && fits(m->name + ml + 1, name + wl + 1, out->part, sizeof out->part)) {
            out->workload = w;
            out->metric = m;
            out->tee = m->tee && !(m->plain && !strcmp(out->part, m->plain));
            return 1;
        }
    }
    return 0;
}

int tb_wl_metric_find(const char *name, tb_wl_match *out)
{
    size_t wl = strcspn(name, ".");
    if (!name[wl])
        return 0;
    for (size_t i = 0; i < N_WORKLOADS; i++) {
        const tb_workload *w = workloads[i];
        if (strlen(w->name) == wl && !memcmp(w->name, name, wl))
            return tb_wl_metric_match(w, name, out);
    }
    return 0;
}
