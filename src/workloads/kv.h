/* workloads/kv: the key-value workload (see kv.c) -- redis-server and redis-benchmark
 * (Debian's `redis-server` and `redis-tools`), GET and SET with pipelining over plain TCP
 * and over TLS with the fixture PKI (serve/pki); its parameters, the server it starts
 * (or one elsewhere it loads), redis-benchmark's CSV parsed, and the teebench-kv/1
 * document `teebench kv --json` prints (its writer; the reader is the workload's
 * doc_read). */
#ifndef TB_WORKLOADS_KV_H
#define TB_WORKLOADS_KV_H

#include <limits.h>

#include "base/proc.h"
#include "workloads/workload.h"

#define TB_WL_KV_SCHEMA "teebench-kv/1"

typedef struct tb_wl_kv_params {
    int requests;         /* per test (SET, GET) and run: redis-benchmark -n */
    int clients;          /* connections: -c */
    int pipeline;         /* requests in flight per connection: -P */
    int threads;          /* redis-benchmark --threads (1: its single event loop) */
    int data_size;        /* bytes of a SET's value: -d */
    int keyspace;         /* random keys out of this many: -r */
    int plain, tls;       /* transports: plain TCP, TLS */
    char server_bin[256]; /* redis-server: a name looked up in PATH, or a path */
    char bench_bin[256];  /* redis-benchmark: the same */
    char server[300];     /* "": start redis-server here; else HOST:PORT of one elsewhere (plain) */
    char tls_server[300]; /* "" or HOST:PORT of one elsewhere (TLS) */
    char cacert[512];     /* tls_server's CA certificate (its fixture PKI's ca.pem) */
} tb_wl_kv_params;

extern const tb_workload tb_wl_kv;

/* A redis-server this process started: 127.0.0.1, a plain port and (when asked) a TLS
   port with the fixture PKI's server certificate, no persistence, in the work
   directory's "kv" (its log: kv/redis.log; the PKI: kv-pki). */
typedef struct tb_wl_kv_server {
    tb_proc proc;
    int up;
    int port, tls_port;       /* tls_port 0: no TLS */
    char ca[PATH_MAX];        /* the fixture PKI's CA certificate */
    char version[64];         /* "7.0.15" */
    char tls_why[TB_ERR_MAX]; /* TLS was asked for and redis-server would not: why */
} tb_wl_kv_server;

/* Starts it (TLS too when tls): a missing redis-server is *skip = 1 with the package to
   install. 0, or -1 with err (nothing left running). */
int tb_wl_kv_server_start(const tb_wl_kv_params *p, int tls, tb_wl_sink *sink, tb_wl_kv_server *s,
                          int *skip, tb_err *err);
/* Stops it (SIGTERM, then SIGKILL after 3 s). */
void tb_wl_kv_server_stop(tb_wl_kv_server *s);
/* redis-server's argv for s (a NULL-terminated list of words in text, size tn; n words
   at most): what tb_wl_kv_server_start runs and `teebench kv serve` execs. addr: the
   address it binds; pki: the fixture PKI directory (NULL: no TLS); dir: its working
   directory (its log goes there). 0, or -1 when it does not fit. */
int tb_wl_kv_server_argv(const char *bin, const char *addr, int port, int tls_port, const char *pki,
                         const char *dir, char **argv, size_t n, char *text, size_t tn);

/* Where redis-benchmark goes. */
typedef struct tb_wl_kv_target {
    const char *host;
    int port;
    int tls;         /* TLS, verified against ca with SNI (and name check) sni */
    const char *ca;  /* the CA certificate (TLS) */
    const char *sni; /* the server name (TLS): the fixture PKI's test-server.io */
} tb_wl_kv_target;

/* One redis-benchmark run of SET and GET against t (the server answered PING first,
   so a server that is not there or not trusted is one line, not redis-benchmark's
   endless retries), its CSV parsed into *run (tb_wl_kv_parse_csv's; caller decrefs).
   TB_WL_OK, TB_WL_FAILED or TB_WL_SKIPPED (no redis-benchmark: the package) with err,
   or TB_WL_CANCELLED. */
int tb_wl_kv_bench(const tb_wl_kv_params *p, const tb_wl_kv_target *t, tb_wl_sink *sink,
                   json_t **run, tb_err *err);

/* The teebench-kv/1 document's members (cli/json puts the envelope around them): the
   versions (redis_server: NULL for one elsewhere), the options and runs (an array of
   tb_wl_kv_parse_csv's runs, each with "server": consumed). NULL when out of memory. */
json_t *tb_wl_kv_doc(const tb_wl_kv_params *p, const char *server_version,
                     const char *bench_version, json_t *runs);

/* "7.0.15" from `redis-benchmark --version` ("redis-benchmark 7.0.15") into out; "" when it
   does not run. */
void tb_wl_kv_bench_version(const tb_wl_kv_params *p, tb_wl_sink *sink, char *out, size_t n);

#endif
