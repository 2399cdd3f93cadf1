/* workloads/http: the http workload -- wrk-style HTTP/1.1 load against a web server.
 *
 * Metrics, per target (the server loaded: nginx, serve-tls, or what an imported
 * document is named for): req/s, the latency percentiles with wrk's
 * coordinated-omission correction (and without it, when a document has them),
 * bytes/s. */
#include "workloads/workload.h"

#define LAT(p, pct)                                                                                \
    {                                                                                              \
        "http.*.latency." p, "ms", TB_WL_LOWER, TB_CAT_LATENCY, 0, NULL, pct, 0                    \
    }
#define LAT_U(p, pct)                                                                              \
    {                                                                                              \
        "http.*.latency_u." p, "ms", TB_WL_LOWER, TB_CAT_LATENCY, 0, NULL, pct, TB_WLM_UNCORRECTED \
    }

static const tb_wl_metric metrics[] = {
    {"http.*.rps", "req/s", TB_WL_HIGHER, TB_CAT_THROUGHPUT, 0, NULL, 0, 0},
    LAT("p50", 50),
    LAT("p90", 90),
    LAT("p99", 99),
    LAT("p99.9", 99.9),
    LAT("p99.99", 99.99),
    LAT("p99.999", 99.999),
    LAT_U("p50", 50),
    LAT_U("p90", 90),
    LAT_U("p99", 99),
    LAT_U("p99.9", 99.9),
    LAT_U("p99.99", 99.99),
    LAT_U("p99.999", 99.999),
    {"http.*.transfer", "B/s", TB_WL_HIGHER, TB_CAT_THROUGHPUT, 0, NULL, 0, 0},
};

const tb_workload tb_wl_http = {
    .name = "http",
    .title = "HTTP",
    .what = "closed-loop HTTP/1.1 load (wrk's) against nginx and the fixture server",
    .metrics = metrics,
    .n_metrics = sizeof metrics / sizeof metrics[0],
};
