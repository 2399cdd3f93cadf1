/* net/internal: entry points of src/net that no other module uses -- the unit
 * tests and fuzz targets drive them directly. */
#ifndef TB_NET_INTERNAL_H
#define TB_NET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "net/ev.h"
#include "net/http_req.h"
#include "net/ws.h"

/* ev.c: waits for events (at most until the next timer, or timeout_ns if no
 * timer; timeout_ns < 0 waits forever) and runs their callbacks once (one
 * iteration of tb_ev_run). Returns the number of events processed, or -1 on an
 * epoll failure. */
int tb_ev_poll(tb_ev_loop *l, int64_t timeout_ns, tb_err *err);

/* http_req.c: discards up to avail body bytes; returns how many it took
 * (<= body_left). */
size_t tb_http_req_skip_body(tb_http_req *r, size_t avail);

/* ws.c: Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key GUID)), NUL-terminated
 * in out (TB_WS_ACCEPT_LEN + 1 bytes). */
void tb_ws_accept_key(const char *key, size_t key_len, char out[TB_WS_ACCEPT_LEN + 1]);

#endif
