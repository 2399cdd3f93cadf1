/* ev: epoll event loop with a timer heap. See ev.h for the contract.
 * Timer ids are (generation << 32 | slot + 1): a stale id never matches a
 * reused slot. The heap holds slot indices ordered by due time; each slot
 * remembers its heap position so deletion is O(log n). */
#include "net/ev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "net/internal.h"

#define EV_BATCH 256

struct fev {
    int mask;
    uint32_t gen; /* bumped when the fd is unregistered: stale epoll events are skipped */
    tb_ev_file_fn *rfn;
    tb_ev_file_fn *wfn;
    void *data;
};

struct tslot {
    uint64_t when;
    uint32_t gen;
    int heap_pos; /* -1 when free */
    tb_ev_timer_fn *fn;
    void *data;
};

struct tb_ev_loop {
    int epfd;
    int setsize;
    int stop;
    int no_pwait2; /* the kernel lacks epoll_pwait2 (< 5.11): ms timeouts via epoll_wait */
    struct fev *fevs;
    struct tslot *slots;
    int *heap;
    int nheap;
    int max_timers;
    int *free_slots;
    int nfree;
    struct epoll_event events[EV_BATCH];
};

tb_ev_loop *tb_ev_new(int setsize, int max_timers, tb_err *err)
{
    if (setsize <= 0 || max_timers < 0) {
        tb_errf(err, "event loop: bad sizes");
        return NULL;
    }
    tb_ev_loop *l = calloc(1, sizeof *l);
    if (!l) {
        tb_errf(err, "event loop: out of memory");
        return NULL;
    }
    l->setsize = setsize;
    l->max_timers = max_timers;
    l->fevs = calloc((size_t)setsize, sizeof *l->fevs);
    l->slots = calloc((size_t)max_timers + 1, sizeof *l->slots);
    l->heap = calloc((size_t)max_timers + 1, sizeof *l->heap);
    l->free_slots = calloc((size_t)max_timers + 1, sizeof *l->free_slots);
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (!l->fevs || !l->slots || !l->heap || !l->free_slots || l->epfd < 0) {
        tb_errno(err, "event loop");
        tb_ev_free(l);
        return NULL;
    }
    for (int i = 0; i < max_timers; i++) {
        l->slots[i].heap_pos = -1;
        l->free_slots[l->nfree++] = max_timers - 1 - i;
    }
    return l;
}

void tb_ev_free(tb_ev_loop *l)
{
    if (!l)
        return;
    if (l->epfd >= 0)
        close(l->epfd);
    free(l->fevs);
    free(l->slots);
    free(l->heap);
    free(l->free_slots);
    free(l);
}

static int apply_mask(tb_ev_loop *l, int fd, int old, int mask, tb_err *err)
{
    struct epoll_event ee = {0};
    ee.data.u64 = ((uint64_t)l->fevs[fd].gen << 32) | (uint32_t)fd;
    if (mask & TB_EV_READABLE)
        ee.events |= EPOLLIN;
    if (mask & TB_EV_WRITABLE)
        ee.events |= EPOLLOUT;
    int op =
        old == TB_EV_NONE ? EPOLL_CTL_ADD : (mask == TB_EV_NONE ? EPOLL_CTL_DEL : EPOLL_CTL_MOD);
    if (epoll_ctl(l->epfd, op, fd, &ee) < 0)
        return tb_errno(err, "epoll_ctl fd %d", fd);
    return 0;
}

int tb_ev_add(tb_ev_loop *l, int fd, int mask, tb_ev_file_fn *fn, void *data, tb_err *err)
{
    if (fd < 0 || fd >= l->setsize)
        return tb_errf(err, "event loop: fd %d out of range (setsize %d)", fd, l->setsize);
    struct fev *f = &l->fevs[fd];
    int nmask = f->mask | mask;
    if (nmask != f->mask && apply_mask(l, fd, f->mask, nmask, err) < 0)
        return -1;
    f->mask = nmask;
    if (mask & TB_EV_READABLE)
        f->rfn = fn;
    if (mask & TB_EV_WRITABLE)
        f->wfn = fn;
    f->data = data;
    return 0;
}

void tb_ev_del(tb_ev_loop *l, int fd, int mask)
{
    if (fd < 0 || fd >= l->setsize)
        return;
    struct fev *f = &l->fevs[fd];
    int nmask = f->mask & ~mask;
    if (nmask == f->mask)
        return;
    apply_mask(l, fd, f->mask, nmask, NULL); /* only fails if fd is already closed */
    f->mask = nmask;
    if (nmask == TB_EV_NONE) {
        f->rfn = f->wfn = NULL;
        f->data = NULL;
        f->gen++;
    }
}

int tb_ev_mask(const tb_ev_loop *l, int fd)
{
    return (fd < 0 || fd >= l->setsize) ? TB_EV_NONE : l->fevs[fd].mask;
}

/* ---- timer heap ---- */

static int earlier(const tb_ev_loop *l, int a, int b)
{
    return l->slots[l->heap[a]].when < l->slots[l->heap[b]].when;
}

static void hswap(tb_ev_loop *l, int a, int b)
{
    int t = l->heap[a];
    l->heap[a] = l->heap[b];
    l->heap[b] = t;
    l->slots[l->heap[a]].heap_pos = a;
    l->slots[l->heap[b]].heap_pos = b;
}

