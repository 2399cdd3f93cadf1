/* workloads/notary: the notary workload -- `teebench bench notary`: notarizations
 * without a TEE, with TEE attestation, and with the client verifying the quote.
 *
 * Metrics, per mode (no_tee, tee_no_verify, tee_verify): the notarization time, the
 * end-to-end time and the client process's life, tee_verify's verification time,
 * and the paired overhead of each TEE mode over no_tee. Every mode but no_tee is
 * SIMULATED outside a TEE. */
#include "workloads/notary.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "workloads/attest.h"

_Static_assert(sizeof(tb_wl_notary_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_notary_params, f)

static const char *const mode_names[3] = {"no_tee", "tee_no_verify", "tee_verify"};

static int mode(void *ctx, const char *t, tb_err *err)
{
    int *want = ctx;
    for (int i = 0; i < 3; i++)
        if (!strcmp(t, mode_names[i])) {
            want[i] = 1;
            return 0;
        }
    return tb_errf(err, "unknown mode '%.40s' (no_tee, tee_no_verify, tee_verify)", t);
}

/* The modes always run in the harness's order, whatever order the list has. */
static int parse_modes(void *params, const char *key, const char *v, tb_err *err)
{
    tb_wl_notary_params *n = params;
    int want[3] = {0};
    if (tb_wl_each_token(key, v, mode, want, err) < 0)
        return -1;
    n->n_modes = 0;
    for (int i = 0; i < 3; i++)
        if (want[i])
            snprintf(n->modes[n->n_modes++], sizeof n->modes[0], "%s", mode_names[i]);
    return 0;
}

static json_t *modes_json(const void *params)
{
    const tb_wl_notary_params *n = params;
    json_t *a = json_array();
    for (int i = 0; a && i < n->n_modes; i++)
        json_array_append_new(a, json_string(n->modes[i]));
    return a;
}

/* Seconds, rounded up to whole ones (the harness's unit). */
static int parse_run_timeout(void *params, const char *key, const char *v, tb_err *err)
{
    double s;
    if (tb_wl_parse_seconds(key, v, 1, 86400, &s, err) < 0)
        return -1;
    ((tb_wl_notary_params *)params)->run_timeout_s = (int)ceil(s);
    return 0;
}

static json_t *run_timeout_json(const void *params)
{
    return json_integer(((const tb_wl_notary_params *)params)->run_timeout_s);
}

static const tb_wl_param param_table[] = {
    {.key = "iterations",
     .help = "notarizations per round and mode",
     .kind = TB_WLP_INT,
     P(iterations),
     .lo = 1,
     .hi = 100000,
     .def = {"3", "10", "25"}},
    {.key = "modes",
     .help = "no_tee, tee_no_verify, tee_verify",
     .kind = TB_WLP_CUSTOM,
     .parse = parse_modes,
     .json = modes_json,
     .def = {"no_tee,tee_no_verify,tee_verify"}},
    {.key = "run_timeout",
     .help = "seconds before a notarization run is killed",
     .kind = TB_WLP_CUSTOM,
     .parse = parse_run_timeout,
     .json = run_timeout_json,
     .def = {"60", "300"}},
    {.key = "retries",
     .help = "reruns of a failed notarization",
     .kind = TB_WLP_INT,
     P(retries),
     .lo = 0,
     .hi = 100,
     .def = {"1", "2"}},
    {.key = "pccs",
     .help = "PCS/PCCS base URL for tee_verify against a real TDX notary",
     .kind = TB_WLP_TEXT,
     P(pccs),
     .check = tb_wl_check_http_url,
     .def = {TB_WL_PCS_URL},
     .flags = TB_WLP_PLACE},
    {.key = "tee",
     .help = "auto (tdx / snp in such a guest, else sim), sim, sim-snp, tdx or snp",
     .kind = TB_WLP_TEXT,
     P(tee),
     .choices = "auto|sim|sim-snp|tdx|snp",
     .def = {"auto"}},
};

#define NOTARY(q)                                                                                  \
    {                                                                                              \
        "notary.*." q, "ms", TB_WL_LOWER, TB_CAT_NOTARY, 1, "no_tee", 0, 0                         \
    }

static const tb_wl_metric metrics[] = {
    NOTARY("notarization_ms"), NOTARY("total_e2e_ms"), NOTARY("wall_ms"),
    NOTARY("verify_ms"),       NOTARY("overhead_ms"),
};

static int plan_metrics(const void *params, tb_wl_name_fn emit, void *ctx)
{
    const tb_wl_notary_params *n = params;
    int have_base = 0;
    for (int m = 0; m < n->n_modes; m++)
        have_base |= !strcmp(n->modes[m], "no_tee");
    static const char *const each[] = {"notarization_ms", "total_e2e_ms", "wall_ms"};
    char name[96];
    for (int m = 0; m < n->n_modes; m++) {
        const char *mode = n->modes[m];
        for (size_t k = 0; k < sizeof each / sizeof each[0]; k++) {
            snprintf(name, sizeof name, "notary.%s.%s", mode, each[k]);
            if (emit(ctx, name) < 0)
                return -1;
        }
        if (!strcmp(mode, "tee_verify") && emit(ctx, "notary.tee_verify.verify_ms") < 0)
            return -1;
        snprintf(name, sizeof name, "notary.%s.overhead_ms", mode);
        if (strcmp(mode, "no_tee") && have_base && emit(ctx, name) < 0)
            return -1;
    }
    return 0;
}

static void services(const void *params, int enabled, tb_wl_services *want)
{
    (void)params;
    want->fixture = enabled; /* the notarized server */
}

static size_t steps(const void *params, tb_wl_step *out)
{
    const tb_wl_notary_params *n = params;
    out[0] = (tb_wl_step){"", 0.5 + n->iterations * n->n_modes * 0.1};
    return 1;
}

static void describe(const void *params, const char *target, char *out, size_t n)
{
    const tb_wl_notary_params *p = params;
    (void)target;
    size_t k = (size_t)snprintf(out, n, "bench notary: %d iterations x", p->iterations);
    for (int m = 0; m < p->n_modes && k < n; m++)
        k += (size_t)snprintf(out + k, n - k, " %s", p->modes[m]);
}

const tb_workload tb_wl_notary = {
    .name = "notary",
    .title = "Notary",
    .what = "notarizations without and with a TEE (teebench bench notary)",
    .params_size = sizeof(tb_wl_notary_params),
    .params = param_table,
    .n_params = sizeof param_table / sizeof param_table[0],
    .services = services,
    .steps = steps,
    .describe = describe,
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
    .plan_metrics = plan_metrics,
};
