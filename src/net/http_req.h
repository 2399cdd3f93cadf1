/* http_req: an incremental, zero-allocation HTTP/1.1 request parser (server side).
 *
 * The caller keeps the bytes of the current request contiguous from its first
 * byte at buf[0] and calls tb_http_req_parse(r, buf, len) every time len grows.
 * The parser resumes where it stopped (r->pos), so each byte is scanned once
 * however the request is split across reads. When the head is complete it
 * returns TB_HREQ_DONE with r->head_len set; the method and target are offsets
 * into buf (valid while the caller keeps buf). A request body announced by
 * Content-Length is not parsed: r->body_left says how many bytes follow the
 * head (the caller reads or skips them). Bytes after the body belong to the
 * next (pipelined) request: tb_http_req_reset, then parse again from there.
 *
 * What it accepts: request line "METHOD SP target SP HTTP/1.x" (CRLF or bare LF
 * line ends, leading empty lines skipped), header fields "name: value" with
 * token names. What it rejects (TB_HREQ_BAD, answer 400): control bytes, obs-fold
 * continuation lines, whitespace before a colon, malformed or conflicting
 * Content-Length, HTTP/1.1 without Host. A Transfer-Encoding field gives
 * TB_HREQ_UNSUPPORTED (request bodies in a transfer coding are not supported:
 * answer 501, or 400 as the fixture server does, and close). Versions other than
 * 1.0/1.1 give TB_HREQ_VERSION (505). A head longer than max_head or with more
 * than max_headers fields gives TB_HREQ_TOO_LARGE (431).
 * Users: the fixture server (serve/server) and the notary (notary/server).
 *
 * Invariants: r->pos <= len of the last call; after a non-MORE result the
 * parser stays in that result until tb_http_req_reset. Nothing here allocates. */
#ifndef TB_NET_HTTP_REQ_H
#define TB_NET_HTTP_REQ_H

#include <stddef.h>
#include <stdint.h>

#define TB_HREQ_MAX_HEADERS 100
#define TB_HREQ_MAX_METHOD 16

enum tb_hreq_result {
    TB_HREQ_MORE = 0,         /* need more bytes */
    TB_HREQ_DONE = 1,         /* head complete: fields below are valid */
    TB_HREQ_BAD = -1,         /* malformed: answer 400 and close */
    TB_HREQ_TOO_LARGE = -2,   /* head over max_head or too many fields: 431 and close */
    TB_HREQ_VERSION = -3,     /* not HTTP/1.0 or 1.1: 505 and close */
    TB_HREQ_UNSUPPORTED = -4, /* Transfer-Encoding in a request: 501 and close */
};

enum tb_hreq_method { TB_HREQ_GET, TB_HREQ_HEAD, TB_HREQ_OTHER };

typedef struct tb_http_req {
    /* configuration (kept by tb_http_req_reset) */
    size_t max_head;
    unsigned max_headers; /* fields allowed: TB_HREQ_MAX_HEADERS after init; may be lowered */

    /* results, valid after TB_HREQ_DONE */
    int method; /* enum tb_hreq_method */
    uint32_t method_off, method_len;
    uint32_t target_off, target_len;
    int minor;          /* HTTP/1.<minor>: 0 or 1 */
    int keep_alive;     /* 1 if the connection stays open after the response */
    uint64_t body_left; /* body bytes still to skip (Content-Length) */
    size_t head_len;    /* bytes of buf taken by the head */
    unsigned nheaders;

    /* parser state */
    size_t pos;
    int state;
    int result;
    uint32_t line_off; /* start of the current header line */
    uint32_t name_len;
    uint32_t value_off, value_end;
    int conn_close, conn_keep_alive, has_host, has_cl;
    uint64_t content_length;
} tb_http_req;

/* Starts a request. max_head bounds the head (request line + fields) in bytes. */
void tb_http_req_init(tb_http_req *r, size_t max_head);
/* Prepares r for the next request on the same connection (keeps the configuration). */
void tb_http_req_reset(tb_http_req *r);
/* Scans buf[r->pos..len); returns an enum tb_hreq_result. */
int tb_http_req_parse(tb_http_req *r, const uint8_t *buf, size_t len);

/* 1 when the request's method is exactly m (case-sensitive, as methods are). */
int tb_http_req_method_is(const tb_http_req *r, const uint8_t *buf, const char *m);
/* The target's path (before '?') and query (after '?', NULL/0 if none). */
void tb_http_req_split_target(const tb_http_req *r, const uint8_t *buf, const char **path,
                              size_t *path_len, const char **query, size_t *query_len);

/* Looks up header field `name` (case-insensitive) in a head that tb_http_req_parse
 * accepted (TB_HREQ_DONE): sets *val and *val_len to the first such field's value
 * without its surrounding spaces and tabs. Returns how many fields have that
 * name (0: none; more than 1: the caller decides whether repeats are allowed). */
unsigned tb_http_req_header(const tb_http_req *r, const uint8_t *buf, const char *name,
                            const char **val, size_t *val_len);

/* Finds key in a query string "a=1&b=2"; sets val and val_len (the value may be empty).
 * Returns 1 if found, 0 if not. */
int tb_http_query_get(const char *query, size_t query_len, const char *key, const char **val,
                      size_t *val_len);

#endif
