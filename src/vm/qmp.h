/* qmp: a small client of QEMU's machine protocol (QMP) over a unix socket.
 *
 * The protocol: on connect QEMU sends a greeting {"QMP": {...}}; the client
 * sends {"execute": "qmp_capabilities"} and then commands, each answered by
 * {"return": ...} or {"error": {"class", "desc"}}; asynchronous events
 * {"event": ...} may arrive at any time, also between a command and its
 * answer. Messages are JSON objects, one per line (CRLF or LF).
 *
 * Invariants: every read has a deadline (a silent or stalled QEMU never hangs
 * the caller); a line longer than TB_QMP_MAX_LINE is an error, not a buffer
 * that grows without bound; replies are matched to commands by "id", and
 * events are skipped. The parsers are pure functions of untrusted bytes
 * (fuzz/fuzz_qmp.c). Nothing here prints. */
#ifndef TB_VM_QMP_H
#define TB_VM_QMP_H

#include <jansson.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define TB_QMP_MAX_LINE (1u << 20)

typedef enum {
    TB_QMP_GREETING = 0,
    TB_QMP_RETURN = 1,
    TB_QMP_ERROR = 2,
    TB_QMP_EVENT = 3
} tb_qmp_type;

/* One parsed message. json is owned (json_decref); value points inside it: the
 * "return" value, the "error" object, the event name's object, or "QMP". */
typedef struct tb_qmp_msg {
    tb_qmp_type type;
    json_t *json;
    json_t *value;  /* borrowed from json */
    long long id;   /* the "id" of a return/error when it is an integer, else -1 */
    char desc[256]; /* error: "<class>: <desc>"; event: its name */
} tb_qmp_msg;

/* Parses one message (a line without its line end). Fails on anything that is
 * not a JSON object of one of the four kinds. On success the caller frees
 * msg->json. */
int tb_qmp_parse(const char *line, size_t len, tb_qmp_msg *msg, tb_err *err);

/* From a query-cpus-fast return value: the host thread id of each vCPU, by
 * cpu-index (tids[cpu-index]); every index in [0, n) must appear exactly once.
 * Returns 0 and sets *n, or -1 when the value is malformed or has more than max. */
int tb_qmp_cpu_threads(const json_t *ret, int *tids, int max, int *n, tb_err *err);

/* Moves the first complete line of in (without its CR/LF) into line (reset
 * first; NUL-terminated) and drops it from in. Returns 1 with a line, 0 when
 * in holds no complete line yet, -1 when in holds more than TB_QMP_MAX_LINE
 * bytes without a line end. */
int tb_qmp_take_line(tb_buf *in, tb_buf *line, tb_err *err);

typedef struct tb_qmp {
    int fd;
    tb_buf in;
    long long next_id;
    int timeout_ms; /* per read */
} tb_qmp;

/* Connects to the socket at path, reads the greeting and negotiates
 * capabilities (qmp_capabilities). timeout_ms bounds each read and the connect
 * retries (QEMU may not have created the socket yet). */
int tb_qmp_open(tb_qmp *q, const char *path, int timeout_ms, tb_err *err);
/* Runs one command (args may be NULL; borrowed) and waits for its answer. On
 * success *ret (may be NULL) receives a new reference to the return value; an
 * {"error"} answer fails with "<command>: <class>: <desc>". */
int tb_qmp_exec(tb_qmp *q, const char *command, json_t *args, json_t **ret, tb_err *err);
void tb_qmp_close(tb_qmp *q);

#endif
