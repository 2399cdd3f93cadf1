/* attest/common/http: the one HTTP GET of attestation collateral (Intel's PCCS/PCS and AMD's
 * KDS), over libcurl (loaded on first use: base/curl.h).
 *
 * Invariants: a body larger than the caller's limit is refused, never truncated; the
 * one header the caller names is captured trimmed (the last occurrence wins); redirects
 * are followed at most 3 times; the timeout covers connect and the whole transfer.
 * Internal to attest (pccs.c, snp_kds.c). */
#ifndef TB_ATTEST_HTTP_H
#define TB_ATTEST_HTTP_H

#include <stddef.h>

#include <curl/curl.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct tb_attest_http {
    size_t max_body;  /* set by the caller: the largest body accepted */
    const char *want; /* set by the caller: a header to capture, or NULL */
    tb_buf body;      /* the response body */
    char *header;     /* want's value (malloc'd), NULL when absent */
    int too_big;
} tb_attest_http;

/* GET url on c; body and header replace what r held. 0 with *status (any HTTP status),
 * or -1 with err ("GET URL: why") when no response arrived. */
int tb_attest_http_get(CURL *c, const char *url, long timeout_ms, tb_attest_http *r, long *status,
                       tb_err *err);

/* Frees what r holds (not r) and keeps its settings (max_body, want). */
void tb_attest_http_clear(tb_attest_http *r);

#endif
