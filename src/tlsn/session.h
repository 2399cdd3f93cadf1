/* tlsn/session: one TLSNotary session -- MPC-TLS between a prover and a verifier,
 * each tlsn-wasm in its own headless Chromium, then interactive verification
 * (reveal + verify()), with or without the TEE message.
 *
 * tb_tlsn_session_run: loads the pinned package (tlsn/wasm; with fixture_ca, the
 * fixture root substituted in memory), opens the hub (tlsn/hub) on 127.0.0.1 with
 * the pages (embedded: src/tlsn/pages/), starts two Chromium processes (each in its
 * own process group, its own new profile in work_dir, its log beside it), answers
 * the pages' /api calls, and returns when both parties reported their outcome, one
 * failed, a Chromium exited, a phase ran past its timeout, or *cancel was set.
 * Every process it started is stopped before it returns (SIGTERM to the group, 2 s,
 * SIGKILL).
 *
 * Timeouts: a page must ask for its configuration within startup_timeout_s of its
 * Chromium's start, and a party's peer must connect to the relay within
 * startup_timeout_s of the party's setup; each phase must end within phase_timeout_s. Past
 * either, the session fails with one line naming the party and the phase, and,
 * for a connection phase, who never connected.
 *
 * Measured: each phase's time on the page's clock (performance.now(): init, setup,
 * request, reveal for the prover; init, setup, verify for the verifier; tee, quote
 * and tdx_verify in TEE modes); the quote's and its check's time in teebench;
 * payload bytes each way on the relay (MPC and TEE channels) and through the proxy;
 * each party's CPU time (user + system of every process in its Chromium's group,
 * sampled every 200 ms from /proc, so a process that lived less than that may be
 * missed) and its peak resident memory (the group's summed RSS at a sample).
 *
 * Ownership: the result holds JSON (the parties' reports) freed by
 * tb_tlsn_session_result_clear. Nothing here prints. */
#ifndef TB_TLSN_SESSION_H
#define TB_TLSN_SESSION_H

#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "base/err.h"
#include "base/tee.h"
#include "tlsn/hub.h"

typedef struct tb_tlsn_session_config {
    char chromium[4096];   /* the browser binary */
    char wasm_dir[4096];   /* the installed package (tlsn/wasm) */
    char fixture_ca[4096]; /* non-empty: substitute this CA for the anchor */
    char work_dir[4096];   /* private: profiles and logs */
    char target_host[256]; /* TCP target of the proxy */
    int target_port;
    char server_name[256]; /* SNI and Host */
    char uri[1024];        /* path and query: "/formats/json?size=4" */
    int tee, verify;       /* the mode: no_tee (0,0), tee_no_verify (1,0), tee_verify (1,1) */
    tb_tee tee_kind;       /* TB_TEE_SIM | TB_TEE_TDX */
    char sim_dir[4096];    /* the SIMULATED provider's state ("": its default) */
    char collateral[4096]; /* tdx verification */
    char pccs[1024];
    int threads; /* per party (initialize's thread_count) */
    long max_sent_data, max_recv_data;
    char network[16];      /* "Bandwidth" | "Latency" */
    char log_level[8];     /* the wasm's: "Info", "Warn", ... */
    int startup_timeout_s; /* Chromium start to the page's first call */
    int phase_timeout_s;   /* each phase */
    /* the relay's and the proxy's notes, one line each (may be NULL) */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} tb_tlsn_session_config;

void tb_tlsn_session_config_defaults(tb_tlsn_session_config *c);

/* The browser: name with a '/' as it is (it must be executable), else looked up in
   PATH. -1 with a line saying how to install it. */
int tb_tlsn_find_chromium(const char *name, char *out, size_t n, tb_err *err);

typedef struct tb_tlsn_session_result {
    json_t *out[TB_TLSN_ROLES]; /* each party's "done" report: {phases, output} or NULL */
    /* On teebench's clock, from the prover's setup to the end of both parties' work
       (prover: reveal; verifier: verify(); TEE modes: the quote at the prover); < 0: the
       session did not get there. */
    double notarization_ms;
    double quote_ms, tdx_verify_ms; /* teebench's side of the TEE message; < 0: none */
    size_t quote_len;
    int simulated; /* the quote was SIMULATED */
    int substituted;
    uint64_t wall_ms;             /* Chromium start to the last report */
    double cpu_ms[TB_TLSN_ROLES]; /* user + system */
    double peak_rss_mib[TB_TLSN_ROLES];
    tb_tlsn_hub_stats hub;
    char session[33];
    char log[TB_TLSN_ROLES][4200]; /* each Chromium's log file */
} tb_tlsn_session_result;

void tb_tlsn_session_result_clear(tb_tlsn_session_result *r);

/* A phase's time from a party's report (ms), or -1 when it has none. */
double tb_tlsn_session_phase(const tb_tlsn_session_result *r, int role, const char *phase);

/* 0 when both parties finished; -1 with err (the one line) otherwise. The result is
 * filled as far as the session got, either way. */
int tb_tlsn_session_run(const tb_tlsn_session_config *c, const volatile sig_atomic_t *cancel,
                        tb_tlsn_session_result *r, tb_err *err);

#endif
