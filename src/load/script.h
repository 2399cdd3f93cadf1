/* script: wrk's Lua scripting API (`teebench http -s script.lua`), on Debian's
 * Lua 5.4, as load-engine hooks (load.h).
 *
 * Model (wrk's): one Lua state per load thread plus a main state. The script is
 * loaded into each. The main state runs setup(thread) once per thread before the
 * run and done(summary, latency, requests) after it; each thread's state runs
 * init(args), then request() before each request (when defined, else the request
 * wrk.format() built once after init), response(status, headers, body) after each
 * response (when defined) and delay() before each request (closed loop, ms).
 * The global `wrk` table: scheme, host, port, method, path, headers (the -H
 * headers), body, format(method, path, headers, body), thread (in thread
 * states: get(name), set(name, value), stop(), addr). The request string may hold
 * several requests (wrk's pipelining): they are counted once, from thread 0's
 * first request, as wrk does. Latency statistics in done() are in microseconds
 * as in wrk (min, max, mean, stdev, percentile(p), stats(i) -> value, count, #stats).
 * Not provided: wrk.lookup / wrk.connect and setting thread.addr (one target).
 *
 * Errors: a Lua error while loading or in setup/init gives -1 with err; a Lua
 * error in a hook ends the run (the engine's hook_failed) and tb_script_error
 * says why. Threads: each thread state is used only by its load thread during the
 * run; the main state and setup/done only by the caller, before and after it.
 * Output: what the script itself prints (print, io.write) goes to stdout, as in wrk. */
#ifndef TB_LOAD_SCRIPT_H
#define TB_LOAD_SCRIPT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "load/load.h"
#include "stats/hist.h"

typedef struct tb_script tb_script;

typedef struct tb_script_target {
    const char *scheme, *host;
    const char *port; /* NULL when the URL names none (wrk.port is nil) */
    const char *path; /* path and query */
    const char *const *headers;
    int nheaders;            /* "Name: value" lines (-H) */
    const char *const *args; /* init(args): args[0] is the URL, then the extra arguments */
    int nargs;
    const char *addr; /* "ip:port" the threads connect to (thread.addr) */
} tb_script_target;

typedef struct tb_script_summary {
    uint64_t duration_us, requests, bytes;
    uint64_t connect, read, write, status, timeout;
} tb_script_summary;

tb_script *tb_script_new(const char *file, uint32_t threads, const tb_script_target *t,
                         tb_err *err);
void tb_script_free(tb_script *s);

/* The hooks for tb_load_opts (valid while s lives), thread 0's first request (for
 * tb_load_opts.request; sent as is when the hooks have no request function: no
 * request() and the same static request in every thread) and how many requests
 * it holds. */
const tb_load_hooks *tb_script_hooks(const tb_script *s);
void tb_script_first_request(const tb_script *s, const uint8_t **req, size_t *len);
uint32_t tb_script_pipeline(const tb_script *s);
/* Why a hook failed ("" when none did). */
const char *tb_script_error(const tb_script *s);

bool tb_script_has_done(const tb_script *s);
/* done(summary, latency, requests): latency_ns in ns (given to Lua in us), rate in
 * requests/s. */
int tb_script_done(tb_script *s, const tb_script_summary *sum, const tb_hist *latency_ns,
                   const tb_hist *rate, tb_err *err);

#endif
