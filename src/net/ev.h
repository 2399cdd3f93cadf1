/* ev: a minimal event loop over epoll (in the style of redis' ae).
 *
 * One tb_ev_loop per thread; it is not thread-safe and holds no global state.
 * File events: per fd, a readable and/or writable callback sharing one data
 * pointer. The epoll registration changes only when the fd's mask changes, so
 * a connection that stays readable costs no epoll_ctl per request.
 * Timers: one-shot or periodic, nanosecond resolution (epoll_pwait2; whole
 * milliseconds on kernels before 5.11, which lack it), kept in a
 * binary min-heap over a fixed slot table (no allocation after tb_ev_new).
 * Invariants: fds are < setsize; a callback may add/delete any event, including
 * its own, and may stop the loop. Level-triggered semantics.
 *
 * Ownership: tb_ev_new allocates, tb_ev_free releases the loop (not the fds). */
#ifndef TB_NET_EV_H
#define TB_NET_EV_H

#include <stdint.h>

#include "base/err.h"

#define TB_EV_NONE 0
#define TB_EV_READABLE 1
#define TB_EV_WRITABLE 2

/* A timer callback returns the delay in ns until it runs again, or TB_EV_NOMORE. */
#define TB_EV_NOMORE (-1)

typedef struct tb_ev_loop tb_ev_loop;

/* mask is the event that fired (TB_EV_READABLE or TB_EV_WRITABLE). */
typedef void tb_ev_file_fn(tb_ev_loop *l, int fd, void *data, int mask);
typedef int64_t tb_ev_timer_fn(tb_ev_loop *l, uint64_t id, void *data);

/* setsize: the largest fd + 1 the loop will watch; max_timers: live timers at once. */
tb_ev_loop *tb_ev_new(int setsize, int max_timers, tb_err *err);
void tb_ev_free(tb_ev_loop *l);

/* Adds mask (READABLE and/or WRITABLE) to fd's watched events with callback fn.
 * data is shared by both directions (the last call sets it). */
int tb_ev_add(tb_ev_loop *l, int fd, int mask, tb_ev_file_fn *fn, void *data, tb_err *err);
/* Removes mask from fd's watched events (removing all unregisters the fd).
 * Call with TB_EV_READABLE|TB_EV_WRITABLE before closing an fd. */
void tb_ev_del(tb_ev_loop *l, int fd, int mask);
/* The currently watched mask of fd. */
int tb_ev_mask(const tb_ev_loop *l, int fd);

/* Runs fn once after delay_ns (then again after each positive return value).
 * Returns a timer id (never 0), or 0 when max_timers are live. */
uint64_t tb_ev_timer_add(tb_ev_loop *l, uint64_t delay_ns, tb_ev_timer_fn *fn, void *data);
/* Same, at an absolute CLOCK_MONOTONIC time (tb_mono_ns). */
uint64_t tb_ev_timer_at(tb_ev_loop *l, uint64_t when_ns, tb_ev_timer_fn *fn, void *data);
/* Cancels a live timer; returns 0, or -1 if id is not live (already ran or deleted). */
int tb_ev_timer_del(tb_ev_loop *l, uint64_t id);

/* Waits for events and runs their callbacks until tb_ev_stop. Returns 0, or -1
 * on an epoll failure. (One iteration, tb_ev_poll, is in net/internal.h.) */
int tb_ev_run(tb_ev_loop *l, tb_err *err);
/* Makes tb_ev_run return after the current iteration (callable from callbacks). */
void tb_ev_stop(tb_ev_loop *l);

#endif
