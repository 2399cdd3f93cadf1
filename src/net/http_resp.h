/* http_resp: an incremental, zero-allocation HTTP/1.1 response parser.
 *
 * Feed it the bytes of a connection as they arrive, split anywhere; it reports
 * when one response is complete and how many bytes it used, so bytes after the
 * end belong to the next response. It keeps no pointer into the caller's buffer.
 * It understands: status line (HTTP/1.0 and 1.1), headers (Content-Length,
 * Transfer-Encoding, Connection: close/keep-alive), bodies delimited by
 * Content-Length, by chunked encoding (with extensions and trailers) or by the
 * end of the connection; 1xx interim responses are skipped; 204 and 304 (and
 * any response to a HEAD request, see `head`) have no body; 101 Switching
 * Protocols ends the HTTP stream (done at its blank line, not kept alive).
 * Framing follows RFC 9112 section 6.3 whatever the order of the header lines:
 * a Transfer-Encoding whose final coding is chunked is chunked; any other
 * Transfer-Encoding means the body runs to the end of the connection; both
 * override a Content-Length (the connection is then not reused, and
 * content_length reads -1). Bare LF line ends are accepted.
 * Limits: 64 KiB of status line plus headers (interim responses included),
 * 15 hex digits of chunk size, 2^62 bytes of body.
 *
 * Usage: tb_http_resp_init once (then set `head` if the request was HEAD, and
 * `sink` to be told the header fields and the body), then tb_http_resp_feed until
 * TB_HTTP_DONE (then read the result fields and tb_http_resp_init again for the
 * next response). At the end of the stream call tb_http_resp_eof.
 *
 * A sink (optional; load/script's response() hook uses one) is told, as they are
 * parsed: each header field of the response -- name, and value without its
 * surrounding blanks, as offsets into the bytes fed since tb_http_resp_init (a
 * field may span two feeds; the caller keeps the bytes it wants to read), the end
 * of each 1xx interim response (the fields reported so far were the interim
 * one's), and the body's payload (chunk framing removed) as pointers into the fed
 * buffer, valid during the call. Trailer fields are not reported. Without a sink
 * the parser does no work for it. */
#ifndef TB_NET_HTTP_RESP_H
#define TB_NET_HTTP_RESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TB_HTTP_MORE 0   /* all bytes used, the response is not complete yet */
#define TB_HTTP_DONE 1   /* one response is complete: *used bytes belong to it */
#define TB_HTTP_ERROR -1 /* malformed response: error says why; stop using the connection */

#define TB_HTTP_HEADER_MAX (64 * 1024)

typedef struct tb_http_resp_sink {
    void (*field)(void *ctx, uint32_t name_off, uint32_t name_len, uint32_t value_off,
                  uint32_t value_len);
    void (*interim)(void *ctx);
    void (*body)(void *ctx, const uint8_t *p, size_t n);
    void *ctx;
} tb_http_resp_sink;

typedef struct tb_http_resp {
    /* results, valid once the headers are parsed (and all at TB_HTTP_DONE) */
    int status;
    int minor;       /* HTTP/1.<minor> */
    bool keep_alive; /* the connection may carry another request */
    bool chunked;
    int64_t content_length; /* -1 when absent */
    uint64_t body_bytes;    /* body bytes seen (payload, without chunk framing) */
    uint32_t header_bytes;  /* status line and headers, including the blank line */
    const char *error;      /* static string, set on TB_HTTP_ERROR */
    /* configuration: set after tb_http_resp_init; kept across interim responses */
    bool head;                     /* the request was HEAD: the response ends after its headers */
    const tb_http_resp_sink *sink; /* NULL: none */
    /* parser state (private) */
    uint8_t state;
    uint8_t hdr; /* which known header the current line is */
    uint8_t name_len;
    uint8_t val_len;
    uint8_t match; /* candidates still matching the header name */
    bool val_overflow;
    bool conn_close, conn_keep;
    bool has_te;        /* a Transfer-Encoding line was seen (chunked: its final coding) */
    uint64_t remaining; /* body or chunk bytes left */
    uint32_t digits;
    char val[64];
    uint64_t fed; /* bytes used by earlier feeds of this response (interim ones included) */
    uint32_t f_name, f_name_end, f_val, f_val_end; /* the sink's current field (offsets) */
} tb_http_resp;

void tb_http_resp_init(tb_http_resp *p);
int tb_http_resp_feed(tb_http_resp *p, const uint8_t *buf, size_t len, size_t *used);
/* The peer closed the stream: TB_HTTP_DONE if that ends a close-delimited body,
 * else TB_HTTP_ERROR (error = "connection closed mid-response"). */
int tb_http_resp_eof(tb_http_resp *p);

#endif