static void sift_up(tb_ev_loop *l, int i)
{
    while (i > 0 && earlier(l, i, (i - 1) / 2)) {
        hswap(l, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(tb_ev_loop *l, int i)
{
    for (;;) {
        int c = 2 * i + 1, m = i;
        if (c < l->nheap && earlier(l, c, m))
            m = c;
        if (c + 1 < l->nheap && earlier(l, c + 1, m))
            m = c + 1;
        if (m == i)
            return;
        hswap(l, i, m);
        i = m;
    }
}

static void heap_remove(tb_ev_loop *l, int pos)
{
    int last = --l->nheap;
    if (pos != last) {
        hswap(l, pos, last);
        sift_down(l, pos);
        sift_up(l, pos);
    }
}

uint64_t tb_ev_timer_at(tb_ev_loop *l, uint64_t when_ns, tb_ev_timer_fn *fn, void *data)
{
    if (l->nfree == 0)
        return 0;
    int s = l->free_slots[--l->nfree];
    struct tslot *t = &l->slots[s];
    t->when = when_ns;
    t->fn = fn;
    t->data = data;
    t->gen++;
    t->heap_pos = l->nheap;
    l->heap[l->nheap++] = s;
    sift_up(l, t->heap_pos);
    return ((uint64_t)t->gen << 32) | (uint64_t)(s + 1);
}

uint64_t tb_ev_timer_add(tb_ev_loop *l, uint64_t delay_ns, tb_ev_timer_fn *fn, void *data)
{
    return tb_ev_timer_at(l, tb_mono_ns() + delay_ns, fn, data);
}

static struct tslot *live_slot(tb_ev_loop *l, uint64_t id)
{
    uint64_t s1 = id & 0xffffffffu;
    if (s1 == 0 || s1 > (uint64_t)l->max_timers)
        return NULL;
    struct tslot *t = &l->slots[s1 - 1];
    if (t->heap_pos < 0 || t->gen != (uint32_t)(id >> 32))
        return NULL;
    return t;
}

int tb_ev_timer_del(tb_ev_loop *l, uint64_t id)
{
    struct tslot *t = live_slot(l, id);
    if (!t)
        return -1;
    heap_remove(l, t->heap_pos);
    t->heap_pos = -1;
    l->free_slots[l->nfree++] = (int)(t - l->slots);
    return 0;
}

static int run_timers(tb_ev_loop *l)
{
    int n = 0;
    uint64_t now = tb_mono_ns();
    /* Timers re-armed during this pass with a zero delay wait for the next pass. */
    for (int budget = l->nheap; budget > 0 && l->nheap > 0 && !l->stop; budget--) {
        int s = l->heap[0];
        struct tslot *t = &l->slots[s];
        if (t->when > now)
            break;
        uint64_t id = ((uint64_t)t->gen << 32) | (uint64_t)(s + 1);
        int64_t again = t->fn(l, id, t->data);
        n++;
        if (t->heap_pos < 0 || t->gen != (uint32_t)(id >> 32))
            continue; /* deleted itself */
        if (again >= 0) {
            t->when = now + (uint64_t)again;
            sift_down(l, t->heap_pos);
            sift_up(l, t->heap_pos);
        } else {
            heap_remove(l, t->heap_pos);
            t->heap_pos = -1;
            l->free_slots[l->nfree++] = s;
        }
        now = tb_mono_ns();
    }
    return n;
}

int tb_ev_poll(tb_ev_loop *l, int64_t timeout_ns, tb_err *err)
{
    struct timespec ts, *tsp = NULL;
    if (l->nheap > 0) {
        uint64_t now = tb_mono_ns(), when = l->slots[l->heap[0]].when;
        uint64_t wait = when > now ? when - now : 0;
        if (timeout_ns < 0 || (uint64_t)timeout_ns > wait)
            timeout_ns = (int64_t)wait;
    }
    if (timeout_ns >= 0) {
        ts.tv_sec = timeout_ns / 1000000000;
        ts.tv_nsec = timeout_ns % 1000000000;
        tsp = &ts;
    }
    int n = -1;
    if (!l->no_pwait2) {
        n = epoll_pwait2(l->epfd, l->events, EV_BATCH, tsp, NULL);
        if (n < 0 && errno == ENOSYS)
            l->no_pwait2 = 1;
    }
    if (l->no_pwait2) {
        /* round up: waking early would spin until the timer is due */
        int64_t msl = tsp ? (timeout_ns + 999999) / 1000000 : -1;
        int ms = msl > 86400000 ? 86400000 : (int)msl;
        n = epoll_wait(l->epfd, l->events, EV_BATCH, ms);
    }
    if (n < 0) {
        if (errno != EINTR)
            return tb_errno(err, "epoll_pwait2");
        n = 0;
    }
    for (int i = 0; i < n; i++) {
        int fd = (int)(uint32_t)l->events[i].data.u64;
        uint32_t gen = (uint32_t)(l->events[i].data.u64 >> 32);
        uint32_t ev = l->events[i].events;
        struct fev *f = &l->fevs[fd];
        /* Errors and hangups go to whichever side is watched: its read or write
         * call then reports the failure. A callback may close the fd (and the
         * number may be reused at once): the generation check skips the rest. */
        if ((ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) && (f->mask & TB_EV_READABLE) && f->gen == gen)
            f->rfn(l, fd, f->data, TB_EV_READABLE);
        if ((ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && (f->mask & TB_EV_WRITABLE) && f->gen == gen)
            f->wfn(l, fd, f->data, TB_EV_WRITABLE);
    }
    return n + run_timers(l);
}

int tb_ev_run(tb_ev_loop *l, tb_err *err)
{
    l->stop = 0;
    while (!l->stop)
        if (tb_ev_poll(l, -1, err) < 0)
            return -1;
    return 0;
}

void tb_ev_stop(tb_ev_loop *l)
{
    l->stop = 1;
}
