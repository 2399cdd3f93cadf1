/* workloads/attest: the attest workload -- get the TEE's evidence (TDX quotes or
 * SEV-SNP reports) and verify it.
 *
 * Metrics (the same names for both TEEs, so that a TDX and an SEV-SNP environment
 * line up row by row): the time to get one quote, and to verify one with its
 * collateral prepared and from scratch. All of them SIMULATED outside a TEE. */
#include "workloads/attest.h"

#include <stddef.h>
#include <stdio.h>

_Static_assert(sizeof(tb_wl_attest_params) <= TB_WL_PARAMS_MAX, "room in the plan");

#define P(f) TB_WLP_FIELD(tb_wl_attest_params, f)

static int check_folder(const char *key, const char *v, tb_err *err)
{
    return v[0] ? 0 : tb_errf(err, "%s: wants a folder", key);
}

static const tb_wl_param param_table[] = {
    {.key = "provider",
     .help = "auto (tsm in a TDX or SEV-SNP guest, else sim), sim (SIMULATED TDX), "
             "sim-snp (SIMULATED SEV-SNP) or tsm",
     .kind = TB_WLP_TEXT,
     P(provider),
     .choices = "auto|sim|sim-snp|tsm",
     .def = {"auto"}},
    {.key = "quotes",
     .help = "quotes (SEV-SNP: reports) timed per round",
     .kind = TB_WLP_INT,
     P(quotes),
     .lo = 1,
     .hi = 100000,
     .def = {"5", "20", "25"}},
    {.key = "iterations",
     .help = "verifications timed per round, prepared and from scratch",
     .kind = TB_WLP_INT,
     P(iterations),
     .lo = 5,
     .hi = 10000000,
     .def = {"50", "500", "1000"}},
    {.key = "pccs",
     .help = "PCS/PCCS base URL for the collateral of real TDX quotes",
     .kind = TB_WLP_TEXT,
     P(pccs),
     .check = tb_wl_check_http_url,
     .def = {TB_WL_PCS_URL},
     .flags = TB_WLP_PLACE},
    {.key = "kds",
     .help = "AMD KDS base URL for the certificates of real SEV-SNP reports",
     .kind = TB_WLP_TEXT,
     P(kds),
     .check = tb_wl_check_http_url,
     .def = {TB_WL_KDS_URL},
     .flags = TB_WLP_PLACE},
    {.key = "certs",
     .help = "a folder of SEV-SNP certificates (ark.pem, ask.pem, vcek.der, crl.der) to use "
             "instead of the KDS",
     .kind = TB_WLP_TEXT,
     P(certs),
     .check = check_folder,
     .flags = TB_WLP_PLACE},
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

const tb_workload tb_wl_attest = {
    .name = "attest",
    .title = "Attestation",
    .what = "getting and verifying TDX quotes or SEV-SNP reports",
    .params_size = sizeof(tb_wl_attest_params),
    .params = param_table,
    .n_params = sizeof param_table / sizeof param_table[0],
    .steps = steps,
    .describe = describe,
    .setup_estimate = setup_estimate,
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
    .plan_metrics = plan_metrics,
};
