/* notary/proto: the notary's wire protocol, parsing only (no I/O).
 *
 *  - tb_nreq_parse: the HTTP/1.1 request head a client sends to the notary,
 *    with strict limits (head size, header count, body size).
 *  - tb_session_req / tb_notarize_req: the JSON bodies of POST /session and
 *    POST /notarize (docs/NOTARY.md has the schema).
 *  - tb_http_response_complete: framing of a target server's HTTP response
 *    (Content-Length, chunked, or until close), to know where it ends.
 * Every parser here reads untrusted bytes: it never reads past len, never
 * allocates without a limit, and is covered by fuzz/fuzz_notary_request.c. */
#ifndef TB_NOTARY_PROTO_H
#define TB_NOTARY_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_NREQ_MAX_HEAD 8192
#define TB_NREQ_MAX_HEADERS 32

typedef struct tb_nreq {
    char method[8];
    char path[128];  /* without the query */
    char query[384]; /* after '?', may be empty */
    size_t content_length;
    size_t head_len; /* bytes of request line + headers, including the blank line */
    int keep_alive;  /* HTTP/1.1 without "Connection: close", or 1.0 with keep-alive */
} tb_nreq;

/* Parses a request head from p[0..len). Returns 1 when the head is complete and
 * valid (*req filled), 0 when more bytes are needed, -1 when the request is
 * refused: *status is the HTTP status to answer (400, 413, 431, 501, 505) and
 * err says why. A body longer than max_body is refused with 413. */
int tb_nreq_parse(const uint8_t *p, size_t len, size_t max_body, tb_nreq *req, int *status,
                  tb_err *err);
/* Finds name=value in a query string (no percent-decoding: values are hex ids).
 * Returns 0 and copies the value, or -1 when absent or longer than cap-1. */
int tb_nreq_query(const char *query, const char *name, char *out, size_t cap);

typedef struct tb_session_req {
    uint64_t max_sent, max_recv; /* 0 when absent: the notary's limits apply */
    int tee;                     /* teeAttestation */
    uint8_t nonce[64];
    size_t nonce_len; /* 0: no nonce given */
} tb_session_req;

/* {"maxSentData": int, "maxRecvData": int, "teeAttestation": bool, "nonce": hex}
 * all optional; nonce 1..64 bytes. */
int tb_session_req_parse(const char *body, size_t len, tb_session_req *out, tb_err *err);

typedef struct tb_notarize_req {
    char host[254];
    uint16_t port;
    char server_name[254];
    tb_buf request; /* owned: free with tb_notarize_req_free */
} tb_notarize_req;

/* {"host": str, "port": int, "serverName": str, "request": base64} all required.
 * host: 1..253 printable ASCII; serverName: a DNS name (letters, digits, '-', '.').
 * On failure nothing is left allocated. */
int tb_notarize_req_parse(const char *body, size_t len, tb_notarize_req *out, tb_err *err);
void tb_notarize_req_free(tb_notarize_req *r);

/* Is p[0..len) a complete HTTP/1.x response? Returns 1 (and *total = its length;
 * any bytes after it are not part of it), 0 when more bytes are needed, -1 when
 * malformed (err). eof = the server closed the connection; no_body = the request
 * was HEAD (no body whatever the headers say). */
int tb_http_response_complete(const uint8_t *p, size_t len, int eof, int no_body, size_t *total,
                              tb_err *err);

/* 1 when s is a syntactically valid DNS host name (1..253 bytes, labels 1..63 of
 * letters, digits and '-', not starting or ending with '-'), else 0. */
int tb_dns_name_valid(const char *s);

#endif
