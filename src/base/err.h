/* err: the one error style of teebench.
 *
 * A function that can fail returns 0 on success and -1 on failure, and on
 * failure fills a caller-owned tb_err with one line saying what failed and why
 * (no trailing newline, no "teebench:" prefix: the cli adds
 * "teebench: <command>: " when it prints). Nothing here allocates. */
#ifndef TB_BASE_ERR_H
#define TB_BASE_ERR_H

#include <stddef.h>

#define TB_ERR_MAX 512

typedef struct tb_err {
    char msg[TB_ERR_MAX];
} tb_err;

/* Sets e->msg from a printf format; returns -1 so callers can `return tb_errf(...)`.
 * A NULL e is allowed and ignored. */
int tb_errf(tb_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like tb_errf, with ": <strerror(errno)>" appended (errno read on entry). */
int tb_errno(tb_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prepends "<prefix>: " to an existing message (to add context while unwinding). */
int tb_err_wrap(tb_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends the OpenSSL error queue's first reason (and clears the queue). */
int tb_err_ssl(tb_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
