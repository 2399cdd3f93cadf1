/* workloads/http: the http workload (see http.c) -- its parameters, as the suite's plan
 * holds them, and what `teebench http` and the suite share: the request wrk sends,
 * wrk's latency correction, the settled count of a server's access log, and the
 * teebench-http/1 document (its writer; the reader is the workload's doc_read). */
#ifndef TB_WORKLOADS_HTTP_H
#define TB_WORKLOADS_HTTP_H

#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "load/load.h"
#include "net/url.h"
#include "stats/hist.h"
#include "workloads/workload.h"

#define TB_WL_HTTP_SCHEMA "teebench-http/1"

typedef struct tb_wl_http_params {
    double duration_s;   /* one measured run per target and round */
    double warmup_s;     /* once per target before round 1; 0: none */
    int threads;         /* load generator threads */
    int connections;     /* >= threads */
    double timeout_s;    /* a request without a response for this long is a timeout */
    int server_threads;  /* nginx workers / fixture server threads; 0: the CPUs online */
    int nginx;           /* target: nginx (teebench nginx), plain HTTP */
    int serve_tls;       /* target: the fixture server (teebench serve --tls), HTTPS */
    char nginx_bin[256]; /* the nginx binary (default TB_NGINX_BIN, Debian's) */
    char nginx_url[256]; /* "": start nginx here; else load this nginx elsewhere
                            (http://HOST:PORT/, the server side of --http-client local) */
} tb_wl_http_params;

extern const tb_workload tb_wl_http;

/* The request wrk sends, appended to out: "GET <path> HTTP/1.1", a Host header (the
   URL's: host, and the port unless it is the scheme's) unless headers has one, then
   headers ("Name: value" each, as given), then the blank line. 0, or -1 (out of memory,
   a host too long). */
int tb_wl_http_request(const tb_url *u, const char *const *headers, size_t n_headers, tb_buf *out);

/* wrk's closed-loop coordinated-omission correction of r->latency (stats/hist's
   tb_hist_correct with the interval between one connection's requests: runtime /
   (completed / connections)). Returns that interval in ns, 0 when there was none to
   apply (fewer completed requests than connections). Not for a constant-rate run. */
uint64_t tb_wl_http_correct(tb_load_result *r, uint64_t connections);

/* The line count of a server's growing access log once it stops moving (a server writes
   a line when it has sent the response): read every 50 ms until two counts agree, at most
   ~1 s. 0, or -1 with err (load/logcount's). */
int tb_wl_http_log_settled(const char *path, uint64_t *n, tb_err *err);

/* One run of `teebench http`, for its document. */
typedef struct tb_wl_http_run {
    /* the options, as given */
    const char *url;
    uint64_t threads, connections;
    double duration_s, timeout_s, rate_rps; /* rate 0: closed loop */
    const char *const *headers;             /* the -H lines sent */
    size_t n_headers;
    int latency, u_latency;
    const char *server_name, *cacert, *connect, *server_log; /* NULL: not given */
    const char *target_address;                              /* what was connected to */
    int tls;
    /* what happened */
    const char *started_at;   /* ISO 8601 UTC */
    const tb_load_result *r;  /* latency as reported (corrected in a closed loop) */
    const tb_hist *raw;       /* closed loop: the latency before the correction */
    uint64_t wrk_interval_ns; /* closed loop: tb_wl_http_correct's interval */
    int log_on;               /* --server-log */
    uint64_t log_before, log_after;
    int log_match;
    const char *error; /* the run's failure, or NULL */
} tb_wl_http_run;

/* The teebench-http/1 document's members (cli/json puts the envelope around them): options,
   requests, bytes, errors, responses by status, the latency histograms' summaries and
   percentiles in us, the per-thread rates, the log check. NULL when out of memory. */
json_t *tb_wl_http_doc(const tb_wl_http_run *run);

#endif
