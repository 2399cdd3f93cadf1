/* workloads/http: the http workload (see http.c) -- its parameters, as the suite's plan
 * holds them. */
#ifndef TB_WORKLOADS_HTTP_H
#define TB_WORKLOADS_HTTP_H

#include "workloads/workload.h"

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

#endif
