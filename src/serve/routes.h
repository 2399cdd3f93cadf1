/* routes: the fixture server's site -- every response prebuilt once at startup
 * (status line, headers and body in one contiguous block, in three variants
 * for the connection handling: HTTP/1.1 keep-alive, HTTP/1.0 keep-alive and
 * close) and the mapping from a parsed request to one of them, plus the
 * per-route, per-status request counters.
 *
 * Routes: "/" (615-byte welcome page), "/formats/json?size=1|4|8" (the fixture
 * documents as compact JSON; other or missing sizes 404), "/formats/html"
 * (4kb.html), "/bytes?size=N" (N bytes of 'B', N <= bytes_cap, 400 above or
 * when N is not a decimal number), 404 for every other path, 405 for methods
 * other than GET and HEAD, and 400/431/505 for requests the parser rejects
 * (those close the connection).
 *
 * Ownership: tb_site_init allocates the response store, tb_site_clear releases
 * it; a tb_reply points into the site (or the caller's scratch) and is valid as
 * long as both are. Answering a request allocates nothing. A tb_site is
 * read-only after init, so any number of threads may share one. */
#ifndef TB_SERVE_ROUTES_H
#define TB_SERVE_ROUTES_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "net/http_req.h"

#define TB_BYTES_CAP_DEFAULT ((uint64_t)16 << 20) /* 16 MiB */
#define TB_FILL_LEN 65536                         /* the 'B' block /bytes repeats */
#define TB_REPLY_SCRATCH 256                      /* caller's buffer for a /bytes head */

enum tb_route {
    TB_ROUTE_ROOT,
    TB_ROUTE_JSON1,
    TB_ROUTE_JSON4,
    TB_ROUTE_JSON8,
    TB_ROUTE_HTML,
    TB_ROUTE_BYTES,
    TB_ROUTE_OTHER,     /* any other path */
    TB_ROUTE_MALFORMED, /* requests the parser rejected */
    TB_ROUTE_COUNT
};

enum tb_status_ix { TB_ST_200, TB_ST_400, TB_ST_404, TB_ST_405, TB_ST_431, TB_ST_505, TB_ST_COUNT };

/* "/", "/formats/json?size=4", ..., "other", "malformed". */
const char *tb_route_name(int route);
/* 200, 400, ... for a tb_status_ix. */
int tb_status_code(int status_ix);

typedef struct tb_counts {
    uint64_t n[TB_ROUTE_COUNT][TB_ST_COUNT];
} tb_counts;

void tb_counts_merge(tb_counts *into, const tb_counts *from);
uint64_t tb_counts_total(const tb_counts *c);

enum { TB_CONN_KA11, TB_CONN_KA10, TB_CONN_CLOSE, TB_CONN_VARIANTS };

enum tb_resp_id {
    TB_RESP_ROOT,
    TB_RESP_JSON1,
    TB_RESP_JSON4,
    TB_RESP_JSON8,
    TB_RESP_HTML,
    TB_RESP_NOT_FOUND,
    TB_RESP_METHOD,
    TB_RESP_BYTES_BAD_SIZE,
    TB_RESP_BYTES_TOO_BIG,
    TB_RESP_BAD_REQUEST,
    TB_RESP_TOO_LARGE,
    TB_RESP_VERSION,
    TB_RESP_COUNT
};

typedef struct tb_resp {
    const uint8_t *p; /* head and body */
    size_t len;       /* all of it */
    size_t head_len;  /* the head only (what HEAD gets) */
} tb_resp;

typedef struct tb_site {
    uint8_t *store; /* every response, back to back */
    tb_resp resp[TB_RESP_COUNT][TB_CONN_VARIANTS];
    uint8_t *fill; /* TB_FILL_LEN bytes of 'B' */
    uint64_t bytes_cap;
} tb_site;

typedef struct tb_reply {
    int route;           /* enum tb_route */
    int status;          /* enum tb_status_ix */
    const uint8_t *head; /* first bytes to send */
    size_t head_len;
    uint64_t fill_len; /* then this many bytes of site->fill, repeated */
    int close;         /* close the connection once sent */
} tb_reply;

/* Builds every response. bytes_cap bounds /bytes?size=N. */
int tb_site_init(tb_site *s, uint64_t bytes_cap, tb_err *err);
void tb_site_clear(tb_site *s);

/* The reply to a request r parsed (TB_HREQ_DONE) from buf. scratch holds
 * TB_REPLY_SCRATCH bytes the reply may point to (the /bytes head). */
void tb_site_answer(const tb_site *s, const tb_http_req *r, const uint8_t *buf, char *scratch,
                    tb_reply *out);
/* The reply to a request the parser rejected with result (TB_HREQ_BAD, ...). */
void tb_site_answer_error(const tb_site *s, int result, tb_reply *out);

#endif
